"""CCM-LB over MPI: one process per rank, each holding only its own tasks.

Run it with ``mpirun -np P python -m wpart.tasks.mpi INPUT_STEM --out OUTPUT_STEM`` (or
``srun``), or call :func:`balance_mpi` from your own MPI program. Every process reads its own
rank's LBDatafile (``<stem>.<rank>.json``, as vt writes them), runs the rank's steps of
:mod:`wpart.tasks._ranks` (the same code, and the same C step, as
``wpart.tasks.balance(..., backend="ranks")``), exchanges the gossip, lock and transfer
messages of CCM-LB (Sec. IV of the paper) over MPI, and writes its rank's result in the same
format.
Disjoint pairs of ranks exchange at the same time, in rounds chosen by a seeded matching
(:mod:`wpart.tasks._mpi_rounds`; ``protocol="turns"``: the earlier seeded order of turns,
:mod:`wpart.tasks._mpi_turns`); with the same seed the result equals the in-process run's.

``protocol="gather"`` gathers the phase on rank 0, balances it with the serial C engine and
scatters the records (:mod:`wpart.tasks._mpi_gather`); ``"auto"`` does so when the phase fits
rank 0's memory budget.

Faults: every wait is bounded: `timeout` seconds (the fault-detection deadline) for a direct
answer or a collective, twice that for the next turn notice (``protocol="turns"``); the CLI
also bounds MPI's own start-up and finalisation by it (:func:`startup_watchdog` does the
start-up in a script). A rank that waits that long names the ranks that do not answer a ping.
A job whose process count is not the stem's number of rank files stops before any work.
The output is one set, whole or untouched (:mod:`wpart.tasks._io_set`): writability is
checked before balancing, every rank writes a temporary file, and after every rank agreed
rank 0 switches the whole set (manifest, files, stale higher-rank files removed; the previous
set back on a failure). A rank that dies or hangs makes the others stop with
:class:`RankFailure`; with ``on_failure="abort"`` (the default) the rank that noticed prints
the error and calls ``MPI_Abort``, so ``mpirun`` ends the whole job with a non-zero status.
`time_limit` is the run's budget, which is not a fault: the ranks agree to stop at an
iteration boundary and return status ``"time_limit"``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._errors import WpartError, WpartTypeError, WpartValueError
from .._result import Result, new_axes, pct
from .._validate import (as_bool, as_float, as_int, as_seed, as_time_limit, as_timeout, choice,
                         deprecated_attr)
from .._validate import positional_deprecated
from .._mpi_watchdog import startup_watchdog
from ._mpi_comm import Channel, RankFailure
from ._mpi_order import ORDER_ATTR, current_keys, initial_keys, ordered_work
from ._mpi_rounds import rounds_stage_mpi
from ._mpi_turns import transfer_stage
from ._ranks import final_pass
from ._rounds import positions
from ._problem import Coefficients
from ._rankdata import RankData, split_problem
from ._results import PaperNames

__all__ = ["MPIRankResult", "RankFailure", "balance_mpi", "main", "scatter_problem",
           "startup_watchdog"]


@dataclass(frozen=True, eq=False, repr=False)
class MPIRankResult(PaperNames, Result):
    """What one process knows after :func:`balance_mpi`.

    Attributes
    ----------
    status : str
        ``"feasible"``, ``"time_limit"`` (the ranks stopped at an iteration boundary) or
        ``"infeasible"`` (a rank is above its memory cap).
    success : bool
    message : str
    rank, m : int
        This process's rank and the number of ranks (``n_ranks`` is a deprecated alias).
    data : RankData
        The tasks this rank holds now (records, edges, blocks).
    work : float
        W of this rank.
    max_load, initial_max_load : float
        ``W_max`` after and before (all-reduces: the global numbers a rank learns; also
        :attr:`max_work` and :attr:`initial_max_work`, the paper's names). Every rank sums
        its W over its tasks in the order of the in-process problem (the LBDatafile reader's:
        rank files, then each file; a scattered Problem's own), so these equal
        :func:`wpart.tasks.evaluate`'s on the same assignment, to the bit
        (:mod:`wpart.tasks._mpi_order`); ``history`` keeps the engine's own sums.
    imbalance : float
        ``max_load / mean W - 1``.
    history : ndarray
        ``W_max`` before and after every iteration of the best trial.
    exchanges_per_iteration : list of int
        Exchanges committed in the whole run, per iteration.
    messages : dict
        Messages this rank sent, by kind; ``bytes_sent`` their pickled bytes.
    seconds : float
        Wall time of the balancing (after input); ``seconds_total`` with input and output,
        ``iteration_seconds`` per iteration.
    assignment, task_ids : ndarray or None
        Rank of every task (by task id) on the root with ``gather=True``; else None.
    stats : dict
        ``n_iter``, ``n_trials``, ``seed``.
    """

    rank: int
    m: int
    data: Any = field(repr=False, compare=False)
    work: float
    max_load: float
    initial_max_load: float
    imbalance: float
    history: np.ndarray
    exchanges_per_iteration: list
    messages: dict
    bytes_sent: int
    seconds: float = field(compare=False)
    iteration_seconds: list = field(default_factory=list, compare=False)
    assignment: np.ndarray | None = None
    task_ids: np.ndarray | None = None
    seconds_total: float = field(default=0.0, compare=False)

    n_ranks = deprecated_attr("n_ranks", "m", "MPIRankResult")


    def to_dict(self) -> dict:
        """JSON-friendly dict of the fields (without the task records), plus
        ``n_tasks_here`` and ``success``."""
        d = super().to_dict()
        d["n_tasks_here"] = self.data.n_tasks
        return d

    def _repr_lines(self) -> list[str]:
        return [f"MPIRankResult(rank={self.rank}, m={self.m}, status={self.status!r}, "
                f"n_tasks_here={self.data.n_tasks})",
                f"  W {self.work:.6g} here; max_load (W_max) {self.initial_max_load:.6g} -> "
                f"{self.max_load:.6g}, imbalance {pct(self.imbalance)}",
                f"  {self.message}"]

    def plot(self, ax: Any = None) -> Any:
        """``W_max`` before the first and after every iteration; returns the Axes drawn on."""
        ax = new_axes(ax, figsize=(5, 3.2))
        ax.plot(np.arange(len(self.history)), self.history, marker="o")
        ax.set_xlabel("iteration")
        ax.set_ylabel("W_max")
        ax.set_title(f"CCM-LB over MPI, {self.m} ranks")
        return ax


@positional_deprecated("comm")
def scatter_problem(problem, *, comm: Any = None, memory_cap: Any = None,
                    initial: Any = None, root: int = 0) -> RankData:
    """Cut an in-memory :class:`~wpart.tasks.Problem` on `root` and send every rank its part
    (tests and small cases; big phases are read per rank from LBDatafiles)."""
    from mpi4py import MPI

    comm = comm or MPI.COMM_WORLD
    parts = None
    if comm.Get_rank() == root:
        if problem.m != comm.Get_size():
            raise WpartValueError(f"the problem has {problem.m} ranks but the communicator "
                                  f"{comm.Get_size()} processes")
        a0 = problem.assignment(initial, name="initial")
        parts = split_problem(problem, a0, problem.caps(memory_cap))
        gid = (np.arange(problem.n_tasks, dtype=np.int64) if problem.task_ids is None
               else np.asarray(problem.task_ids, np.int64))
        o = np.argsort(gid, kind="stable")
        for d in parts:  # each task's index in `problem`: its order key (_mpi_order)
            setattr(d, ORDER_ATTR, o[np.searchsorted(gid[o], d.gid)].astype(np.int64))
    return comm.scatter(parts, root=root)


def _run(ch: Channel, data: RankData, prm, allow_infeasible: bool, time_limit, t0: float
         ) -> dict:
    from ._ranks import RankProcess

    me = ch.rank
    init = data
    best = None
    stopped = False
    measure = True
    gossip_bytes = 0

    def late() -> bool:
        """Every rank agrees (one all-reduce) whether one of them has reached the limit."""
        if time_limit is None:
            return False
        over = time.perf_counter() - t0 >= time_limit
        return ch.allreduce(int(over), "max", "the time-limit check") > 0

    for trial in range(prm.n_trials):
        if trial > 0 and late():
            stopped = True
            break
        rk = RankProcess(init.copy(), prm)
        rk.begin_trial(trial)
        w0 = ch.allreduce(rk.work(), "max", "the initial W_max")
        if not np.isfinite(w0) and not allow_infeasible:
            raise WpartValueError("`memory_cap`: infeasible start: the initial assignment "
                                  "exceeds a memory cap (W = inf on some rank); pass "
                                  "allow_infeasible_start=True to start from it")
        hist, exch, secs = [w0], [], []
        ostate = None
        for it in range(prm.n_iter):
            if late():
                stopped = True
                break
            t_it = time.perf_counter()
            if prm.protocol == "rounds" and it > 0:  # where the moved tasks are now
                rk.locate(ch.sparse(rk.location_notices(), "GOSSIP",
                                    f"the location notices (iteration {it})", "LOCATE"))
            rk.begin_iteration()
            for hop in range(prm.k):
                tg = rk.hop_targets()
                snap = rk.gossip_message()
                got = ch.sparse({q: snap for q in tg}, "GOSSIP",
                                f"the inform stage (iteration {it}, hop {hop})", "INFORM")
                rk.hop_receive([m for _, m in got])
                if measure:
                    gossip_bytes = max(gossip_bytes, _pickled(rk.known))
            ostate, order = prm.turn_order(trial, ostate)
            if prm.protocol == "rounds":
                moved = int(ch.allreduce(rounds_stage_mpi(ch, rk, prm, positions(order), trial,
                                                          it), "sum",
                                         f"the exchange count of iteration {it}"))
            else:
                moved = transfer_stage(ch, rk, order, trial, it)
            if prm.protocol == "rounds" and it == prm.n_iter - 1 and final_pass(prm):
                rk.final, rk.tried, rk.extremes = True, set(), None  # the final pass
                moved += int(ch.allreduce(rounds_stage_mpi(ch, rk, prm, positions(order), trial,
                                                           prm.n_iter + 1), "sum",
                                          "the exchange count of the final pass"))
                rk.final = False
            exch.append(moved)
            hist.append(ch.allreduce(rk.work(), "max", f"W_max after iteration {it}"))
            secs.append(time.perf_counter() - t_it)
        n_moved = ch.allreduce(int((rk.data.orig != me).sum()), "sum", "the moved-task count")
        key = (hist[-1], n_moved)
        if best is None or key < best[0]:
            best = (key, rk.data, hist, exch, secs)
        if stopped:
            break
    _, data, hist, exch, secs = best
    return {"data": data, "history": np.array(hist), "exchanges": exch, "seconds": secs,
            "stopped": stopped, "gossip_bytes": gossip_bytes}


def _run_gather(ch: Channel, data: RankData, serial: dict, time_limit, t0: float,
                keys=None, explicit=None) -> dict:
    """``protocol="gather"``: the phase on rank 0, the serial engine, the records scattered
    (:func:`wpart.tasks._mpi_gather.gather_stage_mpi`)."""
    from ._mpi_gather import gather_stage_mpi

    # (a limit already spent: the smallest one the engine takes, so that it answers
    # "time_limit" as the other protocols do; 0 was refused on rank 0 and aborted the job)
    tl = None if time_limit is None else max(1e-9, time_limit - (time.perf_counter() - t0))
    t_g = time.perf_counter()
    mine, hist, exch, status, w_max, _ = gather_stage_mpi(ch, data, serial, tl, keys, explicit)
    return {"data": mine, "history": np.asarray(hist, float), "exchanges": list(exch),
            "w_max": w_max,
            "seconds": [time.perf_counter() - t_g], "stopped": status == "time_limit",
            "gossip_bytes": 0}


def _pickled(obj) -> int:
    import pickle

    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


@positional_deprecated("comm")
def balance_mpi(data: RankData | str, *, comm: Any = None, phase: int | None = None,
                out: str | None = None, alpha: float = 1.0, beta: float = 0.0,
                gamma: float = 0.0, delta: float = 0.0, memory_cap: float | None = None,
                seed: int = 0, n_iter: int = 4, n_rounds: int | None = None,
                fanout: int | None = None, n_trials: int = 1, cluster: str = "block",
                subclusters: bool | str = False, split_rule: str = "auto",
                order: str = "random", tol: float = 1e-12, comm_tau: float = 1.0,
                allow_infeasible_start: bool = False, time_limit: float | None = None,
                timeout: float | None = 60.0, gather: bool = False,
                on_failure: str = "abort", protocol: str = "rounds") -> MPIRankResult:
    """Balance one phase with one MPI process per rank (call it on every process).

    Parameters
    ----------
    data : RankData or str
        This rank's tasks (:func:`scatter_problem`), or an LBDatafile stem: the process of
        rank ``r`` reads ``<stem>.<r>.json`` only, and the edges are routed to their owners
        (an edge naming a task that no rank holds is an error naming its file).
    comm : mpi4py communicator, optional
        Default ``MPI.COMM_WORLD``; one process per rank of the phase.
    out : str, optional
        Stem of the output: every process writes ``<out>.<rank>.json``.
    alpha, beta, gamma, delta, memory_cap, seed, n_iter, n_rounds, fanout, n_trials,
    cluster, subclusters, split_rule, order, tol, comm_tau, allow_infeasible_start
        As :func:`wpart.tasks.balance` (``explore`` and ``ranking="exact"`` are not offered:
        they need every rank's current state).
    time_limit : float, optional
        The run's budget in seconds (None: none), as in :func:`wpart.tasks.balance`: checked
        (one all-reduce) before every iteration; once a rank has reached it, every rank stops
        there and the result has status ``"time_limit"`` with the placement reached.
    timeout : float or None, default 60
        The fault-detection deadline: the longest wait for a peer's answer or a collective, in
        seconds; a rank waiting for the next turn notice waits twice that (so the rank blocked
        on the culprit reports first). It must exceed the longest step of a rank. None: wait
        forever.
    gather : bool, default False
        Also collect the full assignment on rank 0 (reporting and tests; the balancing never
        needs it).
    protocol : {"rounds", "turns", "gather", "auto"}, default "rounds"
        The transfer stage, as ``balance(..., backend="ranks", protocol=...)``: rounds of
        disjoint pairs exchanging at the same time with bounded gossip, the earlier seeded
        global order of turns, the phase gathered on rank 0 and balanced by the serial C
        engine (the placement equals ``balance(problem, seed=seed, ...)``'s; rank 0's engine
        time must stay below twice `timeout`), or ``"auto"``: gather when the phase fits
        rank 0's memory budget (:data:`wpart.tasks._mpi_gather.GATHER_BUDGET`), else rounds.
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
    to = as_timeout(timeout)
    ch = Channel(comm, math.inf if to is None else to)
    try:
        c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
        serial = dict(alpha=alpha, beta=beta, gamma=gamma, delta=delta, seed=seed,
                      n_iter=n_iter, n_rounds=n_rounds, fanout=fanout, n_trials=n_trials,
                      cluster=cluster, subclusters=subclusters, split_rule=split_rule,
                      order=order, tol=tol, comm_tau=comm_tau,
                      allow_infeasible_start=allow_infeasible_start)
        return _balance(ch, data, phase, out, c,
                        memory_cap, seed, n_iter, n_rounds, fanout, n_trials, cluster,
                        _split_mode(subclusters), split_rule, order, tol, comm_tau,
                        as_bool(allow_infeasible_start, "allow_infeasible_start"),
                        as_bool(gather, "gather"), as_time_limit(time_limit), rank_params,
                        choice(protocol, "protocol", ("rounds", "turns", "gather", "auto")),
                        serial)
    except Exception as exc:
        if on_failure == "raise":
            raise
        print(f"wpart.tasks.mpi: rank {ch.rank}: {type(exc).__name__}: {exc}", file=sys.stderr,
              flush=True)
        comm.Abort(3)
        raise  # pragma: no cover - Abort does not return


def _balance(ch, data, phase, out, c, memory_cap, seed, n_iter, n_rounds, fanout, n_trials,
             cluster, split, split_rule, order, tol, comm_tau, allow_inf, gather, tl,
             rank_params, protocol="rounds", serial=None):
    from ._io_set import check_rank_file, check_stale
    from ._mpi_io import (check_out_writable, count_rank_files, distribute_edges, read_rank,
                          write_rank_set)

    t0 = time.perf_counter()
    kind, ph = "id", 0
    file_order = explicit = None
    if isinstance(data, str):
        stem = data
        check_stale(stem)  # files of an earlier, larger set beside its manifest
        n_files, idx = count_rank_files(stem)
        if n_files != ch.size or len(idx) != n_files:
            # every rank sees the same folder: all stop here, before any work, with this error
            gap = sorted(set(range(n_files)) - set(idx))
            raise WpartValueError(
                f"{stem}: the input has " + (f"rank files {stem}.0.json .. {stem}."
                                             f"{n_files - 1}.json" if n_files else "no rank "
                                             f"file {stem}.<rank>.json")
                + (f" with {stem}.{gap[0]}.json missing" if gap else "")
                + (f": restore the missing rank file{'s' if len(gap) > 1 else ''} (the "
                   f"job has {ch.size} processes, one per rank file)" if gap else
                   f" but the job has {ch.size} processes: one process per rank file "
                   f"(mpirun -np {n_files if n_files else 'N'})"))
        check_rank_file(stem, ch.rank, ch.size)  # one set: its manifest, when it has one
        data, edges, info = read_rank(f"{stem}.{ch.rank}.json", ch.rank, ch.size, phase)
        kind, ph = info["kind"], info["phase"]
        file_order, explicit = info["order"], info["explicit_blocks"]
        data.pinned = np.asarray(info.get("pinned", np.zeros(0, np.int64)), np.int64)
        distribute_edges(ch, data, edges, name_of=lambda eid: (
            f"{stem}.{eid >> 32}.json: phase {ph} communications[{eid & 0xFFFFFFFF}]"))
    elif not isinstance(data, RankData):
        raise WpartTypeError("`data` must be a RankData or an LBDatafile stem")
    if data.rank != ch.rank:
        raise WpartValueError(f"`data` is rank {data.rank}'s but this process is rank {ch.rank}")
    # the order keys of this rank's tasks: their positions in the in-process Problem
    keys0 = initial_keys(data, file_order)
    ko = np.argsort(data.gid, kind="stable")
    home = (data.gid[ko], keys0[ko])
    if out is not None:  # before any work: every rank can write its file
        check_out_writable(ch, out)
    if memory_cap is not None:
        data.cap = as_float(memory_cap, "memory_cap", minimum=0.0, allow_inf=True)
    seed = as_seed(seed)
    n_iter = as_int(n_iter, "n_iter", minimum=0)
    n_trials = as_int(n_trials, "n_trials", minimum=1)
    cl = choice(cluster, "cluster", ("block", "task", "block+comm"))
    od = choice(order, "order", ("random", "rank"))
    srule = choice(split_rule, "split_rule", ("auto", "fallback", "compete"))
    if srule == "auto":
        srule = "compete" if split >= 2 else "fallback"
    k = 0 if n_rounds is None else as_int(n_rounds, "n_rounds", minimum=1)
    f = 0 if fanout is None else as_int(fanout, "fanout", minimum=1)
    tol = as_float(tol, "tol", minimum=0.0)
    comm_tau = as_float(comm_tau, "comm_tau", minimum=0.0)
    n_all = ch.allreduce(data.n_tasks, "sum", "the task count")
    mean = ch.allreduce(float(data.load.sum()), "sum", "the total load") / max(n_all, 1)
    prm = rank_params(ch.size, c, cl, split, srule, tol, comm_tau, mean,
                      n_iter=n_iter, n_rounds=k, fanout=f, n_trials=n_trials, seed=seed,
                      order_random=od == "random", protocol=protocol)
    asked = protocol
    if protocol == "auto":  # the phase's size: every rank counts its tasks' edges at the source
        from ._mpi_gather import auto_protocol

        n_e = ch.allreduce(int(np.isin(data.esrc, data.gid).sum()), "sum", "the edge count")
        n_b = ch.allreduce(int(data.bid.size), "sum", "the block count")
        protocol = auto_protocol(int(n_all), int(n_e), int(n_b), n_ranks=ch.size)
    w0 = ordered_work(data, prm.coeffs, keys0)  # before the gather moves rank 0's records
    t1 = time.perf_counter()
    if protocol == "gather":
        run = _run_gather(ch, data, serial or {}, tl, t0, keys0, explicit)
    else:
        run = _run(ch, data, prm, allow_inf, tl, t0)
    secs = time.perf_counter() - t1
    data = run["data"]
    # W summed over each rank's tasks in the in-process Problem's order (the records are by
    # id): max_load is what wpart.tasks.evaluate gives on the same assignment, to the bit
    w = ordered_work(data, prm.coeffs, current_keys(ch, data, *home))
    mean_w = ch.allreduce(w, "sum", "the mean W") / ch.size
    w_max = float(ch.allreduce(w, "max", "W_max (in the phase's task order)"))
    w_init = float(ch.allreduce(w0, "max", "the initial W_max (in the phase's task order)"))
    imb = math.inf if not math.isfinite(w_max) else (w_max / mean_w - 1.0 if mean_w > 0
                                                     else 0.0)
    ids = assignment = None
    if gather:
        if ch.rank == 0:
            idl, ranks = [data.gid], [np.full(data.n_tasks, 0, np.int32)]
            for _ in range(ch.size - 1):
                src, _, g = ch.recv(-1, ("GATHER",), "the gathered assignment")
                idl.append(g)
                ranks.append(np.full(g.size, src, np.int32))
            g = np.concatenate(idl)
            o = np.argsort(g, kind="stable")
            ids, assignment = g[o], np.concatenate(ranks)[o]
        else:
            ch.send(0, "GATHER", data.gid)
    if out is not None:
        # one output set: temporary files, a first agreement, the switch on rank 0, a second
        # agreement; a failure anywhere leaves the previous set whole
        write_rank_set(ch, data, out, kind, ph)
    ch.drain()
    ch.barrier("the end of the run")
    n_ex = sum(run["exchanges"])
    if run["stopped"]:
        status, msg = "time_limit", (f"time limit of {tl:g} s reached after "
                                     f"{len(run['exchanges'])} of {n_iter} iterations "
                                     f"({n_ex} exchanges); the placement reached is kept")
    elif math.isfinite(w_max):
        status, msg = "feasible", f"{n_iter} iterations on {ch.size} ranks, {n_ex} exchanges"
    else:
        status, msg = "infeasible", "a rank exceeds its memory cap (W = inf)"
    return MPIRankResult(status=status, message=msg, rank=ch.rank, m=ch.size, data=data,
                         work=w, max_load=w_max, initial_max_load=w_init,
                         imbalance=imb, history=run["history"],
                         exchanges_per_iteration=run["exchanges"], messages=dict(ch.sent),
                         bytes_sent=ch.bytes_sent, seconds=secs,
                         iteration_seconds=run["seconds"], assignment=assignment,
                         task_ids=ids, seconds_total=time.perf_counter() - t0,
                         stats={"n_iter": n_iter, "n_trials": n_trials, "seed": seed,
                                "protocol": protocol, "protocol_asked": asked,
                                "gossip_bytes": run["gossip_bytes"]})


def _startup_watchdog(timeout: float | None, what: str = "the MPI start-up",
                      why: str = "a rank died or hangs during start-up"):
    """Bound one of MPI's own blocking steps by `timeout` seconds (:func:`wpart._mpi_watchdog.arm`:
    MPI_Init waits for every rank and holds the interpreter meanwhile, so a rank that dies or
    is stopped there would leave the others waiting with no word). Returns what
    :func:`_startup_over` takes."""
    from .._mpi_watchdog import arm

    return arm(timeout, what, why, "wpart.tasks.mpi")


def _startup_over(token) -> None:
    from .._mpi_watchdog import disarm

    disarm(token)


def main(*, argv: list | None = None) -> int:
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
    ap.add_argument("--time-limit", type=float,
                    help="the run's budget in seconds (stops at an iteration boundary)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="fault-detection deadline: longest wait for a peer, in seconds")
    ap.add_argument("--protocol", default="rounds",
                    choices=("rounds", "turns", "gather", "auto"),
                    help="transfer stage: concurrent rounds of disjoint pairs (default), the "
                    "earlier seeded order of turns, the phase gathered on rank 0 and balanced "
                    "by the serial engine, or auto (gather when it fits rank 0's memory)")
    ap.add_argument("--json", help="rank 0 writes a summary (and the assignment) here")
    a = ap.parse_args(argv)
    try:  # before the watchdog and MPI start: a bad deadline is a usage error, no traceback
        as_timeout(a.timeout)
    except WpartError as exc:
        ap.error(f"--timeout: {exc}")
    token = _startup_watchdog(a.timeout)
    try:
        from mpi4py import MPI  # MPI_Init: waits for every rank, bounded by the watcher

        MPI.COMM_WORLD.Get_rank()
    finally:
        _startup_over(token)
    res = balance_mpi(a.stem, out=a.out, phase=a.phase, alpha=a.alpha, beta=a.beta,
                      gamma=a.gamma, delta=a.delta, memory_cap=a.memory_cap, seed=a.seed,
                      n_iter=a.n_iter, n_rounds=a.n_rounds, fanout=a.fanout,
                      n_trials=a.n_trials, cluster=a.cluster,
                      subclusters=False if a.subclusters == "none" else a.subclusters,
                      time_limit=a.time_limit, timeout=a.timeout, gather=a.json is not None,
                      protocol=a.protocol)
    if res.rank == 0:
        print(f"W_max {res.initial_max_load:.6g} -> {res.max_load:.6g} on {res.m} ranks "
              f"in {res.seconds:.3f} s ({sum(res.exchanges_per_iteration)} exchanges; "
              f"{res.status})", flush=True)
        if a.json:
            from ._mpi_io import write_json_atomic

            write_json_atomic(a.json, res.to_dict())
    _finalize_bounded(a.timeout)
    return 0


def _finalize_bounded(timeout: float | None) -> None:
    """MPI's finalisation (in the interpreter's exit handlers) waits for every rank: bound it
    by `timeout` (a rank stopped after the result is complete would hold the job, and its
    allocation, with no word); past it the watcher names the step and ends this process, so
    ``mpirun`` ends the job with a non-zero status."""
    from .._mpi_watchdog import arm_exit

    sys.stdout.flush()
    arm_exit(timeout, "wpart.tasks.mpi")


if __name__ == "__main__":  # pragma: no cover - run by mpirun
    sys.exit(main())
