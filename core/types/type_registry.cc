#include "core/types/type_registry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "tsbridge/plugin/errors.hpp"
#include "tsbridge/plugin/type_info.hpp"

namespace tsb {

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

bool IsLeafKind(tsb_kind kind) { return kind <= TSB_KIND_UINT; }

// A class's containedTypes() are its attribute types, which may name the
// class itself (a Node with an Optional[Node] attribute, built in C++) or
// each other: interning them first would never end. A class is identified by
// its InternName alone, and its attribute types are interned when an
// attribute is read (core/codecs/object_codec.cc).
bool ContainedTypesAreIdentity(c10::TypeKind kind) {
  return kind != c10::TypeKind::ClassType;
}

}  // namespace

TypeRegistry& TypeRegistry::Global() {
  // Never destroyed: handles and plugins may outlive static destruction.
  static TypeRegistry* const registry = new TypeRegistry();
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

const KindCodec* TypeRegistry::CodecFor(c10::TypeKind kind) const noexcept {
  size_t slot = static_cast<size_t>(kind);
  if (slot >= kMaxTypeKinds) return nullptr;
  return codecs_[slot].load(std::memory_order_acquire);
}

absl::Status TypeRegistry::RegisterCodec(std::unique_ptr<KindCodec> codec,
                                         absl::string_view provider) {
  size_t slot = static_cast<size_t>(codec->type_kind());
  if (slot >= kMaxTypeKinds) {
    return absl::InvalidArgumentError("codec for an unknown TypeKind");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (const KindCodec* existing = codecs_[slot].load()) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a codec for ", c10::typeKindToString(codec->type_kind()),
        " is already registered by ", providers_[existing]));
  }
  const KindCodec* raw = codec.get();
  providers_[raw] = std::string(provider);
  owned_codecs_.push_back(std::move(codec));
  codecs_[slot].store(raw, std::memory_order_release);
  return absl::OkStatus();
}

absl::StatusOr<const TypeInfo*> TypeRegistry::PublishValueForm(
    std::unique_ptr<KindCodec> codec, const c10::TypePtr& type, absl::string_view provider) {
  if (!IsLeafKind(codec->kind())) {
    return absl::InvalidArgumentError("a value form needs a fixed type index");
  }
  const KindCodec* raw = codec.get();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    providers_[raw] = std::string(provider);
    owned_codecs_.push_back(std::move(codec));
  }
  // A name no InternName gives: Intern(type) keeps finding its own codec's entry.
  Key key{type->kind(), absl::StrCat("#value form ", static_cast<int>(raw->kind())), {}};
  return Publish(type, *raw, std::move(key));
}

c10::TypePtr TypeRegistry::FindNamedType(absl::string_view name) const noexcept {
  const NamedType* found = named_types_.Find(name);
  return found ? found->type : nullptr;
}

absl::Status TypeRegistry::RegisterNamedType(const std::string& name, c10::TypePtr type,
                                             absl::string_view provider) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [stored, inserted] =
      named_types_.Insert(name, NamedType{std::move(type), std::string(provider)});
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat(
        "type '", name, "' is already registered by ", stored->provider));
  }
  return absl::OkStatus();
}

absl::StatusOr<const TypeInfo*> TypeRegistry::Intern(const c10::TypePtr& type) {
  if (type == nullptr) return absl::InvalidArgumentError("null TorchScript type");
  const KindCodec* codec = CodecFor(type->kind());
  if (codec == nullptr) {
    if (MissHandler* handler = miss_handler()) {
      absl::StatusOr<bool> loaded = handler->ProvideKind(type->kind());
      if (!loaded.ok()) {
        const absl::Status& why = loaded.status();
        return absl::Status(why.code(), absl::StrCat("no codec for ", type->annotation_str(),
                                                     ": ", why.message()));
      }
      if (*loaded) codec = CodecFor(type->kind());
    }
  }
  if (codec == nullptr) {
    return absl::UnimplementedError(MissingCodecMessage(*type));
  }
  Key key{type->kind(), codec->InternName(*type), {}};
  if (ContainedTypesAreIdentity(type->kind())) {
    for (const c10::TypePtr& contained : type->containedTypes()) {
      TSB_ASSIGN_OR_RETURN(const TypeInfo* info, Intern(contained));
      key.contained.push_back(info->index);
    }
  }
  if (const TypeInfo* const* hit = by_key_.Find(key)) return *hit;
  return Publish(type, *codec, std::move(key));
}

absl::StatusOr<const TypeInfo*> TypeRegistry::InternOf(
    c10::TypeKind kind, absl::Span<const TypeInfo* const> parts) {
  Key key{kind, std::string(), {}};
  for (const TypeInfo* part : parts) key.contained.push_back(part->index);
  if (const TypeInfo* const* hit = by_key_.Find(key)) return *hit;
  std::vector<c10::TypePtr> types;
  for (const TypeInfo* part : parts) types.push_back(part->type);
  switch (kind) {
    case c10::TypeKind::ListType:
      if (types.size() == 1) return Intern(c10::ListType::create(types[0]));
      break;
    case c10::TypeKind::DictType:
      if (types.size() == 2) return Intern(c10::DictType::create(types[0], types[1]));
      break;
    case c10::TypeKind::TupleType:
      return Intern(c10::TupleType::create(std::move(types)));
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("InternOf: no ", c10::typeKindToString(kind),
                                                 " of ", parts.size(), " parts"));
}

absl::StatusOr<const TypeInfo*> TypeRegistry::Publish(const c10::TypePtr& type,
                                                      const KindCodec& codec,
                                                      Key key) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (const TypeInfo* const* hit = by_key_.Find(key)) return *hit;  // lost a race

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
  by_key_.Insert(std::move(key), raw);
  return raw;
}

}  // namespace tsb
