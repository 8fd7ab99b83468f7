#include "core/binary/pickle.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include "absl/strings/str_cat.h"
#include "core/binary/pickle_scan.h"
#include "core/binary/zip_sizes.h"
#include "core/value/nesting.h"

namespace tsb::binary {
namespace {

// MemoryReader's adapter (pickle.h says why it is not LibTorch's
// MemoryReadAdapter or pickle_load's VectorReader).
class BoundedReadAdapter final : public caffe2::serialize::ReadAdapterInterface {
 public:
  BoundedReadAdapter(const char* data, size_t size) : data_(data), size_(size) {}
  size_t size() const override { return size_; }
  size_t read(uint64_t pos, void* buf, size_t n, const char*) const override {
    if (pos >= size_) return 0;
    n = std::min<size_t>(n, size_ - pos);
    std::memcpy(buf, data_ + pos, n);
    return n;
  }

 private:
  const char* data_;
  size_t size_;
};

// readArchiveAndTensors("data", ...) on a data.pkl of our own: the one
// ScanPickle rewrote for LibTorch's unpickler. Tensors still come from the
// archive's data/ records.
c10::IValue UnpickleRewritten(const std::string& program,
                              caffe2::serialize::PyTorchStreamReader& reader) {
  size_t read = 0;
  auto next = [&](char* buf, size_t n) -> size_t {
    n = std::min(n, program.size() - read);
    std::memcpy(buf, program.data() + read, n);
    read += n;
    return n;
  };
  auto record = [&](const std::string& name) {
    return std::get<0>(reader.getRecord("data/" + name));
  };
  torch::jit::Unpickler unpickler(next, nullptr, nullptr, record, c10::nullopt);
  unpickler.set_version(reader.version());
  return unpickler.parse_ivalue();
}

}  // namespace

std::shared_ptr<caffe2::serialize::ReadAdapterInterface> MemoryReader(const char* data,
                                                                      size_t size) {
  return std::make_shared<BoundedReadAdapter>(data, size);
}

absl::StatusOr<std::vector<char>> PickleSave(const c10::IValue& value) {
  // LibTorch's pickler recurses without a bound.
  if (absl::Status nesting = CheckNesting(value); !nesting.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot pickle the value: ", nesting.message()));
  }
  try {
    return torch::jit::pickle_save(value);
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot pickle the value: ", e.what_without_backtrace()));
  }
}

absl::StatusOr<c10::IValue> PickleLoad(const char* data, size_t size) {
  try {
    // What torch::jit::pickle_load does, with a bounded reader, and with
    // data.pkl checked before LibTorch's unpickler runs it.
    auto in = std::make_shared<BoundedReadAdapter>(data, size);
    caffe2::serialize::PyTorchStreamReader reader(in);
    absl::Status sizes = CheckZipRecordSizes(*in);
    if (!sizes.ok()) return sizes;
    auto [pickle, pickle_size] = reader.getRecord("data.pkl");
    std::string rewritten;
    absl::Status scan =
        ScanPickle(static_cast<const char*>(pickle.get()), pickle_size, &rewritten);
    if (!scan.ok()) return scan;
    c10::IValue value =
        !rewritten.empty()
            ? UnpickleRewritten(rewritten, reader)
            : torch::jit::readArchiveAndTensors("data", "", "", c10::nullopt, c10::nullopt,
                                                c10::nullopt, reader);
    // Python pickles `a = []; a.append(a)` as a list holding itself, which
    // LibTorch builds: refused (and freed) before anything walks it. So is a
    // tensor past its storage, which LibTorch builds too.
    if (absl::Status loaded = CheckLoaded(value); !loaded.ok()) {
      BreakCycles(value);
      return absl::InvalidArgumentError(
          absl::StrCat("not a value tsbridge can carry: ", loaded.message()));
    }
    return value;
  } catch (const c10::Error& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a value torch.save wrote (zip format): ", e.what_without_backtrace()));
  }
}

}  // namespace tsb::binary
