"""An MPI program for tests/test_dynamic_mpi.py: bad arguments of run_mpi raise on every rank
before any message is sent (the checks need no communication), and a valid run still works
afterwards. The root writes a JSON list of the outcomes to argv[1]."""

import json
import sys

import numpy as np

import wpart
import wpart.dynamic as wd
from mpi4py import MPI

comm = MPI.COMM_WORLD
task = wd.GemmColumnsTask(np.ones((4, 4)), np.ones((4, 40)))
m = comm.Get_size() - 1
bal = wd.Greedy(max(m, 1), 40, chunk=8)
cases = {
    "on_rank_failure": dict(on_rank_failure="retry"),
    "timeout": dict(timeout=0),
    "timeout_type": dict(timeout="5"),
    "heartbeat": dict(heartbeat=-1.0),
    "pus_per_rank": dict(pus_per_rank=0),
    "root": dict(root=comm.Get_size()),
    "poll": dict(poll=float("nan")),
    "ok_args": dict(),  # valid arguments: fails only with one rank
}
out = []
for name, kw in cases.items():
    if name == "ok_args" and comm.Get_size() > 1:
        continue
    try:
        wd.run_mpi(bal.fresh(), task, wd.ThreadWorker(), **kw)
        out.append([name, "no error", ""])
    except (ValueError, TypeError) as exc:  # the built-in each wpart error derives from
        kind = "ValueError" if isinstance(exc, ValueError) else "TypeError"
        out.append([name, kind, str(exc), isinstance(exc, wpart.WpartError)])
if comm.Get_size() >= 2:
    res = wd.run_mpi(bal.fresh() if comm.Get_rank() == 0 else None, task, wd.ThreadWorker(), timeout=10)
    if comm.Get_rank() == 0:
        out.append(["valid", bool(task.verify()), res.n_blocks])
if comm.Get_rank() == 0:
    with open(sys.argv[1], "w") as f:
        json.dump(out, f)
