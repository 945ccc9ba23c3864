"""The starts of RECT-NICOL and JAG-PQ-HEUR run in one core call (validated once, a sparse
matrix's columns built once): each start's partition is the one its own single-start core call
gives (the oracle: the core's per-method start option on the dense prefix), the winner is the
first start of smallest max load (recomputed here from the dense array), on dense and sparse
inputs alike, with ties, zeros, empty rows and columns, more parts than cells and 1 x 1."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps

import wpart
from wpart import _core, spatial
from wpart.spatial._common import _Prepared
from wpart.spatial._starts import START_CODE

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

HEUR_ORDER = ("rows_load", "rows_uniform", "cols_load", "cols_uniform")
ORDER = {"rect_nicol": spatial.STARTS, "jag_pq_heur": HEUR_ORDER}
#: rect_nicol's former four-start engine is starts="all" (its default is the engine of #27)
FORMER = {"rect_nicol": {"starts": "all"}, "jag_pq_heur": {}}


@pytest.fixture(params=["sparse_route", "default_route"])
def route(request, monkeypatch):
    """Every case once with the nonzero route at every size and once with the default rule
    (small matrices on their dense prefix)."""
    if request.param == "sparse_route":
        monkeypatch.setattr("wpart.spatial._sparse.SPARSE_MIN_CELLS", 0)
    return request.param


def _single(D, m, method, name, P, Q, max_sweeps=100):
    """The oracle: one start through the core's single-start call, with the method's own
    start option (RECT-NICOL 1 = rows by load; JAG-PQ-HEUR 1 = uniform), on the route the
    matrix takes (its dense prefix, or its nonzeros: float loads are summed differently)."""
    orient = _core.SP_VER if name.startswith("cols") else _core.SP_HOR
    load = name.endswith("load")
    start = int(load) if method == "rect_nicol" else int(not load)
    code = _core.SP_RECT_NICOL if method == "rect_nicol" else _core.SP_JAG_PQ_HEUR
    kw = dict(orient=orient, P=P, Q=Q, max_sweeps=max_sweeps, start=start)
    pp = _Prepared(sps.csr_array(D), m, True, sparse=True)
    if pp.sp is not None:
        return _core.spatial_sparse_partition(pp.n1, pp.n2, *pp.sp.arrays(), P * Q, code,
                                              **kw)[0]
    S = _core.prefix_sum(np.ascontiguousarray(D), None, "A")
    return _core.spatial_partition(S, P * Q, code, **kw)[0]


def _direct_loads(D, rects):
    return np.array([D[r0:r1, c0:c1].sum() for r0, r1, c0, c1 in rects])


def _cases(seed, count):
    rng = np.random.default_rng(seed)
    shapes = [(1, 1), (1, 7), (8, 1), (2, 3), (6, 9), (17, 5), (30, 40), (64, 23)]
    for t in range(count):
        n1, n2 = shapes[t % len(shapes)]
        kind = ("int", "ties", "float", "zeros")[(t // len(shapes)) % 4]
        density = (0.02, 0.2, 1.0)[t % 3]
        D = sps.random(n1, n2, density=density, random_state=int(rng.integers(2**31))).toarray()
        if kind == "int":
            D = np.where(D > 0, np.floor(D * 7) + 1, 0).astype(np.int64)
        elif kind == "ties":
            D = (D > 0).astype(np.int64)
        elif kind == "zeros":
            D = np.where(D > 0.5, np.floor(D * 3), 0).astype(np.int64)
        if n1 > 3 and n2 > 3 and t % 2:  # an empty row and an empty column
            D[n1 // 2, :] = 0
            D[:, n2 // 3] = 0
        P = int(rng.integers(1, n1 + 1))
        Q = int(rng.integers(1, n2 + 1))
        yield D, P, Q


@pytest.mark.parametrize("method", ["rect_nicol", "jag_pq_heur"])
def test_each_start_is_its_single_core_call_and_the_first_best_wins(method, route):
    fn = getattr(spatial, method)
    checked = 0
    for D, P, Q in _cases(1, 96):
        m = P * Q
        singles = {s: _single(D, m, method, s, P, Q) for s in ORDER[method]}
        lmax = {s: _direct_loads(D, r).max() for s, r in singles.items()}
        want = min(ORDER[method], key=lambda s: (lmax[s], ORDER[method].index(s)))
        for X in (D, sps.csr_array(D), sps.coo_array(D)):
            r = fn(X, m, P=P, Q=Q, **FORMER[method])
            got = {s: v["max_load"] for s, v in r.stats["starts"].items()}
            if D.dtype.kind == "i":  # exact: the first start of smallest max load
                assert got == lmax and r.stats["start"] == want
            else:  # float loads are summed in another order here: the first smallest reported
                assert got == pytest.approx(lmax, rel=1e-12, abs=1e-12)
                assert r.stats["start"] == min(ORDER[method],
                                               key=lambda s: (got[s], ORDER[method].index(s)))
            np.testing.assert_array_equal(r.rects, singles[r.stats["start"]])
            assert r.max_load == got[r.stats["start"]]
            assert tuple(r.stats["starts"]) == ORDER[method]
            for v in r.stats["starts"].values():
                assert v["status"] == "feasible" and v["seconds"] >= 0
            assert r.stats["seconds"] == pytest.approx(
                sum(v["seconds"] for v in r.stats["starts"].values()))
            np.testing.assert_allclose(r.loads, _direct_loads(D, r.rects), rtol=1e-12,
                                       atol=1e-12)
            for s in ORDER[method]:  # one start alone gives its single call's partition
                one = fn(X, m, P=P, Q=Q, starts=s)
                np.testing.assert_array_equal(one.rects, singles[s])
                assert one.stats["start"] == s and list(one.stats["starts"]) == [s]
            checked += 1
    assert checked == 3 * 96


def test_sparse_and_dense_give_the_same_result(route):
    for D, P, Q in _cases(2, 48):
        A = sps.csc_array(D)
        for method in ORDER:
            fn = getattr(spatial, method)
            for starts in ("all", ("cols_uniform", "rows_load"), "cols_load"):
                a, b = fn(A, P * Q, P=P, Q=Q, starts=starts), fn(D, P * Q, P=P, Q=Q,
                                                                   starts=starts)
                np.testing.assert_array_equal(a.rects, b.rects)
                np.testing.assert_array_equal(a.loads, b.loads)
                assert a.max_load == b.max_load and a.stats["start"] == b.stats["start"]
                assert {k: v["max_load"] for k, v in a.stats["starts"].items()} == \
                    {k: v["max_load"] for k, v in b.stats["starts"].items()}


def test_start_names_mean_what_they_say():
    rng = np.random.default_rng(3)
    D = np.zeros((40, 30), np.int64)
    D[:5] = rng.integers(1, 50, (5, 30))  # the load sits in the first rows
    D[5:] = rng.integers(0, 2, (35, 30))
    for X in (D, sps.csr_array(D)):
        u = spatial.jag_pq_heur(X, 8, P=4, Q=2, starts="rows_uniform")
        assert sorted({(int(a), int(b)) for a, b, _, _ in u.rects}) == \
            [(0, 10), (10, 20), (20, 30), (30, 40)]
        ld = spatial.jag_pq_heur(X, 8, P=4, Q=2, starts="rows_load")
        stripes = sorted({(int(a), int(b)) for a, b, _, _ in ld.rects})
        best = wpart.partition_1d(D.sum(axis=1), 4).max_load
        assert max(D[a:b].sum() for a, b in stripes) == best
        cu = spatial.jag_pq_heur(X, 8, P=4, Q=2, starts="cols_uniform")
        assert sorted({(int(c), int(d)) for _, _, c, d in cu.rects}) == \
            [(0, 7), (7, 15), (15, 22), (22, 30)]
        assert cu.params["orient_used"] == "ver"


def test_degenerate_sizes_and_more_parts_than_cells(route):
    one = np.array([[5]])
    for X in (one, sps.csr_array(one)):
        for method in ORDER:
            fn = getattr(spatial, method)
            r = fn(X, 1, **FORMER[method])
            assert r.max_load == 5 and r.rects.tolist() == [[0, 1, 0, 1]]
            assert set(r.stats["starts"]) == set(ORDER[method])
            r = fn(X, 4, P=2, Q=2, allow_empty=True, **FORMER[method])
            assert r.max_load == 5 and r.rects.shape == (4, 4) and r.loads.sum() == 5
    D = np.array([[0, 3, 0], [1, 0, 0]])
    for method in ORDER:
        fn = getattr(spatial, method)
        a = fn(sps.csr_array(D), 12, P=4, Q=3, allow_empty=True, **FORMER[method])
        b = fn(D, 12, P=4, Q=3, allow_empty=True, **FORMER[method])
        np.testing.assert_array_equal(a.rects, b.rects)
        assert a.max_load == b.max_load == 3 and a.params["parts_solved"] < 12
        assert a.rects.shape == (12, 4)
        Z = np.zeros((5, 4), np.int64)  # all zero: every start ties, the first wins
        for X in (Z, sps.csr_array(Z)):
            r = fn(X, 4, **FORMER[method])
            assert r.max_load == 0 and r.stats["start"] == ORDER[method][0]


def test_time_limit_is_the_whole_calls(route):
    rng = np.random.default_rng(4)
    D = rng.integers(0, 9, (400, 300))
    for X in (D, sps.csr_array(np.where(D > 7, D, 0))):
        r = spatial.rect_nicol(X, 256, time_limit=1e-9, starts="all")
        assert r.status == "time_limit" and r.success and r.rects.shape == (256, 4)
        assert list(r.stats["starts"])[0] == "rows_uniform"
        assert r.loads.sum() == r.total
        full = spatial.rect_nicol(X, 256, starts="all")
        assert full.status == "feasible" and len(full.stats["starts"]) == 4


def test_speeds_with_starts_on_dense_and_sparse():
    rng = np.random.default_rng(6)
    D = np.where(rng.random((50, 40)) < 0.03, rng.integers(1, 9, (50, 40)), 0)
    sp = rng.uniform(0.5, 2.0, 12)
    r = spatial.jag_pq_heur(D, 12, P=3, Q=4, speeds=sp)
    lm = {k: v["max_load"] for k, v in r.stats["starts"].items()}
    assert r.max_load == min(lm.values()) == lm[r.stats["start"]]
    assert r.max_load == pytest.approx((_direct_loads(D, r.rects) / sp).max())
    eq = np.full(12, 3.0)
    a = spatial.jag_pq_heur(sps.csr_array(D), 12, P=3, Q=4, speeds=eq)
    b = spatial.jag_pq_heur(D, 12, P=3, Q=4, speeds=eq)
    np.testing.assert_array_equal(a.rects, b.rects)
    assert a.max_load == b.max_load


_BAD_START = (r"^(start code -?\d+ is not in 0 \.\. 3|`starts` must hold 1 to 16 start codes|"
              r"starts are for RECT-NICOL and JAG-PQ-HEUR|method \d+ does not run on a sparse "
              r"matrix)")


def test_the_core_entry_checks_its_arguments():
    D = np.ones((4, 5), np.int64)
    S = _core.prefix_sum(D, None, "A")
    A = sps.csr_array(D)
    rp, ci, rv = (np.asarray(x, np.int64) for x in (A.indptr, A.indices, A.data))
    ok = _core.spatial_partition_starts(S, 4, _core.SP_RECT_NICOL, [0, 3], P=2, Q=2)
    assert ok[0].shape == (2, 4, 4) and ok[1].shape == (2, 4) and len(ok[2]) == 2
    ok2 = _core.spatial_sparse_starts(4, 5, rp, ci, rv, None, None, None, 4,
                                      _core.SP_RECT_NICOL, [0, 3], P=2, Q=2)
    np.testing.assert_array_equal(ok[0], ok2[0])
    np.testing.assert_array_equal(ok[1], ok2[1])
    bad = [([4], _core.SP_RECT_NICOL), ([-1], _core.SP_RECT_NICOL), ([], _core.SP_RECT_NICOL),
           ([0] * 17, _core.SP_RECT_NICOL), ([0], _core.SP_HIER_RB), ([0], _core.SP_JAG_M_OPT)]
    for codes, meth in bad:
        with pytest.raises(wpart.WpartValueError, match=_BAD_START):
            _core.spatial_partition_starts(S, 4, meth, codes, P=2, Q=2)
        with pytest.raises(wpart.WpartValueError, match=_BAD_START):
            _core.spatial_sparse_starts(4, 5, rp, ci, rv, None, None, None, 4, meth, codes,
                                        P=2, Q=2)
    with pytest.raises(wpart.WpartValueError, match=r"^P x Q must equal m = 4, got 3 x 2"):
        _core.spatial_partition_starts(S, 4, _core.SP_RECT_NICOL, [0], P=3, Q=2)
    with pytest.raises(wpart.WpartValueError,
                       match=r"^`cp`, `ri` and `cv` must all be given or all None$"):
        _core.spatial_sparse_starts(4, 5, rp, ci, rv, rp, None, None, 4, _core.SP_RECT_NICOL,
                                    [0], P=2, Q=2)
    bad_ci = ci.copy()
    bad_ci[0] = 9  # out of range
    with pytest.raises(wpart.WpartValueError,
                       match=r"^CSR\ index\ 0\ out\ of\ range\ or\ not\ increasing\ in\ its\ row\ /\ column\ \(invalid\ argument\)"):
        _core.spatial_sparse_starts(4, 5, rp, bad_ci, rv, None, None, None, 4,
                                    _core.SP_RECT_NICOL, [0], P=2, Q=2)
    neg = rv.copy()
    neg[1] = -1
    with pytest.raises(wpart.WpartValueError,
                       match=r"^an\ entry\ is\ negative\ or\ NaN\ \(invalid\ argument\)"):
        _core.spatial_sparse_starts(4, 5, rp, ci, neg, None, None, None, 4,
                                    _core.SP_JAG_PQ_HEUR, [1], P=2, Q=2)
    assert {c for _, c in START_CODE.values()} == {0, 1, 2, 3}
