"""The block trace of a run (spec 001 §5.6) and the result of a real execution.

:data:`TRACE_DTYPE` is the one record layout of a block, shared by real runs
(:class:`RunResult`) and simulations; :func:`plot_gantt` draws any such trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["TRACE_DTYPE", "RunResult", "plot_gantt"]

#: One record per block (spec 001 §5.6). ``kind``: 0 train, 1 regular, 2 gap, 3 other (a
#: baseline's block). Times are seconds from the start of the run.
TRACE_DTYPE = np.dtype(
    [
        ("pu", "i4"),
        ("block", "i8"),
        ("offset", "i8"),
        ("size", "i8"),
        ("kind", "i1"),
        ("vstep", "i4"),
        ("model_version", "i4"),
        ("t_assign", "f8"),
        ("t_xfer_start", "f8"),
        ("t_comp_start", "f8"),
        ("t_end", "f8"),
        ("pred_end", "f8"),
        ("t_xfer", "f8"),
        ("t_comp", "f8"),
    ]
)

_KIND_NAMES = ("train", "regular", "gap", "other")
_KIND_COLORS = ("tab:orange", "tab:blue", "tab:green", "tab:gray")


def plot_gantt(
    trace: NDArray,
    n_pu: int,
    *,
    ax: Any = None,
    windows: NDArray[np.float64] | None = None,
    window_pu: NDArray[np.int64] | None = None,
    labels: list[str] | None = None,
    title: str | None = None,
) -> Any:
    """Gantt chart of a block trace: one row per PU, one bar per block.

    The transfer part of a block is drawn white and hatched, the compute part in the colour
    of the block's kind (train, regular, gap, other). ``windows`` (rows ``[t0, t1]``), when
    given, are the evaluations: drawn as a red bar on the row of the PU that waits for it
    (``window_pu``), or shaded across every row when that is -1 or not given. A window
    without an end (NaN) is not drawn.

    Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt  # lazy: matplotlib is optional

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 0.8 + 0.45 * max(n_pu, 1)))
    if windows is not None:
        win = np.asarray(windows, dtype=float).reshape(-1, 2)
        wpu = np.full(len(win), -1) if window_pu is None else np.asarray(window_pu)
        first = True
        for (t0, t1), p in zip(win, wpu):
            if not np.isfinite(t1):
                continue
            lab = "evaluation" if first else None
            if p >= 0:
                ax.broken_barh([(t0, t1 - t0)], (p - 0.25, 0.5), facecolors="tab:red", alpha=0.6, label=lab)
            else:
                ax.axvspan(t0, t1, color="tab:red", alpha=0.12, lw=0, label=lab)
            first = False
    seen: set[int] = set()
    for rec in trace:
        y = int(rec["pu"])
        k = int(rec["kind"]) if 0 <= int(rec["kind"]) < 4 else 3
        if rec["t_xfer"] > 0:
            ax.broken_barh([(rec["t_xfer_start"], rec["t_xfer"])], (y - 0.4, 0.8),
                           facecolors="white", edgecolors="black", hatch="///", linewidth=0.3)
        ax.broken_barh([(rec["t_comp_start"], rec["t_end"] - rec["t_comp_start"])], (y - 0.4, 0.8),
                       facecolors=_KIND_COLORS[k], edgecolors="black", linewidth=0.3,
                       label=_KIND_NAMES[k] if k not in seen else None)
        seen.add(k)
    ax.set_yticks(range(n_pu))
    ax.set_yticklabels(labels if labels is not None else [f"PU {p}" for p in range(n_pu)])
    ax.set_ylim(n_pu - 0.5, -0.5)
    ax.set_xlabel("time (s)")
    if title:
        ax.set_title(title)
    if seen or windows is not None:
        ax.legend(loc="upper right", fontsize="small")
    return ax


@dataclass(frozen=True)
class RunResult:
    """What a real execution (:func:`wpart.dynamic.run`) measured.

    Attributes
    ----------
    makespan : float
        Time of the last block's end, seconds from the start (an evaluation still running
        after the last block is not included).
    trace : ndarray of :data:`TRACE_DTYPE`, shape (n_blocks,)
        One record per block, in order of assignment.
    busy, idle, idle_frac : ndarray of float64, shape (n_pu,)
        ``busy = Σ (t_xfer + t_comp)`` of a PU's blocks, ``idle = makespan − busy``,
        ``idle_frac = idle / makespan``.
    elements : ndarray of int64, shape (n_pu,)
        Elements processed per PU.
    shares : ndarray of float64, shape (n_pu,)
        ``elements / total``.
    step_shares : ndarray of float64, shape (n_pu,), or None
        The balancer's step shares in percent (PLB-HAC's first published ``X / S``), or None.
    series : ndarray
        The balancer's published block sizes (fields ``t``, ``model_version``, ``T_pred``,
        ``S_eff``, ``X``); empty for balancers without sizes.
    n_evals : int
        Evaluations run.
    n_barriers : int
        Synchronisation points reported by the balancer.
    eval_pu : ndarray of int64, shape (n_evals,)
        The PU that triggered each evaluation (-1: every PU waits for it).
    eval_windows : ndarray of float64, shape (n_evals, 2)
        ``[t_request, t_done]`` of each evaluation (request to publication, in the driver's
        clock); ``t_done`` is NaN for an evaluation the run finished without (its result is
        discarded, spec 001 §2.3).
    eval_time : float
        Seconds spent inside the balancer's ``eval_run`` (all evaluations).
    wall : float
        Wall time of the whole call, start-up and shutdown of the workers included.
    total, n_pu : int
    balancer : str
        Name of the balancer.
    workers : list of str
        Description of each PU's worker.
    """

    makespan: float
    trace: NDArray
    busy: NDArray[np.float64]
    idle: NDArray[np.float64]
    idle_frac: NDArray[np.float64]
    elements: NDArray[np.int64]
    shares: NDArray[np.float64]
    step_shares: NDArray[np.float64] | None
    series: NDArray
    n_evals: int
    n_barriers: int
    eval_pu: NDArray[np.int64]
    eval_windows: NDArray[np.float64]
    eval_time: float
    wall: float
    total: int
    n_pu: int
    balancer: str
    workers: list[str] = field(default_factory=list)

    @property
    def n_blocks(self) -> int:
        """Number of blocks run."""
        return int(self.trace.shape[0])

    def plot(self, ax: Any = None, **kw: Any) -> Any:
        """Gantt chart of the run (blocks per PU, evaluations shaded); returns the Axes."""
        kw.setdefault("title", f"{self.balancer}: makespan {self.makespan:.3g} s (real run)")
        return plot_gantt(self.trace, self.n_pu, ax=ax, windows=self.eval_windows, window_pu=self.eval_pu, **kw)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (lists, floats, ints) for JSON."""

        def arr(a: Any) -> Any:
            if a is None:
                return None
            a = np.asarray(a)
            if a.dtype.names:
                return {name: a[name].tolist() for name in a.dtype.names}
            return a.tolist()

        return {
            "makespan": float(self.makespan),
            "trace": arr(self.trace),
            "busy": arr(self.busy),
            "idle": arr(self.idle),
            "idle_frac": arr(self.idle_frac),
            "elements": arr(self.elements),
            "shares": arr(self.shares),
            "step_shares": arr(self.step_shares),
            "series": arr(self.series),
            "n_evals": int(self.n_evals),
            "n_barriers": int(self.n_barriers),
            "eval_pu": arr(self.eval_pu),
            "eval_windows": arr(self.eval_windows),
            "eval_time": float(self.eval_time),
            "wall": float(self.wall),
            "total": int(self.total),
            "n_pu": int(self.n_pu),
            "balancer": self.balancer,
            "workers": list(self.workers),
        }
