// The LLTM cell of PyTorch's C++-extension tutorial as an out-of-tree
// tsbridge plugin: the forward and the hand-written backward are
// TORCH_LIBRARY operators, and lltm::lltm is differentiable, scriptable and
// traceable because a torch::autograd::Function runs inside its
// CompositeImplicitAutograd kernel. docs/autograd.md reads it line by line.
#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <tsbridge/plugin/codecs/all.hpp>
#include <tsbridge/plugin/plugin.hpp>

namespace lltm {

using at::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

Tensor d_sigmoid(const Tensor& z) {
  const Tensor s = z.sigmoid();
  return (1 - s) * s;
}

Tensor d_tanh(const Tensor& z) { return 1 - z.tanh().pow(2); }

// elu'(z) with alpha = 1: 1 above zero, exp(z) below.
Tensor d_elu(const Tensor& z) {
  const Tensor e = z.exp();
  return (z > 0).type_as(z) + (e - 1 < 0).type_as(z) * e;
}

// The tutorial's forward: the new state and everything backward needs.
std::vector<Tensor> forward(const Tensor& input, const Tensor& weights, const Tensor& bias,
                            const Tensor& old_h, const Tensor& old_cell) {
  TORCH_CHECK(input.dim() == 2 && old_h.dim() == 2 && old_cell.sizes() == old_h.sizes(),
              "lltm: expected input [batch, features] and old_h, old_cell [batch, state], got ",
              input.sizes(), ", ", old_h.sizes(), ", ", old_cell.sizes());
  const int64_t state = old_h.size(1);
  TORCH_CHECK(weights.dim() == 2 && weights.size(0) == 3 * state &&
                  weights.size(1) == state + input.size(1) && bias.dim() == 1 &&
                  bias.size(0) == 3 * state,
              "lltm: expected weights [", 3 * state, ", ", state + input.size(1),
              "] and bias [", 3 * state, "], got ", weights.sizes(), " and ", bias.sizes());
  const Tensor X = at::cat({old_h, input}, /*dim=*/1);
  const Tensor gate_weights = at::addmm(bias, X, weights.t());
  const std::vector<Tensor> gates = gate_weights.chunk(3, /*dim=*/1);
  const Tensor input_gate = gates[0].sigmoid();
  const Tensor output_gate = gates[1].sigmoid();
  const Tensor candidate_cell = at::elu(gates[2], /*alpha=*/1.0);
  const Tensor new_cell = old_cell + candidate_cell * input_gate;
  const Tensor new_h = new_cell.tanh() * output_gate;
  return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights};
}

// The tutorial's hand-written backward: gradients with respect to old_h,
// input, weights, bias and old_cell.
std::vector<Tensor> backward(const Tensor& grad_h, const Tensor& grad_cell,
                             const Tensor& new_cell, const Tensor& input_gate,
                             const Tensor& output_gate, const Tensor& candidate_cell,
                             const Tensor& X, const Tensor& gate_weights, const Tensor& weights) {
  Tensor d_output_gate = new_cell.tanh() * grad_h;
  const Tensor d_tanh_new_cell = output_gate * grad_h;
  const Tensor d_new_cell = d_tanh(new_cell) * d_tanh_new_cell + grad_cell;
  const Tensor d_old_cell = d_new_cell;
  Tensor d_candidate_cell = input_gate * d_new_cell;
  Tensor d_input_gate = candidate_cell * d_new_cell;
  const std::vector<Tensor> gates = gate_weights.chunk(3, /*dim=*/1);
  d_input_gate = d_input_gate * d_sigmoid(gates[0]);
  d_output_gate = d_output_gate * d_sigmoid(gates[1]);
  d_candidate_cell = d_candidate_cell * d_elu(gates[2]);
  const Tensor d_gates = at::cat({d_input_gate, d_output_gate, d_candidate_cell}, /*dim=*/1);
  const Tensor d_weights = d_gates.t().mm(X);
  const Tensor d_bias = d_gates.sum(/*dim=*/0);
  const Tensor d_X = d_gates.mm(weights);
  const int64_t state = grad_h.size(1);
  return {d_X.slice(1, 0, state), d_X.slice(1, state), d_weights, d_bias, d_old_cell};
}

// The two joined for autograd: forward saves what backward reads.
struct LLTMFunction : torch::autograd::Function<LLTMFunction> {
  static variable_list forward(AutogradContext* ctx, const Tensor& input, const Tensor& weights,
                               const Tensor& bias, const Tensor& old_h, const Tensor& old_cell) {
    std::vector<Tensor> out = lltm::forward(input, weights, bias, old_h, old_cell);
    ctx->save_for_backward({out[1], out[2], out[3], out[4], out[5], out[6], weights});
    return {out[0], out[1]};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    // An output the loss does not use has an undefined gradient.
    const Tensor grad_h = grads[0].defined() ? grads[0] : at::zeros_like(s[0]);
    const Tensor grad_cell = grads[1].defined() ? grads[1] : at::zeros_like(s[0]);
    std::vector<Tensor> d =
        lltm::backward(grad_h.contiguous(), grad_cell.contiguous(), s[0], s[1], s[2], s[3],
                       s[4], s[5], s[6]);
    // In the order of forward's inputs: input, weights, bias, old_h, old_cell.
    return {d[1], d[2], d[3], d[0], d[4]};
  }
};

// The differentiable cell: (new_h, new_cell).
std::tuple<Tensor, Tensor> cell(const Tensor& input, const Tensor& weights, const Tensor& bias,
                                const Tensor& old_h, const Tensor& old_cell) {
  variable_list out = LLTMFunction::apply(input, weights, bias, old_h, old_cell);
  return {out[0], out[1]};
}

}  // namespace lltm

// m.def(schema, fn) makes fn the CompositeImplicitAutograd kernel: one
// kernel for CPU and Autograd, the Function records the backward, and the
// tracer (above Autograd) records lltm::cell as one node.
TORCH_LIBRARY(lltm, m) {
  m.def("forward(Tensor input, Tensor weights, Tensor bias, Tensor old_h, Tensor old_cell) -> Tensor[]", &lltm::forward);
  m.def("backward(Tensor grad_h, Tensor grad_cell, Tensor new_cell, Tensor input_gate, Tensor output_gate, Tensor candidate_cell, Tensor X, Tensor gate_weights, Tensor weights) -> Tensor[]", &lltm::backward);
  m.def("cell(Tensor input, Tensor weights, Tensor bias, Tensor old_h, Tensor old_cell) -> (Tensor new_h, Tensor new_cell)", &lltm::cell);
}

// The host side: the record hosts see the cell's result as, and the cell
// as a tsbridge function returning it.
TSB_PLUGIN("lltm", "1.0") {
  r.type<std::tuple<at::Tensor, at::Tensor>>("lltm.state", {"h", "cell"});
  r.function("lltm::cell", &lltm::cell, {"input", "weights", "bias", "old_h", "old_cell"},
             "lltm.state");
}
