"""Progress reporting: map ``progress=True`` to a tqdm bar and callables through unchanged."""

from __future__ import annotations
from ._errors import WpartTypeError

import contextlib
from typing import Callable, Iterator


@contextlib.contextmanager
def progress_hook(
    progress: bool | Callable[[float, float], None] | None, *, total: float, desc: str
) -> Iterator[Callable[[float, float], None] | None]:
    """Yield a ``hook(done, total)`` for the C core, or None when no progress is wanted."""
    if progress is None or progress is False:
        yield None
        return
    if callable(progress):
        yield progress
        return
    if progress is not True:
        raise WpartTypeError(f"`progress` must be a bool or a callable, got {type(progress).__name__}")
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
