"""A watchdog over MPI's own blocking steps (start-up, finalisation) for the MPI programs.

``MPI_Init`` and ``MPI_Finalize`` wait for every rank and hold the interpreter meanwhile, so a
rank that dies or is stopped there would leave the others waiting with no word and no end (a
batch job burns its allocation). :func:`arm` forks a watcher that, when :func:`disarm` is not
called within `timeout` seconds, prints which step did not finish on which rank and ends the
process (SIGKILL), so ``mpirun`` ends the whole job with a non-zero status.
:func:`startup_watchdog` is the context manager a user's own MPI script can put around its
``from mpi4py import MPI``.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from typing import Any, Iterator

__all__ = ["arm", "arm_exit", "disarm", "startup_watchdog"]


def _rank_of_env() -> str:
    return next((os.environ[k] for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")
                 if k in os.environ), "?")


def arm(timeout: float | None, what: str, why: str, prog: str) -> Any:
    """Start the watcher: past `timeout` seconds it writes ``"<prog>: rank R: RankFailure:
    <what> did not finish within --timeout T s: <why>"`` to stderr and kills this process.
    Returns the token :func:`disarm` takes (None: no watcher, e.g. `timeout` None)."""
    import select
    import signal

    if timeout is None or not math.isfinite(timeout) or timeout <= 0 or not hasattr(os, "fork"):
        return None
    who = _rank_of_env()
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the watcher: quiet if the step ends (or the process goes) in time
        try:
            os.close(w)
            ready, _, _ = select.select([r], [], [], timeout)
            if not ready:
                os.write(2, (f"{prog}: rank {who}: RankFailure: {what} did not finish within "
                             f"--timeout {timeout:g} s: {why}\n").encode())
                os.kill(os.getppid(), signal.SIGKILL)
        finally:
            os._exit(0)
    os.close(r)
    return pid, w


def disarm(token: Any) -> None:
    """Stop the watcher started by :func:`arm` (the step finished in time)."""
    if token is None:
        return
    pid, w = token
    try:
        os.write(w, b"1")
    finally:
        os.close(w)
        os.waitpid(pid, 0)


def arm_exit(timeout: float | None, prog: str) -> None:
    """Bound what runs after this point until the process ends (MPI finalisation in the
    interpreter's exit handlers) by `timeout` seconds: the watcher goes quietly when the
    process ends in time (its pipe closes), else names the step and ends the process."""
    arm(timeout, "MPI finalisation", "a rank stopped or hangs after the result was complete; "
        "the job is ended", prog)


@contextlib.contextmanager
def startup_watchdog(*, timeout: float | None = 60.0, prog: str = "wpart") -> Iterator[None]:
    """Bound MPI's start-up by `timeout` seconds in your own script::

        from wpart.tasks.mpi import startup_watchdog
        with startup_watchdog(timeout=60):
            from mpi4py import MPI      # MPI_Init: waits for every rank

    A rank that died or hangs in start-up makes every other rank print the error and end
    within `timeout`, so ``mpirun`` ends the job with a non-zero status."""
    tok = arm(timeout, "the MPI start-up", "a rank died or hangs during start-up", prog)
    try:
        yield
    finally:
        disarm(tok)
