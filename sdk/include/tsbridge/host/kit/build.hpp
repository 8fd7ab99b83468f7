// The host kit's build, host → boundary (tsbridge/host/kit.hpp includes it).
//
// A whole nested value goes in as one tsb_any_unflatten (ABI 1.9): the
// builders of one outermost kit::Build append their containers and items to
// one buffer in pre-order, and the outermost builder makes the value in one
// pass, with no handle per inner container. Against an older library each
// builder makes its container with tsb_list_new / tsb_tuple_new_typed /
// tsb_dict_new, as before.
#ifndef TSBRIDGE_HOST_KIT_BUILD_HPP_
#define TSBRIDGE_HOST_KIT_BUILD_HPP_

#include "tsbridge/host/kit/base.hpp"

namespace tsb::kit {

class BuildContext;

namespace internal {

// The pre-order entries (tsb_any_unflatten's form) of one outermost build,
// in the thread's EntryBuffer (a buffer cache: which build a builder joins
// is its BuildContext's to say).
class FlatBuild {
 public:
  FlatBuild() = default;
  ~FlatBuild() { Truncate(0); }
  FlatBuild(const FlatBuild&) = delete;
  FlatBuild& operator=(const FlatBuild&) = delete;

  std::vector<tsb_any>& entries() { return entries_.get(); }
  // Drops the entries from `n` on, releasing the references among them.
  void Truncate(size_t n) {
    std::vector<tsb_any>& e = entries();
    for (size_t i = n; i < e.size(); ++i) {
      if (e[i].flags & TSB_FLAG_HANDLE) tsb_any_release(&e[i]);
    }
    e.resize(n);
  }
  // The number of entries the value at `at` spans.
  size_t Span(size_t at) {
    const tsb_any& e = entries()[at];
    return e.flags == TSB_FLAG_CONTAINER ? 1 + static_cast<size_t>(e.u.i) : 1;
  }

 private:
  EntryBuffer<FlatBuild> entries_;
};

class Collected;
struct BuildContextAccess;  // the kit's own test and fuzzer (tests/testing)

}  // namespace internal

// The state of one outermost kit::Build, made by it and handed to every
// builder it makes (a host's List, Tuple and Dict get it, and give it to
// the kit's builders and back to kit::Build for each item); nothing is
// looked up in a thread-local. It says where the builders' items go (one
// buffer for the whole value, made in one tsb_any_unflatten; each builder's
// own container against a library older than 1.9; a Union's trials whole)
// and keeps what the host holds until the value is made (Hold).
class BuildContext {
 public:
  BuildContext() : per_container_(!LibraryHas(9)), held_(&own_held_) {}
  ~BuildContext() {
    for (size_t i = own_held_.size(); i-- > 0;) own_held_[i].release(own_held_[i].object);
  }
  BuildContext(const BuildContext&) = delete;
  BuildContext& operator=(const BuildContext&) = delete;

  // The host gives the build one reference it owns to `object`, released
  // with release(object) when the outermost build ends: what it reads items
  // from, and what it lends into the value (a str's text, a tensor), so that
  // host code run by a later item cannot free them (docs/hosts.md).
  void Hold(void* object, void (*release)(void*)) { held_->push_back(Held{object, release}); }
  // The number held so far, and the one held at index i (as Hold gave it).
  size_t held() const { return held_->size(); }
  void* HeldAt(size_t i) const { return (*held_)[i].object; }

 private:
  friend class internal::Collected;
  friend struct internal::BuildContextAccess;
  template <typename Host>
  friend void Build(Host&, BuildContext&, typename Host::In, int32_t, tsb_any*);

  struct Held {
    void* object;
    void (*release)(void*);
  };
  // A Union's trial: its builders make a whole value (it is coerced, and
  // dropped if it fails); what the host holds stays the outer build's.
  struct WholeValueOf {
    BuildContext& outer;
  };
  explicit BuildContext(WholeValueOf trial)
      : per_container_(trial.outer.per_container_), held_(trial.outer.held_) {}

  internal::FlatBuild* flat_ = nullptr;  // once the outermost container opened it
  bool per_container_;
  std::vector<Held>* held_;  // the outermost build's
  std::vector<Held> own_held_;
};

namespace internal {

// List[element] and Dict[key, value] by index, interned once per thread
// (tsb_type_make_* is a registry lookup).
inline int32_t ListTypeOf(int32_t element) {
  thread_local std::vector<int32_t> cache;
  const size_t at = static_cast<size_t>(element);
  if (at < cache.size() && cache[at] != TSB_TYPE_INVALID) return cache[at];
  int32_t index = TSB_TYPE_INVALID;
  CheckStatus(tsb_type_make_list(element, &index));
  if (at < 4096) {
    if (cache.size() <= at) cache.resize(at + 1, TSB_TYPE_INVALID);
    cache[at] = index;
  }
  return index;
}

inline int32_t DictTypeOf(int32_t key, int32_t value) {
  thread_local int32_t last_key = TSB_TYPE_INVALID, last_value = TSB_TYPE_INVALID,
                       last = TSB_TYPE_INVALID;
  if (key == last_key && value == last_value) return last;
  int32_t index = TSB_TYPE_INVALID;
  CheckStatus(tsb_type_make_dict(key, value, &index));
  last_key = key;
  last_value = value;
  return last = index;
}

// A common type, item by item (CommonType's rule).
class CommonTypeOf {
 public:
  void Add(int32_t type) {
    if (type == TSB_TYPE_UINT) type = TSB_TYPE_INT;
    if (n_++ == 0) {
      type_ = type;
    } else if (type != type_) {
      type_ = TSB_TYPE_ANY;
    }
  }
  int32_t get() const { return n_ == 0 ? TSB_TYPE_ANY : type_; }

 private:
  size_t n_ = 0;
  int32_t type_ = TSB_TYPE_ANY;
};

// Where a builder's items go. Flat (ABI 1.9): after the builder's container
// entry in its BuildContext's FlatBuild, or in one of its own when it is the
// outermost (its root); else handles of its own, n of them.
class Collected {
 public:
  Collected(BuildContext& context, size_t n) {
    if (context.per_container_) {
      own_.resize(n);
      return;
    }
    if (context.flat_ == nullptr) {  // the outermost container: its root
      context_ = &context;
      context.flat_ = &root_.emplace();
    }
    flat_ = context.flat_;
    at_ = flat_->entries().size();
    flat_->entries().push_back(tsb_any_inline(TSB_TYPE_INVALID, 0));
  }
  ~Collected() {
    if (context_ != nullptr) context_->flat_ = nullptr;
  }
  Collected(const Collected&) = delete;
  Collected& operator=(const Collected&) = delete;

  bool flat() const { return flat_ != nullptr; }
  tsb_any* own() { return own_.data(); }
  // Item i made by make(tsb_any*): its value (a container a builder inside
  // placed in the entries is its container entry; the entries own it).
  template <typename Make>
  tsb_any Add(size_t i, Make&& make) {
    if (flat_ == nullptr) {
      make(&own_[i]);
      return own_[i];
    }
    const size_t before = flat_->entries().size();
    tsb_any item = tsb_any_inline(TSB_TYPE_INVALID, 0);
    try {
      make(&item);
    } catch (...) {  // the entries stay one well-formed prefix
      if (item.flags & TSB_FLAG_HANDLE) tsb_any_release(&item);
      flat_->Truncate(before);
      throw;
    }
    if (item.flags == TSB_FLAG_CONTAINER) return item;  // placed by a builder inside
    if (flat_->entries().size() != before) {
      if (item.flags & TSB_FLAG_HANDLE) tsb_any_release(&item);
      flat_->Truncate(before);
      Fail(TSB_ERR_INTERNAL, "a host made a value of a container it had placed");
    }
    flat_->entries().push_back(item);
    return item;
  }

  // Flat: the container entry written (type `type`, the entries since);
  // the root makes the value in *out, a placed one gives its entry.
  void Finish(int32_t type, tsb_any* out) {
    std::vector<tsb_any>& e = flat_->entries();
    e[at_] = tsb_any_inline(type, static_cast<int64_t>(e.size() - at_ - 1));
    e[at_].flags = TSB_FLAG_CONTAINER;
    if (!root_) {
      *out = e[at_];
      return;
    }
    tsb_any made = tsb_any_none();
    CheckStatus(tsb_any_unflatten(type, e.data() + at_, e.size() - at_, &made));
    *out = made;
  }

  // make(items, out) with the n items as whole values, for what needs the
  // values themselves (a Tuple typed by its items, names, mixed keys). Flat:
  // a container among them made by tsb_any_unflatten as `element(i)` (a
  // failure named by segment(i, the items made so far)), the entries given
  // back.
  template <typename ElementOf, typename SegmentOf, typename Make>
  void Whole(size_t n, ElementOf&& element, SegmentOf&& segment, Make&& make, tsb_any* out) {
    if (flat_ == nullptr) return make(own_.data(), out);
    std::vector<tsb_any>& e = flat_->entries();
    OwnedVec items(n);
    size_t pos = at_ + 1;
    for (size_t i = 0; i < n; ++i) {
      const size_t span = flat_->Span(pos);
      if (e[pos].flags == TSB_FLAG_CONTAINER) {
        At([&] { return segment(i, items.data()); }, [&] {
          CheckStatus(tsb_any_unflatten(element(i), e.data() + pos, span, &items[i]));
        });
      } else {
        items[i] = e[pos];  // the reference moves to `items`
        e[pos] = tsb_any_inline(TSB_TYPE_INVALID, 0);
      }
      pos += span;
    }
    flat_->Truncate(at_);
    make(items.data(), out);
  }

 private:
  OwnedVec own_;
  FlatBuild* flat_ = nullptr;
  std::optional<FlatBuild> root_;
  BuildContext* context_ = nullptr;  // the root's, whose buffer it closes
  size_t at_ = 0;
};

}  // namespace internal

// Host → boundary, directed by the type expected (a schema's parameter, a
// container's element type; TSB_TYPE_ANY when unknown). The kit dispatches
// on the expected type's kind; a host value that does not have the shape
// asked for is built by its own type (Host::Untyped) and the callee's
// coercion reports the mismatch with its path. The outermost call makes the
// BuildContext; the host hands it on to every builder and item it makes. A
// Host provides:
//   using In = ...;                  a borrowed host value
//   using Entry, Guard, Type(int32_t) as for Walk;
//   void Leaf(In, int32_t expected, BuildContext&, tsb_any* out);  //
//       // expected a fixed leaf index (int, str, Tensor, ...) or Any: the
//       // host converts; an int above INT64_MAX with tsb_any_uint (the kit
//       // asks for TSB_TYPE_INT where TSB_TYPE_UINT was expected)
//   void Untyped(In, BuildContext&, tsb_any* out);  // by the host value's type
//   bool IsNone(In);
//   // Containers: each returns false when the value is not of that shape
//   // (then Untyped runs); otherwise builds *out, with the kit's
//   // ListBuilder / TupleBuilder / DictBuilder (given the context) doing
//   // the items, each item by kit::Build(host, context, item, type, out).
//   bool List(In, const Entry& type, BuildContext&, tsb_any* out);
//   bool Tuple(In, const Entry& type, BuildContext&, tsb_any* out);
//   bool Dict(In, const Entry& type, BuildContext&, tsb_any* out);
//   bool Enum(In, const Entry& type, tsb_any* out);  // a member's name
//   [[noreturn]] void Mismatch(In, int32_t expected);  // "expected T, got ..."
// A host's code run during a build (a Python __index__) that converts
// another value makes its own outermost build: another context.
template <typename Host>
void Build(Host& host, BuildContext& context, typename Host::In x, int32_t expected,
           tsb_any* out) {
  typename Host::Guard guard;  // a host's Untyped recurses through Build too
  if (expected < TSB_TYPE_FIRST_DYNAMIC) {
    return host.Leaf(x, expected == TSB_TYPE_UINT ? TSB_TYPE_INT : expected, context, out);
  }
  const typename Host::Entry& type = host.Type(expected);
  switch (type.kind) {
    case TSB_KIND_LIST:
      if (host.List(x, type, context, out)) return;
      break;
    case TSB_KIND_DICT:
      if (host.Dict(x, type, context, out)) return;
      break;
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE:
      if (host.Tuple(x, type, context, out)) return;
      break;
    case TSB_KIND_OPTIONAL:
      if (host.IsNone(x)) {
        *out = tsb_any_none();
        return;
      }
      return Build(host, context, x, type.contained[0], out);
    case TSB_KIND_UNION: {
      // The first member the host value converts to, in the Union's order,
      // each trial a whole value.
      for (int32_t member : type.contained) {
        tsb::Value candidate;
        try {
          BuildContext trial(BuildContext::WholeValueOf{context});
          Build(host, trial, x, member, candidate.out());
        } catch (const ConvertError&) {
          continue;
        }
        tsb_status* s = tsb_any_coerce(&candidate.get(), type.index, out);
        if (s == nullptr) return;
        tsb_status_free(s);
      }
      host.Mismatch(x, expected);
    }
    case TSB_KIND_ENUM:
      if (host.Enum(x, type, out)) return;
      break;
    default:
      break;  // objects: by the value; the callee coerces
  }
  host.Untyped(x, context, out);
}

// The outermost build of a host value: a context of its own.
template <typename Host>
void Build(Host& host, typename Host::In x, int32_t expected, tsb_any* out) {
  BuildContext context;
  Build(host, context, x, expected, out);
}

// The items of a List being built: element type known (bulk copies and
// per-item conversion to it) or Any (the items' common type).
class ListBuilder {
 public:
  ListBuilder(BuildContext& context, int32_t element, size_t n)
      : element_(element), n_(n), items_(context, n) {}
  int32_t element() const { return element_; }
  size_t size() const { return n_; }
  // Builds item i with make(tsb_any* out); a failure names "[i]". Items
  // (and a Tuple's and a Dict's entries) are built once each, in order from
  // 0: the one pass appends them as they come.
  template <typename Make>
  void Item(size_t i, Make&& make) {
    At([&] { return IndexSegment(i); }, [&] { common_.Add(items_.Add(i, make).type_index); });
  }
  void Finish(tsb_any* out) {
    const int32_t element = element_ == TSB_TYPE_ANY ? common_.get() : element_;
    if (items_.flat()) return items_.Finish(internal::ListTypeOf(element), out);
    CheckStatus(tsb_list_new(element, items_.own(), n_, out));
  }

 private:
  int32_t element_;
  size_t n_;
  internal::Collected items_;
  internal::CommonTypeOf common_;
};

// The items of a Tuple or NamedTuple being built, of a known type (each
// item converted to its field's type) or untyped (type == nullptr).
template <typename Entry>
class TupleBuilder {
 public:
  TupleBuilder(BuildContext& context, const Entry* type, size_t n)
      : type_(type), n_(n), items_(context, n) {}
  // Whether item i has a type to be built as (an arity mismatch builds the
  // items untyped and leaves the callee's coercion to say so).
  bool typed() const { return type_ != nullptr && type_->contained.size() == n_; }
  int32_t element(size_t i) const { return typed() ? type_->contained[i] : TSB_TYPE_ANY; }
  // The field name of item i when the type is a NamedTuple, else nullptr.
  const char* field(size_t i) const {
    return typed() && type_->kind == TSB_KIND_NAMEDTUPLE ? type_->fields[i] : nullptr;
  }
  size_t size() const { return n_; }
  template <typename Make>
  void Item(size_t i, Make&& make) {
    At([&] { return Segment(i); }, [&] { items_.Add(i, make); });
  }
  // Typed: one tuple of the type, no coercion after; untyped: a Tuple of
  // the items' own types.
  void Finish(tsb_any* out) {
    if (typed()) {
      if (items_.flat()) return items_.Finish(type_->index, out);
      return CheckStatus(tsb_tuple_new_typed(type_->index, items_.own(), n_, out));
    }
    FromWhole(out, [&](const tsb_any* items, tsb_any* made) {
      if (type_ == nullptr) return CheckStatus(tsb_tuple_new(items, n_, made));
      tsb::Value plain;
      CheckStatus(tsb_tuple_new(items, n_, plain.out()));
      CheckStatus(tsb_any_coerce(&plain.get(), type_->index, made));
    });
  }
  // The same for a host record that names its items (a Python namedtuple,
  // an R named tsb_tuple; `fields` holds one name per item): untyped or as
  // a plain Tuple, a NamedTuple of the items' own types named
  // `qualified_name` (nullptr: nameless), since a NamedTuple stands where a
  // Tuple is expected; as a NamedTuple type, what that type says.
  void FinishNamed(const char* qualified_name, const std::vector<const char*>& fields,
                   tsb_any* out) {
    if (type_ != nullptr && (type_->kind != TSB_KIND_TUPLE || !typed())) return Finish(out);
    FromWhole(out, [&](const tsb_any* items, tsb_any* made) {
      if (type_ == nullptr) {
        return CheckStatus(tsb_tuple_new_named(qualified_name, fields.data(), items, n_, made));
      }
      tsb::Value named;
      CheckStatus(tsb_tuple_new_named(qualified_name, fields.data(), items, n_, named.out()));
      CheckStatus(tsb_any_coerce(&named.get(), type_->index, made));
    });
  }

 private:
  std::string Segment(size_t i) const { return field(i) ? FieldSegment(field(i)) : IndexSegment(i); }
  // make(items, out) with the items as whole values.
  template <typename Make>
  void FromWhole(tsb_any* out, Make&& make) {
    items_.Whole(
        n_, [&](size_t i) { return element(i); },
        [&](size_t i, const tsb_any*) { return Segment(i); }, make, out);
  }

  const Entry* type_;
  size_t n_;
  internal::Collected items_;
};

// The entries of a Dict being built; key and value types known or Any.
class DictBuilder {
 public:
  DictBuilder(BuildContext& context, int32_t key_type, int32_t value_type, size_t n)
      : key_type_(key_type), value_type_(value_type), n_(n), items_(context, 2 * n) {}
  int32_t key_type() const { return key_type_; }
  int32_t value_type() const { return value_type_; }
  size_t size() const { return n_; }
  // Entry i: make_key(tsb_any*), then make_value(tsb_any*); a failure
  // names the key by segment() (made only then).
  template <typename Segment, typename MakeKey, typename MakeValue>
  void Entry(size_t i, Segment&& segment, MakeKey&& make_key, MakeValue&& make_value) {
    At(segment, [&] {
      keys_.Add(items_.Add(2 * i, make_key).type_index);
      values_.Add(items_.Add(2 * i + 1, make_value).type_index);
    });
  }
  // The same with the paths a walk gives (DictItems): "[i] (a key)" while
  // the key is made, then the key made (KeySegmentOf) while the value is.
  template <typename MakeKey, typename MakeValue>
  void Entry(size_t i, MakeKey&& make_key, MakeValue&& make_value) {
    const tsb_any key = At([&] { return IndexSegment(i) + " (a key)"; },
                           [&] { return items_.Add(2 * i, make_key); });
    keys_.Add(key.type_index);
    At([&] { return KeySegmentOf(key); },
       [&] { values_.Add(items_.Add(2 * i + 1, make_value).type_index); });
  }
  // Keys of no one type (Any) go through tsb_dict_new, which names the one
  // that differs.
  void Finish(tsb_any* out) {
    const int32_t k = key_type_ == TSB_TYPE_ANY ? keys_.get() : key_type_;
    const int32_t v = value_type_ == TSB_TYPE_ANY ? values_.get() : value_type_;
    auto make = [&](const tsb_any* items, tsb_any* made) {
      tsb_any* keys = Scratch<tsb_any>(2 * n_);  // borrowed from the items
      tsb_any* values = keys + n_;
      for (size_t i = 0; i < n_; ++i) {
        keys[i] = items[2 * i];
        values[i] = items[2 * i + 1];
      }
      CheckStatus(tsb_dict_new(k, v, keys, values, n_, made));
    };
    if (items_.flat() && k != TSB_TYPE_ANY) {
      return items_.Finish(internal::DictTypeOf(k, v), out);
    }
    items_.Whole(  // a value named by its key (made before it), a key by its place
        2 * n_, [&](size_t i) { return i % 2 == 0 ? k : v; },
        [&](size_t i, const tsb_any* made) {
          return i % 2 == 0 ? IndexSegment(i / 2) + " (a key)" : KeySegmentOf(made[i - 1]);
        },
        make, out);
  }

 private:
  int32_t key_type_, value_type_;
  size_t n_;
  internal::Collected items_;
  internal::CommonTypeOf keys_, values_;
};

}  // namespace tsb::kit

#endif  // TSBRIDGE_HOST_KIT_BUILD_HPP_
