"""wpart.spatial exact methods against brute-force oracles (spec 004 section 6, items 7-13)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import itertools

from oracles import spatial as orc

from wpart import spatial

A1 = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]
A2 = [[0, 0, 9, 0], [1, 0, 0, 0], [0, 7, 0, 3], [0, 0, 2, 8]]
A3 = [[3, 1, 4, 1, 5, 9], [2, 6, 5, 3, 5, 8], [9, 7, 9, 3, 2, 3], [8, 4, 6, 2, 6, 4]]

# golden table of spec 6: (A, m, P, Q, RECT-UNIFORM, RECT-OPT, PQ HOR, PQ VER, M HOR, M VER, HIER)
GOLDEN = [
    (A1, 4, 2, 2, 54, 45, 45, 45, 40, 40, 40),
    (A2, 4, 2, 2, 13, 11, 11, 10, 10, 10, 10),
    (A3, 6, 2, 3, 28, 28, 26, 25, 23, 22, 22),
]


@pytest.mark.filterwarnings("ignore:P x Q")
@pytest.mark.parametrize("row", GOLDEN, ids=["A1", "A2", "A3"])
def test_golden_table(row):
    A, m, P, Q, uni, ropt, pqh, pqv, mh, mv, hier = row
    assert spatial.rect_uniform(A, m, P=P, Q=Q).max_load == uni
    assert orc.rect_opt(A, P, Q) == ropt
    assert spatial.rect_nicol(A, m, P=P, Q=Q).max_load >= ropt
    for eng in ("jag_pq_opt_nicol", "jag_pq_opt_dp"):
        assert (
            spatial.partition(A, m, method=eng, P=P, Q=Q, orient="hor").max_load == pqh
        )
        assert (
            spatial.partition(A, m, method=eng, P=P, Q=Q, orient="ver").max_load == pqv
        )
        assert spatial.partition(A, m, method=eng, P=P, Q=Q).max_load == min(pqh, pqv)
    assert spatial.jag_m_opt(A, m, orient="hor").max_load == mh
    assert spatial.jag_m_opt(A, m, orient="ver").max_load == mv
    assert spatial.hier_opt(A, m).max_load == hier
    assert orc.pq_jagged(A, P, Q) == pqh
    assert orc.m_jagged(A, m) == mh
    assert orc.m_jagged(orc.transpose(A), m) == mv
    assert orc.hierarchical(A, m) == hier


def test_golden_1d():
    a = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
    assert [orc.oned(a, q) for q in range(1, 6)] == [44, 23, 17, 14, 11]
    # a 1 x n matrix is a chain: the m-way and hierarchical optima are the 1D optimum
    for q in range(1, 6):
        assert spatial.jag_m_opt([a], q).max_load == orc.oned(a, q)
        assert spatial.hier_opt([a], q).max_load == orc.oned(a, q)
    r = spatial.jag_m_opt([a], 4, orient="ver")
    assert sorted(r.rects[:, 2].tolist() + [11]) == [0, 5, 7, 10, 11]


def _random_cases(seed, count, max_side=4, max_m=6):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n1 = int(rng.integers(1, max_side + 1))
        n2 = int(rng.integers(1, max_side + 1))
        kind = rng.integers(0, 4)
        if kind == 0:
            A = rng.integers(0, 10, (n1, n2))
        elif kind == 1:
            A = rng.integers(0, 3, (n1, n2)) * rng.integers(0, 2, (n1, n2))
        elif kind == 2:
            A = np.full((n1, n2), int(rng.integers(0, 5)))
        else:
            A = rng.integers(1, 4, (n1, n2))
            A[rng.integers(0, n1), rng.integers(0, n2)] = 50
        m = int(rng.integers(1, min(max_m, n1 * n2) + 1))
        yield A, m


@pytest.mark.parametrize("seed", range(6))
def test_hier_opt_and_jag_m_opt_match_enumeration(seed):
    for A, m in _random_cases(seed, 60):
        L = A.tolist()
        h = spatial.hier_opt(A, m)
        h.validate()
        assert h.max_load == orc.hierarchical(L, m)
        for o, B in (("hor", L), ("ver", orc.transpose(L))):
            r = spatial.jag_m_opt(A, m, orient=o)
            r.validate()
            assert r.max_load == orc.m_jagged(B, m), (A, m, o)
        best = spatial.jag_m_opt(A, m)
        assert best.max_load == min(
            orc.m_jagged(L, m), orc.m_jagged(orc.transpose(L), m)
        )
        assert h.max_load <= best.max_load


@pytest.mark.filterwarnings("ignore:P x Q")
@pytest.mark.parametrize("seed", range(4))
def test_pq_opt_engines_match_enumeration(seed):
    rng = np.random.default_rng(100 + seed)
    for A, _ in _random_cases(seed + 10, 40):
        _n1, _n2 = A.shape
        P = int(rng.integers(1, 4))
        Q = int(rng.integers(1, 4))
        m = P * Q
        L = A.tolist()
        for o, B in (("hor", L), ("ver", orc.transpose(L))):
            want = orc.pq_jagged(B, P, Q)
            a = spatial.jag_pq_opt_nicol(A, m, P=P, Q=Q, orient=o, allow_empty=True)
            b = spatial.jag_pq_opt_dp(A, m, P=P, Q=Q, orient=o, allow_empty=True)
            a.validate()
            b.validate()
            assert a.max_load == want == b.max_load
            np.testing.assert_array_equal(
                a.rects, b.rects
            )  # separators depend only on B*
            h = spatial.jag_pq_heur(A, m, P=P, Q=Q, orient=o, allow_empty=True)
            assert h.max_load >= want
        ropt = orc.rect_opt(L, P, Q)
        rn = spatial.rect_nicol(A, m, P=P, Q=Q, allow_empty=True)
        ru = spatial.rect_uniform(A, m, P=P, Q=Q, allow_empty=True)
        rn.validate()
        ru.validate()
        assert ropt <= rn.max_load <= ru.max_load
        assert orc.pq_jagged(L, P, Q) <= ropt


@pytest.mark.parametrize("seed", range(4))
def test_jag_m_probe_and_alloc_match_enumeration(seed):
    rng = np.random.default_rng(200 + seed)
    for A, m in _random_cases(seed + 20, 40):
        n1 = A.shape[0]
        P = int(rng.integers(1, min(n1, m) + 1))
        cuts = (
            [0]
            + sorted(rng.choice(np.arange(1, n1), P - 1, replace=False).tolist())
            + [n1]
            if P > 1
            else [0, n1]
        )
        r = spatial.jag_m_probe(A, m, stripe_cuts=cuts)
        r.validate()
        assert r.max_load == orc.m_probe(A.tolist(), m, cuts)
        counts = list(orc._compositions(m, P))[
            int(rng.integers(0, len(list(orc._compositions(m, P)))))
        ]
        r = spatial.jag_m_alloc(A, m, counts=list(counts))
        r.validate()
        assert r.max_load == orc.m_alloc(A.tolist(), counts)


def test_exact_equals_amax_when_m_is_cells():
    rng = np.random.default_rng(7)
    for _ in range(10):
        A = rng.integers(0, 20, (3, 4))
        for meth in ("jag_m_opt", "hier_opt"):
            assert spatial.partition(A, 12, method=meth).max_load == A.max()


def test_exact_monotone_in_m():
    rng = np.random.default_rng(8)
    A = rng.integers(0, 30, (5, 5))
    for meth in ("jag_m_opt", "hier_opt"):
        vals = [spatial.partition(A, m, method=meth).max_load for m in range(1, 26)]
        assert all(a >= b for a, b in itertools.pairwise(vals))


@pytest.mark.parametrize("seed", range(3))
def test_jag_m_opt_matches_plain_dp_medium(seed):
    rng = np.random.default_rng(300 + seed)
    for _ in range(6):
        n1, n2 = int(rng.integers(4, 9)), int(rng.integers(4, 9))
        A = rng.integers(0, 40, (n1, n2))
        A[rng.random((n1, n2)) < 0.3] = 0
        m = int(rng.integers(2, 13))
        r = spatial.jag_m_opt(A, m, orient="hor")
        r.validate()
        assert r.max_load == orc.m_jagged_dp(A.tolist(), m)
        assert orc.oned_dp(A.sum(axis=0).tolist(), 3) == orc.oned(
            A.sum(axis=0).tolist(), 3
        )


@pytest.mark.parametrize("seed", range(2))
def test_hier_opt_medium(seed):
    rng = np.random.default_rng(400 + seed)
    for _ in range(5):
        A = rng.integers(0, 30, (5, 5))
        m = int(rng.integers(2, 9))
        assert spatial.hier_opt(A, m).max_load == orc.hierarchical(A.tolist(), m)


@pytest.mark.skipif(
    not __import__("wpart").milp.solver_version(), reason="built without GLPK"
)
def test_general_milp_golden_and_chain():
    assert spatial.general_optimum(A1, 4).max_load == 40
    assert spatial.general_optimum(A2, 4).max_load == 10
    # the pinwheel: arbitrary rectangles beat every guillotine partition
    W = [[1, 1, 1], [1, 2, 1], [1, 1, 1]]
    g = spatial.general_optimum(W, 5)
    g.validate()
    assert g.max_load == 2 and spatial.hier_opt(W, 5).max_load > 2
    rng = np.random.default_rng(500)
    for _ in range(12):
        n1, n2 = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        A = rng.integers(0, 10, (n1, n2))
        m = int(rng.integers(1, min(6, n1 * n2) + 1))
        g = spatial.general_optimum(A, m)
        g.validate()
        assert g.status == "optimal" and g.params["milp_status"] == "optimal"
        assert g.max_load <= spatial.hier_opt(A, m).max_load
    with pytest.raises(ValueError, match="MILP"):
        spatial.general_optimum(np.ones((12, 12)), 4)


# JAG-PQ-OPT by Nicol's search on a 6 x 4 float matrix: appending the zero column 1 to the
# stripe of column 0 reads the stripe's nested cost an ulp lower (2505.2619999999993 against
# 2505.2619999999997), so the probe at the longer stripe's cost failed on the shorter one and
# the search went past the optimum (3257.152; the DP engine and the enumeration: 2505.262)
_ULP = [[399.989, 0, 0, 0], [0, 879.3770000000001, 0, 0], [0, 514.127, 0, 0],
        [2505.2619999999997, 0, 0, 0], [0, 0, 864.366, 0], [0, 0, 2392.786, 0]]


def test_pq_opt_nicol_float_costs_equal_up_to_rounding():
    for o in ("ver", "best"):
        a = spatial.jag_pq_opt_nicol(_ULP, 6, P=2, Q=3, orient=o)
        b = spatial.jag_pq_opt_dp(_ULP, 6, P=2, Q=3, orient=o)
        assert a.max_load == pytest.approx(2505.262, rel=1e-12) == b.max_load


@pytest.mark.filterwarnings("ignore:P x Q")
@pytest.mark.parametrize("seed", range(3))
def test_float_jagged_engines_match_enumeration(seed):
    """Nicol's search (JAG-PQ-OPT, JAG-M-ALLOC) on float loads with many zero cells, whose
    nested costs tie up to rounding: the enumeration's optimum to 1e-9 (150 matrices a seed,
    both orientations)."""
    rng = np.random.default_rng(900 + seed)
    for _ in range(150):
        n1, n2 = (int(x) for x in rng.integers(2, 9, 2))
        A = np.round(rng.uniform(0, 1000, (n1, n2)), 3)
        A = A * (rng.random((n1, n2)) < rng.choice([0.15, 0.4, 1.0]))
        P = int(rng.integers(1, min(n1, 4) + 1))
        Q = int(rng.integers(1, min(n2, 4) + 1))
        L = A.tolist()
        for o, B in (("hor", L), ("ver", orc.transpose(L))):
            want = orc.pq_jagged(B, P, Q)
            for meth in ("jag_pq_opt_nicol", "jag_pq_opt_dp"):
                r = spatial.partition(A, P * Q, method=meth, P=P, Q=Q, orient=o,
                                      allow_empty=True)
                r.validate()
                assert r.max_load == pytest.approx(want, rel=1e-9, abs=1e-9), (meth, o)
        counts = [int(x) for x in rng.integers(1, 3, P)]
        r = spatial.jag_m_alloc(A, sum(counts), counts=counts)
        r.validate()  # (an empty stripe hands its parts on: at most the oracle's, which idles them)
        assert r.max_load <= orc.m_alloc(L, counts) * (1 + 1e-9) + 1e-9
