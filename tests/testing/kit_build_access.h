// What the host kit's own test and fuzzer see of a kit::BuildContext that
// hosts never touch: the per-container mode (each builder makes its
// container, as against a library older than 1.9, to compare the one pass
// with) and the buffer its builders share.
#ifndef TSBRIDGE_TESTS_TESTING_KIT_BUILD_ACCESS_H_
#define TSBRIDGE_TESTS_TESTING_KIT_BUILD_ACCESS_H_

#include "tsbridge/host/kit.hpp"

namespace tsb::kit::internal {

struct BuildContextAccess {
  static void MakePerContainer(BuildContext& context) { context.per_container_ = true; }
  // The entries of the value being built, or nullptr before its first container.
  static FlatBuild* Flat(const BuildContext& context) { return context.flat_; }
};

}  // namespace tsb::kit::internal

#endif  // TSBRIDGE_TESTS_TESTING_KIT_BUILD_ACCESS_H_
