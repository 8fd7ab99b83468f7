#include "core/value/unflatten.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/types/type_registry.h"
#include "core/value/containers.h"
#include "core/value/convert.h"
#include "core/value/nesting.h"
#include "core/object/object.h"

namespace tsb {
namespace {

// Reads entries in pre-order, each container built straight as the type
// its place has: one pass, no handle per container.
class Reader {
 public:
  Reader(const tsb_any* entries, size_t n) : entries_(entries), n_(n) {}
  size_t pos() const { return pos_; }

  // The value at pos_ as `slot` wants it; pos_ moves past its entries.
  absl::StatusOr<c10::IValue> Value(const TypeInfo& slot, int depth) {
    if (pos_ >= n_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected an entry at entries[", pos_, "], found the end (n is ", n_, ")"));
    }
    const tsb_any& e = entries_[pos_];
    if (e.flags != TSB_FLAG_CONTAINER) {  // a leaf: as a builder takes an item
      ++pos_;
      TSB_ASSIGN_OR_RETURN(c10::IValue item, ItemAs(e, slot));
      if (IsHandle(e)) TSB_RETURN_IF_ERROR(CheckDepth(item, kMaxValueDepth - 1 - depth));
      return item;
    }
    if (depth >= kMaxValueDepth - 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a value nested at most ", kMaxValueDepth,
          " containers deep, found a deeper one at entries[", pos_, "]"));
    }
    const size_t at = pos_;
    if (e.u.i < 0 || static_cast<uint64_t>(e.u.i) > n_ - at - 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a container entry whose ", e.u.i, " entries fit in n (", n_,
          "), found one at entries[", at, "] that does not"));
    }
    TSB_ASSIGN_OR_RETURN(const TypeInfo* own, FindType(e.type_index));
    const size_t end = at + 1 + static_cast<size_t>(e.u.i);
    ++pos_;
    absl::StatusOr<c10::IValue> built = Container(slot, *own, end, depth);
    if (built.ok() && pos_ != end) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected the items of the container at entries[", at, "] to end at entries[", end,
          "], found them ending at entries[", pos_, "]"));
    }
    return built;
  }

 private:
  // The items of a container entry of type `own`, up to `end`, as `slot`.
  absl::StatusOr<c10::IValue> Container(const TypeInfo& slot, const TypeInfo& own, size_t end,
                                        int depth) {
    // Straight into the slot's type where the entry is of its kind (a
    // record only as itself or from a plain Tuple: another record is never
    // converted by position); else as its own type, then coerced as
    // tsb_any_coerce would (a List[Any] into a Tuple, an abstract slot).
    const bool same_kind =
        (slot.kind == TSB_KIND_LIST && own.kind == TSB_KIND_LIST) ||
        (slot.kind == TSB_KIND_DICT && own.kind == TSB_KIND_DICT) ||
        ((slot.kind == TSB_KIND_TUPLE || slot.kind == TSB_KIND_NAMEDTUPLE) &&
         (own.kind == TSB_KIND_TUPLE || &own == &slot));
    if (own.kind != TSB_KIND_LIST && own.kind != TSB_KIND_DICT && own.kind != TSB_KIND_TUPLE &&
        own.kind != TSB_KIND_NAMEDTUPLE) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a List, Tuple, NamedTuple or Dict type on a container entry, got ",
          own.annotation));
    }
    if (!same_kind) {
      TSB_ASSIGN_OR_RETURN(c10::IValue value, Container(own, own, end, depth));
      if (&own == &slot || slot.kind == TSB_KIND_ANY) return value;
      return CoerceTo(value, slot);
    }
    switch (slot.kind) {
      case TSB_KIND_LIST: return List(slot, end, depth);
      case TSB_KIND_DICT: return Dict(slot, end, depth);
      default: return Tuple(slot, end, depth);
    }
  }

  absl::StatusOr<c10::IValue> List(const TypeInfo& type, size_t end, int depth) {
    const TypeInfo& element = ContainedType(type, 0);
    c10::impl::GenericList list(element.type);
    list.reserve(end - pos_);
    for (size_t i = 0; pos_ < end; ++i) {
      absl::StatusOr<c10::IValue> item = Value(element, depth + 1);
      if (!item.ok()) return WithPath(item.status(), IndexSegment(i));
      list.push_back(*std::move(item));
    }
    return c10::IValue(std::move(list));
  }

  absl::StatusOr<c10::IValue> Tuple(const TypeInfo& type, size_t end, int depth) {
    size_t found = 0;  // the arity first, as tsb_tuple_new_typed checks it
    for (size_t p = pos_; p < end; p += Span(p)) ++found;
    if (found != type.contained.size()) {
      return TypeError(absl::StrCat("expected ", type.contained.size(), " items for ",
                                    type.annotation, ", got ", found));
    }
    std::vector<c10::IValue> elements;
    elements.reserve(found);
    for (size_t i = 0; i < found; ++i) {
      absl::StatusOr<c10::IValue> item = Value(ContainedType(type, i), depth + 1);
      if (!item.ok()) {
        return WithPath(item.status(), type.kind == TSB_KIND_NAMEDTUPLE
                                           ? FieldSegment(type.field_names[i])
                                           : IndexSegment(i));
      }
      elements.push_back(*std::move(item));
    }
    return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(elements), type.type));
  }

  absl::StatusOr<c10::IValue> Dict(const TypeInfo& type, size_t end, int depth) {
    const TypeInfo& key_type = ContainedType(type, 0);
    const TypeInfo& value_type = ContainedType(type, 1);
    c10::impl::GenericDict dict(key_type.type, value_type.type);
    dict.reserve((end - pos_) / 2);
    for (size_t i = 0; pos_ < end; ++i) {
      const size_t at = pos_;
      absl::StatusOr<c10::IValue> key;
      c10::IValue borrowed;
      if (key_type.index == TSB_TYPE_STR && BorrowedStrValue(entries_[at], &borrowed)) {
        key = std::move(borrowed);  // a host's str key: no lookup
        ++pos_;
      } else {
        key = Value(key_type, depth + 1);
        if (!key.ok()) return WithPath(key.status(), KeyPlace(at, i));
      }
      if (pos_ >= end) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected a value after the key ", KeySegmentOf(*key), ", found the dict's end"));
      }
      absl::StatusOr<c10::IValue> value = Value(value_type, depth + 1);
      if (!value.ok()) return WithPath(value.status(), KeySegmentOf(*key));
      dict.insert_or_assign(*std::move(key), *std::move(value));
    }
    return c10::IValue(std::move(dict));
  }

  // Where a key that did not convert is: by its own value, as tsb_dict_new
  // names it (key 1 where str keys are expected), else by its place.
  std::string KeyPlace(size_t at, size_t i) const {
    BorrowedValue key;
    if (entries_[at].flags != TSB_FLAG_CONTAINER && Borrow(entries_[at], &key).ok()) {
      return KeySegmentOf(*key.value);
    }
    return IndexSegment(i) + " (a key)";
  }

  // The entries the value at `at` spans (itself and what belongs to it).
  size_t Span(size_t at) const {
    const tsb_any& e = entries_[at];
    return e.flags == TSB_FLAG_CONTAINER && e.u.i > 0 ? 1 + static_cast<size_t>(e.u.i) : 1;
  }

  const tsb_any* entries_;
  size_t n_;
  size_t pos_ = 0;
};

}  // namespace

absl::Status UnflattenValue(const TypeInfo& type, const tsb_any* entries, size_t n,
                            tsb_any* out) {
  Reader reader(entries, n);
  TSB_ASSIGN_OR_RETURN(c10::IValue value, reader.Value(type, 0));
  if (reader.pos() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected entries[0..", n, ") to be one value, found it ending at entries[",
        reader.pos(), "]"));
  }
  return ToBoundary(std::move(value), type, out);
}

}  // namespace tsb
