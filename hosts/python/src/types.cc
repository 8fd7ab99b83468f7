// The per-type-index cache: type infos and the Python classes of named
// types (NamedTuple, Enum, objects), made once by tsbridge._types and then
// returned for every value of the type. PyTorch builds a new namedtuple
// class on every call; the registry's stable indices let us build one.
#include <cstring>
#include <map>
#include <string>

#include "host.h"

namespace tsbpy {
namespace {

// Process lifetime, never destroyed (no exit-time destructor frees the table
// while its entries and classes are still reachable only through it).
auto& g_types = *new tsb::kit::TypeCache<TypeEntry>;
PyObject* g_make_namedtuple = nullptr;      // tsbridge._types factories
PyObject* g_make_enum = nullptr;
PyObject* g_make_object_class = nullptr;
PyObject* g_object_base = nullptr;          // tsbridge._types.Object
PyObject* g_enum_base = nullptr;            // enum.Enum
PyObject* g_value_attr = nullptr;           // "_tsb_value"
PyObject* g_type_attr = nullptr;            // "_tsb_type_index"
auto& g_torch_enums = *new std::map<std::pair<int32_t, int64_t>, PyObject*>;  // boundary → Python
PyObject* g_torch_enum_codes = nullptr;     // dict: Python → (type index, code)

const char* const kValueCapsule = "tsbridge.value";

std::string ShortName(const std::string& qualified) {
  const size_t dot = qualified.rfind('.');
  return dot == std::string::npos ? qualified : qualified.substr(dot + 1);
}

PyObject* Str(const std::string& s) {
  return Check(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

PyObject* FieldList(const TypeEntry& t) {
  Ref list(Check(PyList_New(static_cast<Py_ssize_t>(t.fields.size()))));
  for (size_t i = 0; i < t.fields.size(); ++i) {
    PyList_SET_ITEM(list.p, static_cast<Py_ssize_t>(i), Check(PyUnicode_FromString(t.fields[i])));
  }
  return list.release();
}

// Builds the Enum class: each member's value read through the ABI.
void MakeEnum(TypeEntry& t) {
  Ref members(Check(PyList_New(0)));
  for (const char* member : t.fields) {
    tsb::Value name, value;
    CheckStatus(tsb_str_new(member, std::strlen(member), name.out()));
    tsb_any as_enum;
    CheckStatus(tsb_any_coerce(&name.get(), t.index, &as_enum));
    t.member_values.push_back(as_enum);  // kept for the life of the process
    CheckStatus(tsb_enum_get(&as_enum, nullptr, value.out()));
    Ref py_value(ToPython(value.get()));
    Ref pair(Check(Py_BuildValue("(sO)", member, py_value.p)));
    if (PyList_Append(members.p, pair.p) < 0) throw PyErrorSet{};
  }
  Ref name(Str(t.name)), short_name(Str(ShortName(t.name)));
  t.cls = Check(PyObject_CallFunction(g_make_enum, "iOOO", t.index, name.p, short_name.p,
                                      members.p));
  Ref by_name(Check(PyObject_GetAttrString(t.cls, "__members__")));
  for (const char* member : t.fields) {
    PyObject* m = Check(PyMapping_GetItemString(by_name.p, member));
    t.members.push_back(m);
  }
}

void FreeValueCapsule(PyObject* capsule) {
  auto* v = static_cast<tsb_any*>(PyCapsule_GetPointer(capsule, kValueCapsule));
  if (v == nullptr) return PyErr_Clear();
  tsb_any_release(v);
  delete v;
}

}  // namespace

void InitTypes(PyObject* types_module) {
  g_make_namedtuple = Check(PyObject_GetAttrString(types_module, "make_namedtuple"));
  g_make_enum = Check(PyObject_GetAttrString(types_module, "make_enum"));
  g_make_object_class = Check(PyObject_GetAttrString(types_module, "make_object_class"));
  g_object_base = Check(PyObject_GetAttrString(types_module, "Object"));
  g_enum_base = Check(PyObject_GetAttrString(types_module, "Enum"));
  g_value_attr = Check(PyUnicode_InternFromString("_tsb_value"));
  g_type_attr = Check(PyUnicode_InternFromString("_tsb_type_index"));
  g_torch_enum_codes = Check(PyDict_New());
}

// Building runs Python code (the class factories), during which another
// thread may build the same entry: the first one published wins
// (TypeCache), so every thread sees one class per type.
const TypeEntry& Type(int32_t index) { return g_types.Get(index); }

void TypeEntry::Complete() {
  if (kind == TSB_KIND_ENUM) return MakeEnum(*this);
  const bool object = kind == TSB_KIND_OBJECT || kind == TSB_KIND_CUSTOM_CLASS;
  if (kind != TSB_KIND_NAMEDTUPLE && !object) return;
  const std::string& qualified = QualifiedName();
  // A nameless NamedTuple (R torch's, tsb_tuple_new_named without a name)
  // is printed by its annotation, which is no class name.
  const bool nameless = name.empty() && kind == TSB_KIND_NAMEDTUPLE;
  Ref name(Str(qualified)), short_name(Str(nameless ? "NamedTuple" : ShortName(qualified))),
      field_list(FieldList(*this));
  cls = object ? PyObject_CallFunction(g_make_object_class, "iOOiO", index, name.p, short_name.p,
                                       static_cast<int>(kind), field_list.p)
               : PyObject_CallFunction(g_make_namedtuple, "iOOO", index, name.p, short_name.p,
                                       field_list.p);
  Check(cls);
}

TypeEntry::~TypeEntry() {
  Py_XDECREF(cls);
  for (PyObject* m : members) Py_DECREF(m);
  for (tsb_any& v : member_values) tsb_any_release(&v);
}

PyObject* WrapObject(const TypeEntry& type, tsb_any handle) {
  return WrapHandle(type.cls, handle);
}

PyObject* WrapHandle(PyObject* cls, tsb_any handle) {
  auto* held = new tsb_any(handle);
  PyObject* capsule = PyCapsule_New(held, kValueCapsule, FreeValueCapsule);
  if (capsule == nullptr) {
    tsb_any_release(held);
    delete held;
    throw PyErrorSet{};
  }
  Ref c(capsule);
  return Check(PyObject_CallMethod(cls, "_tsb_wrap", "O", c.p));
}

const tsb_any& HeldValue(PyObject* capsule) {
  auto* v = static_cast<const tsb_any*>(PyCapsule_GetPointer(capsule, kValueCapsule));
  if (v == nullptr) throw PyErrorSet{};
  return *v;
}

const tsb_any* ObjectHandle(PyObject* obj) {
  if (PyObject_IsInstance(obj, g_object_base) != 1) return nullptr;
  Ref capsule(PyObject_GetAttr(obj, g_value_attr));
  if (capsule.p == nullptr) throw PyErrorSet{};
  return static_cast<const tsb_any*>(PyCapsule_GetPointer(capsule.p, kValueCapsule));
}

bool FromOwnClass(PyObject* obj, tsb_any* out) {
  if (const tsb_any* h = ObjectHandle(obj)) {  // the capsule keeps it alive
    *out = *h;
    tsb_any_retain(out);
    // A tsbridge.Tensor carries a graph: the call's results keep theirs.
    if (h->type_index == TSB_TYPE_TENSOR) MarkGraphCall();
    return true;
  }
  if (PyObject_IsInstance(obj, g_enum_base) != 1) return false;
  Ref index(PyObject_GetAttr(reinterpret_cast<PyObject*>(Py_TYPE(obj)), g_type_attr));
  if (index.p == nullptr) {  // a Python Enum of the user's: by member name
    PyErr_Clear();
    Ref name(Check(PyObject_GetAttrString(obj, "name")));
    Py_ssize_t len = 0;
    const char* s = PyUnicode_AsUTF8AndSize(name.p, &len);
    if (s == nullptr) throw PyErrorSet{};
    CheckStatus(tsb_str_new(s, static_cast<size_t>(len), out));
    return true;
  }
  const TypeEntry& t = Type(static_cast<int32_t>(PyLong_AsLong(index.p)));
  for (size_t i = 0; i < t.members.size(); ++i) {
    if (t.members[i] == obj) {
      *out = t.member_values[i];
      tsb_any_retain(out);
      return true;
    }
  }
  return false;
}

PyObject* TorchEnumToPython(int32_t type_index, int64_t code) {
  auto found = g_torch_enums.find({type_index, code});
  if (found != g_torch_enums.end()) return Py_NewRef(found->second);
  // The name ("float32", "cuda:0"), then torch's object.
  const std::string name = tsb::kit::TorchEnumName(type_index, code);
  const Torch& torch = GetTorch();
  Ref obj;
  if (!torch.available) {
    obj.p = Str(name);
  } else if (type_index == TSB_TYPE_DEVICE) {
    obj.p = Check(PyObject_CallFunction(torch.device_ctor, "s", name.c_str()));
  } else {
    obj.p = Check(PyObject_GetAttrString(torch.torch_module, name.c_str()));
  }
  g_torch_enums[{type_index, code}] = Py_NewRef(obj.p);
  return obj.release();
}

bool TorchEnumFromPython(PyObject* obj, tsb_any* out) {
  const Torch& torch = GetTorch();
  if (!torch.available) return false;
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  int32_t index;
  if (type == torch.dtype_type) index = TSB_TYPE_DTYPE;
  else if (type == torch.device_type) index = TSB_TYPE_DEVICE;
  else if (type == torch.layout_type) index = TSB_TYPE_LAYOUT;
  else if (type == torch.memory_format_type) index = TSB_TYPE_MEMORY_FORMAT;
  else return false;
  PyObject* code = PyDict_GetItemWithError(g_torch_enum_codes, obj);
  if (code != nullptr) {
    *out = tsb_any_inline(index, PyLong_AsLongLong(code));
    return true;
  }
  if (PyErr_Occurred()) throw PyErrorSet{};
  Ref text(Check(PyObject_Str(obj)));  // "torch.float32", "cuda:0"
  Ref json(Check(PyUnicode_FromFormat("\"%U\"", text.p)));
  tsb::Value v;
  CheckStatus(tsb_json_read(PyUnicode_AsUTF8(json.p), index, v.out()));
  if (PyDict_SetItem(g_torch_enum_codes, obj, Ref(PyLong_FromLongLong(v.get().u.i)).p) < 0) {
    throw PyErrorSet{};
  }
  *out = v.release();
  return true;
}

}  // namespace tsbpy
