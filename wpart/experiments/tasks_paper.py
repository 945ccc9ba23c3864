"""The CCM paper's headline comparisons ([Lifflander 2024], Sec. VII), shared by
``wpart reproduce tasks`` and ``benchmarks/bench_tasks.py``.

* :func:`milp_vs_ccm`   CCM-LB (12 seeds) against the GLPK optimum of the compact MILP on small
  Gemma-like instances (the paper's Fig. 4a: CCM-LB within 1.8 % of the best MILP solution);
* :func:`weak_scaling`  CCM-LB on Gemma-like instances with the paper's weak-scaling counts
  (Fig. 5: 16/2,383/286, 64/8,955/896, 256/34,709/3,076), with the greedy and load-only
  baselines;
* :func:`verdicts`      both, plus the Gemma-like delta sweep, as verdict rows.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from wpart import tasks

from . import format_table
from ._verdict import DIFFERS, MATCH, NOT_REGENERATED, Verdict, Verdicts, within

__all__ = ["MILP_SIZES", "SCALING_CASES", "milp_vs_ccm", "verdicts", "weak_scaling"]

#: (ranks, tasks, blocks) of the MILP comparison; the first `quick` ones in quick mode.
MILP_SIZES = [(2, 12, 3), (3, 18, 5), (3, 30, 6), (4, 40, 8), (4, 60, 10), (6, 80, 12),
              (8, 120, 16)]
#: The paper's weak-scaling counts (its Fig. 5) and the 14-rank MILP case.
SCALING_CASES = [(14, 1959, 206), (16, 2383, 286), (64, 8955, 896), (256, 34709, 3076)]


def milp_vs_ccm(sizes: list[tuple[int, int, int]], time_limit: float, *,
                deltas: tuple[float, ...] = (0.0, 1e-9), seeds: int = 12,
                subclusters: bool = True) -> dict:
    """CCM-LB (`seeds` seeds) against the GLPK compact MILP on
    ``gemma_like(m=I, n_tasks=K, n_blocks=N, seed=1)``.

    Returns ``{"rows": [...], "text": str, "ok": bool}``; ``ok`` is False only when CCM-LB
    beats a proven optimum (a bug). ``gap_min`` / ``gap_max`` are ``W_ccm / W_milp - 1``.
    """
    rows, recs = [], []
    for I, K, N in sizes:
        p = tasks.gemma_like(m=I, n_tasks=K, n_blocks=N, seed=1)
        for delta in deltas:
            t0 = time.perf_counter()
            runs = [tasks.balance(p, seed=s, delta=delta) for s in range(seeds)]
            t_ccm = (time.perf_counter() - t0) / seeds
            w = np.array([r.max_work for r in runs])
            ws = (np.array([tasks.balance(p, seed=s, delta=delta, subclusters=True).max_work
                            for s in range(seeds)]) if subclusters else w)
            m = tasks.solve_milp(p, delta=delta, time_limit=time_limit)
            st, bound, tm = m.status, m.stats["bound"], m.stats["seconds"]
            wm = m.max_load if m.success else float("nan")
            gap_min = w.min() / wm - 1 if wm > 0 else float("nan")
            gap_max = w.max() / wm - 1 if wm > 0 else float("nan")
            ok = not (st == "optimal" and min(w.min(), ws.min()) < wm - 1e-9)
            recs.append(dict(I=I, K=K, N=N, delta=delta, ccm_min=w.min(), ccm_max=w.max(),
                             ccm_sub_min=ws.min(), ccm_sub_max=ws.max(),
                             ccm_seconds=t_ccm, milp_status=st, milp=wm, milp_bound=bound,
                             milp_seconds=tm, gap_min=gap_min, gap_max=gap_max, ok=ok))
            gs = ws.min() / wm - 1 if wm > 0 else float("nan")
            rows.append([f"{I}/{K}/{N}", delta, runs[0].initial_max_work, w.min(), w.max(), wm,
                         st, f"{gap_min:.2%} / {gap_max:.2%}", f"{gs:.2%}", t_ccm, tm,
                         "holds" if ok else "VIOLATED"])
    text = format_table(["I/K/N", "delta", "W0", "CCM min", "CCM max", "MILP", "status",
                         "gap min/max", "gap +sub (best)", "CCM s", "MILP s", "CCM >= OPT"],
                        rows, title=(f"CCM-LB ({seeds} seeds) vs the GLPK compact MILP "
                                     f"({time_limit:g} s limit), Gemma-like (paper Fig. 4a)"))
    return {"rows": recs, "text": text, "ok": all(r["ok"] for r in recs)}


def weak_scaling(cases: list[tuple[int, int, int]], *, baselines: bool = True) -> dict:
    """CCM-LB on ``gemma_like(m=I, n_tasks=K, n_blocks=N, seed=0)``, delta = 1e-9 (paper
    Fig. 5).

    Returns ``{"rows": [...], "text": str, "ok": True}`` with W_max before and after, the
    load lower bound ``max(sum L / I, max L)``, wall times and (with `baselines`) the greedy and
    load-only tempered baselines and CCM-LB with subclusters.
    """
    rows, recs = [], []
    for I, K, N in cases:
        p = tasks.gemma_like(m=I, n_tasks=K, n_blocks=N, seed=0)
        res: dict[str, Any] = {}
        meths = ("ccm", "greedy", "tempered") if baselines else ("ccm",)
        if baselines:
            t0 = time.perf_counter()
            rs = tasks.balance(p, method="ccm", seed=0, delta=1e-9, subclusters=True)
            res["ccm+sub"] = (rs, time.perf_counter() - t0)
        for meth in meths:
            if meth == "tempered" and K > 40_000:  # single-task transfers: quadratic per pair
                res[meth] = (res["greedy"][0], float("nan"))
                continue
            t0 = time.perf_counter()
            r = tasks.balance(p, method=meth, seed=0, delta=1e-9)
            res[meth] = (r, time.perf_counter() - t0)
        r, t = res["ccm"]
        lb = max(p.task_load.sum() / I, p.task_load.max())
        rec = dict(I=I, K=K, N=N, w0=r.initial_max_work, ccm=r.max_work, ccm_seconds=t,
                   load_lower_bound=lb, n_off_home=r.n_off_home,
                   exchanges=r.stats["n_exchanges"], speedup=r.initial_max_work / r.max_work)
        row = [f"{I}/{K}/{N}", r.initial_max_work, r.max_work, lb,
               r.initial_max_work / r.max_work, t]
        if baselines:
            rs = res["ccm+sub"][0]
            rec.update(greedy=res["greedy"][0].max_work, greedy_seconds=res["greedy"][1],
                       tempered=res["tempered"][0].max_work if K <= 40_000 else None,
                       tempered_seconds=res["tempered"][1], ccm_sub=rs.max_work,
                       ccm_sub_seconds=res["ccm+sub"][1])
            row += [rs.max_work, res["ccm+sub"][1], res["greedy"][0].max_work,
                    res["greedy"][1],
                    res["tempered"][0].max_work if K <= 40_000 else "-", res["tempered"][1]]
        recs.append(rec)
        rows.append(row + [r.n_off_home])
    heads = ["I/K/N", "W0", "CCM", "load LB", "W0/CCM", "CCM s"]
    if baselines:
        heads += ["CCM+sub", "CCM+sub s", "greedy", "greedy s", "tempered*", "tempered s"]
    text = format_table(heads + ["n_off"], rows, title=(
        "Weak scaling, Gemma-like, delta = 1e-9 (paper Fig. 5 counts; * load-only balancer "
        "scored with the full model)"))
    return {"rows": recs, "text": text, "ok": True}


def verdicts(d: dict, quick: bool) -> Verdicts:
    """The paper's headline figures (Secs. VII-A and VII-B) beside ours."""
    vs = Verdicts("tasks")
    mv = d["milp"]
    opt = [r for r in mv["rows"] if r["milp_status"] == "optimal"]
    sizes = sorted({f"{r['I']}/{r['K']}/{r['N']}" for r in mv["rows"]})
    run = (f"gemma_like {', '.join(sizes)} (ranks/tasks/blocks), delta 0 and 1e-9, "
           f"12 seeds, GLPK {mv['time_limit']:g} s")
    why = ("tiny gemma_like instances (2-3 ranks, 3-5 blocks) are coarse: a whole-block move "
           "cannot split a heavy block; see the paper-style gap study below (subclusters "
           "close most of it); GLPK proves optima only on small instances, the paper "
           "compared at 14/1959/206 with Gurobi")
    if opt:
        worst = max(r["gap_max"] for r in opt) * 100
        best = float(np.median([r["gap_min"] for r in opt])) * 100
        vs.add(within("Fig. 4a", "CCM-LB W_max above the MILP optimum, worst seed",
                      paper="<= 1.8%", ours=worst, lo=-1.0, hi=1.8, run=run,
                      fmt="{:.1f}%", reason_off=why, tolerance="<= 1.8%"))
        vs.add(within("Fig. 4a",
                      "CCM-LB W_max above the MILP optimum, best seed (median over instances)",
                      paper="-0.1% .. 1.0%", ours=best, lo=-0.1, hi=1.0, run=run,
                      fmt="{:.1f}%", reason_off=why, tolerance="-0.1 .. 1.0%"))
    else:
        vs.add(Verdict("Fig. 4a", "CCM-LB W_max above the MILP optimum", "<= 1.8%", "-",
                       NOT_REGENERATED, reason="GLPK proved no optimum within its time limit",
                       run=run))
    gp = d.get("gap")
    if gp:
        sm = gp["summary"]
        rung = (f"{gp['n_instances']} paper-style instances (2-3 ranks, 4-8 blocks per rank), "
                f"{gp['n_seeds']} seed(s), GLPK {gp['time_limit']:g} s "
                f"({gp['n_not_optimal']} not proven optimal)")
        coarse = ("small instances are coarse: one or two heavy blocks on 2-3 ranks; whole-block "
                  "moves cannot split them (the paper's instance has 206 blocks on 14 ranks)")
        for key, label in (("whole", "paper default, block groups whole"),
                           ("fill_explore", "subclusters='fill', 8 trials, explore")):
            if key not in sm:
                continue
            vs.add(within("Fig. 4a", f"CCM-LB ({label}) above the optimum, median",
                          paper="<= 1.8%", ours=100 * sm[key]["median"], lo=-1.0, hi=1.8,
                          run=rung, fmt="{:.2f}%", reason_off=coarse, tolerance="<= 1.8%"))
            vs.add(within("Fig. 4a", f"CCM-LB ({label}): runs within 1.8% of the optimum",
                          paper="all", ours=100 * sm[key]["within"], lo=99.999, hi=100.0,
                          run=rung, fmt="{:.1f}%", reason_off=coarse, tolerance="100%"))
    vs.add(Verdict("Fig. 4a", "the same at the paper's size 14/1959/206", "<= 1.8%", "-",
                   NOT_REGENERATED, reason="GLPK does not solve a MILP of this size (the "
                   "paper: Gurobi, 8 to 46 h); the rows above use small instances", run="-"))
    gm = d["gemma"]["rows"]
    t = max(r["seconds_mean"] for r in gm)
    dl = ", ".join(format(r["delta"], "g") for r in gm)
    rung = f"gemma_like 14/1959/206, {d['gemma']['seeds']} seeds, delta {dl}"
    vs.add(within("Fig. 4a", "mean CCM-LB time, slowest delta", paper="< 0.7 s", ours=t, lo=0,
                  hi=0.7, run=rung, fmt="{:.3f} s", reason_off="slower than the paper's run",
                  tolerance="< 0.7 s"))
    noff = [r["n_off_mean"] for r in gm]
    dec = all(a >= b for a, b in zip(noff, noff[1:]))
    vs.add(Verdict("Fig. 4b", "blocks off home (n_off) against delta", "falls as delta grows",
                   " -> ".join(f"{x:.0f}" for x in noff), MATCH if dec else DIFFERS,
                   "non-increasing", "" if dec else "synthetic Gemma-like task times; " + why,
                   rung))
    ws = d["scaling"]["rows"]
    for r in ws:
        runw = f"gemma_like {r['I']}/{r['K']}/{r['N']}, delta 1e-9, seed 0"
        vs.add(within("Fig. 5", f"W_max before / after CCM-LB at {r['I']} ranks "
                      "(work-model proxy for the assembly speedup C/B)",
                      paper="~1.8x (C/B; 2.3-2.4x C/A)", ours=r["speedup"], lo=1.5, hi=2.1,
                      run=runw, fmt="{:.2f}x",
                      reason_off="synthetic task times; the paper measured Gemma's assembly "
                                 "time, which our model only approximates",
                      tolerance="1.8x +- 0.3"))
    missing = [c for c in SCALING_CASES[1:] if (c[0], c[1], c[2]) not in
               {(r["I"], r["K"], r["N"]) for r in ws}]
    for I, K, N in missing:
        vs.add(Verdict("Fig. 5", f"W_max before / after CCM-LB at {I} ranks", "~1.8x", "-",
                       NOT_REGENERATED, reason="quick mode stops at 64 ranks (the 256-rank "
                       "case takes seconds)", run="-"))
    vs.add(Verdict("Fig. 5", "assembly speedup of Gemma (C vs A)", "2.3-2.4x", "-",
                   NOT_REGENERATED, reason="needs the Gemma application on 128 nodes; only the "
                   "work-model proxy above is computed", run="-"))
    return vs
