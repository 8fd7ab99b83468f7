//! Tensors: DLPack zero copy both ways, metadata, autograd, operators by
//! name with overloads, plugins and operator libraries.
mod common;
use common::{env_path, fixture};
use tsbridge::{autograd, ops, plugin, Data, Dtype, Layout, Module, NoGrad, Tensor, Value};

#[test]
fn zero_copy_in_and_out() {
    let data: Vec<f32> = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let address = data.as_ptr();
    let t = Tensor::from_vec(data, &[2, 3]).unwrap();
    let view = t.view::<f32>().unwrap();
    // The same memory: the Vec was lent, not copied, and comes back out.
    assert_eq!(view.as_ptr(), address);
    assert_eq!(view.as_slice().unwrap(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    drop(view);
    // A change by an in-place operator is seen through the Rust view.
    ops::call("aten::mul_", &[t.value().clone(), 2.0.into()]).unwrap();
    assert_eq!(t.view::<f32>().unwrap().as_slice().unwrap()[5], 12.0);
    // A transposed view out is not compact: to_vec follows the strides.
    let tt = ops::call("aten::t", &[t.value().clone()]).unwrap().get::<Tensor>().unwrap();
    assert!(tt.view::<f32>().unwrap().as_slice().is_none());
    assert_eq!(tt.to_vec::<f32>().unwrap(), vec![2.0, 8.0, 4.0, 10.0, 6.0, 12.0]);
    let e = t.to_vec::<i64>().unwrap_err();
    assert_eq!(e.to_string(), "expected a int64 tensor, got float32");
    let bools = Tensor::from_vec(vec![true, false], &[2]).unwrap();
    assert_eq!(bools.to_vec::<bool>().unwrap(), vec![true, false]);
    assert!(Tensor::from_vec(vec![1i64, 2, 3], &[2, 2]).is_err());
}

#[test]
fn info_without_an_export() {
    let t = Tensor::from_vec(vec![0f64; 6], &[3, 2]).unwrap();
    let info = t.info().unwrap();
    assert_eq!((info.dtype, info.layout, info.shape.clone()), (Dtype::FLOAT64, Layout::STRIDED, vec![3, 2]));
    assert_eq!(info.strides, Some(vec![2, 1]));
    assert_eq!(info.numel, 6);
    assert!(info.is_contiguous && !info.requires_grad);
}

#[test]
fn operators_choose_their_overload() {
    let a: Value = Tensor::from_vec(vec![1f32, 2.0], &[2]).unwrap().into();
    let b: Value = Tensor::from_vec(vec![10f32, 20.0], &[2]).unwrap().into();
    let sum = ops::call("aten::add", &[a.clone(), b]).unwrap().get::<Tensor>().unwrap();
    assert_eq!(sum.to_vec::<f32>().unwrap(), vec![11.0, 22.0]);
    let scaled = ops::call_with("aten::add", &[a.clone(), 1i64.into()], &[("alpha", 3i64.into())]).unwrap();
    assert_eq!(scaled.get::<Tensor>().unwrap().to_vec::<f32>().unwrap(), vec![4.0, 5.0]);
    // Scalars: aten::add(int, int) -> int.
    assert_eq!(ops::call("aten::add", &[2i64.into(), 3i64.into()]).unwrap().get::<i64>().unwrap(), 5);
    assert_eq!(ops::call("aten::add", &[Value::str("a").unwrap(), Value::str("b").unwrap()]).unwrap().get::<String>().unwrap(), "ab");
    let overloads = ops::overloads("aten::add").unwrap();
    assert!(overloads.iter().any(|s| s.overload_name == "Tensor"), "{:?}", overloads.iter().map(|s| &s.overload_name).collect::<Vec<_>>());
    assert!(ops::names(Some("aten")).unwrap().contains(&"aten::add".to_string()));
    // Several named returns: a NamedTuple torch.return_types.max.
    let max = ops::call("aten::max", &[a, 0i64.into()]).unwrap();
    match max.to_data().unwrap() {
        Data::NamedTuple { type_name, fields } => {
            assert_eq!(type_name, "torch.return_types.max");
            assert_eq!(fields[0].0, "values");
        }
        other => panic!("{:?}", other),
    }
}

#[test]
fn plugins_and_operator_libraries() {
    // A plugin function of the bundled sparse plugin.
    let schema = ops::function_schema("torchsparse::relabel").unwrap();
    assert_eq!(schema.name, "torchsparse::relabel");
    assert!(plugin::loaded().unwrap().iter().any(|p| p.name == "sparse"));
    assert!(!plugin::bundled_dir().unwrap().is_empty());
    // A plugin by path: it names the type tsbtest.Box.
    let id = plugin::load(env_path("TSB_EXPORT_BOX_PLUGIN").to_str().unwrap()).unwrap();
    let info = plugin::loaded().unwrap().into_iter().find(|p| p.id == id).unwrap();
    assert!(info.types.contains(&"tsbtest.Box".to_string()), "{:?}", info.types);
    // An operator library (TORCH_LIBRARY): tsbfixture::twice.
    let lib = plugin::load_library(env_path("TSB_OPLIB_FIXTURE").to_str().unwrap()).unwrap();
    assert!(plugin::libraries().unwrap()[lib as usize].operators.iter().any(|o| o.contains("twice")));
    let t: Value = Tensor::from_vec(vec![1f32, 2.0], &[2]).unwrap().into();
    let twice = ops::call("tsbfixture::twice", &[t]).unwrap().get::<Tensor>().unwrap();
    assert_eq!(twice.to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
}

#[test]
fn autograd_matches_pytorch() {
    let m = Module::load(fixture("mlp.pt")).unwrap();
    let x: Value = Tensor::from_vec(vec![1f32, 2.0, 3.0], &[1, 3]).unwrap().into();
    let y = m.forward(&[x]).unwrap();
    let loss = ops::call("aten::sum", &[y]).unwrap().get::<Tensor>().unwrap();
    assert!(loss.requires_grad().unwrap());
    loss.backward().unwrap();
    let bytes = std::fs::read(fixture("grads.pt")).unwrap();
    let want: Vec<(String, Tensor)> = match Value::from_pickle(&bytes).unwrap().to_data().unwrap() {
        Data::Dict(p) => p.into_iter().map(|(k, v)| (k.try_into().unwrap(), v.try_into().unwrap())).collect(),
        other => panic!("{:?}", other),
    };
    for ((name, param), (want_name, want_grad)) in m.parameters().unwrap().iter().zip(&want) {
        assert_eq!(name, want_name);
        let grad = param.grad().unwrap().expect("a gradient");
        let close = ops::call("aten::allclose", &[grad.value().clone(), want_grad.value().clone()]).unwrap();
        assert!(close.get::<bool>().unwrap(), "{}: {:?} vs {:?}", name, grad.to_vec::<f32>(), want_grad.to_vec::<f32>());
        param.zero_grad().unwrap();
        assert!(param.grad().unwrap().unwrap().to_vec::<f32>().unwrap().iter().all(|g| *g == 0.0));
    }
    let leaf = Tensor::from_vec(vec![2f32], &[1]).unwrap();
    leaf.set_requires_grad(true).unwrap();
    {
        let _guard = NoGrad::new().unwrap();
        assert!(!autograd::is_grad_enabled().unwrap());
        let y = ops::call("aten::mul", &[leaf.value().clone(), 3.0.into()]).unwrap().get::<Tensor>().unwrap();
        assert!(!y.requires_grad().unwrap());
    }
    assert!(autograd::is_grad_enabled().unwrap());
    let y = ops::call("aten::mul", &[leaf.value().clone(), leaf.value().clone()]).unwrap().get::<Tensor>().unwrap();
    autograd::backward(&[y.clone()], None, false).unwrap();
    assert_eq!(leaf.grad().unwrap().unwrap().to_vec::<f32>().unwrap(), vec![4.0]);
    assert!(!y.detach().unwrap().requires_grad().unwrap());
}
