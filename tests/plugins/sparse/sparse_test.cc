// The sparse plugin from C++ and from the host ABI: operators through the
// dispatcher against dense references, gradients against finite
// differences, operators and functions by name, SparseStorage methods
// through tsb_object_call, and bad input coming back as statuses.
#include <string>
#include <tuple>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "tests/core/runtime/runtime_testing.h"
#include "tests/testing/build_paths.h"
#include "tests/testing/script_objects.h"

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;
using at::Tensor;
using OptTensor = c10::optional<Tensor>;

// A 4 x 3 matrix with an empty row (2) and a duplicate entry (0, 1).
struct Matrix {
  Tensor row = torch::tensor({0, 0, 0, 1, 3, 3}, torch::kLong);
  Tensor col = torch::tensor({0, 1, 1, 2, 0, 2}, torch::kLong);
  Tensor rowptr = torch::tensor({0, 3, 4, 4, 6}, torch::kLong);
  Tensor value = torch::tensor({0.5, -1.25, 2.0, 3.0, -0.75, 1.5}, torch::kDouble);
  Tensor dense() const {
    return torch::zeros({4, 3}, torch::kDouble).index_put_({row, col}, value, true);
  }
};

using SpmmFn = std::tuple<Tensor, OptTensor>(const Tensor&, const Tensor&, const OptTensor&,
                                             const Tensor&, const std::string&);
using TripleFn = std::tuple<Tensor, Tensor, OptTensor>(const Tensor&, const Tensor&,
                                                       const OptTensor&, int64_t, int64_t);

c10::TypedOperatorHandle<SpmmFn> SpmmOp() {
  return c10::Dispatcher::singleton().findSchemaOrThrow("torchsparse::spmm", "").typed<SpmmFn>();
}

class SparseTest : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    LoadBundledPlugins();  // tuple, optional and sparse itself
    TSB_ASSERT_OK(tsb_plugin_load(BuildPath("TSB_SPARSE_PLUGIN"), nullptr));  // again: a no-op
  }
  Matrix a;
};

TEST_F(SparseTest, PluginDescribesItself) {
  tsb_schema_info schema_info{};
    schema_info.struct_size = sizeof(schema_info);
    const char*& schema = schema_info.schema;
  TSB_ASSERT_OK(tsb_function_get_schema("torchsparse::spmm", &schema_info));
  EXPECT_THAT(schema, HasSubstr("-> torchsparse.spmm_result"));
  TSB_ASSERT_OK(tsb_function_get_schema("torchsparse::relabel", &schema_info));
  EXPECT_THAT(schema, HasSubstr("-> torchsparse.tensor_pair"));
  int32_t index = 0;
  TSB_ASSERT_OK(tsb_type_parse("torchsparse.spmm_result", &index));
  tsb_type_info info = InfoOf(index);
  ASSERT_EQ(info.num_fields, 2u);
  EXPECT_STREQ(info.field_names[0], "out");
  EXPECT_STREQ(info.field_names[1], "arg_out");
}

TEST_F(SparseTest, SpmmThroughTheDispatcherMatchesDense) {
  Tensor mat = torch::randn({3, 5}, torch::kDouble);
  auto [out, arg] = SpmmOp().call(a.rowptr, a.col, a.value, mat, "sum");
  EXPECT_TRUE(torch::allclose(out, a.dense().mm(mat)));
  EXPECT_FALSE(arg.has_value());
  auto [top, where] = SpmmOp().call(a.rowptr, a.col, a.value, mat, "max");
  ASSERT_TRUE(where.has_value());
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      const int64_t e = (*where)[i][j].item<int64_t>();
      if (i == 2) {  // the empty row: 0 and nnz
        EXPECT_EQ(e, 6);
        EXPECT_EQ(top[i][j].item<double>(), 0.0);
        continue;
      }
      const Tensor terms = a.value.slice(0, a.rowptr[i].item<int64_t>(),
                                         a.rowptr[i + 1].item<int64_t>()) *
                           mat.index_select(0, a.col.slice(0, a.rowptr[i].item<int64_t>(),
                                                           a.rowptr[i + 1].item<int64_t>()))
                               .select(1, j);
      EXPECT_DOUBLE_EQ(top[i][j].item<double>(), terms.max().item<double>());
      EXPECT_DOUBLE_EQ(a.value[e].item<double>() * mat[a.col[e].item<int64_t>()][j].item<double>(),
                       terms.max().item<double>());
    }
  }
}

// d(sum(w * f)) by central differences, for one input `x` of f.
Tensor NumericGrad(const std::function<Tensor()>& f, Tensor x, const Tensor& w) {
  Tensor grad = torch::zeros_like(x);
  torch::NoGradGuard no_grad;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double h = 1e-6, saved = x.view(-1)[i].item<double>();
    x.view(-1)[i] = saved + h;
    const double up = (w * f()).sum().item<double>();
    x.view(-1)[i] = saved - h;
    const double down = (w * f()).sum().item<double>();
    x.view(-1)[i] = saved;
    grad.view(-1)[i] = (up - down) / (2 * h);
  }
  return grad;
}

TEST_F(SparseTest, SpmmGradientsMatchFiniteDifferences) {
  for (const char* reduce : {"sum", "mean", "max", "min"}) {
    Tensor value = a.value.clone().requires_grad_();
    Tensor mat = torch::randn({3, 4}, torch::kDouble).requires_grad_();
    Tensor w = torch::randn({4, 4}, torch::kDouble);
    auto f = [&] { return std::get<0>(SpmmOp().call(a.rowptr, a.col, value, mat, reduce)); };
    (w * f()).sum().backward();
    EXPECT_TRUE(torch::allclose(value.grad(), NumericGrad(f, value, w), 1e-5, 1e-7)) << reduce;
    EXPECT_TRUE(torch::allclose(mat.grad(), NumericGrad(f, mat, w), 1e-5, 1e-7)) << reduce;
  }
}

TEST_F(SparseTest, TransposeGradientIsThePermutation) {
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("torchsparse::transpose", "")
                .typed<TripleFn>();
  Tensor value = a.value.clone().requires_grad_();
  Tensor w = torch::randn({6}, torch::kDouble);
  auto f = [&] { return *std::get<2>(op.call(a.row, a.col, value, 4, 3)); };
  (w * f()).sum().backward();
  EXPECT_TRUE(torch::allclose(value.grad(), NumericGrad(f, value, w), 1e-5, 1e-7));
  auto [row_t, col_t, value_t] = op.call(a.row, a.col, a.value, 4, 3);
  Tensor dense_t = torch::zeros({3, 4}, torch::kDouble).index_put_({row_t, col_t}, *value_t, true);
  EXPECT_TRUE(torch::allclose(dense_t, a.dense().t()));
}

TEST_F(SparseTest, OperatorByNameFromTheHost) {
  Tensor mat = torch::randn({3, 2}, torch::kDouble);
  Value rowptr(Boundary(a.rowptr)), col(Boundary(a.col)), value(Boundary(a.value)),
      dense(Boundary(mat)), reduce;
  TSB_ASSERT_OK(tsb_str_new("min", 3, reduce.out()));
  Value result, out, arg;
  TSB_ASSERT_OK(CallOp("torchsparse::spmm", {rowptr.get(), col.get(), value.get(), dense.get()},
                       {{"reduce", reduce.get()}}, result.out()));
  TSB_ASSERT_OK(tsb_any_get_field(&result.get(), "out", out.out()));
  TSB_ASSERT_OK(tsb_any_get_field(&result.get(), "arg_out", arg.out()));
  auto [want, want_arg] = SpmmOp().call(a.rowptr, a.col, a.value, mat, "min");
  EXPECT_TRUE(torch::equal(TensorOf(out.get()), want));
  EXPECT_TRUE(torch::equal(TensorOf(arg.get()), *want_arg));
}

TEST_F(SparseTest, FunctionsReturnTheirRecords) {
  Tensor mat = torch::randn({3, 2}, torch::kDouble);
  Value rowptr(Boundary(a.rowptr)), col(Boundary(a.col)), value(Boundary(a.value)),
      dense(Boundary(mat)), reduce, result, out, arg;
  TSB_ASSERT_OK(tsb_str_new("sum", 3, reduce.out()));
  tsb_any args[] = {rowptr.get(), col.get(), value.get(), dense.get(), reduce.get()};
  TSB_ASSERT_OK(tsb_function_call("torchsparse::spmm", ::tsb::CallArgs(args, 5).get(), result.out()));
  EXPECT_STREQ(InfoOf(result.get().type_index).name, "torchsparse.spmm_result");
  TSB_ASSERT_OK(tsb_any_get_field(&result.get(), "out", out.out()));
  TSB_ASSERT_OK(tsb_any_get_field(&result.get(), "arg_out", arg.out()));
  EXPECT_TRUE(torch::allclose(TensorOf(out.get()), a.dense().mm(mat)));
  EXPECT_EQ(arg.get().type_index, TSB_TYPE_NONE);

  Value idx(Boundary(torch::tensor({2, 0}, torch::kLong))), pair, first;
  tsb_any relabel_args[] = {col.get(), idx.get()};
  TSB_ASSERT_OK(tsb_function_call("torchsparse::relabel", ::tsb::CallArgs(relabel_args, 2).get(), pair.out()));
  EXPECT_STREQ(InfoOf(pair.get().type_index).name, "torchsparse.tensor_pair");
  TSB_ASSERT_OK(tsb_any_get_field(&pair.get(), "first", first.out()));
  EXPECT_TRUE(torch::equal(TensorOf(first.get()), torch::tensor({1, 2, 2, 0, 1, 0}, torch::kLong)));

  Value triple, third;
  tsb_any sample_args[] = {rowptr.get(), col.get(), idx.get(), tsb_any_int(2), tsb_any_bool(0), tsb_any_int(7)};
  TSB_ASSERT_OK(tsb_function_call("torchsparse::sample_adj", ::tsb::CallArgs(sample_args, 6).get(), triple.out()));
  EXPECT_STREQ(InfoOf(triple.get().type_index).name, "torchsparse.tensor_triple");
  TSB_ASSERT_OK(tsb_any_get_field(&triple.get(), "third", third.out()));
  EXPECT_EQ(TensorOf(third.get()).numel(), 2);  // row 2 is empty, row 0 gives 2 of 3
}

TEST_F(SparseTest, StorageMethodsFromTheHost) {
  std::vector<int64_t> sizes{4, 3};
  Value row(Boundary(a.row)), col(Boundary(a.col)), value(Boundary(a.value)), shape,
      storage;
  TSB_ASSERT_OK(tsb_list_new_int(sizes.data(), sizes.size(), shape.out()));
  TSB_ASSERT_OK(CallOp("torchsparse::storage_from_coo", {row.get(), col.get(), value.get(), shape.get()}, {},
                       storage.out()));
  tsb_type_info info = InfoOf(storage.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_CUSTOM_CLASS);
  EXPECT_STREQ(info.name, "__torch__.torch.classes.torchsparse.SparseStorage");

  auto call = [&](const tsb_any& object, const char* method, std::vector<tsb_any> args,
                  tsb_any* out) {
    return tsb_object_call(&object, method, ::tsb::CallArgs(args.data(), args.size()).get(), out);
  };
  Value rowptr, nnz, has, keys, transposed, dense;
  TSB_ASSERT_OK(call(storage.get(), "rowptr", {}, rowptr.out()));
  EXPECT_TRUE(torch::equal(TensorOf(rowptr.get()), a.rowptr));
  TSB_ASSERT_OK(call(storage.get(), "nnz", {}, nnz.out()));
  int64_t n = 0;
  TSB_ASSERT_OK(tsb_int_get(&nnz.get(), &n));
  EXPECT_EQ(n, 6);
  TSB_ASSERT_OK(call(storage.get(), "has_csr2csc", {}, has.out()));
  EXPECT_EQ(FromBoundary(has.get()).toBool(), false);
  Value filled;
  TSB_ASSERT_OK(call(storage.get(), "fill_cache", {}, filled.out()));
  TSB_ASSERT_OK(call(storage.get(), "cached_keys", {}, keys.out()));
  EXPECT_EQ(FromBoundary(keys.get()).toListRef().size(), 5u);
  TSB_ASSERT_OK(call(storage.get(), "t", {}, transposed.out()));
  TSB_ASSERT_OK(call(transposed.get(), "to_dense", {}, dense.out()));
  EXPECT_TRUE(torch::allclose(TensorOf(dense.get()), a.dense().t()));
  Value mat(Boundary(torch::randn({3, 2}, torch::kDouble))), result, out;
  TSB_ASSERT_OK(call(storage.get(), "spmm", {mat.get()}, result.out()));  // reduce defaults to sum
  EXPECT_TRUE(torch::allclose(FromBoundary(result.get()).toTupleRef().elements()[0].toTensor(),
                              a.dense().mm(FromBoundary(mat.get()).toTensor())));
}

TEST_F(SparseTest, BadInputIsAStatusNotACrash) {
  Value rowptr(Boundary(a.rowptr)), col(Boundary(torch::tensor({0, 3, 1, 2, 0, 2}))),
      value(Boundary(a.value)), mat(Boundary(torch::randn({3, 2}, torch::kDouble))), out;
  Status s(CallOp("torchsparse::spmm", {rowptr.get(), col.get(), value.get(), mat.get()}, {}, out.out()));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TORCH);
  EXPECT_THAT(MessageOf(s),
              HasSubstr("torchsparse::spmm(): argument 'col': expected entries in [0, 3), got 3 "
                        "at [1]"));

  Value floats(Boundary(torch::randn({3}))), text;
  TSB_ASSERT_OK(tsb_str_new("sum", 3, text.out()));
  tsb_any args[] = {rowptr.get(), floats.get(), value.get(), mat.get(), text.get()};
  Status wrong_dtype(tsb_function_call("torchsparse::spmm", ::tsb::CallArgs(args, 5).get(), out.out()));
  EXPECT_THAT(MessageOf(wrong_dtype),
              HasSubstr("argument 'col': expected a 1-D int64 tensor, got a 1-D Float tensor"));
  tsb_any wrong_kind[] = {rowptr.get(), text.get(), value.get(), mat.get(), text.get()};
  Status not_a_tensor(tsb_function_call("torchsparse::spmm", ::tsb::CallArgs(wrong_kind, 5).get(), out.out()));
  EXPECT_EQ(tsb_status_get_code(not_a_tensor.get()), TSB_ERR_TYPE) << MessageOf(not_a_tensor);

  std::vector<int64_t> sizes{4, 3};
  Value unsorted(Boundary(torch::tensor({1, 0, 0, 1, 3, 3}))), good_col(Boundary(a.col)),
      shape, storage;
  TSB_ASSERT_OK(tsb_list_new_int(sizes.data(), sizes.size(), shape.out()));
  Status bad_storage(CallOp("torchsparse::storage_from_coo",
                            {unsorted.get(), good_col.get(), value.get(), shape.get()}, {},
                            storage.out()));
  EXPECT_THAT(MessageOf(bad_storage),
              HasSubstr("argument 'row': expected entries sorted in ascending order"));
}

}  // namespace
}  // namespace tsb::testing
