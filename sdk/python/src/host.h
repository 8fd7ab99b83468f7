// The Python host of tsbridge: shared declarations.
//
// Everything here talks to tsbridge through tsbridge/tsbridge.h only (no
// LibTorch header: tests/python/check_includes.py enforces it). Every
// function runs with the GIL held unless it says otherwise.
#ifndef TSBRIDGE_PYTHON_HOST_H_
#define TSBRIDGE_PYTHON_HOST_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tsbridge/tsbridge.h"
#include "tsbridge/tsbridge.hpp"

struct tsbpy_torch_api;  // torch_fastpath.h

namespace tsbpy {

// ------------------------------------------------------------ ownership

// One boundary reference is a tsb::Value (tsbridge.hpp).

// A vector of boundary references, all released at the end; up to 8 live
// inline, since a call's arguments are usually few (no allocation per call).
class OwnedVec {
 public:
  OwnedVec() = default;
  explicit OwnedVec(size_t n) { resize(n); }
  OwnedVec(const OwnedVec&) = delete;
  OwnedVec& operator=(const OwnedVec&) = delete;
  ~OwnedVec() {  // only handles hold a reference: scalars need no call
    for (size_t i = 0; i < size_; ++i) {
      if (data_[i].flags & TSB_FLAG_HANDLE) tsb_any_release(&data_[i]);
    }
  }
  // Sizes an empty vector: n invalid (nothing to release) values.
  void resize(size_t n) {
    if (n > kInline) {
      heap_.assign(n, tsb_any_inline(TSB_TYPE_INVALID, 0));
      data_ = heap_.data();
    } else {
      for (size_t i = 0; i < n; ++i) inline_[i] = tsb_any_inline(TSB_TYPE_INVALID, 0);
    }
    size_ = n;
  }
  tsb_any* data() { return data_; }
  size_t size() const { return size_; }
  tsb_any& operator[](size_t i) { return data_[i]; }

 private:
  static constexpr size_t kInline = 8;
  tsb_any inline_[kInline];
  std::vector<tsb_any> heap_;
  tsb_any* data_ = inline_;
  size_t size_ = 0;
};

// A strong Python reference.
struct Ref {
  PyObject* p = nullptr;
  Ref() = default;
  explicit Ref(PyObject* o) : p(o) {}  // steals
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  Ref(Ref&& o) noexcept : p(o.p) { o.p = nullptr; }
  ~Ref() { Py_XDECREF(p); }
  PyObject* release() { PyObject* r = p; p = nullptr; return r; }
};

// ---------------------------------------------------------------- errors

// A Python exception is already set: unwinds to the entry point.
struct PyErrorSet {};

// A failure with a path into the value, before or after a boundary call;
// the entry point prefixes where it happened ("forward(): argument 'x'").
struct ConvertError {
  tsb_code code;
  std::string path;  // "[2] → key \"b\"", may be empty
  std::string detail;
};

// Python's recursion limit for walking nested values: a list nested 100k
// deep is a RecursionError, not a C stack overflow (found by
// tests/reliability/python/test_hostile.py).
class RecursionGuard {
 public:
  explicit RecursionGuard(const char* where) {
    if (Py_EnterRecursiveCall(where) != 0) throw PyErrorSet{};
  }
  ~RecursionGuard() { Py_LeaveRecursiveCall(); }
  RecursionGuard(const RecursionGuard&) = delete;
  RecursionGuard& operator=(const RecursionGuard&) = delete;
};

// Throws PyErrorSet if a Python error is set (after a NULL result).
PyObject* Check(PyObject* result);
// Throws ConvertError for a failed status (and frees it); no-op on NULL.
void CheckStatus(tsb_status* status);
// Prepends one path segment to a ConvertError.
[[noreturn]] void Rethrow(ConvertError& e, const std::string& segment);
// The path segment of a dict key, spelled as in every host (docs/abi.md):
// key "a" for a str, key 3 for an int, key <repr> otherwise.
std::string KeySegment(PyObject* key);
// Sets the Python exception for a ConvertError: tsbridge.<Code>Error with
// .code, .path, .detail; `where` is prefixed to the path.
void SetError(const ConvertError& e, const std::string& where = "");
// Sets the Python exception for a status; frees it.
void SetStatusError(tsb_status* status, const std::string& where = "");
// Runs `body` and turns C++ exceptions into a Python error and NULL.
template <typename Body>
PyObject* Entry(Body&& body, const std::string& where = "") {
  try {
    return body();
  } catch (const PyErrorSet&) {
    return nullptr;
  } catch (const ConvertError& e) {
    SetError(e, where);
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}
// The error classes of tsbridge._errors, by code.
void InitErrors(PyObject* errors_module);

// ------------------------------------------------------------------ torch

// torch, when importable: the objects the converters need, looked up once.
struct Torch {
  bool available = false;
  PyObject* tensor_type = nullptr;  // torch.Tensor
  PyObject* dtype_type = nullptr;
  PyObject* device_type = nullptr;
  PyObject* layout_type = nullptr;
  PyObject* memory_format_type = nullptr;
  PyObject* to_dlpack = nullptr;    // torch._C._to_dlpack
  PyObject* from_dlpack = nullptr;  // torch._C._from_dlpack
  PyObject* device_ctor = nullptr;  // torch.device
  PyObject* torch_module = nullptr;
  PyObject* bool_dtype = nullptr;
  PyObject* uint8_dtype = nullptr;
  bool dlpack_bool = false;  // torch 2.x: its DLPack reads and writes kDLBool
  // The companion tsbridge._torch's conversions (torch_fastpath.h), or
  // NULL: then tensors cross as DLPack. `fast_reason` says why not.
  const tsbpy_torch_api* fast = nullptr;
  std::string fast_reason;
};
const Torch& GetTorch();
void InitTorch();

// ------------------------------------------------------------------ types

// What the host caches per type index: the type info and, for named types,
// the Python class every value of the type gets (the same object each call).
struct TypeEntry {
  int32_t index = TSB_TYPE_INVALID;
  tsb_kind kind = TSB_KIND_INVALID;
  std::string annotation;
  std::string name;
  std::vector<int32_t> contained;
  std::vector<const char*> fields;  // static storage in the library
  PyObject* cls = nullptr;          // NamedTuple, Enum or Object class
  std::vector<PyObject*> members;   // Enum: the member objects, by field order
  std::vector<tsb_any> member_values;  // Enum: each member as a boundary value
  TypeEntry() = default;
  TypeEntry(const TypeEntry&) = delete;
  TypeEntry& operator=(const TypeEntry&) = delete;
  ~TypeEntry();  // with the GIL held
};
// The entry of a type index; throws ConvertError for an unknown index.
const TypeEntry& Type(int32_t index);
// The Python class factories of tsbridge._types.
void InitTypes(PyObject* types_module);
// Python → boundary for our Enum members and Objects; NULL when `obj` is none.
bool FromOwnClass(PyObject* obj, tsb_any* out);
// Wraps an object handle in its class (takes the reference).
PyObject* WrapObject(const TypeEntry& type, tsb_any handle);
// Wraps any handle in a tsbridge._types.Object subclass (takes the reference).
PyObject* WrapHandle(PyObject* cls, tsb_any handle);
// The handle inside a wrapped object, or nullptr.
const tsb_any* ObjectHandle(PyObject* obj);
// dtype, layout, memory format, device <-> torch objects (or names).
PyObject* TorchEnumToPython(int32_t type_index, int64_t code);
bool TorchEnumFromPython(PyObject* obj, tsb_any* out);

// ------------------------------------------------------------- conversion

// Boundary → Python: a new reference. `v` is borrowed.
PyObject* ToPython(const tsb_any& v);
// Python → boundary, directed by `expected` (TSB_TYPE_ANY or
// TSB_TYPE_INVALID when unknown): a new reference in *out. Builds what the
// type asks for when it can; otherwise builds the value by its Python type
// and leaves the coercion (and its error, with the path) to the callee.
void FromPython(PyObject* obj, int32_t expected, tsb_any* out);

// A buffer for bulk list copies, reused across calls (only with the GIL
// held, never across a call back into Python): a fresh 8 MB buffer per
// million ints costs page faults on every call.
void* ScratchBytes(size_t bytes);
template <typename T>
T* Scratch(size_t n) {
  return static_cast<T*>(ScratchBytes(n * sizeof(T)));
}

// Tensors through DLPack (tensors.cc).
PyObject* TensorToPython(const tsb_any& v);
bool IsTensor(PyObject* obj);  // a torch.Tensor or a DLPack capsule
void TensorFromPython(PyObject* obj, tsb_any* out);

// Per call: a tensor that went in comes back as the same Python object when
// the callee returns it, as PyTorch does (tsb_any_get_id); the same Python
// tensor passed twice crosses once. Scopes nest; lookups see outer scopes.
class IdentityScope {
 public:
  IdentityScope();
  ~IdentityScope();
  IdentityScope(const IdentityScope&) = delete;
  IdentityScope& operator=(const IdentityScope&) = delete;
  // Records that `handle` was made from, or given as, the Python object `obj`.
  void Remember(const tsb_any& handle, PyObject* obj);
  // The Python object a handle was made from, or nullptr (borrowed).
  PyObject* FindObject(const tsb_any& handle) const;
  // The handle made from a Python object, or nullptr (borrowed).
  const tsb_any* FindHandle(PyObject* obj) const;
  // Whether tensors made for Python are remembered too (tracing: the
  // host function must hand the tracer's own tensors back).
  bool keep_outputs = false;
  // The innermost scope that keeps outputs, or nullptr.
  static IdentityScope* Keeper();
  // Whether a tsbridge.Tensor went in (autograd.cc): results that require
  // grad then come back as tsbridge.Tensor, keeping their graph.
  bool graph = false;
  IdentityScope* outer() const { return outer_; }

 private:
  struct Entry {
    uint64_t id;
    PyObject* obj;   // a strong reference
    tsb_any handle;  // a reference: keeps the id unique
  };
  void Index() const;  // brings the maps up to date (only for many entries)
  static constexpr size_t kLinear = 16;  // below: a linear search, no map
  std::vector<Entry> entries_;
  mutable std::unordered_map<uint64_t, size_t> by_id_;
  mutable std::unordered_map<PyObject*, size_t> by_object_;
  mutable size_t indexed_ = 0;
  IdentityScope* outer_;
};

// ---------------------------------------------------------------- autograd

// tsbridge.Tensor (autograd.cc): a tensor handle with its graph, for the
// ABI's autograd. InitAutograd reads the class from tsbridge._types.
void InitAutograd(PyObject* types_module);
// Marks the innermost call scope as one a tsbridge.Tensor went into.
void MarkGraphCall();
// A tensor result as tsbridge.Tensor when the call carries a graph and the
// tensor requires grad; nullptr otherwise (then it crosses as DLPack).
PyObject* GraphTensorToPython(const tsb_any& v);
// The native functions of autograd.cc, added to tsbridge._native.
extern PyMethodDef kAutogradFunctions[];

}  // namespace tsbpy

#endif  // TSBRIDGE_PYTHON_HOST_H_
