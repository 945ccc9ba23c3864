"""wpart.milp never returns a point that violates its own problem (GLPK presolve fault)."""

import itertools

import numpy as np
import pytest

import wpart.milp as M


def test_presolve_infeasible_reported_optimal_is_caught():
    # GLPK 5.0's MIP presolver answers "optimal" x = 1 for 1 <= 3x <= 2, x binary.
    r = M.solve([1.0], A=[[3.0]], b_lower=[1], b_upper=[2], lb=0, ub=1, integrality=[2])
    assert r.status == "infeasible"
    assert np.isnan(r.x).all()


def _feasible(A, bl, bu, lb, ub, x):
    act = A @ x
    return (np.all(act >= bl - 1e-6) and np.all(act <= bu + 1e-6) and np.all(x >= lb - 1e-9)
            and np.all(x <= ub + 1e-9) and np.all(x == np.round(x)))


@pytest.mark.parametrize("seed", range(40))
def test_random_integer_programs_agree_with_enumeration(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    A = rng.integers(-4, 5, (m, n)).astype(float)
    lo = rng.integers(-6, 6, m).astype(float)
    hi = lo + rng.integers(0, 3, m)
    c = rng.integers(-3, 4, n).astype(float)
    ub = np.full(n, 3.0)
    r = M.solve(c, A=A, b_lower=lo, b_upper=hi, lb=0, ub=ub, integrality=[1] * n)
    best = None
    for x in itertools.product(range(4), repeat=n):
        x = np.array(x, float)
        if _feasible(A, lo, hi, 0, ub, x):
            v = float(c @ x)
            best = v if best is None else min(best, v)
    if best is None:
        assert r.status == "infeasible"
    else:
        assert r.status == "optimal"
        assert _feasible(A, lo, hi, 0, ub, r.x)
        assert r.objective == pytest.approx(best)
