"""Run ``python -m wpart.tasks.mpi`` with a fault injected (tests/test_tasks_mpi_faults.py).

usage: tasks_cli_fault.py FAULT RANK [wpart.tasks.mpi arguments...]
FAULT: ``none``; ``stop_start`` (rank RANK stops itself with SIGSTOP before MPI starts);
``die_write`` (rank RANK writes half of its output file, then SIGKILLs itself).
"""
import json
import os
import signal
import sys

fault, who = sys.argv[1], int(sys.argv[2])
me = int(os.environ.get("OMPI_COMM_WORLD_RANK", "-1"))
if fault == "stop_start" and me == who:
    os.kill(os.getpid(), signal.SIGSTOP)
if fault == "die_write" and me == who:
    real = json.dump

    def dump(obj, fh, **kw):
        text = json.dumps(obj, **kw)
        fh.write(text[:len(text) // 2])
        fh.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    json.dump = dump

from wpart.tasks.mpi import main  # noqa: E402

sys.exit(main(argv=sys.argv[3:]))
