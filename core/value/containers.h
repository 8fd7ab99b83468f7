// Lists, Tuples and Dicts at the boundary: reading their items out and
// building new ones from host values (tsb_list_*, tsb_tuple_*, tsb_dict_*;
// core/abi/container_abi.cc checks the arguments and calls these).
// Items and entries are written as new references; nothing leaks on failure.
#ifndef TSBRIDGE_CORE_VALUE_CONTAINERS_H_
#define TSBRIDGE_CORE_VALUE_CONTAINERS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/types/type_registry.h"  // ContainedType
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb {

// ------------------------------------------------------------ reading

// The elements of a List, or of a Tuple or NamedTuple whose arity is its
// type's, with the type each one has there: kinds whose items are their
// elements under the contained types, so a reader (an accessor, the
// flattening) walks them with no virtual Item per element. False
// otherwise (then the codec serves).
struct Elements {
  c10::ArrayRef<c10::IValue> values;
  const TypeInfo* list_element = nullptr;  // a List's; else per field

  const TypeInfo& TypeOf(const TypeInfo& container, size_t i) const {
    return list_element != nullptr ? *list_element : ContainedType(container, i);
  }
};
bool ElementsOf(const c10::IValue& value, const TypeInfo& type, Elements* out);


// The number of items of a container `value` of type `type`.
absl::StatusOr<size_t> ContainerLength(const c10::IValue& value, const TypeInfo& type);
// Its first `n` items (n is its length; `out` holds n).
absl::Status ContainerItems(const c10::IValue& value, const TypeInfo& type, size_t n,
                            tsb_any* out);

// Entry `i` of a Dict (OUT_OF_RANGE past its end).
absl::Status DictItem(const c10::IValue& dict, const TypeInfo& type, size_t i, tsb_any* key,
                      tsb_any* value);
// Its first `n` entries (n is at most its size; `keys` and `values` hold n).
absl::Status DictItems(const c10::IValue& dict, const TypeInfo& type, size_t n,
                       tsb_any* keys, tsb_any* values);
// The value under `key`, coerced to the key type first (NOT_FOUND when absent).
absl::Status DictLookup(const c10::IValue& dict, const TypeInfo& type, const c10::IValue& key,
                        tsb_any* out);

// ------------------------------------------------------------ building

// A host's borrowed str as a str value, read in place with no lookup: what
// builders take most for a Dict's keys (inline: their hot loops skip the
// StatusOr of ItemAs). False for any other entry.
inline bool BorrowedStrValue(const tsb_any& item, c10::IValue* out) {
  if (item.flags != TSB_FLAG_BORROWED_STR || item.type_index != TSB_TYPE_STR ||
      item.u.borrowed_str == nullptr) {
    return false;
  }
  *out = c10::IValue(std::string(item.u.borrowed_str));
  return true;
}

// A builder's item as `element` wants it: shared when it already has that
// type, or crosses as itself under an abstract one (a Tensor for
// Optional[Tensor], anything for Any); else converted by the element's codec.
absl::StatusOr<c10::IValue> ItemAs(const tsb_any& item, const TypeInfo& element);
// Each is typed from the type indices the host names or the items carry,
// never inferred from values. `items`, `keys` and `values` hold n.

// List[int], List[float], List[bool] from a host buffer.
absl::Status NewList(const int64_t* data, size_t n, tsb_any* out);
absl::Status NewList(const double* data, size_t n, tsb_any* out);
absl::Status NewList(const bool* data, size_t n, tsb_any* out);
// List[element_type] of `items`.
absl::Status NewList(int32_t element_type, const tsb_any* items, size_t n, tsb_any* out);
// The Tuple of the items' own types.
absl::Status NewTuple(const tsb_any* items, size_t n, tsb_any* out);
// A NamedTuple of the items' own types, its fields named `field_names` (n of
// them), named `qualified_name` (nullptr: nameless).
absl::Status NewNamedTuple(const char* qualified_name, const char* const* field_names,
                           const tsb_any* items, size_t n, tsb_any* out);
// A Tuple or NamedTuple of type `tuple_type`.
absl::Status NewTypedTuple(int32_t tuple_type, const tsb_any* items, size_t n, tsb_any* out);
// Dict[key_type, value_type] of the entries keys[i]: values[i].
absl::Status NewDict(int32_t key_type, int32_t value_type, const tsb_any* keys,
                     const tsb_any* values, size_t n, tsb_any* out);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_CONTAINERS_H_
