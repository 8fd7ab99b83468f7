#include "hosts/serve/binary_data.h"

#include <dlpack/dlpack.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

namespace tsb::serve {
namespace {

// DLPack's type of each dtype the protocol names (bool as DLPack 0.8's
// kDLBool, code 6, which Debian 12's dlpack.h predates: tsb_dlpack_type_code).
struct DlpackType {
  const char* dtype;
  uint8_t code;
  uint8_t bits;
};
constexpr DlpackType kTypes[] = {
    {"bool", TSB_DLPACK_BOOL, 8},     {"uint8", TSB_DLPACK_UINT, 8},
    {"int8", TSB_DLPACK_INT, 8},      {"int16", TSB_DLPACK_INT, 16},
    {"int32", TSB_DLPACK_INT, 32},    {"int64", TSB_DLPACK_INT, 64},
    {"uint16", TSB_DLPACK_UINT, 16},  {"uint32", TSB_DLPACK_UINT, 32},
    {"uint64", TSB_DLPACK_UINT, 64},  {"float16", TSB_DLPACK_FLOAT, 16},
    {"float32", TSB_DLPACK_FLOAT, 32}, {"float64", TSB_DLPACK_FLOAT, 64},
    {"bfloat16", TSB_DLPACK_BFLOAT, 16},
};

const DlpackType* Find(const std::string& dtype) {
  for (const DlpackType& t : kTypes) {
    if (dtype == t.dtype) return &t;
  }
  return nullptr;
}

// f(T{}) with the C++ element type of a dtype the JSON data crosses
// directly (float32, float64, int8 to int64, uint8, bool); nothing for
// another.
template <typename F>
void WithElementType(const std::string& dtype, F&& f) {
  if (dtype == "float32") f(float{});
  else if (dtype == "float64") f(double{});
  else if (dtype == "int64") f(int64_t{});
  else if (dtype == "int32") f(int32_t{});
  else if (dtype == "int16") f(int16_t{});
  else if (dtype == "int8") f(int8_t{});
  else if (dtype == "uint8") f(uint8_t{});
  else if (dtype == "bool") f(bool{});
}

// A DLPack tensor owning its shape and a copy of the bytes (8-byte aligned).
struct OwnedTensor {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  std::unique_ptr<uint64_t[]> data;
};

// Appends the elements of nested `data` as T to `out`: false at the first
// one the general reader would refuse or convert otherwise.
template <typename T>
bool AppendNumbers(const Json& data, std::vector<T>& out) {
  for (const Json& x : data) {
    if (x.is_array()) {
      if (!AppendNumbers(x, out)) return false;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!x.is_boolean()) return false;
      out.push_back(x.get<bool>());
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!x.is_number()) return false;  // "NaN" and the like: the general reader
      out.push_back(static_cast<T>(x.get<double>()));
    } else {
      if (!x.is_number_integer()) return false;
      if (x.is_number_unsigned()) {
        if (x.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
      } else {
        const int64_t v = x.get<int64_t>();
        if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
          return false;
        }
      }
      out.push_back(static_cast<T>(x.get<int64_t>()));
    }
  }
  return true;
}

template <typename T>
std::optional<Value> TensorOf(const std::string& dtype, const std::vector<int64_t>& shape,
                              const Json& data, uint64_t count) {
  std::vector<T> values;
  if (count == data.size()) values.reserve(data.size());  // flat data
  if (!AppendNumbers(data, values) || values.size() != count) return std::nullopt;
  std::string bytes(values.size() * sizeof(T), '\0');
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size(); ++i) bytes[i] = values[i] ? 1 : 0;
  } else if (!values.empty()) {  // an empty vector's data() may be null
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  return TensorFromBytes(dtype, shape, bytes, "");
}

// Appends n elements of T at p as JSON text, "[1.5,-2.0]": the numbers
// nlohmann writes for them; false at a NaN or infinity.
template <typename T>
bool AppendJson(const void* p, size_t n, std::string& out) {
  const T* values = static_cast<const T*>(p);
  out += '[';
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    if constexpr (std::is_floating_point_v<T>) {
      if (!AppendJsonNumber(static_cast<double>(values[i]), out)) return false;
    } else {
      AppendJsonNumber(static_cast<int64_t>(values[i]), out);
    }
  }
  out += ']';
  return true;
}

uint32_t ReadLength(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

}  // namespace

size_t ElementSize(const std::string& dtype) {
  const DlpackType* t = Find(dtype);
  return t == nullptr ? 0 : t->bits / 8;
}

Value TensorFromBytes(const std::string& dtype, const std::vector<int64_t>& shape,
                      std::string_view bytes, const std::string& where) {
  const DlpackType* type = Find(dtype);
  if (type == nullptr) throw HttpError{400, where + ": no binary form for dtype " + dtype};
  auto owned = std::make_unique<OwnedTensor>();
  owned->shape = shape;
  owned->data.reset(new uint64_t[bytes.size() / 8 + 1]);
  if (!bytes.empty()) std::memcpy(owned->data.get(), bytes.data(), bytes.size());
  DLTensor& t = owned->managed.dl_tensor;
  t.data = owned->data.get();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(owned->shape.size());
  t.dtype = DLDataType{type->code, type->bits, 1};
  t.shape = owned->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  owned->managed.manager_ctx = owned.get();
  owned->managed.deleter = [](DLManagedTensor* m) { delete static_cast<OwnedTensor*>(m->manager_ctx); };
  Value tensor;
  if (tsb_status* failed = tsb_tensor_from_dlpack(&owned->managed, tensor.out())) {
    Status status(failed);  // ownership stayed here: owned frees it
    throw HttpError{400, where + ": " + status.message()};
  }
  owned.release();  // the tensor owns it now
  return tensor;
}

std::optional<Value> TensorFromNumbers(const std::string& dtype, const std::vector<int64_t>& shape,
                                       const Json& data) {
  const std::optional<uint64_t> count = ElementCount(shape);  // the request's: may not fit
  if (!count) return std::nullopt;
  std::optional<Value> tensor;
  WithElementType(dtype, [&](auto element) {
    tensor = TensorOf<decltype(element)>(dtype, shape, data, *count);
  });
  return tensor;
}

std::optional<uint64_t> ElementCount(const std::vector<int64_t>& shape, uint64_t element) {
  uint64_t count = element;
  for (int64_t d : shape) {
    if (d == 0) return 0;
    if (d < 0 || count > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d)) {
      return std::nullopt;
    }
    count *= static_cast<uint64_t>(d);
  }
  return count;
}

namespace {

using ManagedTensor = std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)>;

// A tensor exported through DLPack, if it is a CPU tensor of an element
// type the protocol names (kTypes), with that type.
struct CpuTensor {
  ManagedTensor managed{nullptr, [](DLManagedTensor* m) { m->deleter(m); }};
  const DlpackType* type = nullptr;
};

std::optional<CpuTensor> ExportCpuTensor(const tsb_any& tensor) {
  DLManagedTensor* dl = nullptr;
  if (tsb_status* failed = tsb_tensor_to_dlpack(&tensor, &dl)) {
    tsb_status_free(failed);  // not a tensor here, or none: the general writer says
    return std::nullopt;
  }
  CpuTensor out;
  out.managed.reset(dl);
  const DLTensor& t = dl->dl_tensor;
  if (t.device.device_type != kDLCPU || t.dtype.lanes != 1) return std::nullopt;
  for (const DlpackType& k : kTypes) {
    if (k.code == t.dtype.code && k.bits == t.dtype.bits) out.type = &k;
  }
  if (out.type == nullptr) return std::nullopt;
  return out;
}

bool AppendNumbersOf(const tsb_any& tensor, std::string& dtype, std::vector<int64_t>& shape,
                     std::string& out) {
  const std::optional<CpuTensor> cpu = ExportCpuTensor(tensor);
  if (!cpu) return false;
  const DLTensor& t = cpu->managed->dl_tensor;
  shape.assign(t.shape, t.shape + t.ndim);
  size_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= static_cast<size_t>(t.shape[i]);
  int64_t expected = 1;  // row-major strides, in elements (none matter when empty)
  for (int32_t i = t.ndim - 1; n > 0 && i >= 0; --i) {
    if (t.strides != nullptr && t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  const void* p = static_cast<const char*>(t.data) + t.byte_offset;
  bool ok = false;
  WithElementType(cpu->type->dtype, [&](auto element) {
    using T = decltype(element);
    if constexpr (!std::is_same_v<T, bool>) ok = AppendJson<T>(p, n, out);
  });
  if (ok) dtype = cpu->type->dtype;  // bool (JSON true and false) and the rest: the general writer
  return ok;
}

}  // namespace

bool AppendNumbersOfTensor(const tsb_any& tensor, std::string& dtype, std::vector<int64_t>& shape,
                           std::string& text) {
  const size_t size = text.size();
  if (AppendNumbersOf(tensor, dtype, shape, text)) return true;
  text.resize(size);
  return false;
}

bool TensorHeadOf(const tsb_any& tensor, std::string& dtype, std::vector<int64_t>& shape) {
  const std::optional<CpuTensor> cpu = ExportCpuTensor(tensor);
  if (!cpu) return false;
  const DLTensor& t = cpu->managed->dl_tensor;
  dtype = cpu->type->dtype;
  shape.assign(t.shape, t.shape + t.ndim);
  return true;
}

bool AppendJsonNumber(double d, std::string& out) {
  if (!std::isfinite(d)) return false;
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, d);  // shortest round trip
  const std::string_view digits(buffer, static_cast<size_t>(end - buffer));
  out += digits;
  // A double stays one when read back: 2.0, not the integer 2 (as nlohmann).
  if (digits.find_first_of(".e") == std::string_view::npos) out += ".0";
  return true;
}

void AppendJsonNumber(int64_t i, std::string& out) {
  char buffer[24];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, i);
  out.append(buffer, end);
}

Json StringsFromBytes(std::string_view bytes, const std::string& where) {
  Json strings = Json::array();
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 4) {
      throw HttpError{400, where + ": BYTES element " + std::to_string(strings.size()) +
                               " has no 4-byte length (" + std::to_string(bytes.size() - at) +
                               " bytes left)"};
    }
    const uint32_t length = ReadLength(bytes.data() + at);
    at += 4;
    if (bytes.size() - at < length) {
      throw HttpError{400, where + ": BYTES element " + std::to_string(strings.size()) + " of " +
                               std::to_string(length) + " bytes, but " +
                               std::to_string(bytes.size() - at) + " are left"};
    }
    Json element = std::string(bytes.substr(at, length));
    try {
      element.dump();  // a str is UTF-8 (docs/json.md): refused here, not at the call
    } catch (const Json::exception&) {
      throw HttpError{400, where + ": BYTES element " + std::to_string(strings.size()) +
                               " is not valid UTF-8"};
    }
    strings.push_back(std::move(element));
    at += length;
  }
  return strings;
}

std::string BytesOfTensor(const tsb_any& tensor) {
  // Row-major whatever its strides: aten::contiguous is the tensor itself
  // when it already is.
  tsb_any arg = tensor;
  tsb_call_args args = tsb_call_args_make(&arg, 1);
  Value dense;
  Check(tsb_op_call("aten::contiguous", &args, dense.out()));
  DLManagedTensor* dl = nullptr;
  Check(tsb_tensor_to_dlpack(&dense.get(), &dl));
  const DLTensor& t = dl->dl_tensor;
  size_t n = t.dtype.bits / 8;
  for (int32_t i = 0; i < t.ndim; ++i) n *= static_cast<size_t>(t.shape[i]);
  std::string bytes(static_cast<const char*>(t.data) + t.byte_offset, n);
  dl->deleter(dl);
  return bytes;
}

std::string BytesOfStrings(const Json& strings) {
  std::string bytes;
  for (const Json& s : strings) {
    const std::string& text = s.get_ref<const std::string&>();
    const auto n = static_cast<uint32_t>(text.size());
    const char length[4] = {static_cast<char>(n & 0xff), static_cast<char>(n >> 8 & 0xff),
                            static_cast<char>(n >> 16 & 0xff), static_cast<char>(n >> 24 & 0xff)};
    bytes.append(length, 4);
    bytes += text;
  }
  return bytes;
}

}  // namespace tsb::serve
