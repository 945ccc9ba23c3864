"""Speed of the wpart.dynamic event engine (target >= 1 M events/s).

Greedy with small chunks on the stand-in platforms (``Platform.preset``; simulated, stand-in
platforms): ``paper5`` (11 PUs, ``mm`` persona: every remote block has a transfer, so two
events per block), ``hetero3`` (no transfers: one event per block) and ``adapt2`` case b (a
slowdown reschedules a running block). Events/s counts every heap event the engine pops
(stale ones included) over the C run's wall time (``SimResult.stats["wall_seconds"]``, GIL released);
the end-to-end figure adds the Python wrapper (platform packing, the trace's hand-over). The
"trace cost" lines divide the end-to-end time of a run that keeps the trace by the same run
without it (the baseline, in this process). One warm-up run, then the best of ``repeat``.
Timings are reported, never asserted.

``run(quick) -> dict`` is the entry point for a combined dynamic benchmark; ``python
benchmarks/bench_dynamic_sim.py [--quick]`` prints a table and writes
``benchmarks/results/bench_dynamic_sim.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import wpart  # noqa: E402
from wpart.dynamic import Greedy, Platform, simulate  # noqa: E402

TARGET_EVENTS_PER_S = 1e6


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
    except Exception:  # noqa: BLE001
        return "unknown"


def _case(name: str, pl: Platform, W: int, chunk: int, trace: bool, repeat: int) -> dict[str, Any]:
    best_c, best_py = float("inf"), float("inf")
    r = simulate(pl, Greedy(pl.m, W, chunk=chunk), seed=0, trace=trace)  # warm-up (allocator)
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = simulate(pl, Greedy(pl.m, W, chunk=chunk), seed=0, trace=trace)
        best_py = min(best_py, time.perf_counter() - t0)
        best_c = min(best_c, r.stats["wall_seconds"])
    return {
        "case": name, "m": pl.m, "W": W, "chunk": chunk, "trace": trace,
        "blocks": r.n_blocks, "events": r.stats["n_events"], "stale": r.stats["n_stale"],
        "engine_s": best_c, "total_s": best_py,
        "events_per_s": r.stats["n_events"] / best_c, "events_per_s_end_to_end": r.stats["n_events"] / best_py,
        "blocks_per_s": r.n_blocks / best_c, "makespan": r.makespan,
    }  # fmt: skip


def run(quick: bool = False) -> dict[str, Any]:
    """Run the grid; returns ``{"rows": [...], "text": table, "ok": bool, "target": 1e6}``."""
    repeat = 2 if quick else 5
    p5 = Platform.preset("paper5")
    h3 = Platform.preset("hetero3")
    a2 = Platform.preset("adapt2", case="b")
    grid = [("paper5", p5, 2**20, 64, False), ("paper5", p5, 2**20, 16, False), ("paper5", p5, 2**20, 16, True),
            ("hetero3", h3, 2**20, 16, False), ("adapt2-b", a2, 1_500_000, 16, False)]  # fmt: skip
    if not quick:
        grid += [("paper5", p5, 2**22, 16, False), ("paper5", p5, 2**22, 16, True), ("hetero3", h3, 2**22, 4, False)]
    rows = [_case(*g, repeat=repeat) for g in grid]
    hdr = f"{'case':10} {'W':>8} {'chunk':>5} {'trace':>5} {'events':>9} {'engine s':>9} {'Mev/s':>7} {'Mev/s e2e':>9}"
    lines = ["Event engine speed (Greedy; simulated, stand-in platforms)", hdr, "-" * len(hdr)]
    for r in rows:
        lines.append(f"{r['case']:10} {r['W']:>8} {r['chunk']:>5} {str(r['trace']):>5} {r['events']:>9} "
                     f"{r['engine_s']:>9.4f} {r['events_per_s'] / 1e6:>7.2f} {r['events_per_s_end_to_end'] / 1e6:>9.2f}")  # fmt: skip
    # the trace's cost, end to end: the same run with and without it, in this process (the
    # trace is the core's records viewed, no copy: see wpart/dynamic/_trace.py)
    plain = {(r["case"], r["W"], r["chunk"]): r for r in rows if not r["trace"]}
    trace_cost = []
    for r in rows:
        b = plain.get((r["case"], r["W"], r["chunk"]))
        if r["trace"] and b is not None:
            ratio = r["total_s"] / b["total_s"]
            trace_cost.append({"case": r["case"], "W": r["W"], "chunk": r["chunk"],
                               "blocks": r["blocks"], "with_over_without": ratio})
            lines.append(f"trace cost {r['case']} W={r['W']} ({r['blocks']} blocks): "
                         f"{ratio:.2f} x the run without it, end to end")
    worst = min(r["events_per_s"] for r in rows)
    ok = worst >= TARGET_EVENTS_PER_S
    lines.append(f"slowest case: {worst / 1e6:.2f} M events/s (target >= 1 M): {'PASS' if ok else 'BELOW TARGET'}")
    return {"rows": rows, "text": "\n".join(lines), "ok": ok, "target": TARGET_EVENTS_PER_S,
            "min_events_per_s": worst, "trace_cost": trace_cost}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (a few seconds)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"), help="folder for the JSON")
    args = ap.parse_args(argv)
    res = {"platform": platform.platform(), "python": sys.version.split()[0], "wpart": wpart.__version__,
           "commit": _commit(), "quick": args.quick, "engine": run(args.quick)}  # fmt: skip
    print(res["engine"]["text"], flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(Path(args.out) / "bench_dynamic_sim.json", "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
