"""Run by tests/test_tasks_mpi.py under mpirun: CCM-LB with one process per rank.

usage: tasks_balance.py CASES_JSON OUT_JSON
CASES_JSON holds a list of cases ``{"source": ..., "options": {...}}``; a source is
``{"generator": name, "args": {...}}`` (rank 0 builds the problem and scatters it) or
``{"stem": path}`` (each rank reads its own LBDatafile). Cases whose problem has another
number of ranks than the job are skipped. The option ``fault`` = ``[kind, rank]`` makes that
rank die (``"die"``) or hang (``"hang"``) when it is first asked for its lock (with a third item
``"proposals"``: when it first computes its proposals, in the rounds protocol).
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

cases = json.load(open(sys.argv[1]))
comm = MPI.COMM_WORLD
results = []
for case in cases:
    kw = dict(case.get("options", {}))
    fault = kw.pop("fault", None)
    if fault and comm.Get_rank() == fault[1]:
        def fail(_what=fault[0]):
            if _what == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            while True:
                time.sleep(1)
        if len(fault) > 2 and fault[2] == "proposals":  # the rounds protocol's first round
            RankProcess.proposals = lambda self: fail()
        else:
            orig = RankProcess.serve

            def serve(self, s, msg):
                if msg[0] == "LOCK_REQ":
                    fail()
                return orig(self, s, msg)

            RankProcess.serve = serve
    src = case["source"]
    if "generator" in src:
        prob = getattr(G, src["generator"])(**src["args"]) if comm.Get_rank() == 0 else None
        n = comm.bcast(prob.m if prob is not None else None, root=0)
        if n != comm.Get_size():
            results.append(None)
            continue
        data = scatter_problem(prob, comm=comm)
    else:
        data = src["stem"]
    res = balance_mpi(data, comm=comm, gather=True, **kw)
    results.append(res.to_dict() if res.rank == 0 else None)
if comm.Get_rank() == 0:
    with open(sys.argv[2], "w") as fh:
        json.dump(results, fh)
