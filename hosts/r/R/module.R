# Modules (loaded, compiled, traced): environments of class tsb_module whose
# methods are R functions with the schema's formals and defaults. Each
# method's handle is looked up once, when the module is made.

tsb_default <- function() structure(list(), class = "tsb_default")

# An R function for one schema: its formals are the schema's arguments, the
# defaults converted to R (or tsb_default(): the callee's own default).
.callable <- function(caller, schema) {
  fmls <- lapply(schema$arguments, function(a) {
    if (!a$has_default) return(quote(expr = ))
    if (isTRUE(a$has_r_default)) {
      d <- a$default
      if (is.null(d)) return(NULL)
      return(d)
    }
    quote(tsb_default())
  })
  names(fmls) <- vapply(schema$arguments, function(a) a$name, "")
  f <- function() NULL
  formals(f) <- fmls
  # The routine by name, looked up in the namespace at each call: a
  # NativeSymbolInfo baked in would not survive serialize() (its address
  # reads back as NULL in another process). .External itself is baked in
  # (a primitive serializes by name): no lookup through the namespace, its
  # imports and base at each call. The formals go by value, in
  # order: R forces them before the routine runs. A default not given is
  # left to the callee, as in every host: a call passes what the caller gave.
  values <- Map(function(name, a) {
    if (!a$has_default) return(as.name(name))
    bquote(if (missing(.(as.name(name)))) tsb_default() else .(as.name(name)))
  }, names(fmls), schema$arguments)
  body(f) <- as.call(c(.External, quote(tsbr_call_values), caller, unname(values)))
  environment(f) <- asNamespace("tsbridge")
  attr(f, "tsb_schema") <- schema$schema
  f
}

.module <- function(ptr, origin) {
  m <- new.env(parent = emptyenv())
  schemas <- .Call(tsbr_module_methods, ptr)
  names(schemas) <- vapply(schemas, function(s) s$name, "")
  for (name in names(schemas)) {
    caller <- .Call(tsbr_method_caller, ptr, name)
    assign(name, .callable(caller, schemas[[name]]), envir = m)
  }
  m$.ptr <- ptr
  m$.origin <- origin
  m$.schemas <- schemas
  m$save <- function(path) invisible(.Call(tsbr_module_save, ptr, path.expand(path)))
  m$to_raw <- function() .Call(tsbr_module_write, ptr)
  m$save_for_mobile <- function(path) {
    invisible(.Call(tsbr_module_save_for_mobile, ptr, path.expand(path)))
  }
  m$methods <- names(schemas)
  m$schema <- function(method) schemas[[method]]$schema
  .module_state(m, ptr, origin, "forward" %in% names(schemas))
  class(m) <- "tsb_module"
  m
}

#' Module state: train and eval, parameters, buffers, submodules, attributes
#'
#' Every module (from [tsb_load()], [tsb_compile()], [tsb_trace()]) has, as
#' R torch's script modules and PyTorch's `torch.jit.load` modules do:
#'
#' * `m$train(mode = TRUE)`, `m$eval()`: set `training` on the module and
#'   recursively on every submodule (dropout is the identity in eval mode,
#'   batch norm uses its running statistics). `m$training` reads the flag;
#'   `m$training <- FALSE` is `m$eval()`. Both return `m` invisibly.
#' * `m$parameters`, `m$buffers`: named lists of `tsb_tensor`, recursive with
#'   dotted names (`"fc1.weight"`) in PyTorch's order. They are the
#'   module's own tensors, not copies: gradients from [tsb_backward()] land on
#'   them and an in-place update (an SGD step under [tsb_with_no_grad()])
#'   changes the module. `m$zero_grad()` zeroes every parameter's gradient.
#' * `m$children`: the direct submodules as a named list of modules sharing
#'   the parent's state (`m$children$fc1$eval()` changes `m`'s `fc1`).
#' * `m$attributes` (names, in the class's order), `m$get_attribute(name)`,
#'   `m$set_attribute(name, value)`: attributes converted by their declared
#'   type (constants and submodules cannot be set).
#' * `m$register_parameter(name, tensor)`, `m$register_buffer(name,
#'   tensor)`: add (or set) one on the module's own class.
#' * `m$graph_for(...)`: `forward`'s graph as the executor optimized it for
#'   these arguments (it runs `forward` once).
#' * `m$state_dict()`: a named list of the parameters and buffers in
#'   PyTorch's order (the module's own tensors); `m$load_state_dict(state,
#'   strict = TRUE)` copies a named list of tensors (or what
#'   `tsb_convert()` reads from a `torch.save`d state_dict) into them in
#'   place, refusing a shape that differs and, when strict, missing or
#'   unexpected names, before anything is copied.
#' * `m$code`: the class's TorchScript source; `m$graph`: the graph of
#'   `forward` as text (`NULL` without one); `m$method_graph(name)`: another
#'   method's graph.
#'
#' @examples
#' \dontrun{
#' m <- tsb_load("net.pt")
#' m$eval()$training                                # FALSE
#' names(m$parameters)                              # "fc1.weight" "fc1.bias" ...
#' cat(m$graph)
#' loss <- tsb_ops$aten$sum(m$forward(x))
#' tsb_backward(loss)
#' tsb_with_no_grad(for (p in m$parameters) tsb_ops$aten$add_(p, tsb_grad(p), alpha = -0.1))
#' }
#' @name tsb_module_state
NULL

.module_state <- function(m, ptr, origin, has_forward) {
  m$train <- function(mode = TRUE) {
    .Call(tsbr_module_training_set, ptr, mode)
    invisible(m)
  }
  m$eval <- function() m$train(FALSE)
  makeActiveBinding("training", function(value) {
    if (missing(value)) return(.Call(tsbr_module_training_get, ptr))
    .Call(tsbr_module_training_set, ptr, value)
  }, m)
  makeActiveBinding("parameters", function() .Call(tsbr_module_parameters, ptr), m)
  makeActiveBinding("buffers", function() .Call(tsbr_module_buffers, ptr), m)
  makeActiveBinding("children", function() {
    kids <- .Call(tsbr_module_children, ptr)
    out <- lapply(names(kids), function(n) .module(kids[[n]], paste0(origin, "$", n)))
    names(out) <- names(kids)
    out
  }, m)
  makeActiveBinding("attributes", function() .Call(tsbr_module_attribute_names, ptr), m)
  m$get_attribute <- function(name) .Call(tsbr_module_attribute_get, ptr, name)
  m$set_attribute <- function(name, value) {
    .Call(tsbr_module_attribute_set, ptr, name, value)
    invisible(m)
  }
  m$register_parameter <- function(name, tensor) {
    .Call(tsbr_module_parameter_set, ptr, name, tensor, FALSE)
    invisible(m)
  }
  m$register_buffer <- function(name, tensor) {
    .Call(tsbr_module_parameter_set, ptr, name, tensor, TRUE)
    invisible(m)
  }
  m$graph_for <- function(...) {
    .Call(tsbr_graph_for, .Call(tsbr_method_caller, ptr, "forward"), list(...))
  }
  m$state_dict <- function() .Call(tsbr_module_state_get, ptr)
  m$load_state_dict <- function(state_dict, strict = TRUE) {
    .Call(tsbr_module_state_set, ptr, state_dict, strict)
    invisible(m)
  }
  m$zero_grad <- function() {
    for (p in .Call(tsbr_module_parameters, ptr)) .Call(tsbr_zero_grad, p)
    invisible(m)
  }
  makeActiveBinding("code", function() .Call(tsbr_module_code, ptr), m)
  m$method_graph <- function(method) .Call(tsbr_module_graph, ptr, method)
  makeActiveBinding("graph", function() {
    if (has_forward) .Call(tsbr_module_graph, ptr, "forward") else NULL
  }, m)
  invisible(m)
}

tsb_load <- function(path) {
  if (is.raw(path)) return(.module(.Call(tsbr_module_read, path), "<raw>"))
  .module(.Call(tsbr_module_load, path.expand(path)), path)
}

tsb_compile <- function(source) .module(.Call(tsbr_module_compile, source), "<compiled>")

tsb_trace <- function(fn, example_inputs, strict = TRUE, method = "forward") {
  if (!is.list(example_inputs)) example_inputs <- list(example_inputs)
  .module(.Call(tsbr_trace, fn, .bind_inputs(fn, example_inputs), strict, method), "<traced>")
}

# Example inputs by R's own argument matching (names, then positions), in
# the order of fn's formals: the traced forward takes them in that order.
# They must fill fn's first formals; named inputs are never bound by
# position alone.
.bind_inputs <- function(fn, inputs) {
  if (is.null(names(inputs)) || !is.function(fn)) return(inputs)
  fmls <- names(formals(fn))
  call <- tryCatch(match.call(fn, as.call(c(list(quote(fn)), inputs))),
                   error = function(e) stop("tsb_trace(): the example inputs do not match ",
                                            "the function's arguments: ", conditionMessage(e),
                                            call. = FALSE))
  bound <- as.list(call)[-1]
  if ("..." %in% fmls || is.null(names(bound)) || any(names(bound) == "")) {
    stop("tsb_trace(): example inputs are bound by name only to named formals (",
         "the function takes ...)", call. = FALSE)
  }
  at <- match(names(bound), fmls)
  if (!identical(sort(at), seq_along(at))) {
    stop("tsb_trace(): the example inputs must fill the function's first arguments; ",
         "missing: ", paste0("'", setdiff(fmls[seq_len(max(at))], names(bound)), "'",
                             collapse = ", "), call. = FALSE)
  }
  unname(bound[order(at)])
}

print.tsb_module <- function(x, ...) {
  cat("<tsb_module ", x$.origin, ">\n", sep = "")
  for (s in x$.schemas) cat("  ", s$schema, "\n", sep = "")
  invisible(x)
}
