"""compare() in every family: one table of every applicable method, gaps to a bound."""

import json
import math

import numpy as np
import pytest

import wpart
from wpart import hetero, spatial, tasks
from wpart import compare_1d

ROW_KEYS = {"method", "gap", "seconds", "status", "message"}


def _check(c, objective, n_rows):
    assert c.objective == objective and len(c.table) == n_rows
    for r in c.table:
        assert ROW_KEYS | {objective} <= set(r)
        assert r["seconds"] >= 0
        if r[objective] is not None and c.lower_bound is not None:
            assert r["gap"] >= -1e-12  # never below the bound
    d = c.to_dict()
    json.dumps(d)
    assert d["best"] == c.best and len(d["table"]) == n_rows
    # the result protocol: the best method's status, success when some method answered
    assert (d["status"], d["success"], d["message"]) == (c.status, c.success, c.message)
    assert c.status in wpart.STATUSES and c.success == (c.best is not None)
    if c.best is not None:
        assert c.status == next(r["status"] for r in c.table if r["method"] == c.best)
        assert c.best in c.message
    text = str(c)
    for r in c.table:
        assert r["method"] in text
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "<table>" in c._repr_html_()
    import matplotlib

    matplotlib.use("Agg")
    ax = c.plot()
    assert ax.get_xlabel() == objective


def test_compare_1d_exact_methods_agree_and_heuristics_are_bounded():
    rng = np.random.default_rng(1)
    for _ in range(5):
        loads = rng.integers(0, 50, rng.integers(1, 60))
        m = int(rng.integers(1, 9))
        c = compare_1d(loads, m)
        _check(c, "max_load", len(wpart.METHODS_1D))
        opt = wpart.partition_1d(loads, m, method="dp").max_load
        assert c.lower_bound == opt
        for r in c.table:
            assert r["max_load"] >= opt
            if r["method"] in ("nicol", "bisect", "dp"):
                assert r["max_load"] == opt and r["gap"] == 0


def test_spatial_compare_every_method_dense_and_sparse():
    A = np.random.default_rng(0).integers(0, 20, (24, 30))
    c = spatial.compare(A, 6, time_limit=5)
    _check(c, "max_load", len(spatial.METHODS))
    assert c.lower_bound >= A.sum() / 6
    for name, res in c.results.items():
        assert res.max_load == c.table[[r["method"] for r in c.table].index(name)]["max_load"]
    sp = pytest.importorskip("scipy.sparse")
    c2 = spatial.compare(sp.csr_matrix(A), 6, methods=["rect_uniform", "jag_m_opt"],
                         time_limit=5)
    assert [r["max_load"] for r in c2.table] == [r["max_load"] for r in c.table
                                                  if r["method"] in ("rect_uniform", "jag_m_opt")]


def test_spatial_compare_refusals_are_rows_and_bad_arguments_raise():
    A = np.ones((3, 3))
    c = spatial.compare(A, 4, methods=["jag_pq_opt_dp", "rect_uniform"], P=3, Q=3)
    assert c.table[0]["status"] == "refused" and c.table[0]["max_load"] is None
    with pytest.raises(wpart.WpartValueError, match="methods"):
        spatial.compare(A, 2, methods=["nope"])
    with pytest.raises(wpart.WpartValueError, match="time_limit"):
        spatial.compare(A, 2, time_limit=0)
    with pytest.raises(wpart.WpartTypeError, match="time_limit"):
        spatial.compare(A, 2, time_limit="1")
    # a size cap (WpartRuntimeError, whose name holds "time") is a refusal, not a time limit;
    # a WpartTimeoutError is the time limit
    B = np.random.default_rng(0).integers(1, 9, (64, 64))
    row = spatial.compare(B, 16, methods=["hier_opt"]).table[0]
    assert row["status"] == "refused" and "max_states" in row["message"]
    from wpart._compare import Candidate, run_candidates

    def late(tl):
        raise wpart.WpartTimeoutError("ran past its time limit")

    c = run_candidates("spatial", [Candidate("slow", late)], objective="max_load",
                           time_limit=1.0)
    assert c.table[0]["status"] == "time_limit"


def test_tasks_compare_exact_bound():
    c = tasks.compare(tasks.paper_toy(), time_limit=5)
    _check(c, "max_work", 6)
    assert c.lower_bound == pytest.approx(2.5)
    by = {r["method"]: r for r in c.table}
    assert by["brute_force"]["max_work"] == pytest.approx(2.5)
    if by["milp"]["status"] != "refused":  # built without GLPK
        assert by["milp"]["max_work"] == pytest.approx(2.5)
    with pytest.raises(wpart.WpartTypeError, match="problem"):
        tasks.compare(None)


def test_hetero_compare_time_optimum_bounds_the_rest():
    ps = hetero.synthetic("dgemm-like", seed=0)
    c = hetero.compare(ps, 2560, time_limit=5)
    _check(c, "time", 6)
    by = {r["method"]: r for r in c.table}
    assert by["optimal_time"]["gap"] == 0 and c.best == "optimal_time"
    assert by["optimal_energy"]["energy"] <= by["optimal_time"]["energy"]
    assert by["pareto_front"]["points"] >= 1
    assert all(r["time"] >= c.lower_bound * (1 - 1e-12) for r in c.table)


def test_dynamic_compare_table_and_the_old_array_view():
    import wpart.dynamic as D

    c = D.compare("linear4", seeds=[0, 1], progress=False)
    _check(c, "makespan", len(D.BALANCERS.names))
    assert c.shape == (2 * len(D.BALANCERS.names),)
    best = min(r["makespan"] for r in c.table)
    assert c.lower_bound == best and math.isclose(min(r["gap"] for r in c.table), 0)
    one = D.compare("linear4", {"g": "greedy"}, seeds=[0, 1], progress=False)
    assert one.table[0]["makespan"] == pytest.approx(float(np.mean(one["makespan"])))


def test_a_comparison_without_answers_says_why():
    ps = hetero.synthetic("dgemm-like", seed=1)
    c = hetero.compare(ps, 10**9)  # beyond every processor
    assert (c.status, c.success, c.best) == ("infeasible", False, None)
    assert "no method" in c.message
    c = hetero.compare(ps, 57600, time_limit=1e-9)
    assert c.status in ("time_limit", "optimal", "feasible")
    assert c.success == (c.best is not None)


def test_comparison_compares_by_value_and_counts_its_rows():
    """A Comparison equals its deep and pickled copies (every field by value), not another
    run's (its timings differ); ``stats`` counts the methods, the answers and their seconds,
    in ``to_dict()`` too."""
    import copy
    import json
    import pickle

    A = np.random.default_rng(0).integers(1, 9, (20, 20))
    c = spatial.compare(A, 4, methods=["rect_uniform", "rect_nicol", "jag_pq_opt_dp"])
    assert c == copy.deepcopy(c) and c == pickle.loads(pickle.dumps(c))
    assert c != spatial.compare(A, 4, methods=["rect_uniform", "rect_nicol", "jag_pq_opt_dp"])
    st = c.stats
    assert st["methods"] == 3 and st["answered"] == 3
    assert st["seconds"] == pytest.approx(sum(r["seconds"] for r in c.table))
    assert json.loads(json.dumps(c.to_dict()))["stats"]["methods"] == 3
