"""Real runs under the decision loop [Soldado 2016, Fig. 4 and Sec. 4.3]: a real CPU worker beside
a paced accelerator (PacedRuntime), adapting to a real CPU-load step made by busy processes on
every core (P-ADAPT-2) and to a virtual one; OpenCL runs (stand-in GPU on PoCL)
profiled, derived and balanced over several runs with results equal to NumPy's.

Real timings on a shared 2-core machine are noisy: the accelerator side is deterministic (its
time is the model's), the assertions compare medians of phases, and the real load step is
judged against an unloaded run of the same test, in 8 tries of which 7 must pass."""

from __future__ import annotations

import os

import numpy as np
import pytest

import wpart
from wpart.dynamic import GemmColumnsTask, run
from wpart.multikernel import (MK_DEFAULTS, DecisionLoop, KnowledgeBase, LoadInjector,
                               PacedRuntime, PacedWorker, adaptive_runs)


def _task(n=4096, k=128, seed=0):
    rng = np.random.default_rng(seed)
    return GemmColumnsTask(rng.random((k, k)), rng.random((k, n)))


def test_paced_runtime_split_model_time_and_exact_results():
    task = _task(n=300, k=32)
    rt = PacedRuntime(acc_rate=2e4, acc_latency=1e-4)
    for s in (0.0, 0.3, 0.5, 1.0):
        r = rt.run(task, s=s)
        assert r.check() and r.success
        assert r.sizes.sum() == task.n and r.offsets.tolist() == [0, int(r.sizes[0])]
        assert abs(r.s_eff - s) <= 1 / task.n
        assert r.device_times["acc"] == (1e-4 + r.sizes[0] / 2e4 if r.sizes[0] else 0.0)
        if s == 1.0:
            assert r.device_times["cpu"] == 0.0 and r.sizes[1] == 0
        if s == 0.0:
            assert r.device_times["acc"] == 0.0 and r.device_times["cpu"] > 0
        assert r.wall == max(r.device_times.values())
        assert np.all(task.coverage == 1)


def test_paced_worker_in_the_one_engine():
    """A PacedWorker is an ordinary worker of run(): its blocks take the model's time and
    are computed by flush()."""
    from wpart.dynamic import Greedy
    task = _task(n=64, k=16)
    w = PacedWorker(rate=64 / 0.02)
    res = run(Greedy(1, 64, chunk=16), task, [w])
    assert res.n_blocks == 4 and abs(res.busy[0] - 0.02) < 1e-12
    assert len(w.deferred) == 4 and np.all(task.coverage == 0)
    w.flush(task)
    assert task.verify() and w.deferred == []


def test_calibrate_sets_the_rate_from_the_cpu():
    task = _task(n=512, k=64)
    rt = PacedRuntime()
    with pytest.raises(wpart.WpartValueError, match="rate"):
        rt.run(task, s=0.5)
    rate = rt.calibrate(task, ratio=2.0, runs=2)
    assert rate > 0 and rt.acc_rate == rate


def _phase(x, a, b):
    return float(np.median(x[a:b]))


# The real load step: runs before / under / after the load; the phases judged are the last
# _JUDGED runs of each (the robust search needs 3 runs to see the step in its estimate, about
# 4 more for the detector and 4-5 to follow it: with 14 runs after the load, 2 of 8 tries on a
# busy machine had not come back by the judged runs). A CPU partition of 5-20 ms: a shorter one that sleeps between runs is barely
# slowed by busy processes (the scheduler lets a waking task finish a short burst first).
_B, _L, _A = 8, 16, 18
_JUDGED = 5
_ON_WORKER = 4    # busy processes on the CPU worker's core; one on every other core


def _phases(cs):
    """Median CPU share of the last runs before, under and after the load."""
    return (_phase(cs, _B - 4, _B), _phase(cs, _B + _L - _JUDGED, _B + _L),
            _phase(cs, _B + _L + _A - _JUDGED, _B + _L + _A))


def test_P_ADAPT_2_real_cpu_load_step_falls_and_recovers_in_7_of_8(tmp_path):
    """A real CPU load step, made by the test: busy processes pinned to every core
    (LoadInjector: four on the CPU worker's core, one on each other core, where the test's
    own thread computes the accelerator's partitions) from run 8 to run 23 of 42, in 8 tries
    under the default (robust) decision loop. Each try must see its CPU share fall under the load and come back after
    it, and at least 7 of 8 must. The bar comes from an unloaded run of the same length in
    this test: the largest difference between its phase medians (how far the share moves
    on this machine without the step; at least one first search step, T_init). A try falls
    when its late loaded median is more than that below its median before the load, and
    recovers when its late median after the load is more than that above the loaded one."""
    task = _task(n=8192)
    rt = PacedRuntime()
    rt.calibrate(task)               # balanced near 0.5 on the machine as it is
    cores = [rt.cpu_core] * _ON_WORKER + [c for c in sorted(os.sched_getaffinity(0))
                                          if c != rt.cpu_core]

    def runs(name, load):
        loop = DecisionLoop(KnowledgeBase(tmp_path / f"{name}.json"))
        # checking every run (two 128 x 128 x 8192 products) took two thirds of the time: the
        # last run's result is checked, the others take the same path
        res = adaptive_runs(rt, task, runs=_B + _L + _A, loop=loop, load=load, check=False)
        assert res.success and task.verify()
        return res

    ref = _phases(runs("unloaded", None).cpu_share)
    bar = max(max(ref) - min(ref), MK_DEFAULTS["T_init"])
    print(f"\nunloaded run: CPU share {ref[0]:.3f} / {ref[1]:.3f} / {ref[2]:.3f}: a move "
          f"counts when it exceeds {bar:.3f}")
    table = []
    for k in range(8):
        load = LoadInjector(procs=len(cores), cores=cores, start_run=_B, stop_run=_B + _L)
        res = runs(f"try{k}", load)
        assert res.loaded[_B:_B + _L].all() and not res.loaded[:_B].any()
        assert not res.loaded[_B + _L:].any() and not load.active
        before, under, after = _phases(res.cpu_share)
        ok = before - under > bar and after - under > bar
        table.append((k, round(before, 3), round(under, 3), round(after, 3), ok))
        print(f"try {k}: CPU share {before:.3f} before, {under:.3f} under the load, "
              f"{after:.3f} after: {'falls and recovers' if ok else 'NO'}")
    assert sum(t[-1] for t in table) >= 7, (bar, table)


def test_P_ADAPT_2_virtual_cpu_slowdown(tmp_path):
    """set_speed('cpu', 1/4) for runs 8..24 (duty-cycle throttling): the CPU share drops and
    comes back (maxDev 0.80, the low end of the paper's range, keeps the detector quiet on
    the noise of a shared machine)."""
    fails = []
    for attempt in range(2):
        task = _task()
        rt = PacedRuntime()
        rt.calibrate(task, runs=2)
        loop = DecisionLoop(KnowledgeBase(tmp_path / f"kb{attempt}.json"), max_dev=0.8)
        res = adaptive_runs(rt, task, runs=40, loop=loop,
                            speed=lambda k: 0.25 if 8 <= k < 24 else 1.0)
        cs = res.cpu_share
        assert res.correct and res.loaded[8:24].all() and not res.loaded[24:].any()
        assert rt.speed["cpu"] == 1.0          # restored at the end
        assert np.all((res.share >= 0) & (res.share <= 1))
        before, slowed, after = _phase(cs, 3, 8), _phase(cs, 18, 24), _phase(cs, 32, 40)
        print(f"\nattempt {attempt}: CPU share before {before:.3f}, slowed {slowed:.3f}, "
              f"after {after:.3f}")
        if slowed <= before - 0.08 and after >= slowed + 0.05:
            return
        fails.append((attempt, before, slowed, after))
    pytest.fail(f"no adaptation seen: {fails}")


def test_P_FLOW_1_adaptive_runs_derive_once_and_persist(tmp_path):
    task = _task(n=256, k=32)
    kb = KnowledgeBase(tmp_path / "kb.json")
    loop = DecisionLoop(kb, seed=0.4)
    rt = PacedRuntime(acc_rate=1e6)
    res = adaptive_runs(rt, task, runs=4, loop=loop)
    assert res.share[0] == 0.4 and res.correct
    e = kb.lookup("GemmColumnsTask", (256,))
    assert e is not None and e.best_time <= res.makespan[1:].min() + 1e-12
    assert len(res.to_dict()["share"]) == 4 and len(repr(res).splitlines()) <= 5


def test_bad_arguments(tmp_path):
    task = _task(n=16, k=4)
    rt = PacedRuntime(acc_rate=1.0)
    with pytest.raises(wpart.WpartValueError, match="acc_rate"):
        PacedRuntime(acc_rate=0)
    with pytest.raises(wpart.WpartValueError, match="cpu_core"):
        PacedRuntime(cpu_core=100_000)
    with pytest.raises(wpart.WpartValueError, match="`s`"):
        rt.run(task, s=1.5)
    with pytest.raises(wpart.WpartTypeError, match="task"):
        rt.run("x", s=0.5)
    with pytest.raises(wpart.WpartValueError, match="device"):
        rt.set_speed("gpu7", 0.5)
    with pytest.raises(wpart.WpartValueError, match="speed"):
        rt.set_speed("cpu", 0.0)
    with pytest.raises(wpart.WpartValueError, match="kb"):
        adaptive_runs(rt, task, runs=2)
    with pytest.raises(wpart.WpartTypeError, match="loop"):
        adaptive_runs(rt, task, runs=2, loop=object())
    with pytest.raises(wpart.WpartValueError, match="runs"):
        adaptive_runs(rt, task, runs=0, kb=KnowledgeBase(tmp_path / "k.json"))
    with pytest.raises(wpart.WpartValueError, match="rate"):
        PacedWorker(rate=-1)
    with pytest.raises(wpart.WpartTypeError, match="set_speed"):
        adaptive_runs(object(), task, runs=1, kb=KnowledgeBase(tmp_path / "k.json"),
                      speed=lambda k: 1.0)
    with pytest.raises(wpart.WpartValueError, match="no elements"):
        rt.run(GemmColumnsTask(np.ones((2, 2)), np.ones((2, 0))), s=0.5)


# ------------------------------------------------------------------------------ OpenCL ----

try:
    from wpart.multikernel import opencl as O
    _WHY = O.unavailable_reason()
except ImportError as e:  # pragma: no cover
    O, _WHY = None, f"wpart.multikernel.opencl does not import ({e})"

needs_cl = pytest.mark.skipif(_WHY is not None, reason=f"no usable OpenCL: {_WHY}")


@needs_cl
def test_opencl_profile_derive_and_balance_over_runs(tmp_path):
    """KernelProfile Saxpy at one size on the OpenCL devices (a stand-in GPU on PoCL), then run
    another size under the decision loop: its first configuration is derived from the
    profile (P-KB-3: one node, its share), every run equals NumPy, shares stay in [0, 1]."""
    import pyopencl as cl
    cpu = [d for p in cl.get_platforms() for d in p.get_devices() if d.type & cl.device_type.CPU]
    if not cpu or cpu[0].max_compute_units < 2:
        pytest.skip("needs an OpenCL CPU device with 2 compute units")
    kb = KnowledgeBase(tmp_path / "kb.json")
    prof = O.profile(O.Saxpy(150_000), kb=kb, fission=["NONE"], overlaps=[1], n_exec=1,
                     it_max=4, runtime={"stand_in_gpus": 1})
    assert prof.success and kb.lookup("saxpy", (150_000,)).process == "PROFILED"
    rt = O.Runtime(stand_in_gpus=1, overlap=1)
    comp = O.Saxpy(300_000, seed=3)
    loop = DecisionLoop(kb)
    res = adaptive_runs(rt, comp, runs=8, loop=loop)
    assert res.correct and res.success
    assert res.share[0] == prof.profile.s            # derived from the single profiled node
    assert np.all((res.share >= 0) & (res.share <= 1))
    derived = kb.lookup("saxpy", (300_000,))
    assert derived is not None and derived.process in ("DERIVED", "REFINED")
    assert np.isfinite(derived.best_time) and derived.best_time > 0
    assert res.t_cpu[0] > 0 or res.share[0] == 1.0
