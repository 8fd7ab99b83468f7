// The type registry: interns every TorchScript type to a stable index and
// knows which codec serves each kind.
//
// Lookups (Find, CodecFor, and Intern of a type already seen) take no lock:
// published entries are immutable and reached through atomic pointers.
// Registration of new types and codecs is serialised by one mutex.
#ifndef TSBRIDGE_CORE_TYPES_TYPE_REGISTRY_H_
#define TSBRIDGE_CORE_TYPES_TYPE_REGISTRY_H_

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/codec/codec.h"
#include "core/types/type_info.h"

namespace tsb {

class TypeRegistry {
 public:
  // The process-wide registry, with the builtin codecs registered.
  static TypeRegistry& Global();

  TypeRegistry();
  TypeRegistry(const TypeRegistry&) = delete;
  TypeRegistry& operator=(const TypeRegistry&) = delete;
  ~TypeRegistry();

  // The type at `index`, or nullptr when no type has that index.
  const TypeInfo* Find(int32_t index) const noexcept;

  // The index of `type`, interning it (and its contained types) when new.
  absl::StatusOr<const TypeInfo*> Intern(const c10::TypePtr& type);

  // Makes `codec` serve its TypeKind. Fails if another codec already does.
  absl::Status RegisterCodec(std::unique_ptr<Codec> codec,
                             absl::string_view provider);
  const Codec* CodecFor(c10::TypeKind kind) const noexcept;

 private:
  struct Key;
  struct Node;
  static constexpr size_t kBuckets = 4096;
  static constexpr int kChunkBits = 10;
  static constexpr size_t kChunkSize = size_t{1} << kChunkBits;
  static constexpr size_t kMaxChunks = 4096;
  static constexpr size_t kMaxTypeKinds = 64;

  const TypeInfo* Lookup(const Key& key, size_t hash) const noexcept;
  absl::StatusOr<const TypeInfo*> Publish(const c10::TypePtr& type,
                                          const Codec& codec, Key key,
                                          size_t hash);

  std::array<std::atomic<Node*>, kBuckets> buckets_{};
  std::array<std::atomic<std::atomic<const TypeInfo*>*>, kMaxChunks> chunks_{};
  std::array<std::atomic<const Codec*>, kMaxTypeKinds> codecs_{};

  std::mutex mutex_;  // serialises registration; never held by lookups
  int32_t next_dynamic_ = TSB_TYPE_FIRST_DYNAMIC;
  std::vector<std::unique_ptr<Codec>> owned_codecs_;
  absl::flat_hash_map<const Codec*, std::string> providers_;
  std::vector<std::unique_ptr<TypeInfo>> owned_infos_;
  std::vector<std::unique_ptr<Node>> owned_nodes_;
};

}  // namespace tsb

#endif  // TSBRIDGE_CORE_TYPES_TYPE_REGISTRY_H_
