// Python → boundary: a host for tsb::kit::Build (tsbridge/host/kit.hpp), which is
// type-directed: when the expected type is known (a schema's parameter, a
// container's element type) the kit dispatches on its kind and this host
// builds that shape (List[int] in one bulk copy, typed dicts and tuples);
// otherwise, or when the Python value does not have the shape, the value is
// built by its own Python type (Untyped) and the callee's tsb_any_coerce
// converts it to the expected type and reports a mismatch with its path.
#include <cstring>
#include <string>
#include <vector>

#include "host.h"

namespace tsbpy {
namespace {

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

// An int of one digit (|x| < 2**30), read inline: the commonest ints go
// without a call each (a List[int] of a million, a call's scalars).
inline bool SmallInt(PyObject* obj, int64_t* v) {
#if PY_VERSION_HEX >= 0x030C0000
  auto* l = reinterpret_cast<PyLongObject*>(obj);
  if (!PyUnstable_Long_IsCompact(l)) return false;
  *v = PyUnstable_Long_CompactValue(l);
#else
  const Py_ssize_t size = Py_SIZE(obj);  // the sign, and the number of digits
  if (size < -1 || size > 1) return false;
  *v = size * static_cast<int64_t>(reinterpret_cast<PyLongObject*>(obj)->ob_digit[0]);
#endif
  return true;
}

// An int above INT64_MAX crosses as a uint (tsb_any_uint, ABI 1.6).
void IntFromPython(PyObject* obj, tsb_any* out) {
  int64_t small = 0;
  if (SmallInt(obj, &small)) {
    *out = tsb_any_int(small);
    return;
  }
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(obj);
    if (!PyErr_Occurred()) {
      *out = tsb_any_uint(u);
      return;
    }
    PyErr_Clear();
  }
  if (overflow != 0) {
    Ref repr(Check(PyObject_Repr(obj)));
    tsb::kit::Fail(TSB_ERR_TYPE, std::string("expected int, got Python int ") +
                                     PyUnicode_AsUTF8(repr.p) +
                                     ", which is out of range for int (-2**63 to 2**64 - 1)");
  }
  if (x == -1 && PyErr_Occurred()) throw PyErrorSet{};
  *out = tsb_any_int(x);
}

// One bulk copy of n items, each read(item, &slot) or none when one is not
// exactly of the kind (read says false).
template <typename T, typename Read>
bool BulkOf(PyObject* const* src, size_t n, Read&& read,
            tsb_status* (*make)(const T*, size_t, tsb_any*), tsb_any* out) {
  T* buf = tsb::kit::Scratch<T>(n);
  for (size_t i = 0; i < n; ++i) {
    if (!read(src[i], &buf[i])) return false;
  }
  CheckStatus(make(buf, n, out));
  return true;
}

// List[int], List[float], List[bool] in one bulk copy; false when some
// item is not exactly of the kind (then the list is built item by item).
bool BulkList(PyObject* const* src, size_t n, int32_t element, tsb_any* out) {
  if (element == TSB_TYPE_INT) {
    return BulkOf<int64_t>(src, n, [](PyObject* item, int64_t* v) {
      if (!PyLong_CheckExact(item)) return false;
      if (SmallInt(item, v)) return true;
      int overflow = 0;
      *v = PyLong_AsLongLongAndOverflow(item, &overflow);
      return overflow == 0;
    }, tsb_list_new_int, out);
  }
  if (element == TSB_TYPE_FLOAT) {
    // ints too go item by item: the callee widens them, as coercion says
    return BulkOf<double>(src, n, [](PyObject* item, double* v) {
      if (!PyFloat_CheckExact(item)) return false;
      *v = PyFloat_AS_DOUBLE(item);
      return true;
    }, tsb_list_new_float, out);
  }
  if (element == TSB_TYPE_BOOL) {
    return BulkOf<bool>(src, n, [](PyObject* item, bool* v) {
      *v = item == Py_True;
      return PyBool_Check(item);
    }, tsb_list_new_bool, out);
  }
  return false;
}

// The element type an untyped list may be bulk copied as: its first item's.
int32_t BulkCandidate(PyObject* const* src, size_t n) {
  if (n == 0) return TSB_TYPE_ANY;
  if (PyLong_CheckExact(src[0])) return TSB_TYPE_INT;
  if (PyFloat_CheckExact(src[0])) return TSB_TYPE_FLOAT;
  if (PyBool_Check(src[0])) return TSB_TYPE_BOOL;
  return TSB_TYPE_ANY;
}

// The field names of a namedtuple (collections.namedtuple, a
// typing.NamedTuple) and the qualified name TorchScript gives its class
// ("__torch__.Point", torch.jit's rule); one of our NamedTuple classes
// keeps its type's name (none for a nameless one).
struct RecordNames {
  std::string qualified;
  bool nameless = false;
  std::vector<std::string> fields;
};

std::string StrAttr(PyObject* obj, const char* attr) {
  Ref value(PyObject_GetAttrString(obj, attr));
  const char* text = value.p != nullptr && PyUnicode_Check(value.p)
                         ? PyUnicode_AsUTF8(value.p) : nullptr;
  if (text == nullptr) {
    PyErr_Clear();
    return "";
  }
  return text;
}

bool NamedTupleNames(PyObject* obj, size_t n, RecordNames* out) {
  if (PyTuple_CheckExact(obj) || !PyTuple_Check(obj)) return false;
  PyObject* cls = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  Ref fields(PyObject_GetAttrString(cls, "_fields"));
  if (fields.p == nullptr || !PyTuple_Check(fields.p) ||
      static_cast<size_t>(PyTuple_GET_SIZE(fields.p)) != n) {
    PyErr_Clear();
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const char* field = PyUnicode_Check(PyTuple_GET_ITEM(fields.p, i))
                            ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields.p, i)) : nullptr;
    if (field == nullptr) {
      PyErr_Clear();
      return false;
    }
    out->fields.emplace_back(field);
  }
  Ref index(PyObject_GetAttrString(cls, "_tsb_type_index"));
  if (index.p != nullptr) {
    out->qualified = Type(static_cast<int32_t>(PyLong_AsLong(index.p))).name;
    out->nameless = out->qualified.empty();
    return true;
  }
  PyErr_Clear();
  const std::string module = StrAttr(cls, "__module__");
  out->qualified = module.empty() || module == "__main__" ? "__torch__."
                                                          : "__torch__." + module + ".";
  out->qualified += StrAttr(cls, "__name__");
  return true;
}

// A list, tuple or other sequence as the fast sequence API reads it.
struct Sequence {
  explicit Sequence(PyObject* obj) : seq(Check(PySequence_Fast(obj, "expected a sequence"))) {}
  size_t size() const { return static_cast<size_t>(PySequence_Fast_GET_SIZE(seq.p)); }
  PyObject* const* items() const { return PySequence_Fast_ITEMS(seq.p); }
  Ref seq;
};

void Release(void* obj) { Py_DECREF(static_cast<PyObject*>(obj)); }

// The items of a container as they were when read, held by the build until
// the value is made (docs/python.md): Python code an item runs (an
// __index__, a __dlpack__, a hash) may change the container or drop what
// it holds, and the one pass reads lent tensors and strs at the end. A
// list's items are held one by one (the list may change); a tuple's cannot
// change, and a sequence read into a new list (a subclass, by its
// iteration) is held whole.
class HeldItems {
 public:
  HeldItems(PyObject* obj, Sequence&& seq, tsb::kit::BuildContext& context)
      : context_(context), n_(seq.size()) {
    if (seq.seq.p != obj || !PyList_Check(obj)) {
      items_ = seq.items();
      context.Hold(seq.seq.release(), Release);
      return;
    }
    at_ = context.held();
    PyObject* const* items = seq.items();
    for (size_t i = 0; i < n_; ++i) context.Hold(Py_NewRef(items[i]), Release);
  }
  // Holds a dict's keys and values, in order (keys at even places).
  HeldItems(PyObject* dict, tsb::kit::BuildContext& context)
      : context_(context), at_(context.held()) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {  // runs no Python code
      context.Hold(Py_NewRef(key), Release);
      context.Hold(Py_NewRef(value), Release);
      n_ += 2;
    }
  }
  size_t size() const { return n_; }
  PyObject* operator[](size_t i) const {
    return items_ != nullptr ? items_[i] : static_cast<PyObject*>(context_.HeldAt(at_ + i));
  }

 private:
  tsb::kit::BuildContext& context_;
  PyObject* const* items_ = nullptr;  // else held from at_ on
  size_t at_ = 0;
  size_t n_ = 0;
};

struct PythonIn {
  explicit PythonIn(const TensorsIn& t) : tensors(t) {}
  using In = PyObject*;
  using Entry = TypeEntry;
  using Guard = RecursionGuard;
  using Context = tsb::kit::BuildContext;

  const Entry& Type(int32_t index) { return tsbpy::Type(index); }
  void Convert(PyObject* obj, int32_t expected, Context& context, tsb_any* out) {
    tsb::kit::Build(*this, context, obj, expected, out);
  }

  void Leaf(PyObject* obj, int32_t expected, Context& context, tsb_any* out) {
    // The commonest leaves first, exactly of the type asked for: no chain
    // of checks (a call's scalars and tensors).
    switch (expected) {
      case TSB_TYPE_INT:
        if (PyLong_CheckExact(obj)) return IntFromPython(obj, out);
        // A scripted method types dtype, layout and memory format
        // parameters as int; PyTorch passes the code, so do we.
        if (!PyLong_Check(obj) && TorchEnumFromPython(obj, out)) {
          out->type_index = TSB_TYPE_INT;
          return;
        }
        break;
      case TSB_TYPE_FLOAT:
        if (PyFloat_CheckExact(obj)) {
          *out = tsb_any_float(PyFloat_AS_DOUBLE(obj));
          return;
        }
        break;
      case TSB_TYPE_TENSOR:
        if (IsTensor(obj)) return TensorFromPython(obj, tensors, out);
        break;
      case TSB_TYPE_STR:
        if (PyUnicode_CheckExact(obj)) return StrFromPython(obj, out);
        break;
      default:
        break;
    }
    Untyped(obj, context, out);
  }

  // By the Python type alone.
  void Untyped(PyObject* obj, Context& context, tsb_any* out) {
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
      TensorFromPython(obj, tensors, out);
    } else if (TorchEnumFromPython(obj, out)) {
      return;
    } else if (PyTuple_Check(obj)) {
      Ref index(PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)),
                                       "_tsb_type_index"));
      if (index.p == nullptr) {  // a plain tuple, or a namedtuple of the user's
        PyErr_Clear();
        return BuildTuple(obj, nullptr, context, out);
      }
      // One of our NamedTuple classes: it keeps its type, even under Any.
      BuildTuple(obj, &Type(static_cast<int32_t>(PyLong_AsLong(index.p))), context, out);
    } else if (PyList_Check(obj)) {
      BuildList(obj, TSB_TYPE_ANY, context, out);
    } else if (PyDict_Check(obj)) {
      BuildDict(obj, TSB_TYPE_ANY, TSB_TYPE_ANY, context, out);
    } else if (FromOwnClass(obj, out)) {  // our objects, Enum members
      return;
    } else if (PyObject_HasAttrString(obj, "__dlpack__")) {  // numpy, cupy, ...
      Ref capsule(Check(PyObject_CallMethod(obj, "__dlpack__", nullptr)));
      TensorFromPython(capsule.p, tensors, out);
    } else {
      tsb::kit::Fail(TSB_ERR_TYPE, std::string("cannot convert Python ") + Py_TYPE(obj)->tp_name +
                                       " to a TorchScript value");
    }
  }

  bool IsNone(PyObject* obj) { return obj == Py_None; }

  const TensorsIn tensors;

  bool List(PyObject* obj, const Entry& type, Context& context, tsb_any* out) {
    if (!PyList_Check(obj) && !PyTuple_Check(obj)) return false;
    BuildList(obj, type.contained[0], context, out);
    return true;
  }

  bool Tuple(PyObject* obj, const Entry& type, Context& context, tsb_any* out) {
    if (!PyTuple_Check(obj) && !PyList_Check(obj)) return false;
    BuildTuple(obj, &type, context, out);
    return true;
  }

  bool Dict(PyObject* obj, const Entry& type, Context& context, tsb_any* out) {
    if (!PyDict_Check(obj)) return false;
    BuildDict(obj, type.contained[0], type.contained[1], context, out);
    return true;
  }

  // Our Enum members as they are, a Python Enum of the user's by its
  // member's name; a str (a name) is coerced by the callee.
  bool Enum(PyObject* obj, const Entry&, tsb_any* out) { return FromOwnClass(obj, out); }

  // No member of a Union took the value: the message the callee's coercion
  // gives, so that it is the one every host prints.
  [[noreturn]] void Mismatch(PyObject* obj, int32_t expected) {
    tsb::Value built, coerced;
    Context context;
    Untyped(obj, context, built.out());
    CheckStatus(tsb_any_coerce(&built.get(), expected, coerced.out()));
    tsb::kit::Fail(TSB_ERR_TYPE, "expected " + tsb::kit::Annotation(expected) + ", got Python " +
                                     Py_TYPE(obj)->tp_name);
  }

 private:
  void BuildList(PyObject* obj, int32_t element, Context& context, tsb_any* out) {
    Sequence seq(obj);
    const size_t n = seq.size();
    // Exact ints, floats and bools run no Python code: read in place.
    const int32_t bulk = element == TSB_TYPE_ANY ? BulkCandidate(seq.items(), n) : element;
    if (BulkList(seq.items(), n, bulk, out)) return;
    const HeldItems items(obj, std::move(seq), context);
    tsb::kit::ListBuilder b(context, element, n);
    for (size_t i = 0; i < n; ++i) {
      b.Item(i, [&](tsb_any* item) { Convert(items[i], element, context, item); });
    }
    b.Finish(out);
  }

  void BuildTuple(PyObject* obj, const Entry* type, Context& context, tsb_any* out) {
    const HeldItems items(obj, Sequence(obj), context);
    tsb::kit::TupleBuilder<Entry> b(context, type, items.size());
    for (size_t i = 0; i < b.size(); ++i) {
      b.Item(i, [&](tsb_any* item) { Convert(items[i], b.element(i), context, item); });
    }
    RecordNames names;
    const bool to_record = type != nullptr && type->kind == TSB_KIND_NAMEDTUPLE;
    if (to_record || !NamedTupleNames(obj, b.size(), &names)) return b.Finish(out);
    std::vector<const char*> fields;
    for (const std::string& f : names.fields) fields.push_back(f.c_str());
    b.FinishNamed(names.nameless ? nullptr : names.qualified.c_str(), fields, out);
  }

  void BuildDict(PyObject* obj, int32_t key_type, int32_t value_type, Context& context,
                 tsb_any* out) {
    const HeldItems items(obj, context);
    const size_t n = items.size() / 2;
    tsb::kit::DictBuilder b(context, key_type, value_type, n);
    for (size_t i = 0; i < n; ++i) {
      PyObject* key = items[2 * i];
      PyObject* value = items[2 * i + 1];
      b.Entry(
          i, [&] { return KeySegment(key); },
          [&](tsb_any* k) { Convert(key, key_type, context, k); },
          [&](tsb_any* v) { Convert(value, value_type, context, v); });
    }
    b.Finish(out);
  }
};

}  // namespace

void FromPython(PyObject* obj, int32_t expected, const TensorsIn& tensors, tsb_any* out) {
  PythonIn host(tensors);
  tsb::kit::Build(host, obj, expected, out);
}

void FromPython(PyObject* obj, int32_t expected, tsb_any* out) {
  FromPython(obj, expected, TensorsIn::OfThread(), out);
}

}  // namespace tsbpy
