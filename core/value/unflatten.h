// A whole value from its entries in one boundary call (tsb_any_unflatten,
// tsbridge.h): the inverse of the flattening, so that a host builds a dict
// of lists or a record with no handle per container.
#ifndef TSBRIDGE_CORE_VALUE_UNFLATTEN_H_
#define TSBRIDGE_CORE_VALUE_UNFLATTEN_H_

#include <cstddef>

#include "absl/status/status.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb {

// Builds entries[0..n) (tsb_any_flatten's pre-order form; every entry
// borrowed) as a value of `type` into *out, a new reference. The result is
// what building each container with the tsb_*_new builders and coercing
// the whole to `type` gives; errors carry the item's path.
absl::Status UnflattenValue(const TypeInfo& type, const tsb_any* entries, size_t n,
                            tsb_any* out);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_UNFLATTEN_H_
