// Schema-based argument binding, shared by module methods, object methods
// and dispatcher operators: host values are matched to a FunctionSchema's
// parameters (by position, then by keyword, then defaults), each coerced to
// its declared type, and the results are converted by the declared return
// types. Light header: no torch/script.h.
#ifndef TSBRIDGE_CORE_CALL_CALL_H_
#define TSBRIDGE_CORE_CALL_CALL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb::call {

// One parameter (or return) of a schema, its type interned once.
struct Param {
  std::string name;
  c10::TypePtr type;               // the real type: ScalarType, not int
  const TypeInfo* info = nullptr;  // nullptr: generic, or no codec serves it
  absl::Status unsupported;        // why info is nullptr (when not generic)
  bool generic = false;            // has free type variables (t[]): per call
  c10::optional<c10::IValue> default_value;
  std::string default_json;        // the default in docs/json.md's form, or ""
  bool kwarg_only = false;
  // A fixed-size list (int[2]): TorchScript broadcasts one scalar to it.
  int32_t list_size = 0;
};

// A schema prepared for calls: parameters without `self`, the types interned
// once, and (on request) the tsb_schema_info a host reads. Immutable after
// Make, so many threads may bind against one Signature.
class Signature {
 public:
  // `display` names the callee in errors ("forward", "aten::add");
  // `skip_self` drops a method's first argument; `tuple_name` is the
  // qualified name of the NamedTuple built when every one of several returns
  // is named ("torch.return_types.max"); `describe` also builds the host's
  // tsb_schema_info; `annotation_text` writes text() with TorchScript's
  // annotations ("List[int] idx", "-> torchsparse.tensor_pair", defaults in
  // docs/json.md's form) instead of LibTorch's schema syntax ("int[] idx").
  static std::unique_ptr<Signature> Make(const c10::FunctionSchema& schema,
                                         std::string display, bool skip_self,
                                         std::string tuple_name, bool describe,
                                         bool annotation_text = false);

  const std::string& display() const { return display_; }
  const std::string& text() const { return text_; }  // the schema as printed
  const std::vector<Param>& params() const { return params_; }
  size_t num_positional() const { return num_positional_; }

  // Fills *out with pointers into this Signature (requires describe=true).
  void Describe(tsb_schema_info* out) const;

  // The boundary type of the result: one return's type, a Tuple (or a
  // NamedTuple) of several, None for none. nullptr when generic or
  // unsupported (see result_status).
  const TypeInfo* result() const { return result_; }
  const absl::Status& result_status() const { return result_status_; }
  bool result_generic() const { return result_generic_; }
  const c10::TypePtr& result_type() const { return result_type_; }
  size_t num_returns() const { return returns_.size(); }

 private:
  std::string display_;
  std::string text_;
  std::string name_, overload_;
  std::vector<Param> params_;
  std::vector<Param> returns_;
  size_t num_positional_ = 0;
  c10::TypePtr result_type_;
  const TypeInfo* result_ = nullptr;
  absl::Status result_status_;
  bool result_generic_ = false;
  // Host view (describe=true): strings owned here, pointed to by the infos.
  std::vector<std::string> annotations_;
  std::vector<tsb_argument_info> arg_infos_, return_infos_;
};

// A host argument decoded once: its IValue and the type it carries at the
// boundary (a dtype stays a dtype, though its IValue is an int). A handle's
// IValue is borrowed, not copied: the host holds the handle for the call.
struct HostArg {
  const c10::IValue& value() const { return borrowed != nullptr ? *borrowed : own; }
  const c10::IValue* borrowed = nullptr;  // a handle's own IValue
  c10::IValue own;                        // an inline value, decoded
  const TypeInfo* type = nullptr;
  // A well-formed value this LibTorch holds no IValue for (a uint before
  // 2.9): refused by Bind, which names the parameter it was given for.
  absl::Status unheld;
};
struct HostArgs {
  absl::InlinedVector<HostArg, 6> positional;
  std::vector<std::pair<absl::string_view, HostArg>> keywords;
};
// Decodes into *out in place: HostArgs keeps its arguments inline, so
// returning one by value would move (and destroy) each of them again.
absl::Status DecodeArgs(const tsb_any* args, size_t num_args, const char* const* kw_names,
                        const tsb_any* kw_values, size_t num_kwargs, HostArgs* out);

// "(Tensor, str, alpha=int)": what an overload error says it was given.
std::string DescribeArgs(const HostArgs& args);

// The arguments bound to one signature, ready to run.
struct Binding {
  // The stack's buffer is the thread's spare one when free (left by the
  // thread's last call), and goes back to it: a call allocates no stack.
  Binding();
  ~Binding();
  Binding(Binding&&) = default;
  Binding& operator=(Binding&&) = default;

  torch::jit::Stack stack;         // self (if any), then every parameter
  int cost = 0;                    // 0 per exact type, 1 per subtype, 2 per conversion
  int defaults = 0;                // parameters filled by their default
  const TypeInfo* result = nullptr;  // the result type, generic ones resolved
  absl::Status result_status;       // why result is nullptr
  // In: false when a failure's text will never be read (an overload that
  // another one may beat): structural refusals then build no message.
  bool explain = true;
  // Out, on failure: a conversion refused this value, and another value of
  // the same types might pass (List[Any] to List[int], an int to a dtype).
  // `cost` then counts that conversion: a lower bound had it passed.
  bool value_dependent = false;
};

// Binds `args` to `sig`, appending to out->stack (which may already hold
// self). Errors carry the argument's path but not the call ("argument 'p' →
// [1]: expected int, got str"); callers add it with WithCall.
absl::Status Bind(const Signature& sig, const HostArgs& args, Binding* out);

// Pops the returns `sig` declares off `stack` and converts them (several
// become one Tuple / NamedTuple). A new reference in *out.
absl::Status TakeResult(const Signature& sig, const Binding& binding,
                        torch::jit::Stack& stack, tsb_any* out);

}  // namespace tsb::call

#endif  // TSBRIDGE_CORE_CALL_CALL_H_
