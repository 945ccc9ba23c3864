"""wpart.spatial.instances: determinism, ranges, bad arguments."""

import numpy as np
import pytest

from wpart.spatial import instances as I


@pytest.mark.parametrize("cls", I.CLASSES)
def test_seeded_and_shaped(cls):
    a = I.make(cls, 40, seed=3)
    b = I.make(cls, 40, seed=3)
    c = I.make(cls, 40, seed=4)
    assert a.shape == (40, 40) and a.dtype == np.int64 and a.flags.c_contiguous
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert (a >= 0).all() and a.sum() > 0


def test_uniform_delta():
    A = I.uniform(50, 30, delta=2.0, seed=1)
    assert A.shape == (50, 30) and A.min() >= 1000 and A.max() <= 2000
    assert A.max() / A.min() <= 2.0


def test_peak_shapes():
    A = I.diagonal(64, seed=0)
    assert A.diagonal().mean() > 10 * A.mean() / 2
    B = I.peak(64, ref="cell", seed=0)
    assert B.max() > 0
    C = I.multipeak(64, k=5, seed=0)
    assert C.shape == (64, 64)


def test_pic_series_and_projections():
    snaps = list(I.pic_series(32, steps=3))
    assert [t for t, _ in snaps] == [0, 500, 1000]
    assert not np.array_equal(snaps[0][1], snaps[2][1])
    c3 = np.ones((4, 5, 6), dtype=int)
    assert I.project3d(c3, axis=2).shape == (4, 5)
    assert I.project3d(c3, axis=2).sum() == 120
    P = I.from_points(np.random.default_rng(0).random((100, 3)), n=10, axis=1)
    assert P.sum() == 100 and P.shape == (10, 10)
    M = I.mesh_like(256, points=50_000)
    assert (M == 0).any() and M.sum() == 50_000 - 50_000 % (2 * 1) or M.sum() > 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="delta"):
        I.uniform(8, delta=0.5)
    with pytest.raises(ValueError, match="n1"):
        I.uniform(0)
    with pytest.raises(ValueError, match="seed"):
        I.peak(8, seed=-1)
    with pytest.raises(ValueError, match="ref"):
        I.peak(8, ref="x")
    with pytest.raises(ValueError, match="cls"):
        I.make("nope", 8)
    with pytest.raises(ValueError, match="xyz"):
        I.from_points(np.ones((3, 2)))
    with pytest.raises(ValueError, match="axis"):
        I.project3d(np.ones((2, 2, 2)), axis=3)
