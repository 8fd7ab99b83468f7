# A small set of conversions covering every kind both ways, ALTREP vectors
# among the arguments, for test-gctorture.R: each case is a function making
# calls on rkinds() and the result it must give. run_conversions() runs
# them all, with gctorture(TRUE) around the calls when asked, and compares
# with the torture off (testthat's own code need not be tortured).
conversion_cases <- function(m) {
  list(
    scalars = list(function() m$six(1L, 2, TRUE, "x", 2, 3L), 3L),
    complex = list(function() m$cplx(1+2i), 2+4i),
    `int beyond 32 bits` = list(function() as.numeric(m$big(1L)), 1099511627776),
    str = list(function() m$strs(c("a", "\u00fc")), c("a!", "\u00fc!")),
    `List[int]` = list(function() m$ints(c(1, 2, 3)), c(2L, 4L, 6L)),
    `List[int] from a list` = list(function() m$ints(list(1L, 2L)), c(2L, 4L)),
    `List[float]` = list(function() m$floats(c(1L, 2L)), c(1, 2)),
    `List[bool]` = list(function() m$bools(c(TRUE, FALSE)), c(FALSE, TRUE)),
    `List[List[int]]` = list(function() m$lists(2L), list(0L, 1L)),
    `List[Tuple[int, int]]` = list(function() lapply(m$pairs(2L), function(t) c(unclass(t))),
                                   list(list(0L, 0L), list(1L, 1L))),
    Tensor = list(function() as.vector(m$col_sums(matrix(as.double(1:6), 2))), c(3, 7, 11)),
    `Tensor of a matrix` = list(function() as.array(m$same(matrix(1:6, 2))), matrix(1:6, 2)),
    `Dict[str, List[int]]` = list(function() m$str_keys(list(a = 1:2, b = integer())),
                                  list(a = 1:2, b = integer())),
    `Dict[int, str]` = list(function() as.list(m$int_keys(tsb_dict(c(1L, 2L), c("x", "y")))),
                            list(`10` = "x", `20` = "y")),
    Tuple = list(function() c(unclass(m$tup(list(1L, "b")))), list(2L, "b")),
    NamedTuple = list(function() c(unclass(m$point(list(x = 1.5, label = "a")))),
                      list(x = 3, label = "a")),
    Optional = list(function() list(m$opt(), m$opt(3L), m$opt(NA)), list(NULL, 3L, NULL)),
    `List[Optional[int]]` = list(function() m$opts(list(1L, NULL, NA)), list(1L, NULL, NULL)),
    Union = list(function() c(m$union(3), m$union("a")), c("int", "str")),
    Enum = list(function() m$color("RED")$name, "GREEN"),
    object = list(function() m$rect_area(m$rect(1, 3)), 4),
    nested = list(function() {
      x <- m$anything(list(a = list(tsb_tuple(t = tsb_tensor(c(1, 2)), n = 2L), list(k = 1:3))))
      list(names(x$a[[1]]), as.vector(x$a[[1]]$t), x$a[[1]]$n, x$a[[2]])
    }, list(c("t", "n"), c(1, 2), 2L, list(k = 1:3))),
    `Tensor dtypes` = list(function() {
      list(as.vector(m$to_dtype(tsb_tensor(c(1.5, 2)), tsb_dtype("float32"))),
           as.vector(m$same(c(TRUE, FALSE))), as.vector(m$same(as.raw(1:3))),
           as.vector(m$same(c(1+1i, 2))))
    }, list(c(1.5, 2), c(TRUE, FALSE), 1:3, c(1+1i, 2+0i))),
    convert = list(function() tsb_convert(list(a = list(1L, 2L)), "Dict[str, List[int]]"),
                   list(a = c(1L, 2L))),
    JSON = list(function() tsb_from_json(tsb_to_json(list(a = 1:2, b = 3L), "Dict[str, List[int]]"),
                                         "Dict[str, List[int]]"), list(a = 1:2, b = 3L)),
    operator = list(function() as.vector(tsb_ops$aten$add(tsb_tensor(c(1, 2)), 1)), c(2, 3)),
    trace = list(function() {
      traced <- tsb_trace(function(x) tsb_ops$aten$mul(x, 2), list(tsb_tensor(c(1, 2))))
      as.vector(traced$forward(tsb_tensor(c(3, 4))))
    }, c(6, 8)),
    `an error's path` = list(function() {
      msg <- tryCatch(m$ints(c(1L, NA)), error = conditionMessage)
      startsWith(msg, "ints(): argument 'xs' \u2192 [1]: expected int, got integer NA")
    }, TRUE),
    # ALTREP arguments convert as their materialised equivalents.
    `compact int sequence` = list(function() m$ints(1:10), seq(2L, 20L, by = 2L)),
    `seq_len` = list(function() m$ints(seq_len(3)), c(2L, 4L, 6L)),
    `compact real sequence` = list(function() m$floats(as.numeric(1:5)), c(1, 2, 3, 4, 5)),
    `deferred strings` = list(function() m$strs(as.character(1:3)), c("1!", "2!", "3!")),
    `deferred strings of doubles` = list(function() m$strs(as.character(c(1.5, 2))),
                                         c("1.5!", "2!")),
    `sort() wrapper` = list(function() m$ints(sort(c(3L, 1L, 2L))), c(2L, 4L, 6L)),
    `sort() wrapper of doubles` = list(function() m$floats(sort(c(0.5, -1))), c(-1, 0.5)),
    `compact sequence as a Tensor` = list(function() as.vector(m$same(1:6)), 1:6),
    `compact real sequence as a Tensor` = list(function() as.vector(m$same(as.numeric(1:4))),
                                               c(1, 2, 3, 4)),
    `sort() wrapper as a Tensor` = list(function() as.vector(m$same(sort(c(3, 1, 2)))), c(1, 2, 3)),
    `compact sequence under Any` = list(function() m$anything(1:4), 1:4),
    `deferred strings under Any` = list(function() m$anything(as.character(1:2)), c("1", "2"))
  )
}

# Runs the cases (under gctorture when `torture`) and expects each result.
run_conversions <- function(cases, torture) {
  got <- vector("list", length(cases))
  if (torture) {
    gctorture(TRUE)
    on.exit(gctorture(FALSE))
  }
  for (i in seq_along(cases)) {
    got[i] <- list(tryCatch(cases[[i]][[1]](), error = function(e) e))
  }
  gctorture(FALSE)
  for (i in seq_along(cases)) {
    expect_identical(got[[i]], cases[[i]][[2]], label = names(cases)[i])
  }
}
