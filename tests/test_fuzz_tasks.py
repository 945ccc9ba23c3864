"""Hostile input to wpart.tasks: Problem, balance, evaluate, solve_milp and the LBDatafile
reader / writer. Results are re-evaluated by the pure-Python work model (tests/oracles/tasks.py)
and MILP optima are compared with enumeration."""

from __future__ import annotations

import gzip
import json
import math
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import tasks as orc
from oracles.fuzz import budget, call, hostile_array, hostile_count, hostile_number

import wpart.tasks as tasks
from wpart import WpartError

F = "tasks"
NAMES = ("task_load", "`m`", "task_block", "block_size", "block_home", "edges",
         "edge_bytes", "task_footprint", "task_working", "rank_baseline", "rank_mem_cap",
         "rank_alpha", "initial", "assignment", "method", "seed", "alpha", "beta", "gamma",
         "delta", "memory_cap", "n_iter", "time_limit", "paths", "phase", "LBDatafile",
         "problem", "stem", "phases", "metadata", "top level", "JSON", "file", "memory cap")
ARRAY_FIELDS = ["task_block", "block_size", "block_home", "edges", "edge_bytes",
                "task_footprint", "task_working", "rank_baseline", "rank_mem_cap", "rank_alpha",
                "initial"]


@st.composite
def small_problem(draw):
    I = draw(st.integers(1, 3))
    K = draw(st.integers(1, 5))
    return tasks.random_problem(I, K, draw(st.integers(0, 2)), draw(st.integers(0, 4)),
                                seed=draw(st.integers(0, 1000)))


def _check(p, r, **kw) -> None:
    a = np.asarray(r.assignment)
    assert a.shape == (p.n_tasks,) and ((a >= 0) & (a < p.m)).all()
    ref = orc.work_model(p, a.tolist(), **kw)
    assert math.isclose(r.max_load, ref["w_max"], rel_tol=1e-9, abs_tol=1e-9) or (
        math.isinf(r.max_load) and math.isinf(ref["w_max"]))
    np.testing.assert_allclose(r.load, ref["load"], rtol=1e-9, atol=1e-9)


@given(st.data())
def _problem(data):
    K = data.draw(st.integers(0, 4))
    load = data.draw(st.one_of(st.lists(st.floats(0, 10), min_size=K, max_size=K),
                               hostile_array(ndim=(0, 1, 2), max_side=4), st.none()))
    I = data.draw(hostile_count(st.integers(1, 3)))
    kw = {}
    if data.draw(st.booleans()):
        f = data.draw(st.sampled_from(ARRAY_FIELDS))
        kw[f] = data.draw(hostile_array(ndim=(0, 1, 2), max_side=4))
    p, exc = call(F, tasks.Problem, load, I, names=NAMES, **kw)
    if exc is None:
        assert p.n_tasks == np.asarray(load).size and p.n_tasks >= 1
        r, exc = call(F, tasks.evaluate, p, names=NAMES)
        if exc is None:
            _check(p, r)


def test_problem_and_evaluate(fuzz_budget):
    budget(fuzz_budget, 400)(_problem)()


@given(small_problem(), st.data())
def _balance(p, data):
    method = data.draw(st.sampled_from(["ccm", "greedy", "none", "tempered", "bogus", 3]))
    kw = {}
    key = data.draw(st.sampled_from(["seed", "alpha", "beta", "gamma", "delta", "n_iter",
                                     "time_limit", "memory_cap", "initial", None]))
    if key is not None:
        kw[key] = data.draw(st.one_of(hostile_number(), hostile_count(),
                                      hostile_array(ndim=(0, 1), max_side=5)))
    r, exc = call(F, tasks.balance, p, method=method, names=NAMES, **kw)
    if exc is None and key in (None, "seed", "n_iter", "time_limit"):
        _check(p, r)
        assert r.status in ("feasible", "time_limit", "infeasible")


def test_balance(fuzz_budget):
    budget(fuzz_budget, 300)(_balance)()


@given(st.data())
def _evaluate(data):
    p = data.draw(small_problem())
    a = data.draw(st.one_of(
        st.lists(st.integers(0, p.m - 1), min_size=p.n_tasks, max_size=p.n_tasks),
        hostile_array(ndim=(0, 1, 2), max_side=6)))
    coef = {k: data.draw(st.one_of(st.floats(0, 3), hostile_number()))
            for k in data.draw(st.sets(st.sampled_from(["alpha", "beta", "gamma", "delta"])))}
    r, exc = call(F, tasks.evaluate, p, assignment=a, names=NAMES, **coef)
    if exc is None:
        _check(p, r, **{k: float(v) for k, v in coef.items()})


def test_evaluate(fuzz_budget):
    budget(fuzz_budget, 300)(_evaluate)()


@given(st.data())
def _milp(data):
    I = data.draw(st.integers(1, 2))
    K = data.draw(st.integers(1, 4))
    p = tasks.random_problem(I, K, data.draw(st.integers(0, 2)), data.draw(st.integers(0, 3)),
                             seed=data.draw(st.integers(0, 100)))
    kw = {}
    if data.draw(st.integers(0, 2)) == 0:
        kw[data.draw(st.sampled_from(["time_limit", "mip_gap", "alpha", "form"]))] = \
            data.draw(st.one_of(hostile_number(), st.sampled_from(["compact", "x"])))
    r, exc = call(F, tasks.solve_milp, p, names=NAMES + ("mip_gap", "form"), **kw)
    if exc is None:
        if not r.success:  # the time limit struck before any incumbent: in the status
            assert "time_limit" in kw and r.status == "time_limit"
            return
        _check(p, r, **({"alpha": float(kw["alpha"])} if "alpha" in kw else {}))
        if not kw and r.status == "optimal":
            best, _ = orc.brute(p)
            assert math.isclose(r.max_load, best, rel_tol=1e-6, abs_tol=1e-6)


def test_solve_milp(fuzz_budget):
    budget(fuzz_budget, 120)(_milp)()


GOOD = {"metadata": {"type": "LBDatafile", "rank": 0},
        "phases": [{"id": 0, "tasks": [{"entity": {"type": "object", "id": 1, "home": 0,
                                                   "migratable": True},
                                        "node": 0, "resource": "cpu", "time": 1.5}]}]}


@st.composite
def lb_bytes(draw):
    kind = draw(st.integers(0, 4))
    good = json.dumps(GOOD).encode()
    if kind == 0:
        return draw(st.binary(max_size=80))
    if kind == 1:
        return good[: draw(st.integers(0, len(good)))]
    if kind == 2:
        return b"\xff\xfe" + good
    if kind == 3:
        doc = json.loads(json.dumps(GOOD))
        path = draw(st.sampled_from([("phases",), ("metadata",), ("phases", 0, "tasks"),
                                     ("phases", 0, "tasks", 0, "time"),
                                     ("phases", 0, "tasks", 0, "entity"),
                                     ("phases", 0, "tasks", 0, "entity", "id"),
                                     ("phases", 0, "id")]))
        val = draw(st.sampled_from([None, -1, 1e400, "x", [], {}, True, 2**64, float("nan")]))
        tgt = doc
        for k in path[:-1]:
            tgt = tgt[k]
        tgt[path[-1]] = val
        return json.dumps(doc).encode()
    return good


@given(lb_bytes(), st.booleans())
def _lbdata(body, gz):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.0.json")
        with open(path, "wb") as f:
            f.write(gzip.compress(body) if gz else body)
        p, exc = call(F, tasks.read_lbdatafile, path, names=NAMES)
        if exc is None:
            assert p.n_tasks >= 1 and np.isfinite(p.task_load).all()
            out, exc = call(F, tasks.write_lbdatafile, p, os.path.join(d, "out"), names=NAMES)
            assert exc is None
            q = tasks.read_lbdatafile(out)
            np.testing.assert_array_equal(q.task_load, p.task_load)


def test_lbdatafile_reader(fuzz_budget):
    budget(fuzz_budget, 300)(_lbdata)()


# ------------------------------------------------------------------ regressions -------------


def test_problem_without_task_load_is_a_type_error():
    with pytest.raises(TypeError, match="`task_load`"):
        tasks.Problem(task_load=None, m=2)


@pytest.mark.parametrize("tl", [-1, 0, math.nan, -math.inf])
def test_balance_rejects_bad_time_limits(tl):
    with pytest.raises(ValueError, match="`time_limit`"):
        tasks.balance(tasks.paper_toy(), time_limit=tl)


def test_balance_accepts_infinite_time_limit():
    assert tasks.balance(tasks.paper_toy(), time_limit=math.inf).max_work > 0


def test_random_problem_beyond_the_machine_names_the_count(monkeypatch):
    """2**31 - 1 tasks asked numpy for 16 GiB at once (a bare MemoryError, or the system's
    kill): refused before, naming the count."""
    from wpart.tasks import generators

    monkeypatch.setattr(generators, "memory_budget", lambda: 2**34)
    for args, name in (((2, 2**31 - 1, 1, 1), "n_tasks"), ((2, 10, 1, 2**31 - 1), "n_edges")):
        with pytest.raises(MemoryError, match=f"`{name}` would need") as e:
            tasks.random_problem(*args)
        assert isinstance(e.value, WpartError)


def test_balance_history_beyond_the_machine_names_the_counts(monkeypatch):
    """The W_max history (n_trials x (n_iter + 1) doubles) is allocated up front: a count whose
    history passes a quarter of the machine is refused naming `n_iter` (the slow fuzz run drew
    n_iter = 2**31 - 1: 16 GiB, and the process was killed), before any allocation."""
    from wpart.tasks import _balance

    monkeypatch.setattr(_balance, "memory_budget", lambda: 2**33)  # a machine of 8 GiB
    for backend in ("simulated", "ranks"):
        with pytest.raises(MemoryError, match="`n_trials` x `n_iter` would need 2 GiB") as e:
            tasks.balance(tasks.paper_toy(), n_iter=2**28, backend=backend)
        assert isinstance(e.value, WpartError)
    with pytest.raises(MemoryError, match="`n_trials` x"):
        tasks.balance(tasks.paper_toy(), n_trials=2**28)
    assert tasks.balance(tasks.paper_toy(), n_iter=2**20 // 8, time_limit=0.05).success


@pytest.mark.parametrize("key", ["n_iter", "n_trials", "n_rounds", "fanout"])
@pytest.mark.parametrize("v", [2**31, 2**63 - 1, 2**64])
def test_balance_huge_counts_name_the_argument(key, v):
    with pytest.raises(ValueError, match=f"`{key}`"):
        tasks.balance(tasks.paper_toy(), **{key: v})


def _lb_file(tmp_path, **meta_or_id):
    doc = json.loads(json.dumps(GOOD))
    if "rank" in meta_or_id:
        doc["metadata"]["rank"] = meta_or_id["rank"]
    if "id" in meta_or_id:
        doc["phases"][0]["tasks"][0]["entity"]["id"] = meta_or_id["id"]
    f = tmp_path / "d.0.json"
    f.write_text(json.dumps(doc))
    return str(f)


@pytest.mark.parametrize("field", [{"id": 2**64}, {"id": 2**63}, {"id": -(2**63) - 1},
                                   {"rank": 2**64}, {"rank": 2**31}])
def test_lbdatafile_integers_beyond_range_name_the_field(tmp_path, field):
    with pytest.raises(tasks.LBDatafileError, match="entity.id|metadata.rank"):
        tasks.read_lbdatafile(_lb_file(tmp_path, **field))


@pytest.mark.parametrize("kw, err, what", [
    ({"m": 2**64}, ValueError, "`m`"), ({"m": 1.5}, TypeError, "`m`"),
    ({"phase": math.nan}, TypeError, "`phase`"), ({"phase": "0"}, TypeError, "`phase`")])
def test_lbdatafile_reader_options_are_validated(tmp_path, kw, err, what):
    with pytest.raises(err, match=what):
        tasks.read_lbdatafile(_lb_file(tmp_path), **kw)


def test_write_lbdatafile_phase_is_validated(tmp_path):
    with pytest.raises(TypeError, match="`phase`"):
        tasks.write_lbdatafile(tasks.paper_toy(), str(tmp_path / "o"), phase=math.nan)


@pytest.mark.parametrize("call, err, what", [
    (lambda: tasks.brute_force(tasks.paper_toy(), max_states=2**64), OverflowError,
     "`max_states`"),
    (lambda: tasks.balance(tasks.paper_toy(), backend="event", n_iter=2**64), ValueError,
     "`n_iter`"),
    (lambda: tasks.balance(tasks.paper_toy(), tol="x"), TypeError, "`tol`"),
    (lambda: tasks.balance(tasks.paper_toy(), comm_tau=math.nan), ValueError, "`comm_tau`"),
    (lambda: tasks.balance(tasks.paper_toy(), memory_cap=1j), TypeError, "`memory_cap`"),
    (lambda: tasks.random_problem(2**64, 3, 1, 1), ValueError, "`m`"),
    (lambda: tasks.random_problem(2, 3, 1, 2**40), ValueError, "`n_edges`"),
    (lambda: tasks.gemma_like(m=2**63, n_tasks=3, n_blocks=1), ValueError, "`m`"),
    (lambda: tasks.gap_study(2**64), ValueError, "`n_instances`"),
])
def test_huge_or_mistyped_options_name_the_argument(call, err, what):
    with pytest.raises(err, match=what):
        call()


@pytest.mark.parametrize("key", ["block_size", "edge_bytes"])
def test_zero_d_extra_arrays_without_their_partner_name_the_argument(key):
    with pytest.raises(ValueError, match=f"`{key}` given without"):
        tasks.Problem([0.0], 1, **{key: np.array(1.0)})
    tasks.Problem([0.0], 1, **{key: np.array([])})
