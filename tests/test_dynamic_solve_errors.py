"""wpart.dynamic's block sizing: inputs that cannot be solved say so (issue 19, item 5), and
`equal_finish` against a brute-force oracle over every split (item 6).

A curve that decreases, or returns NaN, an infinite or a negative time at a size the solver
evaluates, raises WpartValueError naming the PU -- for callables and for hand-made packed
models alike. `equal_finish` is checked on many small random monotone curves (ties, flat
stretches, zero-cost PUs, offsets, quantum > 1, totals that are not multiples of the quantum):
its finish time equals the minimum over all splits, and its sizes realise it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import wpart
import wpart.dynamic as d
from wpart import WpartValueError


def affine(a, b):
    return lambda x: a * x + b


# ------------------------------------------------------------------ item 5: clear errors --


def test_decreasing_callable_is_refused_naming_the_pu():
    # the example: it used to return a wrong T silently
    with pytest.raises(WpartValueError, match=r"PU 0 decreases"):
        d.solve_equal_time([lambda x: 10 - x, lambda x: x], 5.0)
    with pytest.raises(WpartValueError, match=r"PU 1 decreases"):
        d.solve_equal_time([lambda x: x, lambda x: 10 - x], 5.0)


def test_decrease_inside_the_bracket_is_seen():
    # non-decreasing at the ends, decreasing in the middle where the solver samples
    def bump(x):  # E(0) = 1 and E(8) = 9, but 0.5 on [1, 7): the first guess (4) sees it
        return 1.0 + x if x < 1.0 else (0.5 if x < 7.0 else x + 1.0)

    with pytest.raises(WpartValueError, match=r"PU 1 decreases"):
        d.solve_equal_time([affine(1.0, 0.0), bump], 8.0)


@pytest.mark.parametrize("bad,word", [(math.nan, "NaN"), (math.inf, "inf"), (-1.0, "-1")])
def test_non_finite_or_negative_time_names_the_pu(bad, word):
    f = lambda x: bad if x > 1.0 else x  # noqa: E731
    with pytest.raises(WpartValueError, match=r"`?models\[1\]`?|PU 1") as ei:
        d.solve_equal_time([affine(1.0, 0.0), f], 5.0)
    assert word in str(ei.value)
    with pytest.raises(WpartValueError, match=r"PU 1|curves\[1\]"):  # its own argument
        d.equal_finish([affine(1.0, 0.0), f], 5)


def test_nan_message_has_the_number_not_a_literal_format():
    with pytest.raises(WpartValueError, match=r"^`models\[1\]` returned NaN at x = 5$") as ei:
        d.solve_equal_time([affine(1.0, 0.0), lambda x: math.nan], 5.0)
    msg = str(ei.value)
    assert "%g" not in msg and "models[1]" in msg and "x = " in msg
    assert any(ch.isdigit() for ch in msg.split("x = ")[1])


def test_capacity_and_rounding_refuse_bad_values():
    with pytest.raises(WpartValueError, match="PU 0"):
        d.capacity([lambda x: -1.0], 3.0)
    with pytest.raises(WpartValueError, match="PU 1"):
        d.round_blocks([affine(1.0, 0.0), lambda x: math.inf], [2.0, 2.0], 5)


def _decreasing_model():
    m = d.fit_model([100, 200, 400, 800], [1.0, 2.0, 4.0, 8.0])
    p = m.packed.copy()
    # a hand-made model whose linear part has a negative slope (the fit never makes one)
    p[1:8] = 0.0
    p[0] = 1.0  # mask: x only
    p[1] = -5.0  # F(u) = c0 - 5 u
    p[8] = 10.0
    p[10] = p[11] = 0.0
    p[12] = 1.0  # x_a
    p[14] = 10.0 - 5.0 / p[9]  # e_a
    p[15] = 10.0 - 5.0 * p[13] / p[9]  # e_b
    p[16] = 0.0
    return d.PerfModel.from_packed(p)


def test_decreasing_packed_model_is_refused():
    good = d.fit_model([100, 200, 400, 800], [1.0, 2.0, 4.0, 8.0])
    bad = _decreasing_model()
    assert bad(500.0) < bad(100.0)
    with pytest.raises(WpartValueError, match="PU 1 decreases"):
        d.solve_equal_time([good, bad], 600.0)


@pytest.mark.parametrize("bounds", ["none", "lb", "ub"])
def test_fitted_models_are_accepted_and_agree_with_callables(bounds):
    # packed models take the Newton path (or fall back to the water-filling); callables of the
    # same models always take the water-filling: both answers agree to its tolerance
    rng = np.random.default_rng(3)
    for k in range(40):
        models = []
        n = int(rng.integers(1, 12))
        for _p in range(n):
            x = np.unique(rng.integers(16, 50000, 8))
            u = x / x.max()
            t = 0.01 * rng.random() + rng.random() * u + rng.random() * u**2
            models.append(d.fit_model(x, t * (1 + 0.02 * rng.standard_normal(x.size)),
                                      t_xfer=None if k % 2 else 1e-3 + 1e-8 * x))
        S = float(rng.integers(10, 10**6)) if k % 3 else float(rng.integers(10, 1000))
        lb = rng.integers(0, int(S / n) + 1, n).astype(float) if bounds == "lb" else None
        ub = (S / n * (1 + 2 * rng.random(n)) + 1) if bounds == "ub" else None
        x1, T1 = d.solve_equal_time(models, S, lb=lb, ub=ub)
        x2, T2 = d.solve_equal_time([lambda v, m=m: m(v) for m in models], S, lb=lb, ub=ub)
        np.testing.assert_allclose(x1, x2, rtol=1e-8, atol=1e-9 * S)
        assert T1 == pytest.approx(T2, rel=1e-9)
        assert x1.sum() == pytest.approx(S, rel=1e-12)
        e = np.array([m(v) for m, v in zip(models, x1)])
        lo = np.zeros(n) if lb is None else lb
        hi = np.full(n, np.inf) if ub is None else ub
        inside = (x1 > lo * (1 + 1e-12) + 1e-9) & (x1 < hi * (1 - 1e-12))
        np.testing.assert_allclose(e[inside], T1, rtol=1e-9)
        assert (e[x1 >= hi * (1 - 1e-12)] <= T1 * (1 + 1e-9)).all()


# ------------------------------------------------------------------ item 6: equal_finish --


def _curve(rng, total):
    """A random non-decreasing curve on [0, total]: cumulative non-negative steps (some zero:
    ties and flat stretches), an offset, or zero cost everywhere."""
    kind = rng.integers(0, 6)
    if kind == 0:
        return lambda x: 0.0  # zero-cost PU
    grid = np.arange(total + 1, dtype=float)
    steps = rng.integers(0, 4, total + 1).astype(float) * rng.choice([0.5, 1.0, 2.0])
    if kind == 1:
        steps[:] = rng.integers(1, 3)  # linear: many ties between PUs
    vals = np.cumsum(steps) + (rng.integers(0, 3) if kind == 2 else 0.0)
    return lambda x, g=grid, v=vals: float(np.interp(x, g, v))


def _oracle(curves, total, q):
    """min over every split into multiples of q (the remainder total % q on one PU) of the
    largest finish time of the PUs with a block."""
    m, r = len(curves), total % q
    best = math.inf
    for ks in itertools.product(range(total // q + 1), repeat=m):
        if sum(ks) * q != total - r:
            continue
        for j in range(m) if r else [None]:
            sizes = [k * q + (r if p == j else 0) for p, k in enumerate(ks)]
            best = min(best, _finish(curves, sizes))
    return best


def _finish(curves, sizes):
    return max((c(float(s)) for c, s in zip(curves, sizes) if s > 0), default=0.0)


@pytest.mark.parametrize("seed", range(12))
def test_equal_finish_matches_the_brute_force_oracle(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        m = int(rng.integers(1, 4))
        q = int(rng.choice([1, 1, 2, 3, 5]))
        total = int(rng.integers(1, 25 if m == 3 else 40))
        curves = [_curve(rng, total) for _ in range(m)]
        r = d.equal_finish(curves, total, quantum=q)
        assert isinstance(r, wpart.Result) and r.success and r.status == "optimal"
        assert r.sizes.dtype == np.int64 and r.sizes.shape == (m,)
        assert int(r.sizes.sum()) == total and (r.sizes >= 0).all()
        off = r.sizes % q != 0
        assert off.sum() <= (1 if total % q else 0)
        assert r.time == pytest.approx(_finish(curves, r.sizes.tolist()), rel=1e-12, abs=1e-12)
        assert r.time == pytest.approx(_oracle(curves, total, q), rel=1e-9, abs=1e-12), (
            seed, m, q, total, r.sizes)


def test_equal_finish_with_models_is_the_rounded_solve():
    rng = np.random.default_rng(0)
    models = []
    for _ in range(16):
        x = np.unique(rng.integers(64, 65536, 10))
        u = x / x.max()
        models.append(d.fit_model(x, (0.02 + (1 + 4 * rng.random()) * u) *
                                  (1 + 0.01 * rng.standard_normal(x.size))))
    total = 640_000
    for q in (1, 64, 1000):
        r = d.equal_finish(models, total, quantum=q)
        x, T = d.solve_equal_time(models, float(total))
        b, Tm = d.round_blocks(models, x, total, quantum=q) if total >= q else (None, None)
        assert r.sizes.tolist() == b.tolist() and r.time == Tm
        assert r.level == pytest.approx(T, rel=1e-12)
        assert T <= r.time * (1 + 1e-12)


def test_equal_finish_result_protocol():
    r = d.equal_finish([affine(0.01, 0.0), affine(0.02, 0.0)], 300, quantum=10)
    assert r.sizes.tolist() == [200, 100] and r.time == pytest.approx(2.0)
    assert r.max_load == r.time and r.m == 2 and r.total == 300
    dct = r.to_dict()
    assert dct["sizes"] == [200, 100] and dct["success"] is True and dct["status"] == "optimal"
    assert r == d.equal_finish([affine(0.01, 0.0), affine(0.02, 0.0)], 300, quantum=10)
    assert len(repr(r).splitlines()) <= 5
    import matplotlib

    matplotlib.use("Agg")
    ax = r.plot()
    assert hasattr(ax, "bar")
    # total not a multiple of the quantum: one PU takes the remainder
    r2 = d.equal_finish([affine(0.01, 0.0), affine(0.02, 0.0)], 305, quantum=10)
    assert r2.sizes.sum() == 305 and sorted(r2.sizes % 10) == [0, 5]
    r3 = d.equal_finish([affine(0.01, 0.0), affine(0.02, 0.0)], 7, quantum=10)
    assert r3.sizes.tolist() == [7, 0]


@pytest.mark.parametrize("call,exc,match", [
    (lambda: d.equal_finish([], 5), WpartValueError, "`curves`"),
    (lambda: d.equal_finish([affine(1, 0)], 0), WpartValueError, "`total`"),
    (lambda: d.equal_finish([affine(1, 0)], 5, quantum=0), WpartValueError, "`quantum`"),
    (lambda: d.equal_finish([affine(1, 0)], 5.5), wpart.WpartTypeError, "`total`"),
    (lambda: d.equal_finish([affine(1, 0)], "5"), wpart.WpartTypeError, "`total`"),
    (lambda: d.equal_finish([1.0], 5), wpart.WpartTypeError, r"`curves\[0\]`"),
    (lambda: d.equal_finish(affine(1, 0), 5), wpart.WpartTypeError, "`curves`"),
])
def test_equal_finish_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_binding_refuses_mixed_or_malformed_packed_models():
    from wpart import _core

    good = d.fit_model([100, 200, 400], [1.0, 2.0, 4.1]).packed
    with pytest.raises(wpart.WpartTypeError, match=r"`models\[1\]` must be a packed model"):
        _core.dynamic_solve_equal_time((good, lambda x: x), 10.0, None, None, 1e-10, 1e-12,
                                       200, 100, 0)
    with pytest.raises(wpart.WpartTypeError, match=r"`curves\[0\]` must be a packed model"):
        _core.dynamic_equal_finish((good[:5].copy(),), 10, 1)  # equal_finish's own argument
    with pytest.raises(wpart.WpartTypeError, match="`S`"):
        _core.dynamic_solve_equal_time((good,), "10", None, None, 1e-10, 1e-12, 200, 100, 0)
    with pytest.raises(wpart.WpartTypeError, match="takes 3 arguments"):
        _core.dynamic_equal_finish((good,), 10)
    x, T = _core.dynamic_solve_equal_time([good, good], 10.0, None, None, 1e-10, 1e-12, 200,
                                          100, 0)
    assert x.sum() == pytest.approx(10.0) and x[0] == pytest.approx(x[1])
