# Versions that clash (docs/install.md, "When versions clash"): archives and a
# .pt2 package whose records say another PyTorch wrote them, and a plugin
# built against another LibTorch, are refused naming both versions. ctest
# sets TSB_VERSION_FIXTURES (tests/core/runtime/make_version_fixtures.py) and
# TSB_OTHER_TORCH_PLUGIN.

version_fixture <- function(name) file.path(Sys.getenv("TSB_VERSION_FIXTURES"), name)

# versions.json's value of `key`: a string, or NA for null.
recorded <- function(key) {
  text <- paste(readLines(version_fixture("versions.json")), collapse = "\n")
  value <- regmatches(text, regexec(sprintf('"%s": ("([^"]*)"|[0-9]+|null)', key), text))[[1]]
  if (length(value) == 0) stop("no ", key, " in versions.json")
  if (value[2] == "null") NA_character_ else if (nzchar(value[3])) value[3] else value[2]
}

refusal <- function(expr) {
  e <- expect_error(expr, class = "tsb_unsupported_error")
  conditionMessage(e)
}

skip_without_fixtures <- function() {
  skip_if_not(file.exists(version_fixture("versions.json")),
              "TSB_VERSION_FIXTURES not set (run by ctest)")
}

test_that("a newer TorchScript file format names both versions", {
  skip_without_fixtures()
  path <- version_fixture("newer_format.pt")
  expect_identical(refusal(tsb_load(path)), sprintf(paste0(
    "cannot load module \"%s\": written by a newer PyTorch in TorchScript file format %s ",
    "(the archive records no PyTorch version); this is LibTorch %s, which reads format ",
    "versions up to 10"), path, recorded("newer_format"), recorded("libtorch")))
})

test_that("an operator this LibTorch lacks names it and the archive's record", {
  skip_without_fixtures()
  path <- version_fixture("unknown_op.pt")
  expect_identical(refusal(tsb_load(path)), sprintf(paste0(
    "cannot load module \"%s\": its code calls the operator aten::tsb_newer_op, which ",
    "LibTorch %s does not have: another PyTorch release wrote it (the archive records ",
    "TorchScript file format 3 and no PyTorch version)"), path, recorded("libtorch")))
})

test_that("a package compiled by another release names both", {
  skip_without_fixtures()
  ours <- recorded("libtorch")
  theirs <- recorded("newer_torch")
  if (is.na(theirs)) {  # LibTorch 1.13: a package names the release it needs
    path <- file.path(tempdir(), "any.pt2")
    writeLines("never read", path)
    expect_match(refusal(tsb_load(path)), sprintf(
      "needs LibTorch 2.6 or newer, and this library was built with LibTorch %s", ours),
      fixed = TRUE)
    return(invisible())
  }
  path <- version_fixture("newer_torch.pt2")
  expect_identical(refusal(tsb_load(path)), sprintf(paste0(
    "cannot load \"%s\": compiled by PyTorch %s (its model \"model\" needs ",
    "libtorch_cpu.so.%s); this is LibTorch %s: compile the package again with PyTorch %s"),
    path, theirs, theirs, ours, ours))
})

test_that("a plugin built against another LibTorch names both", {
  skip_without_fixtures()
  plugin <- Sys.getenv("TSB_OTHER_TORCH_PLUGIN")
  ours <- recorded("libtorch")
  message <- refusal(tsb_load_plugin(plugin))
  expect_true(startsWith(message, sprintf(paste0(
    "cannot load plugin '%s': built against LibTorch %s, this tsbridge against LibTorch %s ",
    "(platform \""), plugin, recorded("other_torch_plugin"), ours)), info = message)
  expect_true(endsWith(message, paste("rebuild the plugin against this tsbridge and LibTorch",
                                      ours)), info = message)
})

test_that("a plugin built against another SDK names both", {
  skip_without_fixtures()
  # Beside other_torch: the fixture an SDK before ABI 2 built.
  plugin <- file.path(dirname(dirname(Sys.getenv("TSB_OTHER_TORCH_PLUGIN"))), "old_sdk",
                      "libfixture_old_sdk.so")
  message <- refusal(tsb_load_plugin(plugin))
  expect_true(startsWith(message, sprintf(paste0(
    "cannot load plugin '%s': built against the tsbridge SDK ABI 1 (the C++ types shared ",
    "with plugins: KindCodec, TypeInfo), this tsbridge needs SDK ABI "), plugin)), info = message)
})
