"""What one rank of a distributed CCM-LB run holds: its own tasks, and nothing global.

:class:`RankData` is the records of the tasks on one rank (ids, loads, memory, shared block,
initial rank, LBDatafile entity) with every communication edge incident to them and the
shared blocks they access. Moving tasks between ranks moves their records. A pair of ranks is
turned into a small problem for the C step (:func:`pair_problem`): the two ranks' tasks on
local ranks 0 and 1, the other endpoints of their edges on a third rank. ``W`` of a rank
depends only on its own task set (the CCM model, Sec. III-E of the paper), so the pair's works
are exact.
"""

from __future__ import annotations
from .._errors import WpartError, WpartRuntimeError, WpartValueError

from dataclasses import dataclass, field, replace

import numpy as np

from .. import _core

__all__ = ["RankData", "pair_problem", "split_problem"]

_I64 = np.int64
_F64 = np.float64
_TASK_COLS = ("gid", "load", "fp", "wk", "blk", "orig")


def _e(dtype) -> np.ndarray:
    return np.zeros(0, dtype)


def member(x, s, is_sorted: bool = False) -> np.ndarray:
    """``np.isin(x, s)`` for integer arrays by a binary search in `s` (sorted first unless
    `is_sorted`): the same flags, without isin's set-up cost on the small arrays of a rank."""
    x, s = np.asarray(x), np.asarray(s)
    if not x.size or not s.size:
        return np.zeros(x.shape, bool)
    if not is_sorted:
        s = np.sort(s)
    pos = np.minimum(np.searchsorted(s, x), s.size - 1)
    return s[pos] == x


@dataclass
class RankData:
    """The records of the tasks on one rank.

    Task arrays are sorted by ``gid`` (the task's global id, e.g. the LBDatafile entity id);
    ``blk`` is the shared block's global id (-1: none), ``orig`` the rank the task started on.
    Edge arrays (``eid`` unique, global edge ids; ``esrc``/``edst`` task gids) hold every edge
    incident to the rank's tasks; block arrays (``bid`` sorted) the blocks they access.
    ``esr``/``edr`` are the ranks holding each edge's source and destination as this rank
    knows them (-1: unknown): exact for its own tasks and, after an exchange, for the tasks of
    the pair; a move between two other ranks is not seen (the bounded summary then counts
    those bytes towards the rank the task was on; only estimates use it).
    ``cap`` is the rank's memory cap (``inf``: none) and ``alpha`` its speed factor (``nan``:
    the coefficient's). ``pinned`` (sorted gids) lists the tasks here that never move
    (LBDatafile ``"migratable": false``).
    """

    rank: int
    gid: np.ndarray = field(default_factory=lambda: _e(_I64))
    load: np.ndarray = field(default_factory=lambda: _e(_F64))
    fp: np.ndarray = field(default_factory=lambda: _e(_F64))
    wk: np.ndarray = field(default_factory=lambda: _e(_F64))
    blk: np.ndarray = field(default_factory=lambda: _e(_I64))
    orig: np.ndarray = field(default_factory=lambda: _e(np.int32))
    eid: np.ndarray = field(default_factory=lambda: _e(_I64))
    esrc: np.ndarray = field(default_factory=lambda: _e(_I64))
    edst: np.ndarray = field(default_factory=lambda: _e(_I64))
    ebytes: np.ndarray = field(default_factory=lambda: _e(_F64))
    esr: np.ndarray = field(default_factory=lambda: _e(np.int32))
    edr: np.ndarray = field(default_factory=lambda: _e(np.int32))
    bid: np.ndarray = field(default_factory=lambda: _e(_I64))
    bsize: np.ndarray = field(default_factory=lambda: _e(_F64))
    bhome: np.ndarray = field(default_factory=lambda: _e(np.int32))
    baseline: float = 0.0
    cap: float = float("inf")
    alpha: float = float("nan")
    ents: dict = field(default_factory=dict)
    pinned: np.ndarray = field(default_factory=lambda: _e(_I64))
    work: float = float("nan")  # W of the rank, when known
    version: int = 0            # the rank's task-set version

    @property
    def n_tasks(self) -> int:
        return int(self.gid.shape[0])

    # ------------------------------------------------------------------ moving tasks
    def _task_part(self, m: np.ndarray) -> dict:
        return {k: getattr(self, k)[m] for k in ("gid", "load", "fp", "wk", "blk", "orig")}

    def _eranks(self) -> tuple:
        """``(esr, edr)``, -1 where the ranks of the edges' ends are not known."""
        n = self.eid.size
        if self.esr.size != n or self.edr.size != n:
            return np.full(n, -1, np.int32), np.full(n, -1, np.int32)
        return self.esr.copy(), self.edr.copy()

    def _cols(self) -> tuple:
        """The 15 record columns as the C moves take them (tasks, edges with the ranks of
        their ends, blocks: :data:`_COLS`)."""
        n = self.eid.size
        esr, edr = ((self.esr, self.edr) if self.esr.size == n and self.edr.size == n
                    else self._eranks())
        return (self.gid, self.load, self.fp, self.wk, self.blk, self.orig, self.eid, self.esrc,
                self.edst, self.ebytes, esr, edr, self.bid, self.bsize, self.bhome)

    def _set_cols(self, cols: tuple) -> None:
        (self.gid, self.load, self.fp, self.wk, self.blk, self.orig, self.eid, self.esrc,
         self.edst, self.ebytes, self.esr, self.edr, self.bid, self.bsize, self.bhome) = cols

    def extract(self, gids, to: int | None = None) -> "RankData":
        """Remove the tasks `gids` (all must be here) and return their records; `to`: the
        rank they go to (their edges' end ranks are updated on both sides). One C call
        (:func:`wpart._core.tasks_ranks_extract`, csrc/tasks/ranks_move.c; :meth:`extract_np`
        is the numpy reference, also used for records whose dtypes or order the C call does
        not take)."""
        gids = np.asarray(gids, _I64)
        self._pinned_check(gids)
        try:
            nf, nu, keep, out = _core.tasks_ranks_extract(
                self._cols(), np.ascontiguousarray(gids.ravel()), -1 if to is None else int(to))
        except WpartError:  # records not sorted as the C split needs: the numpy reference
            return self.extract_np(gids, to)
        if nf != nu:
            missing = np.setdiff1d(gids, self.gid)
            raise WpartRuntimeError(f"rank {self.rank} does not hold tasks {missing[:8].tolist()}")
        moved = self._moved(out, True)
        for g in moved.ents:
            self.ents.pop(g)
        self._set_cols(keep)
        return moved

    def insert(self, other: "RankData") -> None:
        """Add the tasks of `other` (records from another rank). One C call
        (:func:`wpart._core.tasks_ranks_insert`: the merges of the sorted ids, then the ranks
        of the ends held here; :meth:`insert_np` is the numpy reference, also used for
        records whose dtypes or order the C call does not take)."""
        try:
            common, cols = _core.tasks_ranks_insert(self._cols(), other._cols(), int(self.rank))
        except WpartError:  # ids not sorted as the C merge needs: the numpy reference
            return self.insert_np(other)
        if common:
            raise WpartRuntimeError(f"rank {self.rank} already holds some of the incoming tasks")
        self._set_cols(cols)
        if other.ents:
            self.ents.update(other.ents)
        if other.pinned.size:
            self.pinned = np.union1d(self.pinned, other.pinned)

    def _pinned_check(self, gids: np.ndarray) -> None:
        if self.pinned.size and member(gids, self.pinned, True).any():
            raise WpartRuntimeError(f"rank {self.rank}: tasks "
                                    f"{np.intersect1d(gids, self.pinned)[:8].tolist()} are "
                                    "pinned (migratable false) and never move")

    def _moved(self, cols: tuple, ents: bool) -> "RankData":
        """Records of the columns `cols` leaving this rank (their LBDatafile entities)."""
        e = ({int(g): self.ents[int(g)] for g in cols[0].tolist() if int(g) in self.ents}
             if ents and self.ents else {})
        moved = RankData(self.rank, ents=e)
        moved._set_cols(cols)
        return moved

    def records_of(self, gids, to: int | None = None) -> "RankData":
        """What :meth:`extract` returns, this rank unchanged (one C call,
        :func:`wpart._core.tasks_ranks_swap`)."""
        gids = np.asarray(gids, _I64)
        self._pinned_check(gids)
        try:
            nf, nu, _, out, _ = _core.tasks_ranks_swap(
                self._cols(), np.ascontiguousarray(gids.ravel()), -1 if to is None else int(to),
                None, int(self.rank), True)
        except WpartError:  # records the C call does not take: the reference
            return self.copy().extract_np(gids, to)
        if nf != nu:
            missing = np.setdiff1d(gids, self.gid)
            raise WpartRuntimeError(f"rank {self.rank} does not hold tasks {missing[:8].tolist()}")
        return self._moved(out, True)

    def swap(self, gids, to: int | None, other: "RankData",
             keep_moved: bool = False) -> "RankData | None":
        """:meth:`extract` of `gids` (leaving for `to`), then :meth:`insert` of `other`, in
        one C call (:func:`wpart._core.tasks_ranks_swap`; the same records bit for bit); the
        records that left when `keep_moved`. On an error this rank is unchanged."""
        gids = np.asarray(gids, _I64)
        self._pinned_check(gids)
        try:
            nf, nu, common, out, cols = _core.tasks_ranks_swap(
                self._cols(), np.ascontiguousarray(gids.ravel()), -1 if to is None else int(to),
                other._cols(), int(self.rank), bool(keep_moved or self.ents))
        except WpartError:  # records the C call does not take: the references (on a copy,
            t = self.copy()   # so that an error leaves this rank unchanged)
            moved = t.extract_np(gids, to)
            t.insert_np(other)
            self.__dict__.update(t.__dict__)
            return moved if keep_moved else None
        if nf != nu:
            missing = np.setdiff1d(gids, self.gid)
            raise WpartRuntimeError(f"rank {self.rank} does not hold tasks {missing[:8].tolist()}")
        if common:
            raise WpartRuntimeError(f"rank {self.rank} already holds some of the incoming tasks")
        moved = self._moved(out, True) if out is not None else None
        for g in (moved.ents if moved is not None else ()):
            self.ents.pop(g, None)
        self._set_cols(cols)
        if other.ents:
            self.ents.update(other.ents)
        if other.pinned.size:
            self.pinned = np.union1d(self.pinned, other.pinned)
        return moved if keep_moved else None

    def snapshot(self) -> "RankData":
        """A copy sharing the arrays (no RankData method writes into its arrays: a move or a
        location notice gives the rank new ones), with its own entity map: what a lock grant
        hands over in-process, at the cost of one object."""
        c = replace(self, ents=dict(self.ents))
        return c

    def extract_np(self, gids, to: int | None = None) -> "RankData":
        """:meth:`extract` in numpy (the reference of the C split)."""
        gids = np.asarray(gids, _I64)
        esr, edr = self._eranks()
        if to is not None and gids.size:
            sg = np.sort(gids)
            esr[member(self.esrc, sg, True)] = to
            edr[member(self.edst, sg, True)] = to
        if self.pinned.size and member(gids, self.pinned, True).any():
            raise WpartRuntimeError(f"rank {self.rank}: tasks "
                                    f"{np.intersect1d(gids, self.pinned)[:8].tolist()} are "
                                    "pinned (migratable false) and never move")
        m = member(self.gid, gids)
        if int(m.sum()) != np.unique(gids).size:
            missing = np.setdiff1d(gids, self.gid)
            raise WpartRuntimeError(f"rank {self.rank} does not hold tasks {missing[:8].tolist()}")
        out_tasks = self._task_part(m)
        keep = self._task_part(~m)
        n = self.gid.size
        inc_out = np.zeros(self.esrc.size, bool)
        inc_keep = np.zeros(self.esrc.size, bool)
        for ends in (self.esrc, self.edst):  # each edge end: a task here, moving or staying?
            pos = np.minimum(np.searchsorted(self.gid, ends), max(n - 1, 0))
            here = (self.gid[pos] == ends) if n else np.zeros(ends.size, bool)
            inc_out |= here & m[pos] if n else here
            inc_keep |= here & ~m[pos] if n else here
        bo = member(self.bid, out_tasks["blk"])
        bk = member(self.bid, keep["blk"])
        moved = RankData(self.rank, **out_tasks,
                         **{k: getattr(self, k)[inc_out] for k in ("eid", "esrc", "edst", "ebytes")},
                         esr=esr[inc_out], edr=edr[inc_out],
                         bid=self.bid[bo], bsize=self.bsize[bo], bhome=self.bhome[bo],
                         ents={int(g): self.ents[int(g)] for g in out_tasks["gid"]
                               if int(g) in self.ents})
        for k, v in keep.items():
            setattr(self, k, v)
        for k in ("eid", "esrc", "edst", "ebytes"):
            setattr(self, k, getattr(self, k)[inc_keep])
        self.esr, self.edr = esr[inc_keep], edr[inc_keep]
        self.bid, self.bsize, self.bhome = self.bid[bk], self.bsize[bk], self.bhome[bk]
        for g in out_tasks["gid"]:
            self.ents.pop(int(g), None)
        return moved

    def insert_np(self, other: "RankData") -> None:
        """:meth:`insert` in numpy (the reference of the C union)."""
        if member(other.gid, self.gid, True).any():
            raise WpartRuntimeError(f"rank {self.rank} already holds some of the incoming tasks")
        g = np.concatenate([self.gid, other.gid])
        o = np.argsort(g, kind="stable")
        for k in ("gid", "load", "fp", "wk", "blk", "orig"):
            setattr(self, k, np.concatenate([getattr(self, k), getattr(other, k)])[o])
        e = np.concatenate([self.eid, other.eid])
        ue, ie = np.unique(e, return_index=True)
        rs = [np.concatenate(x)[ie] for x in zip(self._eranks(), other._eranks())]
        for k in ("esrc", "edst", "ebytes"):
            setattr(self, k, np.concatenate([getattr(self, k), getattr(other, k)])[ie])
        self.eid = ue
        for r, ends in zip(rs, (self.esrc, self.edst)):  # the ends held here are here now
            r[member(ends, self.gid, True)] = self.rank
        self.esr, self.edr = rs
        b = np.concatenate([self.bid, other.bid])
        ub, ib = np.unique(b, return_index=True)
        self.bsize = np.concatenate([self.bsize, other.bsize])[ib]
        self.bhome = np.concatenate([self.bhome, other.bhome])[ib]
        self.bid = ub
        self.ents.update(other.ents)
        if other.pinned.size:
            self.pinned = np.union1d(self.pinned, other.pinned)

    def c_records(self) -> tuple:
        """The records as the C pair step takes them (:func:`wpart._core.tasks_ranks_pair`,
        csrc/tasks/ranks_pair.c)."""
        c = np.ascontiguousarray
        return (int(self.rank), c(self.gid, _I64), c(self.blk, _I64), c(self.eid, _I64),
                c(self.esrc, _I64), c(self.edst, _I64), c(self.bid, _I64), c(self.pinned, _I64),
                c(self.load, _F64), c(self.fp, _F64), c(self.wk, _F64), c(self.ebytes, _F64),
                c(self.bsize, _F64), c(self.bhome, np.int32), float(self.baseline),
                float(self.cap), float(self.alpha))

    def without(self, gids) -> "RankData":
        """A copy without the tasks `gids` (their edges stay: they name tasks held elsewhere)."""
        m = ~np.isin(self.gid, gids)
        c = self.copy()
        for k, v in self._task_part(m).items():
            setattr(c, k, v)
        if c.pinned.size:
            c.pinned = c.pinned[np.isin(c.pinned, c.gid)]
        return c

    def copy(self) -> "RankData":
        return replace(self, **{k: getattr(self, k).copy() for k in
                                ("gid", "load", "fp", "wk", "blk", "orig", "eid", "esrc", "edst",
                                 "ebytes", "esr", "edr", "bid", "bsize", "bhome", "pinned")},
                       ents=dict(self.ents))

    def summary(self, compress: bool) -> "RankData":
        """What the inform stage carries about this rank (Sec. IV-A of the paper).

        With `compress` (block clusters, no sub-cluster moves) every block cluster becomes one
        pseudo-task (summed load and footprint, largest working memory, its edges renamed),
        which evaluates every whole-cluster exchange exactly; block-less tasks stay single.
        Pseudo-task ids are negative (task ids are >= 0).
        """
        if not compress or not (self.blk >= 0).any():
            return self.copy()
        has = self.blk >= 0
        ub, inv = np.unique(self.blk[has], return_inverse=True)
        pg = -2 - ub                                      # pseudo gid per cluster
        n = ub.size
        load = np.zeros(n)
        fp = np.zeros(n)
        wk = np.zeros(n)
        np.add.at(load, inv, self.load[has])
        np.add.at(fp, inv, self.fp[has])
        np.maximum.at(wk, inv, self.wk[has])
        task_pg = np.full(self.gid.size, 0, _I64)   # pseudo gid of each clustered task
        task_pg[has] = pg[inv]
        s, d = self.esrc.copy(), self.edst.copy()
        for arr in (s, d):  # rename the endpoints that are clustered tasks of this rank
            pos = np.minimum(np.searchsorted(self.gid, arr), max(self.gid.size - 1, 0))
            hit = (self.gid[pos] == arr) & has[pos]
            arr[hit] = task_pg[pos[hit]]
        gid = np.concatenate([pg, self.gid[~has]])
        o = np.argsort(gid, kind="stable")
        pin = np.zeros(0, _I64)
        if self.pinned.size:  # a cluster holding a pinned task stays (as its block does)
            pm = np.isin(self.gid, self.pinned)
            pin = np.union1d(np.unique(pg[inv][pm[has]]), self.gid[~has & pm])
        return RankData(self.rank, gid=gid[o], load=np.concatenate([load, self.load[~has]])[o],
                        fp=np.concatenate([fp, self.fp[~has]])[o],
                        wk=np.concatenate([wk, self.wk[~has]])[o],
                        blk=np.concatenate([ub, self.blk[~has]])[o],
                        orig=np.full(gid.size, self.rank, np.int32),
                        eid=self.eid.copy(), esrc=s, edst=d, ebytes=self.ebytes.copy(),
                        bid=self.bid.copy(), bsize=self.bsize.copy(), bhome=self.bhome.copy(),
                        baseline=self.baseline, cap=self.cap, alpha=self.alpha, pinned=pin)

    def bounded_summary(self, work: float, per_task: bool = False,
                        version: int = 0):
        """The per-cluster aggregates that the bounded gossip carries about this rank: a
        :class:`~wpart.tasks._summary.Summary` (load, memory, and the bytes each cluster
        sends to and receives from every rank it talks to), whose size is O(clusters +
        cluster-rank pairs) whatever the number of edges; see
        :func:`~wpart.tasks._summary.summarize`."""
        from ._summary import summarize

        return summarize(self, work, per_task=per_task, version=version)


def pair_problem(a: RankData, b: RankData | None, coeff_alpha: float) -> tuple:
    """The problem of two ranks for the C step: ``(dict, assignment, gids)``.

    `a`'s tasks are on local rank 0, `b`'s on 1 (by global id), the other endpoints of their
    edges are one task on 2 (last); ``gids[i]`` is the global id of local task ``i``. When both ranks carry an edge, `b`'s
    copy is used (a gossiped summary renames its own endpoints).
    """
    b = b if b is not None else RankData(-1)
    na, nb = a.gid.size, b.gid.size
    tg = np.concatenate([a.gid, b.gid])
    o = np.argsort(tg, kind="stable")
    gs = tg[o]
    if gs.size > 1 and (gs[1:] == gs[:-1]).any():
        raise WpartRuntimeError(f"ranks {a.rank} and {b.rank} both hold a task")
    e = np.concatenate([b.eid, a.eid])
    ue, ie = np.unique(e, return_index=True)
    es = np.concatenate([b.esrc, a.esrc])[ie]
    ed = np.concatenate([b.edst, a.edst])[ie]
    eb = np.concatenate([b.ebytes, a.ebytes])[ie]
    n = gs.size

    def local(x):  # index of each endpoint among the pair's tasks; n: off the pair
        pos = np.minimum(np.searchsorted(gs, x), max(n - 1, 0))
        return np.where(gs[pos] == x, pos, n) if n else np.zeros(x.size, np.int64)
    ls, ld = local(es), local(ed)
    # every endpoint off the pair is one task of zero load on rank 2: the two ranks' W only
    # see that those bytes leave them
    ng = int(ue.size and ((ls == n).any() or (ld == n).any()))
    gids = np.concatenate([gs, np.full(ng, np.iinfo(np.int64).min, _I64)])
    assign = np.concatenate([np.concatenate([np.zeros(na, np.int32),
                                             np.ones(nb, np.int32)])[o],
                             np.full(ng, 2, np.int32)])
    z = np.zeros(ng)
    load = np.concatenate([np.concatenate([a.load, b.load])[o], z])
    blk = np.concatenate([np.concatenate([a.blk, b.blk])[o], np.full(ng, -1, _I64)])
    d: dict = {"n_ranks": 3, "task_load": load}
    if a.fp.any() or b.fp.any():
        d["task_footprint"] = np.concatenate([np.concatenate([a.fp, b.fp])[o], z])
    if a.wk.any() or b.wk.any():
        d["task_working"] = np.concatenate([np.concatenate([a.wk, b.wk])[o], z])
    if (blk >= 0).any():
        bids = np.unique(blk[blk >= 0])
        tb = np.full(blk.size, -1, np.int32)
        tb[blk >= 0] = np.searchsorted(bids, blk[blk >= 0])
        allb = np.concatenate([b.bid, a.bid])
        ub, ib = np.unique(allb, return_index=True)
        pos = np.searchsorted(ub, bids)
        if (pos >= ub.size).any() or (ub[np.minimum(pos, ub.size - 1)] != bids).any():
            raise WpartRuntimeError("a task accesses a block with no size or home")
        size = np.concatenate([b.bsize, a.bsize])[ib][pos]
        home = np.concatenate([b.bhome, a.bhome])[ib][pos]
        d["task_block"] = tb
        d["block_size"] = np.ascontiguousarray(size, _F64)
        d["block_home"] = np.where(home == a.rank, 0, np.where(home == b.rank, 1, 2)).astype(
            np.int32)
    if ue.size:
        d["edge_src"] = ls.astype(np.int32)
        d["edge_dst"] = ld.astype(np.int32)
        d["edge_bytes"] = np.ascontiguousarray(eb, _F64)
    if a.pinned.size or b.pinned.size:
        d["task_migratable"] = ~member(gids, np.concatenate([a.pinned, b.pinned]))
    pair_rank_fields(d, a, b, coeff_alpha)
    return d, assign, gids


def pair_rank_fields(d: dict, a, b, coeff_alpha: float) -> None:
    """The per-rank fields of a pair view (ranks a, b, then the rest): baseline, memory cap
    and alpha, set in `d` only where either rank has one."""
    if a.baseline or b.baseline:
        d["rank_baseline"] = np.array([a.baseline, b.baseline, 0.0])
    if np.isfinite(a.cap) or np.isfinite(b.cap):
        d["rank_mem_cap"] = np.array([a.cap, b.cap, np.inf])
    if not (np.isnan(a.alpha) and np.isnan(b.alpha)):
        d["rank_alpha"] = np.array([coeff_alpha if np.isnan(x) else x
                                    for x in (a.alpha, b.alpha, coeff_alpha)])


def split_problem(problem, assignment: np.ndarray, cap) -> list:
    """Cut a global problem into the :class:`RankData` of every rank (for the in-process
    engine and for writing per-rank inputs). Task and block gids are the problem's external
    ids (``task_ids``, ``block_ids``, as read from LBDatafiles) or else the indices; edge ids
    are the edge indices."""
    a = np.asarray(assignment, np.int32)
    K, I = problem.n_tasks, problem.m
    gid = (np.arange(K, dtype=_I64) if problem.task_ids is None
           else np.asarray(problem.task_ids, _I64))
    if gid.size and (gid.min() < 0 or np.unique(gid).size != K):
        raise WpartValueError("`task_ids` must be distinct and >= 0 for the distributed engine")
    blk = (np.full(K, -1, _I64) if problem.task_block is None
           else np.asarray(problem.task_block, _I64))
    if problem.block_ids is not None and (blk >= 0).any():
        bids = np.asarray(problem.block_ids, _I64)
        blk = np.where(blk >= 0, bids[np.maximum(blk, 0)], -1)
    fp = np.zeros(K) if problem.task_footprint is None else np.asarray(problem.task_footprint)
    wk = np.zeros(K) if problem.task_working is None else np.asarray(problem.task_working)
    E = problem.edges if problem.edges is not None else np.zeros((0, 2), _I64)
    eb = problem.edge_bytes if problem.edge_bytes is not None else np.zeros(0)
    nb = problem.n_blocks
    bsz = np.zeros(0) if nb == 0 else np.asarray(problem.block_size, _F64)
    bhm = np.zeros(0, np.int32) if nb == 0 else np.asarray(problem.block_home, np.int32)
    mig = getattr(problem, "migratable", None)
    mig = np.ones(K, bool) if mig is None else np.asarray(mig, bool)
    pinned_any = not mig.all()
    out = []
    for r in range(I):
        m = a == r
        t = np.flatnonzero(m)
        t = t[np.argsort(gid[t], kind="stable")]  # a rank's tasks sorted by gid, as read
        g = gid[t]
        em = m[E[:, 0]] | m[E[:, 1]] if E.shape[0] else np.zeros(0, bool)
        bi = np.unique(np.asarray(problem.task_block)[m]) if nb else np.zeros(0, np.int64)
        bl = bi[bi >= 0]
        out.append(RankData(
            r, gid=g, load=np.asarray(problem.task_load, _F64)[t], fp=fp[t].astype(_F64),
            wk=wk[t].astype(_F64), blk=blk[t], orig=np.full(g.size, r, np.int32),
            eid=np.flatnonzero(em).astype(_I64), esrc=gid[E[em, 0]],
            edst=gid[E[em, 1]], ebytes=np.asarray(eb, _F64)[em],
            esr=a[E[em, 0]], edr=a[E[em, 1]],
            bid=(bl if problem.block_ids is None
                 else np.asarray(problem.block_ids, _I64)[bl]).astype(_I64),
            bsize=bsz[bl] if bl.size else np.zeros(0),
            bhome=bhm[bl] if bl.size else np.zeros(0, np.int32),
            baseline=0.0 if problem.rank_baseline is None else float(problem.rank_baseline[r]),
            cap=float("inf") if cap is None else float(cap[r]),
            alpha=float("nan") if problem.rank_alpha is None else float(problem.rank_alpha[r]),
            pinned=np.sort(g[~mig[t]]) if pinned_any else np.zeros(0, _I64)))
    return out
