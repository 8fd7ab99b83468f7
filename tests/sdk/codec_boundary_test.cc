// The kinds that need plugins/tuple and plugins/optional, across the
// boundary: C++ → IValue → boundary → IValue → C++. Then a plugin written
// with the SDK (sdk_plugin.cc), loaded by the real loader and called through
// the C ABI. Every test fails, saying why, if a plugin does not load.
#include <torch/torch.h>

#include <map>

#include "core/value/convert.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/test_types.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/plugin/codecs/all.hpp"
#include "tsbridge/host/tsbridge.hpp"

using tsb::testing::BuildPath;

namespace tsb::sdk_testing {
namespace {

using tsb_test::geo::Batch;
using tsb_test::geo::Point;

// Loads the plugins once per process; "" on success, else why not.
const std::string& PluginLoadError() {
  static const std::string error = [] {
    for (const char* path :
         {BuildPath("TSB_TUPLE_PLUGIN_PATH"), BuildPath("TSB_OPTIONAL_PLUGIN_PATH"),
          BuildPath("TSB_SDK_TEST_PLUGIN_PATH")}) {
      tsb_status* status = tsb_plugin_load(path, nullptr);
      std::string message = tsb_status_get_message(status);
      tsb_status_free(status);
      if (!message.empty()) return "cannot load a plugin this suite needs: " + message;
    }
    return std::string();
  }();
  return error;
}

// Each test fails (rather than skips) when a plugin is missing.
class BoundaryTest : public SdkTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(PluginLoadError(), "");
    SdkTest::SetUp();
  }
};

using OptionalBoundary = BoundaryTest;
using TupleBoundary = BoundaryTest;
using VariantBoundary = BoundaryTest;
using HanaBoundary = BoundaryTest;
using SdkPlugin = BoundaryTest;

TEST_F(OptionalBoundary, RoundTrips) {
  // Optional is a static type only: the value crosses as None or as itself.
  ExpectRoundTrip(std::optional<int64_t>(), /*concrete_type=*/false);
  ExpectRoundTrip(std::optional<int64_t>(4), /*concrete_type=*/false);
  ExpectRoundTrip(c10::optional<at::Tensor>(torch::ones({2})), /*concrete_type=*/false);
  ExpectRoundTrip(std::vector<std::optional<int64_t>>{1, std::nullopt, 3});
  ExpectRoundTrip(std::map<std::string, std::optional<std::string>>{{"a", "x"}, {"b", {}}});
}

TEST_F(TupleBoundary, RoundTrips) {
  ExpectRoundTrip(std::tuple<int64_t, std::string, double>(1, "a", 2.5));
  ExpectRoundTrip(std::tuple<at::Tensor, std::optional<at::Tensor>>(torch::ones({1}), {}));
  ExpectRoundTrip(std::pair<std::string, std::vector<int64_t>>("k", {1, 2}));
  ExpectRoundTrip(std::vector<std::tuple<int64_t, bool>>{{1, true}, {2, false}});
}

TEST_F(VariantBoundary, RoundTrips) {
  using IntOrStr = std::variant<int64_t, std::string>;
  ExpectRoundTrip(IntOrStr(int64_t{3}), /*concrete_type=*/false);
  ExpectRoundTrip(IntOrStr("a"), /*concrete_type=*/false);
  ExpectRoundTrip(std::vector<IntOrStr>{int64_t{1}, "b"});
}

TEST_F(HanaBoundary, RoundTrips) {
  ExpectRoundTrip(Point{1.5, 2});
  ExpectRoundTrip(Point{-1.0, std::nullopt});
  ExpectRoundTrip(std::vector<Point>{{1.0, 1}, {2.0, {}}});
}

TEST_F(HanaBoundary, CrossesAsTheRegisteredNamedTuple) {
  tsb_any boundary{};
  ASSERT_TRUE(ToBoundary(Codec<Point>::ToIValue({2.5, 7}), &boundary).ok());
  EXPECT_EQ(::tsb::KindOf(boundary.type_index), TSB_KIND_NAMEDTUPLE);
  EXPECT_EQ(boundary.type_index, TypeIndexOf("tsb_test.geo.Point"));
  tsb_any x{};
  tsb_status* status = tsb_any_get_field(&boundary, "x", &x);
  EXPECT_EQ(status, nullptr) << tsb_status_get_message(status);
  tsb_status_free(status);
  EXPECT_EQ(x.u.d, 2.5);
  tsb_any_release(&x);
  tsb_any_release(&boundary);
}

// ToIValueAs builds a struct as the registered record itself, so a coerce
// to that record finds its own type instead of comparing an equal one.
TEST_F(HanaBoundary, BuiltAsTheRegisteredRecord) {
  absl::StatusOr<const TypeInfo*> registered = FindType(TypeIndexOf("tsb_test.geo.Point"));
  ASSERT_TRUE(registered.ok());
  // The plugin registered its own copy of the type; else this proves nothing.
  ASSERT_NE(Codec<Point>::type().get(), (*registered)->type.get());
  c10::IValue built = ToIValueAs(Point{2.5, 7}, &(*registered)->type);
  EXPECT_EQ(built.toTupleRef().type().get(), (*registered)->type.get());
  absl::StatusOr<c10::IValue> coerced = CoerceTo(built, **registered);
  ASSERT_TRUE(coerced.ok()) << coerced.status();
  EXPECT_TRUE(coerced->isSameIdentity(built));
  EXPECT_EQ(*Codec<Point>::FromIValue(*coerced), (Point{2.5, 7}));
  // Without a record, its own type, as before.
  EXPECT_EQ(ToIValueAs(Point{}, nullptr).toTupleRef().type().get(), Codec<Point>::type().get());
}

// ------------------------------------------------ a plugin written with the SDK

// A call's result as an IValue, or its status's message as an error; takes
// both.
absl::StatusOr<c10::IValue> TakeCallResult(tsb_status* status, tsb_any& out) {
  if (status != nullptr) {
    absl::Status error = absl::UnknownError(tsb_status_get_message(status));
    tsb_status_free(status);
    return error;
  }
  absl::StatusOr<c10::IValue> result = ToIValue(out);
  tsb_any_release(&out);
  return result;
}

// Calls `name` with C++ arguments; the result, or the error message.
template <typename R, typename... Args>
absl::StatusOr<R> CallPlugin(const char* name, const Args&... args) {
  std::vector<tsb_any> boundary;
  for (c10::IValue arg : {Codec<Args>::ToIValue(args)...}) {
    boundary.emplace_back();
    TSB_RETURN_IF_ERROR(ToBoundary(arg, &boundary.back()));
  }
  tsb_any out{};
  tsb_status* status = tsb_function_call(name, ::tsb::CallArgs(boundary.data(), boundary.size()).get(), &out);
  for (tsb_any& arg : boundary) tsb_any_release(&arg);
  absl::StatusOr<c10::IValue> result = TakeCallResult(status, out);
  if (!result.ok()) return result.status();
  return Codec<R>::FromIValue(*result);
}

std::string SchemaOf(const char* name) {
  tsb_schema_info schema_info{};
    schema_info.struct_size = sizeof(schema_info);
    const char*& schema = schema_info.schema;
  tsb_status* status = tsb_function_get_schema(name, &schema_info);
  std::string text = status == nullptr ? schema : tsb_status_get_message(status);
  tsb_status_free(status);
  return text;
}

TEST_F(SdkPlugin, SchemasComeFromTheCodecs) {
  EXPECT_EQ(SchemaOf("sdk_test::relabel"),
            "sdk_test::relabel(Tensor col, List[int] idx) -> Tuple[Tensor, Tensor]");
  EXPECT_EQ(SchemaOf("sdk_test::move"),
            "sdk_test::move(tsb_test.geo.Point p, float dx) -> tsb_test.geo.Point");
  EXPECT_EQ(SchemaOf("sdk_test::sign"), "sdk_test::sign(int x) -> Union[int, str]");
}

TEST_F(SdkPlugin, FunctionsConvertBothWays) {
  auto pair = CallPlugin<std::tuple<at::Tensor, at::Tensor>>(
      "sdk_test::relabel", torch::zeros({2}), std::vector<int64_t>{4, 5, 6});
  ASSERT_TRUE(pair.ok()) << pair.status();
  EXPECT_TRUE(std::get<0>(*pair).equal(torch::full({2}, 3.0)));

  auto counts = CallPlugin<std::map<std::string, int64_t>>(
      "sdk_test::count", std::vector<std::string>{"a", "b", "a"});
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(*counts, (std::map<std::string, int64_t>{{"a", 2}, {"b", 1}}));

  auto moved = CallPlugin<Point>("sdk_test::move", Point{1.0, 3}, 0.5);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(*moved, (Point{1.5, 3}));

  auto found = CallPlugin<std::optional<int64_t>>("sdk_test::find",
                                                  std::vector<int64_t>{7, 8}, int64_t{8});
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, std::optional<int64_t>(1));
  auto missing = CallPlugin<std::optional<int64_t>>("sdk_test::find",
                                                    std::vector<int64_t>{}, int64_t{8});
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(*missing, std::nullopt);

  auto sign = CallPlugin<std::variant<int64_t, std::string>>("sdk_test::sign", int64_t{-2});
  ASSERT_TRUE(sign.ok()) << sign.status();
  EXPECT_EQ(std::get<std::string>(*sign), "negative");
}

TEST_F(SdkPlugin, ARecordBuiltAsItselfIsNotCheckedAgainAndAnyOtherIsConverted) {
  int32_t pair = TSB_TYPE_INVALID, floats = TSB_TYPE_INVALID;
  ASSERT_EQ(tsb_type_parse("sdk_test.tensor_pair", &pair), nullptr);
  ASSERT_EQ(tsb_type_parse("sdk_test.float_pair", &floats), nullptr);
  const TypeInfo& pair_info = **FindType(pair);
  const TypeInfo& floats_info = **FindType(floats);
  EXPECT_TRUE((BuildsExactly<std::tuple<at::Tensor, at::Tensor>>(pair_info)));
  EXPECT_TRUE((BuildsExactly<std::tuple<double, double>>(floats_info)));
  EXPECT_FALSE((BuildsExactly<std::tuple<int64_t, double>>(floats_info)));
  EXPECT_FALSE((BuildsExactly<std::tuple<int64_t, double>>(floats_info)));  // cached: the same
  // Built exactly: the record itself, its type the registered one.
  absl::StatusOr<c10::IValue> built =
      ToIValueOf(std::tuple<at::Tensor, at::Tensor>(torch::ones({1}), torch::zeros({1})), pair_info);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->toTupleRef().type().get(), pair_info.type.get());
  // Not built exactly: converted, the int becoming a float.
  absl::StatusOr<c10::IValue> converted =
      ToIValueOf(std::tuple<int64_t, double>(3, 1.5), floats_info);
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_TRUE(converted->toTupleRef().elements()[0].isDouble());
  // A plugin function's result likewise: never an int where the record says float.
  tsb_any x = tsb_any_int(3);
  const tsb_call_args args = tsb_call_args_make(&x, 1);
  tsb::Value result;
  ASSERT_EQ(tsb::Status(tsb_function_call("sdk_test::int_and_half", &args, result.out())).message(),
            "");
  EXPECT_EQ(result.get().type_index, floats);
  tsb_any items[2];
  ASSERT_EQ(tsb_list_get_items(&result.get(), 2, items), nullptr);
  EXPECT_EQ(items[0].type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(items[0].u.d, 3.0);
  EXPECT_EQ(items[1].u.d, 1.5);
}

TEST_F(SdkPlugin, ErrorsNameTheFunction) {
  auto failed = CallPlugin<int64_t>("sdk_test::positive", int64_t{-3});
  EXPECT_EQ(failed.status().message(), "sdk_test::positive(): x must be positive, got -3");
  auto wrong = CallPlugin<Point>("sdk_test::move", std::string("p"), 0.5);
  EXPECT_EQ(wrong.status().message(),
            "sdk_test::move(): argument 'p': expected tsb_test.geo.Point, got str \"p\"");
}

// ----------------------------- plugin functions bound as operators are

// Calls `name` with positional and keyword boundary values (borrowed).
absl::StatusOr<c10::IValue> CallWith(const char* name, std::vector<tsb_any> args,
                                     std::vector<const char*> kw_names = {},
                                     std::vector<tsb_any> kw_values = {}) {
  tsb_call_args call{sizeof(tsb_call_args), args.data(),     args.size(),
                     kw_names.data(),       kw_values.data(), kw_values.size()};
  tsb_any out{};
  return TakeCallResult(tsb_function_call(name, &call, &out), out);
}

TEST_F(SdkPlugin, FunctionSchemaHasKeywordsAndDefaults) {
  tsb_schema_info info{};
  info.struct_size = sizeof(info);
  tsb_status* status = tsb_function_get_schema("sdk_test::scale", &info);
  ASSERT_EQ(status, nullptr) << tsb_status_get_message(status);
  EXPECT_STREQ(info.schema,
               "sdk_test::scale(tsb_test.geo.Point p, float by=2.0, *, int times=1) -> "
               "tsb_test.geo.Point");
  EXPECT_STREQ(info.name, "sdk_test::scale");
  ASSERT_EQ(info.num_arguments, 3u);
  const tsb_argument_info* p = tsb_schema_get_argument(&info, 0);
  const tsb_argument_info* by = tsb_schema_get_argument(&info, 1);
  const tsb_argument_info* times = tsb_schema_get_argument(&info, 2);
  EXPECT_STREQ(p->name, "p");
  EXPECT_FALSE(p->has_default);
  EXPECT_STREQ(by->annotation, "float");
  EXPECT_TRUE(by->has_default);
  EXPECT_STREQ(by->default_json, "2.0");
  EXPECT_TRUE(times->kwarg_only);
  ASSERT_EQ(info.num_returns, 1u);
  EXPECT_EQ(tsb_schema_get_return(&info, 0)->type_index, TypeIndexOf("tsb_test.geo.Point"));
}

TEST_F(SdkPlugin, FunctionsTakeKeywordsAndDefaults) {
  tsb_any point{};
  ASSERT_TRUE(ToBoundary(Codec<Point>::ToIValue({1.5, 3}), &point).ok());
  absl::StatusOr<c10::IValue> doubled = CallWith("sdk_test::scale", {point});
  ASSERT_TRUE(doubled.ok()) << doubled.status();
  EXPECT_EQ(*Codec<Point>::FromIValue(*doubled), (Point{3.0, 3}));
  absl::StatusOr<c10::IValue> keywords =
      CallWith("sdk_test::scale", {}, {"times", "p", "by"},
               {tsb_any_int(2), point, tsb_any_int(10)});  // int 10 widens to float
  ASSERT_TRUE(keywords.ok()) << keywords.status();
  EXPECT_EQ(*Codec<Point>::FromIValue(*keywords), (Point{30.0, 3}));
  // point 6 of issue 11: the missing argument is named.
  EXPECT_EQ(CallWith("sdk_test::scale", {}).status().message(),
            "sdk_test::scale(): missing argument 'p'");
  EXPECT_EQ(CallWith("sdk_test::scale", {point, tsb_any_float(1), tsb_any_int(2)})
                .status()
                .message(),
            "sdk_test::scale(): expected at most 2 positional arguments, got 3");
  EXPECT_EQ(CallWith("sdk_test::scale", {point}, {"nope"}, {tsb_any_int(1)}).status().message(),
            "sdk_test::scale(): unknown keyword argument 'nope'");
  tsb_any_release(&point);
}

TEST_F(SdkPlugin, OperatorsAreCalledAsFunctionsAre) {
  absl::StatusOr<c10::IValue> sum =
      CallWith("aten::add", {tsb_any_int(2)}, {"b"}, {tsb_any_int(40)});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->toInt(), 42);
}

}  // namespace
}  // namespace tsb::sdk_testing
