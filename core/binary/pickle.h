// The binary form: the bytes torch.save writes (a zip archive holding
// data.pkl and one record per tensor storage), through LibTorch's own
// pickler, so PyTorch reads what tsbridge writes and the other way round.
#ifndef TSBRIDGE_CORE_BINARY_PICKLE_H_
#define TSBRIDGE_CORE_BINARY_PICKLE_H_

#include <cstddef>
#include <memory>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"

namespace caffe2::serialize {
class ReadAdapterInterface;
}  // namespace caffe2::serialize

namespace tsb::binary {

// An archive in memory for LibTorch's zip reader and importer, read in place
// (the bytes must outlive it). LibTorch's own adapters copy whatever range
// miniz asks for; a corrupt archive asks past the end (found by the pickle
// fuzzer). This one copies what exists and reports the short read.
std::shared_ptr<caffe2::serialize::ReadAdapterInterface> MemoryReader(const char* data,
                                                                      size_t size);

// torch::jit::pickle_save; LibTorch errors (a value it cannot pickle) are
// INVALID_ARGUMENT with LibTorch's message.
absl::StatusOr<std::vector<char>> PickleSave(const c10::IValue& value);

// torch::jit::pickle_load; bytes that are not a torch.save zip archive are
// INVALID_ARGUMENT naming what LibTorch could not read.
absl::StatusOr<c10::IValue> PickleLoad(const char* data, size_t size);

}  // namespace tsb::binary

#endif  // TSBRIDGE_CORE_BINARY_PICKLE_H_
