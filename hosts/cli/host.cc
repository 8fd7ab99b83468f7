#include "hosts/cli/host.h"

#include <cstdlib>
#include <vector>

namespace tsb::cli {

Module LoadModule(const std::string& path) {
  tsb_module* module = nullptr;
  Check(tsb_module_load(path.c_str(), &module));  // the core names the file
  return Module(module);
}

std::string InOurWords(const std::string& message) {
  return SayLoadLibrary(message, "tsb --library {}");
}

std::string ToJson(const tsb_any& value) {
  char* text = nullptr;
  Check(tsb_json_write(&value, &text), "cannot print the result as JSON");
  std::string json(text);
  tsb_string_free(text);
  return json;
}

Method FindMethod(const Module& module, const std::string& method) {
  const std::vector<tsb_schema_info> methods = module.Methods();
  std::string names;
  for (size_t i = 0; i < methods.size(); ++i) {
    if (method == methods[i].name) return Method{i, methods[i]};
    names += std::string(names.empty() ? "" : ", ") + methods[i].name;
  }
  throw Failure("the module has no method '" + method + "' (it has: " + names + ")");
}

}  // namespace tsb::cli
