//! The raw C ABI of `tsbridge.h`, declared by hand (no bindgen: std only).
//!
//! `hosts/rust/tests/check_declarations.py` compares every `TSB_API` function of
//! the header with the `fn`s here (names, parameter counts, types), and the
//! `layout` test compares each `#[repr(C)]` struct's size and offsets with
//! what a C compiler says, so the two cannot drift. C enums are `c_int`
//! here: a Rust enum may not hold a value a newer library adds.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

pub type tsb_code = c_int;
pub type tsb_kind = c_int;
pub enum tsb_status {}
pub enum tsb_object {}
pub enum tsb_module {}

pub const TSB_OK: tsb_code = 0;
pub const TSB_ERR_INVALID_ARGUMENT: tsb_code = 1;
pub const TSB_ERR_TYPE: tsb_code = 2;
pub const TSB_ERR_OUT_OF_RANGE: tsb_code = 3;
pub const TSB_ERR_NOT_FOUND: tsb_code = 4;
pub const TSB_ERR_UNSUPPORTED: tsb_code = 5;
pub const TSB_ERR_TORCH: tsb_code = 6;
pub const TSB_ERR_NO_MEMORY: tsb_code = 7;
pub const TSB_ERR_ALREADY_EXISTS: tsb_code = 8;
pub const TSB_ERR_INTERNAL: tsb_code = 9;

pub const TSB_VERSION_MAJOR: i32 = 1;
pub const TSB_VERSION_MINOR: i32 = 9;
pub const TSB_MAX_DEPTH: usize = 512;

pub const TSB_KIND_INVALID: tsb_kind = 0;
pub const TSB_KIND_NONE: tsb_kind = 1;
pub const TSB_KIND_BOOL: tsb_kind = 2;
pub const TSB_KIND_INT: tsb_kind = 3;
pub const TSB_KIND_FLOAT: tsb_kind = 4;
pub const TSB_KIND_COMPLEX: tsb_kind = 5;
pub const TSB_KIND_STR: tsb_kind = 6;
pub const TSB_KIND_TENSOR: tsb_kind = 7;
pub const TSB_KIND_DEVICE: tsb_kind = 8;
pub const TSB_KIND_DTYPE: tsb_kind = 9;
pub const TSB_KIND_LAYOUT: tsb_kind = 10;
pub const TSB_KIND_MEMORY_FORMAT: tsb_kind = 11;
pub const TSB_KIND_NUMBER: tsb_kind = 12;
pub const TSB_KIND_ANY: tsb_kind = 13;
pub const TSB_KIND_UINT: tsb_kind = 14;
pub const TSB_KIND_LIST: tsb_kind = 16;
pub const TSB_KIND_DICT: tsb_kind = 17;
pub const TSB_KIND_TUPLE: tsb_kind = 18;
pub const TSB_KIND_NAMEDTUPLE: tsb_kind = 19;
pub const TSB_KIND_OPTIONAL: tsb_kind = 20;
pub const TSB_KIND_UNION: tsb_kind = 21;
pub const TSB_KIND_ENUM: tsb_kind = 22;
pub const TSB_KIND_OBJECT: tsb_kind = 23;
pub const TSB_KIND_CUSTOM_CLASS: tsb_kind = 24;

// The fixed type indices of the leaves are their kinds' numbers.
pub const TSB_TYPE_INVALID: i32 = 0;
pub const TSB_TYPE_NONE: i32 = 1;
pub const TSB_TYPE_BOOL: i32 = 2;
pub const TSB_TYPE_INT: i32 = 3;
pub const TSB_TYPE_FLOAT: i32 = 4;
pub const TSB_TYPE_COMPLEX: i32 = 5;
pub const TSB_TYPE_STR: i32 = 6;
pub const TSB_TYPE_TENSOR: i32 = 7;
pub const TSB_TYPE_DEVICE: i32 = 8;
pub const TSB_TYPE_DTYPE: i32 = 9;
pub const TSB_TYPE_LAYOUT: i32 = 10;
pub const TSB_TYPE_MEMORY_FORMAT: i32 = 11;
pub const TSB_TYPE_ANY: i32 = 13;
pub const TSB_TYPE_UINT: i32 = 14;

pub const TSB_FLAG_HANDLE: u32 = 1;
pub const TSB_FLAG_BORROWED_STR: u32 = 2;
pub const TSB_FLAG_CONTAINER: u32 = 4;
/// A borrowed tensor (1.9): `u.borrowed`, no reference held; keep one with tsb_any_keep.
pub const TSB_FLAG_BORROWED: u32 = 8;

/// DLPack's type codes (tsb_dlpack_type_code).
pub const TSB_DLPACK_INT: u8 = 0;
pub const TSB_DLPACK_UINT: u8 = 1;
pub const TSB_DLPACK_FLOAT: u8 = 2;
pub const TSB_DLPACK_BFLOAT: u8 = 4;
pub const TSB_DLPACK_COMPLEX: u8 = 5;
pub const TSB_DLPACK_BOOL: u8 = 6;

#[repr(C)]
#[derive(Clone, Copy)]
pub union tsb_any_payload {
    pub i: i64,
    pub u: u64,
    pub d: f64,
    pub obj: *mut tsb_object,
    pub borrowed_str: *const c_char,
    /// TSB_FLAG_BORROWED: the tensor it names (1.9).
    pub borrowed: *const c_void,
}

/// Every value: 16 bytes, a scalar inline or a refcounted handle.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tsb_any {
    pub type_index: i32,
    pub flags: u32,
    pub u: tsb_any_payload,
}

impl tsb_any {
    /// tsb_any_inline: a value with nothing to release.
    pub const fn inline(type_index: i32, i: i64) -> tsb_any {
        tsb_any { type_index, flags: 0, u: tsb_any_payload { i } }
    }
    /// What tsb_any_release leaves: type TSB_TYPE_INVALID.
    pub const fn invalid() -> tsb_any {
        tsb_any::inline(TSB_TYPE_INVALID, 0)
    }
    /// tsb_any_borrowed_str: `s` must be NUL-ended and outlive the call.
    pub fn borrowed_str(s: *const c_char) -> tsb_any {
        tsb_any { type_index: TSB_TYPE_STR, flags: TSB_FLAG_BORROWED_STR, u: tsb_any_payload { borrowed_str: s } }
    }
}

#[repr(C)]
pub struct tsb_type_info {
    pub struct_size: usize,
    pub kind: tsb_kind,
    pub annotation: *const c_char,
    pub name: *const c_char,
    pub num_contained: usize,
    pub contained: *const i32,
    pub field_names: *const *const c_char,
    pub provider: *const c_char,
    pub num_fields: usize,
}

#[repr(C)]
pub struct tsb_tensor_info {
    pub struct_size: usize,
    pub dtype: i32,
    pub layout: i32,
    pub device_type: i32,
    pub device_index: i32,
    pub ndim: usize,
    pub sizes: *const i64,
    pub strides: *const i64,
    pub storage_offset: i64,
    pub numel: i64,
    pub requires_grad: bool,
    pub is_contiguous: bool,
}

#[repr(C)]
pub struct tsb_plugin_info {
    pub struct_size: usize,
    pub name: *const c_char,
    pub version: *const c_char,
    pub path: *const c_char,
    pub platform_tag: *const c_char,
    pub num_kinds: usize,
    pub kinds: *const *const c_char,
    pub num_types: usize,
    pub types: *const *const c_char,
    pub num_functions: usize,
    pub functions: *const *const c_char,
}

#[repr(C)]
pub struct tsb_library_info {
    pub struct_size: usize,
    pub name: *const c_char,
    pub path: *const c_char,
    pub num_operators: usize,
    pub operators: *const *const c_char,
}

#[repr(C)]
pub struct tsb_call_args {
    pub struct_size: usize,
    pub args: *const tsb_any,
    pub num_args: usize,
    pub kw_names: *const *const c_char,
    pub kw_values: *const tsb_any,
    pub num_kwargs: usize,
}

#[repr(C)]
pub struct tsb_argument_info {
    pub struct_size: usize,
    pub name: *const c_char,
    pub annotation: *const c_char,
    pub type_index: i32,
    pub has_default: bool,
    pub kwarg_only: bool,
    pub default_json: *const c_char,
    pub list_size: i32,
}

#[repr(C)]
pub struct tsb_schema_info {
    pub struct_size: usize,
    pub name: *const c_char,
    pub overload_name: *const c_char,
    pub schema: *const c_char,
    pub num_arguments: usize,
    pub arguments: *const tsb_argument_info,
    pub num_returns: usize,
    pub returns: *const tsb_argument_info,
    pub not_callable: *const c_char,
}

#[repr(C)]
pub struct tsb_trace_options {
    pub struct_size: usize,
    pub strict: bool,
    pub method_name: *const c_char,
}

pub type tsb_trace_fn = Option<
    unsafe extern "C" fn(*mut c_void, *const tsb_any, usize, *mut tsb_any) -> *mut tsb_status,
>;

// DLPack, declared by hand: the header only forward-declares these. The
// layouts are dlpack.h's (v0.6 to v0.8 for DLManagedTensor, v1.x for the
// versioned one); the `layout` test checks them against <dlpack/dlpack.h>.

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// DLDeviceType: kDLCPU 1, kDLCUDA 2 (not tsb_device_type's numbering).
    pub device_type: c_int,
    pub device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

#[repr(C)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    /// NULL means compact row-major (in); always given out.
    pub strides: *mut i64,
    pub byte_offset: u64,
}

#[repr(C)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

#[repr(C)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

pub const KDL_CPU: c_int = 1;

extern "C" {
    pub fn tsb_version() -> i32;
    pub fn tsb_version_get_string() -> *const c_char;

    pub fn tsb_status_get_code(s: *const tsb_status) -> tsb_code;
    pub fn tsb_status_get_message(s: *const tsb_status) -> *const c_char;
    pub fn tsb_status_get_path(s: *const tsb_status) -> *const c_char;
    pub fn tsb_status_get_detail(s: *const tsb_status) -> *const c_char;
    pub fn tsb_status_get_backtrace(s: *const tsb_status) -> *const c_char;
    pub fn tsb_status_free(s: *mut tsb_status);
    pub fn tsb_status_new(code: tsb_code, message: *const c_char) -> *mut tsb_status;
    pub fn tsb_status_new_at(code: tsb_code, path: *const c_char, detail: *const c_char) -> *mut tsb_status;

    pub fn tsb_type_get_info(type_index: i32, out: *mut tsb_type_info) -> *mut tsb_status;
    pub fn tsb_type_get_kind(type_index: i32, out: *mut tsb_kind) -> *mut tsb_status;
    pub fn tsb_type_parse(annotation: *const c_char, out: *mut i32) -> *mut tsb_status;
    pub fn tsb_type_make_list(element: i32, out: *mut i32) -> *mut tsb_status;
    pub fn tsb_type_make_dict(key: i32, value: i32, out: *mut i32) -> *mut tsb_status;

    pub fn tsb_any_retain(v: *const tsb_any);
    pub fn tsb_any_keep(v: *const tsb_any, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_any_release(v: *mut tsb_any);
    pub fn tsb_any_get_id(v: *const tsb_any, out: *mut u64) -> *mut tsb_status;
    pub fn tsb_handle_count(out: *mut usize) -> *mut tsb_status;
    pub fn tsb_str_new(data: *const c_char, len: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_complex_new(re: f64, im: f64, out: *mut tsb_any) -> *mut tsb_status;

    pub fn tsb_bool_get(v: *const tsb_any, out: *mut bool) -> *mut tsb_status;
    pub fn tsb_int_get(v: *const tsb_any, out: *mut i64) -> *mut tsb_status;
    pub fn tsb_float_get(v: *const tsb_any, out: *mut f64) -> *mut tsb_status;
    pub fn tsb_complex_get(v: *const tsb_any, re: *mut f64, im: *mut f64) -> *mut tsb_status;
    pub fn tsb_str_get(v: *const tsb_any, data: *mut *const c_char, len: *mut usize) -> *mut tsb_status;
    pub fn tsb_device_get(v: *const tsb_any, device_type: *mut i32, index: *mut i32) -> *mut tsb_status;
    pub fn tsb_dtype_get(v: *const tsb_any, code: *mut i32) -> *mut tsb_status;
    pub fn tsb_layout_get(v: *const tsb_any, code: *mut i32) -> *mut tsb_status;
    pub fn tsb_memory_format_get(v: *const tsb_any, code: *mut i32) -> *mut tsb_status;
    pub fn tsb_any_repr(v: *const tsb_any, out: *mut *mut c_char) -> *mut tsb_status;
    pub fn tsb_string_free(s: *mut c_char);

    pub fn tsb_any_len(container: *const tsb_any, out: *mut usize) -> *mut tsb_status;
    pub fn tsb_list_get(list: *const tsb_any, i: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_list_get_items(list: *const tsb_any, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_any_flatten(value: *const tsb_any, out: *mut tsb_any, capacity: usize, n: *mut usize) -> *mut tsb_status;
    pub fn tsb_any_flatten_borrowed(value: *const tsb_any, out: *mut tsb_any, capacity: usize, n: *mut usize) -> *mut tsb_status;
    pub fn tsb_any_unflatten(type_index: i32, entries: *const tsb_any, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_any_get_field(value: *const tsb_any, name: *const c_char, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_dict_get_item(dict: *const tsb_any, i: usize, key: *mut tsb_any, value: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_dict_get_items(dict: *const tsb_any, n: usize, keys: *mut tsb_any, values: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_dict_get(dict: *const tsb_any, key: *const tsb_any, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_list_copy_int(list: *const tsb_any, n: usize, out: *mut i64) -> *mut tsb_status;
    pub fn tsb_list_copy_float(list: *const tsb_any, n: usize, out: *mut f64) -> *mut tsb_status;
    pub fn tsb_list_copy_bool(list: *const tsb_any, n: usize, out: *mut bool) -> *mut tsb_status;
    pub fn tsb_list_get_strs(list: *const tsb_any, n: usize, data: *mut *const c_char, lens: *mut usize) -> *mut tsb_status;

    pub fn tsb_list_new(element_type: i32, items: *const tsb_any, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_list_new_int(data: *const i64, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_list_new_float(data: *const f64, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_list_new_bool(data: *const bool, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_tuple_new(items: *const tsb_any, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_tuple_new_typed(tuple_type: i32, items: *const tsb_any, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_tuple_new_named(qualified_name: *const c_char, field_names: *const *const c_char, items: *const tsb_any, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_dict_new(key_type: i32, value_type: i32, keys: *const tsb_any, values: *const tsb_any, n: usize, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_any_coerce(value: *const tsb_any, expected: i32, out: *mut tsb_any) -> *mut tsb_status;

    pub fn tsb_tensor_get_info(tensor: *const tsb_any, out: *mut tsb_tensor_info) -> *mut tsb_status;
    pub fn tsb_tensor_to_dlpack(tensor: *const tsb_any, out: *mut *mut DLManagedTensor) -> *mut tsb_status;
    pub fn tsb_tensor_from_dlpack(managed: *mut DLManagedTensor, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_tensor_to_dlpack_versioned(tensor: *const tsb_any, out: *mut *mut DLManagedTensorVersioned) -> *mut tsb_status;
    pub fn tsb_tensor_from_dlpack_versioned(managed: *mut DLManagedTensorVersioned, out: *mut tsb_any) -> *mut tsb_status;

    pub fn tsb_tensor_set_requires_grad(tensor: *const tsb_any, requires_grad: bool) -> *mut tsb_status;
    pub fn tsb_tensor_get_requires_grad(tensor: *const tsb_any, out: *mut bool) -> *mut tsb_status;
    pub fn tsb_tensor_get_grad(tensor: *const tsb_any, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_tensor_zero_grad(tensor: *const tsb_any) -> *mut tsb_status;
    pub fn tsb_tensor_detach(tensor: *const tsb_any, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_autograd_backward(outputs: *const tsb_any, n: usize, grad_outputs: *const tsb_any, retain_graph: bool) -> *mut tsb_status;
    pub fn tsb_grad_mode_set(enabled: bool, previous: *mut bool) -> *mut tsb_status;
    pub fn tsb_grad_mode_get(out: *mut bool) -> *mut tsb_status;

    pub fn tsb_plugin_load(path: *const c_char, out: *mut i32) -> *mut tsb_status;
    pub fn tsb_plugin_load_from_env() -> *mut tsb_status;
    pub fn tsb_plugin_load_bundled() -> *mut tsb_status;
    pub fn tsb_plugin_defer_bundled() -> *mut tsb_status;
    pub fn tsb_plugin_get_bundled_dir(out: *mut *const c_char) -> *mut tsb_status;
    pub fn tsb_plugin_count(out: *mut usize) -> *mut tsb_status;
    pub fn tsb_plugin_get_info(id: i32, out: *mut tsb_plugin_info) -> *mut tsb_status;

    pub fn tsb_library_load(path_or_name: *const c_char, out: *mut i32) -> *mut tsb_status;
    pub fn tsb_library_load_from_env() -> *mut tsb_status;
    pub fn tsb_library_count(out: *mut usize) -> *mut tsb_status;
    pub fn tsb_library_get_info(id: i32, out: *mut tsb_library_info) -> *mut tsb_status;

    pub fn tsb_function_call(name: *const c_char, args: *const tsb_call_args, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_function_get_schema(name: *const c_char, out: *mut tsb_schema_info) -> *mut tsb_status;

    pub fn tsb_enum_get(v: *const tsb_any, member_name: *mut *const c_char, value: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_object_call(object: *const tsb_any, method: *const c_char, args: *const tsb_call_args, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_object_write(object: *const tsb_any, data: *mut *mut c_char, size: *mut usize) -> *mut tsb_status;
    pub fn tsb_object_read(data: *const c_char, size: usize, out: *mut tsb_any) -> *mut tsb_status;

    pub fn tsb_json_write(value: *const tsb_any, out: *mut *mut c_char) -> *mut tsb_status;
    pub fn tsb_json_read(json: *const c_char, expected: i32, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_pickle_write(value: *const tsb_any, data: *mut *mut c_char, size: *mut usize) -> *mut tsb_status;
    pub fn tsb_pickle_read(data: *const c_char, size: usize, out: *mut tsb_any) -> *mut tsb_status;

    pub fn tsb_module_load(path: *const c_char, out: *mut *mut tsb_module) -> *mut tsb_status;
    pub fn tsb_module_compile(source: *const c_char, out: *mut *mut tsb_module) -> *mut tsb_status;
    pub fn tsb_module_save(module: *const tsb_module, path: *const c_char) -> *mut tsb_status;
    pub fn tsb_module_save_for_mobile(module: *const tsb_module, path: *const c_char) -> *mut tsb_status;
    pub fn tsb_module_write(module: *const tsb_module, data: *mut *mut c_char, size: *mut usize) -> *mut tsb_status;
    pub fn tsb_module_read(data: *const c_char, size: usize, out: *mut *mut tsb_module) -> *mut tsb_status;
    pub fn tsb_module_free(module: *mut tsb_module);
    pub fn tsb_module_parse_type(module: *const tsb_module, annotation: *const c_char, out: *mut i32) -> *mut tsb_status;
    pub fn tsb_module_count_methods(module: *const tsb_module, out: *mut usize) -> *mut tsb_status;
    pub fn tsb_module_get_method(module: *const tsb_module, i: usize, out: *mut tsb_schema_info) -> *mut tsb_status;
    pub fn tsb_module_call(module: *mut tsb_module, method: *const c_char, args: *const tsb_call_args, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_module_call_method(module: *mut tsb_module, i: usize, args: *const tsb_call_args, out: *mut tsb_any) -> *mut tsb_status;

    pub fn tsb_op_count_overloads(name: *const c_char, out: *mut usize) -> *mut tsb_status;
    pub fn tsb_op_get_overload(name: *const c_char, i: usize, out: *mut tsb_schema_info) -> *mut tsb_status;
    pub fn tsb_op_call(name: *const c_char, args: *const tsb_call_args, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_op_get_names(ns: *const c_char, names: *mut *mut *const c_char, n: *mut usize) -> *mut tsb_status;

    pub fn tsb_module_trace(fn_: tsb_trace_fn, user_data: *mut c_void, example_inputs: *const tsb_any, num_inputs: usize, out: *mut *mut tsb_module) -> *mut tsb_status;
    pub fn tsb_module_trace_with(fn_: tsb_trace_fn, user_data: *mut c_void, example_inputs: *const tsb_any, num_inputs: usize, options: *const tsb_trace_options, out: *mut *mut tsb_module) -> *mut tsb_status;

    pub fn tsb_module_set_training(module: *mut tsb_module, training: bool) -> *mut tsb_status;
    pub fn tsb_module_get_training(module: *const tsb_module, out: *mut bool) -> *mut tsb_status;
    pub fn tsb_module_count_parameters(module: *const tsb_module, out: *mut usize) -> *mut tsb_status;
    pub fn tsb_module_get_parameter(module: *const tsb_module, i: usize, name: *mut *const c_char, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_module_count_buffers(module: *const tsb_module, out: *mut usize) -> *mut tsb_status;
    pub fn tsb_module_get_buffer(module: *const tsb_module, i: usize, name: *mut *const c_char, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_module_count_children(module: *const tsb_module, out: *mut usize) -> *mut tsb_status;
    pub fn tsb_module_get_child(module: *const tsb_module, i: usize, name: *mut *const c_char, out: *mut *mut tsb_module) -> *mut tsb_status;
    pub fn tsb_module_count_attributes(module: *const tsb_module, out: *mut usize) -> *mut tsb_status;
    pub fn tsb_module_get_attribute_name(module: *const tsb_module, i: usize, out: *mut *const c_char) -> *mut tsb_status;
    pub fn tsb_module_get_attribute(module: *const tsb_module, name: *const c_char, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_module_set_attribute(module: *mut tsb_module, name: *const c_char, value: *const tsb_any) -> *mut tsb_status;
    pub fn tsb_module_get_state(module: *const tsb_module, out: *mut tsb_any) -> *mut tsb_status;
    pub fn tsb_module_set_state(module: *mut tsb_module, state: *const tsb_any, strict: bool) -> *mut tsb_status;
    pub fn tsb_module_set_parameter(module: *mut tsb_module, name: *const c_char, tensor: *const tsb_any, is_buffer: bool) -> *mut tsb_status;
    pub fn tsb_module_get_graph_for(module: *mut tsb_module, method: *const c_char, args: *const tsb_call_args, out: *mut *mut c_char) -> *mut tsb_status;
    pub fn tsb_module_get_code(module: *const tsb_module, out: *mut *mut c_char) -> *mut tsb_status;
    pub fn tsb_module_get_graph(module: *const tsb_module, method: *const c_char, out: *mut *mut c_char) -> *mut tsb_status;
}
