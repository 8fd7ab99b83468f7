// Calls across the boundary: module methods, operators, plugin functions,
// object methods; tracing (calls.cc).
#ifndef TSBRIDGE_R_CALLS_H_
#define TSBRIDGE_R_CALLS_H_

#include <string>
#include <vector>

#include "host.h"
#include "tsbridge/host/call_plan.hpp"

namespace tsbr {

// One callable, looked up once: its kind, and how its arguments are typed
// (its schemas' plan, tsbridge/host/call_plan.hpp). A method is called by
// its index (tsb_module_call_method): no lookup by name per call.
struct Caller {
  enum Kind { kMethod, kOperator, kFunction };
  Kind kind = kOperator;
  tsb_module* module = nullptr;  // kMethod; the caller's xptr keeps the module alive
  size_t method_index = 0;       // kMethod: in tsb_module_get_method's order
  std::string name;
  tsb::kit::CallPlan plan;
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
