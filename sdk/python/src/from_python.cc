// Python → boundary. Type-directed: when the expected type is known (a
// schema's parameter, a container's element type) the converter builds
// that type directly (List[int] in one bulk copy, typed dicts); otherwise,
// or when the Python value does not fit, it builds the value by its own
// Python type and the callee's tsb_any_coerce converts it to the expected type
// and reports a mismatch with its path.
#include <cstring>
#include <string>

#include "host.h"

namespace tsbpy {
namespace {

void Untyped(PyObject* obj, tsb_any* out);

std::string PythonTypeName(PyObject* obj) { return Py_TYPE(obj)->tp_name; }

void StrFromPython(PyObject* obj, tsb_any* out) {
  // Borrowed: the UTF-8 text is cached in the str, which the caller's
  // arguments keep alive until the call returns; builders copy it.
  Py_ssize_t len = 0;
  const char* data = PyUnicode_AsUTF8AndSize(obj, &len);
  if (data == nullptr) throw PyErrorSet{};
  if (static_cast<size_t>(len) != std::strlen(data)) {  // an embedded NUL
    CheckStatus(tsb_str_new(data, static_cast<size_t>(len), out));
    return;
  }
  *out = tsb_any_borrowed_str(data);
}

void IntFromPython(PyObject* obj, tsb_any* out) {
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow != 0) {
    Ref repr(Check(PyObject_Repr(obj)));
    throw ConvertError{TSB_ERR_TYPE, "",
                       std::string("expected int, got Python int ") + PyUnicode_AsUTF8(repr.p) +
                           ", which is out of range for int (64 bits)"};
  }
  if (x == -1 && PyErr_Occurred()) throw PyErrorSet{};
  *out = tsb_any_int(x);
}

// Converts each item with `element`, collecting the results.
void Items(PyObject* seq, int32_t element, OwnedVec& items) {
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** src = PySequence_Fast_ITEMS(seq);
  items.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    try {
      FromPython(src[i], element, &items[i]);
    } catch (ConvertError& e) {
      Rethrow(e, "[" + std::to_string(i) + "]");
    }
  }
}

// One type index when every item has it, else Any (for untyped containers).
int32_t CommonType(OwnedVec& items) {
  if (items.size() == 0) return TSB_TYPE_ANY;
  const int32_t first = items[0].type_index;
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].type_index != first) return TSB_TYPE_ANY;
  }
  return first;
}

// List[int], List[float], List[bool] in one bulk copy; false when some
// item is not of the kind (then the caller builds it item by item).
bool BulkList(PyObject* seq, int32_t element, tsb_any* out) {
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** src = PySequence_Fast_ITEMS(seq);
  if (element == TSB_TYPE_INT) {
    int64_t* buf = Scratch<int64_t>(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!PyLong_CheckExact(src[i])) return false;
      int overflow = 0;
      buf[i] = PyLong_AsLongLongAndOverflow(src[i], &overflow);
      if (overflow != 0) return false;
    }
    CheckStatus(tsb_list_new_int(buf, static_cast<size_t>(n), out));
    return true;
  }
  if (element == TSB_TYPE_FLOAT) {
    double* buf = Scratch<double>(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (PyFloat_CheckExact(src[i])) {
        buf[i] = PyFloat_AS_DOUBLE(src[i]);
      } else {
        return false;  // ints too: the callee widens them, as coercion says
      }
    }
    CheckStatus(tsb_list_new_float(buf, static_cast<size_t>(n), out));
    return true;
  }
  if (element == TSB_TYPE_BOOL) {
    bool* buf = Scratch<bool>(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!PyBool_Check(src[i])) return false;
      buf[i] = src[i] == Py_True;
    }
    CheckStatus(tsb_list_new_bool(buf, static_cast<size_t>(n), out));
    return true;
  }
  return false;
}

void ListFromPython(PyObject* obj, int32_t element, tsb_any* out) {
  Ref seq(Check(PySequence_Fast(obj, "expected a sequence")));
  if (element != TSB_TYPE_ANY && BulkList(seq.p, element, out)) return;
  OwnedVec items;
  Items(seq.p, element, items);
  if (element == TSB_TYPE_ANY) {  // untyped: the items' own type if common
    const int32_t common = CommonType(items);
    if (common == TSB_TYPE_INT || common == TSB_TYPE_FLOAT || common == TSB_TYPE_BOOL) {
      if (BulkList(seq.p, common, out)) return;
    }
    element = common;
  }
  CheckStatus(tsb_list_new(element, items.data(), items.size(), out));
}

void TupleFromPython(PyObject* obj, const TypeEntry* type, tsb_any* out) {
  Ref seq(Check(PySequence_Fast(obj, "expected a sequence")));
  OwnedVec items;
  const size_t n = static_cast<size_t>(PySequence_Fast_GET_SIZE(seq.p));
  if (type != nullptr && type->contained.size() == n) {
    PyObject** src = PySequence_Fast_ITEMS(seq.p);
    items.resize(n);
    for (size_t i = 0; i < n; ++i) {
      try {
        FromPython(src[i], type->contained[i], &items[i]);
      } catch (ConvertError& e) {
        Rethrow(e, type->kind == TSB_KIND_NAMEDTUPLE
                       ? std::string("field '") + type->fields[i] + "'"
                       : "[" + std::to_string(i) + "]");
      }
    }
  } else {
    Items(seq.p, TSB_TYPE_ANY, items);
  }
  CheckStatus(tsb_tuple_new(items.data(), n, out));
}

void DictFromPython(PyObject* obj, int32_t key_type, int32_t value_type, tsb_any* out) {
  const Py_ssize_t n = PyDict_Size(obj);
  OwnedVec keys(static_cast<size_t>(n)), values(static_cast<size_t>(n));
  PyObject *key, *value;
  Py_ssize_t pos = 0, i = 0;
  while (PyDict_Next(obj, &pos, &key, &value)) {
    try {
      FromPython(key, key_type, &keys[i]);
    } catch (ConvertError& e) {
      Rethrow(e, KeySegment(key));
    }
    try {
      FromPython(value, value_type, &values[i]);
    } catch (ConvertError& e) {
      Rethrow(e, KeySegment(key));
    }
    ++i;
  }
  if (key_type == TSB_TYPE_ANY) key_type = CommonType(keys);
  if (value_type == TSB_TYPE_ANY) value_type = CommonType(values);
  CheckStatus(tsb_dict_new(key_type, value_type, keys.data(), values.data(),
                           static_cast<size_t>(n), out));
}

// By the Python type alone.
void Untyped(PyObject* obj, tsb_any* out) {
  if (obj == Py_None) {
    *out = tsb_any_none();
  } else if (PyBool_Check(obj)) {
    *out = tsb_any_bool(obj == Py_True);
  } else if (PyLong_Check(obj)) {
    IntFromPython(obj, out);
  } else if (PyFloat_Check(obj)) {
    *out = tsb_any_float(PyFloat_AS_DOUBLE(obj));
  } else if (PyComplex_Check(obj)) {
    CheckStatus(tsb_complex_new(PyComplex_RealAsDouble(obj), PyComplex_ImagAsDouble(obj), out));
  } else if (PyUnicode_Check(obj)) {
    StrFromPython(obj, out);
  } else if (IsTensor(obj)) {
    TensorFromPython(obj, out);
  } else if (TorchEnumFromPython(obj, out)) {
    return;
  } else if (PyTuple_Check(obj)) {
    Ref index(PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)),
                                     "_tsb_type_index"));
    if (index.p == nullptr) {  // a plain tuple, or a namedtuple of the user's
      PyErr_Clear();
      return TupleFromPython(obj, nullptr, out);
    }
    // One of our NamedTuple classes: it keeps its type, even under Any.
    const TypeEntry& type = Type(static_cast<int32_t>(PyLong_AsLong(index.p)));
    tsb::Value plain;
    TupleFromPython(obj, &type, plain.out());
    CheckStatus(tsb_any_coerce(&plain.get(), type.index, out));
  } else if (PyList_Check(obj)) {
    ListFromPython(obj, TSB_TYPE_ANY, out);
  } else if (PyDict_Check(obj)) {
    DictFromPython(obj, TSB_TYPE_ANY, TSB_TYPE_ANY, out);
  } else if (FromOwnClass(obj, out)) {  // our objects, Enum members
    return;
  } else if (PyObject_HasAttrString(obj, "__dlpack__")) {  // numpy, cupy, ...
    Ref capsule(Check(PyObject_CallMethod(obj, "__dlpack__", nullptr)));
    TensorFromPython(capsule.p, out);
  } else {
    throw ConvertError{TSB_ERR_TYPE, "",
                       "cannot convert Python " + PythonTypeName(obj) +
                           " to a TorchScript value"};
  }
}

}  // namespace

void FromPython(PyObject* obj, int32_t expected, tsb_any* out) {
  // The commonest leaves first, exactly of the type asked for: no recursion
  // to guard, no chain of checks (a call's scalars and tensors).
  switch (expected) {
    case TSB_TYPE_INT:
      if (PyLong_CheckExact(obj)) return IntFromPython(obj, out);
      break;
    case TSB_TYPE_FLOAT:
      if (PyFloat_CheckExact(obj)) {
        *out = tsb_any_float(PyFloat_AS_DOUBLE(obj));
        return;
      }
      break;
    case TSB_TYPE_TENSOR:
      if (IsTensor(obj)) return TensorFromPython(obj, out);
      break;
    case TSB_TYPE_STR:
      if (PyUnicode_CheckExact(obj)) return StrFromPython(obj, out);
      break;
    default:
      break;
  }
  RecursionGuard guard(" while converting a nested Python value");
  switch (expected) {  // fast paths for the leaves
    case TSB_TYPE_INVALID:
    case TSB_TYPE_ANY:
    case TSB_TYPE_NUMBER:
    case TSB_TYPE_NONE:
    case TSB_TYPE_BOOL:
    case TSB_TYPE_FLOAT:
    case TSB_TYPE_COMPLEX:
    case TSB_TYPE_STR:
    case TSB_TYPE_TENSOR:
    case TSB_TYPE_DEVICE:
    case TSB_TYPE_DTYPE:
    case TSB_TYPE_LAYOUT:
    case TSB_TYPE_MEMORY_FORMAT:
      return Untyped(obj, out);
    case TSB_TYPE_INT:
      // A scripted method types dtype, layout and memory format parameters
      // as int; PyTorch passes the code, so do we.
      if (!PyLong_Check(obj) && TorchEnumFromPython(obj, out)) {
        out->type_index = TSB_TYPE_INT;
        return;
      }
      return Untyped(obj, out);
    default:
      break;
  }
  const TypeEntry& type = Type(expected);
  switch (type.kind) {
    case TSB_KIND_LIST:
      if (PyList_Check(obj) || PyTuple_Check(obj)) {
        return ListFromPython(obj, type.contained[0], out);
      }
      break;
    case TSB_KIND_DICT:
      if (PyDict_Check(obj)) return DictFromPython(obj, type.contained[0], type.contained[1], out);
      break;
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE:
      if (PyTuple_Check(obj) || PyList_Check(obj)) return TupleFromPython(obj, &type, out);
      break;
    case TSB_KIND_OPTIONAL:
      if (obj == Py_None) {
        *out = tsb_any_none();
        return;
      }
      return FromPython(obj, type.contained[0], out);
    default:
      break;  // Union, Enum, objects: by the value; the callee coerces
  }
  Untyped(obj, out);
}

}  // namespace tsbpy
