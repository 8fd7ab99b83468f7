library(testthat)
library(tsbridge)

test_check("tsbridge")
