"""Oracles of wpart.dynamic (spec 001 §3.4) and the lower-bound property P8 for the baselines."""

import itertools
import math

import numpy as np
import pytest

from wpart.dynamic import (
    HDSS,
    AcostaRP,
    Affine,
    Asymmetric,
    Device,
    DmdaLike,
    FixedBlocks,
    Greedy,
    NaiveProfile,
    Platform,
    Saturating,
    Static,
    StaticPeak,
    oracle_oneshot,
    oracle_stepped,
    simulate,
    true_curves,
)


def noiseless_platform(seed, n=None):
    """Random subadditive truths (affine with intercept, saturating), transfers, setup bytes;
    no noise and no fluctuation."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(1, 6))
    devs = []
    for p in range(n):
        if rng.random() < 0.5:
            kind, curve = "cpu", Affine(float(rng.uniform(0.0, 0.01)), float(rng.uniform(50, 300)))
        else:
            kind = "gpu" if rng.random() < 0.7 else "phi"
            curve = Saturating(float(rng.uniform(0.005, 0.05)), float(rng.uniform(500, 3000)),
                               float(rng.uniform(64, 4096)))
        hops = [] if rng.random() < 0.4 else [(float(rng.uniform(1e-5, 1e-4)), float(rng.uniform(1e8, 6e9)))]
        devs.append(Device(kind, p, curve, hops=hops, bytes_per_elem=64.0 if hops else 0.0,
                           setup_bytes=float(rng.uniform(0, 1e6)) if hops else 0.0,
                           sigma=0.0, sigma_xfer=0.0))
    return Platform(devs, name=f"noiseless{seed}")


def brute_oneshot(curves, W):
    """min over integer allocations of max over used PUs of E_p (n <= 3, small W)."""
    n = len(curves)
    best = math.inf
    for cut in itertools.product(range(W + 1), repeat=n - 1):
        if sum(cut) > W:
            continue
        x = list(cut) + [W - sum(cut)]
        best = min(best, max(curves[p](float(x[p])) for p in range(n) if x[p] > 0))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_oneshot_matches_brute_force_on_small_instances(seed):
    pl = noiseless_platform(seed, n=1 + seed % 3)
    W = 40 + 7 * seed
    o = oracle_oneshot(pl, W)
    curves = true_curves(pl)
    assert o.blocks.sum() == W and o.S == W and o.kind == "oneshot"
    assert o.makespan == pytest.approx(brute_oneshot(curves, W), rel=1e-12)
    assert o.makespan >= o.T_cont * (1 - 1e-9)


def test_oneshot_linear_closed_form_and_unpacking():
    pl = Platform.preset("linear4", k=1.0, sigma=0.0)
    blocks, S, mk = oracle_oneshot(pl, 150)
    assert blocks.tolist() == [80, 40, 20, 10] and S == 150 and mk == pytest.approx(10.0)
    o = oracle_oneshot(pl, 150, quantum=4)
    assert o.blocks.sum() == 150 and sum(b % 4 != 0 for b in o.blocks) <= 1
    d = o.to_dict()
    assert d["kind"] == "oneshot" and d["blocks"] == o.blocks.tolist()


@pytest.mark.parametrize("seed", range(6))
def test_oneshot_predicted_equals_simulated_without_noise(seed):
    pl = noiseless_platform(seed)
    W = 200_000
    o = oracle_oneshot(pl, W)
    r = simulate(pl, o.balancer(), seed=seed)
    assert r.makespan == pytest.approx(o.makespan, rel=1e-12, abs=1e-12)


def baselines_for(pl, W):
    n = pl.m
    est = [float(pl.true_time(p, 1024)) for p in range(n)]
    o = oracle_oneshot(pl, W)
    return {
        "greedy": Greedy(n, W, chunk=1024),
        "greedy16k": Greedy(n, W, chunk=16384),
        "hdss": HDSS(n, W),
        "acosta": AcostaRP(n, W, max(n, W // 16)),
        "naive": NaiveProfile(n, W),
        "asymmetric": Asymmetric(n, W, pl.kinds),
        "static_peak": StaticPeak(W, [1.0 + p for p in range(n)]),
        "dmda": DmdaLike(W, est),
        "fixed": FixedBlocks(W, np.maximum(o.blocks // 8, 1)),
        "oneshot": o.balancer(),
    }


@pytest.mark.parametrize("seed", range(5))
def test_P8_makespan_is_never_below_the_oneshot_bound(seed):
    pl = noiseless_platform(100 + seed)
    W = 150_000
    T = oracle_oneshot(pl, W).makespan
    for name, bal in baselines_for(pl, W).items():
        r = simulate(pl, bal, seed=seed, eval_cost=0.1)
        assert r.makespan >= T - 1e-9, (name, r.makespan, T)
        assert int(r.elements.sum()) == W


def test_stepped_oracle_runs_fixed_shares_and_picks_the_best():
    pl = noiseless_platform(7, n=3)
    W = 60_000
    o = oracle_stepped(pl, W, divisors=[1, 2, 4, 8], seed=3)
    blocks, S, mk = o
    assert o.kind == "stepped" and blocks.sum() == S
    assert set(o.table["S"].tolist()) == {W, W // 2, W // 4, W // 8}
    assert mk == o.table["makespan"].min()
    again = simulate(pl, FixedBlocks(W, blocks), seed=3)
    assert again.makespan == mk
    # S = W is the one-shot oracle itself
    one = oracle_oneshot(pl, W)
    row = o.table[o.table["S"] == W][0]
    assert row["makespan"] == pytest.approx(one.makespan, rel=1e-12)
    assert mk >= one.makespan - 1e-9  # P8 for the stepped oracle too
    assert isinstance(o.balancer(), FixedBlocks)
    assert isinstance(one.balancer(), Static)


def test_stepped_oracle_default_divisors_on_a_noisy_preset():
    pl = Platform.preset("hetero3")
    W = 2**16
    o = oracle_stepped(pl, W, seed=0)
    assert len(o.table) == len(set(-(-W // j) for j in range(1, 65)))
    g = simulate(pl, Greedy(pl.m, W, chunk=1024), seed=0)
    assert o.makespan < g.makespan


def test_oracle_bad_input():
    pl = noiseless_platform(1, n=2)
    with pytest.raises(TypeError, match="platform"):
        oracle_oneshot("paper5", 10)
    with pytest.raises(ValueError, match="`n`"):
        oracle_oneshot(pl, 0)
    with pytest.raises(ValueError, match="quantum"):
        oracle_oneshot(pl, 10, quantum=0)
    with pytest.raises(ValueError, match="quantum"):
        oracle_oneshot(pl, 10, quantum=11)
    with pytest.raises(ValueError, match="divisors"):
        oracle_stepped(pl, 10, divisors=[])
    with pytest.raises(ValueError, match="divisors"):
        oracle_stepped(pl, 10, divisors=[0])
    with pytest.raises(TypeError, match="divisors"):
        oracle_stepped(pl, 10, divisors="12")


def affine_platform(rates, t0=0.002, sigma=0.03):
    return Platform([Device("cpu" if r < 1000 else "gpu", p, Affine(t0, r), sigma=sigma, sigma_xfer=0.0)
                     for p, r in enumerate(rates)])


@pytest.mark.parametrize("seed", range(10))
def test_P14_hdss_in_the_simulator(seed):
    rates = np.array([120.0, 250.0, 1500.0, 3000.0])
    pl = affine_platform(rates)
    W = 2**20
    r = simulate(pl, HDSS(4, W), seed=seed, eval_cost=0.1)
    w = r.shares / 100.0
    assert np.all(np.abs(w / (rates / rates.sum()) - 1.0) <= 0.20), w
    tr = np.sort(r.trace, order="block")
    for p in range(4):
        chunks = tr["size"][(tr["pu"] == p) & (tr["kind"] == 3)]
        assert chunks.size and np.all(np.diff(chunks) <= 0)
    rounds = np.unique(tr["vstep"][tr["kind"] == 0])
    assert rounds.tolist() == list(range(1, rounds.size + 1))
    assert r.n_barriers == rounds.size and r.n_evals == 1
    np.testing.assert_allclose(r.idle_breakdown[:, 1], 0.1, rtol=1e-9)  # every PU waits for it


def test_barrier_counts_in_the_simulator():
    pl = affine_platform([100.0, 400.0, 900.0])
    W = 100_000
    r = simulate(pl, AcostaRP(3, W, 7_000), seed=1)
    assert r.n_barriers == math.ceil(W / 7_000) and r.n_evals == 0
    r = simulate(pl, AcostaRP(3, W, 7_000, eval_at_barrier=True), seed=1, eval_cost=0.05)
    assert r.n_evals == math.ceil(W / 7_000) - 1
    r = simulate(pl, NaiveProfile(3, W), seed=1)
    assert r.n_barriers == 1 and r.idle_breakdown[:, 0].max() > 0
    for bal in (Greedy(3, W), DmdaLike(W, [10.0, 2.5, 1.1]), Asymmetric(3, W, ["cpu", "gpu", "gpu"])):
        r = simulate(pl, bal, seed=1)
        assert r.n_barriers == 0 and r.n_evals == 0 and r.idle_breakdown[:, 0].sum() == 0


def test_dmda_calibration_and_dmda_in_the_simulator():
    from wpart.dynamic import dmda_calibration

    pl = noiseless_platform(3, n=3)
    est = dmda_calibration(pl, chunk=512, runs=4)
    want = [float(pl.true_time(p, 512)) for p in range(3)]
    np.testing.assert_allclose(est, want, rtol=1e-12)
    noisy = Platform.preset("hetero3")
    est = dmda_calibration(noisy, chunk=1024, seed=5)
    want = np.array([float(noisy.true_time(p, 1024)) for p in range(3)])
    assert np.all(np.abs(est / want - 1) < 0.05)
    W = 2**16
    r = simulate(noisy, DmdaLike(W, est), seed=0)
    assert int(r.elements.sum()) == W and r.n_blocks == W // 1024
    with pytest.raises(ValueError, match="runs"):
        dmda_calibration(pl, chunk=512, runs=0)
