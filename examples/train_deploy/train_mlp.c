/* Train in a host, deploy anywhere, from C (docs/autograd.md): a small MLP
 * built from operators (aten::linear, aten::relu, aten::dropout) with its
 * parameters as tensors, trained with plain SGD through the ABI's
 * autograd, traced in eval mode and saved; torch.jit.load in Python then
 * predicts what this host predicted (tests/core/runtime/check_deploy.py).
 *
 *   tsb_train_mlp OUT_DIR    writes OUT_DIR/mlp.pt and OUT_DIR/predictions.json
 *
 * C99 with no extensions. Exits non-zero if the loss does not go down or
 * the traced graph still has a dropout. */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

enum { N = 64, IN = 2, HIDDEN = 16, EPOCHS = 200 };
static const double kLearningRate = 0.1;
static const double kDropout = 0.2;

/* ------------------------------------------------------------ tensors */

/* A float64 tensor copied from host memory: DLPack lends the array without
 * a copy, aten::clone makes a tensor that owns its data. */
static tsb_any tensor_from(const double* data, int64_t rows, int64_t cols) {
  DLManagedTensor managed;
  int64_t shape[2];
  tsb_any borrowed, owned;
  tsb_call_args args;
  memset(&managed, 0, sizeof(managed));
  shape[0] = rows;
  shape[1] = cols;
  managed.dl_tensor.data = (void*)data;
  managed.dl_tensor.device.device_type = kDLCPU;
  managed.dl_tensor.ndim = cols > 0 ? 2 : 1;
  managed.dl_tensor.dtype.code = kDLFloat;
  managed.dl_tensor.dtype.bits = 64;
  managed.dl_tensor.dtype.lanes = 1;
  managed.dl_tensor.shape = shape;
  managed.deleter = NULL; /* the array is ours; nothing to free */
  CHECK(tsb_tensor_from_dlpack(&managed, &borrowed));
  args = tsb_call_args_make(&borrowed, 1);
  CHECK(tsb_op_call("aten::clone", &args, &owned));
  tsb_any_release(&borrowed);
  return owned;
}

static tsb_any op(const char* name, const tsb_any* args, size_t n) {
  tsb_call_args a = tsb_call_args_make(args, n);
  tsb_any out;
  CHECK(tsb_op_call(name, &a, &out));
  return out;
}

/* A number in [-1, 1) from a fixed LCG: the same data on every platform. */
static double uniform(unsigned long* state) {
  *state = (*state * 6364136223846793005ul + 1442695040888963407ul) & 0xfffffffffffful;
  return (double)(*state >> 16) / 4294967296.0 * 2.0 - 1.0;
}

/* ---------------------------------------------------------------- model */

typedef struct {
  tsb_any w1, b1, w2, b2; /* parameters: leaves that require grad */
} Mlp;

static tsb_any* parameter(Mlp* m, int i) {
  tsb_any* all[4];
  all[0] = &m->w1;
  all[1] = &m->b1;
  all[2] = &m->w2;
  all[3] = &m->b2;
  return all[i];
}

/* linear -> relu -> (dropout, in training only) -> linear. In eval mode the
 * dropout is not called at all, so a trace records none. */
static tsb_any forward(const Mlp* m, const tsb_any* x, bool training) {
  tsb_any args[3], h, r, out;
  args[0] = *x;
  args[1] = m->w1;
  args[2] = m->b1;
  h = op("aten::linear", args, 3);
  r = op("aten::relu", &h, 1);
  tsb_any_release(&h);
  if (training) {
    args[0] = r;
    args[1] = tsb_any_float(kDropout);
    args[2] = tsb_any_bool(true);
    h = op("aten::dropout", args, 3);
    tsb_any_release(&r);
    r = h;
  }
  args[0] = r;
  args[1] = m->w2;
  args[2] = m->b2;
  out = op("aten::linear", args, 3);
  tsb_any_release(&r);
  return out;
}

/* p -= lr * p.grad in place, grad mode off; then the gradient is zeroed. */
static void sgd_step(tsb_any* p) {
  tsb_any grad, updated, args[2];
  const char* kw_names[1] = {"alpha"};
  tsb_any kw_values[1];
  tsb_call_args a;
  CHECK(tsb_tensor_get_grad(p, &grad));
  args[0] = *p;
  args[1] = grad;
  kw_values[0] = tsb_any_float(-kLearningRate);
  a = tsb_call_args_make(args, 2);
  a.kw_names = kw_names;
  a.kw_values = kw_values;
  a.num_kwargs = 1;
  CHECK(tsb_op_call("aten::add_", &a, &updated));
  CHECK(tsb_tensor_zero_grad(p));
  tsb_any_release(&updated);
  tsb_any_release(&grad);
}

/* The trace callback: the model in eval mode on the traced input. The
 * parameters it closes over are detached copies, so the tracer records
 * them as constants (a tensor that requires grad cannot be one). */
static tsb_status* traced_forward(void* user_data, const tsb_any* inputs, size_t n,
                                  tsb_any* output) {
  (void)n;
  *output = forward((const Mlp*)user_data, &inputs[0], false);
  return NULL;
}

static void write_json(FILE* f, const char* key, const tsb_any* v, const char* sep) {
  char* json = NULL;
  CHECK(tsb_json_write(v, &json));
  fprintf(f, "\"%s\": %s%s", key, json, sep);
  tsb_string_free(json);
}

int main(int argc, char** argv) {
  static double xs[N * IN], ys[N], w1[HIDDEN * IN], b1[HIDDEN], w2[HIDDEN], b2[1];
  unsigned long rng = 15;
  Mlp model, frozen;
  tsb_any x, y, out, loss, value, args[2], predictions;
  tsb_module* traced = NULL;
  char path[4096], *graph = NULL;
  double first_loss = 0.0, last_loss = 0.0;
  bool was;
  FILE* f;
  int i, epoch;
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  CHECK(tsb_plugin_load_bundled()); /* Optional: aten::linear's `Tensor? bias` */
  /* A toy regression: y = x0 * x1 + 0.5 x0 on [-1, 1)^2. */
  for (i = 0; i < N; ++i) {
    xs[i * IN] = uniform(&rng);
    xs[i * IN + 1] = uniform(&rng);
    ys[i] = xs[i * IN] * xs[i * IN + 1] + 0.5 * xs[i * IN];
  }
  for (i = 0; i < HIDDEN * IN; ++i) w1[i] = uniform(&rng) * 0.7;
  for (i = 0; i < HIDDEN; ++i) b1[i] = uniform(&rng) * 0.1;
  for (i = 0; i < HIDDEN; ++i) w2[i] = uniform(&rng) * 0.25;
  b2[0] = 0.0;
  x = tensor_from(xs, N, IN);
  y = tensor_from(ys, N, 1);
  model.w1 = tensor_from(w1, HIDDEN, IN);
  model.b1 = tensor_from(b1, HIDDEN, 0);
  model.w2 = tensor_from(w2, 1, HIDDEN);
  model.b2 = tensor_from(b2, 1, 0);
  for (i = 0; i < 4; ++i) CHECK(tsb_tensor_set_requires_grad(parameter(&model, i), true));

  /* Training: full-batch SGD on the mean squared error. */
  for (epoch = 0; epoch < EPOCHS; ++epoch) {
    out = forward(&model, &x, true);
    args[0] = out;
    args[1] = y;
    loss = op("aten::mse_loss", args, 2);
    CHECK(tsb_autograd_backward(&loss, 1, NULL, false));
    value = op("aten::item", &loss, 1);
    CHECK(tsb_float_get(&value, &last_loss));
    if (epoch == 0) first_loss = last_loss;
    if (epoch % 50 == 0 || epoch == EPOCHS - 1) printf("epoch %d loss %.6f\n", epoch, last_loss);
    CHECK(tsb_grad_mode_set(false, &was));
    for (i = 0; i < 4; ++i) sgd_step(parameter(&model, i));
    CHECK(tsb_grad_mode_set(was, NULL));
    tsb_any_release(&value);
    tsb_any_release(&loss);
    tsb_any_release(&out);
  }
  if (!(last_loss < 0.5 * first_loss)) {
    fprintf(stderr, "training did not reduce the loss enough: %f -> %f\n", first_loss, last_loss);
    return 1;
  }

  /* Trace in eval mode with detached parameters, save, predict. */
  for (i = 0; i < 4; ++i) CHECK(tsb_tensor_detach(parameter(&model, i), parameter(&frozen, i)));
  CHECK(tsb_module_trace(traced_forward, &frozen, &x, 1, &traced));
  CHECK(tsb_module_get_graph(traced, "forward", &graph));
  if (strstr(graph, "dropout") != NULL) {
    fprintf(stderr, "the traced graph has a dropout:\n%s\n", graph);
    return 1;
  }
  tsb_string_free(graph);
  snprintf(path, sizeof(path), "%s/mlp.pt", argv[1]);
  CHECK(tsb_module_save(traced, path));
  CHECK(tsb_grad_mode_set(false, &was));
  predictions = forward(&model, &x, false);
  CHECK(tsb_grad_mode_set(was, NULL));

  snprintf(path, sizeof(path), "%s/predictions.json", argv[1]);
  f = fopen(path, "w");
  if (f == NULL) return 1;
  fprintf(f, "{");
  write_json(f, "x", &x, ", ");
  write_json(f, "predictions", &predictions, "}\n");
  fclose(f);
  printf("saved %s/mlp.pt; loss %.6f -> %.6f\n", argv[1], first_loss, last_loss);

  tsb_module_free(traced);
  tsb_any_release(&predictions);
  for (i = 0; i < 4; ++i) {
    tsb_any_release(parameter(&model, i));
    tsb_any_release(parameter(&frozen, i));
  }
  tsb_any_release(&x);
  tsb_any_release(&y);
  return 0;
}
