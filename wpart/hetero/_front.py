"""Result objects of wpart.hetero: one distribution, and a time-energy Pareto front.

Both follow wpart's result protocol (:class:`wpart.Result`): ``status`` (``"optimal"``,
``"infeasible"`` when no distribution of `n` exists, ``"time_limit"`` when the time limit
stopped the run), ``success``, ``message``, ``stats``, ``to_dict()``, ``plot(ax=None)`` and
value equality.
"""

from __future__ import annotations
from .._docs import fill_doc
from .._errors import WpartValueError

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._result import Result, new_axes
from .._validate import as_array, as_float, as_int, deprecated_attr, positional_deprecated

__all__ = ["Distribution", "ParetoFront", "classify", "hypervolume"]


@dataclass(frozen=True, eq=False, repr=False)
class Distribution(Result):
    """One workload distribution and its cost.

    Attributes
    ----------
    dist : ndarray of int64, shape (m,), or None
        Units given to each of the `m` processors (0 or a measured size); sums to `n`. None
        when no distribution was found (``status`` ``"infeasible"`` or ``"time_limit"``).
    time : float
        Parallel execution time ``max_i t_i(dist[i])`` (s); NaN without a distribution.
    energy : float
        Dynamic energy ``sum_i e_i(dist[i])`` (J), summed as a right fold; NaN without a
        distribution.
    n : int
        Workload.
    kind : str
        What produced it (``"time_optimal"``, ``"energy_optimal"``, ``"load_balanced"``,
        ``"front"``).
    status : str
        ``"optimal"`` (exact for its criterion), ``"infeasible"`` (no combination of the
        measured sizes and 0 sums to `n`) or ``"time_limit"`` (stopped before an answer).
    message : str
        How the run ended, in one sentence.
    stats : dict
        Timings of the run (``seconds``); not compared by ``==``.
    """

    dist: NDArray[np.int64] | None
    time: float
    energy: float
    n: int
    kind: str = ""

    def _has_answer(self) -> bool:
        return self.dist is not None

    @property
    def m(self) -> int:
        """Number of processors (0 without a distribution)."""
        return 0 if self.dist is None else int(self.dist.shape[0])

    @property
    def active(self) -> int:
        """Number of processors with work."""
        return 0 if self.dist is None else int(np.count_nonzero(self.dist))

    def total_energy(self, static_power: float) -> float:
        """``energy + static_power * time``."""
        ps_w = as_float(static_power, "static_power", minimum=0.0)
        return float(self.energy + ps_w * self.time)

    def _repr_lines(self) -> list[str]:
        head = f"Distribution({self.kind or 'dist'}, status={self.status!r}, n={self.n}"
        if self.dist is None:
            return [head + ")", f"  {self.message}"] if self.message else [head + ")"]
        return [f"{head}, m={self.m}, active={self.active})",
                f"  time {self.time:.6g} s, dynamic energy {self.energy:.6g} J",
                f"  dist {_short(self.dist)}"]

    def plot(self, ax: Any = None, *, names: list[str] | None = None) -> Any:
        """Bar chart of the units given to each processor.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (default: a new figure).
        names : list of str, optional
            Processor labels (default ``P0, P1, ...``; e.g. ``ProfileSet.names``).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        ax = new_axes(ax, figsize=(6, 3.5))
        if self.dist is None:
            ax.set_title(f"n = {self.n}: {self.status}")
            return ax
        labels = names if names is not None else [f"P{i}" for i in range(self.m)]
        ax.bar(range(self.m), self.dist, color="C0")
        ax.set_xticks(range(self.m), labels)
        ax.set_ylabel("units of work")
        ax.set_title(f"{self.kind or 'distribution'}: n = {self.n}, {self.time:.4g} s, "
                     f"{self.energy:.4g} J", fontsize="medium")
        ax.grid(True, axis="y", alpha=0.3)
        return ax


def _short(a: NDArray) -> str:
    v = a.tolist()
    return str(v) if len(v) <= 12 else f"[{', '.join(map(str, v[:10]))}, ... ({len(v)} values)]"


def _no_distribution(n: int, kind: str, status: str, message: str, stats: dict | None = None
                     ) -> Distribution:
    return Distribution(status, message, None, math.nan, math.nan, n, kind, stats=stats or {})


def make_front(method: str, points: tuple, n: int, stats: dict, *, objective: str = "dynamic",
               static_power: float = 0.0, balanced: Distribution | None = None,
               status: str = "", message: str = "") -> ParetoFront:
    """A :class:`ParetoFront` of `method` from ``points = (time, energy, dynamic_energy,
    dist)``; an empty `status` / `message` is derived from the points."""
    t, e, d, x = points
    return ParetoFront(status, message, t, e, d, x, n, objective, static_power, balanced,
                       method, stats=stats)


def stopped_front(method: str, m: int, n: int, stats: dict, message: str,
                  **kw: Any) -> ParetoFront:
    """The empty front of a `method` run stopped by its time limit (`message` says where)."""
    z = np.zeros(0, np.float64)
    return make_front(method, (z, z.copy(), z.copy(), np.zeros((0, m), np.int64)), n, stats,
                      status="time_limit", message=message, **kw)


@fill_doc
def classify(dist: ArrayLike, balanced: ArrayLike) -> str:
    """Load-imbalance class of a distribution against the balanced one.

    ``"balanced"`` when equal; ``"strong"`` when some processor gets no work (the strong load
    imbalance of Sec. 1 of Khaleghzadeh et al.); ``"weak"`` otherwise (every processor works,
    with other amounts). These are wpart's readings of the paper's informal definitions.

    Parameters
    ----------
    dist : array_like
        Units given to each processor (one per processor, summing to the workload).
    balanced : array_like
        The load-balanced distribution to compare with.

    Returns
    -------
    str
        ``"balanced"``, ``"strong"`` or ``"weak"``.

    {raises}
    """
    d = as_array(dist, "dist")
    b = as_array(balanced, "balanced")
    if d.shape != b.shape:
        raise WpartValueError(f"`dist` and `balanced` must have the same shape, got {d.shape} and "
                         f"{b.shape}")
    if np.array_equal(d, b):
        return "balanced"
    return "strong" if np.any(d == 0) else "weak"


@fill_doc
def hypervolume(time: ArrayLike, energy: ArrayLike, ref: tuple[float, float]) -> float:
    """Area dominated by a point set (both objectives minimised) and bounded by `ref`.

    Points that do not strictly dominate `ref` add nothing; dominated points are ignored, so
    any set (e.g. an NSGA-II population) may be passed.

    Parameters
    ----------
    time : array_like
        Times of the points.
    energy : array_like
        Energies of the points.
    ref : tuple[float, float]
        Reference point ``(time, energy)``, worse than every point of the front.

    Returns
    -------
    float
        The area dominated by the points and bounded by `ref`.

    {raises}
    """
    t = as_array(time, "time").ravel()
    e = as_array(energy, "energy").ravel()
    if t.shape != e.shape:
        raise WpartValueError(f"`time` and `energy` must have the same length, got {t.size} and "
                              f"{e.size}")
    try:
        r0, r1 = ref
    except (TypeError, ValueError):
        raise WpartValueError("`ref` must be a pair (time, energy)") from None
    rt = as_float(r0, "ref", allow_inf=True)
    re = as_float(r1, "ref", allow_inf=True)
    keep = (t < rt) & (e < re)
    t, e = t[keep], e[keep]
    if t.size == 0:
        return 0.0
    o = np.lexsort((e, t))  # time ascending, then energy ascending
    hv, best_e = 0.0, re
    for k in o:
        if e[k] < best_e:
            hv += (rt - t[k]) * (best_e - e[k])
            best_e = e[k]
    return float(hv)


@dataclass(frozen=True, eq=False, repr=False)
class ParetoFront(Result):
    """The exact time x energy Pareto front of one workload.

    Points are sorted by energy ascending (so time descending): ``energy[0]`` is the most
    frugal point, ``time[-1]`` the fastest. Inside a front all times differ and all energies
    differ, and no point dominates another.

    Attributes
    ----------
    time : ndarray, shape (k,)
        Parallel execution times (s), strictly descending.
    energy : ndarray, shape (k,)
        The objective energy (J), strictly ascending: dynamic energy, or total energy
        ``dynamic + static_power * time`` when ``objective == "total"``.
    dynamic_energy : ndarray, shape (k,)
        Dynamic part of the energy.
    dist : ndarray of int64, shape (k, m)
        One distribution over the `m` processors per point; every row sums to `n`.
    n : int
        Workload.
    objective : str
        ``"dynamic"`` or ``"total"``.
    static_power : float
        ``P_S`` (W) of the total-energy objective (0 for dynamic).
    balanced : Distribution or None
        The load-balanced distribution (None when not computed, infeasible or stopped by the
        time limit).
    method : str
        ``"hepopta"`` (HEPOPTA/HTPOPTA), ``"threshold_dp"``, ``"bruteforce"`` or ``"milp"``.
    stats : dict
        Counters and wall time of the solve; not compared by ``==``.
    status : str
        ``"optimal"`` (the exact front), ``"infeasible"`` (no distribution of `n` exists:
        the front is empty) or ``"time_limit"`` (the time limit stopped the front -- then it
        is empty -- or the load-balanced baseline after an exact front).
    message : str
        How the run ended, in one sentence.
    """

    time: NDArray[np.float64]
    energy: NDArray[np.float64]
    dynamic_energy: NDArray[np.float64]
    dist: NDArray[np.int64]
    n: int
    objective: str = "dynamic"
    static_power: float = 0.0
    balanced: Distribution | None = None
    method: str = "hepopta"

    def __post_init__(self) -> None:
        if not self.status:
            object.__setattr__(self, "status", "optimal" if len(self) else "infeasible")
        if not self.message:
            object.__setattr__(self, "message", _front_message(self))

    def _has_answer(self) -> bool:
        return len(self) > 0

    # ------------------------------------------------------------------ basics ----
    def __len__(self) -> int:
        return int(self.time.size)

    @property
    def size(self) -> int:
        """Number of points."""
        return len(self)

    @property
    def m(self) -> int:
        """Number of processors."""
        return int(self.dist.shape[1])

    p = deprecated_attr("p", "m", "ParetoFront")

    @property
    def empty(self) -> bool:
        """True when the front has no point (no distribution of `n`, or a time limit)."""
        return len(self) == 0

    def point(self, k: int) -> Distribution:
        """Point `k` (energy order) as a :class:`Distribution` (dynamic energy)."""
        self._need()
        k = as_int(k, "k", minimum=-len(self), maximum=len(self) - 1)
        kk = k % len(self)
        return Distribution("optimal", f"Pareto-optimal point {kk} of {len(self)} (energy order)",
                            self.dist[kk].copy(), float(self.time[kk]),
                            float(self.dynamic_energy[kk]), self.n, "front")

    def _need(self) -> None:
        if self.empty:
            raise WpartValueError(f"the front is empty ({self.status}): {self.message}")

    def fastest(self) -> Distribution:
        """The time-optimal endpoint (least time; least energy among those)."""
        self._need()
        return self.point(len(self) - 1)

    def most_frugal(self) -> Distribution:
        """The energy-optimal endpoint (least energy; least time among those)."""
        self._need()
        return self.point(0)

    def min_energy_within(self, pct: float) -> Distribution:
        """The least-energy point whose time is within `pct` % of the fastest time."""
        self._need()
        pct = as_float(pct, "pct", minimum=0.0, allow_inf=True)
        budget = self.time[-1] * (1.0 + pct / 100.0)
        k = int(np.flatnonzero(self.time <= budget)[0])
        return self.point(k)

    def min_time_within(self, pct: float) -> Distribution:
        """The fastest point whose energy is within `pct` % of the least energy."""
        self._need()
        pct = as_float(pct, "pct", minimum=0.0, allow_inf=True)
        budget = self.energy[0] * (1.0 + pct / 100.0)
        k = int(np.flatnonzero(self.energy <= budget)[-1])
        return self.point(k)

    # ------------------------------------------------------------------ metrics ----
    @positional_deprecated("tol")
    def tradeoff(self, *, tol: float = 0.05) -> dict:
        """The trade-offs of Sec. 8.2 and 8.3 of Khaleghzadeh et al. for a tolerance `tol`.

        Parameters
        ----------
        tol : float, default 0.05
            Relative tolerance (0.05 = 5 %) on the other objective.

        Returns
        -------
        dict
            ``time_gain_pct``: performance gain when energy may rise by `tol` over the least
            energy, ``(t_{e_opt} - t_{e_opt(1+tol)}) / t_{e_opt(1+tol)} * 100`` (a speedup
            minus one, as the paper defines it); ``energy_saving_pct``: the share of the
            time-optimal distribution's energy saved when time may rise by `tol` over the
            least time, ``(e_{t_opt} - e_{t_opt(1+tol)}) / e_{t_opt} * 100`` (between 0 and
            100); ``extra_energy_pct``: the paper's "energy saving" figure for the same pair,
            ``(e_{t_opt} - e_{t_opt(1+tol)}) / e_{t_opt(1+tol)} * 100`` -- how much more
            energy the time-optimal distribution uses (above 100 % when it uses more than
            twice as much).

        Notes
        -----
        ``energy_saving_pct`` changed in this release: it was the paper's ratio, now named
        ``extra_energy_pct``, which exceeds 100 % for large savings.
        """
        self._need()
        tol = as_float(tol, "tol", minimum=0.0, allow_inf=True)
        lo = self.min_time_within(100.0 * tol)
        fr = self.min_energy_within(100.0 * tol)
        t_eopt = float(self.time[0])
        e_topt = float(self.energy[-1])
        k_lo = int(np.flatnonzero(self.time == lo.time)[0])
        k_fr = int(np.flatnonzero(self.time == fr.time)[0])
        e_fr = float(self.energy[k_fr])
        return {
            "tol": tol,
            "time_gain_pct": _ratio_pct(t_eopt, float(self.time[k_lo])),
            "energy_saving_pct": _saving_pct(e_topt, e_fr),
            "extra_energy_pct": _ratio_pct(e_topt, e_fr),
        }

    @positional_deprecated("balanced")
    def gains_vs_balanced(self, *, balanced: Distribution | None = None) -> dict:
        """Gains of the optimal endpoints over the load-balanced distribution (Sec. 8.2 of
        Khaleghzadeh et al.).

        Parameters
        ----------
        balanced : Distribution, optional
            The baseline (default: :attr:`balanced`).

        Returns
        -------
        dict
            ``time_improvement_pct = (t_bal - t_opt) / t_opt * 100`` (the paper's performance
            improvement, a speedup minus one); ``energy_saving_pct = (e_bal - e_opt) / e_bal *
            100``, the share of the balanced distribution's energy saved (between 0 and 100);
            ``extra_energy_pct = (e_bal - e_opt) / e_opt * 100``, the paper's "energy saving"
            figure (how much more energy the balanced distribution uses; may exceed 100 %);
            energies in this front's objective; plus the balanced point and whether a front
            point dominates it.
        """
        self._need()
        b = balanced if balanced is not None else self.balanced
        if b is None or b.dist is None:
            raise WpartValueError("`balanced`: no load-balanced distribution: pass one or "
                                  "compute the front with balanced=True")
        eb = b.energy + (self.static_power * b.time if self.objective == "total" else 0.0)
        t_opt, e_opt = float(self.time[-1]), float(self.energy[0])
        dominated = bool(np.any((self.time <= b.time) & (self.energy <= eb)
                                & ((self.time < b.time) | (self.energy < eb))))
        return {
            "balanced_time": float(b.time),
            "balanced_energy": float(eb),
            "balanced_dist": b.dist.tolist(),
            "time_improvement_pct": _ratio_pct(float(b.time), t_opt),
            "energy_saving_pct": _saving_pct(float(eb), e_opt),
            "extra_energy_pct": _ratio_pct(float(eb), e_opt),
            "balanced_dominated": dominated,
        }

    @positional_deprecated("balanced")
    def imbalance_classes(self, *, balanced: Distribution | None = None) -> list[dict]:
        """Per point: its load-imbalance class against the balanced distribution
        (:func:`classify`) and the load imbalance ratio ``LIR = time / balanced time``."""
        b = balanced if balanced is not None else self.balanced
        if b is None or b.dist is None:
            raise WpartValueError("`balanced`: no load-balanced distribution: pass one or "
                                  "compute the front with balanced=True")
        return [{"class": classify(self.dist[k], b.dist),
                 "lir": float(self.time[k] / b.time) if b.time > 0 else float("nan")}
                for k in range(len(self))]

    @positional_deprecated("balanced")
    def imbalance(self, *, balanced: Distribution | None = None) -> list[dict]:
        """Deprecated alias of :meth:`imbalance_classes` (``imbalance`` is a fraction in the
        other families' results)."""
        import warnings

        warnings.warn("ParetoFront.imbalance() is deprecated, use "
                      "ParetoFront.imbalance_classes()", DeprecationWarning, stacklevel=2)
        return self.imbalance_classes(balanced=balanced)

    @positional_deprecated("ref")
    def hypervolume(self, *, ref: tuple[float, float] | None = None) -> float:
        """Dominated area up to `ref` (default: 1.1 x the largest time and energy)."""
        if self.empty:
            return 0.0
        if ref is None:
            ref = (1.1 * float(self.time.max()), 1.1 * float(self.energy.max()))
        return hypervolume(self.time, self.energy, ref)

    # ------------------------------------------------------------------ output ----
    def _repr_lines(self) -> list[str]:
        meth = "htpopta" if self.method == "hepopta" and self.objective == "total" else \
            self.method
        head = (f"ParetoFront({meth}, {self.objective} energy, status={self.status!r}, "
                f"n={self.n}, m={self.m}, points={len(self)})")
        if self.empty:
            return [head, f"  {self.message}"]
        out = [head,
               f"  fastest     {self.time[-1]:.6g} s, {self.energy[-1]:.6g} J",
               f"  most frugal {self.time[0]:.6g} s, {self.energy[0]:.6g} J"]
        if self.balanced is not None and self.balanced.dist is not None:
            b = self.balanced
            eb = b.energy + (self.static_power * b.time if self.objective == "total" else 0.0)
            out.append(f"  balanced    {b.time:.6g} s, {eb:.6g} J")
        if self.status != "optimal":
            out.append(f"  {self.message}")
        return out

    def plot(self, ax: Any = None, *, balanced: bool = True, annotate: bool = True,
             label: str | None = None) -> Any:
        """Draw the front (time against energy) with the load-balanced point marked.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (default: a new figure).
        balanced : bool, default True
            Mark the load-balanced distribution.
        annotate : bool, default True
            Mark the fastest and the most frugal endpoints.
        label : str, optional
            Legend label of the front.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        ax = new_axes(ax, figsize=(6, 4))
        lab = label or f"Pareto front ({len(self)} points)"
        ax.plot(self.time, self.energy, "o-", ms=3, lw=0.8, label=lab)
        if annotate and not self.empty:
            ax.plot(self.time[-1], self.energy[-1], "s", color="C2", label="fastest")
            ax.plot(self.time[0], self.energy[0], "D", color="C1", label="most frugal")
        if balanced and self.balanced is not None and self.balanced.dist is not None:
            b = self.balanced
            eb = b.energy + (self.static_power * b.time if self.objective == "total" else 0.0)
            ax.plot(b.time, eb, "*", ms=14, mfc="none", mew=1.4, color="C3",
                    label="load-balanced")
        ax.set_xlabel("execution time (s)")
        ax.set_ylabel(("total" if self.objective == "total" else "dynamic") + " energy (J)")
        ax.set_title(f"n = {self.n}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        return ax


def _front_message(f: ParetoFront) -> str:
    if f.status == "infeasible":
        return f"no distribution of n = {f.n} exists (no combination of measured sizes sums to it)"
    if f.status == "time_limit":
        return "the time limit was reached" + (
            "" if f.empty else " after the exact front, in the load-balanced baseline")
    return f"exact front of {len(f)} point{'s' if len(f) != 1 else ''}"


def _ratio_pct(a: float, b: float) -> float:
    """``(a - b) / b * 100`` (0 when both are 0, inf when only b is 0)."""
    if b == 0:
        return 0.0 if a == 0 else float("inf")
    return (a - b) / b * 100.0


def _saving_pct(before: float, after: float) -> float:
    """``(before - after) / before * 100``: the share of `before` saved (0 when both are 0)."""
    if before == 0:
        return 0.0
    return (before - after) / before * 100.0
