"""Benchmarks for wpart.dynamic's real execution.

Three parts, one process:

(a) The C kernels: ``GemmColumnsTask.compute`` on a whole n × n product (GFLOP/s, 1 and 2
    threads) against NumPy's ``A @ B`` (BLAS), and the k-means assignment kernel against a
    NumPy broadcast (points/s).
(b) The driver's own cost: Greedy with one-element blocks on no-op CallableWorkers gives the
    blocks per second the driver sustains and the hand-off latency from assignment to the
    start of the block (median and 95th percentile).
(c) Real runs of the X1 set-up (ThreadWorkers with threads 2/1/1 and throttle 1/1/3 on a
    512 × 512 product): makespan, elements per PU and idle % for Greedy at several chunk
    sizes, StaticEqual, and PLB-HAC when the build has it. Every run is verified (C = A·B).

Run ``python benchmarks/bench_dynamic_exec.py --quick`` for the CI-sized run (seconds). Real
runs are not reproducible to the bit; timings are never asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import wpart.dynamic as wd  # noqa: E402
from wpart.experiments import best_of  # noqa: E402


def bench_kernels(sizes: Sequence[int], budget: float, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        A, B = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        task = wd.GemmColumnsTask(A, B)
        flop = 2.0 * n**3
        t_np, _, _ = best_of(lambda: A @ B, budget=budget, keep=False)
        for th in (1, 2):
            t, _, _ = best_of(lambda: task.compute(0, n, threads=th), budget=budget, keep=False)
            task.reset()
            rows.append({"kernel": "gemm_cols", "n": n, "threads": th, "seconds": t,
                         "gflops": flop / t / 1e9, "numpy_seconds": t_np, "numpy_gflops": flop / t_np / 1e9})
    P, C = rng.standard_normal((100_000, 4)), rng.standard_normal((16, 4))
    kt = wd.KMeansAssignTask(P, C)
    t_np, _, _ = best_of(lambda: np.argmin(((P[:, None, :] - C[None]) ** 2).sum(-1), axis=1), budget=budget, keep=False)
    for th in (1, 2):
        t, _, _ = best_of(lambda: kt.compute(0, len(P), threads=th), budget=budget, keep=False)
        kt.reset()
        rows.append({"kernel": "kmeans_assign", "n": len(P), "threads": th, "seconds": t,
                     "points_per_s": len(P) / t, "numpy_seconds": t_np})
    return rows


def bench_driver(n_blocks: int) -> list[dict]:
    rows = []
    for m in (1, 2, 4):
        t = time.perf_counter()
        res = wd.run(wd.Greedy(m, n_blocks, chunk=1), None, [wd.CallableWorker(lambda o, s: None) for _ in range(m)])
        dt = time.perf_counter() - t
        lat = res.trace["t_xfer_start"] - res.trace["t_assign"]
        rows.append({"m": m, "blocks": n_blocks, "blocks_per_s": n_blocks / dt,
                     "handoff_median_us": float(np.median(lat) * 1e6), "handoff_p95_us": float(np.percentile(lat, 95) * 1e6)})
    return rows


def bench_runs(n: int, reps: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    A, B = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    algos = {f"Greedy({c})": (lambda c=c: wd.Greedy(3, n, chunk=c)) for c in (4, 16, 64)}
    algos["StaticEqual"] = lambda: wd.StaticEqual(3, n)
    algos["HDSS"] = lambda: wd.HDSS(3, n, x_init=8, min_chunk=2)
    if hasattr(wd, "PLBHAC"):
        algos["PLBHAC"] = lambda: wd.PLBHAC(3, n, x_init=8)
    rows = []
    for name, make in algos.items():
        for rep in range(reps):
            task = wd.GemmColumnsTask(A, B)
            workers = [wd.ThreadWorker(threads=2), wd.ThreadWorker(), wd.ThreadWorker(throttle=3.0)]
            try:
                res = wd.run(make(), task, workers, time_limit=120)
            except Exception as exc:  # a balancer unsuited to tiny runs: report, go on
                rows.append({"algo": name, "rep": rep, "error": f"{type(exc).__name__}: {exc}"})
                continue
            if not res.success:  # stopped at the time limit
                rows.append({"algo": name, "rep": rep, "error": res.message})
                continue
            rows.append({"algo": name, "rep": rep, "makespan": res.makespan, "verified": task.verify(),
                         "elements": res.elements.tolist(), "idle_pct": (100 * res.idle_frac).round(1).tolist(),
                         "blocks": res.n_blocks, "n_evals": res.n_evals})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run of every case")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bench_dynamic_exec.json")
    ap.add_argument("--seed", type=int, default=20240531)
    args = ap.parse_args(argv)
    params = ({"sizes": [256, 512], "budget": 0.1, "n_blocks": 2000, "reps": 1} if args.quick
              else {"sizes": [256, 512, 1024], "budget": 0.5, "n_blocks": 20000, "reps": 3})
    out = {"params": {**params, "seed": args.seed}}
    print("wpart.dynamic real execution benchmark")
    out["kernels"] = bench_kernels(params["sizes"], params["budget"], args.seed)
    for r in out["kernels"]:
        extra = f"{r['gflops']:.2f} GFLOP/s (NumPy {r['numpy_gflops']:.2f})" if "gflops" in r else \
            f"{r['points_per_s'] / 1e6:.2f} Mpoints/s (NumPy {r['numpy_seconds'] * 1e3:.1f} ms)"
        print(f"  {r['kernel']:14s} n={r['n']:<7d} threads={r['threads']}  {r['seconds'] * 1e3:8.2f} ms  {extra}")
    out["driver"] = bench_driver(params["n_blocks"])
    for r in out["driver"]:
        print(f"  driver m={r['m']}: {r['blocks_per_s']:.0f} blocks/s, hand-off median "
              f"{r['handoff_median_us']:.0f} us, p95 {r['handoff_p95_us']:.0f} us")
    out["runs"] = bench_runs(512, params["reps"], args.seed)
    for r in out["runs"]:
        if "error" in r:
            print(f"  {r['algo']:12s} rep {r['rep']}: {r['error']}")
        else:
            print(f"  {r['algo']:12s} rep {r['rep']}: makespan {r['makespan'] * 1e3:7.1f} ms  elements {r['elements']}"
                  f"  idle% {r['idle_pct']}  blocks {r['blocks']}  evals {r['n_evals']}  verified {r['verified']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
