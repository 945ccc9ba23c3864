"""Reading large and hostile input files: profile files and LBDatafiles.

(a) A 2M-line FuPerMod ``size time`` profile file through :meth:`wpart.hetero.Profile.from_file`
    (target: under 2 s; NumPy's C parser, no per-line Python).
(b) A 2M-row long-format CSV through :meth:`wpart.hetero.ProfileSet.from_csv` (4 processors).
(c) A brotli "bomb" LBDatafile (a few kB expanding far beyond ``max_bytes``) through
    :func:`wpart.tasks.read_lbdatafile`: refused as soon as the decompressed bytes pass the
    cap, in a fraction of a second and without the expanded size in memory.
(d) MatrixMarket coordinate files of 10^3 - 10^6 entries (real general, pattern symmetric)
    through :func:`wpart.spatial.read_matrix` (the core's one-pass reader) beside scipy's reader
    and COO-to-CSR conversion (the general path) in the same process, and ``rect_nicol`` on the
    path (``weights="count"``, 4 x 4) beside reading with scipy then calling it on the matrix:
    the ratios, and the time per entry at each size (the reader is O(entries + n)).

``python benchmarks/bench_files.py --quick`` runs at 200k lines. Timings are never asserted by
the test suite; results go to ``benchmarks/results/bench_files.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import wpart.hetero as wh  # noqa: E402
import wpart.spatial as ws  # noqa: E402
import wpart.tasks as wt  # noqa: E402
from wpart.spatial import _sparse  # noqa: E402

TARGET_S = 2.0


def _best(f, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def _write_profile(path: Path, n: int) -> None:
    rng = np.random.default_rng(0)
    t = np.cumsum(rng.random(n))
    with open(path, "w") as fh:
        fh.write("# size time\n")
        np.savetxt(fh, np.column_stack((np.arange(1, n + 1), t)), fmt=("%d", "%.17g"))


def _write_csv(path: Path, n: int, m: int = 4) -> None:
    rng = np.random.default_rng(1)
    k = n // m
    with open(path, "w") as fh:
        fh.write("processor,size,time,energy\n")
        for p in range(m):
            a = np.column_stack((np.arange(1, k + 1), rng.random(k), rng.random(k)))
            np.savetxt(fh, a, fmt=(f"P{p},%d", "%.17g", "%.17g"), delimiter=",")


def _write_bomb(path: Path, expanded: int) -> int:
    import brotli

    c = brotli.Compressor(quality=1)
    parts = [c.process(b'{"metadata": {"rank": 0}, "pad": "')]
    chunk = b"0" * (1 << 20)
    for _ in range(expanded >> 20):
        parts.append(c.process(chunk))
    parts += [c.process(b'"}'), c.finish()]
    data = b"".join(parts)
    path.write_bytes(data)
    return len(data)


def _write_mtx(path: Path, n: int, nnz: int, field: str, sym: str) -> None:
    rng = np.random.default_rng(nnz)
    i = rng.integers(0, n, nnz)
    j = rng.integers(0, n, nnz)
    if sym == "symmetric":
        i, j = np.maximum(i, j), np.minimum(i, j)
    ij = np.unique(np.column_stack((i, j)), axis=0)  # (a cell once)
    rng.shuffle(ij)
    cols = [ij[:, 0] + 1, ij[:, 1] + 1]
    fmt = ["%d", "%d"]
    if field == "real":
        cols.append(rng.random(len(ij)) * 10)
        fmt.append("%.17g")
    with open(path, "w") as fh:
        fh.write(f"%%MatrixMarket matrix coordinate {field} {sym}\n% bench_files\n"
                 f"{n} {n} {len(ij)}\n")
        np.savetxt(fh, np.column_stack(cols), fmt=fmt)


def _scipy_read(path: Path, pattern: bool):
    """The general path: scipy's reader, then its canonical CSR (the baseline)."""
    import scipy.io

    return _sparse._canonical_csr(scipy.io.mmread(path), pattern)


def mtx_rows(d: Path, sizes: Sequence[int]) -> list[dict]:
    rows = []
    for field, sym in (("real", "general"), ("pattern", "symmetric")):
        for nnz in sizes:
            n = max(64, int(nnz ** 0.5) * 4)
            p = d / f"m_{field}_{nnz}.mtx"
            _write_mtx(p, n, nnz, field, sym)
            A = ws.read_matrix(p)
            B = _scipy_read(p, field == "pattern")
            assert A.format == "csr" and np.array_equal(A.indices, B.indices) and \
                np.array_equal(A.data, B.data), (field, nnz)
            rep = 7 if nnz <= 10**5 else 3
            t_fast = _best(lambda: ws.read_matrix(p), rep)
            t_scipy = _best(lambda: _scipy_read(p, field == "pattern"), rep)
            t_call = _best(lambda: ws.rect_nicol(p, 16, P=4, Q=4, weights="count"), rep)
            t_base = _best(lambda: ws.rect_nicol(_scipy_read(p, field == "pattern"), 16, P=4,
                                                 Q=4, weights="count"), rep)
            rows.append({"field": field, "symmetry": sym, "entries": int(A.nnz), "n": n,
                         "read_s": t_fast, "scipy_read_s": t_scipy,
                         "read_speedup": t_scipy / t_fast, "ns_per_entry": t_fast / A.nnz * 1e9,
                         "rect_nicol_path_s": t_call, "scipy_then_rect_nicol_s": t_base,
                         "path_call_speedup": t_base / t_call})
    print(f"{'file':>22} {'entries':>9} {'read ms':>9} {'scipy ms':>9} {'x':>6} {'ns/entry':>9}"
          f" {'path call ms':>13} {'scipy+call ms':>14} {'x':>6}")
    for r in rows:
        print(f"{r['field'] + ' ' + r['symmetry']:>22} {r['entries']:>9} {r['read_s'] * 1e3:>9.3f}"
              f" {r['scipy_read_s'] * 1e3:>9.3f} {r['read_speedup']:>6.1f} "
              f"{r['ns_per_entry']:>9.1f} {r['rect_nicol_path_s'] * 1e3:>13.3f} "
              f"{r['scipy_then_rect_nicol_s'] * 1e3:>14.3f} {r['path_call_speedup']:>6.1f}")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="200k lines instead of 2M")
    args = ap.parse_args(argv)
    n = 200_000 if args.quick else 2_000_000
    out: dict = {"lines": n, "python": sys.version.split()[0], "machine": platform.machine(),
                 "target_s": TARGET_S}
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        prof, csvf, bomb = d / "big.txt", d / "big.csv", d / "bomb.0.json"
        _write_profile(prof, n)
        _write_csv(csvf, n)
        out["profile_text_s"] = _best(lambda: wh.Profile.from_file(prof))
        out["profile_csv_s"] = _best(lambda: wh.ProfileSet.from_csv(csvf))
        size = _write_bomb(bomb, 256 << 20)

        def read_bomb() -> None:
            try:
                wt.read_lbdatafile(bomb, max_bytes=16 << 20)
            except wt.LBDatafileError:
                return
            raise AssertionError("the bomb was read")

        out["bomb_compressed_bytes"] = size
        out["bomb_refused_s"] = _best(read_bomb)
        mtx = mtx_rows(d, (10**3, 10**4, 10**5) if args.quick else (10**3, 10**4, 10**5, 10**6))
    for k, v in out.items():
        print(f"{k:>24}: {v:.3f}" if isinstance(v, float) else f"{k:>24}: {v}")
    out["mtx"] = mtx
    ok = out["profile_text_s"] < TARGET_S or args.quick
    print(f"2M-line profile under {TARGET_S:g} s: {'yes' if ok else 'NO'}")
    res = ROOT / "benchmarks" / "results"
    res.mkdir(exist_ok=True)
    (res / "bench_files.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
