# Seeding LibTorch's generator from R, a missing library's advice in R's
# words, and docs/r.md listing every exported function.

test_that("tsb_ops$aten$manual_seed seeds dropout as torch.manual_seed does", {
  skip_if_not(has_torch(), "needs /usr/bin/python3 with torch")
  path <- file.path(tsb_work, "dropout.pt")
  script <- file.path(tsb_work, "dropout.py")  # torch.jit.script reads the source file
  writeLines(c(
    "import sys, torch",
    "class M(torch.nn.Module):",
    "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
    "        return torch.nn.functional.dropout(x, 0.5, training=True)",
    "m = torch.jit.script(M()); m.save(sys.argv[1]); torch.manual_seed(int(sys.argv[2]))",
    "print(' '.join(repr(v) for v in m(torch.arange(1.0, 65.0, dtype=torch.float64)).tolist()))"),
    script)
  want <- function(seed) {
    paste(system2(tsb_python3, c(script, shQuote(path), seed), stdout = TRUE), collapse = " ")
  }
  seven <- as.double(strsplit(want(7L), " ")[[1]])
  m <- tsb_load(path)
  ours <- function(seed) {
    tsb_ops$aten$manual_seed(seed)
    as.vector(m$forward(tsb_tensor(as.double(1:64))))
  }
  expect_identical(ours(7L), ours(7L))
  expect_false(identical(ours(7L), ours(8L)))
  expect_equal(ours(7L), seven)
})

test_that("a missing operator library is advised in R's words", {
  e <- tryCatch(tsb_compile("def f(self, x: Tensor) -> Tensor:\n    return ops.nosuchlib.op(x)\n"),
                error = identity)
  expect_match(conditionMessage(e), "operators first (tsb_load_library(\"PATH.so\"))",
               fixed = TRUE)
  expect_match(e$detail, "(tsb_load_library(\"PATH.so\"))", fixed = TRUE)
  expect_false(grepl("tsb_library_load|tsbridge.load_library|tsb --library",
                     conditionMessage(e)))
})

test_that("docs/r.md lists every exported function and a library's fields", {
  doc_path <- file.path(Sys.getenv("TSB_SOURCE_DIR"), "docs", "r.md")
  skip_if_not(file.exists(doc_path), "TSB_SOURCE_DIR is not set (ctest sets it)")
  doc <- paste(readLines(doc_path), collapse = "\n")
  exports <- getNamespaceExports("tsbridge")
  missing <- exports[!vapply(exports, function(f) grepl(paste0("`", f), doc, fixed = TRUE),
                             TRUE)]
  expect_identical(sort(missing), character(0))
  lib <- tsb_libraries()
  fields <- if (length(lib)) names(lib[[1]]) else c("id", "name", "path", "operators")
  for (f in fields) expect_true(grepl(paste0("`$", f, "`"), doc, fixed = TRUE), info = f)
})
