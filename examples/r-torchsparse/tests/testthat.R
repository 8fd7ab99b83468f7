library(testthat)
library(torchsparse)

test_check("torchsparse")
