// Boundary → R: a host for the kit's Walk (tsbridge/host/kit.hpp), which
// follows the value's own type index (abstract kinds never reach here) and
// names the path of a failure. List[int|float|bool] come out with one bulk
// copy into an atomic vector; List[str] as a character vector; dicts with
// str keys as named lists, others as tsb_dict objects.
#include <climits>
#include <cstring>
#include <string>

#include "host.h"

namespace tsbr {
namespace {

bool g_integer64 = false;  // bit64 installed and wanted (set by tsbr_init)

SEXP Alloc(SEXPTYPE type, size_t n) {
  return cpp11::safe[Rf_allocVector](type, static_cast<R_xlen_t>(n));
}

SEXP Chars(const tsb_any& str) {
  const char* data = nullptr;
  size_t len = 0;
  CheckStatus(tsb_str_get(&str, &data, &len));
  return cpp11::safe[Rf_mkCharLenCE](data, static_cast<int>(len), CE_UTF8);
}

SEXP ObjectToR(const TypeEntry& type, const tsb_any& v) {
  tsb_any handle = v;
  tsb_any_retain(&handle);
  SEXP xptr = PROTECT(WrapHandle(handle));  // serialize(): with its class (serialize.cc)
  SEXP env = PROTECT(cpp11::safe[R_NewEnv](R_EmptyEnv, FALSE, 0));
  cpp11::safe[Rf_defineVar](Rf_install(".handle"), xptr, env);
  Tag(env, type);
  UNPROTECT(2);
  return env;
}

// How each kind looks in R; Out keeps the R value protected. Tensors come
// borrowed (kBorrowTensors): TensorToR keeps the one it wraps (tsb_any_keep).
class RWalk {
 public:
  static constexpr bool kBorrowTensors = true;
  using Out = cpp11::sexp;
  using Entry = TypeEntry;
  using Guard = tsb::kit::NestingGuard;
  using Items = tsb::kit::Items<RWalk>;

  const Entry& Type(int32_t index) { return tsbr::Type(index); }

  Out None() { return R_NilValue; }
  Out Bool(bool b) { return cpp11::safe[Rf_ScalarLogical](b ? 1 : 0); }
  Out Int(int64_t i) { return Int64Vector(&i, 1); }
  // R has no uint64: a double, exact up to 2^53 and for 2^63, rounded above
  // (UINT64_MAX becomes 2^64, docs/r.md).
  Out UInt(uint64_t u) { return cpp11::safe[Rf_ScalarReal](static_cast<double>(u)); }
  Out Float(double d) { return cpp11::safe[Rf_ScalarReal](d); }
  Out Complex(double re, double im) {
    SEXP out = Alloc(CPLXSXP, 1);
    COMPLEX(out)[0].r = re;
    COMPLEX(out)[0].i = im;
    return out;
  }
  Out Str(const char* s, size_t n) { return Utf8(s, n); }
  Out Tensor(const tsb_any& v) { return TensorToR(v); }
  Out TorchEnum(int32_t type, int64_t code) { return TorchEnumToR(type, code); }

  Out IntList(const Entry&, const int64_t* data, size_t n) { return Int64Vector(data, n); }
  Out FloatList(const Entry&, const double* data, size_t n) {
    SEXP out = Alloc(REALSXP, n);
    if (n > 0) std::memcpy(REAL(out), data, n * sizeof(double));
    return out;
  }
  Out BoolList(const Entry&, const bool* data, size_t n) {
    SEXP out = Alloc(LGLSXP, n);
    int* dst = LOGICAL(out);
    for (size_t i = 0; i < n; ++i) dst[i] = data[i] ? 1 : 0;
    return out;
  }
  Out List(const Entry& type, Items& items) {
    if (type.contained[0] == TSB_TYPE_INT) return IntItemsToR(items);
    if (type.contained[0] != TSB_TYPE_STR) return ItemsToR(items);
    cpp11::writable::strings out(static_cast<R_xlen_t>(items.size()));
    for (size_t i = 0; i < items.size(); ++i) {
      SET_STRING_ELT(out, static_cast<R_xlen_t>(i), Chars(items[i]));
    }
    return out;
  }
  Out Tuple(const Entry& type, Items& items) {
    Out out = ItemsToR(items);
    if (type.kind == TSB_KIND_NAMEDTUPLE) Rf_setAttrib(out, R_NamesSymbol, type.r_fields);
    Tag(out, type);
    return out;
  }
  Out Dict(const Entry& type, tsb::kit::DictItems<RWalk>& items) {
    const R_xlen_t n = static_cast<R_xlen_t>(items.size());
    cpp11::writable::list values(n);
    if (type.contained[0] == TSB_TYPE_STR) {  // a named list
      cpp11::writable::strings names(n);
      for (R_xlen_t i = 0; i < n; ++i) {
        SET_STRING_ELT(names, i, Chars(items.key(static_cast<size_t>(i))));
        values[i] = items.Value(static_cast<size_t>(i));
      }
      values.names() = names;
      return values;
    }
    // Other keys: an object keeping keys and values (and the type).
    cpp11::writable::list keys(n);
    for (R_xlen_t i = 0; i < n; ++i) {
      keys[i] = items.Key(static_cast<size_t>(i));
      values[i] = items.Value(static_cast<size_t>(i));
    }
    cpp11::writable::list out({keys, values});
    out.names() = {"keys", "values"};
    Tag(out, type);
    return out;
  }
  Out Enum(const Entry& type, const tsb_any& v) {
    const char* member = nullptr;
    tsb::Value value;
    CheckStatus(tsb_enum_get(&v, &member, value.out()));
    NamedList out({"name", "value"});
    out.Set(0, Utf8(member, std::strlen(member))).Set(1, tsb::kit::Walk(*this, value.get()));
    Tag(out, type);
    return out.list();
  }
  Out Object(const Entry& type, const tsb_any& v) { return ObjectToR(type, v); }

 private:
  // A List[int] the kit did not bulk copy, since it holds a uint: a
  // double vector, as Int64Vector gives one that int cannot hold.
  Out IntItemsToR(Items& items) {
    SEXP out = Alloc(REALSXP, items.size());
    double* dst = REAL(out);
    for (size_t i = 0; i < items.size(); ++i) {
      const tsb_any& item = items[i];
      dst[i] = item.type_index == TSB_TYPE_UINT ? static_cast<double>(item.u.u)
                                                : static_cast<double>(item.u.i);
    }
    return out;
  }
  // Items of a List or Tuple as an R list (errors name "[i]").
  Out ItemsToR(Items& items) {
    cpp11::writable::list out(static_cast<R_xlen_t>(items.size()));
    for (size_t i = 0; i < items.size(); ++i) out[static_cast<R_xlen_t>(i)] = items.Walk(i);
    return out;
  }
};

}  // namespace

bool UseInteger64() { return g_integer64; }
void SetUseInteger64(bool on) { g_integer64 = on; }

SEXP Int64Vector(const int64_t* data, size_t n) {
  bool fits = true;
  for (size_t i = 0; i < n && fits; ++i) fits = data[i] > INT_MIN && data[i] <= INT_MAX;
  if (fits) {
    SEXP out = cpp11::safe[Rf_allocVector](INTSXP, static_cast<R_xlen_t>(n));
    int* dst = INTEGER(out);
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<int>(data[i]);
    return out;
  }
  // bit64 spells NA as INT64_MIN: a vector holding -2^63 comes back as
  // double, where -2^63 is exact.
  bool has_min = false;
  for (size_t i = 0; i < n; ++i) has_min = has_min || data[i] == INT64_MIN;
  SEXP out = PROTECT(cpp11::safe[Rf_allocVector](REALSXP, static_cast<R_xlen_t>(n)));
  if (g_integer64 && !has_min) {  // bit64 stores the int64 bits in a double vector
    std::memcpy(REAL(out), data, n * sizeof(int64_t));
    cpp11::safe[Rf_setAttrib](out, R_ClassSymbol, cpp11::safe[Rf_mkString]("integer64"));
  } else {
    double* dst = REAL(out);
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<double>(data[i]);
  }
  UNPROTECT(1);
  return out;
}

SEXP ToR(const tsb_any& v) {
  // A None, bool, int or float (a method's usual result) straight into R:
  // neither the walk nor a protected wrapper.
  switch (v.type_index) {
    case TSB_TYPE_NONE: return R_NilValue;
    case TSB_TYPE_BOOL: return cpp11::safe[Rf_ScalarLogical](v.u.i != 0 ? 1 : 0);
    case TSB_TYPE_FLOAT: return cpp11::safe[Rf_ScalarReal](v.u.d);
    case TSB_TYPE_INT:
      if (v.u.i > INT_MIN && v.u.i <= INT_MAX) {  // INT_MIN is R's NA
        return cpp11::safe[Rf_ScalarInteger](static_cast<int>(v.u.i));
      }
      break;
    default: break;
  }
  RWalk host;
  return tsb::kit::Walk(host, v);
}

}  // namespace tsbr
