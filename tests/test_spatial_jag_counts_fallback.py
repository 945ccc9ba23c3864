"""JAG-M-ALLOC with caller-given counts stopped by its time limit returns a partition with those
counts (it returned none: max_load nan, success False): stripes by load share, each cut into
its parts; never below the untimed optimum for the same counts, dense, sparse and speeds. A
time-limited JAG-M-OPT never returns worse than JAG-M-ALLOC."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import spatial
from wpart.spatial._common import _ORIENT_CODE, _stripes_of

COUNTS = [12, 20, 16, 16, 24, 16, 8, 16, 16, 20, 12, 16, 16, 16, 16, 16]  # 16 stripes, m = 256


@functools.lru_cache(maxsize=1)
def _inputs():
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(0, 3000, (2, 36000))
    return (np.random.default_rng(0).integers(0, 1000, (600, 600)),
            sps.csr_array((rng.random(36000), (rows, cols)), shape=(3000, 3000)))


def _check(r, A, counts, orient):
    assert r.status == "time_limit" and r.success
    assert r.params["incumbent"] == "counts_stripes"
    r.validate()  # a tiling; each load the direct sum of A over its rectangle
    assert r.rects.shape == (sum(counts), 4)
    _cuts, got = _stripes_of(r.rects, _ORIENT_CODE[orient], A.shape)
    assert got == counts or sum(got) == sum(counts)  # empty stripes may merge their counts
    assert r.loads.sum() == pytest.approx(r.total)


@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("orient", ["hor", "ver"])
def test_time_limited_alloc_with_given_counts_returns_those_counts(k, orient):
    A = _inputs()[k]
    r = spatial.jag_m_alloc(A, 256, counts=COUNTS, orient=orient, time_limit=1e-4)
    _check(r, A, COUNTS, orient)
    assert float(r.max_load) == float(r.loads.max())
    opt = spatial.jag_m_alloc(A, 256, counts=COUNTS, orient=orient)
    assert "incumbent" not in opt.params and opt.max_load <= r.max_load
    assert r.max_load <= 1.5 * opt.max_load  # the fallback is a sensible partition


def test_time_limited_alloc_with_counts_and_speeds():
    A = _inputs()[0]
    sp = np.random.default_rng(2).uniform(0.5, 2.0, 256)
    for orient in ("hor", "ver"):
        r = spatial.jag_m_alloc(A, 256, counts=COUNTS, orient=orient, speeds=sp,
                                time_limit=1e-4)
        _check(r, A, COUNTS, orient)
        assert r.max_load == pytest.approx(float((r.loads / sp).max()))
        opt = spatial.jag_m_alloc(A, 256, counts=COUNTS, orient=orient, speeds=sp)
        assert opt.max_load <= r.max_load * (1 + 1e-12)


def test_fallback_with_more_parts_than_columns_and_zero_loads():
    from wpart.spatial._jag_m import _counts_incumbent

    for D, counts in ((np.zeros((5, 4), np.int64), [2, 3]),
                      (np.array([[0, 1, 2], [3, 0, 0]]), [3, 5])):
        m = sum(counts)
        base = spatial.jag_m_alloc(D, m, counts=counts, allow_empty=True)
        stopped = base.__class__(**{**base.__dict__, "status": "time_limit",
                                    "max_load": float("nan"), "rects": base.rects[:0]})
        r = _counts_incumbent(stopped)
        assert r.params["incumbent"] == "counts_stripes"
        assert r.rects.shape == (m, 4) and r.max_load >= base.max_load
        assert r.loads.sum() == D.sum()
        covered = np.zeros(D.shape, np.int64)
        for r0, r1, c0, c1 in r.rects:
            covered[r0:r1, c0:c1] += 1
        assert (covered == 1).all()


def test_time_limited_jag_m_opt_never_worse_than_jag_m_alloc():
    # a limit shorter than JAG-M-ALLOC's own run: the fallback runs it to its end (it was cut
    # by the same limit and returned nothing or its heuristic start: 4 of 20 such cases worse)
    rng = np.random.default_rng(0)
    for _ in range(6):
        n1, n2 = (int(x) for x in rng.integers(100, 300, 2))
        m = int(rng.integers(20, 80))
        B = rng.integers(0, 100, (n1, n2))
        r = spatial.jag_m_opt(B, m, time_limit=1e-4)
        assert r.success and r.status in ("time_limit", "optimal")
        r.validate()
        for o in ("hor", "ver"):
            assert r.max_load <= spatial.jag_m_alloc(B, m, orient=o).max_load
