"""The interface of wpart.dynamic that checks rely on (issue 19, item 6 and "Interface that
checks rely on"), called exactly as the issue writes it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import wpart
import wpart.dynamic
from wpart.dynamic import (HDSS, PLBHAC, Greedy, Platform, equal_finish, simulate,
                           solve_equal_time)

PRESETS = ("paper5", "adapt2", "hetero3", "linear4")
NAMES = ("plb_hac", "plb_hec", "hdss", "greedy", "acosta", "dmda", "static")
SMALL = 1 << 13  # elements per simulated run: small, the interface is what is checked


def test_equal_finish_as_written():
    curves = [lambda x: 1e-3 * x, lambda x: 2e-3 * x, lambda x: 0.5 + 1e-3 * x]
    r = wpart.dynamic.equal_finish(curves, 1000, quantum=10)
    assert isinstance(r, wpart.Result)
    assert r.sizes.dtype == np.int64 and int(r.sizes.sum()) == 1000
    assert (r.sizes % 10 == 0).all()
    assert r.time == pytest.approx(max(c(float(s)) for c, s in zip(curves, r.sizes) if s > 0))
    assert r.status == "optimal" and r.success and isinstance(r.message, str)
    assert isinstance(r.to_dict(), dict)
    r1 = equal_finish(curves, 999)
    assert int(r1.sizes.sum()) == 999


def test_platform_preset_as_written():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for name in PRESETS:
            P = Platform.preset(name)
            assert all(isinstance(dv.name, str) for dv in P.devices)
            assert len(P.kinds) == len(P.devices) == P.m
            assert isinstance(P.total, int) and P.total == P.n
        Pb = Platform.preset("adapt2", case="b")
        assert Pb.fluctuations and Pb.fluctuations[0][3] == 8


def test_constructors_as_written():
    P = Platform.preset("hetero3")
    m, total = P.m, SMALL
    for b in (PLBHAC(m, total, pu_kinds=P.kinds), HDSS(m, total), Greedy(m, total, 256)):
        r = simulate(P, b, seed=0, trace=False)
        assert int(r.elements.sum()) == total
    assert Greedy(m, total, 256)._kw == Greedy(m, total, chunk=256)._kw


@pytest.mark.parametrize("name", NAMES)
def test_simulate_by_name_as_written(name):
    r = simulate("hetero3", name, seed=0, trace=False, n=SMALL)
    assert r.makespan > 0 and int(r.elements.sum()) == SMALL
    assert r.series.t.ndim == 1
    assert r.series.X.shape == (r.series.t.size, 3)
    assert np.array_equal(r.series["X"], r.series.X)


def test_simulate_builds_the_named_balancer_for_the_platform():
    # m from the platform, the total from the run (the platform's own n by default)
    P = Platform.preset("linear4")
    r = simulate(P, "greedy", seed=2, trace=False, n=4000, options={"chunk": 100})
    assert r.m == P.m and int(r.elements.sum()) == 4000 and int(r.blocks.sum()) == 40
    with pytest.raises(wpart.WpartTypeError,
                       match=r"^`n` and `options` apply to a balancer given by name only$"):
        simulate(P, Greedy(P.m, 4000, 100), options={"chunk": 100})
    with pytest.warns(DeprecationWarning, match=r"^simulate\(\): pass the balancer's options in "
                      r"`options=` \(chunk\); as keywords they are deprecated$"):
        r2 = simulate(P, "greedy", seed=2, trace=False, n=4000, chunk=100)
    assert r2.makespan == r.makespan
    with pytest.raises(wpart.WpartTypeError, match=r"^simulate\(\): chunk given twice \(as a "
                       r"keyword and in `options`\)$"):
        simulate(P, "greedy", n=4000, chunk=100, options={"chunk": 50})
    with pytest.raises(wpart.WpartTypeError, match="^.*[`']tracee[`'].*: a key of `options` that is "
                       "not an option of the balancer 'greedy'$"):
        simulate(P, "greedy", n=4000, options={"tracee": False})


def test_simulate_preset_names_and_series_matrix():
    r = simulate("adapt2", "plb_hac", seed=0, trace=False, n=1 << 17)  # robust: models by then
    s = r.series
    assert s.X.shape == (s.t.size, 4) and s.t.size > 0
    assert np.all(np.diff(s.t) >= 0)


def test_solve_equal_time_as_written():
    x, T = solve_equal_time([lambda v: 2.0 * v, lambda v: v], 30.0)
    np.testing.assert_allclose(x, [10.0, 20.0], rtol=1e-12)
    assert T == pytest.approx(20.0, rel=1e-12)


def _sizes_at(trace, m, t):
    """Each PU's latest block size assigned at or before t (0 before its first)."""
    X = np.zeros(m, dtype=np.int64)
    for row in trace[np.argsort(trace["t_assign"], kind="stable")]:
        if row["t_assign"] <= t:
            X[row["pu"]] = row["size"]
    return X


@pytest.mark.parametrize("name", ["greedy", "hdss", "static"])
def test_model_free_balancers_record_their_block_sizes(name):
    # a row whenever a PU's block size changes; series.X matches the trace's sizes at each row
    r = simulate("hetero3", name, seed=1, n=SMALL + 77)  # + 77: Greedy's last block is smaller
    s = r.series
    assert s.t.size >= 1 and s.X.shape == (s.t.size, 3)
    assert np.all(np.diff(s.t) > 0)  # changes at one time share a row
    for t, X in zip(s.t, s.X):
        assert X.tolist() == _sizes_at(r.trace, 3, t).tolist()
    last = _sizes_at(r.trace, 3, np.inf)
    assert s.X[-1].tolist() == last.tolist()
    q = simulate("hetero3", name, seed=1, n=SMALL + 77, trace=False)
    assert np.array_equal(q.series.X, s.X) and np.array_equal(q.series.t, s.t)


def test_run_result_series_is_a_record_array():
    from wpart.dynamic import CallableWorker, run

    ws = [CallableWorker(lambda off, size: None) for _ in range(2)]
    r = run(Greedy(2, 1000, 64), None, ws)
    assert isinstance(r.series, np.recarray)
    assert r.series.X.shape == (r.series.t.size, 2) and r.series.t.size >= 1
    assert set(r.series.X[-1].tolist()) <= {64, 1000 - 15 * 64}
