"""Command line of :func:`wpart.dynamic.run_mpi`: ``mpirun -np N python -m wpart.dynamic.mpi``.

Every rank runs this module; rank ``--root`` runs the balancer and writes the result, every
other rank serves ``--pus-per-rank`` PUs. The task's inputs are made on every rank from one
seed (no input travels at start-up). Example::

    mpirun -np 4 --enable-recovery python -m wpart.dynamic.mpi \\
        --balancer plbhac --task gemm --n 8192 --rows 512 --x-init 256 --out result.json

The JSON file holds :meth:`MPIRunResult.to_dict` plus ``"verified"`` (the product checked
against NumPy, every column computed exactly once) and ``"elapsed"``. The exit status of every
rank's process is 0 after a completed run (a job in which a rank failed ends through
``MPI_Abort`` with code 0), 1 when the run failed or stopped at its ``--time-limit`` (status
``"time_limit"``; ``MPI_Abort`` with code 1 when a rank failed), 2 for bad arguments. Note that
``mpirun --enable-recovery`` (Open MPI 4.1) itself exits 0 whatever its processes return:
read the processes' statuses (e.g. through a wrapper) or the ``--out`` file there. The root
and the worker ranks exchange heartbeats every 2 s by default (``--heartbeat``), so the workers
of a dead root stop after 10 s. ``--out`` is written to a temporary name, fsynced and
renamed: a killed root leaves the previous file whole.
"""

from __future__ import annotations
from .._validate import choice, renamed

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["main", "make_balancer", "BALANCERS"]

#: The balancers the command line offers (entries of :data:`wpart.dynamic.BALANCERS` that need
#: no platform).
BALANCERS = ("greedy", "plbhac", "plbhec", "hdss", "static")


@renamed(n_pu="m", total="n")
def make_balancer(name: str, m: int, n: int, *, chunk: int = 1024) -> Any:
    """A fresh balancer by name: ``greedy`` (``chunk``-element pieces), ``plbhac`` / ``plbhec``
    (``x_init = chunk``), ``hdss`` (``x_init = chunk``) or ``static`` (equal blocks), built
    by :func:`wpart.dynamic.make_balancer` from the one balancer table."""
    from . import make_balancer as _make

    key = choice(name, "balancer", BALANCERS)
    opts = {"greedy": {"chunk": chunk}, "static": {}}.get(key, {"x_init": chunk})
    return _make(key, m, n, options=opts)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m wpart.dynamic.mpi",
                                 description="Run a wpart.dynamic balancer over MPI ranks (start with mpirun/srun).")
    ap.add_argument("--balancer", default="plbhac", choices=BALANCERS)
    ap.add_argument("--task", default="gemm", choices=("gemm", "kmeans"),
                    help="gemm: C = A·B over the N columns of B; kmeans: one assignment step over N points")
    ap.add_argument("--n", type=int, default=4096, help="elements: columns (gemm) or points (kmeans)")
    ap.add_argument("--rows", type=int, default=256, help="rows of A and of B (gemm); dimensions (kmeans)")
    ap.add_argument("--k", type=int, default=16, help="centroids (kmeans)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", "--x-init", dest="chunk", type=int, default=128,
                    help="Greedy's piece size; PLB-HAC/PLB-HeC/HDSS initial block size")
    ap.add_argument("--worker", default="thread", choices=("thread", "process", "cupy"),
                    help="the local worker of each PU on a worker rank")
    ap.add_argument("--threads", type=int, default=1, help="kernel threads per PU")
    ap.add_argument("--pus-per-rank", type=int, default=1)
    ap.add_argument("--throttle", type=float, nargs="*", default=[],
                    help="slowdown of worker rank i (in rank order, excluding the root); missing: 1")
    ap.add_argument("--root", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="fault-detection deadline: seconds a rank holding blocks may stay silent")
    ap.add_argument("--heartbeat", type=float, default=None,
                    help="seconds between heartbeats of the root and the worker ranks (5 missed: "
                         "the rank is declared dead; default 2; 0: none)")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds for the whole run (the result then has status 'time_limit')")
    ap.add_argument("--on-rank-failure", default="reissue", choices=("reissue", "error"))
    ap.add_argument("--out", default=None, help="JSON file written by the root (default: print a summary only)")
    return ap


def _write_atomic(path: str, doc: dict) -> None:
    """JSON to a temporary name beside `path`, fsynced, then renamed over it: a process killed
    while writing leaves the previous file whole."""
    import os

    full = os.path.abspath(path)
    tmp = os.path.join(os.path.dirname(full), f".{os.path.basename(full)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w") as f:
            json.dump(doc, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, full)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    fd = os.open(os.path.dirname(full), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main(*, argv: Sequence[str] | None = None) -> int:
    """Entry point (every rank): parses `argv` (default ``sys.argv[1:]``). Returns the exit
    status."""
    a = _parser().parse_args(argv)
    from .._mpi_watchdog import arm, disarm

    # MPI_Init waits for every rank: bounded by --timeout (a rank dead or stopped in start-up
    # makes the others say so and end, so mpirun ends the job)
    tok = arm(a.timeout, "the MPI start-up", "a rank died or hangs during start-up",
              "wpart.dynamic.mpi")
    try:
        from mpi4py import MPI

        MPI.COMM_WORLD.Get_rank()
    finally:
        disarm(tok)
    try:
        return _main(a, argv, MPI)
    finally:  # MPI_Finalize (at exit) waits for every rank too: bounded by --timeout as well
        from .._mpi_watchdog import arm_exit

        arm_exit(a.timeout, "wpart.dynamic.mpi")


def _main(a: argparse.Namespace, argv: Sequence[str] | None, MPI: Any) -> int:

    from . import CupyWorker, GemmColumnsTask, KMeansAssignTask, ProcessWorker, RankFailedError, ThreadWorker, run_mpi

    comm = MPI.COMM_WORLD
    size, me = comm.Get_size(), comm.Get_rank()
    if size < 2:
        print("wpart.dynamic.mpi needs at least 2 ranks (mpirun -np 2 or more)", file=sys.stderr)
        return 2
    rng = np.random.default_rng(a.seed)
    if a.task == "gemm":
        A, B = rng.standard_normal((a.rows, a.rows)), rng.standard_normal((a.rows, a.n))
        task: Any = GemmColumnsTask(A, B)
    else:
        P, C = rng.standard_normal((a.n, a.rows)), rng.standard_normal((a.k, a.rows))
        task = KMeansAssignTask(P, C)
    others = [r for r in range(size) if r != a.root]

    def worker(rank: int, slot: int) -> Any:
        i = others.index(rank)
        thr = a.throttle[i] if i < len(a.throttle) else 1.0
        if a.worker == "process":
            return ProcessWorker(threads=a.threads, throttle=thr)
        if a.worker == "cupy":
            return CupyWorker(device=slot, throttle=thr)
        return ThreadWorker(threads=a.threads, throttle=thr)

    m = (size - 1) * a.pus_per_rank
    bal = make_balancer(a.balancer, m, task.n, chunk=a.chunk) if me == a.root else None
    t0 = time.perf_counter()
    try:
        res = run_mpi(bal, task, worker, root=a.root, pus_per_rank=a.pus_per_rank, timeout=a.timeout,
                      startup_timeout=a.timeout,
                      heartbeat="auto" if a.heartbeat is None else (a.heartbeat or None),
                      time_limit=a.time_limit, on_rank_failure=a.on_rank_failure)
    except RankFailedError as exc:
        print(f"rank {me}: run failed: {exc}", file=sys.stderr, flush=True)
        return 1
    if me != a.root:  # a worker's status says whether the root finished the run
        return 0 if res.get("run_ok", True) else 1
    elapsed = time.perf_counter() - t0
    verified = bool(task.verify())
    print(f"{res!r}\nverified={verified} elapsed={elapsed:.3f} s", flush=True)
    if a.out:
        d = res.to_dict()
        d.update(verified=verified, elapsed=elapsed, argv=list(sys.argv[1:] if argv is None else argv))
        _write_atomic(a.out, d)
    return 0 if verified else 1


if __name__ == "__main__":
    sys.exit(main())
