"""Where the default ``rect_nicol`` spends its CPU, stage by stage, beside SARMA's nic -- and how
far any stop rule could take the CPU goal of #27.

For each case of bench_spatial_fresh's sets (default: fresh and holdout, the 334 cases of the
goal), this measures in one process

* the CPU per call of the default ``wpart.spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=w)``
  and of SARMA's nic in C (``_sarma.nicol_idx``, the goal's baseline), interleaved, best of
  ``--k`` loops, as bench_spatial_fresh measures them;
* the default's stage clock (``stats["stage_seconds"]``: setup, starts, random_starts, nic,
  cut_moves, kick, plain, finish; each stage's median over ``--calls`` calls), and the
  max load of the grid after each stage (from ``stats``: the best start, the random starts,
  the nic members, the cut moves, the kick, the result);
* the best max load of SARMA's nine algorithms (benchmarks/data/spatial_fresh_ref.json).

From those: the time at each stage's end (the call's CPU less the core's stage time, i.e. the
Python and binding work, plus the stages up to it), and the **oracle stop**: the earliest stage
whose grid is already at or below the best of nine and whose end comes within SARMA nic's CPU.
A case the oracle stop cannot make "load and CPU ok" cannot be made so by any rule that only
stops the default's stages earlier (a gate, a budget, a better stop rule): it needs cheaper
stages. Beside it, the **budget stop**: the stages after the starts run only where they end
within nic's CPU (known exactly, which a real budget would have to estimate), the first that
would not ends the call; its max loads show what such a budget costs in load. The script
prints per-case rows for the cases that miss the CPU goal, the counts (now; with the oracle
stop; with the budget stop; cases whose setup and starts alone exceed nic's CPU) and the
median share of each stage per grid, and writes JSON (``--out``; a .txt with the printed
table).

Usage: python benchmarks/bench_spatial_stages.py [--set both|fresh|holdout|offdiag|all]
       [--k 3] [--calls 7] [--only name,name] [--grids 4x4,8x8] [--out PATH]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from _common import ROOT, interleaved_cpu, use_wpart

use_wpart()
import wpart  # noqa: E402
from wpart import spatial  # noqa: E402
from wpart.spatial._nicol import STAGES  # noqa: E402

import _sarma  # noqa: E402
from bench_spatial_fresh import (  # noqa: E402
    begin, case_inputs, checkout, loop_length, write_results)

def stage_values(stats: dict, final: float) -> dict:
    """The max load of the grid the default holds after each stage that ran (stats of one
    call): the best start's (joint-bound and piece starts included), the random starts' (never
    above the starts'), after the nic members (the grid the cut moves start from), the cut
    moves', the kick's (the plain half-sweeps after it are in the result's) and the result."""
    ss, st = stats["stage_seconds"], stats["starts"]
    race = min((v["max_load"] for k, v in st.items()
                if k != "random_starts" and v.get("max_load") is not None), default=final)
    out = {"starts": race}
    if "random_starts" in ss:
        rnd = st.get("random_starts", {}).get("max_load")
        out["random_starts"] = min(race, rnd) if rnd is not None else race
    pol = stats.get("polish") or {}
    if "nic" in ss and pol.get("max_load") is not None:
        out["nic"] = pol["max_load"]
    if "cut_moves" in ss and pol.get("cut_move_max_load") is not None:
        out["cut_moves"] = pol["cut_move_max_load"]
    if "kick" in ss and pol.get("kick_max_load") is not None:
        out["kick"] = pol["kick_max_load"]
    out["finish"] = final
    return out


def _scale(row: dict) -> float:
    """The factor of a row's stage clock on the call's CPU: where the clock sums to more than
    the call's CPU, its stages scaled down to it (so the last one ends at the call's CPU)."""
    total = sum(row["stage_seconds"].values())
    return min(1.0, row["cpu"] / total) if total > 0 else 1.0


def oracle(row: dict) -> str | None:
    """The earliest stage whose grid is <= the best of nine and that ends within nic's CPU
    (the call's CPU: the Python and binding work first, then the stages, scaled by
    :func:`_scale`)."""
    ss = row["stage_seconds"]
    scale = _scale(row)
    t = row["overhead"]
    for name in STAGES:
        if name not in ss:
            continue
        t += ss[name] * scale
        v = row["stage_max_load"].get(name)
        if v is not None and v <= row["best9"] and t <= row["nic_cpu"]:
            return name
    return None


def budget(row: dict) -> tuple:
    """The max load and CPU of the call had it stopped by time, knowing SARMA nic's CPU: every
    stage after the starts runs only where it ends within nic's CPU (the first that would not
    ends the call; the rest, the finish, still runs). Times as in :func:`oracle`."""
    ss = row["stage_seconds"]
    scale = _scale(row)
    t = row["overhead"]
    value = row["stage_max_load"].get("starts", row["max_load"])
    for name in STAGES[:-1]:
        if name not in ss:
            continue
        if name not in ("setup", "starts") and t + ss[name] * scale > row["nic_cpu"]:
            break
        t += ss[name] * scale
        value = row["stage_max_load"].get(name, value)
    return value, t + ss.get("finish", 0.0) * scale


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="both",
                    choices=("fresh", "holdout", "offdiag", "both", "all"))
    ap.add_argument("--k", type=int, default=3, help="alternating timing repeats (best of k)")
    ap.add_argument("--calls", type=int, default=7, help="calls read for the stage clock")
    ap.add_argument("--target", type=float, default=0.01,
                    help="seconds of C nic per timed loop (sets the loop length)")
    ap.add_argument("--only", default="", help="comma-separated matrix names")
    ap.add_argument("--grids", default="", help="comma-separated grids PxQ")
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/bench_spatial_stages.json"))
    args = ap.parse_args(argv)
    args.quick = False
    chosen, lines, say = begin(args, f", stage clock: median of {args.calls} calls")
    rows, t_all = [], time.process_time()
    for m, c, A, M in case_inputs(chosen):
        name, how, P, Q = m["name"], c["weights"], c["P"], c["Q"]
        f = lambda: spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=how)  # noqa: E731
        h = lambda: _sarma.nicol_idx(M, P, Q)  # noqa: E731
        f()  # (warm: the first call on a matrix faults its arrays in)
        runs = [f() for _ in range(max(1, args.calls))]
        r = runs[-1]  # (every call runs the same stages: fixed seeds)
        ss = {s: statistics.median(x.stats["stage_seconds"][s] for x in runs)
              for s in r.stats["stage_seconds"]}
        cpu, nic = interleaved_cpu((f, h), loop_length(h, args.target), args.k)
        final = float(r.max_load)
        row = {"matrix": name, "set": m["set"], "weights": how, "P": P, "Q": Q,
               "best9": c["best9"], "max_load": final, "cpu": cpu, "nic_cpu": nic,
               "ratio": nic / max(cpu, 1e-12), "stage_seconds": ss,
               "overhead": max(cpu - sum(ss.values()), 0.0),
               "stage_max_load": stage_values(r.stats, final)}
        row["ok"] = final <= c["best9"]
        row["cpu_ok"] = row["ratio"] >= 1.0
        row["oracle"] = oracle(row)
        row["start_over"] = \
            row["overhead"] + (ss.get("setup", 0.0) + ss.get("starts", 0.0)) * _scale(row) > nic
        rows.append(row)
    head = checkout()
    say(f"{'matrix':16s} {'weights':7s} {'grid':5s} {'ratio':>6s} {'nic us':>8s} "
        f"{'rn us':>8s} | " + " ".join(f"{s[:7]:>7s}" for s in STAGES) + " | oracle")
    for row in rows:
        if row["ok"] and row["cpu_ok"]:
            continue
        ss = row["stage_seconds"]
        say(f"{row['matrix']:16s} {row['weights']:7s} {row['P']:2d}x{row['Q']:<2d} "
            f"{row['ratio']:6.2f} {row['nic_cpu'] * 1e6:8.0f} {row['cpu'] * 1e6:8.0f} | "
            + " ".join(f"{ss[s] * 1e6:7.0f}" if s in ss else f"{'-':>7s}" for s in STAGES)
            + f" | {row['oracle'] or 'none'}")
    both = sum(r["ok"] and r["cpu_ok"] for r in rows)
    orc = sum(r["oracle"] is not None for r in rows)
    over = sum(r["start_over"] for r in rows)
    for r in rows:
        v, t = budget(r)
        r["budget_stop"] = {"max_load": v, "cpu": t, "ok": v <= r["best9"],
                            "cpu_ok": t <= r["nic_cpu"]}
    bud = {k: sum(r["budget_stop"][k] for r in rows) for k in ("ok", "cpu_ok")}
    bud["both"] = sum(r["budget_stop"]["ok"] and r["budget_stop"]["cpu_ok"] for r in rows)
    shares = {}
    for P, Q in sorted({(r["P"], r["Q"]) for r in rows}):
        rg = [r for r in rows if (r["P"], r["Q"]) == (P, Q)]
        shares[f"{P}x{Q}"] = {
            s: round(statistics.median(r["stage_seconds"].get(s, 0.0) /
                                       max(r["cpu"], 1e-12) for r in rg), 3)
            for s in STAGES}
        shares[f"{P}x{Q}"]["python"] = round(statistics.median(
            r["overhead"] / max(r["cpu"], 1e-12) for r in rg), 3)
    out = {"wpart": str(Path(wpart.__file__).resolve().parent), "commit": head or None,
           "set": args.set, "k": args.k, "calls": args.calls, "target": args.target,
           "baseline": "SARMA's nic in C (benchmarks/_sarma_nic.c via _sarma.nicol_idx)",
           "totals": {"cases": len(rows), "load_ok": sum(r["ok"] for r in rows),
                      "cpu_ok": sum(r["cpu_ok"] for r in rows), "load_and_cpu_ok": both,
                      "oracle_stop_ok": orc, "setup_and_starts_over_nic": over,
                      "budget_stop": bud},
           "median_share_per_grid": shares, "bench_cpu_s": time.process_time() - t_all,
           "cases": rows}
    say(f"totals: {len(rows)} cases; load <= best of nine {out['totals']['load_ok']}, CPU <= "
        f"SARMA nic's {out['totals']['cpu_ok']}, both {both}; with the oracle stop (the "
        f"earliest stage at or below the best of nine, ended within nic's CPU) {orc}; setup "
        f"and starts alone above nic's CPU: {over}; stopped by time, knowing nic's CPU (each "
        f"stage after the starts only where it ends within it): load {bud['ok']}, CPU "
        f"{bud['cpu_ok']}, both {bud['both']}")
    say("median share of the call's CPU per stage (python: the call's CPU less the core's "
        "stage clock)")
    for g, d in shares.items():
        say(f"  {g:6s} " + " ".join(f"{k} {v:.2f}" for k, v in d.items()))
    say(f"bench CPU {out['bench_cpu_s']:.1f} s (checkout at {head or '?'})")
    write_results(args.out, out, lines)


if __name__ == "__main__":
    main()
