//! Plugins (codecs, named types, functions) and operator libraries
//! (shared libraries registering operators with TORCH_LIBRARY).
use crate::error::{c_str, check, listed, Result};
use crate::sys;
use crate::value::cstring;
use std::os::raw::c_char;

/// A loaded plugin, as `tsb_plugin_get_info` describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginInfo {
    pub id: i32,
    pub name: String,
    pub version: String,
    pub path: String,
    pub kinds: Vec<String>,
    pub types: Vec<String>,
    pub functions: Vec<String>,
}

/// A loaded operator library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    pub id: i32,
    pub name: String,
    pub path: String,
    pub operators: Vec<String>,
}

fn strings(p: *const *const c_char, n: usize) -> Vec<String> {
    // SAFETY: an info struct's array of n string pointers (i < n), valid while
    // the plugin stays loaded (plugins are never unloaded).
    (0..n).map(|i| c_str(unsafe { *p.add(i) })).collect()
}

/// Loads a plugin file; returns its id (the same for a file loaded before).
pub fn load(path: &str) -> Result<i32> {
    load_with(path, sys::tsb_plugin_load)
}

/// A plugin or an operator library loaded by `load`: its id.
fn load_with(
    path: &str,
    load: unsafe extern "C" fn(*const c_char, *mut i32) -> *mut sys::tsb_status,
) -> Result<i32> {
    crate::init();
    let path = cstring(path);
    let mut id = -1i32;
    // SAFETY: `load` is tsb_plugin_load or tsb_library_load; `path` is a
    // CString alive for the call, `id` a local.
    check(unsafe { load(path.as_ptr(), &mut id) })?;
    Ok(id)
}
/// Loads every bundled plugin now (a host that must fail early).
pub fn load_bundled() -> Result<()> {
    // SAFETY: no arguments.
    check(unsafe { sys::tsb_plugin_load_bundled() })
}
/// Offers the bundled plugins, each loaded when first needed; `init`
/// does this once.
pub fn defer_bundled() -> Result<()> {
    // SAFETY: no arguments.
    check(unsafe { sys::tsb_plugin_defer_bundled() })
}
/// Loads the plugins TSB_PLUGIN_PATH names.
pub fn load_from_env() -> Result<()> {
    // SAFETY: no arguments.
    check(unsafe { sys::tsb_plugin_load_from_env() })
}
pub fn bundled_dir() -> Result<String> {
    let mut p: *const c_char = std::ptr::null();
    // SAFETY: `p` is a local the library points at its own static text.
    check(unsafe { sys::tsb_plugin_get_bundled_dir(&mut p) })?;
    Ok(c_str(p))
}
/// The plugins loaded so far, in load order.
pub fn loaded() -> Result<Vec<PluginInfo>> {
    all_loaded(sys::tsb_plugin_count, sys::tsb_plugin_get_info, |id, raw| PluginInfo {
        id,
        name: c_str(raw.name),
        version: c_str(raw.version),
        path: c_str(raw.path),
        kinds: strings(raw.kinds, raw.num_kinds),
        types: strings(raw.types, raw.num_types),
        functions: strings(raw.functions, raw.num_functions),
    })
}

/// Every plugin (or library) loaded so far, by id: `get` fills a zeroed
/// info struct, `make` reads it.
fn all_loaded<R, T>(
    count: unsafe extern "C" fn(*mut usize) -> *mut sys::tsb_status,
    get: unsafe extern "C" fn(i32, *mut R) -> *mut sys::tsb_status,
    make: impl Fn(i32, &R) -> T,
) -> Result<Vec<T>> {
    // SAFETY: `count` is the header's count function for R's list; `n` a local.
    listed(|n| unsafe { count(n) }, |i| {
        let id = i as i32;
        // SAFETY: R is a repr(C) info struct of pointers, integers and sizes,
        // for which all zeros is valid.
        let mut raw: R = unsafe { std::mem::zeroed() };
        // Both info structs are repr(C) and start with their struct_size.
        // SAFETY: both info structs start with their size_t struct_size
        // (tests/layout.rs checks the offsets against the C compiler).
        unsafe { *(&mut raw as *mut R as *mut usize) = std::mem::size_of::<R>() };
        // SAFETY: `get` is the getter matching `count` and R, id < the count.
        check(unsafe { get(id, &mut raw) })?;
        Ok(make(id, &raw))
    })
}

/// Loads an operator library by path or by name ("torchvision", "torchaudio":
/// the Python package of that name, docs/vision.md).
pub fn load_library(path_or_name: &str) -> Result<i32> {
    load_with(path_or_name, sys::tsb_library_load)
}
/// Loads the libraries TSB_LIBRARY_PATH names.
pub fn load_libraries_from_env() -> Result<()> {
    // SAFETY: no arguments.
    check(unsafe { sys::tsb_library_load_from_env() })
}
pub fn libraries() -> Result<Vec<LibraryInfo>> {
    all_loaded(sys::tsb_library_count, sys::tsb_library_get_info, |id, raw| LibraryInfo {
        id,
        name: c_str(raw.name),
        path: c_str(raw.path),
        operators: strings(raw.operators, raw.num_operators),
    })
}
