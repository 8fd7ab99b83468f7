// The host kit: what every language binding of tsbridge needs once, over
// the C ABI (tsbridge.h) and tsbridge.hpp, header-only, C++17, no LibTorch
// and no Abseil. The Python and R hosts and the command line's reader stand
// on it; docs/hosts.md shows a host written with it.
//
// - Paths: the segments of the one path syntax (tsbridge/path.hpp), and
//   KeySegmentOf for a key given as a boundary value.
// - ConvertError: a failure with its path, grown one segment per level on
//   the way out (At); CheckStatus turns a tsb_status into one.
// - Listings: a module's methods, children, attributes, parameters and
//   buffers, an operator's overloads, each a vector (tsb::Listed's loop).
// - OwnedVec: boundary references released together, no allocation for a
//   call's usual few arguments.
// - NestingGuard: walks stop 512 containers deep with an error, not a
//   stack overflow.
// - TypeCache: a host's per-type-index entry (the type's info plus what the
//   host makes once for it: a class, a class vector), never rebuilt.
// - Walk (boundary → host) and Build (host → boundary): the structure, the
//   paths and the types; the host says only how each kind looks in its
//   language, in the manner of nanobind's type casters (see the Host
//   requirements above each).
#ifndef TSBRIDGE_HOST_KIT_HPP_
#define TSBRIDGE_HOST_KIT_HPP_

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

// ------------------------------------------------------------------- walk

// Boundary → host. A Host provides:
//   using Out = ...;              an owning host value (moved around)
//   using Entry = ...;            its TypeCache entry (derives from TypeInfo)
//   using Guard = ...;            a nesting guard (kit::NestingGuard, or the
//                                 language's own recursion check)
//   const Entry& Type(int32_t);
//   Out None(); Out Bool(bool); Out Int(int64_t); Out Float(double);
//   Out UInt(uint64_t);            an int above INT64_MAX (TSB_TYPE_UINT,
//                                 ABI 1.6): never to be read as an int64_t
//   Out Complex(double re, double im); Out Str(const char*, size_t);
//   Out Tensor(const tsb_any&);    the host's own reference to keep, if
//                                 any, made from it (tsb_any_keep); it may
//                                 be a borrowed entry (below)
//   Out TorchEnum(int32_t type, int64_t code);
//   Out IntList(const Entry&, const int64_t*, size_t);  // bulk copies (a
//                                 // List[int] holding a uint goes to List)
//   Out FloatList(const Entry&, const double*, size_t);
//   Out BoolList(const Entry&, const bool*, size_t);
//   Out List(const Entry&, Items<Host>&);   // any other List
//   Out Tuple(const Entry&, Items<Host>&);  // Tuple and NamedTuple
//   Out Dict(const Entry&, DictItems<Host>&);
//   Out Enum(const Entry&, const tsb_any&);
//   Out Object(const Entry&, const tsb_any&);  // objects, custom classes
//   static constexpr bool kBorrowTensors = true;  // optional (ABI 1.9):
//                                 the walk flattens with
//                                 tsb_any_flatten_borrowed, so Tensor() gets
//                                 borrowed entries and no reference is made
//                                 for a tensor the host only reads or wraps
// A container value comes out of the boundary whole, in one
// tsb_any_flatten: no handle per inner container or str. The host makes
// its container and asks for each item, converted (a failure named by the
// item's path segment).
template <typename Host>
typename Host::Out Walk(Host& host, const tsb_any& v);

namespace internal {

// The entries a value spans from `at` (itself and, for a container entry
// of tsb_any_flatten, the entries that belong to it).
inline size_t Span(const tsb_any* entries, size_t at) {
  return (entries[at].flags & TSB_FLAG_CONTAINER) ? 1 + static_cast<size_t>(entries[at].u.i) : 1;
}

// The children of a container entry (or a run of values fetched by
// tsb_list_get_items), reached in order at O(1) each.
class Children {
 public:
  // The children of the container entry at `at`.
  Children(const tsb_any* entries, size_t at) : base_(entries), first_(at + 1), pos_(at + 1) {
    const size_t end = at + Span(entries, at);
    for (size_t p = first_; p < end; p += Span(entries, p)) ++count_;
  }
  // n values side by side.
  Children(const tsb_any* values, size_t n, bool)
      : base_(values), first_(0), pos_(0), count_(n), flat_(false) {}
  size_t size() const { return count_; }
  size_t Offset(size_t i) {
    if (!flat_) return i;
    if (i < index_) index_ = 0, pos_ = first_;
    for (; index_ < i; ++index_) pos_ += Span(base_, pos_);
    return pos_;
  }
  const tsb_any* base() const { return base_; }

 private:
  const tsb_any* base_;
  size_t first_, pos_, index_ = 0, count_ = 0;
  bool flat_ = true;
};

// Whether Host walks borrowed tensors (kBorrowTensors) and the library
// has tsb_any_flatten_borrowed (1.9; docs/abi.md: a newer host checks).
template <typename Host, typename = void>
struct BorrowsTensors : std::false_type {};
template <typename Host>
struct BorrowsTensors<Host, std::void_t<decltype(Host::kBorrowTensors)>>
    : std::integral_constant<bool, Host::kBorrowTensors> {};
inline bool LibraryBorrowsTensors() {
  static const bool has = tsb_version() >= 10900;
  return has;
}

// A value's entries as tsb_any_flatten wrote them, released at the end.
// The buffers are the thread's, one per nesting of walks (a host's hook may
// walk another value), and keep their size: after the first calls a walk
// allocates nothing and flattens once.
class Flat {
 public:
  Flat(const tsb_any& v, bool borrow_tensors) : buffer_(Acquire()) {
    try {
      auto flatten = borrow_tensors ? tsb_any_flatten_borrowed : tsb_any_flatten;
      if (buffer_.empty()) buffer_.resize(64);
      size_t n = 0;
      CheckStatus(flatten(&v, buffer_.data(), buffer_.size(), &n));
      while (n > buffer_.size()) {  // the value may grow in between: ask again
        buffer_.resize(n);
        CheckStatus(flatten(&v, buffer_.data(), buffer_.size(), &n));
      }
      size_ = n;
    } catch (...) {  // a failed flatten wrote nothing; the depth is given back
      --Depth();
      throw;
    }
  }
  ~Flat() {
    for (size_t i = 0; i < size_; ++i) {
      if (buffer_[i].flags & TSB_FLAG_HANDLE) tsb_any_release(&buffer_[i]);
    }
    --Depth();
  }
  Flat(const Flat&) = delete;
  Flat& operator=(const Flat&) = delete;
  const tsb_any* data() const { return buffer_.data(); }

 private:
  static size_t& Depth() {
    thread_local size_t depth = 0;
    return depth;
  }
  static std::vector<tsb_any>& Acquire() {
    // One buffer per depth, each where it is as walks nest deeper.
    thread_local std::vector<std::unique_ptr<std::vector<tsb_any>>> pool;
    const size_t depth = Depth()++;
    if (pool.size() <= depth) pool.push_back(std::make_unique<std::vector<tsb_any>>());
    return *pool[depth];
  }
  std::vector<tsb_any>& buffer_;
  size_t size_ = 0;
};

template <typename Host>
typename Host::Out WalkFlat(Host& host, const tsb_any* entries, size_t at);

}  // namespace internal

// The items of a List, Tuple or NamedTuple being walked.
template <typename Host>
class Items {
 public:
  Items(Host& host, const typename Host::Entry& type, internal::Children children)
      : host_(host), type_(type), children_(children) {}
  size_t size() const { return children_.size(); }
  // Item i as the boundary has it: a leaf (inline, a borrowed str, a
  // reference the walk holds) or, for an inner container, an entry that
  // only Walk(i) reads (no tsb_* function takes one). Likewise DictItems'
  // key(i) and value(i).
  const tsb_any& operator[](size_t i) { return children_.base()[children_.Offset(i)]; }
  // Item i in the host's terms; a failure names "[i]" (a NamedTuple's
  // field by name).
  typename Host::Out Walk(size_t i) {
    return At([&] { return Segment(i); },
              [&] { return internal::WalkFlat(host_, children_.base(), children_.Offset(i)); });
  }
  std::string Segment(size_t i) const {
    if (type_.kind == TSB_KIND_NAMEDTUPLE && i < type_.fields.size()) {
      return FieldSegment(type_.fields[i]);
    }
    return IndexSegment(i);
  }

 private:
  Host& host_;
  const typename Host::Entry& type_;
  internal::Children children_;
};

// The entries of a Dict being walked, in insertion order.
template <typename Host>
class DictItems {
 public:
  DictItems(Host& host, internal::Children children) : host_(host), children_(children) {}
  size_t size() const { return children_.size() / 2; }
  const tsb_any& key(size_t i) { return children_.base()[children_.Offset(2 * i)]; }
  const tsb_any& value(size_t i) { return children_.base()[children_.Offset(2 * i + 1)]; }
  typename Host::Out Key(size_t i) {
    return At([&] { return IndexSegment(i) + " (a key)"; },
              [&] { return internal::WalkFlat(host_, children_.base(), children_.Offset(2 * i)); });
  }
  typename Host::Out Value(size_t i) {
    return Value(i, [&] { return KeySegmentOf(key(i)); });
  }
  // Value i, a failure named by segment() (a host that names keys from its
  // own values: Python's repr of a key the kit has no spelling for).
  template <typename Segment>
  typename Host::Out Value(size_t i, Segment&& segment) {
    return At(segment, [&] {
      return internal::WalkFlat(host_, children_.base(), children_.Offset(2 * i + 1));
    });
  }

 private:
  Host& host_;
  internal::Children children_;
};

namespace internal {

// A container entry of tsb_any_flatten at `at`, or any other value there.
template <typename Host>
typename Host::Out WalkFlat(Host& host, const tsb_any* entries, size_t at) {
  const tsb_any& e = entries[at];
  if (!(e.flags & TSB_FLAG_CONTAINER)) return kit::Walk(host, e);
  typename Host::Guard guard;
  const typename Host::Entry& type = host.Type(e.type_index);
  Children children(entries, at);
  switch (type.kind) {
    case TSB_KIND_LIST: {
      const size_t n = children.size();
      const tsb_any* item = entries + at + 1;  // a List[int|float|bool]'s are inline leaves
      switch (type.contained[0]) {
        case TSB_TYPE_INT: {
          int64_t* buf = Scratch<int64_t>(n);
          size_t i = 0;
          for (; i < n && item[i].type_index == TSB_TYPE_INT; ++i) buf[i] = item[i].u.i;
          if (i == n) return host.IntList(type, buf, n);
          Items<Host> items(host, type, children);  // a uint: item by item
          return host.List(type, items);
        }
        case TSB_TYPE_FLOAT: {
          double* buf = Scratch<double>(n);
          for (size_t i = 0; i < n; ++i) buf[i] = item[i].u.d;
          return host.FloatList(type, buf, n);
        }
        case TSB_TYPE_BOOL: {
          bool* buf = Scratch<bool>(n);
          for (size_t i = 0; i < n; ++i) buf[i] = item[i].u.i != 0;
          return host.BoolList(type, buf, n);
        }
        default: {
          Items<Host> items(host, type, children);
          return host.List(type, items);
        }
      }
    }
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE: {
      Items<Host> items(host, type, children);
      return host.Tuple(type, items);
    }
    case TSB_KIND_DICT: {
      DictItems<Host> items(host, children);
      return host.Dict(type, items);
    }
    default:
      Fail(TSB_ERR_INTERNAL, "tsb_any_flatten opened a " + type.annotation);
  }
}

// A container the flattening left whole (a kind a plugin's codec serves
// with items of its own): its items fetched in one call.
template <typename Host>
typename Host::Out WalkFetched(Host& host, const typename Host::Entry& type, const tsb_any& v) {
  if (type.kind == TSB_KIND_DICT) {
    OwnedVec keys(Length(v)), values(keys.size()), both(2 * keys.size());
    CheckStatus(tsb_dict_get_items(&v, keys.size(), keys.data(), values.data()));
    for (size_t i = 0; i < keys.size(); ++i) {  // moved: `both` releases them
      both[2 * i] = keys[i];
      both[2 * i + 1] = values[i];
      keys[i] = values[i] = tsb_any_none();
    }
    DictItems<Host> items(host, Children(both.data(), both.size(), true));
    return host.Dict(type, items);
  }
  OwnedVec fetched(Length(v));
  CheckStatus(tsb_list_get_items(&v, fetched.size(), fetched.data()));
  Items<Host> items(host, type, Children(fetched.data(), fetched.size(), true));
  return type.kind == TSB_KIND_LIST ? host.List(type, items) : host.Tuple(type, items);
}

}  // namespace internal

template <typename Host>
typename Host::Out Walk(Host& host, const tsb_any& v) {
  switch (v.type_index) {  // the fixed leaf indices first: no lookup
    case TSB_TYPE_NONE: return host.None();
    case TSB_TYPE_BOOL: return host.Bool(v.u.i != 0);
    case TSB_TYPE_INT: return host.Int(v.u.i);
    case TSB_TYPE_UINT: return host.UInt(v.u.u);
    case TSB_TYPE_FLOAT: return host.Float(v.u.d);
    case TSB_TYPE_COMPLEX: {
      double re = 0, im = 0;
      CheckStatus(tsb_complex_get(&v, &re, &im));
      return host.Complex(re, im);
    }
    case TSB_TYPE_STR: {
      if (v.flags == TSB_FLAG_BORROWED_STR) {
        return host.Str(v.u.borrowed_str, std::strlen(v.u.borrowed_str));
      }
      const char* data = nullptr;
      size_t len = 0;
      CheckStatus(tsb_str_get(&v, &data, &len));
      return host.Str(data, len);
    }
    case TSB_TYPE_TENSOR: return host.Tensor(v);
    case TSB_TYPE_DEVICE:
    case TSB_TYPE_DTYPE:
    case TSB_TYPE_LAYOUT:
    case TSB_TYPE_MEMORY_FORMAT: return host.TorchEnum(v.type_index, v.u.i);
    default: break;
  }
  typename Host::Guard guard;
  const typename Host::Entry& type = host.Type(v.type_index);
  switch (type.kind) {
    case TSB_KIND_LIST: {
      const size_t n = Length(v);
      switch (type.contained[0]) {  // straight into the host's buffer
        case TSB_TYPE_INT: {
          int64_t* buf = Scratch<int64_t>(n);
          tsb_status* s = tsb_list_copy_int(&v, n, buf);
          if (s == nullptr) return host.IntList(type, buf, n);
          tsb_status_free(s);  // a uint item (ABI 1.6): flattened below, item by item
          break;
        }
        case TSB_TYPE_FLOAT: {
          double* buf = Scratch<double>(n);
          CheckStatus(tsb_list_copy_float(&v, n, buf));
          return host.FloatList(type, buf, n);
        }
        case TSB_TYPE_BOOL: {
          bool* buf = Scratch<bool>(n);
          CheckStatus(tsb_list_copy_bool(&v, n, buf));
          return host.BoolList(type, buf, n);
        }
        default: break;
      }
    }
      [[fallthrough]];
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE:
    case TSB_KIND_DICT: {
      internal::Flat flat(v, internal::BorrowsTensors<Host>::value &&
                                 internal::LibraryBorrowsTensors());
      if (flat.data()[0].flags & TSB_FLAG_CONTAINER) return internal::WalkFlat(host, flat.data(), 0);
      return internal::WalkFetched(host, type, v);
    }
    case TSB_KIND_ENUM: return host.Enum(type, v);
    case TSB_KIND_OBJECT:
    case TSB_KIND_CUSTOM_CLASS: return host.Object(type, v);
    default:
      Fail(TSB_ERR_UNSUPPORTED, "cannot convert a value of type " + type.annotation +
                                    " to a host value");
  }
}

// ------------------------------------------------------------------ build

// Host → boundary, directed by the type expected (a schema's parameter, a
// container's element type; TSB_TYPE_ANY when unknown). The kit dispatches
// on the expected type's kind; a host value that does not have the shape
// asked for is built by its own type (Host::Untyped) and the callee's
// coercion reports the mismatch with its path. A Host provides:
//   using In = ...;                  a borrowed host value
//   using Entry, Guard, Type(int32_t) as for Walk;
//   void Leaf(In, int32_t expected, tsb_any* out);  // expected a fixed
//       // leaf index (int, str, Tensor, ...) or Any: the host converts;
//       // an int above INT64_MAX with tsb_any_uint (the kit asks for
//       // TSB_TYPE_INT where TSB_TYPE_UINT was expected: a uint is an int)
//   void Untyped(In, tsb_any* out);  // by the host value's own type
//   bool IsNone(In);
//   // Containers: each returns false when the value is not of that shape
//   // (then Untyped runs); otherwise builds *out, with the kit's
//   // ListBuilder / TupleBuilder / DictBuilder doing the items.
//   bool List(In, const Entry& type, tsb_any* out);
//   bool Tuple(In, const Entry& type, tsb_any* out);
//   bool Dict(In, const Entry& type, tsb_any* out);
//   bool Enum(In, const Entry& type, tsb_any* out);  // a member's name
//   [[noreturn]] void Mismatch(In, int32_t expected);  // "expected T, got ..."
template <typename Host>
void Build(Host& host, typename Host::In x, int32_t expected, tsb_any* out) {
  typename Host::Guard guard;  // a host's Untyped recurses through Build too
  if (expected < TSB_TYPE_FIRST_DYNAMIC) {
    return host.Leaf(x, expected == TSB_TYPE_UINT ? TSB_TYPE_INT : expected, out);
  }
  const typename Host::Entry& type = host.Type(expected);
  switch (type.kind) {
    case TSB_KIND_LIST:
      if (host.List(x, type, out)) return;
      break;
    case TSB_KIND_DICT:
      if (host.Dict(x, type, out)) return;
      break;
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE:
      if (host.Tuple(x, type, out)) return;
      break;
    case TSB_KIND_OPTIONAL:
      if (host.IsNone(x)) {
        *out = tsb_any_none();
        return;
      }
      return Build(host, x, type.contained[0], out);
    case TSB_KIND_UNION:
      // The first member the host value converts to, in the Union's order.
      for (int32_t member : type.contained) {
        tsb::Value candidate;
        try {
          Build(host, x, member, candidate.out());
        } catch (const ConvertError&) {
          continue;
        }
        tsb_status* s = tsb_any_coerce(&candidate.get(), type.index, out);
        if (s == nullptr) return;
        tsb_status_free(s);
      }
      host.Mismatch(x, expected);
    case TSB_KIND_ENUM:
      if (host.Enum(x, type, out)) return;
      break;
    default:
      break;  // objects: by the value; the callee coerces
  }
  host.Untyped(x, out);
}

// The items of a List being built: element type known (bulk copies and
// per-item conversion to it) or Any (the items' common type).
class ListBuilder {
 public:
  ListBuilder(int32_t element, size_t n) : element_(element), items_(n) {}
  int32_t element() const { return element_; }
  size_t size() const { return items_.size(); }
  // Builds item i with make(tsb_any* out); a failure names "[i]".
  template <typename Make>
  void Item(size_t i, Make&& make) {
    At([&] { return IndexSegment(i); }, [&] { make(&items_[i]); });
  }
  tsb_any* slot(size_t i) { return &items_[i]; }  // for a host that fills in place
  void Finish(tsb_any* out) {
    const int32_t element = element_ == TSB_TYPE_ANY ? CommonType(items_.data(), items_.size())
                                                      : element_;
    CheckStatus(tsb_list_new(element, items_.data(), items_.size(), out));
  }

 private:
  int32_t element_;
  OwnedVec items_;
};

// The items of a Tuple or NamedTuple being built, of a known type (each
// item converted to its field's type) or untyped (type == nullptr).
template <typename Entry>
class TupleBuilder {
 public:
  TupleBuilder(const Entry* type, size_t n) : type_(type), items_(n) {}
  // Whether item i has a type to be built as (an arity mismatch builds the
  // items untyped and leaves the callee's coercion to say so).
  bool typed() const { return type_ != nullptr && type_->contained.size() == items_.size(); }
  int32_t element(size_t i) const { return typed() ? type_->contained[i] : TSB_TYPE_ANY; }
  // The field name of item i when the type is a NamedTuple, else nullptr.
  const char* field(size_t i) const {
    return typed() && type_->kind == TSB_KIND_NAMEDTUPLE ? type_->fields[i] : nullptr;
  }
  size_t size() const { return items_.size(); }
  template <typename Make>
  void Item(size_t i, Make&& make) {
    At([&] { return field(i) ? FieldSegment(field(i)) : IndexSegment(i); },
       [&] { make(&items_[i]); });
  }
  // Typed: one tuple of the type, no coercion after; untyped: a Tuple of
  // the items' own types.
  void Finish(tsb_any* out) {
    if (typed()) {
      CheckStatus(tsb_tuple_new_typed(type_->index, items_.data(), items_.size(), out));
    } else if (type_ != nullptr) {
      tsb::Value plain;
      CheckStatus(tsb_tuple_new(items_.data(), items_.size(), plain.out()));
      CheckStatus(tsb_any_coerce(&plain.get(), type_->index, out));
    } else {
      CheckStatus(tsb_tuple_new(items_.data(), items_.size(), out));
    }
  }
  // The same for a host record that names its items (a Python namedtuple,
  // an R named tsb_tuple; `fields` holds one name per item): untyped or as
  // a plain Tuple, a NamedTuple of the items' own types named
  // `qualified_name` (nullptr: nameless), since a NamedTuple stands where a
  // Tuple is expected; as a NamedTuple type, what that type says.
  void FinishNamed(const char* qualified_name, const std::vector<const char*>& fields,
                   tsb_any* out) {
    if (type_ != nullptr && (type_->kind != TSB_KIND_TUPLE || !typed())) return Finish(out);
    if (type_ == nullptr) {
      CheckStatus(tsb_tuple_new_named(qualified_name, fields.data(), items_.data(),
                                      items_.size(), out));
      return;
    }
    tsb::Value named;
    CheckStatus(tsb_tuple_new_named(qualified_name, fields.data(), items_.data(),
                                    items_.size(), named.out()));
    CheckStatus(tsb_any_coerce(&named.get(), type_->index, out));
  }

 private:
  const Entry* type_;
  OwnedVec items_;
};

// The entries of a Dict being built; key and value types known or Any.
class DictBuilder {
 public:
  DictBuilder(int32_t key_type, int32_t value_type, size_t n)
      : key_type_(key_type), value_type_(value_type), keys_(n), values_(n) {}
  int32_t key_type() const { return key_type_; }
  int32_t value_type() const { return value_type_; }
  size_t size() const { return keys_.size(); }
  // Entry i: make_key(tsb_any*), then make_value(tsb_any*); a failure
  // names the key by segment() (made only then).
  template <typename Segment, typename MakeKey, typename MakeValue>
  void Entry(size_t i, Segment&& segment, MakeKey&& make_key, MakeValue&& make_value) {
    At(segment, [&] {
      make_key(&keys_[i]);
      make_value(&values_[i]);
    });
  }
  // The same with the paths a walk gives (DictItems): "[i] (a key)" while
  // the key is made, then the key made (KeySegmentOf) while the value is.
  template <typename MakeKey, typename MakeValue>
  void Entry(size_t i, MakeKey&& make_key, MakeValue&& make_value) {
    At([&] { return IndexSegment(i) + " (a key)"; }, [&] { make_key(&keys_[i]); });
    At([&] { return KeySegmentOf(keys_[i]); }, [&] { make_value(&values_[i]); });
  }
  void Finish(tsb_any* out) {
    const int32_t k = key_type_ == TSB_TYPE_ANY ? CommonType(keys_.data(), keys_.size()) : key_type_;
    const int32_t v =
        value_type_ == TSB_TYPE_ANY ? CommonType(values_.data(), values_.size()) : value_type_;
    CheckStatus(tsb_dict_new(k, v, keys_.data(), values_.data(), keys_.size(), out));
  }

 private:
  int32_t key_type_, value_type_;
  OwnedVec keys_, values_;
};

}  // namespace tsb::kit

#endif  // TSBRIDGE_HOST_KIT_HPP_
