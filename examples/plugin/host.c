/* A C host for the mysparse plugin: loads the bundled plugins (Tuple,
 * Optional) and the plugin named on the command line, calls its functions
 * and reads the results generically. Exits non-zero if anything is off. */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <tsbridge/tsbridge.h>

/* Positional arguments as the call functions take them (a C99 compound
 * literal: valid for the enclosing block). */
#define CALL_ARGS(args, n) (&(tsb_call_args){sizeof(tsb_call_args), (args), (n), NULL, NULL, 0})

#define CHECK(call)                                           \
  do {                                                        \
    tsb_status* s_ = (call);                                  \
    if (s_ != NULL) {                                         \
      fprintf(stderr, "%s: %s\n", #call, tsb_status_get_message(s_)); \
      tsb_status_free(s_);                                    \
      return 1;                                               \
    }                                                         \
  } while (0)

/* A host-owned int64 vector, lent to tsbridge without a copy. */
typedef struct {
  DLManagedTensor managed;
  int64_t shape[1];
} HostVector;

static void no_op_deleter(DLManagedTensor* self) { (void)self; }

static tsb_status* wrap(HostVector* v, int64_t* data, int64_t n, tsb_any* out) {
  DLTensor* t = &v->managed.dl_tensor;
  v->shape[0] = n;
  t->data = data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = 1;
  t->dtype.code = kDLInt;
  t->dtype.bits = 64;
  t->dtype.lanes = 1;
  t->shape = v->shape;
  t->strides = NULL;
  t->byte_offset = 0;
  v->managed.manager_ctx = NULL;
  v->managed.deleter = no_op_deleter;
  return tsb_tensor_from_dlpack(&v->managed, out);
}

/* Prints a 1-d int64 tensor through DLPack. */
static tsb_status* print_tensor(const char* label, const tsb_any* tensor) {
  struct DLManagedTensor* m = NULL;
  int64_t i;
  tsb_status* s = tsb_tensor_to_dlpack(tensor, &m);
  if (s != NULL) return s;
  printf("%s = [", label);
  for (i = 0; i < m->dl_tensor.shape[0]; ++i) {
    printf("%s%lld", i ? ", " : "", (long long)((int64_t*)m->dl_tensor.data)[i]);
  }
  printf("]\n");
  m->deleter(m);
  return NULL;
}

int main(int argc, char** argv) {
  static int64_t row[] = {0, 0, 2, 3};
  static int64_t col[] = {7, 3, 7, 9}, idx[] = {7, 9};
  HostVector row_v, col_v, idx_v;
  tsb_any args[4], summary, nnz, counts, pair, named, first;
  int32_t pair_type;
  int64_t n = 0;
  tsb_schema_info schema = {sizeof(tsb_schema_info)};
  if (argc != 2) {
    fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
    return 2;
  }
  CHECK(tsb_plugin_load_bundled());
  CHECK(tsb_plugin_load(argv[1], NULL));
  CHECK(tsb_function_get_schema("mysparse::summarize", &schema));
  printf("%s\n", schema.schema);

  /* summarize(row, 4, 5, True) -> mysparse.Summary, a NamedTuple */
  CHECK(wrap(&row_v, row, 4, &args[0]));
  args[1] = tsb_any_int(4);
  args[2] = tsb_any_int(5);
  args[3] = tsb_any_bool(1);
  CHECK(tsb_function_call("mysparse::summarize", CALL_ARGS(args, 4), &summary));
  tsb_any_release(&args[0]);
  CHECK(tsb_any_get_field(&summary, "nnz", &nnz));
  CHECK(tsb_int_get(&nnz, &n));
  printf("nnz = %lld\n", (long long)n);
  CHECK(tsb_any_get_field(&summary, "row_counts", &counts));
  CHECK(print_tensor("row_counts", &counts));
  tsb_any_release(&counts);
  tsb_any_release(&summary);

  /* relabel(col, idx) -> mysparse.tensor_pair; a plain Tuple[Tensor, Tensor]
   * would become the record by coercion too. */
  CHECK(wrap(&col_v, col, 4, &args[0]));
  CHECK(wrap(&idx_v, idx, 2, &args[1]));
  CHECK(tsb_function_call("mysparse::relabel", CALL_ARGS(args, 2), &pair));
  tsb_any_release(&args[0]);
  tsb_any_release(&args[1]);
  CHECK(tsb_type_parse("mysparse.tensor_pair", &pair_type));
  if (pair.type_index != pair_type) {
    fprintf(stderr, "relabel did not return a mysparse.tensor_pair\n");
    return 1;
  }
  CHECK(tsb_any_coerce(&pair, pair_type, &named));
  CHECK(tsb_any_get_field(&named, "first", &first));
  CHECK(print_tensor("relabelled", &first));
  tsb_any_release(&first);
  tsb_any_release(&named);
  tsb_any_release(&pair);

  /* Errors name the function and the argument. */
  {
    tsb_any bad[4], out;
    tsb_status* s;
    bad[0] = tsb_any_int(0);
    bad[1] = tsb_any_borrowed_str("4");
    bad[2] = tsb_any_int(5);
    bad[3] = tsb_any_bool(0);
    CHECK(wrap(&row_v, row, 4, &bad[0]));
    s = tsb_function_call("mysparse::summarize", CALL_ARGS(bad, 4), &out);
    printf("%s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    bad[1] = tsb_any_int(0);
    s = tsb_function_call("mysparse::summarize", CALL_ARGS(bad, 4), &out);
    printf("%s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    tsb_any_release(&bad[0]);
  }

  size_t live = 0;
  CHECK(tsb_handle_count(&live));
  if (n != 4 || live != 0) {
    fprintf(stderr, "unexpected: nnz %lld, %zu live handles\n", (long long)n, live);
    return 1;
  }
  printf("ok\n");
  return 0;
}
