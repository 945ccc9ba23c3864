"""RECT-NICOL's starts (#27 item 3) on many small random cases: user-given cut pairs and the
symmetric grids as starts, mixed with names; the result never worse than any of them, the
same for dense and sparse input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps

import wpart
from wpart import spatial


def _grid_max(D, R, C):
    S = np.zeros((D.shape[0] + 1, D.shape[1] + 1))
    S[1:, 1:] = np.cumsum(np.cumsum(D, 0), 1)
    B = S[np.ix_(R[1:], C[1:])] - S[np.ix_(R[:-1], C[1:])] - S[np.ix_(R[1:], C[:-1])] + \
        S[np.ix_(R[:-1], C[:-1])]
    return float(B.max())


def _cuts(rng, n, k):
    return np.array([0, *np.sort(rng.integers(0, n + 1, k - 1)), n], np.int64)


def test_given_and_symmetric_starts_never_worse_than_any_of_them():
    rng = np.random.default_rng(27)
    for t in range(60):
        n1, n2 = (int(x) for x in rng.integers(2, 50, 2))
        D = rng.integers(0, 9, (n1, n2)) * (rng.random((n1, n2)) < rng.uniform(0.1, 0.7))
        if t % 3 == 0:
            D = D * 0.25
        P = int(rng.integers(1, min(n1, n2, 6) + 1))
        Q = P if t % 2 == 0 else int(rng.integers(1, min(n2, 6) + 1))
        g1 = (_cuts(rng, n1, P), _cuts(rng, n2, Q))
        g2 = (_cuts(rng, n1, P), _cuts(rng, n2, Q))
        starts = [g1, "rows_load", g2, "cols_stored"]
        if P == Q:
            starts += ["sym_pal", "sym_opal", "sym_rac"]
        r = spatial.rect_nicol(D, P * Q, P=P, Q=Q, starts=starts, allow_empty=True)
        r.validate()
        tol = 1e-12 * max(1.0, r.max_load)
        assert r.max_load <= min(_grid_max(D, *g1), _grid_max(D, *g2)) + tol
        table = r.stats["starts"]
        assert {"given_0", "given_1", "rows_load", "cols_stored"} <= set(table)
        assert (P == Q) == ("sym_opal" in table)
        for name, row in table.items():
            if row["max_load"] is not None:
                assert r.max_load <= row["max_load"] + tol, name
        s = spatial.rect_nicol(sps.csr_array(D), P * Q, P=P, Q=Q, starts=starts,
                               allow_empty=True)
        assert s.max_load == r.max_load and np.array_equal(s.rects, r.rects)


def test_symmetric_start_needs_a_square_grid_and_cuts_are_checked():
    D = np.ones((6, 8))
    with pytest.raises(wpart.WpartValueError, match=r"`starts`: 'sym_pal' needs P == Q, got 2 x 3"):
        spatial.rect_nicol(D, 6, P=2, Q=3, starts=["sym_pal"])
    with pytest.raises(wpart.WpartValueError, match=r"`starts`: row cuts must be 3 non-decreasing"):
        spatial.rect_nicol(D, 6, P=2, Q=3, starts=[([0, 7, 6], [0, 2, 4, 8])])
    with pytest.raises(wpart.WpartValueError, match=r"`starts`: column cuts must be 4"):
        spatial.rect_nicol(D, 6, P=2, Q=3, starts=[([0, 3, 6], [0, 2, 8])])
