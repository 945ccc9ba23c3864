"""wpart.hetero: TOPT, HEPOPTA, HTPOPTA, the load-balanced baseline and the oracles agree;
the results follow wpart's result protocol."""

import math
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from oracles import hetero as orc

import wpart
import wpart.hetero as wh

# A reconstructed instance of the worked example of Sec. 4 of Khaleghzadeh et al. (Figs. 10-11)
APP_T = [[1, 2, 4, 5], [3, 6, 8, 10], [1, 2, 3, 4], [1, 2, 3, 4]]
APP_E = [[2, 1, 4, 6], [2, 1, 6, 8], [5, 4, 7, 9], [1, 6, 8, 10]]
APPENDIX_A = [([1, 2, 3, 4], APP_T[i], APP_E[i]) for i in range(4)]


def random_instance(rng, m_max=4, points_max=6, smax=8, vmax=10, dyadic=False):
    """Up to `m_max` processors with up to `points_max` points each, sizes <= smax."""
    m = int(rng.integers(1, m_max + 1))
    prof = []
    for _ in range(m):
        k = int(rng.integers(0, points_max + 1))
        sizes = np.sort(rng.choice(np.arange(1, smax + 1), size=min(k, smax), replace=False))
        t = rng.integers(0, vmax, sizes.size).astype(float)
        e = rng.integers(0, vmax, sizes.size).astype(float)
        if dyadic:
            t = t / 4.0 + rng.integers(0, 4, sizes.size) / 8.0
            e = e / 4.0
        prof.append((sizes.astype(np.int64), t, e))
    tot = sum(int(s[-1]) if s.size else 0 for s, _, _ in prof)
    n = int(rng.integers(0, tot + 2))
    return prof, n


def check_front(prof, n, f):
    """Feasibility, consistency, order, non-dominance."""
    k = len(f)
    assert f.dist.shape == (k, len(prof))
    for j in range(k):
        X = f.dist[j]
        assert X.sum() == n
        T, E, _ = orc.evaluate(prof, [int(v) for v in X])
        assert f.time[j] == T and f.dynamic_energy[j] == E
    assert np.all(np.diff(f.energy) > 0) and np.all(np.diff(f.time) < 0)


def vectors(f):
    return list(zip(f.energy.tolist(), f.time.tolist()))


def test_appendix_a_front_and_topt():
    f = wh.pareto_front(APPENDIX_A, 4)
    assert vectors(f) == [(2.0, 6.0), (4.0, 3.0), (5.0, 2.0)]
    assert f.dist.tolist() == [[2, 2, 0, 0], [2, 1, 0, 1], [2, 0, 2, 0]]
    assert f.stats["t_opt"] == 2.0 and f.stats["energy_threshold"] == 5.0
    t = wh.optimal_time(APPENDIX_A, 4)
    assert (t.time, t.energy, t.dist.tolist()) == (2.0, 5.0, [2, 0, 2, 0])


@pytest.mark.parametrize("ps_w, want", [
    (0.25, [(3.5, 6.0), (4.75, 3.0), (5.5, 2.0)]),
    (0.5, [(5.0, 6.0), (5.5, 3.0), (6.0, 2.0)]),
    (0.75, [(6.25, 3.0), (6.5, 2.0)]),
    (1.0, [(7.0, 2.0)]),
    (2.0, [(9.0, 2.0)]),
])
def test_appendix_a_htpopta(ps_w, want):
    f = wh.pareto_front(APPENDIX_A, 4, energy="total", static_power=ps_w)
    assert vectors(f) == want
    g = wh.total_energy_front(wh.pareto_front(APPENDIX_A, 4), ps_w)
    assert vectors(g) == want and np.array_equal(g.dist, f.dist)


def test_random_small_instances_equal_enumeration():
    """Thousands of small random instances with ties, holes, zeros, n = 0, m = 1."""
    rng = np.random.default_rng(2024)
    seen = {"n0": 0, "p1": 0, "empty": 0, "multi": 0}
    for it in range(3000):
        prof, n = random_instance(rng, dyadic=bool(it % 2))
        want = orc.naive_front(prof, n)
        f = wh.pareto_front(prof, n, balanced=False)
        check_front(prof, n, f)
        assert vectors(f) == [(E, T) for E, T, _ in want], (prof, n)
        # the C enumeration keeps the same representative as the naive oracle
        b = wh.bruteforce_front(prof, n)
        assert vectors(b) == vectors(f)
        assert [tuple(x) for x in b.dist.tolist()] == [X for _, _, X in want]
        d = wh.threshold_dp_front(prof, n)
        check_front(prof, n, d)
        assert vectors(d) == vectors(f) == orc.threshold_dp_front(prof, n) if want else True
        assert vectors(d) == vectors(f)
        t = wh.optimal_time(prof, n)
        if not want:
            assert t.status == "infeasible" and t.dist is None and not t.success
            assert len(f) == 0 and f.status == "infeasible"
            seen["empty"] += 1
            continue
        # fastest endpoint = TOPT (time and least energy at that time)
        assert (t.time, t.energy) == (f.time[-1], f.energy[-1])
        assert t.dist.sum() == n and orc.evaluate(prof, list(t.dist))[:2] == (t.time, t.energy)
        # most frugal endpoint
        e = wh.optimal_energy(prof, n)
        assert (e.energy, e.time) == (f.energy[0], f.time[0])
        # threshold invariance
        g = wh.pareto_front(prof, n, energy_threshold=math.inf, balanced=False)
        assert vectors(g) == vectors(f)
        # cardinality bound
        if n > 0:
            ct = {tt for s, ts, _ in prof for x, tt in zip(s, ts) if x <= n}
            assert len(f) <= len(ct)
        seen["n0"] += n == 0
        seen["p1"] += len(prof) == 1
        seen["multi"] += len(f) > 1
    assert min(seen.values()) > 20, seen


def test_htpopta_random_against_enumeration():
    rng = np.random.default_rng(7)
    for _ in range(400):
        prof, n = random_instance(rng, dyadic=True)
        ps_w = float(rng.choice([0.0, 0.25, 0.5, 1.0, 3.0]))
        f = wh.pareto_front(prof, n, energy="total", static_power=ps_w, balanced=False)
        ep = wh.pareto_front(prof, n, balanced=False)
        # brute-force total-energy front
        pts = []
        for X in orc.all_distributions(prof, n):
            T, E, _ = orc.evaluate(prof, X)
            pts.append((E + ps_w * T, T))
        pts.sort()
        want, tmin = [], math.inf
        for te, T in pts:
            if T < tmin:
                want.append((te, T))
                tmin = T
        assert vectors(f) == want
        # TP is a subset of EP (as (time, dist)), the fastest point always survives
        ep_pairs = {(t, tuple(x)) for t, x in zip(ep.time.tolist(), ep.dist.tolist())}
        assert all((t, tuple(x)) in ep_pairs for t, x in zip(f.time.tolist(), f.dist.tolist()))
        if len(ep):
            assert f.time[-1] == ep.time[-1]
        if ps_w == 0.0:
            assert vectors(f) == vectors(ep)


def test_load_balanced_equals_enumeration():
    rng = np.random.default_rng(11)
    for it in range(800):
        prof, n = random_instance(rng, dyadic=bool(it % 2))
        for mode in ("max_active", "all_active"):
            want = orc.load_balanced(prof, n, mode)
            got = wh.load_balanced(prof, n, mode=mode)
            if want is None:
                assert got.status == "infeasible" and got.dist is None
            else:
                assert (got.time, got.energy, tuple(got.dist.tolist())) == want, (prof, n, mode)


@pytest.mark.parametrize("a, b, n, want", [((1, 3), (1, 2), 8, 3), ((2, 2), (1, 1), 10, 1)])
def test_linear_two_processors_examples(a, b, n, want):
    f = wh.pareto_front(wh.linear_profiles(a, b, n), n)
    assert len(f) == want == orc.linear2_count(n, a, b)


def test_linear_two_processors_count_formula():
    """The exact count of the two-processor linear front (Sec. 10.2 of the paper), collinear
    points."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        a = tuple(int(v) for v in rng.integers(1, 9, 2))
        b = tuple(int(v) for v in rng.integers(1, 9, 2))
        n = int(rng.integers(1, 60))
        f = wh.pareto_front(wh.linear_profiles(a, b, n), n, balanced=False)
        assert len(f) == orc.linear2_count(n, a, b), (a, b, n)
        if b[0] != b[1]:
            k = 0 if b[0] < b[1] else 1
            on = f.dist[:, k] >= math.ceil(n * a[1 - k] / (a[0] + a[1]))
            slope = (b[k] - b[1 - k]) / a[k]
            assert np.allclose(f.energy[on], b[k] * n + slope * (f.time[on] - a[k] * n))


def test_linear_three_processors_envelope():
    """Three linear processors a = (1,2,3), b = (1,3,2), n = 22: 11 points, 8 on the convex
    envelope (the front is not linear for m >= 3, unlike the claim of the paper's Sec. 1)."""
    a, b, n = (1, 2, 3), (1, 3, 2), 22
    f = wh.pareto_front(wh.linear_profiles(a, b, n), n)
    assert len(f) == 11
    env = np.array([orc.envelope(n, a, b, t) for t in f.time])
    assert np.all(f.energy >= env - 1e-9)
    on = np.isclose(f.energy, env, rtol=0, atol=1e-9)
    assert sorted(f.time[on].tolist()) == [12, 15, 17, 18, 19, 20, 21, 22]
    assert (f.time[-1], f.energy[-1]) == (12.0, 38.0) and (f.time[0], f.energy[0]) == (22, 22)


@pytest.mark.parametrize("preset, n", [("dgemm-like", 64 * 120), ("fft-like", 16 * 400)])
def test_medium_synthetic_equal_threshold_dp(preset, n):
    """Paper-shaped profiles cut to ~60 points."""
    ps = wh.synthetic(preset, seed=3, hi=64 * 60 if preset == "dgemm-like" else 1024 + 16 * 80)
    f = wh.pareto_front(ps, n)
    d = wh.threshold_dp_front(ps, n)
    assert len(f) > 3
    np.testing.assert_array_equal(f.time, d.time)
    np.testing.assert_array_equal(f.energy, d.energy)
    for x, t, e in zip(f.dist, f.time, f.energy):
        assert x.sum() == n and ps.evaluate(x) == (t, e)


def test_processor_permutation_and_scaling():
    rng = np.random.default_rng(3)
    for _ in range(200):
        prof, n = random_instance(rng)
        f = wh.pareto_front(prof, n, balanced=False)
        perm = rng.permutation(len(prof))
        g = wh.pareto_front([prof[i] for i in perm], n, balanced=False)
        # integer energies sum exactly in any order: the same front, bit for bit (decimal ones
        # may differ by a rounding: docs/hetero.rst, "Exact on the numbers it adds")
        assert np.array_equal(f.time, g.time) and np.array_equal(f.energy, g.energy)
        for fn in (wh.optimal_time, wh.optimal_energy):
            a, b = fn(prof, n), fn([prof[i] for i in perm], n)
            assert a.status == b.status and (a.time, a.energy) == (b.time, b.energy)
        s = wh.pareto_front([(x, 4.0 * t, 8.0 * e) for x, t, e in prof], n, balanced=False)
        assert np.array_equal(s.time, 4.0 * f.time) and np.array_equal(s.energy, 8.0 * f.energy)
        assert np.array_equal(s.dist, f.dist)


def test_adding_processor_and_removing_points():
    rng = np.random.default_rng(9)
    for _ in range(200):
        prof, n = random_instance(rng, m_max=3)
        f = wh.pareto_front(prof, n, balanced=False)
        extra, _ = random_instance(rng, m_max=1)
        g = wh.pareto_front(prof + extra, n, balanced=False)
        for t, e in zip(f.time, f.energy):  # every old point is weakly dominated by a new one
            assert np.any((g.time <= t) & (g.energy <= e))
        # removing a point never improves the front
        i = int(rng.integers(0, len(prof)))
        s, t_, e_ = prof[i]
        if s.size:
            cut = list(prof)
            cut[i] = (s[1:], t_[1:], e_[1:])
            h = wh.pareto_front(cut, n, balanced=False)
            for t, e in zip(h.time, h.energy):
                assert np.any((f.time <= t) & (f.energy <= e))


def test_degenerate_cases():
    one = [([2, 4], [1.0, 3.0], [0.5, 0.25])]
    assert vectors(wh.pareto_front(one, 4)) == [(0.25, 3.0)]
    assert len(wh.pareto_front(one, 3)) == 0  # not measured
    assert len(wh.pareto_front(one, 6)) == 0  # too large
    z = wh.pareto_front(APPENDIX_A, 0)
    assert vectors(z) == [(0.0, 0.0)] and z.dist.tolist() == [[0, 0, 0, 0]]
    assert wh.optimal_time(APPENDIX_A, 0).dist.tolist() == [0, 0, 0, 0]
    assert len(wh.pareto_front(APPENDIX_A, 17)) == 0
    # a processor with no points, zero times and energies
    prof = [(np.zeros(0, np.int64), [], []), ([1, 2], [0.0, 0.0], [0.0, 0.0])]
    f = wh.pareto_front(prof, 2)
    assert vectors(f) == [(0.0, 0.0)] and f.dist.tolist() == [[0, 2]]
    # n not a multiple of the grid
    g = [([64, 128], [1.0, 2.0], [1.0, 2.0])] * 2
    assert len(wh.pareto_front(g, 100)) == 0 and wh.optimal_time(g, 100).status == "infeasible"


def test_front_queries_and_metrics():
    """Hand-computed metrics on the worked-example front (e, t) = (2,6), (4,3), (5,2)."""
    f = wh.pareto_front(APPENDIX_A, 4)
    assert f.tradeoff(tol=0.05) == {"tol": 0.05, "time_gain_pct": 0.0, "energy_saving_pct": 0.0,
                                "extra_energy_pct": 0.0}
    # +100 % time allowed: from (5, 2) to (4, 3): saves 1 J of 5 (20 %); the paper's ratio is
    # (5 - 4) / 4 = 25 %. +100 % energy allowed: from (2, 6) to (4, 3): twice as fast.
    assert f.tradeoff(tol=1.0) == {"tol": 1.0, "time_gain_pct": 100.0, "energy_saving_pct": 20.0,
                               "extra_energy_pct": 25.0}
    assert f.tradeoff(tol=math.inf)["energy_saving_pct"] == pytest.approx(60.0)  # (5 - 2) / 5
    assert f.fastest().time == 2.0 and f.most_frugal().energy == 2.0
    assert f.min_energy_within(50).energy == 4.0  # time <= 3
    assert f.min_time_within(100).time == 3.0  # energy <= 4
    g = f.gains_vs_balanced()
    assert f.balanced.dist.tolist() == [1, 1, 1, 1]
    assert g["time_improvement_pct"] == pytest.approx(50.0)  # (3 - 2) / 2
    assert g["energy_saving_pct"] == pytest.approx(80.0)  # (10 - 2) / 10: never above 100
    assert g["extra_energy_pct"] == pytest.approx(400.0)  # (10 - 2) / 2, the paper's figure
    assert g["balanced_dominated"]
    # hypervolume with ref (7, 6): 1*4 + 3*2 + 1*1... by hand: points sorted by time
    assert f.hypervolume(ref=(7.0, 6.0)) == pytest.approx((7 - 2) * (6 - 5) + (7 - 3) * (5 - 4)
                                                      + (7 - 6) * (4 - 2))
    assert wh.hypervolume([2, 3, 6, 6.5], [5, 4, 2, 5.5], (7, 6)) == f.hypervolume(ref=(7.0, 6.0))
    d = f.to_dict()
    assert d["energy"] == [2.0, 4.0, 5.0] and d["balanced"]["dist"] == [1, 1, 1, 1]
    assert "points=3" in repr(f) and len(repr(f).splitlines()) <= 5
    e = wh.pareto_front(APPENDIX_A, 17)
    with pytest.raises(ValueError, match="empty"):
        e.fastest()


def test_plot():
    import matplotlib

    matplotlib.use("Agg")
    ax = wh.pareto_front(wh.synthetic("fft-like", seed=2), 16 * 600).plot()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "load-balanced" in labels
    import matplotlib.pyplot as plt

    plt.close("all")


def test_determinism():
    ps = wh.synthetic("dgemm-like", seed=5)
    a = wh.pareto_front(ps, 64 * 200)
    b = wh.pareto_front(wh.synthetic("dgemm-like", seed=5), 64 * 200)
    assert a.time.tobytes() == b.time.tobytes() and a.energy.tobytes() == b.energy.tobytes()
    assert np.array_equal(a.dist, b.dist)


def test_stats_counters_and_limits():
    ps = wh.synthetic("dgemm-like", seed=1)
    f = wh.pareto_front(ps, 17152)
    st = f.stats
    N = 17152 // 64
    assert st["granularity"] == 64 and st["t_opt"] == f.time[-1]
    assert 0 < st["cells"] <= (ps.m - 1) * (N + 1)
    assert st["energy_threshold"] == f.energy[-1]
    g = wh.pareto_front(ps, 17152, energy_threshold=math.inf)
    assert np.array_equal(g.energy, f.energy) and g.stats["cells"] >= st["cells"]
    with pytest.raises(wpart.WpartError, match="max_grid"):
        wh.pareto_front(ps, 17152, max_grid=100)
    big = wh.synthetic("dgemm-like", seed=1, hi=64000)
    r = wh.threshold_dp_front(big, 57600, time_limit=0.05)
    assert r.status == "time_limit" and r.empty and not r.success and "time limit" in r.message
    with pytest.raises(ValueError, match="time_limit"):
        wh.pareto_front(ps, 64, time_limit=0)


def test_threads_give_identical_results():
    from concurrent.futures import ThreadPoolExecutor

    ps = wh.synthetic("fft-like", seed=2)
    ref = wh.pareto_front(ps, 16 * 900, balanced=False)
    with ThreadPoolExecutor(2) as ex:
        outs = list(ex.map(lambda _: wh.pareto_front(ps, 16 * 900, balanced=False), range(4)))
    for o in outs:
        assert o.energy.tobytes() == ref.energy.tobytes() and np.array_equal(o.dist, ref.dist)


def test_imbalance_classes():
    f = wh.pareto_front(APPENDIX_A, 4)
    im = f.imbalance_classes()
    with pytest.warns(DeprecationWarning, match="imbalance_classes"):
        assert f.imbalance() == im
    assert [d["class"] for d in im] == ["strong", "strong", "strong"]
    assert [d["lir"] for d in im] == [2.0, 1.0, 2.0 / 3.0]
    assert wh.classify([1, 1, 1, 1], [1, 1, 1, 1]) == "balanced"
    assert wh.classify([2, 1, 2, 1], [1, 1, 1, 1]) == "weak"
    with pytest.raises(ValueError, match="same shape"):
        wh.classify([1, 1], [1, 1, 1])


@pytest.mark.parametrize("vmax", [6, 1000])
def test_random_medium_instances_equal_threshold_dp(vmax):
    """m = 3..5 processors, 20..60 random non-monotone points each with holes, N <= 300;
    vmax = 6 makes ties everywhere."""
    rng = np.random.default_rng(vmax)
    for _ in range(100):
        m = int(rng.integers(3, 6))
        prof = []
        for _ in range(m):
            k = int(rng.integers(20, 61))
            sizes = np.sort(rng.choice(np.arange(1, 101), size=k, replace=False))
            t = rng.integers(0, vmax, k) / 4.0
            e = rng.integers(0, vmax, k) / 8.0
            prof.append((sizes, t, e))
        n = int(rng.integers(1, 301))
        f = wh.pareto_front(prof, n, balanced=False)
        d = wh.threshold_dp_front(prof, n)
        assert vectors(f) == vectors(d), (m, n)
        if len(f):
            check_front(prof, n, f)
            g = wh.pareto_front(prof, n, balanced=False, energy_threshold=math.inf)
            assert vectors(g) == vectors(f)


# ---------------------------------------------------------------------------------------------
# the result protocol: status, success, message, stats, to_dict, ==, repr, plot


def test_distribution_and_front_follow_the_result_protocol():
    import dataclasses
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = wh.pareto_front(APPENDIX_A, 4)
    t = wh.optimal_time(APPENDIX_A, 4)
    for r in (f, t, f.balanced, f.fastest(), wh.load_balanced(APPENDIX_A, 4)):
        assert isinstance(r, wpart.Result)
        assert r.status == "optimal" and r.success and isinstance(r.message, str) and r.message
        assert isinstance(r.stats, dict)
        d = json.loads(json.dumps(r.to_dict()))
        assert d["status"] == "optimal" and d["success"] is True
        assert r == dataclasses.replace(r) and r == r
        assert len(repr(r).splitlines()) <= 5
        fig, ax = plt.subplots()
        assert r.plot(ax=ax) is ax
        assert r.plot() is not None
        plt.close("all")
    # equal results compare equal whatever their timings; different ones differ
    assert wh.pareto_front(APPENDIX_A, 4) == f and wh.optimal_time(APPENDIX_A, 4) == t
    assert f != wh.pareto_front(APPENDIX_A, 3) and t != wh.optimal_time(APPENDIX_A, 3)
    assert t.m == 4 and t.active == 2 and f.m == 4
    assert t.total_energy(1.0) == 7.0


@pytest.mark.parametrize("n", [17, 10**9])
def test_infeasible_workloads_come_back_in_status(n):
    for r in (wh.optimal_time(APPENDIX_A, n), wh.optimal_energy(APPENDIX_A, n),
              wh.load_balanced(APPENDIX_A, n)):
        assert r.status == "infeasible" and not r.success and r.dist is None
        assert math.isnan(r.time) and "16" in r.message  # the combined capacity
        assert len(repr(r).splitlines()) <= 5
    for f in (wh.pareto_front(APPENDIX_A, n), wh.threshold_dp_front(APPENDIX_A, n),
              wh.bruteforce_front(APPENDIX_A, n),
              wh.pareto_front(APPENDIX_A, n, energy="total", static_power=1.0)):
        assert f.status == "infeasible" and f.empty and not f.success
        assert f.dist.shape == (0, 4)
        assert f.to_dict()["success"] is False
    # a workload no combination reaches, below the capacity
    g = [([64, 128], [1.0, 2.0], [1.0, 2.0])] * 2
    r = wh.optimal_time(g, 100)
    assert r.status == "infeasible" and "no combination" in r.message


def test_time_limit_comes_back_in_status():
    big = wh.synthetic("dgemm-like", seed=1, hi=64000)
    for r in (wh.threshold_dp_front(big, 57600, time_limit=0.01),):
        assert r.status == "time_limit" and not r.success and r.empty
        assert r.dist.shape == (0, 5) and "time limit of 0.01 s" in r.message


def test_progress_callback_returning_false_cancels():
    ps = wh.synthetic("dgemm-like", seed=1)
    calls = []

    def stop(done, total):
        calls.append(done)
        return False

    with pytest.raises(wpart.CancelledError, match="progress callback returned False"):
        wh.threshold_dp_front(ps, 17152, progress=stop)
    assert calls
    # returning None (or anything else) does not stop it
    f = wh.pareto_front(ps, 6400, progress=lambda d, t: None)
    assert f.status == "optimal"


@pytest.mark.parametrize("call, exc, name", [
    (lambda: wh.optimal_time(APPENDIX_A, 4, time_limit="1"), TypeError, "time_limit"),
    (lambda: wh.optimal_time(APPENDIX_A, 4, time_limit=True), TypeError, "time_limit"),
    (lambda: wh.optimal_time(APPENDIX_A, 4, time_limit=-1), ValueError, "time_limit"),
    (lambda: wh.optimal_time(APPENDIX_A, 4, time_limit=math.nan), ValueError, "time_limit"),
    (lambda: wh.pareto_front(APPENDIX_A, 4, time_limit=0), ValueError, "time_limit"),
    (lambda: wh.pareto_front(APPENDIX_A, 4, progress="yes"), TypeError, "progress"),
    (lambda: wh.pareto_front(APPENDIX_A, 4, balanced=1), TypeError, "balanced"),
    (lambda: wh.pareto_front(APPENDIX_A, 4, max_grid=0), ValueError, "max_grid"),
    (lambda: wh.pareto_front(APPENDIX_A, 4, energy_threshold="1"), TypeError,
     "energy_threshold"),
    (lambda: wh.pareto_front(APPENDIX_A, 4, energy="total", static_power="5"), TypeError,
     "static_power"),
    (lambda: wh.optimal_time(APPENDIX_A, True), TypeError, "n"),
    (lambda: wh.optimal_time(APPENDIX_A, 2**63), OverflowError, "n"),
    (lambda: wh.bruteforce_front(APPENDIX_A, 4, max_leaves=0), ValueError, "max_leaves"),
    (lambda: wh.load_balanced(APPENDIX_A, 4, mode=3), TypeError, "mode"),
    (lambda: wh.threshold_dp_front(APPENDIX_A, 4, time_limit=[1]), TypeError, "time_limit"),
    (lambda: wh.pareto_front(APPENDIX_A, 4).tradeoff(tol="5%"), TypeError, "tol"),
    (lambda: wh.pareto_front(APPENDIX_A, 4).min_energy_within(-1), ValueError, "pct"),
    (lambda: wh.optimal_time(APPENDIX_A, 4).total_energy(-1.0), ValueError, "static_power"),
    (lambda: wh.total_energy_front(wh.pareto_front(APPENDIX_A, 4), math.inf), ValueError,
     "static_power"),
])
def test_bad_values_name_the_argument(call, exc, name):
    with pytest.raises(wpart.WpartError, match=f"`{name}`") as info:
        call()
    assert isinstance(info.value, exc)


def test_inf_time_limit_means_none():
    a = wh.pareto_front(APPENDIX_A, 4, time_limit=math.inf)
    assert a.status == "optimal" and a == wh.pareto_front(APPENDIX_A, 4)


def test_empty_front_queries_explain():
    e = wh.pareto_front(APPENDIX_A, 17)
    with pytest.raises(wpart.WpartValueError, match="infeasible"):
        e.fastest()
    assert e.hypervolume() == 0.0
    assert "infeasible" in repr(e)


@pytest.mark.parametrize("m", [1, 2, 3])
def test_energy_threshold_below_the_time_optimal_energy_is_refused(m):
    """As documented, for every number of processors (with one processor the check was
    skipped: the one distribution came back whatever the threshold)."""
    prof = [([1, 2], [1.0, 1.5], [5.0, 6.0])] * m
    e_opt = wh.optimal_time(prof, 2).energy
    with pytest.raises(wpart.WpartValueError, match="energy_threshold.*below the energy"):
        wh.pareto_front(prof, 2, energy_threshold=e_opt * 0.5)
    assert wh.pareto_front(prof, 2, energy_threshold=e_opt).energy[-1] == e_opt
