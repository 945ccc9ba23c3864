"""Sparse inputs of wpart.spatial: scipy.sparse matrices (every format) and MatrixMarket files,
the same partition as the dense array, validation, the densify guard, and the starts of
RECT-NICOL / JAG-PQ-HEUR (never worse than a single start)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sps

import wpart
from wpart import spatial
from wpart.spatial.instances import SPARSE_KINDS, sparse_like

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

NATIVE = ("rect_uniform", "rect_nicol", "jag_pq_heur", "jag_pq_opt_nicol", "jag_pq_opt_dp",
          "jag_m_heur", "jag_m_heur_probe", "jag_m_probe", "jag_m_alloc", "jag_m_opt")
#: the m-way jagged heuristics (stripe count P, no grid)
JAG_M = ("jag_m_heur", "jag_m_heur_probe", "jag_m_probe")
FORMATS = ("csr", "csc", "coo", "bsr", "dok", "lil", "dia")


@pytest.fixture(autouse=True)
def _nonzero_route_at_every_size(monkeypatch):
    """Small matrices run on the dense prefix by default (SPARSE_MIN_CELLS): here the nonzero
    route is taken at every size, so the small random cases test it."""
    monkeypatch.setattr("wpart.spatial._sparse.SPARSE_MIN_CELLS", 0)


def _same(a, b):
    np.testing.assert_array_equal(a.rects, b.rects)
    assert a.max_load == b.max_load
    np.testing.assert_array_equal(a.loads, b.loads)
    assert a == b


def _random_sparse(rng, n1, n2, density, kind):
    A = sps.random(n1, n2, density=density, random_state=int(rng.integers(2**31)),
                   format="coo")
    if kind == "int":
        A.data = np.floor(A.data * 9).astype(np.int64) + 1
    elif kind == "ties":
        A.data = np.ones_like(A.data)
    elif kind == "int_float":
        A.data = np.floor(A.data * 9) + 1.0
    return A


def _cases(seed=0, count=80):
    rng = np.random.default_rng(seed)
    shapes = [(1, 1), (1, 9), (9, 1), (2, 2), (5, 7), (13, 4), (30, 30), (17, 41), (90, 70),
              (1, 200), (200, 1)]
    for t in range(count):
        n1, n2 = shapes[t % len(shapes)]
        density = [0.0, 0.02, 0.3, 1.0, 0.01][t % 5]
        kind = ["int", "float", "ties", "int_float"][(t // 4) % 4]
        A = _random_sparse(rng, n1, n2, density, kind)
        if t % 5 == 0 and n1 > 2:  # empty rows and columns
            A = A.tolil()
            A[1, :] = 0
            A[:, 0] = 0
            A = A.tocsc()
        m = int(rng.integers(1, min(n1 * n2, 12) + 1))
        yield A, m


@pytest.mark.parametrize("name", NATIVE)
def test_sparse_equals_dense_on_random_matrices(name):
    fn = getattr(spatial, name)
    for A, m in _cases(seed=zlib.crc32(name.encode()) % 1000):
        D = A.toarray()
        _same(fn(A, m), fn(D, m))
        if m > 1 and name not in JAG_M + ("jag_m_alloc", "jag_m_opt"):  # P x Q methods
            P = [d for d in range(1, m + 1) if m % d == 0][-2]
            _same(fn(A, m, P=P), fn(D, m, P=P))


def _stripe_cuts(rng, nmain, m):
    P = int(rng.integers(1, min(m, nmain + 1) + 1))
    inner = np.sort(rng.integers(0, nmain + 1, P - 1))  # repeats: empty stripes
    return np.concatenate([[0], inner, [nmain]]).astype(np.int64)


@pytest.mark.parametrize("name", JAG_M)
def test_jag_m_sparse_equals_dense(name):
    """The m-way jagged heuristics on the nonzeros give the dense partition (every
    orientation, stripe count and given stripes; empty rows / columns, all-zero, 1 x n,
    n x 1, m = 1, ties, int and float)."""
    fn = getattr(spatial, name)
    rng = np.random.default_rng(zlib.crc32(name.encode()) % 1000 + 11)
    for A, m in _cases(seed=zlib.crc32(name.encode()) % 1000 + 3, count=120):
        D = A.toarray()
        n1, n2 = D.shape
        for o in (("hor", "ver") if name == "jag_m_probe" else ("best", "hor", "ver")):
            _same(fn(A, m, orient=o), fn(D, m, orient=o))
            if name == "jag_m_probe":
                cuts = _stripe_cuts(rng, n1 if o == "hor" else n2, m)
                _same(fn(A, m, orient=o, stripe_cuts=cuts), fn(D, m, orient=o, stripe_cuts=cuts))
            else:
                P = int(rng.integers(1, m + 1))
                _same(fn(A, m, orient=o, P=P), fn(D, m, orient=o, P=P))
        _same(fn(A, n1 * n2 + 3, allow_empty=True), fn(D, n1 * n2 + 3, allow_empty=True))


@pytest.mark.parametrize("name", JAG_M)
def test_jag_m_sparse_route_and_degenerate(name):
    """The nonzero route is taken (the core's sparse entry is called) and equals the dense
    prefix on integer loads; all-zero, 1 x n and n x 1 matrices, m = 1."""
    from wpart.spatial._common import _Prepared

    fn = getattr(spatial, name)
    A = sparse_like("block", 300, seed=2)
    assert _Prepared(A, 8, False, sparse=True).sp is not None
    for m in (1, 7, 16, 50):
        _same(fn(A, m), fn(A.toarray(), m))
    for shape in ((1, 40), (40, 1), (5, 6)):
        Z = sps.csr_array(shape, dtype=np.int64)
        for m in (1, 3):
            r = fn(Z, m)
            assert r.max_load == 0
            _same(r, fn(Z.toarray(), m))
    for shape in ((1, 64), (64, 1)):
        T = sps.random(*shape, density=0.03, random_state=1, format="csr")
        T.data[:] = 1.0  # ties
        Ti = T.astype(np.int64)
        for m in (1, 2, 5):
            _same(fn(T, m), fn(T.toarray(), m))
            _same(fn(Ti, m), fn(Ti.toarray(), m))


def test_small_matrices_take_the_dense_route(monkeypatch):
    """Up to SPARSE_MIN_CELLS cells the dense prefix is used (cheaper there), whatever the
    density, for A and A.toarray() alike; the partition is the nonzero route's."""
    from wpart.spatial import _sparse
    from wpart.spatial._common import _Prepared

    A = _random_sparse(np.random.default_rng(8), 150, 150, 0.01, "int").tocsr()  # 22,500 cells
    B = sparse_like("banded", 300, seed=0)
    routes = {}
    for limit in (0, 2**15):  # the default
        monkeypatch.setattr(_sparse, "SPARSE_MIN_CELLS", limit)
        routes[limit] = [_Prepared(X, 4, False, sparse=True).sp is not None
                         for X in (A, A.toarray().astype(float), B)]
        for X in (A, B):
            for name in NATIVE:
                _same(getattr(spatial, name)(X, 8), getattr(spatial, name)(X.toarray(), 8))
    assert routes[0] == [True, True, True]
    assert routes[2**15] == [False, False, True]
    for name in NATIVE:  # the same partition on either route (integer loads)
        r_dense = getattr(spatial, name)(A, 8)
        monkeypatch.setattr(_sparse, "SPARSE_MIN_CELLS", 0)
        _same(getattr(spatial, name)(A, 8), r_dense)
        monkeypatch.setattr(_sparse, "SPARSE_MIN_CELLS", 2**15)


def test_both_routes_are_exercised():
    """A matrix with at most 1/32 of its cells nonzero runs on its nonzeros, a denser one on
    its dense prefix (the same rule for A and A.toarray())."""
    from wpart.spatial._common import _Prepared

    routes = {(_Prepared(A, m, False, sparse=True).sp is not None,
               _Prepared(A.toarray().astype(float), m, False, sparse=True).sp is not None)
              for A, m in _cases()}
    assert routes == {(True, True), (False, False)}
    big = sparse_like("banded", 3000, seed=0)
    assert _Prepared(big, 4, False, sparse=True).sp is not None


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("cls", ["array", "matrix"])
def test_every_format_gives_the_dense_partition(fmt, cls):
    rng = np.random.default_rng(3)
    base = _random_sparse(rng, 83, 59, 0.02, "float")
    D = base.toarray()
    ctor = getattr(sps, f"{fmt}_{cls}")
    A = ctor(base)
    for name in NATIVE:
        _same(getattr(spatial, name)(A, 6), getattr(spatial, name)(D, 6))
    _same(spatial.hier_rb(A, 6), spatial.hier_rb(D, 6))


def test_starts_orient_and_options_match_dense():
    rng = np.random.default_rng(5)
    for _ in range(20):
        A = _random_sparse(rng, 85, 68, 0.02, "float")
        D = A.toarray()
        for st in ("rows_uniform", "rows_load", "cols_uniform", "cols_load",
                   ("rows_load", "cols_uniform")):
            _same(spatial.rect_nicol(A, 12, starts=st, max_sweeps=3),
                  spatial.rect_nicol(D, 12, starts=st, max_sweeps=3))
        for o in ("hor", "ver", "best"):
            _same(spatial.jag_pq_heur(A, 12, orient=o), spatial.jag_pq_heur(D, 12, orient=o))
        sp = np.full(12, 2.0)
        _same(spatial.jag_pq_heur(A, 12, speeds=sp), spatial.jag_pq_heur(D, 12, speeds=sp))


def test_more_parts_than_cells_and_degenerate_sizes():
    A = sps.csr_array(np.array([[0, 3], [1, 0]]))
    for name in NATIVE:
        fn = getattr(spatial, name)
        _same(fn(A, 9, allow_empty=True), fn(A.toarray(), 9, allow_empty=True))
        _same(fn(A, 1), fn(A.toarray(), 1))
    Z = sps.csr_array((4, 6), dtype=np.int64)  # all zero
    for name in NATIVE:
        r = getattr(spatial, name)(Z, 4)
        assert r.max_load == 0 and r.loads.sum() == 0
        _same(r, getattr(spatial, name)(Z.toarray(), 4))


def test_other_methods_densify_and_agree():
    rng = np.random.default_rng(7)
    A = _random_sparse(rng, 12, 10, 0.3, "int")
    D = A.toarray()
    for name in ("jag_m_iter", "hier_rb", "hier_relaxed", "hier_opt", "hybrid"):
        _same(getattr(spatial, name)(A, 6), getattr(spatial, name)(D, 6))
    _same(spatial.partition(A, 6, method="rect_nicol"), spatial.partition(D, 6,
                                                                         method="rect_nicol"))


def test_densify_guard(monkeypatch):
    A = sparse_like("banded", 400, seed=0)
    monkeypatch.setattr(spatial, "MAX_DENSE_BYTES", 10_000)
    with pytest.raises(wpart.WpartMemoryError, match="`A`.*hier_opt.*MAX_DENSE_BYTES"):
        spatial.hier_opt(A, 4)
    with pytest.raises(wpart.WpartMemoryError, match=r"^`A` is a 400 x 400 sparse matrix: "
                       r"jag_m_opt needs the dense matrix"):  # speeds: the dense speed code
        spatial.jag_m_opt(A, 4, speeds=[1, 2, 1, 2])
    with pytest.raises(wpart.WpartMemoryError, match=r"^`A` is a 400 x 400 sparse matrix: "
                       r"jag_m_heur needs the dense matrix"):  # speeds: the dense speed code
        spatial.jag_m_heur(A, 4, speeds=[1, 2, 1, 2])
    for name in NATIVE:  # run on the nonzeros
        assert getattr(spatial, name)(A, 16).success


def test_no_densify_for_native_methods():
    """A 10^6 x 10^6 matrix (a dense array would take 8 TB) runs in RECT-NICOL / JAG-PQ-HEUR."""
    n = 10**6
    rng = np.random.default_rng(0)
    r = rng.integers(0, n, 2000)
    c = rng.integers(0, n, 2000)
    A = sps.coo_array((np.ones(2000, np.int64), (r, c)), shape=(n, n))
    res = spatial.rect_nicol(A, 4, P=2, Q=2, max_sweeps=2)
    assert res.loads.sum() == A.sum() and res.max_load >= 500
    assert spatial.jag_pq_heur(A, 4).loads.sum() == A.sum()
    assert spatial.rect_uniform(A, 4).loads.sum() == A.sum()
    for name in JAG_M:
        r = getattr(spatial, name)(A, 9)
        assert r.loads.sum() == A.sum() and r.max_load >= 2000 / 9


def test_duplicates_and_explicit_zeros():
    # COO duplicates are summed; explicit zeros are zero loads and no nonzero for "count"
    A = sps.coo_array((np.array([1, 2, 0, 5, -5, 3]), (np.array([0, 0, 1, 2, 2, 3]),
                                                       np.array([1, 1, 2, 0, 0, 3]))),
                      shape=(4, 4))
    D = A.toarray()
    assert D[0, 1] == 3 and D[2, 0] == 0
    for name in NATIVE:
        fn = getattr(spatial, name)
        _same(fn(A, 4), fn(D, 4))
        c = fn(A, 4, weights="count")
        assert c.total == 2  # (0, 1) and (3, 3); (1, 2) explicit zero, (2, 0) sums to 0
        _same(c, fn((D != 0).astype(int), 4))
        _same(c, fn(D, 4, weights="count"))


def test_count_weights_accept_any_sign():
    A = sps.csr_array(np.array([[-1.5, 0, 2], [0, -3, 0]]))
    r = spatial.rect_nicol(A, 2, weights="count")
    assert r.total == 3
    assert spatial.hier_rb(A, 2, weights="count").total == 3
    with pytest.raises(wpart.WpartValueError, match="`A`.*negative"):
        spatial.rect_nicol(A, 2)


@pytest.mark.parametrize("bad, err, word", [
    (sps.csr_array(np.array([[1.0, -2.0]])), wpart.WpartValueError, "negative"),
    (sps.csr_array(np.array([[1.0, np.nan]])), wpart.WpartValueError, "NaN"),
    (sps.csr_array(np.array([[1.0, np.inf]])), wpart.WpartValueError, "infinite"),
    (sps.csr_array((0, 3)), wpart.WpartValueError, "empty"),
    (sps.csr_array((3, 0)), wpart.WpartValueError, "empty"),
    (sps.csr_array(np.array([[1 + 1j, 0]])), wpart.WpartTypeError, "dtype"),
])
def test_bad_sparse_inputs_name_the_argument(bad, err, word):
    for name in NATIVE + ("hier_rb", "jag_m_opt"):
        with pytest.raises(err, match=f"`A`.*{word}|{word}.*`A`"):
            getattr(spatial, name)(bad, 1)


def test_bad_weights():
    A = sps.csr_array(np.eye(3))
    with pytest.raises(wpart.WpartValueError, match="`weights`"):
        spatial.rect_nicol(A, 2, weights="ones")
    with pytest.raises(wpart.WpartError, match="`weights`"):
        spatial.hier_opt(A, 2, weights=None)
    with pytest.raises(wpart.WpartValueError, match="`starts`"):
        spatial.rect_nicol(A, 2, starts="diagonal")
    with pytest.raises(wpart.WpartValueError, match="`starts`"):
        spatial.rect_nicol(A, 2, starts=())
    with pytest.raises(wpart.WpartTypeError, match="`starts`"):
        spatial.rect_nicol(A, 2, starts=3)
    with pytest.raises(wpart.WpartValueError, match="`starts`"):
        spatial.jag_pq_heur(A, 2, orient="hor", starts=("cols_load",))


def test_matrix_market_files(tmp_path):
    rng = np.random.default_rng(11)
    A = _random_sparse(rng, 15, 11, 0.2, "int").tocsr()
    p = tmp_path / "a.mtx"
    scipy.io.mmwrite(str(p), A)
    M = spatial.read_matrix(p)
    assert sps.issparse(M) and (M != A).nnz == 0
    for name in NATIVE + ("jag_m_heur",):
        fn = getattr(spatial, name)
        _same(fn(str(p), 4), fn(A.toarray(), 4))
        _same(fn(p, 4), fn(A, 4))
    # a pattern file: every entry is 1
    q = tmp_path / "pattern.mtx"
    q.write_text("%%MatrixMarket matrix coordinate pattern general\n3 4 3\n1 1\n2 3\n3 4\n")
    assert spatial.rect_nicol(q, 2).total == 3
    # a dense (array) file
    d = tmp_path / "dense.mtx"
    scipy.io.mmwrite(str(d), np.arange(6.0).reshape(2, 3))
    assert isinstance(spatial.read_matrix(d), np.ndarray)
    assert spatial.rect_nicol(d, 2).total == 15
    with pytest.raises(wpart.WpartFileNotFoundError, match="`A`"):
        spatial.rect_nicol(tmp_path / "missing.mtx", 2)
    with pytest.raises(wpart.WpartFileNotFoundError, match="`path`"):
        spatial.read_matrix(tmp_path / "missing.mtx")
    bad = tmp_path / "bad.mtx"
    bad.write_text("not a matrix market file\n")
    with pytest.raises(wpart.WpartValueError, match="`path`"):
        spatial.read_matrix(bad)


def test_result_of_a_sparse_run():
    A = sparse_like("block", 1000, seed=3)
    r = spatial.rect_nicol(A, 16, starts="all")  # the former four-start engine
    r.validate()
    assert r.total == A.nnz and sps.issparse(r.A)
    assert set(r.stats["starts"]) == set(spatial.STARTS)
    assert r.stats["start"] in spatial.STARTS
    assert r.max_load == min(v["max_load"] for v in r.stats["starts"].values())
    assert len(repr(r).splitlines()) <= 5
    r.to_dict()
    import matplotlib

    matplotlib.use("Agg")
    assert r.plot() is not None


@pytest.mark.parametrize("kind", SPARSE_KINDS)
def test_all_starts_never_worse_than_any_single_start(kind):
    for seed in range(3):
        A = sparse_like(kind, 150 + 37 * seed, seed=seed)
        for m in (4, 16, 36, 64):
            for name, starts in (("rect_nicol", spatial.STARTS),
                                 ("jag_pq_heur", ("rows_load", "rows_uniform", "cols_load",
                                                  "cols_uniform"))):
                fn = getattr(spatial, name)
                best = fn(A, m, **({"starts": "all"} if name == "rect_nicol" else {}))
                singles = {s: fn(A, m, starts=s).max_load for s in starts}
                assert best.max_load == min(singles.values())
                assert best.max_load <= singles[starts[0]]  # the paper's start
                assert best.stats["starts"][best.stats["start"]]["max_load"] == best.max_load
                assert best.max_load <= spatial.rect_uniform(A, m).max_load or \
                    name == "jag_pq_heur"


def test_jag_pq_heur_orient_keeps_its_starts():
    A = sparse_like("powerlaw", 120, seed=1)
    h = spatial.jag_pq_heur(A, 16, orient="hor")
    assert set(h.stats["starts"]) == {"rows_load", "rows_uniform"}
    assert h.params["orient_used"] == "hor"
    v = spatial.jag_pq_heur(A, 16, orient="ver")
    assert v.params["orient_used"] == "ver"
    b = spatial.jag_pq_heur(A, 16)
    assert b.max_load == min(h.max_load, v.max_load)


def test_time_limit_over_the_starts():
    A = sparse_like("banded", 3000, seed=0)
    r = spatial.rect_nicol(A, 256, time_limit=1e-6, starts="all")
    assert r.status == "time_limit"
    assert r.success and r.rects.shape == (256, 4)
    assert set(r.stats["starts"]) <= set(spatial.STARTS)


def test_inputs_are_not_modified():
    # a non-canonical CSR (unsorted columns, a duplicate, an explicit zero), sparse route
    A = sps.csr_array((np.array([1, 2, 5, 0, 4]), np.array([150, 2, 150, 2, 7]),
                       np.array([0, 3, 5])), shape=(2, 200))
    snap = (A.data.copy(), A.indices.copy(), A.indptr.copy())
    D = A.toarray()
    assert D[0, 150] == 6 and D[1, 2] == 0
    for name in NATIVE:
        _same(getattr(spatial, name)(A, 2), getattr(spatial, name)(D, 2))
        _same(getattr(spatial, name)(A, 2, weights="count"),
              getattr(spatial, name)(D, 2, weights="count"))
    for before, after in zip(snap, (A.data, A.indices, A.indptr)):
        np.testing.assert_array_equal(before, after)
