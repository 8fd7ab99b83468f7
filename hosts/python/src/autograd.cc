// Autograd and module state for Python (docs/python.md, docs/autograd.md).
//
// A tensor crossing as DLPack leaves its graph behind, so the ABI's
// autograd works on handles: tsbridge.Tensor holds a tensor handle (a
// tsbridge._types.Object subclass, so calls pass it as the handle itself).
// A call that receives one returns its results that require grad as
// tsbridge.Tensor too (tensors.cc), so a graph built through tsbridge
// stays connected up to tsbridge.autograd.backward.
#include <string>
#include <vector>

#include "calls.h"
#include "host.h"

namespace tsbpy {
namespace {

PyObject* g_tensor_class = nullptr;  // tsbridge._types.Tensor

// A tensor handle, or None, as Python: tsbridge.Tensor (takes the reference).
PyObject* Wrap(tsb_any handle) {
  if (handle.type_index == TSB_TYPE_NONE) return Py_NewRef(Py_None);
  return WrapHandle(g_tensor_class, handle);
}

// A Python value (tsbridge.Tensor, torch.Tensor, DLPack capsule) as a
// tensor handle: a new reference.
void TensorHandle(PyObject* obj, tsb_any* out, const std::string& where) {
  tsb::kit::At([&] { return where; }, [&] {
    FromPython(obj, TSB_TYPE_TENSOR, out);
    if (out->type_index != TSB_TYPE_TENSOR) {
      tsb_any_release(out);
      tsb::kit::Fail(TSB_ERR_TYPE, "expected a tensor");
    }
    KeepLent(out);  // a tsbridge.Tensor outlives `obj`
  });
}

tsb_module* ModuleArg(PyObject* capsule) { return ModuleFromCapsule(capsule); }

// --------------------------------------------------------------- tensors

PyObject* TensorNew(PyObject*, PyObject* obj) {
  return Entry([&]() -> PyObject* {
    tsb::Value h;
    TensorHandle(obj, h.out(), "data");
    return Wrap(h.release());
  });
}

PyObject* TensorTorch(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* { return TensorToPython(HeldValue(capsule)); });
}

// A flag (requires_grad, training, grad mode) read by get(&on): True or False.
template <typename Get>
PyObject* GetFlag(Get&& get) {
  return Entry([&]() -> PyObject* {
    bool on = false;
    Raise(get(&on));
    return Py_NewRef(on ? Py_True : Py_False);
  });
}

// f(x, on): set(x, on) for the flag of a tensor or a module.
template <typename Set>
PyObject* SetFlag(PyObject* args, Set&& set) {
  PyObject* capsule;
  int on;
  if (!PyArg_ParseTuple(args, "Op", &capsule, &on)) return nullptr;
  return Entry([&]() -> PyObject* {
    Raise(set(capsule, on != 0));
    return Py_NewRef(Py_None);
  });
}

PyObject* RequiresGrad(PyObject*, PyObject* capsule) {
  return GetFlag([&](bool* on) { return tsb_tensor_get_requires_grad(&HeldValue(capsule), on); });
}

PyObject* SetRequiresGrad(PyObject*, PyObject* args) {
  return SetFlag(args, [](PyObject* capsule, bool on) {
    return tsb_tensor_set_requires_grad(&HeldValue(capsule), on);
  });
}

// grad(t), detach(t): the tensor one ABI call gives for a tensor.
template <tsb_status* (*Get)(const tsb_any*, tsb_any*)>
PyObject* TensorOf(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    tsb::Value v;
    Raise(Get(&HeldValue(capsule), v.out()));
    return Wrap(v.release());
  });
}

PyObject* ZeroGrad(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    Raise(tsb_tensor_zero_grad(&HeldValue(capsule)));
    return Py_NewRef(Py_None);
  });
}

// backward(outputs, grad_outputs or None, retain_graph)
PyObject* Backward(PyObject*, PyObject* args) {
  PyObject *outputs, *grads;
  int retain;
  if (!PyArg_ParseTuple(args, "OOp", &outputs, &grads, &retain)) return nullptr;
  return Entry([&]() -> PyObject* {
    Ref outs(Check(PySequence_Fast(outputs, "outputs must be a sequence of tensors")));
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(outs.p);
    OwnedVec handles(static_cast<size_t>(n)), grad_handles;
    for (Py_ssize_t i = 0; i < n; ++i) {
      TensorHandle(PySequence_Fast_GET_ITEM(outs.p, i), &handles[i],
                   "outputs" + tsb::kit::IndexSegment(i));
    }
    if (grads != Py_None) {
      Ref gs(Check(PySequence_Fast(grads, "grad_outputs must be a sequence or None")));
      if (PySequence_Fast_GET_SIZE(gs.p) != n) {
        throw ConvertError{TSB_ERR_INVALID_ARGUMENT, "grad_outputs",
                           "expected " + std::to_string(n) + " gradients, got " +
                               std::to_string(PySequence_Fast_GET_SIZE(gs.p))};
      }
      grad_handles.resize(static_cast<size_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* g = PySequence_Fast_GET_ITEM(gs.p, i);
        if (g == Py_None) {
          grad_handles[i] = tsb_any_none();
        } else {
          TensorHandle(g, &grad_handles[i], "grad_outputs" + tsb::kit::IndexSegment(i));
        }
      }
    }
    // LibTorch's engine refuses to run with the GIL held (torch_python
    // checks it); nothing here touches Python until it returns.
    tsb_status* status = nullptr;
    const tsb_any* grad_data = grads == Py_None ? nullptr : grad_handles.data();
    Py_BEGIN_ALLOW_THREADS
    status = tsb_autograd_backward(handles.data(), handles.size(), grad_data, retain != 0);
    Py_END_ALLOW_THREADS
    Raise(status);
    return Py_NewRef(Py_None);
  });
}

PyObject* GradModeSet(PyObject*, PyObject* arg) {
  return Entry([&]() -> PyObject* {
    bool previous = true;
    Raise(tsb_grad_mode_set(PyObject_IsTrue(arg) == 1, &previous));
    return Py_NewRef(previous ? Py_True : Py_False);
  });
}

PyObject* GradModeGet(PyObject*, PyObject*) { return GetFlag(tsb_grad_mode_get); }

// ---------------------------------------------------------------- modules

PyObject* SetTraining(PyObject*, PyObject* args) {
  return SetFlag(args, [](PyObject* capsule, bool on) {
    return tsb_module_set_training(ModuleArg(capsule), on);
  });
}

PyObject* GetTraining(PyObject*, PyObject* capsule) {
  return GetFlag([&](bool* on) { return tsb_module_get_training(ModuleArg(capsule), on); });
}

// [(name, value)] of what a listing gives (parameters, children), each
// value made by make(value) as a new reference.
template <typename T, typename Make>
PyObject* NamedPairs(std::vector<tsb::kit::Named<T>> items, Make&& make) {
  Ref list(Check(PyList_New(static_cast<Py_ssize_t>(items.size()))));
  for (size_t i = 0; i < items.size(); ++i) {
    Ref made(make(items[i].value));
    PyList_SET_ITEM(list.p, i, Check(Py_BuildValue("(NO)", Text(items[i].name), made.p)));
  }
  return list.release();
}

// [(name, tsbridge.Tensor)] of the parameters (buffers=False) or buffers.
PyObject* NamedTensors(PyObject*, PyObject* args) {
  PyObject* capsule;
  int buffers;
  if (!PyArg_ParseTuple(args, "Op", &capsule, &buffers)) return nullptr;
  return Entry([&]() -> PyObject* {
    return NamedPairs(tsb::kit::NamedTensors(ModuleArg(capsule), buffers != 0),
                      [](tsb::Value& t) { return Wrap(t.release()); });
  });
}

// [(name, module capsule)] of the direct submodules.
PyObject* Children(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    return NamedPairs(tsb::kit::Children(ModuleArg(capsule)),
                      [](tsb::Module& child) { return ModuleCapsule(child.release()); });
  });
}

PyObject* AttributeNames(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    const std::vector<const char*> names = tsb::kit::AttributeNames(ModuleArg(capsule));
    return StringList(names.data(), names.size());
  });
}

PyObject* GetAttribute(PyObject*, PyObject* args) {
  PyObject* capsule;
  const char* name;
  if (!PyArg_ParseTuple(args, "Os", &capsule, &name)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb::Value v;
    Raise(tsb_module_get_attribute(ModuleArg(capsule), name, v.out()));
    return ToPython(v.get());
  });
}

PyObject* SetAttribute(PyObject*, PyObject* args) {
  PyObject *capsule, *value;
  const char* name;
  if (!PyArg_ParseTuple(args, "OsO", &capsule, &name, &value)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb::Value v;
    tsb::kit::At([&] { return std::string("attribute '") + name + "'"; },
                 [&] { FromPython(value, TSB_TYPE_ANY, v.out()); });
    Raise(tsb_module_set_attribute(ModuleArg(capsule), name, &v.get()));
    return Py_NewRef(Py_None);
  });
}

// register_parameter / register_buffer: module_set_parameter(m, name, t, is_buffer)
PyObject* SetParameter(PyObject*, PyObject* args) {
  PyObject *capsule, *tensor;
  const char* name;
  int is_buffer;
  if (!PyArg_ParseTuple(args, "OsOp", &capsule, &name, &tensor, &is_buffer)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb::Value v;
    tsb::kit::At([&] { return std::string(is_buffer ? "buffer '" : "parameter '") + name + "'"; },
                 [&] { FromPython(tensor, TSB_TYPE_TENSOR, v.out()); });
    Raise(tsb_module_set_parameter(ModuleArg(capsule), name, &v.get(), is_buffer != 0));
    return Py_NewRef(Py_None);
  });
}

// state_dict(): {name: tensor}, the module's own tensors.
PyObject* GetState(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    tsb::Value v;
    Raise(tsb_module_get_state(ModuleArg(capsule), v.out()));
    return ToPython(v.get());
  });
}

// load_state_dict(state, strict): copied in place by the core.
PyObject* SetState(PyObject*, PyObject* args) {
  PyObject *capsule, *state;
  int strict;
  if (!PyArg_ParseTuple(args, "OOp", &capsule, &state, &strict)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb::Value v;
    tsb::kit::At([] { return tsb::kit::ArgumentSegment("state"); },
                 [&] { FromPython(state, TSB_TYPE_ANY, v.out()); });
    Raise(tsb_module_set_state(ModuleArg(capsule), &v.get(), strict != 0));
    return Py_NewRef(Py_None);
  });
}

PyObject* Code(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    return TextOf([&](char** text) { return tsb_module_get_code(ModuleArg(capsule), text); });
  });
}

PyObject* Graph(PyObject*, PyObject* args) {
  PyObject* capsule;
  const char* method;
  if (!PyArg_ParseTuple(args, "Os", &capsule, &method)) return nullptr;
  return Entry([&]() -> PyObject* {
    return TextOf([&](char** text) { return tsb_module_get_graph(ModuleArg(capsule), method, text); });
  });
}

}  // namespace

void InitAutograd(PyObject* types_module) {
  g_tensor_class = Check(PyObject_GetAttrString(types_module, "Tensor"));
}

PyObject* GraphTensorToPython(const tsb_any& v) {
  bool requires_grad = false;
  tsb_status* s = tsb_tensor_get_requires_grad(&v, &requires_grad);
  if (s != nullptr || !requires_grad) {
    tsb_status_free(s);
    return nullptr;
  }
  tsb_any kept;
  CheckStatus(tsb_any_keep(&v, &kept));  // `v` may be a borrowed entry
  return Wrap(kept);
}

PyMethodDef kAutogradFunctions[] = {
    {"tensor_new", TensorNew, METH_O, "tensor_new(data) -> tsbridge.Tensor"},
    {"tensor_torch", TensorTorch, METH_O, "tensor_torch(value) -> torch.Tensor"},
    {"requires_grad", RequiresGrad, METH_O, "requires_grad(value) -> bool"},
    {"set_requires_grad", SetRequiresGrad, METH_VARARGS, "set_requires_grad(value, bool)"},
    {"grad", TensorOf<tsb_tensor_get_grad>, METH_O, "grad(value) -> tsbridge.Tensor or None"},
    {"zero_grad", ZeroGrad, METH_O, "zero_grad(value)"},
    {"detach", TensorOf<tsb_tensor_detach>, METH_O, "detach(value) -> tsbridge.Tensor"},
    {"backward", Backward, METH_VARARGS, "backward(outputs, grad_outputs, retain_graph)"},
    {"grad_mode_set", GradModeSet, METH_O, "grad_mode_set(enabled) -> previous"},
    {"grad_mode_get", GradModeGet, METH_NOARGS, "grad_mode_get() -> bool"},
    {"module_set_training", SetTraining, METH_VARARGS, "module_set_training(module, bool)"},
    {"module_get_training", GetTraining, METH_O, "module_get_training(module) -> bool"},
    {"module_named_tensors", NamedTensors, METH_VARARGS,
     "module_named_tensors(module, buffers) -> [(name, tsbridge.Tensor)]"},
    {"module_children", Children, METH_O, "module_children(module) -> [(name, capsule)]"},
    {"module_attribute_names", AttributeNames, METH_O, "module_attribute_names(module)"},
    {"module_get_attribute", GetAttribute, METH_VARARGS, "module_get_attribute(module, name)"},
    {"module_set_attribute", SetAttribute, METH_VARARGS,
     "module_set_attribute(module, name, value)"},
    {"module_set_parameter", SetParameter, METH_VARARGS,
     "module_set_parameter(module, name, tensor, is_buffer)"},
    {"module_get_state", GetState, METH_O, "module_get_state(module) -> {name: tensor}"},
    {"module_set_state", SetState, METH_VARARGS, "module_set_state(module, state, strict)"},
    {"module_code", Code, METH_O, "module_code(module) -> str"},
    {"module_graph", Graph, METH_VARARGS, "module_graph(module, method) -> str"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace tsbpy
