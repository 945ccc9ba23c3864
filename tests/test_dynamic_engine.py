"""The engine of wpart.dynamic: incremental model fits (PLB-HAC's evaluations cost the same
after 10 or 10,000 blocks), bit-identical simulations per seed, and the benchmark's quick mode.

The incremental fit keeps the 9 x 9 triangular factor of the weighted rows
[x, x^2, x^3, e^x, ln x, x e^x, x ln x, 1, t] (u = x / x_hi) and selects the model from it;
it must give the batch fit's model (every sample) and numpy.linalg.lstsq's least squares.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wpart import WpartNotImplementedError, _core
import wpart.dynamic as dyn

ROOT = Path(__file__).resolve().parent.parent
BASIS = (
    lambda u: u,
    lambda u: u * u,
    lambda u: u**3,
    np.exp,
    np.log,
    lambda u: u * np.exp(u),
    lambda u: u * np.log(u),
)


def _fit(x, tc, tx=None, **opts):
    inc, bat, _ = _core.dynamic_fit_incremental(
        np.asarray(x, dtype=np.int64), np.asarray(tc, dtype=float),
        None if tx is None else np.asarray(tx, dtype=float), 1, opts)  # fmt: skip
    return inc, bat


def _pred(packed, x):
    """F(u) of a packed model at the sizes x (inside its fitted range)."""
    mask, coef, c0, xs = int(packed[0]), packed[1:8], packed[8], packed[9]
    u = np.asarray(x, dtype=float) / xs
    f = np.full(u.shape, c0)
    for i in range(7):
        if mask >> i & 1:
            f = f + coef[i] * BASIS[i](u)
    return f


def _cases():
    rng = np.random.default_rng(19)
    out = []
    for k in range(40):
        n = int(rng.integers(3, 400))
        lo = int(rng.integers(1, 10**6))
        span = [2, 10, 1000][k % 3]
        x = rng.integers(lo, lo * span + 2, n)
        if k % 5 == 0:
            x = rng.choice(x[: max(3, n // 10)], n)  # many duplicates
        a, b, c = rng.uniform(0, 1e-5), rng.uniform(0, 1), rng.uniform(0, 1e-11)
        t = (a * x + b + c * x.astype(float) ** 2) * (1 + 0.05 * rng.standard_normal(n))
        t = np.abs(t)
        tx = None if k % 2 else np.abs(1e-7 * x + 0.01 * rng.standard_normal(n))
        out.append((x, t, tx))
    # ill-conditioned: sizes in a narrow band (the basis columns nearly collinear), exact data
    x = np.arange(10**6, 10**6 + 50)
    out.append((x, 3e-6 * x + 0.5, None))
    out.append((x, 1e-12 * x.astype(float) ** 2 + 1e-6 * x, None))
    x = np.array([1, 2, 3, 4, 5, 6, 7, 8] * 3)
    out.append((x, 0.5 * x + 1.0, x * 0.0))
    return out


@pytest.mark.parametrize("case", range(43))
def test_incremental_fit_equals_batch_fit(case):
    x, t, tx = _cases()[case]
    inc, bat = _fit(x, t, tx)
    # same model: mask, kind, sample counts exactly; values to rounding
    assert inc[0] == bat[0] and inc[21] == bat[21] and inc[19] == bat[19] and inc[20] == bat[20]
    scale = max(1.0, np.max(np.abs(t)))
    np.testing.assert_allclose(_pred(inc, x), _pred(bat, x), rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(inc[9:17], bat[9:17], rtol=1e-9, atol=1e-9 * scale)


@pytest.mark.parametrize("case", range(43))
def test_incremental_fit_equals_lstsq(case):
    x, t, tx = _cases()[case]
    inc, _ = _fit(x, t, tx)
    mask, c0 = int(inc[0]), inc[8]
    u = x / inc[9]
    cols = [BASIS[i](u) for i in range(7) if mask >> i & 1]
    if int(inc[21]) == 0 and c0 != 0.0:  # a fitted candidate with a constant term
        cols.append(np.ones_like(u))
    if int(inc[21]) == 2:  # the proportional fallback: least squares through 0, clamped
        cols = [u]
    A = np.column_stack(cols)
    sol = np.linalg.lstsq(A, t, rcond=None)[0]
    if int(inc[21]) == 2:
        sol = np.maximum(sol, 0.0)
    ref = A @ sol
    scale = max(1.0, np.linalg.norm(t))
    assert np.linalg.norm(_pred(inc, x) - ref) <= 1e-9 * scale
    # the SSE the model reports is the sum of squared residuals
    assert inc[17] == pytest.approx(np.sum((_pred(inc, x) - t) ** 2), rel=1e-6, abs=1e-20 * scale**2)


def test_incremental_fit_with_decay_and_relative_weights():
    rng = np.random.default_rng(5)
    x = rng.integers(1000, 50000, 300)
    t = (2e-5 * x + 0.1) * (1 + 0.03 * rng.standard_normal(300))
    t[::37] = 0.0  # zero times weigh like the smallest positive one (relative weighting)
    for opts in ({"decay": 0.8}, {"decay": 0.97}, {"weighting": 1}, {"weighting": 1, "decay": 0.9}):
        inc, bat = _fit(x, t, None, **opts)
        assert inc[0] == bat[0] and inc[21] == bat[21], opts
        np.testing.assert_allclose(_pred(inc, x), _pred(bat, x), rtol=1e-9, atol=1e-12)


def test_plbhac_simulation_is_bit_identical_per_seed():
    for pl in ("paper5", "hetero3"):
        a = dyn.simulate(pl, "plbhac", seed=7, n=2**18)
        b = dyn.simulate(pl, "plbhac", seed=7, n=2**18)
        assert a.trace.tobytes() == b.trace.tobytes()
        assert a.makespan == b.makespan
        assert np.array_equal(a.series["X"], b.series["X"])
        assert int(a.elements.sum()) == 2**18


def test_plbhac_window_option_keeps_the_batch_fit():
    # fit.window > 0 refits over the last `window` samples (bounded cost by construction)
    pl = dyn.Platform.preset("paper5")
    r = dyn.simulate(pl, dyn.PLBHAC(pl.m, 2**18, window=16), seed=1)
    assert int(r.elements.sum()) == 2**18


def test_engine_benchmark_quick_mode(tmp_path):
    out = tmp_path / "engine.json"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    p = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_dynamic_engine.py"), "--quick", "--json", str(out)],
        capture_output=True, text=True, timeout=120, env=env, cwd=ROOT,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    import json

    doc = json.loads(out.read_text())
    assert {"eval_cost", "events_per_cpu_s"} <= set(doc)
    assert all(r["after_us"] > 0 for r in doc["eval_cost"])


# ---- balancers written in Python run in the same event engine ---------------------------------


class PyGreedy(dyn.PyBalancer):
    """Greedy(chunk) written in Python."""

    def __init__(self, m, n, chunk=1024):
        super().__init__(m, n)
        self.chunk = chunk
        self._kw = {"chunk": chunk}

    def start(self, now):
        return [a for p in range(self.m) if (a := self.assign(p, self.chunk))]

    def on_complete(self, pu, block_id, t_xfer, t_comp, now):
        self.completed(block_id)
        a = self.assign(pu, self.chunk)
        return [a] if a else []


@pytest.mark.parametrize("pl", ["paper5", "hetero3", "adapt2", "linear4"])
def test_python_greedy_simulates_like_the_c_greedy(pl):
    P = dyn.Platform.preset(pl)
    for seed in (0, 3):
        a = dyn.simulate(P, dyn.Greedy(P.m, 2**18, chunk=999), seed=seed)
        b = dyn.simulate(P, PyGreedy(P.m, 2**18, chunk=999), seed=seed)
        assert a.trace.tobytes() == b.trace.tobytes()
        assert np.array_equal(a.idle_breakdown, b.idle_breakdown) and a.makespan == b.makespan
        assert b.balancer == "PyGreedy"
        # the block sizes per PU over time, as the C Greedy records them
        assert np.array_equal(a.series.X, b.series.X) and np.array_equal(a.series.t, b.series.t)
        assert len(b.series) >= 1


class _Overlapping(PyGreedy):
    def on_complete(self, pu, block_id, t_xfer, t_comp, now):
        self.completed(block_id)
        a = self.assign(pu, self.chunk)
        if a is None:
            return []
        return [a._replace(offset=a.offset - 1)]  # takes an element twice


class _Raising(PyGreedy):
    def on_complete(self, pu, block_id, t_xfer, t_comp, now):
        raise KeyError("from the balancer")


def test_python_balancer_errors_surface():
    with pytest.raises(ValueError, match="breaks the protocol"):
        dyn.simulate("linear4", _Overlapping(4, 1000, chunk=10))
    with pytest.raises(KeyError, match="from the balancer"):
        dyn.simulate("linear4", _Raising(4, 1000, chunk=10))
    with pytest.raises(WpartNotImplementedError, match=r"^PyBalancer must implement start\(now\)$"):
        dyn.simulate("linear4", dyn.PyBalancer(4, 100))


def test_python_balancer_runs_against_real_workers():
    rng = np.random.default_rng(0)
    task = dyn.GemmColumnsTask(rng.random((32, 32)), rng.random((32, 256)))
    res = dyn.run(PyGreedy(2, 256, chunk=32), task, [dyn.ThreadWorker(), dyn.ThreadWorker()])
    assert task.verify() and int(res.elements.sum()) == 256 and res.n_blocks == 8


def test_python_balancer_is_released_after_a_run():
    import gc
    import sys as _sys

    b = PyGreedy(4, 1000, chunk=10)
    before = _sys.getrefcount(b)
    dyn.simulate("linear4", b)
    gc.collect()
    assert _sys.getrefcount(b) == before
    b2 = PyGreedy(2, 100, chunk=10)
    before = _sys.getrefcount(b2)
    dyn.run(b2, None, [dyn.CallableWorker(lambda o, s: None) for _ in range(2)])
    gc.collect()
    assert _sys.getrefcount(b2) == before


def test_real_run_and_simulation_share_the_engine_bookkeeping():
    # the same C Greedy protocol through run(): the engine's trace has every block once, in
    # order of assignment, with the evaluation windows of the engine (none for Greedy)
    res = dyn.run(dyn.Greedy(3, 1000, chunk=37), None, [dyn.CallableWorker(lambda o, s: None) for _ in range(3)])
    assert res.trace["block"].tolist() == list(range(len(res.trace)))
    assert int(res.elements.sum()) == 1000 and res.eval_windows.shape == (0, 2)
    assert res.stats["n_events"] == len(res.trace)


class _EvalEvery(PyGreedy):
    """PyGreedy that makes the completing PU wait for an evaluation every 3rd completion."""

    def __init__(self, m, n, chunk=10):
        super().__init__(m, n, chunk)
        self.k, self.waiting, self.ran = 0, {}, []

    def on_complete(self, pu, block_id, t_xfer, t_comp, now):
        self.completed(block_id)
        self.k += 1
        if self.k % 3 == 0 and self._cursor < self.n:
            a = self.evaluate(pu=pu)
            self.waiting[a.token] = pu
            return [a]
        a = self.assign(pu, self.chunk)
        return [a] if a else []

    def eval_run(self, token):
        self.ran.append(token)

    def eval_done(self, token, now):
        a = self.assign(self.waiting.pop(token), self.chunk)
        return [a] if a else []


def test_python_balancer_with_evaluations_in_both_drivers():
    b = _EvalEvery(4, 2000, chunk=25)
    r = dyn.simulate("linear4", b, eval_cost=0.5)
    assert int(r.elements.sum()) == 2000 and r.n_evals == len(b.ran) > 0
    assert b.ran == list(range(1, b._next_token))  # the object's own tokens, each once
    assert r.eval_time == pytest.approx(0.5 * r.n_evals)
    b2 = _EvalEvery(2, 300, chunk=10)
    res = dyn.run(b2, None, [dyn.CallableWorker(lambda o, s: None) for _ in range(2)])
    assert int(res.elements.sum()) == 300 and res.n_evals == len(b2.ran) > 0
    assert np.all(np.isfinite(res.eval_windows))


def test_python_balancer_series_in_run():
    ws = [dyn.CallableWorker(lambda off, size: None) for _ in range(2)]
    r = dyn.run(PyGreedy(2, 1000, chunk=64), None, ws)
    assert isinstance(r.series, np.recarray) and r.series.X.shape == (len(r.series), 2)
    assert len(r.series) >= 1 and set(r.series.X[0].tolist()) <= {0, 64}
