// The module-state functions of the host ABI: training mode, parameters,
// buffers, children, attributes, code and graphs
// (core/runtime/module_state.cc does the work).
#include <string>

#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/runtime/module_state.h"
#include "core/runtime/runtime.h"

using tsb::abi::CheckArg;
using tsb::abi::Guard;
namespace rt = tsb::runtime;

namespace {

// A malloc'ed copy of `text`, released by tsb_string_free.
absl::Status TextOut(const std::string& text, char** out) {
  *out = tsb::abi::MallocCopy(text.data(), text.size(), /*terminate=*/true);
  return absl::OkStatus();
}

template <typename Body>
tsb_status* WithModule(const tsb_module* module, Body body) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(module, "module"));
    return body(*module);
  });
}

tsb_status* Count(const tsb_module* module, rt::Slots slots, size_t* out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = rt::CountSlots(m, slots);
    return absl::OkStatus();
  });
}

tsb_status* GetTensor(const tsb_module* module, rt::Slots slots, size_t i, const char** name,
                      tsb_any* out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    return rt::GetTensorSlot(m, slots, i, name, out);
  });
}

}  // namespace

extern "C" {

tsb_status* tsb_module_set_training(tsb_module* module, bool training) {
  return WithModule(module, [&](const tsb_module&) -> absl::Status {
    return rt::SetTraining(*module, training);
  });
}

tsb_status* tsb_module_get_training(const tsb_module* module, bool* out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = rt::GetTraining(m);
    return absl::OkStatus();
  });
}

tsb_status* tsb_module_count_parameters(const tsb_module* module, size_t* out) {
  return Count(module, rt::Slots::kParameters, out);
}

tsb_status* tsb_module_get_parameter(const tsb_module* module, size_t i, const char** name,
                                     tsb_any* out) {
  return GetTensor(module, rt::Slots::kParameters, i, name, out);
}

tsb_status* tsb_module_count_buffers(const tsb_module* module, size_t* out) {
  return Count(module, rt::Slots::kBuffers, out);
}

tsb_status* tsb_module_get_buffer(const tsb_module* module, size_t i, const char** name,
                                  tsb_any* out) {
  return GetTensor(module, rt::Slots::kBuffers, i, name, out);
}

tsb_status* tsb_module_count_children(const tsb_module* module, size_t* out) {
  return Count(module, rt::Slots::kChildren, out);
}

tsb_status* tsb_module_get_child(const tsb_module* module, size_t i, const char** name,
                                 tsb_module** out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(*out, rt::GetChild(m, i, name));
    return absl::OkStatus();
  });
}

tsb_status* tsb_module_count_attributes(const tsb_module* module, size_t* out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = rt::CountAttributes(m);
    return absl::OkStatus();
  });
}

tsb_status* tsb_module_get_attribute_name(const tsb_module* module, size_t i, const char** out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(*out, rt::AttributeName(m, i));
    return absl::OkStatus();
  });
}

tsb_status* tsb_module_get_attribute(const tsb_module* module, const char* name, tsb_any* out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    return rt::GetAttribute(m, name, out);
  });
}

tsb_status* tsb_module_set_attribute(tsb_module* module, const char* name, const tsb_any* value) {
  return WithModule(module, [&](const tsb_module&) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
    TSB_RETURN_IF_ERROR(CheckArg(value, "value"));
    return rt::SetAttribute(*module, name, *value);
  });
}

tsb_status* tsb_module_get_state(const tsb_module* module, tsb_any* out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    return rt::GetState(m, out);
  });
}

tsb_status* tsb_module_set_state(tsb_module* module, const tsb_any* state, bool strict) {
  return WithModule(module, [&](const tsb_module&) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(state, "state"));
    return rt::SetState(*module, *state, strict);
  });
}

tsb_status* tsb_module_set_parameter(tsb_module* module, const char* name,
                                     const tsb_any* tensor, bool is_buffer) {
  return WithModule(module, [&](const tsb_module&) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
    TSB_RETURN_IF_ERROR(CheckArg(tensor, "tensor"));
    return rt::SetParameter(*module, name, *tensor, is_buffer);
  });
}

tsb_status* tsb_module_get_graph_for(tsb_module* module, const char* method,
                                     const tsb_call_args* args, char** out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(method, "method"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    tsb::call::HostArgs host;
    TSB_RETURN_IF_ERROR(tsb::abi::CallArgsArg(args, &host));
    TSB_ASSIGN_OR_RETURN(std::string graph, rt::GraphFor(m, method, host));
    return TextOut(graph, out);
  });
}

tsb_status* tsb_module_get_code(const tsb_module* module, char** out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(std::string code, rt::Code(m));
    return TextOut(code, out);
  });
}

tsb_status* tsb_module_get_graph(const tsb_module* module, const char* method, char** out) {
  return WithModule(module, [&](const tsb_module& m) -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(method, "method"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(std::string graph, rt::Graph(m, method));
    return TextOut(graph, out);
  });
}

}  // extern "C"
