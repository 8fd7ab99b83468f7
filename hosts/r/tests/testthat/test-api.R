test_that("operators: tsb_ops$aten$add(a, b, alpha = 2)", {
  a <- tsb_tensor(c(1, 2, 3))
  b <- tsb_tensor(c(10, 20, 30))
  expect_identical(as.vector(tsb_ops$aten$add(a, b, alpha = 2)), c(21, 42, 63))
  expect_identical(as.vector(tsb_ops$aten$add(a, 1)), c(2, 3, 4))        # the Scalar overload
  expect_identical(as.vector(tsb_ops$aten$add(c(1, 2), c(3, 4))), c(4, 6))  # R vectors as tensors
  r <- tsb_ops$aten$reshape(tsb_tensor(as.double(1:6)), c(2, 3))         # doubles where int[]
  expect_identical(dim(r), c(2L, 3L))
  mx <- tsb_ops$aten$max(tsb_tensor(c(1, 5, 2)), 0L)
  expect_s3_class(mx, "tsb_namedtuple")
  expect_identical(names(mx), c("values", "indices"))
  expect_identical(as.vector(mx$indices), 1)
  expect_identical(tsb_ops$aten$add, tsb_ops$aten$add)    # made once
  expect_error(tsb_ops$aten$no_such_op, "no operator")
  expect_output(print(tsb_ops), "tsb_ops")
})

test_that("compile: methods with formals from the schema", {
  m <- tsb_compile("def twice(self, a: int, k: int = 2) -> int:\n    return a * k\n")
  expect_identical(names(formals(m$twice)), c("a", "k"))
  expect_identical(m$twice(21L), 42L)
  expect_identical(m$twice(2, k = 5), 10L)
  expect_error(m$twice("x"), class = "tsb_type_error")
  expect_error(tsb_compile("def broken(self) -> int:\n    return undefined_name\n"),
               class = "tsb_error")
})

test_that("a method kept in a variable calls its own method, by its resolved index", {
  m <- tsb_compile(paste0(
    "def plus_one(self, x: int) -> int:\n    return x + 1\n",
    "def plus_two(self, x: int) -> int:\n    return x + 2\n",
    "def check(self, k: int) -> int:\n",
    "    assert k >= 0, 'k must not be negative'\n    return k\n",
    "def noop(self) -> None:\n    pass\n"))
  one <- m$plus_one
  two <- m$plus_two
  expect_identical(one(1L), 2L)
  expect_identical(two(1L), 3L)
  expect_identical(one(10L), 11L)           # each call goes to its own method
  expect_null(m$noop())
  expect_identical(m$check(4L), 4L)         # other methods called in between
  expect_identical(two(10L), 12L)
  expect_identical(one(20L), 21L)
  noop <- m$noop
  for (i in 1:3) expect_null(noop())
  # Errors still name the method: the host's conversion and the call itself.
  check <- m$check
  expect_error(check("x"), "^check\\(\\): argument 'k'", class = "tsb_type_error")
  expect_error(check(-1L), "^check\\(\\): (.|\n)*k must not be negative", class = "tsb_torch_error")
  expect_error(one("x"), "^plus_one\\(\\): argument 'x'", class = "tsb_type_error")
  expect_identical(check(5L), 5L)           # still works after its errors
})

test_that("tensors out of a container stay valid after the container is gone", {
  m <- tsb_compile(paste0(
    "def pair(self, x: Tensor) -> Tuple[Tensor, List[Tensor]]:\n",
    "    return (x * 2, [x + 1, x])\n"))
  x <- tsb_tensor(c(1, 2, 3))
  out <- m$pair(x)
  a <- out[[1]]
  b <- out[[2]][[1]]
  same <- out[[2]][[2]]
  rm(out)
  invisible(gc())
  for (i in 1:3) m$pair(x)                  # the walk's borrowed entries reused
  invisible(gc())
  expect_identical(as.vector(a), c(2, 4, 6))
  expect_identical(as.vector(b), c(2, 3, 4))
  expect_identical(as.vector(same), c(1, 2, 3))
  rm(x)
  invisible(gc())
  expect_identical(as.vector(same), c(1, 2, 3))  # kept: its own reference
})

test_that("errors are conditions with class, path, detail and code", {
  m <- rkinds()
  e <- tryCatch(m$ints(list(1L, "x")), error = function(e) e)
  expect_s3_class(e, "tsb_type_error")
  expect_s3_class(e, "tsb_error")
  expect_identical(class(e)[3:4], c("error", "condition"))
  expect_identical(e$path, "ints(): argument 'xs' → [1]")
  expect_match(e$detail, "expected int, got character \"x\"")
  expect_identical(e$code, 2L)
  expect_match(conditionMessage(e), "^ints\\(\\): argument 'xs' → \\[1\\]: expected int")
  f <- tryCatch(m$fail(-1L), error = function(e) e)
  expect_s3_class(f, "tsb_torch_error")
  expect_match(conditionMessage(f), "k must not be negative")
  expect_error(m$point(list(1)), class = "tsb_type_error")
  expect_error(m$forward(), "missing")
  expect_error(tsb_load(tempfile()), class = "tsb_error")
})

test_that("bad input never crashes", {
  m <- rkinds()
  expect_error(m$ints(environment()), class = "tsb_type_error")
  expect_error(m$forward(list(1, 2)), class = "tsb_type_error")
  expect_error(m$six(NA_integer_, 1, TRUE, "x", 1L, 1), class = "tsb_type_error")
  expect_error(m$six(1:2, 1, TRUE, "x", 1L, 1), class = "tsb_type_error")
  expect_error(m$strs(1:3), class = "tsb_type_error")
  expect_error(.Call(tsbridge:::tsbr_tensor_info, NULL), class = "tsb_invalid_argument_error")
  expect_error(.Call(tsbridge:::tsbr_call_list, NULL, list()), class = "tsb_error")
  expect_error(.Call(tsbridge:::tsbr_module_methods, 1), class = "tsb_error")
  expect_error(tsb_convert(1, "NotAType[int]"), class = "tsb_error")
  expect_error(tsb_convert(list(1, 2), "Tuple[int]"), class = "tsb_type_error")
  expect_error(tsb_convert(tsb_dict(1, 2)[["x"]], "int"), class = "tsb_type_error")
  released <- tsb_tensor(c(1, 2))
  tsb_release(released)
  expect_error(dim(released), "is no longer valid \\(released with tsb_release\\(\\)\\)")
  back <- unserialize(serialize(released, NULL))
  expect_error(dim(back), "this tensor did not survive serialize\\(\\): .*no longer valid")
})

test_that("an R error inside a traced function propagates unchanged", {
  e <- tryCatch(tsb_trace(function(x) stop("boom from R"), list(tsb_tensor(1))),
                error = function(e) e)
  expect_identical(conditionMessage(e), "boom from R")
  expect_false(inherits(e, "tsb_error"))
})

test_that("tsb_trace binds named example inputs by name, as R calls fn", {
  fn <- function(x, y) tsb_ops$aten$sub(x, y)
  a <- tsb_tensor(c(5, 5))
  b <- tsb_tensor(c(1, 1))
  traced <- tsb_trace(fn, list(y = b, x = a))  # fn(a, b), not fn(b, a)
  expect_identical(as.vector(traced$forward(a, b)), c(4, 4))
  expect_identical(as.vector(tsb_trace(fn, list(a, y = b))$forward(a, b)), c(4, 4))
  expect_error(tsb_trace(fn, list(x = a, z = b)), "do not match the function's arguments")
  expect_error(tsb_trace(fn, list(y = b)), "missing: 'x'")
})

test_that("tsb_trace(strict = FALSE) records a named list output as a Dict", {
  fn <- function(x, y) list(sum = tsb_ops$aten$add(x, y), diff = tsb_ops$aten$sub(x, y))
  a <- tsb_tensor(c(5, 5))
  b <- tsb_tensor(c(1, 1))
  expect_error(tsb_trace(fn, list(a, b)), "dict", class = "tsb_torch_error")
  traced <- tsb_trace(fn, list(a, b), strict = FALSE)
  out <- traced$forward(tsb_tensor(c(1, 2)), tsb_tensor(c(3, 3)))
  expect_identical(names(out), c("sum", "diff"))
  expect_identical(as.vector(out$sum), c(4, 5))
  expect_identical(as.vector(out$diff), c(-2, -1))
  expect_error(tsb_trace(fn, list(a, b), strict = NA), "strict must be TRUE or FALSE")
})

test_that("tsb_trace records operators; $save() writes what PyTorch runs", {
  fn <- function(x) tsb_ops$aten$add(tsb_ops$aten$mul(x, 2), 1)
  traced <- tsb_trace(fn, list(tsb_tensor(c(1, 2, 3))))
  expect_identical(as.vector(traced$forward(tsb_tensor(c(5, 6)))), c(11, 13))
  path <- file.path(tsb_work, "traced_from_r.pt")
  traced$save(path)
  expect_identical(as.vector(tsb_load(path)$forward(tsb_tensor(c(0, 1)))), c(1, 3))
  out <- python_out(sprintf(
    "import torch; m = torch.jit.load(%s); print(m(torch.tensor([5.0, 6.0], dtype=torch.float64)).tolist())",
    shQuote(path, type = "sh")))
  expect_identical(out, "[11.0, 13.0]")
  two <- tsb_trace(function(a, b) tsb_tuple(tsb_ops$aten$add(a, b), tsb_ops$aten$sub(a, b)),
                   list(tsb_tensor(c(1, 2)), tsb_tensor(c(3, 4))))
  r <- two$forward(tsb_tensor(c(1, 1)), tsb_tensor(c(1, 0)))
  expect_s3_class(r, "tsb_tuple")
  expect_identical(as.vector(r[[2]]), c(0, 1))
})

test_that("operators follow TorchScript's call rules: ties, int for int[2]", {
  x <- tsb_tensor(array(as.double(1:50), c(1, 2, 5, 5)))
  w <- tsb_tensor(array(1, c(3, 2, 3, 3)))
  b <- tsb_tensor(c(0, 1, 2))
  expect_identical(dim(tsb_ops$aten$conv2d(x, w, b)), c(1L, 3L, 3L, 3L))
  expect_identical(dim(tsb_ops$aten$conv2d(x, w, b, 1L, 1L)), c(1L, 3L, 5L, 5L))
  expect_identical(dim(tsb_ops$aten$max_pool2d(x, 2L)), c(1L, 2L, 2L, 2L))
  # A lone number for SymInt[2] output_size is 3 (the call plan), not c(3).
  expect_identical(dim(tsb_ops$aten$adaptive_avg_pool2d(x, 3)), c(1L, 2L, 3L, 3L))
})

test_that("names(tsb_ops) and names(tsb_ops$aten) list what there is", {
  expect_true(all(c("aten", "prim") %in% names(tsb_ops)))
  ops <- names(tsb_ops$aten)
  expect_true(all(c("add", "conv2d", "relu") %in% ops))
  expect_identical(ops, sort(ops, method = "radix"))  # byte order, as C sorts
  expect_identical(utils::.DollarNames(tsb_ops$aten, "^conv2"), grep("^conv2", ops, value = TRUE))
  expect_identical(names(tsb_ops$no_such_namespace), character(0))
  # PyTorch's list in its own process (Python registers a few more).
  want <- strsplit(python_out(paste0(
    "import torch; print(' '.join(sorted({s.name[6:] for s in torch._C._jit_get_all_schemas() ",
    "if s.name.startswith('aten::')})))")), " ")[[1]]
  expect_true(all(ops %in% want))
  expect_gt(length(ops), 0.99 * length(want))
})

test_that("plugins: bundled ones load on first need; loading again is a no-op", {
  # A Tuple and an Optional need the tuple and optional plugins.
  expect_s3_class(tsb_convert(list(1L, "a"), "Tuple[int, str]"), "tsb_tuple")
  expect_null(tsb_convert(NULL, "Optional[int]"))
  names <- vapply(tsb_plugins(), function(p) p$name, "")
  expect_true(all(c("tuple", "optional") %in% names))
  first <- tsb_plugins()[[1]]
  again <- tsb_load_plugin(first$path)
  expect_identical(again$id, first$id)
  expect_output(print(again), "tsb_plugin")
  expect_error(tsb_load_plugin(tempfile(fileext = ".so")), class = "tsb_error")
})

test_that("values: JSON both ways and conversion", {
  expect_identical(tsb_to_json(list(1, "x"), "Tuple[float, str]"), "[1.0,\"x\"]")
  expect_identical(tsb_from_json("[1, 2]", "List[int]"), 1:2)
  expect_identical(tsb_convert(list(a = 1L, b = NA), "Dict[str, Optional[int]]"),
                   list(a = 1L, b = NULL))
  expect_s3_class(tsb_convert(list(1L, "a"), "Tuple[int, str]"), "tsb_tuple")
  expect_identical(tsb_type_info("List[int]")$kind, "List")
  expect_match(tsb_version(), "^1\\.")
})

test_that("no handle leaks after the calls above", {
  gc()
  before <- tsb_handle_count()
  m <- rkinds()
  for (i in 1:3) {
    m$point(list(x = 1, label = "a"))
    m$forward(tsb_tensor(c(1, 2)))
    m$rect(1, 2)
  }
  gc()
  expect_equal(tsb_handle_count(), before)
})

test_that("operator libraries: torchvision by name, then its operators", {
  lib <- tsb_load_library("torchvision")
  expect_s3_class(lib, "tsb_library")
  expect_true("torchvision::nms" %in% lib$operators)
  expect_true(any(vapply(tsb_libraries(), function(l) l$path == lib$path, TRUE)))
  expect_identical(tsb_load_library("torchvision")$path, lib$path)  # twice: a no-op
  boxes <- tsb_tensor(matrix(c(0, 0, 1, 1,
                               0, 0, 1, 1.1,
                               5, 5, 6, 6), ncol = 4, byrow = TRUE))
  scores <- tsb_tensor(c(0.9, 0.8, 0.7))
  keep <- tsb_ops$torchvision$nms(boxes, scores, 0.5)
  expect_equal(as.vector(keep), c(0, 2))  # the second box overlaps the first (IoU 0.91)
  e <- tryCatch(tsb_load_library("no_such_library"), error = function(e) e)
  expect_s3_class(e, "tsb_error")
  expect_match(conditionMessage(e), "no_such_library")
})

test_that("values nested past 512 containers are an error, not a C stack overflow", {
  # From TorchScript (a value made to contain itself is refused the same way).
  m <- tsb_compile(paste0(
    "def deep(self, n: int) -> List[Any]:\n",
    "    l: List[Any] = []\n",
    "    for i in range(n):\n",
    "        outer: List[Any] = [l]\n",
    "        l = outer\n",
    "    return l\n"))
  expect_length(m$deep(500L), 1L)
  e <- tryCatch(m$deep(600L), error = function(e) e)
  expect_s3_class(e, "tsb_invalid_argument_error")
  expect_match(e$detail, "nested at most 512 containers deep")
  # From R: a list nested 100k deep.
  deep <- list(1)
  for (i in 1:100000) deep <- list(deep)
  expect_error(tsb_convert(deep, "Any"), "nested at most 512 containers deep",
               class = "tsb_error")
  expect_error(tsb_to_json(deep), "nested at most 512 containers deep")
})

test_that("tsb_trace names the traced method", {
  traced <- tsb_trace(function(x) tsb_ops$aten$mul(x, 2), list(tsb_tensor(c(1, 2))),
                      method = "double")
  expect_identical(as.vector(traced$double(tsb_tensor(3))), 6)
  expect_error(tsb_trace(function(x) x, list(tsb_tensor(1)), method = "2x"),
               "expected a method name")
})

test_that("a module's declared types are named through it", {
  m <- rkinds()
  p <- tsb_convert(list(x = 1, label = "a"), "__torch__.Point", module = m)
  expect_match(class(p)[1], "Point$")
  expect_identical(names(p), c("x", "label"))
  expect_identical(tsb_type_info("__torch__.Point", module = m)$kind, "NamedTuple")
  expect_error(tsb_convert(list(x = 1, label = "a"), "__torch__.Point"),
               "tsb_module_parse_type")
  # Another load's class is another type (classes are told apart by
  # identity; a NamedTuple of the same name and fields is the same type).
  other <- tsb_load(fixture("rkinds.pt"))
  expect_false(identical(tsb_type_info("__torch__.Rect", module = other)$index,
                         tsb_type_info("__torch__.Rect", module = m)$index))
  expect_identical(tsb_type_info("__torch__.Point", module = other)$index,
                   tsb_type_info("__torch__.Point", module = m)$index)
})
