"""LBDatafile input and output by rank: each process reads and writes only its own file.

A rank file lists the rank's tasks and some communications (vt writes an edge on one of its
endpoints' ranks). :func:`read_rank` parses the rank's own file; :func:`distribute_edges`
routes every edge to the ranks owning its two endpoints through a distributed directory
(task id modulo the number of ranks), in three bounded exchanges, so that no process ever
holds the whole phase. Edges naming an unknown task are dropped, as by
:func:`wpart.tasks.read_lbdatafile`. :func:`write_rank` writes ``<stem>.<rank>.json`` in the
format of :func:`wpart.tasks.write_lbdatafile`.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from ._io import LBDatafileError, _entity_key, _load_json, _need, _num
from ._rankdata import RankData

__all__ = ["distribute_edges", "read_rank", "write_rank"]


def read_rank(path: str, rank: int, n_ranks: int, phase: int | None = None) -> tuple:
    """Parse one rank's LBDatafile: ``(RankData without edges, edges, info)``.

    ``edges`` is a list of ``(eid, src_key, dst_key, bytes)`` for the communications listed in
    this file (``eid = rank * 2**32 + index``); ``info`` has the phase and the entity kind.
    """
    doc = _load_json(path)
    f = path
    if not isinstance(doc, dict):
        raise LBDatafileError(f"{f}: top level must be an object")
    meta = doc.get("metadata", {})
    if not isinstance(meta, dict):
        raise LBDatafileError(f"{f}: metadata: expected an object")
    mr = meta.get("rank", rank)
    if mr != rank:
        raise LBDatafileError(f"{f}: metadata.rank is {mr!r} but the file is read by rank {rank}")
    phases = _need(doc, "phases", "", (list,), f)
    if phase is None:
        if not phases:
            raise LBDatafileError(f"{f}: phases: empty list")
        phase = _need(phases[0], "id", "phases[0]", (int,), f)
    found = None
    for pi, ph in enumerate(phases):
        if _need(ph, "id", f"phases[{pi}]", (int,), f) == phase:
            found = (pi, ph)
            break
    if found is None:
        raise LBDatafileError(f"{f}: phases: no phase with id {phase}")
    pi, ph = found
    gid, load, fp, wk, blk, ents = [], [], [], [], [], {}
    blocks: dict = {}
    baseline = 0.0
    kinds = set()
    for ti, t in enumerate(_need(ph, "tasks", f"phases[{pi}]", (list,), f)):
        where = f"phases[{pi}].tasks[{ti}]"
        ent = _need(t, "entity", where, (dict,), f)
        kind, key = _entity_key(ent, where + ".entity", f)
        if key < 0:
            raise LBDatafileError(f"{f}: {where}.entity.{kind}: the distributed engine needs "
                                  f"task ids >= 0, got {key}")
        kinds.add(kind)
        time_ = _num(t, "time", where, f)
        if time_ is None:
            raise LBDatafileError(f"{f}: {where}.time: missing field")
        ud = t.get("user_defined", {})
        if not isinstance(ud, dict):
            raise LBDatafileError(f"{f}: {where}.user_defined: expected an object")
        gid.append(key)
        load.append(time_)
        ents[key] = ent
        fp.append(_num(ud, "task_footprint_bytes", where + ".user_defined", f, 0.0))
        wk.append(_num(ud, "task_working_bytes", where + ".user_defined", f, 0.0))
        baseline = max(baseline, _num(ud, "rank_working_bytes", where + ".user_defined", f, 0.0))
        if "shared_id" in ud:
            sid = ud["shared_id"]
            if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
                raise LBDatafileError(f"{f}: {where}.user_defined.shared_id: expected an "
                                      "integer >= 0")
            size = _num(ud, "shared_bytes", where + ".user_defined", f, 0.0)
            home = ud.get("home_rank", rank)
            if isinstance(home, bool) or not isinstance(home, int) or not 0 <= home < n_ranks:
                raise LBDatafileError(f"{f}: {where}.user_defined.home_rank: expected a rank in "
                                      f"[0, {n_ranks}), got {home!r}")
            blocks.setdefault(sid, (size, home))
            blk.append(sid)
        else:
            blk.append(-1)
    if len(kinds) > 1:
        raise LBDatafileError(f"{f}: tasks mix entity kinds {sorted(kinds)}")
    if len(set(gid)) != len(gid):
        raise LBDatafileError(f"{f}: duplicate task ids")
    edges = []
    for ci, c in enumerate(ph.get("communications", []) or []):
        where = f"phases[{pi}].communications[{ci}]"
        if not isinstance(c, dict):
            raise LBDatafileError(f"{f}: {where}: expected an object")
        if c.get("type", "SendRecv") != "SendRecv":
            continue
        src = _entity_key(_need(c, "from", where, (dict,), f), where + ".from", f)
        dst = _entity_key(_need(c, "to", where, (dict,), f), where + ".to", f)
        b = _num(c, "bytes", where, f)
        if b is None:
            raise LBDatafileError(f"{f}: {where}.bytes: missing field")
        edges.append((rank * 2**32 + ci, src, dst, b))
    o = np.argsort(np.array(gid, np.int64), kind="stable")
    sb = sorted(blocks)
    alpha = float("nan")
    if "rank_alpha" in meta:
        alpha = _num(meta, "rank_alpha", "metadata", f)
    data = RankData(
        rank, gid=np.array(gid, np.int64)[o], load=np.array(load, float)[o],
        fp=np.array(fp, float)[o], wk=np.array(wk, float)[o], blk=np.array(blk, np.int64)[o],
        orig=np.full(len(gid), rank, np.int32),
        bid=np.array(sb, np.int64), bsize=np.array([blocks[s][0] for s in sb], float),
        bhome=np.array([blocks[s][1] for s in sb], np.int32), baseline=baseline, alpha=alpha,
        ents=ents)
    return data, edges, {"phase": phase, "kind": next(iter(kinds), "id")}


def distribute_edges(ch, data: RankData, edges: list) -> int:
    """Give every rank the edges incident to its tasks (and check task ids are unique).

    Returns the number of edges of this rank's file that were dropped (unknown endpoint).
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
    for _, es in ch.exchange(out, "DIR", "edge routing (sources)", "DIRECTORY"):
        for e in es:
            o = owner.get(e[1][1])
            if o is not None:
                nxt.setdefault(e[2][1] % P, []).append(e + (o,))
    # 3. then to the directory of their destination, which sends them to both owners
    dest: dict = {}
    for _, es in ch.exchange(nxt, "DIR", "edge routing (destinations)", "DIRECTORY"):
        for e in es:
            o2 = owner.get(e[2][1])
            if o2 is not None:
                for q in {e[4], o2}:
                    dest.setdefault(q, []).append(e[:4])
    mine = [e for _, es in ch.exchange(dest, "DIR", "edge delivery", "DIRECTORY") for e in es]
    mine.sort(key=lambda e: e[0])
    data.eid = np.array([e[0] for e in mine], np.int64)
    data.esrc = np.array([e[1][1] for e in mine], np.int64)
    data.edst = np.array([e[2][1] for e in mine], np.int64)
    data.ebytes = np.array([e[3] for e in mine], float)
    kept = ch.allreduce(len([e for e in mine if e[0] >> 32 == ch.rank]), "sum",
                        "the edge count")
    listed = ch.allreduce(len(edges), "sum", "the edge count")
    return int(listed - kept)


def write_rank(data: RankData, stem: str, kind: str = "id", phase: int = 0) -> str:
    """Write this rank's tasks, and the edges whose sender is here, as ``<stem>.<rank>.json``."""
    tasks = []
    bsize = dict(zip(data.bid.tolist(), data.bsize.tolist()))
    bhome = dict(zip(data.bid.tolist(), data.bhome.tolist()))
    for i, g in enumerate(data.gid.tolist()):
        ud: dict[str, Any] = {}
        b = int(data.blk[i])
        if b >= 0:
            ud.update(shared_id=b, shared_bytes=float(bsize[b]), home_rank=int(bhome[b]))
        if data.fp.any():
            ud["task_footprint_bytes"] = float(data.fp[i])
        if data.wk.any():
            ud["task_working_bytes"] = float(data.wk[i])
        if data.baseline:
            ud["rank_working_bytes"] = float(data.baseline)
        ent = dict(data.ents.get(g, {"type": "object", kind: g, "migratable": True}))
        t = {"entity": ent, "node": data.rank, "resource": "cpu", "time": float(data.load[i])}
        if ud:
            t["user_defined"] = ud
        tasks.append(t)
    own = set(data.gid.tolist())
    comms = []
    for s, d, b in zip(data.esrc.tolist(), data.edst.tolist(), data.ebytes.tolist()):
        if s in own:
            to = data.ents.get(d, {"type": "object", kind: d})
            comms.append({"type": "SendRecv", "from": dict(data.ents.get(s)), "to": dict(to),
                          "messages": 1, "bytes": float(b)})
    meta: dict[str, Any] = {"type": "LBDatafile", "rank": data.rank}
    if not np.isnan(data.alpha):
        meta["rank_alpha"] = float(data.alpha)
    ph: dict[str, Any] = {"id": int(phase), "tasks": tasks}
    if comms:
        ph["communications"] = comms
    path = f"{stem}.{data.rank}.json"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        json.dump({"type": "LBDatafile", "metadata": meta, "phases": [ph]}, fh, indent=1)
    return path
