// tsbridge._torch: the torch fast path of the Python host (docs/python.md).
//
// An optional companion of tsbridge._native, built only where LibTorch's
// Python library and headers are (Debian's libtorch-dev ships
// libtorch_python.so and torch/csrc/autograd/python_variable.h). It hands
// the host C functions in a capsule (src/torch_fastpath.h):
// - from_torch: the at::Tensor inside a torch.Tensor (THPVariable_Unpack)
//   into a tensor handle;
// - borrow_torch: the same at::Tensor as a borrowed tensor entry (no
//   handle, no reference), for values that live through the call;
// - to_torch: a handle's (or a borrowed entry's) at::Tensor into its
//   torch.Tensor (THPVariable_Wrap, which returns the tensor's existing
//   Python object when it has one).
// No DLPack and no new TensorImpl: the tensor crosses as itself, so
// requires_grad, grad_fn and .grad survive the crossing.
//
// Handles are made and read through the C++ SDK (tsbridge/plugin/kind_codec.hpp:
// the Tensor kind's codec), as a plugin does, not through the core's
// internal headers; the C ABI (tsbridge.h) gets no LibTorch type.
#include <torch/csrc/autograd/python_variable.h>

#include <exception>
#include <string>

#include "torch_fastpath.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace {

const tsb::TypeInfo* g_tensor = nullptr;  // the Tensor type, for its codec

void SetError(PyObject* type, const std::string& what) {
  PyErr_SetString(type, what.c_str());
}

// 1 for a torch.Tensor (or subclass), 0 for another object, -1 on error.
int IsTorchTensor(PyObject* obj) {
  if (THPVariable_CheckExact(obj)) return 1;  // exact torch.Tensor or Parameter: no call
  return PyObject_IsInstance(obj, THPVariableClass);
}

int FromTorch(PyObject* obj, tsb_any* out) {
  const int is = IsTorchTensor(obj);
  if (is <= 0) return is;
  try {
    absl::Status s = g_tensor->codec->Encode(c10::IValue(THPVariable_Unpack(obj)), *g_tensor, out);
    if (!s.ok()) {
      SetError(PyExc_RuntimeError, "tsbridge._torch: " + std::string(s.message()));
      return -1;
    }
  } catch (const std::exception& e) {
    SetError(PyExc_RuntimeError, std::string("tsbridge._torch: ") + e.what());
    return -1;
  }
  return 1;
}

int BorrowTorch(PyObject* obj, tsb_any* out) {
  const int is = IsTorchTensor(obj);
  if (is <= 0) return is;
  *out = tsb::BorrowTensor(THPVariable_Unpack(obj));  // the object's own at::Tensor
  return 1;
}

PyObject* ToTorch(const tsb_any* v) {
  const bool borrowed = v != nullptr && v->flags == TSB_FLAG_BORROWED;
  if (v == nullptr || v->type_index != TSB_TYPE_TENSOR ||
      ((v->flags & TSB_FLAG_HANDLE) == 0 && !borrowed)) {
    SetError(PyExc_TypeError, "tsbridge._torch: expected a tensor handle or borrowed tensor");
    return nullptr;
  }
  try {
    if (borrowed) return THPVariable_Wrap(tsb::BorrowedTensor(*v));  // no codec call
    absl::StatusOr<c10::IValue> value = g_tensor->codec->Decode(*v);
    if (!value.ok()) {
      SetError(PyExc_RuntimeError, "tsbridge._torch: " + std::string(value.status().message()));
      return nullptr;
    }
    return THPVariable_Wrap(std::move(*value).toTensor());  // None if undefined
  } catch (const std::exception& e) {
    if (!PyErr_Occurred()) SetError(PyExc_RuntimeError, std::string("tsbridge._torch: ") + e.what());
    return nullptr;
  }
}

const tsbpy_torch_api kApi = {sizeof(tsbpy_torch_api), FromTorch, ToTorch, BorrowTorch};

PyModuleDef g_module = {PyModuleDef_HEAD_INIT, "_torch",
                        "tsbridge's torch fast path: tensors cross as themselves "
                        "(autograd included), not as DLPack.",
                        -1, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__torch(void) {
  // Importing torch initializes THPVariableClass in the libtorch_python the
  // interpreter loaded. If that is not the library this module links (a
  // torch other than the one it was built with), ours stays unset: refuse,
  // and the host falls back to DLPack.
  PyObject* torch = PyImport_ImportModule("torch");
  if (torch == nullptr) return nullptr;
  PyObject* tensor = PyObject_GetAttrString(torch, "Tensor");
  Py_DECREF(torch);
  if (tensor == nullptr) return nullptr;
  const bool same_torch = THPVariableClass != nullptr && THPVariableClass == tensor;
  Py_DECREF(tensor);
  if (!same_torch) {
    SetError(PyExc_ImportError,
             "tsbridge._torch was built against another torch (its libtorch_python is not "
             "the one torch loaded): tensors cross as DLPack");
    return nullptr;
  }
  absl::StatusOr<const tsb::TypeInfo*> info = tsb::FindType(TSB_TYPE_TENSOR);
  if (!info.ok()) {
    SetError(PyExc_ImportError, "tsbridge._torch: " + std::string(info.status().message()));
    return nullptr;
  }
  g_tensor = *info;
  PyObject* m = PyModule_Create(&g_module);
  if (m == nullptr) return nullptr;
  PyObject* capsule = PyCapsule_New(const_cast<tsbpy_torch_api*>(&kApi),
                                    TSBPY_TORCH_API_CAPSULE, nullptr);
  if (capsule == nullptr || PyModule_AddObject(m, "_C_API", capsule) < 0) {
    Py_XDECREF(capsule);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
