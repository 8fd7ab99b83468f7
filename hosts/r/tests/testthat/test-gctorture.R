# Every kind converted both ways, ALTREP arguments included
# (helper-conversions.R). ctest r_host_gctorture runs this file alone with
# TSB_R_GCTORTURE=1: gctorture(TRUE) collects at every allocation, so an
# unprotected SEXP, or a pointer into an R vector kept across an
# allocation, crashes or gives a wrong value there. r_host runs the same
# cases without the torture, which checks the expected values themselves.

test_that("every kind converts both ways, under gctorture when asked", {
  m <- rkinds()
  torture <- identical(Sys.getenv("TSB_R_GCTORTURE"), "1")
  run_conversions(conversion_cases(m), torture)
})
