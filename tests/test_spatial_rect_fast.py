"""rect_nicol's default in one core call (``_core.spatial_rect_nicol_auto``): the same result as
the step-by-step engine on the same starts (grid, loads, stats, bit for bit), for sparse and
dense input, int, float and unit values, symmetric matrices, P != Q; the cases it leaves to
the general path (explicit zeros, bad values, non-canonical input) answer as before; the
time limit and the stop rule hold."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sps

import wpart
from wpart import WpartValueError, spatial
from wpart.spatial._nicol import AUTO, auto_names


def _timeless(stats):
    """The stats of a result but its times (``seconds``; ``stage_seconds``, the one-call
    default's alone: measured, so never the same)."""
    assert stats["seconds"] > 0.0
    return {k: v for k, v in stats.items() if k not in ("seconds", "stage_seconds")}


def _same(a, b):
    assert np.array_equal(a.rects, b.rects)
    assert a.loads.dtype == b.loads.dtype and np.array_equal(a.loads, b.loads)
    assert a.max_load == b.max_load and type(a.max_load) is type(b.max_load)
    assert (a.total, a.lower_bound, a.imbalance, a.avg_load) == \
        (b.total, b.lower_bound, b.imbalance, b.avg_load)
    assert (a.status, a.message, a.params, a.shape, a.m) == \
        (b.status, b.message, b.params, b.shape, b.m)
    assert _timeless(a.stats) == _timeless(b.stats)
    if "stage_seconds" in a.stats and "stage_seconds" in b.stats:  # the same stages ran
        assert list(a.stats["stage_seconds"]) == list(b.stats["stage_seconds"])


def _matrices(seed, count):
    rng = np.random.default_rng(seed)
    for k in range(count):
        n1, n2 = (int(x) for x in rng.integers(200, 700, 2))
        dens = float(rng.uniform(0.002, 0.02))
        B = sps.random(n1, n2, density=dens, random_state=int(rng.integers(1 << 30)),
                       format="csr")
        kind = k % 5
        if kind == 0:  # unit values
            A = sps.csr_array((np.ones(B.nnz, np.int64), B.indices, B.indptr), shape=B.shape)
        elif kind == 1:  # int values
            A = sps.csr_array((rng.integers(1, 50, B.nnz), B.indices, B.indptr),
                              shape=B.shape)
        elif kind == 2:  # float values
            A = sps.csr_array((B.data * 10 + 0.1, B.indices, B.indptr), shape=B.shape)
        elif kind == 3:  # symmetric (transposed starts skipped)
            n = min(n1, n2)
            S = B[:n, :n]
            S = S + S.T
            A = sps.csr_array((S != 0).astype(np.int64))
        else:  # a heavy entry: the bound is reached
            A = sps.csr_array((rng.integers(1, 4, B.nnz), B.indices, B.indptr), shape=B.shape)
            A.data[rng.integers(A.nnz)] += 10**6
        A.sort_indices()
        yield A


@pytest.mark.parametrize("P,Q", [(4, 4), (3, 5), (8, 2), (1, 6)])
def test_one_call_equals_the_step_by_step_engine(P, Q):
    for A in _matrices(P * 10 + Q, 10):
        fast = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        step = spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(AUTO))
        _same(fast, step)
        if A.nnz * 32 <= A.shape[0] * A.shape[1]:  # on its nonzeros: the input, no copy
            assert fast.A is A
        if A.dtype.kind == "i" or A.nnz < 3000:  # the dense array runs the default too
            D = A.toarray()
            dense = spatial.rect_nicol(D, P * Q, P=P, Q=Q)
            assert np.array_equal(dense.rects, fast.rects)
            assert dense.max_load == fast.max_load
            assert _timeless(dense.stats) == _timeless(fast.stats)
            if D.dtype == np.int64:  # (in one core call too: the same result, A the array)
                _same(dense, spatial.rect_nicol(D, P * Q, P=P, Q=Q, starts=list(AUTO)))
                assert dense.A is D


@pytest.mark.parametrize("n,fill", [(40, 0.7), (200, 0.9), (300, 0.01), (181, 0.03)])
def test_dense_float_array_in_one_call_as_the_prepared_path(n, fill):
    """A dense float64 array runs the one-call default on its nonzeros; its block loads,
    total and max come from the dense prefix (in the prepared path's order of sums) where the
    input rules keep it dense (small, or more than 1/32 nonzero), from the nonzeros where they
    make it sparse: the prepared path's result (which a Fortran-ordered copy takes), bit for
    bit, A the array itself."""
    rng = np.random.default_rng(n)
    D = rng.random((n, n)) * 7.3 * (rng.random((n, n)) < fill)
    F = np.asfortranarray(D)
    for P, Q in ((4, 4), (3, 5), (8, 8), (4, 16)):
        fast = spatial.rect_nicol(D, P * Q, P=P, Q=Q)
        _same(fast, spatial.rect_nicol(F, P * Q, P=P, Q=Q))
        if P * Q < 64:  # (the step-by-step engine: the same stages below 64 blocks)
            # (the default set as it ran: rows_load / cols_load for the uniform starts where
            # at least half the cells are stored)
            assert fast.params["starts"] == auto_names(3 if 2 * np.count_nonzero(D) >= D.size
                                                       else 0)
            _same(fast, spatial.rect_nicol(D, P * Q, P=P, Q=Q,
                                           starts=list(fast.params["starts"])))
        assert fast.A is D and fast.loads.dtype == np.float64
    for bad, msg in ((np.nan, "NaN"), (np.inf, "inf"), (-1.5, "negative")):
        X = D.copy()
        X[n // 2, n // 3] = bad
        with pytest.raises(WpartValueError, match=msg):
            spatial.rect_nicol(X, 16, P=4, Q=4)


def test_twins_duplicates_and_bound_reported_as_before():
    seen = set()
    for A in _matrices(7, 15):
        P = 4
        r = spatial.rect_nicol(A, P * P, P=P, Q=P)
        for v in r.stats["starts"].values():
            seen.add(v["state"].split("_")[0] if v["state"].startswith("same") else v["state"])
        if r.stats["bound_reached"]:
            seen.add("reached")
    # a torus grid graph: every row holds the same count, so rows_stored is rows_uniform
    # (and, the matrix symmetric, cols_uniform its transpose)
    k = 24
    T = sps.diags([1, 1, 1, 1, 1], [-1, 0, 1, 1 - k, k - 1], shape=(k, k), dtype=np.int64)
    G = sps.csr_array((sps.kron(sps.identity(k), T) + sps.kron(T, sps.identity(k))) != 0,
                      dtype=np.int64)
    r = spatial.rect_nicol(G, 16, P=4, Q=4)
    assert r.stats["starts"]["rows_uniform"]["state"] == "same_as_rows_stored"
    _same(r, spatial.rect_nicol(G, 16, P=4, Q=4, starts=list(AUTO)))
    assert {"stopped", "abandoned", "same", "reached"} <= seen | {
        v["state"].split("_")[0] for v in r.stats["starts"].values()}


def test_left_to_the_general_path():
    rng = np.random.default_rng(1)
    D = rng.integers(0, 4, (300, 300)) * (rng.random((300, 300)) < 0.01)
    A = sps.csr_array(D)
    # explicit zeros: dropped by the general path's input rules, same answer
    Z = A.copy()
    Z.data[::3] = 0
    ref = spatial.rect_nicol(sps.csr_array(Z.toarray()), 16, P=4, Q=4)
    _same(spatial.rect_nicol(Z, 16, P=4, Q=4), ref)
    Zf = sps.csr_array(Z, dtype=np.float64)  # (float values too)
    Zf.data *= 1.25
    _same(spatial.rect_nicol(Zf, 16, P=4, Q=4),
          spatial.rect_nicol(sps.csr_array(Zf.toarray()), 16, P=4, Q=4))
    # non-canonical (unsorted indices), a CSC matrix, int32 values, csr_matrix: same grid
    for B in (sps.csc_array(A), sps.csr_array(A, dtype=np.int32), sps.csr_matrix(A)):
        r = spatial.rect_nicol(B, 16, P=4, Q=4)
        assert np.array_equal(r.rects, spatial.rect_nicol(A, 16, P=4, Q=4).rects)
    # bad values raise what the input rules raise
    F = sps.csr_array(A, dtype=np.float64)
    for bad, msg in ((np.nan, "NaN entries"), (np.inf, "infinite entries"),
                     (-1.0, "negative entries")):
        X = F.copy()
        X.data[5] = bad
        with pytest.raises(WpartValueError, match=msg):
            spatial.rect_nicol(X, 16, P=4, Q=4)
    N = A.copy()
    N.data[2] = -3
    with pytest.raises(WpartValueError, match="negative entries"):
        spatial.rect_nicol(N, 16, P=4, Q=4)
    # a dense int64 array in one core call; what it leaves to the general path answers the
    # same: negative values, a total above int64, other dtypes, views, other weights
    Dn = D.astype(np.int64)
    Dn[3, 4] = -2
    with pytest.raises(WpartValueError, match="negative load -2 at index"):
        spatial.rect_nicol(Dn, 16, P=4, Q=4)
    Dbig = np.zeros((40, 40), np.int64)
    Dbig[::7, ::5] = 2**62
    with pytest.raises(wpart.WpartError, match="overflow|int64"):
        spatial.rect_nicol(Dbig, 16, P=4, Q=4)
    ref = spatial.rect_nicol(D.astype(np.int64), 16, P=4, Q=4)
    for other in (D.astype(np.int32), np.asfortranarray(D), D.astype(np.int64)[:, :],
                  D.astype(np.float64)):
        r = spatial.rect_nicol(other, 16, P=4, Q=4)
        assert np.array_equal(r.rects, ref.rects) and r.max_load == ref.max_load
    for w in ("stored", "count"):  # ("stored": every cell of the array, so the load starts)
        fast = spatial.rect_nicol(D, 16, P=4, Q=4, weights=w)
        assert fast.params["starts"] == auto_names(3 if w == "stored" else 0)
        _same(fast, spatial.rect_nicol(D, 16, P=4, Q=4, weights=w,
                                       starts=list(fast.params["starts"])))
    # a prime m warns as before; P alone works as before
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        spatial.rect_nicol(A, 7)
    assert any("prime" in str(x.message) for x in w)
    _same(spatial.rect_nicol(A, 16, P=2), spatial.rect_nicol(A, 16, P=2, Q=8))


def _spy_fast():
    """(taken, spy): spy stands in for ``_rect.fast_default`` and appends to `taken` whether
    the one-call path answered."""
    from wpart.spatial import _rect

    taken = []
    real = _rect.fast_default

    def spy(*args, **kwargs):
        res = real(*args, **kwargs)
        taken.append(res is not None)
        return res

    return taken, spy


def test_float_csr_size_rule_read_at_the_call(monkeypatch):
    """The one call takes a float CSR matrix where the input rules keep it sparse, reading the
    size rule (``_sparse.SPARSE_MIN_CELLS``) at the call as the general path does: a small
    one goes to the general path (its dense prefix) by default, to the one call where the rule
    makes it sparse, with the general path's result either way."""
    from wpart.spatial import _rect, _sparse

    taken, spy = _spy_fast()
    monkeypatch.setattr(_rect, "fast_default", spy)
    A = sps.random(150, 120, density=0.02, random_state=4, format="csr") * 9.5
    A.data += 0.25
    A = sps.csr_array(A)
    for limit, fast in ((2**15, False), (0, True)):
        monkeypatch.setattr(_sparse, "SPARSE_MIN_CELLS", limit)
        taken.clear()
        r = spatial.rect_nicol(A, 16, P=4, Q=4)
        assert taken == [fast]
        _same(r, spatial.rect_nicol(A, 16, P=4, Q=4, starts=list(AUTO)))


def test_time_limit_and_stop_rule():
    rng = np.random.default_rng(4)
    B = sps.random(3000, 3000, density=0.003, random_state=5, format="csr")
    A = sps.csr_array((rng.integers(1, 9, B.nnz), B.indices, B.indptr), shape=B.shape)
    r = spatial.rect_nicol(A, 256, P=16, Q=16, time_limit=1e-6)
    u = spatial.rect_uniform(A, 256, P=16, Q=16)
    assert r.status == "time_limit" and r.success and r.max_load <= u.max_load
    assert np.array_equal(r.loads, spatial.rect_uniform(A, 256, P=16, Q=16).loads) or \
        r.max_load < u.max_load
    # the stop rule: every start runs at most max(10, P + Q) half-sweeps, at most
    # 2 max_sweeps (each of the random starts too: their entry sums their runs); the
    # continuation at most 2 max_sweeps
    for P, Q, ms in ((4, 4, 100), (8, 8, 100), (8, 2, 1), (16, 16, 3)):
        r = spatial.rect_nicol(A, P * Q, P=P, Q=Q, max_sweeps=ms)
        cap = min(max(10, P + Q), 2 * ms)
        for v in r.stats["starts"].values():
            assert v["half_sweeps"] <= v.get("runs", 1) * cap
        if r.stats["polish"]:
            assert r.stats["polish"]["half_sweeps"] <= 2 * ms
        step = spatial.rect_nicol(A, P * Q, P=P, Q=Q, max_sweeps=ms, starts=list(AUTO))
        if P * Q < 64:
            _same(r, step)
        else:  # the default then runs the cut-move polish (rect_polish.c): never worse
            assert "cut_moves" in r.stats["polish"] and r.max_load <= step.max_load
            pol = r.stats["polish"]
            assert r.max_load == r.loads.max() == pol.get("kick_max_load",
                                                          pol["cut_move_max_load"])
            assert pol.get("kick_max_load", r.max_load) <= pol["cut_move_max_load"]


def _same_matrix(a, b):
    assert type(a) is type(b) and a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, np.ndarray):  # (denser than the sparse route takes)
        assert np.array_equal(a, b)
        return
    assert a.has_canonical_format and b.has_canonical_format
    for x in ("indptr", "indices", "data"):  # (the input itself when it is the loads)
        assert np.array_equal(getattr(a, x), getattr(b, x))


@pytest.mark.parametrize("weights", ["stored", "count", "values"])
def test_weights_and_zeros_in_one_call_as_the_general_path(weights):
    """weights "stored" / "count" and explicit zeros take the one-call path (the loads
    matrix made directly); the same result as the general path (a CSC input), the loads
    matrix of the input rules as `A` included."""
    rng = np.random.default_rng(11)
    for k, B in enumerate(_matrices(31, 10)):
        kind = k % 5
        if kind == 0:  # int values, explicit zeros
            data = np.where(rng.random(B.nnz) < 0.2, 0, rng.integers(1, 5, B.nnz))
        elif kind == 1:  # float values, zeros and -0.0
            data = np.where(rng.random(B.nnz) < 0.2, rng.choice([0.0, -0.0], B.nnz),
                            rng.random(B.nnz) + 0.1)
        elif kind == 2:  # bool
            data = rng.random(B.nnz) < 0.7
        elif kind == 3:  # int32 values with negative ones (counted, not summed)
            data = rng.integers(-2, 3, B.nnz).astype(np.int32)
        else:
            data = B.data
        A = sps.csr_array((data, B.indices, B.indptr), shape=B.shape)
        if k % 2:
            A = sps.csr_array((A.data, A.indices.astype(np.int64),
                               A.indptr.astype(np.int64)), shape=A.shape)
        if kind in (2, 3) and weights == "values":
            continue  # (not loads as they are: the general path)
        P, Q = ((4, 4), (3, 5), (8, 2))[k % 3]
        fast = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights)
        ref = spatial.rect_nicol(sps.csc_array(A), P * Q, P=P, Q=Q, weights=weights)
        _same(fast, ref)
        if isinstance(ref.A, np.ndarray) and not isinstance(fast.A, np.ndarray):
            # integral loads: the one-call path keeps a CSR matrix sparse at any density
            # (same grid, loads and sums); the general path densifies a denser one
            assert fast.A.dtype.kind == "i" and weights != "values" or kind in (0, 4)
            assert np.array_equal(fast.A.toarray(), ref.A) and fast.A.has_canonical_format
            assert 0 not in fast.A.data
        else:
            _same_matrix(fast.A, ref.A)


def test_dense_ish_csr_runs_on_its_nonzeros_with_integral_loads():
    # 6 % of the cells stored, 4,225 cells: the input rules would densify it; with integral
    # loads the default runs on the nonzeros in one call, with the dense path's result
    rng = np.random.default_rng(3)
    D = rng.integers(1, 4, (65, 65)) * (rng.random((65, 65)) < 0.06)
    A = sps.csr_array(D)
    for w in ("values", "stored", "count"):
        r = spatial.rect_nicol(A, 16, P=4, Q=4, weights=w)
        d = spatial.rect_nicol(D if w == "values" else (D != 0).astype(np.int64), 16, P=4, Q=4)
        assert sps.issparse(r.A) and isinstance(d.A, np.ndarray)
        _same(r, d)
    # integral float values (every partial sum exact, as a real MatrixMarket file's unit
    # weights): the one call too, with the dense path's grid and loads
    F = sps.csr_array(A.astype(np.float64))
    r = spatial.rect_nicol(F, 16, P=4, Q=4)
    d = spatial.rect_nicol(D.astype(np.float64), 16, P=4, Q=4)
    assert sps.issparse(r.A) and r.loads.dtype == np.float64 and isinstance(d.A, np.ndarray)
    _same(r, d)
    for bad in (F * 0.5, F * 2.0**52):  # non-integral loads, sums past 2**53: the input rules
        assert isinstance(spatial.rect_nicol(bad, 16, P=4, Q=4).A, np.ndarray)


def _state(r):
    """A result's whole state: its fields in order, and the loads matrix's attributes."""
    def plain(d):
        return [(k, (v.dtype, v.shape, v.tolist()) if isinstance(v, np.ndarray) else
                 _timeless(v) if k == "stats" else v) for k, v in d.items() if k != "A"]

    A = r.A
    return plain(vars(r)), type(A), plain(vars(A)) if sps.issparse(A) else A.tolist()


@pytest.mark.parametrize("weights", ["stored", "count", "values"])
def test_one_call_result_built_at_once_as_by_the_constructors(monkeypatch, weights):
    """The one-call default sets the result's fields at once and makes its loads matrix
    without scipy's constructor: the same objects as SpatialPartition(...) and
    csr_array(A, copy=False) with the arrays replaced (both paths forced here)."""
    from wpart.spatial import _nicol_fast, _sparse
    from wpart.spatial._partition import SpatialPartition

    assert _nicol_fast._AT_ONCE  # (else the constructor runs: slower, the same result)
    cases = []
    for k, A in enumerate(_matrices(5, 5)):
        if k % 2:
            A = sps.csr_matrix(A)
        if A.dtype.kind == "i":  # explicit zeros
            A.data[::7] = 0
        P, Q = ((4, 4), (8, 8), (3, 5))[k % 3]
        cases.append((A, P, Q))
    fast = [spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights) for A, P, Q in cases]
    monkeypatch.setattr(_nicol_fast, "_AT_ONCE", False)
    monkeypatch.setattr(_sparse, "_CSR_NEW", ())
    slow = [spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights) for A, P, Q in cases]
    for a, b in zip(fast, slow):
        assert type(a) is SpatialPartition and _state(a) == _state(b)
        da, db = a.to_dict(), b.to_dict()
        da["stats"], db["stats"] = _timeless(da["stats"]), _timeless(db["stats"])
        assert a == b and repr(a) == repr(b) and da == db
        assert a.success and a.gap == b.gap
        a.validate()
        with pytest.raises(AttributeError):
            a.m = 3  # (still frozen)
        if weights != "values":
            assert type(a.A) is sps.csr_array and a.A.has_canonical_format
            assert a.A.indptr.dtype == a.A.indices.dtype == a.A.data.dtype == np.int64


def test_zero_dropping_core_call_refuses_malformed_arrays():
    from wpart import _core

    def call(n1, rp, ci, vals, zeros=2):
        return _core.spatial_rect_nicol_auto(n1, 2, rp, ci, vals, 1, 1, 10, True, 0.0,
                                             zeros=zeros)

    good = (np.array([0, 2, 3]), np.array([0, 1, 1]))
    out = call(2, *good, np.array([3, 0, 2]))  # (1 per nonzero value: int64 loads)
    assert out[15].tolist() == [0, 1, 2] and out[16].tolist() == [0, 1]
    assert out[16].dtype == np.int64 and out[17] == 2 and out[20] is None
    out = call(2, *(a.astype(np.int32) for a in good), np.array([1.5, 2.0, 0.0]), zeros=1)
    assert out[15].tolist() == [0, 2, 2] and out[15].dtype == np.int64
    assert out[16].tolist() == [0, 1] and out[20].tolist() == [1.5, 2.0] and out[17] == 3.5
    assert call(2, *good, np.zeros(3, np.int64)) is None  # (no entry left: the general path)
    for dt in (np.int32, np.uint8, np.float32, bool):  # (their zeros, read as float64)
        out = call(2, *good, np.array([0, 1, 1], dt))
        assert out[15].tolist() == [0, 1, 2] and out[16].tolist() == [1, 1]
    for n1, rp, ci, vals in ((2, [0, 3, 2], [0, 1, 1], [1, 1, 1]),
                             (2, [1, 2, 3], [0, 1, 1], [1, 1, 1]),
                             (3, [0, 2, 3], [0, 1, 1], [1, 1, 1]),
                             (2, [0, 2, 3], [0, 1], [1, 1]), (2, [0, 2, 3], [0, 1, 1], [1]),
                             (0, [0], [], [])):
        with pytest.raises(ValueError, match="malformed CSR arrays"):
            call(n1, np.array(rp), np.array(ci, np.int64), np.array(vals, np.int64))
    # the core's check of the pointers (the indices are copied and the kept ones checked: an
    # index out of range there sends the call to the general path, which names `A` and the
    # fault)
    with pytest.raises(ValueError, match="CSR pointers decrease at 1"):
        call(2, np.array([0, 4, 3]), np.array([0, 1, 1]), np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="CSR index 1 out of range"):
        call(2, np.array([0, 2, 3]), np.array([0, 1, 7]), np.array([1, 0, 1]))
    B = sps.csr_array((np.array([1, 0, 2]), np.array([0, 1, 1]), np.array([0, 2, 3])),
                      shape=(2, 2))
    B.indices[2] = 7  # (a canonical flag does not check the range)
    for w in ("count", "values"):
        with pytest.raises(WpartValueError, match="A"):
            spatial.rect_nicol(B, 2, P=2, Q=1, weights=w)


def _powerlaw(seed, n1, n2, nnz):
    """Zipf rows and columns (half of the entries; the rest uniform), values 1-3 (summed
    duplicates too)."""
    rng = np.random.default_rng(seed)
    r = rng.permutation(n1)[np.minimum(rng.zipf(1.6, nnz) - 1, n1 - 1)]
    c = rng.permutation(n2)[np.minimum(rng.zipf(1.6, nnz) - 1, n2 - 1)]
    r = np.where(rng.random(nnz) < 0.5, r, rng.integers(0, n1, nnz))
    c = np.where(rng.random(nnz) < 0.5, c, rng.integers(0, n2, nnz))
    A = sps.csr_array(sps.coo_array((rng.integers(1, 4, nnz), (r, c)), shape=(n1, n2)))
    A.sum_duplicates()
    A.data = np.minimum(A.data, 3)
    return A


def test_joint_bound_start_on_heavy_lines():
    """On heavy-line matrices from 64 blocks the joint-bound start runs first: a grid at the
    proven bound (the step-by-step engine's bound, computed apart) is the result, optimal, and
    no other start runs; else, up to 255 blocks (from 256 the piece start follows it:
    test_spatial_rect_piece.py), the starts run as without it and its grid is kept where it is
    below all of theirs (the grid the later stages continue: never above it), dropped otherwise
    (never above the step-by-step engine's grid)."""
    kept = dropped = below = 0
    for seed in range(5):
        A = _powerlaw(seed, 500 + 60 * seed, 700, 3000 + 400 * seed)
        for P, Q in ((4, 32), (8, 16), (8, 8), (16, 8)):
            for weights in ("values", "stored"):
                r = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights)
                step = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights,
                                          starts=list(AUTO))
                assert r.stats["lower_bound"] == step.stats["lower_bound"]
                assert r.max_load <= step.max_load and r.max_load == r.loads.max()
                r.validate()
                j = r.stats["starts"].get("joint_bound")
                if j is None:  # no heavy line (the bound's gate)
                    continue
                assert 1 <= j["half_sweeps"] <= 2
                if j["state"] == "stopped":
                    kept += 1
                    assert r.stats["start"] == "joint_bound" and r.stats["bound_reached"]
                    assert r.max_load == j["max_load"] == r.stats["lower_bound"]
                    assert r.stats["polish"] is None
                    assert {v["state"] for k, v in r.stats["starts"].items()
                            if k != "joint_bound"} == {"not_run_bound"}
                else:
                    runs = [v["max_load"] for k, v in r.stats["starts"].items()
                            if k != "joint_bound" and v["state"] in ("stopped", "abandoned")]
                    assert j["max_load"] > r.stats["lower_bound"] and runs
                    if j["max_load"] < min(runs):
                        below += 1
                        assert j["state"] == "kept" and r.stats["start"] == "joint_bound"
                        assert r.max_load <= j["max_load"]
                    else:
                        dropped += 1
                        assert j["state"] == "dropped" and r.stats["start"] != "joint_bound"
    assert kept >= 20 and dropped >= 5
    # below 64 blocks, or without heavy lines, it does not run
    for A, P, Q in ((_powerlaw(1, 500, 700, 3000), 4, 4), (next(_matrices(3, 1)), 8, 8)):
        assert "joint_bound" not in spatial.rect_nicol(A, P * Q, P=P, Q=Q).stats["starts"]


def test_nicuni_runs_free_on_a_heavy_line_matrix(monkeypatch):
    """On a heavy-line matrix the nicuni member runs without the race or the bound (its uniform
    rows start far above where its plain half-sweeps end): bench_spatial_fresh's arrow_1400
    stored 16 x 16 reaches SARMA's best of nine (182, nicuni's; 191 while nicuni raced)."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_spatial_fresh as bf

    A = bf.build("arrow", {"n": 1400, "w": 6, "per_row": 3, "border_density": 0.6}, 117)
    r = spatial.rect_nicol(A, 256, P=16, Q=16, weights="stored")
    r.validate()
    assert r.stats["starts"].get("pieces") is not None  # a heavy-line matrix
    assert r.max_load == r.loads.max() <= 182


def test_never_above_sarmas_nic_on_small_dense_matrices():
    """The default's starts hold SARMA nic's own (rows_stored): on 150 seeded small dense
    matrices the default is never above nic run by the engine (plain half-sweeps, SARMA's
    patience), and never above one of its own starts' grids."""
    rng = np.random.default_rng(2026)
    for _ in range(150):
        n1, n2 = (int(x) for x in rng.integers(4, 60, 2))
        D = rng.integers(0, 10, (n1, n2)) * (rng.random((n1, n2)) < rng.uniform(0.1, 1.0))
        P, Q = int(rng.integers(1, min(8, n1) + 1)), int(rng.integers(1, min(8, n2) + 1))
        r = spatial.rect_nicol(D, P * Q, P=P, Q=Q)
        nic = spatial.rect_nicol(D, P * Q, P=P, Q=Q, starts="rows_stored", refine=False,
                                 patience="sarma")
        assert r.max_load <= nic.max_load, (n1, n2, P, Q)
        assert all(r.max_load <= v["max_load"] for v in r.stats["starts"].values()
                   if v["max_load"] is not None)  # (None: a start not run)


def test_one_call_helpers_out_of_memory_leave_it_to_the_general_path(monkeypatch):
    """When the one-call path's memory (a dense array's nonzeros; the core call that drops
    the explicit zeros of values) cannot be had, the general path answers (its own memory
    rules)."""
    from wpart import _core

    rng = np.random.default_rng(4)
    D = rng.integers(0, 5, (60, 50))
    Z = sps.csr_array(D)
    Z.data[::4] = 0
    for A, w, name in ((D, "values", "spatial_dense_csr"),
                       (Z, "values", "spatial_rect_nicol_auto"),
                       (Z, "count", "spatial_rect_nicol_auto")):
        ref = spatial.rect_nicol(A, 16, P=4, Q=4, weights=w)
        real, calls = getattr(_core, name), []

        def once(*args, real=real, calls=calls, **kw):  # the first call fails, as out of memory
            calls.append(1)
            if len(calls) == 1:
                raise MemoryError("test")
            return real(*args, **kw)

        monkeypatch.setattr(_core, name, once)
        r = spatial.rect_nicol(A, 16, P=4, Q=4, weights=w)
        assert calls and np.array_equal(r.rects, ref.rects) and r.max_load == ref.max_load
        monkeypatch.setattr(_core, name, real)


# a dense 7 x 11 matrix (at least half its cells stored: the load starts take the uniform ones'
# places) on which every stage of the default but the last ended at 10 and the uniform grid is
# at 9
_ABOVE_UNIFORM = [[0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0], [4, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1],
                  [0, 0, 3, 2, 1, 0, 1, 3, 1, 0, 0], [0, 0, 1, 1, 1, 1, 0, 4, 1, 0, 0],
                  [1, 1, 0, 0, 1, 0, 0, 2, 0, 0, 0], [0, 0, 0, 0, 1, 1, 6, 0, 1, 2, 2],
                  [0, 0, 0, 3, 0, 1, 1, 1, 1, 4, 0]]


def test_never_above_the_uniform_grid_where_no_uniform_start_runs():
    D = np.array(_ABOVE_UNIFORM, np.int64)
    uni = spatial.rect_uniform(D, 18, P=3, Q=6)
    fast = spatial.rect_nicol(D, 18, P=3, Q=6)
    assert fast.params["starts"] == auto_names(3)
    # (SARMA's sgo_2dr_nic after the random starts, the grid 1.15-1.7 x the bound, goes below
    # the uniform grid here)
    assert uni.max_load == 9 and fast.max_load == 8
    _same(fast, spatial.rect_nicol(D, 18, P=3, Q=6, starts=list(auto_names(3))))
    # the same starts without the random ones (an explicit patience: the engine) end at 10:
    # the uniform grid is the result
    race = spatial.rect_nicol(D, 18, P=3, Q=6, patience=2)
    assert "random_starts" not in race.stats["starts"]
    assert race.max_load == 9 and np.array_equal(race.rects, uni.rects)
    assert race.stats["start"] == "uniform_grid"
    assert min(s["max_load"] for s in race.stats["starts"].values()) == 10
    for s in ("rows_load", "cols_load", ["rows_load"], [(np.array([0, 2, 4, 7]),
                                                        np.array([0, 1, 2, 4, 6, 8, 11]))]):
        assert spatial.rect_nicol(D, 18, P=3, Q=6, starts=s).max_load <= 9, s
    rng = np.random.default_rng(77)
    for _ in range(300):  # small dense and banded matrices: never above RECT-UNIFORM
        n1, n2 = (int(x) for x in rng.integers(4, 16, 2))
        A = rng.integers(0, 7, (n1, n2)) * (rng.random((n1, n2)) < rng.choice([0.3, 0.6, 1.0]))
        if rng.random() < 0.3:
            A = np.triu(np.tril(rng.integers(1, 9, (n1, n1)), 1), -1)
            n2 = n1
        P, Q = int(rng.integers(1, min(n1, 5) + 1)), int(rng.integers(1, min(n2, 5) + 1))
        r = spatial.rect_nicol(A, P * Q, P=P, Q=Q, allow_empty=True)
        assert r.max_load <= spatial.rect_uniform(A, P * Q, P=P, Q=Q,
                                                  allow_empty=True).max_load


def test_banded_float_loads_never_above_the_uniform_grid():
    # a banded matrix runs the diagonal start alone; its grid is checked against the uniform
    # one by sums that stop at the first block that reaches its max (float loads here, in the
    # one call and the step-by-step engine alike)
    rng = np.random.default_rng(11)
    for n, P, Q in ((300, 3, 3), (400, 6, 2), (250, 5, 5), (120, 4, 6)):
        A = sps.diags([rng.random(n - abs(k)) * 3 + 0.01 for k in range(-3, 4)],
                      list(range(-3, 4)), format="csr")
        r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        assert r.stats["start"] == "diag_interleaved"
        assert r.max_load <= spatial.rect_uniform(A, P * Q, P=P, Q=Q).max_load
        _same(r, spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(auto_names(0))))


@pytest.mark.parametrize("weights", ["stored", "count", "values"])
def test_coo_and_csc_take_the_one_call_path_as_the_general_path_reads_them(monkeypatch,
                                                                           weights):
    """A COO or CSC matrix (``scipy.io.mmread`` gives COO), duplicates and explicit zeros
    included, runs the one-call default on the CSR matrix the input rules make of it: the
    general path's result, its loads matrix `A` included."""
    from wpart.spatial import _rect

    rng = np.random.default_rng(17)
    taken, spy = _spy_fast()
    for k in range(12):
        n1, n2 = (int(x) for x in rng.integers(40, 300, 2))
        nnz = int(rng.integers(1, n1 * n2 // 8))
        row, col = rng.integers(0, n1, nnz), rng.integers(0, n2, nnz)
        if k % 3 == 0:  # integral floats (a real file of unit weights), zeros among them
            data = rng.integers(0, 4, nnz).astype(np.float64)
        elif k % 3 == 1:  # ints
            data = rng.integers(0, 9, nnz)
        else:  # fractional floats: values stay with the input rules (dense where dense)
            data = rng.random(nnz) + (rng.random(nnz) < 0.1) * 0.0
        C = sps.coo_array((data, (row, col)), shape=(n1, n2))  # (duplicates: summed / counted)
        for A in (C, C.tocsc(), sps.coo_matrix(C)):
            P, Q = ((4, 4), (3, 5), (8, 8))[k % 3]
            monkeypatch.setattr(_rect, "fast_default", spy)
            taken.clear()
            fast = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights)
            monkeypatch.setattr(_rect, "fast_default", lambda *a, **kw: None)
            ref = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights)
            _same(fast, ref)
            if taken == [True] and isinstance(ref.A, np.ndarray):
                # integral loads kept sparse at any density (the general path densifies)
                assert sps.issparse(fast.A) and np.array_equal(fast.A.toarray(), ref.A)
            elif taken == [True]:
                _same_matrix(fast.A, ref.A)
            else:  # fractional values the input rules densify
                assert weights == "values" and k % 3 == 2
