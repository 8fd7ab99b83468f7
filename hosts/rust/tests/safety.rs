//! The invariants the crate's `unsafe` blocks rely on (their `// SAFETY:`
//! comments, docs/rust.md "Unsafe code"), each shown from safe code: a
//! handle is released once, what is read from a value outlives it or is
//! copied, a view keeps its tensor, counts and lengths the ABI trusts are
//! checked, and what is `Send`/`Sync` crosses threads. Each test ends with
//! the live handle count back at its idle value.
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tsbridge::autograd::backward;
use tsbridge::{ops, sys, Code, Data, FromData, Module, Tensor, TraceOptions, Value};

// The handle count is the process's and cargo runs tests on parallel
// threads: each test holds this while it makes values.
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `f`, then checks that every handle it made is gone.
fn idle_after(f: impl FnOnce()) {
    let _serial: MutexGuard<()> = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    tsbridge::init();
    let before = tsbridge::handle_count().unwrap();
    f();
    assert_eq!(tsbridge::handle_count().unwrap(), before, "a handle was left alive");
}

fn tensor(data: Vec<f32>) -> Tensor {
    let n = data.len() as i64;
    Tensor::from_vec(data, &[n]).unwrap()
}

#[test]
fn a_value_is_released_once_however_it_is_moved() {
    idle_after(|| {
        let before = tsbridge::handle_count().unwrap();
        let v = Value::str("held").unwrap();
        let copies: Vec<Value> = (0..3).map(|_| v.clone()).collect();
        assert_eq!(tsbridge::handle_count().unwrap(), before + 1); // one handle, four references
        drop(copies);
        // into_raw gives the reference up; from_raw takes it back: one release.
        let back = unsafe_round_trip(v);
        assert_eq!(back.get::<String>().unwrap(), "held");
    });
}

fn unsafe_round_trip(v: Value) -> Value {
    let raw = v.into_raw();
    // SAFETY: `raw` is the reference into_raw gave up, owned by nothing else.
    unsafe { Value::from_raw(raw) }
}

#[test]
fn strs_read_from_a_value_are_copies_that_outlive_it() {
    idle_after(|| {
        let list = Value::new(vec!["a", "bb", ""]).unwrap();
        let dict = Value::new(Data::dict(vec![("k", "v")])).unwrap();
        let walked = list.to_data().unwrap();
        let bulk = list.to_strings().unwrap();
        let pairs = dict.to_data().unwrap();
        drop((list, dict)); // the borrowed strs' parents are gone
        // Churn: the freed memory is reused before the strs are read.
        let _other = Value::new(vec!["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; 64]).unwrap();
        assert_eq!(Vec::<String>::from_data(walked).unwrap(), vec!["a", "bb", ""]);
        assert_eq!(bulk, vec!["a", "bb", ""]);
        let pairs = BTreeMap::<String, String>::from_data(pairs).unwrap();
        assert_eq!(pairs.into_iter().collect::<Vec<_>>(), vec![("k".to_string(), "v".to_string())]);
    });
}

#[test]
fn a_view_keeps_its_tensor_alive_and_a_tensor_keeps_its_vec() {
    idle_after(|| {
        let t = tensor(vec![1.0, 2.0, 3.0]);
        let view = t.view::<f32>().unwrap();
        drop(t); // the view's export holds the storage
        let _churn: Vec<Tensor> = (0..8).map(|i| tensor(vec![i as f32; 3])).collect();
        assert_eq!(view.as_slice().unwrap(), &[1.0, 2.0, 3.0]);
        assert_eq!(view.to_vec(), vec![1.0, 2.0, 3.0]);
    });
}

#[test]
fn an_empty_tensor_reads_as_an_empty_slice() {
    idle_after(|| {
        // LibTorch gives an empty tensor no storage: its data pointer may be
        // NULL, which no slice may hold, even an empty one.
        let zeros = ops::call("aten::zeros", &[Value::new(vec![0i64]).unwrap()]).unwrap();
        let zeros = zeros.get::<Tensor>().unwrap();
        assert_eq!(zeros.to_vec::<f32>().unwrap(), Vec::<f32>::new());
        assert_eq!(zeros.view::<f32>().unwrap().as_slice().unwrap(), &[] as &[f32]);
        let lent = Tensor::from_vec(Vec::<f32>::new(), &[0, 3]).unwrap();
        assert_eq!(lent.to_vec::<f32>().unwrap(), Vec::<f32>::new());
    });
}

#[test]
fn only_a_bool_tensor_is_read_as_bool() {
    idle_after(|| {
        // A byte other than 0 or 1 is no bool: a uint8 tensor is refused.
        let bytes = Tensor::from_vec(vec![0u8, 2, 255], &[3]).unwrap();
        let e = bytes.to_vec::<bool>().unwrap_err();
        assert_eq!(e.code, Code::Type);
        assert_eq!(e.to_string(), "expected a bool tensor, got uint8");
        assert_eq!(bytes.to_vec::<u8>().unwrap(), vec![0, 2, 255]);
        let bools = Tensor::from_vec(vec![true, false], &[2]).unwrap();
        assert_eq!(bools.to_vec::<bool>().unwrap(), vec![true, false]);
        let ne = ops::call("aten::ne", &[bytes.into(), 0i64.into()]).unwrap().get::<Tensor>().unwrap();
        assert_eq!(ne.to_vec::<bool>().unwrap(), vec![false, true, true]);
    });
}

#[test]
fn backward_refuses_fewer_gradients_than_outputs() {
    idle_after(|| {
        let x = tensor(vec![1.0, 2.0]);
        x.set_requires_grad(true).unwrap();
        let sum = |t: &Tensor| ops::call("aten::sum", &[t.clone().into()]).unwrap().get::<Tensor>().unwrap();
        let outputs = [sum(&x), sum(&x)];
        // The ABI reads one gradient per output: one short would be read past
        // the slice, so the crate refuses it first.
        let one = [Value::from(tensor(vec![1.0]))];
        let e = backward(&outputs, Some(&one), false).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert_eq!(e.to_string(), "grad_outputs: expected 2 gradients (one per output), got 1");
        backward(&outputs, None, false).unwrap();
        assert_eq!(x.grad().unwrap().unwrap().to_vec::<f32>().unwrap(), vec![2.0, 2.0]);
    });
}

#[test]
fn value_has_tsb_anys_layout_so_a_slice_of_values_is_an_array_of_them() {
    assert_eq!(std::mem::size_of::<Value>(), std::mem::size_of::<sys::tsb_any>());
    assert_eq!(std::mem::align_of::<Value>(), std::mem::align_of::<sys::tsb_any>());
    assert_eq!(std::mem::size_of::<Tensor>(), std::mem::size_of::<sys::tsb_any>());
}

#[test]
fn a_module_is_called_from_many_threads_and_values_move_between_them() {
    idle_after(|| {
        let m = Arc::new(Module::compile("def twice(self, x: List[Tensor]) -> List[Tensor]:\n    return x + x\n").unwrap());
        let x = Value::new(vec![Data::Tensor(tensor(vec![1.0, 2.0]))]).unwrap();
        let results: Vec<Value> = (0..4)
            .map(|_| {
                let (m, x) = (Arc::clone(&m), x.clone()); // Module: Sync; Value: Send
                std::thread::spawn(move || m.call("twice", &[x]).unwrap())
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        // Values made on other threads, read and dropped on this one.
        for r in &results {
            assert_eq!(r.len().unwrap(), 2);
        }
        let dropper = std::thread::spawn(move || drop((results, x)));
        dropper.join().unwrap();
        // The module itself is freed on another thread.
        std::thread::spawn(move || drop(m)).join().unwrap();
    });
}

#[test]
fn a_traced_closure_borrows_its_inputs_and_keeps_what_it_clones() {
    idle_after(|| {
        let mut kept: Vec<Value> = Vec::new();
        let traced = Module::trace(
            |inputs: &[Value]| {
                kept.extend(inputs.iter().cloned());
                ops::call("aten::mul", &[inputs[0].clone(), 2.0f64.into()])
            },
            &[tensor(vec![1.0, 2.0]).into()],
            &TraceOptions::default(),
        )
        .unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].get::<Tensor>().unwrap().to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
        let y = traced.forward(&[tensor(vec![3.0]).into()]).unwrap();
        assert_eq!(y.get::<Tensor>().unwrap().to_vec::<f32>().unwrap(), vec![6.0]);
    });
}

// Whether a type is Send or Sync, asked at compile time (an inherent
// associated const applies only where its bound holds; the trait's
// default answers otherwise).
struct Probe<T>(std::marker::PhantomData<T>);
trait Fallback {
    const SEND: bool = false;
    const SYNC: bool = false;
}
impl<T> Fallback for Probe<T> {}
struct SendProbe<T>(std::marker::PhantomData<T>);
impl<T> Fallback for SendProbe<T> {}
impl<T: Send> SendProbe<T> {
    const SEND: bool = true;
}
impl<T: Sync> Probe<T> {
    const SYNC: bool = true;
}

#[test]
fn send_and_sync_are_what_the_abi_promises() {
    use tsbridge::{Method, NoGrad, Object, TensorView};
    // The header: a value may move to another thread; one changed in place
    // must not be read beside it, so a &Value is not shared.
    assert!(SendProbe::<Value>::SEND && !Probe::<Value>::SYNC);
    assert!(SendProbe::<Tensor>::SEND && !Probe::<Tensor>::SYNC);
    assert!(SendProbe::<Data>::SEND && !Probe::<Data>::SYNC);
    assert!(SendProbe::<Object>::SEND && !Probe::<Object>::SYNC);
    // tsb_module: called from many threads at once, freed on any.
    assert!(SendProbe::<Module>::SEND && Probe::<Module>::SYNC);
    assert!(SendProbe::<Method<'static>>::SEND && Probe::<Method<'static>>::SYNC);
    // Grad mode is per thread; a view owns a DLPack export through a raw pointer.
    assert!(!SendProbe::<NoGrad>::SEND && !Probe::<NoGrad>::SYNC);
    assert!(!SendProbe::<TensorView<f32>>::SEND && !Probe::<TensorView<f32>>::SYNC);
}
