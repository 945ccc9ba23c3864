"""wpart.hetero on large inputs: one time limit and Ctrl-C in every phase, overflowing energies,
and workloads beyond every processor's capacity (status "infeasible", an empty front).

A time limit is not an error: the result comes back with status "time_limit"."""

import math
import os
import signal
import threading
import time

import numpy as np
import pytest

import wpart
import wpart.hetero as wh


def _profiles(m: int, n_points: int, seed: int = 0) -> list:
    """m processors measured at every size 1..n_points, noisy linear time and energy."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(m):
        s = np.arange(1, n_points + 1)
        t = s * (1 + i) * (1 + 0.1 * rng.random(n_points))
        e = s * (2 - 0.3 * i) * (1 + 0.1 * rng.random(n_points))
        out.append((s, t, e))
    return out


# Large: every phase takes far longer than the limits below (seconds to minutes).
BIG = _profiles(4, 20_000)
N_BIG = 40_000
# HEPOPTA takes ~0.2 s here but the load-balanced baseline ~4 s: the baseline phase must obey
# the call's time limit and Ctrl-C too.
SLOW_BASELINE = _profiles(3, 4_000)
N_SLOW_BASELINE = 6_000
LIMIT = 0.5
# Wall-clock bounds are generous (this machine is shared): without the limit these calls run
# for seconds to minutes, and status "time_limit" says the core stopped on it.
SLACK = 10.0


def _timed(fn):
    t0 = time.perf_counter()
    r = fn()
    elapsed = time.perf_counter() - t0
    assert r.status == "time_limit" and "time limit" in r.message, r
    return r, elapsed


@pytest.mark.parametrize(
    "call",
    [
        lambda: wh.optimal_time(BIG, N_BIG, time_limit=LIMIT),
        lambda: wh.pareto_front(BIG, N_BIG, time_limit=LIMIT),
        lambda: wh.pareto_front(BIG, N_BIG, energy="total", static_power=50.0, time_limit=LIMIT),
        lambda: wh.load_balanced(BIG, N_BIG, time_limit=LIMIT),
        lambda: wh.load_balanced(BIG, N_BIG, mode="all_active", time_limit=LIMIT),
        lambda: wh.threshold_dp_front(BIG, N_BIG, time_limit=LIMIT),
        lambda: wh.optimal_energy(BIG, N_BIG, time_limit=LIMIT),
    ],
    ids=["optimal_time", "pareto_front", "htpopta", "load_balanced", "all_active", "threshold",
         "optimal_energy"],
)
def test_time_limit_honoured_on_large_profiles(call):
    r, elapsed = _timed(call)
    assert not r.success  # stopped before any answer: no distribution, no point
    assert getattr(r, "dist", None) is None or len(r.dist) == 0
    assert elapsed < LIMIT + SLACK


def test_one_time_limit_covers_the_baseline_phase():
    # without the baseline the front alone fits in the limit (~0.2 s here, the baseline ~4 s:
    # ~20x more); the limit is set from the front's own time so that it falls in the baseline
    # phase on a loaded or sanitized run too
    t0 = time.perf_counter()
    f = wh.pareto_front(SLOW_BASELINE, N_SLOW_BASELINE, balanced=False, time_limit=60)
    t_front = time.perf_counter() - t0
    assert f.status == "optimal" and len(f) > 1 and f.balanced is None
    limit = max(2.0, 4 * t_front)
    r, elapsed = _timed(
        lambda: wh.pareto_front(SLOW_BASELINE, N_SLOW_BASELINE, time_limit=limit)
    )
    assert elapsed < limit + SLACK
    # the front was complete when the baseline hit the limit: it is kept, and usable
    assert r.success and len(r) > 1 and r.balanced is None
    assert "load-balanced" in r.message


def _interrupt_after(delay: float, fn) -> float:
    timer = threading.Timer(delay, lambda: os.kill(os.getpid(), signal.SIGINT))
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            fn()
    finally:
        timer.cancel()
    return time.perf_counter() - t0


def test_ctrl_c_stops_the_baseline_phase():
    # SIGINT at 0.6 s lands in the load-balanced search (the front takes ~0.2 s)
    assert _interrupt_after(0.6, lambda: wh.pareto_front(SLOW_BASELINE, N_SLOW_BASELINE)) < SLACK


@pytest.mark.parametrize(
    "call",
    [lambda: wh.optimal_time(BIG, N_BIG), lambda: wh.load_balanced(BIG, N_BIG)],
    ids=["optimal_time", "load_balanced"],
)
def test_ctrl_c_stops_long_hetero_calls(call):
    assert _interrupt_after(0.3, call) < SLACK


# The enumeration over 6 processors x 60 points visits ~5e10 leaves: minutes without a limit.
BF = _profiles(6, 60)


def test_bruteforce_front_honours_time_limit_and_ctrl_c():
    r, elapsed = _timed(lambda: wh.bruteforce_front(BF, 180, max_leaves=10**12,
                                                    time_limit=LIMIT))
    assert not r.success and len(r) == 0 and elapsed < LIMIT + SLACK
    assert _interrupt_after(0.3, lambda: wh.bruteforce_front(BF, 180, max_leaves=10**12)) < SLACK
    with pytest.raises(wpart.CancelledError,
                       match=r"^stopped:\ the\ progress\ callback\ returned\ False"):
        wh.bruteforce_front(BF, 180, max_leaves=10**12, progress=lambda done, total: False)
    # small instances: the same exact front as before, and as HEPOPTA
    ps = _profiles(3, 30, seed=2)
    a = wh.bruteforce_front(ps, 40, time_limit=60, progress=lambda done, total: None)
    b = wh.pareto_front(ps, 40)
    assert a.status == "optimal" and np.array_equal(a.time, b.time)
    assert np.array_equal(a.energy, b.energy)


def test_limits_leave_small_results_unchanged():
    ps = _profiles(3, 60, seed=4)
    a = wh.pareto_front(ps, 100)
    b = wh.pareto_front(ps, 100, time_limit=60)
    assert np.array_equal(a.time, b.time) and np.array_equal(a.dist, b.dist)
    assert a.balanced.dist.tolist() == b.balanced.dist.tolist()
    assert wh.load_balanced(ps, 100, time_limit=60).dist.tolist() == a.balanced.dist.tolist()
    assert (wh.optimal_energy(ps, 100, time_limit=60).dist.tolist()
            == wh.optimal_energy(ps, 100).dist.tolist())
    assert (wh.optimal_time(ps, 100, time_limit=60).dist.tolist()
            == wh.optimal_time(ps, 100).dist.tolist())


# ---------------------------------------------------------------------------------------------
# energies whose sums overflow float64


@pytest.mark.parametrize(
    "call",
    [
        lambda ps: wh.pareto_front(ps, 8),
        lambda ps: wh.optimal_time(ps, 8),
        lambda ps: wh.optimal_energy(ps, 8),
        lambda ps: wh.load_balanced(ps, 8),
        lambda ps: wh.threshold_dp_front(ps, 8),
        lambda ps: wh.bruteforce_front(ps, 8),
    ],
)
def test_overflowing_energies_raise_value_error(call):
    x = np.arange(1, 9)
    ps = [(x, 1.0 * x, np.full(8, 1e308)), (x, 2.0 * x, np.full(8, 1e308))]
    with pytest.raises(ValueError, match="profiles: energies too large"):
        call(ps)


def test_large_but_summable_energies_are_fine():
    x = np.arange(1, 9)
    ps = [(x, 1.0 * x, np.full(8, 4e307)), (x, 2.0 * x, np.full(8, 4e307))]
    f = wh.pareto_front(ps, 8)
    assert np.isfinite(f.energy).all()
    # an unusable huge point (size beyond n) does not count
    y = np.array([1, 2, 100])
    ok = [(y, [1.0, 2.0, 3.0], [1.0, 2.0, 1e308]), (y, [1.0, 2.0, 3.0], [1.0, 2.0, 1e308])]
    assert len(wh.pareto_front(ok, 3)) >= 1


def test_static_power_overflow_names_it():
    x = np.arange(1, 9)
    ps = [(x, 1.0 * x, 1.0 * x)] * 2
    with pytest.raises(ValueError, match="static_power"):
        wh.pareto_front(ps, 8, energy="total", static_power=1e308)
    f = wh.pareto_front(ps, 8)
    with pytest.raises(ValueError, match="static_power"):
        wh.total_energy_front(f, 1e308)


# ---------------------------------------------------------------------------------------------
# n beyond every processor's capacity: status "infeasible", at any size


@pytest.mark.parametrize("n", [25, 10**6, 10**9, 10**15, 2**62])
def test_beyond_capacity_is_empty_small(n):
    x = np.arange(1, 9)
    ps = [(x, 1.0 * x, 1.0 * x)] * 3  # capacity 24
    f = wh.pareto_front(ps, n)
    assert len(f) == 0 and f.empty and f.status == "infeasible"
    assert wh.optimal_time(ps, n).status == "infeasible"
    assert wh.optimal_energy(ps, n).status == "infeasible"
    assert wh.load_balanced(ps, n).status == "infeasible"
    assert len(wh.threshold_dp_front(ps, n)) == 0
    assert len(wh.pareto_front(ps, n, energy="total", static_power=1.0)) == 0


@pytest.mark.parametrize("extra", [1, 10**7, 10**12])
def test_beyond_capacity_is_empty_big(extra):
    s = np.arange(1, 200_001)
    ps = [(s, 1.0 * s, 1.0 * s)] * 3  # capacity 600,000; n / g beyond max_grid for extra >= 1e7
    n = 600_000 + extra
    assert wh.pareto_front(ps, n).status == "infeasible"
    assert wh.optimal_time(ps, n).status == "infeasible"
    assert wh.load_balanced(ps, n).status == "infeasible"


def test_at_capacity_is_one_point():
    x = np.arange(1, 9)
    ps = [(x, 1.0 * x, 1.0 * x)] * 3
    f = wh.pareto_front(ps, 24)
    assert f.dist.tolist() == [[8, 8, 8]]
    assert math.isclose(f.time[0], 8.0)
