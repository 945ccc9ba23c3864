"""What the bounded gossip of the rank engine carries about a rank: per-cluster aggregates.

A :class:`Summary` lists a rank's clusters (a shared block's tasks, or a block-less task; the
pinned tasks of a block, and the block-less pinned tasks, as one pinned cluster each) with
their summed load and footprint, their largest working memory and their block, and the bytes
each cluster sends to and receives from every rank it talks to: a CSR over the clusters of
``(rank, bytes out, bytes in)`` sorted by rank (the rank's own id: its other clusters; -1: a
rank not known), plus the bytes that stay inside the cluster. Its size is O(clusters +
cluster-rank pairs), whatever the number of edges: edges inside one cluster or between two
clusters of the rank only add to numbers already there.

:func:`estimate_problem` turns two summaries into a small problem for the C pair step (the
serial engine's FindBestCCM), which estimates the best exchange between the two ranks: a
cluster's bytes towards its own rank go to a pinned pseudo-task there (they leave the
rank with the cluster), its bytes towards the other rank of the pair become local once it
moves there, its bytes towards every other rank stay remote. The bytes between the two ranks
are known per cluster on both sides; they are spread over the cluster pairs in proportion to
both sides (each cluster of the proposing rank keeps its own total), so that moving a cluster
either way makes its bytes towards the receiving rank local and its bytes towards the
sender's other clusters remote (Sec. III-E of [Lifflander 2024]: ``W = a L + b max(out, in) +
g loc + d H``). The exact pair step after the lock (both ranks' records) is not changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _core
from .._errors import WpartError, WpartRuntimeError
from ._rankdata import RankData, member, pair_rank_fields

__all__ = ["Summary", "summarize", "summarize_np", "estimate_problem", "estimate_peers",
           "CROSS_PAIRS"]

_I64 = np.int64
_F64 = np.float64

#: the most cluster pairs over which an estimate spreads the bytes between the two ranks;
#: beyond, each cluster of the proposing rank keeps its bytes towards the other rank as one
#: number towards that rank (exact when only the proposer's clusters move)
CROSS_PAIRS = 4096

#: an id on neither rank of a pair (the endpoint of the bytes towards every other rank)
GHOST = int(np.iinfo(np.int64).min) + 1


def _e(dtype) -> np.ndarray:
    return np.zeros(0, dtype)


def _base(rank: int) -> int:
    """Ids of a rank's special pseudo-tasks: distinct between ranks, below every block
    cluster's id (-2 - block id) and every task id (>= 0)."""
    return -(1 << 62) - int(rank) * (1 << 24)


def anchor_gid(rank: int) -> int:
    """The id of the pinned pseudo-task standing for a rank's other clusters."""
    return _base(rank) + 1


@dataclass
class Summary:
    """Per-cluster aggregates of one rank (see the module docstring); ``gid`` sorted.

    ``cptr`` (n + 1) indexes ``crank`` / ``cout`` / ``cin``: cluster ``i`` sends
    ``cout[j]`` bytes to and receives ``cin[j]`` bytes from the tasks on rank ``crank[j]``
    for ``cptr[i] <= j < cptr[i + 1]`` (ranks ascending; the summary's own rank: its other
    clusters; -1: unknown); ``cself[i]`` bytes stay inside cluster ``i``. ``work`` is the
    rank's W and ``version`` the version of its task set the summary describes.
    """

    rank: int
    gid: np.ndarray = field(default_factory=lambda: _e(_I64))
    load: np.ndarray = field(default_factory=lambda: _e(_F64))
    fp: np.ndarray = field(default_factory=lambda: _e(_F64))
    wk: np.ndarray = field(default_factory=lambda: _e(_F64))
    blk: np.ndarray = field(default_factory=lambda: _e(_I64))
    pinned: np.ndarray = field(default_factory=lambda: _e(_I64))
    cptr: np.ndarray = field(default_factory=lambda: np.zeros(1, _I64))
    crank: np.ndarray = field(default_factory=lambda: _e(np.int32))
    cout: np.ndarray = field(default_factory=lambda: _e(_F64))
    cin: np.ndarray = field(default_factory=lambda: _e(_F64))
    cself: np.ndarray = field(default_factory=lambda: _e(_F64))
    bid: np.ndarray = field(default_factory=lambda: _e(_I64))
    bsize: np.ndarray = field(default_factory=lambda: _e(_F64))
    bhome: np.ndarray = field(default_factory=lambda: _e(np.int32))
    baseline: float = 0.0
    cap: float = float("inf")
    alpha: float = float("nan")
    work: float = float("nan")
    version: int = 0

    @property
    def n_clusters(self) -> int:
        return int(self.gid.shape[0])

    @property
    def n_pairs(self) -> int:
        """Cluster-rank pairs with bytes."""
        return int(self.crank.shape[0])

    def volumes(self, i: int) -> tuple:
        """``(ranks, bytes out, bytes in)`` of cluster `i`."""
        s = slice(int(self.cptr[i]), int(self.cptr[i + 1]))
        return self.crank[s], self.cout[s], self.cin[s]

    def towards(self, rank: int) -> tuple:
        """``(bytes out, bytes in)`` of every cluster towards the tasks on `rank`."""
        n = self.n_clusters
        ci = np.repeat(np.arange(n), np.diff(self.cptr))
        m = self.crank == rank
        return (np.bincount(ci[m], weights=self.cout[m], minlength=n),
                np.bincount(ci[m], weights=self.cin[m], minlength=n))

    def __getstate__(self) -> dict:  # the cache of :meth:`_static` is not sent
        return {k: v for k, v in self.__dict__.items() if k not in ("_pre", "_c")}

    def _static(self) -> tuple:
        """What the estimates need whatever the other rank (computed once): per entry its
        cluster; the entries towards the own rank; per cluster the bytes out / in towards
        every other rank."""
        pre = self.__dict__.get("_pre")
        if pre is None:
            n = self.n_clusters
            ci = np.repeat(np.arange(n), np.diff(self.cptr))
            own = np.flatnonzero(self.crank == self.rank)
            far = self.crank != self.rank
            pre = (ci, own, np.bincount(ci[far], weights=self.cout[far], minlength=n),
                   np.bincount(ci[far], weights=self.cin[far], minlength=n))
            self.__dict__["_pre"] = pre
        return pre

    def c_fields(self) -> tuple:
        """The summary as the C estimate takes it (:func:`wpart._core.tasks_ranks_estimate`,
        csrc/tasks/ranks_estimate.c; computed once)."""
        cf = self.__dict__.get("_c")
        if cf is None:
            c64 = np.ascontiguousarray
            pin = (member(self.gid, self.pinned) if self.pinned.size
                   else np.zeros(self.n_clusters, bool)).astype(np.uint8)
            cf = (int(self.rank), c64(self.blk, _I64), c64(self.cptr, _I64), c64(self.bid, _I64),
                  c64(self.load, _F64), c64(self.fp, _F64), c64(self.wk, _F64),
                  c64(self.cout, _F64), c64(self.cin, _F64), c64(self.cself, _F64),
                  c64(self.bsize, _F64), pin, c64(self.crank, np.int32),
                  c64(self.bhome, np.int32), float(self.baseline), float(self.cap),
                  float(self.alpha), c64(self.gid, _I64))
            self.__dict__["_c"] = cf
        return cf

    def without(self, gids) -> "Summary":
        """A copy without the clusters `gids` (a stale summary naming clusters now held by
        the rank that reads it)."""
        keep = ~member(self.gid, gids)
        cnt = np.diff(self.cptr)
        ek = np.repeat(keep, cnt)
        bl = self.blk[keep]
        bs = member(self.bid, bl)
        kg = self.gid[keep]
        return Summary(self.rank, gid=kg, load=self.load[keep], fp=self.fp[keep],
                       wk=self.wk[keep], blk=bl,
                       pinned=self.pinned[member(self.pinned, kg, True)],
                       cptr=np.concatenate([[0], np.cumsum(cnt[keep])]).astype(_I64),
                       crank=self.crank[ek], cout=self.cout[ek], cin=self.cin[ek],
                       cself=self.cself[keep], bid=self.bid[bs], bsize=self.bsize[bs],
                       bhome=self.bhome[bs], baseline=self.baseline, cap=self.cap,
                       alpha=self.alpha, work=self.work, version=self.version)


def estimate_peers(mine: Summary, others: list, coeffs: tuple, step_args: tuple,
                   per_rank: bool = True, fallback: bool = True) -> tuple:
    """Per summary of `others`: ``(found, excess reduction, gain)`` of the best exchange of
    `mine`'s rank with that rank, estimated from the two summaries in C, all in one call
    (:func:`wpart._core.tasks_ranks_estimate_peers`, csrc/tasks/ranks_estimate.c). The
    clusters of a stale summary that `mine` holds are left out first, as
    ``other.without(mine.gid)`` does; each estimate equals
    :func:`wpart._core.tasks_ranks_estimate` on the two summaries bit for bit. `step_args`:
    ``RankParams.step_args()``."""
    if not others:
        return ()
    return _core.tasks_ranks_estimate_peers(
        mine.c_fields(), tuple(o.c_fields() for o in others), coeffs, *step_args, CROSS_PAIRS,
        bool(per_rank), bool(fallback), True)


def summarize(d: RankData, work: float, per_task: bool = False, version: int = 0) -> Summary:
    """The :class:`Summary` of the rank holding `d` (its W is `work`). With `per_task`
    (single-task clusters, or sub-cluster moves) every task is its own cluster. The rank
    of an edge's far end is the one `d` knows (``esr``/``edr``), -1 where it is not known.
    Computed in C (:func:`wpart._core.tasks_ranks_summarize`, csrc/tasks/ranks_summary.c);
    :func:`summarize_np` is the numpy reference (the same arrays bit for bit), also the
    fallback for records whose dtypes or order the C call does not take."""
    c = np.ascontiguousarray
    esr, edr = d._cols()[10:12]  # (not copied: the C call only reads them)
    try:
        key, load, fp, wk, blk, pin, cself, cptr, crank, cout, cin, bsel = \
            _core.tasks_ranks_summarize(
                c(d.gid, _I64), c(d.blk, _I64), c(d.esrc, _I64), c(d.edst, _I64),
                c(esr, np.int32), c(edr, np.int32), c(d.bid, _I64), c(d.pinned, _I64),
                c(d.load, _F64), c(d.fp, _F64), c(d.wk, _F64), c(d.ebytes, _F64), int(d.rank),
                bool(per_task))
    except WpartError:  # ids not sorted: the reference
        return summarize_np(d, work, per_task, version)
    return Summary(int(d.rank), gid=key, load=load, fp=fp, wk=wk, blk=blk, pinned=key[pin],
                   cptr=cptr, crank=crank, cout=cout, cin=cin, cself=cself,
                   bid=d.bid[bsel], bsize=d.bsize[bsel], bhome=d.bhome[bsel],
                   baseline=d.baseline, cap=d.cap, alpha=d.alpha, work=float(work),
                   version=int(version))


def summarize_np(d: RankData, work: float, per_task: bool = False,
                 version: int = 0) -> Summary:
    """:func:`summarize` in numpy (the reference)."""
    me = int(d.rank)
    K = d.gid.size
    pm = member(d.gid, d.pinned, True) if d.pinned.size else np.zeros(K, bool)
    has = (d.blk >= 0) if not per_task else np.zeros(K, bool)
    base = _base(me)
    key = np.where(has & ~pm, -2 - d.blk, d.gid)          # clusters; singles: own id
    ubp = np.unique(d.blk[has & pm])
    if ubp.size:
        key[has & pm] = base - np.searchsorted(ubp, d.blk[has & pm])
    if not per_task and (~has & pm).any():
        key[~has & pm] = base - ubp.size
    uk, inv = np.unique(key, return_inverse=True)
    n = uk.size
    load, fp, wk = np.zeros(n), np.zeros(n), np.zeros(n)
    np.add.at(load, inv, d.load)
    np.add.at(fp, inv, d.fp)
    np.maximum.at(wk, inv, d.wk)
    blk = np.full(n, -1, _I64)
    blk[inv] = d.blk  # a cluster of several tasks holds one block (or none)
    pin = np.zeros(n, bool)
    pin[inv[pm]] = True
    # communication: per edge end here, its cluster and the rank of the far end
    esr, edr = d._eranks()
    eb = np.asarray(d.ebytes, _F64)
    pos_s = np.minimum(np.searchsorted(d.gid, d.esrc), max(K - 1, 0))
    pos_d = np.minimum(np.searchsorted(d.gid, d.edst), max(K - 1, 0))
    loc_s = (d.gid[pos_s] == d.esrc) if K else np.zeros(d.esrc.size, bool)
    loc_d = (d.gid[pos_d] == d.edst) if K else np.zeros(d.edst.size, bool)
    cs = np.where(loc_s, inv[pos_s] if K else 0, -1)
    cd = np.where(loc_d, inv[pos_d] if K else 0, -1)
    # a far end said to be here but not held here is a stale record: unknown
    rs = np.where(loc_s, me, np.where(esr == me, -1, esr)).astype(_I64)
    rd = np.where(loc_d, me, np.where(edr == me, -1, edr)).astype(_I64)
    inner = loc_s & loc_d & (cs == cd)
    # (bincount of nothing is int64: float64 as the C summary's)
    cself = np.bincount(cs[inner], weights=eb[inner], minlength=n).astype(_F64) if n \
        else np.zeros(0)
    om, im = loc_s & ~inner & (eb > 0), loc_d & ~inner & (eb > 0)  # zero bytes: nothing
    c = np.concatenate([cs[om], cd[im]]).astype(_I64)
    r = np.concatenate([rd[om], rs[im]])
    b = np.concatenate([eb[om], eb[im]])
    out = np.concatenate([np.ones(int(om.sum()), bool), np.zeros(int(im.sum()), bool)])
    M = int(max(me, r.max() if r.size else 0)) + 2
    u2, inv2 = np.unique(c * M + (r + 1), return_inverse=True)
    cout = np.bincount(inv2, weights=np.where(out, b, 0.0), minlength=u2.size).astype(_F64)
    cin = np.bincount(inv2, weights=np.where(out, 0.0, b), minlength=u2.size).astype(_F64)
    cc = u2 // M
    bsel = member(d.bid, blk)
    return Summary(me, gid=uk.astype(_I64), load=load, fp=fp, wk=wk, blk=blk,
                   pinned=uk[pin].astype(_I64),
                   cptr=np.searchsorted(cc, np.arange(n + 1)).astype(_I64),
                   crank=(u2 % M - 1).astype(np.int32), cout=cout, cin=cin, cself=cself,
                   bid=d.bid[bsel], bsize=d.bsize[bsel], bhome=d.bhome[bsel],
                   baseline=d.baseline, cap=d.cap, alpha=d.alpha, work=float(work),
                   version=int(version))


def estimate_problem(a: Summary, b: Summary, coeff_alpha: float,
                     cross_pairs: int = CROSS_PAIRS, per_rank: bool = True) -> tuple:
    """The problem of two summarised ranks for the C pair step: ``(dict, assignment,
    gids)`` as :func:`~wpart.tasks._rankdata.pair_problem`: `a`'s clusters on local rank 0,
    then its pinned pseudo-task of zero load (its other clusters), `b`'s clusters and pseudo-task
    on 1, and one task on 2 for every other rank. The bytes from `a`'s clusters to `b`'s are
    spread over the cluster pairs as ``out_a[c] in_b[d] / sum(in_b)`` (and the other way
    round, `a`'s clusters keeping their own totals), at most `cross_pairs` pairs per
    direction; beyond (or when one side has none), `a`'s clusters keep their bytes towards
    `b` as edges to `b`'s pseudo-task (`b`'s, when `a` has none). Without `per_rank`, the
    bytes between the two ranks count as bytes towards every other rank (a cluster keeps
    them remote wherever it goes: the estimate of a summary with one number "towards the
    rest" per cluster)."""
    na, nb = a.n_clusters, b.n_clusters
    anc = (na, na + nb + 1)         # local index of each rank's pseudo-task
    ghost = na + nb + 2
    off = (0, na + 1)
    src, dst, byt = [], [], []
    tw = []
    for side, (s, other) in enumerate(((a, b.rank), (b, a.rank))):
        n, o = s.n_clusters, off[side]
        ci, own, far_out, far_in = s._static()
        x = np.flatnonzero(s.crank == other) if per_rank else np.zeros(0, _I64)
        t_out, t_in = np.zeros(n), np.zeros(n)
        t_out[ci[x]] = s.cout[x]
        t_in[ci[x]] = s.cin[x]
        tw.append((t_out, t_in))
        idx = np.arange(o, o + n)
        c = ci[own] + o
        A = np.full(own.size, anc[side])
        G = np.full(n, ghost)
        src += [idx, c, A, idx, G]
        dst += [idx, A, c, G, idx]
        # towards every other rank: all but the pair's other rank (one entry per cluster)
        byt += [s.cself, s.cout[own], s.cin[own], np.where(t_out > 0, far_out - t_out, far_out),
                np.where(t_in > 0, far_in - t_in, far_in)]
    (a_out, a_in), (b_out, b_in) = tw
    for sa, r, q in ((True, a_out, b_in), (False, b_out, a_in)):  # bytes from s to t
        so, to = (off[0], off[1]) if sa else (off[1], off[0])
        rn, qn = np.flatnonzero(r), np.flatnonzero(q)
        if rn.size and qn.size and rn.size * qn.size <= cross_pairs:
            w = np.outer(r[rn], q[qn] / q[qn].sum()) if sa else \
                np.outer(r[rn] / r[rn].sum(), q[qn])  # a's clusters keep their own totals
            src.append(np.repeat(rn + so, qn.size))
            dst.append(np.tile(qn + to, rn.size))
            byt.append(w.ravel())
        elif sa and rn.size or not sa and not qn.size:  # the sender's view
            src.append(rn + so)
            dst.append(np.full(rn.size, anc[1 if sa else 0]))
            byt.append(r[rn])
        else:                                            # the receiver's view
            src.append(np.full(qn.size, anc[0 if sa else 1]))
            dst.append(qn + to)
            byt.append(q[qn])
    eb = np.concatenate(byt)
    keep = eb > 0
    T = ghost + 1
    z1 = np.zeros(1)
    gids = np.concatenate([a.gid, [anchor_gid(a.rank)], b.gid, [anchor_gid(b.rank)],
                           [GHOST]]).astype(_I64)
    assign = np.concatenate([np.zeros(na + 1, np.int32), np.ones(nb + 1, np.int32),
                             [2]]).astype(np.int32)

    def col(x, y):
        return np.concatenate([x, z1, y, z1, z1])
    d: dict = {"n_ranks": 3, "task_load": col(a.load, b.load)}
    if a.fp.any() or b.fp.any():
        d["task_footprint"] = col(a.fp, b.fp)
    if a.wk.any() or b.wk.any():
        d["task_working"] = col(a.wk, b.wk)
    blk = np.concatenate([a.blk, [-1], b.blk, [-1, -1]]).astype(_I64)
    if (blk >= 0).any():
        bids = np.unique(blk[blk >= 0])
        tb = np.full(T, -1, np.int32)
        tb[blk >= 0] = np.searchsorted(bids, blk[blk >= 0])
        ub, ib = np.unique(np.concatenate([b.bid, a.bid]), return_index=True)
        pos = np.searchsorted(ub, bids)
        if (pos >= ub.size).any() or (ub[np.minimum(pos, ub.size - 1)] != bids).any():
            raise WpartRuntimeError("a cluster accesses a block with no size or home")
        home = np.concatenate([b.bhome, a.bhome])[ib][pos]
        d["task_block"] = tb
        d["block_size"] = np.ascontiguousarray(np.concatenate([b.bsize, a.bsize])[ib][pos],
                                               _F64)
        d["block_home"] = np.where(home == a.rank, 0, np.where(home == b.rank, 1, 2)).astype(
            np.int32)
    if keep.any():
        d["edge_src"] = np.concatenate(src)[keep].astype(np.int32)
        d["edge_dst"] = np.concatenate(dst)[keep].astype(np.int32)
        d["edge_bytes"] = np.ascontiguousarray(eb[keep], _F64)
    mig = np.ones(T, bool)
    mig[[anc[0], anc[1]]] = False
    if a.pinned.size or b.pinned.size:
        mig[:na] &= ~np.isin(a.gid, a.pinned)
        mig[na + 1:na + 1 + nb] &= ~np.isin(b.gid, b.pinned)
    d["task_migratable"] = mig
    pair_rank_fields(d, a, b, coeff_alpha)
    return d, assign, gids
