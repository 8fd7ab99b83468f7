//! Dispatcher operators by name (`aten::add`): the library chooses the
//! overload by TorchScript's rules (exact types, then subtypes, then
//! conversions; a tie to the first in TorchScript's order). Plugin
//! functions (`torchsparse::relabel`) are called the same way.
use crate::call::{empty_schema_info, with_args, with_cstr, Kwargs, Schema};
use crate::error::{c_str, check, listed, Result};
use crate::sys;
use crate::value::Value;
use std::os::raw::c_char;

/// Calls operator `name` with positional arguments.
pub fn call(name: &str, args: &[Value]) -> Result<Value> {
    call_with(name, args, &[])
}

/// Calls operator `name` with positional and keyword arguments. Several
/// returns come back as one Tuple (a NamedTuple when the schema names them).
pub fn call_with(name: &str, args: &[Value], kwargs: Kwargs) -> Result<Value> {
    crate::init();
    // SAFETY: `n` (with_cstr's NUL-ended name) and `a` (with_args's borrowed
    // arguments) live through the call; `o` is fill's slot.
    with_cstr(name, |n| with_args(args, kwargs, |a| Value::fill(|o| unsafe { sys::tsb_op_call(n, a, o) })))
}

/// The overloads of operator `name`, in TorchScript's order.
pub fn overloads(name: &str) -> Result<Vec<Schema>> {
    crate::init();
    with_cstr(name, |n| {
        // SAFETY: `n` is a NUL-ended name alive for the call; `count` a local.
        listed(|count| unsafe { sys::tsb_op_count_overloads(n, count) }, |i| {
            let mut raw = empty_schema_info();
            // SAFETY: `n` is alive and i < the count; the schema's strings are static
            // in the operator registry and copied by from_raw.
            check(unsafe { sys::tsb_op_get_overload(n, i, &mut raw) })?;
            Schema::from_raw(&raw)
        })
    })
}

/// The operators and plugin functions there are now, sorted; only those
/// of namespace `ns` ("aten") when given.
pub fn names(ns: Option<&str>) -> Result<Vec<String>> {
    crate::init();
    let ns = ns.map(crate::value::cstring);
    let mut names: *mut *const c_char = std::ptr::null_mut();
    let mut n = 0usize;
    // SAFETY: the namespace is NULL or a CString alive for the call; `names`
    // and `n` are locals the library fills with one allocation.
    check(unsafe { sys::tsb_op_get_names(ns.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()), &mut names, &mut n) })?;
    // SAFETY: the library wrote n string pointers at `names` (i < n).
    let out = (0..n).map(|i| c_str(unsafe { *names.add(i) })).collect();
    // SAFETY: the one allocation the library made for the array and its
    // strings, freed once, after the copies above (NULL is ignored).
    unsafe { sys::tsb_string_free(names as *mut c_char) };
    Ok(out)
}

/// Calls a function a plugin registered; arguments are converted to its
/// declared types, defaults fill the rest.
pub fn call_function(name: &str, args: &[Value], kwargs: Kwargs) -> Result<Value> {
    crate::init();
    // SAFETY: `n` and `a` live through the call; `o` is fill's slot.
    with_cstr(name, |n| with_args(args, kwargs, |a| Value::fill(|o| unsafe { sys::tsb_function_call(n, a, o) })))
}

pub fn function_schema(name: &str) -> Result<Schema> {
    crate::init();
    with_cstr(name, |n| {
        let mut raw = empty_schema_info();
        // SAFETY: `n` is alive; the schema's strings live in the function registry
        // and are copied by from_raw.
        check(unsafe { sys::tsb_function_get_schema(n, &mut raw) })?;
        Schema::from_raw(&raw)
    })
}
