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
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env(env), cwd=cwd or str(ROOT), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # mpirun and every rank it started
        out, err = proc.communicate()
        raise subprocess.TimeoutExpired(cmd, timeout, out, err) from None
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
