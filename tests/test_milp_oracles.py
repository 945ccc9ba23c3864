"""The MILP-backed oracles of the other families against enumerations that use no solver.

tasks.solve_milp vs tasks.brute_force and hetero.milp_front vs the other fronts are covered in
test_tasks_milp.py, test_hetero_milp.py and test_milp_repro.py; this file adds
spatial.general_optimum and dynamic.oracle_milp."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import wpart.dynamic as dyn
import wpart.milp as milp
import wpart.spatial as spatial

pytestmark = pytest.mark.skipif(not milp.solver_version(), reason="built without GLPK")


def _best_rectangles(A: np.ndarray, m: int) -> float:
    """Least max load over partitions of A into at most m rectangles (exhaustive)."""
    n1, n2 = A.shape
    S = np.zeros((n1 + 1, n2 + 1))
    S[1:, 1:] = A.cumsum(0).cumsum(1)
    best = [np.inf]
    covered = np.zeros((n1, n2), bool)

    def rec(parts: int, worst: float) -> None:
        if worst >= best[0]:
            return
        free = np.argwhere(~covered)
        if free.size == 0:
            best[0] = worst
            return
        if parts == m:
            return
        a, c = free[0]
        for b in range(a + 1, n1 + 1):
            for d in range(c + 1, n2 + 1):
                if covered[a:b, c:d].any():
                    break
                load = S[b, d] - S[a, d] - S[b, c] + S[a, c]
                covered[a:b, c:d] = True
                rec(parts + 1, max(worst, load))
                covered[a:b, c:d] = False

    rec(0, 0.0)
    return best[0]


def test_general_optimum_matches_exhaustive_rectangle_partitions():
    rng = np.random.default_rng(17)
    for _ in range(40):
        n1, n2 = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        A = rng.integers(0, 10, (n1, n2)) * float(rng.choice([1.0, 1e-150, 1e150]))
        m = int(rng.integers(1, min(5, n1 * n2) + 1))
        g = spatial.general_optimum(A, m)
        g.validate()
        want = _best_rectangles(A, m)
        assert g.status == "optimal"
        assert g.max_load == pytest.approx(want, rel=1e-9, abs=0), (A, m)


def test_oracle_milp_matches_enumeration_of_the_pwl_model():
    rng = np.random.default_rng(3)
    for _ in range(12):
        p, W, K = int(rng.integers(2, 4)), int(rng.integers(4, 13)), int(rng.integers(2, 6))
        a = rng.uniform(0.1, 2.0, p)
        k = rng.uniform(0.5, 1.6, p)
        fs = [(lambda x, a=a[i], k=k[i]: a * np.asarray(x, float) ** k) for i in range(p)]
        r = dyn.oracle_milp(fs, W, breakpoints=K, time_limit=None)
        assert r.status == "optimal", r.message
        bx = r.breakpoints
        bt = [np.r_[0.0, f(bx[1:])] for f in fs]
        best = np.inf
        for x in itertools.product(range(W + 1), repeat=p - 1):
            last = W - sum(x)
            if last < 0:
                continue
            xs = (*x, last)
            best = min(best, max(np.interp(v, bx, t) for v, t in zip(xs, bt)))
        assert r.T_pwl == pytest.approx(best, rel=1e-7), (a, k, W, K)
        assert r.blocks.sum() == W
