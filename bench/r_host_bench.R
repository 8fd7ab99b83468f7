# The R host against the C ABI called from C, and R's own copies.
#
#   Rscript bench/r_host_bench.R C_BASELINE_BINARY [--markdown]
#
# (scripts/bench.sh passes build/bench/r_host_c_baseline.) Figures are
# ratios of medians of CPU time measured in this run: an R call of a no-op method and of
# a method of six scalars vs the same call from C (r_host_c_baseline.c, the
# same module source, tsb_module_call by name: the baseline the goals are
# stated against; its call by index, tsb_module_call_method, as the R host
# calls, is printed too); a List[float] of 1M out of and into tsbridge vs R
# copying a numeric vector of 1M (in: a method taking it; in and out: a
# method returning it unchanged, so the out direction is the difference). R torch's
# jit call overhead, about 6 us (711 us through the jit call against 705 us
# calling a 3x1000 MLP directly: the 705 us is the model's forward pass), is
# quoted as a reference, not measured here (docs/r.md).
suppressPackageStartupMessages(library(tsbridge))
args <- commandArgs(trailingOnly = TRUE)
c_baseline <- args[1]
markdown <- "--markdown" %in% args

source_text <- paste(
  "def noop(self) -> None:\n    pass\n",
  "def six(self, a: int, b: float, c: bool, d: str, e: int, f: float) -> int:\n    return a\n",
  "def echo_floats(self, xs: List[float]) -> List[float]:\n    return xs\n",
  "def count_floats(self, xs: List[float]) -> int:\n    return len(xs)\n", sep = "")
m <- tsb_compile(source_text)

# Median over batches of the CPU time (user + system) per call: the machine
# is shared, and CPU time is what the C baseline measures too.
measure <- function(fn, calls, batches = 21L) {
  times <- vapply(seq_len(batches), function(b) {
    start <- proc.time()
    for (i in seq_len(calls)) fn()
    used <- proc.time() - start
    (used[["user.self"]] + used[["sys.self"]]) / calls * 1e9
  }, 0)
  stats::median(times)
}

src_file <- tempfile(fileext = ".py")
writeLines(source_text, src_file)
c_out <- system2(c_baseline, c(src_file, "100000"), stdout = TRUE)
c_ns <- stats::setNames(as.double(sub("^\\S+ ", "", c_out)), sub(" .*", "", c_out))

r_noop <- measure(function() m$noop(), 100000L)
# Where the no-op call's time goes: the same method kept in a variable (no
# `$` lookup), the `$` lookup alone (R's S3 dispatch on a classed
# environment, as for any R6 or R torch module), and R's own call of an empty
# closure (the loop's share, in every R figure).
noop <- m$noop
r_noop_var <- measure(function() noop(), 100000L)
r_lookup <- measure(function() m$noop, 100000L)
empty <- function() NULL
r_empty <- measure(function() empty(), 100000L)
r_six <- measure(function() m$six(1L, 2, TRUE, "x", 3L, 4), 50000L)

x <- stats::runif(1e6)
copy_numeric <- function() {  # R's own copy of 1M doubles
  y <- x
  y[1L] <- 0
  y
}
r_copy <- measure(copy_numeric, 20L, 11L)
r_both <- measure(function() m$echo_floats(x), 10L, 11L)
r_in <- measure(function() m$count_floats(x), 10L, 11L)

rows <- data.frame(
  figure = c("no-op method call", "six-scalar method call", "List[float] 1M in",
             "List[float] 1M in and out (returned unchanged)"),
  r_host = c(r_noop, r_six, r_in, r_both),
  baseline = c(c_ns[["noop"]], c_ns[["six"]], r_copy, r_copy),
  baseline_is = c("the same call from C", "the same call from C", "R copies 1M doubles",
                  "R copies 1M doubles"))
rows$ratio <- rows$r_host / rows$baseline
# The goals: the kept method within 2x the C call; `m$noop()` within 2x
# the C call plus R's own `$` on a classed environment (the module is one).
goals <- list(
  list(what = "`noop()` / the C call (goal <= 2)", ratio = r_noop_var / c_ns[["noop"]]),
  list(what = "`m$noop()` / (the C call + R's `$`) (goal <= 2)",
       ratio = r_noop / (c_ns[["noop"]] + r_lookup)))
fmt <- function(ns) ifelse(ns >= 1e6, sprintf("%.2f ms", ns / 1e6),
                           ifelse(ns >= 1e3, sprintf("%.2f us", ns / 1e3), sprintf("%.0f ns", ns)))
if (markdown) {
  cat("| figure | R host | baseline | baseline is | ratio |\n|---|---|---|---|---|\n")
  for (i in seq_len(nrow(rows))) {
    cat(sprintf("| %s | %s | %s | %s | %.2f |\n", rows$figure[i], fmt(rows$r_host[i]),
                fmt(rows$baseline[i]), rows$baseline_is[i], rows$ratio[i]))
  }
  cat("\nWhere the no-op call's time goes (same run):\n\n| part | time |\n|---|---|\n")
  cat(sprintf("| `m$noop()`, the whole call | %s |\n", fmt(r_noop)))
  cat(sprintf("| `noop()`, the method kept in a variable | %s (%.2f of the C call) |\n",
              fmt(r_noop_var), r_noop_var / c_ns[["noop"]]))
  cat(sprintf("| `m$noop`, the lookup alone (R's S3 dispatch for `$`) | %s |\n", fmt(r_lookup)))
  cat(sprintf("| an empty R closure, called the same way | %s |\n", fmt(r_empty)))
  cat(sprintf("| the same call from C (by name, `tsb_module_call`) | %s |\n", fmt(c_ns[["noop"]])))
  cat(sprintf("| the same call from C by index (`tsb_module_call_method`) | %s |\n",
              fmt(c_ns[["noop_by_index"]])))
  cat("\nGoals, same run:\n\n| goal | ratio | met |\n|---|---|---|\n")
  for (g in goals) cat(sprintf("| %s | %.2f | %s |\n", g$what, g$ratio, if (g$ratio <= 2) "yes" else "no"))
  cat(sprintf(paste0("\nReference, not measured here: R torch's jit call overhead, about 6 us ",
                     "(711 us through the jit call against 705 us for a 3x1000 MLP's forward ",
                     "pass called directly; docs/r.md); the R host's whole no-op call is %.1f of it.\n"),
              r_noop / 6e3))
} else {
  print(rows, row.names = FALSE)
  print(c(whole = r_noop, kept_in_a_variable = r_noop_var, dollar_lookup = r_lookup,
          empty_closure = r_empty, c_call = c_ns[["noop"]], c_call_by_index = c_ns[["noop_by_index"]]))
  print(stats::setNames(vapply(goals, function(g) g$ratio, 0), c("kept_vs_c", "dollar_vs_c_plus_dollar")))
}
