// The Python host of tsbridge: shared declarations.
//
// Everything here talks to tsbridge through tsbridge/tsbridge.h only (no
// LibTorch header: hosts/python/tests/check_includes.py enforces it). Every
// function runs with the GIL held unless it says otherwise.
#ifndef TSBRIDGE_PYTHON_HOST_H_
#define TSBRIDGE_PYTHON_HOST_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tsbridge/host/kit.hpp"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

struct tsbpy_torch_api;  // torch_fastpath.h
// dlpack.h's (DLPack 1.2 and newer), declared here at global scope: an
// elaborated name inside tsbpy would declare a tsbpy::DLPackExchangeAPI
// wherever this header comes before dlpack.h.
struct DLPackExchangeAPI;

namespace tsbpy {

// ------------------------------------------------------------ ownership

// One boundary reference is a tsb::Value (tsbridge.hpp); many, an OwnedVec
// (tsbridge/host/kit.hpp).
using tsb::kit::OwnedVec;

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

// A failure with a path into the value (tsbridge/host/kit.hpp); the entry point
// prefixes where it happened ("forward(): argument 'x'").
using ConvertError = tsb::kit::ConvertError;
using tsb::kit::CheckStatus;

// Walks of nested values stop at the kit's limit, TSB_MAX_DEPTH containers
// (what the core accepts), and at Python's recursion limit, whichever comes
// first: a list nested 100k deep is an error, not a C stack overflow (found
// by tests/reliability/python/test_hostile.py). Python's limit alone did not
// bound the C stack: Python 3.12 and newer check C recursion against a limit
// of their own, and a 100k-deep list overflowed the stack on Debian 13
// (Python 3.13) in the package build. The kit's Walk and Build make one per
// container.
class RecursionGuard {
 public:
  RecursionGuard() {
    if (Py_EnterRecursiveCall(" while converting a nested value") != 0) throw PyErrorSet{};
  }
  ~RecursionGuard() { Py_LeaveRecursiveCall(); }
 private:
  tsb::kit::NestingGuard nesting_;
  RecursionGuard(const RecursionGuard&) = delete;
  RecursionGuard& operator=(const RecursionGuard&) = delete;
};

// Throws PyErrorSet if a Python error is set (after a NULL result).
PyObject* Check(PyObject* result);
// Raises a failed status as tsbridge's exception (PyErrorSet); no-op on NULL.
void Raise(tsb_status* status);
// A C string (NULL: "") as a Python str, invalid UTF-8 replaced.
PyObject* Text(const char* s);
// The string write(&text) makes (the ABI's, freed here) as a str.
template <typename Write>
PyObject* TextOf(Write&& write) {
  char* text = nullptr;
  Raise(write(&text));
  std::unique_ptr<char, decltype(&tsb_string_free)> owned(text, &tsb_string_free);
  return Text(text);
}
// A list of n C strings as str (NULL reads as "").
PyObject* StringList(const char* const* items, size_t n);
// The path segment of a dict key, spelled as in every host (docs/abi.md):
// key "a" for a str, key 3 for an int, key <repr> otherwise.
std::string KeySegment(PyObject* key);
// Sets the Python exception for a ConvertError: tsbridge.<Code>Error with
// .code, .path, .detail (and .backtrace, if any); `where` is prefixed to
// the path.
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
  // The companion lends tensors (its borrow_torch) and reads borrowed
  // entries back: a call's tensor arguments and a walk's tensors then
  // cross with no handle each.
  bool fast_borrows = false;
  // Without the companion: torch's DLPack C exchange API (torch >= 2.10,
  // torch.Tensor.__dlpack_c_exchange_api__), else NULL and DLPack capsules.
  // `exchange_reason` says why not; `exchange_capsule` keeps it alive.
  const ::DLPackExchangeAPI* exchange = nullptr;
  PyObject* exchange_capsule = nullptr;
  std::string exchange_reason;
  // Tensors crossed each way per path ("companion", "exchange", "dlpack"):
  // tsbridge._native.tensor_crossings(), for the tests.
  unsigned long long crossings[3][2] = {};
};
enum TensorPath { kCompanion = 0, kExchange = 1, kDLPack = 2 };
enum Direction { kIn = 0, kOut = 1 };
const Torch& GetTorch();
const char* TensorPathName();  // the path tensors take: "companion", "exchange", "dlpack", "none"
void InitTorch();

// ------------------------------------------------------------------ types

// What the host caches per type index (tsb::kit::TypeCache): the type info
// and, for named types, the Python class every value of the type gets (the
// same object each call).
struct TypeEntry : tsb::kit::TypeInfo {
  PyObject* cls = nullptr;             // NamedTuple, Enum or Object class
  std::vector<PyObject*> members;      // Enum: the member objects, by field order
  std::vector<tsb_any> member_values;  // Enum: each member as a boundary value
  TypeEntry() = default;
  TypeEntry(const TypeEntry&) = delete;
  TypeEntry& operator=(const TypeEntry&) = delete;
  ~TypeEntry();  // with the GIL held
  void Complete();  // makes the class (runs Python code)
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
// The value a "tsbridge.value" capsule holds (a wrapped value's _tsb_value);
// throws PyErrorSet for another object.
const tsb_any& HeldValue(PyObject* capsule);
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
// Tensors go in as TensorsIn says: the thread's innermost identity scope,
// nothing lent, unless the caller passes its own.
class IdentityScope;
struct TensorsIn {
  IdentityScope* scope = nullptr;  // the call's identity map (outer ones chained)
  // Whether a torch.Tensor may go in as a borrowed entry (no handle): only
  // for Python objects that outlive every use of what is built (a call's
  // arguments, which the caller holds until the call returns; builders
  // store the tensor itself).
  bool lend = false;
  static TensorsIn OfThread();  // the innermost scope, nothing lent
};
void FromPython(PyObject* obj, int32_t expected, tsb_any* out);
void FromPython(PyObject* obj, int32_t expected, const TensorsIn& tensors, tsb_any* out);

// Tensors through DLPack (tensors.cc).
PyObject* TensorToPython(const tsb_any& v);  // `v` may be a borrowed tensor entry
bool IsTensor(PyObject* obj);  // a torch.Tensor or a DLPack capsule
void TensorFromPython(PyObject* obj, const TensorsIn& tensors, tsb_any* out);

// A converted value some code keeps past the Python object it came from:
// a lent tensor entry becomes a handle of it (tsb_any_keep); others stay.
void KeepLent(tsb_any* v);

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
  // Nothing remembered (the fast path's usual case): no lookup to make.
  bool empty() const { return entries_.empty(); }
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
