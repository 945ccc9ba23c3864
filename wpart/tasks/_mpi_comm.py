"""MPI messaging with deadlines for the distributed engines (mpi4py over Open MPI).

Every wait is bounded: a point-to-point receive, a send and every collective poll their
nonblocking request until a deadline, so a rank that died or hangs turns into
:class:`RankFailure` (naming the rank and what was awaited) instead of a hang. Objects travel
pickled in byte buffers so that the bytes sent are counted.
"""

from __future__ import annotations
from .._errors import WpartRuntimeError

import pickle
import time
from typing import Any

import numpy as np

__all__ = ["Channel", "RankFailure", "TAGS"]

#: Message tags of the CCM-LB protocol.
TAGS = {"TURN": 11, "GOSSIP": 14, "GATHER": 15, "DIR": 16, "PROP": 17, "OUTSET": 18,
        "PING": 19, "PONG": 20, "ANSWER": 21, "PICK": 22}


class RankFailure(WpartRuntimeError):
    """A peer rank did not answer in time (it died or hangs), or sent something unexpected."""


class Channel:
    """Point-to-point and collective operations of one rank, each bounded by `timeout` s."""

    def __init__(self, comm: Any, timeout: float):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = float(timeout)
        self.sent: dict = {}        # kind -> messages sent
        self.bytes_sent = 0
        self._pending: list = []    # outstanding sends (request, buffer)
        self._parity: dict = {}     # per tag of :meth:`sparse`: which of its two MPI tags

    # ------------------------------------------------------------------ waiting
    def _wait(self, test, what: str, peer: int | None = None, patience: float = 1.0):
        deadline = time.monotonic() + self.timeout * patience
        spins = 0
        while True:
            r = test()
            if r is not None and r is not False:
                return r
            if spins % 64 == 0:
                self._answer_pings()
            if time.monotonic() > deadline:
                raise RankFailure(self._culprit(what, peer, self.timeout * patience))
            spins += 1  # spin briefly, then yield, then sleep at most 0.5 ms (oversubscribed)
            if spins > 200:
                time.sleep(min(0.0005, 2e-6 * spins))
            elif spins > 20:
                time.sleep(0)

    # ------------------------------------------------------------------ naming the culprit
    def _answer_pings(self) -> None:
        """Answer every waiting ``PING`` (a rank that timed out asks who is still alive):
        every rank does so while it waits, so the rank that waited can name the one that
        does not answer."""
        MPI = self.MPI
        while True:
            st = MPI.Status()
            msg = self.comm.improbe(source=MPI.ANY_SOURCE, tag=TAGS["PING"], status=st)
            if msg is None:
                return
            buf = bytearray(st.Get_count(MPI.BYTE))
            msg.Recv([buf, MPI.BYTE])
            self.send(st.Get_source(), "PONG", pickle.loads(buf), "PONG")

    def _culprit(self, what: str, peer: int | None, waited: float) -> str:
        """The message of a missed deadline, naming the ranks that do not answer a ping
        within a grace time (every rank answers while it waits; a stopped, dead or
        busy-for-too-long rank does not)."""
        MPI = self.MPI
        grace = max(1.0, min(self.timeout, 5.0))
        asked = [q for q in range(self.size) if q != self.rank]
        token = (self.rank, time.monotonic())
        for q in asked:
            self.send(q, "PING", token, "PING")
        alive: set = set()
        end = time.monotonic() + grace
        while time.monotonic() < end and len(alive) < len(asked):
            self._answer_pings()
            st = MPI.Status()
            msg = self.comm.improbe(source=MPI.ANY_SOURCE, tag=TAGS["PONG"], status=st)
            if msg is None:
                time.sleep(0.001)
                continue
            buf = bytearray(st.Get_count(MPI.BYTE))
            msg.Recv([buf, MPI.BYTE])
            if pickle.loads(buf) == token:
                alive.add(st.Get_source())
        silent = [q for q in asked if q not in alive]
        if peer is not None and peer >= 0 and peer in silent:
            silent = [peer] + [q for q in silent if q != peer]
        if silent:
            names = ", ".join(map(str, silent[:8])) + (" ..." if len(silent) > 8 else "")
            who = f"rank{'s' if len(silent) > 1 else ''} {names}"
            return (f"rank {self.rank}: no progress within {waited:g} s while waiting for "
                    f"{what}; {who} did not answer a ping within {grace:g} s: it died or hangs "
                    "(stopped, or busy past the deadline; the other ranks answered; raise "
                    "`timeout` if a step is this long)")
        who = f"rank {peer}" if peer is not None and peer >= 0 else "a peer rank"
        return (f"rank {self.rank}: no progress from {who} within {waited:g} s while waiting "
                f"for {what}, though every rank answered a ping: no rank died or hangs, but a "
                "rank's step is longer than `timeout` or the ranks disagree on the protocol "
                "(raise `timeout`)")

    def _flush(self) -> None:
        self._pending = [(r, b) for r, b in self._pending if not r.Test()]

    # ------------------------------------------------------------------ point to point
    def send(self, dest: int, tag: str, obj: Any, kind: str | None = None) -> None:
        buf = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        req = self.comm.Isend([buf, self.MPI.BYTE], dest=dest, tag=TAGS[tag])
        self._pending.append((req, buf))
        k = kind or tag
        self.sent[k] = self.sent.get(k, 0) + 1
        self.bytes_sent += len(buf)
        self._flush()

    def recv(self, source: int, tags: tuple, what: str, patience: float = 1.0,
             blame: int | None = None) -> tuple:
        """``(source, tag name, object)`` of the next message from `source` (-1: any) with
        one of `tags`, waiting up to ``patience * timeout`` (the error names `blame`, else
        `source`)."""
        MPI = self.MPI
        src = MPI.ANY_SOURCE if source < 0 else source
        names = {TAGS[t]: t for t in tags}

        def test():
            self._flush()
            for t in names:
                st = MPI.Status()
                msg = self.comm.improbe(source=src, tag=t, status=st)
                if msg is not None:
                    return msg, st
            return None

        msg, st = self._wait(test, what, source if blame is None else blame, patience)
        buf = bytearray(st.Get_count(MPI.BYTE))
        msg.Recv([buf, MPI.BYTE])
        return st.Get_source(), names[st.Get_tag()], pickle.loads(buf)

    def drain(self, what: str = "the last sends") -> None:
        """Wait until every send of this rank has been delivered."""
        self._wait(lambda: (self._flush(), not self._pending)[1], what)

    # ------------------------------------------------------------------ collectives
    def allreduce(self, x: float | int, op: str, what: str) -> float:
        MPI = self.MPI
        send = np.array([x], dtype=np.float64)
        out = np.empty(1, np.float64)
        req = self.comm.Iallreduce(send, out, op={"max": MPI.MAX, "sum": MPI.SUM,
                                                  "min": MPI.MIN}[op])
        self._wait(lambda: req.Test(), what)
        return float(out[0])

    def allreduce_vec(self, x, op: str, what: str) -> np.ndarray:
        """Elementwise allreduce of a few float64 (one collective)."""
        MPI = self.MPI
        send = np.ascontiguousarray(x, dtype=np.float64)
        out = np.empty_like(send)
        req = self.comm.Iallreduce(send, out, op={"max": MPI.MAX, "sum": MPI.SUM,
                                                  "min": MPI.MIN}[op])
        self._wait(lambda: req.Test(), what)
        return out

    def sparse(self, outbox: dict, tag: str, what: str, kind: str | None = None) -> list:
        """Send ``outbox[q]`` to each q and receive what the other ranks sent this rank with
        `tag`, without knowing who sends (no collective of size P: synchronous sends, then a
        nonblocking barrier entered once they are all received; it ends when every rank's
        sends are received). Returns ``[(source, object)]`` sorted by source. Successive calls
        with one `tag` alternate between two MPI tags, so that a rank already in the next
        call (its barrier done) never sends into this one."""
        MPI = self.MPI
        par = self._parity.get(tag, 0)
        self._parity[tag] = 1 - par
        mtag = TAGS[tag] + 100 * par
        reqs = []
        for q in sorted(outbox):
            buf = pickle.dumps(outbox[q], protocol=pickle.HIGHEST_PROTOCOL)
            reqs.append((self.comm.Issend([buf, MPI.BYTE], dest=q, tag=mtag), buf))
            k = kind or tag
            self.sent[k] = self.sent.get(k, 0) + 1
            self.bytes_sent += len(buf)
        got: list = []
        state = {"barrier": None}

        def test():
            self._flush()
            while True:
                st = MPI.Status()
                msg = self.comm.improbe(source=MPI.ANY_SOURCE, tag=mtag, status=st)
                if msg is None:
                    break
                buf = bytearray(st.Get_count(MPI.BYTE))
                msg.Recv([buf, MPI.BYTE])
                got.append((st.Get_source(), pickle.loads(buf)))
            if state["barrier"] is None:
                if all(r.Test() for r, _ in reqs):
                    state["barrier"] = self.comm.Ibarrier()
                return None
            return True if state["barrier"].Test() else None

        self._wait(test, what)
        return sorted(got, key=lambda e: e[0])

    def allgather(self, row: np.ndarray, what: str, kind: str = "ALLGATHER") -> np.ndarray:
        """Every rank's `row` (float64, the same length on every rank), stacked by rank;
        counted as one message of `kind` and the ``(size - 1) * row`` bytes a rank sends."""
        send = np.ascontiguousarray(row, dtype=np.float64)
        out = np.empty((self.size, send.size), np.float64)
        req = self.comm.Iallgather(send, out)
        self._wait(lambda: req.Test(), what)
        self.sent[kind] = self.sent.get(kind, 0) + 1
        self.bytes_sent += (self.size - 1) * send.nbytes
        return out

    def alltoall_counts(self, counts: np.ndarray, what: str) -> np.ndarray:
        send = np.ascontiguousarray(counts, dtype=np.int64)
        out = np.empty(self.size, np.int64)
        req = self.comm.Ialltoall(send, out)
        self._wait(lambda: req.Test(), what)
        return out

    def exchange(self, outbox: dict, tag: str, what: str, kind: str | None = None,
                 kinds: dict | None = None) -> list:
        """Sparse all-to-all of objects: send ``outbox[q]`` to each q; returns the received
        ``[(source, object)]`` sorted by source. One bounded collective fixes the counts.
        Messages are counted as `kind` (or ``kinds[q]`` per destination)."""
        counts = np.zeros(self.size, np.int64)
        for q in outbox:
            counts[q] = 1
        incoming = self.alltoall_counts(counts, what)
        for q in sorted(outbox):
            self.send(q, tag, outbox[q], kinds[q] if kinds else kind)
        got = [self.recv(-1, (tag,), what)[::2] for _ in range(int(incoming.sum()))]
        return sorted(got, key=lambda e: e[0])

    def barrier(self, what: str) -> None:
        req = self.comm.Ibarrier()
        self._wait(lambda: req.Test(), what)
