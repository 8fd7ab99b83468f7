//! Runs the example model an install of tsbridge carries
//! (PREFIX/share/tsbridge/example_model.pt; docs/install.md, "Rust"): a List
//! of Tuples, a `Dict[int, str]`, the tuple plugin's `tsbridge.tensor_pair`
//! and an `Optional[float]` in, a dict and a tensor out. Prints the result
//! and where the library and its plugins came from.
//! Usage: cargo run --offline --example example_model -- EXAMPLE_MODEL_PT
use tsbridge::{plugin, Data, Module, Tensor, Value};

fn main() -> tsbridge::Result<()> {
    let path = std::env::args().nth(1).expect("usage: example_model EXAMPLE_MODEL_PT");
    let module = Module::load(&path)?;
    let points = Value::new(vec![(1.0, 2.0)])?;
    let labels = Value::new(Data::dict(vec![(0i64, "a")]))?;
    let first = Tensor::from_vec(vec![1f32, 1.0], &[2])?;
    let second = Tensor::from_vec(vec![3f32, 3.0], &[2])?;
    let pair = Value::new((first, second))?;
    let out = module.call_with("forward", &[points, labels, pair], &[("scale", 2.0.into())])?;
    if let Data::Tuple(items) = out.to_data()? {
        println!("scaled: {:?}", items[0]);
        if let Data::Tensor(t) = &items[1] {
            println!("combined: {:?}", t.to_vec::<f32>()?);
        }
    }
    println!("bundled plugins: {}", plugin::bundled_dir()?);
    for p in plugin::loaded()? {
        println!("plugin {}: {}", p.name, p.path);
    }
    Ok(())
}
