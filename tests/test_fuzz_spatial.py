"""Property-based fuzzing of every public function of wpart.spatial (issue: robustness).

Each call gets hostile arrays (every dtype, 0-d / empty / 1 x N / 3-D shapes, Fortran order,
non-contiguous, read-only, byte-swapped, NaN / inf / negative / near-int64-limit values), hostile
part counts and option values of the wrong type or range. It must either return a result that
an independent check accepts (``r.validate()`` plus loads re-summed with NumPy here, ``m`` parts,
a maximum equal to the largest load) or raise ValueError / TypeError / OverflowError /
MemoryError naming an argument; never crash, hang or modify its input. The default run tries
a few hundred inputs per function; ``-m slow`` runs many more.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wpart
import wpart.spatial as sp

TRIED: Counter = Counter()
ACCEPTED: Counter = Counter()  # calls that returned a (checked) result
INT64_MAX = np.iinfo(np.int64).max

# --- hostile arrays ---------------------------------------------------------------------------

DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, object, "U3",
]
INT_VALUES = st.one_of(
    st.integers(0, 9),
    st.integers(0, 9),
    st.sampled_from([0, 1, -1, 2**31, INT64_MAX, INT64_MAX // 4, -(2**63), 2**62]),
)
FLOAT_VALUES = st.one_of(
    st.floats(0, 10, allow_nan=False),
    st.sampled_from([0.0, -0.0, -1.0, np.nan, np.inf, -np.inf, 1e308, 5e-324, 1e300]),
)


@st.composite
def arrays(draw, ndims=(2,), valid=False):
    """An array of any dtype, shape and memory layout (small); `valid`: a non-empty numeric
    array of the accepted dimensions with small non-negative values, in any layout."""
    if valid:
        nd = draw(st.sampled_from(ndims))
        shape = tuple(draw(st.integers(1, 5 if nd < 3 else 2)) for _ in range(nd))
        dt = draw(st.sampled_from(DTYPES[:12]))
        hi = 1 if dt is np.bool_ else draw(st.sampled_from([0, 1, 9, 1000]))
        a = np.array([draw(st.integers(0, hi)) for _ in range(int(np.prod(shape)))]).astype(dt)
        a = a.reshape(shape)
        if np.dtype(dt).kind == "f" and draw(st.booleans()):
            a = a * np.asarray(0.37, dtype=dt)
        return layout_of(draw, a)
    nd = draw(st.sampled_from(sorted(set(ndims) | {0, 1, 2, 3})))
    if draw(st.integers(0, 5)) == 0:  # empty / zero-size shapes
        shape = tuple(draw(st.integers(0, 2)) for _ in range(nd))
    else:
        shape = tuple(draw(st.integers(1, 4 if nd < 3 else 2)) for _ in range(nd))
    dt = draw(st.sampled_from(DTYPES))
    n = int(np.prod(shape, dtype=np.int64))
    clean = draw(st.booleans())
    vals = [draw(st.integers(0, 9) if clean else INT_VALUES) for _ in range(n)]
    if np.dtype(dt).kind in "fc":
        vals = [float(v) for v in vals]
        if not clean:
            vals = [draw(FLOAT_VALUES) for _ in range(n)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            a = np.array(vals, dtype=object).astype(dt).reshape(shape)
        except (OverflowError, ValueError):
            a = np.zeros(shape, dtype=dt)
    return layout_of(draw, a)


def layout_of(draw, a):
    layout = draw(st.sampled_from(["c", "f", "strided", "readonly", "swapped", "list"]))
    if layout == "f":
        a = np.asfortranarray(a)
    elif layout == "strided" and a.ndim >= 1:
        big = np.repeat(a, 2, axis=-1)
        a = big[..., ::2]
    elif layout == "readonly":
        a = a.copy()
        a.flags.writeable = False
    elif layout == "swapped" and a.dtype.kind in "iuf" and a.dtype.itemsize > 1:
        a = a.astype(a.dtype.newbyteorder())
    elif layout == "list":
        return a.tolist()
    return a


PART_COUNTS = st.one_of(
    st.integers(1, 12),
    st.integers(1, 12),
    st.sampled_from(
        [0, -1, 2.0, 2.5, True, False, None, "3", np.int64(3), np.uint8(2), 2**24 + 1, 2**40,
         2**63 - 1, 2**63, 2**64, -(2**63)]
    ),
)
BAD = st.sampled_from([None, -1, 0, 1.5, True, "x", [1], float("nan"), 2**63, object()])
SMALL_INT = st.one_of(st.integers(1, 6), BAD)
BOOL = st.one_of(st.booleans(), st.sampled_from([np.bool_(True), "yes", 1, None]))
TIME = st.one_of(st.sampled_from([None, 5.0, 5]), BAD, st.sampled_from([float("inf"), -0.0]))
ORIENT = st.one_of(st.sampled_from(["hor", "ver", "best", "rows", "COLS"]), BAD)
VARIANT = st.one_of(st.sampled_from(["load", "dist", "hor", "ver"]), BAD)
TIE = st.one_of(st.sampled_from(["area", "first"]), BAD)
PHASE = st.one_of(
    st.sampled_from(["jag_m_heur", "jag_m_heur_probe", "jag_m_opt", "hier_rb", "hier_relaxed"]),
    st.sampled_from(["rect_uniform", "JAG-M-OPT", 3]),
)


@st.composite
def speeds(draw, m):
    k = m if isinstance(m, int) and 0 < m <= 12 and not isinstance(m, bool) else 3
    kind = draw(st.integers(0, 6))
    if kind <= 2:
        return None
    if kind == 3:
        return [draw(st.floats(0.1, 10)) for _ in range(k)]
    if kind == 4:
        return [draw(st.sampled_from([0.0, -1.0, np.nan, np.inf, 1e308, 1e-300, 1.0]))
                for _ in range(k)]
    if kind == 5:
        return np.ones(k + draw(st.sampled_from([-1, 1])))
    return draw(st.sampled_from([np.ones((k, 1)), ["a"] * k, np.ones(k, complex), 3.0]))


@st.composite
def valid_speeds(draw, m):
    if draw(st.booleans()):
        return None
    return [draw(st.floats(0.1, 10)) for _ in range(m)]


def int_list(draw, lo, hi, n_lo=0, n_hi=5):
    return [draw(st.integers(lo, hi)) for _ in range(draw(st.integers(n_lo, n_hi)))]


@st.composite
def stripe_cuts(draw):
    kind = draw(st.integers(0, 4))
    if kind <= 1:
        return None
    if kind == 2:
        return [0] + sorted(int_list(draw, 0, 4, 0, 4)) + [draw(st.integers(1, 4))]
    if kind == 3:
        return int_list(draw, -3, 2**62)
    return draw(st.sampled_from([[0.0, 2.0], [[0, 1]], ["0", "1"], [0, 2**63 - 1], []]))


@st.composite
def counts(draw):
    kind = draw(st.integers(0, 4))
    if kind <= 1:
        return None
    if kind <= 3:
        return int_list(draw, 1, 6, 1, 4)
    return draw(st.sampled_from([[0, 3], [-1, 5], [1.0, 2.0], [[1]], [2**63 - 1, 2**63 - 1, 3]]))


P_JAG = st.one_of(st.sampled_from(["sqrt", "theorem4", "bad"]), SMALL_INT)
P_GRID = st.one_of(st.none(), SMALL_INT)

OPTIONS = {
    "rect_uniform": {"P": P_GRID, "Q": P_GRID, "allow_empty": BOOL},
    "rect_nicol": {"P": P_GRID, "Q": P_GRID, "max_sweeps": SMALL_INT, "allow_empty": BOOL,
                   "time_limit": TIME},
    "jag_pq_heur": {"P": P_GRID, "Q": P_GRID, "orient": ORIENT, "allow_empty": BOOL,
                    "speeds": "speeds"},
    "jag_pq_opt_nicol": {"P": P_GRID, "Q": P_GRID, "orient": ORIENT, "allow_empty": BOOL,
                         "time_limit": TIME, "speeds": "speeds"},
    "jag_pq_opt_dp": {"P": P_GRID, "Q": P_GRID, "orient": ORIENT, "allow_empty": BOOL,
                      "time_limit": TIME, "speeds": "speeds"},
    "jag_m_heur": {"P": P_JAG, "orient": ORIENT, "allow_empty": BOOL, "speeds": "speeds"},
    "jag_m_probe": {"stripe_cuts": stripe_cuts(), "orient": ORIENT, "allow_empty": BOOL,
                    "speeds": "speeds"},
    "jag_m_heur_probe": {"P": P_JAG, "orient": ORIENT, "allow_empty": BOOL, "speeds": "speeds"},
    "jag_m_alloc": {"counts": counts(), "orient": ORIENT, "allow_empty": BOOL,
                    "time_limit": TIME, "speeds": "speeds"},
    "jag_m_opt": {"orient": ORIENT, "allow_empty": BOOL, "time_limit": TIME,
                  "progress": st.sampled_from([None, False]), "speeds": "speeds"},
    "jag_m_iter": {"orient": ORIENT, "max_rounds": SMALL_INT, "allow_empty": BOOL},
    "hier_rb": {"variant": VARIANT, "tie": TIE, "allow_empty": BOOL, "speeds": "speeds"},
    "hier_relaxed": {"variant": VARIANT, "tie": TIE, "allow_empty": BOOL, "speeds": "speeds"},
    "hier_opt": {"max_states": st.one_of(st.sampled_from([2e7, 1e3, 1, np.inf]), BAD),
                 "allow_empty": BOOL, "time_limit": TIME, "speeds": "speeds"},
    "hybrid": {"phase1": PHASE, "phase2_fast": PHASE, "phase2_slow": st.one_of(st.none(), PHASE),
               "m1": st.one_of(st.none(), SMALL_INT), "m1_min": st.one_of(st.none(), SMALL_INT),
               "orient": ORIENT, "variant": VARIANT, "allow_empty": BOOL, "time_limit": TIME},
    "general_optimum": {"time_limit": st.sampled_from([None, 10.0, -1, "x"]),
                        "allow_empty": BOOL},
}
VALID = {
    "P": st.none(), "Q": st.none(), "allow_empty": st.just(True),
    "max_sweeps": st.integers(1, 20), "time_limit": st.sampled_from([None, 30.0]),
    "orient": st.sampled_from(["hor", "ver", "best"]), "speeds": "speeds",
    "max_rounds": st.integers(0, 5), "variant": st.sampled_from(["load", "dist", "hor", "ver"]),
    "tie": st.sampled_from(["area", "first"]), "max_states": st.sampled_from([2e7, 1e5]),
    "progress": st.none(), "stripe_cuts": st.none(), "counts": st.none(),
    "phase1": PHASE.filter(lambda x: x in sp._hybrid._PHASES),
    "phase2_fast": PHASE.filter(lambda x: x in sp._hybrid._PHASES),
    "phase2_slow": st.one_of(st.none(), PHASE.filter(lambda x: x in sp._hybrid._PHASES)),
    "m1": st.none(), "m1_min": st.none(),
}
ND = {"hier_rb": (2, 3)}
# a str A is a file path: a missing one is a FileNotFoundError
EXPECTED = (ValueError, TypeError, OverflowError, MemoryError, FileNotFoundError)


def names_an_argument(exc: BaseException, names) -> bool:
    msg = str(exc)
    return any(f"`{n}`" in msg or f"'{n}'" in msg or msg.startswith(f"{n}: ") for n in names)


def snapshot(x):
    if isinstance(x, np.ndarray):
        return (x.copy(), x.dtype, x.shape, x.flags.writeable)
    return repr(x)


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return (
            a[1] == b[1] and a[2] == b[2] and a[3] == b[3]
            and np.array_equal(a[0], b[0], equal_nan=a[0].dtype.kind in "fc")
        )
    return a == b


def check_result(r, A, m, kw) -> None:
    """Independent acceptance of a SpatialPartition."""
    assert r.status in ("optimal", "feasible", "time_limit"), r.status
    if not r.success:  # only a time limit may leave no partition
        assert r.status == "time_limit" and "time_limit" in kw and r.rects.shape[0] == 0
        assert r.m == int(m) and r.to_dict()["success"] is False
        return
    r.validate()
    A = np.asarray(A)
    A64 = A.astype(np.float64 if A.dtype.kind == "f" else np.int64)
    assert r.m == int(m)
    assert r.rects.shape == (int(m), 2 * A64.ndim)
    for k, rk in enumerate(r.rects.tolist()):
        sl = tuple(slice(rk[2 * d], rk[2 * d + 1]) for d in range(A64.ndim))
        direct = A64[sl].sum()
        if A64.dtype.kind == "f":
            assert abs(direct - r.loads[k]) <= 1e-9 * max(1.0, float(np.abs(A64).sum()))
        else:
            assert int(direct) == int(r.loads[k])
    if r.speeds is None:
        assert r.max_load == r.loads.max()
    else:
        assert r.max_load == (r.loads / r.speeds).max()
    if r.status == "optimal":  # only the exact methods claim an optimum
        assert r.method == "general_milp" or (r.method in sp.TABLE and sp.TABLE[r.method].exact)


def run_one(name: str, data) -> None:
    fn = getattr(sp, name)
    valid = data.draw(st.booleans(), label="valid")
    A = data.draw(arrays(ND.get(name, (2,)), valid), label="A")
    m = data.draw(st.integers(1, 12) if valid else PART_COUNTS, label="m")
    kw = {}
    for key, strat in OPTIONS[name].items():
        if valid and key in ("P", "Q", "stripe_cuts", "counts") and data.draw(st.booleans()):
            continue
        if valid and key in VALID:
            strat = VALID[key]
        if (valid and key == "allow_empty") or data.draw(st.booleans()):
            if strat == "speeds":
                kw[key] = data.draw(valid_speeds(m) if valid else speeds(m), label=key)
            else:
                kw[key] = data.draw(strat, label=key)
    if name == "general_optimum" and isinstance(A, np.ndarray) and A.size > 6:
        A = A.ravel()[:4].reshape(2, 2) if A.size >= 4 else A
    before = {k: snapshot(v) for k, v in [("A", A)] + list(kw.items())}
    TRIED[name] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(A, m, **kw)
        except wpart.WpartLimitError as exc:  # documented limits only (also a ValueError)
            assert name == "hier_opt" and "`max_states`" in str(exc), exc
            r = None
        except EXPECTED as exc:
            assert names_an_argument(exc, ["A", "m", *kw]), f"{type(exc).__name__}: {exc}"
            r = None
    for k, v in [("A", A)] + list(kw.items()):
        assert same(before[k], snapshot(v)), f"`{k}` was modified"
    if r is not None:
        check_result(r, A, m, kw)
        ACCEPTED[name] += 1


FUNCS = sorted(OPTIONS)


@pytest.mark.parametrize("name", FUNCS)
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_method(name, data):
    run_one(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", FUNCS)
@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_method_slow(name, data):
    run_one(name, data)


def run_partition(data) -> None:
    name = data.draw(st.sampled_from(list(sp.METHODS) + ["JAG-M-OPT", "nope", 3]), label="method")
    valid = data.draw(st.booleans(), label="valid")
    A = data.draw(arrays((2,), valid), label="A")
    m = data.draw(st.integers(1, 12) if valid else PART_COUNTS, label="m")
    kw = {"allow_empty": True} if valid else {}
    if not valid and isinstance(name, str) and name in OPTIONS:
        for key, strat in OPTIONS[name].items():
            if data.draw(st.booleans()):
                kw[key] = data.draw(speeds(m) if strat == "speeds" else strat, label=key)
    if data.draw(st.integers(0, 9)) == 0:
        kw["bogus"] = 1
    TRIED["partition"] += 1
    before = snapshot(A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = sp.partition(A, m, method=name, **kw)
        except EXPECTED as exc:
            assert names_an_argument(exc, ["A", "m", "method", *kw]), f"{exc!r}"
            r = None
        except wpart.WpartError as exc:
            assert "state" in str(exc), exc
            r = None
    assert same(before, snapshot(A))
    if r is not None:
        check_result(r, A, m, kw)
        ACCEPTED["partition"] += 1


def run_allocate(data) -> None:
    valid = data.draw(st.booleans(), label="valid")
    L = data.draw(arrays((1,), valid), label="loads")
    m = data.draw(st.integers(1, 40) if valid else PART_COUNTS, label="m")
    cap = data.draw(st.one_of(st.none(), arrays((1,), valid)), label="cap")
    TRIED["allocate"] += 1
    before = (snapshot(L), snapshot(cap))
    try:
        q = sp.allocate(L, m, cap=cap)
    except EXPECTED as exc:
        assert names_an_argument(exc, ["loads", "m", "cap"]), f"{exc!r}"
        q = None
    assert same(before[0], snapshot(L)) and same(before[1], snapshot(cap))
    if q is not None:
        Ln = np.asarray(L)
        assert q.dtype == np.int64 and q.shape == (Ln.size,)
        assert (q >= 1).all() and int(q.sum()) == int(m)
        ACCEPTED["allocate"] += 1


def run_factor_pair(data) -> None:
    m, n1, n2 = (data.draw(st.one_of(st.integers(1, 10**6), PART_COUNTS)) for _ in range(3))
    TRIED["factor_pair"] += 1
    try:
        P, Q = sp.factor_pair(m, n1, n2)
    except EXPECTED as exc:
        assert names_an_argument(exc, ["m", "n1", "n2"]), f"{exc!r}"
        return
    assert P * Q == m and P >= 1 and Q >= 1
    ACCEPTED["factor_pair"] += 1


EXTRA = {"partition": run_partition, "allocate": run_allocate, "factor_pair": run_factor_pair}


@pytest.mark.parametrize("name", sorted(EXTRA))
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_helper(name, data):
    EXTRA[name](data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXTRA))
@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_helper_slow(name, data):
    EXTRA[name](data)


def test_zz_every_function_accepts_and_refuses(capsys):
    """Every fuzzed function returned a checked result on some inputs and refused others (the
    fuzz runs above count them; a function not fuzzed yet in this session, e.g. under ``-k``,
    is fuzzed here first). The counts are printed with ``-s``."""
    for name in FUNCS + sorted(EXTRA):
        if TRIED[name] < 50:
            runner = EXTRA.get(name) or (lambda data, name=name: run_one(name, data))
            settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))(
                given(data=st.data())(runner))()
    with capsys.disabled():
        print("\nfuzz inputs per function (tried, returned a result):")
        for k in sorted(TRIED):
            print(f"  {k}: {TRIED[k]}, {ACCEPTED[k]}")
    for name in FUNCS + sorted(EXTRA):
        assert ACCEPTED[name] > 0, f"{name}: no fuzzed input was accepted ({TRIED[name]} tried)"
        assert ACCEPTED[name] < TRIED[name], f"{name}: every fuzzed input was accepted"
