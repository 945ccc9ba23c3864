"""The block trace of a run and the result of a real execution.

:data:`TRACE_DTYPE` is the one record layout of a block, shared by real runs
(:class:`RunResult`) and simulations; :func:`plot_gantt` draws a trace as a Gantt chart on one
Axes, :func:`plot_run` draws the two-panel figure (the Gantt chart above the block-size
series) of either.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import CancelledError
from .._result import Result, jsonable, new_axes, pct
from .._validate import deprecated_attr, renamed

__all__ = ["RunResult", "plot_gantt", "plot_run"]  # TRACE_DTYPE is exported by _sim

#: One record per block. ``kind``: 0 train, 1 regular, 2 gap, 3 other (a baseline's block).
#: Times are seconds from the start of the run. The fields sit where the core's 104-byte block
#: record holds them (in this order, naturally aligned; ``kind`` the low byte of its int32), so
#: a trace is the core's records viewed, not copied.
_TRACE_FIELDS = (
    ("pu", "i4", 0),
    ("block", "i8", 8),
    ("offset", "i8", 16),
    ("size", "i8", 24),
    ("kind", "i1", 32 if sys.byteorder == "little" else 35),
    ("vstep", "i4", 36),
    ("model_version", "i4", 40),
    ("t_assign", "f8", 48),
    ("t_xfer_start", "f8", 56),
    ("t_comp_start", "f8", 64),
    ("t_end", "f8", 72),
    ("pred_end", "f8", 80),
    ("t_xfer", "f8", 88),
    ("t_comp", "f8", 96),
)
TRACE_DTYPE = np.dtype(
    {
        "names": [f[0] for f in _TRACE_FIELDS],
        "formats": [f[1] for f in _TRACE_FIELDS],
        "offsets": [f[2] for f in _TRACE_FIELDS],
        "itemsize": 104,
    }
)

_KIND_NAMES = ("train", "regular", "gap", "other")
_KIND_COLORS = ("tab:orange", "tab:blue", "tab:green", "tab:purple")


def plot_gantt(
    trace: Any,
    m: Any,
    *args: Any,
    ax: Any = None,
    makespan: float | None = None,
    labels: Sequence[str] | None = None,
    windows: NDArray[np.float64] | None = None,
    window_pu: NDArray[np.int64] | None = None,
    eval_times: NDArray[np.float64] | None = None,
) -> Any:
    """Draw a block trace on `ax` (a new figure when None): one row per PU, one bar per
    block; returns the Axes.

    Idle time is the light grey background up to ``makespan``; a block's transfer is hatched,
    its compute part filled in the colour of its kind (train, regular, gap, other).
    Evaluations are drawn either as measured ``windows`` (rows ``[t0, t1]``: a red bar on the
    row of the PU that waits for it, ``window_pu``, or a shaded span when that is -1; a window
    with a NaN end is skipped) or as markers at ``eval_times`` (publication times).

    Parameters
    ----------
    trace : ndarray of :data:`TRACE_DTYPE`
    m : int
        Number of PUs (rows).

    The older call ``plot_gantt(ax, trace, n_pu, ...)`` still works for one release, with a
    :class:`DeprecationWarning`.
    """
    if hasattr(trace, "broken_barh"):  # the old order (ax, trace, n_pu)
        warnings.warn("plot_gantt(ax, trace, n_pu) is deprecated, use plot_gantt(trace, m, ax=ax)",
                      DeprecationWarning, stacklevel=2)
        if not args:
            raise TypeError("plot_gantt(ax, trace, n_pu) needs n_pu")
        ax, trace, m, args = trace, m, args[0], args[1:]
    if args:
        raise TypeError("plot_gantt() takes 2 positional arguments (trace, m)")
    n_pu = int(m)
    ax = new_axes(ax)
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
    ax.set_xlabel("time (s)")
    return ax


def _plot_sizes(ax: Any, trace: NDArray, m: int, series: NDArray | None) -> None:
    """The block sizes: the balancer's published ``X`` per PU (a step line), or without a
    series the size of each block at its assignment."""
    if series is not None and series.size:
        for p in range(m):
            ax.step(series["t"], series["X"][:, p], where="post", label=f"PU {p}")
    elif len(trace):
        for p in range(m):
            s = trace[trace["pu"] == p]
            ax.plot(s["t_assign"], s["size"], ".", ms=3, label=f"PU {p}")
    ax.set_ylabel("block size")
    ax.set_xlabel("time (s)")
    ax.legend(fontsize=7, ncol=max(1, m // 4))


@renamed(n_pu="m")
def plot_run(
    trace: NDArray,
    m: int,
    *,
    series: NDArray | None = None,
    ax: Any = None,
    title: str | None = None,
    **gantt_kw: Any,
) -> Any:
    """The two-panel figure of a run (real or simulated): the Gantt chart (:func:`plot_gantt`)
    above the block sizes (the balancer's published ``X`` per PU, a step line; without a
    series, the size of each block at its assignment).

    `ax` may be a pair of Axes (a new figure when None), or one Axes for the Gantt chart
    alone. Returns the matplotlib **Figure** (several panels).
    """
    import matplotlib.pyplot as plt  # lazy: matplotlib is optional

    if ax is None:
        fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(10, 6), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    elif isinstance(ax, (tuple, list, np.ndarray)):
        ax0, ax1 = ax
        fig = ax0.figure
    else:
        ax0, ax1, fig = ax, None, ax.figure
    plot_gantt(trace, m, ax=ax0, **gantt_kw)
    if ax1 is not None:
        ax0.set_xlabel("")
        _plot_sizes(ax1, trace, m, series)
    if title:
        fig.suptitle(title)
    return fig


def cancelling(progress: Any) -> Any:
    """A validated ``progress`` (see :func:`wpart._validate.as_progress`) whose callable
    stops the run with :class:`wpart.CancelledError` when it returns False."""
    if not callable(progress):
        return progress

    def hook(done: float, total: float) -> None:
        if progress(done, total) is False:
            raise CancelledError("stopped by the progress callback")

    return hook


def columns(a: Any) -> Any:
    """A structured array as a dict of column lists (JSON); other values as :func:`jsonable`."""
    if isinstance(a, np.ndarray) and a.dtype.names:
        return {name: a[name].tolist() for name in a.dtype.names}
    return jsonable(a)


def plot_per_pu(ax: Any, values: Any, ylabel: str, title: str) -> Any:
    """Bar chart of one value per PU on `ax` (a new figure when None); returns the Axes (the
    plot of the results that hold one number per PU: sizes, blocks, shares)."""
    ax = new_axes(ax)
    ax.bar(np.arange(np.size(values)), values)
    ax.set_xlabel("PU")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax


def series_dtype(m: int) -> np.dtype:
    """The record of a balancer's published block sizes: ``(t, model_version, T_pred, S_eff,
    X[m])``."""
    return np.dtype([("t", "f8"), ("model_version", "i4"), ("T_pred", "f8"), ("S_eff", "f8"),
                     ("X", "i8", (m,))])


def rows_to_series(raw: Any, m: int) -> Any:
    """Series rows ``[t, version, T_pred, S_eff, X_0..X_{m-1}]`` of the C protocol as a record
    array (``series.t`` as well as ``series["t"]``)."""
    out = np.zeros(raw.shape[0], dtype=series_dtype(m))
    if raw.shape[0]:
        out["t"], out["model_version"] = raw[:, 0], raw[:, 1].astype(np.int32)
        out["T_pred"], out["S_eff"] = raw[:, 2], raw[:, 3]
        out["X"] = np.nan_to_num(raw[:, 4:], nan=0.0).astype(np.int64)
    return out.view(np.recarray)


class ColumnsDict:
    """Mixin of the dynamic results: ``to_dict()`` gives every field, structured arrays (a
    trace, a series, a table) as dicts of columns, plus ``success``."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (lists, floats, ints; structured arrays as dicts of columns)
        for JSON, with ``success`` and ``stats``."""
        d = {f.name: columns(getattr(self, f.name)) for f in dataclasses.fields(self)}
        d["success"] = self.success
        return d


class BlockRun(ColumnsDict):
    """Mixin of the results of a run of blocks, simulated or real: the repr's run line and
    the Gantt chart (:meth:`plot`) and two-panel figure (:meth:`plot_panels`), drawn the same
    way for both; a subclass says how its evaluations are drawn (:meth:`_gantt_kw`) and titles
    the figure (:meth:`_title`)."""

    __slots__ = ()

    def _gantt_kw(self) -> dict[str, Any]:
        raise NotImplementedError

    def _title(self) -> str:
        raise NotImplementedError

    def _run_line(self) -> str:
        return (f"  makespan={self.makespan:.6g} s, blocks={self.n_blocks}, evals={self.n_evals}, "
                f"barriers={self.n_barriers}")

    def plot(self, ax: Any = None) -> Any:
        """Gantt chart of the run on `ax` (a new figure when None): PU rows, blocks coloured
        by kind, transfers hatched, idle in grey, evaluations marked (in a real run, a red bar
        on the row of the PU that waits for each). Returns the Axes. :meth:`plot_panels` adds
        the block sizes below."""
        ax = plot_gantt(self.trace, self.m, ax=ax, makespan=self.makespan, **self._gantt_kw())
        ax.set_title(self._title())
        return ax

    def plot_panels(self, ax: Any = None) -> Any:
        """The Gantt chart above the block sizes; `ax`: a pair of Axes (a new figure when
        None). Returns the matplotlib **Figure** (two panels)."""
        return plot_run(self.trace, self.m, series=self.series, ax=ax, makespan=self.makespan,
                        title=self._title(), **self._gantt_kw())


@dataclass(frozen=True, eq=False, repr=False)
class RunResult(BlockRun, Result):
    """What a real execution (:func:`wpart.dynamic.run`) measured.

    Attributes
    ----------
    status : {"feasible", "time_limit"}
        ``"feasible"``: every element was computed. ``"time_limit"``: the run was stopped at
        its `time_limit`; the fields describe the blocks finished by then (``success`` is
        False: part of the data was not computed).
    message : str
        How the run ended.
    makespan : float
        Time of the last block's end, seconds from the start (an evaluation still running
        after the last block is not included).
    trace : ndarray of :data:`TRACE_DTYPE`, shape (n_blocks,)
        One record per finished block, in order of assignment.
    busy, idle, idle_frac : ndarray of float64, shape (m,)
        ``busy = Σ (t_xfer + t_comp)`` of a PU's blocks, ``idle = makespan − busy``,
        ``idle_frac = idle / makespan``.
    elements : ndarray of int64, shape (m,)
        Elements processed per PU.
    shares : ndarray of float64, shape (m,)
        ``elements / n``.
    step_shares : ndarray of float64, shape (m,), or None
        The balancer's step shares in percent (PLB-HAC's first published ``X / S``), or None.
    series : numpy.recarray
        The balancer's block sizes over time: ``series.t`` (or ``series["t"]``) the times,
        ``series.X`` the block-size matrix (time x PU), also ``model_version``, ``T_pred``,
        ``S_eff``. Greedy, HDSS, Static and balancers written in Python record a row whenever
        a PU's block size changes.
    n_evals : int
        Evaluations run.
    n_barriers : int
        Synchronisation points reported by the balancer.
    eval_pu : ndarray of int64, shape (n_evals,)
        The PU that triggered each evaluation (-1: every PU waits for it).
    eval_windows : ndarray of float64, shape (n_evals, 2)
        ``[t_request, t_done]`` of each evaluation (request to publication, in the driver's
        clock); ``t_done`` is NaN for an evaluation the run finished without (its result is
        discarded).
    eval_time : float
        Seconds spent inside the balancer's ``eval_run`` (all evaluations).
    n, m : int
        Elements of the run and number of PUs (``total``, ``n_pu``: deprecated aliases).
    balancer : str
        Name of the balancer.
    workers : list of str
        Description of each PU's worker.
    stats : dict
        ``wall``: wall time of the whole call, start-up and shutdown of the workers included;
        ``completed``: elements computed.
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
    n: int
    m: int
    balancer: str
    workers: list[str] = field(default_factory=list)

    total = deprecated_attr("total", "n", "RunResult")
    n_pu = deprecated_attr("n_pu", "m", "RunResult")

    @property
    def wall(self) -> float:
        """Deprecated: ``stats["wall"]``."""
        warnings.warn("RunResult.wall is deprecated, use stats['wall']", DeprecationWarning, stacklevel=2)
        return float(self.stats.get("wall", math.nan))

    @property
    def n_blocks(self) -> int:
        """Number of blocks run."""
        return int(self.trace.shape[0])

    def _has_answer(self) -> bool:
        return int(self.elements.sum()) == self.n

    def _repr_lines(self) -> list[str]:
        return [
            f"{type(self).__name__}(status={self.status!r}, balancer={self.balancer!r}, m={self.m}, n={self.n})",
            self._run_line(),
            f"  idle={pct(float(self.idle_frac.mean())) if self.m else '-'} (mean over PUs), "
            f"elements={_short(self.elements)}",
            f"  {self.message}",
        ]

    def _title(self) -> str:
        return f"{self.balancer}: makespan {self.makespan:.4g} s (real run)"

    def _gantt_kw(self) -> dict[str, Any]:
        return {"windows": self.eval_windows, "window_pu": self.eval_pu}


def _short(a: NDArray) -> str:
    v = np.asarray(a).tolist()
    return str(v) if len(v) <= 8 else str(v[:8])[:-1] + ", ...]"
