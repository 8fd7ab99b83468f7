// Modules, tensors and objects that survive R's serialize():
// saveRDS()/readRDS(), and the parallel package's and future's workers,
// which ship values with it.
//
// An external pointer serializes as NULL, so each pointer carries, as its
// tag, a zero-length ALTREP raw vector whose serialized state is what the
// value is made from again: a module's TorchScript archive
// (tsb_module_write, class "tsb_module_state"), a tensor's or other value's
// torch.save bytes (tsb_pickle_write, class "tsb_value_state"; a value
// LibTorch cannot pickle keeps the reason instead, given at its first use in
// the other process), an object's archive with its class (tsb_object_write,
// the same class, after the prefix kObjectState: torch.save's bytes are a
// zip too); a value's type index serializes as the type's text
// (NewTypeTag). Unserializing that vector makes the value again; the first
// use of the restored, NULL pointer adopts it (Revive). Method and operator
// callers revive from their tag, the callee's name. R loads this
// package's namespace when it meets the class in a stream, so a fresh worker
// needs no library() call.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "calls.h"
#include "entry.h"

#include <R_ext/Altrep.h>  // after Rinternals.h (calls.h), which it needs
#include <R_ext/Rdynload.h>

namespace tsbr {
namespace {

R_altrep_class_t g_module_state;
R_altrep_class_t g_value_state;

R_xlen_t StateLength(SEXP) { return 0; }

void* StateDataptr(SEXP, Rboolean) {
  static Rbyte none = 0;  // a zero-length vector's data is never read
  return &none;
}

Rboolean StateInspect(SEXP, int, int, int, void (*)(SEXP, int, int, int)) {
  Rprintf(" tsbridge value state\n");
  return TRUE;
}

// Copies a status's message into `message` (when it failed) and frees it.
void TakeMessage(tsb_status* s, char* message, size_t size) {
  if (s == nullptr) return;
  std::snprintf(message, size, "%s", tsb_status_get_message(s));
  tsb_status_free(s);
}

// The bytes `write` makes of the state's value, as an R raw vector; on
// failure the message, in `message`. Nothing here longjmps over a C++ frame.
template <typename Write>
SEXP BytesOr(Write write, char* message, size_t size) {
  char* data = nullptr;
  size_t n = 0;
  try {
    TakeMessage(write(&data, &n), message, size);
  } catch (const HostError& e) {
    std::snprintf(message, size, "%s", e.detail.c_str());
  } catch (const std::exception& e) {
    std::snprintf(message, size, "%s", e.what());
  }
  if (message[0] != '\0') return R_NilValue;
  // Copied into R's memory first: an allocation error longjmps, leaking `data`.
  SEXP bytes = PROTECT(Rf_allocVector(RAWSXP, static_cast<R_xlen_t>(n)));
  if (n > 0) std::memcpy(RAW(bytes), data, n);
  tsb_string_free(data);
  UNPROTECT(1);
  return bytes;
}

SEXP ModuleSerialized(SEXP x) {
  char message[1024] = "";
  SEXP bytes = BytesOr([&](char** data, size_t* n) {
    return tsb_module_write(ModuleOf(R_altrep_data1(x)), data, n);
  }, message, sizeof message);
  if (message[0] != '\0') Rf_error("cannot serialize a tsbridge module: %s", message);
  return bytes;
}

SEXP ModuleUnserialize(SEXP, SEXP state) {
  char message[1024] = "";
  tsb_module* module = nullptr;
  if (TYPEOF(state) != RAWSXP) {
    std::snprintf(message, sizeof message, "expected the bytes of a module archive");
  } else {
    TakeMessage(tsb_module_read(reinterpret_cast<const char*>(RAW(state)),
                                static_cast<size_t>(XLENGTH(state)), &module),
                message, sizeof message);
  }
  if (message[0] != '\0') Rf_error("cannot unserialize a tsbridge module: %s", message);
  // A new module and pointer, whose state is what this returns: the
  // restored pointer that carries it adopts the module (Revive).
  return R_ExternalPtrTag(WrapModule(module));
}

// What an object's state starts with: the archive tsb_object_write made
// follows. A pickle (torch.save's zip) starts with "PK".
constexpr char kObjectState[] = "tsbridge object\n";
constexpr size_t kObjectStateSize = sizeof kObjectState - 1;

// A value's state serializes as its pickle bytes (an object's as its
// archive), or as the reason it has none (a string): serialize() of a list
// holding one never fails for it.
SEXP ValueSerialized(SEXP x) {
  if (TYPEOF(R_altrep_data2(x)) == STRSXP) return R_altrep_data2(x);  // read back failed
  char message[1024] = "";
  bool object = false;
  SEXP bytes = BytesOr([&](char** data, size_t* n) {
    const tsb_any& value = HandleOf(R_altrep_data1(x), "value");
    const tsb_kind kind = Type(value.type_index).kind;
    // An object's class lives in its module's compilation unit, which the
    // reading process may not have: its archive carries the class.
    object = kind == TSB_KIND_OBJECT || kind == TSB_KIND_CUSTOM_CLASS;
    return object ? tsb_object_write(&value, data, n) : tsb_pickle_write(&value, data, n);
  }, message, sizeof message);
  if (message[0] != '\0') return Rf_mkString(message);
  if (!object) return bytes;
  PROTECT(bytes);
  SEXP state = Rf_allocVector(RAWSXP, XLENGTH(bytes) + static_cast<R_xlen_t>(kObjectStateSize));
  std::memcpy(RAW(state), kObjectState, kObjectStateSize);
  if (XLENGTH(bytes) > 0) std::memcpy(RAW(state) + kObjectStateSize, RAW(bytes), XLENGTH(bytes));
  UNPROTECT(1);
  return state;
}

bool IsObjectState(SEXP state) {
  return static_cast<size_t>(XLENGTH(state)) >= kObjectStateSize &&
         std::memcmp(RAW(state), kObjectState, kObjectStateSize) == 0;
}

SEXP ValueUnserialize(SEXP, SEXP state) {
  char message[1024] = "";
  tsb_any value = tsb_any_inline(TSB_TYPE_NONE, 0);
  if (TYPEOF(state) == RAWSXP) {
    const char* data = reinterpret_cast<const char*>(RAW(state));
    const size_t size = static_cast<size_t>(XLENGTH(state));
    TakeMessage(IsObjectState(state)
                    ? tsb_object_read(data + kObjectStateSize, size - kObjectStateSize, &value)
                    : tsb_pickle_read(data, size, &value),
                message, sizeof message);
  } else if (TYPEOF(state) == STRSXP && XLENGTH(state) == 1) {
    std::snprintf(message, sizeof message, "%s", CHAR(STRING_ELT(state, 0)));
  } else {
    std::snprintf(message, sizeof message, "expected the bytes torch.save writes");
  }
  if (message[0] != '\0') {  // kept for the value's first use
    SEXP reason = PROTECT(Rf_mkString(message));
    SEXP out = R_new_altrep(g_value_state, R_NilValue, reason);
    UNPROTECT(1);
    return out;
  }
  return R_ExternalPtrTag(WrapHandle(value));
}

// The object a NULL pointer adopts from its unserialized state, or nullptr.
void* Revive(SEXP xptr, R_altrep_class_t cls) {
  SEXP state = R_ExternalPtrTag(xptr);
  if (TYPEOF(state) != RAWSXP || !R_altrep_inherits(state, cls)) return nullptr;
  SEXP restored = R_altrep_data1(state);  // the pointer the unserialize made
  if (restored == xptr || TYPEOF(restored) != EXTPTRSXP) return nullptr;
  void* box = R_ExternalPtrAddr(restored);
  if (box == nullptr) return nullptr;
  // `xptr` takes the object over: the one R code holds.
  R_ClearExternalPtr(restored);
  R_SetExternalPtrAddr(xptr, box);
  R_set_altrep_data1(state, xptr);
  return box;
}

// A value's `tsb_type` attribute: its type index, which another process
// numbers differently, so it serializes as the type's text and reads back
// as that process's index for it (NA where the type is unknown there: the
// value then converts by the schema's type alone). In the process that
// wrote it, the index itself.
R_altrep_class_t g_type_state;

R_xlen_t TypeLength(SEXP) { return 1; }
void* TypeDataptr(SEXP x, Rboolean) { return INTEGER(R_altrep_data1(x)); }
int TypeElt(SEXP x, R_xlen_t) { return INTEGER(R_altrep_data1(x))[0]; }
Rboolean TypeInspect(SEXP x, int, int, int, void (*)(SEXP, int, int, int)) {
  Rprintf(" tsbridge type %d\n", INTEGER(R_altrep_data1(x))[0]);
  return TRUE;
}
// This R process, as written into a type's serialized state: read back in
// the same process, the index itself (a named type's text parses only where
// its module is known); elsewhere, the text.
std::string& Session() {
  static std::string session = [] {
    std::random_device random;
    return std::to_string(random()) + ":" + std::to_string(random()) + ":" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return session;
}

// c(text, session, index).
SEXP TypeSerialized(SEXP x) {
  SEXP state = PROTECT(Rf_allocVector(STRSXP, 3));
  SET_STRING_ELT(state, 0, STRING_ELT(R_altrep_data2(x), 0));
  SET_STRING_ELT(state, 1, Rf_mkChar(Session().c_str()));
  SET_STRING_ELT(state, 2, Rf_mkChar(std::to_string(INTEGER(R_altrep_data1(x))[0]).c_str()));
  UNPROTECT(1);
  return state;
}

SEXP TypeUnserialize(SEXP, SEXP state) {
  int32_t index = NA_INTEGER;
  if (TYPEOF(state) == STRSXP && XLENGTH(state) == 3 &&
      Session() == CHAR(STRING_ELT(state, 1))) {
    index = std::atoi(CHAR(STRING_ELT(state, 2)));
  } else if (TYPEOF(state) == STRSXP && XLENGTH(state) >= 1) {
    int32_t parsed = TSB_TYPE_INVALID;
    tsb_status* s = tsb_type_parse(CHAR(STRING_ELT(state, 0)), &parsed);
    if (s == nullptr) {
      index = parsed;
    } else {
      tsb_status_free(s);
    }
  }
  SEXP value = PROTECT(Rf_ScalarInteger(index));
  SEXP text = PROTECT(Rf_ScalarString(TYPEOF(state) == STRSXP && XLENGTH(state) >= 1
                                          ? STRING_ELT(state, 0) : NA_STRING));
  SEXP out = R_new_altrep(g_type_state, value, text);
  UNPROTECT(2);
  return out;
}

}  // namespace

SEXP NewTypeTag(int32_t index, const std::string& annotation) {
  SEXP value = PROTECT(Rf_ScalarInteger(index));
  SEXP text = PROTECT(Rf_mkString(annotation.c_str()));
  SEXP out = R_new_altrep(g_type_state, value, text);
  UNPROTECT(2);
  return out;
}

SEXP NewModuleState(SEXP xptr) { return R_new_altrep(g_module_state, xptr, R_NilValue); }
SEXP NewValueState(SEXP xptr, const char* reason) {
  if (reason == nullptr) return R_new_altrep(g_value_state, xptr, R_NilValue);
  SEXP why = PROTECT(Rf_mkString(reason));
  SEXP state = R_new_altrep(g_value_state, R_NilValue, why);
  UNPROTECT(1);
  return state;
}

void* ReviveModule(SEXP xptr) { return Revive(xptr, g_module_state); }
void* ReviveValue(SEXP xptr) { return Revive(xptr, g_value_state); }

const char* UnserializeFailure(SEXP xptr) {
  SEXP state = R_ExternalPtrTag(xptr);
  if (TYPEOF(state) != RAWSXP || !R_altrep_inherits(state, g_value_state)) return nullptr;
  SEXP reason = R_altrep_data2(state);
  return TYPEOF(reason) == STRSXP ? CHAR(STRING_ELT(reason, 0)) : nullptr;
}

}  // namespace tsbr

namespace {
R_altrep_class_t StateClass(const char* name, DllInfo* dll, R_altrep_Serialized_state_method_t save,
                            R_altrep_Unserialize_method_t load) {
  R_altrep_class_t cls = R_make_altraw_class(name, "tsbridge", dll);
  R_set_altrep_Length_method(cls, tsbr::StateLength);
  R_set_altvec_Dataptr_method(cls, tsbr::StateDataptr);
  R_set_altrep_Inspect_method(cls, tsbr::StateInspect);
  R_set_altrep_Serialized_state_method(cls, save);
  R_set_altrep_Unserialize_method(cls, load);
  return cls;
}
}  // namespace

extern "C" void tsbr_init_serialization(DllInfo* dll) {
  tsbr::g_module_state = StateClass("tsb_module_state", dll, tsbr::ModuleSerialized,
                                    tsbr::ModuleUnserialize);
  tsbr::g_value_state = StateClass("tsb_value_state", dll, tsbr::ValueSerialized,
                                   tsbr::ValueUnserialize);
  R_altrep_class_t type = R_make_altinteger_class("tsb_type_state", "tsbridge", dll);
  R_set_altrep_Length_method(type, tsbr::TypeLength);
  R_set_altvec_Dataptr_method(type, tsbr::TypeDataptr);
  R_set_altinteger_Elt_method(type, tsbr::TypeElt);
  R_set_altrep_Inspect_method(type, tsbr::TypeInspect);
  R_set_altrep_Serialized_state_method(type, tsbr::TypeSerialized);
  R_set_altrep_Unserialize_method(type, tsbr::TypeUnserialize);
  tsbr::g_type_state = type;
}
