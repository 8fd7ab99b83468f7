# A SparseStorage like torchsparse's, on the sparse plugin's own torchbind
# class torchsparse.SparseStorage: every function below is one call into
# tsbridge, whose schemas convert the arguments (R vectors where the schema
# says Tensor, doubles where it says int[]) and the results (the storage
# object, NamedTuples of tensors). Indices are 0-based, as in the tensors
# torchsparse stores.

.ops <- function() tsb_ops$torchsparse
.index <- function(x) tsb_tensor(x, dtype = "int64")
.value <- function(x) if (is.null(x)) NULL else tsb_tensor(x)
.wrap <- function(storage) structure(list(storage = storage), class = "sparse_storage")
.st <- function(x) unclass(x)$storage

# Entries in any order; duplicates are kept until coalesce().
sparse_coo <- function(row, col, value = NULL, sparse_sizes) {
  o <- order(row, col)  # the storage keeps entries sorted by row
  .wrap(.ops()$storage_from_coo(.index(row[o]), .index(col[o]), .value(value[o]), sparse_sizes))
}

sparse_csr <- function(rowptr, col, value = NULL, sparse_sizes) {
  .wrap(.ops()$storage_from_csr(.index(rowptr), .index(col), .value(value), sparse_sizes))
}

# row, rowptr, col and value as R vectors (value NULL when there is none).
sparse_parts <- function(x) {
  st <- .st(x)
  value <- st$value()
  list(row = as.vector(st$row()), rowptr = as.vector(st$rowptr()), col = as.vector(st$col()),
       value = if (is.null(value)) NULL else as.vector(value))
}

dim.sparse_storage <- function(x) .st(x)$sparse_sizes()
t.sparse_storage <- function(x) .wrap(.st(x)$t())

print.sparse_storage <- function(x, ...) {
  cat("<sparse_storage ", paste(dim(x), collapse = " x "), ", nnz ", .st(x)$nnz(), ">\n", sep = "")
  invisible(x)
}

coalesce <- function(x, ...) UseMethod("coalesce")
coalesce.sparse_storage <- function(x, reduce = "sum", ...) .wrap(.st(x)$coalesce(reduce))

to_dense <- function(x, ...) UseMethod("to_dense")
to_dense.sparse_storage <- function(x, ...) as.array(.st(x)$to_dense())
