// Dict[str, Tensor] of 100 entries: IValue -> boundary -> IValue, against a
// plain C++ copy of the same dict (c10::Dict::copy, which inserts every entry
// into a new dict). Two round trips:
//  - coerce:  tsb_any_coerce to the parsed "Dict[str, Tensor]"; the dict already
//             has that type, so the result shares it (no entry is touched);
//  - rebuild: what a host binding does: tsb_dict_get_items, then tsb_dict_new from
//             the 100 keys and values, every entry crossing twice.
// Tensors never copy in either: only the dicts and the str keys are rebuilt.
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/value/convert.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace {

constexpr size_t kEntries = 100;
const char* const kBaseline = "dict/copy";

using tsb_bench::Ok;
bool Ok(benchmark::State& state, const absl::Status& s) {
  if (s.ok()) return true;
  state.SkipWithError(s.ToString().c_str());
  return false;
}

c10::impl::GenericDict MakeDict() {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  for (size_t i = 0; i < kEntries; ++i) {
    dict.insert("key" + std::to_string(i), at::zeros({16}));
  }
  return dict;
}
c10::IValue g_dict;  // built in main, after LibTorch's own static set-up
int32_t g_dict_type = TSB_TYPE_INVALID;

// Host-style rebuild; `out` receives the new dict as an IValue.
absl::Status Rebuild(c10::IValue* out) {
  tsb_any dict;
  if (absl::Status st = tsb::ToBoundary(g_dict, &dict); !st.ok()) return st;
  tsb_any keys[kEntries], values[kEntries], rebuilt = tsb_any_none();
  size_t n = 0;
  absl::Status result;
  tsb_status* s = tsb_any_len(&dict, &n);
  if (s == nullptr && n != kEntries) result = absl::InternalError("tsb_any_len is wrong");
  if (s == nullptr && result.ok()) s = tsb_dict_get_items(&dict, n, keys, values);
  if (s == nullptr && result.ok()) {
    s = tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_TENSOR, keys, values, n, &rebuilt);
    for (size_t i = 0; i < n; ++i) {
      tsb_any_release(&keys[i]);
      tsb_any_release(&values[i]);
    }
  }
  if (s == nullptr && result.ok()) {
    absl::StatusOr<c10::IValue> iv = tsb::ToIValue(rebuilt);
    if (iv.ok()) *out = *std::move(iv);
    result = iv.status();
  }
  if (s != nullptr) {
    result = absl::InternalError(tsb_status_get_message(s));
    tsb_status_free(s);
  }
  tsb_any_release(&rebuilt);
  tsb_any_release(&dict);
  return result;
}

absl::Status Coerce(c10::IValue* out) {
  tsb_any dict, coerced;
  if (absl::Status st = tsb::ToBoundary(g_dict, &dict); !st.ok()) return st;
  tsb_status* s = tsb_any_coerce(&dict, g_dict_type, &coerced);
  tsb_any_release(&dict);
  if (s != nullptr) {
    absl::Status st = absl::InternalError(tsb_status_get_message(s));
    tsb_status_free(s);
    return st;
  }
  absl::StatusOr<c10::IValue> iv = tsb::ToIValue(coerced);
  tsb_any_release(&coerced);
  if (iv.ok()) *out = *std::move(iv);
  return iv.status();
}

// Checked once outside the timed loops: a fast round trip that returns the
// wrong dict would be a meaningless figure.
bool SameEntries(const c10::IValue& got) {
  if (!got.isGenericDict()) return false;
  c10::impl::GenericDict a = g_dict.toGenericDict(), b = got.toGenericDict();
  if (a.size() != b.size() || *b.keyType() != *a.keyType() || *b.valueType() != *a.valueType()) {
    return false;
  }
  for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
    if (x->key().toStringRef() != y->key().toStringRef() ||
        !x->value().toTensor().is_same(y->value().toTensor())) {
      return false;
    }
  }
  return true;
}

template <typename F>
void Add(const char* name, F&& fn) {
  benchmark::RegisterBenchmark(name, std::forward<F>(fn))
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.2);
}

void RoundTrip(benchmark::State& state, absl::Status (*trip)(c10::IValue*)) {
  for (auto _ : state) {
    c10::IValue out;
    if (!Ok(state, trip(&out))) return;
    benchmark::DoNotOptimize(out);
  }
  state.SetLabel((std::string("vs=") + kBaseline).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (tsb_status* s = tsb_type_parse("Dict[str, Tensor]", &g_dict_type)) {
    std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return 1;
  }
  g_dict = c10::IValue(MakeDict());
  c10::IValue rebuilt, coerced;
  if (!Rebuild(&rebuilt).ok() || !SameEntries(rebuilt) || !Coerce(&coerced).ok() ||
      !SameEntries(coerced)) {
    std::fprintf(stderr, "setup failed: a round trip does not return the same dict\n");
    return 1;
  }

  Add(kBaseline, [](benchmark::State& state) {
    for (auto _ : state) {
      c10::IValue copy(g_dict.toGenericDict().copy());
      benchmark::DoNotOptimize(copy);
    }
  });
  Add("dict/roundtrip_coerce", [](benchmark::State& s) { RoundTrip(s, Coerce); });
  Add("dict/roundtrip_rebuild", [](benchmark::State& s) { RoundTrip(s, Rebuild); });

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (size_t live = ::tsb::LiveHandles(); live != 0) {
    std::fprintf(stderr, "WARNING: %lld boundary handles leaked\n", static_cast<long long>(live));
    return 1;
  }
  return 0;
}
