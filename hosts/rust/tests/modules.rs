//! Modules: calls with keyword arguments and defaults, schemas, saving,
//! state, attributes, tracing a closure, `.pt2` packages.
mod common;
use common::{assert_same, env_path, expected, fixture, kinds};
use tsbridge::{ops, Code, Data, Module, Tensor, TraceOptions, Value};

fn x() -> Value {
    Tensor::from_vec((0..6).map(|i| i as f32).collect(), &[2, 3]).unwrap().into()
}

#[test]
fn keyword_arguments_and_defaults() {
    let m = kinds();
    assert_same(&m.forward(&[x()]).unwrap().to_data().unwrap(), &expected("expected.pt", "forward"));
    let kw = m.call_with("forward", &[x()], &[("n", 3i64.into())]).unwrap();
    assert_same(&kw.to_data().unwrap(), &expected("expected.pt", "forward_kw"));
    let all = m.call_with("forward", &[x()], &[("scale", 1.0.into()), ("n", 4i64.into())]).unwrap();
    assert_same(&all.to_data().unwrap(), &expected("expected.pt", "forward_all_kw"));
}

#[test]
fn schemas_name_arguments_and_defaults() {
    let m = kinds();
    let forward = m.method("forward").unwrap().expect("forward");
    let names: Vec<&str> = forward.arguments.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["x", "n", "scale"]);
    assert_eq!(forward.arguments[1].default_json.as_deref(), Some("2"));
    assert!(!forward.arguments[0].has_default);
    assert!(m.methods().unwrap().iter().any(|s| s.name == "point"));
}

#[test]
fn save_write_read_compile() {
    let m = kinds();
    let copy = Module::read(&m.write().unwrap()).unwrap();
    assert_same(&copy.forward(&[x()]).unwrap().to_data().unwrap(), &expected("expected.pt", "forward"));
    let path = std::env::temp_dir().join(format!("tsb_rust_{}.pt", std::process::id()));
    m.save(&path).unwrap();
    assert!(Module::load(&path).is_ok());
    std::fs::remove_file(&path).unwrap();
    let compiled = Module::compile("def twice(self, x: int) -> int:\n    return x * 2\n").unwrap();
    assert_eq!(compiled.call("twice", &[21i64.into()]).unwrap().get::<i64>().unwrap(), 42);
    assert!(compiled.code().unwrap().contains("twice"));
}

#[test]
fn parameters_state_training_attributes() {
    let mut m = Module::load(fixture("mlp.pt")).unwrap();
    let names: Vec<String> = m.parameters().unwrap().into_iter().map(|p| p.0).collect();
    assert_eq!(names, vec!["fc.weight", "fc.bias"]);
    assert!(m.training().unwrap());
    m.eval().unwrap();
    assert!(!m.training().unwrap());
    assert!(m.attribute_names().unwrap().contains(&"fc".to_string()));
    assert_eq!(m.children().unwrap()[0].0, "fc");
    // load_state_dict of zeros: the output becomes tanh(0) = 0.
    let zeros = Data::dict(vec![
        ("fc.weight", Tensor::from_vec(vec![0f32; 6], &[2, 3]).unwrap()),
        ("fc.bias", Tensor::from_vec(vec![0f32; 2], &[2]).unwrap()),
    ]);
    m.set_state(&Value::new(zeros).unwrap(), true).unwrap();
    let out = m.forward(&[Tensor::from_vec(vec![1f32, 2.0, 3.0], &[1, 3]).unwrap().into()]).unwrap();
    assert_eq!(out.get::<Tensor>().unwrap().to_vec::<f32>().unwrap(), vec![0.0, 0.0]);
    let state: Vec<(String, Tensor)> = match m.state().unwrap().to_data().unwrap() {
        Data::Dict(pairs) => pairs.into_iter().map(|(k, v)| (k.try_into().unwrap(), v.try_into().unwrap())).collect(),
        other => panic!("{:?}", other),
    };
    assert_eq!(state.len(), 2);
    // A wrong shape is refused naming its key.
    let bad = Data::dict(vec![("fc.bias", Tensor::from_vec(vec![0f32; 3], &[3]).unwrap())]);
    let e = m.set_state(&Value::new(bad).unwrap(), false).unwrap_err();
    assert!(e.to_string().contains("fc.bias"), "{}", e);
    m.set_attribute("training", &true.into()).unwrap();
    assert!(m.attribute("training").unwrap().get::<bool>().unwrap());
}

#[test]
fn module_is_send_and_sync_value_is_send() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Module>();
    send::<Value>();
    let m = std::sync::Arc::new(kinds());
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let m = m.clone();
            std::thread::spawn(move || m.call("ints", &[Value::new(vec![i as i64, 1]).unwrap()]).unwrap().get::<i64>().unwrap())
        })
        .collect();
    let sums: Vec<i64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(sums, vec![1, 2, 3, 4]);
}

#[test]
fn trace_a_closure_under_a_chosen_name() {
    let example: Value = Tensor::from_vec(vec![1f32, 2.0], &[2]).unwrap().into();
    let options = TraceOptions { method_name: "double_plus_one".into(), strict: true };
    let traced = Module::trace(
        |inputs: &[Value]| {
            let doubled = ops::call("aten::mul", &[inputs[0].clone(), 2i64.into()])?;
            ops::call("aten::add", &[doubled, 1i64.into()])
        },
        &[example],
        &options,
    )
    .unwrap();
    let input: Value = Tensor::from_vec(vec![10f32, 20.0], &[2]).unwrap().into();
    let out = traced.call("double_plus_one", &[input]).unwrap();
    assert_eq!(out.get::<Tensor>().unwrap().to_vec::<f32>().unwrap(), vec![21.0, 41.0]);
    // The closure's error abandons the trace and comes back as it was.
    let e = Module::trace(
        |_: &[Value]| Err(tsbridge::Error::new(Code::Type, "[0]", "expected a tensor, got nothing")),
        &[Tensor::from_vec(vec![1f32], &[1]).unwrap().into()],
        &TraceOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.code, Code::Type);
    assert_eq!(e.to_string(), "traced function(): [0]: expected a tensor, got nothing");
}

#[test]
fn pt2_packages_load_where_libtorch_can() {
    let dir = env_path("TSB_EXPORT_FIXTURES");
    let package = dir.join("nested.pt2");
    if !package.exists() {
        // LibTorch before 2.6 (the fixture script wrote only its stamp):
        // tsbridge refuses every .pt2 with a clear unsupported error.
        let fake = std::env::temp_dir().join(format!("tsb_rust_{}.pt2", std::process::id()));
        std::fs::write(&fake, b"not a package").unwrap();
        let e = Module::load(&fake).err().expect(".pt2 refused");
        std::fs::remove_file(&fake).unwrap();
        assert_eq!(e.code, Code::Unsupported, "{}", e);
        assert!(e.to_string().contains("2.6"), "{}", e);
        return;
    }
    let m = Module::load(&package).unwrap();
    // {"args", "kwargs", "out"}: the inputs and what PyTorch's own caller
    // returned, records as plain tuples (tests/core/runtime/make_pt2_fixtures.py).
    let io = Value::from_pickle(&std::fs::read(dir.join("nested_io.pt")).unwrap()).unwrap();
    let io_data = io.to_data().unwrap();
    let lookup = |key: &str| match &io_data {
        Data::Dict(pairs) => pairs.iter().find(|(k, _)| matches!(k, Data::Str(s) if s == key)).unwrap().1.clone(),
        other => panic!("{:?}", other),
    };
    let args: Vec<Value> = match lookup("args") {
        Data::Tuple(items) | Data::List(items) => items.iter().map(|d| Value::try_from(d).unwrap()).collect(),
        other => panic!("{:?}", other),
    };
    let kwargs: Vec<(String, Value)> = match lookup("kwargs") {
        Data::Dict(pairs) => pairs.into_iter().map(|(k, v)| (String::try_from(k).unwrap(), Value::new(v).unwrap())).collect(),
        other => panic!("{:?}", other),
    };
    let kw: Vec<(&str, Value)> = kwargs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let out = m.call_with("forward", &args, &kw).unwrap().to_data().unwrap();
    assert_same(&out, &lookup("out"));
}
