// Calls across the boundary: module methods, operators, plugin functions,
// object methods, tracing. Each converts its arguments (by the schema's
// types when it has one), releases the GIL for the call (TorchScript has
// none), and converts the result by its type.
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "calls.h"
#include "host.h"

namespace tsbpy {
namespace {

const char* const kModuleCapsule = "tsbridge.module";

// A number or bool alone, which the plan builds as int[2]'s element.
bool LoneScalar(PyObject* x) { return PyLong_Check(x) || PyFloat_Check(x); }

// A vectorcall argument array, each argument built by the callee's plan
// (tsbridge/host/call_plan.hpp); keyword names borrowed from kwnames.
size_t NumKeywords(PyObject* kwnames) {
  return kwnames ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0;
}
void ConvertArgs(const CallPlan& plan, PyObject* const* args, size_t nargs, PyObject* kwnames,
                 IdentityScope& scope, CallArguments& out) {
  // Lent: the caller holds the arguments until the call returns.
  const TensorsIn tensors{&scope, true};
  const size_t nkw = NumKeywords(kwnames);
  auto build = [&tensors](PyObject* value) {
    return [&tensors, value](const tsb::kit::PlannedArgument& a, tsb_any* v) {
      FromPython(value, a.TypeFor(LoneScalar(value)), tensors, v);
    };
  };
  for (size_t i = 0; i < nargs; ++i) out.AddPositional(plan, build(args[i]));
  for (size_t k = 0; k < nkw; ++k) {
    const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (name == nullptr) throw PyErrorSet{};
    out.AddKeyword(plan, name, build(args[nargs + k]));
  }
}

// Runs `call` without the GIL; raises its status; converts the result.
template <typename Call>
PyObject* Finish(Call&& call) {
  tsb::Value result;
  tsb_status* status;
  Py_BEGIN_ALLOW_THREADS
  status = call(result.out());
  Py_END_ALLOW_THREADS
  if (status != nullptr) {
    SetStatusError(status);
    throw PyErrorSet{};
  }
  return ToPython(result.get());
}

// ------------------------------------------------------------ callers

// tsbridge._native.Caller: one method, operator or plugin function, called
// through vectorcall with no Python frame in between. Its __dict__ holds
// what tsbridge/__init__.py sets (__name__, __qualname__, __doc__,
// __signature__), and it is a non-data descriptor returning itself, so
// inspect and pydoc treat it as a routine: help() shows the schema.
struct Caller {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* dict;
  PyObject* owner;  // keeps the module alive (a capsule), or NULL
  tsb_module* module;
  std::string name;  // method or "ns::op"
  size_t method;     // the method's index (tsb_module_call_method), or kByName
  bool is_function;  // a plugin function, not an operator
  CallPlan plan;
};

constexpr size_t kByName = static_cast<size_t>(-1);

// The index of a module's method `name` for tsb_module_call_method (ABI
// 1.9), or kByName: an older library, or no such method (the call by name
// then says so).
size_t MethodIndex(const tsb_module* module, const std::string& name) {
  if (!tsb::kit::LibraryHas(9)) return kByName;
  const std::optional<tsb::kit::FoundMethod> found = tsb::kit::FindMethod(module, name);
  return found ? found->index : kByName;
}

PyObject* CallCaller(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* c = reinterpret_cast<Caller*>(self);
  return Entry([&]() -> PyObject* {
    const size_t nargs = static_cast<size_t>(PyVectorcall_NARGS(nargsf));
    IdentityScope scope;
    CallArguments a(nargs, NumKeywords(kwnames));
    ConvertArgs(c->plan, args, nargs, kwnames, scope, a);
    const tsb_call_args call_args = a.view();
    if (c->module != nullptr) {
      return Finish([&](tsb_any* out) {
        return c->method != kByName ? tsb_module_call_method(c->module, c->method, &call_args, out)
                                    : tsb_module_call(c->module, c->name.c_str(), &call_args, out);
      });
    }
    if (c->is_function) {  // bound like an operator: keywords, defaults
      return Finish([&](tsb_any* out) {
        return tsb_function_call(c->name.c_str(), &call_args, out);
      });
    }
    return Finish([&](tsb_any* out) { return tsb_op_call(c->name.c_str(), &call_args, out); });
  });
}

void CallerDealloc(PyObject* self) {
  auto* c = reinterpret_cast<Caller*>(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(c->dict);
  Py_CLEAR(c->owner);
  c->name.~basic_string();
  c->plan.~CallPlan();
  Py_TYPE(self)->tp_free(self);
}

int CallerTraverse(PyObject* self, visitproc visit, void* arg) {
  auto* c = reinterpret_cast<Caller*>(self);
  Py_VISIT(c->dict);
  Py_VISIT(c->owner);
  return 0;
}

int CallerClear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<Caller*>(self)->dict);
  return 0;  // the owner stays: calls need the module until dealloc
}

PyObject* CallerGet(PyObject* self, PyObject*, PyObject*) { return Py_NewRef(self); }

PyObject* CallerRepr(PyObject* self) {
  return PyUnicode_FromFormat("<tsbridge caller %s>", reinterpret_cast<Caller*>(self)->name.c_str());
}

PyGetSetDef g_caller_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject g_caller_type = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "tsbridge._native.Caller";
  t.tp_basicsize = sizeof(Caller);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  t.tp_doc = "A TorchScript method, operator or plugin function, called across the boundary.";
  t.tp_dealloc = CallerDealloc;
  t.tp_free = PyObject_GC_Del;
  t.tp_traverse = CallerTraverse;
  t.tp_clear = CallerClear;
  t.tp_vectorcall_offset = offsetof(Caller, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_dictoffset = offsetof(Caller, dict);
  t.tp_descr_get = CallerGet;
  t.tp_repr = CallerRepr;
  t.tp_getset = g_caller_getset;
  return t;
}();

// A new Caller; `owner` is a new reference it takes (or NULL).
PyObject* MakeCaller(PyObject* owner, tsb_module* module, const std::string& name,
                     bool is_function, CallPlan plan) {
  if (g_caller_type.tp_dict == nullptr && PyType_Ready(&g_caller_type) < 0) {
    Py_XDECREF(owner);
    throw PyErrorSet{};
  }
  Caller* c = PyObject_GC_New(Caller, &g_caller_type);
  if (c == nullptr) {
    Py_XDECREF(owner);
    throw PyErrorSet{};
  }
  c->vectorcall = reinterpret_cast<vectorcallfunc>(CallCaller);
  c->dict = nullptr;
  c->owner = owner;
  c->module = module;
  new (&c->name) std::string(name);
  c->method = module != nullptr ? MethodIndex(module, name) : kByName;
  c->is_function = is_function;
  new (&c->plan) CallPlan(std::move(plan));
  PyObject_GC_Track(c);
  return reinterpret_cast<PyObject*>(c);
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
    tsb::Value out;
    FromPython(result.p, TSB_TYPE_ANY, out.out());
    if (out.get().flags & TSB_FLAG_BORROWED_STR) {  // must outlive `result`
      const char* s = out.get().u.borrowed_str;
      CheckStatus(tsb_str_new(s, std::strlen(s), out.out()));
    }
    tsb_any kept = out.release();
    KeepLent(&kept);  // must outlive `result` too
    *output = kept;
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

PyObject* MethodCaller(PyObject* module_capsule, const std::string& name, CallPlan plan) {
  tsb_module* module = ModuleFromCapsule(module_capsule);
  return MakeCaller(Py_NewRef(module_capsule), module, name, false, std::move(plan));
}

PyObject* OpCaller(const std::string& name) {
  return MakeCaller(nullptr, nullptr, name, false, CallPlan::ForOperator(name.c_str()));
}

PyObject* FunctionCaller(const std::string& name) {
  return MakeCaller(nullptr, nullptr, name, true, CallPlan::ForFunction(name.c_str()));
}

PyObject* CallObject(const tsb_any& object, const std::string& method, PyObject* const* args,
                     size_t nargs, PyObject* kwnames) {
  IdentityScope scope;
  CallArguments a(nargs, NumKeywords(kwnames));
  ConvertArgs(CallPlan(method), args, nargs, kwnames, scope, a);
  const tsb_call_args call_args = a.view();
  return Finish([&](tsb_any* out) {
    return tsb_object_call(&object, method.c_str(), &call_args, out);
  });
}

PyObject* GraphFor(tsb_module* module, const std::string& method, PyObject* const* args,
                   size_t nargs, PyObject* kwnames) {
  IdentityScope scope;
  CallArguments a(nargs, NumKeywords(kwnames));
  ConvertArgs(CallPlan::ForModuleMethod(module, method), args, nargs, kwnames, scope, a);
  const tsb_call_args call_args = a.view();
  char* text = nullptr;
  tsb_status* status;
  Py_BEGIN_ALLOW_THREADS
  status = tsb_module_get_graph_for(module, method.c_str(), &call_args, &text);
  Py_END_ALLOW_THREADS
  if (status != nullptr) {
    SetStatusError(status);
    throw PyErrorSet{};
  }
  PyObject* s = PyUnicode_FromString(text);
  tsb_string_free(text);
  return Check(s);
}

PyObject* Trace(PyObject* fn, PyObject* example_inputs, bool strict, const char* name) {
  // A tuple: the inputs as read, whatever an input's conversion runs.
  Ref seq(Check(PySequence_Tuple(example_inputs)));
  IdentityScope scope;
  scope.keep_outputs = true;  // fn must hand the tracer's tensors back
  OwnedVec inputs;
  const Py_ssize_t n = PyTuple_GET_SIZE(seq.p);
  inputs.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    tsb::kit::At([&] { return "example input " + std::to_string(i); },
                 [&] { FromPython(PyTuple_GET_ITEM(seq.p, i), TSB_TYPE_ANY, &inputs[i]); });
  }
  TraceState state{fn};
  tsb_module* module = nullptr;
  // The GIL stays held: the tracer calls back into Python on this thread.
  tsb_trace_options options{sizeof(tsb_trace_options), strict, name};
  tsb_status* status = tsb_module_trace_with(TraceCallback, &state, inputs.data(),
                                             inputs.size(), &options, &module);
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
