"""The task order of the phase in an MPI run: what makes its numbers the in-process ones.

A rank's records are sorted by task id (:class:`~wpart.tasks._rankdata.RankData`), but the
:class:`~wpart.tasks.Problem` that :func:`wpart.tasks.read_lbdatafile` builds from the same
files lists the tasks in the order of the rank files, then of each file (and a Problem cut by
:func:`wpart.tasks.mpi.scatter_problem` in its own order). Floating-point sums depend on
their order, and the serial engine breaks ties by task index; so an MPI run keeps, for every
task, its *order key*: an int64 whose order is the task's position in that Problem (rank
file ``r``, position ``i`` in it: ``r * 2**32 + i``; a scattered Problem: the task's index).
The rank a task started on (``RankData.orig``) holds its key; :func:`current_keys` asks it.

* :func:`wpart.tasks._mpi_gather.merge_ranks` rebuilds the gathered phase in key order: the
  problem :func:`~wpart.tasks.read_lbdatafile` reads, so ``protocol="gather"`` places as
  :func:`wpart.tasks.balance` does, bit for bit;
* :func:`ordered_work` sums a rank's W over its tasks in key order, as
  :func:`wpart.tasks.evaluate` does over the whole phase: ``max_load`` of an MPI run equals
  the in-process value on the same assignment.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ._rankdata import RankData, pair_problem

__all__ = ["ORDER_ATTR", "current_keys", "initial_keys", "ordered_work"]

#: The attribute of a :class:`RankData` (set by :func:`wpart.tasks.mpi.scatter_problem`)
#: holding the order keys of its tasks (aligned with ``gid``).
ORDER_ATTR = "problem_order"

#: A rank file's keys: ``rank * FILE_STRIDE + position in the file``.
FILE_STRIDE = 2 ** 32


def initial_keys(data: RankData, file_order=None) -> np.ndarray:
    """The order keys of the tasks `data` starts with (aligned with ``data.gid``):
    `file_order` (each record's position in its rank file, from
    :func:`wpart.tasks._mpi_io.read_rank`) gives ``rank * 2**32 + position``; else the keys
    :func:`~wpart.tasks.mpi.scatter_problem` attached; else the task ids (the order of a
    Problem without ``task_ids``)."""
    if file_order is not None:
        return np.asarray(file_order, np.int64) + np.int64(data.rank) * FILE_STRIDE
    k = getattr(data, ORDER_ATTR, None)
    if k is not None and np.shape(k) == data.gid.shape:
        return np.asarray(k, np.int64)
    return np.asarray(data.gid, np.int64).copy()


def _lookup(gid_sorted: np.ndarray, keys: np.ndarray, gids: np.ndarray) -> np.ndarray:
    pos = np.searchsorted(gid_sorted, gids)
    return keys[np.minimum(pos, max(gid_sorted.size - 1, 0))] if gids.size else \
        np.zeros(0, np.int64)


def current_keys(ch, data: RankData, home_gid: np.ndarray, home_keys: np.ndarray
                 ) -> np.ndarray:
    """The order keys of the tasks `data` holds now (aligned with ``data.gid``): the rank
    each task started on (``data.orig``) answers from its table (`home_gid` sorted, with
    `home_keys`: this rank's initial tasks). Two bounded sparse exchanges (counted as
    ``DIRECTORY`` messages; none when every rank's keys are its task ids, as for a Problem
    without ``task_ids``: one all-reduce tells); every rank must call it."""
    if ch.allreduce(int(np.array_equal(home_keys, home_gid)), "min",
                    "whether the tasks' order keys are their ids"):
        return np.asarray(data.gid, np.int64).copy()
    me = ch.rank
    orig = np.asarray(data.orig)
    asks = {int(q): data.gid[orig == q] for q in np.unique(orig).tolist() if q != me}
    got = ch.exchange(asks, "DIR", "the order keys of the tasks held (max_load)", "DIRECTORY")
    answers = {src: _lookup(home_gid, home_keys, np.asarray(g, np.int64)) for src, g in got}
    back = ch.exchange(answers, "DIR", "the order keys' answers (max_load)", "DIRECTORY")
    keys = np.empty(data.gid.size, np.int64)
    here = orig == me
    keys[here] = _lookup(home_gid, home_keys, data.gid[here])
    for src, k in back:
        keys[orig == src] = k
    return keys


def ordered_work(data: RankData, coeffs: tuple, keys: np.ndarray) -> float:
    """W of the rank of `data` with its tasks summed in the order of `keys` (and its edges in
    edge-id order), as the C work model sums them over the whole phase: the W that
    :func:`wpart.tasks.evaluate` gives this rank."""
    d, a, _ = pair_problem(data, None, coeffs[0])
    n = data.gid.size
    # pair_problem lists the tasks by id: the key of its task j is that of data's o[j]
    o = np.argsort(data.gid, kind="stable")
    perm = np.argsort(np.asarray(keys, np.int64)[o], kind="stable")
    if n and not np.array_equal(perm, np.arange(n)):
        N = len(d["task_load"])  # the rank's tasks (gid order, as data), then the far ends
        full = np.concatenate([perm, np.arange(n, N)])
        inv = np.empty(N, np.int64)
        inv[full] = np.arange(N)
        for k in ("task_load", "task_footprint", "task_working", "task_block",
                  "task_migratable"):
            if k in d:
                d[k] = np.ascontiguousarray(d[k][full])
        a = np.ascontiguousarray(a[full])
        for k in ("edge_src", "edge_dst"):
            if k in d:
                d[k] = inv[d[k]].astype(np.int32)
    _, rep = _core.tasks_evaluate(d, tuple(coeffs), a)
    return float(rep["work"][0])
