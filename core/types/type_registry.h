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
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/types/lock_free_map.h"
#include "absl/status/statusor.h"
#include "tsbridge/plugin/type_info.hpp"

namespace tsb {

// Answers the registry's misses with plugins offered but not yet loaded
// (tsb_plugin_defer_bundled; core/plugins/deferred_plugins.h). Each returns
// true when it loaded something the caller should look for again, false
// when nothing offered provides it, or why a plugin that does failed to load
// (whatever that error's code: a missing file is NOT_FOUND too).
class MissHandler {
 public:
  virtual ~MissHandler() = default;
  // A kind with no codec (Tuple, Optional, Union).
  virtual absl::StatusOr<bool> ProvideKind(c10::TypeKind kind) = 0;
  // Any named type, function, operator or class namespace that `text` (a type
  // string, a module's code, an operator name) mentions.
  virtual absl::StatusOr<bool> ProvideNamesIn(absl::string_view text) = 0;
};

class TypeRegistry {
 public:
  // The process-wide registry. Its builtin codecs live a layer above
  // (core/codecs), which registers them while the library loads
  // (builtin_codecs.cc): every caller comes after that, so none sees it
  // without them.
  static TypeRegistry& Global();

  TypeRegistry();
  TypeRegistry(const TypeRegistry&) = delete;
  TypeRegistry& operator=(const TypeRegistry&) = delete;
  ~TypeRegistry();

  // The type at `index`, or nullptr when no type has that index.
  const TypeInfo* Find(int32_t index) const noexcept;

  // The index of `type`, interning it (and its contained types) when new.
  absl::StatusOr<const TypeInfo*> Intern(const c10::TypePtr& type);

  // The unnamed List (one part), Dict (key, value) or Tuple of `parts`: when
  // already interned, a lookup by the parts' indices that builds no LibTorch
  // type. For builders that know their parts' types (tsb_list_new,
  // tsb_tuple_new), so nothing is inferred from values.
  absl::StatusOr<const TypeInfo*> InternOf(c10::TypeKind kind,
                                           absl::Span<const TypeInfo* const> parts);

  // A type registered under a qualified name by a plugin (a named record such
  // as "tsbridge.tensor_pair"), or nullptr. Lock-free.
  c10::TypePtr FindNamedType(absl::string_view name) const noexcept;
  // Registers `type` under `name`; ALREADY_EXISTS names the plugin that has it.
  absl::Status RegisterNamedType(const std::string& name, c10::TypePtr type,
                                 absl::string_view provider);

  // Makes `codec` serve its TypeKind. Fails if another codec already does.
  absl::Status RegisterCodec(std::unique_ptr<KindCodec> codec,
                             absl::string_view provider);
  const KindCodec* CodecFor(c10::TypeKind kind) const noexcept;

  // A codec for a value form of `type`, whose TypeKind another codec
  // serves (uint, an int above INT64_MAX, is a value of `int`): published
  // at its kind's fixed index, which Find reaches and Intern never gives.
  absl::StatusOr<const TypeInfo*> PublishValueForm(std::unique_ptr<KindCodec> codec,
                                                   const c10::TypePtr& type,
                                                   absl::string_view provider);

  // Set once, by the first tsb_plugin_defer_bundled; never unset.
  void SetMissHandler(MissHandler* handler) noexcept {
    miss_handler_.store(handler, std::memory_order_release);
  }
  MissHandler* miss_handler() const noexcept {
    return miss_handler_.load(std::memory_order_acquire);
  }

 private:
  // Identity of an interned type: its LibTorch kind, its name (named types
  // only) and the indices of its contained types. Building it needs no string
  // formatting for structural types, so re-interning a List[int] is cheap.
  struct Key {
    c10::TypeKind kind;
    std::string name;
    absl::InlinedVector<int32_t, 4> contained;

    bool operator==(const Key& other) const {
      return kind == other.kind && name == other.name && contained == other.contained;
    }
    template <typename H>
    friend H AbslHashValue(H h, const Key& key) {
      return H::combine(std::move(h), static_cast<int>(key.kind), key.name, key.contained);
    }
  };
  struct NamedType {
    c10::TypePtr type;
    std::string provider;
  };
  static constexpr int kChunkBits = 10;
  static constexpr size_t kChunkSize = size_t{1} << kChunkBits;
  static constexpr size_t kMaxChunks = 4096;
  static constexpr size_t kMaxTypeKinds = 64;

  absl::StatusOr<const TypeInfo*> Publish(const c10::TypePtr& type,
                                          const KindCodec& codec, Key key);

  LockFreeMap<Key, const TypeInfo*> by_key_;
  LockFreeMap<std::string, NamedType> named_types_;
  std::array<std::atomic<std::atomic<const TypeInfo*>*>, kMaxChunks> chunks_{};
  std::array<std::atomic<const KindCodec*>, kMaxTypeKinds> codecs_{};
  std::atomic<MissHandler*> miss_handler_{nullptr};

  std::mutex mutex_;  // serialises registration; never held by lookups
  int32_t next_dynamic_ = TSB_TYPE_FIRST_DYNAMIC;
  std::vector<std::unique_ptr<KindCodec>> owned_codecs_;
  absl::flat_hash_map<const KindCodec*, std::string> providers_;
  std::vector<std::unique_ptr<TypeInfo>> owned_infos_;
};

// The i-th contained type of a List, Dict, Tuple or NamedTuple type: a
// registered type's contained types are interned with it, never absent.
inline const TypeInfo& ContainedType(const TypeInfo& type, size_t i) {
  return *TypeRegistry::Global().Find(type.contained[i]);
}

}  // namespace tsb

#endif  // TSBRIDGE_CORE_TYPES_TYPE_REGISTRY_H_
