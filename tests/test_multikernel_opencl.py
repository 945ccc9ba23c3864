"""Real execution of the paper's benchmarks through OpenCL [Soldado 2016]: every kernel, several
splits, CPU fission into sub-devices, against NumPy; the sysfs topology reader.

Skips (with the reason) only when no OpenCL platform is usable; with the pip-installed PoCL
CPU driver (``pocl-binary-distribution``) these tests run."""

from __future__ import annotations

import numpy as np
import pytest

import wpart
from wpart.multikernel import _topology as T

try:
    from wpart.multikernel import opencl as O
    _WHY = O.unavailable_reason()
except ImportError as e:  # pragma: no cover
    O, _WHY = None, f"wpart.multikernel.opencl does not import ({e})"

needs_cl = pytest.mark.skipif(_WHY is not None, reason=f"no usable OpenCL: {_WHY}")

SPLITS2 = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.3, 0.7], [0.91, 0.09]]


def _small(name):
    return {"saxpy": lambda: O.Saxpy(10_007, seed=1),
            "filter": lambda: O.FilterPipeline(61, 97, seed=2),
            "fft": lambda: O.FFT(7, 512, seed=3),
            "nbody": lambda: O.NBody(203, iterations=3, seed=4),
            "segmentation": lambda: O.Segmentation(19, 13, 17, seed=5)}[name]()


@pytest.fixture(scope="module")
def rt_none():
    return O.Runtime(fission="NONE")


@pytest.fixture(scope="module")
def rt_fission():
    levels = [lv for lv, n in T.fission_levels() if n > 1]
    rt = O.Runtime(fission=levels[0] if levels else "L1")
    if rt.cpu_subdevices < 2:
        pytest.skip("this machine's CPU does not split into 2 sub-devices")
    return rt


@needs_cl
def test_device_list_and_sub_devices():
    import pyopencl as cl
    cpus = [d for p in cl.get_platforms() for d in p.get_devices()
            if d.type & cl.device_type.CPU]
    assert cpus, "an OpenCL CPU device (PoCL) is expected"
    d = cpus[0]
    print("\nOpenCL devices:", [(p.name, [(x.name, cl.device_type.to_string(x.type),
                                          x.max_compute_units) for x in p.get_devices()])
                                for p in cl.get_platforms()])
    if d.max_compute_units >= 2:
        dpp = cl.device_partition_property
        eq = d.create_sub_devices([dpp.EQUALLY, 1])
        bc = d.create_sub_devices([dpp.BY_COUNTS, 1, 1, dpp.BY_COUNTS_LIST_END])
        assert len(eq) == d.max_compute_units and len(bc) == 2


@needs_cl
@pytest.mark.parametrize("name", sorted(O.BENCHMARKS) if O else [])
def test_every_kernel_equals_numpy_without_fission(rt_none, name):
    comp = _small(name)
    run = rt_none.run(comp)
    assert run.check(), name
    assert run.sizes.sum() == comp.units and (run.exec_times > 0).all()


@needs_cl
@pytest.mark.parametrize("name", sorted(O.BENCHMARKS) if O else [])
def test_every_kernel_every_split_with_cpu_fission(rt_fission, name):
    comp = _small(name)
    P = len(rt_fission.executions)
    splits = [s + [0.0] * (P - 2) for s in SPLITS2] + [list(np.full(P, 1.0 / P))]
    for phi in splits:
        run = rt_fission.run(comp, shares=phi)
        assert run.check(), (name, phi)
        assert run.sizes.sum() == comp.units
        assert all(n == 0 for n, f in zip(run.sizes, phi) if f == 0)       # P-SPLIT-3


@needs_cl
def test_P_SPLIT_5_locality_pipeline_bit_identical(rt_none, rt_fission):
    """The 3-stage filter pipeline keeps its intermediates in each execution's buffers; the
    split result equals the single-device result bit for bit."""
    comp = O.FilterPipeline(64, 80, seed=9)
    one = rt_none.run(comp).output.copy()
    for phi in SPLITS2:
        two = rt_fission.run(comp, shares=phi + [0.0] * (len(rt_fission.executions) - 2))
        assert np.array_equal(one, two.output)


@needs_cl
def test_run_record_and_launch_overhead(rt_fission):
    run = rt_fission.run(O.Saxpy(50_000), s=0.0)
    assert run.success and run.s_eff == 0.0 and 0 < run.balance_ratio <= 1
    assert set(run.device_times) == {"cpu"} and len(repr(run).splitlines()) <= 5
    assert run.stats["launches"] == 4 * len(rt_fission.executions)
    assert rt_fission.level_of_parallelism(0.0) == rt_fission.cpu_subdevices
    oh = O.launch_overhead(rt_fission, n_partitions=4, repeats=10)
    print(f"\nOpenCL launch overhead per partition: {oh['overhead_us_per_partition']:.1f} us")
    assert oh["overhead_us_per_partition"] >= 0
    desc = rt_fission.describe()
    assert desc[-1]["type"] == "CPU" and sum(desc[-1]["sub_devices"]) <= desc[-1]["compute_units"]


@needs_cl
def test_per_device_quantum_and_level_of_parallelism():
    """A work-group size on the CPU gives each sub-device a quantum (lines whose pixel count
    is a multiple of it); every partition but the tail respects it, the result is unchanged."""
    rt = O.Runtime(fission="NONE", cpu_wgs=64)
    comp = O.FilterPipeline(50, 24, seed=1)             # 24 px per line: quantum 64/gcd = 8
    run = rt.run(comp)
    assert run.stats["quanta"] == [8] and run.check()
    assert run.stats["level_of_parallelism"] == rt.level_of_parallelism(0.0) == 1
    assert O.FFT(4, 256).quantum(rt.executions[0]) == 1          # 128 butterflies per FFT
    levels = [lv for lv, n in T.fission_levels() if n > 1]
    if levels:
        rt2 = O.Runtime(fission=levels[0], cpu_wgs=64)
        if rt2.cpu_subdevices >= 2:
            phi = [0.3, 0.7] + [0.0] * (rt2.cpu_subdevices - 2)
            run = rt2.run(comp, shares=phi)
            assert run.sizes[0] % 8 == 0 and run.sizes.sum() == 50 and run.check()   # P-SPLIT-2
            assert run.stats["level_of_parallelism"] == 2


@needs_cl
def test_profile_on_the_opencl_devices_chooses_a_fission_level(tmp_path):
    """Algorithm 1 with real runs; CPU only here: the share is 0 and the search is over the
    fission levels of this machine; the best is stored as PROFILED."""
    from wpart.multikernel import KnowledgeBase
    kb = KnowledgeBase(tmp_path / "kb.json")
    res = O.profile(O.Segmentation(40, 64, 64), kb=kb, n_exec=2)
    levels = [lv for lv, _ in T.fission_levels()]
    assert res.success and res.profile.fission in levels
    assert [e["fission"] for e in res.evaluated] == levels[:len(res.evaluated)]
    stored = kb.lookup("segmentation", (40,))
    assert stored.process == "PROFILED" and stored.best_time == res.profile.best_time


@pytest.fixture(scope="module")
def rt_standin():
    import pyopencl as cl
    cpu = [d for p in cl.get_platforms() for d in p.get_devices() if d.type & cl.device_type.CPU]
    if not cpu or cpu[0].max_compute_units < 2:
        pytest.skip("needs an OpenCL CPU device with 2 compute units")
    return O.Runtime(stand_in_gpus=1, overlap=3, gpu_wgs=64)


@needs_cl
@pytest.mark.parametrize("name", sorted(O.BENCHMARKS) if O else [])
def test_cpu_plus_gpu_path_with_a_stand_in_gpu(rt_standin, name):
    """The CPU+GPU path (overlap queues, GPU quanta, static split, per-type times) with one
    compute unit standing in for a GPU: every benchmark equals NumPy at several shares."""
    rt = rt_standin
    assert [e.kind for e in rt.executions] == ["gpu", "gpu", "gpu", "cpu"]
    comp = _small(name)
    for s in (0.0, 0.37, 0.6, 1.0):
        run = rt.run(comp, s=s)
        assert run.check(), (name, s)
        q = run.stats["quanta"]
        assert all(n % qq == 0 for n, qq in zip(run.sizes[:2], q[:2]))        # not the tail
        if s == 0.0:
            assert run.sizes[:3].sum() == 0 and run.s_eff == 0.0
        if s == 1.0:
            assert run.sizes[3] == 0 and run.s_eff == 1.0
        if 0 < s < 1:
            assert set(run.device_times) == {"gpu0", "cpu"}
            assert abs(run.s_eff - s) <= 3 * max(q) / comp.units + 1e-9 or comp.units < 300
    assert rt.level_of_parallelism(0.5) == 4 and rt.level_of_parallelism(1.0) == 3


@needs_cl
def test_decision_loop_and_profile_drive_real_runs(rt_standin, tmp_path):
    """build_profile and DecisionLoop with real OpenCL runs (stand-in GPU): the share search
    stores a PROFILED entry, later runs are judged, shares stay in [0, 1]."""
    from wpart.multikernel import DecisionLoop, KnowledgeBase
    kb = KnowledgeBase(tmp_path / "kb.json")
    comp = O.Saxpy(200_000)
    res = O.profile(comp, kb=kb, fission=["NONE"], overlaps=[1, 2], n_exec=1, it_max=4,
                    runtime={"stand_in_gpus": 1})
    assert res.success and kb.lookup("saxpy", (comp.units,)).process == "PROFILED"
    assert {e["s"] for e in res.evaluated} - {0.5} and len(res.evaluated) >= 2
    loop = DecisionLoop(kb)
    for _ in range(6):
        cfg = loop.begin("saxpy", (comp.units,))
        r = rt_standin.run(comp, s=cfg.s)
        tg, tc = r.device_times.get("gpu0", 0.0), r.device_times.get("cpu", 0.0)
        d = loop.end(T=r.wall, device_times=[tg, tc], t_gpu=tg, t_cpu=tc)
        assert 0.0 <= d.s_next <= 1.0 and r.check()


@needs_cl
def test_bad_arguments():
    with pytest.raises(wpart.WpartValueError, match="fission"):
        O.Runtime(fission="L7")
    with pytest.raises(wpart.WpartValueError, match="size"):
        O.FFT(4, 100)
    rt = O.Runtime()
    with pytest.raises(wpart.WpartValueError, match="shares"):
        rt.run(O.Saxpy(10), shares=[0.5, 0.5, 0.5])


def _fake_sysfs(root, l2_groups, l3_groups, n):
    cpu = root / "cpu"
    cpu.mkdir(parents=True)
    (cpu / "online").write_text(f"0-{n - 1}\n")
    for c in range(n):
        for idx, (lv, typ, groups) in enumerate([(1, "Data", [[c]]), (1, "Instruction", [[c]]),
                                                 (2, "Unified", l2_groups),
                                                 (3, "Unified", l3_groups)]):
            g = next(g for g in groups if c in g)
            d = cpu / f"cpu{c}" / "cache" / f"index{idx}"
            d.mkdir(parents=True)
            (d / "level").write_text(f"{lv}\n")
            (d / "type").write_text(typ + "\n")
            (d / "shared_cpu_list").write_text(f"{g[0]}-{g[-1]}\n" if len(g) > 1 else f"{g[0]}\n")
    node = root / "node" / "node0"
    node.mkdir(parents=True)
    (node / "cpulist").write_text(f"0-{n - 1}\n")


def test_topology_from_a_fake_sysfs(tmp_path):
    # 8 CPUs: L1 per CPU, L2 per pair, L3 per 4, one NUMA node (like a small P1)
    _fake_sysfs(tmp_path, [[0, 1], [2, 3], [4, 5], [6, 7]], [[0, 1, 2, 3], [4, 5, 6, 7]], 8)
    assert T.cache_domains("L2", root=tmp_path) == [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert T.fission_levels(root=tmp_path) == [("L1", 8), ("L2", 4), ("L3", 2), ("NONE", 1)]
    assert T.fission_counts("L3", 8, root=tmp_path) == [4, 4]
    assert T.fission_counts("L2", 6, root=tmp_path) == [2, 2, 1, 1]     # scaled to the device
    assert T.fission_counts("NUMA", 8, root=tmp_path) == [8]
    assert T.fission_counts("NONE", 8, root=tmp_path) == [8]
    with pytest.raises(wpart.WpartValueError, match="level"):
        T.cache_domains("L9", root=tmp_path)


def test_topology_of_this_machine():
    levels = T.fission_levels()
    assert levels[-1] == ("NONE", 1) and all(n >= 1 for _, n in levels)


@needs_cl
def test_run_reference_is_data_and_the_report_gives_per_device_times(rt_fission):
    comp = O.FilterPipeline(40, 32, seed=1)
    run = rt_fission.run(comp)
    assert isinstance(run.reference, np.ndarray)               # the NumPy reference output
    assert np.array_equal(run.output.reshape(run.reference.shape), run.reference)
    assert run.check()
    text = repr(run)
    assert "ms per execution" in text and "ms per device" in text
    live = [t for t, n in zip(run.exec_times, run.sizes) if n > 0]
    assert run.exec_balance_ratio == pytest.approx(min(live) / max(live))
    assert rt_fission.run(O.Saxpy(64, seed=0)).reference is None  # checked, no stored output


@needs_cl
def test_runtime_run_async_returns_a_future_of_the_run(rt_fission):
    fut = rt_fission.run_async(O.FilterPipeline(24, 16, seed=2))
    run = fut.result(timeout=120)
    assert run.success and run.check()
