// Tensors whose elements lie outside their storage (core/value/
// tensor_storage.h), as LibTorch's unpickler builds them from a file: found,
// named by path, and refused before anything reads them.
#include <ATen/ATen.h>
#include <ATen/core/List.h>
#include <gtest/gtest.h>

#include "core/value/nesting.h"
#include "tsbridge/plugin/errors.hpp"
#include "core/value/tensor_storage.h"

namespace tsb {
namespace {

// `tensor` with sizes, strides and offset set as the unpickler sets them:
// on the TensorImpl, unchecked.
at::Tensor Restrided(at::Tensor tensor, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                     int64_t offset = 0) {
  tensor.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides);
  tensor.unsafeGetTensorImpl()->set_storage_offset(offset);
  return tensor;
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

TEST(TensorStorageTest, WhatLibTorchMakesPasses) {
  const at::Tensor t = at::arange(24, at::kFloat).reshape({2, 3, 4});
  EXPECT_TRUE(CheckTensorStorage(t).ok());
  EXPECT_TRUE(CheckTensorStorage(t.transpose(0, 2)).ok());           // not contiguous
  EXPECT_TRUE(CheckTensorStorage(t.select(2, 3)).ok());               // an offset
  EXPECT_TRUE(CheckTensorStorage(at::ones({1}).expand({5, 7})).ok());  // stride 0
  EXPECT_TRUE(CheckTensorStorage(at::empty({0, 3})).ok());
  EXPECT_TRUE(CheckTensorStorage(at::scalar_tensor(2.5)).ok());       // 0-d
  EXPECT_TRUE(CheckTensorStorage(at::Tensor()).ok());                 // undefined
  EXPECT_TRUE(CheckTensorStorage(at::eye(3).to_sparse()).ok());
}

TEST(TensorStorageTest, ElementsPastTheStorageAreRefused) {
  // The fuzzer's finding: a size byte changed from 3 to 9.
  EXPECT_EQ(MessageOf(CheckTensorStorage(Restrided(at::arange(3), {9}, {1}))),
            "expected a tensor whose elements lie inside its storage, found sizes [9], "
            "strides [1] and offset 0 that need 72 bytes of a 24-byte storage");
  EXPECT_FALSE(CheckTensorStorage(Restrided(at::arange(6), {2, 3}, {4, 1})).ok());
  EXPECT_FALSE(CheckTensorStorage(Restrided(at::arange(6), {6}, {1}, 1)).ok());
  // The same tensor in bounds, to show the check is the bound and not the edit.
  EXPECT_TRUE(CheckTensorStorage(Restrided(at::arange(6), {2, 3}, {3, 1})).ok());
  EXPECT_TRUE(CheckTensorStorage(Restrided(at::arange(6), {5}, {1}, 1)).ok());
  // An empty tensor needs no storage, whatever its strides.
  EXPECT_TRUE(CheckTensorStorage(Restrided(at::arange(1), {0, 1000}, {1000, 1})).ok());
}

TEST(TensorStorageTest, NegativeOffsetsAndOverflowingExtentsAreRefused) {
  EXPECT_NE(MessageOf(CheckTensorStorage(Restrided(at::arange(6), {3}, {1}, -1)))
                .find("(a negative offset)"),
            std::string::npos);
  // A numel that fits, an extent in bytes that does not.
  EXPECT_NE(MessageOf(CheckTensorStorage(Restrided(at::arange(6), {3}, {int64_t{1} << 62})))
                .find("(their extent overflows)"),
            std::string::npos);
}

TEST(TensorStorageTest, SparseIndicesOutsideTheSizesAreRefused) {
  const at::Tensor indices = at::tensor({0, 7}, at::kLong).reshape({1, 2});
  const at::Tensor bad = at::_sparse_coo_tensor_unsafe(indices, at::ones({2}), {3});
  const std::string message = MessageOf(CheckTensorStorage(bad));
  EXPECT_EQ(message.rfind("expected a sparse tensor whose indices lie inside its sizes", 0), 0u)
      << message;
  EXPECT_TRUE(CheckTensorStorage(at::_sparse_coo_tensor_unsafe(indices, at::ones({2}), {8}))
                  .ok());
}

TEST(TensorStorageTest, CheckLoadedNamesTheTensorsPath) {
  c10::impl::GenericList list(c10::TensorType::get());
  list.push_back(at::arange(3));
  list.push_back(Restrided(at::arange(3), {4}, {1}));
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("a", c10::IValue(list));
  const absl::Status status = CheckLoaded(c10::IValue(dict));
  EXPECT_NE(MessageOf(status).find("need 32 bytes of a 24-byte storage"), std::string::npos)
      << MessageOf(status);
  EXPECT_EQ(PathOf(status), "key \"a\" \u2192 [1]");
  EXPECT_NE(MessageOf(CheckLoaded(c10::IValue(Restrided(at::arange(3), {4}, {1}))))
                .find("(the value itself)"),
            std::string::npos);
  // CheckNesting, for values a host built, does not look at tensors.
  EXPECT_TRUE(CheckNesting(c10::IValue(dict)).ok());
}

}  // namespace
}  // namespace tsb
