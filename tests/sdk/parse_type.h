// The type index of a TorchScript annotation through the C ABI, for the SDK
// suites, which read no core header.
#ifndef TSBRIDGE_TESTS_SDK_PARSE_TYPE_H_
#define TSBRIDGE_TESTS_SDK_PARSE_TYPE_H_

#include <cstdint>

#include "tsbridge/host/tsbridge.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb::testing {

inline int32_t ParseType(const char* text) {
  int32_t index = TSB_TYPE_INVALID;
  tsb::Check(tsb_type_parse(text, &index));
  return index;
}

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_SDK_PARSE_TYPE_H_
