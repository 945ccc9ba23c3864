"""wpart.spatial: validity, class chain, proven bounds, transposition, edge cases, bad input
(spec 004 section 6)."""

import itertools
import math
import warnings

import numpy as np
import pytest

import wpart
from wpart import spatial

HEURISTICS = [
    "rect_uniform",
    "rect_nicol",
    "jag_pq_heur",
    "jag_m_heur",
    "jag_m_heur_probe",
    "hier_rb",
    "hier_relaxed",
    "hybrid",
]
ALL = HEURISTICS + ["jag_pq_opt_nicol", "jag_pq_opt_dp", "jag_m_opt", "hier_opt"]


def _inst(rng, n1, n2, kind):
    if kind == "uniform":
        return rng.integers(1000, 1201, (n1, n2))
    if kind == "zeros":
        A = rng.integers(0, 100, (n1, n2))
        A[rng.random((n1, n2)) < 0.6] = 0
        return A
    if kind == "peak":
        i, j = np.indices((n1, n2))
        d = np.hypot(i - rng.uniform(0, n1), j - rng.uniform(0, n2))
        return np.floor(rng.uniform(0, n1 * n2, (n1, n2)) / (d + 0.1)).astype(np.int64)
    raise ValueError(kind)


@pytest.mark.filterwarnings("ignore:P x Q")
@pytest.mark.parametrize("kind", ["uniform", "zeros", "peak"])
def test_every_method_valid(kind):
    rng = np.random.default_rng(1)
    for n1, n2, m in (
        (7, 9, 6),
        (12, 5, 9),
        (16, 16, 16),
        (1, 13, 4),
        (13, 1, 5),
        (3, 17, 7),
    ):
        A = _inst(rng, n1, n2, kind)
        for meth in ALL:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                r = spatial.partition(A, m, method=meth)
            r.validate()
            assert r.rects.shape == (m, 4) and r.rects.dtype == np.int64
            assert r.max_load >= r.lower_bound
            assert int(r.loads.sum()) == int(A.sum())
            assert r.method == meth


@pytest.mark.filterwarnings("ignore:P x Q")
def test_class_chain_random():
    rng = np.random.default_rng(2)
    for trial in range(30):
        n1, n2 = int(rng.integers(2, 7)), int(rng.integers(2, 7))
        A = _inst(rng, n1, n2, ["uniform", "zeros", "peak"][trial % 3])
        P, Q = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        m = P * Q
        hopt = spatial.hier_opt(A, m).max_load
        mh = spatial.jag_m_opt(A, m, orient="hor").max_load
        mv = spatial.jag_m_opt(A, m, orient="ver").max_load
        pq = spatial.jag_pq_opt_nicol(A, m, P=P, Q=Q, orient="hor").max_load
        rn = spatial.rect_nicol(A, m, P=P, Q=Q).max_load
        ru = spatial.rect_uniform(A, m, P=P, Q=Q).max_load
        assert hopt <= min(mh, mv) <= mh <= pq <= rn <= ru
        # heuristics versus their exact counterparts (spec 6, item 13)
        assert spatial.jag_pq_heur(A, m, P=P, Q=Q, orient="hor").max_load >= pq
        mhe = spatial.jag_m_heur(A, m, orient="hor").max_load
        mhp = spatial.jag_m_heur_probe(A, m, orient="hor").max_load
        assert mhe >= mhp >= mh
        for v in ("load", "dist", "hor", "ver"):
            assert spatial.hier_rb(A, m, variant=v).max_load >= hopt
            assert spatial.hier_relaxed(A, m, variant=v).max_load >= hopt


@pytest.mark.filterwarnings("ignore:P = ")
@pytest.mark.parametrize("delta", [1.0, 1.2, 2.0, 5.0, 20.0])
def test_theorem_bounds(delta):
    rng = np.random.default_rng(int(delta * 10))
    for _ in range(6):
        n1, n2 = int(rng.integers(8, 48)), int(rng.integers(8, 48))
        A = rng.integers(1000, int(1000 * delta) + 1, (n1, n2))
        T = int(A.sum())
        D = A.max() / A.min()
        for P, Q in ((2, 3), (4, 4), (3, 5)):
            if P > n1 or Q > n2:
                continue
            m = P * Q
            r = spatial.jag_pq_heur(A, m, P=P, Q=Q, orient="hor")
            assert r.max_load * m / T <= (1 + D * P / n1) * (1 + D * Q / n2) + 1e-12
        for m in (10, 25, 60):
            P = math.isqrt(m)
            r = spatial.jag_m_heur(A, m, orient="hor", P=P)
            if P < m and max(1, m) <= n2 * 1 and P <= n1:
                bound = m / (m - P) + m * D / (P * n2) + m * D * D / (n1 * n2)
                if r.max_load * m / T > bound + 1e-12:
                    # the theorem needs every Q_p <= n2
                    assert False, (n1, n2, m, r.max_load * m / T, bound)
            # 1D direct-cut bound on every stripe split: each part <= avg + amax
        for q in (1, 3, 7):
            res = wpart.partition_1d(A.sum(axis=1), q)
            assert res.max_load <= A.sum() / q + A.sum(axis=1).max()


def test_theorem4_P_star():
    # numeric argmin over integer P of the Theorem 3 bound agrees with the formula
    m, D, n1, n2 = 10_000, 1.2, 512, 512

    def bound(P):
        return m / (m - P) + m * D / (P * n2) + m * D * D / (n1 * n2)

    P_num = min(range(1, m), key=bound)
    P_star = m * math.sqrt(D) / (math.sqrt(D) + math.sqrt(n2))
    assert abs(P_num - P_star) <= 1 and P_num == 462


def test_transposition_and_best():
    rng = np.random.default_rng(3)
    for _ in range(10):
        A = _inst(rng, 9, 6, "zeros")
        for meth in ("jag_pq_heur", "jag_m_heur", "jag_m_heur_probe", "jag_m_opt"):
            kw = {"P": 2, "Q": 3} if "pq" in meth else {}
            h = spatial.partition(A, 6, method=meth, orient="hor", **kw)
            v = spatial.partition(A, 6, method=meth, orient="ver", **kw)
            ht = spatial.partition(A.T, 6, method=meth, orient="hor", **kw)
            np.testing.assert_array_equal(v.rects, ht.rects[:, [2, 3, 0, 1]])
            b = spatial.partition(A, 6, method=meth, orient="best", **kw)
            assert b.max_load == min(h.max_load, v.max_load)
            assert b.params["orient_used"] == (
                "hor" if h.max_load <= v.max_load else "ver"
            )


def test_determinism_and_scaling():
    rng = np.random.default_rng(4)
    A = _inst(rng, 20, 15, "peak")
    for meth in ALL:
        if meth == "hier_opt":
            continue
        a = spatial.partition(A, 12, method=meth)
        b = spatial.partition(A, 12, method=meth)
        np.testing.assert_array_equal(a.rects, b.rects)
        c = spatial.partition(A * 3, 12, method=meth)
        np.testing.assert_array_equal(a.rects, c.rects)
        assert c.max_load == 3 * a.max_load


def test_float_matches_int():
    rng = np.random.default_rng(5)
    A = _inst(rng, 11, 13, "zeros")
    for meth in ALL:
        a = spatial.partition(
            A,
            8,
            method=meth,
            **({"P": 2, "Q": 4} if "pq" in meth or "rect" in meth else {}),
        )
        b = spatial.partition(
            A.astype(float),
            8,
            method=meth,
            **({"P": 2, "Q": 4} if "pq" in meth or "rect" in meth else {}),
        )
        b.validate()
        assert b.max_load == pytest.approx(a.max_load), meth


def test_edge_cases():
    A = np.arange(12).reshape(3, 4)
    for meth in ALL:
        r = spatial.partition(A, 1, method=meth)
        assert r.rects.tolist() == [[0, 3, 0, 4]]
    Z = np.zeros((5, 6), dtype=int)
    for meth in ALL:
        r = spatial.partition(Z, 6, method=meth)
        r.validate()
        assert r.max_load == 0 and r.imbalance == 0
    # more parts than cells: only with allow_empty, then valid with empty rectangles
    for meth in (
        "jag_m_heur",
        "jag_m_heur_probe",
        "jag_m_opt",
        "hier_rb",
        "hier_relaxed",
        "hier_opt",
    ):
        r = spatial.partition(A, 15, method=meth, allow_empty=True)
        r.validate()
        assert r.max_load == A.max()
    # a single heavy cell
    H = np.ones((6, 6), dtype=int)
    H[2, 3] = 1000
    for meth in ALL:
        r = spatial.partition(H, 4, method=meth)
        r.validate()
        assert r.max_load >= 1000


def test_prime_m_warns():
    A = np.ones((8, 8), dtype=int)
    with pytest.warns(UserWarning, match="prime"):
        spatial.rect_uniform(A, 7)


def test_owner_map_plot_and_dict():
    A = np.random.default_rng(6).integers(0, 9, (10, 12))
    r = spatial.hier_relaxed(A, 7)
    own = r.owner_map()
    assert own.shape == A.shape and set(np.unique(own)) == set(range(7))
    d = r.to_dict()
    assert d["max_load"] == r.max_load and len(d["rects"]) == 7
    assert "hier_relaxed" in repr(r)
    import matplotlib

    matplotlib.use("Agg")
    ax = r.plot()
    assert ax is not None


def test_validate_catches_broken():
    A = np.ones((4, 4), dtype=int)
    r = spatial.hier_rb(A, 4)
    import dataclasses

    bad = dataclasses.replace(
        r,
        rects=np.array(
            [[0, 2, 0, 4], [1, 4, 0, 4], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=np.int64
        ),
    )
    with pytest.raises(ValueError, match="covered"):
        bad.validate()
    bad = dataclasses.replace(r, loads=r.loads + 1)
    with pytest.raises(ValueError, match="load"):
        bad.validate()


@pytest.mark.parametrize("meth", [*spatial.METHODS, "jag_m_iter", "general_optimum"])
def test_bad_input(meth):
    good = np.ones((4, 4), dtype=np.int64)
    kw = {}
    if meth == "jag_m_probe":
        kw = {"stripe_cuts": [0, 2, 4]}
    if meth == "jag_m_alloc":
        kw = {"counts": [2, 2]}
    if "pq" in meth or "rect" in meth:
        kw = {"P": 2, "Q": 2}
    f = getattr(spatial, meth)
    cases = [
        (np.array([[1.0, np.nan], [1.0, 1.0]]), 4, ValueError, "NaN|nan"),
        (np.array([[1.0, np.inf], [1.0, 1.0]]), 4, ValueError, "inf"),
        (np.array([[1, -1], [1, 1]]), 4, ValueError, "negative"),
        (np.zeros((0, 3)), 4, ValueError, "empty"),
        (np.ones(5), 4, ValueError, "2-D"),
        (np.ones((2, 2, 2)), 4, ValueError, "2-D"),
        (np.array([["a"]]), 4, TypeError, "A"),
        (good, 0, ValueError, "m"),
        (good, -3, ValueError, "m"),
        (good, 2.5, TypeError, "m"),
        (good, 17, ValueError, "cells"),
        (np.full((2, 2), 2**62, dtype=np.int64), 4, OverflowError, None),
    ]
    for A, m, exc, match in cases:
        if meth == "hier_rb" and A.ndim == 3:
            continue  # HIER-RB accepts 3D loads (tested in test_spatial_ext.py)
        before = A.copy()
        with pytest.raises(exc, match=match):
            f(A, m, **kw)
        np.testing.assert_array_equal(A, before)
    with pytest.raises(ValueError, match="method"):
        spatial.partition(good, 4, method="nope")


def test_bad_options():
    A = np.ones((6, 6), dtype=int)
    with pytest.raises(ValueError, match="P"):
        spatial.rect_uniform(A, 6, P=4, Q=2)
    with pytest.raises(ValueError, match="divide"):
        spatial.jag_pq_heur(A, 6, P=4)
    with pytest.raises(ValueError, match="orient"):
        spatial.jag_m_heur(A, 6, orient="diagonal")
    with pytest.raises(ValueError, match="variant"):
        spatial.hier_rb(A, 6, variant="x")
    with pytest.raises(ValueError, match="stripe_cuts"):
        spatial.jag_m_probe(A, 6, stripe_cuts=[0, 7])
    with pytest.raises(ValueError, match="stripe_cuts"):
        spatial.jag_m_probe(A, 2, stripe_cuts=[0, 1, 2, 6])
    with pytest.raises(ValueError, match="counts"):
        spatial.jag_m_alloc(A, 6, counts=[2, 2])
    with pytest.raises(ValueError, match="counts"):
        spatial.jag_m_alloc(A, 6, counts=[0, 6])
    with pytest.raises(wpart.WpartError, match="max_states"):
        spatial.hier_opt(np.ones((40, 40), dtype=int), 40)
    with pytest.raises(ValueError, match="phase1"):
        spatial.hybrid(A, 6, phase1="nope")


def test_allocate():
    q = spatial.allocate([10, 30, 60], 10)
    assert q.sum() == 10 and (q >= 1).all()
    assert q.tolist() == [1, 3, 6]
    q = spatial.allocate([0, 0, 5], 5, cap=[1, 1, 2])
    assert q.sum() == 5
    with pytest.raises(ValueError, match=r"^`loads`\ has\ 3\ blocks,\ more\ than\ m\ =\ 2"):
        spatial.allocate([1, 2, 3], 2)


def test_hybrid_properties():
    rng = np.random.default_rng(9)
    A = _inst(rng, 24, 24, "peak")
    m = 30
    opt = spatial.jag_m_opt(A, m)
    h1 = spatial.hybrid(A, m, m1=1, phase2_fast="jag_m_opt", phase2_slow=None)
    assert h1.max_load == opt.max_load
    fast = spatial.hybrid(A, m, m1=8, phase2_slow=None)
    slow = spatial.hybrid(A, m, m1=8)
    fast.validate()
    slow.validate()
    assert slow.max_load <= fast.max_load
    auto = spatial.hybrid(A, m)
    auto.validate()
    assert auto.params["m1"] >= 2


def test_rect_nicol_monotone_and_converges():
    rng = np.random.default_rng(10)
    for _ in range(5):
        A = _inst(rng, 30, 30, "peak")
        u = spatial.rect_uniform(A, 16, P=4, Q=4)
        prev = None
        for s in (1, 2, 3, 5, 100):
            r = spatial.rect_nicol(A, 16, P=4, Q=4, max_sweeps=s)
            assert r.max_load <= u.max_load
            if prev is not None:
                assert r.max_load <= prev
            prev = r.max_load
        assert r.stats["converged"]


def test_time_limit_and_progress():
    from wpart.spatial import instances as I

    A = I.uniform(256, seed=0)
    # the time limit is a status: JAG-M-OPT returns its incumbent (at worst JAG-M-HEUR-PROBE's
    # rows-first partition), never an exception; the whole search takes about 0.04 s here, so
    # the limit is far below it
    r = spatial.jag_m_opt(A, 3000, time_limit=1e-3)
    assert r.status == "time_limit" and r.success and "time limit" in r.message
    r.validate()
    assert r.max_load <= spatial.jag_m_heur_probe(A, 3000, orient="hor").max_load
    with pytest.raises(wpart.CancelledError, match="returned False"):
        spatial.jag_m_opt(A, 3000, progress=lambda d, t: False)
    seen = []
    r = spatial.jag_m_opt(A[:64, :64], 50, progress=lambda d, t: seen.append((d, t)))
    r.validate()
    with pytest.raises(ValueError, match="time_limit"):
        spatial.jag_m_opt(A, 4, time_limit=-1)


def test_hybrid_hier_phase1():
    from wpart.spatial import instances as I

    A = I.multipeak(64, seed=1)
    r = spatial.hybrid(A, 60, phase1="hier_relaxed", phase2_slow=None)
    r.validate()
    assert 2 <= r.params["m1"] <= 8


def test_jag_m_iter():
    from wpart.spatial import instances as I

    for seed in range(4):
        A = I.multipeak(48, seed=seed)
        for m in (10, 37, 100):
            it = spatial.jag_m_iter(A, m)
            it.validate()
            assert it.params["extension"] is True
            assert it.max_load <= spatial.jag_m_heur_probe(A, m).max_load
            assert it.max_load >= spatial.jag_m_opt(A, m).max_load


def _is_guillotine(rects):
    """True if the non-empty rectangles can be split recursively by full straight cuts."""
    rs = [tuple(r) for r in rects if r[1] > r[0] and r[3] > r[2]]

    def rec(rs):
        if len(rs) <= 1:
            return True
        r0, r1 = min(r[0] for r in rs), max(r[1] for r in rs)
        c0, c1 = min(r[2] for r in rs), max(r[3] for r in rs)
        for d, (lo, hi) in ((0, (r0, r1)), (1, (c0, c1))):
            for c in range(lo + 1, hi):
                a = [r for r in rs if r[2 * d + 1] <= c]
                b = [r for r in rs if r[2 * d] >= c]
                if len(a) + len(b) == len(rs) and a and b:
                    return rec(a) and rec(b)
        return False

    return rec(rs)


def _is_jagged(rects, n_other, main):
    """True if the rectangles form full-width stripes along dimension `main`."""
    a, b = (0, 1) if main == 0 else (2, 3)
    c, d = (2, 3) if main == 0 else (0, 1)
    stripes = {}
    for r in rects.tolist():
        if r[1] > r[0] and r[3] > r[2]:
            stripes.setdefault((r[a], r[b]), []).append((r[c], r[d]))
    for pieces in stripes.values():
        pieces.sort()
        if pieces[0][0] != 0 or pieces[-1][1] != n_other:
            return False
        if any(p[1] != q[0] for p, q in itertools.pairwise(pieces)):
            return False
    return True


def test_structure_of_each_class():
    rng = np.random.default_rng(11)
    for _ in range(8):
        A = _inst(rng, 12, 9, ["uniform", "zeros", "peak"][_ % 3])
        for meth in ("hier_rb", "hier_relaxed", "hier_opt") if A.size <= 108 else ():
            m = 7
            r = (
                spatial.partition(A, m, method=meth)
                if meth != "hier_opt"
                else spatial.hier_opt(A[:6, :6], m)
            )
            assert _is_guillotine(r.rects.tolist()), meth
        for meth in (
            "jag_pq_heur",
            "jag_m_heur",
            "jag_m_heur_probe",
            "jag_m_opt",
            "hybrid",
        ):
            kw = {"P": 2, "Q": 4} if "pq" in meth else {}
            r = spatial.partition(A, 8, method=meth, **kw)
            if meth == "hybrid":
                assert _is_guillotine(r.rects.tolist())
                continue
            main = 0 if r.params["orient_used"] == "hor" else 1
            assert _is_jagged(r.rects, A.shape[1 - main], main), meth
            assert _is_guillotine(r.rects.tolist())
        r = spatial.rect_nicol(A, 6, P=2, Q=3)
        assert len(set(map(tuple, r.rects[:, :2].tolist()))) <= 2
        assert len(set(map(tuple, r.rects[:, 2:].tolist()))) <= 3


def test_plateau_tie_rule():
    Z = np.zeros((8, 8), dtype=int)
    r = spatial.hier_rb(Z, 4)
    areas = (r.rects[:, 1] - r.rects[:, 0]) * (r.rects[:, 3] - r.rects[:, 2])
    assert sorted(areas.tolist()) == [16, 16, 16, 16]
    f = spatial.hier_rb(Z, 4, tie="first")
    f.validate()
    # zero rows around a block: the area rule centres the cut inside the plateau
    B = np.zeros((10, 10), dtype=int)
    B[:, :2] = 1
    B[:, 8:] = 1
    r = spatial.hier_rb(B, 2, variant="ver")
    assert r.rects[0].tolist() == [0, 10, 0, 5]


def test_grid_larger_than_matrix_warns():
    A = np.ones((3, 8), dtype=int)
    with pytest.warns(UserWarning, match="empty"):
        r = spatial.rect_uniform(A, 8, P=4, Q=2)
    r.validate()
    assert ((r.rects[:, 1] - r.rects[:, 0]) == 0).sum() == 2


def test_fuzz_float_rounding_and_empty_parts():
    """Float loads whose prefix differences round differently along different paths, zeros,
    and more parts than cells: every method still tiles the matrix exactly."""
    rng = np.random.default_rng(12)
    for t in range(150):
        n1, n2 = (int(x) for x in rng.integers(1, 7, 2))
        A = rng.integers(0, 5, (n1, n2)) * (rng.random((n1, n2)) < 0.6)
        if t % 2 == 0:
            A = A.astype(float) * rng.choice([0.37, 0.1, 1e-3, 3.3e5, 0.7])
        m = int(rng.integers(1, 2 * n1 * n2 + 2))
        for meth in spatial.METHODS:
            kw = {}
            if meth == "jag_m_probe":
                kw = {"stripe_cuts": [0, n1]}
            if meth == "jag_m_alloc":
                kw = {"counts": [m]}
            if meth == "hier_opt" and n1 * n2 > 20:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                r = spatial.partition(A, m, method=meth, allow_empty=True, **kw)
            r.validate()


def test_huge_int64_loads_are_exact():
    rng = np.random.default_rng(13)
    big = 2**62 // 64
    A = rng.integers(big // 2, big, (8, 8))
    assert int(A.sum()) < 2**63
    for meth in spatial.METHODS:
        kw = {}
        if meth == "jag_m_probe":
            kw = {"stripe_cuts": [0, 4, 8]}
        if meth == "jag_m_alloc":
            kw = {"counts": [3, 3]}
        r = spatial.partition(A, 6, method=meth, **kw)
        r.validate()
        assert int(r.loads.sum()) == int(A.sum())
    assert spatial.jag_m_opt(A, 6).max_load <= spatial.jag_m_heur(A, 6).max_load


def test_structure_metadata_consistent():
    rng = np.random.default_rng(14)
    A = _inst(rng, 20, 16, "peak")
    r = spatial.rect_nicol(A, 12, P=3, Q=4)
    st = r.structure()
    assert len(st["row_cuts"]) == 4 and len(st["col_cuts"]) == 5
    for meth in ("jag_pq_heur", "jag_m_heur_probe", "jag_m_opt", "jag_m_iter"):
        kw = {"P": 3, "Q": 4} if "pq" in meth else {}
        r = (
            spatial.partition(A, 12, method=meth, **kw)
            if meth != "jag_m_iter"
            else spatial.jag_m_iter(A, 12)
        )
        st = r.structure()
        assert sum(st["counts"]) == 12
        assert st["stripe_cuts"][-1] == A.shape[st["main_dim"]]
        assert all(c[-1] == A.shape[1 - st["main_dim"]] for c in st["cuts_per_stripe"])
        if "pq" in meth:
            assert st["counts"] == [4, 4, 4]
    for meth in ("hier_rb", "hier_relaxed", "hybrid"):
        st = spatial.partition(A, 12, method=meth).structure()
        assert st["tree"] is not None and len(st["tree"]) == 11
    W = [[1, 1, 1], [1, 2, 1], [1, 1, 1]]
    if wpart.milp.solver_version():
        assert spatial.general_optimum(W, 5).structure()["tree"] is None  # the pinwheel
    big = spatial.hier_rb(_inst(rng, 256, 256, "uniform"), 2000)
    assert len(big.structure()["tree"]) == 1999


def test_jag_m_heur_stripe_count_options():
    from wpart.spatial import instances as I

    A = I.uniform(64, 48, delta=1.2, seed=3)
    m = 400
    D = A.max() / A.min()
    r = spatial.jag_m_heur(A, m, P="theorem4", orient="hor")
    r.validate()
    Pstar = m * math.sqrt(D) / (math.sqrt(D) + math.sqrt(48))
    assert abs(r.params["P_used"] - min(64, round(Pstar))) <= 1
    assert spatial.jag_m_heur(A, m, orient="hor").params["P_used"] == 20
    with pytest.warns(UserWarning, match="empty"):
        r = spatial.jag_m_heur(
            A, m, P=7, orient="hor"
        )  # 7 x 48 < 400: honoured, warned
    r.validate()
    assert r.params["P_used"] == 7
    Z = A.copy()
    Z[0, 0] = 0  # Delta undefined: theorem4 falls back to sqrt(m)
    assert spatial.jag_m_heur(Z, m, P="theorem4", orient="hor").params["P_used"] == 20
    with pytest.raises(ValueError, match="P"):
        spatial.jag_m_heur(A, m, P="golden")


def test_hybrid_cut_by_its_time_limit_says_time_limit():
    """HYBRID's slow phase stopped by the limit keeps phase 2's partition and reports
    ``status="time_limit"``, also when the cut slow run did not improve the part (it used to
    say "feasible" with a worse max load than the unlimited run)."""
    A = np.random.default_rng(0).integers(0, 1000, (1500, 1500))
    full = spatial.hybrid(A, 256)
    assert full.status == "feasible"
    cut = 0
    for t in (0.3, 0.1, 0.03, 0.01, 0.003):
        r = spatial.hybrid(A, 256, time_limit=t)
        if r.stats["iterations"] < full.stats["iterations"] or r.max_load != full.max_load:
            assert r.status == "time_limit", (t, r.status, r.max_load, full.max_load)
            # cut during the slow phase: phase 2's partition; before it: none (success False)
            assert not r.success or r.max_load >= full.max_load
            cut += 1
        else:  # the whole run's partition: "feasible", or "time_limit" when the limit struck
            # after its last iteration (a loaded machine at t = 0.3 s; nothing was lost)
            assert r.status in ("feasible", "time_limit") and r.max_load == full.max_load
    assert cut >= 1  # 0.003 s is far below the 0.2 s run
