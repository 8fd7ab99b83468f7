# The leak check of every R process in the sanitizer stage: R's user profile
# (R_PROFILE_USER, set by hosts/r/tests/ctest/r.cmake), read at startup like the Python
# processes' sitecustomize.py, which explains why (docs/reliability.md,
# "Hosts under the sanitizers").
#
# R is Debian's uninstrumented build with the ASan runtime preloaded, and
# LeakSanitizer's own check at exit is off (leak_check_at_exit=0): it would
# run after R has torn its heap down, and Rscript's helpers (sed, uname),
# which inherit the preload, would report their own. Instead the same check,
# with the same suppressions, runs in an exit finalizer, while R's heap is
# whole: everything R holds is reachable then, so a report is memory nothing
# points at any more. __lsan_do_leak_check ends the process with exit code
# 23 (LeakSanitizer's) when it reports a leak.
local({
  runtime <- Sys.getenv("TSB_LSAN_RUNTIME")
  if (Sys.getenv("TSB_LSAN_BEFORE_EXIT") == "1" && nzchar(runtime)) {
    # Already loaded (preloaded); dyn.load makes its symbols visible to .C.
    dyn.load(runtime)
    anchor <- new.env()
    reg.finalizer(anchor, function(e) {
      gc()
      flush(stdout())
      flush(stderr())
      invisible(.C("__lsan_do_leak_check"))
    }, onexit = TRUE)
    assign(".tsb_lsan_anchor", anchor, envir = globalenv())
  }
})
