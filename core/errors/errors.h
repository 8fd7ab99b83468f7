// Error helpers used inside the core: absl::Status with a path into the value.
//
// The path is built on the way out of a failed conversion: each level that
// recurses prepends its own segment ("[2]", "key \"b\"", "field 'x'"), so the
// success path never formats a string.
#ifndef TSBRIDGE_CORE_ERRORS_ERRORS_H_
#define TSBRIDGE_CORE_ERRORS_ERRORS_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"

namespace tsb {

// A value does not match the type it was expected to have.
absl::Status TypeError(absl::string_view message);
bool IsTypeError(const absl::Status& status);

// Prepends one path segment to a failed status (no-op on OK).
absl::Status WithPath(absl::Status status, absl::string_view segment);
// The " → "-joined path of a status, "" when it has none.
std::string PathOf(const absl::Status& status);

// Path segments, spelled the same everywhere.
std::string IndexSegment(size_t i);             // [3]
std::string KeySegment(absl::string_view repr);  // key "b" / key 3

}  // namespace tsb

// Early-return helpers (Abseil keeps its own internal).
#define TSB_RETURN_IF_ERROR(expr)                 \
  do {                                            \
    absl::Status tsb_status_ = (expr);            \
    if (!tsb_status_.ok()) return tsb_status_;    \
  } while (0)

#define TSB_CONCAT_INNER_(a, b) a##b
#define TSB_CONCAT_(a, b) TSB_CONCAT_INNER_(a, b)
#define TSB_ASSIGN_OR_RETURN(lhs, expr) \
  TSB_ASSIGN_OR_RETURN_IMPL_(TSB_CONCAT_(tsb_statusor_, __LINE__), lhs, expr)
#define TSB_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return std::move(tmp).status();   \
  lhs = std::move(tmp).value()

#endif  // TSBRIDGE_CORE_ERRORS_ERRORS_H_
