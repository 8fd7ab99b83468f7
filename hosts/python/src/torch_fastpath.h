// The torch fast path's interface (docs/python.md): what the optional
// companion module tsbridge._torch hands tsbridge._native in a capsule.
//
// The companion (hosts/python/companion/) is built with LibTorch's Python
// library; the host is not: it sees only these C functions, so its sources
// still include tsbridge.h alone. All run with the GIL held.
#ifndef TSBRIDGE_PYTHON_TORCH_FASTPATH_H_
#define TSBRIDGE_PYTHON_TORCH_FASTPATH_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tsbridge/tsbridge.h"

#ifdef __cplusplus
extern "C" {
#endif

// The capsule's name: PyCapsule_Import(TSBPY_TORCH_API_CAPSULE, 0) imports
// tsbridge._torch and returns the pointer to its tsbpy_torch_api.
#define TSBPY_TORCH_API_CAPSULE "tsbridge._torch._C_API"
// Set (to anything but "" or "0") to make the host ignore the companion and
// cross tensors as DLPack, as it does when the companion is absent.
#define TSBPY_NO_FASTPATH_ENV "TSB_PYTHON_NO_TORCH_FASTPATH"
// Set likewise to make the host ignore torch's DLPack C exchange API too
// (docs/python.md): tensors then cross as DLPack capsules.
#define TSBPY_NO_EXCHANGE_ENV "TSB_PYTHON_NO_DLPACK_EXCHANGE"

typedef struct tsbpy_torch_api {
  size_t struct_size;  // sizeof(tsbpy_torch_api) of the companion's build
  // A torch.Tensor (or subclass, or Parameter) as a tensor handle holding
  // its own at::Tensor, autograd metadata included: a new reference in
  // *out. Returns 1 when done, 0 when `obj` is not a torch.Tensor (*out
  // untouched, no error), -1 with a Python exception set.
  int (*from_torch)(PyObject* obj, tsb_any* out);
  // A tensor handle (borrowed) as the torch.Tensor of its at::Tensor: a new
  // reference; the tensor's existing Python object when it has one (so a
  // tensor returned unchanged is the object that went in). NULL with a
  // Python exception set, e.g. for a value that is not a tensor. A
  // companion with borrow_torch also takes a borrowed tensor entry
  // (TSB_FLAG_BORROWED) here.
  PyObject* (*to_torch)(const tsb_any* tensor);
  // Added later (the host checks struct_size before using it): a
  // torch.Tensor as a borrowed tensor entry naming its at::Tensor, no
  // reference made: valid only while `obj` lives (a call's arguments).
  // Returns as from_torch does.
  int (*borrow_torch)(PyObject* obj, tsb_any* out);
} tsbpy_torch_api;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TSBRIDGE_PYTHON_TORCH_FASTPATH_H_
