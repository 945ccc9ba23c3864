"""Equal finish times in integers: :func:`equal_finish` shares ``total`` elements into
multiples of a quantum so that the PUs finish together (Sec. 3.2 of [Sant'Ana 2017]: system (3)
solved as a min-max problem, then the rounding made optimal)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._errors import WpartTypeError, WpartValueError
from .._result import Result
from ._balancer import count
from .._validate import as_sequence
from ._model import PerfModel
from ._trace import plot_per_pu

__all__ = ["equal_finish", "EqualFinishResult"]

_PACKED = attrgetter("packed")
_MESSAGE = "equal finish times: the best split into multiples of the quantum"


@dataclass(frozen=True, eq=False, repr=False)
class EqualFinishResult(Result):
    """Outcome of :func:`equal_finish` (the result protocol of :class:`wpart.Result`).

    Attributes
    ----------
    status : {"optimal"}
        The sizes minimise the largest finish time among all splits of ``total`` into
        multiples of ``quantum`` (with the remainder rule of :func:`equal_finish`), for
        non-decreasing curves.
    message : str
        One sentence about the split.
    sizes : ndarray of int64, shape (m,)
        Elements per PU, summing to ``total``; multiples of ``quantum`` except, when
        ``total`` is not a multiple of it, the one PU that takes the remainder.
    time : float
        Finish time of the split: ``max_p E_p(sizes_p)`` over the PUs with a block (a PU
        with no block costs nothing).
    level : float
        The common finish time of the continuous split (the water level ``T`` of
        :func:`solve_equal_time`), a lower bound on `time`: ``level <= time`` always (the
        solver's tolerance could put ``T`` a hair above the makespan of an exact split;
        ``level`` is then ``time``).
    quantum : int
    stats : dict
        Not compared by ``==``; empty.
    """

    sizes: NDArray[np.int64]
    time: float
    level: float
    quantum: int = 1

    @property
    def m(self) -> int:
        """Number of PUs."""
        return int(self.sizes.size)

    @property
    def total(self) -> int:
        """Elements shared (``sizes.sum()``)."""
        return int(self.sizes.sum())

    @property
    def max_load(self) -> float:
        """The objective under its common name: the same as :attr:`time`."""
        return self.time

    def _repr_lines(self) -> list[str]:
        s = self.sizes.tolist() if self.sizes.size <= 8 else self.sizes[:8].tolist() + ["..."]
        return [f"EqualFinishResult(status={self.status!r}, m={self.m}, total={self.total}, "
                f"time={self.time:.6g} s, level={self.level:.6g} s)", f"  sizes={s}"]

    def plot(self, ax: Any = None) -> Any:
        """Bar chart of the sizes per PU on `ax` (a new figure when None); returns the Axes."""
        return plot_per_pu(ax, self.sizes, "elements",
                           f"equal_finish: {self.total} elements, finish time {self.time:.4g} s")


def equal_finish(
    curves: Sequence[PerfModel | Callable[[Any], Any]],
    total: int,
    *,
    quantum: int = 1,
) -> EqualFinishResult:
    """Share `total` elements over the PUs so that they finish together: the integer split
    into multiples of `quantum` that minimises the largest finish time (Sec. 3.2 of
    [Sant'Ana 2017]).

    Solves the continuous problem ``min T s.t. E_p(x_p) <= T, sum x = total`` (as
    :func:`solve_equal_time`), then rounds optimally (as :func:`round_blocks`): floor to
    multiples of `quantum`, then each remaining quantum to the PU that would finish it first
    (ties to the lowest index).

    Parameters
    ----------
    curves : sequence of PerfModel or callable
        One per PU: ``E_p(x)``, the time of a block of ``x`` elements, non-decreasing and
        finite, >= 0. With PerfModels only the whole call runs in C.
    total : int
        Elements to share (>= 1).
    quantum : int, default 1
        Block granularity (>= 1).

    Returns
    -------
    EqualFinishResult
        ``sizes`` (int64, summing to `total`) and ``time`` (their finish time).

    Raises
    ------
    wpart.WpartValueError
        Empty `curves`, `total` or `quantum` < 1, or a curve that returned NaN, an infinite
        or a negative time, or decreased between two sizes the solver evaluated (the message
        names the PU).
    wpart.WpartTypeError
        A curve that is neither a PerfModel nor callable, or that returned something other
        than a real number (the message names ``curves[p]``); a non-integer `total` or
        `quantum`.

    Notes
    -----
    When `total` is not a multiple of `quantum`, the remainder ``total % quantum`` goes, after
    the quanta, to the one PU that finishes first with it (the last, shorter block of the
    data); every other size is a multiple of `quantum`. With ``total < quantum`` one PU takes
    everything.

    Examples
    --------
    >>> from wpart.dynamic import equal_finish
    >>> r = equal_finish([lambda x: x / 100.0, lambda x: x / 300.0], 1000, quantum=10)
    >>> r.sizes.tolist(), round(r.time, 3)
    ([250, 750], 2.5)
    """
    if isinstance(curves, PerfModel) or callable(curves):
        raise WpartTypeError("`curves` must be a sequence of PerfModel objects or callables")
    cs = as_sequence(curves, "curves")
    if not cs:
        raise WpartValueError("`curves` must not be empty")
    if set(map(type, cs)) == {PerfModel}:
        arg: Any = list(map(_PACKED, cs))
    else:
        for i, c in enumerate(cs):
            if not callable(c):
                raise WpartTypeError(f"`curves[{i}]` must be a PerfModel or a callable")
        arg = tuple(cs)
    n = total if type(total) is int and 1 <= total < 2**63 else count(total, "total", 1)
    q = quantum if type(quantum) is int and 1 <= quantum < 2**63 else count(quantum, "quantum", 1)
    sizes, t, level = _core.dynamic_equal_finish(arg, n, q)
    # the fields set directly: the frozen dataclass's __init__ costs more than the solve
    r = object.__new__(EqualFinishResult)
    r.__dict__.update(status="optimal", message=_MESSAGE, sizes=sizes, time=t, level=level,
                      quantum=q, stats={})
    return r
