// Operators by qualified name: every JIT operator registered under the name
// (dispatcher ops from TORCH_LIBRARY and aten, and the JIT's own prim-style
// overloads such as aten::add.int), the overload chosen by binding the
// arguments to each schema (no try-and-catch), then run on a Stack.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/runtime/operator.h>

#include "absl/strings/str_cat.h"
#include "core/plugins/deferred_plugins.h"
#include "core/runtime/library_loader.h"
#include "core/types/lock_free_map.h"
#include "core/runtime/runtime.h"

namespace tsb::runtime {

using call::Bind;
using call::Binding;
using call::DescribeArgs;
using call::HostArg;
using call::HostArgs;
using call::Signature;
using call::TakeResult;

namespace {

struct Overload {
  std::shared_ptr<torch::jit::Operator> op;
  // mutable: Operation::operator() is not const, though calling it does not
  // change it (it holds the operator handle or a plain function).
  mutable torch::jit::Operation operation;
  std::unique_ptr<Signature> signature;
  // Why a host cannot call it (listed and described all the same); empty
  // when it can.
  std::string uncallable;
};

// Varargs and node-built operations (prim::TupleConstruct style) need a
// graph node to run: why one cannot be called from a host, or "".
std::string WhyUncallable(const torch::jit::Operator& op) {
  const c10::FunctionSchema& schema = op.schema();
  std::string why;
  if (schema.is_vararg()) {
    why = "takes a variable number of arguments, which tsb_op_call cannot bind";
  } else if (schema.is_varret()) {
    why = "returns a variable number of values, which tsb_op_call cannot take";
  } else if (!op.hasOperation()) {
    why = "has no operation of its own: LibTorch builds one from each graph node";
  } else {
    return why;
  }
  return absl::StrCat(why, "; LibTorch runs it only inside a TorchScript graph: write the "
                           "call in TorchScript (tsb_module_compile) and call that");
}

// The overload chosen for one shape of call (the arguments' type indices
// and keyword names), and the overloads a value could still make better:
// those refused only by a conversion whose outcome depends on the value
// (tsb::runtime::Binding::value_dependent) at no more than the chosen cost.
struct Choice {
  size_t overload = 0;
  std::vector<size_t> contenders;
};

// The overloads of one name, prepared once. Tables are never freed: hosts
// keep the tsb_schema_info pointers (static storage, as the header says).
struct OpTable {
  c10::Symbol symbol;
  size_t registered = 0;  // LibTorch's count when built; a change rebuilds
  // The registration generation at which `registered` was last seen right.
  mutable std::atomic<uint64_t> checked_at{0};
  std::vector<Overload> overloads;
  // Choices made so far, by CallKey. Insert-only; writers hold the mutex.
  mutable LockFreeMap<std::string, Choice, 64> choices;
  mutable std::mutex choices_mutex;
};

// Counts the operators LibTorch's dispatcher registers and removes (a
// plugin's or an operator library's TORCH_LIBRARY, anything torch::Library
// defines). The JIT registry learns of the same operators from the same
// events, so while the count stands still no table can be stale.
class RegistrationCounter final : public c10::OpRegistrationListener {
 public:
  explicit RegistrationCounter(std::atomic<uint64_t>* generation) : generation_(generation) {}
  void onOperatorRegistered(const c10::OperatorHandle&) override { Bump(); }
  void onOperatorDeregistered(const c10::OperatorHandle&) override { Bump(); }

 private:
  void Bump() { generation_->fetch_add(1, std::memory_order_acq_rel); }
  std::atomic<uint64_t>* generation_;
};

class OpTables {
 public:
  static OpTables& Global() {
    static OpTables* const tables = new OpTables();  // never destroyed
    return *tables;
  }

  // Lock-free when the table exists and the dispatcher registered nothing
  // since it was last checked. Otherwise LibTorch's registry is asked (it
  // takes a mutex: once per registration, not once per call) whether the
  // name gained or lost overloads, and the table is rebuilt if it did.
  // Operators registered with torch::jit::RegisterOperators alone (no
  // dispatcher schema) do not move the count: a table built before such a
  // registration under the same name does not see it.
  absl::StatusOr<const OpTable*> Get(absl::string_view name) {
    std::atomic<const OpTable*>* const* slot = slots_.Find(name);
    if (slot != nullptr) {
      const OpTable* table = (*slot)->load(std::memory_order_acquire);
      const uint64_t now = generation_.load(std::memory_order_acquire);
      if (table->checked_at.load(std::memory_order_acquire) == now) return table;
      if (torch::jit::getAllOperatorsFor(table->symbol).size() == table->registered) {
        table->checked_at.store(now, std::memory_order_release);
        return table;
      }
    }
    return Build(name);
  }

 private:
  OpTables()
      : listening_(c10::Dispatcher::singleton().addRegistrationListener(
            std::make_unique<RegistrationCounter>(&generation_))) {}

  absl::StatusOr<const OpTable*> Build(absl::string_view name) {
    size_t sep = name.find("::");
    if (sep == absl::string_view::npos || sep == 0 || sep + 2 == name.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operator names are qualified, as in aten::add: got '", name, "'"));
    }
    auto table = std::make_unique<OpTable>();
    table->symbol = c10::Symbol::fromQualString(std::string(name));
    // Read before the registry: a registration in between leaves the table
    // one generation behind, so the next Get checks it again.
    table->checked_at.store(generation_.load(std::memory_order_acquire),
                            std::memory_order_relaxed);
    auto ops = torch::jit::getAllOperatorsFor(table->symbol);
    if (ops.empty()) {
      // A deferred plugin whose TORCH_LIBRARY registers the namespace.
      TSB_ASSIGN_OR_RETURN(bool loaded, plugins::DeferredPlugins::Global().ProvideNamesIn(name));
      if (loaded) ops = torch::jit::getAllOperatorsFor(table->symbol);
    }
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
      std::string why = WhyUncallable(*op);
      // An uncallable one is never run: a stand-in that does nothing.
      torch::jit::Operation operation =
          why.empty() ? op->getOperation() : torch::jit::Operation([](torch::jit::Stack&) {});
      table->overloads.push_back({op, std::move(operation),
                                  Signature::Make(op->schema(), std::string(name), false,
                                                  tuple_name, /*describe=*/true),
                                  std::move(why)});
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

  std::atomic<uint64_t> generation_{0};
  c10::RegistrationHandleRAII listening_;  // never destroyed, like the tables
  std::mutex mutex_;
  LockFreeMap<std::string, std::atomic<const OpTable*>*> slots_;
  std::vector<std::unique_ptr<OpTable>> owned_;
};

std::string OverloadList(const OpTable& table, const std::vector<absl::Status>& why) {
  std::string text;
  for (size_t i = 0; i < table.overloads.size(); ++i) {
    absl::StrAppend(&text, "\n  ", table.overloads[i].signature->text());
    if (!table.overloads[i].uncallable.empty()) {
      absl::StrAppend(&text, "  [", table.overloads[i].uncallable, "]");
    } else if (i < why.size() && !why[i].ok()) {
      std::string path = PathOf(why[i]);
      absl::StrAppend(&text, "  [", path, path.empty() ? "" : ": ", why[i].message(), "]");
    }
  }
  return text;
}

}  // namespace

std::vector<std::string> OperatorNames() {
  std::vector<std::string> names;
  for (const std::shared_ptr<torch::jit::Operator>& op : torch::jit::getAllOperators()) {
    names.push_back(op->schema().name());
  }
  return names;
}

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
  const Overload& overload = table->overloads[i];
  overload.signature->Describe(out);
  out->not_callable = overload.uncallable.empty() ? nullptr : overload.uncallable.c_str();
  return absl::OkStatus();
}

namespace {

// What decides the overload, value aside: the type index of each positional
// argument, then each keyword's name and type index. Type indices are
// stable for the life of the process, so the key is too.
std::string CallKey(const HostArgs& args) {
  std::string key;
  key.reserve(4 * args.positional.size() + 16 * args.keywords.size());
  auto append_index = [&key](int32_t index) {
    key.append(reinterpret_cast<const char*>(&index), sizeof(index));
  };
  for (const HostArg& a : args.positional) append_index(a.type->index);
  for (const auto& [name, a] : args.keywords) {
    key.push_back('\0');
    key.append(name.data(), name.size());
    key.push_back('\0');
    append_index(a.type->index);
  }
  return key;
}

bool Better(const Binding& a, const Binding& b) {
  return a.cost < b.cost || (a.cost == b.cost && a.defaults < b.defaults);
}

// Binds every overload quietly; the cheapest binding wins (exact types
// before subtypes before conversions), then the one filling fewer defaults,
// then TorchScript's order. Builds error text only when no overload takes
// the arguments.
absl::Status Choose(absl::string_view name, const OpTable& table, const HostArgs& args,
                    Choice* choice, Binding* best_binding) {
  const Overload* best = nullptr;
  std::vector<std::pair<size_t, int>> refused_by_value;  // overload, cost bound
  for (size_t i = 0; i < table.overloads.size(); ++i) {
    if (!table.overloads[i].uncallable.empty()) continue;
    Binding binding;
    binding.explain = false;
    if (!Bind(*table.overloads[i].signature, args, &binding).ok()) {
      if (binding.value_dependent) refused_by_value.emplace_back(i, binding.cost);
      continue;
    }
    // A tie goes to the first overload in TorchScript's order: dispatcher
    // operators before the JIT's own, each in registration order (what
    // torch.ops and the TorchScript compiler try first).
    const bool wins = best == nullptr || Better(binding, *best_binding) ||
                      (!Better(*best_binding, binding) && table.overloads[i].op->isC10Op() &&
                       !best->op->isC10Op());
    if (wins) {
      best = &table.overloads[i];
      choice->overload = i;
      *best_binding = std::move(binding);
    }
  }
  if (best == nullptr) {
    // Not one a host can call: the first one's reason.
    auto callable = std::find_if(table.overloads.begin(), table.overloads.end(),
                                 [](const Overload& o) { return o.uncallable.empty(); });
    if (callable == table.overloads.end()) {
      const Overload& first = table.overloads.front();
      return absl::UnimplementedError(
          absl::StrCat(first.signature->text(), " ", first.uncallable));
    }
    // Every overload refused: bind again, this time saying why.
    std::vector<absl::Status> rejected;
    for (const Overload& o : table.overloads) {
      Binding binding;
      if (o.uncallable.empty()) rejected.push_back(Bind(*o.signature, args, &binding));
      else rejected.push_back(absl::OkStatus());
    }
    return TypeError(absl::StrCat("no overload of ", name, " accepts ", DescribeArgs(args),
                                  "; the overloads:", OverloadList(table, rejected)));
  }
  for (const auto& [i, cost] : refused_by_value) {
    if (cost <= best_binding->cost) choice->contenders.push_back(i);
  }
  return absl::OkStatus();
}

// The cached choice for this call, checked: the chosen overload binds these
// values, and no contender does (else another value might win, or tie).
bool BindCached(const Choice& choice, const OpTable& table, const HostArgs& args,
                Binding* binding) {
  binding->explain = false;
  if (!Bind(*table.overloads[choice.overload].signature, args, binding).ok()) return false;
  for (size_t i : choice.contenders) {
    Binding other;
    other.explain = false;
    if (Bind(*table.overloads[i].signature, args, &other).ok()) return false;
  }
  return true;
}

}  // namespace

absl::Status CallOperator(absl::string_view name, const HostArgs& args, tsb_any* out) {
  TSB_ASSIGN_OR_RETURN(const OpTable* table, OpTables::Global().Get(name));
  std::string key = CallKey(args);
  const Choice* cached = table->choices.Find(key);
  Binding binding;
  size_t chosen = 0;
  if (cached != nullptr && BindCached(*cached, *table, args, &binding)) {
    chosen = cached->overload;
  } else {
    // A miss, or a hit these values refute: choose among all overloads.
    binding = Binding();
    Choice choice;
    TSB_RETURN_IF_ERROR(Choose(name, *table, args, &choice, &binding));
    chosen = choice.overload;
    if (cached == nullptr) {
      std::lock_guard<std::mutex> lock(table->choices_mutex);
      table->choices.Insert(std::move(key), std::move(choice));
    }
  }
  const Overload& best = table->overloads[chosen];
  // C10 operators go through the dispatcher, so the tracer records them
  // while tsb_module_trace runs. Named by the call once, at the end.
  absl::Status status = binding.result_status;
  if (status.ok()) {
    status = CatchAll([&] { best.operation(binding.stack); }, /*from_torch=*/true);
  }
  if (status.ok()) status = TakeResult(*best.signature, binding, binding.stack, out);
  return WithCall(std::move(status), best.signature->display());
}

}  // namespace tsb::runtime
