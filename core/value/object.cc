#include "core/value/object.h"

namespace tsb {
namespace {
std::atomic<int64_t> g_live_handles{0};
}  // namespace

tsb_any MakeHandle(int32_t type_index, c10::IValue value) {
  auto* object = new tsb_object{{1}, type_index, std::move(value)};
  g_live_handles.fetch_add(1, std::memory_order_relaxed);
  tsb_any out;
  out.type_index = type_index;
  out.flags = TSB_FLAG_HANDLE;
  out.u.obj = object;
  return out;
}

void Retain(const tsb_any& value) noexcept {
  if (IsHandle(value)) value.u.obj->refs.fetch_add(1, std::memory_order_relaxed);
}

void Release(tsb_any& value) noexcept {
  if (IsHandle(value) &&
      value.u.obj->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete value.u.obj;
    g_live_handles.fetch_sub(1, std::memory_order_relaxed);
  }
  value.type_index = TSB_TYPE_INVALID;
  value.flags = 0;
  value.u.i = 0;
}

int64_t CountLiveHandles() noexcept {
  return g_live_handles.load(std::memory_order_relaxed);
}

}  // namespace tsb
