"""Event-driven simulation of the CCM-LB lock protocol (the transfer stage of Sec. IV-B of the
paper).

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
back-off, as in the group's vt TemperedLB). Otherwise it waits until it is unlocked, then
evaluates every cluster exchange exactly and sends ``GIVE`` if the best one lowers
``max(W_r, W_p)`` by more than ``tol * max(W_r, W_p)``, the criterion of the C core. Work values come from the C evaluator
(:func:`wpart._core.tasks_evaluate`); as in the model, ``W`` of a rank depends only on its own
task set, which is what a rank knows about itself and what ``LOCK_GRANT`` carries.

Every exchange is committed when the target applies ``GIVE``; both ranks are then locked, so the
returned log is a serial sequence of pairwise exchanges: replayed in order from the initial
assignment, it gives the final one.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _core
from .._errors import CancelledError, WpartRuntimeError, WpartTypeError, WpartValueError
from .._result import Result, new_axes, pct
from .._validate import as_float, as_int, as_progress, as_seed, as_time_limit, choice, is_bool
from .._validate import positional_deprecated
from ._compress import bounded_protocol
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


@dataclass(frozen=True, eq=False, repr=False)
class ProtocolRun(Result):
    """Result of :func:`run_protocol`.

    Attributes
    ----------
    status : str
        ``"feasible"`` (every iteration ran), or ``"time_limit"`` (`time_limit` was reached:
        `assignment` is the initial one with the exchanges committed so far replayed on it).
    success : bool
    message : str
    assignment, initial : ndarray of int32, shape (K,)
        Final and initial rank of every task.
    log : list of Exchange
        The committed exchanges, in commit order (a serial sequence).
    history : list of float
        ``W_max`` before the first and after every iteration (after the last committed
        exchange when stopped).
    max_load : float
        ``W_max`` of `assignment`.
    imbalance : float
        ``max_load / mean W - 1``.
    stats : dict
        ``events`` (messages delivered), ``messages`` (count by kind), ``rule_releases``
        (locks released by the cycle-avoidance rule), ``iterations`` (completed).
    """

    assignment: np.ndarray
    initial: np.ndarray
    log: list
    history: list
    max_load: float
    imbalance: float

    @property
    def n_events(self) -> int:
        """Messages delivered."""
        return int(self.stats["events"])

    @property
    def n_messages(self) -> dict:
        """Messages delivered, by kind."""
        return self.stats["messages"]

    @property
    def n_rule_releases(self) -> int:
        """Locks released at once by the cycle-avoidance rule."""
        return int(self.stats["rule_releases"])

    def _repr_lines(self) -> list[str]:
        return [f"ProtocolRun(status={self.status!r}, n_tasks={self.assignment.shape[0]}, "
                f"exchanges={len(self.log)}, events={self.n_events})",
                f"  max_load (W_max) {self.history[0]:.6g} -> {self.max_load:.6g}, "
                f"imbalance {pct(self.imbalance)}", f"  {self.message}"]

    def plot(self, ax: Any = None) -> Any:
        """``W_max`` before the first and after every iteration; returns the Axes drawn
        on."""
        ax = new_axes(ax, figsize=(5, 3.2))
        ax.plot(np.arange(len(self.history)), self.history, marker="o", label="per iteration")
        ax.set_xlabel("iteration")
        ax.set_ylabel("W_max")
        ax.set_title(f"event-driven CCM-LB: {len(self.log)} exchanges")
        ax.legend(fontsize="small")
        return ax


class _Model:
    """Shared read-only data: the problem dictionary and the exact pair evaluator."""

    def __init__(self, problem: Problem, coeffs: Coefficients, cap, cluster: str, tol: float):
        self.d = problem._dict(cap)
        self.co = coeffs.as_tuple()
        self.I = problem.m
        self.K = problem.n_tasks
        self.block = (np.full(self.K, -1, np.int32) if problem.task_block is None
                      else np.asarray(problem.task_block, np.int32))
        self.cluster = cluster
        self.tol = tol
        self.n_evals = 0
        #: wall-clock end of the run (None: none): the ranking's estimates stop there
        self.deadline: float | None = None
        #: ``migratable`` mask: pinned tasks are left out of every transfer unit (a block
        #: cluster holding one moves without it), as in the serial C engines.
        self.mig = np.asarray(problem.migratable, bool)

    def clusters(self, tasks) -> list:
        """Transfer units of a task set, in a deterministic order; pinned tasks are left
        out."""
        movable = sorted(t for t in tasks if self.mig[t])
        if self.cluster == "task":
            return [(t,) for t in movable]
        groups: dict = {}
        singles = []
        for t in movable:
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

        The exact step is the C pair step (``wpart_tasks_pair_best``, the one of the serial
        and per-rank engines). With ``estimate`` (the peer ranking) the after-states use the
        closed-form update (from the update formulae of Sec. III of the paper) with the bytes
        between the two clusters unknown (0), as the C core's peer ranking does.
        """
        tr, tp = frozenset(tr), frozenset(tp)
        if not estimate:
            self.n_evals += 1
            found, _, gain, give, take = _core.tasks_pair_best(
                self.d, self.co, self._pair_assignment(r, tr, p, tp), r, p,
                {"block": 0, "task": 1}[self.cluster], 0, 0, 0, self.tol, 0.0)
            if not found:
                return (-np.inf, (), ())
            return (float(gain), tuple(sorted(int(t) for t in give)),
                    tuple(sorted(int(t) for t in take)))
        wr, wp = self.pair_work(r, tr, p, tp)
        a = self._pair_assignment(r, tr, p, tp)
        before = max(wr, wp)
        best = (-np.inf, (), ())
        best_key = None
        for cr in self.clusters(tr) + [()]:
            for cp in self.clusters(tp) + [()]:
                if not cr and not cp:
                    continue
                self.n_evals += 1
                if self.deadline is not None and self.n_evals % 8 == 0 \
                        and time.perf_counter() >= self.deadline:
                    return best  # the run stops: its ranking is not used
                (w1, w2), _ = _core.tasks_estimate(self.d, self.co, a, r,
                                                   np.array(cr, np.int32), p,
                                                   np.array(cp, np.int32), False)
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
    """Synchronous-round gossip of the inform stage (Sec. IV-A; knowledge sets)."""
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


@positional_deprecated("seed")
@bounded_protocol
def run_protocol(problem: Problem, *, seed: int = 0, alpha: float = 1.0, beta: float = 0.0,
                 gamma: float = 0.0, delta: float = 0.0, memory_cap=None, initial=None,
                 n_iter: int = 4, n_rounds: int | None = None, fanout: int | None = None,
                 cluster: str = "block", tol: float = 1e-12, max_delay: float = 1.0,
                 work_lists: list | None = None, max_events: int = 1_000_000,
                 check: bool = False, ranking: str = "snapshot",
                 time_limit: float | None = None, progress: Any = False) -> ProtocolRun:
    """Run CCM-LB with the event-driven lock protocol (Sec. IV-B); deterministic per ``seed``.

    Each iteration: gossip (Sec. IV-A, synchronous rounds), every rank ranks its known peers on
    the state at the start of the iteration (keeping gains ``> 0``, by decreasing gain; with
    ``ranking="snapshot"`` from the closed-form estimate of the C core, with ``"exact"`` from
    the exact model), then the transfer stage runs as messages with delays uniform in
    ``(0, max_delay]`` until no message is in flight (the iteration barrier). ``work_lists``
    (one list of peer ranks per rank) replaces the gossip and ranking, to force contention in
    tests.

    Parameters
    ----------
    problem : Problem
    seed : int, default 0
        Seed of the gossip and of the message delays.
    alpha, beta, gamma, delta, memory_cap, initial, n_iter, n_rounds, fanout, cluster, tol,
    ranking
        As :func:`wpart.tasks.balance`.
    max_delay : float, default 1.0
        Largest message delay (simulated time units, > 0).
    work_lists : list of list of int, optional
        Forced work lists (tests).
    max_events : int
        Messages delivered at most (a protocol that does not terminate is a bug).
    check : bool
        Assert the global lock invariants after every event (tests).
    time_limit : float, optional
        Seconds (None: none); checked after every delivered message. Reaching it returns
        status ``"time_limit"`` with the exchanges committed so far replayed on the
        iteration's starting assignment (a serial sequence, so the placement is consistent).
    progress : bool or callable
        ``progress(done, total)`` after every iteration (returning False stops the run with
        :class:`wpart.CancelledError`).

    Returns
    -------
    ProtocolRun

    Raises
    ------
    wpart.WpartRuntimeError
        More than ``max_events`` messages delivered.
    """
    if not isinstance(problem, Problem):
        raise WpartTypeError(f"`problem` must be a wpart.tasks.Problem (e.g. from "
                             f"read_lbdatafile or Problem(...)), got {type(problem).__name__}")
    c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
    cap = problem.caps(memory_cap)
    a0 = problem.assignment(initial, name="initial")
    cl = choice(cluster, "cluster", ("block", "task"))
    ranking = choice(ranking, "ranking", ("snapshot", "exact"))
    seed = as_seed(seed)
    n_iter = as_int(n_iter, "n_iter", minimum=0)
    tol = as_float(tol, "tol", minimum=0.0)
    max_delay = as_float(max_delay, "max_delay", minimum=0.0, strict_minimum=True)
    max_events = as_int(max_events, "max_events", minimum=1)
    tl = as_time_limit(time_limit)
    prog = as_progress(progress)
    t_start = time.perf_counter()
    model = _Model(problem, c, cap, cl, tol)
    model.deadline = None if tl is None else t_start + tl
    P = problem.m
    w0, _ = _core.tasks_evaluate(model.d, model.co, a0)
    if not np.isfinite(w0):
        raise WpartValueError("`memory_cap`: infeasible start: the initial assignment exceeds "
                              "a memory cap (W = inf on some rank); the message protocol starts "
                              "only from a placement within it (balance's default backend "
                              "takes allow_infeasible_start=True)")
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
    a = a0.copy()
    stopped = False
    done_iters = 0
    for it in range(n_iter):
        if tl is not None and time.perf_counter() - t_start >= tl:
            stopped = True
            break
        n_log0 = len(log)
        snap = [frozenset(s.tasks) for s in ranks]
        if work_lists is not None:
            wls = [[(1.0, int(p)) for p in work_lists[r]] for r in range(P)]
        else:
            known = _inform(P, f, k, rng)
            wls = []
            for r in range(P):
                wl = []
                for p in sorted(known[r] - {r}):
                    if tl is not None and time.perf_counter() - t_start >= tl:
                        stopped = True  # inside the ranking: no exchange of this iteration
                        break
                    g = model.find_best(r, snap[r], p, snap[p], estimate=ranking == "snapshot")[0]
                    if g > 0:
                        wl.append((g, p))
                if stopped:
                    break
                wl.sort(key=lambda e: (-e[0], e[1]))
                wls.append(wl)
            if stopped:
                break
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
            if tl is not None and time.perf_counter() - t_start >= tl:
                stopped = True
                break
        if stopped:  # locks may be held: replay this iteration's committed exchanges instead
            for e in log[n_log0:]:
                a[list(e.give)] = e.p
                a[list(e.take)] = e.r
            if len(log) > n_log0:
                w, _ = _core.tasks_evaluate(model.d, model.co, a)
                history.append(float(w))
            break
        for s in ranks:  # barrier: every lock released, every list exhausted
            assert s.mode == "idle" and s.locked_by is None and not s.queue and not s.work_list
        a = np.empty(problem.n_tasks, np.int32)
        for s in ranks:
            a[list(s.tasks)] = s.rank
        w, _ = _core.tasks_evaluate(model.d, model.co, a)
        history.append(float(w))
        done_iters += 1
        if not is_bool(prog) and prog(it + 1, n_iter) is False:
            raise CancelledError("stopped: the progress callback returned False")
    w, rep = _core.tasks_evaluate(model.d, model.co, a)
    mean = float(rep["work"].mean())
    imb = math.inf if not math.isfinite(w) else (float(w) / mean - 1.0 if mean > 0 else 0.0)
    stats = {"events": n_events, "messages": counts,
             "rule_releases": sum(s.rule_releases for s in ranks), "iterations": done_iters,
             "seconds": time.perf_counter() - t_start}
    if stopped:
        status, msg = "time_limit", (f"time limit of {tl:g} s reached after {done_iters} of "
                                     f"{n_iter} iterations and {len(log)} exchanges; the "
                                     "committed exchanges are kept")
    else:
        status, msg = "feasible", f"{n_iter} iterations, {len(log)} exchanges"
    return ProtocolRun(status=status, message=msg, assignment=a, initial=a0, log=log,
                       history=history, max_load=float(w), imbalance=imb, stats=stats)
