// C++ conveniences for hosts written in C++, over tsbridge.h alone (header
// only: no LibTorch, no Abseil). The C header stays the contract.
#ifndef TSBRIDGE_TSBRIDGE_HPP_
#define TSBRIDGE_TSBRIDGE_HPP_

#include <cstddef>

#include "tsbridge/tsbridge.h"

namespace tsb {

// The arguments of one call, passable as a temporary:
//   tsb_op_call("aten::add", tsb::CallArgs(args, 2).get(), &out);
class CallArgs {
 public:
  CallArgs(const tsb_any* args, size_t n, const char* const* kw_names = nullptr,
           const tsb_any* kw_values = nullptr, size_t num_kwargs = 0) noexcept
      : a_(tsb_call_args_make(args, n)) {
    a_.kw_names = kw_names;
    a_.kw_values = kw_values;
    a_.num_kwargs = num_kwargs;
  }
  const tsb_call_args* get() const noexcept { return &a_; }

 private:
  tsb_call_args a_;
};

// Queries that fail only on a NULL out-parameter, as plain values.
inline size_t LiveHandles() noexcept {
  size_t n = 0;
  tsb_status_free(tsb_handle_count(&n));
  return n;
}
inline tsb_kind KindOf(int32_t type_index) noexcept {  // TSB_KIND_INVALID if unknown
  tsb_kind kind = TSB_KIND_INVALID;
  tsb_status_free(tsb_type_get_kind(type_index, &kind));
  return kind;
}
inline size_t PluginCount() noexcept {
  size_t n = 0;
  tsb_status_free(tsb_plugin_count(&n));
  return n;
}
inline const char* BundledPluginDir() noexcept {
  const char* dir = "";
  tsb_status_free(tsb_plugin_get_bundled_dir(&dir));
  return dir;
}

}  // namespace tsb

#endif  // TSBRIDGE_TSBRIDGE_HPP_
