// Tensors whose elements lie outside their storage.
//
// LibTorch's unpickler (torch.load's and torch.jit.load's) gives a tensor
// the sizes, strides and offset its file wrote, never checked against the
// storage record it read; a sparse tensor, indices never checked against its
// sizes. Any reader of such a tensor -- a host's converter, JSON, an
// operator -- reads or writes past the storage (found by the pickle fuzzer:
// a size byte changed, then tsb_json_write read past the buffer). Python's
// torch.load checks (Tensor.set_); torch.jit.load does not. So every value
// LibTorch builds from a file is checked before a host gets it
// (CheckLoaded in core/value/nesting.h, and module loading).
#ifndef TSBRIDGE_CORE_VALUE_TENSOR_STORAGE_H_
#define TSBRIDGE_CORE_VALUE_TENSOR_STORAGE_H_

#include <ATen/core/Tensor.h>

#include "absl/status/status.h"

namespace tsb {

// OK unless `tensor` (strided: its sizes, strides and offset; sparse COO:
// its indices and values, as torch.sparse_coo_tensor checks them) reaches
// outside its storage. The message says what was found; the caller says
// where.
absl::Status CheckTensorStorage(const at::Tensor& tensor);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_TENSOR_STORAGE_H_
