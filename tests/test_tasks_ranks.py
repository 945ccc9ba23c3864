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
        a = balance(prob, seed=seed, n_iter=3, delta=0.1, greedy_start=False, economy=False)
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
    # no all-gather: per rank and round one allreduce of four numbers (the final pass: two);
    # every proposal goes to its target only and is answered (ACCEPT or REFRESH)
    rounds = sum(d["rounds"] for d in b.stats["schedule"]["rounds"])
    assert "ALLGATHER" not in m and "POINT" not in m
    assert prob.m * rounds <= m["ALLREDUCE"] <= 2 * prob.m * (rounds + 4 + 1)
    assert m["PROPOSE"] == m["ACCEPT"] + m.get("REFRESH", 0)
    from wpart.tasks._ranks import RankParams

    prm = RankParams(prob.m, (1.0, 0.0, 0.0, 1e-9, True))
    assert prm.track_drop and prm.round_limit(False) == prm.max_rounds_comm
    # bounded (the last iteration's entry holds the final pass: at most final_rounds more
    # than the iteration's own rounds)
    assert all(d["rounds"] <= 2 * prm.round_limit(False) + prm.final_rounds
               for d in b.stats["schedule"]["rounds"])
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


def _greedy_reference(edges: dict) -> dict:
    """The greedy matching by decreasing key, spelled out: ``{rank: partner}``."""
    partner: dict = {}
    for key, (r, q) in sorted(((k, e) for e, k in edges.items()), reverse=True):
        if r not in partner and q not in partner:
            partner[r], partner[q] = q, r
    return partner


def _handshakes(P: int, edge_of: list, H: int) -> list:
    """Run H handshakes of every rank's Handshake, messages delivered as over MPI."""
    from wpart.tasks._rounds import Handshake

    hs = [Handshake(r, edge_of[r]) for r in range(P)]
    for _ in range(H):
        sent = [h.message() for h in hs]
        tg = [h.targets() for h in hs]
        for r in range(P):
            for q in tg[r]:
                assert r in tg[q]  # both ends of an edge exchange at every handshake
        for r in range(P):
            hs[r].receive({q: sent[q] for q in tg[r]})
    return hs


@pytest.mark.parametrize("seed", range(40))
def test_rounds_matching_is_locally_dominant(seed):
    """The handshakes of a round (every rank picks its best edge to a rank not known to be
    matched): with enough handshakes the greedy matching by decreasing key, with fewer a part
    of it holding the edge of largest key; pairs disjoint and both ends agree on the proposer.
    Keys built by edge_keys from proposals with ties in the estimates and mutual proposals."""
    from wpart.tasks._rounds import edge_keys, positions

    rng = np.random.default_rng(seed)
    P = int(rng.integers(1, 14))
    pos = positions(rng.permutation(P))
    out = [[] for _ in range(P)]
    inc = [[] for _ in range(P)]
    for r in range(P):
        for q in rng.permutation([q for q in range(P) if q != r])[:int(rng.integers(0, 4))]:
            p = (int(q), float(rng.integers(0, 3)), float(rng.integers(0, 3)))
            out[r].append(p)
            inc[int(q)].append((r,) + p[1:])
    edge_of = [edge_keys(r, out[r], inc[r], pos) for r in range(P)]
    edges = {}
    for r in range(P):
        for q, (k, who) in edge_of[r].items():
            assert edge_of[q][r] == (k, who)  # both ends hold the same key and proposer
            edges[tuple(sorted((r, q)))] = k
    want = _greedy_reference(edges)
    full = _handshakes(P, edge_of, P + 1)
    assert {r: h.partner for r, h in enumerate(full) if h.partner >= 0} == want
    one = _handshakes(P, edge_of, 1)
    got = {r: h.partner for r, h in enumerate(one) if h.partner >= 0}
    assert all(want[r] == q for r, q in got.items())
    if edges:
        top = max(edges, key=edges.get)
        assert got.get(top[0]) == top[1]


def test_final_pass_proposals_and_tolerance():
    """Final pass of the rounds protocol: a rank proposes to its kept peers lighter than
    itself by more than ``final_tol`` of its W, by decreasing difference; the heaviest rank
    of the round before (the allreduce's extremes) also to the lightest rank."""
    prob = G.gemma_like(m=8, n_tasks=80, n_blocks=16, seed=0)
    parts = split_problem(prob, np.asarray(prob.initial, np.int32), None)
    prm = _ranks_mod.RankParams(8, Coefficients().as_tuple())
    rks = [_ranks_mod.RankProcess(d, prm) for d in parts]
    for rk in rks:
        rk.begin_iteration()
    rk = rks[1]
    rk.final = True
    w = rk.current_work()
    assert rk.proposals() == []  # knows only its own summary
    for q in (2, 3, 4):
        rk.known[q] = rks[q].own_summary()
    ws = {q: rks[q].current_work() for q in (2, 3, 4)}
    lighter = sorted((q for q in ws if ws[q] < w * (1 - 1e-7)), key=lambda q: ws[q])
    assert [p[0] for p in rk.proposals()] == lighter
    assert all(p[1] == pytest.approx(w - ws[p[0]]) for p in rk.proposals())
    rk.extremes = (w, 0.0, 1, 7)  # rank 1 the heaviest, rank 7 the lightest
    assert rk.proposals()[0][0] == 7
    rk.extremes = (2 * w, 0.0, 0, 7)  # another rank is the heaviest
    assert 7 not in [p[0] for p in rk.proposals()]
    prm.final_tol = 1.0  # nothing is lighter by more than W
    assert rk.proposals() == []


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
    # from AUTO_ROUNDS_RANKS ranks on, the rounds (measured faster than the serial engine)
    monkeypatch.setattr(_mpi_gather, "GATHER_BUDGET", 2 << 30)
    assert _mpi_gather.auto_protocol(100, 10, 1, n_ranks=_mpi_gather.AUTO_ROUNDS_RANKS) == "rounds"
    assert _mpi_gather.auto_protocol(100, 10, 1, n_ranks=64) == "gather"
    monkeypatch.setattr(_mpi_gather, "AUTO_ROUNDS_RANKS", 5)
    assert balance(p, backend="ranks", protocol="auto", seed=1).stats["protocol"] == "rounds"


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


QUALITY_FAMILIES = ("sigma1.5", "deg2_beta", "deg4_beta_gamma", "cap1.05", "pinned20")
# bench_mpi part (6)'s instances nearest the bound: the first three were above it before the
# final pass went on while W_max fell and retried pairs once a W changed, the next two were
# above it with a longer iteration patience; then seeds the benchmark does not use: pinned20
# P = 32 seed 24 was above it (+0.17 %) before the heaviest rank's sweep and the final pass's
# budget of at least final_rounds more rounds; P = 16 seed 30 was (+0.90 %) until the final
# pass's mixed exchanges (RankParams.final_mixed, now -0.14 %): its heaviest rank can shed
# load only by giving one task for a block's part, no swap of one task for one
NEAR_THE_BOUND = [("deg2_beta", 64, 5), ("deg4_beta_gamma", 64, 3), ("cap1.05", 64, 4),
                  ("deg2_beta", 8, 19), ("deg2_beta", 32, 14), ("pinned20", 32, 24),
                  ("pinned20", 16, 30)]


def _rounds_over_serial(family: str, P: int, seed: int) -> float:
    """W_max of the rounds protocol over the serial ccm engine's, minus 1 (4 iterations, as
    bench_mpi part (6))."""
    p, kw = _quality_family(family, P, seed)
    ser = balance(p, seed=seed, n_iter=4, **kw).max_work
    return balance(p, backend="ranks", protocol="rounds", seed=seed, n_iter=4,
                   **kw).max_work / ser - 1.0


@pytest.mark.parametrize("family,P,seed", NEAR_THE_BOUND)
def test_rounds_within_0_1_percent_of_the_serial_engine_near_the_bound(family, P, seed):
    assert _rounds_over_serial(family, P, seed) <= 1e-3


def _pair_key(d: dict, co: tuple, asg: np.ndarray) -> tuple:
    """(summed cap excess, max W without the memory term) of local ranks 0 and 1 under
    `asg`, from scratch (:func:`wpart._core.tasks_evaluate`)."""
    _, rep = _core.tasks_evaluate(d, co, asg)
    cap = d.get("rank_mem_cap", np.full(3, np.inf))
    alpha = d.get("rank_alpha", np.full(3, co[0]))
    w = [alpha[r] * rep["load"][r] + co[1] * max(rep["vol_out"][r], rep["vol_in"][r])
         + co[2] * rep["vol_local"][r] + co[3] * rep["homing"][r] for r in (0, 1)]
    exc = sum(max(0.0, rep["memory"][r] - cap[r]) for r in (0, 1)) if co[4] else 0.0
    return exc, max(w)


def _mixed_against_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    K = int(rng.integers(6, 16))
    prob = G.random_problem(2, K, int(rng.integers(1, 3)), int(rng.integers(0, 10)),
                            seed=seed, memory=bool(seed % 3 == 0), zeros=bool(seed % 4 == 1))
    if seed % 2:
        prob = prob.with_(migratable=rng.random(K) > 0.25)
    a = rng.integers(0, 2, K).astype(np.int32)
    cap = None
    if seed % 3 == 0:  # tight caps now and then: the excess decides first
        _, rep = _core.tasks_evaluate(prob._dict(), (1.0, 0, 0, 0, True), a)
        cap = rep["memory"][:2] * float(rng.choice([0.9, 1.05, 10.0]))
    co = (1.0, float(rng.choice([0, 0.5])), float(rng.choice([0, 0.1])),
          float(rng.choice([0, 0.2])), True)
    args = _ranks_mod.RankParams(2, co).step_args(True)
    for _ in range(40 if seed % 4 else 0):  # mostly from where no single task pays
        parts = split_problem(prob, a, cap)
        found, _, _, give, take = _core.tasks_ranks_pair(
            parts[0].c_records(), parts[1].c_records(), co, True, *args, False)
        if not found:
            break
        a[give], a[take] = 1, 0  # the gids are the task indices
    parts = split_problem(prob, a, cap)
    found, _, _, give, take = _core.tasks_ranks_pair(parts[0].c_records(),
                                                     parts[1].c_records(), co, True, *args,
                                                     True)
    d, asg, gids = pair_problem(parts[0], parts[1], co[0])
    mig = d.get("task_migratable", np.ones(len(asg), bool)).astype(bool)
    blk = d.get("task_block", np.full(len(asg), -1))
    units = []
    for side in (0, 1):
        own = np.flatnonzero((asg == side) & mig)
        one = [own[i:i + 1] for i in range(own.size)]
        part = [own[blk[own] == b] for b in np.unique(blk[own]) if b >= 0]
        units.append((one, [u for u in part if u.size >= 2]))
    exc0, w0 = _pair_key(d, co, asg)

    def best_of(pairs):
        best = None
        for u, v in pairs:
            x = asg.copy()
            x[u], x[v] = 1, 0
            exc, w = _pair_key(d, co, x)
            if exc < exc0 - 1e-9 or (abs(exc - exc0) <= 1e-9 and w0 - w > 1e-12 * w0 + 1e-12):
                best = (exc, w) if best is None else min(best, (exc, w))
        return best

    none = np.zeros(0, np.int64)
    one0, one1 = [none] + units[0][0], [none] + units[1][0]
    want = best_of((u, v) for u in one0 for v in one1 if u.size or v.size)
    if want is None:
        all0, all1 = one0 + units[0][1], one1 + units[1][1]
        want = best_of((u, v) for u in all0 for v in all1 if max(u.size, v.size) >= 2)
    assert bool(found) == (want is not None)
    if want is not None:
        x = asg.copy()
        at = {int(g): i for i, g in enumerate(gids)}
        x[[at[int(g)] for g in give]], x[[at[int(g)] for g in take]] = 1, 0
        got = _pair_key(d, co, x)
        assert got[0] == pytest.approx(want[0], rel=1e-9, abs=1e-9)
        assert got[1] == pytest.approx(want[1], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_final_pass_mixed_exchange_is_the_best_by_brute_force(seed):
    """The final pass's pair step (csrc/tasks/ccm_eval.c, wpart_i_ccm_find_best_mixed) on tiny
    pairs against brute force: every exchange of a single task or none for a single task or
    none first (FindBestCCM on single tasks); when none of them pays, every exchange of a
    single task, a block's part (the side's migratable tasks of one block, two or more) or
    none for the same on the other side, at least one a block's part: one task for two, for
    a block's part, a part for a part. The step finds an exchange exactly when one pays, and
    its (excess, max W) after is the best one's, ties included; pins, caps, beta, gamma, delta
    (six tiny pairs a seed, most of them first brought to where no single task pays)."""
    for sub in range(6):
        _mixed_against_brute_force(6 * seed + sub)


@pytest.mark.slow
@pytest.mark.parametrize("family", QUALITY_FAMILIES)
def test_rounds_never_worse_than_the_serial_engine_by_more_than_0_1_percent(family):
    """bench_mpi part (6) in full: 20 seeds at P = 8, 16, 32, 64; every instance within
    0.1 % of the serial ccm engine's W_max, and below it on average."""
    rel = [_rounds_over_serial(family, P, s) for P in (8, 16, 32, 64) for s in range(20)]
    assert max(rel) <= 1e-3 and np.mean(rel) < 0


@pytest.mark.slow
@pytest.mark.parametrize("family", QUALITY_FAMILIES)
def test_rounds_within_0_1_percent_of_the_serial_engine_on_seeds_the_benchmark_does_not_use(
        family):
    """The same on 70 instances per family of seeds bench_mpi does not use (20-39 at P = 8,
    16, 32; 20-29 at P = 64; benchmarks/results/bench_mpi_s7/quality_sweep.py)."""
    rel = [_rounds_over_serial(family, P, s) for P in (8, 16, 32) for s in range(20, 40)]
    rel += [_rounds_over_serial(family, 64, s) for s in range(20, 30)]
    assert max(rel) <= 1e-3 and np.mean(rel) < 0


@pytest.mark.parametrize("family", QUALITY_FAMILIES)
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


@pytest.mark.parametrize("stem", ["challenging_toy_fewer_tasks/toy",
                                  "nolb-8color-16nodes-11firstphases/data",
                                  "user-defined-memory-toy-problem/toy_mem",
                                  "vt_example_lb_data/data"])
@pytest.mark.parametrize("protocol", ["rounds", "turns"])
def test_ranks_engine_on_sets_whose_task_ids_are_not_sorted(stem, protocol):
    """LBDatafile sets list a rank's tasks in any id order; the in-process split sorts them by
    id as the per-rank MPI reader does (the C steps need it: they refused these sets)."""
    from wpart.tasks import Problem
    from wpart.tasks.datasets import lbaf_path

    p = Problem.from_lbdatafile(lbaf_path(stem))
    assert (np.diff(p.task_ids[p.initial == 0]) < 0).any() or stem.startswith("user")
    r = balance(p, backend="ranks", protocol=protocol, seed=0)
    assert r.success and r.max_work <= r.initial_max_work
    assert np.array_equal(r.assignment[~p.migratable], p.initial[~p.migratable])
    assert r.max_work == p.evaluate(assignment=r.assignment)["w_max"]
    for d in split_problem(p, p.initial, None):
        assert (np.diff(d.gid) > 0).all()


def test_rounds_end_when_w_max_stalls():
    """An iteration's rounds end at the first round (after its first) whose allreduce shows
    no lower W_max than the round before (every rank decides alike from the allreduce); the
    final pass only past its final_rounds, after final_patience such rounds in a row
    (final_extend); proposals lead their edge keys with (excess reduction, proposer's W)."""
    from types import SimpleNamespace

    from wpart.tasks._rounds import edge_keys, stalled

    prm = SimpleNamespace(stall_tol=1e-6, final_extend=False, track_drop=False)
    rk = SimpleNamespace(final=False, last_wmax=None, stalls=0)
    red = lambda w: np.array([w, -0.1, 3.0])  # noqa: E731
    assert not stalled(rk, red(2.0), 0, prm)  # first round of the run
    assert not stalled(rk, red(1.5), 1, prm)  # lowered
    assert stalled(rk, red(1.5 * (1 - 1e-7)), 2, prm)  # within the tolerance: stalled
    assert not stalled(rk, red(1.4), 0, prm)  # an iteration's first round always runs
    assert rk.last_wmax == 1.4
    rk.final = True
    assert not stalled(rk, red(1.4), 3, prm) and rk.last_wmax == 1.4
    # final_extend: past final_rounds, final_patience rounds in a row without W_max falling
    prm.final_extend, prm.final_rounds, prm.final_patience = True, 3, 2
    rk.last_wmax = None
    assert not stalled(rk, red(1.4), 0, prm)
    assert not stalled(rk, red(1.4), 1, prm) and not stalled(rk, red(1.4), 2, prm)
    assert stalled(rk, red(1.4), 3, prm)  # past final_rounds, the second round in a row
    assert not stalled(rk, red(1.3), 4, prm)  # W_max fell: the count starts again
    assert not stalled(rk, red(1.3), 5, prm)
    assert stalled(rk, red(1.3), 6, prm)
    prm.final_extend = False
    assert not stalled(rk, red(1.3), 7, prm)
    prm.stall_tol = None
    rk.final = False
    assert not stalled(rk, red(1.4), 3, prm)
    # with beta, gamma or delta (track_drop): a pair of the round before that lowered its
    # total W keeps the rounds going, and it takes `stall_patience` rounds in a row with
    # neither W_max nor a pair's total falling to end them
    prm = SimpleNamespace(stall_tol=1e-6, track_drop=True, stall_drop_tol=1e-6,
                          stall_patience=2, final_extend=False)
    rk = SimpleNamespace(final=False, last_wmax=None, stalls=0)
    red4 = lambda w, drop: np.array([w, -0.1, 3.0, drop])  # noqa: E731
    assert not stalled(rk, red4(2.0, 0.0), 0, prm)
    assert not stalled(rk, red4(2.0, 0.01), 1, prm)  # W_max flat, a pair's total fell
    assert not stalled(rk, red4(2.0, 1e-7), 2, prm)  # neither: the first such round
    assert stalled(rk, red4(2.0, 0.0), 3, prm)  # the second in a row
    assert not stalled(rk, red4(2.0, 0.0), 0, prm)  # a new iteration starts the count again
    assert not stalled(rk, red4(2.0, 0.0), 1, prm)
    assert not stalled(rk, red4(1.9, 0.0), 2, prm)  # W_max fell: the count starts again
    assert not stalled(rk, red4(1.9, 0.0), 3, prm)
    assert stalled(rk, red4(1.9, 0.0), 4, prm)
    from wpart.tasks._ranks import RankParams

    for co, tracked in (((1.0, 0.0, 0.0, 0.0, True), False), ((1.0, 0.5, 0.0, 0.0, True), True),
                        ((1.0, 0.0, 0.1, 0.0, True), True), ((1.0, 0.0, 0.0, 0.1, True), True)):
        rp = RankParams(8, co)
        assert rp.track_drop == tracked
        assert rp.round_limit(False) == (rp.max_rounds_comm if tracked else rp.max_rounds)
        assert rp.round_limit(True) == 2 * rp.final_rounds
        # final_rounds more, or the last iteration's rounds when they are more
        assert rp.round_limit(True, 5) == 2 * rp.final_rounds
        assert rp.round_limit(True, rp.final_rounds + 5) == 2 * rp.final_rounds + 5
        rp.final_extend = False
        assert rp.round_limit(True, 5) == rp.final_rounds
        rp.stall_drop_tol = None
        assert not rp.track_drop
    # the heavier proposer's edge wins over a lighter one's larger gain
    pos = np.arange(4)
    e = edge_keys(0, [], [(1, (0.0, 2.0), 0.1), (2, (0.0, 1.0), 0.5)], pos)
    assert max(e, key=lambda q: e[q][0]) == 1
    prob = G.gemma_like(m=16, n_tasks=640, n_blocks=96, seed=3, comm_degree=2.0)
    b = balance(prob, backend="ranks", n_iter=4, beta=0.01)
    r = [d["rounds"] for d in b.stats["schedule"]["rounds"]]
    assert min(r[:-1]) < 12 and b.max_work < b.initial_max_work
