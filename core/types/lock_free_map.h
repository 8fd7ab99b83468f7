// An insert-only hash map whose lookups take no lock.
//
// Writers are serialised by the owner (one mutex per registry); readers walk
// immutable nodes reached through atomic bucket heads, so a lookup never
// waits for a plugin that is loading. Nodes are never removed or moved: the
// map only grows, as the registries it serves do (types are interned for the
// life of the process, plugins are never unloaded).
#ifndef TSBRIDGE_CORE_TYPES_LOCK_FREE_MAP_H_
#define TSBRIDGE_CORE_TYPES_LOCK_FREE_MAP_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <utility>

#include "absl/hash/hash.h"

namespace tsb {

template <typename Key, typename Value, size_t kBuckets = 4096>
class LockFreeMap {
 public:
  LockFreeMap() = default;
  LockFreeMap(const LockFreeMap&) = delete;
  LockFreeMap& operator=(const LockFreeMap&) = delete;
  ~LockFreeMap() {
    for (auto& bucket : buckets_) {
      for (Node* node = bucket.load(); node != nullptr;) {
        Node* next = node->next;
        delete node;
        node = next;
      }
    }
  }

  // The value stored under `key`, or nullptr. Lock-free. `K` may be any type
  // that hashes and compares like Key (absl::string_view for std::string).
  template <typename K>
  const Value* Find(const K& key) const noexcept {
    size_t hash = absl::Hash<K>{}(key);
    for (const Node* node = buckets_[hash % kBuckets].load(std::memory_order_acquire);
         node != nullptr; node = node->next) {
      if (node->hash == hash && node->key == key) return &node->value;
    }
    return nullptr;
  }

  // Inserts (key, value) unless the key is present. The caller serialises
  // writers. Returns the stored value and whether it was inserted.
  std::pair<const Value*, bool> Insert(Key key, Value value) {
    size_t hash = absl::Hash<Key>{}(key);
    if (const Value* found = Find(key)) return {found, false};
    std::atomic<Node*>& bucket = buckets_[hash % kBuckets];
    Node* node = new Node{std::move(key), hash, std::move(value),
                          bucket.load(std::memory_order_relaxed)};
    bucket.store(node, std::memory_order_release);
    return {&node->value, true};
  }

 private:
  struct Node {
    Key key;
    size_t hash;
    Value value;
    Node* next;
  };
  std::array<std::atomic<Node*>, kBuckets> buckets_{};
};

}  // namespace tsb

#endif  // TSBRIDGE_CORE_TYPES_LOCK_FREE_MAP_H_
