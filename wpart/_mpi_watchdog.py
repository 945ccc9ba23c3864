"""A watchdog over MPI's own blocking steps (start-up, finalisation) for the MPI programs.

``MPI_Init`` and ``MPI_Finalize`` wait for every rank and hold the interpreter meanwhile, so a
rank that dies or is stopped there would leave the others waiting with no word and no end (a
batch job burns its allocation). :func:`arm` forks a watcher that, when :func:`disarm` is not
called within `timeout` seconds, prints which step did not finish on which rank and ends the
process with exit status 12 (SIGKILL if it does not go within a second), so ``mpirun`` ends the
whole job with a non-zero status -- also under ``mpirun --enable-recovery``, which tolerates a
killed process but not a non-zero exit.
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

#: the exit status of a process ended by the watcher (the number of the signal it sends)
EXIT_STATUS = 12
#: seconds a launcher told to end (recovery mode) has before the watcher kills it
LAUNCHER_GRACE = 10


def _exit_on_signal() -> Any:
    """Make SIGUSR2 end this process at once with status EXIT_STATUS, even while it is blocked
    in C (MPI_Init, MPI_Finalize) where no Python handler runs: the C library's ``_exit`` is the
    handler, called with the signal's number. Returns what :func:`_restore` takes (None where
    this cannot be done; the watcher then kills the process)."""
    import ctypes
    import signal

    sig = getattr(signal, "SIGUSR2", None)
    if sig is None or int(sig) != EXIT_STATUS:
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.signal.restype = ctypes.c_void_p
        libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
        old = libc.signal(int(sig), ctypes.cast(libc._exit, ctypes.c_void_p))
    except (OSError, AttributeError):
        return None
    return libc, int(sig), old


def _restore(saved: Any) -> None:
    if saved is not None:
        libc, sig, old = saved
        libc.signal(sig, old)


def _rank_of_env() -> str:
    return next((os.environ[k] for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")
                 if k in os.environ), "?")


def _int_env(*keys: str) -> int | None:
    for k in keys:
        try:
            return int(os.environ[k])
        except (KeyError, ValueError):
            continue
    return None


# ------------------------------------------------------------ who is missing in start-up ----
# Every rank of a job that arms the start-up watcher leaves a marker <rank> holding its pid in
# a folder of this node named after the job (PMIX_NAMESPACE); the watcher of a rank that waited
# too long first marks itself as waiting (<rank>.waited), then reads the folder and names the
# ranks that died (pid gone), are stopped (state T) or never reached the start-up (no marker,
# when every rank of the job runs on this node). The markers stay after a failed start-up (the
# ranks end at about the same time, each reading the others'); a later job removes folders
# older than a day.

def _registry_prefix() -> str:
    """The name every start-up registry folder of this user begins with (a job's id follows)."""
    return f"wpart-mpi-startup-{os.getuid()}-"


def _registry() -> str | None:
    import tempfile

    job = os.environ.get("PMIX_NAMESPACE") or os.environ.get("OMPI_MCA_ess_base_jobid")
    if not job or not job.replace("-", "").replace(".", "").isalnum():
        return None
    return os.path.join(tempfile.gettempdir(), _registry_prefix() + job)


def _register() -> str | None:
    d, me = _registry(), _rank_of_env()
    if d is None or not me.isdigit():
        return None
    try:
        _sweep(os.path.dirname(d), os.path.basename(d))
        os.makedirs(d, mode=0o700, exist_ok=True)
        path = os.path.join(d, me)
        with open(path, "w") as fh:
            fh.write(str(os.getpid()))
    except OSError:
        return None
    return path


def _sweep(top: str, keep: str) -> None:
    """Remove the registries of earlier jobs older than a day (left by failed start-ups)."""
    import shutil
    import time

    prefix = _registry_prefix()
    try:
        for n in os.listdir(top):
            p = os.path.join(top, n)
            if n.startswith(prefix) and n != keep and time.time() - os.path.getmtime(p) > 86400:
                shutil.rmtree(p, ignore_errors=True)
    except OSError:
        pass


def _unregister(path: str | None) -> None:
    if path is None:
        return
    try:
        os.unlink(path)
        os.rmdir(os.path.dirname(path))  # the last rank out removes the folder
    except OSError:
        pass


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name: [state, ppid, ...] (OSError,
    IndexError where there is none)."""
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()


def _pid_state(pid: int) -> str:
    """'gone', 'stopped' or 'alive'."""
    try:
        state = _stat(pid)[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return "gone"
        except OSError:
            return "alive"
        return "alive"
    return "gone" if state in ("Z", "X") else "stopped" if state in ("T", "t") else "alive"


def _end_stopped_ranks() -> list[str]:
    """In the watcher of a rank (its parent): SIGKILL this job's ranks on this node that are
    stopped (state T: the children of the rank's launcher with this job's id), whose end
    ``mpirun`` can wait for without bound (Open MPI 4.1 hung there in 1 of about 10 jobs on a
    busy machine: SIGTERM stays pending on a stopped process); returns their ranks."""
    job = os.environ.get("PMIX_NAMESPACE") or os.environ.get("OMPI_MCA_ess_base_jobid")
    rank = os.getppid()
    out: list[str] = []
    try:
        launcher = int(_stat(rank)[1])
        pids = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) != rank]
    except (OSError, IndexError, ValueError):
        return out
    for pid in pids if job else ():
        try:
            f = _stat(pid)
            if f[0] != "T" or int(f[1]) != launcher:
                continue
            with open(f"/proc/{pid}/environ", "rb") as fh:
                env = dict(kv.split(b"=", 1) for kv in fh.read().split(b"\0") if b"=" in kv)
            if (env.get(b"PMIX_NAMESPACE") or env.get(b"OMPI_MCA_ess_base_jobid")) != \
                    job.encode():
                continue
            os.kill(pid, 9)  # (SIGKILL ends a stopped process)
            out.append(env.get(b"OMPI_COMM_WORLD_RANK", b"?").decode(errors="replace"))
        except (OSError, IndexError, ValueError):
            continue
    return out


def _ranks(rs: list[int]) -> str:
    return ("rank " if len(rs) == 1 else "ranks ") + ", ".join(map(str, rs))


def _culprits(path: str | None) -> str | None:
    """What the registry says of the ranks this one waits for (None: nothing to name)."""
    if path is None:
        return None
    d, me = os.path.dirname(path), int(_rank_of_env())
    if _pid_state(os.getppid()) == "stopped":  # this rank is the one that hangs
        return f"rank {me} stopped during start-up (this rank)"
    try:
        open(path + ".waited", "w").close()
    except OSError:
        pass
    size = _int_env("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
    local = _int_env("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")
    dead, stopped, seen = [], [], set()
    try:
        names = os.listdir(d)
    except OSError:
        return None
    waited = {n[:-7] for n in names if n.endswith(".waited")}
    for n in names:
        if not n.isdigit():
            continue
        r = int(n)
        seen.add(r)
        if n in waited:  # it timed out waiting too
            continue
        try:
            with open(os.path.join(d, n)) as fh:
                pid = int(fh.read().strip() or 0)
        except (OSError, ValueError):
            continue
        st = _pid_state(pid) if pid > 0 and r != me else "alive"
        (dead if st == "gone" else stopped if st == "stopped" else []).append(r)
    parts = []
    if dead:
        parts.append(f"{_ranks(sorted(dead))} died during start-up")
    if stopped:
        parts.append(f"{_ranks(sorted(stopped))} stopped during start-up")
    if size is not None and local is not None and local == size:
        never = sorted(set(range(size)) - seen)
        if never:
            parts.append(f"{_ranks(never)} did not reach it (died or never started)")
    return "; ".join(parts) or None


def _launcher() -> int | None:
    """The pid of the MPI launcher (mpirun / orted / prted) that started this process, when
    the job runs in a recovery mode in which the launcher tolerates a rank's exit; else None."""
    if os.environ.get("OMPI_MCA_orte_enable_recovery", "").lower() not in ("1", "true", "yes") \
            and os.environ.get("PRTE_MCA_prte_enable_recovery", "").lower() not in ("1", "true", "yes"):
        return None
    ppid = os.getppid()
    try:
        with open(f"/proc/{ppid}/comm") as fh:
            name = fh.read().strip()
    except OSError:
        return None
    return ppid if name in ("mpirun", "mpiexec", "orterun", "orted", "prterun", "prted", "prte") else None


def arm(timeout: float | None, what: str, why: str, prog: str) -> Any:
    """Start the watcher: past `timeout` seconds it writes ``"<prog>: rank R: RankFailure:
    <what> did not finish within --timeout T s: <why>"`` to stderr and ends this process (exit
    status 12). In MPI's start-up, `why` names the ranks that died, are stopped or never
    started where this node can see them. The job's stopped ranks on this node are ended
    (SIGKILL), as the launcher would wait for them without bound. Under ``mpirun
    --enable-recovery``, which tolerates a rank's exit, the watcher also ends the launcher
    (SIGTERM, then SIGKILL after ``LAUNCHER_GRACE`` s), so the job's status is non-zero.
    Returns the token :func:`disarm` takes (None: no watcher, e.g. `timeout` None)."""
    import select
    import signal

    if timeout is None or not math.isfinite(timeout) or timeout <= 0 or not hasattr(os, "fork"):
        return None
    who = _rank_of_env()
    saved = _exit_on_signal()
    mark = _register() if what == "the MPI start-up" else None
    launcher = _launcher()
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the watcher: quiet if the step ends (or the process goes) in time
        try:
            os.close(w)
            ready, _, _ = select.select([r], [], [], timeout)
            if not ready:
                named = _culprits(mark)
                for _ in range(10):  # nothing to name yet: a late rank may be between its
                    if named is not None or mark is None:  # marker and its fault (1 s)
                        break
                    select.select([], [], [], 0.1)
                    named = _culprits(mark)
                # this job's stopped ranks on this node are ended first, in either step: the
                # launcher waits without bound for a stopped rank (a SIGTERM stays pending on
                # it), and a rank's own watcher may already be gone with the launcher's signals
                ended = _end_stopped_ranks()
                if ended:
                    tail = f"stopped, so ended: {_ranks(sorted(ended, key=str))}"
                    named = f"{why} ({tail})" if what == "MPI finalisation" or not named \
                        else f"{named} ({tail})"
                os.write(2, (f"{prog}: rank {who}: RankFailure: {what} did not finish within "
                             f"--timeout {timeout:g} s: {named or why}\n").encode())
                parent = os.getppid()
                gone = contextlib.suppress(ProcessLookupError)  # (reaped meanwhile)
                if _pid_state(parent) != "stopped" and saved is not None:
                    with gone:  # exit status 12; SIGKILL if it has not gone in 1 s
                        os.kill(parent, saved[1])
                    for _ in range(100):
                        if os.getppid() != parent:
                            break
                        select.select([], [], [], 0.01)
                if os.getppid() == parent:  # (a stopped process: a signal would stay pending)
                    with gone:
                        os.kill(parent, signal.SIGKILL)
                if launcher is not None:  # recovery mode: end the job with a non-zero status
                    with gone:
                        os.kill(launcher, signal.SIGTERM)
                    for fd in (0, 1, 2):  # the launcher may wait for the rank's pipes to close
                        with contextlib.suppress(OSError):
                            os.close(fd)
                    for _ in range(LAUNCHER_GRACE * 20):  # bounded: SIGKILL if it stays
                        if _pid_state(launcher) == "gone":
                            break
                        select.select([], [], [], 0.05)
                    else:
                        with gone:
                            os.kill(launcher, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os._exit(0)
    os.close(r)
    return pid, w, saved, mark


def disarm(token: Any) -> None:
    """Stop the watcher started by :func:`arm` (the step finished in time)."""
    if token is None:
        return
    pid, w, saved, mark = token
    try:
        os.write(w, b"1")
    finally:
        os.close(w)
        os.waitpid(pid, 0)
        _restore(saved)
        _unregister(mark)


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
