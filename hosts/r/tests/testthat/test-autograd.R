# Autograd and module state from R, against PyTorch's own gradients for the
# same module and inputs (autograd_fixtures.py, run by /usr/bin/python3).

autograd_fixture <- local({
  expected <- NULL
  function() {
    if (is.null(expected)) {
      skip_if_not(has_torch(), "needs /usr/bin/python3 with torch for fixtures")
      status <- system2(tsb_python3, c(test_path("autograd_fixtures.py"), shQuote(tsb_work)))
      if (status != 0) stop("autograd_fixtures.py failed")
      text <- paste(readLines(file.path(tsb_work, "autograd_expected.json"), warn = FALSE),
                    collapse = "")
      expected <<- tsb_from_json(text, "Dict[str, Tensor]")
    }
    expected
  }
})

# A fresh copy of the scripted Net (fc1, dropout, fc2, a buffer), in eval mode.
net <- function() tsb_load(file.path(tsb_work, "autograd_net.pt"))$eval()

# x as a leaf that requires grad (a copy: the fixture's tensor stays clean).
leaf <- function(t) {
  x <- tsb_ops$aten$clone(t)
  tsb_requires_grad(x) <- TRUE
  x
}

expect_tensor <- function(got, want) {
  expect_s3_class(got, "tsb_tensor")
  expect_equal(as.array(got), as.array(want), tolerance = 1e-12)
}

# Each gradient test's start: the fixture, a fresh net, x as a leaf and
# y = net(x), before any backward.
forward_leaf <- function() {
  e <- autograd_fixture()
  m <- net()
  x <- leaf(e$x)
  list(e = e, m = m, x = x, y = m$forward(x))
}

# The gradients of s's parameters and input against PyTorch's for `case`.
expect_grads <- function(s, case) {
  params <- s$m$parameters
  for (name in names(params)) {
    expect_tensor(tsb_grad(params[[name]]), s$e[[paste0("grad.", name, ".", case)]])
  }
  expect_tensor(tsb_grad(s$x), s$e[[paste0("grad.x.", case)]])
}

test_that("gradients through the R host equal PyTorch's (one output, its gradient)", {
  s <- forward_leaf()
  expect_null(tsb_grad(s$x))
  expect_true(tsb_requires_grad(s$y))
  expect_tensor(s$y, s$e$y)
  tsb_backward(s$y, s$e$grad_y)
  expect_grads(s, "output")
})

test_that("backward from two outputs, one with an R array as its gradient", {
  s <- forward_leaf()
  z <- tsb_ops$aten$sum(tsb_ops$aten$mul(s$y, s$y))
  tsb_backward(list(s$y, z), list(as.array(s$e$grad_y), NULL))
  expect_grads(s, "two")
})

test_that("an SGD step from R changes the module as PyTorch's does", {
  s <- forward_leaf()
  s$y$backward(s$e$grad_y)
  tsb_with_no_grad(for (p in s$m$parameters) tsb_ops$aten$add_(p, p$grad, alpha = -0.1))
  expect_tensor(s$m$forward(s$e$x), s$e[["y.after_step"]])
  s$m$zero_grad()
  for (p in s$m$parameters) expect_identical(max(abs(as.vector(tsb_grad(p)))), 0)
})

test_that("retain_graph keeps the graph; gradients accumulate; then it is freed", {
  w <- tsb_tensor(c(1, 2, 3))
  w$requires_grad <- TRUE
  expect_true(w$requires_grad)
  loss <- tsb_ops$aten$sum(tsb_ops$aten$mul(w, w))
  tsb_backward(loss, retain_graph = TRUE)
  expect_identical(as.vector(w$grad), c(2, 4, 6))
  loss$backward()
  expect_identical(as.vector(w$grad), c(4, 8, 12))  # accumulated
  expect_error(tsb_backward(loss), "second time", class = "tsb_torch_error")
  tsb_zero_grad(w)
  expect_identical(as.vector(tsb_grad(w)), c(0, 0, 0))
})

test_that("misuse is an error naming the output", {
  plain <- tsb_tensor(c(1, 2))
  e <- tryCatch(tsb_backward(plain), error = identity)
  expect_s3_class(e, "tsb_error")
  expect_match(conditionMessage(e), "outputs\\[0\\]")
  w <- leaf(tsb_tensor(c(1, 2)))
  y <- tsb_ops$aten$mul(w, 2)
  expect_error(tsb_backward(y), "grad_outputs\\[0\\]", class = "tsb_error")
  expect_error(tsb_backward(y, list(c(1, 2), NULL)), "one item per output")
  expect_error(tsb_backward(y, tsb_tensor(c(1, 2, 3))), "grad_outputs\\[0\\]")
  ints <- tsb_tensor(1:2)
  expect_error(tsb_requires_grad(ints) <- TRUE, class = "tsb_error")
  expect_error(tsb_requires_grad(w) <- NA, "TRUE or FALSE")
  expect_error(w$nope, "no field")
})

test_that("detach shares memory outside the graph", {
  w <- leaf(tsb_tensor(c(1, 2)))
  d <- tsb_detach(tsb_ops$aten$mul(w, 1))
  expect_false(tsb_requires_grad(d))
  d2 <- w$detach()
  tsb_ops$aten$mul_(d2, 3)  # in place on the detached view: w changes too
  expect_identical(as.vector(w), c(3, 6))
})

test_that("no-grad scopes record no graph and restore the mode, also on error", {
  w <- leaf(tsb_tensor(c(1, 2)))
  expect_true(tsb_grad_enabled())
  y <- tsb_with_no_grad(tsb_ops$aten$mul(w, 2))
  expect_false(tsb_requires_grad(y))
  expect_true(tsb_grad_enabled())
  expect_error(tsb_with_no_grad(stop("boom")), "boom")
  expect_true(tsb_grad_enabled())
  f <- function() {
    tsb_local_no_grad()
    tsb_requires_grad(tsb_ops$aten$mul(w, 2))
  }
  expect_false(f())
  expect_true(tsb_grad_enabled())
  was <- tsb_set_grad_enabled(FALSE)
  expect_true(was)
  expect_false(tsb_grad_enabled())
  tsb_set_grad_enabled(TRUE)
})

test_that("eval mode makes dropout the identity, train mode does not (recursively)", {
  e <- autograd_fixture()
  m <- tsb_load(file.path(tsb_work, "autograd_net.pt"))
  expect_true(m$training)
  expect_identical(m$eval(), m)
  expect_false(m$training)
  expect_false(m$children$drop$training)
  expect_tensor(m$forward(e$x), e$y)  # PyTorch's eval-mode output
  m$train()
  expect_true(m$children$drop$training)
  ones <- tsb_tensor(matrix(1, 50, 4))
  a <- as.array(m$forward(ones))
  b <- as.array(m$forward(ones))
  expect_false(isTRUE(all.equal(a, b)))  # dropout draws differ per call
  m$training <- FALSE
  expect_identical(as.array(m$forward(ones)), as.array(m$forward(ones)))
  m$children$drop$train()  # a child shares the parent's state
  expect_false(m$training)
  expect_true(m$children$drop$training)
})

test_that("parameters and buffers are the module's own tensors; attributes; code; graph", {
  autograd_fixture()
  m <- net()
  expect_identical(names(m$parameters), c("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"))
  expect_identical(names(m$buffers), "scale")
  expect_identical(dim(m$parameters$fc1.weight), c(8L, 4L))
  expect_true(all(c("fc1", "drop", "fc2", "steps", "label", "training") %in% m$attributes))
  expect_identical(names(m$children), c("fc1", "drop", "fc2"))
  expect_identical(names(m$children$fc1$parameters), c("weight", "bias"))
  # The buffer is shared: doubling it in place doubles the output.
  before <- as.array(m$forward(tsb_tensor(matrix(1, 2, 4))))
  tsb_ops$aten$mul_(m$buffers$scale, 2)
  expect_equal(as.array(m$forward(tsb_tensor(matrix(1, 2, 4)))), 2 * before, tolerance = 1e-12)
  expect_identical(m$get_attribute("steps"), 0L)
  m$set_attribute("steps", 3)  # a whole double is an int here
  expect_identical(m$get_attribute("steps"), 3L)
  expect_identical(m$get_attribute("label"), "net")
  expect_error(m$set_attribute("label", 5), class = "tsb_type_error")
  expect_error(m$get_attribute("nope"), class = "tsb_error")
  expect_match(m$code, "def forward", fixed = TRUE)
  expect_match(m$graph, "aten::tanh", fixed = TRUE)
  expect_match(m$method_graph("forward"), "aten::mul", fixed = TRUE)
  expect_error(m$method_graph("nope"), class = "tsb_error")
})

test_that("no handle leaks from training steps, parameters, children and grads", {
  e <- autograd_fixture()
  m <- net()
  step <- function() {
    x <- leaf(e$x)
    y <- m$forward(x)
    tsb_backward(list(y), list(e$grad_y))
    tsb_with_no_grad(for (p in m$parameters) tsb_ops$aten$add_(p, tsb_grad(p), alpha = -0.01))
    m$zero_grad()
    invisible(list(m$buffers, m$children, m$get_attribute("fc1"), tsb_detach(x), x$grad))
  }
  step()  # first use: operator callers, cached types
  gc()
  before <- tsb_handle_count()
  for (i in 1:3) step()
  gc()
  expect_equal(tsb_handle_count(), before)
})
