// What the tsb command needs from the C ABI, wrapped for C++: statuses as
// exceptions carrying the message, values and modules released by RAII.
// tsb is a host like any other: it includes tsbridge.h and no LibTorch.
#ifndef TSBRIDGE_APPS_TSB_HOST_H_
#define TSBRIDGE_APPS_TSB_HOST_H_

#include <memory>
#include <stdexcept>
#include <string>

#include "tsbridge/tsbridge.h"
#include "tsbridge/tsbridge.hpp"

namespace tsb::cli {

// A failure to report: the message and the process exit code.
struct Failure : std::runtime_error {
  Failure(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code(exit_code) {}
  int exit_code;
};

// Throws Failure("<context>: <status message>") for a non-NULL status.
void Check(tsb_status* status, const std::string& context);

struct Value {
  tsb_any v{};
  Value() = default;
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  Value(Value&& other) noexcept : v(other.v) { other.v = tsb_any{}; }
  ~Value() { tsb_any_release(&v); }
};

struct ModuleDeleter {
  void operator()(tsb_module* m) const { tsb_module_free(m); }
};
using Module = std::unique_ptr<tsb_module, ModuleDeleter>;

Module LoadModule(const std::string& path);
std::string ToJson(const tsb_any& value);
Value FromJson(const std::string& json, int32_t type_index, const std::string& context);
// The schema of `method` in `module`; Failure listing the methods if absent.
tsb_schema_info FindMethod(tsb_module* module, const std::string& method);

}  // namespace tsb::cli

#endif  // TSBRIDGE_APPS_TSB_HOST_H_
