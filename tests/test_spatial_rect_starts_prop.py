"""RECT-NICOL's starts (#27 item 3) on many small random cases: user-given cut pairs and the
symmetric grids as starts, mixed with names; the result never worse than any of them, the
same for dense and sparse input. The default (starts="auto", one core call) never worse than
any of its starts' grids nor the uniform grid; a former engine's name in a list is a start of
the progress-following engine."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps

import wpart
from wpart import spatial
from wpart.spatial._nicol import auto_names
from oracles.spatial import grid_max


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
        assert r.max_load <= min(grid_max(D, *g1), grid_max(D, *g2)) + tol
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


def _random_case(rng, t):
    """A small random matrix (zeros; ties; int, float or 0/1 loads) and P, Q in 1..6."""
    n1, n2 = (int(x) for x in rng.integers(1, 60, 2))
    D = rng.integers(0, 9, (n1, n2)) * (rng.random((n1, n2)) < rng.uniform(0.0, 0.9))
    if t % 4 == 1:
        D = D * 0.25 + (D > 0) * rng.random((n1, n2))  # float loads
    elif t % 4 == 2:
        D = (D > 0).astype(np.int64)  # many ties
    P, Q = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    return D, P, Q


@pytest.mark.filterwarnings("ignore:P x Q")
def test_default_never_worse_than_its_starts_nor_the_uniform_grid():
    rng = np.random.default_rng(2703)
    for t in range(400):
        D, P, Q = _random_case(rng, t)
        r = spatial.rect_nicol(sps.csr_array(D), P * Q, P=P, Q=Q, allow_empty=True)
        r.validate()
        tol = 1e-12 * max(1.0, r.max_load)
        if P * Q <= D.size:  # (more parts than cells: the former engine solves a smaller grid)
            # the default set, with the load starts for the uniform ones where at least half
            # the cells are stored
            dense = 2 * np.count_nonzero(D) >= D.size
            # (from 4 to 63 blocks SARMA's random starts after them, unless on a banded
            # matrix: their entry)
            assert set(r.stats["starts"]) - {"random_starts"} == \
                set(auto_names(3 if dense else 0))
            if "random_starts" in r.stats["starts"]:
                assert 4 <= P * Q < 64
        for name, row in r.stats["starts"].items():
            if row["max_load"] is not None:  # a start the call ran (or its twin's value)
                assert r.max_load <= row["max_load"] + tol, name
        u = spatial.rect_uniform(D, P * Q, P=P, Q=Q, allow_empty=True)
        assert r.max_load <= u.max_load + tol
        d = spatial.rect_nicol(D, P * Q, P=P, Q=Q, allow_empty=True)  # dense: the same grid
        assert d.max_load == r.max_load and np.array_equal(d.rects, r.rects)


def test_a_former_name_in_a_list_is_an_engine_start():
    rng = np.random.default_rng(4)
    D = rng.integers(0, 9, (40, 30)) * (rng.random((40, 30)) < 0.4)
    for name in ("rows_uniform", "rows_load", "cols_uniform", "cols_load"):
        former = spatial.rect_nicol(D, 12, P=4, Q=3, starts=name)  # the paper's engine
        assert "half_sweeps" not in former.stats["starts"][name]
        engine = spatial.rect_nicol(D, 12, P=4, Q=3, starts=[name])
        row = engine.stats["starts"][name]
        assert row["half_sweeps"] >= 1 and engine.max_load <= row["max_load"]
        assert engine.params["starts"] == (name,)
    with pytest.raises(wpart.WpartValueError, match=r"`starts` has an unknown start 'all'"):
        spatial.rect_nicol(D, 12, P=4, Q=3, starts=["all"])  # "all" is a string only


def test_dense_load_matrix_runs_the_load_starts():
    """Where at least half the cells are stored (a dense load matrix), the default's uniform
    starts give way to the loads' 1D partitions (``rows_load``, ``cols_load``): on the peak
    instance at 128^2 its 4 x 4 and 8 x 8 grids reach the paper's best of four starts
    (``starts="all"``), which the uniform set missed by 5-6 % (230,399 / 69,320 against
    242,235 / 73,490). The same matrix as CSR gives the same grid; a sparse one keeps the
    uniform starts."""
    from wpart.spatial import instances as I

    A = I.make("peak", 128, seed=1)
    for k, want in ((4, 230_399), (8, 69_320)):
        r = spatial.rect_nicol(A, k * k, P=k, Q=k)
        assert r.params["starts"] == auto_names(3)
        assert set(r.stats["starts"]) - {"random_starts"} == {
            "diag_interleaved", "rows_stored", "rows_load", "cols_load"}
        assert r.max_load == want
        assert r.max_load <= spatial.rect_nicol(A, k * k, P=k, Q=k, starts="all").max_load
        s = spatial.rect_nicol(sps.csr_array(A), k * k, P=k, Q=k)
        assert s.max_load == r.max_load and np.array_equal(s.rects, r.rects)
    S = sps.random(300, 300, density=0.3, random_state=3, format="csr")
    assert spatial.rect_nicol(S, 16, P=4, Q=4).params["starts"] == auto_names(0)
    # the boundary: exactly half the cells stored takes the load starts
    H = np.zeros((20, 20))
    H[:, :10] = np.arange(1, 201).reshape(20, 10)
    assert spatial.rect_nicol(H, 16, P=4, Q=4).params["starts"] == auto_names(3)
    H[0, 0] = 0
    assert spatial.rect_nicol(H, 16, P=4, Q=4).params["starts"] == auto_names(0)
