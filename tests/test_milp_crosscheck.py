"""wpart.milp.solve (GLPK) against HiGHS (scipy.optimize.milp) on random small models.

Each model has 2-6 columns and 1-4 rows, integer, binary and continuous columns, finite and
infinite bounds, equality and range rows; some are infeasible, some unbounded. Coefficient
magnitudes are hostile in three ways that have an exact reference:

* a whole row and its bounds multiplied by 2**k (k up to +-600: coefficients near 1e-180 or
  1e180), which changes no answer;
* the objective multiplied by 2**k, which multiplies the optimum by 2**k;
* one tiny coefficient (1e-300 ... 5e-324) added next to ordinary ones in a row whose bounds
  are integers: its effect on any point in the box is below every tolerance, so HiGHS is given
  the row without it. Where it is below 2**-1022 times its row's largest coefficient, wpart
  may refuse it with a WpartValueError naming it (when rescaling its column cannot bring it
  into GLPK's range); otherwise it must give HiGHS's answer.

HiGHS always gets the unscaled model; every other model is solved with ``presolve=True``.
Both must give the same status and, when optimal, the same objective within 1e-6 (relative);
wpart's point must also satisfy the unscaled model.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import wpart
import wpart.milp as milp

scipy_opt = pytest.importorskip("scipy.optimize")

_HIGHS_STATUS = {0: "optimal", 2: "infeasible", 3: "unbounded"}


def _model(rng: np.random.Generator) -> dict:
    n = int(rng.integers(2, 7))
    m = int(rng.integers(1, 5))
    kind = rng.choice([0, 1, 2], size=n, p=[0.3, 0.5, 0.2])
    A = rng.integers(-5, 6, size=(m, n)).astype(float)
    A[rng.random((m, n)) < 0.3] = 0.0
    c = rng.integers(-6, 7, size=n).astype(float)
    lb = rng.integers(-4, 1, size=n).astype(float)
    ub = lb + rng.integers(0, 7, size=n)
    # some infinite bounds: continuous columns only, so that no search can dive forever
    free = (kind == 0) & (rng.random(n) < 0.3)
    ub[free] = np.inf
    lb[(kind == 0) & (rng.random(n) < 0.15)] = -np.inf
    lb[kind == 2] = np.maximum(lb[kind == 2], 0.0)
    ub[kind == 2] = 1.0
    bl = rng.integers(-8, 5, size=m).astype(float)
    bu = bl + rng.integers(0, 8, size=m)
    bl[rng.random(m) < 0.25] = -np.inf
    bu[rng.random(m) < 0.25] = np.inf
    return dict(c=c, A=A, b_lower=bl, b_upper=bu, lb=lb, ub=ub, integrality=kind,
                sense=str(rng.choice(["min", "max"])))


def _highs(k: dict) -> tuple[str, float]:
    c = k["c"] if k["sense"] == "min" else -k["c"]
    integ = (k["integrality"] > 0).astype(int)
    ub = np.where(k["integrality"] == 2, np.minimum(k["ub"], 1.0), k["ub"])
    r = scipy_opt.milp(c, constraints=scipy_opt.LinearConstraint(k["A"], k["b_lower"],
                                                                 k["b_upper"]),
                       bounds=scipy_opt.Bounds(k["lb"], ub), integrality=integ)
    status = _HIGHS_STATUS.get(r.status, f"highs{r.status}")
    if r.status == 4 and "Solve error" in r.message:
        return "highs_error", math.nan
    if r.status in (2, 3, 4):
        # HiGHS says "infeasible" or "other" for "infeasible or unbounded": decide on
        # feasibility
        f = scipy_opt.milp(np.zeros_like(c), constraints=scipy_opt.LinearConstraint(
            k["A"], k["b_lower"], k["b_upper"]), bounds=scipy_opt.Bounds(k["lb"], ub),
            integrality=integ)
        status = "unbounded" if f.status == 0 else "infeasible"
    obj = float(r.fun) if r.status == 0 else math.nan
    return status, obj if k["sense"] == "min" else -obj


def _hostile(k: dict, rng: np.random.Generator, big: int) -> tuple[dict, float]:
    """A copy of k with scaled rows / objective / a tiny coefficient; returns it and the
    factor the optimum is multiplied by."""
    h = {key: (v.copy() if isinstance(v, np.ndarray) else v) for key, v in k.items()}
    what = rng.integers(0, 4)
    factor = 1.0
    if what == 1:  # scale one row and its bounds by 2**e
        # a row with a nonzero (0 = -1e-130 is within every tolerance of 0 = -1)
        rows = np.flatnonzero((h["A"] != 0).any(axis=1))
        i = int(rng.choice(rows)) if rows.size else 0
        e = int(rng.integers(-big, big + 1)) if rows.size else 0
        h["A"][i] = np.ldexp(h["A"][i], e)
        h["b_lower"][i] = np.ldexp(h["b_lower"][i], e)
        h["b_upper"][i] = np.ldexp(h["b_upper"][i], e)
    elif what == 2:  # scale the objective
        e = int(rng.integers(-big // 2, big // 2 + 1))
        h["c"] = np.ldexp(h["c"], e)
        factor = math.ldexp(1.0, e)
    elif what == 3:  # one tiny coefficient beside ordinary ones
        rows = np.flatnonzero((h["A"] != 0).sum(axis=1) > 0)
        if rows.size:
            i = int(rng.choice(rows))
            zeros = np.flatnonzero((h["A"][i] == 0) & np.isfinite(h["lb"]) & np.isfinite(h["ub"]))
            if zeros.size:
                j = int(rng.choice(zeros))
                h["A"][i, j] = float(rng.choice([1e-300, -1e-308, 5e-324, 1e-296]))
                k["_tiny"] = (i, j)
    return h, factor


def _unscalable(h: dict, i: int, j: int) -> bool:
    """Whether the tiny coefficient is below 2**-1022 times its row's largest: wpart may have
    to refuse it (when no column rescaling brings it into range)."""
    e = math.frexp(float(np.abs(h["A"][i]).max()))[1] - 1
    return abs(math.ldexp(float(h["A"][i, j]), -e)) < np.finfo(float).tiny


def _check_point(k: dict, x: np.ndarray) -> None:
    assert np.all(x >= k["lb"] - 1e-6) and np.all(x <= k["ub"] + 1e-6)
    ints = k["integrality"] > 0
    assert np.all(np.abs(x[ints] - np.round(x[ints])) <= 1e-6)
    ax = k["A"] @ x
    t = 1e-6 * np.maximum(1.0, np.abs(ax))
    assert np.all(ax >= k["b_lower"] - t) and np.all(ax <= k["b_upper"] + t)


def _crosscheck(seed: int, count: int, big: int) -> dict:
    rng = np.random.default_rng(seed)
    seen: dict = {}
    for t in range(count):
        k = _model(rng)
        h, factor = _hostile(k, rng, big)
        ref, ref_obj = _highs(k)
        kw = dict(A=h["A"], b_lower=h["b_lower"], b_upper=h["b_upper"], lb=h["lb"], ub=h["ub"],
                  integrality=h["integrality"], sense=h["sense"], presolve=bool(t % 2))
        try:
            r = milp.solve(h["c"], **kw)
        except wpart.WpartValueError as e:
            # only a tiny coefficient below 2**-1022 of its row can be refused, named
            assert "_tiny" in k and _unscalable(h, *k["_tiny"]), (str(e), h)
            i, j = k["_tiny"]
            assert f"A[{i}, {j}]" in str(e), (str(e), h)
            seen["rejected"] = seen.get("rejected", 0) + 1
            continue
        where = f"seed {seed} model {t}: {h}"
        if ref == "highs_error":  # HiGHS failed: only wpart's own point can be checked
            if r.success:
                _check_point(k, r.x)
            seen[ref] = seen.get(ref, 0) + 1
            continue
        assert r.status == ref, f"{where}: wpart {r.status} ({r.message}), HiGHS {ref}"
        if ref == "optimal":
            got = r.objective / factor
            assert abs(got - ref_obj) <= 1e-6 * max(1.0, abs(ref_obj)), where
            _check_point(k, r.x)
        seen[ref] = seen.get(ref, 0) + 1
    return seen


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_glpk_agrees_with_highs(seed):
    """2,000 models (4 x 500), a few seconds."""
    seen = _crosscheck(seed, 500, 600)
    print(seed, seen)
    assert seen.get("highs_error", 0) <= 10
    assert seen.get("optimal", 0) > 100
    assert seen.get("infeasible", 0) > 10


def test_statuses_are_all_reached():
    seen = _crosscheck(99, 200, 600)
    assert {"optimal", "infeasible", "unbounded", "rejected"} <= set(seen), seen


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 30))
def test_glpk_agrees_with_highs_many(seed):
    """20,000 more models."""
    _crosscheck(seed, 1000, 600)
