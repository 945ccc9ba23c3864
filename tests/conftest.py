"""Shared test configuration: a deterministic hypothesis profile and common fixtures."""

import os
import signal

import matplotlib
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

# A process started in the background of a non-interactive shell (`cmd &`, as a CI script may
# start a test stage) begins with SIGINT ignored, and Python then keeps ignoring it: the Ctrl-C
# tests would wait for calls of minutes. Ctrl-C raises KeyboardInterrupt in the tests, always.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", deadline=None, max_examples=2000, database=None)
# The hostile-input fuzz suite (tests/test_fuzz_*.py): a few hundred examples per function by
# default; its slow-marked variants (``pytest -m slow tests/test_fuzz_*.py``) run 40x as many,
# over 10^5 in total. WPART_HYPOTHESIS_PROFILE=fuzz-slow also selects it for every test.
settings.register_profile("fuzz-slow", parent=settings.get_profile("deterministic"),
                          max_examples=8000)
# The pytest stage against the ASan + UBSan extension (tools/test.sh, WPART_SANITIZED=1) runs
# a quarter of the examples: the plain stage runs them all, the sanitized one looks for memory
# errors in the same C paths.
SANITIZED = os.environ.get("WPART_SANITIZED") == "1"
settings.register_profile("sanitized", parent=settings.get_profile("deterministic"),
                          max_examples=50)
settings.load_profile(os.environ.get("WPART_HYPOTHESIS_PROFILE",
                                     "sanitized" if SANITIZED else "deterministic"))

# Tests that never reach the C extension (measured: tools/core_reach.py writes the list) gain
# nothing from the sanitized extension: in the sanitized stage they are deselected, and run
# once, in the plain stage. A test not in the list (a new one) runs in both.
PURE_LIST = os.path.join(os.path.dirname(__file__), "asan_pure.txt")


def pytest_collection_modifyitems(config, items):
    if not SANITIZED or not os.path.exists(PURE_LIST):
        return
    with open(PURE_LIST) as fh:
        pure = {ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")}
    keep = [it for it in items if it.nodeid not in pure]
    gone = [it for it in items if it.nodeid in pure]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = keep


@pytest.fixture(params=["default", pytest.param("slow", marks=pytest.mark.slow)])
def fuzz_budget(request):
    """"default" or "slow": scales the example counts of the fuzz suite (oracles/fuzz.py)."""
    return request.param


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def pytest_terminal_summary(terminalreporter):
    """Fuzzed calls per family, when the fuzz suite ran (tests/oracles/fuzz.py)."""
    import sys

    fz = sys.modules.get("oracles.fuzz")
    if fz is not None and fz.COUNTS:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(fz.COUNTS.items()))
        terminalreporter.write_line(f"fuzzed calls: {parts} (total {sum(fz.COUNTS.values())})")
