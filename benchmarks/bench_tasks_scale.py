"""Scaling of wpart.tasks' serial C engines: greedy, CCM-LB, CCM-LB with ``subclusters="fill"``
and CCM-LB with communication (edges), from 23,709 to 466,018 tasks.

Instances (seeded, built here with numpy and :func:`wpart.tasks.gemma_like`):

* ``flat``: block-less tasks with log-normal loads and working memory, round-robin start
  (every task is a unit of greedy: the case whose cost was quadratic in the former greedy);
* ``blocks``: a Gemma-like phase (one block per 10 tasks, homed with its tasks);
* ``edges``: the same with two random task-to-task edges per task, ``beta = 1e-6``.

For each size the script reports CPU seconds (process time of the call), wall seconds,
``W_max`` before/after and the iterations done (CCM-LB runs its default 4 iterations,
``edges`` one iteration, each under ``time_limit=600``). The former engines are measured in
the same process when ``--before-lib`` names a build of them (a shared library of
``csrc/tasks`` and ``csrc/base`` at an earlier commit, loaded with ctypes); otherwise the
numbers recorded when they were last measured on this machine are printed as ``before``
(:data:`RECORDED_BEFORE`, with their source). The ``exhaustive`` column runs the same engine
with FindBestCCM's exhaustive scan (``tasks_ccm(exhaustive=True)``, the reference of the
tests) at the sizes where it finishes quickly: the same placement, and the ratio of the
pruned scan.

The scaling slope is the least-squares exponent of CPU time against tasks at a fixed rank
count (3+ sizes). Timings are never asserted.

Fill scaling (``--fill-scaling``, also run after the main table): ``subclusters="fill"`` on the
``blocks`` phase at a fixed rank count (256; 64 in quick mode), doubling the tasks: CPU
seconds, exchanges of the 4 iterations, milliseconds per exchange and the exponent between
consecutive sizes, beside the engine before the rebuild after an exchange, the sub-cluster
scan and the per-pair parts were made to cost O(clusters + changed tasks) instead of
O(tasks per rank) (:data:`FILL_BEFORE`, measured on this machine under the same load); the
``same`` column checks that the placement and the ``W_max`` history are those of the former
engine, bit for bit (hash).

Fill under a binding memory cap (``--capped``, also run after the main table): an LBAF-like
phase (:func:`capped_instance`: 4 shared blocks of 1.6e9 bytes per rank, LBAF's 9.8e8-byte
rank baseline, per-task working memory and footprint) with a cap of 1.05 times the largest
rank memory of the start (no rank can take a fifth block; the best placement known under it,
fill's, keeps that memory), at 58k-466k tasks on 256 ranks: CPU seconds of
``subclusters="fill"`` (4 iterations, greedy start off: the engine alone), the exponent, the
former engine (:data:`CAPPED_BEFORE`, same machine) and whether the placement and history are
the former engine's, bit for bit, with and without the cap; then, on the same capped phase:
greedy, default ``ccm`` and ``fill`` (greedy start on: never above greedy) with the tasks they
move, and ``fill`` under a migration budget of half its moves (``max_moves``).

Run ``python benchmarks/bench_tasks_scale.py --quick`` (seconds) or without ``--quick``
(several minutes on one core). Results: table on stdout, JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import math
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402

use_wpart()

from wpart import _core, tasks  # noqa: E402
from wpart.experiments import format_table, write_json  # noqa: E402
from wpart.tasks._problem import Coefficients  # noqa: E402

SIZES_FULL = [(23_709, 64), (100_000, 256), (233_009, 256), (466_018, 256)]
SIZES_QUICK = [(3_000, 16), (6_000, 16), (12_000, 16)]
METHODS = ("greedy", "ccm", "ccm_fill", "ccm_edges")
TIME_LIMIT = 600.0

#: The former engines (commit 41710b3, before pinned tasks, the O(K log K + K m) greedy and
#: the pruned FindBestCCM), CPU seconds on this machine for the instances of this script;
#: at 466,018 tasks the numbers of the issue that asked for this work (LBDatafile phase of
#: 256 ranks; same engines).
RECORDED_BEFORE = {
    ("greedy", 23_709, 64): (0.12, "measured (former engine, same instance)"),
    ("ccm", 23_709, 64): (1.80, "measured (former engine, same instance)"),
    ("ccm_fill", 23_709, 64): (9.13, "measured (former engine, same instance)"),
    ("ccm_edges", 23_709, 64): (11.19, "measured (former engine, same instance)"),
    ("greedy", 466_018, 256): (82.5, "issue report (LBDatafile phase)"),
    ("ccm_fill", 466_018, 256): (math.inf, "issue report: not finished after 725 s"),
    ("ccm_edges", 466_018, 256): (math.inf, "issue report: no iteration in 14 min"),
}


FILL_SIZES_FULL = [(58_252, 256), (116_504, 256), (233_009, 256), (466_018, 256)]
FILL_SIZES_QUICK = [(6_000, 64), (12_000, 64), (24_000, 64)]

#: ``subclusters="fill"`` with the engine of commit 5146075 (before the cluster rebuild by key,
#: the sub-cluster scan by cluster runs and the per-pair parts built only when tried): CPU
#: seconds, exchanges and the hash of placement + W_max history (``placement_hash``), measured
#: on this machine (2 cores shared with other jobs, load 4-8), alternating with the engine of
#: commit f1dd271, which took 2.71 / 4.68 / 11.0 / 23.95 CPU-s at the four full sizes in those
#: runs (its units were still copied whole after each exchange; now moved in place).
FILL_BEFORE: dict[tuple[int, int], tuple[float, int, str]] = {
    (6_000, 64): (0.117, 3_272, "8dd27091cb09f70b"),
    (12_000, 64): (0.199, 4_408, "2e04f6d26498c962"),
    (24_000, 64): (0.527, 5_167, "e45ad426c4c5d3a6"),
    (58_252, 256): (4.368, 44_609, "2616885cc98614ed"),
    (116_504, 256): (9.989, 51_214, "e12fd4682e1423b6"),
    (233_009, 256): (23.081, 66_431, "64eb655180319543"),
    (466_018, 256): (62.3, 103_986, "d760c612d1ffc2ae"),
}


def placement_hash(r) -> str:
    """The first 16 hex digits of SHA-1 over the assignment (int64) and W_max history."""
    return hashlib.sha1(np.asarray(r.assignment, np.int64).tobytes()
                        + np.asarray(r.history, np.float64).tobytes()).hexdigest()[:16]


def fill_scaling(sizes: list[tuple[int, int]]) -> list[dict]:
    """``subclusters="fill"`` at each size: CPU seconds, exchanges, time per exchange, the
    exponent against the previous size, and the former engine beside it."""
    rows: list[dict] = []
    for K, m in sizes:
        p = instance("blocks", K, m)
        c0 = cpu()
        r = tasks.balance(p, method="ccm", subclusters="fill", seed=0, time_limit=TIME_LIMIT)
        t = cpu() - c0
        ex = int(sum(r.stats["exchanges_per_iteration"]))
        row = {"n_tasks": K, "m": m, "cpu_s": t, "exchanges": ex,
               "exchanges_per_iteration": list(r.stats["exchanges_per_iteration"]),
               "ms_per_exchange": 1e3 * t / max(ex, 1), "w_max": r.max_load,
               "status": r.status, "hash": placement_hash(r)}
        if (K, m) in FILL_BEFORE:
            bt, bex, bh = FILL_BEFORE[(K, m)]
            row.update(before_cpu_s=bt, before_exchanges=bex,
                       before_ms_per_exchange=1e3 * bt / max(bex, 1),
                       same_as_before=bh == row["hash"] and bex == ex)
        if rows and rows[-1]["m"] == m:
            q = rows[-1]
            lk = math.log(K / q["n_tasks"])
            row["exponent"] = math.log(t / q["cpu_s"]) / lk if t > 0 and q["cpu_s"] > 0 else None
            if "before_cpu_s" in row and "before_cpu_s" in q:
                row["before_exponent"] = math.log(row["before_cpu_s"] / q["before_cpu_s"]) / lk
        rows.append(row)
        print(f"  fill K={K} m={m}: {t:.2f} CPU-s, {ex} exchanges", file=sys.stderr, flush=True)
    return rows


CAPPED_SIZES_QUICK = [(6_000, 64), (12_000, 64), (24_000, 64)]
CAPPED_SIZES_FULL = FILL_SIZES_FULL

#: The capped fill with the engine of commit 0748ed9 (before the one-block sub-cluster units got
#: their working memory in O(1) and one-way moves of a block onto a rank without room for it
#: were skipped unevaluated): CPU seconds, exchanges, the hash with the cap and the hash
#: without it (same instance, greedy start off), measured on this machine (2 cores shared
#: with other jobs).
CAPPED_BEFORE: dict[tuple[int, int], tuple[float, int, str, str]] = {
    (6_000, 64): (0.136, 1_037, "da68fc2d3de4ce8c", "f2867c903695a3e0"),
    (12_000, 64): (0.318, 1_022, "26e5f5d62883ac04", "7d1d286c7f77bb3f"),
    (24_000, 64): (0.413, 1_055, "06fe2dde12d05a96", "c3e9f8df9f9938e3"),
    (58_252, 256): (4.912, 8_129, "60c88798e09508a9", "6b1c1d66e7ef281d"),
    (116_504, 256): (9.236, 7_689, "bd4df3623a521d68", "75d61aa274fc2650"),
    (233_009, 256): (16.255, 6_857, "663d3fadc1a229de", "92861ddcf52bd722"),
    (466_018, 256): (33.617, 6_827, "4718a852a13fd9cd", "52d5529af2c857f3"),
}


def capped_instance(K: int, m: int) -> tuple[tasks.Problem, float]:
    """The LBAF-like phase of the capped section and its cap (1.05 x the start's largest rank
    memory)."""
    p = tasks.gemma_like(m=m, n_tasks=K, n_blocks=4 * m, seed=0, block_bytes=1.6e9,
                         block_spread=0.0, working_bytes=1e7, footprint_bytes=1e5,
                         rank_baseline=9.8e8, even_blocks=True)
    return p, 1.05 * float(tasks.evaluate(p).memory.max())


def capped_scaling(sizes: list[tuple[int, int]]) -> list[dict]:
    """Fill under the binding cap at each size (items 1-3 of the capped phase)."""
    rows: list[dict] = []
    for K, m in sizes:
        p, cap = capped_instance(K, m)
        c0 = cpu()
        r = tasks.balance(p, method="ccm", subclusters="fill", seed=0, memory_cap=cap,
                          greedy_start=False, time_limit=TIME_LIMIT)
        t = cpu() - c0
        ex = int(sum(r.stats["exchanges_per_iteration"]))
        free = tasks.balance(p, method="ccm", subclusters="fill", seed=0, greedy_start=False,
                             time_limit=TIME_LIMIT)
        row = {"n_tasks": K, "m": m, "memory_cap": cap, "cpu_s": t, "exchanges": ex,
               "w_max_initial": r.initial_max_load, "w_max": r.max_load, "status": r.status,
               "memory_max": float(r.memory.max()), "n_tasks_moved": r.stats["n_tasks_moved"],
               "hash": placement_hash(r), "hash_no_cap": placement_hash(free),
               "w_max_no_cap": free.max_load}
        if (K, m) in CAPPED_BEFORE:
            bt, bex, bh, bh0 = CAPPED_BEFORE[(K, m)]
            row.update(before_cpu_s=bt, before_exchanges=bex,
                       same_as_before=bh == row["hash"] and bex == ex,
                       same_as_before_no_cap=bh0 == row["hash_no_cap"])
        if rows and rows[-1]["m"] == m:
            q = rows[-1]
            lk = math.log(K / q["n_tasks"])
            row["exponent"] = math.log(t / q["cpu_s"]) / lk if t > 0 and q["cpu_s"] > 0 else None
            if "before_cpu_s" in row and "before_cpu_s" in q:
                row["before_exponent"] = math.log(row["before_cpu_s"] / q["before_cpu_s"]) / lk
        g = tasks.balance(p, method="greedy", memory_cap=cap)
        cc = tasks.balance(p, method="ccm", seed=0, memory_cap=cap, time_limit=TIME_LIMIT)
        ff = tasks.balance(p, method="ccm", subclusters="fill", seed=0, memory_cap=cap,
                           time_limit=TIME_LIMIT)
        budget = max(r.stats["n_tasks_moved"] // 2, 1)
        bb = tasks.balance(p, method="ccm", subclusters="fill", seed=0, memory_cap=cap,
                           max_moves=budget, time_limit=TIME_LIMIT)
        row.update(greedy_w_max=g.max_load, greedy_moved=g.stats["n_tasks_moved"],
                   ccm_w_max=cc.max_load, ccm_moved=cc.stats["n_tasks_moved"],
                   ccm_greedy_start=cc.stats["greedy_start"], fill_w_max=ff.max_load,
                   fill_moved=ff.stats["n_tasks_moved"], fill_greedy_start=ff.stats["greedy_start"],
                   budget=budget, budget_w_max=bb.max_load,
                   budget_moved=bb.stats["n_tasks_moved"],
                   never_above_greedy=cc.max_load <= g.max_load and ff.max_load <= g.max_load)
        rows.append(row)
        print(f"  capped K={K} m={m}: {t:.2f} CPU-s, {ex} exchanges", file=sys.stderr,
              flush=True)
    return rows


def capped_table(rows: list[dict]) -> str:
    def f(v, fmt):
        return "-" if v is None else format(v, fmt)
    yn = {True: "yes", False: "NO"}
    t1 = format_table(
        ["tasks", "m", "cap", "before CPU s", "CPU s", "exch", "before exp", "exp", "W0", "W",
         "same (cap)", "same (no cap)"],
        [[r["n_tasks"], r["m"], f"{r['memory_cap']:.3g}", f(r.get("before_cpu_s"), ".2f"),
          f(r["cpu_s"], ".2f"), r["exchanges"], f(r.get("before_exponent"), ".2f"),
          f(r.get("exponent"), ".2f"), f(r["w_max_initial"], ".4g"), f(r["w_max"], ".4g"),
          yn.get(r.get("same_as_before"), "-"), yn.get(r.get("same_as_before_no_cap"), "-")]
         for r in rows],
        title='subclusters="fill" under a binding memory cap (4 iterations, greedy start off)')
    t2 = format_table(
        ["tasks", "greedy W / moved", "ccm W / moved", "fill W / moved", "<= greedy",
         "budget", "fill W / moved within it"],
        [[r["n_tasks"], f"{r['greedy_w_max']:.4g} / {r['greedy_moved']}",
          f"{r['ccm_w_max']:.4g} / {r['ccm_moved']}",
          f"{r['fill_w_max']:.4g} / {r['fill_moved']}", yn[r["never_above_greedy"]],
          r["budget"], f"{r['budget_w_max']:.4g} / {r['budget_moved']}"] for r in rows],
        title="the same capped phase: greedy, default ccm and fill (greedy start on), "
              "fill under max_moves")
    return t1 + "\n" + t2


def fill_table(rows: list[dict]) -> str:
    def f(v, fmt):
        return "-" if v is None else format(v, fmt)
    body = [[r["n_tasks"], r["m"], f(r.get("before_cpu_s"), ".2f"), f(r["cpu_s"], ".2f"),
             f(r.get("before_exchanges"), "d"), r["exchanges"],
             f(r.get("before_ms_per_exchange"), ".3f"), f(r["ms_per_exchange"], ".3f"),
             f(r.get("before_exponent"), ".2f"), f(r.get("exponent"), ".2f"),
             {True: "yes", False: "NO"}.get(r.get("same_as_before"), "-")] for r in rows]
    return format_table(["tasks", "m", "before CPU s", "CPU s", "before exch", "exch",
                         "before ms/exch", "ms/exch", "before exp", "exp", "same"], body,
                        title='subclusters="fill": cost by size at a fixed m (exponent: vs the '
                              'previous size)')


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def instance(kind: str, K: int, m: int) -> tasks.Problem:
    if kind == "flat":
        rng = np.random.default_rng(0)
        return tasks.Problem(rng.lognormal(0.0, 1.0, K) * 1e-3, m,
                             task_working=rng.uniform(1e5, 1e6, K),
                             task_footprint=rng.uniform(1e3, 1e4, K),
                             initial=np.arange(K) % m)
    comm = 2.0 if kind == "edges" else 0.0
    return tasks.gemma_like(m=m, n_tasks=K, n_blocks=max(K // 10, m), seed=0, comm_degree=comm)


def run(method: str, p: tasks.Problem) -> dict:
    kw = {"greedy": dict(method="greedy"),
          "ccm": dict(method="ccm"),
          "ccm_fill": dict(method="ccm", subclusters="fill"),
          "ccm_edges": dict(method="ccm", beta=1e-6, n_iter=1)}[method]
    if method != "greedy":
        kw["time_limit"] = TIME_LIMIT
    if method == "greedy" and p.n_edges:
        kw["beta"] = 1e-6
    c0, t0 = cpu(), time.perf_counter()
    r = tasks.balance(p, seed=0, **kw)
    return {"cpu_s": cpu() - c0, "wall_s": time.perf_counter() - t0, "w_max": r.max_load,
            "w_max_initial": r.initial_max_load, "status": r.status,
            "iterations": r.stats.get("iterations_done", kw.get("n_iter", 4))
            if method != "greedy" else None, "assignment": r.assignment}


def exhaustive(method: str, p: tasks.Problem) -> tuple[float, np.ndarray]:
    """CPU seconds of the same engine with FindBestCCM's exhaustive scan, and its placement."""
    beta = 1e-6 if method == "ccm_edges" else 0.0
    c = Coefficients(alpha=1.0, beta=beta)
    split = 3 if method == "ccm_fill" else 0
    c0 = cpu()
    a, _, _, _ = _core.tasks_ccm(p._dict(None), c.as_tuple(), np.array(p.initial, np.int32),
                                 n_iter=1 if method == "ccm_edges" else 4, singles=split,
                                 split_always=split >= 2, exhaustive=True)
    return cpu() - c0, a


class Before:
    """The former engines through ctypes (``--before-lib``)."""

    class Prob(ctypes.Structure):
        _fields_ = ([("n_ranks", ctypes.c_int32), ("n_tasks", ctypes.c_int32),
                     ("n_blocks", ctypes.c_int32), ("n_edges", ctypes.c_int64)]
                    + [(n, ctypes.c_void_p) for n in (
                        "task_load", "task_footprint", "task_working", "task_block",
                        "block_size", "block_home", "edge_src", "edge_dst", "edge_bytes",
                        "rank_baseline", "rank_mem_cap", "rank_alpha")])

    class Coef(ctypes.Structure):
        _fields_ = [("alpha", ctypes.c_double), ("beta", ctypes.c_double),
                    ("gamma", ctypes.c_double), ("delta", ctypes.c_double),
                    ("enforce_memory", ctypes.c_int)]

    class Prm(ctypes.Structure):
        _fields_ = [(n, ctypes.c_int32) for n in ("n_iter", "n_rounds", "fanout", "n_trials")] \
            + [("seed", ctypes.c_uint64), ("cluster", ctypes.c_int32),
               ("order_random", ctypes.c_int32), ("tol", ctypes.c_double),
               ("comm_tau", ctypes.c_double)] \
            + [(n, ctypes.c_int32) for n in ("one_way", "split_always", "explore",
                                             "exact_ranking", "allow_infeasible_start",
                                             "singles")] \
            + [("control", ctypes.c_void_p)]

    class Rep(ctypes.Structure):
        _fields_ = [("w_max_initial", ctypes.c_double), ("w_max_final", ctypes.c_double)] \
            + [(n, ctypes.c_int32) for n in ("best_trial", "n_exchanges", "n_tasks_moved",
                                             "time_limit_reached", "n_trials_done",
                                             "n_iter_done")] \
            + [("w_max_history", ctypes.c_void_p), ("exch_history", ctypes.c_void_p)]

    def __init__(self, path: str):
        self.lib = ctypes.CDLL(path)

    def _prob(self, p):
        d, keep, s = p._dict(None), [], self.Prob()
        s.n_ranks, s.n_tasks, s.n_blocks, s.n_edges = p.m, p.n_tasks, p.n_blocks, p.n_edges
        for k, _ in self.Prob._fields_[4:]:
            a = d.get(k)
            if a is None or (np.size(a) == 0 and k != "task_load"):
                continue
            a = np.ascontiguousarray(a)
            keep.append(a)
            setattr(s, k, a.ctypes.data)
        return s, keep

    def run(self, method: str, p) -> tuple[float, np.ndarray]:
        s, keep = self._prob(p)
        beta = 1e-6 if method == "ccm_edges" or (method == "greedy" and p.n_edges) else 0.0
        c = self.Coef(1.0, beta, 0.0, 0.0, 1)
        c0 = cpu()
        if method == "greedy":
            a = np.empty(p.n_tasks, np.int32)
            st = self.lib.wpart_tasks_greedy(ctypes.byref(s), ctypes.byref(c),
                                             a.ctypes.data_as(ctypes.c_void_p))
        else:
            prm, rep = self.Prm(), self.Rep()
            self.lib.wpart_tasks_lb_params_init(ctypes.byref(prm))
            prm.n_iter = 1 if method == "ccm_edges" else 4
            prm.singles = 3 if method == "ccm_fill" else 0
            prm.split_always = int(method == "ccm_fill")
            a = np.array(p.initial, np.int32)
            st = self.lib.wpart_tasks_ccm(ctypes.byref(s), ctypes.byref(c), ctypes.byref(prm),
                                          a.ctypes.data_as(ctypes.c_void_p), ctypes.byref(rep))
        if st != 0:
            raise RuntimeError(f"former engine failed with status {st}")
        return cpu() - c0, a


def slope(points: list[tuple[int, float]]) -> float | None:
    pts = [(k, t) for k, t in points if t > 0 and math.isfinite(t)]
    if len(pts) < 3:
        return None
    x = np.log([k for k, _ in pts])
    y = np.log([t for _, t in pts])
    return float(np.polyfit(x, y, 1)[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    ap.add_argument("--out", type=Path, default=None, help="JSON path")
    ap.add_argument("--before-lib", default=None,
                    help="shared library of the former engines (measured in this process)")
    ap.add_argument("--before-max", type=int, default=23_709,
                    help="largest task count at which the former engines are run")
    ap.add_argument("--exhaustive-max", type=int, default=23_709,
                    help="largest task count at which the exhaustive scan is run")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--fill-scaling", action="store_true",
                    help='only the subclusters="fill" scaling section (its own JSON)')
    ap.add_argument("--capped", action="store_true",
                    help="only the section under a binding memory cap (its own JSON)")
    args = ap.parse_args()
    if args.capped:
        crows = capped_scaling(CAPPED_SIZES_QUICK if args.quick else CAPPED_SIZES_FULL)
        print(capped_table(crows))
        out = args.out or ROOT / "benchmarks" / "results" / (
            "bench_tasks_scale_capped_quick.json" if args.quick
            else "bench_tasks_scale_capped.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        write_json(out, {"quick": args.quick, "machine": platform.platform(),
                         "python": sys.version.split()[0], "capped": crows})
        print(f"written {out}")
        return 0
    if args.fill_scaling:
        frows = fill_scaling(FILL_SIZES_QUICK if args.quick else FILL_SIZES_FULL)
        print(fill_table(frows))
        out = args.out or ROOT / "benchmarks" / "results" / (
            "bench_tasks_scale_fill_quick.json" if args.quick else "bench_tasks_scale_fill.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        write_json(out, {"quick": args.quick, "machine": platform.platform(),
                         "python": sys.version.split()[0], "fill_scaling": frows})
        print(f"written {out}")
        return 0
    sizes = SIZES_QUICK if args.quick else SIZES_FULL
    methods = [m for m in args.methods.split(",") if m]
    before = Before(args.before_lib) if args.before_lib else None
    rows, table = [], []
    for K, m in sizes:
        probs = {}
        for meth in methods:
            kind = {"greedy": "flat", "ccm_edges": "edges"}.get(meth, "blocks")
            if kind not in probs:
                probs[kind] = instance(kind, K, m)
            p = probs[kind]
            r = run(meth, p)
            row = {"method": meth, "n_tasks": K, "m": m, "n_edges": p.n_edges,
                   **{k: v for k, v in r.items() if k != "assignment"}}
            if before is not None and K <= args.before_max:
                t, a = before.run(meth, p)
                row.update(before_cpu_s=t, before_source="measured in this run",
                           before_same_assignment=bool(np.array_equal(a, r["assignment"])))
            elif (meth, K, m) in RECORDED_BEFORE:
                t, src = RECORDED_BEFORE[(meth, K, m)]
                row.update(before_cpu_s=t, before_source=src)
            if meth != "greedy" and K <= args.exhaustive_max and r["status"] != "time_limit":
                t, a = exhaustive(meth, p)
                row.update(exhaustive_cpu_s=t,
                           exhaustive_same_assignment=bool(np.array_equal(a, r["assignment"])))
            rows.append(row)
            b = row.get("before_cpu_s")
            table.append([meth, K, m, row["cpu_s"], row["wall_s"],
                          "-" if b is None else ("not finished" if math.isinf(b) else b),
                          "-" if b is None or not math.isfinite(b) else b / row["cpu_s"],
                          row.get("exhaustive_cpu_s", "-"), row["w_max_initial"],
                          row["w_max"], row["status"]])
            print(f"  {meth} K={K} m={m}: {row['cpu_s']:.2f} CPU-s", file=sys.stderr,
                  flush=True)
    slopes = {}
    for meth in methods:
        by_m: dict[int, list] = {}
        for r in rows:
            if r["method"] == meth and r["status"] != "time_limit":
                by_m.setdefault(r["m"], []).append((r["n_tasks"], r["cpu_s"]))
        for mm, pts in by_m.items():
            s = slope(pts)
            if s is not None:
                slopes[f"{meth}@m={mm}"] = s
    print(format_table(["method", "tasks", "m", "CPU s", "wall s", "before CPU s", "ratio",
                        "exhaustive CPU s", "W0", "W", "status"], table,
                       title="wpart.tasks serial engines: time by size (CPU seconds of the call)"))
    print("scaling exponent (CPU ~ tasks^k, fixed m): " +
          ", ".join(f"{k}: {v:.2f}" for k, v in slopes.items()))
    frows = fill_scaling(FILL_SIZES_QUICK if args.quick else FILL_SIZES_FULL)
    print(fill_table(frows))
    crows = capped_scaling(CAPPED_SIZES_QUICK if args.quick else CAPPED_SIZES_FULL)
    print(capped_table(crows))
    out = args.out or ROOT / "benchmarks" / "results" / (
        "bench_tasks_scale_quick.json" if args.quick else "bench_tasks_scale.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_json(out, {"quick": args.quick, "machine": platform.platform(),
                     "python": sys.version.split()[0], "rows": rows, "slopes": slopes,
                     "fill_scaling": frows, "capped": crows})
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
