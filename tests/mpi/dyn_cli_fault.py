"""Run ``python -m wpart.dynamic.mpi`` with a fault injected (tests/test_dynamic_mpi.py).

usage: dyn_cli_fault.py FAULT RANK [wpart.dynamic.mpi arguments...]
FAULT: ``kill_root`` (the root SIGKILLs itself after its third block result),
``kill_worker`` (worker rank RANK SIGKILLs itself when its second block starts),
``stop_start`` (rank RANK stops itself before MPI starts), ``kill_start`` (rank RANK dies
inside the watched start-up, before MPI_Init), ``kill_init`` (rank RANK dies
right after MPI_Init, before it reports ready).
"""
import os
import signal
import sys

fault, who = sys.argv[1], int(sys.argv[2])
me = int(os.environ.get("OMPI_COMM_WORLD_RANK", "-1"))
if fault == "kill_root" and me == who:
    from wpart.dynamic import _mpi

    real = _mpi._Hub._handle
    seen = [0]

    def _handle(self, src, msg):
        if msg[0] == "done":
            seen[0] += 1
            if seen[0] >= 3:
                os.kill(os.getpid(), signal.SIGKILL)
        return real(self, src, msg)
    _mpi._Hub._handle = _handle
if fault == "kill_worker" and me == who:
    import wpart.dynamic as wd

    real_block = wd.ThreadWorker._block
    seen = [0]

    def _block(self, st, task, offset, size):
        seen[0] += 1
        if seen[0] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return real_block(self, st, task, offset, size)
    wd.ThreadWorker._block = _block

if fault == "stop_start" and me == who:  # stops itself (SIGSTOP) before MPI starts
    os.kill(os.getpid(), signal.SIGSTOP)
if fault == "kill_start" and me == who:  # dies inside the watched start-up
    from wpart import _mpi_watchdog as wdg

    real_arm = wdg.arm

    def _arm_and_die(*a, **kw):
        real_arm(*a, **kw)
        os.kill(os.getpid(), signal.SIGKILL)
    wdg.arm = _arm_and_die
if fault == "kill_init" and me == who:  # dies right after MPI_Init, before its 'ready'
    import wpart.dynamic as wd

    def _die(*a, **kw):
        os.kill(os.getpid(), signal.SIGKILL)
    wd.run_mpi = _die

from wpart.dynamic.mpi import main  # noqa: E402

sys.exit(main(argv=sys.argv[3:]))
