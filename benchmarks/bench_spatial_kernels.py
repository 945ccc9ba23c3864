"""CPU time of the spatial core kernels (the jagged and RECT-NICOL methods, dense prefix and
nonzeros), for comparing two builds of the extension: each round runs one process with the
baseline build (``--baseline``: a copy of ``wpart/_core*.so`` from before a change) and one with
the current build, interleaved, and each case keeps the best of at least three repetitions
(``time.process_time``). Prints a table (best of all rounds, after / before) and writes JSON
under benchmarks/results/.

Usage::

    cp wpart/_core*.so /tmp/core_before.so    # before the change
    ...                                        # change, ./tools/rebuild.sh
    python benchmarks/bench_spatial_kernels.py --baseline /tmp/core_before.so --rounds 3

Without ``--baseline`` it times the current build alone (one round, no ratio).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

from _common import use_wpart  # noqa: E402  (installed wpart first, else this checkout)

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_core(path: str | None) -> None:
    """Make `path` (an extension file) the ``wpart._core`` that ``import wpart`` uses."""
    if path:
        spec = importlib.util.spec_from_file_location("wpart._core", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["wpart._core"] = mod
        spec.loader.exec_module(mod)


def _cases() -> list:
    import numpy as np
    import scipy.sparse as sps

    from wpart import _core as C

    rng = np.random.default_rng(7)

    def blobs(n: int) -> np.ndarray:
        y, x = np.mgrid[0:n, 0:n]
        A = np.zeros((n, n))
        for _ in range(6):
            cy, cx, s = rng.integers(0, n), rng.integers(0, n), rng.integers(n // 16, n // 4)
            A += 50 * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * s * s))
        return (A + 1).astype(np.int64)

    def banded(n: int, nnz: int, floats: bool) -> tuple:
        r = rng.integers(0, n, nnz)
        c = np.clip(r + rng.integers(-n // 20, n // 20, nnz), 0, n - 1)
        v = rng.random(nnz) * 3 if floats else rng.integers(1, 4, nnz)
        M = sps.csr_array((v, (r, c)), shape=(n, n))
        M.sum_duplicates()
        M.sort_indices()
        dt = np.float64 if floats else np.int64
        return n, M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data.astype(dt)

    best = C.SP_BEST
    out = []
    for name, A in (("pic512i", blobs(512)), ("uni512f", rng.random((512, 512)))):
        S = C.prefix_sum(A, None, "A")

        def d(code: int, m: int, S=S, **kw: object) -> object:
            return lambda: C.spatial_partition(S, m, code, **kw)

        out += [
            (name + " jag_pq_heur 16x16", d(C.SP_JAG_PQ_HEUR, 256, P=16, Q=16, orient=best)),
            (name + " jag_pq_opt_nicol 16x16",
             d(C.SP_JAG_PQ_OPT_NICOL, 256, P=16, Q=16, orient=best)),
            (name + " jag_m_heur 256", d(C.SP_JAG_M_HEUR, 256, orient=best)),
            (name + " jag_m_heur_probe 256", d(C.SP_JAG_M_HEUR_PROBE, 256, orient=best)),
            (name + " jag_m_opt 64", d(C.SP_JAG_M_OPT, 64, orient=best)),
            (name + " rect_nicol starts 16x16", lambda S=S: C.spatial_partition_starts(
                S, 256, C.SP_RECT_NICOL, [0, 1, 2, 3], P=16, Q=16)),
        ]
    for name, (n, rp, ci, rv) in (("sp20k_i", banded(20000, 400000, False)),
                                  ("sp20k_f", banded(20000, 400000, True)),
                                  ("sp4k_i", banded(3000, 40000, False))):

        def s(code: int, m: int, n=n, rp=rp, ci=ci, rv=rv, **kw: object) -> object:
            return lambda: C.spatial_sparse_partition(n, n, rp, ci, rv, None, None, None, m,
                                                      code, with_loads=True, **kw)

        out += [
            (name + " jag_pq_heur 16x16", s(C.SP_JAG_PQ_HEUR, 256, P=16, Q=16, orient=best)),
            (name + " jag_m_heur 256", s(C.SP_JAG_M_HEUR, 256, orient=best)),
            (name + " jag_m_heur_probe 256", s(C.SP_JAG_M_HEUR_PROBE, 256, orient=best)),
            (name + " rect_nicol 16x16", s(C.SP_RECT_NICOL, 256, P=16, Q=16, orient=C.SP_HOR)),
        ]
        if name == "sp4k_i":
            out += [
                (name + " jag_pq_opt_nicol 8x8",
                 s(C.SP_JAG_PQ_OPT_NICOL, 64, P=8, Q=8, orient=best)),
                (name + " jag_m_alloc", s(C.SP_JAG_M_ALLOC, 64, cuts=np.full(8, 8, np.int64),
                                          orient=C.SP_HOR)),
                (name + " jag_m_opt 16", s(C.SP_JAG_M_OPT, 16, orient=best)),
            ]
    return out


def _worker(core: str | None, only: str | None) -> dict:
    """Best CPU seconds of each case (at least 3 repetitions, up to 0.6 s or 30)."""
    _load_core(core)
    res = {}
    for name, fn in _cases():
        if only and only not in name:
            continue
        best, reps, t_end = float("inf"), 0, time.process_time() + 0.6
        while reps < 3 or (time.process_time() < t_end and reps < 30):
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
            reps += 1
        res[name] = best
    return res


_WPART_PARENT = ""


def _run(core: str | None, only: str | None) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--core", core or ""]
    if only:
        cmd += ["--only", only]
    env = dict(os.environ)  # the worker imports the wpart that use_wpart() found
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_WPART_PARENT, env.get("PYTHONPATH")) if p)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", help="the extension file of the build to compare against")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", help="run the cases whose name contains this text")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "spatial_kernels_fold.json"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--core", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        print(json.dumps(_worker(a.core or None, a.only)))
        return
    global _WPART_PARENT
    _WPART_PARENT = str(use_wpart().parent)
    before, after = [], []
    for _ in range(a.rounds if a.baseline else 1):
        if a.baseline:
            before.append(_run(a.baseline, a.only))
        after.append(_run(None, a.only))
    rows = []
    print(f"{'case':34s} {'before ms':>10s} {'after ms':>10s} {'after/before':>13s}")
    for k in after[0]:
        n = [r[k] for r in after]
        row = {"case": k, "after_best_s": min(n), "after_runs_s": n}
        if before:
            o = [r[k] for r in before]
            row.update(before_best_s=min(o), before_runs_s=o, ratio=min(n) / min(o))
        rows.append(row)
        print(f"{k:34s} {row.get('before_best_s', float('nan')) * 1e3:10.3f} "
              f"{min(n) * 1e3:10.3f} {row.get('ratio', float('nan')):13.3f}")
    doc = {"what": "CPU seconds (process_time, best of >= 3 repetitions per process) of the "
                   "spatial core kernels; processes interleaved before/after",
           "baseline": a.baseline, "rounds": len(after), "rows": rows}
    if before:
        ratios = [r["ratio"] for r in rows]
        doc["median_ratio"] = statistics.median(ratios)
        print(f"median after/before {doc['median_ratio']:.3f}, range {min(ratios):.3f} .. "
              f"{max(ratios):.3f}")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
