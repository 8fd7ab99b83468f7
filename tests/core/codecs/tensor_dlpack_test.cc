// Tensors cross as DLPack with zero copy, and the deleter contract holds.
#include <dlpack/dlpack.h>
#include <torch/torch.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "core/compat/torch_compat.h"  // TSB_TORCH_AT_LEAST: the versioned calls' expectations
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

// An empty host tensor with NULL data enters through `import` (either
// DLPack struct) and its deleter runs once; LibTorch alone would never call it.
template <typename Foreign, typename Managed>
void ExpectEmptyWithNullData(tsb_status* (*import)(Managed*, tsb_any*)) {
  Foreign foreign;
  foreign.managed.dl_tensor.data = nullptr;
  foreign.managed.dl_tensor.shape[0] = 0;
  {
    Value tensor;
    TSB_ASSERT_OK(import(&foreign.managed, tensor.out()));
    EXPECT_EQ(FromBoundary(tensor.get()).toTensor().numel(), 0);
  }
  EXPECT_EQ(foreign.deleter_calls, 1);
}

TEST_F(TensorDlpackTest, EmptyTensorMayHaveNullData) {
  ExpectEmptyWithNullData<ForeignTensor>(tsb_tensor_from_dlpack);
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

// ------------------------------------------------- versioned DLPack (ABI 1.6)

#if TSB_TORCH_AT_LEAST(2, 9)

// A host's versioned tensor: 6 floats, a deleter that counts calls.
struct ForeignVersioned {
  float data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3};
  int deleter_calls = 0;
  DLManagedTensorVersioned managed{};

  explicit ForeignVersioned(uint64_t flags = 0) {
    managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    managed.flags = flags;
    managed.dl_tensor = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, nullptr, 0};
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensorVersioned* self) {
      ++static_cast<ForeignVersioned*>(self->manager_ctx)->deleter_calls;
    };
  }
};

TEST_F(TensorDlpackTest, VersionedRoundTripSharesStorage) {
  at::Tensor t = torch::arange(6, torch::kInt64).reshape({2, 3}).t();
  Value handle(Boundary(t));
  DLManagedTensorVersioned* managed = nullptr;
  TSB_ASSERT_OK(tsb_tensor_to_dlpack_versioned(&handle.get(), &managed));
  EXPECT_EQ(managed->version.major, DLPACK_MAJOR_VERSION);
  EXPECT_EQ(managed->flags, 0u) << "writable, not a copy";
  EXPECT_EQ(managed->dl_tensor.data, t.data_ptr());
  Value back;
  TSB_ASSERT_OK(tsb_tensor_from_dlpack_versioned(managed, back.out()));
  at::Tensor u = FromBoundary(back.get()).toTensor();
  EXPECT_EQ(u.data_ptr(), t.data_ptr());
  EXPECT_EQ(u.strides(), t.strides());
  EXPECT_TRUE(u.equal(t));
}

TEST_F(TensorDlpackTest, VersionedForeignBufferIsWrappedAndReleasedOnce) {
  ForeignVersioned foreign;
  {
    Value tensor;
    TSB_ASSERT_OK(tsb_tensor_from_dlpack_versioned(&foreign.managed, tensor.out()));
    at::Tensor t = FromBoundary(tensor.get()).toTensor();
    EXPECT_EQ(t.data_ptr(), foreign.data);
    EXPECT_EQ(foreign.deleter_calls, 0);
  }
  EXPECT_EQ(foreign.deleter_calls, 1);
}

// LibTorch's converter would share a read-only buffer, writable: tsbridge
// copies it and hands the producer's back before returning.
TEST_F(TensorDlpackTest, VersionedReadOnlyInputIsCopiedNeverWritten) {
  ForeignVersioned foreign(DLPACK_FLAG_BITMASK_READ_ONLY);
  Value tensor;
  TSB_ASSERT_OK(tsb_tensor_from_dlpack_versioned(&foreign.managed, tensor.out()));
  EXPECT_EQ(foreign.deleter_calls, 1) << "called before the call returned";
  at::Tensor t = FromBoundary(tensor.get()).toTensor();
  EXPECT_NE(t.data_ptr(), foreign.data);
  EXPECT_TRUE(t.equal(torch::arange(6, torch::kFloat).reshape({2, 3})));
  t.fill_(9);
  EXPECT_EQ(foreign.data[5], 5.0f) << "the producer's buffer was written";
  tensor = Value();
  EXPECT_EQ(foreign.deleter_calls, 1);
}

TEST_F(TensorDlpackTest, VersionedWrongMajorIsRefusedUnread) {
  ForeignVersioned foreign;
  foreign.managed.version.major = DLPACK_MAJOR_VERSION + 1;
  foreign.managed.dl_tensor.shape = nullptr;  // read, it would be a different error
  tsb_any out = tsb_any_none();
  Status s(tsb_tensor_from_dlpack_versioned(&foreign.managed, &out));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  const std::string message = tsb_status_get_message(s.get());
  EXPECT_NE(message.find(absl::StrCat("expected a DLManagedTensorVersioned of DLPack major version ",
                                      DLPACK_MAJOR_VERSION)),
            std::string::npos) << message;
  EXPECT_NE(message.find(absl::StrCat("found ", DLPACK_MAJOR_VERSION + 1, ".")),
            std::string::npos) << message;
  EXPECT_EQ(foreign.deleter_calls, 0);
  EXPECT_EQ(out.type_index, TSB_TYPE_NONE);
}

// What the unversioned import refuses, the versioned one does too, and the
// caller keeps its tensor.
TEST_F(TensorDlpackTest, VersionedFailureLeavesOwnershipWithTheCaller) {
  const std::pair<const char*, void (*)(DLManagedTensorVersioned&)> cases[] = {
      {"byte_offset", [](DLManagedTensorVersioned& m) { m.dl_tensor.byte_offset = 4; }},
      {"device", [](DLManagedTensorVersioned& m) { m.dl_tensor.device = {kDLVulkan, 0}; }},
      {"shape", [](DLManagedTensorVersioned& m) { m.dl_tensor.shape = nullptr; }},
      {"negative size", [](DLManagedTensorVersioned& m) { m.dl_tensor.shape[0] = -2; }},
      {"float6", [](DLManagedTensorVersioned& m) { m.dl_tensor.dtype = {kDLFloat6_e2m3fn, 6, 1}; }},
  };
  for (const auto& [what, spoil] : cases) {
    ForeignVersioned foreign;
    spoil(foreign.managed);
    tsb_any out = tsb_any_none();
    Status s(tsb_tensor_from_dlpack_versioned(&foreign.managed, &out));
    ASSERT_NE(s.get(), nullptr) << what;
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT) << what << ": "
                                                                      << tsb_status_get_message(s.get());
    EXPECT_EQ(foreign.deleter_calls, 0) << what;
    EXPECT_EQ(out.type_index, TSB_TYPE_NONE) << what;
  }
  ForeignVersioned float6;
  float6.managed.dl_tensor.dtype = {kDLFloat6_e2m3fn, 6, 1};
  tsb_any out;
  Status s(tsb_tensor_from_dlpack_versioned(&float6.managed, &out));
  EXPECT_NE(std::string(tsb_status_get_message(s.get()))
                .find("expected a DLPack dtype LibTorch has, found code 15, 6 bits, 1 lanes"),
            std::string::npos) << tsb_status_get_message(s.get());
}

TEST_F(TensorDlpackTest, VersionedEmptyTensorMayHaveNullData) {
  ExpectEmptyWithNullData<ForeignVersioned>(tsb_tensor_from_dlpack_versioned);
}

// Bool and the narrow floats cross with DLPack 1.3's codes, both ways, as
// the same bytes.
TEST_F(TensorDlpackTest, VersionedBoolAndNarrowFloats) {
  const std::pair<at::ScalarType, DLDataType> cases[] = {
      {at::kBool, {kDLBool, 8, 1}},
      {at::kFloat8_e5m2, {kDLFloat8_e5m2, 8, 1}},
      {at::kFloat8_e4m3fn, {kDLFloat8_e4m3fn, 8, 1}},
      {at::kFloat8_e5m2fnuz, {kDLFloat8_e5m2fnuz, 8, 1}},
      {at::kFloat8_e4m3fnuz, {kDLFloat8_e4m3fnuz, 8, 1}},
      {at::kFloat8_e8m0fnu, {kDLFloat8_e8m0fnu, 8, 1}},
      {at::kFloat4_e2m1fn_x2, {kDLFloat4_e2m1fn, 4, 2}},  // two 4-bit values a byte
  };
  for (const auto& [dtype, dl] : cases) {
    at::Tensor t = torch::tensor({0, 1, 1, 0, 1}, torch::kUInt8).view(dtype);
    Value handle(Boundary(t));
    DLManagedTensorVersioned* managed = nullptr;
    TSB_ASSERT_OK(tsb_tensor_to_dlpack_versioned(&handle.get(), &managed));
    EXPECT_EQ(managed->dl_tensor.dtype.code, dl.code) << dtype;
    EXPECT_EQ(managed->dl_tensor.dtype.bits, dl.bits) << dtype;
    EXPECT_EQ(managed->dl_tensor.dtype.lanes, dl.lanes) << dtype;
    Value back;
    TSB_ASSERT_OK(tsb_tensor_from_dlpack_versioned(managed, back.out()));
    at::Tensor u = FromBoundary(back.get()).toTensor();
    EXPECT_EQ(u.scalar_type(), dtype);
    EXPECT_EQ(u.data_ptr(), t.data_ptr());
    EXPECT_TRUE(u.view(at::kByte).equal(t.view(at::kByte))) << dtype;
  }
}

// A dtype DLPack has no code for is refused by name, nothing allocated.
TEST_F(TensorDlpackTest, VersionedRefusesADtypeDLPackCannotExpress) {
  std::vector<std::pair<at::Tensor, std::string>> cases = {
      {at::quantize_per_tensor(torch::ones({2}), 0.5, 0, at::kQUInt8), "QUInt8"}};
#if TSB_TORCH_AT_LEAST(2, 14)
  cases.emplace_back(torch::zeros({2}, at::ScalarType::BComplex32), "BComplex32");  // no DLPack code
#endif
  for (const auto& [tensor, name] : cases) {
    Value handle(Boundary(tensor));
    DLManagedTensorVersioned* managed = nullptr;
    Status s(tsb_tensor_to_dlpack_versioned(&handle.get(), &managed));
    ASSERT_NE(s.get(), nullptr) << name;
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsb_status_get_message(s.get()))
                  .find("expected a tensor whose dtype DLPack can express, found " + name),
              std::string::npos) << tsb_status_get_message(s.get());
    EXPECT_EQ(managed, nullptr);
  }
}

TEST_F(TensorDlpackTest, VersionedNullArguments) {
  tsb_any out;
  ExpectStatus(tsb_tensor_from_dlpack_versioned(nullptr, &out), TSB_ERR_INVALID_ARGUMENT, "",
               "argument 'managed' is NULL");
  Value handle(Boundary(torch::ones({1})));
  ExpectStatus(tsb_tensor_to_dlpack_versioned(&handle.get(), nullptr), TSB_ERR_INVALID_ARGUMENT,
               "", "argument 'out' is NULL");
}

#else  // LibTorch before 2.9: no versioned converters

TEST_F(TensorDlpackTest, VersionedCallsNeedLibTorch29) {
  Value handle(Boundary(torch::ones({2})));
  struct DLManagedTensorVersioned* managed = nullptr;
  Status to(tsb_tensor_to_dlpack_versioned(&handle.get(), &managed));
  ASSERT_NE(to.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(to.get()), TSB_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(tsb_status_get_message(to.get()))
                .find("tsb_tensor_to_dlpack_versioned needs LibTorch 2.9 or newer"),
            std::string::npos) << tsb_status_get_message(to.get());
  EXPECT_EQ(managed, nullptr);
  // Nothing of the argument is read: this LibTorch does not know its layout.
  alignas(16) unsigned char junk[128];
  std::memset(junk, 0xff, sizeof junk);
  tsb_any out = tsb_any_none();
  Status from(tsb_tensor_from_dlpack_versioned(
      reinterpret_cast<struct DLManagedTensorVersioned*>(junk), &out));
  ASSERT_NE(from.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(from.get()), TSB_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(tsb_status_get_message(from.get()))
                .find("tsb_tensor_from_dlpack_versioned needs LibTorch 2.9 or newer"),
            std::string::npos) << tsb_status_get_message(from.get());
  EXPECT_EQ(out.type_index, TSB_TYPE_NONE);
}

#endif  // TSB_TORCH_AT_LEAST(2, 9)

}  // namespace
}  // namespace tsb::testing
