// Calls across the boundary (calls.cc), for the module definition.
#ifndef TSBRIDGE_PYTHON_CALLS_H_
#define TSBRIDGE_PYTHON_CALLS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <vector>

#include "tsbridge/host/call_plan.hpp"
#include "tsbridge/tsbridge.h"

namespace tsbpy {

// How a callee's arguments are typed: its schemas' plan.
using tsb::kit::CallArguments;
using tsb::kit::CallPlan;

// A capsule owning a module (tsb_module_free when collected).
PyObject* ModuleCapsule(tsb_module* module);
tsb_module* ModuleFromCapsule(PyObject* capsule);
// A vectorcall callable for one method of a module (keeps it alive),
// converting by `plan`.
PyObject* MethodCaller(PyObject* module_capsule, const std::string& name, CallPlan plan);
// A callable for an operator ("aten::add"), converting by its overloads'
// plan; the core chooses the overload.
PyObject* OpCaller(const std::string& name);
// A callable for a plugin function, converting by its schema's plan.
PyObject* FunctionCaller(const std::string& name);
// object.method(*args, **kwargs) for a script or torchbind object.
PyObject* CallObject(const tsb_any& object, const std::string& method, PyObject* const* args,
                     size_t nargs, PyObject* kwnames);
// module.graph_for(*args, **kwargs) of one method: the graph as text.
PyObject* GraphFor(tsb_module* module, const std::string& method, PyObject* const* args,
                   size_t nargs, PyObject* kwnames);
// tsb_module_trace_with of a Python function: a module capsule.
PyObject* Trace(PyObject* fn, PyObject* example_inputs, bool strict, const char* name);

}  // namespace tsbpy

#endif  // TSBRIDGE_PYTHON_CALLS_H_
