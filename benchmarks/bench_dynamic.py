"""wpart.dynamic benchmarks: B1-B6 (the paper's Sec. 5), solver, engine, balancer overhead.

* B1-B6 on the synthetic stand-in platforms (``Platform.preset``), each printed beside the
  paper's claim with MATCH / DIFFERS and the reason (computed by
  :mod:`wpart.experiments.dynamic_paper`, the same code as ``wpart reproduce dynamic``);
  Greedy-best is always reported beside Greedy(1024).
* The equal-time block-sizing solve against SciPy on the same system
  (``bench_dynamic_solver.py``): the paper needs about 100 ms per solve with IPOPT.
* Event-engine speed (``bench_dynamic_sim.py``; target >= 1 M events/s).
* Balancer overhead per completion: ``on_complete`` of every balancer inside the C
  simulator (engine time per block with the balancer minus the same run with Static) and
  through Python.

``python benchmarks/bench_dynamic.py [--quick]`` prints the tables and writes
``benchmarks/results/bench_dynamic.json``; ``--fidelity before|after`` runs only the paper's
headline table (PLB-HAC against Greedy(1024), HDSS and PLB-HeC on paper5 and hetero3, 10
seeds, W = 2^20; paper5 against HDSS for W = 2^20 ... 2^26) and stores it under that label in
``benchmarks/results/bench_dynamic_fidelity.json``. Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import numpy as np  # noqa: E402

import bench_dynamic_sim  # noqa: E402
import bench_dynamic_solver  # noqa: E402
import wpart  # noqa: E402
import wpart.dynamic as D  # noqa: E402
from wpart.experiments import dynamic_paper as P  # noqa: E402
from wpart.experiments import format_table, jsonable  # noqa: E402
from wpart.experiments._verdict import format_verdicts  # noqa: E402


def overhead(quick: bool) -> dict[str, Any]:
    """Balancer cost per completion, in the simulator (C) and through Python."""
    pl = D.Platform.preset("paper5")
    W = 2**18 if quick else 2**20
    m, kinds = pl.m, pl.kinds
    makers = {
        "Greedy(256)": lambda: D.Greedy(m, W, chunk=256),
        "PLB-HAC/paper": lambda: D.PLBHAC(m, W, pu_kinds=kinds),
        "PLB-HAC/robust": lambda: D.PLBHAC(m, W, pu_kinds=kinds, preset="robust"),
        "HDSS": lambda: D.HDSS(m, W),
        "PLB-HeC": lambda: D.PLBHeC(m, W, pu_kinds=kinds),
    }
    rows = []
    for name, make in makers.items():
        best = np.inf
        r = None
        for _ in range(2 if quick else 3):
            r = D.simulate(pl, make(), seed=0, trace=False, eval_cost=0.1)
            best = min(best, r.stats["wall_seconds"])
        # through Python: replay the same completions with a scripted loop
        bal = make()
        acts = bal.start(0.0)
        t_py, calls = 0.0, 0
        queue = [a for a in acts if a.kind == "assign"]
        evals = [a for a in acts if a.kind == "eval"]
        now = 0.0
        while queue or evals:
            if evals:
                e = evals.pop()
                bal.eval_run(e.token)
                t0 = time.perf_counter()
                out = bal.eval_done(e.token, now)
                t_py += time.perf_counter() - t0
                calls += 1
            else:
                a = queue.pop(0)
                now += 0.01
                t0 = time.perf_counter()
                out = bal.on_complete(a.pu, a.block_id, 0.0, a.size * 1e-4 + 0.001, now)
                t_py += time.perf_counter() - t0
                calls += 1
            queue += [x for x in out if x.kind == "assign"]
            evals += [x for x in out if x.kind == "eval"]
        rows.append({"balancer": name, "blocks": r.n_blocks, "evals": r.n_evals,
                     "sim_us_per_block": 1e6 * best / max(r.n_blocks, 1),
                     "python_us_per_call": 1e6 * t_py / max(calls, 1)})
    text = format_table(["balancer", "blocks", "evals", "sim us/block (engine + balancer + fits)",
                         "Python us/call"],
                        [[r["balancer"], r["blocks"], r["evals"], r["sim_us_per_block"], r["python_us_per_call"]]
                         for r in rows],
                        title=f"Balancer overhead per completion (paper5, W = 2^{int(np.log2(W))}; "
                              "simulated, stand-in platform)")
    return {"rows": rows, "text": text}


FIDELITY_JSON = ROOT / "benchmarks" / "results" / "bench_dynamic_fidelity.json"


def fidelity(label: str, quick: bool, out: Path = FIDELITY_JSON) -> dict[str, Any]:
    """The headline table of the paper (PLB-HAC / Greedy(1024), HDSS, PLB-HeC on paper5 and
    hetero3, and the W sweep against HDSS) with the presets as built, stored under `label`
    ("before" / "after") in `out`, or ("causes") the one-knob-at-a-time isolation of the
    losses; prints every label stored so far."""
    seeds = range(2) if quick else range(10)
    sweep = (20, 22) if quick else (20, 22, 24, 26)
    t0 = time.perf_counter()
    if label == "causes":
        d = P.fidelity_causes(seeds=seeds, W_big=2**22 if quick else 2**24)
    else:
        # "before": the presets of the earlier release, spelled out as explicit options
        cfg = P.PRESETS_BEFORE if label == "before" else P.PRESETS_NOW
        d = P.fidelity_table(seeds=seeds, sweep=sweep, configs=cfg)
    d["seconds"] = time.perf_counter() - t0
    d["wpart"] = wpart.__version__
    d["quick"] = quick
    doc = json.loads(out.read_text()) if out.exists() else {}
    doc[label] = jsonable(d)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    for lab in ("before", "after"):
        if lab in doc:
            print(P.fidelity_text(doc[lab], f"{lab} ({'quick' if doc[lab].get('quick') else 'full'})"))
            print()
    if "causes" in doc:
        print(P.causes_text(doc["causes"]))
        print()
    print(f"wrote {out} [{label}] ({d['seconds']:.0f} s)")
    return d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bench_dynamic.json")
    ap.add_argument("--fidelity", choices=("before", "after", "causes"),
                    help="only the paper's headline table (PLB-HAC / baselines, W sweep), stored "
                         "under this label in benchmarks/results/bench_dynamic_fidelity.json")
    a = ap.parse_args(argv)
    if a.fidelity:
        fidelity(a.fidelity, a.quick)
        return 0
    t0 = time.perf_counter()
    res: dict[str, Any] = {"quick": a.quick, "wpart": wpart.__version__, "platform": platform.platform(),
                           "python": sys.version.split()[0]}
    verdicts, report = [], []
    for name, fn in (("b1", lambda: P.b1_makespan(a.quick)), ("b2", lambda: P.b2_shares(a.quick)),
                     ("b3", lambda: P.b3_idle(a.quick)), ("b4", lambda: P.b4_adapt(a.quick)),
                     ("b5", lambda: P.b5_overhead(a.quick)), ("b6", lambda: P.b6_training(a.quick))):
        print(f"[bench_dynamic] {name.upper()} ...", flush=True)
        d, vs, rep = fn()
        verdicts += vs
        report += rep
        if name == "b4":
            d = {c: {k: v for k, v in x.items() if k in ("rho_star", "factor", "paper_ratio", "paper_time")} |
                 {p: {k: v for k, v in x[p].items() if k in ("ratio_paper_time", "ratio45", "ratio40", "gpuB_up", "makespan")}
                  for p in ("paper", "robust")} for c, x in d.items()}
        res[name] = d
    b1 = res["b1"]
    rows = [[d["app"], f"2^{int(np.log2(d['W']))}", d["machines"], d["makespan"]["PLB-HAC/paper"],
             d["makespan"]["PLB-HAC/robust"], d["makespan"]["PLB-HeC"], d["makespan"]["HDSS"],
             d["makespan"]["Greedy(1024)"], f"{d['makespan'][d['greedy_best']]:.1f} ({d['greedy_best']})",
             d["oracle_stepped"]] for d in b1]
    print(format_table(["app", "W", "machines", "PLB-HAC/paper", "PLB-HAC/robust", "PLB-HeC", "HDSS",
                        "Greedy(1024)", "Greedy-best", "oracle_stepped"], rows,
                       title="B1 mean makespans (s; simulated, stand-in platforms)"))
    print()
    print(format_verdicts(verdicts, "B1-B6: the paper's claims beside ours (simulated, stand-in platforms)"))
    print(format_table(["id", "report only", "ours"], report, title="Reported without a verdict"))
    print()
    print("[bench_dynamic] solver vs SciPy ...", flush=True)
    res["solver"] = bench_dynamic_solver.run(a.quick)
    print(bench_dynamic_solver.report(res["solver"]))
    print()
    print("[bench_dynamic] event engine ...", flush=True)
    res["engine"] = bench_dynamic_sim.run(a.quick)
    print(res["engine"]["text"])
    print()
    res["overhead"] = overhead(a.quick)
    print(res["overhead"]["text"])
    res["verdicts"] = [v.to_dict() for v in verdicts]
    res["report"] = report
    res["seconds"] = time.perf_counter() - t0
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(jsonable(res), indent=1, allow_nan=False) + "\n")
    print(f"\nwrote {a.out} ({res['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
