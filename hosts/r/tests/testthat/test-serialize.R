# Modules without files and across processes: free functions compiled as
# R torch's jit_compile compiles them, modules to and from raw vectors,
# saveRDS()/readRDS(), and a parallel socket cluster (docs/r.md).

test_that("tsb_compile compiles free functions, as jit_compile does", {
  f <- tsb_compile(paste0("def fn(x: Tensor):\n    return torch.relu(x)\n",
                          "def shifted(x: Tensor, by: int = 1) -> Tensor:\n",
                          "    return fn(x) + by\n"))
  expect_identical(f$methods, c("fn", "shifted"))
  expect_identical(names(formals(f$shifted)), c("x", "by"))
  expect_identical(as.vector(f$fn(tsb_tensor(c(-1, 2)))), c(0, 2))
  expect_identical(as.vector(f$shifted(tsb_tensor(c(-1, 2)), by = 3L)), c(3, 5))
  expect_error(f$fn("a"), "fn\\(\\): argument 'x'", class = "tsb_type_error")
  expect_error(f$to_raw(), "a module of free functions")
})

test_that("a module goes to a raw vector and back; PyTorch's bytes load", {
  fx <- linear_fixture()
  bytes <- readBin(fx$path, "raw", file.size(fx$path))
  m <- tsb_load(bytes)
  expect_equal(as.matrix(m$forward(tsb_tensor(fx$x))), fx$want, tolerance = 1e-12)
  raw <- m$to_raw()
  expect_identical(raw[1:2], charToRaw("PK"))
  again <- tsb_load(raw)
  expect_equal(as.matrix(again$forward(tsb_tensor(fx$x))), fx$want, tolerance = 1e-12)
  expect_error(tsb_load(raw(0)), "no bytes to read a module from")
  expect_error(tsb_load(raw[1:100]), class = "tsb_error")
})

test_that("saveRDS()/readRDS() keep a module, with its state", {
  fx <- linear_fixture()
  m <- tsb_load(fx$path)
  tsb_with_no_grad(tsb_ops$aten$mul_(m$parameters$bias, 2))
  now <- as.matrix(m$forward(tsb_tensor(fx$x)))
  path <- tempfile(fileext = ".rds")
  saveRDS(m, path)
  back <- readRDS(path)
  expect_s3_class(back, "tsb_module")
  expect_identical(as.matrix(back$forward(tsb_tensor(fx$x))), now)
  expect_identical(names(back$parameters), c("weight", "bias"))
  back$eval()
  expect_false(back$training)
  # serialize() is what the parallel package and future use.
  copy <- unserialize(serialize(m, NULL))
  expect_identical(as.matrix(copy$forward(tsb_tensor(fx$x))), now)
})

test_that("a module and tensors go to a two-worker parallel socket cluster", {
  skip_if_not_installed("parallel")
  fx <- linear_fixture()
  m <- tsb_load(fx$path)
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  parallel::clusterCall(cl, function(libs) .libPaths(libs), .libPaths())
  rows <- split(seq_len(nrow(fx$x)), c(1, 1, 2, 2))
  parts <- parallel::parLapply(cl, rows, function(i, m, input) {
    # The module arrives serialized; tsbridge's namespace loads by itself.
    as.matrix(m$forward(tsbridge::tsb_tensor(input[i, , drop = FALSE])))
  }, m = m, input = fx$x)
  pids <- unlist(parallel::clusterCall(cl, Sys.getpid))
  expect_length(unique(pids), 2)
  expect_false(Sys.getpid() %in% pids)
  expect_identical(do.call(rbind, unname(parts)), as.matrix(m$forward(tsb_tensor(fx$x))))
  expect_equal(do.call(rbind, unname(parts)), fx$want, tolerance = 1e-12)
  # Tensors travel both ways: chunks out, the module's outputs (tsb_tensor) back.
  chunks <- lapply(rows, function(i) tsb_tensor(fx$x[i, , drop = FALSE]))
  back <- parallel::parLapply(cl, chunks, function(chunk, m) m$forward(chunk), m = m)
  expect_s3_class(back[[1]], "tsb_tensor")
  expect_identical(do.call(rbind, lapply(unname(back), as.matrix)), do.call(rbind, unname(parts)))
})

test_that("state_dict() and load_state_dict(), as R torch's script modules have them", {
  fx <- linear_fixture()
  m <- tsb_load(fx$path)
  state <- m$state_dict()
  expect_identical(names(state), c("weight", "bias"))  # PyTorch's state_dict() order
  expect_identical(dim(state$weight), c(2L, 3L))
  w <- matrix(c(1, 0, 0, 0, 1, 0), nrow = 2, byrow = TRUE)
  m$load_state_dict(list(weight = tsb_tensor(w), bias = tsb_tensor(c(10, 20))))
  want <- fx$x %*% t(w) + matrix(c(10, 20), nrow = 4, ncol = 2, byrow = TRUE)
  expect_identical(as.matrix(m$forward(tsb_tensor(fx$x))), want)
  expect_identical(as.matrix(state$weight), w)  # the module's own tensors
  expect_error(m$load_state_dict(list(weight = tsb_tensor(w), bias = tsb_tensor(c(1, 2, 3)))),
               "argument 'state' \u2192 key \"bias\": expected shape \\[2\\], got \\[3\\]",
               class = "tsb_type_error")
  expect_error(m$load_state_dict(list(bias = tsb_tensor(c(1, 2)))), "missing keys \"weight\"")
  m$load_state_dict(list(bias = tsb_tensor(c(1, 2))), strict = FALSE)
  expect_identical(as.vector(m$state_dict()$bias), c(1, 2))
})

test_that("register_parameter(), register_buffer() and graph_for()", {
  fx <- linear_fixture()
  m <- tsb_load(fx$path)
  m$register_parameter("extra", tsb_tensor(c(1, 2)))
  m$register_buffer("count", tsb_tensor(0))
  expect_identical(names(m$state_dict()), c("weight", "bias", "extra", "count"))
  expect_identical(names(m$buffers), "count")
  expect_error(m$register_parameter("training", tsb_tensor(1)), "already has an attribute 'training'")
  graph <- m$graph_for(tsb_tensor(fx$x))
  expect_match(graph, "aten::linear", fixed = TRUE)
  want <- python_out(sprintf(paste0(
    "import torch, re; m = torch.jit.load(%s); ",
    "print(' '.join(sorted(set(re.findall(r'= ([a-z_]+::[A-Za-z_0-9]+)', ",
    "str(m.graph_for(torch.zeros(4, 3, dtype=torch.float64))))))))"), shQuote(fx$path, type = "sh")))
  ours <- paste(sort(unique(regmatches(graph, gregexpr("(?<== )[a-z_]+::[A-Za-z_0-9]+", graph,
                                                     perl = TRUE))[[1]]), method = "radix"),
                collapse = " ")
  expect_identical(ours, want)
})

test_that("$save_for_mobile() writes what PyTorch's lite interpreter runs", {
  fx <- linear_fixture()
  m <- tsb_load(fx$path)
  path <- file.path(tsb_work, "linear.ptl")
  m$save_for_mobile(path)
  out <- python_out(sprintf(paste0(
    "import torch; from torch.jit.mobile import _load_for_lite_interpreter as load; m = load(%s); ",
    "print(m(torch.zeros(1, 3, dtype=torch.float64)).shape)"), shQuote(path, type = "sh")))
  expect_identical(out, "torch.Size([1, 2])")
})

test_that("tensors and objects survive serialize() and saveRDS()", {
  x <- tsb_tensor(matrix(as.double(1:6), nrow = 2))
  back <- unserialize(serialize(list(a = x, n = 3L), NULL))
  expect_s3_class(back$a, "tsb_tensor")
  expect_identical(as.matrix(back$a), as.matrix(x))
  expect_identical(dtype(back$a), dtype(x))
  expect_identical(back$n, 3L)
  i <- tsb_tensor(c(1L, 2L, 3L), dtype = "int64")
  path <- tempfile(fileext = ".rds")
  saveRDS(i, path)
  expect_identical(as.vector(readRDS(path)), c(1, 2, 3))
  expect_identical(unclass(dtype(readRDS(path))), "int64")
  # A leaf that requires grad keeps the flag, as torch.save keeps it.
  w <- tsb_tensor(c(1, 2))
  w$requires_grad <- TRUE
  expect_true(unserialize(serialize(w, NULL))$requires_grad)
})

test_that("a script object survives serialize() with its class, also in a fresh R", {
  obj <- rkinds()$rect(2, 3)  # a TorchScript class instance
  back <- unserialize(serialize(obj, NULL))
  expect_identical(back$area(), obj$area())
  expect_identical(back$hi, obj$hi)
  # A process that loaded no module gets the class with the object.
  rds <- tempfile(fileext = ".rds")
  saveRDS(obj, rds)
  script <- tempfile(fileext = ".R")
  writeLines(c("suppressPackageStartupMessages(library(tsbridge))",
               sprintf("o <- readRDS(%s)", deparse(rds)),
               "cat(o$area(), o$hi, '\\n')"), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE,
                 env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  expect_identical(trimws(out), paste(obj$area(), obj$hi))
})


test_that("a typed value keeps its type through serialize(), by the type's text", {
  m <- rkinds()
  t <- m$tup(tsb_tuple(1L, "a"))
  p <- m$point(list(x = 1, label = "a"))
  d <- m$int_keys(tsb_dict(c(1L, 2L), c("a", "b")))
  back <- unserialize(serialize(list(t = t, p = p, d = d), NULL))
  for (k in c("t", "p", "d")) {
    expect_identical(as.integer(attr(back[[k]], "tsb_type")), as.integer(attr(get(k), "tsb_type")))
  }
  expect_identical(m$anything(back$p), p)  # Any keeps the NamedTuple
  # A process that numbers types differently finds its own index by the text.
  rds <- tempfile(fileext = ".rds")
  saveRDS(list(t = t, d = d, p = p), rds)
  script <- tempfile(fileext = ".R")
  writeLines(c("suppressPackageStartupMessages(library(tsbridge))",
               "invisible(tsb_type_info('Tuple[str, str, str]'))",
               sprintf("v <- readRDS(%s)", deparse(rds)),
               "for (k in c('t', 'd')) cat(tsb_type_info(attr(v[[k]], 'tsb_type'))$annotation, '\\n')",
               "cat(attr(v$p, 'tsb_type'), '\\n')  # its module is not loaded here"), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE,
                 env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  expect_identical(trimws(out), c("Tuple[int, str]", "Dict[int, str]", "NA"))
})
