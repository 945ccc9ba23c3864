"""An MPI program for tests/test_sigint.py: one long run_mpi that a SIGINT interrupts.

Run under ``mpirun -np N python tests/_sigint_mpi.py DIR``. Every rank writes its pid to
``DIR/pid.<rank>`` before the run, the root prints READY once all ranks are in; a rank that
gets KeyboardInterrupt writes the time (CLOCK_MONOTONIC, shared with the test) to
``DIR/int.<rank>`` and lets it end the process. Each block sleeps 1 ms per element, chunks of
one element: the run would last about 10^9 / (N - 1) ms.
"""

from __future__ import annotations

import os
import sys
import time

import wpart.dynamic as wd
from mpi4py import MPI

out = sys.argv[1]
comm = MPI.COMM_WORLD
me, size = comm.Get_rank(), comm.Get_size()
n = 10**9
task = wd.CallableTask(lambda o, s: time.sleep(1e-3 * s), n)
bal = wd.Greedy(size - 1, n, chunk=1) if me == 0 else None
with open(os.path.join(out, f"pid.{me}"), "w") as f:
    f.write(str(os.getpid()))
comm.Barrier()
if me == 0:
    print("READY", flush=True)
try:
    wd.run_mpi(bal, task, lambda r, s: wd.CallableWorker(lambda o, k: time.sleep(1e-3 * k)))
    print("FINISHED", me, flush=True)
except KeyboardInterrupt:
    with open(os.path.join(out, f"int.{me}"), "w") as f:
        f.write(repr(time.monotonic()))
    raise
