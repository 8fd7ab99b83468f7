// Calls across the boundary: module methods, operators, plugin functions,
// object methods, tracing. Each converts its arguments (by the schema's
// types when it has one), releases the GIL for the call (TorchScript has
// none), and converts the result by its type.
#include <cstring>
#include <string>
#include <vector>

#include "calls.h"
#include "host.h"

namespace tsbpy {
namespace {

const char* const kModuleCapsule = "tsbridge.module";
const char* const kCallerCapsule = "tsbridge.caller";

// Converted positional and keyword arguments.
struct Args {
  OwnedVec positional;
  OwnedVec keyword;
  std::vector<const char*> names;
};

// Fills `out` from a vectorcall argument array. `sig` may be null (an
// operator: the overload is chosen by the arguments' own types).
void ConvertArgs(const Signature* sig, const std::string& callee, PyObject* const* args,
                 size_t nargs, PyObject* kwnames, Args& out) {
  out.positional.resize(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    const bool known = sig != nullptr && i < sig->num_positional;
    try {
      FromPython(args[i], known ? sig->types[i] : TSB_TYPE_ANY, &out.positional[i]);
    } catch (ConvertError& e) {
      Rethrow(e, callee + "(): argument " +
                     (known ? "'" + sig->names[i] + "'" : std::to_string(i)));
    }
  }
  const size_t nkw = kwnames ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0;
  out.keyword.resize(nkw);
  for (size_t k = 0; k < nkw; ++k) {
    const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (name == nullptr) throw PyErrorSet{};
    out.names.push_back(name);
    int32_t type = TSB_TYPE_ANY;
    if (sig != nullptr) {
      for (size_t p = 0; p < sig->names.size(); ++p) {
        if (sig->names[p] == name) type = sig->types[p];
      }
    }
    try {
      FromPython(args[nargs + k], type, &out.keyword[k]);
    } catch (ConvertError& e) {
      Rethrow(e, callee + "(): argument '" + name + "'");
    }
  }
}

// Runs `call` without the GIL; raises its status; converts the result.
template <typename Call>
PyObject* Finish(Call&& call) {
  Owned result;
  tsb_status* status;
  Py_BEGIN_ALLOW_THREADS
  status = call(result.out());
  Py_END_ALLOW_THREADS
  if (status != nullptr) {
    SetStatusError(status);
    throw PyErrorSet{};
  }
  return ToPython(result.v);
}

// ------------------------------------------------------------ callers

struct Caller {
  PyObject* owner = nullptr;  // keeps the module alive (a capsule), or NULL
  tsb_module* module = nullptr;
  std::string name;           // method or "ns::op"
  bool is_function = false;   // a plugin function, not an operator
  Signature sig;
  bool has_sig = false;
};

PyObject* CallCaller(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                     PyObject* kwnames) {
  auto* c = static_cast<Caller*>(PyCapsule_GetPointer(self, kCallerCapsule));
  if (c == nullptr) return nullptr;
  return Entry([&]() -> PyObject* {
    const size_t nargs = static_cast<size_t>(PyVectorcall_NARGS(nargsf));
    IdentityScope scope;
    Args a;
    ConvertArgs(c->has_sig ? &c->sig : nullptr, c->name, args, nargs, kwnames, a);
    const tsb_any* pos = a.positional.data();
    const tsb_any* kw = a.keyword.data();
    const char* const* names = a.names.data();
    const size_t nkw = a.names.size();
    if (c->module != nullptr) {
      return Finish([&](tsb_any* out) {
        return tsb_module_call(c->module, c->name.c_str(), ::tsb::CallArgs(pos, nargs, names, kw, nkw).get(), out);
      });
    }
    if (c->is_function) {  // bound like an operator: keywords, defaults
      const tsb_call_args call_args{sizeof(tsb_call_args), pos, nargs, names, kw, nkw};
      return Finish([&](tsb_any* out) {
        return tsb_function_call(c->name.c_str(), &call_args, out);
      });
    }
    return Finish([&](tsb_any* out) {
      return tsb_op_call(c->name.c_str(), ::tsb::CallArgs(pos, nargs, names, kw, nkw).get(), out);
    });
  });
}

PyMethodDef g_caller_def = {"call", reinterpret_cast<PyCFunction>(
                                        reinterpret_cast<void (*)()>(CallCaller)),
                            METH_FASTCALL | METH_KEYWORDS, "Calls across the boundary."};

void FreeCaller(PyObject* capsule) {
  auto* c = static_cast<Caller*>(PyCapsule_GetPointer(capsule, kCallerCapsule));
  if (c == nullptr) return PyErr_Clear();
  Py_XDECREF(c->owner);
  delete c;
}

PyObject* MakeCaller(Caller* c) {
  PyObject* capsule = PyCapsule_New(c, kCallerCapsule, FreeCaller);
  if (capsule == nullptr) {
    Py_XDECREF(c->owner);
    delete c;
    throw PyErrorSet{};
  }
  Ref cap(capsule);
  return Check(PyCFunction_New(&g_caller_def, cap.p));
}

void FreeModule(PyObject* capsule) {
  auto* m = static_cast<tsb_module*>(PyCapsule_GetPointer(capsule, kModuleCapsule));
  if (m == nullptr) return PyErr_Clear();
  tsb_module_free(m);
}

// ------------------------------------------------------------- tracing

struct TraceState {
  PyObject* fn;
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;  // its error
};

tsb_status* TraceCallback(void* user_data, const tsb_any* inputs, size_t n, tsb_any* output) {
  auto* state = static_cast<TraceState*>(user_data);  // the GIL is held
  try {
    Ref py_inputs(Check(PyTuple_New(static_cast<Py_ssize_t>(n))));
    for (size_t i = 0; i < n; ++i) {
      PyTuple_SET_ITEM(py_inputs.p, static_cast<Py_ssize_t>(i), ToPython(inputs[i]));
    }
    Ref result(Check(PyObject_Call(state->fn, py_inputs.p, nullptr)));
    Owned out;
    FromPython(result.p, TSB_TYPE_ANY, out.out());
    if (out.v.flags & TSB_FLAG_BORROWED_STR) {  // must outlive `result`
      const char* s = out.v.u.borrowed_str;
      CheckStatus(tsb_str_new(s, std::strlen(s), out.out()));
    }
    *output = out.release();
    return nullptr;
  } catch (const PyErrorSet&) {
    PyErr_Fetch(&state->type, &state->value, &state->traceback);
    return tsb_status_new(TSB_ERR_INVALID_ARGUMENT, "the traced Python function raised");
  } catch (const ConvertError& e) {
    return tsb_status_new_at(e.code, e.path.c_str(), e.detail.c_str());
  } catch (...) {
    return tsb_status_new(TSB_ERR_INTERNAL, "the traced Python function failed");
  }
}

}  // namespace

PyObject* ModuleCapsule(tsb_module* module) {
  PyObject* capsule = PyCapsule_New(module, kModuleCapsule, FreeModule);
  if (capsule == nullptr) {
    tsb_module_free(module);
    throw PyErrorSet{};
  }
  return capsule;
}

tsb_module* ModuleFromCapsule(PyObject* capsule) {
  auto* m = static_cast<tsb_module*>(PyCapsule_GetPointer(capsule, kModuleCapsule));
  if (m == nullptr) throw PyErrorSet{};
  return m;
}

PyObject* MethodCaller(PyObject* module_capsule, const std::string& name, Signature sig) {
  auto* c = new Caller;
  c->module = ModuleFromCapsule(module_capsule);
  c->owner = Py_NewRef(module_capsule);
  c->name = name;
  c->sig = std::move(sig);
  c->has_sig = true;
  return MakeCaller(c);
}

PyObject* OpCaller(const std::string& name) {
  auto* c = new Caller;
  c->name = name;
  return MakeCaller(c);
}

PyObject* FunctionCaller(const std::string& name, Signature sig) {
  auto* c = new Caller;
  c->name = name;
  c->is_function = true;
  c->sig = std::move(sig);
  c->has_sig = true;
  return MakeCaller(c);
}

PyObject* CallObject(const tsb_any& object, const std::string& method, PyObject* const* args,
                     size_t nargs, PyObject* kwnames) {
  IdentityScope scope;
  Args a;
  ConvertArgs(nullptr, method, args, nargs, kwnames, a);
  return Finish([&](tsb_any* out) {
    return tsb_object_call(&object, method.c_str(), ::tsb::CallArgs(a.positional.data(), nargs, a.names.data(), a.keyword.data(), a.names.size()).get(), out);
  });
}

PyObject* Trace(PyObject* fn, PyObject* example_inputs) {
  Ref seq(Check(PySequence_Fast(example_inputs, "example_inputs must be a sequence")));
  IdentityScope scope;
  scope.keep_outputs = true;  // fn must hand the tracer's tensors back
  OwnedVec inputs;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.p);
  inputs.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    try {
      FromPython(PySequence_Fast_GET_ITEM(seq.p, i), TSB_TYPE_ANY, &inputs[i]);
    } catch (ConvertError& e) {
      Rethrow(e, "example input " + std::to_string(i));
    }
  }
  TraceState state{fn};
  tsb_module* module = nullptr;
  // The GIL stays held: the tracer calls back into Python on this thread.
  tsb_status* status = tsb_module_trace(TraceCallback, &state, inputs.data(),
                                 inputs.size(), &module);
  if (state.type != nullptr) {  // the function's own exception, unchanged
    tsb_status_free(status);
    PyErr_Restore(state.type, state.value, state.traceback);
    throw PyErrorSet{};
  }
  if (status != nullptr) {
    SetStatusError(status);
    throw PyErrorSet{};
  }
  return ModuleCapsule(module);
}

}  // namespace tsbpy
