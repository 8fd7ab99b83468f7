//! The ABI 1.7 answers, each seen from Rust: flatten's contract, one
//! depth limit with a short path, dict keys refused by path, sparse
//! tensors refused by DLPack naming the layout, per-module type lookup.
mod common;
use common::kinds;
use tsbridge::{ops, sys, Code, Data, Tensor, Type, Value};

#[test]
fn flatten_with_too_small_a_capacity_keeps_the_callers_buffer() {
    let v = Value::new(vec![vec![1i64, 2], vec![3]]).unwrap();
    let marker = sys::tsb_any::inline(sys::TSB_TYPE_INT, 77);
    let mut out = [marker; 2];
    let mut n = 0usize;
    // SAFETY: `out` has out.len() slots; v is live for the call.
    let status = unsafe { sys::tsb_any_flatten(v.as_raw(), out.as_mut_ptr(), out.len(), &mut n) };
    assert!(status.is_null());
    assert_eq!(n, 6); // the outer list, two lists, three ints
    for e in &out {
        // SAFETY: each entry is still the inline int marker (the flatten wrote nothing).
        assert_eq!((e.type_index, unsafe { e.u.i }), (sys::TSB_TYPE_INT, 77));
    }
}

fn nested_list(depth: usize) -> Data {
    let mut d = Data::Int(1);
    for _ in 0..depth {
        d = Data::List(vec![d]);
    }
    d
}

#[test]
fn a_list_deeper_than_the_limit_is_refused_when_built() {
    // The builder recurses once per level: a test thread's 2 MB stack is
    // too small for 600 levels of a debug build.
    std::thread::Builder::new().stack_size(64 << 20).spawn(deep_list_refused).unwrap().join().unwrap();
}

fn deep_list_refused() {
    assert!(Value::new(nested_list(sys::TSB_MAX_DEPTH)).is_ok());
    let e = Value::new(nested_list(600)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{}", e);
    assert!(e.detail.contains("512"), "{}", e.detail);
    // The path stays a line long: first segments, a count, last segments.
    assert!(e.path.split(" → ").count() <= 16, "{}", e.path);
    assert!(e.to_string().len() < 300, "{}", e);
}

#[test]
fn dict_keys_of_no_or_mixed_type_are_type_errors_with_a_path() {
    let e = Value::new(Data::Dict(vec![(Data::None, Data::Int(1))])).unwrap_err();
    assert_eq!(e.code, Code::Type, "{}", e);
    assert!(e.path.contains("keys[0]"), "{}", e);
    let e = Value::new(Data::Dict(vec![(Data::from("a"), Data::Int(1)), (Data::Int(3), Data::Int(2))])).unwrap_err();
    assert_eq!(e.code, Code::Type, "{}", e);
    assert!(e.path.contains("keys[1]"), "{}", e);
    assert!(e.detail.contains("str") && e.detail.contains("int"), "{}", e);
}

#[test]
fn a_sparse_tensor_is_described_but_not_exported() {
    let dense: Value = Tensor::from_vec(vec![0f32, 1.0, 0.0, 2.0], &[2, 2]).unwrap().into();
    let sparse = ops::call("aten::to_sparse", &[dense]).unwrap().get::<Tensor>().unwrap();
    let info = sparse.info().unwrap();
    assert_eq!(info.layout, tsbridge::Layout::SPARSE_COO);
    assert_eq!(info.shape, vec![2, 2]);
    assert_eq!(info.strides, None);
    let e = sparse.to_vec::<f32>().unwrap_err();
    assert_eq!(e.code, Code::Unsupported, "{}", e);
    assert!(e.to_string().to_lowercase().contains("sparse"), "{}", e);
}

#[test]
fn types_a_module_declares_are_found_through_the_module() {
    let m = kinds();
    let e = Type::parse("__torch__.Point").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{}", e);
    assert!(e.to_string().contains("tsb_module_parse_type"), "{}", e);
    let point = m.parse_type("__torch__.Point").unwrap();
    assert_eq!(point.info().unwrap().field_names, vec!["x".to_string(), "label".to_string()]);
    // Built typed from a plain tuple, then passed.
    let p = Value::new((1.5, "a")).unwrap().coerce(&point).unwrap();
    assert_eq!(p.type_index(), point.index());
    let out = m.call("point", &[p]).unwrap();
    assert_eq!(out.field("x").unwrap().get::<f64>().unwrap(), 2.5);
    let colors = m.parse_type("List[__torch__.Color]").unwrap();
    assert_eq!(Value::with_type(vec!["RED"], "List[str]").unwrap().coerce(&colors).unwrap().type_index(), colors.index());
}

#[test]
fn binding_errors_carry_code_and_path() {
    let m = kinds();
    let e = m.call("ints", &[Value::new(vec![Data::Int(1), Data::from("a")]).unwrap()]).unwrap_err();
    assert_eq!(e.code, Code::Type);
    assert_eq!(e.to_string(), "ints(): argument 'xs' → [1]: expected int, got str \"a\"");
    assert_eq!(e.path, "ints(): argument 'xs' → [1]");
    let e = m.call_with("forward", &[], &[("nope", 1i64.into())]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{}", e);
    let e = m.call("no_such_method", &[]).unwrap_err();
    assert_eq!(e.code, Code::NotFound, "{}", e);
}

#[test]
fn tensor_info_and_list_of_str_reads() {
    let t = Tensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
    assert_eq!(t.info().unwrap().dtype, tsbridge::Dtype::INT32);
    let words = Value::new(vec!["x", "", "yz"]).unwrap();
    assert_eq!(words.to_strings().unwrap(), vec!["x", "", "yz"]);
}
