// Calls across the boundary: module methods, operators, plugin functions,
// object methods; tracing (calls.cc).
#ifndef TSBRIDGE_R_CALLS_H_
#define TSBRIDGE_R_CALLS_H_

#include <string>
#include <vector>

#include "host.h"

namespace tsbr {

struct Param {
  std::string name;
  int32_t type;
  bool kwarg_only;
};

// One callable, looked up once: its kind, name and parameters.
struct Caller {
  enum Kind { kMethod, kOperator, kFunction };
  Kind kind = kOperator;
  tsb_module* module = nullptr;  // kMethod; the caller's xptr keeps the module alive
  std::string name;
  std::vector<Param> params;  // the schema's (one overload), else empty
  // An operator with several overloads: the type a position or a name has
  // in every overload that has it (Any where they disagree).
  std::vector<int32_t> position_types;
  std::vector<std::pair<std::string, int32_t>> name_types;
  // Whether some overload takes a Tensor at a position or name where they
  // disagree: an R vector (not of length 1) there is a tensor, not a List.
  std::vector<bool> position_tensor;
  std::vector<std::string> tensor_names;
};

// The module behind an xptr made by WrapModule; one read back by readRDS()
// or a worker takes over the module its state unserialized into.
tsb_module* ModuleOf(SEXP xptr);
SEXP WrapModule(tsb_module* module);
// A caller's xptr keeps `owner` (the module's xptr, or NULL for an
// operator) and the callee's name, from which it revives after serialize().
SEXP WrapCaller(Caller* caller, SEXP owner);
Caller& CallerOf(SEXP xptr);

// serialize.cc: the module state a module's xptr carries as its tag.
SEXP NewModuleState(SEXP xptr);
// The ModuleBox a NULL xptr adopts from its unserialized state, or nullptr.
void* ReviveModule(SEXP xptr);
Caller* MethodCaller(tsb_module* module, const std::string& name);
Caller* OperatorCaller(const std::string& name);

// Calls with the values of a closure's formals, made from the schema, in
// their order (a pairlist; a value of class tsb_default is left to the
// callee's default). R evaluated them before the call: no promise is forced
// here, so no R error can jump through this frame.
SEXP CallWithValues(const Caller& c, SEXP values);
// Calls with an R list: unnamed items positional, named ones keywords.
SEXP CallWithList(const Caller& c, SEXP args);
// The graph a method's executor optimizes for a list of arguments (graph_for).
SEXP GraphForList(const Caller& c, SEXP args);
SEXP CallObject(const tsb_any& object, const std::string& method, SEXP args);
SEXP Trace(SEXP fn, SEXP inputs, bool strict, const std::string& method);

// The schema as an R list (name, overload_name, schema, arguments, returns).
SEXP SchemaToR(const tsb_schema_info& s);

}  // namespace tsbr

#endif  // TSBRIDGE_R_CALLS_H_
