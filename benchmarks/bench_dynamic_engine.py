"""Cost of wpart.dynamic's evaluations and simulated events (issue: constant-cost evaluations).

Three measurements, each beside the figure before the incremental fit:

1. **Model fit per PU vs samples** (10, 100, 1,000, 10,000 blocks), and a **whole PLB-HAC
   evaluation** (4 PUs, driven through the protocol) at as many samples per PU: the batch fit over every
   sample (what each PLB-HAC evaluation did for every PU before) and the incremental fit from
   the 9 x 9 triangular factor (what it does now; a PU whose samples did not change is not
   refitted at all). Same samples, same model (checked: the largest relative difference of
   the packed models is reported). CPU seconds of the fitting thread, best of a few repeats.
2. **Simulated events per CPU-second** for PLB-HAC, HDSS and Greedy(1024) on ``paper5`` and
   ``hetero3`` (simulated stand-in platforms): heap events over the process CPU time of
   ``simulate`` (Python wrapper included), at the platform's own W and at W = 2^24, best of
   three runs (CPU time inflates on a loaded machine: the load averages before and after are
   recorded).
3. **PLB-HAC on paper5 at W = 2^30**: wall and CPU seconds (full mode only; goal < 60 s).

"Before" figures were measured on this machine at commit 6eed706 by the same method (events at
the platforms' own W) or come from the issue's audit (evaluations 3.4 -> 7.0 ms as samples
accumulate; a 2^30 run did not finish in 15 minutes). Timings are reported, never asserted.

``python benchmarks/bench_dynamic_engine.py [--quick] [--json PATH]`` prints the tables and
writes ``benchmarks/results/bench_dynamic_engine.json`` (or PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import ROOT, load_c, use_wpart  # noqa: E402

use_wpart()

import numpy as np  # noqa: E402

import wpart  # noqa: E402
from wpart import _core  # noqa: E402
from wpart.dynamic import simulate  # noqa: E402

# measured at 6eed706 (before the incremental fit) on this machine, platform's own W
BEFORE_EVENTS = {
    ("plbhac", "paper5"): 14_100, ("plbhac", "hetero3"): 4_700,
    ("hdss", "paper5"): 165_000, ("hdss", "hetero3"): 36_000,
    ("greedy", "paper5"): 1_110_000, ("greedy", "hetero3"): 924_000,
}  # fmt: skip
BEFORE_NOTE = ("issue audit: one evaluation 3.4 -> 7.0 ms as samples accumulate; PLB-HAC "
               "2.7-5.6 k events/CPU-s; W = 2^30 not finished after 15 min")
GOAL_EVENTS = 200_000


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=False).stdout.strip()
    except OSError:
        return "?"


_FIT_TIMEIT: list = []


def _fit_timeit_c() -> Any:
    """``dyn_fit_timeit`` of _fit_timeit.c (compiled once per process, _common.load_c) with
    the core's function addresses, or None when that fails."""
    if _FIT_TIMEIT:
        return _FIT_TIMEIT[0]
    import ctypes

    try:
        here = Path(__file__).resolve().parent
        lib = load_c(here / "_fit_timeit.c", "-I", str(ROOT / "csrc" / "include"),
                     "-I", str(ROOT / "csrc" / "dynamic"))
        core = ctypes.CDLL(_core.__file__)
        addr = (ctypes.c_void_p * 7)(*[ctypes.cast(getattr(core, name), ctypes.c_void_p) for name in (
            "wpart_dynamic_plbhac_cfg_paper", "wpart_dynamic_model_fit",
            "wpart_dynamic_fit_work_size", "wpart_i_fitinc_init", "wpart_i_fitinc_fit_all",
            "wpart_i_fitinc_fit", "wpart_i_fitinc_free")])
        f = lib.dyn_fit_timeit
        f.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int64] + [ctypes.c_void_p] * 3 + [
            ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
        f.restype = ctypes.c_int
        fn = (f, addr)
    except (OSError, AttributeError, subprocess.CalledProcessError):
        fn = None
    _FIT_TIMEIT.append(fn)
    return fn


def fit_timeit(x: np.ndarray, tc: np.ndarray, tx: np.ndarray, reps: int) -> tuple[float, float]:
    """(CPU seconds per incremental fit, per batch fit): `reps` calls each timed in C
    (_fit_timeit.c), or without a C compiler the batch fit's binding timed from Python
    (process_time) and the incremental fit NaN (it has no binding of its own)."""
    h = _fit_timeit_c()
    if h is None:
        c = time.process_time()
        for _ in range(reps):
            _core.dynamic_fit_incremental(x, tc, tx, 1, {})
        return float("nan"), (time.process_time() - c) / reps
    f, addr = h
    out = np.empty(3)
    st = f(addr, len(x), x.ctypes.data, tc.ctypes.data, tx.ctypes.data, 1, reps,
           out.ctypes.data)
    if st != 0:
        raise RuntimeError(f"dyn_fit_timeit: status {st}")
    return float(out[0]), float(out[1])


def eval_cost(quick: bool) -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    rows = []
    for n in (10, 100, 1000) if quick else (10, 100, 1000, 10_000):
        x = np.ascontiguousarray(rng.integers(1024, 2**20, n), dtype=np.int64)
        tc = (3e-6 * x + 0.02 + 1e-13 * x.astype(float) ** 2) * (1 + 0.03 * rng.standard_normal(n))
        tx = 1e-8 * x + 1e-3
        reps = max(2, min(200, 20_000 // n)) if not quick else max(2, min(50, 2000 // n))
        best_i = best_b = np.inf
        diff = 0.0
        for _ in range(3):
            inc, bat, rebuilds = _core.dynamic_fit_incremental(x, tc, tx, 1, {})
            ti, tb = fit_timeit(x, tc, tx, reps)
            best_i, best_b = min(best_i, ti), min(best_b, tb)
            diff = float(np.max(np.abs(inc - bat) / np.maximum(1.0, np.abs(bat))))
        rows.append({"samples": n, "before_us": best_b * 1e6, "after_us": best_i * 1e6,
                     "speedup": best_b / best_i, "max_rel_diff": diff, "rebuilds": int(rebuilds)})
    return rows


def eval_whole(quick: bool, fit_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One whole PLB-HAC evaluation (eval_run: fits, step volume, solve, rounding) of a
    4-PU balancer driven through the protocol with synthetic block times, at 10, 100, 1,000
    (and 10,000) samples per PU: median CPU seconds of the evaluations issued near each mark.
    "Before" is a lower bound of the former evaluation: 4 batch fits over every sample (it
    refitted every PU each time), beside the issue's 3.4 -> 7.0 ms."""
    from collections import deque

    from wpart.dynamic import PLBHAC

    m = 4
    marks = (10, 100, 1000) if quick else (10, 100, 1000, 10_000)
    b = PLBHAC(m, 10**15)
    rng = np.random.default_rng(0)
    q = deque(b.start(0.0))
    ns = np.zeros(m, dtype=np.int64)
    now, got = 0.0, {k: [] for k in marks}
    while q and ns.min() < marks[-1] + 5:
        a = q.popleft()
        if a.kind == "eval":
            c = time.process_time()
            b.eval_run(a.token)
            dt = time.process_time() - c
            for k in marks:
                if k <= ns.min() < k + 6:
                    got[k].append(dt)
            q.extend(b.eval_done(a.token, now))
            continue
        now += 1e-3
        ns[a.pu] += 1
        t = (1e-6 * (1 + a.pu) * a.size + 0.01) * (1 + 0.02 * rng.standard_normal())
        q.extend(b.on_complete(a.pu, a.block_id, 0.0, t, now))
    fit = {r["samples"]: r for r in fit_rows}
    return [{"samples_per_pu": k, "pus": m, "after_ms": 1e3 * float(np.median(got[k])) if got[k] else None,
             "before_lower_bound_ms": 1e-3 * m * fit[k]["before_us"] if k in fit else None}
            for k in marks]


def _events(pl: str, bal: str, n: int | None, repeat: int) -> dict[str, Any]:
    best = np.inf
    for _ in range(repeat):
        c = time.process_time()
        r = simulate(pl, bal, n=n, trace=False)
        best = min(best, time.process_time() - c)
    ev = int(r.stats["n_events"])
    return {"events": ev, "evals": int(r.n_evals), "cpu_s": best, "events_per_cpu_s": ev / best}


def events(quick: bool) -> list[dict[str, Any]]:
    rows = []
    for bal in ("plbhac", "hdss", "greedy"):
        for pl in ("paper5", "hetero3"):
            own = _events(pl, bal, None, 3)
            big = _events(pl, bal, 2**22 if quick else 2**24, 1 if quick else 3)
            rows.append({"balancer": bal, "platform": pl,
                         "before_events_per_cpu_s": BEFORE_EVENTS[(bal, pl)],
                         "after_events_per_cpu_s": own["events_per_cpu_s"],
                         "after_events_per_cpu_s_large_W": big["events_per_cpu_s"],
                         "large_W": 2**22 if quick else 2**24, "own_W": own, "big_W": big})
    return rows


def big_run(quick: bool) -> dict[str, Any]:
    W = 2**24 if quick else 2**30
    w, c = time.perf_counter(), time.process_time()
    r = simulate("paper5", "plbhac", n=W, trace=False)
    return {"W": W, "wall_s": time.perf_counter() - w, "cpu_s": time.process_time() - c,
            "events": int(r.stats["n_events"]), "evals": int(r.n_evals), "makespan": float(r.makespan),
            "goal_s": 60.0, "before": "not finished after 15 min (issue audit)"}


def run(quick: bool = False) -> dict[str, Any]:
    return {"bench": "bench_dynamic_engine", "quick": quick, "commit": _commit(),
            "wpart": getattr(wpart, "__version__", "?"), "before_note": BEFORE_NOTE,
            "eval_cost": (fits := eval_cost(quick)), "eval_whole": eval_whole(quick, fits),
            "load_before": os.getloadavg(), "events_per_cpu_s": events(quick), "big_run": big_run(quick),
            "load_after": os.getloadavg(), "goal_events_per_cpu_s": GOAL_EVENTS}


def table(res: dict[str, Any]) -> str:
    out = ["model fit per PU (us, CPU)      samples   before(batch)   after(incremental)   speedup   max rel diff"]
    for r in res["eval_cost"]:
        out.append(f"{'':32}{r['samples']:>7}   {r['before_us']:>13.1f}   {r['after_us']:>18.1f}   "
                   f"{r['speedup']:>7.1f}x   {r['max_rel_diff']:.1e}")
    out.append("")
    out.append("PLB-HAC evaluation, 4 PUs (ms, CPU)  samples/PU   before (4 batch fits)*     after (whole eval_run)")
    for r in res["eval_whole"]:
        bf = "-" if r["before_lower_bound_ms"] is None else f"{r['before_lower_bound_ms']:.3f}"
        af = "-" if r["after_ms"] is None else f"{r['after_ms']:.3f}"
        out.append(f"{'':37}{r['samples_per_pu']:>7}   {bf:>24}   {af:>22}")
    out.append("  * every sample a distinct size (the batch fit's worst case); " + BEFORE_NOTE)
    out.append("")
    out.append(f"events per CPU-second           before (own W)   after (own W)   after (W={res['events_per_cpu_s'][0]['large_W']})"
               f"   goal PLB-HAC {GOAL_EVENTS:,}")
    for r in res["events_per_cpu_s"]:
        out.append(f"{r['balancer'] + ' / ' + r['platform']:32}{r['before_events_per_cpu_s']:>14,.0f}   "
                   f"{r['after_events_per_cpu_s']:>13,.0f}   {r['after_events_per_cpu_s_large_W']:>12,.0f}")
    la, lb = res.get("load_before"), res.get("load_after")
    if la and lb:
        out.append(f"(load average before {la[0]:.1f}, after {lb[0]:.1f} on {os.cpu_count()} CPUs)")
    b = res["big_run"]
    out.append("")
    out.append(f"PLB-HAC paper5 W = {b['W']}: wall {b['wall_s']:.1f} s, CPU {b['cpu_s']:.1f} s, "
               f"{b['events']} events, {b['evals']} evaluations (goal < 60 s at 2^30; before: {b['before']})")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (seconds)")
    ap.add_argument("--json", default=None, help="output file (default benchmarks/results/bench_dynamic_engine.json)")
    args = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    res = run(args.quick)
    print(table(res))
    out = Path(args.json) if args.json else ROOT / "benchmarks" / "results" / "bench_dynamic_engine.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
