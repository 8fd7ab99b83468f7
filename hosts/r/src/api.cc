// The .Call entry points of the R package (registered in init.cc). Each is
// guarded by TSB_BEGIN / TSB_END (entry.h); R's own wrappers in R/*.R give
// them their public names and classes.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "calls.h"
#include "entry.h"

using namespace tsbr;

namespace {

int32_t IntArg(SEXP x, const char* what) {
  if ((TYPEOF(x) != INTSXP && TYPEOF(x) != REALSXP) || Rf_xlength(x) != 1) {
    Fail(TSB_ERR_INVALID_ARGUMENT, std::string(what) + " must be one number, got " + Describe(x));
  }
  const double d = Rf_asReal(x);
  if (ISNAN(d)) Fail(TSB_ERR_INVALID_ARGUMENT, std::string(what) + " must not be NA");
  return static_cast<int32_t>(d);
}

// The schemas a listing gives, as a list of R schema lists.
SEXP SchemasToR(const std::vector<tsb_schema_info>& schemas) {
  cpp11::writable::list out(static_cast<R_xlen_t>(schemas.size()));
  for (size_t i = 0; i < schemas.size(); ++i) out[static_cast<R_xlen_t>(i)] = SchemaToR(schemas[i]);
  return out;
}

// What R shows of a loaded plugin or operator library, by id.
SEXP PluginInfo(int32_t id) {
  tsb_plugin_info info{};
  info.struct_size = sizeof info;
  CheckStatus(tsb_plugin_get_info(id, &info));
  NamedList out({"id", "name", "version", "path", "platform_tag", "kinds", "types", "functions"});
  out.Set(0, cpp11::as_sexp(id)).Set(1, Utf8(info.name)).Set(2, Utf8(info.version));
  out.Set(3, Utf8(info.path)).Set(4, Utf8(info.platform_tag));
  out.Set(5, StringList(info.kinds, info.num_kinds)).Set(6, StringList(info.types, info.num_types));
  out.Set(7, StringList(info.functions, info.num_functions));
  return out;
}

SEXP LibraryInfo(int32_t id) {
  tsb_library_info info{};
  info.struct_size = sizeof info;
  CheckStatus(tsb_library_get_info(id, &info));
  NamedList out({"id", "name", "path", "operators"});
  out.Set(0, cpp11::as_sexp(id)).Set(1, Utf8(info.name)).Set(2, Utf8(info.path));
  out.Set(3, StringList(info.operators, info.num_operators));
  return out;
}

// The ABI's functions for one of the two things loaded by path.
struct Loaded {
  const char* path_name;  // what the path argument is called in messages
  tsb_status* (*load)(const char* path, int32_t* id);
  tsb_status* (*count)(size_t* n);
  SEXP (*info)(int32_t id);
};

const Loaded& LoadedOf(SEXP what) {
  static const Loaded kPlugin{"path", tsb_plugin_load, tsb_plugin_count, PluginInfo};
  static const Loaded kLibrary{"path_or_name", tsb_library_load, tsb_library_count, LibraryInfo};
  const std::string name = StringArg(what, "what");
  if (name == "plugin") return kPlugin;
  if (name == "library") return kLibrary;
  Fail(TSB_ERR_INVALID_ARGUMENT, "what must be \"plugin\" or \"library\", got \"" + name + "\"");
}

// x built as a value of the type index and coerced to it: what
// convert and to_json each start from.
void BuildTyped(SEXP x, SEXP index, tsb::Value* coerced) {
  const int32_t type = IntArg(index, "a type index");
  tsb::Value built;
  FromR(x, type, built.out());
  CheckStatus(tsb_any_coerce(&built.get(), type, coerced->out()));
}

// The external pointer of a tsb_object (an environment) or the pointer itself.
SEXP HandlePointer(SEXP x) {
  return TYPEOF(x) == ENVSXP ? HandleBinding(x) : x;
}

}  // namespace

// tsb_load(path), tsb_compile(source): a module from one string.
template <tsb_status* (*Make)(const char*, tsb_module**)>
SEXP NewModule(SEXP text, const char* what) {
  TSB_BEGIN
  tsb_module* m = nullptr;
  CheckStatus(Make(StringArg(text, what).c_str(), &m));
  return WrapModule(m);
  TSB_END
}

// $save(path), $save_for_mobile(path).
template <tsb_status* (*Save)(const tsb_module*, const char*)>
SEXP SaveModule(SEXP module, SEXP path) {
  TSB_BEGIN
  CheckStatus(Save(ModuleOf(module), StringArg(path, "path").c_str()));
  return R_NilValue;
  TSB_END
}

extern "C" {

SEXP tsbr_init(SEXP integer64) {
  TSB_BEGIN
  InitTensors();
  if (tsb_version() / 10000 != TSB_VERSION_MAJOR) {
    Fail(TSB_ERR_UNSUPPORTED, std::string("libtsbridge ") + tsb_version_get_string() +
                                  " has another major version than the header this package was "
                                  "built with (" + std::to_string(TSB_VERSION_MAJOR) + ")");
  }
  SetUseInteger64(Rf_asLogical(integer64) == TRUE);
  // Tuple, NamedTuple, Optional, Union, sparse: each loaded on first need.
  CheckStatus(tsb_plugin_defer_bundled());
  CheckStatus(tsb_plugin_load_from_env());
  return Utf8(tsb_version_get_string());
  TSB_END
}

SEXP tsbr_set_integer64(SEXP on) {
  TSB_BEGIN
  SetUseInteger64(Rf_asLogical(on) == TRUE);
  return R_NilValue;
  TSB_END
}

// With a module (its external pointer), the types it declares are known too.
SEXP tsbr_parse_type(SEXP annotation, SEXP module) {
  TSB_BEGIN
  int32_t index = TSB_TYPE_INVALID;
  const std::string text = StringArg(annotation, "a type");
  CheckStatus(module == R_NilValue ? tsb_type_parse(text.c_str(), &index)
                                   : tsb_module_parse_type(ModuleOf(module), text.c_str(), &index));
  return cpp11::as_sexp(index);
  TSB_END
}

SEXP tsbr_type_info(SEXP index) {
  TSB_BEGIN
  const TypeEntry& t = Type(IntArg(index, "a type index"));
  NamedList out({"index", "kind", "annotation", "name", "contained", "fields"});
  out.Set(0, cpp11::as_sexp(t.index)).Set(1, cpp11::as_sexp(static_cast<int>(t.kind)));
  out.Set(2, Utf8(t.annotation)).Set(3, Utf8(t.name));
  cpp11::writable::integers contained(static_cast<R_xlen_t>(t.contained.size()));
  for (size_t i = 0; i < t.contained.size(); ++i) contained[static_cast<R_xlen_t>(i)] = t.contained[i];
  out.Set(4, contained);
  cpp11::writable::strings fields(static_cast<R_xlen_t>(t.fields.size()));
  for (size_t i = 0; i < t.fields.size(); ++i) fields[static_cast<R_xlen_t>(i)] = t.fields[i];
  out.Set(5, fields);
  return out;
  TSB_END
}

// R → boundary (coerced to the type) → R: what a callee expecting the type receives.
SEXP tsbr_convert(SEXP x, SEXP index) {
  TSB_BEGIN
  tsb::Value coerced;
  BuildTyped(x, index, &coerced);
  return ToR(coerced.get());
  TSB_END
}

SEXP tsbr_to_json(SEXP x, SEXP index) {
  TSB_BEGIN
  tsb::Value coerced;
  BuildTyped(x, index, &coerced);
  return StringOf([&](char** text) { return tsb_json_write(&coerced.get(), text); });
  TSB_END
}

SEXP tsbr_from_json(SEXP text, SEXP index) {
  TSB_BEGIN
  tsb::Value v;
  CheckStatus(tsb_json_read(StringArg(text, "json").c_str(), IntArg(index, "a type index"), v.out()));
  return ToR(v.get());
  TSB_END
}

SEXP tsbr_handle_count() {
  TSB_BEGIN
  size_t n = 0;
  CheckStatus(tsb_handle_count(&n));
  return cpp11::as_sexp(static_cast<double>(n));
  TSB_END
}

SEXP tsbr_release(SEXP xptr) {
  TSB_BEGIN
  xptr = HandlePointer(xptr);
  if (TYPEOF(xptr) != EXTPTRSXP) Fail(TSB_ERR_INVALID_ARGUMENT, "expected a tsb_tensor or tsb_object, got " + Describe(xptr));
  ReleaseHandle(xptr);
  return R_NilValue;
  TSB_END
}

SEXP tsbr_value_repr(SEXP x) {
  TSB_BEGIN
  tsb::Value v;
  FromR(x, TSB_TYPE_ANY, v.out());
  return StringOf([&](char** text) { return tsb_any_repr(&v.get(), text); });
  TSB_END
}

// ---------------------------------------------------------------- tensors

SEXP tsbr_tensor_from_r(SEXP x, SEXP dtype) {
  TSB_BEGIN
  int32_t code = -1;
  if (dtype != R_NilValue) {
    tsb_any d;
    if (!TorchEnumFromR(dtype, TSB_TYPE_DTYPE, &d) || d.type_index != TSB_TYPE_DTYPE) {
      Fail(TSB_ERR_TYPE, "dtype must be a tsb_dtype or a name such as \"float32\", got " + Describe(dtype));
    }
    code = static_cast<int32_t>(d.u.i);
  }
  if (Inherits(x, "tsb_tensor")) {
    if (code < 0) return x;
    tsb_any args[2] = {HandleOf(x, "tensor"), tsb_any_dtype(code)};
    tsb_call_args a = tsb_call_args_make(args, 2);
    tsb::Value out;
    CheckStatus(tsb_op_call("aten::to", &a, out.out()));
    return ToR(out.get());
  }
  tsb::Value t;
  TensorFromArray(x, code, t.out());
  return ToR(t.get());
  TSB_END
}

SEXP tsbr_tensor_info(SEXP t) {
  TSB_BEGIN
  return TensorInfo(HandleOf(t, "tensor"));
  TSB_END
}

SEXP tsbr_tensor_to_r(SEXP t) {
  TSB_BEGIN
  return TensorToArray(HandleOf(t, "tensor"));
  TSB_END
}

SEXP tsbr_r_address(SEXP x) {
  TSB_BEGIN
  return cpp11::as_sexp(static_cast<double>(reinterpret_cast<uintptr_t>(VectorData(x))));
  TSB_END
}

SEXP tsbr_dlpack_stats() {
  TSB_BEGIN
  NamedList out({"deleter_calls", "live_buffers"});
  out.Set(0, cpp11::as_sexp(static_cast<double>(DeleterCalls())));
  out.Set(1, cpp11::as_sexp(static_cast<double>(LiveBuffers())));
  return out;
  TSB_END
}

// ---------------------------------------------------------------- modules

SEXP tsbr_module_load(SEXP path) { return NewModule<tsb_module_load>(path, "path"); }

SEXP tsbr_module_compile(SEXP source) { return NewModule<tsb_module_compile>(source, "source"); }

SEXP tsbr_module_save(SEXP module, SEXP path) { return SaveModule<tsb_module_save>(module, path); }

SEXP tsbr_module_save_for_mobile(SEXP module, SEXP path) {
  return SaveModule<tsb_module_save_for_mobile>(module, path);
}

// The bytes of the module's TorchScript archive, and a module from them
// (m$to_raw(), tsb_load(raw)).
SEXP tsbr_module_write(SEXP module) {
  TSB_BEGIN
  char* data = nullptr;
  size_t size = 0;
  CheckStatus(tsb_module_write(ModuleOf(module), &data, &size));
  std::unique_ptr<char, decltype(&tsb_string_free)> owned(data, &tsb_string_free);
  cpp11::writable::raws out(static_cast<R_xlen_t>(size));
  if (size > 0) std::memcpy(RAW(out), data, size);
  return out;
  TSB_END
}

SEXP tsbr_module_read(SEXP bytes) {
  TSB_BEGIN
  if (TYPEOF(bytes) != RAWSXP) Fail(TSB_ERR_TYPE, "expected a raw vector, got " + Describe(bytes));
  tsb_module* m = nullptr;
  CheckStatus(tsb_module_read(reinterpret_cast<const char*>(RAW(bytes)),
                              static_cast<size_t>(XLENGTH(bytes)), &m));
  return WrapModule(m);
  TSB_END
}

SEXP tsbr_module_methods(SEXP module) {
  TSB_BEGIN
  return SchemasToR(tsb::kit::Methods(ModuleOf(module)));
  TSB_END
}

SEXP tsbr_method_caller(SEXP module, SEXP name) {
  TSB_BEGIN
  return WrapCaller(MethodCaller(ModuleOf(module), StringArg(name, "method")), module);
  TSB_END
}

// The sorted qualified operator and plugin function names, all
// (namespace NULL) or one namespace's.
SEXP tsbr_op_names(SEXP ns) {
  TSB_BEGIN
  std::string wanted;
  if (ns != R_NilValue) wanted = StringArg(ns, "namespace");
  const char** names = nullptr;
  size_t n = 0;
  CheckStatus(tsb_op_get_names(ns == R_NilValue ? nullptr : wanted.c_str(), &names, &n));
  std::unique_ptr<const char*, void (*)(const char**)> owned(
      names, [](const char** p) { tsb_string_free(reinterpret_cast<char*>(p)); });
  cpp11::writable::strings out(static_cast<R_xlen_t>(n));
  for (size_t i = 0; i < n; ++i) out[static_cast<R_xlen_t>(i)] = names[i];
  return out;
  TSB_END
}

SEXP tsbr_op_caller(SEXP name) {
  TSB_BEGIN
  return WrapCaller(OperatorCaller(StringArg(name, "name")), R_NilValue);
  TSB_END
}

SEXP tsbr_op_overloads(SEXP name) {
  TSB_BEGIN
  const std::string op = StringArg(name, "name");
  size_t n = 0;
  tsb_status* s = tsb_op_count_overloads(op.c_str(), &n);
  if (s != nullptr) {
    tsb_status_free(s);
    n = 0;
  }
  if (n == 0) {  // a plugin function, or nothing (NULL)
    tsb_schema_info info{};
    info.struct_size = sizeof info;
    tsb_status* f = tsb_function_get_schema(op.c_str(), &info);
    if (f != nullptr) {
      tsb_status_free(f);
      return R_NilValue;
    }
    return SchemasToR({info});
  }
  return SchemasToR(tsb::kit::Overloads(op.c_str()));
  TSB_END
}

// .External(tsbr_call_values, caller, value...): the routine's own name
// first, then the caller, then the formals' values.
SEXP tsbr_call_values(SEXP args) {
  TSB_BEGIN
  args = CDR(args);
  return CallWithValues(CallerOf(CAR(args)), CDR(args));
  TSB_END
}

SEXP tsbr_call_list(SEXP caller, SEXP args) {
  TSB_BEGIN
  return CallWithList(CallerOf(caller), args);
  TSB_END
}

SEXP tsbr_graph_for(SEXP caller, SEXP args) {
  TSB_BEGIN
  return GraphForList(CallerOf(caller), args);
  TSB_END
}

SEXP tsbr_object_call(SEXP object, SEXP method, SEXP args) {
  TSB_BEGIN
  return CallObject(HandleOf(HandlePointer(object), "object"), StringArg(method, "method"), args);
  TSB_END
}

SEXP tsbr_object_field(SEXP object, SEXP name) {
  TSB_BEGIN
  tsb::Value field;
  CheckStatus(tsb_any_get_field(&HandleOf(HandlePointer(object), "object"), StringArg(name, "field").c_str(), field.out()));
  return ToR(field.get());
  TSB_END
}

// The object's type index in this process (its tsb_type attribute is NA
// when it was read back where its class was unknown).
SEXP tsbr_object_type(SEXP object) {
  TSB_BEGIN
  return cpp11::as_sexp(HandleOf(HandlePointer(object), "object").type_index);
  TSB_END
}

SEXP tsbr_trace(SEXP fn, SEXP inputs, SEXP strict, SEXP method) {
  TSB_BEGIN
  if (TYPEOF(strict) != LGLSXP || Rf_length(strict) != 1 || LOGICAL(strict)[0] == NA_LOGICAL) {
    Fail(TSB_ERR_TYPE, "strict must be TRUE or FALSE, got " + Describe(strict));
  }
  return Trace(fn, inputs, LOGICAL(strict)[0] != 0, StringArg(method, "a method name"));
  TSB_END
}

// ------------------------------------------- plugins and operator libraries

// Plugins and operator libraries are loaded, counted and described alike
// (tsb_plugin_* and tsb_library_*): `what` says which, "plugin" or "library".
SEXP tsbr_loaded_load(SEXP what, SEXP path) {
  TSB_BEGIN
  const Loaded& loaded = LoadedOf(what);
  int32_t id = -1;
  CheckStatus(loaded.load(StringArg(path, loaded.path_name).c_str(), &id));
  return cpp11::as_sexp(id);
  TSB_END
}

SEXP tsbr_loaded_count(SEXP what) {
  TSB_BEGIN
  size_t n = 0;
  CheckStatus(LoadedOf(what).count(&n));
  return cpp11::as_sexp(static_cast<int>(n));
  TSB_END
}

SEXP tsbr_loaded_info(SEXP what, SEXP id) {
  TSB_BEGIN
  return LoadedOf(what).info(IntArg(id, "id"));
  TSB_END
}

}  // extern "C"
