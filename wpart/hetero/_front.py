"""Result objects of wpart.hetero: one distribution, and a time-energy Pareto front."""

from __future__ import annotations
from .._errors import WpartValueError

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Distribution", "ParetoFront", "classify", "hypervolume"]


@dataclass(frozen=True)
class Distribution:
    """One workload distribution and its cost.

    Attributes
    ----------
    dist : ndarray of int64, shape (p,)
        Units given to each processor (0 or a measured size); sums to `n`.
    time : float
        Parallel execution time ``max_i t_i(dist[i])`` (s).
    energy : float
        Dynamic energy ``sum_i e_i(dist[i])`` (J), summed as a right fold.
    n : int
        Workload.
    kind : str
        What produced it (``"time_optimal"``, ``"energy_optimal"``, ``"load_balanced"``,
        ``"front"``).
    """

    dist: NDArray[np.int64]
    time: float
    energy: float
    n: int
    kind: str = ""

    @property
    def active(self) -> int:
        """Number of processors with work."""
        return int(np.count_nonzero(self.dist))

    def total_energy(self, static_power: float) -> float:
        """``energy + static_power * time``."""
        return float(self.energy + static_power * self.time)

    def to_dict(self) -> dict:
        """JSON-friendly dictionary."""
        return {"dist": self.dist.tolist(), "time": float(self.time),
                "energy": float(self.energy), "n": int(self.n), "kind": self.kind}

    def __repr__(self) -> str:
        return (f"Distribution({self.kind or 'dist'}: n={self.n}, time={self.time:.6g}, "
                f"energy={self.energy:.6g}, dist={self.dist.tolist()})")


def classify(dist: ArrayLike, balanced: ArrayLike) -> str:
    """Load-imbalance class of a distribution against the balanced one (spec 8 item 15).

    ``"balanced"`` when equal; ``"strong"`` when some processor gets no work (the paper's
    strong load imbalance); ``"weak"`` otherwise (every processor works, with other amounts).
    These are wpart's readings of the paper's informal definitions.
    """
    d = np.asarray(dist)
    b = np.asarray(balanced)
    if d.shape != b.shape:
        raise WpartValueError(f"`dist` and `balanced` must have the same shape, got {d.shape} and "
                         f"{b.shape}")
    if np.array_equal(d, b):
        return "balanced"
    return "strong" if np.any(d == 0) else "weak"


def hypervolume(time: ArrayLike, energy: ArrayLike, ref: tuple[float, float]) -> float:
    """Area dominated by a point set (both objectives minimised) and bounded by `ref`.

    Points that do not strictly dominate `ref` add nothing; dominated points are ignored, so
    any set (e.g. an NSGA-II population) may be passed.
    """
    t = np.asarray(time, dtype=np.float64).ravel()
    e = np.asarray(energy, dtype=np.float64).ravel()
    rt, re = float(ref[0]), float(ref[1])
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


@dataclass(frozen=True)
class ParetoFront:
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
    dist : ndarray of int64, shape (k, p)
        One distribution per point; every row sums to `n`.
    n : int
        Workload.
    objective : str
        ``"dynamic"`` or ``"total"``.
    static_power : float
        ``P_S`` (W) of the total-energy objective (0 for dynamic).
    balanced : Distribution or None
        The load-balanced distribution of spec 2.10 (None when not computed or infeasible).
    method : str
        ``"hepopta"`` (HEPOPTA/HTPOPTA), ``"threshold_dp"``, ``"bruteforce"`` or ``"milp"``.
    stats : dict
        Counters and wall time of the solve.
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
    stats: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ basics ----
    def __len__(self) -> int:
        return int(self.time.size)

    @property
    def size(self) -> int:
        """Number of points."""
        return len(self)

    @property
    def p(self) -> int:
        """Number of processors."""
        return int(self.dist.shape[1])

    @property
    def empty(self) -> bool:
        """True when no distribution of `n` exists."""
        return len(self) == 0

    def point(self, k: int) -> Distribution:
        """Point `k` (energy order) as a :class:`Distribution` (dynamic energy)."""
        return Distribution(self.dist[k].copy(), float(self.time[k]),
                            float(self.dynamic_energy[k]), self.n, "front")

    def _need(self) -> None:
        if self.empty:
            raise WpartValueError(f"the front is empty: no distribution of n = {self.n} exists")

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
        if not pct >= 0:
            raise WpartValueError(f"`pct` must be >= 0, got {pct}")
        budget = self.time[-1] * (1.0 + pct / 100.0)
        k = int(np.flatnonzero(self.time <= budget)[0])
        return self.point(k)

    def min_time_within(self, pct: float) -> Distribution:
        """The fastest point whose energy is within `pct` % of the least energy."""
        self._need()
        if not pct >= 0:
            raise WpartValueError(f"`pct` must be >= 0, got {pct}")
        budget = self.energy[0] * (1.0 + pct / 100.0)
        k = int(np.flatnonzero(self.energy <= budget)[-1])
        return self.point(k)

    # ------------------------------------------------------------------ metrics (spec 2.12) ----
    def tradeoff(self, tol: float = 0.05) -> dict:
        """The paper's trade-off figures for a tolerance `tol` (0.05 = 5 %).

        Returns
        -------
        dict
            ``time_gain_pct``: performance gain when energy may rise by `tol` over the least
            energy, ``(t_{e_opt} - t_{e_opt(1+tol)}) / t_{e_opt(1+tol)} * 100``;
            ``energy_saving_pct``: energy saving when time may rise by `tol` over the least
            time, ``(e_{t_opt} - e_{t_opt(1+tol)}) / e_{t_opt(1+tol)} * 100``.
        """
        self._need()
        lo = self.min_time_within(100.0 * tol)
        fr = self.min_energy_within(100.0 * tol)
        t_eopt = float(self.time[0])
        e_topt = float(self.energy[-1])
        k_lo = int(np.flatnonzero(self.time == lo.time)[0])
        k_fr = int(np.flatnonzero(self.time == fr.time)[0])
        e_fr = float(self.energy[k_fr])
        return {
            "tol": tol,
            "time_gain_pct": _pct(t_eopt, float(self.time[k_lo])),
            "energy_saving_pct": _pct(e_topt, e_fr),
        }

    def gains_vs_balanced(self, balanced: Distribution | None = None) -> dict:
        """Gains of the optimal endpoints over the load-balanced distribution (paper 8.2).

        Returns
        -------
        dict
            ``time_improvement_pct = (t_bal - t_opt) / t_opt * 100`` and
            ``energy_saving_pct = (e_bal - e_opt) / e_opt * 100`` (energies in this front's
            objective), plus the balanced point and whether a front point dominates it.
        """
        self._need()
        b = balanced if balanced is not None else self.balanced
        if b is None:
            raise WpartValueError("no load-balanced distribution: pass `balanced` or compute the "
                             "front with balanced=True")
        eb = b.energy + (self.static_power * b.time if self.objective == "total" else 0.0)
        t_opt, e_opt = float(self.time[-1]), float(self.energy[0])
        dominated = bool(np.any((self.time <= b.time) & (self.energy <= eb)
                                & ((self.time < b.time) | (self.energy < eb))))
        return {
            "balanced_time": float(b.time),
            "balanced_energy": float(eb),
            "balanced_dist": b.dist.tolist(),
            "time_improvement_pct": _pct(float(b.time), t_opt),
            "energy_saving_pct": _pct(float(eb), e_opt),
            "balanced_dominated": dominated,
        }

    def imbalance(self, balanced: Distribution | None = None) -> list[dict]:
        """Per point: its class against the balanced distribution (:func:`classify`) and the
        load imbalance ratio ``LIR = time / balanced time`` (spec 8 item 15)."""
        b = balanced if balanced is not None else self.balanced
        if b is None:
            raise WpartValueError("no load-balanced distribution: pass `balanced` or compute the "
                             "front with balanced=True")
        return [{"class": classify(self.dist[k], b.dist),
                 "lir": float(self.time[k] / b.time) if b.time > 0 else float("nan")}
                for k in range(len(self))]

    def hypervolume(self, ref: tuple[float, float] | None = None) -> float:
        """Dominated area up to `ref` (default: 1.1 x the largest time and energy)."""
        if self.empty:
            return 0.0
        if ref is None:
            ref = (1.1 * float(self.time.max()), 1.1 * float(self.energy.max()))
        return hypervolume(self.time, self.energy, ref)

    # ------------------------------------------------------------------ output ----
    def to_dict(self) -> dict:
        """JSON-friendly dictionary."""
        return {
            "n": int(self.n),
            "objective": self.objective,
            "static_power": float(self.static_power),
            "method": self.method,
            "time": self.time.tolist(),
            "energy": self.energy.tolist(),
            "dynamic_energy": self.dynamic_energy.tolist(),
            "dist": self.dist.tolist(),
            "balanced": None if self.balanced is None else self.balanced.to_dict(),
            "stats": {k: (float(v) if isinstance(v, float) else v) for k, v in self.stats.items()},
        }

    def __repr__(self) -> str:
        if self.empty:
            return f"ParetoFront(n={self.n}, {self.objective}, empty)"
        return (f"ParetoFront(n={self.n}, {self.objective}, points={len(self)}, "
                f"fastest=({self.time[-1]:.6g} s, {self.energy[-1]:.6g} J), "
                f"most frugal=({self.time[0]:.6g} s, {self.energy[0]:.6g} J))")

    def plot(self, ax: Any = None, *, balanced: bool = True, annotate: bool = True,
             label: str | None = None) -> Any:
        """Draw the front (time against energy) with the load-balanced point marked.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        lab = label or f"Pareto front ({len(self)} points)"
        ax.plot(self.time, self.energy, "o-", ms=3, lw=0.8, label=lab)
        if annotate and not self.empty:
            ax.plot(self.time[-1], self.energy[-1], "s", color="C2", label="fastest")
            ax.plot(self.time[0], self.energy[0], "D", color="C1", label="most frugal")
        if balanced and self.balanced is not None:
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


def _pct(a: float, b: float) -> float:
    """``(a - b) / b * 100`` (0 when both are 0, inf when only b is 0)."""
    if b == 0:
        return 0.0 if a == 0 else float("inf")
    return (a - b) / b * 100.0
