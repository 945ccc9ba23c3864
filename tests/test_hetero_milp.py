"""wpart.hetero: the GLPK epsilon-constraint MILP front agrees with HEPOPTA."""

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_hetero_fronts import APPENDIX_A, random_instance

import wpart
import wpart.hetero as wh

pytestmark = pytest.mark.skipif(not wpart._core.have_glpk, reason="built without GLPK")


def test_appendix_a():
    f = wh.milp_front(APPENDIX_A, 4)
    assert f.energy.tolist() == [2.0, 4.0, 5.0] and f.time.tolist() == [6.0, 3.0, 2.0]
    assert f.method == "milp" and f.dist.sum(axis=1).tolist() == [4, 4, 4]
    e = wh.pareto_milp(APPENDIX_A, 17)
    assert len(e) == 0 and e.status == "infeasible" and f.status == "optimal"
    z = wh.milp_front(APPENDIX_A, 0)
    assert z.energy.tolist() == [0.0] and z.dist.tolist() == [[0, 0, 0, 0]]


def test_random_small_cases_agree():
    rng = np.random.default_rng(42)
    for it in range(150):
        prof, n = random_instance(rng, dyadic=bool(it % 2))
        f = wh.pareto_front(prof, n, balanced=False)
        g = wh.milp_front(prof, n)
        np.testing.assert_allclose(g.time, f.time, rtol=1e-9, atol=0)
        np.testing.assert_allclose(g.energy, f.energy, rtol=1e-9, atol=1e-12)
        assert np.all(g.dist.sum(axis=1) == n)


def test_answers_that_are_not_distributions_or_dominated_are_not_kept():
    """GLPK holds the sum of the shares to its tolerance: at sizes of 1e8 it answered a row
    summing to n - 1 (and, with no distribution possible, one summing to n - 1) as "optimal";
    both raise WpartLimitError naming `n`. A point a faster one ties in energy after the exact
    evaluation (GLPK's 1e-9 tolerance let it through) is dropped."""
    p = [([1, 10**8], [1.0, 2.0], [5.0, 1.0])] * 2
    for n in (10**8 + 1, 2 * 10**8 + 1):
        with pytest.raises(wpart.WpartLimitError, match="`n` = %d.*pareto_front" % n):
            wh.milp_front(p, n)
    f = wh.milp_front([([1], [1e9], [1.0]), ([1], [0.5], [1.0]), ([1], [0.25], [1.0])], 1)
    assert f.time.tolist() == [0.25] and f.energy.tolist() == [1.0]
    assert f.dist.tolist() == [[0, 0, 1]]


def test_times_and_energies_in_any_unit_agree():
    """Times and energies times 10^k (k from -300 to 300): the MILP front is HEPOPTA's (GLPK
    gets them scaled by powers of two; times of 1e9 made its stage 2 infeasible before)."""
    rng = np.random.default_rng(7)
    for it in range(30):
        prof, n = random_instance(rng, dyadic=bool(it % 2))
        kt, ke = [(9, 0), (0, 9), (12, -12), (-9, 9), (300, 0), (-300, 300)][it % 6]
        prof = [(s, t * 10.0 ** kt, e * 10.0 ** ke) for s, t, e in prof]
        f = wh.pareto_front(prof, n, balanced=False)
        g = wh.milp_front(prof, n)
        assert g.status == f.status, (it, g.message)
        np.testing.assert_allclose(g.time, f.time, rtol=1e-9, atol=0)
        np.testing.assert_allclose(g.energy, f.energy, rtol=1e-9, atol=1e-12 * 10.0 ** ke)


def test_medium_synthetic_agrees():
    ps = wh.synthetic("dgemm-like", seed=4, hi=64 * 20, m=3)
    n = 64 * 30
    f = wh.pareto_front(ps, n)
    g = wh.milp_front(ps, n, time_limit=60)
    np.testing.assert_allclose(g.time, f.time, rtol=1e-9)
    np.testing.assert_allclose(g.energy, f.energy, rtol=1e-9)


def test_bad_input():
    with pytest.raises(ValueError, match="time_limit"):
        wh.milp_front(APPENDIX_A, 4, time_limit=-1)
    with pytest.raises(TypeError, match="time_limit"):
        wh.milp_front(APPENDIX_A, 4, time_limit="1")
    with pytest.raises(TypeError,
                       match=r"^milp_front\(\)\ takes\ 2\ positional\ arguments\ but\ 3\ were\ given"):
        wh.milp_front(APPENDIX_A, 4, 10.0)  # options are keyword-only
    with pytest.raises(ValueError, match="`n`"):
        wh.milp_front(APPENDIX_A, -4)
    with pytest.raises(ValueError, match="nan"):
        wh.milp_front([([1], [float("nan")], [1.0])], 1)
