#include "core/codecs/builtin_codecs.h"

#include <stdexcept>

#include "core/types/type_registry.h"

namespace tsb {

void RegisterBuiltinCodecs(TypeRegistry& registry) {
  std::unique_ptr<KindCodec> codecs[] = {
      MakeNoneCodec(),   MakeBoolCodec(),   MakeIntCodec(),
      MakeFloatCodec(),  MakeComplexCodec(), MakeNumberCodec(),
      MakeAnyCodec(),    MakeStrCodec(),    MakeTensorCodec(),
      MakeDeviceCodec(), MakeDtypeCodec(),  MakeLayoutCodec(),
      MakeMemoryFormatCodec(), MakeListCodec(), MakeDictCodec()};
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
}

}  // namespace tsb
