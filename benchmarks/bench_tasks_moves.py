"""Tasks moved at equal W_max: CCM-LB's move-economy pass (``balance(..., economy=True)``).

Two parts, each run with the pass off (``economy=False``, the engine before it) and on:

(a) The analogue of LBAF's ``challenging_toy_hundreds_tasks`` phase (64 ranks, 23,709 tasks,
    memory cap 8e9), which is not in shared/data: :func:`lbaf_hundreds_like`. Its shape comes
    from the public rank files (``toy.{0..63}.json``): 4 shared blocks of 1.3e9 bytes homed on
    each rank (block id = 64 j + rank, j = 0..3), LBAF's 9.8e8-byte rank baseline, 1.1e8 bytes
    of working memory and 1,024 of footprint per task, integer task times >= 2 with a heavy
    tail, and ranks of unequal task counts (the files' sizes, 69 to 260 kB, give about 190 to
    700 tasks). The cap admits one more block per rank (5 x 1.3e9 + 9.8e8 + 1.1e8 < 8e9 < 6 x).
    Loads are scaled to 100,000 per rank on average (LBAF's challenging toys: 466k tasks on 256
    ranks have the optimum 100,000) with the heaviest block at 168,408, the W_max that LBAF and
    block-cluster CCM-LB reach on the real set. greedy, ccm and fill, without and with
    ``max_moves`` (LBAF's 18,608 and a tenth of it); W_max, tasks moved, CPU seconds.
(b) Every phase of every LBDatafile set in ``../shared/data/lbaf`` (load-only and the full
    model, LBAF's cap where it has one): ccm and fill with the pass off and on; W_max never
    higher and tasks moved never more with it.

Writes ``results/bench_tasks_moves.{json,txt}``. ``--quick``: part (b) on phase 0 only.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

from bench_tasks import DATASET_CAPS, DATASET_MODELS, dataset_stems  # noqa: E402
from lbdatafile_eval import phase_ids  # noqa: E402
from wpart import tasks  # noqa: E402
from wpart.experiments import format_table, write_json  # noqa: E402

#: LBAF on the real 23,709-task set (the issue's measurement): W_max, tasks moved, CPU-s.
LBAF_REAL = (168_408.0, 18_608, 123.0)
LBAF_CAP = 8.0e9


def cpu() -> float:
    return time.process_time()


def lbaf_hundreds_like(seed: int = 0) -> tuple[tasks.Problem, float]:
    """The analogue of LBAF's 23,709-task, 64-rank phase and its cap (8e9); see the module
    docstring for the shape and where it comes from."""
    rng = np.random.default_rng(seed)
    m, K, nb = 64, 23_709, 4
    # tasks per rank: the files' sizes (lognormal spread, about 190 to 700 tasks)
    w = rng.lognormal(0.0, 0.4, m)
    n_r = np.floor(w / w.sum() * K).astype(int)
    n_r[np.argsort(-(w / w.sum() * K - n_r))[:K - n_r.sum()]] += 1
    home = np.repeat(np.arange(m), n_r)
    # each rank's tasks split over its 4 blocks (block id = 64 j + rank)
    j = np.concatenate([rng.choice(nb, size=n, p=rng.dirichlet(np.ones(nb))) for n in n_r])
    blk = (j * m + home).astype(np.int32)
    # integer times >= 2, heavy-tailed within a block (toy.0: 2 .. 335, median about 12),
    # blocks of unequal weight; total 100,000 per rank, heaviest block 168,408
    base = rng.lognormal(np.log(12.0), 1.2, K)
    bw = rng.lognormal(0.0, 0.75, nb * m)
    top = int(np.argmax(np.bincount(blk, weights=base * bw[blk], minlength=nb * m)))
    for _ in range(60):  # the heaviest block at 168,408, the others below 95 % of it
        t = base * bw[blk]
        t *= 100_000.0 * m / t.sum()
        lb = np.bincount(blk, weights=t, minlength=nb * m)
        over = lb > 0.95 * LBAF_REAL[0]
        over[top] = False
        if abs(lb[top] - LBAF_REAL[0]) < 0.5 and not over.any():
            break
        bw[over] *= 0.95 * LBAF_REAL[0] / lb[over]
        bw[top] *= LBAF_REAL[0] / lb[top]
    times = np.maximum(2.0, np.round(t))
    p = tasks.Problem(times, m, task_block=blk, block_size=np.full(nb * m, 1.3e9),
                      block_home=(np.arange(nb * m) % m).astype(np.int32),
                      task_footprint=np.full(K, 1024.0), task_working=np.full(K, 1.1e8),
                      rank_baseline=np.full(m, 9.8e8), initial=home.astype(np.int32))
    return p, LBAF_CAP


def _run(p, cap, **kw) -> dict:
    c0 = cpu()
    r = tasks.balance(p, seed=0, memory_cap=cap, **kw)
    t = cpu() - c0
    return {"w_max": float(r.max_load), "moved": int(r.stats["n_tasks_moved"]),
            "moved_balanced": r.stats.get("n_tasks_moved_balanced"), "cpu_s": t,
            "status": r.status, "memory_max": float(r.memory.max())}


ANALOGUE_RUNS = [
    ("greedy", dict(method="greedy")),
    ("ccm", dict(method="ccm")),
    ("ccm fill", dict(method="ccm", subclusters="fill")),
    ("ccm, max_moves=18,608", dict(method="ccm", max_moves=18_608)),
    ("ccm fill, max_moves=18,608", dict(method="ccm", subclusters="fill", max_moves=18_608)),
    ("ccm fill, max_moves=1,861", dict(method="ccm", subclusters="fill", max_moves=1_861)),
]


def part_analogue() -> dict:
    p, cap = lbaf_hundreds_like()
    ev = tasks.evaluate(p, memory_cap=cap)
    shape = {"n_tasks": p.n_tasks, "m": p.m, "n_blocks": int(p.block_size.shape[0]),
             "tasks_per_rank_min": int(np.bincount(p.initial).min()),
             "tasks_per_rank_max": int(np.bincount(p.initial).max()),
             "task_time_min": float(p.task_load.min()),
             "task_time_median": float(np.median(p.task_load)),
             "task_time_max": float(p.task_load.max()),
             "heaviest_block": float(np.bincount(p.task_block, p.task_load).max()),
             "w_max_start": float(ev.max_load), "memory_max_start": float(ev.memory.max()),
             "memory_cap": cap}
    rows, recs = [], []
    for label, kw in ANALOGUE_RUNS:
        for econ in (False, True):
            if label == "greedy" and econ:
                continue
            opt = {} if label == "greedy" else {"economy": econ}
            r = _run(p, cap, **kw, **opt)
            r.update(method=label, economy=econ if label != "greedy" else None)
            recs.append(r)
            rows.append([label, "-" if label == "greedy" else ("on" if econ else "off"),
                         r["w_max"], r["moved"], r["cpu_s"], r["status"]])
    rows.append(["LBAF 1.x on the real set (the issue)", "-", LBAF_REAL[0], LBAF_REAL[1],
                 LBAF_REAL[2], "-"])
    text = ("(a) analogue of LBAF's challenging_toy_hundreds_tasks (64 ranks, 23,709 tasks, "
            f"cap 8e9): start W_max {shape['w_max_start']:.0f}, heaviest block "
            f"{shape['heaviest_block']:.0f}\n"
            + format_table(["method", "economy", "W_max", "tasks moved", "CPU-s", "status"],
                           rows))
    return {"shape": shape, "rows": recs, "text": text}


def part_shared(quick: bool) -> dict:
    rows, recs = [], []
    ok = True
    tot = {"ccm": [0, 0], "ccm fill": [0, 0]}
    for stem in dataset_stems():
        folder = os.path.basename(os.path.dirname(stem))
        cap = DATASET_CAPS.get(folder)
        name = os.path.join(folder, os.path.basename(stem))
        ids = phase_ids(stem)
        for ph in ids[:1] if quick else ids:
            p = tasks.Problem.from_lbdatafile(stem, phase=ph)
            for model, coef in DATASET_MODELS.items():
                for label, kw in (("ccm", {}), ("ccm fill", {"subclusters": "fill"})):
                    off = _run(p, cap, **coef, **kw, economy=False)
                    on = _run(p, cap, **coef, **kw)
                    good = on["w_max"] <= off["w_max"] and on["moved"] <= off["moved"]
                    ok &= good
                    tot[label][0] += off["moved"]
                    tot[label][1] += on["moved"]
                    recs.append(dict(dataset=name, phase=ph, model=model, method=label,
                                     m=p.m, n_tasks=p.n_tasks, before=off, after=on,
                                     never_worse=good))
                    rows.append([name, ph, model, label, p.n_tasks, off["w_max"], on["w_max"],
                                 off["moved"], on["moved"], off["cpu_s"], on["cpu_s"],
                                 "yes" if good else "NO"])
    text = ("(b) every shared LBDatafile phase: economy off -> on\n"
            + format_table(["dataset", "phase", "model", "method", "tasks", "W_max off",
                            "W_max on", "moved off", "moved on", "CPU-s off", "CPU-s on",
                            "ok"], rows)
            + "\n" + "; ".join(f"{k}: {v[0]:,} -> {v[1]:,} tasks moved in all"
                               for k, v in tot.items())
            + f"\nW_max never higher and never more moves: {'yes' if ok else 'NO'}")
    return {"rows": recs, "text": text, "ok": ok, "totals": tot}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="part (b) on phase 0 only")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    res = {"quick": bool(args.quick)}
    res["analogue"] = part_analogue()
    print(res["analogue"]["text"], flush=True)
    res["shared"] = part_shared(args.quick)
    print(res["shared"]["text"], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "bench_tasks_moves.json", res)
    (args.out / "bench_tasks_moves.txt").write_text(
        res["analogue"]["text"] + "\n\n" + res["shared"]["text"] + "\n")
    return 0 if res["shared"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
