# The R host for the lltm plugin, as host.c is the C host: calls the cell
# by name (tsb_ops$lltm$cell, the operator), then trains the LLTM's weights
# and bias for a few SGD steps through the ABI's autograd.
#
#   Rscript host.R lltm.so start.json STEPS LR
#
# start.json is a Dict[str, Tensor] in tsbridge's JSON form (docs/json.md)
# with input, weights, bias, old_h, old_cell and target. Prints each step's
# loss, then the trained weights and bias as JSON (the lines host.c prints;
# tests/lltm/check_lltm.py compares them with PyTorch).
library(tsbridge)
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 4) stop("usage: Rscript host.R lltm.so start.json STEPS LR")
invisible(tsb_load_plugin(args[1]))
s <- tsb_from_json(paste(readLines(args[2], warn = FALSE), collapse = ""), "Dict[str, Tensor]")
steps <- as.integer(args[3])
lr <- as.double(args[4])
aten <- tsb_ops$aten
cell <- tsb_ops$lltm$cell  # the plugin's operator, by name: formals from its schema

state <- cell(s$input, s$weights, s$bias, s$old_h, s$old_cell)
cat("operator lltm::cell returns: ", class(state)[1], "(", paste(names(state), collapse = ", "),
    ")\n", sep = "")

# Training: loss = sum((h - target)^2), SGD on weights and bias.
params <- list(weights = s$weights, bias = s$bias)
for (p in params) tsb_requires_grad(p) <- TRUE
for (i in seq_len(steps) - 1L) {
  for (p in params) tsb_zero_grad(p)
  h <- cell(s$input, params$weights, params$bias, s$old_h, s$old_cell)$new_h
  diff <- aten$sub(h, s$target)
  loss <- aten$sum(aten$mul(diff, diff))
  tsb_backward(loss)
  cat(sprintf("loss %d %.17g\n", i, as.double(tsb_detach(loss))))
  tsb_with_no_grad(for (p in params) aten$add_(p, tsb_grad(p), alpha = -lr))
}
cat("weights", tsb_to_json(params$weights, "Tensor"), "\n")
cat("bias", tsb_to_json(params$bias, "Tensor"), "\n")
