// The call plan (tsbridge/host/call_plan.hpp): a callee's schemas read once
// into the type each argument is built by, by position and by name, and
// the path that names it, through the C ABI only. What the Python, R and
// command-line hosts type their arguments with.
#include "tsbridge/host/call_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/sdk/parse_type.h"

namespace {

using tsb::kit::CallPlan;
using tsb::kit::PlannedArgument;

using tsb::testing::ParseType;

TEST(CallPlanTest, ReadsWhichArgumentsTorchScriptBroadcastsAScalarTo) {
  // tsb_argument_info.list_size (1.8): N of int[N], and nothing else.
  size_t n = 0;
  tsb::Check(tsb_op_count_overloads("aten::max_pool2d", &n));
  ASSERT_GE(n, 1u);
  tsb_schema_info info{};
  info.struct_size = sizeof info;
  tsb::Check(tsb_op_get_overload("aten::max_pool2d", 0, &info));
  std::vector<std::pair<std::string, int32_t>> sizes;
  for (size_t i = 0; i < info.num_arguments; ++i) {
    const tsb_argument_info* a = tsb_schema_get_argument(&info, i);
    sizes.emplace_back(a->name, a->list_size);
  }
  const std::vector<std::pair<std::string, int32_t>> expected = {
      {"self", 0}, {"kernel_size", 2}, {"stride", 2}, {"padding", 2}, {"dilation", 2},
      {"ceil_mode", 0}};
  EXPECT_EQ(sizes, expected);
  // A struct from a library older than 1.8 ends before list_size: no guess.
  tsb_argument_info old = *tsb_schema_get_argument(&info, 1);
  old.struct_size = offsetof(tsb_argument_info, list_size);
  EXPECT_EQ(tsb::kit::internal::FixedListElement(old), TSB_TYPE_INVALID);
  EXPECT_EQ(tsb::kit::internal::FixedListElement(*tsb_schema_get_argument(&info, 1)),
            TSB_TYPE_INT);
}

TEST(CallPlanTest, OverloadsThatDisagreeLeaveTheArgumentToTheCore) {
  CallPlan add = CallPlan::ForOperator("aten::add");
  EXPECT_EQ(add.callee(), "aten::add");
  EXPECT_GT(add.num_schemas(), 2u);
  // Tensor, Scalar, t[], str, int, ... at both positions.
  for (size_t i : {0, 1}) {
    const PlannedArgument& a = add.Positional(i);
    EXPECT_EQ(a.type, TSB_TYPE_ANY) << i;
    EXPECT_TRUE(a.tensor_possible) << i;
    EXPECT_EQ(a.TypeFor(true), TSB_TYPE_ANY) << i;
  }
  EXPECT_EQ(add.Positional(0).name, "");  // self in some overloads, a in others
  EXPECT_EQ(add.PositionalPath(0), "aten::add(): argument 0");
  // Where they agree, their type: alpha is a Scalar in every overload.
  EXPECT_EQ(add.Keyword("alpha").type, TSB_TYPE_NUMBER);
  EXPECT_EQ(add.Keyword("other").type, TSB_TYPE_ANY);  // Tensor or Scalar
  EXPECT_TRUE(add.Keyword("other").tensor_possible);
  EXPECT_EQ(add.KeywordPath("alpha"), "aten::add(): argument 'alpha'");
  // Past every overload, or a name none has: built untyped, the core refuses.
  EXPECT_EQ(add.Positional(9).type, TSB_TYPE_ANY);
  EXPECT_EQ(add.PositionalPath(9), "aten::add(): argument 9");
  EXPECT_EQ(add.Keyword("no_such").type, TSB_TYPE_ANY);
}

TEST(CallPlanTest, AnIntWhereTheSchemaSaysIntTwoIsBuiltAsAnInt) {
  CallPlan pool = CallPlan::ForOperator("aten::max_pool2d");
  const PlannedArgument& kernel = pool.Positional(1);
  EXPECT_EQ(kernel.name, "kernel_size");
  EXPECT_EQ(kernel.type, ParseType("List[int]"));
  EXPECT_EQ(kernel.scalar_type, TSB_TYPE_INT);
  EXPECT_EQ(kernel.TypeFor(true), TSB_TYPE_INT);  // 3: the core makes it [3, 3]
  EXPECT_EQ(kernel.TypeFor(false), ParseType("List[int]"));
  EXPECT_EQ(pool.Keyword("stride").scalar_type, TSB_TYPE_INT);
  EXPECT_EQ(pool.Keyword("ceil_mode").type, TSB_TYPE_BOOL);
  EXPECT_EQ(pool.Keyword("ceil_mode").scalar_type, TSB_TYPE_INVALID);
  EXPECT_EQ(pool.PositionalPath(1), "aten::max_pool2d(): argument 'kernel_size'");
  // Built with that int, the call broadcasts it as TorchScript does.
  tsb::Value x = tsb::Value::FromJson(
      R"({"dtype": "float32", "shape": [1, 1, 4, 4], "data": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
          10, 11, 12, 13, 14, 15]})",
      TSB_TYPE_TENSOR);
  tsb::Value out;
  tsb::Args args;
  args.Add(std::move(x)).Add(int64_t{2});
  tsb::Check(tsb_op_call("aten::max_pool2d", args.view(), out.out()));
  EXPECT_NE(out.ToJson().find("\"shape\":[1,1,2,2]"), std::string::npos) << out.ToJson();
}

TEST(CallPlanTest, AMethodsPlanIsItsSchema) {
  tsb_module* raw = nullptr;
  tsb::Check(tsb_module_compile(
      "def pool(self, x: Tensor, k: BroadcastingList2[int], *, scale: float = 1.0) -> Tensor:\n"
      "    return torch.adaptive_avg_pool2d(x, k) * scale\n",
      &raw));
  std::unique_ptr<tsb_module, decltype(&tsb_module_free)> module(raw, &tsb_module_free);
  tsb_schema_info info{};
  info.struct_size = sizeof info;
  tsb::Check(tsb_module_get_method(module.get(), 0, &info));
  CallPlan plan = CallPlan::ForMethod(info);
  EXPECT_EQ(plan.callee(), "pool");
  ASSERT_EQ(plan.arguments().size(), 3u);  // without self, in order
  EXPECT_EQ(plan.arguments()[2].name, "scale");
  EXPECT_TRUE(plan.arguments()[2].kwarg_only);
  EXPECT_EQ(plan.Positional(0).type, TSB_TYPE_TENSOR);
  EXPECT_EQ(plan.Positional(1).scalar_type, TSB_TYPE_INT);
  EXPECT_EQ(plan.Keyword("scale").type, TSB_TYPE_FLOAT);
  EXPECT_EQ(plan.Positional(2).type, TSB_TYPE_ANY);  // scale is keyword-only
  EXPECT_EQ(plan.PositionalPath(2), "pool(): argument 2");
}

TEST(CallPlanTest, AFailureGetsItsArgumentsPathOnlyThen) {
  CallPlan plan = CallPlan::ForOperator("aten::max_pool2d");
  int built = 0;
  plan.BuildPositional(0, [&](const PlannedArgument& a) {
    EXPECT_EQ(a.type, TSB_TYPE_TENSOR);
    ++built;
  });
  EXPECT_EQ(built, 1);
  try {
    plan.BuildKeyword("stride", [&](const PlannedArgument&) {
      tsb::kit::Fail(TSB_ERR_TYPE, "expected int, got str \"x\"");
    });
    FAIL() << "no error";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message(), "aten::max_pool2d(): argument 'stride': expected int, got str \"x\"");
  }
}

TEST(CallPlanTest, WhereThePlanGuessedAValueItCannotBuildIsLeftToTheCore) {
  // alpha is a Scalar in every overload of aten::add, but the core says
  // which overload takes what: a value the host refuses as a Scalar is
  // built again by its own type.
  std::vector<int32_t> asked;
  auto refuse_typed = [&](const PlannedArgument& a) {
    asked.push_back(a.type);
    if (a.type != TSB_TYPE_ANY) tsb::kit::Fail(TSB_ERR_TYPE, "expected Scalar, got str");
  };
  CallPlan::ForOperator("aten::add").BuildKeyword("alpha", refuse_typed);
  EXPECT_EQ(asked, (std::vector<int32_t>{TSB_TYPE_NUMBER, TSB_TYPE_ANY}));
  // So is a lone scalar taken as int[2]'s element.
  asked.clear();
  CallPlan pool = CallPlan::ForOperator("aten::max_pool2d");
  pool.BuildKeyword("stride", [&](const PlannedArgument& a) {
    refuse_typed(a);
    EXPECT_EQ(a.TypeFor(true), asked.size() == 1 ? TSB_TYPE_INT : TSB_TYPE_ANY);
  });
  EXPECT_EQ(asked.size(), 2u);
  // One schema's own type is no guess: the host's refusal stands.
  asked.clear();
  EXPECT_THROW(pool.BuildKeyword("ceil_mode", refuse_typed), tsb::kit::ConvertError);
  EXPECT_EQ(asked, std::vector<int32_t>{TSB_TYPE_BOOL});
  // Only a type mismatch is retried.
  asked.clear();
  EXPECT_THROW(pool.BuildKeyword("stride",
                                 [&](const PlannedArgument& a) {
                                   asked.push_back(a.type);
                                   tsb::kit::Fail(TSB_ERR_INVALID_ARGUMENT, "too deep");
                                 }),
               tsb::kit::ConvertError);
  EXPECT_EQ(asked.size(), 1u);
}

TEST(CallPlanTest, WithoutASchemaEveryArgumentIsUntyped) {
  CallPlan plan("method");
  EXPECT_EQ(plan.num_schemas(), 0u);
  EXPECT_EQ(plan.Positional(0).type, TSB_TYPE_ANY);
  EXPECT_EQ(plan.PositionalPath(1), "method(): argument 1");
  EXPECT_EQ(plan.KeywordPath("x"), "method(): argument 'x'");
}

TEST(CallPlanTest, AnUnknownCalleeIsNotFound) {
  try {
    CallPlan::ForOperator("aten::no_such_operator");
    FAIL() << "no error";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.code, TSB_ERR_NOT_FOUND);
  }
  try {
    CallPlan::ForFunction("no_such::function");
    FAIL() << "no error";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.code, TSB_ERR_NOT_FOUND);
  }
}

}  // namespace
