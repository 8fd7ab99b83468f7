# Package start-up: checks the library's ABI major, loads the bundled
# plugins (Tuple, NamedTuple, Optional, Union, sparse) and TSB_PLUGIN_PATH.
.tsb <- new.env(parent = emptyenv())  # caches: field names per type index

.onLoad <- function(libname, pkgname) {
  want64 <- !identical(getOption("tsbridge.int64"), "double") &&
    requireNamespace("bit64", quietly = TRUE)
  .tsb$version <- .Call(tsbr_init, want64)
  invisible()
}

tsb_version <- function() .tsb$version

tsb_handle_count <- function() .Call(tsbr_handle_count)

tsb_release <- function(x) invisible(.Call(tsbr_release, x))
