"""Every wait of an MPI job is bounded, also MPI's own start-up and finalisation.

Real mpirun jobs on loopback: a rank stopped before MPI starts makes the others of
``python -m wpart.dynamic.mpi`` end within ``--timeout`` with a message; a worker dead right
after start-up is named by the root within ``--timeout`` (mpirun ``--enable-recovery``, where
Open MPI does not end the job itself); a user's own script bounds its start-up with
``wpart.tasks.mpi.startup_watchdog`` and a rank that stops before ``balance_mpi`` is named by
the ranks that waited for it.
"""

import subprocess
import time

import pytest
from oracles.mpirun import needs_mpi, run_mpi

from wpart.tasks import generators as G

pytestmark = needs_mpi

DYN = "tests/mpi/dyn_cli_fault.py"


def _dyn(n, fault, who, extra, timeout=90, recover=False):
    args = [DYN, fault, str(who), "--n", "256", "--chunk", "32", "--balancer", "greedy",
            *extra]
    return run_mpi(n, args, timeout=timeout,
                   mpirun_args=["--enable-recovery"] if recover else None)


def test_dynamic_cli_rank_stopped_in_startup_ends_within_timeout():
    t0 = time.monotonic()
    try:
        r = _dyn(4, "stop_start", 2, ["--timeout", "5"])
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure under test
        pytest.fail("a rank stopped in start-up made the dynamic job hang")
    assert r.returncode != 0
    assert "wpart.dynamic.mpi: rank" in r.stderr
    assert ("the MPI start-up did not finish within --timeout 5 s: rank 2 did not reach it "
            "(died or never started)") in r.stderr, r.stderr[-3000:]
    assert time.monotonic() - t0 < 60


def test_dynamic_cli_worker_dead_in_startup_under_recovery_is_named_and_fails():
    """``mpirun --enable-recovery`` tolerates a rank's death: the survivors' watchers name the
    dead worker and end the launcher, so the job's status is non-zero."""
    t0 = time.monotonic()
    try:
        r = _dyn(4, "kill_start", 2, ["--timeout", "5"], recover=True)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure under test
        pytest.fail("a worker dead in start-up left the dynamic job running")
    assert r.returncode != 0
    assert ("RankFailure: the MPI start-up did not finish within --timeout 5 s: rank 2 died "
            "during start-up") in r.stderr, r.stderr[-3000:]
    assert time.monotonic() - t0 < 60


def test_dynamic_cli_worker_dead_after_init_is_named_within_timeout():
    t0 = time.monotonic()
    try:
        r = _dyn(4, "kill_init", 2, ["--timeout", "5"], recover=True)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure under test
        pytest.fail("a worker dead in start-up left the dynamic job running")
    assert "failed_ranks=[2]" in r.stdout, (r.stdout + r.stderr)[-3000:]  # named by the root
    assert time.monotonic() - t0 < 60


_USER = r'''
import os, signal, sys
from wpart.tasks.mpi import startup_watchdog
me = int(os.environ.get("OMPI_COMM_WORLD_RANK", "-1"))
fault, stem = sys.argv[1], sys.argv[2]
if fault == "stop_start" and me == 2:
    os.kill(os.getpid(), signal.SIGSTOP)
with startup_watchdog(timeout=5):
    if fault in ("kill_in_start", "stop_in_start") and me == 2:
        os.kill(os.getpid(), signal.SIGKILL if fault == "kill_in_start" else signal.SIGSTOP)
    from mpi4py import MPI
if fault == "stop_before_balance" and me == 2:
    os.kill(os.getpid(), signal.SIGSTOP)
from wpart.tasks.mpi import balance_mpi
res = balance_mpi(stem, timeout=3)
print("rank", res.rank, "W_max", res.max_load, flush=True)
'''


_START = "the MPI start-up did not finish within --timeout 5 s: "


@pytest.mark.parametrize("fault,expect,recover", [
    ("stop_start", _START + "rank 2 did not reach it (died or never started)", False),
    ("kill_in_start", "process rank 2 with PID", False),  # mpirun ends the job itself
    ("kill_in_start", _START + "rank 2 died during start-up", True),
    ("stop_in_start", _START + "rank 2 stopped during start-up", True),
    ("stop_before_balance", "rank 2 did not answer a ping", False)])
def test_user_script_faults_end_within_timeout_naming_what(tmp_path, fault, expect, recover):
    """The job ends with a non-zero status, also under ``mpirun --enable-recovery`` (which
    tolerates a rank's exit: the watcher ends the launcher), and the rank at fault is named."""
    stem = str(tmp_path / "in" / "g")
    G.gemma_like(m=4, n_tasks=160, n_blocks=24, seed=1).to_lbdatafile(stem)
    script = tmp_path / "user.py"
    script.write_text(_USER)
    t0 = time.monotonic()
    try:
        r = run_mpi(4, [script, fault, stem], timeout=90,
                    mpirun_args=["--enable-recovery"] if recover else None)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure under test
        pytest.fail(f"{fault}: the user's job hung")
    assert r.returncode != 0
    assert expect in r.stderr, r.stderr[-3000:]
    assert time.monotonic() - t0 < 60


@pytest.mark.parametrize("bad, why", [("-1", "must be > 0, got -1.0"),
                                      ("nan", "must not be NaN")])
def test_cli_bad_timeout_is_a_usage_error_without_traceback(bad, why, tmp_path):
    """A bad --timeout is refused by the argument parser (exit 2, one line), before MPI."""
    import sys

    r = subprocess.run([sys.executable, "-m", "wpart.tasks.mpi", str(tmp_path / "x"),
                        "--out", str(tmp_path / "y"), "--timeout", bad],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"python -m wpart.tasks.mpi: error: --timeout: `timeout` {why}")
