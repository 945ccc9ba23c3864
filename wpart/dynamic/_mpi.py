"""wpart.dynamic over MPI ranks: the balancer on one rank, the workers on the others.

:func:`run_mpi` is :func:`wpart.dynamic.run` with its processing units (PUs) spread over the
ranks of an MPI communicator. The root rank runs the balancer and the unchanged driver of
:func:`run`; each of its PUs is a :class:`RankWorker`, a proxy whose blocks travel to a
worker rank. Every other rank serves ``pus_per_rank`` PUs, each a local worker
(:class:`ThreadWorker`, :class:`CallableWorker`, :class:`ProcessWorker`, :class:`CupyWorker`)
on the rank's own copy of the task, and sends each finished block's results back. One
*hub* thread on the root does every MPI call there: nonblocking sends, and matched
nonblocking probes (``improbe``) that take completions from any rank as they arrive.

mpi4py is imported only when :func:`run_mpi` is called: ``import wpart`` never needs MPI.
"""

from __future__ import annotations
from .._errors import WpartRuntimeError, WpartTypeError, WpartValueError

import atexit
import dataclasses
import itertools
import math
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._validate import as_float, as_int, as_progress, as_timeout, choice
from ._exec import _STOP, Worker, WorkerError, _drive, _PU, _run_iv, protocol_size
from ._exec_tasks import Task
from ._trace import RunResult, cancelling

__all__ = ["run_mpi", "RankWorker", "RankFailedError", "MPIRunResult"]

_TAG_CTRL = 7301  # root -> worker rank: start, block, stop
_TAG_REPLY = 7302  # worker rank -> root: ready, done, error, bye, exiting
_FAILURES = ("reissue", "error")
_MISSED_BEATS = 5  # heartbeats missed before a rank is declared dead
#: The default heartbeat period (seconds): the root and the worker ranks watch each other
#: (a dead root is noticed by its workers after 5 missed beats, 10 s)
AUTO_HEARTBEAT = 2.0


def _probe(comm: Any, tag: int, source: int | None = None) -> tuple[int, Any] | None:
    """One pending message with `tag` (from `source`, default any), received: (source, message)."""
    from mpi4py import MPI

    st = MPI.Status()
    m = comm.improbe(source=MPI.ANY_SOURCE if source is None else source, tag=tag, status=st)
    if m is None:
        return None
    return st.Get_source(), m.recv()


class RankFailedError(WorkerError):
    """A worker rank died or stayed silent past the `timeout` of :func:`run_mpi` (its
    fault-detection deadline), and the run was stopped.

    Attributes
    ----------
    rank : int
        The failed rank.
    lost : list of (offset, size)
        The blocks that rank held (sent to it and not completed), in order of assignment.
    reason : str
        What was observed ("no message for ... s while holding blocks", ...).
    pu, block
        As for :class:`WorkerError` (``block`` is -1: the driver's block id is not known here).
    """

    def __init__(self, message: str, rank: int, lost: list[tuple[int, int]], reason: str, pu: int = -1) -> None:
        super().__init__(message, pu, -1)
        self.rank = rank
        self.lost = list(lost)
        self.reason = reason


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class MPIRunResult(RunResult):
    """What :func:`run_mpi` measured: every field of :class:`RunResult`, plus the ranks.

    The trace, ``busy``, ``elements`` and ``shares`` are per balancer PU, as in
    :func:`run`; a block re-issued after a rank failure counts for the PU the balancer gave
    it to, and ``block_rank`` says which rank computed it.

    Attributes
    ----------
    ranks : ndarray of int64, shape (m,)
        The home rank of each PU.
    block_rank : ndarray of int64, shape (n_blocks,)
        The rank that computed each trace row's block.
    failed_ranks : list of int
        Ranks declared failed (dead, or silent past the timeout): first those that failed in
        an earlier run on the same communicator (they get no block), then in order of
        detection.
    reissued : list of (offset, size, from_rank, to_rank)
        Blocks a failed rank held that were sent again to a surviving rank.
    root : int
        The rank that ran the balancer.
    """

    ranks: NDArray[np.int64] = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64))
    block_rank: NDArray[np.int64] = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64))
    failed_ranks: list[int] = dataclasses.field(default_factory=list)
    reissued: list[tuple[int, int, int, int]] = dataclasses.field(default_factory=list)
    root: int = 0

    def _repr_lines(self) -> list[str]:
        lines = super()._repr_lines()
        lines.insert(-1, f"  root={self.root}, worker ranks={sorted(set(self.ranks.tolist()))}, "
                         f"failed_ranks={self.failed_ranks}, reissued={len(self.reissued)}")
        return lines


# ============================================================================ the root ====


class _Rec:
    __slots__ = ("key", "pu", "offset", "size", "reply", "rank", "slot", "t_sent")

    def __init__(self, key: int, pu: int, offset: int, size: int, reply: queue.SimpleQueue) -> None:
        self.key, self.pu, self.offset, self.size, self.reply = key, pu, offset, size, reply
        self.rank, self.slot, self.t_sent = -1, -1, 0.0


class _Hub(threading.Thread):
    """The root's one MPI thread: sends blocks to ranks, matches completions, watches deadlines."""

    def __init__(self, comm: Any, home: list[tuple[int, int]], alive: set[int], slots: int,
                 timeout: float, on_failure: str, poll: float, heartbeat: float | None = None) -> None:
        super().__init__(name="wpart-mpi-hub", daemon=True)
        self.comm, self.home, self.slots = comm, home, slots
        self.alive = set(alive)
        self.timeout, self.on_failure, self.poll = timeout, on_failure, poll
        self.heartbeat = heartbeat
        self.last_beat: dict[int, float] = {}
        self.requests: queue.SimpleQueue = queue.SimpleQueue()
        self.inflight: dict[int, _Rec] = {}
        self.busy_since: dict[int, float] = {}
        self.last_heard: dict[int, float] = {}
        self.slot_error: dict[tuple[int, int], str] = {}
        self.sends: list = []
        self.failed: list[int] = []
        self.reissued: list[tuple[int, int, int, int]] = []
        self.done_rank: dict[tuple[int, int], int] = {}
        self.halt = threading.Event()
        self.crash: BaseException | None = None
        self._keys = itertools.count()

    # -- called from the PU threads ------------------------------------------------------
    def execute(self, pu: int, offset: int, size: int, stop: threading.Event | None) -> tuple:
        """Run one block of PU `pu` on a worker rank; blocks until its reply."""
        reply: queue.SimpleQueue = queue.SimpleQueue()
        self.requests.put(_Rec(next(self._keys), pu, offset, size, reply))
        while True:
            try:
                msg = reply.get(timeout=0.05)
            except queue.Empty:
                if (stop is not None and stop.is_set()) or self.halt.is_set():
                    raise WpartRuntimeError("the run was stopped while the block was on a worker rank") from None
                continue
            if msg[0] == "done":
                return msg[1:]
            raise msg[1]

    # -- the hub thread ------------------------------------------------------------------
    def run(self) -> None:
        nap = 0.0
        beat = time.perf_counter()
        try:
            while not self.halt.is_set():
                busy = False
                if self.heartbeat is not None and time.perf_counter() - beat >= self.heartbeat:
                    beat = time.perf_counter()
                    for r in sorted(self.alive):  # the worker ranks watch the root as well
                        self.sends.append(self.comm.isend(("beat",), dest=r, tag=_TAG_CTRL))
                while True:
                    try:
                        rec = self.requests.get_nowait()
                    except queue.Empty:
                        break
                    self._route(rec)
                    busy = True
                while True:
                    got = _probe(self.comm, _TAG_REPLY)
                    if got is None:
                        break
                    self._handle(*got)
                    busy = True
                self._deadlines()
                if self.sends:
                    self.sends = [r for r in self.sends if not r.Test()]
                nap = 0.0 if busy else min(self.poll, max(2 * nap, 2e-5))
                if nap:  # idle: wait for a PU thread's request, at most `nap`
                    try:
                        self._route(self.requests.get(timeout=nap))
                        nap = 0.0
                    except queue.Empty:
                        pass
        except BaseException as exc:  # noqa: BLE001  -- every waiting PU thread must hear of it
            self.crash = exc
            for rec in list(self.inflight.values()):
                rec.reply.put(("error", WpartRuntimeError(f"the MPI hub failed: {type(exc).__name__}: {exc}")))
            self.inflight.clear()
            self.halt.set()

    def _load(self, rank: int) -> int:
        return sum(1 for r in self.inflight.values() if r.rank == rank)

    def _route(self, rec: _Rec) -> None:
        rank, slot = self.home[rec.pu]
        if rank not in self.alive:
            if not self.alive:
                rec.reply.put(("error", RankFailedError(
                    f"no worker rank is left to run block [{rec.offset}, {rec.offset + rec.size}) "
                    f"(failed ranks: {self.failed})", rank, [(rec.offset, rec.size)], "no rank left", rec.pu)))
                return
            rank = min(sorted(self.alive), key=self._load)  # the least loaded survivor
            loads = [sum(1 for r in self.inflight.values() if r.rank == rank and r.slot == s)
                     for s in range(self.slots)]
            slot = int(np.argmin(loads))
        err = self.slot_error.get((rank, slot))
        if err is not None:
            rec.reply.put(("error", WpartRuntimeError(f"on rank {rank}: {err}")))
            return
        now = time.perf_counter()
        if self._load(rank) == 0:
            self.busy_since[rank] = now
        rec.rank, rec.slot, rec.t_sent = rank, slot, now
        self.inflight[rec.key] = rec
        self.sends.append(self.comm.isend(("block", slot, rec.key, rec.offset, rec.size), dest=rank, tag=_TAG_CTRL))

    def _handle(self, src: int, msg: tuple) -> None:
        if src not in self.alive:
            return  # a late word from a rank declared failed: its blocks went elsewhere
        now = time.perf_counter()
        self.last_beat[src] = now
        kind = msg[0]
        if kind != "beat":
            self.last_heard[src] = now
        if kind == "done":
            _, key, t_xfer, t_comp, payload = msg
            rec = self.inflight.get(key)
            if rec is None or rec.rank != src:
                return
            del self.inflight[key]
            self.done_rank[(rec.offset, rec.size)] = src
            rec.reply.put(("done", src, t_xfer, t_comp, payload))
        elif kind == "error":
            _, key, slot, text = msg
            rec = self.inflight.pop(key, None) if key is not None else None
            if rec is not None:
                rec.reply.put(("error", WpartRuntimeError(f"on rank {src}: {text}")))
            else:  # the local worker failed at start-up: every block of that slot fails
                self.slot_error[(src, slot)] = text
                for k, r in list(self.inflight.items()):
                    if r.rank == src and r.slot == slot:
                        del self.inflight[k]
                        r.reply.put(("error", WpartRuntimeError(f"on rank {src}: {text}")))

    def _deadlines(self) -> None:
        now = time.perf_counter()
        for rank in sorted(self.alive):
            if self._load(rank) == 0:
                continue
            since = self.busy_since.get(rank, now)
            silent = now - max(since, self.last_heard.get(rank, -math.inf))
            if silent > self.timeout:
                self._fail(rank, f"no message for {silent:.3g} s while holding blocks (timeout={self.timeout:g} s): "
                                 f"the rank died or hangs")
            elif self.heartbeat is not None:
                quiet = now - max(since, self.last_beat.get(rank, -math.inf))
                if quiet > _MISSED_BEATS * self.heartbeat:
                    self._fail(rank, f"no heartbeat for {quiet:.3g} s while holding blocks "
                                     f"(heartbeat={self.heartbeat:g} s): the rank died")

    def _fail(self, rank: int, reason: str) -> None:
        self.alive.discard(rank)
        self.failed.append(rank)
        lost = sorted((r for r in self.inflight.values() if r.rank == rank), key=lambda r: r.key)
        for r in lost:
            del self.inflight[r.key]
        if self.on_failure == "reissue" and self.alive:
            for r in lost:
                self._route(r)
                self.reissued.append((r.offset, r.size, rank, r.rank))
            return
        blocks = ", ".join(f"[{r.offset}, {r.offset + r.size})" for r in lost)
        pus = sorted({p for p, (rk, _) in enumerate(self.home) if rk == rank})
        why = "on_rank_failure='error'" if self.on_failure == "error" else "no worker rank is left"
        err = RankFailedError(
            f"worker rank {rank} (PUs {pus}) failed: {reason}; {why}; lost blocks (offset, size): "
            f"{[(r.offset, r.size) for r in lost]} = {blocks}",
            rank, [(r.offset, r.size) for r in lost], reason, lost[0].pu if lost else -1)
        for r in lost:
            r.reply.put(("error", err))


class RankWorker(Worker):
    """The root's proxy of one PU that lives on a worker rank (made by :func:`run_mpi`).

    Its blocks go to the rank through the root's MPI hub; the rank's kernel time is the
    block's ``t_comp``, the rest of the round trip (messages, moving the results, storing
    them in the root's task) its ``t_xfer``, as for :class:`ProcessWorker`.
    """

    def __init__(self, hub: _Hub, pu: int, rank: int, desc: str) -> None:
        super().__init__()
        self._hub, self.pu, self.rank, self.desc = hub, pu, rank, desc

    def _check_task(self, task: Task | None) -> None:
        pass  # each worker rank checks its own worker against its own task

    def _open(self, task: Task | None, pu: int) -> dict:
        return {"stop": getattr(threading.current_thread(), "stop", None)}

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        t0 = time.perf_counter()
        _, t_xfer, t_comp, payload = self._hub.execute(self.pu, offset, size, st["stop"])
        if task is not None:
            task._proc_store(offset, size, payload)
        return max(time.perf_counter() - t0 - t_comp, 0.0), t_comp

    def _desc(self) -> str:
        return f"rank {self.rank}: {self.desc}"

    def __repr__(self) -> str:
        return f"RankWorker(pu={self.pu}, rank={self.rank}, {self.desc})"


# ====================================================================== a worker rank ====


class _Blk(NamedTuple):
    key: int
    offset: int
    size: int
    block_id: int


def _serve(comm: Any, root: int, task: Task | None, workers: list[Worker], poll: float,
           heartbeat: float | None = None) -> dict:
    """A worker rank: run the blocks the root sends on local PU threads until told to stop."""
    events: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()
    pus = [_PU(j, w, task, events, stop, time.perf_counter()) for j, w in enumerate(workers)]
    for th in pus:
        th.start()
    sends: list = []
    n_blocks = n_elems = 0
    nap = 0.0
    failed = False
    run_ok = True
    ev = None
    beat = time.perf_counter()
    last_root: float | None = None  # the root's heartbeats are watched once it has spoken
    root_quiet = 0.0
    wait = 1.0
    try:
        while True:
            busy = False
            now = time.perf_counter()
            if heartbeat is not None:
                if now - beat >= heartbeat:
                    beat = now
                    sends.append(comm.isend(("beat",), dest=root, tag=_TAG_REPLY))
                if last_root is not None and now - last_root > _MISSED_BEATS * heartbeat:
                    root_quiet = now - last_root
                    break
            got = _probe(comm, _TAG_CTRL, root)
            if got is not None:
                msg = got[1]
                busy = True
                last_root = time.perf_counter()
                if msg[0] == "stop":
                    failed = bool(msg[1])
                    run_ok = bool(msg[2]) if len(msg) > 2 else True
                    break
                if msg[0] == "block":
                    _, slot, key, off, size = msg
                    pus[slot].inbox.put(_Blk(key, off, size, key))
            while True:
                if ev is None:
                    try:
                        ev = events.get_nowait()
                    except queue.Empty:
                        break
                busy = True
                if ev[0] == "done":
                    _, j, a, _t_start, t_xfer, t_comp, _t_end = ev
                    payload = task._block_payload(a.offset, a.size) if task is not None else None
                    sends.append(comm.isend(("done", a.key, t_xfer, t_comp, payload), dest=root, tag=_TAG_REPLY))
                    n_blocks += 1
                    n_elems += a.size
                else:
                    _, j, a, exc = ev
                    text = f"PU slot {j} ({workers[j]._desc()}): {type(exc).__name__}: {exc}"
                    sends.append(comm.isend(("error", a.key if a is not None else None, j, text),
                                            dest=root, tag=_TAG_REPLY))
                ev = None
            if sends:
                sends = [r for r in sends if not r.Test()]
            # idle: wait for a local completion, at most `nap`; keep polling fast while a
            # result is still on its way (a large message moves only when both sides poll)
            nap = 0.0 if busy else min(poll, max(2 * nap, 2e-5)) if not sends else 2e-5
            if nap:
                try:
                    ev = events.get(timeout=nap)
                    nap = 0.0
                except queue.Empty:
                    pass
    except KeyboardInterrupt:
        wait = _INTERRUPT_WAIT  # Ctrl-C: the (daemon) PU threads are not waited for
        raise
    finally:
        stop.set()
        for th in pus:
            th.inbox.put(_STOP)
        deadline = time.perf_counter() + wait
        for th in pus:
            th.join(max(0.0, deadline - time.perf_counter()))
    if root_quiet:
        _arm_exit(comm, root, [], 1, 0.0)
        reason = (f"no message from the root for {root_quiet:.3g} s (heartbeat={heartbeat:g} s): "
                  f"the root died or hangs")
        raise RankFailedError(f"root rank {root} failed: {reason}; worker rank {comm.Get_rank()} stops "
                              f"after {n_blocks} blocks", root, [], reason)
    summary = {"rank": comm.Get_rank(), "blocks": n_blocks, "elements": n_elems, "failed_run": failed,
               "run_ok": run_ok}
    _wait_all(sends + [comm.isend(("bye", summary), dest=root, tag=_TAG_REPLY)], 5.0)
    return summary


def _wait_all(reqs: list, limit: float) -> bool:
    deadline = time.perf_counter() + limit
    while reqs:
        reqs = [r for r in reqs if not r.Test()]
        if reqs and time.perf_counter() > deadline:
            return False
        if reqs:
            time.sleep(1e-3)
    return True


# ====================================================================== leaving the job ====

_EXIT: dict[str, Any] = {}
#: seconds a rank waits for the others after a Ctrl-C (KeyboardInterrupt) before it leaves
_INTERRUPT_WAIT = 0.05
_GONE: dict[int, set[int]] = {}  # per communicator handle: ranks failed in an earlier run


def _at_exit() -> None:
    """After a rank failure, MPI_Finalize could wait forever for the failed rank. The
    survivors tell the root they leave and end without it; the root waits for them (bounded),
    then ends the job with MPI_Abort, which also stops a rank that hangs."""
    st = _EXIT.get("state")
    if st is None:
        return
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:  # noqa: BLE001
            pass
    comm, root = st["comm"], st["root"]
    if comm.Get_rank() == root:
        waiting, deadline = set(st["survivors"]), time.perf_counter() + st["wait"]
        while waiting and time.perf_counter() < deadline:
            got = _probe(comm, _TAG_REPLY + 1)
            if got is None:
                time.sleep(1e-3)
                continue
            waiting.discard(got[0])
        comm.Abort(int(st["code"]))
    else:
        _wait_all([comm.isend("exiting", dest=root, tag=_TAG_REPLY + 1)], st["wait"])
        os._exit(int(st["code"]))


def _arm_exit(comm: Any, root: int, survivors: list[int], code: int, wait: float) -> None:
    if "state" not in _EXIT:
        atexit.register(_at_exit)
    _EXIT["state"] = {"comm": comm, "root": root, "survivors": survivors, "code": code, "wait": wait}


# ============================================================================ run_mpi ====


def _local_workers(worker: Any, rank: int, k: int) -> list[Worker]:
    if isinstance(worker, Worker):
        return [worker] * k  # a worker holds settings only; each PU thread keeps its own state
    if isinstance(worker, Sequence) and not isinstance(worker, (str, bytes)):
        ws = list(worker)
        if len(ws) != k:
            raise WpartValueError(f"`worker` as a sequence needs one worker per PU of a rank ({k}), got {len(ws)}")
    elif callable(worker):
        ws = [worker(rank, j) for j in range(k)]
    else:
        raise WpartTypeError(f"`worker` must be a Worker, a sequence of them or a factory (rank, slot) -> Worker, "
                        f"got {type(worker).__name__}")
    for j, w in enumerate(ws):
        if not isinstance(w, Worker):
            raise WpartTypeError(f"`worker` gave {type(w).__name__} for rank {rank}, slot {j}: not a wpart.dynamic worker")
    return ws


def _local_task(task: Any) -> Task | None:
    if task is None or isinstance(task, Task):
        return task
    if callable(task):
        t = task()
        if t is not None and not isinstance(t, Task):
            raise WpartTypeError(f"the task factory returned {type(t).__name__}, not a wpart.dynamic task")
        return t
    raise WpartTypeError(f"`task` must be a wpart.dynamic task, a factory () -> task, or None, got {type(task).__name__}")


def _recv_all(comm: Any, ranks: set[int], kind: str, limit: float) -> tuple[dict[int, tuple], set[int]]:
    """Collect one `kind` message from each of `ranks`; a rank's other messages on the reply tag
    before it (heartbeats, late results) are dropped. Only the ranks still awaited are read: a
    rank that has answered may already have sent the next exchange's message (its ``ready``
    for a following run after its ``bye``), which must stay queued for that exchange."""
    got: dict[int, tuple] = {}
    deadline = time.perf_counter() + limit
    while len(got) < len(ranks) and time.perf_counter() < deadline:
        hit = False
        for src in sorted(set(ranks) - set(got)):
            one = _probe(comm, _TAG_REPLY, src)
            if one is not None:
                hit = True
                if one[1][0] == kind:
                    got[src] = one[1]
        if not hit:
            time.sleep(1e-3)
    return got, set(ranks) - set(got)


def run_mpi(
    balancer: Any,
    task: Task | Callable[[], Task] | None,
    worker: Worker | Sequence[Worker] | Callable[[int, int], Worker],
    *,
    comm: Any = None,
    root: int = 0,
    pus_per_rank: int = 1,
    timeout: float = 60.0,
    heartbeat: float | str | None = "auto",
    on_rank_failure: str = "reissue",
    time_limit: float | None = None,
    startup_timeout: float = 120.0,
    eval_cost: float | None = None,
    progress: bool | Callable[[int, int], Any] = False,
    poll: float = 2e-4,
) -> MPIRunResult | dict:
    """Run a balancer on one MPI rank against workers on the other ranks.

    Collective: every rank of `comm` calls it with the same `pus_per_rank`, `root`,
    `heartbeat` and `poll` (the other options matter on the root only). The root runs `balancer` with the driver of
    :func:`wpart.dynamic.run` (same decisions, same trace); PU ``p`` lives on the
    ``p // pus_per_rank``-th non-root rank, as its local PU ``p % pus_per_rank``. Each worker
    rank runs its blocks on its own copy of the task and sends the results back, where they
    are stored into the root's task (its ``C``, ``labels``, :attr:`Task.coverage`).

    Parameters
    ----------
    balancer : Balancer
        Used on the root only (other ranks may pass None); not started, with
        ``m == (comm.size - 1) * pus_per_rank``.
    task : Task, callable () -> Task, or None
        Each rank's own copy: a task object built on every rank (the same inputs
        everywhere, e.g. from one seed or a file), or a factory each rank calls once.
        None only with :class:`CallableWorker`.
    worker : Worker, sequence of Worker, or callable (rank, slot) -> Worker
        The local worker(s) of a worker rank: one worker used for every slot, one per slot,
        or a factory (heterogeneous ranks: ``lambda r, j: ThreadWorker(throttle=...)``).
    comm : mpi4py communicator, optional
        Default ``MPI.COMM_WORLD``; at least 2 ranks.
    root : int, default 0
        The rank that runs the balancer (it runs no block).
    pus_per_rank : int, default 1
        PUs served by each worker rank (each on its own thread there).
    timeout : float or None, default 60
        The fault-detection deadline: seconds a worker rank that holds blocks may stay
        silent (no completion) before it is declared failed (dead or hung). Must exceed the
        longest block's duration. None: no deadline (a hung rank is never detected; the
        shutdown waits then last at most 60 s).
    heartbeat : float, "auto" or None, default "auto"
        Worker ranks send a heartbeat every `heartbeat` seconds (``"auto"``: every 2 s), and a
        rank holding blocks
        whose heartbeats stop for 5 periods is declared failed (died) without waiting for
        `timeout`: fast detection of dead ranks when blocks are long. A rank that hangs
        inside a block but keeps beating is still caught by `timeout`. The root beats too:
        a worker rank that hears nothing from it for 5 periods raises
        :class:`RankFailedError` (and its process ends with status 1 at exit) instead of
        waiting forever. None: no heartbeat (a dead root then leaves the workers waiting).
    on_rank_failure : {"reissue", "error"}, default "reissue"
        What a failed rank does to the run; see Notes.
    time_limit : float, optional
        Seconds for the whole run (None: no limit). When the run has not finished by then it
        is stopped and the result comes back with ``status == "time_limit"`` (the blocks
        finished so far; ``success`` is False).
    startup_timeout : float, default 120
        Fault-detection deadline of the start-up: seconds the root waits for every worker
        rank to build its task and workers.
    eval_cost, progress
        As for :func:`wpart.dynamic.run`.
    poll : float, default 0.0002
        Longest pause of the polling loops (the root's hub and each worker rank) when idle;
        they poll back-to-back while messages flow.

    Returns
    -------
    MPIRunResult or dict
        On the root: the result (every field of :class:`RunResult`, plus the ranks). On a
        worker rank: a summary ``{"rank", "blocks", "elements", "failed_run", "run_ok"}``
        (``failed_run``: a rank failed during the run; ``run_ok``: the root finished it).

    Raises
    ------
    RankFailedError
        On the root: a worker rank failed and ``on_rank_failure="error"`` (or no rank was
        left); the message names the rank and its lost blocks ``(offset, size)``. On a
        worker rank, with `heartbeat`: the root fell silent.
    WorkerError
        On the root: a worker raised on its rank (named in the message), as with :func:`run`.
    wpart.WpartValueError, wpart.WpartTypeError
        Bad arguments (raised on the root; the worker ranks are released).

    Notes
    -----
    **Faults.** A rank is *failed* when it holds blocks and sends no result for `timeout`
    seconds (or, with `heartbeat`, no heartbeat for 5 periods), whether it died or hangs. With ``"reissue"`` the blocks it held are sent to the
    least loaded surviving rank, and every later block the balancer gives to its PUs is run
    by survivors too (the balancer keeps its PUs and sees them slow down). Results only come
    from the rank a block was last sent to, and a failed rank's late messages are dropped, so
    no element is lost and none is stored twice (:attr:`Task.coverage` stays all ones).
    With ``"error"`` (or when no rank is left) the root raises :class:`RankFailedError`
    naming the lost blocks. Either way the job cannot end with ``MPI_Finalize`` (it would wait
    for the failed rank): at exit the survivors notify the root and leave, and the root ends
    the job with ``MPI_Abort`` (error code 0 after a completed run, 1 after an error), which
    also stops a rank that hangs. Open MPI kills the whole job when a rank dies unless
    ``mpirun --enable-recovery`` is given.

    A later run on the same communicator skips the ranks that failed before (with
    ``"reissue"``; with ``"error"`` it raises at once).

    Real runs are not reproducible to the bit; the decisions of a balancer given the same
    completion order are.
    """
    from mpi4py import MPI

    comm = MPI.COMM_WORLD if comm is None else comm
    size, me = comm.Get_size(), comm.Get_rank()
    k = as_int(pus_per_rank, "pus_per_rank", minimum=1)
    root = as_int(root, "root", minimum=0)
    if root >= size:
        raise WpartValueError(f"`root` must be a rank of `comm` (size {size}), got {root}")
    on_rank_failure = choice(on_rank_failure, "on_rank_failure", _FAILURES)
    timeout = as_timeout(timeout)
    timeout = math.inf if timeout is None else timeout
    startup_timeout = as_timeout(startup_timeout, "startup_timeout")
    startup_timeout = math.inf if startup_timeout is None else startup_timeout
    poll = as_float(poll, "poll", minimum=0.0, strict_minimum=True)
    if isinstance(heartbeat, str):
        heartbeat = {"auto": AUTO_HEARTBEAT}[choice(heartbeat, "heartbeat", ("auto",))]
    heartbeat = None if heartbeat is None else as_float(heartbeat, "heartbeat", minimum=0.0, strict_minimum=True)
    if size < 2:
        raise WpartValueError(f"run_mpi needs at least 2 ranks in `comm` (the root and one worker rank), got {size}")
    if me != root:
        return _worker_rank(comm, root, task, worker, k, poll, heartbeat)
    return _root_rank(comm, root, balancer, task, k, timeout, on_rank_failure, time_limit,
                      startup_timeout, eval_cost, progress, poll, heartbeat)


def _worker_rank(comm: Any, root: int, task: Any, worker: Any, k: int, poll: float,
                 heartbeat: float | None) -> dict:
    me = comm.Get_rank()
    try:
        t = _local_task(task)
        ws = _local_workers(worker, me, k)
        for w in ws:
            w._check_task(t)
    except Exception as exc:  # noqa: BLE001  -- reported to the root, which stops the run
        _wait_all([comm.isend(("ready", None, f"{type(exc).__name__}: {exc}"), dest=root, tag=_TAG_REPLY)], 30.0)
        t, ws = None, []
    else:
        _wait_all([comm.isend(("ready", [w._desc() for w in ws], None), dest=root, tag=_TAG_REPLY)], 30.0)
    try:
        summary = _serve(comm, root, t, ws, poll, heartbeat)
    except KeyboardInterrupt:  # leave without MPI_Finalize (it would wait for the root)
        _arm_exit(comm, root, [], 1, _INTERRUPT_WAIT)
        raise
    if summary["failed_run"]:  # leave without MPI_Finalize; the status says how the run ended
        _arm_exit(comm, root, [], 0 if summary["run_ok"] else 1, 10.0)
    return summary


def _root_rank(comm: Any, root: int, balancer: Any, task: Any, k: int, timeout: float, on_failure: str,
               time_limit: Any, startup_timeout: float, eval_cost: Any, progress: Any, poll: float,
               heartbeat: float | None) -> MPIRunResult:
    from .._progress import progress_hook

    others = [r for r in range(comm.Get_size()) if r != root]
    gone = _GONE.setdefault(comm.py2f(), set())
    alive = set(others) - gone
    hub: _Hub | None = None
    ok = interrupted = False
    try:
        t = _local_task(task)
        if gone and (on_failure == "error" or not alive):
            raise RankFailedError(f"worker ranks {sorted(gone)} failed in an earlier run on this communicator",
                                  min(gone), [], "failed earlier")
        ready, missing = _recv_all(comm, alive, "ready", startup_timeout)
        bad = {r: m[2] for r, m in ready.items() if m[2] is not None}
        if bad:
            r0 = min(bad)
            raise WorkerError(f"worker rank {r0} could not start: {bad[r0]}", -1, -1)
        if missing:
            reason = f"no word within startup_timeout={startup_timeout:g} s"
            if on_failure == "error" or missing == alive:
                raise RankFailedError(f"worker ranks {sorted(missing)} did not start: {reason}",
                                      min(missing), [], reason)
            alive -= missing
        home = [(r, j) for r in others for j in range(k)]
        descs = {r: ready[r][1] if r in ready else ["(did not start)"] * k for r in others}
        hub = _Hub(comm, home, alive, k, timeout, on_failure, poll, heartbeat)
        hub.failed.extend(sorted(gone | missing))
        proxies = [RankWorker(hub, p, r, descs[r][j]) for p, (r, j) in enumerate(home)]
        n_pu = protocol_size(balancer, "m", "n_pu", len(proxies))
        if n_pu != len(proxies):
            raise WpartValueError(f"`balancer` has m = {n_pu} PUs but the communicator gives {len(proxies)} "
                             f"({len(others)} worker ranks x pus_per_rank={k})")
        workers, n_pu, total, eval_cost, time_limit = _run_iv(balancer, t, proxies, eval_cost, time_limit)
        progress = cancelling(as_progress(progress))
        if total is None:
            total = t.n if t is not None else 0
        hub.start()
        try:
            with progress_hook(progress, total=total, desc=f"run_mpi {getattr(balancer, 'name', '')}") as hook:
                res = _drive(balancer, t, workers, n_pu, total, eval_cost, time_limit, hook)
        except WorkerError as exc:
            if isinstance(exc.__cause__, RankFailedError):
                raise exc.__cause__ from None
            raise
        if hub.crash is not None:
            raise WpartRuntimeError(f"the MPI hub failed: {hub.crash!r}") from hub.crash
        ok = True
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        failed = set(hub.failed) if hub is not None else set(others) - alive
        if hub is not None and hub.is_alive():
            hub.halt.set()
            hub.join()
        survivors = sorted(set(others) - failed)
        wait = timeout if math.isfinite(timeout) else 60.0
        if interrupted:  # Ctrl-C: tell the ranks to stop, do not wait for them (MPI_Abort ends them)
            wait = min(wait, _INTERRUPT_WAIT)
        _wait_all([comm.isend(("stop", bool(failed), ok), dest=r, tag=_TAG_CTRL) for r in survivors], wait)
        _, silent = _recv_all(comm, set(survivors), "bye", wait)
        gone |= failed | silent
        if failed or silent:
            _arm_exit(comm, root, sorted(set(survivors) - silent), 0 if ok else 1, wait)
    return _mpi_result(res, hub, home, root)


def _mpi_result(res: RunResult, hub: _Hub, home: list[tuple[int, int]], root: int) -> MPIRunResult:
    base = {f.name: getattr(res, f.name) for f in dataclasses.fields(RunResult)}
    tr = res.trace
    block_rank = np.array([hub.done_rank.get((int(o), int(s)), -1) for o, s in zip(tr["offset"], tr["size"])],
                          dtype=np.int64)
    return MPIRunResult(**base, ranks=np.array([r for r, _ in home], dtype=np.int64), block_rank=block_rank,
                        failed_ranks=list(hub.failed), reissued=list(hub.reissued), root=root)
