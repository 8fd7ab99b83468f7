# Autograd through the C ABI (docs/autograd.md): LibTorch's own engine on
# the tensors behind tsb_tensor handles. A call's result keeps its graph,
# so backward from R reaches the module's parameters and R's inputs.

#' Autograd on tensors
#'
#' LibTorch's autograd through the tsbridge ABI, as R torch spells it:
#' `tsb_requires_grad(x) <- TRUE` is `x$requires_grad_(TRUE)`, `tsb_grad(x)`
#' is `x$grad`, `tsb_backward(loss)` is `loss$backward()` (or
#' `autograd_backward()` for several outputs), `tsb_with_no_grad()` is
#' `with_no_grad()`. The same are reachable as `x$requires_grad`, `x$grad`,
#' `x$backward()`, `x$detach()` and `x$zero_grad()`.
#'
#' A `tsb_tensor` is a handle on the LibTorch tensor itself: a module call or
#' an operator call through [tsb_ops] returns tensors whose graph links back
#' to their inputs, so gradients reach the module's parameters (see
#' [tsb_module_state]) and the R host's own leaves. Gradients accumulate into
#' `grad` as in PyTorch; `tsb_zero_grad()` fills them with zeros.
#'
#' @param x a `tsb_tensor` (for `tsb_zero_grad()` also a module: every
#'   parameter).
#' @param value `TRUE` or `FALSE`. `TRUE` needs a floating point or complex
#'   tensor; `FALSE` a leaf (detach a computed tensor instead).
#' @param outputs a `tsb_tensor` or a list of them, each requiring grad.
#' @param grad_outputs `NULL` (each output must then have one element) or,
#'   per output, a tensor of its shape (a `tsb_tensor` or an R array) or
#'   `NULL`; a single tensor for a single output.
#' @param retain_graph keep the graph for another backward (else a second
#'   backward through it is a `tsb_torch_error`).
#' @param code code to evaluate with grad mode off.
#' @param enabled `TRUE` or `FALSE`: the calling thread's grad mode.
#' @param .env the frame whose exit restores grad mode.
#' @return `tsb_requires_grad()` and `tsb_grad_enabled()` a logical;
#'   `tsb_grad()` the gradient (a `tsb_tensor` sharing the `.grad` tensor)
#'   or `NULL` before any backward reached `x`; `tsb_detach()` a new
#'   `tsb_tensor` sharing `x`'s memory outside any graph;
#'   `tsb_with_no_grad()` the value of `code`; `tsb_set_grad_enabled()` the
#'   previous mode, invisibly; the others `x` or `NULL`, invisibly.
#' @examples
#' \dontrun{
#' w <- tsb_tensor(matrix(c(1, 2, 3, 4), 2))
#' tsb_requires_grad(w) <- TRUE
#' loss <- tsb_ops$aten$sum(tsb_ops$aten$mul(w, w))
#' tsb_backward(loss)
#' as.array(tsb_grad(w))                            # 2 * w
#' tsb_with_no_grad(tsb_ops$aten$add_(w, tsb_grad(w), alpha = -0.1))
#' }
#' @name tsb_autograd
NULL

#' @rdname tsb_autograd
tsb_requires_grad <- function(x) .Call(tsbr_requires_grad_get, x)

#' @rdname tsb_autograd
`tsb_requires_grad<-` <- function(x, value) .Call(tsbr_requires_grad_set, x, value)

#' @rdname tsb_autograd
tsb_grad <- function(x) .Call(tsbr_grad, x)

#' @rdname tsb_autograd
tsb_zero_grad <- function(x) {
  if (inherits(x, "tsb_module")) return(x$zero_grad())
  .Call(tsbr_zero_grad, x)
  invisible(x)
}

#' @rdname tsb_autograd
tsb_detach <- function(x) .Call(tsbr_detach, x)

#' @rdname tsb_autograd
tsb_backward <- function(outputs, grad_outputs = NULL, retain_graph = FALSE) {
  if (!is.list(outputs)) outputs <- list(outputs)
  if (!is.null(grad_outputs) && !is.list(grad_outputs)) grad_outputs <- list(grad_outputs)
  invisible(.Call(tsbr_backward, unclass(outputs), grad_outputs, retain_graph))
}

#' @rdname tsb_autograd
tsb_grad_enabled <- function() .Call(tsbr_grad_mode_get)

#' @rdname tsb_autograd
tsb_set_grad_enabled <- function(enabled) invisible(.Call(tsbr_grad_mode_set, enabled))

#' @rdname tsb_autograd
tsb_with_no_grad <- function(code) {
  was <- .Call(tsbr_grad_mode_set, FALSE)
  on.exit(.Call(tsbr_grad_mode_set, was), add = TRUE)
  force(code)
}

#' @rdname tsb_autograd
tsb_local_no_grad <- function(.env = parent.frame()) {
  was <- .Call(tsbr_grad_mode_set, FALSE)
  # withr::defer(), without the dependency: restore when that frame exits.
  do.call(base::on.exit, list(bquote(.Call(.(tsbr_grad_mode_set), .(was))), TRUE, FALSE),
          envir = .env)
  invisible(was)
}

#' @rdname tsb_autograd
#' @param name for `x$name`: `grad`, `requires_grad`, `backward` (a function
#'   of `gradient = NULL, retain_graph = FALSE`), `detach` or `zero_grad`
#'   (functions of no argument); only `requires_grad` can be set.
`$.tsb_tensor` <- function(x, name) {
  switch(name,
    grad = tsb_grad(x),
    requires_grad = tsb_requires_grad(x),
    backward = function(gradient = NULL, retain_graph = FALSE) {
      tsb_backward(list(x), if (is.null(gradient)) NULL else list(gradient), retain_graph)
    },
    detach = function() tsb_detach(x),
    zero_grad = function() tsb_zero_grad(x),
    stop("a tsb_tensor has no field '", name, "' (grad, requires_grad, backward, ",
         "detach, zero_grad)", call. = FALSE))
}

#' @rdname tsb_autograd
`$<-.tsb_tensor` <- function(x, name, value) {
  if (!identical(name, "requires_grad")) {
    stop("only requires_grad can be set on a tsb_tensor, not '", name, "'", call. = FALSE)
  }
  .Call(tsbr_requires_grad_set, x, value)
}
