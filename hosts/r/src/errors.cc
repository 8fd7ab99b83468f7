// Statuses and host-side conversion failures as R conditions.
#include <cstdio>
#include <cstring>
#include <string>

#include "host.h"

namespace tsbr {
namespace {

const char* ClassOf(tsb_code code) {
  switch (code) {
    case TSB_ERR_INVALID_ARGUMENT: return "tsb_invalid_argument_error";
    case TSB_ERR_TYPE: return "tsb_type_error";
    case TSB_ERR_OUT_OF_RANGE: return "tsb_out_of_range_error";
    case TSB_ERR_NOT_FOUND: return "tsb_not_found_error";
    case TSB_ERR_UNSUPPORTED: return "tsb_unsupported_error";
    case TSB_ERR_TORCH: return "tsb_torch_error";
    case TSB_ERR_NO_MEMORY: return "tsb_no_memory_error";
    case TSB_ERR_ALREADY_EXISTS: return "tsb_already_exists_error";
    default: return "tsb_internal_error";
  }
}

std::string Quote(const char* s, size_t n) {
  std::string out = "\"";
  const size_t shown = n > 40 ? 40 : n;
  out.append(s, shown);
  if (shown < n) out += "...";
  return out + "\"";
}

}  // namespace

SEXP MakeCondition(const HostError& e) {
  // A missing operator library's advice names this host's call.
  constexpr const char* kLoad = "tsb_load_library(\"{}\")";
  const std::string message = tsb::SayLoadLibrary(e.Message(), kLoad);
  int code = static_cast<int>(e.code);
  if (code <= 0 || code > TSB_ERR_INTERNAL) code = TSB_ERR_INTERNAL;
  NamedList cond({"message", "call", "path", "detail", "code", "backtrace"});
  cond.Set(0, Utf8(message)).Set(2, Utf8(e.path));
  cond.Set(3, Utf8(tsb::SayLoadLibrary(e.detail, kLoad)));
  cond.Set(4, cpp11::as_sexp(code)).Set(5, Utf8(e.backtrace));
  cond.list().attr("class") = {ClassOf(static_cast<tsb_code>(code)), "tsb_error", "error",
                               "condition"};
  return cond;
}

std::string Describe(SEXP x) {
  if (x == R_NilValue) return "NULL";
  if (Inherits(x, "tsb_tensor")) return "a tsb_tensor";
  const char* type = Rf_type2char(TYPEOF(x));
  if (Rf_isObject(x) && Rf_getAttrib(x, R_ClassSymbol) != R_NilValue) {
    SEXP cls = Rf_getAttrib(x, R_ClassSymbol);
    return std::string("an R object of class ") + CHAR(STRING_ELT(cls, 0));
  }
  if (!Rf_isVector(x)) return std::string("an R ") + type;
  const R_xlen_t n = Rf_xlength(x);
  if (n != 1 || TYPEOF(x) == VECSXP) {
    std::string kind = TYPEOF(x) == VECSXP ? "list" : std::string(type) + " vector";
    return "a " + kind + " of length " + std::to_string(n);
  }
  char buf[64];
  switch (TYPEOF(x)) {
    case LGLSXP:
      if (LOGICAL(x)[0] == NA_LOGICAL) return "logical NA";
      return LOGICAL(x)[0] ? "logical TRUE" : "logical FALSE";
    case INTSXP:
      if (INTEGER(x)[0] == NA_INTEGER) return "integer NA";
      return "integer " + std::to_string(INTEGER(x)[0]);
    case REALSXP:
      if (R_IsNA(REAL(x)[0])) return "double NA";
      std::snprintf(buf, sizeof(buf), "%.17g", REAL(x)[0]);
      return std::string("double ") + buf;
    case STRSXP: {
      SEXP s = STRING_ELT(x, 0);
      if (s == NA_STRING) return "character NA";
      const char* c = Rf_getCharCE(s) == CE_BYTES ? CHAR(s) : Rf_translateCharUTF8(s);
      return "character " + Quote(c, std::strlen(c));
    }
    default:
      return std::string(type);
  }
}

std::string StringArg(SEXP x, const char* what) {
  if (TYPEOF(x) != STRSXP || Rf_xlength(x) != 1 || STRING_ELT(x, 0) == NA_STRING) {
    Fail(TSB_ERR_INVALID_ARGUMENT, std::string(what) + " must be one string, got " + Describe(x));
  }
  return Utf8Chars(STRING_ELT(x, 0));
}

}  // namespace tsbr

#include "entry.h"

namespace tsbr {

SEXP ConditionOrMessage(const HostError& e, char* buf, size_t size) noexcept {
  try {
    SEXP cond = MakeCondition(e);
    R_PreserveObject(cond);  // released by Signal
    return cond;
  } catch (...) {
    std::snprintf(buf, size, "%s", e.Message().c_str());
    return R_NilValue;
  }
}

void Signal(SEXP condition) {
  SEXP call = PROTECT(Rf_lang2(Rf_install("stop"), condition));
  R_ReleaseObject(condition);  // `call` protects it now
  Rf_eval(call, R_BaseEnv);
  UNPROTECT(1);
  Rf_error("unreachable");
}

}  // namespace tsbr
