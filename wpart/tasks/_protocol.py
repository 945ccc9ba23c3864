"""Event-driven simulation of the CCM-LB lock protocol (spec 003 sections 3.6 and 8.1).

The default ``backend="simulated"`` of :func:`wpart.tasks.balance` runs the transfer stage as a
serial order of atomic pairwise exchanges in C. This module runs the *distributed* semantics
instead, for protocol testing: every rank is a state machine (:class:`RankState`) whose
:func:`step` maps ``(own state, incoming message) -> outgoing messages``; messages travel through
per-rank mailboxes with seeded random delays (no FIFO guarantee per link). Messages:

``LOCK_REQ(gain)``     requester -> target; queued, granted one at a time by decreasing gain.
``LOCK_GRANT(tasks)``  target -> requester, with the target's exact current task set.
``GIVE(give, take)``   requester -> target: the requester's cluster and the cluster it asks for.
``GIVE_BACK(take)``    target -> requester, after applying the exchange on its side.
``RELEASE``            requester -> target, ends the lock.

A rank grants at most one lock at a time, and none while it performs an exchange as initiator.
Cycle avoidance (the paper's rule): a rank locked by ``rx`` that obtains the lock of ``p`` with
``rx <= p`` releases ``p`` at once and re-queues it; it retries only once it is unlocked (a
back-off, as allowed by spec 8.2). Otherwise it waits until it is unlocked, then evaluates every
cluster exchange exactly and sends ``GIVE`` if the best one lowers ``max(W_r, W_p)`` by more than
``tol * max(W_r, W_p)``, the criterion of the C core. Work values come from the C evaluator
(:func:`wpart._core.tasks_evaluate`); as in the model, ``W`` of a rank depends only on its own
task set, which is what a rank knows about itself and what ``LOCK_GRANT`` carries.

Every exchange is committed when the target applies ``GIVE``; both ranks are then locked, so the
returned log is a serial sequence of pairwise exchanges (spec 6 item 14).
"""

from __future__ import annotations
from .._errors import WpartRuntimeError, WpartValueError

import heapq
from dataclasses import dataclass, field

import numpy as np

from .. import _core
from .._validate import as_int, choice
from ._problem import Coefficients, Problem

__all__ = ["Exchange", "ProtocolRun", "RankState", "run_protocol", "step"]


@dataclass(frozen=True)
class Exchange:
    """One committed exchange: ``give`` tasks move ``r -> p``, ``take`` tasks move ``p -> r``."""

    iteration: int
    r: int
    p: int
    give: tuple
    take: tuple
    gain: float


@dataclass
class ProtocolRun:
    """Result of :func:`run_protocol`."""

    assignment: np.ndarray
    initial: np.ndarray
    log: list
    history: list
    n_events: int
    n_messages: dict
    n_rule_releases: int


class _Model:
    """Shared read-only data: the problem dictionary and the exact pair evaluator."""

    def __init__(self, problem: Problem, coeffs: Coefficients, cap, cluster: str, tol: float):
        self.d = problem._dict(cap)
        self.co = coeffs.as_tuple()
        self.I = problem.n_ranks
        self.K = problem.n_tasks
        self.block = (np.full(self.K, -1, np.int32) if problem.task_block is None
                      else np.asarray(problem.task_block, np.int32))
        self.cluster = cluster
        self.tol = tol
        self.n_evals = 0

    def clusters(self, tasks) -> list:
        """Transfer units of a task set, in a deterministic order."""
        if self.cluster == "task":
            return [(t,) for t in sorted(tasks)]
        groups: dict = {}
        singles = []
        for t in sorted(tasks):
            b = int(self.block[t])
            if b < 0:
                singles.append((t,))
            else:
                groups.setdefault(b, []).append(t)
        return [tuple(groups[b]) for b in sorted(groups)] + singles

    def _pair_assignment(self, r: int, tr, p: int, tp) -> np.ndarray:
        other = next((q for q in range(self.I) if q != r and q != p), p)
        a = np.full(self.K, other, np.int32)
        a[list(tr)] = r
        a[list(tp)] = p
        if other == p and len(tr) + len(tp) != self.K:
            raise WpartRuntimeError("two ranks must hold every task")
        return a

    def pair_work(self, r: int, tr, p: int, tp) -> tuple:
        """Exact ``(W_r, W_p)`` for the task sets ``tr`` on ``r`` and ``tp`` on ``p``.

        Other tasks are put on some third rank: they do not change ``W_r`` nor ``W_p``.
        """
        self.n_evals += 1
        _, rep = _core.tasks_evaluate(self.d, self.co, self._pair_assignment(r, tr, p, tp))
        return float(rep["work"][r]), float(rep["work"][p])

    def find_best(self, r: int, tr, p: int, tp, estimate: bool = False) -> tuple:
        """FindBestCCM: ``(gain, give, take)``; ``gain = -inf`` when nothing is accepted.

        With ``estimate`` the after-states use the closed form of spec 1.8 with the bytes
        between the two clusters unknown (0), as the C core's peer ranking does.
        """
        tr, tp = frozenset(tr), frozenset(tp)
        wr, wp = self.pair_work(r, tr, p, tp)
        a = self._pair_assignment(r, tr, p, tp) if estimate else None
        before = max(wr, wp)
        best = (-np.inf, (), ())
        best_key = None
        for cr in self.clusters(tr) + [()]:
            for cp in self.clusters(tp) + [()]:
                if not cr and not cp:
                    continue
                if estimate:
                    self.n_evals += 1
                    (w1, w2), _ = _core.tasks_estimate(self.d, self.co, a, r,
                                                       np.array(cr, np.int32), p,
                                                       np.array(cp, np.int32), False)
                else:
                    w1, w2 = self.pair_work(r, (tr - set(cr)) | set(cp), p,
                                            (tp - set(cp)) | set(cr))
                gain = before - max(w1, w2)
                if not gain > self.tol * before:
                    continue
                key = (-gain, len(cr) + len(cp), cr, cp)
                if best_key is None or key < best_key:
                    best_key, best = key, (gain, cr, cp)
        return best


@dataclass
class RankState:
    """State of one rank: only its own tasks, lock bookkeeping and its work list."""

    rank: int
    tasks: set
    work_list: list = field(default_factory=list)  # [(gain, p)], consumed from the front
    locked_by: int | None = None                    # rank that holds our lock
    queue: list = field(default_factory=list)       # pending LOCK_REQ: [(gain, requester)]
    mode: str = "idle"                              # idle | requesting | holding | giving
    target: int | None = None
    target_gain: float = 0.0
    target_tasks: frozenset = frozenset()
    pending: tuple = ((), ())                        # (give, take) while giving
    deferred: bool = False                           # released by the rule: wait to be unlocked
    iteration: int = 0
    rule_releases: int = 0


def _try_next(s: RankState, out: list) -> None:
    if s.mode != "idle" or (s.deferred and s.locked_by is not None):
        return
    s.deferred = False
    if s.work_list:
        gain, p = s.work_list.pop(0)
        s.mode, s.target, s.target_gain = "requesting", p, gain
        out.append((p, ("LOCK_REQ", gain)))


def _maybe_grant(s: RankState, out: list) -> None:
    if s.locked_by is None and s.mode in ("idle", "requesting") and s.queue:
        s.queue.sort(key=lambda e: (-e[0], e[1]))
        _, q = s.queue.pop(0)
        s.locked_by = q
        out.append((q, ("LOCK_GRANT", frozenset(s.tasks))))


def _proceed(s: RankState, model: _Model, out: list, log: list) -> None:
    p = s.target
    gain, cr, cp = model.find_best(s.rank, s.tasks, p, s.target_tasks)
    if gain > 0:
        s.mode, s.pending = "giving", (cr, cp)
        out.append((p, ("GIVE", cr, cp, gain)))
    else:
        s.mode, s.target = "idle", None
        out.append((p, ("RELEASE",)))
        _try_next(s, out)
        _maybe_grant(s, out)


def step(s: RankState, src: int, msg: tuple, model: _Model, log: list) -> list:
    """Handle one incoming message; return the outgoing ``[(dest, message)]``.

    Depends only on ``s`` (updated in place), the message and the read-only model; ``log``
    receives the exchanges this rank commits as a target.
    """
    out: list = []
    kind = msg[0]
    if kind == "START":
        s.iteration, s.work_list = msg[1], list(msg[2])
        _try_next(s, out)
    elif kind == "LOCK_REQ":
        s.queue.append((msg[1], src))
        _maybe_grant(s, out)
    elif kind == "LOCK_GRANT":
        assert s.mode == "requesting" and s.target == src
        if s.locked_by is not None and s.locked_by <= src:  # cycle avoidance rule
            out.append((src, ("RELEASE",)))
            s.work_list.append((s.target_gain, src))
            s.mode, s.target, s.deferred = "idle", None, True
            s.rule_releases += 1
            _maybe_grant(s, out)
        else:
            s.mode, s.target_tasks = "holding", msg[1]
            if s.locked_by is None:
                _proceed(s, model, out, log)
    elif kind == "GIVE":
        assert s.locked_by == src
        give, take, gain = msg[1], msg[2], msg[3]
        assert set(take) <= s.tasks and not (set(give) & s.tasks)
        s.tasks = (s.tasks - set(take)) | set(give)
        log.append(Exchange(s.iteration, src, s.rank, tuple(give), tuple(take), gain))
        out.append((src, ("GIVE_BACK", take)))
    elif kind == "GIVE_BACK":
        assert s.mode == "giving" and s.target == src
        give, take = s.pending
        s.tasks = (s.tasks - set(give)) | set(take)
        s.mode, s.target, s.pending = "idle", None, ((), ())
        out.append((src, ("RELEASE",)))
        _try_next(s, out)
        _maybe_grant(s, out)
    elif kind == "RELEASE":
        assert s.locked_by == src
        s.locked_by = None
        if s.mode == "holding":
            _proceed(s, model, out, log)
        else:
            _try_next(s, out)
        _maybe_grant(s, out)
    else:
        raise WpartValueError(f"unknown message {kind!r}")
    return out


def _check_invariants(ranks: list) -> None:
    """Lock invariants: a rank is locked by at most one holder (by construction), a holder's
    target is locked by it, and an initiator mid-exchange is itself unlocked."""
    holders: dict = {}
    for s in ranks:
        if s.mode in ("holding", "giving"):
            assert s.target not in holders, "a rank granted two locks"
            holders[s.target] = s.rank
            if s.mode == "giving":
                assert s.locked_by is None
        if s.mode in ("holding", "giving", "requesting"):
            assert s.target != s.rank
    for q, h in holders.items():
        assert ranks[q].locked_by == h


def _inform(P: int, f: int, k: int, rng: np.random.Generator) -> list:
    """Synchronous-round gossip of spec 3.4 (knowledge sets)."""
    known = [{r} for r in range(P)]
    senders = set(range(P))
    for _ in range(k):
        inbox: list = [[] for _ in range(P)]
        for r in sorted(senders):
            cand = [q for q in range(P) if q not in known[r]]
            if not cand:
                continue
            for q in rng.choice(cand, size=min(f, len(cand)), replace=False):
                inbox[int(q)].append(frozenset(known[r]))
        senders = set()
        for q in range(P):
            for m in inbox[q]:
                known[q] |= m
            if inbox[q]:
                senders.add(q)
    return known


def run_protocol(problem: Problem, seed: int = 0, *, alpha: float = 1.0, beta: float = 0.0,
                 gamma: float = 0.0, delta: float = 0.0, memory_cap=None, initial=None,
                 n_iter: int = 4, n_rounds: int | None = None, fanout: int | None = None,
                 cluster: str = "block", tol: float = 1e-12, max_delay: float = 1.0,
                 work_lists: list | None = None, max_events: int = 1_000_000,
                 check: bool = False, ranking: str = "snapshot") -> ProtocolRun:
    """Run CCM-LB with the event-driven lock protocol (spec 8.1); deterministic per ``seed``.

    Each iteration: gossip (spec 3.4, synchronous rounds), every rank ranks its known peers on
    the state at the start of the iteration (keeping gains ``> 0``, by decreasing gain; with
    ``ranking="snapshot"`` from the closed-form estimate of the C core, with ``"exact"`` from
    the exact model), then the transfer stage runs as messages with delays uniform in ``(0, max_delay]``
    until no message is in flight (the iteration barrier). ``work_lists`` (one list of peer
    ranks per rank) replaces the gossip and ranking, to force contention in tests.

    With ``check`` the global lock invariants are asserted after every event (tests).

    Raises :class:`RuntimeError` if more than ``max_events`` messages are delivered.
    """
    c = Coefficients(alpha, beta, gamma, delta)
    cap = problem.caps(memory_cap)
    a0 = problem.assignment(initial, "initial")
    cl = choice(cluster, "cluster", ("block", "task"))
    ranking = choice(ranking, "ranking", ("snapshot", "exact"))
    seed = as_int(seed, "seed", minimum=0)
    n_iter = as_int(n_iter, "n_iter", minimum=0)
    model = _Model(problem, c, cap, cl, float(tol))
    P = problem.n_ranks
    w0, _ = _core.tasks_evaluate(model.d, model.co, a0)
    if not np.isfinite(w0):
        raise WpartValueError("infeasible start: the initial assignment exceeds a memory cap")
    k = 0 if n_rounds is None else as_int(n_rounds, "n_rounds", minimum=1)
    f = 0 if fanout is None else as_int(fanout, "fanout", minimum=1)
    k, f = _core.tasks_knowledge(P, k, f)
    rng = np.random.default_rng(seed)
    ranks = [RankState(r, set(np.flatnonzero(a0 == r).tolist())) for r in range(P)]
    log: list = []
    history = [float(w0)]
    n_events = 0
    counts: dict = {}
    seq = 0
    for it in range(n_iter):
        snap = [frozenset(s.tasks) for s in ranks]
        if work_lists is not None:
            wls = [[(1.0, int(p)) for p in work_lists[r]] for r in range(P)]
        else:
            known = _inform(P, f, k, rng)
            wls = []
            for r in range(P):
                wl = []
                for p in sorted(known[r] - {r}):
                    g = model.find_best(r, snap[r], p, snap[p], estimate=ranking == "snapshot")[0]
                    if g > 0:
                        wl.append((g, p))
                wl.sort(key=lambda e: (-e[0], e[1]))
                wls.append(wl)
        heap: list = []
        for r in range(P):
            heapq.heappush(heap, (float(rng.uniform(0, max_delay)), seq, r, r,
                                  ("START", it, wls[r])))
            seq += 1
        while heap:
            t, _, dest, src, msg = heapq.heappop(heap)
            n_events += 1
            counts[msg[0]] = counts.get(msg[0], 0) + 1
            if n_events > max_events:
                raise WpartRuntimeError(f"protocol did not terminate within {max_events} events")
            for d2, m2 in step(ranks[dest], src, msg, model, log):
                heapq.heappush(heap, (t + float(rng.uniform(1e-3, max_delay)), seq, d2, dest, m2))
                seq += 1
            if check:
                _check_invariants(ranks)
        for s in ranks:  # barrier: every lock released, every list exhausted
            assert s.mode == "idle" and s.locked_by is None and not s.queue and not s.work_list
        a = np.empty(problem.n_tasks, np.int32)
        for s in ranks:
            a[list(s.tasks)] = s.rank
        w, _ = _core.tasks_evaluate(model.d, model.co, a)
        history.append(float(w))
    a = np.empty(problem.n_tasks, np.int32)
    for s in ranks:
        a[list(s.tasks)] = s.rank
    return ProtocolRun(assignment=a, initial=a0, log=log, history=history, n_events=n_events,
                       n_messages=counts,
                       n_rule_releases=sum(s.rule_releases for s in ranks))
