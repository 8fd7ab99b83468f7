#include "core/binary/pickle.h"

#include <caffe2/serialize/in_memory_adapter.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include "core/binary/pickle_scan.h"

#include "absl/strings/str_cat.h"

namespace tsb {

absl::StatusOr<std::vector<char>> PickleSave(const c10::IValue& value) {
  try {
    return torch::jit::pickle_save(value);
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot pickle the value: ", e.what_without_backtrace()));
  }
}

absl::StatusOr<c10::IValue> PickleLoad(const char* data, size_t size) {
  // pickle_load takes a vector; one copy of the bytes is the price of its API.
  std::vector<char> bytes(data, data + size);
  try {
    {  // data.pkl must be safe for LibTorch's unpickler to size its tables by.
      caffe2::serialize::PyTorchStreamReader reader(
          std::make_shared<caffe2::serialize::MemoryReadAdapter>(data, size));
      auto [pickle, pickle_size] = reader.getRecord("data.pkl");
      absl::Status scan = ScanPickle(static_cast<const char*>(pickle.get()), pickle_size);
      if (!scan.ok()) return scan;
    }
    return torch::jit::pickle_load(bytes);
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a value torch.save wrote (zip format): ", e.what_without_backtrace()));
  }
}

}  // namespace tsb
