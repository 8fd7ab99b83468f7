// tsbridge's typed JSON (docs/json.md) in tsb serve. In: from the request's
// parsed JSON to a value, without text in between where the value is of the
// common kinds: Tensor (the {"dtype", "shape", "data"} object of a dtype the
// protocol names), int, float, bool, str, List, Dict[str, V], Tuple,
// Optional; anything else, and anything wrong, goes through tsb_json_read as
// text: it is the definition, its errors and paths are what a client sees,
// and the direct route only saves its text where it would give the same
// value. Out: text written as the value is walked, of the same kinds, where
// it is what tsb_json_write would write; else tsb_json_write's text. The
// response carries the text as it is (docs/serve.md, "The extension").
#ifndef TSBRIDGE_HOSTS_SERVE_TYPED_JSON_H_
#define TSBRIDGE_HOSTS_SERVE_TYPED_JSON_H_

#include <string>

#include "hosts/serve/repository.h"

namespace tsb::serve {

// The value of `type` tsb_json_read reads from `json`'s text; its
// kit::ConvertError where the text is wrong.
void ReadTypedJson(const Json& json, int32_t type, tsb_any* out);
// The typed JSON text tsb_json_write writes of `value`; a 500 where it
// cannot.
std::string WriteTypedJson(const tsb_any& value);

// The direct routes alone, for the test that holds them to the text ones:
// false (and nothing made) where they leave the value to the text.
bool ReadTypedJsonDirect(const Json& json, int32_t type, tsb_any* out);
bool WriteTypedJsonDirect(const tsb_any& value, std::string& out);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_TYPED_JSON_H_
