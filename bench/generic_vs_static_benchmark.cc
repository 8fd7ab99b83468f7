// Generic, registry-driven conversion against a hand-written static
// conversion of the same C++ type. The goal is at most 1.3×. Three types:
//
//   tensor_pair   std::tuple<Tensor, Tensor>, crossing as the record
//                 tsbridge.tensor_pair that plugins/tuple registers
//   hana_stats    struct Stats {int64_t count; double mean; Tensor values;},
//                 adapted with BOOST_HANA_ADAPT_STRUCT, crossing as the
//                 NamedTuple tsb_bench.Stats (bench/records_plugin.cc registers it)
//   dict_str_list_opt
//                 std::map<std::string, std::vector<std::optional<Tensor>>>
//                 with 16 keys × 8 elements, one in four None, crossing as
//                 Dict[str, List[Optional[Tensor]]]
//
// Each type is timed in two directions, and each direction has one generic
// and one static row. The static row is the baseline.
//
//  out: from a C++ value to a host that has consumed it. The host has read
//       every key's bytes, every int and float, and every None, and holds one
//       handle per tensor (which it then releases).
//       generic: tsb::ToIValueOf to the registered type (built as it, and
//                coerced only where the codec does not build exactly it),
//                then tsb::ToBoundary. The host then walks the value through
//                the C ABI alone with the host kit's walker
//                (tsbridge/host/kit.hpp): one tsb_any_flatten_borrowed (the
//                tensors lent), each leaf by its type's kind, each tensor
//                kept with tsb_any_keep and then released.
//       static:  the code a hand-written binding (lantern, torchexport) has
//                for this one type. It builds the IValue directly
//                (c10::ivalue::Tuple::createNamed with a cached type,
//                c10::Dict::insert, c10::List::push_back) and wraps it in one
//                handle. A hand-written accessor then unpacks it with
//                toTupleRef().elements() / toGenericDict() / toListRef(). It
//                gives the host the same leaves: ints and floats inline, key
//                bytes, and one handle per tensor.
//  in:  from the host's leaves (tensor handles, inline scalars, C strings)
//       to the C++ value.
//       generic: a record with tsb_tuple_new_typed, the dict in one
//                tsb_any_unflatten of its entries (typed, with the types a
//                host caches), then Codec<T>::FromIValue of the value read in
//                place. dict_str_list_opt/in/generic_builders builds a
//                tsb_list_new per key and tsb_dict_new;
//                dict_str_list_opt/in/generic_untyped builds List[Any] and
//                Dict[str, Any] and leaves the typing to tsb_any_coerce, as
//                a host without type info would.
//       static:  build the IValue directly from the leaves, wrap it in one
//                handle, then unpack it straight into T.
//
// Both sides use the same handles (tsb_object, made by the same function) and
// release them with tsb_any_release. The difference between the two rows of a
// pair is what genericity costs: registry lookups, virtual codec calls, type
// checks and coercion, the guard and argument checks on every C call, status
// plumbing, and the handles for inner containers that a generic walk needs
// and a hand-written accessor does not.
//
// Before timing, the binary checks outside the timed loops that all paths
// agree. Every out path must deliver the same sequence of leaves, and those
// must be the very tensors of the C++ value. Every in path must rebuild an
// equal value that shares those tensors.
//
// Two ways to time the rows (bench/paired_harness.{h,cc}):
//
//  --paired[=ROUNDS] (the figure of record, docs/benchmarks.md): each row
//       and its baseline are timed in alternating blocks in this one
//       process, and the figure is the median of the per-block ratios, with
//       their 25th–75th percentile beside it. Why: on a shared 2-core VM
//       the load changes over seconds (other builds start and stop, the
//       sibling vCPU's work slows this one's caches and its frequency), and
//       Google Benchmark times a row for 0.2 s and its baseline in another
//       0.2 s, so the two see different machines: per-run spreads of
//       ±15–25 % and runs 26 % apart. Here a block is about 1 ms of one
//       side (the iterations calibrated per side), the two sides back to
//       back (AB, then BA on the next round, so neither always goes first
//       into warm or cold caches), and each round visits every pair, so a
//       change of load lasting more than a few ms hits both sides of the
//       ratios it overlaps. The time is the thread's CPU time
//       (CLOCK_THREAD_CPUTIME_ID), so that time spent preempted does not
//       count; a block that an interrupt or a migration spoils gives one
//       outlying ratio, which the median of hundreds of rounds ignores.
//       That leaves what one process draws: its address layout (ASLR, the
//       heap) moves the generic out rows by up to 20 % from one process to
//       the next while the static rows stay put (cache-set or 4K aliasing;
//       seen at 2.57 and 3.12 for tensor_pair out, one run after the other,
//       each with a p25–p75 of ±4 %). So the binary starts
//       --paired_processes=N fresh processes of itself (default 5), each
//       timing ROUNDS rounds (default 100, after 10 to warm up), and reports
//       the median of their medians, the median of their quartiles as the
//       spread, and the lowest and highest process median. Blocks of 1 ms
//       (--paired_block_ms=MS); --paired_filter=TEXT times the pairs whose
//       name contains TEXT; --paired_markdown prints a Markdown table.
//  otherwise: Google Benchmark, one benchmark per row, the baseline named in
//       its label (vs=NAME) for bench/ratios.py, as scripts/bench.sh runs
//       every binary.
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>
#include <boost/hana/adapt_struct.hpp>

#include "bench_functions.h"  // the plugin functions, called directly as the baseline
#include "paired_harness.h"  // the rows, --paired and Google Benchmark timing
#include "core/value/convert.h"
#include "core/object/object.h"  // tsb::MakeHandle, tsb_object: the handles both sides make
#include "tests/testing/build_paths.h"
#include "tsbridge/plugin/codecs/all.hpp"
#include "tsbridge/host/kit.hpp"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

using tsb::testing::BuildPath;

namespace tsb_bench {

// The same struct as in bench/records_plugin.cc (checked in main).
struct Stats {
  int64_t count = 0;
  double mean = 0;
  at::Tensor values;
};

}  // namespace tsb_bench

BOOST_HANA_ADAPT_STRUCT(tsb_bench::Stats, count, mean, values);

namespace {

using at::Tensor;
using tsb_bench::Add;
using tsb_bench::Loop;
using tsb_bench::PairedOptions;
using tsb_bench::ParsePaired;
using tsb_bench::StatusOf;
using tsb_bench::RunPairedProcesses;
using tsb_bench::RunRows;
using tsb_bench::Stats;
using Pair = std::tuple<Tensor, Tensor>;
using OptList = std::vector<std::optional<Tensor>>;
using Dict = std::map<std::string, OptList>;

constexpr size_t kKeys = 16;
constexpr size_t kElements = 8;

// Type indices (interned once, as a host caches them) and, for the static
// side, the cached LibTorch types.
int32_t g_pair_index, g_stats_index, g_dict_index, g_list_index, g_opt_index;
c10::TypePtr g_pair_type, g_stats_type, g_list_type, g_opt_type;

// The C++ values that go out, and the host's leaves that come in.
Pair g_pair;
Stats g_stats;
Dict g_dict;
tsb_any g_pair_leaves[2];
tsb_any g_stats_leaves[3];
std::vector<std::string> g_keys;
tsb_any g_dict_leaves[kKeys][kElements];

// ------------------------------------------------------------- the host

// What the host does with each leaf. `trace` is set only for the checks.
struct Sink {
  std::vector<std::string>* trace = nullptr;
  int64_t total = 0;

  void Int(int64_t v) {
    total += v;
    if (trace) trace->push_back("int " + std::to_string(v));
  }
  void Float(double v) {
    total += static_cast<int64_t>(v);
    if (trace) trace->push_back("float " + std::to_string(v));
  }
  void Str(const char* data, size_t len) {
    total += static_cast<int64_t>(len);
    benchmark::DoNotOptimize(data);
    if (trace) trace->push_back("str " + std::string(data, len));
  }
  void None() {
    ++total;
    if (trace) trace->push_back("None");
  }
  // Takes the handle (the host would keep it; the benchmark releases it).
  void TensorHandle(tsb_any* handle) {
    ++total;
    if (trace) {
      absl::StatusOr<c10::IValue> iv = tsb::ToIValue(*handle);
      trace->push_back(iv.ok() && iv->isTensor() ? TensorId(iv->toTensor()) : "not a tensor");
    }
    tsb_any_release(handle);
  }
  static std::string TensorId(const Tensor& t) {
    char id[40];
    std::snprintf(id, sizeof(id), "tensor %p", static_cast<void*>(t.unsafeGetTensorImpl()));
    return id;
  }
};

// The generic host: the host kit's walker (tsbridge/host/kit.hpp), as the
// Python and R hosts walk: the value out whole in one tsb_any_flatten, then
// each leaf to the sink by the kind of its type. A tensor's handle is the
// host's to keep (retained; the benchmark releases it).
struct SinkHost {
  using Out = int;
  struct Entry : tsb::kit::TypeInfo {
    void Complete() {}
  };
  using Guard = tsb::kit::NestingGuard;
  Sink& sink;

  const Entry& Type(int32_t index) {
    static auto& types = *new tsb::kit::TypeCache<Entry>;
    return types.Get(index);
  }
  Out None() { return sink.None(), 0; }
  Out Bool(bool b) { return sink.Int(b), 0; }
  Out Int(int64_t i) { return sink.Int(i), 0; }
  Out UInt(uint64_t) { return 0; }  // no benchmark value is above INT64_MAX
  Out Float(double d) { return sink.Float(d), 0; }
  Out Complex(double, double) { return 0; }
  Out Str(const char* data, size_t len) { return sink.Str(data, len), 0; }
  static constexpr bool kBorrowTensors = true;  // the walk lends tensors (ABI 1.9)
  Out Tensor(const tsb_any& v) {
    tsb_any handle;  // the host's own reference, as the static side's
    tsb::kit::CheckStatus(tsb_any_keep(&v, &handle));
    return sink.TensorHandle(&handle), 0;
  }
  Out TorchEnum(int32_t, int64_t) { return 0; }
  Out IntList(const Entry&, const int64_t* data, size_t n) {
    for (size_t i = 0; i < n; ++i) sink.Int(data[i]);
    return 0;
  }
  Out FloatList(const Entry&, const double* data, size_t n) {
    for (size_t i = 0; i < n; ++i) sink.Float(data[i]);
    return 0;
  }
  Out BoolList(const Entry&, const bool* data, size_t n) {
    for (size_t i = 0; i < n; ++i) sink.Int(data[i]);
    return 0;
  }
  Out List(const Entry&, tsb::kit::Items<SinkHost>& items) {
    for (size_t i = 0; i < items.size(); ++i) items.Walk(i);
    return 0;
  }
  Out Tuple(const Entry& type, tsb::kit::Items<SinkHost>& items) { return List(type, items); }
  Out Dict(const Entry&, tsb::kit::DictItems<SinkHost>& items) {
    for (size_t i = 0; i < items.size(); ++i) {
      items.Key(i);
      items.Value(i);
    }
    return 0;
  }
  Out Enum(const Entry&, const tsb_any&) { return 0; }
  Out Object(const Entry&, const tsb_any&) { return 0; }
};

// Walks *v and releases it; the first error as a status.
tsb_status* Walk(tsb_any* v, Sink& sink) {
  SinkHost host{sink};
  tsb_status* s = nullptr;
  try {
    tsb::kit::Walk(host, *v);
  } catch (const tsb::kit::ConvertError& e) {
    s = tsb_status_new(e.code, e.Message().c_str());
  }
  tsb_any_release(v);
  return s;
}

// -------------------------------------------------------- generic paths

// Each generic path a function of its own, as each static one is, so that
// bench/instruction_counts.py counts it per call.
#define TSB_BENCH_PATH __attribute__((noinline))

// C++ value -> the registered type -> the host's walk.
template <typename T>
TSB_BENCH_PATH absl::Status GenericOut(const T& value, int32_t registered, Sink& sink) {
  TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* type, tsb::FindType(registered));
  // Built as the registered type, and not coerced again where the codec
  // builds exactly it (tsb::ToIValueOf).
  TSB_ASSIGN_OR_RETURN(c10::IValue iv, tsb::ToIValueOf(value, *type));
  tsb_any boundary;
  TSB_RETURN_IF_ERROR(tsb::ToBoundary(std::move(iv), *type, &boundary));
  return StatusOf(Walk(&boundary, sink));
}

// A built value -> tsb_any_coerce to the registered type -> C++. Takes *built.
template <typename T>
absl::StatusOr<T> GenericFinish(tsb_any* built, int32_t registered) {
  tsb_any coerced;
  tsb_status* s = tsb_any_coerce(built, registered, &coerced);
  tsb_any_release(built);
  TSB_RETURN_IF_ERROR(StatusOf(s));
  absl::StatusOr<c10::IValue> iv = tsb::ToIValue(coerced);
  absl::StatusOr<T> result = iv.ok() ? tsb::Codec<T>::FromIValue(*iv) : iv.status();
  tsb_any_release(&coerced);
  return result;
}

// A record from its leaves, built as the registered type at once
// (tsb_tuple_new_typed), then read into T.
template <typename T>
TSB_BENCH_PATH absl::StatusOr<T> GenericRecordIn(const tsb_any* leaves, size_t n, int32_t registered) {
  tsb_any record;
  TSB_RETURN_IF_ERROR(StatusOf(tsb_tuple_new_typed(registered, leaves, n, &record)));
  // Read in place, as the static side reads its handle.
  absl::StatusOr<T> result = tsb::Codec<T>::FromIValue(record.u.obj->value);
  tsb_any_release(&record);
  return result;
}

// The ABI 1.0 way: tsb_tuple_new, then tsb_any_coerce names it (two tuples).
template <typename T>
absl::StatusOr<T> GenericRecordInCoerce(const tsb_any* leaves, size_t n, int32_t registered) {
  tsb_any tuple;
  TSB_RETURN_IF_ERROR(StatusOf(tsb_tuple_new(leaves, n, &tuple)));
  return GenericFinish<T>(&tuple, registered);
}

// The dict from its leaves in one call (ABI 1.9): the host writes its
// entries in tsb_any_flatten's pre-order form (a container entry, then its
// items), borrowing every leaf, and tsb_any_unflatten builds the typed
// c10::Dict and its lists at once, with no handle per list.
TSB_BENCH_PATH absl::StatusOr<Dict> GenericDictUnflatten() {
  thread_local std::vector<tsb_any> entries;  // the host's buffer, kept
  entries.clear();
  auto open = [&](int32_t type, size_t count) {
    tsb_any e;
    e.type_index = type;
    e.flags = TSB_FLAG_CONTAINER;
    e.u.i = static_cast<int64_t>(count);
    entries.push_back(e);
  };
  open(g_dict_index, kKeys * (2 + kElements));
  for (size_t k = 0; k < kKeys; ++k) {
    entries.push_back(tsb_any_borrowed_str(g_keys[k].c_str()));
    open(g_list_index, kElements);
    entries.insert(entries.end(), g_dict_leaves[k], g_dict_leaves[k] + kElements);
  }
  tsb_any dict;
  TSB_RETURN_IF_ERROR(
      StatusOf(tsb_any_unflatten(g_dict_index, entries.data(), entries.size(), &dict)));
  const c10::IValue* value = &dict.u.obj->value;  // read in place, as the static side does
  absl::StatusOr<Dict> result = tsb::Codec<Dict>::FromIValue(*value);
  tsb_any_release(&dict);
  return result;
}

// The dict from its leaves: one tsb_list_new per key, then tsb_dict_new.
// Typed: element type Optional[Tensor], value type List[Optional[Tensor]].
// Untyped: List[Any] and Dict[str, Any], typed by tsb_any_coerce alone.
absl::StatusOr<Dict> GenericDictIn(bool typed) {
  tsb_any keys[kKeys], lists[kKeys];
  size_t built = 0;
  tsb_status* s = nullptr;
  for (; built < kKeys; ++built) {
    keys[built] = tsb_any_borrowed_str(g_keys[built].c_str());
    s = tsb_list_new(typed ? g_opt_index : TSB_TYPE_ANY, g_dict_leaves[built], kElements,
                     &lists[built]);
    if (s != nullptr) break;
  }
  tsb_any dict;
  if (s == nullptr) {
    s = tsb_dict_new(TSB_TYPE_STR, typed ? g_list_index : TSB_TYPE_ANY, keys, lists, kKeys,
                     &dict);
  }
  for (size_t i = 0; i < built; ++i) tsb_any_release(&lists[i]);
  TSB_RETURN_IF_ERROR(StatusOf(s));
  return GenericFinish<Dict>(&dict, g_dict_index);
}

// --------------------------------------------------------- static paths

// What a hand-written binding returns for each type: the IValue built
// directly, in one handle.
TSB_BENCH_PATH tsb_any StaticPairOut(const Pair& p) {
  return tsb::MakeHandle(g_pair_index,
                         c10::IValue(c10::ivalue::Tuple::createNamed(
                             {std::get<0>(p), std::get<1>(p)}, g_pair_type)));
}
TSB_BENCH_PATH tsb_any StaticStatsOut(const Stats& st) {
  return tsb::MakeHandle(g_stats_index,
                         c10::IValue(c10::ivalue::Tuple::createNamed(
                             {c10::IValue(st.count), c10::IValue(st.mean), st.values},
                             g_stats_type)));
}
TSB_BENCH_PATH tsb_any StaticDictOut(const Dict& d) {
  c10::impl::GenericDict dict(c10::StringType::get(), g_list_type);
  dict.reserve(d.size());
  for (const auto& [key, items] : d) {
    c10::impl::GenericList list(g_opt_type);
    list.reserve(items.size());
    for (const std::optional<Tensor>& item : items) {
      list.push_back(item ? c10::IValue(*item) : c10::IValue());
    }
    dict.insert(key, std::move(list));
  }
  return tsb::MakeHandle(g_dict_index, c10::IValue(std::move(dict)));
}

// The hand-written accessors that hand the host its leaves. Take *h.
void TensorLeaf(const c10::IValue& value, Sink& sink) {
  tsb_any leaf = tsb::MakeHandle(TSB_TYPE_TENSOR, value);
  sink.TensorHandle(&leaf);
}
TSB_BENCH_PATH void StaticPairRead(tsb_any* h, Sink& sink) {
  const auto& elements = h->u.obj->value.toTupleRef().elements();
  TensorLeaf(elements[0], sink);
  TensorLeaf(elements[1], sink);
  tsb_any_release(h);
}
TSB_BENCH_PATH void StaticStatsRead(tsb_any* h, Sink& sink) {
  const auto& elements = h->u.obj->value.toTupleRef().elements();
  sink.Int(elements[0].toInt());
  sink.Float(elements[1].toDouble());
  TensorLeaf(elements[2], sink);
  tsb_any_release(h);
}
TSB_BENCH_PATH void StaticDictRead(tsb_any* h, Sink& sink) {
  for (const auto& entry : h->u.obj->value.toGenericDict()) {
    const std::string& key = entry.key().toStringRef();
    sink.Str(key.data(), key.size());
    for (const c10::IValue& item : entry.value().toListRef()) {
      if (item.isNone()) {
        sink.None();
      } else {
        TensorLeaf(item, sink);
      }
    }
  }
  tsb_any_release(h);
}

// The way in: the IValue built directly from the host's leaves, in the
// handle the host passes on, unpacked straight into T.
const c10::IValue& LeafValue(const tsb_any& leaf) { return leaf.u.obj->value; }

TSB_BENCH_PATH Pair StaticPairIn() {
  tsb_any h = tsb::MakeHandle(
      g_pair_index, c10::IValue(c10::ivalue::Tuple::createNamed(
                        {LeafValue(g_pair_leaves[0]), LeafValue(g_pair_leaves[1])}, g_pair_type)));
  const auto& elements = h.u.obj->value.toTupleRef().elements();
  Pair result(elements[0].toTensor(), elements[1].toTensor());
  tsb_any_release(&h);
  return result;
}
TSB_BENCH_PATH Stats StaticStatsIn() {
  tsb_any h = tsb::MakeHandle(
      g_stats_index,
      c10::IValue(c10::ivalue::Tuple::createNamed(
          {c10::IValue(g_stats_leaves[0].u.i), c10::IValue(g_stats_leaves[1].u.d),
           LeafValue(g_stats_leaves[2])},
          g_stats_type)));
  const auto& elements = h.u.obj->value.toTupleRef().elements();
  Stats result{elements[0].toInt(), elements[1].toDouble(), elements[2].toTensor()};
  tsb_any_release(&h);
  return result;
}
TSB_BENCH_PATH Dict StaticDictIn() {
  c10::impl::GenericDict dict(c10::StringType::get(), g_list_type);
  dict.reserve(kKeys);
  for (size_t k = 0; k < kKeys; ++k) {
    c10::impl::GenericList list(g_opt_type);
    list.reserve(kElements);
    for (const tsb_any& leaf : g_dict_leaves[k]) {
      list.push_back(leaf.type_index == TSB_TYPE_NONE ? c10::IValue() : LeafValue(leaf));
    }
    dict.insert(g_keys[k], std::move(list));
  }
  tsb_any h = tsb::MakeHandle(g_dict_index, c10::IValue(std::move(dict)));
  Dict result;
  for (const auto& entry : h.u.obj->value.toGenericDict()) {
    OptList items;
    items.reserve(entry.value().toListRef().size());
    for (const c10::IValue& item : entry.value().toListRef()) {
      items.push_back(item.isNone() ? std::nullopt : std::optional<Tensor>(item.toTensor()));
    }
    result.emplace(entry.key().toStringRef(), std::move(items));
  }
  tsb_any_release(&h);
  return result;
}

// ------------------------------------------------------------- checks

bool SameTensor(const std::optional<Tensor>& a, const std::optional<Tensor>& b) {
  return a.has_value() == b.has_value() && (!a || a->is_same(*b));
}
bool Same(const Pair& a, const Pair& b) {
  return std::get<0>(a).is_same(std::get<0>(b)) && std::get<1>(a).is_same(std::get<1>(b));
}
bool Same(const Stats& a, const Stats& b) {
  return a.count == b.count && a.mean == b.mean && a.values.is_same(b.values);
}
bool Same(const Dict& a, const Dict& b) {
  if (a.size() != b.size()) return false;
  for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
    if (x->first != y->first || x->second.size() != y->second.size()) return false;
    for (size_t i = 0; i < x->second.size(); ++i) {
      if (!SameTensor(x->second[i], y->second[i])) return false;
    }
  }
  return true;
}

// The leaves the host must receive, in order, from the C++ value itself.
std::vector<std::string> Expected(const Pair& p) {
  return {Sink::TensorId(std::get<0>(p)), Sink::TensorId(std::get<1>(p))};
}
std::vector<std::string> Expected(const Stats& st) {
  return {"int " + std::to_string(st.count), "float " + std::to_string(st.mean),
          Sink::TensorId(st.values)};
}
std::vector<std::string> Expected(const Dict& d) {
  std::vector<std::string> out;
  for (const auto& [key, items] : d) {
    out.push_back("str " + key);
    for (const auto& item : items) out.push_back(item ? Sink::TensorId(*item) : "None");
  }
  return out;
}

template <typename T>
bool CheckOut(const char* what, const T& value, int32_t registered,
              tsb_any (*static_out)(const T&), void (*static_read)(tsb_any*, Sink&)) {
  std::vector<std::string> generic, hand;
  Sink g{&generic}, s{&hand};
  absl::Status st = GenericOut(value, registered, g);
  tsb_any h = static_out(value);
  static_read(&h, s);
  if (!st.ok() || generic != Expected(value) || hand != Expected(value)) {
    std::fprintf(stderr, "setup failed: %s out: %s\n", what,
                 st.ok() ? "the leaves differ" : st.ToString().c_str());
    return false;
  }
  return true;
}

template <typename T>
bool CheckIn(const char* what, const T& value, const absl::StatusOr<T>& generic,
             const T& hand) {
  if (!generic.ok() || !Same(*generic, value) || !Same(hand, value)) {
    std::fprintf(stderr, "setup failed: %s in: %s\n", what,
                 generic.ok() ? "the values differ" : generic.status().ToString().c_str());
    return false;
  }
  return true;
}

template <typename T>
Loop GenericOutLoop(const T* value, int32_t registered) {
  return [=](int64_t n) {
    Sink sink;
    for (int64_t i = 0; i < n; ++i) TSB_RETURN_IF_ERROR(GenericOut(*value, registered, sink));
    benchmark::DoNotOptimize(sink.total);
    return absl::OkStatus();
  };
}

template <typename T>
Loop StaticOutLoop(const T* value, tsb_any (*static_out)(const T&),
                   void (*static_read)(tsb_any*, Sink&)) {
  return [=](int64_t n) {
    Sink sink;
    for (int64_t i = 0; i < n; ++i) {
      tsb_any h = static_out(*value);
      static_read(&h, sink);
    }
    benchmark::DoNotOptimize(sink.total);
    return absl::OkStatus();
  };
}

template <typename T>
constexpr bool kIsStatusOr = false;
template <typename T>
constexpr bool kIsStatusOr<absl::StatusOr<T>> = true;

// `in` returns T (static) or absl::StatusOr<T> (generic).
template <typename F>
Loop InLoop(F in) {
  return [in](int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      auto result = in();
      if constexpr (kIsStatusOr<decltype(result)>) {
        if (!result.ok()) return result.status();
      }
      benchmark::DoNotOptimize(result);
    }
    return absl::OkStatus();
  };
}

// The same for a call that returns what the loop must release or a status.
template <typename F>
Loop CallLoop(F call) {
  return [call](int64_t n) {
    for (int64_t i = 0; i < n; ++i) TSB_RETURN_IF_ERROR(call());
    return absl::OkStatus();
  };
}

// Adds "<type>/out/static", "<type>/out/generic", "<type>/in/static" and
// "<type>/in/generic".
template <typename T, typename StaticIn, typename GenericIn>
void AddType(const std::string& type, const T* value, int32_t registered,
             tsb_any (*static_out)(const T&), void (*static_read)(tsb_any*, Sink&),
             StaticIn static_in, GenericIn generic_in) {
  const std::string out = type + "/out/", in = type + "/in/";
  Add(out + "static", "", StaticOutLoop(value, static_out, static_read));
  Add(out + "generic", out + "static", GenericOutLoop(value, registered));
  Add(in + "static", "", InLoop(static_in));
  Add(in + "generic", in + "static", InLoop(generic_in));
}

// ------------------------------------------------------------ set-up

bool Parse(const char* annotation, int32_t* out) {
  if (tsb_status* s = tsb_type_parse(annotation, out)) {
    std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  return true;
}

tsb_any TensorHandle(const Tensor& t) { return tsb::MakeHandle(TSB_TYPE_TENSOR, t); }

bool SetUp() {
  for (const char* path :
       {BuildPath("TSB_TUPLE_PLUGIN_PATH"), BuildPath("TSB_OPTIONAL_PLUGIN_PATH"),
        BuildPath("TSB_BENCH_RECORDS_PLUGIN")}) {
    if (tsb_status* s = tsb_plugin_load(path, nullptr)) {
      std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
      tsb_status_free(s);
      return false;
    }
  }
  if (!Parse("tsbridge.tensor_pair", &g_pair_index) ||
      !Parse("tsb_bench.Stats", &g_stats_index) ||
      !Parse("Dict[str, List[Optional[Tensor]]]", &g_dict_index) ||
      !Parse("List[Optional[Tensor]]", &g_list_index) ||
      !Parse("Optional[Tensor]", &g_opt_index)) {
    return false;
  }
  g_pair_type = (*tsb::FindType(g_pair_index))->type;
  g_stats_type = (*tsb::FindType(g_stats_index))->type;
  g_list_type = (*tsb::FindType(g_list_index))->type;
  g_opt_type = (*tsb::FindType(g_opt_index))->type;
  // The plugin registered the struct this binary was compiled with.
  if (*g_stats_type != *tsb::Codec<Stats>::type()) {
    std::fprintf(stderr, "setup failed: tsb_bench.Stats is registered as %s, not %s\n",
                 g_stats_type->annotation_str().c_str(),
                 tsb::Codec<Stats>::type()->annotation_str().c_str());
    return false;
  }

  g_pair = Pair(at::zeros({4}), at::ones({4}));
  g_stats = Stats{42, 0.5, at::arange(4)};
  for (size_t k = 0; k < kKeys; ++k) {
    char key[16];
    std::snprintf(key, sizeof(key), "key%02zu", k);
    g_keys.emplace_back(key);
    OptList& items = g_dict[key];
    for (size_t i = 0; i < kElements; ++i) {
      if ((k * kElements + i) % 4 == 3) {
        items.emplace_back(std::nullopt);
      } else {
        items.emplace_back(at::full({4}, static_cast<double>(k * kElements + i)));
      }
    }
  }
  g_pair_leaves[0] = TensorHandle(std::get<0>(g_pair));
  g_pair_leaves[1] = TensorHandle(std::get<1>(g_pair));
  g_stats_leaves[0] = tsb_any_int(g_stats.count);
  g_stats_leaves[1] = tsb_any_float(g_stats.mean);
  g_stats_leaves[2] = TensorHandle(g_stats.values);
  for (size_t k = 0; k < kKeys; ++k) {
    const OptList& items = g_dict.at(g_keys[k]);
    for (size_t i = 0; i < kElements; ++i) {
      g_dict_leaves[k][i] = items[i] ? TensorHandle(*items[i]) : tsb_any_none();
    }
  }

  return CheckOut("tensor_pair", g_pair, g_pair_index, StaticPairOut, StaticPairRead) &&
         CheckOut("hana_stats", g_stats, g_stats_index, StaticStatsOut, StaticStatsRead) &&
         CheckOut("dict_str_list_opt", g_dict, g_dict_index, StaticDictOut, StaticDictRead) &&
         CheckIn("tensor_pair", g_pair, GenericRecordIn<Pair>(g_pair_leaves, 2, g_pair_index),
                 StaticPairIn()) &&
         CheckIn("hana_stats", g_stats,
                 GenericRecordIn<Stats>(g_stats_leaves, 3, g_stats_index), StaticStatsIn()) &&
         CheckIn("dict_str_list_opt", g_dict, GenericDictUnflatten(), StaticDictIn()) &&
         CheckIn("dict_str_list_opt builders", g_dict, GenericDictIn(true), StaticDictIn()) &&
         CheckIn("dict_str_list_opt untyped", g_dict, GenericDictIn(false), StaticDictIn()) &&
         CheckIn("tensor_pair coerce", g_pair,
                 GenericRecordInCoerce<Pair>(g_pair_leaves, 2, g_pair_index), StaticPairIn()) &&
         CheckIn("hana_stats coerce", g_stats,
                 GenericRecordInCoerce<Stats>(g_stats_leaves, 3, g_stats_index),
                 StaticStatsIn());
}

void TearDown() {
  for (tsb_any& leaf : g_pair_leaves) tsb_any_release(&leaf);
  for (tsb_any& leaf : g_stats_leaves) tsb_any_release(&leaf);
  for (auto& row : g_dict_leaves) {
    for (tsb_any& leaf : row) tsb_any_release(&leaf);
  }
}

// A plugin function through tsb_function_call (decode, bind by the prepared
// signature, the SDK's conversions both ways, the result as a new handle,
// released) against the same C++ function called directly on the tensors.
// A plugin function called through tsb_function_call, its result released.
absl::Status CallAbi(const char* name) {
  tsb_any out;
  TSB_RETURN_IF_ERROR(
      StatusOf(tsb_function_call(name, ::tsb::CallArgs(g_pair_leaves, 2).get(), &out)));
  tsb_any_release(&out);
  return absl::OkStatus();
}

void AddFunctionRows() {
  Add("plugin_function/add/direct", "", InLoop([] {
        return tsb_bench::Add(std::get<0>(g_pair), std::get<1>(g_pair));
      }));
  Add("plugin_function/add/abi", "plugin_function/add/direct",
      CallLoop([] { return CallAbi("tsb_bench::add"); }));
  Add("plugin_function/sum_and_diff/direct", "", InLoop([] {
        return tsb_bench::SumAndDiff(std::get<0>(g_pair), std::get<1>(g_pair));
      }));
  Add("plugin_function/sum_and_diff/abi", "plugin_function/sum_and_diff/direct",
      CallLoop([] { return CallAbi("tsb_bench::sum_and_diff"); }));
}

// The functions' results through the ABI equal the direct calls', and the
// pair crosses as the record it declares, field names and all.
bool CheckFunctions() {
  tsb_any sum{}, pair{};
  tsb_status* s =
      tsb_function_call("tsb_bench::add", ::tsb::CallArgs(g_pair_leaves, 2).get(), &sum);
  if (s == nullptr) {
    s = tsb_function_call("tsb_bench::sum_and_diff", ::tsb::CallArgs(g_pair_leaves, 2).get(),
                          &pair);
  }
  bool ok = s == nullptr && pair.type_index == g_pair_index &&
            tsb::ToIValue(sum)->toTensor().equal(tsb_bench::Add(std::get<0>(g_pair),
                                                                std::get<1>(g_pair))) &&
            tsb::ToIValue(pair)->toTupleRef().type()->annotation_str() == "tsbridge.tensor_pair";
  if (!ok) {
    std::fprintf(stderr, "setup failed: plugin functions: %s\n",
                 s != nullptr ? tsb_status_get_message(s) : "wrong results");
  }
  tsb_status_free(s);
  tsb_any_release(&sum);
  tsb_any_release(&pair);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const PairedOptions paired = ParsePaired(&argc, argv);
  if (paired.on && !paired.child) return RunPairedProcesses(paired);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!SetUp() || !CheckFunctions()) return 1;

  AddType("tensor_pair", &g_pair, g_pair_index, StaticPairOut, StaticPairRead, StaticPairIn,
          [] { return GenericRecordIn<Pair>(g_pair_leaves, 2, g_pair_index); });
  AddType("hana_stats", &g_stats, g_stats_index, StaticStatsOut, StaticStatsRead, StaticStatsIn,
          [] { return GenericRecordIn<Stats>(g_stats_leaves, 3, g_stats_index); });
  AddType("dict_str_list_opt", &g_dict, g_dict_index, StaticDictOut, StaticDictRead,
          StaticDictIn, [] { return GenericDictUnflatten(); });
  Add("dict_str_list_opt/in/generic_builders", "dict_str_list_opt/in/static",
      InLoop([] { return GenericDictIn(true); }));
  Add("dict_str_list_opt/in/generic_untyped", "dict_str_list_opt/in/static",
      InLoop([] { return GenericDictIn(false); }));
  Add("tensor_pair/in/generic_coerce", "tensor_pair/in/static",
      InLoop([] { return GenericRecordInCoerce<Pair>(g_pair_leaves, 2, g_pair_index); }));
  Add("hana_stats/in/generic_coerce", "hana_stats/in/static",
      InLoop([] { return GenericRecordInCoerce<Stats>(g_stats_leaves, 3, g_stats_index); }));
  AddFunctionRows();

  const int rc = RunRows(paired);
  benchmark::Shutdown();
  TearDown();
  if (size_t live = ::tsb::LiveHandles(); live != 0) {
    std::fprintf(stderr, "WARNING: %lld boundary handles leaked\n", static_cast<long long>(live));
    return 1;
  }
  return rc;
}
