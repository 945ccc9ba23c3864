"""rect_nicol's default on the sparse inputs a researcher hands it, one call path beside the other.

For matrices shaped like SARMA's small test files (205^2 - 1,005^2, 2-4 % of the cells stored,
unit weights), the CPU of ``wpart.spatial.rect_nicol(A, P * Q, P=P, Q=Q)`` on the same loads
given as an int64 CSR matrix, a float64 CSR matrix (``scipy.io.mmread`` of a real file, then
``tocsr``), a COO matrix (``scipy.io.mmread`` itself) and a CSC matrix: once by the one-call
default, once by the general path (the input rules: conversion, and densification of a float
matrix denser than 1/32) -- the path these inputs took before the one-call default accepted
them -- in the same process, with the same result (asserted). Ratio = general / one call.

Usage: python benchmarks/bench_spatial_inputs.py [--repeat N] [--out PATH]
(writes PATH, default results/bench_spatial_inputs.json)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart

use_wpart()
import scipy.sparse as sp  # noqa: E402

from wpart import spatial  # noqa: E402
from wpart.spatial import _rect  # noqa: E402

#: (name, n, stored cells) of SARMA-sized matrices: random unit patterns with a dense diagonal
SHAPES = (("n205_d4", 205, 1783), ("n261_d3", 261, 2319), ("n366_d4", 366, 5124),
          ("n1005_d2", 1005, 25571))
GRIDS = ((4, 4), (8, 8), (16, 16))


def matrix(n, nnz, seed):
    """A float64 COO matrix of `nnz` unit entries (the diagonal and random cells), as
    ``scipy.io.mmread`` gives a real pattern-like file."""
    rng = np.random.default_rng(seed)
    cells = np.unique(np.concatenate([np.arange(n) * (n + 1),
                                      rng.choice(n * n, nnz, replace=False)]))[:nnz]
    return sp.coo_matrix((np.ones(cells.size), (cells // n, cells % n)), shape=(n, n))


def cpu(fn, repeat):
    """(result, best CPU seconds per call) of `fn` over `repeat` loops of enough calls."""
    res = fn()
    t = time.process_time()
    fn()
    calls = max(1, int(0.02 / max(time.process_time() - t, 1e-6)))
    best = np.inf
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - t) / calls)
    return res, best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/bench_spatial_inputs.json"))
    args = ap.parse_args(argv)
    real, rows = _rect.fast_default, []
    print(f"{'matrix':9s} {'grid':6s} {'input':9s} {'one call ms':>11s} {'general ms':>10s} "
          f"{'ratio':>6s}")
    for k, (name, n, nnz) in enumerate(SHAPES):
        C = matrix(n, nnz, k)
        inputs = {"int CSR": C.tocsr().astype(np.int64), "float CSR": C.tocsr(), "COO": C,
                  "CSC": C.tocsc()}
        for P, Q in GRIDS:
            for kind, A in inputs.items():
                def call():
                    return spatial.rect_nicol(A, P * Q, P=P, Q=Q)
                try:
                    r1, t1 = cpu(call, args.repeat)
                    _rect.fast_default = lambda *a, **kw: None  # the general path
                    r2, t2 = cpu(call, args.repeat)
                finally:
                    _rect.fast_default = real
                assert r1.max_load == r2.max_load and np.array_equal(r1.rects, r2.rects)
                rows.append({"matrix": name, "n": n, "nnz": int(C.nnz), "P": P, "Q": Q,
                             "input": kind, "one_call_cpu": t1, "general_cpu": t2,
                             "ratio": t2 / t1})
                print(f"{name:9s} {P}x{Q:<4d} {kind:9s} {t1 * 1e3:11.3f} {t2 * 1e3:10.3f} "
                      f"{t2 / t1:6.2f}", flush=True)
    summary = {kind: float(np.median([r["ratio"] for r in rows if r["input"] == kind]))
               for kind in ("int CSR", "float CSR", "COO", "CSC")}
    print("median general / one call:", json.dumps(summary))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": {"median_ratio": summary}, "cases": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
