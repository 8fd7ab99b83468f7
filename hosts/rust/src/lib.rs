//! TorchScript and `.pt2` values for Rust, over tsbridge's C ABI
//! (`tsbridge.h`) alone: no C++, no LibTorch headers, no other crate.
//!
//! - [`Value`]: one owned value (Drop releases, Clone retains); `Send`,
//!   not `Sync`.
//! - [`Data`]: a value as Rust data, one variant per kind, to match on;
//!   `From`/`TryFrom` for Rust values.
//! - [`Module`]: load, call, trace, state; `Send + Sync`.
//! - [`ops`], [`plugin`], [`Tensor`] (DLPack zero copy), autograd.
//!
//! docs/rust.md is the guide.
//!
//! What the types rule out, checked by the compiler (these examples must
//! not compile; tests/safety.rs runs their invariants):
//!
//! A `Method` borrows its module, so it cannot be called after the module
//! is dropped:
//! ```compile_fail
//! let module = tsbridge::Module::compile("def f(self) -> int:\n    return 1\n").unwrap();
//! let method = module.find_method("f").unwrap();
//! drop(module);
//! method.call(&[]).unwrap();
//! ```
//! A slice of a tensor's memory borrows the view that keeps the memory:
//! ```compile_fail
//! let t = tsbridge::Tensor::from_vec(vec![1f32], &[1]).unwrap();
//! let view = t.view::<f32>().unwrap();
//! let slice = view.as_slice().unwrap();
//! drop(view);
//! assert_eq!(slice[0], 1.0);
//! ```
//! A `Value` is `Send`, not `Sync` (tsbridge.h, "Threads"):
//! ```compile_fail
//! let v = tsbridge::Value::none();
//! std::thread::scope(|s| {
//!     s.spawn(|| drop(&v));
//! });
//! ```
// Every unsafe operation sits in an `unsafe` block with its `// SAFETY:`
// comment, unsafe fn bodies included (tests/check_safety.py, docs/rust.md).
#![deny(unsafe_op_in_unsafe_fn)]
pub mod autograd;
mod builder;
mod call;
mod data;
mod error;
mod kind;
mod method;
pub mod module;
mod object;
pub mod ops;
pub mod plugin;
mod scalars;
pub mod sys;
mod tensor;
mod trace;
mod types;
mod value;
mod walk;

pub use autograd::NoGrad;
pub use call::{Argument, Kwargs, Schema};
pub use data::{Data, FromData};
pub use error::{Code, Error, Result};
pub use kind::Kind;
pub use method::Method;
pub use module::Module;
pub use object::Object;
pub use scalars::{Device, Dtype, Layout, MemoryFormat};
pub use tensor::{Element, Tensor, TensorInfo, TensorView};
pub use trace::TraceOptions;
pub use types::{Type, TypeInfo};
pub use value::{handle_count, Value};

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Mutex;

static INIT_OK: AtomicBool = AtomicBool::new(false);

// None: not yet run; Some(result) after.
static INIT: Mutex<Option<Option<Error>>> = Mutex::new(None);

/// Checks the library's major version and offers the bundled plugins
/// (Tuple, Optional, Union, ...: each loaded when first needed). Runs once;
/// every constructor here calls it, so a program need not. Returns the
/// error of that one run, if any.
pub fn init() -> Option<Error> {
    if INIT_OK.load(Ordering::Acquire) {
        return None; // every call after a good first one: one load
    }
    let mut state = INIT.lock().unwrap_or_else(|e| e.into_inner());
    if state.is_none() {
        // SAFETY: no arguments.
        let version = unsafe { sys::tsb_version() };
        *state = Some(if version / 10000 != sys::TSB_VERSION_MAJOR {
            Some(Error::new(
                Code::Unsupported,
                "",
                &format!("expected libtsbridge {}.x, got {}", sys::TSB_VERSION_MAJOR, version_string()),
            ))
        } else {
            plugin::defer_bundled().err()
        });
    }
    let result = state.clone().unwrap();
    INIT_OK.store(result.is_none(), Ordering::Release);
    result
}

/// "MAJOR.MINOR.PATCH" of the loaded library.
/// tsb_version() of the first of ABI 1.9's additions.
pub(crate) const ABI_1_9: i32 = 10900;

/// Whether the loaded library is `version` or newer (tsb_version(), read
/// once): a function added in a minor version is called only then.
pub(crate) fn library_has(version: i32) -> bool {
    static LOADED: AtomicI32 = AtomicI32::new(0);
    let mut loaded = LOADED.load(Ordering::Relaxed);
    if loaded == 0 {
        // SAFETY: no arguments.
        loaded = unsafe { sys::tsb_version() };
        LOADED.store(loaded, Ordering::Relaxed);
    }
    loaded >= version
}

pub fn version_string() -> String {
    // SAFETY: a static string of the library, copied by c_str.
    error::c_str(unsafe { sys::tsb_version_get_string() })
}
