// The concurrency soak (docs/reliability.md), built with -fsanitize=thread
// against the ThreadSanitizer copy of the core: threads convert values,
// call one loaded module and parse types while another thread loads plugins
// (the bundled ones, good and broken fixtures) over and over. Every result
// is checked; a race fails the run through TSan's exit code. Runs for
// TSB_SOAK_SECONDS (default 20): a bound, not an assertion.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

using tsb::testing::BuildPath;

namespace {

// What the threads report: one counter per kind of work, the failures, and
// the first failure's words.
struct Tally {
  std::atomic<int64_t> conversions{0}, calls{0}, lookups{0}, loads{0};
  std::atomic<int64_t> failures{0};
  std::mutex mu;
  std::string first_failure;

  // Consumes `s`; true when it is NULL.
  bool Ok(tsb_status* s, const std::string& what) {
    if (s == nullptr) return true;
    Fail(what + ": " + tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  void Check(bool good, const std::string& what) {
    if (!good) Fail(what);
  }
  void Fail(const std::string& what) {
    if (failures++ == 0) {
      std::lock_guard<std::mutex> lock(mu);
      first_failure = what;
    }
  }
};

int32_t Type(const char* annotation) {
  int32_t index = TSB_TYPE_INVALID;
  tsb_status* s = tsb_type_parse(annotation, &index);
  tsb_status_free(s);
  return index;
}

std::string Json(const tsb_any& v, Tally& tally) {
  char* text = nullptr;
  if (!tally.Ok(tsb_json_write(&v, &text), "tsb_json_write")) return {};
  std::string out(text);
  tsb_string_free(text);
  return out;
}

// Build, coerce and read back a List; a JSON round trip; a Tuple once the
// tuple plugin is in.
void Convert(int64_t i, const std::atomic<bool>& tuples, Tally& tally) {
  const int64_t ints[3] = {i, i + 1, -i};
  tsb_any list{}, floats{}, value{};
  if (tally.Ok(tsb_list_new_int(ints, 3, &list), "list") &&
      tally.Ok(tsb_any_coerce(&list, Type("List[float]"), &floats), "coerce")) {
    double back[3] = {};
    if (tally.Ok(tsb_list_copy_float(&floats, 3, back), "copy"))
      tally.Check(back[0] == i && back[1] == i + 1 && back[2] == -i, "List[float] values");
  }
  const std::string text = "{\"a\":[" + std::to_string(i) + ",2],\"b\":[]}";
  if (tally.Ok(tsb_json_read(text.c_str(), Type("Dict[str, List[int]]"), &value), "from_json"))
    tally.Check(Json(value, tally) == text, "JSON round trip of " + text);
  tsb_any_release(&value);
  if (tuples) {
    const std::string tuple = "[" + std::to_string(i) + ",\"x\",null]";
    if (tally.Ok(tsb_json_read(tuple.c_str(), Type("Tuple[int, str, Optional[int]]"), &value),
                 "tuple from_json"))
      tally.Check(Json(value, tally) == tuple, "JSON round trip of " + tuple);
    tsb_any_release(&value);
  }
  tsb_any_release(&list);
  tsb_any_release(&floats);
  ++tally.conversions;
}

// add(a, b=10), total(xs) and, with the tuple plugin, forward(x, p).
void Call(tsb_module* module, int64_t i, const std::atomic<bool>& tuples, Tally& tally) {
  tsb_any a = tsb_any_int(i), out{};
  if (tally.Ok(tsb_module_call(module, "add", ::tsb::CallArgs(&a, 1).get(), &out), "add")) {
    int64_t sum = 0;
    tally.Ok(tsb_int_get(&out, &sum), "add result");
    tally.Check(sum == i + 10, "add(i) == i + 10");
  }
  const double xs[2] = {0.5, static_cast<double>(i)};
  tsb_any list{};
  if (tally.Ok(tsb_list_new_float(xs, 2, &list), "xs") &&
      tally.Ok(tsb_module_call(module, "total", ::tsb::CallArgs(&list, 1).get(), &out), "total")) {
    double total = 0;
    tally.Ok(tsb_float_get(&out, &total), "total result");
    tally.Check(total == 0.5 + i, "total([0.5, i]) == 0.5 + i");
  }
  tsb_any_release(&list);
  if (tuples) {
    // forward(x, p=(a, None)) = x * 2 + [1, 2, 3] + a
    const std::string x = "{\"dtype\":\"float32\",\"shape\":[3],\"data\":[" +
                          std::to_string(i % 100) + ",0,1]}";
    tsb_any args[2] = {}, items[2] = {tsb_any_int(i % 7), tsb_any_none()}, result{};
    if (tally.Ok(tsb_json_read(x.c_str(), TSB_TYPE_TENSOR, &args[0]), "x") &&
        tally.Ok(tsb_tuple_new(items, 2, &args[1]), "p") &&
        tally.Ok(tsb_module_call(module, "forward", ::tsb::CallArgs(args, 2).get(), &result),
                 "forward")) {
      nlohmann::json data = nlohmann::json::parse(Json(result, tally), nullptr, false);
      const double k = static_cast<double>(i % 100), a = static_cast<double>(i % 7);
      tally.Check(data.is_object() &&
                      data["data"] == nlohmann::json({2 * k + 1 + a, 2 + a, 5 + a}),
                  "forward result");
    }
    for (tsb_any& v : args) tsb_any_release(&v);
    tsb_any_release(&result);
  }
  ++tally.calls;
}

// Types parsed, described and composed.
void LookUp(int64_t i, Tally& tally) {
  // Builtin kinds only: their answers do not change as plugins arrive.
  const char* annotations[] = {"Dict[str, List[int]]", "int[]", "Dict(str, Tensor)",
                               "List[List[float]]", "Device"};
  const tsb_kind kinds[] = {TSB_KIND_DICT, TSB_KIND_LIST, TSB_KIND_DICT, TSB_KIND_LIST,
                            TSB_KIND_DEVICE};
  const int n = static_cast<int>(i % 5);
  int32_t index = TSB_TYPE_INVALID, list_of = TSB_TYPE_INVALID;
  if (tally.Ok(tsb_type_parse(annotations[n], &index), annotations[n])) {
    tally.Check(::tsb::KindOf(index) == kinds[n], std::string("kind of ") + annotations[n]);
    if (tally.Ok(tsb_type_make_list(index, &list_of), "list_of")) {
      tsb_type_info info{};
      info.struct_size = sizeof(info);
      if (tally.Ok(tsb_type_get_info(list_of, &info), "info"))
        tally.Check(info.num_contained == 1 && info.contained[0] == index, "List[T] info");
    }
  }
  ++tally.lookups;
}

// The bundled plugins, then round after round of fixtures: the good one is
// a no-op once loaded; the broken ones fail every time and leave nothing.
void LoadPlugins(int64_t round, std::atomic<bool>& tuples, Tally& tally) {
  if (round == 0) {
    tally.Ok(tsb_plugin_load_bundled(), "bundled plugins");
    tuples = true;
  }
  const std::string fixtures = BuildPath("TSB_SOAK_FIXTURES");
  int32_t id = -1;
  tally.Ok(tsb_plugin_load((fixtures + "/good/libfixture_good_tsan.so").c_str(), &id), "good");
  for (const char* broken : {"register_throws", "fails_halfway", "invalid_type"}) {
    const std::string path = fixtures + "/" + broken + "/libfixture_" + broken + "_tsan.so";
    tsb_status* s = tsb_plugin_load(path.c_str(), &id);
    tally.Check(s != nullptr, std::string("loading ") + broken + " must fail");
    tsb_status_free(s);
  }
  int32_t halfway = TSB_TYPE_INVALID;
  tsb_status* s = tsb_type_parse("fixture.halfway", &halfway);
  tally.Check(s != nullptr, "a failed load left fixture.halfway behind");
  tsb_status_free(s);
  tsb_any args[] = {tsb_any_int(round), tsb_any_int(2)}, out{};
  if (tally.Ok(tsb_function_call("fixture::add", ::tsb::CallArgs(args, 2).get(), &out), "fixture::add"))
    tally.Check(out.u.i == round + 2, "fixture::add");
  ++tally.loads;
}

int SoakSeconds() {
  const char* env = std::getenv("TSB_SOAK_SECONDS");
  return env != nullptr ? std::atoi(env) : 20;
}

TEST(ConcurrencySoak, ConvertCallAndLookUpWhilePluginsLoad) {
  tsb_module* module = nullptr;
  tsb_status* s = tsb_module_load(BuildPath("TSB_SOAK_MODULE"), &module);
  ASSERT_EQ(s, nullptr) << tsb_status_get_message(s);
  Tally tally;
  std::atomic<bool> stop{false}, tuples{false};
  // Each worker runs its step at least once, then until told to stop.
  auto worker = [&](std::function<void(int64_t)> step) {
    return std::thread([&stop, step] {
      int64_t i = 0;
      do step(i++); while (!stop);
    });
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.push_back(worker([&](int64_t i) { Convert(i, tuples, tally); }));
    threads.push_back(worker([&](int64_t i) { Call(module, i, tuples, tally); }));
  }
  threads.push_back(worker([&](int64_t i) { LookUp(i, tally); }));
  threads.push_back(worker([&](int64_t i) { LoadPlugins(i, tuples, tally); }));
  std::this_thread::sleep_for(std::chrono::seconds(SoakSeconds()));
  stop = true;
  for (std::thread& t : threads) t.join();
  tsb_module_free(module);

  EXPECT_EQ(tally.failures.load(), 0) << "first failure: " << tally.first_failure;
  EXPECT_GT(tally.conversions.load(), 0);
  EXPECT_GT(tally.calls.load(), 0);
  EXPECT_GT(tally.lookups.load(), 0);
  EXPECT_GT(tally.loads.load(), 0);
  // The numbers the doc reports (docs/reliability.md).
  std::printf("soak: %lld conversions, %lld module calls, %lld type lookups, "
              "%lld plugin load rounds in %d s\n",
              static_cast<long long>(tally.conversions.load()),
              static_cast<long long>(tally.calls.load()),
              static_cast<long long>(tally.lookups.load()),
              static_cast<long long>(tally.loads.load()), SoakSeconds());
}

}  // namespace
