// Modules that survive R's serialize(): saveRDS()/readRDS(), and the
// parallel package's and future's workers, which ship values with it.
//
// An external pointer serializes as NULL, so a module's pointer carries, as
// its tag, a zero-length ALTREP raw vector of class "tsb_module_state"
// whose serialized state is the module's TorchScript archive
// (tsb_module_write). Unserializing that vector reads the archive back
// (tsb_module_read) into a new module; the first use of the restored, NULL
// pointer adopts it (ReviveModule). Method and operator callers revive from
// their tag, the callee's name. R loads this package's namespace when it
// meets the class in a stream, so a fresh worker needs no library() call.
#include <cstdio>
#include <cstring>
#include <string>

#include "calls.h"
#include "entry.h"

#include <R_ext/Altrep.h>  // after Rinternals.h (calls.h), which it needs
#include <R_ext/Rdynload.h>

namespace tsbr {
namespace {

R_altrep_class_t g_state_class;

R_xlen_t StateLength(SEXP) { return 0; }

void* StateDataptr(SEXP, Rboolean) {
  static Rbyte none = 0;  // a zero-length vector's data is never read
  return &none;
}

Rboolean StateInspect(SEXP, int, int, int, void (*)(SEXP, int, int, int)) {
  Rprintf(" tsbridge module state\n");
  return TRUE;
}

// The archive's bytes; an R error once no C++ frame is left to unwind.
SEXP StateSerialized(SEXP x) {
  char message[1024] = "";
  char* data = nullptr;
  size_t size = 0;
  try {
    tsb_status* s = tsb_module_write(ModuleOf(R_altrep_data1(x)), &data, &size);
    if (s != nullptr) {
      std::snprintf(message, sizeof message, "%s", tsb_status_get_message(s));
      tsb_status_free(s);
    }
  } catch (const HostError& e) {
    std::snprintf(message, sizeof message, "%s", e.detail.c_str());
  } catch (const std::exception& e) {
    std::snprintf(message, sizeof message, "%s", e.what());
  }
  if (message[0] != '\0') Rf_error("cannot serialize a tsbridge module: %s", message);
  // Copied into R's memory first: an allocation error longjmps, leaking `data`.
  SEXP bytes = Rf_allocVector(RAWSXP, static_cast<R_xlen_t>(size));
  if (size > 0) std::memcpy(RAW(bytes), data, size);
  tsb_string_free(data);
  return bytes;
}

SEXP StateUnserialize(SEXP cls, SEXP state) {
  char message[1024] = "";
  tsb_module* module = nullptr;
  if (TYPEOF(state) != RAWSXP) {
    std::snprintf(message, sizeof message, "expected the bytes of a module archive");
  } else {
    tsb_status* s = tsb_module_read(reinterpret_cast<const char*>(RAW(state)),
                                    static_cast<size_t>(XLENGTH(state)), &module);
    if (s != nullptr) {
      std::snprintf(message, sizeof message, "%s", tsb_status_get_message(s));
      tsb_status_free(s);
    }
  }
  if (message[0] != '\0') Rf_error("cannot unserialize a tsbridge module: %s", message);
  // A new module and pointer, whose state is what this returns: the
  // restored pointer that carries it adopts the module (ReviveModule).
  SEXP xptr = PROTECT(WrapModule(module));
  SEXP out = R_ExternalPtrTag(xptr);
  UNPROTECT(1);
  (void)cls;
  return out;
}

}  // namespace

SEXP NewModuleState(SEXP xptr) { return R_new_altrep(g_state_class, xptr, R_NilValue); }

void* ReviveModule(SEXP xptr) {
  SEXP state = R_ExternalPtrTag(xptr);
  if (TYPEOF(state) != RAWSXP || !R_altrep_inherits(state, g_state_class)) return nullptr;
  SEXP restored = R_altrep_data1(state);  // the pointer StateUnserialize made
  if (restored == xptr || TYPEOF(restored) != EXTPTRSXP) return nullptr;
  void* box = R_ExternalPtrAddr(restored);
  if (box == nullptr) return nullptr;
  // `xptr` takes the module over: the one the closures and callers hold.
  R_ClearExternalPtr(restored);
  R_SetExternalPtrAddr(xptr, box);
  R_set_altrep_data1(state, xptr);
  return box;
}

}  // namespace tsbr

extern "C" void tsbr_init_serialization(DllInfo* dll) {
  tsbr::g_state_class = R_make_altraw_class("tsb_module_state", "tsbridge", dll);
  R_set_altrep_Length_method(tsbr::g_state_class, tsbr::StateLength);
  R_set_altvec_Dataptr_method(tsbr::g_state_class, tsbr::StateDataptr);
  R_set_altrep_Inspect_method(tsbr::g_state_class, tsbr::StateInspect);
  R_set_altrep_Serialized_state_method(tsbr::g_state_class, tsbr::StateSerialized);
  R_set_altrep_Unserialize_method(tsbr::g_state_class, tsbr::StateUnserialize);
}
