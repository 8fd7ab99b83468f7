// The result of a call, written out: JSON on standard output (whole, or with
// large tensors summarised), or a file torch.load reads.
#ifndef TSBRIDGE_APPS_TSB_OUTPUTS_H_
#define TSBRIDGE_APPS_TSB_OUTPUTS_H_

#include <nlohmann/json.hpp>

#include <string>

#include "hosts/cli/inputs.h"

namespace tsb::cli {

// Tensors with more elements than this are summarised by --summary.
inline constexpr size_t kSummaryMaxElements = 16;

// The JSON text form (docs/json.md) of `value` as a json tree.
Json ResultJson(const tsb_any& value);
// `json` with every tensor of more than kSummaryMaxElements elements
// replaced by {"dtype", "shape", "min", "max", "mean"}.
Json Summarize(const Json& json);
// Writes `value` as torch.save does (torch.load reads it back).
void SaveResult(const tsb_any& value, const std::string& path);

}  // namespace tsb::cli

#endif  // TSBRIDGE_APPS_TSB_OUTPUTS_H_
