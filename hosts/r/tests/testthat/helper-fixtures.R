# Fixtures scripted by /usr/bin/python3's torch (TSB_PYTHON3), once per run,
# into TSB_R_TEST_WORK (ctest sets both) or a temporary directory.
tsb_python3 <- Sys.getenv("TSB_PYTHON3", "/usr/bin/python3")
tsb_work <- Sys.getenv("TSB_R_TEST_WORK", tempfile("tsb_r_tests_"))
dir.create(tsb_work, recursive = TRUE, showWarnings = FALSE)

# Asked once per session: each python3 that imports torch takes about a second.
has_torch <- local({
  answer <- NULL
  function() {
    if (is.null(answer)) {
      answer <<- file.exists(tsb_python3) &&
        identical(suppressWarnings(system2(tsb_python3, c("-c", shQuote("import torch")),
                                           stdout = FALSE, stderr = FALSE)), 0L)
    }
    answer
  }
})

fixture <- local({
  made <- FALSE
  function(name) {
    path <- file.path(tsb_work, name)
    # Made again on each run's first need: files left by an earlier run may
    # predate a change to fixtures.py.
    if (!made) {
      skip_if_not(has_torch(), "needs /usr/bin/python3 with torch for fixtures")
      status <- system2(tsb_python3, c(test_path("fixtures.py"), shQuote(tsb_work)))
      if (status != 0) stop("fixtures.py failed")
      made <<- TRUE
    }
    path
  }
})

rkinds <- local({
  m <- NULL
  function() {
    if (is.null(m)) m <<- tsb_load(fixture("rkinds.pt"))
    m
  }
})

# Runs Python code with torch and returns its printed output.
python_out <- function(code) {
  skip_if_not(has_torch(), "needs /usr/bin/python3 with torch")
  out <- system2(tsb_python3, c("-c", shQuote(code)), stdout = TRUE)
  paste(out, collapse = "\n")
}

# A scripted Linear(3, 2) saved by PyTorch, and its output for `x` as PyTorch
# computes it.
linear_fixture <- function() {
  path <- file.path(tsb_work, "serialize_linear.pt")
  want <- python_out(sprintf(paste0(
    "import torch; torch.manual_seed(0); m = torch.jit.script(torch.nn.Linear(3, 2).double()); ",
    "torch.jit.save(m, %s); x = torch.arange(12.0, dtype=torch.float64).reshape(4, 3); ",
    "print(' '.join(repr(v) for v in m(x).flatten().tolist()))"), shQuote(path, type = "sh")))
  list(path = path, x = matrix(as.double(0:11), nrow = 4, byrow = TRUE),
       want = matrix(as.double(strsplit(want, " ")[[1]]), nrow = 4, byrow = TRUE))
}

# The .pt2 packages tests/core/runtime/make_pt2_fixtures.py compiled into
# TSB_EXPORT_FIXTURES (set by ctest), where LibTorch is 2.6 or newer.
export_fixture <- function(name) file.path(Sys.getenv("TSB_EXPORT_FIXTURES"), name)
has_aoti <- function() file.exists(export_fixture("nested.pt2"))
