#include "core/object/object.h"

#include <mutex>
#include <new>
#include <vector>

namespace tsb {
namespace {

// A handle made and released on every call (a call's result) must not pay a
// malloc, a free and two locked increments of one shared counter. So each
// thread keeps a few freed handle blocks to reuse, and its own share of the
// live count, which only it writes (no locked instruction); the count is
// the sum of the shares and of the shares of threads that ended.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSB_NO_HANDLE_REUSE 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(TSB_NO_HANDLE_REUSE)
// Under ASan a reused block would hide a use after release from it.
constexpr int kMaxFree = 0;
#else
constexpr int kMaxFree = 64;  // blocks kept per thread (2 KiB)
#endif

struct ThreadHandles {
  std::atomic<int64_t> live{0};  // made minus released here: may be negative
  int num_free = 0;
  void* free[kMaxFree > 0 ? kMaxFree : 1];
};

struct Threads {
  std::mutex mutex;
  std::vector<ThreadHandles*> all;
  std::atomic<int64_t> ended{0};  // the shares of ended threads, and of none
};
Threads& AllThreads() {
  static Threads* const threads = new Threads();  // never destroyed
  return *threads;
}

// Trivially destructible, so still readable while (and after) the thread's
// thread_local objects are destroyed: a handle released from another
// destructor then takes the shared path.
thread_local ThreadHandles* t_handles = nullptr;
thread_local bool t_ended = false;

// Registers the thread's share on first use; folds it in at thread exit.
struct Owner {
  Owner() {
    t_handles = new ThreadHandles();
    Threads& threads = AllThreads();
    std::lock_guard<std::mutex> lock(threads.mutex);
    threads.all.push_back(t_handles);
  }
  ~Owner() {
    ThreadHandles* mine = t_handles;
    t_handles = nullptr;
    t_ended = true;
    Threads& threads = AllThreads();
    {
      std::lock_guard<std::mutex> lock(threads.mutex);
      threads.ended.fetch_add(mine->live.load(std::memory_order_relaxed),
                              std::memory_order_relaxed);
      for (size_t i = 0; i < threads.all.size(); ++i) {
        if (threads.all[i] == mine) {
          threads.all[i] = threads.all.back();
          threads.all.pop_back();
          break;
        }
      }
    }
    for (int i = 0; i < mine->num_free; ++i) ::operator delete(mine->free[i]);
    delete mine;
  }
};

ThreadHandles* Mine() {
  if (t_handles != nullptr || t_ended) return t_handles;
  thread_local Owner owner;  // sets t_handles
  return t_handles;
}

// Only the owning thread writes its share: a plain add, stored atomically
// for the readers in CountLiveHandles.
void AddToShare(ThreadHandles* mine, int64_t delta) {
  if (mine == nullptr) {
    AllThreads().ended.fetch_add(delta, std::memory_order_relaxed);
    return;
  }
  mine->live.store(mine->live.load(std::memory_order_relaxed) + delta,
                   std::memory_order_relaxed);
}

}  // namespace

tsb_any MakeHandle(int32_t type_index, c10::IValue value) {
  ThreadHandles* mine = Mine();
  void* block = mine != nullptr && mine->num_free > 0 ? mine->free[--mine->num_free]
                                                      : ::operator new(sizeof(tsb_object));
  auto* object = new (block) tsb_object{{1}, type_index, std::move(value)};
  AddToShare(mine, 1);
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
    tsb_object* object = value.u.obj;
    // Destroyed first: releasing its IValue may release other handles.
    object->~tsb_object();
    ThreadHandles* mine = Mine();
    if (mine != nullptr && mine->num_free < kMaxFree) {
      mine->free[mine->num_free++] = object;
    } else {
      ::operator delete(object);
    }
    AddToShare(mine, -1);
  }
  value.type_index = TSB_TYPE_INVALID;
  value.flags = 0;
  value.u.i = 0;
}

int64_t CountLiveHandles() noexcept {
  Threads& threads = AllThreads();
  std::lock_guard<std::mutex> lock(threads.mutex);
  int64_t live = threads.ended.load(std::memory_order_relaxed);
  for (const ThreadHandles* t : threads.all) live += t->live.load(std::memory_order_relaxed);
  // While other threads run, one share may be read before a handle's making
  // and another after its release: never report less than none.
  return live < 0 ? 0 : live;
}

}  // namespace tsb
