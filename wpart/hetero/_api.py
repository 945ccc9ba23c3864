"""The solver entry points of :mod:`wpart.hetero` (re-exported there; see its docstring)."""

from __future__ import annotations
from .._docs import fill_doc
from .._errors import CancelledError, WpartOverflowError, WpartTypeError, WpartValueError

import contextlib
import math
import time as _time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import _core
from .._progress import progress_hook
from .._validate import as_float, as_int, as_progress, as_time_limit, choice, is_bool
from ._front import (Distribution, ParetoFront, _no_distribution, classify, hypervolume,
                     make_front, stopped_front)
from ._profiles import Profile, ProfileSet, as_profiles, energy_given
from ._synth import PRESETS, linear_profiles, synthetic

#: Largest count of the core's size type (int64).
_INT64_MAX = 2**63 - 1


def _int64(v: Any, name: str, minimum: int) -> int:
    """An integer >= `minimum` that fits the core's size type (int64)."""
    k = as_int(v, name, minimum=minimum)
    if k > _INT64_MAX:
        raise WpartOverflowError(f"`{name}` must fit in int64, got {k}")
    return k


def _n(n: Any) -> int:
    return _int64(n, "n", 0)


def _limit(v: Any, name: str) -> int:
    """A positive count bounded by int64 (the core's size type)."""
    return _int64(v, name, 1)


@contextlib.contextmanager
def _hook(progress: Any, desc: str) -> Iterator[Callable[[float, float], None] | None]:
    """The core's progress hook for `progress` (validated): wpart._progress.progress_hook's,
    a callable's "stop" (returning False) raising CancelledError with hetero's message."""
    prog = as_progress(progress)
    if callable(prog) and not isinstance(prog, bool):
        user = prog

        def cancellable(done: float, total: float) -> None:
            if user(done, total) is False:
                raise CancelledError("stopped: the progress callback returned False")

        prog = cancellable
    with progress_hook(prog, total=1.0, desc=desc) as hook:
        yield hook


def _seconds(tl: float | None) -> str:
    return f"the time limit of {tl:g} s was reached"


def _point(kind: str, label: str, profiles: Any, n: Any, progress: Any, time_limit: Any,
           desc: str) -> Distribution:
    ps = as_profiles(profiles)
    if kind == "energy_optimal":  # (least energy needs every processor's energies)
        _need_energy(ps)
    n = _n(n)
    tl = as_time_limit(time_limit)
    t0 = _time.perf_counter()
    with _hook(progress, desc) as hook:
        r = _core.hetero_point(kind, n, *ps.csr(), hook, 0.0 if tl is None else tl)
    stats = {"seconds": _time.perf_counter() - t0}
    if r == "time_limit":
        return _no_distribution(n, label, "time_limit",
                                _seconds(tl) + " before a distribution was found", stats)
    if r is None:
        why = (f"n = {n} exceeds the combined capacity of the processors ({ps.max_total}, "
               "the sum of their largest measured sizes)"
               if n > ps.max_total else
               f"no combination of the measured sizes (and 0) sums to n = {n}")
        return _no_distribution(n, label, "infeasible", why, stats)
    return Distribution("optimal", f"exact {desc}", r[2], r[0], r[1], n, label, stats=stats)


def optimal_time(profiles: Any, n: int, *, progress: Any = False,
                 time_limit: float | None = None) -> Distribution:
    """The time-optimal distribution (TOPT).

    Least parallel time ``max_i t_i(x_i)`` over all distributions of `n`; among the fastest
    ones, least dynamic energy (then fewer active processors, then smaller shares first). Exact,
    in ``O(log(m P) m P N / 64 + m P N)`` with `m` processors, ``P`` points per profile and
    ``N = n / g``. It gives the time-optimal end of the front, which Khaleghzadeh et al. obtain
    with their earlier algorithm HPOPTA (their ref. [32], Sec. 4) to set HEPOPTA's energy
    threshold.

    Parameters
    ----------
    profiles : ProfileSet or sequence of (sizes, times, energies)
        One triple per processor (energies may be omitted: ``(sizes, times)``).
    n : int
        Workload, >= 0.
    progress : bool or callable, default False
        A tqdm bar (True) or ``progress(done, total)``; returning False from it stops the run
        with :class:`wpart.CancelledError`.
    time_limit : float, optional
        Seconds; reaching it returns a result with status ``"time_limit"``.

    Returns
    -------
    Distribution
        ``status`` ``"optimal"`` with ``.time``, ``.energy`` and ``.dist`` (shape (m,));
        ``"infeasible"`` when no combination of the measured sizes (and 0) sums to `n` (for
        instance `n` beyond every processor's capacity); ``"time_limit"`` when the limit
        stopped it first. Without a distribution ``.dist`` is None and ``success`` False.

    Raises
    ------
    wpart.WpartValueError, wpart.WpartTypeError
        Bad profiles, `n`, `progress` or `time_limit` (the message names the argument).
    wpart.CancelledError
        The progress callback returned False. Ctrl-C raises ``KeyboardInterrupt``.

    Examples
    --------
    >>> import wpart.hetero as wh
    >>> d = wh.optimal_time([([1, 2], [1.0, 2.0], [1.0, 1.5])] * 2, 3)
    >>> d.status, d.time, d.dist.tolist()
    ('optimal', 2.0, [1, 2])
    >>> wh.optimal_time([([1, 2], [1.0, 2.0])] * 2, 5).status
    'infeasible'
    """
    return _point("time_optimal", "time_optimal", profiles, n, progress, time_limit,
                  "time-optimal distribution")


@fill_doc
def optimal_energy(profiles: Any, n: int, *, progress: Any = False,
                   time_limit: float | None = None) -> Distribution:
    """The energy-optimal distribution: least dynamic energy, then least time.

    Parameters and statuses as :func:`optimal_time`.

    Parameters
    ----------
    {profiles n_units progress time_limit returns_distribution raises}
    """
    return _point("energy_optimal", "energy_optimal", profiles, n, progress, time_limit,
                  "energy-optimal distribution")


@fill_doc
def load_balanced(profiles: Any, n: int, *, mode: str = "max_active", progress: Any = False,
                  time_limit: float | None = None) -> Distribution:
    """The load-balanced baseline of Khaleghzadeh et al. (Sec. 1 and 8.2), made precise.

    The paper defines it only as the least difference between the processors' execution
    times, "possibly using fewer processors". ``mode="max_active"``: the largest number of
    processors that can all get work, then the least spread ``max t - min t`` of the active
    processors' times, then the least time, the least energy and the lexicographically
    smallest distribution. ``mode="all_active"``: every processor must get work (status
    ``"infeasible"`` when impossible). On large profiles this is a long search (a window over
    all candidate times); `time_limit` and the statuses are as in :func:`optimal_time`.

    Parameters
    ----------
    {profiles n_units}
    mode : str, optional
        ``"max_active"`` or ``"all_active"``, as described above.
    {progress time_limit returns_distribution raises}
    """
    md = choice(mode, "mode", ("max_active", "all_active"))
    return _point("load_balanced" if md == "max_active" else "load_balanced_all",
                  "load_balanced", profiles, n, progress, time_limit, "load-balanced distribution")


def _front(kind: str, ps: ProfileSet, n: int, **kw: Any) -> tuple | None:
    """The core's front, or None when the time limit stopped it."""
    r = _core.hetero_front(kind, n, *ps.csr(), **kw)
    if r == "time_limit":
        return None
    (e, d, t, x), stats = r
    return e, d, t, x, stats


def _static_power(v: Any) -> float:
    return as_float(v, "static_power", minimum=0.0)


def _need_energy(ps: ProfileSet) -> None:
    """Refuse profiles without energies (only times measured: a ``size time`` file, a CSV
    without an energy column, ``(sizes, times)`` pairs): their energy reads as 0 J, so a
    time-energy front would be a silent wrong answer (one point at 0 J when none has
    energies; a processor that looks free when some have)."""
    missing = [nm for nm, pr in zip(ps.names, ps.profiles)
               if pr.n_points and not energy_given(pr)]
    if not missing:
        return
    shown = ", ".join(repr(x) for x in missing[:8]) + (", ..." if len(missing) > 8 else "")
    k = len(missing)
    which = (f"none of the {ps.m} processors has energies" if k == ps.m
             else f"{k} of the {ps.m} processors {'has' if k == 1 else 'have'} no energies")
    raise WpartValueError(
        f"`profiles`: no energy data: {which} ({shown}); a CSV without an energy column, "
        "`size time` files, (sizes, times) pairs and measure() without a meter give times "
        "only, and energies are needed for every processor here (optimal_time needs only "
        "the times)")


def pareto_front(profiles: Any, n: int, *, energy: str = "dynamic",
                 static_power: float | None = None, balanced: bool = True,
                 energy_threshold: float | None = None, progress: Any = False,
                 time_limit: float | None = None, max_grid: int = 10_000_000) -> ParetoFront:
    """The exact Pareto front of execution time and energy (HEPOPTA / HTPOPTA).

    Parameters
    ----------
    profiles : ProfileSet or sequence of (sizes, times, energies)
        Discrete profiles, one per processor; 0 units cost 0 time and 0 energy.
    n : int
        Workload, >= 0.
    energy : {"dynamic", "total"}
        ``"dynamic"``: minimise (time, dynamic energy) with HEPOPTA (Sec. 4-5 and Algorithms
        1-2 of Khaleghzadeh et al.). ``"total"``: minimise (time, dynamic energy +
        static_power x time) with HTPOPTA (Sec. 6, Algorithm 3).
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
    progress : bool or callable, default False
        A tqdm bar (True) or ``progress(done, total)``; returning False from it stops the run
        with :class:`wpart.CancelledError`.
    time_limit : float, optional
        Seconds for the whole call (front and load-balanced baseline). Reaching it is no
        error: the result has status ``"time_limit"`` and holds the exact front when only the
        baseline was stopped, no point otherwise.
    max_grid : int, default 10**7
        Largest ``n / g`` accepted (``g`` = gcd of all sizes); memory is O(m n / g).

    Returns
    -------
    ParetoFront
        ``time`` (descending), ``energy`` (ascending), ``dist`` (k x m), plus the questions a
        researcher asks next: :meth:`~ParetoFront.fastest`, :meth:`~ParetoFront.most_frugal`,
        :meth:`~ParetoFront.min_energy_within`, :meth:`~ParetoFront.min_time_within`,
        :meth:`~ParetoFront.gains_vs_balanced`, :meth:`~ParetoFront.tradeoff`,
        :meth:`~ParetoFront.hypervolume`, :meth:`~ParetoFront.plot`. Status ``"optimal"``;
        ``"infeasible"`` (empty) when no distribution of `n` exists, whatever the size of
        `n`; ``"time_limit"`` as above.

    Raises
    ------
    wpart.WpartValueError, wpart.WpartTypeError
        Bad profiles (NaN, negative times or energies, duplicate or unsorted sizes ...,
        energies so large that a sum of one per processor overflows float64, profiles
        without energies: read from a CSV without an energy column or from ``size time``
        files, or given as ``(sizes, times)`` pairs), a negative
        `n`, ``energy="total"`` without a finite ``static_power >= 0`` (or one whose
        ``static_power x time`` overflows), an `energy_threshold` below the time-optimal
        energy, a bad `time_limit` or `progress`. Each message names the argument.
    wpart.CancelledError
        The progress callback returned False. Ctrl-C raises ``KeyboardInterrupt``.

    Notes
    -----
    HEPOPTA memoises the Pareto set of every (processor, remaining work) sub-problem and
    prunes with the energy threshold and the size thresholds (Algorithms 7-13 in Sec. 10.6
    of the paper, with the printed pseudocode's slips in Algorithms 2, 10, 11 and 12
    corrected); it is exact for any non-negative, non-monotone profile with gaps
    (Sec. 10.7).

    Examples
    --------
    >>> import wpart.hetero as wh
    >>> ps = wh.synthetic("dgemm-like", seed=1)
    >>> f = wh.pareto_front(ps, 17152)
    >>> f.status, f.fastest().time <= f.most_frugal().time
    ('optimal', True)
    """
    ps = as_profiles(profiles)
    n = _n(n)
    obj = choice(energy, "energy", ("dynamic", "total"))
    if energy_threshold is None:
        eps = math.nan
    else:
        eps = as_float(energy_threshold, "energy_threshold", minimum=0.0, allow_inf=True)
    ps_w = 0.0
    if obj == "total":
        if static_power is None:
            raise WpartValueError("`static_power` (W) is required for energy='total'")
        ps_w = _static_power(static_power)
    elif static_power is not None:
        raise WpartValueError("`static_power` is only used with energy='total'")
    if not is_bool(balanced):
        raise WpartTypeError(f"`balanced` must be a bool, got {type(balanced).__name__}")
    tl = as_time_limit(time_limit)
    mg = _limit(max_grid, "max_grid")
    _need_energy(ps)
    t0 = _time.perf_counter()
    with _hook(progress, "HEPOPTA") as hook:
        r = _front("htpopta" if obj == "total" else "hepopta", ps, n, energy_threshold=eps,
                   static_power=ps_w, progress=hook, time_limit=0.0 if tl is None else tl,
                   max_grid=mg)
    if r is None:
        stats = {"seconds_total": _time.perf_counter() - t0}
        return stopped_front("hepopta", ps.m, n, stats, _seconds(tl) + " before the front "
                             "was complete", objective=obj, static_power=ps_w)
    e, d, t, x, stats = r
    bal = None
    status, message = "", ""
    if balanced and len(t):
        # one time limit for the whole call: the baseline gets what the front left over
        left = 0.0 if tl is None else max(tl - (_time.perf_counter() - t0), 1e-9)
        with _hook(progress, "load-balanced") as hook:
            rb = _core.hetero_point("load_balanced", n, *ps.csr(), hook, left, mg)
        if rb == "time_limit":
            status = "time_limit"
            message = (_seconds(tl) + " in the load-balanced baseline; the front is exact "
                       "and complete, `balanced` is None")
        elif rb is not None:
            bal = Distribution("optimal", "exact load-balanced distribution", rb[2], rb[0],
                               rb[1], n, "load_balanced")
    stats["seconds_total"] = _time.perf_counter() - t0
    return make_front("hepopta", (t, e, d, x), n, stats, objective=obj, static_power=ps_w,
                      balanced=bal, status=status, message=message)


@fill_doc
def total_energy_front(front: ParetoFront, static_power: float) -> ParetoFront:
    """HTPOPTA's filter on a dynamic-energy front: the (time, total energy) front.

    One HEPOPTA run serves every static power: the total-energy front is a subset of the
    dynamic-energy front (Prop. 10.10 of Khaleghzadeh et al.).

    Parameters
    ----------
    front : ParetoFront
        A time x dynamic-energy Pareto front.
    static_power : float
        Static (idle) power of the platform in watts.

    {returns_front raises}
    """
    if not isinstance(front, ParetoFront) or front.objective != "dynamic":
        raise WpartTypeError("`front` must be a dynamic-energy ParetoFront")
    ps_w = _static_power(static_power)
    e, d, t, x = _core.hetero_total_energy(front.dynamic_energy, front.time, front.dist, ps_w)
    if front.empty:
        x = np.zeros((0, front.m), np.int64)
    kept = front.status != "optimal"
    return make_front(front.method, (t, e, d, x), front.n, dict(front.stats), objective="total",
                      static_power=ps_w, balanced=front.balanced,
                      status=front.status if kept else "", message=front.message if kept else "")


@fill_doc
def threshold_dp_front(profiles: Any, n: int, *, progress: Any = False,
                       time_limit: float | None = None) -> ParetoFront:
    """Exact front by one minimum-energy DP per candidate time: an oracle of wpart's own,
    independent of HEPOPTA, ``O(|C| m P N)``. Statuses and `time_limit` as
    :func:`pareto_front`.

    Parameters
    ----------
    {profiles n_units progress time_limit returns_front raises}
    """
    ps = as_profiles(profiles)
    return _oracle_front("threshold_dp", "threshold DP", "front", ps, _n(n), progress,
                         time_limit)


def _oracle_front(method: str, label: str, what: str, ps: ProfileSet, n: int, progress: Any,
                  time_limit: Any, **kw: Any) -> ParetoFront:
    """The front of the core's oracle `method` (`label` on the progress bar; a run stopped by
    `time_limit` ends "before the `what` was complete")."""
    tl = as_time_limit(time_limit)
    _need_energy(ps)
    t0 = _time.perf_counter()
    with _hook(progress, label) as hook:
        if hook is not None:  # a first report, as every other call: a small enumeration
            hook(0.0, 1.0)    # reports nothing else before its end (where "stop" is too late)
        r = _front(method, ps, n, progress=hook, time_limit=0.0 if tl is None else tl, **kw)
    stats = {"seconds": _time.perf_counter() - t0}
    if r is None:
        return stopped_front(method, ps.m, n, stats,
                             _seconds(tl) + f" before the {what} was complete")
    e, d, t, x, _ = r
    return make_front(method, (t, e, d, x), n, stats)


@fill_doc
def bruteforce_front(
    profiles: Any,
    n: int,
    *,
    max_leaves: int = 10**7,
    progress: Any = False,
    time_limit: float | None = None,
) -> ParetoFront:
    """Exact front by enumerating every distribution (the naive solution tree of Sec. 4 of
    Khaleghzadeh et al.); tiny instances only.

    Parameters
    ----------
    profiles : ProfileSet or sequence of profiles
    n : int
        Workload size.
    max_leaves : int, default 10**7
        Largest allowed ``prod_i (P_i + 1)`` (``P_i`` points in profile i).
    progress : bool or callable, default False
        As in :func:`pareto_front` (leaves visited / leaves of the full tree).
    time_limit : float, optional
        Seconds. Reaching it is not an error: the result has status ``"time_limit"`` and
        an empty front (a partial enumeration proves nothing). Ctrl-C raises
        ``KeyboardInterrupt``.

    Raises :class:`wpart.WpartError` when ``prod_i (P_i + 1) > max_leaves``.

    {returns_front raises}
    """
    ps = as_profiles(profiles)
    n = _n(n)
    ml = _limit(max_leaves, "max_leaves")
    return _oracle_front("bruteforce", "enumeration", "enumeration", ps, n, progress,
                         time_limit, max_leaves=ml)


@fill_doc
def milp_front(profiles: Any, n: int, *, progress: Any = False,
               time_limit: float | None = None) -> ParetoFront:
    """Exact front by the GLPK epsilon-constraint MILP, a cross-check of HEPOPTA.

    One pair of MILPs per front point (least energy below the previous time, then least time
    within that energy); for small instances. `time_limit` (s) bounds the whole call: reaching
    it gives status ``"time_limit"`` and no point. Ctrl-C is seen once per branch-and-bound
    node. Also available as :func:`pareto_milp`.

    Parameters
    ----------
    {profiles n_units}
    progress : bool or callable, optional
        True for a progress bar, or a callable ``progress(done, total)`` (returning False
        cancels the run with :class:`wpart.CancelledError`); the MILPs report no intermediate
        progress, so it moves from 0 to 1 when the call ends.
    {time_limit returns_front raises}
    """
    from ._milp import milp_front as _mf

    ps, nn = as_profiles(profiles), _n(n)
    _need_energy(ps)
    with progress_hook(progress, total=1.0, desc="milp_front") as hook:
        if hook is not None:
            hook(0.0, 1.0)
        res = _mf(ps, nn, time_limit=time_limit)
        if hook is not None:
            hook(1.0, 1.0)
    return res


pareto_milp = milp_front


@fill_doc
def evaluate(profiles: Any, dist: Any) -> tuple[float, float]:
    """``(time, dynamic energy)`` of a distribution; WpartValueError for an unmeasured share.

    Parameters
    ----------
    {profiles}
    dist : object
        Units given to each processor (one per processor, summing to the workload).

    Returns
    -------
    tuple of float
        ``(time, energy)``: the parallel time ``max_i t_i(d_i)`` and the dynamic energy.

    {raises}
    """
    return as_profiles(profiles).evaluate(dist)


__all__ = [
    "PRESETS", "Distribution", "ParetoFront", "Profile", "ProfileSet", "bruteforce_front",
    "classify", "evaluate", "hypervolume", "linear_profiles", "load_balanced", "milp_front",
    "optimal_energy", "optimal_time", "pareto_front", "pareto_milp", "synthetic",
    "threshold_dp_front", "total_energy_front",
]
