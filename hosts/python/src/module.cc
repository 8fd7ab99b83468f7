// tsbridge._native: the extension module. The Python package (tsbridge/)
// builds the public API on these functions; conversion lives in
// to_python.cc and from_python.cc, calls in calls.cc.
#include <optional>
#include <string>

#include "calls.h"
#include "host.h"

namespace tsbpy {
namespace {

PyObject* ArgumentDict(const tsb_argument_info& a) {
  Ref d(Check(PyDict_New()));
  auto set = [&](const char* key, PyObject* value) {
    Ref v(Check(value));
    if (PyDict_SetItemString(d.p, key, v.p) < 0) throw PyErrorSet{};
  };
  set("name", Text(a.name));
  set("annotation", Text(a.annotation));
  set("type_index", PyLong_FromLong(a.type_index));
  set("has_default", PyBool_FromLong(a.has_default));
  set("kwarg_only", PyBool_FromLong(a.kwarg_only));
  set("default_json", a.default_json ? Text(a.default_json) : Py_NewRef(Py_None));
  return d.release();
}

// The arguments (or returns) of a schema, read at the library's stride
// (tsb_schema_get_argument): a newer library's entries are larger.
template <const tsb_argument_info* (*Get)(const tsb_schema_info*, size_t)>
PyObject* ArgumentList(const tsb_schema_info& s, size_t n) {
  Ref list(Check(PyList_New(static_cast<Py_ssize_t>(n))));
  for (size_t i = 0; i < n; ++i) PyList_SET_ITEM(list.p, i, ArgumentDict(*Get(&s, i)));
  return list.release();
}

PyObject* SchemaDict(const tsb_schema_info& s) {
  return Check(Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:z}", "name", Text(s.name), "overload_name",
                             Text(s.overload_name), "schema", Text(s.schema), "arguments",
                             ArgumentList<tsb_schema_get_argument>(s, s.num_arguments),
                             "returns", ArgumentList<tsb_schema_get_return>(s, s.num_returns),
                             "not_callable",
                             s.not_callable));
}


// ------------------------------------------------------------- functions

PyObject* Init(PyObject*, PyObject* args) {
  PyObject *errors, *types;
  if (!PyArg_ParseTuple(args, "OO", &errors, &types)) return nullptr;
  return Entry([&]() -> PyObject* {
    InitErrors(errors);
    InitTypes(types);
    InitAutograd(types);
    InitTorch();
    // Tuple, NamedTuple, Optional, Union, sparse: each loaded on first need.
    Raise(tsb_plugin_defer_bundled());
    Raise(tsb_plugin_load_from_env());
    Raise(tsb_library_load_from_env());  // TSB_LIBRARY_PATH
    return Py_NewRef(GetTorch().available ? Py_True : Py_False);
  });
}

// load(path) and compile(source): a text in, a module capsule out.
template <tsb_status* (*Make)(const char*, tsb_module**)>
PyObject* NewModule(PyObject*, PyObject* args) {
  const char* text;
  if (!PyArg_ParseTuple(args, "s", &text)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb_module* m = nullptr;
    Raise(Make(text, &m));
    return ModuleCapsule(m);
  });
}

// save(module, path) and save_for_mobile(module, path).
template <tsb_status* (*SaveTo)(const tsb_module*, const char*)>
PyObject* Save(PyObject*, PyObject* args) {
  PyObject* capsule;
  const char* path;
  if (!PyArg_ParseTuple(args, "Os", &capsule, &path)) return nullptr;
  return Entry([&]() -> PyObject* {
    Raise(SaveTo(ModuleFromCapsule(capsule), path));
    Py_RETURN_NONE;
  });
}

// Python bytes of what `write(&data, &size)` wrote, the buffer freed.
template <typename Write>
PyObject* BytesOf(Write write) {
  char* data = nullptr;
  size_t size = 0;
  Raise(write(&data, &size));
  Ref bytes(PyBytes_FromStringAndSize(data, static_cast<Py_ssize_t>(size)));
  tsb_string_free(data);
  return Check(bytes.release());
}

// write(module) -> bytes, read(bytes) -> module capsule: a module as the
// bytes of its TorchScript archive (Module.to_bytes, pickling).
PyObject* Write(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    return BytesOf([&](char** data, size_t* size) {
      return tsb_module_write(ModuleFromCapsule(capsule), data, size);
    });
  });
}

PyObject* Read(PyObject*, PyObject* args) {
  Py_buffer buf;
  if (!PyArg_ParseTuple(args, "y*", &buf)) return nullptr;
  PyObject* result = Entry([&]() -> PyObject* {
    tsb_module* m = nullptr;
    Raise(tsb_module_read(static_cast<const char*>(buf.buf), static_cast<size_t>(buf.len), &m));
    return ModuleCapsule(m);
  });
  PyBuffer_Release(&buf);
  return result;
}

// op_names(namespace or None) -> [qualified name], sorted.
PyObject* OpNames(PyObject*, PyObject* args) {
  const char* ns = nullptr;
  if (!PyArg_ParseTuple(args, "z", &ns)) return nullptr;
  return Entry([&]() -> PyObject* {
    const char** names = nullptr;
    size_t n = 0;
    Raise(tsb_op_get_names(ns, &names, &n));
    std::unique_ptr<const char*, void (*)(const char**)> owned(
        names, [](const char** p) { tsb_string_free(reinterpret_cast<char*>(p)); });
    Ref list(Check(PyList_New(static_cast<Py_ssize_t>(n))));
    for (size_t i = 0; i < n; ++i) {
      PyList_SET_ITEM(list.p, static_cast<Py_ssize_t>(i), Text(names[i]));
    }
    return list.release();
  });
}

// [schema dict] of what a listing gives (methods, overloads).
PyObject* SchemaDicts(const std::vector<tsb_schema_info>& schemas) {
  Ref list(Check(PyList_New(static_cast<Py_ssize_t>(schemas.size()))));
  for (size_t i = 0; i < schemas.size(); ++i) PyList_SET_ITEM(list.p, i, SchemaDict(schemas[i]));
  return list.release();
}

PyObject* Methods(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    return SchemaDicts(tsb::kit::Methods(ModuleFromCapsule(capsule)));
  });
}

PyObject* NewMethodCaller(PyObject*, PyObject* args) {
  PyObject* capsule;
  const char* name;
  if (!PyArg_ParseTuple(args, "Os", &capsule, &name)) return nullptr;
  return Entry([&]() -> PyObject* {
    return MethodCaller(capsule, name, CallPlan::ForModuleMethod(ModuleFromCapsule(capsule), name));
  });
}

PyObject* OpOverloads(PyObject*, PyObject* args) {
  const char* name;
  if (!PyArg_ParseTuple(args, "s", &name)) return nullptr;
  return Entry([&]() -> PyObject* {
    return SchemaDicts(tsb::kit::Overloads(name));
  });
}

PyObject* FunctionSchema(PyObject*, PyObject* args) {
  const char* name;
  if (!PyArg_ParseTuple(args, "s", &name)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb_schema_info info{};
    info.struct_size = sizeof(info);
    Raise(tsb_function_get_schema(name, &info));
    return SchemaDict(info);
  });
}

PyObject* NewOpCaller(PyObject*, PyObject* args) {
  const char* name;
  int is_function;
  if (!PyArg_ParseTuple(args, "sp", &name, &is_function)) return nullptr;
  return Entry([&]() -> PyObject* {
    return is_function == 0 ? OpCaller(name) : FunctionCaller(name);
  });
}

// f(first, method, *args, **kwargs) by vectorcall: call(first, method,
// the rest, their count, kwnames) once the first two are there.
template <typename Call>
PyObject* WithMethod(const char* usage, PyObject* const* args, Py_ssize_t nargsf,
                     PyObject* kwnames, Call&& call) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs < 2 || !PyUnicode_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, usage);
    return nullptr;
  }
  return Entry([&]() -> PyObject* {
    return call(args[0], PyUnicode_AsUTF8(args[1]), args + 2, static_cast<size_t>(nargs - 2),
                kwnames);
  });
}

// graph_for(module, method, *args, **kwargs) -> str
PyObject* GraphForMethod(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                         PyObject* kwnames) {
  return WithMethod("graph_for(module, method, *args, **kwargs)", args, nargsf, kwnames,
                    [](PyObject* module, auto&&... rest) {
                      return GraphFor(ModuleFromCapsule(module), rest...);
                    });
}

// object_call(value, method, *args, **kwargs)
PyObject* ObjectCall(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  return WithMethod("object_call(value, method, *args, **kwargs)", args, nargsf, kwnames,
                    [](PyObject* value, auto&&... rest) {
                      return CallObject(HeldValue(value), rest...);
                    });
}

PyObject* GetField(PyObject*, PyObject* args) {
  PyObject* capsule;
  const char* name;
  if (!PyArg_ParseTuple(args, "Os", &capsule, &name)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb::Value field;
    Raise(tsb_any_get_field(&HeldValue(capsule), name, field.out()));
    return ToPython(field.get());
  });
}

PyObject* ValueRepr(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    return TextOf([&](char** text) { return tsb_any_repr(&HeldValue(capsule), text); });
  });
}

PyObject* ValueId(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    uint64_t id = 0;
    Raise(tsb_any_get_id(&HeldValue(capsule), &id));
    return PyLong_FromUnsignedLongLong(id);
  });
}

// Plugins and operator libraries are loaded, counted and described alike
// (tsb_plugin_*, tsb_library_*): one entry each, told which by its ABI calls.
template <tsb_status* (*Load)(const char*, int32_t*)>
PyObject* LoadById(PyObject*, PyObject* args) {
  const char* path;
  if (!PyArg_ParseTuple(args, "s", &path)) return nullptr;
  return Entry([&]() -> PyObject* {
    int32_t id = -1;
    Raise(Load(path, &id));
    return PyLong_FromLong(id);
  });
}

template <tsb_status* (*Count)(size_t*)>
PyObject* CountLoaded(PyObject*, PyObject*) {
  return Entry([&]() -> PyObject* {
    size_t count = 0;
    Raise(Count(&count));
    return PyLong_FromSize_t(count);
  });
}

// info(id) -> dict: Get fills the versioned struct, Make reads it.
template <typename Info, tsb_status* (*Get)(int32_t, Info*), PyObject* (*Make)(int, const Info&)>
PyObject* DescribeLoaded(PyObject*, PyObject* args) {
  int id;
  if (!PyArg_ParseTuple(args, "i", &id)) return nullptr;
  return Entry([&]() -> PyObject* {
    Info info{};
    info.struct_size = sizeof(info);
    Raise(Get(id, &info));
    return Make(id, info);
  });
}

PyObject* PluginDict(int id, const tsb_plugin_info& info) {
  return Check(Py_BuildValue(
      "{s:i,s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "id", id, "name", Text(info.name), "version",
      Text(info.version), "path", Text(info.path), "platform_tag", Text(info.platform_tag),
      "kinds", StringList(info.kinds, info.num_kinds), "types",
      StringList(info.types, info.num_types), "functions",
      StringList(info.functions, info.num_functions)));
}

PyObject* LibraryDict(int id, const tsb_library_info& info) {
  return Check(Py_BuildValue("{s:i,s:N,s:N,s:N}", "id", id, "name", Text(info.name), "path",
                             Text(info.path), "operators",
                             StringList(info.operators, info.num_operators)));
}

PyObject* TraceFn(PyObject*, PyObject* args) {
  PyObject *fn, *inputs;
  int strict = 1;
  const char* name = "forward";
  if (!PyArg_ParseTuple(args, "OO|ps", &fn, &inputs, &strict, &name)) return nullptr;
  return Entry([&]() -> PyObject* { return Trace(fn, inputs, strict != 0, name); });
}

// parse_type(annotation[, module]): with a module, its own classes,
// NamedTuples and Enums are known too.
PyObject* ParseType(PyObject*, PyObject* args) {
  const char* text;
  PyObject* capsule = nullptr;
  if (!PyArg_ParseTuple(args, "s|O", &text, &capsule)) return nullptr;
  return Entry([&]() -> PyObject* {
    int32_t index = TSB_TYPE_INVALID;
    Raise(capsule != nullptr && capsule != Py_None
              ? tsb_module_parse_type(ModuleFromCapsule(capsule), text, &index)
              : tsb_type_parse(text, &index));
    return PyLong_FromLong(index);
  });
}

PyObject* TypeInfo(PyObject*, PyObject* args) {
  int index;
  if (!PyArg_ParseTuple(args, "i", &index)) return nullptr;
  return Entry([&]() -> PyObject* {
    const TypeEntry& t = Type(index);
    Ref contained(Check(PyList_New(0)));
    for (int32_t c : t.contained) {
      if (PyList_Append(contained.p, Ref(PyLong_FromLong(c)).p) < 0) throw PyErrorSet{};
    }
    return Check(Py_BuildValue("{s:i,s:i,s:N,s:N,s:N,s:N,s:O}", "index", index, "kind",
                               static_cast<int>(t.kind), "annotation", Text(t.annotation.c_str()),
                               "name", Text(t.name.c_str()), "contained", contained.release(),
                               "fields", StringList(t.fields.data(), t.fields.size()), "cls",
                               t.cls ? t.cls : Py_None));
  });
}

// The entries taking (obj, type_index): obj built as a value of that type
// and coerced to it, then given to body. Convert keeps Python identities
// (an object given twice comes back as one).
template <typename Body>
PyObject* OnTyped(PyObject* args, bool identities, Body&& body) {
  PyObject* obj;
  int index;
  if (!PyArg_ParseTuple(args, "Oi", &obj, &index)) return nullptr;
  return Entry([&]() -> PyObject* {
    std::optional<IdentityScope> scope;
    if (identities) scope.emplace();
    tsb::Value built, coerced;
    FromPython(obj, index, built.out());
    CheckStatus(tsb_any_coerce(&built.get(), index, coerced.out()));
    return body(coerced.get());
  });
}

// convert(obj, type_index): Python → boundary (coerced) → Python.
PyObject* Convert(PyObject*, PyObject* args) {
  return OnTyped(args, true, [](const tsb_any& v) { return ToPython(v); });
}

PyObject* ToJson(PyObject*, PyObject* args) {
  return OnTyped(args, false, [](const tsb_any& v) {
    return TextOf([&](char** text) { return tsb_json_write(&v, text); });
  });
}

PyObject* FromJson(PyObject*, PyObject* args) {
  const char* json;
  int index;
  if (!PyArg_ParseTuple(args, "si", &json, &index)) return nullptr;
  return Entry([&]() -> PyObject* {
    tsb::Value v;
    Raise(tsb_json_read(json, index, v.out()));
    return ToPython(v.get());
  });
}

// to_pickle(obj, type_index) -> bytes torch.load reads (tsb_pickle_write).
PyObject* ToPickle(PyObject*, PyObject* args) {
  return OnTyped(args, false, [](const tsb_any& v) {
    return BytesOf([&](char** data, size_t* size) { return tsb_pickle_write(&v, data, size); });
  });
}

// object_write(value) -> bytes, object_read(bytes) -> obj: a TorchScript
// class instance as a TorchScript archive with its class (pickling).
PyObject* ObjectWrite(PyObject*, PyObject* capsule) {
  return Entry([&]() -> PyObject* {
    return BytesOf([&](char** data, size_t* size) {
      return tsb_object_write(&HeldValue(capsule), data, size);
    });
  });
}

// A value from the bytes in `args` (one bytes-like), read by `read`.
PyObject* ValueFromBytes(PyObject* args, tsb_status* (*read)(const char*, size_t, tsb_any*)) {
  Py_buffer buf;
  if (!PyArg_ParseTuple(args, "y*", &buf)) return nullptr;
  PyObject* result = Entry([&]() -> PyObject* {
    tsb::Value v;
    Raise(read(static_cast<const char*>(buf.buf), static_cast<size_t>(buf.len), v.out()));
    return ToPython(v.get());
  });
  PyBuffer_Release(&buf);
  return result;
}

PyObject* ObjectRead(PyObject*, PyObject* args) { return ValueFromBytes(args, tsb_object_read); }

// from_pickle(bytes) -> obj, from what torch.save wrote (tsb_pickle_read).
PyObject* FromPickle(PyObject*, PyObject* args) { return ValueFromBytes(args, tsb_pickle_read); }

// (active, reason): whether tensors cross through the companion tsbridge._torch.
PyObject* TorchFastPath(PyObject*, PyObject*) {
  const Torch& torch = GetTorch();
  return Py_BuildValue("(Os)", torch.fast != nullptr ? Py_True : Py_False,
                       torch.fast != nullptr ? "" : torch.fast_reason.c_str());
}

// (path, reason): the path torch tensors take ("companion", "exchange",
// "dlpack", "none") and why torch's DLPack C exchange API is not in use.
PyObject* TensorPath(PyObject*, PyObject*) {
  const Torch& torch = GetTorch();
  return Py_BuildValue("(ss)", TensorPathName(),
                       torch.exchange != nullptr ? "" : torch.exchange_reason.c_str());
}

// {path: (in, out)}: tensors crossed so far, per path.
PyObject* TensorCrossings(PyObject*, PyObject*) {
  const auto& c = GetTorch().crossings;
  return Py_BuildValue("{s(KK)s(KK)s(KK)}", "companion", c[kCompanion][kIn], c[kCompanion][kOut],
                       "exchange", c[kExchange][kIn], c[kExchange][kOut], "dlpack",
                       c[kDLPack][kIn], c[kDLPack][kOut]);
}

PyObject* LiveHandles(PyObject*, PyObject*) { return PyLong_FromLongLong(::tsb::LiveHandles()); }
PyObject* Version(PyObject*, PyObject*) { return Text(tsb_version_get_string()); }

#define TSB_FASTCALL(f) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f))

PyMethodDef g_functions[] = {
    {"_init", Init, METH_VARARGS, "_init(errors_module, types_module) -> torch available"},
    {"load", NewModule<tsb_module_load>, METH_VARARGS, "load(path) -> module capsule"},
    {"compile", NewModule<tsb_module_compile>, METH_VARARGS, "compile(source) -> module capsule"},
    {"save", Save<tsb_module_save>, METH_VARARGS, "save(module, path)"},
    {"save_for_mobile", Save<tsb_module_save_for_mobile>, METH_VARARGS,
     "save_for_mobile(module, path)"},
    {"write", Write, METH_O, "write(module) -> bytes of its TorchScript archive"},
    {"read", Read, METH_VARARGS, "read(bytes) -> module capsule"},
    {"methods", Methods, METH_O, "methods(module) -> [schema dict]"},
    {"method_caller", NewMethodCaller, METH_VARARGS, "method_caller(module, name)"},
    {"op_overloads", OpOverloads, METH_VARARGS, "op_overloads('ns::op') -> [schema dict]"},
    {"op_names", OpNames, METH_VARARGS, "op_names(namespace or None) -> [qualified name]"},
    {"function_schema", FunctionSchema, METH_VARARGS, "function_schema('ns::f') -> dict, as op_overloads gives"},
    {"op_caller", NewOpCaller, METH_VARARGS, "op_caller(name, is_function)"},
    {"graph_for", TSB_FASTCALL(GraphForMethod), METH_FASTCALL | METH_KEYWORDS,
     "graph_for(module, method, *args, **kwargs) -> str"},
    {"object_call", TSB_FASTCALL(ObjectCall), METH_FASTCALL | METH_KEYWORDS,
     "object_call(value, method, *args, **kwargs)"},
    {"get_field", GetField, METH_VARARGS, "get_field(value, name)"},
    {"value_repr", ValueRepr, METH_O, "value_repr(value) -> str"},
    {"value_id", ValueId, METH_O, "value_id(value) -> int"},
    {"load_plugin", LoadById<tsb_plugin_load>, METH_VARARGS, "load_plugin(path) -> id"},
    {"plugin_info", DescribeLoaded<tsb_plugin_info, tsb_plugin_get_info, PluginDict>,
     METH_VARARGS, "plugin_info(id) -> dict"},
    {"plugin_count", CountLoaded<tsb_plugin_count>, METH_NOARGS, "plugin_count() -> int"},
    {"load_library", LoadById<tsb_library_load>, METH_VARARGS,
     "load_library(path_or_name) -> id"},
    {"library_info", DescribeLoaded<tsb_library_info, tsb_library_get_info, LibraryDict>,
     METH_VARARGS, "library_info(id) -> dict"},
    {"library_count", CountLoaded<tsb_library_count>, METH_NOARGS, "library_count() -> int"},
    {"trace", TraceFn, METH_VARARGS,
     "trace(fn, example_inputs, strict=True, name='forward') -> module capsule"},
    {"parse_type", ParseType, METH_VARARGS, "parse_type(annotation, module=None) -> type index"},
    {"type_info", TypeInfo, METH_VARARGS, "type_info(index) -> dict"},
    {"convert", Convert, METH_VARARGS, "convert(obj, type_index) -> obj"},
    {"to_json", ToJson, METH_VARARGS, "to_json(obj, type_index) -> str"},
    {"from_json", FromJson, METH_VARARGS, "from_json(text, type_index) -> obj"},
    {"to_pickle", ToPickle, METH_VARARGS, "to_pickle(obj, type_index) -> bytes"},
    {"object_write", ObjectWrite, METH_O, "object_write(value) -> bytes of an archive holding it"},
    {"object_read", ObjectRead, METH_VARARGS, "object_read(bytes) -> obj"},
    {"from_pickle", FromPickle, METH_VARARGS, "from_pickle(bytes) -> obj"},
    {"torch_fastpath", TorchFastPath, METH_NOARGS, "torch_fastpath() -> (active, reason)"},
    {"tensor_path", TensorPath, METH_NOARGS, "tensor_path() -> (path, exchange reason)"},
    {"tensor_crossings", TensorCrossings, METH_NOARGS,
     "tensor_crossings() -> {path: (in, out)}"},
    {"live_handles", LiveHandles, METH_NOARGS, "live_handles() -> int"},
    {"version", Version, METH_NOARGS, "version() -> str"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef g_module = {PyModuleDef_HEAD_INIT, "_native",
                        "tsbridge's extension: the C ABI of tsbridge.h, seen from Python.", -1,
                        g_functions};

}  // namespace
}  // namespace tsbpy

PyMODINIT_FUNC PyInit__native(void) {
  PyObject* m = PyModule_Create(&tsbpy::g_module);
  if (m != nullptr && PyModule_AddFunctions(m, tsbpy::kAutogradFunctions) < 0) Py_CLEAR(m);
  return m;
}
