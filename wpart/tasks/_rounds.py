"""Concurrent exchanges in rounds: the transfer stage of the rank engine (default protocol).

Every round of an iteration (after the bounded gossip of the inform stage):

1. every rank computes its proposals from its own tasks and the summaries it keeps
   (:meth:`~wpart.tasks._ranks.RankProcess.proposals`): up to ``offers`` peers whose best
   cluster exchange pays as estimated from the two ranks' summaries;
2. one allreduce of four numbers (:func:`round_scalars`: the largest W, minus the smallest
   W, the largest number of proposals of a rank, the largest drop of a pair's total W in the
   round before): a round in which no rank proposes ends the stage; in the final pass, so
   does a round in which W_max - W_min is within ``final_tol`` of W_max; in an iteration, so
   does a round (after its first) whose W_max is not below the round before's
   (:func:`stalled`; with beta, gamma or delta > 0, only the ``stall_patience``-th such
   round in a row in which no pair lowered its total W either);
3. every rank sends its proposals to their targets only (``PROPOSE``: its W, the estimated
   excess reduction and gain, the version of the target's summary it used); a target answers
   each one (``ACCEPT``, or ``REFRESH`` with its current summary when the proposal was made on
   a stale summary by a rank no longer heavier than the target: the proposer estimates again
   next round). Every accepted proposal is an edge known to both its ends, with the key
   ``(excess reduction, proposer's W, gain, -position of the proposer, -position of the
   target)``
   (``position``: a rank's place in the iteration's seeded order);
4. at most ``handshakes`` handshakes of a locally dominant matching (:class:`Handshake`): in
   each, every rank still free picks its best edge to a neighbour not known to be matched or
   done and tells every such neighbour its pick (``PICK``); two ranks that picked each other
   are matched. A matched rank (or one with no edge left) says so at the next handshake and
   leaves. The edge of largest key is matched at the first handshake;
5. every matched pair runs CCM-LB's exact pair step at the same time: the end that made the
   proposal of the edge locks the other, which sends its records (``LOCK_GRANT``); the
   proposer evaluates FindBestCCM on the pair exactly and sends ``GIVE`` (answered
   ``GIVE_BACK``), again while an exchange pays (at most ``pair_steps`` in a round), then
   ``RELEASE``.

An iteration runs at most ``max_rounds`` rounds (``max_rounds_comm`` with beta, gamma or
delta > 0; the final pass ``final_rounds``, then, while its rounds still lower W_max, at most
``final_rounds`` more, or as many more as the last iteration ran when that is more:
:func:`stalled`), so the rounds per iteration do not grow with the number of ranks, and a
rank sends messages only to its proposal targets, to the ranks that proposed to it and to its
partner: no step's bytes per rank grow with P (the allreduce: ``ceil(log2 P)`` messages of
four numbers).

The pairs of a round are disjoint. Keys are totally ordered (positions are distinct) and both
ends of an edge hold the same key, so the pairs, and the assignment, depend only on the seed
and the number of ranks, never on message timing: the in-process run (:func:`rounds_stage`)
and MPI (:mod:`wpart.tasks._mpi_rounds`) give the same assignment bit for bit.

After the last iteration, a final pass of the same rounds (when whole clusters are moved,
``subclusters`` none) exchanges single tasks: a rank proposes to every kept peer lighter than
itself (by the W it last heard of), the heaviest rank of the round (by the allreduce) also to
the lightest one and, up to ``offers`` proposals, to the ranks it does not keep (the next ones
after it whose pair has not found nothing since its tasks last changed), and the exact pair
step of a matched pair treats every task as its own
cluster (swaps of one task each way and one-way moves of one task), which evens out what
whole clusters cannot.
"""

from __future__ import annotations

import math
import pickle
import time

import numpy as np

__all__ = ["Handshake", "edge_keys", "positions", "round_scalars", "rounds_stage", "stalled"]


def positions(order) -> np.ndarray:
    """``pos[r]``: the place of rank r in the iteration's seeded order (its priority)."""
    order = np.asarray(order)
    pos = np.empty(order.size, np.int64)
    pos[order] = np.arange(order.size)
    return pos


def round_scalars(w: float, n_props: int, drop: float = 0.0) -> np.ndarray:
    """This rank's entry of the round's max-allreduce: ``[W, -W, proposals, drop]`` (`drop`:
    how much the exchanges this rank made in the round before lowered its pair's total W,
    :attr:`~wpart.tasks._ranks.RankProcess.pair_drop`)."""
    return np.array([w, -w, float(n_props), float(drop)], np.float64)


def extremes(w: float, me: int, red: np.ndarray, P: int) -> np.ndarray:
    """This rank's entry of the final pass's second max-allreduce (which ranks are the
    heaviest and the lightest, smallest rank on ties): ``[-r or -P, -r or -P]``."""
    return np.array([-float(me if w == red[0] else P), -float(me if w == -red[1] else P)])


def stop_round(red: np.ndarray, final: bool, tol: float) -> bool:
    """Whether the round's allreduce ends the stage (no proposal; final pass: even within
    `tol`)."""
    if red[2] <= 0:
        return True
    wmax, wmin = float(red[0]), -float(red[1])
    return bool(final and wmax - wmin <= tol * abs(wmax))


def accepts(w_proposer: float, used_version: int, w_target: float, version: int) -> bool:
    """The target's answer to a proposal: False (``REFRESH``) when it was made on a stale
    summary by a rank no longer heavier than the target."""
    return bool(w_proposer > w_target or int(used_version) == int(version))


def _prio(x) -> tuple:
    """The leading part of an edge's key: a proposal's ``(excess reduction, proposer's W)``
    in the rounds of an iteration, its W difference in the final pass."""
    return tuple(float(v) for v in x) if isinstance(x, tuple) else (float(x),)


def stalled(rk, red, rnd: int, prm) -> bool:
    """Whether the round's allreduce `red` ends the iteration's rounds because the round
    before did not lower W_max (by more than ``prm.stall_tol`` of it) and no pair of it lowered
    its total W (the two ranks' W together: communication, on-rank bytes and homing cut) by
    more than ``prm.stall_drop_tol`` of W_max (``red[3]``; never in the first round of an
    iteration). Every rank calls it once per round (it keeps the last
    W_max, ``rk.last_wmax``), so every rank stops at the same round. In the final pass (with
    ``prm.final_extend``), past its ``prm.final_rounds`` rounds, the ``prm.final_patience``-th
    round in a row whose W_max is not below the round before's ends it."""
    if prm.stall_tol is None or (rk.final and not prm.final_extend):
        return False
    last, rk.last_wmax = rk.last_wmax, float(red[0])
    if rnd == 0:
        rk.stalls = 0
    if not (rnd >= 1 and last is not None and float(red[0]) >= last - prm.stall_tol * abs(last)):
        rk.stalls = 0
        return False
    rk.stalls += 1
    if rk.final:
        return bool(rnd >= prm.final_rounds and rk.stalls >= prm.final_patience)
    if not prm.track_drop:
        return True
    if float(red[3]) > prm.stall_drop_tol * abs(float(red[0])):
        rk.stalls = 0
        return False
    return bool(rk.stalls >= prm.stall_patience)


def edge_keys(me: int, out: list, inc: list, pos) -> dict:
    """``{peer: (key, proposer)}``: the edges of one rank from its accepted proposals `out`
    ``[(target, dexc, gain)]`` and the proposals `inc` ``[(proposer, dexc, gain)]`` it
    accepted (`dexc` may be a tuple: :func:`_prio`); two proposals between the same ranks:
    the larger key."""
    e: dict = {}
    for q, dexc, gain in out:
        k = (*_prio(dexc), float(gain), -int(pos[me]), -int(pos[q]))
        if q not in e or k > e[q][0]:
            e[q] = (k, me)
    for r, dexc, gain in inc:
        k = (*_prio(dexc), float(gain), -int(pos[r]), -int(pos[me]))
        if r not in e or k > e[r][0]:
            e[r] = (k, r)
    return e


class Handshake:
    """One rank's side of the round's locally dominant matching (see the module docstring).

    Each handshake: :meth:`message` (None once this rank has left) goes to every rank of
    :meth:`targets`, then :meth:`receive` takes the messages of those same ranks."""

    def __init__(self, me: int, edges: dict):
        self.me = me
        self.edges = edges
        self.active = set(edges)
        self.partner = -1
        self.done = not edges
        self.pick = -1
        self._sent = None

    def targets(self) -> list:
        return [] if self.done else sorted(self.active)

    def message(self):
        if self.done:
            self._sent = None
            return None
        if self.partner >= 0:
            self._sent = ("M", self.partner)
        elif not self.active:
            self._sent = ("D", -1)
        else:
            self.pick = max(self.active, key=lambda q: self.edges[q][0])
            self._sent = ("P", self.pick)
        return self._sent

    def receive(self, got: dict) -> None:
        sent = self._sent
        if sent is None:
            return
        for q, m in got.items():
            if m[0] != "P":
                self.active.discard(q)
            elif sent[0] == "P" and m[1] == self.me and self.pick == q:
                self.partner = q
        if sent[0] != "P":
            self.done = True


def _size(obj) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def allreduce_bytes(P: int, n: int) -> int:
    """Bytes a rank sends in an allreduce of `n` float64 (recursive doubling)."""
    return 8 * n * max(0, math.ceil(math.log2(P))) if P > 1 else 0


def rounds_stage(ranks: list, prm, pos, trial: int, it: int, count, late=None,
                 limit: int | None = None) -> dict:
    """One iteration's transfer stage with every rank in this process (direct calls).

    `count(kind, n, nbytes, sender)` records the messages; `late()` is checked before every
    round (True: stop). At most `limit` rounds (default ``prm.round_limit(final)``). Returns
    ``moved``, ``rounds``, ``serial_s``, ``critical_path_s``
    (the schedule model, in CPU seconds of this thread without the counting of bytes: between
    two rounds' allreduces, every rank runs its pair step of the round, if any, then computes
    its proposals for the next, all in parallel; the allreduce waits for the slowest rank),
    per-round ``pairs``, ``concurrency`` (serial over critical-path seconds of the round) and
    ``parts`` (the slowest proposals and the slowest pair step, s), and ``stopped``.
    """
    P = len(ranks)
    cb = prm.count_bytes
    final = bool(ranks and ranks[0].final)
    moved = 0
    serial = crit = 0.0
    pairs_l, conc_l, parts_l = [], [], []
    stopped = False
    rnd = 0
    if limit is None:
        limit = prm.round_limit(final, ranks[0].stage_rounds if ranks else 0)
    spent = [0.0]  # CPU seconds of counting bytes (pickling), left out of the schedule
    busy = np.zeros(P)  # per rank, its pair step of the round before (0: none)

    def msg(kind, src, *payload):
        t = time.thread_time()
        count(kind, 1, _size((kind, trial, it, rnd) + payload) if cb else 0, src)
        spent[0] += time.thread_time() - t

    while rnd < limit:
        if late is not None and late():
            stopped = True
            break
        t_prop = np.zeros(P)
        props, ws = [], []
        for rk in ranks:
            t0 = time.thread_time()
            props.append(rk.proposals())
            ws.append(rk.current_work())
            t_prop[rk.rank] = time.thread_time() - t0
        red = np.max([round_scalars(ws[r], len(props[r]), ranks[r].take_drop())
                      for r in range(P)], axis=0)
        for r in range(P):
            count("ALLREDUCE", 1, allreduce_bytes(P, red.size) if cb else 0, r)
        if final:  # which ranks are the heaviest and the lightest (for the next round)
            ext = np.max([extremes(ws[r], r, red, P) for r in range(P)], axis=0)
            for rk in ranks:
                rk.extremes = (float(red[0]), -float(red[1]), int(-ext[0]), int(-ext[1]))
                count("ALLREDUCE", 1, allreduce_bytes(P, 2) if cb else 0, rk.rank)
        # from the round before's allreduce to this one's: every rank's pair step, then its
        # proposals (the allreduce waits for the slowest rank)
        crit += float((busy + t_prop).max()) if P else 0.0
        serial += float(t_prop.sum())
        busy[:] = 0.0
        if stop_round(red, final, prm.final_tol):
            break
        if any([stalled(rk, red, rnd, prm) for rk in ranks]):  # (every rank keeps W_max)
            break
        out = [[] for _ in range(P)]
        inc = [[] for _ in range(P)]
        for r in range(P):
            for q, dexc, gain, vu in props[r]:
                msg("PROPOSE", r, ws[r], dexc, gain, vu)
                if accepts(ws[r], vu, ws[q], ranks[q].version):
                    msg("ACCEPT", q)
                    out[r].append((q, dexc, gain))
                    inc[q].append((r, dexc, gain))
                else:  # answered with the target's current summary
                    fresh = ranks[q].own_summary()
                    ranks[r].known[q] = fresh
                    msg("REFRESH", q, fresh)
        hs = [Handshake(r, edge_keys(r, out[r], inc[r], pos)) for r in range(P)]
        for _ in range(prm.handshakes):
            sent = [h.message() for h in hs]
            tg = [h.targets() for h in hs]
            for r in range(P):
                for q in tg[r]:
                    msg("PICK", r, sent[r])
            for r in range(P):
                hs[r].receive({q: sent[q] for q in tg[r]})
        pairs = [(r, hs[r].partner) for r in range(P)
                 if hs[r].partner >= 0 and hs[r].edges[hs[r].partner][1] == r]
        dts = []
        for r, q in pairs:
            t0, s0 = time.thread_time(), spent[0]
            peer = ranks[q].serve(r, ("LOCK_REQ", 0.0))[1]
            w_q = ranks[q].pair_work()
            msg("LOCK_GRANT", q, peer, w_q)

            def request(dst, m, _r=r):
                msg(m[0], _r, *m[1:])
                ans = ranks[dst].serve(_r, m)
                if ans is not None:
                    ans = (*ans, ranks[dst].pair_work())
                    msg(ans[0], dst, *ans[1:])
                return ans
            moved += ranks[r].exchange(q, peer, request, w_q)
            dts.append(time.thread_time() - t0 - (spent[0] - s0))
            busy[r] = busy[q] = dts[-1]
        s_r = float(t_prop.sum()) + sum(dts)
        c_r = float(t_prop.max()) + max(dts, default=0.0)
        serial += sum(dts)
        pairs_l.append(len(dts))
        conc_l.append(s_r / c_r if c_r > 0 else 1.0)
        parts_l.append((float(t_prop.max()), max(dts, default=0.0)))
        rnd += 1
    crit += float(busy.max()) if P else 0.0  # the last round's pairs (stopped by the limit)
    for rk in ranks:
        rk.stage_rounds = rnd
    return {"moved": moved, "rounds": rnd, "serial_s": serial, "critical_path_s": crit,
            "pairs": pairs_l, "concurrency": conc_l, "parts": parts_l, "stopped": stopped}
