# Runs an installed package's testthat suite; fails on any failure.
# Usage: Rscript run_tests.R PACKAGE TEST_DIR
args <- commandArgs(trailingOnly = TRUE)
library(testthat)
testthat::set_max_fails(Inf)
result <- testthat::test_dir(args[2], package = args[1], load_package = "installed",
                             reporter = ProgressReporter$new(show_praise = FALSE),
                             stop_on_failure = TRUE)
