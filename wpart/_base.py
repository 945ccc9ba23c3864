"""Prefix sums, box loads and optimal 1D partitioning.

The one-dimensional (chains-on-chains) problem and its algorithms follow Sec. 2.2 of Saule,
Baş and Çatalyürek, "Load-Balancing Spatially Located Computations using Rectangular
Partitions", JPDC 2012 (Saule et al. 2012); the 2D prefix sums are those of its Sec. 2.1.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core
from ._docs import fill_doc
from ._errors import WpartTypeError, WpartValueError
from ._keywords import checked_keywords
from ._methods import Method, MethodTable
from ._progress import progress_hook
from ._result import Result, new_axes, pct
from ._validate import (
    as_bool,
    as_loads,
    as_parts,
    as_progress,
    as_speeds,
    check_speed_costs,
    core_time_limit,
    deprecated_attr,
    is_bool,
    unmasked,
)

__all__ = ["prefix_sum", "box_loads", "partition_1d", "probe_1d", "Partition1D", "METHODS_1D"]

#: The 1D methods, declared once: name -> the core's ``wpart_1d_method_t`` value.
TABLE_1D = MethodTable("1d", [
    Method("nicol", _core.BASE_1D_NICOL, exact=True,
           summary="Nicol's parametric search with the NicolPlus bounds (the default)"),
    Method("bisect", _core.BASE_1D_BISECT, exact=True, aliases=("bisection",),
           summary="bisection on the bottleneck value (integers, or the ordered doubles)"),
    Method("dp", _core.BASE_1D_DP, exact=True,
           summary="the O(m n) dynamic programme (the reference)"),
    Method("direct_cut", _core.BASE_1D_DIRECT_CUT, exact=False, aliases=("dc",),
           summary="DirectCut: max load <= T/m + amax"),
    Method("recursive_bisection", _core.BASE_1D_RECURSIVE_BISECTION, exact=False,
           aliases=("rb",), summary="recursive bisection, a 2-approximation"),
])

#: Names accepted by :func:`partition_1d` (exact methods first).
METHODS_1D = TABLE_1D.names


def prefix_sum(A: ArrayLike, *, out: NDArray | None = None) -> NDArray:
    """Bordered prefix sum of a 1-D, 2-D or 3-D load array.

    For a 2-D ``A`` of shape ``(n1, n2)`` the result ``S`` has shape ``(n1+1, n2+1)`` with
    ``S[i, j] = A[:i, :j].sum()``; its first row and column are zero, so the load of the
    half-open rectangle ``[r0, r1) x [c0, c1)`` is
    ``S[r1, c1] - S[r0, c1] - S[r1, c0] + S[r0, c0]`` (see :func:`box_loads`).
    1-D and 3-D inputs get the analogous bordered arrays.

    Parameters
    ----------
    A : array_like
        Non-negative loads. Integer and boolean input is summed exactly in int64; floating
        input in float64.
    out : ndarray, optional
        Preallocated result of the right shape and dtype (C-contiguous, writeable).

    Returns
    -------
    S : ndarray
        int64 for integer input, float64 for floating input; shape ``A.shape + 1``.

    Raises
    ------
    ValueError
        NaN, inf or negative loads (the message gives the first index), an empty array,
        more than 3 dimensions, or an unusable `out`.
    OverflowError
        If the int64 total overflows.
    TypeError
        For non-numeric input.

    Notes
    -----
    One pass over ``A`` in C with the GIL released (the prefix array of Sec. 2.1 of Saule
    et al. 2012).

    Examples
    --------
    >>> import wpart
    >>> wpart.prefix_sum([[1, 2], [3, 4]])
    array([[ 0,  0,  0],
           [ 0,  1,  3],
           [ 0,  4, 10]])
    """
    arr = as_loads(A, "A", (1, 2, 3))
    if out is not None and isinstance(out, np.ndarray) and np.shares_memory(out, arr):
        raise WpartValueError("`out` overlaps `A`: the prefix sum needs a separate output array")
    return _core.prefix_sum(arr, out, "A")


def box_loads(S: ArrayLike, boxes: ArrayLike) -> NDArray:
    """Loads of many half-open boxes, read from a bordered prefix array in O(1) each.

    Parameters
    ----------
    S : array_like
        A bordered prefix array from :func:`prefix_sum` (2-D or 3-D).
    boxes : array_like of int, shape (k, 4) or (k, 6)
        Rows ``(r0, r1, c0, c1)`` for 2-D, ``(r0, r1, c0, c1, l0, l1)`` for 3-D; half-open.

    Returns
    -------
    ndarray, shape (k,)
        Same dtype as `S`.

    Raises
    ------
    WpartValueError
        If a box reads a NaN or infinite value of `S`, or `boxes` has the wrong shape.
    WpartTypeError
        If `boxes` is not an integer array.

    Examples
    --------
    >>> import wpart
    >>> S = wpart.prefix_sum([[1, 2], [3, 4]])
    >>> wpart.box_loads(S, [[0, 2, 1, 2], [0, 1, 0, 2]])
    array([6, 3])
    """
    Sa = as_loads(S, "S", (2, 3))
    boxes = unmasked(boxes, "boxes")
    try:
        b = np.asarray(boxes)
    except (ValueError, TypeError) as exc:  # ragged: not NumPy's error
        raise WpartValueError(f"`boxes` must be an integer array of shape (k, 4) or (k, 6): "
                              f"{exc}") from None
    if b.dtype.kind not in "iu":
        if not (b.size == 0 and b.dtype.kind == "f"):
            raise WpartTypeError(f"`boxes` must be an integer array, got dtype {b.dtype}")
    if b.ndim == 1 and b.size == 2 * Sa.ndim:
        b = b[None, :]
    if b.ndim != 2 or b.shape[1] != 2 * Sa.ndim:
        raise WpartValueError(f"`boxes` must have shape (k, {2 * Sa.ndim}), got {b.shape}")
    out = _core.box_loads(Sa, np.ascontiguousarray(b, dtype=np.int64))
    if out.dtype.kind == "f" and out.size and not np.isfinite(out).all():
        # a NaN or inf in S reaches the loads of the boxes that read it (inf - inf is NaN)
        raise WpartValueError(
            "`S` holds NaN or infinite values where `boxes` read it: it is not the prefix sum "
            "of finite loads"
        )
    return out


@fill_doc
@dataclass(frozen=True, eq=False, repr=False)
class Partition1D(Result):
    """A partition of a chain into `m` consecutive parts (the result of :func:`partition_1d`).

    Attributes
    ----------
    separators : ndarray of int64, shape (m+1,)
        ``0 = separators[0] <= ... <= separators[m] = n``; part ``p`` is
        ``[separators[p], separators[p+1])``. Empty (shape ``(0,)``) when the time limit
        stopped the run before an answer (``success`` is then False).
    loads : ndarray, shape (m,)
        Part loads (int64 or float64, as the input), not divided by the speeds.
    max_load : int or float
        The objective: the largest part cost, ``max_p loads[p] / speeds[p]`` (the largest
        part load without speeds; an int for integer loads then).
    lower_bound : float
        ``max(T/m, amax)`` (``max(ceil(T/m), amax)`` for integers); with speeds,
        ``max(T / sum(speeds), amax / max(speeds))``.
    imbalance : float
        ``max_load / (T / sum(speeds)) - 1`` (``max_load / (T/m) - 1`` without speeds), a
        fraction; 0 for an all-zero chain.
    total : int or float
        Total load ``T``.
    method : str
        The algorithm used.
    exact : bool
        Whether the method is exact (Nicol, bisection, DP).
    m : int
        Number of parts.
    n : int
        Length of the chain.
    speeds : ndarray or None
        Relative part speeds, if given.
    status : str
        ``"optimal"`` (exact method), ``"feasible"`` (heuristic) or ``"time_limit"``.
    message : str
        How the run ended.
    stats : dict
        ``probes``, ``steps`` and ``seconds`` of the core call (not compared by ``==``).

    {gap_aliases}
    """

    separators: NDArray[np.int64]
    loads: NDArray
    max_load: Any
    lower_bound: float
    imbalance: float
    total: Any
    method: str
    exact: bool
    m: int
    n: int
    speeds: NDArray[np.float64] | None = None

    bottleneck = deprecated_attr("bottleneck", "max_load", "Partition1D")
    gap_lb = deprecated_attr("gap_lb", "gap", "Partition1D")

    #: The array fields, read-only: owner() and plot() read them as built.
    _ARRAYS = ("separators", "loads", "speeds")

    def __post_init__(self) -> None:
        self._freeze()

    def __setstate__(self, state: dict) -> None:  # pickle, copy: read-only again
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self._freeze()

    def _freeze(self) -> None:
        """Make the array fields read-only (a read-only view of a writable array, so that an
        array the caller passed in stays writable for the caller)."""
        for k in self._ARRAYS:
            a = getattr(self, k, None)
            if isinstance(a, np.ndarray) and a.flags.writeable:
                a = a.view()
                a.setflags(write=False)
                object.__setattr__(self, k, a)

    def _has_answer(self) -> bool:
        return self.separators.size > 0

    def _need_answer(self) -> None:
        if not self._has_answer():
            raise WpartValueError(f"this result holds no partition (status {self.status!r})")

    def owner(self) -> NDArray[np.int64]:
        """Part index of every chain element, shape (n,)."""
        self._need_answer()
        return np.repeat(np.arange(self.m, dtype=np.int64), np.diff(self.separators))

    def to_dict(self) -> dict:
        """JSON-friendly dictionary of the result (with ``success`` and ``gap``)."""
        d = super().to_dict()
        d["gap"] = float(self.gap) if self._has_answer() else float("nan")
        return d

    def _repr_lines(self) -> list[str]:
        head = (f"Partition1D(method={self.method!r}, status={self.status!r}, m={self.m}, "
                f"n={self.n})")
        if not self._has_answer():
            return [head, f"  {self.message}"]
        sep = np.array2string(self.separators, threshold=12, edgeitems=4, max_line_width=1000)
        return [
            head,
            f"  max_load={self.max_load!r}, lower_bound={self.lower_bound:.6g}, "
            f"gap={pct(self.gap)}, imbalance={pct(self.imbalance)}",
            f"  separators={sep}",
        ]

    def plot(self, ax: Any = None, *, loads: ArrayLike | None = None) -> Any:
        """Bar chart of the part loads (divided by speed when speeds are given).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure is made when omitted.
        loads : array_like, optional
            The chain's element loads; when given, they are drawn under the parts.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        ax = new_axes(ax, figsize=(7, 3))
        if loads is not None:
            a = np.asarray(loads, dtype=float)
            ax.bar(np.arange(a.size) + 0.5, a, width=1.0, color="0.8", label="element loads")
        if self._has_answer():
            seps = self.separators
            widths = np.diff(seps)
            eff = self.loads / (self.speeds if self.speeds is not None else 1.0)
            ax.bar(seps[:-1], eff, width=np.maximum(widths, 0.3), align="edge", alpha=0.6,
                   edgecolor="k",
                   label="part load" + (" / speed" if self.speeds is not None else ""))
            title = f"{self.method}: m = {self.m}, imbalance {pct(self.imbalance)}"
        else:
            title = f"{self.method}: m = {self.m}, {self.status} (no partition)"
        ax.axhline(float(self.lower_bound), color="r", ls="--", lw=1, label="lower bound")
        ax.set_xlabel("chain position")
        ax.set_ylabel("load")
        ax.set_title(title)
        ax.legend(loc="best", fontsize="small")
        return ax


@checked_keywords
def partition_1d(loads: ArrayLike, m: int, *, method: str = "nicol",
                 speeds: ArrayLike | None = None, normalize: bool = True,
                 progress: bool | Callable[[float, float], Any] = False,
                 time_limit: float | None = None) -> Partition1D:
    """Split a chain of loads into `m` consecutive parts minimising the largest part load.

    This is the one-dimensional (chains-on-chains) variant of Sec. 2.2 of Saule et al. 2012.
    Exact methods: ``"nicol"`` (Nicol's parametric search with the NicolPlus bounds, the
    default), ``"bisect"`` (bisection on the bottleneck value: integers for integer loads, the
    ordered doubles otherwise, so exact in both cases) and ``"dp"`` (the dynamic programme,
    O(m n), the reference). Heuristics: ``"direct_cut"`` (max load <= T/m + amax) and
    ``"recursive_bisection"`` (a 2-approximation). The table of methods:

    {methods}

    Parameters
    ----------
    loads : array_like, shape (n,)
        Non-negative element loads (integers are handled exactly in int64).
    m : int
        Number of parts, >= 1. ``m > n`` is allowed: some parts are then empty.
    method : str, default "nicol"
        One of :data:`METHODS_1D` (``"dc"``, ``"rb"`` and ``"bisection"`` are accepted too).
    speeds : array_like, shape (m,), optional
        Relative speeds of heterogeneous parts; the objective becomes
        ``max_p load_p / speeds[p]``. Exact methods stay exact for this objective.
    normalize : bool, default True
        Make every part non-empty when ``m <= n`` without raising the max load (homogeneous
        case only; a normalisation of wpart, not in the paper).
        When ``m > n`` (without speeds) the optimum is the largest item: the chain is
        partitioned optimally and the trailing parts are empty (no work is spent per empty
        part). `m` may
        exceed ``n`` only up to ``2**24`` (:data:`wpart._validate.MAX_EXTRA_PARTS`); a
        larger `m` raises :class:`wpart.WpartValueError` naming `m` at once.
    progress : bool or callable, default False
        Show a tqdm progress bar, or call ``progress(done, total)`` (returning False cancels
        the run with :class:`wpart.CancelledError`).
    time_limit : float, optional
        Seconds (None or inf: none). When it is reached, the result comes back with
        ``status == "time_limit"`` and no separators (``success`` is False).

    Returns
    -------
    Partition1D
        ``status`` is ``"optimal"`` for the exact methods, ``"feasible"`` for the heuristics.

    Raises
    ------
    WpartValueError
        Bad loads (NaN, inf, negative, empty, not 1-D), ``m < 1``, bad speeds or method.
    WpartTypeError
        Arguments of the wrong type (``m="3"``, ``time_limit=True`` ...).
    WpartOverflowError
        If the int64 total of the loads overflows.
    KeyboardInterrupt
        On Ctrl-C during a long computation.

    Notes
    -----
    Every exact method returns the same separators: the leftmost greedy partition at the
    optimal bottleneck, normalised.

    Examples
    --------
    >>> import wpart
    >>> r = wpart.partition_1d([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], 4)
    >>> r.max_load, r.separators.tolist()
    (14, [0, 5, 7, 10, 11])
    """
    a = as_loads(loads, "loads", (1,))
    m = as_parts(m, a.size)
    meth = TABLE_1D.choose(method)
    sp = as_speeds(speeds, m)
    if sp is not None:
        with np.errstate(over="ignore"):
            check_speed_costs(a.sum(dtype=np.float64), sp)
    norm = as_bool(normalize, "normalize")
    tl = core_time_limit(time_limit)
    progress = as_progress(progress)
    t0 = time.perf_counter()
    # More parts than items (no speeds): the optimum is reached on n parts and the parts
    # beyond them are empty, so the core runs on n parts and the result is padded in bulk
    # (O(n) work, no per-part loop; m is bounded by as_parts).
    # A heuristic gets the optimum there too (its guarantee holds for it, its n-part run
    # would not keep the m-part bound), so the answer is exact whatever the method.
    m_run = a.size if (sp is None and m > a.size) else m
    run = meth if m_run == m or meth.exact else TABLE_1D.choose("nicol")
    with progress_hook(progress, total=m_run, desc=f"partition_1d[{meth.name}]") as hook:
        seps, W, st = _core.partition_1d(a, m_run, run.code, sp, norm and m_run == m, hook, tl)
    if seps is not None and m_run < m:
        seps = np.concatenate((seps, np.full(m - m_run, a.size, dtype=seps.dtype)))
    bott, bott_i, probes, steps, secs = st
    total = W[-1]
    amax = a.max()
    if sp is None:
        if a.dtype == np.int64:
            lb = float(max(-(-int(total) // m), int(amax)))
        else:
            lb = max(float(total) / m, float(amax))
        avg = float(total) / m
    else:
        lb = max(float(total) / float(sp.sum()), float(amax) / float(sp.max()))
        avg = float(total) / float(sp.sum())
    common = dict(lower_bound=lb, total=total.item(), method=meth.name, exact=meth.exact,
                  m=m, n=int(a.size), speeds=sp)
    if seps is None:
        return Partition1D(
            separators=np.zeros(0, dtype=np.int64), loads=np.zeros(0, dtype=a.dtype),
            max_load=float("nan"), imbalance=float("nan"), status="time_limit",
            message=f"the time limit of {tl:g} s was reached before a partition was found",
            stats={"probes": probes, "steps": steps, "seconds": time.perf_counter() - t0},
            **common)
    part = W[seps[1:]] - W[seps[:-1]]
    if sp is None and a.dtype == np.int64:
        max_load: Any = int(bott_i)
    elif sp is None:
        max_load = float(part.max())
    else:
        max_load = float(bott)
    imb = 0.0 if avg == 0 else float(max_load) / avg - 1.0
    if not math.isfinite(imb):
        imb = float("inf")
    kind = "optimal" if meth.exact else "feasible"
    return Partition1D(
        separators=seps,
        loads=part,
        max_load=max_load,
        imbalance=imb,
        status=kind,
        message=(f"{meth.name}: {'an optimal' if meth.exact else 'a heuristic'} partition"
                 if run is meth else f"{meth.name}: m = {m} > n = {a.size}: the optimal "
                 "partition (one part per item at most, the rest empty)"),
        stats={"probes": probes, "steps": steps, "seconds": secs},
        **common,
    )


@fill_doc
def probe_1d(loads: ArrayLike, m: int, B: float) -> tuple[bool, NDArray[np.int64]]:
    """PROBE: can the chain be split into at most `m` parts of load <= `B`?

    Greedy from the left (PROBE, Sec. 2.2 of Saule et al. 2012); O(m log(n/m)).

    Parameters
    ----------
    loads : array_like
        Non-negative loads, one per item.
    m : int
        Number of parts (processors).
    B : float
        The bottleneck to test: the largest load a part may have.

    Returns
    -------
    ok : bool
        Whether `m` parts of load at most `B` suffice.
    separators : ndarray of int64, shape (m+1,)
        The greedy separators, padded with ``n``.

    {raises}

    Examples
    --------
    >>> import wpart
    >>> wpart.probe_1d([3, 1, 4, 1, 5], 2, 9)
    (True, array([0, 4, 5]))
    """
    a = as_loads(loads, "loads", (1,))
    m = as_parts(m, a.size)
    if is_bool(B) or not isinstance(B, (int, float, np.integer, np.floating)):
        raise WpartTypeError(f"`B` must be a real number, got {type(B).__name__}")
    if a.dtype == np.int64:
        if isinstance(B, (float, np.floating)):
            if math.isnan(B):
                raise WpartValueError("`B` must not be NaN")
            B = math.floor(B) if math.isfinite(B) else (np.iinfo(np.int64).max if B > 0 else -1)
        B = int(B)
        B = max(min(B, np.iinfo(np.int64).max), -1)
    else:
        B = float(B)
        if math.isnan(B):
            raise WpartValueError("`B` must not be NaN")
    ok, seps = _core.probe_1d(a, m, B)
    return bool(ok), seps


def _indent_table(table: str, indent: str = "    ") -> str:
    return ("\n" + indent).join(table.splitlines())


if partition_1d.__doc__:
    partition_1d.__doc__ = partition_1d.__doc__.replace("{methods}",
                                                        _indent_table(TABLE_1D.markdown()))
