"""Table 2 of [Soldado 2016] (CPU+GPU shares on P2) and Figs. 8-9 (CPU+GPU over GPU-only),
judged on the full configuration search with a declared fit.

The simulated platform of a Table 2 input takes its GPU side (compute cost and PCIe link) from
the paper's GPU-only baseline, an input measurement that is not judged. Its one free CPU
parameter, the CPU cost per partition unit of the input, is **fitted on the 1-GPU row** (the
full search, every fission level and overlap 1..4, lands on the paper's 1-GPU share) and the
**2-GPU row is predicted** with that cost (the same CPU; only the GPU side changes). Each row
says which it is, and both counts are reported. The reverse fold (fit on the 2-GPU row,
predict the 1-GPU row) is measured too, so every row also has a prediction, and the ratio of
the two fitted CPU costs is the measured cause of a predicted row that misses. The full run also
measures, for each predicted row, the window of CPU-cost factors (on the 1-GPU fit) that lands
its search within 3 points: how many of those windows one factor can share bounds what any
CPU speed change with the GPU count (a host thread driving each GPU, memory contention from
the GPUs' transfers) could predict.

Each row's tolerance is the range of the shares of ``T2_REPEATS`` searches on the noisy
platform (its own noise draw per measurement), at least one partition unit and one step of
the share search (x_min = 1/1024, 0.1 points).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..multikernel import MK_DEFAULTS, build_profile
from ..multikernel.sim import TABLE2, calibrate_to_table2, simulate_run
from ._verdict import Verdict, within, MATCH, DIFFERS

__all__ = ["table2", "speedups", "T2_REPEATS", "OVERLAPS"]

_SIM = "simulated P2 (GPU side from Table 2's GPU-only baseline)"
#: GPU overlap factors searched (the spec's 1..4).
OVERLAPS = (1, 2, 3, 4)
#: Noisy repetitions of the full search per row: their spread is the row's tolerance.
T2_REPEATS = 5
#: The share search's resolution in points (its smallest transferable part, x_min).
_STEP = 100.0 * MK_DEFAULTS["x_min"]


def _profile(pl, cost, U, *, levels, overlaps, n_gpus, kb=None, sct="sct", precision=None,
             seed=None):
    """Algorithm 1 on the simulated platform. `seed` given: each measurement its own noise
    draw of that seed (none at sigma 0); else every measurement the draw of run 0, seed 0."""
    count = iter(range(1 << 30))

    def meas(f, o, w, s):
        r = simulate_run(pl, cost, U, s=s, fission=f or "L3", overlap=o,
                         seed=0 if seed is None else seed,
                         run=0 if seed is None else next(count))
        return r.T, r.T_gpu, r.T_cpu
    return build_profile(meas, sct_id=sct, workload=(U,), kb=kb, fission=levels,
                         overlaps=overlaps, n_gpus=n_gpus, precision=precision)


def _search(q, cost, U, G, overlaps=OVERLAPS):
    return _profile(q, cost, U, levels=q.levels(), overlaps=list(overlaps), n_gpus=G).profile


def _cfg(p) -> str:
    return f"{p.fission or '-'}/{p.overlap}"


def _same(cfg: str, share: float, paper_cfg: str) -> bool:
    """The searched configuration is the paper's; a paper's "-" (no CPU) is matched by any
    level at a share of 99.9 % or more (the level is then unused) and the same overlap."""
    f, o = cfg.split("/")
    pf, po = paper_cfg.split("/")
    return o == po and (f == pf or (pf == "-" and share >= 99.9))


def _searched(q, cost, U, G, c, memo):
    """The noise-free full search at CPU cost `c`, remembered in `memo` (cost -> profile;
    one memo per platform and cost)."""
    if c not in memo:
        memo[c] = _search(q, replace(cost, c_cpu=c), U, G)
    return memo[c]


def _fit_cpu(q, cost, U, G, target, iters, memo=None):
    """The CPU cost per unit whose noise-free full search lands nearest `target` (% GPU):
    bisection on log(cost) (the searched share grows with the CPU cost, by jumps where the
    picked configuration changes). Returns (cost, profile, bracket) with the bracket's two
    shares and configurations (the jump the fit could not cross, if any)."""
    memo = {} if memo is None else memo

    def at(c):
        p = _searched(q, cost, U, G, c, memo)
        return 100 * p.s, p
    lo, hi = cost.c_cpu / 8, cost.c_cpu * 8
    s_lo, p_lo = at(lo)
    for _ in range(6):
        if s_lo < target:
            break
        lo /= 8
        s_lo, p_lo = at(lo)
    s_hi, p_hi = at(hi)
    for _ in range(6):
        if s_hi >= target:
            break
        hi *= 8
        s_hi, p_hi = at(hi)
    for _ in range(iters):
        mid = math.sqrt(lo * hi)
        s, p = at(mid)
        if s < target:
            lo, s_lo, p_lo = mid, s, p
        else:
            hi, s_hi, p_hi = mid, s, p
    best = (lo, p_lo) if abs(s_lo - target) < abs(s_hi - target) else (hi, p_hi)
    return best[0], best[1], (s_lo, _cfg(p_lo), s_hi, _cfg(p_hi), hi / lo - 1)


def _crossing(q, cost, U, G, target, c_near, iters, memo):
    """(lo, hi): CPU costs per unit on either side of where the noise-free full search
    reaches `target` % GPU (share(lo) < target <= share(hi); hi / lo = 2 ** 2 ** -iters):
    bisection on log(cost) from a bracket of factor 2 at `c_near`, widened until it holds
    the crossing (the searched share grows with the cost, by jumps); lo = 0 when every cost
    reaches the target, hi = inf when none does."""
    def at(c):
        return 100 * _searched(q, cost, U, G, c, memo).s
    if at(c_near) >= target:
        lo, hi = c_near / 2, c_near
        for _ in range(12):
            if at(lo) < target:
                break
            lo, hi = lo / 2, lo
        else:
            return 0.0, lo
    else:
        lo, hi = c_near, c_near * 2
        for _ in range(12):
            if at(hi) >= target:
                break
            lo, hi = hi, hi * 2
        else:
            return hi, math.inf
    for _ in range(iters):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if at(mid) < target else (lo, mid)
    return lo, hi


def _window(q, cost, U, G, pct, c_near, c_ref, iters, memo=None):
    """(lo, hi): the factors on `c_ref` whose CPU cost lands this row's full search within 3
    points of the paper's share `pct`, i.e. the CPU speed change the row needs from the cost
    `c_ref` (widened to the outer ends of the bisection brackets, so that counts of rows a
    factor lands are upper bounds); `c_near` is a cost whose share is near `pct` (the row's
    own fit)."""
    memo = {} if memo is None else memo
    lo = _crossing(q, cost, U, G, pct - 3.0, c_near, iters, memo)[0]
    hi = _crossing(q, cost, U, G, pct + 3.0 + 1e-6, c_near, iters, memo)[1] \
        if pct + 3.0 < 99.9 else math.inf
    return lo / c_ref, hi / c_ref


def _most_covered(windows) -> int:
    """The most windows (lo, hi) one factor lies in (lo <= f < hi)."""
    edges = sorted({w[0] for w in windows})
    return max((sum(lo <= f < hi for lo, hi in windows) for f in edges), default=0)


def table2(*, quick: bool = False) -> tuple[list, list]:
    """Table 2 from the full search: 1-GPU rows fitted, 2-GPU rows predicted (and the reverse
    fold measured). Returns ``(rows, verdicts)``; each row holds the judged share, its
    configuration, the noisy shares, the tolerance, both fitted CPU costs and the share at
    the paper's own configuration (shown, not judged)."""
    reps = 3 if quick else T2_REPEATS
    iters = 8 if quick else 10
    # the CPU-cost windows of the predicted rows (full run only: ~1 CPU-s)
    windows, witers = not quick, 4
    keys = list(TABLE2)[::3] if quick else list(TABLE2)
    rows, vs = [], []
    for b, i in keys:
        plat, fits, memo = {}, {}, {}
        for G in (1, 2):
            pl, cost, U, entry = calibrate_to_table2(b, i, n_gpus=G)
            q = replace(pl, sigma=0.0)
            plat[G] = (pl, q, cost, U, entry)
            memo[G] = {}
            fits[G] = _fit_cpu(q, cost, U, G, min(entry[3], 99.9), iters, memo[G])
        for G in (1, 2):
            pl, q, cost, U, (T0, f, k, pct) = plat[G]
            role = "fitted" if G == 1 else "predicted"
            c_own, p_own, bracket = fits[G]
            c_other, p_other, _ = fits[3 - G]
            c = c_own if role == "fitted" else c_other
            p = p_own if role == "fitted" else _searched(q, cost, U, G, c, memo[G])
            alt = _searched(q, cost, U, G, c_other if role == "fitted" else c_own, memo[G])
            cst = replace(cost, c_cpu=c)
            noisy = [_profile(pl, cst, U, levels=q.levels(), overlaps=list(OVERLAPS),
                              n_gpus=G, seed=1 + r).profile for r in range(reps)]
            ns = [100 * x.s for x in noisy]
            unit = 100.0 / U
            # at least one partition unit and one step of the share search (x_min)
            tol = max(max(ns) - min(ns), unit, _STEP) + 1e-9
            at_paper = _profile(q, cst, U, levels=[f or "L3"], overlaps=[k], n_gpus=G,
                                precision=1e-3).profile
            gpu_only = simulate_run(q, cst, U, s=1.0, overlap=1).T
            no_ovl = _search(q, cst, U, G, overlaps=(1,))
            share = 100 * p.s
            # the CPU-cost factors (on the cost used) that would land this row within 3
            # points: what a GPU-count-dependent CPU effect would have to supply
            win = _window(q, cost, U, G, min(pct, 99.9), c_own, c, witers, memo[G]) \
                if windows and role == "predicted" else None
            rows.append({
                "benchmark": b, "input": i, "gpus": G, "role": role, "paper_share": pct,
                "paper_config": f"{f or '-'}/{k}", "full_share": share,
                "full_config": _cfg(p), "share": 100 * at_paper.s,
                "fitted_share": share if role == "fitted" else 100 * alt.s,
                "predicted_share": share if role == "predicted" else 100 * alt.s,
                "c_cpu": c, "c_cpu_own_fit": c_own, "c_cpu_other_fit": c_other,
                "noisy_shares": ns, "noisy_configs": [_cfg(x) for x in noisy],
                # each noisy search's pick, timed without noise (the noise's minimum would
                # bias the speedup up)
                "noisy_speedups": [gpu_only / simulate_run(
                    q, cst, U, s=x.s, fission=x.fission or "L3", overlap=x.overlap).T
                    for x in noisy],
                "within3_factor": None if win is None else
                [win[0], win[1] if math.isfinite(win[1]) else None],
                "tolerance": tol, "unit": unit, "gpu_only": gpu_only,
                "hybrid": p.best_time, "speedup": gpu_only / p.best_time,
                "speedup_overlap1": gpu_only / no_ovl.best_time,
                "settings_equal": _same(_cfg(p), share, f"{f or '-'}/{k}")})
            if role == "fitted":
                why = (f"fitted row, and no CPU cost lands the search nearer: CPU costs "
                       f"{100 * bracket[4]:.2g} % apart give {bracket[0]:.1f} % "
                       f"({bracket[1]}) and {bracket[2]:.1f} % ({bracket[3]}), on either "
                       f"side of the paper's share")
            else:
                why = (f"predicted with the CPU cost fitted on the 1-GPU row; fitting this "
                       f"row alone needs {c_own / c_other:.2f}x that cost"
                       + ("" if win is None else f", and only {_fmt_window(win)} that cost "
                          f"lands it within 3 points")
                       + " (the paper's two rows imply CPUs of different speeds; the model's "
                       "CPU does not depend on the GPU count)")
            vs.append(within(
                "Table 2", f"{b} {i} {G} GPU: GPU share % ({role}; search picks {_cfg(p)}, "
                f"paper {f or '-'}/{k})", paper=f"{pct:g}", ours=share, lo=pct - tol,
                hi=pct + tol, run=_SIM, fmt="{:.1f}",
                tolerance=f"+-{tol:.1f} points (range of {reps} noisy searches: "
                          f"{min(ns):.1f}-{max(ns):.1f}; at least one unit {unit:.2f} and one "
                          f"step {_STEP:.2f} of the share search)",
                reason_off=why))
    vs += _summary(rows, reps)
    return rows, vs


def _fmt_window(w) -> str:
    lo, hi = w[0], w[1]
    if hi is None or not math.isfinite(hi):
        return f"{lo:.2f}x or more of"
    return f"{lo:.2f}-{hi:.2f}x" + (" of" if hi > lo else " (none) of")


def count_verdict(figure: str, quantity: str, *, paper: str, target: int, ours: int,
                  per: list, run: str, reason: str, at_least: bool = False) -> Verdict:
    """A count (rows that agree with the paper) judged against our own spread: MATCH when
    `target` lies within the range of the counts of our repetitions and of `ours` (with
    `at_least`: when any of them reaches `target`), else DIFFERS with `reason`."""
    lo, hi = min(per + [ours]), max(per + [ours])
    ok = hi >= target if at_least else lo <= target <= hi
    tol = (f"{'reached by' if at_least else 'within'} the range of ours and {len(per)} noisy "
           f"repetitions: {lo}-{hi}")
    return Verdict(figure, quantity, paper, f"{ours}", MATCH if ok else DIFFERS, tol,
                   "" if ok else reason, run)


def _count_range(rows, pred, per_rep: bool = False):
    """(quiet count, min, max over the noisy repetitions) of rows where pred(paper, share);
    with `per_rep` the list of the repetitions' counts."""
    quiet = sum(pred(r["paper_share"], r["full_share"]) for r in rows)
    reps = len(rows[0]["noisy_shares"]) if rows else 0
    per = [sum(pred(r["paper_share"], r["noisy_shares"][j]) for r in rows) for j in range(reps)]
    if per_rep:
        return per
    return quiet, min(per or [quiet]), max(per or [quiet])


def _level_mix(cfgs) -> str:
    """Percent of each fission level among configurations ("-": no CPU left out)."""
    lv = [c.split("/")[0] for c in cfgs if not c.startswith("-")]
    return ", ".join(f"{f} {100 * lv.count(f) / len(lv):.0f} %" for f in sorted(set(lv))) \
        if lv else "-"


def _worst_ratio(rows) -> float:
    rs = [r["c_cpu_own_fit"] / r["c_cpu_other_fit"] for r in rows]
    return max(max(rs), 1 / min(rs)) if rs else 1.0


def _summary(rows: list, reps: int) -> list:
    n = len(rows)
    within3 = lambda p, s: abs(s - p) <= 3.0  # noqa: E731
    fit = [r for r in rows if r["role"] == "fitted"]
    pred = [r for r in rows if r["role"] == "predicted"]
    vs = []
    goal = math.ceil(25 * n / 30)
    q = _count_range(rows, within3)[0]
    n_fit = _count_range(fit, within3)[0]
    n_pred = _count_range(pred, within3)[0]
    rev = sum(abs(r["predicted_share"] - r["paper_share"]) <= 3 for r in fit)
    allfit = sum(abs(r["fitted_share"] - r["paper_share"]) <= 3 for r in rows)
    allpred = sum(abs(r["predicted_share"] - r["paper_share"]) <= 3 for r in rows)
    bound = ""
    if pred and all(r["within3_factor"] for r in pred):
        wins = [(r["within3_factor"][0], r["within3_factor"][1] or math.inf) for r in pred]
        one = _most_covered(wins)
        per_b = sum(_most_covered([w for w, r in zip(wins, pred) if r["benchmark"] == b])
                    for b in dict.fromkeys(r["benchmark"] for r in pred))
        bound = (". Nor can a CPU speed that depends on the GPU count (a host thread driving "
                 "each GPU, memory contention from the GPUs' transfers): measured from the "
                 "CPU-cost window that lands each predicted row within 3 points, one speed "
                 f"factor for 2 GPUs, of any size, lands at most {one}/{len(pred)} predicted "
                 f"rows, one factor per benchmark at most {per_b}/{len(pred)}, so at most "
                 f"{n_fit + per_b}/{n} rows with the fitted ones")
    vs.append(count_verdict(
        "Table 2", f"rows whose searched share is within 3 points of the paper's (of {n}: "
        f"{len(fit)} fitted, {len(pred)} predicted)", paper=f">= {goal} (goal)", target=goal,
        ours=q, per=_count_range(rows, within3, True), run=_SIM, at_least=True,
        reason=f"fitted rows {n_fit}/{len(fit)}, predicted rows {n_pred}/{len(pred)}: the "
               "paper's 1- and 2-GPU rows of one input imply CPU costs that differ by up to "
               f"{_worst_ratio(rows):.1f}x (measured by fitting each row alone), and one CPU "
               "per input cannot predict both" + bound))
    for what, m, sub, extra in (
            ("fitted rows (1 GPU)", n_fit, fit, f"every row fitted on itself: {allfit}/{n}"),
            ("predicted rows (2 GPUs, from the 1-GPU fit)", n_pred, pred,
             f"reverse fold (1-GPU rows predicted from the 2-GPU fit): {rev}/{len(fit)}; every "
             f"row predicted from the other: {allpred}/{n}")):
        k = len(sub)
        vs.append(count_verdict("Table 2", f"{what} within 3 points (of {k}; {extra})",
                                paper=f"{k}", target=k, ours=m,
                                per=_count_range(sub, within3, True), run=_SIM,
                                reason="the rows outside: " + ", ".join(
                                    f"{r['benchmark']} {r['input']} {r['full_share']:.1f} vs "
                                    f"{r['paper_share']:g}" for r in sub
                                    if abs(r['full_share'] - r['paper_share']) > 3)))
    eq = sum(r["settings_equal"] for r in rows)
    per = [sum(_same(r["noisy_configs"][j], r["noisy_shares"][j], r["paper_config"])
               for r in rows)
           for j in range(len(rows[0]["noisy_configs"]))] if rows else [eq]
    def parts(r):
        (f, o), (pf, po) = r["full_config"].split("/"), r["paper_config"].split("/")
        return f, o, pf, po
    off = [parts(r) for r in rows if not r["settings_equal"]]
    cpu = [r for r in rows if not r["paper_config"].startswith("-")]
    l1l2 = sum(o == po and {f, pf} <= {"L1", "L2"} for f, o, pf, po in off)
    ovl = sum(o != po for f, o, pf, po in off)
    l3 = sum(o == po and pf == "L3" for f, o, pf, po in off)
    vs.append(count_verdict(
        "Table 2", f"searched fission/overlap equal to the paper's (of {n})", paper=f"{n}",
        target=n, ours=eq, per=per, run=_SIM,
        reason=f"measured over the {len(off)} rows that differ: {l1l2} only by L1 <-> L2 (one "
               f"core each on P2, the same sub-device: the search keeps the first of a tie), "
               f"{ovl} by the overlap, {l3} pick a one-core level at the paper's overlap where "
               f"the paper has L3 (in the model the whole-CPU L3 device has no gain over "
               f"one-core sub-devices, only a smaller dispatch cost; the noise-free search "
               f"stops at L2 when L2 ties L1). Levels picked by the noisy searches: "
               f"{_level_mix([x for r in cpu for x in r['noisy_configs']])}; by the paper: "
               f"{_level_mix([r['paper_config'] for r in cpu])} (rows where the paper's CPU "
               f"works)"))
    return vs


def speedups(rows: list) -> list:
    """Figs. 8-9: CPU+GPU (the searched configuration) over GPU-only with overlap 1 (the
    paper's baseline as read); the tolerance is the range of each statistic over the noisy
    repetitions, the cause of a difference is measured by the ablation without overlap."""
    vs = []
    for G, (lo, hi, mean) in ((1, (1.11, 2.07, 1.72)), (2, (1.00, 1.88, 1.56))):
        # the paper's 1-GPU range leaves N-Body (1.00x) out, its 2-GPU range includes it
        sel = [r for r in rows if r["gpus"] == G and (G == 2 or r["benchmark"] != "nbody")]
        if not sel:
            continue
        sp = np.array([r["speedup"] for r in sel])
        noisy = np.array([r["noisy_speedups"] for r in sel])      # rows x repetitions
        o1 = np.array([r["speedup_overlap1"] for r in sel])
        role = "fitted" if G == 1 else "predicted"
        for what, f, target in (("min", np.min, lo), ("max", np.max, hi),
                                ("mean", np.mean, mean)):
            per = f(noisy, axis=0)
            tol = max(float(per.max() - per.min()), 0.01)
            vs.append(within(
                f"Fig. {7 + G}", f"CPU+{G} GPU / {G} GPU: {what} speedup ({role} shares)",
                paper=f"{target:.2f}x", ours=float(f(sp)), lo=target - tol, hi=target + tol,
                run=_SIM, fmt="{:.2f}",
                tolerance=f"+-{tol:.2f} (range over {noisy.shape[1]} noisy searches: "
                          f"{per.min():.2f}-{per.max():.2f})",
                reason_off=f"measured by ablation: the hybrid without overlap (overlap 1, "
                           f"as the GPU-only baseline) gives {float(f(o1)):.2f}x, so "
                           f"{float(f(sp)) - float(f(o1)):+.2f} comes from overlapping "
                           f"transfers; the rest from the fitted CPU cost (the GPU side is "
                           f"the paper's baseline)"))
    return vs
