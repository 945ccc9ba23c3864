"""CCM-LB over MPI: one process per rank, each holding only its own tasks.

Run it with ``mpirun -np P python -m wpart.tasks.mpi INPUT_STEM --out OUTPUT_STEM`` (or
``srun``), or call :func:`balance_mpi` from your own MPI program. Every process reads its own
rank's LBDatafile (``<stem>.<rank>.json``, as vt writes them), runs the rank's steps of
:mod:`wpart.tasks._ranks` (the same code, and the same C step, as
``wpart.tasks.balance(..., backend="ranks")``), exchanges the gossip, lock and transfer
messages of spec 003 section 3 over MPI, and writes its rank's result in the same format.
Turns on disjoint ranks run concurrently (:mod:`wpart.tasks._mpi_turns`) while the result
stays that of the seeded serial order: with the same seed it equals the in-process run's.

Faults: every wait is bounded: `timeout` seconds for a direct answer or a collective, twice
that for the next turn notice (a rank hears from the active rank at least once per turn). A rank that dies or hangs makes the others stop with
:class:`RankFailure`; with ``on_failure="abort"`` (the default) the rank that noticed prints
the error and calls ``MPI_Abort``, so ``mpirun`` ends the whole job with a non-zero status.
"""

from __future__ import annotations
from .._errors import WpartTypeError, WpartValueError

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import as_int, choice
from ._mpi_comm import Channel, RankFailure
from ._mpi_turns import transfer_stage
from ._problem import Coefficients
from ._rankdata import RankData, split_problem

__all__ = ["MPIRankResult", "RankFailure", "balance_mpi", "main", "scatter_problem"]


@dataclass
class MPIRankResult:
    """What one process knows after :func:`balance_mpi`.

    Attributes
    ----------
    rank, n_ranks : int
    data : RankData
        The tasks this rank holds now (records, edges, blocks).
    work : float
        W of this rank.
    max_work, initial_max_work : float
        ``W_max`` after and before (an all-reduce: the only global numbers a rank learns).
    history : ndarray
        ``W_max`` before and after every iteration of the best trial.
    exchanges_per_iteration : list of int
        Exchanges committed in the whole run, per iteration.
    messages : dict
        Messages this rank sent, by kind; ``bytes_sent`` their pickled bytes.
    seconds : float
        Wall time of the balancing (after input).
    assignment : ndarray or None
        Rank of every task (by task id) on the root with ``gather=True``; else None.
    """

    rank: int
    n_ranks: int
    data: RankData
    work: float
    max_work: float
    initial_max_work: float
    history: np.ndarray
    exchanges_per_iteration: list
    messages: dict
    bytes_sent: int
    seconds: float
    iteration_seconds: list = field(default_factory=list)
    assignment: np.ndarray | None = None
    task_ids: np.ndarray | None = None
    seconds_total: float = 0.0

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("rank", "n_ranks", "work", "max_work",
                                           "initial_max_work", "exchanges_per_iteration",
                                           "messages", "bytes_sent", "seconds",
                                           "iteration_seconds")}
        d["history"] = self.history.tolist()
        d["n_tasks_here"] = self.data.n_tasks
        if self.assignment is not None:
            d["assignment"] = self.assignment.tolist()
            d["task_ids"] = self.task_ids.tolist()
        return d


def scatter_problem(problem, comm: Any = None, *, memory_cap: Any = None,
                    initial: Any = None, root: int = 0) -> RankData:
    """Cut an in-memory :class:`~wpart.tasks.Problem` on `root` and send every rank its part
    (tests and small cases; big phases are read per rank from LBDatafiles)."""
    from mpi4py import MPI

    comm = comm or MPI.COMM_WORLD
    parts = None
    if comm.Get_rank() == root:
        if problem.n_ranks != comm.Get_size():
            raise WpartValueError(f"the problem has {problem.n_ranks} ranks but the communicator "
                             f"{comm.Get_size()} processes")
        a0 = problem.assignment(initial, "initial")
        parts = split_problem(problem, a0, problem.caps(memory_cap))
    return comm.scatter(parts, root=root)


def _run(ch: Channel, data: RankData, prm, allow_infeasible: bool) -> dict:
    from ._ranks import RankProcess

    P, me = ch.size, ch.rank
    init = data
    best = None
    for trial in range(prm.n_trials):
        rk = RankProcess(init.copy(), prm)
        rk.begin_trial(trial)
        w0 = ch.allreduce(rk.work(), "max", "the initial W_max")
        if not np.isfinite(w0) and not allow_infeasible:
            raise WpartValueError("infeasible start: the initial assignment exceeds a memory cap "
                             "(W = inf on some rank)")
        hist, exch, secs = [w0], [], []
        ostate = None
        for it in range(prm.n_iter):
            t_it = time.perf_counter()
            rk.begin_iteration()
            for hop in range(prm.k):
                tg = rk.hop_targets()
                snap = dict(rk.known)
                got = ch.exchange({q: snap for q in tg}, "GOSSIP",
                                  f"the inform stage (iteration {it}, hop {hop})", "INFORM")
                rk.hop_receive([m for _, m in got])
            ostate, order = prm.turn_order(trial, ostate)
            moved = transfer_stage(ch, rk, order, trial, it)
            exch.append(moved)
            hist.append(ch.allreduce(rk.work(), "max", f"W_max after iteration {it}"))
            secs.append(time.perf_counter() - t_it)
        n_moved = ch.allreduce(int((rk.data.orig != me).sum()), "sum", "the moved-task count")
        key = (hist[-1], n_moved)
        if best is None or key < best[0]:
            best = (key, rk.data, hist, exch, secs)
    _, data, hist, exch, secs = best
    return {"data": data, "history": np.array(hist), "exchanges": exch, "seconds": secs}


def balance_mpi(data: RankData | str, comm: Any = None, *, phase: int | None = None,
                out: str | None = None, alpha: float = 1.0, beta: float = 0.0,
                gamma: float = 0.0, delta: float = 0.0, memory_cap: float | None = None,
                seed: int = 0, n_iter: int = 4, n_rounds: int | None = None,
                fanout: int | None = None, n_trials: int = 1, cluster: str = "block",
                subclusters: bool | str = False, split_rule: str = "auto",
                order: str = "random", tol: float = 1e-12, comm_tau: float = 1.0,
                allow_infeasible_start: bool = False, timeout: float = 60.0,
                gather: bool = False, on_failure: str = "abort") -> MPIRankResult:
    """Balance one phase with one MPI process per rank (call it on every process).

    Parameters
    ----------
    data : RankData or str
        This rank's tasks (:func:`scatter_problem`), or an LBDatafile stem: the process of
        rank ``r`` reads ``<stem>.<r>.json`` only, and the edges are routed to their owners.
    comm : mpi4py communicator, optional
        Default ``MPI.COMM_WORLD``; one process per rank of the phase.
    out : str, optional
        Stem of the output: every process writes ``<out>.<rank>.json``.
    alpha, beta, gamma, delta, memory_cap, seed, n_iter, n_rounds, fanout, n_trials,
    cluster, subclusters, split_rule, order, tol, comm_tau, allow_infeasible_start
        As :func:`wpart.tasks.balance` (``explore`` and ``ranking="exact"`` are not offered:
        they need every rank's current state).
    timeout : float, default 60
        Longest wait for a peer's answer or a collective, in seconds; a rank waiting for the
        next turn notice waits twice that (so the rank blocked on the culprit reports first).
        It must exceed the longest step of a rank.
    gather : bool, default False
        Also collect the full assignment on rank 0 (reporting and tests; the balancing never
        needs it).
    on_failure : {"abort", "raise"}
        On :class:`RankFailure` or a bad input: print the error and ``MPI_Abort`` the job
        (default; no rank is left waiting), or raise it on this rank only.

    Returns
    -------
    MPIRankResult
    """
    from mpi4py import MPI

    from ._balance import _split_mode, rank_params

    comm = comm or MPI.COMM_WORLD
    on_failure = choice(on_failure, "on_failure", ("abort", "raise"))
    timeout = float(timeout)
    if not (timeout > 0) or not np.isfinite(timeout):
        raise WpartValueError(f"`timeout` must be a positive number of seconds, got {timeout}")
    ch = Channel(comm, timeout)
    try:
        return _balance(ch, data, phase, out, Coefficients(alpha, beta, gamma, delta),
                        memory_cap, seed, n_iter, n_rounds, fanout, n_trials, cluster,
                        _split_mode(subclusters), split_rule, order, tol, comm_tau,
                        allow_infeasible_start, gather, rank_params)
    except Exception as exc:
        if on_failure == "raise":
            raise
        print(f"wpart.tasks.mpi: rank {ch.rank}: {type(exc).__name__}: {exc}", file=sys.stderr,
              flush=True)
        comm.Abort(3)
        raise  # pragma: no cover - Abort does not return


def _balance(ch, data, phase, out, c, memory_cap, seed, n_iter, n_rounds, fanout, n_trials,
             cluster, split, split_rule, order, tol, comm_tau, allow_inf, gather, rank_params):
    from ._mpi_io import distribute_edges, read_rank, write_rank

    t0 = time.perf_counter()
    kind, ph = "id", 0
    if isinstance(data, str):
        data, edges, info = read_rank(f"{data}.{ch.rank}.json", ch.rank, ch.size, phase)
        kind, ph = info["kind"], info["phase"]
        distribute_edges(ch, data, edges)
    elif not isinstance(data, RankData):
        raise WpartTypeError("`data` must be a RankData or an LBDatafile stem")
    if data.rank != ch.rank:
        raise WpartValueError(f"`data` is rank {data.rank}'s but this process is rank {ch.rank}")
    if memory_cap is not None:
        cap = float(memory_cap)
        if not cap >= 0:
            raise WpartValueError(f"`memory_cap` must be non-negative, got {memory_cap}")
        data.cap = cap
    seed = as_int(seed, "seed", minimum=0)
    n_iter = as_int(n_iter, "n_iter", minimum=0)
    n_trials = as_int(n_trials, "n_trials", minimum=1)
    cl = choice(cluster, "cluster", ("block", "task", "block+comm"))
    od = choice(order, "order", ("random", "rank"))
    srule = choice(split_rule, "split_rule", ("auto", "fallback", "compete"))
    if srule == "auto":
        srule = "compete" if split >= 2 else "fallback"
    k = 0 if n_rounds is None else as_int(n_rounds, "n_rounds", minimum=1)
    f = 0 if fanout is None else as_int(fanout, "fanout", minimum=1)
    n_all = ch.allreduce(data.n_tasks, "sum", "the task count")
    mean = ch.allreduce(float(data.load.sum()), "sum", "the total load") / max(n_all, 1)
    prm = rank_params(ch.size, c, cl, split, srule, float(tol), float(comm_tau), mean,
                      n_iter=n_iter, n_rounds=k, fanout=f, n_trials=n_trials, seed=seed,
                      order_random=od == "random")
    t1 = time.perf_counter()
    run = _run(ch, data, prm, allow_inf)
    secs = time.perf_counter() - t1
    data = run["data"]
    from ._ranks import RankProcess

    w = RankProcess(data, prm).work()
    res = MPIRankResult(rank=ch.rank, n_ranks=ch.size, data=data, work=w,
                        max_work=float(run["history"][-1]),
                        initial_max_work=float(run["history"][0]), history=run["history"],
                        exchanges_per_iteration=run["exchanges"], messages=dict(ch.sent),
                        bytes_sent=ch.bytes_sent, seconds=secs,
                        iteration_seconds=run["seconds"])
    if gather:
        if ch.rank == 0:
            ids, ranks = [data.gid], [np.full(data.n_tasks, 0, np.int32)]
            for _ in range(ch.size - 1):
                src, _, g = ch.recv(-1, ("GATHER",), "the gathered assignment")
                ids.append(g)
                ranks.append(np.full(g.size, src, np.int32))
            g = np.concatenate(ids)
            o = np.argsort(g, kind="stable")
            res.task_ids, res.assignment = g[o], np.concatenate(ranks)[o]
        else:
            ch.send(0, "GATHER", data.gid)
    if out is not None:
        write_rank(data, out, kind, ph)
    ch.drain()
    ch.barrier("the end of the run")
    res.seconds_total = time.perf_counter() - t0
    return res


def main(argv: list | None = None) -> int:
    """``mpirun -np P python -m wpart.tasks.mpi STEM [--out OUT] [options]``."""
    ap = argparse.ArgumentParser(prog="python -m wpart.tasks.mpi",
                                 description="CCM-LB with one MPI process per rank: each "
                                 "process reads STEM.<rank>.json and writes OUT.<rank>.json.")
    ap.add_argument("stem", help="input LBDatafile stem (files STEM.<rank>.json)")
    ap.add_argument("--out", help="output stem (files OUT.<rank>.json)")
    ap.add_argument("--phase", type=int)
    for k in ("alpha", "beta", "gamma", "delta"):
        ap.add_argument(f"--{k}", type=float, default=1.0 if k == "alpha" else 0.0)
    ap.add_argument("--memory-cap", type=float)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-iter", type=int, default=4)
    ap.add_argument("--n-rounds", type=int)
    ap.add_argument("--fanout", type=int)
    ap.add_argument("--n-trials", type=int, default=1)
    ap.add_argument("--cluster", default="block", choices=("block", "task", "block+comm"))
    ap.add_argument("--subclusters", default="none",
                    choices=("none", "singles", "subsets", "fill"))
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", help="rank 0 writes a summary (and the assignment) here")
    a = ap.parse_args(argv)
    res = balance_mpi(a.stem, out=a.out, phase=a.phase, alpha=a.alpha, beta=a.beta,
                      gamma=a.gamma, delta=a.delta, memory_cap=a.memory_cap, seed=a.seed,
                      n_iter=a.n_iter, n_rounds=a.n_rounds, fanout=a.fanout,
                      n_trials=a.n_trials, cluster=a.cluster,
                      subclusters=False if a.subclusters == "none" else a.subclusters,
                      timeout=a.timeout, gather=a.json is not None)
    if res.rank == 0:
        print(f"W_max {res.initial_max_work:.6g} -> {res.max_work:.6g} on {res.n_ranks} ranks "
              f"in {res.seconds:.3f} s ({sum(res.exchanges_per_iteration)} exchanges)")
        if a.json:
            with open(a.json, "w") as fh:
                json.dump(res.to_dict(), fh, indent=1)
    return 0


if __name__ == "__main__":  # pragma: no cover - run by mpirun
    sys.exit(main())
