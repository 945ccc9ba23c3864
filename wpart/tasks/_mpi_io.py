"""LBDatafile input and output by rank: each process reads and writes only its own file.

A rank file lists the rank's tasks and some communications (vt writes an edge on one of its
endpoints' ranks). :func:`read_rank` parses the rank's own file; :func:`distribute_edges`
routes every edge to the ranks owning its two endpoints through a distributed directory
(task id modulo the number of ranks), in three bounded exchanges, so that no process ever
holds the whole phase. An edge naming a task that no rank holds is an error naming the file and
the edge, on every rank, as in :func:`wpart.tasks.read_lbdatafile`. :func:`write_rank` writes
``<stem>.<rank>.json`` in the format of :func:`wpart.tasks.write_lbdatafile`.
"""

from __future__ import annotations

import json
import os
import zlib
from typing import Any

import numpy as np

from .._errors import WpartOSError
from .._files import fsync_dir, write_synced
from ._io import MAX_BYTES, LBDatafileError, _block, _load_json, _parse_phase
from ._io_write import task_record
from ._rankdata import RankData

__all__ = ["check_out_writable", "count_rank_files", "distribute_edges", "rank_doc",
           "read_rank", "write_json_atomic", "write_rank", "write_rank_set"]

#: Key of an entity in ``RankData.ents`` holding the rest of its task's object as read
#: (``user_defined``, ``subphases``, ...); never written as part of the entity.
TASK_KEY = "_wpart_task"


def _entity(d: dict | None) -> dict | None:
    return None if d is None else {k: v for k, v in d.items() if k != TASK_KEY}


def read_rank(path: str, rank: int, m: int, phase: int | None = None,
              max_bytes: int = MAX_BYTES, *, strict: bool = True) -> tuple:
    """Parse one rank's LBDatafile (`m` ranks in all): ``(RankData without edges, edges,
    info)``.

    ``edges`` is a list of ``(eid, src_key, dst_key, bytes, pinned)`` for the communications
    listed in this file (``eid = rank * 2**32 + index``; ``pinned``: which ends are marked
    ``"migratable": false``, skipped when they are not tasks); ``info`` has the phase, the
    entity kind, ``where`` (eid -> the communication's position in the file) and
    ``pinned`` (sorted ids of this rank's tasks marked ``"migratable": false``: they stay on
    this rank; their entities in ``data.ents`` carry the flag too), ``order`` (each record's
    position in the file: the order of :func:`wpart.tasks.read_lbdatafile`, see
    :mod:`wpart.tasks._mpi_order`) and ``explicit_blocks`` (the blocks whose home this file
    gives as ``home_rank``; a home given wins over the default, as in the reader). A file
    larger than `max_bytes` once decompressed is refused. The rules of
    :func:`wpart.tasks.read_lbdatafile` apply (`strict` as there). Each entity in
    ``data.ents`` also carries its task's object as read (key :data:`TASK_KEY`, moved with
    the task), so that :func:`write_rank` writes back every field read.
    """
    doc = _load_json(path, max_bytes)
    f = path
    if not isinstance(doc, dict):
        raise LBDatafileError(f"{f}: top level must be an object")
    meta = doc.get("metadata", {})
    if not isinstance(meta, dict):
        raise LBDatafileError(f"{f}: metadata: expected an object")
    mr = meta.get("rank", rank)
    if mr != rank:
        raise LBDatafileError(f"{f}: metadata.rank is {mr!r} but the file is read by rank {rank}")
    ex: dict = {}
    phase, alpha, tasks, comms = _parse_phase(f, doc, rank, m, phase, set(), strict=strict,
                                              extra=ex)
    gid, load, fp, wk, blk, ents = [], [], [], [], [], {}
    blocks: dict = {}
    baseline = 0.0
    kinds = set()
    for (where, (kind, key), ent, time_, tfp, twk, rw, sid, size, home), raw in zip(
            tasks, ex["tasks"]):
        if key < 0:
            raise LBDatafileError(f"{f}: {where}.entity.{kind}: the distributed engine needs "
                                  f"task ids >= 0, got {key}")
        if sid is not None and sid < 0:
            raise LBDatafileError(f"{f}: {where}.user_defined.shared_id: expected an "
                                  "integer >= 0")
        kinds.add(kind)
        gid.append(key)
        load.append(time_)
        ents[key] = dict(ent, **{TASK_KEY: {k: v for k, v in raw.items() if k != "entity"}})
        fp.append(tfp)
        wk.append(twk)
        baseline = max(baseline, rw)
        if sid is not None:  # one size and home per block, as the in-process reader sets
            _block(blocks, sid, size, home, "home_rank" in raw.get("user_defined", {}), f,
                   where)
        blk.append(-1 if sid is None else sid)
    if len(kinds) > 1:
        raise LBDatafileError(f"{f}: tasks mix entity kinds {sorted(kinds)}")
    edges = [(rank * 2**32 + ci, src, dst, b, pin) for ci, src, dst, b, _, pin in comms]
    where = {rank * 2**32 + c[0]: c[4] for c in comms}
    o = np.argsort(np.array(gid, np.int64), kind="stable")
    sb = sorted(blocks)
    alpha = float("nan") if alpha is None else alpha
    data = RankData(
        rank, gid=np.array(gid, np.int64)[o], load=np.array(load, float)[o],
        fp=np.array(fp, float)[o], wk=np.array(wk, float)[o], blk=np.array(blk, np.int64)[o],
        orig=np.full(len(gid), rank, np.int32),
        bid=np.array(sb, np.int64), bsize=np.array([blocks[s][0] for s in sb], float),
        bhome=np.array([blocks[s][1] for s in sb], np.int32), baseline=baseline, alpha=alpha,
        ents=ents)
    pinned = np.array(sorted(g for g, e in ents.items() if e.get("migratable", True) is False),
                      np.int64)
    return data, edges, {"phase": phase, "kind": next(iter(kinds), "id"), "where": where,
                         "path": path, "pinned": pinned, "order": o.astype(np.int64),
                         "explicit_blocks": np.array([s for s in sb if blocks[s][2]],
                                                     np.int64)}


def distribute_edges(ch, data: RankData, edges: list, name_of=None) -> None:
    """Give every rank the edges incident to its tasks (and check task ids are unique).

    An edge naming a task that no rank holds raises :class:`LBDatafileError` on every rank
    (after the routing, so that no rank is left waiting); the message names the file
    (``name_of(eid)``: the file and position of edge `eid`, when given) and the edge.
    """
    P = ch.size
    # 1. register task ids with their directory rank
    out: dict = {}
    for g in data.gid.tolist():
        out.setdefault(g % P, []).append(g)
    owner: dict = {}
    for src, ids in ch.exchange(out, "DIR", "the task directory", "DIRECTORY"):
        for g in ids:
            if g in owner:
                raise LBDatafileError(f"task id {g} is listed by ranks {owner[g]} and {src}")
            owner[g] = src
    # 2. edges to the directory of their source: keep the ones whose source exists
    out = {}
    for e in edges:
        out.setdefault(e[1][1] % P, []).append(e)
    nxt: dict = {}
    missing: list = []  # (eid, "from"/"to", edge) naming a task no rank holds
    for _, es in ch.exchange(out, "DIR", "edge routing (sources)", "DIRECTORY"):
        for e in es:
            o = owner.get(e[1][1])
            if o is None:
                if not e[4][0]:  # a pinned object that is no task: not a task-to-task edge
                    missing.append((e[0], "from", e[:4]))
            else:
                nxt.setdefault(e[2][1] % P, []).append(e + (o,))
    # 3. then to the directory of their destination, which sends them to both owners
    dest: dict = {}
    for _, es in ch.exchange(nxt, "DIR", "edge routing (destinations)", "DIRECTORY"):
        for e in es:
            o2 = owner.get(e[2][1])
            if o2 is None:
                if not e[4][1]:
                    missing.append((e[0], "to", e[:4]))
            else:
                for q in {e[5], o2}:  # with the ranks holding its two ends
                    dest.setdefault(q, []).append(e[:4] + (e[5], o2))
    if ch.allreduce(len(missing), "sum", "the check of the edges' tasks"):
        # every rank learns the first bad edge, so that whichever rank reports, it names it
        first = min(missing) if missing else None
        got = ch.exchange({q: first for q in range(P)} if first else {}, "DIR",
                          "the report of an edge to no task", "DIRECTORY")
        eid, end, (_, src, dst, b) = min(x for _, x in got)
        key = src if end == "from" else dst
        where = (name_of(eid) if name_of else
                 f"rank {eid >> 32}'s file: communications[{eid & 0xFFFFFFFF}]")
        raise LBDatafileError(f"{where}.{end}: the edge {src[0]} {src[1]} -> {dst[0]} {dst[1]} "
                              f"({b:g} bytes) names {key[0]} {key[1]}, which no rank holds")
    mine = [e for _, es in ch.exchange(dest, "DIR", "edge delivery", "DIRECTORY") for e in es]
    mine.sort(key=lambda e: e[0])
    data.eid = np.array([e[0] for e in mine], np.int64)
    data.esrc = np.array([e[1][1] for e in mine], np.int64)
    data.edst = np.array([e[2][1] for e in mine], np.int64)
    data.ebytes = np.array([e[3] for e in mine], float)
    data.esr = np.array([e[4] for e in mine], np.int32)
    data.edr = np.array([e[5] for e in mine], np.int32)


def write_temp_json(path: str, doc: Any, indent: int | None = 1) -> str:
    """Write `doc` as JSON to a temporary name beside `path`, flushed and fsynced; returns the
    temporary name (:func:`commit_file` renames it)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    d, b = os.path.split(os.path.abspath(path))
    tmp = os.path.join(d, f".{b}.{os.getpid()}.tmp")
    write_synced(tmp, json.dumps(doc, indent=indent).encode("utf-8"))
    return tmp


def commit_file(tmp: str, path: str) -> None:
    """Rename the finished temporary file over `path` (atomic) and fsync the folder."""
    os.replace(tmp, path)
    fsync_dir(os.path.dirname(os.path.abspath(path)))


def write_json_atomic(path: str, doc: Any, indent: int | None = 1) -> str:
    """Write JSON so that `path` holds either its previous content or the whole new one
    (temporary name, fsync, rename)."""
    commit_file(write_temp_json(path, doc, indent), path)
    return path


def count_rank_files(stem: str) -> tuple:
    """``(n, indices)``: the rank files ``<stem>.<i>.json`` present (``n`` = 1 + the largest
    index, 0 when none; ``indices`` sorted)."""
    import glob
    import re

    pat = re.compile(re.escape(os.path.basename(stem)) + r"\.(\d+)\.json$")
    idx = sorted(int(m.group(1)) for f in glob.glob(glob.escape(stem) + ".*.json")
                 if (m := pat.match(os.path.basename(f))))
    return (idx[-1] + 1 if idx else 0), idx


def rank_doc(data: RankData, kind: str = "id", phase: int = 0) -> dict:
    """This rank's tasks, and the edges whose sender is here, as one LBDatafile document
    (every field read kept, as :func:`wpart.tasks.write_lbdatafile` does)."""
    tasks = []
    bsize = dict(zip(data.bid.tolist(), data.bsize.tolist()))
    bhome = dict(zip(data.bid.tolist(), data.bhome.tolist()))
    for i, g in enumerate(data.gid.tolist()):
        b = int(data.blk[i])
        full = data.ents.get(g) or {"type": "object", kind: g, "migratable": True}
        ent = _entity(full)
        tasks.append(task_record(
            full.get(TASK_KEY), ent, data.load[i], data.rank,
            block=(b, bsize[b], bhome[b]) if b >= 0 else None,
            footprint=float(data.fp[i]) if data.fp.any() else None,
            working=float(data.wk[i]) if data.wk.any() else None,
            baseline=float(data.baseline) if data.baseline else None))
    own = set(data.gid.tolist())
    comms = []
    for s, d, b in zip(data.esrc.tolist(), data.edst.tolist(), data.ebytes.tolist()):
        if s in own:
            to = _entity(data.ents.get(d)) or {"type": "object", kind: d}
            comms.append({"type": "SendRecv", "from": _entity(data.ents.get(s)), "to": to,
                          "messages": 1, "bytes": float(b)})
    meta: dict[str, Any] = {"type": "LBDatafile", "rank": data.rank}
    if not np.isnan(data.alpha):
        meta["rank_alpha"] = float(data.alpha)
    ph: dict[str, Any] = {"id": int(phase), "tasks": tasks}
    if comms:
        ph["communications"] = comms
    return {"type": "LBDatafile", "metadata": meta, "phases": [ph]}


def write_rank(data: RankData, stem: str, kind: str = "id", phase: int = 0,
               commit: Any = True) -> str:
    """Write :func:`rank_doc` as ``<stem>.<rank>.json`` alone (one file, not a set).

    The file is written to a temporary name beside it, fsynced, then renamed: a rank killed
    while writing leaves the previous file whole. `commit`: True renames at once; a callable
    is called first and the file is renamed only if it returns True, else the temporary file
    is removed. An MPI job writes its output set with :func:`write_rank_set`.
    """
    path = f"{stem}.{data.rank}.json"
    tmp = write_temp_json(path, rank_doc(data, kind, phase), indent=None)
    try:
        ok = commit() if callable(commit) else bool(commit)
    except BaseException:
        os.unlink(tmp)
        raise
    if not ok:
        os.unlink(tmp)
        return path
    commit_file(tmp, path)
    return path


def check_out_writable(ch, out: str) -> None:
    """Before any work: every rank checks it can write its output file (the folder, no folder
    in its file's place; rank 0 also the manifest's); one agreement, so that every rank stops
    when one cannot, naming the file."""
    from ._io_set import check_writable, remove_temps

    err = None
    try:
        check_writable(out, [ch.rank])
        if ch.rank == 0:  # what an earlier, killed run left (before any rank writes)
            remove_temps(out)
    except WpartOSError as exc:
        err = exc
    bad = ch.allreduce(ch.rank if err is not None else ch.size, "min",
                       "the check that every rank can write its output")
    if err is not None:
        raise err
    if bad < ch.size:
        raise WpartOSError(f"{out}.{int(bad)}.json: rank {int(bad)} cannot write its output "
                           "(its message says why); nothing was balanced or written")


def write_rank_set(ch, data: RankData, out: str, kind: str = "id", phase: int = 0,
                   fail_at=None) -> str:
    """Write the job's output as one set (:mod:`wpart.tasks._io_set`): every rank writes its
    file to a temporary name and sends rank 0 its name, size and CRC-32; after a first
    agreement (every file written), rank 0 switches the whole set in one step (manifest, the
    files, stale higher-rank files removed; the previous files back on a failure) and a
    second agreement tells every rank the outcome. Any failure, on any rank, at any moment
    before the switch leaves the previous set whole and removes the temporary files; the
    error names the file. The output folder must be shared by the ranks (rank 0 renames
    every rank's file)."""
    from ._io_set import _unlink, doc_bytes, new_generation, rank_path, write_temp

    path = rank_path(out, ch.rank)
    gen = new_generation()
    tmp, err, info = None, None, None
    try:
        text = doc_bytes(rank_doc(data, kind, phase))
        if fail_at is not None:
            fail_at(path)
        tmp = write_temp(path, text, gen)
        info = (tmp, len(text), zlib.crc32(text))
    except Exception as exc:  # reported after the agreement, so that no rank waits
        err = exc
    try:
        return _switch_agreed(ch, out, gen, phase, path, tmp, err, info)
    except BaseException:  # a peer failed or hangs: this rank's temporary file goes
        if tmp is not None:
            _unlink(tmp)
        raise


def _switch_agreed(ch, out, gen, phase, path, tmp, err, info) -> str:
    from ._io_set import _unlink, manifest_doc, rank_path, switch_set

    if ch.rank == 0:
        infos = [info]
        for _ in range(ch.size - 1):
            src, _, got = ch.recv(-1, ("OUTSET",), "the output files' names (write agreement)")
            infos.append((src, got))
        infos = [infos[0]] + [g for _, g in sorted(infos[1:], key=lambda x: x[0])]
    else:
        ch.send(0, "OUTSET", info)
    ok = ch.allreduce(ch.size if err is None else ch.rank, "min",
                      "the agreement that every rank wrote its output file")
    if ok < ch.size:
        if tmp is not None:
            _unlink(tmp)
        if err is not None:
            raise err
        raise WpartOSError(f"{rank_path(out, int(ok))}: rank {int(ok)} could not write its "
                           "output file (its message says why); the previous output set is "
                           "kept whole")
    serr = None
    if ch.rank == 0:
        try:
            for r, x in enumerate(infos):
                if not os.path.isfile(x[0]):
                    raise WpartOSError(f"{rank_path(out, r)}: rank 0 does not see the file "
                                       f"rank {r} wrote ({x[0]}): the output folder must be "
                                       "shared by the ranks")
            switch_set(out, gen, [x[0] for x in infos],
                       manifest_doc(gen, ch.size, [phase], [(x[1], x[2]) for x in infos]))
        except Exception as exc:
            for x in infos:
                _unlink(x[0])
            serr = exc
    done = ch.allreduce(0 if serr is not None else 1, "min",
                        "the agreement that rank 0 switched the output set")
    if serr is not None:
        raise serr
    if done < 1:
        _unlink(tmp)
        raise WpartOSError(f"{out}.wpart-set.json: rank 0 could not switch the output set "
                           "(its message says why); the previous output set is kept whole")
    return path
    commit_file(tmp, path)
    return path
