"""wpart.hetero measurement: MeanUsingTtest, RAPL on a fake powercap tree, power readings,
additivity, and a real profile of the shipped C kernel."""

import math
import time

import numpy as np
import pytest
from scipy.stats import t as student_t

import wpart
import wpart.hetero as wh


def test_constant_samples_stop_at_first_check():
    r = wh.mean_until_precise(lambda: 2.0, min_reps=5, max_reps=50)
    assert r["reps"] == 5 and r["converged"] and r["means"]["time"] == 2.0
    r = wh.mean_until_precise(lambda: 2.0, min_reps=5, max_reps=50, first_check="paper")
    assert r["reps"] == 7


def test_stops_when_halfwidth_below_eps():
    """Alternating samples of relative SD s stop once tinv * s / sqrt(k) < eps."""
    vals = [1.0 + (0.2 if k % 2 else -0.2) for k in range(200)]
    it = iter(vals)
    r = wh.mean_until_precise(lambda: next(it), min_reps=2, max_reps=200, eps=0.05)
    k = r["reps"]
    a = np.array(vals[:k])
    half = student_t.ppf(0.975, k - 1) * a.std(ddof=1) / math.sqrt(k)
    assert half / a.mean() < 0.05
    b = np.array(vals[:k - 1])
    half_prev = student_t.ppf(0.975, k - 2) * b.std(ddof=1) / math.sqrt(k - 1)
    assert half_prev / b.mean() >= 0.05
    # the paper's one-sided quantile stops no later
    it = iter(vals)
    r2 = wh.mean_until_precise(lambda: next(it), min_reps=2, max_reps=200, eps=0.05,
                               quantile="paper")
    assert r2["reps"] <= k


def test_zero_mean_and_limits():
    r = wh.mean_until_precise(lambda: {"time": 0.0, "energy": 0.0}, min_reps=3)
    assert r["converged"] and r["reps"] == 3
    rng = np.random.default_rng(0)
    r = wh.mean_until_precise(lambda: float(rng.normal(0, 1)), min_reps=3, max_reps=10)
    assert not r["converged"] and r["reps"] == 10
    r = wh.mean_until_precise(lambda: 5.0 + float(rng.random()), min_reps=3, max_reps=100,
                              max_time=12.0, eps=1e-9)
    assert r["reps"] == 3 and r["elapsed"] > 12.0  # the time limit stops the loop
    with pytest.raises(ValueError, match="min_reps"):
        wh.mean_until_precise(lambda: 1.0, min_reps=0)
    with pytest.raises(ValueError, match="cl"):
        wh.mean_until_precise(lambda: 1.0, cl=1.5)
    with pytest.raises(ValueError, match="non-finite"):
        wh.mean_until_precise(lambda: math.nan)


def fake_powercap(root, zones):
    for i, (name, uj, rng) in enumerate(zones):
        z = root / f"intel-rapl:{i}"
        z.mkdir(parents=True)
        (z / "name").write_text(name + "\n")
        (z / "energy_uj").write_text(f"{uj}\n")
        (z / "max_energy_range_uj").write_text(f"{rng}\n")
        sub = root / f"intel-rapl:{i}:0"  # a subzone: not counted twice
        sub.mkdir()
        (sub / "energy_uj").write_text("5\n")
    return root


def test_rapl_reader_on_fake_tree(tmp_path):
    root = fake_powercap(tmp_path / "powercap", [("package-0", 1_000_000, 10_000_000),
                                                 ("package-1", 9_000_000, 10_000_000)])
    assert wh.RaplMeter.available(root=root)
    m = wh.RaplMeter(root=root)
    assert m.names == ["package-0", "package-1"] and len(m.zones) == 2
    m.start()
    (root / "intel-rapl:0" / "energy_uj").write_text("3500000\n")  # +2.5 J
    (root / "intel-rapl:1" / "energy_uj").write_text("500000\n")  # wraps: +1.5 J
    j, s = m.stop()
    assert j == pytest.approx(4.0) and s >= 0
    assert not wh.RaplMeter.available(root=tmp_path / "missing")
    with pytest.raises(RuntimeError, match="no readable RAPL zone"):
        wh.RaplMeter(root=tmp_path / "missing")
    with pytest.raises(RuntimeError, match="before start"):
        m.stop()


def test_measure_with_fake_rapl_subtracts_static_power(tmp_path):
    root = fake_powercap(tmp_path / "pc", [("package-0", 0, 2**40)])
    counter = root / "intel-rapl:0" / "energy_uj"

    def kernel(x):  # "consumes" 3 J per unit of size in the fake counter
        counter.write_text(str(int(counter.read_text()) + 3_000_000 * x))

    mp = wh.measure(kernel, [1, 2, 4], meter=wh.RaplMeter(root=root), static_power=0.0,
                    min_reps=3, max_reps=5)
    assert mp.profile.energy.tolist() == pytest.approx([3.0, 6.0, 12.0])
    assert mp.profile.sizes.tolist() == [1, 2, 4] and mp.reps.min() >= 3
    assert "package-0" in mp.meter


def test_callback_meter_and_samples():
    assert wh.energy_from_samples([0, 1, 3], [10, 20, 20]) == pytest.approx(15 + 40)
    m = wh.CallbackMeter(lambda: 50.0, hz=200)
    m.start()
    time.sleep(0.05)
    j, s = m.stop()
    assert j == pytest.approx(50.0 * s, rel=1e-9) and s >= 0.05
    ps_w = wh.measure_static_power(wh.CallbackMeter(lambda: 7.0), seconds=0.02)
    assert ps_w == pytest.approx(7.0)
    with pytest.raises(TypeError, match=r"^`read_power`\ must\ be\ callable"):
        wh.CallbackMeter(3.0)
    with pytest.raises(ValueError, match="non-decreasing"):
        wh.energy_from_samples([1, 0], [1, 1])


def test_dynamic_energy_and_additivity():
    assert wh.dynamic_energy(100.0, 20.0, 2.0) == pytest.approx(60.0)
    rep = wh.additivity_report([11.0, 20.0, 33.0], [[5.0, 10.0, 10.0], [5.0, 10.0, 20.0]])
    assert rep["pct"].tolist() == pytest.approx([10.0, 0.0, 10.0])
    assert (rep["min"], rep["max"]) == (0.0, pytest.approx(10.0))
    assert rep["mean"] == pytest.approx(20.0 / 3)
    with pytest.raises(ValueError,
                       match=r"^`parallel`\ and\ every\ array\ of\ `individual`\ must\ be\ 1\-D,\ same\ length"):
        wh.additivity_report([1.0, 2.0], [[1.0]])


def test_measure_real_c_kernel_builds_a_profile():
    """A real time profile of the shipped blocked matrix multiply on this machine."""
    k = wh.kernels.BlockedMatmul(K=64)
    A, B, C = k.setup(16)
    k((A, B, C))
    np.testing.assert_allclose(C, A @ B, rtol=1e-12)
    mp = wh.measure(k, [8, 16, 32, 64], min_reps=3, max_reps=30, eps=0.2)
    pr = mp.profile
    assert pr.n_points == 4 and np.all(pr.time > 0) and np.all(pr.energy == 0)
    assert mp.status == "feasible" and mp.success and mp.stats["eps"] == 0.2
    assert pr.time[-1] > pr.time[0]  # 8x the rows costs more
    # two real "processors" (C kernel and NumPy BLAS) -> a front
    mp2 = wh.measure(wh.kernels.NumpyMatmul(K=64), [8, 16, 32, 64], min_reps=3, max_reps=30,
                     eps=0.2)
    t = wh.optimal_time([pr, mp2.profile], 64)
    assert t.status == "optimal" and t.dist.sum() == 64


def test_measure_bad_input():
    with pytest.raises(TypeError, match=r"^`kernel`\ must\ be\ callable"):
        wh.measure(3, [1, 2])
    with pytest.raises(ValueError, match="sizes"):
        wh.measure(lambda x: None, [])
    with pytest.raises(ValueError, match="distinct"):
        wh.measure(lambda x: None, [2, 2])
    with pytest.raises(ValueError, match="static_power"):
        wh.measure(lambda x: None, [1], static_power=-1.0)
    with pytest.raises(TypeError, match="meter"):
        wh.measure(lambda x: None, [1], meter=object())


def test_measured_profile_file_roundtrip(tmp_path):
    mp = wh.measure(lambda x: sum(range(100 * x)), [1, 2, 3], min_reps=2, max_reps=5,
                    name="py")
    mp.to_file(tmp_path / "gpu.txt")
    q = wh.Profile.from_file(tmp_path / "gpu.txt")
    assert np.array_equal(q.time, mp.profile.time) and q.sizes.tolist() == [1, 2, 3]


def test_synthetic_meter_pipeline():
    """The simulated pipeline -- MeanUsingTtest, dynamic-energy subtraction,
    additivity report; zero noise and zero excess reproduce the sum of individual energies."""
    ps = wh.synthetic("dgemm-like", seed=2, hi=640)
    exact = wh.SyntheticMeter(ps, static_power=100.0, noise=0.0, additivity_excess=(0, 0))
    sizes = ps[0].sizes[:5]
    par, ind = [], [[] for _ in range(ps.m)]
    for x in sizes.tolist():
        r = exact.run([x] * ps.m)
        par.append(wh.dynamic_energy(r["energy"], 100.0, r["duration"]))
        for i in range(ps.m):
            a = exact.run_alone(i, x)
            ind[i].append(wh.dynamic_energy(a["energy"], 100.0, a["duration"]))
    rep = wh.additivity_report(par, ind)
    assert rep["max"] < 1e-9
    noisy = wh.SyntheticMeter(ps, static_power=100.0, noise=0.02, seed=3)
    r = wh.mean_until_precise(lambda: noisy.run([64] * ps.m), min_reps=3, max_reps=200,
                              eps=0.01, time_keys=["duration"])
    assert r["converged"] and set(r["means"]) >= {"energy", "t_cpu1", "duration"}
    runs = [noisy.run([x] * ps.m) for x in sizes.tolist()]
    par = [wh.dynamic_energy(r["energy"], 100.0, r["duration"]) for r in runs]
    alone = [[noisy.run_alone(i, x) for x in sizes.tolist()] for i in range(ps.m)]
    ind = [[wh.dynamic_energy(a["energy"], 100.0, a["duration"]) for a in row] for row in alone]
    rep = wh.additivity_report(par, ind)
    assert 0 < rep["max"] < 25 and rep["mean_signed"] > 0  # parallel above combined
    with pytest.raises(ValueError, match="not a measured size"):
        exact.run([1] * ps.m)


def test_nvml_meter_with_a_fake_pynvml(monkeypatch):
    import types

    state = {"mj": 1_000_000}
    fake = types.SimpleNamespace(
        nvmlInit=lambda: None,
        nvmlDeviceGetHandleByIndex=lambda i: ("gpu", i),
        nvmlDeviceGetName=lambda h: b"Fake H100",
        nvmlDeviceGetTotalEnergyConsumption=lambda h: state["mj"],
    )
    monkeypatch.setitem(__import__("sys").modules, "pynvml", fake)
    m = wh.NvmlMeter(index=0)
    assert "Fake H100" in repr(m)

    def kernel(x):
        state["mj"] += 250 * x  # 0.25 J per unit

    mp = wh.measure(kernel, [2, 4], meter=m, min_reps=2, max_reps=3)
    assert mp.profile.energy.tolist() == pytest.approx([0.5, 1.0])
    with pytest.raises(RuntimeError, match="before start"):
        m.stop()


def test_torch_kernel_when_available():
    torch = pytest.importorskip("torch")
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    k = wh.kernels.TorchMatmul(K=32, device=dev)
    st = k.setup(8)
    k(st)
    mp = wh.measure(k, [8, 16], min_reps=2, max_reps=5)
    assert mp.profile.n_points == 2 and np.all(mp.profile.time > 0)


def test_additivity_check_with_real_kernels():
    """Two real kernels alone and together; a meter with constant power P gives energy
    P * duration, so the parallel run (overlapped) costs less than the sum of solo runs."""
    meter = wh.CallbackMeter(lambda: 10.0, hz=100)
    ks = [wh.kernels.BlockedMatmul(K=64), wh.kernels.NumpyMatmul(K=64)]
    rep = wh.additivity_check(ks, [32, 64], meter, min_reps=2, max_reps=4, eps=0.5)
    assert rep["individual"].shape == (2, 2) and rep["parallel"].shape == (2,)
    assert np.all(rep["individual"] > 0) and np.all(rep["parallel"] > 0)
    assert set(rep) >= {"pct", "min", "max", "mean", "mean_signed"}
    with pytest.raises(TypeError,
                       match=r"^`kernels`\ must\ be\ a\ non\-empty\ sequence\ of\ callables"):
        wh.additivity_check([], [1], meter)
    with pytest.raises(TypeError, match="meter"):
        wh.additivity_check(ks, [1], object())


def test_measured_profile_follows_the_result_protocol():
    import dataclasses
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mp = wh.measure(lambda x: None, [1, 2, 3], min_reps=2, max_reps=3, name="noop")
    assert isinstance(mp, wpart.Result) and mp.status == "feasible" and mp.success
    assert "sizes" in mp.message and mp.stats["max_reps"] == 3
    assert mp == dataclasses.replace(mp) and mp == dataclasses.replace(mp, seconds=99.0)
    assert mp != dataclasses.replace(mp, meter="other")
    assert len(repr(mp).splitlines()) <= 5 and "n_points=3" in repr(mp)
    d = json.loads(json.dumps(mp.to_dict()))
    assert d["status"] == "feasible" and d["success"] is True
    fig, ax = plt.subplots()
    assert mp.plot(ax=ax) is ax and mp.plot(ax=ax, what="energy") is ax
    assert mp.plot() is not None
    plt.close("all")
    with pytest.warns(DeprecationWarning, match="MeasuredProfile.info"):
        assert mp.info == mp.stats


def test_measure_options_are_validated_and_progress_can_cancel():
    calls = []
    mp = wh.measure(lambda x: None, [1, 2], min_reps=2, max_reps=2,
                    progress=lambda d, t: calls.append((d, t)))
    assert calls == [(0, 2), (1, 2), (2, 2)] and mp.success
    with pytest.raises(wpart.CancelledError, match="progress"):
        wh.measure(lambda x: None, [1, 2], min_reps=2, max_reps=2, progress=lambda d, t: False)
    for kw, exc, name in [({"min_reps": 0}, ValueError, "min_reps"),
                          ({"max_reps": 1, "min_reps": 2}, ValueError, "max_reps"),
                          ({"cl": 1.5}, ValueError, "cl"), ({"eps": "x"}, TypeError, "eps"),
                          ({"warmup": -1}, ValueError, "warmup"),
                          ({"static_power": math.nan}, ValueError, "static_power"),
                          ({"progress": "yes"}, TypeError, "progress"),
                          ({"clamp_negative": 1}, TypeError, "clamp_negative"),
                          ({"quantile": "one"}, ValueError, "quantile")]:
        with pytest.raises(wpart.WpartError, match=f"`{name}`") as info:
            wh.measure(lambda x: None, [1], **kw)
        assert isinstance(info.value, exc), kw
    with pytest.raises(TypeError,
                       match=r"^mean_until_precise\(\)\ takes\ 1\ positional\ argument\ but\ 2\ were\ given"):
        wh.mean_until_precise(lambda: 1.0, 3)  # options are keyword-only
    with pytest.raises(wpart.WpartTypeError, match="`seed`"):
        wh.SyntheticMeter(wh.synthetic("tiny-random", seed=1), 1.0, seed="x")
    with pytest.raises(wpart.WpartValueError, match="`hz`"):
        wh.CallbackMeter(lambda: 1.0, hz=0)
    with pytest.raises(wpart.WpartTypeError, match="`K`"):
        wh.kernels.BlockedMatmul(K=2.5)
