"""The solver entry points of :mod:`wpart.hetero` (re-exported there; see its docstring)."""

from __future__ import annotations
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError

import math
import time as _time
from typing import Any

import numpy as np

from .. import _core
from .._progress import progress_hook
from .._validate import as_int, choice
from ._front import Distribution, ParetoFront, classify, hypervolume
from ._profiles import Profile, ProfileSet, as_profiles
from ._synth import PRESETS, linear_profiles, synthetic


def _n(n: Any) -> int:
    return as_int(n, "n", minimum=0)


def _real(v: Any, name: str) -> float:
    """A real scalar (not bool, not a string or array): TypeError naming `name` otherwise."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                            np.floating)):
        raise WpartTypeError(f"`{name}` must be a real number, got {type(v).__name__}")
    return float(v)


def _limit(v: Any, name: str) -> int:
    """A positive count bounded by int64 (the core's size type)."""
    k = as_int(v, name, minimum=1)
    if k > 2**63 - 1:
        raise WpartOverflowError(f"`{name}` must fit in int64, got {k}")
    return k


def _time_limit(tl: float | None) -> float:
    if tl is None:
        return 0.0
    tl = _real(tl, "time_limit")
    if not tl > 0:
        raise WpartValueError(f"`time_limit` must be > 0 seconds, got {tl}")
    return tl


def optimal_time(profiles: Any, n: int, *, progress: Any = False,
                 time_limit: float | None = None) -> Distribution | None:
    """The time-optimal distribution (TOPT, spec 2.3).

    Least parallel time ``max_i t_i(x_i)`` over all distributions of `n`; among the fastest
    ones, least dynamic energy (then fewer active processors, then smaller shares first). Exact,
    in ``O(log(mp) p m N / 64 + p m N)`` with ``N = n / g``.

    Parameters
    ----------
    profiles : ProfileSet or sequence of (sizes, times, energies)
        One triple per processor (energies may be omitted: ``(sizes, times)``).
    n : int
        Workload, >= 0.
    progress : bool or callable, default False
    time_limit : float, optional
        Seconds after which :class:`wpart.CancelledError` is raised.

    Returns
    -------
    Distribution or None
        ``.time``, ``.energy`` and ``.dist`` (shape (p,)); None when no combination of the
        measured sizes (and 0) sums to `n`.
    """
    ps = as_profiles(profiles)
    n = _n(n)
    with progress_hook(progress, total=1.0, desc="TOPT") as hook:
        r = _core.hetero_point("time_optimal", n, *ps.csr(), hook, _time_limit(time_limit))
    if r is None:
        return None
    return Distribution(r[2], r[0], r[1], n, "time_optimal")


def optimal_energy(profiles: Any, n: int, *, progress: Any = False,
                   time_limit: float | None = None) -> Distribution | None:
    """The energy-optimal distribution: least dynamic energy, then least time.

    Stops on Ctrl-C and after `time_limit` seconds (:class:`wpart.CancelledError`)."""
    ps = as_profiles(profiles)
    n = _n(n)
    with progress_hook(progress, total=1.0, desc="least energy") as hook:
        r = _core.hetero_point("energy_optimal", n, *ps.csr(), hook, _time_limit(time_limit))
    if r is None:
        return None
    return Distribution(r[2], r[0], r[1], n, "energy_optimal")


def load_balanced(profiles: Any, n: int, mode: str = "max_active", *, progress: Any = False,
                  time_limit: float | None = None) -> Distribution | None:
    """The load-balanced baseline (spec 2.10; the paper's definition is informal).

    ``mode="max_active"``: the largest number of processors that can all get work, then the
    least spread ``max t - min t`` of the active processors' times, then the least time, the
    least energy and the lexicographically smallest distribution. ``mode="all_active"``: every
    processor must get work (None when impossible). On large profiles this is a long search
    (a window over all candidate times): it stops on Ctrl-C (``KeyboardInterrupt``) and after
    `time_limit` seconds (:class:`wpart.CancelledError`).
    """
    ps = as_profiles(profiles)
    n = _n(n)
    m = choice(mode, "mode", ("max_active", "all_active"))
    with progress_hook(progress, total=1.0, desc="load-balanced") as hook:
        r = _core.hetero_point("load_balanced" if m == "max_active" else "load_balanced_all",
                               n, *ps.csr(), hook, _time_limit(time_limit))
    if r is None:
        return None
    return Distribution(r[2], r[0], r[1], n, "load_balanced")


def _front(kind: str, ps: ProfileSet, n: int, **kw: Any) -> tuple:
    (e, d, t, x), stats = _core.hetero_front(kind, n, *ps.csr(), **kw)
    return e, d, t, x, stats


def pareto_front(
    profiles: Any,
    n: int,
    energy: str = "dynamic",
    static_power: float | None = None,
    *,
    balanced: bool = True,
    energy_threshold: float | None = None,
    progress: Any = False,
    time_limit: float | None = None,
    max_grid: int = 10_000_000,
) -> ParetoFront:
    """The exact Pareto front of execution time and energy (HEPOPTA / HTPOPTA).

    Parameters
    ----------
    profiles : ProfileSet or sequence of (sizes, times, energies)
        Discrete profiles, one per processor; 0 units cost 0 time and 0 energy.
    n : int
        Workload, >= 0.
    energy : {"dynamic", "total"}
        ``"dynamic"``: minimise (time, dynamic energy) with HEPOPTA. ``"total"``: minimise
        (time, dynamic energy + static_power x time) with HTPOPTA.
    static_power : float
        Static (idle) power of the platform in W, required for ``energy="total"``.
    balanced : bool, default True
        Also compute the load-balanced distribution (for :meth:`ParetoFront.gains_vs_balanced`
        and the plot). On large instances this costs more than HEPOPTA itself (a window search
        over all candidate times); pass False when only the front is needed. It shares
        `time_limit` with the front and stops on Ctrl-C like it.
    energy_threshold : float, optional
        HEPOPTA's pruning threshold epsilon; default the energy of the time-optimal
        distribution; any larger value (``math.inf`` disables pruning) gives the same front.
    progress, time_limit
        Progress bar / callback, and a wall-time limit in seconds for the whole call (front
        and load-balanced baseline); :class:`wpart.CancelledError` when it is reached,
        ``KeyboardInterrupt`` on Ctrl-C, in every phase.
    max_grid : int, default 10**7
        Largest ``n / g`` accepted (``g`` = gcd of all sizes); memory is O(p n / g).

    Returns
    -------
    ParetoFront
        ``time`` (descending), ``energy`` (ascending), ``dist`` (k x p), plus the questions a
        researcher asks next: :meth:`~ParetoFront.fastest`, :meth:`~ParetoFront.most_frugal`,
        :meth:`~ParetoFront.min_energy_within`, :meth:`~ParetoFront.min_time_within`,
        :meth:`~ParetoFront.gains_vs_balanced`, :meth:`~ParetoFront.tradeoff`,
        :meth:`~ParetoFront.hypervolume`, :meth:`~ParetoFront.plot`. Empty (``len == 0``) when
        no distribution of `n` exists.

    Raises
    ------
    ValueError
        Bad profiles (NaN, negative times or energies, duplicate or unsorted sizes ...,
        energies so large that a sum of one per processor overflows float64), a negative
        `n`, ``energy="total"`` without a finite ``static_power >= 0`` (or one whose
        ``static_power x time`` overflows), or an `energy_threshold` below the time-optimal
        energy. A workload beyond every processor's capacity is no error: the front is
        empty, whatever the size of `n`.
    wpart.CancelledError
        `time_limit` reached (in the front or the load-balanced baseline).

    Notes
    -----
    HEPOPTA (spec 2.4, with the fixes of spec 8) memoises the Pareto set of every (processor,
    remaining work) sub-problem and prunes with the energy threshold and the size thresholds;
    it is exact for any non-negative, non-monotone profile with gaps.

    Examples
    --------
    >>> import wpart.hetero as wh
    >>> ps = wh.synthetic("dgemm-like", seed=1)
    >>> f = wh.pareto_front(ps, 17152)
    >>> f.fastest().time <= f.most_frugal().time
    True
    """
    ps = as_profiles(profiles)
    n = _n(n)
    obj = choice(energy, "energy", ("dynamic", "total"))
    eps = math.nan if energy_threshold is None else _real(energy_threshold, "energy_threshold")
    if energy_threshold is not None and not eps >= 0:
        raise WpartValueError(f"`energy_threshold` must be >= 0, got {energy_threshold}")
    ps_w = 0.0
    if obj == "total":
        if static_power is None:
            raise WpartValueError("`static_power` (W) is required for energy='total'")
        ps_w = _real(static_power, "static_power")
        if not (math.isfinite(ps_w) and ps_w >= 0):
            raise WpartValueError(f"`static_power` must be finite and >= 0, got {static_power}")
    elif static_power is not None:
        raise WpartValueError("`static_power` is only used with energy='total'")
    tl = _time_limit(time_limit)
    mg = _limit(max_grid, "max_grid")
    t0 = _time.perf_counter()
    with progress_hook(progress, total=1.0, desc="HEPOPTA") as hook:
        e, d, t, x, stats = _front("htpopta" if obj == "total" else "hepopta", ps, n,
                                   energy_threshold=eps, static_power=ps_w, progress=hook,
                                   time_limit=tl, max_grid=mg)
    bal = None
    if balanced:
        # one time limit for the whole call: the baseline gets what the front left over
        left = 0.0 if tl == 0.0 else max(tl - (_time.perf_counter() - t0), 1e-9)
        with progress_hook(progress, total=1.0, desc="load-balanced") as hook:
            r = _core.hetero_point("load_balanced", n, *ps.csr(), hook, left, mg)
        if r is not None:
            bal = Distribution(r[2], r[0], r[1], n, "load_balanced")
    stats["seconds_total"] = _time.perf_counter() - t0
    return ParetoFront(t, e, d, x, n, obj, ps_w, bal, "hepopta", stats)


def total_energy_front(front: ParetoFront, static_power: float) -> ParetoFront:
    """HTPOPTA's filter on a dynamic-energy front: the (time, total energy) front.

    One HEPOPTA run serves every static power: the total-energy front is a subset of the
    dynamic-energy front (paper Prop. 10.10).
    """
    if not isinstance(front, ParetoFront) or front.objective != "dynamic":
        raise WpartTypeError("`front` must be a dynamic-energy ParetoFront")
    ps_w = _real(static_power, "static_power")
    if not (math.isfinite(ps_w) and ps_w >= 0):
        raise WpartValueError(f"`static_power` must be finite and >= 0, got {static_power}")
    e, d, t, x = _core.hetero_total_energy(front.dynamic_energy, front.time, front.dist, ps_w)
    return ParetoFront(t, e, d, x, front.n, "total", ps_w, front.balanced, front.method,
                       dict(front.stats))


def threshold_dp_front(profiles: Any, n: int, *, progress: Any = False,
                       time_limit: float | None = None) -> ParetoFront:
    """Exact front by one minimum-energy DP per candidate time (spec 2.9): an oracle
    independent of HEPOPTA, ``O(|C| p m N)``."""
    ps = as_profiles(profiles)
    n = _n(n)
    t0 = _time.perf_counter()
    with progress_hook(progress, total=1.0, desc="threshold DP") as hook:
        e, d, t, x, _ = _front("threshold_dp", ps, n, progress=hook,
                                   time_limit=_time_limit(time_limit))
    return ParetoFront(t, e, d, x, n, "dynamic", 0.0, None, "threshold_dp",
                       {"seconds": _time.perf_counter() - t0})


def bruteforce_front(profiles: Any, n: int, *, max_leaves: int = 10**7) -> ParetoFront:
    """Exact front by enumerating every distribution (spec 2.1); tiny instances only.

    Raises :class:`wpart.WpartError` when ``prod_i (m_i + 1) > max_leaves``.
    """
    ps = as_profiles(profiles)
    n = _n(n)
    ml = _limit(max_leaves, "max_leaves")
    e, d, t, x, _ = _front("bruteforce", ps, n, max_leaves=ml)
    return ParetoFront(t, e, d, x, n, "dynamic", 0.0, None, "bruteforce", {})


def milp_front(profiles: Any, n: int, **kw: Any) -> ParetoFront:
    """Exact front by the GLPK epsilon-constraint MILP (spec 2.11), a cross-check of HEPOPTA.

    One pair of MILPs per front point (least energy below the previous time, then least time
    within that energy); for small instances. Keyword ``time_limit`` (s) bounds the whole call
    (:class:`wpart.CancelledError`); Ctrl-C is seen once per branch-and-bound node.
    Also available as :func:`pareto_milp`.
    """
    from ._milp import milp_front as _mf

    return _mf(as_profiles(profiles), _n(n), **kw)


pareto_milp = milp_front


def evaluate(profiles: Any, dist: Any) -> tuple[float, float]:
    """``(time, dynamic energy)`` of a distribution; ValueError for an unmeasured share."""
    return as_profiles(profiles).evaluate(dist)
