"""Tests of wpart.milp: known optima, a brute-force oracle, export, input hygiene, stops."""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import wpart.milp as milp
from wpart import WpartValueError, _core

# ------------------------------------------------------------------------------- helpers --

KS_C = [8, 11, 6, 4]
KS_A = [[5, 7, 4, 3]]


def market_split(m: int = 4, n: int = 40, seed: int = 7):
    """Cornuejols-Dawande market split: equality knapsacks over binaries, hard for B&B."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 100, size=(m, n)).astype(float)
    b = np.floor(A.sum(axis=1) / 2)
    return np.ones(n), A, b


def brute_force(c, A, bl, bu, lo, hi, sense):
    """Optimum over all integer points of the box [lo, hi] (None when infeasible)."""
    best, arg = None, None
    for pt in itertools.product(*[range(a, b + 1) for a, b in zip(lo, hi, strict=True)]):
        x = np.array(pt, dtype=np.int64)
        if A.shape[0]:
            ax = A @ x
            if np.any(ax < bl) or np.any(ax > bu):
                continue
        v = int(np.dot(c, x))
        if best is None or (v < best if sense == "min" else v > best):
            best, arg = v, x
    return best, arg


def check_feasible(r, A, bl, bu, lb, ub, integer, tol=1e-6):
    x = r.x
    assert np.all(x >= np.asarray(lb) - tol) and np.all(x <= np.asarray(ub) + tol)
    if A is not None and len(A):
        ax = np.asarray(A, dtype=float) @ x
        assert np.all(ax >= np.asarray(bl) - tol) and np.all(ax <= np.asarray(bu) + tol)
    assert np.all(x[integer] == np.round(x[integer]))


# ----------------------------------------------------------------------------- known optima --


def test_knapsack_integer_vs_relaxation():
    r = milp.solve(KS_C, A=KS_A, b_upper=[14], integrality=2, sense="max")
    assert r.status == "optimal" and r.success
    assert r.objective == 21.0 and r.bound == 21.0 and r.gap == 0.0
    assert r.x.tolist() == [0.0, 1.0, 1.0, 1.0]
    assert r.stopped_by == "none"
    rl = milp.solve(KS_C, A=KS_A, b_upper=[14], ub=1, sense="max")
    assert rl.status == "optimal"
    assert rl.objective == pytest.approx(22.0)
    assert rl.x == pytest.approx([1.0, 1.0, 0.5, 0.0])
    assert rl.nodes == 0
    assert rl.objective >= r.objective


@pytest.mark.parametrize("presolve", [True, False])
def test_fractional_lp_optimum(presolve):
    # max y  s.t. -x + y <= 1, 3x + 2y <= 12, 2x + 3y <= 12: LP optimum (1.8, 2.8), IP y = 2
    A = [[-1, 1], [3, 2], [2, 3]]
    b = [1, 12, 12]
    lp = milp.solve([0, 1], A=A, b_upper=b, sense="max", presolve=presolve)
    assert lp.objective == pytest.approx(2.8)
    assert lp.x == pytest.approx([1.8, 2.8])
    ip = milp.solve([0, 1], A=A, b_upper=b, sense="max", integrality=1, presolve=presolve)
    assert ip.status == "optimal"
    assert ip.objective == 2.0
    assert ip.x[1] == 2.0
    check_feasible(ip, A, [-np.inf] * 3, b, [0, 0], [np.inf, np.inf], [0, 1])


def test_assignment_problem():
    cost = np.array([[9, 2, 7, 8], [6, 4, 3, 7], [5, 8, 1, 8], [7, 6, 9, 4]], dtype=float)
    k = cost.shape[0]
    A = np.zeros((2 * k, k * k))
    for i in range(k):
        A[i, i * k : (i + 1) * k] = 1  # each worker once
        A[k + i, i::k] = 1  # each job once
    r = milp.solve(cost.ravel(), A=A, b_lower=1, b_upper=1, integrality=2)
    best = min(sum(cost[i, p[i]] for i in range(k)) for p in itertools.permutations(range(k)))
    assert r.status == "optimal"
    assert r.objective == best == 13.0
    X = r.x.reshape(k, k)
    assert np.all(X.sum(axis=0) == 1) and np.all(X.sum(axis=1) == 1)


def test_equality_constraints_and_constant():
    # min x + 2y + 3z + 10  s.t. x + y + z = 6, x - y = 1, z >= 1
    r = milp.solve(
        [1, 2, 3], A=[[1, 1, 1], [1, -1, 0]], b_lower=[6, 1], b_upper=[6, 1], lb=[0, 0, 1],
        constant=10,
    )
    assert r.status == "optimal"
    assert r.x == pytest.approx([3.0, 2.0, 1.0])
    assert r.objective == pytest.approx(3 + 4 + 3 + 10)
    ri = milp.solve(
        [1, 2, 3], A=[[1, 1, 1], [1, -1, 0]], b_lower=[6, 1], b_upper=[6, 1], lb=[0, 0, 1],
        constant=10, integrality=1,
    )
    assert ri.objective == pytest.approx(r.objective)


def test_free_variables():
    # min t  s.t. t >= x - 3, t >= 3 - x, x <= -2, x and t free  ->  x = -2, t = 5
    A = [[1, -1], [1, 1]]  # t - x >= -3, t + x >= 3
    r = milp.solve([1, 0], A=A, b_lower=[-3, 3], lb=-np.inf, ub=[np.inf, -2])
    assert r.status == "optimal"
    assert r.x == pytest.approx([5.0, -2.0])
    ri = milp.solve([1, 0], A=A, b_lower=[-3, 3], lb=-np.inf, ub=[np.inf, -2.5], integrality=1)
    assert ri.x.tolist() == [6.0, -3.0]  # integer x <= -2.5 rounds to x <= -3


def test_maximise_and_negative_bounds():
    r = milp.solve([1, 1], A=[[1, 2], [3, 1]], b_upper=[4, 6], lb=-1, sense="max", integrality=1)
    best, _ = brute_force(
        np.array([1, 1]), np.array([[1, 2], [3, 1]]), [-np.inf] * 2, [4, 6], [-1, -1], [6, 6], "max"
    )
    assert r.objective == best


@pytest.mark.parametrize("presolve", [True, False])
@pytest.mark.parametrize("integer", [0, 1])
def test_infeasible(presolve, integer):
    r = milp.solve(
        [1, 1], A=[[1, 1], [1, 1]], b_lower=[-np.inf, 2], b_upper=[1, np.inf],
        integrality=integer, presolve=presolve,
    )
    assert r.status == "infeasible" and not r.success
    assert np.isnan(r.x).all() and math.isnan(r.objective)
    assert "infeasible" in r.message


def test_infeasible_integer_range_and_parity():
    r = milp.solve([1], lb=0.2, ub=0.8, integrality=1)
    assert r.status == "infeasible"
    r = milp.solve([1], lb=0.2, ub=0.8)
    assert r.status == "optimal" and r.objective == pytest.approx(0.2)
    # 2x = 1 has no integer solution although the relaxation is unbounded (in y); the
    # zero-objective feasibility solve that follows must say "infeasible", not "unbounded".
    # (x is bounded: with unbounded integers, branch-and-bound cannot prove infeasibility.)
    for presolve in (True, False):
        r = milp.solve([0, 1], A=[[2, 0]], b_lower=1, b_upper=1, ub=[10, np.inf],
                       integrality=[1, 0], sense="max", presolve=presolve, time_limit=5)
        assert r.status == "infeasible", r
        assert "infeasible" in r.message


@pytest.mark.parametrize("presolve", [True, False])
def test_unbounded_integers_time_limit(presolve):
    # 2x - 2y = 1 over unbounded integers: branch-and-bound cannot prove infeasibility, so only
    # the time limit ends it, with no solution (relaxation unbounded when maximising)
    for sense, what in (("max", "feasibility undecided"), ("min", "no feasible solution")):
        r = milp.solve([1, 0], A=[[2, -2]], b_lower=1, b_upper=1, integrality=1, sense=sense,
                       presolve=presolve, time_limit=0.1)
        assert r.status == "time_limit" and r.stopped_by == "time_limit" and not r.success
        assert np.isnan(r.x).all()
        assert what in r.message
        assert 0 < r.seconds < 30  # the limit, not the (never ending) search, ended it


@pytest.mark.parametrize("presolve", [True, False])
@pytest.mark.parametrize("integer", [0, 1])
@pytest.mark.parametrize("sense", ["min", "max"])
def test_unbounded(presolve, integer, sense):
    s = 1 if sense == "max" else -1
    r = milp.solve([s, s], A=[[1, -1]], b_upper=1, integrality=integer, presolve=presolve,
                   sense=sense)
    assert r.status == "unbounded" and not r.success
    assert r.bound == s * np.inf
    assert np.isnan(r.x).all()


def test_no_constraints():
    r = milp.solve([1, -1], ub=[3, 4], integrality=[0, 1])
    assert r.status == "optimal" and r.objective == -4.0
    r = milp.solve([1, -1], A=np.zeros((0, 2)), ub=[3, 4])
    assert r.objective == -4.0


def test_mip_gap_tolerance():
    c, A, b = market_split(m=1, n=12, seed=3)
    r = milp.solve(-np.arange(1, 13), A=A, b_upper=b, integrality=2, mip_gap=0.5)
    assert r.status == "optimal"
    assert r.gap <= 0.5 + 1e-12
    exact = milp.solve(-np.arange(1, 13), A=A, b_upper=b, integrality=2)
    assert exact.objective <= r.objective + 1e-9


# --------------------------------------------------------------------- brute-force oracle --


def _random_instance(rng):
    n = int(rng.integers(1, 5))
    m = int(rng.integers(0, 4))
    lo = rng.integers(-2, 2, size=n)
    hi = lo + rng.integers(0, 3, size=n)
    c = rng.integers(-3, 4, size=n)
    if rng.random() < 0.2:
        c[:] = 0  # all ties
    A = rng.integers(-3, 4, size=(m, n))
    if m and rng.random() < 0.3:
        A[rng.integers(0, m)] = 0  # a zero row
    bl = np.full(m, -np.inf)
    bu = np.full(m, np.inf)
    for i in range(m):
        kind = rng.integers(0, 4)
        v = int(rng.integers(-4, 5))
        if kind == 0:
            bu[i] = v
        elif kind == 1:
            bl[i] = v
        elif kind == 2:
            bl[i] = v
            bu[i] = v + int(rng.integers(0, 4))
        else:
            bl[i] = bu[i] = v
    sense = "min" if rng.random() < 0.5 else "max"
    return c, A, bl, bu, lo, hi, sense


@pytest.mark.parametrize("block", range(5))
def test_brute_force_oracle(block):
    rng = np.random.default_rng(1000 + block)
    n_feasible = 0
    for _ in range(60):  # 5 x 60 = 300 instances
        c, A, bl, bu, lo, hi, sense = _random_instance(rng)
        presolve = bool(rng.random() < 0.7)
        best, _ = brute_force(c, A, bl, bu, lo, hi, sense)
        kw = {}
        if A.shape[0]:
            kw = {"A": A, "b_lower": bl, "b_upper": bu}
        r = milp.solve(c, lb=lo, ub=hi, integrality=1, sense=sense, presolve=presolve, **kw)
        if best is None:
            assert r.status == "infeasible", (c, A, bl, bu, lo, hi, sense, r)
            continue
        n_feasible += 1
        assert r.status == "optimal", (c, A, bl, bu, lo, hi, sense, r)
        assert r.objective == pytest.approx(best, abs=1e-9)
        assert np.dot(c, r.x) == pytest.approx(best, abs=1e-9)
        check_feasible(r, A, bl, bu, lo, hi, np.arange(len(c)))
    assert n_feasible >= 20


# ------------------------------------------------------------------ input forms, hygiene --


def _forms_of(A):
    A = np.asarray(A, dtype=float)
    r, c = np.nonzero(A)
    yield A
    yield A.tolist()
    yield np.asfortranarray(A)
    yield np.repeat(A, 2, axis=1)[:, ::2]  # non-contiguous view
    yield A.astype(np.int32)
    yield (r, c, A[r, c], A.shape)
    # COO with duplicates that sum to the same matrix, and an explicit zero
    yield (
        np.concatenate([r, r, [0]]),
        np.concatenate([c, c, [0]]),
        np.concatenate([A[r, c] / 4, 3 * A[r, c] / 4, [0.0]]),
        A.shape,
    )


def test_input_forms_agree():
    A = [[-1, 1], [3, 2], [2, 3]]
    ref = milp.solve([0, 1], A=A, b_upper=[1, 12, 12], sense="max", integrality=[False, True])
    for form in _forms_of(A):
        r = milp.solve([0, 1], A=form, b_upper=[1, 12, 12], sense="max",
                       integrality=np.array([0, 1], dtype=np.uint8))
        assert r.objective == ref.objective
        assert r.x.tolist() == ref.x.tolist()
    r = milp.solve(np.array([0, 1], dtype=np.int16), A=A, b_upper=(1, 12, 12), sense="max",
                   integrality=[False, True])
    assert r.objective == ref.objective


def test_scipy_sparse_input():
    sp = pytest.importorskip("scipy.sparse")
    A = np.array([[-1, 1], [3, 2], [2, 3]], dtype=float)
    ref = milp.solve([0, 1], A=A, b_upper=[1, 12, 12], sense="max", integrality=1)
    for conv in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        r = milp.solve([0, 1], A=conv(A), b_upper=[1, 12, 12], sense="max", integrality=1)
        assert r.objective == ref.objective


@pytest.mark.parametrize("spoil", ["pointer_end", "pointer_mid", "pointer_negative", "index",
                                   "csc_index", "lil_index", "coo_short"])
def test_scipy_sparse_with_spoilt_arrays_is_refused_naming_A(spoil, tmp_path):
    # (scipy checks none of these once a matrix is made: its conversion to COO read them out
    # of bounds -- a crash, or a hang)
    sp = pytest.importorskip("scipy.sparse")
    n = 20
    A = sp.csr_array(np.eye(n))
    if spoil == "pointer_end":
        A.indptr[-1] += 100000
    elif spoil == "pointer_mid":
        A.indptr[5] = 10**6
    elif spoil == "pointer_negative":
        A.indptr[3] = -4
    elif spoil == "index":
        A.indices[2] = 10**9
    elif spoil == "csc_index":
        A = sp.csc_array(np.eye(n))
        A.indices[2] = -1
    elif spoil == "lil_index":
        A = sp.lil_array(np.eye(n))
        A.rows[0] = [10**6]
    else:
        A = sp.coo_array(np.eye(n))
        A.data = A.data[:-2]
    with pytest.raises(WpartValueError, match=r"^`A` has (a|an|malformed)"):
        milp.solve(np.ones(n), A=A, b_upper=np.ones(n))
    with pytest.raises(WpartValueError, match=r"^`A` has (a|an|malformed)"):
        milp.write_model(tmp_path / "m.lp", np.ones(n), A=A, b_upper=np.ones(n))
    assert not (tmp_path / "m.lp").exists()


def test_inputs_unchanged():
    c = np.array([8.0, 11, 6, 4])
    A = np.array([[5.0, 7, 4, 3]])
    bu = np.array([14.0])
    lb = np.zeros(4)
    ub = np.ones(4)
    integ = np.array([1, 1, 1, 1])
    rows, cols, vals = np.array([0, 0, 0, 0]), np.array([0, 1, 2, 3]), A[0].copy()
    copies = [a.copy() for a in (c, A, bu, lb, ub, integ, rows, cols, vals)]
    milp.solve(c, A=A, b_upper=bu, lb=lb, ub=ub, integrality=integ, sense="max")
    milp.solve(c, A=(rows, cols, vals, (1, 4)), b_upper=bu, lb=lb, ub=ub, integrality=integ)
    for a, b in zip((c, A, bu, lb, ub, integ, rows, cols, vals), copies, strict=True):
        assert np.array_equal(a, b) and a.dtype == b.dtype


BAD_INPUTS = [
    (dict(c=[1, np.nan, 2]), ValueError, r"`c` contains NaN at index 1"),
    (dict(c=[1, np.inf]), ValueError, r"`c` contains inf at index 1"),
    (dict(c=[]), ValueError, r"`c` must have at least one element"),
    (dict(c=[[1, 2]]), ValueError, r"`c` must be 1-D"),
    (dict(c=["a", "b"]), TypeError, r"`c` must contain real numbers"),
    (dict(c=[1, 2], A=[[1, 2, 3]], b_upper=1), ValueError, r"`A` must have len\(c\) = 2 columns"),
    (dict(c=[1, 2], A=[1, 2], b_upper=1), ValueError, r"`A` must be 2-D"),
    (dict(c=[1, 2], A=[[1, np.nan]], b_upper=1), ValueError, r"`A` contains NaN at index \(0, 1\)"),
    (dict(c=[1, 2], A=[[1, np.inf]], b_upper=1), ValueError, r"`A` contains inf at index \(0, 1\)"),
    (dict(c=[1, 2], A=([0], [2], [1.0], (1, 2)), b_upper=1), ValueError,
     r"`A` \(COO\) column index 2 at position 0 is out of range"),
    (dict(c=[1, 2], A=([1], [0], [1.0], (1, 2)), b_upper=1), ValueError,
     r"`A` \(COO\) row index 1 at position 0 is out of range"),
    (dict(c=[1, 2], A=([0], [0], [np.nan], (1, 2)), b_upper=1), ValueError,
     r"`A` \(COO\) values contain nan at position 0"),
    (dict(c=[1, 2], A=([0, 0], [0], [1.0], (1, 2)), b_upper=1), ValueError,
     r"must have the same length"),
    (dict(c=[1, 2], A=([0.5], [0], [1.0], (1, 2)), b_upper=1), TypeError, r"must be integers"),
    (dict(c=[1, 2], A=([0], [0], [1.0], (1, 3)), b_upper=1), ValueError,
     r"`A` \(COO\) must have shape \(m, len\(c\) = 2\)"),
    (dict(c=[1, 2], A=[[1, 1]]), ValueError, r"`A` is given but neither `b_lower` nor `b_upper`"),
    (dict(c=[1, 2], b_upper=[1]), ValueError, r"`b_upper` is given but `A` is None"),
    (dict(c=[1, 2], A=[[1, 1]], b_upper=[1, 2]), ValueError, r"`b_upper` must have length 1"),
    (dict(c=[1, 2], A=[[1, 1]], b_upper=[np.nan]), ValueError,
     r"`b_upper` contains NaN at index 0"),
    (dict(c=[1, 2], A=[[1, 1]], b_upper=[-np.inf]), ValueError, r"`b_upper` contains -inf"),
    (dict(c=[1, 2], A=[[1, 1]], b_lower=[np.inf]), ValueError, r"`b_lower` contains \+inf"),
    (dict(c=[1, 2], A=[[1, 1]], b_lower=3, b_upper=2), ValueError,
     r"`b_lower\[0\]` = 3.0 > `b_upper\[0\]` = 2.0"),
    (dict(c=[1, 2], lb=[0, 3], ub=[1, 2]), ValueError, r"`lb\[1\]` = 3.0 > `ub\[1\]` = 2.0"),
    (dict(c=[1, 2], ub=-1), ValueError, r"`lb\[0\]` = 0.0 > `ub\[0\]` = -1.0"),
    (dict(c=[1, 2], lb=[0, np.nan]), ValueError, r"`lb` contains NaN at index 1"),
    (dict(c=[1, 2], lb=np.inf), ValueError, r"`lb` contains \+inf at index 0"),
    (dict(c=[1, 2], ub=[1, -np.inf]), ValueError, r"`ub` contains -inf at index 1"),
    (dict(c=[1, 2], ub=[1, 2, 3]), ValueError, r"`ub` must have length 2"),
    (dict(c=[1, 2], integrality=[0, 3]), ValueError, r"`integrality` must contain only 0"),
    (dict(c=[1, 2], integrality=[0, 1, 1]), ValueError, r"`integrality` must be a scalar or have"),
    (dict(c=[1, 2], integrality=[0.5, 1]), TypeError, r"`integrality` must contain integers"),
    (dict(c=[1, 2], integrality=2, lb=2, ub=3), ValueError,
     r"`integrality\[0\]` is binary \(2\) but the bounds"),
    (dict(c=[1, 2], sense="maximize"), ValueError, r"`sense` must be 'min' or 'max'"),
    (dict(c=[1, 2], constant=np.nan), ValueError, r"`constant` must not be NaN"),
    (dict(c=[1, 2], constant=np.inf), ValueError, r"`constant` must be finite"),
    (dict(c=[1, 2], constant="1"), TypeError, r"`constant` must be a number"),
    (dict(c=[1, 2], time_limit=0), ValueError, r"`time_limit` must be > 0"),
    (dict(c=[1, 2], time_limit=-1.0), ValueError, r"`time_limit` must be > 0"),
    (dict(c=[1, 2], time_limit="1"), TypeError, r"`time_limit` must be a number"),
    (dict(c=[1, 2], time_limit=True), TypeError, r"`time_limit` must be a number"),
    (dict(c=[1, 2], time_limit=np.nan), ValueError, r"`time_limit` must not be NaN"),
    (dict(c=[1, 2], mip_gap=-0.1), ValueError, r"`mip_gap` must be >= 0"),
    (dict(c=[1, 2], mip_gap=np.nan), ValueError, r"`mip_gap` must not be NaN"),
    (dict(c=[1, 2], mip_gap=np.inf), ValueError, r"`mip_gap` must be finite"),
    (dict(c=[1, 2], presolve=1), TypeError, r"`presolve` must be a bool"),
    (dict(c=[1, 2], log="yes"), TypeError, r"`log` must be a bool"),
    (dict(c=[1, 2], progress=3), TypeError, r"`progress` must be a bool or a callable"),
    (dict(c=[1, 2], write="model.txt"), ValueError, r"cannot infer the format from `write`"),
    (dict(c=[1, 2], write=3), TypeError, r"`write` must be a path"),
]


@pytest.mark.parametrize("kwargs,exc,match", BAD_INPUTS)
def test_bad_inputs(kwargs, exc, match):
    kwargs = dict(kwargs)
    c = kwargs.pop("c")
    with pytest.raises(exc, match=match):
        milp.solve(c, **kwargs)


def test_write_model_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match=r"`format` must be one of 'lp', 'mps'"):
        milp.write_model(tmp_path / "m.lp", [1], format="xml")
    with pytest.raises(ValueError, match=r"cannot infer the format from `path`"):
        milp.write_model(tmp_path / "m", [1])
    with pytest.raises(ValueError, match=r"`c` contains NaN at index 0"):
        milp.write_model(tmp_path / "m.lp", [np.nan])
    with pytest.raises(OSError, match="cannot write"):
        milp.write_model(tmp_path / "missing-dir" / "m.lp", [1])
    assert not (tmp_path / "m.lp").exists()


def _core_args(**over):
    args = dict(
        c=np.array([1.0, 2.0]), c0=0.0, sense="min", lb=np.zeros(2), ub=np.ones(2),
        integrality=None, b_lower=None, b_upper=None, a_row=np.zeros(0, dtype=np.int64),
        a_col=np.zeros(0, dtype=np.int64), a_val=np.zeros(0), n_rows=0,
    )
    args.update(over)
    return args


@pytest.mark.parametrize(
    "over,exc,match",
    [
        (dict(c=np.array([1, 2])), TypeError, r"`c` must have dtype float64"),
        (dict(c=[1.0, 2.0]), TypeError, r"`c` must be a NumPy array"),
        (dict(c=np.ones((1, 2))), ValueError, r"`c` must be 1-D"),
        (dict(lb=np.zeros(3)), ValueError, r"`lb` must have length 2, got 3"),
        (dict(integrality=np.zeros(2, dtype=np.int64)), TypeError,
         r"`integrality` must have dtype"),
        (dict(a_col=np.zeros(1, dtype=np.int64)), ValueError, r"`A cols` must have length 0"),
        (dict(n_rows=1, b_upper=np.zeros(2)), ValueError, r"`b_upper` must have length 1"),
        (dict(n_rows=-1), ValueError, r"`n_rows` must be >= 0"),
        (dict(sense="up"), ValueError, r"`sense` must be one of 'min', 'max'"),
        (dict(a_row=np.array([5]), a_col=np.array([0]), a_val=np.array([1.0]), n_rows=1,
              b_upper=np.ones(1)), ValueError, r"a_row\[0\] = 5 is out of range"),
        (dict(lb=np.array([0.0, np.nan])), ValueError, r"lb\[1\] must be a number"),
        (dict(progress=3), TypeError, r"`progress` must be callable or None"),
    ],
)
def test_core_rechecks_arguments(over, exc, match):
    with pytest.raises(exc, match=match):
        _core.milp_solve(**_core_args(**over))


def test_core_noncontiguous_input_is_copied():
    c = np.array([1.0, 9.0, 2.0, 9.0])[::2]
    d = _core.milp_solve(**_core_args(c=c, sense="max"))
    assert d["status"] == "optimal" and d["objective"] == 3.0


def test_glpk_fatal_error_is_recovered():
    # GLPK refuses more than 1e8 rows with a fatal error; its error hook must bring us back
    with pytest.raises(wpart_solver_error(), match="GLPK fatal error"):
        _core.milp_solve(**_core_args(n_rows=100_000_001))
    r = milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max")
    assert r.objective == 21.0


def wpart_solver_error():
    return _core.SolverError


def test_refcounts_stable():
    args = _core_args(a_row=np.array([0, 0]), a_col=np.array([0, 1]), a_val=np.array([1.0, 1.0]),
                      n_rows=1, b_lower=np.ones(1), integrality=np.array([1, 0], dtype=np.int8))
    arrays = [v for v in args.values() if isinstance(v, np.ndarray)]
    before = [sys.getrefcount(a) for a in arrays]
    none_before = sys.getrefcount(None)
    for _ in range(1000):
        d = _core.milp_solve(**args)
    assert d["objective"] == 1.0
    assert [sys.getrefcount(a) for a in arrays] == before
    assert abs(sys.getrefcount(None) - none_before) < 50  # immortal on 3.12+, stable before
    x = d.pop("x")
    assert sys.getrefcount(x) == 2  # the local name and the call's argument


# ------------------------------------------------------------------ stops and progress --


def test_time_limit_returns_status():
    c, A, b = market_split()
    t0 = time.perf_counter()
    r = milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=0.3)
    wall = time.perf_counter() - t0
    assert r.status == "time_limit"
    assert r.stopped_by == "time_limit"
    assert "GLP_ETMLIM" in r.message
    assert wall < 30  # responsiveness (uninterrupted it runs for minutes), generous under load
    assert r.nodes > 0
    if r.success:  # the incumbent
        assert np.isfinite(r.objective)
        check_feasible(r, A, b, b, np.zeros(40), np.ones(40), np.arange(40))
    else:
        assert np.isnan(r.x).all()


def test_progress_callable_and_bar():
    calls = []
    c, A, b = market_split()
    r = milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=0.3,
                   progress=lambda done, total: calls.append((done, total)))
    assert r.status == "time_limit"
    assert calls and all(t == 100.0 and 0.0 <= d <= 100.0 for d, t in calls)
    assert calls[-1] == (100.0, 100.0)
    r = milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max", progress=True)
    assert r.objective == 21.0


def test_progress_exception_propagates():
    class Boom(Exception):
        pass

    def bad(done, total):
        raise Boom("from progress")

    c, A, b = market_split()
    with pytest.raises(Boom, match="from progress"):
        milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=5, progress=bad)
    r = milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max")
    assert r.objective == 21.0


def test_nested_solve_from_progress_raises():
    def nested(done, total):
        milp.solve([1.0], ub=1)

    c, A, b = market_split()
    with pytest.raises(RuntimeError, match="already running"):
        milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=5, progress=nested)
    assert milp.solve([1.0], ub=1).status == "optimal"


def test_threads_are_serialised():
    import threading

    c, A, b = market_split()
    results, errors = [], []

    def work(seed):
        try:
            for _ in range(3):
                r = milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=0.05,
                               progress=lambda d, t: time.sleep(0))  # runs Python: GIL switches
                results.append(r.status)
                r = milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max")
                results.append(r.objective)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    assert len(results) == 18
    assert all(v in ("time_limit", 21.0) for v in results)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX timers")
def test_ctrl_c_interrupts_the_search():
    def handler(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, handler)
    c, A, b = market_split()
    t0 = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=10)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - t0 < 30  # responsiveness, not speed: a generous bound
    r = milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max")
    assert r.objective == 21.0


def test_log_capture():
    r = milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max", log=True)
    assert "mip =" in r.log
    assert milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max").log == ""


# ----------------------------------------------------------------------- result object --


def test_result_repr_and_dict():
    r = milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max")
    text = repr(r)
    assert "status='optimal'" in text and "objective=21" in text
    d = r.to_dict()
    assert d["x"] == [0.0, 1.0, 1.0, 1.0] and d["success"] is True
    json.dumps(d)
    with pytest.raises(AttributeError, match=r"^cannot\ assign\ to\ field\ 'status'"):
        r.status = "x"  # frozen
    ri = milp.solve([1, 1], A=[[1, 1]], b_upper=-1)
    assert "status='infeasible'" in repr(ri)
    json.dumps(ri.to_dict())


def test_solver_version():
    assert milp.solver_version()[0].isdigit()


# ----------------------------------------------------------------------------- export --

GLPSOL = shutil.which("glpsol")


def _glpsol_objective(path, fmt, maximize=False):
    out = path.with_suffix(".sol")
    cmd = [GLPSOL, "--lp" if fmt == "lp" else "--freemps", str(path), "-o", str(out)]
    if maximize:
        cmd.insert(1, "--max")
    subprocess.run(cmd, check=True, capture_output=True, timeout=60)
    for line in out.read_text().splitlines():
        if line.startswith("Objective:"):
            return float(line.split("=")[1].split()[0])
    raise AssertionError("no objective in glpsol output")


MODEL = dict(
    c=[1, 2, -1, 0.5],
    A=[[1, 1, 1, 0], [1, -1, 0, 2], [0, 3, 1, 1]],
    b_lower=[2, -np.inf, 1],
    b_upper=[5, 3, 1],
    lb=[0, -1, -np.inf, 0],
    ub=[4, 3, 2, np.inf],
    integrality=[1, 2, 0, 1],
)


@pytest.mark.parametrize("fmt", ["lp", "mps"])
@pytest.mark.parametrize("sense", ["min", "max"])
def test_write_and_reread(tmp_path, fmt, sense):
    path = tmp_path / f"model.{fmt}"
    model = dict(MODEL)
    c = model.pop("c")
    r = milp.solve(c, sense=sense, write=path, **model)
    assert r.status == "optimal"
    text = path.read_text()
    if fmt == "lp":
        for section in ("Minimize" if sense == "min" else "Maximize", "Subject To", "Bounds",
                        "Generals", "End"):
            assert section in text
        assert "x3" in text and "c2:" in text
    else:
        for section in ("NAME", "ROWS", "COLUMNS", "'MARKER'", "RHS", "BOUNDS", "ENDATA"):
            assert section in text
    path2 = tmp_path / f"again.{fmt}"
    milp.write_model(path2, c, sense=sense, **model)
    assert path2.read_text() == text
    if GLPSOL is None:
        pytest.skip("glpsol (glpk-utils) is not installed")
    # free MPS as GLPK writes it has no objective direction: pass --max when maximising
    obj = _glpsol_objective(path, fmt, maximize=(fmt == "mps" and sense == "max"))
    assert obj == pytest.approx(r.objective, abs=1e-9)


def test_write_constant_term(tmp_path):
    kw = dict(A=KS_A, b_upper=14, integrality=2, sense="max", constant=2.5)
    milp.write_model(tmp_path / "k.lp", KS_C, **kw)
    milp.write_model(tmp_path / "k.mps", KS_C, **kw)
    assert "constant term = 2.5" in (tmp_path / "k.lp").read_text()  # a comment in LP format
    if GLPSOL is None:
        pytest.skip("glpsol (glpk-utils) is not installed")
    assert _glpsol_objective(tmp_path / "k.mps", "mps", maximize=True) == 23.5
    assert _glpsol_objective(tmp_path / "k.lp", "lp") == 21.0


@pytest.mark.parametrize(
    "model",
    [
        dict(c=[1, 2], ub=3),  # no rows at all
        dict(c=[0, 2], ub=3),  # no rows and an empty column
        dict(c=[1, 1], A=[[1, 1], [1, -1]], b_upper=[4, np.inf], lb=-1),  # a free row
        dict(c=[1, 1], A=[[1, -1]], b_lower=-np.inf, b_upper=np.inf, ub=2),  # only a free row
        dict(c=[0, 2], A=[[0, 1], [0, 0]], b_upper=[2, 5], ub=3),  # zero row, empty column
    ],
)
@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_write_degenerate_models(tmp_path, model, fmt):
    model = dict(model)
    c = model.pop("c")
    r = milp.solve(c, sense="max", **model)
    path = tmp_path / f"m.{fmt}"
    milp.write_model(path, c, sense="max", **model)
    if GLPSOL is None:
        pytest.skip("glpsol (glpk-utils) is not installed")
    assert _glpsol_objective(path, fmt, maximize=fmt == "mps") == pytest.approx(r.objective)


def test_write_format_argument_and_pathlike(tmp_path):
    path = tmp_path / "model.txt"
    milp.write_model(path, KS_C, A=KS_A, b_upper=14, format="mps")
    assert path.read_text().rstrip().endswith("ENDATA")
    milp.write_model(str(tmp_path / "m.LP"), KS_C, A=KS_A, b_upper=14)
    assert "Subject To" in (tmp_path / "m.LP").read_text()


def test_solve_write_failure_raises_oserror(tmp_path):
    with pytest.raises(OSError, match="cannot write"):
        milp.solve(KS_C, A=KS_A, b_upper=14, write=tmp_path / "nope" / "m.lp")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_import_does_not_print(capfd):
    milp.solve([1, 1], A=[[1, 1]], b_upper=-1, integrality=1)
    milp.solve(KS_C, A=KS_A, b_upper=14, integrality=2, sense="max", presolve=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
