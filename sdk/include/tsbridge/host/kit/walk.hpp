// The host kit's walk, boundary → host (tsbridge/host/kit.hpp includes it).
#ifndef TSBRIDGE_HOST_KIT_WALK_HPP_
#define TSBRIDGE_HOST_KIT_WALK_HPP_

#include "tsbridge/host/kit/base.hpp"

namespace tsb::kit {

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

// Whether Host walks borrowed tensors (kBorrowTensors; the walk also asks
// LibraryHas(9) for tsb_any_flatten_borrowed).
template <typename Host, typename = void>
struct BorrowsTensors : std::false_type {};
template <typename Host>
struct BorrowsTensors<Host, std::void_t<decltype(Host::kBorrowTensors)>>
    : std::integral_constant<bool, Host::kBorrowTensors> {};

// A value's entries as tsb_any_flatten wrote them, released at the end; in
// the thread's EntryBuffer: after the first calls a walk allocates nothing
// and flattens once.
class Flat {
 public:
  Flat(const tsb_any& v, bool borrow_tensors) {
    auto flatten = borrow_tensors ? tsb_any_flatten_borrowed : tsb_any_flatten;
    std::vector<tsb_any>& buffer = buffer_.get();
    if (buffer.empty()) buffer.resize(64);
    size_t n = 0;  // a failed flatten writes nothing
    CheckStatus(flatten(&v, buffer.data(), buffer.size(), &n));
    while (n > buffer.size()) {  // the value may grow in between: ask again
      buffer.resize(n);
      CheckStatus(flatten(&v, buffer.data(), buffer.size(), &n));
    }
    size_ = n;
  }
  ~Flat() {
    tsb_any* entries = buffer_.get().data();
    for (size_t i = 0; i < size_; ++i) {
      if (entries[i].flags & TSB_FLAG_HANDLE) tsb_any_release(&entries[i]);
    }
  }
  Flat(const Flat&) = delete;
  Flat& operator=(const Flat&) = delete;
  const tsb_any* data() { return buffer_.get().data(); }

 private:
  EntryBuffer<Flat> buffer_;
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
                                 LibraryHas(9));
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

}  // namespace tsb::kit

#endif  // TSBRIDGE_HOST_KIT_WALK_HPP_
