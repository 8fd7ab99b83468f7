// The kinds the core carries without plugins (Tensor, scalars, str, List,
// Dict): C++ → IValue → boundary → IValue → C++ round trips, typed IValues,
// and FromIValue errors with their exact text and path.
#include <torch/torch.h>

#include <complex>
#include <limits>
#include <map>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "tests/sdk/sdk_test_util.h"
#include "tsbridge/plugin/codecs/map.hpp"
#include "tsbridge/plugin/codecs/scalar.hpp"
#include "tsbridge/plugin/codecs/string.hpp"
#include "tsbridge/plugin/codecs/tensor.hpp"
#include "tsbridge/plugin/codecs/vector.hpp"

namespace tsb::sdk_testing {
namespace {

using TensorCodec = SdkTest;
using ScalarCodec = SdkTest;
using StringCodec = SdkTest;
using VectorCodec = SdkTest;
using MapCodec = SdkTest;

// ------------------------------------------------------------------ Tensor

TEST_F(TensorCodec, RoundTripSharesTheTensor) {
  ExpectRoundTrip(torch::arange(6, torch::kFloat).reshape({2, 3}));
  ExpectRoundTrip(torch::arange(6, torch::kFloat).reshape({2, 3}).transpose(0, 1));
}

TEST_F(TensorCodec, RejectsOtherKinds) {
  Failure f = FailureOf(Codec<at::Tensor>::FromIValue(c10::IValue(int64_t{3})));
  EXPECT_EQ(f.path, "");
  EXPECT_EQ(f.detail, "expected Tensor, got int 3");
}

// ----------------------------------------------------------------- scalars

TEST_F(ScalarCodec, RoundTrips) {
  ExpectRoundTrip(true);
  ExpectRoundTrip(false);
  ExpectRoundTrip(int64_t{-42});
  ExpectRoundTrip(std::numeric_limits<int64_t>::max());
  ExpectRoundTrip(int32_t{7});
  ExpectRoundTrip(uint8_t{255});
  ExpectRoundTrip(size_t{12});
  ExpectRoundTrip(3.25);
  ExpectRoundTrip(1.5f);
  ExpectRoundTrip(c10::complex<double>(1.5, -2.0));
  ExpectRoundTrip(std::complex<double>(0.5, 4.0));
}

TEST_F(ScalarCodec, IValuesHaveTorchScriptKinds) {
  EXPECT_TRUE(Codec<int32_t>::ToIValue(7).isInt());
  EXPECT_TRUE(Codec<float>::ToIValue(1.5f).isDouble());
  EXPECT_TRUE(Codec<bool>::ToIValue(true).isBool());
  EXPECT_TRUE(Codec<std::complex<float>>::ToIValue({1, 2}).isComplexDouble());
}

TEST_F(ScalarCodec, DoesNotWidenOrConfuseKinds) {
  EXPECT_EQ(FailureOf(Codec<double>::FromIValue(c10::IValue(int64_t{1}))).detail,
            "expected float, got int 1");
  EXPECT_EQ(FailureOf(Codec<int64_t>::FromIValue(c10::IValue(true))).detail,
            "expected int, got bool True");
  EXPECT_EQ(FailureOf(Codec<bool>::FromIValue(c10::IValue(int64_t{1}))).detail,
            "expected bool, got int 1");
  EXPECT_EQ(FailureOf(Codec<std::complex<double>>::FromIValue(c10::IValue(1.5))).detail,
            "expected complex, got float 1.5");
}

TEST_F(ScalarCodec, NarrowIntegersAreRangeChecked) {
  EXPECT_EQ(FailureOf(Codec<int32_t>::FromIValue(c10::IValue(int64_t{5000000000}))).detail,
            "expected int, got int 5000000000 (out of range [-2147483648, 2147483647])");
  EXPECT_EQ(FailureOf(Codec<uint8_t>::FromIValue(c10::IValue(int64_t{-1}))).detail,
            "expected int, got int -1 (out of range [0, 255])");
  EXPECT_EQ(*Codec<int8_t>::FromIValue(c10::IValue(int64_t{-128})), -128);
}

TEST_F(ScalarCodec, Unsigned64BeyondInt64Throws) {
  EXPECT_THROW(Codec<uint64_t>::ToIValue(std::numeric_limits<uint64_t>::max()),
               std::out_of_range);
  EXPECT_EQ(Codec<uint64_t>::ToIValue(5).toInt(), 5);
}

// --------------------------------------------------------------------- str

TEST_F(StringCodec, RoundTripsBytes) {
  ExpectRoundTrip(std::string("héllo"));
  ExpectRoundTrip(std::string());
  ExpectRoundTrip(std::string("a\0b", 3));
}

TEST_F(StringCodec, RejectsOtherKinds) {
  EXPECT_EQ(FailureOf(Codec<std::string>::FromIValue(c10::IValue(2.5))).detail,
            "expected str, got float 2.5");
}

// -------------------------------------------------------------------- List

TEST_F(VectorCodec, RoundTrips) {
  ExpectRoundTrip(std::vector<int64_t>{1, 2, 3});
  ExpectRoundTrip(std::vector<int64_t>{});
  ExpectRoundTrip(std::vector<bool>{true, false, true});
  ExpectRoundTrip(std::vector<std::string>{"a", "", "c"});
  ExpectRoundTrip(std::vector<std::vector<double>>{{1.5}, {}, {2.5, 3.5}});
  ExpectRoundTrip(std::vector<at::Tensor>{torch::ones({2}), torch::zeros({1, 3})});
}

TEST_F(VectorCodec, EmptyListKeepsItsElementType) {
  c10::IValue empty = Codec<std::vector<int64_t>>::ToIValue({});
  ASSERT_TRUE(empty.isList());
  EXPECT_EQ(*empty.toList().elementType(), *c10::IntType::get());
  c10::IValue nested = Codec<std::vector<std::vector<std::string>>>::ToIValue({});
  EXPECT_EQ(nested.type()->annotation_str(), "List[List[str]]");
}

TEST_F(VectorCodec, ErrorsNameTheListAndTheElement) {
  Failure not_a_list = FailureOf(Codec<std::vector<int64_t>>::FromIValue(c10::IValue("x")));
  EXPECT_EQ(not_a_list.path, "");
  EXPECT_EQ(not_a_list.detail, "expected List[int], got str \"x\"");

  c10::impl::GenericList mixed(c10::AnyType::get());
  mixed.push_back(int64_t{1});
  mixed.push_back(std::string("x"));
  Failure bad_element = FailureOf(Codec<std::vector<int64_t>>::FromIValue(mixed));
  EXPECT_EQ(bad_element.path, "[1]");
  EXPECT_EQ(bad_element.detail, "expected int, got str \"x\"");
}

// -------------------------------------------------------------------- Dict

TEST_F(MapCodec, RoundTrips) {
  ExpectRoundTrip(std::map<std::string, int64_t>{{"b", 2}, {"a", 1}});
  ExpectRoundTrip(std::map<std::string, int64_t>{});
  ExpectRoundTrip(std::unordered_map<int64_t, std::string>{{3, "c"}, {1, "a"}});
  ExpectRoundTrip(absl::flat_hash_map<std::string, double>{{"x", 1.5}, {"y", -2.0}});
  ExpectRoundTrip(std::map<std::string, std::vector<at::Tensor>>{
      {"w", {torch::ones({2})}}, {"empty", {}}});
}

TEST_F(MapCodec, DictIsTypedAndOrderedLikeTheMap) {
  c10::IValue dict = Codec<std::map<std::string, std::vector<int64_t>>>::ToIValue(
      {{"b", {2}}, {"a", {}}});
  EXPECT_EQ(dict.type()->annotation_str(), "Dict[str, List[int]]");
  std::vector<std::string> keys;
  for (const auto& entry : dict.toGenericDict()) keys.push_back(entry.key().toStringRef());
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b"}));  // std::map's order
  c10::IValue empty = Codec<std::unordered_map<int64_t, bool>>::ToIValue({});
  EXPECT_EQ(empty.type()->annotation_str(), "Dict[int, bool]");
}

TEST_F(MapCodec, ErrorsNameTheKey) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert(std::string("a"), int64_t{1});
  dict.insert(std::string("b"), std::string("x"));
  Failure bad_value = FailureOf(Codec<std::map<std::string, int64_t>>::FromIValue(dict));
  EXPECT_EQ(bad_value.path, "key \"b\"");
  EXPECT_EQ(bad_value.detail, "expected int, got str \"x\"");

  c10::impl::GenericDict int_keys(c10::IntType::get(), c10::IntType::get());
  int_keys.insert(int64_t{300}, int64_t{1});
  Failure bad_key = FailureOf(Codec<std::map<uint8_t, int64_t>>::FromIValue(int_keys));
  EXPECT_EQ(bad_key.path, "key 300");
  EXPECT_EQ(bad_key.detail, "expected int, got int 300 (out of range [0, 255])");

  EXPECT_EQ(FailureOf(Codec<std::map<std::string, int64_t>>::FromIValue(c10::IValue(1.0))).detail,
            "expected Dict[str, int], got float 1");
}

TEST_F(MapCodec, NestedPathsJoinOutsideIn) {
  c10::impl::GenericList list(c10::DictType::create(c10::StringType::get(), c10::AnyType::get()));
  c10::impl::GenericDict good(c10::StringType::get(), c10::AnyType::get());
  good.insert(std::string("a"), int64_t{1});
  c10::impl::GenericDict bad(c10::StringType::get(), c10::AnyType::get());
  bad.insert(std::string("a"), int64_t{2});
  bad.insert(std::string("b"), std::string("x"));
  list.push_back(good);
  list.push_back(bad);
  Failure f =
      FailureOf(Codec<std::vector<std::map<std::string, int64_t>>>::FromIValue(list));
  EXPECT_EQ(f.path, "[1] \xE2\x86\x92 key \"b\"");
  EXPECT_EQ(f.detail, "expected int, got str \"x\"");
}

}  // namespace
}  // namespace tsb::sdk_testing
