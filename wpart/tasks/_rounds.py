"""Concurrent exchanges in rounds: the transfer stage of the rank engine (default protocol).

Every round of an iteration (after the bounded gossip of the inform stage):

1. every rank computes its proposals from its own tasks and the summaries it keeps
   (:meth:`~wpart.tasks._ranks.RankProcess.proposals`): up to ``offers`` peers whose best
   cluster exchange pays as estimated from the two ranks' summaries, each with the key
   ``(excess reduction, gain, -position)`` (``position``: the rank's place in the iteration's
   seeded order), and sends them ``PROPOSE``;
2. a rank answers a proposal made on a stale summary of it by a rank no longer heavier than
   itself with its current summary (``REFRESH``; the proposer estimates again); a rank whose best
   incoming proposal beats its own best one becomes a *target* for the round (it withdraws its
   own proposals); every other rank with proposals is a *proposer* (:class:`RoundRank`);
3. in each of ``handshakes`` steps, an unmatched target offers itself (``OFFER``) to the best
   proposer left in its queue; an unmatched proposer takes (``TAKE``) the best offer by its
   own order and declines (``DECLINE``) its other targets, which drop it from their queues;
4. every matched pair runs CCM-LB's exact pair step at the same time: the target sends its
   records (``LOCK_GRANT``), the proposer evaluates FindBestCCM on the pair exactly and sends
   ``GIVE`` (answered ``GIVE_BACK``), again while an exchange pays (at most ``pair_steps``),
   then ``RELEASE``.

The pairs of a round are disjoint. The proposal with the largest key overall is refreshed or
taken in the first step, so every round with a proposal locks a pair or refreshes a summary
made stale by a pair; a rank locks a peer at most once per iteration, so the rounds end. Keys are totally ordered (positions are
distinct) and every step acts on the whole set of messages of the previous one, so the pairs,
and the assignment, depend only on the seed and the number of ranks, never on message timing:
the in-process run (:func:`rounds_stage`) and MPI (:mod:`wpart.tasks._mpi_rounds`) give the
same assignment bit for bit.
"""

from __future__ import annotations

import pickle
import time

import numpy as np

__all__ = ["RoundRank", "positions", "rounds_stage"]


def positions(order) -> np.ndarray:
    """``pos[r]``: the place of rank r in the iteration's seeded order (its priority)."""
    order = np.asarray(order)
    pos = np.empty(order.size, np.int64)
    pos[order] = np.arange(order.size)
    return pos


def key_of(prop, pos_me: int) -> tuple:
    """The total order of proposals: larger excess reduction, larger gain, earlier rank."""
    return (float(prop[1]), float(prop[2]), -int(pos_me))


class RoundRank:
    """One rank's side of a round's matching (the same code in-process and over MPI).

    `props`: this rank's proposals ``[(peer, dexc, gain, version)]`` best first;
    `incoming`: ``[(key, src, w_src, version)]`` of the proposals it received (``w_src``: the
    proposer's W now; ``version``: the version of this rank's summary it used); `w_me`,
    `v_me`: this rank's W and version now. A proposal made on a stale summary of this rank
    by a rank that is no longer heavier is answered with this rank's current summary
    (``REFRESH``) instead. A rank whose best remaining incoming key beats its own best key is a
    target; a target offers itself to the proposers by key.
    """

    def __init__(self, props: list, pos_me: int, incoming: list, w_me: float, v_me: int):
        stale = [not (e[2] > w_me) and e[3] != v_me for e in incoming]
        self.refresh = sorted(e[1] for e, x in zip(incoming, stale) if x)
        incoming = [e[:2] for e, x in zip(incoming, stale) if not x]
        own = key_of(props[0], pos_me) if props else None
        self.target = bool(incoming) and (own is None or max(incoming)[0] > own)
        self.queue = sorted(((k, src) for k, src in incoming), reverse=True) \
            if self.target else []
        self.order = [] if self.target else [p[0] for p in props]
        self.pending = {p[0] for p in props}    # targets not told yet that we are done
        self.partner: int | None = None

    def offer(self) -> int | None:
        """Target: the proposer to offer to in this step (None: none)."""
        if not self.target or self.partner is not None or not self.queue:
            return None
        return self.queue[0][1]

    def answer(self, offers: list, drops: list = ()) -> dict:
        """Proposer (or a target withdrawing): ``{dest: "TAKE" | "DECLINE"}`` for this step;
        `drops`: the targets that refreshed this rank's summary of them instead of queueing its
        proposal (no answer due to them)."""
        for q in drops:
            self.pending.discard(q)
        out: dict = {}
        if not self.target and self.partner is None and offers:
            got = set(offers)
            self.partner = next(q for q in self.order if q in got)
            out[self.partner] = "TAKE"
            self.pending.discard(self.partner)
        if self.target or self.partner is not None:
            for q in sorted(self.pending):
                out[q] = "DECLINE"
            self.pending = set()
        return out

    def receive(self, answers: list) -> None:
        """Target: the ``(src, kind)`` answers of this step."""
        for src, kind in answers:
            if kind == "TAKE":
                self.partner = src
            self.queue = [e for e in self.queue if e[1] != src]


def _size(obj) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def rounds_stage(ranks: list, prm, pos, trial: int, it: int, count, late=None) -> dict:
    """One iteration's transfer stage with every rank in this process (direct calls).

    `count(kind, n, nbytes, sender)` records the messages; `late()` is checked before every
    round (True: stop). Returns ``moved``, ``rounds``, ``serial_s``, ``critical_path_s``
    (the schedule model: in a round, every rank computes its proposals in parallel, then the
    disjoint pairs run in parallel), per-round ``pairs`` and ``concurrency`` (serial over
    critical-path seconds of the round) and ``stopped``.
    """
    P = len(ranks)
    cb = prm.count_bytes
    moved = 0
    serial = crit = 0.0
    pairs_l, conc_l = [], []
    stopped = False
    rnd = 0

    def msg(kind, src, *payload):
        count(kind, 1, _size((kind, trial, it, rnd) + payload) if cb else 0, src)

    while True:
        if late is not None and late():
            stopped = True
            break
        t_prop = np.zeros(P)
        props = {}
        for rk in ranks:
            t0 = time.perf_counter()
            p = rk.proposals()
            t_prop[rk.rank] = time.perf_counter() - t0
            if p:
                props[rk.rank] = p
        if not props:
            serial += float(t_prop.sum())
            crit += float(t_prop.max()) if P else 0.0
            break
        incoming: dict = {}
        for r, pl in props.items():
            w = ranks[r].current_work()
            for p in pl:
                incoming.setdefault(p[0], []).append((key_of(p, pos[r]), r, w, p[3]))
                msg("PROPOSE", r, p[1], p[2], int(pos[r]), w, p[3])
        rr = {r: RoundRank(props.get(r, []), pos[r], incoming.get(r, []),
                           ranks[r].current_work(), ranks[r].version)
              for r in sorted(set(props) | set(incoming))}
        drops: dict = {}
        for q, st in rr.items():
            for r in st.refresh:
                drops.setdefault(r, []).append(q)
                fresh = ranks[q].own_summary()
                ranks[r].known[q] = fresh
                msg("REFRESH", q, fresh)
        for h in range(prm.handshakes):
            offers: dict = {}
            for q, st in rr.items():
                o = st.offer()
                if o is not None:
                    offers.setdefault(o, []).append(q)
                    msg("OFFER", q)
            answers: dict = {}
            for r, st in rr.items():
                for dst, kind in sorted(st.answer(offers.get(r, []),
                                                  drops.get(r, []) if h == 0 else ()).items()):
                    answers.setdefault(dst, []).append((r, kind))
                    msg(kind, r)
            for q, a in answers.items():
                rr[q].receive(a)
        pairs = [(r, st.partner) for r, st in rr.items()
                 if not st.target and st.partner is not None]
        t_pair, dts = [], []
        for r, q in pairs:
            t0 = time.perf_counter()
            peer = ranks[q].serve(r, ("LOCK_REQ", 0.0))[1]
            msg("LOCK_GRANT", q, peer)

            def request(dst, m, _r=r):
                msg(m[0], _r, *m[1:])
                ans = ranks[dst].serve(_r, m)
                if ans is not None:
                    msg(ans[0], dst, ans[1])
                return ans
            moved += ranks[r].exchange(q, peer, request)
            dts.append(time.perf_counter() - t0)
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
