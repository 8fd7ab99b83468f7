// Operators by qualified name: every JIT operator registered under the name
// (dispatcher ops from TORCH_LIBRARY and aten, and the JIT's own prim-style
// overloads such as aten::add.int), the overload chosen by binding the
// arguments to each schema (no try-and-catch), then run on a Stack.
#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>

#include <torch/csrc/jit/runtime/operator.h>

#include "absl/strings/str_cat.h"
#include "core/plugins/library_loader.h"
#include "core/types/lock_free_map.h"
#include "core/runtime/runtime.h"

namespace tsb::runtime {
namespace {

struct Overload {
  std::shared_ptr<torch::jit::Operator> op;
  // mutable: Operation::operator() is not const, though calling it does not
  // change it (it holds the operator handle or a plain function).
  mutable torch::jit::Operation operation;
  std::unique_ptr<Signature> signature;
};

// The overloads of one name, prepared once. Tables are never freed: hosts
// keep the tsb_schema_info pointers (static storage, as the header says).
struct OpTable {
  c10::Symbol symbol;
  size_t registered = 0;  // LibTorch's count when built; a change rebuilds
  std::vector<Overload> overloads;
};

class OpTables {
 public:
  static OpTables& Global() {
    static OpTables* const tables = new OpTables();  // never destroyed
    return *tables;
  }

  // Lock-free when the table exists and LibTorch registered nothing new
  // under the name since (a plugin's TORCH_LIBRARY may add overloads).
  absl::StatusOr<const OpTable*> Get(absl::string_view name) {
    std::atomic<const OpTable*>* const* slot = slots_.Find(name);
    if (slot != nullptr) {
      const OpTable* table = (*slot)->load(std::memory_order_acquire);
      if (torch::jit::getAllOperatorsFor(table->symbol).size() == table->registered) {
        return table;
      }
    }
    return Build(name);
  }

 private:
  absl::StatusOr<const OpTable*> Build(absl::string_view name) {
    size_t sep = name.find("::");
    if (sep == absl::string_view::npos || sep == 0 || sep + 2 == name.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operator names are qualified, as in aten::add: got '", name, "'"));
    }
    auto table = std::make_unique<OpTable>();
    table->symbol = c10::Symbol::fromQualString(std::string(name));
    const auto& ops = torch::jit::getAllOperatorsFor(table->symbol);
    if (ops.empty()) {
      std::string hint;  // torchvision::nms: name the library to load
      if (LibraryForNamespace(name.substr(0, sep))) {
        hint = absl::StrCat(": ", MissingOperatorHint(name));
      }
      return absl::NotFoundError(absl::StrCat("no operator named ", name, hint));
    }
    table->registered = ops.size();
    std::string tuple_name =
        absl::StrCat("torch.return_types.", name.substr(sep + 2));
    for (const std::shared_ptr<torch::jit::Operator>& op : ops) {
      // Varargs and node-built operations (prim::TupleConstruct style)
      // need a graph node to run; they are not callable from a host.
      const c10::FunctionSchema& schema = op->schema();
      if (!op->hasOperation() || schema.is_vararg() || schema.is_varret()) continue;
      table->overloads.push_back({op, op->getOperation(),
                                  Signature::Make(schema, std::string(name), false,
                                                  tuple_name, /*describe=*/true)});
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const OpTable* published = table.get();
    owned_.push_back(std::move(table));
    std::atomic<const OpTable*>* const* slot = slots_.Find(name);
    if (slot == nullptr) {
      slot = slots_.Insert(std::string(name), new std::atomic<const OpTable*>(published))
                 .first;
    }
    (*slot)->store(published, std::memory_order_release);
    return published;
  }

  std::mutex mutex_;
  LockFreeMap<std::string, std::atomic<const OpTable*>*> slots_;
  std::vector<std::unique_ptr<OpTable>> owned_;
};

std::string OverloadList(const OpTable& table, const std::vector<absl::Status>& why) {
  std::string text;
  for (size_t i = 0; i < table.overloads.size(); ++i) {
    absl::StrAppend(&text, "\n  ", table.overloads[i].signature->text());
    if (i < why.size() && !why[i].ok()) {
      std::string path = PathOf(why[i]);
      absl::StrAppend(&text, "  [", path, path.empty() ? "" : ": ", why[i].message(), "]");
    }
  }
  return text;
}

}  // namespace

absl::StatusOr<size_t> NumOverloads(absl::string_view name) {
  TSB_ASSIGN_OR_RETURN(const OpTable* table, OpTables::Global().Get(name));
  return table->overloads.size();
}

absl::Status DescribeOverload(absl::string_view name, size_t i, tsb_schema_info* out) {
  TSB_ASSIGN_OR_RETURN(const OpTable* table, OpTables::Global().Get(name));
  if (i >= table->overloads.size()) {
    return absl::OutOfRangeError(absl::StrCat("overload index ", i, " out of range: ", name,
                                              " has ", table->overloads.size(),
                                              " overloads"));
  }
  table->overloads[i].signature->Describe(out);
  return absl::OkStatus();
}

absl::Status CallOperator(absl::string_view name, const HostArgs& args, tsb_any* out) {
  TSB_ASSIGN_OR_RETURN(const OpTable* table, OpTables::Global().Get(name));
  // Bind to every overload; the cheapest binding wins (exact types before
  // subtypes before conversions), then the one filling fewer defaults.
  // Overloads that cannot take the arguments say why, for the error.
  std::vector<absl::Status> rejected(table->overloads.size());
  const Overload* best = nullptr;
  Binding best_binding;
  std::vector<const Overload*> tied;
  for (size_t i = 0; i < table->overloads.size(); ++i) {
    const Overload& candidate = table->overloads[i];
    Binding binding;
    rejected[i] = Bind(*candidate.signature, args, &binding);
    if (!rejected[i].ok()) continue;
    bool better = best == nullptr || binding.cost < best_binding.cost ||
                  (binding.cost == best_binding.cost && binding.defaults < best_binding.defaults);
    if (better) {
      best = &candidate;
      best_binding = std::move(binding);
      tied.clear();
    } else if (binding.cost == best_binding.cost && binding.defaults == best_binding.defaults) {
      tied.push_back(&candidate);
    }
  }
  if (best == nullptr) {
    return TypeError(absl::StrCat("no overload of ", name, " accepts ", DescribeArgs(args),
                                  "; the overloads:", OverloadList(*table, rejected)));
  }
  if (!tied.empty()) {
    std::string text = absl::StrCat("ambiguous call of ", name, " with ", DescribeArgs(args),
                                    ": these overloads match equally well:\n  ",
                                    best->signature->text());
    for (const Overload* o : tied) absl::StrAppend(&text, "\n  ", o->signature->text());
    return absl::InvalidArgumentError(text);
  }
  const std::string& display = best->signature->display();
  TSB_RETURN_IF_ERROR(WithCall(best_binding.result_status, display));
  // C10 operators go through the dispatcher, so the tracer records them
  // while tsb_module_trace runs.
  TSB_RETURN_IF_ERROR(RunCallee(display, [&] { best->operation(best_binding.stack); }));
  return WithCall(TakeResult(*best->signature, best_binding, best_binding.stack, out), display);
}

}  // namespace tsb::runtime
