// R → boundary, type-directed: the expected type (a schema's parameter, a
// container's element type) decides what an R value becomes, so c(1, 2) is
// a List[int] where the schema says List[int], a List[float] where it says
// List[float] and a Tensor where it says Tensor. Where the type is unknown
// (Any, an operator argument whose overloads disagree) the R type decides:
// a length-1 atomic vector is a scalar, any other atomic vector a List, a
// matrix or array a Tensor, a named list a Dict[str, V], a list a List.
//
// NA becomes None where the expected type admits None (Optional, Any) and
// is refused everywhere else, naming the place.
#include <cmath>
#include <cstring>
#include <string>

#include "host.h"

namespace tsbr {
namespace {

void Untyped(SEXP x, tsb_any* out);

bool IsScalarNA(SEXP x);
const char* const kNA = " (NA becomes None only where the type is Optional or Any)";

// A scalar NA says where NA is welcome (docs/r.md), whatever else refused it.
[[noreturn]] void Mismatch(int32_t expected, SEXP x, const std::string& why = "") {
  const std::string hint = why.empty() && Rf_isVectorAtomic(x) && IsScalarNA(x) ? kNA : why;
  Fail(TSB_ERR_TYPE, "expected " + Annotation(expected) + ", got " + Describe(x) + hint);
}

bool IsInteger64(SEXP x) { return TYPEOF(x) == REALSXP && Inherits(x, "integer64"); }
constexpr int64_t kInteger64NA = INT64_MIN;  // bit64's NA

bool IsScalarNA(SEXP x) {
  if (Rf_xlength(x) != 1) return false;
  switch (TYPEOF(x)) {
    case LGLSXP: return LOGICAL(x)[0] == NA_LOGICAL;
    case INTSXP: return INTEGER(x)[0] == NA_INTEGER;
    case REALSXP:
      if (IsInteger64(x)) {
        int64_t i;
        std::memcpy(&i, REAL(x), sizeof i);
        return i == kInteger64NA;
      }
      return R_IsNA(REAL(x)[0]);
    case STRSXP: return STRING_ELT(x, 0) == NA_STRING;
    case CPLXSXP: return R_IsNA(COMPLEX(x)[0].r);
    default: return false;
  }
}

// Element i of an atomic vector as an int64, checking NA and wholeness.
int64_t IntAt(SEXP x, R_xlen_t i, int32_t expected) {
  switch (TYPEOF(x)) {
    case INTSXP: {
      const int v = INTEGER(x)[i];
      if (v == NA_INTEGER) Fail(TSB_ERR_TYPE, "expected int, got integer NA" + std::string(kNA));
      return v;
    }
    case REALSXP: {
      if (IsInteger64(x)) {
        int64_t v;
        std::memcpy(&v, REAL(x) + i, sizeof v);
        if (v == kInteger64NA) Fail(TSB_ERR_TYPE, "expected int, got integer64 NA" + std::string(kNA));
        return v;
      }
      const double d = REAL(x)[i];
      if (R_IsNA(d)) Fail(TSB_ERR_TYPE, "expected int, got double NA" + std::string(kNA));
      // R writes 2 for an int: a whole double in int64's range converts.
      if (std::isfinite(d) && d == std::trunc(d) && d >= -9223372036854775808.0 &&
          d < 9223372036854775808.0) {
        return static_cast<int64_t>(d);
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      Fail(TSB_ERR_TYPE, std::string("expected int, got double ") + buf +
                             " (not a whole number in the int64 range)");
    }
    default:
      Mismatch(expected, x);
  }
}

double FloatAt(SEXP x, R_xlen_t i) {
  switch (TYPEOF(x)) {
    case REALSXP:
      if (IsInteger64(x)) return static_cast<double>(IntAt(x, i, TSB_TYPE_FLOAT));
      if (R_IsNA(REAL(x)[i])) Fail(TSB_ERR_TYPE, "expected float, got double NA" + std::string(kNA));
      return REAL(x)[i];
    case INTSXP:
      if (INTEGER(x)[i] == NA_INTEGER) {
        Fail(TSB_ERR_TYPE, "expected float, got integer NA" + std::string(kNA));
      }
      return INTEGER(x)[i];
    default:
      Mismatch(TSB_TYPE_FLOAT, x);
  }
}

bool BoolAt(SEXP x, R_xlen_t i) {
  if (TYPEOF(x) != LGLSXP) Mismatch(TSB_TYPE_BOOL, x);
  const int v = LOGICAL(x)[i];
  if (v == NA_LOGICAL) Fail(TSB_ERR_TYPE, "expected bool, got logical NA" + std::string(kNA));
  return v != 0;
}

void StrAt(SEXP x, R_xlen_t i, tsb_any* out) {
  if (TYPEOF(x) != STRSXP) Mismatch(TSB_TYPE_STR, x);
  SEXP s = STRING_ELT(x, i);
  if (s == NA_STRING) Fail(TSB_ERR_TYPE, "expected str, got character NA" + std::string(kNA));
  // Borrowed: translateCharUTF8's buffer lives until the .Call returns;
  // every builder copies it.
  *out = tsb_any_borrowed_str(Rf_translateCharUTF8(s));
}

void ComplexAt(SEXP x, R_xlen_t i, tsb_any* out) {
  if (TYPEOF(x) == CPLXSXP) {
    const Rcomplex c = COMPLEX(x)[i];
    if (R_IsNA(c.r)) Fail(TSB_ERR_TYPE, "expected complex, got complex NA" + std::string(kNA));
    CheckStatus(tsb_complex_new(c.r, c.i, out));
    return;
  }
  CheckStatus(tsb_complex_new(FloatAt(x, i), 0.0, out));
}

void RequireScalar(SEXP x, int32_t expected) {
  if (!Rf_isVectorAtomic(x) || Rf_xlength(x) != 1) Mismatch(expected, x);
}

// Items of an R list (or atomic vector) converted with `element`.
void Items(SEXP x, int32_t element, OwnedVec& items) {
  const R_xlen_t n = Rf_xlength(x);
  items.resize(static_cast<size_t>(n));
  for (R_xlen_t i = 0; i < n; ++i) {
    try {
      if (TYPEOF(x) == VECSXP) {
        FromR(VECTOR_ELT(x, i), element, &items[i]);
      } else {
        // An element of an atomic vector: converted in place, no R object.
        switch (TYPEOF(x)) {
          case LGLSXP:
            if (LOGICAL(x)[i] == NA_LOGICAL && element != TSB_TYPE_ANY) {
              Fail(TSB_ERR_TYPE, "expected " + Annotation(element) + ", got logical NA" + kNA);
            }
            items[i] = tsb_any_bool(BoolAt(x, i));
            break;
          case INTSXP:
            if (element == TSB_TYPE_FLOAT) items[i] = tsb_any_float(FloatAt(x, i));
            else items[i] = tsb_any_int(IntAt(x, i, element));
            break;
          case REALSXP:
            if (element == TSB_TYPE_INT || IsInteger64(x)) items[i] = tsb_any_int(IntAt(x, i, element));
            else items[i] = tsb_any_float(FloatAt(x, i));
            break;
          case STRSXP: StrAt(x, i, &items[i]); break;
          case CPLXSXP: ComplexAt(x, i, &items[i]); break;
          default: Mismatch(element, x);
        }
      }
    } catch (HostError& e) {
      Rethrow(e, "[" + std::to_string(i) + "]");
    }
  }
}

int32_t CommonType(OwnedVec& items) {
  if (items.size() == 0) return TSB_TYPE_ANY;
  const int32_t first = items[0].type_index;
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].type_index != first) return TSB_TYPE_ANY;
  }
  return first;
}

// List[int], List[float], List[bool] from an atomic vector in one copy.
bool BulkList(SEXP x, int32_t element, tsb_any* out) {
  if (!Rf_isVectorAtomic(x)) return false;
  const size_t n = Len(x);
  if (element == TSB_TYPE_INT && (TYPEOF(x) == INTSXP || TYPEOF(x) == REALSXP)) {
    std::vector<int64_t> buf(n);
    for (size_t i = 0; i < n; ++i) {
      try {
        buf[i] = IntAt(x, static_cast<R_xlen_t>(i), element);
      } catch (HostError& e) {
        Rethrow(e, "[" + std::to_string(i) + "]");
      }
    }
    CheckStatus(tsb_list_new_int(buf.data(), n, out));
    return true;
  }
  if (element == TSB_TYPE_FLOAT && TYPEOF(x) == REALSXP && !IsInteger64(x)) {
    const double* src = REAL(x);
    for (size_t i = 0; i < n; ++i) {
      if (R_IsNA(src[i])) {
        throw HostError{TSB_ERR_TYPE, "[" + std::to_string(i) + "]",
                        "expected float, got double NA" + std::string(kNA), ""};
      }
    }
    CheckStatus(tsb_list_new_float(src, n, out));  // straight from R's memory
    return true;
  }
  if (element == TSB_TYPE_FLOAT && (TYPEOF(x) == INTSXP || IsInteger64(x))) {
    std::vector<double> buf(n);
    for (size_t i = 0; i < n; ++i) {
      try {
        buf[i] = FloatAt(x, static_cast<R_xlen_t>(i));
      } catch (HostError& e) {
        Rethrow(e, "[" + std::to_string(i) + "]");
      }
    }
    CheckStatus(tsb_list_new_float(buf.data(), n, out));
    return true;
  }
  if (element == TSB_TYPE_BOOL && TYPEOF(x) == LGLSXP) {
    std::unique_ptr<bool[]> buf(new bool[n > 0 ? n : 1]);
    for (size_t i = 0; i < n; ++i) {
      try {
        buf[i] = BoolAt(x, static_cast<R_xlen_t>(i));
      } catch (HostError& e) {
        Rethrow(e, "[" + std::to_string(i) + "]");
      }
    }
    CheckStatus(tsb_list_new_bool(buf.get(), n, out));
    return true;
  }
  return false;
}

void ListFromR(SEXP x, int32_t element, tsb_any* out) {
  if (element != TSB_TYPE_ANY && BulkList(x, element, out)) return;
  if (element == TSB_TYPE_ANY && Rf_isVectorAtomic(x)) {  // untyped: by the R type
    int32_t natural = TSB_TYPE_ANY;
    switch (TYPEOF(x)) {
      case LGLSXP: natural = TSB_TYPE_BOOL; break;
      case INTSXP: natural = TSB_TYPE_INT; break;
      case REALSXP: natural = IsInteger64(x) ? TSB_TYPE_INT : TSB_TYPE_FLOAT; break;
      case STRSXP: natural = TSB_TYPE_STR; break;
      case CPLXSXP: natural = TSB_TYPE_COMPLEX; break;
      default: Fail(TSB_ERR_TYPE, "cannot convert " + Describe(x) + " to a TorchScript value");
    }
    if (BulkList(x, natural, out)) return;
    element = natural;
  }
  OwnedVec items;
  Items(x, element, items);
  if (element == TSB_TYPE_ANY) element = CommonType(items);
  CheckStatus(tsb_list_new(element, items.data(), items.size(), out));
}

std::string NameAt(SEXP names, R_xlen_t i);

// A list (or atomic vector) as the tuple type `type` (nullptr: by items).
void TupleFromR(SEXP x, const TypeEntry* type, tsb_any* out) {
  const size_t n = Len(x);
  OwnedVec items(n);
  if (type != nullptr) {
    if (type->contained.size() != n) {
      Fail(TSB_ERR_TYPE, "expected " + type->annotation + " (" + std::to_string(type->contained.size()) +
                             " items), got " + Describe(x));
    }
    SEXP names = Rf_getAttrib(x, R_NamesSymbol);
    if (type->kind == TSB_KIND_TUPLE && names != R_NilValue) {
      // Positions decide; the names would be lost without a word.
      std::string given;
      for (R_xlen_t j = 0; j < Rf_xlength(names); ++j) {
        const std::string name = NameAt(names, j);
        if (!name.empty()) given += (given.empty() ? "" : ", ") + name;
      }
      if (!given.empty()) {
        cpp11::warning("the names of the list (%s) are dropped: %s takes its items by position",
                       given.c_str(), type->annotation.c_str());
      }
    }
    for (size_t i = 0; i < n; ++i) {
      // A NamedTuple takes its fields by name when the list is named.
      R_xlen_t at = static_cast<R_xlen_t>(i);
      if (type->kind == TSB_KIND_NAMEDTUPLE && names != R_NilValue) {
        at = -1;
        for (R_xlen_t j = 0; j < static_cast<R_xlen_t>(n); ++j) {
          if (type->fields[i] == Rf_translateCharUTF8(STRING_ELT(names, j))) at = j;
        }
        if (at < 0) {
          Fail(TSB_ERR_TYPE, "expected " + type->annotation + ", got a list without field '" +
                                 type->fields[i] + "'");
        }
      }
      try {
        SEXP item = TYPEOF(x) == VECSXP ? VECTOR_ELT(x, at) : R_NilValue;
        if (TYPEOF(x) != VECSXP) Fail(TSB_ERR_TYPE, "expected a list, got " + Describe(x));
        FromR(item, type->contained[i], &items[i]);
      } catch (HostError& e) {
        Rethrow(e, type->kind == TSB_KIND_NAMEDTUPLE ? "field '" + type->fields[i] + "'"
                                                     : "[" + std::to_string(i) + "]");
      }
    }
  } else {
    Items(x, TSB_TYPE_ANY, items);
  }
  tsb::Value plain;
  CheckStatus(tsb_tuple_new(items.data(), n, plain.out()));
  if (type == nullptr) {
    *out = plain.release();
    return;
  }
  CheckStatus(tsb_any_coerce(&plain.get(), type->index, out));
}

std::string NameAt(SEXP names, R_xlen_t i) {
  if (names == R_NilValue || STRING_ELT(names, i) == NA_STRING) return "";
  return Rf_translateCharUTF8(STRING_ELT(names, i));
}

// A named list as Dict[str, V]; a tsb_dict object as any Dict.
void DictFromR(SEXP x, int32_t key_type, int32_t value_type, tsb_any* out) {
  if (Inherits(x, "tsb_dict")) {
    SEXP keys = VECTOR_ELT(x, 0), values = VECTOR_ELT(x, 1);
    const size_t n = Len(values);
    if (Len(keys) != n) Fail(TSB_ERR_INVALID_ARGUMENT, "a tsb_dict with different numbers of keys and values");
    OwnedVec k(n), v(n);
    for (size_t i = 0; i < n; ++i) {
      try {
        FromR(TYPEOF(keys) == VECSXP ? VECTOR_ELT(keys, i) : R_NilValue, key_type, &k[i]);
      } catch (HostError& e) {
        Rethrow(e, "[" + std::to_string(i) + "] (a key)");
      }
      try {
        FromR(VECTOR_ELT(values, i), value_type, &v[i]);
      } catch (HostError& e) {
        Rethrow(e, "[" + std::to_string(i) + "] (a value)");
      }
    }
    if (key_type == TSB_TYPE_ANY) key_type = CommonType(k);
    if (value_type == TSB_TYPE_ANY) value_type = CommonType(v);
    CheckStatus(tsb_dict_new(key_type, value_type, k.data(), v.data(), n, out));
    return;
  }
  if (TYPEOF(x) != VECSXP) Fail(TSB_ERR_TYPE, "expected a Dict (a named list), got " + Describe(x));
  const size_t n = Len(x);
  SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  if (n > 0 && names == R_NilValue) {
    Fail(TSB_ERR_TYPE, "expected a Dict (a named list or a tsb_dict), got a list without names");
  }
  if (key_type != TSB_TYPE_STR && key_type != TSB_TYPE_ANY && n > 0) {
    Fail(TSB_ERR_TYPE, "expected a Dict with " + Annotation(key_type) +
                           " keys: a named list has str keys; use tsb_dict(keys, values)");
  }
  OwnedVec k(n), v(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string name = NameAt(names, static_cast<R_xlen_t>(i));
    if (name.empty()) {
      Fail(TSB_ERR_TYPE, "expected a Dict (a named list), got a list whose item " +
                             std::to_string(i) + " has no name");
    }
    CheckStatus(tsb_str_new(name.data(), name.size(), &k[i]));
    try {
      FromR(VECTOR_ELT(x, i), value_type, &v[i]);
    } catch (HostError& e) {
      Rethrow(e, "key \"" + name + "\"");
    }
  }
  if (value_type == TSB_TYPE_ANY) value_type = CommonType(v);
  CheckStatus(tsb_dict_new(TSB_TYPE_STR, value_type, k.data(), v.data(), n, out));
}

bool HasNames(SEXP x) {
  SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  if (names == R_NilValue) return false;
  for (R_xlen_t i = 0; i < Rf_xlength(names); ++i) {
    if (STRING_ELT(names, i) == NA_STRING || CHAR(STRING_ELT(names, i))[0] == '\0') return false;
  }
  return true;
}

// Our own objects: tensors, script objects, Enums, tagged tuples/dicts.
bool FromOwnClass(SEXP x, tsb_any* out) {
  if (!OBJECT(x)) return false;
  if (Inherits(x, "tsb_tensor")) {
    *out = HandleOf(x, "tensor");
    tsb_any_retain(out);
    return true;
  }
  if (Inherits(x, "tsb_object")) {
    SEXP xptr = TYPEOF(x) == ENVSXP ? Rf_findVarInFrame(x, Rf_install(".handle")) : R_NilValue;
    *out = HandleOf(xptr, "object");
    tsb_any_retain(out);
    return true;
  }
  const int32_t tagged = TaggedType(x);
  if (Inherits(x, "tsb_enum")) {
    SEXP name = TYPEOF(x) == VECSXP && Rf_xlength(x) >= 1 ? VECTOR_ELT(x, 0) : R_NilValue;
    if (tagged == TSB_TYPE_INVALID || TYPEOF(name) != STRSXP) {
      Fail(TSB_ERR_INVALID_ARGUMENT, "a tsb_enum without its type: " + Describe(x));
    }
    tsb_any member;
    StrAt(name, 0, &member);
    CheckStatus(tsb_any_coerce(&member, tagged, out));
    return true;
  }
  if (Inherits(x, "tsb_namedtuple") || Inherits(x, "tsb_tuple")) {
    if (tagged != TSB_TYPE_INVALID) {
      const TypeEntry& type = Type(tagged);
      if (type.kind == TSB_KIND_TUPLE || type.kind == TSB_KIND_NAMEDTUPLE) {
        TupleFromR(x, &type, out);
        return true;
      }
    }
    TupleFromR(x, nullptr, out);
    return true;
  }
  if (Inherits(x, "tsb_dict")) {
    if (tagged != TSB_TYPE_INVALID && Type(tagged).kind == TSB_KIND_DICT) {
      const TypeEntry& type = Type(tagged);
      DictFromR(x, type.contained[0], type.contained[1], out);
    } else {
      DictFromR(x, TSB_TYPE_ANY, TSB_TYPE_ANY, out);
    }
    return true;
  }
  return TorchEnumFromR(x, TSB_TYPE_ANY, out);
}

// By the R type alone.
void Untyped(SEXP x, tsb_any* out) {
  if (x == R_NilValue) {
    *out = tsb_any_none();
    return;
  }
  if (FromOwnClass(x, out)) return;
  if (IsScalarNA(x)) {
    *out = tsb_any_none();
    return;
  }
  if (IsArrayLike(x)) return TensorFromArray(x, -1, out);  // has a dim attribute
  switch (TYPEOF(x)) {
    case LGLSXP:
    case INTSXP:
    case REALSXP:
    case STRSXP:
    case CPLXSXP:
      if (Rf_xlength(x) != 1) return ListFromR(x, TSB_TYPE_ANY, out);
      switch (TYPEOF(x)) {
        case LGLSXP: *out = tsb_any_bool(BoolAt(x, 0)); return;
        case INTSXP: *out = tsb_any_int(IntAt(x, 0, TSB_TYPE_INT)); return;
        case REALSXP:
          *out = IsInteger64(x) ? tsb_any_int(IntAt(x, 0, TSB_TYPE_INT)) : tsb_any_float(REAL(x)[0]);
          return;
        case STRSXP: StrAt(x, 0, out); return;
        default: ComplexAt(x, 0, out); return;
      }
    case VECSXP:
      if (HasNames(x)) return DictFromR(x, TSB_TYPE_STR, TSB_TYPE_ANY, out);
      return ListFromR(x, TSB_TYPE_ANY, out);
    default:
      Fail(TSB_ERR_TYPE, "cannot convert " + Describe(x) + " to a TorchScript value");
  }
}

void UnionFromR(SEXP x, const TypeEntry& type, tsb_any* out) {
  // The first member the R value converts to, in the Union's order.
  for (int32_t member : type.contained) {
    tsb::Value candidate;
    try {
      FromR(x, member, candidate.out());
    } catch (const HostError&) {
      continue;
    }
    tsb_status* s = tsb_any_coerce(&candidate.get(), type.index, out);
    if (s == nullptr) return;
    tsb_status_free(s);
  }
  Mismatch(type.index, x);
}

}  // namespace

void FromR(SEXP x, int32_t expected, tsb_any* out) {
  NestingGuard nesting;
  switch (expected) {
    case TSB_TYPE_INVALID:
    case TSB_TYPE_ANY:
    case TSB_TYPE_NUMBER:
      return Untyped(x, out);
    case TSB_TYPE_NONE:
      if (x == R_NilValue || IsScalarNA(x)) {
        *out = tsb_any_none();
        return;
      }
      Mismatch(expected, x);
    case TSB_TYPE_BOOL:
      RequireScalar(x, expected);
      *out = tsb_any_bool(BoolAt(x, 0));
      return;
    case TSB_TYPE_INT:
      // A scripted method types dtype, layout and memory format parameters
      // as int: their codes go in, as PyTorch passes them.
      if (OBJECT(x) && !IsInteger64(x) && TorchEnumFromR(x, TSB_TYPE_ANY, out)) {
        out->type_index = TSB_TYPE_INT;
        return;
      }
      RequireScalar(x, expected);
      *out = tsb_any_int(IntAt(x, 0, expected));
      return;
    case TSB_TYPE_FLOAT:
      RequireScalar(x, expected);
      *out = tsb_any_float(FloatAt(x, 0));
      return;
    case TSB_TYPE_COMPLEX:
      RequireScalar(x, expected);
      return ComplexAt(x, 0, out);
    case TSB_TYPE_STR:
      RequireScalar(x, expected);
      return StrAt(x, 0, out);
    case TSB_TYPE_TENSOR:
      if (Inherits(x, "tsb_tensor")) return Untyped(x, out);
      if (Rf_isVectorAtomic(x) && !OBJECT(x)) return TensorFromArray(x, -1, out);
      if (IsInteger64(x)) return TensorFromArray(x, -1, out);
      Mismatch(expected, x);
    case TSB_TYPE_DEVICE:
    case TSB_TYPE_DTYPE:
    case TSB_TYPE_LAYOUT:
    case TSB_TYPE_MEMORY_FORMAT:
      if (TorchEnumFromR(x, expected, out)) {
        if (out->type_index != expected) Mismatch(expected, x);
        return;
      }
      Mismatch(expected, x);
    default:
      break;
  }
  const TypeEntry& type = Type(expected);
  switch (type.kind) {
    case TSB_KIND_LIST:
      if (IsArrayLike(x)) break;  // a matrix or array is a tensor
      if ((Rf_isVectorAtomic(x) && !Inherits(x, "tsb_dtype")) ||
          (TYPEOF(x) == VECSXP && !OBJECT(x)) || Inherits(x, "tsb_tuple")) {
        if (type.contained[0] == TSB_TYPE_TENSOR && Rf_isVectorAtomic(x)) Mismatch(expected, x);
        return ListFromR(x, type.contained[0], out);
      }
      break;
    case TSB_KIND_DICT:
      if (TYPEOF(x) == VECSXP && (!OBJECT(x) || Inherits(x, "tsb_dict"))) {
        return DictFromR(x, type.contained[0], type.contained[1], out);
      }
      break;
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE:
      if (TYPEOF(x) == VECSXP) return TupleFromR(x, &type, out);
      break;
    case TSB_KIND_OPTIONAL:
      if (x == R_NilValue || IsScalarNA(x)) {
        *out = tsb_any_none();
        return;
      }
      return FromR(x, type.contained[0], out);
    case TSB_KIND_UNION:
      return UnionFromR(x, type, out);
    case TSB_KIND_ENUM:
      if (TYPEOF(x) == STRSXP && Rf_xlength(x) == 1 && !OBJECT(x)) {  // a member name
        tsb_any name;
        StrAt(x, 0, &name);
        CheckStatus(tsb_any_coerce(&name, expected, out));
        return;
      }
      break;  // a tsb_enum, or a member's value: the callee coerces
    default:
      break;  // objects: by the value; the callee coerces
  }
  Untyped(x, out);
}

}  // namespace tsbr
