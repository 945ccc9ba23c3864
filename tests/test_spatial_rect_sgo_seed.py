"""The subgradient method from SARMA's random start (``_core.spatial_rect_sgo(..., seed=s)``):
std::mt19937_64(s) drawn as libstdc++'s uniform_real_distribution draws it, rows first, then
SARMA's iterations; with seed 1 (SARMA's library default) and 2147483647 (its command line's)
the same grid as SARMA's sgo_2dr (benchmarks/_sarma.py, an independent numpy implementation
with its own Python mt19937_64), cut for cut."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import WpartValueError, _core


def _args(L, P, Q):
    L = sps.csr_array(L)
    L.sort_indices()
    R = (np.arange(P + 1) * L.shape[0]) // P
    C = (np.arange(Q + 1) * L.shape[1]) // Q
    return (L.shape[0], L.shape[1], L.indptr.astype(np.int64), L.indices.astype(np.int64),
            L.data.astype(np.float64), P, Q, R, C)


def _matrices(seed, count):
    rng = np.random.default_rng(seed)
    for k in range(count):
        n1, n2 = (int(x) for x in rng.integers(20, 260, 2))
        B = sps.random(n1, n2, density=float(rng.uniform(0.01, 0.08)),
                       random_state=int(rng.integers(1 << 30)), format="csr")
        vals = np.ones(B.nnz, np.int64) if k % 2 else rng.integers(1, 6, B.nnz)
        yield sps.csr_array((vals, B.indices, B.indptr), shape=B.shape)


def test_seed_one_is_sarmas_sgo_2dr(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import _sarma

    n = 0
    for L in _matrices(3, 10):
        M = _sarma.Mat(L)
        for P, Q in ((4, 4), (3, 7), (8, 8), (2, 9)):
            if P > L.shape[0] or Q > L.shape[1]:
                continue
            R, C = _sarma.sgo_2dr(M, P, Q)
            R2, C2, v, iters, timed = _core.spatial_rect_sgo(*_args(L, P, Q), 20000, seed=1)
            assert np.array_equal(np.minimum(R, M.n1), R2)
            assert np.array_equal(np.minimum(C, M.n2), C2)
            assert v == M.lmax(R2, C2) and timed == 0 and iters >= 1
            n += 1
    assert n >= 30


def test_seeds_differ_and_repeat():
    L = next(_matrices(5, 1))
    once = _core.spatial_rect_sgo(*_args(L, 6, 6), 300, seed=1)
    again = _core.spatial_rect_sgo(*_args(L, 6, 6), 300, seed=1)
    assert all(np.array_equal(a, b) for a, b in zip(once[:2], again[:2]))
    first = _core.spatial_rect_sgo(*_args(L, 6, 6), 1, seed=1)  # one iteration: the start
    other = _core.spatial_rect_sgo(*_args(L, 6, 6), 1, seed=2)
    assert not (np.array_equal(first[0], other[0]) and np.array_equal(first[1], other[1]))
    # seed 0: from the given grid (the uniform one here), as before
    u = _core.spatial_rect_sgo(*_args(L, 6, 6), 1)
    args = _args(L, 6, 6)
    assert np.array_equal(u[0], args[7]) and np.array_equal(u[1], args[8])


def test_seed_refused_where_it_has_no_meaning():
    L = next(_matrices(6, 1))
    with pytest.raises(WpartValueError, match="`seed` must be >= 0"):
        _core.spatial_rect_sgo(*_args(L, 4, 4), 10, seed=-1)
    for fn in (_core.spatial_rect_polish, _core.spatial_rect_kick):
        with pytest.raises(WpartValueError, match="`seed` applies to spatial_rect_sgo only"):
            fn(*_args(L, 4, 4), 10, seed=2)


def test_symmetric_seed_one_is_sarmas_sgo_2ds(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import _sarma

    n = 0
    for k, L in enumerate(_matrices(8, 10)):
        if k % 3 == 0:  # square and symmetric
            m = min(L.shape)
            S = sps.csr_array(L[:m, :m])
            L = sps.csr_array(S + S.T)
        M = _sarma.Mat(L)
        for P in (3, 4, 8):
            if P > min(L.shape):
                continue
            R, C = _sarma.sgo_2ds(M, P)
            R2, C2, v, iters, timed = _core.spatial_rect_sgo_sym(*_args(L, P, P), 20000,
                                                                  seed=1)
            assert np.array_equal(np.minimum(R, M.n1), R2)
            assert np.array_equal(np.minimum(C, M.n2), C2)
            assert v == M.lmax(R2, C2) and timed == 0
            n += 1
    assert n >= 20
    with pytest.raises(WpartValueError, match="needs P == Q"):
        _core.spatial_rect_sgo_sym(*_args(next(_matrices(9, 1)), 3, 4), 10, seed=1)


@pytest.mark.parametrize("seed", [2147483647, 7])
def test_other_seeds_are_sarmas_too(monkeypatch, seed):
    # SARMA's command line hands its --seed (default 2147483647) to the SGO members: the
    # core's runs from that seed are _sarma.py's, cut for cut, rectilinear and symmetric
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import _sarma

    n = 0
    for k, L in enumerate(_matrices(12, 6)):
        M = _sarma.Mat(L)
        for P, Q in ((4, 4), (3, 7)):
            if P > L.shape[0] or Q > L.shape[1]:
                continue
            R, C = _sarma.sgo_2dr(M, P, Q, seed)
            R2, C2, v, _it, _t = _core.spatial_rect_sgo(*_args(L, P, Q), 20000, seed=seed)
            assert np.array_equal(np.minimum(R, M.n1), R2)
            assert np.array_equal(np.minimum(C, M.n2), C2)
            if P == Q:
                R, C = _sarma.sgo_2ds(M, P, seed)
                R2, C2, v, _it, _t = _core.spatial_rect_sgo_sym(*_args(L, P, P), 20000,
                                                                 seed=seed)
                assert np.array_equal(np.minimum(R, M.n1), R2)
                assert np.array_equal(np.minimum(C, M.n2), C2)
            n += 1
    assert n >= 10


def test_refinements_never_above_sarmas_sgo(monkeypatch):
    """rect_refine runs SARMA's sgo_2dr from the seeds of SARMA's library (1) and command
    line (2147483647) among its SGO runs, then SARMA's nic from their grids, and
    rect_sym_refine SARMA's sgo_2ds from both seeds among its starts: none ends above them
    (SARMA's values from _sarma.py)."""
    from wpart import spatial
    from wpart.spatial._grid import SARMA_SEEDS

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import _sarma

    assert SARMA_SEEDS == (1, _sarma.CLI_SEED)
    for k, L in enumerate(_matrices(11, 6)):
        M = _sarma.Mat(L)
        P = (3, 4, 6)[k % 3]
        r = spatial.rect_refine(L, P * P, P=P, Q=P)
        s = spatial.rect_sym_refine(L, P * P)
        for seed in SARMA_SEEDS:
            assert r.max_load <= M.lmax(*_sarma.sgo_2dr(M, P, P, seed))
            assert r.max_load <= M.lmax(*_sarma.sgo_2dr_nic(M, P, P, seed))
            assert s.max_load <= M.lmax(*(np.minimum(c, n) for c, n in
                                          zip(_sarma.sgo_2ds(M, P, seed), (M.n1, M.n2))))
        assert any(x.get("iterations") for x in r.stats["polish"]["sgo_runs"])
        assert set(s.stats["starts"]) == {"pal", "opal", "rac", "sgo", "sgo_cli"}
        for one in ("sgo", "sgo_cli"):
            only = spatial.rect_sym_refine(L, P * P, start=one)
            assert set(only.stats["starts"]) == {one} and only.max_load >= s.max_load


@pytest.mark.parametrize("bad", ["sgo_lib", "SGO", "cli", ""])
def test_sym_refine_refuses_an_unknown_start(bad):
    from wpart import spatial

    L = next(_matrices(13, 1))
    with pytest.raises(WpartValueError, match=r"`start` must be 'pal', 'opal', 'rac', "
                                              r"'uniform', 'sgo', 'sgo_cli', 'best' or P \+ 1 "
                                              r"cuts, got " + repr(bad)):
        spatial.rect_sym_refine(L, 16, start=bad)
