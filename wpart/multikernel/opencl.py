"""Real execution of multi-kernel computations through OpenCL [Soldado 2016].

:class:`Runtime` finds the OpenCL devices present (a CPU, any GPUs), splits the CPU into
sub-devices by cache level ("fission": ``BY_AFFINITY_DOMAIN`` where the driver supports it,
otherwise ``BY_COUNTS`` built from the cache topology in Linux sysfs), gives every GPU
``overlap`` command queues, and runs a computation with every parallel execution (a CPU
sub-device or a GPU queue) computing the whole kernel chain on its own partition, cut by
:func:`wpart.multikernel.split`. Queues have profiling on: each execution's time comes from its
events. The paper's benchmarks ship as OpenCL C kernels (``kernels/benchmarks.cl``):
:class:`Saxpy`, :class:`FilterPipeline` (Gaussian noise, solarize, mirror), :class:`FFT`
(FFT then inverse FFT), :class:`NBody` (direct sum in a loop, positions copied to every
device and gathered every iteration) and :class:`Segmentation` (3-D volume, by slices); each
has a NumPy reference.

Needs ``pyopencl`` and an OpenCL driver: the pip-installable PoCL CPU driver
(``pocl-binary-distribution``) works everywhere; :func:`unavailable_reason` says why not.

Examples
--------
>>> from wpart.multikernel import opencl as O
>>> if O.unavailable_reason() is None:
...     rt = O.Runtime(fission="NONE")
...     run = rt.run(O.Saxpy(10_000, seed=0))
...     ok = run.check()
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import WpartRuntimeError, WpartValueError
from .._result import Result, new_axes
from .._validate import as_float, as_int, choice
from ._clprobe import _cl, _devices, unavailable_reason
from ._decide import exec_shares, level_of_parallelism, quantum, split
from ._flow import ProfileBuild, build_profile
from ._topology import FISSION_LEVELS, fission_counts, fission_levels

__all__ = ["unavailable_reason", "Runtime", "Execution", "OpenCLRun", "Saxpy", "FilterPipeline",
           "FFT", "NBody", "Segmentation", "BENCHMARKS", "launch_overhead", "profile"]

KERNELS = Path(__file__).with_name("kernels") / "benchmarks.cl"


@dataclass
class Execution:
    """One parallel execution: a CPU sub-device or one overlap slot of a GPU."""

    kind: str            # "cpu" or "gpu"
    device: str          # device id: "cpu" or "gpu0", "gpu1", ...
    slot: int            # sub-device or overlap slot index
    name: str
    queue: Any = field(repr=False)
    context: Any = field(repr=False)
    wgs: int | None = None   # work-group size (None: the driver's choice)


@dataclass(frozen=True, eq=False, repr=False)
class OpenCLRun(Result):
    """One run of a computation over the OpenCL executions.

    Attributes
    ----------
    status, message : str
    benchmark : str
    sizes, offsets : ndarray of int64
        Units per execution and first unit (SPLIT's partitions).
    exec_times : ndarray of float
        Seconds per execution, from its profiling events (first start to last end).
    device_times : dict
        Seconds per device (the latest of its executions).
    wall : float
        Host wall-clock seconds of the run.
    s_eff : float
        Share of the units that went to GPUs.
    stats : dict
        ``executions`` (names), ``launches`` (kernel launches), ``fission``, ``overlap``.
    """

    benchmark: str
    sizes: np.ndarray
    offsets: np.ndarray
    exec_times: np.ndarray
    device_times: dict
    wall: float
    s_eff: float
    output: Any = field(repr=False, compare=False, default=None)
    checker: Any = field(repr=False, compare=False, default=None)
    computation: Any = field(repr=False, compare=False, default=None)

    @property
    def balance_ratio(self) -> float:
        """min / max of the per-device times (the paper's balance between devices)."""
        t = [v for v in self.device_times.values()]
        return min(t) / max(t) if t and max(t) > 0 else 1.0

    @property
    def exec_balance_ratio(self) -> float:
        """min / max of the times of the executions that got a partition (a CPU-only run's
        sub-devices are balanced by this, not by :attr:`balance_ratio`)."""
        t = [float(x) for x, n in zip(self.exec_times, self.sizes) if n > 0]
        return min(t) / max(t) if t and max(t) > 0 else 1.0

    @property
    def reference(self) -> Any:
        """The NumPy reference output of the computation (None when it has none)."""
        ref = getattr(self.computation, "reference", None)
        return ref() if callable(ref) else None

    def check(self) -> bool:
        """Whether the output equals the NumPy reference (exact for integer kernels, within
        float32 tolerance otherwise)."""
        return bool(self.checker(self.output))

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Bar chart of the execution times, labelled with each partition's units."""
        ax = new_axes(ax)
        names = self.stats.get("executions", [str(i) for i in range(len(self.sizes))])
        ax.bar(range(len(names)), self.exec_times * 1e3, **kwargs)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([f"{n}\n{s}" for n, s in zip(names, self.sizes)], fontsize=7)
        ax.set_ylabel("ms")
        ax.set_title(f"{self.benchmark}: balance {self.balance_ratio:.2f}")
        return ax

    def _repr_lines(self) -> list[str]:
        names = self.stats.get("executions", [str(i) for i in range(len(self.sizes))])
        per_exec = ", ".join(f"{nm} {t * 1e3:.2f}" for nm, t, n in
                             zip(names, self.exec_times, self.sizes) if n > 0)
        per_dev = ", ".join(f"{d} {t * 1e3:.2f}" for d, t in self.device_times.items())
        return [f"OpenCLRun({self.benchmark!r}, status={self.status!r})",
                f"  partitions {self.sizes.tolist()}",
                f"  ms per execution: {per_exec}",
                f"  ms per device: {per_dev}",
                f"  wall {self.wall * 1e3:.2f} ms, balance ratio {self.balance_ratio:.2f} "
                f"between devices, {self.exec_balance_ratio:.2f} between executions, "
                f"GPU share {self.s_eff:.3f}"]


class Runtime:
    """The OpenCL devices present, configured for multi-kernel runs.

    Parameters
    ----------
    fission : str, optional
        CPU fission level: one of ``"L1"``, ``"L2"``, ``"L3"``, ``"L4"``, ``"NUMA"``,
        ``"NONE"`` (one sub-device). A level this machine does not split by gives one
        sub-device.
    overlap : int, optional
        Command queues (partitions) per GPU.
    use_cpu, use_gpu : bool, optional
        Which device types take part.
    gpu_scores : sequence of float, optional
        Static relative speed per GPU (default equal).
    gpu_wgs : int, optional
        Work-group size of the GPU executions (their quantum follows from it: the smallest
        partition whose thread count is a multiple of it, Sec. 3.1 of [Soldado 2016]).
    cpu_wgs : int, optional
        Work-group size of the CPU sub-devices (default: the driver's choice, quantum 1).
    topology_root : path, optional
        A sysfs ``devices/system`` folder to read the cache topology from (tests).
    stand_in_gpus : int, optional
        On a machine without a GPU driver: split the CPU device ``BY_COUNTS`` and let the
        first `stand_in_gpus` compute units act as GPUs (one each, with `overlap` queues), the
        rest as the CPU (one sub-device, no further fission). It exercises the CPU+GPU path
        (shares, overlap slots, GPU quanta, per-type times) with real kernels; its times say
        nothing about GPUs.
    """

    def __init__(self, *, fission: str = "NONE", overlap: int = 1, use_cpu: bool = True,
                 use_gpu: bool = True, gpu_scores: Any = None, gpu_wgs: int = 64,
                 cpu_wgs: int | None = None, topology_root: Any = None,
                 stand_in_gpus: int = 0) -> None:
        cl = _cl()
        self.fission = choice(fission, "fission", tuple(f.lower() for f in FISSION_LEVELS)).upper()
        self.overlap = as_int(overlap, "overlap", minimum=1, maximum=64)
        self.gpu_wgs = as_int(gpu_wgs, "gpu_wgs", minimum=1, maximum=4096)
        self.cpu_wgs = None if cpu_wgs is None else as_int(cpu_wgs, "cpu_wgs", minimum=1,
                                                           maximum=4096)
        why = unavailable_reason()
        if why:
            raise WpartRuntimeError(why)
        cpus, gpus = [], []
        for _, d in _devices(cl):
            (cpus if d.type & cl.device_type.CPU else gpus).append(d)
        self.cpu_device = cpus[0] if (cpus and use_cpu) else None
        self.gpu_devices = list(gpus) if use_gpu else []
        self.stand_in_gpus = as_int(stand_in_gpus, "stand_in_gpus", minimum=0, maximum=64)
        cpu_part = None
        if self.stand_in_gpus:
            if not cpus or cpus[0].max_compute_units <= self.stand_in_gpus:
                raise WpartValueError(f"`stand_in_gpus` = {self.stand_in_gpus} needs an OpenCL "
                                      "CPU device with more compute units")
            dpp = cl.device_partition_property
            d0 = cpus[0]
            rest = d0.max_compute_units - self.stand_in_gpus
            subs = d0.create_sub_devices([dpp.BY_COUNTS, *([1] * self.stand_in_gpus), rest,
                                          dpp.BY_COUNTS_LIST_END])
            self.gpu_devices = list(subs[:-1])
            cpu_part = subs[-1] if use_cpu else None
            self.fission = "NONE"
        if self.cpu_device is None and not self.gpu_devices:
            raise WpartRuntimeError("no usable OpenCL device (use_cpu / use_gpu exclude all)")
        g = len(self.gpu_devices)
        self.gpu_scores = (np.ones(g) if gpu_scores is None
                           else np.asarray(gpu_scores, dtype=np.float64))
        if self.gpu_scores.shape != (g,):
            raise WpartValueError(f"`gpu_scores` must have one score per GPU ({g})")
        self.executions: list[Execution] = []
        self.fission_method = "none"
        props = cl.command_queue_properties.PROFILING_ENABLE
        for gi, d in enumerate(self.gpu_devices):
            ctx = cl.Context([d])
            for k in range(self.overlap):
                self.executions.append(Execution("gpu", f"gpu{gi}", k, f"{d.name.strip()}#{k}",
                                                 cl.CommandQueue(ctx, d, properties=props), ctx,
                                                 min(self.gpu_wgs, d.max_work_group_size)))
        if cpu_part is not None:
            self.cpu_device = cpu_part
            self.fission_counts = [cpu_part.max_compute_units]
            subs = [cpu_part]
        elif self.cpu_device is not None and not self.stand_in_gpus:
            subs = self._fission(cl, self.cpu_device, topology_root)
        else:
            subs = []
            self.cpu_device = None
        if subs:
            ctx = cl.Context(subs)
            for k, sd in enumerate(subs):
                wgs = None if self.cpu_wgs is None else min(self.cpu_wgs, sd.max_work_group_size)
                self.executions.append(Execution("cpu", "cpu", k, f"cpu.{k}",
                                                 cl.CommandQueue(ctx, sd, properties=props), ctx,
                                                 wgs))
        self._programs: dict[int, Any] = {}

    def _fission(self, cl, dev, root) -> list:
        self.fission_counts = [dev.max_compute_units]
        if self.fission == "NONE":
            return [dev]
        dpp = cl.device_partition_property
        supported = set(dev.partition_properties or [])
        dom = {"L1": cl.device_affinity_domain.L1_CACHE, "L2": cl.device_affinity_domain.L2_CACHE,
               "L3": cl.device_affinity_domain.L3_CACHE, "L4": cl.device_affinity_domain.L4_CACHE,
               "NUMA": cl.device_affinity_domain.NUMA}[self.fission]
        if dpp.BY_AFFINITY_DOMAIN in supported and (dev.partition_affinity_domain & dom):
            try:
                subs = dev.create_sub_devices([dpp.BY_AFFINITY_DOMAIN, dom])
                self.fission_method = "by_affinity_domain"
                self.fission_counts = [s.max_compute_units for s in subs]
                return subs
            except Exception:
                pass
        counts = fission_counts(self.fission, dev.max_compute_units, root=root)
        if len(counts) <= 1:
            return [dev]
        if dpp.BY_COUNTS in supported:
            subs = dev.create_sub_devices([dpp.BY_COUNTS, *counts, dpp.BY_COUNTS_LIST_END])
            self.fission_method = "by_counts"
        elif dpp.EQUALLY in supported:
            subs = dev.create_sub_devices([dpp.EQUALLY, max(1, dev.max_compute_units // len(counts))])
            self.fission_method = "equally"
        else:
            return [dev]
        self.fission_counts = [s.max_compute_units for s in subs]
        return subs

    # ------------------------------------------------------------------ facts ---------
    @property
    def n_gpus(self) -> int:
        return len(self.gpu_devices)

    @property
    def cpu_subdevices(self) -> int:
        return sum(1 for e in self.executions if e.kind == "cpu")

    def level_of_parallelism(self, s: float) -> int:
        """Parallel executions that get work at GPU share `s`."""
        return level_of_parallelism(max(1, self.cpu_subdevices), self.overlap, self.n_gpus,
                                    cpu_used=self.cpu_subdevices > 0 and s < 1,
                                    gpu_used=self.n_gpus > 0 and s > 0)

    def describe(self) -> list[dict[str, Any]]:
        """One dict per OpenCL device used: name, type, compute units, sub-devices."""
        out = [{"device": f"gpu{i}", "name": d.name.strip(),
                "type": "GPU (stand-in: CPU compute units)" if self.stand_in_gpus else "GPU",
                "compute_units": d.max_compute_units, "queues": self.overlap}
               for i, d in enumerate(self.gpu_devices)]
        if self.cpu_device is not None:
            d = self.cpu_device
            out.append({"device": "cpu", "name": d.name.strip(), "type": "CPU",
                        "compute_units": d.max_compute_units, "fission": self.fission,
                        "fission_method": self.fission_method,
                        "sub_devices": self.fission_counts,
                        "platform": d.platform.name.strip(), "version": d.version.strip(),
                        "levels": fission_levels()})
        return out

    def program(self, ctx) -> "_Kernels":
        """The benchmark kernels built for context `ctx` (built once, kernels reused)."""
        key = id(ctx)
        if key not in self._programs:
            cl = _cl()
            self._programs[key] = _Kernels(cl, cl.Program(ctx, KERNELS.read_text()).build())
        return self._programs[key]

    def shares(self, s: float) -> np.ndarray:
        """Share of every execution for GPU-type share `s` (static split among GPUs by
        score, equal among CPU sub-devices)."""
        g = self.n_gpus
        c = self.cpu_subdevices
        s = 0.0 if g == 0 else (1.0 if c == 0 else as_float(s, "s", minimum=0.0, maximum=1.0))
        return exec_shares(s, self.gpu_scores, overlap=self.overlap, cpu_subdevices=c)

    # ------------------------------------------------------------------ running -------
    def run_async(self, comp: "Computation", *, s: float | None = None,
                  shares: Any = None) -> Any:
        """:meth:`run` in the background (a thread per call that ends with the run; one
        asynchronous run at a time, shared with :func:`wpart.multikernel.skeletons.run_async`).

        Parameters
        ----------
        comp : Computation
        s, shares : optional
            As for :meth:`run`.

        Returns
        -------
        concurrent.futures.Future
            Its ``result()`` is the :class:`OpenCLRun` (or raises what :meth:`run` raises).
        """
        from . import skeletons

        return skeletons._submit(self.run, comp, s=s, shares=shares)

    def run(self, comp: "Computation", *, s: float | None = None,
            shares: Any = None) -> OpenCLRun:
        """Runs `comp` once over every execution: SPLIT by `shares` (per execution) or by
        the GPU-type share `s` (default 0.5 when GPUs and a CPU are both present)."""
        phi = np.asarray(shares, dtype=np.float64) if shares is not None else \
            self.shares(0.5 if s is None else s)
        if phi.shape != (len(self.executions),):
            raise WpartValueError(f"`shares` must have one value per execution "
                                  f"({len(self.executions)})")
        q = np.array([comp.quantum(e) for e in self.executions], dtype=np.int64)
        sizes, offs = split(comp.units, phi, q)
        comp.begin()
        t0 = time.perf_counter()
        events = comp.execute(self, sizes, offs)
        for e in self.executions:
            e.queue.finish()
        wall = time.perf_counter() - t0
        times = np.zeros(len(self.executions))
        launches = 0
        for i, evs in enumerate(events):
            if evs:
                times[i] = (max(ev.profile.end for ev in evs) -
                            min(ev.profile.start for ev in evs)) * 1e-9
                launches += len(evs)
        dev: dict[str, float] = {}
        for e, t, n in zip(self.executions, times, sizes):
            dev[e.device] = max(dev.get(e.device, 0.0), float(t))
        gpu_units = int(sum(n for e, n in zip(self.executions, sizes) if e.kind == "gpu"))
        s_eff = gpu_units / comp.units if comp.units else 0.0
        return OpenCLRun("feasible", "", comp.name, sizes, offs, times, dev, wall, s_eff,
                         stats={"executions": [e.name for e in self.executions],
                                "launches": launches, "fission": self.fission,
                                "overlap": self.overlap, "quanta": q.tolist(),
                                "level_of_parallelism": int((sizes > 0).sum())},
                         output=comp.result(), checker=comp.check, computation=comp)


class _Kernels:
    """Kernel objects of one built program, retrieved once each."""

    def __init__(self, cl, prg) -> None:
        self._cl, self._prg, self._k = cl, prg, {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        k = self._k.get(name)
        if k is None:
            k = self._k[name] = self._cl.Kernel(self._prg, name)
        return k


def _gs(n: int, wgs: int | None) -> tuple[tuple[int], tuple[int] | None]:
    if wgs is None:
        return (max(1, n),), None
    return (max(wgs, -(-n // wgs) * wgs),), (wgs,)


class Computation:
    """Base of the benchmarks: `units` of a partitioned index space, `elems_per_unit`
    elements of the vector defining each kernel's work space."""

    name = "computation"
    elems_per_unit = 1

    def quantum(self, ex: Execution) -> int:
        """Smallest partition (units) whose thread count is a multiple of the work-group
        size of `ex` (1 where the driver chooses)."""
        return quantum([(self.elems_per_unit, ex.wgs)]) if ex.wgs else 1

    def begin(self) -> None:
        pass

    def execute(self, rt: Runtime, sizes, offs) -> list[list]:
        out = []
        for ex, n, off in zip(rt.executions, sizes, offs):
            out.append(self.enqueue(rt, ex, int(off), int(n)) if n > 0 else [])
        return out


def _buf(cl, ctx, nbytes):
    return cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=max(1, int(nbytes)))


class Saxpy(Computation):
    """``y = a x + y`` over `n` float32 elements (a Map; one unit = one element)."""

    name = "saxpy"

    def __init__(self, n: int, *, a: float = 2.0, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.units = as_int(n, "n", minimum=1)
        self.a = np.float32(a)
        self.x = rng.standard_normal(self.units, dtype=np.float32)
        self.y0 = rng.standard_normal(self.units, dtype=np.float32)

    def begin(self) -> None:
        self.y = self.y0.copy()

    def enqueue(self, rt, ex, off, n):
        cl = _cl()
        prg, q = rt.program(ex.context), ex.queue
        bx, by = _buf(cl, ex.context, 4 * n), _buf(cl, ex.context, 4 * n)
        e1 = cl.enqueue_copy(q, bx, self.x[off:off + n], is_blocking=False)
        e2 = cl.enqueue_copy(q, by, self.y[off:off + n], is_blocking=False)
        g, l = _gs(n, ex.wgs)
        e3 = prg.saxpy(q, g, l, self.a, bx, by, np.uint32(n))
        e4 = cl.enqueue_copy(q, self.y[off:off + n], by, is_blocking=False)
        return [e1, e2, e3, e4]

    def result(self):
        return self.y

    def check(self, out) -> bool:
        return np.allclose(out, self.a * self.x + self.y0, rtol=1e-6, atol=1e-6)


class FilterPipeline(Computation):
    """Pipeline(Gaussian noise, solarize, mirror) over a ``height x width`` uint8 image; one
    unit = one line. The noise is keyed by the global pixel index, so the result does not
    depend on the split."""

    name = "filter"

    def __init__(self, height: int, width: int | None = None, *, seed: int = 0) -> None:
        self.units = as_int(height, "height", minimum=1)
        self.width = as_int(self.units if width is None else width, "width", minimum=1)
        self.elems_per_unit = self.width
        self.seed = np.uint32(seed & 0xFFFFFFFF)
        self.img = np.random.default_rng(seed).integers(0, 256, (self.units, self.width),
                                                        dtype=np.uint8)

    def begin(self) -> None:
        self.out = np.empty_like(self.img)

    def enqueue(self, rt, ex, off, n):
        cl = _cl()
        prg, q, W = rt.program(ex.context), ex.queue, self.width
        m = n * W
        a, b = _buf(cl, ex.context, m), _buf(cl, ex.context, m)
        g, l = _gs(m, ex.wgs)
        evs = [cl.enqueue_copy(q, a, self.img[off:off + n], is_blocking=False)]
        evs.append(prg.gauss_noise(q, g, l, a, b, np.uint32(W), np.uint32(off), np.uint32(m),
                                   self.seed))
        evs.append(prg.solarize(q, g, l, b, a, np.uint32(m)))
        evs.append(prg.mirror(q, g, l, a, b, np.uint32(W), np.uint32(m)))
        evs.append(cl.enqueue_copy(q, self.out[off:off + n], b, is_blocking=False))
        return evs

    def result(self):
        return self.out

    def reference(self) -> np.ndarray:
        H, W = self.img.shape
        idx = np.arange(H * W, dtype=np.uint32)
        with np.errstate(over="ignore"):
            x = idx ^ (self.seed * np.uint32(0x9E3779B9))
            x ^= x >> np.uint32(16)
            x *= np.uint32(0x7FEB352D)
            x ^= x >> np.uint32(15)
            x *= np.uint32(0x846CA68B)
            x ^= x >> np.uint32(16)
        s = ((x & 255).astype(np.int64) + ((x >> 8) & 255) + ((x >> 16) & 255) + (x >> 24)
             - 510)
        noise = np.sign(s) * ((np.abs(s) * 8) // 148)
        v = np.clip(self.img.reshape(-1).astype(np.int64) + noise, 0, 255).astype(np.uint8)
        v = np.where(v > 128, 255 - v, v).astype(np.uint8)
        return v.reshape(H, W)[:, ::-1]

    def check(self, out) -> bool:
        return np.array_equal(out, self.reference())


class Segmentation(Computation):
    """3-D segmentation of a ``depth x rows x cols`` uint8 volume into black / grey / white
    (``v < 85 -> 0``, ``v > 170 -> 255``, else 128); one unit = one 2-D slice."""

    name = "segmentation"

    def __init__(self, depth: int, rows: int = 64, cols: int = 64, *, seed: int = 0) -> None:
        self.units = as_int(depth, "depth", minimum=1)
        self.elems_per_unit = as_int(rows, "rows", minimum=1) * as_int(cols, "cols", minimum=1)
        self.vol = np.random.default_rng(seed).integers(0, 256, (self.units, rows, cols),
                                                        dtype=np.uint8)

    def begin(self) -> None:
        self.out = np.empty_like(self.vol)

    def enqueue(self, rt, ex, off, n):
        cl = _cl()
        prg, q = rt.program(ex.context), ex.queue
        m = n * self.elems_per_unit
        a, b = _buf(cl, ex.context, m), _buf(cl, ex.context, m)
        g, l = _gs(m, ex.wgs)
        return [cl.enqueue_copy(q, a, self.vol[off:off + n], is_blocking=False),
                prg.segment(q, g, l, a, b, np.uint32(m)),
                cl.enqueue_copy(q, self.out[off:off + n], b, is_blocking=False)]

    def result(self):
        return self.out

    def check(self, out) -> bool:
        v = self.vol
        return np.array_equal(out, np.where(v < 85, 0, np.where(v > 170, 255, 128)).astype(np.uint8))


class FFT(Computation):
    """Pipeline(FFT, inverse FFT) over `blocks` independent complex64 FFTs of `size` points
    (a power of two); one unit = one FFT. Both the spectrum and the round trip are kept."""

    name = "fft"

    def __init__(self, blocks: int, size: int = 1024, *, seed: int = 0) -> None:
        self.units = as_int(blocks, "blocks", minimum=1)
        self.size = as_int(size, "size", minimum=2)
        if self.size & (self.size - 1):
            raise WpartValueError(f"`size` must be a power of two, got {self.size}")
        self.elems_per_unit = self.size // 2          # butterflies per FFT
        rng = np.random.default_rng(seed)
        self.x = (rng.standard_normal((self.units, self.size)) +
                  1j * rng.standard_normal((self.units, self.size))).astype(np.complex64)

    def begin(self) -> None:
        self.spec = np.empty_like(self.x)
        self.out = np.empty_like(self.x)

    def _passes(self, prg, q, g, l, a, b, sign, items):
        evs, N, p = [], self.size, 1
        while p < N:
            evs.append(prg.fft_pass(q, g, l, a, b, np.uint32(N), np.uint32(p), np.float32(sign),
                                    np.uint32(items)))
            a, b = b, a
            p <<= 1
        return evs, a, b

    def enqueue(self, rt, ex, off, n):
        cl = _cl()
        prg, q = rt.program(ex.context), ex.queue
        nbytes = n * self.size * 8
        a, b = _buf(cl, ex.context, nbytes), _buf(cl, ex.context, nbytes)
        items = n * self.size // 2
        g, l = _gs(items, ex.wgs)
        evs = [cl.enqueue_copy(q, a, self.x[off:off + n], is_blocking=False)]
        e, a, b = self._passes(prg, q, g, l, a, b, -1.0, items)
        evs += e
        evs.append(cl.enqueue_copy(q, self.spec[off:off + n], a, is_blocking=False))
        e, a, b = self._passes(prg, q, g, l, a, b, +1.0, items)
        evs += e
        g2, l2 = _gs(n * self.size, ex.wgs)
        evs.append(prg.scale_c(q, g2, l2, a, np.float32(1.0 / self.size), np.uint32(n * self.size)))
        evs.append(cl.enqueue_copy(q, self.out[off:off + n], a, is_blocking=False))
        return evs

    def result(self):
        return (self.spec, self.out)

    def check(self, out) -> bool:
        spec, back = out
        ref = np.fft.fft(self.x.astype(np.complex128), axis=1)
        scale = np.abs(ref).max()
        return (np.abs(spec - ref).max() <= 1e-4 * scale and
                np.abs(back - self.x).max() <= 1e-4 * np.abs(self.x).max())


class NBody(Computation):
    """Loop(direct-sum N-body step) for `iterations` steps over `n` bodies; one unit = one
    body. Positions are copied whole to every execution (COPY mode); after every iteration
    the host gathers the new positions (the global synchronisation) and sends them again."""

    name = "nbody"

    def __init__(self, n: int, *, iterations: int = 3, dt: float = 1e-3, eps: float = 0.05,
                 seed: int = 0) -> None:
        self.units = as_int(n, "n", minimum=1)
        self.iterations = as_int(iterations, "iterations", minimum=1)
        self.dt, self.eps2 = np.float32(dt), np.float32(eps * eps)
        rng = np.random.default_rng(seed)
        self.pos0 = np.empty((self.units, 4), dtype=np.float32)
        self.pos0[:, :3] = rng.standard_normal((self.units, 3))
        self.pos0[:, 3] = rng.uniform(0.5, 1.0, self.units) / self.units
        self.vel0 = np.zeros((self.units, 4), dtype=np.float32)

    def begin(self) -> None:
        self.pos = self.pos0.copy()
        self.vel = self.vel0.copy()

    def execute(self, rt, sizes, offs):
        cl = _cl()
        N = self.units
        live = [(ex, int(o), int(n)) for ex, n, o in zip(rt.executions, sizes, offs) if n > 0]
        state = {}
        events: dict[int, list] = {id(ex): [] for ex in rt.executions}
        for ex, off, n in live:
            pa = _buf(cl, ex.context, N * 16)
            v = _buf(cl, ex.context, n * 16)
            po = _buf(cl, ex.context, n * 16)
            events[id(ex)].append(cl.enqueue_copy(ex.queue, v, self.vel[off:off + n],
                                                  is_blocking=False))
            state[id(ex)] = (pa, v, po)
        new = np.empty_like(self.pos)
        for _ in range(self.iterations):
            for ex, off, n in live:                      # COPY: whole positions to each
                pa, v, po = state[id(ex)]
                prg, q = rt.program(ex.context), ex.queue
                g, l = _gs(n, ex.wgs)
                events[id(ex)] += [
                    cl.enqueue_copy(q, pa, self.pos, is_blocking=False),
                    prg.nbody_step(q, g, l, pa, v, po, np.uint32(N), np.uint32(off),
                                   np.uint32(n), self.dt, self.eps2),
                    cl.enqueue_copy(q, new[off:off + n], po, is_blocking=False)]
            for ex, _, _ in live:                        # global synchronisation
                ex.queue.finish()
            self.pos, new = new, self.pos
        for ex, off, n in live:
            events[id(ex)].append(cl.enqueue_copy(ex.queue, self.vel[off:off + n],
                                                  state[id(ex)][1], is_blocking=False))
        return [events[id(ex)] for ex in rt.executions]

    def result(self):
        return self.pos

    def reference(self) -> np.ndarray:
        pos = self.pos0.astype(np.float64)
        vel = self.vel0.astype(np.float64)
        for _ in range(self.iterations):
            d = pos[None, :, :3] - pos[:, None, :3]
            r2 = (d ** 2).sum(-1) + float(self.eps2)
            acc = (d * (pos[None, :, 3] / r2 ** 1.5)[:, :, None]).sum(1)
            vel[:, :3] += acc * float(self.dt)
            pos = pos.copy()
            pos[:, :3] += vel[:, :3] * float(self.dt)
        return pos

    def check(self, out) -> bool:
        return np.allclose(out, self.reference(), rtol=1e-4, atol=1e-5)


#: The paper's five benchmarks by name.
BENCHMARKS = {"saxpy": Saxpy, "filter": FilterPipeline, "fft": FFT, "nbody": NBody,
              "segmentation": Segmentation}


def launch_overhead(rt: Runtime, *, n_partitions: int = 8, repeats: int = 50) -> dict[str, Any]:
    """Host overhead per partition launch: an empty kernel enqueued once per partition (round
    robin over the executions) and waited for, `repeats` times; wall time per launch minus
    the device time of the kernels."""
    cl = _cl()
    n_partitions = as_int(n_partitions, "n_partitions", minimum=1)
    repeats = as_int(repeats, "repeats", minimum=1)
    bufs = {id(e.context): _buf(cl, e.context, 4) for e in rt.executions}
    exs = [rt.executions[i % len(rt.executions)] for i in range(n_partitions)]
    for e in exs:                                         # warm up (program build)
        rt.program(e.context).nop(e.queue, (1,), None, bufs[id(e.context)]).wait()
    walls, devs = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        evs = [rt.program(e.context).nop(e.queue, (1,), None, bufs[id(e.context)]) for e in exs]
        cl.wait_for_events(evs)
        walls.append(time.perf_counter() - t0)
        devs.append(sum((ev.profile.end - ev.profile.start) * 1e-9 for ev in evs))
    wall = float(np.median(walls))
    dev = float(np.median(devs))
    return {"device": rt.describe()[-1]["name"], "n_partitions": n_partitions,
            "repeats": repeats, "wall_us_per_run": wall * 1e6,
            "overhead_us_per_partition": max(0.0, wall - dev) / n_partitions * 1e6,
            "device_us_per_kernel": dev / n_partitions * 1e6}


def profile(comp: Computation, *, kb: Any = None, sct_id: str | None = None,
            fission: Any = None, overlaps: Any = (1,), n_exec: int = 3,
            runtime: dict | None = None, **options: Any) -> ProfileBuild:
    """Profile construction on the OpenCL devices present (:func:`build_profile` with real
    runs): every fission level this machine supports (finest first, then none), the overlap
    factors, and the CPU/GPU share when a GPU is present; with a CPU only, this chooses the
    fission level (the experiment of the paper's fission table). Each measurement is one run
    after a warm-up run per configuration; T is the run's wall time, T_gpu / T_cpu the
    latest device of each type.

    Parameters
    ----------
    comp : Computation
        One of the benchmarks (:data:`BENCHMARKS`) or your own.
    kb : KnowledgeBase, optional
        Where the best configuration is stored (``PROFILED``).
    sct_id : str, optional
        Default: the computation's name.
    fission : sequence of str, optional
        Default: :func:`fission_levels` of this machine.
    overlaps : sequence of int, optional
    n_exec : int, optional
        Runs per candidate (each time aggregated by its minimum).
    runtime : dict, optional
        Further :class:`Runtime` options (``gpu_wgs``, ``stand_in_gpus`` ...).
    **options
        Passed to :func:`build_profile` (``precision``, ``it_max``, ``mode`` ...).
    """
    levels = [lv for lv, _ in fission_levels()] if fission is None else list(fission)
    runtimes: dict[tuple, Runtime] = {}

    def measure(f, o, w, s):
        key = (f, o)
        rt = runtimes.get(key)
        if rt is None:
            rt = runtimes[key] = Runtime(fission=f or "NONE", overlap=o, **(runtime or {}))
            rt.run(comp, s=s)                              # warm-up: kernel builds
        r = rt.run(comp, s=s)
        if not r.check():
            raise WpartRuntimeError(f"{comp.name}: the OpenCL result differs from NumPy")
        tg = max([t for d, t in r.device_times.items() if d.startswith("gpu")], default=0.0)
        return r.wall, tg, r.device_times.get("cpu", 0.0)

    probe = Runtime(fission="NONE", **(runtime or {}))
    units = (comp.units,)
    return build_profile(measure, sct_id=sct_id or comp.name, workload=units, kb=kb,
                         fission=levels, overlaps=list(overlaps), n_gpus=probe.n_gpus,
                         cpu=probe.cpu_device is not None, n_exec=n_exec, **options)
