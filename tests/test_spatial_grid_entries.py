"""The core's grid entries (the private bindings behind rect_nicol, rect_refine and the cut-move
polish) refuse a malformed grid with an error naming it, instead of reading outside the matrix:
cuts must rise from 0 to the number of rows (columns)."""

import numpy as np
import pytest
import scipy.sparse as sps

import wpart
from wpart import _core

A = sps.random(30, 40, density=0.2, random_state=1, format="csr")
A.data = np.ceil(A.data * 5)
ARGS = (30, 40, A.indptr.astype(np.int64), A.indices.astype(np.int64),
        A.data.astype(np.float64))
GOOD_R, GOOD_C = [0, 10, 20, 30], [0, 20, 40]
BAD_R = {"negative": [-5, 10, 20, 30], "short": [0, 10, 20, 25], "long": [0, 10, 20, 31],
         "falling": [0, 20, 10, 30], "not from 0": [3, 10, 20, 30]}
BAD_C = {"negative": [-1, 20, 40], "short": [0, 20, 39], "falling": [0, 41, 40]}


def _calls(R, C):
    R, C = np.array(R, np.int64), np.array(C, np.int64)
    yield "grid", lambda: _core.spatial_rect_grid(*ARGS, 3, 2, R[None, :].copy(), C[None, :].copy(),
                                                 np.zeros(1, np.int32))
    yield "polish", lambda: _core.spatial_rect_polish(*ARGS, 3, 2, R.copy(), C.copy())
    yield "kick", lambda: _core.spatial_rect_kick(*ARGS, 3, 2, R.copy(), C.copy())
    yield "sgo", lambda: _core.spatial_rect_sgo(*ARGS, 3, 2, R.copy(), C.copy())


@pytest.mark.parametrize("bad", sorted(BAD_R))
def test_malformed_row_cuts_raise(bad):
    for name, call in _calls(BAD_R[bad], GOOD_C):
        with pytest.raises(wpart.WpartValueError,
                           match=r"RECT grid: row cuts of grid 0 must rise from 0 to 30"):
            call()


@pytest.mark.parametrize("bad", sorted(BAD_C))
def test_malformed_column_cuts_raise(bad):
    for name, call in _calls(GOOD_R, BAD_C[bad]):
        with pytest.raises(wpart.WpartValueError,
                           match=r"RECT grid: column cuts of grid 0 must rise from 0 to 40"):
            call()


def test_well_formed_grids_still_run():
    for name, call in _calls(GOOD_R, GOOD_C):
        out = call()
        assert out[0][0] == 0 and out[0][-1] == 30, name


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.int32, bool])
def test_dense_csr_equals_numpys_nonzeros(dtype):
    """The core's dense -> CSR arrays (GridInput's, for every grid method on a dense array) are
    NumPy's nonzeros in row order: pointers, columns, float64 values, entries per column and
    whether every value is 1, on random matrices with zeros, empty rows / columns, -0.0,
    a non-contiguous view and degenerate shapes."""
    rng = np.random.default_rng(7)
    shapes = [(1, 1), (1, 9), (9, 1), (7, 5), (40, 33), (3, 0), (0, 4)]
    for n1, n2 in shapes:
        for fill in (0.0, 0.3, 1.0):
            D = rng.integers(0, 4, (n1, n2)) * (rng.random((n1, n2)) < fill)
            D = D.astype(dtype)
            if dtype is np.float64 and D.size:
                D.flat[0] = -0.0
            for M in (D, D[:, ::-1], D.T):  # (views: made contiguous)
                rp, ci, w, cols, ones = _core.spatial_dense_csr(M)
                r, c = np.nonzero(M)
                assert rp.dtype == ci.dtype == cols.dtype == np.int64 and w.dtype == np.float64
                assert rp.tolist() == [0] + np.cumsum(np.count_nonzero(M, axis=1)).tolist()
                assert ci.tolist() == c.tolist()
                assert w.tolist() == np.asarray(M, np.float64)[r, c].tolist()
                assert cols.tolist() == np.count_nonzero(M, axis=0).tolist()
                assert ones == bool((w == 1.0).all())
                # one buffer: indices, int64 values (an int64 array), float64 values, and for a
                # float array kept dense (not nnz * 4 <= cells > 30) room for its prefix sums
                rp2, buf, cols2, ones2 = _core.spatial_dense_csr(M, True, 4, 30)
                nz, ints = len(ci), M.dtype == np.int64
                dense = not ints and not (nz * 4 <= M.size and M.size > 30)
                room = (M.shape[0] + 1) * (M.shape[1] + 1) if dense else 0
                assert buf.dtype == np.int64 and len(buf) == (3 if ints else 2) * nz + room
                assert buf[:nz].tolist() == ci.tolist() and rp2.tolist() == rp.tolist()
                if ints:
                    assert buf[nz:2 * nz].tolist() == M[r, c].tolist()
                fw = buf[(2 if ints else 1) * nz:(3 if ints else 2) * nz].view(np.float64)
                assert fw.tolist() == w.tolist()
                assert cols2.tolist() == cols.tolist() and ones2 == ones
    with pytest.raises(ValueError):
        _core.spatial_dense_csr(np.zeros(5))


def test_default_core_call_drops_explicit_zeros():
    """rect_nicol's one core call drops the explicit zeros itself (zeros=1: values; zeros=2:
    then 1 per nonzero value, any numeric dtype): the grid, loads and arrays it ran on are those
    of scipy's eliminate_zeros matrix run as it is; no nonzero left: None; malformed pointers
    raise (the indices are copied: the core checks the kept ones)."""
    rng = np.random.default_rng(3)
    for n1, n2, dens in ((1, 1, 1.0), (7, 5, 0.5), (40, 33, 0.2), (30, 9, 0.9)):
        B = sps.random(n1, n2, density=dens, random_state=int(rng.integers(99)), format="csr")
        for dtype in (np.int64, np.float64, np.int32, np.float32, bool):
            B.data = np.floor(rng.random(B.nnz) * 3).astype(dtype)  # about a third of them 0
            B.data[:1] = 0  # (the first entry a zero too)
            C = B.copy()
            C.eliminate_zeros()
            P, Q = min(2, n1), min(3, n2)
            args = (n1, n2, B.indptr, B.indices, B.data, P, Q, 20, True, 0.0)
            for zeros in ((1, 2) if dtype in (np.int64, np.float64) else (2,)):
                out = _core.spatial_rect_nicol_auto(*args, zeros=zeros)
                if C.nnz == 0:
                    assert out is None
                    continue
                cv = C.data if zeros == 1 else None
                ref = _core.spatial_rect_nicol_auto(n1, n2, C.indptr.astype(np.int64),
                                                    C.indices.astype(np.int64), cv, P, Q, 20,
                                                    True, 0.0)
                for k in (0, 1, 2, 13, 17):  # R, C, the block loads, the blocks, the max
                    assert np.array_equal(out[k], ref[k]), (n1, n2, dtype, zeros, k)
                assert out[15].tolist() == C.indptr.tolist()
                assert out[16].tolist() == C.indices.tolist()
                if zeros == 1 and C.nnz < B.nnz:
                    assert out[20].dtype == dtype and out[20].tolist() == C.data.tolist()
                else:
                    assert out[20] is None
    with pytest.raises(wpart.WpartValueError, match="CSR pointers decrease at 1"):
        _core.spatial_rect_nicol_auto(2, 2, np.array([0, 2, 1]), np.array([0]), np.array([1]),
                                      1, 1, 20, True, 0.0, zeros=1)


def test_rect_nicol_on_explicit_zeros_equals_the_zero_free_matrix():
    """The public default on values / count with explicit zeros: the same result, loads matrix
    included (canonical, no zeros), as on the matrix with its zeros eliminated."""
    rng = np.random.default_rng(11)
    B = sps.random(60, 45, density=0.3, random_state=5, format="csr")
    B.data = np.floor(rng.random(B.nnz) * 4).astype(np.int64)
    C = B.copy()
    C.eliminate_zeros()
    for w in ("values", "count"):
        for P, Q in ((1, 1), (3, 2), (4, 4)):
            r, q = (wpart.spatial.rect_nicol(M, P * Q, P=P, Q=Q, weights=w) for M in (B, C))
            assert np.array_equal(r.rects, q.rects) and r.max_load == q.max_load
            assert np.array_equal(r.loads, q.loads) and r.total == q.total
            assert r.A.nnz == C.nnz and (r.A != q.A).nnz == 0 and r.A.has_canonical_format
