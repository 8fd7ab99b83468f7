//! Tracing a Rust closure into a module (`tsb_module_trace_with`).
use crate::error::{Code, Error, Result};
use crate::module::{fill_module, Module};
use crate::sys;
use crate::value::{cstring, Value};
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How `trace` records.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The method the trace becomes ("forward" by default).
    pub method_name: String,
    /// Outputs must be tensors, or tuples and lists of them (PyTorch's
    /// strict=True); false also records dicts.
    pub strict: bool,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions { method_name: "forward".to_string(), strict: true }
    }
}

type TraceClosure<'a> = dyn FnMut(&[Value]) -> Result<Value> + 'a;

unsafe extern "C" fn run_closure(
    user_data: *mut c_void,
    inputs: *const sys::tsb_any,
    n: usize,
    output: *mut sys::tsb_any,
) -> *mut sys::tsb_status {
    // SAFETY: user_data is the `&mut &mut TraceClosure` Module::trace
    // passed, alive for the whole trace call, which is the only time the
    // tracer runs this callback (once, on the calling thread).
    let f = unsafe { &mut *(user_data as *mut &mut TraceClosure) };
    // SAFETY: the tracer's n inputs, borrowed for the callback, seen as
    // &[Value] (repr(transparent) over tsb_any); a slice gives no Drop, so
    // nothing here releases them.
    let inputs: &[Value] = if n == 0 { &[] } else { unsafe { std::slice::from_raw_parts(inputs as *const Value, n) } };
    match catch_unwind(AssertUnwindSafe(|| f(inputs))) {
        Ok(Ok(v)) => {
            // SAFETY: `output` is the tracer's slot; it takes the reference
            // into_raw gives up.
            unsafe { *output = v.into_raw() };
            std::ptr::null_mut()
        }
        Ok(Err(e)) => e.into_status(),
        // A panic must not unwind through C: it becomes the trace's error.
        Err(_) => Error::new(Code::Internal, "", "the traced closure panicked").into_status(),
    }
}

impl Module {
    /// Runs `f` once on `example_inputs` while the tracer records the
    /// operators it calls (`ops::call`); the result is a module whose
    /// method `options.method_name` replays them.
    pub fn trace<F>(f: F, example_inputs: &[Value], options: &TraceOptions) -> Result<Module>
    where
        F: FnMut(&[Value]) -> Result<Value>,
    {
        crate::init();
        let mut f = f;
        let mut closure: &mut TraceClosure = &mut f;
        let name = cstring(&options.method_name);
        let raw_options = sys::tsb_trace_options {
            struct_size: std::mem::size_of::<sys::tsb_trace_options>(),
            strict: options.strict,
            method_name: name.as_ptr(),
        };
        // SAFETY: `closure` outlives the call that runs it (the callback runs
        // only inside it); inputs are a live tsb_any array; `raw_options` and `name` are locals.
        fill_module(|o| unsafe {
            sys::tsb_module_trace_with(
                Some(run_closure),
                &mut closure as *mut &mut TraceClosure as *mut c_void,
                example_inputs.as_ptr() as *const sys::tsb_any,
                example_inputs.len(),
                &raw_options,
                o,
            )
        })
    }
}
