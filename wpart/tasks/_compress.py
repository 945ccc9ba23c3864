"""Far more ranks than tasks: solve on the ranks that can matter, map the answer back.

With ``m`` ranks, ``K`` tasks and ``U`` ranks that hold something at the start (a task of the
initial assignment or the home of a block), every assignment of the ``m``-rank problem has
the same ``W`` profile, up to renaming empty ranks, as one that uses only those ``U`` ranks
plus at most ``K`` of the others, as long as the others are interchangeable (no per-rank
speed, baseline memory or memory cap tells them apart). Ranks that stay empty have ``W = 0``
and never set ``W_max``. A balancer then runs on ``U + K`` ranks instead of ``m`` (no gossip
over a million ranks for three tasks) and its assignment is mapped back; the per-rank arrays
of the result are of size ``m``, filled in bulk.

This only happens when ``m > 2 (U + K)`` and ``m > 4096`` (:data:`MIN_RANKS`), so results of
ordinary sizes are exactly those of the balancer on the full problem.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ._problem import Problem
from ._results import TasksResult, replace_fields

#: Smallest rank count at which a balancer may run on the compressed rank set.
MIN_RANKS = 4096


def _uniform(a: np.ndarray | None, keep: np.ndarray) -> bool:
    """True when `a` (per rank, or None) is the same on every rank outside `keep`."""
    if a is None:
        return True
    rest = np.delete(a, keep)
    return rest.size == 0 or bool(np.all(rest == rest[0]))


def _row_classes(columns: list) -> np.ndarray:
    """The class of each row of the columns' values, numbered in the lexicographic order of
    the distinct rows (what ``np.unique(np.stack(columns, 1), axis=0, return_inverse=True)``
    gives), by one 1-D factorisation per column: O(n log n) sorts of numbers, where the 2-D
    unique sorts n rows as records (0.89 s instead of 0.27 s CPU for two columns at 2**20
    ranks)."""
    code = np.zeros(columns[0].size, dtype=np.int64)
    for col in columns:
        values, col_code = np.unique(col, return_inverse=True)
        # codes stay below n after each step, so code * len(values) < n^2 fits in int64
        _, code = np.unique(code * values.size + col_code.reshape(-1), return_inverse=True)
        code = code.reshape(-1)
    return code


def compress(problem: Problem, cap: Any) -> tuple | None:
    """The problem on the ranks that can matter: ``(sub_problem, sub_cap, ranks, classes)``
    with ``ranks[j]`` the original rank of the sub-problem's rank ``j`` and `classes` None
    (interchangeable empty ranks) or ``(label per rank, class per sub-rank)`` of the empty
    ranks grouped by their per-rank values; None when the problem is solved as is (small
    ``m``, or too many distinct empty ranks)."""
    m, K = problem.m, problem.n_tasks
    if m <= MIN_RANKS:
        return None
    used = np.unique(np.concatenate([np.asarray(problem.initial, np.int64),
                                     np.asarray(problem.block_home, np.int64)]))
    if m <= 2 * (used.size + K):
        return None
    per_rank = [a for a in (problem.rank_baseline, cap, problem.rank_alpha) if a is not None]
    classes = None
    if all(_uniform(a, used) for a in per_rank):
        # the first K + 1 ranks outside `used` (one of them stays empty: the template of the
        # ranks left out)
        free = np.arange(K + 1 + used.size, dtype=np.int64)
        free = free[~np.isin(free, used)][:K + 1]
    else:
        # empty ranks told apart by their (baseline, cap, alpha): K + 1 of every class
        idx = np.flatnonzero(~np.isin(np.arange(m), used))
        inv = _row_classes([np.asarray(a, np.float64)[idx] for a in per_rank])
        n_cls = int(inv.max()) + 1
        if m <= 2 * (used.size + n_cls * (K + 1)):
            return None
        order = np.argsort(inv, kind="stable")
        starts = np.searchsorted(inv[order], np.arange(n_cls))
        take = np.sort(order[np.arange(order.size) - starts[inv[order]] < K + 1])
        free = idx[take]
        label = np.full(m, -1, dtype=np.int64)
        label[idx] = inv
        classes = (label, np.concatenate([np.full(used.size, -1, np.int64), inv[take]]))
    ranks = np.concatenate([used, free])
    pick = lambda a: None if a is None else np.asarray(a)[ranks]
    bh = problem.block_home
    sub = Problem(
        problem.task_load, int(ranks.size),
        task_block=problem.task_block,
        block_size=problem.block_size if problem.task_block is not None else None,
        block_home=np.searchsorted(used, bh) if problem.task_block is not None else None,
        edges=problem.edges, edge_bytes=problem.edge_bytes,
        task_footprint=problem.task_footprint, task_working=problem.task_working,
        rank_baseline=pick(problem.rank_baseline), rank_mem_cap=pick(cap),
        rank_alpha=pick(problem.rank_alpha),
        initial=np.searchsorted(used, problem.initial), task_ids=problem.task_ids,
        block_ids=problem.block_ids, meta=problem.meta, migratable=problem.migratable)
    return sub, pick(cap), ranks, classes


def expand(problem: Problem, r: TasksResult, ranks: np.ndarray,
           classes: tuple | None = None) -> TasksResult:
    """The result `r` of the compressed problem as a result of `problem`: the assignment
    mapped back, per-rank arrays of size ``m`` filled in bulk (every rank left out is empty,
    like an empty sub-problem rank of its class). The optimum of both problems is the same,
    so the lower bound of `r` holds. ``stats["compressed_ranks"]`` is the number of ranks
    solved on (rank ids inside ``stats`` refer to that set)."""
    m = problem.m
    sub_a = np.asarray(r.assignment, np.int64)
    if classes is None:
        spare = np.setdiff1d(np.arange(ranks.size - (problem.n_tasks + 1), ranks.size),
                             sub_a)[0]

        def full(x: np.ndarray) -> np.ndarray:
            fill = x[spare]
            # zeros: pages never written cost nothing (empty ranks: zeros in most arrays)
            out = (np.zeros(m, dtype=x.dtype) if fill == 0
                   else np.full(m, fill, dtype=x.dtype))
            out[ranks] = x
            return out
    else:
        label, sub_cls = classes
        empty = np.setdiff1d(np.flatnonzero(sub_cls >= 0), sub_a)
        cls_e, first = np.unique(sub_cls[empty], return_index=True)
        # a class without an empty member has all its ranks in the sub-problem
        template = np.zeros(int(sub_cls.max()) + 1, dtype=np.int64)
        template[cls_e] = empty[first]
        src = template[label]

        def full(x: np.ndarray) -> np.ndarray:
            out = x[src]
            out[ranks] = x
            return out

    work, load = full(r.work), full(r.load)
    mean = float(work.mean())
    lmean = float(load.mean())
    w = r.max_load
    return replace_fields(
        r, assignment=ranks[sub_a].astype(np.int32), work=work, load=load,
        memory=full(r.memory), vol_out=full(r.vol_out), vol_in=full(r.vol_in),
        vol_local=full(r.vol_local), homing=full(r.homing),
        n_blocks_off_home=full(r.n_blocks_off_home), initial_work=full(r.initial_work),
        mean_work=mean,
        imbalance=(math.inf if not math.isfinite(w) else w / mean - 1.0 if mean > 0 else 0.0),
        load_imbalance=(float(load.max()) / lmean - 1.0) if lmean > 0 else 0.0,
        stats=dict(r.stats, compressed_ranks=int(ranks.size)))


def _compressed(problem: Any, kw: dict) -> tuple | None:
    """``(full, sub, sub_kw, ranks, classes)`` when a call on `problem` with keywords `kw` runs
    on the compressed rank set (`full` carries the caller's ``initial``), else None."""
    if not isinstance(problem, Problem) or problem.m <= MIN_RANKS:
        return None
    cap = problem.caps(kw.get("memory_cap"))
    full = problem
    if kw.get("initial") is not None:
        full = problem.with_(initial=problem.assignment(kw["initial"], name="initial"))
    got = compress(full, cap)
    if got is None:
        return None
    sub, sub_cap, ranks, classes = got
    kw = dict(kw, memory_cap=sub_cap)
    kw.pop("initial", None)
    return full, sub, kw, ranks, classes


def bounded_ranks(fn: Callable[..., TasksResult]) -> Callable[..., TasksResult]:
    """Run `fn(problem, **kw)` on the compressed rank set when :func:`compress` applies."""

    @functools.wraps(fn)
    def wrapper(problem: Problem, **kw: Any) -> TasksResult:
        got = _compressed(problem, kw)
        if got is None:
            return fn(problem, **kw)
        full, sub, kw, ranks, classes = got
        return expand(full, fn(sub, **kw), ranks, classes)

    return wrapper


def bounded_protocol(fn: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`bounded_ranks` for :func:`wpart.tasks.run_protocol` (a ``ProtocolRun``: the
    assignments are mapped back, ``imbalance`` rescaled to the ``m`` ranks; rank ids in
    ``log`` refer to the compressed set, ``stats["compressed_ranks"]`` its size)."""

    @functools.wraps(fn)
    def wrapper(problem: Problem, **kw: Any) -> Any:
        got = None if kw.get("work_lists") is not None else _compressed(problem, kw)
        if got is None:
            return fn(problem, **kw)
        full, sub, kw, ranks, _ = got
        r = fn(sub, **kw)
        imb = r.imbalance
        if math.isfinite(imb) and r.max_load > 0:
            imb = (imb + 1.0) * full.m / ranks.size - 1.0
        return replace_fields(
            r, assignment=ranks[np.asarray(r.assignment, np.int64)].astype(np.int32),
            initial=np.array(full.initial, dtype=np.int32), imbalance=imb,
            stats=dict(r.stats, compressed_ranks=int(ranks.size)))

    return wrapper
