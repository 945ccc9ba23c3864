"""Decisions of multi-kernel runs [Soldado 2016] at the level of pure functions: static
distribution, bisection generator, configuration search, detector, adaptive binary search,
interpolation. Test names carry the property IDs (P-...)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import wpart
from wpart.multikernel import (MK_DEFAULTS, AdaptiveBinarySearch, BisectionGenerator, ConfigSearch,
                               GpuCaps, ImbalanceDetector, balance_ratio, exec_shares,
                               gpu_fractions, interpolate, occupancy, seed_share, wgs_candidates)


# ---------------------------------------------------------------- static distribution ----

def test_P_STATIC_1_gpu_fractions_proportional_to_scores():
    f = gpu_fractions([2.0, 1.0, 1.0], 0.8)
    assert np.allclose(f, [0.4, 0.2, 0.2]) and abs(f.sum() - 0.8) < 1e-15
    phi = exec_shares(0.8, [2.0, 1.0, 1.0], overlap=2, cpu_subdevices=4)
    assert phi.shape == (10,) and abs(phi.sum() - 1.0) < 1e-12
    assert np.allclose(phi[:2], 0.2) and np.allclose(phi[6:], 0.05)


def test_P_STATIC_2_seed_equalises_linear_devices():
    rng = np.random.default_rng(0)
    for _ in range(200):
        g = rng.uniform(0.1, 10, size=rng.integers(1, 4))
        c = rng.uniform(0.1, 10)
        s = seed_share(g, c)
        # device times: work / throughput; the GPU type splits s statically
        t_gpu = max(s * gi / g.sum() / gi for gi in g)
        t_cpu = (1 - s) / c
        assert abs(t_gpu - t_cpu) <= 1e-12 * max(t_gpu, t_cpu)
    assert seed_share([], 1.0) == 0.0
    with pytest.raises(wpart.WpartValueError, match="cpu_score"):
        seed_share([1.0], -1.0)


def test_P_PROF_4_wgs_filter_and_occupancy():
    w, o = wgs_candidates()
    assert (o >= MK_DEFAULTS["occupancy_threshold"]).all() and len(w) >= 1
    assert all(o[i] > o[i + 1] or (o[i] == o[i + 1] and w[i] > w[i + 1]) for i in range(len(w) - 1))
    # heavy register use: nothing reaches 0.8, only the best one is kept
    w2, o2 = wgs_candidates(vgpr_per_thread=128)
    assert len(w2) == 1 and o2[0] < 0.8
    allo = [occupancy(None, s, vgpr_per_thread=128) for s in range(64, 257, 64)]
    assert o2[0] == max(allo)
    assert occupancy(GpuCaps(), 256) == 0.8 and occupancy(GpuCaps(), 256, vgpr_per_thread=24) == 1.0
    with pytest.raises(wpart.WpartValueError, match="wgs"):
        occupancy(None, 512)


# ---------------------------------------------------------------- bisection generator ----

def test_P_BIS_1_2_invariant_and_sequence():
    gen = BisectionGenerator()
    seq = []
    for i in range(1, 9):
        s = gen.candidate()
        st = gen.state
        assert st["g"] <= s <= 1 - st["c"]                                   # P-BIS-2
        seq.append(s)
        gen.feedback(1.0, 2.0)
        st = gen.state
        assert abs(st["g"] + st["c"] + st["X"] - 1) < 1e-15 and st["X"] == 2.0 ** -i   # P-BIS-1
    assert seq[:3] == [0.5, 0.75, 0.875]


def test_P_BIS_3_linear_devices():
    rng = np.random.default_rng(1)
    for _ in range(300):
        a, b = rng.uniform(0.1, 10, 2)             # t_gpu = a s, t_cpu = b (1 - s)
        star = b / (a + b)
        gen = BisectionGenerator(x_min=1e-9)
        for i in range(1, 20):
            s = gen.candidate()
            gen.feedback(a * s, b * (1 - s))
            st = gen.state
            assert st["g"] - 1e-12 <= star <= 1 - st["c"] + 1e-12
            assert abs(gen.candidate() - star) <= 2.0 ** -i


def test_P_BIS_4_tie_and_x_min_exhaust():
    gen = BisectionGenerator()
    assert gen.feedback(1.0, 1.0) is True and gen.exhausted
    with pytest.raises(wpart.WpartValueError, match="exhausted"):
        gen.feedback(1.0, 2.0)
    gen = BisectionGenerator(x_min=0.2)
    assert [gen.feedback(1, 2) for _ in range(3)] == [False, False, True]
    with pytest.raises(wpart.WpartValueError, match="x_min"):
        BisectionGenerator(x_min=0.0)
    with pytest.raises(wpart.WpartValueError, match="t_gpu"):
        BisectionGenerator().feedback(float("nan"), 1.0)


# ---------------------------------------------------------------- configuration search ---

def _run_search(times, dims):
    cs = ConfigSearch(*dims)
    seen = []
    while (cfg := cs.next()) is not None:
        seen.append(cfg)
        cs.report(times[cfg])
    return cs, seen


def test_P_PROF_1_discard_rule_and_order_against_a_reference():
    rng = random.Random(5)

    def reference(times, nf, no, nw):       # Algorithm 1 of the paper, literally
        seen = []
        prev_f = float("inf")
        for f in range(nf):
            best_f, prev_o = float("inf"), float("inf")
            for o in range(no):
                best_o, prev_w = float("inf"), float("inf")
                for w in range(nw):
                    t = times[(f, o, w)]
                    seen.append((f, o, w))
                    best_o = min(best_o, t)
                    if t >= prev_w:
                        break
                    prev_w = t
                best_f = min(best_f, best_o)
                if best_o >= prev_o:
                    break
                prev_o = best_o
            if best_f >= prev_f:
                break
            prev_f = best_f
        return seen

    for _ in range(500):
        dims = (rng.randint(1, 5), rng.randint(1, 4), rng.randint(1, 4))
        times = {(f, o, w): float(rng.randint(1, 6)) for f in range(dims[0])
                 for o in range(dims[1]) for w in range(dims[2])}
        cs, seen = _run_search(times, dims)
        assert seen == reference(times, *dims)
        # P-PROF-2: the best is the minimum over everything evaluated
        cfg, t = cs.best
        assert t == min(times[c] for c in seen) and times[cfg] == t and cs.evaluated == len(seen)


# ---------------------------------------------------------------- detector ---------------

_DET_TABLE = {1.00: [2, 2, 3, 3, 4, 5, 7, 14], 0.95: [2, 2, 2, 2, 3, 4, 5, 11]}
_DET_RATIOS = [0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]


@pytest.mark.parametrize("history", [1.00, 0.95])
def test_P_DET_2_runs_to_fire_table(history):
    for d, want in zip(_DET_RATIOS, _DET_TABLE[history]):
        det = ImbalanceDetector(window=1)  # the paper's rule on each run's own ratio
        for _ in range(300):
            assert det.update([history, 1.0])[0] is False
        n = 0
        while True:
            n += 1
            fire, dev = det.update([d, 1.0])
            assert abs(dev - d) < 1e-15
            if fire:
                break
        assert n == want, (history, d)


def test_P_DET_1_3_balanced_never_fires_isolated_run_never_fires():
    rng = np.random.default_rng(2)
    det = ImbalanceDetector()
    for _ in range(2000):
        r = rng.uniform(0.85, 1.0)
        assert det.update(np.array([r, 1.0]))[0] is False                     # P-DET-1
    for d in np.linspace(0, 0.84, 12):
        det = ImbalanceDetector()
        for _ in range(300):
            det.update([0.95, 1.0])
        fires = [det.update([d, 1.0])[0]] + [det.update([0.95, 1.0])[0] for _ in range(50)]
        assert not any(fires)                                                   # P-DET-3


def test_P_DET_4_correction_factor():
    rho = 0.7
    det = ImbalanceDetector(cf=rho / MK_DEFAULTS["max_dev"])
    assert not any(det.update([rho + 0.01, 1.0])[0] for _ in range(1000))


def test_P_DET_5_lbt_only_reset_explicitly():
    det = ImbalanceDetector()
    for _ in range(5):
        det.update([0.3, 1.0])
    lbt = det.lbt
    abs_ = AdaptiveBinarySearch(0.5)
    abs_.step(1.0, 2.0)                       # a balancing step does not touch the detector
    assert det.lbt == lbt
    det.reset()
    assert det.lbt == 1 / MK_DEFAULTS["max_dev"]


def test_balance_ratio_idle_device_and_errors():
    assert balance_ratio([0.0, 2.0]) == 0.0 and balance_ratio([0.0, 0.0]) == 1.0
    for bad in ([], [1.0, -1.0], [float("nan")]):
        with pytest.raises(wpart.WpartValueError, match="t_dev"):
            balance_ratio(bad)
    for kw in ({"w": 0.0}, {"max_dev": 1.5}, {"cf": 0.0}):
        with pytest.raises(wpart.WpartValueError, match=next(iter(kw))):
            ImbalanceDetector(**kw)


# ---------------------------------------------------------------- adaptive binary search -

def _linear(a, b):
    return lambda s: (a * s, b * (1 - s))        # (t_gpu, t_cpu) for GPU share s


def test_P_ABS_1_2_4_direction_doubling_bounds():
    abs_ = AdaptiveBinarySearch(0.2)
    seq = [abs_.step(1.0, 5.0) for _ in range(6)]   # GPU faster every time: towards the GPU
    steps = np.diff([0.2] + seq)
    assert (steps >= 0).all() and all(0 <= s <= 1 for s in seq)             # P-ABS-1/4
    assert np.allclose(steps[:4], [1 / 16, 1 / 16, 1 / 8, 1 / 4])           # P-ABS-2
    abs_ = AdaptiveBinarySearch(0.9)
    seq = [abs_.step(5.0, 1.0) for _ in range(8)]
    assert np.all(np.diff([0.9] + seq) <= 0) and seq[-1] == 0.0


def test_P_ABS_3_bracket_halves():
    abs_ = AdaptiveBinarySearch(0.5)
    s1 = abs_.step(1.0, 2.0)                     # shift up to 0.5625
    s2 = abs_.step(2.0, 1.0)                     # reversal: bracket [0.5, 0.5625]
    st = abs_.state
    assert (st["lo"], st["hi"]) == (0.5, s1) and s2 == (0.5 + s1) / 2
    w = st["hi"] - st["lo"]
    abs_.step(1.0, 2.0)
    st = abs_.state
    assert st["hi"] - st["lo"] == w / 2


def test_P_ABS_5_converges_within_10_steps():
    rng = np.random.default_rng(7)
    tmin = MK_DEFAULTS["T_min"]
    for _ in range(2000):
        a, b = rng.uniform(0.05, 20, 2)
        f = _linear(a, b)
        star = b / (a + b)
        s = rng.uniform(0, 1)
        abs_ = AdaptiveBinarySearch(s)
        steps = 0
        while abs(s - star) > 2 * tmin and steps < 10:
            s = abs_.step(*f(s))
            steps += 1
        assert abs(s - star) <= 2 * tmin + 1e-12, (a, b, star, s)


def test_P_ABS_6_reacts_to_a_moved_optimum_within_16_steps():
    """40 balancing steps at the old optimum, then the CPU's speed changes x0.1 .. x10."""
    rng = np.random.default_rng(8)
    tmin = MK_DEFAULTS["T_min"]
    for _ in range(2000):
        a, b = rng.uniform(0.05, 20, 2)
        s = rng.uniform(0, 1)
        abs_ = AdaptiveBinarySearch(s)
        f = _linear(a, b)
        for _ in range(40):
            s = abs_.step(*f(s))
        b2 = b * 10 ** rng.uniform(-1, 1)
        f = _linear(a, b2)
        star = b2 / (a + b2)
        steps = 0
        while abs(s - star) > 2 * tmin and steps < 16:
            s = abs_.step(*f(s))
            steps += 1
        assert abs(s - star) <= 2 * tmin + 1e-12, (a, b, b2, star, s)


def test_rebalancing_moves_share_away_from_a_slowed_device():
    """Detector + adaptive binary search, end to end on linear devices: the CPU slows by 3x
    at run 20; the detector fires within 5 runs and the GPU share rises to the new optimum."""
    a, b = 1.0, 1.0
    s = 0.5
    det = ImbalanceDetector()
    episode = None
    fired_at = None
    for run in range(80):
        cpu = b * (3.0 if run >= 20 else 1.0)
        tg, tc = a * s, cpu * (1 - s)
        fire, _ = det.update([tg, tc])
        if fire:
            fired_at = fired_at if fired_at is not None else run
            episode = episode or AdaptiveBinarySearch(s)
            s = episode.step(tg, tc)
        else:
            episode = None
    assert fired_at is not None and 20 <= fired_at <= 25
    assert s > 0.5 + 0.05 and abs(s - 0.75) < 0.1     # new optimum 3 / 4


# ---------------------------------------------------------------- interpolation ----------

@pytest.mark.parametrize("d", [1, 2, 3])
def test_P_KB_2_rbf_exact_at_nodes(d):
    rng = np.random.default_rng(d)
    X = rng.uniform(8, 14, size=(12, d))
    y = rng.uniform(0.5, 1.0, size=12)
    v, how = interpolate(X, y, X)
    assert how == "rbf" and np.array_equal(v, y)
    # the fitted interpolant itself also passes through the nodes (up to rounding)
    v2, _ = interpolate(X, y, X + 1e-12)
    assert np.allclose(v2, y, atol=1e-7)
    v3, _ = interpolate(X, y, X.mean(axis=0)[None, :])
    assert np.isfinite(v3).all()


def test_P_KB_3_one_node_gives_its_value():
    v, how = interpolate([[10.0, 10.0]], [0.875], [[12.06, 11.48], [1.0, 2.0]])
    assert how == "node" and v.tolist() == [0.875, 0.875]


def test_P_KB_5_more_than_3_dims_nearest():
    X = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [5, 5, 5, 5.0]])
    v, how = interpolate(X, [0.1, 0.2, 0.3], [[0.9, 1, 1, 1.2], [4, 4, 4, 4]])
    assert how == "nearest" and v.tolist() == [0.2, 0.3]


def test_interpolation_fallbacks():
    # two nodes in 2-D: too few for the affine tail -> IDW, exact at nodes
    v, how = interpolate([[0, 0], [1, 1.0]], [0.2, 0.4], [[0, 0], [1, 1], [0.5, 0.5]])
    assert how == "idw" and v[:2].tolist() == [0.2, 0.4] and abs(v[2] - 0.3) < 1e-12
    # collinear nodes in 2-D: singular system -> IDW
    v, how = interpolate([[0, 0], [1, 1], [2, 2.0]], [0.1, 0.2, 0.3], [[1, 1]])
    assert how == "idw" and v[0] == 0.2
    # duplicates are merged
    v, how = interpolate([[1.0], [1.0], [2.0]], [0.2, 0.4, 0.9], [[1.0]])
    assert v[0] == pytest.approx(0.3)
    with pytest.raises(wpart.WpartValueError, match="y"):
        interpolate([[1.0]], [float("nan")], [[1.0]])


def test_windowed_detector_ignores_a_noisy_run_and_fires_on_a_step():
    # window 3: the median of the last three ratios is judged
    rng = np.random.default_rng(0)
    for trial in range(50):
        det = ImbalanceDetector(window=3)
        fired = []
        for run in range(60):
            noisy = run % 3 == 1 and rng.random() < 0.5  # a run the load ruined, isolated
            d = 0.05 if noisy else 0.97 + 0.03 * rng.random()
            fired.append(det.update([d, 1.0])[0])
        assert not any(fired), trial                  # isolated noisy runs never fire
        det = ImbalanceDetector(window=3)
        for _ in range(30):
            det.update([1.0, 1.0])
        n = 0
        while not det.update([0.3, 1.0])[0]:          # a real step to ratio 0.3
            n += 1
        assert n <= 4                                 # the paper's rule: 3 runs
    with pytest.raises(wpart.WpartValueError, match="window"):
        ImbalanceDetector(window=16)



def test_occupancy_caps_must_be_gpucaps():
    import wpart
    import wpart.multikernel as MK

    msg = r"^`caps` must be a wpart.multikernel.GpuCaps or None, got tuple$"
    with pytest.raises(wpart.WpartTypeError, match=msg):
        MK.occupancy((64, 4), 256)
    with pytest.raises(wpart.WpartTypeError, match=msg):
        MK.wgs_candidates(caps=(64, 4))
    assert MK.occupancy(None, 256) == MK.occupancy(MK.GpuCaps(), 256)
