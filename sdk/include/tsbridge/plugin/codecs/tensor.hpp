// tsb::Codec<at::Tensor> ⇄ TorchScript `Tensor`.
#ifndef TSBRIDGE_CODECS_TENSOR_HPP_
#define TSBRIDGE_CODECS_TENSOR_HPP_

#include <ATen/core/Tensor.h>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {

// Tensors cross by reference: ToIValue and FromIValue share the storage.
template <>
struct Codec<at::Tensor> {
  static constexpr std::string_view name() { return "Tensor"; }
  static c10::TypePtr type() { return c10::TensorType::get(); }
  static bool Matches(const c10::IValue& value) { return value.isTensor(); }
  static c10::IValue ToIValue(const at::Tensor& value) { return value; }
  static absl::StatusOr<at::Tensor> FromIValue(const c10::IValue& value) {
    if (!value.isTensor()) return detail::Mismatch<at::Tensor>(value);
    return value.toTensor();
  }
};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_TENSOR_HPP_
