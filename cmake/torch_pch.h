// The precompiled header of targets with several LibTorch translation units
// (cmake/precompile.cmake). Most of such a unit's compile time is parsing
// these headers; a target parses them once. Sources still include what they
// use: a build with TSB_PRECOMPILE_HEADERS=OFF must compile too.
#pragma once
#include <ATen/core/ivalue.h>  // first: LibTorch 1.13's List.h needs it complete
#include <ATen/ATen.h>
#include <ATen/core/jit_type.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
