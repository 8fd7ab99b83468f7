// Tensors across the boundary as DLPack, zero copy both ways, through
// LibTorch's own converter (ATen/DLConvertor.h).
#include <ATen/DLConvertor.h>
#include <ATen/Context.h>

#include <memory>

#include "absl/container/inlined_vector.h"

#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/compat/torch_compat.h"
#include "core/text/json_codec.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/object/object.h"

using tsb::abi::CheckArg;
using tsb::abi::Guard;

namespace {

// The bytes a DLPack tensor spans, or an error for a negative size or stride
// or an overflow. LibTorch 1.13 computes this in a noexcept function (an
// overflow there terminates the process) and checks numel only after it has
// wrapped the deleter, so both must be checked before at::fromDLPack.
absl::Status CheckExtent(const DLTensor& t) {
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    return absl::InvalidArgumentError("DLPack tensor has a NULL shape");
  }
  int64_t item_bytes = (static_cast<int64_t>(t.dtype.bits) * t.dtype.lanes + 7) / 8;
  int64_t extent = 1;  // elements from the first to one past the last
  bool empty = false;
  for (int i = 0; i < t.ndim; ++i) {
    int64_t size = t.shape[i];
    int64_t stride = t.strides != nullptr ? t.strides[i] : 0;
    if (size < 0 || stride < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DLPack tensor has a negative ", size < 0 ? "size" : "stride",
          " in dimension ", i));
    }
    empty = empty || size == 0;
    bool overflow = t.strides != nullptr
                        ? (size > 0 && (__builtin_mul_overflow(size - 1, stride, &stride) ||
                                        __builtin_add_overflow(extent, stride, &extent)))
                        : __builtin_mul_overflow(extent, size, &extent);
    if (overflow) {
      return absl::InvalidArgumentError("DLPack tensor's size overflows int64");
    }
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(extent, item_bytes, &bytes)) {
    return absl::InvalidArgumentError("DLPack tensor's size in bytes overflows int64");
  }
  if (t.data == nullptr && !empty) {
    return absl::InvalidArgumentError("DLPack tensor has NULL data");
  }
  return absl::OkStatus();
}

// A bool is one byte, 0 or 1 (DLPack's kDLBool, C's and ATen's bool): any
// other byte would be undefined behaviour wherever the tensor is read. Read
// in place, before anything owns the memory.
absl::Status CheckBoolBytes(const DLTensor& t) {
  if (!tsb::compat::IsDLPackBool(t.dtype) || t.data == nullptr || t.device.device_type != kDLCPU) {
    return absl::OkStatus();
  }
  at::IntArrayRef shape(t.shape, t.ndim);
  at::Tensor bytes = t.strides != nullptr
                         ? at::from_blob(t.data, shape, at::IntArrayRef(t.strides, t.ndim), at::kByte)
                         : at::from_blob(t.data, shape, at::kByte);
  if (bytes.numel() == 0) return absl::OkStatus();
  const int largest = bytes.max().item<uint8_t>();
  if (largest > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a bool tensor's bytes to be 0 or 1 (DLPack's kDLBool), found ", largest));
  }
  return absl::OkStatus();
}

// OK, or an error naming the dtype DLPack (or LibTorch's converter) cannot
// express: BComplex32, the quantized and bit types.
absl::Status CheckExportable(const at::Tensor& t) {
  try {
    tsb::compat::DLDataTypeOf(t);
    return absl::OkStatus();
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a tensor whose dtype DLPack can express, found ", c10::toString(t.scalar_type()),
        " (LibTorch: ", e.what_without_backtrace(), ")"));
  }
}

// The tensor a to_dlpack call exports: defined, strided, `out` not NULL.
absl::StatusOr<at::Tensor> TensorToExport(const tsb_any* tensor, const void* out) {
  TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
  TSB_ASSIGN_OR_RETURN(c10::IValue iv, tsb::abi::ValueArgOfType(tensor, TSB_TYPE_TENSOR, "tensor"));
  if (!iv.toTensor().defined()) {
    return absl::InvalidArgumentError("an undefined Tensor has no DLPack form");
  }
  if (iv.toTensor().layout() != at::kStrided) {
    return absl::UnimplementedError(absl::StrCat(
        "expected a strided tensor (DLPack holds no other layout), got a ",
        tsb::text::LayoutName(static_cast<int64_t>(iv.toTensor().layout())).value_or("?"),
        " tensor: export its parts (aten::_indices and aten::_values for COO; "
        "aten::crow_indices, aten::col_indices and aten::values for CSR) or aten::to_dense"));
  }
  return std::move(iv).toTensor();
}

// The same, in: a code LibTorch has no dtype for (DLPack's float6, lanes > 1)
// is refused before anything owns the tensor.
absl::Status CheckDType(const DLDataType& dtype) {
  try {
    tsb::compat::ScalarTypeOf(dtype);
    return absl::OkStatus();
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a DLPack dtype LibTorch has, found code ", static_cast<int>(dtype.code),
        ", ", static_cast<int>(dtype.bits), " bits, ", static_cast<int>(dtype.lanes),
        " lanes (LibTorch: ", e.what_without_backtrace(), ")"));
  }
}

// at::fromDLPack in LibTorch 1.13 ignores byte_offset and validates the
// device only after it may have wrapped the deleter: check both first, so that
// a failure never consumes the caller's tensor. The versioned import checks
// the same, so that both take the same tensors.
absl::Status CheckImportable(const DLTensor& t) {
  if (t.byte_offset != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DLPack tensor has byte_offset ", t.byte_offset,
        "; tsbridge imports only byte_offset 0 (LibTorch 1.13 ignores it)"));
  }
  bool cpu = t.device.device_type == kDLCPU;
  bool cuda = t.device.device_type == kDLCUDA && at::hasCUDA();
  if (!cpu && !cuda) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DLPack tensor is on device type ", static_cast<int>(t.device.device_type),
        ", which this LibTorch build cannot hold"));
  }
  TSB_RETURN_IF_ERROR(CheckExtent(t));
  return CheckBoolBytes(t);
}

// The versioned calls name the dtype DLPack or LibTorch lacks (the
// unversioned ones keep LibTorch's own error, TSB_ERR_TORCH).
absl::Status CheckVersionedImportable(const DLTensor& t) {
  TSB_RETURN_IF_ERROR(CheckDType(t.dtype));
  return CheckImportable(t);
}

// LibTorch 1.13 never calls the deleter of a tensor whose data is NULL (an
// empty one): build that tensor here and hand the producer's back at once.
at::Tensor Import(DLManagedTensor* managed) {
  const DLTensor& t = managed->dl_tensor;
  if (t.data != nullptr) return tsb::compat::FromDLPack(managed);
  at::ScalarType dtype = tsb::compat::ScalarTypeOf(t.dtype);
  at::Device device = t.device.device_type == kDLCPU
                          ? at::Device(at::kCPU)
                          : at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(t.device.device_id));
  at::Tensor empty = at::empty(at::IntArrayRef(t.shape, t.ndim),
                               at::TensorOptions().dtype(dtype).device(device));
  if (managed->deleter != nullptr) managed->deleter(managed);
  return empty;
}

// at::toDLPack without its as_strided view: that dispatcher call was most
// of an export's cost (docs/python.md, the bench). The exported struct keeps
// the tensor itself alive; strides of dimensions of size 0 or 1 are set to 1
// in the DLPack copy only, as LibTorch 1.13 normalizes them (gh-83069).
struct Exported {
  at::Tensor tensor;
  absl::InlinedVector<int64_t, 6> shape;  // one allocation per export, usually
  absl::InlinedVector<int64_t, 6> strides;
  DLManagedTensor managed;
};

DLManagedTensor* Export(const at::Tensor& t) {
  const DLDataType dtype = tsb::compat::DLDataTypeOf(t);  // throws for an unsupported dtype, first
  // at::getDLContext is not exported by Debian's LibTorch: CPU and CUDA here.
  if (!t.is_cpu() && !t.is_cuda()) return at::toDLPack(t);
  DLDevice device;
  device.device_type = t.is_cuda() ? kDLCUDA : kDLCPU;
  device.device_id = t.is_cuda() ? t.get_device() : 0;
  auto exported = std::make_unique<Exported>();
  exported->tensor = t;
  exported->shape.assign(t.sizes().begin(), t.sizes().end());
  exported->strides.assign(t.strides().begin(), t.strides().end());
  for (size_t i = 0; i < exported->shape.size(); ++i) {
    if (exported->shape[i] < 2) exported->strides[i] = 1;
  }
  DLManagedTensor& m = exported->managed;
  m.manager_ctx = exported.get();
  m.deleter = [](DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  m.dl_tensor.data = t.data_ptr();
  m.dl_tensor.device = device;
  m.dl_tensor.ndim = static_cast<int32_t>(t.dim());
  m.dl_tensor.dtype = dtype;
  m.dl_tensor.shape = exported->shape.data();
  m.dl_tensor.strides = exported->strides.data();
  m.dl_tensor.byte_offset = 0;
  return &exported.release()->managed;
}

}  // namespace

extern "C" {

tsb_status* tsb_tensor_to_dlpack(const tsb_any* tensor, struct DLManagedTensor** out) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(at::Tensor t, TensorToExport(tensor, out));
    *out = Export(t);
    return absl::OkStatus();
  });
}

tsb_status* tsb_tensor_get_info(const tsb_any* tensor, tsb_tensor_info* out) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::VersionedOut(out, "tsb_tensor_info", [&](tsb_tensor_info* info) {
      // Borrowed: sizes and strides point into the handle's own TensorImpl.
      tsb::BorrowedValue arg;
      TSB_RETURN_IF_ERROR(tsb::abi::BorrowArg(tensor, "tensor", &arg));
      if (!arg.value->isTensor()) {
        return tsb::TypeError(
            absl::StrCat("expected Tensor, got ", tsb::DescribeValue(*arg.value)));
      }
      const at::Tensor& t = arg.value->toTensor();
      if (!t.defined()) return absl::InvalidArgumentError("an undefined Tensor has no info");
      const bool strided = t.layout() == at::kStrided;
      info->dtype = static_cast<int32_t>(t.scalar_type());
      info->layout = static_cast<int32_t>(t.layout());
      info->device_type = static_cast<int32_t>(t.device().type());
      info->device_index = t.device().index();
      info->ndim = static_cast<size_t>(t.dim());
      info->sizes = t.sizes().data();
      info->strides = strided ? t.strides().data() : nullptr;
      info->storage_offset = strided ? t.storage_offset() : 0;
      info->numel = t.numel();
      info->requires_grad = t.requires_grad();
      info->is_contiguous = strided && t.is_contiguous();
      return absl::OkStatus();
    });
  });
}

tsb_status* tsb_tensor_from_dlpack(struct DLManagedTensor* managed, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(managed, "managed"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckImportable(managed->dl_tensor));
    // The handle is allocated first so that nothing can fail once the tensor
    // owns `managed`; the dtype check inside fromDLPack runs before it wraps
    // the deleter.
    tsb_any handle = tsb::MakeHandle(TSB_TYPE_TENSOR, c10::IValue());
    try {
      handle.u.obj->value = c10::IValue(Import(managed));
    } catch (...) {
      tsb::Release(handle);
      throw;
    }
    *out = handle;
    return absl::OkStatus();
  });
}

// LibTorch's own converters (at::toDLPackVersioned, at::fromDLPackVersioned)
// through core/compat, which says why not on a LibTorch before 2.9.
tsb_status* tsb_tensor_to_dlpack_versioned(const tsb_any* tensor,
                                           struct DLManagedTensorVersioned** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(tsb::compat::VersionedDLPackAvailable("tsb_tensor_to_dlpack_versioned"));
    TSB_ASSIGN_OR_RETURN(at::Tensor t, TensorToExport(tensor, out));
    TSB_RETURN_IF_ERROR(CheckExportable(t));
    TSB_ASSIGN_OR_RETURN(*out, tsb::compat::ToDLPackVersioned(t));
    return absl::OkStatus();
  });
}

tsb_status* tsb_tensor_from_dlpack_versioned(struct DLManagedTensorVersioned* managed,
                                             tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(tsb::compat::VersionedDLPackAvailable("tsb_tensor_from_dlpack_versioned"));
    TSB_RETURN_IF_ERROR(CheckArg(managed, "managed"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    // As above: the handle first, so that nothing fails once the tensor owns `managed`.
    tsb_any handle = tsb::MakeHandle(TSB_TYPE_TENSOR, c10::IValue());
    absl::StatusOr<at::Tensor> t;
    try {
      t = tsb::compat::FromDLPackVersioned(managed, CheckVersionedImportable);
    } catch (...) {
      tsb::Release(handle);
      throw;
    }
    if (!t.ok()) {
      tsb::Release(handle);
      return t.status();
    }
    handle.u.obj->value = c10::IValue(*std::move(t));
    *out = handle;
    return absl::OkStatus();
  });
}

}  // extern "C"
