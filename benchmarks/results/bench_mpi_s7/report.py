"""python report.py NEW.jsonl[,MORE.jsonl] BEFORE.jsonl: the tables of quality_sweep.txt (new against before,
per family, per (family, P), per instance changes)."""
import json, sys
import numpy as np
FAMS = ("sigma1.5", "deg2_beta", "deg4_beta_gamma", "cap1.05", "pinned20")
def load(paths):
    d = {}
    for p in paths:
        for line in open(p):
            r = json.loads(line); d[(r["f"], r["P"], r["s"])] = r["rel"]
    return d
def table(name, d):
    print(f"{name}: {len(d)} instances")
    print("| family | n | mean % | worst % | > 0.1 % | better |")
    print("|---|---:|---:|---:|---:|---:|")
    for f in FAMS:
        v = np.array([x for k, x in d.items() if k[0] == f])
        print(f"| {f} | {v.size} | {100*v.mean():+.2f} | {100*v.max():+.3f} | {(v > 1e-3).sum()} | {(v < -1e-9).sum()} |")
    v = np.array(list(d.values()))
    bad = sorted([(round(100*x, 3), "/".join(map(str, k))) for k, x in d.items() if x > 1e-3], reverse=True)
    print(f"| all | {v.size} | {100*v.mean():+.2f} | {100*v.max():+.3f} | {(v > 1e-3).sum()} | {(v < -1e-9).sum()} |  {bad}")
    print()
new = load(sys.argv[1].split(","))
old = load([sys.argv[2]])
bench = {k: v for k, v in new.items() if k[2] < 20}
fresh = {k: v for k, v in new.items() if k[2] >= 20}
table("AFTER, bench_mpi part (6)'s 400 (seeds 0-19, P = 8, 16, 32, 64)", bench)
table("AFTER, fresh seeds: 20-39 at P = 8, 16, 32 and 20-29 at P = 64", fresh)
table("AFTER, all", new)
table("BEFORE (a15bb83, bench_mpi_s6/quality_sweep.jsonl), bench 400", {k: v for k, v in old.items() if k[2] < 20})
table("BEFORE (a15bb83, bench_mpi_s6/quality_sweep.jsonl), fresh 350", {k: v for k, v in old.items() if k[2] >= 20})
for name, sub in (("bench", bench), ("fresh", fresh)):
    dd = {k: sub[k] - old[k] for k in sub if k in old}
    v = np.array(list(dd.values()))
    hi = sorted([(round(100*x, 3), "/".join(map(str, k)), round(100*sub[k], 3)) for k, x in dd.items() if x > 1e-3], reverse=True)
    print(f"{name}: change per instance mean {100*v.mean():+.3f} points; higher {(v > 1e-12).sum()} (by > 0.1 point {(v > 1e-3).sum()}), lower {(v < -1e-12).sum()}, equal {(abs(v) <= 1e-12).sum()}")
    print(f"  rises > 0.1 point (change, instance, now %): {hi}")
print()
print("top 5 instances nearest the bound (now %):", sorted([(round(100*v, 3), "/".join(map(str, k))) for k, v in new.items()], reverse=True)[:5])
print()
for name, sub in (("bench 400", bench), ("fresh 350", fresh)):
    print(f"{name}, mean % per (family, P):")
    for f in FAMS:
        print(f"  {f:16s} " + "  ".join(f"P{P}: {100*np.mean([v for k, v in sub.items() if k[0] == f and k[1] == P]):+.2f}" for P in (8, 16, 32, 64)))
    print()
