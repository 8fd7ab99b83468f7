# The three R torch gaps: a named tsb_tuple under Any comes back named (a
# NamedTuple, as R torch gives a named jit_tuple back); a variadic operator
# is listed, printed with its schema and refused with the reason; a named
# tsb_tuple of tensors traces in both modes. Each against PyTorch.

test_that("a named tsb_tuple under Any comes back named; a named list stays a Dict", {
  m <- rkinds()
  back <- m$anything(tsb_tuple(a = 1L, b = "x"))
  expect_s3_class(back, "tsb_tuple")
  expect_identical(names(back), c("a", "b"))
  expect_identical(back$a, 1L)
  expect_identical(back$b, "x")
  # PyTorch gives the same values for the same call (it has no nameless
  # NamedTuple to pass: its namedtuple under Any drops the names).
  expect_identical(python_out(sprintf(
    "import torch; m = torch.jit.load(%s); print(m.anything((1, 'x')))",
    shQuote(fixture("rkinds.pt"), type = "sh"))), "(1, 'x')")
  # Nested, and back in as itself.
  nested <- m$anything(list(tsb_tuple(t = tsb_tensor(c(1, 2)), n = 2L)))
  expect_identical(names(nested[[1]]), c("t", "n"))
  expect_identical(as.vector(nested[[1]]$t), c(1, 2))
  again <- m$anything(back)
  expect_identical(names(again), c("a", "b"))
  # A plain named list is a Dict[str, Any], as R torch makes of it.
  d <- m$anything(list(a = 1L, b = "x"))
  expect_false(inherits(d, "tsb_tuple"))
  expect_identical(d, list(a = 1L, b = "x"))
  # An unnamed tsb_tuple stays a plain Tuple.
  expect_null(names(m$anything(tsb_tuple(1L, "x"))))
})

test_that("a named list keeps its names under a Tuple type", {
  m <- rkinds()
  expect_silent(t <- m$tup_as_any(list(n = 1L, s = "x")))
  expect_s3_class(t, "tsb_tuple")
  expect_identical(names(t), c("n", "s"))
  expect_identical(python_out(sprintf(
    "import torch; m = torch.jit.load(%s); print(m.tup_as_any((1, 'x')))",
    shQuote(fixture("rkinds.pt"), type = "sh"))), "(1, 'x')")
  # Some names only: by position, and R says so.
  expect_warning(partial <- m$tup_as_any(list(n = 1L, "x")),
                 "the names of the list \\(n\\) are dropped")
  expect_null(names(partial))
})

test_that("a nameless NamedTuple goes to a NamedTuple parameter by field name", {
  m <- rkinds()
  p <- m$point(m$anything(tsb_tuple(label = "a", x = 1.5)))
  expect_s3_class(p, "tsb_namedtuple")
  want <- python_out(sprintf(
    "import torch; m = torch.jit.load(%s); print(m.point((1.5, 'a')))",
    shQuote(fixture("rkinds.pt"), type = "sh")))
  expect_match(want, "x=3.0, label='a'", fixed = TRUE)
  expect_identical(p$x, 3)
  expect_identical(p$label, "a")
  expect_error(m$anything(tsb_tuple(`a b` = 1L)),
               "field_names\\[0\\]: expected an identifier .*got \"a b\"")
})

test_that("a variadic operator is listed, printed with its schema and refused with the reason", {
  expect_true("ChunkSizes" %in% names(tsb_ops$prim))
  op <- tsb_ops$prim$ChunkSizes
  expect_match(attr(op, "tsb_schema"), "^prim::ChunkSizes\\(\\.\\.\\.\\) -> ")
  expect_match(attr(op, "tsb_schema"), "takes a variable number of arguments")
  expect_output(print(op), "prim::ChunkSizes(...)", fixed = TRUE)
  expect_error(op(tsb_tensor(c(1, 2, 3, 4)), 2L),
               "prim::ChunkSizes\\(\\.\\.\\.\\) -> .* takes a variable number of arguments, which tsb_op_call cannot bind",
               class = "tsb_unsupported_error")
})

test_that("a named tsb_tuple of tensors traces in both modes, as torch.jit.trace does", {
  fn <- function(x, y) tsb_tuple(sum = tsb_ops$aten$add(x, y), diff = tsb_ops$aten$sub(x, y))
  a <- tsb_tensor(c(5, 5))
  b <- tsb_tensor(c(1, 2))
  want <- python_out(paste0(
    "import torch, collections; P = collections.namedtuple('P', ['sum', 'diff']); ",
    "x, y = torch.tensor([5.0, 5.0], dtype=torch.float64), torch.tensor([1.0, 2.0], dtype=torch.float64); ",
    "print([[t.tolist() for t in torch.jit.trace(lambda a, b: P(a + b, a - b), (x, y), strict=s)(y, x)] ",
    "for s in (True, False)])"))
  got <- lapply(c(TRUE, FALSE), function(strict) {
    traced <- tsb_trace(fn, list(a, b), strict = strict)
    out <- traced$forward(b, a)
    expect_s3_class(out, "tsb_tuple")
    lapply(unclass(out), as.vector)
  })
  expect_identical(want, "[[[6.0, 7.0], [-4.0, -3.0]], [[6.0, 7.0], [-4.0, -3.0]]]")
  expect_identical(got, rep(list(list(c(6, 7), c(-4, -3))), 2))
})

test_that("a named tsb_tuple input keeps its names inside the traced function (R torch's test)", {
  # R torch's "tuple inputs are correctly handled": fn reads the input's
  # fields by name; the names used to be lost, x$t1 was NULL, and the
  # tracer refused the NULL output. torch.jit.trace hands its function a
  # plain tuple (x.t1 fails there), so PyTorch's reads by position.
  fn <- function(x) tsb_tuple(x = x$t1, y = x$t2)
  x <- tsb_tuple(t1 = tsb_tensor(1), t2 = tsb_tensor(2))
  want <- python_out(paste0(
    "import torch, collections; In = collections.namedtuple('In', ['t1', 't2']); ",
    "Out = collections.namedtuple('Out', ['x', 'y']); ",
    "f = lambda x: Out(x[0] * 1, x[1] * 1); x = In(torch.tensor([1.0]), torch.tensor([2.0])); ",
    "print([[t.tolist() for t in torch.jit.trace(f, (x,), strict=s)(In(torch.tensor([3.0]), torch.tensor([4.0])))] ",
    "for s in (True, False)])"))
  expect_identical(want, "[[[3.0], [4.0]], [[3.0], [4.0]]]")
  for (strict in c(TRUE, FALSE)) {
    traced <- tsb_trace(fn, list(x), strict = strict)
    out <- traced$forward(tsb_tuple(t1 = tsb_tensor(3), t2 = tsb_tensor(4)))
    expect_identical(lapply(unclass(out), as.vector), list(3, 4))  # names dropped, as PyTorch
  }
})
