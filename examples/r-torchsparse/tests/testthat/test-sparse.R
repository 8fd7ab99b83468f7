# Every operation against PyTorch: /usr/bin/python3 (TSB_PYTHON3) computes
# the expected values for the same matrices (expected.py).
python3 <- Sys.getenv("TSB_PYTHON3", "/usr/bin/python3")
plugin <- Filter(function(p) p$name == "sparse", tsbridge::tsb_plugins())

expected <- local({
  cached <- NULL
  function() {
    if (is.null(cached)) {
      skip_if_not(file.exists(python3), "needs /usr/bin/python3 with torch")
      skip_if(length(plugin) == 0, "the sparse plugin is not loaded")
      out <- tempfile(fileext = ".json")
      status <- system2(python3, c(shQuote(test_path("expected.py")), shQuote(plugin[[1]]$path),
                                   shQuote(out)))
      if (status != 0) stop("expected.py failed")
      cached <<- tsbridge::tsb_from_json(paste(readLines(out, warn = FALSE), collapse = ""),
                                         "Dict[str, List[float]]")
    }
    cached
  }
})

row <- c(0, 0, 1, 2, 2, 2, 0)
col <- c(1, 3, 0, 2, 3, 0, 1)
val <- c(1, 2, 3, 4, -5, 6, 0.5)
mat <- matrix(c(0:7) - 3, 4, 2, byrow = TRUE)
row_major <- function(x) as.vector(t(x))

test_that("from COO, to_dense and transpose", {
  e <- expected()
  a <- sparse_coo(row, col, val, c(4, 4))
  expect_identical(dim(a), c(4L, 4L))
  expect_equal(row_major(to_dense(a)), e$dense)
  expect_equal(row_major(to_dense(t(coalesce(a)))), e$dense_t)
  expect_output(print(a), "4 x 4")
})

test_that("coalesce sorts and sums duplicates", {
  e <- expected()
  p <- sparse_parts(coalesce(sparse_coo(row, col, val, c(4, 4))))
  expect_equal(p$row, e$coalesced_row)
  expect_equal(p$col, e$coalesced_col)
  expect_equal(p$value, e$coalesced_value)
})

test_that("from CSR gives the same matrix", {
  e <- expected()
  p <- sparse_parts(coalesce(sparse_coo(row, col, val, c(4, 4))))
  b <- sparse_csr(p$rowptr, p$col, p$value, c(4, 4))
  expect_equal(row_major(to_dense(b)), e$dense)
})

test_that("spmm with sum, mean, max and min", {
  e <- expected()
  a <- coalesce(sparse_coo(row, col, val, c(4, 4)))
  for (reduce in c("sum", "mean", "max", "min")) {
    r <- spmm(a, mat, reduce = reduce)
    expect_equal(row_major(r$out), e[[paste0("spmm_", reduce)]], label = reduce)
    if (reduce %in% c("max", "min")) expect_false(is.null(r$arg_out))
  }
})

test_that("spspmm is the matrix product", {
  e <- expected()
  a <- coalesce(sparse_coo(row, col, val, c(4, 4)))
  expect_equal(row_major(to_dense(spspmm(a, a))), e$spspmm_dense)
})

test_that("sample_adj draws what the plugin draws in PyTorch with the same seed", {
  e <- expected()
  a <- coalesce(sparse_coo(row, col, val, c(4, 4)))
  s <- sample_adj(a, c(0, 2), 2, seed = 7)
  expect_equal(s$rowptr, e$sample_rowptr)
  expect_equal(s$col, e$sample_col)
  expect_equal(s$e_id, e$sample_e_id)
})

test_that("bad input is a tsb_error, not a crash", {
  expect_error(sparse_coo(c(0, 9), c(0, 1), NULL, c(2, 2)), class = "tsb_error")
  expect_error(spmm(sparse_coo(0, 0, 1, c(1, 1)), mat, reduce = "median"), class = "tsb_error")
})
