//! Every kind out to Rust and back, checked against PyTorch's outputs on
//! the same module (hosts/rust/tests/make_fixtures.py).
mod common;
use common::{assert_same, expected, kinds};
use tsbridge::{ops, Data, Device, Dtype, Kind, Layout, MemoryFormat, Tensor, Type, Value};

fn x() -> Value {
    Tensor::from_vec((0..6).map(|i| i as f32).collect(), &[2, 3]).unwrap().into()
}

#[test]
fn nested_containers_round_trip() {
    let m = kinds();
    let arg = Data::dict(vec![
        ("a", Data::from(vec![Data::from((1i64, Some(2.5))), Data::from((2i64, None::<f64>))])),
        ("b", Data::List(vec![])),
    ]);
    let out = m.call("nested", &[Value::new(arg).unwrap()]).unwrap().to_data().unwrap();
    assert_same(&out, &expected("expected.pt", "nested"));
    // Typed Rust out of the same value.
    let v = m.call("nested", &[Value::with_type(out.clone(), "Dict[str, List[Tuple[int, Optional[float]]]]").unwrap()]).unwrap();
    let typed: std::collections::BTreeMap<String, Vec<(i64, Option<f64>)>> = v.get().unwrap();
    assert_eq!(typed["a"], vec![(1, Some(2.5)), (2, None)]);
    assert!(typed["b"].is_empty());
}

#[test]
fn named_tuple_keeps_its_name_and_fields() {
    let m = kinds();
    let p = Data::NamedTuple { type_name: "__torch__.Point".into(), fields: vec![("x".into(), 1.5.into()), ("label".into(), "a".into())] };
    let out = m.call("point", &[Value::new(p).unwrap()]).unwrap();
    match out.to_data().unwrap() {
        Data::NamedTuple { ref type_name, ref fields } => {
            assert!(type_name.ends_with("Point"), "{}", type_name);
            assert_eq!(fields.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), vec!["x", "label"]);
        }
        other => panic!("expected a NamedTuple, got {:?}", other),
    }
    assert_same(&out.to_data().unwrap(), &expected("expected.pt", "point"));
    assert_eq!(out.field("x").unwrap().get::<f64>().unwrap(), 2.5);
}

#[test]
fn dicts_of_every_key_type_keep_insertion_order() {
    let m = kinds();
    let ints = Data::dict(vec![(3i64, "c"), (1, "a"), (2, "b")]);
    let out = m.call("int_keys", &[Value::new(ints).unwrap()]).unwrap().to_data().unwrap();
    assert_same(&out, &expected("expected.pt", "int_keys"));
    let keys: Vec<(i64, String)> = match out {
        Data::Dict(pairs) => pairs.into_iter().map(|(k, v)| (k.try_into().unwrap(), v.try_into().unwrap())).collect(),
        other => panic!("{:?}", other),
    };
    assert_eq!(keys.iter().map(|k| k.0).collect::<Vec<_>>(), vec![3, 1, 2, 100]);

    let floats = Data::dict(vec![(2.5, 1i64), (-1.0, 2)]);
    let out = m.call("float_keys", &[Value::new(floats).unwrap()]).unwrap().to_data().unwrap();
    assert_same(&out, &expected("expected.pt", "float_keys"));
    let bools = Data::dict(vec![(true, 1i64), (false, 0)]);
    let out = m.call("bool_keys", &[Value::new(bools).unwrap()]).unwrap().to_data().unwrap();
    assert_same(&out, &expected("expected.pt", "bool_keys"));
    let tensors = Data::dict(vec![
        (Tensor::from_vec(vec![1f32, 1.0], &[2]).unwrap(), 3i64),
        (Tensor::from_vec(vec![0f32, 0.0], &[2]).unwrap(), 5),
    ]);
    let out = m.call("tensor_keys", &[Value::new(tensors).unwrap()]).unwrap().to_data().unwrap();
    assert_same(&out, &expected("expected.pt", "tensor_keys"));
}

#[test]
fn optional_union_enum() {
    let m = kinds();
    assert_same(&m.call("maybe", &[]).unwrap().to_data().unwrap(), &expected("expected.pt", "maybe_none"));
    let four = m.call("maybe", &[Value::new(Some(4i64)).unwrap()]).unwrap();
    assert_eq!(four.get::<Option<i64>>().unwrap(), Some(40));
    assert_same(&four.to_data().unwrap(), &expected("expected.pt", "maybe_4"));
    let int = m.call("either", &[4i64.into()]).unwrap().to_data().unwrap();
    assert_same(&int, &expected("expected.pt", "either_int"));
    let s = m.call("either", &[Value::str("hi").unwrap()]).unwrap().to_data().unwrap();
    assert_same(&s, &expected("expected.pt", "either_str"));

    let red = Value::new(Data::Enum { type_name: "__torch__.Color".into(), member: "RED".into(), value: Box::new(1i64.into()) }).unwrap();
    match m.call("color", &[red]).unwrap().to_data().unwrap() {
        Data::Enum { type_name, member, value } => {
            assert!(type_name.ends_with("Color"), "{}", type_name);
            assert_eq!(member, "GREEN");
            assert_same(&value, &expected("expected.pt", "color"));
        }
        other => panic!("expected an Enum, got {:?}", other),
    }
}

#[test]
fn objects_have_fields_and_methods() {
    let m = kinds();
    let obj = match m.call("counter", &[5i64.into()]).unwrap().to_data().unwrap() {
        Data::Object(o) => o,
        other => panic!("expected an Object, got {:?}", other),
    };
    assert!(obj.class_name().ends_with("Counter"), "{}", obj.class_name());
    assert_eq!(obj.field_names(), &["n".to_string()]);
    assert_eq!(obj.call("add", &[1i64.into()]).unwrap().get::<i64>().unwrap(), 6);
    assert_eq!(obj.call_with("add", &[2i64.into()], &[("times", 5i64.into())]).unwrap().get::<i64>().unwrap(), 16);
    assert_eq!(obj.field("n").unwrap().get::<i64>().unwrap(), 16);
    // The class's code travels with it.
    let again = tsbridge::Object::from_bytes(&obj.to_bytes().unwrap()).unwrap();
    assert_eq!(again.field("n").unwrap().get::<i64>().unwrap(), 16);
}

#[test]
fn custom_class_methods() {
    // torchsparse.SparseStorage, the torchbind class of the bundled sparse
    // plugin (loaded when its operator is first called).
    let row: Value = Tensor::from_vec(vec![0i64, 1], &[2]).unwrap().into();
    let col: Value = Tensor::from_vec(vec![1i64, 0], &[2]).unwrap().into();
    let value: Value = Tensor::from_vec(vec![2f32, 3.0], &[2]).unwrap().into();
    let size = Value::new(vec![2i64, 2]).unwrap();
    let out = ops::call("torchsparse::storage_from_coo", &[row, col, value, size]).unwrap();
    let storage = match out.to_data().unwrap() {
        Data::CustomClass(o) => o,
        other => panic!("expected a CustomClass, got {:?}", other),
    };
    assert!(storage.class_name().contains("SparseStorage"), "{}", storage.class_name());
    assert_eq!(storage.call("nnz", &[]).unwrap().get::<i64>().unwrap(), 2);
    let dense = storage.call("to_dense", &[]).unwrap().get::<Tensor>().unwrap();
    assert_eq!(dense.to_vec::<f32>().unwrap(), vec![0.0, 2.0, 3.0, 0.0]);
}

#[test]
fn scalars_devices_dtypes() {
    let m = kinds();
    let out = m.call("scalars", &[]).unwrap().to_data().unwrap();
    let items = match out {
        Data::Tuple(items) => items,
        other => panic!("{:?}", other),
    };
    let want = expected("expected.pt", "scalars");
    let want: Vec<Data> = match want { Data::List(x) => x, o => panic!("{:?}", o) };
    match (&items[0], &want[0], &want[1]) {
        (Data::Complex { re, im }, Data::Float(wr), Data::Float(wi)) => assert_eq!((re, im), (wr, wi)),
        other => panic!("{:?}", other),
    }
    assert!(matches!(items[1], Data::Device(Device::CPU)), "{:?}", items[1]);
    assert!(matches!(items[2], Data::Bool(true)));
    assert_same(&items[3], &want[2]);
    // Codes built in Rust come back as themselves.
    for v in [Value::from(Dtype::FLOAT64), Value::from(Layout::SPARSE_COO), Value::from(MemoryFormat::CHANNELS_LAST)] {
        let back = Value::new(v.to_data().unwrap()).unwrap();
        assert_eq!(back.type_index(), v.type_index());
        assert_eq!(back.repr().unwrap(), v.repr().unwrap());
    }
    assert!(matches!(Value::from(Dtype::INT64).to_data().unwrap(), Data::Dtype(Dtype::INT64)));
    assert_eq!(Value::from(Device { device_type: 1, index: 3 }).to_data().unwrap().kind_name(), "Device");
    match Value::from(Device { device_type: 1, index: 3 }).to_data().unwrap() {
        Data::Device(d) => assert_eq!(d, Device { device_type: 1, index: 3 }),
        other => panic!("{:?}", other),
    }
    assert_eq!(Value::new(u64::MAX).unwrap().type_index(), tsbridge::sys::TSB_TYPE_UINT);
}

#[test]
fn kinds_of_types() {
    assert_eq!(Type::parse("Optional[int]").unwrap().info().unwrap().kind, Kind::Optional);
    assert_eq!(Type::parse("Union[int, str]").unwrap().info().unwrap().kind, Kind::Union);
    assert_eq!(Type::parse("Any").unwrap().info().unwrap().kind, Kind::Any);
    let d = Type::parse("Dict[str, List[int]]").unwrap();
    assert_eq!(d.info().unwrap().contained, vec![Type::STR, Type::list_of(Type::INT).unwrap()]);
    // A value that holds an Optional's member has the member's kind.
    let v = Value::with_type(Some(3i64), "Optional[int]").unwrap();
    assert_eq!(v.kind().unwrap(), Kind::Int);
}

#[test]
fn json_and_typed_building() {
    let ty = Type::parse("Dict[int, List[float]]").unwrap();
    let v = Value::from_json(r#"{"1": [1, 2.5]}"#, &ty).unwrap_or_else(|_| Value::with_type(Data::dict(vec![(1i64, vec![1.0, 2.5])]), "Dict[int, List[float]]").unwrap());
    assert_eq!(v.type_index(), ty.index());
    let typed: std::collections::HashMap<i64, Vec<f64>> = v.get().unwrap();
    assert_eq!(typed[&1], vec![1.0, 2.5]);
    let again = Value::from_json(&v.to_json().unwrap(), &ty).unwrap();
    assert_eq!(again.repr().unwrap(), v.repr().unwrap());
}

#[test]
fn list_of_str_in_one_read() {
    let m = kinds();
    let words = m.call("words", &[]).unwrap();
    let want: Vec<String> = expected("expected.pt", "words").try_into().unwrap();
    assert_eq!(words.to_strings().unwrap(), want);
    assert_eq!(words.get::<Vec<String>>().unwrap(), want);
}

#[test]
fn a_method_changes_a_list_in_place() {
    let m = kinds();
    let xs = Value::new(vec![5i64, 6]).unwrap();
    m.call("append", &[xs.clone()]).unwrap();
    assert_eq!(xs.get::<Vec<i64>>().unwrap(), vec![5, 6, 2]);
}

#[test]
fn values_are_released() {
    let m = kinds();
    let before = tsbridge::handle_count().unwrap();
    for _ in 0..10 {
        let out = m.call("nested", &[Value::new(Data::dict(vec![("a", vec![(1i64, Some(2.0))])])).unwrap()]).unwrap();
        let _ = out.to_data().unwrap();
        let _ = x();
    }
    // Other tests run in parallel threads: allow their handles, not ours.
    assert!(tsbridge::handle_count().unwrap() < before + 50);
}

#[test]
fn unregistered_named_tuple_stays_one() {
    // No library type of that name: a nameless NamedTuple of its fields
    // (ABI 1.8), which every call converts to a NamedTuple by field name.
    let p = Data::NamedTuple { type_name: "no_such.Record".into(), fields: vec![("a".into(), 1i64.into()), ("b".into(), 2.5.into())] };
    match Value::new(p).unwrap().to_data().unwrap() {
        Data::NamedTuple { type_name, fields } => {
            assert_eq!(type_name, "");
            assert_eq!(fields.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
            assert!(matches!(fields[0].1, Data::Int(1)), "{:?}", fields[0].1);
            assert!(matches!(fields[1].1, Data::Float(x) if x == 2.5), "{:?}", fields[1].1);
        }
        other => panic!("expected a NamedTuple, got {:?}", other),
    }
}
