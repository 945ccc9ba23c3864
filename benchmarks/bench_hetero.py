"""Benchmarks of wpart.hetero on paper-sized instances (p = 5 processors).

Four parts, one process:

(a) The paper's tables (Sec. 8.2-8.3) on the synthetic dgemm-like (450 points per
    profile) and fft-like (426 points) presets over the paper's workload ranges: front sizes of
    HEPOPTA (time x dynamic energy) and HTPOPTA (time x total energy), gains of the optimal
    endpoints over the load-balanced distribution, the 5 % trade-offs and the total-energy
    saving of HTPOPTA, printed beside the paper's values. The profiles are synthetic, so the
    numbers are plausibility checks, not reproductions.
(b) HEPOPTA against the threshold-DP oracle (wpart's own) on profiles of about 1,000 points;
    target: HEPOPTA >= 100x faster, fronts identical.
(c) HEPOPTA against pymoo's NSGA-II at equal wall time (and at a generous budget): the exact
    front's hypervolume must be at least NSGA-II's (same reference point).
(d) Scaling of HEPOPTA with the number of points per profile and of processors.

``python benchmarks/bench_hetero.py --quick`` runs every part at reduced sizes in well under a
minute on 2 cores. Results go to ``benchmarks/results/bench_hetero.json``. Timings are never
asserted by the test suite. pymoo is in the ``bench`` extra (``pip install wpart[bench]``).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import wpart  # noqa: E402
import wpart.hetero as wh
from wpart.experiments import best_of, format_table

TARGET_DP_SPEEDUP = 100.0
#: Static power assumed for HTPOPTA (the paper never gives P_S).
STATIC_POWER = 230.0

#: Paper values (Sec. 1 and 8.2-8.3 of Khaleghzadeh et al.).
PAPER = {
    "dgemm-like": {"ep_card": (1, 55, 96), "tp_card": (1, 15, 35), "perf_impr": (26, 102),
                   "energy_saving": (130, 257), "ep_gain5": (5, 50), "ep_save5": (18, 116),
                   "tp_gain5": (8, 17), "tp_save5": (4, 13), "te_saving": (0, 11, 37)},
    "fft-like": {"ep_card": (1, 11, 33), "tp_card": (1, 2, 8), "perf_impr": (7, 44),
                 "energy_saving": (44, 105), "ep_gain5": (19, 109), "ep_save5": (6, 63),
                 "tp_gain5": (0.7, 9), "tp_save5": (0.4, 6), "te_saving": (0, 29, 106)},
}
WORKLOADS = {"dgemm-like": (64, 57600, 64), "fft-like": (1024, 20000, 16)}


def _stats(v: Sequence[float]) -> tuple[float, float, float]:
    a = np.asarray(v, dtype=float)
    return float(a.min()), float(a.mean()), float(a.max())


# -------------------------------------------------------------------------------- part (a) --


def paper_tables(quick: bool, seed: int) -> dict:
    out: dict[str, Any] = {}
    rows = []
    for preset in ("dgemm-like", "fft-like"):
        ps = wh.synthetic(preset, seed=seed)
        lo, hi, step = WORKLOADS[preset]
        stride = step * (15 if quick else 1)
        ns = list(range(lo, hi + 1, stride))
        rec: dict[str, list[float]] = {k: [] for k in (
            "ep", "tp", "perf", "esave", "epg", "eps", "tpg", "tps", "tes")}
        skipped = 0
        t0 = time.perf_counter()
        hep_s = 0.0
        for n in ns:
            ta = time.perf_counter()
            f = wh.pareto_front(ps, n, balanced=False)
            hep_s += time.perf_counter() - ta
            if f.empty:
                skipped += 1
                continue
            bal = wh.load_balanced(ps, n)
            tp = wh.total_energy_front(f, STATIC_POWER)
            rec["ep"].append(len(f))
            rec["tp"].append(len(tp))
            g = f.gains_vs_balanced(bal)
            rec["perf"].append(g["time_improvement_pct"])
            rec["esave"].append(g["extra_energy_pct"])  # the paper's ratio (e_bal / e_opt - 1)
            a, b = f.tradeoff(0.05), tp.tradeoff(0.05)
            rec["epg"].append(a["time_gain_pct"])
            rec["eps"].append(a["extra_energy_pct"])
            rec["tpg"].append(b["time_gain_pct"])
            rec["tps"].append(b["extra_energy_pct"])
            te_eopt = f.energy[0] + STATIC_POWER * f.time[0]
            rec["tes"].append((te_eopt - tp.energy[0]) / tp.energy[0] * 100.0)
        P = PAPER[preset]
        s = {k: _stats(v) for k, v in rec.items()}
        out[preset] = {"workloads": len(ns), "skipped": skipped, "stats": s,
                       "seconds": time.perf_counter() - t0, "hepopta_seconds": hep_s,
                       "static_power": STATIC_POWER, "paper": P}
        fmt3 = lambda t: f"{t[0]:.0f}/{t[1]:.1f}/{t[2]:.0f}"
        fmt2 = lambda t: f"{t[1]:.1f}/{t[2]:.1f}"
        pf3 = lambda t: "/".join(f"{v:g}" for v in t)
        rows += [
            [preset, "front size HEPOPTA (min/avg/max)", fmt3(s["ep"]), pf3(P["ep_card"])],
            [preset, "front size HTPOPTA (min/avg/max)", fmt3(s["tp"]), pf3(P["tp_card"])],
            [preset, "perf. improvement vs balanced % (avg/max)", fmt2(s["perf"]),
             pf3(P["perf_impr"])],
            [preset, "dyn. energy vs balanced, e_bal/e_opt-1 % (avg/max)", fmt2(s["esave"]),
             pf3(P["energy_saving"])],
            [preset, "EP: perf. gain for +5 % energy (avg/max)", fmt2(s["epg"]),
             pf3(P["ep_gain5"])],
            [preset, "EP: energy ratio e_topt/e-1 for -5 % perf. (avg/max)", fmt2(s["eps"]),
             pf3(P["ep_save5"])],
            [preset, "TP: perf. gain for +5 % energy (avg/max)", fmt2(s["tpg"]),
             pf3(P["tp_gain5"])],
            [preset, "TP: energy ratio e_topt/e-1 for -5 % perf. (avg/max)", fmt2(s["tps"]),
             pf3(P["tp_save5"])],
            [preset, "total-energy saving HTPOPTA vs HEPOPTA % (min/avg/max)",
             f"{s['tes'][0]:.1f}/{s['tes'][1]:.1f}/{s['tes'][2]:.1f}", pf3(P["te_saving"])],
        ]
    text = format_table(["preset", "quantity", "wpart (synthetic)", "paper"], rows,
                        title=(f"(a) paper tables, p = 5, workloads every "
                               f"{'15th ' if quick else ''}grid step, P_S = {STATIC_POWER} W "
                               "(assumed); synthetic profiles, so plausibility only"))
    out["ok"] = all(min(out[k]["stats"]["tes"]) >= -1e-9 for k in ("dgemm-like", "fft-like"))
    return {"data": out, "text": text}


# -------------------------------------------------------------------------------- part (b) --


def vs_threshold_dp(quick: bool, seed: int) -> dict:
    cases = [("dgemm-like", {"hi": 64000}, [17152, 32000, 57600]),
             ("fft-like", {"hi": 1024 + 16 * 1540}, [14960, 20000])]
    rows, data, ok = [], [], True
    for preset, kw, ns in cases:
        ps = wh.synthetic(preset, seed=seed, **kw)
        m = int(np.mean([pr.n_points for pr in ps]))
        for n in (ns[:1] if quick else ns):
            t_hep, _, res = best_of(lambda ps=ps, n=n: wh.pareto_front(ps, n, balanced=False),
                                       budget=0.3, min_reps=3, max_reps=20)
            f = res[-1]
            t0 = time.perf_counter()
            d = wh.threshold_dp_front(ps, n)
            t_dp = time.perf_counter() - t0
            same = bool(np.array_equal(f.time, d.time) and np.array_equal(f.energy, d.energy))
            ratio = t_dp / t_hep
            good = same and ratio >= TARGET_DP_SPEEDUP
            ok &= good
            rows.append([preset, m, n, len(f), t_hep * 1e3, t_dp * 1e3, ratio, same,
                         "PASS" if good else "FAIL"])
            data.append({"preset": preset, "m": m, "n": n, "points": len(f),
                         "hepopta_s": t_hep, "threshold_dp_s": t_dp, "ratio": ratio,
                         "identical": same, "stats": f.stats})
    text = format_table(["preset", "m", "n", "points", "HEPOPTA ms", "thr-DP ms", "ratio",
                         "same front", f">= {TARGET_DP_SPEEDUP:g}x"], rows,
                        title="(b) HEPOPTA vs the threshold-DP oracle, p = 5 (best of k vs one run)")
    return {"data": data, "text": text, "ok": ok}


# -------------------------------------------------------------------------------- part (c) --


def _nsga2(ps: wh.ProfileSet, n: int, budget: float, seed: int) -> tuple[np.ndarray, np.ndarray,
                                                                         int]:
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.problem import Problem
    from pymoo.operators.crossover.sbx import SBX
    from pymoo.operators.mutation.pm import PM
    from pymoo.operators.repair.rounding import RoundingRepair
    from pymoo.operators.sampling.rnd import IntegerRandomSampling
    from pymoo.optimize import minimize
    from pymoo.termination.max_time import TimeBasedTermination

    p = ps.m
    sizes = [np.concatenate([[0], pr.sizes]) for pr in ps]
    times = [np.concatenate([[0.0], pr.time]) for pr in ps]
    eners = [np.concatenate([[0.0], pr.energy]) for pr in ps]
    last = sizes[-1]

    class Split(Problem):
        """x_i = index into {0} u sizes_i for processors 0..p-2; the last takes the rest."""

        def __init__(self) -> None:
            super().__init__(n_var=p - 1, n_obj=2, n_ieq_constr=1, xl=0,
                             xu=np.array([len(s) - 1 for s in sizes[:-1]]), vtype=int)

        def _evaluate(self, X, out, *args, **kwargs):
            X = np.asarray(X, dtype=np.int64)
            k = X.shape[0]
            rest = np.full(k, n, np.int64)
            T = np.zeros(k)
            E = np.zeros(k)
            for i in range(p - 1):
                rest -= sizes[i][X[:, i]]
            pos = np.clip(np.searchsorted(last, rest), 0, last.size - 1)
            lo = np.clip(pos - 1, 0, last.size - 1)
            viol = np.minimum(np.abs(last[pos] - rest), np.abs(last[lo] - rest)).astype(float)
            ok = (viol == 0) & (rest >= 0)
            viol[rest < 0] = -rest[rest < 0] + 1.0
            idx_last = np.where(ok, pos, 0)
            for i in range(p - 1, -1, -1):  # right fold, like the C core
                j = X[:, i] if i < p - 1 else idx_last
                E = eners[i][j] + E
                T = np.maximum(T, times[i][j])
            out["F"] = np.column_stack([T, E])
            out["G"] = viol[:, None]

    algo = NSGA2(pop_size=100, sampling=IntegerRandomSampling(),
                 crossover=SBX(prob=0.9, eta=15, vtype=float, repair=RoundingRepair()),
                 mutation=PM(eta=20, vtype=float, repair=RoundingRepair()),
                 eliminate_duplicates=True)
    res = minimize(Split(), algo, TimeBasedTermination(max_time=budget), seed=seed,
                   verbose=False)
    pop = res.pop
    G = pop.get("G").ravel()
    F = pop.get("F")[G <= 0]
    if F.size == 0:
        return np.zeros(0), np.zeros(0), res.algorithm.n_gen
    return F[:, 0], F[:, 1], res.algorithm.n_gen


def vs_nsga2(quick: bool, seed: int) -> dict:
    try:
        import pymoo  # noqa: F401
    except ImportError:
        return {"data": [], "text": "(c) skipped: pymoo is not installed "
                "(pip install 'wpart[bench]')", "ok": True}
    cases = [("dgemm-like", 17152), ("fft-like", 14960)]
    rows, data, ok = [], [], True
    for preset, n in cases:
        ps = wh.synthetic(preset, seed=seed)
        t_hep, _, res = best_of(lambda ps=ps, n=n: wh.pareto_front(ps, n, balanced=False), budget=0.2)
        f = res[-1]
        for label, budget in (("equal", t_hep), ("generous", 0.5 if quick else 3.0)):
            t0 = time.perf_counter()
            T, E, gens = _nsga2(ps, n, budget, seed)
            wall = time.perf_counter() - t0
            allt = np.concatenate([f.time, T])
            alle = np.concatenate([f.energy, E])
            ref = (1.1 * float(allt.max()), 1.1 * float(alle.max()))
            hv_exact = f.hypervolume(ref)
            hv_ga = wh.hypervolume(T, E, ref) if T.size else 0.0
            good = hv_exact >= hv_ga
            ok &= good
            # NSGA-II's non-dominated feasible points
            nd = sum(1 for a, b in zip(T, E) if not np.any((T <= a) & (E <= b)
                                                           & ((T < a) | (E < b))))
            rows.append([preset, n, label, t_hep * 1e3, wall * 1e3, gens, len(f), nd,
                         hv_exact, hv_ga, "PASS" if good else "FAIL"])
            data.append({"preset": preset, "n": n, "budget": label, "hepopta_s": t_hep,
                         "nsga2_s": wall, "generations": int(gens), "exact_points": len(f),
                         "nsga2_nondominated": nd, "hv_exact": hv_exact, "hv_nsga2": hv_ga,
                         "ref": ref})
    text = format_table(["preset", "n", "budget", "HEPOPTA ms", "NSGA-II ms", "gens",
                         "exact pts", "GA pts", "HV exact", "HV NSGA-II", "exact >= GA"], rows,
                        title="(c) exact front vs pymoo NSGA-II (pop 100), same reference point "
                              "(NSGA-II needs one generation at least, so 'equal' overshoots)")
    return {"data": data, "text": text, "ok": ok}


# -------------------------------------------------------------------------------- part (d) --


def _slope(x: Sequence[float], y: Sequence[float]) -> float:
    xs, ys = np.log(np.asarray(x, float)), np.log(np.maximum(np.asarray(y, float), 1e-9))
    return float(np.polyfit(xs, ys, 1)[0]) if len(xs) >= 2 else float("nan")


def scaling(quick: bool, seed: int) -> dict:
    """HEPOPTA time against m (p = 5) and against p (m = 200), with n = m p / 2 grid units."""
    ms = [50, 100, 200, 400] if quick else [50, 100, 200, 400, 800]
    pvals = [2, 3, 5, 8] if quick else [2, 3, 4, 5, 6, 8, 10]
    rows, data = [], {"m": [], "p": []}
    tm = []
    for m in ms:
        ps = wh.synthetic("dgemm-like", seed=seed, hi=64 * m)
        n = 64 * (m * ps.m // 2)
        t, _, res = best_of(lambda ps=ps, n=n: wh.pareto_front(ps, n, balanced=False), budget=0.2,
                            min_reps=2, max_reps=10)
        tm.append(t)
        rows.append(["m", m, ps.m, n // 64, len(res[-1]), res[-1].stats["cells"], t * 1e3])
        data["m"].append({"m": m, "p": ps.m, "N": n // 64, "points": len(res[-1]),
                          "seconds": t, "stats": res[-1].stats})
    tp = []
    for p in pvals:
        ps = wh.synthetic("dgemm-like", seed=seed, hi=64 * 200, m=p)
        n = 64 * (200 * p // 2)
        t, _, res = best_of(lambda ps=ps, n=n: wh.pareto_front(ps, n, balanced=False), budget=0.2,
                            min_reps=2, max_reps=10)
        tp.append(t)
        rows.append(["p", 200, p, n // 64, len(res[-1]), res[-1].stats["cells"], t * 1e3])
        data["p"].append({"m": 200, "p": p, "N": n // 64, "points": len(res[-1]),
                          "seconds": t, "stats": res[-1].stats})
    sm, sp = _slope(ms, tm), _slope(pvals, tp)
    data["slope_m"], data["slope_p"] = sm, sp
    text = format_table(["sweep", "m", "p", "N", "points", "memo cells", "HEPOPTA ms"], rows,
                        title=(f"(d) HEPOPTA scaling, N = m p / 2: log-log slope vs m = {sm:.2f} "
                               f"(with N ~ m; paper bound m^3 p^3 log(mp) on a common grid), "
                               f"vs p = {sp:.2f}"))
    return {"data": data, "text": text}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run of every part")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "benchmarks" / "results" / "bench_hetero.json")
    ap.add_argument("--seed", type=int, default=1, help="seed of the synthetic profiles")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    a = paper_tables(args.quick, args.seed)
    print(a["text"], "\n", flush=True)
    b = vs_threshold_dp(args.quick, args.seed)
    print(b["text"], "\n", flush=True)
    c = vs_nsga2(args.quick, args.seed)
    print(c["text"], "\n", flush=True)
    d = scaling(args.quick, args.seed)
    print(d["text"], "\n", flush=True)
    ok = a["data"]["ok"] and b["ok"] and c["ok"]
    print(f"bench_hetero: {'PASS' if ok else 'FAIL'} in {time.perf_counter() - t0:.1f} s "
          f"({platform.processor() or platform.machine()}, {platform.platform()})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    from wpart.experiments import write_json

    write_json(args.out, {"quick": args.quick, "seed": args.seed, "ok": ok,
                          "paper_tables": a["data"], "vs_threshold_dp": b["data"],
                          "vs_nsga2": c["data"], "scaling": d["data"], "wpart": wpart.__version__,
                          "platform": platform.platform()})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
