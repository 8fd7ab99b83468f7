# R code that could change an argument while it converts. The R host runs
# none inside a conversion (docs/r.md, "Memory safety"): it reads a list's
# own elements and names, never an S3 method; an active binding where a
# tsb_object keeps its handle is refused; the one warning a conversion
# gives is signalled after it. Malformed objects of the host's own classes
# are refused with their path, never read out of bounds.

test_that("S3 methods of a list argument are not called: its own elements are read", {
  m <- rkinds()
  calls <- new.env()
  calls$n <- 0L
  hostile <- function(...) {
    calls$n <- calls$n + 1L
    stop("an S3 method ran during the conversion")
  }
  for (generic in c("[[", "[", "length", "names", "as.list", "$")) {
    registerS3method(generic, "tsb_test_hostile", hostile)
  }
  x <- structure(list(1L, "b"), class = "tsb_test_hostile")
  expect_error(length(x), "an S3 method ran")  # dispatch would call them
  calls$n <- 0L
  expect_identical(c(unclass(m$tup(x))), list(2L, "b"))
  expect_identical(m$anything(x), list(1L, "b"))
  named <- structure(list(a = 1:2), class = "tsb_test_hostile")
  expect_identical(m$anything(named), list(a = 1:2))
  expect_identical(m$str_keys(named), list(a = 1:2))
  expect_identical(m$ints(structure(list(1L, 2L), class = "tsb_test_hostile")), c(2L, 4L))
  # A wrong item is refused with its path, as in a plain list.
  e <- expect_error(m$ints(x), class = "tsb_type_error")
  expect_match(conditionMessage(e), "ints(): argument 'xs' \u2192 [1]: expected int, got str \"b\"",
               fixed = TRUE)
  expect_identical(calls$n, 0L)
})

test_that("a tsb_object whose .handle is an active binding is refused, its code not run", {
  m <- rkinds()
  r <- m$rect(1, 3)
  runs <- 0L
  e <- new.env()
  makeActiveBinding(".handle", function() {
    runs <<- runs + 1L
    rm(".handle", envir = e)            # changes the environment being read
    get(".handle", envir = r)
  }, e)
  class(e) <- class(r)
  err <- expect_error(m$rect_area(e), class = "tsb_invalid_argument_error")
  expect_match(conditionMessage(err),
               "rect_area(): argument 'r': expected a tsbridge object, got an environment whose .handle is an active binding",
               fixed = TRUE)
  failing <- new.env()
  makeActiveBinding(".handle", function() stop("raised inside the conversion"), failing)
  class(failing) <- class(r)
  expect_error(m$anything(list(1L, failing)), "\\[1\\]: expected a tsbridge object")
  expect_identical(runs, 0L)
  expect_true(bindingIsActive(".handle", e))  # unchanged
  expect_identical(m$rect_area(r), 4)        # the host is still sound
})

test_that("the warning a conversion gives is signalled after it, so its handler runs no R code inside", {
  m <- tsb_compile(paste0("def tups(self, xs: List[Tuple[int, str]]) -> List[Tuple[int, str]]:\n",
                          "    return xs\n"))
  inner <- NULL
  seen <- character()
  out <- withCallingHandlers(
    m$tups(list(list(1L, "a"), list(n = 2L, "b"), list(3L, "c"))),
    warning = function(w) {
      seen <<- c(seen, conditionMessage(w))
      inner <<- m$tups(list(list(9L, "z")))  # a conversion from the handler
      invokeRestart("muffleWarning")
    })
  expect_identical(lapply(out, function(t) c(unclass(t))), list(list(1L, "a"), list(2L, "b"), list(3L, "c")))
  expect_identical(lapply(inner, function(t) c(unclass(t))), list(list(9L, "z")))
  expect_identical(seen, "the names of the list (n) are dropped: Tuple[int, str] takes its items by position")
  # The handler runs once the argument has converted: not at all when a
  # later item fails (it used to run in the middle, before the failure).
  seen <- character()
  expect_error(withCallingHandlers(m$tups(list(list(n = 1L, "a"), list(1L, 2L))),
                                   warning = function(w) seen <<- conditionMessage(w)),
               "argument 'xs' \u2192 \\[1\\] \u2192 \\[1\\]: expected str, got integer 2")
  expect_identical(seen, character())
  # A handler that raises ends the call with its error, as R's own would.
  expect_error(withCallingHandlers(m$tups(list(list(n = 1L, "a"))), warning = function(w) stop("no")),
               "no")
  expect_identical(length(m$tups(list(list(1L, "a")))), 1L)
})

test_that("malformed tsb_dict, tsb_enum and tsb_tuple objects are refused with their path", {
  m <- rkinds()
  for (bad in list(structure(list(), class = "tsb_dict"),
                   structure(list(1L), class = "tsb_dict"),
                   structure(1:3, class = "tsb_dict"),
                   structure(list(1L, 2L, 3L), class = "tsb_dict"))) {
    e <- expect_error(m$anything(list(bad)), class = "tsb_invalid_argument_error")
    expect_match(conditionMessage(e), "anything(): argument 'x' \u2192 [0]: expected a tsb_dict (a list of keys and values)",
                 fixed = TRUE)
  }
  expect_error(m$int_keys(structure(list(), class = "tsb_dict")), class = "tsb_invalid_argument_error")
  expect_error(m$anything(structure(list(), class = "tsb_enum")), "a tsb_enum without its type")
  expect_identical(c(unclass(m$anything(structure(1:2, class = "tsb_tuple")))), list(1L, 2L))
})

test_that("a string in \"bytes\" encoding is refused with its path, not raised through the host", {
  m <- rkinds()
  x <- c("ok", "\xff")
  Encoding(x) <- c("unknown", "bytes")
  e <- expect_error(m$strs(x), class = "tsb_type_error")
  expect_match(conditionMessage(e), "argument 'xs' \u2192 [1]: expected str, got a string in \"bytes\" encoding",
               fixed = TRUE)
  expect_error(m$str_keys(stats::setNames(list(1L), x[2])), "\"bytes\" encoding")
  expect_identical(m$strs("ok"), "ok!")
})
