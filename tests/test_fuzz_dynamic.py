"""Hostile input to wpart.dynamic: fit_model, solve_equal_time, capacity, round_blocks, the
balancer constructors, Platform / Device / curves and simulate.

Solutions are checked in closed form on linear curves ``E_p(x) = x / r_p`` (equal time
``T = S / sum r``, capacity ``x_p = r_p T``); simulations must process exactly the total."""

from __future__ import annotations

import math
import signal
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles.fuzz import budget, call, hostile_array, hostile_count, hostile_number

import wpart
import wpart.dynamic as d

F = "dynamic"
NAMES = ("x", "t_comp", "t_xfer", "models", "S", "T", "lb", "ub", "quantum", "x_cont", "n_pu",
         "total", "chunk", "blocks", "step", "pu_kinds", "peak_rates", "piece_times", "curve",
         "devices", "platform", "balancer", "seed", "x_init", "tol", "threshold")


def _lin(r: float):
    def f(x):
        with np.errstate(over="ignore"):
            return np.asarray(x, dtype=float) / r

    return f


rates = st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0, 7.0]), min_size=1, max_size=4)


@given(st.data())
def _fit(data):
    m = data.draw(st.integers(0, 8))
    good_x = st.lists(st.integers(1, 10_000), min_size=m, max_size=m)
    good_t = st.lists(st.floats(0.0, 10.0), min_size=m, max_size=m)
    x = data.draw(st.one_of(good_x, hostile_array(ndim=(0, 1, 2), max_side=6)))
    t = data.draw(st.one_of(good_t, hostile_array(ndim=(0, 1, 2), max_side=6)))
    kw = {}
    if data.draw(st.integers(0, 3)) == 0:
        k = data.draw(st.sampled_from(["quantum", "max_terms", "decay", "window", "grid_points",
                                       "slope_floor", "weighting", "basis"]))
        kw[k] = data.draw(st.one_of(hostile_count(), hostile_number()))
    r, exc = call(F, d.fit_model, x, t, names=NAMES, **kw)
    if exc is None:
        v = np.asarray(r.comp(np.array([1.0, 10.0, 100.0])), dtype=float)
        assert v.shape == (3,) and np.all(np.isfinite(v)) and np.all(v >= 0)


def test_fit_model(fuzz_budget):
    budget(fuzz_budget, 250)(_fit)()


@given(rates, st.one_of(st.integers(0, 10**6), st.floats(0, 1e6), hostile_number()))
def _equal_time(rs, S):
    r, exc = call(F, d.solve_equal_time, [_lin(v) for v in rs], S, names=NAMES)
    if exc is None:
        x, T = r
        Sf = float(S)
        assert math.isfinite(Sf) and Sf >= 0
        assert math.isclose(float(np.sum(x)), Sf, rel_tol=1e-8, abs_tol=1e-6)
        assert math.isclose(T, Sf / sum(rs), rel_tol=1e-6, abs_tol=1e-9)


def test_solve_equal_time(fuzz_budget):
    budget(fuzz_budget, 300)(_equal_time)()


@given(rates, st.one_of(st.floats(0, 1e6), hostile_number()), st.data())
def _capacity(rs, T, data):
    kw = {}
    if data.draw(st.integers(0, 3)) == 0:
        kw[data.draw(st.sampled_from(["lb", "ub"]))] = data.draw(
            hostile_array(ndim=(0, 1, 2), max_side=4))
    r, exc = call(F, d.capacity, [_lin(v) for v in rs], T, names=NAMES, **kw)
    if exc is None and not kw:
        x, H = r
        if math.isfinite(float(T)) and float(T) >= 0:
            np.testing.assert_allclose(x, [v * float(T) for v in rs], rtol=1e-6, atol=1e-6)


def test_capacity(fuzz_budget):
    budget(fuzz_budget, 300)(_capacity)()


@given(rates, st.data())
def _round(rs, data):
    n = len(rs)
    S = data.draw(hostile_count(st.integers(0, 10_000)))
    q = data.draw(hostile_count(st.integers(1, 64)))
    xc = data.draw(st.one_of(st.just(None), hostile_array(ndim=(0, 1, 2), max_side=5)))
    if xc is None:
        Sv = S if type(S) is int and S >= 0 else 0
        xc = np.array([Sv * v / sum(rs) for v in rs])
    r, exc = call(F, d.round_blocks, [_lin(v) for v in rs], xc, S, quantum=q, names=NAMES)
    if exc is None:
        x, T = r
        x = np.asarray(x)
        assert x.shape == (n,) and x.dtype == np.int64 and (x >= 0).all()
        assert int(x.sum()) == int(S)
        assert sum(int(v) % int(q) != 0 for v in x) <= 1
        assert math.isclose(float(T), max(float(v) / rv for v, rv in zip(x, rs)) if n else 0,
                            rel_tol=1e-9)


def test_round_blocks(fuzz_budget):
    budget(fuzz_budget, 300)(_round)()


CTORS = {
    "Greedy": lambda n, w, a: d.Greedy(n, w, chunk=a),
    "StaticEqual": lambda n, w, a: d.StaticEqual(n, w),
    "Static": lambda n, w, a: d.Static(a),
    "HDSS": lambda n, w, a: d.HDSS(n, w, x_init=a),
    "AcostaRP": lambda n, w, a: d.AcostaRP(n, w, a),
    "NaiveProfile": lambda n, w, a: d.NaiveProfile(n, w, x_init=a),
    "Asymmetric": lambda n, w, a: d.Asymmetric(n, w, a),
    "StaticPeak": lambda n, w, a: d.StaticPeak(w, a),
    "DmdaLike": lambda n, w, a: d.DmdaLike(w, a),
    "FixedBlocks": lambda n, w, a: d.FixedBlocks(w, a),
    "PLBHAC": lambda n, w, a: d.PLBHAC(n, w, x_init=a),
    "PLBHAC-kinds": lambda n, w, a: d.PLBHAC(n, w, pu_kinds=a),
}
GOOD_ARG = {"Greedy": 64, "StaticEqual": 0, "Static": [100, 200, 300, 400],
            "HDSS": 64, "AcostaRP": 64, "NaiveProfile": 64,
            "Asymmetric": ["cpu", "gpu", "cpu", "phi"], "StaticPeak": [1.0, 2.0, 3.0, 4.0],
            "DmdaLike": [1.0, 0.5, 0.25, 2.0], "FixedBlocks": [64, 32, 16, 8],
            "PLBHAC": 64, "PLBHAC-kinds": ["cpu", "gpu", "cpu", "gpu"]}


@given(st.sampled_from(sorted(CTORS)), st.data())
def _balancers(name, data):
    n = data.draw(hostile_count(st.just(4)))
    w = data.draw(hostile_count(st.integers(1, 5000)))
    a = data.draw(st.one_of(st.just(GOOD_ARG[name]), hostile_count(),
                            hostile_array(ndim=(0, 1, 2), max_side=5)))
    b, exc = call(F, lambda: CTORS[name](n, w, a), names=NAMES)
    small = type(w) is int and w <= 5000  # simulating 2^40 elements is slow, not wrong
    if name == "Static" and exc is None:
        small = int(np.sum(b._args[0] if hasattr(b, "_args") else 0)) <= 10**6
    if exc is None and small:
        r, exc2 = call(F, d.simulate, d.Platform.preset("linear4"), b, trace=False,
                       names=NAMES)
        if exc2 is None:
            assert int(np.sum(r.elements)) == int(r.n)
            if name != "Static":
                assert int(r.n) == int(w)
            assert math.isfinite(r.makespan) and r.makespan >= 0


def test_balancer_constructors_and_simulate(fuzz_budget):
    budget(fuzz_budget, 400)(_balancers)()


@given(st.sampled_from(["workers", "eval_cost", "time_limit", "progress", "task", None]),
       st.one_of(hostile_number(), hostile_count(), st.sampled_from([[], "x", [None]])))
def _run(key, value):
    def kern(off, size):
        return None

    kw = {"workers": [d.CallableWorker(kern) for _ in range(3)], "task": None,
          "time_limit": 20.0}
    if key is not None:
        kw[key] = value
    bal = d.Greedy(3, 600, chunk=50)
    try:
        r, exc = call(F, d.run, bal, kw.pop("task"), kw.pop("workers"),
                      names=NAMES + ("workers", "worker", "task", "eval_cost", "time_limit",
                                     "progress"), **kw)
    except TimeoutError:  # documented for a (tiny) time_limit
        assert key == "time_limit"
        return
    if exc is None:
        if r.status == "time_limit":  # documented: the blocks finished by then, success False
            assert key == "time_limit" and not r.success and int(np.sum(r.elements)) <= 600
        else:
            assert int(np.sum(r.elements)) == 600


def test_real_run(fuzz_budget):
    budget(fuzz_budget, 100)(_run)()


@given(st.data())
def _platforms(data):
    args = [data.draw(st.one_of(hostile_number(), st.floats(0, 10))) for _ in range(3)]
    kind = data.draw(st.sampled_from(["Affine", "Saturating", "Power"]))
    curve, exc = call(F, lambda: getattr(d, kind)(*args[: 2 if kind == "Affine" else 3]),
                      names=NAMES + ("t0", "rate", "bsat", "c", "beta"))
    if exc is not None:
        return
    dk = data.draw(st.sampled_from(["cpu", "gpu", "phi", "tpu", 3, None]))
    hops = data.draw(st.sampled_from([[], [(1e-6, 1e9)], [(-1, 1e9)], [(0, 0)], [(1, 2)] * 5,
                                      "x", None]))
    dev, exc = call(F, lambda: d.Device(dk, 0, curve, hops=hops), names=NAMES + ("kind", "hops"))
    if exc is not None:
        return
    pl, exc = call(F, lambda: d.Platform([dev, dev]), names=NAMES)
    if exc is None:
        r, exc = call(F, d.simulate, pl, d.Greedy(2, 500, chunk=50), trace=False, names=NAMES)
        if exc is None:
            assert int(np.sum(r.elements)) == 500


def test_platform_device_curves(fuzz_budget):
    budget(fuzz_budget, 300)(_platforms)()


@given(st.sampled_from(["seed", "eval_cost", "eval_cost_mode", "eval_model", "eval_scale",
                        "dispatch_overhead", "max_events", "trace", "progress"]),
       st.one_of(hostile_number(), hostile_count(),
                 st.sampled_from(["const", "model", "x", (1.0,), (1.0, 2.0, 3.0)])))
def _simulate_options(key, value):
    pl = d.Platform.preset("linear4")
    try:
        r, exc = call(F, d.simulate, pl, d.Greedy(4, 4000, chunk=100), names=NAMES,
                      **{key: value})
    except wpart.WpartError as e:  # the documented event cap
        assert key == "max_events" and "max_events" in str(e)
        return
    if exc is None:
        assert int(np.sum(r.elements)) == 4000


def test_simulate_options(fuzz_budget):
    budget(fuzz_budget, 300)(_simulate_options)()


def test_fit_model_basis_of_the_wrong_type_names_basis():
    with pytest.raises(TypeError, match="`basis`"):
        d.fit_model([1, 2, 3], [0.1, 0.2, 0.3], basis=0)
    with pytest.raises(ValueError, match="`basis`"):
        d.fit_model([1, 2, 3], [0.1, 0.2, 0.3], basis=[1])


def test_round_blocks_infinite_upper_bound_means_none():
    fs = [_lin(1.0), _lin(2.0)]
    x, T = d.round_blocks(fs, [3.3, 6.7], 10, ub=np.inf)
    assert x.tolist() == [3, 7] and T == 3.5
    x, _ = d.round_blocks(fs, [3.3, 6.7], 10, ub=[np.inf, 8])
    assert x.tolist() == [3, 7]
    with pytest.raises(OverflowError, match="`ub`"):
        d.round_blocks(fs, [3.3, 6.7], 10, ub=[2.0**64, 8])


def test_sizes_and_scalars_of_the_wrong_kind_name_the_argument():
    with pytest.raises(OverflowError, match="`x`"):
        d.fit_model(np.array([1, 2**63 + 1], dtype=np.uint64), [0.1, 0.2])
    with pytest.raises(ValueError, match="`x`"):
        d.fit_model([1.0, np.inf], [0.1, 0.2])
    with pytest.raises(TypeError, match="`t_comp`"):
        d.fit_model([1, 2], ["a", "b"])
    with pytest.raises(TypeError, match="`S`"):
        d.solve_equal_time([_lin(1.0)], np.array([1.0]))
    with pytest.raises(TypeError, match="`T`"):
        d.capacity([_lin(1.0)], "1")
    with pytest.raises(TypeError, match="`lb`"):
        d.capacity([_lin(1.0)], 1.0, lb=["x"])


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX timers")
def test_oracle_milp_is_interruptible_by_its_control_hooks():
    # GLPK keeps the GIL, so the signal comes from a timer, not from another Python thread
    def handler(signum, frame):
        raise KeyboardInterrupt

    fs = [lambda x, a=a: a * np.asarray(x, float) ** 0.7 for a in np.linspace(1, 3, 20)]
    old = signal.signal(signal.SIGALRM, handler)
    t0 = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(KeyboardInterrupt):
            d.oracle_milp(fs, 1_000_003, breakpoints=200, time_limit=None)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - t0 < 20.0  # responsiveness, not speed: generous under load


@pytest.mark.parametrize("kw, err, what", [
    ({"breakpoints": 2**63}, OverflowError, "`breakpoints`"),
    ({"breakpoints": 10**6}, ValueError, "`breakpoints`"),
    ({"time_limit": "1"}, TypeError, "`time_limit`"),
    ({"n": 2**64}, OverflowError, "`n`"),
    ({"n": 2**60}, ValueError, "`n`"),
])
def test_oracle_milp_options_name_the_argument(kw, err, what):
    args = dict(n=10)
    args.update(kw)
    with pytest.raises(err, match=what):
        d.oracle_milp([_lin(1.0)], **args)


@pytest.mark.parametrize("key", ["quantum", "max_terms", "window", "grid_points"])
def test_fit_model_counts_beyond_int64_name_the_argument(key):
    with pytest.raises(OverflowError, match=f"`{key}`"):
        d.fit_model([1, 2], [0.1, 0.2], **{key: 2**63})
