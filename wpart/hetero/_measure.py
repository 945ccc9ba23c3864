"""Real profile measurement: repeat a kernel until its mean is precise (MeanUsingTtest and
CalAccuracy, Algorithms 5-6 in Sec. 10.4.3 of Khaleghzadeh et al.), read energy from Linux RAPL
(powercap), NVML or user-supplied power readings, subtract static power (Sec. 10.1), and check
the additivity of dynamic energy (Sec. 8.1, Table III)."""

from __future__ import annotations
from .._errors import CancelledError, WpartRuntimeError, WpartTypeError, WpartValueError

import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._result import Result, new_axes
from .._validate import (as_array, as_bool, as_sequence, as_float, as_int, as_progress, as_seed, choice,
                         as_time_limit, deprecated_attr)
from ._profiles import Profile

__all__ = [
    "CallbackMeter",
    "MeasuredProfile",
    "NvmlMeter",
    "RaplMeter",
    "SyntheticMeter",
    "additivity_report",
    "dynamic_energy",
    "energy_from_samples",
    "mean_until_precise",
    "measure",
    "measure_static_power",
]


def _tinv(q: float, dof: int) -> float:
    from scipy.stats import t as student_t

    return float(student_t.ppf(q, dof))


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


def mean_until_precise(
    execute: Callable[[], float | Mapping[str, float]],
    *,
    min_reps: int = 5,
    max_reps: int = 50,
    max_time: float = 3600.0,
    cl: float = 0.95,
    eps: float = 0.1,
    quantile: str = "two_sided",
    first_check: str = "min_reps",
    time_keys: Sequence[str] | None = None,
) -> dict:
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

    Raises
    ------
    wpart.WpartError
        If an argument is invalid (a :class:`wpart.WpartValueError` or
        :class:`wpart.WpartTypeError` naming it).
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


class RaplMeter:
    """Energy of the CPU packages from Linux RAPL through powercap (``energy_uj`` counters).

    Parameters
    ----------
    root : path, default "/sys/class/powercap"
        The powercap tree (a copy or a fake one works too, e.g. in tests).
    zones : sequence of str, optional
        Zone directory names (default: every top-level ``intel-rapl:N`` / ``amd-rapl:N`` zone).

    Raises
    ------
    RuntimeError
        When no readable zone exists (often: counters readable by root only). Check first with
        :meth:`available`.

    Notes
    -----
    Counters wrap around at ``max_energy_range_uj``; one wrap per measured run is handled.
    RAPL covers the CPU packages (and DRAM when listed), not the whole node: it is not the
    paper's wall-socket meter, so static power must be measured with the same meter.
    """

    def __init__(self, root: str | os.PathLike = "/sys/class/powercap", /, *,
                 zones: Sequence[str] | None = None) -> None:
        self.root = Path(root)
        names = list(zones) if zones is not None else self._discover(self.root)
        self.zones: list[Path] = []
        self.ranges: list[int] = []
        for nm in names:
            z = self.root / nm
            try:
                int((z / "energy_uj").read_text())
            except (OSError, ValueError):
                continue
            try:
                rng = int((z / "max_energy_range_uj").read_text())
            except (OSError, ValueError):
                rng = 2**32
            self.zones.append(z)
            self.ranges.append(rng)
        if not self.zones:
            raise WpartRuntimeError(
                f"no readable RAPL zone under {self.root} (powercap counters are often readable "
                "by root only); pass power readings with CallbackMeter instead")
        self.names = [self._name(z) for z in self.zones]
        self._e0: list[int] | None = None
        self._t0 = 0.0

    @staticmethod
    def _discover(root: Path) -> list[str]:
        if not root.is_dir():
            return []
        out = []
        for d in sorted(root.iterdir()):
            parts = d.name.split(":")
            if len(parts) == 2 and parts[0] in ("intel-rapl", "amd-rapl"):
                out.append(d.name)
        return out

    @staticmethod
    def _name(z: Path) -> str:
        try:
            return (z / "name").read_text().strip()
        except OSError:
            return z.name

    @classmethod
    def available(cls, root: str | os.PathLike = "/sys/class/powercap", /) -> bool:
        """True when at least one RAPL zone can be read."""
        try:
            cls(root)
        except RuntimeError:
            return False
        return True

    def read(self) -> list[int]:
        """Current counters (microjoules)."""
        return [int((z / "energy_uj").read_text()) for z in self.zones]

    def start(self) -> None:
        self._e0 = self.read()
        self._t0 = time.perf_counter()

    def stop(self) -> tuple[float, float]:
        """``(joules, seconds)`` since :meth:`start`."""
        e1 = self.read()
        dt = time.perf_counter() - self._t0
        if self._e0 is None:
            raise WpartRuntimeError("RaplMeter.stop() called before start()")
        tot = 0
        for a, b, r in zip(self._e0, e1, self.ranges):
            d = b - a
            if d < 0:
                d += r
            tot += d
        self._e0 = None
        return tot * 1e-6, dt

    def __repr__(self) -> str:
        return f"RaplMeter({', '.join(self.names)})"


class NvmlMeter:
    """Energy of one NVIDIA GPU board from NVML's total-energy counter (Volta and later).

    Reads ``nvmlDeviceGetTotalEnergyConsumption`` (millijoules since the driver loaded) at
    start and stop, through the ``pynvml`` module (package ``nvidia-ml-py``). The counter is
    updated every few milliseconds: time kernels long enough (see ``repeat`` of
    :class:`wpart.hetero.kernels.TorchMatmul`). For older boards use
    ``CallbackMeter(lambda: pynvml.nvmlDeviceGetPowerUsage(h) / 1000)``.

    Parameters
    ----------
    index : int
        GPU index.
    """

    def __init__(self, index: int = 0, /) -> None:
        index = as_int(index, "index", minimum=0)
        try:
            import pynvml
        except ImportError:
            raise WpartRuntimeError("NvmlMeter needs pynvml (pip install nvidia-ml-py)") from None
        self._nvml = pynvml
        pynvml.nvmlInit()
        self.handle = pynvml.nvmlDeviceGetHandleByIndex(int(index))
        name = pynvml.nvmlDeviceGetName(self.handle)
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self._e0: int | None = None
        self._t0 = 0.0

    def start(self) -> None:
        self._e0 = int(self._nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle))
        self._t0 = time.perf_counter()

    def stop(self) -> tuple[float, float]:
        """``(joules, seconds)`` since :meth:`start`."""
        e1 = int(self._nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle))
        dt = time.perf_counter() - self._t0
        if self._e0 is None:
            raise WpartRuntimeError("NvmlMeter.stop() called before start()")
        d, self._e0 = e1 - self._e0, None
        return d * 1e-3, dt

    def __repr__(self) -> str:
        return f"NvmlMeter({self.name})"


def energy_from_samples(timestamps: ArrayLike, watts: ArrayLike) -> float:
    """Energy (J) of power samples by the trapezoidal rule."""
    t = np.asarray(timestamps, dtype=np.float64)
    w = np.asarray(watts, dtype=np.float64)
    if t.shape != w.shape or t.ndim != 1:
        raise WpartValueError("`timestamps` and `watts` must be 1-D arrays of the same length")
    if t.size < 2:
        return 0.0
    if np.any(np.diff(t) < 0):
        raise WpartValueError("`timestamps` must be non-decreasing")
    return float(np.sum((w[1:] + w[:-1]) * np.diff(t)) / 2.0)


class CallbackMeter:
    """Energy from user-supplied power readings: ``read_power()`` returns watts.

    The meter samples `read_power` at start, at stop and every ``1/hz`` s in between (from a
    background thread) and integrates by the trapezoidal rule; e.g. a wall meter's or a
    BMC's reading, NVML's ``nvmlDeviceGetPowerUsage`` / 1000, or a constant for a model.

    Parameters
    ----------
    read_power : Callable[[], float]
        Returns the current power in watts.
    hz : float, optional
        Samples per second between start and stop.
    """

    def __init__(self, read_power: Callable[[], float], *, hz: float = 10.0) -> None:
        if not callable(read_power):
            raise WpartTypeError("`read_power` must be callable")
        hz = as_float(hz, "hz", minimum=0.0, strict_minimum=True)
        self.read_power = read_power
        self.hz = float(hz)
        self._ts: list[float] = []
        self._ws: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        self._ts.append(time.perf_counter())
        self._ws.append(float(self.read_power()))

    def _loop(self) -> None:
        while not self._stop.wait(1.0 / self.hz):
            self._sample()

    def start(self) -> None:
        self._ts, self._ws = [], []
        self._stop.clear()
        self._sample()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> tuple[float, float]:
        """``(joules, seconds)`` since :meth:`start`."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()
        return energy_from_samples(self._ts, self._ws), self._ts[-1] - self._ts[0]

    def __repr__(self) -> str:
        return f"CallbackMeter(hz={self.hz})"


def measure_static_power(meter: Any, *, seconds: float = 1.0) -> float:
    """Idle power (W) read by `meter` over `seconds` of sleep."""
    seconds = as_float(seconds, "seconds", minimum=0.0, strict_minimum=True)
    meter.start()
    time.sleep(seconds)
    j, s = meter.stop()
    return j / s if s > 0 else 0.0


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

    Raises
    ------
    wpart.WpartError
        If an argument is invalid (a :class:`wpart.WpartValueError` or
        :class:`wpart.WpartTypeError` naming it).
    """
    ps_w = as_float(static_power, "static_power", minimum=0.0)
    tot = as_array(total, "total", allow_inf=False)
    dur = as_array(duration, "duration", allow_inf=False, minimum=0.0)
    if tot.shape != dur.shape and tot.ndim and dur.ndim:
        raise WpartValueError(f"`total` and `duration` must have the same shape, got "
                              f"{tot.shape} and {dur.shape}")
    out = tot - ps_w * dur
    return out[()] if out.ndim == 0 else out


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

    Raises
    ------
    wpart.WpartError
        If an argument is invalid (a :class:`wpart.WpartValueError` or
        :class:`wpart.WpartTypeError` naming it).
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


def measure(
    kernel: Callable[[Any], Any],
    sizes: ArrayLike,
    *,
    setup: Callable[[int], Any] | None = None,
    meter: Any = None,
    static_power: float = 0.0,
    min_reps: int = 5,
    max_reps: int = 50,
    max_time: float = 60.0,
    cl: float = 0.95,
    eps: float = 0.1,
    quantile: str = "two_sided",
    warmup: int = 1,
    name: str = "",
    clamp_negative: bool = True,
    progress: Any = False,
    time_limit: float | None = None,
) -> MeasuredProfile:
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

    Returns
    -------
    MeasuredProfile
        ``.profile`` is a :class:`Profile` ready for :func:`pareto_front`; ``.to_file(path)``
        saves it, e.g. to load a GPU profile measured on another machine with
        :meth:`Profile.from_file`.

    Raises
    ------
    wpart.WpartError
        If an argument is invalid (a :class:`wpart.WpartValueError` or
        :class:`wpart.WpartTypeError` naming it).
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
    prof = Profile.from_arrays(order, t_mean, e_mean, name=label)
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


class SyntheticMeter:
    """Simulated measurements of a platform described by profiles.

    Exercises the measurement pipeline without hardware: :meth:`run` executes a distribution
    "in parallel" and returns each processor's time and the node's total energy, as the paper's
    instrumented application does (Algorithm 4 of Khaleghzadeh et al.); :meth:`run_alone`
    runs one processor alone.

    The total energy of a run is ``P_S * T + (1 + a) * sum_i e_i(x_i)`` where ``a`` is an
    additivity excess drawn per size from ``additivity_excess`` (0 for a run alone), with
    multiplicative Gaussian noise of relative SD `noise` on times and energies. With
    ``noise=0`` and ``additivity_excess=(0, 0)`` the dynamic energy of a parallel run equals
    the sum of the individual ones exactly.

    Parameters
    ----------
    profiles : ProfileSet or sequence of tuples
        One discrete time (and energy) profile per processor: a :class:`ProfileSet` or a sequence
        of ``(sizes, times[, energies])`` tuples.
    static_power : float
        Static (idle) power of the platform in watts.
    noise : float, optional
        Relative standard deviation of the multiplicative Gaussian noise on times and energies
        (0: exact).
    additivity_excess : tuple[float, float], optional
        Range ``(lo, hi)`` of the additivity excess ``a`` drawn per size for a parallel run.
    seed : int, optional
        Seed of the random generator (fixed seeds give identical results).
    """

    def __init__(self, profiles: Any, static_power: float, *, noise: float = 0.02,
                 additivity_excess: tuple[float, float] = (0.0, 0.12), seed: int = 0) -> None:
        from ._profiles import as_profiles

        self.profiles = as_profiles(profiles)
        static_power = as_float(static_power, "static_power", minimum=0.0)
        noise = as_float(noise, "noise", minimum=0.0)
        try:
            lo, hi = additivity_excess
        except (TypeError, ValueError):
            raise WpartValueError("`additivity_excess` must be a pair (lo, hi)") from None
        lo = as_float(lo, "additivity_excess", minimum=0.0)
        hi = as_float(hi, "additivity_excess", minimum=0.0)
        if not lo <= hi:
            raise WpartValueError(f"`additivity_excess` must satisfy 0 <= lo <= hi, got {lo}, {hi}")
        seed = as_seed(seed)
        self.static_power = static_power
        self.noise = noise
        self.excess = (lo, hi)
        self._rng = np.random.default_rng(seed)
        self._seed = seed

    def _excess(self, key: int) -> float:
        u = np.random.default_rng([self._seed, 7, int(key)]).random()
        return self.excess[0] + (self.excess[1] - self.excess[0]) * float(u)

    def _jitter(self) -> float:
        return float(np.exp(self.noise * self._rng.standard_normal())) if self.noise else 1.0

    def run(self, dist: ArrayLike) -> dict:
        """One parallel run: ``{"t_<name>": time, ..., "energy": total J, "duration": s}``."""
        d = np.asarray(dist, dtype=np.int64)
        if d.shape != (self.profiles.m,):
            raise WpartValueError(f"`dist` must have length m = {self.profiles.m} (one share per "
                                  "processor)")
        out: dict[str, float] = {}
        T, E = 0.0, 0.0
        for nm, pr, x in zip(self.profiles.names, self.profiles, d.tolist()):
            v = pr.lookup(x)
            if v is None:
                raise WpartValueError(f"`dist`: {x} is not a measured size of {nm}")
            t, e = v[0] * self._jitter(), v[1] * self._jitter()
            out[f"t_{nm}"] = t
            T, E = max(T, t), E + e
        active = int(np.count_nonzero(d))
        a = self._excess(int(d.sum())) if active > 1 else 0.0
        out["energy"] = self.static_power * T + (1.0 + a) * E
        out["duration"] = T
        return out

    def run_alone(self, i: int, size: int) -> dict:
        """Processor `i` alone on `size`: ``{"time", "energy" (total J), "duration"}``."""
        d = np.zeros(self.profiles.m, np.int64)
        d[int(i)] = int(size)
        r = self.run(d)
        return {"time": r[f"t_{self.profiles.names[int(i)]}"], "energy": r["energy"],
                "duration": r["duration"]}


def additivity_check(
    kernels: Sequence[Callable[[Any], Any]],
    sizes: ArrayLike,
    meter: Any,
    *,
    static_power: float = 0.0,
    min_reps: int = 3,
    max_reps: int = 20,
    cl: float = 0.95,
    eps: float = 0.1,
) -> dict:
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

    Raises
    ------
    wpart.WpartError
        If an argument is invalid (a :class:`wpart.WpartValueError` or
        :class:`wpart.WpartTypeError` naming it).
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
