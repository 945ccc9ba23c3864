"""Balancers of the task family: CCM-LB, baselines and brute force (spec 003 sections 3-4)."""

from __future__ import annotations
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._progress import progress_hook
from .._validate import as_int, choice
from ._problem import Coefficients, Problem

__all__ = ["METHODS", "TasksResult", "balance", "brute_force", "evaluate"]

#: Names accepted by :func:`balance`.
METHODS = ("ccm", "none", "greedy", "tempered", "brute_force")
_ALIASES = {"identity": "none", "ccm_lb": "ccm", "brute": "brute_force", "lpt": "greedy",
            "grapevine": "tempered", "load_only": "tempered"}


@dataclass(frozen=True)
class TasksResult:
    """A placement of the tasks of one phase, with its work model.

    Attributes
    ----------
    assignment : ndarray of int32, shape (K,)
        Rank of every task.
    work, load, memory, vol_out, vol_in, vol_local, homing : ndarray, shape (I,)
        Per-rank work W (``inf`` above a memory cap), compute load, memory, off-rank bytes
        sent and received, on-rank bytes and homing bytes.
    max_work, mean_work, imbalance : float
        ``W_max``, mean W and ``W_max / mean W - 1``.
    load_imbalance : float
        ``max L / mean L - 1``.
    initial_work : ndarray
        Per-rank W of the initial assignment.
    initial_max_work : float
    history : ndarray
        ``W_max`` before the first and after every iteration (best trial); one entry for
        one-shot methods.
    method : str
    coefficients : Coefficients
    stats : dict
        Method details: seconds, exchanges, rounds, fanout, MILP status/bound/gap ...
    """

    assignment: NDArray[np.int32]
    work: NDArray[np.float64]
    load: NDArray[np.float64]
    memory: NDArray[np.float64]
    vol_out: NDArray[np.float64]
    vol_in: NDArray[np.float64]
    vol_local: NDArray[np.float64]
    homing: NDArray[np.float64]
    n_blocks_off_home: NDArray[np.int32]
    max_work: float
    mean_work: float
    imbalance: float
    load_imbalance: float
    initial_work: NDArray[np.float64]
    initial_max_work: float
    history: NDArray[np.float64]
    method: str
    coefficients: Coefficients
    stats: dict = field(default_factory=dict)

    @property
    def n_ranks(self) -> int:
        """Number of ranks."""
        return int(self.work.shape[0])

    @property
    def n_off_home(self) -> int:
        """Number of (rank, block) replicas away from the block's home."""
        return int(self.n_blocks_off_home.sum())

    def to_dict(self) -> dict:
        """JSON-friendly dictionary."""
        return {
            "assignment": self.assignment.tolist(),
            "work": self.work.tolist(),
            "load": self.load.tolist(),
            "memory": self.memory.tolist(),
            "max_work": self.max_work,
            "mean_work": self.mean_work,
            "imbalance": self.imbalance,
            "load_imbalance": self.load_imbalance,
            "initial_max_work": self.initial_max_work,
            "history": self.history.tolist(),
            "method": self.method,
            "coefficients": vars(self.coefficients).copy(),
            "stats": {k: v for k, v in self.stats.items()
                      if isinstance(v, (int, float, str, bool, type(None)))},
        }

    def __repr__(self) -> str:
        return (f"TasksResult(method={self.method!r}, n_ranks={self.n_ranks}, "
                f"n_tasks={self.assignment.shape[0]}, max_work={self.max_work:.6g}, "
                f"initial_max_work={self.initial_max_work:.6g}, "
                f"imbalance={self.imbalance:.4%})")

    def plot(self, axes: Any = None) -> Any:
        """Per-rank work before and after (bars) and W_max over the iterations.

        Returns the array of two matplotlib Axes.
        """
        import matplotlib.pyplot as plt

        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(10, 3.2))
        ax0, ax1 = axes
        x = np.arange(self.n_ranks)
        ax0.bar(x - 0.2, np.where(np.isfinite(self.initial_work), self.initial_work, np.nan),
                width=0.4, label="before", color="0.65")
        ax0.bar(x + 0.2, np.where(np.isfinite(self.work), self.work, np.nan), width=0.4,
                label="after", color="C0")
        ax0.axhline(self.max_work, color="C0", ls="--", lw=1)
        ax0.set_xlabel("rank")
        ax0.set_ylabel("work W")
        ax0.set_title(f"{self.method}: W_max {self.initial_max_work:.4g} -> {self.max_work:.4g}")
        ax0.legend(fontsize="small")
        ax1.plot(np.arange(self.history.size), self.history, marker="o")
        ax1.set_xlabel("iteration")
        ax1.set_ylabel("W_max")
        ax1.set_title("W_max over iterations")
        return axes


_SPLITS = ("none", "singles", "subsets", "fill")


def _count(x: Any, name: str, minimum: int) -> int:
    """An integer option of the core (int32 there): TypeError/ValueError naming it."""
    v = as_int(x, name, minimum=minimum)
    if v >= 2**31:
        raise WpartValueError(f"`{name}` must be < 2^31, got {v}")
    return v


def _real(x: Any, name: str) -> float:
    """A finite real >= 0: TypeError/ValueError naming it."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer,
                                                            np.floating)):
        raise WpartTypeError(f"`{name}` must be a number, got {type(x).__name__}")
    v = float(x)
    if not (math.isfinite(v) and v >= 0):
        raise WpartValueError(f"`{name}` must be finite and >= 0, got {x}")
    return v


def _time_limit(x: Any) -> float:
    """Seconds > 0 (inf: none) or None (none) -> the core's value (0: none)."""
    if x is None:
        return 0.0
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer,
                                                            np.floating)):
        raise WpartTypeError(f"`time_limit` must be a number of seconds or None, got "
                        f"{type(x).__name__}")
    v = float(x)
    if not v > 0:
        raise WpartValueError(f"`time_limit` must be > 0 seconds (or None), got {x}")
    return 0.0 if math.isinf(v) else v


def _split_mode(subclusters: bool | str) -> int:
    """The C sub-cluster mode (wpart_tasks_split_t) of the `subclusters` argument."""
    if isinstance(subclusters, (bool, np.bool_)):
        return int(bool(subclusters))
    if isinstance(subclusters, str):
        return _SPLITS.index(choice(subclusters, "subclusters", _SPLITS))
    raise WpartTypeError(f"`subclusters` must be a bool or one of {_SPLITS}, got "
                    f"{type(subclusters).__name__}")


def _result(problem: Problem, coeffs: Coefficients, cap: Any, assignment: NDArray,
            history: NDArray, method: str, stats: dict, init_eval: dict | None = None) -> TasksResult:
    d = problem._dict(cap)
    w, rep = _core.tasks_evaluate(d, coeffs.as_tuple(), assignment)
    if init_eval is None:
        _, init_eval = _core.tasks_evaluate(d, coeffs.as_tuple(), problem.initial)
    work = rep["work"]
    mean = float(work.mean())
    load = rep["load"]
    lmean = float(load.mean())
    return TasksResult(
        assignment=np.asarray(assignment, dtype=np.int32),
        work=work, load=load, memory=rep["memory"], vol_out=rep["vol_out"],
        vol_in=rep["vol_in"], vol_local=rep["vol_local"], homing=rep["homing"],
        n_blocks_off_home=rep["n_blocks_off_home"],
        max_work=float(w), mean_work=mean,
        imbalance=(float(w) / mean - 1.0) if mean > 0 and np.isfinite(mean) else 0.0,
        load_imbalance=(float(load.max()) / lmean - 1.0) if lmean > 0 else 0.0,
        initial_work=init_eval["work"], initial_max_work=float(init_eval["work"].max()),
        history=np.asarray(history, dtype=np.float64), method=method, coefficients=coeffs,
        stats=stats,
    )


def evaluate(problem: Problem, assignment: ArrayLike | None = None, *, alpha: float = 1.0,
             beta: float = 0.0, gamma: float = 0.0, delta: float = 0.0,
             memory_cap: Any = None) -> TasksResult:
    """The work model of a given assignment as a :class:`TasksResult` (method ``"given"``)."""
    c = Coefficients(alpha, beta, gamma, delta)
    a = problem.assignment(assignment)
    cap = problem.caps(memory_cap)
    w, _ = _core.tasks_evaluate(problem._dict(cap), c.as_tuple(), a)
    return _result(problem, c, cap, a, np.array([w]), "given", {})


def brute_force(problem: Problem, *, alpha: float = 1.0, beta: float = 0.0, gamma: float = 0.0,
                delta: float = 0.0, memory_cap: Any = None, preserve_clusters: bool = False,
                max_states: int = 20_000_000) -> TasksResult:
    """Exact optimum by enumerating every assignment (tiny cases only).

    With ``preserve_clusters`` all tasks of a block stay together (one unit per block).
    Raises :class:`ValueError` when the instance is infeasible under the memory caps.
    """
    c = Coefficients(alpha, beta, gamma, delta)
    cap = problem.caps(memory_cap)
    max_states = as_int(max_states, "max_states", minimum=1)
    if max_states >= 2**63:
        raise WpartOverflowError(f"`max_states` must fit in int64, got {max_states}")
    t0 = time.perf_counter()
    try:
        a, w = _core.tasks_brute(problem._dict(cap), c.as_tuple(), bool(preserve_clusters),
                                 max_states)
    except _core.WpartError as exc:  # ELIMIT
        raise WpartValueError(f"brute force: {exc}") from None
    if not np.isfinite(w):
        raise WpartValueError("infeasible: no assignment satisfies the memory caps")
    return _result(problem, c, cap, a, np.array([w]), "brute_force",
                   {"seconds": time.perf_counter() - t0, "optimal": True,
                    "preserve_clusters": bool(preserve_clusters)})


def balance(problem: Problem, method: str = "ccm", seed: int = 0, *, alpha: float = 1.0,
            beta: float = 0.0, gamma: float = 0.0, delta: float = 0.0, memory_cap: Any = None,
            initial: ArrayLike | None = None, n_iter: int = 4, n_rounds: int | None = None,
            fanout: int | None = None, n_trials: int = 1, cluster: str = "block",
            order: str = "random", tol: float = 1e-12, subclusters: bool | str = False,
            ranking: str = "snapshot", allow_infeasible_start: bool = False,
            comm_tau: float = 1.0, split_rule: str = "auto", explore: bool = False,
            backend: str = "simulated", max_delay: float = 1.0,
            progress: bool | Callable[[float, float], None] = False,
            time_limit: float | None = None, **options: Any) -> TasksResult:
    """Place the tasks of one phase to minimise ``W_max``.

    Parameters
    ----------
    problem : Problem
    method : str, default "ccm"
        ``"ccm"`` (CCM-LB, the paper's gossip heuristic, simulated serially), ``"none"``
        (keep the initial assignment), ``"greedy"`` (LPT over block clusters, centralised),
        ``"tempered"`` (a load-only TemperedLB-style gossip balancer: one-way transfers of single
        tasks, same gossip; its result is scored with the full model), ``"brute_force"`` (exact, tiny cases).
    seed : int, default 0
        Base seed; identical seeds give identical results.
    alpha, beta, gamma, delta : float
        Work-model coefficients (``gamma`` scales on-rank bytes).
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
        iteration (the paper; clusters without edges are estimated from their summaries) or
        from the peers' exact current state. The exchange itself is always re-evaluated
        exactly after the lock.
    allow_infeasible_start : bool, default False
        Start from an assignment above a memory cap: exchanges then first lower the pair's
        summed cap excess, then ``max W`` (spec 3.5). The result may still exceed a cap
        (``max_work`` is then ``inf``).
    backend : {"simulated", "event", "ranks"}, default "simulated"
        ``"simulated"``: the transfer stage as a serial order of atomic exchanges in C.
        ``"event"`` (``method="ccm"`` only, one trial, ``cluster`` "block" or "task"): the
        distributed lock protocol run as an event-driven simulation with seeded random message
        delays up to ``max_delay`` (:func:`wpart.tasks.run_protocol`, spec 8.1); slower, for
        protocol testing. ``stats["log"]`` holds the committed exchanges.
        ``"ranks"`` (``method="ccm"``, ``ranking="snapshot"``, no ``explore``): one state
        machine per rank holding only its own tasks, the engine that :mod:`wpart.tasks.mpi`
        runs with one MPI process per rank; the same seed gives the same result in both.
        ``stats["messages"]`` counts its messages by kind.
    subclusters : bool or {"none", "singles", "subsets", "fill"}, default False
        Sub-cluster one-way transfers, tried for a pair of ranks only when no whole-cluster
        exchange pays (LBAF-style subclustering; not in the paper, whose clusters move whole).
        ``True``/``"singles"``: single tasks taken out of clusters; ``"subsets"``: also, per
        cluster of ``n`` tasks, its ``m`` heaviest and its ``m`` lightest tasks for
        ``2 <= m < n`` (at most ~32 sizes), so that a block's tasks can be split in one step
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

    Returns
    -------
    TasksResult

    Raises
    ------
    ValueError
        Bad arguments, or an initial assignment above a memory cap ("infeasible start").
    """
    meth = choice(method, "method", METHODS, _ALIASES)
    split = _split_mode(subclusters)
    c = Coefficients(alpha, beta, gamma, delta)
    cap = problem.caps(memory_cap)
    if initial is not None:
        problem = problem.with_(initial=problem.assignment(initial, "initial"))
    if options:
        if meth == "brute_force" and set(options) <= {"preserve_clusters", "max_states"}:
            pass
        else:
            raise WpartTypeError(f"balance() got unexpected options {sorted(options)} for "
                            f"method {meth!r}")
    seed = as_int(seed, "seed", minimum=0)
    if seed >= 2**64:
        raise WpartValueError("`seed` must be < 2^64")
    n_iter = _count(n_iter, "n_iter", 0)
    n_trials = _count(n_trials, "n_trials", 1)
    tol = _real(tol, "tol")
    comm_tau = _real(comm_tau, "comm_tau")
    k = 0 if n_rounds is None else _count(n_rounds, "n_rounds", 1)
    f = 0 if fanout is None else _count(fanout, "fanout", 1)
    d = problem._dict(cap)
    a0 = np.array(problem.initial, dtype=np.int32)
    t0 = time.perf_counter()
    if meth == "brute_force":
        return brute_force(problem, alpha=c.alpha, beta=c.beta, gamma=c.gamma, delta=c.delta,
                           memory_cap=cap, **options)
    if meth == "none":
        w, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
        return _result(problem, c, cap, a0, np.array([w]), "none", {"seconds": 0.0})
    if meth == "greedy":
        a = _core.tasks_greedy(d, c.as_tuple())
        w, _ = _core.tasks_evaluate(d, c.as_tuple(), a)
        w0, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
        return _result(problem, c, cap, a, np.array([w0, w]), "greedy",
                       {"seconds": time.perf_counter() - t0})
    be = choice(backend, "backend", ("simulated", "event", "ranks"))
    if be == "event":
        if meth != "ccm" or split or allow_infeasible_start \
                or cluster not in ("block", "task") or n_trials != 1:
            raise WpartValueError("backend='event' supports method='ccm' with one trial, cluster "
                             "'block' or 'task' and default subclusters/start options")
        from ._protocol import run_protocol

        run = run_protocol(problem, seed, alpha=c.alpha, beta=c.beta, gamma=c.gamma,
                           delta=c.delta, memory_cap=cap, n_iter=n_iter, n_rounds=n_rounds,
                           fanout=fanout, cluster=cluster, tol=tol, max_delay=max_delay,
                           ranking=ranking)
        return _result(problem, c, cap, run.assignment, np.array(run.history), meth,
                       {"seconds": time.perf_counter() - t0, "backend": "event",
                        "exchanges": len(run.log), "events": run.n_events,
                        "rule_releases": run.n_rule_releases, "messages": run.n_messages,
                        "log": run.log, "seed": seed, "n_iter": n_iter, "cluster": cluster})
    cl = choice(cluster, "cluster", ("block", "task", "block+comm"))
    od = choice(order, "order", ("random", "rank"))
    rk = choice(ranking, "ranking", ("snapshot", "exact"))
    srule = choice(split_rule, "split_rule", ("auto", "fallback", "compete"))
    if srule == "auto":
        srule = "compete" if split >= 2 else "fallback"
    tl = _time_limit(time_limit)
    if be == "ranks":
        return _balance_ranks(problem, c, cap, d, a0, meth, t0, dict(
            n_iter=n_iter, n_rounds=k, fanout=f, n_trials=n_trials, seed=seed, cluster=cl,
            split=split, srule=srule, tol=tol, comm_tau=comm_tau, order=od, ranking=rk,
            explore=explore, allow_infeasible_start=allow_infeasible_start,
            progress=progress))
    run_c = c
    cluster_mode = {"block": 0, "task": 1, "block+comm": 2}[cl]
    enforce = True
    if meth == "tempered":  # load only, single tasks, memory ignored
        run_c = Coefficients(c.alpha if c.alpha > 0 else 1.0, 0.0, 0.0, 0.0)
        cluster_mode = 1
        enforce = False
    with progress_hook(progress, total=n_trials * n_iter * problem.n_ranks,
                       desc=f"balance[{meth}]") as hook:
        a, hist, exch, st = _core.tasks_ccm(
            d, run_c.as_tuple(enforce), a0, n_iter, k, f, n_trials, seed, cluster_mode,
            od == "random", tol, hook, tl, meth == "tempered",
            split if meth == "ccm" else 0, rk == "exact", bool(allow_infeasible_start),
            comm_tau, split_always=srule == "compete", explore=bool(explore))
    secs = time.perf_counter() - t0
    best = int(st["best_trial"])
    history = hist[best]
    if meth == "tempered":  # re-score the history with the full model is not available
        w, _ = _core.tasks_evaluate(d, c.as_tuple(), a)
        w0, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
        history = np.array([w0, w])
    stats = dict(st)
    stats.update(seconds=secs, exchanges_per_iteration=exch[best].tolist(),
                 n_iter=n_iter, n_trials=n_trials, seed=seed, cluster=cl,
                 subclusters=_SPLITS[split] if split else False, split_rule=srule,
                 explore=bool(explore),
                 ranking=rk)
    return _result(problem, c, cap, a, history, meth, stats)


def _balance_ranks(problem: Problem, c: Coefficients, cap, d: dict, a0, meth: str, t0: float,
                   o: dict) -> TasksResult:
    """``backend="ranks"``: one state machine per rank, the engine of the MPI run."""
    from ._ranks import RankParams, run_ranks

    if meth != "ccm" or o["ranking"] != "snapshot" or o["explore"]:
        raise WpartValueError("backend='ranks' supports method='ccm' with ranking='snapshot' and "
                         "no explore")
    w0, _ = _core.tasks_evaluate(d, c.as_tuple(), a0)
    if not np.isfinite(w0) and not o["allow_infeasible_start"]:
        raise WpartValueError("infeasible start: the initial assignment exceeds a memory cap "
                         "(W = inf on some rank)")
    prm = rank_params(problem.n_ranks, c, o["cluster"], o["split"], o["srule"], o["tol"],
                      o["comm_tau"], float(np.mean(problem.task_load)) if problem.n_tasks
                      else 0.0, n_iter=o["n_iter"], n_rounds=o["n_rounds"], fanout=o["fanout"],
                      n_trials=o["n_trials"], seed=o["seed"], order_random=o["order"] == "random")
    with progress_hook(o["progress"], total=o["n_trials"] * o["n_iter"] * problem.n_ranks,
                       desc="balance[ccm/ranks]") as hook:
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if hook is not None:
                hook(float(done[0]), float(o["n_trials"] * o["n_iter"] * problem.n_ranks))

        run = run_ranks(problem, prm, a0, cap, progress=tick)
    stats = {"seconds": time.perf_counter() - t0, "backend": "ranks",
             "exchanges_per_iteration": run["exchanges_per_iteration"],
             "n_exchanges": int(sum(run["exchanges_per_iteration"])),
             "best_trial": run["best_trial"], "messages": run["messages"],
             "evaluations": run["evaluations"], "n_rounds": run["n_rounds"],
             "schedule": run["schedule"],
             "fanout": run["fanout"], "n_iter": o["n_iter"], "n_trials": o["n_trials"],
             "seed": o["seed"], "cluster": o["cluster"]}
    return _result(problem, c, cap, run["assignment"], run["history"], meth, stats)


def rank_params(n_ranks: int, c: Coefficients, cluster: str, split: int, srule: str, tol: float,
                comm_tau: float, mean_load: float, **kw: Any):
    """The :class:`~wpart.tasks._ranks.RankParams` of a distributed run (in-process or MPI)."""
    from ._ranks import RankParams

    return RankParams(n_ranks, c.as_tuple(), cluster={"block": 0, "task": 1,
                                                      "block+comm": 2}[cluster],
                      singles=split, split_always=srule == "compete", tol=tol,
                      comm_thresh=comm_tau * c.alpha * mean_load, **kw)
