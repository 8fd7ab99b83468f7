/* The host ABI exercised from plain C99, as any C host or FFI sees it: only
 * <tsbridge/tsbridge.h>, no C++ runtime in this translation unit. Checks
 * count instead of aborting so one run reports every broken promise. */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <string.h>

#include <tsbridge/tsbridge.h>

static int g_passed, g_failed;

static int expect_(int ok, const char* what, int line) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    fprintf(stderr, "c99_test.c:%d: FAILED: %s\n", line, what);
  }
  return ok;
}
#define EXPECT(cond) expect_((cond) != 0, #cond, __LINE__)

/* A call that must succeed; a failure prints the library's own message. */
static int ok_(tsb_status* s, const char* call, int line) {
  if (s == NULL) return expect_(1, call, line);
  fprintf(stderr, "c99_test.c:%d: %s: %s\n", line, call, tsb_status_get_message(s));
  tsb_status_free(s);
  return expect_(0, call, line);
}
#define EXPECT_OK(call) ok_((call), #call, __LINE__)

/* A call that must fail with `code`; the status is freed here. */
static int fails_(tsb_status* s, tsb_code code, const char* call, int line) {
  int ok = s != NULL && tsb_status_get_code(s) == code;
  if (!ok) {
    fprintf(stderr, "c99_test.c:%d: %s: want code %d, got %d (%s)\n", line, call,
            (int)code, (int)tsb_status_get_code(s), tsb_status_get_message(s));
  }
  tsb_status_free(s);
  return expect_(ok, call, line);
}
#define EXPECT_FAILS(call, code) fails_((call), (code), #call, __LINE__)

static int has(const char* haystack, const char* needle) {
  return haystack != NULL && strstr(haystack, needle) != NULL;
}

/* Live handles and kinds as plain values (their calls fail only on NULL). */
static size_t live_handles(void) {
  size_t n = 0;
  tsb_status_free(tsb_handle_count(&n));
  return n;
}
static tsb_kind kind_of(int32_t type_index) {
  tsb_kind kind = TSB_KIND_INVALID;
  tsb_status_free(tsb_type_get_kind(type_index, &kind));
  return kind;
}

/* -------------------------------------------------------------------------- */

static void test_version(void) {
  char expected[32];
  sprintf(expected, "%d.%d.%d", TSB_VERSION_MAJOR, TSB_VERSION_MINOR, TSB_VERSION_PATCH);
  EXPECT(tsb_version() == TSB_VERSION);
  EXPECT(strcmp(tsb_version_get_string(), expected) == 0);
}

static void test_scalars_inline(void) {
  size_t live = live_handles();
  tsb_any i = tsb_any_int(-42), f = tsb_any_float(2.5), b = tsb_any_bool(true), n = tsb_any_none();
  tsb_any d = tsb_any_device(0, -1);
  int64_t iv = 0;
  double fv = 0;
  bool bv = false;
  int32_t dev_type = 7, dev_index = 7;

  EXPECT(sizeof(tsb_any) == 16);
  EXPECT(i.type_index == TSB_TYPE_INT && i.flags == 0);
  EXPECT_OK(tsb_int_get(&i, &iv));
  EXPECT(iv == -42);
  EXPECT_OK(tsb_float_get(&f, &fv));
  EXPECT(fv == 2.5);
  EXPECT_OK(tsb_bool_get(&b, &bv));
  EXPECT(bv);
  EXPECT(n.type_index == TSB_TYPE_NONE && kind_of(n.type_index) == TSB_KIND_NONE);
  EXPECT_OK(tsb_device_get(&d, &dev_type, &dev_index));
  EXPECT(dev_type == 0 && dev_index == -1);
  /* Accessors check, they do not convert: that is tsb_any_coerce's job. */
  EXPECT_FAILS(tsb_float_get(&i, &fv), TSB_ERR_TYPE);
  EXPECT_FAILS(tsb_int_get(&b, &iv), TSB_ERR_TYPE);
  /* Inline means no allocation, and release only resets the value. */
  EXPECT(live_handles() == live);
  tsb_any_release(&i);
  EXPECT(i.type_index == TSB_TYPE_INVALID);
}

static void test_str(void) {
  static const char text[] = "h\xC3\xA9llo\0tail"; /* UTF-8 with an embedded NUL */
  size_t live = live_handles();
  tsb_any s, borrowed = tsb_any_borrowed_str("plain");
  const char* data = NULL;
  size_t len = 0;

  EXPECT_OK(tsb_str_new(text, sizeof text - 1, &s));
  EXPECT(s.type_index == TSB_TYPE_STR && (s.flags & TSB_FLAG_HANDLE) != 0);
  EXPECT(live_handles() == live + 1);
  EXPECT_OK(tsb_str_get(&s, &data, &len));
  EXPECT(len == sizeof text - 1 && data != text && memcmp(data, text, len) == 0);
  EXPECT_OK(tsb_str_get(&borrowed, &data, &len));
  EXPECT(len == 5 && strcmp(data, "plain") == 0);
  tsb_any_release(&s);
  tsb_any_release(&s); /* harmless: the first release reset it */
  EXPECT(live_handles() == live);
}

static void test_list_int64(void) {
  static const int64_t data[] = {5, -1, INT64_MAX};
  int64_t back[3] = {0, 0, 0};
  double wrong[3];
  tsb_any list, item;
  tsb_type_info info;
  size_t n = 0;
  int64_t v = 0;

  EXPECT_OK(tsb_list_new_int(data, 3, &list));
  EXPECT_OK(tsb_any_len(&list, &n));
  EXPECT(n == 3);
  EXPECT_OK(tsb_list_get(&list, 1, &item));
  EXPECT_OK(tsb_int_get(&item, &v));
  EXPECT(item.type_index == TSB_TYPE_INT && v == -1);
  EXPECT_OK(tsb_list_copy_int(&list, 3, back));
  EXPECT(memcmp(back, data, sizeof data) == 0);
  /* The buffer must match the length exactly, and the element type too. */
  EXPECT_FAILS(tsb_list_copy_int(&list, 2, back), TSB_ERR_OUT_OF_RANGE);
  EXPECT_FAILS(tsb_list_copy_float(&list, 3, wrong), TSB_ERR_TYPE);
  info.struct_size = sizeof info;
  EXPECT_OK(tsb_type_get_info(list.type_index, &info));
  EXPECT(info.kind == TSB_KIND_LIST && strcmp(info.annotation, "List[int]") == 0);
  tsb_any_release(&list);
}

static void test_list_coerce(void) {
  tsb_any items[3], list, floats;
  double back[3] = {0, 0, 0};
  int32_t list_float = 0, composed = 0;
  tsb_type_info info;

  items[0] = tsb_any_int(1);
  items[1] = tsb_any_float(2.5);
  items[2] = tsb_any_int(3);
  EXPECT_OK(tsb_list_new(TSB_TYPE_ANY, items, 3, &list));
  info.struct_size = sizeof info;
  EXPECT_OK(tsb_type_get_info(list.type_index, &info));
  EXPECT(strcmp(info.annotation, "List[Any]") == 0);
  /* The expected type decides: ints become floats, whatever comes first. */
  EXPECT_OK(tsb_type_parse("List[float]", &list_float));
  EXPECT_OK(tsb_any_coerce(&list, list_float, &floats));
  EXPECT(floats.type_index == list_float);
  EXPECT_OK(tsb_list_copy_float(&floats, 3, back));
  EXPECT(back[0] == 1.0 && back[1] == 2.5 && back[2] == 3.0);
  /* Interned types are stable: every route to List[float] is one index. */
  EXPECT_OK(tsb_type_make_list(TSB_TYPE_FLOAT, &composed));
  EXPECT(composed == list_float);
  EXPECT_OK(tsb_type_parse("float[]", &composed));
  EXPECT(composed == list_float);
  tsb_any_release(&list);
  tsb_any_release(&floats);
}

static void test_dict(void) {
  tsb_any keys[4], values[4], dict, got_keys[3], got_values[3], key, out;
  const char* text;
  size_t len, n = 0, i;
  int64_t v = 0;
  tsb_type_info info;
  static const char* const names[] = {"z", "a", "m"};

  for (i = 0; i < 3; ++i) {
    keys[i] = tsb_any_borrowed_str(names[i]);
    values[i] = tsb_any_int((int64_t)i + 1);
  }
  EXPECT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_INT, keys, values, 3, &dict));
  info.struct_size = sizeof info;
  EXPECT_OK(tsb_type_get_info(dict.type_index, &info));
  EXPECT(info.kind == TSB_KIND_DICT && strcmp(info.annotation, "Dict[str, int]") == 0);
  EXPECT(info.num_contained == 2 && info.contained[0] == TSB_TYPE_STR &&
         info.contained[1] == TSB_TYPE_INT);
  EXPECT_OK(tsb_any_len(&dict, &n));
  EXPECT(n == 3);
  /* Insertion order, not sorted order: z, a, m. */
  if (EXPECT_OK(tsb_dict_get_items(&dict, 3, got_keys, got_values))) {
    for (i = 0; i < 3; ++i) {
      EXPECT(tsb_str_get(&got_keys[i], &text, &len) == NULL && strcmp(text, names[i]) == 0);
      EXPECT(tsb_int_get(&got_values[i], &v) == NULL && v == (int64_t)i + 1);
      tsb_any_release(&got_keys[i]);
      tsb_any_release(&got_values[i]);
    }
  }
  key = tsb_any_borrowed_str("a");
  EXPECT_OK(tsb_dict_get(&dict, &key, &out));
  EXPECT(tsb_int_get(&out, &v) == NULL && v == 2);
  key = tsb_any_borrowed_str("missing");
  EXPECT_FAILS(tsb_dict_get(&dict, &key, &out), TSB_ERR_NOT_FOUND);
  tsb_any_release(&dict);

  /* A repeated key keeps its first position and its last value. */
  keys[0] = tsb_any_borrowed_str("k");
  keys[1] = tsb_any_borrowed_str("j");
  keys[2] = tsb_any_borrowed_str("k");
  EXPECT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_INT, keys, values, 3, &dict));
  EXPECT(tsb_any_len(&dict, &n) == NULL && n == 2);
  if (EXPECT_OK(tsb_dict_get_item(&dict, 0, &got_keys[0], &got_values[0]))) {
    EXPECT(tsb_str_get(&got_keys[0], &text, &len) == NULL && strcmp(text, "k") == 0);
    EXPECT(tsb_int_get(&got_values[0], &v) == NULL && v == 3);
    tsb_any_release(&got_keys[0]);
    tsb_any_release(&got_values[0]);
  }
  tsb_any_release(&dict);
}

static void test_type_errors(void) {
  tsb_any items[2], lists[2], keys[2], dict, out, sentinel = tsb_any_int(99);
  int32_t expected = 0;
  tsb_status* s;

  /* A builder names the offending item. */
  items[0] = tsb_any_int(1);
  items[1] = tsb_any_borrowed_str("x");
  out = sentinel;
  s = tsb_list_new(TSB_TYPE_INT, items, 2, &out);
  EXPECT(tsb_status_get_code(s) == TSB_ERR_TYPE);
  EXPECT(strcmp(tsb_status_get_path(s), "[1]") == 0);
  EXPECT(has(tsb_status_get_detail(s), "expected int, got str \"x\""));
  EXPECT(has(tsb_status_get_message(s), "[1]: expected int"));
  tsb_status_free(s);
  EXPECT(out.type_index == sentinel.type_index && out.u.i == 99); /* untouched */

  /* A coerce error carries the whole path down the value. */
  EXPECT_OK(tsb_list_new_int(NULL, 0, &lists[0]));
  EXPECT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, &lists[1]));
  keys[0] = tsb_any_borrowed_str("a");
  keys[1] = tsb_any_borrowed_str("b");
  EXPECT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, keys, lists, 2, &dict));
  EXPECT_OK(tsb_type_parse("Dict[str, List[int]]", &expected));
  s = tsb_any_coerce(&dict, expected, &out);
  EXPECT(tsb_status_get_code(s) == TSB_ERR_TYPE);
  EXPECT(has(tsb_status_get_path(s), "key \"b\"") && has(tsb_status_get_path(s), "[1]"));
  EXPECT(has(tsb_status_get_message(s), "[1]: expected int, got str \"x\""));
  EXPECT(strcmp(tsb_status_get_backtrace(s), "") == 0); /* not a LibTorch error */
  tsb_status_free(s);
  EXPECT(out.type_index == sentinel.type_index);
  tsb_any_release(&lists[0]);
  tsb_any_release(&lists[1]);
  tsb_any_release(&dict);
}

static void test_null_arguments(void) {
  tsb_any v = tsb_any_int(1), out;
  int64_t i;
  int32_t index;
  size_t n;
  tsb_status* s;

  s = tsb_int_get(NULL, &i);
  EXPECT(tsb_status_get_code(s) == TSB_ERR_INVALID_ARGUMENT);
  EXPECT(has(tsb_status_get_message(s), "NULL"));
  tsb_status_free(s);
  EXPECT_FAILS(tsb_int_get(&v, NULL), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_any_len(NULL, &n), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_list_get(&v, 0, NULL), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_type_parse(NULL, &index), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_type_get_info(TSB_TYPE_INT, NULL), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_str_new(NULL, 3, &out), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_list_new(TSB_TYPE_INT, NULL, 2, &out), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_list_new_int(NULL, 2, &out), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_any_coerce(NULL, TSB_TYPE_INT, &out), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_tensor_from_dlpack(NULL, &out), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_FAILS(tsb_tensor_to_dlpack(&v, NULL), TSB_ERR_INVALID_ARGUMENT);
  /* NULL is success for the status accessors, and ignored by release. */
  EXPECT(tsb_status_get_code(NULL) == TSB_OK && strcmp(tsb_status_get_message(NULL), "") == 0);
  tsb_any_release(NULL);
  tsb_any_retain(NULL);
  tsb_status_free(NULL);
  /* Unknown types and malformed annotations are errors, not crashes. */
  EXPECT(kind_of(123456) == TSB_KIND_INVALID);
  EXPECT_FAILS(tsb_type_get_kind(123456, NULL), TSB_ERR_INVALID_ARGUMENT);
  {
    tsb_type_info info;
    info.struct_size = sizeof info;
    EXPECT_FAILS(tsb_type_get_info(123456, &info), TSB_ERR_NOT_FOUND);
  }
  s = tsb_type_parse("List[", &index);
  EXPECT(s != NULL);
  tsb_status_free(s);
}

static void test_out_of_range(void) {
  static const int64_t data[] = {1, 2, 3};
  tsb_any list, dict, keys[1], values[1], out;

  EXPECT_OK(tsb_list_new_int(data, 3, &list));
  EXPECT_FAILS(tsb_list_get(&list, 3, &out), TSB_ERR_OUT_OF_RANGE);
  EXPECT_FAILS(tsb_list_get(&list, (size_t)-1, &out), TSB_ERR_OUT_OF_RANGE);
  keys[0] = tsb_any_borrowed_str("k");
  values[0] = tsb_any_int(1);
  EXPECT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_INT, keys, values, 1, &dict));
  EXPECT_FAILS(tsb_dict_get_item(&dict, 1, &keys[0], &values[0]), TSB_ERR_OUT_OF_RANGE);
  EXPECT_FAILS(tsb_dict_get_items(&dict, 2, keys, values), TSB_ERR_OUT_OF_RANGE);
  tsb_any_release(&list);
  tsb_any_release(&dict);
}

static void test_type_info(void) {
  int32_t list_int = 0;
  tsb_type_info info;

  EXPECT_OK(tsb_type_parse("List[int]", &list_int));
  EXPECT(list_int >= TSB_TYPE_FIRST_DYNAMIC);
  info.struct_size = sizeof info;
  EXPECT_OK(tsb_type_get_info(list_int, &info));
  EXPECT(info.kind == TSB_KIND_LIST);
  EXPECT(info.num_contained == 1 && info.contained[0] == TSB_TYPE_INT);
  EXPECT(strcmp(info.annotation, "List[int]") == 0);
  EXPECT(strcmp(info.name, "") == 0 && info.field_names == NULL);
  EXPECT(strcmp(info.provider, "core") == 0);
  EXPECT(kind_of(list_int) == TSB_KIND_LIST);
  EXPECT_OK(tsb_type_get_info(TSB_TYPE_INT, &info));
  EXPECT(info.kind == TSB_KIND_INT && strcmp(info.annotation, "int") == 0);
  /* A caller that forgot struct_size is told so. */
  info.struct_size = 0;
  EXPECT_FAILS(tsb_type_get_info(list_int, &info), TSB_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ DLPack */

static double g_buffer[2][2] = {{1.0, 2.0}, {3.0, 4.0}};
static int64_t g_shape[2] = {2, 2};
static int g_deleter_calls;

static void counting_deleter(struct DLManagedTensor* self) {
  ++*(int*)self->manager_ctx;
}

static DLManagedTensor make_managed(void) {
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor.data = g_buffer;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 64;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = g_shape;
  m.manager_ctx = &g_deleter_calls;
  m.deleter = counting_deleter;
  return m;
}

static void test_dlpack(void) {
  DLManagedTensor managed = make_managed(), bad = make_managed();
  struct DLManagedTensor* view = NULL;
  tsb_any tensor, extra, list, item;
  size_t live = live_handles();

  g_deleter_calls = 0;
  if (!EXPECT_OK(tsb_tensor_from_dlpack(&managed, &tensor))) return;
  EXPECT(tensor.type_index == TSB_TYPE_TENSOR && live_handles() == live + 1);

  /* Three more owners: a retained copy, a list, and a DLPack export. */
  extra = tensor;
  tsb_any_retain(&extra);
  EXPECT_OK(tsb_list_new(TSB_TYPE_TENSOR, &tensor, 1, &list));
  EXPECT_OK(tsb_list_get(&list, 0, &item));
  if (EXPECT_OK(tsb_tensor_to_dlpack(&item, &view))) {
    /* Zero copy both ways: the export reads the host's own buffer. */
    EXPECT(view->dl_tensor.data == (void*)g_buffer);
    EXPECT(view->dl_tensor.ndim == 2 && view->dl_tensor.shape[0] == 2 &&
           view->dl_tensor.shape[1] == 2);
    EXPECT(view->dl_tensor.dtype.code == kDLFloat && view->dl_tensor.dtype.bits == 64);
  }
  tsb_any_release(&item);
  tsb_any_release(&tensor);
  tsb_any_release(&extra);
  tsb_any_release(&list);
  EXPECT(live_handles() == live);
  EXPECT(g_deleter_calls == 0); /* the export still holds the storage */
  if (view != NULL) view->deleter(view);
  EXPECT(g_deleter_calls == 1);

  /* On failure the caller keeps ownership: no deleter call, no handle. */
  bad.dl_tensor.device.device_type = kDLOpenCL;
  EXPECT_FAILS(tsb_tensor_from_dlpack(&bad, &tensor), TSB_ERR_INVALID_ARGUMENT);
  EXPECT(g_deleter_calls == 1 && live_handles() == live);
}

/* tsb_any_get_id: equal for values sharing one object, 0 for inline ones. */
static void test_value_id(void) {
  static const int64_t data[] = {1, 2};
  tsb_any a, b, copy, same, other, item;
  int32_t list_of_int, list_of_float;
  uint64_t id_a = 0, id_b = 0, id = 7;

  EXPECT_OK(tsb_list_new_int(data, 2, &a));
  EXPECT_OK(tsb_list_new_int(data, 2, &b));
  EXPECT_OK(tsb_any_get_id(&a, &id_a));
  EXPECT_OK(tsb_any_get_id(&b, &id_b));
  EXPECT(id_a != 0 && id_b != 0 && id_a != id_b); /* equal lists, two objects */
  copy = a;
  tsb_any_retain(&copy);
  EXPECT_OK(tsb_any_get_id(&copy, &id));
  EXPECT(id == id_a);
  /* Coercion to the type it has shares the list; to another type copies. */
  EXPECT_OK(tsb_type_parse("List[int]", &list_of_int));
  EXPECT_OK(tsb_type_parse("List[float]", &list_of_float));
  EXPECT_OK(tsb_any_coerce(&a, list_of_int, &same));
  EXPECT_OK(tsb_any_get_id(&same, &id));
  EXPECT(id == id_a);
  EXPECT_OK(tsb_any_coerce(&a, list_of_float, &other));
  EXPECT_OK(tsb_any_get_id(&other, &id));
  EXPECT(id != id_a && id != 0);
  EXPECT_OK(tsb_list_get(&a, 0, &item));
  EXPECT_OK(tsb_any_get_id(&item, &id));
  EXPECT(id == 0); /* an inline int */
  EXPECT_FAILS(tsb_any_get_id(&a, NULL), TSB_ERR_INVALID_ARGUMENT);
  tsb_any_release(&a);
  tsb_any_release(&b);
  tsb_any_release(&copy);
  tsb_any_release(&same);
  tsb_any_release(&other);
}

int main(void) {
  test_version();
  test_scalars_inline();
  test_str();
  test_list_int64();
  test_list_coerce();
  test_dict();
  test_type_errors();
  test_null_arguments();
  test_out_of_range();
  test_type_info();
  test_dlpack();
  test_value_id();
  EXPECT(live_handles() == 0);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed > 0 ? 1 : 0;
}
