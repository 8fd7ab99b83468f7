// tsb: TorchScript modules, plugin functions and operators from the command
// line, in JSON.
//
//   tsb                                  this help
//   tsb demo                             runs the bundled example model
//   tsb inspect MODULE.pt | PLUGIN.so    methods and schemas / types, functions
//   tsb run MODULE [METHOD] --args JSON [--kwargs JSON]
//   tsb call NS::NAME --args JSON [--kwargs JSON]   a plugin function or operator
//   tsb plugins                          what is loaded (plugins, operator libraries)
//   tsb ops [NAMESPACE]                  operator and plugin function names
//   tsb compile SOURCE -o MODULE.pt      TorchScript source to a module
//   tsb serve REPOSITORY                 the Open Inference Protocol (docs/serve.md)
//
// Global options: --plugin PLUGIN.so and --library PATH|NAME (an operator
// library such as torchvision), both repeatable. run and call take
// --args/--kwargs as JSON text, @FILE or - (standard input), where
// {"file": "x.pt"} and {"image": "photo.jpg"} stand for values read from
// files; --seed N seeds LibTorch's generator first; --out FILE.pt saves the
// result as torch.save does; --summary
// prints large tensors as dtype, shape, min/max/mean; --jsonl reads one call
// per line from standard input (docs/cli.md).
//
// Arguments are parsed by the types of the callee's call plan (a JSON number
// becomes an int or a float as the schema says; where an operator's
// overloads disagree, by its own form). Errors go to stderr with a
// non-zero exit code: 1 for a failure, 2 for a usage error.
#include <CLI/CLI.hpp>

#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hosts/cli/host.h"
#include "hosts/cli/inputs.h"
#include "hosts/cli/outputs.h"
#include "hosts/serve/server.h"

namespace tsb::cli {
namespace {

// The example `tsb demo` runs (examples/model/).
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

// The statuses already say what failed to load and why: no prefix.
void LoadExtensions(const std::vector<std::string>& plugins,
                    const std::vector<std::string>& libraries) {
  // Each bundled plugin loads when first needed (docs/plugins.md).
  Check(tsb_plugin_defer_bundled(), "cannot offer the bundled plugins");
  Check(tsb_plugin_load_from_env(), "cannot load the plugins in TSB_PLUGIN_PATH");
  Check(tsb_library_load_from_env(), "");
  for (const std::string& path : plugins) Check(tsb_plugin_load(path.c_str(), nullptr), "");
  for (const std::string& library : libraries) {
    Check(tsb_library_load(library.c_str(), nullptr), "");
  }
}

tsb_schema_info EmptySchema() {
  tsb_schema_info info{};
  info.struct_size = sizeof(info);
  return info;
}

int InspectPlugin(const std::string& path) {
  int32_t id = -1;
  Check(tsb_plugin_load(path.c_str(), &id), "");
  tsb_plugin_info info{};
  info.struct_size = sizeof(info);
  Check(tsb_plugin_get_info(id, &info), "cannot describe plugin " + path);
  std::cout << "plugin " << info.name << " " << info.version << " (" << info.platform_tag
            << ")\n";
  for (size_t i = 0; i < info.num_kinds; ++i) std::cout << "  kind " << info.kinds[i] << "\n";
  for (size_t i = 0; i < info.num_types; ++i) std::cout << "  type " << info.types[i] << "\n";
  for (size_t i = 0; i < info.num_functions; ++i) {
    tsb_schema_info schema = EmptySchema();
    Check(tsb_function_get_schema(info.functions[i], &schema), info.functions[i]);
    std::cout << "  function " << schema.schema << "\n";
  }
  return 0;
}

int Inspect(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".so") == 0) {
    return InspectPlugin(path);
  }
  Module module = LoadModule(path);
  size_t count = 0;
  Check(tsb_module_count_methods(module.get(), &count), "cannot list methods");
  std::cout << "module " << path << "\n";
  for (size_t i = 0; i < count; ++i) {
    tsb_schema_info info = EmptySchema();
    Check(tsb_module_get_method(module.get(), i, &info), "cannot read a method");
    std::cout << "  " << info.schema << "\n";
  }
  return 0;
}

// What is called: a module method, a plugin function or an operator, and
// how its arguments are typed (its schemas' call plan).
struct Callee {
  std::string name;
  kit::CallPlan plan;
  std::function<tsb_status*(const tsb_call_args*, tsb_any*)> call;
};

Callee FunctionOrOperator(const std::string& name) {
  Callee callee;
  callee.name = name;
  tsb_schema_info schema = EmptySchema();
  if (tsb_status* status = tsb_function_get_schema(name.c_str(), &schema)) {
    tsb_status_free(status);
  } else {
    callee.plan = kit::CallPlan(&schema, 1);
    callee.call = [name](const tsb_call_args* args, tsb_any* out) {
      return tsb_function_call(name.c_str(), args, out);
    };
    return callee;
  }
  size_t overloads = 0;
  if (tsb_status* status = tsb_op_count_overloads(name.c_str(), &overloads)) {
    std::string message = tsb_status_get_message(status);
    const bool missing = tsb_status_get_code(status) == TSB_ERR_NOT_FOUND;
    tsb_status_free(status);
    if (!missing) throw Failure(message);  // an operator, refused with its reason
    throw Failure("'" + name + "' is neither a plugin function nor an operator: " + message);
  }
  try {
    callee.plan = kit::CallPlan::ForOperator(name.c_str());
  } catch (const kit::ConvertError& e) {
    throw Failure(e.Message("cannot describe " + name));
  }
  callee.call = [name](const tsb_call_args* args, tsb_any* out) {
    return tsb_op_call(name.c_str(), args, out);
  };
  return callee;
}

struct OutputOptions {
  std::string out;
  bool summary = false;
};

// One call: arguments from JSON, each read by the callee's plan.
Value Invoke(Callee& callee, const Json& args, const Json& kwargs) {
  kit::CallArguments call(args.is_array() ? args.size() : 0,
                          kwargs.is_object() ? kwargs.size() : 0);
  ReadArguments(callee.plan, args, kwargs, call);
  const tsb_call_args view = call.view();
  Value result;
  // The core names the callee in its messages ("f(): argument 'x' → ...",
  // "no overload of aten::add accepts ..."): it is added only to one that
  // does not (LibTorch's own, say).
  Status status(callee.call(&view, result.out()));
  if (!status.ok()) {
    const bool named = status.message().find(callee.name) != std::string::npos;
    throw Error(status, named ? "" : callee.name + "()");
  }
  return result;
}

int RunOnce(Callee& callee, const std::string& args, const std::string& kwargs,
            const OutputOptions& options) {
  Value result = Invoke(callee, ParseJson(ReadOptionText(args, "--args"), "--args"),
                        ParseJson(ReadOptionText(kwargs, "--kwargs"), "--kwargs"));
  if (!options.out.empty()) SaveResult(result.get(), options.out);
  if (options.summary) {
    std::cout << Summarize(ResultJson(result.get())).dump() << "\n";
  } else if (options.out.empty()) {
    std::cout << ToJson(result.get()) << "\n";
  }
  return 0;
}

// --jsonl: each line of standard input is one call, a JSON array of
// positional arguments or {"args": [...], "kwargs": {...}}; each writes one
// line, {"result": ...} or {"error": "line N: ..."}. Exit 1 if any failed.
int RunLines(Callee& callee, bool summary) {
  std::string line;
  int failures = 0;
  for (size_t number = 1; std::getline(std::cin, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json out;
    try {
      Json call = ParseJson(line, "the line");
      Json args = Json::array(), kwargs = Json::object();
      if (call.is_object()) {
        for (const auto& [key, item] : call.items()) {
          if (key != "args" && key != "kwargs") {
            throw Failure("unknown key \"" + key + "\" (a line is a JSON array of arguments "
                          "or an object with \"args\" and \"kwargs\")");
          }
        }
        args = call.value("args", Json::array());
        kwargs = call.value("kwargs", Json::object());
      } else {
        args = call;
      }
      Json result = ResultJson(Invoke(callee, args, kwargs).get());
      out = Json::object();
      out["result"] = summary ? Summarize(result) : result;
    } catch (const std::runtime_error& failure) {  // a Failure or a tsb::Error
      ++failures;
      out = {{"error", "line " + std::to_string(number) + ": " + InOurWords(failure.what())}};
    }
    std::cout << out.dump() << std::endl;  // one line per call, flushed
  }
  return failures == 0 ? 0 : 1;
}

int Run(Callee& callee, const std::string& args, const std::string& kwargs, bool jsonl,
        const OutputOptions& options) {
  if (!jsonl) return RunOnce(callee, args, kwargs, options);
  if (!options.out.empty()) throw Failure("--out saves one result: it does not go with --jsonl", 2);
  if (args != "[]" || kwargs != "{}") {
    throw Failure("--jsonl reads the arguments from standard input: drop --args/--kwargs", 2);
  }
  return RunLines(callee, options.summary);
}

int RunModule(const std::string& path, const std::string& method, const std::string& args,
              const std::string& kwargs, bool jsonl, const OutputOptions& options) {
  Module module = LoadModule(path);
  Callee callee;
  callee.name = method;
  const Method found = FindMethod(module, method);
  callee.plan = kit::CallPlan::ForMethod(found.info);
  tsb_module* raw = module.get();
  // By index from 1.9 (no lookup by name per call; --jsonl calls many times).
  if (kit::LibraryHas(9)) {
    callee.call = [raw, index = found.index](const tsb_call_args* call_args, tsb_any* out) {
      return tsb_module_call_method(raw, index, call_args, out);
    };
  } else {
    callee.call = [raw, method](const tsb_call_args* call_args, tsb_any* out) {
      return tsb_module_call(raw, method.c_str(), call_args, out);
    };
  }
  return Run(callee, args, kwargs, jsonl, options);
}

int Plugins() {
  // What is available, not only what this process needed so far.
  Check(tsb_plugin_load_bundled(), "cannot load the bundled plugins");
  size_t count = 0;
  Check(tsb_plugin_count(&count), "cannot count plugins");
  for (size_t id = 0; id < count; ++id) {
    tsb_plugin_info info{};
    info.struct_size = sizeof(info);
    Check(tsb_plugin_get_info(static_cast<int32_t>(id), &info), "cannot describe a plugin");
    std::cout << info.name << " " << info.version << "  " << info.path << "\n";
  }
  Check(tsb_library_count(&count), "cannot count operator libraries");
  for (size_t id = 0; id < count; ++id) {
    tsb_library_info info{};
    info.struct_size = sizeof(info);
    Check(tsb_library_get_info(static_cast<int32_t>(id), &info),
          "cannot describe an operator library");
    std::cout << "library " << info.name << "  " << info.path << " (" << info.num_operators
              << " operators)\n";
  }
  return 0;
}

// One qualified name a line: every operator and plugin function, or one
// namespace's (tsb ops aten).
int Ops(const std::string& ns) {
  Check(tsb_plugin_load_bundled(), "cannot load the bundled plugins");
  const char** names = nullptr;
  size_t n = 0;
  Check(tsb_op_get_names(ns.empty() ? nullptr : ns.c_str(), &names, &n),
        "cannot list the operators");
  for (size_t i = 0; i < n; ++i) std::cout << names[i] << "\n";
  tsb_string_free(reinterpret_cast<char*>(names));
  if (n == 0 && !ns.empty()) throw Failure("no operator or plugin function in namespace '" + ns + "'");
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

// tsb serve's options; the server itself is hosts/serve.
struct ServeCommand {
  std::string repository, address = "0.0.0.0";
  int port = 8000, grpc_port = -1;
  size_t workers = 0, queue = 64, max_body = 64 << 20;
  int64_t deadline_ms = 0;
  void AddTo(CLI::App* command) {
    command->add_option("repository", repository, "REPOSITORY/NAME/VERSION/model.pt|model.pt2")
        ->required();
    command->add_option("--address", address, "the address to listen on (default 0.0.0.0)");
    command->add_option("--port", port, "the port (default 8000; 0: any free port, printed)");
    command->add_option("--grpc-port", grpc_port,
                        "also serve the gRPC API on this port (default: none; 0: any free port, "
                        "printed; Triton's is 8001)");
    command->add_option("--workers", workers, "inference calls at once (default: the cores)");
    command->add_option("--queue", queue, "requests that may wait for a worker before 503 (default 64)");
    command->add_option("--deadline-ms", deadline_ms,
                        "longest wait for a worker before 504, in ms (default 0: none)");
    command->add_option("--max-body", max_body, "the largest request body in bytes (default 64 MiB)");
    // --plugin and --library are tsb's own options, accepted here too.
    command->fallthrough();
  }
  int Run() const {
    serve::ServeOptions options;
    options.repository = repository;
    options.address = address;
    options.port = port;
    options.grpc_port = grpc_port;
    options.workers = workers;
    options.queue = queue;
    options.deadline_ms = deadline_ms;
    options.max_body = max_body;
    return serve::Serve(options);
  }
};

int Demo() {
  std::string example = ExampleModulePath();
  std::cout << "tsb run " << example << " forward --args '" << kExampleArgs << "'\n";
  return RunModule(example, "forward", kExampleArgs, "{}", false, {});
}

// --args, --kwargs, --out, --summary, --jsonl, --seed: what run and call share.
struct CallOptions {
  std::string args = "[]", kwargs = "{}";
  bool jsonl = false;
  std::optional<int64_t> seed;
  OutputOptions output;
  // LibTorch's generator seeded before the first call, as torch.manual_seed
  // does: aten::manual_seed, the operator every host calls for it.
  void Seed() const {
    if (seed) CallOperator("aten::manual_seed", Args().Add(*seed));
  }
  void AddTo(CLI::App* command) {
    command->add_option("--args", args,
                        "positional arguments: a JSON array, @FILE or - (standard input)");
    command->add_option("--kwargs", kwargs,
                        "keyword arguments: a JSON object, @FILE or - (standard input)");
    command->add_option("--out", output.out, "save the result to FILE.pt as torch.save does");
    command->add_flag("--summary", output.summary,
                      "print large tensors as dtype, shape, min/max/mean");
    command->add_flag("--jsonl", jsonl,
                      "one call per line of standard input, one result per line of output");
    command->add_option("--seed", seed,
                        "seed LibTorch's random generator first (torch.manual_seed(N))");
  }
};

}  // namespace
}  // namespace tsb::cli

int main(int argc, char** argv) {
  using namespace tsb::cli;
  CLI::App app{"tsb: run TorchScript modules, plugin functions and operators, in JSON"};
  std::vector<std::string> plugins, libraries;
  app.add_option("--plugin", plugins, "load this plugin first (repeatable)");
  app.add_option("--library", libraries,
                 "load this operator library first: a path or a known name such as "
                 "torchvision (repeatable)");

  std::string path, method = "forward", out;
  CallOptions run_options, call_options;
  auto* demo = app.add_subcommand("demo", "run the bundled example model");
  auto* inspect = app.add_subcommand("inspect", "methods and schemas of a module, or a plugin's types and functions");
  inspect->add_option("path", path, "MODULE.pt or PLUGIN.so")->required();
  auto* run = app.add_subcommand("run", "call a module's method, print the result as JSON");
  run->add_option("module", path, "MODULE.pt")->required();
  run->add_option("method", method, "the method (default: forward)");
  run_options.AddTo(run);
  auto* call = app.add_subcommand("call", "call a plugin function or an operator (NS::NAME)");
  call->add_option("name", path, "NS::NAME, e.g. aten::add or torchvision::nms")->required();
  call_options.AddTo(call);
  auto* list = app.add_subcommand("plugins", "list the loaded plugins and operator libraries");
  std::string ns;
  auto* ops = app.add_subcommand("ops", "list the operators and plugin functions (of NAMESPACE)");
  ops->add_option("namespace", ns, "e.g. aten, torchvision");
  auto* compile = app.add_subcommand("compile", "compile TorchScript source into a module");
  compile->add_option("source", path, "SOURCE file")->required();
  compile->add_option("-o,--output", out, "MODULE.pt to write")->required();
  ServeCommand serve_command;
  auto* serve = app.add_subcommand("serve", "serve a model repository over the Open Inference Protocol");
  serve_command.AddTo(serve);
  app.require_subcommand(0, 1);
  CLI11_PARSE(app, argc, argv);

  if (app.get_subcommands().empty()) {
    std::cout << app.help();
    return 0;
  }
  try {
    LoadExtensions(plugins, libraries);
    if (demo->parsed()) return Demo();
    if (inspect->parsed()) return Inspect(path);
    if (run->parsed()) {
      run_options.Seed();
      return RunModule(path, method, run_options.args, run_options.kwargs, run_options.jsonl,
                       run_options.output);
    }
    if (call->parsed()) {
      Callee callee = FunctionOrOperator(path);
      call_options.Seed();
      return Run(callee, call_options.args, call_options.kwargs, call_options.jsonl,
                 call_options.output);
    }
    if (list->parsed()) return Plugins();
    if (ops->parsed()) return Ops(ns);
    if (compile->parsed()) return Compile(path, out);
    if (serve->parsed()) return serve_command.Run();
    return 0;
  } catch (const Failure& failure) {
    std::cerr << "tsb: " << InOurWords(failure.what()) << "\n";
    return failure.exit_code;
  } catch (const tsb::Error& error) {  // a failed status from the ABI
    std::cerr << "tsb: " << InOurWords(error.what()) << "\n";
    return 1;
  }
}
