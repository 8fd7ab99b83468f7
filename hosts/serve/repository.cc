#include "hosts/serve/repository.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "tsbridge/host/kit.hpp"

namespace tsb::serve {
namespace fs = std::filesystem;
namespace {

// The protocol's datatypes (its "Tensor Data Types" table, and BF16 as
// Triton adds it) against tsbridge's dtype names (docs/json.md).
constexpr std::pair<const char*, const char*> kDatatypes[] = {
    {"BOOL", "bool"},     {"UINT8", "uint8"},     {"UINT16", "uint16"}, {"UINT32", "uint32"},
    {"UINT64", "uint64"}, {"INT8", "int8"},       {"INT16", "int16"},   {"INT32", "int32"},
    {"INT64", "int64"},   {"FP16", "float16"},    {"FP32", "float32"},  {"FP64", "float64"},
    {"BF16", "bfloat16"},
};

bool IsVersionName(const std::string& s) {
  return !s.empty() && s.size() < 18 && s[0] != '0' &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What the protocol shows for a value of `type` (TensorSpec).
TensorSpec SpecOf(std::string name, int32_t type, const char* annotation) {
  TensorSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.annotation = annotation != nullptr ? annotation : kit::Annotation(type);
  const int32_t inner = Unwrapped(type);
  const tsb_kind kind = KindOf(inner);
  if (kind == TSB_KIND_TENSOR) {
    spec.datatype = "ANY";  // the schema says no dtype: config.json may
    spec.shape = {-1};
  } else if (kind == TSB_KIND_STR) {
    spec.datatype = "BYTES";
    spec.shape = {1};
  } else if (kind == TSB_KIND_LIST && KindOf(TypeInfoOf(inner).contained[0]) == TSB_KIND_STR) {
    spec.datatype = "BYTES";
    spec.shape = {-1};
  } else {
    spec.datatype = "JSON";
    spec.shape = {0};
  }
  return spec;
}

[[noreturn]] void BadConfig(const fs::path& file, const std::string& where, const std::string& what) {
  throw std::runtime_error(file.string() + ": " + where + ": " + what);
}

// config.json: {"inputs": [{"name", "datatype", "shape"}...], "outputs": [...],
// "grad_mode": bool}, each entry naming a Tensor input or output whose
// datatype and shape it declares.
void ApplyConfig(const fs::path& file, ModelVersion& model) {
  std::vector<TensorSpec>& inputs = model.inputs;
  std::vector<TensorSpec>& outputs = model.outputs;
  std::ifstream in(file);
  Json config;
  try {
    config = Json::parse(in);
  } catch (const Json::exception& e) {
    throw std::runtime_error(file.string() + ": not valid JSON: " + e.what());
  }
  if (!config.is_object()) BadConfig(file, "the document", "expected a JSON object");
  for (const auto& [key, list] : config.items()) {
    if (key == "grad_mode") {
      if (!list.is_boolean()) BadConfig(file, "key \"grad_mode\"", "expected true or false");
      model.grad_mode = list.get<bool>();
      continue;
    }
    if (key != "inputs" && key != "outputs") {
      BadConfig(file, "key \"" + key + "\"", "unknown key (keys: inputs, outputs, grad_mode)");
    }
    std::vector<TensorSpec>& specs = key == "inputs" ? inputs : outputs;
    if (!list.is_array()) BadConfig(file, "key \"" + key + "\"", "expected a JSON array");
    for (size_t i = 0; i < list.size(); ++i) {
      const Json& entry = list[i];
      const std::string where = "key \"" + key + "\" → [" + std::to_string(i) + "]";
      if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() ||
          !entry.contains("datatype") || !entry["datatype"].is_string() ||
          !entry.contains("shape") || !entry["shape"].is_array()) {
        BadConfig(file, where, "expected {\"name\": str, \"datatype\": str, \"shape\": [int...]}");
      }
      const std::string name = entry["name"];
      auto spec = std::find_if(specs.begin(), specs.end(),
                               [&](const TensorSpec& s) { return s.name == name; });
      if (spec == specs.end()) BadConfig(file, where, "the model has no " + key + " \"" + name + "\"");
      if (KindOf(Unwrapped(spec->type)) != TSB_KIND_TENSOR) {
        BadConfig(file, where, "\"" + name + "\" is " + spec->annotation +
                                   ": only a Tensor's datatype and shape are declared");
      }
      const std::string datatype = entry["datatype"];
      if (DtypeOfDatatype(datatype).empty()) {
        BadConfig(file, where + " → key \"datatype\"", "unknown tensor datatype \"" + datatype + "\"");
      }
      std::vector<int64_t> shape;
      for (const Json& dim : entry["shape"]) {
        if (!dim.is_number_integer() || dim.get<int64_t>() < -1) {
          BadConfig(file, where + " → key \"shape\"", "expected integers, -1 where free");
        }
        shape.push_back(dim.get<int64_t>());
      }
      spec->datatype = datatype;
      spec->shape = std::move(shape);
      spec->declared = true;
    }
  }
}

std::shared_ptr<ModelVersion> LoadVersion(const std::string& name, const std::string& version,
                                          const fs::path& file, const fs::path& config) {
  tsb_module* raw = nullptr;
  Check(tsb_module_load(file.c_str(), &raw));  // the core names the file
  auto model = std::make_shared<ModelVersion>(Module(raw));
  model->name = name;
  model->version = version;
  model->path = file.string();
  model->platform = file.extension() == ".pt2" ? "torch_aoti" : "pytorch_libtorch";
  const std::optional<kit::FoundMethod> forward = kit::FindMethod(model->module.get(), "forward");
  if (!forward) throw std::runtime_error(file.string() + ": the module has no method forward");
  model->method = forward->index;
  model->plan = kit::CallPlan::ForMethod(forward->info);
  const tsb_schema_info& schema = forward->info;
  for (size_t i = 0; i < schema.num_arguments; ++i) {
    const tsb_argument_info* a = tsb_schema_get_argument(&schema, i);
    std::string input_name = a->name != nullptr && a->name[0] != '\0'
                                 ? a->name : "INPUT__" + std::to_string(i);
    model->inputs.push_back(SpecOf(std::move(input_name), a->type_index, a->annotation));
    model->inputs.back().has_default = a->has_default;
  }
  if (schema.num_returns == 1) {
    const tsb_argument_info* r = tsb_schema_get_return(&schema, 0);
    const tsb_kind kind = KindOf(r->type_index);
    if (kind == TSB_KIND_TUPLE || kind == TSB_KIND_NAMEDTUPLE) {
      const tsb_type_info& info = TypeInfoOf(r->type_index);
      model->split_result = true;
      for (size_t i = 0; i < info.num_contained; ++i) {
        std::string output_name = kind == TSB_KIND_NAMEDTUPLE ? info.field_names[i]
                                                              : "OUTPUT__" + std::to_string(i);
        model->outputs.push_back(SpecOf(std::move(output_name), info.contained[i], nullptr));
      }
    } else {
      const bool named = r->name != nullptr && r->name[0] != '\0';
      model->outputs.push_back(SpecOf(named ? r->name : "OUTPUT__0", r->type_index, r->annotation));
    }
  } else {  // none (a None result) or several: one output of the whole
    model->outputs.push_back(SpecOf("OUTPUT__0", TSB_TYPE_ANY, "Any"));
  }
  if (fs::exists(config)) ApplyConfig(config, *model);
  return model;
}

}  // namespace

std::string DatatypeOfDtype(const std::string& dtype) {
  for (const auto& [datatype, name] : kDatatypes) {
    if (dtype == name) return datatype;
  }
  return "";
}

std::string DtypeOfDatatype(const std::string& datatype) {
  for (const auto& [protocol, name] : kDatatypes) {
    if (datatype == protocol) return name;
  }
  return "";
}

tsb_kind KindOf(int32_t type) {
  tsb_kind kind = TSB_KIND_INVALID;
  if (tsb_status* status = tsb_type_get_kind(type, &kind)) tsb_status_free(status);
  return kind;
}

tsb_type_info TypeInfoOf(int32_t type) {
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  Check(tsb_type_get_info(type, &info));
  return info;
}

int32_t Unwrapped(int32_t type) {
  return KindOf(type) == TSB_KIND_OPTIONAL ? TypeInfoOf(type).contained[0] : type;
}

const TensorSpec* ModelVersion::FindInput(const std::string& name) const {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == name || name == "INPUT__" + std::to_string(i)) return &inputs[i];
  }
  return nullptr;
}

namespace {

// Every version of the model in `dir`, ascending; throws std::runtime_error.
std::vector<ModelPtr> LoadModel(const fs::path& dir) {
  std::vector<std::pair<uint64_t, fs::path>> versions;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string v = e.path().filename().string();
    if (e.is_directory() && IsVersionName(v)) versions.emplace_back(std::stoull(v), e.path());
  }
  std::sort(versions.begin(), versions.end());
  const std::string name = dir.filename().string();
  std::vector<ModelPtr> loaded;
  for (const auto& [number, path] : versions) {
    const bool pt = fs::exists(path / "model.pt"), pt2 = fs::exists(path / "model.pt2");
    if (pt == pt2) {
      throw std::runtime_error(path.string() + ": expected model.pt or model.pt2 (one of them), found " +
                               (pt ? "both" : "neither"));
    }
    loaded.push_back(LoadVersion(name, std::to_string(number), path / (pt ? "model.pt" : "model.pt2"),
                                 dir / "config.json"));
  }
  return loaded;
}

std::string Listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Repository::Repository(std::string root) : root_(std::move(root)) {
  if (!fs::is_directory(root_)) throw std::runtime_error("no model repository at " + root_);
  std::vector<fs::path> models;
  for (const fs::directory_entry& e : fs::directory_iterator(root_)) {
    if (e.is_directory()) models.push_back(e.path());
  }
  std::sort(models.begin(), models.end());
  for (const fs::path& dir : models) {
    std::vector<ModelPtr> versions = LoadModel(dir);
    if (!versions.empty()) models_[dir.filename().string()] = std::move(versions);
  }
  if (models_.empty()) {
    throw std::runtime_error("no model in " + root_ + " (expected NAME/VERSION/model.pt or model.pt2)");
  }
}

ModelPtr Repository::Find(const std::string& name, const std::string& version) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto model = models_.find(name);
  if (model == models_.end()) {
    std::vector<std::string> names;
    for (const auto& [n, versions] : models_) names.push_back(n);
    throw HttpError{404, "unknown model \"" + name + "\" (models: " + Listed(names) + ")"};
  }
  if (version.empty()) return model->second.back();
  std::vector<std::string> versions;
  for (const ModelPtr& v : model->second) {
    if (v->version == version) return v;
    versions.push_back(v->version);
  }
  throw HttpError{404, "model \"" + name + "\" has no version \"" + version +
                           "\" (versions: " + Listed(versions) + ")"};
}

std::vector<std::string> Repository::Versions(const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::vector<std::string> out;
  auto model = models_.find(name);
  if (model != models_.end()) {
    for (const ModelPtr& v : model->second) out.push_back(v->version);
  }
  return out;
}

std::vector<ModelPtr> Repository::All() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::vector<ModelPtr> out;
  for (const auto& [name, versions] : models_) out.insert(out.end(), versions.begin(), versions.end());
  return out;
}

void Repository::Load(const std::string& name) {
  std::lock_guard<std::mutex> one_at_a_time(changing_);
  const fs::path dir = fs::path(root_) / name;
  if (name.empty() || name == "." || name == ".." || !fs::is_directory(dir)) {
    throw HttpError{400, "no model directory \"" + name + "\" in " + root_};
  }
  std::vector<ModelPtr> versions;
  try {
    versions = LoadModel(dir);  // slow, and without the lock: requests go on
  } catch (const std::exception& e) {
    throw HttpError{400, SayLoadLibrary(e.what(), "tsb serve --library {}")};
  }
  if (versions.empty()) throw HttpError{400, dir.string() + ": no version directory (1, 2, ...)"};
  std::unique_lock<std::shared_mutex> lock(mutex_);
  models_[name] = std::move(versions);
  unavailable_.erase(name);
}

void Repository::Unload(const std::string& name) {
  std::lock_guard<std::mutex> one_at_a_time(changing_);
  std::unique_lock<std::shared_mutex> lock(mutex_);
  if (models_.erase(name) == 0) throw HttpError{404, "model \"" + name + "\" is not served"};
  unavailable_[name] = "unloaded";
}

Json Repository::Index() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  Json index = Json::array();
  for (const auto& [name, versions] : models_) {
    for (const ModelPtr& v : versions) {
      index.push_back({{"name", name}, {"version", v->version}, {"state", "READY"}});
    }
  }
  for (const auto& [name, reason] : unavailable_) {
    index.push_back({{"name", name}, {"state", "UNAVAILABLE"}, {"reason", reason}});
  }
  std::error_code error;  // directories added since: there, not loaded
  std::vector<std::string> added;
  for (const fs::directory_entry& e : fs::directory_iterator(root_, error)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && models_.count(name) == 0 && unavailable_.count(name) == 0) {
      added.push_back(name);
    }
  }
  std::sort(added.begin(), added.end());
  for (const std::string& name : added) {
    index.push_back({{"name", name}, {"state", "UNAVAILABLE"}, {"reason", "not loaded"}});
  }
  return index;
}

}  // namespace tsb::serve
