/* tsbridge from plain C99: build a nested value from host data, convert it to
 * the type a schema expects, and print it with a walker that knows no C++
 * type. Every call used here is in <tsbridge/tsbridge.h>; ownership follows
 * that header: each `out` value is a new reference we release, each status
 * is ours to free.
 *
 * Expected output (abridged):
 *   {  // Dict[str, Any]
 *     "name": "demo",
 *     "scores": {  // Dict[str, List[float]]
 *       "a": [1.0, 2.0, 3.0],
 *       "b": [4.0, 2.5]
 *     },
 *     "weights": Tensor float32 [2, 3] on cpu
 *   }
 *   weights share the host buffer (zero copy): yes
 *   coerce to Dict[str, List[int]] failed: key "b" → [1]: expected int, got str "x"
 */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tsbridge/tsbridge.h>

/* A demo stops at the first unexpected failure; a real host would turn the
 * status into its own error (an R condition, a Python exception, ...). */
static void check(tsb_status* s, const char* call) {
  if (s == NULL) return;
  fprintf(stderr, "%s failed: %s\n", call, tsb_status_get_message(s));
  tsb_status_free(s);
  exit(1);
}
#define CHECK(call) check((call), #call)

/* ------------------------------------------------------ the generic walker */

static void print_value(const tsb_any* v, int indent);

static void print_float(double d) {
  /* Keep a ".0" on whole numbers so int -> float conversions are visible. */
  char text[32];
  snprintf(text, sizeof text, "%g", d);
  printf(strpbrk(text, ".eni") ? "%s" : "%s.0", text);
}

static const char* dtype_name(DLDataType t) {
  static char name[32];
  const char* base = t.code == kDLInt       ? "int"
                     : t.code == kDLUInt    ? "uint"
                     : t.code == kDLFloat   ? "float"
                     : t.code == kDLBfloat  ? "bfloat"
                     : t.code == kDLComplex ? "complex"
                                            : "dtype";
  snprintf(name, sizeof name, "%s%u", base, (unsigned)t.bits);
  return name;
}

/* Tensors are read through DLPack: the export shares the tensor's storage,
 * and we hand it back with its own deleter once we have looked at it. */
static void print_tensor(const tsb_any* v) {
  struct DLManagedTensor* dl;
  const DLTensor* t;
  int i;
  CHECK(tsb_tensor_to_dlpack(v, &dl));
  t = &dl->dl_tensor;
  printf("Tensor %s [", dtype_name(t->dtype));
  for (i = 0; i < t->ndim; ++i) printf(i ? ", %lld" : "%lld", (long long)t->shape[i]);
  printf("] on %s", t->device.device_type == kDLCPU ? "cpu" : "another device");
  dl->deleter(dl);
}

static void print_list(const tsb_any* list, const tsb_type_info* info, int indent) {
  /* The element type, not the first element, decides the layout: scalars on
   * one line, anything else one per line. */
  tsb_kind element = TSB_KIND_INVALID;
  CHECK(tsb_type_get_kind(info->contained[0], &element));
  int one_line = element == TSB_KIND_INT || element == TSB_KIND_FLOAT ||
                 element == TSB_KIND_BOOL || element == TSB_KIND_STR;
  size_t n, i;
  CHECK(tsb_any_len(list, &n));
  printf("[");
  for (i = 0; i < n; ++i) {
    tsb_any item;
    CHECK(tsb_list_get(list, i, &item));
    if (one_line) {
      printf(i ? ", " : "");
    } else {
      printf(i ? ",\n%*s" : "\n%*s", indent + 2, "");
    }
    print_value(&item, indent + 2);
    tsb_any_release(&item);
  }
  if (!one_line && n > 0) printf("\n%*s", indent, "");
  printf("]");
}

static void print_dict(const tsb_any* dict, const tsb_type_info* info, int indent) {
  size_t n, i;
  tsb_any *keys, *values;
  CHECK(tsb_any_len(dict, &n));
  /* One call fetches every item: tsb_dict_get_item(i) would be O(i) each. */
  keys = malloc((n ? n : 1) * sizeof *keys);
  values = malloc((n ? n : 1) * sizeof *values);
  if (keys == NULL || values == NULL) exit(1);
  CHECK(tsb_dict_get_items(dict, n, keys, values));
  printf("{  // %s", info->annotation);
  for (i = 0; i < n; ++i) {
    printf(i ? ",\n%*s" : "\n%*s", indent + 2, "");
    print_value(&keys[i], indent + 2);
    printf(": ");
    print_value(&values[i], indent + 2);
    tsb_any_release(&keys[i]);
    tsb_any_release(&values[i]);
  }
  printf("\n%*s}", indent, "");
  free(keys);
  free(values);
}

/* Everything a host needs is the type index of each value: values of a
 * static type Any (the record below) arrive with their own dynamic type. */
static void print_value(const tsb_any* v, int indent) {
  tsb_type_info info;
  info.struct_size = sizeof info; /* lets the struct grow in later versions */
  CHECK(tsb_type_get_info(v->type_index, &info));
  switch (info.kind) {
    case TSB_KIND_NONE: printf("None"); break;
    case TSB_KIND_BOOL: {
      bool b;
      CHECK(tsb_bool_get(v, &b));
      printf(b ? "true" : "false");
      break;
    }
    case TSB_KIND_INT: {
      int64_t i;
      CHECK(tsb_int_get(v, &i));
      printf("%lld", (long long)i);
      break;
    }
    case TSB_KIND_FLOAT: {
      double d;
      CHECK(tsb_float_get(v, &d));
      print_float(d);
      break;
    }
    case TSB_KIND_STR: {
      const char* s;
      size_t len;
      CHECK(tsb_str_get(v, &s, &len)); /* not NUL-safe in general: use len */
      printf("\"%.*s\"", (int)len, s);
      break;
    }
    case TSB_KIND_TENSOR: print_tensor(v); break;
    case TSB_KIND_LIST: print_list(v, &info, indent); break;
    case TSB_KIND_DICT: print_dict(v, &info, indent); break;
    default: printf("<%s>", info.annotation); break;
  }
}

/* ------------------------------------------- a tensor owned by the host */

/* The host's own buffer, lent to LibTorch without a copy. tsbridge calls the
 * deleter exactly once, when the last reference to the tensor goes. */
static float g_weights[2][3] = {{0.5f, 1.5f, 2.5f}, {3.5f, 4.5f, 5.5f}};
static int64_t g_weights_shape[2] = {2, 3};
static int g_deleter_calls = 0;

static void host_deleter(struct DLManagedTensor* self) {
  (void)self; /* static storage: nothing to free, only to note */
  ++g_deleter_calls;
}

static DLManagedTensor g_weights_dl = {
    {g_weights, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, g_weights_shape, NULL, 0},
    NULL,
    host_deleter};

/* ---------------------------------------------------------------- the demo */

/* Dict[str, Any] from parallel arrays of C strings and values. */
static tsb_any make_str_dict(const char* const* names, const tsb_any* values, size_t n) {
  tsb_any keys[8], dict;
  size_t i;
  if (n > 8) exit(1); /* a demo's records are small */
  for (i = 0; i < n; ++i) keys[i] = tsb_any_borrowed_str(names[i]); /* copied by the callee */
  CHECK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, keys, values, n, &dict));
  return dict;
}

int main(void) {
  static const int64_t a_data[] = {1, 2, 3};
  static const char* const score_names[] = {"a", "b"};
  static const char* const record_names[] = {"name", "scores", "weights"};
  tsb_any items[2], lists[2], fields[3], key, scores, record, got;
  int32_t expected, wrong;
  struct DLManagedTensor* view;
  tsb_status* s;
  int zero_copy, failed_as_expected;
  size_t live = 0;

  printf("tsbridge %s, header %d.%d.%d\n", tsb_version_get_string(), TSB_VERSION_MAJOR,
         TSB_VERSION_MINOR, TSB_VERSION_PATCH);

  /* 1. Build bottom up from host data. "a" is a List[int] made in one call;
   *    "b" mixes an int and a float, so it is a List[Any] for now: the
   *    schema, not its first element, will decide what it becomes. */
  CHECK(tsb_list_new_int(a_data, 3, &lists[0]));
  items[0] = tsb_any_int(4);
  items[1] = tsb_any_float(2.5);
  CHECK(tsb_list_new(TSB_TYPE_ANY, items, 2, &lists[1]));
  scores = make_str_dict(score_names, lists, 2);
  tsb_any_release(&lists[0]); /* the dict holds its own references */
  tsb_any_release(&lists[1]);

  /* 2. Convert to the type a schema expects: the ints become floats, all
   *    the way down. */
  CHECK(tsb_type_parse("Dict[str, List[float]]", &expected));
  CHECK(tsb_str_new("demo", 4, &fields[0])); /* a str handle owning its copy */
  CHECK(tsb_any_coerce(&scores, expected, &fields[1]));

  /* 3. A tensor over the host's buffer, and a record holding everything. */
  CHECK(tsb_tensor_from_dlpack(&g_weights_dl, &fields[2]));
  record = make_str_dict(record_names, fields, 3);
  tsb_any_release(&fields[0]);
  tsb_any_release(&fields[1]);
  tsb_any_release(&fields[2]);

  print_value(&record, 0);
  printf("\n");

  /* 4. The tensor inside the record still reads the host's buffer. */
  key = tsb_any_borrowed_str("weights");
  CHECK(tsb_dict_get(&record, &key, &got));
  CHECK(tsb_tensor_to_dlpack(&got, &view));
  zero_copy = view->dl_tensor.data == (void*)g_weights;
  view->deleter(view);
  tsb_any_release(&got);
  printf("weights share the host buffer (zero copy): %s\n", zero_copy ? "yes" : "no");

  /* 5. A conversion that fails says where and why: "b" holds a str. */
  CHECK(tsb_type_parse("Dict[str, List[int]]", &wrong));
  CHECK(tsb_list_new_int(a_data, 3, &lists[0]));
  items[0] = tsb_any_int(7);
  items[1] = tsb_any_borrowed_str("x");
  CHECK(tsb_list_new(TSB_TYPE_ANY, items, 2, &lists[1]));
  tsb_any_release(&scores);
  scores = make_str_dict(score_names, lists, 2);
  tsb_any_release(&lists[0]);
  tsb_any_release(&lists[1]);
  s = tsb_any_coerce(&scores, wrong, &got);
  failed_as_expected = tsb_status_get_code(s) == TSB_ERR_TYPE;
  printf("coerce to Dict[str, List[int]] failed: %s\n", tsb_status_get_message(s));
  tsb_status_free(s);

  /* 6. Release everything: the last reference to the tensor runs the
   *    host's deleter, and no handle is left alive. */
  tsb_any_release(&scores);
  tsb_any_release(&record);
  CHECK(tsb_handle_count(&live));
  printf("host deleter calls: %d, live handles: %zu\n", g_deleter_calls, live);
  return (live == 0 && g_deleter_calls == 1 && zero_copy && failed_as_expected) ? 0 : 1;
}
