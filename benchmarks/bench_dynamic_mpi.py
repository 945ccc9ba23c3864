"""Benchmark of wpart.dynamic over MPI ranks (run_mpi): makespan against worker ranks.

For each balancer (Greedy with fixed pieces, PLB-HAC) and each number of worker ranks ``w``
(1..7; quick: 1..3), one job ``mpirun -np w+1 python -m wpart.dynamic.mpi`` computes a GEMM
``C = A·B`` over the columns of ``B`` (one ThreadWorker with one kernel thread per worker
rank, rank 0 runs the balancer) and reports its makespan; the baseline is the same balancer
with ``w`` local ThreadWorkers in this process (``wpart.dynamic.run``), and the table gives
the ratio MPI / local. Every run is verified (``C = A·B``, every column once).

On a machine with fewer cores than ``w + 1`` the ranks are oversubscribed (``mpirun
--oversubscribe``): past the core count the makespan stops falling for both, and the ratio
mostly measures the polling loops sharing the cores with the kernels. Ranks talk over
loopback TCP. Real runs are not reproducible to the bit; timings are never asserted.

``run(quick)`` returns the rows as a dict (for benchmarks/bench_mpi.py); ``python
benchmarks/bench_dynamic_mpi.py [--quick]`` prints the table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

WPART_DIR = use_wpart()

import wpart.dynamic as wd  # noqa: E402

__all__ = ["run", "main"]

BALANCERS = ("greedy", "plbhac")


def _env() -> dict:
    env = dict(os.environ)
    env.update({
        "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl": "self,tcp",
        "OMPI_MCA_btl_tcp_if_include": "lo", "OMPI_MCA_oob_tcp_if_include": "lo",
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join([str(WPART_DIR.parent)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]),
    })
    return env


def _mpi_job(workers: int, balancer: str, n: int, rows: int, chunk: int, seed: int, timeout: float) -> dict:
    mpirun = shutil.which("mpirun")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [mpirun, "-np", str(workers + 1), "--oversubscribe", sys.executable, "-m", "wpart.dynamic.mpi",
               "--balancer", balancer, "--n", str(n), "--rows", str(rows), "--chunk", str(chunk),
               "--seed", str(seed), "--timeout", "60", "--out", str(out)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=timeout, cwd=str(ROOT))
        job = time.perf_counter() - t0
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"mpirun failed (rc={proc.returncode}): {proc.stderr[-2000:]}")
        d = json.loads(out.read_text())
    return {"makespan": d["makespan"], "verified": d["verified"], "job_wall": job, "elements": d["elements"],
            "n_blocks": len(d["trace"]["offset"]), "idle_frac": d["idle_frac"]}


def _local(workers: int, balancer: str, n: int, rows: int, chunk: int, seed: int) -> dict:
    from wpart.dynamic.mpi import make_balancer

    rng = np.random.default_rng(seed)
    A, B = rng.standard_normal((rows, rows)), rng.standard_normal((rows, n))  # as the CLI makes them
    task = wd.GemmColumnsTask(A, B)
    res = wd.run(make_balancer(balancer, workers, n, chunk=chunk), task, [wd.ThreadWorker() for _ in range(workers)])
    return {"makespan": res.makespan, "verified": bool(task.verify()), "n_blocks": res.n_blocks}


def run(quick: bool = False, *, max_workers: int | None = None, reps: int | None = None, seed: int = 0) -> dict:
    """Measure; returns ``{"config": ..., "rows": [...]}`` (one row per balancer and worker count).

    Each row: ``balancer``, ``workers``, ``mpi_makespan`` / ``local_makespan`` (median over
    ``reps`` in seconds), ``ratio`` (MPI / local), ``mpi_job_wall`` (the whole mpirun job:
    start-up included), blocks, ``verified``.
    """
    if shutil.which("mpirun") is None:
        return {"skipped": "mpirun is not installed (tools/setup.sh installs Open MPI and mpi4py)", "rows": []}
    n, rows_, chunk = (4096, 256, 128) if quick else (16384, 256, 256)
    max_workers = max_workers or (3 if quick else 7)
    reps = reps or (1 if quick else 3)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    out_rows = []
    for bal in BALANCERS:
        for w in range(1, max_workers + 1):
            mpi = [_mpi_job(w, bal, n, rows_, chunk, seed, 300) for _ in range(reps)]
            loc = [_local(w, bal, n, rows_, chunk, seed) for _ in range(reps)]
            m_mpi = float(np.median([r["makespan"] for r in mpi]))
            m_loc = float(np.median([r["makespan"] for r in loc]))
            out_rows.append({
                "balancer": bal, "workers": w, "ranks": w + 1, "oversubscribed": w + 1 > (cores or 1),
                "mpi_makespan": m_mpi, "local_makespan": m_loc, "ratio": m_mpi / m_loc if m_loc > 0 else float("nan"),
                "mpi_job_wall": float(np.median([r["job_wall"] for r in mpi])),
                "mpi_blocks": mpi[0]["n_blocks"], "local_blocks": loc[0]["n_blocks"],
                "verified": all(r["verified"] for r in mpi + loc),
            })
    return {"config": {"task": "gemm", "n": n, "rows": rows_, "chunk": chunk, "reps": reps, "cores": cores,
                       "transport": "loopback TCP", "worker": "ThreadWorker(threads=1) per rank"},
            "rows": out_rows}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (1..3 workers, one repetition)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bench_dynamic_mpi.json")
    args = ap.parse_args(argv)
    res = run(args.quick)
    print("wpart.dynamic over MPI: makespan against worker ranks (GEMM over columns)")
    if res.get("skipped"):
        print("  skipped:", res["skipped"])
        return 0
    c = res["config"]
    print(f"  n={c['n']} columns, {c['rows']}x{c['rows']} A, chunk/x_init={c['chunk']}, median of {c['reps']}, "
          f"{c['cores']} cores ({c['transport']})")
    print(f"  {'balancer':8s} {'workers':>7s} {'MPI ms':>9s} {'local ms':>9s} {'ratio':>6s} {'job s':>6s} "
          f"{'blocks':>7s}  note")
    for r in res["rows"]:
        note = ("oversubscribed" if r["oversubscribed"] else "") + ("" if r["verified"] else " NOT VERIFIED")
        print(f"  {r['balancer']:8s} {r['workers']:7d} {r['mpi_makespan'] * 1e3:9.1f} {r['local_makespan'] * 1e3:9.1f} "
              f"{r['ratio']:6.2f} {r['mpi_job_wall']:6.2f} {r['mpi_blocks']:4d}/{r['local_blocks']:<3d} {note}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1))
    print(f"  wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
