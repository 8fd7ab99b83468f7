// Version, handles, scalar builders and checked scalar accessors.
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/value/nesting.h"
#include "core/object/object.h"

using tsb::abi::CheckArg;
using tsb::abi::Guard;
using tsb::abi::ValueArgOfType;

namespace {

// A well-formed inline value of the fixed leaf type `type_index`: the
// accessors below read its payload at once (a host's walk calls them once
// per leaf); anything else takes the checked way, which says what is wrong.
bool IsInlineOf(const tsb_any* v, int32_t type_index) {
  return v != nullptr && v->type_index == type_index && v->flags == 0;
}

// tsb_bool_get, tsb_int_get, tsb_float_get: an inline scalar of the type
// read at once, anything else (a handle, the wrong type) through its IValue.
template <typename T, typename FromInline, typename FromIValue>
tsb_status* ScalarGet(const tsb_any* v, int32_t type_index, T* out, FromInline&& from_inline,
                      FromIValue&& from_ivalue) {
  if (out != nullptr && IsInlineOf(v, type_index)) {
    *out = from_inline(*v);
    return nullptr;
  }
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    // A uint is an int past INT64_MAX: say so rather than "expected int".
    if (type_index == TSB_TYPE_INT && v != nullptr && v->type_index == TSB_TYPE_UINT) {
      return tsb::abi::NotInt64(v->u.u);
    }
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, ValueArgOfType(v, type_index, "v"));
    *out = from_ivalue(iv);
    return absl::OkStatus();
  });
}

}  // namespace

extern "C" {

int32_t tsb_version(void) { return TSB_VERSION; }

const char* tsb_version_get_string(void) {
#define TSB_STR2(x) #x
#define TSB_STR(x) TSB_STR2(x)
  return TSB_STR(TSB_VERSION_MAJOR) "." TSB_STR(TSB_VERSION_MINOR) "." TSB_STR(
      TSB_VERSION_PATCH);
}

void tsb_any_retain(const tsb_any* v) {
  if (v != nullptr) tsb::Retain(*v);
}

void tsb_any_release(tsb_any* v) {
  if (v != nullptr) tsb::Release(*v);
}

tsb_status* tsb_any_keep(const tsb_any* v, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckArg(v, "v"));
    if (tsb::IsBorrowedTensor(*v)) {  // what a walk lends most: no lookup
      *out = tsb::MakeHandle(TSB_TYPE_TENSOR, c10::IValue(tsb::BorrowedTensor(*v)));
      return absl::OkStatus();
    }
    tsb::BorrowedValue checked;  // a well-formed value, read without a copy
    TSB_RETURN_IF_ERROR(tsb::Borrow(*v, &checked));
    if (tsb::IsHandle(*v)) {
      tsb::Retain(*v);
      *out = *v;
    } else if (v->flags == 0) {  // inline: itself
      *out = *v;
    } else {  // a borrowed str, decoded into the scratch: a handle of it
      *out = tsb::MakeHandle(checked.type->index, std::move(checked.scratch));
    }
    return absl::OkStatus();
  });
}

tsb_status* tsb_handle_count(size_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = static_cast<size_t>(tsb::CountLiveHandles());
    return absl::OkStatus();
  });
}

tsb_status* tsb_str_new(const char* data, size_t len, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (len > 0) TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    *out = tsb::MakeHandle(TSB_TYPE_STR, c10::IValue(std::string(data ? data : "", len)));
    return absl::OkStatus();
  });
}

tsb_status* tsb_complex_new(double re, double im, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = tsb::MakeHandle(TSB_TYPE_COMPLEX, c10::IValue(c10::complex<double>(re, im)));
    return absl::OkStatus();
  });
}

tsb_status* tsb_bool_get(const tsb_any* v, bool* out) {
  return ScalarGet(v, TSB_TYPE_BOOL, out, [](const tsb_any& a) { return a.u.i != 0; },
                   [](const c10::IValue& iv) { return iv.toBool(); });
}

tsb_status* tsb_int_get(const tsb_any* v, int64_t* out) {
  return ScalarGet(v, TSB_TYPE_INT, out, [](const tsb_any& a) { return a.u.i; },
                   [](const c10::IValue& iv) { return iv.toInt(); });
}

tsb_status* tsb_float_get(const tsb_any* v, double* out) {
  return ScalarGet(v, TSB_TYPE_FLOAT, out, [](const tsb_any& a) { return a.u.d; },
                   [](const c10::IValue& iv) { return iv.toDouble(); });
}

tsb_status* tsb_complex_get(const tsb_any* v, double* re, double* im) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(re, "re"));
    TSB_RETURN_IF_ERROR(CheckArg(im, "im"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, ValueArgOfType(v, TSB_TYPE_COMPLEX, "v"));
    c10::complex<double> c = iv.toComplexDouble();
    *re = c.real();
    *im = c.imag();
    return absl::OkStatus();
  });
}

tsb_status* tsb_str_get(const tsb_any* v, const char** data, size_t* len) {
  // A well-formed str handle: its own string, without a copy of the IValue.
  if (data != nullptr && len != nullptr && v != nullptr && v->type_index == TSB_TYPE_STR &&
      v->flags == TSB_FLAG_HANDLE && v->u.obj != nullptr &&
      v->u.obj->type_index == TSB_TYPE_STR && v->u.obj->value.isString()) {
    const std::string& s = v->u.obj->value.toStringRef();
    *data = s.data();
    *len = s.size();
    return nullptr;
  }
  if (data != nullptr && len != nullptr && v != nullptr && v->type_index == TSB_TYPE_STR &&
      v->flags == TSB_FLAG_BORROWED_STR && v->u.borrowed_str != nullptr) {
    *data = v->u.borrowed_str;  // a host's C string, or tsb_any_flatten's
    *len = std::strlen(v->u.borrowed_str);
    return nullptr;
  }
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    TSB_RETURN_IF_ERROR(CheckArg(len, "len"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, ValueArgOfType(v, TSB_TYPE_STR, "v"));
    if ((v->flags & TSB_FLAG_BORROWED_STR) != 0) {
      *data = v->u.borrowed_str;
      *len = std::strlen(v->u.borrowed_str);
    } else {  // the handle's own string, alive as long as the handle
      const std::string& s = v->u.obj->value.toStringRef();
      *data = s.data();
      *len = s.size();
    }
    return absl::OkStatus();
  });
}

tsb_status* tsb_device_get(const tsb_any* v, int32_t* device_type, int32_t* index) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(device_type, "device_type"));
    TSB_RETURN_IF_ERROR(CheckArg(index, "index"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, ValueArgOfType(v, TSB_TYPE_DEVICE, "v"));
    c10::Device device = iv.toDevice();
    *device_type = static_cast<int32_t>(device.type());
    *index = device.index();
    return absl::OkStatus();
  });
}

// dtype, layout and memory format are ints inside an IValue.
static tsb_status* GetIntEnum(const tsb_any* v, int32_t type_index, int32_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, ValueArgOfType(v, type_index, "v"));
    *out = static_cast<int32_t>(iv.toInt());
    return absl::OkStatus();
  });
}

tsb_status* tsb_dtype_get(const tsb_any* v, int32_t* out) {
  return GetIntEnum(v, TSB_TYPE_DTYPE, out);
}
tsb_status* tsb_layout_get(const tsb_any* v, int32_t* out) {
  return GetIntEnum(v, TSB_TYPE_LAYOUT, out);
}
tsb_status* tsb_memory_format_get(const tsb_any* v, int32_t* out) {
  return GetIntEnum(v, TSB_TYPE_MEMORY_FORMAT, out);
}

tsb_status* tsb_any_repr(const tsb_any* v, char** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, tsb::abi::ValueArg(v, "v"));
    std::ostringstream text;
    switch (v->type_index) {
      case TSB_TYPE_DTYPE: text << static_cast<c10::ScalarType>(iv.toInt()); break;
      case TSB_TYPE_LAYOUT: text << static_cast<c10::Layout>(iv.toInt()); break;
      case TSB_TYPE_MEMORY_FORMAT: text << static_cast<c10::MemoryFormat>(iv.toInt()); break;
      case TSB_TYPE_UINT: text << v->u.u; break;
      default:
        // LibTorch's printer recurses without a bound (core/value/nesting.h).
        TSB_RETURN_IF_ERROR(tsb::CheckNesting(iv));
        text << iv;
    }
    std::string s = text.str();
    char* copy = static_cast<char*>(std::malloc(s.size() + 1));
    if (copy == nullptr) throw std::bad_alloc();
    std::memcpy(copy, s.c_str(), s.size() + 1);
    *out = copy;
    return absl::OkStatus();
  });
}

tsb_status* tsb_any_get_id(const tsb_any* v, uint64_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, tsb::abi::ValueArg(v, "v"));
    // The TensorImpl (or list, dict, object) the IValue points to, also of
    // a lent tensor; inline values, strings the host lent and scalars have
    // none.
    const bool names_object = tsb::IsHandle(*v) || v->flags == TSB_FLAG_BORROWED;
    *out = names_object && iv.isPtrType() && !iv.isString()
               ? reinterpret_cast<uintptr_t>(iv.internalToPointer())
               : 0;
    return absl::OkStatus();
  });
}

void tsb_string_free(char* s) { std::free(s); }

tsb_status* tsb_any_coerce(const tsb_any* value, int32_t expected, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(c10::IValue iv, tsb::abi::ValueArg(value, "value"));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* type, tsb::FindType(expected));
    TSB_ASSIGN_OR_RETURN(c10::IValue converted, tsb::CoerceTo(iv, *type));
    // The one nesting limit, as the builders keep it: a value TorchScript
    // code made deeper (or cyclic) is refused here, not by a later walk.
    TSB_RETURN_IF_ERROR(tsb::CheckDepth(converted, tsb::kMaxValueDepth));
    return tsb::ToBoundary(std::move(converted), *type, out);
  });
}

}  // extern "C"
