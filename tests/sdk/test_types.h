// C++ types the SDK suites convert: Hana-adapted structs at namespace scope
// (a NamedTuple needs a qualified name).
#ifndef TSBRIDGE_TESTS_SDK_TEST_TYPES_H_
#define TSBRIDGE_TESTS_SDK_TEST_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <boost/hana/adapt_struct.hpp>

namespace tsb_test::geo {

struct Point {
  double x = 0;
  std::optional<int64_t> label;
  bool operator==(const Point& other) const { return x == other.x && label == other.label; }
};

// Nested records and a Tensor: the shape of a real plugin's return type.
struct Batch {
  at::Tensor values;
  std::vector<Point> points;
  std::string name;
  bool operator==(const Batch& other) const {
    return values.is_same(other.values) && points == other.points && name == other.name;
  }
};

}  // namespace tsb_test::geo

BOOST_HANA_ADAPT_STRUCT(tsb_test::geo::Point, x, label);
BOOST_HANA_ADAPT_STRUCT(tsb_test::geo::Batch, values, points, name);

#endif  // TSBRIDGE_TESTS_SDK_TEST_TYPES_H_
