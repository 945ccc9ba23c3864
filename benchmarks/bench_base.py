"""Benchmarks for the base layer: 2D prefix sums and optimal 1D partitioning.

Two parts, one process:

(a) ``wpart.prefix_sum`` on square int64 and float64 matrices, against NumPy's double
    ``cumsum`` (the reference) and against a plain copy (the memory-bandwidth floor). The
    freshly allocating call is compared with ``A.copy()``; the call writing into a
    preallocated ``out`` is compared with ``np.copyto`` into a preallocated array, so both
    pairs pay (or skip) the same page faults.
(b) ``wpart.partition_1d`` with the exact methods ``nicol``, ``bisect`` and ``dp`` on seeded
    random integer chains (uniform and heavy-tailed loads): a sweep over ``n`` at fixed ``m``
    and a sweep over ``m`` at fixed ``n``. Every exact method must give the same max load (an
    assertion, not a timing). Log-log slopes of time vs ``n`` and vs ``m`` are fitted and
    compared with the complexities of the 1D algorithms (Sec. 2.2 of [Saule 2012]), and a
    pure NumPy bisection with a ``np.searchsorted`` probe serves as the baseline.

Run ``python benchmarks/bench_base.py --quick`` for the CI-sized run (every case, well under
a minute on 2 cores); the full run takes a few minutes. Timings are never asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import wpart  # noqa: E402
from wpart.experiments import best_of

EXACT = ("nicol", "bisect", "dp")

# Targets of part (a): wpart's own speed goals for the 2D prefix sum array (Sec. 2.1 of
# [Saule 2012]), measured against NumPy and a plain copy.
TARGET_SPEEDUP_VS_NUMPY = 3.0  # numpy / wpart >= 3
TARGET_RATIO_VS_COPY = 2.0  # wpart / copy <= 2
SLOPE_TOLERANCE = 0.3  # fitted slope <= model slope + 0.3 -> PASS


# --------------------------------------------------------------------------------------------
# timing and formatting helpers


def fit_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Slope of ``log y`` against ``log x`` (least squares); NaN with fewer than two points."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    keep = (xs > 0) & (ys > 0)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(xs[keep]), np.log(ys[keep]), 1)[0])


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Plain-text table: numbers right-aligned, text left-aligned."""
    cells = [[_fmt(v) for v in row] for row in rows]
    width = [len(h) for h in headers]
    for row in cells:
        width = [max(w, len(c)) for w, c in zip(width, row, strict=True)]
    numeric = [
        any(isinstance(row[i], (int, float, np.integer, np.floating)) for row in rows)
        for i in range(len(headers))
    ]

    def line(vals: Sequence[str]) -> str:
        out = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(vals, width, numeric, strict=True)
        ]
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in width)
    return "\n".join([line(headers), sep] + [line(r) for r in cells])


def _fmt(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "-"
        a = abs(v)
        if a < 1e-9:  # a fitted slope of a constant series is 0 up to rounding
            return "0.000"
        if a >= 1e6 or a < 1e-3:
            return f"{v:.3g}"
        if a >= 100:
            return f"{v:.1f}"
        return f"{v:.3f}"
    return str(v)


def pass_miss(ok: bool) -> str:
    """``"PASS"`` or ``"MISS"``."""
    return "PASS" if ok else "MISS"


def machine_info() -> dict:
    """Commit, platform and interpreter details printed with the results."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT, capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT, capture_output=True, text=True, timeout=10, check=False,
        ).stdout.strip()
        if dirty:
            commit += "+dirty"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for ln in fh:
                if ln.startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "commit": commit,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "cpu_usable": usable,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "wpart": wpart.__version__,
    }


# --------------------------------------------------------------------------------------------
# (a) prefix sums


def bench_prefix(sizes: Sequence[int], budget: float, seed: int) -> list[dict]:
    """Time ``wpart.prefix_sum`` against NumPy's double cumsum and a copy, per size and dtype."""
    # Warm-up outside the timings: the first large allocations of the process are slower
    # (glibc raises its mmap threshold only after the first large free), which would otherwise
    # penalise whichever case happens to run first.
    W = np.ones((512, 512), dtype=np.int64)
    for _ in range(5):
        wpart.prefix_sum(W), wpart.prefix_sum(W.astype(float)), np.cumsum(W, 0), W.copy()
    return [prefix_case(N, dtype, budget, seed) for N in sizes for dtype in ("int64", "float64")]


def prefix_case(N: int, dtype: str, budget: float, seed: int) -> dict:
    """One row of part (a): an ``N x N`` matrix of `dtype` (arrays freed on return)."""
    rng = np.random.default_rng([seed, N, dtype == "float64"])
    if dtype == "int64":
        A = rng.integers(0, 1000, size=(N, N), dtype=np.int64)
    else:
        A = rng.random((N, N)) * 1000.0
    S = wpart.prefix_sum(A)
    # Correctness of what is being timed (cheap next to the timings themselves).
    ref = np.cumsum(np.cumsum(A, axis=0), axis=1)
    if dtype == "int64":
        assert np.array_equal(S[1:, 1:], ref), f"prefix_sum != numpy for {N}^2 int64"
    else:
        assert np.allclose(S[1:, 1:], ref, rtol=1e-10, atol=0), f"prefix_sum != numpy {N}^2 f64"
    assert not S[0].any() and not S[:, 0].any()
    del ref
    out = np.empty_like(S)
    dst = np.empty_like(A)
    t_w, k_w, _ = best_of(lambda: wpart.prefix_sum(A), budget=budget, keep=False)
    t_wo, k_wo, _ = best_of(lambda: wpart.prefix_sum(A, out=out), budget=budget, keep=False)
    t_np, k_np, _ = best_of(lambda: np.cumsum(np.cumsum(A, axis=0), axis=1), budget=budget, keep=False)
    t_cp, k_cp, _ = best_of(A.copy, budget=budget, keep=False)
    t_ct, k_ct, _ = best_of(lambda: np.copyto(dst, A), budget=budget, keep=False)
    moved = A.nbytes + S.nbytes  # bytes moved by one prefix pass: read A, write S
    return {
        "n": N,
        "dtype": dtype,
        "wpart_ms": t_w * 1e3,
        "wpart_out_ms": t_wo * 1e3,
        "numpy_ms": t_np * 1e3,
        "copy_ms": t_cp * 1e3,
        "copyto_ms": t_ct * 1e3,
        "reps": {"wpart": k_w, "wpart_out": k_wo, "numpy": k_np, "copy": k_cp, "copyto": k_ct},
        "numpy_over_wpart": t_np / t_w,
        "numpy_over_wpart_out": t_np / t_wo,
        "wpart_over_copy": t_w / t_cp,
        "wpart_out_over_copyto": t_wo / t_ct,
        "wpart_out_GBps": moved / t_wo / 1e9,
        "pass_numpy": t_np / t_w >= TARGET_SPEEDUP_VS_NUMPY,
        "pass_copy": t_w / t_cp <= TARGET_RATIO_VS_COPY,
        "pass_copy_out": t_wo / t_ct <= TARGET_RATIO_VS_COPY,
    }


def prefix_table(rows: list[dict]) -> str:
    """Part (a) as text, with the note on what each column times."""
    body = [
        [r["n"], r["dtype"], r["wpart_ms"], r["wpart_out_ms"], r["numpy_ms"], r["copy_ms"],
         r["copyto_ms"], r["numpy_over_wpart"], pass_miss(r["pass_numpy"]),
         r["wpart_over_copy"], pass_miss(r["pass_copy"]), r["wpart_out_over_copyto"],
         pass_miss(r["pass_copy_out"]), r["wpart_out_GBps"]]
        for r in rows
    ]
    heads = ["N (NxN)", "dtype", "wpart ms", "w(out) ms", "numpy ms", "copy ms", "copyto ms",
             "np/wpart", ">=3", "wpart/copy", "<=2", "w(out)/copyto", "<=2", "w(out) GB/s"]
    note = (
        "wpart = wpart.prefix_sum(A) (allocates S); w(out) = prefix_sum(A, out=S) into a\n"
        "preallocated, already touched S; numpy = np.cumsum(np.cumsum(A, 0), 1) (allocates\n"
        "twice); copy = A.copy() (allocates); copyto = np.copyto(D, A) (preallocated).\n"
        "wpart/copy compares the allocating pair, w(out)/copyto the preallocated pair.\n"
        "Best-of-k wall times.\n"
        "GB/s counts one read of A plus one write of S."
    )
    return table(heads, body) + "\n" + note


# --------------------------------------------------------------------------------------------
# (b) 1D partitioning


def make_chain(dist: str, n: int, seed: int) -> np.ndarray:
    """Seeded random integer chain: ``uniform`` in [1, 1000] or ``heavy`` (Pareto tail)."""
    rng = np.random.default_rng([seed, n, 0 if dist == "uniform" else 1])
    if dist == "uniform":
        return rng.integers(1, 1001, size=n, dtype=np.int64)
    if dist == "heavy":
        # Lomax / Pareto II with shape 1.5: finite mean (200), infinite variance.
        return (np.floor(rng.pareto(1.5, size=n) * 100.0) + 1).astype(np.int64)
    raise ValueError(f"unknown distribution {dist!r}")


def numpy_bisect(a: np.ndarray, m: int) -> tuple[int, int]:
    """Pure NumPy baseline: integer bisection on the bottleneck with a searchsorted PROBE.

    The greedy probe gives each part the longest prefix of the rest with load <= B, found
    with ``np.searchsorted`` on the prefix array (one call per part). The search runs over
    ``[max(ceil(T/m), amax), floor(T/m) + amax]``: the lower bound and the DirectCut upper
    bound of the optimum (Sec. 2.2 of [Saule 2012]).

    Returns
    -------
    opt : int
        The optimal bottleneck.
    probes : int
        Number of probes made.
    """
    W = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(a, dtype=np.int64)))
    n = a.size
    T = int(W[-1])
    amax = int(a.max())
    lo = max(-(-T // m), amax)
    hi = max(lo, T // m + amax)
    probes = 0

    def probe(B: int) -> bool:
        t = 0
        for _ in range(m):
            t = int(np.searchsorted(W, W[t] + B, side="right")) - 1
            if t >= n:
                return True
        return False

    while lo < hi:
        mid = (lo + hi) // 2
        probes += 1
        if probe(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo, probes


def model_cost(method: str, n: int, m: int, amax: int) -> float:
    """Return the operation-count model of each 1D algorithm, up to a constant.

    The DP (with the monotone pointer) and Nicol's parametric search (with slicing) are the
    1D algorithms reviewed in Sec. 2.2 of [Saule 2012]; the bisection on the value uses the
    same PROBE.
    """
    lg = max(math.log2(max(n / m, 2.0)), 1.0)
    if method == "nicol":
        return (m * lg) ** 2  # O((q log(n/q))^2)
    if method in ("bisect", "numpy"):
        return m * lg * max(math.log2(amax + 1), 1.0)  # O(q log(n/q) log(amax))
    if method == "dp":
        return float(m) * n  # O(q n) with the monotone pointer
    raise ValueError(method)


def bench_1d(
    dists: Sequence[str],
    ns: Sequence[int],
    m_fixed: int,
    ms: Sequence[int],
    n_fixed: int,
    dp_cap: float,
    budget: float,
    seed: int,
) -> list[dict]:
    """One row per (sweep, distribution, n, m, method)."""
    rows = []
    cases = [("n", d, n, m_fixed) for d in dists for n in ns]
    cases += [("m", d, n_fixed, m) for d in dists for m in ms]
    for sweep, dist, n, m in cases:
        a = make_chain(dist, n, seed)
        amax = int(a.max())
        T = int(a.sum())
        values = {}
        for method in EXACT + ("numpy",):
            if method == "dp" and m * n > dp_cap:
                continue
            if method == "numpy":
                t, k, res = best_of(lambda a=a, m=m: numpy_bisect(a, m), budget=budget)
                opt, probes = res[0]
                core = float("nan")
            else:
                t, k, res = best_of(
                    lambda a=a, m=m, method=method: wpart.partition_1d(a, m, method=method),
                    budget=budget,
                )
                opt = res[0].max_load
                probes = res[0].stats["probes"]
                core = min(r.stats["seconds"] for r in res)
            values[method] = opt
            rows.append({
                "sweep": sweep, "dist": dist, "n": n, "m": m, "method": method,
                "total_ms": t * 1e3, "core_ms": core * 1e3, "reps": k, "probes": int(probes),
                "max_load": int(opt), "lower_bound": max(-(-T // m), amax), "amax": amax,
                "model": model_cost(method, n, m, amax),
            })
        # Correctness check (not a timing): every exact method and the baseline agree.
        assert len(set(values.values())) == 1, f"max_load differs for {dist} n={n} m={m}: {values}"
    return rows


def oned_table(rows: list[dict], sweep: str) -> str:
    """Part (b) as text: one line per (distribution, n, m), methods side by side."""
    sel = [r for r in rows if r["sweep"] == sweep]
    keys = []
    for r in sel:
        k = (r["dist"], r["n"], r["m"])
        if k not in keys:
            keys.append(k)
    body = []
    for dist, n, m in keys:
        by = {r["method"]: r for r in sel if (r["dist"], r["n"], r["m"]) == (dist, n, m)}
        any_r = next(iter(by.values()))

        def g(meth: str, field: str, by: dict = by) -> Any:
            return by[meth][field] if meth in by else float("nan")

        body.append([
            dist, n, m, any_r["max_load"], any_r["max_load"] / any_r["lower_bound"] - 1.0,
            g("nicol", "total_ms"), g("nicol", "core_ms"), g("nicol", "probes"),
            g("bisect", "total_ms"), g("bisect", "core_ms"), g("bisect", "probes"),
            g("dp", "total_ms") if "dp" in by else "skip",
            g("dp", "core_ms") if "dp" in by else "skip",
            g("numpy", "total_ms"), g("numpy", "total_ms") / g("nicol", "total_ms"),
            g("numpy", "total_ms") / g("bisect", "total_ms"),
        ])
    heads = ["dist", "n", "m", "Lmax", "gap_LB", "nicol ms", "core", "probes", "bisect ms",
             "core", "probes", "dp ms", "core", "numpy ms", "np/nicol", "np/bisect"]
    return table(heads, body)


ONED_NOTE = (
    "Lmax is the common optimum of every exact method (asserted equal, and equal to the NumPy\n"
    "baseline); gap_LB = Lmax / max(ceil(T/m), amax) - 1. '<method> ms' is the whole\n"
    "partition_1d call (input check, O(n) prefix build, solve, result object); 'core' is the\n"
    "solver alone as reported in stats['seconds'] (the prefix is built inside the call, so the\n"
    "API cannot take a precomputed one: 'core' is the figure the complexity bounds are about).\n"
    "probes = PROBE calls. numpy = pure NumPy bisection on the value with a np.searchsorted\n"
    "probe, prefix build included; np/nicol and np/bisect are its time over wpart's (whole\n"
    "call), i.e. wpart's speed-up. 'skip': DP left out where m*n exceeds the cap."
)


def slope_rows(rows: list[dict]) -> list[dict]:
    """Fitted log-log slopes per (sweep, distribution, method), with the model's slope."""
    bounds = {  # pure exponents of the complexity bounds, log factors dropped
        ("n", "nicol"): 0.0, ("n", "bisect"): 0.0, ("n", "dp"): 1.0, ("n", "numpy"): 0.0,
        ("m", "nicol"): 2.0, ("m", "bisect"): 1.0, ("m", "dp"): 1.0, ("m", "numpy"): 1.0,
    }
    out = []
    groups = []
    for r in rows:
        g = (r["sweep"], r["dist"], r["method"])
        if g not in groups:
            groups.append(g)
    for sweep, dist, method in groups:
        sel = [r for r in rows if (r["sweep"], r["dist"], r["method"]) == (sweep, dist, method)]
        x = [r[sweep] for r in sel]
        core = [r["core_ms"] for r in sel]
        tot = [r["total_ms"] for r in sel]
        s_model = fit_slope(x, [r["model"] for r in sel])
        s_core = fit_slope(x, core) if method != "numpy" else float("nan")
        s_tot = fit_slope(x, tot)
        s_probe = fit_slope(x, [r["probes"] for r in sel]) if method != "dp" else float("nan")
        # The core solve is judged against the model; for the n sweep the whole call also
        # contains the O(n) prefix build, so its bound is max(model, 1).
        judged = s_tot if method == "numpy" else s_core
        tot_bound = max(s_model, 1.0) if sweep == "n" else s_model
        out.append({
            "sweep": sweep, "dist": dist, "method": method, "points": len(sel),
            "range": f"{min(x)}..{max(x)}",
            "exponent": bounds[(sweep, method)], "model_slope": s_model,
            "core_slope": s_core, "total_slope": s_tot, "probe_slope": s_probe,
            "pass": bool(judged <= s_model + SLOPE_TOLERANCE),
            "total_pass": bool(s_tot <= tot_bound + SLOPE_TOLERANCE),
        })
    return out


def slope_table(srows: list[dict]) -> str:
    """Format the fitted slopes as text, with the note on how they are judged."""
    body = [
        [s["sweep"], s["dist"], s["method"], s["points"], s["range"], s["exponent"],
         s["model_slope"], s["core_slope"], pass_miss(s["pass"]), s["total_slope"],
         pass_miss(s["total_pass"]), s["probe_slope"]]
        for s in srows
    ]
    heads = ["vs", "dist", "method", "pts", "range", "exp", "model", "core slope", "PASS?",
             "total slope", "PASS?", "probes slope"]
    note = (
        "Slope of log(time) against log(n) or log(m) (numpy.polyfit). exp = the exponent of the\n"
        "complexity bound with log factors dropped (nicol O((m log(n/m))^2), bisect\n"
        "O(m log(n/m) log amax), dp O(m n)); model = the slope of that full bound, log factors\n"
        "and the measured amax included, fitted over the same grid points. 'core slope' (the\n"
        "solver alone) passes when <= model + 0.3 (for numpy the whole call is judged). 'total\n"
        "slope' is the whole call; in the n sweep its bound is max(model, 1) because the call\n"
        "builds the O(n) prefix. 'probes slope' is the slope of the PROBE count: it separates\n"
        "the growth in the number of probes from the growth in the cost of one probe (cache\n"
        "misses on a prefix array larger than the caches). Fewer than two points give '-'."
    )
    return table(heads, body) + "\n" + note


# --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the tables and write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run of every case")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bench_base.json",
                    help="JSON output path (default: benchmarks/results/bench_base.json)")
    ap.add_argument("--seed", type=int, default=20240531, help="random seed")
    args = ap.parse_args(argv)

    if args.quick:
        params = {
            "prefix_sizes": [512, 1024, 2048], "prefix_budget_s": 0.1,
            "dists": ["uniform", "heavy"], "n_sweep": [10**3, 10**4, 10**5, 10**6],
            "m_fixed": 64, "m_sweep": [4, 16, 64, 256, 1024], "n_fixed": 10**5,
            "dp_cap": 2e7, "budget_s": 0.05,
        }
    else:
        params = {
            "prefix_sizes": [512, 1024, 2048, 4096, 8192], "prefix_budget_s": 0.5,
            "dists": ["uniform", "heavy"], "n_sweep": [10**3, 10**4, 10**5, 10**6],
            "m_fixed": 64, "m_sweep": [4, 16, 64, 256, 1024, 4096], "n_fixed": 10**6,
            "dp_cap": 2e8, "budget_s": 0.3,
        }
    params["seed"] = args.seed
    params["quick"] = bool(args.quick)
    info = machine_info()
    t_start = time.perf_counter()

    print("wpart base benchmark: prefix sums and optimal 1D partitioning")
    print(f"commit {info['commit']}  |  {info['date']}")
    print(f"{info['platform']}  |  {info['cpu']}  |  {info['cpu_count']} CPUs "
          f"({info['cpu_usable']} usable)  |  Python {info['python']}, NumPy {info['numpy']}")
    print("parameters: " + ", ".join(f"{k}={v}" for k, v in params.items()))
    sys.stdout.flush()

    prefix = bench_prefix(params["prefix_sizes"], params["prefix_budget_s"], args.seed)
    print("\n(a) 2D prefix sum, best-of-k wall time")
    print(prefix_table(prefix))
    sys.stdout.flush()

    oned = bench_1d(params["dists"], params["n_sweep"], params["m_fixed"], params["m_sweep"],
                    params["n_fixed"], params["dp_cap"], params["budget_s"], args.seed)
    slopes = slope_rows(oned)
    print(f"\n(b1) 1D partitioning, n sweep at m = {params['m_fixed']} "
          f"(DP where m*n <= {params['dp_cap']:.0e})")
    print(oned_table(oned, "n"))
    print(f"\n(b2) 1D partitioning, m sweep at n = {params['n_fixed']}")
    print(oned_table(oned, "m"))
    print(ONED_NOTE)
    print("\n(b3) scaling: fitted log-log slopes vs the algorithms' complexity")
    print(slope_table(slopes))

    elapsed = time.perf_counter() - t_start
    print(f"\nall exact methods agreed on every case; elapsed {elapsed:.1f} s")
    result = {
        "benchmark": "bench_base",
        "machine": info,
        "params": params,
        "targets": {"numpy_over_wpart_min": TARGET_SPEEDUP_VS_NUMPY,
                    "wpart_over_copy_max": TARGET_RATIO_VS_COPY,
                    "slope_tolerance": SLOPE_TOLERANCE},
        "prefix": prefix,
        "oned": oned,
        "slopes": slopes,
        "exact_methods_agree": True,
        "elapsed_s": elapsed,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(_clean(result), indent=1, allow_nan=False) + "\n")
    print(f"wrote {args.out}")
    return 0


def _clean(o: Any) -> Any:
    """JSON-safe copy: NumPy scalars to Python, NaN and inf to None."""
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, np.generic):
        o = o.item()
    if isinstance(o, float) and not math.isfinite(o):
        return None
    return o


if __name__ == "__main__":
    sys.exit(main())
