//! Call arguments (`tsb_call_args`) and schemas, shared by module methods,
//! object methods, operators and plugin functions.
use crate::error::{c_str, Result};
use crate::sys;
use crate::types::Type;
use crate::value::{cstring, Value};
use std::ffi::CString;
use std::os::raw::c_char;

/// Keyword arguments: `&[("scale", Value::from(2.0))]`.
pub type Kwargs<'a> = &'a [(&'a str, Value)];

/// Runs `f` with `s` as a C string; a short one needs no allocation (a
/// method name on every call).
pub(crate) fn with_cstr<R>(s: &str, f: impl FnOnce(*const c_char) -> R) -> R {
    let mut buf = [0u8; 64];
    if s.len() < buf.len() && !s.as_bytes().contains(&0) {
        buf[..s.len()].copy_from_slice(s.as_bytes());
        f(buf.as_ptr() as *const c_char)
    } else {
        let owned: CString = cstring(s);
        f(owned.as_ptr())
    }
}

/// Runs `f` with the `tsb_call_args` of `args` and `kwargs`, all borrowed.
pub(crate) fn with_args<R>(args: &[Value], kwargs: Kwargs, f: impl FnOnce(*const sys::tsb_call_args) -> R) -> R {
    if args.is_empty() && kwargs.is_empty() {
        return f(std::ptr::null());
    }
    let mut names: Vec<CString> = Vec::new();
    let mut name_ptrs: Vec<*const c_char> = Vec::new();
    let mut values: Vec<sys::tsb_any> = Vec::new();
    if !kwargs.is_empty() {
        names = kwargs.iter().map(|(n, _)| cstring(n)).collect();
        name_ptrs = names.iter().map(|n| n.as_ptr()).collect();
        values = kwargs.iter().map(|(_, v)| *v.as_raw()).collect();
    }
    let raw = sys::tsb_call_args {
        struct_size: std::mem::size_of::<sys::tsb_call_args>(),
        args: args.as_ptr() as *const sys::tsb_any,
        num_args: args.len(),
        kw_names: if kwargs.is_empty() { std::ptr::null() } else { name_ptrs.as_ptr() },
        kw_values: if kwargs.is_empty() { std::ptr::null() } else { values.as_ptr() },
        num_kwargs: kwargs.len(),
    };
    let result = f(&raw);
    drop(names);
    result
}

/// One argument or return of a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argument {
    pub name: String,
    /// "Optional[int]".
    pub annotation: String,
    /// None when no codec serves the type.
    pub ty: Option<Type>,
    pub has_default: bool,
    pub kwarg_only: bool,
    /// The default as JSON (docs/json.md).
    pub default_json: Option<String>,
}

/// A method's, operator overload's or function's schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// "forward", "aten::add".
    pub name: String,
    /// "Tensor", "Scalar", "".
    pub overload_name: String,
    /// The whole schema as LibTorch prints it.
    pub schema: String,
    /// For a method, without self.
    pub arguments: Vec<Argument>,
    pub returns: Vec<Argument>,
    /// Why `ops::call` refuses this overload though it is listed (it takes
    /// a variable number of arguments, say); None when it can be called.
    pub not_callable: Option<String>,
}

pub(crate) fn empty_schema_info() -> sys::tsb_schema_info {
    // SAFETY: tsb_schema_info is plain C data; all zeros is valid.
    let mut raw: sys::tsb_schema_info = unsafe { std::mem::zeroed() };
    raw.struct_size = std::mem::size_of::<sys::tsb_schema_info>();
    raw
}

fn read_arguments(first: *const sys::tsb_argument_info, n: usize) -> Vec<Argument> {
    (0..n)
        .map(|i| {
            // The library's struct_size is the stride (tsb_schema_get_argument).
            // SAFETY: i < n items, each the library's struct_size apart (its
            // stride, tsb_schema_get_argument), read only while the schema's owner
            // lives; the first exists when n > 0.
            let a = unsafe { &*((first as *const u8).add(i * (*first).struct_size) as *const sys::tsb_argument_info) };
            Argument {
                name: c_str(a.name),
                annotation: c_str(a.annotation),
                ty: if a.type_index == sys::TSB_TYPE_INVALID { None } else { Some(Type::from_index(a.type_index)) },
                has_default: a.has_default,
                kwarg_only: a.kwarg_only,
                default_json: if a.default_json.is_null() { None } else { Some(c_str(a.default_json)) },
            }
        })
        .collect()
}

impl Schema {
    pub(crate) fn from_raw(raw: &sys::tsb_schema_info) -> Result<Schema> {
        Ok(Schema {
            name: c_str(raw.name),
            overload_name: c_str(raw.overload_name),
            schema: c_str(raw.schema),
            arguments: read_arguments(raw.arguments, raw.num_arguments),
            returns: read_arguments(raw.returns, raw.num_returns),
            not_callable: if raw.not_callable.is_null() { None } else { Some(c_str(raw.not_callable)) },
        })
    }
}
