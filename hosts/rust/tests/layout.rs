//! The #[repr(C)] structs of sys.rs against the C compiler's layout of
//! tsbridge.h and <dlpack/dlpack.h>: hosts/rust/tests/layout.c prints each
//! struct's size and field offsets, and the constants saying how a value is
//! read; every line must match Rust's.
use std::mem::{align_of, size_of};
use tsbridge::sys::*;

macro_rules! offset_of {
    ($t:ty, $f:ident) => {{
        let v = std::mem::MaybeUninit::<$t>::uninit();
        let base = v.as_ptr() as usize;
        // SAFETY: addr_of! takes the field's address without reading the
        // uninitialized memory or making a reference to it.
        let field = unsafe { std::ptr::addr_of!((*v.as_ptr()).$f) } as usize;
        field - base
    }};
}

macro_rules! layout {
    ($out:ident, $t:ident { $($f:ident),* }) => {{
        $out.push(format!("{} size {} align {}", stringify!($t), size_of::<$t>(), align_of::<$t>()));
        $( $out.push(format!("{}.{} {}", stringify!($t), stringify!($f), offset_of!($t, $f))); )*
    }};
}

macro_rules! constants {
    ($out:ident, $($c:ident),*) => {{
        $( $out.push(format!("const {} {}", stringify!($c), $c)); )*
    }};
}

fn rust_layouts() -> Vec<String> {
    let mut out = Vec::new();
    layout!(out, tsb_any { type_index, flags, u });
    layout!(out, tsb_any_payload { i, u, d, obj, borrowed_str, borrowed });
    constants!(out, TSB_VERSION_MAJOR, TSB_VERSION_MINOR);
    constants!(out, TSB_FLAG_HANDLE, TSB_FLAG_BORROWED_STR, TSB_FLAG_CONTAINER, TSB_FLAG_BORROWED);
    layout!(out, tsb_type_info { struct_size, kind, annotation, name, num_contained, contained, field_names, provider, num_fields });
    layout!(out, tsb_tensor_info { struct_size, dtype, layout, device_type, device_index, ndim, sizes, strides, storage_offset, numel, requires_grad, is_contiguous });
    layout!(out, tsb_plugin_info { struct_size, name, version, path, platform_tag, num_kinds, kinds, num_types, types, num_functions, functions });
    layout!(out, tsb_library_info { struct_size, name, path, num_operators, operators });
    layout!(out, tsb_call_args { struct_size, args, num_args, kw_names, kw_values, num_kwargs });
    layout!(out, tsb_argument_info { struct_size, name, annotation, type_index, has_default, kwarg_only, default_json, list_size });
    layout!(out, tsb_schema_info { struct_size, name, overload_name, schema, num_arguments, arguments, num_returns, returns });
    layout!(out, tsb_trace_options { struct_size, strict, method_name });
    layout!(out, DLDevice { device_type, device_id });
    layout!(out, DLDataType { code, bits, lanes });
    layout!(out, DLTensor { data, device, ndim, dtype, shape, strides, byte_offset });
    layout!(out, DLManagedTensor { dl_tensor, manager_ctx, deleter });
    layout!(out, DLPackVersion { major, minor });
    layout!(out, DLManagedTensorVersioned { version, manager_ctx, deleter, flags, dl_tensor });
    out
}

#[test]
fn structs_match_the_c_compilers_layout() {
    let c = match std::env::var("TSB_RUST_C_LAYOUT") {
        Ok(p) => std::fs::read_to_string(p).unwrap(),
        Err(_) => panic!("TSB_RUST_C_LAYOUT is not set: ctest compiles hosts/rust/tests/layout.c and passes its output"),
    };
    let rust = rust_layouts();
    let c_lines: Vec<&str> = c.lines().collect();
    // What a line is about: "tsb_any.flags", "tsb_any size", "const TSB_FLAG_BORROWED".
    let subject = |l: &str| l.split(' ').take(2).collect::<Vec<_>>().join(" ");
    for line in &c_lines {
        assert!(rust.iter().any(|r| r == line), "C says `{}`; Rust has {:?}", line, rust.iter().find(|r| subject(r) == subject(line)));
    }
    for constant in ["TSB_FLAG_BORROWED", "TSB_VERSION_MINOR"] {
        assert!(c_lines.iter().any(|l| l.starts_with(&format!("const {} ", constant))), "layout.c printed no {}", constant);
    }
    // Every Rust struct was checked (the versioned DLPack ones only where
    // the system's dlpack.h has them).
    let checked = |name: &str| c_lines.iter().any(|l| l.starts_with(&format!("{} size", name)));
    for name in ["tsb_any", "tsb_any_payload", "tsb_tensor_info", "tsb_trace_options", "DLManagedTensor", "DLTensor"] {
        assert!(checked(name), "layout.c printed nothing for {}", name);
    }
}
