// Codec<T>::name() is a compile-time constant (checked by static_assert), and
// it agrees with LibTorch's own spelling of Codec<T>::type().
#include <complex>
#include <map>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/test_types.h"
#include "tsbridge/plugin/codecs/all.hpp"

namespace tsb {
namespace {

using geo_point = tsb_test::geo::Point;
using geo_batch = tsb_test::geo::Batch;

// Leaves.
static_assert(Codec<at::Tensor>::name() == "Tensor");
static_assert(Codec<bool>::name() == "bool");
static_assert(Codec<int64_t>::name() == "int");
static_assert(Codec<int32_t>::name() == "int");
static_assert(Codec<uint8_t>::name() == "int");
static_assert(Codec<size_t>::name() == "int");
static_assert(Codec<double>::name() == "float");
static_assert(Codec<float>::name() == "float");
static_assert(Codec<c10::complex<double>>::name() == "complex");
static_assert(Codec<std::complex<double>>::name() == "complex");
static_assert(Codec<std::string>::name() == "str");

// Generic types, nested.
static_assert(Codec<std::vector<int64_t>>::name() == "List[int]");
static_assert(Codec<std::vector<std::vector<double>>>::name() == "List[List[float]]");
static_assert(Codec<std::optional<int64_t>>::name() == "Optional[int]");
static_assert(Codec<c10::optional<at::Tensor>>::name() == "Optional[Tensor]");
static_assert(Codec<std::tuple<at::Tensor, std::optional<at::Tensor>>>::name() ==
              "Tuple[Tensor, Optional[Tensor]]");
static_assert(Codec<std::pair<std::string, int64_t>>::name() == "Tuple[str, int]");
static_assert(Codec<std::tuple<>>::name() == "Tuple[()]");
static_assert(Codec<std::map<std::string, std::vector<at::Tensor>>>::name() ==
              "Dict[str, List[Tensor]]");
static_assert(Codec<std::unordered_map<int64_t, double>>::name() == "Dict[int, float]");
static_assert(Codec<absl::flat_hash_map<std::string, bool>>::name() == "Dict[str, bool]");
static_assert(Codec<std::variant<int64_t, std::string>>::name() == "Union[int, str]");
static_assert(Codec<std::vector<std::variant<at::Tensor, std::vector<int64_t>>>>::name() ==
              "List[Union[Tensor, List[int]]]");

// Hana structs: the qualified C++ name, dotted; the fields as a Tuple.
static_assert(Codec<geo_point>::name() == "tsb_test.geo.Point");
static_assert(Codec<geo_point>::tuple_annotation() == "Tuple[float, Optional[int]]");
static_assert(Codec<geo_batch>::tuple_annotation() ==
              "Tuple[Tensor, List[tsb_test.geo.Point], str]");
static_assert(Codec<std::vector<geo_point>>::name() == "List[tsb_test.geo.Point]");

// The names end in NUL, so data() can go straight to a C API.
static_assert(Codec<std::vector<int64_t>>::name().data()[9] == '\0');

// Opt-in: only types whose kind header is included have a codec.
static_assert(HasCodec<std::vector<int64_t>>::value);
static_assert(!HasCodec<void*>::value);

template <typename T>
void ExpectLibTorchSpelling() {
  EXPECT_EQ(Codec<T>::type()->annotation_str(), std::string(Codec<T>::name()));
}

TEST(CodecNames, AgreeWithLibTorchAnnotations) {
  ExpectLibTorchSpelling<at::Tensor>();
  ExpectLibTorchSpelling<bool>();
  ExpectLibTorchSpelling<int16_t>();
  ExpectLibTorchSpelling<float>();
  ExpectLibTorchSpelling<std::complex<double>>();
  ExpectLibTorchSpelling<std::string>();
  ExpectLibTorchSpelling<std::vector<std::vector<int64_t>>>();
  ExpectLibTorchSpelling<std::optional<std::vector<at::Tensor>>>();
  ExpectLibTorchSpelling<std::tuple<at::Tensor, std::optional<at::Tensor>>>();
  ExpectLibTorchSpelling<std::tuple<>>();
  ExpectLibTorchSpelling<std::map<std::string, std::vector<at::Tensor>>>();
  ExpectLibTorchSpelling<std::variant<int64_t, std::string>>();
  ExpectLibTorchSpelling<std::variant<at::Tensor, std::vector<int64_t>, double>>();
  ExpectLibTorchSpelling<geo_point>();
  ExpectLibTorchSpelling<std::vector<geo_point>>();
}

TEST(CodecNames, HanaTypeIsANamedTupleWithTheFieldNames) {
  auto type = Codec<geo_point>::type()->expect<c10::TupleType>();
  ASSERT_TRUE(type->name().has_value());
  EXPECT_EQ(type->name()->qualifiedName(), "tsb_test.geo.Point");
  auto names = type->names();
  ASSERT_TRUE(names.has_value());
  ASSERT_EQ(names->size(), 2u);
  EXPECT_EQ((*names)[0], "x");
  EXPECT_EQ((*names)[1], "label");
  EXPECT_EQ(*type->elements()[1], *c10::OptionalType::create(c10::IntType::get()));
  EXPECT_STREQ(Codec<geo_point>::field_names()[1], "label");
}

TEST(CodecNames, TypesAreCachedNotRebuilt) {
  EXPECT_EQ(Codec<geo_point>::type().get(), Codec<geo_point>::type().get());
  EXPECT_EQ(Codec<std::vector<int64_t>>::type().get(), Codec<std::vector<int64_t>>::type().get());
}

}  // namespace
}  // namespace tsb
