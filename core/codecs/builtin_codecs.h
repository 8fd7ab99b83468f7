// The codecs the core registers for its builtin kinds. Each factory lives in
// the file named after its kind; see docs/architecture.md for the table.
#ifndef TSBRIDGE_CORE_CODECS_BUILTIN_CODECS_H_
#define TSBRIDGE_CORE_CODECS_BUILTIN_CODECS_H_

#include <memory>
#include <string>

#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {

class TypeRegistry;

// scalar_codecs.cc
std::unique_ptr<KindCodec> MakeNoneCodec();
std::unique_ptr<KindCodec> MakeBoolCodec();
std::unique_ptr<KindCodec> MakeIntCodec();
std::unique_ptr<KindCodec> MakeUIntCodec();  // a value form of int, not a TypeKind's
std::unique_ptr<KindCodec> MakeFloatCodec();
std::unique_ptr<KindCodec> MakeComplexCodec();
std::unique_ptr<KindCodec> MakeNumberCodec();
std::unique_ptr<KindCodec> MakeAnyCodec();
// str_codec.cc
std::unique_ptr<KindCodec> MakeStrCodec();
// tensor_codec.cc
std::unique_ptr<KindCodec> MakeTensorCodec();
// torch_enum_codecs.cc
std::unique_ptr<KindCodec> MakeDeviceCodec();
std::unique_ptr<KindCodec> MakeDtypeCodec();
std::unique_ptr<KindCodec> MakeLayoutCodec();
std::unique_ptr<KindCodec> MakeMemoryFormatCodec();
// list_codec.cc
std::unique_ptr<KindCodec> MakeListCodec();
// dict_codec.cc
std::unique_ptr<KindCodec> MakeDictCodec();
// enum_codec.cc
std::unique_ptr<KindCodec> MakeEnumCodec();
// object_codec.cc: script classes, modules and torchbind custom classes
std::unique_ptr<KindCodec> MakeObjectCodec();

// The InternName of an Enum or class type: its qualified name and the
// address of the type object. Two modules loaded from one file define two
// distinct classes of the same name (one CompilationUnit each), which must
// not share an index; the registry keeps every interned type alive, so an
// address is never reused for another type.
std::string NamedTypeIdentity(const c10::Type& type);
// The type error for a value whose type has the expected name but is
// another type of that name (from another CompilationUnit).
absl::Status SameName(const TypeInfo& expected, const c10::IValue& found);

// Registers every codec above as provider "core" and interns the leaf
// types at their fixed indices (uint's as a value form of int). Throws
// std::logic_error if that fails, which only a broken build can cause.
// Called for TypeRegistry::Global() by the library's start
// (core/abi/library_start.cc).
void RegisterBuiltinCodecs(TypeRegistry& registry);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_CODECS_BUILTIN_CODECS_H_
