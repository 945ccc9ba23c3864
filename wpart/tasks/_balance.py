"""Balancers of the task family: CCM-LB (Fig. 1 and Sec. IV of the paper), baselines and brute
force, declared once in :data:`TABLE`."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _core
from .._errors import CancelledError, WpartOverflowError, WpartTypeError, WpartValueError
from .._methods import Method, MethodTable
from .._progress import progress_hook
from .._validate import (as_bool, as_float, as_int, as_progress, as_seed, as_time_limit,
                         check_memory, choice, core_time_limit, is_bool, memory_budget)
from .._keywords import checked_keywords
from .._validate import positional_deprecated
from ._compress import bounded_ranks
from ._problem import INT32_LIMIT, Coefficients, Problem
from ._results import TasksResult, make_result, replace_fields
from .._docs import fill_doc

__all__ = ["METHODS", "TABLE", "TasksResult", "balance", "brute_force", "evaluate"]

#: Options of the gossip balancers (``"ccm"``; ``"tempered"`` reads the same ones).
_GOSSIP = ("n_iter", "n_rounds", "fanout", "n_trials", "cluster", "order", "tol", "ranking",
           "subclusters", "split_rule", "allow_infeasible_start", "comm_tau", "explore",
           "backend", "max_delay", "progress", "time_limit", "protocol", "max_moves",
           "greedy_start", "economy")

#: The methods of :func:`balance`, declared once (the binding has one C entry per method, no
#: enum: ``code`` is None).
TABLE = MethodTable("tasks", [
    Method("ccm", None, exact=False, options=_GOSSIP, aliases=("ccm_lb",),
           summary="CCM-LB, the paper's gossip heuristic (Fig. 1, Sec. IV): serial C engine, "
                   "per-rank engine or event-driven lock protocol"),
    Method("none", None, exact=False, aliases=("identity",),
           summary="keep the initial assignment (the paper's baseline B)"),
    Method("greedy", None, exact=False, aliases=("lpt",),
           summary="LPT over block clusters onto the rank of smallest resulting W "
                   "(centralised; not in the paper)"),
    Method("tempered", None, exact=False, options=_GOSSIP, aliases=("grapevine", "load_only"),
           summary="load-only TemperedLB-style gossip (single tasks; a transfer above a "
                   "memory cap is refused; scored with the full model)"),
    Method("brute_force", None, exact=True, options=("preserve_clusters", "max_states",
                                                      "time_limit"),
           aliases=("brute",), summary="every assignment enumerated (tiny instances)"),
])

#: Names accepted by :func:`balance`.
METHODS = TABLE.names

_SPLITS = ("none", "singles", "subsets", "fill")


def _count(x: Any, name: str, minimum: int) -> int:
    """An integer option of the core (int32 there)."""
    return as_int(x, name, minimum=minimum, maximum=INT32_LIMIT)


def _real(x: Any, name: str) -> float:
    """A finite real >= 0."""
    return as_float(x, name, minimum=0.0)


def _split_mode(subclusters: bool | str) -> int:
    """The C sub-cluster mode (wpart_tasks_split_t) of the `subclusters` argument."""
    if is_bool(subclusters):
        return int(bool(subclusters))
    if isinstance(subclusters, str):
        return _SPLITS.index(choice(subclusters, "subclusters", _SPLITS))
    raise WpartTypeError(f"`subclusters` must be a bool or one of {_SPLITS}, got "
                         f"{type(subclusters).__name__}")


_STOPPED = "stopped: the progress callback returned False"


def progress_of(progress: Any) -> Any:
    """``progress`` checked by :func:`as_progress`; a callable is wrapped so that returning
    False stops the run with :class:`wpart.CancelledError`."""
    p = as_progress(progress)
    if is_bool(p):
        return p

    def hook(done: float, total: float) -> None:
        if p(done, total) is False:
            raise CancelledError(_STOPPED)

    return hook


class Deadline:
    """A wall-clock budget: ``reached()`` once `time_limit` seconds have passed since `t0`."""

    def __init__(self, time_limit: float | None, t0: float | None = None):
        self.limit = time_limit
        self.t0 = time.perf_counter() if t0 is None else t0

    def reached(self) -> bool:
        return self.limit is not None and time.perf_counter() - self.t0 >= self.limit


def _limit_message(tl: float, what: str) -> str:
    return f"time limit of {tl:g} s reached; {what}"


def need_problem(problem: Any, name: str = "problem") -> None:
    """Raise :class:`wpart.WpartTypeError` naming `name` unless `problem` is a
    :class:`Problem`.

    Parameters
    ----------
    problem : object
        The argument to check.
    name : str, optional
        Its name in the message.

    Returns
    -------
    None

    Raises
    ------
    wpart.WpartTypeError
        If `problem` is not a :class:`Problem` (None included).
    """
    if not isinstance(problem, Problem):
        raise WpartTypeError(f"`{name}` must be a wpart.tasks.Problem (e.g. from "
                             f"read_lbdatafile or Problem(...)), got {type(problem).__name__}")


@fill_doc
@positional_deprecated("assignment")
def evaluate(problem: Problem, *, assignment: ArrayLike | None = None, alpha: float = 1.0,
             beta: float = 0.0, gamma: float = 0.0, delta: float = 0.0,
             memory_cap: Any = None) -> TasksResult:
    """The work model of a given assignment as a :class:`TasksResult` (method ``"given"``).

    Parameters
    ----------
    problem : Problem
    assignment : array_like of int, shape (K,), optional
        Rank of every task (default: ``problem.initial``).
    alpha, beta, gamma, delta : float
        Work-model coefficients (eq. (11) of the paper; ``gamma`` scales on-rank bytes).
    memory_cap : float or array_like, optional
        Per-rank memory cap (overrides the problem's).

    Returns
    -------
    TasksResult
        Status ``"feasible"``, or ``"infeasible"`` when a rank exceeds its cap.

    {raises}
    """
    need_problem(problem)
    c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
    a = problem.assignment(assignment)
    cap = problem.caps(memory_cap)
    w, _ = _core.tasks_evaluate(problem._dict(cap), c.as_tuple(), a)
    return make_result(problem, c, cap, a, np.array([w]), "given", {})


@fill_doc
@bounded_ranks
def brute_force(problem: Problem, *, alpha: float = 1.0, beta: float = 0.0, gamma: float = 0.0,
                delta: float = 0.0, memory_cap: Any = None, preserve_clusters: bool = False,
                max_states: int = 20_000_000, time_limit: float | None = None,
                progress: Any = False) -> TasksResult:
    """Exact optimum by enumerating every assignment (tiny cases only).

    Parameters
    ----------
    problem : Problem
    alpha, beta, gamma, delta : float
        Work-model coefficients.
    memory_cap : float or array_like, optional
        Per-rank memory cap (overrides the problem's).
    preserve_clusters : bool, default False
        All tasks of a block stay together (one unit per block).
    max_states : int, default 20,000,000
        Largest number of assignments enumerated; a larger instance is an error.
    progress : bool or callable, optional
        True for a progress bar, or a callable ``progress(done, total)`` (returning False
        cancels the run with :class:`wpart.CancelledError`); the enumeration reports no
        intermediate progress, so it moves from 0 to 1 when the call ends.
    time_limit : float, optional
        Seconds (None: none). Reaching it returns status ``"time_limit"`` with the best
        assignment enumerated so far (not proven optimal; the first assignment is always
        evaluated before the limit is looked at).

    Returns
    -------
    TasksResult
        Status ``"optimal"``, ``"infeasible"`` (no assignment fits the memory caps:
        ``max_load`` is inf, the arrays describe the initial assignment) or ``"time_limit"``.

    {raises}
    """
    with progress_hook(progress, total=1.0, desc="brute_force") as hook:
        if hook is not None:
            hook(0.0, 1.0)
        r = _brute_force(problem, alpha=alpha, beta=beta, gamma=gamma, delta=delta,
                         memory_cap=memory_cap, preserve_clusters=preserve_clusters,
                         max_states=max_states, time_limit=time_limit)
        if hook is not None:
            hook(1.0, 1.0)
    return r


def _brute_force(problem: Problem, *, alpha: float = 1.0, beta: float = 0.0, gamma: float = 0.0,
                 delta: float = 0.0, memory_cap: Any = None, preserve_clusters: bool = False,
                 max_states: int = 20_000_000, time_limit: float | None = None) -> TasksResult:
    """The enumeration of :func:`brute_force` (no progress reporting)."""
    need_problem(problem)
    c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
    cap = problem.caps(memory_cap)
    pres = as_bool(preserve_clusters, "preserve_clusters")
    max_states = as_int(max_states, "max_states", minimum=1)
    if max_states >= 2**63:
        raise WpartOverflowError(f"`max_states` must fit in int64, got {max_states}")
    tl = as_time_limit(time_limit)
    t0 = time.perf_counter()
    try:
        a, w, stopped = _core.tasks_brute(problem._dict(cap), c.as_tuple(), pres, max_states,
                                          core_time_limit(tl),
                                          np.asarray(problem.initial, np.int32))
    except _core.WpartError as exc:  # ELIMIT (its message begins "brute force: ")
        if isinstance(exc, (CancelledError, MemoryError)):
            raise
        raise WpartValueError(f"`max_states`: {exc}") from None
    stats = {"seconds": time.perf_counter() - t0, "preserve_clusters": pres}
    if stopped:
        if a.size and a.min() >= 0:
            w_inc, _ = _core.tasks_evaluate(problem._dict(cap), c.as_tuple(), a)
            return make_result(problem, c, cap, a, np.array([w_inc]), "brute_force", stats,
                               status="time_limit", message=_limit_message(
                                   tl, "the best assignment enumerated so far (not proven "
                                   "optimal)"))
        stats["has_answer"] = False
        return make_result(problem, c, cap, problem.initial, np.array([np.nan]), "brute_force",
                           stats, status="time_limit", message=_limit_message(
                               tl, "no assignment enumerated so far fits the memory caps: the "
                               "fields describe the initial assignment"))
    if not np.isfinite(w):
        stats["has_answer"] = False
        r = make_result(problem, c, cap, problem.initial, np.array([np.inf]), "brute_force",
                        stats, status="infeasible",
                        message="no assignment satisfies the memory caps (max_load is inf; "
                                "the arrays describe the initial assignment)")
        return replace_fields(r, max_load=math.inf, imbalance=math.inf)
    return make_result(problem, c, cap, a, np.array([w]), "brute_force", stats,
                       status="optimal", message="optimal: every assignment enumerated",
                       lower_bound=float(w))



@positional_deprecated("method", "seed")
@checked_keywords
@bounded_ranks
def balance(problem: Problem, *, method: str = "ccm", seed: int = 0, alpha: float = 1.0,
            beta: float = 0.0, gamma: float = 0.0, delta: float = 0.0, memory_cap: Any = None,
            initial: ArrayLike | None = None, n_iter: int = 4, n_rounds: int | None = None,
            fanout: int | None = None, n_trials: int = 1, cluster: str = "block",
            order: str = "random", tol: float = 1e-12, subclusters: bool | str = False,
            ranking: str = "snapshot", allow_infeasible_start: bool = False,
            comm_tau: float = 1.0, split_rule: str = "auto", explore: bool = False,
            backend: str = "simulated", max_delay: float = 1.0, protocol: str | None = None,
            max_moves: int | None = None, greedy_start: bool | None = None,
            economy: bool | None = None, preserve_clusters: bool | None = None,
            max_states: int | None = None,
            progress: bool | Callable[[float, float], Any] = False,
            time_limit: float | None = None) -> TasksResult:
    """Place the tasks of one phase to minimise ``W_max``.

    Parameters
    ----------
    problem : Problem
    method : str, default "ccm"
        ``"ccm"`` (CCM-LB, the paper's gossip heuristic, Fig. 1), ``"none"`` (keep the initial
        assignment), ``"greedy"`` (LPT over block clusters, centralised, O(K log K + K m)),
        ``"tempered"`` (a load-only TemperedLB-style gossip balancer: one-way transfers of
        single tasks, same gossip; a transfer that would put a rank above its memory cap is
        refused, as in CCM-LB; it returns the best placement seen under the full model, its
        start included), ``"brute_force"``
        (exact, tiny cases; options ``preserve_clusters``, ``max_states``). :data:`TABLE`
        declares them. Pinned tasks (``problem.migratable`` False) never move in any method:
        CCM-LB and ``"tempered"`` leave them out of every transfer unit (a block cluster that
        holds one moves without it), ``"greedy"`` places them on their initial rank first and
        ``"brute_force"`` enumerates the other tasks only. CCM-LB and ``"tempered"`` never
        return a placement above their start (``stats["beat_start"]``,
        ``stats["kept_start"]``, ``stats["w_max_start"]``); ``"greedy"`` builds its
        placement from scratch and may end above the start (``stats["beat_start"]`` says).
    seed : int, default 0
        Base seed, an integer in [0, 2**64 - 1]; identical seeds give identical results.
    alpha, beta, gamma, delta : float
        Work-model coefficients (eq. (11) of the paper; ``gamma`` scales on-rank bytes).
    memory_cap : float or array_like, optional
        Per-rank memory cap (overrides the problem's).
    initial : array_like, optional
        Starting assignment (default ``problem.initial``).
    n_iter, n_rounds, fanout, n_trials : int
        CCM-LB iterations per trial, inform hops and fanout (None: the log rule), trials.
    cluster : {"block", "task", "block+comm"}
        Transfer unit: all tasks of a block on a rank, single tasks, or blocks also joined
        by on-rank edges with ``beta * bytes >= comm_tau * alpha * mean task load``.
    comm_tau : float, default 1.0
        Threshold of ``cluster="block+comm"``.
    order : {"random", "rank"}
        Order in which ranks take their turn in the simulation.
    tol : float
        Minimum relative gain of an exchange.
    ranking : {"snapshot", "exact"}
        How a rank ranks its peers: from the information gossiped at the start of the
        iteration (the paper, Sec. IV-A; clusters without edges are estimated from their
        summaries) or from the peers' exact current state. The exchange itself is always
        re-evaluated exactly after the lock.
    allow_infeasible_start : bool, default False
        Start from an assignment above a memory cap: exchanges then first lower the pair's
        summed cap excess, then ``max W`` (the infinite penalty of eq. (11) made usable). The
        result may still exceed a cap (status ``"infeasible"``, ``max_load`` inf).
    backend : {"simulated", "event", "ranks"}, default "simulated"
        ``"simulated"``: the transfer stage as a serial order of atomic exchanges in C.
        ``"event"`` (``method="ccm"`` only, one trial, ``cluster`` "block" or "task"): the
        distributed lock protocol of Sec. IV-B run as an event-driven simulation with seeded
        random message delays up to ``max_delay`` (:func:`wpart.tasks.run_protocol`); slower,
        for protocol testing. ``stats["log"]`` holds the committed exchanges.
        ``"ranks"`` (``method="ccm"``, ``ranking="snapshot"``, no ``explore``): one state
        machine per rank holding only its own tasks, the engine that :mod:`wpart.tasks.mpi`
        runs with one MPI process per rank; the same seed gives the same result in both.
        ``stats["messages"]`` counts its messages by kind; `protocol` chooses how the ranks
        exchange.
    max_delay : float, default 1.0
        ``backend="event"``: the largest seeded random message delay.
    protocol : {"rounds", "turns", "gather", "auto"}, optional
        ``backend="ranks"`` only (any other backend refuses it): ``"rounds"`` (the default,
        None: rounds of disjoint pairs exchanging at the same time, chosen by a seeded
        matching of the ranks' proposals, with bounded gossip of per-cluster summaries),
        ``"turns"`` (one seeded global order of turns, the earlier engine), ``"gather"`` (the
        phase gathered on rank 0 and balanced by the serial engine, the placement scattered;
        the result equals ``backend="simulated"``'s) or ``"auto"`` (``"gather"`` when the
        phase fits rank 0's memory budget, else ``"rounds"``; see
        :mod:`wpart.tasks._mpi_gather`). ``stats["schedule"]`` holds ``serial_s`` and
        ``critical_path_s`` per iteration (CPU seconds) and ``stats["bytes_per_rank"]`` the
        bytes each rank sends per iteration.
    subclusters : bool or {"none", "singles", "subsets", "fill"}, default False
        Sub-cluster one-way transfers, tried for a pair of ranks only when no whole-cluster
        exchange pays (LBAF-style subclustering; not in the paper, whose clusters move whole).
        ``True``/``"singles"``: single tasks taken out of clusters; ``"subsets"``: also, per
        cluster of ``n`` tasks, its ``j`` heaviest and its ``j`` lightest tasks for
        ``2 <= j < n`` (at most ~32 sizes), so that a block's tasks can be split in one step
        even when the homing term makes every single-task step unprofitable; ``"fill"``:
        also, for each pair of ranks and cluster of the more loaded one, the part whose load
        best evens the two ranks' W (heaviest tasks first, just under and just over the
        target). Blocks may then be split across ranks. ``"fill"`` with the ``"compete"``
        rule is the closest to the MILP optimum (:func:`wpart.tasks.gap_study`).
    split_rule : {"auto", "fallback", "compete"}, default "auto"
        With `subclusters`: ``"fallback"`` tries sub-cluster units for a pair of ranks only
        when no whole-cluster exchange pays (LBAF); ``"compete"`` evaluates them together
        with the whole-cluster exchanges and keeps the largest gain (the paper's FindBestCCM
        over the larger set of units). ``"auto"``: ``"fallback"`` for ``"singles"`` (LBAF's
        subclustering), ``"compete"`` for ``"subsets"`` and ``"fill"``.
    explore : bool, default False
        With ``n_trials > 1``: trials after the first take, for each locked pair, a uniformly
        random improving exchange instead of the best one (the lock protocol and the
        acceptance criterion are unchanged), so that the trials reach different local optima;
        trial 0 is the paper's run, so the result is never worse than with one trial.
    max_moves : int, optional
        Migration budget of ``"ccm"`` and ``"tempered"`` (serial engine): an exchange that
        would leave more than `max_moves` tasks off their starting rank is not made (None: no
        budget). Every result reports ``stats["n_tasks_moved"]``, the tasks whose rank differs
        from the start.
    greedy_start : bool, optional
        ``"ccm"`` (serial engine, no `max_moves`; None: True): when ``"greedy"``'s placement
        has a lower ``W_max`` than the run from the start, CCM-LB is run again from it and
        the better of the two runs is returned, so CCM-LB never ends above greedy
        (``stats["greedy_start"]``: whether that second run was made and kept).
    economy : bool, optional
        ``"ccm"`` (serial engine only: any other backend refuses it; None: True): after
        balancing, the same ``W_max`` with fewer tasks moved.
        The ranks are relabelled (each rank's tasks moved as a whole to the rank that keeps the
        most of them at home), then moved blocks and tasks are sent back to their starting
        rank, or swapped back, whenever no rank's ``W`` rises above the ``W_max`` reached and
        no memory cap is exceeded; pinned tasks are never touched, and without `subclusters`
        a block cluster stays whole. The result is re-scored
        and kept only if its ``W_max`` is not higher. ``stats["n_tasks_moved_balanced"]``:
        the tasks moved before this pass (``stats["n_tasks_moved"]``: after it).
    preserve_clusters, max_states : optional
        ``"brute_force"`` only: see :func:`brute_force` (None: its defaults).
    progress : bool or callable, default False
        True: a progress bar; a callable ``progress(done, total)`` (returning False stops the
        run with :class:`wpart.CancelledError`).
    time_limit : float, optional
        Seconds (None: none), honoured by every backend, also inside an iteration (polled
        between pair steps). Reaching it is not an error: the
        result has status ``"time_limit"`` and holds the best assignment reached (``"ranks"``
        and ``"event"``: the state after the last completed turn or exchange, or a better
        earlier trial; ``"simulated"``: whichever of the best finished trial and the
        interrupted trial's assignment after its last completed iteration has the lower
        ``W_max``, with its history up to there; ``"brute_force"``: the best assignment
        enumerated).
        With ``"simulated"``, ``stats["trials_done"]`` and ``stats["iterations_done"]`` (of
        the interrupted trial) say how far the run got.

    Returns
    -------
    TasksResult

    Raises
    ------
    wpart.WpartValueError
        Bad arguments, or an initial assignment above a memory cap ("infeasible start").
    wpart.WpartTypeError
        An argument of the wrong type (a str seed, an unknown option ...).
    wpart.CancelledError
        Ctrl-C, or the progress callback returned False.
    """
    _call = dict(locals())  # the arguments, for protocol='gather' / 'auto'
    # the method options given (None: not given), checked against the method's table
    options = {k: v for k, v in (("protocol", protocol), ("max_moves", max_moves),
                                 ("greedy_start", greedy_start), ("economy", economy),
                                 ("preserve_clusters", preserve_clusters),
                                 ("max_states", max_states)) if v is not None}
    need_problem(problem)
    meth = TABLE.choose(method).name
    split = _split_mode(subclusters)
    explore = as_bool(explore, "explore")
    allow_infeasible_start = as_bool(allow_infeasible_start, "allow_infeasible_start")
    c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
    cap = problem.caps(memory_cap)
    if initial is not None:
        problem = problem.with_(initial=problem.assignment(initial, name="initial"))
    extra = set(options) - set(TABLE[meth].options)
    if extra:
        raise WpartTypeError(f"balance() got unexpected options {sorted(extra)} for "
                             f"method {meth!r}")
    seed = as_seed(seed)
    tl = as_time_limit(time_limit)
    hook_in = progress_of(progress)
    n_iter = _count(n_iter, "n_iter", 0)
    n_trials = _count(n_trials, "n_trials", 1)
    # the W_max history, n_trials x (n_iter + 1) doubles, is allocated up front: refused past
    # a quarter of the machine (n_iter = 2**31 - 1 took 16 GiB, and the process was killed)
    check_memory(8.0 * n_trials * (n_iter + 1.0), "n_trials` x `n_iter", limit=memory_budget() / 4)
    tol = _real(tol, "tol")
    comm_tau = _real(comm_tau, "comm_tau")
    k = 0 if n_rounds is None else _count(n_rounds, "n_rounds", 1)
    f = 0 if fanout is None else _count(fanout, "fanout", 1)
    d = problem._dict(cap)
    a0 = np.array(problem.initial, dtype=np.int32)
    t0 = time.perf_counter()
    if meth == "brute_force":
        return brute_force(problem, alpha=c.alpha, beta=c.beta, gamma=c.gamma, delta=c.delta,
                           memory_cap=cap, time_limit=tl, **options)
    if meth == "none":
        w, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
        return make_result(problem, c, cap, a0, np.array([w]), "none", {"seconds": 0.0})
    if meth == "greedy":
        a = _core.tasks_greedy(d, c.as_tuple(), a0)
        w, _ = _core.tasks_evaluate(d, c.as_tuple(), a)
        w0, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
        # a constructive method (LPT from scratch): it may end above its start; stats say so
        return make_result(problem, c, cap, a, np.array([w0, w]), "greedy",
                           {"seconds": time.perf_counter() - t0,
                            "beat_start": bool(w < w0), "w_max_start": float(w0)})
    be = choice(backend, "backend", ("simulated", "event", "ranks"))
    if be == "event":
        if meth != "ccm" or split or allow_infeasible_start \
                or cluster not in ("block", "task") or n_trials != 1:
            raise WpartValueError("backend='event' supports method='ccm' with one trial, "
                                  "cluster 'block' or 'task' and default subclusters/start "
                                  "options")
        from ._protocol import run_protocol

        run = run_protocol(problem, seed=seed, alpha=c.alpha, beta=c.beta, gamma=c.gamma,
                           delta=c.delta, memory_cap=cap, n_iter=n_iter, n_rounds=n_rounds,
                           fanout=fanout, cluster=cluster, tol=tol, max_delay=max_delay,
                           ranking=ranking, time_limit=tl, progress=hook_in)
        stats = {"seconds": time.perf_counter() - t0, "backend": "event",
                 "exchanges": len(run.log), "events": run.stats["events"],
                 "rule_releases": run.stats["rule_releases"],
                 "messages": run.stats["messages"], "log": run.log, "seed": seed,
                 "n_iter": n_iter, "cluster": cluster}
        if run.status == "time_limit":
            return make_result(problem, c, cap, run.assignment, np.array(run.history), meth,
                               stats, status="time_limit", message=run.message)
        return make_result(problem, c, cap, run.assignment, np.array(run.history), meth, stats)
    cl = choice(cluster, "cluster", ("block", "task", "block+comm"))
    od = choice(order, "order", ("random", "rank"))
    rk = choice(ranking, "ranking", ("snapshot", "exact"))
    srule = choice(split_rule, "split_rule", ("auto", "fallback", "compete"))
    if srule == "auto":
        srule = "compete" if split >= 2 else "fallback"
    mm = options.get("max_moves")
    mm = -1 if mm is None else as_int(mm, "max_moves", minimum=0, maximum=2**62)
    gstart = as_bool(options.get("greedy_start", True), "greedy_start")
    econ = as_bool(options.get("economy", True), "economy")
    if "economy" in options and be != "simulated":
        raise WpartValueError("`economy` is an option of backend='simulated'")
    if mm >= 0 and be != "simulated":
        raise WpartValueError("`max_moves` is an option of backend='simulated'")
    proto = choice(options.get("protocol", "rounds"), "protocol",
                   ("rounds", "turns", "gather", "auto"))
    if "protocol" in options and be != "ranks":
        raise WpartValueError("`protocol` is an option of backend='ranks' (and the MPI run)")
    if be == "ranks" and proto in ("gather", "auto"):
        from ._mpi_gather import balance_gathered

        return balance_gathered(problem, _call, proto)
    if be == "ranks":
        return _balance_ranks(problem, c, cap, d, a0, meth, t0, dict(
            protocol=proto,
            n_iter=n_iter, n_rounds=k, fanout=f, n_trials=n_trials, seed=seed, cluster=cl,
            split=split, srule=srule, tol=tol, comm_tau=comm_tau, order=od, ranking=rk,
            explore=explore, allow_infeasible_start=allow_infeasible_start,
            progress=hook_in, time_limit=tl))
    run_c = c
    cluster_mode = {"block": 0, "task": 1, "block+comm": 2}[cl]
    # "tempered": load only, single tasks; a transfer above a memory cap is refused; the
    # placement returned is the best seen under the full model (`score`), its start included
    if meth == "tempered":
        run_c = Coefficients(alpha=c.alpha if c.alpha > 0 else 1.0)
        cluster_mode = 1
    base_stats = dict(n_iter=n_iter, n_trials=n_trials, seed=seed, cluster=cl,
                      subclusters=_SPLITS[split] if split else False, split_rule=srule,
                      explore=bool(explore), ranking=rk)
    # Ctrl-C and a progress callback returning False raise CancelledError; the time limit
    # comes back in the report, with the best assignment reached
    def run_from(start: np.ndarray, limit: float | None) -> tuple:
        with progress_hook(hook_in, total=n_trials * n_iter * problem.m,
                           desc=f"balance[{meth}]") as hook:
            a, hist, exch, st = _core.tasks_ccm(
                d, run_c.as_tuple(), start, n_iter=n_iter, n_rounds=k, fanout=f,
                n_trials=n_trials, seed=seed, cluster=cluster_mode,
                order_random=od == "random", tol=tol, progress=hook,
                time_limit=core_time_limit(limit), one_way=meth == "tempered",
                singles=split if meth == "ccm" else 0, exact_ranking=rk == "exact",
                allow_infeasible_start=bool(allow_infeasible_start), comm_tau=comm_tau,
                split_always=srule == "compete", explore=bool(explore),
                score=c.as_tuple() if meth == "tempered" else None, max_moves=mm)
        st = dict(st)
        stopped = st.pop("time_limit")
        trials_done, iter_done = int(st.pop("n_trials_done")), int(st.pop("n_iter_done"))
        best = int(st["best_trial"])
        done = iter_done if stopped and best == trials_done else n_iter  # iterations of best
        history = hist[best][:done + 1]
        a = _keep_start(d, c, a, start, st)
        if stopped:  # the state reached inside the interrupted iteration, when better
            w_a, _ = _core.tasks_evaluate(d, c.as_tuple(), a)
            if meth != "tempered" and w_a < history[-1] * (1.0 - 1e-12):  # not rounding
                history = np.append(history, w_a)
        st["exchanges_per_iteration"] = exch[best][:done].tolist()
        return a, history, st, stopped, trials_done, iter_done

    a, history, st, stopped, trials_done, iter_done = run_from(a0, tl)
    greedy_used = False
    if meth == "ccm" and gstart and mm < 0 and not stopped and problem.n_tasks:
        # greedy's placement as a second start: CCM-LB never ends above greedy
        try:
            ag = np.asarray(_core.tasks_greedy(d, c.as_tuple(), a0), dtype=np.int32)
            wg, _ = _core.tasks_evaluate(d, c.as_tuple(), ag)
        except WpartValueError:  # greedy places a cluster on no rank under the caps
            ag, wg = None, math.inf
        w_a, _ = _core.tasks_evaluate(d, c.as_tuple(), a)
        left = None if tl is None else tl - (time.perf_counter() - t0)
        if wg < w_a and (left is None or left > 0):
            a2, h2, st2, stopped2, td2, id2 = run_from(ag, left)
            w2, _ = _core.tasks_evaluate(d, c.as_tuple(), a2)
            if w2 < w_a:
                greedy_used = True
                w_first = float(history[0])
                a, st, stopped, trials_done, iter_done = a2, st2, stopped2, td2, id2
                history = np.concatenate([[w_first], h2])
                st["w_max_greedy"] = float(wg)
                st["w_max_first_start"] = float(w_a)
    if greedy_used:  # measured against the caller's start
        _keep_start(d, c, a, a0, st)
    left = None if tl is None else tl - (time.perf_counter() - t0)
    if meth == "ccm" and econ and not stopped and problem.n_tasks and (left is None or left > 0):
        # the same W_max with fewer tasks off their start (never a higher W_max); within the
        # time left, keeping the steps made
        moved = int(np.count_nonzero(a != a0))
        whole = split == 0 and cl != "task"  # block clusters stay whole, as in the run
        a_e, back = _core.tasks_economize(d, c.as_tuple(), a0, a, whole,
                                          0.0 if left is None else left)
        st["n_tasks_moved_balanced"] = moved
        if back:
            w_e, _ = _core.tasks_evaluate(d, c.as_tuple(), a_e)
            a = np.asarray(a_e, dtype=np.int32)
            if w_e < history[-1] * (1.0 - 1e-12):  # a move back off the busiest rank
                history = np.append(history, w_e)
            st["beat_start"] = bool(w_e < st.get("w_max_start", math.inf))
            st["kept_start"] = bool(np.array_equal(a, a0))
    secs = time.perf_counter() - t0
    if meth == "tempered":  # the history of the full model is not available: before, after
        w, _ = _core.tasks_evaluate(d, c.as_tuple(), a)
        w0, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
        history = np.array([w0, w])
    stats = st
    stats.update(base_stats, seconds=secs, greedy_start=greedy_used,
                 max_moves=None if mm < 0 else mm, economy=bool(econ and meth == "ccm"))
    if not stopped:
        return make_result(problem, c, cap, a, history, meth, stats)
    stats.update(stopped="time_limit", trials_done=trials_done, iterations_done=iter_done)
    if n_trials == 1:
        how = f"{iter_done} of {n_iter} iterations completed"
    else:
        how = (f"{trials_done} of {n_trials} trials completed, and {iter_done} of {n_iter} "
               "iterations of the next one")
    return make_result(problem, c, cap, a, history, meth, stats, status="time_limit",
                       message=_limit_message(tl, f"the best assignment reached ({how})"))


def _balance_ranks(problem: Problem, c: Coefficients, cap, d: dict, a0, meth: str, t0: float,
                   o: dict) -> TasksResult:
    """``backend="ranks"``: one state machine per rank, the engine of the MPI run."""
    from ._ranks import run_ranks

    if meth != "ccm" or o["ranking"] != "snapshot" or o["explore"]:
        raise WpartValueError("backend='ranks' supports method='ccm' with ranking='snapshot' "
                              "and no explore")
    w0, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
    if not np.isfinite(w0) and not o["allow_infeasible_start"]:
        raise WpartValueError("`memory_cap`: infeasible start: the initial assignment exceeds "
                              "a memory cap (W = inf on some rank); pass "
                              "allow_infeasible_start=True to start from it (the moves then "
                              "look for a placement within the cap)")
    prm = rank_params(problem.m, c, o["cluster"], o["split"], o["srule"], o["tol"],
                      o["comm_tau"], float(np.mean(problem.task_load)) if problem.n_tasks
                      else 0.0, n_iter=o["n_iter"], n_rounds=o["n_rounds"], fanout=o["fanout"],
                      n_trials=o["n_trials"], seed=o["seed"], order_random=o["order"] == "random",
                      protocol=o["protocol"])
    total = float(o["n_trials"] * o["n_iter"] * problem.m)
    with progress_hook(o["progress"], total=total, desc="balance[ccm/ranks]") as hook:
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if hook is not None:
                hook(float(done[0]), total)

        run = run_ranks(problem, prm, a0, cap, progress=tick,
                        deadline=Deadline(o["time_limit"], t0))
    stats: dict = {}
    a_run = _keep_start(d, c, np.asarray(run["assignment"], dtype=np.int32), a0, stats)
    stats.update({"seconds": time.perf_counter() - t0, "backend": "ranks",
             "exchanges_per_iteration": run["exchanges_per_iteration"],
             "n_exchanges": int(sum(run["exchanges_per_iteration"])),
             "final_pass_exchanges": int(run.get("final_pass_exchanges", 0)),
             "best_trial": run["best_trial"], "messages": run["messages"],
             "evaluations": run["evaluations"], "n_rounds": run["n_rounds"],
             "schedule": run["schedule"],
             "bytes_per_rank": np.asarray(run["bytes_per_rank"], float) / max(o["n_iter"], 1),
             "fanout": run["fanout"], "n_iter": o["n_iter"], "n_trials": o["n_trials"],
             "seed": o["seed"], "cluster": o["cluster"], "protocol": o["protocol"]})
    if run["stopped"]:
        stats["stopped"] = "time_limit"
        return make_result(problem, c, cap, a_run, run["history"], meth, stats,
                           status="time_limit", message=_limit_message(
                               o["time_limit"], f"the best assignment reached "
                               f"({run['turns_done']} of {int(total)} turns done)"))
    return make_result(problem, c, cap, a_run, run["history"], meth, stats)


def _keep_start(d: dict, c: Coefficients, a: np.ndarray, a0: np.ndarray,
                stats: dict) -> np.ndarray:
    """The better of an iterative method's result `a` and its start `a0` under the full
    model `c` (and the caps of `d`): an iterative balancer never returns a placement worse
    than where it started. CCM-LB's exchanges never raise the pair's larger ``W`` (Sec. 3.5
    of [Lifflander 2024]), so its result is already the better one except under a tolerance;
    ``"tempered"`` moves tasks by load alone (vt's TemperedLB), so under communication,
    on-rank bytes or homing terms its moves can raise ``W_max`` (the engine then returns the
    best placement it saw under the full model). ``stats``: ``"beat_start"`` (the result's
    ``W_max`` is below the start's), ``"kept_start"`` (the start itself is returned: no
    placement seen was better), ``"w_max_start"`` (the start's ``W_max``).
    """
    w, _ = _core.tasks_evaluate(d, c.as_tuple(), a)
    w0, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
    if w0 < w:
        a, w = np.array(a0, dtype=np.int32), w0
    stats["beat_start"] = bool(w < w0)
    stats["kept_start"] = bool(np.array_equal(a, a0))
    stats["w_max_start"] = float(w0)
    return a


def rank_params(m: int, c: Coefficients, cluster: str, split: int, srule: str, tol: float,
                comm_tau: float, mean_load: float, **kw: Any):
    """The :class:`~wpart.tasks._ranks.RankParams` of a distributed run (in-process or MPI)."""
    from ._ranks import RankParams

    return RankParams(m, c.as_tuple(), cluster={"block": 0, "task": 1,
                                                "block+comm": 2}[cluster],
                      singles=split, split_always=srule == "compete", tol=tol,
                      comm_thresh=comm_tau * c.alpha * mean_load, **kw)
