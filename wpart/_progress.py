"""Progress reporting: map ``progress=True`` to a tqdm bar; a callable is called as
``progress(done, total)`` and stops the run with :class:`wpart.CancelledError` by returning
False."""

from __future__ import annotations

import contextlib
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
    if progress is not True:
        yield _cancelling(progress)
        return
    from tqdm.auto import tqdm

    fraction = float(total) == 1.0
    if fraction:  # a fraction done: whole percent
        bar = tqdm(total=100, desc=desc, leave=False,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")
    else:
        bar = tqdm(total=max(int(round(float(total))), 0), desc=desc, leave=False, unit=unit)

    def hook(done: float, tot: float) -> None:
        if fraction:
            n = int(100 * done / tot) if tot > 0 else 0
        else:
            t = int(round(tot))
            if t > 0 and bar.total != t:
                bar.total = t
            n = int(done)
        n = max(0, min(n, bar.total))
        if n != bar.n:
            bar.n = n
            bar.refresh()

    try:
        yield hook
    finally:
        bar.close()
