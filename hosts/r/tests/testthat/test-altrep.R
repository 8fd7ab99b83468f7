# ALTREP vectors as arguments: R makes compact sequences (1:n, seq_len,
# as.numeric(1:n)), deferred strings (as.character(1:n)) and wrappers
# (sort()) without materialising them. Each converts as its materialised
# equivalent; helper-conversions.R's cases run them under gctorture too.

altrep_kind <- function(x) {
  out <- utils::capture.output(.Internal(inspect(x, 0L)))[1]
  if (grepl("compact", out)) "compact" else if (grepl("deferred", out)) "deferred"
  else if (grepl("wrapper", out)) "wrapper" else "plain"
}

test_that("the vectors below are the ALTREP kinds they are meant to be", {
  expect_identical(altrep_kind(1:10), "compact")
  expect_identical(altrep_kind(seq_len(3)), "compact")
  expect_identical(altrep_kind(as.numeric(1:5)), "compact")
  expect_identical(altrep_kind(as.character(1:5)), "deferred")
  expect_identical(altrep_kind(sort(c(3L, 1L, 2L))), "wrapper")
  expect_identical(altrep_kind(sort(c(0.5, -1))), "wrapper")
})

test_that("ALTREP vectors convert as their materialised equivalents", {
  m <- rkinds()
  same_as_plain <- function(make, call) {
    alt <- make()
    plain <- vector(typeof(alt), length(alt))
    plain[] <- alt  # the same values in a plain vector
    expect_identical(altrep_kind(plain), "plain")
    expect_identical(call(make()), call(plain))
  }
  same_as_plain(function() 1:10, m$ints)
  same_as_plain(function() seq_len(4), function(x) tsb_convert(x, "List[int]"))
  same_as_plain(function() as.numeric(1:5), m$floats)
  same_as_plain(function() as.character(1:5), m$strs)
  same_as_plain(function() sort(c(3L, 1L, 2L)), m$ints)
  same_as_plain(function() sort(c(0.5, -1)), m$floats)
  same_as_plain(function() as.character(1:3), function(x) m$anything(x))
  same_as_plain(function() 1:6, function(x) as.array(m$same(x)))
  same_as_plain(function() as.numeric(1:6), function(x) as.array(m$same(x)))
  same_as_plain(function() sort(c(3, 1, 2)), function(x) as.array(m$same(x)))
  same_as_plain(function() sort(c(TRUE, FALSE)), function(x) as.array(m$same(x)))
  # As a Tuple's and a Dict's items, and as names.
  expect_identical(c(unclass(m$tup(list(seq_len(1), as.character(7))))), list(2L, "7"))
  expect_identical(m$str_keys(stats::setNames(list(1:2, seq_len(0)), as.character(1:2))),
                   list(`1` = 1:2, `2` = integer()))
})

test_that("a tensor from an ALTREP vector keeps its own copy: a wrapper may move its data", {
  # A wrapper that sort() makes swaps in a copy of the vector it wraps when
  # that vector is shared and the wrapper's data is asked for writing; the
  # old one is freed once its last sharer goes. A tensor pointing into it
  # read freed memory.
  x <- sort(c(3, 1, 2, 5, 4) * 1.5)
  t1 <- tsb_tensor(x)
  x2 <- x
  attr(x2, "shared") <- TRUE  # a second wrapper around the same vector
  t2 <- tsb_tensor(x)         # asks x's data for writing: x now wraps a copy
  rm(x2)
  gc()
  junk <- lapply(1:2000, function(i) stats::runif(5))  # reuse what was freed
  gc()
  expect_identical(as.vector(t1), c(1.5, 3, 4.5, 6, 7.5))
  expect_identical(as.vector(t2), c(1.5, 3, 4.5, 6, 7.5))
  # A plain vector is still shared without a copy, an ALTREP one copied once.
  plain <- c(1, 2, 3)
  expect_identical(.tensor_info_address(tsb_tensor(plain)), .Call(tsbridge:::tsbr_r_address, plain))
  compact <- 1:3
  expect_false(identical(.tensor_info_address(tsb_tensor(compact)),
                         .Call(tsbridge:::tsbr_r_address, compact)))
  expect_identical(as.vector(tsb_tensor(compact)), 1:3)
})
