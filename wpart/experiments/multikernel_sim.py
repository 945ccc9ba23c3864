"""The simulated figures of [Soldado 2016] (multi-kernel computations over CPUs and GPUs).

Each function returns ``(rows, verdicts)``: the measured rows (plain dicts, JSON-ready) and
:class:`~wpart.experiments._verdict.Verdict` rows beside the paper's numbers. They run the
decision code of :mod:`wpart.multikernel` (Algorithm 1, derivation, the detector, the
adaptive binary search) against the simulated platforms of
:mod:`wpart.multikernel.sim` (P1 and P2, calibrated to Table 2), and are shared
by ``wpart reproduce multikernel`` and ``benchmarks/bench_multikernel.py``.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..multikernel import ImbalanceDetector, KnowledgeBase, balance_ratio, build_profile
from ..multikernel.sim import (TABLE2, SimCost, best_share, calibrate_to_table2,
                                             paper_p1_cpu, simulate_run, simulate_runs)
from ._verdict import DIFFERS, MATCH, Verdict, near, within

__all__ = ["table2", "speedups", "fission_p1", "tolerance", "derivation", "adaptation",
           "FISSION_P1", "TABLE3", "TABLE4"]

_SIM = "simulated P2 (calibrated to Table 2)"


def _profile(pl, cost, U, *, levels, overlaps, n_gpus, kb=None, sct="sct", precision=None,
             seed=None):
    # seed given: each measurement its own noise draw of that seed (none at sigma 0); else
    # every measurement the draw of run 0 of seed 0
    count = iter(range(1 << 30))

    def meas(f, o, w, s):
        r = simulate_run(pl, cost, U, s=s, fission=f or "L3", overlap=o,
                         seed=0 if seed is None else seed,
                         run=0 if seed is None else next(count))
        return r.T, r.T_gpu, r.T_cpu
    return build_profile(meas, sct_id=sct, workload=(U,), kb=kb, fission=levels,
                         overlaps=overlaps, n_gpus=n_gpus, precision=precision)


#: Noisy repetitions of the full configuration search per Table 2 row: their spread of
#: GPU shares is the row's tolerance (at least one partition unit, and 0.05 points).
T2_REPEATS = 5


def table2(quick: bool = False) -> tuple[list, list]:
    """Table 2: the configuration and share Algorithm 1 picks when it searches every fission
    level and overlap 1..4 (the verdict), beside the share it finds under the paper's profiled
    fission/overlap (the calibration point, shown, not judged). Each row's tolerance is the
    range of the shares of T2_REPEATS searches on the noisy platform (different noise
    seeds), at least one partition unit and half the shown resolution (0.05 points)."""
    rows, vs = [], []
    reps = 3 if quick else T2_REPEATS
    keys = list(TABLE2)[::3] if quick else list(TABLE2)
    for b, i in keys:
        for G in (1, 2):
            pl, cost, U, (T0, f, k, pct) = calibrate_to_table2(b, i, n_gpus=G)
            q = replace(pl, sigma=0.0)
            fixed = _profile(q, cost, U, levels=[f or "L3"], overlaps=[k], n_gpus=G,
                             precision=1e-3).profile
            full = _profile(q, cost, U, levels=q.levels(), overlaps=[1, 2, 3, 4],
                            n_gpus=G).profile
            noisy = [100 * _profile(pl, cost, U, levels=q.levels(), overlaps=[1, 2, 3, 4],
                                    n_gpus=G, seed=1 + r).profile.s for r in range(reps)]
            unit = 100.0 / U
            tol = max(max(noisy) - min(noisy), unit, 0.05)  # 0.05: half the shown 0.1
            gpu_only = simulate_run(q, cost, U, s=1.0, overlap=1).T
            gpu_best = min(simulate_run(q, cost, U, s=1.0, overlap=o).T for o in (1, 2, 3, 4))
            rows.append({"benchmark": b, "input": i, "gpus": G, "paper_share": pct,
                         "paper_config": f"{f or '-'}/{k}", "share": 100 * fixed.s,
                         "full_share": 100 * full.s,
                         "full_config": f"{full.fission or '-'}/{full.overlap}",
                         "gpu_only": gpu_only, "gpu_only_overlap": gpu_best,
                         "hybrid": full.best_time, "speedup": gpu_only / full.best_time,
                         "speedup_vs_overlap": gpu_best / full.best_time,
                         "noisy_shares": noisy, "tolerance": tol})
            picked = f"{full.fission or '-'}/{full.overlap}"
            vs.append(within("Table 2", f"{b} {i} {G} GPU: GPU share % (full search, picks "
                             f"{picked}; paper {f or '-'}/{k})",
                             paper=f"{pct:g}", ours=100 * full.s, lo=pct - tol, hi=pct + tol,
                             run=_SIM, fmt="{:.1f}",
                             tolerance=f"+-{tol:.1f} points (range of {reps} noisy searches: "
                                       f"{min(noisy):.1f}-{max(noisy):.1f}; one unit "
                                       f"{unit:.2f})",
                             reason_off="the simulated CPU cost is fitted at the paper's own "
                                        "fission/overlap, so the search can prefer another "
                                        "configuration whose balance point differs"))
    n3 = sum(abs(r["full_share"] - r["paper_share"]) <= 3 for r in rows)
    vs.append(within("Table 2", f"rows whose searched GPU share is within 3 points of the "
                     f"paper's (of {len(rows)})", paper=f">= {0.83 * len(rows):.0f} (goal)",
                     ours=float(n3), lo=0.83 * len(rows), hi=float(len(rows)), run=_SIM,
                     fmt="{:.0f}", tolerance="the goal of 25 of 30",
                     reason_off="the calibration fixes one cost per benchmark at the paper's "
                                "configuration; other fission levels are modelled, not fitted"))
    return rows, vs


def speedups(rows: list) -> list:
    """Figs. 8-9: CPU+GPU over GPU-only (overlap 1, the paper's baseline as read)."""
    vs = []
    for G, (lo, hi, mean) in ((1, (1.11, 2.07, 1.72)), (2, (1.00, 1.88, 1.56))):
        # the paper's 1-GPU range leaves N-Body (1.00x) out, its 2-GPU range includes it
        sp = np.array([r["speedup"] for r in rows if r["gpus"] == G
                       and (G == 2 or r["benchmark"] != "nbody")])
        if sp.size == 0:
            continue
        why = ("the GPU-only baseline has no overlap, so the simulated hybrid also gains the "
               "overlap of transfers (capped at 30 % of the GPU-only time by the calibration, "
               "a free parameter: the paper's link speed is not known)")
        vs.append(within(f"Fig. {7 + G}", f"CPU+{G} GPU / {G} GPU: min speedup",
                         paper=f"{lo:.2f}x", ours=float(sp.min()), lo=lo * 0.8, hi=lo * 1.2,
                         run=_SIM, fmt="{:.2f}", reason_off=why))
        vs.append(within(f"Fig. {7 + G}", f"CPU+{G} GPU / {G} GPU: max speedup",
                         paper=f"{hi:.2f}x", ours=float(sp.max()), lo=hi * 0.8, hi=hi * 1.2,
                         run=_SIM, fmt="{:.2f}", reason_off=why))
        vs.append(near(f"Fig. {7 + G}", f"CPU+{G} GPU / {G} GPU: mean speedup",
                       paper=f"{mean:.2f}x", target=mean, ours=float(sp.mean()), run=_SIM,
                       reason_off=why))
    return vs


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


def fission_p1(quick: bool = False) -> tuple[list, list]:
    """Sec. 3.3: CPU-only P1, the no-fission time calibrated to the paper's; the best level
    Algorithm 1 picks and its speedup over no fission."""
    from ..multikernel.sim import _bench_shape
    pl = replace(paper_p1_cpu(), sigma=0.0)
    rows = []
    for b, i, lvl, n_sub, t_f, t_n in (FISSION_P1[::4] if quick else FISSION_P1):
        shp = _bench_shape(b, i)
        U = int(shp.pop("units"))
        shp.pop("sync", None)
        one = simulate_run(pl, SimCost(c_gpu=0.0, c_cpu=1.0, **shp), U, s=0.0, fission="NONE")
        cost = SimCost(c_gpu=0.0, c_cpu=(t_n - pl.alpha) / (one.T - pl.alpha), **shp)
        pb = _profile(pl, cost, U, levels=pl.levels(), overlaps=[1], n_gpus=0)
        t_none = simulate_run(pl, cost, U, s=0.0, fission="NONE").T
        rows.append({"benchmark": b, "input": i, "paper_level": lvl, "paper_speedup": t_n / t_f,
                     "level": pb.profile.fission, "time": pb.profile.best_time,
                     "time_none": t_none, "speedup": t_none / pb.profile.best_time})
    sp = np.array([r["speedup"] for r in rows])
    why = ("one cache-spill penalty (lambda = 2) for every kernel: the simulated speedup is "
           "at most 3x and the same for every benchmark that spills")
    vs = [within("Sec. 3.3 / Fig. 7", "fission speedup: min", paper="1.15", ours=float(sp.min()),
                 lo=0.92, hi=1.38, run="simulated P1", reason_off=why),
          within("Sec. 3.3 / Fig. 7", "fission speedup: max", paper="3.98", ours=float(sp.max()),
                 lo=3.18, hi=4.78, run="simulated P1", reason_off=why),
          near("Sec. 3.3 / Fig. 7", "fission speedup: mean", paper="2.65", target=2.65,
               ours=float(sp.mean()), run="simulated P1", reason_off=why)]
    # the ranking of the benchmarks by their mean fission speedup, ours against the paper's
    benches = sorted({r["benchmark"] for r in rows})
    ours_by = {b: float(np.mean([r["speedup"] for r in rows if r["benchmark"] == b]))
               for b in benches}
    paper_by = {b: float(np.mean([r["paper_speedup"] for r in rows if r["benchmark"] == b]))
                for b in benches}
    rank_o = sorted(benches, key=lambda b: -ours_by[b])
    rank_p = sorted(benches, key=lambda b: -paper_by[b])
    same = rank_o == rank_p
    vs.append(Verdict(
        "Sec. 3.3 / Fig. 7", "benchmarks ranked by mean fission speedup",
        " > ".join(f"{b} {paper_by[b]:.2f}" for b in rank_p),
        " > ".join(f"{b} {ours_by[b]:.2f}" for b in rank_o), MATCH if same else DIFFERS,
        "the same order",
        "" if same else
        "measured cause: the simulated gain is only the cache-spill penalty removed (at "
        "most 1 + lambda = 3x, reached by every row whose sub-device partitions fit their "
        "cache: 2.8-3.0x); FFT's working set (1 MiB per unit, 128-512 MB inputs) still "
        "spills every sub-device's cache, so fission removes no penalty (1.04-1.20x, "
        f"ours {ours_by.get('fft', float('nan')):.2f} mean), where the paper's P1 gains "
        "2.99-3.98x from effects the model lacks (NUMA placement, bandwidth per domain)",
        "simulated P1"))
    agree = sum(r["level"] == r["paper_level"] for r in rows)
    vs.append(Verdict("Sec. 3.3", "best fission level = the paper's", f"{len(rows)}/{len(rows)}",
                      f"{agree}/{len(rows)}", MATCH if agree == len(rows) else DIFFERS,
                      "every row", "" if agree == len(rows) else
                      "the cache model sees only capacity; the paper's choices between L2 and "
                      "L3 also follow NUMA and bandwidth effects the model lacks",
                      "simulated P1"))
    return rows, vs


#: Sec. 3.6 (the paper's Table 3): largest maxDev quiet over 500 runs.
TABLE3 = {("saxpy", "1M"): 0.885, ("saxpy", "10M"): 0.919, ("saxpy", "50M"): 0.874,
          ("segmentation", "1MB"): 0.979, ("segmentation", "8MB"): 0.863,
          ("segmentation", "60MB"): 0.832, ("filter", "2048^2"): 0.842,
          ("filter", "4096^2"): 0.855, ("filter", "8192^2"): 0.846, ("fft", "128MB"): 0.846,
          ("fft", "256MB"): 0.825, ("fft", "512MB"): 0.841}


#: Noise seeds of the Table 3 measurement: the spread of their results is the tolerance.
T3_SEEDS = 5


def tolerance(quick: bool = False, *, sigma: float = 0.02) -> tuple[list, list]:
    """Sec. 3.6: at each entry's profiled configuration (1 GPU), the largest maxDev on a
    0.005 grid with which `runs` back-to-back noisy runs never fire the detector; measured
    with T3_SEEDS noise seeds, whose spread is the verdicts' tolerance."""
    runs = 100 if quick else 500
    seeds = 3 if quick else T3_SEEDS
    grid = np.arange(0.700, 0.9951, 0.005)
    rows = []
    per_seed = []
    for (b, i), paper in (list(TABLE3.items())[::4] if quick else TABLE3.items()):
        pl, cost, U, (T0, f, k, pct) = calibrate_to_table2(b, i, n_gpus=1, sigma=sigma)
        quiets = []
        for sd in range(seeds):
            devs = [simulate_run(pl, cost, U, s=pct / 100, fission=f or "L3", overlap=k, run=r,
                                 seed=sd).device_times for r in range(runs)]
            quiet = 0.0
            for md in grid:
                d = ImbalanceDetector(max_dev=float(md))
                if not any(d.update(t)[0] for t in devs):
                    quiet = float(md)
            quiets.append(quiet)
            if sd == 0:
                min_ratio = float(min(balance_ratio(t) for t in devs))
        rows.append({"benchmark": b, "input": i, "paper": paper, "max_dev": quiets[0],
                     "max_dev_seeds": quiets, "min_ratio": min_ratio})
        per_seed.append(quiets)
    q = np.array(per_seed)                    # rows x seeds
    mins, means = q.min(axis=0), q.mean(axis=0)
    why = (f"simulated noise is log-normal with sigma = {sigma} around a balanced split; the "
           "paper's runs also vary by their time-sharing and caches")
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


def derivation(quick: bool = False) -> tuple[list, list]:
    """Sec. 3.7: a base holding only Image 0's profile, profiling off, 100 runs per image
    in order (maxDev 0.85); against an independent profile construction of each image."""
    runs = 30 if quick else 100
    with tempfile.TemporaryDirectory() as d:
        kb = KnowledgeBase(Path(d) / "kb.json", autosave=False)
        pl, cost, U = _filter_image(1024, 1024)
        levels, ovl = pl.levels(), [1, 2, 3, 4]
        _profile(pl, cost, U, levels=levels, overlaps=ovl, n_gpus=1, kb=kb, sct="filter")
        s0 = kb.lookup("filter", (U,)).s
        rows = []
        prof_seeds: list = []   # per image: the profiled GPU % of 3 noisy profile builds
        paper_prof: list = []
        for img, (w, h), *_ in (TABLE4[:4] if quick else TABLE4):
            pl, cost, U = _filter_image(w, h)
            ref = _profile(pl, cost, U, levels=levels, overlaps=ovl, n_gpus=1).profile
            prof_seeds.append([100 * _profile(pl, cost, U, levels=levels, overlaps=ovl,
                                              n_gpus=1, seed=sd).profile.s
                               for sd in range(1, 4)])
            paper_prof.append(TABLE4[img][2])
            if img == 0:
                continue
            derived = kb.derive("filter", (U,), store=False).s
            r = simulate_runs(pl, cost, U, runs=runs, kb=kb, sct_id="filter", profiling=False,
                              seed=img, max_dev=0.85)
            pers = kb.lookup("filter", (U,))
            rows.append({"image": img, "size": f"{w}x{h}", "image0": 100 * s0,
                         "profiled": 100 * ref.s,
                         "profiled_time": ref.best_time, "derived": 100 * derived,
                         "fired": int(r.fired.sum()), "lb_ops": r.stats["lb_ops"],
                         "persisted": 100 * pers.s, "time": pers.best_time,
                         "persisted_gap": 100 * (pers.s - ref.s),
                         "time_error": 100 * (pers.best_time / ref.best_time - 1)})
    gap = max(abs(r["persisted_gap"]) for r in rows)
    terr = max(abs(r["time_error"]) for r in rows)
    ops = max(r["lb_ops"] for r in rows)
    run = f"simulated P2, Filter Pipeline, {runs} runs per image"
    why = "simulated images scale the 2048^2 calibration by width; ALGLIB's RBF settings unknown"
    vs = [within("Table 4", "persisted - profiled GPU share, max |points|", paper="2.9",
                 ours=gap, lo=0.0, hi=3.0, run=run, fmt="{:.1f}", reason_off=why),
          within("Table 4", "time error of the persisted configuration, max %",
                 paper="< 5 % from Image 4 (max 15.1 %)", ours=terr, lo=0.0, hi=15.1, run=run,
                 fmt="{:.1f}", reason_off=why),
          within("Table 4", "balancing operations per image, max", paper="10 (Image 7)",
                 ours=float(ops), lo=0, hi=10, run=run, fmt="{:.0f}", reason_off=why)]
    # the profiled GPU shares themselves, mean over the images, against the paper's: the
    # tolerance is the range of that mean over 3 noisy profile builds
    means = np.array(prof_seeds).mean(axis=0)
    tol = max(float(means.max() - means.min()), 0.1)
    pm = float(np.mean(paper_prof))
    vs.append(within("Table 4", "profiled GPU share %, mean over the images", paper=f"{pm:.1f}",
                     ours=float(means[0]), lo=pm - tol, hi=pm + tol, run=run, fmt="{:.1f}",
                     tolerance=f"+-{tol:.1f} points (range over 3 noisy profile builds: "
                               f"{means.min():.1f}-{means.max():.1f})",
                     reason_off="the simulated Filter Pipeline is calibrated on one Table 2 "
                                "row (2048^2, 77.8 %); the paper's Table 4 machine profiled "
                                "89.6-99.9 % on its GPU"))
    return rows, vs


def adaptation(quick: bool = False, *, runs: int = 100) -> tuple[dict, list]:
    """Sec. 3.8 / P-ADAPT-1: FFT 128 MB on P2 with 1 GPU, profiled, then the CPU's speed
    drops to 1/3 from run 20 to run 60 (two busy threads per core)."""
    pl, cost, U, _ = calibrate_to_table2("fft", "128MB", n_gpus=1)
    with tempfile.TemporaryDirectory() as d:
        kb = KnowledgeBase(Path(d) / "kb.json", autosave=False)
        _profile(pl, cost, U, levels=pl.levels(), overlaps=[1, 2, 3, 4], n_gpus=1, kb=kb,
                 sct="fft")
        p = kb.lookup("fft", (U,))
        r = simulate_runs(pl, cost, U, runs=runs, kb=kb, sct_id="fft", profiling=False,
                          cpu_avail=[(20, 60, 1 / 3)])
    s_opt, t_opt = best_share(pl, cost, U, fission=p.fission, overlap=p.overlap, cpu_avail=1/3)
    fired = np.nonzero(r.fired)[0]
    first = int(fired[fired >= 20][0]) if (fired >= 20).any() else None
    moved = np.nonzero(r.s[20:60] != r.s[19])[0]
    # the shifting phase: runs while the share keeps moving one way; then bisection
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
    run = "simulated P2, FFT 128 MB, 1 GPU"
    vs = [within("Fig. 12", "shifting phase after the load step, runs", paper="1-4",
                 ours=float(shift), lo=1, hi=4, run=run, fmt="{:.0f}",
                 reason_off="detector and search constants"),
          within("Fig. 12", "bisection phase, runs", paper="a little over 10",
                 ours=float(res["bisect_runs"]), lo=8, hi=14, run=run, fmt="{:.0f}",
                 reason_off="an episode ends at the first run the detector judges balanced; "
                            "with the simulated noise (sigma = 0.02) one halving already "
                            "brings the ratio above maxDev, where the paper's runs kept "
                            "firing"),
          within("Fig. 12", "runs from the load step to detection", paper="(3-4 runs avg.)",
                 ours=res["detect_runs"], lo=1, hi=5, run=run, fmt="{:.0f}",
                 reason_off="detector constants"),
          Verdict("Fig. 12", "CPU share after the load step falls", "falls (from 24.5 %)",
                  f"{100 * (1 - res['s_before']):.1f} -> {100 * (1 - res['s_after']):.1f} %",
                  MATCH if res["s_after"] > res["s_before"] else DIFFERS, "direction",
                  "" if res["s_after"] > res["s_before"] else "did not move", run),
          within("Fig. 12", "time at run 40 / loaded optimum", paper="converged (~10 runs)",
                 ours=res["T_run40"] / t_opt, lo=0.95, hi=1.05, run=run, fmt="{:.3f}",
                 tolerance="+-5 % (run 40 is noisy, sigma = 0.02; the optimum is not)",
                 reason_off="the detector stops at maxDev = 0.85: a split whose device "
                            "times are within 15 % of each other is left alone")]
    return res, vs


def _fmt(rows: list, cols: list, title: str) -> str:
    from . import format_table

    def cell(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)
    return format_table([c for c, _ in cols], [[cell(r[k]) for _, k in cols] for r in rows],
                        title=title)


def run_all(quick: bool = False) -> tuple[dict, list, str]:
    """Every simulated figure: ``(doc, verdicts, text)`` (JSON-ready doc, Verdict rows, the
    printable tables)."""
    t2, v2 = table2(quick)
    v2 += speedups(t2)
    f1, vf = fission_p1(quick)
    tl, vt = tolerance(quick)
    dv, vd = derivation(quick)
    ad, va = adaptation(quick)
    texts = [
        _fmt(t2, [("bench", "benchmark"), ("input", "input"), ("GPUs", "gpus"),
                  ("paper GPU%", "paper_share"), ("paper f/o", "paper_config"),
                  ("ours GPU%", "share"), ("search f/o", "full_config"),
                  ("search GPU%", "full_share"), ("GPU-only", "gpu_only"),
                  ("hybrid", "hybrid"), ("speedup", "speedup")],
             "Table 2 (simulated P2): GPU share under the paper's fission/overlap, and "
             "Algorithm 1 over every level and overlap 1..4 (speedup over GPU-only, overlap 1)"),
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
        "Fig. 12 (simulated P2, FFT 128 MB, CPU at 1/3 from run 20 to 60): detection after "
        f"{ad['detect_runs']} runs, GPU share {100 * ad['s_before']:.1f}% -> "
        f"{100 * ad['s_after']:.1f}% (loaded optimum {100 * ad['s_opt_loaded']:.1f}%), "
        f"time at run 40 {ad['T_run40']:.3g} vs loaded optimum {ad['T_opt_loaded']:.3g}, "
        f"GPU share at run 80 {100 * ad['s'][80]:.1f}%, {ad['lb_ops']} balancing steps",
    ]
    doc = {"table2": t2, "fission_p1": f1, "tolerance": tl, "derivation": dv,
           "adaptation": ad}
    return doc, v2 + vf + vt + vd + va, "\n\n".join(texts)
