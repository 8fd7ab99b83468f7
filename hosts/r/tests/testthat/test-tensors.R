test_that("tensors from R vectors share R's memory; the deleter runs once", {
  gc()
  before <- .Call(tsbridge:::tsbr_dlpack_stats)
  x <- c(1, 2, 3, 4)
  t <- tsb_tensor(x)
  expect_identical(.tensor_info_address(t), .Call(tsbridge:::tsbr_r_address, x))
  mid <- .Call(tsbridge:::tsbr_dlpack_stats)
  expect_equal(mid$live_buffers - before$live_buffers, 1)
  rm(t)
  gc()
  after <- .Call(tsbridge:::tsbr_dlpack_stats)
  expect_equal(after$deleter_calls - before$deleter_calls, 1)
  expect_equal(after$live_buffers, before$live_buffers)
  expect_identical(x, c(1, 2, 3, 4))  # still alive and unchanged
})

test_that("in-place operators write into the shared R memory", {
  m <- rkinds()
  x <- numeric(3)       # a fresh vector, not a constant of the test's code
  x[] <- c(1, 2, 3)
  t <- tsb_tensor(x)
  m$double_in_place(t)
  expect_identical(x, c(2, 4, 6))
})

test_that("matrices keep R's column-major order through strides", {
  m <- rkinds()
  mat <- matrix(as.double(1:6), 2, 3)
  t <- tsb_tensor(mat)
  expect_identical(dim(t), c(2L, 3L))
  expect_identical(as.matrix(t), mat)
  expect_identical(as.vector(m$col_sums(mat)), colSums(mat))
  a <- array(as.double(1:24), c(2, 3, 4))
  expect_identical(as.array(tsb_tensor(a)), a)
  # A tensor made by LibTorch (row-major) reads back in R's order.
  tr <- tsb_ops$aten$t(t)
  expect_identical(as.matrix(tr), t(mat))
  expect_identical(dim(tr), c(3L, 2L))
})

test_that("dtypes: integer, logical, integer64, float16, complex, raw", {
  i <- tsb_tensor(1:3)
  expect_identical(unclass(dtype(i)), "int32")
  expect_identical(as.vector(i), 1:3)
  b <- tsb_tensor(c(TRUE, FALSE))
  expect_identical(unclass(dtype(b)), "bool")
  expect_identical(as.vector(b), c(TRUE, FALSE))
  h <- tsb_tensor(c(1.5, 2), dtype = "float16")
  expect_identical(unclass(dtype(h)), "float16")
  expect_identical(as.vector(h), c(1.5, 2))        # float16 reads back as double
  l <- tsb_tensor(c(1, 2), dtype = tsb_dtype("int64"))
  expect_identical(unclass(dtype(l)), "int64")
  expect_identical(as.vector(l), c(1, 2))          # int64 reads back as double
  if (requireNamespace("bit64", quietly = TRUE)) {
    i64 <- bit64::as.integer64(c(1, 2^40))
    expect_identical(unclass(dtype(tsb_tensor(i64))), "int64")
    expect_identical(as.vector(tsb_tensor(i64)), c(1, 2^40))
  }
  z <- tsb_tensor(c(1+1i, 2-1i))
  expect_identical(unclass(dtype(z)), "complex128")
  expect_identical(as.vector(z), c(1+1i, 2-1i))
  r <- tsb_tensor(as.raw(c(1, 255)))
  expect_identical(unclass(dtype(r)), "uint8")
  expect_identical(as.vector(r), c(1L, 255L))
  expect_error(tsb_tensor(c(1L, NA)), class = "tsb_type_error")
  expect_true(is.na(as.vector(tsb_tensor(NA_real_))))  # the NaN bits R calls NA
  expect_error(tsb_tensor(list(1)), class = "tsb_type_error")
})

test_that("print, format, a tensor returned unchanged, release", {
  m <- rkinds()
  t <- tsb_tensor(c(1, 2, 3))
  expect_output(print(t), "tsb_tensor float64 \\[3\\]")
  s <- m$same(t)
  expect_identical(.tensor_info_address(s), .tensor_info_address(t))
  tsb_release(s)
  expect_error(dim(s), class = "tsb_invalid_argument_error")
  expect_error(m$same(s), "no longer valid")
  expect_identical(dim(t), 3L)
})

test_that("the R vector stays alive while the tensor lives", {
  t <- local({
    v <- numeric(1000)
    v[] <- seq_len(1000)
    tsb_tensor(v)
  })
  gc()
  gc()
  expect_identical(as.vector(t)[c(1, 1000)], c(1, 1000))
  expect_identical(sum(as.vector(tsb_ops$aten$mul(t, 2))), 2 * sum(seq_len(1000)))
})

test_that("a sparse tensor has a dim() and prints; its values leave as dense", {
  s <- tsb_ops$aten$to_sparse(tsb_tensor(diag(3)))
  expect_identical(dim(s), c(3L, 3L))
  expect_match(format(s), "^tsb_tensor .*\\[3, 3\\] .*sparse", ignore.case = TRUE)
  expect_output(print(s), "to_dense")
  expect_error(as.array(s), "expected a strided tensor .* got a sparse_coo tensor")
  expect_identical(as.array(tsb_ops$aten$to_dense(s)), diag(3))
})
