"""``protocol="gather"`` and ``"auto"``: gather the phase on rank 0, run the serial C engine,
scatter the placement.

Measured (``benchmarks/bench_mpi.py``, part (5)): up to 64 ranks (140 tasks per rank) the
distributed rounds' critical path per iteration is a multiple of the serial C engine's CPU time
for the whole phase (4.7x at 16, 1.37x at 64), at 128 ranks 0.45x; so below
:data:`AUTO_ROUNDS_RANKS` ranks gathering pays whenever the whole phase fits one rank's
memory: every rank sends its records once (O(its tasks and edges) bytes), rank 0 balances
with the serial engine (``wpart.tasks.balance(..., backend="simulated")``, same options and
seed), then sends every rank the records of the tasks it holds now. ``"auto"`` gathers below
:data:`AUTO_ROUNDS_RANKS` ranks when the gathered phase fits :data:`GATHER_BUDGET` bytes on
rank 0 (estimated by :func:`gathered_bytes`), else runs the
distributed rounds.

The same code serves the in-process run (``balance(problem, backend="ranks",
protocol="gather")``: the result of the serial engine, with the schedule and the bytes of the
gather and the scatter) and MPI (:func:`gather_stage_mpi`), so both give the same placement.
"""

from __future__ import annotations

import pickle
import time
from typing import Any

import numpy as np

from ._rankdata import RankData, split_problem

__all__ = ["AUTO_ROUNDS_RANKS", "GATHER_BUDGET", "auto_protocol", "balance_gathered", "gather_stage_mpi",
           "gathered_bytes", "merge_ranks", "redistribute"]

#: Largest gathered phase (bytes, as estimated by :func:`gathered_bytes`) that
#: ``protocol="auto"`` gathers on rank 0: 2 GiB (466,018 tasks with 1,024 blocks and no edges
#: take about 0.1 GiB).
GATHER_BUDGET = 2 << 30

#: Bytes per task, per edge and per block that the gathered phase and the serial engine's
#: working copies take (records, the engine's cluster arrays and index), measured on
#: ``gemma_like`` instances with ``tracemalloc`` (about 2x the records' own bytes).
BYTES_PER_TASK, BYTES_PER_EDGE, BYTES_PER_BLOCK = 240, 120, 64


def gathered_bytes(n_tasks: int, n_edges: int, n_blocks: int) -> int:
    """Estimated memory of the gathered phase on rank 0 (records and engine)."""
    return int(BYTES_PER_TASK * n_tasks + BYTES_PER_EDGE * n_edges
               + BYTES_PER_BLOCK * n_blocks)


#: From this many ranks on, ``protocol="auto"`` runs the distributed rounds: their critical
#: path per iteration was 0.45x the serial engine's CPU time at 128 ranks and 1.37x at 64
#: (``benchmarks/bench_mpi.py`` part (5), 140 tasks per rank), with a lower W_max at both.
AUTO_ROUNDS_RANKS = 128


def auto_protocol(n_tasks: int, n_edges: int, n_blocks: int, budget: int | None = None,
                  n_ranks: int = 0) -> str:
    """The rule of ``protocol="auto"``: ``"rounds"`` from :data:`AUTO_ROUNDS_RANKS` ranks on
    or when the gathered phase does not fit `budget` bytes on rank 0 (default
    :data:`GATHER_BUDGET`), else ``"gather"``."""
    budget = GATHER_BUDGET if budget is None else budget
    if n_ranks >= AUTO_ROUNDS_RANKS:
        return "rounds"
    return "gather" if gathered_bytes(n_tasks, n_edges, n_blocks) <= budget else "rounds"


def _pickled(obj: Any) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


# ------------------------------------------------------------------ one phase from its ranks
def merge_ranks(datas: list, keys: list | None = None, explicit: list | None = None) -> tuple:
    """The :class:`~wpart.tasks.Problem` of the ranks' records (`datas` by rank) and the
    task gids in its task order: ``(problem, gids, caps)`` (``caps``: per-rank memory caps,
    None when none is set).

    The tasks are in the order of `keys` (per rank, aligned with each rank's ``gid``: the
    order keys of :mod:`wpart.tasks._mpi_order`; default: the task ids), the edges in edge-id
    order, the blocks by id: for records read from an LBDatafile set, the problem that
    :func:`wpart.tasks.read_lbdatafile` builds from the same files, in the same order (the
    serial engine breaks ties by task index: another order is another placement). A block's
    home is the first one given as ``home_rank`` (`explicit`: per rank, the blocks its file
    homes so), else that of the first rank listing it, as in the reader."""
    from ._problem import Problem

    P = len(datas)
    gid = np.concatenate([d.gid for d in datas]) if P else np.zeros(0, np.int64)
    key = (np.concatenate([np.asarray(k, np.int64) for k in keys]) if keys is not None and P
           else gid)
    o = np.argsort(key, kind="stable")
    gid = gid[o]
    cat = (lambda k: np.concatenate([getattr(d, k) for d in datas])[o])
    load, fp, wk, blk = cat("load"), cat("fp"), cat("wk"), cat("blk")
    init = np.concatenate([np.full(d.n_tasks, r, np.int32) for r, d in enumerate(datas)])[o]
    bids, bsz, bhm, given = {}, {}, {}, set()
    for r, d in enumerate(datas):
        ex = set() if explicit is None else set(np.asarray(explicit[r]).tolist())
        for b, s, h in zip(d.bid.tolist(), d.bsize.tolist(), d.bhome.tolist()):
            bsz.setdefault(b, s)
            if b not in bhm or (b in ex and b not in given):
                bhm[b] = h
            if b in ex:
                given.add(b)
    ub = np.array(sorted(bsz), np.int64)
    for i, b in enumerate(ub.tolist()):
        bids[b] = i
    tb = np.array([bids[b] if b >= 0 else -1 for b in blk.tolist()], np.int32)
    eid = np.concatenate([d.eid for d in datas]) if P else np.zeros(0, np.int64)
    ue, ie = np.unique(eid, return_index=True)
    es = np.concatenate([d.esrc for d in datas])[ie]
    ed = np.concatenate([d.edst for d in datas])[ie]
    eb = np.concatenate([d.ebytes for d in datas])[ie]
    edges = np.stack([_index_of(gid, es), _index_of(gid, ed)], 1).astype(np.int32) \
        if ue.size else None
    pinned = np.concatenate([d.pinned for d in datas]) if P else np.zeros(0, np.int64)
    mig = ~np.isin(gid, pinned) if pinned.size else None
    caps = np.array([d.cap for d in datas], float)
    alpha = np.array([d.alpha for d in datas], float)
    base = np.array([d.baseline for d in datas], float)
    prob = Problem(
        task_load=load, m=P, initial=init, task_ids=gid,
        task_block=tb if (tb >= 0).any() else None,
        block_size=np.array([bsz[b] for b in ub.tolist()], float) if ub.size else None,
        block_home=np.array([bhm[b] for b in ub.tolist()], np.int32) if ub.size else None,
        block_ids=ub if ub.size else None,
        edges=edges, edge_bytes=eb if ue.size else None,
        task_footprint=fp if fp.any() else None, task_working=wk if wk.any() else None,
        rank_baseline=base if base.any() else None,
        rank_alpha=None if np.isnan(alpha).all() else np.where(np.isnan(alpha), 1.0, alpha),
        migratable=mig)
    return prob, gid, (None if np.isinf(caps).all() else caps)


def _index_of(gids: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The index in `gids` (distinct, any order) of each id of `x` (all present)."""
    o = np.argsort(gids, kind="stable")
    return o[np.searchsorted(gids[o], x)] if x.size else np.zeros(0, np.int64)


def redistribute(datas: list, gids: np.ndarray, assignment: np.ndarray) -> list:
    """The ranks' records after `assignment` (rank of each task, in the order of `gids`):
    the tasks that move are extracted from their rank and inserted at their new one (edges,
    blocks, entities and pins move with them, as in an exchange). `datas` is changed."""
    out = [d for d in datas]
    pos = {}
    for r, d in enumerate(datas):
        new = assignment[_index_of(gids, d.gid)] if d.n_tasks else np.zeros(0, np.int32)
        pos[r] = new
    moving = []
    for r, d in enumerate(datas):
        new = pos[r]
        groups = [(q, d.gid[new == q].copy()) for q in np.unique(new[new != r]).tolist()]
        for q, g in groups:
            moving.append((q, d.extract(g, to=q)))
    for q, recs in moving:
        out[q].insert(recs)
    return out


# ------------------------------------------------------------------ in-process
def balance_gathered(problem, call: dict, proto: str):
    """``balance(problem, backend="ranks", protocol="gather" | "auto")`` with the arguments
    `call` of that call: the serial engine on the whole phase, with ``stats["schedule"]``
    (``serial_s`` = ``critical_path_s`` = the engine's CPU seconds, per iteration, plus the
    rounds of the gather and scatter) and ``stats["bytes_per_rank"]`` (the gather's and the
    scatter's bytes sent by each rank, per iteration)."""
    from ._balance import balance

    kw = dict(call)
    kw.pop("protocol", None)
    kw.pop("problem", None)
    asked = proto
    if proto == "auto":
        E = problem.n_edges if problem.edges is not None else 0
        proto = auto_protocol(problem.n_tasks, E, problem.n_blocks, n_ranks=problem.m)
        if proto == "rounds":
            res = balance(problem, **kw, protocol="rounds")
            res.stats["protocol_asked"] = asked
            return res
    kw["backend"] = "simulated"
    c0 = time.process_time()
    res = balance(problem, **kw)
    cpu = time.process_time() - c0
    n_it = max(1, int(kw.get("n_iter", 4)))
    a0 = problem.assignment(kw.get("initial"), name="initial")
    cap = problem.caps(kw.get("memory_cap"))
    before = split_problem(problem, a0, cap)
    after = split_problem(problem, res.assignment, cap)
    sent = np.array([_pickled(d) for d in before], float)
    sent[0] = sum(_pickled(d) for d in after[1:])  # the scatter, from rank 0
    res.stats.update({
        "backend": "ranks", "protocol": "gather", "protocol_asked": asked,
        "schedule": {"serial_s": [cpu / n_it] * n_it, "critical_path_s": [cpu / n_it] * n_it,
                     "clock": "process_time"},
        "bytes_per_rank": sent / n_it})
    return res


# ------------------------------------------------------------------ MPI
def gather_stage_mpi(ch, data: RankData, options: dict, time_limit=None, keys=None,
                     explicit=None) -> tuple:
    """Every rank sends its records to rank 0, which balances the gathered phase with the
    serial engine (`options`: keyword arguments of :func:`wpart.tasks.balance`) and sends
    every rank its records back; returns ``(records here now, history, exchanges per
    iteration, status, W_max, rank 0's stats)`` (all but the records and the stats are the
    same on every rank). `keys` (the order keys of this rank's tasks,
    :mod:`wpart.tasks._mpi_order`) and `explicit` (the blocks its file homes by
    ``home_rank``) go with the records, so that rank 0 rebuilds the phase as the in-process
    reader does (:func:`merge_ranks`).
    Every wait is bounded by the channel's timeout (rank 0's engine time counts: raise
    `timeout` above it)."""
    from ._balance import balance

    P = ch.size
    if ch.rank == 0:
        datas = [data] + [None] * (P - 1)
        ks = [_keys_of(data, keys)] + [None] * (P - 1)
        exs = [_blocks_of(explicit)] + [None] * (P - 1)
        for _ in range(P - 1):
            src, _, (d, k, e) = ch.recv(-1, ("GATHER",),
                                        "the gathered records (protocol='gather')")
            datas[src], ks[src], exs[src] = d, _keys_of(d, k), _blocks_of(e)
        prob, gids, caps = merge_ranks(datas, ks, exs)
        c0 = time.process_time()
        res = balance(prob, method="ccm", backend="simulated", memory_cap=caps,
                      time_limit=time_limit, **options)
        cpu = time.process_time() - c0
        out = redistribute(datas, gids, np.asarray(res.assignment, np.int32))
        head = (np.asarray(res.history, float), list(res.stats.get("exchanges_per_iteration",
                                                                   [])), res.status,
                float(res.max_work))
        for q in range(1, P):
            ch.send(q, "GATHER", (out[q],) + head, "SCATTER")
        st = {"engine_cpu_s": cpu, "n_tasks": prob.n_tasks}
        return (out[0],) + head + (st,)
    ch.send(0, "GATHER", (data, keys, explicit), "GATHER")
    _, _, got = ch.recv(0, ("GATHER",), "the placement scattered by rank 0 (protocol='gather')",
                        patience=2.0)
    return got + ({},)


def _keys_of(data: RankData, keys) -> np.ndarray:
    return np.asarray(data.gid if keys is None else keys, np.int64)


def _blocks_of(explicit) -> np.ndarray:
    return np.zeros(0, np.int64) if explicit is None else np.asarray(explicit, np.int64)
