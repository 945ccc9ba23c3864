"""Writer of the vt / LBAF ``LBDatafile`` JSON format: one file per rank.

What the reader took from a file is written back from the :class:`~wpart.tasks.Problem`
(loads, memory, blocks, edges, ``migratable``, the tasks' new ranks); whatever else the file
held is kept verbatim (each task's and edge's object with its other fields, ``user_defined``
keys wpart does not model, each rank's ``metadata``, ``phases[].user_defined``, and the
communications that are not task-to-task edges). The per-rank writer of the distributed
engine (:func:`wpart.tasks._mpi_io.write_rank`) writes its tasks with the same
:func:`task_record`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .._errors import WpartTypeError, WpartValueError
from .._validate import as_bool, as_int, positional_deprecated
from ._io_set import check_writable, doc_bytes, write_set

__all__ = ["task_record", "write_lbdatafile"]

#: ``metadata`` fields not written back: the phase listing describes the source file's phases
#: (the written file holds one phase); ``rank`` and ``rank_alpha`` come from the problem.
_META_DROP = ("phases", "rank", "rank_alpha")


def task_record(raw: dict | None, entity: dict, time: float, rank: int, *, block=None,
                footprint: float | None = None, working: float | None = None,
                baseline: float | None = None) -> dict:
    """One ``phases[].tasks[]`` object: `raw` (the object as read, or None) with what wpart
    models put in: the entity, ``node`` (the task's rank), ``time``, and in ``user_defined``
    the block ``(shared_id, shared_bytes, home_rank)`` (None: no block), the task's memory
    and the rank's baseline memory (None: not modelled; a non-zero value read is dropped).
    ``home_rank`` is written where `raw` had it, or where it differs from `rank` (a reader's
    default is the rank of the file: the per-rank reader of each MPI process, and LBAF, see
    only their own file). Every other field of `raw` is kept as it was."""
    rec = dict(raw) if raw else {}
    rec["entity"] = entity
    rec["node"] = int(rank)
    rec.setdefault("resource", "cpu")
    rec["time"] = float(time)
    ud = dict(rec.get("user_defined") or {})
    if block is not None:
        sid, size, home = block
        had_home = "home_rank" in ud
        ud["shared_id"] = int(sid)
        ud["shared_bytes"] = float(size)
        if had_home or int(home) != int(rank):
            ud["home_rank"] = int(home)
    else:
        for k in ("shared_id", "shared_bytes", "home_rank"):
            ud.pop(k, None)
    for key, v in (("task_footprint_bytes", footprint), ("task_working_bytes", working),
                   ("rank_working_bytes", baseline)):
        if v is not None:
            ud[key] = float(v)
        elif ud.get(key, 0) != 0:
            ud.pop(key)
    if ud:
        rec["user_defined"] = ud
    else:
        rec.pop("user_defined", None)
    return rec


def _entity(raw: dict | None, ents: Any, k: int, tid: int, mig: bool, home: int) -> dict:
    """The entity of task `k`: as read (raw task object, else ``meta["entities"]``), with
    ``migratable`` from the problem; generated when nothing was read."""
    if raw is not None and isinstance(raw.get("entity"), dict):
        ent = dict(raw["entity"])
    elif ents is not None:
        ent = dict(ents[k])
    else:
        ent = {"type": "object", "id": int(tid), "home": int(home)}
    ent["migratable"] = bool(mig)
    if not mig:
        ent["home"] = int(home)
    return ent


def _aligned(lb: dict, key: str, n: int) -> list | None:
    v = lb.get(key)
    return v if isinstance(v, list) and len(v) == n else None


@positional_deprecated("assignment")
def write_lbdatafile(problem, stem: str, *, assignment=None, phase: int | None = None,
                     compress: bool = False) -> list[str]:
    """Write `problem` under `assignment` (default: its initial assignment) as
    ``<stem>.<rank>.json`` files, one per rank; returns the paths.

    Parameters
    ----------
    problem : Problem
    stem : str
        Files ``<stem>.<rank>.json`` (folders are created).
    assignment : array_like of int, optional
        Rank of every task. A pinned task (``problem.migratable`` False) must stay on its
        rank of ``problem.initial``.
    phase : int, optional
        Phase id written (default: the phase read, else 0).
    compress : bool, default False
        Brotli-compress the files (the reader detects it).

    Returns
    -------
    list of str
        The paths of the files written.

    Notes
    -----
    Each task goes to the file of its rank with ``node`` set to that rank, each edge to the
    file of its sender's rank. Everything read from an LBDatafile is written back: the
    modelled fields from the problem, the rest of every task, edge and rank verbatim
    (``meta["lbdatafile"]``, filled by :func:`wpart.tasks.read_lbdatafile`), except
    ``metadata.phases`` (it describes the source file's phases; the written file holds one).
    The files pass vt's schema for the format and read back to an equal problem.

    The files are written as one set, whole or not at all: each to a temporary name first,
    then switched together, with a manifest ``<stem>.wpart-set.json`` listing the ranks and
    each file's size and CRC-32; a failure at any point leaves the previous files whole
    (temporary files removed). Rank files of higher ranks left by an earlier, larger set are
    removed, and :func:`wpart.tasks.read_lbdatafile` refuses files that do not match the
    manifest.

    Raises
    ------
    wpart.WpartValueError
        `assignment` moves a pinned task off its home rank.
    wpart.WpartOSError
        A file cannot be written (the message names it; checked before any file is
        written where possible: the folder, a folder in a file's place).
    wpart.WpartTypeError
        `problem` is not a :class:`Problem`, or `stem` is not a path.
    """
    from ._problem import Problem

    if not isinstance(problem, Problem):
        raise WpartTypeError(f"`problem` must be a wpart.tasks.Problem, got "
                             f"{type(problem).__name__}")
    if not isinstance(stem, (str, os.PathLike)):
        raise WpartTypeError(f"`stem` must be a path (str or os.PathLike), got "
                             f"{type(stem).__name__}")
    a = problem.assignment(assignment)
    meta = problem.meta if isinstance(problem.meta, dict) else {}
    if phase is None:
        phase = meta.get("phase", 0)
        phase = phase if isinstance(phase, int) and not isinstance(phase, bool) else 0
    phase = as_int(phase, "phase")
    compress = as_bool(compress, "compress")
    I, K = problem.m, problem.n_tasks
    pin = problem.pinned
    off = pin[a[pin] != problem.initial[pin]]
    if off.size:
        k = int(off[0])
        raise WpartValueError(f"`assignment` moves pinned task {k} (not migratable) from its "
                              f"home rank {int(problem.initial[k])} to {int(a[k])}")
    lb = meta.get("lbdatafile") if isinstance(meta.get("lbdatafile"), dict) else {}
    raw_tasks = _aligned(lb, "tasks", K)
    raw_edges = _aligned(lb, "edges", problem.n_edges)
    side = _aligned(lb, "edge_side", problem.n_edges)
    ranks_extra = lb.get("ranks") if isinstance(lb.get("ranks"), dict) else {}
    ents = meta.get("entities")
    ents = ents if isinstance(ents, list) and len(ents) == K else None
    ids = problem.task_ids if problem.task_ids is not None else np.arange(K)
    # (Problem validates block_ids: None or int64 of length n_blocks)
    bids = problem.block_ids if problem.block_ids is not None else np.arange(problem.n_blocks)
    tb, fp, wk, base = (problem.task_block, problem.task_footprint, problem.task_working,
                        problem.rank_baseline)
    tasks_of: list[list] = [[] for _ in range(I)]
    comms_of: list[list] = [[] for _ in range(I)]
    entity = []
    for k in range(K):
        raw = raw_tasks[k] if raw_tasks is not None else None
        r = int(a[k])
        ent = _entity(raw, ents, k, int(ids[k]), bool(problem.migratable[k]),
                      int(problem.initial[k]))
        entity.append(ent)
        b = int(tb[k]) if tb is not None and tb[k] >= 0 else -1
        tasks_of[r].append(task_record(
            raw, ent, problem.task_load[k], r,
            block=(bids[b], problem.block_size[b], problem.block_home[b]) if b >= 0 else None,
            footprint=None if fp is None else fp[k], working=None if wk is None else wk[k],
            baseline=None if base is None else base[r]))
    for e, ((s, d), nb) in enumerate(zip(problem.edges.tolist(), problem.edge_bytes.tolist())):
        c = dict(raw_edges[e]) if raw_edges is not None else {"type": "SendRecv"}
        c["from"], c["to"] = _endpoint(c.get("from"), entity[s]), _endpoint(c.get("to"),
                                                                             entity[d])
        c.setdefault("messages", 1)
        c["bytes"] = float(nb)
        comms_of[int(a[d] if side is not None and side[e] else a[s])].append(c)
    texts = []
    check_writable(stem, range(I))  # before any work: the folder, no folder in a file's way
    for r in range(I):
        ex = ranks_extra.get(r) or {}
        md = {k: v for k, v in (ex.get("metadata") or {}).items() if k not in _META_DROP}
        md.setdefault("type", "LBDatafile")
        md["rank"] = r
        if problem.rank_alpha is not None:
            md["rank_alpha"] = float(problem.rank_alpha[r])
        ph: dict[str, Any] = {"id": int(phase), "tasks": tasks_of[r]}
        comms = comms_of[r] + list(ex.get("communications") or [])
        if comms:
            ph["communications"] = comms
        ph.update(ex.get("phase") or {})
        doc = dict(ex.get("top") or {})
        doc.update(type="LBDatafile", metadata=md, phases=[ph])
        # the C encoder (indent= is pure Python); brotli quality 9 (11, the default: ~40x
        # slower)
        texts.append(doc_bytes(doc, compress))
    # one set: temporary names, then the switch; the previous set stays whole on a failure
    return write_set(stem, texts, [int(phase)])


def _endpoint(raw: Any, ent: dict) -> dict:
    """A communication endpoint: as read, with the task's identity and ``migratable``."""
    out = dict(raw) if isinstance(raw, dict) else {k: v for k, v in ent.items()
                                                    if k in ("type", "id", "seq_id", "home",
                                                             "collection_id", "index",
                                                             "objgroup_id")}
    for k in ("id", "seq_id"):
        if k in ent:
            out[k] = ent[k]
    out.setdefault("type", ent.get("type", "object"))
    out["migratable"] = ent.get("migratable", True)
    return out

