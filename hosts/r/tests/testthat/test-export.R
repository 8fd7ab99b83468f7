# AOTInductor packages (docs/export.md) from R: the package
# tests/core/runtime/make_pt2_fixtures.py compiled, called with the same inputs as
# PyTorch's own caller (torch._inductor.aoti_load_package), must return the
# same values. ctest sets TSB_EXPORT_FIXTURES (helper-fixtures.R, export_fixture()).

f32 <- function(x) tsb_tensor(x, dtype = "float32")

test_that("a package returns what PyTorch's own caller returns", {
  skip_if_not(has_aoti(), "AOTInductor packages need LibTorch 2.6 (Debian 13)")
  path <- export_fixture("nested.pt2")
  m <- tsb_load(path)
  out <- m$forward(f32(c(1, 2, 3)), list(f32(c(0.5, 1, 1.5)), f32(c(2, 2, 2))),
                   list(f32(c(1, 0, 1)), f32(c(0, 1, 0))),
                   list(u = f32(c(1, 2, 3)), v = f32(c(0.5, 0.5, 0.5))),
                   list(f32(c(1, 2)), f32(c(3, 4))), NULL, scale = f32(c(2, 2, 2)),
                   span = list(f32(c(1, 2)), f32(c(3, 4))),
                   steps = tsb_tensor(c(1, 2, 3), dtype = "int64"))
  want <- python_out(paste0(
    "import torch\n",
    "t = lambda *v: torch.tensor(v, dtype=torch.float32)\n",
    "m = torch._inductor.aoti_load_package('", path, "')\n",
    "import collections\n",
    "from torch.utils import _pytree as pytree\n",
    "pytree._register_namedtuple(collections.namedtuple('Box', ['lo', 'hi']),\n",
    "                            serialized_type_name='tsbtest.Box')\n",
    "import dataclasses\n",
    "Span = dataclasses.make_dataclass('Span', [('start', torch.Tensor), ('stop', torch.Tensor)])\n",
    "torch.export.register_dataclass(Span, serialized_type_name='tsbtest.Span')\n",
    "o = m(t(1, 2, 3), (t(.5, 1, 1.5), t(2, 2, 2)), [t(1, 0, 1), t(0, 1, 0)],\n",
    "      {'u': t(1, 2, 3), 'v': t(.5, .5, .5)}, (t(1, 2), t(3, 4)), None, scale=t(2, 2, 2),\n",
    "      span=(t(1, 2), t(3, 4)), steps=torch.tensor([1, 2, 3]))\n",
    "for v in (o['sum'], o['parts'][1], o['box'][1], o['t'][0], o['span'].start):\n",
    "    print(' '.join(repr(float(x)) for x in v.reshape(-1).tolist()))\n"))
  want <- lapply(strsplit(strsplit(want, "\n")[[1]], " "), as.numeric)
  expect_identical(names(out), c("sum", "parts", "box", "none", "t", "span", "steps"))
  expect_null(out$none)
  expect_identical(as.vector(out$sum), want[[1]])
  expect_identical(as.vector(out$parts[[2]]), want[[2]])
  expect_identical(as.character(dtype(out$parts[[2]])), "float64")
  expect_identical(as.vector(out$box[[2]]), want[[3]])
  expect_identical(as.vector(out$t[[1]]), want[[4]])
  expect_identical(as.vector(out$span[[1]]), want[[5]])
  expect_identical(as.character(dtype(out$steps)), "int64")
  expect_error(m$forward(f32(1), list(f32(1), f32(1)), list(f32(1)),
                         list(u = f32(1), v = f32(1)), list(f32(1), f32(1)), NULL,
                         scale = f32(1), span = list(f32(1), f32(1)),
                         steps = tsb_tensor(1, dtype = "int64")),
               "argument 'arg2': expected a list of 2 items")
})

test_that("args() shows a package's signature", {
  skip_if_not(has_aoti(), "AOTInductor packages need LibTorch 2.6 (Debian 13)")
  m <- tsb_load(export_fixture("nested.pt2"))
  expect_identical(names(formals(m$forward)),
                   c("arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "scale", "span", "steps"))
})

test_that("without LibTorch 2.6 a package is refused by name", {
  skip_if(has_aoti(), "LibTorch 2.6 loads packages")
  path <- tempfile(fileext = ".pt2")
  writeLines("never read", path)
  expect_error(tsb_load(path), "needs LibTorch 2.6 or newer")
})
