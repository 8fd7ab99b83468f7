#include "core/value/flatten.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "core/types/type_registry.h"
#include "core/value/containers.h"
#include "core/value/convert.h"
#include "core/value/nesting.h"
#include "core/object/object.h"
#include "tsbridge/plugin/errors.hpp"

namespace tsb {
namespace {

// The entries written so far. Past the capacity it only counts; on
// overflow or failure it releases what it wrote and puts back what the
// caller's buffer held before (the header promises nothing is written then).
class FlatWriter {
 public:
  FlatWriter(tsb_any* out, size_t capacity, bool borrow_tensors)
      : out_(out), capacity_(capacity), borrow_tensors_(borrow_tensors) {}
  bool borrow_tensors() const { return borrow_tensors_; }
  ~FlatWriter() {
    if (keep_) return;
    const size_t n = size_ < capacity_ ? size_ : capacity_;
    for (size_t i = 0; i < n; ++i) Release(out_[i]);
    std::copy(saved_.begin(), saved_.end(), out_);
  }
  size_t size() const { return size_; }
  bool fits() const { return size_ <= capacity_; }
  // Past the end: entries are only counted (no reference taken to release).
  bool full() const { return size_ >= capacity_; }
  void Skip() { Put(tsb_any_none()); }
  // Takes the reference `v` holds.
  void Put(tsb_any v) {
    if (size_ < capacity_) {
      Save();
      out_[size_] = v;
    } else {
      Release(v);
    }
    ++size_;
  }
  // The next entry, encoded by `encode(tsb_any*)` in place: not copied
  // from a temporary (a 16-byte load of what the encoder just stored field
  // by field stalls the store forwarding, a few ns per entry).
  template <typename Encoder>
  absl::Status Encode(Encoder&& encode) {
    if (full()) {
      Skip();
      return absl::OkStatus();
    }
    Save();
    TSB_RETURN_IF_ERROR(encode(&out_[size_]));  // on failure nothing is kept
    ++size_;
    return absl::OkStatus();
  }
  // A container's entry; its count is set once its items are written.
  size_t Open(int32_t type_index) {
    if (full()) {
      Skip();
    } else {
      Save();
      tsb_any& e = out_[size_++];
      e.type_index = type_index;
      e.flags = TSB_FLAG_CONTAINER;
      e.u.i = 0;
    }
    return size_ - 1;
  }
  void Close(size_t at) {
    if (at < capacity_ && fits()) out_[at].u.i = static_cast<int64_t>(size_ - at - 1);
  }
  void Keep() { keep_ = fits(); }

 private:
  // out_[size_] as the caller left it, before it is written.
  void Save() { saved_.push_back(out_[size_]); }
  tsb_any* out_;
  size_t capacity_;
  bool borrow_tensors_;
  size_t size_ = 0;
  bool keep_ = false;
  absl::InlinedVector<tsb_any, 64> saved_;
};

// Whether `type` is abstract (Optional, Union, Any, Number): the fixed leaf
// types are not, known from the index alone, with no load of their codec
// (another cache line) and no virtual call, once per item.
bool IsAbstract(const TypeInfo& type) {
  if (type.index < TSB_TYPE_FIRST_DYNAMIC && type.index != TSB_TYPE_ANY &&
      type.index != TSB_TYPE_NUMBER) {
    return false;
  }
  return type.codec->is_abstract();
}

absl::Status Flatten(const c10::IValue& value, const TypeInfo& static_type, FlatWriter& w,
                     int depth) {
  const bool abstract = IsAbstract(static_type);
  if (value.isString() && (static_type.index == TSB_TYPE_STR || abstract)) {
    const std::string& s = value.toStringRef();
    if (std::memchr(s.data(), '\0', s.size()) == nullptr) {  // else a handle below
      w.Put(tsb_any_borrowed_str(s.c_str()));
      return absl::OkStatus();
    }
  }
  if (w.borrow_tensors() && value.isTensor() &&
      (static_type.index == TSB_TYPE_TENSOR || abstract)) {
    w.Put(BorrowTensor(value.toTensor()));  // the tensor `value` holds: no reference
    return absl::OkStatus();
  }
  if (!abstract) {  // an int, float, bool or None of its own fixed type: inline, no codec
    const int32_t index = static_type.index;
    if (index == TSB_TYPE_INT && value.isInt()) return w.Put(tsb_any_int(value.toInt())), absl::OkStatus();
    if (index == TSB_TYPE_FLOAT && value.isDouble()) {
      return w.Put(tsb_any_float(value.toDouble())), absl::OkStatus();
    }
    if (index == TSB_TYPE_BOOL && value.isBool()) return w.Put(tsb_any_bool(value.toBool())), absl::OkStatus();
    if (index == TSB_TYPE_NONE && value.isNone()) return w.Put(tsb_any_none()), absl::OkStatus();
  }
  const TypeInfo* type = &static_type;
  if (abstract) {
    if (LeafTypeIndex(value) != TSB_TYPE_INVALID) {  // a leaf crosses as its own type
      return w.Encode([&](tsb_any* out) { return ToBoundary(value, out); });
    }
    TSB_ASSIGN_OR_RETURN(type, TypeOfValue(value));
  }
  Elements elements;  // a List's, or a Tuple's of its type's arity
  const bool sequence = ElementsOf(value, *type, &elements);
  const bool dict = type->kind == TSB_KIND_DICT && value.isGenericDict();
  if (!sequence && !dict) {  // a leaf, or a kind a plugin's codec serves
    return w.Encode([&](tsb_any* out) { return ToBoundary(value, *type, out); });
  }
  if (depth >= kMaxValueDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a value nested at most ", kMaxValueDepth,
        " containers deep, found a deeper one (or one that contains itself)"));
  }
  const size_t at = w.Open(type->index);
  if (sequence) {
    for (size_t i = 0; i < elements.values.size(); ++i) {
      absl::Status s = Flatten(elements.values[i], elements.TypeOf(*type, i), w, depth + 1);
      if (!s.ok()) return WithPath(std::move(s), IndexSegment(i));
    }
  } else {
    const TypeInfo& key_type = ContainedType(*type, 0);
    const TypeInfo& value_type = ContainedType(*type, 1);
    for (const auto& entry : value.toGenericDict()) {
      TSB_RETURN_IF_ERROR(Flatten(entry.key(), key_type, w, depth + 1));
      absl::Status s = Flatten(entry.value(), value_type, w, depth + 1);
      if (!s.ok()) return WithPath(std::move(s), KeySegmentOf(entry.key()));
    }
  }
  w.Close(at);
  return absl::OkStatus();
}

}  // namespace

absl::Status FlattenValue(const c10::IValue& value, const TypeInfo& type, tsb_any* out,
                          size_t capacity, size_t* needed, bool borrow_tensors) {
  FlatWriter w(out, capacity, borrow_tensors);
  TSB_RETURN_IF_ERROR(Flatten(value, type, w, 0));
  *needed = w.size();
  w.Keep();
  return absl::OkStatus();
}

}  // namespace tsb
