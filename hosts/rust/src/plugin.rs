//! Plugins (codecs, named types, functions) and operator libraries
//! (shared libraries registering operators with TORCH_LIBRARY).
use crate::error::{c_str, check, Result};
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
    (0..n).map(|i| c_str(unsafe { *p.add(i) })).collect()
}

/// Loads a plugin file; returns its id (the same for a file loaded before).
pub fn load(path: &str) -> Result<i32> {
    crate::init();
    let path = cstring(path);
    let mut id = -1i32;
    check(unsafe { sys::tsb_plugin_load(path.as_ptr(), &mut id) })?;
    Ok(id)
}
/// Loads every bundled plugin now (a host that must fail early).
pub fn load_bundled() -> Result<()> {
    check(unsafe { sys::tsb_plugin_load_bundled() })
}
/// Offers the bundled plugins, each loaded when first needed; `init`
/// does this once.
pub fn defer_bundled() -> Result<()> {
    check(unsafe { sys::tsb_plugin_defer_bundled() })
}
/// Loads the plugins TSB_PLUGIN_PATH names.
pub fn load_from_env() -> Result<()> {
    check(unsafe { sys::tsb_plugin_load_from_env() })
}
pub fn bundled_dir() -> Result<String> {
    let mut p: *const c_char = std::ptr::null();
    check(unsafe { sys::tsb_plugin_get_bundled_dir(&mut p) })?;
    Ok(c_str(p))
}
/// The plugins loaded so far, in load order.
pub fn loaded() -> Result<Vec<PluginInfo>> {
    let mut n = 0usize;
    check(unsafe { sys::tsb_plugin_count(&mut n) })?;
    (0..n as i32)
        .map(|id| {
            let mut raw: sys::tsb_plugin_info = unsafe { std::mem::zeroed() };
            raw.struct_size = std::mem::size_of::<sys::tsb_plugin_info>();
            check(unsafe { sys::tsb_plugin_get_info(id, &mut raw) })?;
            Ok(PluginInfo {
                id,
                name: c_str(raw.name),
                version: c_str(raw.version),
                path: c_str(raw.path),
                kinds: strings(raw.kinds, raw.num_kinds),
                types: strings(raw.types, raw.num_types),
                functions: strings(raw.functions, raw.num_functions),
            })
        })
        .collect()
}

/// Loads an operator library by path or known name ("torchvision").
pub fn load_library(path_or_name: &str) -> Result<i32> {
    crate::init();
    let p = cstring(path_or_name);
    let mut id = -1i32;
    check(unsafe { sys::tsb_library_load(p.as_ptr(), &mut id) })?;
    Ok(id)
}
/// Loads the libraries TSB_LIBRARY_PATH names.
pub fn load_libraries_from_env() -> Result<()> {
    check(unsafe { sys::tsb_library_load_from_env() })
}
pub fn libraries() -> Result<Vec<LibraryInfo>> {
    let mut n = 0usize;
    check(unsafe { sys::tsb_library_count(&mut n) })?;
    (0..n as i32)
        .map(|id| {
            let mut raw: sys::tsb_library_info = unsafe { std::mem::zeroed() };
            raw.struct_size = std::mem::size_of::<sys::tsb_library_info>();
            check(unsafe { sys::tsb_library_get_info(id, &mut raw) })?;
            Ok(LibraryInfo {
                id,
                name: c_str(raw.name),
                path: c_str(raw.path),
                operators: strings(raw.operators, raw.num_operators),
            })
        })
        .collect()
}
