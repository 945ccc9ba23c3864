"""wpart.spatial extensions beyond the paper: processor speeds and 3D HIER-RB."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from oracles import spatial as orc

from wpart import spatial

SPEED_METHODS = ["jag_m_heur", "jag_m_heur_probe", "hier_rb", "hier_relaxed"]


def test_speeds_valid_and_objective():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n1, n2 = int(rng.integers(2, 12)), int(rng.integers(2, 12))
        A = rng.integers(0, 50, (n1, n2))
        m = int(rng.integers(1, min(12, n1 * n2) + 1))
        sp = rng.uniform(0.5, 4.0, m)
        for meth in SPEED_METHODS:
            r = spatial.partition(A, m, method=meth, speeds=sp)
            r.validate()
            assert r.max_load == pytest.approx((r.loads / sp).max())
            assert r.params["speeds"] is True
            # the total capacity bound: bottleneck >= T / sum(speeds)
            assert r.max_load >= A.sum() / sp.sum() * (1 - 1e-12)


def test_jag_m_probe_speeds_is_optimal():
    rng = np.random.default_rng(1)
    for _ in range(40):
        n1, n2 = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        A = rng.integers(0, 9, (n1, n2))
        m = int(rng.integers(1, 6))
        P = int(rng.integers(1, min(n1, m) + 1))
        cuts = (
            [0]
            + sorted(rng.choice(np.arange(1, n1), P - 1, replace=False).tolist())
            + [n1]
            if P > 1
            else [0, n1]
        )
        sp = rng.choice([0.5, 1.0, 2.0, 3.0], m)
        r = spatial.jag_m_probe(A, m, stripe_cuts=cuts, speeds=sp, allow_empty=True)
        r.validate()
        assert r.max_load == pytest.approx(
            orc.m_probe_speeds(A.tolist(), sp.tolist(), cuts)
        )


def test_unit_speeds_match_homogeneous():
    rng = np.random.default_rng(2)
    for _ in range(15):
        A = rng.integers(1, 30, (9, 11))
        m = int(rng.integers(3, 20))
        cuts = [0, 3, 5, 9]
        a = spatial.jag_m_probe(A, m, stripe_cuts=cuts)
        b = spatial.jag_m_probe(A, m, stripe_cuts=cuts, speeds=np.ones(m))
        assert a.max_load == b.max_load
        for meth in ("hier_rb", "hier_relaxed"):
            h = spatial.partition(A, m, method=meth, tie="first")
            s = spatial.partition(A, m, method=meth, speeds=np.full(m, 2.0))
            assert s.max_load == pytest.approx(h.max_load / 2)
            np.testing.assert_array_equal(h.rects, s.rects)


def test_speeds_help():
    # one fast processor: giving it more work lowers the bottleneck versus uniform speeds
    A = np.full((32, 32), 10)
    sp = np.ones(8)
    sp[0] = 8.0
    for meth in SPEED_METHODS:
        r = spatial.partition(A, 8, method=meth, speeds=sp)
        flat = spatial.partition(A, 8, method=meth)
        assert r.max_load < (flat.loads / sp).max()
        assert r.loads[0] > r.loads[1:].max()


def test_speeds_bad_input():
    A = np.ones((4, 4), dtype=int)
    with pytest.raises(ValueError, match="speeds"):
        spatial.hier_rb(A, 4, speeds=[1, 2, 3])
    with pytest.raises(ValueError, match="speeds"):
        spatial.hier_rb(A, 4, speeds=[1, 2, 3, -1])
    with pytest.raises(ValueError, match="speeds"):
        spatial.jag_m_heur(A, 4, speeds=[1, 2, np.nan, 1])


def test_hier_rb_3d():
    rng = np.random.default_rng(3)
    for _ in range(10):
        A = rng.integers(
            0,
            20,
            (int(rng.integers(1, 7)), int(rng.integers(1, 7)), int(rng.integers(1, 7))),
        )
        m = int(rng.integers(1, A.size + 1))
        for v in ("load", "dist"):
            r = spatial.hier_rb(A, m, variant=v)
            r.validate()
            assert r.rects.shape == (m, 6)
            assert r.max_load >= r.lower_bound
    # a 3D array with one layer behaves like the 2D algorithm's objective (same cut family)
    B = rng.integers(1, 50, (8, 9))
    r3 = spatial.hier_rb(B[:, :, None], 6)
    assert r3.max_load <= spatial.rect_uniform(B, 6, P=2, Q=3).max_load * 2
    with pytest.raises(ValueError, match="variant"):
        spatial.hier_rb(np.ones((2, 2, 2)), 2, variant="hor")
    with pytest.raises(ValueError, match="2-D or 3-D"):
        spatial.hier_rb(np.ones((2, 2, 2, 2)), 2)
    # (plot() draws a 3D partition on a 3D Axes: test_hier_rb_3d_plot_draws_its_boxes)


def test_speeds_probe_never_worse_than_heur():
    rng = np.random.default_rng(5)
    for _ in range(20):
        A = rng.integers(0, 100, (int(rng.integers(4, 30)), int(rng.integers(4, 30))))
        m = int(rng.integers(2, 40))
        sp = rng.uniform(0.2, 5.0, m)
        for o in ("hor", "ver", "best"):
            h = spatial.jag_m_heur(A, m, speeds=sp, orient=o, allow_empty=True)
            p = spatial.jag_m_heur_probe(A, m, speeds=sp, orient=o, allow_empty=True)
            p.validate()
            assert p.max_load <= h.max_load * (1 + 1e-12)


def test_hier_rb_3d_plot_draws_its_boxes():
    """A 3D partition's plot() returns a 3D Axes holding one cuboid per part (six faces each),
    coloured by load; a 2D Axes given is refused by name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import wpart

    A = np.arange(1, 8 * 8 * 6 + 1).reshape(8, 8, 6)
    r = spatial.hier_rb(A, 8)
    ax = r.plot()
    assert ax.name == "3d" and "m = 8" in ax.get_title()
    ax.figure.canvas.draw()
    faces = sum(len(c.get_paths()) for c in ax.collections)
    assert faces == 6 * r.m
    with pytest.raises(wpart.WpartValueError, match="3D Axes"):
        r.plot(ax=plt.subplots()[1])
    plt.close("all")
