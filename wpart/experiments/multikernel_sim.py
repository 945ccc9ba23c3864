"""The simulated figures of [Soldado 2016] (multi-kernel computations over CPUs and GPUs).

Each function returns ``(rows, verdicts)``: the measured rows (plain dicts, JSON-ready) and
:class:`~wpart.experiments._verdict.Verdict` rows beside the paper's numbers. They run the
decision code of :mod:`wpart.multikernel` (Algorithm 1, derivation, the detector, the
adaptive binary search) against the simulated platforms of
:mod:`wpart.multikernel.sim` (P1 and P2; Table 2 and Figs. 8-9 in
:mod:`~wpart.experiments.multikernel_table2`). Every tolerance is the spread of our own
repeated noisy runs, stated in the row. They are shared
by ``wpart reproduce multikernel`` and ``benchmarks/bench_multikernel.py``.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..multikernel import ImbalanceDetector, KnowledgeBase, balance_ratio
from ..multikernel.sim import (SimCost, best_share, calibrate_to_table2,
                                             paper_p1_cpu, simulate_run, simulate_runs)
from ._verdict import DIFFERS, MATCH, Verdict, within
from .multikernel_table2 import T2_REPEATS, _profile, count_verdict, speedups, table2

__all__ = ["table2", "speedups", "T2_REPEATS", "fission_p1", "tolerance", "derivation",
           "adaptation", "FISSION_P1", "TABLE3", "TABLE4"]


#: Sec. 3.3 (the paper's fission table, P1): (benchmark, input, best level, sub-devices,
#: time with fission, time without).
FISSION_P1 = [
    ("filter", "1024^2", "L3", 8, 8.5, 9.8), ("filter", "2048^2", "L2", 32, 22.0, 34.8),
    ("filter", "4096^2", "L2", 32, 65.1, 120.3), ("filter", "8192^2", "L2", 32, 222.8, 377.1),
    ("fft", "128MB", "L2", 32, 34.7, 103.7), ("fft", "256MB", "L2", 32, 56.5, 197.9),
    ("fft", "512MB", "L2", 32, 106.4, 423.8), ("nbody", "8192", "L2", 32, 35.8, 138.4),
    ("nbody", "16384", "L3", 8, 99.0, 284.0), ("nbody", "32768", "L2", 32, 383.4, 1116.2),
    ("nbody", "65536", "L2", 32, 1499.0, 4433.6), ("saxpy", "1M", "L2", 32, 2.2, 7.4),
    ("saxpy", "10M", "L2", 32, 23.9, 72.1), ("saxpy", "50M", "L2", 32, 102.9, 270.8),
    ("segmentation", "1MB", "L3", 8, 1.1, 2.2), ("segmentation", "8MB", "L3", 8, 4.3, 11.8),
    ("segmentation", "60MB", "L2", 32, 31.0, 61.5),
]


#: Noisy repetitions of the P1 fission search: their spread is the fission rows' tolerance.
F1_REPEATS = 5


def fission_p1(*, quick: bool = False) -> tuple[list, list]:
    """Sec. 3.3: CPU-only P1, the no-fission time calibrated to the paper's (the only fitted
    number of a row); the level Algorithm 1 picks and its speedup over no fission are
    predicted by the model. Tolerances: the range of each statistic over F1_REPEATS searches
    on the noisy platform (each pick timed without noise); a difference's cause is measured
    by the ablation without the cache-spill penalty (lambda = 0)."""
    from ..multikernel.sim import _bench_shape
    pl = replace(paper_p1_cpu(), sigma=0.0)
    noisy_pl = paper_p1_cpu()
    flat = replace(pl, lam=0.0)
    reps = 3 if quick else F1_REPEATS
    rows = []
    for b, i, lvl, n_sub, t_f, t_n in (FISSION_P1[::4] if quick else FISSION_P1):
        shp = _bench_shape(b, i)
        U = int(shp.pop("units"))
        shp.pop("sync", None)
        one = simulate_run(pl, SimCost(c_gpu=0.0, c_cpu=1.0, **shp), U, s=0.0, fission="NONE")
        cost = SimCost(c_gpu=0.0, c_cpu=(t_n - pl.alpha) / (one.T - pl.alpha), **shp)
        pb = _profile(pl, cost, U, levels=pl.levels(), overlaps=[1], n_gpus=0)
        t_none = simulate_run(pl, cost, U, s=0.0, fission="NONE").T
        noisy, noisy_lv = [], []
        for r in range(reps):
            f = _profile(noisy_pl, cost, U, levels=pl.levels(), overlaps=[1], n_gpus=0,
                         seed=1 + r).profile.fission or "NONE"
            noisy.append(t_none / simulate_run(pl, cost, U, s=0.0, fission=f).T)
            noisy_lv.append(f)
        fl = _profile(flat, cost, U, levels=pl.levels(), overlaps=[1], n_gpus=0).profile
        lv = pb.profile.fission or "NONE"
        C, cap = pl.fission[lv]
        w_sub = -(-U // C) * cost.ws
        rows.append({"benchmark": b, "input": i, "paper_level": lvl, "paper_speedup": t_n / t_f,
                     "level": pb.profile.fission, "time": pb.profile.best_time,
                     "time_none": t_none, "speedup": t_none / pb.profile.best_time,
                     "noisy_speedups": noisy, "noisy_levels": noisy_lv,
                     "speedup_no_spill": simulate_run(flat, cost, U, s=0.0, fission="NONE").T
                     / fl.best_time,
                     "spill": max(0.0, 1.0 - cap / w_sub) if w_sub > 0 else 0.0})
    sp = np.array([r["speedup"] for r in rows])
    nz = np.array([r["noisy_speedups"] for r in rows])       # rows x repetitions
    ab = np.array([r["speedup_no_spill"] for r in rows])
    run = f"simulated P1 (no-fission time fitted, fission predicted), {reps} noisy searches"
    vs = []
    for what, f, paper in (("min", np.min, 1.15), ("max", np.max, 3.98), ("mean", np.mean, 2.65)):
        per = f(nz, axis=0)
        tol = max(float(per.max() - per.min()), 0.01)
        vs.append(within(
            "Sec. 3.3 / Fig. 7", f"fission speedup: {what}", paper=f"{paper:.2f}",
            ours=float(f(sp)), lo=paper - tol, hi=paper + tol, run=run,
            tolerance=f"+-{tol:.2f} (range over {reps} noisy searches: {per.min():.2f}-"
                      f"{per.max():.2f})",
            reason_off=f"measured by ablation: without the cache-spill penalty (lambda = 0) "
                       f"the {what} is {float(f(ab)):.2f}x, so the simulated gain is the "
                       f"spill penalty removed, at most 1 + lambda = {1 + pl.lam:g}x; the "
                       f"paper's P1 also gains from NUMA placement, which the model lacks"))
    # the ranking of the benchmarks by their mean fission speedup, ours against the paper's
    benches = sorted({r["benchmark"] for r in rows})

    def by(key):
        return {b: float(np.mean([r[key] for r in rows if r["benchmark"] == b]))
                for b in benches}
    ours_by, paper_by, spill_by = by("speedup"), by("paper_speedup"), by("spill")
    flat_by = by("speedup_no_spill")
    rank_o = sorted(benches, key=lambda b: -ours_by[b])
    rank_p = sorted(benches, key=lambda b: -paper_by[b])
    ranks = [sorted(benches, key=lambda b, j=j: -np.mean(
        [r["noisy_speedups"][j] for r in rows if r["benchmark"] == b])) for j in range(reps)]
    n_same = sum(rk == rank_p for rk in ranks)
    same = rank_o == rank_p
    vs.append(Verdict(
        "Sec. 3.3 / Fig. 7", "benchmarks ranked by mean fission speedup",
        " > ".join(f"{b} {paper_by[b]:.2f}" for b in rank_p),
        " > ".join(f"{b} {ours_by[b]:.2f}" for b in rank_o), MATCH if same else DIFFERS,
        f"the same order (and in {n_same} of {reps} noisy searches)",
        "" if same else
        "measured cause: without the spill penalty (lambda = 0) every mean is "
        + ", ".join(f"{b} {flat_by[b]:.2f}" for b in rank_o)
        + "x, so the simulated gain is only the spill removed (at most "
        f"{1 + pl.lam:g}x); the fraction of a best-level sub-device's partition that still "
        "spills its cache is " + ", ".join(f"{b} {spill_by[b]:.2f}" for b in rank_o)
        + ": FFT's 1 MiB per unit overflows every sub-device at 128-512 MB, where the "
        "paper's P1 gains 2.99-3.98x from effects the model lacks (NUMA placement, bandwidth "
        "per domain)", "simulated P1"))
    agree = sum(r["level"] == r["paper_level"] for r in rows)
    per = [sum(r["noisy_levels"][j] == r["paper_level"] for r in rows) for j in range(reps)]
    n = len(rows)
    finer = sum(r["level"] != r["paper_level"] and r["level"] is not None
                and pl.fission[r["level"]][0] > pl.fission[r["paper_level"]][0] for r in rows)
    vs.append(count_verdict(
        "Sec. 3.3", f"best fission level = the paper's (of {n})", paper=f"{n}", target=n,
        ours=agree, per=per, run="simulated P1",
        reason=f"measured over the {n - agree} rows that differ: {finer} pick a finer level "
               f"than the paper's (their partitions still spill at the paper's level in the "
               f"model: its gain follows cache capacity only), {n - agree - finer} a coarser one "
               f"(they fit at every level, and a coarser level has the smaller dispatch cost); "
               f"the noisy searches' counts vary because fitting levels are nearly tied"))
    return rows, vs


#: Sec. 3.6 (the paper's Table 3): largest maxDev quiet over 500 runs.
TABLE3 = {("saxpy", "1M"): 0.885, ("saxpy", "10M"): 0.919, ("saxpy", "50M"): 0.874,
          ("segmentation", "1MB"): 0.979, ("segmentation", "8MB"): 0.863,
          ("segmentation", "60MB"): 0.832, ("filter", "2048^2"): 0.842,
          ("filter", "4096^2"): 0.855, ("filter", "8192^2"): 0.846, ("fft", "128MB"): 0.846,
          ("fft", "256MB"): 0.825, ("fft", "512MB"): 0.841}


#: Noise seeds of the Table 3 measurement: the spread of their results is the tolerance.
T3_SEEDS = 5
#: The noise of Table 3's ablation (the cause of a difference, measured with seed 0).
T3_ABLATION_SIGMA = 0.10


def tolerance(*, quick: bool = False, sigma: float = 0.02) -> tuple[list, list]:
    """Sec. 3.6: at each entry's profiled configuration (1 GPU), the largest maxDev on a
    0.005 grid with which `runs` back-to-back noisy runs never fire the detector; measured
    with T3_SEEDS noise seeds, whose spread is the verdicts' tolerance."""
    runs = 100 if quick else 500
    seeds = 3 if quick else T3_SEEDS
    grid = np.arange(0.700, 0.9951, 0.005)
    rows = []
    per_seed = []
    ablation = []   # seed 0 at the ablation's larger noise

    def quiet_of(pl, cost, U, pct, f, k, sd):
        devs = [simulate_run(pl, cost, U, s=pct / 100, fission=f or "L3", overlap=k, run=r,
                             seed=sd).device_times for r in range(runs)]
        quiet = 0.0
        for md in grid:
            d = ImbalanceDetector(max_dev=float(md))
            if not any(d.update(t)[0] for t in devs):
                quiet = float(md)
        return quiet, float(min(balance_ratio(t) for t in devs))
    for (b, i), paper in (list(TABLE3.items())[::4] if quick else TABLE3.items()):
        pl, cost, U, (T0, f, k, pct) = calibrate_to_table2(b, i, n_gpus=1, sigma=sigma)
        quiets = []
        for sd in range(seeds):
            quiet, ratio = quiet_of(pl, cost, U, pct, f, k, sd)
            quiets.append(quiet)
            if sd == 0:
                min_ratio = ratio
        ablation.append(quiet_of(replace(pl, sigma=T3_ABLATION_SIGMA), cost, U, pct, f, k,
                                 0)[0])
        rows.append({"benchmark": b, "input": i, "paper": paper, "max_dev": quiets[0],
                     "max_dev_seeds": quiets, "min_ratio": min_ratio,
                     "max_dev_ablation": ablation[-1]})
        per_seed.append(quiets)
    q = np.array(per_seed)                    # rows x seeds
    mins, means = q.min(axis=0), q.mean(axis=0)
    ab = np.array(ablation)
    why = (f"measured by ablation: the simulated noise is log-normal with sigma = {sigma}; "
           f"with sigma = {T3_ABLATION_SIGMA} (seed 0) the min / mean are {ab.min():.3f} / "
           f"{ab.mean():.3f}, so the paper's runs varied more than ours (time-sharing, caches)")
    run = f"simulated P2, {runs} runs x {seeds} noise seeds"
    vs = []
    for what, vals, paper, target in (("min over benchmarks", mins, "0.825", 0.825),
                                      ("mean over benchmarks", means, "0.861", 0.861)):
        tol = max(float(vals.max() - vals.min()), 0.005)
        vs.append(within("Table 3", f"largest quiet maxDev, {what}", paper=paper,
                         ours=float(vals[0]), lo=target - tol, hi=target + tol, run=run,
                         fmt="{:.3f}",
                         tolerance=f"+-{tol:.3f} (range over {seeds} noise seeds: "
                                   f"{vals.min():.3f}-{vals.max():.3f}; grid 0.005)",
                         reason_off=why))
    return rows, vs


#: Sec. 3.7 (the paper's Table 4, Filter Pipeline): image, width x height, profiled GPU %,
#: profiled time, persisted GPU %, time.
TABLE4 = [(0, (1024, 1024), 87.5, 1.10, None, None), (1, (4288, 2848), 92.8, 10.68, 93.5, 11.55),
          (2, (512, 512), 94.8, 0.53, 92.0, 0.61), (3, (8192, 8192), 93.8, 45.24, 91.6, 48.45),
          (4, (1800, 1125), 99.9, 1.90, 98.4, 1.95), (5, (2048, 2048), 92.7, 3.13, 94.3, 3.28),
          (6, (256, 512), 89.6, 0.43, 91.9, 0.44), (7, (1440, 900), 94.9, 1.35, 92.0, 1.33)]


def _filter_image(w: int, h: int, G: int = 1):
    """Filter Pipeline costs of a w x h image on P2 from the 2048^2 calibration: per line
    costs and bytes scale with the width, the partition unit is one line."""
    pl, c, U, _ = calibrate_to_table2("filter", "2048^2", n_gpus=G)
    r = w / 2048
    return pl, replace(c, c_gpu=c.c_gpu * r, c_cpu=c.c_cpu * r, b_in=c.b_in * r,
                       b_out=c.b_out * r, ws=c.ws * r), h


#: Noisy repetitions (seed offsets) of the derivation sequence and of the load step.
T4_REPEATS = 3
F12_REPEATS = 5


def _sequence(images, runs: int, seed_off: int) -> tuple[list, list]:
    """One Table 4 sequence: a base holding only Image 0's profile, profiling off, `runs`
    runs per image in order (maxDev 0.85), noise seeds img + seed_off; beside an independent
    profile construction of each image without noise (the same reference for every seed, so
    the spread is the sequence's own). Returns (rows, the GPU % of a profile construction of
    every image on the noisy platform, seed 1 + img + seed_off)."""
    with tempfile.TemporaryDirectory() as d:
        kb = KnowledgeBase(Path(d) / "kb.json", autosave=False)
        pl, cost, U = _filter_image(1024, 1024)
        levels, ovl = pl.levels(), [1, 2, 3, 4]
        _profile(pl, cost, U, levels=levels, overlaps=ovl, n_gpus=1, kb=kb, sct="filter")
        s0 = kb.lookup("filter", (U,)).s
        rows, prof = [], []
        for img, (w, h), *_ in images:
            pl, cost, U = _filter_image(w, h)
            ref = _profile(pl, cost, U, levels=levels, overlaps=ovl, n_gpus=1).profile
            prof.append(100 * _profile(pl, cost, U, levels=levels, overlaps=ovl, n_gpus=1,
                                       seed=1 + seed_off + img).profile.s)
            if img == 0:
                continue
            derived = kb.derive("filter", (U,), store=False).s
            r = simulate_runs(pl, cost, U, runs=runs, kb=kb, sct_id="filter", profiling=False,
                              seed=img + seed_off, max_dev=0.85, preset="paper")
            pers = kb.lookup("filter", (U,))
            rows.append({"image": img, "size": f"{w}x{h}", "image0": 100 * s0,
                         "profiled": 100 * ref.s,
                         "profiled_time": ref.best_time, "derived": 100 * derived,
                         "fired": int(r.fired.sum()), "lb_ops": r.stats["lb_ops"],
                         "persisted": 100 * pers.s, "time": pers.best_time,
                         "persisted_gap": 100 * (pers.s - ref.s),
                         "time_error": 100 * (pers.best_time / ref.best_time - 1)})
    return rows, prof


def derivation(*, quick: bool = False) -> tuple[list, list]:
    """Sec. 3.7: the Table 4 sequence (:func:`_sequence`), repeated with T4_REPEATS noise
    seeds; each verdict's tolerance is the range of its statistic over the repetitions."""
    runs = 30 if quick else 100
    reps = 2 if quick else T4_REPEATS
    images = TABLE4[:4] if quick else TABLE4
    seqs = [_sequence(images, runs, 1000 * j) for j in range(reps)]
    rows = seqs[0][0]
    run = f"simulated P2, Filter Pipeline, {runs} runs per image, {reps} noise seeds"
    stats = {
        "gap": [max(abs(r["persisted_gap"]) for r in rs) for rs, _ in seqs],
        "terr": [max(abs(r["time_error"]) for r in rs) for rs, _ in seqs],
        "ops": [max(r["lb_ops"] for r in rs) for rs, _ in seqs],
        "prof": [float(np.mean(p)) for _, p in seqs]}
    fired = [sum(r["fired"] for r in rs) for rs, _ in seqs]
    paper_fired = sum((16, 7, 5, 12, 6, 50, 30)[:len(rows)])
    pm = float(np.mean([TABLE4[img][2] for img, *_ in images]))
    g = max(rows, key=lambda r: abs(r["persisted_gap"]))
    t = max(rows, key=lambda r: abs(r["time_error"]))
    o = max(rows, key=lambda r: r["lb_ops"])

    def trace(r):
        return (f"Image {r['image']} ({r['size']}): derived {r['derived']:.1f} %, "
                f"{r['lb_ops']} balancing steps, persisted {r['persisted']:.1f} % against "
                f"profiled {r['profiled']:.1f} %, time {r['time']:.3g} against "
                f"{r['profiled_time']:.3g}")
    step = ("a balancing step moves the share by T_init = 1/16 or more and the episode ends "
            "at the first run judged balanced (ratio >= maxDev 0.85), so it stops where the "
            "split first looks balanced, not at the profiled optimum")
    vs = []
    for key, what, paper, target, floor, fmt, why in (
            ("gap", "persisted - profiled GPU share, max |points|", "2.9", 2.9, 0.1, "{:.1f}",
             f"measured worst case {trace(g)}; {step}"),
            ("terr", "time error of the persisted configuration, max %", "15.1 (Image 2)", 15.1,
             0.1, "{:.1f}", f"measured worst case {trace(t)}; {step}"),
            ("ops", "balancing operations per image, max", "10 (Image 7)", 10.0, 1.0, "{:.0f}",
             f"measured: our runs fired {fired[0]} times over the images (paper "
             f"{paper_fired} unbalanced runs), most at {trace(o)}; with the simulated noise "
             f"(sigma = 0.02) a split the detector judges balanced stays balanced"),
            ("prof", "profiled GPU share %, mean over the images", f"{pm:.1f}", pm, 0.1,
             "{:.1f}", "the simulated Filter Pipeline's CPU cost is Table 2's 2048^2 1-GPU "
             "row (77.8 %) scaled by width; the paper's Table 4 machine profiled 89.6-99.9 % "
             "on its GPU (its Table 4 and Table 2 disagree: 92.7 % against 77.8 % at 2048^2)")):
        v = np.array(stats[key], dtype=float)
        tol = max(float(v.max() - v.min()), floor)
        vs.append(within("Table 4", what, paper=paper, ours=float(v[0]), lo=target - tol,
                         hi=target + tol, run=run, fmt=fmt,
                         tolerance=f"+-{fmt.format(tol)} (range over {reps} noise seeds"
                                   f"{' of noisy profile constructions' if key == 'prof' else ''}"
                                   f": {fmt.format(v.min())}-{fmt.format(v.max())})",
                         reason_off=why))
    return rows, vs


def _load_step(runs: int, seed: int) -> dict:
    """One Fig. 12 trace (noise seed `seed`) and its measured phases."""
    pl, cost, U, _ = calibrate_to_table2("fft", "128MB", n_gpus=1)
    with tempfile.TemporaryDirectory() as d:
        kb = KnowledgeBase(Path(d) / "kb.json", autosave=False)
        _profile(pl, cost, U, levels=pl.levels(), overlaps=[1, 2, 3, 4], n_gpus=1, kb=kb,
                 sct="fft")
        p = kb.lookup("fft", (U,))
        r = simulate_runs(pl, cost, U, runs=runs, kb=kb, sct_id="fft", profiling=False,
                          cpu_avail=[(20, 60, 1 / 3)], seed=seed, preset="paper")
    s_opt, t_opt = best_share(pl, cost, U, fission=p.fission, overlap=p.overlap, cpu_avail=1/3)
    fired = np.nonzero(r.fired)[0]
    first = int(fired[fired >= 20][0]) if (fired >= 20).any() else None
    moved = np.nonzero(r.s[20:60] != r.s[19])[0]
    res = {"s": r.s.tolist(), "T": r.T.tolist(), "fired": r.fired.tolist(),
           "s_before": float(r.s[19]), "s_after": float(r.s[59]), "s_end": float(r.s[-1]),
           "detect_runs": None if first is None else first - 20 + 1,
           "s_opt_loaded": s_opt, "T_opt_loaded": t_opt,
           "T_run40": float(r.T[40]), "T_best_20_40": float(r.T[21:41].min()),
           "s_run80": float(r.s[80]) if runs > 80 else None,
           "lb_ops": r.stats["lb_ops"], "first_move": int(moved[0]) + 20 if moved.size else None}
    # shifting phase: the first same-direction moves after the step; then bisection moves
    d = np.diff(r.s[19:60])
    mv = d[d != 0]
    shift = int(np.argmax(np.sign(mv) != np.sign(mv[0]))) if mv.size and \
        (np.sign(mv) != np.sign(mv[0])).any() else int(mv.size)
    res["shift_runs"], res["bisect_runs"] = shift, int(mv.size - shift)
    res["fired_20_60"] = int(r.fired[20:60].sum())
    res["ratio_20"] = float(min(r.T_gpu[20], r.T_cpu[20]) / max(r.T_gpu[20], r.T_cpu[20]))
    return res


def _runs_list(v) -> str:
    return ", ".join("-" if not np.isfinite(x) else f"{x:.0f}" for x in v)


_F12_KEYS = ("shift_runs", "bisect_runs", "detect_runs", "s_before", "s_after", "T_run40",
             "T_opt_loaded", "s_opt_loaded", "fired_20_60", "lb_ops", "ratio_20")


def adaptation(*, quick: bool = False, runs: int = 100) -> tuple[dict, list]:
    """Sec. 3.8 / P-ADAPT-1: FFT 128 MB on P2 with 1 GPU, profiled, then the CPU's speed
    drops to 1/3 from run 20 to run 60 (two busy threads per core). The trace of noise seed
    0 is returned; F12_REPEATS seeds give each verdict's tolerance (their range)."""
    reps = 3 if quick else F12_REPEATS
    res = _load_step(runs, 0)
    more = [_load_step(runs, j) for j in range(1, reps)]
    res["repeats"] = [{k: x[k] for k in _F12_KEYS} for x in [res] + more]
    R = res["repeats"]

    def vals(key, f=lambda v: v):
        return np.array([np.nan if x[key] is None else f(x[key]) for x in R], dtype=float)

    def tol(v, floor=0.0):
        v = v[np.isfinite(v)]
        return max(float(v.max() - v.min()), floor) if v.size else floor

    run = f"simulated P2, FFT 128 MB, 1 GPU, {reps} noise seeds, the paper's rules"
    shift, bis, det = vals("shift_runs"), vals("bisect_runs"), vals("detect_runs")
    ratio = np.array([x["T_run40"] / x["T_opt_loaded"] for x in R])
    falls = [x["s_after"] > x["s_before"] for x in R]
    why_f = (f"measured: {res['fired_20_60']} of the 40 loaded runs fired, "
             f"{res['lb_ops']} balancing steps; GPU share {100 * res['s_before']:.1f} -> "
             f"{100 * res['s_after']:.1f} % against the loaded optimum "
             f"{100 * res['s_opt_loaded']:.1f} %")
    vs = []
    for what, v, paper, lo, hi, why in (
            ("shifting phase after the load step, runs", shift, "1-4", 1, 4,
             f"{why_f}; the search's first moves (T_init = 1/16, doubling) overshoot or stop "
             "after that many runs"),
            ("bisection phase, runs", bis, "a little over 10 (read as 10-13)", 10, 13,
             f"{why_f}; an episode ends at the first run the detector judges balanced "
             "(ratio >= maxDev 0.85), so the bisection stops once the split is within 15 %, "
             "where the paper's runs kept firing"),
            ("runs from the load step to detection, mean over the seeds", det,
             "3-4 on average", 3, 4,
             f"measured per seed: {_runs_list(det)} "
             f"runs; the balance ratio of the first loaded run is {res['ratio_20']:.2f} "
             "(maxDev 0.85) and the detector fires once its moving average (w = 0.10) of "
             "ratio / maxDev falls below 1, after that many runs")):
        ours = float(np.nanmean(v)) if "mean" in what else float(v[0])
        t = tol(v) / (2 if "mean" in what else 1)
        vs.append(within("Fig. 12", what, paper=paper, ours=ours, lo=lo - t, hi=hi + t,
                         run=run, fmt="{:.1f}" if "mean" in what else "{:.0f}",
                         tolerance=f"the paper's {lo}-{hi}, +-{t:.1f} (our spread over {reps} "
                                   f"seeds: {np.nanmin(v):.0f}-{np.nanmax(v):.0f}"
                                   f"{', halved for the mean' if 'mean' in what else ''})",
                         reason_off=why))
    vs.append(Verdict("Fig. 12", "CPU share after the load step falls", "falls (from 24.5 %)",
                      f"{100 * (1 - res['s_before']):.1f} -> {100 * (1 - res['s_after']):.1f} %",
                      MATCH if all(falls) else DIFFERS,
                      f"falls in every one of {reps} seeds (falls in {sum(falls)})",
                      "" if all(falls) else f"did not fall in {reps - sum(falls)} seeds; "
                      + why_f, run))
    t = max(tol(ratio), 0.005)
    vs.append(within(
        "Fig. 12", "time at run 40 / loaded optimum", paper="converged (~10 runs): 1",
        ours=float(ratio[0]), lo=1 - t, hi=1 + t, run=run, fmt="{:.3f}",
        tolerance=f"+-{t:.3f} (range over {reps} seeds: {ratio.min():.3f}-{ratio.max():.3f})",
        reason_off=f"measured: share at run 40 {100 * res['s'][40]:.1f} % against the loaded "
                   f"optimum {100 * res['s_opt_loaded']:.1f} %; the detector leaves a split "
                   f"whose device times are within 15 % (maxDev 0.85) alone"))
    return res, vs


def _fmt(rows: list, cols: list, title: str) -> str:
    from . import format_table

    def cell(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)
    return format_table([c for c, _ in cols], [[cell(r[k]) for _, k in cols] for r in rows],
                        title=title)


def run_all(*, quick: bool = False) -> tuple[dict, list, str]:
    """Every simulated figure: ``(doc, verdicts, text)`` (JSON-ready doc, Verdict rows, the
    printable tables)."""
    t2, v2 = table2(quick=quick)
    v2 += speedups(t2)
    f1, vf = fission_p1(quick=quick)
    tl, vt = tolerance(quick=quick)
    dv, vd = derivation(quick=quick)
    ad, va = adaptation(quick=quick)
    texts = [
        _fmt(t2, [("bench", "benchmark"), ("input", "input"), ("GPUs", "gpus"),
                  ("role", "role"), ("paper f/o", "paper_config"),
                  ("paper GPU%", "paper_share"), ("search f/o", "full_config"),
                  ("search GPU%", "full_share"), ("tol", "tolerance"),
                  ("fitted GPU%", "fitted_share"), ("predicted GPU%", "predicted_share"),
                  ("at paper f/o", "share"), ("GPU-only", "gpu_only"),
                  ("hybrid", "hybrid"), ("speedup", "speedup")],
             "Table 2 (simulated P2): Algorithm 1 over every level and overlap 1..4; the CPU "
             "cost per unit fitted on the 1-GPU row (role fitted), the 2-GPU row predicted with "
             "it; fitted/predicted GPU% give both folds; tol = range of the noisy searches"),
        _fmt(f1, [("bench", "benchmark"), ("input", "input"), ("paper level", "paper_level"),
                  ("paper speedup", "paper_speedup"), ("ours level", "level"),
                  ("ours speedup", "speedup")],
             "Sec. 3.3 (simulated P1): fission vs none"),
        _fmt(tl, [("bench", "benchmark"), ("input", "input"), ("paper maxDev", "paper"),
                  ("ours maxDev", "max_dev"), ("min ratio", "min_ratio")],
             "Table 3 (simulated P2, 1 GPU): largest maxDev without balancing"),
        _fmt(dv, [("image", "image"), ("size", "size"), ("profiled GPU%", "profiled"),
                  ("derived GPU%", "derived"), ("unbalanced", "fired"), ("LB ops", "lb_ops"),
                  ("persisted GPU%", "persisted"), ("gap pts", "persisted_gap"),
                  ("time err %", "time_error")],
             "Table 4 (simulated P2, Filter Pipeline): derivation vs profile construction"),
        "Fig. 12 (simulated P2, FFT 128 MB, CPU at 1/3 from run 20 to 60, the paper's rules: "
        "DecisionLoop(preset='paper')): detection after "
        f"{ad['detect_runs']} runs, GPU share {100 * ad['s_before']:.1f}% -> "
        f"{100 * ad['s_after']:.1f}% (loaded optimum {100 * ad['s_opt_loaded']:.1f}%), "
        f"time at run 40 {ad['T_run40']:.3g} vs loaded optimum {ad['T_opt_loaded']:.3g}, "
        f"GPU share at run 80 {100 * ad['s'][80]:.1f}%, {ad['lb_ops']} balancing steps",
    ]
    doc = {"table2": t2, "fission_p1": f1, "tolerance": tl, "derivation": dv,
           "adaptation": ad}
    return doc, v2 + vf + vt + vd + va, "\n\n".join(texts)
