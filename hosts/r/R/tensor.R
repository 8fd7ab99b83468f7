# Tensors: an external pointer to a tsbridge handle (class tsb_tensor).

tsb_tensor <- function(x, dtype = NULL) .Call(tsbr_tensor_from_r, x, dtype)

.tensor_info <- function(x) .Call(tsbr_tensor_info, x)

dtype <- function(x) UseMethod("dtype")
dtype.tsb_tensor <- function(x) .tensor_info(x)$dtype

dim.tsb_tensor <- function(x) as.integer(.tensor_info(x)$shape)

as.array.tsb_tensor <- function(x, ...) {
  a <- .Call(tsbr_tensor_to_r, x)
  if (is.null(dim(a))) dim(a) <- 1L  # a 0-d tensor: an array of one
  a
}

as.vector.tsb_tensor <- function(x, mode = "any") {
  v <- .Call(tsbr_tensor_to_r, x)
  dim(v) <- NULL
  if (mode != "any") v <- as.vector(v, mode)
  v
}

as.double.tsb_tensor <- function(x, ...) as.double(as.vector(x))

as.matrix.tsb_tensor <- function(x, ...) {
  a <- .Call(tsbr_tensor_to_r, x)
  d <- dim(a)
  if (length(d) > 2) stop("as.matrix(): the tensor has ", length(d), " dimensions")
  if (length(d) < 2) dim(a) <- c(length(a), 1L)
  a
}

format.tsb_tensor <- function(x, ...) {
  info <- .tensor_info(x)
  paste0("tsb_tensor ", unclass(info$dtype), " [", paste(info$shape, collapse = ", "), "]",
         if (is.na(info$address)) paste0(" ", unclass(info$layout)) else "")
}

print.tsb_tensor <- function(x, n = 6L, ...) {
  cat(format(x), "\n")
  if (is.na(.tensor_info(x)$address)) {  # sparse: no values without a conversion
    cat("  (tsb_ops$aten$to_dense(x) gives its values)\n")
    return(invisible(x))
  }
  v <- as.vector(x)
  shown <- utils::head(v, n)
  cat(" ", paste(format(shown), collapse = " "), if (length(v) > n) " ...", "\n", sep = "")
  invisible(x)
}
