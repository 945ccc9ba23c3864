"""wpart.tasks speaks the package's vocabulary: `m` for the ranks (old names warn), keyword-only
options, one validator per concept (WpartError subclasses naming the argument), results that
follow wpart's result protocol (status, success, message, stats, to_dict, plot -> Axes, ==,
short repr), and the interface the package's checks call."""

import dataclasses
import inspect
import json
import math

import matplotlib.pyplot as plt
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import wpart
from wpart import tasks
from wpart._result import Result
from wpart.tasks.mpi import MPIRankResult, RankFailure

SB = tasks.synthetic_blocks


# ---------------------------------------------------------------- the interface of the checks
def test_interface_the_checks_call():
    p = wpart.tasks.gemma_like(seed=0)
    assert (p.m, p.n_tasks, p.n_blocks) == (14, 1959, 206)
    r = wpart.tasks.balance(p, method="ccm", seed=0, time_limit=30.0)
    assert isinstance(r, Result) and r.status == "feasible" and r.success
    assert r.max_load < r.initial_max_load and 0 <= r.imbalance < 1
    assert r.lower_bound <= r.max_load and r.gap >= 0
    assert "gemma_like" in tasks.__all__ and "balance" in tasks.__all__


def test_methods_are_declared_once():
    assert tasks.METHODS == tasks.TABLE.names == ("ccm", "none", "greedy", "tempered",
                                                  "brute_force")
    assert tasks.TABLE.exact == ("brute_force",)
    assert tasks.TABLE.choose("LPT").name == "greedy"  # an alias
    assert "| `ccm` |" in tasks.TABLE.markdown()
    with pytest.raises(wpart.WpartValueError, match="`method` must be one of"):
        tasks.balance(SB(), method="nope")
    with pytest.raises(wpart.WpartTypeError, match="preserve_clusters"):
        tasks.balance(SB(), method="ccm", preserve_clusters=True)  # not a ccm option


# ---------------------------------------------------------------- names
def _public_functions():
    for name in tasks.__all__:
        obj = getattr(tasks, name)
        if inspect.isfunction(obj) or inspect.isclass(obj) and name == "Problem":
            yield name, obj
    from wpart.tasks import mpi

    for name in mpi.__all__:
        obj = getattr(mpi, name)
        if inspect.isfunction(obj) and name != "main":
            yield name, obj


@pytest.mark.parametrize("name,fn", list(_public_functions()))
def test_signatures_say_m_and_options_are_keyword_only(name, fn):
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    assert not {"n_ranks", "n_pu", "p", "n_parts", "n_procs"} & set(sig.parameters), name
    data = {"problem", "paths", "stem", "assignment", "data", "comm", "rng", "m", "n_tasks",
            "n_blocks", "n_edges", "n_instances", "task_load"}
    if name == "random_problem":  # random_problem(m, n_tasks, n_blocks, n_edges, seed)
        data = data | {"seed"}
    for q in params:
        if q.kind is q.POSITIONAL_OR_KEYWORD:
            assert q.name in data, f"{name}: option {q.name!r} is not keyword-only"


def test_deprecated_aliases_warn():
    with pytest.warns(DeprecationWarning, match="n_ranks"):
        p = tasks.Problem(task_load=[1.0, 2.0], n_ranks=2)
    assert p.m == 2
    with pytest.warns(DeprecationWarning, match="Problem.n_ranks"):
        assert p.n_ranks == 2
    with pytest.warns(DeprecationWarning, match="n_ranks"):
        assert p.with_(n_ranks=3).m == 3
    with pytest.warns(DeprecationWarning, match="n_ranks"):
        assert tasks.gemma_like(n_ranks=3, n_tasks=30, n_blocks=6).m == 3
    with pytest.warns(DeprecationWarning, match="n_ranks"):
        assert tasks.random_problem(n_ranks=2, n_tasks=3, n_blocks=0, n_edges=0).m == 2
    r = tasks.balance(SB(), seed=0)
    with pytest.warns(DeprecationWarning, match="TasksResult.n_ranks"):
        assert r.n_ranks == 4
    with pytest.raises(wpart.WpartTypeError, match="both"):
        tasks.Problem(task_load=[1.0], m=1, n_ranks=1)
    # the paper's name of the objective is kept, without a warning
    assert r.max_work == r.max_load and r.initial_max_work == r.initial_max_load


def test_read_lbdatafile_alias(tmp_path):
    stem = str(tmp_path / "sb")
    SB().to_lbdatafile(stem)
    with pytest.warns(DeprecationWarning, match="n_ranks"):
        q = tasks.read_lbdatafile(stem, n_ranks=6)
    assert q.m == 6


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("call, exc, name", [
    (lambda: tasks.balance(SB(), seed="1"), wpart.WpartTypeError, "`seed`"),
    (lambda: tasks.balance(SB(), seed=True), wpart.WpartTypeError, "`seed`"),
    (lambda: tasks.balance(SB(), seed=2**64), wpart.WpartValueError, "`seed`"),
    (lambda: tasks.gemma_like(seed="0"), wpart.WpartTypeError, "`seed`"),
    (lambda: tasks.random_problem(2, 3, 0, 0, seed=1.5), wpart.WpartTypeError, "`seed`"),
    (lambda: tasks.run_protocol(SB(), seed="x"), wpart.WpartTypeError, "`seed`"),
    (lambda: tasks.gap_study(1, seed="x"), wpart.WpartTypeError, "`seed`"),
    (lambda: tasks.balance(SB(), time_limit="5"), wpart.WpartTypeError, "`time_limit`"),
    (lambda: tasks.balance(SB(), time_limit=True), wpart.WpartTypeError, "`time_limit`"),
    (lambda: tasks.balance(SB(), time_limit=0), wpart.WpartValueError, "`time_limit`"),
    (lambda: tasks.solve_milp(SB(), time_limit=-1.0), wpart.WpartValueError, "`time_limit`"),
    (lambda: tasks.brute_force(SB(), time_limit=math.nan), wpart.WpartValueError,
     "`time_limit`"),
    (lambda: tasks.balance(SB(), progress="yes"), wpart.WpartTypeError, "`progress`"),
    (lambda: tasks.balance(SB(), explore=1), wpart.WpartTypeError, "`explore`"),
    (lambda: tasks.balance(SB(), n_iter=1.5), wpart.WpartTypeError, "`n_iter`"),
    (lambda: tasks.balance(SB(), tol=-1.0), wpart.WpartValueError, "`tol`"),
    (lambda: tasks.balance(SB(), backend="event", max_delay=0.0), wpart.WpartValueError,
     "`max_delay`"),
    (lambda: tasks.Problem([1.0], 0), wpart.WpartValueError, "`m`"),
    (lambda: tasks.Problem([1.0], "2"), wpart.WpartTypeError, "`m`"),
    (lambda: tasks.Problem([1.0], 2, rank_alpha=[1.0]), wpart.WpartValueError, "`rank_alpha`"),
    (lambda: tasks.Problem(["a"], 2), wpart.WpartTypeError, "`task_load`"),
    (lambda: tasks.gemma_like(m=0), wpart.WpartValueError, "`m`"),
    (lambda: tasks.synthetic_blocks(variant="x"), wpart.WpartValueError, "`variant`"),
    (lambda: tasks.evaluate(SB(), alpha="x"), wpart.WpartTypeError, "`alpha`"),
    (lambda: tasks.brute_force(SB(), preserve_clusters="no"), wpart.WpartTypeError,
     "`preserve_clusters`"),
    (lambda: tasks.gap_study(1, time_limit=0), wpart.WpartValueError, "`time_limit`"),
])
def test_bad_inputs_are_wpart_errors_naming_the_argument(call, exc, name):
    with pytest.raises(exc, match=name) as ei:
        call()
    assert isinstance(ei.value, wpart.WpartError)


def test_custom_errors_derive_from_wpart_errors():
    assert issubclass(tasks.LBDatafileError, wpart.WpartValueError)
    assert issubclass(tasks.LBDatafileError, ValueError)
    assert issubclass(RankFailure, wpart.WpartError) and issubclass(RankFailure, RuntimeError)


def test_infinite_time_limit_means_none():
    a = tasks.balance(SB(), seed=0, time_limit=math.inf)
    b = tasks.balance(SB(), seed=0, time_limit=None)
    assert a == b and a.status == "feasible"


# ---------------------------------------------------------------- the result protocol
def _results():
    p = SB()
    out = {
        "ccm": tasks.balance(p, seed=0),
        "ranks": tasks.balance(p, seed=0, backend="ranks"),
        "event": tasks.balance(p, seed=0, backend="event"),
        "greedy": tasks.balance(p, method="greedy"),
        "brute": tasks.brute_force(p),
        "infeasible": tasks.brute_force(p, memory_cap=9.0),
        "given": tasks.evaluate(p),
        "protocol": tasks.run_protocol(p, seed=0),
    }
    if wpart.milp.solver_version():
        out["milp"] = tasks.solve_milp(p)
    return out


@pytest.fixture(scope="module")
def results():
    return _results()


def test_results_follow_the_protocol(results):
    for name, r in results.items():
        assert isinstance(r, Result), name
        assert dataclasses.is_dataclass(r) and type(r).__dataclass_params__.frozen, name
        assert r.status in ("optimal", "feasible", "time_limit", "infeasible", "error"), name
        assert isinstance(r.success, bool) and isinstance(r.message, str) and r.message, name
        assert isinstance(r.stats, dict), name
        d = r.to_dict()
        json.dumps(d)
        assert d["status"] == r.status and d["success"] == r.success, name
        assert hasattr(r, "max_load") and hasattr(r, "imbalance"), name
        assert len(repr(r).splitlines()) <= 5, name
        assert r == r, name


def test_statuses(results):
    assert results["ccm"].status == "feasible"
    assert results["brute"].status == "optimal" and results["brute"].gap == 0.0
    assert results["infeasible"].status == "infeasible" and not results["infeasible"].success
    if "milp" in results:
        m = results["milp"]
        assert m.status == "optimal" and m.lower_bound == pytest.approx(m.max_load)
        assert m.stats["solver_status"] == "optimal"


def test_imbalance_is_max_over_mean_minus_one(results):
    r = results["ccm"]
    assert r.imbalance == pytest.approx(r.max_load / r.work.mean() - 1)
    assert "%" in repr(r).splitlines()[1]  # printed as a percent
    assert r.lower_bound == pytest.approx(2.0)  # sum L / m = 8 / 4: the load bound


def test_equality_is_by_value():
    p = SB()
    a, b = tasks.balance(p, seed=0), tasks.balance(p, seed=0)
    assert a is not b and a == b  # timings in stats are not compared
    assert a != tasks.balance(p, seed=0, beta=1.0)
    assert tasks.run_protocol(p, seed=1) == tasks.run_protocol(p, seed=1)
    with pytest.raises(TypeError, match="^unhashable type: 'TasksResult'$"):
        hash(a)


def test_plots_return_the_axes_drawn_on(results):
    for name, r in results.items():
        fig, ax = plt.subplots()
        assert r.plot(ax=ax) is ax, name
        assert isinstance(r.plot(), Axes), name
        plt.close("all")
    r = results["ccm"]
    assert isinstance(r.plot_history(), Axes)
    fig = r.plot_panels()
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    plt.close("all")


@pytest.mark.skipif(not wpart.milp.solver_version(), reason="built without GLPK")
def test_gap_study_is_a_result():
    g = tasks.gap_study(2, seed=0, variants={"whole": {}}, deltas=(0.0,), ranks=(2, 2),
                        blocks_per_rank=(2, 2), tasks_per_block=(2, 2), n_seeds=1)
    assert isinstance(g, Result) and g.status == "feasible" and g.success
    assert len(repr(g).splitlines()) <= 5 and isinstance(g.plot(), Axes)
    json.dumps(g.to_dict())
    plt.close("all")


def test_mpi_rank_result_is_a_result():
    assert issubclass(MPIRankResult, Result)
    fields = {f.name for f in dataclasses.fields(MPIRankResult)}
    assert {"status", "message", "m", "max_load", "imbalance", "stats"} <= fields
    assert "n_ranks" not in fields and "max_work" not in fields
    sig = inspect.signature(tasks.mpi.balance_mpi)
    assert "time_limit" in sig.parameters and "timeout" in sig.parameters
