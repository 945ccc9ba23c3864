"""Performance-model fitting of wpart.dynamic: spec 001 §6.1 (F1-F7) and input hygiene."""

import math

import numpy as np
import pytest

import wpart.dynamic as d

X6 = np.unique(np.geomspace(100, 10_000, 8).astype(np.int64))  # 2 decades, 8 sizes

# truths as functions of u = x / x_hi (the fit's scaling), positive and increasing on the grid
TRUTHS = {
    "x": lambda u: 3.0 * u,
    "x^2": lambda u: 2.0 * u**2,
    "x^3": lambda u: 5.0 * u**3,
    "exp(x)": lambda u: 0.7 * np.exp(u),
    "c+log(x)": lambda u: 10.0 + np.log(u),
    "x*exp(x)": lambda u: 1.5 * u * np.exp(u),
    "x+x*log(x)": lambda u: 2.0 * u + 0.2 * u * np.log(u),
    "x+x^3": lambda u: u + 4.0 * u**3,
    "x^2+exp(x)": lambda u: 2.0 * u**2 + 0.3 * np.exp(u),
    "c+x": lambda u: 0.5 + 2.0 * u,
    "c+x+x^2": lambda u: 0.1 + u + 3.0 * u**2,
    "c+x^3+x*exp(x)": lambda u: 0.2 + u**3 + 0.5 * u * np.exp(u),
}


def grid_is_admissible(m, n=64):
    xs = np.geomspace(m.x_a, m.x_b, n)
    e = m.comp(xs)
    return bool(np.isfinite(e).all() and (e > 0).all() and (np.diff(e) >= -1e-12 * np.abs(e[:-1])).all())


@pytest.mark.parametrize("name", sorted(TRUTHS))
def test_F1_exact_recovery(name):
    f = TRUTHS[name]
    x = X6
    t = f(x / x.max())
    m = d.fit_model(x, t)
    assert m.kind == "fitted"
    np.testing.assert_allclose(m(x), t, rtol=1e-6)
    xs = np.geomspace(x.min(), x.max(), 64)
    np.testing.assert_allclose(m(xs), f(xs / x.max()), rtol=1e-3)


def test_F1_exact_recovery_picks_the_true_single_term():
    x = X6
    for i, name in enumerate(["x", "x^2", "x^3", "exp(x)", "x*exp(x)"]):
        m = d.fit_model(x, TRUTHS[name](x / x.max()))
        assert m.terms == (name,), (name, m.terms)
        assert m.c0 == 0.0


def test_F2_bootstrap_interpolates():
    x = np.array([1024, 2048, 1024])
    t = 0.25 + 1e-3 * x
    m = d.fit_model(x, t)
    assert m.kind == "bootstrap"
    np.testing.assert_allclose(m(np.array([1024.0, 2048.0])), [0.25 + 1.024, 0.25 + 2.048],
                               rtol=1e-12)


def test_F2_bootstrap_falls_back_to_proportional():
    # decreasing times: affine slope <= 0 -> proportional c1 u
    m = d.fit_model([100, 200], [2.0, 1.0])
    assert m.kind == "proportional" and m.terms == ("x",) and m.c0 == 0.0
    u = np.array([0.5, 1.0])
    assert m.coef[0] == pytest.approx((2.0 * 0.5 + 1.0 * 1.0) / (0.25 + 1.0), rel=1e-14)
    # one distinct size: proportional too
    m1 = d.fit_model([64, 64, 64], [1.0, 1.2, 0.8])
    assert m1.kind == "proportional"
    assert m1(64.0) == pytest.approx(1.0, rel=1e-14)
    del u


@pytest.mark.parametrize("seed", range(8))
def test_F3_admissibility_and_extrapolation(seed):
    rng = np.random.default_rng(seed)
    m_ = int(rng.integers(3, 30))
    x = rng.integers(1, 5000, m_)
    kind = seed % 4
    u = x / x.max()
    truth = [0.2 + u, u**2 + 0.05, np.exp(3 * u) / 10, 1 + np.log(u + 0.01) / 10][kind]
    t = np.abs(truth * (1 + 0.3 * rng.standard_normal(m_)))
    t[rng.random(m_) < 0.1] = 0.0
    tx = np.abs(0.01 + 0.1 * u + 0.05 * rng.standard_normal(m_))
    m = d.fit_model(x, t, t_xfer=tx, quantum=int(rng.integers(1, 4)))
    xs = np.geomspace(m.x_a, m.x_b, 64)
    e = m(xs)
    assert np.isfinite(e).all() and (e >= 0).all()
    if m.kind == "fitted":
        assert grid_is_admissible(m)
    assert (np.diff(e) >= -1e-12 * np.abs(e[:-1])).all()
    # linear beyond 2 x_hi, slope >= 0.5 E(x_b) / x_b
    xb = m.x_b
    s1 = (m(3 * xb) - m(2 * xb)) / xb
    s2 = (m(10 * xb) - m(3 * xb)) / (7 * xb)
    assert s1 == pytest.approx(s2, rel=1e-9, abs=1e-300)
    assert s1 >= 0.5 * m(xb) / xb * (1 - 1e-12)
    # flat below x_a, zero at zero
    assert m(0.0) == 0.0
    assert m(m.x_a / 2) == m(m.x_a)


def test_F4_aggregation_equivalence():
    rng = np.random.default_rng(7)
    base = np.array([64, 128, 256, 512, 1024, 2048])
    x = np.repeat(base, rng.integers(1, 6, base.size))
    u = x / x.max()
    t = 0.3 + 2 * u + 0.5 * u**2 + 0.02 * rng.standard_normal(x.size)
    m = d.fit_model(x, t)
    # raw least squares with the selected terms, on all samples (no grouping)
    from wpart.dynamic._model import BASIS

    fns = {
        "x": lambda u: u, "x^2": lambda u: u**2, "x^3": lambda u: u**3, "exp(x)": np.exp,
        "log(x)": np.log, "x*exp(x)": lambda u: u * np.exp(u), "x*log(x)": lambda u: u * np.log(u),
    }
    cols = [fns[n](u) for n in m.terms] + ([np.ones_like(u)] if m.c0 != 0 else [])
    A = np.column_stack(cols)
    coef, *_ = np.linalg.lstsq(A, t, rcond=None)
    got = np.concatenate([m.coef, [m.c0]] if m.c0 != 0 else [m.coef])
    np.testing.assert_allclose(got, coef, rtol=1e-10)
    r = A @ coef - t
    assert m.sse == pytest.approx(float(r @ r), rel=1e-9)
    assert set(m.terms) <= set(BASIS)


@pytest.mark.parametrize("seed", range(5))
def test_F5_order_invariance_bitwise(seed):
    rng = np.random.default_rng(seed)
    x = rng.choice([32, 64, 100, 128, 256, 300, 512], 40)
    t = 0.1 + x / 300 * (1 + 0.1 * rng.standard_normal(40)) ** 2
    tx = 0.01 + x / 5000 * rng.random(40)
    m = d.fit_model(x, t, t_xfer=tx)
    for _ in range(5):
        perm = rng.permutation(40)
        m2 = d.fit_model(x[perm], t[perm], t_xfer=tx[perm])
        assert m2.packed.tobytes() == m.packed.tobytes()


def test_F6_noise_affine():
    # sigma = 0.05 s of additive noise; the worst relative error over [x_lo, x_hi]
    errs, rms_rel = [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x = rng.integers(100, 10_000, 50)
        truth = lambda v: 0.5 + 1e-3 * v  # noqa: E731
        t = truth(x) + 0.05 * rng.standard_normal(50)
        m = d.fit_model(x, t)
        xs = np.linspace(x.min(), x.max(), 64)
        errs.append(np.max(np.abs(m(xs) / truth(xs) - 1)))
        # 5 % multiplicative noise: RMS relative error
        m2 = d.fit_model(x, truth(x) * (1 + 0.05 * rng.standard_normal(50)))
        rms_rel.append(np.sqrt(np.mean((m2(xs) / truth(xs) - 1) ** 2)))
    assert np.median(errs) < 0.05
    assert np.median(rms_rel) < 0.05


def test_F7_transfer_model():
    x = np.array([100, 200, 400, 800, 1600])
    t = 1e-3 * x
    # affine transfers: recovered, both coefficients >= 0
    m = d.fit_model(x, t, t_xfer=0.01 + 1e-5 * x)
    assert m.g_slope == pytest.approx(1e-5 * 1600, rel=1e-10)
    assert m.g_icept == pytest.approx(0.01, rel=1e-10)
    np.testing.assert_allclose(m.xfer(x.astype(float)), 0.01 + 1e-5 * x, rtol=1e-10)
    np.testing.assert_allclose(m(x.astype(float)), t + 0.01 + 1e-5 * x, rtol=1e-8)
    # no transfers
    m0 = d.fit_model(x, t)
    assert m0.g_slope == 0 and m0.g_icept == 0
    assert (m0.xfer(np.array([1.0, 1e6])) == 0).all()
    # decreasing transfer times: slope clamped to 0, intercept = mean
    md = d.fit_model(x, t, t_xfer=[0.5, 0.4, 0.3, 0.2, 0.1])
    assert md.g_slope == 0.0 and md.g_icept == pytest.approx(0.3)
    # negative intercept: refit through the origin
    mo = d.fit_model(x, t, t_xfer=np.maximum(1e-4 * x - 0.05, 0.0))
    assert mo.g_icept == 0.0 and mo.g_slope > 0
    # one distinct size: slope 0
    m1 = d.fit_model([64, 64], [1.0, 1.0], t_xfer=[0.1, 0.3])
    assert m1.g_slope == 0.0 and m1.g_icept == pytest.approx(0.2)
    for mm in (m, m0, md, mo, m1):
        assert mm.g_slope >= 0 and mm.g_icept >= 0


def test_window_and_decay():
    rng = np.random.default_rng(3)
    x = rng.integers(10, 1000, 30)
    t = 0.2 + x / 500 + 0.01 * rng.random(30)
    w = d.fit_model(x, t, window=10)
    last = d.fit_model(x[-10:], t[-10:])
    assert w.packed.tobytes() == last.packed.tobytes()
    assert w.n_samples == 10
    assert d.fit_model(x, t, decay=1.0).packed.tobytes() == d.fit_model(x, t).packed.tobytes()
    # decay follows a change of speed faster than all samples
    t2 = np.concatenate([t, 3 * (0.2 + x / 500)])
    x2 = np.concatenate([x, x])
    slow_all = d.fit_model(x2, t2)
    slow_dec = d.fit_model(x2, t2, decay=0.8)
    assert slow_dec(500.0) > slow_all(500.0)
    assert slow_dec(500.0) == pytest.approx(3 * (0.2 + 1), rel=0.05)


def test_relative_weighting_and_basis_options():
    x = np.geomspace(10, 1e5, 12).astype(np.int64)
    t = 1e-3 + 1e-5 * x
    m = d.fit_model(x, t, weighting="relative")
    np.testing.assert_allclose(m(x.astype(float)), t, rtol=1e-6)
    m2 = d.fit_model(x, t, basis=["x^2", "x^3"], intercept=False, max_terms=1)
    assert len(m2.terms) == 1 and m2.terms[0] in ("x^2", "x^3") or m2.kind == "proportional"


def test_perfmodel_api():
    x = np.array([100, 200, 400, 800, 1600, 3200])
    m = d.fit_model(x, 0.1 + 1e-3 * x, t_xfer=0.01 + 1e-6 * x)
    assert isinstance(m(500), float)
    assert m(np.array([[100.0, 200.0]])).shape == (1, 2)
    t = m(1000.0)
    assert m.inverse(t) == pytest.approx(1000.0, rel=1e-10)
    assert m.inverse(0.0) == 0.0
    assert m.inverse(t, lo=2000.0) == 2000.0
    assert m.inverse(1e9) > 1e9 / m.slope_hi * 0.5
    assert m.inverse(t, hi=50.0) == 50.0
    dct = m.to_dict()
    assert dct["terms"] == list(m.terms) and len(dct["packed"]) == 23
    m2 = d.PerfModel.from_packed(m.packed)
    assert m2(777.0) == m(777.0)
    assert m._packed is m.packed
    ax = m.plot()
    assert ax is not None
    with pytest.raises(ValueError, match="`lo`"):
        m.inverse(1.0, lo=-1)
    with pytest.raises(ValueError, match="`t`"):
        m.inverse(math.nan)


@pytest.mark.parametrize(
    "args, kw, exc, match",
    [
        (([], []), {}, ValueError, "`x` must not be empty"),
        (([1, 0], [1.0, 1.0]), {}, ValueError, "`x` must be > 0"),
        (([1, -3], [1.0, 1.0]), {}, ValueError, "`x` must be > 0"),
        (([1.5, 2], [1.0, 1.0]), {}, ValueError, "integer"),
        (([1, np.nan], [1.0, 1.0]), {}, ValueError, "NaN"),
        (([1, 2], [1.0]), {}, ValueError, "`t_comp` must have the length"),
        (([1, 2], [1.0, np.nan]), {}, ValueError, "`t_comp` must be finite"),
        (([1, 2], [1.0, -1.0]), {}, ValueError, "`t_comp` must be finite and >= 0"),
        (([1, 2], [1.0, 1.0]), {"t_xfer": [0.1]}, ValueError, "`t_xfer` must have the length"),
        (([1, 2], [1.0, 1.0]), {"t_xfer": [0.1, -2]}, ValueError, "`t_xfer`"),
        (([1, 2], [1.0, 1.0]), {"quantum": 0}, ValueError, "`quantum`"),
        (([1, 2], [1.0, 1.0]), {"basis": ["sin"]}, ValueError, "`basis`"),
        (([1, 2], [1.0, 1.0]), {"basis": []}, ValueError, "`basis`"),
        (([1, 2], [1.0, 1.0]), {"max_terms": 4}, ValueError, "`max_terms`"),
        (([1, 2], [1.0, 1.0]), {"weighting": "abs"}, ValueError, "`weighting`"),
        (([1, 2], [1.0, 1.0]), {"decay": 0.0}, ValueError, "`decay`"),
        (([1, 2], [1.0, 1.0]), {"window": -1}, ValueError, "`window`"),
        (([[1, 2]], [1.0, 1.0]), {}, ValueError, "`x` must be 1-D"),
        (([1, 2], [1.0, 1.0]), {"grid_points": 65537}, ValueError, "`grid_points`.*65536"),
        (([1, 2], [1.0, 1.0]), {"grid_points": 2**31 - 1}, ValueError, "`grid_points`"),
        (([1, 2], [1e160, 2e160]), {}, ValueError, "`t_comp` must have its largest time"),
        (([1, 2], [1e-160, 2e-160]), {}, ValueError, "`t_comp` must have its largest time"),
        (([1, 2], [1.0, 1.0]), {"t_xfer": [0.0, 1e-170]}, ValueError, "`t_xfer`.*rescale"),
    ],
)
def test_fit_bad_input(args, kw, exc, match):
    with pytest.raises(exc, match=match):
        d.fit_model(*args, **kw)


def test_fit_window_beyond_the_samples_is_all_of_them():
    """A window longer than the samples uses all of them (2**40 overflowed the binding's int
    with a message naming nothing)."""
    x = np.arange(1, 100)
    t = x * 1e-6 + 1e-3
    a, b = d.fit_model(x, t), d.fit_model(x, t, window=2**40)
    assert b.n_samples == a.n_samples == 99 and np.array_equal(a.packed, b.packed)


def test_fit_in_any_time_unit_within_its_range():
    """Times times 10^k (|k| < 150) give the model of the seconds, scaled: the same terms and
    predictions within 1e-12 (beyond the range the squares overflow or vanish, and the
    model came back 50 % off: refused above)."""
    rng = np.random.default_rng(0)
    x = rng.integers(1, 1 << 20, size=200)
    t = 1e-6 * x + 1e-3 + rng.random(200) * 1e-5
    base = d.fit_model(x, t)
    xs = np.array([1000, 50_000, 900_000])
    for k in (-149, -100, -9, 9, 100, 149):
        m = d.fit_model(x, t * 10.0 ** k)
        assert m.terms == base.terms, k
        np.testing.assert_allclose(m(xs) / 10.0 ** k, base(xs), rtol=1e-12)


def test_fit_does_not_modify_input():
    x = np.array([300, 100, 200, 100])
    t = np.array([3.0, 1.0, 2.0, 1.1])
    xc, tc = x.copy(), t.copy()
    d.fit_model(x, t, t_xfer=t / 10)
    assert (x == xc).all() and (t == tc).all()
    # lists and non-contiguous arrays give the same model
    a = d.fit_model(x.tolist(), t.tolist())
    xx = np.repeat(x, 2)[::2]
    tt = np.repeat(t, 2)[::2]
    b = d.fit_model(xx, tt)
    assert a.packed.tobytes() == b.packed.tobytes()
