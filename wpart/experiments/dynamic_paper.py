"""PLB-HAC benchmarks B1-B6 on the simulated stand-in platforms.

The paper's machines (its Table 1) and the values of its Figs. 4-5 are not in its text, so
every benchmark runs the simulator on the synthetic stand-in platforms
(:meth:`wpart.dynamic.Platform.preset`) and checks the *directions* of the paper's results
(Sec. 5: Figs. 4, 5a, 5b and 6) with fixed margins. Each ``bN_*`` function returns
``(data, verdicts, report)``: verdict rows for the paper's claims, and report-only rows for
what the paper makes no claim about (Greedy-best, probe training, the ``paper`` preset in B4).
:func:`wpart.experiments.dynamic.run_dynamic` and ``benchmarks/bench_dynamic.py`` both use
these functions.

Every number here is "simulated, stand-in platform".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ._verdict import DIFFERS, MATCH, Verdict

__all__ = [
    "STANDIN",
    "algorithms",
    "b1_makespan",
    "b2_shares",
    "b3_idle",
    "b4_adapt",
    "b5_overhead",
    "b6_training",
]

STANDIN = "simulated, stand-in platform (the paper's Table 1 is missing)"
MACHINE_SETS = ["A", "AB", "ABC", "ABCD", "ABCDE"]


def _d():
    from .. import dynamic

    return dynamic


def _pl(machines: str, app: str):
    return _d().Platform.preset("paper5", machines=machines, app=app)


def algorithms(platform: Any, n: int, *, presets: Iterable[str] = ("paper", "robust"),
               greedy_chunks: Iterable[int] = (1024, 4096, 16384)) -> dict[str, Callable[[], Any]]:
    """The algorithms of B1 as factories (a new balancer per call)."""
    D = _d()
    m, kinds = platform.m, platform.kinds
    algos: dict[str, Callable[[], Any]] = {}
    for p in presets:
        algos[f"PLB-HAC/{p}"] = lambda p=p: D.PLBHAC(m, n, pu_kinds=kinds, preset=p)
    algos["PLB-HeC"] = lambda: D.PLBHeC(m, n, pu_kinds=kinds)
    algos["HDSS"] = lambda: D.HDSS(m, n)
    for g in greedy_chunks:
        algos[f"Greedy({g})"] = lambda g=g: D.Greedy(m, n, chunk=g)
    return algos


def _mean_makespans(platform: Any, algos: dict[str, Callable[[], Any]], seeds: Iterable[int],
                    eval_cost: float = 0.1) -> dict[str, float]:
    D = _d()
    out: dict[str, list[float]] = {k: [] for k in algos}
    for s in seeds:
        for name, make in algos.items():
            out[name].append(D.simulate(platform, make(), seed=s, eval_cost=eval_cost,
                                        trace=False).makespan)
    return {k: float(np.mean(v)) for k, v in out.items()}


def _v(fig: str, what: str, paper: str, ours: str, ok: bool, tol: str, run: str, why: str) -> Verdict:
    return Verdict(fig, what, paper, ours, MATCH if ok else DIFFERS, tolerance=tol,
                   reason="" if ok else why, run=run)


def _p2(W: int) -> str:
    return f"2^{int(np.log2(W))}"


def b1_makespan(quick: bool, *, progress: Callable[[Iterable], Iterable] = lambda x: x):
    """B1: makespan against the number of machines (Fig. 4 analogue)."""
    D = _d()
    apps = ["mm"] if quick else ["mm", "grn", "kmeans"]
    sizes = [2**18] if quick else [2**18, 2**20]
    seeds = range(2) if quick else range(10)
    sets = ["A", "ABC", "ABCDE"] if quick else MACHINE_SETS
    divisors = range(1, 17) if quick else range(1, 65)
    data: list[dict] = []
    for app, W, mach in progress([(a, w, m) for a in apps for w in sizes for m in sets]):
        pl = _pl(mach, app)
        mk = _mean_makespans(pl, algorithms(pl, W), seeds)
        orc = D.oracle_stepped(pl, W, divisors=divisors, seed=0)
        greedy = {k: v for k, v in mk.items() if k.startswith("Greedy")}
        data.append({"app": app, "W": W, "machines": mach, "makespan": mk,
                     "oracle_stepped": float(orc.makespan), "greedy_best": min(greedy, key=greedy.get)})
    run = (f"paper5 subsets {', '.join(sets)}; apps {', '.join(apps)}; W {', '.join(map(_p2, sizes))}; "
           f"{len(seeds)} seeds; oracle_stepped over S = W/j, j <= {max(divisors)}")
    Wb = max(sizes)
    big = [d for d in data if len(d["machines"]) >= 3 and d["W"] == Wb]
    base = ("HDSS", "PLB-HeC", "Greedy(1024)")
    worst = {p: max(d["makespan"][f"PLB-HAC/{p}"] / min(d["makespan"][k] for k in base) for d in big)
             for p in ("paper", "robust")}
    vs = [_v("Fig. 4 (B1a)", f">= 3 machines, W = {_p2(Wb)}: PLB-HAC / best of HDSS, PLB-HeC, Greedy(1024), "
             "preset paper / robust (the recommended one decides)",
             "PLB-HAC faster than all", f"{worst['paper']:.3f} / {worst['robust']:.3f} (worst case)",
             worst["robust"] <= 0.97, "robust <= 0.97",
             run, STANDIN + ("; quick mode runs W = 2^18, the criterion is at 2^20" if quick else "") +
             "; the steps of a fixed duration (step_time) and the training barrier weigh most on short "
             "runs (see bench_dynamic.py --fidelity)")]
    for preset, bound in (("paper", 1.25), ("robust", 1.10)):
        ratios = [(d["makespan"][f"PLB-HAC/{preset}"] / d["oracle_stepped"], d) for d in data]
        r, dw = max(ratios, key=lambda t: t[0])
        where = f"{dw['machines']}, {dw['app']}, W = {_p2(dw['W'])}"
        many = [t for t, d in ratios if len(d["machines"]) >= 3]
        vs.append(_v("Fig. 4 (B1b)", f"PLB-HAC/{preset} / oracle_stepped, worst case", "close to Optimum",
                     f"{r:.3f} at {where}; >= 3 machines: {max(many):.3f}", r <= bound, f"<= {bound}", run,
                     STANDIN + "; the single training barrier and the tail cost most on few machines and "
                     "short runs"))
    one = [d for d in data if d["machines"] == "A"]
    r1 = [(d["makespan"]["PLB-HAC/paper"] / min(d["makespan"]["HDSS"], d["makespan"]["Greedy(1024)"]), d)
          for d in one]
    c = all(r >= 1.0 for r, _ in r1)
    rw, dw = min(r1, key=lambda t: t[0])
    vs.append(_v("Fig. 4 (B1c)", "1 machine: HDSS or Greedy(1024) at least as fast as PLB-HAC (paper preset)",
                 "PLB-HAC slower than HDSS and Greedy", f"{'yes' if c else 'no'} (PLB-HAC / best of the two: "
                 f"{min(r for r, _ in r1):.3f} .. {max(r for r, _ in r1):.3f}; lowest at {dw['app']}, "
                 f"W = {_p2(dw['W'])})", c, "direction", run,
                 STANDIN + "; machine A is one CPU and one GPU 12 times faster: one evaluation per step "
                 "costs PLB-HAC little there, and the three algorithms end within a few per cent of each "
                 "other (the paper's 'lower performance' on one machine is not quantified)"))
    gb = [d["makespan"]["PLB-HAC/paper"] / d["makespan"][d["greedy_best"]] for d in data]
    gr = [d["makespan"]["PLB-HAC/robust"] / d["makespan"][d["greedy_best"]] for d in data]
    report = [("B1d", "PLB-HAC/paper / Greedy-best (chunk chosen in hindsight)", f"{min(gb):.3f} .. {max(gb):.3f}"),
              ("B1d", "PLB-HAC/robust / Greedy-best", f"{min(gr):.3f} .. {max(gr):.3f}")]
    return data, vs, report


def _abcde_mm(quick: bool, seeds_quick: int, seeds_full: int) -> tuple:
    """``(wpart.dynamic, W, seeds, platform)`` of the five-machine mm runs (B2, B5)."""
    return (_d(), 2**18 if quick else 2**20, range(seeds_quick if quick else seeds_full),
            _pl("ABCDE", "mm"))


def b2_shares(quick: bool):
    """B2: step shares at the end of training / phase 1 (Fig. 5b analogue)."""
    D, W, seeds, pl = _abcde_mm(quick, 3, 10)
    opt = np.asarray(D.oracle_oneshot(pl, W).shares, dtype=float)
    sh: dict[str, list] = {"PLB-HAC": [], "HDSS": []}
    S_first: list[float] = []
    later: list = []
    for s in seeds:
        for name, make in (("PLB-HAC", lambda: D.PLBHAC(pl.m, W, pu_kinds=pl.kinds)),
                           ("HDSS", lambda: D.HDSS(pl.m, W))):
            r = D.simulate(pl, make(), seed=s, trace=False)
            sh[name].append(np.asarray(r.shares, dtype=float))
            if name == "PLB-HAC" and len(r.series):
                S_first.append(float(r.series["S_eff"][0]))
                later.append(r.series[min(5, len(r.series) - 1)])
    S0 = float(np.mean(S_first)) if S_first else float(W)
    xs, _ = D.solve_equal_time(D.true_curves(pl, first=False), S0)
    opt_step = 100.0 * np.asarray(xs) / float(np.sum(xs))
    mean = {k: np.mean(v, axis=0) for k, v in sh.items()}
    std = {k: np.std(v, axis=0) for k, v in sh.items()}
    l1 = {k: float(np.abs(v - opt).sum()) for k, v in mean.items()}
    l1s = {k: float(np.abs(v - opt_step).sum()) for k, v in mean.items()}
    l1_late = []
    for row in later:
        xl, _ = D.solve_equal_time(D.true_curves(pl, first=False), float(row["S_eff"]))
        X = row["X"].astype(float)
        l1_late.append(float(np.abs(100 * X / X.sum() - 100 * np.asarray(xl) / np.sum(xl)).sum()))
    l1_late_m = float(np.mean(l1_late)) if l1_late else float("nan")
    cpu = np.array([k == "cpu" for k in pl.kinds])
    cpu_sum = {k: float(v[cpu].sum()) for k, v in mean.items()}
    smax = max(float(v.max()) for v in std.values())
    run = f"paper5 A-E, mm, W = {_p2(W)}, {len(seeds)} seeds; optimum = oracle_oneshot shares"
    data = {"l1_after_5_evals": l1_late_m, "optimum": opt, "optimum_step": opt_step, "S_step": S0, "mean": mean, "std": std, "l1": l1,
            "l1_step": l1s, "cpu_share": cpu_sum, "kinds": list(pl.kinds), "W": W}
    why_step = (STANDIN + "; one-shot shares (S = W) let the Phi and the GPUs saturate, while within one "
                f"step (S = {S0:.0f}) their fixed costs keep their equal-time shares lower; see the row "
                "against the optimal split of one step")
    # measured: where the optima put the CPUs' shares, beside the two balancers
    opt_cpu, step_cpu = float(opt[cpu].sum()), float(opt_step[cpu].sum())
    dp_, dh_ = cpu_sum["PLB-HAC"] - step_cpu, cpu_sum["HDSS"] - step_cpu
    why_cpu = (STANDIN + f"; the optimal split gives CPUs {opt_cpu:.1f} % in one shot and "
               f"{step_cpu:.1f} % within one step (S = {S0:.0f}); PLB-HAC ends {dp_:+.1f} "
               f"points from the step's optimum, HDSS {dh_:+.1f}: "
               + ("PLB-HAC's" if abs(dp_) < abs(dh_) else "HDSS's")
               + " CPU share is the nearer one")
    data["cpu_share_optimum"] = {"one_shot": opt_cpu, "step": step_cpu}
    vs = [
        _v("Fig. 5b (B2a)", "L1 distance of the step shares to the one-shot optimum: PLB-HAC vs HDSS",
           "PLB-HAC closer to Optimum", f"{l1['PLB-HAC']:.1f} vs {l1['HDSS']:.1f}",
           l1["PLB-HAC"] < l1["HDSS"], "PLB-HAC < HDSS", run, why_step),
        _v("Fig. 5b (B2a')", f"L1 distance to the optimal equal-time split of one step (S = {S0:.0f}): PLB-HAC vs HDSS",
           "PLB-HAC closer to Optimum", f"{l1s['PLB-HAC']:.1f} vs {l1s['HDSS']:.1f}",
           l1s["PLB-HAC"] < l1s["HDSS"], "PLB-HAC < HDSS", run + f"; step optimum on the true curves at S = {S0:.0f}",
           STANDIN + "; PLB-HAC's first model rests on two training blocks of at most 2 x_init = 2048 "
           "elements, extrapolated to blocks of ~10^4 on saturating devices, while HDSS samples up to "
           f"x_init 2^5; after 5 re-fits PLB-HAC's shares are {l1_late_m:.1f} from the step optimum"),
        _v("Fig. 5b (B2b)", "sum of CPU shares (%): PLB-HAC vs HDSS", "PLB-HAC gives CPUs less",
           f"{cpu_sum['PLB-HAC']:.1f} vs {cpu_sum['HDSS']:.1f}", cpu_sum["PLB-HAC"] < cpu_sum["HDSS"],
           "PLB-HAC < HDSS", run, why_cpu),
        _v("Fig. 5b (B2c)", "largest std of a share over seeds (share points)", "small",
           f"{smax:.2f}", smax < 3.0, "< 3", run, STANDIN),
    ]
    return data, vs, []


def _class_idle(r: Any, kinds: list[str]) -> dict[str, float]:
    frac = np.asarray(r.idle_frac, dtype=float)
    return {k: 100.0 * float(frac[[i for i, kk in enumerate(kinds) if kk == k]].mean())
            for k in sorted(set(kinds))}


def b3_idle(quick: bool):
    """B3: idle % per PU class (Fig. 5a analogue)."""
    D = _d()
    sizes = [2**16, 2**18] if quick else [2**16, 2**20]
    seeds = range(2) if quick else range(10)
    pl = _pl("ABCDE", "mm")
    kinds = list(pl.kinds)
    data: dict[str, dict[str, float]] = {}
    for W in sizes:
        for name, make in (("PLB-HAC", lambda W=W: D.PLBHAC(pl.m, W, pu_kinds=pl.kinds)),
                           ("HDSS", lambda W=W: D.HDSS(pl.m, W))):
            per = [_class_idle(D.simulate(pl, make(), seed=s, trace=False), kinds) for s in seeds]
            data[f"{name}@{W}"] = {k: float(np.mean([p[k] for p in per])) for k in per[0]}
    classes = sorted(set(kinds))
    lo, hi = min(sizes), max(sizes)
    run = f"paper5 A-E, mm, W = {_p2(lo)} and {_p2(hi)}, {len(seeds)} seeds"
    cmp_ = [(W, c) for W in sizes for c in classes]
    ok_a = all(data[f"HDSS@{W}"][c] > data[f"PLB-HAC@{W}"][c] for W, c in cmp_)
    ok_b = all(data[f"PLB-HAC@{hi}"][c] < data[f"PLB-HAC@{lo}"][c] for c in classes)
    vs = [
        _v("Fig. 5a (B3a)", "idle % per class (CPU, GPU, Phi), HDSS vs PLB-HAC", "HDSS idles more in every class",
           "; ".join(f"{c}@{_p2(W)}: {data[f'HDSS@{W}'][c]:.1f} vs {data[f'PLB-HAC@{W}'][c]:.1f}" for W, c in cmp_),
           ok_a, "HDSS > PLB-HAC everywhere", run,
           STANDIN + "; on small inputs PLB-HAC's single training barrier dominates (x_init = 1024 on a "
           "120 el/s CPU takes 8.5 s of a ~30 s run)"),
        _v("Fig. 5a (B3b)", f"PLB-HAC idle % per class, W = {_p2(lo)} -> {_p2(hi)}", "falls as the input grows",
           "; ".join(f"{c}: {data[f'PLB-HAC@{lo}'][c]:.1f} -> {data[f'PLB-HAC@{hi}'][c]:.1f}" for c in classes),
           ok_b, "decreasing in every class", run,
           STANDIN + "; a class whose idle time is already small (the Phi at its minimum block) can rise "
           "as the tail shrink and the end-game exclusion leave it idle at the end"),
    ]
    return data, vs, []


def rho_star(platform: Any, S: float, pu: int, factor: float) -> float:
    """Post-event optimal ratio X*[pu]_after / X*[pu]_before at step volume S on the true
    curves, the compute time of `pu` multiplied by `factor` after the event (benchmark B4)."""
    D = _d()

    def curve(p: int, f: float):
        def E(x):
            x = np.asarray(x, dtype=float)
            t = f * platform.true_time(p, x, part="comp") + platform.true_time(p, x, part="xfer")
            return np.where(x > 0, t, 0.0)
        return E

    before = [curve(p, 1.0) for p in range(platform.m)]
    after = [curve(p, factor if p == pu else 1.0) for p in range(platform.m)]
    xb, _ = D.solve_equal_time(before, float(S))
    xa, _ = D.solve_equal_time(after, float(S))
    return float(xa[pu] / xb[pu])


def b4_adapt(quick: bool):
    """B4: adaptation to a slowdown of GPU A at t = 142 s (Fig. 6 analogue).

    GPU A's published block X 38 s (case a) / 43 s (case b) after the event, divided by its
    last value before (Fig. 6's measure: 2500 KB -> 1188 KB in 38 s, -> 320 KB in 43 s), for
    both presets, beside the post-event optimum rho* at the same step volume; also 45 s after.
    Verdicts for the recommended preset ``robust``: case b, X at most 0.35 of its value within
    45 s; case a, at least 75 % of the move to rho*; GPU B's block grows in both.
    """
    D = _d()
    data: dict = {}
    vs, report = [], []
    for case, factor, paper_ratio, paper_time in (("a", 2.0, 0.475, 38.0), ("b", 8.0, 0.128, 43.0)):
        pl = D.Platform.preset("adapt2", case=case)
        W = int(pl.n)
        kinds = list(pl.kinds)
        gpu_a = kinds.index("gpu")
        gpu_b = len(kinds) - 1 - kinds[::-1].index("gpu")
        res: dict = {}
        for preset in ("paper", "robust"):
            r = D.simulate(pl, D.PLBHAC(pl.m, W, pu_kinds=pl.kinds, preset=preset), seed=0, trace=False)
            ser = r.series
            t, X, S = ser["t"], ser["X"].astype(float), ser["S_eff"]
            ib = np.flatnonzero(t < 142.0)
            ip = np.flatnonzero(t <= 142.0 + paper_time)
            i45 = np.flatnonzero(t <= 142.0 + 45.0)
            if len(ib) == 0 or len(i45) == 0:
                res[preset] = {"makespan": r.makespan, "ratio_paper_time": float("nan"),
                               "ratio45": float("nan"), "ratio40": float("nan"), "gpuB_up": False}
                continue
            b, a, a45 = ib[-1], ip[-1], i45[-1]
            res[preset] = {"t": t, "X": X, "S": S, "makespan": r.makespan,
                           "ratio_paper_time": float(X[a, gpu_a] / X[b, gpu_a]),
                           "ratio45": float(X[a45, gpu_a] / X[b, gpu_a]),
                           "ratio40": float(X[np.flatnonzero(t <= 182.0)[-1], gpu_a] / X[b, gpu_a]),
                           "gpuB_up": bool(X[a45, gpu_b] > X[b, gpu_b]), "S_before": float(S[b])}
        rho = rho_star(pl, res["robust"].get("S_before", 10_000.0), gpu_a, factor)
        data[case] = {"rho_star": rho, "factor": factor, "paper_ratio": paper_ratio,
                      "paper_time": paper_time, **res}
        rb, pp = res["robust"], res["paper"]
        run = (f"adapt2 case {case}: GPU A compute x{factor:g} from t = 142 s, W = {W}, seed 0; "
               f"post-event optimum at the same step volume rho* = {rho:.3f}")
        if case == "b":
            ok = bool(rb["ratio45"] <= 0.35 and rb["gpuB_up"])
            tol = "robust: X[GPU A] <= 0.35 of its value within 45 s, GPU B's grows"
        else:
            bound = 1 - 0.75 * (1 - rho)
            ok = bool(rb["ratio45"] <= bound and rb["gpuB_up"])
            tol = f"robust: >= 75% of the move to rho* within 45 s (ratio <= {bound:.3f}), GPU B's grows"
        vs.append(_v("Fig. 6 (B4)", f"case {case}: GPU A's block {paper_time:.0f} s after its slowdown / before "
                     "(preset paper / robust); GPU B's block grows",
                     f"x{paper_ratio} in {paper_time:.0f} s (the paper's slowdown factor is not stated)",
                     f"x{pp['ratio_paper_time']:.3f} / x{rb['ratio_paper_time']:.3f} (45 s: x{pp['ratio45']:.3f} / "
                     f"x{rb['ratio45']:.3f}); GPU B {'grows' if rb['gpuB_up'] else 'does not grow'}",
                     ok, tol, run,
                     STANDIN + f"; slowdown x{factor:g} assumed; preset paper fits every sample "
                     "(Sec. 3.3: 'using all the execution time measurements'), so old fast samples "
                     "outweigh the slow ones for many steps; robust adopts a change of speed at once "
                     "(change_ratio)"))
        report.append((f"B4{case}", f"preset paper (all samples, no change detection): GPU A's block 45 s after "
                       f"(rho* {rho:.3f})", f"{pp['ratio45']:.3f}"))
    return data, vs, report


def b5_overhead(quick: bool):
    """B5: the PLB-HeC - PLB-HAC gap as the evaluation cost grows."""
    D, W, seeds, pl = _abcde_mm(quick, 2, 5)
    gaps = {}
    for c in (0.0, 0.01, 0.1, 0.5):
        mk = _mean_makespans(pl, {"hac": lambda: D.PLBHAC(pl.m, W, pu_kinds=pl.kinds),
                                  "hec": lambda: D.PLBHeC(pl.m, W, pu_kinds=pl.kinds)}, seeds, eval_cost=c)
        gaps[c] = mk["hec"] - mk["hac"]
    vals = [gaps[c] for c in sorted(gaps)]
    ok = all(b >= a - 1e-9 for a, b in zip(vals, vals[1:], strict=False))
    run = f"paper5 A-E, mm, W = {_p2(W)}, {len(seeds)} seeds, c_eval in 0, 0.01, 0.1, 0.5 s"
    vs = [_v("Sec. 5.1 (B5)", "makespan PLB-HeC - PLB-HAC (s) against c_eval", "gap from removing synchronisation",
             ", ".join(f"{c:g} s: {gaps[c]:.2f}" for c in sorted(gaps)), ok, "non-decreasing in c_eval", run,
             STANDIN + "; PLB-HAC is ahead at every cost and the gap widens at 0.5 s, but between 0 and "
             "0.1 s it moves by about a second either way: one evaluation per step of several seconds "
             "is within the spread of a few seeds")]
    return gaps, vs, []


def b6_training(quick: bool):
    """B6: barrier against probe training (report only: the paper has no probe mode)."""
    D = _d()
    out = {}
    pl = _pl("ABCDE", "mm")
    for W in ([2**18] if quick else [2**18, 2**20]):
        mk = _mean_makespans(pl, {m: (lambda m=m: D.PLBHAC(pl.m, W, pu_kinds=pl.kinds, training=m))
                                  for m in ("barrier", "probe")}, range(2 if quick else 5))
        out[W] = mk
    report = [("B6", f"PLB-HAC makespan (s), probe vs barrier training, W = {_p2(W)}",
               f"{v['probe']:.1f} vs {v['barrier']:.1f}") for W, v in out.items()]
    return out, [], report


def default_verdict(v: Verdict) -> Verdict:  # pragma: no cover - kept for symmetry with others
    return v


#: The two presets as they were before the fidelity work of this release (the "before"
#: column of :func:`fidelity_table`): fixed minimum blocks in ``paper``; in ``robust`` the
#: seven basis functions with decay 0.8, no step fraction and no change detection.
PRESETS_BEFORE = {"paper": {"preset": "paper", "min_block": "fixed"},
                  "robust": {"preset": "robust", "step_fraction": 0.0, "change_ratio": 0.0, "decay": 0.8,
                             "fit": {"basis": ["x", "x2", "x3", "exp", "log", "xexp", "xlog"]}}}
#: The presets as they are now (explicit keywords override nothing).
PRESETS_NOW = {"paper": {"preset": "paper"}, "robust": {"preset": "robust"}}


def fidelity_table(*, seeds: Iterable[int] = range(10), sweep: Iterable[int] = (20, 22, 24, 26),
                   configs: dict[str, dict] | None = None, eval_cost: float = 0.1) -> dict:
    """The table of the paper's headline (Sec. 6: "better for higher degrees of heterogeneity
    and larger problem sizes"): mean makespan ratio PLB-HAC / baseline over `seeds` for
    Greedy(1024), HDSS and PLB-HeC on ``paper5`` (machines A-E, mm) and ``hetero3`` at their
    preset size (W = 2^20), and one seed of ``paper5`` against HDSS for W = 2^e, e in `sweep`,
    with the gap of each to the one-shot optimum. `configs` maps a label to PLBHAC keywords
    (default :data:`PRESETS_NOW`). Simulated, stand-in platforms.
    """
    D = _d()
    configs = PRESETS_NOW if configs is None else configs
    seeds = list(seeds)
    out: dict = {"seeds": len(seeds), "eval_cost": eval_cost, "configs": configs, "platforms": {}, "sweep": []}
    for name in ("paper5", "hetero3"):
        pl = _pl("ABCDE", "mm") if name == "paper5" else D.Platform.preset("hetero3")
        W, m, kinds = int(pl.n), pl.m, pl.kinds
        algos: dict[str, Callable[[], Any]] = {
            "Greedy(1024)": lambda: D.Greedy(m, W, chunk=1024), "HDSS": lambda: D.HDSS(m, W),
            "PLB-HeC": lambda: D.PLBHeC(m, W, pu_kinds=kinds)}
        for lab, kw in configs.items():
            algos[f"PLB-HAC/{lab}"] = lambda kw=kw: D.PLBHAC(m, W, pu_kinds=kinds, **kw)
        mk = _mean_makespans(pl, algos, seeds, eval_cost)
        ratios = {lab: {b: mk[f"PLB-HAC/{lab}"] / mk[b] for b in ("Greedy(1024)", "HDSS", "PLB-HeC")}
                  for lab in configs}
        out["platforms"][name] = {"W": W, "makespan": mk, "ratio": ratios,
                                  "oracle_oneshot": float(D.oracle_oneshot(pl, W).makespan)}
    pl = _pl("ABCDE", "mm")
    for e in sweep:
        W = 2**e
        h = D.simulate(pl, D.HDSS(pl.m, W), seed=0, eval_cost=eval_cost, trace=False).makespan
        opt = float(D.oracle_oneshot(pl, W).makespan)
        row = {"W": W, "HDSS": float(h), "oracle_oneshot": opt}
        for lab, kw in configs.items():
            r = D.simulate(pl, D.PLBHAC(pl.m, W, pu_kinds=pl.kinds, **kw), seed=0, eval_cost=eval_cost, trace=False)
            row[lab] = {"makespan": float(r.makespan), "vs_HDSS": float(r.makespan / h),
                        "vs_oracle": float(r.makespan / opt), "blocks": int(r.n_blocks), "evals": int(r.n_evals)}
        out["sweep"].append(row)
    return out


def fidelity_text(d: dict, title: str) -> str:
    """The table of :func:`fidelity_table` as text (``paper`` / ``robust`` in each cell)."""
    from . import format_table

    labs = list(d["configs"])
    rows = []
    for name, p in d["platforms"].items():
        rows.append([f"{name} (W = {_p2(p['W'])}, {d['seeds']} seeds)"] +
                    [" / ".join(f"{p['ratio'][lab][b]:.2f}" for lab in labs) for b in ("Greedy(1024)", "HDSS", "PLB-HeC")])
    sw = d["sweep"]
    if sw:
        rows.append([f"paper5, seed 0, W = {' -> '.join(_p2(r['W']) for r in sw)}", "",
                     " -> ".join(" / ".join(f"{r[lab]['vs_HDSS']:.2f}" for lab in labs) for r in sw), ""])
        rows.append(["  same, PLB-HAC / one-shot optimum", "",
                     " -> ".join(" / ".join(f"{r[lab]['vs_oracle']:.2f}" for lab in labs) for r in sw), ""])
    return format_table(["platform", "vs Greedy(1024)", "vs HDSS", "vs PLB-HeC"], rows,
                        title=f"{title}: makespan PLB-HAC / baseline, {' / '.join(labs)} ({STANDIN})")


#: One knob at a time from the ``paper`` preset as it was (:data:`PRESETS_BEFORE`), each
#: isolating one suspected cause of PLB-HAC's losses (:func:`fidelity_causes`).
CAUSE_KNOBS = {
    "none (paper preset, before)": {},
    "evaluation cost not charged (eval_cost 0)": {"eval_cost": 0.0},
    "no gap filling": {"gap_fill": False},
    "no tail shrink": {"tail_mode": "off"},
    "forgetting (decay 0.8)": {"decay": 0.8},
    "probe training": {"training": "probe"},
    "x_init 4096": {"x_init": 4096},
    "step_time 8 s": {"step_time": 8.0},
    "step_time 30 s": {"step_time": 30.0},
    "auto minimum blocks (Sec. 3.2)": {"min_block": "auto"},
    "affine model (basis x)": {"fit": {"basis": ["x"]}},
    "step_fraction 1/64": {"step_fraction": 1 / 64},
}


def fidelity_causes(*, seeds: Iterable[int] = range(10), W_big: int = 2**24) -> dict:
    """Each knob of :data:`CAUSE_KNOBS` alone on top of the old ``paper`` preset: mean makespan
    ratio against HDSS on ``hetero3`` (W = 2^20, `seeds`) and on ``paper5`` at ``W_big``
    (seed 0), with the number of blocks and the one-shot optimum's ratio.
    Simulated, stand-in platforms."""
    D = _d()
    seeds = list(seeds)
    h3 = D.Platform.preset("hetero3")
    p5 = _pl("ABCDE", "mm")
    Wh = int(h3.n)
    hd3 = float(np.mean([D.simulate(h3, D.HDSS(h3.m, Wh), seed=s, eval_cost=0.1, trace=False).makespan
                         for s in seeds]))
    hd5 = float(D.simulate(p5, D.HDSS(p5.m, W_big), seed=0, eval_cost=0.1, trace=False).makespan)
    o3 = float(D.oracle_oneshot(h3, Wh).makespan)
    o5 = float(D.oracle_oneshot(p5, W_big).makespan)
    rows = {}
    for name, knob in CAUSE_KNOBS.items():
        kw = dict(PRESETS_BEFORE["paper"])
        kw.update(knob)
        ec = kw.pop("eval_cost", 0.1)
        r3 = [D.simulate(h3, D.PLBHAC(h3.m, Wh, pu_kinds=h3.kinds, **kw), seed=s, eval_cost=ec, trace=False)
              for s in seeds]
        r5 = D.simulate(p5, D.PLBHAC(p5.m, W_big, pu_kinds=p5.kinds, **kw), seed=0, eval_cost=ec, trace=False)
        m3 = float(np.mean([r.makespan for r in r3]))
        rows[name] = {"hetero3_vs_HDSS": m3 / hd3, "hetero3_vs_oracle": m3 / o3,
                      "hetero3_blocks": float(np.mean([r.n_blocks for r in r3])),
                      "paper5_vs_HDSS": float(r5.makespan) / hd5, "paper5_vs_oracle": float(r5.makespan) / o5,
                      "paper5_blocks": int(r5.n_blocks)}
    return {"seeds": len(seeds), "W_big": W_big, "HDSS": {"hetero3": hd3, "paper5": hd5}, "rows": rows}


def causes_text(d: dict) -> str:
    """:func:`fidelity_causes` as a table."""
    from . import format_table

    rows = [[k, v["hetero3_vs_HDSS"], v["hetero3_vs_oracle"], v["hetero3_blocks"], v["paper5_vs_HDSS"],
             v["paper5_vs_oracle"], v["paper5_blocks"]] for k, v in d["rows"].items()]
    return format_table(["knob (alone, on the old paper preset)", "hetero3 /HDSS", "/opt", "blocks",
                         f"paper5 {_p2(d['W_big'])} /HDSS", "/opt", "blocks"], rows,
                        title=f"One knob at a time: PLB-HAC makespan ratios (hetero3: {d['seeds']} seeds; "
                              f"paper5: seed 0; {STANDIN})")
