"""Benchmark of the block-size solver and the model fit of wpart.dynamic (Secs. 3.1-3.2 of [Sant'Ana 2017]).

(a) ``solve_equal_time`` (C) on fitted performance models for n = 2..64 PUs, against SciPy on
    the same problem (P_S): ``scipy.optimize.root`` (MINPACK hybr) on the equal-time system
    ``[E_p(x_p) - T = 0, sum x - S = 0]`` and ``scipy.optimize.minimize`` (SLSQP) on the
    min-max form, both with the models evaluated vectorised in NumPy from the packed
    coefficients. The whole solver table runs inside one ``threadpoolctl.threadpool_limits(1)``
    (one BLAS thread: SLSQP's small dense algebra only slows down with more; entering it
    around every SciPy call cost 0.5-0.65 ms a call and inflated ``root`` to 8-18 ms), and
    the JSON records the BLAS libraries and their thread counts. Times:

    * C: the solve and ``wpart_dynamic_equal_finish`` (solve and rounding) timed inside C by
      ``_dyn_timeit.c`` (compiled here with the system C compiler, calling the core's
      functions of the loaded ``wpart._core`` through their addresses: no Python in the
      loop), best call; without a C compiler, the binding's calls timed from Python
      (``c_harness`` false in the JSON);
    * binding: ``_core.dynamic_solve_equal_time`` called from Python;
    * public: ``solve_equal_time`` (validation included) and ``equal_finish`` (the integer
      sizes: solve and rounding in one call), against the earlier public route
      ``solve_equal_time`` + ``round_blocks``.

    Targets at n = 16: C <= 5 us, Python with rounding <= 15 us. The answers are compared
    (``|x - x_scipy| / S``), and the speed ratio and the scaling in n are reported.
(b) ``fit_model`` time per model against the number of samples m.

``python benchmarks/bench_dynamic_solver.py --quick`` is the CI-sized run. ``run(quick)``
returns the results as a dict (for ``benchmarks/bench_dynamic.py``). Timings are never
asserted.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from _common import ROOT, load_c, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import wpart.dynamic as dyn  # noqa: E402
from wpart import _core  # noqa: E402

TARGET_C_US_N16 = 5.0  # the solve in C at 16 PUs
TARGET_PY_US_N16 = 15.0  # equal_finish from Python at 16 PUs (solve and rounding)
SLSQP_MAX_N = 16  # SLSQP takes seconds beyond this
BLAS_THREADS = 1  # every SciPy baseline runs with one BLAS thread

#: The same measurements at commit 41710b3, before the Newton path (this script's best_time, the
#: same machine, n = 16): the binding's solve, the public solve and the public round_blocks, in
#: us; the route with rounding is their sum. (The issue's audit measured 24 us in C, 40 us
#: from Python, 74 us with rounding.)
BEFORE_N16 = {"commit": "41710b3", "t_binding_us": 30.1, "t_public_us": 57.9,
              "t_public_round_us": 40.6, "t_public_solve_and_round_us": 98.5}

__all__ = ["run", "main"]


_TIMEIT: list = []


def _timeit_c() -> Any:
    """``dyn_solve_timeit`` of _dyn_timeit.c (compiled once per process,
    _common.load_c), or None when that fails."""
    if _TIMEIT:
        return _TIMEIT[0]
    import ctypes

    fn = None
    try:
        here = Path(__file__).resolve().parent
        lib = load_c(here / "_dyn_timeit.c", "-I", str(ROOT / "csrc" / "include"))
        core = ctypes.CDLL(_core.__file__)
        addr = [ctypes.cast(getattr(core, name), ctypes.c_void_p) for name in (
            "wpart_dynamic_model_unpack", "wpart_dynamic_solve_equal_time",
            "wpart_dynamic_model_timefn", "wpart_dynamic_equal_finish")]
        f = lib.dyn_solve_timeit
        f.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64, ctypes.c_void_p, ctypes.c_double,
                                              ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
        f.restype = ctypes.c_int
        fn = (f, addr)
    except (OSError, AttributeError, subprocess.CalledProcessError):
        fn = None
    _TIMEIT.append(fn)
    return fn


def c_timeit(packed: np.ndarray, S: float, quantum: int, reps: int,
             budget: float) -> tuple[float, float, bool]:
    """(seconds per solve, seconds per equal_finish, timed in C?): best of `reps` calls in C,
    or the binding's calls timed from Python (best_time) without a C compiler."""
    h = _timeit_c()
    if h is None:
        t_s = best_time(lambda: _core.dynamic_solve_equal_time(packed, S, None, None, 1e-10,
                                                               1e-12, 200, 100, 0), budget)
        t_r = best_time(lambda: _core.dynamic_equal_finish(packed, int(S), quantum), budget)
        return t_s, t_r, False
    f, addr = h
    packed = np.ascontiguousarray(packed, dtype=np.float64)
    best = np.empty(2)
    st = f(*addr, packed.shape[0], packed.ctypes.data, S, quantum, reps, best.ctypes.data)
    if st != 0:
        raise RuntimeError(f"dyn_solve_timeit: status {st}")
    return float(best[0]), float(best[1]), True


def best_time(fn: Callable[[], Any], budget: float, reps_min: int = 5) -> float:
    """Best per-call wall time: batches of calls sized to ~1 ms, best batch mean."""
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    batch = max(1, int(1e-3 / one))
    best = float("inf")
    end = time.perf_counter() + budget
    k = 0
    while k < reps_min or time.perf_counter() < end:
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        best = min(best, (time.perf_counter() - t0) / batch)
        k += 1
    return best


def make_models(n: int, seed: int = 0) -> list[dyn.PerfModel]:
    """n fitted models of four shapes (affine, quadratic, exponential, cubic), 1 % noise."""
    rng = np.random.default_rng(seed)
    x = np.unique(np.geomspace(64, 65536, 12).astype(np.int64))
    u = x / x.max()
    out = []
    for p in range(n):
        k = p % 4
        scale = 1 + 4 * rng.random()
        t = [0.02 + u, u**2 + 0.05 * u, 0.05 * np.expm1(2 * u), 0.3 * u + 0.1 * u**3][k] * scale
        out.append(dyn.fit_model(x, np.abs(t * (1 + 0.01 * rng.standard_normal(x.size)))))
    return out


class NumpyModels:
    """The same models evaluated vectorised in NumPy (E_p(x_p) for all p at once)."""

    def __init__(self, models: Sequence[dyn.PerfModel]):
        P = np.stack([m.packed for m in models])
        self.mask = P[:, 0].astype(int)
        self.coef = P[:, 1:8]
        self.c0, self.xs, self.gs, self.gi = P[:, 8], P[:, 9], P[:, 10], P[:, 11]
        self.xa, self.xb, self.ea, self.eb, self.sh = P[:, 12], P[:, 13], P[:, 14], P[:, 15], P[:, 16]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        xc = np.clip(x, self.xa, self.xb)
        u = xc / self.xs
        ul = np.log(u)
        ue = np.exp(u)
        B = np.stack([u, u * u, u**3, ue, ul, u * ue, u * ul], axis=1)
        F = self.c0 + np.einsum("pi,pi->p", self.coef, B)
        E = F + self.gs * u + self.gi
        E = np.where(x > self.xb, self.eb + self.sh * (x - self.xb), E)
        return np.where(x <= 0, 0.0, E)


def blas_info() -> list[dict[str, Any]]:
    """The BLAS/OpenMP libraries loaded and their thread counts (threadpoolctl)."""
    from threadpoolctl import threadpool_info

    return [{k: v for k, v in d.items() if k in ("user_api", "internal_api", "num_threads",
                                                   "version", "filepath")}
            for d in threadpool_info()]


def bench_solver(quick: bool) -> list[dict[str, Any]]:
    """The solver table with BLAS_THREADS BLAS threads, the limit entered once (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(BLAS_THREADS):
        return _bench_solver(quick)


def scipy_root(E: NumpyModels, n: int, S: float, x0: np.ndarray, T0: float) -> tuple[np.ndarray, float]:
    from scipy.optimize import root

    def fun(z: np.ndarray) -> np.ndarray:
        return np.concatenate([E(z[:n]) - z[n], [z[:n].sum() - S]])

    r = root(fun, np.concatenate([x0, [T0]]), method="hybr", options={"xtol": 1e-14})
    return r.x[:n], float(r.x[n])


def scipy_slsqp(E: NumpyModels, n: int, S: float, x0: np.ndarray, T0: float) -> tuple[np.ndarray, float]:
    from scipy.optimize import minimize

    cons = [
        {"type": "ineq", "fun": lambda z: z[n] - E(z[:n])},
        {"type": "eq", "fun": lambda z: z[:n].sum() - S},
    ]
    r = minimize(lambda z: z[n], np.concatenate([x0, [T0]]), method="SLSQP",
                 bounds=[(0, None)] * n + [(0, None)], constraints=cons,
                 options={"ftol": 1e-15, "maxiter": 1000})
    return r.x[:n], float(r.x[n])


def _bench_solver(quick: bool) -> list[dict[str, Any]]:
    ns = (2, 4, 8, 16, 32) if quick else (2, 4, 8, 16, 32, 64)
    budget = 0.1 if quick else 0.4
    rows = []
    for n in ns:
        models = make_models(n, seed=n)
        S = 40000.0 * n
        packed = np.ascontiguousarray(np.stack([m.packed for m in models]))
        core = lambda: _core.dynamic_solve_equal_time(packed, S, None, None, 1e-10, 1e-12, 200, 100, 0)  # noqa: E731
        x, T = core()
        reps = 200 if quick else 3000
        t_c, t_c_round, in_c = c_timeit(packed, S, 1, reps, budget)
        t_core = best_time(core, budget)
        t_public = best_time(lambda: dyn.solve_equal_time(models, S), budget)
        W = int(S)
        t_equal = best_time(lambda: dyn.equal_finish(models, W), budget)
        t_old = best_time(lambda: dyn.round_blocks(models, dyn.solve_equal_time(models, S)[0], W), budget)
        assert dyn.equal_finish(models, W).sizes.tolist() == dyn.round_blocks(models, x, W)[0].tolist()
        E = NumpyModels(models)
        assert np.allclose(E(x), [m(v) for m, v in zip(models, x)], rtol=1e-12)
        # a neutral start for SciPy: equal shares
        x0 = np.full(n, S / n)
        T0 = float(E(x0).max())
        root1 = lambda: scipy_root(E, n, S, x0, T0)  # noqa: E731
        xr, Tr = root1()
        t_root = best_time(root1, budget, reps_min=2)
        if n <= SLSQP_MAX_N:
            slsqp1 = lambda: scipy_slsqp(E, n, S, x0, T0)  # noqa: E731
            xs, Ts = slsqp1()
            t_slsqp = min(_timed(slsqp1) for _ in range(1 if quick else 3))
        else:
            xs, Ts, t_slsqp = np.full(n, np.nan), float("nan"), float("nan")
        rows.append({
            "n": n, "S": S, "T": T, "active": int((x > 0).sum()),
            "t_c_us": t_c * 1e6, "t_c_round_us": t_c_round * 1e6, "c_harness": in_c,
            "t_core_us": t_core * 1e6, "t_public_us": t_public * 1e6,
            "t_equal_finish_us": t_equal * 1e6, "t_solve_round_us": t_old * 1e6,
            "t_root_us": t_root * 1e6, "t_slsqp_us": t_slsqp * 1e6, "blas_threads": BLAS_THREADS,
            "ratio_root": t_root / t_c, "ratio_slsqp": t_slsqp / t_c,
            "dx_root": float(np.abs(xr - x).max() / S), "dT_root": abs(Tr - T) / T,
            "dx_slsqp": float(np.abs(xs - x).max() / S), "dT_slsqp": abs(Ts - T) / T,
            "makespan_wpart": float(E(x).max()), "makespan_slsqp": float(E(xs).max()),
        })
    return rows


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench_fit(quick: bool) -> list[dict[str, Any]]:
    ms = (2, 8, 32, 128, 512) if quick else (2, 8, 32, 128, 512, 2048, 8192)
    budget = 0.05 if quick else 0.3
    rng = np.random.default_rng(1)
    sizes = np.unique(np.geomspace(64, 65536, 24).astype(np.int64))
    rows = []
    for m in ms:
        x = rng.choice(sizes, m)
        if m == 2:
            x = sizes[[3, 9]]
        t = (0.1 + x / 30000.0) * (1 + 0.02 * rng.standard_normal(m))
        tx = 0.01 + x / 1e6
        args = (x.astype(np.int64), np.abs(t), tx, 1, 0x7F, 1, 3, 0, 1.0, 0, 64, 0.5)
        t_core = best_time(lambda: _core.dynamic_fit_model(*args), budget)
        t_pub = best_time(lambda: dyn.fit_model(x, np.abs(t), t_xfer=tx), budget)
        rows.append({"m": m, "m_distinct": int(np.unique(x).size), "t_core_us": t_core * 1e6,
                     "t_public_us": t_pub * 1e6})
    return rows


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    a = np.log(np.asarray(xs, float))
    b = np.log(np.asarray(ys, float))
    return float(np.polyfit(a, b, 1)[0]) if len(a) > 1 else float("nan")


def environment() -> dict[str, Any]:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    import scipy

    return {"commit": commit, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "machine": platform.machine(),
            "processor": platform.processor(), "blas": blas_info(),
            "blas_threads_for_scipy": BLAS_THREADS}


def run(quick: bool = False) -> dict[str, Any]:
    """Run both parts; returns ``{"solver": rows, "fit": rows, "summary": ..., "env": ...}``."""
    solver = bench_solver(quick)
    fit = bench_fit(quick)
    r16 = next((r for r in solver if r["n"] == 16), None)
    summary = {
        "t_c_us_n16": r16["t_c_us"] if r16 else None,
        "t_c_round_us_n16": r16["t_c_round_us"] if r16 else None,
        "t_core_us_n16": r16["t_core_us"] if r16 else None,
        "t_public_us_n16": r16["t_public_us"] if r16 else None,
        "t_equal_finish_us_n16": r16["t_equal_finish_us"] if r16 else None,
        "ratio_root_n16": r16["ratio_root"] if r16 else None,
        "ratio_slsqp_n16": r16["ratio_slsqp"] if r16 else None,
        "target_c_us_n16": TARGET_C_US_N16,
        "target_py_us_n16": TARGET_PY_US_N16,
        "blas_threads": BLAS_THREADS,
        "before_n16": BEFORE_N16,
        "slope_core_vs_n": slope([r["n"] for r in solver], [r["t_c_us"] for r in solver]),
        "slope_fit_vs_m": slope([r["m"] for r in fit if r["m"] >= 32],
                                [r["t_core_us"] for r in fit if r["m"] >= 32]),
    }
    return {"solver": solver, "fit": fit, "summary": summary, "env": environment(),
            "quick": quick}


def report(res: dict[str, Any]) -> str:
    lines = [f"solve_equal_time on fitted models (best times, us; SciPy with {BLAS_THREADS} BLAS "
             "thread)",
             f"{'n':>3} {'active':>6} {'C':>6} {'C+rnd':>6} {'binding':>7} {'public':>7} "
             f"{'eq_fin':>7} {'old s+r':>7} {'root':>8} {'SLSQP':>9} {'x root':>7} {'x SLSQP':>8} "
             f"{'|dx|/S root':>11} {'|dx|/S SLSQP':>12}"]
    for r in res["solver"]:
        lines.append(f"{r['n']:>3} {r['active']:>6} {r['t_c_us']:>6.2f} {r['t_c_round_us']:>6.2f} "
                     f"{r['t_core_us']:>7.1f} {r['t_public_us']:>7.1f} {r['t_equal_finish_us']:>7.1f} "
                     f"{r['t_solve_round_us']:>7.1f} {r['t_root_us']:>8.0f} {r['t_slsqp_us']:>9.0f} "
                     f"{r['ratio_root']:>7.0f} {r['ratio_slsqp']:>8.0f} {r['dx_root']:>11.1e} "
                     f"{r['dx_slsqp']:>12.1e}")
    s = res["summary"]
    if s["t_c_us_n16"] is not None:
        okc = "PASS" if s["t_c_us_n16"] <= TARGET_C_US_N16 else "MISS"
        okp = "PASS" if s["t_equal_finish_us_n16"] <= TARGET_PY_US_N16 else "MISS"
        b = BEFORE_N16
        lines.append(f"n = 16: C {s['t_c_us_n16']:.2f} us (target <= {TARGET_C_US_N16:.0f}: {okc}); "
                     f"equal_finish from Python {s['t_equal_finish_us_n16']:.1f} us with rounding "
                     f"(target <= {TARGET_PY_US_N16:.0f}: {okp}); SciPy root / C = "
                     f"{s['ratio_root_n16']:.0f}x, SLSQP / C = {s['ratio_slsqp_n16']:.0f}x "
                     f"({BLAS_THREADS} BLAS thread)")
        lines.append(f"before ({b['commit']}): binding {b['t_binding_us']} us, public solve "
                     f"{b['t_public_us']} us, public solve + round_blocks "
                     f"{b['t_public_solve_and_round_us']} us (sum)")
    lines.append(f"scaling of the core time in n: slope {s['slope_core_vs_n']:.2f} (model: 1)")
    lines.append("")
    lines.append("fit_model time per model")
    lines.append(f"{'m':>6} {'distinct':>8} {'core us':>9} {'public us':>9}")
    for r in res["fit"]:
        lines.append(f"{r['m']:>6} {r['m_distinct']:>8} {r['t_core_us']:>9.1f} {r['t_public_us']:>9.1f}")
    lines.append(f"scaling of the fit time in m (m >= 32): slope {s['slope_fit_vs_m']:.2f}")
    lines.append(f"env: {res['env']}")
    return "\n".join(lines)


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _jsonable(w) for k, w in v.items()}
    if isinstance(v, list):
        return [_jsonable(w) for w in v]
    if isinstance(v, float) and v != v:
        return None
    return v


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "benchmarks" / "results" / "bench_dynamic_solver.json")
    a = ap.parse_args(argv)
    res = run(a.quick)
    print(report(res))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(_jsonable(res), indent=2))
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
