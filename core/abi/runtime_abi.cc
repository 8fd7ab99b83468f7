// The runtime's exported functions: modules, object methods, operators,
// tracing. Each body runs in Guard; the work is in core/runtime/.
#include <cstddef>
#include <string>

#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/runtime/runtime.h"
#include "core/value/convert.h"

using tsb::abi::CheckArg;
using tsb::abi::Guard;
namespace rt = tsb::runtime;

namespace {

template <typename Make>
absl::Status ModuleOut(tsb_module** out, Make make) {
  TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
  TSB_ASSIGN_OR_RETURN(tsb_module * module, make());
  *out = module;
  return absl::OkStatus();
}

}  // namespace

extern "C" {

tsb_status* tsb_module_load(const char* path, tsb_module** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(path, "path"));
    return ModuleOut(out, [&] { return rt::LoadModule(path); });
  });
}

tsb_status* tsb_module_compile(const char* source, tsb_module** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(source, "source"));
    return ModuleOut(out, [&] { return rt::CompileModule(source); });
  });
}

tsb_status* tsb_module_save(const tsb_module* module, const char* path) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    TSB_RETURN_IF_ERROR(CheckArg(path, "path"));
    return rt::SaveModule(*module, path);
  });
}

tsb_status* tsb_module_save_for_mobile(const tsb_module* module, const char* path) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    TSB_RETURN_IF_ERROR(CheckArg(path, "path"));
    return rt::SaveModuleForMobile(*module, path);
  });
}

tsb_status* tsb_module_write(const tsb_module* module, char** data, size_t* size) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    TSB_RETURN_IF_ERROR(CheckArg(size, "size"));
    TSB_ASSIGN_OR_RETURN(std::string bytes, rt::WriteModule(*module));
    *data = tsb::abi::MallocCopy(bytes.data(), bytes.size(), false);
    *size = bytes.size();
    return absl::OkStatus();
  });
}

tsb_status* tsb_module_read(const char* data, size_t size, tsb_module** out) {
  return Guard([&]() -> absl::Status {
    if (size > 0) TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    return ModuleOut(out, [&] { return rt::ReadModule(data, size); });
  });
}

void tsb_module_free(tsb_module* module) { rt::FreeModule(module); }

tsb_status* tsb_module_count_methods(const tsb_module* module, size_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = rt::NumMethods(*module);
    return absl::OkStatus();
  });
}

tsb_status* tsb_module_get_method(const tsb_module* module, size_t i, tsb_schema_info* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    return tsb::abi::VersionedOut(out, "tsb_schema_info", [&](tsb_schema_info* info) {
      return rt::DescribeMethod(*module, i, info);
    });
  });
}

tsb_status* tsb_module_call(tsb_module* module, const char* method, const tsb_call_args* args,
                            tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    TSB_RETURN_IF_ERROR(CheckArg(method, "method"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    tsb::call::HostArgs host;
    TSB_RETURN_IF_ERROR(tsb::abi::CallArgsArg(args, &host));
    return rt::CallMethod(*module, method, host, out);
  });
}

tsb_status* tsb_module_call_method(tsb_module* module, size_t i, const tsb_call_args* args,
                                   tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    tsb::call::HostArgs host;
    TSB_RETURN_IF_ERROR(tsb::abi::CallArgsArg(args, &host));
    return rt::CallMethodAt(*module, i, host, out);
  });
}

tsb_status* tsb_object_write(const tsb_any* object, char** data, size_t* size) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(c10::IValue value, tsb::abi::ValueArg(object, "object"));
    TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    TSB_RETURN_IF_ERROR(CheckArg(size, "size"));
    TSB_ASSIGN_OR_RETURN(std::string bytes, rt::WriteObject(value));
    *data = tsb::abi::MallocCopy(bytes.data(), bytes.size(), false);
    *size = bytes.size();
    return absl::OkStatus();
  });
}

tsb_status* tsb_object_read(const char* data, size_t size, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    if (size > 0) TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(c10::IValue object, rt::ReadObject(data, size));
    return tsb::ToBoundary(std::move(object), out);
  });
}

tsb_status* tsb_object_call(const tsb_any* object, const char* method, const tsb_call_args* args,
                            tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(c10::IValue self, tsb::abi::ValueArg(object, "object"));
    TSB_RETURN_IF_ERROR(CheckArg(method, "method"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    tsb::call::HostArgs host;
    TSB_RETURN_IF_ERROR(tsb::abi::CallArgsArg(args, &host));
    return rt::CallObjectMethod(self, method, host, out);
  });
}

tsb_status* tsb_op_count_overloads(const char* name, size_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(*out, rt::NumOverloads(name));
    return absl::OkStatus();
  });
}

tsb_status* tsb_op_get_overload(const char* name, size_t i, tsb_schema_info* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
    return tsb::abi::VersionedOut(out, "tsb_schema_info", [&](tsb_schema_info* info) {
      return rt::DescribeOverload(name, i, info);
    });
  });
}

tsb_status* tsb_op_call(const char* name, const tsb_call_args* args, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    tsb::call::HostArgs host;
    TSB_RETURN_IF_ERROR(tsb::abi::CallArgsArg(args, &host));
    return rt::CallOperator(name, host, out);
  });
}

tsb_status* tsb_module_parse_type(const tsb_module* module, const char* annotation,
                                  int32_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    TSB_RETURN_IF_ERROR(CheckArg(annotation, "annotation"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* type, rt::ParseModuleType(*module, annotation));
    *out = type->index;
    return absl::OkStatus();
  });
}

tsb_status* tsb_module_trace(tsb_trace_fn fn, void* user_data, const tsb_any* example_inputs,
                      size_t num_inputs, tsb_module** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(reinterpret_cast<const void*>(fn), "fn"));
    if (num_inputs > 0) TSB_RETURN_IF_ERROR(CheckArg(example_inputs, "example_inputs"));
    return ModuleOut(out, [&] { return rt::Trace(fn, user_data, example_inputs, num_inputs); });
  });
}

tsb_status* tsb_module_trace_with(tsb_trace_fn fn, void* user_data,
                                  const tsb_any* example_inputs, size_t num_inputs,
                                  const tsb_trace_options* options, tsb_module** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(reinterpret_cast<const void*>(fn), "fn"));
    if (num_inputs > 0) TSB_RETURN_IF_ERROR(CheckArg(example_inputs, "example_inputs"));
    bool strict = true;
    const char* method_name = "forward";
    if (options != nullptr) {
      if (options->struct_size < sizeof(size_t)) {
        return absl::InvalidArgumentError("options->struct_size is not set");
      }
      if (options->struct_size >= offsetof(tsb_trace_options, strict) + sizeof(bool)) {
        strict = options->strict;
      }
      if (options->struct_size >= offsetof(tsb_trace_options, method_name) + sizeof(char*) &&
          options->method_name != nullptr) {
        method_name = options->method_name;
      }
    }
    return ModuleOut(out, [&] {
      return rt::Trace(fn, user_data, example_inputs, num_inputs, strict, method_name);
    });
  });
}

}  // extern "C"
