"""The headline figures of [Saule 2012] beside ours: HYBRID, hierarchical variants, verdicts.

Used by :func:`wpart.experiments.spatial.run_spatial`:

* :func:`variants`  HIER-RB / HIER-RELAXED -LOAD, -DIST, -HOR, -VER against m (paper Figs. 6-7);
* :func:`hybrid`    HYBRID-F(JAG-M-HEUR / JAG-M-OPT) and plain HYBRID against JAG-M-HEUR-PROBE
  and HIER-RELAXED on a pic_like snapshot (paper Figs. 14, 16-19);
* :func:`resolution` JAG-M-HEUR-PROBE and RECT-UNIFORM on pic_like at growing resolution
  (explains why the 514 x 514 substitute is far from the paper's PIC-MAG values);
* :func:`verdicts`  every headline figure of Secs. 4 and 5 of the paper as a
  :class:`~wpart.experiments._verdict.Verdict`;
* :func:`figures`   the readable figures (percent axes, distinct colours, legends outside).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import format_table
from ._verdict import DIFFERS, MATCH, NOT_REGENERATED, Verdict, Verdicts, near, within
from .spatial_timing import PAPER_TIMES

__all__ = ["figures", "hybrid", "resolution", "variants", "verdicts"]

_SUB = "substitute data (pic_like, not PIC-MAG)"
_HVARS = ("load", "dist", "hor", "ver")
#: Fig. 9's RECT-NICOL row: the cause measured by ``benchmarks/bench_spatial.py --only fig9``
#: (a from-scratch RECT-NICOL in C from uniform rows beside HIER-RB in one process, 2 cores)
_FIG9_SCRATCH = ("; a from-scratch RECT-NICOL in C (a new stripe prefix every half-sweep) "
                 "measured 25.8x HIER-RB on this input (bench_spatial.py --only fig9), the "
                 "paper's ratio: ours moves only the entries that change stripe and starts "
                 "each cut search from the last cuts")


def _name(meth: str) -> str:
    return meth.upper().replace("_", "-")


def _spearman(x: Any, y: Any) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


# --------------------------------------------------------------------------------------------


def variants(quick: bool) -> tuple[bool, dict, str]:
    """LI_agg of the four hierarchical variants against m (paper Figs. 6 and 7)."""
    from wpart import spatial
    from wpart.spatial import instances as I

    seeds = 2 if quick else 5
    cases = ([("multipeak", 128), ("diagonal", 128)] if quick
             else [("multipeak", 512), ("diagonal", 1024)])
    ks = [4, 8, 16] if quick else [4, 8, 16, 24, 32, 45, 64]
    data: dict = {}
    rows = []
    for cls, n in cases:
        mats = [I.make(cls, n, seed=s) for s in range(seeds)]
        d = data.setdefault(f"{cls}_{n}", {"class": cls, "n": n, "seeds": seeds,
                                           "m": [], "li": {}, "lb": []})
        for k in ks:
            m = k * k
            if m > n * n // 4:
                continue
            d["m"].append(m)
            lb = 0.0
            row: list[Any] = [f"{cls} {n}x{n}", m]
            for algo in ("hier_rb", "hier_relaxed"):
                for v in _HVARS:
                    rs = [getattr(spatial, algo)(A, m, variant=v) for A in mats]
                    li = sum(float(r.max_load) for r in rs) / sum(float(r.avg_load)
                                                                  for r in rs) - 1
                    d["li"].setdefault(f"{algo}-{v}", []).append(li)
                    row.append(100 * li)
                    # the bound aggregated as LI_agg is (ratio of sums over the seeds)
                    lb = sum(float(r.lower_bound) for r in rs) / sum(float(r.avg_load)
                                                                    for r in rs) - 1
            d["lb"].append(lb)
            row.append(100 * lb)
            rows.append(row)
    # why HIER-RELAXED trails HIER-RB on uniform data (no paper figure claims otherwise)
    nu = 128 if quick else 512
    mu = 256 if quick else 1024
    U = I.uniform(nu, delta=1.2, seed=0)
    rb, rl = spatial.hier_rb(U, mu), spatial.hier_relaxed(U, mu)
    R, L = np.asarray(rl.rects), np.asarray(rl.loads)
    k = int(np.argmax(L))
    h, w = int(R[k, 1] - R[k, 0]), int(R[k, 3] - R[k, 2])
    uneven = _uneven_splits(R)
    data["uniform_diagnosis"] = {"n": nu, "m": mu, "rb": rb.imbalance, "relaxed": rl.imbalance,
                                 "worst_shape": [h, w], "avg_cells": nu * nu / mu,
                                 "uneven_leaf_share": uneven}
    diag = (f"HIER-RELAXED on uniform {nu}x{nu} (Delta 1.2), m = {mu}: "
            f"LI {100 * rl.imbalance:.2f}% "
            f"against HIER-RB {100 * rb.imbalance:.2f}%. Its heaviest part is {h}x{w} = {h * w} "
            f"cells for {nu * nu / mu:.0f} on average; {100 * uneven:.0f}% of its parts are "
            "not powers-of-two shapes. The rule is the paper's (each cut and part split "
            "minimise max(L1/x, L2/(q-x)), tested against brute force), but that relaxed "
            "objective is blind to granularity: it accepts uneven splits (3 vs 5 parts) whose "
            "small odd rectangles cannot be halved evenly at the last levels. The paper shows "
            "no uniform figure; on its multi-peak/diagonal figures the heavy cells dominate.")
    heads = ["instance", "m"] + [f"{a}-{v.upper()} %" for a in ("RB", "RELAXED")
                                 for v in _HVARS] + ["LB/avg-1 %"]
    text = format_table(heads, rows, title=(
        f"Hierarchical variants, LI_agg in % ({seeds} seeds; paper Figs. 6-7: multi-peak 512, "
        "diagonal 4096" + ("; quick run: 128x128" if quick else "; ours: diagonal at 1024")
        + ")")) + "\n" + diag
    return True, data, text


def _uneven_splits(R: np.ndarray) -> float:
    """Share of parts whose height or width is not a power of two."""
    h = R[:, 1] - R[:, 0]
    w = R[:, 3] - R[:, 2]
    pw = lambda x: (x & (x - 1)) == 0  # noqa: E731
    return float(np.mean(~(pw(h) & pw(w))))


def hybrid(quick: bool) -> tuple[bool, dict, str]:
    """HYBRID against JAG-M-HEUR-PROBE and HIER-RELAXED (paper Figs. 14, 16-19)."""
    from wpart import spatial
    from wpart.spatial import instances as I

    n = 128 if quick else 514
    A = I.pic_like(n, t=10_000, seed=0)
    ms = {"7744": 576 if quick else 7744, "6400": 400 if quick else 6400}
    algos = {
        "jag_m_heur_probe": {},
        "hier_relaxed": {},
        "hybrid": {"phase1": "jag_m_heur", "phase2_slow": None},
        "hybrid_f": {"phase1": "jag_m_heur", "phase2_slow": "jag_m_opt"},
    }

    def run(meth: str, m: int, **kw: Any):
        name = "hybrid" if meth.startswith("hybrid") else meth
        return spatial.partition(A, m, method=name, **kw)

    data: dict = {"n": n, "t": 10_000, "m": ms, "fixed": {}, "sweep": {}, "m1": {}}
    rows = []
    for key, m in ms.items():
        rec = {}
        for meth, kw in algos.items():
            r = run(meth, m, **kw)
            rec[meth] = {"li": r.imbalance, "seconds": r.stats["seconds"],
                         "m1": r.params.get("m1")}
            rows.append([m, _name(meth).replace("HYBRID-F", "HYBRID-F(JAG-M-HEUR/JAG-M-OPT)"),
                         100 * r.imbalance, r.stats["seconds"] * 1e3,
                         r.params.get("m1", "-")])
        data["fixed"][key] = rec
    text = format_table(["m", "algorithm", "LI %", "core ms", "m1"], rows, title=(
        f"HYBRID on pic_like {n}x{n}, t = 10000 (paper Figs. 17-19 on PIC-MAG at m = 7744 and "
        f"6400; this run: m = {ms['7744']} and {ms['6400']})"))
    # varying m (Fig. 16)
    ks = [10, 14, 18, 24] if quick else [24, 40, 56, 72, 88]
    sw = {meth: [] for meth in ("jag_m_heur_probe", "hier_relaxed", "hybrid_f")}
    for k in ks:
        for meth in sw:
            sw[meth].append(run(meth, k * k, **algos[meth]).imbalance)
    data["sweep"] = {"m": [k * k for k in ks], **sw}
    text += "\n\n" + format_table(
        ["m", "JAG-M-HEUR-PROBE %", "HIER-RELAXED %", "HYBRID-F %"],
        [[k * k, 100 * a, 100 * b, 100 * c] for k, a, b, c in zip(ks, *sw.values())],
        title=f"HYBRID-F against m on pic_like {n}x{n}, t = 10000 (paper Fig. 16)")
    # LI against m1 beside ELI (Fig. 14): JAG-M-OPT in phase 2
    m = 256 if quick else 1024
    cands = [(k + 1) ** 2 - 1 for k in range(2, 9 if quick else 14) if (k + 1) ** 2 - 1 < m]
    lis, elis = [], []
    for m1 in cands:
        r = spatial.hybrid(A, m, phase1="jag_m_heur", phase2_slow="jag_m_opt", m1=m1)
        lis.append(r.imbalance)
        elis.append(r.params["eli"])
    data["m1"] = {"m": m, "m1": cands, "li": lis, "eli": elis,
                  "spearman": _spearman(elis, lis)}
    text += "\n\n" + format_table(
        ["m1", "ELI %", "LI %"], [[a, 100 * b, 100 * c] for a, b, c in zip(cands, elis, lis)],
        title=(f"HYBRID-F(JAG-M-HEUR/JAG-M-OPT) against m1, pic_like {n}x{n}, m = {m} (paper "
               f"Fig. 14): rank correlation of LI with ELI {data['m1']['spearman']:.2f}"))
    return True, data, text


def resolution(quick: bool) -> tuple[bool, dict, str]:
    """JAG-M-HEUR-PROBE and RECT-UNIFORM against the resolution of the pic_like substitute."""
    from wpart import spatial
    from wpart.spatial import instances as I

    ns = [128, 256, 514] if quick else [514, 1028, 2056]
    m6, m9 = (400, 576) if quick else (6400, 9216)
    rows, data = [], {"n": ns, "m": [m6, m9], "probe": [], "uniform": [], "cells": [],
                      "relaxed": [], "rb": []}
    for n in ns:
        A = I.pic_like(n, t=15_000, seed=0)
        p = spatial.jag_m_heur_probe(A, m6)
        u = spatial.rect_uniform(A, m9, P=math.isqrt(m9), Q=math.isqrt(m9))
        rl, rb = spatial.hier_relaxed(A, m9), spatial.hier_rb(A, m9)
        data["probe"].append(p.imbalance)
        data["uniform"].append(u.imbalance)
        data["relaxed"].append(rl.imbalance)
        data["rb"].append(rb.imbalance)
        data["cells"].append(n * n / m6)
        rows.append([f"{n}x{n}", n * n / m6, 100 * p.imbalance, 100 * (p.gap),
                     100 * u.imbalance, 100 * rb.imbalance, 100 * rl.imbalance])
    text = format_table(
        ["pic_like", f"cells per part (m={m6})", f"JAG-M-HEUR-PROBE m={m6} LI %",
         "gap to LB %", f"RECT-UNIFORM m={m9} LI %", f"HIER-RB m={m9} %",
         f"HIER-RELAXED m={m9} %"], rows,
        title=("Resolution of the substitute, t = 15000: with a few tens of cells per part the "
               "cell granularity, not the algorithm, sets JAG-M-HEUR-PROBE's imbalance"))
    return True, data, text


# --------------------------------------------------------------------------------------------


def _li(arr: Any) -> np.ndarray:
    return 100 * np.asarray(arr, dtype=float)


def verdicts(d: dict, quick: bool) -> Verdicts:
    """Every headline figure of the paper (Secs. 4 and 5) beside ours."""
    vs = Verdicts("spatial")
    se = d["series"]
    n, steps = se["n"], se["steps"]
    m6, m9 = se["m"]["6400"], se["m"]["9216"]
    run6 = f"pic_like {n}x{n}, {steps} snapshots, m = {m6}"
    run9 = f"pic_like {n}x{n}, {steps} snapshots, m = {m9}"
    small = " (quick: smaller m and n than the paper)" if quick else ""
    sub = _SUB + small
    L6, L9 = se["li"]["6400"], se["li"]["9216"]
    pct = "{:.1f}%"

    def rng(v: np.ndarray) -> str:
        return f"{v.min():.1f}..{v.max():.1f}% (median {np.median(v):.1f}%)"

    # Fig. 4 (Sec. 4.2)
    v = _li(L6["jag_pq_heur"])
    vs.add(within("Fig. 4 (Sec. 4.2)", "JAG-PQ-HEUR LI, median over snapshots", paper="~18%",
                  ours=float(np.median(v)), lo=15, hi=21, run=run6, fmt=pct,
                  reason_off=sub, tolerance="18 +- 3 points"))
    v = _li(L6["jag_m_heur"])
    vs.add(within("Fig. 4 (Sec. 4.2)", "JAG-M-HEUR LI, median over snapshots", paper="2.5..16%",
                  ours=float(np.median(v)), lo=2.5, hi=16, run=run6, fmt=pct,
                  reason_off=sub, tolerance="inside 2.5..16%"))
    v = _li(L6["jag_m_heur_probe"])
    r = "cell granularity: see the resolution table (2-3 % needs ~600 cells per part); " + sub
    vs.add(within("Fig. 4 (Sec. 4.2)", "JAG-M-HEUR-PROBE LI, worst snapshot",
                  paper="2..3% every snapshot",
                  ours=float(v.max()), lo=1.5, hi=3.5, run=run6, fmt=pct, reason_off=r,
                  tolerance="max in 2..3% +- 0.5"))
    res = d["resolution"]
    vs.add(within("Fig. 4 (Sec. 4.2)",
                  f"JAG-M-HEUR-PROBE LI at the finest resolution {res['n'][-1]}^2",
                  paper="2..3%", ours=100 * res["probe"][-1], lo=1.5, hi=3.5,
                  run=f"pic_like {res['n'][-1]}x{res['n'][-1]}, t = 15000, m = {res['m'][0]}",
                  fmt=pct, reason_off=sub, tolerance="2..3% +- 0.5"))
    # Fig. 10 (Sec. 4.5)
    fig10 = {"rect_uniform": ("30..45% (grows)", 30, 45, "median inside 30..45%"),
             "rect_nicol": ("~28%, constant", 25, 31, "28 +- 3 points"),
             "hier_rb": ("20..30%", 20, 30, "median inside 20..30%"),
             "hier_relaxed": ("8..9%, rarely > 10%", 7, 10, "median inside 8..9% +- 1"),
             "jag_m_heur_probe": ("~5%, constant", 4.0, 6.0, "5 +- 1 point (20%)")}
    for meth, (paper, lo, hi, tol) in fig10.items():
        v = _li(L9[meth])
        reason = sub
        if meth in ("rect_uniform", "rect_nicol"):
            reason = (f"pic_like's ridges are denser than PIC-MAG's near-uniform counts: "
                      f"RECT-UNIFORM, which only sees area, still gives "
                      f"{100 * res['uniform'][-1]:.0f}% at {res['n'][-1]}^2 (resolution "
                      "table); " + sub)
        if meth in ("hier_relaxed", "jag_m_heur_probe"):
            reason = (f"cell granularity ({n * n / m9:.0f} cells per part); at "
                      f"{res['n'][-1]}^2 it gives "
                      f"{100 * res['relaxed' if meth == 'hier_relaxed' else 'probe'][-1]:.1f}%"
                      + (f" (m = {res['m'][0]})" if meth == "jag_m_heur_probe" else "")
                      + " (resolution table); " + sub)
        vs.add(within("Fig. 10 (Sec. 4.5)", f"{_name(meth)} LI, median over snapshots ({rng(v)})",
                      paper=paper, ours=float(np.median(v)), lo=lo, hi=hi, run=run9, fmt=pct,
                      reason_off=reason, tolerance=tol))
    order = se["paper_order_reproduced"]
    vs.add(Verdict("Fig. 10 (Sec. 4.5)",
                   "ordering PROBE <= RELAXED <= RB <= NICOL <= UNIFORM (medians)",
                   "holds", "holds" if order else "does not hold",
                   MATCH if order else DIFFERS, "exact ordering",
                   "" if order else "HIER-RELAXED above HIER-RB on the substitute; " + sub, run9))
    # Fig. 8: RELAXED erratic over snapshots
    rl, pr = _li(L9["hier_relaxed"]), _li(L9["jag_m_heur_probe"])
    spread = float(np.ptp(rl) / max(np.ptp(pr), 1e-9))
    vs.add(within("Fig. 8 (Sec. 4.3)", "HIER-RELAXED spread over snapshots / PROBE's spread",
                  paper="HIER-RELAXED highly unstable, PROBE stable", ours=spread, lo=2.0,
                  hi=math.inf, run=run9, fmt="{:.1f}x", reason_off=sub,
                  tolerance="ratio >= 2"))
    # Fig. 3 (Sec. 4.2)
    q = d["quality"].get("pic_like", {})
    mlist = sorted(int(x) for x in q)
    okm = [all(q[str(m)][h]["li_agg"] <= q[str(m)][p]["li_agg"] + 1e-12
               for h, p in (("jag_m_heur_probe", "jag_pq_heur"),))
           for m in mlist]
    qn = d["quality_n"]
    runq = f"pic_like {qn}x{qn} (t = 0), m = {', '.join(map(str, mlist))}"
    vs.add(Verdict("Fig. 3 (Sec. 4.2)",
                   "m-way heuristic (PROBE) <= PxQ-way (JAG-PQ-HEUR), share of m",
                   "always", f"{sum(okm)}/{len(okm)}", MATCH if all(okm) else DIFFERS,
                   "every m", "" if all(okm) else sub, runq))
    if "jag_m_opt_961" in d:
        o = d["jag_m_opt_961"]
        # measured: the same method and m on other data (the timing table's uniform 512x512)
        u961 = d.get("timing", {}).get("512", {}).get("jag_m_opt", {}).get("961")
        why3 = sub if u961 is None else (
            f"{sub}; the same call on uniform 512x512 gives {100 * u961['li']:.1f}% (the timing "
            "table): the gap follows the data")
        vs.add(within("Fig. 3 (Sec. 4.2)", "JAG-M-OPT LI at m = 961", paper="~1%",
                      ours=100 * o["opt"], lo=0.5, hi=1.5, run=o["run"], fmt=pct,
                      reason_off=why3, tolerance="1 +- 0.5 points"))
        vs.add(within("Fig. 3 (Sec. 4.2)", "JAG-M-HEUR-PROBE LI at m = 961", paper="~6%",
                      ours=100 * o["probe"], lo=5.0, hi=7.0, run=o["run"], fmt=pct,
                      reason_off=sub, tolerance="6 +- 1 point (17%)"))
    else:
        vs.add(Verdict("Fig. 3 (Sec. 4.2)", "JAG-M-OPT ~1% vs heuristics ~6% at m ~ 1000",
                       "1% / 6%",
                       "-", NOT_REGENERATED, reason="JAG-M-OPT at m = 961 is run in full mode "
                       "only (tens of seconds)", run="-"))
    # Figs. 6, 7 (Sec. 4.3), 11, 12 (Sec. 4.5)
    va = {k: v for k, v in d["variants"].items() if k != "uniform_diagnosis"}
    for key, dd in va.items():
        runv = f"{dd['class']} {dd['n']}x{dd['n']}, {dd['seeds']} seeds, m = " \
               f"{dd['m'][0]}..{dd['m'][-1]}"
        fig = "Fig. 6" if dd["class"] == "multipeak" else "Fig. 7"
        rb, rl = np.array(dd["li"]["hier_rb-load"]), np.array(dd["li"]["hier_relaxed-load"])
        wins = int(np.sum(rl < rb))
        lost = [m for m, x, y in zip(dd["m"], rl, rb) if x >= y]
        where = (f"RELAXED not ahead at m = {', '.join(map(str, lost))}; " if lost else "")
        # measured: where both variants sit on the lower bound, neither can be ahead
        lb = dd.get("lb", [])
        tied = [m for m, x, y, b in zip(dd["m"], rl, rb, lb)
                if m in lost and max(x, y) <= b + 1e-9 * max(1.0, b)]
        if tied:
            where += (f"at m = {', '.join(map(str, tied))} both reach the lower bound (a cell "
                      "heavier than the average part): neither can be ahead; ")
        why = (where + "faithful to the paper's rule (cut and part split minimise "
               "max(L1/x, L2/(q-x)); "
               "greedy per level: odd part counts on small shapes); the paper's instance sizes "
               "and data differ" + ("; quick: 128x128" if quick else ""))
        vs.add(Verdict(fig, "HIER-RELAXED < HIER-RB (both -LOAD), share of m", "every m shown",
                       f"{wins}/{len(rb)}", MATCH if wins == len(rb) else DIFFERS,
                       "every m", "" if wins == len(rb) else why, runv))
        for algo in ("hier_rb", "hier_relaxed"):
            means = {v: float(np.mean(dd["li"][f"{algo}-{v}"])) for v in _HVARS}
            best = min(means, key=means.get)
            ok = means["load"] <= min(means.values()) + 1e-12
            vs.add(Verdict(fig, f"{_name(algo)} best variant (lowest mean LI over m)", "-LOAD",
                           f"-{best.upper()} ("
                           + ", ".join(f"{k} {100 * x:.1f}%" for k, x in means.items()) + ")",
                           MATCH if ok else DIFFERS, "-LOAD lowest",
                           "" if ok else why, runv))
        g = [_spearman(dd["m"], dd["li"][f"hier_relaxed-{v}"]) for v in ("load", "dist")]
        okg = all(x > 0 for x in g)
        vs.add(Verdict(fig, "LI of RELAXED-LOAD and -DIST grows with m (rank corr.)", "grows",
                       f"{g[0]:.2f} / {g[1]:.2f}", MATCH if okg else DIFFERS, "both > 0",
                       "" if okg else why, runv))
    if "pic_like" in d["quality"]:
        wins = [min(("jag_m_heur_probe", "hier_rb", "hier_relaxed", "rect_nicol"),
                    key=lambda a: q[str(m)][a]["li_agg"]) == "hier_relaxed" for m in mlist]
        vs.add(Verdict("Fig. 11 (Sec. 4.5)", "HIER-RELAXED best heuristic, share of m",
                       "generally best", f"{sum(wins)}/{len(wins)}",
                       MATCH if sum(wins) * 2 > len(wins) else DIFFERS, "more than half of m",
                       "" if sum(wins) * 2 > len(wins) else sub, runq))
    mq = d["quality"].get("mesh_like", {})
    if mq:
        ms_ = sorted(int(x) for x in mq)
        hw = [min(mq[str(m)]["hier_rb"]["li_agg"], mq[str(m)]["hier_relaxed"]["li_agg"])
              <= min(mq[str(m)][a]["li_agg"] for a in ("rect_nicol", "jag_pq_heur",
                                                       "jag_m_heur_probe")) for m in ms_]
        rw = [mq[str(m)]["hier_relaxed"]["li_agg"] <= mq[str(m)]["hier_rb"]["li_agg"]
              for m in ms_]
        runm = f"mesh_like {qn}x{qn}, m = {', '.join(map(str, ms_))}"
        subm = "substitute data (mesh_like, not SLAC)" + small
        vs.add(Verdict("Fig. 12 (Sec. 4.5)", "hierarchical lowest LI, share of m", "always",
                       f"{sum(hw)}/{len(hw)}", MATCH if all(hw) else DIFFERS, "every m",
                       "" if all(hw) else subm, runm))
        vs.add(Verdict("Fig. 12 (Sec. 4.5)", "HIER-RELAXED <= HIER-RB, share of m", "always",
                       f"{sum(rw)}/{len(rw)}", MATCH if all(rw) else DIFFERS, "every m",
                       "" if all(rw) else subm, runm))
    st = d["stripes"]
    vs.add(within("Fig. 5 (Sec. 4.2)",
                  "rank correlation of JAG-M-HEUR's LI with the Thm 3 bound in P",
                  paper="LI follows the bound", ours=st["rank_corr"], lo=0.5, hi=1.0,
                  run=f"uniform {st['n']}x{st['n']}, m = {st['m']}", fmt="{:.2f}",
                  reason_off="the bound is loose at our sizes", tolerance=">= 0.5"))
    # Fig. 9 (Sec. 4.4): run time relative to HIER-RB (hardware independent)
    tm = d["timing"]["512"]
    hrb = PAPER_TIMES["hier_rb"]
    rel = {k: PAPER_TIMES[k] / hrb for k in (
        "jag_pq_heur", "jag_m_heur", "jag_m_heur_probe", "rect_nicol", "hier_relaxed",
        "jag_pq_opt_nicol", "jag_pq_opt_dp")}
    base = tm["hier_rb"]["10000"]["seconds"]
    for meth, pr in rel.items():
        if meth not in tm:
            vs.add(Verdict("Fig. 9 (Sec. 4.4)", f"{_name(meth)} time / HIER-RB time, m = 10^4",
                           f"{pr:.0f}x", "-", NOT_REGENERATED,
                           reason="quick mode skips it (about a minute)", run="-"))
            continue
        ours = tm[meth]["10000"]["seconds"] / base
        # the measured cause: how much faster than the paper each side of the ratio runs
        gain, gain_rb = PAPER_TIMES[meth] / tm[meth]["10000"]["seconds"], hrb / base
        f = gain / gain_rb
        why = (f"this method runs {gain:.0f}x faster than the paper's time, our HIER-RB "
               f"{gain_rb:.0f}x (the timing table), so the ratio is "
               + (f"{f:.1f}x smaller" if f >= 1 else f"{1 / f:.1f}x larger"))
        if meth == "rect_nicol":
            why += _FIG9_SCRATCH
        vs.add(near("Fig. 9 (Sec. 4.4)", f"{_name(meth)} time / HIER-RB time, m = 10^4",
                    paper=f"{pr:.0f}x", target=pr, ours=ours,
                    run="uniform 512x512 Delta 1.2, best core time", fmt="{:.1f}x",
                    reason_off=why))
    met = d["timing"].get("target_10x_met")
    vs.add(Verdict("Fig. 9 (Sec. 4.4)", "every algorithm >= 10x faster than the paper", "target",
                   "met" if met else "MISS", MATCH if met else DIFFERS, ">= 10x each",
                   "" if met else "some rows MISS (see the timing table)",
                   "uniform 512x512, m = 10^4"))
    nb = str(d["timing"].get("large_n", 4096))
    if d["timing"].get(nb):
        grow = {k: v["10000"]["seconds"] / tm[k]["10000"]["seconds"]
                for k, v in d["timing"][nb].items()}
        med = float(np.median(list(grow.values())))
        runb = f"uniform {nb}x{nb} and 512x512, m = 10^4, {len(grow)} algorithms"
        each = ", ".join(f"{_name(k)} {g:.1f}x" for k, g in sorted(grow.items(),
                                                                   key=lambda x: x[1]))
        dp = d["timing"].get("rect_nicol_dense_prefix")
        dense = ("" if not dp else
                 f"; RECT-NICOL runs on the nonzeros (n^2 here: {grow.get('rect_nicol', 0):.0f}x), "
                 f"on the dense prefix (starts='rows_uniform') {dp[nb] / dp['512']:.1f}x")
        if nb == "8192":
            vs.add(near("Fig. 9 (Sec. 4.4)",
                        "time growth 512^2 -> 8192^2 (median over algorithms)", paper="~10x",
                        target=10.0, ours=med, run=runb, fmt="{:.1f}x",
                        reason_off="measured per algorithm: " + each + dense))
        else:
            vs.add(Verdict("Fig. 9 (Sec. 4.4)",
                           "time growth 512^2 -> 8192^2 (median over algorithms)", "~10x",
                           f"{med:.1f}x for 512^2 -> {nb}^2", NOT_REGENERATED,
                           reason=f"this machine has under 12 GiB of memory, so the run stops "
                           f"at {nb}^2: a smaller jump than the paper's is not the same figure, "
                           "shown for information", run=runb))
    else:
        vs.add(Verdict("Fig. 9 (Sec. 4.4)", "time growth 512^2 -> 8192^2", "~10x", "-",
                       NOT_REGENERATED, reason="quick mode skips the large matrices", run="-"))
    # HYBRID (Sec. 5, Figs. 14, 16-19)
    hy = d["hybrid"]
    hn = hy["n"]
    for key, fig in (("7744", "Fig. 17"), ("6400", "Fig. 18")):
        f = hy["fixed"][key]
        m = hy["m"][key]
        runh = f"pic_like {hn}x{hn}, t = 10000, m = {m}"
        h, p, r = (f["hybrid_f"]["li"], f["jag_m_heur_probe"]["li"], f["hier_relaxed"]["li"])
        ours = f"HYBRID-F {100 * h:.1f}%, PROBE {100 * p:.1f}%, RELAXED {100 * r:.1f}%"
        if key == "7744":
            ok = h < min(p, r)
            vs.add(Verdict(fig, "HYBRID-F below JAG-M-HEUR-PROBE and HIER-RELAXED",
                           "improves both by a few %", ours, MATCH if ok else DIFFERS,
                           "below both", "" if ok else sub, runh))
        else:
            ok = r > h >= p
            vs.add(Verdict(fig, "HYBRID-F below HIER-RELAXED, not below PROBE",
                           "RELAXED > HYBRID >= PROBE", ours, MATCH if ok else DIFFERS,
                           "that ordering", "" if ok else sub, runh))
        plain = f["hybrid"]["li"]
        vs.add(within(fig, "plain HYBRID(JAG-M-HEUR/JAG-M-HEUR-PROBE) LI / HYBRID-F LI",
                      paper="HYBRID-F is the configuration shown", ours=plain / max(h, 1e-12),
                      lo=1.0, hi=math.inf, run=runh, fmt="{:.2f}x",
                      reason_off="the slow refinement made it worse", tolerance=">= 1"))
    f = hy["fixed"]["7744"]
    ratio = f["hybrid_f"]["seconds"] / max(f["jag_m_heur_probe"]["seconds"],
                                           f["hier_relaxed"]["seconds"], 1e-9)
    # the measured cause: HYBRID-F's phase 2 is JAG-M-OPT; how much faster than the paper our
    # JAG-M-OPT (m = 961) and JAG-M-HEUR-PROBE (m = 10^4) each run, at 512x512 (timing table)
    t512 = d["timing"]["512"]
    why19 = "our heuristics are relatively faster"
    if "961" in t512.get("jag_m_opt", {}) and "jag_m_heur_probe" in t512:
        g_opt = PAPER_TIMES["jag_m_opt"] / t512["jag_m_opt"]["961"]["seconds"]
        g_heu = PAPER_TIMES["jag_m_heur_probe"] / t512["jag_m_heur_probe"]["10000"]["seconds"]
        why19 = (f"our JAG-M-OPT, HYBRID-F's phase 2, runs {g_opt:.0f}x faster than the "
                 f"paper's (m = 961 at 512x512), our JAG-M-HEUR-PROBE {g_heu:.0f}x (the timing "
                 f"table): the paper's 100-1000x becomes {100 * g_heu / g_opt:.0f}-"
                 f"{1000 * g_heu / g_opt:.0f}x")
    vs.add(within("Fig. 19", "HYBRID-F time / slower heuristic's time", paper="2-3 orders slower",
                  ours=ratio, lo=100, hi=1000, run=f"pic_like {hn}x{hn}, m = {hy['m']['7744']}",
                  fmt="{:.0f}x", reason_off=why19 + small,
                  tolerance="10^2..10^3 (the paper's range)"))
    vs.add(Verdict("Fig. 19", "HYBRID-F 1-2 orders faster than JAG-M-OPT", "10-100x", "-",
                   NOT_REGENERATED, reason="JAG-M-OPT at m = 7744 on 514^2 exceeds the run's "
                   "budget (the paper ran it only up to m ~ 1000)", run="-"))
    sw = hy["sweep"]
    a, b, c = (np.array(sw[k]) for k in ("jag_m_heur_probe", "hier_relaxed", "hybrid_f"))
    runs = f"pic_like {hn}x{hn}, t = 10000, m = {', '.join(map(str, sw['m']))}"
    w1, w2 = int(np.sum(c < a)), int(np.sum(c < b))
    vs.add(Verdict("Fig. 16", "HYBRID-F below JAG-M-HEUR-PROBE, share of m", "usually",
                   f"{w1}/{len(c)}", MATCH if 2 * w1 > len(c) else DIFFERS, "more than half",
                   "" if 2 * w1 > len(c) else sub, runs))
    vs.add(Verdict("Fig. 16", "HYBRID-F below HIER-RELAXED, share of m", "often",
                   f"{w2}/{len(c)}", MATCH if 3 * w2 >= len(c) else DIFFERS, "a third or more",
                   "" if 3 * w2 >= len(c) else sub, runs))
    m1 = hy["m1"]
    vs.add(within("Fig. 14", "rank correlation of LI with ELI over m1 (JAG-M-OPT phase 2)",
                  paper="LI tracks ELI closely", ours=m1["spearman"], lo=0.5, hi=1.0,
                  run=f"pic_like {hn}x{hn}, m = {m1['m']}, m1 = {m1['m1'][0]}..{m1['m1'][-1]}",
                  fmt="{:.2f}", reason_off=sub, tolerance=">= 0.5"))
    return vs


# --------------------------------------------------------------------------------------------


def _pct_axis(ax: Any, log: bool) -> None:
    from matplotlib import ticker

    if log:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0,)))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}%"))


def figures(out_dir: Path, d: dict, quick: bool) -> dict[str, Path]:
    """Write the imbalance, series, variants and HYBRID figures; return their paths."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    colours = plt.get_cmap("tab10").colors
    out: dict[str, Path] = {}
    qd = d["quality"]
    algos = [a for a in ("rect_uniform", "rect_nicol", "jag_pq_heur", "jag_pq_opt_nicol",
                         "jag_m_heur", "jag_m_heur_probe", "hier_rb", "hier_relaxed",
                         "jag_m_opt")]
    styles = ["o", "s", "^", "v", "D", "P", "X", "*", "h"]
    ncls = len(qd)
    ncol = min(3, ncls)
    nrow = (ncls + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.7 * nrow), squeeze=False,
                             layout="constrained")
    qn = d["quality_n"]
    for ax, (cls, per_m) in zip(axes.flat, qd.items()):
        ms = sorted(int(m) for m in per_m)
        for i, meth in enumerate(algos):
            pts = [(m, max(100 * per_m[str(m)][meth]["li_agg"], 1e-3)) for m in ms
                   if meth in per_m[str(m)]]
            if pts:
                ax.plot(*zip(*pts), marker=styles[i], ms=4, color=colours[i],
                        label=_name(meth))
        lb = [(m, 100 * per_m[str(m)]["lb_gap"]) for m in ms
              if 100 * per_m[str(m)]["lb_gap"] >= 0.01]
        if lb:  # only where the bound is above T/m (a heavy cell); a marker, so that a
            # single point shows too (a lone dashed segment draws nothing)
            ax.plot(*zip(*lb), "k--", marker="x", ms=7, lw=1.5,
                    label="lower bound max(T/m, amax)")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        _pct_axis(ax, True)
        ax.set_title(f"{cls} {qn}x{qn}", fontsize="medium")
        ax.set_xlabel("parts m")
        ax.set_ylabel("load imbalance LI_agg (%)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[ncls:]:
        ax.axis("off")
    seen: dict = {}
    for ax in axes.flat:
        for hh, ll in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(ll, hh)
    fig.legend(list(seen.values()), list(seen), loc="outside right center", fontsize="small")
    fig.suptitle(f"Load imbalance against m ({'quick run' if quick else 'full run'})")
    out["imbalance"] = out_dir / "spatial_imbalance.png"
    fig.savefig(out["imbalance"], dpi=100)
    plt.close(fig)
    # series over snapshot iterations (Figs. 4, 8, 10)
    se = d["series"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.0), layout="constrained")
    for ax, key in zip(axes, ("6400", "9216")):
        its = se["iterations"]
        for i, (meth, v) in enumerate(se["li"][key].items()):
            ax.plot(its, _li(v), marker=styles[i], ms=3, color=colours[i], label=_name(meth))
        ax.xaxis.set_major_locator(ticker.MaxNLocator(nbins=6, integer=True))
        _pct_axis(ax, False)
        ax.set_xlabel("snapshot iteration")
        ax.set_ylabel("load imbalance LI (%)")
        ax.set_title(f"pic_like {se['n']}x{se['n']}, m = {se['m'][key]} "
                     f"(paper: PIC-MAG, m = {key})", fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)
    out["series"] = out_dir / "spatial_series.png"
    fig.savefig(out["series"], dpi=100)
    plt.close(fig)
    # variants
    va = {k: v for k, v in d["variants"].items() if k != "uniform_diagnosis"}
    fig, axes = plt.subplots(1, len(va), figsize=(6.2 * len(va), 5.4), squeeze=False,
                             layout="constrained")
    for ax, dd in zip(axes.flat, va.values()):
        for i, (k, v) in enumerate(dd["li"].items()):
            ax.plot(dd["m"], _li(v), marker=styles[i % 9], ms=4, color=colours[i % 10],
                    ls="-" if k.startswith("hier_relaxed") else ":", label=_name(k))
        lb = [(m, 100 * x) for m, x in zip(dd["m"], dd["lb"]) if 100 * x >= 0.01]
        if lb:
            ax.plot(*zip(*lb), "k--", marker="x", ms=7, lw=1.5, label="lower bound")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        _pct_axis(ax, True)
        ax.set_xlabel("parts m")
        ax.set_ylabel("LI_agg (%)")
        ax.set_title(f"{dd['class']} {dd['n']}x{dd['n']}, {dd['seeds']} seeds", fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)
    out["variants"] = out_dir / "spatial_variants.png"
    fig.savefig(out["variants"], dpi=100)
    plt.close(fig)
    # hybrid sweep and m1
    hy = d["hybrid"]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    sw = hy["sweep"]
    for i, k in enumerate(("jag_m_heur_probe", "hier_relaxed", "hybrid_f")):
        a1.plot(sw["m"], _li(sw[k]), marker=styles[i], color=colours[i], label=_name(k))
    a1.set_xlabel("parts m")
    a1.set_ylabel("LI (%)")
    _pct_axis(a1, False)
    a1.set_title(f"HYBRID-F against m, pic_like {hy['n']}x{hy['n']}, t = 10000",
                 fontsize="medium")
    a1.grid(True, alpha=0.3)
    a1.legend(fontsize="small")
    m1 = hy["m1"]
    a2.plot(m1["m1"], _li(m1["li"]), "o-", color=colours[0], label="LI")
    a2.plot(m1["m1"], _li(m1["eli"]), "s--", color=colours[1], label="ELI (expected)")
    a2.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    a2.set_xlabel("phase-1 parts m1")
    a2.set_ylabel("imbalance (%)")
    _pct_axis(a2, False)
    a2.set_title(f"HYBRID-F against m1, m = {m1['m']}", fontsize="medium")
    a2.grid(True, alpha=0.3)
    a2.legend(fontsize="small")
    out["hybrid"] = out_dir / "spatial_hybrid.png"
    fig.savefig(out["hybrid"], dpi=100)
    plt.close(fig)
    return out


def timed(name: str, fn: Any, progress: bool, idx: int, total: int, label: str) -> Any:
    """Run one step, printing a line before and after it to stderr when `progress`."""
    import sys

    if progress:
        print(f"[spatial {idx}/{total}] {name}: {label} ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    res = fn()
    if progress:
        print(f"[spatial {idx}/{total}] {name} done in {time.perf_counter() - t0:.1f} s",
              file=sys.stderr, flush=True)
    return res
