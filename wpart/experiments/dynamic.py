"""``wpart reproduce dynamic``: PLB-HAC (Sec. 3 of [Sant'Ana 2017]) on the simulated stand-in
platforms.

Checks (they decide the exit status): closed forms of the equal-time solve, a worked example
(four affine PUs of rates 8, 4, 2, 1) through the whole balancer, exactly-once coverage of
every balancer, and P9 (PLB-HAC beats Greedy(1024) on ``hetero3``). Verdicts (findings, not
failures): the paper's results of Sec. 5 as the benchmarks B1-B6, computed by
:mod:`wpart.experiments.dynamic_paper`. Figures mirror the paper's Figs. 4, 5a, 5b and 6, each
marked "simulated, stand-in platform".
"""

from __future__ import annotations

import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

import wpart

from . import format_table, out_folder, write_json
from ._verdict import Verdicts

__all__ = ["run_dynamic"]

_MARK = "simulated, stand-in platform"


def _golden() -> tuple[bool, dict, str]:
    D = wpart.dynamic
    rows, ok = [], True
    # closed form, affine E_p(x) = a_p x + b_p
    a, b = np.array([0.1, 0.2, 0.4]), np.array([1.0, 0.5, 0.0])
    curves = [lambda x, a=a[p], b=b[p]: a * np.asarray(x, float) + b for p in range(3)]
    x, T = D.solve_equal_time(curves, 100.0)
    Tc = (100 + (b / a).sum()) / (1 / a).sum()
    good = abs(T - Tc) <= 1e-9 * Tc and np.allclose(x, (Tc - b) / a, rtol=1e-9)
    rows.append(["affine closed form T", f"{Tc:.9f}", f"{T:.9f}", good])
    ok &= good
    # x^3 vs 2x, S = 3
    x, T = D.solve_equal_time([lambda x: np.asarray(x, float) ** 3, lambda x: 2 * np.asarray(x, float)], 3.0)
    good = abs(x[0] - 1.4561642) < 1e-6 and abs(T - 3.0876715) < 1e-6
    rows.append(["x^3 / 2x closed form x_1", "1.4561642", f"{x[0]:.7f}", good])
    ok &= good
    # worked example: linear4 with r = (8, 4, 2, 1), x_init = 8, S fixed at 30, c_eval = 0
    pl = D.Platform.preset("linear4", k=1.0, sigma=0.0)
    bal = D.PLBHAC(4, 30 * 40, pu_kinds=pl.kinds, x_init=8, step_mode="fixed", step_size=30)
    r = D.simulate(pl, bal, seed=0, eval_cost=0.0)
    X0 = r.series["X"][0].tolist()
    good = X0 == [16, 8, 4, 2] and abs(float(r.series["T_pred"][0]) - 2.0) < 1e-9
    rows.append(["worked example (rates 8:4:2:1): first X, T", "[16, 8, 4, 2], 2", f"{X0}, {float(r.series['T_pred'][0]):g}", good])
    ok &= good
    text = format_table(["check", "expected", "ours", "holds"], rows, title="Closed forms and a worked example (four affine PUs of rates 8, 4, 2, 1)")
    return ok, {"rows": rows}, text


def _coverage(quick: bool) -> tuple[bool, dict, str]:
    D = wpart.dynamic
    W = 2**16
    pl = D.Platform.preset("paper5", machines="ABCDE", app="mm")
    m, kinds = pl.m, pl.kinds
    makers = {
        "PLB-HAC/paper": lambda: D.PLBHAC(m, W, pu_kinds=kinds),
        "PLB-HAC/robust": lambda: D.PLBHAC(m, W, pu_kinds=kinds, preset="robust"),
        "PLB-HeC": lambda: D.PLBHeC(m, W, pu_kinds=kinds),
        "HDSS": lambda: D.HDSS(m, W),
        "Greedy(1024)": lambda: D.Greedy(m, W, chunk=1024),
        "AcostaRP": lambda: D.AcostaRP(m, W, step=W // 16),
        "NaiveProfile": lambda: D.NaiveProfile(m, W),
        "Asymmetric": lambda: D.Asymmetric(m, W, kinds),
        "StaticEqual": lambda: D.StaticEqual(m, W),
    }
    rows, ok = [], True
    for name, make in makers.items():
        tr = D.simulate(pl, make(), seed=1).trace
        order = np.argsort(tr["offset"])
        off, size = tr["offset"][order], tr["size"][order]
        good = bool(off[0] == 0 and np.all(off[1:] == off[:-1] + size[:-1]) and off[-1] + size[-1] == W)
        rows.append([name, len(tr), good])
        ok &= good
    text = format_table(["balancer", "blocks", "exactly once"], rows,
                        title=f"P1 coverage on paper5 A-E, W = 2^16, seed 1 ({_MARK})")
    return ok, {"rows": rows}, text


def _p9(quick: bool) -> tuple[bool, dict, str]:
    D = wpart.dynamic
    pl = D.Platform.preset("hetero3")
    W = int(pl.n)
    seeds = range(2) if quick else range(10)
    rows, ok = [], True
    for s in seeds:
        h = D.simulate(pl, D.PLBHAC(pl.m, W, pu_kinds=pl.kinds), seed=s, trace=False).makespan
        g = D.simulate(pl, D.Greedy(pl.m, W, chunk=1024), seed=s, trace=False).makespan
        rows.append([s, h, g, h / g, h <= 0.8 * g])
        ok &= h <= 0.8 * g
    text = format_table(["seed", "PLB-HAC (s)", "Greedy(1024) (s)", "ratio", "<= 0.8"], rows,
                        title=f"P9: PLB-HAC (paper preset) beats Greedy(1024) on hetero3, W = 2^20 ({_MARK})")
    return ok, {"rows": rows}, text


def _figures(out_dir: Path, b1: Any, b2: Any, b3: Any, b4: Any, quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    files = []
    # Fig. 4 analogue: makespan vs machines, mm, largest W
    W = max(d["W"] for d in b1)
    rows = [d for d in b1 if d["app"] == "mm" and d["W"] == W]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    names = ["PLB-HAC/paper", "PLB-HAC/robust", "PLB-HeC", "HDSS", "Greedy(1024)"]
    xs = np.arange(len(rows))
    w = 0.8 / (len(names) + 1)
    for i, nm in enumerate(names):
        ax.bar(xs + i * w, [d["oracle_stepped"] / d["makespan"][nm] for d in rows], w, label=nm)
    ax.bar(xs + len(names) * w, [d["oracle_stepped"] / d["makespan"][d["greedy_best"]] for d in rows], w,
           label="Greedy-best", color="0.6")
    ax.set_xticks(xs + 0.4 - w / 2, [d["machines"] for d in rows])
    ax.set_xlabel("machines")
    ax.set_ylabel("efficiency T_oracle_stepped / T")
    ax.set_ylim(0, 1.15)
    ax.legend(ncol=3, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18))
    ax.set_title(f"Fig. 4 analogue: mm, W = 2^{int(np.log2(W))} ({_MARK})", fontsize="medium")
    fig.tight_layout()
    files.append(out_dir / "dynamic_fig4.png")
    fig.savefig(files[-1], dpi=110)
    plt.close(fig)
    # Figs. 5a and 5b
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    keys = sorted(b3)
    classes = sorted(next(iter(b3.values())))
    xs = np.arange(len(classes))
    for i, k in enumerate(keys):
        ax[0].bar(xs + i * 0.8 / len(keys), [b3[k][c] for c in classes], 0.8 / len(keys),
                  label=f"{k.split('@')[0]}, W = 2^{int(np.log2(int(k.split('@')[1])))}")
    ax[0].set_xticks(xs + 0.4 - 0.4 / len(keys), classes)
    ax[0].set_ylabel("idle time (% of makespan)")
    ax[0].set_title(f"Fig. 5a analogue: idle % per class ({_MARK})", fontsize="medium")
    ax[0].legend(fontsize="small")
    pus = [f"{k}{i}" for i, k in enumerate(b2["kinds"])]
    xs = np.arange(len(pus))
    for i, (nm, v) in enumerate([("Optimum", b2["optimum"]), ("PLB-HAC", b2["mean"]["PLB-HAC"]),
                                 ("HDSS", b2["mean"]["HDSS"])]):
        err = None if nm == "Optimum" else b2["std"][nm]
        ax[1].bar(xs + i * 0.27, v, 0.27, yerr=err, label=nm, capsize=2)
    ax[1].set_xticks(xs + 0.27, pus, rotation=45, fontsize="small")
    ax[1].set_ylabel("share of one step (%)")
    ax[1].set_title(f"Fig. 5b analogue: step shares, W = 2^{int(np.log2(b2['W']))} ({_MARK})", fontsize="medium")
    ax[1].legend(fontsize="small")
    fig.tight_layout()
    files.append(out_dir / "dynamic_fig5.png")
    fig.savefig(files[-1], dpi=110)
    plt.close(fig)
    # Fig. 6 analogue
    fig, ax = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for a_, case in zip(ax, ("a", "b"), strict=True):
        d = b4[case]
        for preset, ls in (("paper", "--"), ("robust", "-")):
            r = d[preset]
            if "t" not in r:
                continue
            kinds = ["cpu", "gpu", "cpu", "gpu"]
            for p, lab in ((1, "GPU A"), (3, "GPU B")):
                a_.plot(r["t"], r["X"][:, p], ls, label=f"{lab}, {preset}")
            del kinds
        a_.axvline(142, color="k", lw=0.8)
        a_.set_xlabel("time (s)")
        a_.set_title(f"Fig. 6 analogue, case {case}: GPU A x{d['factor']:g} at t = 142 s ({_MARK})", fontsize="small")
        a_.legend(fontsize="small")
    ax[0].set_ylabel("block size X (elements)")
    fig.tight_layout()
    files.append(out_dir / "dynamic_fig6.png")
    fig.savefig(files[-1], dpi=110)
    plt.close(fig)
    return files


def run_dynamic(out_dir: Path, *, quick: bool = False, progress: bool = True) -> dict:
    """Reproduce wpart.dynamic's checks and PLB-HAC's headline claims on the simulated stand-in
    platforms; write ``dynamic_table.txt``, ``dynamic.json`` and figures to `out_dir`.

    Returns ``{"family", "ok", "checks", "table", "verdicts", "counts", "files", "seconds"}``.
    """
    from tqdm.auto import tqdm

    from . import dynamic_paper as P

    out_dir = out_folder(out_dir)
    t0 = time.perf_counter()
    checks: dict[str, bool] = {}
    details: dict[str, Any] = {}
    texts: list[str] = []
    for name, fn in tqdm([("golden", _golden), ("coverage", lambda: _coverage(quick)), ("p9", lambda: _p9(quick))],
                         desc="reproduce dynamic: checks", disable=not progress, leave=False):
        ok, d, text = fn()
        checks[name] = bool(ok)
        details[name] = d
        texts.append(text)
    vs = Verdicts("dynamic")
    report: list[tuple[str, str, str]] = []
    bench = {}

    def bar(it):
        return tqdm(list(it), desc="reproduce dynamic: B1", disable=not progress, leave=False)

    for name, fn in (("b1", lambda: P.b1_makespan(quick, progress=bar)), ("b2", lambda: P.b2_shares(quick)),
                     ("b3", lambda: P.b3_idle(quick)), ("b4", lambda: P.b4_adapt(quick)),
                     ("b5", lambda: P.b5_overhead(quick)), ("b6", lambda: P.b6_training(quick))):
        if progress:
            print(f"[reproduce dynamic] {name.upper()} ...", flush=True)
        d, rows, rep = fn()
        bench[name] = d
        vs.add(*rows)
        report.extend(rep)
    files = {f.stem: f for f in _figures(out_dir, bench["b1"], bench["b2"], bench["b3"], bench["b4"], quick)}
    files["table"] = out_dir / "dynamic_table.txt"
    files["json"] = out_dir / "dynamic.json"
    ok = all(checks.values())
    elapsed = time.perf_counter() - t0
    header = (f"wpart {wpart.__version__} reproduce dynamic ({'quick' if quick else 'full'}) | "
              f"{platform.platform()} | {platform.python_version()} | NumPy {np.__version__}\n"
              f"Every number below is {_MARK}: the paper's Table 1 and the values of its Figs. 4-5 "
              "are not in its text, so its claims are checked as directions (Sec. 5 of [Sant'Ana 2017]).")
    rep_text = format_table(["id", "report only (the paper makes no claim)", "ours"], report,
                            title="Reported without a verdict")
    table = "\n\n".join([header] + texts + [vs.table(), rep_text, format_table(
        ["check", "result"], [[k, "holds" if v else "FAILED"] for k, v in checks.items()],
        title=f"dynamic checks: {'all hold' if ok else 'SOME FAILED'} ({elapsed:.1f} s)")])
    files["table"].write_text(table + "\n")
    b4 = {c: {k: v for k, v in d.items() if k in ("rho_star", "factor", "paper_ratio", "paper_time")} |
          {p: {k: v for k, v in d[p].items() if k in ("ratio_paper_time", "ratio45", "ratio40", "gpuB_up", "makespan")} for p in ("paper", "robust")}
          for c, d in bench["b4"].items()}
    write_json(files["json"], {"family": "dynamic", "ok": ok, "quick": quick, "checks": checks,
                               "verdicts": vs.to_list(), "counts": vs.counts(), "report": report,
                               "b1": bench["b1"], "b2": bench["b2"], "b3": bench["b3"], "b4": b4,
                               "b5": {str(k): v for k, v in bench["b5"].items()},
                               "b6": {str(k): v for k, v in bench["b6"].items()},
                               "wpart": wpart.__version__, "seconds": elapsed})
    return {"family": "dynamic", "ok": ok, "checks": checks, "table": table,
            "verdicts": vs.to_list(), "counts": vs.counts(),
            "files": {k: str(v) for k, v in files.items()}, "seconds": time.perf_counter() - t0}
