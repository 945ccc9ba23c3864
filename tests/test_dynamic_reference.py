"""P13 of spec 001 §6.4: a slow pure-Python reference of the balancers and of the event engine
(tests/oracles/dynamic_ref*.py) gives the C trace: sizes, offsets, PUs, kinds, steps and model
versions exactly, times to 1e-9 relative.
"""

import math

import numpy as np
import pytest

from tests.oracles.dynamic_ref import (
    NOISE_COMP,
    NOISE_XFER,
    RefGreedy,
    curve_time,
    noise_lognormal,
    simulate_ref,
    xfer_time,
)
from tests.oracles import dynamic_ref_model as ref_model
from wpart.dynamic import (
    Greedy,
    Platform,
    capacity,
    fit_model,
    round_blocks,
    simulate,
    solve_equal_time,
)

EXACT = ("pu", "block", "offset", "size", "kind", "vstep", "model_version")
TIMES = ("t_assign", "t_xfer_start", "t_comp_start", "t_end", "pred_end", "t_xfer", "t_comp")


def assert_same_trace(ref, c_res, rtol=1e-9):
    """The reference trace equals the C trace (the first difference is reported)."""
    r, c = ref.trace, c_res.trace
    assert len(r) == len(c), f"{len(r)} reference blocks, {len(c)} C blocks"
    for f in EXACT:
        bad = np.flatnonzero(r[f] != c[f])
        i = bad[0] if bad.size else 0
        assert bad.size == 0, f"field {f} differs first at block {i}: ref {r[i]} C {c[i]}"
    for f in TIMES:
        np.testing.assert_allclose(r[f], c[f], rtol=rtol, atol=1e-12, equal_nan=True, err_msg=f)
    assert ref.makespan == pytest.approx(c_res.makespan, rel=rtol)
    np.testing.assert_allclose(ref.busy, c_res.busy, rtol=rtol)
    assert ref.elements.tolist() == c_res.elements.tolist()
    assert ref.n_events == c_res.stats["n_events"]


# ------------------------------------------------------------------------------ RNG and devices
@pytest.mark.parametrize("name", ["hetero3", "paper5"])
def test_noise_and_device_times_bit_for_bit(name):
    pl = Platform.preset(name, machines="ABE") if name == "paper5" else Platform.preset(name)
    for seed in (0, 1, 2**63 + 5):
        for p, d in enumerate(pl.devices):
            sig = d.sigma
            for j, x in ((0, 1024), (1, 3), (7, 40000), (123456, 1)):
                tx = xfer_time(d, float(x), j == 0)
                if tx > 0 and d.sigma_xfer > 0:
                    tx *= noise_lognormal(seed, p, NOISE_XFER, j, d.sigma_xfer)
                tc = curve_time(d.curve, float(x)) * noise_lognormal(seed, p, NOISE_COMP, j, sig)
                c_tx, c_tc = pl.block_time(p, x, j=j, seed=seed)
                assert tx == c_tx
                assert tc == pytest.approx(c_tc, rel=1e-15, abs=0)


def test_noise_is_mean_one_lognormal():
    z = np.array([noise_lognormal(7, 1, NOISE_COMP, j, 0.5) for j in range(4000)])
    assert z.mean() == pytest.approx(1.0, abs=0.03)
    assert np.log(z).std() == pytest.approx(0.5, abs=0.02)


# ------------------------------------------------------------------------------ Greedy
@pytest.mark.parametrize(
    "name, total, chunk, seed",
    [("linear4", 2**18, 1024, 0), ("hetero3", 2**16, 1024, 0), ("hetero3", 2**16, 1024, 3),
     ("hetero3", 2**16 + 77, 1000, 1)],
)  # fmt: skip
def test_greedy_trace_equals_c(name, total, chunk, seed):
    pl = Platform.preset(name)
    ref = simulate_ref(pl, RefGreedy(pl.m, total, chunk), seed=seed)
    assert_same_trace(ref, simulate(pl, Greedy(pl.m, total, chunk=chunk), seed=seed))


def test_greedy_trace_equals_c_with_transfers_and_slowdowns():
    """Hops, setup bytes, transfer noise, and a slowdown schedule integrated over time."""
    base = Platform.preset("paper5", machines="ABE", app="mm")
    fl = [(0.5, 3.0, 1, 4.0), (1.0, 2.0, 1, 2.0), (0.2, math.inf, 0, 3.0), (0.0, 0.7, 3, 1.5)]
    pl = Platform(base.devices, fluctuations=fl)
    W = 2**14
    ref = simulate_ref(pl, RefGreedy(pl.m, W, 256), seed=5)
    assert_same_trace(ref, simulate(pl, Greedy(pl.m, W, chunk=256), seed=5))



def test_greedy_trace_equals_c_with_outliers_power_and_mem_cap():
    from wpart.dynamic import Affine, Device, Power, Saturating

    devs = [
        Device("cpu", 0, Affine(0.001, 500.0), p_out=0.3, f_out=4.0),
        Device("gpu", 1, Saturating(0.01, 3000.0, 512.0), hops=[(1e-5, 6e9)], bytes_per_elem=64.0,
               p_out=0.1, f_out=2.5),
        Device("phi", 2, Power(0.0, 1e-3, 1.1, mem_cap=2000.0, mem_gamma=0.5)),
    ]  # fmt: skip
    pl = Platform(devs)
    for g in (700, 3000):
        ref = simulate_ref(pl, RefGreedy(3, 50000, g), seed=9)
        assert_same_trace(ref, simulate(pl, Greedy(3, 50000, chunk=g), seed=9))

# ------------------------------------------------------------------------------ models and solver
def _samples(rng, trial):
    m = int(rng.integers(2, 25))
    xs = rng.choice([1024, 2048, 700, 3000, 5000, 12000, 333, 64, 40000], size=m)
    if trial % 5 == 0:
        xs = np.array([1024, 2048] * (m // 2) + [1024] * (m % 2))
    shape = trial % 3
    if shape == 0:
        tc = xs / 1000.0
    elif shape == 1:
        tc = 0.01 + xs / (2000.0 * (1 - np.exp(-xs / 4096.0)))
    else:
        tc = 0.002 + (xs / 3000.0) ** 1.3
    if trial % 2:
        tc = tc * np.exp(0.02 * rng.standard_normal(m))
    tx = None if trial % 4 else 1e-4 + xs * 1e-7 * np.exp(0.02 * rng.standard_normal(m))
    return xs, tc, tx


def _ref_fit(xs, tc, tx, decay=1.0):
    txs = None if tx is None else [float(v) for v in tx]
    return ref_model.fit_model([int(v) for v in xs], [float(v) for v in tc], txs, decay=decay)


def test_reference_fit_is_bit_identical_to_c():
    """Selection, coefficients, domain and evaluation: the same doubles as the C fit."""
    rng = np.random.default_rng(0)
    for trial in range(80):
        xs, tc, tx = _samples(rng, trial)
        decay = 0.8 if trial % 7 == 3 else 1.0
        c = fit_model(xs, tc, t_xfer=tx, decay=decay)
        r = _ref_fit(xs, tc, tx, decay)
        mine = [r.mask, *r.coef, r.c0, r.x_scale, r.g_slope, r.g_icept, r.x_a, r.x_b, r.e_a, r.e_b]
        mine.append(r.slope_hi)
        assert mine == c.packed[:17].tolist(), trial
        for x in (1.0, 100.0, 1500.0, 5e4, 1e6):
            assert ref_model.model_eval(r, x) == float(c(x))


@pytest.mark.parametrize("m", [3000, 3400, 5000])
def test_decayed_fit_with_underflowing_weights(m):
    """decay = 0.8 (preset robust): 0.8^a underflows to 0 past ~3340 samples; those samples add
    nothing, and the fit (with transfers) stays finite and equal to the reference. The C fit
    once failed here with "fitted model is not finite" (a 0/0 in the transfer means)."""
    x = np.tile([1024, 2048, 4096], m)[:m]
    tc, tx = x / 1000.0, 1e-4 + x * 1e-7
    c = fit_model(x, tc, t_xfer=tx, decay=0.8)
    r = _ref_fit(x, tc, tx, 0.8)
    assert np.all(np.isfinite(c.packed[:17]))
    assert [r.mask, *r.coef, r.c0, r.x_scale, r.g_slope, r.g_icept] == c.packed[:12].tolist()
    assert c.g_slope == pytest.approx(1024 * 1e-7 * 4, rel=1e-9)
    assert c.g_icept == pytest.approx(1e-4, rel=1e-9)

def test_reference_capacity_solve_and_round_equal_c():
    rng = np.random.default_rng(1)
    for trial in range(40):
        fits = [_samples(rng, 3 * trial + k) for k in range(3)]
        cm = [fit_model(xs, tc, t_xfer=tx) for xs, tc, tx in fits]
        rm = [_ref_fit(*f) for f in fits]
        lb = [float(v) for v in rng.choice([0, 1, 1024], size=3)]
        ub = [1e5] * 3
        tau = float(rng.uniform(0.5, 3.0))
        assert ref_model.capacity(rm, tau, lb, ub) == capacity(cm, tau, lb=lb, ub=ub)[1]
        S = int(rng.integers(3000, 60000))
        x, _ = ref_model.solve(rm, float(S), lb, ub)
        xc, _ = solve_equal_time(cm, float(S), lb=lb, ub=ub)
        np.testing.assert_allclose(x, xc, rtol=1e-7, atol=1e-6)
        ilb, iub = [int(v) for v in lb], [int(v) for v in ub]
        b, _ = ref_model.round_blocks(rm, x, S, 1, ilb, iub)
        bc, _ = round_blocks(cm, xc, S, lb=ilb, ub=iub)
        assert b == bc.tolist()


# ------------------------------------------------------------------------------ PLB-HAC
def _plbhac_pair(pl, total, preset="paper", **kw):
    import wpart.dynamic as wd

    from tests.oracles.dynamic_ref_plbhac import RefPLBHAC

    kinds = [d.kind for d in pl.devices]
    ref = RefPLBHAC(pl.m, total, kinds, preset=preset, **kw)
    # the reference does not model robust's change detection (tests/test_dynamic_fidelity.py)
    return ref, wd.PLBHAC(pl.m, total, pu_kinds=kinds, preset=preset, change_ratio=0.0, **kw)


@pytest.mark.parametrize(
    "name, total, seed, preset",
    [("linear4", 2**18, 0, "paper"), ("hetero3", 2**16, 0, "paper"), ("hetero3", 2**16, 1, "paper"),
     ("hetero3", 2**16, 0, "robust"), ("hetero3", 2**16, 1, "robust")],
)  # fmt: skip
# (linear4 with robust's affine model fits the exact rates exactly: its sizes then sit on
# rounding ties that the two implementations' last bits break apart)
def test_plbhac_trace_equals_c(name, total, seed, preset, **kw):
    pl = Platform.preset(name)
    ref_b, c_b = _plbhac_pair(pl, total, preset, **kw)
    ref = simulate_ref(pl, ref_b, seed=seed)
    res = simulate(pl, c_b, seed=seed)
    ser = res.series
    tie = _first_rounding_tie(ser, ref_b.series)
    if tie is not None:  # the two runs part there: compare what came before
        _assert_same_prefix(ref, res, int(ser[tie]["model_version"]))
        ser, ref_series = ser[:tie], ref_b.series[:tie]
    else:
        assert_same_trace(ref, res)
        assert ref.n_evals == res.n_evals
        assert len(ser) == len(ref_b.series)
        ref_series = ref_b.series
    # the published series: versions, X, S_eff, T_pred
    for row, (t, v, T, s_eff, X) in zip(ser, ref_series):
        assert (int(row["model_version"]), int(row["S_eff"]), tuple(row["X"])) == (v, s_eff, X)
        assert row["t"] == pytest.approx(t, rel=1e-12)
        assert row["T_pred"] == pytest.approx(T, rel=1e-9)


def _first_rounding_tie(ser, ref_series):
    """The index of the first evaluation whose block sizes differ between the C run and the
    reference, provided that it is a rounding tie: the same step S_eff split into blocks whose
    predicted finish is the same to 1e-12 (exact rates fit exactly: two roundings finish
    together in exact arithmetic, and the two implementations' last bits pick one each; both
    are optimal). None when no sizes differ; an assertion error when they differ otherwise."""
    for k, (row, (t, v, T, s_eff, X)) in enumerate(zip(ser, ref_series)):
        if tuple(row["X"]) != X:
            assert (int(row["model_version"]), int(row["S_eff"])) == (v, s_eff)
            assert row["t"] == pytest.approx(t, rel=1e-12)
            assert row["T_pred"] == pytest.approx(T, rel=1e-12), "sizes differ, not on a tie"
            return k
    return None


def _assert_same_prefix(ref, res, version):
    """The traces agree on every block sized before model `version`."""
    r, c = ref.trace, res.trace
    r, c = r[r["model_version"] < version], c[c["model_version"] < version]
    assert len(r) == len(c) > 0
    for f in EXACT:
        assert np.array_equal(r[f], c[f]), f
    for f in TIMES:
        np.testing.assert_allclose(r[f], c[f], rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=f)


def test_plbhac_worked_example_linear4():
    """§2.10 at scale (r = (8, 4, 2, 1) * 1000, x_init = 1024): the frozen step is
    2 s * 15000 el/s = 30000 elements and X = (16000, 8000, 4000, 2000)."""
    from tests.oracles.dynamic_ref_plbhac import RefPLBHAC

    pl = Platform.preset("linear4")
    b = RefPLBHAC(4, 2**18, ["cpu"] * 4)
    simulate_ref(pl, b)
    assert b.series[0][3:] == (30000, (16000, 8000, 4000, 2000))
    assert b.series[0][2] == pytest.approx(2.0, rel=1e-12)


def test_plbhac_trace_equals_c_with_transfers_and_quantum():
    """Transfer models (hops, setup bytes, transfer noise) and q > 1 with a ragged W."""
    pl = Platform.preset("paper5", machines="AB", app="grn")
    ref_b, c_b = _plbhac_pair(pl, 2**15 + 37, quantum=100)
    assert_same_trace(simulate_ref(pl, ref_b, seed=4), simulate(pl, c_b, seed=4))


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, total, seed, preset",
    [("linear4", 2**22, 0, "paper"), ("hetero3", 2**18, 2, "paper"), ("hetero3", 2**16, 7, "paper"),
     ("hetero3", 2**20, 0, "paper"), ("hetero3", 2**18, 3, "robust"),
     ("paper5", 2**16, 1, "paper")],
)  # fmt: skip
def test_plbhac_trace_equals_c_slow(name, total, seed, preset):
    test_plbhac_trace_equals_c(name, total, seed, preset)


@pytest.mark.parametrize(
    "name, total, preset",
    [("hetero3", 2**16, "paper"), ("linear4", 2**18, "paper"), ("hetero3", 2**16, "robust")],
)
def test_plbhac_idle_breakdown(name, total, preset):
    """Spec §5.6 read literally: barrier = held in the waiting set, eval = waiting for one's OWN
    evaluation. The C engine counts the evaluation that ends the training barrier as "eval"
    for every PU it releases; the reference counts it as "barrier" except for its trigger. That
    is the only difference (c_eval per released non-trigger PU in barrier mode)."""
    pl = Platform.preset(name)
    ref_b, c_b = _plbhac_pair(pl, total, preset)
    ref, res = simulate_ref(pl, ref_b, seed=0), simulate(pl, c_b, seed=0)
    ib_r, ib_c = ref.idle_breakdown, res.idle_breakdown
    np.testing.assert_allclose(ib_r.sum(1), res.idle, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ib_r[:, 2:], ib_c[:, 2:], rtol=1e-9, atol=1e-12)
    shift = np.zeros(pl.m)
    if preset == "paper":  # the barrier's evaluation: trigger = the last PU to finish training
        t_first = res.trace[res.trace["model_version"] == 1]["t_assign"].min()
        train = res.trace[res.trace["kind"] == 0]
        trigger = train["pu"][np.argmax(train["t_end"])]
        shift[:] = t_first - train["t_end"].max()
        shift[trigger] = 0.0
    np.testing.assert_allclose(ib_c[:, 1] - ib_r[:, 1], shift, atol=1e-9)
    np.testing.assert_allclose(ib_r[:, 0] - ib_c[:, 0], shift, atol=1e-9)



@pytest.mark.parametrize("eval_kw", [{"eval_cost": 0.0}, {"eval_cost": 0.5},
                                     {"eval_model": (0.05, 0.002)}])  # fmt: skip
def test_plbhac_trace_equals_c_eval_costs(eval_kw):
    """Zero cost (EVAL_DONE ties with the request, broken by insertion order), long evaluations,
    and the "model" cost a + b * blocks completed."""
    pl = Platform.preset("hetero3")
    ref_b, c_b = _plbhac_pair(pl, 2**16)
    ckw = dict(eval_kw)
    if "eval_model" in ckw:
        ckw["eval_cost_mode"] = "model"
    assert_same_trace(simulate_ref(pl, ref_b, seed=1, **eval_kw), simulate(pl, c_b, seed=1, **ckw))
