// The binary form: the bytes torch.save writes (a zip archive holding
// data.pkl and one record per tensor storage), through LibTorch's own
// pickler, so PyTorch reads what tsbridge writes and the other way round.
#ifndef TSBRIDGE_CORE_BINARY_PICKLE_H_
#define TSBRIDGE_CORE_BINARY_PICKLE_H_

#include <cstddef>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"

namespace tsb {

// torch::jit::pickle_save; LibTorch errors (a value it cannot pickle) are
// INVALID_ARGUMENT with LibTorch's message.
absl::StatusOr<std::vector<char>> PickleSave(const c10::IValue& value);

// torch::jit::pickle_load; bytes that are not a torch.save zip archive are
// INVALID_ARGUMENT naming what LibTorch could not read.
absl::StatusOr<c10::IValue> PickleLoad(const char* data, size_t size);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_BINARY_PICKLE_H_
