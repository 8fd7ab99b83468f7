// The R host of tsbridge: shared declarations.
//
// Everything here talks to tsbridge through tsbridge/tsbridge.h (with
// tsbridge.hpp and the host kit, host/kit.hpp, over it) and dlpack.h only:
// ctest r_includes runs hosts/python/tests/check_includes.py over this
// directory. R is reached through cpp11; an R error never
// longjmps through a C++ frame (every R call that may fail runs under
// cpp11::safe / unwind_protect) and no C++ exception reaches R (entry.h).
#ifndef TSBRIDGE_R_HOST_H_
#define TSBRIDGE_R_HOST_H_

#include <cpp11.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tsbridge/host/kit.hpp"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsbr {

// The host kit (tsbridge/host/kit.hpp) holds what every host needs: the
// boundary references released together (OwnedVec), failures with a path
// (ConvertError, grown by At), the nesting limit, the type cache and the
// walks; this host says only how each kind looks in R.
using tsb::kit::Annotation;
using tsb::kit::At;
using tsb::kit::CheckStatus;
using tsb::kit::Fail;
using tsb::kit::OwnedVec;

// A failure with a path into the value; the entry point turns it into an
// R condition of class c("tsb_<code>_error", "tsb_error", "error",
// "condition") with $code, $path, $detail (errors.cc).
using HostError = tsb::kit::ConvertError;

// The R condition for an error (an unprotected SEXP).
SEXP MakeCondition(const HostError& e);
// One-line summary of an R value for messages: character "x", double 2.5,
// a list of 3, NULL.
std::string Describe(SEXP x);
// A single non-NA string argument as UTF-8; `what` names it in the error.
std::string StringArg(SEXP x, const char* what);

// ------------------------------------------------------------- handles

// What an external pointer of class tsb_tensor (or the `.handle` of an
// object environment) points to: one reference, released by the finalizer
// or by tsb_release().
struct Handle {
  tsb_any v;
  explicit Handle(tsb_any value) : v(value) {}
  ~Handle() { tsb_any_release(&v); }
};
// A new external pointer holding `v` (takes the reference). With a
// `no_serialize` reason, serialize() keeps only that reason.
SEXP WrapHandle(tsb_any v, const char* no_serialize = nullptr);
// The live value behind an external pointer (one read back by
// unserialize() adopts its value first); throws for a released one, one
// whose value could not be serialized, or a non-handle.
const tsb_any& HandleOf(SEXP xptr, const char* what);
// The `.handle` binding of a script object's environment (R_NilValue when it
// has none, or when x is not an environment).
SEXP HandleBinding(SEXP x);

// serialize.cc: the state a value's xptr carries as its tag; the Handle a
// NULL xptr adopts from its unserialized state (or nullptr); why a value
// could not be serialized or read back (or nullptr).
SEXP NewValueState(SEXP xptr, const char* no_serialize);
// A type index as the `tsb_type` attribute: serialized as the type's text,
// read back as the reading process's index for it (NA when unknown there).
SEXP NewTypeTag(int32_t index, const std::string& annotation);
void* ReviveValue(SEXP xptr);
const char* UnserializeFailure(SEXP xptr);

// ------------------------------------------------------------------ types

// What the host caches per type index: the type's info (the kit's
// TypeCache) and what R needs of it, made once in Complete().
struct TypeEntry : tsb::kit::TypeInfo {
  SEXP r_class = R_NilValue;   // class attribute of values of this type
  SEXP r_fields = R_NilValue;  // NamedTuple: field names (character)
  SEXP r_index = R_NilValue;   // the `tsb_type` attribute (NewTypeTag)
  void Complete();
};
const TypeEntry& Type(int32_t index);
// Sets "class" and "tsb_type" on a converted NamedTuple/Tuple/Enum/Dict.
void Tag(SEXP x, const TypeEntry& type);
// The tsb_type attribute an R value carries (TSB_TYPE_INVALID when none).
int32_t TaggedType(SEXP x);
bool Inherits(SEXP x, const char* cls);

// dtype, layout, memory format, device <-> S3 objects (a string with class
// tsb_dtype, ...). Names come from the JSON form ("float32", "cpu").
SEXP TorchEnumToR(int32_t type_index, int64_t code);
// True when x is one of those objects (or a string where `expected` is one
// of their types); *out is the inline value.
bool TorchEnumFromR(SEXP x, int32_t expected, tsb_any* out);
int32_t DtypeCode(const std::string& name);

// ------------------------------------------------------------- conversion

// Boundary → R. `v` is borrowed.
SEXP ToR(const tsb_any& v);
// R → boundary, directed by `expected` (TSB_TYPE_ANY when unknown): a new
// reference in *out. Throws HostError with a path.
void FromR(SEXP x, int32_t expected, tsb_any* out);
// An int64 as R: integer when it fits, else bit64::integer64 (when
// installed and option tsbridge.int64 is not "double"), else double.
SEXP Int64Vector(const int64_t* data, size_t n);
bool UseInteger64();
void SetUseInteger64(bool on);

// Tensors (tensors.cc).
SEXP TensorToR(const tsb_any& v);  // a tsb_tensor object (shares the handle)
// An R vector/matrix/array as a tensor without copying where the type
// matches (double, integer, complex, raw, integer64); logical is copied to
// bool. dtype < 0: the natural one.
void TensorFromArray(SEXP x, int32_t dtype, tsb_any* out);
bool IsArrayLike(SEXP x);
// The data of a numeric, logical, raw or complex vector; throws otherwise.
void* VectorData(SEXP x);
// Runs deleters that other threads queued (R is single-threaded).
void DrainDeleters();

// ---------------------------------------------------------------- values

// Length of an R vector as size_t.
inline size_t Len(SEXP x) { return static_cast<size_t>(Rf_xlength(x)); }
SEXP Utf8(const char* s, size_t len);
SEXP Utf8(const std::string& s);
// A CHARSXP's text in UTF-8 (Rf_translateCharUTF8, whose buffer lives until
// the .Call returns). One in "bytes" encoding, which has none, is refused:
// R would raise its error through the C++ frames.
const char* Utf8Chars(SEXP s);
// The string write(&text) makes (the ABI's, freed here) as one R string.
template <typename Write>
SEXP StringOf(Write&& write) {
  char* text = nullptr;
  CheckStatus(write(&text));
  std::unique_ptr<char, decltype(&tsb_string_free)> owned(text, &tsb_string_free);
  return Utf8(std::string(text));
}
// A character vector of n C strings (NULL reads as "").
SEXP StringList(const char* const* items, size_t n);

}  // namespace tsbr


namespace tsbr {
// tensors.cc, for the entry points.
void InitTensors();
int64_t DeleterCalls();
int64_t LiveBuffers();
void ReleaseHandle(SEXP xptr);
SEXP TensorInfo(const tsb_any& t);
SEXP TensorToArray(const tsb_any& t);
}  // namespace tsbr

namespace tsbr {
// A named R list filled item by item, so that no freshly made item is left
// unprotected while the next one allocates.
class NamedList {
 public:
  explicit NamedList(std::initializer_list<const char*> names)
      : list_(static_cast<R_xlen_t>(names.size())) {
    cpp11::writable::strings n(static_cast<R_xlen_t>(names.size()));
    R_xlen_t i = 0;
    for (const char* name : names) n[i++] = name;
    list_.names() = n;
  }
  NamedList& Set(R_xlen_t i, SEXP value) {
    SET_VECTOR_ELT(list_, i, value);
    return *this;
  }
  cpp11::writable::list& list() { return list_; }
  operator SEXP() { return list_; }

 private:
  cpp11::writable::list list_;
};
}  // namespace tsbr

#endif  // TSBRIDGE_R_HOST_H_
