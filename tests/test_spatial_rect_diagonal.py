"""The diagonal the default rect_nicol's diagonal start and banded test follow
(rect_bound.c: wpart_i_rect_diagonal): the banded test, the offset of a square matrix
whose entries lie mostly on one side of its diagonal and the corner-to-corner diagonal of a
rectangular one match their definitions (Python oracles on random shapes, bands, noise,
malformed arrays); on such matrices the one call and the step-by-step engine give one result,
and the default is never above what it reached with the plain diagonal start (ceilings)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import WpartValueError, spatial
from wpart.spatial._nicol import AUTO

from test_spatial_rect_fast import _matrices, _powerlaw, _same


def _offset_oracle(A):
    """wpart_i_rg_offset in Python: of a square matrix, the entries of 256 evenly spaced rows
    (every row when fewer); where at least twice as many of those off the diagonal lie on one
    side of it as on the other, the lower median of their j - i when at most n / 3 in size,
    else 0."""
    n1, n2 = A.shape
    if n1 != n2 or n1 < 2 or A.nnz == 0:
        return 0
    step = max(n1 // 256, 1)
    d = np.concatenate([A.indices[A.indptr[i]:A.indptr[i + 1]].astype(np.int64) - i
                        for i in range(step // 2, n1, step)])
    below, above = int((d < 0).sum()), int((d > 0).sum())
    side = max(below, above)
    if side == 0 or side < 2 * (below + above - side):
        return 0
    s = int(np.sort(d)[(d.size - 1) // 2])
    return 0 if 3 * abs(s) > n1 else s


def _banded_oracle(A, P, Q):
    """wpart_i_rg_banded in Python: of the entries of 64 evenly spaced rows (every row when
    fewer; each standing for `step` rows) and of every other row of more than 4 x the mean
    count (for itself), at least 90 % within half a block of the diagonal shifted by
    _offset_oracle's offset s (a block's side 1 / K of the matrix's, K = ceil(sqrt(P Q))):
    |(i + s) n2 - j n1| <= n1 n2 / (2 K)."""
    K = math.isqrt(P * Q - 1) + 1
    n1, n2 = A.shape
    s = _offset_oracle(A)
    step = max(n1 // 64, 1)
    near = total = 0
    for i in range(n1):
        cols = A.indices[A.indptr[i]:A.indptr[i + 1]].astype(object)
        sampled = i % step == step // 2
        if not sampled and not len(cols) * n1 > 4 * A.nnz:
            continue
        w = step if sampled else 1
        near += w * sum(2 * K * abs((i + s) * n2 - int(j) * n1) <= n1 * n2 for j in cols)
        total += w * len(cols)
    return total > 0 and near >= 0.9 * total


def _arrow_band(n=1500, width=6, k=3, seed=7):
    """A band of `width` with an arrow's k dense rows and columns (30 % filled)."""
    rng = np.random.default_rng(seed)
    M = sps.diags([1.0] * (2 * width + 1), list(range(-width, width + 1)), (n, n)).tolil()
    M[:k, :] = rng.random((k, n)) < 0.3
    M[:, :k] = rng.random((n, k)) < 0.3
    A = sps.csr_array(M.tocsr(), dtype=np.int64)
    A.sum_duplicates()
    A.data[:] = 1
    return A


@pytest.mark.parametrize("P,Q", [(16, 16), (8, 32)])
def test_an_arrow_on_a_band_is_not_banded_and_stays_at_or_below_nic(P, Q):
    """A sample of rows misses an arrow's few dense rows: read as banded, only the diagonal
    start ran and no nic member, and the default ended above SARMA's nic (689 / 533 against
    676 / 520). The dense rows count in the test, so every start and nic's member run."""
    from wpart import _core
    A = _arrow_band()
    assert not _core.spatial_rect_banded(*A.shape, A.indptr, A.indices, P, Q)
    assert not _banded_oracle(A, P, Q)
    band = sps.csr_array(sps.diags([1.0] * 13, list(range(-6, 7)), A.shape), dtype=np.int64)
    assert _core.spatial_rect_banded(*band.shape, band.indptr, band.indices, P, Q)
    r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
    nic = spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts="rows_stored", refine=False,
                             patience="sarma")
    assert r.max_load <= nic.max_load
    assert r.stats["starts"]["cols_uniform"]["state"] != "not_run"


def _banded(seed, n1, n2, width, extra, lo=None):
    """Entries within `width` of the diagonal (scaled to the shape; from `lo` to `width` of it
    where `lo` is given: a band off the diagonal), `extra` of them anywhere."""
    rng = np.random.default_rng(seed)
    r = rng.integers(0, n1, 6 * n1)
    lo = -width if lo is None else lo
    c = np.clip(np.round(r * n2 / n1 + rng.integers(lo, width + 1, r.size)), 0, n2 - 1)
    r = np.concatenate([r, rng.integers(0, n1, extra)])
    c = np.concatenate([c, rng.integers(0, n2, extra)]).astype(np.int64)
    A = sps.csr_array((rng.integers(1, 5, r.size), (r, c)), shape=(n1, n2))
    A.sum_duplicates()
    return A


def test_banded_test_matches_its_definition():
    from wpart import _core

    seen = set()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n1, n2 = (int(x) for x in rng.integers(30, 900, 2))
        if seed >= 40:  # square, the band off the diagonal (one side, or both unevenly)
            n2 = n1
            w = int(rng.integers(1, 120))
            lo = int(rng.integers(-w // 3, w)) * (1 if seed % 2 else -1)
            A = _banded(seed, n1, n2, w, int(rng.integers(0, n1 // 4)), lo)
            if seed % 2 == 0:
                A = sps.csr_array(A.T)
                A.sort_indices()
            assert _core.spatial_rect_offset(n1, n2, A.indptr, A.indices) == _offset_oracle(A)
        else:
            A = _banded(seed, n1, n2, int(rng.integers(1, 60)), int(rng.integers(0, 3 * n1)))
        for P, Q in ((1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32), (8, 32), (3, 5),
                     (7, 2), (1, 6)):
            got = _core.spatial_rect_banded(n1, n2, A.indptr, A.indices, P, Q)
            assert got == _banded_oracle(A, P, Q)
            seen.add(got)
    assert seen == {True, False}
    # a band on the diagonal: no offset; one from lo to 40 above it: about its middle
    for seed, lo in ((1, -40), (2, 0), (3, 10), (4, 39)):
        A = _banded(seed, 500, 500, 40, 50, lo)
        s = _core.spatial_rect_offset(500, 500, A.indptr, A.indices)
        assert s == _offset_oracle(A)
        assert s == 0 if lo < 0 else abs(s - (lo + 40) / 2) <= 2
        T = sps.csr_array(A.T)
        T.sort_indices()
        assert _core.spatial_rect_offset(500, 500, T.indptr, T.indices) in (-s, -s + 1)
    # entries spread far below the diagonal (j - i from -0.9 n to -0.3 n, some above it: SARMA's
    # bayer05 read without its explicit zeros is such, its median at -0.46 n) are no band: no
    # offset beyond n / 3; a band a quarter of n above it (a DAG in topological order) keeps its
    rng = np.random.default_rng(5)
    for lo, hi, above, want in ((-0.9, -0.3, 0.2, 0), (0.2, 0.3, 0.0, None)):
        n = 900
        i = rng.integers(0, n, 6000)
        j = i + (rng.uniform(lo, hi, i.size) * n).astype(np.int64)
        flip = rng.random(i.size) < above
        j[flip] = i[flip] + rng.integers(1, 50, int(flip.sum()))
        keep = (j >= 0) & (j < n)
        F = sps.csr_array((np.ones(int(keep.sum()), np.int64), (i[keep], j[keep])), shape=(n, n))
        F.sum_duplicates()
        s = _core.spatial_rect_offset(n, n, F.indptr, F.indices)
        assert s == _offset_oracle(F)
        assert s == 0 if want == 0 else 0.2 * n <= s <= 0.3 * n
    for n1, n2 in ((1, 1), (300, 301)):  # one row, not square: none
        B = sps.csr_array(np.triu(np.ones((n1, n2), np.int64), 1) + np.eye(n1, n2, 0, np.int64))
        assert _core.spatial_rect_offset(n1, n2, B.indptr, B.indices) == 0
    E = sps.csr_array((3, 4), dtype=np.int64)  # no entries: not banded
    assert not _core.spatial_rect_banded(3, 4, E.indptr, E.indices, 2, 2)
    for f, extra in ((_core.spatial_rect_banded, (2, 2)), (_core.spatial_rect_offset, ()),
                     (_core.spatial_rect_corner, ())):
        with pytest.raises(WpartValueError, match="out of range"):
            f(2, 2, np.array([0, 1, 2]), np.array([0, 7]), *extra)
        with pytest.raises(WpartValueError):  # pointers that do not fit the rows
            f(3, 3, np.array([0, 2]), np.array([0, 1]), *extra)
    for P, Q in ((0, 2), (2, 0), (2**31 + 1, 1)):
        with pytest.raises(WpartValueError, match="must be in"):
            _core.spatial_rect_banded(3, 4, E.indptr, E.indices, P, Q)


@pytest.mark.parametrize("P,Q", [(4, 4), (3, 5), (7, 2), (8, 8), (8, 32)])
def test_only_the_diagonal_start_on_banded_matrices(P, Q):
    # on a banded matrix (at this grid's resolution) only the default set's diagonal start
    # runs, the others are reported not run; below 64 blocks the one call and the
    # step-by-step engine give one grid and the same stats (from 64 blocks the one call's
    # later stages follow, never above the start's grid); a matrix that is not banded runs
    # every start
    banded = 0
    for seed in range(8):
        A = _banded(100 + seed, 1200, 900 + 40 * seed, 8 + seed, 20 * seed)
        fast = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        fast.validate()
        if P * Q < 64:
            _same(fast, spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(AUTO)))
        st = fast.stats["starts"]
        diag = st["diag_interleaved"]
        assert diag["state"] == "stopped" and fast.max_load <= diag["max_load"]
        # (from 64 blocks rows_stored is no start of the race: SARMA nic's member runs from
        # its cuts after it, rect_fast.c)
        if P * Q >= 64:
            assert st["rows_stored"] == {"max_load": None, "half_sweeps": 0, "state": "not_run"}
        others = [v["state"] for k, v in st.items()
                  if k != "diag_interleaved" and not (k == "rows_stored" and P * Q >= 64)]
        if _banded_oracle(A, P, Q):
            banded += 1
            assert fast.stats["start"] == "diag_interleaved"
            assert all(s == "not_run" or s.startswith("same_as_") for s in others), st
        else:
            assert "not_run" not in others
    assert banded >= 4
    A = next(_matrices(5, 1))
    assert not _banded_oracle(A, P, Q)
    st = spatial.rect_nicol(A, P * Q, P=P, Q=Q).stats["starts"]
    # (the stage after the race ran too: random starts, or near the bound the cut moves)
    assert all(v["half_sweeps"] > 0 or v.get("cut_moves", -1) >= 0 for k, v in st.items()
               if not (k == "rows_stored" and P * Q >= 64)), st


def _diagonal_oracle(A, P, Q, s, corner):
    """The diagonal start in Python (``_core.spatial_rect_diagonal``'s definition): the index
    loads -- row i at index i, column j at index j - s; where `corner`, the shorter
    dimension's line k at index k N / n (N = max(n1, n2)) -- cut into P + Q - 1 pieces by the
    exact 1D partition, whose inner boundaries go in turn to the rows and the columns (the
    rows while behind in their share), each as the number of its lines before it."""
    from wpart import _core
    n1, n2 = A.shape
    N = max(n1, n2)
    W = sps.csr_array(A, dtype=np.float64)
    lo = 0 if s < 0 else -s  # index t: row t + lo, column t + lo + s
    v = np.zeros(N + abs(s))

    def at(n):
        return np.arange(n) if n == N or not corner else np.arange(n) * N // n

    def before(x, n):
        return x if n == N or not corner or x <= 0 else -(-x * n // N)

    np.add.at(v, at(n1) - lo, np.asarray(W.sum(axis=1)).ravel())
    np.add.at(v, at(n2) - lo - s, np.asarray(W.sum(axis=0)).ravel())
    b = _core.spatial_rect_1d(v, P + Q - 1)[0][1:-1]
    rows, cols = [0], [0]
    for x in b:
        if len(rows) - 1 < P - 1 and ((len(rows) - 1) * (Q - 1) <= (len(cols) - 1) * (P - 1)
                                      or len(cols) - 1 >= Q - 1):
            rows.append(before(int(x) + lo, n1))
        else:
            cols.append(before(int(x) + lo + s, n2))
    return (np.clip(np.array(rows + [n1], np.int64), 0, n1),
            np.clip(np.array(cols + [n2], np.int64), 0, n2))


def _plain_diagonal(A, P, Q):
    """The diagonal start without an offset (row i paired with column i), as it was before
    the default followed a band off the diagonal: (row_cuts, col_cuts)."""
    return _diagonal_oracle(A, P, Q, 0, False)


def test_diagonal_start_matches_its_definition():
    """``_core.spatial_rect_diagonal`` (the kernel of the one call and of the step-by-step
    engine's diag_interleaved) gives _diagonal_oracle's cuts with the offset and corner
    oracles' diagonal, on bands above, below and across the diagonal, rectangular bands, and
    matrices in random order, at grids from 1 x 1 (its prefix then needs more room than the
    one call's context held for a 1 x 1 grid: the kernel has its own) to 8 x 8; and refuses
    bad grids and loads of the wrong length."""
    from wpart import _core
    kinds = set()
    for seed in range(24):
        rng = np.random.default_rng(seed)
        n1 = int(rng.integers(20, 600))
        n2 = n1 if seed % 3 else int(rng.integers(20, 600))
        w = int(rng.integers(1, 60))
        lo = int(rng.integers(-w, w)) * (1 if seed % 2 else -1)
        A = _banded(seed, n1, n2, w, int(rng.integers(0, n1)) * (seed % 4 == 0), lo)
        if seed % 5 == 0:
            A = _powerlaw(seed, n1, n2, 4 * n1)
        rl = np.asarray(sps.csr_array(A, dtype=np.float64).sum(axis=1)).ravel()
        cl = np.asarray(sps.csr_array(A, dtype=np.float64).sum(axis=0)).ravel()
        s, corner = _offset_oracle(A), _corner_oracle(A)
        kinds.add((s != 0, corner))
        for P, Q in ((1, 1), (1, 2), (2, 1), (3, 5), (4, 4), (8, 2), (8, 8)):
            if P > n1 or Q > n2:
                continue
            R, C = _core.spatial_rect_diagonal(n1, n2, A.indptr, A.indices, rl, cl, P, Q)
            Ro, Co = _diagonal_oracle(A, P, Q, s, corner)
            assert np.array_equal(R, Ro) and np.array_equal(C, Co), (seed, P, Q)
    assert kinds == {(False, False), (True, False), (False, True)}
    A = _banded(1, 300, 300, 40, 0, 0)
    rl = np.ones(300)
    with pytest.raises(WpartValueError, match="must be in"):
        _core.spatial_rect_diagonal(300, 300, A.indptr, A.indices, rl, rl, 0, 2)
    with pytest.raises(WpartValueError, match="n1 and n2 loads"):
        _core.spatial_rect_diagonal(300, 300, A.indptr, A.indices, rl, rl[:-1], 2, 2)
    with pytest.raises(WpartValueError, match="out of range"):
        _core.spatial_rect_diagonal(2, 2, np.array([0, 1, 2]), np.array([0, 7]), rl[:2],
                                    rl[:2], 1, 1)


def test_one_by_one_and_thin_grids_on_a_band_off_the_diagonal():
    """m = 1, 1 x 2 and 2 x 1 on a band above the diagonal (offset 96): the one call gives
    the step-by-step engine's result; at 1 x 1 the total."""
    from wpart import _core
    rng = np.random.default_rng(1)
    n = 2000
    r = np.repeat(np.arange(n), 6)
    c = np.clip(r + rng.integers(0, 200, r.size), 0, n - 1)
    A = sps.csr_array((np.ones(r.size, np.int64), (r, c)), shape=(n, n))
    A.sum_duplicates()
    assert _core.spatial_rect_offset(n, n, A.indptr, A.indices) == 96
    for P, Q in ((1, 1), (1, 2), (2, 1)):
        fast = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        _same(fast, spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(AUTO)))
        assert P * Q > 1 or fast.max_load == A.sum()


# the default's max loads on test_diagonal_start_follows_a_band_off_the_diagonal's four bands
# before its diagonal start followed them (the diagonal start pairing row i with column i)
BEFORE_OFFSET = {(4, 4): (3423, 4002, 2997, 4642), (8, 8): (1547, 1824, 1352, 2141),
                 (8, 32): (616, 702, 479, 750)}


@pytest.mark.parametrize("P,Q", [(4, 4), (8, 8), (8, 32)])
def test_diagonal_start_follows_a_band_off_the_diagonal(P, Q):
    """On a square matrix whose entries lie mostly on one side of the diagonal (a band above
    or below it, a lower triangle's band), the diagonal start pairs row i with column i + s,
    s the entries' median offset (within the band): the one call and the step-by-step engine
    give one result; it is below what the plain diagonal start (row i with column i) reaches
    on each band, and never above the default's max load before (BEFORE_OFFSET), lower on
    10 of the 12."""
    from wpart import _core
    for seed, (n, lo, hi) in enumerate(((1500, -5, 60), (1800, -120, 0), (1200, 10, 90),
                                        (2000, -200, 20))):
        A = _banded(seed, n, n, hi, 0, lo)
        s = _core.spatial_rect_offset(n, n, A.indptr, A.indices)
        assert s != 0 and lo <= s <= hi
        fast = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        if P * Q < 64:  # (the step-by-step engine: the same stages below 64 blocks)
            _same(fast, spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(AUTO)))
        plain = spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=[_plain_diagonal(A, P, Q)])
        assert fast.max_load < plain.max_load, (seed, P, Q)
        before = BEFORE_OFFSET[(P, Q)][seed]
        assert fast.max_load <= before and (fast.max_load < before or (P, Q) == (8, 32))


def _corner_oracle(A):
    """wpart_i_rg_corner in Python: of a rectangular matrix, the entries of 64 evenly spaced
    rows (every row when fewer); whether the correlation of (i + 1/2) / n1 and (j + 1/2) / n2
    is at least 1/2 and the sum of |j - i n2 / n1| below that of |j - i|."""
    n1, n2 = A.shape
    if n1 == n2 or min(n1, n2) < 2:
        return False
    step = max(n1 // 64, 1)
    x, y, i_, j_ = [], [], [], []
    for i in range(step // 2, n1, step):
        cols = A.indices[A.indptr[i]:A.indptr[i + 1]]
        x += [(i + 0.5) / n1] * len(cols)
        y += list((cols + 0.5) / n2)
        i_ += [i] * len(cols)
        j_ += list(cols)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return False
    i_, j_ = np.array(i_, np.float64), np.array(j_, np.float64)
    nearer = np.abs(j_ - i_ * (n2 / n1)).sum() < np.abs(j_ - i_).sum()
    return bool(np.corrcoef(x, y)[0, 1] >= 0.5 and nearer)


# the default's max loads at 4 x 4, 8 x 8, 16 x 16, 8 x 32 on the rectangular bands of
# test_diagonal_start_follows_a_rectangular_band (without, with noise) before its diagonal
# start followed the diagonal from corner to corner (row i with column i)
BEFORE_CORNER = {(1000, 3000): ((2870, 1329, 528, 413), (2878, 1176, 548, 433)),
                 (3000, 1200): ((7984, 3460, 1544, 1236), (8869, 3575, 1597, 1364)),
                 (800, 2400): ((2525, 958, 454, 336), (2323, 938, 426, 343)),
                 (2000, 900): ((4885, 2161, 896, 719), (5596, 2513, 932, 786))}


def test_diagonal_start_follows_a_rectangular_band():
    """On a rectangular matrix whose entries follow its diagonal from corner to corner (i / n1
    and j / n2 correlate: a band, also with a third of its entries anywhere) the diagonal start
    places the shorter dimension's line k at index k max(n1, n2) / n, as the banded test reads
    that diagonal: the one call and the step-by-step engine give one result below 64 blocks,
    and the max load is never above the default's before (row i with column i), lower in 27 of
    the 32 cases. Power-law and random rectangular matrices (no correlation) keep the old
    pairing."""
    from wpart import _core
    lower = 0
    for seed, (n1, n2, w) in enumerate(((1000, 3000, 40), (3000, 1200, 30), (800, 2400, 10),
                                        (2000, 900, 60))):
        for noisy in (0, 1):
            A = _banded(seed, n1, n2, w, 3 * n1 * noisy)
            assert _core.spatial_rect_corner(n1, n2, A.indptr, A.indices) is True
            assert _corner_oracle(A)
            for k, (P, Q) in enumerate(((4, 4), (8, 8), (16, 16), (8, 32))):
                r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
                if P * Q < 64:
                    _same(r, spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(AUTO)))
                before = BEFORE_CORNER[(n1, n2)][noisy][k]
                assert r.max_load <= before, (n1, n2, noisy, P, Q)
                lower += r.max_load < before
    assert lower >= 27
    seen = set()
    for seed in range(30):  # the oracle on random shapes, bands and noise, and none
        rng = np.random.default_rng(seed)
        n1, n2 = (int(x) for x in rng.integers(2, 700, 2))
        A = _banded(seed, n1, n2, int(rng.integers(1, 80)), int(rng.integers(0, 8 * n1)))
        got = _core.spatial_rect_corner(n1, n2, A.indptr, A.indices)
        assert got == _corner_oracle(A)
        seen.add(got)
        P = _powerlaw(seed, n1 + 7, n2 + 300, 3000)
        assert _core.spatial_rect_corner(*P.shape, P.indptr, P.indices) is False
    assert seen == {True, False}
    for k in (6, 7):  # a square 3D grid's rows cut to 3/4: along j = i, the old pairing
        from test_spatial_rect_nicol_ceiling import grid3d_slice
        G = sps.csr_array(grid3d_slice(k))
        assert not _core.spatial_rect_corner(*G.shape, G.indptr, G.indices)
        assert not _corner_oracle(G)
    S = _banded(1, 400, 400, 10, 0)  # square: the offset's business
    assert _core.spatial_rect_corner(400, 400, S.indptr, S.indices) is False


# the default's max loads at 4 x 4, 8 x 8, 8 x 32 on test_diagonal_start_follows_an_uneven_band's
# bands before its diagonal start followed them (row i with column i)
BEFORE_UNEVEN = {(1800, -100, 40): (3931, 1807, 706), (3000, -20, 50): (6588, 3051, 1258),
                 (1500, -90, 30): (3325, 1527, 579), (2200, -60, 150): (5051, 2294, 835)}


def test_diagonal_start_follows_an_uneven_band():
    """A band on both sides of the diagonal but uneven (71-75 % of its off-diagonal entries on
    one side: at least twice as many as on the other) has an offset too, and the default's
    max load is never above its value with the plain diagonal start, lower in 11 of the 12
    cases (by up to 7 %)."""
    from wpart import _core
    lower = 0
    for seed, ((n, lo, hi), before) in enumerate(BEFORE_UNEVEN.items()):
        A = _banded(seed + 10, n, n, hi, 0, lo)
        s = _core.spatial_rect_offset(n, n, A.indptr, A.indices)
        assert s == _offset_oracle(A) and s != 0 and lo < s < hi
        for (P, Q), b in zip(((4, 4), (8, 8), (8, 32)), before):
            r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
            assert r.max_load <= b, (n, lo, hi, P, Q)
            lower += r.max_load < b
    assert lower >= 11
