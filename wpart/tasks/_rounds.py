"""Concurrent exchanges in rounds: the transfer stage of the rank engine (default protocol).

Every round of an iteration (after the bounded gossip of the inform stage):

1. every rank computes its proposals from its own tasks and the summaries it keeps
   (:meth:`~wpart.tasks._ranks.RankProcess.proposals`): up to ``offers`` peers whose best
   cluster exchange pays as estimated from the two ranks' summaries;
2. one all-gather (:func:`proposal_row`): every rank learns every rank's W, the version of
   its tasks and its proposals, a fixed row of ``3 + 4 offers`` numbers per rank. A round in
   which no rank proposes ends the stage;
3. every rank computes the same matching from the gathered rows (:func:`plan_round`): a
   proposal made on a stale summary of its target by a rank no longer heavier than the
   target is answered with the target's current summary (``REFRESH``, point to point; the
   proposer estimates again next round); every other proposal is an edge with the key
   ``(excess reduction, gain, -position of the proposer, -position of the target)``
   (``position``: a rank's place in the iteration's seeded order), and the pairs are the
   greedy matching of the edges by decreasing key;
4. every matched pair runs CCM-LB's exact pair step at the same time: the end that made the
   proposal of the edge locks the other, which sends its records (``LOCK_GRANT``); the
   proposer evaluates FindBestCCM on the pair exactly and sends ``GIVE`` (answered
   ``GIVE_BACK``), again while an exchange pays (at most ``pair_steps`` in a round: a pair
   cut short may be matched again later), then ``RELEASE``.

So a round costs one collective (the all-gather, ``O(P offers)`` numbers per rank) besides
the point-to-point messages of its pairs and refreshes. Since the bounded gossip keeps, at
each rank, the ranks around its mirror place in the order by W
(:meth:`~wpart.tasks._ranks.RankProcess.hop_receive`), the proposals of different ranks go
to different peers, and a round matches a large share of the ranks (measured in
``benchmarks/bench_mpi.py``).

The pairs of a round are disjoint. The edge with the largest key overall is matched unless
it is refreshed, so every round with a proposal locks a pair or refreshes a summary made
stale by a pair; a pair is locked again in an iteration only after an exchange (every
exchange lowers the larger W of its pair and changes no other rank), so the rounds end. Keys
are totally ordered (positions are distinct) and every rank computes the matching from the
same gathered rows, so the pairs, and the assignment, depend only on the seed and the number
of ranks, never on message timing: the in-process run (:func:`rounds_stage`) and MPI
(:mod:`wpart.tasks._mpi_rounds`) give the same assignment bit for bit.

After the last iteration, a final pass of the same rounds (when whole clusters are moved,
``subclusters`` none) exchanges single tasks: a rank proposes to every kept peer lighter than
itself, the heaviest rank of the round (by the gathered W) also to the ``final_reach`` (8)
lightest ranks, every other rank also to the ``final_mirror`` (8) ranks around its mirror
place in the order by the gathered W (so the heavy half meets the light half and a round
matches about P/2 pairs), and the exact pair step of a matched pair treats every task as its
own cluster (swaps of one task each way and one-way moves of one task), which evens out what
whole clusters cannot. The pass ends when the gathered W_max is within ``final_tol``
(1e-7) of the mean W, and a rank proposes only to peers lighter by more than that fraction
of its W: below it the rounds only probe pairs that are already even. In the iterations, a
proposal that lowers no excess must gain more than ``propose_tol`` (1e-5) of the proposer's
W, so that the last rounds of an iteration are not spent on gains too small to matter.
"""

from __future__ import annotations

import pickle
import time

import numpy as np

__all__ = ["plan_round", "positions", "proposal_row", "rounds_stage"]


def positions(order) -> np.ndarray:
    """``pos[r]``: the place of rank r in the iteration's seeded order (its priority)."""
    order = np.asarray(order)
    pos = np.empty(order.size, np.int64)
    pos[order] = np.arange(order.size)
    return pos


def proposal_row(w: float, version: int, props: list, offers: int) -> np.ndarray:
    """This rank's entry of a round's all-gather: ``[W, version, n, (peer, excess reduction,
    gain, version of the peer's summary used) x offers]`` (float64; unused slots zero)."""
    row = np.zeros(3 + 4 * offers, np.float64)
    row[0], row[1], row[2] = w, version, len(props)
    for i, p in enumerate(props[:offers]):
        row[3 + 4 * i:7 + 4 * i] = (p[0], p[1], p[2], p[3])
    return row


def plan_round(rows: np.ndarray, pos) -> tuple:
    """The round's matching from every rank's entry (:func:`proposal_row`), the same on every
    rank: ``(partner, proposer, refresh)``.

    A proposal made on a stale summary of its target (the version differs) by a rank that is
    no longer heavier than the target is left out; the target sends its current summary
    instead (``refresh``: ``[(target, proposer)]``). Every other proposal is an edge with the
    key ``(excess reduction, gain, -position of the proposer, -position of the target)``
    (:func:`key_of`); the pairs are the greedy matching of the edges by decreasing key (an edge
    whose two ends are both free is taken). ``partner[r]``: r's partner (-1: none);
    ``proposer[r]``: r made the proposal of its pair's edge (it runs the pair step).
    """
    P = rows.shape[0]
    W, ver = rows[:, 0], rows[:, 1].astype(np.int64)
    edges, refresh = [], []
    for r in range(P):
        for i in range(int(rows[r, 2])):
            q, dexc, gain, vu = rows[r, 3 + 4 * i:7 + 4 * i]
            q = int(q)
            if not W[r] > W[q] and int(vu) != ver[q]:
                refresh.append((q, r))
            else:
                edges.append(((float(dexc), float(gain), -int(pos[r]), -int(pos[q])), r, q))
    edges.sort(reverse=True)
    partner = np.full(P, -1, np.int64)
    proposer = np.zeros(P, bool)
    for _, r, q in edges:
        if partner[r] < 0 and partner[q] < 0:
            partner[r], partner[q] = q, r
            proposer[r] = True
    return partner, proposer, sorted(refresh)


def _size(obj) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def rounds_stage(ranks: list, prm, pos, trial: int, it: int, count, late=None) -> dict:
    """One iteration's transfer stage with every rank in this process (direct calls).

    `count(kind, n, nbytes, sender)` records the messages; `late()` is checked before every
    round (True: stop). Returns ``moved``, ``rounds``, ``serial_s``, ``critical_path_s``
    (the schedule model, in CPU seconds of this thread without the counting of bytes: in a
    round, every rank computes its proposals in parallel, then the disjoint pairs run in
    parallel), per-round ``pairs`` and ``concurrency`` (serial over
    critical-path seconds of the round) and ``stopped``.
    """
    P = len(ranks)
    cb = prm.count_bytes
    moved = 0
    serial = crit = 0.0
    pairs_l, conc_l = [], []
    stopped = False
    rnd = 0

    spent = [0.0]  # CPU seconds of counting bytes (pickling), left out of the schedule

    def msg(kind, src, *payload):
        t = time.thread_time()
        count(kind, 1, _size((kind, trial, it, rnd) + payload) if cb else 0, src)
        spent[0] += time.thread_time() - t

    while True:
        if late is not None and late():
            stopped = True
            break
        t_prop = np.zeros(P)
        rows = np.zeros((P, 3 + 4 * prm.offers))
        for rk in ranks:
            t0 = time.thread_time()
            p = rk.proposals()
            rows[rk.rank] = proposal_row(rk.current_work(), rk.version, p, prm.offers)
            t_prop[rk.rank] = time.thread_time() - t0
        for r in range(P):  # the round's all-gather (one collective)
            count("ALLGATHER", 1, (P - 1) * rows[r].nbytes if cb else 0, r)
        for rk in ranks:  # every rank's W and version now (the final pass uses them)
            rk.w_view = rows[:, :2].copy()
        if not rows[:, 2].any():
            serial += float(t_prop.sum())
            crit += float(t_prop.max()) if P else 0.0
            break
        partner, proposer, refresh = plan_round(rows, pos)
        for q, r in refresh:  # answered with the target's current summary
            fresh = ranks[q].own_summary()
            ranks[r].known[q] = fresh
            msg("REFRESH", q, fresh)
        pairs = [(r, int(partner[r])) for r in np.flatnonzero(proposer).tolist()]
        t_pair, dts = [], []
        for r, q in pairs:
            t0, s0 = time.thread_time(), spent[0]
            peer = ranks[q].serve(r, ("LOCK_REQ", 0.0))[1]
            msg("LOCK_GRANT", q, peer)

            def request(dst, m, _r=r):
                msg(m[0], _r, *m[1:])
                ans = ranks[dst].serve(_r, m)
                if ans is not None:
                    msg(ans[0], dst, ans[1])
                return ans
            moved += ranks[r].exchange(q, peer, request)
            dts.append(time.thread_time() - t0 - (spent[0] - s0))
            t_pair.append(max(t_prop[r], t_prop[q]) + dts[-1])
        # the round's schedule: proposals in parallel, then the disjoint pairs in parallel
        s_r = float(t_prop.sum()) + sum(dts)
        c_r = max([float(t_prop.max())] + t_pair)
        serial += s_r
        crit += c_r
        pairs_l.append(len(t_pair))
        conc_l.append(s_r / c_r if c_r > 0 else 1.0)
        rnd += 1
    return {"moved": moved, "rounds": rnd, "serial_s": serial, "critical_path_s": crit,
            "pairs": pairs_l, "concurrency": conc_l, "stopped": stopped}
