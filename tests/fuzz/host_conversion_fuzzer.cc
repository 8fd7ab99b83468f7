// libFuzzer: the C entry points the Python host converts with
// (hosts/python/src/from_python.cc and to_python.cc), driven as the host
// drives them. Atheris is not in Debian, so this stands in for fuzzing the
// host itself. The input is "<type string>\n<bytes>": the type is parsed,
// then a value is built for it the way the host builds one from a Python
// object (bulk lists, typed dicts, tuples, strings of any bytes, tensors
// through DLPack with any dtype, shape and strides), straying from the type
// where the bytes say so (a user passing the wrong thing); then
// tsb_any_coerce to the type, and the result read back the way the host
// reads it (lengths, items, fields, strings, tensors out through DLPack),
// and written as JSON. Whatever the input: statuses, no crash, no handle
// left alive.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"
#include "fuzz_input.h"
#include "no_backtraces.h"

namespace {

using tsb::fuzz::Bytes;

// A host-owned DLPack tensor, as a numpy array exports one.
struct HostTensor {
  DLManagedTensor managed{};
  std::vector<int64_t> shape, strides;
  std::vector<uint8_t> buffer;
};

void DeleteHostTensor(DLManagedTensor* m) { delete static_cast<HostTensor*>(m->manager_ctx); }

constexpr size_t kMaxElements = 256;

void Release(std::vector<tsb_any>& values) {
  for (tsb_any& v : values) tsb_any_release(&v);
}

class Builder {
 public:
  explicit Builder(Bytes& in) : in_(in) {}

  // A value for `type` in *out (TSB_TYPE_INVALID when a builder refused).
  void Build(int32_t type, int depth, tsb_any* out) {
    *out = tsb_any_inline(TSB_TYPE_INVALID, 0);
    const uint8_t op = in_.Next();
    if (op % 11 == 0 || depth > 5) return Stray(op, out);
    tsb_type_info info{};
    info.struct_size = sizeof info;
    if (tsb_status* s = tsb_type_get_info(type, &info)) {
      tsb_status_free(s);
      return Stray(op, out);
    }
    switch (info.kind) {
      case TSB_KIND_NONE: *out = tsb_any_none(); return;
      case TSB_KIND_BOOL: *out = tsb_any_bool(op & 1); return;
      case TSB_KIND_INT: *out = tsb_any_int(in_.Raw<int64_t>()); return;
      case TSB_KIND_FLOAT: *out = tsb_any_float(in_.Raw<double>()); return;
      case TSB_KIND_COMPLEX:
        return Keep(tsb_complex_new(in_.Raw<double>(), in_.Raw<double>(), out), out);
      case TSB_KIND_STR: return Str(op, out);
      case TSB_KIND_TENSOR: return Tensor(out);
      case TSB_KIND_DEVICE:
      case TSB_KIND_DTYPE:
      case TSB_KIND_LAYOUT:
      case TSB_KIND_MEMORY_FORMAT:
        // Codes as the host passes them, any of them (the codec checks).
        *out = tsb_any_inline(type, static_cast<int8_t>(in_.Next()));
        return;
      case TSB_KIND_LIST: return List(info.contained[0], op, depth, out);
      case TSB_KIND_DICT: return Dict(info.contained[0], info.contained[1], op, depth, out);
      case TSB_KIND_TUPLE:
      case TSB_KIND_NAMEDTUPLE: {
        std::vector<tsb_any> items(info.num_contained);
        for (size_t i = 0; i < items.size(); ++i) Build(info.contained[i], depth + 1, &items[i]);
        Keep(tsb_tuple_new(items.data(), items.size(), out), out);
        return Release(items);
      }
      case TSB_KIND_OPTIONAL:
        if (op & 1) {
          *out = tsb_any_none();
          return;
        }
        return Build(info.contained[0], depth + 1, out);
      case TSB_KIND_UNION:
        if (info.num_contained == 0) return Stray(op, out);
        return Build(info.contained[in_.Next() % info.num_contained], depth + 1, out);
      default:
        return Stray(op, out);
    }
  }

 private:
  void Keep(tsb_status* s, tsb_any* out) {
    if (s != nullptr) {
      tsb_status_free(s);
      *out = tsb_any_inline(TSB_TYPE_INVALID, 0);
    }
  }

  // The wrong kind: what a host passes when the user passes the wrong thing.
  void Stray(uint8_t op, tsb_any* out) {
    switch ((op >> 4) % 5) {
      case 0: *out = tsb_any_int(in_.Raw<int64_t>()); return;
      case 1: *out = tsb_any_float(in_.Raw<double>()); return;
      case 2: *out = tsb_any_none(); return;
      case 3: return Str(op, out);
      default: {
        std::vector<tsb_any> none(in_.Next() % 3, tsb_any_none());
        return Keep(tsb_list_new(TSB_TYPE_ANY, none.data(), none.size(), out), out);
      }
    }
  }

  // Any bytes: invalid UTF-8, embedded NULs; borrowed when NUL-free.
  void Str(uint8_t op, tsb_any* out) {
    std::string s;
    for (size_t n = in_.Next() % 16; n > 0; --n) s.push_back(static_cast<char>(in_.Next()));
    if ((op & 2) && s.find('\0') == std::string::npos) {
      *out = tsb_any_borrowed_str(strings_.emplace_back(std::move(s)).c_str());
      return;
    }
    Keep(tsb_str_new(s.data(), s.size(), out), out);
  }

  void Tensor(tsb_any* out) {
    auto* t = new HostTensor;
    DLTensor& dl = t->managed.dl_tensor;
    dl.ndim = in_.Next() % 4;
    dl.dtype.code = in_.Next() % 8;  // kDLInt .. past kDLBool: some invalid
    const uint8_t bits[] = {1, 8, 16, 32, 64, 128, 7, 0};
    dl.dtype.bits = bits[in_.Next() % 8];
    dl.dtype.lanes = (in_.Next() % 8 == 0) ? 2 : 1;
    dl.device.device_type = (in_.Next() % 8 == 0) ? kDLCUDA : kDLCPU;
    const bool with_strides = in_.Next() & 1;
    size_t extent = 1;  // elements the buffer must hold
    for (int32_t i = 0; i < dl.ndim; ++i) {
      t->shape.push_back(in_.Next() % 5);
      t->strides.push_back(in_.Next() % 7);  // 0: broadcast, >1: a view
      if (t->shape.back() == 0) extent = 0;
    }
    if (extent != 0) {
      for (int32_t i = 0; i < dl.ndim; ++i) extent += (t->shape[i] - 1) * t->strides[i];
      if (!with_strides) {
        extent = 1;
        for (int64_t d : t->shape) extent *= d;
      }
    }
    t->buffer.assign(std::min(extent, kMaxElements) * 32 + 32, 0x5a);
    if (extent > kMaxElements) t->shape.assign(dl.ndim, 1), t->strides.assign(dl.ndim, 1);
    dl.data = t->buffer.data();
    dl.shape = t->shape.data();
    dl.strides = with_strides ? t->strides.data() : nullptr;
    t->managed.manager_ctx = t;
    t->managed.deleter = DeleteHostTensor;
    if (tsb_status* s = tsb_tensor_from_dlpack(&t->managed, out)) {
      tsb_status_free(s);
      delete t;  // refused: still ours
      *out = tsb_any_inline(TSB_TYPE_INVALID, 0);
    }
  }

  void List(int32_t element, uint8_t op, int depth, tsb_any* out) {
    const size_t n = in_.Next() % 4;
    if (op & 4) {  // the host's bulk paths, whatever the element type says
      switch (op % 3) {
        case 0: {
          std::vector<int64_t> xs(n);
          for (auto& x : xs) x = in_.Raw<int64_t>();
          return Keep(tsb_list_new_int(xs.data(), n, out), out);
        }
        case 1: {
          std::vector<double> xs(n);
          for (auto& x : xs) x = in_.Raw<double>();
          return Keep(tsb_list_new_float(xs.data(), n, out), out);
        }
        default: {
          bool xs[4] = {};
          for (size_t i = 0; i < n; ++i) xs[i] = in_.Next() & 1;
          return Keep(tsb_list_new_bool(xs, n, out), out);
        }
      }
    }
    std::vector<tsb_any> items(n);
    for (auto& item : items) Build(element, depth + 1, &item);
    Keep(tsb_list_new((op & 8) ? TSB_TYPE_ANY : element, items.data(), n, out), out);
    Release(items);
  }

  void Dict(int32_t key, int32_t value, uint8_t op, int depth, tsb_any* out) {
    const size_t n = in_.Next() % 4;
    std::vector<tsb_any> keys(n), values(n);
    for (size_t i = 0; i < n; ++i) {
      Build(key, depth + 1, &keys[i]);
      Build(value, depth + 1, &values[i]);
    }
    const bool untyped = op & 8;
    Keep(tsb_dict_new(untyped ? TSB_TYPE_ANY : key, untyped ? TSB_TYPE_ANY : value,
                      keys.data(), values.data(), n, out),
         out);
    Release(keys);
    Release(values);
  }

  Bytes& in_;
  std::deque<std::string> strings_;  // borrowed strings live until the end
};

void Ignore(tsb_status* s) { tsb_status_free(s); }

// Reads `v` the way the host's ToPython does.
void Walk(const tsb_any& v, int depth) {
  if (depth > 8) return;
  tsb_type_info info{};
  info.struct_size = sizeof info;
  if (tsb_status* s = tsb_type_get_info(v.type_index, &info)) return Ignore(s);
  switch (info.kind) {
    case TSB_KIND_STR: {
      const char* data;
      size_t len;
      return Ignore(tsb_str_get(&v, &data, &len));
    }
    case TSB_KIND_COMPLEX: {
      double re, im;
      return Ignore(tsb_complex_get(&v, &re, &im));
    }
    case TSB_KIND_TENSOR: {
      DLManagedTensor* m = nullptr;
      if (tsb_status* s = tsb_tensor_to_dlpack(&v, &m)) return Ignore(s);
      m->deleter(m);
      return;
    }
    case TSB_KIND_LIST:
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE: {
      size_t n = 0;
      if (tsb_status* s = tsb_any_len(&v, &n)) return Ignore(s);
      std::vector<tsb_any> items(n);
      if (tsb_status* s = tsb_list_get_items(&v, n, items.data())) return Ignore(s);
      for (const tsb_any& item : items) Walk(item, depth + 1);
      Release(items);
      for (size_t i = 0; i < info.num_fields && info.field_names; ++i) {
        tsb_any field = tsb_any_inline(TSB_TYPE_INVALID, 0);
        Ignore(tsb_any_get_field(&v, info.field_names[i], &field));
        tsb_any_release(&field);
      }
      return;
    }
    case TSB_KIND_DICT: {
      size_t n = 0;
      if (tsb_status* s = tsb_any_len(&v, &n)) return Ignore(s);
      std::vector<tsb_any> keys(n), values(n);
      if (tsb_status* s = tsb_dict_get_items(&v, n, keys.data(), values.data())) return Ignore(s);
      for (size_t i = 0; i < n; ++i) {
        Walk(keys[i], depth + 1);
        Walk(values[i], depth + 1);
      }
      Release(keys);
      Release(values);
      return;
    }
    default:
      return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsb::fuzz::DropLibTorchBacktraces();
  tsb::fuzz::LoadBundledPlugins();
  int32_t type = TSB_TYPE_INVALID;
  Bytes in{};
  if (!tsb::fuzz::SplitTyped(data, size, &type, &in)) return 0;
  const size_t live_before = ::tsb::LiveHandles();
  {
    Builder builder(in);
    tsb_any built, coerced = tsb_any_inline(TSB_TYPE_INVALID, 0);
    builder.Build(type, 0, &built);
    if (tsb_status* s = tsb_any_coerce(&built, type, &coerced)) {
      tsb_status_free(s);
    } else {
      Walk(coerced, 0);
      char* json = nullptr;
      Ignore(tsb_json_write(&coerced, &json));
      tsb_string_free(json);
    }
    tsb_any_release(&coerced);
    tsb_any_release(&built);
  }
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
