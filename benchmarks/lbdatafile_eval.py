"""An evaluator of task placements that reads LBDatafile JSON itself (no wpart code).

It parses the raw rank files of a stem (``json`` and ``brotli`` only) and recomputes, for a
placement ``{task id: rank}``, every rank's work in the CCM model of [Lifflander 2024]
(eq. (11)): ``W(r) = alpha_r L(r) + beta max(out(r), in(r)) + gamma loc(r) + delta H(r)``,
``+inf`` when the rank's memory (``rank_working_bytes`` of the rank + the tasks'
``task_footprint_bytes`` + the largest ``task_working_bytes`` + the ``shared_bytes`` of every
distinct block present) exceeds the cap. ``L`` sums ``time``; ``out``/``in`` the bytes of
``SendRecv`` communications between two tasks of the phase on different ranks; ``loc`` those on
one rank; ``H`` the bytes of blocks present away from their home (``home_rank``, else the
rank of the file listing the block's first task). It also counts the tasks marked
``"migratable": false`` that the placement moves off the rank of their file.

``benchmarks/bench_tasks.py`` checks every placement it reports with it.
"""

from __future__ import annotations

import glob
import json
import math
import re
from collections import defaultdict

__all__ = ["RawPhase", "read_raw", "stems_in"]


def _load(path: str) -> dict:
    if path.endswith(".vom"):  # vt's older text format: `phase,object id,time` lines
        phases: dict = {}
        for line in open(path).read().splitlines():
            if line.strip():
                ph, oid, t = line.split(",")
                phases.setdefault(int(ph), []).append(
                    {"entity": {"id": int(oid)}, "time": float(t)})
        return {"phases": [{"id": k, "tasks": v} for k, v in phases.items()]}
    raw = open(path, "rb").read()
    try:
        return json.loads(raw)
    except ValueError:
        import brotli
        return json.loads(brotli.decompress(raw))


def stems_in(folder: str) -> list[str]:
    """The ``<stem>`` of every ``<stem>.<rank>.json`` (or ``.vom``) set in `folder` (a stem
    has rank 0)."""
    out = set()
    for f in glob.glob(glob.escape(folder.rstrip("/")) + "/*.*"):
        m = re.fullmatch(r"(.*)\.0\.(json|vom)", f)
        if m:
            out.add(m.group(1))
    return sorted(out)


def _file(stem: str, r: int) -> str | None:
    for ext in ("json", "vom"):
        if glob.glob(glob.escape(f"{stem}.{r}.{ext}")):
            return f"{stem}.{r}.{ext}"
    return None


def phase_ids(stem: str) -> list[int]:
    """Phase ids listed in rank 0's file."""
    return [ph["id"] for ph in _load(_file(stem, 0))["phases"]]


class RawPhase:
    """One phase of a stem, as the files say (rank files ``<stem>.0.json`` ... in order)."""

    def __init__(self, stem: str, phase: int):
        self.stem, self.phase = stem, phase
        self.rank_of: dict = {}        # task id -> rank of its file
        self.time: dict = {}
        self.pinned: set = set()
        self.fp: dict = {}
        self.wk: dict = {}
        self.block: dict = {}          # task id -> shared id
        self.block_size: dict = {}
        self.block_home: dict = {}
        self.baseline: dict = {}       # rank -> rank_working_bytes
        self.alpha: dict = {}          # rank -> rank_alpha
        raw_edges = []
        r = 0
        while True:
            f = _file(stem, r)
            if f is None:
                break
            doc = _load(f)
            alpha = doc.get("metadata", {}).get("rank_alpha")
            if alpha is not None:
                self.alpha[r] = float(alpha)
            ph = [p for p in doc["phases"] if p["id"] == phase]
            for t in (ph[0]["tasks"] if ph else []):
                e = t["entity"]
                tid = e["id"] if "id" in e else e["seq_id"]
                self.rank_of[tid] = r
                self.time[tid] = float(t["time"])
                if e.get("migratable", True) is False:
                    self.pinned.add(tid)
                ud = t.get("user_defined", {})
                self.fp[tid] = float(ud.get("task_footprint_bytes", 0.0))
                self.wk[tid] = float(ud.get("task_working_bytes", 0.0))
                self.baseline[r] = max(self.baseline.get(r, 0.0),
                                       float(ud.get("rank_working_bytes", 0.0)))
                if "shared_id" in ud:
                    b = ud["shared_id"]
                    self.block[tid] = b
                    if b not in self.block_size:
                        self.block_size[b] = float(ud.get("shared_bytes", 0.0))
                        self.block_home[b] = int(ud.get("home_rank", r))
            for c in (ph[0].get("communications", []) if ph else []):
                if c.get("type") != "SendRecv":
                    continue
                ends = [c["from"], c["to"]]
                if any(x.get("type", "object") != "object" for x in ends):
                    continue
                ids = [x["id"] if "id" in x else x["seq_id"] for x in ends]
                raw_edges.append((ids[0], ids[1], float(c["bytes"])))
            r += 1
        self.m = r
        self.edges = [e for e in raw_edges if e[0] in self.time and e[1] in self.time]

    def evaluate(self, placement: dict, *, alpha=1.0, beta=0.0, gamma=0.0, delta=0.0,
                 cap: float | None = None) -> dict:
        """``{"w_max", "work" (per rank), "pinned_moved", "moved"}`` of `placement`
        (task id -> rank; tasks it leaves out stay on the rank of their file)."""
        rank = {t: int(placement.get(t, r0)) for t, r0 in self.rank_of.items()}
        m = max(self.m, 1 + max(rank.values(), default=0))
        L = [0.0] * m
        out, inn, loc, H = [0.0] * m, [0.0] * m, [0.0] * m, [0.0] * m
        mem_fp, mem_wk = [0.0] * m, [0.0] * m
        blocks = defaultdict(set)
        for t, r in rank.items():
            L[r] += self.time[t]
            mem_fp[r] += self.fp[t]
            mem_wk[r] = max(mem_wk[r], self.wk[t])
            if t in self.block:
                blocks[r].add(self.block[t])
        for s, d, b in self.edges:
            rs, rd = rank[s], rank[d]
            if rs == rd:
                loc[rs] += b
            else:
                out[rs] += b
                inn[rd] += b
        work = []
        for r in range(m):
            H[r] = sum(self.block_size[b] for b in blocks[r] if self.block_home[b] != r)
            a = self.alpha.get(r, alpha)
            w = a * L[r] + beta * max(out[r], inn[r]) + gamma * loc[r] + delta * H[r]
            mem = (self.baseline.get(r, 0.0) + mem_fp[r] + mem_wk[r]
                   + sum(self.block_size[b] for b in blocks[r]))
            if cap is not None and mem > cap:
                w = math.inf
            work.append(w)
        return {"w_max": max(work), "work": work,
                "pinned_moved": sum(rank[t] != self.rank_of[t] for t in self.pinned),
                "moved": sum(rank[t] != self.rank_of[t] for t in rank)}


def read_raw(stem: str, phase: int) -> RawPhase:
    """The phase `phase` of `stem` as the raw files say."""
    return RawPhase(stem, phase)
