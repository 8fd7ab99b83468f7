// Calls across the boundary (calls.cc), for the module definition.
#ifndef TSBRIDGE_PYTHON_CALLS_H_
#define TSBRIDGE_PYTHON_CALLS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <vector>

#include "tsbridge/tsbridge.h"

namespace tsbpy {

// A method's parameters, read once from its schema: arguments convert by
// these types (the positional ones by position, keywords by name).
struct Signature {
  std::vector<std::string> names;
  std::vector<int32_t> types;
  size_t num_positional = 0;  // parameters before the keyword-only ones
};

// A capsule owning a module (tsb_module_free when collected).
PyObject* ModuleCapsule(tsb_module* module);
tsb_module* ModuleFromCapsule(PyObject* capsule);
// A vectorcall callable for one method of a module (keeps it alive).
PyObject* MethodCaller(PyObject* module_capsule, const std::string& name, Signature sig);
// A callable for an operator ("aten::add"): the overload is chosen by the
// arguments' own types.
PyObject* OpCaller(const std::string& name);
// A callable for a plugin function, converting by its schema as a method does.
PyObject* FunctionCaller(const std::string& name, Signature sig);
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
