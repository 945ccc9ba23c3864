"""Hostile input to wpart.milp.solve and write_model.

A returned solution must satisfy the bounds, rows and integrality it was given (re-evaluated
here), its objective must equal ``c @ x + constant``, and "optimal" must match enumeration of
the small integer box (independent of GLPK)."""

from __future__ import annotations

import itertools
import math
import os
import tempfile

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from oracles.fuzz import budget, call, hostile_array, hostile_number

import wpart.milp as milp

F = "milp"
NAMES = ("c", "A", "b_lower", "b_upper", "lb", "ub", "integrality", "sense", "constant",
         "time_limit", "mip_gap", "path", "format", "write")


@st.composite
def small_model(draw):
    """A pure-integer model in a small box: solvable by enumeration."""
    n = draw(st.integers(1, 3))
    m = draw(st.integers(0, 2))
    ints = st.integers(-4, 4)
    c = [draw(ints) for _ in range(n)]
    A = [[draw(ints) for _ in range(n)] for _ in range(m)]
    bl = [draw(st.sampled_from([-math.inf, -3, 0, 2])) for _ in range(m)]
    bu = [draw(st.sampled_from([math.inf, -1, 0, 3, 6])) for _ in range(m)]
    lb = [draw(st.integers(-2, 1)) for _ in range(n)]
    ub = [lo + draw(st.integers(0, 3)) for lo in lb]
    return dict(c=c, A=A if m else None, b_lower=bl if m else None, b_upper=bu if m else None,
                lb=lb, ub=ub, integrality=1, sense=draw(st.sampled_from(["min", "max"])))


def _brute(k):
    c = np.array(k["c"], float)
    A = np.array(k["A"], float) if k["A"] is not None else np.zeros((0, c.size))
    best = None
    for x in itertools.product(*[range(lo, hi + 1) for lo, hi in zip(k["lb"], k["ub"])]):
        ax = A @ np.array(x, float)
        if A.shape[0] and (np.any(ax < np.array(k["b_lower"])) or
                           np.any(ax > np.array(k["b_upper"]))):
            continue
        v = float(c @ np.array(x, float))
        if best is None or (v < best if k["sense"] == "min" else v > best):
            best = v
    return best


def _feasible(k, x) -> bool:
    x = np.asarray(x)
    if not (np.all(x >= np.array(k["lb"]) - 1e-9) and np.all(x <= np.array(k["ub"]) + 1e-9)):
        return False
    if not np.allclose(x, np.round(x)):
        return False
    if k["A"] is not None:
        ax = np.array(k["A"], float) @ x
        return bool(np.all(ax >= np.array(k["b_lower"]) - 1e-7)
                    and np.all(ax <= np.array(k["b_upper"]) + 1e-7))
    return True


@given(small_model())
def _solve_valid(k):
    r, exc = call(F, milp.solve, **k, names=NAMES)
    if exc is not None:
        # only documented refusals of a valid-looking model: b_lower > b_upper
        assert "b_lower" in str(exc) or "b_upper" in str(exc), exc
        return
    best = _brute(k)
    if best is None:
        assert r.status == "infeasible"
    else:
        assert r.status == "optimal" and _feasible(k, r.x)
        assert r.objective == best
        assert math.isclose(r.objective, float(np.dot(k["c"], r.x)), abs_tol=1e-9)


def test_solve_matches_enumeration(fuzz_budget):
    budget(fuzz_budget, 300)(_solve_valid)()


@given(st.data())
def _solve_hostile(data):
    k = data.draw(small_model())
    key = data.draw(st.sampled_from(["c", "A", "b_lower", "b_upper", "lb", "ub", "integrality",
                                     "sense", "constant", "time_limit", "mip_gap", "presolve",
                                     "progress", "log"]))
    k[key] = data.draw(st.one_of(
        hostile_array(ndim=(0, 1, 2, 3), max_side=4), hostile_number(),
        st.sampled_from(["min", "MAX", "", None, [1, 2], (1, 2, 3),
                         ([0], [0], [1.0], (1, 1)), ([0], [5], [1.0], (1, 1))])))
    if key in ("progress",) and callable(k[key]):
        return
    r, exc = call(F, milp.solve, **k, names=NAMES + ("presolve", "progress", "log"))
    if exc is None and r.status in ("optimal", "feasible"):
        x = np.asarray(r.x)
        assert x.shape == (np.asarray(k["c"]).size,) or np.asarray(k["c"]).ndim > 1
        assert np.all(np.isfinite(x))


def test_solve_hostile_arguments(fuzz_budget):
    budget(fuzz_budget, 400)(_solve_hostile)()


@given(st.data())
def _write(data):
    k = data.draw(small_model())
    fmt = data.draw(st.sampled_from([None, "lp", "mps", "LP", "xml", 3]))
    name = data.draw(st.sampled_from(["m.lp", "m.mps", "m", "m.txt", "", "sub/none/m.lp"]))
    if data.draw(st.integers(0, 3)) == 0:
        key = data.draw(st.sampled_from(["c", "A", "lb", "integrality", "constant"]))
        k[key] = data.draw(st.one_of(hostile_array(ndim=(0, 1, 2), max_side=3),
                                     hostile_number()))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name)
        try:
            r, exc = call(F, milp.write_model, path, **k, format=fmt, names=NAMES)
        except OSError:
            assert "sub/" in name or name == ""
            return
        if exc is None:
            assert os.path.getsize(path) > 0


def test_write_model(fuzz_budget):
    budget(fuzz_budget, 200)(_write)()
