"""Decisions of multi-kernel runs split over CPUs and GPUs [Soldado 2016], as pure functions.

Thin wrappers over the C core (no event loop): :func:`split` turns shares into contiguous
partitions that respect every execution's quantum, :func:`quantum` computes that quantum,
:func:`exec_shares` / :func:`seed_share` / :func:`gpu_fractions` give the static distribution
(Sec. 3.1 of the paper), :func:`level_of_parallelism` counts the parallel executions,
:func:`occupancy` / :func:`wgs_candidates` rank work-group sizes, :class:`BisectionGenerator`
is the workload distribution generator of profile construction (Sec. 3.2.2),
:class:`ConfigSearch` the discard rule of Algorithm 1 (fission, then overlap, then
work-group size), :class:`ImbalanceDetector` the monitoring of Sec. 3.3 and
:class:`AdaptiveBinarySearch` the rebalancing of Sec. 3.3.1; :func:`interpolate` derives a
value for an unseen workload from stored ones (Sec. 3.2.3). Every constant is an option whose
default is in :data:`MK_DEFAULTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError
from .._validate import as_array, as_float, as_int, as_sequence
from .._docs import fill_doc

__all__ = [
    "MK_DEFAULTS",
    "MK_PRESETS",
    "split",
    "quantum",
    "level_of_parallelism",
    "seed_share",
    "gpu_fractions",
    "exec_shares",
    "GpuCaps",
    "occupancy",
    "wgs_candidates",
    "BisectionGenerator",
    "ConfigSearch",
    "ImbalanceDetector",
    "AdaptiveBinarySearch",
    "balance_ratio",
    "interpolate",
    "INTERP_METHODS",
]

_I64 = np.iinfo(np.int64).max

#: The constants of the decisions and their defaults (every one is an option where it is used).
#: ``[PAPER]`` values come from [Soldado 2016]; the others are reconstructions or wpart's choices
#: where the paper's text lost them (documented beside each).
MK_DEFAULTS: dict[str, Any] = {
    "occupancy_threshold": 0.80,   # work-group sizes kept by occupancy [PAPER]
    "overlaps": (1, 2, 3, 4),      # GPU overlap candidates (Table 2 shows 1, 3 and 4)
    "fission_order": ("L1", "L2", "L3", "L4", "NUMA", "NONE"),  # finest to coarsest, then none
    "precision": 0.01,             # profile convergence, relative
    "n_exec": 3,                   # runs per measured candidate, aggregated by min
    "it_max": 16,                  # bisection candidates per configuration at most
    "x_min": 1.0 / 1024,           # smallest transferable part of the bisection generator
    "max_dev": 0.85,               # balanced when min/max device time >= max_dev [PAPER]
    "w": 0.10,                     # weight of the latest run in the moving average
    "cf": 1.0,                     # correction factor of max_dev
    "detector_window": 1,          # runs whose median ratio the detector judges (1: paper)
    "search_window": 1,            # runs whose per-share times a search step judges
                                   # (AdaptiveBinarySearch; DecisionLoop: its preset's)
    "preset": "robust",            # DecisionLoop's rules: "robust" or "paper" (MK_PRESETS)
    "cf_min": 0.7,                 # floor of the profile-aware correction factor
    "T_init": 1.0 / 16,            # adaptive binary search: first transferable part
    "T_min": 1.0 / 256,            # ... smallest (stop)
    "T_max": 0.5,                  # ... largest (doubling cap)
    "rbf_max_dims": 3,             # RBF for 1-3 dimensions, nearest neighbour above [PAPER]
    "feature_scale": "log2",       # interpolation features: log2 of each extent
}

#: The rules of :class:`~wpart.multikernel.DecisionLoop` by preset: ``"paper"`` judges every
#: run on its own (the detector on the run's ratio, the search on the run's times, three
#: steps in a row the same way to leave the converged state); ``"robust"`` (the default)
#: judges, in both, each type's typical time per unit of share over the last `window` runs
#: (4; the second fastest of four, as noise on a busy machine only adds time), scaled to the
#: current share; its converged state counts steps net of opposite ones and is left after
#: ``2 * window`` steps, so that noisy runs neither fire, nor turn the search, nor stall it.
MK_PRESETS: dict[str, dict[str, Any]] = {
    "paper": {"window": 1},
    "robust": {"window": 4},
}

#: What :func:`interpolate` used, by the code it returns.
INTERP_METHODS = ("node", "rbf", "idw", "nearest")


def _total(total: Any) -> int:
    v = as_int(total, "total", minimum=0)
    if v > _I64:
        raise WpartOverflowError(f"`total` = {v} does not fit an int64")
    return v


def _f64_vector(x: Any, name: str) -> NDArray[np.float64]:
    if type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == 1 and x.flags.c_contiguous:
        return x
    try:
        a = np.asarray(x)
    except Exception as e:  # ragged lists, objects NumPy refuses
        raise WpartTypeError(f"`{name}` must be a 1-D array of numbers ({e})") from None
    if a.dtype == np.bool_ or a.dtype.kind not in "iuf":
        raise WpartTypeError(f"`{name}` must be a 1-D array of real numbers, got dtype {a.dtype}")
    if a.ndim != 1:
        raise WpartValueError(f"`{name}` must be 1-D, got {a.ndim}-D")
    return np.ascontiguousarray(a, dtype=np.float64)


def _i64_vector(x: Any, name: str) -> NDArray[np.int64]:
    if type(x) is np.ndarray and x.dtype == np.int64 and x.ndim == 1 and x.flags.c_contiguous:
        return x
    try:
        a = np.asarray(x)
    except Exception as e:
        raise WpartTypeError(f"`{name}` must be a 1-D array of integers ({e})") from None
    if a.size == 0 and a.dtype.kind == "f":
        a = a.astype(np.int64)
    if a.dtype == np.bool_ or a.dtype.kind not in "iu":
        raise WpartTypeError(f"`{name}` must be a 1-D array of integers, got dtype {a.dtype}")
    if a.ndim != 1:
        raise WpartValueError(f"`{name}` must be 1-D, got {a.ndim}-D")
    if a.dtype.kind == "u" and a.size and int(a.max()) > _I64:
        raise WpartOverflowError(f"`{name}` has values that do not fit an int64")
    return np.ascontiguousarray(a, dtype=np.int64)


def split(total: int, shares: Any, quanta: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """SPLIT: cut `total` units into contiguous partitions, one per parallel execution.

    Every partitioned vector of a computation is cut at the same unit boundaries, so the data
    stay on the device that computes them from the first kernel to the last (the
    locality-aware decomposition of Sec. 3.1 of [Soldado 2016]). Execution ``e`` gets about
    ``shares[e] / sum(shares) * total`` units, always a multiple of ``quanta[e]`` (the
    smallest size that keeps every kernel's work-group and element constraints, see
    :func:`quantum`), except the last execution with a positive share: it also takes the
    remainder smaller than every quantum (the tail, run with a bounds guard).

    The rounding gives whole quanta by largest remainder: each execution first gets the
    whole quanta below its target, then the rest goes one quantum at a time to the
    execution furthest below its target in units of its quantum (ties: the lowest index)
    among those whose quantum still fits. The work does not depend on `total`.

    Parameters
    ----------
    total : int
        Units of the partition index space (image lines, FFT blocks, bodies, slices), >= 0.
    shares : array_like of float, shape (P,)
        Relative shares of the executions, finite and >= 0 with a positive sum (normalised by
        it). A zero share gives an empty partition.
    quanta : array_like of int, shape (P,)
        Quantum of each execution, >= 1.

    Returns
    -------
    sizes : ndarray of int64, shape (P,)
        Units per execution; they sum to `total`.
    offsets : ndarray of int64, shape (P,)
        First unit of each partition (the exclusive prefix sum of `sizes`).

    Raises
    ------
    WpartValueError
        Negative, NaN or infinite shares, shares summing to zero, a quantum < 1, lengths that
        differ, ``total < 0``.
    WpartTypeError
        Non-numeric arguments, float quanta.
    WpartOverflowError
        `total` or a quantum beyond int64.

    Examples
    --------
    >>> from wpart.multikernel import split
    >>> sizes, offsets = split(1000, [0.7, 0.1, 0.1, 0.1], [64, 1, 1, 1])
    >>> sizes.tolist(), offsets.tolist()
    ([640, 120, 120, 120], [0, 640, 760, 880])
    """
    t = _total(total)
    s = _f64_vector(shares, "shares")
    q = _i64_vector(quanta, "quanta")
    if s.shape[0] != q.shape[0]:
        raise WpartValueError(
            f"`quanta` must have the length of `shares` ({s.shape[0]}), got {q.shape[0]}")
    return _core.multikernel_split(t, s, q)


@fill_doc
def quantum(constraints: Any) -> int:
    """The quantum of an execution: the smallest partition size (in units) meeting every
    constraint "``n * a`` is a multiple of ``b``".

    A kernel whose vector holds ``a`` elements per unit and runs work-groups of ``b`` threads
    (or a vector whose elementary partitioning unit is ``b`` elements) gives one ``(a, b)``;
    the quantum is the lcm of ``b / gcd(a, b)`` over them (Sec. 3.1 of [Soldado 2016]).

    Parameters
    ----------
    constraints : sequence of (int, int)
        Pairs ``(a, b)`` with ``a, b >= 1``; empty gives 1.

    Returns
    -------
    int

    {raises}

    Examples
    --------
    >>> from wpart.multikernel import quantum
    >>> quantum([(1024, 256), (3, 64)])  # 1024 px lines, wgs 256; 3 values per unit, wgs 64
    64
    """
    # a sequence, checked before it is iterated (None, a number, a 0-d array, a sparse matrix
    # of 2**40 rows: a WpartError naming `constraints`)
    pairs = as_sequence(constraints, "constraints")
    a = np.zeros(len(pairs), dtype=np.int64)
    b = np.zeros(len(pairs), dtype=np.int64)
    for i, pr in enumerate(pairs):
        try:
            x, y = pr
        except (TypeError, ValueError):
            raise WpartTypeError(f"`constraints[{i}]` must be a pair (a, b), got {pr!r}") from None
        a[i] = as_int(x, f"constraints[{i}][0]", minimum=1, maximum=_I64)
        b[i] = as_int(y, f"constraints[{i}][1]", minimum=1, maximum=_I64)
    return _core.multikernel_quantum(a, b)


@fill_doc
def level_of_parallelism(cpu_subdevices: int, overlap: int, n_gpus: int, *, cpu_used: bool = True,
                         gpu_used: bool = True) -> int:
    """Number of parallel executions: ``[cpu used] * C(f) + [gpu used] * overlap * n_gpus``.

    Each CPU sub-device and each overlap slot of each GPU runs the whole computation on its
    own partition (the coarse parallelism of Table 2 of [Soldado 2016]).

    Parameters
    ----------
    cpu_subdevices : int
        Sub-devices the CPU fission level gives (1 without fission), >= 1.
    overlap : int
        Partitions per GPU, >= 1.
    n_gpus : int
        GPUs, >= 0.
    cpu_used, gpu_used : bool, optional
        Whether the type got work (a type given 0 % is left out).

    Returns
    -------
    int
        The level of parallelism.

    {raises}

    Examples
    --------
    >>> from wpart.multikernel import level_of_parallelism
    >>> level_of_parallelism(6, 4, 1)   # Filter 4096^2 with one GPU: L1 / overlap 4
    10
    """
    from .._validate import as_bool
    return _core.multikernel_level_of_parallelism(
        as_int(cpu_subdevices, "cpu_subdevices", minimum=1, maximum=2**31 - 1),
        as_int(overlap, "overlap", minimum=1, maximum=2**31 - 1),
        as_int(n_gpus, "n_gpus", minimum=0, maximum=2**31 - 1),
        as_bool(cpu_used, "cpu_used"), as_bool(gpu_used, "gpu_used"))


@fill_doc
def seed_share(gpu_scores: Any, cpu_score: float) -> float:
    """GPU share for an empty knowledge base: ``sum(gpu_scores) / (sum(gpu_scores) + cpu_score)``.

    With device times linear in their work, this share makes the predicted CPU and GPU
    times equal (the scores are throughputs measured once per machine).

    Parameters
    ----------
    gpu_scores : object
        Relative speed score of each GPU.
    cpu_score : float
        Relative speed score of the CPU.

    Returns
    -------
    float
        The GPU share of the first run, in [0, 1].

    {raises}

    Examples
    --------
    >>> from wpart.multikernel import seed_share
    >>> seed_share([3.0], 1.0)
    0.75
    """
    return _core.multikernel_seed_share(_f64_vector(gpu_scores, "gpu_scores"),
                               as_float(cpu_score, "cpu_score", minimum=0.0))


@fill_doc
def gpu_fractions(gpu_scores: Any, s: float) -> NDArray[np.float64]:
    """Static split of the GPU share `s` among GPUs in proportion to their scores (Sec. 3.1
    of [Soldado 2016]: measured once at install time, never changed at run time).

    Parameters
    ----------
    gpu_scores : object
        Relative speed score of each GPU.
    s : float
        The GPU share to split, in [0, 1].

    Returns
    -------
    ndarray of float64
        Each GPU's fraction of the GPU share, summing to 1.

    {raises}
    """
    g = _f64_vector(gpu_scores, "gpu_scores")
    s = as_float(s, "s", minimum=0.0, maximum=1.0)
    if g.size == 0:
        return np.zeros(0)
    return _core.multikernel_exec_shares(s, g, 1, 1)[: g.size].copy()


@fill_doc
def exec_shares(s: float, gpu_scores: Any, *, overlap: int = 1,
                cpu_subdevices: int = 1) -> NDArray[np.float64]:
    """Share of every parallel execution, in the execution order :func:`split` expects.

    GPU ``g`` gets ``s * gpu_scores[g] / sum(gpu_scores)``, cut into `overlap` equal slots;
    the CPU's ``1 - s`` is cut equally among its `cpu_subdevices` (homogeneous sub-devices).

    Parameters
    ----------
    s : float
        GPU-type share in [0, 1] (0 without GPUs; 1 with ``cpu_subdevices == 0``).
    gpu_scores : array_like of float
        Install-time score per GPU (may be empty).
    overlap : int, optional
        Partitions per GPU.
    cpu_subdevices : int, optional
        CPU sub-devices (0: no CPU).

    Returns
    -------
    ndarray of float64, shape (n_gpus * overlap + cpu_subdevices,)

    {raises}
    """
    return _core.multikernel_exec_shares(as_float(s, "s", minimum=0.0, maximum=1.0),
                                _f64_vector(gpu_scores, "gpu_scores"),
                                as_int(overlap, "overlap", minimum=1, maximum=2**20),
                                as_int(cpu_subdevices, "cpu_subdevices", minimum=0, maximum=2**20))


@dataclass(frozen=True, kw_only=True)
class GpuCaps:
    """Occupancy limits of a GPU compute unit (defaults: AMD GCN, the paper's HD 7950).

    Attributes
    ----------
    wavefront : int
        Work-items per wavefront (warp).
    simds_cu : int
        SIMD units per compute unit.
    max_waves_simd : int
        Most wavefronts resident per SIMD.
    max_waves_cu : int
        Most wavefronts resident per compute unit.
    max_wg_cu : int
        Most work-groups resident per compute unit.
    lds_cu : int
        Local memory per compute unit in bytes.
    vgprs_lane : int
        Vector registers per lane.
    max_wgs : int
        Largest work-group size.
    """

    wavefront: int = 64
    simds_cu: int = 4
    max_waves_simd: int = 10
    max_waves_cu: int = 40
    max_wg_cu: int = 16
    lds_cu: int = 65536
    vgprs_lane: int = 256
    max_wgs: int = 256

    def _tuple(self) -> tuple[int, ...]:
        return tuple(as_int(getattr(self, f), f, minimum=0 if f == "lds_cu" else 1,
                            maximum=2**31 - 1)
                     for f in ("wavefront", "simds_cu", "max_waves_simd", "max_waves_cu",
                               "max_wg_cu", "lds_cu", "vgprs_lane", "max_wgs"))


def _gpu_caps(caps: Any) -> "GpuCaps":
    """`caps` checked: a :class:`GpuCaps` (None: the default one)."""
    if caps is None:
        return GpuCaps()
    if not isinstance(caps, GpuCaps):
        raise WpartTypeError(f"`caps` must be a wpart.multikernel.GpuCaps or None, got "
                             f"{type(caps).__name__}")
    return caps


@fill_doc
def occupancy(caps: GpuCaps | None, wgs: int, *, lds_per_wg: int = 0,
              vgpr_per_thread: int = 32) -> float:
    """Occupancy in [0, 1] of a work-group size: resident waves per compute unit over the
    maximum, limited by waves, work-groups, local memory and registers per compute unit.

    Parameters
    ----------
    caps : GpuCaps or None
        Occupancy limits of the GPU (default: :class:`GpuCaps`).
    wgs : int
        Work-group size.
    lds_per_wg : int, optional
        Local memory per work-group in bytes.
    vgpr_per_thread : int, optional
        Vector registers per work-item.

    Returns
    -------
    float
        The occupancy, in (0, 1].

    {raises}
    """
    caps = _gpu_caps(caps)
    return _core.multikernel_occupancy(caps._tuple(), as_int(wgs, "wgs", minimum=1, maximum=2**31 - 1),
                              as_int(lds_per_wg, "lds_per_wg", minimum=0, maximum=2**31 - 1),
                              as_int(vgpr_per_thread, "vgpr_per_thread", minimum=1,
                                     maximum=2**31 - 1))


@fill_doc
def wgs_candidates(*, caps: GpuCaps | None = None, lds_per_wg: int = 0, vgpr_per_thread: int = 32,
                   threshold: float | None = None) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Work-group size candidates of a kernel for profile construction.

    Multiples of the wavefront whose occupancy reaches `threshold` (default
    ``MK_DEFAULTS["occupancy_threshold"]``), by non-increasing occupancy (ties: the larger
    size); when none does, only the one with the highest occupancy (Sec. 3.2.1 of
    [Soldado 2016]).

    Returns
    -------
    wgs : ndarray of int64
    occupancy : ndarray of float64

    Parameters
    ----------
    caps : GpuCaps or None, optional
        Occupancy limits of the GPU (default: :class:`GpuCaps`).
    lds_per_wg : int, optional
        Local memory per work-group in bytes.
    vgpr_per_thread : int, optional
        Vector registers per work-item.
    threshold : float or None, optional
        Multiples of the wavefront whose occupancy reaches `threshold` (default
        ``MK_DEFAULTS["occupancy_threshold"]``), by non-increasing occupancy (ties: the larger
        size);

    {raises}
    """
    caps = _gpu_caps(caps)
    thr = MK_DEFAULTS["occupancy_threshold"] if threshold is None else threshold
    return _core.multikernel_wgs_candidates(
        caps._tuple(), as_int(lds_per_wg, "lds_per_wg", minimum=0, maximum=2**31 - 1),
        as_int(vgpr_per_thread, "vgpr_per_thread", minimum=1, maximum=2**31 - 1),
        as_float(thr, "threshold", minimum=0.0, maximum=1.0))


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
    return _core.multikernel_balance_ratio(_f64_vector(t_dev, "t_dev"))


class ImbalanceDetector:
    """Monitoring of every run: weighted moving average of the balance ratio (Sec. 3.3 of
    [Soldado 2016]).

    With ``bound = max_dev * cf`` and ``dev`` the median balance ratio (min/max of the device
    completion times) of the last `window` runs, ``lbt <- w * dev / bound + (1 - w) * lbt``
    from ``lbt = 1 / bound``; a run fires a balancing operation when ``lbt < 1`` and that
    median is unbalanced (``dev < bound``). The median keeps one noisy run (a CPU run that
    took 50x longer on a loaded machine) from firing, or from hiding a real imbalance
    (window 1, the default, is the paper's rule on the run's own ratio). With the defaults, 3 to 5
    consecutive unbalanced runs of ratio 0.3-0.6 fire, and one isolated unbalanced run never
    does.

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
        return _core.multikernel_detector_update(self._st, _f64_vector(t_dev, "t_dev"))

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
