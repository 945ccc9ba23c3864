"""Progress reporting: map ``progress=True`` to a tqdm bar; a callable is called as
``progress(done, total)`` and stops the run with :class:`wpart.CancelledError` by returning
False."""

from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, Iterator

from ._errors import CancelledError
from ._validate import as_progress, is_bool


def _cancelling(progress: Callable[[float, float], Any]) -> Callable[[float, float], None]:
    """`progress` wrapped so that returning False raises :class:`CancelledError` (the core then
    stops at its next poll and the exception reaches the caller)."""

    def hook(done: float, total: float) -> None:
        r = progress(done, total)
        if is_bool(r) and not r:
            raise CancelledError("the progress callback returned False")

    return hook


class _Reports:
    """What a progress report reaches: every report ``(done, tot)`` of the core or of a phase,
    in whatever unit, is passed on as ``(total * done / tot, total)`` in the call's own unit
    (`total`), never below the last one passed (a later phase's own count starts again), and
    not at all when ``tot`` is not a positive number (``done / tot`` would be 0 / 0);
    :meth:`finish` passes ``(total, total)`` once when the call ends without an error."""

    __slots__ = ("_to", "_total", "_last")

    def __init__(self, to: Callable[[float, float], Any], total: float):
        self._to, self._total, self._last = to, total, -1.0

    def report(self, done: float, tot: float) -> None:
        done, tot = float(done), float(tot)
        if not (tot > 0 and math.isfinite(tot) and done == done):
            return
        x = done if tot == self._total else self._total * min(max(done / tot, 0.0), 1.0)
        x = min(max(x, self._last, 0.0), self._total)
        if x != self._last:
            self._last = x
            self._to(x, self._total)

    def finish(self) -> None:
        if self._last < self._total:
            self._last = self._total
            try:
                self._to(self._total, self._total)
            except CancelledError:  # the work is done: a callback's "stop" changes nothing
                pass


@contextlib.contextmanager
def progress_hook(
    progress: bool | Callable[[float, float], Any] | None, *, total: float, desc: str,
    unit: str = "step",
) -> Iterator[Callable[[float, float], None] | None]:
    """Yield a ``hook(done, total)`` for the C core, or None when no progress is wanted.

    `progress` is checked by :func:`wpart._validate.as_progress`: None or False (no report),
    True (a tqdm bar: ``tqdm.auto``, a widget in Jupyter when ipywidgets is installed, the
    ``notebook`` extra) or a callable (returning False cancels the run). The bar counts
    integers: a total of 1.0 (a fraction done) is shown in whole percent, any other total
    as a whole number of `unit`.

    Parameters
    ----------
    progress : bool, callable or None
        What to report to.
    total : float
        The amount of work (1.0: the run reports the fraction done).
    desc : str
        The bar's label.
    unit : str, optional
        What the bar counts (default ``"step"``).

    Returns
    -------
    context manager
        Yields the hook, or None.

    Raises
    ------
    WpartTypeError
        If `progress` is neither a bool, None nor a callable.
    """
    progress = as_progress(progress)
    if progress is False:
        yield None
        return
    unit_total = float(total) if float(total) > 0 and math.isfinite(float(total)) else 1.0
    if progress is not True:
        track = _Reports(_cancelling(progress), unit_total)
        yield track.report
        track.finish()
        return
    from tqdm.auto import tqdm

    fraction = unit_total == 1.0
    if fraction:  # a fraction done: whole percent
        bar = tqdm(total=100, desc=desc, leave=False,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")
    else:
        bar = tqdm(total=max(int(round(unit_total)), 0), desc=desc, leave=False, unit=unit)

    def draw(done: float, tot: float) -> None:
        n = int(100 * done / tot) if fraction else int(done)
        n = max(0, min(n, bar.total))
        if n != bar.n:
            bar.n = n
            bar.refresh()

    track = _Reports(draw, unit_total)
    try:
        yield track.report
        track.finish()
    finally:
        bar.close()
