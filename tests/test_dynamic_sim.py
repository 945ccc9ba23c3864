"""The simulator of wpart.dynamic (spec 001 §5.3-5.7, §5.9; properties P1, P2, P12 of §6.4).

Oracles are independent of the engine: closed forms for affine devices, the C/Python
integration of a slowdown schedule written out by hand, and the counter-based noise drawn
directly by key.
"""

import json
import math

import numpy as np
import pytest

from wpart import _core
from wpart.dynamic import (
    IDLE_COLUMNS,
    TRACE_DTYPE,
    Affine,
    BasisCurve,
    Device,
    Greedy,
    Platform,
    Power,
    Saturating,
    SimResult,
    Static,
    StaticEqual,
    Table,
    compare,
    simulate,
)

BAR, EVAL, STARVED, OTHER = range(4)


def small_presets():
    return [
        (Platform.preset("paper5", machines="ABCDE", app="mm"), 2**16),
        (Platform.preset("paper5", machines="AC", app="kmeans"), 2**15),
        (Platform.preset("adapt2", case="b"), 2**16),
        (Platform.preset("hetero3"), 2**16),
        (Platform.preset("linear4"), 2**16),
    ]


def check_coverage(r: SimResult, W: int) -> None:
    tr = np.sort(r.trace, order="offset")
    assert tr["offset"][0] == 0
    assert np.all(tr["offset"][1:] == tr["offset"][:-1] + tr["size"][:-1])
    assert int(tr["offset"][-1] + tr["size"][-1]) == W
    assert int(tr["size"].sum()) == W
    assert np.all(np.isfinite(tr["t_end"]))


def one_pu(curve, **kw):
    return Platform([Device("cpu", 0, curve, sigma=kw.pop("sigma", 0.0), **kw)])


# ---------------------------------------------------------------------------- P1, P2
@pytest.mark.parametrize("i", range(5))
@pytest.mark.parametrize("algo", ["greedy", "static"])
def test_P1_P2_coverage_and_conservation(i, algo):
    pl, W = small_presets()[i]
    for seed in (0, 1, 2):
        bal = Greedy(pl.m, W, chunk=1000) if algo == "greedy" else StaticEqual(pl.m, W)
        r = simulate(pl, bal, seed=seed)
        check_coverage(r, W)
        n = pl.m
        assert r.makespan == pytest.approx(r.trace["t_end"].max(), abs=0)
        assert math.isclose(r.busy.sum() + r.idle.sum(), n * r.makespan, rel_tol=1e-9)
        # the breakdown explains all idle time, per PU
        np.testing.assert_allclose(r.idle_breakdown.sum(axis=1), r.idle, rtol=0, atol=1e-9 * r.makespan)
        busy = np.bincount(r.trace["pu"], weights=r.trace["t_xfer"] + r.trace["t_comp"], minlength=n)
        np.testing.assert_allclose(r.busy, busy, rtol=1e-12)
        assert r.elements.sum() == W
        assert r.n_blocks == r.trace.size == r.blocks.sum()
        assert r.trace.dtype == TRACE_DTYPE
        # per PU the blocks run one after the other, in order of assignment
        for p in range(n):
            s = r.trace[r.trace["pu"] == p]
            assert np.all(s["t_xfer_start"][1:] >= s["t_end"][:-1] - 1e-12)
            assert np.all(s["t_xfer_start"] >= s["t_assign"])


# ---------------------------------------------------------------------------- P12, CRN
def test_P12_determinism_and_seed():
    pl = Platform.preset("paper5", machines="ABC")
    r1 = simulate(pl, Greedy(pl.m, 50_000, chunk=500), seed=3)
    r2 = simulate(pl, Greedy(pl.m, 50_000, chunk=500), seed=3)
    assert r1.trace.tobytes() == r2.trace.tobytes()
    assert r1.makespan == r2.makespan
    r3 = simulate(pl, Greedy(pl.m, 50_000, chunk=500), seed=4)
    assert r3.trace.tobytes() != r1.trace.tobytes()
    k = min(r1.trace.size, r3.trace.size)
    assert np.all(r1.trace["t_comp"][:5] != r3.trace["t_comp"][:5])
    assert k > 10


def test_trace_is_the_cores_records_viewed():
    """TRACE_DTYPE is the core's 104-byte block record: every field reads what the core wrote
    (its C layout, written out below, viewed on the same bytes), the trace is a view of the
    buffer the binding took over (no copy), and that buffer lives as long as the trace."""
    import gc
    import io
    import sys

    # the C struct wpart_dynamic_trace_t as written in csrc/include/wpart/dynamic_sim.h
    C_TRACE = np.dtype(
        [("pu", "i4"), ("pad0", "i4"), ("block", "i8"), ("offset", "i8"), ("size", "i8"),
         ("kind", "i4"), ("vstep", "i4"), ("model_version", "i4"), ("pad1", "i4"),
         ("t_assign", "f8"), ("t_xfer_start", "f8"), ("t_comp_start", "f8"), ("t_end", "f8"),
         ("pred_end", "f8"), ("t_xfer", "f8"), ("t_comp", "f8")]
    )  # fmt: skip
    assert TRACE_DTYPE.itemsize == C_TRACE.itemsize == 104
    for f in TRACE_DTYPE.names:
        fmt, off = TRACE_DTYPE.fields[f][:2]
        cfmt, coff = C_TRACE.fields[f][:2]
        if f == "kind":  # the low byte of the core's int32
            assert (fmt, off) == (np.dtype("i1"), coff + (0 if sys.byteorder == "little" else 3))
        else:
            assert (fmt, off) == (cfmt, coff)
    pl = Platform.preset("paper5", machines="ABC")
    tr = simulate(pl, "hdss", n=200_000).trace
    assert not tr.flags.owndata and tr.base is not None
    c = tr.view(C_TRACE)
    for f in TRACE_DTYPE.names:
        np.testing.assert_array_equal(tr[f], c[f])
    assert set(np.unique(tr["kind"]).tolist()) == {0, 3}  # hdss: training, then its own
    assert not c["pad0"].any() and not c["pad1"].any()  # (bit-identical runs)
    buf = io.BytesIO()  # in-order fields: np.save writes it, np.load gives it back
    np.save(buf, tr)
    buf.seek(0)
    back = np.load(buf)
    assert back.dtype == TRACE_DTYPE
    for f in TRACE_DTYPE.names:
        np.testing.assert_array_equal(back[f], tr[f])
    size = tr["size"].copy()
    gc.collect()
    np.testing.assert_array_equal(tr["size"], size)
    assert tr["size"].sum() == 200_000


def test_crn_same_noise_per_pu_and_block_index():
    """Two balancers see the same noise sequence per PU: the j-th block on PU p is scaled by
    the lognormal of key (seed, p, compute, j), whatever the sizes."""
    pl = Platform.preset("hetero3")
    seed = 11
    seqs = []
    for bal in (Greedy(3, 40_000, chunk=700), Greedy(3, 40_000, chunk=2500)):
        r = simulate(pl, bal, seed=seed)
        per = []
        for p in range(3):
            s = r.trace[r.trace["pu"] == p]
            factor = s["t_comp"] / pl.true_time(p, s["size"], part="comp")
            direct = _core.dynamic_noise(seed, p, 0, np.arange(s.size), pl.devices[p].sigma)
            np.testing.assert_allclose(factor, direct, rtol=1e-12)
            per.append(factor)
        seqs.append(per)
    for p in range(3):
        m = min(seqs[0][p].size, seqs[1][p].size)
        np.testing.assert_allclose(seqs[0][p][:m], seqs[1][p][:m], rtol=1e-12)


def test_noise_is_mean_one_lognormal():
    f = _core.dynamic_noise(5, 2, 0, np.arange(40_000), 0.1)
    assert abs(f.mean() - 1) < 0.003
    assert abs(np.log(f).std() - 0.1) < 0.003
    u = _core.dynamic_noise(5, 2, 2, np.arange(40_000), -1.0)
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01


# ---------------------------------------------------------------------------- slowdowns
def test_slowdown_integrated_exactly():
    """Affine rate 1; x2 on [5, 15): a 10-element block from 0 ends at 15 (5 + 10/2 nominal)."""
    pl = Platform([Device("cpu", 0, Affine(0, 1.0), sigma=0)], fluctuations=[(5, 15, 0, 2.0)])
    r = simulate(pl, Greedy(1, 30, chunk=10))
    np.testing.assert_allclose(r.trace["t_end"], [15, 25, 35], rtol=1e-15)
    np.testing.assert_allclose(r.trace["t_comp"], [15, 10, 10], rtol=1e-15)
    assert r.stats["n_stale"] >= 1


@pytest.mark.parametrize("seed", range(8))
def test_slowdown_random_schedules_match_hand_integration(seed):
    rng = np.random.default_rng(seed)
    n = 2
    fl = []
    for _ in range(5):
        t0 = float(rng.uniform(0, 30))
        fl.append((t0, t0 + float(rng.uniform(0.5, 20)), int(rng.integers(n)), float(rng.uniform(1, 6))))
    devs = [Device("cpu", 0, Affine(0.5, 3.0), hops=[(0.2, 50.0)], bytes_per_elem=1.0, sigma=0.05, sigma_xfer=0.0)
            for _ in range(n)]  # fmt: skip
    pl = Platform(devs, fluctuations=fl)
    r = simulate(pl, Greedy(n, 300, chunk=37), seed=seed)
    flu = np.array(fl, dtype=float)

    def integrate(p, t, D):  # independent: step through the breakpoints by hand
        pts = sorted({x for f in fl if f[2] == p for x in (f[0], f[1]) if x > t})
        for b in pts + [math.inf]:
            s = np.prod([f[3] for f in fl if f[2] == p and f[0] <= t < f[1]])
            if t + D * s <= b:
                return t + D * s
            D -= (b - t) / s
            t = b
        raise AssertionError

    j = {0: 0, 1: 0}
    for rec in r.trace:
        p = int(rec["pu"])
        D = float(pl.true_time(p, rec["size"], part="comp")) * float(_core.dynamic_noise(seed, p, 0, [j[p]], 0.05)[0])
        j[p] += 1
        assert rec["t_end"] == pytest.approx(integrate(p, rec["t_comp_start"], D), rel=1e-12)
        assert rec["t_end"] == pytest.approx(_core.dynamic_integrate(flu, p, rec["t_comp_start"], D), rel=1e-12)


def test_onoff_interference_deterministic_and_slower():
    devs = [Device("cpu", 0, Affine(0, 10.0), sigma=0) for _ in range(2)]
    base = simulate(Platform(devs), Greedy(2, 5000, chunk=10))
    pl = Platform(devs, onoff=[(0, 5.0, 5.0, 4.0)])
    r1 = simulate(pl, Greedy(2, 5000, chunk=10), seed=1)
    r2 = simulate(pl, Greedy(2, 5000, chunk=10), seed=1)
    assert r1.trace.tobytes() == r2.trace.tobytes()
    assert r1.makespan > base.makespan * 1.05
    assert r1.elements[0] < r1.elements[1]


# ---------------------------------------------------------------------------- transfers
def test_transfers_hops_and_setup_bytes():
    hops = [(0.01, 1000.0), (0.002, 4000.0)]
    dev = Device("gpu", 1, Affine(0.0, 100.0), hops=hops, bytes_per_elem=2.0, setup_bytes=100.0, sigma=0, sigma_xfer=0)
    r = simulate(Platform([dev]), Greedy(1, 50, chunk=20))
    x = r.trace["size"].astype(float)
    want = sum(lat + 2 * x / bw for lat, bw in hops)
    want[0] += sum(100.0 / bw for _, bw in hops)
    np.testing.assert_allclose(r.trace["t_xfer"], want, rtol=1e-14)
    np.testing.assert_allclose(r.trace["t_comp"], x / 100.0, rtol=1e-14)
    np.testing.assert_allclose(r.trace["t_comp_start"] - r.trace["t_xfer_start"], want, rtol=1e-12)
    assert r.makespan == pytest.approx(want.sum() + 0.5, rel=1e-14)
    pl = Platform([dev])
    assert pl.true_time(0, 20) == pytest.approx(0.2 + want[1], rel=1e-14)
    assert pl.true_time(0, 20, first=True) == pytest.approx(0.2 + want[0], rel=1e-14)


def test_outliers_and_dispatch_overhead():
    pl = one_pu(Affine(0, 10.0), p_out=1.0, f_out=3.0)
    r = simulate(pl, Greedy(1, 100, chunk=10), dispatch_overhead=0.25)
    np.testing.assert_allclose(r.trace["t_comp"], 3.0, rtol=1e-14)
    assert r.makespan == pytest.approx(10 * (3.0 + 0.25), rel=1e-14)
    assert r.idle_breakdown[0, OTHER] == pytest.approx(2.5, rel=1e-12)
    assert r.idle[0] == pytest.approx(2.5, rel=1e-12)


# ---------------------------------------------------------------------------- idle reasons
def test_idle_breakdown_static_and_greedy_starved():
    pl = Platform([Device("cpu", 0, Affine(0, r), sigma=0) for r in (4.0, 2.0, 1.0)])
    r = simulate(pl, Static([40, 10, 0]))  # ends at 10, 5, never
    assert r.makespan == 10.0
    np.testing.assert_allclose(r.idle_breakdown[:, STARVED], [0, 5, 10])
    np.testing.assert_allclose(r.idle_breakdown[:, [BAR, EVAL, OTHER]], 0)
    np.testing.assert_allclose(r.idle_frac, [0, 0.5, 1.0])
    g = simulate(pl, Greedy(3, 65, chunk=10))
    assert np.all(g.idle_breakdown[:, [BAR, EVAL, OTHER]] == 0)
    np.testing.assert_allclose(g.idle_breakdown[:, STARVED], g.idle, atol=1e-12)
    np.testing.assert_allclose(g.idle, [1.25, 0, 0], atol=1e-12)
    assert IDLE_COLUMNS == ("barrier", "eval", "starved", "other")


# ---------------------------------------------------------------------------- linear4
@pytest.mark.parametrize("k", [1.0, 1000.0])
def test_linear4_static_analytic(k):
    pl = Platform.preset("linear4", k=k)
    W = 15 * 4096
    blocks = np.array([8, 4, 2, 1]) * 4096
    r = simulate(pl, Static(blocks))
    assert r.makespan == pytest.approx(W / (15 * k), rel=1e-14)
    np.testing.assert_allclose(r.trace["t_end"], W / (15 * k), rtol=1e-14)
    np.testing.assert_allclose(r.idle, 0, atol=1e-9)
    rng = np.random.default_rng(1)
    for _ in range(10):
        b = rng.integers(0, 1000, 4)
        b[0] += 1
        r = simulate(pl, Static(b))
        assert r.makespan == pytest.approx(max(b / (np.array([8, 4, 2, 1]) * k)), rel=1e-14)
        assert r.speedup_vs_best_single == pytest.approx(b.sum() / (8 * k) / r.makespan, rel=1e-12)
        assert r.efficiency(r.makespan) == 1.0


# ---------------------------------------------------------------------------- presets
def test_presets_load():
    p5 = Platform.preset("paper5")
    assert p5.m == 11 and p5.stand_in and p5.n == 2**20
    assert p5.kinds == ("cpu", "gpu", "cpu", "gpu", "cpu", "phi", "cpu", "gpu", "cpu", "gpu", "phi")
    assert not p5.devices[0].hops and p5.devices[1].hops == ((1e-5, 6e9),)
    assert p5.devices[1].setup_bytes == 32 * 2**20
    assert p5.true_time(1, 1e6, part="comp") == pytest.approx(0.01 + 1e6 / (3000 * -math.expm1(-1e6 / 256)))
    a = Platform.preset("machines", machines="AB", app="grn")
    assert a.m == 4 and a.devices[0].curve.rate == 125.0 and a.devices[3].bytes_per_elem == 64
    for case, fac in (("a", 2.0), ("b", 8.0)):
        ad = Platform.preset("adapt2", case=case)
        assert ad.m == 4 and ad.n == 1_500_000
        assert tuple(ad.fluctuations) == ((142.0, math.inf, 1, fac),)
    h = Platform.preset("hetero3")
    assert h.kinds == ("cpu", "gpu", "gpu") and h.n == 2**20
    assert all(d.sigma == 0.02 and not d.hops for d in h.devices)
    l4 = Platform.preset("linear4")
    assert [d.curve.rate for d in l4.devices] == [8000, 4000, 2000, 1000] and l4.devices[0].sigma == 0
    assert len(l4.curves()) == 4 and l4.curves()[3](np.array([1000.0]))[0] == 1.0
    with pytest.raises(ValueError, match="name"):
        Platform.preset("nope")
    with pytest.raises(ValueError, match="machines"):
        Platform.preset("paper5", machines="AZ")
    with pytest.raises(ValueError, match="app"):
        Platform.preset("paper5", app="fft")
    with pytest.raises(ValueError, match="case"):
        Platform.preset("adapt2", case="c")


def test_preset_file_is_package_data():
    from wpart.dynamic import PRESET_FILE

    assert PRESET_FILE.is_file() and "wpart" in PRESET_FILE.parts
    json.loads(PRESET_FILE.read_text())


# ---------------------------------------------------------------------------- curves
def test_curve_families():
    x = np.array([1.0, 10.0, 500.0, 4096.0])
    np.testing.assert_allclose(Affine(0.5, 4.0)(x), 0.5 + x / 4)
    np.testing.assert_allclose(Saturating(0.01, 2000, 4096)(x), 0.01 + x / (2000 * -np.expm1(-x / 4096)))
    np.testing.assert_allclose(Power(0.1, 2e-3, 1.5)(x), 0.1 + 2e-3 * x**1.5)
    u = x / 1000
    np.testing.assert_allclose(BasisCurve({"x": 2.0, "xlog": 1.0, "exp": 0.5}, c0=0.3, x_ref=1000)(x),
                               np.maximum(0.3 + 2 * u + u * np.log(u) + 0.5 * np.exp(u), 0))  # fmt: skip
    np.testing.assert_allclose(Table([10, 20, 40], [1, 2, 6])([5, 15, 30, 50]), [0.5, 1.5, 4, 8])
    cap = Affine(0, 1.0, mem_cap=100, mem_gamma=0.5)
    np.testing.assert_allclose(cap([50, 100, 300]), [50, 100, 100 + 1.5 * 200])
    assert Affine(0.5, 1.0)([0.0])[0] == 0.0
    with pytest.raises(ValueError, match="rate"):
        Affine(0, 0)(1)
    with pytest.raises(ValueError, match="coef"):
        BasisCurve({"x4": 1.0})(1)
    with pytest.raises(ValueError, match="increase"):
        Table([2, 1], [1, 1])(1)


# ---------------------------------------------------------------------------- API
def test_bad_input_names_the_argument():
    pl = Platform.preset("linear4")
    with pytest.raises(ValueError, match="m = 3"):
        simulate(pl, Greedy(3, 100))
    with pytest.raises(ValueError, match="eval_cost_mode"):
        simulate(pl, Greedy(4, 100), eval_cost_mode="fast")
    with pytest.raises(ValueError, match="dispatch_overhead"):
        simulate(pl, Greedy(4, 100), dispatch_overhead=-1)
    with pytest.raises(ValueError, match="seed"):
        simulate(pl, Greedy(4, 100), seed=-1)
    with pytest.raises(TypeError, match="balancer"):
        simulate(pl, object())
    with pytest.raises(TypeError, match="platform"):
        simulate(3.0, Greedy(4, 100))
    with pytest.raises(ValueError, match="name"):
        simulate("linear5", Greedy(4, 100))
    with pytest.raises(ValueError, match="balancer"):
        simulate(pl, "greedier")
    with pytest.raises(ValueError, match="kind"):
        Platform([Device("tpu", 0, Affine(0, 1))])
    with pytest.raises(ValueError, match="fluctuations"):
        Platform([Device("cpu", 0, Affine(0, 1))], fluctuations=[(0, 1, 3, 2.0)])
    with pytest.raises(ValueError, match="onoff"):
        Platform([Device("cpu", 0, Affine(0, 1))], onoff=[(0, 0.0, 1.0, 2.0)])
    with pytest.raises(ValueError, match="hops"):
        Platform([Device("cpu", 0, Affine(0, 1), hops=[(0, 1)] * 5)])
    bal = Greedy(4, 100)
    simulate(pl, bal)
    with pytest.raises(ValueError, match="already started"):
        simulate(pl, bal)


def test_result_dict_plot_progress_and_compare():
    pl = Platform.preset("paper5", machines="AB")
    seen = []
    r = simulate(pl, Greedy(pl.m, 20_000, chunk=1000), progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (20_000.0, 20_000.0)
    d = r.to_dict()
    json.dumps(d)
    assert d["idle_columns"] == list(IDLE_COLUMNS) and len(d["trace"]["pu"]) == r.n_blocks
    ax = r.plot()
    assert "simulated, stand-in platform" in ax.get_title()
    fig = r.plot_panels()
    assert "simulated, stand-in platform" in fig._suptitle.get_text() and len(fig.axes) == 2
    assert set(r.idle_by_kind()) == {"cpu", "gpu"}
    rt = simulate(pl, Greedy(pl.m, 20_000, chunk=1000), trace=False)
    assert rt.trace.size == 0 and rt.makespan == r.makespan
    g = Greedy(pl.m, 20_000, chunk=1000)
    tab = compare(pl, {"g1k": g, "static": lambda: StaticEqual(pl.m, 20_000)}, seeds=range(3), progress=False)
    assert tab.shape == (6,) and list(tab["algo"]) == ["g1k"] * 3 + ["static"] * 3
    assert tab["makespan"][0] == r.makespan
    assert not g.done and g.stats()["n_blocks"] == 0  # the given balancer is not consumed
    assert np.all(tab["idle_pct"] >= 0) and np.all(tab["speedup"] > 0)


# ---------------------------------------------------------------------------- cross-checks
def _baselines():
    import wpart.dynamic as D

    return D


@pytest.mark.parametrize("name", ["hdss", "acosta", "naive", "asymmetric", "dmda"])
def test_P1_P2_with_evaluating_baselines(name):
    """The engine's invariants under balancers with barriers and evaluations (every PU waits
    for an evaluation with trigger -1: each PU is idle for exactly n_evals * c_eval of it)."""
    D = _baselines()
    pl = Platform.preset("paper5", machines="ABC")
    W = 2**17
    make = {
        "hdss": lambda: D.HDSS(pl.m, W),
        "acosta": lambda: D.AcostaRP(pl.m, W, 8192, eval_at_barrier=True),
        "naive": lambda: D.NaiveProfile(pl.m, W),
        "asymmetric": lambda: D.Asymmetric(pl.m, W, pu_kinds=pl.kinds),
        "dmda": lambda: D.DmdaLike(W, [1.0] * pl.m, chunk=1024),
    }[name]
    for seed in (0, 1):
        r = simulate(pl, make(), seed=seed, eval_cost=0.1)
        check_coverage(r, W)
        assert math.isclose(r.busy.sum() + r.idle.sum(), pl.m * r.makespan, rel_tol=1e-9)
        np.testing.assert_allclose(r.idle_breakdown.sum(axis=1), r.idle, atol=1e-9 * r.makespan)
        assert r.eval_time == pytest.approx(0.1 * r.n_evals)
        np.testing.assert_allclose(r.idle_breakdown[:, EVAL], 0.1 * r.n_evals, rtol=1e-9, atol=1e-12)
        if r.n_barriers:
            assert r.idle_breakdown[:, BAR].sum() > 0
        else:
            assert np.all(r.idle_breakdown[:, BAR] == 0)
        r2 = simulate(pl, make(), seed=seed, eval_cost=0.1)
        assert r2.trace.tobytes() == r.trace.tobytes()


def test_progress_callback_error_stops_the_run():
    pl = Platform.preset("linear4")
    bal = Greedy(4, 50_000, chunk=1)

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        simulate(pl, bal, progress=stop)
    with pytest.raises(ValueError, match="already started"):  # released, not left busy
        simulate(pl, bal)


def test_eval_cost_modes_with_hdss():
    D = _baselines()
    pl = Platform.preset("hetero3")
    W = 2**16
    r = simulate(pl, D.HDSS(3, W), eval_cost_mode="model", eval_model=(0.3, 0.0))
    assert r.n_evals >= 1 and r.eval_time == pytest.approx(0.3 * r.n_evals)
    m = simulate(pl, D.HDSS(3, W), eval_cost_mode="measured", eval_scale=1.0)
    assert m.n_evals >= 1 and 0 <= m.eval_time < 1.0
    check_coverage(m, W)


def test_block_time_is_the_engines_formula():
    """Platform.block_time (the device function a run-based driver reuses) reproduces every
    simulated block from (seed, pu, j, size, transfer start)."""
    pl = Platform.preset("adapt2", case="b")
    pl = Platform(pl.devices, fluctuations=[(3.0, 9.0, 1, 8.0), (5.0, 40.0, 3, 2.0)], name="t")
    r = simulate(pl, Greedy(pl.m, 30_000, chunk=600), seed=5)
    j = [0] * pl.m
    for rec in r.trace:
        p = int(rec["pu"])
        tx, tc = pl.block_time(p, int(rec["size"]), t=float(rec["t_xfer_start"]), j=j[p], seed=5)
        j[p] += 1
        assert tx == rec["t_xfer"]
        assert tc == pytest.approx(rec["t_comp"], rel=1e-12, abs=1e-12)


def test_tqdm_progress_and_event_cap():
    pl = Platform.preset("linear4")
    r = simulate(pl, Greedy(4, 20_000, chunk=1), progress=True)
    assert r.n_blocks == 20_000
    with pytest.raises(RuntimeError, match="max_events"):
        simulate(pl, Greedy(4, 20_000, chunk=1), max_events=5000)
    for bad in ((1.0,), 1.0, np.array(1.0), (0.1, -1.0), (0.1, np.nan)):  # 0-d: no len()
        with pytest.raises(ValueError, match="eval_model"):
            simulate(pl, Greedy(4, 100), eval_model=bad)
    with pytest.raises(ValueError, match="max_events"):
        simulate(pl, Greedy(4, 100), max_events=-1)
