# Runs an installed package's testthat suite; fails on any failure.
# Usage: Rscript run_tests.R PACKAGE TEST_DIR [FILTER]
# FILTER (a regular expression on the files' names) runs those files only.
args <- commandArgs(trailingOnly = TRUE)
library(testthat)
testthat::set_max_fails(Inf)
filter <- if (length(args) >= 3) args[3] else NULL
result <- testthat::test_dir(args[2], package = args[1], load_package = "installed",
                             filter = filter,
                             reporter = ProgressReporter$new(show_praise = FALSE),
                             stop_on_failure = TRUE)
