// What the tsb command adds to tsbridge.hpp (whose tsb::Value, tsb::Module,
// tsb::Args and tsb::Check it uses): usage failures with an exit code, and
// the messages the command prints. tsb is a host like any other: it
// includes the C ABI (and its C++ wrapper) and no LibTorch.
#ifndef TSBRIDGE_APPS_TSB_HOST_H_
#define TSBRIDGE_APPS_TSB_HOST_H_

#include <memory>
#include <stdexcept>
#include <string>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/kit/base.hpp"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::cli {

// A usage failure (exit code 2) or a failure the CLI itself finds (1). A
// failed status from the ABI is a tsb::Error (exit code 1).
struct Failure : std::runtime_error {
  Failure(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code(exit_code) {}
  int exit_code;
};

Module LoadModule(const std::string& path);
// A message as tsb says it: a missing operator library's advice names
// `tsb --library NAME` (tsb::SayLoadLibrary).
std::string InOurWords(const std::string& message);
std::string ToJson(const tsb_any& value);
// A method of a module: its index (tsb_module_call_method's) and schema.
using Method = kit::FoundMethod;
// The method `method` of `module`; Failure listing the methods if absent.
Method FindMethod(const Module& module, const std::string& method);

}  // namespace tsb::cli

#endif  // TSBRIDGE_APPS_TSB_HOST_H_
