/* Prints the size, alignment and field offsets of every struct the Rust
 * host declares by hand (hosts/rust/src/sys.rs), as this C compiler lays
 * them out, and the header's constants that say how a value is read;
 * hosts/rust/tests/layout.rs compares them line by line. */
#include <stdalign.h>
#include <stdio.h>

#include <dlpack/dlpack.h>

#include "tsbridge/tsbridge.h"

#define SIZE_AS(t, name) printf("%s size %zu align %zu\n", name, sizeof(t), alignof(t))
#define FIELD_AS(t, name, f) printf("%s.%s %zu\n", name, #f, offsetof(t, f))
#define SIZE(t) SIZE_AS(t, #t)
#define FIELD(t, f) FIELD_AS(t, #t, f)
/* tsb_any's union has no name in C: sys.rs calls it tsb_any_payload. */
#define PAYLOAD(f) \
  printf("tsb_any_payload.%s %zu\n", #f, offsetof(tsb_any, u.f) - offsetof(tsb_any, u))
#define CONSTANT(c) printf("const %s %lld\n", #c, (long long)(c))

int main(void) {
  SIZE(tsb_any); FIELD(tsb_any, type_index); FIELD(tsb_any, flags); FIELD(tsb_any, u);
  printf("tsb_any_payload size %zu align %zu\n", sizeof(((tsb_any*)0)->u),
         alignof(__typeof__(((tsb_any*)0)->u)));
  PAYLOAD(i); PAYLOAD(u); PAYLOAD(d); PAYLOAD(obj); PAYLOAD(borrowed_str); PAYLOAD(borrowed);
  CONSTANT(TSB_VERSION_MAJOR); CONSTANT(TSB_VERSION_MINOR);
  CONSTANT(TSB_FLAG_HANDLE); CONSTANT(TSB_FLAG_BORROWED_STR); CONSTANT(TSB_FLAG_CONTAINER);
  CONSTANT(TSB_FLAG_BORROWED);
  SIZE(tsb_type_info); FIELD(tsb_type_info, struct_size); FIELD(tsb_type_info, kind);
  FIELD(tsb_type_info, annotation); FIELD(tsb_type_info, name); FIELD(tsb_type_info, num_contained);
  FIELD(tsb_type_info, contained); FIELD(tsb_type_info, field_names); FIELD(tsb_type_info, provider);
  FIELD(tsb_type_info, num_fields);
  SIZE(tsb_tensor_info); FIELD(tsb_tensor_info, struct_size); FIELD(tsb_tensor_info, dtype);
  FIELD(tsb_tensor_info, layout); FIELD(tsb_tensor_info, device_type); FIELD(tsb_tensor_info, device_index);
  FIELD(tsb_tensor_info, ndim); FIELD(tsb_tensor_info, sizes); FIELD(tsb_tensor_info, strides);
  FIELD(tsb_tensor_info, storage_offset); FIELD(tsb_tensor_info, numel);
  FIELD(tsb_tensor_info, requires_grad); FIELD(tsb_tensor_info, is_contiguous);
  SIZE(tsb_plugin_info); FIELD(tsb_plugin_info, struct_size); FIELD(tsb_plugin_info, name);
  FIELD(tsb_plugin_info, version); FIELD(tsb_plugin_info, path); FIELD(tsb_plugin_info, platform_tag);
  FIELD(tsb_plugin_info, num_kinds); FIELD(tsb_plugin_info, kinds); FIELD(tsb_plugin_info, num_types);
  FIELD(tsb_plugin_info, types); FIELD(tsb_plugin_info, num_functions); FIELD(tsb_plugin_info, functions);
  SIZE(tsb_library_info); FIELD(tsb_library_info, struct_size); FIELD(tsb_library_info, name);
  FIELD(tsb_library_info, path); FIELD(tsb_library_info, num_operators); FIELD(tsb_library_info, operators);
  SIZE(tsb_call_args); FIELD(tsb_call_args, struct_size); FIELD(tsb_call_args, args);
  FIELD(tsb_call_args, num_args); FIELD(tsb_call_args, kw_names); FIELD(tsb_call_args, kw_values);
  FIELD(tsb_call_args, num_kwargs);
  SIZE(tsb_argument_info); FIELD(tsb_argument_info, struct_size); FIELD(tsb_argument_info, name);
  FIELD(tsb_argument_info, annotation); FIELD(tsb_argument_info, type_index);
  FIELD(tsb_argument_info, has_default); FIELD(tsb_argument_info, kwarg_only);
  FIELD(tsb_argument_info, default_json); FIELD(tsb_argument_info, list_size);
  SIZE(tsb_schema_info); FIELD(tsb_schema_info, struct_size); FIELD(tsb_schema_info, name);
  FIELD(tsb_schema_info, overload_name); FIELD(tsb_schema_info, schema);
  FIELD(tsb_schema_info, num_arguments); FIELD(tsb_schema_info, arguments);
  FIELD(tsb_schema_info, num_returns); FIELD(tsb_schema_info, returns);
  SIZE(tsb_trace_options); FIELD(tsb_trace_options, struct_size); FIELD(tsb_trace_options, strict);
  FIELD(tsb_trace_options, method_name);
  SIZE(DLDevice); FIELD(DLDevice, device_type); FIELD(DLDevice, device_id);
  SIZE(DLDataType); FIELD(DLDataType, code); FIELD(DLDataType, bits); FIELD(DLDataType, lanes);
  SIZE(DLTensor); FIELD(DLTensor, data); FIELD(DLTensor, device); FIELD(DLTensor, ndim);
  FIELD(DLTensor, dtype); FIELD(DLTensor, shape); FIELD(DLTensor, strides); FIELD(DLTensor, byte_offset);
  SIZE(DLManagedTensor); FIELD(DLManagedTensor, dl_tensor); FIELD(DLManagedTensor, manager_ctx);
  FIELD(DLManagedTensor, deleter);
#ifdef DLPACK_FLAG_BITMASK_READ_ONLY /* DLPack 1.x: the versioned struct */
  SIZE(DLPackVersion); FIELD(DLPackVersion, major); FIELD(DLPackVersion, minor);
  /* DLPack 1.0 declares the struct without a typedef; 1.3 adds one. */
  typedef struct DLManagedTensorVersioned Versioned;
  SIZE_AS(Versioned, "DLManagedTensorVersioned");
  FIELD_AS(Versioned, "DLManagedTensorVersioned", version);
  FIELD_AS(Versioned, "DLManagedTensorVersioned", manager_ctx);
  FIELD_AS(Versioned, "DLManagedTensorVersioned", deleter);
  FIELD_AS(Versioned, "DLManagedTensorVersioned", flags);
  FIELD_AS(Versioned, "DLManagedTensorVersioned", dl_tensor);
#endif
  return 0;
}
