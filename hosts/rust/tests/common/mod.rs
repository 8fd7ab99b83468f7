//! What the tests share: fixture paths (from the environment ctest sets,
//! hosts/rust/tests/rust.cmake) and a comparison of values against PyTorch's.
#![allow(dead_code)]
use std::path::PathBuf;
use tsbridge::{ops, Data, Module, Value};

/// A path ctest passes; a test run without it fails saying which.
pub fn env_path(name: &str) -> PathBuf {
    match std::env::var_os(name) {
        Some(p) => PathBuf::from(p),
        None => panic!("{} is not set: run these tests through ctest (hosts/rust/tests/rust.cmake) or set it", name),
    }
}

pub fn fixture(name: &str) -> PathBuf {
    env_path("TSB_RUST_FIXTURES").join(name)
}

pub fn kinds() -> Module {
    Module::load(fixture("kinds.pt")).expect("kinds.pt loads")
}

/// What PyTorch returned, read from the torch.save file the fixture wrote.
pub fn expected(file: &str, key: &str) -> Data {
    let bytes = std::fs::read(fixture(file)).unwrap();
    let all = Value::from_pickle(&bytes).unwrap().to_data().unwrap();
    match all {
        Data::Dict(pairs) => pairs
            .into_iter()
            .find(|(k, _)| matches!(k, Data::Str(s) if s == key))
            .unwrap_or_else(|| panic!("{} has no key {}", file, key))
            .1,
        other => panic!("{} holds {:?}", file, other),
    }
}

/// A NamedTuple as the plain tuple torch.save keeps, an Enum as its value.
pub fn plain(d: &Data) -> Data {
    match d {
        Data::NamedTuple { fields, .. } => Data::Tuple(fields.iter().map(|(_, v)| plain(v)).collect()),
        Data::Enum { value, .. } => plain(value),
        Data::List(xs) => Data::List(xs.iter().map(plain).collect()),
        Data::Tuple(xs) => Data::Tuple(xs.iter().map(plain).collect()),
        Data::Dict(ps) => Data::Dict(ps.iter().map(|(k, v)| (plain(k), plain(v))).collect()),
        other => other.clone(),
    }
}

/// Fails naming the first place where `got` differs from `want`;
/// tensors are compared by aten::allclose (which also checks shapes).
pub fn assert_same(got: &Data, want: &Data) {
    if let Err(at) = same(&plain(got), &plain(want), String::new()) {
        panic!("differ at {}: got {:?}, want {:?}", at, got, want);
    }
}

fn same(a: &Data, b: &Data, at: String) -> Result<(), String> {
    let items = |x: &[Data], y: &[Data], at: &str| -> Result<(), String> {
        if x.len() != y.len() {
            return Err(format!("{} (length {} vs {})", at, x.len(), y.len()));
        }
        x.iter().zip(y).enumerate().try_for_each(|(i, (p, q))| same(p, q, format!("{}[{}]", at, i)))
    };
    match (a, b) {
        (Data::List(x), Data::List(y)) | (Data::Tuple(x), Data::Tuple(y)) => items(x, y, &at),
        (Data::Dict(x), Data::Dict(y)) => {
            let keys = |d: &[(Data, Data)]| d.iter().map(|p| p.0.clone()).collect::<Vec<_>>();
            let values = |d: &[(Data, Data)]| d.iter().map(|p| p.1.clone()).collect::<Vec<_>>();
            items(&keys(x), &keys(y), &format!("{} keys", at))?;
            items(&values(x), &values(y), &format!("{} values", at))
        }
        (Data::Tensor(x), Data::Tensor(y)) => {
            let close = ops::call("aten::allclose", &[x.value().clone(), y.value().clone()])
                .map_err(|e| format!("{}: {}", at, e))?;
            if close.get::<bool>().unwrap() { Ok(()) } else { Err(at) }
        }
        (Data::Float(x), Data::Float(y)) if (x - y).abs() <= 1e-12 * x.abs().max(1.0) => Ok(()),
        (Data::None, Data::None) => Ok(()),
        (Data::Bool(x), Data::Bool(y)) if x == y => Ok(()),
        (Data::Int(x), Data::Int(y)) if x == y => Ok(()),
        (Data::Str(x), Data::Str(y)) if x == y => Ok(()),
        _ => Err(at),
    }
}
