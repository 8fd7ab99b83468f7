//! Operator libraries and seeding from Rust: a missing library's advice in
//! this host's words, torchaudio's library by name (tests/audio's fixture,
//! when ctest names it), and `aten::manual_seed` giving PyTorch's dropout.
mod common;
use common::{assert_same, fixture};
use std::convert::TryFrom;
use tsbridge::{ops, plugin, Data, Module, Tensor, Type, Value};

#[test]
fn a_missing_library_is_advised_in_rust_words() {
    let source = "def f(self, x: Tensor) -> Tensor:\n    return ops.nosuchlib.op(x)\n";
    let e = Module::compile(source).err().expect("refused");
    let message = e.message();
    assert!(
        message.ends_with("operators first (tsbridge::plugin::load_library(\"PATH.so\"))"),
        "{}",
        message
    );
    assert!(!message.contains("tsb_library_load") && !message.contains("tsb --library"));
}

#[test]
fn torchaudio_by_name_gives_pytorchs_result() {
    let models = match std::env::var_os("TSB_AUDIO_MODELS") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => return eprintln!("TSB_AUDIO_MODELS is not set (python3-torchaudio): skipped"),
    };
    let refused = Module::load(models.join("lfilter.pt")).err().expect("refused first");
    assert!(
        refused.message().contains("(tsbridge::plugin::load_library(\"torchaudio\"))"),
        "{}",
        refused.message()
    );
    plugin::load_library("torchaudio").unwrap();
    let library = plugin::libraries().unwrap().into_iter().find(|l| l.name == "torchaudio");
    assert!(library.expect("torchaudio listed").path.ends_with("/torchaudio/lib/libtorchaudio.so"));
    let read = |file: &str, annotation: &str| {
        let text = std::fs::read_to_string(models.join(file)).unwrap();
        Value::from_json(&text, &Type::parse(annotation).unwrap()).unwrap()
    };
    let args: Vec<Value> = match read("args.json", "List[Tensor]").to_data().unwrap() {
        Data::List(items) => items.into_iter().map(|d| Value::try_from(d).unwrap()).collect(),
        other => panic!("args.json holds {:?}", other),
    };
    let got = Module::load(models.join("lfilter.pt")).unwrap().forward(&args).unwrap();
    assert_same(&got.to_data().unwrap(), &read("expected.json", "Tensor").to_data().unwrap());
}

#[test]
fn manual_seed_gives_pytorchs_dropout() {
    let m = Module::load(fixture("dropout.pt")).unwrap();
    let x = || -> Value {
        Tensor::from_vec((1..=64).map(|i| i as f32).collect(), &[64]).unwrap().into()
    };
    let seeded = |seed: i64| {
        ops::call("aten::manual_seed", &[seed.into()]).unwrap();
        m.forward(&[x()]).unwrap().to_data().unwrap()
    };
    let seven = seeded(7);
    assert_eq!(format!("{:?}", seeded(7)), format!("{:?}", seven));
    assert_ne!(format!("{:?}", seeded(8)), format!("{:?}", seven));
    let bytes = std::fs::read(fixture("dropout_expected.pt")).unwrap();
    let want = Value::from_pickle(&bytes).unwrap().to_data().unwrap();
    match want {
        Data::Dict(pairs) => assert_same(&seven, &pairs[0].1),
        other => panic!("dropout_expected.pt holds {:?}", other),
    }
}
