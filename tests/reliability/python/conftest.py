"""Hypothesis profiles for the differential tests, and their counts.

CI (the default): a fixed seed (derandomize) and TSB_DIFF_EXAMPLES examples
per test. Local: TSB_DIFF_FOREVER=1 draws with a random seed and runs until
stopped (Ctrl-C), until a mismatch, or for TSB_DIFF_EXAMPLES examples per
test if that is set; the counts print at the end either way.
"""
import os

from hypothesis import HealthCheck, settings

from harness import COUNTS

_checks = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True,
    max_examples=int(os.environ.get("TSB_DIFF_EXAMPLES", "100")),
    suppress_health_check=_checks)
settings.register_profile(
    "forever", deadline=None, database=None, print_blob=True,
    max_examples=int(os.environ.get("TSB_DIFF_EXAMPLES", str(10**9))),
    suppress_health_check=_checks)
settings.load_profile("forever" if os.environ.get("TSB_DIFF_FOREVER") else "ci")


def pytest_terminal_summary(terminalreporter):
    if not COUNTS:
        return
    terminalreporter.write_sep("-", "tsbridge differential counts")
    for key in sorted(COUNTS):
        terminalreporter.write_line(f"{key}: {COUNTS[key]}")
