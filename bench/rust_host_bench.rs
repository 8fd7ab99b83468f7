//! The Rust host against the raw C ABI (its own `sys` declarations) in one
//! process, on one module (hosts/rust/tests/make_fixtures.py's kinds.pt):
//!   noop        a no-op method call: Module::call ÷ tsb_module_call (by
//!               name), and Method::call ÷ tsb_module_call_method (by index)
//!   dict100     a Dict[str, Tensor] of 100 out to Rust: Value::to_data (the
//!               Data enum) ÷ the C walk (tsb_any_flatten, then releasing),
//!               and ÷ the walk that makes no reference
//!               (tsb_any_flatten_borrowed, ABI 1.9)
//! Each figure is a ratio of paired runs (the two sides alternate, REPS
//! pairs of N iterations); printed as the median with the 25th–75th
//! percentile of the per-pair ratios, as bench/ratios.py prints spreads.
//!
//! Usage: TSBRIDGE_LIB_DIR=build/lib cargo run --release --offline \
//!          --manifest-path hosts/rust/Cargo.toml --example rust_host_bench -- KINDS_PT
use std::ffi::CString;
use std::time::Instant;
use tsbridge::{sys, Module, Value};

const REPS: usize = 31;

fn time(n: usize, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() * 1e9 / n as f64
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Median ratio and its p25–p75 over REPS pairs, plus each side's median ns.
fn paired(name: &str, n: usize, mut rust: impl FnMut(), mut c: impl FnMut()) {
    time(n, &mut rust); // warm-up
    time(n, &mut c);
    let (mut ratios, mut rs, mut cs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..REPS {
        let r = time(n, &mut rust);
        let k = time(n, &mut c);
        ratios.push(r / k);
        rs.push(r);
        cs.push(k);
    }
    for v in [&mut ratios, &mut rs, &mut cs] {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    }
    println!(
        "| {} | {:.3} | {:.3}–{:.3} | {:.0} ns | {:.0} ns |",
        name,
        percentile(&ratios, 0.5),
        percentile(&ratios, 0.25),
        percentile(&ratios, 0.75),
        percentile(&rs, 0.5),
        percentile(&cs, 0.5)
    );
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: rust_host_bench KINDS_PT");
    let module = Module::load(&path).unwrap();
    println!("| row | Rust ÷ C (median) | p25–p75 | Rust | C |");
    println!("|---|---|---|---|---|");

    let noop = CString::new("noop").unwrap();
    paired(
        "no-op method call",
        20000,
        || drop(module.call("noop", &[]).unwrap()),
        // SAFETY: the module outlives the closure; `noop` is a CString alive
        // throughout; `out` is a local, released once after each call.
        || unsafe {
            let mut out = sys::tsb_any::invalid();
            let s = sys::tsb_module_call(module.as_raw(), noop.as_ptr(), std::ptr::null(), &mut out);
            assert!(s.is_null());
            sys::tsb_any_release(&mut out);
        },
    );

    let method = module.find_method("noop").unwrap();
    paired(
        "no-op method call by index",
        20000,
        || drop(method.call(&[]).unwrap()),
        // SAFETY: the module (which `method` borrows) outlives the closure;
        // `out` is a local, released once after each call.
        || unsafe {
            let mut out = sys::tsb_any::invalid();
            let s = sys::tsb_module_call_method(module.as_raw(), method.index(), std::ptr::null(), &mut out);
            assert!(s.is_null());
            sys::tsb_any_release(&mut out);
        },
    );

    let dict = module.call("tensors", &[Value::from(100i64)]).unwrap();
    let mut entries: Vec<sys::tsb_any> = Vec::with_capacity(256);
    type Flatten = unsafe extern "C" fn(*const sys::tsb_any, *mut sys::tsb_any, usize, *mut usize) -> *mut sys::tsb_status;
    // SAFETY: `entries` has capacity() slots and `dict` is alive; n entries
    // are written (checked) and each released once before the next walk.
    let mut walk = |flatten: Flatten| unsafe {
        let mut n = 0usize;
        let s = flatten(dict.as_raw(), entries.as_mut_ptr(), entries.capacity(), &mut n);
        assert!(s.is_null() && n <= entries.capacity());
        entries.set_len(n);
        for e in entries.iter_mut() {
            sys::tsb_any_release(e);
        }
        entries.set_len(0);
    };
    paired("Dict[str, Tensor] of 100 out ÷ flatten", 2000, || drop(dict.to_data().unwrap()), || {
        walk(sys::tsb_any_flatten)
    });
    paired("Dict[str, Tensor] of 100 out ÷ flatten_borrowed", 2000, || drop(dict.to_data().unwrap()), || {
        walk(sys::tsb_any_flatten_borrowed)
    });
}
