"""Parts (5) and (6) of ``benchmarks/bench_mpi.py``: when MPI pays, and the quality families.

(5) Crossover, in-process (CPU clocks: ``time.process_time`` for the serial C engine, the
    rank engine's schedule model in ``time.thread_time``): per P, the serial C engine's CPU
    seconds per iteration for the whole phase; ``protocol="rounds"``'s modelled critical path
    per iteration (proposals in parallel, then the disjoint pairs in parallel, messages free)
    and its ratio to the serial engine; bytes sent per rank per iteration (mean and max) for
    rounds and for ``protocol="gather"`` (each rank's records once to rank 0, rank 0 the
    scattered records); the gather's modelled time (engine CPU + rank 0 receiving and sending
    every byte over the stated network); the choice of ``protocol="auto"``.
(6) Quality on five families the earlier benchmark did not use (``load_sigma=1.5``;
    ``comm_degree=2`` with beta; ``comm_degree=4`` with beta and gamma; a memory cap 1.05x the
    largest initial rank; 20 % of the tasks pinned): W_max of ``rounds`` and of ``auto`` against
    the serial ccm engine (same seed, 4 iterations), per family: mean and worst relative
    difference and the instances worse by more than 0.1 %.
"""
from __future__ import annotations

import time

import numpy as np

from wpart import tasks
from wpart.experiments import format_table
from wpart.tasks.generators import gemma_like

N_ITER = 4
REPS = 3  # part (5): runs of each engine, the least CPU time kept
NET = {"latency_s": 2e-6, "bandwidth_Bps": 10e9, "label": "2 us latency, 10 GB/s"}


def _instance(P: int):
    return gemma_like(m=P, n_tasks=140 * P, n_blocks=15 * P, seed=0, comm_degree=1.0)


def part_crossover(quick: bool) -> dict:
    rows, recs = [], []
    for P in ((8, 16, 32) if quick else (16, 32, 64, 128)):
        p = _instance(P)
        # CPU clocks on a shared machine: the least of `reps` runs of each (same results)
        t_c = crit = serial = float("inf")
        for _ in range(1 if quick else REPS):
            c0 = time.process_time()
            ser = tasks.balance(p, seed=0, n_iter=N_ITER)
            t_c = min(t_c, (time.process_time() - c0) / N_ITER)
            r = tasks.balance(p, backend="ranks", protocol="rounds", seed=0, n_iter=N_ITER)
            sch = r.stats["schedule"]
            crit = min(crit, float(np.mean(sch["critical_path_s"])))
            serial = min(serial, float(np.mean(sch["serial_s"])))
        g = tasks.balance(p, backend="ranks", protocol="gather", seed=0, n_iter=N_ITER)
        a = tasks.balance(p, backend="ranks", protocol="auto", seed=0, n_iter=N_ITER)
        gb = np.asarray(g.stats["bytes_per_rank"], float)
        rb = np.asarray(r.stats["bytes_per_rank"], float)
        # rank 0 receives every other rank's records and sends them their new records
        root_bytes = (gb[1:].sum() + gb[0]) * N_ITER
        t_gather = t_c + (root_bytes / NET["bandwidth_Bps"] + 2 * (P - 1) * NET["latency_s"]) \
            / N_ITER
        rec = {"P": P, "n_tasks": p.n_tasks, "serial_c_cpu_s_per_iter": t_c,
               "rounds_serial_s_per_iter": serial, "rounds_critical_path_s_per_iter": crit,
               "rounds_crit_over_serial_c": crit / max(t_c, 1e-12),
               "rounds_bytes_per_rank_per_iter_mean": float(rb.mean()),
               "rounds_bytes_per_rank_per_iter_max": float(rb.max()),
               "gather_bytes_per_rank_per_iter_mean": float(gb.mean()),
               "gather_bytes_root_per_iter": float(gb[0]),
               "gather_modelled_s_per_iter": t_gather,
               "w_max_serial": ser.max_work, "w_max_rounds": r.max_work,
               "w_max_gather": g.max_work, "auto_chose": a.stats["protocol"],
               "rounds_per_iter": [d["rounds"] for d in sch["rounds"]],
               "pairs_per_round": [d["pairs"] for d in sch["rounds"]],
               "critical_path_s_per_iter_list": list(sch["critical_path_s"]),
               "reps": 1 if quick else REPS}
        recs.append(rec)
        rows.append([P, t_c, crit, rec["rounds_crit_over_serial_c"], rb.mean(), gb.mean(),
                     t_gather, rec["auto_chose"], ser.max_work, r.max_work, g.max_work])
    by = {r["P"]: r for r in recs}
    growth = None
    if 32 in by and 128 in by:
        growth = (by[128]["rounds_bytes_per_rank_per_iter_mean"]
                  / by[32]["rounds_bytes_per_rank_per_iter_mean"])
    text = format_table(
        ["P", "serial C CPU s/iter", "rounds crit. path s/iter", "crit / serial C",
         "rounds bytes/rank/iter", "gather bytes/rank/iter", f"gather s/iter ({NET['label']})",
         "auto", "W_max serial", "W_max rounds", "W_max gather"], rows,
        title="(5) When MPI pays: gemma_like(P, 140P, 15P, comm_degree=1), 4 iterations, CPU "
              "clocks (serial C engine: process_time; rounds' schedule model: thread_time)")
    if growth is not None:
        text += f"\nrounds bytes per rank per iteration, P = 128 / P = 32: {growth:.2f}x"
    return {"rows": recs, "text": text, "bytes_growth_128_over_32": growth}


def _family(name: str, P: int, seed: int):
    """``(problem, balance options)`` of one instance of a quality family."""
    n, b = 40 * P, 6 * P
    if name == "sigma1.5":
        return gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed, load_sigma=1.5), {}
    if name in ("deg2_beta", "deg4_beta_gamma"):
        deg = 2.0 if name == "deg2_beta" else 4.0
        p = gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed, comm_degree=deg)
        beta = 0.5 * float(np.mean(p.task_load)) / max(float(np.mean(p.edge_bytes)), 1e-300)
        kw = {"beta": beta}
        if deg == 4.0:
            kw["gamma"] = 0.1 * beta
        return p, kw
    if name == "cap1.05":
        p = gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed, footprint_bytes=1e6,
                       working_bytes=1e6)
        mem = p.evaluate()["memory"]
        return p, {"memory_cap": 1.05 * float(np.max(mem))}
    if name == "pinned20":
        p = gemma_like(m=P, n_tasks=n, n_blocks=b, seed=seed)
        rng = np.random.default_rng(seed + 7)
        return p.with_(migratable=rng.random(n) >= 0.2), {}
    raise ValueError(name)


FAMILIES = ("sigma1.5", "deg2_beta", "deg4_beta_gamma", "cap1.05", "pinned20")


def part_quality(quick: bool) -> dict:
    Ps = (8, 16) if quick else (8, 16, 32, 64)
    seeds = range(3) if quick else range(20)
    recs, rows = [], []
    for fam in FAMILIES:
        diffs = {"rounds": [], "auto": []}
        for P in Ps:
            for s in seeds:
                p, kw = _family(fam, P, s)
                ser = tasks.balance(p, seed=s, n_iter=N_ITER, **kw).max_work
                for proto in diffs:
                    w = tasks.balance(p, backend="ranks", protocol=proto, seed=s,
                                      n_iter=N_ITER, **kw).max_work
                    d = w / ser - 1.0 if ser > 0 else 0.0
                    diffs[proto].append(d)
                    recs.append({"family": fam, "P": P, "seed": s, "protocol": proto,
                                 "w_max": w, "w_max_serial": ser, "rel": d})
        for proto, d in diffs.items():
            d = np.asarray(d)
            rows.append([fam, proto, d.size, 100 * d.mean(), 100 * d.max(),
                         int((d > 1e-3).sum()), int((d < -1e-9).sum())])
    text = format_table(
        ["family", "protocol", "instances", "mean vs serial ccm %", "worst %",
         "worse > 0.1 %", "better"], rows,
        title=f"(6) Quality against the serial ccm engine (W_max, same seed, {N_ITER} "
              f"iterations), P = {', '.join(map(str, Ps))}, {len(seeds)} seeds, 40 tasks "
              "per rank")
    return {"rows": recs, "text": text}
