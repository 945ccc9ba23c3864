"""The MILP reproductions of issue 17: answers that must not hang, lie or ignore Ctrl-C.

Each is checked against an independent answer (HiGHS through scipy.optimize.milp, or brute
force); the Ctrl-C cases are in test_sigint.py (milp_endless_dive, milp_large_lp)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import wpart
import wpart.hetero as wh
import wpart.milp as milp
import wpart.tasks as tasks

scipy_opt = pytest.importorskip("scipy.optimize")

REPRO1 = dict(A=[[-1, -3, -3, -3], [0, 4, 4, -1]], b_lower=[1, 1], b_upper=[1, 1],
              lb=[-2, -2, -np.inf, -np.inf], ub=[10, np.inf, np.inf, 10],
              integrality=[2, 1, 1, 2], sense="max")


@pytest.mark.parametrize("presolve", [False, True])
def test_presolver_hang_model_answers_at_once(presolve):
    """GLPK's MIP presolver ran without end on this model, deaf to time_limit and Ctrl-C."""
    t0 = time.monotonic()
    r = milp.solve([5, 0, 0, 4], **REPRO1, time_limit=2, presolve=presolve)
    assert time.monotonic() - t0 < 2.5
    # HiGHS: integrality 2 is binary, i.e. integer in [max(lb, 0), min(ub, 1)]
    h = scipy_opt.milp(-np.array([5.0, 0, 0, 4]),
                       constraints=scipy_opt.LinearConstraint(REPRO1["A"], 1, 1),
                       bounds=scipy_opt.Bounds([0, -2, -np.inf, 0], [1, np.inf, np.inf, 1]),
                       integrality=[1, 1, 1, 1])
    assert h.status == 2 and r.status == "infeasible"


def test_presolve_defaults_to_off():
    import inspect

    assert inspect.signature(milp.solve).parameters["presolve"].default is False


def test_tiny_task_load_gives_the_brute_force_optimum():
    p = tasks.Problem(task_load=np.array([1e4, 2e4, 1e-296]), m=2)
    r = tasks.solve_milp(p)
    assert r.status == "optimal"
    assert r.max_load == tasks.brute_force(p).max_load == 20000.0


def test_denormal_task_load_is_a_clear_error_or_right():
    p = tasks.Problem(task_load=np.array([1e4, 2e4, 5e-324]), m=2)
    try:
        r = tasks.solve_milp(p)
    except wpart.WpartValueError as e:
        assert "too small" in str(e) and "4.94" in str(e)
    else:
        assert r.max_load == 20000.0


def test_unscalable_coefficient_is_named():
    # 5e-324 beside 1 in a row cannot reach GLPK
    with pytest.raises(wpart.WpartValueError, match=r"A\[0, 1\] = 4\.94.*e-324"):
        milp.solve([1, 1], A=[[1.0, 5e-324]], b_lower=[1], ub=1, integrality=1)
    with pytest.raises(ValueError, match=r"b_upper\[0\]"):
        milp.solve([1, 1], A=[[1e-300, 1e-300]], b_upper=[1e300], ub=1, integrality=1)
    # a whole row of tiny or huge coefficients is fine: rows are scaled by powers of two
    for s in (1e-300, 1e300):
        r = milp.solve([-1, -1], A=[[s, 2 * s]], b_upper=[3 * s], ub=5, integrality=1)
        assert r.status == "optimal" and r.objective == -3.0


def test_endless_dive_honours_time_limit():
    t0 = time.monotonic()
    r = milp.solve([0, 0], A=[[2, -2]], b_lower=[1], b_upper=[1], lb=-np.inf, integrality=1,
                   time_limit=0.5)
    assert time.monotonic() - t0 < 1.5
    assert r.status == "time_limit" and not r.success


def test_large_lp_honours_time_limit():
    import scipy.sparse as sps

    rng = np.random.default_rng(0)
    A = sps.random(3000, 6000, density=0.004, random_state=1, format="coo") * 10
    t0 = time.monotonic()
    r = milp.solve(-rng.random(6000), A=A, b_upper=np.full(3000, 10.0), ub=10.0,
                   time_limit=0.5)
    assert time.monotonic() - t0 < 1.5
    assert r.status == "time_limit"


@pytest.mark.parametrize("energy", [1e308, 1e300, 1e200])
def test_milp_front_agrees_with_the_other_fronts_on_huge_energies(energy):
    x = np.arange(1, 9)
    ps = [(x, 1.0 * x, np.full(8, energy)), (x, 2.0 * x, np.full(8, energy))]
    outs = []
    for front in (wh.pareto_front, wh.bruteforce_front, wh.milp_front):
        try:
            f = front(ps, 8)
            outs.append(("ok", list(f.time), list(f.energy)))
        except wpart.WpartValueError as e:
            outs.append(("error", str(e)))
    assert outs[0] == outs[1] == outs[2], outs
    if outs[0][0] == "ok":
        assert np.isfinite(outs[2][2]).all()


def test_milp_front_matches_brute_force_on_extreme_random_profiles():
    rng = np.random.default_rng(5)
    for _ in range(25):
        p, n = int(rng.integers(2, 4)), int(rng.integers(3, 8))
        scale = 10.0 ** rng.choice([-200, 0, 150, 300])
        ps = []
        for _i in range(p):
            s = np.arange(1, n + 1)
            ps.append((s, rng.integers(1, 20, n) * 1.0, rng.integers(1, 20, n) * scale))
        a, b = wh.bruteforce_front(ps, n), wh.milp_front(ps, n)
        assert np.allclose(a.time, b.time, rtol=1e-9) and np.allclose(a.energy, b.energy,
                                                                       rtol=1e-9), (ps, n)


def test_lp_presolver_basis_is_polished():
    """GLPK's LP presolver ended at a feasible, non-optimal point of this LP (objective 0
    instead of -1/3) because of the 1e-296; HiGHS gives -1/3."""
    A = np.array([[-1.0, 4, -4], [1e-296, 2, 1], [0, -3, 3]])
    kw = dict(A=A, b_lower=[1, -6, -np.inf], b_upper=[4, np.inf, 4], lb=[-4, -3, -2],
              ub=[-2, np.inf, np.inf])
    for presolve in (False, True):
        r = milp.solve([-1, 2, -1], **kw, presolve=presolve)
        assert r.status == "optimal" and r.objective == pytest.approx(-1 / 3, rel=1e-9)
