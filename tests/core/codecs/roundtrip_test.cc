// IValue -> boundary -> (host rebuild through the C ABI) -> IValue, for every
// builtin kind, nested, and empty containers.
#include <dlpack/dlpack.h>
#include <torch/torch.h>

#include "core/compat/torch_compat.h"
#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

class RoundTripTest : public AbiTest {
 protected:
  // Round trips `value` seen as `annotation` and checks it comes back equal,
  // with the same boundary type index on the way out and on the way in.
  void ExpectRoundTrip(const c10::IValue& value, const char* annotation) {
    Value out(Boundary(value, annotation));
    EXPECT_EQ(out.get().type_index, TypeOf(annotation)) << annotation;
    Value rebuilt(HostRebuild(out.get()));
    EXPECT_EQ(rebuilt.get().type_index, out.get().type_index) << annotation;
    EXPECT_TRUE(SameValue(value, FromBoundary(rebuilt.get()))) << annotation;
  }
};

TEST_F(RoundTripTest, Scalars) {
  ExpectRoundTrip(c10::IValue(), "None");
  ExpectRoundTrip(true, "bool");
  ExpectRoundTrip(false, "bool");
  ExpectRoundTrip(int64_t{-42}, "int");
  ExpectRoundTrip(int64_t{INT64_MAX}, "int");
  ExpectRoundTrip(3.25, "float");
  ExpectRoundTrip(c10::complex<double>(1.5, -2.0), "complex");
  ExpectRoundTrip(std::string("héllo\0world", 12), "str");
  ExpectRoundTrip(std::string(), "str");
}

TEST_F(RoundTripTest, ScalarsTravelInline) {
  for (const char* type : {"None", "bool", "int", "float"}) {
    c10::IValue value = std::string(type) == "None" ? c10::IValue()
                        : std::string(type) == "bool" ? c10::IValue(true)
                        : std::string(type) == "int" ? c10::IValue(int64_t{7})
                                                     : c10::IValue(1.0);
    Value out(Boundary(value, type));
    EXPECT_EQ(out.get().flags & TSB_FLAG_HANDLE, 0u) << type;
  }
  Value i(Boundary(int64_t{7}, "int"));
  EXPECT_EQ(i.get().u.i, 7);
  Value f(Boundary(2.5, "float"));
  EXPECT_EQ(f.get().u.d, 2.5);
}

TEST_F(RoundTripTest, TorchEnumerations) {
  ExpectRoundTrip(c10::Device("cpu"), "Device");
  ExpectRoundTrip(c10::Device(c10::DeviceType::CUDA, 3), "Device");
  ExpectRoundTrip(static_cast<int64_t>(at::kHalf), "ScalarType");
  ExpectRoundTrip(static_cast<int64_t>(at::kSparse), "Layout");
  ExpectRoundTrip(static_cast<int64_t>(at::MemoryFormat::ChannelsLast), "MemoryFormat");
}

TEST_F(RoundTripTest, DtypeIsNotAnIntAtTheBoundary) {
  Value dtype(Boundary(static_cast<int64_t>(at::kFloat), "ScalarType"));
  EXPECT_EQ(::tsb::KindOf(dtype.get().type_index), TSB_KIND_DTYPE);
  int32_t code = -1;
  TSB_EXPECT_OK(tsb_dtype_get(&dtype.get(), &code));
  EXPECT_EQ(code, static_cast<int32_t>(at::kFloat));
  int64_t as_int = 0;
  Status wrong(tsb_int_get(&dtype.get(), &as_int));
  EXPECT_EQ(tsb_status_get_code(wrong.get()), TSB_ERR_TYPE);
}

TEST_F(RoundTripTest, TensorsShareStorage) {
  at::Tensor t = torch::arange(12, torch::kFloat).reshape({3, 4});
  ExpectRoundTrip(t, "Tensor");
  ExpectRoundTrip(t.transpose(0, 1), "Tensor");  // strided, not contiguous
  ExpectRoundTrip(torch::tensor({1.5, 2.5}, torch::kFloat64), "Tensor");
}

TEST_F(RoundTripTest, BoolTensorsCrossAsHandlesAndAsDlpack) {
  at::Tensor t = torch::tensor({true, false});
  Value handle(Boundary(t));
  EXPECT_TRUE(SameValue(t, FromBoundary(handle.get())));
  // DLPack 0.8's kDLBool (6), one byte a value, on both releases (LibTorch
  // 1.13's own converter, DLPack 0.6, has none): out and back, zero copy.
  DLManagedTensor* managed = nullptr;
  TSB_ASSERT_OK(tsb_tensor_to_dlpack(&handle.get(), &managed));
  EXPECT_EQ(managed->dl_tensor.dtype.code, 6);
  EXPECT_EQ(managed->dl_tensor.dtype.bits, 8);
  EXPECT_EQ(managed->dl_tensor.data, t.data_ptr());
  Value back;
  TSB_ASSERT_OK(tsb_tensor_from_dlpack(managed, back.out()));
  EXPECT_TRUE(SameValue(t, FromBoundary(back.get())));
  EXPECT_EQ(FromBoundary(back.get()).toTensor().data_ptr(), t.data_ptr());
}

TEST_F(RoundTripTest, ListsOfEveryElementKind) {
  ExpectRoundTrip(c10::List<int64_t>({1, 2, 3}), "List[int]");
  ExpectRoundTrip(c10::List<double>({1.5, -2.5}), "List[float]");
  ExpectRoundTrip(c10::List<bool>({true, false, true}), "List[bool]");
  ExpectRoundTrip(c10::List<std::string>({"a", "bc"}), "List[str]");
  ExpectRoundTrip(c10::List<at::Tensor>({torch::ones({2}), torch::zeros({1, 1})}),
                  "List[Tensor]");
  ExpectRoundTrip(c10::List<c10::complex<double>>({{1, 2}, {3, 4}}), "List[complex]");
  c10::impl::GenericList devices(c10::DeviceObjType::get());
  devices.push_back(c10::Device("cpu"));
  ExpectRoundTrip(devices, "List[Device]");
  ExpectRoundTrip(c10::List<c10::List<int64_t>>({c10::List<int64_t>({1}), c10::List<int64_t>()}),
                  "List[List[int]]");
}

TEST_F(RoundTripTest, DictsOfEveryKeyKind) {
  c10::Dict<std::string, int64_t> by_str;
  by_str.insert("zeta", 1);
  by_str.insert("alpha", 2);  // insertion order, not sorted
  ExpectRoundTrip(by_str, "Dict[str, int]");

  c10::Dict<int64_t, std::string> by_int;
  by_int.insert(10, "ten");
  by_int.insert(-1, "minus one");
  ExpectRoundTrip(by_int, "Dict[int, str]");

  c10::Dict<double, bool> by_float;
  by_float.insert(0.5, true);
  ExpectRoundTrip(by_float, "Dict[float, bool]");

  c10::Dict<bool, double> by_bool;
  by_bool.insert(true, 1.0);
  by_bool.insert(false, 0.0);
  ExpectRoundTrip(by_bool, "Dict[bool, float]");

  c10::Dict<at::Tensor, int64_t> by_tensor;
  by_tensor.insert(torch::ones({1}), 1);
  ExpectRoundTrip(by_tensor, "Dict[Tensor, int]");
}

// The bulk builders fill the list in chunks of 4096: lengths on both sides of
// a chunk boundary come back element for element, typed as the list they are.
TEST_F(RoundTripTest, BulkBuiltListsAcrossChunkBoundaries) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097},
                   size_t{2 * 4096 + 3}}) {
    std::vector<int64_t> ints(n);
    std::vector<double> floats(n);
    std::unique_ptr<bool[]> bools(new bool[n + 1]);
    for (size_t i = 0; i < n; ++i) {
      ints[i] = static_cast<int64_t>(i) * 7 - 3;
      floats[i] = static_cast<double>(i) + 0.5;
      bools[i] = i % 3 == 1;
    }
    Value li, lf, lb;
    TSB_ASSERT_OK(tsb_list_new_int(ints.data(), n, li.out()));
    TSB_ASSERT_OK(tsb_list_new_float(floats.data(), n, lf.out()));
    TSB_ASSERT_OK(tsb_list_new_bool(bools.get(), n, lb.out()));
    EXPECT_EQ(li.get().type_index, TypeOf("List[int]")) << n;
    EXPECT_EQ(lf.get().type_index, TypeOf("List[float]")) << n;
    EXPECT_EQ(lb.get().type_index, TypeOf("List[bool]")) << n;
    EXPECT_TRUE(SameValue(FromBoundary(li.get()), c10::List<int64_t>(ints))) << n;
    EXPECT_TRUE(SameValue(FromBoundary(lf.get()), c10::List<double>(floats))) << n;
    c10::List<bool> expected_bools;
    for (size_t i = 0; i < n; ++i) expected_bools.push_back(bools[i]);
    EXPECT_TRUE(SameValue(FromBoundary(lb.get()), expected_bools)) << n;
    std::vector<int64_t> back(n, -1);
    TSB_ASSERT_OK(tsb_list_copy_int(&li.get(), n, back.data()));
    EXPECT_EQ(back, ints) << n;
  }
}

TEST_F(RoundTripTest, NestedListOfDictOfListOfTensor) {
  c10::List<c10::Dict<int64_t, c10::List<at::Tensor>>> outer;
  for (int64_t d = 0; d < 3; ++d) {
    c10::Dict<int64_t, c10::List<at::Tensor>> dict;
    for (int64_t k = 0; k < d; ++k) {
      dict.insert(k * 10, c10::List<at::Tensor>({torch::full({2}, d), torch::full({k + 1}, k)}));
    }
    outer.push_back(dict);
  }
  ExpectRoundTrip(outer, "List[Dict[int, List[Tensor]]]");
}

TEST_F(RoundTripTest, EmptyContainersKeepTheirElementType) {
  ExpectRoundTrip(c10::List<int64_t>(), "List[int]");
  ExpectRoundTrip(c10::List<at::Tensor>(), "List[Tensor]");
  ExpectRoundTrip(c10::Dict<std::string, c10::List<double>>(), "Dict[str, List[float]]");

  // The type is the container's own, never guessed from an element.
  Value empty(Boundary(c10::List<std::string>()));
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_type_get_info(empty.get().type_index, &info));
  EXPECT_STREQ(info.annotation, "List[str]");
  ASSERT_EQ(info.num_contained, 1u);
  EXPECT_EQ(info.contained[0], TSB_TYPE_STR);
}

TEST_F(RoundTripTest, AnyResolvesToEachValuesOwnType) {
  c10::impl::GenericList mixed(c10::AnyType::get());
  mixed.push_back(int64_t{1});
  mixed.push_back(std::string("two"));
  mixed.push_back(c10::List<double>({3.0}));
  Value list(Boundary(mixed, "List[Any]"));
  const int32_t expected[] = {TSB_TYPE_INT, TSB_TYPE_STR, TypeOf("List[float]")};
  for (size_t i = 0; i < 3; ++i) {
    Value item;
    TSB_ASSERT_OK(tsb_list_get(&list.get(), i, item.out()));
    EXPECT_EQ(item.get().type_index, expected[i]) << i;
  }
}

}  // namespace
}  // namespace tsb::testing
