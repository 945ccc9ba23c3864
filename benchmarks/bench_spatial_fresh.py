"""The default ``rect_nicol`` on generated matrices it was never tuned on, beside SARMA's nine.

Measures, for each case of two sets of seeded matrices that the other spatial benchmarks do not
use -- "fresh" (25 matrices, 199 cases) and "holdout" (18 matrices, 135 cases, kept back while
the default was tuned on the first) -- the max load and CPU seconds of the current wpart's
default ``wpart.spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=w)`` against

* the best max load of our re-implementations of SARMA's nine algorithms (nic, nicuni, uni,
  pal, opal, rac, sgo_2ds, sgo_2dr_nic, sgo_2dr; benchmarks/_sarma.py), computed once and
  stored in benchmarks/data/spatial_fresh_ref.json (``--verify`` recomputes them), the three
  SGO members from SARMA's random start seeded as its library seeds it (1: ``best9``) and as
  its command line does (``sarma --seed``'s default 2147483647, handed to the SGO members:
  ``nine_cli``, ``best_cli``; SARMA's own command line gave those values on its test
  matrices), and
* the CPU of SARMA's nic in C (benchmarks/_sarma_nic.c): ``_sarma.nicol_idx`` does SARMA's
  own work for ``nic`` -- Nicol's cut-index search for each exact 1D step (SARMA's default,
  ``use_indices``), stripes found by binary search, the transpose built inside the call -- and
  is the baseline; ``_sarma.nicol_c`` (the same cuts by a bisection on the bottleneck value,
  SARMA's ``nic_v``; 2.5-6x faster than SARMA's nic) is reported beside it as ``ratio_v``.

A third set, "offdiag" (12 matrices, 90 cases; benchmarks/spatial_fresh_ref_offdiag.py), holds
square matrices whose entries lie mostly on one side of the diagonal (bands above or below it,
first-order upwind stencils in 2D and 3D, a DAG in topological order, a lower triangle's band
with values, a widening band above the diagonal) and rectangular bands along the diagonal
from corner to corner (one with a fifth of its entries anywhere); it was made after the
default's diagonal start began to follow such bands and never tuned on. ``--set both`` is
fresh and holdout (the 334 cases of the earlier results), ``all`` (the default) adds it.

Matrices (210^2 - 3,200^2, 985 - 25,890 stored entries, regenerated from gen / params / seed):
2D grids (5- and 9-point), 3D grids (7- and 27-point), banded (narrow, wide, non-symmetric,
growing or shrinking width), power-law with values 1-3 (square and rectangular),
block-diagonal, random geometric 2D / 3D, Delaunay, clustered rows (and columns), arrow,
lower-triangular with values; some carry explicit zeros (10-25 % of the stored entries).
Weightings: "stored" always, "count" where there are explicit zeros, "values" where values
differ from 1; grids 4x4, 8x8, 16x16, 32x32, 8x32, and 64x64 where min(n1, n2) >= 1,000.
The matrix goes in as stored, with ``weights=`` the weighting.

Per case: max load, ok (<= best of nine), ok_cli (<= the best with the command line's seed),
ok_both (<= both), valid (the rectangles are a P x Q grid covering the
matrix exactly once, empty stripes allowed, and the max load equals the one recomputed from the
loads), CPU of rect_nicol and of the C nics (and nic_halves, the half-steps SARMA's nic ran:
its CPU per half-step is a near-steady cost of the grid and matrix size, the count varies 2-128
from case to case; 2-10 (median 4) on the power-law matrices, where it stops at about twice the
best of nine): time.process_time of a loop of n calls (n such
that the C nic_v loop takes about ``--target`` seconds) / n, best of k alternating repeats;
ratio = SARMA nic CPU / rect_nicol CPU (>= 1: rect_nicol no slower), ratio_v the same for
nic_v. Goal (#27): ok on every case, ratio >= 1
on >= 90 % of them. Totals per set and per set and grid.

Usage: python benchmarks/bench_spatial_fresh.py [--quick] [--k 3]
       [--set fresh|holdout|offdiag|both|all]
       [--verify] [--only name,name] [--grids 4x4,8x32] [--out PATH]
(the results in benchmarks/results/ were taken with ``--set both --k 3`` at nice 10 on a
shared 2-core machine; writes PATH (.json) and the same path with .txt: the printed table)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from _common import ROOT, interleaved_cpu, use_wpart

use_wpart()
import scipy.sparse as sp  # noqa: E402

import wpart  # noqa: E402
from wpart import spatial  # noqa: E402

import _sarma  # noqa: E402 (next to this script, first on sys.path when run as one)

DATA = Path(__file__).resolve().parent / "data" / "spatial_fresh_ref.json"
GRIDS = ((4, 4), (8, 8), (16, 16), (32, 32), (8, 32))
SETS = ("fresh", "holdout", "offdiag")
BIG_GRIDS = ((64, 64),)  # where min(n1, n2) >= 1000


def _tri(k):
    return sp.diags([1, 1, 1], [-1, 0, 1], shape=(k, k), format="csr", dtype=np.int64)


def _coo(n1, n2, r, c, v):
    A = sp.csr_array((v, (r, c)), shape=(n1, n2))
    A.sum_duplicates()
    return A


def _ones(n, rows, cols):
    """Unit pattern of the (rows, cols) entries plus the diagonal of an n x n matrix."""
    rows = np.concatenate([rows, np.arange(n)])
    cols = np.concatenate([cols, np.arange(n)])
    A = _coo(n, n, rows, cols, np.ones(rows.size, np.int64))
    A.data[:] = 1
    return A


def build(gen, params, seed):
    """The raw matrix (canonical int64 csr_array, explicit zeros kept) of one spec."""
    rng = np.random.default_rng(seed)
    p = dict(params)
    zfrac = p.pop("zfrac", 0.0)
    if gen == "grid2d":  # 5- or 9-point stencil on a k1 x k2 grid
        k1, k2, st = p["k1"], p["k2"], p["stencil"]
        T1, T2 = _tri(k1), _tri(k2)
        if st == 5:
            A = sp.kron(sp.identity(k1), T2) + sp.kron(T1, sp.identity(k2))
        else:
            A = sp.kron(T1, T2)
        A = sp.csr_array(A != 0, dtype=np.int64)
    elif gen == "grid3d":  # 7- or 27-point stencil on a k^3 grid
        k, st = p["k"], p["stencil"]
        T, I = _tri(k), sp.identity(k)
        if st == 7:
            A = sp.kron(sp.kron(I, I), T) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(T, I), I)
        else:
            A = sp.kron(sp.kron(T, T), T)
        A = sp.csr_array(A != 0, dtype=np.int64)
    elif gen == "banded":  # per_row random entries in [i - lo, i + hi] (+ the diagonal)
        n, k, lo, hi = p["n"], p["per_row"], p["lo"], p["hi"]
        rows = np.repeat(np.arange(n), k)
        A = _ones(n, rows, np.clip(rows + rng.integers(-lo, hi + 1, rows.size), 0, n - 1))
    elif gen == "varband":  # half-width goes from w0 to w1 along the diagonal
        n, k, w0, w1 = p["n"], p["per_row"], p["w0"], p["w1"]
        rows = np.repeat(np.arange(n), k)
        w = (w0 + (w1 - w0) * rows / (n - 1)).astype(np.int64)
        lo = 0 if p.get("side") == "up" else -w  # "up": the band above the diagonal only
        A = _ones(n, rows, np.clip(rows + rng.integers(lo, w + 1), 0, n - 1))
    elif gen == "upwind":  # first-order upwind stencil on a k^dim grid: i, i - 1, i - k, ...
        k, dim = p["k"], p["dim"]
        n = k ** dim
        i = np.arange(n)
        rows, cols = [i], [i]
        for s in (1, k, k * k)[:dim]:
            rows.append(i[s:])
            cols.append(i[s:] - s)
        r, c = np.concatenate(rows), np.concatenate(cols)
        A = _coo(n, n, r, c, rng.integers(1, 4, r.size) if p.get("values") else
                 np.ones(r.size, np.int64))
    elif gen == "rectband":  # n1 x n2, per_row entries within width of j = i n2 / n1, noise
        n1, n2, k, w = p["n1"], p["n2"], p["per_row"], p["width"]
        r = np.repeat(np.arange(n1), k)
        c = np.clip(r * n2 // n1 + rng.integers(-w, w + 1, r.size), 0, n2 - 1)
        extra = int(p.get("noise", 0.0) * r.size)
        r = np.concatenate([r, rng.integers(0, n1, extra)])
        c = np.concatenate([c, rng.integers(0, n2, extra)])
        A = _coo(n1, n2, r, c, np.ones(r.size, np.int64))
        A.data[:] = 1
    elif gen == "dag":  # a DAG in topological order: entries above the diagonal only
        n, nnz = p["n"], p["nnz"]
        a, b = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
        keep = a != b
        A = _ones(n, np.minimum(a, b)[keep], np.maximum(a, b)[keep])
    elif gen == "powerlaw":  # Zipf rows / columns (exponent a), half uniform, values 1-3
        n1, n2, nnz, a = p["n1"], p["n2"], p["nnz"], p["a"]
        pr, pc = rng.permutation(n1), rng.permutation(n2)
        r = pr[np.minimum(rng.zipf(a, nnz) - 1, n1 - 1)]
        c = pc[np.minimum(rng.zipf(a, nnz) - 1, n2 - 1)]
        r = np.where(rng.random(nnz) < 0.5, r, rng.integers(0, n1, nnz))
        c = np.where(rng.random(nnz) < 0.5, c, rng.integers(0, n2, nnz))
        A = _coo(n1, n2, r, c, rng.integers(1, 4, nnz))
        A.data = np.minimum(A.data, 3)
    elif gen == "blockdiag":  # nb dense-ish diagonal blocks of random sizes, plus noise
        nb, size, dens = p["nb"], p["size"], p["density"]
        sizes = rng.integers(size // 2, 2 * size, nb)
        blocks = [sp.random(int(s), int(s), density=dens, random_state=rng, format="csr")
                  for s in sizes]
        A = sp.block_diag(blocks, format="csr")
        n = A.shape[0]
        A = A + sp.random(n, n, density=p["noise"] / n, random_state=rng, format="csr")
        A = sp.csr_array(A != 0, dtype=np.int64)
    elif gen == "rgg":  # random geometric graph in [0,1]^dim, points sorted by x (or random)
        from scipy.spatial import cKDTree

        n, dim, deg = p["n"], p["dim"], p["deg"]
        X = rng.random((n, dim))
        if p.get("order", "x") == "x":
            X = X[np.argsort(X[:, 0], kind="stable")]
        vol = {2: np.pi, 3: 4.0 / 3.0 * np.pi}[dim]
        r = (deg / (n * vol)) ** (1.0 / dim)
        pairs = cKDTree(X).query_pairs(r, output_type="ndarray")
        A = _ones(n, np.concatenate([pairs[:, 0], pairs[:, 1]]),
                  np.concatenate([pairs[:, 1], pairs[:, 0]]))
    elif gen == "delaunay":  # FEM-like: Delaunay triangulation of random points, by strips
        from scipy.spatial import Delaunay

        n = p["n"]
        X = rng.random((n, 2))
        X = X[np.lexsort((X[:, 1], np.floor(X[:, 0] * p["strips"])))]
        tri = Delaunay(X).simplices
        A = _ones(n, np.concatenate([tri[:, i] for i in (0, 0, 1, 1, 2, 2)]),
                  np.concatenate([tri[:, j] for j in (1, 2, 0, 2, 0, 1)]))
    elif gen == "clustered":  # rows drawn from a few clusters (heavy row bands)
        n1, n2, nnz, nc = p["n1"], p["n2"], p["nnz"], p["clusters"]
        centers = rng.integers(0, n1, nc)
        widths = rng.integers(5, max(6, n1 // 20), nc)
        which = rng.integers(0, nc, nnz)
        r = np.clip(centers[which] + rng.normal(0, widths[which]).astype(np.int64), 0, n1 - 1)
        r = np.where(rng.random(nnz) < 0.7, r, rng.integers(0, n1, nnz))
        c = rng.integers(0, n2, nnz)
        if p.get("col_clusters"):
            cc = rng.integers(0, n2, nc)
            c = np.where(rng.random(nnz) < 0.5,
                         np.clip(cc[which] + rng.normal(0, 20, nnz).astype(np.int64), 0, n2 - 1), c)
        A = _coo(n1, n2, r, c, np.ones(nnz, np.int64))
        A.data[:] = 1
    elif gen == "arrow":  # w dense border rows and columns + band + diagonal
        n, w, k = p["n"], p["w"], p["per_row"]
        rows = np.repeat(np.arange(n), k)
        cols = np.clip(rows + rng.integers(-3, 4, rows.size), 0, n - 1)
        br = np.repeat(np.arange(w), n)
        bc = np.tile(np.arange(n), w)
        keep = rng.random(br.size) < p["border_density"]
        A = _ones(n, np.concatenate([rows, br[keep], bc[keep]]),
                  np.concatenate([cols, bc[keep], br[keep]]))
    elif gen == "lower":  # random lower triangle, density falling away from the diagonal
        n, nnz = p["n"], p["nnz"]
        r = rng.integers(0, n, nnz)
        c = r - np.minimum((rng.exponential(p["scale"], nnz)).astype(np.int64), r)
        A = _coo(n, n, np.concatenate([r, np.arange(n)]), np.concatenate([c, np.arange(n)]),
                 np.ones(nnz + n, np.int64))
        A.data = rng.integers(1, 4, A.data.size).astype(np.int64) if p.get("values") \
            else np.ones(A.data.size, np.int64)
    else:
        raise ValueError(gen)
    A = sp.csr_array(A)
    A.sum_duplicates()
    A.sort_indices()
    if A.dtype != np.int64:
        A = A.astype(np.int64)
    if zfrac:  # explicit zeros (SuiteSparse files store many): kept as stored entries
        A.data[rng.random(A.data.size) < zfrac] = 0
    return A


def loads(A, how):
    """The load matrix (canonical int64 csr, no explicit zeros) of weighting `how`."""
    W = A.copy()
    if how == "stored":
        W.data = np.ones(W.data.size, np.int64)
    elif how == "count":
        W.data = (W.data != 0).astype(np.int64)
    W.eliminate_zeros()
    return W


def grids(shape):
    return list(GRIDS) + (list(BIG_GRIDS) if min(shape) >= 1000 else [])


def _cuts(iv, k, other, n):
    """Cut vector (k + 1) from the interval pairs iv (each appearing `other` times), or None."""
    u, cnt = np.unique(iv, axis=0, return_counts=True)
    if (cnt % other).any():
        return None
    iv = np.repeat(u, cnt // other, axis=0)
    if iv.shape[0] != k or iv[0, 0] != 0 or iv[-1, 1] != n or (iv[:, 1] < iv[:, 0]).any() \
            or (iv[1:, 0] != iv[:-1, 1]).any():
        return None
    return np.concatenate([iv[:, 0], [n]])


def grid_of(rects, P, Q, n1, n2):
    """(R, C) when the rectangles are exactly a P x Q grid covering n1 x n2 (each cell once,
    empty stripes allowed), else None."""
    rects = np.asarray(rects, np.int64).reshape(-1, 4)
    if rects.shape[0] != P * Q:
        return None
    R, C = _cuts(rects[:, :2], P, Q, n1), _cuts(rects[:, 2:], Q, P, n2)
    if R is None or C is None:
        return None
    want = np.empty((P, Q, 4), np.int64)
    want[:, :, 0], want[:, :, 1] = R[:-1, None], R[1:, None]
    want[:, :, 2], want[:, :, 3] = C[None, :-1], C[None, 1:]

    def srt(x):
        return x[np.lexsort(x.T[::-1])]

    return (R, C) if np.array_equal(srt(rects), srt(want.reshape(-1, 4))) else None


def select(ref, args):
    """The (matrix entry, case) pairs chosen by --set / --only / --quick, in file order."""
    only = set(filter(None, args.only.split(",")))
    want = {tuple(int(x) for x in g.split("x")) for g in filter(None, args.grids.split(","))}
    out = []
    for st in SETS:
        ms = [m for m in ref["matrices"] if m["set"] == st]
        if args.set not in (st, "all") and not (args.set == "both" and st in SETS[:2]):
            continue
        for i, m in enumerate(ms):
            if only and m["name"] not in only:
                continue
            ws = [w for w in ("stored", "count", "values") if any(c["weights"] == w
                                                                   for c in m["cases"])]
            gl = grids(m["shape"])
            for c in m["cases"]:
                if want and (c["P"], c["Q"]) not in want:
                    continue
                if args.quick and (c["P"], c["Q"]) != gl[(i + ws.index(c["weights"])) % len(gl)]:
                    continue
                out.append((m, c))
    return out


def totals(rows):
    d = {"cases": len(rows), "load_ok": sum(r["ok"] for r in rows),
         "load_ok_cli": sum(r["ok_cli"] for r in rows),
         "load_ok_both": sum(r["ok_both"] for r in rows),
         "valid": sum(r["valid"] for r in rows)}
    if rows and "ratio" in rows[0]:
        rat = [r["ratio"] for r in rows]
        d["cpu_ok"] = sum(x >= 1.0 for x in rat)
        d["cpu_ok_frac"] = round(d["cpu_ok"] / len(rows), 4)
        d["median_nic_over_rect_nicol"] = round(float(np.median(rat)), 4)
        d["min_ratio"] = round(float(min(rat)), 4)
        d["cpu_rect_nicol_sum"] = float(sum(r["cpu"] for r in rows))
        d["cpu_nic_sum"] = float(sum(r["nic_cpu"] for r in rows))
        d["cpu_ok_v"] = sum(r["ratio_v"] >= 1.0 for r in rows)
        d["median_nic_v_over_rect_nicol"] = round(float(np.median([r["ratio_v"] for r in rows])),
                                                  4)
    d["load_fail"] = [f"{r['matrix']}/{r['weights']}/{r['P']}x{r['Q']}: {r['max_load']:.0f} > "
                      f"{r['best9']} ({r['best_alg']})" for r in rows if not r["ok"]]
    d["load_fail_cli"] = [f"{r['matrix']}/{r['weights']}/{r['P']}x{r['Q']}: "
                          f"{r['max_load']:.0f} > {r['best_cli']} ({r['best_alg_cli']}, seed "
                          f"{_sarma.CLI_SEED})" for r in rows if not r["ok_cli"]]
    return d


def nine_of(M, P, Q):
    """SARMA's nine on `M` (benchmarks/_sarma.py; the symmetric ones where P == Q): ({name: max
    load} with the SGO members from SARMA's library seed, {SGO name: max load} from its command
    line's seed) -- the reference file's ``nine`` and ``nine_cli``."""
    nine = {a: float(M.lmax(*cu)) for a in _sarma.NINE
            if (cu := _sarma.run(a, M, P, Q)) is not None}
    cli = {a: float(M.lmax(*cu)) for a in _sarma.NINE if a.startswith("sgo")
           and (cu := _sarma.run(a, M, P, Q, _sarma.CLI_SEED)) is not None}
    return nine, cli


def cli_best(c):
    """(best, algorithm) of the nine with the SGO members from SARMA's command-line seed."""
    nine = dict(c["nine"], **c["nine_cli"])
    alg = min(nine, key=nine.get)
    return nine[alg], alg


def need_c_nic():
    """Stop with a message where the C nic (the CPU baseline) cannot be built."""
    if _sarma.nicol_c(_sarma.Mat(sp.identity(4, format="csr")), 2, 2) is None:
        raise SystemExit("no C compiler: the C nic (the CPU baseline) cannot be built")


def begin(args, note=""):
    """The cases that args choose (select), the printed lines and their printer: the header
    (wpart's folder, the count, the set, k and `note`) said and the C nic checked."""
    chosen = select(json.loads(DATA.read_text()), args)
    lines = []

    def say(s):
        lines.append(s)
        print(s, flush=True)

    say(f"wpart {Path(wpart.__file__).resolve().parent} | {len(chosen)} cases, set {args.set}, "
        f"k {args.k}{note}")
    need_c_nic()
    return chosen, lines, say


def case_inputs(chosen):
    """(matrix entry, case, A, M) for each chosen case, in order: A the matrix as stored (built
    once per matrix from the maker the JSON names), M SARMA's loads of the case's weighting
    (``_sarma.Mat``, made once per matrix and weighting)."""
    cur = None
    for m, c in chosen:
        name, how = m["name"], c["weights"]
        if cur is None or cur[0] != name:
            A = build(m["gen"], m["params"], m["seed"])
            assert list(A.shape) == m["shape"] and A.nnz == m["stored"], name
            cur = (name, A, {})
        if how not in cur[2]:
            cur[2][how] = _sarma.Mat(loads(cur[1], how))
        yield m, c, cur[1], cur[2][how]


def loop_length(g, target):
    """Calls per timed loop: enough that `g` (the C nic) runs about `target` seconds, 1-200."""
    g()
    t = time.process_time()
    g()
    return max(1, min(200, int(target / max(time.process_time() - t, 1e-6))))


def checkout():
    """The short commit id of this checkout ("" outside git)."""
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()


def write_results(path, out, lines):
    """`out` as JSON at `path` and the printed `lines` beside it (.txt), each written whole:
    both go to temporary files first, then replace the previous pair."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pairs = [(path, json.dumps(out, indent=1)), (path.with_suffix(".txt"), "\n".join(lines) + "\n")]
    for p, text in pairs:
        p.with_name(p.name + ".tmp").write_text(text)
    for p, _ in pairs:
        p.with_name(p.name + ".tmp").replace(p)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one grid per matrix and weighting")
    ap.add_argument("--k", type=int, default=3, help="alternating timing repeats (best of k)")
    ap.add_argument("--target", type=float, default=0.01,
                    help="seconds of C nic per timed loop (sets the loop length)")
    ap.add_argument("--set", default="all", choices=SETS + ("both", "all"),
                    help="one set, both (fresh and holdout) or all three")
    ap.add_argument("--only", default="", help="comma-separated matrix names")
    ap.add_argument("--grids", default="",
                    help="comma-separated grids PxQ (e.g. 4x4,8x32): only their cases")
    ap.add_argument("--verify", action="store_true",
                    help="recompute the nine with _sarma.py for the chosen cases (slow: use "
                         "with --quick or --only) and compare with the JSON")
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/bench_spatial_fresh.json"))
    args = ap.parse_args(argv)
    chosen, lines, say = begin(args, " (quick)" if args.quick else "")
    say(f"{'matrix':16s} {'set':7s} {'weights':7s} {'grid':5s} {'best9':>8s} {'(alg)':13s} "
        f"{'rect_nicol':>10s} ok valid | {'nic ms':>8s} {'rn ms':>8s} {'ratio':>6s} {'rat_v':>6s}")
    rows, bad_ref = [], []
    t_all = time.process_time()
    for m, c, A, M in case_inputs(chosen):
        name, how, P, Q = m["name"], c["weights"], c["P"], c["Q"]
        f = lambda: spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=how)  # noqa: E731
        g = lambda: _sarma.nicol_c(M, P, Q)  # noqa: E731
        h = lambda: _sarma.nicol_idx(M, P, Q)  # noqa: E731
        hs = _sarma.nicol_idx(M, P, Q, steps=True)
        if hs is None:
            raise SystemExit(f"{name}/{how}: fractional loads (SARMA's loads are integers)")
        r = f()
        gr = grid_of(r.rects, P, Q, M.n1, M.n2)
        bc, ac = cli_best(c)
        row = {"matrix": name, "set": m["set"], "weights": how, "P": P, "Q": Q,
               "best9": c["best9"], "best_alg": c["best_alg"], "best_cli": bc,
               "best_alg_cli": ac, "nic": c["nic"],
               "max_load": float(r.max_load), "ok": bool(float(r.max_load) <= c["best9"]),
               "ok_cli": bool(float(r.max_load) <= bc),
               "ok_both": bool(float(r.max_load) <= min(bc, c["best9"])),
               "valid": bool(gr is not None and M.lmax(*gr) == float(r.max_load)),
               "start": r.stats.get("start"), "nic_halves": hs[2]}
        n = loop_length(g, args.target)
        row["cpu"], row["nic_cpu"], row["nic_v_cpu"] = interleaved_cpu((f, h, g), n, args.k)
        row["loop"] = n
        row["ratio"] = row["nic_cpu"] / max(row["cpu"], 1e-12)
        row["ratio_v"] = row["nic_v_cpu"] / max(row["cpu"], 1e-12)
        if args.verify:
            nine, cli = nine_of(M, P, Q)
            row["verified"] = nine == {a: float(v) for a, v in c["nine"].items()} and \
                min(nine.values()) == c["best9"] and \
                cli == {a: float(v) for a, v in c["nine_cli"].items()}
            if not row["verified"]:
                bad_ref.append(f"{name}/{how}/{P}x{Q}: {nine} vs {c['nine']}")
        rows.append(row)
        say(f"{name:16s} {m['set']:7s} {how:7s} {P:2d}x{Q:<2d} {c['best9']:>8} "
            f"({c['best_alg']:11s}) {row['max_load']:>10.0f} {'ok' if row['ok'] else 'NO'} "
            f"{'yes  ' if row['valid'] else 'NO   '} | {row['nic_cpu'] * 1e3:8.3f} "
            f"{row['cpu'] * 1e3:8.3f} {row['ratio']:6.2f} {row['ratio_v']:6.2f}"
            + ("" if not args.verify else " ref ok" if row["verified"] else " REF DIFFERS"))
    head = checkout()
    out = {"wpart": str(Path(wpart.__file__).resolve().parent), "commit": head or None,
           "set": args.set, "k": args.k,
           "quick": args.quick, "target": args.target,
           "baseline": "SARMA's nic in C (benchmarks/_sarma_nic.c via _sarma.nicol_idx: "
                       "Nicol's cut-index search, ctypes call); ratio_v: nic_v "
                       "(_sarma.nicol_c, bisection on the bottleneck)",
           "totals": {}, "totals_per_grid": {}}
    for st in SETS:
        rs = [r for r in rows if r["set"] == st]
        if not rs:
            continue
        out["totals"][st] = totals(rs)
        for P, Q in GRIDS + BIG_GRIDS:
            rg = [r for r in rs if (r["P"], r["Q"]) == (P, Q)]
            if rg:
                d = totals(rg)
                d.pop("load_fail")
                d.pop("load_fail_cli")
                out["totals_per_grid"][f"{st} {P}x{Q}"] = d
    if args.set in ("both", "all") and rows:
        out["totals"]["both"] = totals([r for r in rows if r["set"] in SETS[:2]])
    if args.set == "all" and rows:
        out["totals"]["all"] = totals(rows)
    if args.verify:
        out["verify"] = {"cases": len(rows), "same": len(rows) - len(bad_ref), "diff": bad_ref}
    out["bench_cpu_s"] = time.process_time() - t_all
    say("totals (load_ok: max load <= best9, the SGO members from SARMA's library seed 1; "
        "load_ok_cli: from its command line's seed 2147483647; load_ok_both: <= both; cpu_ok: "
        "rect_nicol CPU <= SARMA nic's; ratio: nic CPU / rect_nicol CPU; cpu_ok_v: the same "
        "against nic_v)")
    for key, d in list(out["totals"].items()) + list(out["totals_per_grid"].items()):
        say(f"  {key:14s} " + " ".join(f"{k} {v}" for k, v in d.items()
                                          if k in ("cases", "load_ok", "load_ok_cli",
                                                   "load_ok_both", "valid", "cpu_ok",
                                                   "median_nic_over_rect_nicol", "min_ratio",
                                                   "cpu_ok_v")))
        for fl in d.get("load_fail", []) if key not in ("both", "all") else []:
            say(f"      max load > best9: {fl}")
        for fl in d.get("load_fail_cli", []) if key not in ("both", "all") else []:
            say(f"      max load > best9 (CLI seed): {fl}")
    if args.verify:
        say(f"verify: {out['verify']['same']} of {len(rows)} cases' nine values recomputed equal"
            + "".join(f"\n      differs: {b}" for b in bad_ref))
    say(f"bench CPU {out['bench_cpu_s']:.1f} s (checkout at {head or '?'})")
    out["cases"] = rows
    write_results(args.out, out, lines)
    return 1 if args.verify and bad_ref else 0


if __name__ == "__main__":
    sys.exit(main())
