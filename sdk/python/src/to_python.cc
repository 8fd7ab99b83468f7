// Boundary → Python, one converter per kind, chosen by the value's type
// index (its dynamic type; abstract kinds never reach here). Lists of int,
// float and bool come out with one bulk copy; other lists and tuples with
// one tsb_list_get_items, dicts with one tsb_dict_get_items.
#include <vector>
#include <string>

#include "host.h"

namespace tsbpy {
namespace {

PyObject* StrToPython(const tsb_any& v) {
  const char* data = nullptr;
  size_t len = 0;
  CheckStatus(tsb_str_get(&v, &data, &len));
  return Check(PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(len), "replace"));
}

PyObject* ComplexToPython(const tsb_any& v) {
  double re = 0, im = 0;
  CheckStatus(tsb_complex_get(&v, &re, &im));
  return Check(PyComplex_FromDoubles(re, im));
}

size_t Length(const tsb_any& v) {
  size_t n = 0;
  CheckStatus(tsb_any_len(&v, &n));
  return n;
}

// Bulk copy into a buffer, then one Python object per element.
template <typename T, typename Copy, typename Make>
PyObject* BulkList(const tsb_any& v, size_t n, Copy copy, Make make) {
  T* buffer = Scratch<T>(n);
  CheckStatus(copy(&v, n, buffer));
  Ref list(Check(PyList_New(static_cast<Py_ssize_t>(n))));
  for (size_t i = 0; i < n; ++i) {
    PyList_SET_ITEM(list.p, static_cast<Py_ssize_t>(i), Check(make(buffer[i])));
  }
  return list.release();
}

// All elements of a List or Tuple in one tsb_list_get_items, each converted
// into `put(i, object)`; errors get the "[i]" segment.
template <typename Put>
void Items(const tsb_any& v, size_t n, Put put) {
  OwnedVec items(n);
  CheckStatus(tsb_list_get_items(&v, n, items.data()));
  for (size_t i = 0; i < n; ++i) {
    try {
      put(i, ToPython(items[i]));
    } catch (ConvertError& e) {
      Rethrow(e, "[" + std::to_string(i) + "]");
    }
  }
}

PyObject* ListToPython(const TypeEntry& type, const tsb_any& v) {
  const size_t n = Length(v);
  switch (type.contained[0]) {
    case TSB_TYPE_INT:
      return BulkList<int64_t>(v, n, tsb_list_copy_int,
                               [](int64_t x) { return PyLong_FromLongLong(x); });
    case TSB_TYPE_FLOAT:
      return BulkList<double>(v, n, tsb_list_copy_float,
                              [](double x) { return PyFloat_FromDouble(x); });
    case TSB_TYPE_BOOL:
      return BulkList<bool>(v, n, tsb_list_copy_bool,
                            [](bool x) { return PyBool_FromLong(x); });
    default:
      break;
  }
  Ref list(Check(PyList_New(static_cast<Py_ssize_t>(n))));
  Items(v, n, [&](size_t i, PyObject* item) {
    PyList_SET_ITEM(list.p, static_cast<Py_ssize_t>(i), item);
  });
  return list.release();
}

PyObject* TupleItems(const tsb_any& v) {
  const size_t n = Length(v);
  Ref tuple(Check(PyTuple_New(static_cast<Py_ssize_t>(n))));
  Items(v, n, [&](size_t i, PyObject* item) {
    PyTuple_SET_ITEM(tuple.p, static_cast<Py_ssize_t>(i), item);
  });
  return tuple.release();
}

PyObject* NamedTupleToPython(const TypeEntry& type, const tsb_any& v) {
  Ref items(TupleItems(v));
  // tuple.__new__(cls, items): the namedtuple's own __new__ is Python code.
  Ref args(Check(PyTuple_Pack(1, items.p)));
  return Check(PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(type.cls), args.p, nullptr));
}

PyObject* DictToPython(const tsb_any& v) {
  const size_t n = Length(v);
  OwnedVec keys(n), values(n);
  CheckStatus(tsb_dict_get_items(&v, n, keys.data(), values.data()));
  Ref dict(Check(PyDict_New()));
  for (size_t i = 0; i < n; ++i) {
    Ref key(ToPython(keys[i]));
    Ref value;
    try {
      value.p = ToPython(values[i]);
    } catch (ConvertError& e) {
      Rethrow(e, KeySegment(key.p));
    }
    if (PyDict_SetItem(dict.p, key.p, value.p) < 0) throw PyErrorSet{};
  }
  return dict.release();
}

PyObject* EnumToPython(const TypeEntry& type, const tsb_any& v) {
  const char* member = nullptr;
  CheckStatus(tsb_enum_get(&v, &member, nullptr));
  for (size_t i = 0; i < type.fields.size(); ++i) {  // the same static strings
    if (type.fields[i] == member) return Py_NewRef(type.members[i]);
  }
  for (size_t i = 0; i < type.fields.size(); ++i) {
    if (std::string(type.fields[i]) == member) return Py_NewRef(type.members[i]);
  }
  throw ConvertError{TSB_ERR_INTERNAL, "", type.name + " has no member " + member};
}

}  // namespace

void* ScratchBytes(size_t bytes) {
  static std::vector<unsigned char> scratch;
  if (scratch.size() < bytes || scratch.empty()) scratch.resize(bytes > 0 ? bytes : 1);
  return scratch.data();
}

PyObject* ToPython(const tsb_any& v) {
  switch (v.type_index) {  // the fixed leaf indices first: no lookup
    case TSB_TYPE_NONE:
      Py_RETURN_NONE;
    case TSB_TYPE_BOOL:
      return PyBool_FromLong(v.u.i != 0);
    case TSB_TYPE_INT:
      return Check(PyLong_FromLongLong(v.u.i));
    case TSB_TYPE_FLOAT:
      return Check(PyFloat_FromDouble(v.u.d));
    case TSB_TYPE_COMPLEX:
      return ComplexToPython(v);
    case TSB_TYPE_STR:
      return StrToPython(v);
    case TSB_TYPE_TENSOR:
      return TensorToPython(v);
    case TSB_TYPE_DEVICE:
    case TSB_TYPE_DTYPE:
    case TSB_TYPE_LAYOUT:
    case TSB_TYPE_MEMORY_FORMAT:
      return TorchEnumToPython(v.type_index, v.u.i);
    default:
      break;
  }
  RecursionGuard guard(" while converting a nested TorchScript value");
  const TypeEntry& type = Type(v.type_index);
  switch (type.kind) {
    case TSB_KIND_LIST:
      return ListToPython(type, v);
    case TSB_KIND_DICT:
      return DictToPython(v);
    case TSB_KIND_TUPLE:
      return TupleItems(v);
    case TSB_KIND_NAMEDTUPLE:
      return NamedTupleToPython(type, v);
    case TSB_KIND_ENUM:
      return EnumToPython(type, v);
    case TSB_KIND_OBJECT:
    case TSB_KIND_CUSTOM_CLASS: {
      tsb_any handle = v;
      tsb_any_retain(&handle);
      return WrapObject(type, handle);
    }
    default:
      throw ConvertError{TSB_ERR_UNSUPPORTED, "",
                         "the Python host cannot convert a value of type " + type.annotation};
  }
}

}  // namespace tsbpy
