// Boundary → Python: a host for tsb::kit::Walk (tsbridge/host/kit.hpp), which
// dispatches on the value's type index (its dynamic type; abstract kinds
// never reach here), fetches a container's items in one call and names the
// path of a failure. Here only how each kind looks in Python: lists of
// int, float and bool come out of one bulk copy, NamedTuples as their
// cached class, Enum values as the class's members, objects wrapped.
#include <string>

#include "host.h"

namespace tsbpy {
namespace {

// kBorrow: tensors come as borrowed entries, which TensorToPython wraps
// (the companion's to_torch) and keeps a reference of (tsb_any_keep) only
// where it stores one. Without the companion (DLPack) each tensor needs a
// handle anyway (its id, its export), so the walk makes them as before.
template <bool kBorrow>
struct PythonOut {
  using Out = Ref;
  using Entry = TypeEntry;
  using Guard = RecursionGuard;
  using Items = tsb::kit::Items<PythonOut>;
  using DictItems = tsb::kit::DictItems<PythonOut>;
  static constexpr bool kBorrowTensors = kBorrow;

  const Entry& Type(int32_t index) { return tsbpy::Type(index); }

  Out None() { return Out(Py_NewRef(Py_None)); }
  Out Bool(bool b) { return Out(PyBool_FromLong(b)); }
  Out Int(int64_t i) { return Out(Check(PyLong_FromLongLong(i))); }
  Out UInt(uint64_t u) { return Out(Check(PyLong_FromUnsignedLongLong(u))); }
  Out Float(double d) { return Out(Check(PyFloat_FromDouble(d))); }
  Out Complex(double re, double im) { return Out(Check(PyComplex_FromDoubles(re, im))); }
  Out Str(const char* data, size_t len) {
    return Out(Check(PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(len), "replace")));
  }
  Out Tensor(const tsb_any& v) { return Out(TensorToPython(v)); }
  Out TorchEnum(int32_t type, int64_t code) { return Out(TorchEnumToPython(type, code)); }

  // A bulk copy's buffer, one Python object per element.
  template <typename T, typename Make>
  static Out BulkList(const T* data, size_t n, Make make) {
    Ref list(Check(PyList_New(static_cast<Py_ssize_t>(n))));
    for (size_t i = 0; i < n; ++i) {
      PyList_SET_ITEM(list.p, static_cast<Py_ssize_t>(i), Check(make(data[i])));
    }
    return list;
  }
  Out IntList(const Entry&, const int64_t* data, size_t n) {
    return BulkList(data, n, [](int64_t x) { return PyLong_FromLongLong(x); });
  }
  Out FloatList(const Entry&, const double* data, size_t n) {
    return BulkList(data, n, [](double x) { return PyFloat_FromDouble(x); });
  }
  Out BoolList(const Entry&, const bool* data, size_t n) {
    return BulkList(data, n, [](bool x) { return PyBool_FromLong(x); });
  }

  Out List(const Entry&, Items& items) {
    Ref list(Check(PyList_New(static_cast<Py_ssize_t>(items.size()))));
    for (size_t i = 0; i < items.size(); ++i) {
      PyList_SET_ITEM(list.p, static_cast<Py_ssize_t>(i), items.Walk(i).release());
    }
    return list;
  }

  Out Tuple(const Entry& type, Items& items) {
    Ref tuple(Check(PyTuple_New(static_cast<Py_ssize_t>(items.size()))));
    for (size_t i = 0; i < items.size(); ++i) {
      PyTuple_SET_ITEM(tuple.p, static_cast<Py_ssize_t>(i), items.Walk(i).release());
    }
    if (type.kind != TSB_KIND_NAMEDTUPLE) return tuple;
    // tuple.__new__(cls, items): the namedtuple's own __new__ is Python code.
    Ref args(Check(PyTuple_Pack(1, tuple.p)));
    return Out(
        Check(PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(type.cls), args.p, nullptr)));
  }

  Out Dict(const Entry&, DictItems& items) {
    Ref dict(Check(PyDict_New()));
    for (size_t i = 0; i < items.size(); ++i) {
      Ref key = items.Key(i);
      // The value's path names the key as Python shows it.
      Ref value = items.Value(i, [&] { return KeySegment(key.p); });
      if (PyDict_SetItem(dict.p, key.p, value.p) < 0) throw PyErrorSet{};
    }
    return dict;
  }

  Out Enum(const Entry& type, const tsb_any& v) {
    const char* member = nullptr;
    CheckStatus(tsb_enum_get(&v, &member, nullptr));
    for (size_t i = 0; i < type.fields.size(); ++i) {  // the same static strings
      if (type.fields[i] == member) return Out(Py_NewRef(type.members[i]));
    }
    for (size_t i = 0; i < type.fields.size(); ++i) {
      if (std::string(type.fields[i]) == member) return Out(Py_NewRef(type.members[i]));
    }
    tsb::kit::Fail(TSB_ERR_INTERNAL, type.name + " has no member " + member);
  }

  Out Object(const Entry& type, const tsb_any& v) {
    tsb_any handle = v;
    tsb_any_retain(&handle);
    return Out(WrapObject(type, handle));
  }
};

}  // namespace

PyObject* ToPython(const tsb_any& v) {
  if (GetTorch().fast_borrows) {
    PythonOut<true> host;
    return tsb::kit::Walk(host, v).release();
  }
  PythonOut<false> host;
  return tsb::kit::Walk(host, v).release();
}

}  // namespace tsbpy
