"""Adds (or remakes) the "offdiag" set of benchmarks/data/spatial_fresh_ref.json: square
matrices whose entries lie mostly on one side of the diagonal -- bands above or below it, a
first-order upwind stencil (2D, 3D), a DAG in topological order, a lower triangle's band with
values, a band above the diagonal that widens -- and rectangular bands along the diagonal from
corner to corner (one with a fifth of its entries anywhere), with the best of SARMA's nine per
case, as the fresh and holdout sets hold them (benchmarks/_sarma.py; the SGO members from
SARMA's library seed 1, and from its command line's seed under ``nine_cli``). The set was made
after the default's diagonal start began to follow such bands (2aa6293, 9b6de5a) and was never
tuned on.

Usage: python benchmarks/spatial_fresh_ref_offdiag.py   (about 3 minutes on one core)
"""

from __future__ import annotations

import json
import sys
import time

import bench_spatial_fresh as B
import _sarma
from wpart.hetero._profile_io import write_atomic

SET = "offdiag"
MATRICES = [  # name, gen, params, seed
    ("o_band_up_2000", "banded", {"n": 2000, "per_row": 8, "lo": 5, "hi": 60}, 101),
    ("o_band_low_2500", "banded", {"n": 2500, "per_row": 6, "lo": 120, "hi": 0}, 102),
    ("o_band_low_wide_3000", "banded", {"n": 3000, "per_row": 7, "lo": 200, "hi": 20}, 103),
    ("o_band_up_z_1600", "banded", {"n": 1600, "per_row": 10, "lo": 0, "hi": 150,
                                    "zfrac": 0.15}, 104),
    ("o_upwind2d_45", "upwind", {"k": 45, "dim": 2, "values": True}, 105),
    ("o_upwind3d_13", "upwind", {"k": 13, "dim": 3}, 106),
    ("o_dag_1500", "dag", {"n": 1500, "nnz": 12000}, 107),
    ("o_lower_2200_v", "lower", {"n": 2200, "nnz": 16000, "scale": 80, "values": True}, 108),
    ("o_varband_up_1800", "varband", {"n": 1800, "per_row": 9, "w0": 5, "w1": 300,
                                      "side": "up"}, 109),
    ("o_rectband_1000x3000", "rectband", {"n1": 1000, "n2": 3000, "per_row": 12, "width": 60},
     110),
    ("o_rectband_2800x1100", "rectband", {"n1": 2800, "n2": 1100, "per_row": 6, "width": 25},
     111),
    ("o_rectband_n_1500x2500", "rectband", {"n1": 1500, "n2": 2500, "per_row": 8,
                                            "width": 40, "noise": 0.2}, 112),
]


def weightings(A):
    out = ["stored"]
    if (A.data == 0).any():
        out.append("count")
    if (A.data[A.data != 0] != 1).any():
        out.append("values")
    return out


def dump(ref):
    """The reference file's text: one line per matrix's fields and per case (as it was made)."""
    lines = ["{", f' "about": {json.dumps(ref["about"])},', f' "nine": {json.dumps(ref["nine"])},',
             ' "matrices": [']
    for k, m in enumerate(ref["matrices"]):
        head = json.dumps({a: v for a, v in m.items() if a != "cases"})[:-1]
        lines.append(f'  {head}, "cases": [')
        cases = [json.dumps(c, separators=(",", ":")) for c in m["cases"]]
        lines += [f"   {c}," for c in cases[:-1]]
        lines.append(f"   {cases[-1]}]}}" + ("," if k + 1 < len(ref["matrices"]) else ""))
    return "\n".join(lines + [" ]", "}"]) + "\n"


def main():
    ref = json.loads(B.DATA.read_text())
    ref["matrices"] = [m for m in ref["matrices"] if m["set"] != SET]
    ref["about"] = ref["about"].split(" offdiag:")[0]
    ref["about"] += (" offdiag: square matrices whose entries lie mostly on one side of the "
                     "diagonal and rectangular bands, added by "
                     "benchmarks/spatial_fresh_ref_offdiag.py (the same _sarma.py values).")
    for name, gen, params, seed in MATRICES:
        A = B.build(gen, params, seed)
        m = {"name": name, "set": SET, "gen": gen, "params": params, "seed": seed,
             "shape": list(A.shape), "stored": int(A.nnz), "cases": []}
        for how in weightings(A):
            M = _sarma.Mat(B.loads(A, how))
            for P, Q in B.grids(A.shape):
                t = time.process_time()
                nine, cli = B.nine_of(M, P, Q)
                best = min(nine, key=nine.get)
                as_int = {a: int(v) for a, v in nine.items()}
                m["cases"].append({"weights": how, "P": P, "Q": Q, "best9": as_int[best],
                                   "best_alg": best, "nic": as_int["nic"], "nine": as_int,
                                   "nine_cli": {a: int(v) for a, v in cli.items()}})
                print(f"{name} {how} {P}x{Q} best9 {as_int[best]} ({best}) "
                      f"{time.process_time() - t:.1f} s", flush=True)
        ref["matrices"].append(m)
    write_atomic(B.DATA, dump(ref), "reference file")  # (whole or not at all)
    return 0


if __name__ == "__main__":
    sys.exit(main())
