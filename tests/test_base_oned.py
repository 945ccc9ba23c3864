"""Optimal 1D partitioning: every exact method equals independent oracles."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import wpart
from wpart import brute

EXACT = ("nicol", "bisect", "dp")
GOLD = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]


@pytest.mark.parametrize("q,opt", [(1, 44), (2, 23), (3, 17), (4, 14), (5, 11)])
@pytest.mark.parametrize("method", EXACT)
def test_golden_chain(method, q, opt):
    r = wpart.partition_1d(GOLD, q, method=method)
    assert r.max_load == opt
    assert r.exact


@pytest.mark.parametrize("q,seps", [(4, [0, 5, 7, 10, 11]), (5, [0, 4, 5, 7, 9, 11])])
@pytest.mark.parametrize("method", EXACT)
def test_golden_separators(method, q, seps):
    assert wpart.partition_1d(GOLD, q, method=method).separators.tolist() == seps


def _random_chain(rng, n, kind):
    if kind == "uniform":
        return rng.integers(0, 10, n)
    if kind == "zeros":
        a = rng.integers(0, 5, n)
        a[rng.random(n) < 0.5] = 0
        return a
    if kind == "ties":
        return np.full(n, rng.integers(0, 4))
    if kind == "heavy":
        a = rng.integers(0, 3, n)
        a[rng.integers(0, n)] = 50
        return a
    raise AssertionError(kind)


def _check_partition(r, a, m):
    s = r.separators
    assert s.shape == (m + 1,) and s.dtype == np.int64
    assert s[0] == 0 and s[-1] == len(a)
    assert np.all(np.diff(s) >= 0)
    W = np.concatenate([[0], np.cumsum(a)])
    np.testing.assert_array_equal(r.loads, W[s[1:]] - W[s[:-1]])
    want = r.loads.max() if r.speeds is None else (r.loads / r.speeds).max()
    assert r.max_load == want
    assert r.loads.sum() == r.total
    assert r.status == ("optimal" if r.exact else "feasible") and r.success


def test_exact_methods_equal_dp_oracle_thousands():
    """Nicol = bisection = DP = enumeration on thousands of random small chains."""
    rng = np.random.default_rng(2024)
    count = 0
    for trial in range(1500):
        n = int(rng.integers(1, 9))
        m = int(rng.integers(1, 11))  # includes m > n
        kind = ("uniform", "zeros", "ties", "heavy")[trial % 4]
        a = _random_chain(rng, n, kind)
        ref = brute.oned_dp(a.tolist(), m)
        results = [wpart.partition_1d(a, m, method=meth) for meth in EXACT]
        for r in results:
            assert r.max_load == ref, (a, m, r.method)
            _check_partition(r, a, m)
            if m <= n:
                assert np.all(np.diff(r.separators) >= 1), "normalised parts are non-empty"
        # separators depend only on B*: identical for every exact method
        for r in results[1:]:
            np.testing.assert_array_equal(r.separators, results[0].separators)
        if n <= 6 and m <= 5:
            best, _ = brute.oned_enumerate(a.tolist(), m)
            assert best == ref
        count += 1
    assert count == 1500


def test_exact_methods_on_larger_random_chains():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 400))
        m = int(rng.integers(1, 60))
        a = rng.integers(0, 1000, n) * (rng.random(n) < 0.8)
        vals = {meth: wpart.partition_1d(a, m, method=meth).max_load for meth in EXACT}
        assert len(set(vals.values())) == 1, vals
        assert vals["dp"] == brute.oned_dp(a.tolist(), m) if n * n * m < 2e5 else True


@given(st.lists(st.integers(0, 20), min_size=1, max_size=8), st.integers(1, 9))
def test_property_nicol_equals_enumeration(a, m):
    best, optimal = brute.oned_enumerate(a, m)
    r = wpart.partition_1d(a, m)
    assert r.max_load == best == r.loads.max()
    raw = wpart.partition_1d(a, m, normalize=False)
    assert tuple(raw.separators.tolist()) in optimal


def test_unnormalised_is_leftmost_greedy_optimum():
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 8))
        m = int(rng.integers(1, 6))
        a = rng.integers(0, 6, n)
        r = wpart.partition_1d(a, m, normalize=False)
        best, optimal = brute.oned_enumerate(a.tolist(), m)
        assert tuple(r.separators.tolist()) in optimal
        ok, seps = wpart.probe_1d(a, m, best)
        assert ok and seps.tolist() == r.separators.tolist()


def test_float_loads_exact_against_enumeration():
    rng = np.random.default_rng(5)
    for trial in range(600):
        n = int(rng.integers(1, 8))
        m = int(rng.integers(1, 7))
        a = rng.random(n) * 10
        if trial % 3 == 0:
            a[rng.random(n) < 0.4] = 0.0
        if trial % 5 == 0:
            a = np.round(a)  # ties
        best, _ = brute.oned_enumerate(a.tolist(), m)
        for meth in EXACT:
            r = wpart.partition_1d(a, m, method=meth)
            assert r.max_load == best, (a.tolist(), m, meth)


def test_heterogeneous_speeds_exact():
    rng = np.random.default_rng(99)
    for trial in range(1000):
        n = int(rng.integers(1, 8))
        m = int(rng.integers(1, 6))
        a = rng.integers(0, 10, n)
        if trial % 2:
            speeds = rng.integers(1, 5, m).astype(float)
        else:
            speeds = rng.random(m) * 3 + 0.1
        best, optimal = brute.oned_enumerate(a.tolist(), m, speeds=speeds.tolist())
        assert best == brute.oned_dp(a.tolist(), m, speeds=speeds.tolist())
        for meth in EXACT:
            r = wpart.partition_1d(a, m, method=meth, speeds=speeds)
            assert r.max_load == best, (a.tolist(), speeds.tolist(), meth)
            assert r.separators[0] == 0 and r.separators[-1] == n
            assert max(r.loads / speeds) == r.max_load
            assert tuple(r.separators.tolist()) in optimal  # leftmost greedy at B*


def test_heterogeneous_equal_speeds_match_homogeneous():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n, m = int(rng.integers(1, 50)), int(rng.integers(1, 10))
        a = rng.integers(0, 100, n)
        r0 = wpart.partition_1d(a, m)
        r1 = wpart.partition_1d(a, m, speeds=np.full(m, 2.0))
        assert r1.max_load == r0.max_load / 2


def test_heuristic_bounds():
    """DirectCut <= T/q + amax; recursive bisection <= 2 LB; both >= the optimum."""
    rng = np.random.default_rng(17)
    for _ in range(1000):
        n = int(rng.integers(1, 60))
        m = int(rng.integers(1, 20))
        a = rng.integers(0, 100, n)
        opt = wpart.partition_1d(a, m).max_load
        dc = wpart.partition_1d(a, m, method="direct_cut")
        rb = wpart.partition_1d(a, m, method="recursive_bisection")
        T, amax = int(a.sum()), int(a.max())
        assert dc.max_load * m <= T + amax * m
        assert opt * m <= T + amax * m  # the 1D upper bound of spec 2.1
        assert rb.max_load <= 2 * dc.lower_bound
        assert dc.max_load >= opt and rb.max_load >= opt
        assert not dc.exact
        _check_partition(dc, a, m)
        _check_partition(rb, a, m)


def test_heterogeneous_heuristics_valid():
    rng = np.random.default_rng(8)
    for _ in range(300):
        n, m = int(rng.integers(1, 40)), int(rng.integers(1, 8))
        a = rng.integers(0, 50, n)
        sp = rng.random(m) + 0.2
        opt = wpart.partition_1d(a, m, speeds=sp).max_load
        for meth in ("direct_cut", "recursive_bisection"):
            r = wpart.partition_1d(a, m, method=meth, speeds=sp)
            _check_partition(r, a, m)
            assert r.max_load >= opt


def test_monotone_in_m_and_bounds():
    rng = np.random.default_rng(21)
    a = rng.integers(0, 50, 40)
    prev = math.inf
    for m in range(1, 50):
        r = wpart.partition_1d(a, m)
        assert r.max_load <= prev
        assert r.max_load >= r.lower_bound
        prev = r.max_load
    assert prev == a.max()  # m >= n: the heaviest element


def test_degenerate_cases():
    r = wpart.partition_1d([0, 0, 0], 2)
    assert r.max_load == 0 and r.imbalance == 0.0
    r = wpart.partition_1d([5], 3)
    assert r.separators.tolist() == [0, 1, 1, 1] and r.max_load == 5
    r = wpart.partition_1d([7, 1], 1)
    assert r.separators.tolist() == [0, 2] and r.max_load == 8
    r = wpart.partition_1d([1, 2, 3], 3)
    assert r.separators.tolist() == [0, 1, 2, 3]
    for meth in wpart.METHODS_1D:
        assert wpart.partition_1d([4, 4, 4, 4], 2, method=meth).separators.tolist() == [0, 2, 4]


def test_huge_values_no_overflow():
    big = np.iinfo(np.int64).max // 4
    a = np.array([big, big, big, 1], dtype=np.int64)
    for meth in wpart.METHODS_1D:
        r = wpart.partition_1d(a, 2, method=meth)
        assert r.loads.sum() == 3 * big + 1
    assert wpart.partition_1d(a, 2).max_load == 2 * big


def test_probe():
    ok, seps = wpart.probe_1d(GOLD, 4, 14)
    assert ok and seps.tolist()[0] == 0 and seps.tolist()[-1] == 11
    ok, _ = wpart.probe_1d(GOLD, 4, 13)
    assert not ok
    ok, _ = wpart.probe_1d(GOLD, 20, 8)
    assert not ok  # element 9 > 8
    ok, _ = wpart.probe_1d([1.5, 2.5], 1, 4.0)
    assert ok


def test_result_helpers_and_plot(tmp_path):
    r = wpart.partition_1d(GOLD, 3)
    assert r.m == 3 and r.n == 11
    np.testing.assert_array_equal(r.owner(), np.repeat([0, 1, 2], np.diff(r.separators)))
    d = r.to_dict()
    assert d["max_load"] == 17 and d["separators"] == r.separators.tolist()
    import json

    json.dumps(d)
    assert "Partition1D" in repr(r) and "nicol" in repr(r)
    ax = r.plot(loads=GOLD)
    ax.figure.savefig(tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0
    r2 = wpart.partition_1d(GOLD, 3, speeds=[1, 2, 1])
    r2.plot()


def test_dtypes_give_same_answer():
    a = GOLD
    ref = wpart.partition_1d(a, 3)
    for conv in (
        lambda x: np.array(x, dtype=np.int32),
        lambda x: np.array(x, dtype=np.uint8),
        lambda x: tuple(x),
        lambda x: np.array(x, dtype=np.int64)[::-1][::-1].copy(),
        lambda x: np.repeat(np.array(x), 2)[::2],  # non-contiguous
    ):
        r = wpart.partition_1d(conv(a), 3)
        assert r.max_load == ref.max_load
        np.testing.assert_array_equal(r.separators, ref.separators)
    rf = wpart.partition_1d(np.array(a, dtype=np.float32), 3)
    assert rf.max_load == 17.0
    rb = wpart.partition_1d(np.array([True, False, True, True]), 2)
    assert rb.max_load == 2


def test_progress_callback_and_tqdm():
    calls = []
    a = np.random.default_rng(0).integers(0, 100, 2000)
    wpart.partition_1d(a, 300, method="dp", progress=lambda d, t: calls.append((d, t)))
    assert calls and all(t == 300 for _, t in calls)
    assert calls[-1][0] <= 300
    wpart.partition_1d(a, 30, method="dp", progress=True)


def test_all_combinations_small_exhaustive():
    """Every chain over {0, 1, 2} of length <= 5 and every m <= 6."""
    for n in range(1, 6):
        for a in itertools.product((0, 1, 2), repeat=n):
            for m in range(1, 7):
                best, _ = brute.oned_enumerate(list(a), m)
                for meth in EXACT:
                    assert wpart.partition_1d(a, m, method=meth).max_load == best
