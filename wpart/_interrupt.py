"""Ctrl-C around calls that cannot poll: long single calls of NumPy / SciPy (a random fill of
10^7 values, a sparse conversion) run seconds in C without a signal check; and the command
line's signals: SIGINT and SIGTERM raised as exceptions (:func:`signals_as_exceptions`), held
back during the steps that switch output files (:func:`deferred`)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
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


# ----------------------------------------------------- the command line's signals ----------

class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C's :class:`KeyboardInterrupt` inside
    :func:`signals_as_exceptions`, so that the same cleanup runs (temporary files removed,
    previous outputs kept) instead of the process ending where it stands."""


#: the exit status of a command line ended by each signal (128 + the signal's number)
EXIT_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}

_state: dict[str, Any] = {"pid": None, "depth": 0, "pending": None}


def _exception(signum: int) -> KeyboardInterrupt:
    return Terminated("SIGTERM") if signum == signal.SIGTERM else KeyboardInterrupt()


def _handler(signum: int, frame: Any) -> None:
    if os.getpid() != _state["pid"]:  # a forked child (no exec): the default action
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    if _state["depth"]:  # in a step that must not be cut (outputs switched): raised after it
        if _state["pending"] is None:
            _state["pending"] = signum
        return
    raise _exception(signum)


def signal_number(exc: BaseException) -> int:
    """The signal that `exc` (a :class:`KeyboardInterrupt`) stands for: SIGTERM for
    :class:`Terminated`, SIGINT otherwise."""
    return signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT


def pending_signal() -> int | None:
    """The signal received in a :func:`deferred` step whose exception is still to be raised
    (the step ended with another exception), or None; reading it clears it."""
    signum, _state["pending"] = _state["pending"], None
    return signum


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """Inside (in the main thread): SIGINT raises :class:`KeyboardInterrupt` and SIGTERM
    :class:`Terminated` where Python code runs next (the core's polls included), or at the end
    of a :func:`deferred` step; a signal ignored on entry (``nohup``, a background job) stays
    ignored. The previous handlers come back on exit.

    Yields
    ------
    None
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved: dict[int, Any] = {}
    previous = dict(_state)
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            old = signal.getsignal(sig)
            if old == signal.SIG_IGN:
                continue
            saved[sig] = old
            signal.signal(sig, _handler)
        _state.update(pid=os.getpid(), depth=0, pending=None)
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, signal.SIG_DFL if old is None else old)
        _state.update(previous)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A step that a signal must not cut (output files renamed into place, or put back): a
    SIGINT / SIGTERM received inside is raised when the outermost such step ends (or, if it
    ends with another exception, left to :func:`pending_signal`). Without
    :func:`signals_as_exceptions` it changes nothing.

    Yields
    ------
    None
    """
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1
    if _state["depth"] == 0 and _state["pending"] is not None:
        raise _exception(pending_signal())
