# The PyTorch corpus the Python host is checked against (hosts/python/tests/
# corpus.py), run from R: /usr/bin/python3 writes the arguments and
# PyTorch's results as JSON (hosts/r/tests/ctest/corpus_expected.py); each case's
# arguments are read as R values by the parameters' types, passed to the
# method, and the R result, written as JSON by the return type, must equal
# PyTorch's.
source_dir <- Sys.getenv("TSB_SOURCE_DIR")

corpus <- local({
  cases <- NULL
  function() {
    if (is.null(cases)) {
      skip_if(source_dir == "", "TSB_SOURCE_DIR (the tsbridge sources) is not set")
      skip_if_not(has_torch(), "needs /usr/bin/python3 with torch")
      dir <- file.path(tsb_work, "corpus")
      script <- file.path(source_dir, "hosts", "r", "tests", "ctest", "corpus_expected.py")
      if (system2(tsb_python3, c(shQuote(script), shQuote(dir))) != 0) stop("corpus_expected.py failed")
      cases <<- list(json = tsb_from_json(paste(readLines(file.path(dir, "corpus.json"), warn = FALSE),
                                                collapse = "\n"), "List[Dict[str, Any]]"),
                     modules = list(kinds = tsb_load(file.path(dir, "kinds.pt")),
                                    more = tsb_load(file.path(dir, "more.pt"))))
    }
    cases
  }
})

short_names <- function(json) gsub("\"(enum|class)\":\"[^\"]*\\.([^\".]+)\"", "\"\\1\":\"\\2\"", json)

test_that("every corpus case gives PyTorch's result", {
  c <- corpus()
  expect_gte(length(c$json), 42)
  for (case in c$json) {
    m <- c$modules[[case$module]]
    schema <- m$.schemas[[case$method]]
    types <- vapply(schema$arguments, function(a) a$type_index, 0L)
    args <- Map(function(json, type) tsb_from_json(json, type), case$args, types[seq_along(case$args)])
    result <- do.call(m[[case$method]], args)
    ret <- schema$returns[[1]]$type_index
    where <- paste0(case$module, ".", case$method, "(", paste(case$args, collapse = ", "), ")")
    got <- short_names(tsb_to_json(result, ret))
    want <- short_names(case$expected)
    if (!identical(got, want)) {  # the same value printed differently? Read PyTorch's back.
      again <- tryCatch(short_names(tsb_to_json(tsb_from_json(case$expected, ret), ret)),
                        error = function(e) conditionMessage(e))
      if (identical(got, again)) want <- again
    }
    expect_identical(got, want, label = where)
  }
})

test_that("the corpus's R values have the R classes docs/r.md promises", {
  c <- corpus()
  kinds <- c$modules$kinds
  more <- c$modules$more
  expect_s3_class(kinds$named(list(x = 1.25, label = "p")), "tsb_namedtuple")
  expect_s3_class(kinds$scalars(3L, 1.5, TRUE, 1-2i), "tsb_tuple")
  expect_identical(unclass(kinds$scalars(3L, 1.5, TRUE, 1-2i))[1:3], list(6L, 0.75, FALSE))
  expect_identical(format(kinds$enums("RED")), "Color.GREEN")
  expect_identical(kinds$objects(4L)$n, 5L)
  expect_s3_class(kinds$dicts(tsb_dict(c(1L, -2L), list(c(0.5, 1.5), numeric()))), "tsb_dict")
  expect_identical(kinds$optionals(NULL, NULL), NULL)
  expect_identical(more$ints(-5:4), seq(-10L, 8L, by = 2L))
  expect_identical(more$strs(c("a", "\u00fc", "")), c("a\u00e9", "\u00fc\u00e9", "\u00e9"))
  masks <- more$masks(tsb_tensor(c(-1, 0, 2)))
  expect_identical(as.vector(masks[[1]]), c(FALSE, FALSE, TRUE))
  expect_identical(more$unions(c(1L, 2L, 3L)), 3L)
  expect_identical(more$unions("s"), "s")
  expect_identical(more$unions(tsb_tensor(matrix(0, 2, 2))), 4L)
  acc <- more$account("ann")
  expect_identical(acc$owner, "ann")
  expect_identical(acc$deposit(5L, times = 2L), 20L)
  expect_identical(more$balance(acc), 20L)
})
