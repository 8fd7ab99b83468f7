// Every .Call entry point runs its body between TSB_BEGIN and TSB_END: a
// HostError becomes an R condition (tsb_type_error, ...), a cpp11 unwind
// (an R error raised inside a cpp11::safe call) continues once every C++
// frame is gone, any other C++ exception becomes an R error. Nothing
// longjmps through C++ frames: the signalling happens after the try block,
// where no C++ object with a destructor is alive.
#ifndef TSBRIDGE_R_ENTRY_H_
#define TSBRIDGE_R_ENTRY_H_

#include <cstdio>
#include <cstring>

#include "host.h"

namespace tsbr {
// The condition for `e`, or R_NilValue with a message in buf when even
// building it failed. Never throws.
SEXP ConditionOrMessage(const HostError& e, char* buf, size_t size) noexcept;
// stop(condition); does not return.
[[noreturn]] void Signal(SEXP condition);
}  // namespace tsbr

// tsb_buf_ is not zero-filled: only its first byte says whether it holds a
// message, and filling 8 KiB on every call cost more than the call.
#define TSB_BEGIN                     \
  SEXP tsb_token_ = R_NilValue;       \
  SEXP tsb_condition_ = R_NilValue;   \
  char tsb_buf_[8192];                \
  tsb_buf_[0] = '\0';                 \
  try {                               \
    tsbr::DrainDeleters();

#define TSB_END                                                                    \
  }                                                                                \
  catch (const tsbr::HostError& e) {                                               \
    tsb_condition_ = tsbr::ConditionOrMessage(e, tsb_buf_, sizeof tsb_buf_);       \
  }                                                                                \
  catch (cpp11::unwind_exception & e) {                                            \
    tsb_token_ = e.token;                                                          \
  }                                                                                \
  catch (const std::exception& e) {                                                \
    std::snprintf(tsb_buf_, sizeof tsb_buf_, "%s", e.what());                      \
  }                                                                                \
  catch (...) {                                                                    \
    std::snprintf(tsb_buf_, sizeof tsb_buf_, "%s", "C++ error (unknown cause)");   \
  }                                                                                \
  if (tsb_condition_ != R_NilValue) tsbr::Signal(tsb_condition_);                  \
  if (tsb_token_ != R_NilValue) R_ContinueUnwind(tsb_token_);                      \
  if (tsb_buf_[0] != '\0') Rf_errorcall(R_NilValue, "%s", tsb_buf_);               \
  return R_NilValue;

#endif  // TSBRIDGE_R_ENTRY_H_
