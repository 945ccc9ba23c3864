"""wpart's rectilinear grids beside SARMA's nine algorithms on generated sparse matrices.

For every matrix and P x Q grid: the max load and CPU seconds of the default
``wpart.spatial.rect_nicol``, of ``rect_refine`` and of the symmetric methods, and of our
re-implementations of SARMA's nic, nicuni, uni, pal, opal, rac, sgo_2ds, sgo_2dr_nic and
sgo_2dr (benchmarks/_sarma.py; nic and the SGO ones in vectorised numpy, pal/opal/rac through
wpart's C kernel). Goal (#27): rect_nicol's max load <= the best of the nine on every case,
its CPU <= nic's on >= 90 % of the cases. CPU = time.process_time per call, best of
`--repeat` (the C nics: best of max(3, repeat)); the goal's two times, rect_nicol's and the C
nic's, are taken together: loops of about 10 ms, interleaved, best of `--repeat` rounds
(``cpu_timing``; single calls moved sub-millisecond cases by a few between runs; not on the
4 M-nonzero matrix, seconds per call). The CPU goal counts against SARMA's nic in C
(benchmarks/_sarma_nic.c, compiled at start with the system compiler): ``_sarma.nicol_idx``
does SARMA's own work -- Nicol's cut-index search for each exact 1D step, stripes by binary
search, the transpose inside the call; ``_sarma.nicol_c`` (SARMA's ``nic_v``: a bisection on
the bottleneck, the same cuts as the numpy nic, asserted, 2.5-6x faster) and the numpy nic's
CPU stay in the JSON beside it (``goal_cpu_v``: the goal against nic_v).

Matrices (all generated, seeded): small ones of the size of the SuiteSparse set the goal was
measured on from outside (256 - 3,000 rows, 1,200 - 30,000 nonzeros), then 2D and 3D grid graphs (5 / 7-point), banded (random
entries in a band), power-law (Zipf rows and columns, values 1-3), block-diagonal (dense-ish
blocks plus noise). ``--full`` adds the 200,000 x 200,000 banded matrix with 4 M nonzeros at
16 x 16 (and 32 x 32).

``--mtx DIR [DIR ...]`` runs the same comparison on MatrixMarket files (paths, or folders
of ``.mtx`` files) instead: each file under the weightings ``stored`` (1 per stored entry,
explicit zeros included, as SARMA counts them) and ``count`` (1 per nonzero value), both
triangles of a symmetric file, unit values of a pattern file, grids 4x4 - 64x64 and 8x32 (a
grid skipped where P or Q exceeds the dimension): rect_nicol's max load read from the file
(``weights=``), its CPU on the loads matrix already built, beside SARMA's nine on that
matrix and the C nic (results/bench_spatial_mtx.json: SARMA's test set, 6 SuiteSparse files).

``--sarma-cli EXE`` (with ``--mtx``) also runs SARMA's own command line, built from its
sources (PEERS: not packaged), on each loads matrix written as a general integer file with
``--use-data``: those of the nine its ``--help`` lists (never nicuni; the SGO members in
some versions only: SARMA 1.1.0's ``sarma`` has none; rac / pal / opal where P == Q), their
max loads (checked against the cuts it prints) and its own timer (``Partitioning time
(s)``, best of ``--repeat``; the SGO ones once) under ``sarma_cli``, and the goals against them
(``goal_load_cli``: <= the best of the re-implementations and SARMA's own; ``goal_cpu_cli``:
CPU <= its nic's time). Its SGO ones start from its own seed, so they can end below the
re-implementations' (cage 4 x 4: 495 vs 510).

With ``--mtx``, rect_nicol is also timed as single calls with cold caches (``cpu_cold``, the
least; ``goal_cpu_cold``, ``goal_cpu_cold_cli``): with ``--sarma-cli`` one call right after
each of its nic runs, else in rounds over all the cases, each call after every other case.
SARMA's CLI times one call in a process of its own, whose caches are as cold, while the
loops above keep a case's code and data in the caches (on SARMA's test matrices a single
cold call costs a median 1.12 x a looped one, up to 2.6 x; results/bench_spatial_mtx6_fef8906).

Usage: python benchmarks/bench_spatial_sarma.py [--full] [--repeat N] [--out PATH]
[--only NAMES] [--no-sgo] [--grids PxQ,...] [--mtx DIR [DIR ...]] [--sarma-cli EXE]
(the JSON in results/ was taken with ``--full --repeat 5``: the SGO algorithms and, on the
4 M-nonzero matrix, everything but rect_nicol and nic run once; bench_spatial_mtx.json with
``--mtx <folder> --repeat 3 --sarma-cli <exe>``)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from _common import ROOT, interleaved_cpu, use_wpart

use_wpart()
import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from wpart import spatial  # noqa: E402
from wpart.spatial._mmfast import cache_clear  # noqa: E402 (the parsed files kept)

import _sarma  # noqa: E402 (next to this script, first on sys.path when run as one)


def grid2d(k):
    """5-point Laplacian pattern of a k x k grid (n = k^2)."""
    I = sp.identity(k, format="csr")
    T = sp.diags([1, 1, 1], [-1, 0, 1], shape=(k, k), format="csr", dtype=np.float64)
    return sp.csr_array((sp.kron(I, T) + sp.kron(T, I)) != 0, dtype=np.int64)


def grid3d(k):
    I = sp.identity(k, format="csr")
    T = sp.diags([1, 1, 1], [-1, 0, 1], shape=(k, k), format="csr", dtype=np.float64)
    A = sp.kron(sp.kron(I, I), T) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(T, I), I)
    return sp.csr_array(A != 0, dtype=np.int64)


def banded(n, per_row, seed):
    """per_row random entries per row within a band of half-width 2 per_row (unit values)."""
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), per_row)
    off = rng.integers(-2 * per_row, 2 * per_row + 1, rows.size)
    cols = np.clip(rows + off, 0, n - 1)
    A = sp.csr_array((np.ones(rows.size, np.int64), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1
    return A


def powerlaw(n, nnz, seed):
    """Zipf-distributed rows and columns (a = 1.6, shuffled), values 1-3."""
    rng = np.random.default_rng(seed)
    pr = rng.permutation(n)
    pc = rng.permutation(n)
    r = pr[np.minimum(rng.zipf(1.6, nnz) - 1, n - 1)]
    c = pc[np.minimum(rng.zipf(1.6, nnz) - 1, n - 1)]
    r = np.where(rng.random(nnz) < 0.5, r, rng.integers(0, n, nnz))
    A = sp.csr_array((rng.integers(1, 4, nnz), (r, c)), shape=(n, n))
    A.sum_duplicates()
    A.data = np.minimum(A.data, 3)
    return A


def blockdiag(nb, size, density, seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(size // 2, 2 * size, nb)
    blocks = [sp.random(int(s), int(s), density=density, random_state=int(seed + i),
                        format="csr") for i, s in enumerate(sizes)]
    A = sp.block_diag(blocks, format="csr")
    n = A.shape[0]
    noise = sp.random(n, n, density=2.0 / n, random_state=seed, format="csr")
    A = sp.csr_array((A + noise) != 0, dtype=np.int64)
    return A


def matrices(full):
    out = [
        ("grid2d_64", grid2d(64)),
        ("grid2d_252", grid2d(252)),
        ("grid3d_20", grid3d(20)),
        ("banded_20k", banded(20000, 10, 1)),
        ("powerlaw_20k", powerlaw(20000, 200000, 2)),
        ("blockdiag_40", blockdiag(40, 100, 0.05, 3)),
    ]
    if full:
        out.append(("banded_200k_4M", banded(200000, 20, 4)))
    return out


def small_matrices():
    """Matrices of the size of the SuiteSparse set the goal was measured on from outside
    (205^2 - 3,268^2, about 500 - 28,000 stored entries): the fixed per-call cost decides."""
    return [
        ("s_grid2d_16", grid2d(16)),
        ("s_grid2d_40", grid2d(40)),
        ("s_grid3d_12", grid3d(12)),
        ("s_banded_500", banded(500, 10, 5)),
        ("s_banded_3k", banded(3000, 8, 6)),
        ("s_powerlaw_1k", powerlaw(1000, 6000, 7)),
        ("s_powerlaw_3k", powerlaw(3000, 30000, 8)),
        ("s_blockdiag_12", blockdiag(12, 60, 0.1, 9)),
    ]


GRIDS = ((4, 4), (8, 8), (16, 16), (32, 32), (8, 32))
FULL_GRIDS = ((16, 16), (32, 32))
MTX_GRIDS = ((4, 4), (8, 8), (16, 16), (32, 32), (64, 64), (8, 32))
MTX_SUFFIXES = (".mtx", ".mtx.gz", ".mtx.bz2")


def cpu(fn, repeat):
    best, res = np.inf, None
    for _ in range(repeat):
        t = time.process_time()
        res = fn()
        best = min(best, time.process_time() - t)
    return res, best


def paired_cpu(fs, repeat, target=0.01):
    """CPU seconds per call of each function in `fs`, timed in turn (interleaved) over `repeat`
    rounds of n calls each (n: about `target` seconds of the first, at most 200), best round of
    each: a sub-millisecond call is timed over a loop, both sides under the same conditions
    (bench_spatial_fresh.py's method)."""
    t = time.process_time()
    fs[0]()
    n = max(1, min(200, int(target / max(time.process_time() - t, 1e-6))))
    return interleaved_cpu(fs, n, max(repeat, 1))


def goal_cpu(row, f, M, P, Q, repeat, more=None):
    """The CPU goal's two times, rect_nicol's call `f` and SARMA's nic in C (the index search;
    nic_v where it cannot run), timed together by paired_cpu, into `row`; `more`: {key: call}
    of further calls timed in the same loops, each time as ``row["wpart"]["rect_nicol"][key]``
    (``cpu_path``: on the file's path, its reading included, the file's parse kept from the
    call before (wpart.spatial._mmfast: the bytes read and compared); ``cpu_path_parse``: the
    same parsed anew, the first call on a file; ``cpu_coo``: on the COO matrix
    scipy.io.mmread returns; ``cpu_coo_scipy``: the same through scipy's conversion)."""
    nic = (lambda: _sarma.nicol_idx(M, P, Q)) if "nic_idx_max_load" in row else \
        (lambda: _sarma.nicol_c(M, P, Q)) if "nic_c_cpu" in row else None
    if nic is None:
        return
    w = row["wpart"]["rect_nicol"]
    more = more or {}
    w["cpu"], row["nic_c_cpu"], *times = paired_cpu((f, nic, *more.values()), repeat)
    w.update(zip(more, times))
    row["cpu_timing"] = "paired loops"


def stored_csr(c):
    """The stored entries per cell of the COO matrix `c` as an int64 CSR matrix (duplicates
    and explicit zeros each counted 1, summed by scipy's conversion)."""
    return sp.csr_array((np.ones(c.nnz, np.int64), (c.row, c.col)), shape=c.shape)


def via_scipy(coo, m, P, Q, weights):
    """rect_nicol on a COO matrix as it ran before it converted one in its core (cd65d74):
    scipy's CSR conversion (duplicates summed), or for ``"stored"`` the stored entries per
    cell counted by scipy, as ``"values"`` -- the baseline of ``cpu_coo``, its conversion
    included."""
    if weights == "stored":
        return spatial.rect_nicol(stored_csr(coo), m, P=P, Q=Q)
    return spatial.rect_nicol(coo.tocsr(), m, P=P, Q=Q, weights=weights)


def mtx_files(paths):
    """(name, path) of every MatrixMarket file named or found (sorted) in a named folder."""
    out = []
    for p in map(Path, paths):
        found = sorted(f for f in p.iterdir() if f.name.endswith(MTX_SUFFIXES)
                       and f.is_file()) \
            if p.is_dir() else [p]
        for f in found:
            name = f.name
            for suf in MTX_SUFFIXES:
                name = name.removesuffix(suf)
            out.append((name, f))
    return out


def mtx_loads(path):
    """{weighting: integer loads CSR matrix} of a MatrixMarket file as scipy.io.mmread reads
    it (both triangles of a symmetric file, unit values of a pattern file): ``stored`` 1 per
    stored entry (explicit zeros and each duplicate included), ``count`` 1 per nonzero value
    (duplicates summed first) -- the loads of ``weights=`` of wpart."""
    c = sp.coo_array(scipy.io.mmread(path))
    stored = stored_csr(c)
    count = sp.csr_array(c)  # duplicates summed
    count = sp.csr_array(((count.data != 0).astype(np.int64), count.indices, count.indptr),
                         shape=c.shape)
    count.eliminate_zeros()
    return {"stored": stored, "count": count}


def parse_grids(text):
    """'4x4,8x32' -> ((4, 4), (8, 32))."""
    return tuple(tuple(int(v) for v in g.lower().split("x")) for g in text.split(",") if g)


def nine(M, P, Q, repeat, no_sgo=False, big=False):
    """{alg: {max_load, cpu}} of SARMA's nine on `M` (symmetric ones where P == Q); the slow
    SGO ones once (their CPU is reported, no goal reads it), skipped with `no_sgo` or `big`
    (minutes per call in numpy on the 4 M-nonzero matrix)."""
    out = {}
    for alg in _sarma.NINE:
        if (no_sgo or big) and alg.startswith("sgo"):
            continue
        cuts, t = cpu(lambda: _sarma.run(alg, M, P, Q), 1 if alg.startswith("sgo") else repeat)
        if cuts is not None:
            out[alg] = {"max_load": M.lmax(*cuts), "cpu": t}
    return out


def nine_cli_seed(M, P, Q, no_sgo=False, big=False):
    """{alg: {max_load, cpu}} of the SGO members from SARMA's command-line seed
    (``_sarma.CLI_SEED``: what ``sarma --alg sgo_2dr`` runs with its default flags), once."""
    out = {}
    if no_sgo or big:
        return out
    for alg in _sarma.NINE:
        if alg.startswith("sgo"):
            cuts, t = cpu(lambda: _sarma.run(alg, M, P, Q, _sarma.CLI_SEED), 1)
            if cuts is not None:
                out[alg] = {"max_load": M.lmax(*cuts), "cpu": t}
    return out


def c_nics(row, M, P, Q, repeat):
    """nic_v at C speed (same cuts as the numpy nic, asserted) and SARMA's nic (index search):
    the CPU baseline of the goal, into `row`."""
    cuts, t = cpu(lambda: _sarma.nicol_c(M, P, Q), max(repeat, 3))
    if cuts is not None:
        assert M.lmax(*cuts) == row["sarma"]["nic"]["max_load"], (row["matrix"], P, Q)
        row["nic_v_c_cpu"] = row["nic_c_cpu"] = t
    cuts, t = cpu(lambda: _sarma.nicol_idx(M, P, Q), max(repeat, 3))
    if cuts is not None:
        row["nic_idx_max_load"] = M.lmax(*cuts)
        row["nic_c_cpu"] = t


def verdict(row):
    """The best of nine, its algorithm and the goals of rect_nicol's row; the printed line."""
    best9 = min(v["max_load"] for v in row["sarma"].values())
    w = row["wpart"]["rect_nicol"]
    nic_cpu = row["sarma"]["nic"]["cpu"]
    row["best_of_nine"] = best9
    row["best_alg"] = min(row["sarma"], key=lambda a: row["sarma"][a]["max_load"])
    row["goal_load"] = w["max_load"] <= best9
    seeded = row.get("sarma_cli_seed") or {}
    row["best_both"] = min([best9] + [v["max_load"] for v in seeded.values()])
    row["goal_load_both"] = w["max_load"] <= row["best_both"]
    row["goal_cpu_numpy"] = w["cpu"] <= nic_cpu
    row["goal_cpu"] = w["cpu"] <= row.get("nic_c_cpu", nic_cpu)
    row["goal_cpu_v"] = w["cpu"] <= row.get("nic_v_c_cpu", nic_cpu)
    row["cpu_ratio_nic_over_wpart"] = row.get("nic_c_cpu", nic_cpu) / max(w["cpu"], 1e-9)
    if "cpu_path" in w:  # the call on the file's path, its reading included (nic's is not)
        row["goal_cpu_path"] = w["cpu_path"] <= row.get("nic_c_cpu", nic_cpu)
    if "cpu_path_parse" in w:  # the same, the file parsed anew (its first call)
        row["goal_cpu_path_parse"] = w["cpu_path_parse"] <= row.get("nic_c_cpu", nic_cpu)
    if "cpu_coo" in w:  # the call on scipy.io.mmread's COO matrix (its conversion included)
        row["goal_cpu_coo"] = w["cpu_coo"] <= row.get("nic_c_cpu", nic_cpu)
    if "cpu_coo_scipy" in w:  # the same through scipy's conversion, timed beside it
        row["coo_speedup"] = w["cpu_coo_scipy"] / max(w["cpu_coo"], 1e-9)
    cli = row.get("sarma_cli")
    if cli:  # SARMA's own CLI beside: its loads join the best, its nic's timer the CPU goal
        row["best_with_cli"] = min([best9] + [v["max_load"] for v in cli.values()])
        row["goal_load_cli"] = w["max_load"] <= row["best_with_cli"]
        if "nic" in cli:
            row["goal_cpu_cli"] = w["cpu"] <= cli["nic"]["seconds"]
    label = row["matrix"] + (f":{row['weights']}" if "weights" in row else "")
    refine = row["wpart"].get("rect_refine")
    print(f"{label:16s} {row['P']:2d}x{row['Q']:<2d} nic {row['sarma']['nic']['max_load']:>10.0f} "
          f"best9 {best9:>10.0f} ({row['best_alg']:11s}) both {row['best_both']:>10.0f} rect_nicol "
          f"{w['max_load']:>10.0f} {'OK ' if row['goal_load'] else 'NO '} "
          + (f"refine {refine['max_load']:>10.0f} " if refine else "")
          + f"| cpu nic {nic_cpu:.4f} C {row.get('nic_c_cpu', np.nan):.4f} "
          f"wpart {w['cpu']:.4f} {'OK' if row['goal_cpu'] else 'NO'}"
          + (f" | CLI best {row['best_with_cli']:.0f} nic {cli['nic']['seconds']:.4f} "
             f"{'OK' if row['goal_load_cli'] else 'NO'}/"
             f"{'OK' if row.get('goal_cpu_cli') else 'NO'}" if cli and "nic" in cli else ""),
          flush=True)
    return row


def totals(cases):
    """The goals' counts over `cases`, in all and per grid (printed as a table)."""
    per_grid = {}
    for c in cases:
        g = per_grid.setdefault(f"{c['P']}x{c['Q']}", {"cases": 0, "load_ok": 0,
                                                        "load_ok_both": 0, "cpu_ok": 0})
        g["cases"] += 1
        g["load_ok"] += c["goal_load"]
        g["load_ok_both"] += c["goal_load_both"]
        g["cpu_ok"] += c["goal_cpu"]
        if "goal_cpu_cli" in c:
            g["load_ok_cli"] = g.get("load_ok_cli", 0) + c["goal_load_cli"]
            g["cpu_ok_cli"] = g.get("cpu_ok_cli", 0) + c["goal_cpu_cli"]
    cli = [c for c in cases if "goal_cpu_cli" in c]
    print(f"{'grid':6s} {'cases':>5s} {'load ok':>8s} {'both':>5s} {'CPU <= nic':>10s}"
          + (f" {'load ok (CLI)':>13s} {'CPU <= CLI nic':>14s}" if cli else ""))
    for k, g in per_grid.items():
        print(f"{k:6s} {g['cases']:5d} {g['load_ok']:8d} {g['load_ok_both']:5d} "
              f"{g['cpu_ok']:10d}"
              + (f" {g.get('load_ok_cli', 0):13d} {g.get('cpu_ok_cli', 0):14d}" if cli else ""))
    extra = {"cli_cases": len(cli),
             "cli_load_goal_met": sum(c["goal_load_cli"] for c in cli),
             "cli_cpu_goal_met": sum(c["goal_cpu_cli"] for c in cli),
             "cli_algs": sorted({a for c in cli for a in c["sarma_cli"]}),
             "cli_note": "SARMA's own CLI (those of the nine it lists: never nicuni; cli_algs), "
                         "its Partitioning time (s), best of --repeat"} if cli else {}
    for way, note, label in (
            ("path", "rect_nicol on the file's path, its reading included (the bytes read "
             "and compared with the parse kept from the call before); nic's time is its "
             "partitioning alone", "on the file's path (reading included)"),
            ("path_parse", "the same, the file parsed anew at each call (parse, CSR): a "
             "file's first call", "on the file's path, parsed anew"),
            ("coo", "rect_nicol on the COO matrix scipy.io.mmread returns, with the weighting "
             "(its conversion to CSR included)", "on scipy.io.mmread's COO matrix"),
            ("cold", "rect_nicol as single calls with cold caches (cold_timing), the least",
             "single cold calls"),
            ("cold_cli", "the same against SARMA's CLI nic (its own process per call)",
             "single cold calls, against SARMA's CLI nic")):
        rows = [c for c in cases if f"goal_cpu_{way}" in c]
        if rows:
            met = extra[f"{way}_cpu_goal_met"] = sum(c[f"goal_cpu_{way}"] for c in rows)
            extra[f"{way}_cases"], extra[f"{way}_note"] = len(rows), note
            print(f"{label}: CPU <= nic on {met} of {len(rows)}")
    ups = [c["coo_speedup"] for c in cases if "coo_speedup" in c]
    if ups:
        extra["coo_speedup_median"] = float(np.median(ups))
        extra["coo_speedup_min"] = float(np.min(ups))
        print(f"COO matrix converted in the core vs scipy's conversion: median "
              f"{extra['coo_speedup_median']:.2f} x, min {extra['coo_speedup_min']:.2f} x")
    return {**extra,
        "cases": len(cases),
        "load_goal_met": sum(c["goal_load"] for c in cases),
        "load_goal_met_both": sum(c["goal_load_both"] for c in cases),
        "load_both_note": "both: also <= the SGO members from SARMA's command-line seed "
                          f"({_sarma.CLI_SEED}; sarma_cli_seed)",
        "cpu_goal_met": sum(c["goal_cpu"] for c in cases),
        "cpu_goal_met_vs_nic_v": sum(c["goal_cpu_v"] for c in cases),
        "cpu_goal_met_vs_numpy_nic": sum(c["goal_cpu_numpy"] for c in cases),
        "cpu_ratio_median_nic_over_wpart": float(np.median(
            [c["cpu_ratio_nic_over_wpart"] for c in cases])) if cases else None,
        "per_grid": per_grid,
        "baseline": ("SARMA's nic in C (benchmarks/_sarma_nic.c: _sarma.nicol_idx, Nicol's "
                     "cut-index search as SARMA runs it; ctypes call) when a C compiler is "
                     "found and the loads are integers, else nic_v in C (_sarma.nicol_c), "
                     "else vectorised numpy; not SARMA's own C++"),
    }


def generated_cases(args, grids):
    cases = []
    only = set(filter(None, args.only.split(",")))
    for name, A in small_matrices() + matrices(args.full):
        if only and name not in only:
            continue
        M = _sarma.Mat(A)
        big = name.endswith("_4M")
        for P, Q in FULL_GRIDS if big else grids:
            row = {"matrix": name, "n": M.n1, "nnz": int(M.rp[-1]), "P": P, "Q": Q,
                   "sarma": nine(M, P, Q, args.repeat, args.no_sgo, big), "wpart": {},
                   "sarma_cli_seed": nine_cli_seed(M, P, Q, args.no_sgo, big)}
            c_nics(row, M, P, Q, args.repeat)
            for meth, fn in (
                ("rect_nicol", lambda: spatial.rect_nicol(A, P * Q, P=P, Q=Q)),
                ("rect_refine", lambda: spatial.rect_refine(A, P * Q, P=P, Q=Q)),
                ("rect_nicol_all", lambda: spatial.rect_nicol(A, P * Q, P=P, Q=Q,
                                                              starts="all")),
            ):
                r, t = cpu(fn, 1 if big and meth != "rect_nicol" else args.repeat)
                row["wpart"][meth] = {"max_load": float(r.max_load), "cpu": t,
                                      "start": r.stats.get("start")}
            if not big:  # (the 4 M-nonzero matrix: single calls, seconds each)
                goal_cpu(row, lambda: spatial.rect_nicol(A, P * Q, P=P, Q=Q), M, P, Q,
                         args.repeat)
            if P == Q:
                for meth in ("rect_sym_pal", "rect_sym_refine"):
                    r, t = cpu(lambda: getattr(spatial, meth)(A, P * P), args.repeat)
                    row["wpart"][meth] = {"max_load": float(r.max_load), "cpu": t}
            cases.append(verdict(row))
    return cases


#: SARMA's own CLI's names of the nine (the version built here has no nicuni); the
#: symmetric ones run where P == Q.
CLI_ALGS = ("nic", "uni", "rac", "pal", "opal", "sgo_2ds", "sgo_2dr_nic", "sgo_2dr")
CLI_SYMMETRIC = ("rac", "pal", "opal")


def cli_algs(exe):
    """The members of CLI_ALGS that SARMA's command line `exe` lists in its ``--help``
    (``Algorithms: [uni | nic | ...]``; SARMA 1.1.0's ``sarma`` lists no SGO member): only those
    run, the rest are not asked for (they exit with status 255)."""
    import re
    import subprocess

    try:
        text = subprocess.run([str(exe), "--help"], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return CLI_ALGS
    m = re.search(r"Algorithms:\s*\[([^\]]*)\]", text)
    if not m:
        return CLI_ALGS
    listed = {a.strip() for a in m.group(1).split("|")}
    return tuple(a for a in CLI_ALGS if a in listed)


def sarma_cli(exe, mtx, M, P, Q, repeat, no_sgo=False, algs=CLI_ALGS, after_nic=None):
    """{alg: {max_load, seconds}} of SARMA's own CLI (`exe`, built from its sources) on the
    general integer MatrixMarket file `mtx` (``--use-data``: the loads as values): its
    ``Max load`` (checked against the cuts it prints, evaluated on `M`) and ``Partitioning
    time (s)`` (its own timer around the algorithm, the transpose included; best of `repeat`,
    the SGO ones once). `after_nic` (if given) is called right after each nic run."""
    import subprocess

    out = {}
    for alg in algs:
        if (alg in CLI_SYMMETRIC and P != Q) or (no_sgo and alg.startswith("sgo")):
            continue
        best, load = np.inf, None
        for _ in range(1 if alg.startswith("sgo") else repeat):
            try:
                text = subprocess.run([str(exe), "--graph", str(mtx), "--alg", alg,
                                       "--use-data", "--p", str(P), "--q", str(Q)],
                                      capture_output=True, text=True, timeout=600,
                                      check=True).stdout
            except (OSError, subprocess.SubprocessError) as exc:
                print(f"  SARMA CLI {alg} {P}x{Q}: {exc}", file=sys.stderr)
                break
            lines = text.splitlines()
            got = {k.strip(): v.strip() for k, _, v in
                   (ln.partition(":") for ln in lines if ":" in ln)}
            at = lines.index("Cuts:")
            end = lines.index("<<<", at)  # (one line: the same cuts for rows and columns)
            cuts = [np.array(ln.split(), np.int64) for ln in lines[at + 1:end]]
            cuts = cuts * 2 if len(cuts) == 1 else cuts
            load = float(got["Max load"])
            assert M.lmax(*cuts) == load, (mtx, alg, P, Q)
            best = min(best, float(got["Partitioning time (s)"]))
            if alg == "nic" and after_nic is not None:
                after_nic()
        if load is not None:
            out[alg] = {"max_load": load, "seconds": best}
    return out


def mtx_cases(args, grids):
    """rect_nicol on each file (its max load read from the file, its CPU on the loads matrix
    already built, as for the generated ones) beside SARMA's nine, per weighting and grid."""
    import tempfile

    cases, calls = [], []
    only = set(filter(None, args.only.split(",")))
    tmp = tempfile.TemporaryDirectory() if args.sarma_cli else None  # (SARMA's input files)
    algs = cli_algs(args.sarma_cli) if args.sarma_cli else ()
    for name, path in mtx_files(args.mtx):
        if only and name not in only:
            continue
        loads = mtx_loads(path)
        coo = scipy.io.mmread(path)  # (what a user reads the file as: rect_nicol's input too)
        files = {}
        if args.sarma_cli:  # the loads matrices as general integer files for SARMA's CLI
            for weights, L in loads.items():
                files[weights] = Path(tmp.name) / f"{name}_{weights}.mtx"
                scipy.io.mmwrite(files[weights], sp.coo_matrix(L), field="integer",
                                 symmetry="general")
        for weights, L in loads.items():
            M = _sarma.Mat(L)
            for P, Q in grids:
                if P > M.n1 or Q > M.n2:
                    continue
                row = {"matrix": name, "file": path.name, "weights": weights, "n1": M.n1,
                       "n2": M.n2, "nnz": int(M.rp[-1]), "total": M.total, "P": P, "Q": Q,
                       "sarma": nine(M, P, Q, args.repeat, args.no_sgo), "wpart": {},
                       "sarma_cli_seed": nine_cli_seed(M, P, Q, args.no_sgo)}
                c_nics(row, M, P, Q, args.repeat)
                one = lambda L=L, P=P, Q=Q: spatial.rect_nicol(L, P * Q, P=P, Q=Q)
                if args.sarma_cli:  # (rect_nicol's cold calls, each after a nic run)
                    row["sarma_cli"] = sarma_cli(args.sarma_cli, files[weights], M, P, Q,
                                                 args.repeat, args.no_sgo, algs,
                                                 lambda row=row, one=one: cold_call(row, one))
                r = spatial.rect_nicol(path, P * Q, P=P, Q=Q, weights=weights)
                rl, t = cpu(one, args.repeat)
                assert rl.max_load == r.max_load, (name, weights, P, Q)
                row["wpart"]["rect_nicol"] = {"max_load": float(r.max_load), "cpu": t,
                                              "start": r.stats.get("start")}
                rc = spatial.rect_nicol(coo, P * Q, P=P, Q=Q, weights=weights)
                assert rc.max_load == r.max_load, (name, weights, P, Q)
                more = {
                    "cpu_path": lambda: spatial.rect_nicol(path, P * Q, P=P, Q=Q,
                                                           weights=weights),
                    "cpu_path_parse": lambda: (cache_clear(), spatial.rect_nicol(
                        path, P * Q, P=P, Q=Q, weights=weights))[1],
                    "cpu_coo": lambda: spatial.rect_nicol(coo, P * Q, P=P, Q=Q,
                                                          weights=weights),
                    "cpu_coo_scipy": lambda: via_scipy(coo, P * Q, P, Q, weights)}
                goal_cpu(row, one, M, P, Q, args.repeat, more)
                cases.append(verdict(row))
                calls.append((row, one))
    if tmp is not None:
        tmp.cleanup()
    cold_calls(calls, max(3, args.repeat))
    return cases


def cold_call(row, f):
    """One call of f (rect_nicol on the row's case), its CPU seconds kept when the least so
    far (``cpu_cold``)."""
    t = time.process_time()
    f()
    t = time.process_time() - t
    row["cpu_cold"] = min(row.get("cpu_cold", t), t)  # (to row["wpart"] in cold_calls)


def cold_calls(calls, rounds):
    """rect_nicol's CPU as single calls with cold caches (``cpu_cold``, the least of its
    calls; ``cold_timing`` says how): with SARMA's CLI, one call right after each of its nic
    runs (a process of its own, timed by its own clock with its caches as cold; the two
    measured minutes apart would see the machine's speed drift); without, `rounds` rounds
    over all the cases, each called once per round after every other one. Its goals against
    the C nic's and the CLI nic's times (``goal_cpu_cold``, ``goal_cpu_cold_cli``)."""
    for row, f in calls:
        if "cpu_cold" in row:
            row["cold_timing"] = "after each CLI nic run"
    rest = [(row, f) for row, f in calls if "cold_timing" not in row]
    for _ in range(rounds):
        for row, f in rest:
            cold_call(row, f)
    for row, _ in rest:
        row["cold_timing"] = "single calls in turn over the cases"
    for row, _ in calls:
        row["wpart"]["rect_nicol"]["cpu_cold"] = row.pop("cpu_cold")
        w, cli = row["wpart"]["rect_nicol"], row.get("sarma_cli") or {}
        row["goal_cpu_cold"] = w["cpu_cold"] <= row["nic_c_cpu"]
        if "nic" in cli:
            row["goal_cpu_cold_cli"] = w["cpu_cold"] <= cli["nic"]["seconds"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", default=None, help="the JSON (default: results/bench_spatial_sarma"
                    ".json, with --mtx results/bench_spatial_mtx.json)")
    ap.add_argument("--only", default="", help="comma-separated matrix names")
    ap.add_argument("--no-sgo", action="store_true", help="skip the (slow) SGO algorithms")
    ap.add_argument("--mtx", nargs="+", metavar="DIR",
                    help="MatrixMarket files or folders of them instead of the generated "
                    "matrices (weightings stored and count)")
    ap.add_argument("--sarma-cli", default=None, metavar="EXE",
                    help="with --mtx: SARMA's own CLI (built from its sources: PEERS), run "
                    "beside the re-implementations; its max loads and timer in the JSON "
                    "(sarma_cli) and goals against them (goal_*_cli)")
    ap.add_argument("--grids", default=None, help="comma-separated PxQ grids (default "
                    + ",".join(f"{P}x{Q}" for P, Q in GRIDS) + "; with --mtx also 64x64)")
    args = ap.parse_args(argv)
    grids = parse_grids(args.grids) if args.grids else MTX_GRIDS if args.mtx else GRIDS
    if args.mtx:
        cases = mtx_cases(args, grids)
        out = args.out or ROOT / "benchmarks/results/bench_spatial_mtx.json"
        summary = totals(cases)
    else:
        cases = generated_cases(args, grids)
        out = args.out or ROOT / "benchmarks/results/bench_spatial_sarma.json"
        summary = totals(cases)
        summary["refine_goal_met"] = sum(c["wpart"]["rect_refine"]["max_load"] <= min(
            c["sarma"][a]["max_load"] for a in ("sgo_2dr", "sgo_2dr_nic")) for c in cases
            if "sgo_2dr" in c["sarma"])
        summary["refine_goal_met_both"] = sum(c["wpart"]["rect_refine"]["max_load"] <= min(
            s[a]["max_load"] for s in (c["sarma"], c["sarma_cli_seed"])
            for a in ("sgo_2dr", "sgo_2dr_nic")) for c in cases if "sgo_2dr" in c["sarma"])
        summary["refine_cases"] = sum("sgo_2dr" in c["sarma"] for c in cases)
    print(json.dumps({k: v for k, v in summary.items() if k != "per_grid"}))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "cases": cases}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
