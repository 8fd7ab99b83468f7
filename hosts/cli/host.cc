#include "hosts/cli/host.h"

#include <cstdlib>
#include <vector>

namespace tsb::cli {

Module LoadModule(const std::string& path) {
  tsb_module* module = nullptr;
  Check(tsb_module_load(path.c_str(), &module), "cannot load module " + path);
  return Module(module);
}

std::string ToJson(const tsb_any& value) {
  char* text = nullptr;
  Check(tsb_json_write(&value, &text), "cannot print the result as JSON");
  std::string json(text);
  tsb_string_free(text);
  return json;
}

Method FindMethod(tsb_module* module, const std::string& method) {
  size_t count = 0;
  Check(tsb_module_count_methods(module, &count), "cannot list methods");
  std::string names;
  for (size_t i = 0; i < count; ++i) {
    tsb_schema_info info{};
    info.struct_size = sizeof(info);
    Check(tsb_module_get_method(module, i, &info), "cannot read a method");
    if (method == info.name) return Method{i, info};
    names += std::string(names.empty() ? "" : ", ") + info.name;
  }
  throw Failure("the module has no method '" + method + "' (it has: " + names + ")");
}

}  // namespace tsb::cli
