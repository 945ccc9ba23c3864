"""rect_nicol's default on a matrix with explicit zeros beside the same matrix without them.

Explicit zeros are not loads (``weights="values"`` and ``"count"``): the one-call default drops
them inside its core call (``_core.spatial_rect_nicol_auto(..., zeros=1 | 2)``) and runs on the
entries left. For bench_spatial_fresh's matrices that hold explicit zeros (its generators with
``zfrac``), at 4 x 4 and 8 x 8, this measures the CPU of
``wpart.spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=w)`` on A as built (zeros stored) and on
the same matrix after ``eliminate_zeros`` (the baseline: nothing to drop), in the same process,
interleaved, best of ``--k`` rounds; the grids and loads must be equal (asserted). Ratio = CPU
with zeros / CPU without: what the zeros still cost.

Usage: python benchmarks/bench_spatial_zeros.py [--k K] [--out PATH]
(writes PATH, default results/bench_spatial_zeros.json)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from _common import ROOT, interleaved_cpu, use_wpart

use_wpart()
from wpart import spatial  # noqa: E402
from wpart.hetero._profile_io import write_atomic  # noqa: E402

import bench_spatial_fresh as B  # noqa: E402 (next to this script)

GRIDS = ((4, 4), (8, 8))


def cases():
    """(name, weights, A with its explicit zeros, A without them) of the reference matrices
    whose build stores zeros, for the weightings the reference file lists (not "stored")."""
    for m in json.loads(B.DATA.read_text())["matrices"]:
        if not m["params"].get("zfrac"):
            continue
        A = B.build(m["gen"], m["params"], m["seed"])
        if not (A.data == 0).any():
            continue
        Z = A.copy()
        Z.eliminate_zeros()
        for w in sorted({c["weights"] for c in m["cases"]} - {"stored"}):
            yield m["name"], w, A, Z


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=5, help="interleaved rounds (best of k)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/bench_spatial_zeros.json"))
    args = ap.parse_args(argv)
    rows = []
    print(f"{'matrix':16s} {'weights':7s} {'grid':5s} {'stored':>7s} {'zeros':>6s} | "
          f"{'zeros us':>9s} {'none us':>8s} {'ratio':>6s}")
    for name, w, A, Z in cases():
        for P, Q in GRIDS:
            def f(M=A):
                return spatial.rect_nicol(M, P * Q, P=P, Q=Q, weights=w)

            def g(M=Z):
                return spatial.rect_nicol(M, P * Q, P=P, Q=Q, weights=w)

            ra, rb = f(), g()
            assert np.array_equal(ra.rects, rb.rects) and ra.max_load == rb.max_load
            assert (ra.A != rb.A).nnz == 0
            n = max(3, int(0.02 / max(1e-6, interleaved_cpu((f,), 1, 1)[0])))
            cz, cn = interleaved_cpu((f, g), n, args.k)
            row = {"matrix": name, "weights": w, "P": P, "Q": Q, "stored": int(A.nnz),
                   "zeros": int(A.nnz - Z.nnz), "cpu_zeros": cz, "cpu_none": cn,
                   "ratio": cz / cn, "max_load": float(ra.max_load)}
            rows.append(row)
            print(f"{name:16s} {w:7s} {P}x{Q:<3d} {row['stored']:7d} {row['zeros']:6d} | "
                  f"{cz * 1e6:9.1f} {cn * 1e6:8.1f} {row['ratio']:6.3f}")
    ratios = sorted(r["ratio"] for r in rows)
    summary = {"cases": len(rows), "median_ratio": ratios[len(ratios) // 2],
               "max_ratio": ratios[-1],
               "note": "CPU of rect_nicol on a matrix with explicit zeros / on the same matrix "
                       "after eliminate_zeros (the same grid, asserted), interleaved, best of k"}
    print(f"median ratio {summary['median_ratio']:.3f}, max {summary['max_ratio']:.3f} "
          f"over {len(rows)} cases")
    write_atomic(Path(args.out), json.dumps({"summary": summary, "cases": rows}, indent=1) + "\n",
                 "benchmark results")  # (whole or not at all)
    return 0


if __name__ == "__main__":
    sys.exit(main())
