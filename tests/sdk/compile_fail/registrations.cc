// Registrations the SDK refuses at compile time (issue 11, point 6). Built
// once as written (it must compile), and once per TSB_REFUSE_* case by
// ctest, which expects the static_assert's message in the compiler output.
#include <ATen/ATen.h>

#include "tests/sdk/test_types.h"
#include "tsbridge/plugin/codecs/all.hpp"
#include "tsbridge/plugin/plugin.hpp"

namespace {
double Move(tsb_test::geo::Point p, double dx) { return p.x + dx; }
}  // namespace

TSB_PLUGIN("compile_fail", "0.1") {
  r.type<tsb_test::geo::Point>();
#if defined(TSB_REFUSE_ARITY)
  r.function("cf::move", &Move, {"p"});  // two parameters, one name
#elif defined(TSB_REFUSE_HANA_NAME)
  r.type<tsb_test::geo::Point>("geom.point", {"x", "label"});  // its name is its own
#else
  r.function("cf::move", &Move, {"p", tsb::arg("dx") = 1.0});
#endif
}
