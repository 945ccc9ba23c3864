"""A slow pure-Python reference of the wpart.dynamic simulator (spec 001 §5.3-5.6, §5.9; P13).

Written from the spec, with the conventions the spec leaves open (stream hashing, event order,
what is reported to the balancer) read from the C sources and re-implemented here; nothing of
the C library is called. It covers

* the noise: xoshiro256** seeded through SplitMix64, one stream per ``(seed, pu, purpose, j)``,
  log-normal by Box-Muller on the stream's first two draws (``csrc/dynamic/device.c``);
* the devices: affine, saturating and power curves (with the ``mem_cap`` modifier), transfer
  hops with ``setup_bytes`` on a PU's first block, compute noise, outliers and fixed slowdown
  schedules integrated over time;
* the event engine: a heap keyed by ``(time, seq)``, a FIFO per PU, evaluation holds,
  ``EVAL_DONE`` at ``t + c_eval``, termination and the trace (``csrc/dynamic/sim.c``);
* Greedy (spec 001 §3.1). PLB-HAC lives in :mod:`tests.oracles.dynamic_ref_plbhac`.

Conventions mirrored from the C engine (all consistent with the spec):

* the noise index ``j`` of a block is the number of blocks *started* before it on its PU;
* a PU's next queued block starts at a completion before the balancer hears of it;
* at ``EVAL_DONE``, blocks queued while the trigger was held start before the actions that
  the evaluation returns are processed; the trace is in order of assignment;
* the ``t_comp`` passed to the balancer is ``t_end - t_comp_start`` as seen by the clock (not
  the nominal duration), which is what a real driver measures.

The idle breakdown follows §5.6 literally: "eval" is waiting for one's own evaluation (an
engine hold), "starved" the cursor at ``W``, "barrier" being in the balancer's waiting set. The C
engine asks the balancer instead, and PLB-HAC answers "eval" for every PU released by the
evaluation that ends the training barrier (see test_plbhac_idle_breakdown).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "splitmix64",
    "noise_uniform",
    "noise_lognormal",
    "curve_time",
    "xfer_time",
    "RefBalancer",
    "RefGreedy",
    "simulate_ref",
    "RefResult",
    "TRACE_FIELDS",
]

M64 = (1 << 64) - 1
NOISE_COMP, NOISE_XFER, NOISE_OUTLIER = 0, 1, 2
TRAIN, REGULAR, GAP, OTHER = 0, 1, 2, 3
TRACE_FIELDS = (
    "pu", "block", "offset", "size", "kind", "vstep", "model_version", "t_assign",
    "t_xfer_start", "t_comp_start", "t_end", "pred_end", "t_xfer", "t_comp",
)  # fmt: skip


# ------------------------------------------------------------------------------ RNG (§5.9)
def splitmix64(h: int) -> tuple[int, int]:
    """One SplitMix64 step: returns (new state, output)."""
    h = (h + 0x9E3779B97F4A7C15) & M64
    z = h
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return h, z ^ (z >> 31)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & M64


class _Xoshiro:
    """xoshiro256** on Python ints."""

    def __init__(self, s: list[int]) -> None:
        self.s = s

    def next(self) -> int:
        s = self.s
        r = (_rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return r


def _stream(seed: int, pu: int, purpose: int, j: int) -> _Xoshiro:
    """The stream of key (seed, pu, purpose, j): the key folded in by SplitMix64 steps, then
    SplitMix64 fills the xoshiro state (device.c's convention)."""
    h, k = splitmix64(seed & M64)
    h, k = splitmix64(k ^ (((pu & 0xFFFFFFFF) * 0xD1B54A32D192ED03) & M64))
    h, k = splitmix64(k ^ (((purpose & 0xFFFFFFFF) * 0xABC98388FB8FAC03) & M64))
    h, k = splitmix64(k ^ (j & M64))
    h = k
    s = []
    for _ in range(4):
        h, v = splitmix64(h)
        s.append(v)
    return _Xoshiro(s)


def _u01(v: int) -> float:
    return (v >> 11) * 2.0**-53


def noise_uniform(seed: int, pu: int, purpose: int, j: int, k: int = 0) -> float:
    """Draw ``k`` (0 or 1) of stream (seed, pu, purpose, j), uniform on [0, 1)."""
    g = _stream(seed, pu, purpose, j)
    v = g.next()
    if k > 0:
        v = g.next()
    return _u01(v)


def noise_lognormal(seed: int, pu: int, purpose: int, j: int, sigma: float) -> float:
    """Mean-one log-normal factor exp(sigma z - sigma^2 / 2), z by Box-Muller."""
    if sigma == 0:
        return 1.0
    g = _stream(seed, pu, purpose, j)
    u1 = 1.0 - _u01(g.next())
    u2 = _u01(g.next())
    z = math.sqrt(-2.0 * math.log(u1)) * math.cos(6.283185307179586 * u2)
    return math.exp(sigma * z - 0.5 * sigma * sigma)


# ------------------------------------------------------------------------------ devices (§5.3)
def _raw_curve(c: Any, x: float) -> float:
    name = type(c).__name__
    if name == "Affine":
        return c.t0 + x / c.rate
    if name == "Saturating":
        e = -math.expm1(-x / c.bsat)
        return c.t0 + (x / (c.rate * e) if e > 0 else c.bsat / c.rate)
    if name == "Power":
        return c.t0 + c.c * x**c.beta
    raise NotImplementedError(f"reference: curve {name} not covered")


def curve_time(c: Any, x: float) -> float:
    """True compute time of a block of x elements (0 for x = 0), with the mem_cap modifier."""
    if x == 0:
        return 0.0
    t = _raw_curve(c, x)
    cap = c.mem_cap or 0.0
    if cap > 0 and c.mem_gamma != 0 and x > cap:
        tc = _raw_curve(c, cap)
        t = tc + (1.0 + c.mem_gamma) * (t - tc)
    return t


def xfer_time(dev: Any, x: float, first: bool) -> float:
    """sum over hops of lat + bytes / bw; setup bytes on the first block only."""
    if not dev.hops:
        return 0.0
    nbytes = dev.bytes_per_elem * x + (dev.setup_bytes if first else 0.0)
    t = 0.0
    for lat, bw in dev.hops:
        t += lat + nbytes / bw
    return t


_DEFAULT_SIGMA = {"cpu": 0.03, "gpu": 0.02, "phi": 0.04}


def _sigma(dev: Any) -> float:
    return _DEFAULT_SIGMA[dev.kind] if dev.sigma is None else float(dev.sigma)


# ------------------------------------------------------------------------------ balancers
@dataclass
class RefBalancer:
    """The common layer (cursor, exactly-once table, eval tokens) of every reference balancer.

    Actions are tuples ``("assign", pu, block_id, offset, size, kind, vstep, version, pred_end)``
    and ``("eval", trigger_pu, token)``.
    """

    n: int
    total: int
    cursor: int = 0
    completed: int = 0
    in_flight: int = 0
    blocks: list = field(default_factory=list)  # [pu, size, state]
    eval_in_flight: bool = False
    eval_token: int = 0
    next_token: int = 1
    n_evals: int = 0

    def assign(self, out: list, pu: int, size: int, quantum: int, kind: int, vstep: int,
               version: int, pred_end: float) -> int:
        rem = self.total - self.cursor
        if size <= 0 or rem <= 0:
            return 0
        size = min(size, rem)
        quantum = max(quantum, 1)
        if 0 < rem - size < quantum:
            size = rem  # never leave a sub-quantum sliver
        bid = len(self.blocks)
        out.append(("assign", pu, bid, self.cursor, size, kind, vstep, version, pred_end))
        self.blocks.append([pu, size, 1])
        self.cursor += size
        self.in_flight += 1
        return size

    def request_eval(self, out: list, trigger: int) -> int:
        assert not self.eval_in_flight, "a second evaluation in flight"
        tok = self.next_token
        self.next_token += 1
        self.eval_in_flight, self.eval_token = True, tok
        self.n_evals += 1
        out.append(("eval", trigger, tok))
        return tok

    def done(self) -> bool:
        return self.cursor == self.total and self.in_flight == 0

    # protocol -----------------------------------------------------------------------------
    def complete(self, pu: int, block: int, t_xfer: float, t_comp: float, now: float) -> list:
        rec = self.blocks[block]
        assert rec[0] == pu and rec[2] == 1, "completion of a block not in flight"
        rec[2] = 2
        self.completed += rec[1]
        self.in_flight -= 1
        return self.on_complete(pu, block, rec[1], t_xfer, t_comp, now)

    def eval_done(self, token: int, now: float) -> list:
        assert self.eval_in_flight and token == self.eval_token
        self.eval_in_flight = False
        if self.done():
            return []  # a pending result after the end is discarded
        return self.on_eval_done(token, now)

    def start(self, now: float) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def on_complete(self, pu, block, size, t_xfer, t_comp, now) -> list:  # noqa: ANN001
        raise NotImplementedError

    def eval_run(self, token: int) -> None:
        raise NotImplementedError

    def on_eval_done(self, token: int, now: float) -> list:
        raise NotImplementedError


class RefGreedy(RefBalancer):
    """Greedy(g), spec 001 §3.1: one piece per PU at t = 0 in PU order, then the next piece to
    whichever PU completes; the last piece is what remains."""

    def __init__(self, n: int, total: int, chunk: int = 1024) -> None:
        super().__init__(n, total)
        self.chunk = chunk

    def start(self, now: float) -> list:
        out: list = []
        for p in range(self.n):
            self.assign(out, p, self.chunk, 1, OTHER, 0, 0, math.nan)
        return out

    def on_complete(self, pu, block, size, t_xfer, t_comp, now) -> list:  # noqa: ANN001
        out: list = []
        self.assign(out, pu, self.chunk, 1, OTHER, 0, 0, math.nan)
        return out


# ------------------------------------------------------------------------------ the engine (§5.4)
_XFER_DONE, _COMP_DONE, _EVAL_DONE, _RATE = 0, 1, 2, 3
IB_BARRIER, IB_EVAL, IB_STARVED, IB_OTHER = 0, 1, 2, 3


@dataclass
class RefResult:
    """Trace (structured array with :data:`TRACE_FIELDS`), makespan and counters."""

    trace: np.ndarray
    makespan: float
    n_evals: int
    n_events: int
    busy: np.ndarray
    elements: np.ndarray
    idle_breakdown: np.ndarray  # (n, 4): barrier, eval, starved, other (spec §5.6)


class _PU:
    __slots__ = ("queue", "running", "held", "nexec", "s", "D", "rem", "t_last", "version",
                 "idle_since", "reason")

    def __init__(self, s: float) -> None:
        self.queue: list[list] = []
        self.running = 0
        self.held = 0
        self.nexec = 0
        self.s = s
        self.D = self.rem = self.t_last = 0.0
        self.version = 0
        self.idle_since = 0.0
        self.reason = IB_OTHER


def _slowdown(fl: list, p: int, t: float) -> float:
    s = 1.0
    for t0, t1, pu, fac in fl:
        if pu == p and t0 <= t < t1:
            s *= fac
    return s


def simulate_ref(platform: Any, bal: RefBalancer, *, seed: int = 0, eval_cost: float = 0.1,
                 eval_model: tuple[float, float] | None = None,
                 dispatch_overhead: float = 0.0) -> RefResult:
    """Run reference balancer ``bal`` on ``platform`` (a wpart.dynamic.Platform, read as data).

    An evaluation costs ``eval_cost``, or ``a + b * (blocks completed so far)`` with
    ``eval_model = (a, b)`` (spec §5.4 ``"model"``)."""
    if platform.onoff:
        raise NotImplementedError("reference: on/off interference not covered")
    devs = platform.devices
    n = len(devs)
    fl = [(float(a), float(b), int(p), float(f)) for a, b, p, f in platform.fluctuations]
    heap: list = []
    seq = [0]

    def push(t: float, typ: int, pu: int, arg: int) -> None:
        heapq.heappush(heap, (t, seq[0], typ, pu, arg))
        seq[0] += 1

    pus = [_PU(_slowdown(fl, p, 0.0)) for p in range(n)]
    recs: list[list] = []  # in order of assignment; fields as TRACE_FIELDS
    busy = np.zeros(n)
    elements = np.zeros(n, dtype=np.int64)
    idle = np.zeros((n, 4))

    def reason(p: int) -> int:
        """Spec §5.6: waiting for its own evaluation, data exhausted, held in the balancer's
        waiting set (a barrier), or anything else."""
        if pus[p].held > 0:
            return IB_EVAL
        if bal.cursor >= bal.total:
            return IB_STARVED
        if p in getattr(bal, "waiting", ()):
            return IB_BARRIER
        return IB_OTHER

    def idle_close(p: int, t: float) -> None:
        u = pus[p]
        if t > u.idle_since:
            idle[p, u.reason] += t - u.idle_since
        u.idle_since = t
    state = {"in_flight": 0, "evals": 0, "makespan": 0.0, "done_blocks": 0}
    for t0, t1, p, _ in fl:
        if t0 > 0:
            push(t0, _RATE, p, -1)
        if t1 > 0 and math.isfinite(t1):
            push(t1, _RATE, p, -1)

    def begin_compute(p: int, t: float) -> None:
        u = pus[p]
        u.running, u.rem, u.t_last = 2, u.D, t
        u.version += 1
        push(t + u.D * u.s, _COMP_DONE, p, u.version)

    def start_block(p: int, t: float) -> None:
        u, d = pus[p], devs[p]
        rc = u.queue[0]
        idle_close(p, t)
        idle[p, IB_OTHER] += dispatch_overhead
        j = u.nexec
        u.nexec += 1
        x = float(rc[3])
        tx = xfer_time(d, x, j == 0)
        if tx > 0 and d.sigma_xfer > 0:
            tx *= noise_lognormal(seed, p, NOISE_XFER, j, float(d.sigma_xfer))
        D = curve_time(d.curve, x)
        sg = _sigma(d)
        if sg > 0:
            D *= noise_lognormal(seed, p, NOISE_COMP, j, sg)
        if d.p_out > 0 and noise_uniform(seed, p, NOISE_OUTLIER, j, 0) < d.p_out:
            D *= d.f_out
        u.D = D
        rc[8] = t + dispatch_overhead
        rc[12] = tx
        rc[9] = rc[8] + tx
        if rc[9] > t:
            u.running = 1
            push(rc[9], _XFER_DONE, p, 0)
        else:
            begin_compute(p, t)

    def process(acts: list, t: float) -> None:
        for a in acts:
            if a[0] == "eval":
                _, trig, tok = a
                bal.eval_run(tok)
                for p in range(n):
                    if trig == -1 or p == trig:
                        pus[p].held += 1
                state["evals"] += 1
                c = eval_cost
                if eval_model is not None:
                    c = eval_model[0] + eval_model[1] * state["done_blocks"]
                push(t + c, _EVAL_DONE, trig, tok)
                continue
            _, p, bid, off, size, kind, vstep, ver, pred = a
            assert 0 <= p < n and size >= 1
            rc = [p, bid, off, size, kind, vstep, ver, t, math.nan, math.nan, math.nan, pred,
                  math.nan, math.nan]
            recs.append(rc)
            state["in_flight"] += 1
            u = pus[p]
            u.queue.append(rc)
            if u.running == 0 and u.held == 0:
                start_block(p, t)
        if not bal.done():  # idle reasons change only when the balancer or a hold changes
            for p in range(n):
                if pus[p].running == 0 and reason(p) != pus[p].reason:
                    idle_close(p, t)
                    pus[p].reason = reason(p)

    process(bal.start(0.0), 0.0)
    n_events = 0
    while True:
        if state["in_flight"] == 0 and state["evals"] == 0:
            assert bal.done(), "reference: stalled balancer"
            break
        t, _, typ, p, arg = heapq.heappop(heap)
        n_events += 1
        u = pus[p] if p >= 0 else None
        if typ == _COMP_DONE:
            if arg != u.version or u.running != 2:
                continue
            rc = u.queue.pop(0)
            rc[10] = t
            rc[13] = t - rc[9]
            busy[p] += rc[12] + rc[13]
            elements[p] += rc[3]
            state["makespan"] = max(state["makespan"], t)
            u.running = 0
            u.idle_since, u.reason = t, IB_OTHER
            state["in_flight"] -= 1
            state["done_blocks"] += 1
            if u.queue and u.held == 0:
                start_block(p, t)
            process(bal.complete(p, rc[1], rc[12], rc[13], t), t)
        elif typ == _XFER_DONE:
            begin_compute(p, t)
        elif typ == _EVAL_DONE:
            state["evals"] -= 1
            for q in range(n):
                if (p == -1 or q == p) and pus[q].held > 0:
                    pus[q].held -= 1
            acts = bal.eval_done(arg, t)
            for q in range(n):
                w = pus[q]
                if w.running == 0 and w.held == 0 and w.queue:
                    start_block(q, t)
            process(acts, t)
        else:
            s = _slowdown(fl, p, t)
            if s == u.s:
                continue
            if u.running == 2:
                u.rem = max(u.rem - (t - u.t_last) / u.s, 0.0)
                u.t_last = t
                u.version += 1
                push(t + u.rem * s, _COMP_DONE, p, u.version)
            u.s = s
    # P1: exactly-once coverage
    spans = sorted((r[2], r[3]) for r in recs)
    at = 0
    for off, size in spans:
        assert off == at, "reference: coverage violated"
        at += size
    assert at == bal.total
    for p in range(n):
        if pus[p].running == 0:
            idle_close(p, state["makespan"])
    dt = np.dtype([(f, "f8") if f.startswith(("t_", "pred")) else (f, "i8") for f in TRACE_FIELDS])
    tr = np.array([tuple(r) for r in recs], dtype=dt)
    return RefResult(tr, state["makespan"], bal.n_evals, n_events, busy, elements, idle)
