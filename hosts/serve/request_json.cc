#include "hosts/serve/request_json.h"

#include <cstdint>
#include <string>

#ifdef TSB_SERVE_SIMDJSON
#include <simdjson.h>
#endif

namespace tsb::serve {
namespace {

#ifdef TSB_SERVE_SIMDJSON
// A simdjson parser holds buffers of about 15 times the largest text it
// parsed. Each connection thread keeps one for texts up to 64 KiB (at most
// about 1 MiB a thread, with 70 threads by default); a larger text, up to
// 1 MiB, gets a parser of its own, freed after it (requests over 64 KiB
// are parsed by their worker: at most --workers at once, service.h);
// larger still (rare: tensors that large come as binary data) goes to
// nlohmann.
constexpr size_t kMaxSimdjsonBytes = size_t{1} << 20;

// `element` as nlohmann's document; false where nlohmann should decide (a
// kind simdjson 4 may add, its big integers).
bool Convert(simdjson::dom::element element, Json& out) {
  using simdjson::dom::element_type;
  switch (element.type()) {
    case element_type::OBJECT: {
      simdjson::dom::object object;
      if (element.get(object) != simdjson::SUCCESS) return false;
      out = Json::object();
      out.get_ref<Json::object_t&>().reserve(object.size());
      // A key given twice: the last value at the first one's place, as nlohmann.
      for (simdjson::dom::key_value_pair field : object) {
        if (!Convert(field.value, out[std::string(field.key)])) return false;
      }
      return true;
    }
    case element_type::ARRAY: {
      simdjson::dom::array array;
      if (element.get(array) != simdjson::SUCCESS) return false;
      out = Json::array();
      Json::array_t& items = out.get_ref<Json::array_t&>();
      items.reserve(array.size());
      for (simdjson::dom::element item : array) {
        if (!Convert(item, items.emplace_back())) return false;
      }
      return true;
    }
    case element_type::INT64: {
      int64_t n = 0;
      if (element.get(n) != simdjson::SUCCESS) return false;
      // nlohmann keeps an integer without a sign as unsigned.
      if (n >= 0) {
        out = static_cast<uint64_t>(n);
      } else {
        out = n;
      }
      return true;
    }
    case element_type::UINT64: {
      uint64_t n = 0;
      if (element.get(n) != simdjson::SUCCESS) return false;
      out = n;
      return true;
    }
    case element_type::DOUBLE: {
      double x = 0;
      if (element.get(x) != simdjson::SUCCESS) return false;
      out = x;
      return true;
    }
    case element_type::STRING: {
      std::string_view s;
      if (element.get(s) != simdjson::SUCCESS) return false;
      out = std::string(s);
      return true;
    }
    case element_type::BOOL: {
      bool b = false;
      if (element.get(b) != simdjson::SUCCESS) return false;
      out = b;
      return true;
    }
    case element_type::NULL_VALUE:
      out = nullptr;
      return true;
    default:
      return false;
  }
}

// `text` as nlohmann's document by `parser`; false where nlohmann decides.
bool ParseWith(simdjson::dom::parser& parser, std::string_view text, Json& out) {
  simdjson::dom::element root;
  return parser.parse(text.data(), text.size()).get(root) == simdjson::SUCCESS &&
         Convert(root, out);
}
#endif

}  // namespace

Json ParseRequestJson(std::string_view text) {
#ifdef TSB_SERVE_SIMDJSON
  Json out;
  if (text.size() <= kThreadParserBytes) {
    thread_local simdjson::dom::parser parser(kThreadParserBytes);  // reused request to request
    if (ParseWith(parser, text, out)) return out;
  } else if (text.size() <= kMaxSimdjsonBytes) {
    simdjson::dom::parser parser(kMaxSimdjsonBytes);
    if (ParseWith(parser, text, out)) return out;
  }
#endif
  return Json::parse(text.begin(), text.end());
}

bool RequestJsonUsesSimdjson() {
#ifdef TSB_SERVE_SIMDJSON
  return true;
#else
  return false;
#endif
}

}  // namespace tsb::serve
