"""rect_nicol's default runs the core's AVX2 copy where the CPU has AVX2 (csrc/spatial/
rect_avx2.h: the same source compiled a second time with -mavx2): on every kind of matrix and
stage -- unit, int, float and huge int values, symmetric, banded, power-law and arrow
matrices whose heavy lines take the joint-bound and piece starts, 4 x 4 random starts, the nic
members, cut moves and the SGO kick from 64 and 256 blocks, P != Q -- its result is the plain
copy's bit for bit: grid, loads, max load and every stat but the clock."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import _core
from wpart.spatial import _nicol_fast, rect_nicol

from test_spatial_rect_fast import _matrices, _powerlaw, _same
from test_spatial_rect_piece import _arrow


class _Plain:
    """Stands in for ``_core`` in the one-call path: the default on the plain copy."""

    def __getattr__(self, name):
        return getattr(_core, name)

    @staticmethod
    def spatial_rect_nicol_auto(*args, **kwargs):
        return _core.spatial_rect_nicol_auto(*args, simd=False, **kwargs)


def _band(seed, n, w):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), 2 * w + 1)
    cols = np.clip(rows + np.tile(np.arange(-w, w + 1), n), 0, n - 1)
    vals = rng.integers(1, 9, rows.size)
    A = sps.csr_array(sps.coo_array((vals, (rows, cols)), shape=(n, n)))
    A.sum_duplicates()
    return A


def _cases():
    for k, A in enumerate(_matrices(71, 10)):
        yield f"random{k}", A
    yield "band", _band(1, 900, 3)
    yield "powerlaw", _powerlaw(2, 900, 700, 9000)
    yield "arrow", _arrow(3, 700, 3)
    big = _powerlaw(4, 400, 400, 3000)
    big.data = big.data * (1 << 30)  # a total past 2**31: float64 stripe prefixes
    yield "huge_int", big


@pytest.mark.parametrize("P,Q", [(4, 4), (8, 8), (16, 16), (4, 16)])
def test_avx2_copy_gives_the_plain_copys_result(monkeypatch, P, Q):
    plain = _Plain()
    for name, A in _cases():
        for weights in ("values", "stored"):
            a = rect_nicol(A, P * Q, P=P, Q=Q, weights=weights)
            with monkeypatch.context() as mp:
                mp.setattr(_nicol_fast, "_core", plain)
                b = rect_nicol(A, P * Q, P=P, Q=Q, weights=weights)
            _same(a, b)
            assert a.stats["stage_seconds"].keys() == b.stats["stage_seconds"].keys(), name


def test_avx2_copy_reports_whether_it_runs():
    assert isinstance(_core.spatial_rect_avx2(), bool)
    A = _powerlaw(5, 300, 300, 2000)
    rp, ci = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    vals = A.data.astype(np.int64)
    outs = [_core.spatial_rect_nicol_auto(300, 300, rp, ci, vals, 4, 4, 40, True, simd=s)
            for s in (True, False)]
    for x, y in zip(outs[0][:-1], outs[1][:-1]):  # (the last: the stage clock)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y)
        else:
            assert x == y
