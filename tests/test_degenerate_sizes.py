"""More parts than work: answered without per-part work, and an absurd `m` is refused at once.

Policy (documented in :func:`wpart.partition_1d` and :func:`wpart._validate.as_parts`): a part
count may exceed the number of items only up to ``2**24``
(:data:`wpart._validate.MAX_EXTRA_PARTS`), since results hold one entry per part; beyond it a
:class:`wpart.WpartValueError` naming `m` comes back before anything is allocated. Below the cap,
:func:`wpart.partition_1d` without speeds solves ``n`` parts in O(n) and pads the rest as empty
parts in bulk.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import wpart
import wpart.spatial as sp
import wpart.tasks as wt
from wpart._base import TABLE_1D

HUGE = 10**12


#: A hang guard, not a timing target (those live in benchmarks/): the O(n) answer is proven
#: by the results themselves (``parts_solved``, ``compressed_ranks``, sizes of the arrays); the
#: guard only stops a run that went back to O(m) loops over 2**24 parts from passing slowly.
#: ``limit`` is each case's time here on an idle machine times 20, at least 60 s (CI runs the
#: suite under ASan too, several times slower).
def _fast(call, limit=1.0):
    t0 = time.perf_counter()
    out = call()
    dt = time.perf_counter() - t0
    assert dt < max(60.0, 20 * limit), f"took {dt:.2f} s"
    return out


def _refused(call):
    t0 = time.perf_counter()
    with pytest.raises(wpart.WpartValueError) as info:
        call()
    assert time.perf_counter() - t0 < 30  # refused before anything of size m exists
    assert "`m`" in str(info.value) and str(HUGE) in str(info.value)


@pytest.mark.parametrize("method", TABLE_1D.names)
def test_partition_1d_many_empty_parts_is_fast(method):
    r = _fast(lambda: wpart.partition_1d([1, 2, 3], 2**24, method=method), limit=3.0)
    assert r.m == 2**24 and r.separators.shape == (2**24 + 1,) and r.loads.shape == (2**24,)
    assert r.max_load == 3 and r.loads.sum() == 6 and r.separators[-1] == 3
    assert (r.separators[4:] == 3).all() and r.success


@pytest.mark.parametrize("method", ["nicol", "bisect", "dp"])
def test_partition_1d_exact_methods_unchanged_beyond_n(method):
    # the padded answer equals the partition into n parts plus empty parts
    rng = np.random.default_rng(7)
    for it in range(300):
        n = int(rng.integers(1, 9))
        m = n + int(rng.integers(1, 6))
        a = (rng.integers(0, 5, n).astype(np.int64) if it % 2
             else rng.random(n) * (rng.random(n) < 0.7))
        r = wpart.partition_1d(a, m, method=method)
        q = wpart.partition_1d(a, n, method=method, normalize=False)
        assert r.separators.tolist() == q.separators.tolist() + [n] * (m - n)
        assert r.max_load == q.max_load == pytest.approx(a.max(), rel=1e-12)
        assert r.status == "optimal" and abs(r.gap) < 1e-12


def test_partition_1d_speeds_beyond_n_still_solved():
    r = wpart.partition_1d([4, 1, 1], 5, speeds=[1, 1, 4, 1, 1])
    assert r.m == 5 and r.separators.shape == (6,)
    assert r.max_load == pytest.approx(1.0)


def test_huge_m_refused_at_once():
    _refused(lambda: wpart.partition_1d([1, 2, 3], HUGE))
    _refused(lambda: wpart.partition_1d([1.0], HUGE, method="dp"))
    _refused(lambda: wpart.probe_1d([1, 2, 3], HUGE, 3))
    _refused(lambda: sp.partition(np.ones((1, 1)), HUGE, allow_empty=True))
    _refused(lambda: sp.partition(np.ones((4, 4)), HUGE, method="hier_rb", allow_empty=True))
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        wt.Problem(task_load=[1.0, 2.0, 3.0], m=HUGE)


def test_m_at_the_cap_is_accepted_beyond_refused():
    cap = 2**24
    assert wpart.partition_1d([1], cap).m == cap
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        wpart.partition_1d([1], cap + 1)
    # as many parts as items is always fine, however many
    assert wpart.partition_1d(np.ones(10), 10).max_load == 1


# ------------------------------------------------------------------ tasks: m >> tasks
_TASK_RUNS = [("ccm", {}), ("ccm", {"backend": "ranks"}), ("ccm", {"backend": "event"}),
              ("tempered", {}), ("greedy", {}), ("none", {}), ("brute_force", {})]


def _tasks_problem(m):
    return wt.Problem(task_load=[1.0, 2.0, 3.0, 0.5], m=m, task_block=[0, 0, 1, -1],
                      block_size=[10.0, 20.0], block_home=[5, m - 1],
                      edges=[[0, 2], [3, 1]], edge_bytes=[4.0, 1.0], initial=[5, 5, m - 1, 7])


@pytest.mark.parametrize("method,kw", _TASK_RUNS)
def test_tasks_many_ranks_is_fast_and_valid(method, kw):
    m = 2**20
    p = _tasks_problem(m)
    coef = dict(alpha=1.0, beta=0.1, gamma=0.01, delta=0.05)
    r = _fast(lambda: wt.balance(p, method=method, **coef, **kw), limit=5.0)
    assert r.stats["compressed_ranks"] < 20 and r.work.shape == (m,)
    ref = wt.evaluate(p, assignment=r.assignment, **coef)  # independent evaluation
    for f in ("work", "load", "memory", "vol_out", "vol_in", "vol_local", "homing",
              "n_blocks_off_home", "initial_work"):
        assert np.array_equal(getattr(r, f), getattr(ref, f)), f
    assert r.max_load == ref.max_load and r.success
    assert r.max_load <= r.initial_max_load + 1e-12


def test_tasks_many_ranks_exact_methods_agree():
    p = _tasks_problem(2**20)
    # the same instance on fewer ranks, the same optimum: ranks 5, 7 and m - 1 hold the
    # homes and the initial tasks, the other nine are interchangeable and more than the four
    # tasks (brute force on 12 ranks: 3 ms; on 64: 12 s)
    small = _tasks_problem(12)
    bf = _fast(lambda: wt.brute_force(p, beta=0.1, delta=0.05), limit=5.0)
    assert bf.status == "optimal"
    assert bf.max_load == pytest.approx(wt.brute_force(small, beta=0.1, delta=0.05).max_load)
    mi = _fast(lambda: wt.solve_milp(p, beta=0.1, delta=0.05), limit=10.0)
    assert mi.max_load == pytest.approx(bf.max_load, rel=1e-6)


def test_tasks_ordinary_sizes_not_compressed():
    p = wt.Problem(task_load=[1.0, 2.0, 3.0], m=4096)
    assert "compressed_ranks" not in wt.balance(p).stats
    assert wt.Problem(task_load=[1.0], m=2**24).m == 2**24
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        wt.Problem(task_load=[1.0, 2.0, 3.0], m=2**24 + 1)


def test_dynamic_static_equal_many_pus_is_bulk():
    import wpart.dynamic as dyn

    s = _fast(lambda: dyn.StaticEqual(2**22, 10), limit=1.0)
    b = s._args[0]
    assert b.shape == (2**22,) and b.sum() == 10 and (b[:10] == 1).all() and (b[10:] == 0).all()
    assert dyn.StaticEqual(5, 12)._args[0].tolist() == [3, 3, 2, 2, 2]


# ------------------------------------------------------------------ spatial: m >> cells
_PADDED = ["hier_rb", "hier_relaxed", "hier_opt", "jag_m_heur", "jag_m_heur_probe"]


@pytest.mark.parametrize("method", _PADDED)
def test_spatial_many_empty_parts_is_fast(method):
    r = _fast(lambda: sp.partition(np.ones((1, 1)), 2**24, method=method, allow_empty=True),
              limit=1.5)
    assert r.m == 2**24 and r.rects.shape == (2**24, 4) and r.max_load == 1
    assert r.loads.sum() == 1 and r.params["parts_solved"] == 1


@pytest.mark.parametrize("method", _PADDED + ["jag_m_opt"])
def test_spatial_padded_results_valid(method):
    rng = np.random.default_rng(3)
    for _ in range(5):
        A = rng.integers(0, 9, (int(rng.integers(1, 4)), int(rng.integers(1, 4))))
        m = A.size + int(rng.integers(1, 7))
        r = sp.partition(A, m, method=method, allow_empty=True)
        r.validate()  # tiling, loads, bounds checked independently
        assert r.rects.shape == (m, 4) and r.max_load == A.max()
        # ordinary sizes are not padded
        assert "parts_solved" not in sp.partition(A, A.size, method=method).params


@pytest.mark.parametrize("method", ["ccm", "greedy", "brute_force"])
def test_tasks_many_heterogeneous_ranks(method):
    # empty ranks of a few kinds (speed factor, memory cap): K + 1 of every kind are kept
    m = 2**20
    alpha = np.where(np.arange(m) % 3 == 0, 1.0, 0.5)
    cap = np.where(np.arange(m) % 2 == 0, 12.0, 7.0)
    p = wt.Problem(task_load=[1.0, 2.0, 3.0, 4.0], m=m, task_footprint=[5.0] * 4,
                   rank_mem_cap=cap, rank_alpha=alpha, initial=[0, 0, 2, 6])
    r = _fast(lambda: wt.balance(p, method=method), limit=10.0)
    assert r.stats["compressed_ranks"] < 40
    ref = wt.evaluate(p, assignment=r.assignment)
    for f in ("work", "load", "memory", "initial_work"):
        assert np.array_equal(getattr(r, f), getattr(ref, f)), f
    # the optimum on 24 ranks: four of each of the six kinds (speed x cap), as many as the
    # tasks, ranks 0, 2 and 6 of the initial placement among them (brute force 0.14 s; on
    # 60 ranks 12 s, the same 2.0)
    small = wt.Problem(task_load=[1.0, 2.0, 3.0, 4.0], m=24, task_footprint=[5.0] * 4,
                       rank_mem_cap=cap[:24], rank_alpha=alpha[:24], initial=[0, 0, 2, 6])
    assert r.max_load >= wt.brute_force(small).max_load == 2.0
    if method == "brute_force":
        assert r.max_load == 2.0 and r.status == "optimal"


_GRID = ["rect_uniform", "rect_nicol", "jag_pq_heur", "jag_pq_opt_nicol", "jag_pq_opt_dp"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", _GRID)
def test_spatial_grid_methods_many_empty_parts(method, monkeypatch):
    r = _fast(lambda: sp.partition(np.ones((1, 1)), 2**24, method=method, allow_empty=True),
              limit=1.5)
    assert r.rects.shape == (2**24, 4) and r.max_load == 1 and r.params["parts_solved"] == 1
    rng = np.random.default_rng(5)
    cases = []
    for _ in range(6):
        A = rng.integers(0, 9, (int(rng.integers(1, 4)), int(rng.integers(1, 5))))
        P, Q = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        if P * Q > A.size:
            r = sp.partition(A, P * Q, method=method, P=P, Q=Q, allow_empty=True)
            r.validate()
            assert r.rects.shape == (P * Q, 4)
            cases.append((A, P, Q, r.max_load))
    # exact grid methods: the same optimum as on the full P x Q grid
    import wpart.spatial._common as common

    monkeypatch.setattr(common, "_PAD_GRID", frozenset())
    for A, P, Q, best in cases:
        ref = sp.partition(A, P * Q, method=method, P=P, Q=Q, allow_empty=True)
        if method.startswith("jag_pq_opt"):
            assert best == ref.max_load


def test_dynamic_many_pus_simulate_is_linear():
    import wpart.dynamic as dyn

    m = 2**16
    dev = dyn.Device("cpu", "m0", dyn.Affine(0.0, 1.0))
    pl = _fast(lambda: dyn.Platform([dev] * m), limit=2.0)
    for make in (dyn.Greedy, dyn.StaticEqual, dyn.HDSS, dyn.PLBHAC):
        r = _fast(lambda: dyn.simulate(pl, make(m, 10)), limit=3.0)
        assert r.success and int(np.sum(r.elements)) == 10 and r.elements.shape == (m,)
        assert r.makespan > 0
    # one PU's time does not depend on the platform around it
    assert pl.true_time(m - 1, 10) == dyn.Platform([dev]).true_time(0, 10)


def test_tasks_run_protocol_many_ranks():
    p = wt.Problem(task_load=[1.0, 2.0, 3.0, 4.0], m=2**20, initial=[0, 0, 0, 9])
    r = _fast(lambda: wt.run_protocol(p, seed=1), limit=5.0)
    ref = wt.evaluate(p, assignment=r.assignment)
    assert r.max_load == ref.max_load == 4.0 and r.success
    assert r.imbalance == pytest.approx(ref.imbalance, rel=1e-12)
    assert r.initial.tolist() == [0, 0, 0, 9] and r.stats["compressed_ranks"] < 20


_PAD_DEFAULTED = ["hybrid", "jag_m_probe", "jag_m_alloc"]


@pytest.mark.parametrize("method", _PAD_DEFAULTED)
def test_spatial_defaulted_options_many_empty_parts(method, monkeypatch):
    # hybrid (m1/m1_min defaulted), jag_m_probe (stripe_cuts defaulted) and jag_m_alloc
    # (counts defaulted) solve on one part per cell and pad the rest in bulk
    r = _fast(lambda: sp.partition(np.ones((1, 1)), 2**24, method=method, allow_empty=True),
              limit=1.5)
    assert r.rects.shape == (2**24, 4) and r.max_load == 1 and r.params["parts_solved"] == 1
    rng = np.random.default_rng(11)
    cases = []
    for k in range(12):
        A = rng.integers(0, 9, (int(rng.integers(1, 4)), int(rng.integers(1, 4))))
        if k % 3 == 0:
            A = rng.random(A.shape)
        m = A.size + int(rng.integers(1, 15))
        r = sp.partition(A, m, method=method, allow_empty=True)
        r.validate()
        assert r.rects.shape == (m, 4) and r.params["parts_solved"] == A.size
        cases.append((A, m, r.max_load))
        # up to the number of cells nothing is padded
        assert "parts_solved" not in sp.partition(A, A.size, method=method).params
    A = np.arange(9).reshape(3, 3)
    cases.append((A, 20, sp.partition(A, 20, method=method, allow_empty=True).max_load))
    # equal speeds are padded, unequal ones keep the full run
    if method != "hybrid":
        s = np.full(20, 2.0)
        assert sp.partition(A, 20, method=method, allow_empty=True,
                            speeds=s).params["parts_solved"] == 9
        s = np.linspace(1.0, 2.0, 20)
        r = sp.partition(A, 20, method=method, allow_empty=True, speeds=s)
        r.validate()
        assert "parts_solved" not in r.params
    # against the unpadded run: the same max_load (jag_m_alloc: never worse; its unpadded
    # default counts come from the padded JAG-M-HEUR rectangles)
    import wpart.spatial._hybrid as hy
    import wpart.spatial._jag_m as jm

    monkeypatch.setattr(jm, "_m_cells", lambda pp, speeds=None: pp.m)
    monkeypatch.setattr(hy, "_m_cells", lambda pp, speeds=None: pp.m)
    for A, m, best in cases:
        ref = sp.partition(A, m, method=method, allow_empty=True)
        assert "parts_solved" not in ref.params
        if method == "jag_m_alloc":
            assert best <= ref.max_load
        else:
            assert best == ref.max_load


def test_spatial_explicit_m_options_keep_the_full_run():
    A = np.arange(4).reshape(2, 2)
    r = sp.jag_m_probe(A, 7, stripe_cuts=[0, 1, 2], allow_empty=True)
    r.validate()
    assert "parts_solved" not in r.params and r.rects.shape == (7, 4)
    r = sp.jag_m_alloc(A, 7, counts=[3, 4], allow_empty=True)
    r.validate()
    assert "parts_solved" not in r.params and r.params["counts"] == [3, 4]
    r = sp.hybrid(A, 7, m1=2, allow_empty=True)
    r.validate()
    assert "parts_solved" not in r.params and r.rects.shape == (7, 4)


def test_spatial_jag_m_iter_many_empty_parts(monkeypatch):
    # JAG-M-ITER iterates on one part per cell and pads the rest in bulk (was ~5 s on 1x1)
    r = _fast(lambda: sp.jag_m_iter(np.ones((1, 1)), 2**24, allow_empty=True), limit=1.5)
    assert r.rects.shape == (2**24, 4) and r.max_load == 1 and r.params["parts_solved"] == 1
    assert r.loads.sum() == 1
    import wpart.spatial._jag_m as jm

    rng = np.random.default_rng(5)
    cases = []
    for k in range(15):
        A = rng.integers(0, 9, (int(rng.integers(1, 5)), int(rng.integers(1, 5))))
        if k % 3 == 0:
            A = rng.random(A.shape)
        m = A.size + int(rng.integers(1, 15))
        r = sp.jag_m_iter(A, m, allow_empty=True)
        r.validate()
        assert r.rects.shape == (m, 4) and r.params["parts_solved"] == A.size
        cases.append((A, m, r.max_load))
        assert "parts_solved" not in sp.jag_m_iter(A, A.size).params
    # against the unpadded run: the same max_load
    monkeypatch.setattr(jm, "_m_cells", lambda pp, speeds=None: pp.m)
    for A, m, best in cases:
        ref = sp.jag_m_iter(A, m, allow_empty=True)
        assert "parts_solved" not in ref.params and best == ref.max_load


def test_rank_classes_equal_the_2d_unique():
    # the empty ranks' classes (tasks/_compress.py) by per-column factorisation: the same
    # numbering as np.unique over the rows, with ties, signed zeros and huge values
    from wpart.tasks._compress import _row_classes
    rng = np.random.default_rng(11)
    pool = np.array([0.0, -0.0, 1.5, 2.0, 7.0, 1e300])
    for _ in range(200):
        n, k = int(rng.integers(1, 60)), int(rng.integers(1, 4))
        cols = [rng.choice(pool, n) for _ in range(k)]
        _, inv = np.unique(np.stack(cols, 1), axis=0, return_inverse=True)
        assert np.array_equal(_row_classes(cols), inv.reshape(-1))
