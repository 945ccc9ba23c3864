"""Simulated CPU+GPU platforms for the multi-kernel decisions [Soldado 2016].

A :class:`SimPlatform` (CPU cores with a cache hierarchy that fission splits into
sub-devices, GPUs with one copy and one compute engine each) runs a :class:`SimCost` (the
cost of one pass of a skeleton computation tree per partition unit) for a given split; the
event model is the C engine's (``wpart_multikernel_sim_run``: every partition runs the whole
tree on its device and its data stay there, a GPU's uploads and downloads of one overlap partition
overlap the compute of another, a Loop with global synchronisation re-sends only its COPY
vectors, a CPU sub-device pays a cache penalty once its partition spills its cache).
:func:`paper_p1_cpu` and :func:`paper_p2` model the paper's two machines;
:func:`calibrate_to_table2` sets the costs of one benchmark so that the GPU-only time equals
Table 2's and the balance point under the profiled configuration is Table 2's share.
:func:`simulate_runs` drives the same decision loop as real runs (:class:`DecisionLoop`,
:func:`build_profile`) over simulated runs. Times are in the paper's units (milliseconds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from .. import _core
from .._errors import WpartKeyError, WpartTypeError, WpartValueError
from .._result import Result, new_axes
from .._validate import as_bool, as_float, as_floats, as_int, as_ints, as_seed
from ._decide import exec_shares, split
from ._flow import DecisionLoop, build_profile, plot_share_runs
from ._kb import KnowledgeBase

__all__ = ["SimCost", "SimPlatform", "SimRun", "SimRuns", "paper_p1_cpu", "paper_p2",
           "calibrate_to_table2", "simulate_run", "simulate_runs", "best_share", "TABLE2",
           "PAPER_BENCH", "CACHE_MODELS"]


@dataclass(frozen=True, kw_only=True)
class SimCost:
    """Cost of one pass of a computation tree per partition unit (all kernels together).

    c_gpu : per unit on one GPU of relative speed 1; c_cpu : per unit on one CPU core;
    b_in, b_out : bytes per unit uploaded / downloaded by a GPU; b_copy : bytes of the COPY
    vectors (every GPU receives them whole); ws : working-set bytes per unit; iters, sync :
    passes of a Loop and whether each ends with a global synchronisation (host merge
    `host_merge`, then the COPY vectors again).
    """

    c_gpu: float
    c_cpu: float
    b_in: float = 0.0
    b_out: float = 0.0
    b_copy: float = 0.0
    ws: float = 0.0
    iters: int = 1
    sync: bool = False
    host_merge: float = 0.0

    def __post_init__(self) -> None:
        # every field checked (a WpartError naming it), then stored as a plain float / int
        for k in ("c_gpu", "c_cpu", "b_in", "b_out", "b_copy", "ws", "host_merge"):
            _set(self, k, as_float(getattr(self, k), k, minimum=0.0))
        _set(self, "iters", as_int(self.iters, "iters", minimum=1, maximum=2**31 - 1))
        _set(self, "sync", as_bool(self.sync, "sync"))


@dataclass(frozen=True, kw_only=True)
class SimPlatform:
    """A modelled machine: ``fission`` maps a level (``"L1"``, ..., ``"NONE"``) to
    (sub-devices, cache bytes private to one sub-device); ``gpu_speed`` holds each GPU's
    relative speed (its install-time score); bandwidths in bytes per ms, latencies in ms.
    ``alpha`` is the dispatch cost per CPU sub-device, ``lam`` the cache-spill penalty,
    ``sigma`` the log-normal noise of every execution (the device layer's, mean 1),
    ``cpu_avail`` a factor on CPU speed (1/3: two external busy threads per core) and
    ``gpu_avail`` one per GPU."""

    cores: int
    fission: dict
    gpu_speed: tuple = ()
    smt: bool = False
    smt_gain: float = 0.25
    B_up: float = 6e6
    B_down: float = 6e6
    L_x: float = 0.01
    L_k: float = 0.005
    alpha: float = 0.01
    lam: float = 2.0
    sigma: float = 0.02
    cpu_avail: float = 1.0
    gpu_avail: tuple = ()

    def __post_init__(self) -> None:
        _set(self, "cores", as_int(self.cores, "cores", minimum=1, maximum=2**31 - 1))
        _set(self, "fission", _fission(self.fission))
        speed = as_floats(self.gpu_speed, "gpu_speed", values="finite and non-negative")
        if (speed <= 0).any():
            raise WpartValueError(f"`gpu_speed` must hold positive speeds, got "
                                  f"{speed.tolist()}")
        _set(self, "gpu_speed", tuple(speed.tolist()))
        _set(self, "smt", as_bool(self.smt, "smt"))
        for k in ("smt_gain", "L_x", "L_k", "alpha", "lam", "sigma"):
            _set(self, k, as_float(getattr(self, k), k, minimum=0.0))
        for k in ("B_up", "B_down", "cpu_avail"):
            _set(self, k, as_float(getattr(self, k), k, minimum=0.0, strict_minimum=True))
        _set(self, "gpu_avail", _gpu_avail(self.gpu_avail, len(self.gpu_speed), "gpu_avail",
                                           allow_empty=True))

    @property
    def n_gpus(self) -> int:
        return len(self.gpu_speed)

    def levels(self) -> list[str]:
        """Fission levels finest to coarsest, then ``"NONE"``."""
        return list(self.fission)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # a frozen dataclass's field, once checked


def _fission(f: Any) -> dict:
    """``SimPlatform.fission``: a non-empty dict of level name -> (sub-devices >= 1, cache
    bytes >= 0)."""
    if not isinstance(f, dict):
        raise WpartTypeError(f"`fission` must be a dict of level -> (sub-devices, cache "
                             f"bytes), got {type(f).__name__}")
    if not f:
        raise WpartValueError("`fission` must name at least one level")
    out = {}
    for lv, v in f.items():
        if not isinstance(lv, str):
            raise WpartTypeError(f"`fission` levels must be strings, got {lv!r}")
        if not isinstance(v, (tuple, list)) or len(v) != 2:
            raise WpartTypeError(f"`fission[{lv!r}]` must be (sub-devices, cache bytes), "
                                 f"got {v!r}")
        out[lv] = (as_int(v[0], f"fission[{lv!r}] sub-devices", minimum=1,
                          maximum=2**31 - 1),
                   as_float(v[1], f"fission[{lv!r}] cache bytes", minimum=0.0))
    return out


def _gpu_avail(x: Any, G: int, name: str, allow_empty: bool = False) -> tuple:
    """One positive finite speed factor per GPU (`G`), as a tuple (empty: none given, when
    `allow_empty`)."""
    a = as_floats(x, name, values="finite and non-negative")
    if allow_empty and a.size == 0:
        return ()
    if a.size != G or (a <= 0).any():
        raise WpartValueError(f"`{name}` must hold one positive factor per GPU ({G}), got "
                              f"{a.tolist()}")
    return tuple(a.tolist())


def _level(platform: "SimPlatform", fission: Any, name: str = "fission") -> str:
    """The fission level `fission` (None: ``"NONE"``) of `platform`."""
    lv = "NONE" if fission is None else fission
    if not isinstance(lv, str):
        raise WpartTypeError(f"`{name}` must be a level name (str) or None, got "
                             f"{type(fission).__name__}")
    if lv not in platform.fission:
        raise WpartKeyError(f"`{name}` {fission!r} is not a level of this platform "
                            f"({platform.levels()})")
    return lv


#: How much cache a CPU sub-device keeps its partition in (`caches=` of the presets).
#: ``"core"``: every cache whose cores all belong to the sub-device, plus its share (by cores)
#: of the caches it shares with other sub-devices; a cache that only some of its cores use
#: does not count, because the device's work-groups move between its cores from one kernel
#: to the next. So a one-core sub-device keeps its L1, its L2 and its share of the L3, and
#: the whole CPU device only the caches every core shares. ``"level"``: only the cache of the
#: fission level itself (the model before 0.2: a one-core L1 sub-device of P2 had 32 KB, so
#: the one-sub-device L3 level always spilled least).
CACHE_MODELS = ("core", "level")


def _caches(caches: str) -> str:
    if not isinstance(caches, str) or caches not in CACHE_MODELS:
        raise WpartValueError(f"`caches` must be one of {CACHE_MODELS}, got {caches!r}")
    return caches


def paper_p1_cpu(*, caches: str = "core", **kw: Any) -> SimPlatform:
    """The paper's CPU-only machine P1: 4 x Opteron 6272 (64 cores; L1d 16 KB per core, L2
    2 MB per 2 cores, L3 6 MB per 8 cores; no GPU). `caches`: see :data:`CACHE_MODELS`
    (``"core"``: L1 16 KB + 1 MB + 0.75 MB, L2 2 MB + 1.5 MB, L3 6 MB, NUMA and NONE none
    shared by all their cores)."""
    if _caches(caches) == "level":
        f = {"L1": (64, 16 << 10), "L2": (32, 2 << 20), "L3": (8, 6 << 20),
             "NUMA": (4, 12 << 20), "NONE": (1, 0)}
    else:
        f = {"L1": (64, (16 << 10) + (2 << 20) // 2 + (6 << 20) // 8),
             "L2": (32, (2 << 20) + (6 << 20) // 4), "L3": (8, 6 << 20), "NUMA": (4, 0),
             "NONE": (1, 0)}
    return SimPlatform(cores=64, fission=f, **kw)


def paper_p2(*, n_gpus: int = 1, caches: str = "core", **kw: Any) -> SimPlatform:
    """The paper's CPU+GPU machine P2: Core i7-3930K (6 cores with hyper-threading; per-core
    L1 32 KB and L2 256 KB, one shared 12 MB L3) and `n_gpus` Radeon HD 7950 on their own
    PCIe x16 links (6 GB/s each way, 10 us per transfer, 5 us per kernel launch). `caches`:
    see :data:`CACHE_MODELS` (``"core"``: an L1 or L2 sub-device is one core with 32 KB +
    256 KB + 2 MB of the L3; the L3 level and NONE are the whole CPU with the 12 MB L3)."""
    n_gpus = as_int(n_gpus, "n_gpus", minimum=0, maximum=64)
    if _caches(caches) == "level":
        f = {"L1": (6, 32 << 10), "L2": (6, 256 << 10), "L3": (1, 12 << 20), "NONE": (1, 0)}
    else:
        core = (32 << 10) + (256 << 10) + (12 << 20) // 6
        f = {"L1": (6, core), "L2": (6, core), "L3": (1, 12 << 20), "NONE": (1, 12 << 20)}
    return SimPlatform(cores=6, smt=True, fission=f, gpu_speed=(1.0,) * n_gpus, **kw)


@dataclass(frozen=True, eq=False, repr=False)
class SimRun(Result):
    """Times of one simulated run (paper units): a result (:class:`wpart.Result`).

    Attributes
    ----------
    status, message : str
        ``"feasible"`` (a simulated run always completes) and what ran.
    T, T_gpu, T_cpu : float
        The run's time, the GPUs' and the CPU's.
    device_times : ndarray
        Every GPU, then the CPU.
    exec_times : ndarray
        Every execution (GPU overlap partitions, CPU sub-devices).
    transfer : ndarray
        Copy-engine busy time per GPU.
    compute : ndarray
        Compute time per GPU, then the CPU's slowest sub-device.
    sizes : ndarray
        Units of every execution.
    events : int
        Events of the simulation.
    stats : dict
        ``s``, ``fission``, ``overlap``, ``units``, ``run``, ``seed``.
    """

    T: float
    T_gpu: float
    T_cpu: float
    device_times: np.ndarray   # every GPU, then the CPU
    exec_times: np.ndarray     # every execution (GPU overlap partitions, CPU sub-devices)
    transfer: np.ndarray       # copy-engine busy time per GPU
    compute: np.ndarray        # compute time per GPU, then the CPU's slowest sub-device
    sizes: np.ndarray          # units of every execution
    events: int

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Completion time of every device (each GPU, then the CPU), with the run's time as
        a line; returns the Axes."""
        ax = new_axes(ax, figsize=(5, 3.2))
        n = self.device_times.size
        names = [f"GPU {g}" for g in range(n - 1)] + ["CPU"]
        ax.bar(np.arange(n), self.device_times, **kwargs)
        ax.axhline(self.T, color="k", linestyle="--", linewidth=1, label="T")
        ax.set_xticks(np.arange(n))
        ax.set_xticklabels(names)
        ax.set_ylabel("time")
        ax.set_title(f"simulated run: T {self.T:.4g}")
        return ax

    def _repr_lines(self) -> list[str]:
        return [f"SimRun(status={self.status!r}, T={self.T:.6g}, T_gpu={self.T_gpu:.6g}, "
                f"T_cpu={self.T_cpu:.6g})", f"  {self.message}"]


def simulate_run(platform: SimPlatform, cost: SimCost, units: int, *, s: float,
                 fission: str | None = "NONE", overlap: int = 1, run: int = 0,
                 seed: int = 0, cpu_avail: float | None = None,
                 gpu_avail: Sequence[float] | None = None) -> SimRun:
    """One run of `cost` over `units` partition units with GPU share `s`, CPU fission level
    `fission` and `overlap` partitions per GPU (the split by :func:`split`, GPUs statically
    by their speeds, CPU sub-devices equally)."""
    if not isinstance(platform, SimPlatform):
        raise WpartTypeError(f"`platform` must be a SimPlatform, got {type(platform).__name__}")
    if not isinstance(cost, SimCost):
        raise WpartTypeError(f"`cost` must be a SimCost, got {type(cost).__name__}")
    U = as_int(units, "units", minimum=0, maximum=2**63 - 1)
    s = as_float(s, "s", minimum=0.0, maximum=1.0)
    k = as_int(overlap, "overlap", minimum=1, maximum=64)
    run = as_int(run, "run", minimum=0, maximum=2**63 - 1)
    seed = as_seed(seed)
    G = platform.n_gpus
    if G == 0:
        s = 0.0
    lv = _level(platform, fission)
    C, cap = platform.fission[lv]
    C_used = C if s < 1.0 else 0
    if G:
        sh = exec_shares(s, np.asarray(platform.gpu_speed), overlap=k, cpu_subdevices=C_used)
    else:
        sh = np.full(C, 1.0 / C)
    sizes, _ = split(U, sh, np.ones(sh.size, dtype=np.int64))
    if C_used == 0:
        sizes = np.concatenate([sizes, np.zeros(C, dtype=np.int64)])
    a_cpu = platform.cpu_avail if cpu_avail is None else as_float(cpu_avail, "cpu_avail",
                                                                  minimum=1e-9)
    ga = np.ones(G) if gpu_avail is None and not platform.gpu_avail else \
        np.asarray(platform.gpu_avail if gpu_avail is None else
                   _gpu_avail(gpu_avail, G, "gpu_avail"), dtype=np.float64)
    m = platform.cores / C
    m_eff = m * (1.0 + platform.smt_gain) if platform.smt else m
    gpu_comp = np.array([cost.c_gpu / (platform.gpu_speed[g] * ga[g]) for g in range(G)],
                        dtype=np.float64)
    cpu_rate = np.full(C, cost.c_cpu / (m_eff * a_cpu), dtype=np.float64)
    params = (cost.b_in / platform.B_up, cost.b_out / platform.B_down,
              cost.b_copy / platform.B_up, platform.L_x, platform.L_k,
              platform.alpha * C, cost.ws, float(cap) if lv != "NONE" else 0.0, platform.lam,
              cost.host_merge, platform.sigma)
    T, Tg, Tc, te, td, busy, ev = _core.multikernel_sim_run(
        G, k if G else 1, C, np.ascontiguousarray(sizes, dtype=np.int64), gpu_comp, cpu_rate,
        params, int(cost.iters), int(bool(cost.sync)), seed, run)
    msg = (f"{U} units, GPU share {s:.4g}, fission {lv}, overlap {k}: T {T:.6g} (GPUs "
           f"{Tg:.6g}, CPU {Tc:.6g})")
    return SimRun("feasible", msg, T, Tg, Tc, td, te, busy[:G], busy[G:], sizes, ev,
                  stats={"s": s, "fission": lv, "overlap": k, "units": U, "run": run,
                         "seed": seed})


# ----------------------------------------------------------------------------- Table 2 --------

#: The paper's Table 2 (P2): (benchmark, input) -> per GPU count (1, 2): (GPU-only time,
#: fission, overlap, GPU share %).
TABLE2: dict = {
    ("filter", "2048^2"): {1: (3.13, "L2", 4, 77.8), 2: (1.96, "L1", 4, 79.1)},
    ("filter", "4096^2"): {1: (12.21, "L1", 4, 78.4), 2: (6.80, "L1", 3, 79.2)},
    ("filter", "8192^2"): {1: (45.24, "L1", 4, 71.4), 2: (25.62, "L1", 4, 79.2)},
    ("fft", "128MB"): {1: (21.00, "L3", 4, 67.1), 2: (12.01, "L3", 4, 75.1)},
    ("fft", "256MB"): {1: (41.68, "L3", 4, 67.9), 2: (23.62, "L3", 4, 81.6)},
    ("fft", "512MB"): {1: (80.64, "L3", 4, 68.5), 2: (46.18, "L3", 4, 90.0)},
    ("nbody", "16384"): {1: (37.17, None, 4, 100.0), 2: (29.87, None, 4, 100.0)},
    ("nbody", "32768"): {1: (101.56, None, 4, 100.0), 2: (69.63, None, 4, 100.0)},
    ("nbody", "65536"): {1: (356.85, None, 4, 100.0), 2: (200.76, None, 4, 100.0)},
    ("saxpy", "1M"): {1: (1.83, "L1", 4, 71.4), 2: (0.78, "L2", 3, 85.0)},
    ("saxpy", "10M"): {1: (16.97, "L2", 4, 75.3), 2: (11.54, "L1", 4, 87.5)},
    ("saxpy", "50M"): {1: (100.58, "L1", 4, 78.8), 2: (89.92, "L1", 4, 88.2)},
    ("segmentation", "1MB"): {1: (0.47, "L1", 1, 90.7), 2: (0.41, "L3", 1, 49.5)},
    ("segmentation", "8MB"): {1: (1.53, "L3", 3, 74.2), 2: (1.17, "L1", 3, 88.3)},
    ("segmentation", "60MB"): {1: (16.23, "L3", 4, 79.2), 2: (5.71, "L1", 3, 87.5)},
}

#: Partition units and bytes of the paper's benchmarks (Sec. 4 of the paper; unit = image
#: line of uchar4 pixels, one 512 KB FFT, one body (float4 positions replicated), one float
#: element (x and y in, y out), one 2-D slice of a cubic volume of bytes).
PAPER_BENCH: dict = {
    "filter": lambda w: dict(units=w, b_in=4 * w, b_out=4 * w, ws=12 * w),
    "fft": lambda mb: dict(units=mb * 2, b_in=512 << 10, b_out=512 << 10, ws=1 << 20),
    "nbody": lambda n: dict(units=n, b_in=16, b_out=16, b_copy=16 * n, ws=32, iters=1,
                            sync=True),
    "saxpy": lambda n: dict(units=n, b_in=8, b_out=4, ws=12),
    "segmentation": lambda mb: dict(units=round((mb * 2**20) ** (1 / 3)),
                                    b_in=round((mb * 2**20) ** (2 / 3)),
                                    b_out=round((mb * 2**20) ** (2 / 3)),
                                    ws=2 * round((mb * 2**20) ** (2 / 3))),
}


def _bench_shape(bench: str, inp: str) -> dict:
    v = inp.replace("MB", "").replace("M", "").split("^")[0]
    x = int(v)
    if bench == "saxpy":
        x *= 1_000_000
    return PAPER_BENCH[bench](x)


def calibrate_to_table2(benchmark: str, input: str, *, n_gpus: int = 1,
                        transfer_max: float = 0.3, **platform_kw: Any) -> tuple:
    """Platform P2 and the costs of one Table 2 entry.

    ``c_gpu`` is set so that the GPU-only time with overlap 1 equals the paper's baseline
    (to the rounding of floats: the time of the GPU with the most units, as :func:`split`
    gives them, e.g. 102 of segmentation 8MB's 203 slices on two GPUs);
    where the modelled PCIe transfers alone would take more than `transfer_max` of it, the
    bandwidth is raised so that they take exactly that fraction (the paper's times imply a
    faster link). ``c_cpu`` is set so that, under the paper's profiled fission and overlap,
    the CPU and GPU times are equal at the profiled share (a profiled share of 100 % gives
    the CPU a balance point at 99.9 %).

    Returns
    -------
    (SimPlatform, SimCost, units, entry) where entry is (time, fission, overlap, share %).
    """
    for name, v in (("benchmark", benchmark), ("input", input)):
        if not isinstance(v, str):
            raise WpartTypeError(f"`{name}` must be a str, got {type(v).__name__}")
    transfer_max = as_float(transfer_max, "transfer_max", minimum=0.0, strict_minimum=True)
    if not transfer_max < 1.0:
        raise WpartValueError(f"`transfer_max` must be < 1 (a fraction of the GPU-only time), "
                              f"got {transfer_max:g}")
    key = (benchmark, input)
    if key not in TABLE2:
        raise WpartKeyError(f"no Table 2 entry for benchmark={benchmark!r}, input={input!r}")
    n_gpus = as_int(n_gpus, "n_gpus", minimum=1, maximum=2)
    T0, f, k, pct = TABLE2[key][n_gpus]
    shp = _bench_shape(benchmark, input)
    U = int(shp.pop("units"))
    pl = paper_p2(n_gpus=n_gpus, **platform_kw)
    # the units of the slowest GPU in the GPU-only run (overlap 1), as SPLIT gives them: an
    # odd number of units on two GPUs puts one more on the first (segmentation 8MB: 203
    # slices, 102 + 101), and U / n_gpus (101.5) made that GPU, so the run, 0.5 % slower
    # than Table 2's time (1.1757 for 1.17)
    gs, _ = split(U, exec_shares(1.0, np.asarray(pl.gpu_speed), overlap=1, cpu_subdevices=0),
                  np.ones(n_gpus, dtype=np.int64))
    Ug = float(np.max(gs))
    xfer = (2 * pl.L_x + Ug * (shp.get("b_in", 0) + shp.get("b_out", 0)) / pl.B_up
            + shp.get("b_copy", 0) / pl.B_up)
    if xfer > transfer_max * T0:
        scale = xfer / (transfer_max * T0)
        pl = replace(pl, B_up=pl.B_up * scale, B_down=pl.B_down * scale,
                     L_x=pl.L_x / scale)
        xfer = transfer_max * T0
    c_gpu = (T0 - xfer - pl.L_k) / Ug
    cost = SimCost(c_gpu=c_gpu, c_cpu=1.0, **shp)
    quiet = replace(pl, sigma=0.0)
    s = min(pct / 100.0, 0.999)
    g = simulate_run(quiet, cost, U, s=s, fission=f or "L3", overlap=k)
    r1 = simulate_run(quiet, replace(cost, c_cpu=1.0), U, s=s, fission=f or "L3", overlap=k)
    fixed = pl.alpha * pl.fission[f or "L3"][0]
    var = r1.T_cpu - fixed            # the CPU time is affine in c_cpu
    c_cpu = max(g.T_gpu - fixed, 1e-9) / max(var, 1e-300)
    return pl, replace(cost, c_cpu=c_cpu), U, (T0, f, k, pct)


# ----------------------------------------------------------------------- the decision loop ----

@dataclass(frozen=True, eq=False, repr=False)
class SimRuns(Result):
    """Runs of the decision loop on a simulated platform (:func:`simulate_runs`).

    Attributes
    ----------
    status, message : str
    s, T, T_gpu, T_cpu : ndarray
        GPU share used and times of every run.
    fired, lb_op : ndarray of bool
        The detector fired / an adaptive binary search step was taken after the run.
    profiled : int or None
        Run after which a profile was built (None: none).
    stats : dict
        ``lb_ops``, ``measurements`` (runs made by profile construction).
    """

    s: np.ndarray
    T: np.ndarray
    T_gpu: np.ndarray
    T_cpu: np.ndarray
    fired: np.ndarray
    lb_op: np.ndarray
    profiled: int | None = None

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """GPU share and run time against the run index; returns the Axes."""
        return plot_share_runs(ax, 100 * self.s, self.T, share_label="GPU share (%)",
                               time_label="time", **kwargs)[0]

    def _repr_lines(self) -> list[str]:
        return [f"SimRuns(status={self.status!r}, {self.s.size} runs, "
                f"{self.stats.get('lb_ops', 0)} balancing steps)",
                f"  GPU share {100 * self.s[0]:.1f}% -> {100 * self.s[-1]:.1f}%, "
                f"time {self.T[0]:.4g} -> {self.T[-1]:.4g}"]


def simulate_runs(platform: SimPlatform, cost: SimCost, units: int, *, runs: int,
                  kb: KnowledgeBase, sct_id: str = "sct", profiling: bool = True,
                  fission: Sequence[str] | None = None, overlaps: Sequence[int] = (1, 2, 3, 4),
                  cpu_avail: Sequence[tuple] = (), gpu_avail: Sequence[tuple] = (),
                  seed: int = 0, seed_share: float = 0.5,
                  precision: float | None = None, preset: str | None = None,
                  window: int | None = None, w: float | None = None,
                  max_dev: float | None = None, cf: float | None = None,
                  cf_min: float | None = None, T_init: float | None = None,
                  T_min: float | None = None, T_max: float | None = None) -> SimRuns:
    """`runs` requests of one (computation, workload) pair through :class:`DecisionLoop`.

    Each request takes the loop's configuration (the base's entry, or a derived one), runs
    once on the simulated platform and hands its times back; when the detector fires and
    `profiling` is on, :func:`build_profile` runs Algorithm 1 on the same simulated devices.
    `cpu_avail` lists ``(run_from, run_to, factor)``: the CPU's speed factor over those runs
    (an external load; 1/3 is two busy threads per core); `gpu_avail` the same for every
    GPU. `preset`, `window`, `w`, `max_dev`, `cf`, `cf_min`, `T_init`, `T_min` and `T_max`
    are the options of :class:`DecisionLoop` (None: its defaults, :data:`MK_DEFAULTS`).
    """
    runs = as_int(runs, "runs", minimum=1)
    units = as_int(units, "units", minimum=1, maximum=2**63 - 1)
    if not isinstance(platform, SimPlatform):
        raise WpartTypeError(f"`platform` must be a SimPlatform, got {type(platform).__name__}")
    if not isinstance(cost, SimCost):
        raise WpartTypeError(f"`cost` must be a SimCost, got {type(cost).__name__}")
    if not isinstance(sct_id, str):
        raise WpartTypeError(f"`sct_id` must be a str, got {type(sct_id).__name__}")
    if fission is not None:
        if isinstance(fission, str) or not isinstance(fission, (list, tuple)):
            raise WpartTypeError(f"`fission` must be a list of level names, got "
                                 f"{type(fission).__name__}")
        if not fission:
            raise WpartValueError("`fission` must name at least one level")
        for f in fission:
            _level(platform, f, "fission")
    ov = as_ints(overlaps, "overlaps", lo=1, hi=65)
    if ov.size == 0:
        raise WpartValueError("`overlaps` must list at least one overlap")
    overlaps = tuple(ov.tolist())
    cpu_avail, gpu_avail = _schedule(cpu_avail, "cpu_avail"), _schedule(gpu_avail, "gpu_avail")
    seed_share = as_float(seed_share, "seed_share", minimum=0.0, maximum=1.0)
    if precision is not None:
        precision = as_float(precision, "precision", minimum=0.0)
    loop = DecisionLoop(kb, profiling=profiling, seed=seed_share, preset=preset, window=window,
                        w=w, max_dev=max_dev, cf=cf, cf_min=cf_min, T_init=T_init, T_min=T_min,
                        T_max=T_max)
    levels = list(fission) if fission is not None else platform.levels()
    wl = (int(units),)
    out = {k: [] for k in ("s", "T", "Tg", "Tc", "fired", "lb")}
    profiled, n_meas = None, 0
    counter = [10**6]

    def avail(r: int, sched: Sequence[tuple] = cpu_avail) -> float:
        a = 1.0
        for lo, hi, fct in sched:
            if lo <= r < hi:
                a *= fct
        return a

    for r in range(runs):
        cfg = loop.begin(sct_id, wl)
        a, ga = avail(r), [avail(r, gpu_avail)] * platform.n_gpus
        res = simulate_run(platform, cost, units, s=cfg.s, fission=cfg.fission or levels[0],
                           overlap=cfg.overlap, run=r, seed=seed, cpu_avail=a, gpu_avail=ga)
        dt = res.device_times if cfg.s < 1.0 else res.device_times[:-1]
        d = loop.end(T=res.T, device_times=dt, t_gpu=res.T_gpu, t_cpu=res.T_cpu)
        if d.profile:
            def measure(f, o, w, s_, _a=a, _ga=ga):
                counter[0] += 1
                x = simulate_run(platform, cost, units, s=s_, fission=f or levels[0],
                                 overlap=o, run=counter[0], seed=seed, cpu_avail=_a,
                                 gpu_avail=_ga)
                return x.T, x.T_gpu, x.T_cpu
            pb = build_profile(measure, sct_id=sct_id, workload=wl, kb=kb, fission=levels,
                               overlaps=overlaps, n_gpus=platform.n_gpus, precision=precision)
            n_meas += pb.stats["measurements"]
            loop.profile_built()
            profiled = r
        out["s"].append(cfg.s)
        out["T"].append(res.T)
        out["Tg"].append(res.T_gpu)
        out["Tc"].append(res.T_cpu)
        out["fired"].append(d.fired)
        out["lb"].append(d.lb_op)
    T = np.array(out["T"])
    fired = np.array(out["fired"])
    msg = (f"{T.size} simulated runs, mean time {float(T.mean()):.4g} s; the balancing fired "
           f"in {int(np.count_nonzero(fired))}, {loop.lb_ops} balancing steps"
           if T.size else "no runs")
    return SimRuns("feasible", msg, np.array(out["s"]), T, np.array(out["Tg"]),
                   np.array(out["Tc"]), fired, np.array(out["lb"]), profiled,
                   stats={"lb_ops": loop.lb_ops, "measurements": n_meas})


def _schedule(x: Any, name: str) -> tuple:
    """`cpu_avail` / `gpu_avail` of :func:`simulate_runs`: ``(run_from, run_to, factor)``
    triples (integers, a positive finite factor)."""
    if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__iter__"):
        raise WpartTypeError(f"`{name}` must be a sequence of (run_from, run_to, factor), got "
                             f"{type(x).__name__}")
    out = []
    for i, t in enumerate(x):
        if isinstance(t, (str, bytes, dict)) or not hasattr(t, "__len__") or len(t) != 3:
            raise WpartTypeError(f"`{name}[{i}]` must be (run_from, run_to, factor), got "
                                 f"{t!r}")
        out.append((as_int(t[0], f"{name}[{i}] run_from"), as_int(t[1], f"{name}[{i}] run_to"),
                    as_float(t[2], f"{name}[{i}] factor", minimum=0.0, strict_minimum=True)))
    return tuple(out)


def best_share(platform: SimPlatform, cost: SimCost, units: int, *, fission: str | None,
               overlap: int, cpu_avail: float = 1.0, grid: int = 2001) -> tuple[float, float]:
    """(share, time) of the fastest GPU share on a grid, without noise: the optimum the
    decision loop is judged against."""
    if not isinstance(platform, SimPlatform):
        raise WpartTypeError(f"`platform` must be a SimPlatform, got {type(platform).__name__}")
    _level(platform, fission)
    grid = as_int(grid, "grid", minimum=2, maximum=10**6)
    quiet = replace(platform, sigma=0.0)
    best = (math.nan, math.inf)
    for s in np.linspace(0.0, 1.0, grid):
        t = simulate_run(quiet, cost, units, s=float(s), fission=fission, overlap=overlap,
                         cpu_avail=cpu_avail).T
        if t < best[1]:
            best = (float(s), t)
    return best
