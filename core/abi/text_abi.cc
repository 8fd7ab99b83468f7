// The text and binary forms of values: JSON (docs/json.md) and the bytes
// torch.save writes.
#include <string>

#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/binary/pickle.h"
#include "core/text/json_codec.h"
#include "tsbridge/plugin/kind_codec.hpp"

using tsb::abi::CheckArg;
using tsb::abi::MallocCopy;
using tsb::abi::Guard;


extern "C" {

tsb_status* tsb_json_write(const tsb_any* value, char** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    // The value's boundary type, not the IValue's: it says an int is a dtype.
    TSB_ASSIGN_OR_RETURN(tsb::TypedValue arg, tsb::abi::TypedArg(value, "value"));
    const c10::IValue& iv = arg.value;
    const tsb::TypeInfo* type = arg.type;
    TSB_ASSIGN_OR_RETURN(tsb::text::Json json, tsb::text::Write(iv, *type));
    const std::string text = tsb::text::Dump(json);
    *out = MallocCopy(text.data(), text.size(), true);
    return absl::OkStatus();
  });
}

tsb_status* tsb_json_read(const char* json, int32_t expected, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(json, "json"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* type, tsb::FindType(expected));
    TSB_ASSIGN_OR_RETURN(tsb::text::Json parsed, tsb::text::Parse(json));
    TSB_ASSIGN_OR_RETURN(c10::IValue value, tsb::text::Read(parsed, *type));
    return tsb::ToBoundary(std::move(value), *type, out);
  });
}

tsb_status* tsb_pickle_write(const tsb_any* value, char** data, size_t* size) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    TSB_RETURN_IF_ERROR(CheckArg(size, "size"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, tsb::abi::ValueArg(value, "value"));
    TSB_ASSIGN_OR_RETURN(std::vector<char> bytes, tsb::binary::PickleSave(iv));
    *data = MallocCopy(bytes.data(), bytes.size(), false);
    *size = bytes.size();
    return absl::OkStatus();
  });
}

tsb_status* tsb_pickle_read(const char* data, size_t size, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (size > 0) TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    if (size == 0) return absl::InvalidArgumentError("no bytes to load (size is 0)");
    TSB_ASSIGN_OR_RETURN(c10::IValue value, tsb::binary::PickleLoad(data, size));
    // Pickles carry no TorchScript types: the value crosses as its own type.
    return tsb::ToBoundary(std::move(value), out);
  });
}

}  // extern "C"
