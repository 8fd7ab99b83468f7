//! The clean-room test, Rust: the installed crate calls the module.
use tsbridge::{Data, Module, Tensor};

fn main() -> tsbridge::Result<()> {
    let path = std::env::args().nth(1).expect("usage: tsbridge-clean-room MODULE.pt");
    let module = Module::load(&path)?;
    let a = Tensor::from_vec(vec![1f32; 6], &[2, 3])?;
    let x = Data::dict(vec![("a", Data::Tensor(a))]);
    let out = module.call_with("forward", &[tsbridge::Value::new(x)?], &[("scale", 0.5f64.into())])?;
    match out.to_data()? {
        Data::Tuple(items) => match &items[0] {
            Data::Float(total) if *total == 3.0 => println!("rust: ok"),
            other => panic!("total: {:?}", other),
        },
        other => panic!("result: {:?}", other),
    }
    Ok(())
}
