// Values that contain themselves or nest too deep (core/value/nesting.h):
// found, named by path, freed, and refused where a value is walked.
#include <ATen/core/Dict.h>
#include <ATen/core/List.h>

#include "core/value/nesting.h"
#include "tsbridge/plugin/errors.hpp"
#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

using GenericList = c10::impl::GenericList;

GenericList AnyList() { return GenericList(c10::AnyType::get()); }

// `depth` lists, each holding the next.
c10::IValue Chain(int depth) {
  c10::IValue inner(AnyList());
  for (int i = 1; i < depth; ++i) {
    GenericList outer = AnyList();
    outer.push_back(inner);
    inner = c10::IValue(outer);
  }
  return inner;
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

TEST(NestingTest, ALeafOrAnAcyclicValuePasses) {
  EXPECT_TRUE(CheckNesting(c10::IValue(int64_t{3})).ok());
  EXPECT_TRUE(CheckNesting(Chain(kMaxValueDepth)).ok());
}

TEST(NestingTest, AListHoldingItselfIsNamedByPath) {
  GenericList list = AnyList();
  list.push_back(c10::IValue(int64_t{1}));
  list.push_back(c10::IValue(list));
  const absl::Status status = CheckNesting(c10::IValue(list));
  EXPECT_EQ(MessageOf(status),
            "expected a value without cycles, found a list that contains itself: "
            "[1] is the value itself");
  BreakCycles(c10::IValue(list));
  EXPECT_EQ(list.size(), 0u);
  EXPECT_EQ(list.use_count(), 1u);  // freed when `list` goes
}

TEST(NestingTest, ACycleThroughADictAndATupleNamesBothEnds) {
  GenericList inner = AnyList();
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("k", c10::IValue(inner));
  GenericList root = AnyList();
  root.push_back(c10::IValue(dict));
  inner.push_back(c10::ivalue::Tuple::create({c10::IValue(dict)}));
  EXPECT_EQ(MessageOf(CheckNesting(c10::IValue(root))),
            "expected a value without cycles, found a dict that contains itself: "
            "[0] \u2192 key \"k\" \u2192 [0] \u2192 [0] is [0]");
  BreakCycles(c10::IValue(root));
  EXPECT_EQ(dict.size(), 0u);
  EXPECT_EQ(inner.size(), 0u);
}

TEST(NestingTest, SharedPartsAreWalkedOnce) {
  // 2^60 paths, 61 containers: a walk of every path would not end.
  c10::IValue value(AnyList());
  for (int i = 0; i < 60; ++i) {
    GenericList pair = AnyList();
    pair.push_back(value);
    pair.push_back(value);
    value = c10::IValue(pair);
  }
  EXPECT_TRUE(CheckNesting(value).ok());
}

TEST(NestingTest, TooDeepIsRefusedEvenThroughASharedPart) {
  const absl::Status deep = CheckNesting(Chain(kMaxValueDepth + 1));
  EXPECT_EQ(MessageOf(deep),
            "expected a value nested at most 512 containers deep, found a deeper one");
  EXPECT_EQ(PathOf(deep).rfind("[0] \u2192 [0] \u2192 [0]", 0), 0u);  // in the path, shortened later
  // The chain is first met shallow (fine), then again 20 levels down.
  const c10::IValue shared = Chain(kMaxValueDepth - 10);
  GenericList root = AnyList();
  root.push_back(shared);
  c10::IValue wrapped = shared;
  for (int i = 0; i < 20; ++i) {
    GenericList outer = AnyList();
    outer.push_back(wrapped);
    wrapped = c10::IValue(outer);
  }
  root.push_back(wrapped);
  EXPECT_FALSE(CheckNesting(c10::IValue(root)).ok());
}

// TorchScript code builds a cycle too: the walks at the ABI refuse it.
using NestingAbiTest = AbiTest;

TEST_F(NestingAbiTest, AValueTorchScriptMadeToContainItselfIsRefusedByEveryWalk) {
  tsb_module* module = nullptr;
  TSB_ASSERT_OK(tsb_module_compile(
      "def loop(self) -> List[Any]:\n"
      "    l: List[Any] = [1]\n"
      "    l.append(l)\n"
      "    return l\n",
      &module));
  const tsb_call_args args = tsb_call_args_make(nullptr, 0);
  tsb_any out{};
  TSB_ASSERT_OK(tsb_module_call(module, "loop", &args, &out));
  char* text = nullptr;
  size_t size = 0;
  Status repr(tsb_any_repr(&out, &text));
  Status pickle(tsb_pickle_write(&out, &text, &size));
  for (const Status* s : {&repr, &pickle}) {
    ASSERT_NE(s->get(), nullptr);
    EXPECT_NE(std::string(tsb_status_get_message(s->get())).find("[1] is the value itself"),
              std::string::npos)
        << tsb_status_get_message(s->get());
  }
  Status json(tsb_json_write(&out, &text));
  ASSERT_NE(json.get(), nullptr);
  EXPECT_NE(std::string(tsb_status_get_message(json.get())).find("nested deeper"),
            std::string::npos);
  BreakCycles(FromBoundary(out));  // else LeakSanitizer reports the list
  tsb_any_release(&out);
  tsb_module_free(module);
}

// Builders keep the one limit too, so no value a host builds is one a walk
// refuses later: a list 512 deep is built, one 513 deep is refused with a
// short path to its deepest list.
TEST_F(NestingAbiTest, BuildersRefuseAValueDeeperThanTheLimit) {
  Value v;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, nullptr, 0, v.out()));
  for (int depth = 2; depth <= TSB_MAX_DEPTH; ++depth) {
    Value outer;
    TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, &v.get(), 1, outer.out()));
    v = std::move(outer);
  }
  char* text = nullptr;
  TSB_ASSERT_OK(tsb_any_repr(&v.get(), &text));  // 512 deep: every walk takes it
  tsb_string_free(text);
  const std::string short_path =
      "[0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 "
      "\u2026 (500 segments) \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0]";
  const std::string too_deep =
      "expected a value nested at most 512 containers deep, found a deeper one";
  tsb_any out{};
  ExpectStatus(tsb_list_new(TSB_TYPE_ANY, &v.get(), 1, &out), TSB_ERR_INVALID_ARGUMENT,
               short_path, too_deep);
  ExpectStatus(tsb_tuple_new(&v.get(), 1, &out), TSB_ERR_INVALID_ARGUMENT, short_path,
               too_deep);
  tsb_any key = tsb_any_borrowed_str("k");
  ExpectStatus(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, &key, &v.get(), 1, &out),
               TSB_ERR_INVALID_ARGUMENT,
               "key \"k\" \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] "
               "\u2192 \u2026 (500 segments) \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0]",
               too_deep);
}

// A typed List[List[int]] is not walked item by item: its type says how deep
// its items can be.
TEST(NestingTest, CheckDepthStopsAtAContainerOfLeaves) {
  c10::List<int64_t> ints({1, 2, 3});
  EXPECT_TRUE(CheckDepth(c10::IValue(ints), 1).ok());
  EXPECT_FALSE(CheckDepth(c10::IValue(ints), 0).ok());
  EXPECT_FALSE(CheckDepth(Chain(3), 2).ok());
  EXPECT_TRUE(CheckDepth(Chain(3), 3).ok());
}

}  // namespace
}  // namespace tsb::testing
