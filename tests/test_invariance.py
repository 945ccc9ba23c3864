"""Metamorphic checks of the exact methods: relabelling the input in a way that cannot change
the optimum leaves the optimal value unchanged (ties, zeros and degenerate sizes included).
Spatial: mirrored rows or columns (and the transpose where the method has no orientation);
tasks: ranks and tasks renumbered; dynamic: the PUs in another order."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import wpart
import wpart.dynamic as D
import wpart.spatial as sp
import wpart.tasks as T


def _matrix(rng):
    n1, n2 = (int(v) for v in rng.integers(1, 8, 2))
    kind = int(rng.integers(0, 4))
    if kind == 0:
        A = rng.integers(0, 10, (n1, n2))
    elif kind == 1:  # sparse-ish, many ties
        A = rng.integers(0, 3, (n1, n2)) * rng.integers(0, 2, (n1, n2))
    elif kind == 2:  # constant (zeros included)
        A = np.full((n1, n2), int(rng.integers(0, 4)))
    else:
        A = rng.random((n1, n2)).round(2)
    return A


# method -> the relabellings that keep its optimum
_SPATIAL = {"jag_m_opt": ("rows", "cols"), "jag_pq_opt_dp": ("rows", "cols"),
            "jag_pq_opt_nicol": ("rows", "cols"), "hier_opt": ("rows", "cols", "T")}


@pytest.mark.parametrize("method", sorted(_SPATIAL))
def test_spatial_optimum_is_the_same_on_the_mirrored_matrix(method):
    rng = np.random.default_rng(sorted(_SPATIAL).index(method))
    f = getattr(sp, method)
    checked = 0
    for _ in range(150):
        A = _matrix(rng)
        n1, n2 = A.shape
        m = int(rng.integers(1, min(n1 * n2, 8) + 1))
        kw = {}
        if method.startswith("jag_pq"):
            ps = [p for p in range(1, m + 1) if m % p == 0 and p <= n1 and m // p <= n2]
            if not ps:
                continue
            P = int(rng.choice(ps))
            kw = {"P": P, "Q": m // P}
        ref = f(A, m, **kw).max_load
        views = {"rows": A[::-1, :], "cols": A[:, ::-1], "T": A.T}
        for name in _SPATIAL[method]:
            got = f(np.ascontiguousarray(views[name]), m, **kw).max_load
            assert got == pytest.approx(ref, rel=1e-12, abs=1e-12), (name, A.tolist(), m, kw)
        checked += 1
    assert checked >= 100


def _renumbered(p, rank_perm=None, task_perm=None):
    """The same tasks problem with rank r called rank_perm[r] and task i moved to the place
    where task_perm lists it."""
    kw = {f.name: getattr(p, f.name) for f in dataclasses.fields(p)}
    if rank_perm is not None:
        inv = np.argsort(rank_perm)
        for name in ("block_home", "initial"):
            if kw[name] is not None:
                kw[name] = rank_perm[kw[name]].astype(kw[name].dtype)
        for name in ("rank_baseline", "rank_mem_cap", "rank_alpha", "rank_node"):
            if kw[name] is not None:
                kw[name] = kw[name][inv]
    if task_perm is not None:
        inv = np.argsort(task_perm)
        for name in ("task_load", "task_block", "task_footprint", "task_working", "initial",
                     "task_ids", "migratable"):
            if kw[name] is not None:
                kw[name] = kw[name][task_perm]
        if kw["edges"] is not None:
            kw["edges"] = inv[kw["edges"]].astype(kw["edges"].dtype)
    return T.Problem(**kw)


def test_tasks_optimum_is_the_same_with_ranks_and_tasks_renumbered():
    rng = np.random.default_rng(11)
    for _ in range(40):
        m, nt = int(rng.integers(1, 4)), int(rng.integers(1, 6))
        nb, ne = int(rng.integers(1, nt + 1)), int(rng.integers(0, 5))
        p = T.random_problem(m, nt, nb, ne, seed=int(rng.integers(1 << 30)))
        kw = {f.name: getattr(p, f.name) for f in dataclasses.fields(p)}
        if rng.random() < 0.5:
            kw["task_load"] = np.round(kw["task_load"])  # ties
        if rng.random() < 0.4:
            kw["rank_alpha"] = rng.integers(1, 3, m).astype(float)
        if rng.random() < 0.4:
            kw["rank_baseline"] = rng.integers(0, 3, m).astype(float)
        if rng.random() < 0.3:
            kw["migratable"] = rng.random(nt) < 0.7
        p = T.Problem(**kw)
        co = {"beta": float(rng.choice([0.0, 0.5, 1.0])), "gamma": float(rng.choice([0.0, 0.1])),
              "delta": float(rng.choice([0.0, 0.01]))}
        ref = T.brute_force(p, **co).max_load
        for q in (_renumbered(p, rank_perm=rng.permutation(m)),
                  _renumbered(p, task_perm=rng.permutation(nt))):
            assert T.brute_force(q, **co).max_load == pytest.approx(ref, rel=1e-9, abs=1e-12)
            s = T.solve_milp(q, **co, time_limit=30)
            assert s.status == "optimal"
            assert s.max_load == pytest.approx(ref, rel=1e-6, abs=1e-9)


def test_dynamic_equal_finish_is_the_same_with_the_pus_reordered():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        m = int(rng.integers(1, 6))
        curves = []
        for _ in range(m):
            k = int(rng.integers(0, 3))
            if k == 0:  # integer times: ties
                curves.append(D.Affine(float(rng.integers(0, 5)), float(rng.integers(1, 6))))
            elif k == 1:
                curves.append(D.Affine(float(rng.random() * 3), float(rng.random() * 4 + 0.1)))
            else:
                curves.append(D.Power(float(rng.random()), float(rng.random() + 0.1),
                                      float(rng.choice([1.0, 1.5, 2.0]))))
        total, q = int(rng.integers(0, 200)), int(rng.integers(1, 5))
        try:
            a = D.equal_finish(curves, total, quantum=q)
        except wpart.WpartError:
            continue
        perm = rng.permutation(m)
        b = D.equal_finish([curves[i] for i in perm], total, quantum=q)
        assert b.status == a.status
        assert b.time == pytest.approx(a.time, rel=1e-9, abs=1e-12)
        checked += 1
    assert checked >= 250
