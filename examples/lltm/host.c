/* A C host for the lltm plugin: calls the cell by name (as a tsbridge
 * function and as a dispatcher operator), then trains the LLTM's weights
 * and bias for a few SGD steps through the ABI's autograd.
 *
 *   lltm_host lltm.so start.json STEPS LR
 *
 * start.json is a Dict[str, Tensor] in tsbridge's JSON form (docs/json.md)
 * with input, weights, bias, old_h, old_cell and target. Prints each step's
 * loss, then the trained weights and bias as JSON. Exits non-zero on any
 * error. */
#include <stdio.h>
#include <stdlib.h>
#include <tsbridge/tsbridge.h>

#define CHECK(call)                                                   \
  do {                                                                \
    tsb_status* s_ = (call);                                          \
    if (s_ != NULL) {                                                 \
      fprintf(stderr, "%s: %s\n", #call, tsb_status_get_message(s_)); \
      tsb_status_free(s_);                                            \
      exit(1);                                                        \
    }                                                                 \
  } while (0)

enum { INPUT, WEIGHTS, BIAS, OLD_H, OLD_CELL, TARGET, NUM_TENSORS };
static const char* const kNames[NUM_TENSORS] = {"input",    "weights", "bias",
                                                "old_h",    "old_cell", "target"};

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  long size;
  char* text;
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)size + 1);
  if (text == NULL || fread(text, 1, (size_t)size, f) != (size_t)size) exit(1);
  text[size] = '\0';
  fclose(f);
  return text;
}

/* Calls operator `name` with positional arguments: a new reference. */
static tsb_any op(const char* name, const tsb_any* args, size_t n) {
  tsb_call_args a = tsb_call_args_make(args, n);
  tsb_any out;
  CHECK(tsb_op_call(name, &a, &out));
  return out;
}

/* Prints the qualified name and the fields of a record. */
static void print_record(const char* label, const tsb_any* v) {
  tsb_type_info info;
  size_t i;
  info.struct_size = sizeof(info);
  CHECK(tsb_type_get_info(v->type_index, &info));
  printf("%s: %s(", label, info.name);
  for (i = 0; i < info.num_fields; ++i) printf("%s%s", i ? ", " : "", info.field_names[i]);
  printf(")\n");
}

static void print_json(const char* label, const tsb_any* v) {
  char* json = NULL;
  CHECK(tsb_json_write(v, &json));
  printf("%s %s\n", label, json);
  tsb_string_free(json);
}

/* p -= lr * p.grad, in place, with grad mode off (an SGD step). */
static void sgd_step(const tsb_any* p, double lr) {
  tsb_any grad, updated;
  tsb_any args[2];
  const char* kw_names[1] = {"alpha"};
  tsb_any kw_values[1];
  tsb_call_args a;
  bool was;
  CHECK(tsb_tensor_get_grad(p, &grad));
  args[0] = *p;
  args[1] = grad;
  kw_values[0] = tsb_any_float(-lr);
  a = tsb_call_args_make(args, 2);
  a.kw_names = kw_names;
  a.kw_values = kw_values;
  a.num_kwargs = 1;
  CHECK(tsb_grad_mode_set(false, &was));
  CHECK(tsb_op_call("aten::add_", &a, &updated));
  CHECK(tsb_grad_mode_set(was, NULL));
  tsb_any_release(&updated);
  tsb_any_release(&grad);
}

int main(int argc, char** argv) {
  tsb_any start, t[NUM_TENSORS], state, h, diff, square, loss, value;
  tsb_call_args cell_args;
  int32_t dict_type;
  int i, steps;
  double lr, loss_value;
  char* text;
  if (argc != 5) {
    fprintf(stderr, "usage: %s lltm.so start.json STEPS LR\n", argv[0]);
    return 2;
  }
  steps = atoi(argv[3]);
  lr = atof(argv[4]);
  CHECK(tsb_plugin_load_bundled()); /* Tuple, NamedTuple: the records */
  CHECK(tsb_plugin_load(argv[1], NULL));

  text = read_file(argv[2]);
  CHECK(tsb_type_parse("Dict[str, Tensor]", &dict_type));
  CHECK(tsb_json_read(text, dict_type, &start));
  free(text);
  for (i = 0; i < NUM_TENSORS; ++i) {
    tsb_any key = tsb_any_borrowed_str(kNames[i]);
    CHECK(tsb_dict_get(&start, &key, &t[i]));
  }
  cell_args = tsb_call_args_make(t, 5); /* input, weights, bias, old_h, old_cell */

  /* By name: the plugin's function returns its record, the operator the
   * NamedTuple its schema names. */
  CHECK(tsb_function_call("lltm::cell", &cell_args, &state));
  print_record("function lltm::cell returns", &state);
  tsb_any_release(&state);
  CHECK(tsb_op_call("lltm::cell", &cell_args, &state));
  print_record("operator lltm::cell returns", &state);
  tsb_any_release(&state);

  /* Training: loss = sum((h - target)^2), SGD on weights and bias. */
  CHECK(tsb_tensor_set_requires_grad(&t[WEIGHTS], true));
  CHECK(tsb_tensor_set_requires_grad(&t[BIAS], true));
  for (i = 0; i < steps; ++i) {
    tsb_any pair[2];
    CHECK(tsb_tensor_zero_grad(&t[WEIGHTS]));
    CHECK(tsb_tensor_zero_grad(&t[BIAS]));
    CHECK(tsb_function_call("lltm::cell", &cell_args, &state));
    CHECK(tsb_any_get_field(&state, "h", &h));
    pair[0] = h;
    pair[1] = t[TARGET];
    diff = op("aten::sub", pair, 2);
    pair[0] = diff;
    pair[1] = diff;
    square = op("aten::mul", pair, 2);
    loss = op("aten::sum", &square, 1);
    CHECK(tsb_autograd_backward(&loss, 1, NULL, false));
    value = op("aten::item", &loss, 1);
    CHECK(tsb_float_get(&value, &loss_value));
    printf("loss %d %.17g\n", i, loss_value);
    sgd_step(&t[WEIGHTS], lr);
    sgd_step(&t[BIAS], lr);
    tsb_any_release(&value);
    tsb_any_release(&loss);
    tsb_any_release(&square);
    tsb_any_release(&diff);
    tsb_any_release(&h);
    tsb_any_release(&state);
  }
  print_json("weights", &t[WEIGHTS]);
  print_json("bias", &t[BIAS]);
  for (i = 0; i < NUM_TENSORS; ++i) tsb_any_release(&t[i]);
  tsb_any_release(&start);
  return 0;
}
