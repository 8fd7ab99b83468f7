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
  body(f) <- bquote(.Call(.(tsbr_call_frame), .(caller), environment()))
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
  m$methods <- names(schemas)
  m$schema <- function(method) schemas[[method]]$schema
  class(m) <- "tsb_module"
  m
}

tsb_load <- function(path) .module(.Call(tsbr_module_load, path.expand(path)), path)

tsb_compile <- function(source) .module(.Call(tsbr_module_compile, source), "<compiled>")

tsb_trace <- function(fn, example_inputs) {
  if (!is.list(example_inputs)) example_inputs <- list(example_inputs)
  .module(.Call(tsbr_trace, fn, example_inputs), "<traced>")
}

print.tsb_module <- function(x, ...) {
  cat("<tsb_module ", x$.origin, ">\n", sep = "")
  for (s in x$.schemas) cat("  ", s$schema, "\n", sep = "")
  invisible(x)
}
