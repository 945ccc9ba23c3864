"""The block trace of a run (spec 001 §5.6) and the result of a real execution.

:data:`TRACE_DTYPE` is the one record layout of a block, shared by real runs
(:class:`RunResult`) and simulations; :func:`plot_run` (a Gantt chart, :func:`plot_gantt`,
above the block-size series) draws either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["RunResult", "plot_gantt", "plot_run"]  # TRACE_DTYPE is exported by _sim

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
_KIND_COLORS = ("tab:orange", "tab:blue", "tab:green", "tab:purple")


def plot_gantt(
    ax: Any,
    trace: NDArray,
    n_pu: int,
    *,
    makespan: float | None = None,
    labels: Sequence[str] | None = None,
    windows: NDArray[np.float64] | None = None,
    window_pu: NDArray[np.int64] | None = None,
    eval_times: NDArray[np.float64] | None = None,
) -> None:
    """Draw a block trace on ``ax``: one row per PU, one bar per block.

    Idle time is the light grey background up to ``makespan``; a block's transfer is hatched,
    its compute part filled in the colour of its kind (train, regular, gap, other).
    Evaluations are drawn either as measured ``windows`` (rows ``[t0, t1]``: a red bar on the
    row of the PU that waits for it, ``window_pu``, or a shaded span when that is -1; a window
    with a NaN end is skipped) or as markers at ``eval_times`` (publication times).
    """
    import matplotlib.pyplot as plt  # lazy: matplotlib is optional

    if makespan is None:
        makespan = float(trace["t_end"].max()) if len(trace) else 0.0
    for p in range(n_pu):
        ax.broken_barh([(0.0, makespan)], (p - 0.4, 0.8), facecolors="0.92")
    for kind in range(4):
        sel = trace[trace["kind"] == kind] if kind < 3 else trace[(trace["kind"] >= 3) | (trace["kind"] < 0)]
        for p in np.unique(sel["pu"]):
            s = sel[sel["pu"] == p]
            ax.broken_barh(list(zip(s["t_comp_start"], s["t_end"] - s["t_comp_start"])), (p - 0.4, 0.8),
                           facecolors=_KIND_COLORS[kind], edgecolor="k", linewidth=0.2)
            x = s[s["t_xfer"] > 0]
            if len(x):
                ax.broken_barh(list(zip(x["t_xfer_start"], x["t_xfer"])), (p - 0.4, 0.8),
                               facecolors="none", edgecolor="0.3", hatch="//", linewidth=0.2)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in _KIND_COLORS]
    names = [*_KIND_NAMES, "idle"]
    handles.append(plt.Rectangle((0, 0), 1, 1, color="0.92"))
    if windows is not None and len(windows):
        win = np.asarray(windows, dtype=float).reshape(-1, 2)
        wpu = np.full(len(win), -1) if window_pu is None else np.asarray(window_pu)
        for (t0, t1), p in zip(win, wpu):
            if not np.isfinite(t1):
                continue
            if p >= 0:
                ax.broken_barh([(t0, t1 - t0)], (p - 0.2, 0.4), facecolors="tab:red", alpha=0.7)
            else:
                ax.axvspan(t0, t1, color="tab:red", alpha=0.12, lw=0)
        handles.append(plt.Rectangle((0, 0), 1, 1, color="tab:red", alpha=0.7))
        names.append("evaluation")
    elif eval_times is not None and len(eval_times):
        ax.plot(eval_times, np.full(len(eval_times), n_pu - 0.5), "v", color="red", ms=4)
        handles.append(plt.Line2D([], [], marker="v", color="red", ls="none", ms=4))
        names.append("evaluation")
    ax.legend(handles, names, loc="upper right", fontsize=7)
    ax.set_yticks(range(n_pu), list(labels) if labels is not None else [f"PU {p}" for p in range(n_pu)])
    ax.set_ylim(n_pu - 0.5, -0.5)
    ax.set_ylabel("PU")


def plot_run(
    trace: NDArray,
    n_pu: int,
    *,
    series: NDArray | None = None,
    ax: Any = None,
    title: str | None = None,
    **gantt_kw: Any,
) -> Any:
    """The figure of a run (real or simulated): the Gantt chart (:func:`plot_gantt`) above
    the block sizes (the balancer's published ``X`` per PU, a step line; without a series, the
    size of each block at its assignment). ``ax`` may be a pair of Axes, or one Axes for the
    Gantt chart alone. Returns the matplotlib Figure."""
    import matplotlib.pyplot as plt  # lazy: matplotlib is optional

    if ax is None:
        fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(10, 6), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    elif isinstance(ax, (tuple, list)):
        ax0, ax1 = ax
        fig = ax0.figure
    else:
        ax0, ax1, fig = ax, None, ax.figure
    plot_gantt(ax0, trace, n_pu, **gantt_kw)
    if ax1 is not None:
        if series is not None and series.size:
            for p in range(n_pu):
                ax1.step(series["t"], series["X"][:, p], where="post", label=f"PU {p}")
        elif len(trace):
            for p in range(n_pu):
                s = trace[trace["pu"] == p]
                ax1.plot(s["t_assign"], s["size"], ".", ms=3, label=f"PU {p}")
        ax1.set_ylabel("block size")
        ax1.legend(fontsize=7, ncol=max(1, n_pu // 4))
    (ax1 if ax1 is not None else ax0).set_xlabel("time (s)")
    if title:
        fig.suptitle(title)
    return fig


@dataclass(frozen=True, repr=False)
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

    def __repr__(self) -> str:
        return (f"RunResult(balancer={self.balancer!r}, total={self.total}, n_pu={self.n_pu}, "
                f"makespan={self.makespan:.6g} s, blocks={self.n_blocks}, evals={self.n_evals}, "
                f"elements={self.elements.tolist()}, idle={np.round(100 * self.idle_frac, 1).tolist()} %)")

    def plot(self, ax: Any = None) -> Any:
        """Gantt chart (PU rows, blocks coloured by kind, transfers hatched, idle in grey,
        each evaluation as a red bar on the row of the PU that waits for it) above the block
        sizes. ``ax``: a pair of Axes, or one Axes for the Gantt chart alone. Returns the
        matplotlib Figure."""
        return plot_run(
            self.trace, self.n_pu, series=self.series, ax=ax, makespan=self.makespan,
            windows=self.eval_windows, window_pu=self.eval_pu,
            title=f"{self.balancer}: makespan {self.makespan:.4g} s (real run)",
        )  # fmt: skip

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
