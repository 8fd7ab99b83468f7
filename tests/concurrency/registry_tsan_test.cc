// Lookups from several threads while another thread loads a plugin. Built
// with -fsanitize=thread against a ThreadSanitizer copy of the core: a data
// race in the registries fails the test through TSan's exit code.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/function_registry.h"
#include "core/types/type_registry.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

using tsb::testing::BuildPath;

namespace tsb {
namespace {

TEST(RegistryConcurrencyTest, LookupsWhileAPluginLoads) {
  std::atomic<bool> loaded{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      int rounds = 0;
      // Keep reading until the plugin is in, and a while after.
      for (int after = 0; after < 200; after += loaded.load() ? 1 : 0, ++rounds) {
        std::string type = "Dict[str, List[" + std::string(t % 2 ? "int" : "float") + "]]";
        int32_t index = 0;
        tsb_status* s = tsb_type_parse(type.c_str(), &index);
        if (s != nullptr || ::tsb::KindOf(index) != TSB_KIND_DICT) ++failures;
        tsb_status_free(s);
        tsb_type_info info{};
        info.struct_size = sizeof(info);
        s = tsb_type_get_info(index, &info);
        if (s != nullptr || info.num_contained != 2) ++failures;
        tsb_status_free(s);
        // Entries the plugin is publishing meanwhile: absent, then present.
        (void)TypeRegistry::Global().FindNamedType("fixture.point");
        (void)TypeRegistry::Global().CodecFor(c10::TypeKind::StorageType);
        (void)plugins::FunctionRegistry::Global().Find("fixture::add");
        (void)::tsb::PluginCount();
        if (rounds > 1000000) break;  // bounded, whatever happens
      }
    });
  }
  int32_t id = -1;
  tsb_status* s = tsb_plugin_load(BuildPath("TSB_TSAN_FIXTURE"), &id);
  EXPECT_EQ(s, nullptr) << tsb_status_get_message(s);
  tsb_status_free(s);
  loaded = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_NE(TypeRegistry::Global().FindNamedType("fixture.point"), nullptr);
  tsb_any args[] = {tsb_any_int(1), tsb_any_int(2)}, out;
  s = tsb_function_call("fixture::add", ::tsb::CallArgs(args, 2).get(), &out);
  EXPECT_EQ(s, nullptr) << tsb_status_get_message(s);
  tsb_status_free(s);
  EXPECT_EQ(out.u.i, 3);
}

}  // namespace
}  // namespace tsb
