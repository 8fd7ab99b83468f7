// R → boundary, type-directed: a host for the kit's Build
// (tsbridge/host/kit.hpp), which follows the expected type (a schema's
// parameter, a container's element type; Optional and Union it handles
// itself). The type decides what an R value becomes, so c(1, 2) is a
// List[int] where the schema says List[int], a List[float] where it says
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
#include <vector>

#include "host.h"

namespace tsbr {
namespace {

using tsb::kit::IndexSegment;

bool IsScalarNA(SEXP x);
const char* const kNA = " (NA becomes None only where the type is Optional or Any)";

// A scalar NA says where NA is welcome (docs/r.md), whatever else refused it.
[[noreturn]] void Refuse(int32_t expected, SEXP x) {
  const char* hint = Rf_isVectorAtomic(x) && IsScalarNA(x) ? kNA : "";
  Fail(TSB_ERR_TYPE, "expected " + Annotation(expected) + ", got " + Describe(x) + hint);
}

bool IsInteger64(SEXP x) { return TYPEOF(x) == REALSXP && Inherits(x, "integer64"); }
constexpr int64_t kInteger64NA = INT64_MIN;  // bit64's NA

bool IsScalarNA(SEXP x) {
  if (Rf_xlength(x) != 1) return false;
  switch (TYPEOF(x)) {
    case LGLSXP: return LOGICAL_RO(x)[0] == NA_LOGICAL;
    case INTSXP: return INTEGER_RO(x)[0] == NA_INTEGER;
    case REALSXP:
      if (IsInteger64(x)) {
        int64_t i;
        std::memcpy(&i, REAL_RO(x), sizeof i);
        return i == kInteger64NA;
      }
      return R_IsNA(REAL_RO(x)[0]);
    case STRSXP: return STRING_ELT(x, 0) == NA_STRING;
    case CPLXSXP: return R_IsNA(COMPLEX_RO(x)[0].r);
    default: return false;
  }
}

// Element i of an atomic vector as an int64, checking NA and wholeness.
int64_t IntAt(SEXP x, R_xlen_t i, int32_t expected) {
  switch (TYPEOF(x)) {
    case INTSXP: {
      const int v = INTEGER_RO(x)[i];
      if (v == NA_INTEGER) Fail(TSB_ERR_TYPE, "expected int, got integer NA" + std::string(kNA));
      return v;
    }
    case REALSXP: {
      if (IsInteger64(x)) {
        int64_t v;
        std::memcpy(&v, REAL_RO(x) + i, sizeof v);
        if (v == kInteger64NA) Fail(TSB_ERR_TYPE, "expected int, got integer64 NA" + std::string(kNA));
        return v;
      }
      const double d = REAL_RO(x)[i];
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
      Refuse(expected, x);
  }
}

// Element i of a double vector where an int is expected, when it is a
// whole number in [2^63, 2^64): a uint (tsb_any_uint, ABI 1.6), which no
// int64 holds. R has no uint64; bit64's integer64 is signed.
bool UIntAt(SEXP x, R_xlen_t i, tsb_any* out) {
  if (TYPEOF(x) != REALSXP || IsInteger64(x)) return false;
  const double d = REAL_RO(x)[i];
  if (!(d >= 9223372036854775808.0 && d < 18446744073709551616.0 && d == std::trunc(d))) {
    return false;
  }
  *out = tsb_any_uint(static_cast<uint64_t>(d));
  return true;
}

double FloatAt(SEXP x, R_xlen_t i) {
  switch (TYPEOF(x)) {
    case REALSXP:
      if (IsInteger64(x)) return static_cast<double>(IntAt(x, i, TSB_TYPE_FLOAT));
      if (R_IsNA(REAL_RO(x)[i])) Fail(TSB_ERR_TYPE, "expected float, got double NA" + std::string(kNA));
      return REAL_RO(x)[i];
    case INTSXP:
      if (INTEGER_RO(x)[i] == NA_INTEGER) {
        Fail(TSB_ERR_TYPE, "expected float, got integer NA" + std::string(kNA));
      }
      return INTEGER_RO(x)[i];
    default:
      Refuse(TSB_TYPE_FLOAT, x);
  }
}

bool BoolAt(SEXP x, R_xlen_t i) {
  if (TYPEOF(x) != LGLSXP) Refuse(TSB_TYPE_BOOL, x);
  const int v = LOGICAL_RO(x)[i];
  if (v == NA_LOGICAL) Fail(TSB_ERR_TYPE, "expected bool, got logical NA" + std::string(kNA));
  return v != 0;
}

void StrAt(SEXP x, R_xlen_t i, tsb_any* out) {
  if (TYPEOF(x) != STRSXP) Refuse(TSB_TYPE_STR, x);
  SEXP s = STRING_ELT(x, i);
  if (s == NA_STRING) Fail(TSB_ERR_TYPE, "expected str, got character NA" + std::string(kNA));
  // Borrowed: translateCharUTF8's buffer lives until the .Call returns;
  // every builder copies it.
  *out = tsb_any_borrowed_str(Utf8Chars(s));
}

void ComplexAt(SEXP x, R_xlen_t i, tsb_any* out) {
  if (TYPEOF(x) == CPLXSXP) {
    const Rcomplex c = COMPLEX_RO(x)[i];
    if (R_IsNA(c.r)) Fail(TSB_ERR_TYPE, "expected complex, got complex NA" + std::string(kNA));
    CheckStatus(tsb_complex_new(c.r, c.i, out));
    return;
  }
  CheckStatus(tsb_complex_new(FloatAt(x, i), 0.0, out));
}

void RequireScalar(SEXP x, int32_t expected) {
  if (!Rf_isVectorAtomic(x) || Rf_xlength(x) != 1) Refuse(expected, x);
}

// Fills buf[i] = get(i) for an atomic vector's n elements; a failure names "[i]".
template <typename T, typename Get>
void Fill(T* buf, size_t n, Get&& get) {
  for (size_t i = 0; i < n; ++i) {
    buf[i] = At([&] { return IndexSegment(i); }, [&] { return get(static_cast<R_xlen_t>(i)); });
  }
}

// List[int], List[float], List[bool] from an atomic vector in one copy.
bool BulkList(SEXP x, int32_t element, tsb_any* out) {
  if (!Rf_isVectorAtomic(x)) return false;
  const size_t n = Len(x);
  if (element == TSB_TYPE_INT && (TYPEOF(x) == INTSXP || TYPEOF(x) == REALSXP)) {
    tsb_any uint;
    for (size_t i = 0; i < n; ++i) {  // a uint: item by item
      if (UIntAt(x, static_cast<R_xlen_t>(i), &uint)) return false;
    }
    int64_t* buf = tsb::kit::Scratch<int64_t>(n);
    Fill(buf, n, [&](R_xlen_t i) { return IntAt(x, i, element); });
    CheckStatus(tsb_list_new_int(buf, n, out));
    return true;
  }
  if (element == TSB_TYPE_FLOAT && TYPEOF(x) == REALSXP && !IsInteger64(x)) {
    const double* src = REAL_RO(x);
    for (size_t i = 0; i < n; ++i) {
      if (R_IsNA(src[i])) {
        throw HostError{TSB_ERR_TYPE, IndexSegment(i),
                        "expected float, got double NA" + std::string(kNA), ""};
      }
    }
    CheckStatus(tsb_list_new_float(src, n, out));  // straight from R's memory
    return true;
  }
  if (element == TSB_TYPE_FLOAT && (TYPEOF(x) == INTSXP || IsInteger64(x))) {
    double* buf = tsb::kit::Scratch<double>(n);
    Fill(buf, n, [&](R_xlen_t i) { return FloatAt(x, i); });
    CheckStatus(tsb_list_new_float(buf, n, out));
    return true;
  }
  if (element == TSB_TYPE_BOOL && TYPEOF(x) == LGLSXP) {
    bool* buf = tsb::kit::Scratch<bool>(n);
    Fill(buf, n, [&](R_xlen_t i) { return BoolAt(x, i); });
    CheckStatus(tsb_list_new_bool(buf, n, out));
    return true;
  }
  return false;
}

std::string NameAt(SEXP names, R_xlen_t i) {
  if (names == R_NilValue || STRING_ELT(names, i) == NA_STRING) return "";
  return Utf8Chars(STRING_ELT(names, i));
}

bool HasNames(SEXP x) {
  SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  if (names == R_NilValue) return false;
  for (R_xlen_t i = 0; i < Rf_xlength(names); ++i) {
    if (STRING_ELT(names, i) == NA_STRING || CHAR(STRING_ELT(names, i))[0] == '\0') return false;
  }
  return true;
}

// A plain Tuple takes its items by position: names given would be lost
// without a word. The warning is said once the conversion is done
// (FromR): a handler is R code, which never runs inside a conversion.
void WarnDroppedNames(SEXP names, const TypeEntry& type, std::vector<std::string>* warnings) {
  if (names == R_NilValue) return;
  std::string given;
  for (R_xlen_t j = 0; j < Rf_xlength(names); ++j) {
    const std::string name = NameAt(names, j);
    if (!name.empty()) given += (given.empty() ? "" : ", ") + name;
  }
  if (!given.empty()) {
    warnings->push_back("the names of the list (" + given + ") are dropped: " + type.annotation +
                        " takes its items by position");
  }
}

// Where a named list holds a NamedTuple's field (the last item of that name).
R_xlen_t FieldAt(SEXP names, const char* field, const TypeEntry& type) {
  for (R_xlen_t j = Rf_xlength(names) - 1; j >= 0; --j) {
    if (STRING_ELT(names, j) == NA_STRING) continue;
    if (std::strcmp(field, Utf8Chars(STRING_ELT(names, j))) == 0) return j;
  }
  Fail(TSB_ERR_TYPE, "expected " + type.annotation + ", got a list without field '" + field + "'");
}

// How R values become boundary values, for tsb::kit::Build.
class RBuild {
 public:
  using In = SEXP;
  using Entry = TypeEntry;
  using Guard = tsb::kit::NestingGuard;
  using Context = tsb::kit::BuildContext;

  const Entry& Type(int32_t index) { return tsbr::Type(index); }
  bool IsNone(SEXP x) { return x == R_NilValue || IsScalarNA(x); }
  [[noreturn]] void Mismatch(SEXP x, int32_t expected) { Refuse(expected, x); }

  // The fixed leaf types (and Any).
  void Leaf(SEXP x, int32_t expected, Context& context, tsb_any* out) {
    switch (expected) {
      case TSB_TYPE_NONE:
        if (IsNone(x)) {
          *out = tsb_any_none();
          return;
        }
        Refuse(expected, x);
      case TSB_TYPE_BOOL:
        RequireScalar(x, expected);
        *out = tsb_any_bool(BoolAt(x, 0));
        return;
      case TSB_TYPE_INT:
        // A scripted method types dtype, layout and memory format parameters
        // as int: their codes go in, as PyTorch passes them.
        if (Rf_isObject(x) && !IsInteger64(x) && TorchEnumFromR(x, TSB_TYPE_ANY, out)) {
          out->type_index = TSB_TYPE_INT;
          return;
        }
        RequireScalar(x, expected);
        if (!UIntAt(x, 0, out)) *out = tsb_any_int(IntAt(x, 0, expected));
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
        if (Inherits(x, "tsb_tensor")) return Untyped(x, context, out);
        if (Rf_isVectorAtomic(x) && !Rf_isObject(x)) return TensorFromArray(x, -1, out);
        if (IsInteger64(x)) return TensorFromArray(x, -1, out);
        Refuse(expected, x);
      case TSB_TYPE_DEVICE:
      case TSB_TYPE_DTYPE:
      case TSB_TYPE_LAYOUT:
      case TSB_TYPE_MEMORY_FORMAT:
        if (TorchEnumFromR(x, expected, out)) {
          if (out->type_index != expected) Refuse(expected, x);
          return;
        }
        Refuse(expected, x);
      default:  // Any, Number, and the rest: by the R type
        return Untyped(x, context, out);
    }
  }

  // By the R type alone.
  void Untyped(SEXP x, Context& context, tsb_any* out) {
    if (x == R_NilValue) {
      *out = tsb_any_none();
      return;
    }
    if (FromOwnClass(x, context, out)) return;
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
        if (Rf_xlength(x) != 1) return ListFromR(x, TSB_TYPE_ANY, context, out);
        return AtomicAt(x, 0, TSB_TYPE_ANY, out);
      case VECSXP:
        if (HasNames(x)) return DictFromR(x, TSB_TYPE_STR, TSB_TYPE_ANY, context, out);
        return ListFromR(x, TSB_TYPE_ANY, context, out);
      default:
        Fail(TSB_ERR_TYPE, "cannot convert " + Describe(x) + " to a TorchScript value");
    }
  }

  bool List(SEXP x, const Entry& type, Context& context, tsb_any* out) {
    if (IsArrayLike(x)) return false;  // a matrix or array is a tensor
    const bool atomic = Rf_isVectorAtomic(x);
    if (!(atomic && !Inherits(x, "tsb_dtype")) && !(TYPEOF(x) == VECSXP && !Rf_isObject(x)) &&
        !Inherits(x, "tsb_tuple")) {
      return false;
    }
    if (type.contained[0] == TSB_TYPE_TENSOR && atomic) Refuse(type.index, x);
    ListFromR(x, type.contained[0], context, out);
    return true;
  }

  bool Tuple(SEXP x, const Entry& type, Context& context, tsb_any* out) {
    if (TYPEOF(x) != VECSXP) return false;
    TupleFromR(x, &type, context, out);
    return true;
  }

  bool Dict(SEXP x, const Entry& type, Context& context, tsb_any* out) {
    if (TYPEOF(x) != VECSXP || (Rf_isObject(x) && !Inherits(x, "tsb_dict"))) return false;
    DictFromR(x, type.contained[0], type.contained[1], context, out);
    return true;
  }

  // A member's name; a tsb_enum, or a member's value, goes by the value
  // (the callee coerces).
  bool Enum(SEXP x, const Entry& type, tsb_any* out) {
    if (TYPEOF(x) != STRSXP || Rf_xlength(x) != 1 || Rf_isObject(x)) return false;
    tsb_any name;
    StrAt(x, 0, &name);
    CheckStatus(tsb_any_coerce(&name, type.index, out));
    return true;
  }

 private:
  // Element i of an atomic vector, converted in place (no R object).
  void AtomicAt(SEXP x, R_xlen_t i, int32_t element, tsb_any* out) {
    switch (TYPEOF(x)) {
      case LGLSXP:
        if (LOGICAL_RO(x)[i] == NA_LOGICAL && element != TSB_TYPE_ANY) {
          Fail(TSB_ERR_TYPE, "expected " + Annotation(element) + ", got logical NA" + kNA);
        }
        *out = tsb_any_bool(BoolAt(x, i));
        return;
      case INTSXP:
        if (element == TSB_TYPE_FLOAT) *out = tsb_any_float(FloatAt(x, i));
        else *out = tsb_any_int(IntAt(x, i, element));
        return;
      case REALSXP:
        if (element == TSB_TYPE_INT && UIntAt(x, i, out)) return;
        if (element == TSB_TYPE_INT || IsInteger64(x)) *out = tsb_any_int(IntAt(x, i, element));
        else *out = tsb_any_float(FloatAt(x, i));
        return;
      case STRSXP: return StrAt(x, i, out);
      case CPLXSXP: return ComplexAt(x, i, out);
      default: Refuse(element, x);
    }
  }

  // Item i of an R list (by the kit) or of an atomic vector (in place).
  void ItemAt(SEXP x, R_xlen_t i, int32_t element, Context& context, tsb_any* out) {
    if (TYPEOF(x) == VECSXP) {
      return tsb::kit::Build(*this, context, VECTOR_ELT(x, i), element, out);
    }
    AtomicAt(x, i, element, out);
  }

  void ListFromR(SEXP x, int32_t element, Context& context, tsb_any* out) {
    if (element != TSB_TYPE_ANY && BulkList(x, element, out)) return;
    if (element == TSB_TYPE_ANY && Rf_isVectorAtomic(x)) {  // untyped: by the R type
      switch (TYPEOF(x)) {
        case LGLSXP: element = TSB_TYPE_BOOL; break;
        case INTSXP: element = TSB_TYPE_INT; break;
        case REALSXP: element = IsInteger64(x) ? TSB_TYPE_INT : TSB_TYPE_FLOAT; break;
        case STRSXP: element = TSB_TYPE_STR; break;
        case CPLXSXP: element = TSB_TYPE_COMPLEX; break;
        default: Fail(TSB_ERR_TYPE, "cannot convert " + Describe(x) + " to a TorchScript value");
      }
      if (BulkList(x, element, out)) return;
    }
    tsb::kit::ListBuilder b(context, element, Len(x));
    for (size_t i = 0; i < b.size(); ++i) {
      b.Item(i, [&](tsb_any* item) { ItemAt(x, static_cast<R_xlen_t>(i), element, context, item); });
    }
    b.Finish(out);
  }

  // A list as the tuple type `type` (nullptr: by its items). A NamedTuple
  // takes its fields by name when the list is named; otherwise a list that
  // names every item is a nameless NamedTuple, as R torch makes of a named
  // jit_tuple (under Any, and under a plain Tuple, which it stands for).
  void TupleFromR(SEXP x, const Entry* type, Context& context, tsb_any* out) {
    tsb::kit::TupleBuilder<Entry> b(context, type, Len(x));
    SEXP names = Rf_getAttrib(x, R_NamesSymbol);
    const bool to_record = b.typed() && type->kind == TSB_KIND_NAMEDTUPLE;
    const bool named = !to_record && b.size() > 0 && HasNames(x);
    if (b.typed() && type->kind == TSB_KIND_TUPLE && !named) {
      WarnDroppedNames(names, *type, &warnings_);
    }
    for (size_t i = 0; i < b.size(); ++i) {
      R_xlen_t at = static_cast<R_xlen_t>(i);
      if (b.field(i) != nullptr && names != R_NilValue) at = FieldAt(names, b.field(i), *type);
      b.Item(i, [&](tsb_any* item) { ItemAt(x, at, b.element(i), context, item); });
    }
    if (!named) return b.Finish(out);
    std::vector<std::string> held(b.size());
    std::vector<const char*> fields(b.size());
    for (size_t i = 0; i < b.size(); ++i) {
      held[i] = NameAt(names, static_cast<R_xlen_t>(i));
      fields[i] = held[i].c_str();
    }
    b.FinishNamed(nullptr, fields, out);
  }

  // A named list as Dict[str, V]; a tsb_dict object as any Dict.
  void DictFromR(SEXP x, int32_t key_type, int32_t value_type, Context& context,
                 tsb_any* out) {
    if (Inherits(x, "tsb_dict")) {
      if (TYPEOF(x) != VECSXP || Rf_xlength(x) != 2) {  // as tsb_dict() makes it
        Fail(TSB_ERR_INVALID_ARGUMENT,
             "expected a tsb_dict (a list of keys and values), got " + Describe(x));
      }
      SEXP keys = VECTOR_ELT(x, 0), values = VECTOR_ELT(x, 1);
      const size_t n = Len(values);
      if (Len(keys) != n) {
        Fail(TSB_ERR_INVALID_ARGUMENT, "a tsb_dict with different numbers of keys and values");
      }
      tsb::kit::DictBuilder b(context, key_type, value_type, n);
      for (size_t i = 0; i < n; ++i) {
        b.Entry(
            i, [&](tsb_any* k) { ItemAt(keys, static_cast<R_xlen_t>(i), key_type, context, k); },
            [&](tsb_any* v) { ItemAt(values, static_cast<R_xlen_t>(i), value_type, context, v); });
      }
      return b.Finish(out);
    }
    if (TYPEOF(x) != VECSXP) {
      Fail(TSB_ERR_TYPE, "expected a Dict (a named list), got " + Describe(x));
    }
    const size_t n = Len(x);
    SEXP names = Rf_getAttrib(x, R_NamesSymbol);
    if (n > 0 && names == R_NilValue) {
      Fail(TSB_ERR_TYPE, "expected a Dict (a named list or a tsb_dict), got a list without names");
    }
    if (key_type != TSB_TYPE_STR && key_type != TSB_TYPE_ANY && n > 0) {
      Fail(TSB_ERR_TYPE, "expected a Dict with " + Annotation(key_type) +
                             " keys: a named list has str keys; use tsb_dict(keys, values)");
    }
    tsb::kit::DictBuilder b(context, TSB_TYPE_STR, value_type, n);
    for (size_t i = 0; i < n; ++i) {
      const std::string name = NameAt(names, static_cast<R_xlen_t>(i));
      if (name.empty()) {
        Fail(TSB_ERR_TYPE, "expected a Dict (a named list), got a list whose item " +
                               std::to_string(i) + " has no name");
      }
      b.Entry(
          i, [&](tsb_any* k) { CheckStatus(tsb_str_new(name.data(), name.size(), k)); },
          [&](tsb_any* v) { ItemAt(x, static_cast<R_xlen_t>(i), value_type, context, v); });
    }
    b.Finish(out);
  }

  // Our own objects: tensors, script objects, Enums, tagged tuples/dicts.
  bool FromOwnClass(SEXP x, Context& context, tsb_any* out) {
    if (!Rf_isObject(x)) return false;
    if (Inherits(x, "tsb_tensor")) {
      *out = HandleOf(x, "tensor");
      tsb_any_retain(out);
      return true;
    }
    if (Inherits(x, "tsb_object")) {
      SEXP xptr = HandleBinding(x);
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
    const bool tuple = Inherits(x, "tsb_namedtuple") || Inherits(x, "tsb_tuple");
    if (!tuple && !Inherits(x, "tsb_dict")) return TorchEnumFromR(x, TSB_TYPE_ANY, out);
    const Entry* type = tagged != TSB_TYPE_INVALID ? &Type(tagged) : nullptr;
    if (tuple) {
      const bool typed =
          type && (type->kind == TSB_KIND_TUPLE || type->kind == TSB_KIND_NAMEDTUPLE);
      TupleFromR(x, typed ? type : nullptr, context, out);
    } else if (type && type->kind == TSB_KIND_DICT) {
      DictFromR(x, type->contained[0], type->contained[1], context, out);
    } else {
      DictFromR(x, TSB_TYPE_ANY, TSB_TYPE_ANY, context, out);
    }
    return true;
  }

 public:
  // Warnings for after the conversion (WarnDroppedNames).
  std::vector<std::string> warnings_;
};

}  // namespace

void FromR(SEXP x, int32_t expected, tsb_any* out) {
  RBuild host;
  tsb::kit::Build(host, x, expected, out);
  for (const std::string& w : host.warnings_) cpp11::warning("%s", w.c_str());
}

}  // namespace tsbr
