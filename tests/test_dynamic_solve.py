"""Block sizing of wpart.dynamic: spec 001 §6.2 (S1-S8), §2.10 closed forms, input hygiene."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wpart
import wpart.dynamic as d
from oracles.dynamic_solve import capacity_bisect, discrete_minmax, makespan

# ------------------------------------------------------------------ curve families ---------


def affine(a, b):
    return lambda x: a * np.asarray(x) + b


def saturating(t0, rate, bsat):
    # throughput rate * (1 - exp(-x / bsat)): time -> t0 + bsat / rate as x -> 0
    def f(x):
        x = np.asarray(x, dtype=float)
        return t0 + x / (rate * -np.expm1(-np.maximum(x, 1e-300) / bsat))

    return f


def power(c, beta):
    return lambda x: c * np.asarray(x, dtype=float) ** beta


def fitted(kind, scale, seed):
    rng = np.random.default_rng(seed)
    x = np.unique(np.geomspace(8, 4096, 10).astype(np.int64))
    u = x / x.max()
    t = [0.1 + u, u**2 + 0.02, 0.05 * np.exp(2 * u), 0.3 * u + 0.1 * u**3][kind] * scale
    t = t * (1 + 0.01 * rng.standard_normal(x.size))
    return d.fit_model(x, np.abs(t))


@st.composite
def curves(draw, n_min=1, n_max=6):
    n = draw(st.integers(n_min, n_max))
    out = []
    for i in range(n):
        fam = draw(st.sampled_from(["affine", "saturating", "power", "fitted"]))
        if fam == "affine":
            out.append(affine(draw(st.floats(0.01, 10)), draw(st.sampled_from([0.0, 0.5, 3.0]))))
        elif fam == "saturating":
            out.append(saturating(draw(st.floats(0, 1)), draw(st.floats(0.5, 50)),
                                  draw(st.floats(1, 200))))
        elif fam == "power":
            out.append(power(draw(st.floats(0.01, 2)), draw(st.floats(0.5, 2.5))))
        else:
            out.append(fitted(draw(st.integers(0, 3)), draw(st.floats(0.1, 10)), i))
    return out


def E0(f, x):
    """E with E(0) = 0 (no block, no cost)."""
    return float(f(float(x))) if x > 0 else 0.0


# ------------------------------------------------------------------ S1 closed forms ---------


def test_S1_affine_closed_form():
    a = np.array([0.1, 0.2, 0.4])
    b = np.array([1.0, 0.5, 0.0])
    x, T = d.solve_equal_time([affine(ai, bi) for ai, bi in zip(a, b)], 100)
    T_cf = (100 + (b / a).sum()) / (1 / a).sum()
    assert T == pytest.approx(T_cf, rel=1e-9)
    assert T == pytest.approx(6.428571428571, rel=1e-9)
    np.testing.assert_allclose(x, (T_cf - b) / a, rtol=1e-9)
    np.testing.assert_allclose(x, [54.2857142857, 29.6428571429, 16.0714285714], rtol=1e-9)


def test_S1_cubic_closed_form():
    x, T = d.solve_equal_time([lambda v: v**3, lambda v: 2 * v], 3)
    r = np.roots([1, 0, 2, -6])
    x1 = float(r[np.abs(r.imag) < 1e-12].real[0])
    assert x[0] == pytest.approx(x1, rel=1e-9)
    assert x[0] == pytest.approx(1.4561642, rel=1e-7)
    assert x[1] == pytest.approx(3 - x1, rel=1e-9)
    assert T == pytest.approx(2 * (3 - x1), rel=1e-9)
    assert T == pytest.approx(3.0876715, rel=1e-7)


def test_S1_exclusion_by_latency():
    fs = [lambda v: v, lambda v: 10 + v]
    x, T = d.solve_equal_time(fs, 5)
    np.testing.assert_allclose(x, [5, 0], atol=1e-9)
    assert T == pytest.approx(5, rel=1e-9)
    x, T = d.solve_equal_time(fs, 5, lb=[0, 1])
    np.testing.assert_allclose(x, [4, 1], rtol=1e-9)
    assert T == pytest.approx(4, rel=1e-9)  # the water level ...
    assert makespan(fs, x) == pytest.approx(11, rel=1e-9)  # ... and the makespan E_2(1)


def test_S1_worked_example_with_fitted_models():
    # §2.10: r = (8, 4, 2, 1) el/s, training blocks 8 then 16, 8, 4, 2
    r = [8, 4, 2, 1]
    second = [16, 8, 4, 2]
    models = [d.fit_model([8, s], [8 / ri, s / ri]) for ri, s in zip(r, second)]
    x, T = d.solve_equal_time(models, 30)
    assert T == pytest.approx(2.0, rel=1e-9)
    np.testing.assert_allclose(x, second, rtol=1e-9)
    blocks, Tmax = d.round_blocks(models, x, 30)
    assert blocks.tolist() == second and Tmax == pytest.approx(2.0, rel=1e-9)
    # the same with plain callables
    x2, T2 = d.solve_equal_time([affine(1 / ri, 0) for ri in r], 30)
    np.testing.assert_allclose(x2, second, rtol=1e-9)
    assert T2 == pytest.approx(2.0, rel=1e-9)


def test_newton_polish_keeps_the_answer():
    fs = [lambda v: v**3, lambda v: 2 * v, saturating(0.1, 3, 2)]
    x, T = d.solve_equal_time(fs, 7)
    xp, Tp = d.solve_equal_time(fs, 7, newton_polish=True)
    np.testing.assert_allclose(xp, x, rtol=1e-8)
    assert Tp == pytest.approx(T, rel=1e-9)
    assert xp.sum() == pytest.approx(7, rel=1e-12)


# ------------------------------------------------------------------ S2-S4 -------------------


@st.composite
def instance(draw):
    fs = draw(curves())
    n = len(fs)
    S = draw(st.floats(1.0, 5000.0))
    lb = ub = None
    if draw(st.booleans()):
        lb = [draw(st.sampled_from([0.0, 0.0, 1.0, S / (2 * n)])) for _ in range(n)]
        if sum(lb) > S:  # infeasible bounds are S6's business
            lb = None
    if draw(st.booleans()):
        ub = [draw(st.sampled_from([math.inf, S, S / 2, S / n + 1])) for _ in range(n)]
        if sum(min(u, S) for u in ub) < S:
            ub[0] = math.inf
        if lb is not None:
            ub = [max(u, lo) for u, lo in zip(ub, lb)]
    return fs, S, lb, ub


@settings(max_examples=150)
@given(instance())
def test_S2_equal_time(inst):
    fs, S, lb, ub = inst
    n = len(fs)
    x, T = d.solve_equal_time(fs, S, lb=lb, ub=ub)
    lo = np.zeros(n) if lb is None else np.array(lb)
    hi = np.full(n, np.inf) if ub is None else np.array(ub)
    assert abs(x.sum() - S) <= 1e-9 * S
    assert (x >= lo - 1e-12 * S).all() and (x <= hi + 1e-12 * S).all()
    for p in range(n):
        e = E0(fs[p], x[p])
        inside = x[p] > lo[p] + 1e-9 * S and x[p] < hi[p] - 1e-9 * S
        if inside:
            assert abs(e - T) <= 1e-8 * T, (p, e, T)
        elif x[p] > lo[p] + 1e-9 * S:  # at ub: not later than T
            assert e <= T * (1 + 1e-8)


@settings(max_examples=40)
@given(instance(), st.integers(0, 2**31))
def test_S3_optimality_against_perturbations(inst, seed):
    fs, S, lb, ub = inst
    n = len(fs)
    x, T = d.solve_equal_time(fs, S, lb=lb, ub=ub)
    best = makespan(fs, x)
    if n < 2:
        return
    lo = np.zeros(n) if lb is None else np.array(lb)
    hi = np.full(n, np.inf) if ub is None else np.array(ub)
    rng = np.random.default_rng(seed)
    for _ in range(1000):
        i, j = rng.choice(n, 2, replace=False)
        delta = rng.random() * min(x[i] - lo[i], hi[j] - x[j]) * rng.choice([1e-6, 1e-3, 0.1, 1])
        if not delta > 0:
            continue
        y = x.copy()
        y[i] -= delta
        y[j] += delta
        assert makespan(fs, y) >= best * (1 - 1e-9)


@settings(max_examples=60)
@given(curves(), st.floats(1.0, 1000.0), st.floats(1.0001, 3.0))
def test_S4_monotone_in_S(fs, S, factor):
    x1, T1 = d.solve_equal_time(fs, S)
    x2, T2 = d.solve_equal_time(fs, S * factor)
    assert T2 >= T1 * (1 - 1e-9)
    assert (x2 >= x1 - 1e-8 * S * factor).all()


# ------------------------------------------------------------------ S5-S6 rounding ---------


@st.composite
def discrete_instance(draw):
    fs = draw(curves(1, 4))
    n = len(fs)
    q = draw(st.sampled_from([1, 2, 5]))
    K = draw(st.integers(1, 40 if n <= 3 else 14))
    S = K * q
    lb = ub = None
    if draw(st.booleans()):
        lb = [q * draw(st.integers(0, 2)) for _ in range(n)]
        if sum(lb) > S:
            lb = None
    if draw(st.booleans()):
        ub = [q * draw(st.integers(1, K)) for _ in range(n)]
        if lb is not None:
            ub = [max(u, lo) for u, lo in zip(ub, lb)]
        if sum(ub) < S:
            ub = None
    return fs, S, q, lb, ub


@settings(max_examples=120)
@given(discrete_instance())
def test_S5_discrete_optimality(inst):
    fs, S, q, lb, ub = inst
    n = len(fs)
    x, T = d.solve_equal_time(fs, S, lb=lb, ub=ub)
    b, Tmax = d.round_blocks(fs, x, S, quantum=q, lb=lb, ub=ub)
    assert b.sum() == S and (b % q == 0).all()
    lo = [0] * n if lb is None else lb
    hi = [S] * n if ub is None else ub
    assert all(lo[p] <= b[p] <= hi[p] for p in range(n))
    opt = discrete_minmax(fs, S, q, lb, ub)
    assert Tmax == pytest.approx(makespan(fs, b), rel=1e-15)
    assert Tmax <= opt * (1 + 1e-12) + 1e-300
    assert Tmax >= opt * (1 - 1e-12)
    # spread (without bounds, which may pin a slow PU): max E - min E over the PUs with a
    # block <= the largest one-quantum step
    off = [p for p in range(n) if 0 < b[p]]
    if off and lb is None and ub is None:
        step = max(E0(fs[p], b[p] + q) - E0(fs[p], b[p]) for p in range(n))
        assert Tmax - min(E0(fs[p], b[p]) for p in off) <= step * (1 + 1e-12) + 1e-12


@pytest.mark.parametrize("q", [1, 3])
def test_S6_infeasible_lower_bounds(q):
    fs = [affine(1, 0), affine(2, 1), affine(0.5, 2)]
    lb = [30, 30, 30]
    S = 60
    x, T = d.solve_equal_time(fs, S, lb=lb)
    assert x.sum() == pytest.approx(S, rel=1e-12)
    np.testing.assert_allclose(x, [20, 20, 20])
    b, Tmax = d.round_blocks(fs, x, S, quantum=q, lb=lb)
    assert b.sum() == S
    assert (b % q == 0).all()


def test_S6_hypothesis_like_sweep():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(1, 6))
        q = int(rng.integers(1, 5))
        S = q * int(rng.integers(1, 30))
        lb = q * rng.integers(0, 20, n)
        fs = [affine(float(rng.uniform(0.1, 3)), float(rng.uniform(0, 2))) for _ in range(n)]
        x, _ = d.solve_equal_time(fs, S, lb=lb.astype(float))
        assert abs(x.sum() - S) <= 1e-9 * S
        b, _ = d.round_blocks(fs, x, S, quantum=q, lb=lb)
        assert b.sum() == S and (b % q == 0).all()


def test_round_remainder_and_ties():
    fs = [affine(1, 0), affine(1, 0)]
    b, T = d.round_blocks(fs, [5.0, 5.0], 11, quantum=2)
    assert b.sum() == 11 and sorted(b.tolist()) == [5, 6] or b.tolist() == [6, 5]
    # ties go to the lowest index
    b, _ = d.round_blocks(fs, [0.0, 0.0], 1)
    assert b.tolist() == [1, 0]
    # x_cont above S: quanta are taken back from the slowest PU
    b, _ = d.round_blocks([affine(1, 0), affine(3, 0)], [10.0, 10.0], 12)
    assert b.sum() == 12 and b[0] >= b[1]


# ------------------------------------------------------------------ capacity ----------------


def test_capacity_time_mode():
    fs = [affine(0.1, 1), affine(0.2, 0.5), saturating(0.1, 2, 5)]
    x, H = d.capacity(fs, 3.0)
    for f, xp in zip(fs, x):
        assert xp == pytest.approx(capacity_bisect(f, 3.0, 0.0, 1e6), rel=1e-10)
    assert H == pytest.approx(x.sum())
    x, H = d.capacity(fs, 3.0, lb=[50, 0, 0], ub=[100, 1, 1e9])
    assert x[0] == 50 and x[1] == 1
    x, _ = d.capacity([lambda v: 0.0 * v], 1.0)
    assert x[0] == math.inf
    # consistency with the solver
    xs, T = d.solve_equal_time(fs, 100)
    xc, Hc = d.capacity(fs, T)
    assert Hc == pytest.approx(100, rel=1e-8)


# ------------------------------------------------------------------ S7 MILP -----------------


@pytest.mark.parametrize("seed", range(4))
def test_S7_milp_cross_check(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    fs = []
    for _ in range(n):
        k = rng.integers(0, 3)
        if k == 0:
            fs.append(affine(float(rng.uniform(0.05, 1)), float(rng.uniform(0, 3))))
        elif k == 1:
            fs.append(power(float(rng.uniform(0.001, 0.01)), float(rng.uniform(1.2, 2))))
        else:
            fs.append(saturating(0.2, float(rng.uniform(0.5, 3)), float(rng.uniform(5, 30))))
    W = 120
    r = d.oracle_milp(fs, W, breakpoints=64, time_limit=60)
    assert r.success, r.message
    assert r.blocks.sum() == W
    x, T = d.solve_equal_time(fs, W)
    b, Tmax = d.round_blocks(fs, x, W)
    # PWL approximation error of the curves at the integer points
    xs = np.arange(1, W + 1, dtype=float)
    err = max(np.max(np.abs(np.interp(xs, r.breakpoints, np.r_[0.0, f(r.breakpoints[1:])]) - f(xs)))
              for f in fs)
    assert abs(Tmax - r.T_pwl) <= err + 1e-9 * Tmax
    assert T <= Tmax * (1 + 1e-9)
    assert r.makespan >= Tmax * (1 - 1e-12)  # the discrete optimum on true curves is a lower bound
    assert r.to_dict()["status"] == "optimal"


def test_oracle_milp_remainder_and_quantum():
    fs = [affine(1, 0), affine(2, 0)]
    r = d.oracle_milp(fs, 31, breakpoints=32, quantum=4)
    assert r.success and r.blocks.sum() == 31
    assert sum(v % 4 != 0 for v in r.blocks) <= 1


def test_oracle_milp_in_any_time_unit_and_its_size_bound():
    """Curves times 10^k (k from -12 to 300) give the same blocks and the times scaled: GLPK
    gets them scaled by a power of two (seconds of 1e-9 gave a wrong optimum, 1e9
    "infeasible"). n / quantum above 2^23 is refused naming `quantum` (GLPK called such
    always-feasible models infeasible); with a quantum it runs."""
    fs = [affine(2e-6, 1e-3), affine(1e-6, 5e-3), power(3e-6, 1.05)]
    base = d.oracle_milp(fs, 100_000, breakpoints=32)
    assert base.success
    for k in (-12, -9, 9, 12, 300):
        f = 10.0 ** k
        r = d.oracle_milp([lambda x, g=g: g(x) * f for g in fs], 100_000, breakpoints=32)
        assert r.success and np.array_equal(r.blocks, base.blocks), k
        assert r.makespan == pytest.approx(base.makespan * f, rel=1e-12)
        assert r.T_pwl == pytest.approx(base.T_pwl * f, rel=1e-12)
    with pytest.raises(ValueError, match="quantum >= 120"):
        d.oracle_milp(fs, 10**9, breakpoints=16)
    r = d.oracle_milp(fs, 10**9, breakpoints=16, quantum=200)
    assert r.success and r.blocks.sum() == 10**9


def test_S8_ipopt_cross_check():
    cyipopt = pytest.importorskip("cyipopt")
    fs = [affine(0.1, 1.0), affine(0.2, 0.5), power(0.01, 1.5)]
    n, S = len(fs), 100.0
    x, T = d.solve_equal_time(fs, S)
    cons = [
        {"type": "ineq", "fun": lambda z: z[n] - np.array([f(v) for f, v in zip(fs, z[:n])])},
        {"type": "eq", "fun": lambda z: z[:n].sum() - S},
    ]
    z0 = np.r_[np.full(n, S / n), 10.0]
    r = cyipopt.minimize_ipopt(lambda z: z[n], z0, constraints=cons,
                               bounds=[(0, None)] * (n + 1), options={"tol": 1e-12})
    np.testing.assert_allclose(r.x[:n], x, atol=1e-6 * S)


# ------------------------------------------------------------------ input hygiene -----------


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: d.solve_equal_time([], 1.0), ValueError, "`models` must not be empty"),
        (lambda: d.solve_equal_time([affine(1, 0)], 0.0), ValueError, "`S`"),
        (lambda: d.solve_equal_time([affine(1, 0)], math.nan), ValueError, "`S`"),
        (lambda: d.solve_equal_time([affine(1, 0)], math.inf), ValueError, "`S`"),
        (lambda: d.solve_equal_time([1.0], 1.0), TypeError, "`models\\[0\\]`"),
        (lambda: d.solve_equal_time([affine(1, 0)], 5, lb=[1, 2]), ValueError, "`lb`"),
        (lambda: d.solve_equal_time([affine(1, 0)], 5, lb=[-1]), ValueError, "`lb`"),
        (lambda: d.solve_equal_time([affine(1, 0)], 5, ub=[math.nan]), ValueError, "`ub`"),
        (lambda: d.solve_equal_time([affine(1, 0)] * 2, 5, lb=[3, 0], ub=[2, 9]), ValueError,
         "`lb` > `ub`"),
        (lambda: d.solve_equal_time([affine(1, 0)] * 2, 5, ub=[1, 1]), ValueError, "upper bounds"),
        (lambda: d.solve_equal_time([lambda v: math.nan], 5), ValueError, "NaN"),
        (lambda: d.capacity([affine(1, 0)], math.nan), ValueError, "`T`"),
        (lambda: d.round_blocks([affine(1, 0)], [1.0, 2.0], 3), ValueError, "`x_cont`"),
        (lambda: d.round_blocks([affine(1, 0)], [math.nan], 3), ValueError, "`x_cont`"),
        (lambda: d.round_blocks([affine(1, 0)], [3.0], 0), ValueError, "`S`"),
        (lambda: d.round_blocks([affine(1, 0)], [3.0], 3, quantum=4), ValueError, "quantum"),
        (lambda: d.round_blocks([affine(1, 0)], [3.0], 3, quantum=0), ValueError, "`quantum`"),
        (lambda: d.round_blocks([affine(1, 0)], [3.0], 3, ub=[2]), ValueError, "`ub`"),
        (lambda: d.oracle_milp([], 10), ValueError, "`curves`"),
        (lambda: d.oracle_milp([affine(1, 0)], 0), ValueError, "`n`"),
        (lambda: d.oracle_milp([affine(1, 0)], 10, breakpoints=1), ValueError, "`breakpoints`"),
        (lambda: d.oracle_milp([lambda v: -np.asarray(v)], 10), ValueError, "`curves\\[0\\]`"),
    ],
)
def test_solver_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_callback_exception_propagates():
    def boom(x):
        raise ZeroDivisionError("boom")

    with pytest.raises(ZeroDivisionError, match="boom"):
        d.solve_equal_time([affine(1, 0), boom], 5)
    with pytest.raises(ZeroDivisionError, match="^boom$"):
        d.round_blocks([affine(1, 0), boom], [2.0, 3.0], 5)


def test_perfmodels_and_callables_agree_and_inputs_untouched():
    models = [fitted(k, 1 + k, k) for k in range(4)]
    lb = np.array([0.0, 10.0, 0.0, 0.0])
    lbc = lb.copy()
    x1, T1 = d.solve_equal_time(models, 3000, lb=lb)
    x2, T2 = d.solve_equal_time([lambda v, m=m: m(v) for m in models], 3000, lb=lb)
    np.testing.assert_allclose(x1, x2, rtol=1e-12)
    assert T1 == pytest.approx(T2, rel=1e-14)
    assert (lb == lbc).all()
    b1, t1 = d.round_blocks(models, x1, 3000, quantum=8)
    b2, t2 = d.round_blocks([lambda v, m=m: m(v) for m in models], x1, 3000, quantum=8)
    assert b1.tolist() == b2.tolist() and t1 == t2


def test_round_from_a_poor_start_is_still_optimal_and_fast():
    fs = [affine(1.0, 0), affine(2.0, 0), power(0.001, 1.5)]
    S = 10**9
    x, _ = d.solve_equal_time(fs, S)
    b_good, T_good = d.round_blocks(fs, x, S)
    b_zero, T_zero = d.round_blocks(fs, np.zeros(3), S)
    assert b_zero.sum() == S
    assert T_zero == pytest.approx(T_good, rel=1e-12)
    for q in (1, 7):
        S2 = 4000 * q
        b, T = d.round_blocks(fs, [0.0, 0.0, 0.0], S2, quantum=q)
        x2, _ = d.solve_equal_time(fs, S2)
        b2, T2 = d.round_blocks(fs, x2, S2, quantum=q)
        assert b.sum() == S2 and T == pytest.approx(T2, rel=1e-12)


def test_many_pus_cold_brackets():
    # above 128 PUs the inner brackets start cold: same answers as the closed form
    rng = np.random.default_rng(5)
    n = 200
    a = rng.uniform(0.1, 2, n)
    b = rng.uniform(0, 0.5, n)
    S = 1e5
    x, T = d.solve_equal_time([affine(ai, bi) for ai, bi in zip(a, b)], S)
    T_cf = (S + (b / a).sum()) / (1 / a).sum()
    assert T == pytest.approx(T_cf, rel=1e-9)
    np.testing.assert_allclose(x, (T_cf - b) / a, rtol=1e-8)


def test_refcounts_stable():
    import sys

    models = [fitted(k, 1.0, k) for k in range(3)]
    fs = [affine(1.0, 0.1), affine(2.0, 0.0)]
    x0 = np.array([1.0, 2.0])
    before = (sys.getrefcount(models[0].packed), sys.getrefcount(fs[0]), sys.getrefcount(x0))
    for _ in range(1000):
        d.solve_equal_time(models, 100.0)
        d.solve_equal_time(fs, 3.0)
        d.round_blocks(fs, x0, 3)
        d.capacity(fs, 1.0)
    after = (sys.getrefcount(models[0].packed), sys.getrefcount(fs[0]), sys.getrefcount(x0))
    assert before == after


def test_oracle_milp_wrong_optimum_is_refused():
    """Linear curves of unequal speeds at 100,000 blocks: GLPK ended at its first node with
    every element on the first PU ("optimal", 100.0 against the equal-finish split's 25.0);
    that answer is checked against the equal-finish split of the same PWL curves and raises.
    With a quantum the same split is optimal and at most that split's time."""
    fs = [lambda x: np.asarray(x, float) / 1000, lambda x: np.asarray(x, float) / 3000,
          lambda x: np.asarray(x, float)]
    with pytest.raises(wpart.SolverError, match="equal-finish split.*larger `quantum`"):
        d.oracle_milp(fs, 100_000, breakpoints=64)
    r = d.oracle_milp(fs, 100_000, breakpoints=64, quantum=8)
    ef = d.equal_finish(fs, 100_000, quantum=8)
    assert r.status == "optimal" and r.makespan <= ef.time * (1 + 1e-9)


def test_oracle_milp_total_is_a_deprecated_alias_of_n():
    """`total=` keeps working with a DeprecationWarning (a helper defined between the decorator
    and oracle_milp once took the alias away without any test noticing)."""
    fs = [affine(1, 0), affine(3, 0)]
    with pytest.warns(DeprecationWarning, match="`total` is deprecated, use `n`"):
        r = d.oracle_milp(fs, total=40, breakpoints=8)
    assert np.array_equal(r.blocks, d.oracle_milp(fs, 40, breakpoints=8).blocks)
