"""Shared test configuration: a deterministic hypothesis profile and common fixtures."""

import glob
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

# The sanitized stage runs the tests that tools/asan_select.py chose: together they reach every
# basic block of wpart._core that the whole stage reaches; the others (listed in asan_drop.txt,
# the tests that never reach the core among them) run once, in the plain stage. A test not in
# the list (a new one) runs in both. WPART_ASAN_DROP=0 (the tool's measuring run) keeps them.
DROP_LIST = os.path.join(os.path.dirname(__file__), "asan_drop.txt")
USE_DROP_LIST = os.environ.get("WPART_ASAN_DROP", "1") != "0"
# Files the sanitized stage does not collect: their time goes to subprocesses (the README's
# scripts, the command line, notebooks, whole reproductions, benchmark quick modes; a child
# imports the checkout's plain extension) or to mpirun (the LD_PRELOAD would reach Open MPI).
SANITIZED_IGNORE = [
    "test_notebooks.py", "test_readme.py", "test_cli.py", "test_cli_families.py",
    "test_first_contact.py", "test_spatial_reproduce.py", "test_hetero_reproduce.py",
    "test_reproduce_verdicts.py", "test_reproduce_multikernel.py", "test_multikernel_bench.py",
    "test_tasks_bench_datasets.py", "test_spatial_sparse_bench.py",
    "test_dynamic_solver_bench.py", "test_multikernel_real.py", "test_tasks_mpi.py",
    "test_tasks_mpi_faults.py", "test_tasks_mpi_watchdog.py", "test_dynamic_mpi.py",
    "test_cli_audit_s24.py",
]
if SANITIZED:
    collect_ignore = SANITIZED_IGNORE + [
        os.path.basename(f) for f in glob.glob(os.path.join(os.path.dirname(__file__),
                                                            "test_bench_*.py"))]


# Also deselected there: tests whose C work happens in a child process started from a
# benchmark script (the child imports the checkout's plain extension, so the sanitized stage
# would only time it again).
SANITIZED_SKIP = {
    "tests/test_tasks_scale.py::test_benchmark_quick_mode",
    "tests/test_dynamic_engine.py::test_engine_benchmark_quick_mode",
}
# A test run over many seeds runs its first seeds there (the same C paths on other random
# instances; the plain stage runs every seed): test function -> seeds kept.
SANITIZED_SEEDS = {
    "tests/test_tasks_ranks.py::test_converged_run_leaves_no_paying_pair": 5,
    "tests/test_milp_crosscheck.py::test_glpk_agrees_with_highs": 2,
}


def _sanitized_keeps(items) -> list:
    """The items the sanitized stage runs: not in the drop list, not in SANITIZED_SKIP, and of
    the functions in SANITIZED_SEEDS only their first seeds (in collection order)."""
    drop = set()
    if USE_DROP_LIST and os.path.exists(DROP_LIST):
        with open(DROP_LIST) as fh:
            drop = {ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")}
    seeds: dict = {}
    keep = []
    for it in items:
        if it.nodeid in drop or it.nodeid in SANITIZED_SKIP:
            continue
        base = it.nodeid.split("[", 1)[0]
        if base in SANITIZED_SEEDS and hasattr(it, "callspec") and "seed" in it.callspec.params:
            seen = seeds.setdefault(base, [])
            seed = it.callspec.params["seed"]
            if seed not in seen:
                seen.append(seed)
            if seen.index(seed) >= SANITIZED_SEEDS[base]:
                continue
        keep.append(it)
    return keep


def pytest_collection_modifyitems(config, items):
    if not SANITIZED:
        return
    keep = _sanitized_keeps(items)
    kept = {id(it) for it in keep}
    gone = [it for it in items if id(it) not in kept]
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
