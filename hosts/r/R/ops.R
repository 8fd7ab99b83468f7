# Operators and plugin functions: tsb_ops$aten$add(a, b, alpha = 2),
# tsb_ops$torchsparse$spmm(...). Namespaces and functions are made on
# first use and kept.

.operator <- function(qualified) {
  schemas <- .Call(tsbr_op_overloads, qualified)
  if (is.null(schemas)) stop("no operator or plugin function named ", qualified, call. = FALSE)
  caller <- .Call(tsbr_op_caller, qualified)
  if (length(schemas) == 1L && is.null(schemas[[1]]$not_callable)) {
    f <- .callable(caller, schemas[[1]])
  } else {
    # Several overloads, or a variadic one (listed with why tsb_op_call
    # refuses it, which a call says too).
    f <- eval(bquote(function(...) .Call(tsbr_call_list, .(caller), list(...))))
    environment(f) <- asNamespace("tsbridge")
    attr(f, "tsb_schema") <- vapply(schemas, function(s) {
      if (is.null(s$not_callable)) s$schema else paste0(s$schema, "  [", s$not_callable, "]")
    }, "")
  }
  f
}

.lazy <- function(env, name, make) {
  found <- get0(name, envir = env, inherits = FALSE)
  if (is.null(found)) {
    found <- make()
    assign(name, found, envir = env)
  }
  found
}

`$.tsb_ops_root` <- function(x, name) {
  .lazy(x, name, function() {
    ns <- new.env(parent = emptyenv())
    assign(".namespace", name, envir = ns)
    class(ns) <- "tsb_ops_namespace"
    ns
  })
}

`$.tsb_ops_namespace` <- function(x, name) {
  ns <- get(".namespace", envir = x, inherits = FALSE)
  .lazy(x, name, function() .operator(paste0(ns, "::", name)))
}

# names(tsb_ops) and names(tsb_ops$aten): what there is now
# (tsb_op_get_names); .DollarNames gives completion after `$`.
names.tsb_ops_root <- function(x) {
  unique(sub("::.*$", "", .Call(tsbr_op_names, NULL)))
}

names.tsb_ops_namespace <- function(x) {
  ns <- get(".namespace", envir = x, inherits = FALSE)
  found <- substring(.Call(tsbr_op_names, ns), nchar(ns) + 3L)
  unique(sub("\\..*$", "", found))
}

.DollarNames.tsb_ops_root <- function(x, pattern = "") {
  grep(pattern, names(x), value = TRUE)
}

.DollarNames.tsb_ops_namespace <- function(x, pattern = "") {
  grep(pattern, names(x), value = TRUE)
}

print.tsb_ops_root <- function(x, ...) {
  cat("<tsb_ops: tsb_ops$<namespace>$<operator>(...)>\n")
  invisible(x)
}

print.tsb_ops_namespace <- function(x, ...) {
  cat("<tsb_ops$", get(".namespace", envir = x), ">\n", sep = "")
  invisible(x)
}

tsb_ops <- structure(new.env(parent = emptyenv()), class = "tsb_ops_root")

# Plugins and operator libraries are loaded, listed and described alike:
# `what` is "plugin" or "library", the class "tsb_plugin" or "tsb_library".
loaded_info <- function(what, id) {
  structure(.Call(tsbr_loaded_info, what, id), class = paste0("tsb_", what))
}

loaded_all <- function(what) {
  lapply(seq_len(.Call(tsbr_loaded_count, what)) - 1L, function(i) loaded_info(what, i))
}

tsb_load_plugin <- function(path) {
  loaded_info("plugin", .Call(tsbr_loaded_load, "plugin", path.expand(path)))
}

tsb_plugins <- function() loaded_all("plugin")

tsb_load_library <- function(path_or_name) {
  if (!grepl("/", path_or_name, fixed = TRUE)) {
    id <- .Call(tsbr_loaded_load, "library", path_or_name)  # a name: "torchvision", "torchaudio"
  } else {
    id <- .Call(tsbr_loaded_load, "library", path.expand(path_or_name))
  }
  loaded_info("library", id)
}

tsb_libraries <- function() loaded_all("library")

print.tsb_library <- function(x, ...) {
  cat("<tsb_library ", x$name, " from ", x$path, ": ", length(x$operators),
      " operators>\n", sep = "")
  invisible(x)
}

print.tsb_plugin <- function(x, ...) {
  cat("<tsb_plugin ", x$name, " ", x$version, " from ", x$path, ">\n", sep = "")
  invisible(x)
}
