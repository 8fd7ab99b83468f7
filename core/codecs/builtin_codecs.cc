#include "core/codecs/builtin_codecs.h"

#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "core/types/type_registry.h"

namespace tsb {

void RegisterBuiltinCodecs(TypeRegistry& registry) {
  std::unique_ptr<KindCodec> codecs[] = {
      MakeNoneCodec(),   MakeBoolCodec(),   MakeIntCodec(),
      MakeFloatCodec(),  MakeComplexCodec(), MakeNumberCodec(),
      MakeAnyCodec(),    MakeStrCodec(),    MakeTensorCodec(),
      MakeDeviceCodec(), MakeDtypeCodec(),  MakeLayoutCodec(),
      MakeMemoryFormatCodec(), MakeListCodec(), MakeDictCodec(),
      MakeEnumCodec(),   MakeObjectCodec()};
  for (auto& codec : codecs) {
    absl::Status status = registry.RegisterCodec(std::move(codec), "core");
    if (!status.ok()) throw std::logic_error(status.ToString());
  }
  const c10::TypePtr leaves[] = {
      c10::NoneType::get(),       c10::BoolType::get(),
      c10::IntType::get(),        c10::FloatType::get(),
      c10::ComplexType::get(),    c10::StringType::get(),
      c10::TensorType::get(),     c10::DeviceObjType::get(),
      c10::ScalarTypeType::get(), c10::LayoutType::get(),
      c10::MemoryFormatType::get(), c10::NumberType::get(),
      c10::AnyType::get()};
  for (const c10::TypePtr& leaf : leaves) {
    absl::StatusOr<const TypeInfo*> info = registry.Intern(leaf);
    if (!info.ok()) throw std::logic_error(info.status().ToString());
  }
  absl::StatusOr<const TypeInfo*> uint =
      registry.PublishValueForm(MakeUIntCodec(), c10::IntType::get(), "core");
  if (!uint.ok()) throw std::logic_error(uint.status().ToString());
}

std::string NamedTypeIdentity(const c10::Type& type) {
  const auto* named = type.castRaw<c10::NamedType>();
  std::string name = named != nullptr && named->name().has_value()
                         ? named->name()->qualifiedName()
                         : std::string();
  return absl::StrCat(name, "@", absl::Hex(reinterpret_cast<uintptr_t>(&type)));
}

absl::Status SameName(const TypeInfo& expected, const c10::IValue& found) {
  return TypeError(absl::StrCat("expected ", expected.annotation, ", got ",
                                DescribeValue(found),
                                " of another type of that name (defined by another "
                                "compilation unit, e.g. a module loaded separately)"));
}

}  // namespace tsb
