# The clean-room test, R: the installed package calls the module and the
# out-of-tree plugin (tests/clean_room/inside.sh).
args <- commandArgs(trailingOnly = TRUE)
library(tsbridge)
m <- tsb_load(args[[1]])
out <- m$forward(x = list(a = tsb_tensor(matrix(1, 2, 3)), b = tsb_tensor(c(0, 1, 2, 3))), scale = 0.5)
stopifnot(isTRUE(all.equal(out[[1]], 6)), identical(out[[2]]$a, c(2L, 3L)))
err <- tryCatch(m$forward(x = list(a = "not a tensor")), error = function(e) conditionMessage(e))
stopifnot(grepl('argument \'x\' → key "a": expected', err, fixed = TRUE))
p <- tsb_load_plugin(args[[2]])
s <- tsb_ops$mysparse$summarize(tsb_tensor(c(0L, 0L, 2L, 3L)), 4L, 4L, with_counts = TRUE)
stopifnot(s$nnz == 4)
cat("R: ok", find.package("tsbridge"), "\n")
