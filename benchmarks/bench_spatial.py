"""Benchmarks for wpart.spatial: the tables of [Saule 2012] regenerated (Secs. 4-5, Table 1).

Runs, in one process, the steps of :mod:`wpart.experiments.spatial`:

* load imbalance ``LI_agg`` per algorithm x instance class x m (10 seeds per synthetic class;
  the PIC-MAG and SLAC substitutes are labelled as such);
* core run time per algorithm at 512x512 and 8192x8192 (4096x4096 below 12 GiB of memory)
  for m up to 10,000, printed beside the paper's reported times with the ratio paper/ours
  (target: at least 10x below the paper) and JAG-M-OPT at m = 961 (the paper: 31 minutes);
* log-log slopes of time in m, checked against the worst-case complexities of the paper's
  Table 1 (at P = Q = sqrt m, log factors dropped);
* the hierarchical variants, HYBRID and the pic_like resolution tables of
  :mod:`wpart.experiments.spatial_paper`.

The verdicts (paper value, ours, MATCH / DIFFERS / NOT REGENERATED) are printed by
``python -m wpart reproduce spatial``, which runs the same steps.

Two more steps measure sparse inputs (SuiteSparse-like patterns from
:func:`wpart.spatial.instances.sparse_like`: banded, block-diagonal, power-law rows, unit
weights):

* ``sparse``: RECT-NICOL, JAG-PQ-HEUR, JAG-M-HEUR and JAG-M-HEUR-PROBE on the ``scipy.sparse``
  matrix against the same call on its dense array (time ratio sparse/dense, goal <= 1 at
  every size; the partitions must be identical), at several sizes from 300 x 300 to
  3,268 x 3,268 with about 27.8 k nonzeros, and sparse-only at a size whose dense array would
  not fit (time per nonzero shows the O(nnz) scaling); for the multi-start methods the core
  time per start and the call's fixed cost outside its starts (all starts run in one core
  call); and the exact JAG-PQ-OPT-NICOL / JAG-PQ-OPT-DP / JAG-M-OPT and JAG-M-ALLOC on the
  nonzeros against the dense code (same optimum and partition required; time ratio);
* ``starts``: the max load of the single paper start against all starts (``starts="all"``,
  never worse by construction, checked) and the time of each.

One step reads Fig. 9's RECT-NICOL row: ``fig9`` times RECT-NICOL and HIER-RB beside a
from-scratch RECT-NICOL in C (``_sarma.nicol_idx`` from uniform rows: a new stripe prefix every
half-sweep), whose ratio to HIER-RB is the cause ``wpart reproduce`` states for that row.

``python benchmarks/bench_spatial.py --quick --only sparse starts`` runs both in seconds
(tests/test_spatial_sparse_bench.py runs it in the test suite).

Timings are reported, never asserted by the test suite. ``--quick`` (CI-sized, well under a
minute on 2 cores) shrinks the matrices, seeds and m ranges; the full run takes a few minutes.

Usage: ``python benchmarks/bench_spatial.py [--quick] [--json PATH] [--only STEP ...]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _common import use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import numpy as np

from wpart import spatial
from wpart.experiments import jsonable
from wpart.experiments import spatial as ex
from wpart.experiments import spatial_paper as sp
from wpart.spatial.instances import SPARSE_KINDS, sparse_like


def _wall(fn):
    """(result, best wall seconds of the runs): a call under 1 ms is repeated up to 15 times
    (at most 0.2 s) and one under 0.05 s 3 times, so the fixed costs of a small call are
    read without the noise of a shared machine; 1 run when the first takes over 0.05 s."""
    best, out, spent = float("inf"), None, 0.0
    for k in range(15):
        t0 = time.perf_counter()
        x = fn()
        dt = time.perf_counter() - t0
        if dt < best:  # the result of the fastest run
            best, out = dt, x
        spent += dt
        if dt > 0.05 or spent > 0.2 or (k >= 2 and best > 1e-3):
            break
    return out, best


def _wall_pair(fa, fb):
    """((result a, best seconds a), (result b, best seconds b)): the two calls alternate
    (a, b, a, b, ...) so that a shared machine's load hits both alike; a pair under 2 ms is
    repeated up to 25 times (at most 0.4 s), one under 0.1 s 3 times, else once. The result
    returned is the one of the fastest run."""
    ba = bb = float("inf")
    ra = rb = None
    spent = 0.0
    for k in range(25):
        t0 = time.perf_counter()
        xa = fa()
        t1 = time.perf_counter()
        xb = fb()
        t2 = time.perf_counter()
        if t1 - t0 < ba:  # the result of the fastest run (its per-start times match)
            ba, ra = t1 - t0, xa
        if t2 - t1 < bb:
            bb, rb = t2 - t1, xb
        spent += t2 - t0
        if t2 - t0 > 0.1 or spent > 0.4 or (k >= 2 and ba + bb > 2e-3):
            break
    return (ra, ba), (rb, bb)


def _start_cost(r) -> tuple:
    """(seconds in the starts, the call's seconds outside them) of a multi-start result: the
    core's time of each start summed, and the rest of the whole call (input checks, the
    dense prefix or the sparse matrix's columns, the result)."""
    st = r.stats.get("starts")
    if not st or any("seconds" not in v for v in st.values()):  # rect_nicol's default engine
        return None, None
    return sum(v["seconds"] for v in st.values()), len(st)


def sparse_vs_dense(quick: bool):
    """Sparse vs dense time of RECT-NICOL, JAG-PQ-HEUR, JAG-M-HEUR and JAG-M-HEUR-PROBE,
    identical partitions required; the ratio sparse/dense (goal <= 1) and, for the multi-start
    methods, the time in the starts and the call's fixed cost outside them."""
    sizes = [(300, False), (1000, False), (3268, False), (50_000, True)] if quick else \
        [(300, False), (1000, False), (3268, False), (10_000, False), (30_000, True),
         (300_000, True)]
    m = 64 if quick else 256
    rows, ok = [], True
    for kind in SPARSE_KINDS:
        for n, sparse_only in sizes:
            A = sparse_like(kind, n, seed=1)
            D = None if sparse_only else A.toarray()
            for meth in ("rect_nicol", "jag_pq_heur", "jag_m_heur", "jag_m_heur_probe"):
                fn = getattr(spatial, meth)
                if D is not None:
                    (rs, ts), (rd, td) = _wall_pair(lambda: fn(A, m), lambda: fn(D, m))
                else:
                    rs, ts = _wall(lambda: fn(A, m))
                in_starts, k = _start_cost(rs)
                row = {"kind": kind, "n": n, "nnz": int(A.nnz), "method": meth, "m": m,
                       "sparse_s": ts, "max_load": int(rs.max_load),
                       "us_per_nnz": 1e6 * ts / A.nnz, "starts": k,
                       "start_s": in_starts / k if k else None,
                       "fixed_s": max(0.0, ts - in_starts) if k else None}
                if D is not None:
                    same = bool(np.array_equal(rs.rects, rd.rects)) and rs.max_load == rd.max_load
                    ok &= same
                    row.update(dense_s=td, ratio=ts / td, same=same)
                else:
                    row.update(dense_s=None, ratio=None, same=None,
                               dense_gib=8 * 2 * (n + 1) ** 2 / 2**30)
                rows.append(row)
    slow = [r for r in rows if r["ratio"] is not None and r["ratio"] > 1.0]
    lines = ["sparse vs dense (unit weights, wall time of the whole call incl. conversion; "
             "sparse/dense goal <= 1; per start = core time of one start, fixed = the call "
             "outside its starts):",
             f"{'kind':9s} {'n':>7s} {'nnz':>9s} {'method':16s} {'sparse s':>9s} "
             f"{'dense s':>9s} {'sparse/dense':>12s} {'us/nnz':>7s} {'start us':>8s} "
             f"{'fixed us':>8s} same"]
    for r in rows:
        dense = f"{r['dense_s']:9.5f}" if r["dense_s"] is not None else \
            f"{'n/a':>9s}"
        ratio = f"{r['ratio']:12.2f}" if r["ratio"] is not None else \
            f"{'(%.0f GiB)' % r['dense_gib']:>12s}"
        per = f"{1e6 * r['start_s']:8.0f} {1e6 * r['fixed_s']:8.0f}" if r["starts"] else \
            f"{'-':>8s} {'-':>8s}"
        lines.append(f"{r['kind']:9s} {r['n']:7d} {r['nnz']:9d} {r['method']:16s} "
                     f"{r['sparse_s']:9.5f} {dense} {ratio} {r['us_per_nnz']:7.2f} {per} "
                     f"{'-' if r['same'] is None else ('yes' if r['same'] else 'NO')}")
    worst = max((r["ratio"] for r in rows if r["ratio"] is not None), default=float("nan"))
    lines.append(f"identical partitions: {'yes' if ok else 'NO'}; sparse slower than dense "
                 f"(ratio > 1) in {len(slow)} of {sum(r['ratio'] is not None for r in rows)} "
                 f"rows; largest sparse/dense ratio {worst:.2f}")
    ok_x, exact, text = _sparse_exact(quick)
    lines += ["", text]
    return ok and ok_x, {"rows": rows, "m": m, "slower_rows": len(slow), "max_ratio": worst,
                         "exact": exact}, "\n".join(lines)


def _sparse_exact(quick: bool):
    """The exact jagged methods (JAG-PQ-OPT-NICOL, JAG-PQ-OPT-DP, JAG-M-OPT) and JAG-M-ALLOC (the
    optimal stripes for JAG-M-HEUR's counts) on the nonzeros (no dense copy) against the dense
    code:
    identical optimum and partition (integer loads), time ratio sparse/dense, memory of the
    dense prefix the sparse run avoids."""
    sizes = [300, 1000] if quick else [300, 1000, 3268]
    m = 16
    rows, ok = [], True
    for kind in SPARSE_KINDS:
        for n in sizes:
            A = sparse_like(kind, n, seed=1)
            D = A.toarray()
            for meth in ("jag_pq_opt_nicol", "jag_pq_opt_dp", "jag_m_opt", "jag_m_alloc"):
                fn = getattr(spatial, meth)
                (rs, ts), (rd, td) = _wall_pair(lambda: fn(A, m), lambda: fn(D, m))
                same = bool(np.array_equal(rs.rects, rd.rects)) and rs.max_load == rd.max_load
                ok &= same and rs.status == rd.status
                rows.append({"kind": kind, "n": n, "nnz": int(A.nnz), "method": meth, "m": m,
                             "sparse_s": ts, "dense_s": td, "ratio": ts / td, "same": same,
                             "max_load": int(rs.max_load),
                             "cost_evals": int(rs.stats["cost_evals"]),
                             "dense_prefix_mib": 8 * (n + 1) ** 2 / 2**20})
    lines = [f"exact jagged and JAG-M-ALLOC on the nonzeros (m = {m}; no dense copy, "
             "memory O(nnz + n) plus the memo of nested costs) vs the dense code:",
             f"{'kind':9s} {'n':>6s} {'nnz':>7s} {'method':17s} {'sparse s':>9s} "
             f"{'dense s':>9s} {'sparse/dense':>12s} {'f evals':>8s} {'prefix MiB':>10s} same"]
    for r in rows:
        lines.append(f"{r['kind']:9s} {r['n']:6d} {r['nnz']:7d} {r['method']:17s} "
                     f"{r['sparse_s']:9.4f} {r['dense_s']:9.4f} {r['ratio']:12.2f} "
                     f"{r['cost_evals']:8d} {r['dense_prefix_mib']:10.1f} "
                     f"{'yes' if r['same'] else 'NO'}")
    lines.append(f"exact: same optimum and partition as the dense code: {'yes' if ok else 'NO'}")
    return ok, rows, "\n".join(lines)


def multi_start(quick: bool):
    """Max load of the paper's single start against all starts (must never be worse)."""
    sizes = [300, 1000] if quick else [1000, 3268, 10_000]
    ms = [16, 64] if quick else [16, 64, 256, 1024]
    single = {"rect_nicol": ("rows_uniform",), "jag_pq_heur": ("rows_load",)}
    rows, ok = [], True
    for kind in SPARSE_KINDS:
        for n in sizes:
            A = sparse_like(kind, n, seed=2)
            for m in ms:
                for meth, one in single.items():
                    fn = getattr(spatial, meth)
                    r1, t1 = _wall(lambda: fn(A, m, starts=one))
                    ra, ta = _wall(lambda: fn(A, m))
                    ok &= ra.max_load <= r1.max_load
                    rows.append({"kind": kind, "n": n, "m": m, "method": meth,
                                 "single": int(r1.max_load), "all": int(ra.max_load),
                                 "ratio": ra.max_load / r1.max_load if r1.max_load else 1.0,
                                 "winner": ra.stats["start"], "single_s": t1, "all_s": ta,
                                 "per_start": {k: v["max_load"] for k, v in
                                               ra.stats["starts"].items()}})
    lines = ["multi-start (unit weights; single = the paper's start: rect_nicol rows_uniform, "
             "jag_pq_heur rows_load):",
             f"{'kind':9s} {'n':>6s} {'m':>5s} {'method':12s} {'single':>7s} {'all':>7s} "
             f"{'all/single':>10s} {'winner':13s} {'single s':>9s} {'all s':>8s}"]
    for r in rows:
        lines.append(f"{r['kind']:9s} {r['n']:6d} {r['m']:5d} {r['method']:12s} "
                     f"{r['single']:7d} {r['all']:7d} {r['ratio']:10.3f} {r['winner']:13s} "
                     f"{r['single_s']:9.4f} {r['all_s']:8.4f}")
    better = sum(r["all"] < r["single"] for r in rows)
    lines.append(f"all starts <= single start in every case: {'yes' if ok else 'NO'}; "
                 f"strictly better in {better} of {len(rows)}")
    return ok, {"rows": rows}, "\n".join(lines)


def fig9_cause(quick: bool):
    """Fig. 9's RECT-NICOL / HIER-RB time ratio (the paper: 25x at 512x512, m = 10^4) beside a
    from-scratch RECT-NICOL in C (``_sarma.nicol_idx`` with ``start="nicuni"``: uniform rows
    first, as the paper's; a new stripe prefix and Nicol's cut-index search in every
    half-sweep) timed in the same process on the same input. ``wpart reproduce`` states the
    cause of its DIFFERS row from this measurement."""
    import _sarma
    from wpart.spatial import instances as I

    n, m, P = (256, 1024, 32) if quick else (512, 10_000, 100)
    A = I.uniform(n, delta=1.2, seed=0)
    M = _sarma.Mat(A)
    ours = lambda: spatial.partition(A, m, method="rect_nicol", P=P, Q=P,  # noqa: E731
                                     starts=("rows_uniform",))
    hier = lambda: spatial.partition(A, m, method="hier_rb")  # noqa: E731
    rows = {}
    reps = 3 if quick else 5
    for name, fn in (("hier_rb", hier), ("rect_nicol", ours)):
        r = min((fn() for _ in range(reps)), key=lambda x: x.stats["seconds"])
        rows[name] = {"seconds": r.stats["seconds"], "max_load": float(r.max_load)}
    if _sarma.nicol_idx(M, P, P, start="nicuni") is None:  # no C compiler
        return True, {"rows": rows, "scratch": None}, "fig9: no C compiler, scratch not run"
    best, RC = float("inf"), None
    for _ in range(reps):  # (wall clock, as the core calls' stats["seconds"] above)
        t0 = time.perf_counter()
        RC = _sarma.nicol_idx(M, P, P, start="nicuni")
        best = min(best, time.perf_counter() - t0)
    rows["scratch_rect_nicol"] = {"seconds": best, "max_load": float(M.loads(*RC).max())}
    base = rows["hier_rb"]["seconds"]
    for v in rows.values():
        v["over_hier_rb"] = v["seconds"] / base
    lines = [f"Fig. 9 cause: {n}x{n} uniform (Delta 1.2), m = {m}, P = Q = {P}; "
             "the paper: RECT-NICOL 25x HIER-RB",
             f"{'run':20s} {'ms':>9s} {'/ HIER-RB':>10s} {'max load':>10s}"]
    for k, v in rows.items():
        lines.append(f"{k:20s} {v['seconds'] * 1e3:9.2f} {v['over_hier_rb']:9.1f}x "
                     f"{v['max_load']:10.0f}")
    return True, {"n": n, "m": m, "rows": rows}, "\n".join(lines)


STEPS = {
    "quality": ex.quality,
    "series": ex.series,
    "resolution": sp.resolution,
    "stripes": ex.stripes,
    "variants": sp.variants,
    "hybrid": sp.hybrid,
    "timing": ex.timing,
    "scaling": ex.scaling,
    "sparse": sparse_vs_dense,
    "starts": multi_start,
    "fig9": fig9_cause,
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (< 60 s)")
    ap.add_argument("--json", type=Path, default=None, help="write the results here")
    ap.add_argument("--only", choices=list(STEPS), nargs="+", default=None,
                    help="run only these steps")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    results, ok_all = {}, True
    names = list(args.only) if args.only else list(STEPS)
    for i, name in enumerate(names, 1):
        ok, data, text = sp.timed(name, lambda name=name: STEPS[name](args.quick), True, i,
                                  len(names), "quick sizes" if args.quick else "full sizes")
        print(text, "\n", flush=True)
        results[name] = {"ok": ok, "data": data}
        ok_all &= ok
    miss = results.get("timing", {}).get("data", {}).get("target_10x_miss", [])
    timing = f"; timing MISS on {', '.join(miss)}" if miss else ""
    print(f"bench_spatial: checks {'hold' if ok_all else 'FAILED'}{timing} "
          f"in {time.perf_counter() - t0:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(jsonable(results), indent=1))
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
