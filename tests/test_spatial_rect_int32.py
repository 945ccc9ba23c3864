"""The default rect_nicol on integer loads whose total is near 2**31.

Below 2**31 - 1 the half-sweeps keep their stripe prefixes of 8 or more stripes in int32, from
there in float64 (the same integers either way). On both sides of that line the default must
stay exact: with one row stripe (or one column stripe), or with every entry in one column (row)
and 8 column (row) stripes, the row or column half-sweep is the exact 1D partition of the line
sums, checked against a dynamic programme; on any grid the rectangles tile the matrix and the
max load and block loads are the int64 sums of the blocks.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from wpart import spatial

LINE = 2**31 - 1  # the first total that the half-sweeps keep in float64


def _matrix(rng: np.random.Generator, total: int, low: int = 3, line: bool = False) -> sp.csr_array:
    """A random integer matrix (values >= 1) whose stored values sum to `total`; line: all in
    column 0."""
    n1, n2 = (int(x) for x in rng.integers(low, 40, 2))
    mask = rng.random((n1, n2)) < rng.uniform(0.1, 0.6)
    mask[rng.integers(0, n1), rng.integers(0, n2)] = True
    if line:
        mask[:, 0] |= mask.any(axis=1)
        mask[:, 1:] = False
    r, c = np.nonzero(mask)
    v = rng.random(r.size) ** 3 + 1e-3
    v = np.maximum(1, np.floor(v / v.sum() * total)).astype(np.int64)
    v[int(np.argmax(v))] += total - int(v.sum())
    assert v.min() >= 1 and int(v.sum()) == total
    return sp.csr_array((v, (r, c)), shape=(n1, n2))


def _best_1d(w: np.ndarray, k: int) -> int:
    """The least max sum of k contiguous intervals of w (dynamic programme)."""
    n = w.size
    pre = np.concatenate([[0], np.cumsum(w, dtype=np.int64)]).tolist()
    inf = float("inf")
    f = [0] + [inf] * n
    for _ in range(k):
        g = [0] + [inf] * n
        for j in range(1, n + 1):
            g[j] = min(max(f[i], pre[j] - pre[i]) for i in range(j + 1))
        f = g
    return int(f[n])


def _check_blocks(A: sp.csr_array, P: int, Q: int, r) -> None:
    D = A.toarray().astype(np.int64)
    R = np.asarray(r.rects, dtype=np.int64)
    assert R.shape == (P * Q, 4)
    cover = np.zeros(D.shape, dtype=np.int64)
    loads = []
    for a, b, c, d in R.tolist():
        cover[a:b, c:d] += 1
        loads.append(int(D[a:b, c:d].sum()))
    assert (cover == 1).all()
    assert int(r.max_load) == max(loads)
    L = r.loads.toarray() if hasattr(r.loads, "toarray") else np.asarray(r.loads)
    assert sorted(np.asarray(L).ravel().astype(np.int64).tolist()) == sorted(loads)


@pytest.mark.parametrize("total", [LINE - 2, LINE - 1, LINE, LINE + 7, 3 * 2**31])
def test_one_stripe_is_the_exact_1d_partition(total):
    rng = np.random.default_rng(total % 1000)
    for _ in range(6):
        A = _matrix(rng, total)
        D = A.toarray().astype(np.int64)
        for k in range(1, 6):
            if k <= A.shape[1]:
                r = spatial.rect_nicol(A, k, P=1, Q=k, weights="values")
                assert int(r.max_load) == _best_1d(D.sum(axis=0), k)
                _check_blocks(A, 1, k, r)
            if k <= A.shape[0]:
                r = spatial.rect_nicol(A, k, P=k, Q=1, weights="values")
                assert int(r.max_load) == _best_1d(D.sum(axis=1), k)
                _check_blocks(A, k, 1, r)


@pytest.mark.parametrize("total", [LINE - 2, LINE - 1, LINE + 7, 3 * 2**31])
def test_one_line_of_entries_under_eight_stripes_is_the_exact_1d_partition(total):
    rng = np.random.default_rng(total % 997)
    for _ in range(6):
        A = _matrix(rng, total, low=9, line=True)
        rows = A.toarray().astype(np.int64).sum(axis=1)
        for k in range(1, 6):
            r = spatial.rect_nicol(A, 8 * k, P=k, Q=8, weights="values")
            assert int(r.max_load) == _best_1d(rows, k)
            _check_blocks(A, k, 8, r)
            At = sp.csr_array(A.T)
            r = spatial.rect_nicol(At, 8 * k, P=8, Q=k, weights="values")
            assert int(r.max_load) == _best_1d(rows, k)
            _check_blocks(At, 8, k, r)


@pytest.mark.parametrize("total", [LINE - 2, LINE + 7])
def test_grids_near_the_line_are_exact_tilings(total):
    rng = np.random.default_rng(31 + total % 7)
    for _ in range(8):
        A = _matrix(rng, total, low=9)
        for P, Q in [(2, 3), (4, 4), (2, 8), (8, 3), (8, 8)]:
            if P <= A.shape[0] and Q <= A.shape[1]:
                r = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights="values")
                assert r.success
                _check_blocks(A, P, Q, r)
