//! docs/rust.md's example, compiled by `cargo test` (examples are built).
//! Usage: cargo run --offline --example quickstart -- KINDS_PT
use tsbridge::{ops, Data, Module, NoGrad, Tensor, Value};

fn main() -> tsbridge::Result<()> {
    let path = std::env::args().nth(1).expect("usage: quickstart MODULE.pt");
    let module = Module::load(&path)?;

    // Zero copy in: the Vec is lent to LibTorch and dropped when it is done.
    let x = Tensor::from_vec(vec![0f32, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])?;
    let y = module.call_with("forward", &[x.into()], &[("n", 3i64.into())])?;
    println!("forward: {:?}", y.get::<Tensor>()?.to_vec::<f32>()?);

    // Any value in from Rust data, out as Data to match on.
    let arg = Data::dict(vec![("a", vec![Data::from((1i64, Some(2.5)))])]);
    match module.call("nested", &[Value::new(arg)?])?.to_data()? {
        Data::Dict(pairs) => println!("{} key(s), first {:?}", pairs.len(), pairs[0].0),
        other => println!("unexpected {:?}", other),
    }

    // Operators by name, the overload chosen as TorchScript chooses.
    let _guard = NoGrad::new()?;
    let three = ops::call("aten::add", &[1i64.into(), 2i64.into()])?.get::<i64>()?;
    println!("aten::add(1, 2) = {}", three);

    // Errors carry a code and the path into the value.
    if let Err(e) = module.call("ints", &[Value::new(vec![Data::Int(1), Data::from("a")])?]) {
        println!("{:?}: {}", e.code, e);
    }
    Ok(())
}
