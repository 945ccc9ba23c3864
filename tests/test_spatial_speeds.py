"""wpart.spatial: per-part speeds for the exact jagged methods (JAG-M-OPT, JAG-M-ALLOC),
checked against brute-force oracles that enumerate partitions with speeds."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from oracles import spatial as orc

import wpart
from wpart import spatial

pytestmark = pytest.mark.filterwarnings("ignore:P x Q:UserWarning")


def _instance(rng, kind):
    n1, n2 = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    A = rng.integers(0, 9, (n1, n2))
    A[rng.random((n1, n2)) < 0.25] = 0  # zeros
    if kind == "f":
        A = A / 4.0 + rng.choice([0.0, 0.1], (n1, n2))
    m = int(rng.integers(1, 6))
    if rng.random() < 0.5:
        sp = rng.choice([0.5, 1.0, 2.0, 3.0], m)  # ties
    else:
        sp = rng.uniform(0.3, 3.0, m)
    return A, m, sp


def _check(got, want, kind):
    if kind == "i":
        assert got == want
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("kind", ["i", "f"])
def test_jag_m_opt_speeds_is_optimal(kind):
    rng = np.random.default_rng(11 if kind == "i" else 12)
    for _ in range(150):
        A, m, sp = _instance(rng, kind)
        L = A.tolist()
        s = sp.tolist()
        want_h = orc.m_jagged_speeds(L, s)
        want_v = orc.m_jagged_speeds(orc.transpose(L), s)
        for orient, want in (
            ("hor", want_h),
            ("ver", want_v),
            ("best", min(want_h, want_v)),
        ):
            r = spatial.jag_m_opt(A, m, orient=orient, speeds=sp, allow_empty=True)
            r.validate()
            assert r.loads.dtype == A.dtype
            assert r.max_load == pytest.approx((r.loads / sp).max())
            _check(r.max_load, want, kind)


@pytest.mark.parametrize("kind", ["i", "f"])
def test_jag_m_alloc_speeds_is_optimal(kind):
    rng = np.random.default_rng(21 if kind == "i" else 22)
    for _ in range(150):
        A, m, sp = _instance(rng, kind)
        P = int(rng.integers(1, m + 1))
        cuts = (
            np.sort(rng.choice(np.arange(1, m), P - 1, replace=False)) if P > 1 else []
        )
        counts = np.diff(np.concatenate([[0], cuts, [m]])).astype(np.int64)
        for orient, L in (("hor", A.tolist()), ("ver", A.T.tolist())):
            r = spatial.jag_m_alloc(
                A, m, counts=counts, orient=orient, speeds=sp, allow_empty=True
            )
            r.validate()
            _check(
                r.max_load, orc.m_alloc_speeds(L, sp.tolist(), counts.tolist()), kind
            )


@pytest.mark.parametrize("kind", ["i", "f"])
def test_equal_speeds_reproduce_homogeneous(kind):
    rng = np.random.default_rng(31 if kind == "i" else 32)
    for _ in range(60):
        n1, n2 = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        A = rng.integers(0, 20, (n1, n2))
        if kind == "f":
            A = A * 0.37
        m = int(rng.integers(1, 12))
        s = float(rng.choice([0.5, 1.0, 3.0]))
        sp = np.full(m, s)
        for orient in ("hor", "ver", "best"):
            h = spatial.jag_m_opt(A, m, orient=orient, allow_empty=True)
            r = spatial.jag_m_opt(A, m, orient=orient, speeds=sp, allow_empty=True)
            _check(r.max_load, h.max_load / s, kind)
        # JAG-M-ALLOC with speeds keeps the counts fixed (empty stripes idle): the fixed-count
        # optimum of the homogeneous oracle, divided by s
        P = int(rng.integers(1, min(m, 3) + 1))
        counts = np.full(P, m // P, dtype=np.int64)
        counts[0] += m - counts.sum()
        if n1 <= 4 and n2 <= 4 and m <= 4:
            r = spatial.jag_m_alloc(A, m, counts=counts, speeds=sp, allow_empty=True)
            _check(r.max_load, orc.m_alloc(A.tolist(), counts.tolist()) / s, kind)


def test_speeds_order_and_bounds_medium():
    rng = np.random.default_rng(41)
    for _ in range(12):
        n1, n2 = int(rng.integers(6, 25)), int(rng.integers(6, 25))
        A = rng.integers(0, 100, (n1, n2))
        m = int(rng.integers(2, 17))
        sp = rng.uniform(0.25, 4.0, m)
        for o in ("hor", "ver"):
            opt = spatial.jag_m_opt(A, m, orient=o, speeds=sp)
            opt.validate()
            assert opt.max_load >= A.sum() / sp.sum() * (1 - 1e-12)
            hp = spatial.jag_m_heur_probe(A, m, orient=o, speeds=sp, allow_empty=True)
            assert opt.max_load <= hp.max_load * (1 + 1e-12)
            # processors in the given order, stripe by stripe: the parts of a stripe are
            # consecutive rows of the output, left to right (top to bottom for "ver")
            main = 0 if o == "hor" else 1
            lead = opt.rects[:, 2 * main]
            assert (np.diff(lead) >= 0).all()
        # reversing the speeds is a different problem, but both beat the total-capacity bound
        rev = spatial.jag_m_opt(A, m, speeds=sp[::-1].copy())
        assert rev.max_load >= A.sum() / sp.sum() * (1 - 1e-12)


@pytest.mark.parametrize("meth", ["jag_m_opt", "jag_m_alloc"])
def test_speeds_bad_input(meth):
    A = np.arange(1, 17).reshape(4, 4)
    kw = {"counts": [2, 2]} if meth == "jag_m_alloc" else {}
    f = getattr(spatial, meth)
    for bad in (
        [1, 2, 3],
        [1, 2, 3, 0],
        [1, 2, -1, 1],
        [1, np.nan, 1, 1],
        [1, np.inf, 1, 1],
    ):
        sp = np.array(bad, dtype=float)
        keep = sp.copy()
        with pytest.raises(ValueError, match="speeds"):
            f(A, 4, speeds=sp, **kw)
        np.testing.assert_array_equal(sp, keep)
    with pytest.raises(ValueError, match="speeds"):
        spatial.partition(A, 4, method=meth, speeds=[1, 2], **kw)


def _pq_instance(rng, kind):
    A, _, _ = _instance(rng, kind)
    P, Q = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    m = P * Q
    if rng.random() < 0.5:
        sp = rng.choice([0.5, 1.0, 2.0, 3.0], m)
    else:
        sp = rng.uniform(0.3, 3.0, m)
    return A, P, Q, sp


@pytest.mark.parametrize("kind", ["i", "f"])
def test_jag_pq_opt_speeds_is_optimal(kind):
    rng = np.random.default_rng(51 if kind == "i" else 52)
    for _ in range(150):
        A, P, Q, sp = _pq_instance(rng, kind)
        m = P * Q
        s = sp.tolist()
        want_h = orc.m_alloc_speeds(A.tolist(), s, [Q] * P)
        want_v = orc.m_alloc_speeds(A.T.tolist(), s, [Q] * P)
        for meth in ("jag_pq_opt_nicol", "jag_pq_opt_dp"):
            f = getattr(spatial, meth)
            for o, want in (
                ("hor", want_h),
                ("ver", want_v),
                ("best", min(want_h, want_v)),
            ):
                r = f(A, m, P=P, Q=Q, orient=o, speeds=sp, allow_empty=True)
                r.validate()
                _check(r.max_load, want, kind)
                h = spatial.jag_pq_heur(
                    A, m, P=P, Q=Q, orient=o, speeds=sp, allow_empty=True
                )
                h.validate()
                assert h.max_load >= r.max_load * (1 - 1e-12)
                # the m-way jagged class contains the P x Q one (same processor order)
                j = spatial.jag_m_opt(A, m, orient=o, speeds=sp, allow_empty=True)
                assert j.max_load <= r.max_load * (1 + 1e-12)


@pytest.mark.parametrize("kind", ["i", "f"])
def test_jag_pq_equal_speeds_reproduce_homogeneous(kind):
    rng = np.random.default_rng(61 if kind == "i" else 62)
    for _ in range(40):
        n1, n2 = int(rng.integers(1, 10)), int(rng.integers(1, 10))
        A = rng.integers(0, 20, (n1, n2))
        if kind == "f":
            A = A * 0.37
        P, Q = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        m = P * Q
        s = float(rng.choice([0.5, 1.0, 3.0]))
        sp = np.full(m, s)
        for o in ("hor", "ver", "best"):
            kw = {"P": P, "Q": Q, "orient": o, "allow_empty": True}
            h = spatial.jag_pq_heur(A, m, **kw)
            r = spatial.jag_pq_heur(A, m, speeds=sp, **kw)
            np.testing.assert_array_equal(r.rects, h.rects)
            assert r.max_load == h.max_load / s
            for meth in ("jag_pq_opt_nicol", "jag_pq_opt_dp"):
                h = getattr(spatial, meth)(A, m, **kw)
                r = getattr(spatial, meth)(A, m, speeds=sp, **kw)
                _check(r.max_load, h.max_load / s, kind)


@pytest.mark.parametrize("meth", ["jag_pq_heur", "jag_pq_opt_nicol", "jag_pq_opt_dp"])
def test_pq_speeds_bad_input(meth):
    A = np.arange(1, 17).reshape(4, 4)
    f = getattr(spatial, meth)
    for bad in ([1, 2, 3], [1, 2, 3, 0], [1, np.nan, 1, 1], [1, np.inf, 1, 1]):
        sp = np.array(bad, dtype=float)
        with pytest.raises(ValueError, match="speeds"):
            f(A, 4, P=2, Q=2, speeds=sp)


@pytest.mark.parametrize("kind", ["i", "f"])
def test_hier_opt_speeds_is_optimal(kind):
    rng = np.random.default_rng(71 if kind == "i" else 72)
    for _ in range(150):
        A, m, sp = _instance(rng, kind)
        r = spatial.hier_opt(A, m, speeds=sp, allow_empty=True)
        r.validate()
        assert r.structure()["tree"] is not None  # guillotine
        _check(r.max_load, orc.hierarchical_speeds(A.tolist(), sp.tolist()), kind)
        # the hierarchical class contains the m-way jagged one (same processor order)
        j = spatial.jag_m_opt(A, m, speeds=sp, allow_empty=True)
        assert r.max_load <= j.max_load * (1 + 1e-12)


@pytest.mark.parametrize("kind", ["i", "f"])
def test_hier_opt_equal_speeds_reproduce_homogeneous(kind):
    rng = np.random.default_rng(81 if kind == "i" else 82)
    for _ in range(40):
        n1, n2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        A = rng.integers(0, 20, (n1, n2))
        if kind == "f":
            A = A * 0.37
        m = int(rng.integers(1, 9))
        s = float(rng.choice([0.5, 1.0, 3.0]))
        h = spatial.hier_opt(A, m, allow_empty=True)
        r = spatial.hier_opt(A, m, speeds=np.full(m, s), allow_empty=True)
        r.validate()
        _check(r.max_load, h.max_load / s, kind)


def test_hier_opt_speeds_bad_input_and_limit():
    A = np.arange(1, 17).reshape(4, 4)
    for bad in (
        [1, 2, 3],
        [1, 2, 3, 0],
        [1, np.nan, 1, 1],
        [1, np.inf, 1, 1],
        [1, 1, 1, -2],
    ):
        with pytest.raises(ValueError, match="speeds"):
            spatial.hier_opt(A, 4, speeds=np.array(bad, dtype=float))
    with pytest.raises(wpart.WpartLimitError, match=r"^HIER-OPT with speeds needs 10 x 10 x 4\^2 DP states, above `max_states` = 100 \(size or state limit reached\)$"):
        spatial.hier_opt(A, 4, speeds=np.ones(4), max_states=100)


def test_jag_m_opt_speeds_time_limit():
    A = np.random.default_rng(5).integers(0, 100, (400, 400))
    sp = np.linspace(0.5, 2.0, 64)
    # with speeds JAG-M-OPT's search keeps no incumbent: a stopped search returns
    # JAG-M-ALLOC's partition (run after it within the limit), or none when that is stopped too
    r = spatial.jag_m_opt(A, 64, orient="hor", speeds=sp, time_limit=0.05)
    assert r.status == "time_limit"
    assert r.m == 64 and r.lower_bound >= A.sum() / sp.sum() * (1 - 1e-12)
    if r.success:
        assert r.params["incumbent"] == "jag_m_alloc"
        al = spatial.jag_m_alloc(A, 64, orient="hor", speeds=sp)
        assert r.max_load == al.max_load and np.array_equal(r.rects, al.rects)
    else:
        assert r.rects.shape == (0, 4)
