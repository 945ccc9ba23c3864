"""The heavy lines' cache of the SGO's block loads (rect_polish_i.h, wpart_i_rp_shift).

With integer weights the SGO (and the default's SGO kick) keeps its P x Q block loads by moving
the lines that change stripe, a line of more than 4 K and more than 256 entries as its loads per
stripe of the other dimension (O(K) instead of its entries). The oracle: the same SGO on the weights halved,
which are not integers, so its block loads are summed from scratch every iteration. Halving is
exact and the SGO's steps scale with the loads, so both runs must take the same cuts in every
iteration: the same grid, the same iteration count and exactly half the max load.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from wpart import _core

import wpart.spatial as spatial


def _heavy_matrix(rng, n1, n2, heavy, density, share=(0.3, 0.9)):
    """Random entries plus a few heavy rows and columns (power-law-like), canonical CSR."""
    A = sp.random(n1, n2, density=density, random_state=rng, format="lil")
    for i in rng.choice(n1, size=heavy, replace=False):
        cols = rng.choice(n2, size=int(n2 * rng.uniform(*share)), replace=False)
        A[i, cols] = 1.0
    for j in rng.choice(n2, size=heavy, replace=False):
        rows = rng.choice(n1, size=int(n1 * rng.uniform(*share)), replace=False)
        A[rows, j] = 1.0
    A = A.tocsr()
    A.sum_duplicates()
    A.sort_indices()
    return A


def _sgo(A, w, P, Q, seed, max_iter=400):
    n1, n2 = A.shape
    rp = A.indptr.astype(np.int64)
    ci = A.indices.astype(np.int64)
    R = (np.arange(P + 1) * n1) // P
    C = (np.arange(Q + 1) * n2) // Q
    return _core.spatial_rect_sgo(n1, n2, rp, ci, w, P, Q, R.astype(np.int64),
                                  C.astype(np.int64), max_iter, 0.0, None, seed)


@pytest.mark.parametrize("case", range(12))
def test_sgo_with_the_cache_equals_the_from_scratch_sums(case):
    rng = np.random.default_rng(7000 + case)
    n1, n2 = int(rng.integers(450, 700)), int(rng.integers(450, 700))
    # heavy lines of 270-630 entries (the cache takes lines of more than 256) among light
    # ones of about 3
    A = _heavy_matrix(rng, n1, n2, heavy=int(rng.integers(1, 6)), density=0.005,
                      share=(0.6, 0.9))
    P, Q = int(rng.integers(2, 9)), int(rng.integers(2, 9))
    # odd integer weights (with a few zeros: explicit zeros are stored entries too)
    w = (2 * rng.integers(0, 3, A.nnz) + 1).astype(np.float64)
    w[rng.random(A.nnz) < 0.05] = 0.0
    counts = np.diff(A.indptr)
    assert counts.max() > max(4 * Q, 256)  # a heavy row: the cache is in use
    for seed in (0, 1, 2):
        R1, C1, v1, it1, t1 = _sgo(A, w, P, Q, seed)
        R2, C2, v2, it2, t2 = _sgo(A, w / 2.0, P, Q, seed)
        assert not t1 and not t2
        assert np.array_equal(R1, R2) and np.array_equal(C1, C2), (case, seed)
        assert it1 == it2 and v1 == 2.0 * v2, (case, seed, v1, v2)
        # unit weights (cache, no weight array) against halves of them (from scratch)
        R3, C3, v3, it3, _ = _sgo(A, None, P, Q, seed)
        R4, C4, v4, it4, _ = _sgo(A, np.full(A.nnz, 0.5), P, Q, seed)
        assert np.array_equal(R3, R4) and np.array_equal(C3, C4) and it3 == it4
        assert v3 == 2.0 * v4


def test_default_kick_on_heavy_lines_gives_a_valid_grid_of_its_max():
    """The default on a heavy-line matrix (its SGO kick's heavy stage moves cached lines): the
    grid tiles the matrix and .max_load is its heaviest block, summed here from scratch."""
    rng = np.random.default_rng(11)
    A = _heavy_matrix(rng, 700, 640, heavy=8, density=0.004)
    A.data = rng.integers(1, 4, A.nnz).astype(np.int64)
    for P, Q in ((16, 16), (8, 32), (32, 32)):
        r = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights="values")
        assert r.success
        rects = np.asarray(r.rects)
        D = A.toarray()
        loads = [D[a:b, c:d].sum() for a, b, c, d in rects]
        assert max(loads) == r.max_load
        assert sum((b - a) * (d - c) for a, b, c, d in rects) == A.shape[0] * A.shape[1]
