"""Real profile measurement: repeat a kernel until its mean is precise (MeanUsingTtest and
CalAccuracy, Algorithms 5-6 in Sec. 10.4.3 of Khaleghzadeh et al.), read energy through a meter
(:mod:`wpart.hetero._meters`: Linux RAPL, NVML, user-supplied power readings), subtract static
power (Sec. 10.1), and check the additivity of dynamic energy (Sec. 8.1, Table III)."""

from __future__ import annotations
from .._docs import fill_doc
from .._errors import CancelledError, WpartTypeError, WpartValueError

import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._result import Result, new_axes
from .._validate import (as_array, as_bool, as_sequence, as_float, as_int, as_progress, choice,
                         as_time_limit, deprecated_attr)
from ._profiles import Profile

__all__ = [
    "MeasuredProfile",
    "additivity_check",
    "additivity_report",
    "dynamic_energy",
    "mean_until_precise",
    "measure",
]


def _student_t() -> Any:
    """scipy's Student t distribution (scipy.stats is imported on first use: about a second,
    which :func:`measure` spends before its clock starts, not inside its time limit)."""
    from scipy.stats import t as student_t

    return student_t


def _tinv(q: float, dof: int) -> float:
    return float(_student_t().ppf(q, dof))


def _precise(a: list[float], cl: float, eps: float, quantile: str) -> tuple[bool, float]:
    """CalAccuracy (Algorithm 6 of Khaleghzadeh et al., two-sided by default): (converged,
    relative half-width)."""
    k = len(a)
    if k < 2:
        return False, math.inf
    x = np.asarray(a, dtype=np.float64)
    mean = float(x.mean())
    sd = float(x.std(ddof=1))
    if mean == 0.0:
        return sd == 0.0, 0.0 if sd == 0.0 else math.inf
    q = (1.0 + cl) / 2.0 if quantile == "two_sided" else cl
    half = abs(_tinv(q, k - 1)) * sd / math.sqrt(k)
    rel = half / abs(mean)
    return rel < eps, rel


@fill_doc
def mean_until_precise(execute: Callable[[], float | Mapping[str, float]], *, min_reps: int = 5,
                       max_reps: int = 50, max_time: float = 3600.0, cl: float = 0.95,
                       eps: float = 0.1, quantile: str = "two_sided",
                       first_check: str = "min_reps",
                       time_keys: Sequence[str] | None = None) -> dict:
    """Repeat `execute` until the mean of every quantity is within `eps` at confidence `cl`.

    This is MeanUsingTtest (Algorithm 5 in Sec. 10.4.3 of Khaleghzadeh et al.) with
    CalAccuracy (Algorithm 6): after each run, the Student-t confidence half-width
    ``tinv * sd / sqrt(k)`` of every quantity is compared with ``eps * mean``; the loop stops
    when all are precise, after `max_reps` runs, or when the summed time of a time quantity
    exceeds `max_time` seconds.

    Parameters
    ----------
    execute : callable
        Runs the experiment once; returns a float (a time) or a dict of named quantities.
    min_reps, max_reps : int
        Bounds on the number of runs.
    max_time : float
        Limit on the summed times (s) of the time quantities.
    cl : float, default 0.95
        Confidence level.
    eps : float, default 0.1
        Relative precision (10 % in the paper).
    quantile : {"two_sided", "paper"}
        ``tinv((1 + cl) / 2)`` (a two-sided interval, the default) or the paper's ``tinv(cl)``.
    first_check : {"min_reps", "paper"}
        First precision test after `min_reps` runs, or after ``min_reps + 2`` as in the paper.
    time_keys : sequence of str, optional
        Quantities counted against `max_time` (default: every key except ``"energy"``).

    Returns
    -------
    dict
        ``reps``, ``means`` (name -> mean), ``precision`` (name -> relative half-width),
        ``converged`` (bool), ``elapsed`` (the largest summed time) and ``samples``.

    {raises}
    """
    if not callable(execute):
        raise WpartTypeError("`execute` must be callable")
    min_reps, max_reps, max_time, cl, eps, quantile, first_check = _precision_options(
        min_reps, max_reps, max_time, cl, eps, quantile, first_check)
    samples: dict[str, list[float]] = {}
    converged = False
    prec: dict[str, float] = {}
    reps = 0
    first = max(2, int(min_reps)) if first_check == "min_reps" else int(min_reps) + 2
    while reps < int(max_reps):
        r = execute()
        if not isinstance(r, Mapping):
            r = {"time": float(r)}
        for k, v in r.items():
            v = float(v)
            if not math.isfinite(v):
                raise WpartValueError(f"`execute` returned a non-finite {k} = {v}")
            samples.setdefault(k, []).append(v)
        reps += 1
        tk = [k for k in samples if k != "energy"] if time_keys is None else list(time_keys)
        elapsed = max((sum(samples[k]) for k in tk if k in samples), default=0.0)
        if reps >= first:
            res = {k: _precise(v, cl, eps, quantile) for k, v in samples.items()}
            prec = {k: r_[1] for k, r_ in res.items()}
            converged = all(r_[0] for r_ in res.values())
            if converged:
                break
        if elapsed > max_time:
            break
    if not prec:
        prec = {k: _precise(v, cl, eps, quantile)[1] for k, v in samples.items()}
    tk = [k for k in samples if k != "energy"] if time_keys is None else list(time_keys)
    return {
        "reps": reps,
        "means": {k: float(np.mean(v)) for k, v in samples.items()},
        "precision": prec,
        "converged": converged,
        "elapsed": max((sum(samples[k]) for k in tk if k in samples), default=0.0),
        "samples": {k: list(v) for k, v in samples.items()},
    }


def _precision_options(min_reps: Any, max_reps: Any, max_time: Any, cl: Any, eps: Any,
                       quantile: Any, first_check: Any) -> tuple:
    """The repetition options of :func:`mean_until_precise`, validated."""
    min_reps = as_int(min_reps, "min_reps", minimum=1)
    max_reps = as_int(max_reps, "max_reps", minimum=1)
    if max_reps < min_reps:
        raise WpartValueError(f"`max_reps` must be >= `min_reps` = {min_reps}, got {max_reps}")
    max_time = as_float(max_time, "max_time", minimum=0.0, strict_minimum=True, allow_inf=True)
    cl = as_float(cl, "cl", minimum=0.0, strict_minimum=True)
    if not cl < 1:
        raise WpartValueError(f"`cl` must be in (0, 1), got {cl}")
    eps = as_float(eps, "eps", minimum=0.0, strict_minimum=True)
    quantile = choice(quantile, "quantile", ("two_sided", "paper"))
    first_check = choice(first_check, "first_check", ("min_reps", "paper"))
    return min_reps, max_reps, max_time, cl, eps, quantile, first_check


# ---------------------------------------------------------------------------------- meters --


@fill_doc
def dynamic_energy(total: ArrayLike, static_power: float, duration: ArrayLike) -> Any:
    """``E_D = E_T - P_S * T_E`` (Eq. 4 in Sec. 10.1 of Khaleghzadeh et al.).

    Parameters
    ----------
    total : array_like
        Total energy measured in joules.
    static_power : float
        Static (idle) power of the platform in watts.
    duration : array_like
        Duration of each run in seconds.

    Returns
    -------
    float or ndarray
        Dynamic energy in joules: ``total - static_power * duration``.

    {raises}
    """
    ps_w = as_float(static_power, "static_power", minimum=0.0)
    tot = as_array(total, "total", allow_inf=False)
    dur = as_array(duration, "duration", allow_inf=False, minimum=0.0)
    if tot.shape != dur.shape and tot.ndim and dur.ndim:
        raise WpartValueError(f"`total` and `duration` must have the same shape, got "
                              f"{tot.shape} and {dur.shape}")
    out = tot - ps_w * dur
    return out[()] if out.ndim == 0 else out


@fill_doc
def additivity_report(parallel: ArrayLike, individual: Sequence[ArrayLike]) -> dict:
    """Compare the dynamic energy of parallel runs with the sum of individual runs.

    Parameters
    ----------
    parallel : array_like, shape (k,)
        Dynamic energy when all abstract processors run a size together.
    individual : sequence of array_like, each shape (k,)
        Dynamic energy of each abstract processor run alone at the same sizes.

    Returns
    -------
    dict
        ``pct`` (signed ``(parallel - combined) / combined * 100`` per size), ``min``, ``max``
        and ``mean`` of its absolute value, and ``mean_signed`` (Sec. 8.1 of Khaleghzadeh et
        al.; their Table III reports 0.001-29 % with averages of 4-12 %).

    {raises}
    """
    par = as_array(parallel, "parallel", allow_inf=False)
    ind = [as_array(a, f"individual[{i}]", allow_inf=False)
           for i, a in enumerate(as_sequence(individual, "individual"))]
    if par.ndim != 1 or any(a.shape != par.shape for a in ind) or not ind:
        raise WpartValueError("`parallel` and every array of `individual` must be 1-D, same length")
    comb = np.sum(ind, axis=0)
    if np.any(comb <= 0):
        raise WpartValueError("combined (summed individual) energies must be > 0")
    pct = (par - comb) / comb * 100.0
    a = np.abs(pct)
    return {"pct": pct, "combined": comb, "min": float(a.min()), "max": float(a.max()),
            "mean": float(a.mean()), "mean_signed": float(pct.mean())}


# ---------------------------------------------------------------------------------- measure --


@dataclass(frozen=True, eq=False, repr=False)
class MeasuredProfile(Result):
    """A profile measured on this machine, with the statistics of every point.

    Attributes
    ----------
    profile : Profile
        Mean time and mean dynamic energy per size (energy 0 without a meter).
    reps : ndarray of int, shape (n_points,)
        Runs per size.
    precision : ndarray, shape (n_points,)
        Relative confidence half-width of the mean time per size.
    converged : ndarray of bool, shape (n_points,)
        Whether the time (and energy) reached the requested precision.
    static_power : float
        ``P_S`` subtracted from the meter's energy.
    meter : str
        Description of the energy source (``"none"``, ``"RaplMeter(package-0)"`` ...).
    seconds : float
        Wall time of the whole measurement (not compared by ``==``).
    status : str
        ``"feasible"``: a measured profile (no optimality claim).
    message : str
        How many sizes reached the requested precision.
    stats : dict
        Settings of the run (``cl``, ``eps``, ``min_reps``, ``max_reps``, ``max_time``); not
        compared by ``==``.
    """

    profile: Profile
    reps: NDArray[np.int64]
    precision: NDArray[np.float64]
    converged: NDArray[np.bool_]
    static_power: float = 0.0
    meter: str = "none"
    seconds: float = field(default=0.0, compare=False)

    info = deprecated_attr("info", "stats", "MeasuredProfile")

    def to_file(self, path: str | os.PathLike) -> None:
        """Save the profile (``size time energy``) for :meth:`Profile.from_file` elsewhere."""
        self.profile.to_file(path)

    def _repr_lines(self) -> list[str]:
        pr = self.profile
        return [f"MeasuredProfile({pr.name!r}, status={self.status!r}, "
                f"n_points={pr.n_points}, meter={self.meter})",
                f"  sizes {pr.sizes[0]}..{pr.sizes[-1]}, {self.seconds:.2f} s",
                f"  {self.message}"]

    def plot(self, ax: Any = None, *, what: str = "time") -> Any:
        """Mean time (``what="time"``) or dynamic energy against size, with the confidence
        half-width of the time as error bars; sizes that did not converge are marked.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        what = choice(what, "what", ("time", "energy"))
        ax = new_axes(ax, figsize=(6, 3.5))
        pr = self.profile
        y = pr.time if what == "time" else pr.energy
        err = pr.time * np.where(np.isfinite(self.precision), self.precision, 0.0) \
            if what == "time" else None
        ax.errorbar(pr.sizes, y, yerr=err, fmt=".-", ms=3, lw=0.8, capsize=2,
                    label=pr.name or "measured")
        bad = ~self.converged
        if bad.any():
            ax.plot(pr.sizes[bad], y[bad], "x", color="C3", label="not converged")
        ax.set_xlabel("size")
        ax.set_ylabel("time (s)" if what == "time" else "dynamic energy (J)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        return ax


@fill_doc
def measure(kernel: Callable[[Any], Any], sizes: ArrayLike, *,
            setup: Callable[[int], Any] | None = None, meter: Any = None,
            static_power: float = 0.0, min_reps: int = 5, max_reps: int = 50,
            max_time: float = 60.0, cl: float = 0.95, eps: float = 0.1,
            quantile: str = "two_sided", warmup: int = 1, name: str = "",
            clamp_negative: bool = True, progress: Any = False,
            time_limit: float | None = None) -> MeasuredProfile:
    """Measure a real time (and dynamic-energy) profile of `kernel` on this machine.

    For every size, ``state = setup(size)`` prepares the inputs outside the timed region (a
    kernel object with a ``setup`` method, such as :class:`wpart.hetero.kernels.BlockedMatmul`,
    provides its own; without one, the kernel receives the size itself). Then ``kernel(state)``
    is timed with :func:`time.perf_counter` and repeated by :func:`mean_until_precise` until
    the mean time (and energy) is within `eps` at confidence `cl` (95 % and 10 % in Sec.
    10.4.3 of Khaleghzadeh et al.).

    Parameters
    ----------
    kernel : callable
        A Python function or a shipped C kernel (:mod:`wpart.hetero.kernels`).
    sizes : array_like of int
        Problem sizes, > 0 and distinct.
    setup : callable, optional
        ``setup(size) -> state``.
    meter : RaplMeter, CallbackMeter or any object with ``start()`` and ``stop() -> (J, s)``
        Energy source; None measures time only (energies 0).
    static_power : float, default 0
        ``P_S`` (W) subtracted from the meter's energy: ``E_D = E_T - P_S * T_E``.
    min_reps, max_reps, max_time, cl, eps, quantile
        See :func:`mean_until_precise` (`max_time` is per size).
    warmup : int, default 1
        Untimed runs per size.
    name : str
        Label of the profile (default: the kernel's class or function name).
    clamp_negative : bool, default True
        Clamp a negative mean dynamic energy (measurement noise) to 0.
    progress : bool or callable, default False
        A tqdm bar over the sizes (True) or ``progress(done, total)`` called once per size;
        returning False from it stops with :class:`wpart.CancelledError`.
    time_limit : float, optional
        Seconds for the whole call (None: none). Each size's `max_time` is cut to the time
        left; once it is spent, no further size is started and the result has status
        ``"time_limit"`` with the sizes measured so far (the first size is always measured).
        The clock starts after the validation and after the first call in a process has
        imported ``scipy.stats`` (its Student t, about a second).

    Returns
    -------
    MeasuredProfile
        ``.profile`` is a :class:`Profile` ready for :func:`pareto_front`; ``.to_file(path)``
        saves it, e.g. to load a GPU profile measured on another machine with
        :meth:`Profile.from_file`.

    {raises}
    """
    if not callable(kernel):
        raise WpartTypeError("`kernel` must be callable")
    s = np.asarray(sizes)
    if s.ndim != 1 or s.size == 0 or s.dtype.kind not in "iu":
        raise WpartValueError(f"`sizes` must be a non-empty 1-D array of integers, got {sizes!r}")
    if np.any(s <= 0) or np.unique(s).size != s.size:
        raise WpartValueError("`sizes` must be > 0 and distinct")
    static_power = as_float(static_power, "static_power", minimum=0.0)
    if meter is not None and not (hasattr(meter, "start") and hasattr(meter, "stop")):
        raise WpartTypeError("`meter` must have start() and stop() -> (joules, seconds)")
    if setup is not None and not callable(setup):
        raise WpartTypeError("`setup` must be callable")
    min_reps, max_reps, max_time, cl, eps, quantile, _ = _precision_options(
        min_reps, max_reps, max_time, cl, eps, quantile, "min_reps")
    warmup = as_int(warmup, "warmup", minimum=0)
    clamp_negative = as_bool(clamp_negative, "clamp_negative")
    prog = as_progress(progress)
    tl = as_time_limit(time_limit)
    stopped = False
    prep = setup if setup is not None else getattr(kernel, "setup", None)
    label = name or getattr(kernel, "__name__", type(kernel).__name__)
    order = np.sort(s.astype(np.int64))
    t_mean, e_mean, reps, prec, conv = [], [], [], [], []
    _student_t()  # the lazy import of scipy.stats, before the time limit's clock starts
    t_start = time.perf_counter()
    it = order.tolist()
    if prog is True:
        from tqdm.auto import tqdm

        it = tqdm(it, desc=f"measure {label}", leave=False)
    for done, x in enumerate(it):
        if callable(prog) and prog(done, len(order)) is False:
            raise CancelledError("stopped: the progress callback returned False")
        left = None if tl is None else tl - (time.perf_counter() - t_start)
        if left is not None and done > 0 and left <= 0:
            stopped = True
            break
        state = prep(int(x)) if prep is not None else int(x)
        for _ in range(int(warmup)):
            kernel(state)

        def execute(state: Any = state) -> dict:
            if meter is not None:
                meter.start()
            t0 = time.perf_counter()
            kernel(state)
            dt = time.perf_counter() - t0
            if meter is None:
                return {"time": dt}
            joules, secs = meter.stop()
            return {"time": dt, "energy": joules - static_power * secs}

        r = mean_until_precise(execute, min_reps=min_reps, max_reps=max_reps,
                               max_time=max_time if left is None else
                               max(min(max_time, left), 1e-6), cl=cl, eps=eps,
                               quantile=quantile, time_keys=["time"])
        t_mean.append(r["means"]["time"])
        e = r["means"].get("energy", 0.0)
        e_mean.append(max(e, 0.0) if clamp_negative else e)
        reps.append(r["reps"])
        prec.append(r["precision"].get("time", math.inf))
        conv.append(r["converged"])
    if hasattr(it, "close"):
        it.close()
    if callable(prog) and not stopped:
        prog(len(order), len(order))
    n_total = len(order)
    order = order[:len(t_mean)]
    # (no meter: times only, so the profile has no energies and the time-energy fronts
    # refuse it, rather than read 0 J)
    prof = Profile.from_arrays(order, t_mean, None if meter is None else e_mean, name=label)
    conv_a = np.array(conv, bool)
    ok = int(conv_a.sum())
    msg = (f"all {conv_a.size} sizes reached the precision {eps:g} at confidence {cl:g}"
           if ok == conv_a.size else
           f"{conv_a.size - ok} of {conv_a.size} sizes did not reach the precision {eps:g} at "
           f"confidence {cl:g} (max_reps or max_time stopped them)")
    if stopped:
        msg = (f"time limit of {tl:g} s reached after {len(order)} of {n_total} sizes; "
               + msg)
    return MeasuredProfile("time_limit" if stopped else "feasible", msg,
                           prof, np.array(reps, np.int64), np.array(prec, np.float64),
                           conv_a, static_power, "none" if meter is None else repr(meter),
                           time.perf_counter() - t_start,
                           stats={"cl": cl, "eps": eps, "min_reps": min_reps, "max_reps": max_reps,
                            "max_time": max_time, "quantile": quantile, "warmup": warmup})


@fill_doc
def additivity_check(kernels: Sequence[Callable[[Any], Any]], sizes: ArrayLike, meter: Any, *,
                     static_power: float = 0.0, min_reps: int = 3, max_reps: int = 20,
                     cl: float = 0.95, eps: float = 0.1) -> dict:
    """Check the additive energy model on this machine (Sec. 8.1 and Table III of
    Khaleghzadeh et al.).

    For every size, each kernel runs alone (its dynamic energy ``e_i(x)``; their sum is the
    *combined* energy) and then all kernels run together, one thread each (the *parallel*
    energy). Means are repeated to the given precision. The kernels must release the GIL to
    run in parallel (wpart's C kernel and NumPy's BLAS do).

    Parameters
    ----------
    kernels : sequence of callables
        One per abstract processor; each may carry a ``setup(size)`` method.
    sizes : array_like of int
    meter : object with ``start()`` and ``stop() -> (joules, seconds)``
    static_power : float
        ``P_S`` (W) subtracted from every reading.

    Returns
    -------
    dict
        :func:`additivity_report` of (parallel, individual) plus ``sizes``, ``parallel`` and
        ``individual`` (per kernel) dynamic energies.

    {raises}
    """
    ks = list(kernels)
    if not ks or not all(callable(k) for k in ks):
        raise WpartTypeError("`kernels` must be a non-empty sequence of callables")
    s = np.asarray(sizes)
    if s.ndim != 1 or s.size == 0 or s.dtype.kind not in "iu" or np.any(s <= 0):
        raise WpartValueError("`sizes` must be a non-empty 1-D array of positive integers")
    if not (hasattr(meter, "start") and hasattr(meter, "stop")):
        raise WpartTypeError("`meter` must have start() and stop() -> (joules, seconds)")
    static_power = as_float(static_power, "static_power", minimum=0.0)
    min_reps, max_reps, _, cl, eps, _, _ = _precision_options(
        min_reps, max_reps, math.inf, cl, eps, "two_sided", "min_reps")

    def metered(fn: Callable[[], None]) -> dict:
        meter.start()
        fn()
        j, sec = meter.stop()
        return {"energy": j - static_power * sec, "duration": sec}

    par: list[float] = []
    ind: list[list[float]] = [[] for _ in ks]
    for x in s.tolist():
        states = [getattr(k, "setup", None)(int(x)) if hasattr(k, "setup") else int(x)
                  for k in ks]
        for i, (k, st) in enumerate(zip(ks, states)):
            r = mean_until_precise(lambda k=k, st=st: metered(lambda: k(st)),
                                   min_reps=min_reps, max_reps=max_reps, max_time=math.inf,
                                   cl=cl, eps=eps, time_keys=["duration"])
            ind[i].append(r["means"]["energy"])

        def together(states: list = states) -> None:
            th = [threading.Thread(target=k, args=(st,)) for k, st in zip(ks, states)]
            for t in th:
                t.start()
            for t in th:
                t.join()

        r = mean_until_precise(lambda: metered(together), min_reps=min_reps,
                               max_reps=max_reps, max_time=math.inf, cl=cl, eps=eps,
                               time_keys=["duration"])
        par.append(r["means"]["energy"])
    rep = additivity_report(par, ind)
    rep.update({"sizes": s.tolist(), "parallel": np.array(par), "individual": np.array(ind)})
    return rep
