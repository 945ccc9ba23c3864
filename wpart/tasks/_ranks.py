"""CCM-LB with one state machine per rank: the engine shared by the in-process run and MPI.

Every rank is a :class:`RankProcess` that holds only its own tasks (:class:`RankData`). The
steps of CCM-LB (Fig. 1 and Sec. IV of the paper) are its methods, and the C step
(:func:`wpart._core.tasks_pair_best`, the serial engine's FindBestCCM on the pair's tasks)
decides every exchange:

* inform: :meth:`RankProcess.begin_iteration`, :meth:`~RankProcess.hop_targets` (drawn from
  the serial engine's per-rank RNG stream) and :meth:`~RankProcess.hop_receive`; a message
  carries the sender's knowledge: rank ids and their summaries (block clusters as
  pseudo-tasks, :meth:`RankData.summary`);
* transfer: at its turn a rank ranks its known peers on its current tasks and their
  gossiped summaries (:meth:`~RankProcess.rank_peers`), then for each peer in turn sends
  ``LOCK_REQ``; the peer answers ``LOCK_GRANT`` with its current records; the rank evaluates
  exactly and sends ``GIVE`` (its cluster's records, the ids it takes) or ``RELEASE``; the peer
  applies ``GIVE`` and answers ``GIVE_BACK`` with the records taken; ``RELEASE`` ends the lock
  (:meth:`~RankProcess.turn`, :meth:`~RankProcess.serve`).

Two transfer protocols (``RankParams.protocol``), neither depending on message timing, so that
the same seed gives the same assignment in-process (:func:`run_ranks`) and over MPI:

* ``"rounds"`` (default): at most ``max_rounds`` (12; 96 with beta, gamma or delta > 0,
  while pairs still cut their bytes) rounds per iteration of disjoint
  pairs exchanging at the same time, chosen by a locally dominant matching of the ranks'
  proposals, which go to their targets only (:mod:`wpart.tasks._rounds`,
  :mod:`wpart.tasks._mpi_rounds`), with bounded gossip (:meth:`RankData.bounded_summary`,
  a :class:`~wpart.tasks._summary.Summary`: per cluster its load, memory and the bytes it
  sends to and receives from each rank it talks to, never edges; a rank keeps ``keep = k f``
  summaries besides its own and sends at most ``gossip_cap`` in a message); a rank estimates
  an exchange from the two ranks' summaries and runs the exact pair step on the records, both
  in C (:func:`wpart._core.tasks_ranks_estimate`, :func:`wpart._core.tasks_ranks_pair`:
  csrc/tasks/ranks_*.c on the serial engine's FindBestCCM);
* ``"turns"``: the serial engine's seeded order of turns, a serial order of atomic pairwise
  exchanges (what the lock protocol of Sec. IV-B guarantees); MPI overlaps the turns on
  disjoint ranks (:mod:`wpart.tasks._mpi_turns`).

``stats["schedule"]`` of the in-process run gives, per iteration, the serial seconds of the
transfer stage (``serial_s``) and the critical path of its concurrent schedule
(``critical_path_s``); with rounds also ``rounds`` (per iteration: the rounds, and per round
the pairs and the concurrency, serial over critical-path seconds).
"""

from __future__ import annotations
from .._errors import WpartError, WpartRuntimeError

import math
import time

import numpy as np

from .. import _core
from ._rankdata import RankData, member, pair_problem, split_problem
from ._summary import CROSS_PAIRS, Summary, estimate_peers, estimate_problem
from ._rounds import positions, rounds_stage

__all__ = ["RankParams", "RankProcess", "run_ranks"]



class RankParams:
    """Options of a distributed CCM-LB run (validated by the callers)."""

    def __init__(self, m: int, coeffs: tuple, *, n_iter: int = 4, n_rounds: int = 0,
                 fanout: int = 0, n_trials: int = 1, seed: int = 0, cluster: int = 0,
                 singles: int = 0, one_way: bool = False, split_always: bool = False,
                 tol: float = 1e-12, comm_thresh: float = 0.0, order_random: bool = True,
                 protocol: str = "rounds", count_bytes: bool = True):
        self.P = int(m)
        self.coeffs = tuple(coeffs)
        self.n_iter, self.n_trials, self.seed = int(n_iter), int(n_trials), int(seed)
        self.k, self.f = _core.tasks_knowledge(self.P, int(n_rounds), int(fanout))
        self.cluster, self.singles = int(cluster), int(singles)
        self.one_way, self.split_always = bool(one_way), bool(split_always)
        self.tol, self.comm_thresh = float(tol), float(comm_thresh)
        self.order_random = bool(order_random)
        self.compress = self.cluster == 0 and self.singles == 0
        self.protocol = protocol
        #: summaries a rank keeps besides its own (rounds: the bounded gossip keeps the
        #: `keep` ranks around its mirror place in the order by W, so its memory is
        #: O(fanout x rounds x summary))
        self.keep = max(1, min(self.P - 1, self.k * self.f))
        #: rounds protocol: summaries one gossip message carries at most, so that a rank's
        #: ``k f`` messages of an iteration carry about 96 summaries whatever P (8 up to 32
        #: ranks, 6 at 64, 5 at 128, at least 2)
        self.gossip_cap = max(2, min(8, 96 // max(1, self.k * self.f)))
        self.count_bytes = bool(count_bytes)
        #: rounds protocol: estimate an exchange from the bytes each cluster of the two
        #: summaries sends to and receives from the other rank (False: those bytes count
        #: as towards every other rank, as with one number "towards the rest" per cluster)
        self.per_rank_estimate = True
        #: rounds protocol: when the estimate from the summaries finds no exchange, estimate
        #: again without the bytes (load, memory and homing only; with beta or gamma > 0)
        self.estimate_fallback = True
        #: rounds protocol: estimate in C from the summaries' arrays (False: the numpy
        #: reference, :func:`~wpart.tasks._summary.estimate_problem`)
        self.c_estimate = True
        #: the exact pair step and W of a rank in C from the records' arrays (False: the
        #: numpy reference, :func:`~wpart.tasks._rankdata.pair_problem`)
        self.c_pair = True
        #: peers a rank proposes to at once in a round (every proposal is an edge of the
        #: round's matching)
        self.offers = 8
        #: exchanges a locked pair makes at most in a round (a pair cut short may lock again)
        self.pair_steps = 2
        #: rounds protocol: rounds of an iteration at most (whatever P); an iteration's rounds
        #: end earlier at the first round (after its first) whose allreduce shows that the
        #: round before did not lower W_max by more than :attr:`stall_tol` of it
        #: (:func:`~wpart.tasks._rounds.stalled`): rounds go on while they pay for W_max
        self.max_rounds = 12
        #: see :attr:`max_rounds` (None: every iteration runs its `max_rounds`)
        self.stall_tol = 1e-6
        #: rounds protocol, with communication, on-rank bytes or homing weighted (beta, gamma
        #: or delta > 0): a round whose W_max did not fall still does not end the iteration
        #: while a pair of the round before lowered its total W (the two ranks' W together) by
        #: more than this fraction of W_max: lighter ranks cutting their bytes is what lets
        #: W_max fall again later (None: W_max alone decides)
        self.stall_drop_tol = 1e-6
        #: with :attr:`stall_drop_tol` in use: rounds in a row with neither W_max nor any
        #: pair's total W falling that end the iteration (exchanges that even out load at
        #: the price of some bytes come between the ones that cut bytes)
        self.stall_patience = 3
        #: rounds of an iteration at most when :attr:`track_drop` (instead of
        #: :attr:`max_rounds`): on bench_mpi part (6) with beta, W_max and the pairs' total W
        #: still fell after 50 rounds at P = 64
        self.max_rounds_comm = 96
        #: handshakes of a round's matching at most (:class:`~wpart.tasks._rounds.Handshake`)
        self.handshakes = 8
        #: rounds protocol: after the last iteration, a pass of the same rounds in which a
        #: rank proposes to every lighter peer it keeps (the heaviest rank of the round before:
        #: also to the lightest rank) and a matched pair runs the pair step on
        #: single tasks (swaps and moves of one task each way), when the run moves whole
        #: clusters only
        self.final_pass = True
        #: rounds of the final pass at most, each with one exchange per pair
        #: (:attr:`final_pair_steps`; was 6 to 10: bench_mpi part (6) had 41 instances above
        #: the serial engine by more than 0.1 % so, 32 with 16)
        self.final_rounds = 16
        #: after its :attr:`final_rounds`, the final pass goes on while its rounds still lower
        #: W_max (by more than :attr:`stall_tol` of it; :attr:`final_patience`), for at most
        #: :attr:`final_rounds` more rounds, or as many more as the last iteration ran when
        #: that is more (False: :attr:`final_rounds` at most)
        self.final_extend = True
        #: with :attr:`final_extend`: rounds in a row that did not lower W_max that end the
        #: final pass once past its :attr:`final_rounds` (one exchange per pair and round:
        #: the heaviest rank's exchanges may come every other round)
        self.final_patience = 2
        #: exchanges a locked pair makes at most in a round of the final pass
        self.final_pair_steps = 1
        #: clusters of the final pass's pair step (1: every task is its own cluster)
        self.final_cluster = 1
        #: the final pass's pair step, when no exchange of single tasks pays, tries a task or
        #: a block's part (a rank's migratable tasks of one block) for a block's part, a
        #: block's part for a task or nothing (`mixed`, csrc/tasks/ccm_eval.c)
        self.final_mixed = True
        #: in the final pass, the heaviest rank of the round before also proposes to the
        #: lightest one (no summary is needed: the exact pair step decides)
        self.final_reach = True
        #: in the final pass, the heaviest rank of the round before also proposes to the ranks
        #: it does not keep, the next ones after it in cyclic order whose pair has not already
        #: found nothing (:attr:`final_retry`), up to :attr:`offers` proposals in all: a rank
        #: whose tasks only a few ranks can take a share of finds them
        self.final_sweep = True
        #: in the final pass, a pair whose exact step found nothing may be proposed again once
        #: the proposer's tasks or the peer's W it heard of have changed (False: not again in
        #: the pass)
        self.final_retry = True
        #: the final pass ends when W_max - W_min is within this fraction of W_max (a round's
        #: allreduce), and a rank proposes there only to peers lighter than itself by more
        #: than this fraction of its W
        self.final_tol = 1e-7
        #: rounds protocol: a proposal that lowers no excess must gain more than this
        #: fraction of the proposer's W (smaller gains only add rounds of a few pairs)
        self.propose_tol = 1e-5

    @property
    def track_drop(self) -> bool:
        """Whether the ranks report their pairs' drop of total W (:attr:`stall_drop_tol`)."""
        return bool(self.protocol == "rounds" and self.stall_drop_tol is not None
                    and any(float(x) > 0 for x in self.coeffs[1:4]))

    def round_limit(self, final: bool, last: int = 0) -> int:
        """Rounds of a stage at most: in the final pass :attr:`final_rounds` (with
        :attr:`final_extend`, plus the larger of `last`, the rounds of the last iteration, and
        :attr:`final_rounds`), else
        :attr:`max_rounds_comm` when :attr:`track_drop`, else :attr:`max_rounds`."""
        if final:
            return self.final_rounds + (max(int(last), self.final_rounds)
                                        if self.final_extend else 0)
        return self.max_rounds_comm if self.track_drop else self.max_rounds

    def step_args(self, final: bool = False) -> tuple:
        if final and self.singles == 0:
            return (self.final_cluster, 0, int(self.one_way), int(self.split_always), self.tol,
                    self.comm_thresh)
        return (self.cluster, self.singles, int(self.one_way), int(self.split_always), self.tol,
                self.comm_thresh)

    def turn_order(self, trial: int, state: tuple | None) -> tuple:
        """``(state, order)`` of the serial engine's turn stream for one iteration."""
        if state is None:
            state = _core.tasks_rng_seed(self.seed, trial + 1, self.P)
        if not self.order_random:
            return state, np.arange(self.P, dtype=np.int32)
        return _core.tasks_rng_shuffle(state, self.P)


class RankProcess:
    """One rank: its tasks, its RNG stream, its knowledge of the current iteration."""

    def __init__(self, data: RankData, prm: RankParams):
        self.data = data
        self.prm = prm
        self.rank = data.rank
        self.known: dict = {}
        self.sender = False
        self.rng = None
        self.n_evals = 0
        self.version = 0  # bumped whenever a peer changes this rank's tasks
        self.final = False  # in the final pass (single tasks move too)
        self._held = data.gid.copy()  # the tasks held at the last location notices
        #: the last round's allreduce in the final pass: ``(W_max, W_min, heaviest rank,
        #: lightest rank)`` (rounds protocol)
        self.extremes = None
        #: ``{peer: (version, peer's version)}``: pairs whose exact step found no exchange;
        #: not proposed again until one of the two task sets changes (rounds protocol)
        self.futile: dict = {}
        #: the freshest ``(W, version)`` this rank heard of per peer (gossip, refreshes, pairs)
        self.peer_w: dict = {}
        #: ``{peer: (version, peer's W heard of)}``: the final pass's pairs whose exact step
        #: found no exchange (:attr:`RankParams.final_retry`)
        self.futile_final: dict = {}
        #: ``{peer: W}`` as this rank's last final-pass proposals saw it
        self._heard: dict = {}
        #: the W_max of the last round's allreduce (rounds protocol, :func:`_rounds.stalled`)
        self.last_wmax = None
        #: rounds in a row that did not lower W_max (:func:`_rounds.stalled`)
        self.stalls = 0
        #: rounds of this rank's last transfer stage (the final pass's budget,
        #: :meth:`RankParams.round_limit`)
        self.stage_rounds = 0
        #: how much the exchanges this rank proposed since the last allreduce lowered their
        #: pair's total W, at most (rounds protocol, :attr:`RankParams.track_drop`)
        self.pair_drop = 0.0

    # ------------------------------------------------------------------ evaluation
    def work(self) -> float:
        """W of this rank (``inf`` above its memory cap)."""
        if self.prm.c_pair:  # in C (csrc/tasks/ranks_pair.c)
            return _core.tasks_ranks_pair(self.data.c_records(), None, self.prm.coeffs, False,
                                          *self.prm.step_args())
        d, a, _ = pair_problem(self.data, None, self.prm.coeffs[0])
        _, rep = _core.tasks_evaluate(d, self.prm.coeffs, a)
        return float(rep["work"][0])

    def _best(self, other, mine=None) -> tuple:
        """The best exchange with `other`: exact on two :class:`RankData` (records), an
        estimate on two bounded summaries (:func:`~wpart.tasks._summary.estimate_problem`)."""
        est = isinstance(other, Summary)
        mine = (self.own_summary() if est else self.data) if mine is None else mine
        if _overlaps(other.gid, mine.gid):
            # a stale summary lists tasks that have since come here: they are ours now
            other = other.without(mine.gid)
        if est and self.prm.c_estimate:  # the estimate in C (csrc/tasks/ranks_estimate.c)
            self.n_evals += 1
            found, dexc, gain, give, take = _core.tasks_ranks_estimate(
                mine.c_fields(), other.c_fields(), self.prm.coeffs,
                *self.prm.step_args(self.final), CROSS_PAIRS, self.prm.per_rank_estimate,
                self.prm.estimate_fallback)
            return bool(found), dexc, gain, mine.gid[give], other.gid[take]
        if not est and self.prm.c_pair:  # the exact pair step in C (csrc/tasks/ranks_pair.c)
            self.n_evals += 1
            found, dexc, gain, give, take = _core.tasks_ranks_pair(
                mine.c_records(), other.c_records(), self.prm.coeffs, True,
                *self.prm.step_args(self.final), self.final and self.prm.final_mixed)
            return bool(found), dexc, gain, give, take
        if est:
            d, a, gids = estimate_problem(mine, other, self.prm.coeffs[0],
                                          per_rank=self.prm.per_rank_estimate)
        else:
            d, a, gids = pair_problem(mine, other, self.prm.coeffs[0])
        self.n_evals += 1
        # the pair problem marks the pinned tasks (task_migratable): the pair step leaves them
        # out of its transfer units, so the best exchange found keeps them in place
        found, dexc, gain, give, take = _core.tasks_pair_best(
            d, self.prm.coeffs, a, 0, 1, *self.prm.step_args(self.final),
            not est and self.final and self.prm.final_mixed)
        if (est and not found and self.prm.estimate_fallback and "edge_src" in d
                and (self.prm.coeffs[1] or self.prm.coeffs[2])):
            # the summaries' first-order view of the bytes can reject an exchange that the
            # exact step takes (clusters given together that talk to each other, swaps,
            # far ends that moved since this rank heard of them): propose then on load,
            # memory and homing alone, so that no pair an estimate blind to the bytes
            # would propose is left out
            for k in ("edge_src", "edge_dst", "edge_bytes"):
                del d[k]
            found, dexc, gain, give, take = _core.tasks_pair_best(
                d, self.prm.coeffs, a, 0, 1, *self.prm.step_args(self.final))
        return bool(found), dexc, gain, gids[give], gids[take]

    # ------------------------------------------------------------------ inform
    def begin_trial(self, trial: int) -> None:
        self.rng = _core.tasks_rng_seed(self.prm.seed, trial + 1, self.rank)
        self.last_wmax = None
        self.futile_final = {}

    def location_notices(self) -> dict:
        """``{rank: gids}``: the tasks that came here since the last notices, each sent to
        the ranks holding the far ends of its edges (as this rank knows them), so that their
        summaries count those bytes towards this rank (rounds protocol, before the inform
        stage of every iteration but the first)."""
        d = self.data
        new = d.gid[~member(d.gid, self._held, True)]
        self._held = d.gid.copy()
        if not new.size or not d.eid.size:
            return {}
        esr, edr = d._eranks()
        ms, md = member(d.esrc, new, True), member(d.edst, new, True)
        q = np.concatenate([edr[ms], esr[md]])
        g = np.concatenate([d.esrc[ms], d.edst[md]])
        ok = (q >= 0) & (q != self.rank)
        out: dict = {}
        for r in np.unique(q[ok]).tolist():
            out[int(r)] = np.unique(g[ok & (q == r)])
        return out

    def locate(self, notices: list) -> None:
        """Apply the ``[(rank, gids)]`` location notices of the ranks that hold `gids` now."""
        d = self.data
        if not notices or not d.eid.size:
            return
        esr, edr = d._eranks()
        for src, g in notices:
            esr[member(d.esrc, g, True)] = src
            edr[member(d.edst, g, True)] = src
        d.esr, d.edr = esr, edr
        self._mine = None

    def begin_iteration(self) -> None:
        self.sender = True
        self.tried: set = set()
        self._est: dict = {}
        self._w = None
        self._mine = None
        self.peer_w = {}
        if self.prm.protocol == "rounds":
            self.known = {self.rank: self.own_summary()}
        else:
            self.known = {self.rank: self.data.summary(self.prm.compress)}

    def hop_targets(self) -> list:
        """Ranks this rank sends its knowledge to in this hop (none if it is not a sender)."""
        if not self.sender or self.prm.P <= 1:
            return []
        cand = np.array([q for q in range(self.prm.P) if q not in self.known], np.int32)
        if cand.size == 0:
            return []
        self.rng, chosen = _core.tasks_rng_sample(self.rng, cand, self.prm.f)
        return chosen.tolist()

    def gossip_message(self) -> dict:
        """What this rank sends in a hop: its knowledge; with rounds, at most
        ``prm.gossip_cap`` summaries (its own, and the others it keeps spread evenly over
        their order by W, ties by rank), so that a message's size does not grow with P."""
        cap = self.prm.gossip_cap
        if self.prm.protocol != "rounds" or len(self.known) <= cap:
            return dict(self.known)
        others = sorted((s.work, q) for q, s in self.known.items() if q != self.rank)
        idx = np.unique(np.linspace(0, len(others) - 1, max(cap - 1, 1)).round().astype(int))
        sel = {others[i][1] for i in idx.tolist()} | {self.rank}
        return {q: self.known[q] for q in sorted(sel)}

    def hop_receive(self, messages: list) -> None:
        for m in messages:
            self.known.update(m)
        self.sender = bool(messages)
        if self.prm.protocol == "rounds" and len(self.known) > self.prm.keep + 1:
            # bounded gossip: keep the `keep` ranks heard of around this rank's mirror place
            # in the order by W (ties: smaller rank): the heaviest rank keeps the lightest,
            # a middle rank the middle ones, so that the proposals of different ranks go to
            # different peers and many disjoint pairs can be matched in a round
            others = sorted((s.work, q) for q, s in self.known.items() if q != self.rank)
            ws = np.array([x[0] for x in others])
            i = int(np.searchsorted(ws, self.known[self.rank].work))
            j = len(others) - i  # the mirror of this rank's place among the ranks heard of
            lo = max(0, min(j - self.prm.keep // 2, len(others) - self.prm.keep))
            keep = {q for _, q in others[lo:lo + self.prm.keep]} | {self.rank}
            self.known = {q: s for q, s in self.known.items() if q in keep}

    # ------------------------------------------------------------------ rounds
    def proposals(self) -> list:
        """This rank's proposals: ``[(peer, excess reduction, gain, version of the peer's
        summary)]`` for the known peers it
        has not locked yet this iteration whose best estimated exchange pays, best first
        (larger excess reduction, larger gain, smaller rank), at most ``prm.offers`` of them.
        Estimates are cached until this rank's tasks change. A proposal that lowers no
        excess must gain more than ``prm.propose_tol`` times this rank's W.

        In the final pass: every kept peer lighter than this rank by more than
        ``prm.final_tol`` times its W (by the freshest W it heard of: :attr:`peer_w`), by
        decreasing difference of W (no estimate: the exact pair step decides); the heaviest
        rank of the round before (:attr:`extremes`) also the lightest one and the ranks it
        does not keep (:meth:`_sweep`, :attr:`RankParams.final_sweep`). A pair whose exact
        step found nothing is not proposed again while this rank's tasks and the peer's W it
        heard of stay the same (:attr:`futile_final`)."""
        if self.final:
            w = self.current_work()
            cand = {q: (s.work, s.version) for q, s in self.known.items() if q != self.rank}
            for q, x in self.peer_w.items():
                if q in cand:
                    cand[q] = x
            tol = self.prm.final_tol
            ex = self.extremes
            if (ex is not None and self.prm.final_reach and ex[2] == self.rank
                    and ex[3] != self.rank and 0 <= ex[3] < self.prm.P):
                cand[ex[3]] = (ex[1], -1)  # (the allreduce's W_min: the freshest)
            lim = w - tol * abs(w)
            self._heard = {q: x[0] for q, x in cand.items()}
            v, fut = self.version, self.futile_final
            fin = sorted((-(w - x[0]), q) for q, x in cand.items()
                         if q not in self.tried and fut.get(q) != (v, x[0]) and x[0] < lim)
            out = [(q, -d, 0.0, cand[q][1]) for d, q in fin[:self.prm.offers]]
            if ex is not None and self.prm.final_sweep and ex[2] == self.rank:
                out += self._sweep(set(cand), self.prm.offers - len(out))
            return out
        out = []
        w = abs(self.current_work())
        known, est, v = self.known, self._est, self.version
        # (a futile pair: the exact step found nothing with these task sets)
        peers = [q for q in sorted(known) if q != self.rank and q not in self.tried
                 and self.futile.get(q) != (v, known[q].version)]
        miss = [q for q in peers if q not in est or est[q][0] != v or est[q][1] is not known[q]]
        if miss:
            mine = self.own_summary()
            if self.prm.c_estimate:  # every estimate in one C call, without the ids
                self.n_evals += len(miss)
                res = estimate_peers(mine, [known[q] for q in miss], self.prm.coeffs,
                                     self.prm.step_args(self.final), self.prm.per_rank_estimate,
                                     self.prm.estimate_fallback)
            else:
                res = [self._best(known[q], mine)[:3] for q in miss]
            for q, (found, dexc, gain) in zip(miss, res):
                est[q] = (v, known[q], bool(found), dexc, gain)
        for q in peers:
            hit = est[q]
            if hit[2] and (hit[3] > 0 or hit[4] > self.prm.propose_tol * w):
                out.append((-hit[3], -hit[4], q))
        out.sort()
        # the key of the edge leads with (excess reduction, this rank's W): the heaviest
        # rank's best proposal is matched first (not a lighter rank's larger gain)
        return [(q, (-d, w), -g, self.known[q].version) for d, g, q in out[:self.prm.offers]]

    def _sweep(self, skip: set, n: int) -> list:
        """The heaviest rank's further final-pass proposals (:attr:`RankParams.final_sweep`):
        up to `n` ranks not in `skip`, the next ones after this rank (cyclic) not futile
        (:attr:`futile_final`), with a W difference of 0 (their W is not known)."""
        v, fut, P, out = self.version, self.futile_final, self.prm.P, []
        for j in range(1, P if n > 0 else 0):
            q = (self.rank + j) % P
            heard = self.peer_w.get(q, (None,))[0]
            if q in skip or fut.get(q) == (v, heard):
                continue
            self._heard[q] = heard
            out.append((q, 0.0, 0.0, -1))
            if len(out) >= n:
                break
        return out

    def _estimate(self, other: Summary, mine: Summary, mine_c: tuple, args: tuple) -> tuple:
        """``(found, excess reduction, gain)`` of :meth:`_best` on two summaries in C (the
        proposals need no ids)."""
        if _overlaps(other.gid, mine.gid):
            other = other.without(mine.gid)  # stale: those tasks are ours now
        self.n_evals += 1
        found, dexc, gain, _, _ = _core.tasks_ranks_estimate(
            mine_c, other.c_fields(), self.prm.coeffs, *args, CROSS_PAIRS,
            self.prm.per_rank_estimate, self.prm.estimate_fallback)
        return bool(found), dexc, gain

    def current_work(self) -> float:
        """W of this rank now (cached until its tasks change)."""
        if self._w is None or self._w[0] != self.version:
            self._w = (self.version, self.work())
        return self._w[1]

    def own_summary(self) -> Summary:
        """This rank's bounded summary for its estimates (cached until its tasks change)."""
        if self._mine is None or self._mine[0] != self.version:
            self._mine = (self.version, self.data.bounded_summary(
                self.current_work(), per_task=not self.prm.compress, version=self.version))
        return self._mine[1]

    def pair_work(self) -> float | None:
        """This rank's W as it answers ``LOCK_GRANT`` and ``GIVE_BACK`` in the rounds
        protocol (None unless :attr:`RankParams.track_drop`)."""
        return self.current_work() if self.prm.track_drop else None

    def take_drop(self) -> float:
        """:attr:`pair_drop` for this round's allreduce, reset for the next round."""
        d, self.pair_drop = self.pair_drop, 0.0
        return d

    def exchange(self, q: int, peer: RankData, request, w_peer: float | None = None) -> int:
        """The proposer's side of one granted pair: exact FindBestCCM on the pair, ``GIVE``
        (``request(q, message)`` returns the answer ``GIVE_BACK``, with the target's W after
        it as a third item when `w_peer`, its W at ``LOCK_GRANT``, is given) and again, at
        most ``prm.pair_steps`` exchanges while one pays, then ``RELEASE``. `peer` is the
        target's records (``LOCK_GRANT``), updated here as the target updates its own. A pair
        in which no exchange pays is not proposed again in the iteration (in the final pass:
        while neither changes, :attr:`futile_final`); one cut short by ``pair_steps`` may be
        matched again in a later round. With `w_peer`, the drop of the pair's total W goes into
        :attr:`pair_drop` and the target's W into :attr:`peer_w`."""
        moved = 0
        before = None if w_peer is None else self.current_work() + w_peer
        if w_peer is not None:
            self.peer_w[q] = (float(w_peer), -1)
        steps = self.prm.final_pair_steps if self.final else self.prm.pair_steps
        for step in range(steps):
            found, _, _, give, take = self._best(peer)
            if not found:
                if self.final and self.prm.final_retry:  # not again while neither changes
                    heard = self.peer_w.get(q, (self._heard.get(q),))[0]
                    self.futile_final[q] = (self.version, heard)
                    break
                self.tried.add(q)  # this pair is done for the iteration
                if not self.final and q in self.known:  # and later, while neither changes
                    self.futile[q] = (self.version, self.known[q].version)
                break
            recs = self.data.records_of(give, to=q)  # they leave with the answer
            ans = request(q, ("GIVE", recs, take))
            kind, back = ans[0], ans[1]
            if kind != "GIVE_BACK":
                raise WpartRuntimeError(f"rank {self.rank}: expected GIVE_BACK from {q}, "
                                        f"got {kind}")
            self.data.swap(give, q, back)  # extract(give, to=q), insert(back): one C call
            if step + 1 < steps:  # the peer's records for the next step
                peer.swap(take, None, recs)
            self.version += 1
            moved += 1
            if before is not None and len(ans) > 2 and ans[2] is not None:
                self.peer_w[q] = (float(ans[2]), -1)
                drop = before - (self.current_work() + float(ans[2]))
                if math.isfinite(drop) and drop > self.pair_drop:
                    self.pair_drop = drop
        request(q, ("RELEASE",))
        return moved

    # ------------------------------------------------------------------ transfer
    def rank_peers(self) -> list:
        """Work list ``[(peer, gain)]``: known peers whose best estimated exchange pays,
        ordered as the serial engine (larger excess reduction, larger gain, smaller rank)."""
        wl = []
        for q in sorted(self.known):
            if q == self.rank:
                continue
            found, dexc, gain, _, _ = self._best(self.known[q])
            if found:
                wl.append((-dexc, -gain, q))
        wl.sort()
        return [(q, -g) for _, g, q in wl]

    def turn(self, request, work_list: list | None = None) -> int:
        """This rank's turn; ``request(q, message)`` returns q's answer (None for RELEASE).

        `work_list` (from :meth:`rank_peers`) may be computed ahead when this rank's tasks
        have not changed since (``version``)."""
        moved = 0
        for q, gain in (self.rank_peers() if work_list is None else work_list):
            kind, peer = request(q, ("LOCK_REQ", gain))
            if kind != "LOCK_GRANT":
                raise WpartRuntimeError(f"rank {self.rank}: expected LOCK_GRANT from {q}, got {kind}")
            found, _, _, give, take = self._best(peer)
            if found:
                recs = self.data.extract(give, to=q)
                kind, back = request(q, ("GIVE", recs, take))
                if kind != "GIVE_BACK":
                    raise WpartRuntimeError(f"rank {self.rank}: expected GIVE_BACK from {q}, "
                                       f"got {kind}")
                self.data.insert(back)
                moved += 1
            request(q, ("RELEASE",))
        return moved

    def serve(self, src: int, msg: tuple):
        """Answer a peer's message (the lock holder's side); None when no answer is due."""
        kind = msg[0]
        if kind == "LOCK_REQ":
            return ("LOCK_GRANT", self.data.snapshot())
        if kind == "GIVE":
            _, recs, take = msg
            back = self.data.swap(take, src, recs, keep_moved=True)
            self.version += 1
            return ("GIVE_BACK", back)
        if kind == "RELEASE":
            return None
        raise WpartRuntimeError(f"rank {self.rank}: unknown message {kind!r} from {src}")


def _overlaps(x: np.ndarray, s: np.ndarray) -> bool:
    """Whether the sorted id arrays `x` and `s` share an id (a merge in C,
    :func:`wpart._core.tasks_ranks_union`; ``member`` where they are not sorted int64)."""
    if not x.size or not s.size:
        return False
    try:
        return _core.tasks_ranks_union(x, s)[1] > 0
    except WpartError:
        return bool(member(x, s, True).any())


def run_ranks(problem, prm: RankParams, a0: np.ndarray, cap, *, progress=None,
              deadline=None) -> dict:
    """The distributed engine with every rank in this process (direct calls as transport).

    Returns ``assignment`` (best trial), ``history`` (its W_max per iteration),
    ``exchanges_per_iteration``, ``best_trial``, ``messages`` (counts by kind),
    ``evaluations`` (pair steps), ``stopped`` (whether `deadline` ended the run: it is checked
    before every turn, and the state after the last completed turn competes with the earlier
    trials) and ``turns_done``.
    """
    P = problem.m
    init = split_problem(problem, a0, cap)
    gids = (np.arange(problem.n_tasks) if problem.task_ids is None
            else np.asarray(problem.task_ids, np.int64))
    gorder = np.argsort(gids, kind="stable")
    gsort = gids[gorder]
    best = None
    counts: dict = {}
    n_evals = 0
    sent = np.zeros(P, np.int64)      # messages sent, per rank
    nbytes = np.zeros(P, np.int64)    # their pickled bytes (prm.count_bytes)
    gossip_mem = np.zeros(P, np.int64)  # largest pickled knowledge held, per rank

    def count(kind: str, n: int = 1, b: int = 0, who: int | None = None) -> None:
        counts[kind] = counts.get(kind, 0) + n
        if who is not None:
            sent[who] += n
            nbytes[who] += b

    stopped = False
    turns_done = 0

    def late() -> bool:
        return deadline is not None and deadline.reached()

    for trial in range(prm.n_trials):
        if trial > 0 and late():
            stopped = True
            break
        ranks = [RankProcess(d.copy(), prm) for d in init]
        for rk in ranks:
            rk.begin_trial(trial)
        hist = [max(rk.work() for rk in ranks)]
        exch, sched = [], []
        fin_moved = 0
        ostate = None
        for it in range(prm.n_iter):
            if late():
                stopped = True
                break
            if prm.protocol == "rounds" and it > 0:  # where the moved tasks are now
                inbox = [[] for _ in range(P)]
                for rk in ranks:
                    for q, g in rk.location_notices().items():
                        inbox[q].append((rk.rank, g))
                        count("LOCATE", 1, _pickled(g) if prm.count_bytes else 0, rk.rank)
                for rk in ranks:
                    rk.locate(inbox[rk.rank])
            for rk in ranks:
                rk.begin_iteration()
            for _ in range(prm.k):
                inbox: list = [[] for _ in range(P)]
                for rk in ranks:
                    tg = rk.hop_targets()
                    snap = rk.gossip_message()
                    for q in tg:
                        inbox[q].append(snap)
                    count("INFORM", len(tg), len(tg) * _pickled(snap) if prm.count_bytes and tg
                          else 0, rk.rank)
                for rk in ranks:
                    rk.hop_receive(inbox[rk.rank])
                    if prm.count_bytes:
                        gossip_mem[rk.rank] = max(gossip_mem[rk.rank], _pickled(rk.known))
            ostate, order = prm.turn_order(trial, ostate)
            if prm.protocol == "rounds":
                st = rounds_stage(ranks, prm, positions(order), trial, it, count, late)
                stopped = st["stopped"]
                turns_done += P
                if progress is not None:
                    progress(P)
                sched.append((st["serial_s"], st["critical_path_s"],
                              {k: st[k] for k in ("rounds", "pairs", "concurrency")}))
                fin_moved = 0
                if not stopped and it == prm.n_iter - 1 and final_pass(prm):
                    for rk in ranks:  # the final pass (single tasks move too)
                        rk.final, rk.tried, rk.extremes = True, set(), None
                    fin = rounds_stage(ranks, prm, positions(order), trial, prm.n_iter + 1,
                                       count, late)
                    stopped = fin["stopped"]
                    for rk in ranks:
                        rk.final = False
                    fin_moved += fin["moved"]
                    sched[-1] = _add_stage(sched[-1], fin)
                exch.append(st["moved"] + fin_moved)  # the final pass counts in the last one
                hist.append(max(rk.work() for rk in ranks))
                if stopped:
                    break
                continue
            moved = 0
            v0 = [rk.version for rk in ranks]
            turns = []
            for r in order.tolist():
                if late():
                    stopped = True
                    break

                def request(q, msg, _r=r):
                    cb = prm.count_bytes
                    count(msg[0], 1, _pickled(("TURN", trial, it) + tuple(msg)) if cb else 0, _r)
                    ans = ranks[q].serve(_r, msg)
                    if ans is not None:
                        count(ans[0], 1, _pickled(("TURN", trial, it) + tuple(ans)) if cb else 0,
                              q)
                    return ans
                t0 = time.thread_time()
                wl = ranks[r].rank_peers()
                t1 = time.thread_time()
                moved += ranks[r].turn(request, wl)
                turns.append((r, frozenset([r] + [q for q, _ in wl]), frozenset(ranks[r].known),
                              t1 - t0, time.thread_time() - t1, ranks[r].version != v0[r]))
                note = _pickled(("ANN", trial, it, 0, sorted(turns[-1][1]))) \
                    if prm.count_bytes else 0
                count("ANNOUNCE", P - 1, (P - 1) * note, r)
                count("TURN_DONE", P - 1, (P - 1) * (note and _pickled(("DONE", trial, it, 0, 1))),
                      r)
                turns_done += 1
                if progress is not None:
                    progress(1)
            sched.append(_schedule(turns, P))
            exch.append(moved)
            hist.append(max(rk.work() for rk in ranks))
            if stopped:
                break
        a = np.empty(problem.n_tasks, np.int32)
        for rk in ranks:
            a[gorder[np.searchsorted(gsort, rk.data.gid)]] = rk.rank
            n_evals += rk.n_evals
        nmoved = int((a != a0).sum())
        key = (hist[-1], nmoved)
        if best is None or key < best[0]:
            best = (key, a, hist, exch, trial, sched, fin_moved)
        if stopped:
            break
    _, a, hist, exch, trial, sched, fin_moved = best
    schedule = {"serial_s": [x[0] for x in sched], "critical_path_s": [x[1] for x in sched]}
    if prm.protocol == "rounds":
        schedule["rounds"] = [x[2] for x in sched]
    return {"assignment": a, "history": np.array(hist), "exchanges_per_iteration": exch,
            "best_trial": trial, "messages": counts, "evaluations": n_evals,
            "schedule": schedule, "protocol": prm.protocol,
            "final_pass_exchanges": fin_moved,
            "messages_per_rank": sent, "bytes_per_rank": nbytes,
            "gossip_bytes_per_rank": gossip_mem,
            "n_rounds": prm.k, "fanout": prm.f, "stopped": stopped, "turns_done": turns_done}


def _add_stage(sched: tuple, st: dict) -> tuple:
    """One iteration's schedule entry with a further stage of rounds (counted in it)."""
    return (sched[0] + st["serial_s"], sched[1] + st["critical_path_s"],
            {k: (sched[2][k] + st[k]) for k in ("rounds", "pairs", "concurrency")})


def final_pass(prm) -> bool:
    """Whether the rounds protocol ends with the final pass (:attr:`RankParams.final_pass`:
    whole clusters only, at least one iteration)."""
    return bool(prm.protocol == "rounds" and prm.final_pass and prm.singles == 0
                and prm.n_iter > 0)


def _pickled(obj) -> int:
    import pickle

    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def _schedule(turns: list, P: int) -> tuple:
    """``(serial, critical path)`` seconds of one transfer stage from its measured turns.

    ``turns``: per turn in order ``(rank, ranks it touches, ranks it knows, ranking s, lock
    phase s, changed before its turn)``. Serial: the sum of the turns (one rank at a time).
    Critical path: the concurrent schedule of :mod:`wpart.tasks._mpi_turns` with free
    messages: every rank ranks its peers at the start, in parallel; a turn announces after the
    turn before it announced and after the earlier turns touching its rank finished
    (re-ranking if they changed its tasks), and runs its locks after every earlier turn
    touching one of its peers finished.
    """
    serial = sum(t[3] + t[4] for t in turns)
    rank_t = {t[0]: t[3] for t in turns}
    free = dict.fromkeys(range(P), 0.0)  # when each rank is free of earlier turns
    ann = crit = 0.0
    for r, A, _, tr, tl, changed in turns:
        ann = max(ann, max(rank_t[r], free[r]) + (tr if changed else 0.0))
        end = max([ann] + [free[q] for q in A]) + tl
        for q in A:
            free[q] = end
        crit = max(crit, end)
    return serial, crit
