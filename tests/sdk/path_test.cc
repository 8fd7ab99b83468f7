// The one path syntax (tsbridge/path.hpp) that the core, the kit and every
// host spell their segments with (docs/abi.md, "Paths and messages").
#include "tsbridge/path.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace {

TEST(PathTest, Segments) {
  EXPECT_EQ(tsb::IndexSegment(3), "[3]");
  EXPECT_EQ(tsb::FieldSegment("x"), "field 'x'");
  EXPECT_EQ(tsb::ArgumentSegment("p"), "argument 'p'");
  EXPECT_EQ(tsb::PositionSegment(2), "argument 2");
  EXPECT_EQ(tsb::StrKeySegment("b"), "key \"b\"");
  EXPECT_EQ(tsb::IntKeySegment(-7), "key -7");
  EXPECT_EQ(tsb::BoolKeySegment(false), "key False");
  EXPECT_EQ(tsb::KeySegment("complex (1+2j)"), "key complex (1+2j)");
}

// As Python's repr prints them: the shortest text that reads back, ".0" on
// a whole number.
TEST(PathTest, FloatKeys) {
  EXPECT_EQ(tsb::FloatKeySegment(1.5), "key 1.5");
  EXPECT_EQ(tsb::FloatKeySegment(2.0), "key 2.0");
  EXPECT_EQ(tsb::FloatKeySegment(-0.1), "key -0.1");
  EXPECT_EQ(tsb::FloatKeySegment(1e100), "key 1e+100");
  EXPECT_EQ(tsb::FloatKeySegment(std::numeric_limits<double>::infinity()), "key inf");
  EXPECT_EQ(tsb::FloatKeySegment(std::nan("")), "key nan");
}

TEST(PathTest, Join) {
  EXPECT_EQ(tsb::JoinPath("f(): argument 'x'", "[1]"), "f(): argument 'x' \u2192 [1]");
  EXPECT_EQ(tsb::JoinPath("", "[1]"), "[1]");
  EXPECT_EQ(tsb::JoinPath("f()", ""), "f()");
}

}  // namespace
