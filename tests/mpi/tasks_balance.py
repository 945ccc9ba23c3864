"""Run by tests/test_tasks_mpi.py under mpirun: CCM-LB with one process per rank.

usage: tasks_balance.py SOURCE OUT_JSON [key=value ...]
SOURCE is ``gen:<name>:<args>`` (every rank builds the problem, rank 0 scatters it) or an
LBDatafile stem (each rank reads its own file). Options are passed to balance_mpi; the
special ``fault=<kind>:<rank>`` makes a rank die (``die``) or hang (``hang``) when it is first
asked for its lock.
"""
import json
import os
import signal
import sys
import time

from mpi4py import MPI

from wpart.tasks import generators as G
from wpart.tasks._ranks import RankProcess
from wpart.tasks.mpi import balance_mpi, scatter_problem

src, out_json = sys.argv[1], sys.argv[2]
kw = {}
for a in sys.argv[3:]:
    k, v = a.split("=", 1)
    kw[k] = v if k in ("cluster", "subclusters", "out", "fault", "on_failure") else float(v) \
        if "." in v or "e" in v else int(v)
comm = MPI.COMM_WORLD
fault = kw.pop("fault", None)
if fault:
    what, who = fault.split(":")
    if comm.Get_rank() == int(who):
        orig = RankProcess.serve

        def serve(self, s, msg):
            if msg[0] == "LOCK_REQ":
                if what == "die":
                    os.kill(os.getpid(), signal.SIGKILL)
                while True:
                    time.sleep(1)
            return orig(self, s, msg)

        RankProcess.serve = serve
if src.startswith("gen:"):
    _, name, arg = src.split(":", 2)
    args = json.loads(arg)
    prob = getattr(G, name)(**args) if comm.Get_rank() == 0 else None
    data = scatter_problem(prob, comm)
else:
    data = src
res = balance_mpi(data, comm, gather=True, **kw)
if res.rank == 0:
    with open(out_json, "w") as fh:
        json.dump(res.to_dict(), fh)
