"""The vocabulary, checked mechanically over every public name of every family.

Walks each module's ``__all__`` and checks: argument names (``m`` for the number of parts,
never ``n_ranks``/``n_pu``/``p``...; ``timeout`` only in distributed runs), keyword-only
options after the data, the result protocol (``status``/``success``/``message``/``stats``,
``to_dict()``, ``.plot(ax=None)`` returning its Axes, equality, a short repr), and that every
exception class derives from :class:`wpart.WpartError`. Then calls the main entry points with
bad values of the shared concepts and checks the exception type and message shape.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import math
import warnings

import numpy as np
import pytest

import wpart
from wpart._result import STATUSES, Result

MODULES = [
    "wpart",
    "wpart.milp",
    "wpart.spatial",
    "wpart.spatial.instances",
    "wpart.hetero",
    "wpart.hetero.kernels",
    "wpart.dynamic",
    "wpart.dynamic.mpi",
    "wpart.multikernel",
    "wpart.tasks",
    "wpart.tasks.datasets",
    "wpart.tasks.generators",
    "wpart.tasks.mpi",
    "wpart.cli",
    "wpart.experiments",
    "wpart.experiments.base",
    "wpart.experiments.dynamic",
    "wpart.experiments.dynamic_paper",
    "wpart.experiments.hetero",
    "wpart.experiments.hetero_paper",
    "wpart.experiments.multikernel",
    "wpart.experiments.multikernel_sim",
    "wpart.experiments.multikernel_table2",
    "wpart.experiments.spatial",
    "wpart.experiments.spatial_paper",
    "wpart.experiments.spatial_timing",
    "wpart.experiments.tasks",
    "wpart.experiments.tasks_paper",
]

#: Names that meant "number of parts" in one family or another; `m` replaces them all.
OLD_PART_NAMES = {"n_ranks", "n_pu", "n_pus", "p", "n_parts", "n_procs", "nprocs", "num_parts",
                  "n_processors", "n_proc"}

#: Parameters that may stay positional with a default: matplotlib's `ax` and the optional
#: data arguments of a few functions (each with its reason).
POSITIONAL_DEFAULT_OK = {
    "ax",  # matplotlib convention: result.plot(ax)
    "self",
}


#: Optional *data* that stays positional-only (sizes of generated instances, a file path, an
#: array, the preset a generator is named by). Anything else after the data
#: is keyword-only; a new positional-only default must be added here on purpose.
POSITIONAL_ONLY_DATA = {
    # random_problem(m, n_tasks, n_blocks, n_edges, seed): the seed of a generated instance
    # is part of its data (issue 21's interface)
    ("wpart.tasks.random_problem", "seed"),
    ("wpart.tasks.generators.random_problem", "seed"),
    ("wpart.spatial.instances.diagonal", "n2"),
    ("wpart.spatial.instances.mesh_like", "n"),
    ("wpart.spatial.instances.multipeak", "n2"),
    ("wpart.spatial.instances.peak", "n2"),
    ("wpart.spatial.instances.pic_like", "n"),
    ("wpart.spatial.instances.pic_series", "n"),
    ("wpart.spatial.instances.uniform", "n2"),
    # compare(platform, algos): the balancers compared are data (None: every balancer)
    ("wpart.dynamic.compare", "algos"),
    # Greedy(m, n, chunk): the piece size is what names the method, Greedy(g) (issue 19's
    # interface)
    ("wpart.dynamic.Greedy", "chunk"),
    ("wpart.hetero.Profile.from_arrays", "energy"),
    ("wpart.hetero.ProfileSet.to_csv", "path"),
    ("wpart.hetero.synthetic", "preset"),
    # main(argv=None): the command line (None: sys.argv)
    ("wpart.cli.main", "argv"),
}


def _public(modname: str):
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None)
    assert names is not None, f"{modname} has no __all__"
    for name in names:
        assert hasattr(mod, name), f"{modname}.__all__ names {name!r}, which does not exist"
        yield name, getattr(mod, name)


def _callables():
    seen = set()
    for modname in MODULES:
        for name, obj in _public(modname):
            if inspect.ismodule(obj) or id(obj) in seen:
                continue
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    continue
                seen.add(id(obj))
                if not issubclass(obj, Result):  # results are built by wpart, not by users
                    yield f"{modname}.{name}", obj
                for mname, meth in vars(obj).items():
                    if mname.startswith("_"):
                        continue
                    if isinstance(meth, (staticmethod, classmethod)):
                        meth = meth.__func__
                    if inspect.isfunction(meth):
                        yield f"{modname}.{name}.{mname}", meth
            elif callable(obj):
                seen.add(id(obj))
                yield f"{modname}.{name}", obj


def _signature(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


CALLABLES = list(_callables())


@pytest.mark.parametrize("modname", MODULES)
def test_every_name_in_all_exists(modname):
    assert list(_public(modname))


@pytest.mark.parametrize("qual,obj", CALLABLES, ids=[q for q, _ in CALLABLES])
def test_argument_names_and_keyword_only_options(qual, obj):
    sig = _signature(obj)
    if sig is None:
        pytest.skip("no introspectable signature")
    params = list(sig.parameters.values())
    names = {p.name for p in params}
    old = names & OLD_PART_NAMES
    assert not old, f"{qual} takes {sorted(old)}: the number of parts is `m` everywhere"
    if "timeout" in names:
        assert "mpi" in qual.lower() or "rank" in qual.lower(), (
            f"{qual} takes `timeout`, which only means the fault-detection deadline of a "
            "distributed run; a run's budget is `time_limit`")
    for prm in params:
        if prm.kind is prm.POSITIONAL_OR_KEYWORD and prm.default is not prm.empty:
            assert prm.name in POSITIONAL_DEFAULT_OK or (qual, prm.name) in \
                POSITIONAL_ONLY_DATA, (
                f"{qual}: option `{prm.name}` (after the data) must be keyword-only")
        if prm.kind is prm.POSITIONAL_ONLY and prm.default is not prm.empty:
            assert (qual, prm.name) in POSITIONAL_ONLY_DATA, (
                f"{qual}: option `{prm.name}` (after the data) must be keyword-only")


#: Public **kwargs still hiding options (to be emptied by their families).
PENDING_KWARGS: set = set()


@pytest.mark.parametrize("qual,obj", CALLABLES, ids=[q for q, _ in CALLABLES])
def test_no_kwargs_hide_options(qual, obj):
    """Every option is a named keyword: a ``**kwargs`` is only matplotlib's styling passed
    through by a ``plot`` method."""
    sig = _signature(obj)
    if sig is None:
        pytest.skip("no introspectable signature")
    var = [p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
    if not var or qual.rsplit(".", 1)[-1] == "plot":
        return
    if qual in PENDING_KWARGS:
        pytest.xfail(f"{qual} still takes **{var[0]}")
    raise AssertionError(f"{qual} takes **{var[0]}: name its options as keyword-only "
                         "parameters")


def _result_classes():
    out = {}
    for modname in MODULES:
        for name, obj in _public(modname):
            if inspect.isclass(obj) and issubclass(obj, Result) and obj is not Result:
                out[f"{modname}.{name}"] = obj
    return out


RESULT_CLASSES = _result_classes()


def test_result_classes_are_found():
    names = {c.__name__ for c in RESULT_CLASSES.values()}
    for expected in ("Partition1D", "MilpResult", "SpatialPartition", "Distribution",
                     "ParetoFront", "SimResult", "RunResult", "TasksResult"):
        assert expected in names, f"{expected} does not follow the result protocol"


@pytest.mark.parametrize("qual", sorted(RESULT_CLASSES))
def test_result_class_protocol(qual):
    cls = RESULT_CLASSES[qual]
    assert dataclasses.is_dataclass(cls), f"{qual} is not a dataclass"
    assert cls.__dataclass_params__.frozen, f"{qual} is not frozen"
    fields = {f.name for f in dataclasses.fields(cls)}
    for f in ("status", "message", "stats"):
        assert f in fields, f"{qual} lacks the field {f!r}"
    for attr in ("success", "to_dict", "plot"):
        assert hasattr(cls, attr), f"{qual} lacks {attr!r}"
    assert cls.plot is not Result.plot, f"{qual}.plot is not implemented"
    assert "ax" in inspect.signature(cls.plot).parameters, f"{qual}.plot takes no `ax`"
    assert cls.__eq__ is Result.__eq__, f"{qual} overrides the protocol's equality"


def test_every_exception_derives_from_wpart_error():
    for modname in MODULES:
        for name, obj in _public(modname):
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                assert issubclass(obj, wpart.WpartError), f"{modname}.{name}"
    for name in wpart._errors.__all__:
        cls = getattr(wpart, name)
        assert issubclass(cls, wpart.WpartError)
        if cls is not wpart.WpartError:
            assert len(cls.__mro__) > 3, f"{name} derives from no built-in"


# ---- results of the main entry points, checked against the protocol -----------------------

def _samples():
    import wpart.dynamic as D
    import wpart.hetero as H
    import wpart.spatial as S
    import wpart.tasks as T

    rng = np.random.default_rng(0)
    A = rng.integers(0, 50, (24, 24))
    ps = H.synthetic("dgemm-like", seed=0)
    prob = T.gemma_like(seed=0)
    return {
        "partition_1d": lambda: wpart.partition_1d(rng.integers(1, 100, 200), 8),
        "partition_1d speeds": lambda: wpart.partition_1d(
            np.arange(1, 101), 3, speeds=[1.0, 2.0, 3.0]),
        "milp.solve": lambda: wpart.milp.solve([-1.0, -1.0], A=[[1.0, 2.0]], b_upper=[4.0],
                                               integrality=[1, 1]),
        "spatial.partition": lambda: S.partition(A, 6, method="jag_m_heur"),
        "spatial.jag_m_opt": lambda: S.jag_m_opt(A, 4, time_limit=60),
        "hetero.optimal_time": lambda: H.optimal_time(ps, 4096, time_limit=60),
        "hetero.pareto_front": lambda: H.pareto_front(ps, 4096),
        "dynamic.simulate": lambda: D.simulate("hetero3", "greedy", seed=0),
        "tasks.balance": lambda: T.balance(prob, method="ccm", seed=0, time_limit=60),
    }


SAMPLES = list(_samples())


@pytest.fixture(scope="module")
def results():
    return {k: f() for k, f in _samples().items()}


@pytest.mark.parametrize("key", SAMPLES)
def test_results_follow_the_protocol(key, results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = results[key]
    assert isinstance(r, Result), f"{key} returned {type(r).__name__}, not a wpart.Result"
    assert r.status in STATUSES
    assert isinstance(r.success, bool) and r.success
    assert isinstance(r.message, str)
    assert isinstance(r.stats, dict)
    d = r.to_dict()
    assert d["status"] == r.status and d["success"] is True
    json.dumps(d)
    assert r == r
    assert r == dataclasses.replace(r)
    assert len(repr(r).splitlines()) <= 5, repr(r)
    fig, ax = plt.subplots()
    try:
        out = r.plot(ax=ax)
        assert out is ax, f"{key}.plot(ax=ax) returned {type(out).__name__}, not ax"
    finally:
        plt.close("all")
    if hasattr(r, "imbalance") and hasattr(r, "max_load") and not isinstance(r.max_load,
                                                                             np.ndarray):
        assert 0.0 <= r.imbalance < 10, f"{key}: imbalance is a fraction, got {r.imbalance}"
        if getattr(r, "lower_bound", None) is not None:
            assert r.gap >= -1e-12


def test_imbalance_is_speed_aware_everywhere():
    import wpart.spatial as S

    A = np.ones((32, 32), dtype=np.int64)
    speeds = np.array([1.0, 3.0])
    r1 = wpart.partition_1d(np.ones(400, dtype=np.int64), 2, speeds=speeds)
    r2 = S.jag_m_opt(A, 2, speeds=speeds)
    for r, total in ((r1, 400), (r2, 1024)):
        mean = total / speeds.sum()
        assert math.isclose(r.imbalance, r.max_load / mean - 1, rel_tol=1e-9)
        assert r.imbalance < 0.05


# ---- bad values of the shared concepts: same exception type and message shape -------------

def _entry_points():
    import wpart.dynamic as D
    import wpart.hetero as H
    import wpart.spatial as S
    import wpart.tasks as T

    A = np.ones((8, 8), dtype=np.int64)
    ps = H.synthetic("dgemm-like", seed=0)
    prob = T.gemma_like(seed=0)
    loads = np.arange(1, 50)
    return {
        "time_limit": [
            lambda v: wpart.partition_1d(loads, 4, time_limit=v),
            lambda v: S.jag_m_opt(A, 4, time_limit=v),
            lambda v: H.optimal_time(ps, 1024, time_limit=v),
            lambda v: H.pareto_front(ps, 1024, time_limit=v),
            lambda v: T.balance(prob, method="ccm", seed=0, time_limit=v),
            lambda v: D.simulate("hetero3", "greedy", seed=0, time_limit=v),
        ],
        "seed": [
            lambda v: H.synthetic("dgemm-like", seed=v),
            lambda v: T.gemma_like(seed=v),
            lambda v: T.balance(prob, method="ccm", seed=v),
            lambda v: D.simulate("hetero3", "greedy", seed=v),
        ],
        "m": [
            lambda v: wpart.partition_1d(loads, v),
            lambda v: S.partition(A, v, method="jag_m_heur"),
            lambda v: S.jag_m_opt(A, v),
        ],
    }


BAD = {
    "time_limit": [("5", TypeError), (True, TypeError), (-1, ValueError), (0, ValueError),
                   (float("nan"), ValueError)],
    "seed": [("x", TypeError), (True, TypeError), (1.5, TypeError), (-1, ValueError)],
    "m": [(0, ValueError), ("3", TypeError), (True, TypeError), (2.0, TypeError)],
}


@pytest.mark.parametrize("concept", sorted(BAD))
def test_bad_values_give_the_same_error_everywhere(concept):
    for i, call in enumerate(_entry_points()[concept]):
        for value, builtin in BAD[concept]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                with pytest.raises(wpart.WpartError) as info:
                    call(value)
            e = info.value
            assert isinstance(e, builtin), (concept, i, value, type(e).__mro__)
            assert f"`{concept}`" in str(e), (concept, i, value, str(e))


def test_inf_time_limit_means_none():
    r = wpart.partition_1d(np.arange(1, 50), 4, time_limit=float("inf"))
    assert r.status == "optimal"


def test_deprecated_aliases_warn():
    import wpart.dynamic as D
    import wpart.tasks as T

    prob = T.gemma_like(seed=0)
    with pytest.warns(DeprecationWarning, match="n_ranks"):
        assert prob.n_ranks == prob.m
    with pytest.warns(DeprecationWarning, match="n_pu"):
        pl = D.Platform.preset("hetero3")
        assert pl.n_pu == pl.m
