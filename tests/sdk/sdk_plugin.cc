// A plugin written with the SDK alone (TSB_PLUGIN, tsb::Registrar, tsb::Codec)
// and loaded by codec_boundary_test.cc through the real loader: what a
// binding author writes, checked end to end.
#include <ATen/ATen.h>

#include "tests/sdk/test_types.h"
#include "tsbridge/plugin/codecs/all.hpp"
#include "tsbridge/plugin/plugin.hpp"

namespace {

using tsb_test::geo::Point;

std::tuple<at::Tensor, at::Tensor> Relabel(const at::Tensor& col, const std::vector<int64_t>& idx) {
  return {col + static_cast<double>(idx.size()), at::tensor(idx)};
}

std::map<std::string, int64_t> Count(const std::vector<std::string>& words) {
  std::map<std::string, int64_t> counts;
  for (const std::string& word : words) ++counts[word];
  return counts;
}

Point Move(Point p, double dx) { return {p.x + dx, p.label}; }

std::optional<int64_t> Find(const std::vector<int64_t>& values, int64_t wanted) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == wanted) return static_cast<int64_t>(i);
  }
  return std::nullopt;
}

std::variant<int64_t, std::string> Sign(int64_t x) {
  if (x < 0) return std::string("negative");
  return x;
}

int64_t Positive(int64_t x) {
  TORCH_CHECK(x > 0, "x must be positive, got ", x);
  return x;
}

// Defaults and a keyword-only argument, declared in the registration.
Point Scale(Point p, double by, int64_t times) {
  return {p.x * by * static_cast<double>(times), p.label};
}

double Total(const std::vector<Point>& points) {
  double total = 0;
  for (const Point& p : points) total += p.x;
  return total;
}

// Its result crosses as a record of two floats: the codec does not build
// exactly that type (an int where a float is), so it is converted, not
// taken as built (tsb::BuildsExactly).
std::tuple<int64_t, double> IntAndHalf(int64_t x) { return {x, static_cast<double>(x) / 2}; }

}  // namespace

TSB_PLUGIN("sdk_test", "0.1") {
  // A named type before the functions that use it: the core resolves
  // "tsb_test.geo.Point" in their signatures.
  r.type<Point>();
  r.type<std::tuple<at::Tensor, at::Tensor>>("sdk_test.tensor_pair", {"first", "second"});
  r.function("sdk_test::relabel", &Relabel, {"col", "idx"});
  r.type("sdk_test.float_pair", "Tuple[float, float]", {"whole", "half"});
  r.function("sdk_test::int_and_half", &IntAndHalf, {"x"}, "sdk_test.float_pair");
  r.function("sdk_test::count", &Count, {"words"});
  r.function("sdk_test::move", &Move, {"p", "dx"});
  r.function("sdk_test::find", &Find, {"values", "wanted"});
  r.function("sdk_test::sign", &Sign, {"x"});
  r.function("sdk_test::positive", &Positive, {"x"});
  r.function("sdk_test::scale", &Scale,
             {"p", tsb::arg("by") = 2.0, tsb::arg("times").kwarg_only() = int64_t{1}});
  r.function("sdk_test::total", &Total, {"points"});
}
