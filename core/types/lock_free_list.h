// An insert-only list whose reads take no lock: the loaded plugins and the
// loaded operator libraries, each known by its index (its id).
//
// Appends are serialised by the owner (its load mutex); a reader sees an
// item once Count() covers it. Items are never removed or moved: what is
// loaded stays loaded for the life of the process.
#ifndef TSBRIDGE_CORE_TYPES_LOCK_FREE_LIST_H_
#define TSBRIDGE_CORE_TYPES_LOCK_FREE_LIST_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace tsb {

template <typename T, int32_t kCapacity>
class LockFreeList {
 public:
  LockFreeList() = default;
  LockFreeList(const LockFreeList&) = delete;
  LockFreeList& operator=(const LockFreeList&) = delete;

  int32_t Count() const noexcept { return count_.load(std::memory_order_acquire); }
  bool Full() const noexcept { return Count() == kCapacity; }
  // The item with index `id`, or nullptr for no such item. Lock-free.
  const T* Get(int32_t id) const noexcept {
    if (id < 0 || id >= Count()) return nullptr;
    return items_[id].load(std::memory_order_acquire);
  }
  // Takes the item (the caller holds the owner's lock); its id, or -1 when
  // the list is full (the item is then dropped).
  int32_t Append(std::unique_ptr<T> item) noexcept {
    const int32_t id = Count();
    if (id == kCapacity) return -1;
    items_[id].store(item.release(), std::memory_order_release);
    count_.store(id + 1, std::memory_order_release);
    return id;
  }

 private:
  std::array<std::atomic<const T*>, kCapacity> items_{};
  std::atomic<int32_t> count_{0};
};

}  // namespace tsb

#endif  // TSBRIDGE_CORE_TYPES_LOCK_FREE_LIST_H_
