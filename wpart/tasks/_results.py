"""The result of a task placement (:class:`TasksResult`) and how the balancers build it."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._result import Result, new_axes, pct
from .._validate import deprecated_attr
from ._problem import Coefficients, Problem, count_of

__all__ = ["TasksResult"]


class PaperNames:
    """The paper's names of the protocol's fields: ``W_max`` is ``max_work``."""

    __slots__ = ()
    max_load: float
    initial_max_load: float

    @property
    def max_work(self) -> float:
        """``W_max``, the paper's name for :attr:`max_load`."""
        return self.max_load

    @property
    def initial_max_work(self) -> float:
        """The paper's name for :attr:`initial_max_load`."""
        return self.initial_max_load


@dataclass(frozen=True, eq=False, repr=False)
class TasksResult(PaperNames, Result):
    """A placement of the tasks of one phase, with its work model (the CCM model of Sec. III
    of the paper).

    Attributes
    ----------
    status : str
        ``"optimal"`` (brute force, or a MILP proven optimal), ``"feasible"`` (a heuristic's
        placement within every memory cap), ``"time_limit"`` (stopped by `time_limit`: the
        best placement reached is returned), ``"infeasible"`` (no placement fits the memory
        caps; for a heuristic: its placement exceeds a cap).
    success : bool
        Whether `assignment` is a usable placement.
    message : str
        How the run ended.
    assignment : ndarray of int32, shape (K,)
        Rank of every task.
    work, load, memory, vol_out, vol_in, vol_local, homing : ndarray, shape (m,)
        Per-rank work W (``inf`` above a memory cap), compute load, memory, off-rank bytes
        sent and received, on-rank bytes and homing bytes.
    n_blocks_off_home : ndarray of int32, shape (m,)
        Blocks present on each rank that are homed elsewhere.
    max_load : float
        ``W_max``, the largest rank work (the objective; the paper's "maximum work", also
        available as :attr:`max_work`). ``inf`` when a rank exceeds its memory cap.
    mean_work : float
        Mean rank work.
    imbalance : float
        ``max_load / mean_work - 1`` (the paper's imbalance statistic applied to W; a
        fraction, printed as a percent).
    load_imbalance : float
        ``max L / mean L - 1`` of the compute loads alone.
    lower_bound : float
        A lower bound on the optimal ``W_max``: the MILP's proven bound, ``max_load`` for
        brute force, else the load bound ``max(sum L / sum(1 / a_r), max L * min a_r)``
        (``a_r`` the rank's alpha), valid since every other term of W is non-negative.
        ``gap = max_load / lower_bound - 1``.
    initial_work : ndarray, shape (m,)
        Per-rank W of the initial assignment.
    initial_max_load : float
        ``W_max`` of the initial assignment (also :attr:`initial_max_work`).
    history : ndarray
        ``W_max`` before the first and after every iteration (best trial); one entry for
        one-shot methods.
    method : str
    coefficients : Coefficients
    stats : dict
        Method details: seconds, exchanges, rounds, fanout, MILP solver status, bound ...
        (not compared by ``==``).
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
    max_load: float
    mean_work: float
    imbalance: float
    load_imbalance: float
    lower_bound: float
    initial_work: NDArray[np.float64]
    initial_max_load: float
    history: NDArray[np.float64]
    method: str
    coefficients: Coefficients

    n_ranks = deprecated_attr("n_ranks", "m", "TasksResult")

    def _has_answer(self) -> bool:
        return bool(self.stats.get("has_answer", True))

    m = count_of("work", "Number of ranks.")
    n_tasks = count_of("assignment", "Number of tasks.")


    @property
    def n_off_home(self) -> int:
        """Number of (rank, block) replicas away from the block's home."""
        return int(self.n_blocks_off_home.sum())

    def to_dict(self) -> dict:
        """JSON-friendly dict of every field (arrays as lists), plus ``success`` and ``m``."""
        d = super().to_dict()
        d["m"] = self.m
        return d

    def _repr_lines(self) -> list[str]:
        lines = [f"TasksResult(method={self.method!r}, status={self.status!r}, m={self.m}, "
                 f"n_tasks={self.n_tasks})",
                 f"  max_load (W_max) {self.max_load:.6g} (initial {self.initial_max_load:.6g}), "
                 f"imbalance {pct(self.imbalance)}, lower bound {self.lower_bound:.6g} "
                 f"(gap {pct(self.gap)})"]
        if self.message:
            lines.append(f"  {self.message}")
        return lines

    # ------------------------------------------------------------------ plots
    def plot(self, ax: Any = None) -> Any:
        """Per-rank work before (grey) and after (blue) as bars, ``W_max`` dashed.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when None).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on. :meth:`plot_history` draws ``W_max`` over the iterations,
            :meth:`plot_panels` both side by side.
        """
        ax = new_axes(ax, figsize=(6, 3.2))
        x = np.arange(self.m)
        ax.bar(x - 0.2, np.where(np.isfinite(self.initial_work), self.initial_work, np.nan),
               width=0.4, label="before", color="0.65")
        ax.bar(x + 0.2, np.where(np.isfinite(self.work), self.work, np.nan), width=0.4,
               label="after", color="C0")
        if np.isfinite(self.max_load):
            ax.axhline(self.max_load, color="C0", ls="--", lw=1)
        ax.set_xlabel("rank")
        ax.set_ylabel("work W")
        ax.set_title(f"{self.method}: W_max {self.initial_max_load:.4g} -> {self.max_load:.4g}")
        ax.legend(fontsize="small")
        return ax

    def plot_history(self, ax: Any = None) -> Any:
        """``W_max`` before the first and after every iteration; returns the Axes drawn on."""
        ax = new_axes(ax, figsize=(5, 3.2))
        ax.plot(np.arange(self.history.size), self.history, marker="o")
        ax.set_xlabel("iteration")
        ax.set_ylabel("W_max")
        ax.set_title("W_max over iterations")
        return ax

    def plot_panels(self) -> Any:
        """:meth:`plot` and :meth:`plot_history` side by side in a new figure.

        Returns
        -------
        matplotlib.figure.Figure
            The figure of the two panels (a figure, not an Axes: it has two).
        """
        import matplotlib.pyplot as plt

        fig, (a0, a1) = plt.subplots(1, 2, figsize=(10, 3.2))
        self.plot(ax=a0)
        self.plot_history(ax=a1)
        return fig


# ---------------------------------------------------------------------- building results
def load_bound(problem: Problem, coeffs: Coefficients) -> float:
    """A lower bound on any placement's ``W_max``: the largest of ``sum L / sum(1 / a_r)``
    (the mean, speed-weighted), ``L_k * min a_r`` over the tasks that may move, and
    ``a_r P_r`` over the ranks, ``P_r`` the load of the tasks pinned to rank ``r``
    (``migratable`` False: they stay there, and every term of ``W`` is >= 0, so
    ``W(r) >= a_r P_r``); ``a_r`` is the rank's alpha. Together these are the exact bound of
    the fractional relaxation: with ``W_max = T`` rank ``r`` holds load at most ``T / a_r``
    and at least ``P_r``. Ranks with alpha 0 make the first two terms 0."""
    a = (np.full(problem.m, coeffs.alpha) if problem.rank_alpha is None
         else np.asarray(problem.rank_alpha, np.float64))
    L = problem.task_load
    if L.size == 0:
        return 0.0
    mig = problem.migratable
    best = 0.0
    if not mig.all():
        pin = np.flatnonzero(~mig)
        P = np.bincount(problem.initial[pin], weights=L[pin], minlength=problem.m)
        with np.errstate(over="ignore", invalid="ignore"):
            best = float(np.max(a * P))
    if a.min() <= 0:
        return best
    free = L[mig]
    with np.errstate(over="ignore", divide="ignore"):  # tiny alphas: a bound of 0
        return float(max(best, L.sum() / np.sum(1.0 / a),
                         free.max() * a.min() if free.size else 0.0))


def make_result(problem: Problem, coeffs: Coefficients, cap: Any, assignment: NDArray,
                history: NDArray, method: str, stats: dict, *, status: str | None = None,
                message: str = "", lower_bound: float | None = None,
                init_eval: dict | None = None) -> TasksResult:
    """Evaluate `assignment` with the C work model and wrap it in a :class:`TasksResult`.

    `status` defaults to ``"feasible"`` (``"infeasible"`` when a rank exceeds its cap);
    `lower_bound` to :func:`load_bound` (never above ``max_load``: rounding only).
    """
    d = problem._dict(cap)
    w, rep = _core.tasks_evaluate(d, coeffs.as_tuple(), assignment)
    stats = dict(stats)
    stats["n_tasks_moved"] = int(np.count_nonzero(np.asarray(assignment)
                                                  != np.asarray(problem.initial)))
    if init_eval is None:
        _, init_eval = _core.tasks_evaluate(d, coeffs.as_tuple(), problem.initial)
    work = rep["work"]
    w = float(w)
    load = rep["load"]
    with np.errstate(over="ignore"):  # loads near the largest float: the sum overflows,
        mean = float(work.mean())     # so the mean is taken over scaled terms instead
        lmean = float(load.mean())
        if not math.isfinite(mean) and np.all(np.isfinite(work)):
            mean = float(np.sum(work / work.size))
        if not math.isfinite(lmean) and np.all(np.isfinite(load)):
            lmean = float(np.sum(load / load.size))
    if status is None:
        status = "feasible" if math.isfinite(w) else "infeasible"
        if not message and not math.isfinite(w):
            message = _not_finite_message(method, rep, cap)
        elif not message and method == "given":
            message = f"the given assignment: W_max {w:.6g}"
        elif not message:
            message = f"{method}: W_max {float(init_eval['work'].max()):.6g} -> {w:.6g}"
    lb = load_bound(problem, coeffs) if lower_bound is None else float(lower_bound)
    if math.isfinite(w):
        lb = min(lb, w)
    return TasksResult(
        status=status, message=message,
        assignment=np.asarray(assignment, dtype=np.int32),
        work=work, load=load, memory=rep["memory"], vol_out=rep["vol_out"],
        vol_in=rep["vol_in"], vol_local=rep["vol_local"], homing=rep["homing"],
        n_blocks_off_home=rep["n_blocks_off_home"],
        max_load=w, mean_work=mean,
        imbalance=(math.inf if not math.isfinite(w) else w / mean - 1.0 if mean > 0 else 0.0),
        load_imbalance=(float(load.max()) / lmean - 1.0) if lmean > 0 else 0.0,
        lower_bound=lb,
        initial_work=init_eval["work"], initial_max_load=float(init_eval["work"].max()),
        history=np.asarray(history, dtype=np.float64), method=method, coefficients=coeffs,
        stats=stats,
    )


def _not_finite_message(method: str, rep: dict, cap: Any) -> str:
    """Why ``W_max`` is not finite: a rank above its memory cap, or else an overflow of the
    work sums (loads, bytes or homing above the largest float)."""
    mem = np.asarray(rep["memory"], dtype=np.float64)
    if cap is not None:
        over = np.nonzero(mem > np.broadcast_to(np.asarray(cap, np.float64), mem.shape))[0]
        if over.size:
            return (f"{method}: the placement exceeds a memory cap on rank {int(over[0])} "
                    "(W = inf)")
    bad = np.nonzero(~np.isfinite(np.asarray(rep["work"], np.float64)))[0]
    where = f" on rank {int(bad[0])}" if bad.size else ""
    return (f"{method}: overflow: the work{where} is not finite (its loads, bytes or homing "
            "terms sum above the largest float), not a memory cap (W = inf)")


def replace_fields(r: TasksResult, **kw: Any) -> TasksResult:
    """A copy of `r` with some fields replaced."""
    return dataclasses.replace(r, **kw)
