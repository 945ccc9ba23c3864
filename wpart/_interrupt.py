"""Ctrl-C around calls that cannot poll: long single calls of NumPy / SciPy (a random fill of
10^7 values, a sparse conversion) run seconds in C without a signal check."""

from __future__ import annotations

import threading
from typing import Any, Callable


def run_interruptibly(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a helper thread that the caller waits for in 0.05 s joins, so that
    Ctrl-C reaches the caller at once while `fn` runs C code with the GIL released (NumPy's
    fills and copies, scipy's sparsetools). `fn`'s exception is raised in the caller. After a
    Ctrl-C the helper ends its call in the background and its result is dropped."""
    out: list = []

    def run() -> None:
        try:
            out.append((True, fn(*args)))
        except BaseException as exc:  # noqa: BLE001  -- handed to the caller
            out.append((False, exc))

    t = threading.Thread(target=run, name="wpart-interruptible", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.05)
    ok, value = out[0]
    if not ok:
        raise value
    return value
