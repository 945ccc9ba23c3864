"""The reproductions of the second hostile-input round (#30) in the hetero, dynamic and base
areas, each as written in the report, plus the oracles that keep the fixes exact.

The standing fuzz over every public entry point is tests/test_fuzz_hostile.py; Ctrl-C
latency is tests/test_sigint.py.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import wpart
import wpart.dynamic as wd

# ------------------------------------------------------------------ round_blocks (item 1, 2) --


@pytest.mark.parametrize("x", [2.0**62, 1e18, float(2**64 - 1), 1e308])
def test_round_blocks_huge_x_cont_sums_to_S(x):
    t = time.process_time()
    b, T = wd.round_blocks([wd.Affine(0, 1.0), wd.Affine(0, 2.0)], np.array([x, x]), 10)
    assert time.process_time() - t < 2.0  # was > 30 s for 1e18 (a quantum at a time)
    assert b.dtype == np.int64 and int(b.sum()) == 10 and (b >= 0).all()
    assert b.tolist() == [3, 7] and T == 3.5  # the discrete optimum


@pytest.mark.parametrize("S", [2**62, 2**62 + 7, 2**63 - 2**10, 2**63 - 1])
@pytest.mark.parametrize("x", [0.0, 1.0, 2.0**62, 1e30])
def test_round_blocks_sums_never_overflow(S, x):
    # (plain curves: the greedy's last quanta cost a Python call each)
    b, T = wd.round_blocks([lambda v: v, lambda v: v / 2], np.array([x, x]), S,
                           quantum=3 if S % 3 == 0 else 1)
    assert sum(int(v) for v in b) == S and (b >= 0).all()
    if x != 2.0**62:  # (from 2^62 each the rule takes back from the slowest PU only)
        assert abs(int(b[0]) - S / 3) <= 1e-9 * S + 3  # the continuous optimum (S/3, 2S/3)


def _remove_one_at_a_time(fs, xc, S, q):
    """The rule the bulk lowering must reproduce: floor, then take quanta back from the slowest
    PU (ties to the lowest), one at a time; then hand out quanta to the PU finishing first."""
    n = len(fs)
    b = [min(q * math.floor(x / q), S) for x in xc]
    tot = sum(b)
    while tot > S:
        best = min((-fs[p](b[p]), p) for p in range(n) if b[p] > 0)[1]
        step = min(b[best] % q or q, b[best], tot - S)
        b[best] -= step
        tot -= step
    r = S - tot
    while r >= q:
        best = min((fs[p](b[p] + q), p) for p in range(n))[1]
        b[best] += q
        r -= q
    if r:
        best = min((fs[p](b[p] + r), p) for p in range(n))[1]
        b[best] += r
    return b


def test_round_blocks_bulk_lowering_equals_one_at_a_time():
    # x_cont far above S: the level bisection keeps the result of the quantum-by-quantum
    # removal bit for bit (integer affine curves: exact times, many ties)
    rng = np.random.default_rng(30)
    for _ in range(150):
        n = int(rng.integers(1, 8))
        a = rng.integers(1, 4, n)
        c = rng.integers(0, 3, n)
        fs = [lambda x, a=int(a[p]), c=int(c[p]): float(a * x + c) for p in range(n)]
        q = int(rng.integers(1, 6))
        S = int(rng.integers(q, 60 * q + q))
        xc = S * rng.uniform(1.5, 12.0, n) + rng.integers(0, 3 * q, n)
        want = _remove_one_at_a_time(fs, xc, S, q)
        got, _ = wd.round_blocks(fs, xc, S, quantum=q)
        assert got.tolist() == want, (n, S, q, xc)


def test_round_blocks_ub_cannot_meet_S():
    with pytest.raises(wpart.WpartValueError, match="ub"):
        wd.round_blocks([wd.Affine(0, 1.0), wd.Affine(0, 2.0)], np.array([5.0, 5.0]), 10,
                        ub=[2, 3])


# ------------------------------------------------------------- counts and sizes (item 4) --

import wpart.hetero as wh  # noqa: E402


def test_synthetic_many_processors_is_vectorised():
    t = time.process_time()
    ps = wh.synthetic(m=1000)
    assert ps.m == 1000 and ps[999].name == "gpu2_199"
    assert time.process_time() - t < 10.0  # was 21 s (pure Python per processor and point)


def test_synthetic_same_structure_as_the_scalar_streams():
    # the vectorised streams are the scalar hash, bit for bit
    from wpart.hetero import _synth as S
    u = S._u_np(7, np.arange(3, dtype=np.uint64), 5, 2)
    assert all(u[i, k] == S._u(7, i, k, 2) for i in range(3) for k in range(5))
    assert S._smooth127(np.array([1, 127, 254, 131, 2 * 131, 2**40, 3**20 * 127])).tolist() == [
        True, True, True, False, False, True, True]


@pytest.mark.parametrize("m", [2**24 + 1, 2**31, 2**40])
def test_synthetic_m_capped(m):
    with pytest.raises((wpart.WpartValueError, wpart.WpartMemoryError), match="`m`"):
        wh.synthetic(m=m)


def test_synthetic_hi_step_capped():
    with pytest.raises(wpart.WpartValueError, match="`hi`"):
        wh.synthetic(hi=2**62, step=1)
    with pytest.raises(wpart.WpartMemoryError, match="`m`"):
        wh.synthetic(m=2**24, hi=64 * 450)


@pytest.mark.parametrize("n", [2**24 + 1, 2**31, 2**40])
def test_linear_profiles_n_points_capped(n):
    with pytest.raises(wpart.WpartValueError, match="`n_points`"):
        wh.linear_profiles([1.0, 2.0], [1.0, 1.0], n)


def test_linear_profiles_memory_estimate():
    with pytest.raises(wpart.WpartMemoryError, match="`n_points`"):
        wh.linear_profiles([1.0] * 4096, [1.0] * 4096, 2**24)


# ------------------------------------------------------------ bare built-in errors (item 5) --

R = [[1, 2], [3]]
HOSTILE_ARRAYS = [R, {"a": 1}, np.array([1.0, None], dtype=object), "12", {1, 2}]


@pytest.mark.parametrize("bad", HOSTILE_ARRAYS, ids=["ragged", "dict", "None", "str", "set"])
@pytest.mark.parametrize("call", [
    lambda b: wh.hypervolume(b, [1.0, 2.0], (3.0, 3.0)),
    lambda b: wh.hypervolume([1.0, 2.0], b, (3.0, 3.0)),
    lambda b: wh.classify(b, [1, 2]),
    lambda b: wh.classify([1, 2], b),
    lambda b: wh.additivity_report(b, [[1.0, 2.0]]),
    lambda b: wh.additivity_report([1.0, 2.0], [b]),
    lambda b: wh.additivity_report([1.0, 2.0], b),
    lambda b: wh.dynamic_energy(b, 1.0, [1.0, 1.0]),
    lambda b: wh.dynamic_energy([5.0, 6.0], 1.0, b),
    lambda b: wd.solve_equal_time([wd.Affine(0, 1.0), wd.Affine(0, 2.0)], 10, lb=b),
    lambda b: wd.round_blocks([wd.Affine(0, 1.0), wd.Affine(0, 2.0)], b, 10),
    lambda b: wd.round_blocks([wd.Affine(0, 1.0), wd.Affine(0, 2.0)], [5.0, 5.0], 10, lb=b),
], ids=["hv-time", "hv-energy", "classify-dist", "classify-bal", "add-par", "add-ind-row",
        "add-ind", "de-total", "de-duration", "solve-lb", "round-x", "round-lb"])
def test_hostile_arrays_raise_wpart_errors(call, bad):
    with pytest.raises(wpart.WpartError):
        call(bad)


def test_dynamic_energy_empty_and_dict():
    with pytest.raises(wpart.WpartValueError, match="`duration`"):
        wh.dynamic_energy(np.array([5.0, 6.0]), 1.0, np.empty((3, 0)))
    with pytest.raises(wpart.WpartTypeError, match="`duration`"):
        wh.dynamic_energy(np.array([5.0, 6.0]), 1.0, {"a": 1})
    assert wh.dynamic_energy(100.0, 20.0, 2.0) == 60.0  # scalars stay scalars


# ----------------------------------------------------------------- NaN refused (item 7) --


def test_nan_refused_in_additivity_and_dynamic_energy():
    with pytest.raises(wpart.WpartValueError, match="NaN"):
        wh.additivity_report(np.array([1.0, np.nan]), [np.array([1.0, 2.0])])
    with pytest.raises(wpart.WpartValueError, match="NaN"):
        wh.additivity_report([1.0, 2.0], [[1.0, np.nan]])
    with pytest.raises(wpart.WpartValueError, match="NaN"):
        wh.dynamic_energy(np.array([5.0, None], dtype=object), 1.0, np.ones(2))
    with pytest.raises(wpart.WpartValueError, match="NaN"):
        wh.dynamic_energy(np.array([5.0, 6.0]), 1.0, [np.nan, 1.0])


def test_device_count_capped():
    # the number of PUs of a balancer (devices) is under the same 2^24 cap as m
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        wd.make_balancer("greedy", 2**24 + 1, 64)
    assert wd.make_balancer("greedy", 2, 64) is not None


# ------------------------------------------- other areas' fuzz findings (tasks, multikernel,
# dynamic.compare): each reproduction refused with a WpartError naming the argument ---------

def _sparse_rows() -> object:
    ss = pytest.importorskip("scipy.sparse")
    return ss.coo_array(([1.0], ([0], [0])), shape=(2**40, 3))


def _platform() -> wd.Platform:
    return wd.Platform([wd.Device("cpu", 0, wd.Affine(0.0, 1.0)),
                        wd.Device("gpu", 1, wd.Affine(0.0, 2.0))], n=64)


@pytest.mark.parametrize("arg", ["loads", "block_sizes", "volumes"])
def test_paper_toy_sparse_refused_not_iterated(arg):
    import wpart.tasks as wt
    t = time.process_time()
    with pytest.raises(wpart.WpartTypeError,
                       match=rf"^`{arg}` must be a dense array or a sequence of numbers, "
                             r"got coo_array$"):
        wt.paper_toy(**{arg: _sparse_rows()})  # iterated 2**40 rows (hung) before
    assert time.process_time() - t < 2.0


@pytest.mark.parametrize("arg", ["loads", "block_sizes", "volumes"])
@pytest.mark.parametrize("bad", [None, 1e18, -3, np.array(1.0)], ids=["None", "1e18", "-3", "0-d"])
def test_paper_toy_non_sequences_refused(arg, bad):
    import wpart.tasks as wt
    if bad is None:
        err, msg = wpart.WpartTypeError, rf"^`{arg}` must be an array of numbers, got None$"
    else:
        err, msg = wpart.WpartValueError, rf"^`{arg}` must be 1-D, got 0-D \(shape \(\)\)$"
    with pytest.raises(err, match=msg):
        wt.paper_toy(**{arg: bad})


def test_tasks_ragged_initial_and_assignment_refused():
    import wpart.tasks as wt
    p = wt.paper_toy()
    msg = r"must be a 1-D array of integers \(setting an array element with a sequence"
    with pytest.raises(wpart.WpartTypeError, match=r"^`initial` " + msg):
        wt.balance(p, initial=[[1, 2], [3]])
    with pytest.raises(wpart.WpartTypeError, match=r"^`assignment` " + msg):
        wt.evaluate(p, assignment=[[1, 2], [3]])
    with pytest.raises(wpart.WpartTypeError, match=r"^`initial` " + msg):
        wt.run_protocol(p, initial=[[1, 2], [3]])
    assert wt.evaluate(p, assignment=[0, 1, 1]).success  # a valid one still works


@pytest.mark.parametrize("fn", ["milp_model", "solve_milp", "run_protocol"])
@pytest.mark.parametrize("bad", [[1, 2], {}, None, 1.0, np.zeros(3), "p", "sparse"],
                         ids=["list", "dict", "None", "float", "ndarray", "str", "sparse"])
def test_tasks_non_problem_refused(fn, bad):
    import wpart.tasks as wt
    if isinstance(bad, str) and bad == "sparse":
        bad = _sparse_rows()
    with pytest.raises(wpart.WpartTypeError,
                       match=r"^`problem` must be a wpart\.tasks\.Problem \(e\.g\. from "
                             rf"read_lbdatafile or Problem\(\.\.\.\)\), got {type(bad).__name__}$"):
        getattr(wt, fn)(bad)


@pytest.mark.parametrize("bad", [None, 3, 1e18, np.array(1.0), "sparse"],
                         ids=["None", "int", "1e18", "0-d", "sparse"])
def test_multikernel_quantum_non_sequences_refused(bad):
    import wpart.multikernel as mk
    if isinstance(bad, str):
        bad = _sparse_rows()  # iterated 2**40 rows (hung) before
    t = time.process_time()
    with pytest.raises(wpart.WpartTypeError,
                       match=rf"^`constraints` must be a sequence, got {type(bad).__name__}$"):
        mk.quantum(bad)
    assert time.process_time() - t < 2.0
    assert mk.quantum([(1024, 256), (3, 64)]) == 64


_X = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
_Y = [1.0, 2.0, 3.0]
_RAGGED = r"is not a rectangular array of numbers \(ragged or mixed nesting\)"
_DENSE = r"must be a dense array or a sequence of numbers, got "


@pytest.mark.parametrize("args, err, msg", [
    (([[1, 2], [3]], _Y, [0.5]), wpart.WpartValueError, r"^`X` " + _RAGGED),
    (({"a": 1}, _Y, [0.5]), wpart.WpartTypeError, r"^`X` " + _DENSE + "dict$"),
    (("X", _Y, [0.5]), wpart.WpartTypeError, r"^`X` " + _DENSE + "str$"),
    (("sparse", _Y, [0.5]), wpart.WpartTypeError, r"^`X` " + _DENSE + "coo_array$"),
    (([[1, np.nan], [2, 3]], [1, 2], [1, 1]), wpart.WpartValueError, r"^`X` must not contain NaN$"),
    ((np.zeros((3, 0)), [1, 2], [0.5]), wpart.WpartValueError,
     r"^`X` must have at least one node and one feature, got shape \(3, 0\)$"),
    ((np.arange(9).reshape(3, 3), [1, 2], [1, 1, 1]), wpart.WpartValueError,
     r"^`y` must have one value per node of `X` \(3\), got 2$"),
    ((_X, [1.0, np.nan, 2.0], [0.5, 0.5]), wpart.WpartValueError, r"^`y` must not contain NaN$"),
    ((_X, _Y, [[1, 2], [3]]), wpart.WpartValueError, r"^`x` " + _RAGGED),
    ((_X, _Y, {"a": 1}), wpart.WpartTypeError, r"^`x` " + _DENSE + "dict$"),
    ((_X, _Y, "x"), wpart.WpartTypeError, r"^`x` " + _DENSE + "str$"),
    ((_X, _Y, "sparse"), wpart.WpartTypeError, r"^`x` " + _DENSE + "coo_array$"),
    ((_X, _Y, [1.0, 2.0, 3.0]), wpart.WpartValueError,
     r"^`x` must hold points of 2 feature\(s\) like `X`, got shape \(3,\)$"),
    ((_X, _Y, np.zeros((2, 3))), wpart.WpartValueError,
     r"^`x` must have 2 feature\(s\) per point like `X`, got shape \(2, 3\)$"),
], ids=["X-ragged", "X-dict", "X-str", "X-sparse", "X-nan", "X-empty-3x0", "y-length",
        "y-nan", "x-ragged", "x-dict", "x-str", "x-sparse", "x-size", "x-features"])
def test_multikernel_interpolate_hostile_refused(args, err, msg):
    import wpart.multikernel as mk
    args = tuple(_sparse_rows() if isinstance(a, str) and a == "sparse" else a for a in args)
    with pytest.raises(err, match=msg):
        mk.interpolate(*args)
    v, how = mk.interpolate(_X, _Y, [0.5, 0.5])  # valid calls unchanged
    assert how == "rbf" and v.shape == (1,) and np.isfinite(v).all()
    assert mk.interpolate(_X, _Y, [[0.0, 0.0], [1.0, 0.0]])[0].tolist() == pytest.approx([1, 2])


@pytest.mark.parametrize("bad", [None, 3, 1e18, np.array(1.0), "sparse"],
                         ids=["None", "int", "1e18", "0-d", "sparse"])
def test_dynamic_compare_seeds_refused(bad):
    if isinstance(bad, str):
        bad = _sparse_rows()  # iterated 2**40 rows (hung) before
    t = time.process_time()
    with pytest.raises(wpart.WpartTypeError,
                       match=rf"^`seeds` must be a sequence, got {type(bad).__name__}$"):
        wd.compare(_platform(), seeds=bad, time_limit=5.0)
    assert time.process_time() - t < 2.0
