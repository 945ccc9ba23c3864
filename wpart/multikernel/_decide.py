"""Static decisions of multi-kernel runs split over CPUs and GPUs [Soldado 2016], as pure
functions.

Thin wrappers over the C core (no event loop): :func:`split` turns shares into contiguous
partitions that respect every execution's quantum, :func:`quantum` computes that quantum,
:func:`exec_shares` / :func:`seed_share` / :func:`gpu_fractions` give the static distribution
(Sec. 3.1 of the paper), :func:`level_of_parallelism` counts the parallel executions,
:func:`occupancy` / :func:`wgs_candidates` rank work-group sizes. The decisions over time
(profile construction, imbalance detection, rebalancing, interpolation) are in
:mod:`._adapt`; every constant is an option whose default is in :data:`MK_DEFAULTS`
(:mod:`._defaults`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError
from .._validate import as_float, as_floats, as_int, as_ints, as_sequence
from .._docs import fill_doc
from ._defaults import MK_DEFAULTS

__all__ = [
    "split",
    "quantum",
    "level_of_parallelism",
    "seed_share",
    "gpu_fractions",
    "exec_shares",
    "GpuCaps",
    "occupancy",
    "wgs_candidates",
]

_I64 = np.iinfo(np.int64).max


def _total(total: Any) -> int:
    v = as_int(total, "total", minimum=0)
    if v > _I64:
        raise WpartOverflowError(f"`total` = {v} does not fit an int64")
    return v


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
    among those whose quantum still fits. The targets ``shares[e] / sum(shares) * total``
    are compared in exact rational arithmetic (the shares as the exact values of their
    doubles, their exact sum), so a tie is a tie: ``split(100, [2, 1], [1, 2])`` gives
    ``[68, 32]`` (both remainders are exactly 2/3 of a quantum; the lowest index first),
    not whatever the float rounding of 200/3 and 100/3 would pick. The work does not depend
    on `total`; the exact integers are only formed near a tie or near a multiple of a
    quantum.

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
    s = as_floats(shares, "shares", values="any", copy=False)
    q = as_ints(quanta, "quanta", copy=False)
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
    g = as_floats(gpu_scores, "gpu_scores", values="any", copy=False)
    return _core.multikernel_seed_share(g, as_float(cpu_score, "cpu_score", minimum=0.0))


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
        Each GPU's share of the whole work: `s` split in proportion to the scores (summing
        to `s`).

    {raises}
    """
    g = as_floats(gpu_scores, "gpu_scores", values="any", copy=False)
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
                                as_floats(gpu_scores, "gpu_scores", values="any", copy=False),
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
