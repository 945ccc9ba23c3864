"""Reproduce the base layer's golden values and guarantees (the prefix sums of Sec. 2.1 and
the 1D algorithms of Sec. 2.2 of Saule et al. 2012).

:func:`run_base` checks

1. the 1D golden chain ``a = [3,1,4,1,5,9,2,6,5,3,5]``: OPT for q = 1..5 is 44, 23, 17, 14, 11
   and the normalised leftmost-greedy separators are ``[0,5,7,10,11]`` (q = 4) and
   ``[0,4,5,7,9,11]`` (q = 5), for every exact method, with int64 and float64 loads, and
   against the pure-Python oracle :func:`wpart.brute.oned_dp`;
2. the 1D bounds on seeded random chains: ``max(ceil(T/q), amax) <= OPT``,
   ``DirectCut <= T/q + amax`` and recursive bisection ``<= 2 LB`` (both stated in Sec. 2.2
   of Saule et al. 2012), with the exact methods agreeing;
3. the bordered prefix sum against NumPy (values checked; times reported, never asserted);
4. a heterogeneous example (``speeds``): the exact methods agree with each other and with
   brute force, and beat the homogeneous split re-evaluated at those speeds;

and times Nicol, bisection and the DP against ``n`` for the figure.
"""

from __future__ import annotations
from .._errors import WpartValueError

import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import wpart
from wpart import brute

from . import best_of, format_table, ok_fail, out_folder, write_json
from ._verdict import Verdicts

__all__ = ["GOLDEN_CHAIN", "GOLDEN_OPT", "GOLDEN_SEPARATORS", "run_base"]

#: A hand-checked 1D chain (optimum and separators worked out by hand).
GOLDEN_CHAIN = (3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5)
#: Optimal bottleneck for q = 1..5.
GOLDEN_OPT = {1: 44, 2: 23, 3: 17, 4: 14, 5: 11}
#: Normalised leftmost-greedy optimal separators.
GOLDEN_SEPARATORS = {4: [0, 5, 7, 10, 11], 5: [0, 4, 5, 7, 9, 11]}

_EXACT = ("nicol", "bisect", "dp")
_SEED = 20240531


# --------------------------------------------------------------------------------------------
# 1. golden chain


def _golden() -> tuple[bool, dict, str]:
    a_int = np.array(GOLDEN_CHAIN, dtype=np.int64)
    a_flt = a_int.astype(np.float64)
    rows, table_rows = [], []
    found_opt: dict[int, Any] = {}
    found_seps: dict[int, Any] = {}
    for q, opt in GOLDEN_OPT.items():
        want_seps = GOLDEN_SEPARATORS.get(q)
        values = []
        for method in _EXACT:
            ri = wpart.partition_1d(a_int, q, method=method)
            rf = wpart.partition_1d(a_flt, q, method=method)
            seps = ri.separators.tolist()
            ok = (
                ri.max_load == opt
                and rf.max_load == float(opt)
                and rf.separators.tolist() == seps
                and (want_seps is None or seps == want_seps)
            )
            values.append((ri.max_load, tuple(seps)))
            rows.append({"q": q, "method": method, "max_load_int64": ri.max_load,
                         "max_load_float64": rf.max_load, "separators": seps,
                         "expected": opt, "expected_separators": want_seps, "ok": ok})
            table_rows.append([q, method, ri.max_load, rf.max_load, opt, seps,
                               want_seps if want_seps else "-", ok_fail(ok)])
        oracle = brute.oned_dp(list(GOLDEN_CHAIN), q)
        ok = oracle == opt
        rows.append({"q": q, "method": "brute.oned_dp", "max_load_int64": oracle,
                     "max_load_float64": None, "separators": None, "expected": opt,
                     "expected_separators": None, "ok": ok})
        table_rows.append([q, "brute.oned_dp", oracle, "-", opt, "-", "-", ok_fail(ok)])
        # The common answer of the exact methods (None when they disagree).
        found_opt[q] = values[0][0] if len(set(values)) == 1 else None
        found_seps[q] = list(values[0][1]) if len(set(values)) == 1 else None
    all_ok = all(r["ok"] for r in rows)
    data = {
        "chain": list(GOLDEN_CHAIN),
        "q": list(GOLDEN_OPT),
        "opt": [found_opt[q] for q in GOLDEN_OPT],
        "expected_opt": list(GOLDEN_OPT.values()),
        "separators": {str(q): found_seps[q] for q in GOLDEN_SEPARATORS},
        "expected_separators": {str(q): s for q, s in GOLDEN_SEPARATORS.items()},
        "rows": rows,
        "ok": all_ok,
    }
    text = format_table(
        ["q", "method", "Lmax int64", "Lmax float64", "expected", "separators (int64)",
         "expected separators", "check"],
        table_rows,
        title=f"1D golden chain a = {list(GOLDEN_CHAIN)} (hand-checked values)",
    )
    return all_ok, data, text


# --------------------------------------------------------------------------------------------
# 2. bounds on random chains


def _random_chain(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    if kind == "uniform":
        return rng.integers(0, 101, size=n, dtype=np.int64)
    if kind == "heavy":
        return (np.floor(rng.pareto(1.5, size=n) * 20.0)).astype(np.int64)
    if kind == "sparse":
        a = rng.integers(1, 1001, size=n, dtype=np.int64)
        a[rng.random(n) < 0.8] = 0
        return a
    if kind == "constant":
        return np.full(n, int(rng.integers(0, 10)), dtype=np.int64)
    raise WpartValueError(kind)


_KINDS = ("uniform", "heavy", "sparse", "constant")


def _bounds(quick: bool) -> tuple[bool, dict, str]:
    per_kind = 4 if quick else 12
    n_max = 3000 if quick else 30000
    cases = []
    for k, kind in enumerate(_KINDS):
        for i in range(per_kind):
            rng = np.random.default_rng([_SEED, k, i])
            n = int(rng.integers(20, n_max))
            q = int(rng.integers(2, 65))
            a = _random_chain(rng, kind, n)
            T, amax = int(a.sum()), int(a.max())
            lb = max(-(-T // q), amax)
            opts = {m: wpart.partition_1d(a, q, method=m).max_load
                    for m in _EXACT if m != "dp" or n * q <= 5e5}
            opt = opts["nicol"]
            dc = wpart.partition_1d(a, q, method="direct_cut").max_load
            rb = wpart.partition_1d(a, q, method="recursive_bisection").max_load
            checks = {
                "exact_agree": len(set(opts.values())) == 1,
                "lb_le_opt": lb <= opt,
                "opt_le_heuristics": opt <= dc and opt <= rb,
                "dc_bound": dc * q <= T + q * amax,  # DC <= T/q + amax, exactly
                "opt_bound": opt * q <= T + q * amax,
                "rb_bound": rb <= 2 * lb,
            }
            cases.append({
                "kind": kind, "seed": [_SEED, k, i], "n": n, "q": q, "total": T, "amax": amax,
                "lower_bound": lb, "opt": opt, "direct_cut": dc, "recursive_bisection": rb,
                "dc_over_bound": dc / (T / q + amax) if T + amax > 0 else 0.0,
                "rb_over_2lb": rb / (2 * lb) if lb > 0 else 0.0,
                "opt_gap_lb": opt / lb - 1 if lb > 0 else 0.0,
                "methods_checked": sorted(opts), "checks": checks,
                "ok": all(checks.values()),
            })
    rows = []
    for kind in _KINDS:
        sel = [c for c in cases if c["kind"] == kind]
        ok = all(c["ok"] for c in sel)
        rows.append([
            kind, len(sel), f"{min(c['n'] for c in sel)}..{max(c['n'] for c in sel)}",
            f"{min(c['q'] for c in sel)}..{max(c['q'] for c in sel)}",
            max(c["opt_gap_lb"] for c in sel),
            max(c["dc_over_bound"] for c in sel),
            max(c["direct_cut"] / c["opt"] if c["opt"] else 1.0 for c in sel),
            max(c["rb_over_2lb"] for c in sel),
            max(c["recursive_bisection"] / c["opt"] if c["opt"] else 1.0 for c in sel),
            ok_fail(ok),
        ])
    all_ok = all(c["ok"] for c in cases)
    text = format_table(
        ["chains", "count", "n", "q", "max OPT/LB-1", "max DC/(T/q+amax)", "max DC/OPT",
         "max RB/(2LB)", "max RB/OPT", "check"],
        rows,
        title=("1D bounds on seeded random chains: LB <= OPT <= DC <= T/q + amax, "
               "OPT <= RB <= 2 LB, exact methods agree"),
    )
    return all_ok, {"cases": cases, "ok": all_ok}, text


# --------------------------------------------------------------------------------------------
# 3. prefix sums vs NumPy


def _prefix(quick: bool) -> tuple[bool, dict, str]:
    sizes = (256, 1024) if quick else (512, 2048)
    budget = 0.05 if quick else 0.3
    rows, out = [], []
    all_ok = True
    for N in sizes:
        for dtype in ("int64", "float64"):
            rng = np.random.default_rng([_SEED, N])
            A = rng.integers(0, 1000, size=(N, N), dtype=np.int64)
            if dtype == "float64":
                A = A.astype(np.float64)
            S = wpart.prefix_sum(A)
            ref = np.cumsum(np.cumsum(A, axis=0), axis=1)
            # Integer-valued float data below 2**53 sums exactly, so both checks are exact.
            ok = bool(np.array_equal(S[1:, 1:], ref) and not S[0].any() and not S[:, 0].any())
            all_ok &= ok
            t_w, k_w, _ = best_of(lambda A=A: wpart.prefix_sum(A), budget=budget, keep=False)
            t_n, k_n, _ = best_of(lambda A=A: np.cumsum(np.cumsum(A, axis=0), axis=1),
                                  budget=budget)
            out.append({"n": N, "dtype": dtype, "wpart_ms": t_w * 1e3, "numpy_ms": t_n * 1e3,
                        "speedup": t_n / t_w, "reps": [k_w, k_n], "values_ok": ok})
            rows.append([f"{N}x{N}", dtype, t_w * 1e3, t_n * 1e3, t_n / t_w, ok_fail(ok)])
    text = format_table(
        ["A", "dtype", "wpart ms", "numpy ms", "numpy/wpart", "values"],
        rows,
        title=("Bordered 2D prefix sum (Sec. 2.1 of Saule et al. 2012) vs "
               "np.cumsum(np.cumsum(A, 0), 1); best-of-k wall times, not asserted"),
    )
    return all_ok, {"rows": out, "ok": all_ok}, text


# --------------------------------------------------------------------------------------------
# 4. heterogeneous parts


def _hetero(quick: bool) -> tuple[bool, dict, str]:
    data: dict[str, Any] = {}
    lines = []
    all_ok = True
    # Small case: brute force is the oracle.
    rng = np.random.default_rng([_SEED, 99])
    a = rng.integers(0, 20, size=12, dtype=np.int64)
    speeds = [1.0, 2.0, 1.0, 4.0]
    res = {m: wpart.partition_1d(a, len(speeds), method=m, speeds=speeds) for m in _EXACT}
    best_dp = brute.oned_dp(a.tolist(), len(speeds), speeds=speeds)
    best_enum, _ = brute.oned_enumerate(a.tolist(), len(speeds), speeds=speeds)
    r = res["nicol"]
    agree = len({(x.max_load, tuple(x.separators.tolist())) for x in res.values()}) == 1
    ok_small = agree and r.max_load == best_dp == best_enum and r.max_load >= r.lower_bound
    all_ok &= ok_small
    data["small"] = {"loads": a.tolist(), "speeds": speeds,
                     "bottleneck": r.max_load, "brute_dp": best_dp, "brute_enumerate": best_enum,
                     "separators": r.separators.tolist(), "ok": ok_small}
    part_rows = [[p, f"[{r.separators[p]},{r.separators[p + 1]})", int(r.loads[p]), speeds[p],
                  float(r.loads[p]) / speeds[p]] for p in range(len(speeds))]
    lines.append(format_table(
        ["part", "range", "load", "speed", "load/speed"], part_rows,
        title=(f"Heterogeneous 1D (speeds): loads {a.tolist()}, speeds {speeds}; "
               f"bottleneck {r.max_load:g} = brute force {best_dp:g} "
               f"(lower bound {r.lower_bound:g}) {ok_fail(ok_small)}"),
    ))
    # Larger case: exact methods agree, and the speed-aware split beats the homogeneous one.
    n = 5000 if quick else 50000
    a = np.random.default_rng([_SEED, 100]).integers(1, 1001, size=n, dtype=np.int64)
    speeds_l = [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0]
    m = len(speeds_l)
    sp = np.array(speeds_l)
    rows = []
    het = {meth: wpart.partition_1d(a, m, method=meth, speeds=sp) for meth in _EXACT}
    homog = wpart.partition_1d(a, m, method="nicol")
    homog_bott = float(np.max(homog.loads / sp))
    agree = len({x.max_load for x in het.values()}) == 1
    hb = het["nicol"]
    ok_large = agree and hb.lower_bound <= hb.max_load <= homog_bott
    all_ok &= ok_large
    for meth, x in het.items():
        rows.append([f"{meth} (speeds)", x.max_load, x.lower_bound, x.imbalance,
                     x.stats["seconds"] * 1e3])
    rows.append(["nicol (no speeds), then / speeds", homog_bott, hb.lower_bound,
                 homog_bott / (float(a.sum()) / sp.sum()) - 1, homog.stats["seconds"] * 1e3])
    lines.append(format_table(
        ["split", "max load/speed", "lower bound", "imbalance", "core ms"], rows,
        title=(f"Heterogeneous 1D, n = {n} uniform [1, 1000], speeds {speeds_l}: exact methods "
               f"agree and beat the speed-blind split {ok_fail(ok_large)}"),
    ))
    data["large"] = {"n": n, "speeds": speeds_l,
                     "bottleneck": {k: v.max_load for k, v in het.items()},
                     "homogeneous_bottleneck": homog_bott, "lower_bound": hb.lower_bound,
                     "ok": ok_large}
    data["ok"] = all_ok
    return all_ok, data, "\n\n".join(lines)


# --------------------------------------------------------------------------------------------
# 5. timing vs n (for the figure)


def _timing(quick: bool) -> tuple[bool, dict, str]:
    ns = [10**3, 10**4, 10**5] if quick else [10**3, 10**4, 10**5, 10**6]
    m = 8
    budget = 0.03 if quick else 0.2
    out = {meth: [] for meth in _EXACT}
    rows = []
    all_ok = True
    for n in ns:
        a = np.random.default_rng([_SEED, n]).integers(1, 1001, size=n, dtype=np.int64)
        vals = set()
        row: list[Any] = [n, m]
        for meth in _EXACT:
            t, _, res = best_of(lambda a=a, meth=meth: wpart.partition_1d(a, m, method=meth),
                                budget=budget)
            vals.add(res[0].max_load)
            core = min(x.stats["seconds"] for x in res)
            out[meth].append({"n": n, "total_s": t, "core_s": core,
                              "probes": res[0].stats["probes"]})
            row += [t * 1e3, core * 1e3]
        ok = len(vals) == 1
        all_ok &= ok
        rows.append(row + [vals.pop() if ok else "differ", ok_fail(ok)])
    text = format_table(
        ["n", "m", "nicol ms", "core", "bisect ms", "core", "dp ms", "core", "Lmax", "agree"],
        rows,
        title=("Time vs n, uniform [1, 1000] loads (whole call incl. O(n) prefix build; "
               "'core' = solver alone)"),
    )
    return all_ok, {"m": m, "n": ns, "times": out, "ok": all_ok}, text


# --------------------------------------------------------------------------------------------
# figure


def _figure(path: Path, timing: dict) -> None:
    from matplotlib.figure import Figure  # no pyplot: leaves the user's backend alone

    fig = Figure(figsize=(12, 4.2), layout="constrained")
    ax_l, ax_r = fig.subplots(1, 2, width_ratios=[1.3, 1.0])
    a = np.random.default_rng([_SEED, 7]).integers(1, 101, size=80, dtype=np.int64)
    wpart.partition_1d(a, 8, method="nicol").plot(ax=ax_l, loads=a)
    ax_l.set_title("Optimal 1D partition (Nicol) of a random chain, 8 parts", fontsize="medium")
    styles = {"nicol": "o-", "bisect": "s-", "dp": "^-"}
    for meth, pts in timing["times"].items():
        ns = [p["n"] for p in pts]
        (line,) = ax_r.loglog(ns, [p["total_s"] for p in pts], styles[meth],
                              label=f"{meth} (whole call)")
        ax_r.loglog(ns, [p["core_s"] for p in pts], styles[meth][0] + ":", alpha=0.6,
                    color=line.get_color(), label=f"{meth} (solver only)")
    ax_r.set_xlabel("chain length n")
    ax_r.set_ylabel("seconds (best of k)")
    ax_r.set_title(f"partition_1d time vs n, m = {timing['m']}", fontsize="medium")
    ax_r.grid(True, which="both", alpha=0.3)
    ax_r.legend(fontsize="small")
    fig.savefig(path, dpi=110)


def save_figure(path: Path, panels: list, title: str, *, width: float = 5.2,
                height: float = 4.0) -> Path:
    """The figure hook every family's reproduction can use: one row of panels, saved as PNG.

    Each panel is a callable ``draw(ax)`` that draws on its Axes (and sets its own title,
    labels and legend: a legend then lists only what that panel drew). No pyplot: the user's
    backend is left alone.

    Parameters
    ----------
    path : pathlib.Path
        The PNG file to write.
    panels : list of callable
        ``draw(ax)`` per panel, left to right.
    title : str
        The figure's title.
    width, height : float, optional
        Inches per panel.

    Returns
    -------
    pathlib.Path
        `path`.

    Raises
    ------
    OSError
        If the file cannot be written.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * len(panels), height), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, draw in zip(axes, panels):
        draw(ax)
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    return path


def paper_vs_ours(rows: list, *, label: str = "paper vs ours") -> Any:
    """A panel for :func:`save_figure`: every numeric verdict row as a point (the paper's
    figure against ours), the line ours = paper, one colour per verdict.

    Parameters
    ----------
    rows : list of dict
        Verdict rows (``Verdict.to_dict()``) with ``paper``, ``ours`` and ``verdict``.
    label : str, optional
        The panel's title.

    Returns
    -------
    callable
        ``draw(ax)``.

    Notes
    -----
    Rows whose values are not positive numbers are skipped.
    """
    def num(v: Any) -> float | None:
        try:
            f = float(v)
        except (TypeError, ValueError):
            return None
        return f if np.isfinite(f) else None

    def draw(ax: Any) -> None:
        colours = {"MATCH": "tab:green", "DIFFERS": "tab:red", "NOT REGENERATED": "tab:gray"}
        lo, hi = np.inf, -np.inf
        for verdict, c in colours.items():
            pts = [(num(r.get("paper")), num(r.get("ours"))) for r in rows
                   if r.get("verdict") == verdict]
            pts = [(p, o) for p, o in pts if p is not None and o is not None and p > 0 and o > 0]
            if pts:
                ax.scatter(*zip(*pts), color=c, s=18, label=f"{verdict} ({len(pts)})")
                lo = min(lo, *(min(p) for p in pts))
                hi = max(hi, *(max(p) for p in pts))
        if np.isfinite(lo):
            ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="ours = paper")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.legend(fontsize="small")
        ax.set_xlabel("the paper's figure")
        ax.set_ylabel("ours")
        ax.set_title(label, fontsize="medium")
        ax.grid(True, which="both", alpha=0.3)

    return draw


# --------------------------------------------------------------------------------------------


def run_base(out_dir: Path, *, quick: bool = False, progress: bool = True) -> dict:
    """Reproduce the base layer's golden 1D results and bounds; write table, JSON and figure.

    Parameters
    ----------
    out_dir : pathlib.Path
        Folder for ``base_table.txt``, ``base.json`` and ``base_1d.png`` (created if needed).
    quick : bool, default False
        Smaller random sets and sizes (a few seconds in all).
    progress : bool, default True
        Show a tqdm bar over the steps.

    Returns
    -------
    dict
        ``family`` ("base"), ``ok`` (True when every check passed), ``checks`` (step name to
        bool), ``table`` (the printable text, also written to ``base_table.txt``), ``files``
        (paths written) and ``seconds``. The figures behind the table are in ``base.json``.

    Notes
    -----
    The checks are those of the 1D building block (the golden chain, the DirectCut bound
    and the 2-approximation of recursive bisection) plus the heterogeneous objective
    of :func:`wpart.partition_1d`. Timings are reported, never checked.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wpart.experiments.base import run_base
    >>> with tempfile.TemporaryDirectory() as d:  # doctest: +SKIP
    ...     run_base(pathlib.Path(d), quick=True, progress=False)["ok"]
    True
    """
    out_dir = out_folder(out_dir)
    t_start = time.perf_counter()
    steps: list[tuple[str, Callable[[], tuple[bool, dict, str]]]] = [
        ("golden", _golden),
        ("bounds", lambda: _bounds(quick)),
        ("prefix", lambda: _prefix(quick)),
        ("hetero", lambda: _hetero(quick)),
        ("timing", lambda: _timing(quick)),
    ]
    from tqdm.auto import tqdm

    checks: dict[str, bool] = {}
    details: dict[str, Any] = {}
    texts: list[str] = []
    bar = tqdm(steps, desc="reproduce base", disable=not progress, leave=False)
    for name, fn in bar:
        bar.set_postfix_str(name)
        ok, data, text = fn()
        checks[name] = bool(ok)
        details[name] = data
        texts.append(text)
    bar.close()

    files = {
        "table": out_dir / "base_table.txt",
        "json": out_dir / "base.json",
        "figure": out_dir / "base_1d.png",
    }
    _figure(files["figure"], details["timing"])
    ok = all(checks.values())
    elapsed = time.perf_counter() - t_start
    header = (
        f"wpart {wpart.__version__} reproduce base ({'quick' if quick else 'full'}) | "
        f"{platform.platform()} | {platform.python_version()} | NumPy {np.__version__}"
    )
    summary_rows = [[name, ok_fail(v)] for name, v in checks.items()]
    table = "\n\n".join(
        [header]
        + texts
        + [format_table(["check", "result"], summary_rows,
                        title=f"base: {'all checks OK' if ok else 'SOME CHECKS FAILED'} "
                              f"({elapsed:.1f} s)")]
    )
    # The base layer has no paper of its own (its values are hand-checked), so it
    # reports no headline figures; it still returns the verdict fields every family returns.
    vs = Verdicts("base")
    table += "\n\n" + vs.summary_line() + " (the 1D building block has no paper section 5)"
    files["table"].write_text(table + "\n")
    write_json(files["json"], {
        "family": "base",
        "verdicts": vs.to_list(),
        "counts": vs.counts(),
        "ok": ok,
        "quick": quick,
        "checks": checks,
        "golden": details["golden"],
        "bounds": details["bounds"],
        "prefix": details["prefix"],
        "hetero": details["hetero"],
        "timing": details["timing"],
        "wpart": wpart.__version__,
        "platform": platform.platform(),
        "seconds": elapsed,
    })
    return {
        "family": "base",
        "verdicts": vs.to_list(),
        "counts": vs.counts(),
        "ok": ok,
        "checks": checks,
        "table": table,
        "files": {k: str(v) for k, v in files.items()},
        "seconds": time.perf_counter() - t_start,
    }
