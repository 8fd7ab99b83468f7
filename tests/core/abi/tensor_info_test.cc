// tsb_tensor_get_info and tsb_list_get_strs: what a tensor is, without an export; a sparse tensor
// is described, and refused by DLPack with its layout named.
#include <string>

#include <ATen/ATen.h>
#include <ATen/dlpack.h>

#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

using TensorInfoTest = AbiTest;

TEST_F(TensorInfoTest, AStridedView) {
  at::Tensor base = at::arange(12, at::kFloat).reshape({3, 4});
  Value t(Boundary(base.slice(1, 1, 3)));  // a 3x2 view at offset 1
  tsb_tensor_info info{};
  info.struct_size = sizeof info;
  TSB_ASSERT_OK(tsb_tensor_get_info(&t.get(), &info));
  EXPECT_EQ(info.dtype, TSB_DTYPE_FLOAT32);
  EXPECT_EQ(info.layout, TSB_LAYOUT_STRIDED);
  EXPECT_EQ(info.device_type, TSB_DEVICE_CPU);
  EXPECT_EQ(info.device_index, -1);
  ASSERT_EQ(info.ndim, 2u);
  EXPECT_EQ(info.sizes[0], 3);
  EXPECT_EQ(info.sizes[1], 2);
  EXPECT_EQ(info.strides[0], 4);
  EXPECT_EQ(info.strides[1], 1);
  EXPECT_EQ(info.storage_offset, 1);
  EXPECT_EQ(info.numel, 6);
  EXPECT_FALSE(info.requires_grad);
  EXPECT_FALSE(info.is_contiguous);
}

TEST_F(TensorInfoTest, ASparseTensorIsDescribedAndRefusedByDLPack) {
  Value t(Boundary(at::eye(3).to_sparse()));
  tsb_tensor_info info{};
  info.struct_size = sizeof info;
  TSB_ASSERT_OK(tsb_tensor_get_info(&t.get(), &info));
  EXPECT_EQ(info.layout, TSB_LAYOUT_SPARSE_COO);
  ASSERT_EQ(info.ndim, 2u);
  EXPECT_EQ(info.sizes[1], 3);
  EXPECT_EQ(info.strides, nullptr);
  EXPECT_EQ(info.numel, 9);
  DLManagedTensor* out = nullptr;
  ExpectStatus(tsb_tensor_to_dlpack(&t.get(), &out), TSB_ERR_UNSUPPORTED, "",
               "expected a strided tensor (DLPack holds no other layout), got a sparse_coo "
               "tensor: export its parts (aten::_indices and aten::_values for COO; "
               "aten::crow_indices, aten::col_indices and aten::values for CSR) or "
               "aten::to_dense");
  EXPECT_EQ(out, nullptr);
}

TEST_F(TensorInfoTest, AnOlderShorterStructGetsTheFieldsItHas) {
  Value t(Boundary(at::ones({2})));
  struct {
    size_t struct_size;
    int32_t dtype;
    int32_t layout;
  } old{};
  old.struct_size = sizeof old;
  TSB_ASSERT_OK(tsb_tensor_get_info(&t.get(), reinterpret_cast<tsb_tensor_info*>(&old)));
  EXPECT_EQ(old.dtype, TSB_DTYPE_FLOAT32);
  EXPECT_EQ(old.layout, TSB_LAYOUT_STRIDED);
}

TEST_F(TensorInfoTest, NotATensor) {
  tsb_any three = tsb_any_int(3);
  tsb_tensor_info info{};
  info.struct_size = sizeof info;
  ExpectStatus(tsb_tensor_get_info(&three, &info), TSB_ERR_TYPE, "", "expected Tensor, got int 3");
}

// tsb_list_get_strs: a List[str]'s bytes, borrowed, in one call (beside the
// tensor info: both read a value in place, with no handle made).
using ListStrsTest = AbiTest;

TEST_F(ListStrsTest, ReadWithoutACopy) {
  tsb_any items[3] = {tsb_any_borrowed_str("a"), tsb_any_borrowed_str(""),
                      tsb_any_borrowed_str("xyz")};
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_STR, items, 3, list.out()));
  const char* data[3] = {};
  size_t lens[3] = {};
  TSB_ASSERT_OK(tsb_list_get_strs(&list.get(), 3, data, lens));
  EXPECT_STREQ(data[0], "a");
  EXPECT_EQ(lens[1], 0u);
  EXPECT_EQ(std::string(data[2], lens[2]), "xyz");
  const c10::IValue own = FromBoundary(list.get());
  EXPECT_EQ(data[2], own.toListRef()[2].toStringRef().c_str());  // the list's own bytes
  ExpectStatus(tsb_list_get_strs(&list.get(), 2, data, lens), TSB_ERR_OUT_OF_RANGE, "",
               "buffer holds 2 elements but the list has 3");
  Value ints;
  TSB_ASSERT_OK(tsb_list_new_int(nullptr, 0, ints.out()));
  ExpectStatus(tsb_list_get_strs(&ints.get(), 0, data, lens), TSB_ERR_TYPE, "",
               "expected List[str], got List[int] of length 0");
}

}  // namespace
}  // namespace tsb::testing
