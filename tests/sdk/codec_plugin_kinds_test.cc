// Optional, Tuple, Union and NamedTuple (Hana structs): C++ ⇄ IValue round
// trips, the IValues' types, and FromIValue errors. These kinds cross the
// boundary only with plugins/tuple and plugins/optional loaded; that step is
// in codec_boundary_test.cc.
#include <torch/torch.h>

#include <map>

#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/test_types.h"
#include "core/value/convert.h"
#include "tsbridge/plugin/codecs/all.hpp"

namespace tsb::sdk_testing {
namespace {

using OptionalCodec = SdkTest;
using TupleCodec = SdkTest;
using VariantCodec = SdkTest;
using HanaCodec = SdkTest;
using tsb_test::geo::Batch;
using tsb_test::geo::Point;

// C++ → IValue → C++ gives back an equal value.
template <typename T>
void ExpectIValueRoundTrip(const T& value) {
  absl::StatusOr<T> back = Codec<T>::FromIValue(Codec<T>::ToIValue(value));
  ASSERT_TRUE(back.ok()) << Codec<T>::name() << ": " << back.status();
  EXPECT_TRUE(Same(value, *back)) << Codec<T>::name();
}

// ---------------------------------------------------------------- Optional

TEST_F(OptionalCodec, NoneOrTheValueItself) {
  EXPECT_TRUE(Codec<std::optional<int64_t>>::ToIValue(std::nullopt).isNone());
  EXPECT_EQ(Codec<std::optional<int64_t>>::ToIValue(5).toInt(), 5);
  ExpectIValueRoundTrip(std::optional<int64_t>());
  ExpectIValueRoundTrip(std::optional<int64_t>(7));
  ExpectIValueRoundTrip(c10::optional<at::Tensor>(torch::ones({2})));
  ExpectIValueRoundTrip(c10::optional<std::string>());
  ExpectIValueRoundTrip(std::vector<std::optional<double>>{1.5, std::nullopt});
}

TEST_F(OptionalCodec, ListOfOptionalIsTyped) {
  c10::IValue list = Codec<std::vector<std::optional<int64_t>>>::ToIValue({1, std::nullopt});
  EXPECT_EQ(list.type()->annotation_str(), "List[Optional[int]]");
}

TEST_F(OptionalCodec, ErrorsNameTheOptionalType) {
  EXPECT_EQ(FailureOf(Codec<std::optional<int64_t>>::FromIValue(c10::IValue("x"))).detail,
            "expected Optional[int], got str \"x\"");
  c10::impl::GenericList mixed(c10::AnyType::get());
  mixed.push_back(std::string("x"));
  Failure inner = FailureOf(Codec<std::optional<std::vector<int64_t>>>::FromIValue(mixed));
  EXPECT_EQ(inner.path, "[0]");
  EXPECT_EQ(inner.detail, "expected int, got str \"x\"");
}

// ------------------------------------------------------------------- Tuple

TEST_F(TupleCodec, RoundTrips) {
  ExpectIValueRoundTrip(std::tuple<int64_t, std::string, double>(1, "a", 2.5));
  ExpectIValueRoundTrip(std::pair<std::string, at::Tensor>("w", torch::ones({3})));
  ExpectIValueRoundTrip(std::tuple<>());
  ExpectIValueRoundTrip(std::tuple<std::vector<int64_t>, std::map<std::string, bool>>(
      {1, 2}, {{"k", true}}));
}

TEST_F(TupleCodec, KeepsItsDeclaredTypeWithNone) {
  using Pair = std::tuple<at::Tensor, std::optional<at::Tensor>>;
  c10::IValue value = Codec<Pair>::ToIValue(Pair(torch::ones({1}), std::nullopt));
  EXPECT_EQ(value.type()->annotation_str(), "Tuple[Tensor, Optional[Tensor]]");
}

TEST_F(TupleCodec, ErrorsNameArityAndElement) {
  using IntStr = std::tuple<int64_t, std::string>;
  Failure arity = FailureOf(Codec<IntStr>::FromIValue(
      c10::ivalue::Tuple::create(int64_t{1}, int64_t{2}, int64_t{3})));
  EXPECT_EQ(arity.path, "");
  EXPECT_EQ(arity.detail.rfind("expected Tuple[int, str], got Tuple[int, int, int]", 0), 0u)
      << arity.detail;
  Failure element =
      FailureOf(Codec<IntStr>::FromIValue(c10::ivalue::Tuple::create(int64_t{1}, int64_t{2})));
  EXPECT_EQ(element.path, "[1]");
  EXPECT_EQ(element.detail, "expected str, got int 2");
  EXPECT_EQ(FailureOf(Codec<IntStr>::FromIValue(c10::IValue())).detail,
            "expected Tuple[int, str], got None");
}

// ------------------------------------------------------------------- Union

using IntOrStr = std::variant<int64_t, std::string>;

TEST_F(VariantCodec, TheValueItselfAndBack) {
  EXPECT_TRUE(Codec<IntOrStr>::ToIValue(IntOrStr(int64_t{3})).isInt());
  EXPECT_TRUE(Codec<IntOrStr>::ToIValue(IntOrStr("a")).isString());
  ExpectIValueRoundTrip(IntOrStr(int64_t{3}));
  ExpectIValueRoundTrip(IntOrStr("a"));
  ExpectIValueRoundTrip(std::variant<at::Tensor, std::vector<int64_t>>(std::vector<int64_t>{1}));
}

TEST_F(VariantCodec, PicksTheMemberByTheValuesKind) {
  using FloatOrInt = std::variant<double, int64_t>;
  auto from_int = Codec<FloatOrInt>::FromIValue(c10::IValue(int64_t{2}));
  ASSERT_TRUE(from_int.ok());
  EXPECT_EQ(from_int->index(), 1u);  // int stays int, though float comes first
  auto from_float = Codec<FloatOrInt>::FromIValue(c10::IValue(2.0));
  ASSERT_TRUE(from_float.ok());
  EXPECT_EQ(from_float->index(), 0u);
}

TEST_F(VariantCodec, MembersOfOneKindAreTriedInOrder) {
  using Lists = std::variant<std::vector<int64_t>, std::vector<std::string>>;
  auto strings = Codec<Lists>::FromIValue(
      Codec<std::vector<std::string>>::ToIValue({"a", "b"}));
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(strings->index(), 1u);
  // Neither converts: the first candidate's error says which element failed.
  c10::impl::GenericList mixed(c10::AnyType::get());
  mixed.push_back(1.5);
  Failure f = FailureOf(Codec<Lists>::FromIValue(mixed));
  EXPECT_EQ(f.path, "[0]");
  EXPECT_EQ(f.detail, "expected int, got float 1.5");
}

TEST_F(VariantCodec, NoMatchingMemberNamesTheUnion) {
  Failure f = FailureOf(Codec<IntOrStr>::FromIValue(c10::IValue(1.5)));
  EXPECT_EQ(f.path, "");
  EXPECT_EQ(f.detail, "expected Union[int, str], got float 1.5");
}

// -------------------------------------------------------------- NamedTuple

TEST_F(HanaCodec, RoundTripsAsANamedTuple) {
  ExpectIValueRoundTrip(Point{1.5, 3});
  ExpectIValueRoundTrip(Point{-2.0, std::nullopt});
  ExpectIValueRoundTrip(Batch{torch::ones({2}), {{1.0, 1}, {2.0, std::nullopt}}, "b"});
  ExpectIValueRoundTrip(std::vector<Point>{{1.0, 2}});
}

TEST_F(HanaCodec, IValueCarriesTheNamedType) {
  c10::IValue value = Codec<Point>::ToIValue(Point{1.5, std::nullopt});
  ASSERT_TRUE(value.isTuple());
  auto type = value.type()->expect<c10::TupleType>();
  ASSERT_TRUE(type->name().has_value());
  EXPECT_EQ(type->name()->qualifiedName(), "tsb_test.geo.Point");
  EXPECT_EQ(type.get(), Codec<Point>::type().get());  // one cached TypePtr
  EXPECT_TRUE(value.toTupleRef().elements()[1].isNone());
}

TEST_F(HanaCodec, AcceptsAnyTupleOfTheRightArity) {
  auto point = Codec<Point>::FromIValue(c10::ivalue::Tuple::create(2.5, int64_t{4}));
  ASSERT_TRUE(point.ok()) << point.status();
  EXPECT_EQ(*point, (Point{2.5, 4}));
}

TEST_F(HanaCodec, ErrorsNameTheField) {
  Failure field = FailureOf(
      Codec<Point>::FromIValue(c10::ivalue::Tuple::create(2.5, std::string("x"))));
  EXPECT_EQ(field.path, "field 'label'");
  EXPECT_EQ(field.detail, "expected Optional[int], got str \"x\"");

  auto bad_point = c10::ivalue::Tuple::create(c10::IValue(int64_t{1}), c10::IValue());
  auto points = c10::impl::GenericList(c10::AnyType::get());
  points.push_back(c10::ivalue::Tuple::create(1.0, c10::IValue()));
  points.push_back(bad_point);
  Failure nested = FailureOf(Codec<Batch>::FromIValue(c10::ivalue::Tuple::create(
      {c10::IValue(torch::ones({1})), c10::IValue(points), c10::IValue("n")})));
  EXPECT_EQ(nested.path, "field 'points' \xE2\x86\x92 [1] \xE2\x86\x92 field 'x'");
  EXPECT_EQ(nested.detail, "expected float, got int 1");

  EXPECT_EQ(FailureOf(Codec<Point>::FromIValue(c10::IValue(1.0))).detail,
            "expected tsb_test.geo.Point, got float 1");
}

}  // namespace
}  // namespace tsb::sdk_testing
