// KindCodec for c10::TypeKind::ClassType: every instance of a class. One
// LibTorch kind covers three things a host must tell apart, so Describe()
// sets the tsb_kind per type:
//
//  - TorchScript classes (@torch.jit.script class Point) -> TSB_KIND_OBJECT.
//    Field names are the attribute names; tsb_any_get_field reads an attribute,
//    converted by its declared type.
//  - Modules (a scripted nn.Module's type is a ClassType too; values of it
//    appear as attributes or results) -> TSB_KIND_OBJECT as well: their
//    attributes (parameters, buffers, submodules, `training`) are fields.
//  - torchbind custom classes (torch::class_<T>("ns", "Name")), named
//    "__torch__.torch.classes.ns.Name" -> TSB_KIND_CUSTOM_CLASS. They hold a
//    C++ object, have no attributes, and are used through their methods
//    (tsb_object_call; `__getstate__` returns their state when def_pickle
//    defined it).
//
// All three cross as handles that share the object: a round trip returns the
// very same object, and nothing is copied.
//
// Contained types: none. A class's attribute types may name the class
// itself (Optional[Node] in Node), so the registry identifies a class by
// name alone (ContainedTypesAreIdentity in core/types/type_registry.cc) and
// an attribute's type is interned when the attribute is read.
#include <string>

#include <ATen/core/class_type.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/codecs/builtin_codecs.h"
#include "core/types/type_registry.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {
namespace {

constexpr absl::string_view kCustomClassPrefix = "__torch__.torch.classes.";

bool IsCustomClass(const c10::ClassType& type) {
  return type.name().has_value() &&
         absl::StartsWith(type.name()->qualifiedName(), kCustomClassPrefix);
}

std::string FieldList(const c10::ClassType& type) {
  std::vector<std::string> names;
  names.reserve(type.numAttributes());
  for (size_t i = 0; i < type.numAttributes(); ++i) {
    names.push_back(type.getAttributeName(i));
  }
  return absl::StrJoin(names, ", ");
}

class ObjectCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_OBJECT; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::ClassType; }

  std::string InternName(const c10::Type& type) const override {
    return NamedTypeIdentity(type);
  }

  absl::Status Describe(TypeInfo& info) const override {
    const auto& type = info.type->expectRef<c10::ClassType>();
    if (!type.name().has_value()) {
      return absl::InvalidArgumentError("a TorchScript class without a name");
    }
    info.name = type.name()->qualifiedName();
    if (IsCustomClass(type)) {
      info.kind = TSB_KIND_CUSTOM_CLASS;
      return absl::OkStatus();
    }
    for (size_t i = 0; i < type.numAttributes(); ++i) {
      info.field_names.push_back(type.getAttributeName(i));
    }
    return absl::OkStatus();
  }

  // Only an instance of the class (or of a subtype) passes: a class has no
  // conversion from anything else, and a host cannot build one field by
  // field (TorchScript runs __init__; call a function that returns one).
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isObject()) {
      c10::ClassTypePtr have = value.toObjectRef().type();
      if (have.get() == expected.type.get() || have->isSubtypeOf(*expected.type)) {
        return value;
      }
      if (have->annotation_str() == expected.annotation) return SameName(expected, value);
    }
    return Mismatch(expected, value);
  }

  absl::Status Field(const c10::IValue& value, const TypeInfo& info,
                     absl::string_view name, tsb_any* out) const override {
    if (info.kind == TSB_KIND_CUSTOM_CLASS) {
      return TypeError(absl::StrCat(
          info.name, " is a torchbind custom class: it has no readable fields "
          "(call its methods with tsb_object_call; __getstate__ returns its state)"));
    }
    const c10::ivalue::Object& object = value.toObjectRef();
    // The object's own class: the same as info's, or a subtype of it.
    c10::ClassTypePtr type = object.type();
    std::string attribute(name);
    c10::optional<size_t> slot = type->findAttributeSlot(attribute);
    if (!slot.has_value()) {
      return absl::NotFoundError(absl::StrCat(info.name, " has no field '", name,
                                              "' (fields: ", FieldList(*type), ")"));
    }
    // Interned on first read, outside the registry's lock (see the top).
    absl::StatusOr<const TypeInfo*> field_type =
        TypeRegistry::Global().Intern(type->getAttribute(*slot));
    if (!field_type.ok()) {
      return WithPath(field_type.status(), FieldSegment(name));
    }
    return WithPath(ToBoundary(object.getSlot(*slot), **field_type, out),
                    FieldSegment(name));
  }
};

}  // namespace

std::unique_ptr<KindCodec> MakeObjectCodec() { return std::make_unique<ObjectCodec>(); }

}  // namespace tsb
