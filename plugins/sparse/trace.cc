// Tracing for the operators that return `Tensor?` (spmm's arg_out, the
// optional value of coalesce, transpose and the CSR/CSC conversions).
// LibTorch 1.13's generic Tracer fallback records Tensor and Tensor[]
// returns only ("unsupported output type: Tensor?"), so these operators get
// this boxed Tracer kernel: the same recording, plus Optional[Tensor]
// outputs unwrapped for the operations traced after them.
#include <ATen/TracerMode.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/library.h>

namespace torchsparse {
namespace {

namespace jit = torch::jit;
namespace tracer = torch::jit::tracer;

void AddInput(jit::Node* node, const std::shared_ptr<tracer::TracingState>& state,
              const c10::Argument& arg, const c10::IValue& value) {
  const char* name = arg.name().c_str();
  if (value.isNone()) {
    node->addInput(state->graph->insertNode(state->graph->createNone())->output());
  } else if (value.isTensor()) {
    tracer::addInputs(node, name, value.toTensor());
  } else if (value.isInt()) {
    tracer::addInputs(node, name, value.toInt());
  } else if (value.isBool()) {
    tracer::addInputs(node, name, value.toBool());
  } else if (value.isString()) {
    tracer::addInputs(node, name, c10::string_view(value.toStringRef()));
  } else if (value.isIntList()) {
    tracer::addInputs(node, name, c10::IntArrayRef(value.toIntVector()));
  } else {
    TORCH_CHECK(false, "torchsparse: cannot trace argument '", arg.name(), "' of type ",
                arg.type()->str());
  }
}

void AddOutput(jit::Node* node, const std::shared_ptr<tracer::TracingState>& state,
               const c10::Argument& ret, const c10::IValue& value) {
  if (ret.type()->kind() == c10::TypeKind::TensorType) {
    tracer::addOutput(node, value.toTensor());
    return;
  }
  // Tensor?: the node's output is optional; a present tensor is traced
  // onwards through an unwrap, None needs no value.
  jit::Value* out = node->addOutput()->setType(c10::OptionalType::ofTensor());
  if (value.isNone()) return;
  jit::Node* unwrap = state->graph->insertNode(
      state->graph->create(c10::prim::unchecked_unwrap_optional, {out}));
  unwrap->output()->setType(c10::TensorType::get());
  state->setValue(value.toTensor(), unwrap->output());
}

void TraceBoxed(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  std::shared_ptr<tracer::TracingState> state = tracer::getTracingState();
  const c10::FunctionSchema& schema = op.schema();
  jit::Node* node = nullptr;
  if (state) {
    node = state->createNode(c10::Symbol::fromQualString(schema.name()), /*num_outputs=*/0);
    tracer::recordSourceLocation(node);
    const size_t n = schema.arguments().size();
    for (size_t i = 0; i < n; ++i) {
      AddInput(node, state, schema.arguments()[i], (*stack)[stack->size() - n + i]);
    }
    state->graph->insertNode(node);
    tracer::setTracingState(nullptr);
  }
  {
    at::tracer::impl::NoTracerDispatchMode below_tracer;
    op.callBoxed(stack);
  }
  if (state) {
    tracer::setTracingState(state);
    const size_t n = schema.returns().size();
    for (size_t i = 0; i < n; ++i) {
      AddOutput(node, state, schema.returns()[i], (*stack)[stack->size() - n + i]);
    }
  }
}

}  // namespace
}  // namespace torchsparse

TORCH_LIBRARY_IMPL(torchsparse, Tracer, m) {
  for (const char* op : {"spmm", "coalesce", "transpose", "csr_to_csc", "csc_to_csr"}) {
    m.impl(op, torch::CppFunction::makeFromBoxedFunction<&torchsparse::TraceBoxed>());
  }
}
