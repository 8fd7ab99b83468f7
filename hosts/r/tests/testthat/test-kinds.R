# Every kind, both ways, directed by the schema.

test_that("scalars come out as length-1 vectors", {
  m <- rkinds()
  expect_identical(m$six(1L, 2, TRUE, "x", 2, 3L), 3L)  # 2 (double) is an int here
  expect_identical(m$cplx(1+2i), 2+4i)
  expect_identical(m$union(3), "int")
  expect_identical(m$union("a"), "str")
  expect_identical(m$noop(), NULL)
})

test_that("ints beyond 32 bits come back as integer64 (bit64) or double", {
  m <- rkinds()
  big <- m$big(1L)
  if (requireNamespace("bit64", quietly = TRUE)) {
    expect_s3_class(big, "integer64")
    expect_equal(as.character(big), "1099511627776")
    expect_identical(m$big(big / bit64::as.integer64(1099511627776)), big)
    bigs <- m$bigs()
    expect_s3_class(bigs, "integer64")
    expect_equal(as.character(bigs), c("1", "1099511627776"))
  } else {
    expect_identical(big, 1099511627776)
  }
  expect_error(m$big(2.5), class = "tsb_type_error")
  expect_identical(m$big(0), 0L)
})

test_that("atomic vectors are typed lists, by the schema", {
  m <- rkinds()
  expect_identical(m$ints(c(1, 2, 3)), c(2L, 4L, 6L))         # doubles where List[int]
  expect_identical(m$ints(integer()), integer())
  expect_identical(m$ints(5L), 10L)                           # length 1 is a list here
  expect_identical(m$floats(c(1L, 2L)), c(1, 2))              # integers where List[float]
  expect_identical(m$floats(c(0.5, -1)), c(0.5, -1))
  expect_identical(m$bools(c(TRUE, FALSE)), c(FALSE, TRUE))
  expect_identical(m$strs(c("a", "\u00fc")), c("a!", "\u00fc!"))
  expect_identical(m$ints(list(1L, 2L)), c(2L, 4L))
  expect_identical(tsb_convert(c(1, 2), "List[float]"), c(1, 2))
  expect_identical(tsb_convert(c(1, 2), "List[int]"), c(1L, 2L))
})

test_that("Tuple, NamedTuple and List are never confused", {
  m <- rkinds()
  p <- m$point(list(x = 1.5, label = "a"))
  expect_s3_class(p, "tsb_namedtuple")
  expect_match(class(p)[1], "Point$")
  expect_identical(names(p), c("x", "label"))
  expect_identical(p$x, 3)
  p2 <- m$point(p)                    # goes back in as itself
  expect_identical(p2$x, 6)
  expect_identical(m$point(list(label = NULL, x = 1))$label, NULL)  # by field name
  t <- m$tup(list(1L, "b"))
  expect_s3_class(t, "tsb_tuple")
  # A named list where a plain Tuple is expected: a NamedTuple, which a
  # Tuple takes (test-named-tuples.R); with some names only, positions
  # decide, and R says the names were dropped.
  expect_silent(named <- m$tup(list(n = 1L, s = "x")))
  expect_warning(m$tup(list(n = 1L, "x")),
                 "the names of the list \\(n\\) are dropped: Tuple\\[int, str\\] takes its items by position")
  expect_identical(unclass(named)[[1]], 2L)
  expect_identical(unclass(t)[[1]], 2L)
  pairs <- m$pairs(3L)
  expect_type(pairs, "list")
  expect_false(inherits(pairs, "tsb_tuple"))
  expect_s3_class(pairs[[2]], "tsb_tuple")
  lists <- m$lists(2L)
  expect_identical(lists, list(0L, 1L))
  # Under Any, a NamedTuple keeps its type name; a list stays a List.
  back <- m$anything(p)
  expect_identical(class(back), class(p))
  expect_false(inherits(m$anything(list(1L, 2L)), "tsb_tuple"))
  expect_s3_class(m$anything(t), "tsb_tuple")
})

test_that("Dicts: str keys are named lists, others tsb_dict objects", {
  m <- rkinds()
  d <- m$str_keys(list(a = 1:2, b = integer()))
  expect_identical(d, list(a = 1:2, b = integer()))
  k <- m$int_keys(tsb_dict(c(1L, 2L), c("x", "y")))
  expect_s3_class(k, "tsb_dict")
  expect_identical(names(k), c("10", "20"))
  expect_identical(k[[20L]], "y")
  expect_identical(as.list(k), list(`10` = "x", `20` = "y"))
  expect_identical(length(k), 2L)
  k2 <- m$int_keys(k)                       # round trip keeps Dict[int, str]
  expect_identical(names(k2), c("100", "200"))
  expect_match(tsb_type_info(attr(k2, "tsb_type"))$annotation, "Dict\\[int, str\\]")
  expect_error(m$int_keys(list(a = "x")), class = "tsb_type_error")
})

test_that("Optional, NA and Union", {
  m <- rkinds()
  expect_identical(m$opt(), NULL)
  expect_identical(m$opt(3L), 3L)
  expect_identical(m$opt(NA), NULL)                 # NA is None where Optional
  expect_identical(m$opts(list(1L, NULL, NA)), list(1L, NULL, NULL))
  e <- expect_error(m$ints(c(1L, NA)), class = "tsb_type_error")
  expect_match(conditionMessage(e), "ints\\(\\): argument 'xs' → \\[1\\]: expected int, got integer NA")
  expect_error(m$strs(NA_character_), class = "tsb_type_error")
})

test_that("Enums print as Color.GREEN and have $name and $value", {
  m <- rkinds()
  g <- m$color("RED")
  expect_s3_class(g, "tsb_enum")
  expect_identical(format(g), "Color.GREEN")
  expect_identical(g$name, "GREEN")
  expect_identical(g$value, 2L)
  expect_identical(m$color(g)$name, "RED")            # a tsb_enum goes back in
  expect_output(print(g), "Color.GREEN")
})

test_that("script objects are environments with fields and methods", {
  m <- rkinds()
  r <- m$rect(1, 3)
  expect_true(is.environment(r))
  expect_s3_class(r, "tsb_object")
  expect_identical(r$lo, 1)
  expect_identical(r$area(), 4)
  expect_identical(r$grow(by = 2), 5)
  expect_identical(r$hi, 5)
  expect_identical(m$rect_area(r), 16)
  expect_error(r$nothing(), class = "tsb_error")
})

test_that("Device, dtype, layout and memory format are small S3 objects", {
  m <- rkinds()
  d <- m$device(tsb_device("cpu"))
  expect_s3_class(d, "tsb_device")
  expect_identical(unclass(d), "cpu")
  expect_identical(m$device("cpu"), d)
  f64 <- tsb_dtype("float64")
  expect_s3_class(f64, "tsb_dtype")
  t <- m$to_dtype(tsb_tensor(c(1.5, 2)), tsb_dtype("float32"))   # int in the schema: the code
  expect_identical(unclass(dtype(t)), "float32")
  expect_identical(unclass(tsb_layout("strided")), "strided")
  expect_identical(unclass(tsb_memory_format("channels_last")), "channels_last")
  expect_error(tsb_dtype("float33"), class = "tsb_error")
})

test_that("Any takes the R type", {
  m <- rkinds()
  expect_identical(m$anything(2L), 2L)
  expect_identical(m$anything(c(1.5, 2)), c(1.5, 2))
  expect_identical(m$anything(list(a = 1L)), list(a = 1L))
  expect_identical(m$anything(NULL), NULL)
  expect_identical(m$anything("s"), "s")
})

test_that("methods are R functions with formals and defaults from the schema", {
  m <- rkinds()
  f <- formals(m$forward)
  expect_identical(names(f), c("x", "scale"))
  expect_identical(f$scale, 2)
  expect_identical(as.vector(m$forward(c(1, 2))), c(2, 4))
  expect_identical(as.vector(m$forward(c(1, 2), scale = 3)), c(3, 6))
  expect_true(all(c("forward", "ints", "point") %in% m$methods))
  expect_match(m$schema("forward"), "scale")
  expect_output(print(m), "forward")
})
