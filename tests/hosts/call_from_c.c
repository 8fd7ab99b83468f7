/* A C host for same_message_test.py: calls METHOD of MODULE with the
 * positional arguments of a JSON array (and the keyword arguments of a JSON
 * object), each read untyped (tsb_json_read with Any) and converted by the
 * call itself, as a C host that does not look at the schema would; prints
 * the result as JSON, or the error message (exit code 1). MODULE "-" calls
 * the operator named METHOD ("aten::add"). With TSB_SEED=N in the
 * environment it first seeds LibTorch's generator as a C host does: the
 * operator aten::manual_seed with one int (docs/runtime.md, "Seeding").
 *
 *   call_from_c MODULE METHOD ARGS_JSON [KWARGS_JSON] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsbridge/tsbridge.h"

static int fail(tsb_status* s) {
  printf("%s\n", tsb_status_get_message(s));
  tsb_status_free(s);
  return 1;
}

int main(int argc, char** argv) {
  tsb_module* module = NULL;
  tsb_any args = tsb_any_none(), kwargs = tsb_any_none(), result = tsb_any_none();
  tsb_any *items = NULL, *names = NULL, *values = NULL;
  const char** kw_names = NULL;
  size_t n = 0, k = 0, i;
  tsb_status* s;
  char* json = NULL;
  tsb_call_args call;
  int code = 1;
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s MODULE METHOD ARGS_JSON [KWARGS_JSON]\n", argv[0]);
    return 2;
  }
  if ((s = tsb_plugin_defer_bundled()) != NULL) return fail(s);
  if (strcmp(argv[1], "-") != 0 && (s = tsb_module_load(argv[1], &module)) != NULL) {
    return fail(s);
  }
  if (getenv("TSB_SEED") != NULL) {
    tsb_any seed = tsb_any_int(strtoll(getenv("TSB_SEED"), NULL, 10));
    tsb_call_args one = tsb_call_args_make(&seed, 1);
    if ((s = tsb_op_call("aten::manual_seed", &one, &result)) != NULL) return fail(s);
    tsb_any_release(&result);
  }
  if ((s = tsb_json_read(argv[3], TSB_TYPE_ANY, &args)) != NULL ||
      (s = tsb_any_len(&args, &n)) != NULL) {
    code = fail(s);
    goto done;
  }
  items = calloc(n + 1, sizeof *items);
  if ((s = tsb_list_get_items(&args, n, items)) != NULL) {
    code = fail(s);
    goto done;
  }
  call = tsb_call_args_make(items, n);
  if (argc == 5) {
    if ((s = tsb_json_read(argv[4], TSB_TYPE_ANY, &kwargs)) != NULL ||
        (s = tsb_any_len(&kwargs, &k)) != NULL) {
      code = fail(s);
      goto done;
    }
    names = calloc(k + 1, sizeof *names);
    values = calloc(k + 1, sizeof *values);
    kw_names = calloc(k + 1, sizeof *kw_names);
    if ((s = tsb_dict_get_items(&kwargs, k, names, values)) != NULL) {
      code = fail(s);
      goto done;
    }
    for (i = 0; i < k; ++i) {
      size_t len = 0;
      tsb_str_get(&names[i], &kw_names[i], &len);
    }
    call.kw_names = kw_names;
    call.kw_values = values;
    call.num_kwargs = k;
  }
  s = module != NULL ? tsb_module_call(module, argv[2], &call, &result)
                     : tsb_op_call(argv[2], &call, &result);
  if (s != NULL || (s = tsb_json_write(&result, &json)) != NULL) {
    code = fail(s);
    goto done;
  }
  printf("%s\n", json);
  tsb_string_free(json);
  code = 0;
done:
  for (i = 0; items != NULL && i < n; ++i) tsb_any_release(&items[i]);
  for (i = 0; names != NULL && i < k; ++i) tsb_any_release(&names[i]);
  for (i = 0; values != NULL && i < k; ++i) tsb_any_release(&values[i]);
  free(items);
  free(names);
  free(values);
  free(kw_names);
  tsb_any_release(&result);
  tsb_any_release(&kwargs);
  tsb_any_release(&args);
  tsb_module_free(module);
  return code;
}
