"""A slow pure-Python reference of PLB-HAC (spec 001 §2.3, presets of Appendix A) on
the protocol of :mod:`tests.oracles.dynamic_ref`, with its own models and solver
(:mod:`tests.oracles.dynamic_ref_model`). Used by P13 (§6.4).

Follows the pseudocode of §2.3 line by line; the choices the spec leaves to the implementation
are taken as the C balancer takes them (``csrc/dynamic/plbhac*.c``), and listed here:

* training blocks carry ``vstep = 0`` and ``model_version = 0``; ``pred_end`` is NaN until the
  first model is published, then ``now + E_p(size)`` with the published model;
* the second training block rounds half away from zero (``llround``);
* the snapshot of an evaluation is taken when it is issued; its end-game test uses the cursor
  at that time; ``H_model`` (§1.9) uses ``x_p <= ub_p = W - cursor``; the step volume is
  floored to an integer and ``S_eff`` to a multiple of ``q`` with a relative slack of 1e-12
  (so that ``S * 0.9^m`` that is an integer in exact arithmetic is not floored one below);
* ``τ_step`` uses ``E_p(min(b_min,p, ub_p))``;
* the published ``T_pred`` is the makespan of the rounded blocks;
* a PU whose training completes once the cursor is at ``W`` issues no evaluation (the spec would
  issue one whose result is discarded; the trace is the same);
* a transfer-free PU (every ``t_xfer == 0``) gets ``G == 0`` (§1.3 step 9).
"""

from __future__ import annotations

import math
from typing import Sequence

from tests.oracles.dynamic_ref import GAP, REGULAR, TRAIN, RefBalancer
from tests.oracles.dynamic_ref_model import (
    capacity,
    fit_model,
    inverse,
    model_eval,
    round_blocks,
    solve,
)

__all__ = ["RefPLBHAC"]


def _llround(v: float) -> int:
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


class RefPLBHAC(RefBalancer):
    """PLB-HAC, resolve tail with a 1 s floor and gap filling, with the ``paper`` preset
    (barrier training, frozen step volume, ``min_block="auto"`` with ``η = 0.8`` (never below
    CPU ``q``, GPU/PHI ``x_init``), the seven basis functions, no decay) or the ``robust`` one
    (probe training, ratchet, the affine basis, ``step_fraction = 1/64``); ``min_block="fixed"``
    keeps CPU ``q``, GPU/PHI ``x_init``. The change detection of ``robust`` (``change_ratio``)
    is not modelled: compare with ``change_ratio=0``."""

    def __init__(self, n: int, total: int, kinds: Sequence[str], *, x_init: int = 1024,
                 quantum: int = 1, gap_threshold: float = 0.4, tail_start: float = 0.7,
                 tail_alpha: float = 0.1, tail_floor_time: float = 1.0, step_time: float = 2.0,
                 min_steps_left: int = 4, preset: str = "paper", min_block: str = "auto",
                 step_fraction: float | None = None) -> None:
        super().__init__(n, total)
        assert preset in ("paper", "robust") and min_block in ("auto", "fixed")
        self.robust = preset == "robust"
        self.decay, self.eta = 1.0, 0.8
        self.auto = min_block == "auto"
        self.allowed = 1 if self.robust else 0x7F
        self.step_fraction = (1.0 / 64.0 if self.robust else 0.0) if step_fraction is None else step_fraction
        self.kinds = list(kinds)
        self.last_train = [0] * n
        q = self.q = quantum
        self.x_init = -(-x_init // q) * q
        self.bmin = [q if k == "cpu" else self.x_init for k in kinds]
        self.gap_threshold, self.tail_start, self.tail_alpha = gap_threshold, tail_start, tail_alpha
        self.tail_floor_time, self.step_time = tail_floor_time, step_time
        self.min_steps_left = min_steps_left
        self.training = True
        self.t_fast: float | None = None
        self.V = 0
        self.S: int | None = None
        self.S_train = 0
        self.m_tail = 0
        self.version = 0
        self.models: list = [None] * n
        self.X = [0] * n
        self.T_pred = math.nan
        self.waiting: set[int] = set()
        self.parked: set[int] = set()
        self.samples: list[list[tuple[int, float, float]]] = [[] for _ in range(n)]
        self.ntrain = [0] * n
        self.vstep = [0] * n
        self.cur: list = [None] * n  # (block, kind, pred_end)
        self.series: list = []
        self._ev: dict = {}
        self._res: tuple | None = None

    # ASSIGN of §2.3 ---------------------------------------------------------------------------
    def _give(self, out: list, p: int, size: int, kind: int, now: float) -> int:
        rem = self.total - self.cursor
        if size <= 0 or rem <= 0:
            return 0
        sz = min(size, rem)
        if 0 < rem - sz < self.q:
            sz = rem
        pred = now + model_eval(self.models[p], float(sz)) if self.version > 0 else math.nan
        bid = len(self.blocks)
        got = self.assign(out, p, sz, self.q, kind, self.vstep[p], self.version, pred)
        if got:
            self.cur[p] = (bid, kind, pred)
            if kind == TRAIN:
                self.last_train[p] = got
        return got

    def start(self, now: float) -> list:
        out: list = []
        for p in range(self.n):
            self._give(out, p, self.x_init, TRAIN, now)
        return out

    def on_complete(self, p, block, size, t_xfer, t_comp, now) -> list:  # noqa: ANN001
        assert self.cur[p] is not None and self.cur[p][0] == block
        _, kind, pred = self.cur[p]
        self.cur[p] = None
        self.samples[p].append((size, t_comp, t_xfer))
        out: list = []
        if self.training:
            self._training_step(out, p, t_xfer + t_comp, now)
            return out
        if self.cursor == self.total:
            return out
        if self.version == 0:
            self.waiting.add(p)
            return out
        if kind == REGULAR and pred - now > self.gap_threshold:  # gap filling (§2.6)
            xg = inverse(self.models[p], pred - now, 0.0, float(self.total - self.cursor))
            g = self.q * math.floor(xg / self.q) if math.isfinite(xg) and xg >= 0 else 0
            if g >= self.q:
                self._give(out, p, g, GAP, now)
                return out
        self._next_regular(out, p, now)
        return out

    def _training_step(self, out: list, p: int, t: float, now: float) -> None:
        self.ntrain[p] += 1
        if self.cursor >= self.total:
            return
        if self.ntrain[p] == 1:
            if self.t_fast is None:
                self.t_fast, size = t, 2 * self.x_init
            else:
                R = self.t_fast / t if t > 0 else 1.0
                size = max(self.q, _llround(2.0 * self.x_init * R / self.q) * self.q)
            self.S_train += self._give(out, p, size, TRAIN, now)
            return
        self.waiting.add(p)
        if all(k >= 2 for k in self.ntrain):  # the single barrier
            self.training = False
            self._issue(out, p, True)
        elif self.robust:  # probe: a doubled training block instead of waiting
            self.waiting.discard(p)
            self._give(out, p, 2 * self.last_train[p], TRAIN, now)

    def _next_regular(self, out: list, p: int, now: float) -> None:
        self.vstep[p] += 1
        if self.vstep[p] > self.V:
            self.V = self.vstep[p]
            if not self.eval_in_flight:
                self._issue(out, p, False)
                return
        if self.X[p] == 0:
            self.parked.add(p)
            return
        self._give(out, p, self.X[p], REGULAR, now)

    def _issue(self, out: list, trigger: int, release_waiting: bool) -> None:
        self._ev = {
            "trigger": trigger, "release_waiting": release_waiting,
            "samples": [list(s) for s in self.samples], "completed": self.completed,
            "cursor": self.cursor, "S": self.S, "m_tail": self.m_tail, "S_train": self.S_train,
        }  # fmt: skip
        if self.step_fraction > 0.0:  # the first S is at least step_fraction * W
            fw = math.floor(self.step_fraction * float(self.total) / float(self.q)) * float(self.q)
            self._ev["S_train"] = max(self._ev["S_train"], int(fw))
        self.request_eval(out, trigger)

    # EVAL_RUN of §2.3 -------------------------------------------------------------------------
    def eval_run(self, token: int) -> None:
        ev, n, q, W = self._ev, self.n, self.q, self.total
        rem = W - ev["cursor"]
        models = []
        for smp in ev["samples"]:
            x = [s[0] for s in smp]
            tc = [s[1] for s in smp]
            tx = [s[2] for s in smp]
            txs = tx if any(v != 0.0 for v in tx) else None
            models.append(fit_model(x, tc, txs, q, decay=self.decay, allowed=self.allowed))
        bmin = list(self.bmin)
        if self.auto:  # min_block="auto" for accelerators (§1.8)
            for p in range(n):
                if self.kinds[p] != "cpu":
                    xa = self._grid_eff(models[p], float(q), 2.0 * models[p].x_scale)
                    bmin[p] = max(bmin[p], -(-math.ceil(xa) // q) * q)
        ub = [rem] * n
        lb = [min(bmin[p], ub[p]) for p in range(n)]
        tau = max([self.step_time] + [model_eval(models[p], float(lb[p])) for p in range(n)])
        S = ev["S"]
        capS = rem // self.min_steps_left
        if S is None or (self.robust and ev["m_tail"] == 0):  # frozen once; ratchet (§1.9)
            H = capacity(models, tau, [float(v) for v in lb], [float(v) for v in ub])
            h = math.floor(H)
            S = min(max(h, ev["S_train"]), capS) if S is None else max(S, min(h, capS))
        S = max(S, q)
        m_tail = ev["m_tail"] + (ev["completed"] >= self.tail_start * W)
        S_eff_d = float(S)
        if m_tail > 0:  # resolve tail with its floor (§2.7)
            f = (1.0 - self.tail_alpha) ** m_tail
            Hf = capacity(models, self.tail_floor_time, [float(v) for v in lb],
                          [float(v) for v in ub])
            if self.step_fraction > 0.0:  # floor scaled to the input too
                Hf = max(Hf, float(rem) / (2.0 * float(self.min_steps_left)))
            S_eff_d = max(S * f, min(Hf, float(S)))
        S_eff = max(q * math.floor(S_eff_d * (1.0 + 1e-12) / q), q)  # C: relative slack
        S_eff = max(S_eff, sum(lb))
        if S_eff >= rem:  # end-game: exclusion allowed (§1.8)
            S_eff, lb = rem, [0] * n
        S_eff = min(S_eff, sum(ub))
        X, T = [0] * n, 0.0
        if S_eff > 0:
            x, T = solve(models, float(S_eff), [float(v) for v in lb], [float(v) for v in ub])
            X, Tmax = round_blocks(models, x, S_eff, q, lb, ub)
            T = Tmax if Tmax > 0 else T
        self._res = (token, models, X, T, S, S_eff, m_tail)

    def _grid_eff(self, m, lo: float, hi: float) -> float:  # noqa: ANN001
        """Smallest x of the 64-point log grid over [lo, hi] with x / E(x) >= η max."""
        if not hi > lo:
            return lo
        xs = [lo * (hi / lo) ** (k / 63.0) for k in range(64)]
        thr = [x / e if e > 0 else math.inf for x, e in ((x, model_eval(m, x)) for x in xs)]
        best = max(thr)
        for x, t in zip(xs, thr):
            if t >= self.eta * best:
                return x
        return hi

    def on_eval_done(self, token: int, now: float) -> list:
        tok, models, X, T, S, S_eff, m_tail = self._res
        assert tok == token
        first = self.version == 0
        self.models, self.X, self.T_pred, self.S, self.m_tail = models, X, T, S, m_tail
        self.version += 1
        self.series.append((now, self.version, T, S_eff, tuple(X)))
        ev = self._ev
        out: list = []
        for w in range(self.n):
            mine = w in self.waiting if ev["release_waiting"] else w == ev["trigger"]
            rel = w in self.parked or mine
            if not rel:
                continue
            self.waiting.discard(w)
            if first:
                self.vstep[w] = 1
            self.V = max(self.V, self.vstep[w])
            if X[w] == 0:
                self.parked.add(w)
                continue
            self.parked.discard(w)
            self._give(out, w, X[w], REGULAR, now)
        return out
