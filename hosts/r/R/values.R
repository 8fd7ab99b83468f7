# Values that have no R counterpart of their own: Tuple, NamedTuple, Enum,
# Dict with non-string keys, script objects, dtype/device/layout/memory
# format. Each keeps its TorchScript type (attribute tsb_type) so that it
# goes back in as the same type.

# With a module, the classes, NamedTuples and Enums it declares are known
# by name too ("__torch__.Point"): each module's own.
.type_index <- function(type, module = NULL) {
  if (is.numeric(type)) return(as.integer(type))
  if (!is.null(module) && !inherits(module, "tsb_module")) {
    stop("module must be a tsb_module, got ", class(module)[1])
  }
  .Call(tsbr_parse_type, type, if (is.null(module)) NULL else module$.ptr)
}

tsb_type_info <- function(type, module = NULL) {
  info <- .Call(tsbr_type_info, .type_index(type, module))
  kinds <- c("invalid", "None", "bool", "int", "float", "complex", "str", "Tensor",
             "Device", "dtype", "Layout", "MemoryFormat", "Scalar", "Any", "", "",
             "List", "Dict", "Tuple", "NamedTuple", "Optional", "Union", "Enum",
             "object", "custom class")
  info$kind <- kinds[info$kind + 1L]
  info
}

tsb_convert <- function(x, type, module = NULL) .Call(tsbr_convert, x, .type_index(type, module))
tsb_to_json <- function(x, type = "Any") .Call(tsbr_to_json, x, .type_index(type))
tsb_from_json <- function(json, type = "Any") .Call(tsbr_from_json, json, .type_index(type))

tsb_tuple <- function(...) structure(list(...), class = "tsb_tuple")

tsb_dict <- function(keys, values, type = NULL) {
  keys <- as.list(keys)
  values <- as.list(values)
  if (length(keys) != length(values)) stop("tsb_dict(): keys and values differ in length")
  d <- structure(list(keys = keys, values = values), class = "tsb_dict")
  if (!is.null(type)) d <- tsb_convert(d, type)
  d
}

tsb_dtype <- function(name) tsb_convert(structure(as.character(name), class = "tsb_dtype"), 9L)
tsb_device <- function(name) tsb_convert(structure(as.character(name), class = "tsb_device"), 8L)
tsb_layout <- function(name) tsb_convert(structure(as.character(name), class = "tsb_layout"), 10L)
tsb_memory_format <- function(name) {
  tsb_convert(structure(as.character(name), class = "tsb_memory_format"), 11L)
}

.print_named <- function(x, label) {
  cat("<", label, " ", unclass(x), ">\n", sep = "")
  invisible(x)
}
print.tsb_dtype <- function(x, ...) .print_named(x, "tsb_dtype")
print.tsb_device <- function(x, ...) .print_named(x, "tsb_device")
print.tsb_layout <- function(x, ...) .print_named(x, "tsb_layout")
print.tsb_memory_format <- function(x, ...) .print_named(x, "tsb_memory_format")

.short <- function(name) sub(".*\\.", "", name)
.plain <- function(x) {
  attr(x, "tsb_type") <- NULL
  unclass(x)
}

print.tsb_tuple <- function(x, ...) {
  cat("<tsb_tuple of ", length(x), ">\n", sep = "")
  print(.plain(x), ...)
  invisible(x)
}

print.tsb_namedtuple <- function(x, ...) {
  cat("<", class(x)[1], ">\n", sep = "")
  print(.plain(x), ...)
  invisible(x)
}

format.tsb_enum <- function(x, ...) paste0(.short(class(x)[1]), ".", unclass(x)$name)
print.tsb_enum <- function(x, ...) {
  cat(format(x), "\n")
  invisible(x)
}

names.tsb_dict <- function(x) vapply(unclass(x)$keys, function(k) format(k), "")
length.tsb_dict <- function(x) length(unclass(x)$keys)
as.list.tsb_dict <- function(x, ...) stats::setNames(unclass(x)$values, names(x))
`[[.tsb_dict` <- function(x, i, ...) {
  keys <- unclass(x)$keys
  for (k in seq_along(keys)) {
    if (identical(keys[[k]], i) || isTRUE(all.equal(keys[[k]], i, check.attributes = FALSE))) {
      return(unclass(x)$values[[k]])
    }
  }
  NULL
}
print.tsb_dict <- function(x, ...) {
  type <- attr(x, "tsb_type")
  cat("<tsb_dict", if (!is.null(type)) tsb_type_info(type)$annotation, "of", length(x), "items>\n")
  print(as.list(x), ...)
  invisible(x)
}

# Script objects and torchbind objects: environments; fields by name,
# anything else is a method.
.object_fields <- function(x) {
  index <- attr(x, "tsb_type")
  # Read back where its class was unknown: the class came with the object.
  if (is.na(index)) index <- .Call(tsbr_object_type, x)
  key <- as.character(index)
  fields <- .tsb[[key]]
  if (is.null(fields)) {
    fields <- tsb_type_info(index)$fields
    assign(key, fields, envir = .tsb)
  }
  fields
}

`$.tsb_object` <- function(x, name) {
  if (name %in% .object_fields(x)) return(.Call(tsbr_object_field, x, name))
  function(...) .Call(tsbr_object_call, x, name, list(...))
}

print.tsb_object <- function(x, ...) {
  fields <- .object_fields(x)
  cat("<", class(x)[1], ">", if (length(fields)) paste(" fields:", paste(fields, collapse = ", ")),
      "\n", sep = "")
  invisible(x)
}
