"""A time-limited exact jagged search returns the best partition it has: at least the
heuristic partition it starts from (it returned none: max_load nan, success False)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import spatial


@functools.lru_cache(maxsize=1)
def _inputs():
    return (np.random.default_rng(0).integers(0, 1000, (600, 600)),
            sps.random(6000, 6000, density=0.002, random_state=1, format="csr"))


@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("orient", ["best", "hor", "ver"])
def test_time_limited_jag_pq_opt_at_most_jag_pq_heur(k, orient):
    A = _inputs()[k]
    h = spatial.jag_pq_heur(A, 256, P=16, Q=16, orient=orient).max_load
    for fn in (spatial.jag_pq_opt_nicol, spatial.jag_pq_opt_dp):
        r = fn(A, 256, P=16, Q=16, orient=orient, time_limit=1e-4)
        assert r.status == "time_limit" and r.success, fn.__name__
        r.validate()
        assert r.rects.shape == (256, 4) and r.max_load <= h
        assert float(r.loads.max()) == float(r.max_load)
        assert r.loads.sum() == pytest.approx(r.total)


@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("orient", ["best", "hor", "ver"])
def test_time_limited_jag_m_alloc_at_most_jag_m_heur(k, orient):
    A = _inputs()[k]
    h = spatial.jag_m_heur(A, 256, orient=orient)
    r = spatial.jag_m_alloc(A, 256, orient=orient, time_limit=1e-4)
    assert r.status == "time_limit" and r.success
    r.validate()
    assert r.rects.shape == (256, 4) and r.max_load <= h.max_load
    assert r.loads.sum() == pytest.approx(r.total)


def test_untimed_results_unchanged_by_a_generous_limit():
    A = np.random.default_rng(2).integers(0, 50, (40, 30))
    for fn in (spatial.jag_pq_opt_nicol, spatial.jag_pq_opt_dp, spatial.jag_m_alloc):
        a, b = fn(A, 12), fn(A, 12, time_limit=100)
        assert a.status == b.status and "incumbent" not in b.params
        assert np.array_equal(a.rects, b.rects) and a.max_load == b.max_load
