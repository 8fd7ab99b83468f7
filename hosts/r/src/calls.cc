// Calls across the boundary. Arguments convert by the callee's call plan
// (tsbridge/host/call_plan.hpp): a schema's types for a method, a plugin
// function or an operator with one overload; for several overloads, the
// type they agree on, else the R type (a plain vector a Tensor where some
// overload takes one), and the ABI chooses the overload.
#include <csetjmp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "calls.h"
#include "entry.h"

namespace tsbr {
namespace {

struct ModuleBox {
  tsb_module* module;
  ~ModuleBox() { tsb_module_free(module); }
};

void FinalizeModule(SEXP xptr) {
  auto* m = static_cast<ModuleBox*>(R_ExternalPtrAddr(xptr));
  if (m == nullptr) return;
  R_ClearExternalPtr(xptr);
  delete m;
}

void FinalizeCaller(SEXP xptr) {
  auto* c = static_cast<Caller*>(R_ExternalPtrAddr(xptr));
  if (c == nullptr) return;
  R_ClearExternalPtr(xptr);
  delete c;
}

// A call's converted arguments (tsbridge/host/call_plan.hpp), at most
// `capacity` of each. Keyword names are borrowed: the plan's (which
// outlives the call) or R's CHARSXPs of the argument list's names (alive
// while the call runs).
using Args = tsb::kit::CallArguments;

void Convert(SEXP value, int32_t type, const std::string& where, tsb_any* out) {
  At([&] { return where; }, [&] { FromR(value, type, out); });
}

bool PlainVector(SEXP x) {
  return Rf_isVectorAtomic(x) && !Rf_isObject(x) && Rf_xlength(x) != 1;
}

// A number or logical alone, which the plan builds as int[2]'s element.
bool LoneScalar(SEXP x) {
  return (TYPEOF(x) == INTSXP || TYPEOF(x) == REALSXP || TYPEOF(x) == LGLSXP) &&
         Rf_xlength(x) == 1 && !Rf_isObject(x) && Rf_getAttrib(x, R_DimSymbol) == R_NilValue;
}

// The type `value` is built by for argument `a` of a plan: where overloads
// disagree and one takes a Tensor, a plain R vector is one.
int32_t TypeFor(const tsb::kit::PlannedArgument& a, SEXP value) {
  if (a.type == TSB_TYPE_ANY && a.tensor_possible && PlainVector(value)) return TSB_TYPE_TENSOR;
  return a.TypeFor(LoneScalar(value));
}

// Argument `value` by the plan, positional (at the next position) or by
// name; the path is built only when the conversion fails.
void ConvertPositional(const tsb::kit::CallPlan& plan, SEXP value, Args& a) {
  a.AddPositional(plan, [&](const tsb::kit::PlannedArgument& p, tsb_any* out) {
    FromR(value, TypeFor(p, value), out);
  });
}
void ConvertKeyword(const tsb::kit::CallPlan& plan, const char* name, SEXP value, Args& a) {
  a.AddKeyword(plan, name, [&](const tsb::kit::PlannedArgument& p, tsb_any* out) {
    FromR(value, TypeFor(p, value), out);
  });
}

SEXP Finish(const Caller& c, Args& a) {
  tsb::Value result;
  const tsb_call_args args = a.view();
  switch (c.kind) {
    case Caller::kMethod:
      CheckStatus(tsb_module_call_method(c.module, c.method_index, &args, result.out()));
      break;
    case Caller::kFunction:
      CheckStatus(tsb_function_call(c.name.c_str(), &args, result.out()));
      break;
    case Caller::kOperator:
      CheckStatus(tsb_op_call(c.name.c_str(), &args, result.out()));
      break;
  }
  return ToR(result.get());
}

bool IsDefault(SEXP x) { return Rf_isObject(x) && Rf_inherits(x, "tsb_default"); }

// ---------------------------------------------------------------- trace

struct TraceState {
  SEXP fn;
  SEXP token;            // R_MakeUnwindCont, for the function's R errors
  bool jumped = false;   // the R function raised (or was interrupted)
  SEXP cpp11_token = R_NilValue;
};

struct EvalData {
  SEXP call;
  SEXP env;
};

SEXP DoEval(void* data) {
  auto* d = static_cast<EvalData*>(data);
  return Rf_eval(d->call, d->env);
}

void JumpBack(void* jmpbuf, Rboolean jump) {
  if (jump == TRUE) std::longjmp(*static_cast<std::jmp_buf*>(jmpbuf), 1);
}

// Evaluates `call`; an R error (or any R jump) lands back here and is kept
// in `token` to be continued later, outside tsbridge's frames. Only POD
// locals live in this frame (setjmp).
SEXP EvalKeepingJumps(SEXP call, SEXP token, bool* jumped) {
  std::jmp_buf jmpbuf;
  EvalData data{call, R_GlobalEnv};
  if (setjmp(jmpbuf) != 0) {
    *jumped = true;
    return R_NilValue;
  }
  SEXP result = R_UnwindProtect(DoEval, &data, JumpBack, &jmpbuf, token);
  return result;
}

tsb_status* TraceCallback(void* user_data, const tsb_any* inputs, size_t n, tsb_any* output) {
  auto* state = static_cast<TraceState*>(user_data);
  try {
    cpp11::sexp args(R_NilValue);
    for (size_t i = n; i > 0; --i) {
      cpp11::sexp item(ToR(inputs[i - 1]));
      args = cpp11::safe[Rf_cons](item, args);
    }
    cpp11::sexp call(cpp11::safe[Rf_lcons](state->fn, args));
    cpp11::sexp result(EvalKeepingJumps(call, state->token, &state->jumped));
    if (state->jumped) {  // the token holds the jump: continued by Trace()
      return tsb_status_new(TSB_ERR_INVALID_ARGUMENT, "the traced R function raised an error");
    }
    SETCAR(state->token, R_NilValue);  // R_UnwindProtect kept the result there
    tsb::Value out;
    At([] { return std::string("the traced function's result"); },
       [&] { FromR(result, TSB_TYPE_ANY, out.out()); });
    if (out.get().flags & TSB_FLAG_BORROWED_STR) {  // must outlive this callback
      const char* s = out.get().u.borrowed_str;
      CheckStatus(tsb_str_new(s, std::strlen(s), out.out()));
    }
    *output = out.release();
    return nullptr;
  } catch (const HostError& e) {
    return tsb_status_new_at(e.code, e.path.c_str(), e.detail.c_str());
  } catch (cpp11::unwind_exception& e) {
    state->cpp11_token = e.token;
    return tsb_status_new(TSB_ERR_INTERNAL, "an R error while converting the trace's values");
  } catch (...) {
    return tsb_status_new(TSB_ERR_INTERNAL, "the traced R function failed");
  }
}

}  // namespace

tsb_module* ModuleOf(SEXP xptr) {
  if (TYPEOF(xptr) != EXTPTRSXP) Fail(TSB_ERR_INVALID_ARGUMENT, "expected a tsbridge module, got " + Describe(xptr));
  auto* m = static_cast<ModuleBox*>(R_ExternalPtrAddr(xptr));
  if (m == nullptr && (m = static_cast<ModuleBox*>(ReviveModule(xptr))) != nullptr) {
    R_RegisterCFinalizerEx(xptr, FinalizeModule, TRUE);
  }
  if (m == nullptr) {
    Fail(TSB_ERR_INVALID_ARGUMENT,
         "this module is no longer valid (its process ended, and it was not serialized with it)");
  }
  return m->module;
}

SEXP WrapModule(tsb_module* module) {
  auto* box = new ModuleBox{module};
  SEXP xptr = PROTECT(R_MakeExternalPtr(box, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xptr, FinalizeModule, TRUE);
  R_SetExternalPtrTag(xptr, NewModuleState(xptr));
  UNPROTECT(1);
  return xptr;
}

SEXP WrapCaller(Caller* caller, SEXP owner) {
  SEXP name = PROTECT(Rf_mkString(caller->name.c_str()));
  SEXP xptr = PROTECT(R_MakeExternalPtr(caller, name, owner));
  R_RegisterCFinalizerEx(xptr, FinalizeCaller, TRUE);
  UNPROTECT(2);
  return xptr;
}

Caller& CallerOf(SEXP xptr) {
  if (TYPEOF(xptr) != EXTPTRSXP) {
    Fail(TSB_ERR_INVALID_ARGUMENT, "expected a tsbridge function handle, got " + Describe(xptr));
  }
  if (auto* c = static_cast<Caller*>(R_ExternalPtrAddr(xptr))) return *c;
  // Read back by unserialize(): look the callee up again by its name.
  SEXP name = R_ExternalPtrTag(xptr);
  if (TYPEOF(name) != STRSXP || Rf_length(name) != 1) {
    Fail(TSB_ERR_INVALID_ARGUMENT, "this function's tsbridge handle is no longer valid");
  }
  SEXP owner = R_ExternalPtrProtected(xptr);
  Caller* c = TYPEOF(owner) == EXTPTRSXP
                  ? MethodCaller(ModuleOf(owner), CHAR(STRING_ELT(name, 0)))
                  : OperatorCaller(CHAR(STRING_ELT(name, 0)));
  R_SetExternalPtrAddr(xptr, c);
  R_RegisterCFinalizerEx(xptr, FinalizeCaller, TRUE);
  return *c;
}

Caller* MethodCaller(tsb_module* module, const std::string& name) {
  if (const auto found = tsb::kit::FindMethod(module, name)) {
    auto* c = new Caller;
    c->kind = Caller::kMethod;
    c->module = module;
    c->method_index = found->index;
    c->name = name;
    c->plan = tsb::kit::CallPlan::ForMethod(found->info);
    return c;
  }
  Fail(TSB_ERR_NOT_FOUND, "the module has no method '" + name + "'");
}

Caller* OperatorCaller(const std::string& name) {
  size_t n = 0;
  tsb_status* s = tsb_op_count_overloads(name.c_str(), &n);
  if (s != nullptr && tsb_status_get_code(s) != TSB_ERR_NOT_FOUND) CheckStatus(s);  // a reason
  if (s != nullptr) {
    tsb_status_free(s);
    n = 0;
  }
  auto c = std::make_unique<Caller>();
  c->name = name;
  c->kind = n == 0 ? Caller::kFunction : Caller::kOperator;  // none: a plugin function?
  c->plan = n == 0 ? tsb::kit::CallPlan::ForFunction(name.c_str())
                   : tsb::kit::CallPlan::ForOperator(name.c_str());
  return c.release();
}

SEXP CallWithValues(const Caller& c, SEXP values) {
  const std::vector<tsb::kit::PlannedArgument>& params = c.plan.arguments();
  if (Rf_length(values) != static_cast<int>(params.size())) {
    Fail(TSB_ERR_INVALID_ARGUMENT, c.name + "(): expected " + std::to_string(params.size()) +
                                       " argument values, got " + std::to_string(Rf_length(values)));
  }
  Args a(params.size(), params.size());
  bool keywords = false;
  for (const tsb::kit::PlannedArgument& p : params) {
    SEXP value = CAR(values);
    values = CDR(values);
    if (IsDefault(value)) {  // left to the schema's default
      keywords = true;
      continue;
    }
    if (!keywords && !p.kwarg_only) {
      ConvertPositional(c.plan, value, a);
    } else {
      keywords = true;
      ConvertKeyword(c.plan, p.name.c_str(), value, a);
    }
  }
  return Finish(c, a);
}

namespace {

// Converts a list of arguments (names make keywords) by `plan`.
void ListArgs(const tsb::kit::CallPlan& plan, SEXP args, Args& a) {
  if (TYPEOF(args) != VECSXP) Fail(TSB_ERR_INVALID_ARGUMENT, "arguments must be a list");
  SEXP names = Rf_getAttrib(args, R_NamesSymbol);
  const R_xlen_t n = Rf_xlength(args);
  for (R_xlen_t i = 0; i < n; ++i) {
    SEXP value = VECTOR_ELT(args, i);
    const char* name = names == R_NilValue ? "" : Utf8Chars(STRING_ELT(names, i));
    if (name[0] != '\0') {
      ConvertKeyword(plan, name, value, a);
    } else if (a.num_keyword() > 0) {
      Fail(TSB_ERR_INVALID_ARGUMENT, plan.callee() + "(): positional argument " +
                                         std::to_string(i + 1) + " after a named one");
    } else {
      ConvertPositional(plan, value, a);
    }
  }
}

}  // namespace

// The most arguments a list may hold.
size_t Capacity(SEXP args) { return TYPEOF(args) == VECSXP ? Len(args) : 0; }

SEXP CallWithList(const Caller& c, SEXP args) {
  Args a(Capacity(args), Capacity(args));
  ListArgs(c.plan, args, a);
  return Finish(c, a);
}

SEXP GraphForList(const Caller& c, SEXP args) {
  if (c.kind != Caller::kMethod) Fail(TSB_ERR_INVALID_ARGUMENT, "graph_for needs a method");
  Args a(Capacity(args), Capacity(args));
  ListArgs(c.plan, args, a);
  const tsb_call_args call = a.view();
  char* text = nullptr;
  CheckStatus(tsb_module_get_graph_for(c.module, c.name.c_str(), &call, &text));
  std::unique_ptr<char, decltype(&tsb_string_free)> owned(text, &tsb_string_free);
  return cpp11::as_sexp(std::string(text));
}

SEXP CallObject(const tsb_any& object, const std::string& method, SEXP args) {
  Args a(Capacity(args), Capacity(args));
  ListArgs(tsb::kit::CallPlan(method), args, a);  // no schema: each by its R type
  tsb::Value result;
  const tsb_call_args call = a.view();
  CheckStatus(tsb_object_call(&object, method.c_str(), &call, result.out()));
  return ToR(result.get());
}

SEXP Trace(SEXP fn, SEXP inputs, bool strict, const std::string& method) {
  if (TYPEOF(fn) != CLOSXP && TYPEOF(fn) != BUILTINSXP && TYPEOF(fn) != SPECIALSXP) {
    Fail(TSB_ERR_INVALID_ARGUMENT, "tsb_trace() needs a function, got " + Describe(fn));
  }
  if (TYPEOF(inputs) != VECSXP) {
    Fail(TSB_ERR_INVALID_ARGUMENT, "example_inputs must be a list, got " + Describe(inputs));
  }
  OwnedVec items(Len(inputs));
  for (size_t i = 0; i < items.size(); ++i) {
    Convert(VECTOR_ELT(inputs, static_cast<R_xlen_t>(i)), TSB_TYPE_ANY,
            "example input " + std::to_string(i), &items[i]);
  }
  cpp11::sexp token(cpp11::safe[R_MakeUnwindCont]());
  TraceState state{fn, token};
  tsb_module* module = nullptr;
  tsb_trace_options options{sizeof(tsb_trace_options), strict, method.c_str()};
  tsb_status* status = tsb_module_trace_with(TraceCallback, &state, items.data(), items.size(),
                                             &options, &module);
  if (state.jumped) {  // the function's own R error, continued unchanged
    tsb_status_free(status);
    throw cpp11::unwind_exception(token);
  }
  if (state.cpp11_token != R_NilValue) {
    tsb_status_free(status);
    throw cpp11::unwind_exception(state.cpp11_token);
  }
  CheckStatus(status);
  return WrapModule(module);
}

// -------------------------------------------------------------- schemas

namespace {

SEXP Text(const char* s) { return Utf8(s ? s : "", s ? std::strlen(s) : 0); }

SEXP DefaultOf(const tsb_argument_info& a, bool* ok) {
  *ok = false;
  if (!a.has_default || a.default_json == nullptr || a.type_index == TSB_TYPE_INVALID) {
    return R_NilValue;
  }
  tsb::Value v;
  tsb_status* s = tsb_json_read(a.default_json, a.type_index, v.out());
  if (s != nullptr) {
    tsb_status_free(s);
    return R_NilValue;
  }
  try {
    SEXP r = ToR(v.get());
    *ok = true;
    return r;
  } catch (const HostError&) {
    return R_NilValue;
  }
}

SEXP Arguments(const tsb_schema_info& info, bool returns) {
  const size_t n = returns ? info.num_returns : info.num_arguments;
  cpp11::writable::list out(static_cast<R_xlen_t>(n));
  for (size_t i = 0; i < n; ++i) {
    const tsb_argument_info* a =
        returns ? tsb_schema_get_return(&info, i) : tsb_schema_get_argument(&info, i);
    bool ok = false;
    cpp11::sexp def(DefaultOf(*a, &ok));
    NamedList arg({"name", "annotation", "type_index", "has_default", "kwarg_only",
                   "default_json", "has_r_default", "default"});
    arg.Set(0, Text(a->name)).Set(1, Text(a->annotation)).Set(2, cpp11::as_sexp(a->type_index));
    arg.Set(3, cpp11::as_sexp(a->has_default)).Set(4, cpp11::as_sexp(a->kwarg_only));
    arg.Set(5, a->default_json ? Text(a->default_json) : R_NilValue);
    arg.Set(6, cpp11::as_sexp(ok)).Set(7, def);
    out[static_cast<R_xlen_t>(i)] = arg;
  }
  return out;
}

}  // namespace

SEXP SchemaToR(const tsb_schema_info& s) {
  NamedList out({"name", "overload_name", "schema", "arguments", "returns", "not_callable"});
  out.Set(0, Text(s.name)).Set(1, Text(s.overload_name)).Set(2, Text(s.schema));
  out.Set(3, Arguments(s, false)).Set(4, Arguments(s, true));
  out.Set(5, s.not_callable ? Text(s.not_callable) : R_NilValue);
  return out;
}

}  // namespace tsbr
