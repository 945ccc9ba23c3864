"""Real profile measurement (spec 000 section 4): repeat a kernel until its mean is precise,
read energy from Linux RAPL (powercap) or from user-supplied power readings, subtract static
power, and check the additivity of dynamic energy."""

from __future__ import annotations
from .._errors import WpartRuntimeError, WpartTypeError, WpartValueError

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
    """CalAccuracy (paper Alg. 6, two-sided by default): (converged, relative half-width)."""
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

    This is the paper's MeanUsingTtest (Alg. 5) with CalAccuracy (Alg. 6): after each run, the
    Student-t confidence half-width ``tinv * sd / sqrt(k)`` of every quantity is compared with
    ``eps * mean``; the loop stops when all are precise, after `max_reps` runs, or when the
    summed time of a time quantity exceeds `max_time` seconds.

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
    """
    if int(min_reps) < 1 or int(max_reps) < int(min_reps):
        raise WpartValueError(f"need 1 <= min_reps <= max_reps, got {min_reps}, {max_reps}")
    if not (0 < cl < 1):
        raise WpartValueError(f"`cl` must be in (0, 1), got {cl}")
    if not eps > 0:
        raise WpartValueError(f"`eps` must be > 0, got {eps}")
    if quantile not in ("two_sided", "paper"):
        raise WpartValueError(f"`quantile` must be 'two_sided' or 'paper', got {quantile!r}")
    if first_check not in ("min_reps", "paper"):
        raise WpartValueError(f"`first_check` must be 'min_reps' or 'paper', got {first_check!r}")
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

    def __init__(self, root: str | os.PathLike = "/sys/class/powercap",
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
            raise WpartRuntimeError(f"no readable RAPL zone under {self.root} (powercap counters are "
                               "often readable by root only); pass power readings with "
                               "CallbackMeter instead")
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
    def available(cls, root: str | os.PathLike = "/sys/class/powercap") -> bool:
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

    def __init__(self, index: int = 0) -> None:
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
    """

    def __init__(self, read_power: Callable[[], float], hz: float = 10.0) -> None:
        if not callable(read_power):
            raise WpartTypeError("`read_power` must be callable")
        if not hz > 0:
            raise WpartValueError(f"`hz` must be > 0, got {hz}")
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


def measure_static_power(meter: Any, seconds: float = 1.0) -> float:
    """Idle power (W) read by `meter` over `seconds` of sleep."""
    meter.start()
    time.sleep(float(seconds))
    j, s = meter.stop()
    return j / s if s > 0 else 0.0


def dynamic_energy(total: ArrayLike, static_power: float, duration: ArrayLike) -> Any:
    """``E_D = E_T - P_S * T_E`` (paper Eq. 4)."""
    return np.asarray(total, dtype=float) - float(static_power) * np.asarray(duration, float)


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
        and ``mean`` of its absolute value, and ``mean_signed`` (spec 4.2 step 6; the paper's
        Table III reports 0.001-29 % with averages of 4-12 %).
    """
    par = np.asarray(parallel, dtype=np.float64)
    ind = [np.asarray(a, dtype=np.float64) for a in individual]
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


@dataclass(frozen=True)
class MeasuredProfile:
    """A profile measured on this machine, with the statistics of every point.

    Attributes
    ----------
    profile : Profile
        Mean time and mean dynamic energy per size (energy 0 without a meter).
    reps : ndarray of int
        Runs per size.
    precision : ndarray
        Relative confidence half-width of the mean time per size.
    converged : ndarray of bool
        Whether the time (and energy) reached the requested precision.
    static_power : float
        ``P_S`` subtracted from the meter's energy.
    meter : str
        Description of the energy source (``"none"``, ``"RaplMeter(package-0)"`` ...).
    seconds : float
        Wall time of the whole measurement.
    """

    profile: Profile
    reps: NDArray[np.int64]
    precision: NDArray[np.float64]
    converged: NDArray[np.bool_]
    static_power: float = 0.0
    meter: str = "none"
    seconds: float = 0.0
    info: dict = field(default_factory=dict)

    def to_file(self, path: str | os.PathLike) -> None:
        """Save the profile (``size time energy``) for :meth:`Profile.from_file` elsewhere."""
        self.profile.to_file(path)

    def __repr__(self) -> str:
        return (f"MeasuredProfile({self.profile.name!r}, m={self.profile.m}, meter={self.meter}, "
                f"converged {int(self.converged.sum())}/{self.converged.size}, "
                f"{self.seconds:.2f} s)")


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
    progress: bool = False,
) -> MeasuredProfile:
    """Measure a real time (and dynamic-energy) profile of `kernel` on this machine.

    For every size, ``state = setup(size)`` prepares the inputs outside the timed region (a
    kernel object with a ``setup`` method, such as :class:`wpart.hetero.kernels.BlockedMatmul`,
    provides its own; without one, the kernel receives the size itself). Then ``kernel(state)``
    is timed with :func:`time.perf_counter` and repeated by :func:`mean_until_precise` until
    the mean time (and energy) is within `eps` at confidence `cl` (spec 2.7: 95 % and 10 %).

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
    progress : bool
        Show a tqdm bar over the sizes.

    Returns
    -------
    MeasuredProfile
        ``.profile`` is a :class:`Profile` ready for :func:`pareto_front`; ``.to_file(path)``
        saves it, e.g. to load a GPU profile measured on another machine with
        :meth:`Profile.from_file`.
    """
    if not callable(kernel):
        raise WpartTypeError("`kernel` must be callable")
    s = np.asarray(sizes)
    if s.ndim != 1 or s.size == 0 or s.dtype.kind not in "iu":
        raise WpartValueError(f"`sizes` must be a non-empty 1-D array of integers, got {sizes!r}")
    if np.any(s <= 0) or np.unique(s).size != s.size:
        raise WpartValueError("`sizes` must be > 0 and distinct")
    if not (math.isfinite(static_power) and static_power >= 0):
        raise WpartValueError(f"`static_power` must be finite and >= 0, got {static_power}")
    if meter is not None and not (hasattr(meter, "start") and hasattr(meter, "stop")):
        raise WpartTypeError("`meter` must have start() and stop() -> (joules, seconds)")
    prep = setup if setup is not None else getattr(kernel, "setup", None)
    label = name or getattr(kernel, "__name__", type(kernel).__name__)
    order = np.sort(s.astype(np.int64))
    t_mean, e_mean, reps, prec, conv = [], [], [], [], []
    t_start = time.perf_counter()
    it = order.tolist()
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc=f"measure {label}", leave=False)
    for x in it:
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

        r = mean_until_precise(execute, min_reps, max_reps, max_time, cl, eps, quantile,
                               time_keys=["time"])
        t_mean.append(r["means"]["time"])
        e = r["means"].get("energy", 0.0)
        e_mean.append(max(e, 0.0) if clamp_negative else e)
        reps.append(r["reps"])
        prec.append(r["precision"].get("time", math.inf))
        conv.append(r["converged"])
    prof = Profile.from_arrays(order, t_mean, e_mean, name=label)
    return MeasuredProfile(prof, np.array(reps, np.int64), np.array(prec, np.float64),
                           np.array(conv, bool), float(static_power),
                           "none" if meter is None else repr(meter),
                           time.perf_counter() - t_start)


class SyntheticMeter:
    """Simulated measurements of a platform described by profiles (spec 000 sections 4, 7.3).

    Exercises the measurement pipeline without hardware: :meth:`run` executes a distribution
    "in parallel" and returns each processor's time and the node's total energy, as the paper's
    instrumented application does (Alg. 4); :meth:`run_alone` runs one processor alone.

    The total energy of a run is ``P_S * T + (1 + a) * sum_i e_i(x_i)`` where ``a`` is an
    additivity excess drawn per size from ``additivity_excess`` (0 for a run alone), with
    multiplicative Gaussian noise of relative SD `noise` on times and energies. With
    ``noise=0`` and ``additivity_excess=(0, 0)`` the dynamic energy of a parallel run equals
    the sum of the individual ones exactly.
    """

    def __init__(self, profiles: Any, static_power: float, *, noise: float = 0.02,
                 additivity_excess: tuple[float, float] = (0.0, 0.12), seed: int = 0) -> None:
        from ._profiles import as_profiles

        self.profiles = as_profiles(profiles)
        if not (math.isfinite(static_power) and static_power >= 0):
            raise WpartValueError(f"`static_power` must be finite and >= 0, got {static_power}")
        if not noise >= 0:
            raise WpartValueError(f"`noise` must be >= 0, got {noise}")
        lo, hi = additivity_excess
        if not 0 <= lo <= hi:
            raise WpartValueError(f"`additivity_excess` must satisfy 0 <= lo <= hi, got {lo}, {hi}")
        self.static_power = float(static_power)
        self.noise = float(noise)
        self.excess = (float(lo), float(hi))
        self._rng = np.random.default_rng(seed)
        self._seed = int(seed)

    def _excess(self, key: int) -> float:
        u = np.random.default_rng([self._seed, 7, int(key)]).random()
        return self.excess[0] + (self.excess[1] - self.excess[0]) * float(u)

    def _jitter(self) -> float:
        return float(np.exp(self.noise * self._rng.standard_normal())) if self.noise else 1.0

    def run(self, dist: ArrayLike) -> dict:
        """One parallel run: ``{"t_<name>": time, ..., "energy": total J, "duration": s}``."""
        d = np.asarray(dist, dtype=np.int64)
        if d.shape != (self.profiles.p,):
            raise WpartValueError(f"`dist` must have length {self.profiles.p}")
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
        d = np.zeros(self.profiles.p, np.int64)
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
    """Check the additive energy model on this machine (spec 4.2 step 6, paper Table III).

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
    """
    ks = list(kernels)
    if not ks or not all(callable(k) for k in ks):
        raise WpartTypeError("`kernels` must be a non-empty sequence of callables")
    s = np.asarray(sizes)
    if s.ndim != 1 or s.size == 0 or s.dtype.kind not in "iu" or np.any(s <= 0):
        raise WpartValueError("`sizes` must be a non-empty 1-D array of positive integers")
    if not (hasattr(meter, "start") and hasattr(meter, "stop")):
        raise WpartTypeError("`meter` must have start() and stop() -> (joules, seconds)")

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
            r = mean_until_precise(lambda k=k, st=st: metered(lambda: k(st)), min_reps,
                                   max_reps, math.inf, cl, eps, time_keys=["duration"])
            ind[i].append(r["means"]["energy"])

        def together(states: list = states) -> None:
            th = [threading.Thread(target=k, args=(st,)) for k, st in zip(ks, states)]
            for t in th:
                t.start()
            for t in th:
                t.join()

        r = mean_until_precise(lambda: metered(together), min_reps, max_reps, math.inf, cl,
                               eps, time_keys=["duration"])
        par.append(r["means"]["energy"])
    rep = additivity_report(par, ind)
    rep.update({"sizes": s.tolist(), "parallel": np.array(par), "individual": np.array(ind)})
    return rep
