"""Run a Python program under ``mpirun`` from the tests, bounded by a timeout.

OpenMPI refuses to start as root unless told; the environment variables below say so (the
same as ``--allow-run-as-root``). Ranks run on loopback; ``--oversubscribe`` lets 8 ranks
share 2 cores. The child drops the editable install's redirecting finder only through
``PYTHONPATH``: the repository root goes first so that the tested checkout is imported.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MPIRUN = shutil.which("mpirun")

needs_mpi = pytest.mark.skipif(
    MPIRUN is None or __import__("importlib").util.find_spec("mpi4py") is None
    or os.environ.get("WPART_SANITIZED") == "1",
    reason="mpirun (openmpi-bin) or mpi4py is not installed (tools/setup.sh installs both), or "
           "this is the ASan stage (its LD_PRELOAD would reach Open MPI; the plain run covers "
           "the MPI tests)")


def mpi_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.update({
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        "OMPI_MCA_btl": "self,tcp",
        "OMPI_MCA_btl_tcp_if_include": "lo",
        "OMPI_MCA_oob_tcp_if_include": "lo",
        "PYTHONPATH": os.pathsep.join([str(ROOT)] + [p for p in
                                      env.get("PYTHONPATH", "").split(os.pathsep) if p]),
        "OMP_NUM_THREADS": "1",
    })
    if extra:
        env.update(extra)
    return env


def run_mpi(n: int, args: list, *, timeout: float = 120, mpirun_args: list | None = None,
            env: dict | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
    """``mpirun -np n python args...``; returns the completed process (text output).

    Raises ``subprocess.TimeoutExpired`` past `timeout` seconds (the whole job is killed).
    """
    cmd = [MPIRUN, "-np", str(n), "--oversubscribe", *(mpirun_args or []),
           sys.executable, *map(str, args)]
    before = _registries()
    try:
        return _run(cmd, timeout, env, cwd)
    finally:
        _drop_registries(before)


def _registries() -> set:
    """The start-up watchdog's marker folders of this user (wpart._mpi_watchdog._registry)."""
    from wpart._mpi_watchdog import _registry_prefix

    prefix = _registry_prefix()
    try:
        return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(prefix)}
    except OSError:
        return set()


def _drop_registries(before: set) -> None:
    """Remove the marker folders a test's job left (a failed start-up keeps them for a day, by
    design) once no rank named in them is alive: a test run leaves nothing behind. A folder of
    another job that runs meanwhile (another test lane) is kept: one without markers yet, or
    with a marker still empty, or with a rank alive."""
    for name in _registries() - before:
        d = os.path.join(tempfile.gettempdir(), name)
        try:
            pids = [int(Path(d, f).read_text() or 0) for f in os.listdir(d) if f.isdigit()]
        except (OSError, ValueError):
            continue
        if not pids or 0 in pids:
            continue
        deadline = time.monotonic() + 3.0  # ranks killed with the job may take a moment
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not any(_alive(p) for p in pids):
            shutil.rmtree(d, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _run(cmd: list, timeout: float, env: dict | None, cwd: str | None):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env(env), cwd=cwd or str(ROOT), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # mpirun and every rank it started
        out, err = proc.communicate()
        raise subprocess.TimeoutExpired(cmd, timeout, out, err) from None
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
