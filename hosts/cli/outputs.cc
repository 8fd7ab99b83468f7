#include "hosts/cli/outputs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

namespace tsb::cli {
namespace {

bool IsTensor(const Json& json) {
  return json.is_object() && json.contains("dtype") && json.contains("shape") &&
         json.contains("data") && json["data"].is_array();
}

Json SummarizeTensor(const Json& tensor) {
  const Json& data = tensor["data"];
  Json summary = {{"dtype", tensor["dtype"]}, {"shape", tensor["shape"]}};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  size_t n = 0;
  for (const auto& x : data) {
    double v;
    if (x.is_number()) {
      v = x.get<double>();
    } else if (x.is_boolean()) {
      v = x.get<bool>() ? 1 : 0;
    } else {
      continue;  // complex ([re, im]) and non-finite spellings: not summarised
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    ++n;
  }
  if (n > 0) {
    summary["min"] = lo;
    summary["max"] = hi;
    summary["mean"] = sum / static_cast<double>(n);
  }
  return summary;
}

}  // namespace

Json ResultJson(const tsb_any& value) {
  return ParseJson(ToJson(value), "the result's JSON");  // written by nlohmann: valid
}

Json Summarize(const Json& json) {
  if (IsTensor(json)) {
    return json["data"].size() > kSummaryMaxElements ? SummarizeTensor(json) : json;
  }
  if (json.is_array()) {
    Json out = Json::array();
    for (const auto& item : json) out.push_back(Summarize(item));
    return out;
  }
  if (json.is_object()) {
    Json out = Json::object();
    for (const auto& [key, item] : json.items()) out[key] = Summarize(item);
    return out;
  }
  return json;
}

void SaveResult(const tsb_any& value, const std::string& path) {
  char* data = nullptr;
  size_t size = 0;
  Check(tsb_pickle_write(&value, &data, &size), "cannot write the result as torch.save does");
  std::ofstream file(path, std::ios::binary);
  bool ok = file && file.write(data, static_cast<std::streamsize>(size)) && file.flush();
  tsb_string_free(data);
  if (!ok) throw Failure("cannot write \"" + path + "\": " + std::strerror(errno));
}

}  // namespace tsb::cli
