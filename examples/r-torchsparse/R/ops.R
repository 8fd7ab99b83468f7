# The operators that take more than one storage or return more than one
# tensor; the plugin's NamedTuple results come back as named lists.

spmm <- function(x, ...) UseMethod("spmm")
# Sparse x dense: out[i, ] = reduce over the row's entries of value * mat[col, ].
# reduce is "sum", "mean", "max" or "min"; arg_out (for max and min) is the
# entry each output came from (nnz for an empty row).
spmm.sparse_storage <- function(x, mat, reduce = "sum", ...) {
  r <- .st(x)$spmm(tsb_tensor(mat), reduce)
  list(out = as.array(r[[1]]), arg_out = if (is.null(r[[2]])) NULL else as.array(r[[2]]))
}

spspmm <- function(x, y, ...) UseMethod("spspmm")
# Sparse x sparse, as a new storage (a missing value counts as 1).
spspmm.sparse_storage <- function(x, y, ...) {
  a <- .st(x)
  b <- .st(y)
  r <- .ops()$spspmm(a$rowptr(), a$col(), a$value(), b$rowptr(), b$col(), b$value(),
                     b$sparse_size(1L))
  .wrap(.ops()$storage_from_csr(r$rowptr, r$col, r$value, c(a$sparse_size(0L), b$sparse_size(1L))))
}

sample_adj <- function(x, ...) UseMethod("sample_adj")
# Up to num_neighbors neighbours of each node in idx (all when < 0), with
# their edge ids; a seed repeats the draw.
sample_adj.sparse_storage <- function(x, idx, num_neighbors, replace = FALSE, seed = NULL, ...) {
  st <- .st(x)
  r <- .ops()$sample_adj(st$rowptr(), st$col(), .index(idx), num_neighbors, replace, seed)
  list(rowptr = as.vector(r$rowptr), col = as.vector(r$col), e_id = as.vector(r$e_id))
}
