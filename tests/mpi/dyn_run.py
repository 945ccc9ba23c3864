"""An MPI program for tests/test_dynamic_mpi.py: one run_mpi of a GEMM or k-means task.

Run under ``mpirun -np N``. The root writes a JSON file (``--out``) with the result, the
task's coverage, the check of the product against NumPy, and (``--local``) the result of
the same balancer run locally with ``run()`` for comparison of fields. Fault injection:
``--kill-rank R`` makes rank R SIGKILL itself when its second block starts (after its first
block's result was sent), ``--hang-rank R`` makes it sleep forever there instead. With
``--pus-per-rank k`` the rank's k PUs first wait (bounded, 10 s) until each of them has
started its second block, so every PU's first block is done before the fault, whatever
the threads' timing.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time

import numpy as np

import wpart.dynamic as wd


class Faulty(wd.ThreadWorker):
    """A ThreadWorker that dies (SIGKILL) or hangs when its second block starts."""

    def __init__(self, mode: str, barrier: threading.Barrier, **kw) -> None:
        super().__init__(**kw)
        self.mode, self.seen, self.barrier = mode, 0, barrier

    def _block(self, st, task, offset, size):
        self.seen += 1
        if self.seen == 2:
            try:  # the rank's other PUs finish their first blocks too
                self.barrier.wait(timeout=10.0)
            except threading.BrokenBarrierError:
                pass
            if self.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.mode == "raise":
                raise ValueError("injected failure")
            time.sleep(1e6)
        return super()._block(st, task, offset, size)


def make_balancer(name: str, m: int, n: int, chunk: int):
    if name == "greedy":
        return wd.Greedy(m, n, chunk=chunk)
    if name == "plbhac":
        return wd.PLBHAC(m, n, x_init=chunk, preset="paper")  # models even at n = 2048
    if name == "hdss":
        return wd.HDSS(m, n)
    if name == "static":
        return wd.StaticEqual(m, n)
    raise SystemExit(f"unknown balancer {name}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--balancer", default="greedy")
    ap.add_argument("--task", default="gemm", choices=["gemm", "kmeans", "callable"])
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--rows", type=int, default=48)
    ap.add_argument("--chunk", type=int, default=32)
    ap.add_argument("--pus-per-rank", type=int, default=1)
    ap.add_argument("--worker", default="thread", choices=["thread", "process", "callable"])
    ap.add_argument("--throttle-last", type=float, default=1.0)
    ap.add_argument("--kill-rank", type=int, default=-1)
    ap.add_argument("--hang-rank", type=int, default=-1)
    ap.add_argument("--raise-rank", type=int, default=-1)
    ap.add_argument("--kill-root", action="store_true", help="the root SIGKILLs itself after 128 elements")
    ap.add_argument("--again", action="store_true", help="a second run_mpi on the same ranks afterwards")
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--bad-npu", action="store_true", help="give the root a balancer with one PU too many")
    ap.add_argument("--on-failure", default="reissue")
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--heartbeat", type=float, default=None)
    ap.add_argument("--root", type=int, default=0)
    ap.add_argument("--local", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    size, me = comm.Get_size(), comm.Get_rank()
    rng = np.random.default_rng(7)
    if a.task == "gemm":
        A, B = rng.standard_normal((a.rows, 64)), rng.standard_normal((64, a.n))
        make_task = lambda: wd.GemmColumnsTask(A, B)  # noqa: E731
    elif a.task == "kmeans":
        P, C = rng.standard_normal((a.n, 3)), rng.standard_normal((5, 3))
        make_task = lambda: wd.KMeansAssignTask(P, C)  # noqa: E731
    else:
        make_task = lambda: wd.CallableTask(lambda o, s: time.sleep(1e-4 * s), a.n)  # noqa: E731

    barrier = threading.Barrier(a.pus_per_rank)  # shared by this rank's faulty PUs

    def worker(rank: int, slot: int) -> wd.Worker:
        thr = a.throttle_last if rank == size - 1 else 1.0
        if rank == a.kill_rank:
            return Faulty("kill", barrier, throttle=thr)
        if rank == a.hang_rank:
            return Faulty("hang", barrier, throttle=thr)
        if rank == a.raise_rank:
            return Faulty("raise", barrier, throttle=thr)
        if a.worker == "process":
            return wd.ProcessWorker(throttle=thr)
        if a.worker == "callable":
            return wd.CallableWorker(lambda o, s: time.sleep(1e-4 * s), throttle=thr)
        return wd.ThreadWorker(throttle=thr)

    m = (size - 1) * a.pus_per_rank
    bal = make_balancer(a.balancer, m + a.bad_npu, a.n, a.chunk) if me == a.root else None
    task = make_task()
    t0 = time.perf_counter()
    out: dict = {}
    def progress(done: int, total: int) -> None:
        if a.kill_root and done >= 128:
            os.kill(os.getpid(), signal.SIGKILL)

    try:
        res = wd.run_mpi(bal, task, worker, root=a.root, pus_per_rank=a.pus_per_rank, timeout=a.timeout,
                         heartbeat=a.heartbeat, on_rank_failure=a.on_failure, progress=progress,
                         time_limit=a.time_limit)
    except wd.RankFailedError as exc:
        out = {"error": "RankFailedError", "message": str(exc), "rank": exc.rank, "lost": exc.lost}
        res = None
    except Exception as exc:  # noqa: BLE001
        out = {"error": type(exc).__name__, "message": str(exc)}
        res = None
    elapsed = time.perf_counter() - t0
    if me != a.root:
        if a.again:
            out["again"] = wd.run_mpi(None, make_task(), worker, timeout=a.timeout, on_rank_failure=a.on_failure)
        out.update(elapsed=elapsed, summary=res)
        with open(f"{a.out}.rank{me}", "w") as f:
            json.dump(out, f)
        return
    out["elapsed"] = elapsed
    out["coverage"] = task.coverage.tolist()
    if res is not None:
        out["result"] = res.to_dict()
        out["result_fields"] = sorted(res.to_dict())
        out["repr"] = repr(res)
        if a.task == "gemm":
            ref = task.A @ task.B
            out["max_err"] = float(np.max(np.abs(task.C - ref)))
            out["verified"] = bool(task.verify())
        elif a.task == "kmeans":
            out["verified"] = bool(task.verify())
    if a.again:  # the same job again: ranks that failed above get no block
        task2 = make_task()
        t1 = time.perf_counter()
        res2 = wd.run_mpi(make_balancer(a.balancer, m, a.n, a.chunk), task2, worker, timeout=a.timeout,
                          on_rank_failure=a.on_failure)
        out["again"] = {"elapsed": time.perf_counter() - t1, "coverage": task2.coverage.tolist(),
                        "verified": bool(task2.verify()) if a.task != "callable" else None,
                        "result": res2.to_dict()}
    if a.local:
        lt = make_task()
        lres = wd.run(make_balancer(a.balancer, m, a.n, a.chunk), lt, [wd.ThreadWorker() for _ in range(m)])
        out["local_fields"] = sorted(lres.to_dict())
        out["local_trace_dtype"] = str(lres.trace.dtype)
        out["mpi_trace_dtype"] = str(res.trace.dtype) if res is not None else None
        out["local_n_blocks"] = lres.n_blocks
        out["local_trace"] = {f: lres.trace[f].tolist() for f in ("pu", "offset", "size", "kind")}
        out["local_repr"] = repr(lres)
    with open(a.out, "w") as f:
        json.dump(out, f)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
