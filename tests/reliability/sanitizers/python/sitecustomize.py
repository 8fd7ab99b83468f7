"""The leak check of every Python process in the sanitizer stage.

Debian's /usr/bin/python3 is not instrumented; the sanitizer stage preloads
the ASan runtime into it (cmake/sanitize.cmake) and puts this directory first
on PYTHONPATH, so Python imports this module at startup (it stands in for
Debian's own sitecustomize, which only installs apport's exception hook).

LeakSanitizer's own check at exit (leak_check_at_exit) is off in these
processes: it runs after Py_Finalize has freed part of the interpreter, and
what CPython does not free then (objects whose last reference went with a
freed container) shows as leaked, with stacks that end in the stripped
interpreter, which no suppression can name without naming every stack
(docs/reliability.md, "Hosts under the sanitizers"). Instead this runs the
same check, with the same suppressions, as the last atexit handler, before
the interpreter tears anything down: every object CPython still holds is
reachable then, so what is reported is memory nothing points at any more --
tsbridge's leaks, and LibTorch's or CPython's own, which the suppressions
file names by their frames. A report ends the process with exit code 23,
LeakSanitizer's.
"""
import atexit
import ctypes
import gc
import os
import sys


def _leak_check():
    gc.collect()
    sys.stdout.flush()
    sys.stderr.flush()
    if ctypes.CDLL(None).__lsan_do_recoverable_leak_check():
        os._exit(23)


if os.environ.get("TSB_LSAN_BEFORE_FINALIZE") == "1":
    atexit.register(_leak_check)  # registered first: runs last
