"""Prefix sums, box loads and optimal 1D partitioning (spec 004 sections 1.2 and 2)."""

from __future__ import annotations
from ._errors import WpartTypeError, WpartValueError

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core
from ._progress import progress_hook
from ._validate import as_int, as_loads, as_parts, as_speeds, check_speed_costs, choice

__all__ = ["prefix_sum", "box_loads", "partition_1d", "probe_1d", "Partition1D", "METHODS_1D"]

#: Names accepted by :func:`partition_1d` (exact methods first).
METHODS_1D = ("nicol", "bisect", "dp", "direct_cut", "recursive_bisection")
_EXACT_1D = ("nicol", "bisect", "dp")
_ALIASES_1D = {"dc": "direct_cut", "rb": "recursive_bisection", "bisection": "bisect"}


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
    One pass over ``A`` in C with the GIL released; spec 004 section 1.2.

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

    Examples
    --------
    >>> import wpart
    >>> S = wpart.prefix_sum([[1, 2], [3, 4]])
    >>> wpart.box_loads(S, [[0, 2, 1, 2], [0, 1, 0, 2]])
    array([6, 3])
    """
    Sa = as_loads(S, "S", (2, 3))
    b = np.asarray(boxes)
    if b.dtype.kind not in "iu":
        if not (b.size == 0 and b.dtype.kind == "f"):
            raise WpartTypeError(f"`boxes` must be an integer array, got dtype {b.dtype}")
    if b.ndim == 1 and b.size == 2 * Sa.ndim:
        b = b[None, :]
    if b.ndim != 2 or b.shape[1] != 2 * Sa.ndim:
        raise WpartValueError(f"`boxes` must have shape (k, {2 * Sa.ndim}), got {b.shape}")
    return _core.box_loads(Sa, np.ascontiguousarray(b, dtype=np.int64))


@dataclass(frozen=True)
class Partition1D:
    """A partition of a chain into `m` consecutive parts.

    Attributes
    ----------
    separators : ndarray of int64, shape (m+1,)
        ``0 = separators[0] <= ... <= separators[m] = n``; part ``p`` is
        ``[separators[p], separators[p+1])``.
    loads : ndarray, shape (m,)
        Part loads (int64 or float64, as the input).
    max_load : int or float
        Largest part load.
    bottleneck : float
        ``max_p loads[p] / speeds[p]`` (equals `max_load` without speeds); the objective.
    lower_bound : float
        ``max(T/m, amax)`` (``max(ceil(T/m), amax)`` for integers); with speeds,
        ``max(T / sum(speeds), amax / max(speeds))``.
    imbalance : float
        ``bottleneck / (T / sum(speeds)) - 1``; 0 for an all-zero chain.
    total : int or float
        Total load ``T``.
    method : str
        The algorithm used.
    exact : bool
        Whether the method is exact (Nicol, bisection, DP).
    speeds : ndarray or None
        Relative part speeds, if given.
    stats : dict
        ``probes``, ``steps`` and ``seconds`` of the core call.
    """

    separators: NDArray[np.int64]
    loads: NDArray
    max_load: Any
    bottleneck: float
    lower_bound: float
    imbalance: float
    total: Any
    method: str
    exact: bool
    speeds: NDArray[np.float64] | None = None
    stats: dict = field(default_factory=dict)

    @property
    def m(self) -> int:
        """Number of parts."""
        return len(self.separators) - 1

    @property
    def n(self) -> int:
        """Length of the chain."""
        return int(self.separators[-1])

    @property
    def gap_lb(self) -> float:
        """``bottleneck / lower_bound - 1`` (0 when both are 0)."""
        if self.lower_bound == 0:
            return 0.0
        return float(self.bottleneck) / float(self.lower_bound) - 1.0

    def owner(self) -> NDArray[np.int64]:
        """Part index of every chain element, shape (n,)."""
        return np.repeat(np.arange(self.m, dtype=np.int64), np.diff(self.separators))

    def to_dict(self) -> dict:
        """JSON-friendly dictionary of the result."""
        return {
            "separators": self.separators.tolist(),
            "loads": self.loads.tolist(),
            "max_load": _scalar(self.max_load),
            "bottleneck": float(self.bottleneck),
            "lower_bound": float(self.lower_bound),
            "imbalance": float(self.imbalance),
            "total": _scalar(self.total),
            "method": self.method,
            "exact": self.exact,
            "speeds": None if self.speeds is None else self.speeds.tolist(),
            "stats": dict(self.stats),
        }

    def __repr__(self) -> str:
        sep = np.array2string(self.separators, threshold=12, edgeitems=4)
        return (
            f"Partition1D(method={self.method!r}, m={self.m}, n={self.n}, "
            f"max_load={self.max_load!r}, lower_bound={self.lower_bound:.6g}, "
            f"imbalance={self.imbalance:.4%}, separators={sep})"
        )

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
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 3))
        seps = self.separators
        widths = np.diff(seps)
        eff = self.loads / (self.speeds if self.speeds is not None else 1.0)
        if loads is not None:
            a = np.asarray(loads, dtype=float)
            ax.bar(np.arange(a.size) + 0.5, a, width=1.0, color="0.8", label="element loads")
        ax.bar(seps[:-1], eff, width=np.maximum(widths, 0.3), align="edge", alpha=0.6,
               edgecolor="k", label="part load" + (" / speed" if self.speeds is not None else ""))
        ax.axhline(float(self.lower_bound), color="r", ls="--", lw=1, label="lower bound")
        ax.set_xlabel("chain position")
        ax.set_ylabel("load")
        ax.set_title(f"{self.method}: m = {self.m}, imbalance {self.imbalance:.2%}")
        ax.legend(loc="best", fontsize="small")
        return ax


def _scalar(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def partition_1d(
    loads: ArrayLike,
    m: int,
    method: str = "nicol",
    speeds: ArrayLike | None = None,
    *,
    normalize: bool = True,
    progress: bool | Callable[[float, float], None] = False,
    time_limit: float | None = None,
) -> Partition1D:
    """Split a chain of loads into `m` consecutive parts minimising the largest part load.

    This is the chains-on-chains problem (spec 004 section 2). Exact methods: ``"nicol"``
    (Nicol's parametric search with the NicolPlus bounds, the default), ``"bisect"`` (bisection
    on the bottleneck value: integers for integer loads, the ordered doubles otherwise, so exact
    in both cases) and ``"dp"`` (the dynamic programme, O(m n), the reference). Heuristics:
    ``"direct_cut"`` (max load <= T/m + amax) and ``"recursive_bisection"`` (a 2-approximation).

    Parameters
    ----------
    loads : array_like, shape (n,)
        Non-negative element loads (integers are handled exactly in int64).
    m : int
        Number of parts, >= 1. ``m > n`` is allowed: some parts are then empty.
    method : str, default "nicol"
        One of ``"nicol"``, ``"bisect"``, ``"dp"``, ``"direct_cut"`` (``"dc"``),
        ``"recursive_bisection"`` (``"rb"``).
    speeds : array_like, shape (m,), optional
        Relative speeds of heterogeneous parts; the objective becomes
        ``max_p load_p / speeds[p]``. Exact methods stay exact for this objective.
    normalize : bool, default True
        Make every part non-empty when ``m <= n`` without raising the max load (spec 2.7;
        homogeneous case only).
    progress : bool or callable, default False
        Show a tqdm progress bar, or call ``progress(done, total)``.
    time_limit : float, optional
        Seconds after which the computation stops with :class:`wpart.CancelledError`.

    Returns
    -------
    Partition1D

    Raises
    ------
    ValueError
        Bad loads (NaN, inf, negative, empty, not 1-D), ``m < 1``, bad speeds or method.
    OverflowError
        If the int64 total of the loads overflows.
    KeyboardInterrupt
        On Ctrl-C during a long computation.

    Notes
    -----
    Every exact method returns the same separators: the leftmost greedy partition at the
    optimal bottleneck, normalised (spec 004 sections 2.6-2.7).

    Examples
    --------
    >>> import wpart
    >>> r = wpart.partition_1d([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], 4)
    >>> r.max_load, r.separators.tolist()
    (14, [0, 5, 7, 10, 11])
    """
    a = as_loads(loads, "loads", (1,))
    m = as_parts(m, a.size)
    meth = choice(method, "method", METHODS_1D, _ALIASES_1D)
    sp = as_speeds(speeds, m)
    if sp is not None:
        with np.errstate(over="ignore"):
            check_speed_costs(a.sum(dtype=np.float64), sp)
    tl = 0.0
    if time_limit is not None:
        tl = float(time_limit)
        if not tl > 0:
            raise WpartValueError(f"`time_limit` must be a positive number of seconds, got {time_limit}")
    with progress_hook(progress, total=m, desc=f"partition_1d[{meth}]") as hook:
        seps, W, st = _core.partition_1d(a, m, meth, sp, bool(normalize), hook, tl)
    bott, bott_i, probes, steps, secs = st
    part = W[seps[1:]] - W[seps[:-1]]
    total = W[-1]
    amax = a.max()
    if sp is None:
        if a.dtype == np.int64:
            lb = float(max(-(-int(total) // m), int(amax)))
            max_load = int(bott_i)
            bott = float(max_load)
        else:
            lb = max(float(total) / m, float(amax))
            max_load = float(part.max()) if m else 0.0
        avg = float(total) / m
    else:
        lb = max(float(total) / float(sp.sum()), float(amax) / float(sp.max()))
        max_load = part.max().item()
        avg = float(total) / float(sp.sum())
    imb = 0.0 if avg == 0 else float(bott) / avg - 1.0
    if not math.isfinite(imb):
        imb = float("inf")
    return Partition1D(
        separators=seps,
        loads=part,
        max_load=max_load,
        bottleneck=float(bott),
        lower_bound=lb,
        imbalance=imb,
        total=total.item(),
        method=meth,
        exact=meth in _EXACT_1D,
        speeds=sp,
        stats={"probes": probes, "steps": steps, "seconds": secs},
    )


def probe_1d(loads: ArrayLike, m: int, B: float) -> tuple[bool, NDArray[np.int64]]:
    """PROBE: can the chain be split into at most `m` parts of load <= `B`?

    Greedy from the left (spec 004 section 2.2); O(m log(n/m)).

    Returns
    -------
    ok : bool
    separators : ndarray of int64, shape (m+1,)
        The greedy separators, padded with ``n``.

    Examples
    --------
    >>> import wpart
    >>> wpart.probe_1d([3, 1, 4, 1, 5], 2, 9)
    (True, array([0, 3, 5]))
    """
    a = as_loads(loads, "loads", (1,))
    m = as_parts(m, a.size)
    if isinstance(B, (bool, np.bool_)) or not isinstance(B, (int, float, np.integer,
                                                            np.floating)):
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
