// Tensors cross as DLPack with zero copy, and the deleter contract holds.
#include <dlpack/dlpack.h>
#include <torch/torch.h>

#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

class TensorDlpackTest : public AbiTest {};

// A tensor owned by the "host": 6 floats, with a deleter that counts calls.
struct ForeignTensor {
  float data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3};
  int deleter_calls = 0;
  DLManagedTensor managed{};

  ForeignTensor() {
    managed.dl_tensor.data = data;
    managed.dl_tensor.device = {kDLCPU, 0};
    managed.dl_tensor.ndim = 2;
    managed.dl_tensor.dtype = {kDLFloat, 32, 1};
    managed.dl_tensor.shape = shape;
    managed.dl_tensor.strides = nullptr;
    managed.dl_tensor.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      ++static_cast<ForeignTensor*>(self->manager_ctx)->deleter_calls;
    };
  }
};

TEST_F(TensorDlpackTest, OutSharesStorage) {
  at::Tensor t = torch::rand({4, 5});
  Value handle(Boundary(t));
  DLManagedTensor* managed = nullptr;
  TSB_ASSERT_OK(tsb_tensor_to_dlpack(&handle.get(), &managed));
  EXPECT_EQ(managed->dl_tensor.data, t.data_ptr());
  EXPECT_EQ(managed->dl_tensor.ndim, 2);
  EXPECT_EQ(managed->dl_tensor.shape[1], 5);
  managed->deleter(managed);
}

TEST_F(TensorDlpackTest, ExportOutlivesTheHandle) {
  DLManagedTensor* managed = nullptr;
  {
    Value handle(Boundary(torch::full({3}, 7.0)));
    TSB_ASSERT_OK(tsb_tensor_to_dlpack(&handle.get(), &managed));
  }
  EXPECT_EQ(static_cast<float*>(managed->dl_tensor.data)[2], 7.0f);
  managed->deleter(managed);
}

TEST_F(TensorDlpackTest, ForeignBufferIsWrappedNotCopied) {
  ForeignTensor foreign;
  {
    Value tensor;
    TSB_ASSERT_OK(tsb_tensor_from_dlpack(&foreign.managed, tensor.out()));
    at::Tensor t = FromBoundary(tensor.get()).toTensor();
    EXPECT_EQ(t.data_ptr(), foreign.data);
    EXPECT_EQ(t.sizes(), at::IntArrayRef({2, 3}));
    EXPECT_EQ(t[1][2].item<float>(), 5.0f);
    foreign.data[0] = 42;  // the host's writes are visible: same memory
    EXPECT_EQ(t[0][0].item<float>(), 42.0f);
    EXPECT_EQ(foreign.deleter_calls, 0);
  }
  EXPECT_EQ(foreign.deleter_calls, 1);
}

TEST_F(TensorDlpackTest, DeleterRunsOnceAfterTheLastReference) {
  ForeignTensor foreign;
  Value tensor;
  TSB_ASSERT_OK(tsb_tensor_from_dlpack(&foreign.managed, tensor.out()));
  // Two more owners: a list holding the tensor, and a retained copy.
  tsb_any items[] = {tensor.get(), tensor.get()};
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_TENSOR, items, 2, list.out()));
  tsb_any copy = tensor.get();
  tsb_any_retain(&copy);
  tensor = Value();
  tsb_any_release(&copy);
  EXPECT_EQ(foreign.deleter_calls, 0) << "the list still holds the tensor";
  list = Value();
  EXPECT_EQ(foreign.deleter_calls, 1);
}

TEST_F(TensorDlpackTest, FailureLeavesOwnershipWithTheCaller) {
  struct Case {
    const char* what;
    void (*spoil)(DLManagedTensor&);
    tsb_code code;
  };
  const Case cases[] = {
      {"byte_offset", [](DLManagedTensor& m) { m.dl_tensor.byte_offset = 4; },
       TSB_ERR_INVALID_ARGUMENT},
      {"device", [](DLManagedTensor& m) { m.dl_tensor.device = {kDLVulkan, 0}; },
       TSB_ERR_INVALID_ARGUMENT},
      {"dtype", [](DLManagedTensor& m) { m.dl_tensor.dtype = {kDLFloat, 7, 1}; },
       TSB_ERR_TORCH},
      {"shape", [](DLManagedTensor& m) { m.dl_tensor.shape = nullptr; },
       TSB_ERR_INVALID_ARGUMENT},
      // LibTorch 1.13 would call the deleter, then fail on numel.
      {"numel overflow", [](DLManagedTensor& m) { m.dl_tensor.shape[0] = INT64_MAX / 2; },
       TSB_ERR_INVALID_ARGUMENT},
      {"negative size", [](DLManagedTensor& m) { m.dl_tensor.shape[0] = -2; },
       TSB_ERR_INVALID_ARGUMENT},
      // LibTorch 1.13 would terminate the process on these two.
      {"negative stride", [](DLManagedTensor& m) {
         static int64_t strides[] = {-3, 1};
         m.dl_tensor.strides = strides;
       }, TSB_ERR_INVALID_ARGUMENT},
      {"stride overflow", [](DLManagedTensor& m) {
         static int64_t strides[] = {INT64_MAX / 2, 1};
         m.dl_tensor.strides = strides;
       }, TSB_ERR_INVALID_ARGUMENT},
  };
  for (const Case& c : cases) {
    ForeignTensor foreign;
    c.spoil(foreign.managed);
    tsb_any out = tsb_any_none();
    Status s(tsb_tensor_from_dlpack(&foreign.managed, &out));
    ASSERT_NE(s.get(), nullptr) << c.what;
    EXPECT_EQ(tsb_status_get_code(s.get()), c.code) << c.what << ": " << tsb_status_get_message(s.get());
    EXPECT_EQ(foreign.deleter_calls, 0) << c.what;
    EXPECT_EQ(out.type_index, TSB_TYPE_NONE) << c.what;
  }
}

TEST_F(TensorDlpackTest, ExtentErrorsSayWhatIsWrong) {
  ForeignTensor foreign;
  static int64_t strides[] = {1, -1};
  foreign.managed.dl_tensor.strides = strides;
  tsb_any out;
  Status s(tsb_tensor_from_dlpack(&foreign.managed, &out));
  EXPECT_STREQ(tsb_status_get_message(s.get()), "DLPack tensor has a negative stride in dimension 1");
  ForeignTensor huge;
  huge.managed.dl_tensor.shape[1] = INT64_MAX / 2;
  Status h(tsb_tensor_from_dlpack(&huge.managed, &out));
  EXPECT_STREQ(tsb_status_get_message(h.get()), "DLPack tensor's size in bytes overflows int64");
  huge.managed.dl_tensor.shape[0] = 8;
  Status n(tsb_tensor_from_dlpack(&huge.managed, &out));
  EXPECT_STREQ(tsb_status_get_message(n.get()), "DLPack tensor's size overflows int64");
}

// LibTorch alone would never call this deleter.
TEST_F(TensorDlpackTest, EmptyTensorMayHaveNullData) {
  ForeignTensor foreign;
  foreign.managed.dl_tensor.data = nullptr;
  foreign.managed.dl_tensor.shape[0] = 0;
  {
    Value tensor;
    TSB_ASSERT_OK(tsb_tensor_from_dlpack(&foreign.managed, tensor.out()));
    EXPECT_EQ(FromBoundary(tensor.get()).toTensor().numel(), 0);
  }
  EXPECT_EQ(foreign.deleter_calls, 1);
}

TEST_F(TensorDlpackTest, TorchErrorsComeWithoutBacktraceInTheMessage) {
  ForeignTensor foreign;
  foreign.managed.dl_tensor.dtype = {kDLFloat, 7, 1};
  tsb_any out;
  Status s(tsb_tensor_from_dlpack(&foreign.managed, &out));
  std::string message = tsb_status_get_message(s.get());
  EXPECT_NE(message.find("Unsupported kFloat bits 7"), std::string::npos) << message;
  EXPECT_EQ(message.find("Exception raised from"), std::string::npos) << message;
  EXPECT_NE(std::string(tsb_status_get_backtrace(s.get())).find("Exception raised from"),
            std::string::npos);
}

TEST_F(TensorDlpackTest, StridedTensorRoundTrip) {
  at::Tensor t = torch::arange(6, torch::kInt64).reshape({2, 3}).t();
  Value handle(Boundary(t));
  DLManagedTensor* managed = nullptr;
  TSB_ASSERT_OK(tsb_tensor_to_dlpack(&handle.get(), &managed));
  Value back;
  TSB_ASSERT_OK(tsb_tensor_from_dlpack(managed, back.out()));
  at::Tensor u = FromBoundary(back.get()).toTensor();
  EXPECT_EQ(u.data_ptr(), t.data_ptr());
  EXPECT_EQ(u.strides(), t.strides());
  EXPECT_TRUE(u.equal(t));
}

// A host's bool buffer, as DLPack 0.8's kDLBool (code 6, 8 bits), enters
// with either LibTorch and its deleter runs once (roundtrip_test.cc: out).
TEST_F(TensorDlpackTest, BoolBufferFromAHost) {
  struct Host {
    bool data[2] = {false, true};
    int64_t shape[1] = {2};
    int deleter_calls = 0;
    DLManagedTensor managed{};
  } host;
  host.managed.dl_tensor = {host.data, {kDLCPU, 0}, 1, {6, 8, 1}, host.shape, nullptr, 0};
  host.managed.manager_ctx = &host;
  host.managed.deleter = [](DLManagedTensor* self) {
    ++static_cast<Host*>(self->manager_ctx)->deleter_calls;
  };
  {
    Value from_host;
    TSB_ASSERT_OK(tsb_tensor_from_dlpack(&host.managed, from_host.out()));
    at::Tensor h = FromBoundary(from_host.get()).toTensor();
    EXPECT_EQ(h.scalar_type(), at::kBool);
    EXPECT_TRUE(h.equal(torch::tensor({false, true})));
  }
  EXPECT_EQ(host.deleter_calls, 1);
  // Another byte is not a bool: refused, the buffer still the host's.
  reinterpret_cast<unsigned char*>(host.data)[1] = 90;
  tsb_any out;
  Status bad(tsb_tensor_from_dlpack(&host.managed, &out));
  ASSERT_NE(bad.get(), nullptr);
  EXPECT_STREQ(tsb_status_get_message(bad.get()),
               "expected a bool tensor's bytes to be 0 or 1 (DLPack's kDLBool), found 90");
  EXPECT_EQ(host.deleter_calls, 1);
}

}  // namespace
}  // namespace tsb::testing
