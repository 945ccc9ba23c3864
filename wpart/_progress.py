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
    progress: bool | Callable[[float, float], Any] | None, *, total: float, desc: str
) -> Iterator[Callable[[float, float], None] | None]:
    """Yield a ``hook(done, total)`` for the C core, or None when no progress is wanted.

    `progress` is checked by :func:`wpart._validate.as_progress`: None or False (no report),
    True (a tqdm bar) or a callable (returning False cancels the run).
    """
    progress = as_progress(progress)
    if progress is False:
        yield None
        return
    if progress is not True:
        yield _cancelling(progress)
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=float(total), desc=desc, leave=False)

    def hook(done: float, tot: float) -> None:
        if tot > 0 and bar.total != tot:
            bar.total = tot
        bar.n = min(done, bar.total)
        bar.refresh()

    try:
        yield hook
    finally:
        bar.close()
