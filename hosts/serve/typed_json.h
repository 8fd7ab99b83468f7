// tsbridge's typed JSON (docs/json.md) between the request's parsed JSON and
// values, without text in between where the value is of the common kinds:
// Tensor (the {"dtype", "shape", "data"} object of a dtype the protocol
// names), int, float, bool, str, List, Dict[str, V], Tuple, Optional.
// Anything else, and anything wrong, goes through tsb_json_read and
// tsb_json_write as text: they are the definition, their errors and their
// paths are what a client sees, and the direct route only saves their text
// where it would give the same value (docs/serve.md, "The extension").
#ifndef TSBRIDGE_HOSTS_SERVE_TYPED_JSON_H_
#define TSBRIDGE_HOSTS_SERVE_TYPED_JSON_H_

#include "hosts/serve/repository.h"

namespace tsb::serve {

// The value of `type` tsb_json_read reads from `json`'s text; its
// kit::ConvertError where the text is wrong.
void ReadTypedJson(const Json& json, int32_t type, tsb_any* out);
// The typed JSON tsb_json_write writes of `value`, parsed; a 500 where it
// cannot.
Json WriteTypedJson(const tsb_any& value);

// The direct routes alone, for the test that holds them to the text ones:
// false (and nothing made) where they leave the value to the text.
bool ReadTypedJsonDirect(const Json& json, int32_t type, tsb_any* out);
bool WriteTypedJsonDirect(const tsb_any& value, Json& out);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_TYPED_JSON_H_
