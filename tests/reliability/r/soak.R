# The R host's long run (docs/reliability.md, "The R host soak").
#
#   R_LIBS=<library with tsbridge> Rscript soak.R [--ops N] [--tolerance 0.05]
#       [--plugin PATH ...] [--bad-plugin PATH ...]
#       [--library PATH|NAME ...] [--bad-library PATH ...]
#
# R has one thread, so the soak is one loop: module calls and conversions of
# every kind the R host makes, each result checked against its formula, and
# every 50th step a round of plugin and operator-library loads (the good ones
# a no-op after the first, the bad ones refused every time). Once an operator
# library is in, the loop calls its operator too. The resident set size is
# sampled after a gc() (R's own heap would otherwise swing with its
# collector): after the warm-up (the first 10 % of operations) it must stay
# within the tolerance of its value then. At the end, with everything
# dropped, tsbridge's live-handle count must be 0. Prints the RSS curve;
# exits 1 on any failure.
library(tsbridge)

args <- commandArgs(trailingOnly = TRUE)
opt <- list(ops = 20000, tolerance = 0.05, plugin = character(), `bad-plugin` = character(),
            library = character(), `bad-library` = character())
i <- 1
while (i <= length(args)) {
  key <- sub("^--", "", args[[i]])
  if (!key %in% names(opt) || i == length(args)) stop("unknown or incomplete option ", args[[i]])
  value <- args[[i + 1]]
  opt[[key]] <- if (is.numeric(opt[[key]])) as.numeric(value) else c(opt[[key]], value)
  i <- i + 2
}

failures <- character()
check <- function(ok, what) {
  if (!isTRUE(ok)) failures <<- c(failures, what)
}

rss_mb <- function() {
  line <- grep("^VmRSS:", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}

m <- tsb_compile(paste(
  "def add(self, a: int, b: int) -> int:",
  "    return a + b",
  "def scale(self, x: Tensor, s: float) -> Tensor:",
  "    return x * s",
  "def pack(self, xs: List[int], d: Dict[str, float]) -> Tuple[int, float]:",
  "    total = 0.0",
  "    for v in d.values():",
  "        total += v",
  "    return sum(xs), total",
  "def opt(self, x: Optional[str]) -> str:",
  "    if x is None:",
  "        return \"none\"",
  "    return x + \"!\"",
  "", sep = "\n"))

libraries_in <- character()

# One round of loads: the good ones succeed (a no-op after the first), the
# bad ones fail, every time.
load_round <- function() {
  for (p in opt$plugin) check(!is.null(tsb_load_plugin(p)$id), paste("plugin", p))
  for (p in opt$`bad-plugin`) {
    check(inherits(tryCatch(tsb_load_plugin(p), error = identity), "tsb_error"),
          paste("bad plugin refused:", p))
  }
  for (l in opt$library) {
    lib <- tsb_load_library(l)
    check(length(lib$operators) > 0, paste("library", l))
    libraries_in <<- union(libraries_in, lib$operators)
  }
  for (l in opt$`bad-library`) {
    check(inherits(tryCatch(tsb_load_library(l), error = identity), "tsb_error"),
          paste("bad library refused:", l))
  }
}

boxes <- matrix(c(0, 0, 1, 1, 0, 0, 1, 1.1, 5, 5, 6, 6), ncol = 4, byrow = TRUE)

# One step: each operation checked; returns how many it made.
step <- function(k) {
  a <- k %% 1000L
  check(identical(m$add(a, 7L), a + 7L), "add")
  x <- c(1, 2, k %% 10)
  check(identical(as.vector(m$scale(tsb_tensor(x), 0.5)), x * 0.5), "scale")
  p <- m$pack(c(a, 1L, 2L), list(u = 0.25, v = 1.5))
  check(identical(p[[1]], a + 3L) && identical(p[[2]], 1.75), "pack")
  check(identical(m$opt(NULL), "none") && identical(m$opt("r"), "r!"), "opt")
  d <- tsb_convert(list(a = c(a, 2L), b = integer()), "Dict[str, List[int]]")
  check(identical(d, list(a = c(a, 2L), b = integer())), "convert")
  json <- tsb_to_json(list(c(a, 1L), "s"), "Tuple[List[int], str]")
  back <- tsb_from_json(json, "Tuple[List[int], str]")
  check(identical(back[[1]], c(a, 1L)) && identical(back[[2]], "s"), "json")
  mat <- matrix(as.double(seq_len(6) + k %% 7), 2)
  check(identical(as.array(tsb_tensor(mat)), mat), "tensor")
  e <- tryCatch(tsb_convert(list(1L, "x"), "List[int]"), error = identity)
  check(inherits(e, "tsb_type_error") && identical(e$path, "[1]"), "refused")
  check(identical(as.vector(tsb_ops$aten$add(tsb_tensor(x), 1)), x + 1), "operator")
  n <- 9  # the checks above, one operation each
  if ("torchvision::nms" %in% libraries_in) {
    keep <- tsb_ops$torchvision$nms(tsb_tensor(boxes), tsb_tensor(c(0.9, 0.8, 0.7)), 0.5)
    check(identical(as.vector(keep), c(0, 2)), "nms")
    n <- n + 1
  }
  n
}

warm_up <- opt$ops / 10
samples <- opt$ops / 10
curve <- data.frame(ops = numeric(), rss_mb = numeric())
done <- 0
next_sample <- 0
k <- 0L
baseline <- NA
while (done < opt$ops && length(failures) == 0) {
  if (k %% 50L == 0L) load_round()
  done <- done + step(k)
  k <- k + 1L
  if (done >= next_sample) {
    gc(verbose = FALSE)
    rss <- rss_mb()
    curve[nrow(curve) + 1, ] <- c(done, rss)
    cat(sprintf("%9d operations  RSS %.1f MB\n", as.integer(done), rss))
    if (is.na(baseline) && done >= warm_up) baseline <- rss
    next_sample <- next_sample + samples
  }
}
invisible(gc(verbose = FALSE))
final <- rss_mb()
rm(m)
invisible(gc(verbose = FALSE))
live <- tsb_handle_count()

growth <- (final - baseline) / baseline
cat(sprintf("%d operations in %d steps, %d load rounds; RSS %.1f MB after warm-up, %.1f MB at the end (%+.2f %%); live handles %d\n",
            as.integer(done), k, (k + 49L) %/% 50L, baseline, final, 100 * growth, as.integer(live)))
check(growth <= opt$tolerance, sprintf("RSS grew %.2f %% (bound %.0f %%)", 100 * growth,
                                       100 * opt$tolerance))
check(live == 0, sprintf("%d handles alive at the end", as.integer(live)))
if (length(failures) > 0) {
  cat("FAILED:", unique(failures), sep = "\n  ")
  quit(status = 1)
}
cat("soak passed\n")
