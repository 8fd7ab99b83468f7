# Train in R, deploy anywhere (docs/autograd.md), as train_mlp.c does from
# C and R torch's JIT post does with R torch: a small MLP built from
# operators (aten::linear, aten::relu, aten::dropout) with its parameters as
# tensors, trained with plain SGD through the ABI's autograd, traced in eval
# mode and saved; torch.jit.load in Python then predicts what R predicted
# (tests/core/runtime/check_deploy.py).
#
#   Rscript train.R OUT_DIR    writes OUT_DIR/mlp.pt and OUT_DIR/predictions.json
#
# Stops with an error if the loss does not at least halve or the traced
# graph still has a dropout.
library(tsbridge)
out_dir <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(out_dir)) stop("usage: Rscript train.R OUT_DIR")
aten <- tsb_ops$aten
epochs <- 200
lr <- 0.1

# A toy regression: y = x1 * x2 + 0.5 x1 on [-1, 1)^2.
set.seed(15)
x <- matrix(stats::runif(64 * 2, -1, 1), ncol = 2)
X <- tsb_tensor(x)                                    # zero copy: R's memory
Y <- tsb_tensor(matrix(x[, 1] * x[, 2] + 0.5 * x[, 1], ncol = 1))

# Parameters: tensors of their own (aten::clone) that require grad.
parameter <- function(a) {
  p <- aten$clone(tsb_tensor(a))
  tsb_requires_grad(p) <- TRUE
  p
}
params <- list(w1 = parameter(matrix(stats::runif(16 * 2, -0.7, 0.7), 16)),
               b1 = parameter(stats::runif(16, -0.1, 0.1)),
               w2 = parameter(matrix(stats::runif(16, -0.25, 0.25), 1)),
               b2 = parameter(0))

# linear -> relu -> (dropout, in training only) -> linear. In eval mode
# dropout is the identity, so it is not called and a trace records none.
forward <- function(p, x, training) {
  h <- aten$relu(aten$linear(x, p$w1, p$b1))
  if (training) h <- aten$dropout(h, 0.2, TRUE)
  aten$linear(h, p$w2, p$b2)
}

# Training: full-batch SGD on the mean squared error.
losses <- numeric(epochs)
for (epoch in seq_len(epochs)) {
  loss <- aten$mse_loss(forward(params, X, TRUE), Y)
  tsb_backward(loss)
  losses[epoch] <- as.double(tsb_detach(loss))
  tsb_with_no_grad(for (p in params) {
    aten$add_(p, tsb_grad(p), alpha = -lr)
    tsb_zero_grad(p)
  })
  if (epoch %% 50 == 1 || epoch == epochs) cat(sprintf("epoch %d loss %.6f\n", epoch, losses[epoch]))
}
if (!(losses[epochs] < 0.5 * losses[1])) {
  stop(sprintf("training did not reduce the loss enough: %f -> %f", losses[1], losses[epochs]))
}

# Trace in eval mode with detached parameters (the tracer records them as
# constants; one that requires grad cannot be), check, save, predict.
frozen <- lapply(params, tsb_detach)
traced <- tsb_trace(function(x) forward(frozen, x, FALSE), list(X))
if (grepl("dropout", traced$graph, fixed = TRUE)) stop("the traced graph has a dropout:\n", traced$graph)
traced$save(file.path(out_dir, "mlp.pt"))
predictions <- tsb_with_no_grad(forward(params, X, FALSE))
stopifnot(identical(as.array(traced$forward(X)), as.array(predictions)))
writeLines(paste0('{"x": ', tsb_to_json(X, "Tensor"), ', "predictions": ',
                  tsb_to_json(predictions, "Tensor"), "}"),
           file.path(out_dir, "predictions.json"))
cat(sprintf("saved %s; loss %.6f -> %.6f\n", file.path(out_dir, "mlp.pt"), losses[1], losses[epochs]))
