"""Energy meters for :func:`wpart.hetero.measure`: Linux RAPL (powercap), NVML, sampled
power readings (:class:`CallbackMeter`), and a simulated platform (:class:`SyntheticMeter`),
with the static power a meter reads at rest (Sec. 10.1 of Khaleghzadeh et al.)."""

from __future__ import annotations
from .._errors import WpartRuntimeError, WpartTypeError, WpartValueError

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import as_float, as_int, as_seed, positional_deprecated

__all__ = [
    "CallbackMeter",
    "NvmlMeter",
    "RaplMeter",
    "SyntheticMeter",
    "energy_from_samples",
    "measure_static_power",
]

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

    @positional_deprecated("root")
    def __init__(self, *, root: str | os.PathLike = "/sys/class/powercap",
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
    @positional_deprecated("root")
    def available(cls, *, root: str | os.PathLike = "/sys/class/powercap") -> bool:
        """True when at least one RAPL zone can be read."""
        try:
            cls(root=root)
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

    @positional_deprecated("index")
    def __init__(self, *, index: int = 0) -> None:
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
