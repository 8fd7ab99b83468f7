/* tsbridge host ABI (its version: TSB_VERSION_MAJOR/MINOR below): TorchScript
 * values for any host language, in C99.
 *
 * A host sees every TorchScript value as a 16-byte `tsb_any`. Scalars travel
 * inline; strings, complex numbers, tensors and containers travel as
 * refcounted handles. Every type is known by a `type_index`;
 * `tsb_type_get_info` describes it (kind, annotation, contained types), so a
 * host can walk any value without knowing a C++ type.
 *
 * Compatibility (docs/abi.md is the written rule): within one major version
 * a minor release only adds functions, enum values, constants and trailing
 * fields of structs that start with `struct_size`; nothing is renamed,
 * removed or reordered. A host compares TSB_VERSION_MAJOR with the major of
 * tsb_version() at run time and refuses another major.
 *
 * Names: every exported function is tsb_<noun>_<verb>[_<object>]
 * (tsb_list_get, tsb_module_get_method, tsb_list_copy_int); docs/abi.md
 * lists the nouns and verbs. Numbers are `int` (int64_t) and `float`
 * (double), as TorchScript calls them. Counts and lengths are size_t,
 * returned through an out-parameter of a function returning a status.
 * Buffers are passed as (source, n, destination).
 *
 * Conventions, for every function below unless it says otherwise:
 *  - A function returning `tsb_status*` returns NULL on success. A non-NULL
 *    status is owned by the caller and released with `tsb_status_free`.
 *    On failure, out-parameters are left untouched and nothing is leaked.
 *  - Lifetimes use four phrases only:
 *      "borrowed": the callee takes no reference (every `const tsb_any*`
 *        parameter);
 *      "new reference": a `tsb_any` written to an out-parameter; the caller
 *        releases it with `tsb_any_release` (a no-op for inline scalars);
 *      "caller frees": memory the caller releases with the function named;
 *      "process lifetime": valid until the process ends (type infos,
 *        plugin infos, operator schemas, version strings).
 *  - No function lets a C++ exception escape; none aborts on bad input.
 *  - Status objects are per call: threads never share error state.
 *  - Threads (from 1.7, written down; docs/hosts.md): a tsb_any may move to
 *    another thread, and references are counted atomically, so copies of
 *    one handle may be retained and released on many threads at once.
 *    Reading one value (walking, getters, passing it as a borrowed
 *    argument) from many threads at once is safe; a call that changes a
 *    value in place (a TorchScript method appending to a List argument, an
 *    in-place tensor operator) must not run while another thread reads or
 *    changes that value. Modules: see tsb_module below.
 *  - Nesting: no value nests more than TSB_MAX_DEPTH containers deep.
 *    Builders, tsb_any_coerce, the readers and the walkers all refuse a
 *    deeper one with TSB_ERR_INVALID_ARGUMENT (from 1.7; before, builders
 *    made one that walks then refused).
 *  - Paths (docs/abi.md): an error's path (tsb_status_get_path) names the
 *    place in the value: "forward(): argument 'p' → [3] → key \"b\"". One
 *    deeper than 16 segments keeps its first 8 and last 4, with
 *    " → … (N segments) → " between (from 1.7).
 */
#ifndef TSBRIDGE_TSBRIDGE_H_
#define TSBRIDGE_TSBRIDGE_H_

/* Version first, as DLPack does: hosts compare these with tsb_version(). */
#define TSB_VERSION_MAJOR 1
#define TSB_VERSION_MINOR 9
#define TSB_VERSION_PATCH 0
#define TSB_VERSION \
  (TSB_VERSION_MAJOR * 10000 + TSB_VERSION_MINOR * 100 + TSB_VERSION_PATCH)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TSB_EXPORTS is defined while building libtsbridge itself; a host leaves
 * it undefined and gets the imports. */
#if defined(_WIN32)
#if defined(TSB_EXPORTS)
#define TSB_API __declspec(dllexport)
#else
#define TSB_API __declspec(dllimport)
#endif
#else
#define TSB_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

/* TSB_VERSION of the loaded library (may differ from the header's): a host
 * checks tsb_version() / 10000 == TSB_VERSION_MAJOR before anything else.
 * The one function outside the naming scheme, fixed for every major. */
TSB_API int32_t tsb_version(void);
/* "MAJOR.MINOR.PATCH" of the loaded library; process lifetime. */
TSB_API const char* tsb_version_get_string(void);

/* ----------------------------------------------------------------- status */

typedef enum tsb_code {
  TSB_OK = 0,
  TSB_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, malformed input */
  TSB_ERR_TYPE = 2,             /* a value does not match the expected type */
  TSB_ERR_OUT_OF_RANGE = 3,     /* index or buffer size out of range */
  TSB_ERR_NOT_FOUND = 4,        /* missing dict key, unknown type index */
  TSB_ERR_UNSUPPORTED = 5,      /* no codec for a kind (plugin not loaded), an
                                   incompatible plugin */
  TSB_ERR_TORCH = 6,            /* LibTorch raised c10::Error */
  TSB_ERR_NO_MEMORY = 7,
  TSB_ERR_ALREADY_EXISTS = 8,
  TSB_ERR_INTERNAL = 9
} tsb_code;

typedef struct tsb_status tsb_status;

/* Accessors take a status returned by this library; the strings live as long
 * as the status. NULL reads as success (code TSB_OK, empty strings). */
TSB_API tsb_code tsb_status_get_code(const tsb_status* s);
/* Full message: "PATH: DETAIL", or DETAIL when the error has no path. */
TSB_API const char* tsb_status_get_message(const tsb_status* s);
/* Path into the value, e.g. "argument 'p' → key \"b\" → [3]"; "" when none.
 * One syntax in every host (docs/abi.md). */
TSB_API const char* tsb_status_get_path(const tsb_status* s);
/* The message without its path, e.g. "expected int, got str \"x\"". */
TSB_API const char* tsb_status_get_detail(const tsb_status* s);
/* The C++ backtrace of a c10::Error, kept out of the message; "" otherwise. */
TSB_API const char* tsb_status_get_backtrace(const tsb_status* s);
TSB_API void tsb_status_free(tsb_status* s);
/* A new status, for callbacks that report to tsbridge (plugin functions,
 * host callbacks); caller frees with tsb_status_free unless it returns it.
 * `message` is copied; NULL reads as "". Code TSB_OK becomes
 * TSB_ERR_INTERNAL: a status always means failure. */
TSB_API tsb_status* tsb_status_new(tsb_code code, const char* message);
/* The same with a path into the value ("argument 'x' → [1]"), kept apart
 * from the detail as tsb_status_get_path and tsb_status_get_detail report. */
TSB_API tsb_status* tsb_status_new_at(tsb_code code, const char* path,
                                      const char* detail);

/* ------------------------------------------------------------ kinds, types */

typedef enum tsb_kind {
  TSB_KIND_INVALID = 0,
  TSB_KIND_NONE = 1,
  TSB_KIND_BOOL = 2,
  TSB_KIND_INT = 3,
  TSB_KIND_FLOAT = 4,
  TSB_KIND_COMPLEX = 5,
  TSB_KIND_STR = 6,
  TSB_KIND_TENSOR = 7,
  TSB_KIND_DEVICE = 8,
  TSB_KIND_DTYPE = 9,         /* c10::ScalarType */
  TSB_KIND_LAYOUT = 10,
  TSB_KIND_MEMORY_FORMAT = 11,
  TSB_KIND_NUMBER = 12,       /* TorchScript `Scalar`: int, float or complex */
  TSB_KIND_ANY = 13,
  TSB_KIND_UINT = 14,         /* an `int` above INT64_MAX (from 1.6; LibTorch 2.9's
                                 IValue UInt): u.u, never a negative u.i */
  TSB_KIND_LIST = 16,
  TSB_KIND_DICT = 17,
  TSB_KIND_TUPLE = 18,        /* from plugins/tuple */
  TSB_KIND_NAMEDTUPLE = 19,   /* from plugins/tuple */
  TSB_KIND_OPTIONAL = 20,     /* from plugins/optional */
  TSB_KIND_UNION = 21,        /* from plugins/optional */
  TSB_KIND_ENUM = 22,
  TSB_KIND_OBJECT = 23,       /* TorchScript class instance */
  TSB_KIND_CUSTOM_CLASS = 24  /* torchbind class instance */
} tsb_kind;

/* Fixed indices of the leaf types; every other type (List[int],
 * Dict[str, Tensor], ...) is interned at run time to an index >=
 * TSB_TYPE_FIRST_DYNAMIC that stays stable for the life of the process. */
#define TSB_TYPE_INVALID ((int32_t)TSB_KIND_INVALID)
#define TSB_TYPE_NONE ((int32_t)TSB_KIND_NONE)
#define TSB_TYPE_BOOL ((int32_t)TSB_KIND_BOOL)
#define TSB_TYPE_INT ((int32_t)TSB_KIND_INT)
#define TSB_TYPE_FLOAT ((int32_t)TSB_KIND_FLOAT)
#define TSB_TYPE_COMPLEX ((int32_t)TSB_KIND_COMPLEX)
#define TSB_TYPE_STR ((int32_t)TSB_KIND_STR)
#define TSB_TYPE_TENSOR ((int32_t)TSB_KIND_TENSOR)
#define TSB_TYPE_DEVICE ((int32_t)TSB_KIND_DEVICE)
#define TSB_TYPE_DTYPE ((int32_t)TSB_KIND_DTYPE)
#define TSB_TYPE_LAYOUT ((int32_t)TSB_KIND_LAYOUT)
#define TSB_TYPE_MEMORY_FORMAT ((int32_t)TSB_KIND_MEMORY_FORMAT)
#define TSB_TYPE_NUMBER ((int32_t)TSB_KIND_NUMBER)
#define TSB_TYPE_ANY ((int32_t)TSB_KIND_ANY)
/* The fixed index of an int value in (INT64_MAX, UINT64_MAX]: its type is
 * TorchScript's `int` (annotation "int"), its value u.u. Values come out with
 * it and hosts build them with tsb_any_uint; an expected `int`, `float`,
 * `Scalar` or `Any` takes one. A library built against a LibTorch older
 * than 2.9, whose IValue has no UInt, refuses one with TSB_ERR_UNSUPPORTED.
 * Added in 1.6 (docs/abi.md). */
#define TSB_TYPE_UINT ((int32_t)TSB_KIND_UINT)
#define TSB_TYPE_FIRST_DYNAMIC ((int32_t)64)

/* The deepest a value may nest containers (List, Tuple, NamedTuple, Dict):
 * a value of depth 1 is a container of leaves. Added in 1.7; the limit was
 * already 512 for walks and readers. */
#define TSB_MAX_DEPTH 512

/* dtype codes: c10::ScalarType's numbering, fixed for ABI 1.x. */
typedef enum tsb_dtype_code {
  TSB_DTYPE_UINT8 = 0,
  TSB_DTYPE_INT8 = 1,
  TSB_DTYPE_INT16 = 2,
  TSB_DTYPE_INT32 = 3,
  TSB_DTYPE_INT64 = 4,
  TSB_DTYPE_FLOAT16 = 5,
  TSB_DTYPE_FLOAT32 = 6,
  TSB_DTYPE_FLOAT64 = 7,
  TSB_DTYPE_COMPLEX32 = 8,
  TSB_DTYPE_COMPLEX64 = 9,
  TSB_DTYPE_COMPLEX128 = 10,
  TSB_DTYPE_BOOL = 11,
  TSB_DTYPE_QINT8 = 12,
  TSB_DTYPE_QUINT8 = 13,
  TSB_DTYPE_QINT32 = 14,
  TSB_DTYPE_BFLOAT16 = 15
} tsb_dtype_code;

/* Device types: c10::DeviceType's numbering, fixed for ABI 1.x. DLPack
 * numbers devices differently (DLDeviceType); the tensors that cross through
 * DLPack map, both ways, CPU 0 <-> kDLCPU 1, CUDA 1 <-> kDLCUDA 2,
 * OPENCL 4 <-> kDLOpenCL 4, HIP 6 <-> kDLROCM 10; no other type crosses
 * through DLPack (LibTorch 1.13's converter refuses it with a status). */
typedef enum tsb_device_type {
  TSB_DEVICE_CPU = 0,
  TSB_DEVICE_CUDA = 1,
  TSB_DEVICE_MKLDNN = 2,
  TSB_DEVICE_OPENGL = 3,
  TSB_DEVICE_OPENCL = 4,
  TSB_DEVICE_IDEEP = 5,
  TSB_DEVICE_HIP = 6,
  TSB_DEVICE_FPGA = 7,
  TSB_DEVICE_ORT = 8,
  TSB_DEVICE_XLA = 9,
  TSB_DEVICE_VULKAN = 10,
  TSB_DEVICE_METAL = 11,
  TSB_DEVICE_XPU = 12,
  TSB_DEVICE_MPS = 13,
  TSB_DEVICE_META = 14,
  TSB_DEVICE_HPU = 15,
  TSB_DEVICE_VE = 16,
  TSB_DEVICE_LAZY = 17,
  TSB_DEVICE_IPU = 18
} tsb_device_type;

/* Layouts: c10::Layout's numbering. */
typedef enum tsb_layout_code {
  TSB_LAYOUT_STRIDED = 0,
  TSB_LAYOUT_SPARSE_COO = 1,
  TSB_LAYOUT_SPARSE_CSR = 2,
  TSB_LAYOUT_MKLDNN = 3,
  TSB_LAYOUT_SPARSE_CSC = 4,
  TSB_LAYOUT_SPARSE_BSR = 5,
  TSB_LAYOUT_SPARSE_BSC = 6
} tsb_layout_code;

/* Memory formats: c10::MemoryFormat's numbering. */
typedef enum tsb_memory_format_code {
  TSB_MEMORY_FORMAT_CONTIGUOUS = 0,
  TSB_MEMORY_FORMAT_PRESERVE = 1,
  TSB_MEMORY_FORMAT_CHANNELS_LAST = 2,
  TSB_MEMORY_FORMAT_CHANNELS_LAST_3D = 3
} tsb_memory_format_code;

/* A type's kind is what a value of it is, never a wrapper's: a value's own
 * type_index names a concrete type, so a value never has kind OPTIONAL,
 * UNION, ANY or NUMBER (an Optional[int] that holds 3 comes out as int, one
 * that holds nothing as None). Those kinds appear only in types that
 * describe what may come: tsb_argument_info, contained types, parsed
 * annotations. */
typedef struct tsb_type_info {
  /* Set by the caller to sizeof(tsb_type_info) so the struct can grow. */
  size_t struct_size;
  tsb_kind kind;
  /* TorchScript annotation, e.g. "Dict[str, List[int]]". */
  const char* annotation;
  /* Qualified name of a named type (NamedTuple, Enum, class); "" otherwise. */
  const char* name;
  /* List: {element}; Dict: {key, value}; Optional: {element};
   * Tuple, NamedTuple, Union: the members, in order. */
  size_t num_contained;
  const int32_t* contained;
  /* Field names (num_fields of them); NULL when there are none. NamedTuple:
   * its fields, in order (num_fields == num_contained). Enum: its member
   * names, in order (contained is {the value type}). Object (TorchScript
   * class or module): its attribute names, read with tsb_any_get_field; an
   * object has no contained types, since attribute types may name the class
   * itself. */
  const char* const* field_names;
  /* Who provides the codec: "core" or a plugin's name. */
  const char* provider;
  size_t num_fields;
} tsb_type_info;

/* Describes a type. Every pointer in *out has process lifetime (types are
 * never un-interned). */
TSB_API tsb_status* tsb_type_get_info(int32_t type_index, tsb_type_info* out);
/* Kind of a type index; TSB_ERR_NOT_FOUND for an unknown index. */
TSB_API tsb_status* tsb_type_get_kind(int32_t type_index, tsb_kind* out);
/* Parses a TorchScript type with LibTorch's own parsers: Python annotation
 * syntax ("Dict[str, List[int]]") or schema syntax ("int[]", "Tensor?").
 * Builtin and plugin names only: a class, NamedTuple or Enum a module
 * declares ("__torch__.Point") is TSB_ERR_INVALID_ARGUMENT here ("Unknown
 * type name", with a pointer to tsb_module_parse_type, which parses it:
 * two modules may declare different types of one name). */
TSB_API tsb_status* tsb_type_parse(const char* annotation, int32_t* out);
/* Composes List[element] and Dict[key, value] from type indices. */
TSB_API tsb_status* tsb_type_make_list(int32_t element, int32_t* out);
TSB_API tsb_status* tsb_type_make_dict(int32_t key, int32_t value, int32_t* out);

/* ----------------------------------------------------------------- values */

typedef struct tsb_object tsb_object; /* opaque, refcounted */

/* flags */
#define TSB_FLAG_HANDLE 1u       /* u.obj holds one reference */
#define TSB_FLAG_BORROWED_STR 2u /* u.borrowed_str: caller-owned, NUL-ended */
#define TSB_FLAG_CONTAINER 4u    /* an entry of tsb_any_flatten: not a value */
/* A borrowed tensor (added in 1.9): u.borrowed names a tensor something
 * else keeps alive (the value tsb_any_flatten_borrowed flattened; a host's
 * own tensor object, through a torch companion: tsb::BorrowTensor in
 * tsbridge/plugin/kind_codec.hpp), and holds no reference. Valid only while
 * that lives. Every function taking a value takes one (a builder stores the
 * tensor itself); tsb_any_release only resets it and tsb_any_retain does
 * nothing: a host that keeps one makes a reference with tsb_any_keep. */
#define TSB_FLAG_BORROWED 8u

typedef struct tsb_any {
  int32_t type_index;
  uint32_t flags;
  union {
    int64_t i;      /* bool, int, dtype, layout, memory_format, device */
    uint64_t u;     /* uint: an int above INT64_MAX (from 1.6) */
    double d;       /* float */
    tsb_object* obj;
    const char* borrowed_str; /* a C string a host passes, or tsb_any_flatten's */
    const void* borrowed;     /* TSB_FLAG_BORROWED: the tensor it names (1.9) */
  } u;
} tsb_any;

/* Inline values: no allocation, nothing to release. */
static inline tsb_any tsb_any_inline(int32_t type_index, int64_t i) {
  tsb_any v;
  v.type_index = type_index;
  v.flags = 0;
  v.u.i = i;
  return v;
}
static inline tsb_any tsb_any_none(void) { return tsb_any_inline(TSB_TYPE_NONE, 0); }
static inline tsb_any tsb_any_bool(bool b) { return tsb_any_inline(TSB_TYPE_BOOL, b ? 1 : 0); }
static inline tsb_any tsb_any_int(int64_t i) { return tsb_any_inline(TSB_TYPE_INT, i); }
/* An int that may exceed INT64_MAX: TSB_TYPE_INT up to INT64_MAX, else
 * TSB_TYPE_UINT (from 1.6). */
static inline tsb_any tsb_any_uint(uint64_t u) {
  tsb_any v = tsb_any_inline(u <= (uint64_t)INT64_MAX ? TSB_TYPE_INT : TSB_TYPE_UINT, 0);
  v.u.u = u;
  return v;
}
static inline tsb_any tsb_any_float(double d) {
  tsb_any v = tsb_any_inline(TSB_TYPE_FLOAT, 0);
  v.u.d = d;
  return v;
}
/* `code` is a tsb_dtype_code. */
static inline tsb_any tsb_any_dtype(int32_t code) {
  return tsb_any_inline(TSB_TYPE_DTYPE, code);
}
/* `code` is a tsb_layout_code. */
static inline tsb_any tsb_any_layout(int32_t code) {
  return tsb_any_inline(TSB_TYPE_LAYOUT, code);
}
/* `code` is a tsb_memory_format_code. */
static inline tsb_any tsb_any_memory_format(int32_t code) {
  return tsb_any_inline(TSB_TYPE_MEMORY_FORMAT, code);
}
/* `device_type` is a tsb_device_type; index -1 means none. */
static inline tsb_any tsb_any_device(int32_t device_type, int32_t index) {
  return tsb_any_inline(TSB_TYPE_DEVICE,
                        (int64_t)(((uint64_t)(uint32_t)device_type << 32) |
                                  (uint32_t)index));
}
/* A caller-owned, NUL-terminated string, borrowed for the duration of the
 * call it is passed to. Functions that keep it copy it. */
static inline tsb_any tsb_any_borrowed_str(const char* s) {
  tsb_any v = tsb_any_inline(TSB_TYPE_STR, 0);
  v.flags = TSB_FLAG_BORROWED_STR;
  v.u.borrowed_str = s;
  return v;
}

/* Adds a reference to a handle; no-op for inline values and NULL. The new
 * reference belongs to a copy of the tsb_any: copy it first, then release
 * each copy once (tsb_any_release resets the variable it is given). */
TSB_API void tsb_any_retain(const tsb_any* v);
/* Drops the reference *v holds, if any, and resets *v to TSB_TYPE_INVALID
 * so a second release is harmless. NULL is ignored. */
TSB_API void tsb_any_release(tsb_any* v);
/* Identity of the object a handle refers to, for hosts that map boundary
 * values back to their own objects (a tensor a callee returns unchanged
 * comes back as the host object that went in, as PyTorch does): two values
 * have the same non-zero id iff they share one object (the same tensor,
 * ignoring views; the same list, dict, tuple, object) while either lives.
 * 0 for inline values and for str (immutable: identity does not matter). */
TSB_API tsb_status* tsb_any_get_id(const tsb_any* v, uint64_t* out);
/* A value the caller may keep, made from any value (added in 1.9): a new
 * reference for a handle (as tsb_any_retain) and for a borrowed tensor
 * (TSB_FLAG_BORROWED: a handle of the tensor it names), a str handle
 * holding a copy for a borrowed str, the value itself when inline. */
TSB_API tsb_status* tsb_any_keep(const tsb_any* v, tsb_any* out);
/* Number of live handles in the process (a leak check for tests). */
TSB_API tsb_status* tsb_handle_count(size_t* out);

/* New str handle holding a copy of data[0..len). */
TSB_API tsb_status* tsb_str_new(const char* data, size_t len, tsb_any* out);
/* New complex handle. */
TSB_API tsb_status* tsb_complex_new(double re, double im, tsb_any* out);

/* Checked scalar accessors: each fails with TSB_ERR_TYPE on another kind.
 * They do not convert (use tsb_any_coerce for that). */
TSB_API tsb_status* tsb_bool_get(const tsb_any* v, bool* out);
TSB_API tsb_status* tsb_int_get(const tsb_any* v, int64_t* out);
TSB_API tsb_status* tsb_float_get(const tsb_any* v, double* out);
TSB_API tsb_status* tsb_complex_get(const tsb_any* v, double* re, double* im);
/* *data stays valid while v's handle (or the borrowed string) lives. */
TSB_API tsb_status* tsb_str_get(const tsb_any* v, const char** data, size_t* len);
/* *device_type is a tsb_device_type. */
TSB_API tsb_status* tsb_device_get(const tsb_any* v, int32_t* device_type,
                                   int32_t* index);
/* *code is a tsb_dtype_code. */
TSB_API tsb_status* tsb_dtype_get(const tsb_any* v, int32_t* code);
TSB_API tsb_status* tsb_layout_get(const tsb_any* v, int32_t* code);
TSB_API tsb_status* tsb_memory_format_get(const tsb_any* v, int32_t* code);

/* Debug text of any value (TorchScript's own printing); caller frees *out
 * with tsb_string_free. */
TSB_API tsb_status* tsb_any_repr(const tsb_any* v, char** out);
/* Frees a string or byte buffer this library returned. NULL is ignored. */
TSB_API void tsb_string_free(char* s);

/* ------------------------------------------------------------- containers */

/* Number of elements of a List, Dict or Tuple (NamedTuple too). */
TSB_API tsb_status* tsb_any_len(const tsb_any* container, size_t* out);
/* Element i of a List or Tuple: a new reference in *out. */
TSB_API tsb_status* tsb_list_get(const tsb_any* list, size_t i, tsb_any* out);
/* All n elements of a List or Tuple, n == length: new references in
 * out[0..n), in one call. */
TSB_API tsb_status* tsb_list_get_items(const tsb_any* list, size_t n, tsb_any* out);
/* The whole of `value` in one call (added in 1.4): its Lists, Tuples,
 * NamedTuples and Dicts opened in pre-order into out[0..*n). A container is
 * one entry with flags TSB_FLAG_CONTAINER, its type index, and in u.i the
 * number of entries after it that belong to it (its items in order; a
 * Dict's keys and values alternate). A str is TSB_FLAG_BORROWED_STR, its
 * bytes the value's own, valid while `value` lives and is not changed (a
 * str holding a NUL byte is a handle instead). Every other leaf is what
 * tsb_list_get_items gives: inline, or a new reference. Release every entry
 * with tsb_any_release (nothing to do but for references); a container
 * entry is not a value and no function takes one. A value that is not a
 * container is one entry. When capacity is too small nothing in out is
 * written (not even temporarily), *n is the number of entries needed and
 * the status is OK: call again with that many. */
TSB_API tsb_status* tsb_any_flatten(const tsb_any* value, tsb_any* out, size_t capacity,
                                    size_t* n);
/* tsb_any_flatten with its tensor leaves borrowed (added in 1.9): each is
 * TSB_FLAG_BORROWED, valid while `value` lives and is not changed, as its
 * strs are, so no reference is made per tensor; a host that keeps one calls
 * tsb_any_keep. Every other entry as tsb_any_flatten (release each one as
 * there: a borrowed entry needs nothing). */
TSB_API tsb_status* tsb_any_flatten_borrowed(const tsb_any* value, tsb_any* out,
                                             size_t capacity, size_t* n);
/* The inverse of tsb_any_flatten (added in 1.9): a value of type
 * `type_index` built in one pass from entries[0..n) in its pre-order form.
 * An entry is a container (TSB_FLAG_CONTAINER, its type index, in u.i the
 * number of entries after it that belong to it: a List's or Tuple's items
 * in order, a Dict's keys and values alternating) or a leaf (inline, a
 * borrowed str, a handle, a borrowed tensor). Nothing is taken: every
 * entry stays the caller's. Each item is converted to the type its place
 * has, as tsb_any_coerce converts (an int where a float is expected, a
 * List entry where a Tuple is); where that type is Any, a container entry's
 * own type index says what it is (List[Any], Dict[str, Any] and the
 * Tuple of its items' types are typed by their items). The result equals
 * building each container with tsb_list_new, tsb_tuple_new and
 * tsb_dict_new and coercing the whole to `type_index`, without a handle
 * per container; errors carry the item's path ("['a'][2]: expected
 * Tensor, got int 3"). A new reference in *out. */
TSB_API tsb_status* tsb_any_unflatten(int32_t type_index, const tsb_any* entries, size_t n,
                                      tsb_any* out);
/* Field `name` of a NamedTuple, or attribute `name` of a TorchScript class
 * instance (TSB_KIND_OBJECT), converted by its declared type: a new
 * reference in *out. A torchbind custom class has no readable fields. */
TSB_API tsb_status* tsb_any_get_field(const tsb_any* value, const char* name,
                                      tsb_any* out);
/* Item i of a Dict in insertion order: new references in *key and *value.
 * O(i): walk a whole dict with tsb_dict_get_items. */
TSB_API tsb_status* tsb_dict_get_item(const tsb_any* dict, size_t i, tsb_any* key,
                                      tsb_any* value);
/* The first n items of a Dict in insertion order, n <= length: new
 * references in keys[0..n) and values[0..n). */
TSB_API tsb_status* tsb_dict_get_items(const tsb_any* dict, size_t n, tsb_any* keys,
                                       tsb_any* values);
/* Value stored under key (coerced to the key type): a new reference;
 * TSB_ERR_NOT_FOUND when absent. */
TSB_API tsb_status* tsb_dict_get(const tsb_any* dict, const tsb_any* key,
                                 tsb_any* out);

/* Bulk copies of List[int] / List[float] / List[bool] into host buffers of
 * exactly n elements, n == length. */
TSB_API tsb_status* tsb_list_copy_int(const tsb_any* list, size_t n, int64_t* out);
TSB_API tsb_status* tsb_list_copy_float(const tsb_any* list, size_t n, double* out);
TSB_API tsb_status* tsb_list_copy_bool(const tsb_any* list, size_t n, bool* out);
/* The n strings of a List[str], n == length, without a copy: data[i] points
 * at item i's bytes (NUL-ended; a str may also hold NUL bytes, so lens[i]
 * is its length), borrowed from the list: valid while `list` lives and is
 * not changed. Added in 1.7. */
TSB_API tsb_status* tsb_list_get_strs(const tsb_any* list, size_t n, const char** data,
                                      size_t* lens);

/* --------------------------------------------------------------- builders */

/* New List[element_type] from n borrowed items, each coerced to element_type
 * (an error names the item: "[3]: expected int, got str \"x\"").
 * element_type TSB_TYPE_ANY keeps the items as they are, for a later
 * tsb_any_coerce against the type a schema expects. */
TSB_API tsb_status* tsb_list_new(int32_t element_type, const tsb_any* items,
                                 size_t n, tsb_any* out);
/* New List[int] / List[float] / List[bool] copied from data[0..n). */
TSB_API tsb_status* tsb_list_new_int(const int64_t* data, size_t n, tsb_any* out);
TSB_API tsb_status* tsb_list_new_float(const double* data, size_t n, tsb_any* out);
TSB_API tsb_status* tsb_list_new_bool(const bool* data, size_t n, tsb_any* out);
/* New Tuple of n borrowed items, typed by the items' own types; coerce it to
 * a NamedTuple or another Tuple type with tsb_any_coerce. Needs
 * plugins/tuple. */
TSB_API tsb_status* tsb_tuple_new(const tsb_any* items, size_t n, tsb_any* out);
/* New value of the Tuple or NamedTuple type `tuple_type` (a registered
 * record such as tsbridge.tensor_pair) from its n borrowed items, each
 * coerced to its field's type (an error names the field): one tuple, named
 * and typed as it is built, with no tsb_any_coerce after. Needs
 * plugins/tuple. Added in 1.1. */
TSB_API tsb_status* tsb_tuple_new_typed(int32_t tuple_type, const tsb_any* items,
                                        size_t n, tsb_any* out);
/* New NamedTuple of n borrowed items named field_names[0..n), typed by the
 * items' own types, for a record whose type nobody registered (a Python
 * namedtuple, an R named tsb_tuple). qualified_name ("__torch__.Point") names
 * the type; NULL leaves it nameless, as R torch's named tuples are. Each
 * field name is an identifier, none twice: TSB_ERR_INVALID_ARGUMENT at
 * "field_names[i]" otherwise. Needs plugins/tuple. Added in 1.8. */
TSB_API tsb_status* tsb_tuple_new_named(const char* qualified_name,
                                        const char* const* field_names,
                                        const tsb_any* items, size_t n, tsb_any* out);
/* New Dict[key_type, value_type] from n borrowed key/value pairs, in order;
 * a repeated key keeps its first position and its last value. A dict key
 * is one LibTorch can hash: str, int, float, complex, bool, Tensor (by
 * identity), or Device. key_type TSB_TYPE_ANY takes the keys' own type,
 * which must be one of these and the same for every key; from 1.7 another
 * key type, or keys of two types, is TSB_ERR_TYPE naming the key
 * ("keys[1]: expected a dict key of type str (the type of keys[0]), got
 * int 3"), where before a mixed dict came out as Dict[Any, V], a type
 * TorchScript cannot spell. */
TSB_API tsb_status* tsb_dict_new(int32_t key_type, int32_t value_type,
                                 const tsb_any* keys, const tsb_any* values,
                                 size_t n, tsb_any* out);
/* Type-directed conversion: *out is value converted to `expected`, checked
 * all the way down (int -> float, List[Any] -> List[int], ...). A List[Any]
 * becomes a Tuple or NamedTuple by position, a Dict[str, Any] a NamedTuple
 * by field name (from 1.3): what a host builds for a record whose type it
 * does not know. The result shares storage with value where no conversion
 * is needed. Errors carry the path to the offending element. */
TSB_API tsb_status* tsb_any_coerce(const tsb_any* value, int32_t expected,
                                   tsb_any* out);

/* ---------------------------------------------------------------- tensors */

/* What a tensor is, read without exporting it (added in 1.7). */
typedef struct tsb_tensor_info {
  size_t struct_size;   /* set by the caller to sizeof(tsb_tensor_info) */
  int32_t dtype;        /* tsb_dtype_code (c10::ScalarType's numbering) */
  int32_t layout;       /* tsb_layout_code */
  int32_t device_type;  /* tsb_device_type */
  int32_t device_index; /* -1: the current device of its type */
  size_t ndim;
  /* ndim sizes and strides (in elements), borrowed from the tensor: valid
   * while it lives and is not resized. strides is NULL for a layout other
   * than strided (a sparse tensor has none). */
  const int64_t* sizes;
  const int64_t* strides;
  int64_t storage_offset; /* in elements; 0 for a layout other than strided */
  int64_t numel;
  bool requires_grad;
  bool is_contiguous; /* false for a layout other than strided */
} tsb_tensor_info;
TSB_API tsb_status* tsb_tensor_get_info(const tsb_any* tensor, tsb_tensor_info* out);

/* DLPack's type codes (DLDataTypeCode), for hosts that declare DLPack's
 * structs themselves (docs/hosts.md gives their layout) or whose dlpack.h
 * is older than 0.8 (Debian 12's has no kDLBool). */
typedef enum tsb_dlpack_type_code {
  TSB_DLPACK_INT = 0,
  TSB_DLPACK_UINT = 1,
  TSB_DLPACK_FLOAT = 2,
  TSB_DLPACK_OPAQUE_HANDLE = 3,
  TSB_DLPACK_BFLOAT = 4,
  TSB_DLPACK_COMPLEX = 5,
  TSB_DLPACK_BOOL = 6
} tsb_dlpack_type_code;

/* DLPack: the struct layout of dlpack.h v0.6 to v0.8 (LibTorch 1.13 ships
 * 0.6, 2.6 speaks 0.8). Include <dlpack/dlpack.h> (libdlpack-dev) or ATen's
 * copy to use these. A bool tensor crosses as DLPack 0.8's kDLBool (code 6,
 * 8 bits, one byte a value) with either LibTorch, both ways (from 1.3;
 * before, LibTorch 1.13 refused it). */
struct DLManagedTensor;

/* Zero copy out: *out shares the tensor's storage and keeps it alive until
 * the consumer calls (*out)->deleter(*out). Strides are always given (never
 * NULL); data + byte_offset is aligned to the element size (LibTorch's CPU
 * allocator aligns a storage to 64 bytes, a view may start anywhere inside
 * it). Only a strided tensor leaves: another layout (sparse COO, CSR, ...)
 * is TSB_ERR_UNSUPPORTED naming it; export a sparse tensor's parts with the
 * operators aten::_indices and aten::_values (COO), aten::crow_indices,
 * aten::col_indices and aten::values (CSR), or aten::to_dense. */
TSB_API tsb_status* tsb_tensor_to_dlpack(const tsb_any* tensor,
                                         struct DLManagedTensor** out);
/* Zero copy in: on success the new tensor owns `managed` and calls its
 * deleter exactly once, when the last reference goes. On failure ownership
 * stays with the caller, whose deleter has not been called. NULL strides
 * mean compact row-major (DLPack's rule); data + byte_offset must be
 * aligned to the element size, as LibTorch's kernels assume. */
TSB_API tsb_status* tsb_tensor_from_dlpack(struct DLManagedTensor* managed,
                                           tsb_any* out);

/* Versioned DLPack (DLPack 1.0 and later, from 1.6): the same zero copy
 * through DLManagedTensorVersioned, whose `version` the consumer checks and
 * whose `flags` carry DLPACK_FLAG_BITMASK_READ_ONLY (1) and
 * DLPACK_FLAG_BITMASK_IS_COPIED (2). Needs LibTorch 2.9 or newer (its
 * at::toDLPackVersioned / at::fromDLPackVersioned); an older one returns
 * TSB_ERR_UNSUPPORTED saying so, and the unversioned calls above serve. */
struct DLManagedTensorVersioned;

/* Zero copy out: *out shares the tensor's storage, flags 0 (writable, not a
 * copy), and keeps it alive until the consumer calls (*out)->deleter(*out). */
TSB_API tsb_status* tsb_tensor_to_dlpack_versioned(const tsb_any* tensor,
                                                   struct DLManagedTensorVersioned** out);
/* In: on success the new tensor owns `managed` and calls its deleter
 * exactly once. A LibTorch tensor is always writable, so a read-only one
 * (flags & DLPACK_FLAG_BITMASK_READ_ONLY) is copied and its deleter called
 * before this returns: tsbridge never writes a buffer its producer lent
 * read-only. A major version other than the one LibTorch speaks is refused
 * (TSB_ERR_INVALID_ARGUMENT) before anything is read. On failure ownership
 * stays with the caller, whose deleter has not been called. */
TSB_API tsb_status* tsb_tensor_from_dlpack_versioned(struct DLManagedTensorVersioned* managed,
                                                     tsb_any* out);

/* --------------------------------------------------------------- autograd */

/* LibTorch's autograd, for hosts that train (docs/autograd.md). Gradients
 * accumulate into the .grad of leaf tensors (inputs and parameters that
 * require grad), as in PyTorch. */

/* Sets requires_grad of a leaf tensor. true needs a floating point or
 * complex tensor; false needs a leaf (use tsb_tensor_detach on a computed
 * tensor). `tensor` is borrowed; the tensor itself changes, so every handle
 * on it (a module's parameter, too) sees the flag. */
TSB_API tsb_status* tsb_tensor_set_requires_grad(const tsb_any* tensor, bool requires_grad);
TSB_API tsb_status* tsb_tensor_get_requires_grad(const tsb_any* tensor, bool* out);
/* The accumulated gradient: a new reference to the .grad tensor itself (an
 * in-place change is seen by the next backward), or None when no backward
 * has reached the tensor. */
TSB_API tsb_status* tsb_tensor_get_grad(const tsb_any* tensor, tsb_any* out);
/* Fills the .grad with zeros in place (zero_grad(set_to_none=False)); does
 * nothing when there is none. */
TSB_API tsb_status* tsb_tensor_zero_grad(const tsb_any* tensor);
/* A new reference to a tensor that shares `tensor`'s storage and is
 * outside any graph (requires_grad false), as Tensor.detach(). */
TSB_API tsb_status* tsb_tensor_detach(const tsb_any* tensor, tsb_any* out);
/* torch.autograd.backward: runs backward from n borrowed outputs (tensors
 * that require grad). grad_outputs is NULL (each output must then have one
 * element and gets 1) or n borrowed values, each a tensor of its output's
 * shape or None (ones, one-element outputs only). retain_graph false frees
 * the graph: a second backward through it is TSB_ERR_TORCH. Errors name the
 * output: "grad_outputs[1]: expected a gradient of shape [2, 3], got ...". */
TSB_API tsb_status* tsb_autograd_backward(const tsb_any* outputs, size_t n,
                                          const tsb_any* grad_outputs, bool retain_graph);
/* The calling thread's grad mode (at::GradMode, thread-local as in
 * LibTorch; on by default). With it off, calls record no graph (an
 * optimizer step, inference): torch.no_grad() is
 *   bool was; tsb_grad_mode_set(false, &was); ...; tsb_grad_mode_set(was, NULL);
 * `previous` may be NULL. */
TSB_API tsb_status* tsb_grad_mode_set(bool enabled, bool* previous);
TSB_API tsb_status* tsb_grad_mode_get(bool* out);

/* ---------------------------------------------------------------- plugins */

/* Plugins add codecs (Tuple, Optional, ...), named types and functions at
 * run time; see tsbridge/plugin.h. Loading is transactional: a plugin that
 * fails to load leaves nothing behind. Loading the same file twice returns
 * the plugin already loaded. Plugins are never unloaded. */
typedef struct tsb_plugin_info {
  size_t struct_size; /* set by the caller to sizeof(tsb_plugin_info) */
  const char* name;
  const char* version;
  const char* path;         /* the file it was loaded from */
  const char* platform_tag; /* e.g. "gnu/libstdc++/cxx11abi=1/torch=1.13" */
  size_t num_kinds;         /* kinds it brings codecs for: "Tuple", ... */
  const char* const* kinds;
  size_t num_types;         /* named types it registered */
  const char* const* types;
  size_t num_functions;     /* functions it registered */
  const char* const* functions;
} tsb_plugin_info;

/* Loads one plugin file; *out (may be NULL) receives its id, 0, 1, ... in
 * load order. */
TSB_API tsb_status* tsb_plugin_load(const char* path, int32_t* out);
/* Loads every plugin named by the environment variable TSB_PLUGIN_PATH: a
 * colon-separated list of plugin files and of directories whose *.so files
 * are plugins. Stops at the first failure; an unset variable loads nothing. */
TSB_API tsb_status* tsb_plugin_load_from_env(void);
/* Loads the plugins installed next to libtsbridge.so, in
 * <libdir>/tsbridge/plugins/ (tuple, optional, ...). A host calls this or
 * tsb_plugin_defer_bundled once at its start: without plugins/tuple and
 * plugins/optional, Tuple, NamedTuple, Optional and Union values and types
 * are TSB_ERR_UNSUPPORTED ("no codec for Tuple[...]"). */
TSB_API tsb_status* tsb_plugin_load_bundled(void);
/* Offers the bundled plugins without loading them: each is loaded the first
 * time something needs what it provides (a Tuple, Optional or Union value or
 * type, a named type, function, operator or class it registers, a module
 * whose code calls its operators), as its index in that directory lists
 * (docs/plugins.md). A process that needs none loads none. Plugins in the
 * directory that the index does not list, or all of them when there is no
 * index, are loaded now. A plugin that fails to load when needed fails the
 * call that needed it, with the reason. Added in 1.1. */
TSB_API tsb_status* tsb_plugin_defer_bundled(void);
/* The directory tsb_plugin_load_bundled reads; process lifetime. */
TSB_API tsb_status* tsb_plugin_get_bundled_dir(const char** out);
/* Number of loaded plugins; ids run from 0 to *out - 1. */
TSB_API tsb_status* tsb_plugin_count(size_t* out);
/* Describes plugin `id`; pointers in *out have process lifetime. */
TSB_API tsb_status* tsb_plugin_get_info(int32_t id, tsb_plugin_info* out);

/* ----------------------------------------------------- operator libraries */

/* Operator libraries are shared libraries that register operators with
 * TORCH_LIBRARY (torchvision's nms, roi_align, image::decode_jpeg, ...), not
 * tsbridge plugins: once loaded, modules that call their operators load and
 * run, and tsb_op_call reaches them. docs/vision.md. */
typedef struct tsb_library_info {
  size_t struct_size; /* set by the caller to sizeof(tsb_library_info) */
  const char* name;   /* the name it was asked by, or the file's stem */
  const char* path;   /* the file, canonical */
  size_t num_operators; /* the operators its loading registered */
  const char* const* operators;
} tsb_library_info;

/* Loads an operator library: a path (it contains '/' or ends in .so) is
 * opened as is (RTLD_NOW | RTLD_GLOBAL); a name is the Python package of
 * that name, NAME/_C*.so or NAME/lib/libNAME*.so ("torchvision", with its
 * image library; "torchaudio"), looked for in the places docs/vision.md
 * lists, and an error says where it looked. *out (may be NULL) receives the id of
 * the (first) file, 0, 1, ... in load order. Loading a file twice is a
 * no-op returning its id; a file that fails to load changes nothing.
 * Libraries are never unloaded. */
TSB_API tsb_status* tsb_library_load(const char* path_or_name, int32_t* out);
/* Loads each entry of the environment variable TSB_LIBRARY_PATH, a
 * colon-separated list of paths and names; stops at the first failure. An
 * unset variable loads nothing. */
TSB_API tsb_status* tsb_library_load_from_env(void);
/* Number of loaded operator library files; ids run from 0 to *out - 1. */
TSB_API tsb_status* tsb_library_count(size_t* out);
/* Describes library `id`; pointers in *out have process lifetime. */
TSB_API tsb_status* tsb_library_get_info(int32_t id, tsb_library_info* out);

/* ------------------------------------------------------------------ calls */

/* The arguments of every call (module methods, object methods, operators,
 * plugin functions): positional values, then keyword values by name; all
 * borrowed. A NULL `const tsb_call_args*` means no arguments. */
typedef struct tsb_call_args {
  size_t struct_size; /* sizeof(tsb_call_args), set by the caller */
  const tsb_any* args;
  size_t num_args;
  const char* const* kw_names; /* may be NULL when num_kwargs is 0 */
  const tsb_any* kw_values;
  size_t num_kwargs;
} tsb_call_args;

/* Positional arguments only. */
static inline tsb_call_args tsb_call_args_make(const tsb_any* args, size_t n) {
  tsb_call_args a;
  a.struct_size = sizeof(tsb_call_args);
  a.args = args;
  a.num_args = n;
  a.kw_names = NULL;
  a.kw_values = NULL;
  a.num_kwargs = 0;
  return a;
}

/* One argument or return of a schema. Arrays of these are read with
 * tsb_schema_get_argument / tsb_schema_get_return, which step by the
 * library's struct_size, so the struct can grow. */
typedef struct tsb_argument_info {
  size_t struct_size;     /* sizeof(tsb_argument_info) in the library */
  const char* name;
  const char* annotation; /* "Optional[int]" */
  int32_t type_index;     /* TSB_TYPE_INVALID if no codec serves the type */
  bool has_default;
  bool kwarg_only;
  const char* default_json; /* the default as JSON (docs/json.md), or NULL */
  /* N of a fixed-size list argument (int[2], float[3]: annotation says
   * List[int]), to which TorchScript broadcasts one scalar; 0 for any other
   * type. Read it only when struct_size covers it. Added in 1.8. */
  int32_t list_size;
} tsb_argument_info;

typedef struct tsb_schema_info {
  size_t struct_size; /* set by the caller to sizeof(tsb_schema_info) */
  const char* name;   /* "forward", "aten::add", "torchsparse::relabel" */
  const char* overload_name; /* "Tensor", "Scalar", "" */
  const char* schema; /* the whole schema, as LibTorch prints it */
  size_t num_arguments; /* for a method, without self */
  const tsb_argument_info* arguments;
  size_t num_returns;
  const tsb_argument_info* returns;
  /* NULL, or why tsb_op_call refuses this overload though it is listed: it
   * takes or returns a variable number of values, or LibTorch builds it
   * from a graph node ("takes a variable number of arguments, ..."). A host
   * binds no arguments to such a schema. Added in 1.8. */
  const char* not_callable;
} tsb_schema_info;

static inline const tsb_argument_info* tsb_schema_get_argument(
    const tsb_schema_info* schema, size_t i) {
  return (const tsb_argument_info*)((const char*)schema->arguments +
                                    i * schema->arguments->struct_size);
}
static inline const tsb_argument_info* tsb_schema_get_return(
    const tsb_schema_info* schema, size_t i) {
  return (const tsb_argument_info*)((const char*)schema->returns +
                                    i * schema->returns->struct_size);
}

/* Calls a function a plugin registered, e.g. "torchsparse::relabel": each
 * argument is coerced to its declared type, defaults fill the rest; the
 * result is a new reference. Errors name the function and, for
 * conversions, the argument and the path:
 * "f(): argument 'x' → [1]: expected int, got str \"a\"".
 *
 * Binding, for every call (functions, methods, operators, from 1.7 written
 * down): a value that does not convert to its argument's type is
 * TSB_ERR_TYPE; too many positional arguments, an unknown or repeated
 * keyword, or a required argument missing is TSB_ERR_INVALID_ARGUMENT; an
 * unknown function, method or operator is TSB_ERR_NOT_FOUND. Each names the
 * callee ("f(): ..."). */
TSB_API tsb_status* tsb_function_call(const char* name, const tsb_call_args* args,
                                      tsb_any* out);
/* The function's schema, as operators report theirs; pointers in *out have
 * process lifetime. */
TSB_API tsb_status* tsb_function_get_schema(const char* name, tsb_schema_info* out);

/* ------------------------------------------------- enums, objects, classes */

/* An Enum value: its member name (process lifetime) and its value (a new
 * reference: int, float or str); either pointer may be NULL when not
 * wanted. The Enum's qualified type name is
 * tsb_type_get_info(v->type_index).name, its members are the field_names.
 * Build one with tsb_any_coerce from a member name (str) or from a value
 * equal to a member's value; a str that names one member and is the value
 * of another is refused as ambiguous. */
TSB_API tsb_status* tsb_enum_get(const tsb_any* v, const char** member_name,
                                 tsb_any* value);
/* Calls a method of a TorchScript class instance or a torchbind custom class
 * instance (fields: tsb_any_get_field; a custom class's state, when it
 * defines pickling: method "__getstate__"). Arguments are coerced to the
 * method's schema. The result is a new reference. */
TSB_API tsb_status* tsb_object_call(const tsb_any* object, const char* method,
                                    const tsb_call_args* args, tsb_any* out);
/* The bytes of a TorchScript archive (torch.jit.save's zip) whose module,
 * __torch__.tsb.ObjectHolder, holds a TorchScript class instance as its
 * attribute `object`: the class's code travels with it, so another process
 * reads it back with nothing loaded (PyTorch: torch.jit.load(...).object).
 * Caller frees *data with tsb_string_free. Added in 1.5. */
TSB_API tsb_status* tsb_object_write(const tsb_any* object, char** data, size_t* size);
/* The object from bytes tsb_object_write wrote, checked as tsb_module_read
 * checks an archive; a new reference in *out. Added in 1.5. */
TSB_API tsb_status* tsb_object_read(const char* data, size_t size, tsb_any* out);

/* --------------------------------------------------------- text and bytes */

/* read/write: a value from or to an in-memory encoding; load/save: a file. */

/* The JSON text form (docs/json.md); caller frees *out with
 * tsb_string_free. Every kind round-trips. */
TSB_API tsb_status* tsb_json_write(const tsb_any* value, char** out);
/* Parses JSON as a value of type `expected`: type-directed (a JSON number is
 * an int or a float by the expected type; a tensor is
 * {"dtype": ..., "shape": [...], "data": [...]}). Errors carry the path. */
TSB_API tsb_status* tsb_json_read(const char* json, int32_t expected, tsb_any* out);
/* The bytes torch.save writes for a value (LibTorch's pickle_save); caller
 * frees *data with tsb_string_free. Like tsb_any_repr, refuses a value that
 * contains itself or nests more than 512 containers deep. */
TSB_API tsb_status* tsb_pickle_write(const tsb_any* value, char** data, size_t* size);
/* A value from bytes torch.save wrote (LibTorch's pickle_load). A value
 * that contains itself (Python pickles a = [a]) or nests more than 512
 * containers deep is refused: no walk of it could end. */
TSB_API tsb_status* tsb_pickle_read(const char* data, size_t size, tsb_any* out);

/* ---------------------------------------------------------------- runtime */

/* A loaded TorchScript module. Many threads may call one module at once
 * (tsb_module_call, the getters); the setters below change it in place and
 * must not run beside any other use of it. A module may be freed on any
 * thread. */
typedef struct tsb_module tsb_module;

/* Loads a module saved by torch.jit.save or tsb_module_save; caller frees
 * *out with tsb_module_free. From 1.2, a path ending in ".pt2" loads an
 * AOTInductor package (LibTorch 2.6 or newer; docs/export.md): its models
 * are the module's methods, their pytree specs the methods' signatures. */
TSB_API tsb_status* tsb_module_load(const char* path, tsb_module** out);
/* Compiles TorchScript source. When every top-level def takes `self` first,
 * they become methods of a new module (__torch__.tsb.Compiled), as with
 * Module.define in PyTorch, which can be saved and reloaded. Otherwise
 * (from 1.2) the defs are free functions, as torch.jit.CompilationUnit and
 * R torch's jit_compile compile them, called by name like methods; such a
 * module has no state and is not saved. */
TSB_API tsb_status* tsb_module_compile(const char* source, tsb_module** out);
TSB_API tsb_status* tsb_module_save(const tsb_module* module, const char* path);
/* Saves the module for LibTorch's lite (mobile) interpreter, as PyTorch's
 * _save_for_lite_interpreter does: torch.jit.mobile._load_for_lite_interpreter and
 * LibTorch's _load_for_mobile read it (tsb_module_load does not). Added in
 * 1.2. */
TSB_API tsb_status* tsb_module_save_for_mobile(const tsb_module* module, const char* path);
/* The bytes tsb_module_save would write to a file (torch.jit.save's zip
 * archive); caller frees *data with tsb_string_free. Added in 1.2. */
TSB_API tsb_status* tsb_module_write(const tsb_module* module, char** data, size_t* size);
/* A module from the bytes of a TorchScript archive (tsb_module_write,
 * torch.jit.save into a buffer), checked as tsb_module_load checks a file;
 * caller frees *out with tsb_module_free. Added in 1.2. */
TSB_API tsb_status* tsb_module_read(const char* data, size_t size, tsb_module** out);
TSB_API void tsb_module_free(tsb_module* module);
/* tsb_type_parse, where the classes, NamedTuples and Enums the module
 * declares are known too, by their qualified names ("__torch__.Point",
 * "List[__torch__.Color]"): each module's own, since two modules may
 * declare different types of one name. Added in 1.7. */
TSB_API tsb_status* tsb_module_parse_type(const tsb_module* module, const char* annotation,
                                          int32_t* out);
/* Methods, in the module's order. Pointers in *out live as long as the
 * module; out->struct_size must be set (the struct is filled up to it). */
TSB_API tsb_status* tsb_module_count_methods(const tsb_module* module, size_t* out);
TSB_API tsb_status* tsb_module_get_method(const tsb_module* module, size_t i,
                                          tsb_schema_info* out);
/* Calls a method with positional and keyword arguments, each coerced to
 * its schema type; defaults fill the rest. Errors carry the path:
 * "forward(): argument 'p' → field 'b': expected Optional[int], got str \"x\"". */
TSB_API tsb_status* tsb_module_call(tsb_module* module, const char* method,
                                    const tsb_call_args* args, tsb_any* out);
/* tsb_module_call of method i, in tsb_module_get_method's order, with no
 * lookup by name: a host resolves a method once and calls it by its index
 * (a module's methods never change). Added in 1.9. */
TSB_API tsb_status* tsb_module_call_method(tsb_module* module, size_t i,
                                           const tsb_call_args* args, tsb_any* out);

/* Dispatcher operators by qualified name ("aten::add", "torchsparse::spmm").
 * The overload is chosen from the schemas and the argument types, never by
 * trying overloads and catching errors: exact types beat subtypes beat
 * conversions; a tie goes to the first overload in TorchScript's order
 * (dispatcher operators before the JIT's own, each in registration order),
 * as torch.ops and the TorchScript compiler choose (docs/runtime.md).
 * Several returns come back as one Tuple, a NamedTuple
 * "torch.return_types.<name>" when the schema names them all. Overload
 * infos have process lifetime. From 1.8 a variadic or graph-built overload
 * (prim::ChunkSizes) is counted and described too, its not_callable saying
 * why tsb_op_call refuses it; it is never chosen, and a call of a name with
 * no other overload is TSB_ERR_UNSUPPORTED with that reason (before, such a
 * name was TSB_ERR_UNSUPPORTED already when counted). */
TSB_API tsb_status* tsb_op_count_overloads(const char* name, size_t* out);
TSB_API tsb_status* tsb_op_get_overload(const char* name, size_t i,
                                        tsb_schema_info* out);
TSB_API tsb_status* tsb_op_call(const char* name, const tsb_call_args* args,
                                tsb_any* out);
/* The qualified names of the operators (tsb_op_call) and plugin functions
 * (tsb_function_call) there are now ("aten::add", "torchvision::nms",
 * "torchsparse::spmm"), each once, sorted; with
 * `ns` non-NULL only those in that namespace ("aten"). *names is an array
 * of *n strings of process lifetime: caller frees the array (not the
 * strings) with tsb_string_free. Operators of libraries and plugins not yet
 * loaded (deferred bundled plugins included) are not listed. Added in 1.2. */
TSB_API tsb_status* tsb_op_get_names(const char* ns, const char*** names, size_t* n);

/* Tracing: `fn` runs once on the example inputs while the tracer records the
 * operators it calls through tsb_op_call; the result is a module whose
 * `forward` replays them. `fn` borrows its inputs for the call and writes a
 * new reference to *output (tsbridge releases it); a status it returns
 * abandons the trace and is returned. */
typedef tsb_status* (*tsb_trace_fn)(void* user_data, const tsb_any* inputs,
                                    size_t num_inputs, tsb_any* output);
TSB_API tsb_status* tsb_module_trace(tsb_trace_fn fn, void* user_data,
                                     const tsb_any* example_inputs, size_t num_inputs,
                                     tsb_module** out);
/* How tsb_module_trace_with traces. struct_size first, as every struct
 * (docs/abi.md); fields a smaller struct_size does not cover take the value
 * in brackets. Added in 1.2. */
typedef struct tsb_trace_options {
  size_t struct_size;
  /* [true] Outputs must be tensors or tuples and lists of them, as
   * torch.jit.trace's strict=True; false also records dicts (strict=False). */
  bool strict;
  /* [NULL: "forward"] The name of the method the trace becomes (from 1.7). */
  const char* method_name;
} tsb_trace_options;
/* tsb_module_trace with options (NULL: the defaults). Added in 1.2. */
TSB_API tsb_status* tsb_module_trace_with(tsb_trace_fn fn, void* user_data,
                                          const tsb_any* example_inputs, size_t num_inputs,
                                          const tsb_trace_options* options, tsb_module** out);

/* Module state, as torch.jit.load's users know it (docs/runtime.md). The
 * setters change the module in place: do not call them while another
 * thread calls the module. */

/* Module.train(mode): sets `training` on the module and, recursively, on
 * every submodule (dropout, batch norm read it). */
TSB_API tsb_status* tsb_module_set_training(tsb_module* module, bool training);
TSB_API tsb_status* tsb_module_get_training(const tsb_module* module, bool* out);
/* named_parameters() / named_buffers(): recursive, with dotted names
 * ("fc1.weight"), in PyTorch's order. *name (may be NULL) lives as long as
 * the module; *out is a new reference to the module's own tensor, not a
 * copy: an in-place update (an SGD step under tsb_grad_mode_set(false))
 * changes the module. */
TSB_API tsb_status* tsb_module_count_parameters(const tsb_module* module, size_t* out);
TSB_API tsb_status* tsb_module_get_parameter(const tsb_module* module, size_t i,
                                             const char** name, tsb_any* out);
TSB_API tsb_status* tsb_module_count_buffers(const tsb_module* module, size_t* out);
TSB_API tsb_status* tsb_module_get_buffer(const tsb_module* module, size_t i,
                                          const char** name, tsb_any* out);
/* named_children(): the direct submodules. *out is a new module sharing the
 * child's state (set_training on it changes the parent's child); caller
 * frees it with tsb_module_free. *name lives as long as the parent. */
TSB_API tsb_status* tsb_module_count_children(const tsb_module* module, size_t* out);
TSB_API tsb_status* tsb_module_get_child(const tsb_module* module, size_t i,
                                         const char** name, tsb_module** out);
/* The attributes of the module's class (parameters, buffers, submodules and
 * plain attributes such as `training`), in the class's order; *out lives as
 * long as the module. */
TSB_API tsb_status* tsb_module_count_attributes(const tsb_module* module, size_t* out);
TSB_API tsb_status* tsb_module_get_attribute_name(const tsb_module* module, size_t i,
                                                  const char** out);
/* Attribute (or constant) `name`, converted by its declared type: a new
 * reference (a submodule comes back as an Object). */
TSB_API tsb_status* tsb_module_get_attribute(const tsb_module* module, const char* name,
                                             tsb_any* out);
/* Sets attribute `name` to the borrowed `value`, coerced to the declared
 * type; constants and submodules cannot be set. */
TSB_API tsb_status* tsb_module_set_attribute(tsb_module* module, const char* name,
                                             const tsb_any* value);
/* state_dict(): the parameters and buffers as a Dict[str, Tensor] by
 * dotted name, in PyTorch's order (each module's parameters, then its
 * buffers, then its children's, depth first). The tensors are the module's
 * own, not copies. *out is a new reference. Added in 1.2. */
TSB_API tsb_status* tsb_module_get_state(const tsb_module* module, tsb_any* out);
/* load_state_dict(): copies each tensor of the borrowed `state` (a
 * Dict[str, Tensor] as tsb_module_get_state gives, or a state_dict
 * torch.save wrote, read with tsb_pickle_read) into the parameter or buffer
 * of that name, in place, without recording gradients. Checked before
 * anything is copied: a shape that differs is refused with its key in the
 * path; with `strict`, so are missing and unexpected keys (all named).
 * Not concurrently with calls of the module. Added in 1.2. */
TSB_API tsb_status* tsb_module_set_state(tsb_module* module, const tsb_any* state,
                                         bool strict);
/* register_parameter() / register_buffer(): sets parameter (or, with
 * `is_buffer`, buffer) `name` of the module's own class to the borrowed
 * tensor, adding it when new; the parameter and buffer lists are made again
 * (names given out before stay valid). A name that is another kind of
 * attribute, or a submodule, is refused. Not concurrently with calls of the
 * module. Added in 1.2. */
TSB_API tsb_status* tsb_module_set_parameter(tsb_module* module, const char* name,
                                             const tsb_any* tensor, bool is_buffer);
/* graph_for(): runs `method` with `args` (as tsb_module_call) and gives the
 * graph the executor optimized for them, as text, as PyTorch's
 * ScriptModule.graph_for does; caller frees *out with tsb_string_free.
 * Added in 1.2. */
TSB_API tsb_status* tsb_module_get_graph_for(tsb_module* module, const char* method,
                                             const tsb_call_args* args, char** out);
/* The class's TorchScript source (Module.code) and a method's graph
 * (Method.graph) as text; caller frees *out with tsb_string_free. */
TSB_API tsb_status* tsb_module_get_code(const tsb_module* module, char** out);
TSB_API tsb_status* tsb_module_get_graph(const tsb_module* module, const char* method,
                                         char** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSBRIDGE_TSBRIDGE_H_ */
