"""Every family's compare() on a few instances each: the data of the docs' "which method when"
tables.

For each instance the table of ``compare()`` (method, objective, gap to the best bound,
seconds, status) is printed and kept; ``benchmarks/results/bench_compare.json`` holds them
all, and ``docs/_gen.py`` turns them into the tables of the family pages. Times are wall
seconds of one call on the machine named in the JSON (a shared machine is noisy: read them
as orders of magnitude).

    python benchmarks/bench_compare.py            # about a minute on 2 cores
    python benchmarks/bench_compare.py --quick    # small sizes, a few seconds
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from _common import use_wpart  # installed wpart first, else this checkout

use_wpart()

import wpart  # noqa: E402
from wpart import hetero, spatial, tasks  # noqa: E402
from wpart.spatial import instances  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "bench_compare.json"


def cases(quick: bool):
    n2 = 128 if quick else 512
    rng = np.random.default_rng(0)
    yield "1d", "uniform 10^5, m=64", lambda tl: wpart.compare_1d(
        rng.integers(1, 1000, 10_000 if quick else 100_000), 64, time_limit=tl)
    yield "1d", "heavy-tailed 10^5, m=64", lambda tl: wpart.compare_1d(
        (np.random.default_rng(1).pareto(1.5, 10_000 if quick else 100_000) * 100).astype(
            np.int64) + 1, 64, time_limit=tl)
    for kind in ("uniform", "diagonal", "peak", "multipeak"):
        A = getattr(instances, kind)(n2, seed=0)
        yield "spatial", f"{kind} {n2}^2, m=64", (
            lambda tl, A=A: spatial.compare(A, 64, time_limit=tl))
    A = instances.pic_like(n2 + 2, seed=0)
    yield "spatial", f"pic_like {n2 + 2}^2, m=100", lambda tl: spatial.compare(A, 100,
                                                                               time_limit=tl)
    yield "tasks", "paper toy (3 tasks, 2 ranks)", lambda tl: tasks.compare(
        tasks.paper_toy(), time_limit=tl)
    yield "tasks", "gemma_like m=8, 400 tasks", lambda tl: tasks.compare(
        tasks.gemma_like(m=8, n_tasks=400, n_blocks=48, seed=0), time_limit=tl)
    toy = tasks.read_lbdatafile(tasks.datasets.lbaf_path(
        "challenging_toy_fewer_tasks/toy"))
    yield "tasks", "LBAF challenging toy (274 tasks, 16 ranks)", lambda tl: tasks.compare(
        toy, time_limit=tl)
    for preset in ("dgemm-like", "fft-like"):
        ps = hetero.synthetic(preset, seed=0)
        n = ps.granularity * (40 if quick else 400)
        yield "hetero", f"{preset}, {ps.m} processors, n={n}", (
            lambda tl, ps=ps, n=n: hetero.compare(ps, n, time_limit=tl))
    import wpart.dynamic as D

    for preset in ("linear4", "hetero3"):
        yield "dynamic", f"{preset}, 3 seeds", (
            lambda tl, p=preset: D.compare(p, seeds=range(3), time_limit=tl, progress=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    runs = []
    t0 = time.perf_counter()
    for family, name, fn in cases(a.quick):
        c = fn(a.time_limit)
        print(f"== {name}")
        print(c)
        runs.append({"family": family, "instance": name, **c.to_dict()})
    doc = {"quick": a.quick, "time_limit": a.time_limit, "wpart": wpart.__version__,
           "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
           "seconds": time.perf_counter() - t0, "runs": runs}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {a.out} ({doc['seconds']:.1f} s)")


if __name__ == "__main__":
    main()
