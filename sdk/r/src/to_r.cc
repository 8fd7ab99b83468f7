// Boundary → R, by the value's own type index (abstract kinds never reach
// here). List[int|float|bool] come out with one bulk copy into an atomic
// vector; List[str] as a character vector; dicts with one tsb_dict_get_items.
#include <climits>
#include <cstring>
#include <string>

#include "host.h"

namespace tsbr {
namespace {

bool g_integer64 = false;  // bit64 installed and wanted (set by tsbr_init)

size_t Length(const tsb_any& v) {
  size_t n = 0;
  CheckStatus(tsb_any_len(&v, &n));
  return n;
}

SEXP StrToR(const tsb_any& v) {
  const char* data = nullptr;
  size_t len = 0;
  CheckStatus(tsb_str_get(&v, &data, &len));
  return Utf8(data, len);
}

SEXP ComplexToR(const tsb_any& v) {
  double re = 0, im = 0;
  CheckStatus(tsb_complex_get(&v, &re, &im));
  SEXP out = cpp11::safe[Rf_allocVector](CPLXSXP, 1);
  COMPLEX(out)[0].r = re;
  COMPLEX(out)[0].i = im;
  return out;
}

// Items of a List or Tuple as an R list, errors naming "[i]".
SEXP ItemsToR(const tsb_any& v, size_t n) {
  OwnedVec items(n);
  CheckStatus(tsb_list_get_items(&v, n, items.data()));
  cpp11::writable::list out(static_cast<R_xlen_t>(n));
  for (size_t i = 0; i < n; ++i) {
    try {
      out[static_cast<R_xlen_t>(i)] = ToR(items[i]);
    } catch (HostError& e) {
      Rethrow(e, "[" + std::to_string(i) + "]");
    }
  }
  return out;
}

SEXP ListToR(const TypeEntry& type, const tsb_any& v) {
  const size_t n = Length(v);
  switch (type.contained[0]) {
    case TSB_TYPE_INT: {
      std::vector<int64_t> buf(n);
      CheckStatus(tsb_list_copy_int(&v, n, buf.data()));
      return Int64Vector(buf.data(), n);
    }
    case TSB_TYPE_FLOAT: {
      SEXP out = PROTECT(cpp11::safe[Rf_allocVector](REALSXP, static_cast<R_xlen_t>(n)));
      tsb_status* s = tsb_list_copy_float(&v, n, REAL(out));
      UNPROTECT(1);
      CheckStatus(s);
      return out;
    }
    case TSB_TYPE_BOOL: {
      std::unique_ptr<bool[]> buf(new bool[n > 0 ? n : 1]);
      CheckStatus(tsb_list_copy_bool(&v, n, buf.get()));
      SEXP out = cpp11::safe[Rf_allocVector](LGLSXP, static_cast<R_xlen_t>(n));
      int* dst = LOGICAL(out);
      for (size_t i = 0; i < n; ++i) dst[i] = buf[i] ? 1 : 0;
      return out;
    }
    case TSB_TYPE_STR: {
      OwnedVec items(n);
      CheckStatus(tsb_list_get_items(&v, n, items.data()));
      cpp11::writable::strings out(static_cast<R_xlen_t>(n));
      for (size_t i = 0; i < n; ++i) {
        const char* data = nullptr;
        size_t len = 0;
        CheckStatus(tsb_str_get(&items[i], &data, &len));
        SET_STRING_ELT(out, static_cast<R_xlen_t>(i),
                       cpp11::safe[Rf_mkCharLenCE](data, static_cast<int>(len), CE_UTF8));
      }
      return out;
    }
    default:
      return ItemsToR(v, n);
  }
}

std::string KeyText(SEXP key) {
  if (TYPEOF(key) == STRSXP && Rf_xlength(key) == 1) return Rf_translateCharUTF8(STRING_ELT(key, 0));
  return Describe(key);
}

SEXP DictToR(const TypeEntry& type, const tsb_any& v) {
  const size_t n = Length(v);
  OwnedVec keys(n), values(n);
  CheckStatus(tsb_dict_get_items(&v, n, keys.data(), values.data()));
  cpp11::writable::list r_values(static_cast<R_xlen_t>(n));
  cpp11::writable::list r_keys(static_cast<R_xlen_t>(n));
  for (size_t i = 0; i < n; ++i) {
    r_keys[static_cast<R_xlen_t>(i)] = ToR(keys[i]);
    try {
      r_values[static_cast<R_xlen_t>(i)] = ToR(values[i]);
    } catch (HostError& e) {
      Rethrow(e, "key " + KeyText(r_keys[static_cast<R_xlen_t>(i)]));
    }
  }
  if (type.contained[0] == TSB_TYPE_STR) {  // a named list
    cpp11::writable::strings names(static_cast<R_xlen_t>(n));
    for (size_t i = 0; i < n; ++i) {
      names[static_cast<R_xlen_t>(i)] = cpp11::r_string(STRING_ELT(r_keys[static_cast<R_xlen_t>(i)], 0));
    }
    r_values.names() = names;
    return r_values;
  }
  // Other keys: an object keeping keys and values (and the type).
  cpp11::writable::list out({r_keys, r_values});
  out.names() = {"keys", "values"};
  Tag(out, type);
  return out;
}

SEXP EnumToR(const TypeEntry& type, const tsb_any& v) {
  const char* member = nullptr;
  tsb::Value value;
  CheckStatus(tsb_enum_get(&v, &member, value.out()));
  NamedList out({"name", "value"});
  out.Set(0, Utf8(member, std::strlen(member))).Set(1, ToR(value.get()));
  Tag(out, type);
  return out;
}

// LibTorch's unpickler rebuilds a class instance only with its class's
// compilation unit, which a reading process does not have.
constexpr char kObjectNotSerialized[] =
    "a TorchScript class instance is not serialized (LibTorch reads one back only "
    "with its class); convert its fields to R values before it travels";

SEXP ObjectToR(const TypeEntry& type, const tsb_any& v) {
  tsb_any handle = v;
  tsb_any_retain(&handle);
  SEXP xptr = PROTECT(WrapHandle(handle, kObjectNotSerialized));
  SEXP env = PROTECT(cpp11::safe[R_NewEnv](R_EmptyEnv, FALSE, 0));
  cpp11::safe[Rf_defineVar](Rf_install(".handle"), xptr, env);
  Tag(env, type);
  UNPROTECT(2);
  return env;
}

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
  NestingGuard nesting;
  switch (v.type_index) {  // the fixed leaf indices first: no lookup
    case TSB_TYPE_NONE:
      return R_NilValue;
    case TSB_TYPE_BOOL:
      return cpp11::safe[Rf_ScalarLogical](v.u.i != 0);
    case TSB_TYPE_INT:
      return Int64Vector(&v.u.i, 1);
    case TSB_TYPE_FLOAT:
      return cpp11::safe[Rf_ScalarReal](v.u.d);
    case TSB_TYPE_COMPLEX:
      return ComplexToR(v);
    case TSB_TYPE_STR:
      return StrToR(v);
    case TSB_TYPE_TENSOR:
      return TensorToR(v);
    case TSB_TYPE_DEVICE:
    case TSB_TYPE_DTYPE:
    case TSB_TYPE_LAYOUT:
    case TSB_TYPE_MEMORY_FORMAT:
      return TorchEnumToR(v.type_index, v.u.i);
    default:
      break;
  }
  const TypeEntry& type = Type(v.type_index);
  switch (type.kind) {
    case TSB_KIND_LIST:
      return ListToR(type, v);
    case TSB_KIND_DICT:
      return DictToR(type, v);
    case TSB_KIND_TUPLE: {
      SEXP out = PROTECT(ItemsToR(v, Length(v)));
      Tag(out, type);
      UNPROTECT(1);
      return out;
    }
    case TSB_KIND_NAMEDTUPLE: {
      SEXP out = PROTECT(ItemsToR(v, Length(v)));
      Rf_setAttrib(out, R_NamesSymbol, type.r_fields);
      Tag(out, type);
      UNPROTECT(1);
      return out;
    }
    case TSB_KIND_ENUM:
      return EnumToR(type, v);
    case TSB_KIND_OBJECT:
    case TSB_KIND_CUSTOM_CLASS:
      return ObjectToR(type, v);
    default:
      Fail(TSB_ERR_UNSUPPORTED, "the R host cannot convert a value of type " + type.annotation);
  }
}

}  // namespace tsbr
