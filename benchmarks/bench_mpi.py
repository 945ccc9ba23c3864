"""Benchmarks for the distributed engines: CCM-LB over MPI, its projection to 256 ranks.

Three parts, one process (the MPI runs are ``mpirun`` children):

(1) tasks over MPI: for P = 1, 2, 4, 8 processes (oversubscribed when P exceeds the cores of
    this machine; said in the table and the JSON) on a Gemma-like instance scaled with P
    (``gemma_like(P, 140 P, 15 P, seed=0)``) written to per-rank LBDatafiles,
    ``mpirun -np P python -m wpart.tasks.mpi``: seconds per iteration (mean of the ranks'
    ``iteration_seconds``, read on rank 0), messages and bytes rank 0 sent per iteration, and
    W_max before/after. Baselines in the same process on the same LBDatafiles: the in-process
    rank engine (``backend="ranks"``) and the serial C engine (``balance(problem)``), as
    ratios. The MPI result must equal the in-process rank engine's (W_max and assignment):
    MATCH / DIFFERS.
(2) PROJECTION to 256 ranks / 466,018 tasks / 1,024 blocks (the shape of LBAF's largest
    public dataset, challenging_toy_thousands_tasks, which is not shipped here): the serial C
    engine is run on a synthetic instance of that shape (measured); the distributed run is
    projected from the in-process rank engine measured at 16/32 (full: also 64/128) ranks
    with ~1,820 tasks and 4 blocks per rank. Bound model: ranks take their turns one at a time
    in the seeded order, so one distributed iteration costs ``P * t_turn(P) + L * S(P)``, with
    ``t_turn(P) = a P^b`` fitted to the measured per-turn cost, ``S(P)`` the sequential
    messages of an iteration (a turn notice per turn, three per lock: LOCK_REQ, LOCK_GRANT,
    RELEASE, and two per exchange: GIVE, GIVE_BACK) and ``L`` a one-way message latency (0
    for the compute-only figure; the latency measured in part (1) otherwise). The MPI engine
    overlaps turns on disjoint ranks (wpart.tasks._mpi_turns): the concurrent figure divides
    the compute-only bound by the schedule's parallelism (serial / critical-path seconds of
    the transfer stages, measured in-process at each P, fitted ``c P^d``). Message counts per
    rank per iteration: INFORM at most ``f k`` (log rule), ``P - 1`` ANNOUNCE and ``P - 1``
    TURN_DONE, locks and exchanges fitted as ``c P^d`` to the measured counts. Every projected
    number is labelled PROJECTION.
(3) The dynamic part: ``bench_dynamic_mpi.run(quick)`` when that module exists.

Run ``python benchmarks/bench_mpi.py --quick`` (about a minute). Timings are never asserted.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import pickle
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

WPART_DIR = use_wpart()

import wpart  # noqa: E402
from wpart import tasks  # noqa: E402
from wpart.experiments import format_table, write_json  # noqa: E402
from wpart.tasks.generators import gemma_like  # noqa: E402

MPIRUN = shutil.which("mpirun")
N_ITER = 4
CORES = os.cpu_count() or 1
LBAF_SHAPE = (256, 466_018, 1_024)
LOCK_KINDS = ("LOCK_REQ", "LOCK_GRANT", "GIVE", "GIVE_BACK", "RELEASE")


# --------------------------------------------------------------------------------------------
# mpirun (the environment of tests/oracles/mpirun.py: as root, oversubscribed, on loopback)


def mpi_env() -> dict:
    env = dict(os.environ)
    env.update({
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        "OMPI_MCA_btl": "self,tcp",
        "OMPI_MCA_btl_tcp_if_include": "lo",
        "OMPI_MCA_oob_tcp_if_include": "lo",
        "PYTHONPATH": os.pathsep.join([str(WPART_DIR.parent)] + [
            p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]),
        "OMP_NUM_THREADS": "1",
    })
    return env


def run_mpi(n: int, args: list, timeout: float) -> tuple:
    """``mpirun -np n python args...``: (return code, stdout, stderr, wall seconds)."""
    cmd = [MPIRUN, "-np", str(n), "--oversubscribe", sys.executable, *map(str, args)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env(), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # mpirun and every rank it started
        out, err = proc.communicate()
        return -9, out, err + f"\ntimeout after {timeout} s", time.perf_counter() - t0
    return proc.returncode, out, err, time.perf_counter() - t0


def mpi_available() -> str | None:
    """None when mpirun and mpi4py are there, else why not."""
    if MPIRUN is None:
        return "mpirun not found (openmpi-bin)"
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed"
    return None


# --------------------------------------------------------------------------------------------
# (1) tasks over MPI


def _best_seconds(fn, reps: int) -> tuple:
    best, res = np.inf, None
    for _ in range(reps):
        r = fn()
        if r.stats["seconds"] < best:
            best, res = r.stats["seconds"], r
    return best, res


def _per_iter(p, reps: int, **kw) -> tuple:
    """Seconds per iteration of ``balance(p, **kw)`` (best of `reps`, its setup measured with
    ``n_iter=0`` taken off, as the MPI run's iteration_seconds leave out input) and the run."""
    tasks.balance(p, seed=0, n_iter=1, **kw)  # warm up (imports, first allocations)
    t0, _ = _best_seconds(lambda: tasks.balance(p, seed=0, n_iter=0, **kw), reps)
    t, r = _best_seconds(lambda: tasks.balance(p, seed=0, n_iter=N_ITER, **kw), reps)
    return max(t - t0, 0.0) / N_ITER, r


def part_mpi(quick: bool, tmp: str) -> dict:
    why = mpi_available()
    if why:
        return {"available": False, "why": why, "text": f"(1) tasks over MPI: skipped: {why}"}
    reps = 1 if quick else 3
    rows, recs = [], []
    for P in (1, 2, 4, 8):
        g = gemma_like(m=P, n_tasks=140 * P, n_blocks=15 * P, seed=0)
        stem = os.path.join(tmp, f"g{P}")
        g.to_lbdatafile(stem)
        p = tasks.Problem.from_lbdatafile(stem)  # the data the MPI ranks read
        runs = []
        for rep in range(reps):
            summ = os.path.join(tmp, f"s{P}_{rep}.json")
            rc, out, err, wall = run_mpi(P, ["-m", "wpart.tasks.mpi", stem, "--out",
                                             os.path.join(tmp, f"o{P}"), "--json", summ,
                                             "--seed", 0, "--n-iter", N_ITER],
                                         timeout=120 if quick else 300)
            if rc != 0:
                runs.append({"error": (err or out).strip().splitlines()[-3:], "rc": rc})
                break
            with open(summ) as fh:
                d = json.load(fh)
            d["mpirun_wall_seconds"] = wall
            runs.append(d)
        ok_runs = [d for d in runs if "error" not in d]
        t_rk, rr = _per_iter(p, reps, backend="ranks")
        t_c, rc_ = _per_iter(p, max(reps, 5))
        oversub = P > CORES
        rec = {"P": P, "n_tasks": p.n_tasks, "n_blocks": int(p.n_blocks),
               "oversubscribed": oversub, "cores": CORES,
               "ranks_seconds_per_iter": t_rk, "c_seconds_per_iter": t_c,
               "ranks_w_max": rr.max_load, "c_w_max": rc_.max_load,
               "ranks_messages_per_rank_per_iter": {k: v / P / N_ITER for k, v in
                                                    rr.stats["messages"].items()}}
        if not ok_runs:
            rec["error"] = runs[-1]
            rows.append([P, p.n_tasks, "yes" if oversub else "no", "-", "-", "-",
                         rr.initial_max_load, "-", rr.max_load, "-", t_rk, "-",
                         t_c, "-", "MPI FAILED"])
            recs.append(rec)
            continue
        best = min(ok_runs, key=lambda d: np.mean(d["iteration_seconds"]))
        s_it = float(np.mean(best["iteration_seconds"]))
        per_kind = {k: v / N_ITER for k, v in best["messages"].items() if k != "DIRECTORY"}
        msgs = float(sum(per_kind.values()))
        byts = best["bytes_sent"] / N_ITER
        a = np.empty(p.n_tasks, np.int64)
        idx = np.searchsorted(np.asarray(p.task_ids), np.asarray(best["task_ids"]))
        a[idx] = best["assignment"]
        same = (best["max_load"] == rr.max_load and
                bool(np.array_equal(a, np.asarray(rr.assignment))))
        rec.update({"mpi_seconds_per_iter": s_it,
                    "mpi_iteration_seconds": best["iteration_seconds"],
                    "mpi_seconds": best["seconds"],
                    "mpirun_wall_seconds": best["mpirun_wall_seconds"],
                    "messages_per_rank_per_iter": msgs, "messages_by_kind_per_iter": per_kind,
                    "directory_messages": best["messages"].get("DIRECTORY", 0),
                    "bytes_per_rank_per_iter": byts, "w_max_before": best["initial_max_load"],
                    "w_max_after": best["max_load"], "exchanges_per_iteration":
                    best["exchanges_per_iteration"], "match_ranks": same,
                    "ratio_mpi_vs_ranks": s_it / max(t_rk, 1e-12),
                    "ratio_mpi_vs_c": s_it / max(t_c, 1e-12), "repeats": len(ok_runs)})
        recs.append(rec)
        rows.append([P, p.n_tasks, "yes" if oversub else "no", s_it, msgs, byts,
                     best["initial_max_load"], best["max_load"], rr.max_load,
                     sum(best["exchanges_per_iteration"]), t_rk,
                     f"{s_it / max(t_rk, 1e-12):.1f}x", t_c,
                     f"{s_it / max(t_c, 1e-12):.0f}x", "MATCH" if same else "DIFFERS"])
    text = format_table(
        ["P", "tasks", f"oversub ({CORES} cores)", "MPI s/iter", "msgs/rank/iter",
         "bytes/rank/iter", "W0", "W MPI", "W ranks", "exch", "ranks s/iter", "MPI/ranks",
         "C s/iter", "MPI/C", "MPI == ranks"], rows,
        title=f"(1) CCM-LB over MPI (mpirun -np P, {N_ITER} iterations, seed 0; gemma_like(P, "
              "140P, 15P); messages and bytes: sent by rank 0, the one-time edge directory "
              "left out of the counts, in the bytes; P=1 has no peers; best of "
              f"{reps} run(s))")
    return {"available": True, "rows": recs, "text": text, "n_iter": N_ITER,
            "oversubscribed_note": f"P > {CORES} processes share {CORES} cores"}


def latency_from_mpi(part1: dict) -> float | None:
    """One-way message latency L seen here: (MPI - in-process) time per iteration over the
    sequential messages of an iteration, at the largest P measured."""
    cand = [r for r in part1.get("rows", []) if "mpi_seconds_per_iter" in r and r["P"] > 1]
    if not cand:
        return None
    r = max(cand, key=lambda r: r["P"])
    m = r["ranks_messages_per_rank_per_iter"]
    seq = r["P"] * (1 + sum(m.get(k, 0.0) for k in LOCK_KINDS))
    return max(r["mpi_seconds_per_iter"] - r["ranks_seconds_per_iter"], 0.0) / seq


# --------------------------------------------------------------------------------------------
# (2) projection to 256 ranks


def _fit_power(x, y) -> tuple:
    """``y = a x^b`` by least squares in log-log; (a, b)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.maximum(np.asarray(y, float), 1e-300))
    b, la = np.polyfit(lx, ly, 1)
    return float(np.exp(la)), float(b)


def _pickled(obj) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def part_projection(quick: bool, latency: float | None) -> dict:
    from wpart.tasks._rankdata import split_problem

    P_big, K_big, N_big = LBAF_SHAPE
    tpr, bpr = K_big / P_big, N_big // P_big
    # the serial C engine on the full shape: measured
    t0 = time.perf_counter()
    big = gemma_like(m=P_big, n_tasks=K_big, n_blocks=N_big, seed=0)
    t_gen = time.perf_counter() - t0
    c_iter, rc = _per_iter(big, 1 if quick else 2)
    k_big, f_big = wpart._core.tasks_knowledge(P_big, 0, 0)
    # the rank engine, measured at smaller P with the same tasks and blocks per rank
    meas = []
    for P in ((16, 32) if quick else (16, 32, 64, 128)):
        g = gemma_like(m=P, n_tasks=int(round(tpr * P)), n_blocks=bpr * P, seed=0)
        r = tasks.balance(g, seed=0, n_iter=N_ITER, backend="ranks")
        m = {k: v / P / N_ITER for k, v in r.stats["messages"].items()}
        meas.append({"label": "MEASURED", "P": P, "n_tasks": g.n_tasks, "n_blocks": g.n_blocks,
                     "seconds": r.stats["seconds"], "turn_seconds":
                     r.stats["seconds"] / (N_ITER * P), "w_max_before": r.initial_max_load,
                     "w_max_after": r.max_load, "messages_per_rank_per_iter": m,
                     "n_rounds": r.stats["n_rounds"], "fanout": r.stats["fanout"],
                     "schedule_parallelism": sum(r.stats["schedule"]["serial_s"])
                     / max(sum(r.stats["schedule"]["critical_path_s"]), 1e-12)})
    Ps = [d["P"] for d in meas]
    a_t, b_t = _fit_power(Ps, [d["turn_seconds"] for d in meas])
    a_l, b_l = _fit_power(Ps, [d["messages_per_rank_per_iter"].get("LOCK_REQ", 0) for d in meas])
    a_g, b_g = _fit_power(Ps, [max(d["messages_per_rank_per_iter"].get("GIVE", 0), 1e-9)
                               for d in meas])
    a_c, b_c = _fit_power(Ps, [d["schedule_parallelism"] for d in meas])
    par = max(1.0, a_c * P_big ** b_c)
    turn = a_t * P_big ** b_t
    # the local slope between the two largest P measured (the cost grows faster at larger P)
    b_loc = float(np.log(meas[-1]["turn_seconds"] / meas[-2]["turn_seconds"])
                  / np.log(Ps[-1] / Ps[-2]))
    turn_loc = meas[-1]["turn_seconds"] * (P_big / Ps[-1]) ** b_loc
    locks = a_l * P_big ** b_l
    gives = a_g * P_big ** b_g
    inform = float(k_big * f_big)
    notices = 2.0 * (P_big - 1)  # ANNOUNCE and TURN_DONE of every turn
    sent = inform + notices + 2 * locks + gives + locks + gives  # as locker + as server (mean)
    # bytes: pickled sizes on the 256-rank instance (what the Channel sends)
    parts = split_problem(big, np.asarray(big.initial), big.caps(None))
    rd = parts[:8]
    grant = float(np.mean([_pickled(("LOCK_GRANT", d)) for d in rd]))
    summ = float(np.mean([_pickled({d.rank: d.summary(True)}) for d in rd]))
    per_task = float(np.mean([_pickled(d) / max(d.n_tasks, 1) for d in rd]))
    cluster = per_task * K_big / N_big
    notice = float(_pickled((0, 0, 0, 0)))
    bytes_rank = (locks * grant + 2 * gives * cluster + inform * summ * (P_big / 2)
                  + notices * notice)
    compute = P_big * turn
    seq = P_big * (1 + 3 * locks + 2 * gives)
    proj = {"label": "PROJECTION", "P": P_big, "n_tasks": K_big, "n_blocks": N_big,
            "model": ("T_iter = P * t_turn(P) + L * S(P); t_turn(P) = a P^b fitted to the "
                      "in-process rank engine (seconds / (n_iter P), gossip and setup included) at "
                      f"P = {Ps} with {tpr:.0f} tasks and {bpr} blocks per rank; S(P) = "
                      "P * (1 notice + 3 lock messages per lock + 2 per exchange) sequential "
                      "messages; msgs/rank/iter = f k INFORM (upper bound) + (P - 1) notices "
                      "+ 3 per lock + 2 per exchange (lock/exchange counts fitted c P^d); "
                      "bytes = locks * pickled rank data + exchanges * 2 * pickled cluster + "
                      "INFORM * P/2 summaries + notices"),
            "turn_fit": {"a": a_t, "b": b_t}, "lock_fit": {"c": a_l, "d": b_l},
            "exchange_fit": {"c": a_g, "d": b_g},
            "turn_seconds": turn, "compute_seconds_per_iter": compute,
            "local_slope": {"b": b_loc, "from_P": Ps[-2:], "turn_seconds": turn_loc,
                            "compute_seconds_per_iter": P_big * turn_loc},
            "latency_seconds": latency,
            "seconds_per_iter_with_latency": None if latency is None else
            compute + latency * seq, "sequential_messages_per_iter": seq,
            "messages_per_rank_per_iter": sent,
            "messages_by_kind_per_rank_per_iter": {"INFORM (<=)": inform,
                                                   "TURN_DONE": notices, "LOCK_REQ": locks,
                                                   "GIVE": gives},
            "bytes_per_rank_per_iter": bytes_rank,
            "pickled_bytes": {"lock_grant": grant, "summary": summ, "per_task": per_task,
                              "notice": notice},
            "ratio_vs_c": compute / c_iter if c_iter > 0 else None,
            "concurrent": {"model": "turns on disjoint ranks overlap (wpart.tasks._mpi_turns): "
                           "parallelism = serial / critical-path seconds of the transfer "
                           "stages, measured in-process at each P (free messages), fitted "
                           "c P^d", "fit": {"c": a_c, "d": b_c}, "parallelism": par,
                           "compute_seconds_per_iter": compute / par}}
    out = {"c_engine": {"label": "MEASURED", "P": P_big, "n_tasks": K_big, "n_blocks": N_big,
                        "generator": f"gemma_like({P_big}, {K_big}, {N_big}, seed=0)",
                        "generate_seconds": t_gen, "seconds_per_iter": c_iter,
                        "w_max_before": rc.initial_max_load, "w_max_after": rc.max_load,
                        "n_rounds": k_big, "fanout": f_big},
           "ranks_measured": meas, "projection": proj}
    rows = [[f"ranks engine P={d['P']} (measured)", d["n_tasks"], d["seconds"] / N_ITER,
             d["turn_seconds"], sum(d["messages_per_rank_per_iter"].values()), "-",
             d["w_max_before"], d["w_max_after"]] for d in meas]
    rows.append([f"serial C engine P={P_big} (measured)", K_big, c_iter, "-", "-", "-",
                 rc.initial_max_load, rc.max_load])
    rows.append([f"PROJECTION distributed P={P_big}, compute only", K_big, compute, turn, sent,
                 bytes_rank, "-", "-"])
    rows.append([f"PROJECTION P={P_big}, concurrent turns (x{par:.1f})", K_big,
                 compute / par, turn, sent, bytes_rank, "-", "-"])
    if len(Ps) > 2:
        rows.append([f"PROJECTION P={P_big}, compute only, slope of P={Ps[-2]}..{Ps[-1]}",
                     K_big, P_big * turn_loc, turn_loc, sent, bytes_rank, "-", "-"])
    if latency is not None:
        rows.append([f"PROJECTION distributed P={P_big}, + L={latency * 1e3:.2f} ms/msg (here)",
                     K_big, compute + latency * seq, turn, sent, bytes_rank, "-", "-"])
    text = format_table(
        ["case", "tasks", "s/iter", "s/turn", "msgs/rank/iter", "bytes/rank/iter", "W0", "W"],
        rows, title=f"(2) PROJECTION to {P_big} ranks / {K_big:,} tasks / {N_big:,} blocks "
                    "(challenging_toy_thousands_tasks' shape; synthetic gemma_like stand-in)")
    text += (f"\nPROJECTION model: {proj['model']}.\nFits: t_turn = {a_t:.3g} P^{b_t:.2f} s; "
             f"locks/rank/iter = {a_l:.3g} P^{b_l:.2f}; exchanges/rank/iter = "
             f"{a_g:.3g} P^{b_g:.2f}; k={k_big}, f={f_big}; local turn-cost slope between "
             f"P={Ps[-2]} and {Ps[-1]}: P^{b_loc:.2f}; schedule parallelism measured "
             f"{[round(d['schedule_parallelism'], 2) for d in meas]} at P={Ps}, fitted "
             f"{a_c:.3g} P^{b_c:.2f}. Projected distributed (one turn at a time)/serial-C "
             f"per iteration: {proj['ratio_vs_c']:.0f}x (compute only)."
             if proj["ratio_vs_c"] else "")
    out["text"] = text
    return out


# --------------------------------------------------------------------------------------------
# (3) the dynamic part


def part_dynamic(quick: bool) -> dict | None:
    if importlib.util.find_spec("bench_dynamic_mpi") is None:
        return None
    mod = importlib.import_module("bench_dynamic_mpi")
    return mod.run(quick)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (about a minute)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"),
                    help="folder for bench_mpi.json")
    ap.add_argument("--skip", default="", help="comma list of parts to skip: mpi,projection,"
                    "dynamic")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    t0 = time.perf_counter()
    res = {"platform": platform.platform(), "python": sys.version.split()[0],
           "wpart": wpart.__version__, "quick": args.quick, "cores": CORES}
    tmp = tempfile.mkdtemp(prefix="wpart_bench_mpi_")
    try:
        if "mpi" not in skip:
            print("[bench_mpi] (1) tasks over MPI ...", flush=True)
            res["mpi"] = part_mpi(args.quick, tmp)
            print(res["mpi"]["text"], "\n", flush=True)
        if "projection" not in skip:
            print("[bench_mpi] (2) projection ...", flush=True)
            res["projection"] = part_projection(args.quick,
                                                latency_from_mpi(res.get("mpi", {})))
            print(res["projection"]["text"], "\n", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if "dynamic" not in skip:
        dyn = part_dynamic(args.quick)
        if dyn is None:
            print("(3) dynamic part: not available (benchmarks/bench_dynamic_mpi.py is absent)")
            res["dynamic"] = {"available": False}
        else:
            res["dynamic"] = dyn
            print(dyn.get("text") if isinstance(dyn, dict) and "text" in dyn
                  else json.dumps(dyn, indent=1, default=str))
    res["seconds"] = time.perf_counter() - t0
    os.makedirs(args.out, exist_ok=True)
    write_json(Path(args.out) / "bench_mpi.json", res)
    print(f"\nwrote {Path(args.out) / 'bench_mpi.json'} ({res['seconds']:.0f} s)")
    ok = all(r.get("match_ranks", True) for r in res.get("mpi", {}).get("rows", []))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
