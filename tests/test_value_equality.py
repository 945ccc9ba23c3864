"""The data objects users build and keep (``tasks.Problem``, ``dynamic.PerfModel``) compare by
value, as every result does: a pickled or deep copy equals its original, a changed field makes
them differ, and they are unhashable (their arrays are)."""

import copy
import dataclasses
import pickle

import numpy as np
import pytest

import wpart.dynamic as d
import wpart.tasks as t


def _problem():
    return t.random_problem(4, 30, 3, 20, 7)


def _model():
    x = np.array([100, 200, 400, 800, 1600, 3200])
    return d.fit_model(x, 0.1 + 1e-3 * x, t_xfer=0.01 + 1e-6 * x)


@pytest.mark.parametrize("make", [_problem, _model], ids=["Problem", "PerfModel"])
def test_copies_equal_the_original(make):
    a = make()
    for b in (pickle.loads(pickle.dumps(a)), copy.deepcopy(a), make()):
        assert b is not a and b == a and not (b != a)
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    assert (a == object()) is False


def test_problem_differs_in_any_field():
    p = _problem()
    assert dataclasses.replace(p, task_load=p.task_load * 2) != p
    assert dataclasses.replace(p, m=5) != p
    assert dataclasses.replace(p, meta={"x": 1}) != p
    assert t.random_problem(4, 30, 3, 20, 8) != p


def test_perf_model_differs_in_its_fit():
    m = _model()
    x = np.array([100, 200, 400, 800, 1600, 3200])
    assert d.fit_model(x, 0.2 + 1e-3 * x, t_xfer=0.01 + 1e-6 * x) != m
    assert d.PerfModel.from_packed(m.packed)(777.0) == m(777.0)
