"""The move-economy pass of CCM-LB (``balance(..., economy=True)``, C wpart_tasks_economize):
the same W_max with fewer tasks off their start, never a higher W_max, never a broken cap, a
moved pinned task or (without sub-clusters) a split block cluster."""
import itertools

import numpy as np
import pytest

import wpart
from wpart import _core, tasks

CO = (1.0, 0.0, 0.0, 0.0, True)


def _instances():
    for seed in range(24):
        kind = seed % 4
        if kind == 0:
            p = tasks.gemma_like(m=6, n_tasks=120, n_blocks=14, seed=seed)
            co = CO
        elif kind == 1:
            p = tasks.random_problem(5, 60, 8, 40, seed=seed, memory=True)
            co = (1.0, 1e-3, 1e-4, 1e-9, True)
        elif kind == 2:
            p = tasks.random_problem(7, 80, 10, 0, seed=seed, memory=True, rank_alpha=True)
            co = (1.0, 0.0, 0.0, 1e-8, True)
        else:  # pinned tasks and a cap that binds
            p = tasks.gemma_like(m=8, n_tasks=200, n_blocks=32, seed=seed, block_bytes=1.6e9,
                                 block_spread=0.0, working_bytes=1e7, footprint_bytes=1e5,
                                 rank_baseline=9.8e8, even_blocks=True)
            mig = np.random.default_rng(seed).random(p.n_tasks) > 0.1
            p = p.with_(migratable=mig)
            cap = 1.05 * float(tasks.evaluate(p).memory.max())
            p = p.with_(rank_mem_cap=np.full(p.m, cap))
            co = CO
        yield seed, p, co


def _pairs(p, a):
    """(rank, block) pairs holding migratable tasks of a block."""
    blk = np.asarray(p.task_block)
    keep = (blk >= 0) & np.asarray(p.migratable)
    return len(set(zip(a[keep].tolist(), blk[keep].tolist())))


@pytest.mark.parametrize("split", ["none", "singles", "fill"])
def test_economy_never_worse_and_keeps_every_rule(split):
    for seed, p, co in _instances():
        c = dict(zip(("alpha", "beta", "gamma", "delta"), co[:4]))
        kw = dict(seed=seed, subclusters=split, **c)
        off = tasks.balance(p, economy=False, **kw)
        on = tasks.balance(p, **kw)
        d = p._dict(p.caps(None))
        a0 = np.asarray(p.initial, np.int32)
        w_off, _ = _core.tasks_evaluate(d, co, off.assignment)
        w_on, rep = _core.tasks_evaluate(d, co, on.assignment)
        assert w_on <= w_off and np.isfinite(w_on)  # W_max, caps (W = inf above a cap)
        assert on.max_work == w_on
        n_off, n_on = int(np.sum(off.assignment != a0)), int(np.sum(on.assignment != a0))
        assert n_on <= n_off and on.stats["n_tasks_moved"] == n_on
        assert on.stats["n_tasks_moved_balanced"] == n_off
        pinned = ~np.asarray(p.migratable)
        assert np.array_equal(on.assignment[pinned], a0[pinned])
        if split == "none":  # block clusters stay whole: no block on more ranks than before
            assert _pairs(p, on.assignment) <= _pairs(p, off.assignment)
        if n_on == n_off:  # nothing changed: bit-identical
            assert np.array_equal(on.assignment, off.assignment)


def test_economize_binding_direct_cases():
    p = tasks.gemma_like(m=6, n_tasks=120, n_blocks=14, seed=1)
    d = p._dict(p.caps(None))
    a0 = np.asarray(p.initial, np.int32)
    a, back = _core.tasks_economize(d, CO, a0, a0)  # nothing off its start
    assert back == 0 and np.array_equal(a, a0)
    r = tasks.balance(p, economy=False)
    a1, back = _core.tasks_economize(d, CO, a0, r.assignment)
    a2, back2 = _core.tasks_economize(d, CO, a0, a1)  # a second pass finds nothing more
    assert back2 == 0 and np.array_equal(a2, a1)
    assert back == int(np.sum(r.assignment != a0) - np.sum(a1 != a0))
    # the input array is not changed; pinned tasks off their start are refused
    before = r.assignment.copy()
    _core.tasks_economize(d, CO, a0, r.assignment)
    assert np.array_equal(before, r.assignment)
    mig = np.ones(p.n_tasks, bool)
    moved = np.flatnonzero(r.assignment != a0)
    mig[moved[0]] = False
    dp = p.with_(migratable=mig)._dict(p.caps(None))
    with pytest.raises(wpart.WpartValueError, match="pinned"):
        _core.tasks_economize(dp, CO, a0, r.assignment)


def test_relabelling_is_at_least_the_best_permutation():
    """Equal bins (every rank's W is W_max): the result keeps at least as many tasks at home
    as the best relabelling of the ranks, found here by enumeration."""
    rng = np.random.default_rng(0)
    for trial in range(20):
        m = 5
        K = 4 * m
        p = tasks.Problem(np.ones(K), m, initial=rng.integers(0, m, K))
        d = p._dict(p.caps(None))
        a0 = np.asarray(p.initial, np.int32)
        a = np.repeat(np.arange(m), 4).astype(np.int32)[rng.permutation(K)]
        best = max(sum(int(np.sum(a0[a == j] == perm[j])) for j in range(m))
                   for perm in itertools.permutations(range(m)))
        out, back = _core.tasks_economize(d, CO, a0, a)
        assert int(np.sum(out == a0)) >= best
        assert np.array_equal(np.bincount(out, minlength=m), np.full(m, 4))  # W_max kept


def test_economy_on_the_capped_lbaf_like_phase():
    """The 23,709-task phase's shape at a tenth of its size: the same W_max as without the
    pass, with far fewer tasks moved (ccm and fill)."""
    p = tasks.gemma_like(m=16, n_tasks=2400, n_blocks=64, seed=0, block_bytes=1.6e9,
                         block_spread=0.0, working_bytes=1e7, footprint_bytes=1e5,
                         rank_baseline=9.8e8, even_blocks=True)
    cap = 1.05 * float(tasks.evaluate(p).memory.max())
    for split in (False, "fill"):
        off = tasks.balance(p, memory_cap=cap, subclusters=split, economy=False)
        on = tasks.balance(p, memory_cap=cap, subclusters=split)
        assert on.max_work <= off.max_work and on.status == "feasible"
        assert on.stats["n_tasks_moved"] < 0.5 * off.stats["n_tasks_moved"]


def test_economy_option_checks():
    p = tasks.gemma_like(m=4, n_tasks=40, n_blocks=6, seed=0)
    with pytest.raises(wpart.WpartTypeError, match="^`economy` must be a bool, got str$"):
        tasks.balance(p, economy="yes")
    with pytest.raises(wpart.WpartValueError, match="economy"):
        tasks.balance(p, backend="ranks", economy=True)
    r = tasks.balance(p, method="tempered")
    assert r.stats["economy"] is False


def test_economize_time_limit_keeps_the_steps_made():
    p = tasks.gemma_like(m=16, n_tasks=3000, n_blocks=64, seed=2)
    d = p._dict(p.caps(None))
    a0 = np.asarray(p.initial, np.int32)
    r = tasks.balance(p, subclusters="fill", economy=False)
    full, n_full = _core.tasks_economize(d, CO, a0, r.assignment, False)
    short, n_short = _core.tasks_economize(d, CO, a0, r.assignment, False, 1e-9)
    assert 0 <= n_short <= n_full
    for a in (full, short):
        assert _core.tasks_evaluate(d, CO, a)[0] <= r.max_work
    assert np.sum(short != a0) == np.sum(r.assignment != a0) - n_short


def test_lbaf_like_phase_of_the_benchmark():
    """benchmarks/bench_tasks_moves.py's analogue of LBAF's 23,709-task phase has its shape
    (64 ranks, 4 blocks homed per rank, a cap that admits one more block, the heaviest block
    at LBAF's W_max) and ccm keeps that W_max with fewer moves than LBAF's 18,608."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_tasks_moves import LBAF_REAL, lbaf_hundreds_like

    p, cap = lbaf_hundreds_like()
    assert (p.n_tasks, p.m, p.block_size.shape[0]) == (23_709, 64, 256)
    assert np.array_equal(p.block_home, np.arange(256) % 64)
    assert np.array_equal(p.task_block % 64, p.initial)  # blocks start on their home
    heaviest = np.bincount(p.task_block, p.task_load).max()
    assert abs(heaviest - LBAF_REAL[0]) < 10 and p.task_load.min() >= 2
    base = 9.8e8 + 1.1e8 + 1024 * 800
    assert base + 5 * 1.3e9 < cap < 6 * 1.3e9 + 9.8e8 + 1.1e8
    off = tasks.balance(p, memory_cap=cap, economy=False)
    on = tasks.balance(p, memory_cap=cap)
    assert on.max_work == off.max_work == heaviest
    assert on.stats["n_tasks_moved"] < LBAF_REAL[1] / 10  # 1,581 (18,771 without the pass)
    assert off.stats["n_tasks_moved"] > 10 * on.stats["n_tasks_moved"]
