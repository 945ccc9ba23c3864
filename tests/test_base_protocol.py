"""partition_1d speaks the shared vocabulary: the method table matches the core's enum, bad
arguments raise WpartError subclasses naming the argument, Partition1D follows the result
protocol, a time limit is a status, and the renamed fields warn."""

from __future__ import annotations

import dataclasses
import json
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import wpart  # noqa: E402
from wpart import _core  # noqa: E402
from wpart._base import TABLE_1D  # noqa: E402

LOADS = np.arange(1, 50)


# ---- the method table and the core's enum ---------------------------------------------------

def test_method_table_matches_the_core_enum():
    codes = [m.code for m in TABLE_1D]
    assert len(set(codes)) == len(codes)
    assert wpart.METHODS_1D == TABLE_1D.names
    exported = {k: getattr(_core, k) for k in dir(_core) if k.startswith("BASE_1D_")}
    assert sorted(exported.values()) == sorted(codes)
    for m in TABLE_1D:
        assert exported[f"BASE_1D_{m.name.upper()}"] == m.code
        # every code is accepted by the core, and gives the method's answer
        seps, _, _ = _core.partition_1d(LOADS, 4, m.code, None, True, None, 0.0)
        r = wpart.partition_1d(LOADS, 4, method=m.name)
        np.testing.assert_array_equal(seps, r.separators)
        assert r.exact == m.exact and r.status == ("optimal" if m.exact else "feasible")
    with pytest.raises(ValueError, match="`method`"):
        _core.partition_1d(LOADS, 4, max(codes) + 1, None, True, None, 0.0)
    assert "| `nicol` | yes |" in wpart.partition_1d.__doc__


def test_aliases_and_bad_methods():
    assert wpart.partition_1d(LOADS, 3, method="DC").method == "direct_cut"
    assert wpart.partition_1d(LOADS, 3, method="rb").method == "recursive_bisection"
    with pytest.raises(wpart.WpartValueError, match="`method` must be one of"):
        wpart.partition_1d(LOADS, 3, method="fastest")
    with pytest.raises(wpart.WpartTypeError, match="`method`"):
        wpart.partition_1d(LOADS, 3, method=1)


def test_options_are_keyword_only():
    with pytest.raises(TypeError,
                       match=r"^partition_1d\(\)\ takes\ 2\ positional\ arguments\ but\ 3\ were\ given;\ the\ options\ after\ them\ are\ keyword\-only"):
        wpart.partition_1d(LOADS, 3, "dp")  # type: ignore[misc]


# ---- bad values: WpartError subclasses that are the matching built-in and name the argument --

BAD = [
    ("m", dict(m=0), ValueError), ("m", dict(m="3"), TypeError), ("m", dict(m=True), TypeError),
    ("m", dict(m=2.0), TypeError), ("m", dict(m=-4), ValueError),
    ("time_limit", dict(time_limit="5"), TypeError), ("time_limit", dict(time_limit=True),
                                                      TypeError),
    ("time_limit", dict(time_limit=0), ValueError), ("time_limit", dict(time_limit=-1.0),
                                                     ValueError),
    ("time_limit", dict(time_limit=float("nan")), ValueError),
    ("progress", dict(progress="yes"), TypeError), ("progress", dict(progress=3), TypeError),
    ("speeds", dict(speeds=[1.0, 2.0]), ValueError), ("speeds", dict(speeds=[1.0, 0.0, 1.0]),
                                                      ValueError),
    ("speeds", dict(speeds=["a", "b", "c"]), TypeError),
    ("speeds", dict(speeds=[1.0, np.nan, 1.0]), ValueError),
    ("normalize", dict(normalize="no"), TypeError),
    ("loads", dict(loads=[1, -2, 3]), ValueError), ("loads", dict(loads="abc"), TypeError),
]


@pytest.mark.parametrize("name,kw,builtin", BAD, ids=[f"{n}={v}" for n, v, _ in BAD])
def test_bad_values_name_the_argument(name, kw, builtin):
    args = {"loads": LOADS, "m": 3}
    args.update(kw)
    loads, m = args.pop("loads"), args.pop("m")
    with pytest.raises(wpart.WpartError) as info:
        wpart.partition_1d(loads, m, **args)
    assert isinstance(info.value, builtin), type(info.value).__mro__
    assert f"`{name}`" in str(info.value)


def test_infinite_time_limit_is_none():
    r = wpart.partition_1d(LOADS, 4, time_limit=float("inf"))
    assert r.status == "optimal" and r.success


# ---- the result protocol --------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"speeds": [1.0, 2.0, 3.0]}, {"method": "direct_cut"}])
def test_partition_1d_result_protocol(kw):
    r = wpart.partition_1d(LOADS, 3, **kw)
    assert isinstance(r, wpart.Result) and r.success and r.message
    again = wpart.partition_1d(LOADS, 3, **kw)
    assert r == again and r == dataclasses.replace(r)
    assert r != wpart.partition_1d(LOADS[::-1], 3, **kw)
    assert len(repr(r).splitlines()) <= 5 and "%" in repr(r)
    d = r.to_dict()
    json.dumps(d)
    assert d["status"] == r.status and d["success"] is True and d["gap"] == r.gap
    fig, ax = plt.subplots()
    assert r.plot(ax=ax) is ax
    assert r.plot() is not None
    plt.close("all")


def test_max_load_and_imbalance_are_speed_aware():
    sp = np.array([1.0, 2.0, 3.0])
    r = wpart.partition_1d(LOADS, 3, speeds=sp)
    assert r.max_load == pytest.approx((r.loads / sp).max())
    mean = LOADS.sum() / sp.sum()
    assert r.imbalance == pytest.approx(r.max_load / mean - 1)
    assert r.gap == pytest.approx(r.max_load / r.lower_bound - 1)
    assert 0 <= r.imbalance < 0.05


def test_deprecated_aliases_warn():
    r = wpart.partition_1d(LOADS, 3, speeds=[1.0, 2.0, 3.0])
    with pytest.warns(DeprecationWarning, match="bottleneck"):
        assert r.bottleneck == r.max_load
    with pytest.warns(DeprecationWarning, match="gap_lb"):
        assert r.gap_lb == r.gap
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ = r.max_load, r.gap  # the new names do not warn


def test_time_limit_status_without_answer():
    a = np.random.default_rng(0).integers(0, 1000, 2_000_000)
    r = wpart.partition_1d(a, 20_000, method="dp", time_limit=0.01)
    assert r.status == "time_limit" and not r.success
    assert r.m == 20_000 and r.n == a.size and r.separators.size == 0
    assert r == dataclasses.replace(r)
    assert len(repr(r).splitlines()) <= 5
    json.dumps(r.to_dict())
    fig, ax = plt.subplots()
    assert r.plot(ax=ax) is ax
    plt.close("all")
