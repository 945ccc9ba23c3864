"""Event-driven lock protocol of CCM-LB (spec 003 sections 3.6, 8.1 and 6 item 14)."""

import numpy as np
import pytest

from wpart import _core, tasks
from wpart.tasks._protocol import run_protocol


def _replay(p, co, cap, run):
    """Replay the exchange log serially with the C model: (pred, works, final)."""
    log = run.log
    give = [np.asarray(e.give, np.int32) for e in log]
    take = [np.asarray(e.take, np.int32) for e in log]
    gp = np.concatenate([[0], np.cumsum([g.size for g in give])]).astype(np.int64)
    tp = np.concatenate([[0], np.cumsum([t.size for t in take])]).astype(np.int64)
    cat = lambda xs: np.concatenate(xs).astype(np.int32) if xs else np.zeros(0, np.int32)
    c = tasks.Coefficients(**co)
    return _core.tasks_exchanges(p._dict(p.caps(cap)), c.as_tuple(), run.initial,
                                 np.array([e.r for e in log], np.int32),
                                 np.array([e.p for e in log], np.int32), gp, cat(give), tp,
                                 cat(take))


def _instance(seed):
    rng = np.random.default_rng(7000 + seed)
    I, K = int(rng.integers(2, 7)), int(rng.integers(1, 22))
    p = tasks.random_problem(I, K, int(rng.integers(0, 6)), int(rng.integers(0, 20)), seed=seed,
                             memory=bool(seed % 2), zeros=bool(seed % 3))
    co = {"beta": float(rng.uniform(0, 1)), "gamma": float(rng.uniform(0, 0.5)),
              "delta": float(rng.uniform(0, 0.5))}
    cap = None
    if seed % 2:
        cap = float(p.evaluate(**co)["memory"].max()) * float(rng.uniform(1.0, 1.3))
    return p, co, cap


def _check_run(p, co, cap, run):
    I, K = p.m, p.n_tasks
    a = run.assignment
    assert a.shape == (K,) and (K == 0 or (a.min() >= 0 and a.max() < I))
    pred, works, final = _replay(p, co, cap, run)
    assert np.array_equal(final, a)  # serialisable: the serial replay reaches the final state
    w0 = float(p.evaluate(assignment=run.initial, memory_cap=cap, **co)["work"].max())
    prev = p.evaluate(assignment=run.initial, memory_cap=cap, **co)["work"]
    for i, e in enumerate(run.log):
        before = max(prev[e.r], prev[e.p])
        assert max(pred[i]) < before  # every exchange lowers the pair's max W
        assert np.isfinite(works[i]).all()  # memory caps never exceeded
        others = np.ones(I, bool)
        others[[e.r, e.p]] = False
        assert np.array_equal(works[i][others], prev[others])
        assert works[i].max() <= prev.max() + 1e-12  # W_max never increases
        prev = works[i]
    hist = np.asarray(run.history)
    assert hist[0] == pytest.approx(w0) and np.all(np.diff(hist) <= 1e-12)
    if cap is not None:
        assert np.all(p.evaluate(assignment=a, memory_cap=cap, **co)["memory"] <= cap + 1e-9)


@pytest.mark.parametrize("seed", range(150))
def test_protocol_random_schedules(seed):
    p, co, cap = _instance(seed)
    kw = dict(memory_cap=cap, n_iter=3, cluster="task" if seed % 4 == 3 else "block",
              max_delay=[1.0, 0.01, 5.0][seed % 3], max_events=200_000, check=True,
              ranking="exact" if seed % 5 == 4 else "snapshot", **co)
    run = run_protocol(p, seed=seed, **kw)
    _check_run(p, co, cap, run)
    # bounded: a handful of messages per (rank, peer) pair and iteration
    assert run.n_events <= 3 * (8 * p.m ** 2 + 2 * p.m)
    if kw["cluster"] == "block" and p.task_block is not None:  # spec 6 item 10
        tb = np.asarray(p.task_block)
        reps = lambda a: len({(int(r), int(b)) for r, b in zip(a, tb) if b >= 0})
        assert reps(run.assignment) <= reps(run.initial)
    run2 = run_protocol(p, seed=seed, **kw)  # deterministic per seed
    assert np.array_equal(run.assignment, run2.assignment) and run.log == run2.log


def _contention_problem(I):
    load = np.array([4.0, 3.0, 2.0, 2.5, 1.0, 1.5, 0.5, 3.5] * I)[: 3 * I]
    return tasks.Problem(task_load=load, m=I,
                         initial=np.arange(3 * I, dtype=np.int32) % I)


@pytest.mark.parametrize("seed", range(15))
def test_forced_contention_same_peer(seed):
    I = 6
    p = _contention_problem(I)
    p = p.with_(initial=np.where(np.arange(3 * I) < 9, 0, np.arange(3 * I) % I).astype(np.int32))
    wl = [[] if r == 0 else [0] for r in range(I)]
    run = run_protocol(p, seed=seed, n_iter=2, work_lists=wl, max_delay=0.5, check=True)
    _check_run(p, {}, None, run)
    assert run.n_messages["LOCK_REQ"] >= I - 1
    assert run.n_messages["LOCK_GRANT"] == run.n_messages["RELEASE"]
    assert len(run.log) >= 1


def test_forced_lock_cycle_uses_release_rule():
    total_rule = 0
    I = 4
    p = _contention_problem(I)
    wl = [[], [2], [3], [1]]  # r1 -> r2 -> r3 -> r1
    for seed in range(40):
        run = run_protocol(p, seed=seed, n_iter=1, work_lists=wl, max_delay=0.01, check=True)
        _check_run(p, {}, None, run)
        total_rule += run.n_rule_releases
        assert run.n_messages["LOCK_GRANT"] == run.n_messages["RELEASE"]
    assert total_rule > 0


def test_balance_event_backend():
    p = tasks.synthetic_blocks()
    r = tasks.balance(p, method="ccm", seed=3, backend="event")
    s = tasks.balance(p, method="ccm", seed=3)
    assert r.stats["backend"] == "event" and r.max_work <= r.initial_max_work
    assert r.max_work >= tasks.brute_force(p).max_work - 1e-12
    assert np.isfinite(s.max_work)
    r2 = tasks.balance(p, method="ccm", seed=3, backend="event")
    assert np.array_equal(r.assignment, r2.assignment)
    with pytest.raises(ValueError, match="backend"):
        tasks.balance(p, method="ccm", backend="mpi")
    with pytest.raises(ValueError, match="backend='event'"):
        tasks.balance(p, method="ccm", backend="event", subclusters=True)
    with pytest.raises(ValueError, match="ranking"):
        run_protocol(p, ranking="stale")
    with pytest.raises(ValueError, match="infeasible start"):
        run_protocol(p, memory_cap=9.0)


def test_random_schedules_exercise_the_protocol():
    rule = exch = 0
    for seed in range(30):
        p = tasks.random_problem(6, 24, 4, 10, seed=seed, zeros=False)
        run = run_protocol(p, seed=seed, beta=0.2, n_iter=3, max_delay=0.05, check=True)
        _check_run(p, {"beta": 0.2}, None, run)
        rule += run.n_rule_releases
        exch += len(run.log)
    assert rule > 0 and exch > 30


@pytest.mark.parametrize("seed", range(40))
def test_closed_form_estimate_equals_edge_walk(seed):
    """Spec 1.8: the closed form from per-rank cluster volumes equals the exact edge walk when
    the bytes between the two exchanged sets are supplied (or there are none)."""
    rng = np.random.default_rng(9000 + seed)
    I, K = int(rng.integers(2, 6)), int(rng.integers(2, 25))
    p = tasks.random_problem(I, K, int(rng.integers(0, 5)), int(rng.integers(0, 40)), seed=seed,
                             memory=True, zeros=bool(seed % 2))
    co = tasks.Coefficients(alpha=1.0, beta=float(rng.uniform(0, 1)),
                            gamma=float(rng.uniform(0, 1)), delta=float(rng.uniform(0, 1)))
    cap = float(p.evaluate()["memory"].max()) * 1.5 if seed % 3 else None
    d = p._dict(p.caps(cap))
    a = rng.integers(0, I, size=K).astype(np.int32)
    for _ in range(10):
        r1, r2 = (int(x) for x in rng.choice(I, 2, replace=False))
        t1, t2 = np.flatnonzero(a == r1), np.flatnonzero(a == r2)
        A = rng.choice(t1, int(rng.integers(0, t1.size + 1)), replace=False).astype(np.int32)
        B = rng.choice(t2, int(rng.integers(0, t2.size + 1)), replace=False).astype(np.int32)
        est, exact = _core.tasks_estimate(d, co.as_tuple(), a, r1, A, r2, B, True)
        assert est == pytest.approx(exact, rel=1e-9, abs=1e-9)
        E = p.edges if p.edges is not None else np.zeros((0, 2), np.int32)
        between = ((np.isin(E[:, 0], A) & np.isin(E[:, 1], B))
                   | (np.isin(E[:, 0], B) & np.isin(E[:, 1], A)))
        est0, _ = _core.tasks_estimate(d, co.as_tuple(), a, r1, A, r2, B, False)
        if not between.any() or p.edge_bytes[between].sum() == 0:
            assert est0 == pytest.approx(exact, rel=1e-9, abs=1e-9)
    with pytest.raises(ValueError,
                       match=r"^exchange: task \d+ is out of range, not on rank 0 or listed twice \(invalid argument\)$"):
        _core.tasks_estimate(d, co.as_tuple(), a, 0, np.array([K], np.int32), 1,
                             np.zeros(0, np.int32), True)


def test_snapshot_ranking_with_edges_keeps_invariants():
    for seed in range(8):
        p = tasks.random_problem(5, 30, 4, 40, seed=seed, zeros=False)
        for rk in ("snapshot", "exact"):
            r = tasks.balance(p, seed=seed, beta=0.5, gamma=0.1, n_iter=4, ranking=rk)
            assert r.max_work <= r.initial_max_work and np.all(np.diff(r.history) <= 1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_all_to_all_contention_terminates(seed):
    """Every rank targets every other rank in a random order: many lock cycles, no deadlock."""
    rng = np.random.default_rng(seed)
    I = int(rng.integers(3, 11))
    p = tasks.random_problem(I, 4 * I, 3, 3 * I, seed=seed, zeros=False)
    wl = [[int(q) for q in rng.permutation(I) if q != r] for r in range(I)]
    run = run_protocol(p, seed=seed, beta=0.3, n_iter=2, work_lists=wl,
                       max_delay=[0.01, 1.0, 10.0][seed % 3], check=True, max_events=100_000)
    _check_run(p, {"beta": 0.3}, None, run)
    assert run.n_messages["LOCK_GRANT"] == run.n_messages["RELEASE"]
    # each work-list entry is requested at most 1 + (times released by the rule) times
    assert run.n_messages["LOCK_REQ"] == 2 * I * (I - 1) + run.n_rule_releases


def test_step_is_a_function_of_state_and_message():
    import copy

    from wpart.tasks._protocol import RankState, _Model, step

    p = _contention_problem(3)
    m = _Model(p, tasks.Coefficients(), None, "block", 1e-12)
    s = RankState(1, {1, 4, 7}, locked_by=None)
    for msg, src in ((("START", 0, [(1.0, 2)]), 1), (("LOCK_REQ", 0.5), 0),
                     (("LOCK_GRANT", frozenset({2, 5, 8})), 2)):
        s2 = copy.deepcopy(s)
        out1, out2 = step(s, src, msg, m, []), step(s2, src, msg, m, [])
        assert out1 == out2 and s == s2
    # locked by 0 <= 2 when 2's grant arrived: released and re-queued (the cycle rule)
    assert s.rule_releases == 1 and s.work_list == [(1.0, 2)] and s.locked_by == 0


@pytest.mark.parametrize("seed", range(30))
def test_event_backend_pair_step_is_the_c_one_and_agrees_with_the_oracle(seed):
    """The event backend's exact FindBestCCM is the C pair step; the former Python
    enumeration (tests/oracles) finds the same gain (ties may pick another exchange of the
    same gain)."""
    from oracles.tasks import find_best_ccm

    from wpart.tasks._protocol import _Model

    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 6))
    p = tasks.random_problem(m, int(rng.integers(2, 14)), int(rng.integers(0, 5)),
                             int(rng.integers(0, 10)), seed, memory=bool(seed % 2),
                             zeros=bool(seed % 3))
    kw = dict(beta=float(rng.choice([0.0, 0.5])), gamma=float(rng.choice([0.0, 0.2])),
              delta=float(rng.choice([0.0, 0.1])))
    cap = None
    if seed % 2:
        cap = float(tasks.evaluate(p).memory.max()) * 1.5 + 1.0
    for cluster in ("block", "task"):
        model = _Model(p, tasks.Coefficients(**kw), p.caps(cap), cluster, 1e-12)
        a = np.asarray(p.initial)
        r, q = 0, 1
        tr = set(np.flatnonzero(a == r).tolist())
        tq = set(np.flatnonzero(a == q).tolist())
        wr, wq = model.pair_work(r, tr, q, tq)
        if not np.isfinite(max(wr, wq)):
            continue
        g_c, give, take = model.find_best(r, tr, q, tq)
        g_o, _, _ = find_best_ccm(model, r, tr, q, tq)
        assert np.isfinite(g_c) == np.isfinite(g_o)
        if np.isfinite(g_o):
            assert g_c == pytest.approx(g_o, rel=1e-9, abs=1e-12)
            w1, w2 = model.pair_work(r, (tr - set(give)) | set(take), q,
                                     (tq - set(take)) | set(give))
            assert max(wr, wq) - max(w1, w2) == pytest.approx(g_c, rel=1e-9, abs=1e-12)
