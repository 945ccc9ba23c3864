"""The random start of benchmarks/_sarma.py's subgradient method is SARMA's: std::mt19937_64
seeded 1, one generator for all dimensions (rows, then columns), libstdc++'s
uniform_real_distribution<double>(0, total) per position, positions sorted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sps

BENCH = str(Path(__file__).resolve().parents[1] / "benchmarks")


@pytest.fixture
def sarma(monkeypatch):
    monkeypatch.syspath_prepend(BENCH)
    import _sarma

    return _sarma


def test_mt19937_64_matches_the_cpp_standard(sarma):
    # [rand.predef]: the 10000th consecutive output of a default-constructed mt19937_64
    g = sarma.MT19937_64()
    out = [g.next() for _ in range(10000)]
    assert out[-1] == 9981545732273789042
    assert all(0 <= x < 2**64 for x in out)
    g = sarma.MT19937_64(5489)  # the default seed, given
    assert [g.next() for _ in range(5)] == out[:5]


@pytest.mark.parametrize("x, want", [(0, 0.0), (2**63, 0.5), (2**62, 0.25), (1, 2.0**-64),
                                     (2**64 - 1, 0.9999999999999999),
                                     (2**64 - 2**10, 0.9999999999999999),
                                     (2**64 - 2**11, 1.0 - 2.0**-53)])
def test_canonical_conversion(sarma, x, want):
    # double(x) / 2**64; x near 2**64 rounds to 2**64 and the 1.0 becomes the largest double
    # below it
    r = sarma.canonical(x)
    assert r == want and 0.0 <= r < 1.0


def _matrix(n1, n2, seed):
    rng = np.random.default_rng(seed)
    D = rng.integers(1, 5, (n1, n2)) * (rng.random((n1, n2)) < 0.3)
    D[:, 0] = 1  # every row and column carries load: distinct positions give distinct cuts
    D[0, :] = 1
    return sps.csr_array(D)


def _sarma_start(Ps, totals, seed=1):
    """SARMA's formula written out: one generator, dimensions in order, P - 1 draws each of
    float(x) / 2**64 * total (>= 1.0 clamped), sorted."""
    import _sarma

    g = _sarma.MT19937_64(seed)
    out = []
    for P, tot in zip(Ps, totals):
        v = []
        for _ in range(P - 1):
            c = float(g.next()) / 18446744073709551616.0
            v.append((c if c < 1.0 else np.nextafter(1.0, 0.0)) * tot)
        out.append(sorted(v))
    return out


def _cuts(pref, pos, n, N):
    # the position -> cut map of the subgradient method: the first index whose prefix reaches
    # the position (SARMA's pi_to_p), clipped to the dimension's size
    c = [0] + [int(np.searchsorted(pref, p, side="left")) for p in pos] + [N]
    return np.minimum(np.array(c, np.int64), n)


def test_sgo_2dr_start_is_sarmas_rows_first(sarma):
    A = _matrix(120, 90, 3)
    M = sarma.Mat(A)
    D = A.toarray().astype(float)
    rowp = np.concatenate([[0.0], np.cumsum(D.sum(axis=1))])
    colp = np.concatenate([[0.0], np.cumsum(D.sum(axis=0))])
    P, Q = 5, 7
    pos = sarma.random_start([P, Q], [rowp[-1], colp[-1]])
    want = _sarma_start([P, Q], [rowp[-1], colp[-1]])
    assert [list(p) for p in pos] == want
    assert all(np.all(np.diff(p) >= 0) for p in pos)
    # one generator: the columns continue the rows' stream
    assert want[1] != _sarma_start([Q], [colp[-1]])[0]
    # _sgo's first iterate (max_iter=1 returns it) is that start
    R, C = sarma._sgo(M, [P, Q], False, seed=1, max_iter=1)
    np.testing.assert_array_equal(np.minimum(R, M.n1), _cuts(rowp, want[0], M.n1, M.N))
    np.testing.assert_array_equal(np.minimum(C, M.n2), _cuts(colp, want[1], M.n2, M.N))
    # columns drawn first would give other cuts
    swapped = _sarma_start([Q, P], [colp[-1], rowp[-1]])
    assert not np.array_equal(np.minimum(C, M.n2), _cuts(colp, swapped[0], M.n2, M.N))


def test_sgo_2ds_start_is_sarmas_on_twice_the_load(sarma):
    A = _matrix(100, 100, 5)
    M = sarma.Mat(A)
    D = A.toarray().astype(float)
    pref = np.concatenate([[0.0], np.cumsum(D.sum(axis=1) + D.sum(axis=0))])
    assert pref[-1] == 2 * D.sum()
    want = _sarma_start([6], [pref[-1]])
    R, C = sarma._sgo(M, [6], True, seed=1, max_iter=1)
    np.testing.assert_array_equal(R, C)
    np.testing.assert_array_equal(R, _cuts(pref, want[0], M.n1, M.N))


def test_sgo_given_start_and_seed(sarma):
    A = _matrix(80, 60, 7)
    M = sarma.Mat(A)
    R0 = np.array([0, 10, 33, 50, 80])
    C0 = np.array([0, 7, 20, 41, 60])
    R, C = sarma._sgo(M, [4, 4], False, init=[R0, C0], max_iter=1)
    np.testing.assert_array_equal(np.minimum(R, M.n1), R0)
    np.testing.assert_array_equal(np.minimum(C, M.n2), C0)
    # the full runs are deterministic and the seed is the generator's
    a = sarma.sgo_2dr(M, 4, 4)
    b = sarma._sgo(M, [4, 4], False, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    s2 = sarma.random_start([4, 4], [10.0, 10.0], seed=2)
    assert [list(p) for p in s2] == _sarma_start([4, 4], [10.0, 10.0], seed=2)
