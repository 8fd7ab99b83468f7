#include "core/value/tensor_storage.h"

#include <ATen/EmptyTensor.h>
#include <ATen/ops/_indices.h>
#include <ATen/ops/_validate_sparse_coo_tensor_args.h>
#include <ATen/ops/_values.h>
#include <c10/util/Exception.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tsb {
namespace {

std::string Shape(c10::IntArrayRef dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

absl::Status CheckStrided(const at::Tensor& tensor) {
  const c10::IntArrayRef sizes = tensor.sizes(), strides = tensor.strides();
  const int64_t offset = tensor.storage_offset();
  const size_t storage = tensor.storage().nbytes();
  auto found = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a tensor whose elements lie inside its storage, found sizes ",
        Shape(sizes), ", strides ", Shape(strides), " and offset ", offset, " ", what));
  };
  // (A negative size or stride cannot get here: TensorImpl refuses the
  // first and makes the second contiguous.)
  if (offset < 0) return found("(a negative offset)");
  size_t needed = 0;
  try {  // overflow-checked, as LibTorch's Tensor.set_ computes it
    needed = at::detail::computeStorageNbytes(sizes, strides, tensor.dtype().itemsize(),
                                              static_cast<size_t>(offset));
  } catch (const c10::Error&) {
    return found("(their extent overflows)");
  }
  if (needed > storage) {
    return found(absl::StrCat("that need ", needed, " bytes of a ", storage, "-byte storage"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckTensorStorage(const at::Tensor& tensor) {
  if (!tensor.defined()) return absl::OkStatus();
  if (tensor.layout() == at::kSparse) {
    const at::Tensor indices = tensor._indices(), values = tensor._values();
    if (absl::Status s = CheckStrided(indices); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("a sparse tensor's indices: ", s.message()));
    }
    if (absl::Status s = CheckStrided(values); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("a sparse tensor's values: ", s.message()));
    }
    try {
      at::_validate_sparse_coo_tensor_args(indices, values, tensor.sizes());
    } catch (const c10::Error& e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a sparse tensor whose indices lie inside its sizes, found: ",
          e.what_without_backtrace()));
    }
    return absl::OkStatus();
  }
  if (tensor.layout() != at::kStrided || !tensor.has_storage()) return absl::OkStatus();
  return CheckStrided(tensor);
}

}  // namespace tsb
