"""What a newcomer meets first: the package's files, help(wpart), results as HTML tables in
Jupyter, and bad first calls refused with an error naming the argument."""

import re
from pathlib import Path

import numpy as np
import pytest

import wpart
from wpart import hetero, spatial, tasks

ROOT = Path(__file__).resolve().parent.parent


def test_license_changelog_citation():
    lic = (ROOT / "LICENSE").read_text()
    assert "BSD 3-Clause" in lic and "Redistribution and use" in lic
    assert "## Unreleased" in (ROOT / "CHANGELOG.md").read_text()
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] and cff["license"] == "BSD-3-Clause"
    titles = " ".join(r["title"] for r in cff["references"])
    for word in ("Rectangular Partitions", "Bi-objective", "PLB-HAC", "Multi-Kernel OpenCL",
                 "Communication- and Memory-Aware"):
        assert word in titles
    assert len(cff["references"]) == 5


def test_help_wpart_is_current():
    doc = wpart.__doc__
    assert "as they land" not in doc and "not yet" not in doc
    for fam in ("spatial", "hetero", "tasks", "dynamic", "multikernel"):
        assert f"wpart.{fam}" in doc
    assert "compare_1d" in doc and "time_limit" in doc


def test_results_render_as_html_tables():
    import wpart.dynamic as D

    results = [
        wpart.partition_1d(np.arange(10), 3),
        spatial.partition(np.ones((8, 8)), 4),
        tasks.balance(tasks.paper_toy()),
        hetero.optimal_time(hetero.synthetic("dgemm-like", seed=0), 2560),
        hetero.pareto_front(hetero.synthetic("dgemm-like", seed=0), 2560),
        D.simulate("linear4", "greedy", trace=False),
    ]
    for r in results:
        h = r._repr_html_()
        assert h.count("<table>") == 1 and "status" in h and "success" in h
        assert len(h) < 20_000  # arrays are shortened
    h = spatial.partition(np.ones((400, 400)), 64)._repr_html_()
    assert "array[64, 4]" in h and "..." in h


@pytest.mark.parametrize("call,name", [
    (lambda: tasks.balance(None), "problem"),
    (lambda: tasks.brute_force(None), "problem"),
    (lambda: tasks.evaluate(None), "problem"),
    (lambda: tasks.compare(None), "problem"),
    (lambda: hetero.ProfileSet([([1, 2], [0.1, 0.2])]), "profiles[0]"),
    (lambda: hetero.ProfileSet(None), "profiles"),
])
def test_bad_first_calls_name_the_argument(call, name):
    with pytest.raises(wpart.WpartError, match=re.escape(name)):
        call()


def test_profile_set_from_tuples_is_the_way():
    ps = hetero.ProfileSet.from_arrays([([1, 2], [0.1, 0.2]), ([1, 2], [0.2, 0.3])])
    assert ps.m == 2 and isinstance(ps.profiles, tuple)
    assert hetero.ProfileSet(list(ps.profiles)) == ps


def test_exact_oracles_take_progress_and_time_limit():
    seen = []
    f = hetero.milp_front(hetero.synthetic("dgemm-like", seed=0), 2560, time_limit=30,
                          progress=lambda d, t: seen.append((d, t)))
    assert f.status == "optimal" and seen[0] == (0.0, 1.0) and seen[-1] == (1.0, 1.0)
    with pytest.raises(wpart.CancelledError, match=r"^the\ progress\ callback\ returned\ False"):
        hetero.pareto_milp(hetero.synthetic("dgemm-like", seed=0), 2560,
                           progress=lambda d, t: False)
    seen.clear()
    r = tasks.brute_force(tasks.paper_toy(), time_limit=30, progress=lambda d, t: seen.append(d))
    assert r.status == "optimal" and seen == [0.0, 1.0]
    with pytest.raises(wpart.WpartTypeError, match="progress"):
        tasks.brute_force(tasks.paper_toy(), progress="yes")


@pytest.mark.parametrize("call", [lambda: tasks.solve_milp(None), lambda: tasks.milp_model(None)])
def test_milp_of_no_problem_names_the_argument(call):
    with pytest.raises(wpart.WpartTypeError, match="`problem`"):
        call()


def test_dynamic_oracles_take_time_limit_and_progress():
    import wpart.dynamic as D

    pl = D.Platform.preset("linear4")
    seen = []
    o = D.oracle_stepped(pl, 100_000, divisors=range(1, 9), progress=lambda d, t: seen.append(d))
    assert o.status == "feasible" and seen == list(range(1, 9))
    o = D.oracle_stepped(pl, 100_000, time_limit=1e-9)
    assert o.status == "time_limit" and o.success and o.stats["simulations"] == 1
    assert len(o.table) == 1
    with pytest.raises(wpart.CancelledError, match=r"^the\ progress\ callback\ returned\ False"):
        D.oracle_stepped(pl, 1000, progress=lambda d, t: False)
    seen.clear()
    o = D.oracle_oneshot(pl, 1000, time_limit=5, progress=lambda d, t: seen.append(d))
    assert o.status == "optimal" and seen == [0.0, 1.0]
    with pytest.raises(wpart.WpartValueError, match="time_limit"):
        D.oracle_oneshot(pl, 1000, time_limit=-1)


def _solvers():
    import wpart.dynamic as D

    ps = hetero.synthetic("dgemm-like", seed=0)
    p = tasks.paper_toy()
    return [
        ("partition_1d", lambda **kw: wpart.partition_1d(np.arange(1, 50), 4, **kw)),
        ("compare_1d", lambda **kw: wpart.compare_1d(np.arange(1, 50), 4, **kw)),
        *[(f"tasks.balance[{m}]", lambda m=m, **kw: tasks.balance(p, method=m, **kw))
          for m in tasks.METHODS],
        ("tasks.brute_force", lambda **kw: tasks.brute_force(p, **kw)),
        ("tasks.solve_milp", lambda **kw: tasks.solve_milp(p, **kw)),
        ("tasks.run_protocol", lambda **kw: tasks.run_protocol(p, **kw)),
        ("tasks.compare", lambda **kw: tasks.compare(p, **kw)),
        *[(f"hetero.{n}", lambda n=n, **kw: getattr(hetero, n)(ps, 2560, **kw))
          for n in ("optimal_time", "optimal_energy", "load_balanced", "pareto_front",
                    "threshold_dp_front", "milp_front", "compare")],
        ("hetero.bruteforce_front", lambda **kw: hetero.bruteforce_front(
            hetero.ProfileSet.from_arrays([([1, 2, 3], [0.1, 0.2, 0.3], [1, 2, 3]),
                                           ([1, 2, 3], [0.2, 0.3, 0.4], [1, 1, 1])]), 4, **kw)),
        ("dynamic.simulate", lambda **kw: D.simulate("linear4", "greedy", **kw)),
        ("dynamic.oracle_oneshot", lambda **kw: D.oracle_oneshot(D.Platform.preset("linear4"),
                                                                 10_000, **kw)),
        ("dynamic.oracle_stepped", lambda **kw: D.oracle_stepped(
            D.Platform.preset("linear4"), 10_000, divisors=range(1, 4), **kw)),
        ("dynamic.compare", lambda **kw: D.compare("linear4", {"g": "greedy"}, seeds=[0],
                                                   **kw)),
    ]


@pytest.mark.parametrize("name,call", _solvers(), ids=[n for n, _ in _solvers()])
def test_every_non_spatial_method_takes_time_limit_and_progress(name, call):
    """The vocabulary of the README: time_limit= (seconds) and progress= (True or a callable
    progress(done, total)) on every method of the non-spatial families (the spatial ones have
    their own test)."""
    seen = []
    r = call(time_limit=30.0, progress=lambda d, t: seen.append((d, t)))
    assert r is not None
    for d, t in seen:
        assert 0 <= d <= t or t == 0, (name, d, t)


def test_measure_takes_a_time_limit_for_the_whole_call():
    import time

    def kernel(n):
        time.sleep(0.02)

    r = hetero.measure(kernel, [1, 2, 3, 4], min_reps=2, max_reps=2, warmup=0,
                       time_limit=0.01)
    assert r.status == "time_limit" and r.success and len(r.reps) == 1  # the first size only
    assert "1 of 4 sizes" in r.message
    r = hetero.measure(kernel, [1, 2], min_reps=2, max_reps=2, warmup=0, time_limit=30)
    assert r.status == "feasible" and len(r.reps) == 2


def test_adaptive_runs_take_time_limit_and_progress(tmp_path):
    from wpart.dynamic import GemmColumnsTask
    from wpart.multikernel import KnowledgeBase, PacedRuntime, adaptive_runs

    rng = np.random.default_rng(0)
    task = GemmColumnsTask(rng.random((32, 32)), rng.random((32, 128)))
    rt = PacedRuntime(acc_rate=1e5)
    kb = KnowledgeBase(tmp_path / "kb.json", autosave=False)
    seen = []
    r = adaptive_runs(rt, task, runs=3, kb=kb, progress=lambda d, t: seen.append((d, t)))
    assert r.status == "feasible" and seen == [(1, 3), (2, 3), (3, 3)]
    r = adaptive_runs(rt, task, runs=50, kb=kb, time_limit=1e-9)
    assert r.status == "time_limit" and r.success and r.stats["runs"] == 1
    with pytest.raises(wpart.CancelledError, match=r"^the\ progress\ callback\ returned\ False"):
        adaptive_runs(rt, task, runs=3, kb=kb, progress=lambda d, t: False)


def test_build_profile_takes_time_limit_and_progress():
    from wpart.multikernel import build_profile

    def measure(fission, overlap, wgs, s):  # CPU 1 s per unit share, GPU 0.5 s
        return (max(0.5 * s, 1.0 * (1 - s)), 0.5 * s, 1.0 * (1 - s))

    seen = []
    kw = dict(sct_id="k", workload=(1000,), fission=("NONE", "L3"), overlaps=(1, 2))
    r = build_profile(measure, progress=lambda d, t: seen.append((d, t)), **kw)
    assert r.status == "feasible" and seen and seen[-1][0] <= seen[-1][1] == 4
    assert abs(r.profile.s - 2 / 3) < 0.05
    r = build_profile(measure, time_limit=1e-9, **kw)
    assert r.status == "time_limit" and r.stats["measurements"] >= 1 and r.profile is not None
