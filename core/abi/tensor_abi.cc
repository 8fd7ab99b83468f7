// Tensors across the boundary as DLPack, zero copy both ways, through
// LibTorch's own converter (ATen/DLConvertor.h).
#include <ATen/DLConvertor.h>
#include <ATen/Context.h>

#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/errors/errors.h"
#include "core/value/convert.h"
#include "core/value/object.h"

using tsb::abi::CheckArg;
using tsb::abi::Guard;

namespace {

// at::fromDLPack in LibTorch 1.13 ignores byte_offset, and only validates
// the device after it may have wrapped the deleter: check both first, so that
// a failure never consumes the caller's tensor.
absl::Status CheckImportable(const DLManagedTensor& managed) {
  const DLTensor& t = managed.dl_tensor;
  if (t.byte_offset != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DLPack tensor has byte_offset ", t.byte_offset,
        "; LibTorch 1.13 imports only byte_offset 0"));
  }
  bool cpu = t.device.device_type == kDLCPU;
  bool cuda = t.device.device_type == kDLCUDA && at::hasCUDA();
  if (!cpu && !cuda) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DLPack tensor is on device type ", static_cast<int>(t.device.device_type),
        ", which this LibTorch build cannot hold"));
  }
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    return absl::InvalidArgumentError("DLPack tensor has a NULL shape");
  }
  if (t.data == nullptr && t.ndim > 0) {
    int64_t numel = 1;
    for (int i = 0; i < t.ndim; ++i) numel *= t.shape[i];
    if (numel != 0) return absl::InvalidArgumentError("DLPack tensor has NULL data");
  }
  return absl::OkStatus();
}

}  // namespace

extern "C" {

tsb_status* tsb_tensor_to_dlpack(const tsb_any* tensor, struct DLManagedTensor** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv,
                         tsb::abi::ValueArgOfType(tensor, TSB_TYPE_TENSOR, "tensor"));
    const at::Tensor& t = iv.toTensor();
    if (!t.defined()) {
      return absl::InvalidArgumentError("an undefined Tensor has no DLPack form");
    }
    *out = at::toDLPack(t);
    return absl::OkStatus();
  });
}

tsb_status* tsb_tensor_from_dlpack(struct DLManagedTensor* managed, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(managed, "managed"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckImportable(*managed));
    // The handle is allocated first so that nothing can fail once the tensor
    // owns `managed`; the dtype check inside fromDLPack runs before it wraps
    // the deleter.
    tsb_any handle = tsb::MakeHandle(TSB_TYPE_TENSOR, c10::IValue());
    try {
      handle.u.obj->value = c10::IValue(at::fromDLPack(managed));
    } catch (...) {
      tsb::Release(handle);
      throw;
    }
    *out = handle;
    return absl::OkStatus();
  });
}

}  // extern "C"
