"""python evalset.py OUT.jsonl SET [shard nshard]; SET: bench (seeds 0-19, P 8/16/32/64) | fresh
(seeds 20-39 at P 8/16/32, seeds 20-29 at P 64)"""
import json, sys, time, os
sys.path.insert(0, "/work/main/benchmarks")
import numpy as np
import wpart.tasks as t
from _mpi_parts import _family, FAMILIES
out, which = sys.argv[1], sys.argv[2]
shard, nsh = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (0, 1)
if which == "bench":
    inst = [(f, P, s) for P in (8, 16, 32, 64) for f in FAMILIES for s in range(20)]
elif which == "fresh":
    inst = [(f, P, s) for P in (8, 16, 32) for f in FAMILIES for s in range(20, 40)]
    inst += [(f, 64, s) for f in FAMILIES for s in range(20, 30)]
else:
    inst = [tuple(x.split("/")) for x in which.split(",")]
    inst = [(f, int(P[1:]), int(s[1:])) for f, P, s in inst]
inst = inst[shard::nsh]
fo = open(out, "w")
for f, P, s in inst:
    p, kw = _family(f, P, s)
    c0 = time.process_time()
    a = t.balance(p, seed=s, n_iter=4, **kw).max_work
    b = t.balance(p, seed=s, n_iter=4, backend="ranks", protocol="rounds", **kw)
    fo.write(json.dumps({"k": f"{f}/P{P}/s{s}", "f": f, "P": P, "s": s, "ser": a, "rnd": b.max_work,
                         "rel": b.max_work / a - 1, "cpu": time.process_time() - c0}) + "\n")
    fo.flush()
