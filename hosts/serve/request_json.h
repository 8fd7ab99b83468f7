// A request's JSON text as the document every reader of a request in tsb
// serve walks (nlohmann's), parsed by simdjson where the build has it: with
// nlohmann's own parser the parse was a third of a Dict[str, Tensor]
// request's instructions (docs/serve.md, "Benchmarks"). nlohmann stays the
// definition: text simdjson refuses, or does not read as nlohmann would, is
// parsed again by nlohmann, whose answer stands: its error, with line and
// column, for text that is not JSON; its document for what it reads and
// simdjson does not (integers past 64 bits, which it reads as floats; a
// byte order mark; documents nested deeper than simdjson's 1024 levels).
#ifndef TSBRIDGE_HOSTS_SERVE_REQUEST_JSON_H_
#define TSBRIDGE_HOSTS_SERVE_REQUEST_JSON_H_

#include <cstddef>
#include <string_view>

#include "hosts/serve/repository.h"

namespace tsb::serve {

// Texts up to this size are parsed by the calling thread's own simdjson
// parser, kept from request to request (request_json.cc).
inline constexpr size_t kThreadParserBytes = size_t{64} << 10;

// The document of `text`, equal to nlohmann's parse of it; nlohmann's
// exception where it is not JSON (parse_error; out_of_range for 1e400).
Json ParseRequestJson(std::string_view text);

// Whether ParseRequestJson uses simdjson, for the test that compares the two.
bool RequestJsonUsesSimdjson();

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_REQUEST_JSON_H_
