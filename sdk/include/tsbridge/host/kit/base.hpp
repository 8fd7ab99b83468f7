// The host kit's common part (tsbridge/host/kit.hpp includes it with the
// walk and the build): paths, errors, listings, ownership, nesting, types.
#ifndef TSBRIDGE_HOST_KIT_BASE_HPP_
#define TSBRIDGE_HOST_KIT_BASE_HPP_

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tsbridge/path.hpp"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::kit {

// ------------------------------------------------------------------ paths

// The segments are tsbridge/path.hpp's, the core's own spelling.
using tsb::ArgumentSegment;
using tsb::FieldSegment;
using tsb::IndexSegment;
using tsb::IntKeySegment;
using tsb::StrKeySegment;

// The segment of a key given as a boundary value.
inline std::string KeySegmentOf(const tsb_any& key) {
  if (key.type_index == TSB_TYPE_INT) return IntKeySegment(key.u.i);
  if (key.type_index == TSB_TYPE_UINT) return "key " + std::to_string(key.u.u);
  const char* data = nullptr;
  size_t len = 0;
  if (key.type_index == TSB_TYPE_STR) {
    tsb_status* s = tsb_str_get(&key, &data, &len);
    if (s == nullptr) return StrKeySegment(std::string_view(data, len));
    tsb_status_free(s);
  }
  if (key.type_index == TSB_TYPE_BOOL) return BoolKeySegment(key.u.i != 0);
  if (key.type_index == TSB_TYPE_FLOAT) return FloatKeySegment(key.u.d);
  return "key of type " + std::to_string(key.type_index);
}

// ----------------------------------------------------------------- errors

// A failure with a path into the value. Hosts turn it into their error
// (a Python exception, an R condition) at the entry point, prefixing where
// the value was (Message).
struct ConvertError {
  tsb_code code = TSB_ERR_INTERNAL;
  std::string path;  // "[2] → key \"b\"", may be empty
  std::string detail;
  std::string backtrace;

  // "<where → path>: <detail>", the text every host prints; a path past 16
  // segments shortened as the core shortens its own (ShortenPath).
  std::string Message(const std::string& where = "") const {
    const std::string whole = ShortenPath(JoinPath(where, path));
    return whole.empty() ? detail : whole + ": " + detail;
  }
};

// Throws ConvertError for a failed status (and frees it); no-op on NULL.
inline void CheckStatus(tsb_status* status) {
  if (status == nullptr) return;
  ConvertError e{tsb_status_get_code(status), tsb_status_get_path(status),
                 tsb_status_get_detail(status), tsb_status_get_backtrace(status)};
  tsb_status_free(status);
  throw e;
}

[[noreturn]] inline void Fail(tsb_code code, std::string detail) {
  throw ConvertError{code, "", std::move(detail), ""};
}

// Runs body(); a ConvertError out of it gets segment() in front of its path.
// The segment is made only on failure: a walk's happy path builds no text.
template <typename Segment, typename Body>
decltype(auto) At(Segment&& segment, Body&& body) {
  try {
    return body();
  } catch (ConvertError& e) {
    e.path = JoinPath(segment(), e.path);
    throw;
  }
}

// The annotation of a type index, for messages; never throws.
inline std::string Annotation(int32_t index) {
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  tsb_status* s = tsb_type_get_info(index, &info);
  if (s != nullptr) {
    tsb_status_free(s);
    return "type " + std::to_string(index);
  }
  return info.annotation ? info.annotation : "";
}

// Whether the library loaded has ABI 1.`minor` or later (tsb_version() is
// major * 10000 + minor * 100 + patch): a host built with newer headers
// calls what a minor added only then.
inline bool LibraryHas(int minor) {
  static const int32_t version = tsb_version();
  return version / 10000 == TSB_VERSION_MAJOR && version % 10000 >= minor * 100;
}

// --------------------------------------------------------------- listings

// What a host shows of a module or an operator, each read by tsb::Listed
// (one "count, then get i" loop); the host only makes its list of them.
template <typename T>
struct Named {
  const char* name = nullptr;  // lives as long as the module
  T value{};
};

inline std::vector<tsb_schema_info> Methods(const tsb_module* m) {
  return Listed<tsb_schema_info>(
      CheckStatus, [&](size_t* n) { return tsb_module_count_methods(m, n); },
      [&](size_t i, tsb_schema_info* info) { return tsb_module_get_method(m, i, info); });
}

// A module's method found by name: its schema, and its index for
// tsb_module_call_method (ABI 1.9), which calls it with no lookup by name.
struct FoundMethod {
  size_t index = 0;
  tsb_schema_info info{};
};

// The method `name` of a module, or nothing if it has none of that name.
inline std::optional<FoundMethod> FindMethod(const tsb_module* m, std::string_view name) {
  const std::vector<tsb_schema_info> methods = Methods(m);
  for (size_t i = 0; i < methods.size(); ++i) {
    if (name == methods[i].name) return FoundMethod{i, methods[i]};
  }
  return std::nullopt;
}

inline std::vector<tsb_schema_info> Overloads(const char* op) {
  return Listed<tsb_schema_info>(
      CheckStatus, [&](size_t* n) { return tsb_op_count_overloads(op, n); },
      [&](size_t i, tsb_schema_info* info) { return tsb_op_get_overload(op, i, info); });
}

// The direct submodules, each a new module the host takes (release()).
inline std::vector<Named<tsb::Module>> Children(const tsb_module* m) {
  return Listed<Named<tsb::Module>>(
      CheckStatus, [&](size_t* n) { return tsb_module_count_children(m, n); },
      [&](size_t i, Named<tsb::Module>* child) {
        tsb_module* owned = nullptr;
        tsb_status* s = tsb_module_get_child(m, i, &child->name, &owned);
        child->value = tsb::Module(owned);
        return s;
      });
}

inline std::vector<const char*> AttributeNames(const tsb_module* m) {
  return Listed<const char*>(
      CheckStatus, [&](size_t* n) { return tsb_module_count_attributes(m, n); },
      [&](size_t i, const char** name) { return tsb_module_get_attribute_name(m, i, name); });
}

// The parameters (or buffers), dotted names, each tensor a new reference.
inline std::vector<Named<tsb::Value>> NamedTensors(const tsb_module* m, bool buffers) {
  return Listed<Named<tsb::Value>>(
      CheckStatus,
      [&](size_t* n) {
        return buffers ? tsb_module_count_buffers(m, n) : tsb_module_count_parameters(m, n);
      },
      [&](size_t i, Named<tsb::Value>* t) {
        return buffers ? tsb_module_get_buffer(m, i, &t->name, t->value.out())
                       : tsb_module_get_parameter(m, i, &t->name, t->value.out());
      });
}

// -------------------------------------------------------------- ownership

// Boundary references, all released at the end; up to 8 live inline, since
// a call's arguments are usually few (no allocation per call).
class OwnedVec {
 public:
  OwnedVec() = default;
  explicit OwnedVec(size_t n) { resize(n); }
  OwnedVec(const OwnedVec&) = delete;
  OwnedVec& operator=(const OwnedVec&) = delete;
  ~OwnedVec() { clear(); }
  // n invalid (nothing to release) values; releases what was there.
  void resize(size_t n) {
    clear();
    if (n > kInline) {
      heap_.assign(n, tsb_any_inline(TSB_TYPE_INVALID, 0));
      data_ = heap_.data();
    } else {
      for (size_t i = 0; i < n; ++i) inline_[i] = tsb_any_inline(TSB_TYPE_INVALID, 0);
      data_ = inline_;
    }
    size_ = n;
  }
  tsb_any* data() { return data_; }
  const tsb_any* data() const { return data_; }
  size_t size() const { return size_; }
  tsb_any& operator[](size_t i) { return data_[i]; }
  const tsb_any& operator[](size_t i) const { return data_[i]; }

 private:
  void clear() {
    for (size_t i = 0; i < size_; ++i) {  // only handles hold a reference
      if (data_[i].flags & TSB_FLAG_HANDLE) tsb_any_release(&data_[i]);
    }
    size_ = 0;
  }
  static constexpr size_t kInline = 8;
  tsb_any inline_[kInline];
  std::vector<tsb_any> heap_;
  tsb_any* data_ = inline_;
  size_t size_ = 0;
};

// One type index when every item has it, else Any (an untyped container
// takes its items' common type, as TorchScript infers a literal's). A uint
// is an int: ints and uints make a List[int].
inline int32_t CommonType(const tsb_any* items, size_t n) {
  if (n == 0) return TSB_TYPE_ANY;
  auto type_of = [](const tsb_any& item) {
    return item.type_index == TSB_TYPE_UINT ? TSB_TYPE_INT : item.type_index;
  };
  const int32_t first = type_of(items[0]);
  for (size_t i = 1; i < n; ++i) {
    if (type_of(items[i]) != first) return TSB_TYPE_ANY;
  }
  return first;
}

inline size_t Length(const tsb_any& v) {
  size_t n = 0;
  CheckStatus(tsb_any_len(&v, &n));
  return n;
}

// A buffer for bulk copies, reused by the thread (never across a call back
// into the host language): a fresh 8 MB buffer per million ints costs page
// faults on every call.
template <typename T>
T* Scratch(size_t n) {
  thread_local std::vector<unsigned char> buffer;
  const size_t bytes = n * sizeof(T) + sizeof(T);
  if (buffer.size() < bytes) buffer.resize(bytes);
  return reinterpret_cast<T*>(buffer.data());
}

// The name of a device, dtype, layout or memory format ("float32",
// "cuda:0"): its JSON form, unquoted; what a host looks its object up by.
inline std::string TorchEnumName(int32_t type_index, int64_t code) {
  char* json = nullptr;
  const tsb_any v = tsb_any_inline(type_index, code);
  CheckStatus(tsb_json_write(&v, &json));
  std::string name(json);
  tsb_string_free(json);
  if (name.size() >= 2 && name.front() == '"') name = name.substr(1, name.size() - 2);
  return name;
}

namespace internal {

// A buffer of entries, the thread's, one per nesting (a walk or build a
// host's hook runs inside another); each keeps its capacity, so that after
// the first calls no walk or build allocates one. One pool per User: a
// walk sizes its buffer to the last value's entries, a build empties its.
template <typename User>
class EntryBuffer {
 public:
  EntryBuffer() : buffer_(Acquire()) {}
  ~EntryBuffer() { --Depth(); }
  EntryBuffer(const EntryBuffer&) = delete;
  EntryBuffer& operator=(const EntryBuffer&) = delete;
  std::vector<tsb_any>& get() { return buffer_; }

 private:
  static size_t& Depth() {
    thread_local size_t depth = 0;
    return depth;
  }
  static std::vector<tsb_any>& Acquire() {
    thread_local std::vector<std::unique_ptr<std::vector<tsb_any>>> pool;
    const size_t depth = Depth()++;
    if (pool.size() <= depth) pool.push_back(std::make_unique<std::vector<tsb_any>>());
    return *pool[depth];
  }
  std::vector<tsb_any>& buffer_;
};

}  // namespace internal

// ---------------------------------------------------------------- nesting

// Walks stop past this many containers with an error: a host value nested
// 100k deep, or a value TorchScript code made to contain itself
// (l.append(l) on a List[Any]). tsbridge's own walks stop at the same depth.
class NestingGuard {
 public:
  static constexpr int kMaxContainers = TSB_MAX_DEPTH;
  NestingGuard() {
    if (++depth() > kMaxContainers + 1) {
      --depth();
      Fail(TSB_ERR_INVALID_ARGUMENT,
           "expected a value nested at most 512 containers deep, found a deeper one"
           " (or one that contains itself)");
    }
  }
  ~NestingGuard() { --depth(); }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  static int& depth() {
    thread_local int d = 0;
    return d;
  }
};

// ------------------------------------------------------------------ types

// A type as tsb_type_get_info describes it, copied once.
struct TypeInfo {
  int32_t index = TSB_TYPE_INVALID;
  tsb_kind kind = TSB_KIND_INVALID;
  std::string annotation;
  std::string name;  // named types: the qualified name; else empty
  std::vector<int32_t> contained;
  std::vector<const char*> fields;  // static storage in the library

  const std::string& QualifiedName() const { return name.empty() ? annotation : name; }
};

// Per type index, one Entry (a TypeInfo, or a host's struct deriving from
// it), made once: the registry's indices are stable for the process.
// Entry::Complete() runs once, after the info is filled, for what the host
// makes per type (a class, a class vector); it may throw. Entries live as
// long as the cache: a host whose entries hold objects of its language
// keeps its cache for the process (`static auto& c = *new TypeCache<E>`),
// so that nothing is freed after the language has shut down. Not locked:
// a host that walks on several threads at once keeps one per thread or
// calls it under its own lock (Python's GIL, R's one thread).
template <typename Entry>
class TypeCache {
 public:
  const Entry& Get(int32_t index) {
    if (index >= 0 && static_cast<size_t>(index) < entries_.size() && entries_[index]) {
      return *entries_[index];
    }
    if (index < 0) Fail(TSB_ERR_NOT_FOUND, "unknown type index " + std::to_string(index));
    tsb_type_info info{};
    info.struct_size = sizeof(info);
    CheckStatus(tsb_type_get_info(index, &info));
    auto entry = std::make_unique<Entry>();
    entry->index = index;
    entry->kind = info.kind;
    entry->annotation = info.annotation ? info.annotation : "";
    entry->name = info.name ? info.name : "";
    entry->contained.assign(info.contained, info.contained + info.num_contained);
    if (info.field_names != nullptr) {
      entry->fields.assign(info.field_names, info.field_names + info.num_fields);
    }
    entry->Complete();
    if (static_cast<size_t>(index) >= entries_.size()) entries_.resize(index + 1);
    // Complete() may run host code that lets another thread (Python's, with
    // its lock released) make the same entry: the first one kept wins, so
    // every thread sees one class per type.
    if (entries_[index] == nullptr) entries_[index] = std::move(entry);
    return *entries_[index];
  }

 private:
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace tsb::kit

#endif  // TSBRIDGE_HOST_KIT_BASE_HPP_
