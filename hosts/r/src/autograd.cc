// .Call entry points for autograd (requires_grad, grad, backward, grad
// mode) and module state (train/eval, parameters, buffers, children,
// attributes, code, graph): thin wrappers over the `autograd` and module
// state sections of tsbridge.h (docs/autograd.md). R/autograd.R and
// R/module.R give them their public names.
#include <string>
#include <vector>

#include "calls.h"
#include "entry.h"

using namespace tsbr;

namespace {

bool FlagArg(SEXP x, const char* what) {
  if (TYPEOF(x) != LGLSXP || Rf_xlength(x) != 1 || LOGICAL(x)[0] == NA_LOGICAL) {
    Fail(TSB_ERR_INVALID_ARGUMENT, std::string(what) + " must be TRUE or FALSE, got " + Describe(x));
  }
  return LOGICAL(x)[0] == TRUE;
}

// Tensors in an R list (tsb_tensor or arrays) as boundary values; `what`
// names the argument in errors ("outputs[1]").
void TensorsFromList(SEXP list, const char* what, bool none_ok, OwnedVec* out) {
  if (TYPEOF(list) != VECSXP) Fail(TSB_ERR_INVALID_ARGUMENT, std::string(what) + " must be a list, got " + Describe(list));
  out->resize(Len(list));
  for (size_t i = 0; i < out->size(); ++i) {
    SEXP item = VECTOR_ELT(list, static_cast<R_xlen_t>(i));
    At([&] { return what + tsb::kit::IndexSegment(i); }, [&] {
      if (none_ok && item == R_NilValue) {
        (*out)[i] = tsb_any_none();
      } else {
        FromR(item, TSB_TYPE_TENSOR, &(*out)[i]);
      }
    });
  }
}

// A named list of what a listing gives (children, parameters), each value
// made by make(value).
template <typename T, typename Make>
SEXP NamedListOf(std::vector<tsb::kit::Named<T>> items, Make&& make) {
  cpp11::writable::list out(static_cast<R_xlen_t>(items.size()));
  cpp11::writable::strings names(static_cast<R_xlen_t>(items.size()));
  for (size_t i = 0; i < items.size(); ++i) {
    names[static_cast<R_xlen_t>(i)] = items[i].name ? items[i].name : "";
    out[static_cast<R_xlen_t>(i)] = make(items[i].value);
  }
  out.names() = names;
  return out;
}

// The module's parameters or buffers (dotted names) as a named list.
SEXP NamedTensors(SEXP module, bool buffers) {
  return NamedListOf(tsb::kit::NamedTensors(ModuleOf(module), buffers),
                     [](const tsb::Value& t) { return ToR(t.get()); });
}

// t$grad, t$detach(): the tensor one ABI call gives for a tensor.
template <tsb_status* (*Get)(const tsb_any*, tsb_any*)>
SEXP TensorOf(SEXP t) {
  TSB_BEGIN
  tsb::Value v;
  CheckStatus(Get(&HandleOf(t, "tensor"), v.out()));
  return ToR(v.get());
  TSB_END
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------- autograd

SEXP tsbr_requires_grad_get(SEXP t) {
  TSB_BEGIN
  bool on = false;
  CheckStatus(tsb_tensor_get_requires_grad(&HandleOf(t, "tensor"), &on));
  return cpp11::as_sexp(on);
  TSB_END
}

SEXP tsbr_requires_grad_set(SEXP t, SEXP on) {
  TSB_BEGIN
  CheckStatus(tsb_tensor_set_requires_grad(&HandleOf(t, "tensor"), FlagArg(on, "requires_grad")));
  return t;
  TSB_END
}

// NULL before any backward.
SEXP tsbr_grad(SEXP t) { return TensorOf<tsb_tensor_get_grad>(t); }

SEXP tsbr_zero_grad(SEXP t) {
  TSB_BEGIN
  CheckStatus(tsb_tensor_zero_grad(&HandleOf(t, "tensor")));
  return R_NilValue;
  TSB_END
}

SEXP tsbr_detach(SEXP t) { return TensorOf<tsb_tensor_detach>(t); }

SEXP tsbr_backward(SEXP outputs, SEXP grad_outputs, SEXP retain_graph) {
  TSB_BEGIN
  OwnedVec outs, grads;
  TensorsFromList(outputs, "outputs", false, &outs);
  const bool retain = FlagArg(retain_graph, "retain_graph");
  if (grad_outputs != R_NilValue) {
    TensorsFromList(grad_outputs, "grad_outputs", true, &grads);
    if (grads.size() != outs.size()) {
      Fail(TSB_ERR_INVALID_ARGUMENT, "grad_outputs must have one item per output (" +
                                         std::to_string(outs.size()) + "), got " +
                                         std::to_string(grads.size()));
    }
  }
  CheckStatus(tsb_autograd_backward(outs.data(), outs.size(),
                                    grad_outputs == R_NilValue ? nullptr : grads.data(), retain));
  return R_NilValue;
  TSB_END
}

SEXP tsbr_grad_mode_set(SEXP enabled) {
  TSB_BEGIN
  bool was = true;
  CheckStatus(tsb_grad_mode_set(FlagArg(enabled, "enabled"), &was));
  return cpp11::as_sexp(was);
  TSB_END
}

SEXP tsbr_grad_mode_get() {
  TSB_BEGIN
  bool on = true;
  CheckStatus(tsb_grad_mode_get(&on));
  return cpp11::as_sexp(on);
  TSB_END
}

// ------------------------------------------------------------ module state

SEXP tsbr_module_training_set(SEXP module, SEXP on) {
  TSB_BEGIN
  CheckStatus(tsb_module_set_training(ModuleOf(module), FlagArg(on, "mode")));
  return R_NilValue;
  TSB_END
}

SEXP tsbr_module_training_get(SEXP module) {
  TSB_BEGIN
  bool on = false;
  CheckStatus(tsb_module_get_training(ModuleOf(module), &on));
  return cpp11::as_sexp(on);
  TSB_END
}

SEXP tsbr_module_parameters(SEXP module) {
  TSB_BEGIN
  return NamedTensors(module, false);
  TSB_END
}

SEXP tsbr_module_buffers(SEXP module) {
  TSB_BEGIN
  return NamedTensors(module, true);
  TSB_END
}

// The direct submodules as a named list of module pointers (R wraps each).
SEXP tsbr_module_children(SEXP module) {
  TSB_BEGIN
  return NamedListOf(tsb::kit::Children(ModuleOf(module)),
                     [](tsb::Module& child) { return WrapModule(child.release()); });
  TSB_END
}

SEXP tsbr_module_attribute_names(SEXP module) {
  TSB_BEGIN
  const std::vector<const char*> names = tsb::kit::AttributeNames(ModuleOf(module));
  return StringList(names.data(), names.size());
  TSB_END
}

SEXP tsbr_module_attribute_get(SEXP module, SEXP name) {
  TSB_BEGIN
  tsb::Value v;
  CheckStatus(tsb_module_get_attribute(ModuleOf(module), StringArg(name, "name").c_str(), v.out()));
  return ToR(v.get());
  TSB_END
}

// The R value is converted by the type of the attribute's current value
// (so 2 is an int for an int attribute); an attribute that is None now
// converts by the R type, and the core coerces to the declared type.
// m$register_parameter(name, t) / m$register_buffer(name, t).
SEXP tsbr_module_parameter_set(SEXP module, SEXP name, SEXP tensor, SEXP is_buffer) {
  TSB_BEGIN
  tsb_module* m = ModuleOf(module);
  const std::string n = StringArg(name, "name");
  const bool buffer = FlagArg(is_buffer, "is_buffer");
  tsb::Value v;
  At([&] { return (buffer ? "buffer '" : "parameter '") + n + "'"; },
     [&] { FromR(tensor, TSB_TYPE_TENSOR, v.out()); });
  CheckStatus(tsb_module_set_parameter(m, n.c_str(), &v.get(), buffer));
  return R_NilValue;
  TSB_END
}

// m$state_dict(): a named list of the module's own tensors.
SEXP tsbr_module_state_get(SEXP module) {
  TSB_BEGIN
  tsb::Value v;
  CheckStatus(tsb_module_get_state(ModuleOf(module), v.out()));
  return ToR(v.get());
  TSB_END
}

// m$load_state_dict(state, strict): a named list converted as Dict[str, Tensor].
SEXP tsbr_module_state_set(SEXP module, SEXP state, SEXP strict) {
  TSB_BEGIN
  tsb_module* m = ModuleOf(module);
  int32_t type = TSB_TYPE_ANY;
  CheckStatus(tsb_type_parse("Dict[str, Tensor]", &type));
  tsb::Value v;
  At([] { return tsb::kit::ArgumentSegment("state"); }, [&] { FromR(state, type, v.out()); });
  CheckStatus(tsb_module_set_state(m, &v.get(), FlagArg(strict, "strict")));
  return R_NilValue;
  TSB_END
}

SEXP tsbr_module_attribute_set(SEXP module, SEXP name, SEXP value) {
  TSB_BEGIN
  tsb_module* m = ModuleOf(module);
  const std::string attr = StringArg(name, "name");
  tsb::Value current, v;
  CheckStatus(tsb_module_get_attribute(m, attr.c_str(), current.out()));
  const int32_t type =
      current.get().type_index == TSB_TYPE_NONE ? TSB_TYPE_ANY : current.get().type_index;
  At([&] { return "attribute '" + attr + "'"; }, [&] { FromR(value, type, v.out()); });
  CheckStatus(tsb_module_set_attribute(m, attr.c_str(), &v.get()));
  return R_NilValue;
  TSB_END
}

SEXP tsbr_module_code(SEXP module) {
  TSB_BEGIN
  return StringOf([&](char** text) { return tsb_module_get_code(ModuleOf(module), text); });
  TSB_END
}

SEXP tsbr_module_graph(SEXP module, SEXP method) {
  TSB_BEGIN
  const std::string name = StringArg(method, "method");
  return StringOf(
      [&](char** text) { return tsb_module_get_graph(ModuleOf(module), name.c_str(), text); });
  TSB_END
}

}  // extern "C"
