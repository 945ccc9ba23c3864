"""wpart.milp speaks the shared vocabulary: MilpResult follows the result protocol, a time
limit is a status, bad options raise WpartError subclasses naming the argument, and a progress
callable that returns False cancels the solve."""

from __future__ import annotations

import dataclasses
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import wpart  # noqa: E402
from wpart import milp  # noqa: E402

KS = dict(c=[8, 11, 6, 4], A=[[5, 7, 4, 3]], b_upper=[14], integrality=2, sense="max")


def market_split(m=4, n=40, seed=3):
    """A market-split instance: hard for branch-and-bound at this size."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 100, (m, n)).astype(float)
    return np.zeros(n), A, np.floor(A.sum(axis=1) / 2)


def test_result_protocol():
    r = milp.solve(**KS)
    assert isinstance(r, wpart.Result) and r.status == "optimal" and r.success
    assert r == milp.solve(**KS) and r == dataclasses.replace(r)
    assert r != milp.solve(**dict(KS, b_upper=[10]))
    assert len(repr(r).splitlines()) <= 5
    d = r.to_dict()
    json.dumps(d)
    assert d["status"] == "optimal" and d["success"] is True and d["gap"] == 0.0
    assert set(r.stats) >= {"seconds", "nodes"}
    fig, ax = plt.subplots()
    assert r.plot(ax=ax) is ax
    plt.close("all")


def test_statuses_of_infeasible_and_unbounded():
    ri = milp.solve([1, 1], A=[[1, 1]], b_upper=-1)
    assert ri.status == "infeasible" and not ri.success and np.isnan(ri.x).all()
    ru = milp.solve([-1], lb=0, ub=np.inf)
    assert ru.status == "unbounded" and not ru.success
    assert ri.status in milp.STATUSES and ru.status in milp.STATUSES


def test_time_limit_is_a_status():
    c, A, b = market_split()
    r = milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=0.05)
    assert r.status == "time_limit" and r.stopped_by == "time_limit"
    assert r.success == (not np.isnan(r.x).all())
    assert len(repr(r).splitlines()) <= 5
    json.dumps(r.to_dict())
    fig, ax = plt.subplots()
    assert r.plot(ax=ax) is ax
    plt.close("all")


def test_infinite_time_limit_is_none():
    assert milp.solve(**KS, time_limit=float("inf")).status == "optimal"


@pytest.mark.parametrize("name,value,builtin", [
    ("time_limit", "5", TypeError), ("time_limit", True, TypeError),
    ("time_limit", 0, ValueError), ("time_limit", float("nan"), ValueError),
    ("mip_gap", -1.0, ValueError), ("mip_gap", "0", TypeError),
    ("progress", "yes", TypeError), ("presolve", 1, TypeError), ("log", "no", TypeError),
    ("constant", float("inf"), ValueError),
])
def test_bad_options_name_the_argument(name, value, builtin):
    with pytest.raises(wpart.WpartError) as info:
        milp.solve(**KS, **{name: value})
    assert isinstance(info.value, builtin)
    assert f"`{name}`" in str(info.value)


def test_progress_returning_false_cancels():
    c, A, b = market_split()
    with pytest.raises(wpart.CancelledError, match="returned False"):
        milp.solve(c, A=A, b_lower=b, b_upper=b, integrality=2, time_limit=10,
                   progress=lambda done, total: False)
