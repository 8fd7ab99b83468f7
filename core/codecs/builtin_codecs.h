// The codecs the core registers for its builtin kinds. Each factory lives in
// the file named after its kind; see docs/architecture.md for the table.
#ifndef TSBRIDGE_CORE_CODECS_BUILTIN_CODECS_H_
#define TSBRIDGE_CORE_CODECS_BUILTIN_CODECS_H_

#include <memory>

#include "core/codec/codec.h"

namespace tsb {

class TypeRegistry;

// scalar_codecs.cc
std::unique_ptr<Codec> MakeNoneCodec();
std::unique_ptr<Codec> MakeBoolCodec();
std::unique_ptr<Codec> MakeIntCodec();
std::unique_ptr<Codec> MakeFloatCodec();
std::unique_ptr<Codec> MakeComplexCodec();
std::unique_ptr<Codec> MakeNumberCodec();
std::unique_ptr<Codec> MakeAnyCodec();
// str_codec.cc
std::unique_ptr<Codec> MakeStrCodec();
// tensor_codec.cc
std::unique_ptr<Codec> MakeTensorCodec();
// torch_enum_codecs.cc
std::unique_ptr<Codec> MakeDeviceCodec();
std::unique_ptr<Codec> MakeDtypeCodec();
std::unique_ptr<Codec> MakeLayoutCodec();
std::unique_ptr<Codec> MakeMemoryFormatCodec();
// list_codec.cc
std::unique_ptr<Codec> MakeListCodec();
// dict_codec.cc
std::unique_ptr<Codec> MakeDictCodec();

// Registers every codec above as provider "core" and interns the leaf
// types at their fixed indices. Throws std::logic_error if that fails,
// which only a broken build can cause.
void RegisterBuiltinCodecs(TypeRegistry& registry);

// Writes an inline boundary value (no handle).
inline void SetInline(int32_t type_index, int64_t payload, tsb_any* out) {
  out->type_index = type_index;
  out->flags = 0;
  out->u.i = payload;
}

}  // namespace tsb

#endif  // TSBRIDGE_CORE_CODECS_BUILTIN_CODECS_H_
