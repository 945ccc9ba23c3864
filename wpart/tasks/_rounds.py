"""Concurrent exchanges in rounds: the transfer stage of the rank engine (default protocol).

Every round of an iteration (after the bounded gossip of the inform stage):

1. every rank computes its proposals from its own tasks and the summaries it keeps
   (:meth:`~wpart.tasks._ranks.RankProcess.proposals`): up to ``offers`` peers whose best
   cluster exchange pays as estimated from the two ranks' summaries, each with the key
   ``(excess reduction, gain, -position of the proposer, -position of the peer)``
   (``position``: a rank's place in the iteration's seeded order), and sends them ``PROPOSE``;
2. every proposal is an edge of the round's matching, which either end may take. A rank
   answers a proposal made on a stale summary of it by a rank no longer heavier than itself
   with its current summary (``REFRESH``, in the first step below; the proposer estimates
   again next round) and leaves that edge out;
3. the pairs are the greedy matching of the edges by decreasing key, computed in
   ``handshakes`` steps of locally dominant edges (:class:`RoundRank`): an unmatched rank
   points (``POINT``) at the end of its best edge left; two ranks pointing at each other are
   matched and tell their other ends (``GONE``) in the next step;
4. every matched pair runs CCM-LB's exact pair step at the same time: the end that made the
   proposal of the edge locks the other, which sends its records (``LOCK_GRANT``); the
   proposer evaluates FindBestCCM on the pair exactly and sends ``GIVE`` (answered
   ``GIVE_BACK``), again while an exchange pays (at most ``pair_steps`` in a round: a pair
   cut short may be matched again later), then ``RELEASE``.

Since the bounded gossip keeps, at each rank, the ranks around its mirror place in the order
by W (:meth:`~wpart.tasks._ranks.RankProcess.hop_receive`), the proposals of different ranks
go to different peers, and a round matches about a third to a half of all ranks at P = 32
and 64 (measured in ``benchmarks/bench_mpi.py``).

The pairs of a round are disjoint. The edge with the largest key overall is matched in the
first step unless it is refreshed, so every round with a proposal locks a pair or refreshes a
summary made stale by a pair; a pair is locked again in an iteration only after an exchange
(every exchange lowers the larger W of its pair and changes no other rank), so the rounds
end. Keys are totally ordered (positions are distinct) and every step acts on the whole set
of messages of the previous one, so the pairs, and the assignment, depend only on the seed
and the number of ranks, never on message timing: the in-process run
(:func:`rounds_stage`) and MPI (:mod:`wpart.tasks._mpi_rounds`) give the same assignment bit
for bit.

After the last iteration, a final pass of the same rounds (when whole clusters are moved,
``subclusters`` none) lets single tasks move too: a rank proposes to every kept peer lighter
than itself, and the exact pair step decides.
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
    """The total order of proposals: larger excess reduction, larger gain, earlier proposer,
    earlier target (``prop[4]``: the target's position, when given)."""
    return (float(prop[1]), float(prop[2]), -int(pos_me),
            -int(prop[4]) if len(prop) > 4 else 0)


class RoundRank:
    """One rank's side of a round's matching (the same code in-process and over MPI).

    `props`: this rank's proposals ``[(peer, dexc, gain, version, pos_peer)]`` best first;
    `incoming`: ``[(key, src, w_src, version)]`` of the proposals it received (``w_src``: the
    proposer's W now; ``version``: the version of this rank's summary it used); `w_me`,
    `v_me`: this rank's W and version now. A proposal made on a stale summary of this rank
    by a rank that is no longer heavier is answered with this rank's current summary
    (``REFRESH``) and leaves the matching.

    The matching is the greedy maximal matching of all remaining proposals (an edge per
    proposal, either end may be matched by it) by decreasing key, computed by
    locally dominant edges: in each step an unmatched rank points (``POINT``) at the end
    of its best remaining edge; two ranks pointing at each other are matched; a rank matched
    in a step tells its other ends (``GONE``) in the next step, and they drop its edges. The
    best edge of the whole round is matched in the first step; with enough steps this is the
    greedy matching by key (every step matches every edge that is the best at both of its
    ends). The end that made the proposal of the matched edge runs the pair step.
    """

    def __init__(self, props: list, pos_me: int, incoming: list, w_me: float, v_me: int):
        stale = [not (e[2] > w_me) and e[3] != v_me for e in incoming]
        self.refresh = sorted(e[1] for e, x in zip(incoming, stale) if x)
        #: peer -> [key of my proposal to it, key of its proposal to me] (None: none)
        self.edges: dict = {}
        for p in props:
            self.edges.setdefault(p[0], [None, None])[0] = key_of(p, pos_me)
        for e, x in zip(incoming, stale):
            if not x:
                self.edges.setdefault(e[1], [None, None])[1] = e[0]
        self.partner: int | None = None
        self.proposer = False
        self.pointed: int | None = None
        self.tell: list = []  # ends to tell GONE in the next step

    @staticmethod
    def _key(e: list) -> tuple:
        return max(k for k in e if k is not None)

    @property
    def target(self) -> bool:
        """Matched as the end that did not propose (it grants its lock)."""
        return self.partner is not None and not self.proposer

    def step_out(self) -> dict:
        """``{dest: "POINT" | "GONE"}`` of this step."""
        out = {q: "GONE" for q in self.tell}
        self.tell = []
        self.pointed = None
        if self.partner is None and self.edges:
            self.pointed = max(self.edges, key=lambda q: self._key(self.edges[q]))
            out[self.pointed] = "POINT"
        return out

    def step_in(self, got: list) -> None:
        """The ``(src, kind)`` messages of this step: ``POINT``, ``GONE``, or ``REFRESH`` (in
        the first step: `src` answered this rank's proposal with its summary; the proposal
        leaves the matching)."""
        for src, kind in got:
            if kind == "GONE":
                self.edges.pop(src, None)
            elif kind == "REFRESH" and src in self.edges:
                e = self.edges[src]
                e[0] = None
                if e[1] is None:
                    del self.edges[src]
        q = self.pointed
        if q is not None and q in self.edges and (q, "POINT") in got:
            e = self.edges[q]
            self.partner = q
            self.proposer = e[0] is not None and (e[1] is None or e[0] > e[1])
            self.tell = sorted(x for x in self.edges if x != q)
            self.edges = {}


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
                p = p[:4] + (int(pos[p[0]]),)
                incoming.setdefault(p[0], []).append((key_of(p, pos[r]), r, w, p[3]))
                msg("PROPOSE", r, p[1], p[2], int(pos[r]), w, p[3])
        rr = {r: RoundRank([p[:4] + (int(pos[p[0]]),) for p in props.get(r, [])], pos[r],
                           incoming.get(r, []),
                           ranks[r].current_work(), ranks[r].version)
              for r in sorted(set(props) | set(incoming))}
        for h in range(prm.handshakes):
            got: dict = {}
            if h == 0:  # the first step carries the refreshed summaries
                for q, st in rr.items():
                    for r in st.refresh:
                        got.setdefault(r, []).append((q, "REFRESH"))
                        fresh = ranks[q].own_summary()
                        ranks[r].known[q] = fresh
                        msg("REFRESH", q, fresh)
            for r, st in rr.items():
                for dst, kind in sorted(st.step_out().items()):
                    got.setdefault(dst, []).append((r, kind))
                    msg(kind, r)
            for r, st in rr.items():
                st.step_in(got.get(r, []))
        pairs = [(r, st.partner) for r, st in rr.items() if st.proposer]
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
