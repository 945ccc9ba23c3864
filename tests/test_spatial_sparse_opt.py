"""The exact jagged methods (JAG-PQ-OPT-NICOL, JAG-PQ-OPT-DP, JAG-M-OPT) and JAG-M-ALLOC on the
nonzeros of a sparse matrix: the same optimum and, with integer loads, the same partition as the
dense code on ``A.toarray()`` (every orientation; ties, zeros, empty rows and columns,
degenerate sizes, more parts than cells), the optimum of a brute-force enumeration on tiny
matrices, and no dense copy (the densify guard never trips)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import spatial
from wpart.spatial._common import _Prepared
from wpart.spatial._sparse import SparseInput

from oracles import spatial as oracle

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

EXACT = ("jag_pq_opt_nicol", "jag_pq_opt_dp")


@pytest.fixture(autouse=True)
def _nonzero_route(monkeypatch):
    """The nonzero route at every size and density, so the small random cases test it; a
    dense copy of a sparse input fails the test."""
    monkeypatch.setattr("wpart.spatial._sparse.SPARSE_MIN_CELLS", 0)
    monkeypatch.setattr("wpart.spatial._common.SPARSE_DENSITY", 1)

    def no_dense(self, *a, **k):
        raise AssertionError("a sparse input was densified")

    monkeypatch.setattr(SparseInput, "dense", no_dense)


def _matrix(rng, n1, n2, kind):
    D = np.where(rng.random((n1, n2)) < rng.choice([0.05, 0.2, 0.6]),
                 rng.integers(1, 9, (n1, n2)), 0).astype(np.int64)
    if kind == "ties":
        D = (D > 0).astype(np.int64)
    elif kind == "zeros":
        D[:] = 0
    elif kind == "holes" and n1 > 2 and n2 > 2:
        D[n1 // 2, :] = 0
        D[:, 1] = 0
    return D


def test_sparse_equals_the_dense_dp():
    rng = np.random.default_rng(11)
    shapes = [(1, 1), (1, 6), (7, 1), (2, 2), (5, 8), (13, 4), (20, 17), (31, 9)]
    n = 0
    for t in range(120):
        n1, n2 = shapes[t % len(shapes)]
        D = _matrix(rng, n1, n2, ("int", "ties", "zeros", "holes")[t % 4])
        P = int(rng.integers(1, n1 + 1))
        Q = int(rng.integers(1, n2 + 1))
        A = sps.csr_array(D) if t % 2 else sps.coo_array(D)
        assert _Prepared(A, P * Q, True, sparse=True).sp is not None
        for meth in EXACT:
            for o in ("hor", "ver", "best"):
                a = getattr(spatial, meth)(A, P * Q, P=P, Q=Q, orient=o)
                d = getattr(spatial, meth)(D, P * Q, P=P, Q=Q, orient=o)
                np.testing.assert_array_equal(a.rects, d.rects)
                np.testing.assert_array_equal(a.loads, d.loads)
                assert a.max_load == d.max_load and a.status == d.status == "optimal"
                assert a.params["orient_used"] == d.params["orient_used"]
                n += 1
    assert n == 120 * 6


def test_sparse_optimum_is_the_brute_force_one():
    rng = np.random.default_rng(12)
    for t in range(60):
        n1, n2 = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        D = _matrix(rng, n1, n2, ("int", "ties", "holes")[t % 3])
        P = int(rng.integers(1, min(n1, 3) + 1))
        Q = int(rng.integers(1, min(n2, 3) + 1))
        A = sps.csr_array(D)
        L = D.tolist()
        hor = oracle.pq_jagged(L, P, Q)
        ver = oracle.pq_jagged(oracle.transpose(L), P, Q)
        for meth in EXACT:
            fn = getattr(spatial, meth)
            assert fn(A, P * Q, P=P, Q=Q, orient="hor").max_load == hor
            assert fn(A, P * Q, P=P, Q=Q, orient="ver").max_load == ver
            assert fn(A, P * Q, P=P, Q=Q).max_load == min(hor, ver)


def test_float_loads_same_optimum():
    rng = np.random.default_rng(13)
    for t in range(40):
        n1, n2 = (int(rng.integers(2, 25)), int(rng.integers(2, 25))) if t % 2 else \
            (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        D = np.where(rng.random((n1, n2)) < 0.15, rng.random((n1, n2)), 0.0)
        P, Q = int(rng.integers(1, min(n1, 4) + 1)), int(rng.integers(1, min(n2, 4) + 1))
        for meth in EXACT:
            fn = getattr(spatial, meth)
            a = fn(sps.csr_array(D), P * Q, P=P, Q=Q)
            b = fn(D, P * Q, P=P, Q=Q)  # the same nonzero route (a float array, sparse enough)
            np.testing.assert_array_equal(a.rects, b.rects)
            assert a.max_load == b.max_load
            if n1 <= 6 and n2 <= 6 and P <= 3 and Q <= 3:  # small enough to enumerate
                c = fn(sps.csr_array(D), P * Q, P=P, Q=Q, orient="hor")
                assert c.max_load == pytest.approx(oracle.pq_jagged(D.tolist(), P, Q),
                                                   rel=1e-9)


def test_degenerate_sizes_and_more_parts_than_cells():
    one = sps.csr_array(np.array([[7]]))
    for meth in EXACT:
        fn = getattr(spatial, meth)
        r = fn(one, 1)
        assert r.max_load == 7 and r.rects.tolist() == [[0, 1, 0, 1]]
        r = fn(one, 4, P=2, Q=2, allow_empty=True)
        assert r.max_load == 7 and r.rects.shape == (4, 4) and r.loads.sum() == 7
        D = np.array([[0, 3, 0], [1, 0, 0]])
        a = fn(sps.csr_array(D), 12, P=4, Q=3, allow_empty=True)
        b = fn(D, 12, P=4, Q=3, allow_empty=True)
        np.testing.assert_array_equal(a.rects, b.rects)
        assert a.max_load == b.max_load == 3
        Z = sps.csr_array((6, 5), dtype=np.int64)
        r = fn(Z, 6)
        assert r.max_load == 0 and r.success


def test_large_sparse_without_a_dense_copy(monkeypatch):
    monkeypatch.setattr(spatial, "MAX_DENSE_BYTES", 1)  # any dense copy would be refused
    A = spatial.instances.sparse_like("banded", 3000, seed=0)
    for meth in EXACT:
        r = getattr(spatial, meth)(A, 16, P=4, Q=4, orient="hor")
        assert r.status == "optimal" and r.loads.sum() == A.sum()
        r.validate()
    h = spatial.jag_pq_heur(A, 16, P=4, Q=4, orient="hor")
    assert r.max_load <= h.max_load


def test_time_limit_on_the_nonzeros():
    A = spatial.instances.sparse_like("powerlaw", 20_000, seed=1)
    r = spatial.jag_pq_opt_dp(A, 64, time_limit=1e-4)
    assert r.status == "time_limit"
    assert r.rects.shape in ((0, 4), (64, 4))


def test_jag_m_alloc_sparse_equals_dense():
    rng = np.random.default_rng(14)
    shapes = [(1, 1), (1, 6), (7, 1), (3, 3), (9, 14), (19, 6), (25, 25)]
    n = 0
    for t in range(140):
        n1, n2 = shapes[t % len(shapes)]
        D = _matrix(rng, n1, n2, ("int", "ties", "zeros", "holes")[t % 4])
        A = sps.csr_array(D)
        m = int(rng.integers(1, min(n1 * n2, 12) + 1))
        P = int(rng.integers(1, m + 1))
        inner = np.sort(rng.choice(np.arange(1, m), P - 1, replace=False)) if P > 1 else []
        counts = np.diff(np.r_[0, inner, m]).astype(np.int64)
        for kw in ({"counts": counts, "orient": "hor"}, {"counts": counts, "orient": "ver"},
                   {"orient": "best"}, {}):
            a = spatial.jag_m_alloc(A, m, **kw)
            d = spatial.jag_m_alloc(D, m, **kw)
            np.testing.assert_array_equal(a.rects, d.rects)
            np.testing.assert_array_equal(a.loads, d.loads)
            assert a.max_load == d.max_load and a.params == d.params
            n += 1
    assert n == 140 * 4
    one = sps.csr_array(np.array([[7]]))
    r = spatial.jag_m_alloc(one, 3, allow_empty=True)
    assert r.max_load == 7 and r.rects.shape == (3, 4)
    r = spatial.jag_m_alloc(one, 1, counts=[1], orient="ver")
    assert r.max_load == 7 and r.rects.tolist() == [[0, 1, 0, 1]]


def test_jag_m_opt_sparse_equals_dense_and_brute_force():
    rng = np.random.default_rng(15)
    shapes = [(1, 1), (1, 6), (7, 1), (3, 3), (9, 14), (19, 6), (22, 22)]
    for t in range(105):
        n1, n2 = shapes[t % len(shapes)]
        D = _matrix(rng, n1, n2, ("int", "ties", "zeros", "holes")[t % 4])
        A = sps.csr_array(D) if t % 2 else sps.csc_array(D)
        m = int(rng.integers(1, min(n1 * n2, 14) + 1))
        for o in ("hor", "ver", "best"):
            a = spatial.jag_m_opt(A, m, orient=o)
            d = spatial.jag_m_opt(D, m, orient=o)
            np.testing.assert_array_equal(a.rects, d.rects)
            np.testing.assert_array_equal(a.loads, d.loads)
            assert a.max_load == d.max_load and a.params == d.params
            assert a.status == "optimal"
    for t in range(40):  # tiny: the enumeration of every m-way jagged partition
        n1, n2 = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        D = _matrix(rng, n1, n2, ("int", "ties", "holes")[t % 3])
        m = int(rng.integers(1, min(n1 * n2, 5) + 1))
        L = D.tolist()
        hor, ver = oracle.m_jagged(L, m), oracle.m_jagged(oracle.transpose(L), m)
        A = sps.csr_array(D)
        assert spatial.jag_m_opt(A, m, orient="hor").max_load == hor
        assert spatial.jag_m_opt(A, m, orient="ver").max_load == ver
        assert spatial.jag_m_opt(A, m).max_load == min(hor, ver)
    r = spatial.jag_m_opt(sps.csr_array(np.array([[7]])), 3, allow_empty=True)
    assert r.max_load == 7 and r.rects.shape == (3, 4)


def test_jag_m_opt_large_sparse_and_time_limit(monkeypatch):
    monkeypatch.setattr(spatial, "MAX_DENSE_BYTES", 1)
    A = spatial.instances.sparse_like("block", 2000, seed=2)
    r = spatial.jag_m_opt(A, 16, orient="hor")
    assert r.status == "optimal" and r.loads.sum() == A.sum()
    assert r.max_load <= spatial.jag_m_heur_probe(A, 16, orient="hor").max_load
    t = spatial.jag_m_opt(spatial.instances.sparse_like("powerlaw", 20_000, seed=1), 256,
                          time_limit=1e-4)
    assert t.status == "time_limit"
