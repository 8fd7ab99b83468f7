//! The ABI 1.9 additions, seen from Rust: a flatten that borrows tensors
//! and a keep that makes a handle of one; every tensor `Data` holds is its
//! own reference; a method resolved once is called by its index.
use std::sync::{Mutex, MutexGuard};

use tsbridge::{sys, Code, Data, Module, Tensor, Value};

// cargo runs a file's tests on parallel threads, and the live handle count
// is the process's: each test here holds this while it makes values.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

const SOURCE: &str = "
def first(self, x: int) -> int:
    return x + 1

def second(self, x: int) -> int:
    return x + 2

def third(self, x: int) -> int:
    return x + 3

def tensors(self, n: int) -> Dict[str, Tensor]:
    out: Dict[str, Tensor] = {}
    for i in range(n):
        out[str(i)] = torch.full([3], float(i))
    return out
";

fn module() -> Module {
    Module::compile(SOURCE).unwrap()
}

#[test]
fn flatten_borrowed_lends_tensors_and_keep_makes_a_handle() {
    let _serial = serial();
    let dict = module().call("tensors", &[2i64.into()]).unwrap();
    let mut entries = [sys::tsb_any::invalid(); 5];
    let mut n = 0usize;
    // SAFETY: `entries` has 5 slots; `dict` stays alive while they borrow from it.
    assert!(unsafe { sys::tsb_any_flatten_borrowed(dict.as_raw(), entries.as_mut_ptr(), 5, &mut n) }.is_null());
    assert_eq!(n, 5); // the dict, then key, value, key, value
    let tensor = entries[2];
    assert_eq!((tensor.type_index, tensor.flags), (sys::TSB_TYPE_TENSOR, sys::TSB_FLAG_BORROWED));
    let mut kept = sys::tsb_any::invalid();
    // SAFETY: `tensor` borrows from `dict`, alive here; `kept` is a new reference.
    assert!(unsafe { sys::tsb_any_keep(&tensor, &mut kept) }.is_null());
    assert_eq!((kept.type_index, kept.flags), (sys::TSB_TYPE_TENSOR, sys::TSB_FLAG_HANDLE));
    // SAFETY: `kept` is the new reference tsb_any_keep made, owned once.
    let kept = unsafe { Value::from_raw(kept) };
    drop(dict);
    assert_eq!(kept.get::<Tensor>().unwrap().to_vec::<f32>().unwrap(), vec![0f32; 3]);
}

#[test]
fn a_kept_tensor_from_a_flattened_dict_outlives_the_dict() {
    let _serial = serial();
    let m = module();
    let before = tsbridge::handle_count().unwrap();
    let dict = m.call("tensors", &[100i64.into()]).unwrap();
    let data = dict.to_data().unwrap();
    drop(dict);
    // Each tensor Data holds is a handle of its own, not the borrowed entry.
    assert_eq!(tsbridge::handle_count().unwrap(), before + 100);
    // Memory the dict freed is reused by what follows; the tensors stay.
    let _other = m.call("tensors", &[100i64.into()]).unwrap().to_data().unwrap();
    let pairs = match data {
        Data::Dict(pairs) => pairs,
        other => panic!("expected a Dict, got {:?}", other),
    };
    assert_eq!(pairs.len(), 100);
    for (i, (k, v)) in pairs.into_iter().enumerate() {
        assert!(matches!(k, Data::Str(ref s) if *s == i.to_string()), "{:?}", k);
        let t = match v {
            Data::Tensor(t) => t,
            other => panic!("expected a Tensor, got {:?}", other),
        };
        assert_eq!(t.value().as_raw().flags, sys::TSB_FLAG_HANDLE);
        assert_eq!(t.to_vec::<f32>().unwrap(), vec![i as f32; 3]);
    }
    drop(_other);
    assert_eq!(tsbridge::handle_count().unwrap(), before);
}

#[test]
fn a_method_called_by_index_is_the_one_named() {
    let _serial = serial();
    let m = module();
    let names: Vec<String> = m.methods().unwrap().into_iter().map(|s| s.name).collect();
    for (add, name) in [(1i64, "first"), (2, "second"), (3, "third")] {
        let method = m.find_method(name).unwrap();
        assert_eq!(method.name(), name);
        assert_eq!(names[method.index()], name);
        assert_eq!(method.call(&[10i64.into()]).unwrap().get::<i64>().unwrap(), 10 + add);
        assert_eq!(method.call_with(&[], &[("x", 20i64.into())]).unwrap().get::<i64>().unwrap(), 20 + add);
    }
}

#[test]
fn a_methods_errors_name_it() {
    let _serial = serial();
    let m = module();
    let missing = m.find_method("fourth").unwrap_err();
    assert_eq!(missing.code, Code::NotFound);
    let text = missing.to_string();
    assert!(text.contains("'fourth'"), "{}", text);
    for name in ["first", "second", "third", "tensors"] {
        assert!(text.contains(name), "{}", text);
    }
    let wrong = m.find_method("second").unwrap().call(&[Value::str("a").unwrap()]).unwrap_err();
    assert_eq!(wrong.code, Code::Type);
    assert!(wrong.to_string().starts_with("second(): argument 'x'"), "{}", wrong);
}
