"""wpart.spatial speaks the shared vocabulary: the method table matches the core's enum, bad
arguments raise WpartError subclasses naming the argument, SpatialPartition follows the result
protocol, a time limit is a status (with the best partition found when there is one), and the
renamed fields warn."""

from __future__ import annotations

import dataclasses
import inspect
import json
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import wpart  # noqa: E402
from wpart import _core  # noqa: E402
from wpart import spatial  # noqa: E402
from wpart.spatial import instances as I  # noqa: E402

A = np.random.default_rng(0).integers(0, 50, (24, 24))


# ---- the method table and the core's enum ---------------------------------------------------

def test_method_table_matches_the_core_enum():
    T = spatial.TABLE
    assert spatial.METHODS == T.names
    codes = [m.code for m in T if m.code is not None]
    assert len(set(codes)) == len(codes)
    exported = {k[3:].lower(): getattr(_core, k) for k in dir(_core)
                if k.startswith("SP_") and not k.startswith(("SP_RULE_", "SP_HOR", "SP_VER",
                                                             "SP_BEST"))}
    assert exported == {m.name: m.code for m in T if m.code is not None}  # None: own binding
    for m in T:  # every name is accepted by the core and gives a tiling
        r = spatial.partition(A, 4, method=m.name)
        r.validate()
        assert r.method == m.name
        assert r.status == ("optimal" if m.exact else "feasible")
    # an unknown code is refused by the core
    S = wpart.prefix_sum(A)
    with pytest.raises(wpart.WpartValueError,
                       match=r"^unknown\ method\ 14\ \(invalid\ argument\)"):
        _core.spatial_partition(S, 4, max(codes) + 1)


def test_method_options_are_the_functions_keywords():
    for m in spatial.TABLE:
        fn = getattr(spatial, m.name)
        sig = inspect.signature(fn)
        kw = {p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY}
        assert kw == set(m.options), m.name
    assert "| `jag_m_opt` | yes |" in spatial.partition.__doc__


def test_partition_checks_options_and_names():
    assert spatial.partition(A, 4, method="JAG-M-OPT").method == "jag_m_opt"
    with pytest.raises(wpart.WpartTypeError, match="`rect_uniform` takes no option `speeds`"):
        spatial.partition(A, 4, method="rect_uniform", speeds=[1.0] * 4)
    with pytest.raises(wpart.WpartValueError, match="`method` must be one of"):
        spatial.partition(A, 4, method="nope")
    with pytest.raises(TypeError,
                       match=r"^partition\(\)\ takes\ 2\ positional\ arguments\ but\ 3\ were\ given;\ the\ options\ after\ them\ are\ keyword\-only"):
        spatial.partition(A, 4, "jag_m_opt")  # type: ignore[misc]


# ---- bad values: WpartError subclasses that are the matching built-in and name the argument --

CALLS = {
    "partition": lambda **kw: spatial.partition(kw.pop("A", A), kw.pop("m", 4),
                                                method=kw.pop("method", "jag_m_heur"), **kw),
    "jag_m_opt": lambda **kw: spatial.jag_m_opt(kw.pop("A", A), kw.pop("m", 4), **kw),
    "hier_opt": lambda **kw: spatial.hier_opt(kw.pop("A", A[:8, :8]), kw.pop("m", 4), **kw),
    "hybrid": lambda **kw: spatial.hybrid(kw.pop("A", A), kw.pop("m", 8), **kw),
}
BAD = [
    ("m", dict(m=0), ValueError), ("m", dict(m="3"), TypeError), ("m", dict(m=True), TypeError),
    ("m", dict(m=2.0), TypeError),
    ("time_limit", dict(time_limit="5"), TypeError),
    ("time_limit", dict(time_limit=True), TypeError),
    ("time_limit", dict(time_limit=0), ValueError),
    ("time_limit", dict(time_limit=float("nan")), ValueError),
    ("speeds", dict(speeds=[1.0, 2.0]), ValueError),
    ("speeds", dict(speeds=[1.0, -1.0, 1.0, 1.0]), ValueError),
    ("speeds", dict(speeds=["a"] * 4), TypeError),
    ("allow_empty", dict(allow_empty="yes"), TypeError),
    ("A", dict(A=[[1, -2], [3, 4]]), ValueError),
]


@pytest.mark.parametrize("fname", sorted(CALLS))
@pytest.mark.parametrize("name,kw,builtin", BAD, ids=[f"{n}={v}" for n, v, _ in BAD])
def test_bad_values_name_the_argument(fname, name, kw, builtin):
    if fname in ("partition", "hybrid") and name in ("time_limit", "speeds"):
        if fname == "partition":
            kw = dict(kw, method="jag_m_opt")
        elif name == "speeds":
            pytest.skip("HYBRID takes no speeds")
    with pytest.raises(wpart.WpartError) as info:
        CALLS[fname](**dict(kw))
    assert isinstance(info.value, builtin), type(info.value).__mro__
    assert f"`{name}`" in str(info.value)


def test_bad_progress_and_seed():
    with pytest.raises(wpart.WpartTypeError, match="`progress`"):
        spatial.jag_m_opt(A, 4, progress="yes")
    for bad, builtin in (("x", TypeError), (True, TypeError), (1.5, TypeError),
                         (-1, ValueError)):
        with pytest.raises(wpart.WpartError, match="`seed`") as info:
            I.diagonal(8, seed=bad)
        assert isinstance(info.value, builtin)


# ---- the result protocol --------------------------------------------------------------------

@pytest.mark.parametrize("method,kw", [("jag_m_heur", {}), ("jag_m_opt", {"time_limit": 60}),
                                       ("hier_relaxed", {"speeds": [1.0, 2.0, 1.0, 3.0]})])
def test_result_protocol(method, kw):
    r = spatial.partition(A, 4, method=method, **kw)
    assert isinstance(r, wpart.Result) and r.success and r.message
    assert r == spatial.partition(A, 4, method=method, **kw)
    assert r == dataclasses.replace(r)
    assert r != spatial.partition(A.T, 4, method=method, **kw)
    assert len(repr(r).splitlines()) <= 5 and "%" in repr(r)
    d = r.to_dict()
    json.dumps(d)
    assert d["status"] == r.status and d["success"] is True and "A" not in d
    fig, ax = plt.subplots()
    assert r.plot(ax=ax) is ax
    plt.close("all")


def test_imbalance_is_speed_aware():
    # jag_m_opt 0.3 % off its speed-aware bound must not report 100 %
    A1 = np.ones((32, 32), dtype=np.int64)
    sp = np.array([1.0, 3.0])
    r = spatial.jag_m_opt(A1, 2, speeds=sp)
    mean = A1.sum() / sp.sum()
    assert r.avg_load == pytest.approx(mean)
    assert r.max_load == pytest.approx((r.loads / sp).max())
    assert r.imbalance == pytest.approx(r.max_load / mean - 1) and r.imbalance < 0.05
    assert r.lower_bound == pytest.approx(max(mean, 1 / 3))
    assert r.gap == pytest.approx(r.max_load / r.lower_bound - 1)
    r.validate()


def test_deprecated_aliases_warn():
    r = spatial.jag_m_heur(A, 4, speeds=[1.0, 2.0, 1.0, 2.0])
    with pytest.warns(DeprecationWarning, match="bottleneck"):
        assert r.bottleneck == r.max_load
    with pytest.warns(DeprecationWarning, match="gap_lb"):
        assert r.gap_lb == r.gap
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ = r.max_load, r.gap


# ---- time limits ----------------------------------------------------------------------------

BIG = I.uniform(512, delta=1.2, seed=0)


def test_jag_m_opt_time_limit_returns_the_incumbent():
    r = spatial.jag_m_opt(BIG, 3000, orient="hor", time_limit=0.01)
    assert r.status == "time_limit" and r.success and "time limit" in r.message
    r.validate()
    # the incumbent is JAG-M-HEUR-PROBE's partition (or a finished optimum)
    assert r.max_load <= spatial.jag_m_heur_probe(BIG, 3000, orient="hor").max_load
    assert r == dataclasses.replace(r) and len(repr(r).splitlines()) <= 5


@pytest.mark.parametrize("orient", ["hor", "best"])
def test_jag_m_opt_limit_before_the_incumbent_runs_both_heuristics(orient):
    # a limit that ends the search inside its first step (JAG-M-HEUR-PROBE) left no
    # incumbent: the result is the better of that heuristic and JAG-M-ALLOC, run to their end
    r = spatial.jag_m_opt(BIG, 3000, orient=orient, time_limit=1e-9)
    assert r.status == "time_limit" and r.success
    r.validate()
    probe = spatial.jag_m_heur_probe(BIG, 3000, orient="hor").max_load
    alloc = spatial.jag_m_alloc(BIG, 3000, orient="hor").max_load
    assert (probe, alloc) == (99434, 99621)
    assert r.max_load == probe and r.params["incumbent"] == "jag_m_heur_probe"
    assert "JAG-M-HEUR-PROBE's, run after the search" in r.message


def test_rect_nicol_time_limit_returns_the_current_grid():
    r = spatial.rect_nicol(BIG, 4096, time_limit=1e-4)
    assert r.status == "time_limit" and r.success
    r.validate()
    assert r.max_load <= spatial.rect_uniform(BIG, 4096).max_load


def test_time_limit_before_any_partition():
    # HIER-OPT's DP has no incumbent (JAG-M-OPT with speeds now falls back on JAG-M-ALLOC's)
    r = spatial.hier_opt(BIG[:30, :30], 64, time_limit=0.01)
    assert r.status == "time_limit" and not r.success and r.rects.shape == (0, 4)
    assert r.m == 64 and r.lower_bound > 0 and np.isnan(r.max_load)
    assert len(repr(r).splitlines()) <= 5
    json.dumps(r.to_dict())
    fig, ax = plt.subplots()
    assert r.plot(ax=ax) is ax
    plt.close("all")
    with pytest.raises(wpart.WpartValueError, match="no partition"):
        r.validate()


def test_hybrid_time_limit_is_a_status():
    r = spatial.hybrid(BIG, 2000, time_limit=0.01)
    assert r.status == "time_limit"
    if r.success:
        r.validate()


def test_progress_returning_false_cancels():
    with pytest.raises(wpart.CancelledError, match="returned False"):
        spatial.jag_m_opt(BIG, 3000, progress=lambda d, t: False)


def test_every_method_reports_its_time():
    """``stats["seconds"]`` is the time the method's work took: above 0 and within the call's
    wall time, for every method (the grid methods reported 0.0 before; reproduce's Fig. 9 row
    then read 0.0x)."""
    import time

    B = I.uniform(96, delta=1.2, seed=0)
    for name in spatial.METHODS:
        X = B[:24, :24] if name == "hier_opt" else B  # (its DP's states grow as n^4 m)
        t0 = time.perf_counter()
        r = spatial.partition(X, 16, method=name)
        wall = time.perf_counter() - t0
        assert 0.0 < r.stats["seconds"] <= wall, name
    import scipy.sparse as sps

    S = sps.random(2000, 2000, density=0.002, random_state=1, format="csr")
    t0 = time.perf_counter()
    r = spatial.rect_nicol(S, 64, P=8, Q=8)  # the one-call default on a CSR matrix
    assert 0.0 < r.stats["seconds"] <= time.perf_counter() - t0


def test_a_directory_is_not_a_matrix_file(tmp_path):
    for call in (spatial.read_matrix, lambda p: spatial.rect_nicol(p, 4),
                 lambda p: spatial.partition(p, 4)):
        with pytest.raises(wpart.WpartValueError, match="is a directory, not a MatrixMarket"):
            call(tmp_path)
