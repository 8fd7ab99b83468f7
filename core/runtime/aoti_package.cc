#include "core/runtime/aoti_package.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/compat/torch_compat.h"
#include "core/plugins/deferred_plugins.h"
#include "core/plugins/shared_object.h"
#include "core/runtime/module.h"
#include "core/runtime/tree_spec.h"

#if TSB_TORCH_AT_LEAST(2, 6)
#include <zip.h>

#include <ATen/DynamicLibrary.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/inductor/aoti_runtime/interface.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "tsbridge/plugin/errors.hpp"
#endif

namespace tsb::runtime {

using call::Bind;
using call::Binding;
using call::HostArgs;
using call::Signature;
using call::TakeResult;

bool IsAotiPackagePath(absl::string_view path) { return absl::EndsWith(path, ".pt2"); }

#if !TSB_TORCH_AT_LEAST(2, 6)

struct AotiModel {};

absl::StatusOr<tsb_module*> LoadAotiPackage(const char* path) {
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot load \"", path, "\": an AOTInductor package (.pt2) needs LibTorch 2.6 or "
      "newer, and this library was built with LibTorch ", TORCH_VERSION_MAJOR, ".",
      TORCH_VERSION_MINOR, " (docs/export.md)"));
}

absl::Status CallAotiModel(const AotiModel&, const Signature&, const HostArgs&, tsb_any*) {
  return absl::InternalError("no AOTInductor model exists in this build");
}

#else

struct AotiModel {
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  TreeSpec args, kwargs, outputs;
  std::vector<LeafUse> leaf_use;  // per leaf of (args, kwargs)
  size_t num_inputs = 0;          // tensors the compiled code takes
};

namespace {

constexpr absl::string_view kModelsDir = "data/aotinductor/";

// An entry only torch.export.save writes: serialized_exported_program.json
// up to LibTorch 2.7, models/<name>.json from 2.8 (beside data/weights/).
bool IsExportedProgramEntry(absl::string_view name) {
  if (absl::EndsWith(name, "serialized_exported_program.json")) return true;
  size_t at = name.rfind("models/");
  return at != absl::string_view::npos && (at == 0 || name[at - 1] == '/') &&
         absl::EndsWith(name, ".json") &&
         name.find('/', at + 7) == absl::string_view::npos;
}

// The bytes of entry `index` of `archive`; empty if it does not read.
std::string ReadEntry(zip_t* archive, zip_uint64_t index) {
  zip_stat_t stat;
  if (zip_stat_index(archive, index, 0, &stat) != 0 || (stat.valid & ZIP_STAT_SIZE) == 0) {
    return "";
  }
  zip_file_t* file = zip_fopen_index(archive, index, 0);
  if (file == nullptr) return "";
  std::string bytes(stat.size, '\0');
  zip_int64_t read = zip_fread(file, bytes.data(), stat.size);
  zip_fclose(file);
  return read == static_cast<zip_int64_t>(stat.size) ? bytes : "";
}

// A package records the PyTorch that compiled it in its models' libraries
// alone: each links the libtorch_cpu it was compiled against, which Debian
// names with its release (libtorch_cpu.so.2.6; archive_format, version or
// archive_version, and .data/version record the archive's layout, not a
// PyTorch). A library compiled against another release cannot be loaded
// into this one (two LibTorch releases in one process): refused here,
// naming both (docs/install.md, "When versions clash"). A library that
// names no release (an upstream libtorch_cpu.so) passes.
absl::Status CheckCompiledRelease(const char* path, const std::string& model,
                                  absl::string_view library) {
  constexpr absl::string_view kTorchCpu = "libtorch_cpu.so.";
  const std::string ours = compat::LibTorchRelease();
  for (const std::string& needed : plugins::NeededLibraries(library)) {
    absl::string_view release = needed;
    if (!absl::ConsumePrefix(&release, kTorchCpu) || release == ours) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load \"", path, "\": compiled by PyTorch ", release, " (its model \"", model,
        "\" needs ", needed, "); this is LibTorch ", ours,
        ": compile the package again with PyTorch ", ours));
  }
  return absl::OkStatus();
}

// The names of the models a package holds (its data/aotinductor/<name>/
// folders), in archive order; an ExportedProgram archive is refused here,
// and so is a model compiled against another LibTorch release.
absl::StatusOr<std::vector<std::string>> ListModels(const char* path) {
  int error = 0;
  zip_t* archive = zip_open(path, ZIP_RDONLY, &error);
  if (archive == nullptr) {
    zip_error_t z;
    zip_error_init_with_code(&z, error);
    std::string why = zip_error_strerror(&z);
    zip_error_fini(&z);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load \"", path, "\": not a .pt2 package (", why, ")"));
  }
  std::vector<std::string> models;
  std::vector<zip_int64_t> libraries;  // per model, its first .so entry, or -1
  bool exported_program = false;
  zip_int64_t n = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* entry = zip_get_name(archive, i, 0);
    if (entry == nullptr) continue;
    absl::string_view name(entry);
    exported_program = exported_program || IsExportedProgramEntry(name);
    size_t at = name.find(kModelsDir);
    if (at == absl::string_view::npos) continue;
    name.remove_prefix(at + kModelsDir.size());
    size_t slash = name.find('/');
    if (slash == absl::string_view::npos) continue;
    std::string model(name.substr(0, slash));
    auto found = std::find(models.begin(), models.end(), model);
    if (found == models.end()) {
      models.push_back(model);
      libraries.push_back(-1);
      found = models.end() - 1;
    }
    zip_int64_t& library = libraries[found - models.begin()];
    if (library < 0 && absl::EndsWith(name, ".so")) library = i;
  }
  for (size_t m = 0; m < models.size(); ++m) {
    if (libraries[m] < 0) continue;
    absl::Status clash = CheckCompiledRelease(path, models[m], ReadEntry(archive, libraries[m]));
    if (!clash.ok()) {
      zip_discard(archive);
      return clash;
    }
  }
  zip_discard(archive);
  if (!models.empty()) return models;
  if (exported_program) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load \"", path, "\": it is a torch.export.save archive of an ExportedProgram, "
        "which only Python (or LibTorch's NativeRT, from 2.8) runs; compile it into an "
        "AOTInductor package with torch._inductor.aoti_compile_and_package (docs/export.md)"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "cannot load \"", path, "\": not an AOTInductor package (no ", kModelsDir, " entries)"));
}

// The compiled model's input names, which AOTIModelPackageLoader does not
// expose: the runner's container handle and library are protected members,
// read here through a pointer to member (legal from a derived class).
// Throws, as LibTorch does, when the library lacks the functions.
struct RunnerAccess : torch::inductor::AOTIModelContainerRunner {
  static std::vector<std::string> InputNames(torch::inductor::AOTIModelContainerRunner& r) {
    AOTInductorModelContainerHandle handle = r.*(&RunnerAccess::container_handle_);
    at::DynamicLibrary& library = *(r.*(&RunnerAccess::model_so_));
    auto num_inputs = reinterpret_cast<decltype(&AOTInductorModelContainerGetNumInputs)>(
        library.sym("AOTInductorModelContainerGetNumInputs"));
    auto input_name = reinterpret_cast<decltype(&AOTInductorModelContainerGetInputName)>(
        library.sym("AOTInductorModelContainerGetInputName"));
    size_t n = 0;
    TORCH_CHECK(num_inputs(handle, &n) == AOTI_RUNTIME_SUCCESS,
                "the compiled model did not say how many inputs it takes");
    std::vector<std::string> names;
    for (size_t i = 0; i < n; ++i) {
      const char* name = nullptr;
      TORCH_CHECK(input_name(handle, i, &name) == AOTI_RUNTIME_SUCCESS && name != nullptr,
                  "the compiled model did not name its input ", i);
      names.emplace_back(name);
    }
    return names;
  }
};

// How the compiled code takes each leaf of the input spec. All are tensors
// when the counts agree; otherwise some were specialised at export (None,
// an int). The graph names its inputs "arg<k>_1", numbering the lifted
// parameters and buffers first and then every leaf, so leaf = k - offset;
// the offset is known when only one value puts every k among the leaves
// (an untaken first or last leaf leaves it open). Else, as PyTorch's own
// caller does, every tensor among the leaves is taken.
std::vector<LeafUse> TensorLeaves(const std::vector<std::string>& names, size_t num_leaves) {
  if (names.size() == num_leaves) return std::vector<LeafUse>(num_leaves, LeafUse::kTensor);
  std::vector<size_t> ks;
  for (const std::string& name : names) {
    size_t k = 0;
    absl::string_view digits(name);
    if (!absl::ConsumePrefix(&digits, "arg") || !absl::ConsumeSuffix(&digits, "_1") ||
        !absl::SimpleAtoi(digits, &k)) {
      break;
    }
    ks.push_back(k);
  }
  std::vector<LeafUse> uses(num_leaves, LeafUse::kIfTensor);
  if (ks.size() != names.size() || ks.empty()) return uses;
  // k = offset + leaf for leaves in [0, num_leaves): offset is in
  // [hi + 1 - num_leaves, lo], one value only if those bounds meet.
  size_t lo = *std::min_element(ks.begin(), ks.end());
  size_t hi = *std::max_element(ks.begin(), ks.end());
  size_t min_offset = hi + 1 > num_leaves ? hi + 1 - num_leaves : 0;
  if (min_offset != lo) return uses;
  size_t offset = lo;
  std::fill(uses.begin(), uses.end(), LeafUse::kSkip);
  for (size_t k : ks) {
    if (k < offset || k - offset >= num_leaves) {
      return std::vector<LeafUse>(num_leaves, LeafUse::kIfTensor);
    }
    uses[k - offset] = LeafUse::kTensor;
  }
  return uses;
}

absl::StatusOr<std::unique_ptr<Signature>> MakeSignature(const std::string& method,
                                                         AotiModel& model) {
  std::vector<c10::TypePtr> leaf_types;
  for (LeafUse use : model.leaf_use) {
    leaf_types.push_back(use == LeafUse::kTensor ? c10::TypePtr(c10::TensorType::get())
                                                 : c10::TypePtr(c10::AnyType::get()));
  }
  std::vector<c10::Argument> arguments;
  size_t leaf = 0;
  for (size_t i = 0; i < model.args.children.size(); ++i) {
    TreeSpec& arg = model.args.children[i];
    c10::TypePtr type = AssignSpecTypes(arg, absl::MakeConstSpan(leaf_types).subspan(leaf));
    arguments.emplace_back(absl::StrCat("arg", i), type);
    leaf += arg.num_leaves;
  }
  for (size_t i = 0; i < model.kwargs.children.size(); ++i) {
    TreeSpec& kwarg = model.kwargs.children[i];
    c10::TypePtr type = AssignSpecTypes(kwarg, absl::MakeConstSpan(leaf_types).subspan(leaf));
    arguments.emplace_back(model.kwargs.keys[i].toStringRef(), type, c10::nullopt,
                           c10::nullopt, /*kwarg_only=*/true);
    leaf += kwarg.num_leaves;
  }
  // Which outputs are None is known only when they come back.
  std::vector<c10::TypePtr> out_leaves(model.outputs.num_leaves,
                                       c10::OptionalType::create(c10::TensorType::get()));
  c10::TypePtr output_type = AssignSpecTypes(model.outputs, out_leaves);
  c10::FunctionSchema schema(method, "", std::move(arguments),
                             {c10::Argument("", output_type)});
  return Signature::Make(schema, method, /*skip_self=*/false, "", /*describe=*/true);
}

absl::Status LoadModel(const char* path, const std::string& name, tsb_module::Method* method) {
  auto model = std::make_shared<AotiModel>();
  TSB_RETURN_IF_ERROR(CatchAll(
      [&] {
        model->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(path, name);
      },
      /*from_torch=*/true));
  std::vector<std::string> specs;
  TSB_RETURN_IF_ERROR(
      CatchAll([&] { specs = model->loader->get_call_spec(); }, /*from_torch=*/true));
  if (specs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("the model has ", specs.size(),
                                                   " call specs, not 2 (inputs, outputs)"));
  }
  // A bundled plugin that registers a record the specs name is loaded first.
  TSB_RETURN_IF_ERROR(
      plugins::DeferredPlugins::Global().ProvideNamesIn(specs[0] + specs[1]).status());
  absl::StatusOr<TreeSpec> in = ParseTreeSpec(specs[0]);
  if (!in.ok()) return WithPath(in.status(), "input spec");
  absl::StatusOr<TreeSpec> out = ParseTreeSpec(specs[1]);
  if (!out.ok()) return WithPath(out.status(), "output spec");
  // torch.export's inputs: a tuple of (positional arguments, keyword ones).
  if (in->kind != TreeSpec::Kind::kTuple || in->children.size() != 2 ||
      in->children[0].kind != TreeSpec::Kind::kTuple ||
      in->children[1].kind != TreeSpec::Kind::kDict ||
      (!in->children[1].keys.empty() && !in->children[1].keys[0].isString())) {
    return absl::InvalidArgumentError(
        "the input spec is not a tuple of (arguments tuple, keyword-arguments dict)");
  }
  model->args = std::move(in->children[0]);
  model->kwargs = std::move(in->children[1]);
  model->outputs = *std::move(out);
  std::vector<std::string> inputs;
  TSB_RETURN_IF_ERROR(CatchAll(
      [&] { inputs = RunnerAccess::InputNames(*model->loader->get_runner()); },
      /*from_torch=*/true));
  model->num_inputs = inputs.size();
  model->leaf_use = TensorLeaves(inputs, model->args.num_leaves + model->kwargs.num_leaves);
  method->name = name == "model" ? "forward" : name;
  absl::StatusOr<std::unique_ptr<Signature>> sig = MakeSignature(method->name, *model);
  if (!sig.ok()) return sig.status();
  method->signature = *std::move(sig);
  method->aoti = std::move(model);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<tsb_module*> LoadAotiPackage(const char* path) {
  absl::StatusOr<std::vector<std::string>> names = ListModels(path);
  if (!names.ok()) return names.status();
  auto module = std::make_unique<tsb_module>();
  module->is_package = true;
  for (const std::string& name : *names) {
    tsb_module::Method method{};
    absl::Status loaded = LoadModel(path, name, &method);
    if (!loaded.ok()) {
      return absl::Status(loaded.code(), absl::StrCat("cannot load model \"", name, "\" of \"",
                                                      path, "\": ", loaded.message()));
    }
    module->methods.push_back(std::move(method));
  }
  return module.release();
}

namespace {

absl::Status Call(const AotiModel& model, const Signature& sig, const HostArgs& args,
                  tsb_any* out) {
  Binding binding;
  TSB_RETURN_IF_ERROR(Bind(sig, args, &binding));
  TSB_RETURN_IF_ERROR(binding.result_status);
  std::vector<at::Tensor> flat;
  flat.reserve(model.num_inputs);
  size_t leaf = 0, param = 0;
  for (const TreeSpec* group : {&model.args, &model.kwargs}) {
    for (const TreeSpec& spec : group->children) {
      absl::Status s =
          FlattenBySpec(spec, binding.stack[param], model.leaf_use, leaf, &flat);
      if (!s.ok()) return WithPath(std::move(s), ArgumentSegment(sig.params()[param].name));
      leaf += spec.num_leaves;
      ++param;
    }
  }
  if (flat.size() != model.num_inputs) {  // only when leaves are taken by their value
    return TypeError(absl::StrCat("the model takes ", model.num_inputs,
                                  " tensors, and the arguments hold ", flat.size()));
  }
  std::vector<at::Tensor> outputs;
  TSB_RETURN_IF_ERROR(CatchAll(
      [&] {
        outputs = model.loader->run(flat);
      },
      /*from_torch=*/true));
  if (outputs.size() != model.outputs.num_leaves) {
    return absl::InternalError(absl::StrCat("the model returned ", outputs.size(),
                                            " tensors and its output spec has ",
                                            model.outputs.num_leaves, " leaves"));
  }
  size_t next = 0;
  binding.stack.clear();
  binding.stack.push_back(UnflattenBySpec(model.outputs, outputs, &next));
  return TakeResult(sig, binding, binding.stack, out);
}

}  // namespace

absl::Status CallAotiModel(const AotiModel& model, const Signature& sig, const HostArgs& args,
                           tsb_any* out) {
  return WithCall(Call(model, sig, args, out), sig.display());
}

#endif

}  // namespace tsb::runtime
