"""Pinned tasks (``Problem.migratable`` False) in the serial C engines, the greedy baseline
against a pure-Python reference of its rule, and ``method="tempered"`` under a memory cap.

Every placement is re-scored by an independent NumPy evaluation of the work model."""

from __future__ import annotations

import math

import numpy as np
import pytest

import wpart
from wpart import tasks


# ---------------------------------------------------------------------- independent model
def np_work(p, a, *, alpha=1.0, beta=0.0, gamma=0.0, delta=0.0, cap=None, ranks=None):
    """Per-rank W of assignment `a` from first principles (NumPy). Entries of `a` outside
    ``[0, m)`` (a pool of unplaced tasks) belong to no rank; `ranks` limits the ranks
    computed (default all)."""
    m = p.m
    a = np.asarray(a, np.int64)
    ranks = range(m) if ranks is None else ranks
    cap = p.rank_mem_cap if cap is None else cap
    src, dst = p.edges[:, 0], p.edges[:, 1]
    ra, rb = a[src], a[dst]
    out = {}
    for r in ranks:
        on = a == r
        load = float(p.task_load[on].sum())
        fp = float(p.task_footprint[on].sum()) if p.task_footprint is not None else 0.0
        wk = float(p.task_working[on].max()) if p.task_working is not None and on.any() else 0.0
        sa, sb = ra == r, rb == r
        vout = float(p.edge_bytes[sa & ~sb].sum())
        vin = float(p.edge_bytes[~sa & sb].sum())
        loc = float(p.edge_bytes[sa & sb].sum())
        h = ms = 0.0
        if p.task_block is not None:
            blocks = np.unique(p.task_block[on])
            blocks = blocks[blocks >= 0]
            ms = float(p.block_size[blocks].sum())
            h = float(p.block_size[blocks[p.block_home[blocks] != r]].sum())
        base = float(p.rank_baseline[r]) if p.rank_baseline is not None else 0.0
        al = float(p.rank_alpha[r]) if p.rank_alpha is not None else alpha
        w = al * load + beta * max(vout, vin) + gamma * loc + delta * h
        if cap is not None and base + fp + wk + ms > cap[r]:
            w = math.inf
        out[r] = w
    return out


def np_wmax(p, a, **kw):
    return max(np_work(p, a, **kw).values())


# ---------------------------------------------------------------------- greedy reference
def greedy_reference(p, *, alpha=1.0, beta=0.0, gamma=0.0, delta=0.0, cap=None):
    """The greedy rule, written plainly: pinned tasks stay on their initial rank; the
    migratable tasks of each block form one unit (block-less tasks alone), in order of their
    first task; units by descending load (ties: first unit first), each onto the rank whose W
    after taking it is smallest (ties: lowest rank), with the tasks not placed yet counted as
    being on another rank (a pool). This is the rule of the former implementation, which
    evaluated every (unit, rank) by an incremental exchange from a pool rank."""
    m, K = p.m, p.n_tasks
    pool = m
    where = np.full(K, pool, np.int64)
    mig = p.migratable
    where[~mig] = p.initial[~mig]
    units, key = [], {}
    for t in range(K):
        if not mig[t]:
            continue
        b = int(p.task_block[t]) if p.task_block is not None else -1
        if b >= 0 and b in key:
            units[key[b]].append(t)
            continue
        if b >= 0:
            key[b] = len(units)
        units.append([t])
    load = [float(sum(p.task_load[u])) for u in units]
    order = sorted(range(len(units)), key=lambda u: (-load[u], u))
    for u in order:
        best, br = math.inf, -1
        for r in range(m):
            a = where.copy()
            a[units[u]] = r
            w = np_work(p, a, alpha=alpha, beta=beta, gamma=gamma, delta=delta, cap=cap,
                        ranks=[r])[r]
            if w < best:
                best, br = w, r
        if br < 0:
            return None
        where[units[u]] = br
    return where


def _instance(seed, m=4, K=14, N=3, M=10, pinned="some", memory=True, alpha=False):
    """Half-integer data (exact sums: ties are real ties in any order of summation)."""
    p = tasks.random_problem(m, K, N, M, seed=seed, memory=memory, rank_alpha=alpha)
    rng = np.random.default_rng(1000 + seed)
    if pinned == "none":
        mig = np.ones(K, bool)
    elif pinned == "all":
        mig = np.zeros(K, bool)
    else:
        mig = rng.random(K) < 0.6
    return p.with_(migratable=mig)


_COEFFS = [dict(), dict(beta=1.0), dict(beta=0.5, gamma=0.5, delta=1.0), dict(delta=2.0)]


@pytest.mark.parametrize("seed", range(30))
def test_greedy_matches_its_reference(seed):
    """Same placement as the plain rule (with and without pinned tasks, memory, edges)."""
    pinned = ("none", "some", "all")[seed % 3]
    p = _instance(seed, pinned=pinned, alpha=seed % 4 == 1)
    kw = _COEFFS[seed % len(_COEFFS)]
    cap = None
    if seed % 5 == 2:
        cap = np.full(p.m, 14.0)
    ref = greedy_reference(p, cap=cap, **kw)
    if ref is None:
        with pytest.raises(wpart.WpartValueError, match="fits on no rank"):
            tasks.balance(p, method="greedy", memory_cap=cap, **kw)
        return
    r = tasks.balance(p, method="greedy", memory_cap=cap, **kw)
    np.testing.assert_array_equal(r.assignment, ref)
    assert r.max_load == pytest.approx(np_wmax(p, ref, cap=cap, **kw))


def test_greedy_large_unit_count_is_fast_enough_to_run():
    """Many block-less tasks (one unit each): the rule is O(K log K + K m); a hang guard."""
    rng = np.random.default_rng(0)
    K = 60_000
    p = tasks.Problem(rng.uniform(0.1, 1.0, K), 64, task_working=rng.uniform(0, 5, K),
                      edges=rng.integers(0, K, (K, 2)), edge_bytes=rng.uniform(0, 1, K))
    r = tasks.balance(p, method="greedy", beta=0.1)
    assert r.success and np.bincount(r.assignment, minlength=64).min() > 0


# ---------------------------------------------------------------------- pinned tasks
_METHODS = [
    ("greedy", {}),
    ("ccm", {}),
    ("ccm", dict(subclusters="singles")),
    ("ccm", dict(subclusters="subsets")),
    ("ccm", dict(subclusters="fill")),
    ("ccm", dict(subclusters="fill", split_rule="fallback")),
    ("ccm", dict(cluster="task")),
    ("ccm", dict(cluster="block+comm", beta=1.0, comm_tau=0.1)),
    ("ccm", dict(ranking="exact", n_trials=2, explore=True)),
    ("ccm", dict(order="rank")),
    ("tempered", {}),
    ("brute_force", {}),
    ("brute_force", dict(preserve_clusters=True)),
]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("meth,kw", _METHODS, ids=[f"{m}-{i}" for i, (m, _) in
                                                    enumerate(_METHODS)])
def test_pinned_tasks_never_move(seed, meth, kw):
    pinned = ("none", "some", "all", "some")[seed % 4]
    small = meth == "brute_force"
    p = _instance(seed, m=3 if small else 4, K=7 if small else 16, N=2 if small else 4,
                  M=6 if small else 14, pinned=pinned, memory=seed % 2 == 0)
    kw = dict(kw)
    coeffs = {k: kw.pop(k) for k in ("beta", "gamma", "delta") if k in kw}
    if "beta" not in coeffs and seed % 3 == 1:
        coeffs.update(beta=0.5, delta=0.5)
    r = tasks.balance(p, method=meth, seed=seed, **coeffs, **kw)
    mig = p.migratable
    np.testing.assert_array_equal(r.assignment[~mig], p.initial[~mig])
    assert r.max_load == pytest.approx(np_wmax(p, r.assignment, **coeffs))
    if meth == "brute_force":  # the optimum over the placements that keep the pins
        assert r.status == "optimal"
        best = _brute_pinned(p, kw.get("preserve_clusters", False), **coeffs)
        assert r.max_load == pytest.approx(best)
    elif meth == "ccm":  # CCM-LB never gets worse than its start (tempered is load-only)
        assert r.max_load <= r.initial_max_load * (1 + 1e-12)
    if pinned == "all":
        np.testing.assert_array_equal(r.assignment, p.initial)


def _brute_pinned(p, preserve, **kw):
    import itertools

    mig = np.flatnonzero(p.migratable)
    if preserve and p.task_block is not None:
        units, seen = [], {}
        for t in mig:
            b = int(p.task_block[t])
            if b >= 0 and b in seen:
                units[seen[b]].append(t)
                continue
            if b >= 0:
                seen[b] = len(units)
            units.append([t])
    else:
        units = [[t] for t in mig]
    best = math.inf
    a = np.array(p.initial, np.int64)
    for choice in itertools.product(range(p.m), repeat=len(units)):
        for u, r in zip(units, choice):
            a[u] = r
        best = min(best, np_wmax(p, a, **kw))
    return best


def test_pinned_block_cluster_moves_without_its_pinned_task():
    """A block whose heavy tasks sit on an overloaded rank: the migratable ones move, the
    pinned one stays, and the block is then present on both ranks."""
    p = tasks.Problem([4.0, 4.0, 4.0, 0.5], 2, task_block=[0, 0, 0, -1], block_size=[1.0],
                      block_home=[0], initial=[0, 0, 0, 1],
                      migratable=[False, True, True, True])
    for meth, kw in [("ccm", dict(subclusters="fill")), ("ccm", dict(subclusters="singles")),
                     ("greedy", {}), ("tempered", {}), ("brute_force", {})]:
        r = tasks.balance(p, method=meth, seed=0, **kw)
        assert r.assignment[0] == 0, meth
        assert r.max_load == pytest.approx(np_wmax(p, r.assignment))
        assert r.max_load <= 8.0 + 1e-12, meth
    # a whole-cluster move never drags the pinned task along
    r = tasks.balance(p, method="ccm", seed=0)
    assert r.assignment[0] == 0


def test_pinned_tasks_through_the_compressed_rank_set():
    """Far more ranks than tasks: the balancers run on a smaller rank set; pins hold."""
    K = 12
    rng = np.random.default_rng(3)
    p = tasks.Problem(rng.uniform(1, 2, K), 10_000, initial=np.zeros(K, np.int64),
                      migratable=np.arange(K) % 3 != 0)
    for meth in ("ccm", "greedy", "tempered"):
        r = tasks.balance(p, method=meth, seed=0)
        assert "compressed_ranks" in r.stats
        assert np.all(r.assignment[~p.migratable] == 0)
        assert r.max_load == pytest.approx(np_wmax(p, r.assignment))


def test_pinned_load_bounds_the_result():
    p = tasks.Problem([5.0, 1.0, 1.0, 1.0], 2, initial=[0, 0, 0, 0],
                      migratable=[False, True, True, True])
    r = tasks.balance(p, method="greedy")
    assert r.lower_bound >= 5.0 - 1e-12 and r.max_load >= r.lower_bound


# ---------------------------------------------------------------------- tempered + cap
@pytest.mark.parametrize("seed", range(8))
def test_tempered_honours_memory_cap(seed):
    """A transfer that would break the cap is refused: no rank ends above it."""
    rng = np.random.default_rng(seed)
    K, m = 40, 4
    load = rng.uniform(0.5, 2.0, K)
    load[:10] *= 4  # rank 0 overloaded at the start
    init = np.concatenate([np.zeros(10, np.int64), rng.integers(0, m, K - 10)])
    fp = rng.uniform(0.5, 2.0, K)
    mem0 = np.bincount(init, weights=fp, minlength=m)
    cap = float(mem0.max()) + 1.0
    p = tasks.Problem(load, m, task_footprint=fp, initial=init)
    r = tasks.balance(p, method="tempered", seed=seed, memory_cap=cap)
    assert r.status == "feasible" and math.isfinite(r.max_load)
    assert np.all(r.memory <= cap + 1e-9)
    mem = np.bincount(r.assignment, weights=fp, minlength=m)
    assert np.all(mem <= cap + 1e-9)
    assert r.max_load == pytest.approx(np_wmax(p, r.assignment, cap=np.full(m, cap)))
    free = tasks.balance(p, method="tempered", seed=seed)  # without the cap it goes further
    assert free.max_load <= r.max_load + 1e-12


def test_tempered_refuses_an_infeasible_start():
    p = tasks.Problem([1.0, 1.0], 2, task_footprint=[5.0, 5.0], initial=[0, 0])
    with pytest.raises(wpart.WpartValueError, match="infeasible start"):
        tasks.balance(p, method="tempered", memory_cap=6.0)


# ---------------------------------------------------------------------- never worse than start
@pytest.mark.parametrize("seed", range(40))
def test_iterative_methods_never_end_above_their_start(seed):
    """CCM-LB and ``"tempered"`` return the best placement seen, their start included: under
    communication, on-rank bytes, homing and memory caps, W_max never ends above the start's
    (``"tempered"`` moves tasks by load alone, so its own moves may raise W)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 6))
    p = tasks.random_problem(m, int(rng.integers(4, 30)), int(rng.integers(0, 5)),
                             int(rng.integers(0, 40)), seed=seed, memory=True)
    coef = dict(beta=float(rng.choice([0.0, 0.5, 2.0])), gamma=float(rng.choice([0.0, 0.3])),
                delta=float(rng.choice([0.0, 0.2])))
    cap = float(rng.choice([np.inf, 20.0, 35.0]))
    cap = None if math.isinf(cap) else cap
    w0 = np_wmax(p, p.initial, cap=None if cap is None else np.full(m, cap), **coef)
    if math.isinf(w0):
        pytest.skip("infeasible start")
    for meth, kw in [("ccm", {}), ("ccm", dict(subclusters="fill")), ("ccm", dict(n_trials=3)),
                     ("tempered", {}), ("tempered", dict(n_trials=3, n_iter=6)),
                     ("ccm", dict(backend="ranks"))]:
        r = tasks.balance(p, method=meth, seed=seed, memory_cap=cap, **coef, **kw)
        w = np_wmax(p, r.assignment, cap=None if cap is None else np.full(m, cap), **coef)
        assert w == pytest.approx(r.max_load, rel=1e-9, abs=1e-12)
        assert w <= w0 * (1 + 1e-12) + 1e-12, (meth, kw, w0, w)
        assert r.stats["w_max_start"] == pytest.approx(w0, rel=1e-9, abs=1e-12)
        assert r.stats["beat_start"] == (r.max_load < r.stats["w_max_start"])
        assert r.stats["kept_start"] == np.array_equal(r.assignment, p.initial)


def test_tempered_keeps_its_start_when_its_load_moves_raise_w():
    """A start that is communication-optimal (every task of a chain on one rank) but load
    imbalanced: load-only transfers split the chain and raise W under beta; the result is
    the start, and the stats say so."""
    K = 8
    p = tasks.Problem(task_load=np.ones(K), m=2, initial=np.zeros(K, int),
                      edges=np.array([[i, i + 1] for i in range(K - 1)]),
                      edge_bytes=np.full(K - 1, 100.0))
    r = tasks.balance(p, method="tempered", beta=1.0)
    assert r.max_load == r.initial_max_load == 8.0
    assert r.stats["kept_start"] and not r.stats["beat_start"]
    assert np.array_equal(r.assignment, p.initial)
    load_only = tasks.balance(p, method="tempered")
    assert load_only.max_load < load_only.initial_max_load  # moves happen under load alone
    g = tasks.balance(p, method="greedy", beta=1.0)
    assert g.stats["beat_start"] == (g.max_load < g.initial_max_load)
