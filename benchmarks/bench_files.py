"""Reading large and hostile input files: profile files and LBDatafiles.

(a) A 2M-line FuPerMod ``size time`` profile file through :meth:`wpart.hetero.Profile.from_file`
    (target: under 2 s; NumPy's C parser, no per-line Python).
(b) A 2M-row long-format CSV through :meth:`wpart.hetero.ProfileSet.from_csv` (4 processors).
(c) A brotli "bomb" LBDatafile (a few kB expanding far beyond ``max_bytes``) through
    :func:`wpart.tasks.read_lbdatafile`: refused as soon as the decompressed bytes pass the
    cap, in a fraction of a second and without the expanded size in memory.

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
import wpart.tasks as wt  # noqa: E402

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
    for k, v in out.items():
        print(f"{k:>24}: {v:.3f}" if isinstance(v, float) else f"{k:>24}: {v}")
    ok = out["profile_text_s"] < TARGET_S or args.quick
    print(f"2M-line profile under {TARGET_S:g} s: {'yes' if ok else 'NO'}")
    res = ROOT / "benchmarks" / "results"
    res.mkdir(exist_ok=True)
    (res / "bench_files.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
