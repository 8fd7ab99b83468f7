// What the registry knows about one interned TorchScript type.
#ifndef TSBRIDGE_CORE_TYPES_TYPE_INFO_H_
#define TSBRIDGE_CORE_TYPES_TYPE_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/jit_type.h>

#include "tsbridge/tsbridge.h"

namespace tsb {

class Codec;

// Immutable once published: the ABI hands out pointers into it for the life
// of the process.
struct TypeInfo {
  int32_t index = TSB_TYPE_INVALID;
  tsb_kind kind = TSB_KIND_INVALID;
  c10::TypePtr type;
  std::string annotation;           // "Dict[str, List[int]]"
  std::string name;                 // qualified name of a named type
  std::vector<int32_t> contained;   // element / key, value / members
  std::vector<std::string> field_names;
  std::vector<const char*> field_name_ptrs;  // views of field_names
  std::string provider;             // "core" or the plugin's name
  const Codec* codec = nullptr;
};

}  // namespace tsb

#endif  // TSBRIDGE_CORE_TYPES_TYPE_INFO_H_
