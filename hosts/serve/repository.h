// The model repository `tsb serve` serves: REPOSITORY/NAME/VERSION/model.pt
// (a TorchScript module) or model.pt2 (an AOTInductor package), VERSION a
// positive integer, and an optional REPOSITORY/NAME/config.json declaring
// tensor datatypes and shapes the schema cannot say (docs/serve.md). Each
// model version is loaded once, at start, through the C ABI, and its
// forward's schema read into what the protocol shows (names, datatypes,
// shapes) and what a call is typed by (the host kit's call plan).
#ifndef TSBRIDGE_HOSTS_SERVE_REPOSITORY_H_
#define TSBRIDGE_HOSTS_SERVE_REPOSITORY_H_

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "tsbridge/host/call_plan.hpp"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::serve {

// Objects keep their order: a Dict keeps its insertion order.
using Json = nlohmann::ordered_json;

// A failure with the HTTP status it is answered with and its message (the
// protocol's error body, {"error": message}).
struct HttpError {
  int status = 400;
  std::string message;
};

// How the protocol sees one input or output (its $metadata_tensor): a
// tensor ("FP32", ...; "ANY" where nothing says which), BYTES for str and
// List[str], or tsbridge's "JSON" datatype for every other kind, whose
// value travels as typed JSON in parameters.tsbridge_json.
struct TensorSpec {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;  // -1 where a dimension is free
  std::string annotation;      // the schema's type, "Dict[str, Tensor]"
  int32_t type = TSB_TYPE_ANY;
  bool declared = false;       // datatype and shape from config.json
  bool has_default = false;    // inputs: may be left out
};

// The protocol's name of a dtype tsbridge's JSON names ("float32" → "FP32");
// empty when the protocol has none (complex64, ...).
std::string DatatypeOfDtype(const std::string& dtype);
// The other way; empty for a datatype tsbridge has no dtype for (BYTES).
std::string DtypeOfDatatype(const std::string& datatype);
// A type with an Optional around it unwrapped (Optional[Tensor] → Tensor).
int32_t Unwrapped(int32_t type);
tsb_kind KindOf(int32_t type);  // TSB_KIND_INVALID for an unknown index
// tsb_type_get_info's answer (its pointers live as long as the process).
tsb_type_info TypeInfoOf(int32_t type);

// One version of one model, loaded.
struct ModelVersion {
  std::string name;
  std::string version;  // "1"
  std::string path;     // the model.pt or model.pt2 file
  std::string platform; // "pytorch_libtorch" or "torch_aoti"
  Module module;
  size_t method = 0;    // forward's index (tsb_module_call_method)
  kit::CallPlan plan;
  std::vector<TensorSpec> inputs;   // forward's arguments, in order
  std::vector<TensorSpec> outputs;  // the result; a Tuple's items each one
  bool split_result = false;        // the result is a Tuple or NamedTuple
  // config.json's "grad_mode": calls record autograd's graph (a forward
  // that differentiates inside); false by default, as torch.no_grad().
  bool grad_mode = false;

  explicit ModelVersion(Module m) : module(std::move(m)) {}
  // The argument whose protocol name is `name` (its own, or INPUT__n).
  const TensorSpec* FindInput(const std::string& name) const;
};

using ModelPtr = std::shared_ptr<const ModelVersion>;

// The models of a repository, by name, each with its versions (ascending).
// Served models are shared: a request holds its model while it runs, so an
// unload or a load never ends a call in flight. Safe on many threads.
class Repository {
 public:
  // Loads every model version under `root`; throws std::runtime_error
  // naming the file and why.
  explicit Repository(std::string root);

  // The model `name` at `version`, or its highest version when `version` is
  // empty; a 404 HttpError naming what there is otherwise.
  ModelPtr Find(const std::string& name, const std::string& version) const;
  // The versions of a model, ascending, as strings; none when not served.
  std::vector<std::string> Versions(const std::string& name) const;
  std::vector<ModelPtr> All() const;

  // The repository extension. Load reads REPOSITORY/NAME again, every
  // version, and serves it instead of what was (a 400 HttpError, and what
  // was served stays, if a file does not load); Unload stops serving NAME
  // (404 if it is not served); Index lists every model directory.
  void Load(const std::string& name);
  void Unload(const std::string& name);
  Json Index() const;

 private:
  const std::string root_;
  mutable std::shared_mutex mutex_;  // models_, unavailable_
  std::mutex changing_;              // one Load or Unload at a time
  std::map<std::string, std::vector<ModelPtr>> models_;
  std::map<std::string, std::string> unavailable_;  // not served: why
};

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_REPOSITORY_H_
