# tsbridge values on future's multisession backend (docs/r.md, "future and
# other engines"): two background R sessions run a module, an AOTInductor
# package and a script object over chunks of a batch through
# future.apply::future_lapply(), equal to the single-process results and to
# PyTorch's; and what does not travel. Skipped only where r-cran-future or
# r-cran-future.apply is not installed.

skip_unless_future <- function() {
  for (pkg in c("future", "future.apply")) {
    if (!nzchar(system.file(package = pkg))) {
      skip(sprintf("%s is not installed (Debian: r-cran-%s)", pkg, pkg))
    }
  }
}

# plan(multisession, workers = 2) until the calling test ends, then
# sequential again. The workers get this session's .libPaths() (future's
# default), so they find the installed tsbridge.
local_two_workers <- function(envir = parent.frame()) {
  skip_unless_future()
  future::plan(future::multisession, workers = 2)
  withr::defer(future::plan(future::sequential), envir = envir)
}

test_that("future_lapply runs a module over chunks on two multisession workers", {
  local_two_workers()
  fx <- linear_fixture()
  m <- tsb_load(fx$path)
  rows <- split(seq_len(nrow(fx$x)), c(1, 1, 2, 2))
  parts <- future.apply::future_lapply(unname(rows), function(i) {
    # The module arrives serialized; tsbridge's namespace loads by itself.
    list(pid = Sys.getpid(),
         out = as.matrix(m$forward(tsbridge::tsb_tensor(fx$x[i, , drop = FALSE]))))
  })
  pids <- vapply(parts, `[[`, 0L, "pid")
  expect_length(unique(pids), 2)
  expect_false(Sys.getpid() %in% pids)
  got <- do.call(rbind, lapply(parts, `[[`, "out"))
  expect_identical(got, as.matrix(m$forward(tsb_tensor(fx$x))))
  expect_equal(got, fx$want, tolerance = 1e-12)
  # Tensors both ways: tsb_tensor chunks out, the module's tsb_tensor results back.
  chunks <- lapply(unname(rows), function(i) tsb_tensor(fx$x[i, , drop = FALSE]))
  back <- future.apply::future_lapply(chunks, function(chunk) m$forward(chunk))
  expect_s3_class(back[[1]], "tsb_tensor")
  expect_identical(do.call(rbind, lapply(back, as.matrix)), got)
})

test_that("a script object travels with its class, a copy per future", {
  local_two_workers()
  obj <- rkinds()$rect(2, 3)  # a TorchScript class instance
  by <- c(1, 2, 3, 4)
  # future.chunk.size = 1: one future, so one copy of obj, per element.
  got <- future.apply::future_vapply(by, function(b) obj$grow(b), 0, future.chunk.size = 1)
  single <- vapply(by, function(b) unserialize(serialize(obj, NULL))$grow(b), 0)
  expect_identical(got, single)
  expect_identical(got, 3 + by)  # Rect(2, 3).grow(by) in TorchScript: hi + by
  expect_identical(obj$hi, 3)  # the workers grew their copies
})

test_that("an AOTInductor package is loaded by each worker from its path", {
  skip_if_not(has_aoti(), "AOTInductor packages need LibTorch 2.6 (Debian 13)")
  local_two_workers()
  path <- export_fixture("two_models.pt2")
  m <- tsb_load(path)
  # It does not serialize: a package is not a TorchScript archive.
  expect_error(serialize(m, NULL), "an AOTInductor package is saved by the Python")
  x <- c(0.5, -1, 2, 3.25, -4, 8, 0, 1.5)
  chunks <- split(x, rep(1:4, each = 2))  # "twice" was exported for shape [2]
  load_and_call <- function(v, path) {
    as.vector(tsbridge::tsb_load(path)$twice(tsbridge::tsb_tensor(v, dtype = "float32")))
  }
  # Not this test's environment, which holds the package `m`: future ships a
  # function's environment with it (newer future does), and a package does
  # not serialize.
  environment(load_and_call) <- globalenv()
  got <- future.apply::future_lapply(unname(chunks), load_and_call, path = path)
  single <- lapply(unname(chunks), function(v) as.vector(m$twice(tsb_tensor(v, dtype = "float32"))))
  expect_identical(got, single)
  expect_identical(unlist(got), x * 2)  # exact in float32
})

test_that("what a worker does not see, and what it does", {
  local_two_workers()
  fx <- linear_fixture()
  m <- tsb_load(fx$path)
  before <- as.matrix(m$forward(tsb_tensor(fx$x)))
  # A worker changes its copy; this session's module stays as it was.
  changed <- future.apply::future_lapply(1:2, function(i) {
    tsbridge::tsb_with_no_grad(tsbridge::tsb_ops$aten$mul_(m$parameters$bias, 2))
    as.matrix(m$forward(tsbridge::tsb_tensor(fx$x)))
  })
  expect_false(identical(changed[[1]], before))
  expect_identical(changed[[1]], changed[[2]])  # each future had its own copy
  expect_identical(as.matrix(m$forward(tsb_tensor(fx$x))), before)
  # A change here is seen by the next future_lapply(), which serializes the
  # module again.
  tsb_with_no_grad(tsb_ops$aten$mul_(m$parameters$bias, 2))
  again <- future.apply::future_lapply(1:2, function(i) as.matrix(m$forward(tsb_tensor(fx$x))))
  expect_identical(again[[1]], changed[[1]])
  # A tensor that requires grad arrives as a leaf: the graph stays here, and a
  # backward in the worker fills the worker's copy's grad only.
  x <- tsb_tensor(c(1, 1, 1))
  x$requires_grad <- TRUE
  y <- tsb_ops$aten$mul(x, 2)  # not a leaf
  grads <- future.apply::future_lapply(1, function(i) {
    tsbridge::tsb_backward(tsbridge::tsb_ops$aten$sum(tsbridge::tsb_ops$aten$mul(y, 3)))
    as.vector(y$grad)
  })
  expect_identical(grads[[1]], c(3, 3, 3))
  expect_null(x$grad)
  expect_true(y$requires_grad)
})
