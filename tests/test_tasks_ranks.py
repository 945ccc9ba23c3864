"""The rank engine of distributed CCM-LB (backend="ranks", the steps of wpart.tasks.mpi).

Oracles: the global work model (a pair's view must give the two ranks' exact W), the serial C
engine (same RNG streams; with edge-free problems it almost always lands on the same
assignment), and CCM-LB's guarantees: W_max never increases, and under complete knowledge a
converged run leaves no pair of ranks with an exchange that pays.
"""

import numpy as np
import pytest

from wpart import _core
from wpart.tasks import Coefficients, balance, generators as G
from wpart.tasks._rankdata import RankData, pair_problem, split_problem
from wpart.tasks import _ranks as _ranks_mod


def _random(seed: int, edges: bool = True):
    rng = np.random.default_rng(seed)
    P = int(rng.integers(2, 7))
    K = int(rng.integers(1, 45))
    return G.random_problem(P, K, int(rng.integers(0, 7)),
                            int(rng.integers(0, 30)) if edges else 0, seed=seed,
                            memory=bool(seed % 3 == 0), zeros=bool(seed % 2),
                            rank_alpha=bool(seed % 7 == 6)), rng


@pytest.mark.parametrize("seed", range(60))
def test_pair_view_gives_exact_work(seed):
    prob, rng = _random(seed)
    co = Coefficients(alpha=1.0, beta=float(rng.choice([0, 1.0])),
                      gamma=float(rng.choice([0, 0.5])),
                      delta=float(rng.choice([0, 0.25]))).as_tuple()
    a = np.asarray(prob.initial)
    _, rep = _core.tasks_evaluate(prob._dict(), co, a)
    parts = split_problem(prob, a, None)
    for r in range(prob.m):
        q = (r + 1 + seed) % prob.m
        if q == r:
            continue
        for other in (parts[q], parts[q].summary(True)):
            d, asg, gids = pair_problem(parts[r], other, 1.0)
            _, rep2 = _core.tasks_evaluate(d, co, asg)
            assert rep2["work"][0] == pytest.approx(rep["work"][r], rel=1e-12, abs=1e-12)
            assert rep2["work"][1] == pytest.approx(rep["work"][q], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_extract_insert_round_trip(seed):
    prob, rng = _random(seed)
    parts = split_problem(prob, np.asarray(prob.initial), None)
    r = int(np.argmax([p.n_tasks for p in parts]))
    a, b = parts[r].copy(), parts[(r + 1) % prob.m].copy()
    move = rng.choice(a.gid, size=max(1, a.n_tasks // 2), replace=False) if a.n_tasks else []
    recs = a.extract(move)
    b.insert(recs)
    assert set(b.gid.tolist()) >= set(np.asarray(move).tolist())
    assert not set(a.gid.tolist()) & set(np.asarray(move).tolist())
    # every rank holds exactly the edges incident to its tasks
    for x in (a, b):
        inc = np.isin(x.esrc, x.gid) | np.isin(x.edst, x.gid)
        assert inc.all()
        E = prob.edges if prob.edges is not None else np.zeros((0, 2), int)
        want = np.flatnonzero(np.isin(E[:, 0], x.gid) | np.isin(E[:, 1], x.gid))
        np.testing.assert_array_equal(np.sort(x.eid), want)
    with pytest.raises(RuntimeError, match="does not hold"):
        a.extract([10**9])


@pytest.mark.parametrize("seed", range(40))
def test_ranks_engine_invariants(seed):
    prob, rng = _random(seed)
    kw = dict(beta=float(rng.choice([0, 1.0])), delta=float(rng.choice([0, 0.2])), seed=seed,
              n_iter=3, cluster=["block", "task", "block+comm"][seed % 3],
              subclusters=[False, "singles", "fill"][seed % 3 if seed % 4 else 0])
    res = balance(prob, backend="ranks", **kw)
    assert np.all(np.diff(res.history) <= 1e-12)
    assert res.max_work <= res.initial_max_work
    assert res.assignment.shape == (prob.n_tasks,)
    ev = prob.evaluate(assignment=res.assignment, beta=kw["beta"], delta=kw["delta"])
    assert ev["w_max"] == pytest.approx(res.max_work, rel=1e-12, abs=1e-12)
    again = balance(prob, backend="ranks", **kw)
    np.testing.assert_array_equal(again.assignment, res.assignment)  # fixed seed, same answer


@pytest.mark.parametrize("protocol", ["rounds", "turns"])
@pytest.mark.parametrize("seed", range(25))
def test_converged_run_leaves_no_paying_pair(seed, protocol, monkeypatch):
    """Complete knowledge and enough iterations: no exchange between any two ranks pays.

    The rounds protocol proposes from per-cluster summaries whose communication is
    aggregated (an estimate), so its guarantee is checked without communication costs, and
    without its final pass (single tasks move there: another neighbourhood, which may open
    a cluster exchange again); the final pass only lowers W_max."""
    prob, rng = _random(seed)
    P = prob.m
    beta = float(rng.choice([0, 1.0])) if protocol == "turns" else 0.0
    kw = dict(beta=beta, gamma=0.0, delta=0.0, seed=seed)
    opts = dict(backend="ranks", fanout=P - 1, n_rounds=1, n_iter=40, protocol=protocol)
    if protocol == "rounds":
        with_final = balance(prob, **opts, **kw)
        monkeypatch.setattr(_ranks_mod, "final_pass", lambda prm: False)
    res = balance(prob, **opts, **kw)
    if protocol == "rounds":
        assert with_final.max_work <= res.max_work * (1 + 1e-12) + 1e-12
    # CCM-LB terminates: an exchange lowers the larger W of its two ranks and changes no other
    # rank, so the W vector sorted in decreasing order falls lexicographically and no
    # assignment repeats. On these instances (<= 6 ranks, <= 44 tasks) the last exchange comes
    # by iteration 5 (measured over 200 seeds): 40 iterations without convergence is a bug.
    exch = res.stats["exchanges_per_iteration"]
    assert exch[-1] == 0, f"still exchanging after 40 iterations: {exch}"
    assert np.all(np.diff(res.history) <= 1e-12)
    co = Coefficients(alpha=1.0, beta=kw["beta"]).as_tuple()
    parts = split_problem(prob, res.assignment, None)
    for r in range(P):
        for q in range(P):
            if q != r:
                d, asg, _ = pair_problem(parts[r], parts[q], 1.0)
                found = _core.tasks_pair_best(d, co, asg, 0, 1, 0, 0, 0, 0, 1e-12, 0.0)[0]
                assert not found, (r, q)


def test_ranks_engine_agrees_with_serial_engine_mostly():
    """Same RNG streams and FindBestCCM: on edge-free problems the serial C engine and the rank
    engine differ only through ties broken in another order."""
    same = 0
    for seed in range(40):
        prob, _ = _random(seed, edges=False)
        a = balance(prob, seed=seed, n_iter=3, delta=0.1, greedy_start=False)
        b = balance(prob, backend="ranks", seed=seed, n_iter=3, delta=0.1, protocol="turns")
        same += np.array_equal(a.assignment, b.assignment)
        assert b.max_work <= b.initial_max_work
    assert same >= 32


def test_gemma_like_quality_matches_serial_engine():
    prob = G.gemma_like(m=6, n_tasks=400, n_blocks=40)
    a = balance(prob, delta=1e-9)
    b = balance(prob, backend="ranks", delta=1e-9)
    assert b.max_work <= a.max_work * 1.02
    m = b.stats["messages"]
    # one all-gather per rank per round, and the last round of every stage (no proposal);
    # the final pass is a stage of its own, counted in the last iteration
    rounds = sum(d["rounds"] for d in b.stats["schedule"]["rounds"])
    assert m["ALLGATHER"] == prob.m * (rounds + 4 + 1)
    assert "POINT" not in m and "PROPOSE" not in m
    assert m["GIVE"] == m["GIVE_BACK"] == b.stats["n_exchanges"]
    assert m["RELEASE"] == m["LOCK_GRANT"]  # a locked pair ends with RELEASE
    t = balance(prob, backend="ranks", delta=1e-9, protocol="turns")
    assert t.stats["messages"]["LOCK_REQ"] == t.stats["messages"]["LOCK_GRANT"]
    assert t.stats["messages"]["GIVE"] == t.stats["n_exchanges"]
    assert b.max_work <= t.max_work * 1.02


def test_ranks_backend_rejects_what_it_cannot_run():
    prob = G.synthetic_blocks()
    with pytest.raises(ValueError, match="backend='ranks'"):
        balance(prob, backend="ranks", ranking="exact")
    with pytest.raises(ValueError, match="backend='ranks'"):
        balance(prob, backend="ranks", explore=True)
    with pytest.raises(ValueError, match="backend='ranks'"):
        balance(prob, method="tempered", backend="ranks")
    with pytest.raises(ValueError, match="backend"):
        balance(prob, backend="mpi")


def test_rank_data_defaults_are_empty():
    d = RankData(3)
    assert d.n_tasks == 0 and d.summary(True).n_tasks == 0
    prm_d, asg, gids = pair_problem(d, None, 1.0)
    assert prm_d["n_ranks"] == 3 and asg.size == 0 and gids.size == 0


def test_schedule_model():
    from wpart.tasks._ranks import _schedule

    f = frozenset
    # two turns on disjoint ranks overlap; a third touching both waits for both
    turns = [(0, f({0, 1}), f({1}), 1.0, 2.0, False), (2, f({2, 3}), f({3}), 1.0, 3.0, False),
             (1, f({1, 2}), f({0, 2}), 1.0, 1.0, True)]
    serial, crit = _schedule(turns, 4)
    assert serial == 9.0
    # turn 3 re-ranks after its rank is free (t = 3): announce 4, its peers free at 4: ends 5
    assert crit == 5.0
    res = balance(G.gemma_like(m=8, n_tasks=400, n_blocks=32), backend="ranks")
    s = res.stats["schedule"]
    assert len(s["serial_s"]) == len(s["critical_path_s"]) == 4
    # a rank whose tasks changed before its turn ranks twice (ahead, then again): the critical
    # path is at most the serial time with every ranking counted twice
    assert all(0 < c <= 2 * x + 1e-12 for x, c in zip(s["serial_s"], s["critical_path_s"]))


@pytest.mark.parametrize("protocol", ["rounds", "turns"])
@pytest.mark.parametrize("seed", range(12))
def test_pinned_tasks_never_move(seed, protocol):
    """Tasks with ``migratable`` False stay on their starting rank in the rank engine."""
    prob, rng = _random(seed)
    G2 = G.gemma_like(m=4, n_tasks=120, n_blocks=12, seed=seed)
    for p in (prob, G2):
        mig = rng.random(p.n_tasks) < 0.6
        p = p.with_(migratable=mig)
        res = balance(p, backend="ranks", seed=seed, n_iter=3, protocol=protocol,
                      subclusters=[False, "singles"][seed % 2])
        a0 = np.asarray(p.initial)
        assert (res.assignment[~mig] == a0[~mig]).all()
        assert res.max_work <= res.initial_max_work
    free = balance(G2, backend="ranks", seed=seed, n_iter=3, protocol=protocol)
    assert (free.assignment != np.asarray(G2.initial)).any()  # unpinned, tasks do move


def _greedy_reference(rows, pos):
    """The round's matching spelled out: drop the stale proposals, then repeatedly take the
    proposal of largest key whose two ends are both free."""
    W, ver = rows[:, 0], rows[:, 1]
    edges, refresh = [], []
    for r in range(rows.shape[0]):
        for i in range(int(rows[r, 2])):
            q, dexc, gain, vu = rows[r, 3 + 4 * i:7 + 4 * i]
            q = int(q)
            if W[r] <= W[q] and vu != ver[q]:
                refresh.append((q, r))
            else:
                edges.append(((dexc, gain, -pos[r], -pos[q]), r, q))
    partner, proposer = {}, set()
    while True:
        free = [e for e in edges if e[1] not in partner and e[2] not in partner]
        if not free:
            break
        _, r, q = max(free)
        partner[r], partner[q] = q, r
        proposer.add(r)
    return partner, proposer, sorted(refresh)


@pytest.mark.parametrize("seed", range(40))
def test_rounds_matching_is_the_greedy_matching(seed):
    """plan_round (the matching every rank computes from the round's all-gather) against the
    greedy matching spelled out, with ties in the estimates, stale proposals and mutual
    proposals."""
    from wpart.tasks._rounds import plan_round, positions, proposal_row

    rng = np.random.default_rng(seed)
    P = int(rng.integers(1, 12))
    offers = 3
    pos = positions(rng.permutation(P))
    W = rng.integers(0, 4, P).astype(float)  # ties in W
    ver = rng.integers(0, 3, P)
    rows = np.zeros((P, 3 + 4 * offers))
    for r in range(P):
        peers = rng.permutation([q for q in range(P) if q != r])[:int(rng.integers(0, offers + 1))]
        props = [(int(q), float(rng.integers(0, 3)), float(rng.integers(0, 3)),
                  int(ver[q] if rng.random() < 0.7 else ver[q] + 1)) for q in peers]
        rows[r] = proposal_row(W[r], int(ver[r]), props, offers)
    partner, proposer, refresh = plan_round(rows, pos)
    want_p, want_prop, want_ref = _greedy_reference(rows, pos)
    assert refresh == want_ref
    assert {r: int(q) for r, q in enumerate(partner) if q >= 0} == want_p
    assert set(np.flatnonzero(proposer).tolist()) == want_prop
    for r, q in enumerate(partner):  # disjoint pairs
        assert q < 0 or partner[q] == r


def test_final_pass_proposals_mirror_and_tolerance():
    """Final pass of the rounds protocol: a rank that is not the heaviest proposes to the
    ranks around its mirror place in the order by the gathered W (lighter ones only, by
    decreasing difference), and no rank proposes once the gathered W_max is within
    ``final_tol`` of the mean W."""
    prob = G.gemma_like(m=8, n_tasks=80, n_blocks=16, seed=0)
    parts = split_problem(prob, np.asarray(prob.initial, np.int32), None)
    prm = _ranks_mod.RankParams(8, Coefficients().as_tuple())
    rk = _ranks_mod.RankProcess(parts[1], prm)
    rk.begin_iteration()  # knows only its own summary
    rk.final = True
    w = rk.current_work()
    # a 32-rank view in which rank 1 is the second heaviest: its mirror place is the second
    # lightest, its window the 8 lightest ranks (31, 30, ..., 24 here)
    ws = w * (1 - 0.01 * np.arange(32))
    ws[0], ws[1] = 2 * w, w
    rk.w_view = np.column_stack([ws, np.zeros(32)])
    props = rk.proposals()
    assert [p[0] for p in props] == list(range(31, 23, -1))
    assert all(p[1] == pytest.approx(w - ws[p[0]]) for p in props)
    prm.final_mirror = 0  # without mirror proposals and kept peers: nothing to propose
    assert rk.proposals() == []
    prm.final_mirror = 8
    ws = w * (1 - 1e-9 * np.arange(8))
    ws[0], ws[1] = w * (1 + 1e-9), w
    rk.w_view = np.column_stack([ws, np.zeros(8)])
    assert rk.proposals() == []  # balanced within final_tol (1e-7): the final pass ends
    prm.final_tol = 0.0
    assert [p[0] for p in rk.proposals()] == [7, 6, 5, 4, 3, 2]  # the lighter ones


# ------------------------------------------------------------------ gather / auto, the stats
def test_gather_protocol_is_the_serial_engine_and_auto_chooses_by_size(monkeypatch):
    from wpart.tasks import _mpi_gather

    for i in range(6):
        p = G.random_problem(m=5, n_tasks=30, n_blocks=4, n_edges=20, seed=i, memory=True)
        if i % 2:
            p = p.with_(migratable=np.arange(30) % 4 != 0)
        kw = dict(seed=i, beta=0.5, memory_cap=None if i % 3 else 1e9)
        want = balance(p, **kw)
        got = balance(p, backend="ranks", protocol="gather", **kw)
        np.testing.assert_array_equal(got.assignment, want.assignment)
        assert got.max_work == want.max_work
        assert got.stats["protocol"] == "gather" and got.stats["backend"] == "ranks"
        sch = got.stats["schedule"]
        assert len(sch["serial_s"]) == len(sch["critical_path_s"]) == 4
        assert got.stats["bytes_per_rank"].shape == (5,)
        auto = balance(p, backend="ranks", protocol="auto", **kw)
        assert auto.stats["protocol"] == "gather" and auto.stats["protocol_asked"] == "auto"
    monkeypatch.setattr(_mpi_gather, "GATHER_BUDGET", 10)  # nothing fits: rounds
    auto = balance(p, backend="ranks", protocol="auto", seed=1)
    rounds = balance(p, backend="ranks", protocol="rounds", seed=1)
    assert auto.stats["protocol"] == "rounds" and auto.max_work == rounds.max_work


@pytest.mark.parametrize("protocol", ["rounds", "turns"])
def test_ranks_stats_have_the_schedule_and_bytes_per_rank(protocol):
    p = G.gemma_like(m=8, n_tasks=400, n_blocks=40, seed=2)
    r = balance(p, backend="ranks", protocol=protocol, seed=0, n_iter=3)
    sch = r.stats["schedule"]
    assert len(sch["serial_s"]) == len(sch["critical_path_s"]) == 3
    assert all(c <= s + 1e-9 for s, c in zip(sch["serial_s"], sch["critical_path_s"]))
    b = r.stats["bytes_per_rank"]
    assert b.shape == (8,) and (b > 0).all()


def _quality_family(name: str, P: int, seed: int):
    """The five quality families of benchmarks/_mpi_parts.py (40 tasks per rank)."""
    n, b = 40 * P, 6 * P
    if name == "sigma1.5":
        return G.gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed, load_sigma=1.5), {}
    if name in ("deg2_beta", "deg4_beta_gamma"):
        deg = 2.0 if name == "deg2_beta" else 4.0
        p = G.gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed, comm_degree=deg)
        beta = 0.5 * float(np.mean(p.task_load)) / float(np.mean(p.edge_bytes))
        return p, ({"beta": beta, "gamma": 0.1 * beta} if deg == 4.0 else {"beta": beta})
    if name == "cap1.05":
        p = G.gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed, footprint_bytes=1e6,
                         working_bytes=1e6)
        return p, {"memory_cap": 1.05 * float(np.max(p.evaluate()["memory"]))}
    p = G.gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed)
    return p.with_(migratable=np.random.default_rng(seed + 7).random(n) >= 0.2), {}


@pytest.mark.parametrize("family", ["sigma1.5", "deg2_beta", "deg4_beta_gamma", "cap1.05",
                                    "pinned20"])
def test_quality_families_against_the_serial_engine(family):
    """auto (which gathers these phases) is the serial engine's W_max exactly; rounds is below
    it on average over the seeds tried (the full 20-seed table, with its worst cases, is
    bench_mpi part (6))."""
    rel = []
    for s in range(3):
        p, kw = _quality_family(family, 8, s)
        ser = balance(p, seed=s, **kw).max_work
        assert balance(p, backend="ranks", protocol="auto", seed=s, **kw).max_work == ser
        rel.append(balance(p, backend="ranks", protocol="rounds", seed=s, **kw).max_work / ser
                   - 1.0)
    assert np.mean(rel) < 0
