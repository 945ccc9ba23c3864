"""Hostile input to the base family: prefix_sum, box_loads, partition_1d, probe_1d.

Each call returns a result that an independent check accepts, or raises a documented error
naming the argument (see tests/oracles/fuzz.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles.fuzz import budget, call, hostile_array, hostile_count, hostile_number, small_loads

import wpart

F = "base"
METHODS = ["nicol", "bisect", "dp", "direct_cut", "dc", "recursive_bisection", "NICOL", "", 3]
EXACT = {"nicol", "bisect", "dp"}


def _valid_loads(a: np.ndarray, ndims=(1, 2, 3)) -> bool:
    """Documented-valid loads: real numeric, ndim allowed, non-empty, finite, >= 0, and an
    integer total within int64."""
    if a.dtype.kind not in "biuf" or a.ndim not in ndims or a.size == 0:
        return False
    if a.dtype.kind == "f":
        with np.errstate(all="ignore"):
            v = a.astype(np.float64)
            return bool(np.isfinite(v).all() and (v >= 0).all() and np.isfinite(v.sum()))
    v = [int(x) for x in a.ravel()]
    return min(v) >= 0 and sum(v) <= 2**63 - 1


def _exact_prefix(a: np.ndarray) -> np.ndarray:
    v = a.astype(object) if a.dtype.kind in "biu" else a.astype(np.float64)
    S = np.zeros(tuple(s + 1 for s in a.shape), dtype=v.dtype)
    if v.dtype == object:
        S[...] = 0
    S[tuple(slice(1, None) for _ in a.shape)] = v
    for ax in range(a.ndim):
        S = np.cumsum(S, axis=ax)
    return S


def _best(loads: list, m: int) -> float:
    """Optimal bottleneck by the O(m n^2) dynamic programme."""
    n = len(loads)
    if n == 0:
        return 0
    m = min(m, n)
    pre = [0]
    for x in loads:
        pre.append(pre[-1] + x)
    f = [pre[i] for i in range(n + 1)]
    for _ in range(1, m):
        f = [min(max(f[j], pre[i] - pre[j]) for j in range(i + 1)) for i in range(n + 1)]
    return f[n]


def _check_partition(a: np.ndarray, m: int, r) -> None:
    s = np.asarray(r.separators)
    n = a.size
    assert s.shape == (m + 1,) and s[0] == 0 and s[-1] == n and (np.diff(s) >= 0).all()
    vals = a.astype(np.float64 if a.dtype.kind == "f" else object).tolist()
    parts = [sum(vals[s[p]:s[p + 1]]) for p in range(m)]
    if a.dtype.kind == "f":
        # part loads are differences of float64 prefix sums: exact up to rounding of the total
        tol = 4 * (n + 1) * np.finfo(np.float64).eps * float(sum(vals))
        np.testing.assert_allclose(np.asarray(r.loads, float), parts, rtol=1e-9, atol=tol)
    else:
        assert [int(x) for x in r.loads] == parts
    if r.speeds is None:
        assert float(r.max_load) == float(max(r.loads))
    else:
        assert float(r.max_load) == float(max(np.asarray(r.loads) / r.speeds))


@given(st.data())
def _prefix(data):
    a = data.draw(hostile_array(valid=small_loads(max_n=5)))
    kw = {}
    if data.draw(st.integers(0, 9)) == 0:
        kw["out"] = data.draw(hostile_array(ndim=(1, 2)))
    S, exc = call(F, wpart.prefix_sum, a, names=("A", "out"), **kw)
    if exc is None:
        assert _valid_loads(a)
        exp = _exact_prefix(a)
        if a.dtype.kind == "f":
            np.testing.assert_allclose(S, exp.astype(float), rtol=1e-9, atol=1e-300)
        else:
            assert S.dtype == np.int64 and S.tolist() == exp.tolist()
        if "out" in kw:
            assert S is kw["out"]
    elif "out" not in kw:
        assert not _valid_loads(a), f"valid loads refused: {exc!r}"


def test_prefix_sum(fuzz_budget):
    budget(fuzz_budget, 400)(_prefix)()


@given(st.data())
def _boxes(data):
    nd = data.draw(st.sampled_from([2, 3]))
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(nd))
    A = np.asarray(data.draw(st.lists(st.integers(0, 9), min_size=math.prod(shape),
                                      max_size=math.prod(shape)))).reshape(shape)
    S = wpart.prefix_sum(A)
    good = st.lists(st.lists(st.integers(-1, 5), min_size=2 * nd, max_size=2 * nd), max_size=4)
    boxes = data.draw(st.one_of(good, hostile_array(ndim=(0, 1, 2, 3))))
    if data.draw(st.integers(0, 9)) == 0:
        S = data.draw(hostile_array(ndim=(1, 2, 3, 4)))
    r, exc = call(F, wpart.box_loads, S, boxes, names=("S", "boxes"))
    if exc is None and S.shape == tuple(s + 1 for s in A.shape):
        b = np.asarray(boxes).reshape(-1, 2 * nd)
        for row, v in zip(b, r):
            sl = tuple(slice(int(row[2 * k]), int(row[2 * k + 1])) for k in range(nd))
            assert all(0 <= int(row[2 * k]) <= int(row[2 * k + 1]) <= A.shape[k]
                       for k in range(nd))
            assert int(v) == int(A[sl].sum())


def test_box_loads(fuzz_budget):
    budget(fuzz_budget, 300)(_boxes)()


@given(st.data())
def _partition(data):
    a = data.draw(hostile_array(ndim=(0, 1, 2), valid=small_loads(max_n=9)))
    m = data.draw(hostile_count(st.integers(1, 11)))
    method = data.draw(st.sampled_from(METHODS))
    kw = {}
    if data.draw(st.integers(0, 7)) == 0:
        kw["speeds"] = data.draw(hostile_array(ndim=(0, 1)))
    if data.draw(st.integers(0, 7)) == 0:
        kw["time_limit"] = data.draw(hostile_number())
    r, exc = call(F, wpart.partition_1d, a, m, method=method, names=("loads", "m", "method"),
                  **kw)
    if exc is None and r.status == "time_limit":  # documented: a (tiny) time limit struck
        assert "time_limit" in kw and not r.success and r.separators.size == 0
        return
    if exc is None:
        assert _valid_loads(a, (1,))
        _check_partition(a, int(m), r)
        if method in EXACT and "speeds" not in kw:
            vals = a.astype(np.float64 if a.dtype.kind == "f" else object).tolist()
            assert float(r.max_load) == float(_best(vals, int(m)))
    elif (not kw and method in EXACT | {"dc", "direct_cut", "recursive_bisection"}
          and type(m) is int and 1 <= m <= 11):
        assert not _valid_loads(a, (1,)), f"valid input refused: {exc!r}"


def test_partition_1d(fuzz_budget):
    budget(fuzz_budget, 500)(_partition)()


@given(st.data())
def _probe(data):
    a = data.draw(hostile_array(ndim=(0, 1, 2), valid=small_loads(max_n=9)))
    m = data.draw(hostile_count(st.integers(1, 11)))
    B = data.draw(st.one_of(st.integers(-2, 60), st.floats(-2, 60), hostile_number()))
    r, exc = call(F, wpart.probe_1d, a, m, B, names=("loads", "m", "B"))
    if exc is None:
        ok, seps = r
        assert _valid_loads(a, (1,)) and not math.isnan(float(B))
        vals = a.astype(np.float64 if a.dtype.kind == "f" else object).tolist()
        assert ok == (_best(vals, int(m)) <= B)
        assert seps.shape == (int(m) + 1,) and seps[0] == 0 and (np.diff(seps) >= 0).all()
        if ok:
            assert seps[-1] == a.size
            assert all(sum(vals[seps[p]:seps[p + 1]]) <= B for p in range(int(m)))


def test_probe_1d(fuzz_budget):
    budget(fuzz_budget, 400)(_probe)()


# ------------------------------------------------------------------ regressions -------------


@pytest.mark.parametrize("B", ["1", b"1", 1j, np.complex64(1), None, [3]])
def test_probe_1d_bound_must_be_a_real_number(B):
    with pytest.raises(TypeError, match="`B`"):
        wpart.probe_1d([0, 1], 1, B)
