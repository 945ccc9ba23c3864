"""Benchmarks for wpart.tasks: CCM-LB against the GLPK optimum, scaling, LBAF, and the
peers' public data.

Four parts, one process (LBAF runs in a child process):

(a) heuristic vs exact: CCM-LB (12 seeds) against the GLPK optimum of the compact MILP on
    growing Gemma-like instances (time-limited); gap ``W_ccm / W_milp - 1`` and times.
(b) scaling: CCM-LB on Gemma-like instances from the paper's 14/1,959/206 case up to 10^5
    (``--quick``) or 10^6 tasks; wall time and W_max before/after, with the greedy baseline
    and the load-only TemperedLB-style baseline measured in the same process.
(c) LBAF side by side: the same LBDatafiles balanced by LBAF's InformAndTransfer (Clustering
    transfer with subclusters, Tempered criterion; same iterations, rounds and fanout) and by
    CCM-LB with ``subclusters=True`` (its counterpart of LBAF's subclustering); LBAF's
    result is re-scored with wpart's work model. Target: wpart at least 100x faster at equal
    or lower W_max. LBAF is found as ``import lbaf`` or under ``--lbaf-path`` (LBAF 1.0.1 is
    the release on PyPI; it needs Python <= 3.10, so on newer Pythons unpack its wheel and
    point ``--lbaf-path`` at it; its schema checker and VTK output are bypassed).
(d) the peers' data: every LBDatafile stem of LBAF's public datasets (``../shared/data/lbaf``
    when present, else the copy shipped in ``wpart/data/lbaf``) and of any folder or stem given
    on the command line, every phase (``--quick``: the first), balanced with wpart's methods
    (none, greedy, ccm, ccm ``subclusters="fill"``, tempered); W_max, imbalance, tasks
    moved, pinned tasks (``"migratable": false``) kept home, seconds. Every placement is
    re-scored by ``benchmarks/lbdatafile_eval.py``, which reads the JSON itself (no wpart
    code) and recomputes W_max and the pinned tasks moved from the raw files; the part fails
    when it disagrees with wpart by more than 1e-9 (relative) or a pinned task moved. Table
    and JSON: ``results/bench_tasks_datasets.{txt,json}``.

Run ``python benchmarks/bench_tasks.py --quick`` (under a minute); ``--only datasets [PATH
...]`` runs part (d) alone on the LBAF data and the given folders / stems. Timings are never
asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)
from lbdatafile_eval import phase_ids, read_raw, stems_in  # noqa: E402  (no wpart code)

use_wpart()

import wpart
from wpart import tasks
from wpart.tasks.datasets import lbaf_path
from wpart.experiments import format_table, write_json
from wpart.experiments.tasks_paper import MILP_SIZES, SCALING_CASES, milp_vs_ccm, weak_scaling

DATA = Path(lbaf_path(""))
TARGET_SPEEDUP = 100.0

# --------------------------------------------------------------------------------------------
# (a) heuristic vs GLPK


def part_milp(quick: bool) -> dict:
    """(a): :func:`wpart.experiments.tasks_paper.milp_vs_ccm` (shared with reproduce)."""
    sizes = MILP_SIZES[:4] if quick else MILP_SIZES
    return milp_vs_ccm(sizes, 10.0 if quick else 60.0)


# --------------------------------------------------------------------------------------------
# (b) scaling


def part_scaling(quick: bool) -> dict:
    """(b): :func:`wpart.experiments.tasks_paper.weak_scaling` plus larger cases."""
    cases = list(SCALING_CASES) + [(128, 100_000, 1536)]
    if not quick:
        cases += [(256, 300_000, 3076), (512, 1_000_000, 6144)]
    return weak_scaling(cases)


# --------------------------------------------------------------------------------------------
# (c) LBAF

_DRIVER = r'''
import json, logging, sys, time, types
class _Any(types.ModuleType):
    def __getattr__(self, name):
        return type(name, (), {})
sys.modules.setdefault("vtk", _Any("vtk"))
from lbaf.IO.lbsVTDataReader import LoadReader
from lbaf.Model.lbsPhase import Phase
from lbaf.Execution.lbsRuntime import Runtime
from lbaf.Utils.lbsLogging import get_logger
import lbaf.IO.lbsStatistics as lbstats
cfg = json.loads(sys.argv[1])
logger = get_logger()
logger.setLevel(logging.ERROR)
LoadReader.SCHEMA_VALIDATOR_CLASS = object
lbstats.initialize()
reader = LoadReader(file_prefix=cfg["stem"], logger=logger, file_suffix="json",
                    check_schema=False)
phase = Phase(logger, 0, reader=reader)
phase.populate_from_log(0)
params = {"beta": cfg["beta"], "gamma": 0.0, "delta": cfg["delta"]}
if cfg["cap"] > 0:
    params["upper_bounds"] = {"max_memory_usage": cfg["cap"]}
rt = Runtime({0: phase}, {"name": "AffineCombination", "parameters": params},
             {"name": "InformAndTransfer", "phase_id": 0, "parameters": {
                 "n_iterations": cfg["n_iter"], "n_rounds": cfg["rounds"],
                 "fanout": cfg["fanout"], "order_strategy": "arbitrary",
                 "transfer_strategy": "Clustering", "criterion": "Tempered",
                 "max_objects_per_transfer": cfg["max_objects"],
                 "deterministic_transfer": True}},
             [], logger, "", "")
t0 = time.perf_counter()
new = rt.execute(0, False)
t1 = time.perf_counter()
ph = new if new is not None else phase
assign = {str(o.get_id()): r.get_id() for r in ph.get_ranks() for o in r.get_objects()}
print("@@" + json.dumps({"seconds": t1 - t0, "assign": assign}))
'''


def _run_lbaf(lbaf_path: str | None, cfg: dict, timeout: float) -> dict | None:
    env = dict(os.environ)
    if lbaf_path:
        env["PYTHONPATH"] = os.pathsep.join([lbaf_path, env.get("PYTHONPATH", "")])
    try:
        out = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(cfg)], env=env,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    for line in out.stdout.splitlines():
        if line.startswith("@@"):
            return json.loads(line[2:])
    return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]}


def part_lbaf(quick: bool, lbaf_path: str | None) -> dict:
    """_part_lbaf with its LBDatafiles in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="wpart_bench_tasks_") as tmp:
        return _part_lbaf(quick, lbaf_path, tmp)


def _part_lbaf(quick: bool, lbaf_path: str | None, tmp: str) -> dict:
    cases = []
    if DATA.is_dir():
        cases += [("challenging_toy_fewer_tasks", str(DATA / "challenging_toy_fewer_tasks/toy"),
                   0.0, 0.0, 0.0, 8),
                  ("toy_mem (cap 8e9)", str(DATA / "user-defined-memory-toy-problem/toy_mem"),
                   0.0, 0.0, 8.0e9, 8)]
    sizes = [(14, 1959, 206)] + ([] if quick else [(64, 8955, 896)])
    for I, K, N in sizes:
        g = tasks.gemma_like(m=I, n_tasks=K, n_blocks=N, seed=0)
        g = g.with_(task_footprint=np.zeros(K), task_working=np.zeros(K))  # LBAF needs them
        stem = os.path.join(tmp, f"gemma{I}")
        g.to_lbdatafile(stem)
        # LBAF's deterministic subclustering enumerates subsets: keep them small here
        cases.append((f"gemma-like {I}/{K}/{N} delta=1e-9", stem, 0.0, 1e-9, 0.0, 4))
    rows, recs = [], []
    for name, stem, beta, delta, cap, max_obj in cases:
        p = tasks.Problem.from_lbdatafile(stem)
        cap_v = cap if cap > 0 else None
        k, f = wpart._core.tasks_knowledge(p.m, 0, 0)
        t0 = time.perf_counter()
        reps = 0
        while True:  # best-of timing within ~0.5 s
            r = tasks.balance(p, seed=0, beta=beta, delta=delta, memory_cap=cap_v, n_iter=4,
                              subclusters=True)
            reps += 1
            if time.perf_counter() - t0 > 0.5 or reps >= 20:
                break
        t_w = min(r.stats["seconds"], (time.perf_counter() - t0) / reps)
        cfg = dict(stem=stem, beta=beta, delta=delta, cap=cap, n_iter=4, rounds=k, fanout=f,
                   max_objects=max_obj)
        lb = _run_lbaf(lbaf_path, cfg, timeout=120 if quick else 600)
        if lb is None or "error" in lb:
            rec = dict(case=name, wpart_w=r.max_load, wpart_seconds=t_w, lbaf=None,
                       error=None if lb is None else lb["error"])
            rows.append([name, r.initial_max_load, r.max_load, "-", t_w, "-", "-", "n/a"])
        else:
            idx = {int(t): i for i, t in enumerate(p.task_ids)}
            a = np.array(p.initial)
            for oid, rank in lb["assign"].items():
                a[idx[int(oid)]] = rank
            wl = p.evaluate(assignment=a, beta=beta, delta=delta, memory_cap=cap_v)["w_max"]
            ratio = lb["seconds"] / t_w
            ok = ratio >= TARGET_SPEEDUP and r.max_load <= wl * (1 + 1e-12)
            rec = dict(case=name, w0=r.initial_max_load, wpart_w=r.max_load, wpart_seconds=t_w,
                       lbaf_w=wl, lbaf_seconds=lb["seconds"], speedup=ratio, target_met=ok)
            rows.append([name, r.initial_max_load, r.max_load, wl, t_w, lb["seconds"],
                         f"{ratio:.0f}x", "MET" if ok else "NOT MET"])
        recs.append(rec)
    text = format_table(["case", "W0", "W wpart", "W LBAF", "wpart s", "LBAF s", "speedup",
                         f">= {TARGET_SPEEDUP:.0f}x, W <="], rows,
                        title="(c) CCM-LB vs LBAF InformAndTransfer on the same LBDatafiles")
    return {"rows": recs, "text": text, "ok": True}


# --------------------------------------------------------------------------------------------
# (d) the peers' public data, checked by an independent evaluator

SHARED_DATA = ROOT.parent / "shared" / "data" / "lbaf"
#: Methods of part (d): label -> keyword arguments of tasks.balance.
DATASET_METHODS = [("none", dict(method="none")), ("greedy", dict(method="greedy")),
                   ("ccm", dict(method="ccm")),
                   ("ccm fill", dict(method="ccm", subclusters="fill")),
                   ("tempered", dict(method="tempered")),
                   # the former ccm (no second start from greedy's placement), and fill under
                   # a migration budget of half the tasks that fill moved
                   ("ccm, no greedy start", dict(method="ccm", greedy_start=False)),
                   ("ccm fill, half the moves", dict(method="ccm", subclusters="fill"))]
#: Work models of part (d): "load" (alpha only) and "full" (communication, on-rank bytes and
#: homing in the units of the data: seconds per byte).
DATASET_MODELS = {"full": dict(beta=1e-6, gamma=1e-7, delta=1e-9), "load": {}}
#: Memory caps of part (d) by dataset folder (LBAF's configuration of that set).
DATASET_CAPS = {"user-defined-memory-toy-problem": 8.0e9}


def dataset_stems(paths=()) -> list[str]:
    """LBAF's public stems, then those of every folder or stem in `paths`."""
    base = SHARED_DATA if SHARED_DATA.is_dir() else DATA
    out = [s for d in sorted(base.iterdir()) if d.is_dir() for s in stems_in(str(d))]
    for p in paths:
        p = str(p)
        out += stems_in(p) if os.path.isdir(p) else [p]
    return out


def _agree(w: float, w_eval: float) -> bool:
    if math.isinf(w) or math.isinf(w_eval):
        return w == w_eval
    return abs(w - w_eval) <= 1e-9 * max(abs(w), abs(w_eval)) + 1e-300


def part_datasets(quick: bool, paths=(), seed: int = 0) -> dict:
    """(d): every stem and phase with every method of :data:`DATASET_METHODS`, each
    placement re-scored by the independent evaluator."""
    rows, recs, cmp_rows = [], [], []
    ok = True
    models = ["full"] if quick else list(DATASET_MODELS)
    for stem in dataset_stems(paths):
        ids = phase_ids(stem)
        folder = os.path.basename(os.path.dirname(stem))
        cap = DATASET_CAPS.get(folder)
        name = os.path.join(folder, os.path.basename(stem))
        for ph in ids[:1] if quick else ids:
            p = tasks.Problem.from_lbdatafile(stem, phase=ph)
            raw = read_raw(stem, ph)
            for model in models:
                coef = DATASET_MODELS[model]
                got: dict = {}
                for label, kw in DATASET_METHODS:
                    if label == "ccm fill, half the moves" and "ccm fill" in got:
                        kw = dict(kw, max_moves=got["ccm fill"].stats["n_tasks_moved"] // 2)
                    rec = dict(dataset=name, phase=ph, model=model, method=label, m=p.m,
                               n_tasks=p.n_tasks, n_pinned=p.n_pinned, memory_cap=cap)
                    t0 = time.perf_counter()
                    try:
                        r = tasks.balance(p, seed=seed, memory_cap=cap, **coef, **kw)
                    except wpart.WpartError as exc:
                        rec.update(error=f"{type(exc).__name__}: {exc}")
                        recs.append(rec)
                        rows.append([name, ph, model, label, p.m, p.n_tasks, "-", "-", "-",
                                     f"-/{p.n_pinned}", "-", "refused"])
                        continue
                    secs = time.perf_counter() - t0
                    got[label] = r
                    a = np.asarray(r.assignment)
                    place = dict(zip(p.task_ids.tolist(), a.tolist()))
                    ev = raw.evaluate(place, cap=cap, **coef)
                    agree = _agree(r.max_load, ev["w_max"])
                    kept = p.n_pinned - ev["pinned_moved"]
                    good = agree and ev["pinned_moved"] == 0 and ev["moved"] == int(
                        np.count_nonzero(a != p.initial))
                    ok &= good
                    rec.update(w_max=r.max_load, w_eval=ev["w_max"], imbalance=r.imbalance,
                               lower_bound=r.lower_bound, moved=ev["moved"],
                               pinned_moved=ev["pinned_moved"], pinned_kept=kept,
                               seconds=secs, status=r.status, evaluator_agrees=agree)
                    recs.append(rec)
                    rows.append([name, ph, model, label, p.m, p.n_tasks, r.max_load,
                                 f"{100 * r.imbalance:.1f}%", ev["moved"],
                                 f"{kept}/{p.n_pinned}", secs,
                                 "yes" if good else ("W DIFFERS" if not agree else "PINNED MOVED")])
                if all(k in got for k in ("greedy", "ccm", "ccm fill")):
                    gw = got["greedy"].max_load
                    below = got["ccm"].max_load <= gw and got["ccm fill"].max_load <= gw
                    ok &= below
                    old = got.get("ccm, no greedy start")
                    bud = got.get("ccm fill, half the moves")
                    recs.append(dict(dataset=name, phase=ph, model=model, summary=True,
                                     greedy=gw, ccm=got["ccm"].max_load,
                                     ccm_no_greedy_start=old.max_load if old else None,
                                     fill=got["ccm fill"].max_load, never_above_greedy=below,
                                     fill_moved=got["ccm fill"].stats["n_tasks_moved"],
                                     budget_w=bud.max_load if bud else None,
                                     budget_moved=bud.stats["n_tasks_moved"] if bud else None))
                    cmp_rows.append([name, ph, model, gw, old.max_load if old else "-",
                                     got["ccm"].max_load, got["ccm fill"].max_load,
                                     "yes" if below else "NO",
                                     got["ccm fill"].stats["n_tasks_moved"],
                                     f"{bud.max_load:.6g} / {bud.stats['n_tasks_moved']}"
                                     if bud else "-"])
    text = format_table(["dataset", "phase", "model", "method", "m", "tasks", "W_max",
                         "imbalance", "moved", "pinned kept", "seconds", "evaluator ok"],
                        rows, title="(d) wpart on LBAF's public LBDatafiles; every placement "
                                    "re-scored from the raw JSON")
    text += "\n" + format_table(
        ["dataset", "phase", "model", "greedy W", "ccm W before (no greedy start)", "ccm W",
         "fill W", "<= greedy", "fill moved", "fill W / moved, max_moves = half"], cmp_rows,
        title="(d') ccm and fill against greedy on every phase, and fill under a migration "
              "budget")
    return {"rows": recs, "text": text, "ok": bool(ok), "models": DATASET_MODELS,
            "caps": DATASET_CAPS}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (under a minute)")
    ap.add_argument("--lbaf-path", default=os.environ.get("WPART_LBAF_PATH"),
                    help="directory holding the `lbaf` package (default: importable lbaf)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"),
                    help="folder for bench_tasks.json")
    ap.add_argument("--skip", default="",
                    help="comma list of parts to skip: milp,scaling,lbaf,datasets")
    ap.add_argument("--only", default="",
                    help="comma list of the parts to run (default: all)")
    ap.add_argument("paths", nargs="*",
                    help="LBDatafile folders or stems for part (d), beside LBAF's data")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    if args.only:
        skip |= {"milp", "scaling", "lbaf", "datasets"} - set(args.only.split(","))
    res = {"platform": platform.platform(), "python": sys.version.split()[0],
           "wpart": wpart.__version__, "quick": args.quick}
    if "milp" not in skip:
        res["milp"] = part_milp(args.quick)
        print(res["milp"]["text"], flush=True)
    if "scaling" not in skip:
        res["scaling"] = part_scaling(args.quick)
        print(res["scaling"]["text"], flush=True)
    if "lbaf" not in skip:
        res["lbaf"] = part_lbaf(args.quick, args.lbaf_path)
        print(res["lbaf"]["text"], flush=True)
    os.makedirs(args.out, exist_ok=True)
    if "datasets" not in skip:
        res["datasets"] = part_datasets(args.quick, args.paths)
        print(res["datasets"]["text"], flush=True)
        write_json(Path(args.out) / "bench_tasks_datasets.json",
                   {k: res[k] for k in ("platform", "python", "wpart", "quick", "datasets")})
        (Path(args.out) / "bench_tasks_datasets.txt").write_text(res["datasets"]["text"] + "\n")
    write_json(Path(args.out) / "bench_tasks.json", res)
    ok = all(v.get("ok", True) for v in res.values() if isinstance(v, dict))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
