#include "core/types/type_registry.h"

#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "core/codecs/builtin_codecs.h"
#include "core/errors/errors.h"

namespace tsb {

// Identity of an interned type: its LibTorch kind, its name (named types
// only) and the indices of its contained types. Building it needs no string
// formatting for structural types, so re-interning a List[int] is cheap.
struct TypeRegistry::Key {
  c10::TypeKind kind;
  std::string name;
  absl::InlinedVector<int32_t, 4> contained;

  bool operator==(const Key& other) const {
    return kind == other.kind && name == other.name &&
           contained == other.contained;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Key& key) {
    return H::combine(std::move(h), static_cast<int>(key.kind), key.name,
                      key.contained);
  }
};

struct TypeRegistry::Node {
  Key key;
  size_t hash;
  const TypeInfo* info;
  Node* next;
};

namespace {

// Which plugin brings the codec for kinds the core leaves to plugins.
std::string MissingCodecMessage(const c10::Type& type) {
  std::string what = type.annotation_str();
  switch (type.kind()) {
    case c10::TypeKind::TupleType:
      return absl::StrCat("no codec for ", what,
                          ": load the tuple plugin (plugins/tuple)");
    case c10::TypeKind::OptionalType:
    case c10::TypeKind::UnionType:
      return absl::StrCat("no codec for ", what,
                          ": load the optional plugin (plugins/optional)");
    default:
      return absl::StrCat("tsbridge has no codec for ", what, " (",
                          c10::typeKindToString(type.kind()), ")");
  }
}

bool IsLeafKind(tsb_kind kind) { return kind <= TSB_KIND_ANY; }

}  // namespace

TypeRegistry& TypeRegistry::Global() {
  // Never destroyed: handles and plugins may outlive static destruction.
  static TypeRegistry* const registry = [] {
    auto* r = new TypeRegistry();
    RegisterBuiltinCodecs(*r);
    return r;
  }();
  return *registry;
}

TypeRegistry::TypeRegistry() = default;

TypeRegistry::~TypeRegistry() {
  for (auto& chunk : chunks_) delete[] chunk.load();
}

const TypeInfo* TypeRegistry::Find(int32_t index) const noexcept {
  if (index < 0) return nullptr;
  size_t chunk = static_cast<size_t>(index) >> kChunkBits;
  if (chunk >= kMaxChunks) return nullptr;
  const std::atomic<const TypeInfo*>* slots =
      chunks_[chunk].load(std::memory_order_acquire);
  if (slots == nullptr) return nullptr;
  return slots[static_cast<size_t>(index) & (kChunkSize - 1)].load(
      std::memory_order_acquire);
}

const Codec* TypeRegistry::CodecFor(c10::TypeKind kind) const noexcept {
  size_t slot = static_cast<size_t>(kind);
  if (slot >= kMaxTypeKinds) return nullptr;
  return codecs_[slot].load(std::memory_order_acquire);
}

absl::Status TypeRegistry::RegisterCodec(std::unique_ptr<Codec> codec,
                                         absl::string_view provider) {
  size_t slot = static_cast<size_t>(codec->type_kind());
  if (slot >= kMaxTypeKinds) {
    return absl::InvalidArgumentError("codec for an unknown TypeKind");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (const Codec* existing = codecs_[slot].load()) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a codec for ", c10::typeKindToString(codec->type_kind()),
        " is already registered by ", providers_[existing]));
  }
  const Codec* raw = codec.get();
  providers_[raw] = std::string(provider);
  owned_codecs_.push_back(std::move(codec));
  codecs_[slot].store(raw, std::memory_order_release);
  return absl::OkStatus();
}

const TypeInfo* TypeRegistry::Lookup(const Key& key,
                                     size_t hash) const noexcept {
  for (const Node* node = buckets_[hash % kBuckets].load(std::memory_order_acquire);
       node != nullptr; node = node->next) {
    if (node->hash == hash && node->key == key) return node->info;
  }
  return nullptr;
}

absl::StatusOr<const TypeInfo*> TypeRegistry::Intern(const c10::TypePtr& type) {
  if (type == nullptr) return absl::InvalidArgumentError("null TorchScript type");
  const Codec* codec = CodecFor(type->kind());
  if (codec == nullptr) {
    return absl::UnimplementedError(MissingCodecMessage(*type));
  }
  Key key{type->kind(), codec->InternName(*type), {}};
  for (const c10::TypePtr& contained : type->containedTypes()) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* info, Intern(contained));
    key.contained.push_back(info->index);
  }
  size_t hash = absl::HashOf(key);
  if (const TypeInfo* hit = Lookup(key, hash)) return hit;
  return Publish(type, *codec, std::move(key), hash);
}

absl::StatusOr<const TypeInfo*> TypeRegistry::Publish(const c10::TypePtr& type,
                                                      const Codec& codec,
                                                      Key key, size_t hash) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (const TypeInfo* hit = Lookup(key, hash)) return hit;  // lost a race

  auto info = std::make_unique<TypeInfo>();
  info->kind = codec.kind();
  info->type = codec.Canonical(type);
  info->annotation = info->type->annotation_str();
  info->contained.assign(key.contained.begin(), key.contained.end());
  info->codec = &codec;
  info->provider = providers_[&codec];
  int32_t index = IsLeafKind(codec.kind()) ? static_cast<int32_t>(codec.kind())
                                           : next_dynamic_;
  info->index = index;
  TSB_RETURN_IF_ERROR(codec.Describe(*info));
  for (const std::string& field : info->field_names) {
    info->field_name_ptrs.push_back(field.c_str());
  }

  size_t chunk = static_cast<size_t>(index) >> kChunkBits;
  if (chunk >= kMaxChunks) {
    return absl::ResourceExhaustedError("too many distinct TorchScript types");
  }
  std::atomic<const TypeInfo*>* slots = chunks_[chunk].load();
  if (slots == nullptr) {
    slots = new std::atomic<const TypeInfo*>[kChunkSize]();
    chunks_[chunk].store(slots, std::memory_order_release);
  }
  std::atomic<const TypeInfo*>& slot = slots[static_cast<size_t>(index) & (kChunkSize - 1)];
  if (slot.load() != nullptr) {
    return absl::InternalError(absl::StrCat("type index ", index, " taken twice"));
  }
  if (!IsLeafKind(codec.kind())) ++next_dynamic_;

  const TypeInfo* raw = info.get();
  owned_infos_.push_back(std::move(info));
  slot.store(raw, std::memory_order_release);
  std::atomic<Node*>& bucket = buckets_[hash % kBuckets];
  owned_nodes_.push_back(std::make_unique<Node>(
      Node{std::move(key), hash, raw, bucket.load(std::memory_order_relaxed)}));
  bucket.store(owned_nodes_.back().get(), std::memory_order_release);
  return raw;
}

}  // namespace tsb
