// The per-type-index cache: type infos and the R class vectors of named
// types, built once from tsb_type_get_info and reused for every value (the
// registry's indices are stable for the process).
#include <map>
#include <string>
#include <utility>

#include "host.h"

namespace tsbr {
namespace {

tsb::kit::TypeCache<TypeEntry> g_types;
std::map<std::pair<int32_t, int64_t>, SEXP> g_torch_enums;  // preserved objects
std::map<std::pair<int32_t, std::string>, int64_t> g_torch_enum_codes;

const char* TorchEnumClass(int32_t type_index) {
  switch (type_index) {
    case TSB_TYPE_DTYPE: return "tsb_dtype";
    case TSB_TYPE_DEVICE: return "tsb_device";
    case TSB_TYPE_LAYOUT: return "tsb_layout";
    case TSB_TYPE_MEMORY_FORMAT: return "tsb_memory_format";
    default: return nullptr;
  }
}

SEXP Preserve(SEXP x) {
  R_PreserveObject(x);
  return x;
}

SEXP ClassVector(const TypeEntry& t) {
  const std::string& name = t.QualifiedName();
  switch (t.kind) {
    case TSB_KIND_TUPLE: return Preserve(cpp11::writable::strings({"tsb_tuple"}));
    case TSB_KIND_NAMEDTUPLE:  // a nameless one (R torch's) is a named tsb_tuple
      if (t.name.empty()) return Preserve(cpp11::writable::strings({"tsb_tuple"}));
      return Preserve(cpp11::writable::strings({name, "tsb_namedtuple"}));
    case TSB_KIND_ENUM: return Preserve(cpp11::writable::strings({name, "tsb_enum"}));
    case TSB_KIND_DICT: return Preserve(cpp11::writable::strings({"tsb_dict"}));
    case TSB_KIND_OBJECT:
    case TSB_KIND_CUSTOM_CLASS:
      return Preserve(cpp11::writable::strings({name, "tsb_object"}));
    default: return R_NilValue;
  }
}

}  // namespace

SEXP Utf8(const char* s, size_t len) {
  return cpp11::safe[Rf_ScalarString](
      cpp11::safe[Rf_mkCharLenCE](s, static_cast<int>(len), CE_UTF8));
}
SEXP Utf8(const std::string& s) { return Utf8(s.data(), s.size()); }

const char* Utf8Chars(SEXP s) {
  if (Rf_getCharCE(s) == CE_BYTES) {
    Fail(TSB_ERR_TYPE, "expected str, got a string in \"bytes\" encoding, which has no UTF-8 text");
  }
  return Rf_translateCharUTF8(s);
}

SEXP StringList(const char* const* items, size_t n) {
  cpp11::writable::strings out(static_cast<R_xlen_t>(n));
  for (size_t i = 0; i < n; ++i) {
    SET_STRING_ELT(out, static_cast<R_xlen_t>(i),
                   cpp11::safe[Rf_mkCharCE](items[i] ? items[i] : "", CE_UTF8));
  }
  return out;
}

void TypeEntry::Complete() {
  r_class = ClassVector(*this);
  r_index = Preserve(cpp11::safe[NewTypeTag](index, annotation));
  if (kind == TSB_KIND_NAMEDTUPLE) {
    cpp11::writable::strings names(static_cast<R_xlen_t>(fields.size()));
    for (size_t i = 0; i < fields.size(); ++i) names[static_cast<R_xlen_t>(i)] = fields[i];
    r_fields = Preserve(names);
  }
}

const TypeEntry& Type(int32_t index) { return g_types.Get(index); }

void Tag(SEXP x, const TypeEntry& type) {
  if (type.r_class != R_NilValue) Rf_setAttrib(x, R_ClassSymbol, type.r_class);
  static SEXP tsb_type = Rf_install("tsb_type");
  Rf_setAttrib(x, tsb_type, type.r_index);
}

int32_t TaggedType(SEXP x) {
  static SEXP tsb_type = Rf_install("tsb_type");
  SEXP t = Rf_getAttrib(x, tsb_type);
  if (TYPEOF(t) == INTSXP && Rf_xlength(t) == 1 && INTEGER_ELT(t, 0) != NA_INTEGER) {
    return INTEGER_ELT(t, 0);
  }
  return TSB_TYPE_INVALID;
}

bool Inherits(SEXP x, const char* cls) { return Rf_isObject(x) && Rf_inherits(x, cls); }

SEXP TorchEnumToR(int32_t type_index, int64_t code) {
  auto found = g_torch_enums.find({type_index, code});
  if (found != g_torch_enums.end()) return found->second;
  char* json = nullptr;
  tsb_any v = tsb_any_inline(type_index, code);
  CheckStatus(tsb_json_write(&v, &json));
  std::string name(json);
  tsb_string_free(json);
  if (name.size() >= 2 && name.front() == '"') name = name.substr(1, name.size() - 2);
  cpp11::writable::strings obj({name});
  obj.attr("class") = TorchEnumClass(type_index);
  SEXP kept = Preserve(obj);
  g_torch_enums[{type_index, code}] = kept;
  g_torch_enum_codes[{type_index, name}] = code;
  return kept;
}

bool TorchEnumFromR(SEXP x, int32_t expected, tsb_any* out) {
  int32_t index = TSB_TYPE_INVALID;
  for (int32_t t : {TSB_TYPE_DTYPE, TSB_TYPE_DEVICE, TSB_TYPE_LAYOUT, TSB_TYPE_MEMORY_FORMAT}) {
    if (Inherits(x, TorchEnumClass(t))) index = t;
  }
  if (index == TSB_TYPE_INVALID && TYPEOF(x) == STRSXP && TorchEnumClass(expected) != nullptr) {
    index = expected;  // "float32" where the type says ScalarType
  }
  if (index == TSB_TYPE_INVALID) return false;
  if (TYPEOF(x) != STRSXP || Rf_xlength(x) != 1 || STRING_ELT(x, 0) == NA_STRING) {
    Fail(TSB_ERR_TYPE, "expected " + Annotation(index) + ", got " + Describe(x));
  }
  std::string name = Utf8Chars(STRING_ELT(x, 0));
  auto found = g_torch_enum_codes.find({index, name});
  if (found != g_torch_enum_codes.end()) {
    *out = tsb_any_inline(index, found->second);
    return true;
  }
  std::string json = "\"" + name + "\"";
  tsb::Value v;
  CheckStatus(tsb_json_read(json.c_str(), index, v.out()));
  g_torch_enum_codes[{index, name}] = v.get().u.i;
  *out = v.release();
  return true;
}

int32_t DtypeCode(const std::string& name) {
  cpp11::writable::strings s({name});
  tsb_any v;
  TorchEnumFromR(s, TSB_TYPE_DTYPE, &v);
  return static_cast<int32_t>(v.u.i);
}

}  // namespace tsbr
