# An int above INT64_MAX (ABI 1.6). R has no uint64: one comes out as a
# double, and a whole double in [2^63, 2^64) goes in where an int is
# expected. With LibTorch 2.9 and newer it crosses an `int` parameter and
# result as what it is, alone, in List[int] and in Dict[str, int]; before,
# it is refused naming the release. TSB_TORCH_VERSION is the LibTorch the
# build found (hosts/r/tests/ctest/r.cmake).

torch_version <- Sys.getenv("TSB_TORCH_VERSION")
has_uint <- function() {
  if (!nzchar(torch_version)) stop("TSB_TORCH_VERSION is not set (hosts/r/tests/ctest/r.cmake sets it)")
  numeric_version(torch_version) >= "2.9"
}

uint_module <- function() {
  tsb_compile(paste0(
    "def ident(self, x: int) -> int:\n    return x\n",
    "def ints(self, xs: List[int]) -> List[int]:\n    return xs\n",
    "def table(self, d: Dict[str, int]) -> Dict[str, int]:\n    return d\n"))
}

expect_refused <- function(expr) {
  expect_error(expr, "which needs LibTorch 2\\.9 or newer \\(an int above INT64_MAX",
               class = "tsb_unsupported_error")
}

test_that("2^63 goes through an int method and back as a double", {
  m <- uint_module()
  if (!has_uint()) {
    expect_refused(m$ident(2^63))
    expect_refused(m$ints(c(1, 2^63)))
    expect_refused(m$table(list(a = 2^63)))
    return(invisible())
  }
  expect_identical(m$ident(2^63), 2^63)
  expect_identical(m$ident(2^64 - 2048), 2^64 - 2048)  # the largest double below 2^64
  expect_identical(m$ints(c(1, 2^63, -1)), c(1, 2^63, -1))
  expect_identical(m$ints(list(2^63, 5L)), c(2^63, 5))
  expect_identical(m$table(list(a = 2^63, b = 2L)), list(a = 2^63, b = 2L))
})

test_that("UINT64_MAX comes out as the nearest double, 2^64, which cannot go back", {
  if (!has_uint()) {
    expect_refused(tsb_from_json("18446744073709551615", "int"))
    return(expect_refused(tsb_to_json(2^63, "int")))
  }
  expect_identical(tsb_from_json("18446744073709551615", "int"), 2^64)
  expect_identical(tsb_from_json("[18446744073709551615, 1]", "List[int]"), c(2^64, 1))
  expect_identical(tsb_to_json(2^63, "int"), "9223372036854775808")
  expect_identical(tsb_to_json(c(2^63, 1), "List[int]"), "[9223372036854775808,1]")
})

test_that("a double past the range of int is refused as before", {
  m <- uint_module()
  expect_error(m$ident(2^64), "not a whole number in the int64 range", class = "tsb_type_error")
  expect_error(m$ident(-2^63 - 4096), "not a whole number", class = "tsb_type_error")
  # within int64 an int, as ever (integer64 or double: read back through JSON)
  expect_identical(tsb_to_json(m$ident(2^62), "int"), "4611686018427387904")
})
