# Fixtures scripted by /usr/bin/python3's torch (TSB_PYTHON3), once per run,
# into TSB_R_TEST_WORK (ctest sets both) or a temporary directory.
tsb_python3 <- Sys.getenv("TSB_PYTHON3", "/usr/bin/python3")
tsb_work <- Sys.getenv("TSB_R_TEST_WORK", tempfile("tsb_r_tests_"))
dir.create(tsb_work, recursive = TRUE, showWarnings = FALSE)

has_torch <- function() {
  file.exists(tsb_python3) &&
    identical(suppressWarnings(system2(tsb_python3, c("-c", shQuote("import torch")),
                                       stdout = FALSE, stderr = FALSE)), 0L)
}

fixture <- local({
  made <- FALSE
  function(name) {
    path <- file.path(tsb_work, name)
    if (!made && !file.exists(path)) {
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
