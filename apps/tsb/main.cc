// tsb: TorchScript modules and plugins from the command line, in JSON.
//
//   tsb                                  runs the bundled example model
//   tsb inspect MODULE.pt | PLUGIN.so    methods and schemas / types, functions
//   tsb run MODULE [METHOD] --args JSON [--kwargs JSON]
//   tsb plugins                          what is loaded
//   tsb compile SOURCE -o MODULE.pt      TorchScript source to a module
//
// Arguments are parsed by the types of the method's schema (a JSON number
// becomes an int or a float as the schema says). Errors go to stderr with a
// non-zero exit code: 1 for a failure, 2 for a usage error.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/tsb/host.h"

namespace tsb::cli {
namespace {

// The example the command runs when given no command (examples/model/).
constexpr const char* kExampleArgs =
    R"([[[0.5, 1.5], [2.0, -1.0]], [[0, "start"], [1, "end"]],)"
    R"( {"first": {"dtype": "float32", "shape": [2], "data": [1, 2]},)"
    R"(  "second": {"dtype": "float32", "shape": [2], "data": [10, 20]}}, 2.0])";

std::string ExampleModulePath() {
  for (const char* candidate : {TSB_EXAMPLE_MODULE_BUILD, TSB_EXAMPLE_MODULE_INSTALL}) {
    if (std::ifstream(candidate).good()) return candidate;
  }
  throw Failure(std::string("the example model is missing (looked in ") +
                TSB_EXAMPLE_MODULE_BUILD + " and " + TSB_EXAMPLE_MODULE_INSTALL + ")");
}

void LoadPlugins(const std::vector<std::string>& extra) {
  Check(tsb_plugin_load_bundled(), "cannot load the bundled plugins");
  Check(tsb_plugin_load_from_env(), "cannot load the plugins in TSB_PLUGIN_PATH");
  for (const std::string& path : extra) Check(tsb_plugin_load(path.c_str(), nullptr), path);
}

nlohmann::json ParseJson(const std::string& text, const char* what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Failure(std::string(what) + " is not valid JSON: " + e.what(), 2);
  }
}

void PrintSchema(const tsb_schema_info& info) { std::cout << "  " << info.schema << "\n"; }

int Inspect(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".so") == 0) {
    int32_t id = -1;
    Check(tsb_plugin_load(path.c_str(), &id), "cannot load plugin " + path);
    tsb_plugin_info info{};
    info.struct_size = sizeof(info);
    Check(tsb_plugin_get_info(id, &info), "cannot describe plugin " + path);
    std::cout << "plugin " << info.name << " " << info.version << " (" << info.platform_tag
              << ")\n";
    for (size_t i = 0; i < info.num_kinds; ++i) std::cout << "  kind " << info.kinds[i] << "\n";
    for (size_t i = 0; i < info.num_types; ++i) std::cout << "  type " << info.types[i] << "\n";
    for (size_t i = 0; i < info.num_functions; ++i) {
      tsb_schema_info schema_info{};
    schema_info.struct_size = sizeof(schema_info);
    const char*& schema = schema_info.schema;
      Check(tsb_function_get_schema(info.functions[i], &schema_info), info.functions[i]);
      std::cout << "  function " << schema << "\n";
    }
    return 0;
  }
  Module module = LoadModule(path);
  size_t count = 0;
  Check(tsb_module_count_methods(module.get(), &count), "cannot list methods");
  std::cout << "module " << path << "\n";
  for (size_t i = 0; i < count; ++i) {
    tsb_schema_info info{};
    info.struct_size = sizeof(info);
    Check(tsb_module_get_method(module.get(), i, &info), "cannot read a method");
    PrintSchema(info);
  }
  return 0;
}

int Run(const std::string& path, const std::string& method, const std::string& args_json,
        const std::string& kwargs_json) {
  Module module = LoadModule(path);
  tsb_schema_info schema = FindMethod(module.get(), method);
  nlohmann::json args = ParseJson(args_json, "--args");
  nlohmann::json kwargs = ParseJson(kwargs_json, "--kwargs");
  if (!args.is_array()) throw Failure("--args must be a JSON array", 2);
  if (!kwargs.is_object()) throw Failure("--kwargs must be a JSON object", 2);
  if (args.size() > schema.num_arguments) {
    throw Failure(std::string(schema.name) + "() takes " +
                  std::to_string(schema.num_arguments) + " arguments, --args gives " +
                  std::to_string(args.size()), 2);
  }
  // Each argument is parsed by its own schema type: type-directed JSON.
  std::vector<Value> values;
  for (size_t i = 0; i < args.size(); ++i) {
    const tsb_argument_info& arg = schema.arguments[i];
    values.push_back(FromJson(args[i].dump(), arg.type_index,
                              std::string(schema.name) + "(): argument '" + arg.name + "'"));
  }
  std::vector<std::string> names;
  std::vector<Value> kw_values;
  for (const auto& [name, json] : kwargs.items()) {
    int32_t type = TSB_TYPE_ANY;
    for (size_t i = 0; i < schema.num_arguments; ++i) {
      if (name == schema.arguments[i].name) type = schema.arguments[i].type_index;
    }
    names.push_back(name);
    kw_values.push_back(FromJson(json.dump(), type,
                                 std::string(schema.name) + "(): argument '" + name + "'"));
  }
  std::vector<tsb_any> raw_args, raw_kw;
  for (const Value& v : values) raw_args.push_back(v.v);
  for (const Value& v : kw_values) raw_kw.push_back(v.v);
  std::vector<const char*> raw_names;
  for (const std::string& name : names) raw_names.push_back(name.c_str());
  Value result;
  Check(tsb_module_call(module.get(), method.c_str(), ::tsb::CallArgs(raw_args.data(), raw_args.size(), raw_names.data(), raw_kw.data(), raw_kw.size()).get(), &result.v),
        "call failed");
  std::cout << ToJson(result.v) << "\n";
  return 0;
}

int Plugins() {
  for (int32_t id = 0; id < static_cast<int32_t>(::tsb::PluginCount()); ++id) {
    tsb_plugin_info info{};
    info.struct_size = sizeof(info);
    Check(tsb_plugin_get_info(id, &info), "cannot describe a plugin");
    std::cout << info.name << " " << info.version << "  " << info.path << "\n";
  }
  return 0;
}

int Compile(const std::string& source_path, const std::string& out) {
  std::ifstream file(source_path);
  if (!file) throw Failure("cannot read " + source_path);
  std::stringstream source;
  source << file.rdbuf();
  tsb_module* raw = nullptr;
  Check(tsb_module_compile(source.str().c_str(), &raw), "cannot compile " + source_path);
  Module module(raw);
  Check(tsb_module_save(module.get(), out.c_str()), "cannot save " + out);
  return 0;
}

}  // namespace
}  // namespace tsb::cli

int main(int argc, char** argv) {
  using namespace tsb::cli;
  CLI::App app{"tsb: run TorchScript modules and inspect plugins, in JSON"};
  std::vector<std::string> plugins;
  app.add_option("--plugin", plugins, "load this plugin first (repeatable)");

  std::string path, method = "forward", args = "[]", kwargs = "{}", out;
  auto* inspect = app.add_subcommand("inspect", "methods and schemas of a module, or a plugin's types and functions");
  inspect->add_option("path", path, "MODULE.pt or PLUGIN.so")->required();
  auto* run = app.add_subcommand("run", "call a method with JSON arguments, print the result as JSON");
  run->add_option("module", path, "MODULE.pt")->required();
  run->add_option("method", method, "the method (default: forward)");
  run->add_option("--args", args, "a JSON array of positional arguments");
  run->add_option("--kwargs", kwargs, "a JSON object of keyword arguments");
  auto* list = app.add_subcommand("plugins", "list the loaded plugins");
  auto* compile = app.add_subcommand("compile", "compile TorchScript source into a module");
  compile->add_option("source", path, "SOURCE file")->required();
  compile->add_option("-o,--output", out, "MODULE.pt to write")->required();
  app.require_subcommand(0, 1);
  CLI11_PARSE(app, argc, argv);

  try {
    LoadPlugins(plugins);
    if (inspect->parsed()) return Inspect(path);
    if (run->parsed()) return Run(path, method, args, kwargs);
    if (list->parsed()) return Plugins();
    if (compile->parsed()) return Compile(path, out);
    std::string example = ExampleModulePath();
    std::cout << "tsb run " << example << " forward --args '" << kExampleArgs << "'\n";
    return Run(example, "forward", kExampleArgs, "{}");
  } catch (const Failure& failure) {
    std::cerr << "tsb: " << failure.what() << "\n";
    return failure.exit_code;
  }
}
