"""Decisions of multi-kernel runs over time [Soldado 2016]: profile construction and
rebalancing, as thin wrappers over the C core.

:class:`BisectionGenerator` is the workload distribution generator of profile construction
(Sec. 3.2.2), :class:`ConfigSearch` the discard rule of Algorithm 1 (fission, then overlap,
then work-group size), :class:`ImbalanceDetector` the monitoring of Sec. 3.3 and
:class:`AdaptiveBinarySearch` the rebalancing of Sec. 3.3.1; :func:`interpolate` derives a
value for an unseen workload from stored ones (Sec. 3.2.3). Defaults in :data:`MK_DEFAULTS`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._docs import fill_doc
from .._errors import WpartValueError
from .._validate import as_array, as_float, as_floats, as_int
from ._defaults import MK_DEFAULTS

__all__ = [
    "BisectionGenerator",
    "ConfigSearch",
    "ImbalanceDetector",
    "AdaptiveBinarySearch",
    "balance_ratio",
    "interpolate",
    "INTERP_METHODS",
]

#: What :func:`interpolate` used, by the code it returns.
INTERP_METHODS = ("node", "rbf", "idw", "nearest")


def _time(x: Any, name: str) -> float:
    return as_float(x, name, minimum=0.0, allow_inf=True)


class BisectionGenerator:
    """Workload distribution generator of profile construction (Sec. 3.2.2 of [Soldado 2016]).

    All the work starts transferable (``X = 1``); each candidate gives half of the
    transferable part to each type (``s = g + X/2``); the feedback binds that half for good to
    the type that finished first, and the other half becomes the new transferable part, so
    after ``i`` feedbacks ``X = 2**-i``. A tie, or ``X < x_min``, ends it.

    Parameters
    ----------
    x_min : float, optional
        Smallest transferable part (in (0, 1]); the share of the smallest quantum is a good
        value. Default ``MK_DEFAULTS["x_min"]``.

    Examples
    --------
    >>> from wpart.multikernel import BisectionGenerator
    >>> gen = BisectionGenerator()
    >>> seq = []
    >>> for _ in range(3):
    ...     seq.append(gen.candidate())
    ...     _ = gen.feedback(1.0, 2.0)     # the GPU finished first each time
    >>> seq
    [0.5, 0.75, 0.875]
    """

    def __init__(self, *, x_min: float | None = None) -> None:
        xm = MK_DEFAULTS["x_min"] if x_min is None else x_min
        self._st = _core.multikernel_bisect_new(as_float(xm, "x_min", minimum=0.0, maximum=1.0,
                                                strict_minimum=True))

    def candidate(self) -> float:
        """The GPU share to measure next."""
        return _core.multikernel_bisect_get(self._st)[6]

    def feedback(self, t_gpu: float, t_cpu: float) -> bool:
        """Times of the GPU and CPU types measured with the last candidate; returns whether
        the generator is exhausted."""
        return _core.multikernel_bisect_feedback(self._st, _time(t_gpu, "t_gpu"), _time(t_cpu, "t_cpu"))

    @property
    def state(self) -> dict[str, float]:
        """``g`` (bound to the GPU), ``c`` (bound to the CPU), ``X`` (transferable), ``iter``,
        ``exhausted``."""
        g, c, X, xm, it, ex, _ = _core.multikernel_bisect_get(self._st)
        return {"g": g, "c": c, "X": X, "x_min": xm, "iter": it, "exhausted": bool(ex)}

    @property
    def exhausted(self) -> bool:
        return bool(_core.multikernel_bisect_get(self._st)[5])


class ConfigSearch:
    """The discard rule of profile construction (Algorithm 1 of [Soldado 2016]).

    Fission levels are the outermost dimension, then GPU overlap factors, then work-group
    size candidates, each in its iterator order. A dimension stops at the first candidate
    whose best time does not beat the previous candidate's; the best configuration overall
    is the choice (this is where the CPU fission level is decided).

    Parameters
    ----------
    n_fission, n_overlap, n_wgs : int
        Candidates per dimension (>= 1).

    Examples
    --------
    >>> from wpart.multikernel import ConfigSearch
    >>> cs = ConfigSearch(3, 2, 1)
    >>> times = {(0, 0, 0): 5.0, (0, 1, 0): 6.0, (1, 0, 0): 4.0, (1, 1, 0): 3.0, (2, 0, 0): 9.0,
    ...          (2, 1, 0): 9.0}
    >>> while (cfg := cs.next()) is not None:
    ...     cs.report(times[cfg])
    >>> cs.best
    ((1, 1, 0), 3.0)
    """

    def __init__(self, n_fission: int, n_overlap: int, n_wgs: int) -> None:
        self._st = _core.multikernel_search_new(as_int(n_fission, "n_fission", minimum=1, maximum=2**31 - 1),
                                       as_int(n_overlap, "n_overlap", minimum=1, maximum=2**31 - 1),
                                       as_int(n_wgs, "n_wgs", minimum=1, maximum=2**31 - 1))

    def next(self) -> tuple[int, int, int] | None:
        """Indices ``(fission, overlap, wgs)`` to evaluate next, or None when the search is over."""
        more, f, o, w, *_ = _core.multikernel_search_get(self._st)
        return (f, o, w) if more else None

    def report(self, t: float) -> None:
        """Best time measured for the configuration :meth:`next` gave (``inf`` if it failed)."""
        _core.multikernel_search_report(self._st, _time(t, "t"))

    @property
    def best(self) -> tuple[tuple[int, int, int] | None, float]:
        """``((fission, overlap, wgs), time)`` of the best configuration evaluated so far."""
        _, _, _, _, t, f, o, w, _ = _core.multikernel_search_get(self._st)
        return ((f, o, w) if f >= 0 else None), t

    @property
    def evaluated(self) -> int:
        return _core.multikernel_search_get(self._st)[8]


@fill_doc
def balance_ratio(t_dev: Any) -> float:
    """Balance ratio of a run: ``min(t_dev) / max(t_dev)`` in [0, 1] (1 = perfect; an idle
    active device, time 0, gives 0; all zero gives 1).

    Parameters
    ----------
    t_dev : object
        Execution time of each device in the last run.

    Returns
    -------
    float
        Slowest over fastest device time (1: balanced).

    {raises}
    """
    return _core.multikernel_balance_ratio(as_floats(t_dev, "t_dev", values="any", copy=False))


class ImbalanceDetector:
    """Monitoring of every run: weighted moving average of the balance ratio (Sec. 3.3 of
    [Soldado 2016]).

    With ``bound = max_dev * cf`` and ``dev`` the median balance ratio (min/max of the device
    completion times) of the last `window` runs, ``lbt <- w * dev / bound + (1 - w) * lbt``
    from ``lbt = 1 / bound``; a run fires a balancing operation when ``lbt < 1`` and that
    median is unbalanced (``dev < bound``). The median keeps one noisy run (a CPU run that
    took 50x longer on a loaded machine) from firing, or from hiding a real imbalance
    (window 1, the default, is the paper's rule on the run's own ratio). With the defaults, 3
    to 5 consecutive unbalanced runs of ratio 0.3-0.6 fire, and from a history at 0.95 or
    above one isolated unbalanced run never does, whatever its ratio. After a long history
    just above the bound (``bound`` 0.85) ``lbt`` sits near 1, and one strongly unbalanced run
    fires (after a history at 0.9: a run below 0.4; at 0.86: below 0.76): the rule weighs
    the history, and such a history is itself nearly unbalanced.

    Parameters
    ----------
    w : float, optional
        Weight of the latest run, in (0, 1].
    max_dev : float, optional
        Smallest balance ratio of a balanced run, in (0, 1] (the paper recommends 0.80-0.85).
    cf : float, optional
        Correction factor in (0, 1] for computations whose best configuration is a little
        unbalanced.
    window : int, optional
        Runs whose median ratio is judged, 1 to 15 (default ``MK_DEFAULTS["detector_window"]``,
        1: the paper's rule; 3 ignores an isolated noisy run).

    Examples
    --------
    >>> from wpart.multikernel import ImbalanceDetector
    >>> det = ImbalanceDetector()
    >>> [det.update([1.0, 0.5])[0] for _ in range(4)]
    [False, False, False, True]
    """

    def __init__(self, *, w: float | None = None, max_dev: float | None = None,
                 cf: float | None = None, window: int | None = None) -> None:
        d = MK_DEFAULTS
        self._st = _core.multikernel_detector_new(
            as_float(d["w"] if w is None else w, "w"),
            as_float(d["max_dev"] if max_dev is None else max_dev, "max_dev"),
            as_float(d["cf"] if cf is None else cf, "cf"),
            as_int(d["detector_window"] if window is None else window, "window", minimum=1,
                   maximum=15))

    def update(self, t_dev: Any) -> tuple[bool, float]:
        """Monitors one run from its per-device completion times; returns ``(fire, dev)``."""
        t = as_floats(t_dev, "t_dev", values="any", copy=False)
        return _core.multikernel_detector_update(self._st, t)

    def reset(self) -> None:
        """Back to a balanced history (a new (computation, workload) pair or a new profile)."""
        _core.multikernel_detector_reset(self._st)

    @property
    def lbt(self) -> float:
        return _core.multikernel_detector_get(self._st)[3]

    @property
    def bound(self) -> float:
        """``max_dev * cf``: the smallest balance ratio of a balanced run."""
        g = _core.multikernel_detector_get(self._st)
        return g[1] * g[2]

    @property
    def state(self) -> dict[str, float]:
        w, md, cf, lbt, dev, runs, unb, fired = _core.multikernel_detector_get(self._st)
        return {"w": w, "max_dev": md, "cf": cf, "lbt": lbt, "last_dev": dev, "runs": runs,
                "unbalanced": unb, "fired": fired}


class AdaptiveBinarySearch:
    """The rebalancing of the CPU/GPU share (adaptive binary search, Sec. 3.3.1 of
    [Soldado 2016]).

    Each :meth:`step` moves work from the slower type to the faster one. It shifts by
    ``T_init`` (the interval slides sideways), doubling the step after more than two shifts
    the same way (capped at ``T_max``); the first reversal brackets the optimum, which is then
    bisected down to ``T_min``. A bracket that collapses onto one edge three times in a row
    means the optimum has left it: the search shifts again.

    With ``window > 1`` (the robust rule) a step does not judge the run's own times: each
    run (stepped, or recorded with :meth:`observe`) adds its times per unit of share
    (``t_gpu / s`` and ``t_cpu / (1 - s)``), and the step compares, for each type, the
    ``ceil(window / 3)``-th smallest of the last `window` of them (the second fastest of 4:
    a noisy run on a busy machine is a slow one), scaled to the current share. In the
    converged state an opposite step takes one off the count of steps one way instead of
    resetting it, and ``2 * window`` steps there restart the shift whatever their
    directions (a converged share that keeps being stepped is not balanced). Noisy runs
    then neither turn the search nor stall it.

    Parameters
    ----------
    s : float
        GPU share of the run that fired, in [0, 1].
    T_init, T_min, T_max : float, optional
        ``0 < T_min <= T_init <= T_max <= 1``.
    window : int, optional
        Runs whose per-share times a step judges, 1 to 15 (default
        ``MK_DEFAULTS["search_window"]``, 1: the paper's rule on the run's own times).
    band : float, optional
        With ``window > 1``: a step does not move while the ratio min/max of those
        estimates is at least `band` (in [0, 1); :class:`DecisionLoop` passes the detector's bound).

    Examples
    --------
    >>> from wpart.multikernel import AdaptiveBinarySearch
    >>> abs_ = AdaptiveBinarySearch(0.5)
    >>> [abs_.step(1.0, 2.0) for _ in range(4)]   # the GPU keeps finishing first
    [0.5625, 0.625, 0.75, 1.0]
    """

    def __init__(self, s: float, *, T_init: float | None = None, T_min: float | None = None,
                 T_max: float | None = None, window: int | None = None,
                 band: float = 0.0) -> None:
        d = MK_DEFAULTS
        self._st = _core.multikernel_abs_new(
            as_float(s, "s", minimum=0.0, maximum=1.0),
            as_float(d["T_init"] if T_init is None else T_init, "T_init"),
            as_float(d["T_min"] if T_min is None else T_min, "T_min"),
            as_float(d["T_max"] if T_max is None else T_max, "T_max"),
            as_int(d["search_window"] if window is None else window, "window", minimum=1,
                   maximum=15),
            as_float(band, "band", minimum=0.0, maximum=1.0))

    def step(self, t_gpu: float, t_cpu: float) -> float:
        """One balancing operation from the type times measured with the current share;
        returns the share for the next run."""
        return _core.multikernel_abs_step(self._st, _time(t_gpu, "t_gpu"), _time(t_cpu, "t_cpu"))

    def observe(self, t_gpu: float, t_cpu: float) -> None:
        """Records a run made with the current share without a step (the robust rule's
        window; nothing with ``window=1``)."""
        _core.multikernel_abs_observe(self._st, _time(t_gpu, "t_gpu"), _time(t_cpu, "t_cpu"))

    def estimate(self) -> tuple[float, float] | None:
        """``(t_gpu, t_cpu)`` at the current share from the recorded runs' per-share times
        (the ``ceil(window / 3)``-th smallest of each type) (None with ``window=1`` or before a run of each type that runs)."""
        return _core.multikernel_abs_estimate(self._st)

    def judge(self) -> float:
        """One balancing operation on the recorded runs (after :meth:`observe`), without a
        new run; returns the share for the next run."""
        return _core.multikernel_abs_judge(self._st)

    def restart(self, s: float) -> None:
        """A new episode from share `s` (shift phase, step ``T_init``); the recorded runs and
        the constants are kept."""
        _core.multikernel_abs_restart(self._st, as_float(s, "s", minimum=0.0, maximum=1.0))

    @property
    def s(self) -> float:
        return _core.multikernel_abs_get(self._st)[0]

    @property
    def state(self) -> dict[str, Any]:
        s, T, lo, hi, s_prev, tmin, tmax, phase, last_dir, steps, window, band = \
            _core.multikernel_abs_get(self._st)
        return {"s": s, "T": T, "lo": lo, "hi": hi, "s_prev": s_prev, "T_min": tmin,
                "T_max": tmax, "phase": ("shift", "bisect", "converged")[phase],
                "last_dir": last_dir, "steps": steps, "window": window, "band": band}


@fill_doc
def interpolate(X: Any, y: Any, x: Any) -> tuple[NDArray[np.float64], str]:
    """Scattered-data interpolation of stored values at new points (Sec. 3.2.3 of
    [Soldado 2016]).

    Duplicate nodes are merged (mean of their values). One distinct node gives its value;
    1 to 3 features with at least ``d + 1`` nodes in general position use the exact
    polyharmonic RBF ``r^2 log r`` with an affine tail (exact at every node); a singular
    system or too few nodes fall back to inverse distance weighting (power 2, also exact at
    the nodes); more than 3 features use the Euclidean nearest node.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Node features (log2 extents of the stored workloads, for a derivation).
    y : array_like, shape (n,)
        Node values.
    x : array_like, shape (q, d) or (d,)
        Points to evaluate.

    Returns
    -------
    values : ndarray of float64, shape (q,)
    method : str
        One of :data:`INTERP_METHODS`.

    {raises}
    """
    # ragged, dict, str, sparse, None inside, NaN or inf: a WpartError naming the argument
    Xa = as_array(X, "X", ndims=(1, 2), allow_inf=False)
    if Xa.ndim == 1:
        Xa = Xa[:, None]
    n, d = Xa.shape
    if n == 0 or d == 0:
        raise WpartValueError(f"`X` must have at least one node and one feature, got shape "
                              f"{Xa.shape}")
    ya = as_array(y, "y", ndims=(1,), allow_inf=False)
    if ya.shape[0] != n:
        raise WpartValueError(f"`y` must have one value per node of `X` ({n}), got {ya.shape[0]}")
    xa = as_array(x, "x", ndims=(0, 1, 2), allow_inf=False)
    if xa.ndim <= 1:
        if xa.size % d:
            raise WpartValueError(f"`x` must hold points of {d} feature(s) like `X`, got "
                                  f"shape {xa.shape}")
        xa = xa.reshape(-1, d)
    elif xa.shape[1] != d:
        raise WpartValueError(f"`x` must have {d} feature(s) per point like `X`, got shape "
                              f"{xa.shape}")
    vals, how = _core.multikernel_interpolate(np.ascontiguousarray(Xa), ya,
                                     np.ascontiguousarray(xa))
    return vals, INTERP_METHODS[how]
