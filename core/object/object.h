// The refcounted handle behind every non-inline boundary value.
#ifndef TSBRIDGE_CORE_OBJECT_OBJECT_H_
#define TSBRIDGE_CORE_OBJECT_OBJECT_H_

#include <atomic>
#include <cstdint>

#include <ATen/core/ivalue.h>

#include "tsbridge/tsbridge.h"

// Declared opaque in tsbridge.h. A handle holds one IValue: copying an IValue
// only bumps LibTorch's own refcount, so handles share storage with the
// containers and tensors they came from.
struct tsb_object {
  std::atomic<int32_t> refs;
  int32_t type_index;
  c10::IValue value;
};

namespace tsb {

// A new handle owning one reference, counted by CountLiveHandles().
tsb_any MakeHandle(int32_t type_index, c10::IValue value);
void Retain(const tsb_any& value) noexcept;
void Release(tsb_any& value) noexcept;
int64_t CountLiveHandles() noexcept;

inline bool IsHandle(const tsb_any& value) {
  return (value.flags & TSB_FLAG_HANDLE) != 0 && value.u.obj != nullptr;
}

// Releases a run of values on scope exit unless disarmed: bulk outputs use it
// so that a failure halfway leaks nothing.
class ReleaseOnError {
 public:
  ReleaseOnError(tsb_any* values, size_t count) : values_(values), count_(count) {}
  ~ReleaseOnError() {
    for (size_t i = 0; i < count_; ++i) Release(values_[i]);
  }
  void Grow() { ++count_; }
  void Disarm() { count_ = 0; }

 private:
  tsb_any* values_;
  size_t count_;
};

}  // namespace tsb

#endif  // TSBRIDGE_CORE_OBJECT_OBJECT_H_
