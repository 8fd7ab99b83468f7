// Operators by name: overload listing, the overload chosen by argument
// types (aten::add, aten::max, and test operators registered with
// TORCH_LIBRARY), keywords, defaults, named-tuple results and errors.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/library.h>

#include "tests/core/runtime/runtime_testing.h"

namespace {

// Overloads that differ only by parameter type: the cheapest binding wins.
TORCH_LIBRARY(tsb_test, m) {
  m.def("pick.int(int x) -> int", [](int64_t) -> int64_t { return 1; });
  m.def("pick.float(float x) -> int", [](double) -> int64_t { return 2; });
  m.def("pick.scalar(Scalar x) -> int", [](const at::Scalar&) -> int64_t { return 3; });
  m.def("same.a(Scalar x) -> int", [](const at::Scalar&) -> int64_t { return 1; });
  m.def("same.b(Scalar x) -> int", [](const at::Scalar&) -> int64_t { return 2; });
}

}  // namespace

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class OperatorTest : public BundledPluginsTest {
 protected:
  // The overload of `op` named `overload`, or nullptr.
  bool FindOverload(const char* op, const char* overload, tsb_schema_info* info) {
    size_t n = 0;
    Status s(tsb_op_count_overloads(op, &n));
    for (size_t i = 0; i < n; ++i) {
      info->struct_size = sizeof(*info);
      Status d(tsb_op_get_overload(op, i, info));
      if (d.ok() && std::string(info->overload_name) == overload) return true;
    }
    return false;
  }
};

TEST_F(OperatorTest, ListsOverloadsWithSchemas) {
  size_t n = 0;
  TSB_ASSERT_OK(tsb_op_count_overloads("aten::add", &n));
  EXPECT_GT(n, 2u);
  tsb_schema_info info{};
  ASSERT_TRUE(FindOverload("aten::add", "Tensor", &info));
  EXPECT_STREQ(info.name, "aten::add");
  EXPECT_STREQ(info.schema, "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  ASSERT_EQ(info.num_arguments, 3u);
  EXPECT_STREQ(info.arguments[2].name, "alpha");
  EXPECT_TRUE(info.arguments[2].kwarg_only);
  EXPECT_TRUE(info.arguments[2].has_default);
  EXPECT_EQ(info.arguments[2].type_index, TSB_TYPE_NUMBER);
  EXPECT_STREQ(info.arguments[2].default_json, "1");
  ASSERT_TRUE(FindOverload("aten::max", "dim", &info));
  ASSERT_EQ(info.num_returns, 2u);
  EXPECT_STREQ(info.returns[0].name, "values");
  EXPECT_STREQ(info.returns[1].name, "indices");
  // A dtype parameter is a ScalarType to the host, not LibTorch's int.
  ASSERT_TRUE(FindOverload("aten::sum", "", &info));
  EXPECT_STREQ(info.arguments[1].annotation, "Optional[ScalarType]");
}

TEST_F(OperatorTest, AddChoosesTheOverloadByType) {
  Value a(Boundary(at::tensor({1.0, 2.0})));
  Value b(Boundary(at::tensor({10.0, 20.0})));
  Value tensors, scalar, alpha, keywords;
  TSB_ASSERT_OK(CallOp("aten::add", {a.get(), b.get()}, {}, tensors.out()));  // add.Tensor
  EXPECT_TRUE(at::allclose(TensorOf(tensors.get()), at::tensor({11.0, 22.0})));
  TSB_ASSERT_OK(CallOp("aten::add", {a.get(), tsb_any_int(5)}, {}, scalar.out()));  // add.Scalar
  EXPECT_TRUE(at::allclose(TensorOf(scalar.get()), at::tensor({6.0, 7.0})));
  TSB_ASSERT_OK(CallOp("aten::add", {a.get(), b.get()}, {{"alpha", tsb_any_int(2)}}, alpha.out()));
  EXPECT_TRUE(at::allclose(TensorOf(alpha.get()), at::tensor({21.0, 42.0})));
  TSB_ASSERT_OK(CallOp("aten::add", {}, {{"other", b.get()}, {"self", a.get()}}, keywords.out()));
  EXPECT_TRUE(at::allclose(TensorOf(keywords.get()), at::tensor({11.0, 22.0})));
  // The JIT's own int overload: int + int is an int, not a tensor.
  Value sum;
  TSB_ASSERT_OK(CallOp("aten::add", {tsb_any_int(2), tsb_any_int(3)}, {}, sum.out()));
  EXPECT_EQ(sum.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(sum.get().u.i, 5);
  Value text;
  TSB_ASSERT_OK(CallOp("aten::add", {tsb_any_borrowed_str("ab"), tsb_any_borrowed_str("c")}, {},
                       text.out()));
  const char* data = nullptr;
  size_t len = 0;
  TSB_ASSERT_OK(tsb_str_get(&text.get(), &data, &len));
  EXPECT_EQ(std::string(data, len), "abc");
}

// A library loaded after the first call (a plugin's TORCH_LIBRARY) adds an
// overload under a name already looked up: the next call takes it. Its
// unloading removes it again.
TEST_F(OperatorTest, OverloadsRegisteredAfterTheFirstCallAreSeen) {
  auto library = std::make_unique<torch::Library>(torch::Library::DEF, "tsb_late", c10::nullopt,
                                                  __FILE__, __LINE__);
  library->def("pick.int(int x) -> int", [](int64_t) -> int64_t { return 1; });
  size_t n = 0;
  TSB_ASSERT_OK(tsb_op_count_overloads("tsb_late::pick", &n));
  EXPECT_EQ(n, 1u);
  Value refused;
  EXPECT_EQ(tsb_status_get_code(
                Status(CallOp("tsb_late::pick", {tsb_any_borrowed_str("x")}, {}, refused.out()))
                    .get()),
            TSB_ERR_TYPE);
  library->def("pick.str(str x) -> int", [](std::string) -> int64_t { return 2; });
  TSB_ASSERT_OK(tsb_op_count_overloads("tsb_late::pick", &n));
  EXPECT_EQ(n, 2u);
  Value picked;
  TSB_ASSERT_OK(CallOp("tsb_late::pick", {tsb_any_borrowed_str("x")}, {}, picked.out()));
  EXPECT_EQ(picked.get().u.i, 2);
  library.reset();
  Status gone(tsb_op_count_overloads("tsb_late::pick", &n));
  EXPECT_EQ(tsb_status_get_code(gone.get()), TSB_ERR_NOT_FOUND) << MessageOf(gone);
}

TEST_F(OperatorTest, NoOverloadListsTheCandidates) {
  Value a(Boundary(at::tensor({1.0})));
  Value out;
  Status s(CallOp("aten::add", {a.get(), tsb_any_borrowed_str("x")}, {}, out.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE);
  EXPECT_THAT(MessageOf(s), StartsWith("no overload of aten::add accepts (Tensor, str); "
                                       "the overloads:\n  aten::add.Tensor("));
  EXPECT_THAT(MessageOf(s),
              HasSubstr("\n  aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> "
                        "Tensor  [argument 'other': expected number, got str \"x\"]"));
  EXPECT_EQ(out.get().type_index, TSB_TYPE_INVALID);
}

TEST_F(OperatorTest, MaxReturnsATensorOrANamedTuple) {
  Value x(Boundary(at::tensor({1.0, 5.0, 7.0, 2.0}).view({2, 2})));
  Value all;
  TSB_ASSERT_OK(CallOp("aten::max", {x.get()}, {}, all.out()));
  EXPECT_EQ(TensorOf(all.get()).item<double>(), 7.0);

  Value by_dim;
  TSB_ASSERT_OK(CallOp("aten::max", {x.get(), tsb_any_int(1)}, {{"keepdim", tsb_any_bool(false)}},
                       by_dim.out()));
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_type_get_info(by_dim.get().type_index, &info));
  EXPECT_EQ(info.kind, TSB_KIND_NAMEDTUPLE);
  EXPECT_STREQ(info.name, "torch.return_types.max");
  ASSERT_EQ(info.num_contained, 2u);
  EXPECT_STREQ(info.field_names[0], "values");
  EXPECT_STREQ(info.field_names[1], "indices");
  Value values, indices;
  TSB_ASSERT_OK(tsb_any_get_field(&by_dim.get(), "values", values.out()));
  TSB_ASSERT_OK(tsb_any_get_field(&by_dim.get(), "indices", indices.out()));
  EXPECT_TRUE(at::allclose(TensorOf(values.get()), at::tensor({5.0, 7.0})));
  EXPECT_TRUE(at::equal(TensorOf(indices.get()), at::tensor({int64_t{1}, int64_t{0}})));

  // Two tensors: the elementwise overload (max.other), not a reduction.
  Value y(Boundary(at::full({2, 2}, 3.0)));
  Value both;
  TSB_ASSERT_OK(CallOp("aten::max", {x.get(), y.get()}, {}, both.out()));
  EXPECT_TRUE(at::allclose(TensorOf(both.get()), at::tensor({3.0, 5.0, 7.0, 3.0}).view({2, 2})));
}

// SymInt parameters (aten::view's size, aten::ones') take plain ints, as
// TorchScript passes them.
TEST_F(OperatorTest, SymIntParametersTakeInts) {
  Value x(Boundary(at::arange(6.0)));
  int64_t dims[] = {2, 3};
  Value size, viewed, ones;
  TSB_ASSERT_OK(tsb_list_new_int(dims, 2, size.out()));
  TSB_ASSERT_OK(CallOp("aten::view", {x.get(), size.get()}, {}, viewed.out()));
  EXPECT_EQ(TensorOf(viewed.get()).sizes(), at::IntArrayRef({2, 3}));
  TSB_ASSERT_OK(CallOp("aten::ones", {size.get()}, {}, ones.out()));
  EXPECT_TRUE(at::equal(TensorOf(ones.get()), at::ones({2, 3})));
  tsb_schema_info info{};
  ASSERT_TRUE(FindOverload("aten::view", "", &info));
  EXPECT_STREQ(info.arguments[1].annotation, "List[int]");
  EXPECT_NE(info.arguments[1].type_index, TSB_TYPE_INVALID);
}

TEST_F(OperatorTest, PrefersExactTypesThenSubtypesThenConversions) {
  Value out;
  TSB_ASSERT_OK(CallOp("tsb_test::pick", {tsb_any_int(1)}, {}, out.out()));
  EXPECT_EQ(out.get().u.i, 1);  // int, not Scalar (subtype) nor float (conversion)
  TSB_ASSERT_OK(CallOp("tsb_test::pick", {tsb_any_float(1.5)}, {}, out.out()));
  EXPECT_EQ(out.get().u.i, 2);
  Value c;
  TSB_ASSERT_OK(tsb_complex_new(1, 2, c.out()));
  TSB_ASSERT_OK(CallOp("tsb_test::pick", {c.get()}, {}, out.out()));
  EXPECT_EQ(out.get().u.i, 3);  // only Scalar takes a complex
}

TEST_F(OperatorTest, TiesGoToTheFirstOverloadAsInTorchScript) {
  Value out;
  TSB_ASSERT_OK(CallOp("tsb_test::same", {tsb_any_int(1)}, {}, out.out()));
  EXPECT_EQ(out.get().u.i, 1);  // same.a, registered first
  // conv2d and conv2d.padding both take (input, weight, bias) with the
  // rest defaulted: TorchScript calls conv2d.
  at::Tensor x = at::randn({1, 2, 5, 5}), w = at::randn({3, 2, 3, 3}), b = at::randn({3});
  Value vx(Boundary(x)), vw(Boundary(w)), vb(Boundary(b));
  TSB_ASSERT_OK(CallOp("aten::conv2d", {vx.get(), vw.get(), vb.get()}, {}, out.out()));
  EXPECT_TRUE(at::equal(TensorOf(out.get()), at::conv2d(x, w, b)));
}

TEST_F(OperatorTest, AnIntBroadcastsToAFixedSizeList) {
  at::Tensor x = at::randn({1, 2, 5, 5}), w = at::randn({3, 2, 3, 3}), b = at::randn({3});
  Value vx(Boundary(x)), vw(Boundary(w)), vb(Boundary(b));
  Value out;
  // stride=2, padding=1 where the schema says int[2], as TorchScript takes them.
  TSB_ASSERT_OK(CallOp("aten::conv2d", {vx.get(), vw.get(), vb.get(), tsb_any_int(2),
                                        tsb_any_int(1)}, {}, out.out()));
  EXPECT_TRUE(at::equal(TensorOf(out.get()), at::conv2d(x, w, b, {2, 2}, {1, 1})));
  TSB_ASSERT_OK(CallOp("aten::max_pool2d", {vx.get(), tsb_any_int(2)}, {}, out.out()));
  EXPECT_TRUE(at::equal(TensorOf(out.get()), at::max_pool2d(x, {2, 2})));
  // A list still passes as it is; one of the wrong length is refused.
  Value pair(Boundary(c10::IValue(c10::List<int64_t>({2, 1}))));
  TSB_ASSERT_OK(CallOp("aten::max_pool2d", {vx.get(), pair.get()}, {}, out.out()));
  EXPECT_TRUE(at::equal(TensorOf(out.get()), at::max_pool2d(x, {2, 1})));
  Status s(CallOp("aten::max_pool2d", {vx.get(), tsb_any_borrowed_str("x")}, {}, out.out()));
  EXPECT_THAT(MessageOf(s), HasSubstr("no overload of aten::max_pool2d accepts (Tensor, str)"));
}

TEST_F(OperatorTest, NameErrors) {
  size_t n = 0;
  Status unknown(tsb_op_count_overloads("aten::no_such_op", &n));
  EXPECT_EQ(tsb_status_get_code(unknown.get()), TSB_ERR_NOT_FOUND);
  EXPECT_EQ(MessageOf(unknown), "no operator named aten::no_such_op");
  Status bare(tsb_op_count_overloads("add", &n));
  EXPECT_EQ(MessageOf(bare), "operator names are qualified, as in aten::add: got 'add'");
  tsb_schema_info info{};
  info.struct_size = sizeof(info);
  Status range(tsb_op_get_overload("tsb_test::same", 2, &info));
  EXPECT_EQ(tsb_status_get_code(range.get()), TSB_ERR_OUT_OF_RANGE);
}

// Variadic and graph-built operators are listed and described like any
// other, with why tsb_op_call refuses them; a call says the same.
TEST_F(OperatorTest, VariadicOperatorsAreListedAndRefusedWithTheReason) {
  for (const char* op : {"prim::ChunkSizes", "prim::Print"}) {
    size_t n = 0;
    TSB_ASSERT_OK(tsb_op_count_overloads(op, &n));
    ASSERT_EQ(n, 1u) << op;
    tsb_schema_info info{};
    info.struct_size = sizeof(info);
    TSB_ASSERT_OK(tsb_op_get_overload(op, 0, &info));
    EXPECT_STREQ(info.name, op);
    EXPECT_THAT(info.schema, StartsWith(std::string(op) + "(...) -> "));
    EXPECT_EQ(info.num_arguments, 0u);
    ASSERT_NE(info.not_callable, nullptr);
    EXPECT_THAT(info.not_callable,
                StartsWith("takes a variable number of arguments, which tsb_op_call cannot "
                           "bind; LibTorch runs it only inside a TorchScript graph"));
    Value a(Boundary(at::ones({4}))), out;
    Status call(CallOp(op, {a.get(), tsb_any_int(2)}, {}, out.out()));
    EXPECT_EQ(tsb_status_get_code(call.get()), TSB_ERR_UNSUPPORTED);
    EXPECT_EQ(MessageOf(call), std::string(info.schema) + " " + info.not_callable);
  }
  // A host that predates 1.8 (a smaller struct) gets the schema alone.
  tsb_schema_info old{};
  old.struct_size = offsetof(tsb_schema_info, not_callable);
  old.not_callable = "unwritten";
  TSB_ASSERT_OK(tsb_op_get_overload("prim::ChunkSizes", 0, &old));
  EXPECT_STREQ(old.not_callable, "unwritten");
  // einsum has a callable overload and a variadic one: both listed, the
  // callable one chosen, the other marked.
  size_t n = 0;
  TSB_ASSERT_OK(tsb_op_count_overloads("aten::einsum", &n));
  size_t refused = 0;
  for (size_t i = 0; i < n; ++i) {
    tsb_schema_info info{};
    info.struct_size = sizeof(info);
    TSB_ASSERT_OK(tsb_op_get_overload("aten::einsum", i, &info));
    if (info.not_callable != nullptr) ++refused;
  }
  EXPECT_GE(refused, 1u);
  EXPECT_LT(refused, n);
  Value eq(Boundary(c10::IValue(std::string("ij->ji")))),
      m(Boundary(at::arange(6).reshape({2, 3}))), list, out;
  tsb_any items[] = {m.get()};
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_TENSOR, items, 1, list.out()));
  TSB_ASSERT_OK(CallOp("aten::einsum", {eq.get(), list.get()}, {}, out.out()));
  EXPECT_TRUE(FromBoundary(out.get()).toTensor().equal(at::arange(6).reshape({2, 3}).t()));
}

TEST_F(OperatorTest, OperatorErrorsNameTheOperator) {
  Value a(Boundary(at::ones({2})));
  Value b(Boundary(at::ones({3})));
  Value out;
  Status s(CallOp("aten::add", {a.get(), b.get()}, {}, out.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TORCH);
  EXPECT_THAT(MessageOf(s), StartsWith("aten::add(): "));
  EXPECT_THAT(MessageOf(s), HasSubstr("must match the size"));
}

// tsb_op_get_names: sorted, each once, one namespace or all, and operators
// registered since (tsb_test above) are listed.
TEST_F(OperatorTest, ListsOperatorNames) {
  auto names_of = [](const char* ns) {
    const char** names = nullptr;
    size_t n = 0;
    Status s(tsb_op_get_names(ns, &names, &n));
    EXPECT_TRUE(s.ok()) << MessageOf(s);
    std::vector<std::string> out(names, names + n);
    tsb_string_free(reinterpret_cast<char*>(names));
    return out;
  };
  std::vector<std::string> aten = names_of("aten");
  EXPECT_THAT(aten, ::testing::Contains("aten::add"));
  EXPECT_THAT(aten, ::testing::Contains("aten::conv2d"));
  EXPECT_TRUE(std::is_sorted(aten.begin(), aten.end()));
  EXPECT_EQ(std::adjacent_find(aten.begin(), aten.end()), aten.end());
  for (const std::string& name : aten) EXPECT_THAT(name, StartsWith("aten::"));
  EXPECT_THAT(names_of("tsb_test"), ::testing::ElementsAre("tsb_test::pick", "tsb_test::same"));
  std::vector<std::string> all = names_of(nullptr);
  EXPECT_GT(all.size(), aten.size());
  EXPECT_THAT(all, ::testing::Contains("prim::Print"));
  EXPECT_TRUE(names_of("no_such_namespace").empty());
  EXPECT_TRUE(names_of("ate").empty());  // a namespace, not a prefix

  size_t n = 0;
  Status null_names(tsb_op_get_names("aten", nullptr, &n));
  EXPECT_EQ(MessageOf(null_names), "argument 'names' is NULL");
}

}  // namespace
}  // namespace tsb::testing
