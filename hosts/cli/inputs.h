// The arguments of a call, read from the command line: JSON given inline,
// in a file (@FILE) or on standard input (-), where an object
// {"file": "x.pt"} stands for a value torch.save wrote and
// {"image": "photo.jpg"} for an image decoded by torchvision's image
// operators (docs/cli.md). Built through the C ABI only.
#ifndef TSBRIDGE_APPS_TSB_INPUTS_H_
#define TSBRIDGE_APPS_TSB_INPUTS_H_

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "hosts/cli/host.h"
#include "tsbridge/host/call_plan.hpp"

namespace tsb::cli {

// Objects keep their order: a Dict keeps its insertion order.
using Json = nlohmann::ordered_json;

// The text an --args/--kwargs option stands for: "@PATH" is the file's
// contents, "-" standard input, anything else the text itself.
std::string ReadOptionText(const std::string& value, const std::string& option);
// Parses JSON text; a usage error (exit 2) naming `what` if it is not JSON.
Json ParseJson(const std::string& text, const std::string& what);

// Reads `args` (a JSON array) and `kwargs` (a JSON object) for a callee,
// each by the type its call plan gives (tsbridge/host/call_plan.hpp; Any
// where an operator's overloads disagree, and tsbridge chooses the
// overload); a failure names the argument in the one path syntax. The
// keyword names are kwargs' own keys: it outlives the call.
void ReadArguments(const kit::CallPlan& plan, const Json& args, const Json& kwargs,
                   kit::CallArguments& call);

}  // namespace tsb::cli

#endif  // TSBRIDGE_APPS_TSB_INPUTS_H_
