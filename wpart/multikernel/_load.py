"""CPU load injection for adaptation experiments [Soldado 2016, Sec. 4.3].

The paper raises the CPU load with a separate program whose threads solve heavy algebra
problems. :class:`LoadInjector` starts busy-loop processes, optionally pinned to chosen CPUs,
and stops them by pid; it can follow a run-indexed schedule so that experiments do not depend
on wall-clock timing.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from typing import Any, Sequence

from .._errors import WpartRuntimeError, WpartValueError
from .._validate import as_int

__all__ = ["LoadInjector"]

# says "r" on stdout once it runs its loop, then spins; it ends by itself once its parent is
# gone (checked about every 20-50 ms), so a killed caller leaves no busy process behind
_BUSY = ("import os\np = os.getppid()\nos.write(1, b'r')\nos.close(1)\n"
         "while os.getppid() == p:\n    for _ in range(1000000):\n        pass\n")


class LoadInjector:
    """Busy-loop processes that load the CPU, started and stopped by pid.

    Parameters
    ----------
    procs : int, optional
        Busy processes to start.
    cores : sequence of int, optional
        CPUs to pin them to (round robin); None: not pinned.
    start_run, stop_run : int, optional
        With :meth:`at_run`: load on for runs ``start_run <= run < stop_run``.

    Examples
    --------
    >>> from wpart.multikernel import LoadInjector
    >>> with LoadInjector(procs=1) as inj:
    ...     len(inj.pids)
    1
    """

    def __init__(self, *, procs: int = 1, cores: Sequence[int] | None = None,
                 start_run: int | None = None, stop_run: int | None = None) -> None:
        self.procs = as_int(procs, "procs", minimum=1, maximum=256)
        avail = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
        if cores is not None:
            cores = [as_int(c, "cores", minimum=0) for c in cores]
            if not cores:
                raise WpartValueError("`cores` must name at least one CPU")
            if avail is not None and not set(cores) <= set(avail):
                raise WpartValueError(f"`cores` {cores} are not all usable here ({avail})")
        self.cores = cores
        self.start_run = None if start_run is None else as_int(start_run, "start_run", minimum=0)
        self.stop_run = None if stop_run is None else as_int(stop_run, "stop_run", minimum=0)
        self._procs: list[subprocess.Popen] = []

    @property
    def pids(self) -> list[int]:
        """Pids of the running busy processes."""
        return [p.pid for p in self._procs if p.poll() is None]

    @property
    def active(self) -> bool:
        return bool(self.pids)

    def start(self, *, time_limit: float = 30.0) -> "LoadInjector":
        """Starts the busy processes and returns once every one of them runs its busy loop.

        Parameters
        ----------
        time_limit : float, optional
            Seconds to wait for the processes to start (an interpreter start on a loaded
            machine can take a while).

        Returns
        -------
        LoadInjector
            self (no-op when already running).

        Raises
        ------
        WpartRuntimeError
            A process did not start within `time_limit` (the ones started are stopped).
        """
        if self.active:
            return self
        self._procs = []
        for i in range(self.procs):
            p = subprocess.Popen([sys.executable, "-S", "-c", _BUSY], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            if self.cores is not None and hasattr(os, "sched_setaffinity"):
                try:
                    os.sched_setaffinity(p.pid, {self.cores[i % len(self.cores)]})
                except OSError:
                    pass
            self._procs.append(p)
        deadline = time.monotonic() + float(time_limit)
        for p in self._procs:  # each says "r" from inside its loop's process
            ok = False
            while time.monotonic() < deadline:
                ready, _, _ = select.select([p.stdout], [], [], 0.05)
                if ready:
                    ok = p.stdout.read(1) == b"r"
                    break
                if p.poll() is not None:
                    break
            p.stdout.close()
            if not ok:
                self.stop()
                raise WpartRuntimeError(f"a load process did not start within {time_limit} s")
        return self

    def stop(self) -> None:
        """Kills the busy processes by pid and reaps them."""
        for p in self._procs:
            if p.poll() is None:
                try:
                    os.kill(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for p in self._procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        self._procs = []

    def at_run(self, run: int) -> bool:
        """Follows the schedule: load on for ``start_run <= run < stop_run``; returns whether
        it is on."""
        if self.start_run is None or self.stop_run is None:
            raise WpartValueError("at_run needs `start_run` and `stop_run`")
        on = self.start_run <= as_int(run, "run", minimum=0) < self.stop_run
        if on:
            self.start()
        elif self.active:
            self.stop()
        return on

    def __enter__(self) -> "LoadInjector":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __del__(self) -> None:
        try:
            self.stop()
        except Exception:
            pass
