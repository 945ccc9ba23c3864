"""Balancers: golden optima (brute force), CCM-LB bounds and invariants, baselines, errors."""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from oracles.tasks import brute as oracle_brute
from oracles.tasks import work_model

import wpart
from wpart import tasks
from wpart.tasks.datasets import lbaf_path

SB = tasks.synthetic_blocks

# LBAF's synthetic-blocks case: (coefficients, cap, initial, optimum, cluster-preserving
# optimum), verified by the independent oracle below
GOLDEN = {
    "T1": (dict(), None, 4.0, 2.0, 2.5),
    "T2": (dict(), 18.0, 4.0, 2.0, 2.5),
    "T3": (dict(beta=1.0), None, 8.5, 4.0, 6.0),
    "T4": (dict(delta=0.1), None, 4.0, 2.5, 2.5),
    "T5": (dict(delta=0.3), None, 4.0, 3.5, 4.0),
    "T6": (dict(beta=1.0, gamma=0.5, delta=0.1), 27.0, 9.0, 5.4, 6.5),
    "T7": (dict(alpha=0.0, beta=1.0), None, 4.5, 0.0, 0.0),
}


@pytest.mark.parametrize("tid", sorted(GOLDEN))
def test_golden_brute_force(tid):
    co, cap, w0, opt, copt = GOLDEN[tid]
    p = SB()
    assert p.evaluate(memory_cap=cap, **co)["w_max"] == pytest.approx(w0)
    r = tasks.brute_force(p, memory_cap=cap, **co)
    assert r.max_work == pytest.approx(opt)
    rc = tasks.brute_force(p, memory_cap=cap, preserve_clusters=True, **co)
    assert rc.max_work == pytest.approx(copt)
    # the optimal assignment re-evaluates to the optimum with the independent oracle
    capv = None if cap is None else [cap] * 4
    assert work_model(p, r.assignment, cap=capv, **co)["w_max"] == pytest.approx(opt)


def test_golden_other_variants():
    assert tasks.brute_force(SB(variant="bad_rank0")).max_work == 3.0
    assert tasks.brute_force(SB(variant="alpha0"), beta=1.0, preserve_clusters=True).max_work == 0.0
    r = tasks.brute_force(SB(), memory_cap=9.0)  # T8: in the status, not raised
    assert r.status == "infeasible" and not r.success and math.isinf(r.max_load)


def test_paper_toy_assignment_counts():
    p = tasks.paper_toy(fwmp=True)
    assert (p.m, p.n_tasks, p.n_blocks, p.n_edges) == (2, 3, 2, 4)
    r = tasks.brute_force(p, beta=1.0)
    assert r.max_work <= p.evaluate(beta=1.0)["w_max"]


@pytest.mark.parametrize("seed", range(25))
def test_brute_force_matches_oracle(seed):
    rng = np.random.default_rng(seed)
    p = tasks.random_problem(int(rng.integers(1, 4)), int(rng.integers(1, 7)),
                             int(rng.integers(0, 4)), int(rng.integers(0, 8)), seed=seed,
                             memory=bool(seed % 2))
    co = dict(beta=float(rng.integers(0, 3)) * 0.5, gamma=float(rng.integers(0, 2)) * 0.5,
              delta=float(rng.integers(0, 2)) * 0.25)
    cap = np.full(p.m, float(rng.integers(5, 30))) if seed % 3 == 0 else None
    for pres in (False, True):
        want, _ = oracle_brute(p, preserve=pres, cap=cap, **co)
        r = tasks.brute_force(p, memory_cap=cap, preserve_clusters=pres, **co)
        if math.isinf(want):
            assert r.status == "infeasible" and math.isinf(r.max_load) and not r.success
        else:
            assert r.status == "optimal" and r.success and r.gap == 0.0
            assert r.max_load == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("tid", sorted(GOLDEN))
def test_ccm_bounds_on_golden(tid):
    co, cap, w0, opt, copt = GOLDEN[tid]
    p = SB()
    for seed in range(12):
        r = tasks.balance(p, method="ccm", seed=seed, memory_cap=cap, n_iter=8, **co)
        assert copt - 1e-12 <= r.max_work <= w0 + 1e-12
        assert r.max_work >= opt - 1e-12
        assert r.history[0] == pytest.approx(w0)
        assert np.all(np.diff(r.history) <= 1e-12)
        if cap is not None:
            assert np.all(r.memory <= cap)


def test_ccm_reference_values():
    p = SB()
    assert tasks.balance(p, seed=0).max_work == 2.5
    assert tasks.balance(p, seed=0, beta=1.0).max_work == 6.0
    assert tasks.balance(SB(variant="alpha0"), seed=0, beta=1.0).max_work == 0.0
    with pytest.raises(ValueError, match="infeasible start"):
        tasks.balance(p, memory_cap=9.0)


@pytest.mark.parametrize("seed", range(20))
def test_ccm_random_invariants(seed):
    rng = np.random.default_rng(100 + seed)
    I, K = int(rng.integers(2, 4)), int(rng.integers(2, 8))
    p = tasks.random_problem(I, K, int(rng.integers(0, 4)), int(rng.integers(0, 10)), seed=seed,
                             memory=bool(seed % 2))
    co = dict(beta=float(rng.uniform(0, 1)), gamma=float(rng.uniform(0, 0.5)),
              delta=float(rng.uniform(0, 0.5)))
    cap0 = p.evaluate(**co)["memory"].max()
    cap = cap0 * 1.2 if seed % 2 else None
    opt = tasks.brute_force(p, memory_cap=cap, **co).max_work
    for cl, sub, rk in (("block", False, "snapshot"), ("task", False, "snapshot"),
                        ("block", True, "snapshot"), ("block", False, "exact"),
                        ("block+comm", False, "snapshot")):
        r = tasks.balance(p, method="ccm", seed=seed, memory_cap=cap, n_iter=5, n_trials=2,
                          cluster=cl, subclusters=sub, ranking=rk, **co)
        assert r.max_work >= opt - 1e-9
        assert r.max_work <= r.initial_max_work + 1e-12
        assert np.all(np.diff(r.history) <= 1e-12)
        assert r.assignment.shape == (K,) and r.assignment.min() >= 0 and r.assignment.max() < I
        if cap is not None:
            assert np.all(r.memory <= cap + 1e-9)
        capv = None if cap is None else [cap] * I
        assert work_model(p, r.assignment, cap=capv, **co)["w_max"] == pytest.approx(r.max_work)
        r2 = tasks.balance(p, method="ccm", seed=seed, memory_cap=cap, n_iter=5, n_trials=2,
                           cluster=cl, subclusters=sub, ranking=rk, **co)
        assert np.array_equal(r.assignment, r2.assignment)
        assert np.array_equal(r.history, r2.history)


def test_block_clusters_never_split():
    p = tasks.gemma_like(m=6, n_tasks=120, n_blocks=20, seed=3)
    r = tasks.balance(p, seed=0, delta=1e-10, n_iter=6)
    # co-located start + block clusters: each block stays on one rank
    for b in range(p.n_blocks):
        assert np.unique(r.assignment[p.task_block == b]).size == 1
    assert r.max_work < r.initial_max_work


def test_baselines():
    p = SB()
    r = tasks.balance(p, method="none")
    assert np.array_equal(r.assignment, p.initial) and r.max_work == 4.0
    g = tasks.balance(p, method="greedy")
    assert g.max_work >= 2.0 and np.all(np.isin(g.assignment, range(4)))
    g2 = tasks.balance(p, method="greedy", memory_cap=18.0)
    assert np.all(g2.memory <= 18.0)
    t = tasks.balance(p, method="tempered", seed=0)
    assert t.max_work >= 2.0
    b = tasks.balance(p, method="brute_force", preserve_clusters=True)
    assert b.max_work == 2.5
    with pytest.raises(ValueError, match="fits on no rank"):
        tasks.balance(p, method="greedy", memory_cap=5.0)


def test_memory_toy_respects_cap():
    p = tasks.Problem.from_lbdatafile(
        lbaf_path("user-defined-memory-toy-problem/toy_mem"))
    for seed in range(4):
        r = tasks.balance(p, seed=seed, memory_cap=8.0e9, n_iter=10)
        assert np.all(r.memory <= 8.0e9)
        assert 87.5 <= r.max_work < 190.0


def test_initial_option_and_result_api():
    p = SB()
    r = tasks.balance(p, initial=[0, 0, 1, 1, 0, 2, 1, 3, 3])
    assert r.initial_max_work == 2.0 and r.max_work == 2.0
    d = r.to_dict()
    assert d["max_load"] == 2.0 and len(d["assignment"]) == 9 and d["success"] is True
    assert d["status"] == "feasible" and d["m"] == 4
    json.dumps(d)
    assert "TasksResult" in repr(r)
    e = tasks.evaluate(p, beta=1.0)
    assert e.max_load == 8.5 and e.n_off_home == 0


@pytest.mark.parametrize("kw,exc,match", [
    (dict(method="nope"), ValueError, "method"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(n_iter=-1), ValueError, "n_iter"),
    (dict(n_trials=0), ValueError, "n_trials"),
    (dict(fanout=0), ValueError, "fanout"),
    (dict(cluster="x"), ValueError, "cluster"),
    (dict(order="x"), ValueError, "order"),
    (dict(ranking="x"), ValueError, "ranking"),
    (dict(comm_tau=-1.0), ValueError, "comm_tau"),
    (dict(tol=np.nan), ValueError, "tol"),
    (dict(beta=-1.0), ValueError, "beta"),
    (dict(initial=[9] * 9), ValueError, "initial"),
    (dict(foo=1), TypeError, "foo"),
])
def test_bad_balance_arguments(kw, exc, match):
    with pytest.raises(exc, match=match):
        tasks.balance(SB(), **kw)


def test_knowledge_log_rule():
    from wpart import _core

    for P, k, f in [(4, 1, 3), (14, 2, 4), (16, 2, 4), (64, 2, 8), (128, 3, 6), (256, 3, 7)]:
        assert _core.tasks_knowledge(P, 0, 0) == (k, f)


@pytest.mark.parametrize("seed", range(6))
def test_summary_fast_path_equals_edge_walk(seed):
    """Clusters without edges are evaluated from their summaries; zero-byte self-edges force
    the exact edge walk without changing W: both runs must be identical."""
    p = tasks.random_problem(5, 60, 8, 0, seed=seed, memory=True, zeros=False)
    K = p.n_tasks
    q = p.with_(edges=np.stack([np.arange(K), np.arange(K)], 1), edge_bytes=np.zeros(K))
    cap = p.evaluate()["memory"].max() * 1.1
    for cl in ("block", "task"):
        kw = dict(seed=seed, delta=0.3, memory_cap=cap, cluster=cl, n_iter=5, ranking="exact")
        a = tasks.balance(p, **kw)
        b = tasks.balance(q, **kw)
        assert np.array_equal(a.assignment, b.assignment)
        assert np.array_equal(a.history, b.history)


def test_subclusters_reach_lower_wmax():
    p = SB()
    assert tasks.balance(p, seed=0, subclusters=True).max_work == 2.0  # the optimum
    for seed in range(6):
        r = tasks.balance(p, seed=seed, subclusters=True, beta=1.0)
        assert 4.0 - 1e-12 <= r.max_work <= 6.0


def test_subclusters_on_lbaf_toys():
    D = lbaf_path("")
    q = tasks.Problem.from_lbdatafile(D + "user-defined-memory-toy-problem/toy_mem")
    r = tasks.balance(q, seed=0, memory_cap=8e9, subclusters=True, n_iter=10)
    assert r.max_work == pytest.approx(90.0) and np.all(r.memory <= 8e9)
    q = tasks.Problem.from_lbdatafile(D + "challenging_toy_fewer_tasks/toy")
    assert tasks.balance(q, seed=0, subclusters=True).max_work <= 1024.0  # LBAF's result


def test_progress_callback_and_its_stop():
    calls = []
    tasks.balance(tasks.gemma_like(seed=0), seed=0, progress=lambda d, t: calls.append((d, t)))
    assert calls and all(t > 0 for _, t in calls)
    p = tasks.gemma_like(m=8, n_tasks=400, n_blocks=40, seed=0)
    for backend in ("simulated", "ranks", "event"):  # returning False stops: CancelledError
        with pytest.raises(wpart.CancelledError, match="progress"):
            tasks.balance(p, seed=0, n_iter=3, backend=backend, progress=lambda d, t: False)


@pytest.mark.parametrize("backend", ["simulated", "ranks", "event"])
def test_time_limit_is_a_status_on_every_backend(backend):
    """Reaching `time_limit` returns a result with status "time_limit" (never an exception)
    holding a valid assignment no worse than the start."""
    p = tasks.gemma_like(m=64, n_tasks=8955, n_blocks=896, seed=0) if backend == "simulated" \
        else tasks.gemma_like(m=12, n_tasks=900, n_blocks=90, seed=0)
    r = tasks.balance(p, method="ccm", seed=0, n_iter=50, backend=backend, time_limit=0.01)
    assert r.status == "time_limit" and r.success and "time limit" in r.message
    assert r.assignment.shape == (p.n_tasks,)
    assert r.max_load <= r.initial_max_load
    assert r.max_load == pytest.approx(p.evaluate(assignment=r.assignment)["w_max"])
    assert np.all(np.diff(r.history) <= 1e-12)
    # without a limit (or an infinite one) the run completes
    q = tasks.synthetic_blocks()
    assert tasks.balance(q, seed=0, backend=backend, time_limit=math.inf).status == "feasible"


@pytest.mark.parametrize("backend", ["ranks", "event"])
def test_time_limit_keeps_the_progress_made(backend, monkeypatch):
    """The deadline strikes mid-run: the turns (ranks) or exchanges (event) completed so far
    are kept, so the result is better than the start and a valid assignment."""
    import time as time_mod

    p = tasks.gemma_like(m=8, n_tasks=400, n_blocks=40, seed=1)
    full = tasks.balance(p, seed=0, n_iter=4, backend=backend)
    assert full.status == "feasible" and full.max_load < full.initial_max_load
    clock = {"n": 0}
    real = time_mod.perf_counter
    jump = {"ranks": 4, "event": 350}[backend]  # readings: mid first iteration

    def fake():  # a clock that jumps far ahead after `jump` readings (deterministic)
        clock["n"] += 1
        return real() + (1e6 if clock["n"] > jump else 0.0)

    monkeypatch.setattr(time_mod, "perf_counter", fake)
    r = tasks.balance(p, seed=0, n_iter=4, backend=backend, time_limit=1000.0)
    monkeypatch.setattr(time_mod, "perf_counter", real)
    assert r.status == "time_limit" and r.success
    assert r.max_load == pytest.approx(p.evaluate(assignment=r.assignment)["w_max"])
    assert full.max_load <= r.max_load < r.initial_max_load  # the exchanges made are kept
    assert len(r.history) == 2  # stopped within the first iteration


def test_simulated_time_limit_keeps_the_progress_made():
    """The serial C engine stops at its time limit with the assignment after its last completed
    iteration: the same as a run of that many iterations, with the history up to there."""
    import time as time_mod

    p = tasks.gemma_like(m=64, n_tasks=8955, n_blocks=896, seed=0)
    # a tiny limit: stopped before the first iteration completes, the initial assignment
    r = tasks.balance(p, seed=0, n_iter=10_000, time_limit=1e-9)
    assert r.status == "time_limit" and r.success and "0 of 10000 iterations" in r.message
    assert np.array_equal(r.assignment, p.initial) and len(r.history) == 1
    assert r.stats["iterations_done"] == 0 and r.stats["trials_done"] == 0

    def slow(done, total):  # past two iterations, outlast the time limit once
        if done >= 2 * p.m and not slept:
            slept.append(done)
            time_mod.sleep(0.4)

    for n_trials in (1, 3):
        slept = []
        r = tasks.balance(p, seed=0, n_iter=10_000, n_trials=n_trials, explore=True,
                          time_limit=0.3, progress=slow)
        assert r.status == "time_limit" and r.success and "time limit" in r.message
        assert r.assignment.shape == (p.n_tasks,) and r.assignment.dtype == np.int32
        assert r.assignment.min() >= 0 and r.assignment.max() < p.m
        assert r.max_load == p.evaluate(assignment=r.assignment)["w_max"]
        assert r.max_load <= r.initial_max_load
        assert r.stats["trials_done"] == 0  # 10,000 iterations never finish
        done = r.stats["iterations_done"]
        assert len(r.stats["exchanges_per_iteration"]) == done
        # the same run, `done` iterations long; then the exchanges made inside the
        # interrupted iteration, kept when they lowered W_max (one more history entry)
        ref = tasks.balance(p, seed=0, n_iter=done, greedy_start=False, economy=False)
        assert np.array_equal(r.history[:done + 1], ref.history)
        if len(r.history) == done + 2:
            assert r.max_load == r.history[-1] < ref.max_load
        else:
            assert len(r.history) == done + 1
            assert np.array_equal(r.assignment, ref.assignment) and r.max_load == ref.max_load
        if slept:  # the callback ran past two iterations (not under a very heavy load)
            assert done >= 2 and r.max_load < r.initial_max_load
    # stopped in a later trial: never worse than the finished trial 0
    slept = []
    first = tasks.balance(p, seed=0, n_iter=2, economy=False)  # the engine's trial 0

    def later(done, total):
        if done >= 2.5 * p.m and not slept:
            slept.append(done)
            time_mod.sleep(0.4)

    r = tasks.balance(p, seed=0, n_iter=2, n_trials=8, explore=True, time_limit=0.3,
                      progress=later)
    if r.status == "time_limit" and slept:  # trial 0 finished before the callback slept
        assert r.stats["trials_done"] >= 1 and r.max_load <= first.max_load
        assert r.max_load == p.evaluate(assignment=r.assignment)["w_max"]
        if r.stats["best_trial"] < r.stats["trials_done"]:
            assert len(r.history) == 3


def test_simulated_stop_request_still_raises_under_a_time_limit():
    p = tasks.gemma_like(m=8, n_tasks=400, n_blocks=40, seed=0)
    with pytest.raises(wpart.CancelledError, match="progress"):
        tasks.balance(p, seed=0, n_iter=3, time_limit=1e6, progress=lambda d, t: False)


def test_brute_force_time_limit_keeps_the_best_enumerated():
    p = tasks.random_problem(4, 11, 0, 0, seed=3, zeros=False)  # 4^11 = 4M assignments
    r = tasks.brute_force(p, time_limit=0.05)
    assert r.status == "time_limit"
    if r.success:  # the best assignment enumerated before the limit
        assert r.max_load == pytest.approx(p.evaluate(assignment=r.assignment)["w_max"])
    b = tasks.balance(p, method="brute_force", time_limit=0.05)
    assert b.status == "time_limit"


def test_brute_force_beyond_max_states_names_it_once():
    p = tasks.random_problem(8, 300, 30, 600, seed=3)
    for call in (lambda: tasks.brute_force(p), lambda: tasks.balance(p, method="brute_force")):
        with pytest.raises(wpart.WpartValueError) as info:
            call()
        msg = str(info.value)
        assert msg.startswith("`max_states`: ") and msg.count("brute force") == 1, msg
        assert "8^300" in msg


def test_node_memory_rule():
    # PEERS 4.1: 2 ranks per node, node memory 36 -> per-rank cap 18, optimum 2.0
    p = SB().with_(rank_node=[0, 0, 1, 1], node_mem=[36.0, 36.0])
    np.testing.assert_array_equal(p.rank_mem_cap, [18.0] * 4)
    assert tasks.brute_force(p).max_work == 2.0
    r = tasks.balance(p, seed=0)
    assert np.all(r.memory <= 18.0)
    with pytest.raises(ValueError, match="together"):
        SB().with_(node_mem=[36.0])
    with pytest.raises(ValueError, match="rank_node"):
        SB().with_(rank_node=[0, 0, 1, 2], node_mem=[36.0, 36.0])


def test_allow_infeasible_start_repairs():
    p = SB()
    start = [0] * 9  # 5 blocks of 9 bytes on rank 0: 45 > 18
    with pytest.raises(ValueError, match="infeasible start"):
        tasks.balance(p, initial=start, memory_cap=18.0)
    for seed in range(6):
        r = tasks.balance(p, initial=start, memory_cap=18.0, allow_infeasible_start=True,
                          seed=seed, n_iter=6)
        assert math.isinf(r.initial_max_work)
        assert np.all(r.memory <= 18.0) and r.max_work >= 2.0
        assert r.max_work < math.inf
    # impossible caps stay infeasible but the call returns
    r = tasks.balance(p, initial=start, memory_cap=9.0, allow_infeasible_start=True)
    assert math.isinf(r.max_work)


def test_block_comm_clusters_keep_heavy_edges_together():
    # two blocks on rank 0 joined by a heavy edge, a light edge to a third block
    p = tasks.Problem(task_load=[1.0, 1.0, 1.0, 1.0], m=2, task_block=[0, 0, 1, 2],
                      block_size=[0.0, 0.0, 0.0], block_home=[0, 0, 0],
                      edges=[(1, 2), (2, 3)], edge_bytes=[10.0, 0.01], initial=[0, 0, 0, 0])
    for seed in range(4):
        r = tasks.balance(p, seed=seed, beta=1.0, cluster="block+comm", comm_tau=1.0)
        a = r.assignment
        assert a[0] == a[1] == a[2]  # block 0 and task 2 stay together
        assert r.max_work <= r.initial_max_work
    # with comm_tau large nothing is joined: same as block clusters
    a = tasks.balance(SB(), seed=0, beta=1.0, cluster="block+comm", comm_tau=1e9)
    b = tasks.balance(SB(), seed=0, beta=1.0)
    assert np.array_equal(a.assignment, b.assignment)


def test_infeasible_start_names_memory_cap_and_the_way_round():
    """An initial placement above the memory cap: the error names `memory_cap` and
    ``allow_infeasible_start=True``, with which the same call finds a placement within the
    cap (greedy does too: the instance itself is feasible)."""
    p = tasks.gemma_like(m=4, n_tasks=40, n_blocks=8, seed=0)
    with pytest.raises(wpart.WpartValueError,
                       match=r"`memory_cap`: infeasible start.*allow_infeasible_start=True"):
        tasks.balance(p, memory_cap=3e7)
    r = tasks.balance(p, memory_cap=3e7, allow_infeasible_start=True)
    assert r.success and np.isfinite(r.max_load) and np.isfinite(r.work).all()
    assert np.isfinite(tasks.balance(p, memory_cap=3e7, method="greedy").max_load)
