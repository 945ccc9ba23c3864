"""The CCM work model in C: golden values, oracle agreement, exact incremental deltas."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from oracles.tasks import work_model

from wpart import _core, tasks

SB = tasks.synthetic_blocks


def test_synthetic_blocks_initial_table():
    # spec 1.9
    p = SB()
    d = p.evaluate(beta=1.0, gamma=0.5)
    np.testing.assert_allclose(d["load"], [2.5, 4.0, 1.5, 0.0])
    np.testing.assert_allclose(d["vol_out"], [3.5, 4.0, 1.5, 0.0])
    np.testing.assert_allclose(d["vol_in"], [2.0, 4.5, 2.5, 0.0])
    np.testing.assert_allclose(d["vol_local"], [1.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(d["memory"], [18, 18, 9, 0])
    np.testing.assert_allclose(d["work"], [6.5, 9.0, 4.0, 0.0])
    assert p.evaluate()["w_max"] == 4.0
    assert p.evaluate(beta=1.0)["w_max"] == 8.5
    assert SB(variant="alpha0").evaluate(alpha=1, beta=1.0)["w_max"] == 4.5


def test_fixed_assignments():
    p = SB()
    a = [0, 0, 1, 1, 0, 2, 1, 3, 3]
    assert p.evaluate(assignment=a)["w_max"] == 2.0
    assert p.evaluate(assignment=a, beta=1.0)["w_max"] == 4.5
    a0 = [3, 2, 3, 3, 2, 3, 3, 3, 3]
    assert SB(variant="alpha0").evaluate(assignment=a0, beta=1.0)["w_max"] == 0.0


@pytest.mark.parametrize("seed", range(40))
def test_evaluate_matches_oracle(seed):
    rng = np.random.default_rng(seed)
    p = tasks.random_problem(int(rng.integers(1, 5)), int(rng.integers(1, 12)),
                             int(rng.integers(0, 5)), int(rng.integers(0, 15)), seed=seed,
                             memory=bool(seed % 2), rank_alpha=seed % 5 == 0)
    co = dict(alpha=float(rng.integers(0, 2)), beta=float(rng.uniform(0, 2)),
              gamma=float(rng.uniform(0, 1)), delta=float(rng.uniform(0, 1)))
    cap = rng.uniform(0, 30, size=p.m) if seed % 3 == 0 else None
    for _ in range(5):
        a = rng.integers(0, p.m, size=p.n_tasks)
        d = p.evaluate(assignment=a, memory_cap=cap, **co)
        o = work_model(p, a, cap=cap, **co)
        for k in ("load", "vol_out", "vol_in", "vol_local", "homing", "memory", "work"):
            np.testing.assert_allclose(d[k], o[k], rtol=1e-12, atol=1e-12, err_msg=k)
        assert d["w_max"] == pytest.approx(o["w_max"], rel=1e-12, abs=1e-12) or (
            math.isinf(d["w_max"]) and math.isinf(o["w_max"]))


def _random_exchanges(p, rng, n):
    a = p.initial.copy().astype(np.int64)
    r1s, r2s, gp, gi, tp, ti = [], [], [0], [], [0], []
    for _ in range(n):
        r1, r2 = rng.choice(p.m, size=2, replace=False)
        on1 = np.flatnonzero(a == r1)
        on2 = np.flatnonzero(a == r2)
        g = on1[rng.random(on1.size) < rng.random()] if on1.size else on1
        t = on2[rng.random(on2.size) < rng.random() * (rng.random() < 0.6)] if on2.size else on2
        a[g] = r2
        a[t] = r1
        r1s.append(r1)
        r2s.append(r2)
        gi.extend(g.tolist())
        ti.extend(t.tolist())
        gp.append(len(gi))
        tp.append(len(ti))
    i32 = lambda x: np.array(x, dtype=np.int32)
    i64 = lambda x: np.array(x, dtype=np.int64)
    return i32(r1s), i32(r2s), i64(gp), i32(gi), i64(tp), i32(ti)


@pytest.mark.parametrize("seed", range(30))
def test_incremental_deltas_equal_recomputation(seed):
    """Thousands of random moves and swaps (30 x 100): deltas == full recomputation."""
    rng = np.random.default_rng(1000 + seed)
    p = tasks.random_problem(int(rng.integers(2, 6)), int(rng.integers(2, 25)),
                             int(rng.integers(0, 6)), int(rng.integers(0, 40)), seed=seed,
                             memory=bool(seed % 2), rank_alpha=seed % 4 == 0)
    co = (1.0, float(rng.uniform(0, 2)), float(rng.uniform(0, 1)), float(rng.uniform(0, 1)), True)
    cap = np.full(p.m, 25.0) if seed % 3 == 0 else None
    ex = _random_exchanges(p, rng, 100)
    d = p._dict(cap)
    pred, works, fin = _core.tasks_exchanges(d, co, p.initial, *ex)
    # replay with full recomputation
    a = p.initial.copy()
    r1s, r2s, gp, gi, tp, ti = ex
    for i in range(len(r1s)):
        a[gi[gp[i]:gp[i + 1]]] = r2s[i]
        a[ti[tp[i]:tp[i + 1]]] = r1s[i]
        _, full = _core.tasks_evaluate(d, co, a)
        np.testing.assert_allclose(works[i], full["work"], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(pred[i], full["work"][[r1s[i], r2s[i]]], rtol=1e-9, atol=1e-9)
        if i > 0:  # third ranks are bit-identical
            others = np.setdiff1d(np.arange(p.m), [r1s[i], r2s[i]])
            assert np.array_equal(works[i][others], works[i - 1][others])
    assert np.array_equal(fin, a)


def test_exchange_rejects_bad_moves():
    p = SB()
    d = p._dict()
    co = (1.0, 0.0, 0.0, 0.0, True)
    i32 = lambda x: np.array(x, dtype=np.int32)
    i64 = lambda x: np.array(x, dtype=np.int64)
    with pytest.raises(ValueError, match="not on rank"):  # task 4 is on rank 1
        _core.tasks_exchanges(d, co, p.initial, i32([0]), i32([1]), i64([0, 1]), i32([4]),
                              i64([0, 0]), i32([]))
    with pytest.raises(ValueError, match="distinct"):
        _core.tasks_exchanges(d, co, p.initial, i32([0]), i32([0]), i64([0, 0]), i32([]),
                              i64([0, 0]), i32([]))
    with pytest.raises(ValueError, match="listed twice"):
        _core.tasks_exchanges(d, co, p.initial, i32([0]), i32([1]), i64([0, 2]), i32([0, 0]),
                              i64([0, 0]), i32([]))


def test_invariants_and_monotonicity(rng):
    p = tasks.random_problem(4, 30, 5, 60, seed=7, memory=True)
    a = rng.integers(0, 4, size=30)
    d = p.evaluate(assignment=a, beta=1.0, gamma=1.0)
    assert d["load"].sum() == pytest.approx(p.task_load.sum())
    assert d["vol_out"].sum() == pytest.approx(d["vol_in"].sum())
    assert d["vol_out"].sum() + d["vol_local"].sum() == pytest.approx(p.edge_bytes.sum())
    base = p.evaluate(assignment=a, beta=0.5, gamma=0.5, delta=0.5)["work"]
    for k in ("beta", "gamma", "delta"):
        kw = dict(beta=0.5, gamma=0.5, delta=0.5)
        kw[k] = 1.0
        assert np.all(p.evaluate(assignment=a, **kw)["work"] >= base)


def test_empty_rank_zero_and_self_edges():
    p = tasks.Problem(task_load=[1.0, 2.0], m=3, edges=[(0, 0), (0, 1)],
                      edge_bytes=[5.0, 1.0], initial=[0, 1])
    d = p.evaluate(beta=1.0, gamma=1.0)
    assert d["work"][2] == 0.0
    assert d["vol_local"][0] == 5.0
    assert p.evaluate(assignment=[2, 2], gamma=1.0)["vol_local"][2] == 6.0


@pytest.mark.parametrize("kw,match", [
    (dict(task_load=[1.0, np.nan]), "task_load"),
    (dict(task_load=[1.0, -1.0]), "task_load"),
    (dict(task_load=[1.0, np.inf]), "task_load"),
    (dict(task_load=[]), "empty"),
    (dict(task_load=["a"]), "task_load"),
    (dict(task_load=[1.0, 1.0], m=0), "`m`"),
    (dict(task_load=[1.0, 1.0], task_block=[0, 5], block_size=[1.0], block_home=[0]),
     "task_block"),
    (dict(task_load=[1.0, 1.0], task_block=[0, 0], block_size=[1.0], block_home=[7]),
     "block_home"),
    (dict(task_load=[1.0, 1.0], task_block=[0, 0], block_size=[1.0]), "block_home"),
    (dict(task_load=[1.0, 1.0], edges=[(0, 2)], edge_bytes=[1.0]), "edges"),
    (dict(task_load=[1.0, 1.0], edges=[(0, 1)], edge_bytes=[-1.0]), "edge_bytes"),
    (dict(task_load=[1.0, 1.0], edges=[(0, 1)]), "edge_bytes"),
    (dict(task_load=[1.0, 1.0], edges=[0, 1], edge_bytes=[1.0]), "edges"),
    (dict(task_load=[1.0, 1.0], initial=[0, 3]), "initial"),
    (dict(task_load=[1.0, 1.0], initial=[0.0, 1.0]), "initial"),
    (dict(task_load=[1.0, 1.0], rank_mem_cap=[1.0]), "rank_mem_cap"),
    (dict(task_load=[1.0, 1.0], rank_alpha=[1.0, np.inf]), "rank_alpha"),
])
def test_bad_problem(kw, match):
    kw = {"m": 2, **kw}
    with pytest.raises((ValueError, TypeError), match=match):
        tasks.Problem(**kw)


def test_bad_coefficients_and_assignment():
    p = SB()
    with pytest.raises(ValueError, match="beta"):
        p.evaluate(beta=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        p.evaluate(alpha=np.nan)
    with pytest.raises(TypeError, match="gamma"):
        p.evaluate(gamma="x")
    with pytest.raises(ValueError, match="assignment"):
        p.evaluate(assignment=[0] * 8)
    with pytest.raises(ValueError, match="assignment"):
        p.evaluate(assignment=[0] * 8 + [4])
    with pytest.raises(ValueError, match="memory_cap"):
        p.evaluate(memory_cap=-1.0)
    load = np.array([1.0, 2.0])
    q = tasks.Problem(task_load=load, m=2)
    load[0] = 5.0  # the problem keeps its own copy
    assert q.task_load[0] == 1.0


def test_memory_cap_gives_inf():
    p = SB()
    assert math.isinf(p.evaluate(memory_cap=9.0)["w_max"])
    assert p.evaluate(memory_cap=18.0)["w_max"] == 4.0


def test_rank_alpha():
    p = SB(variant="bad_rank0")
    assert p.evaluate()["work"][0] == 250.0
