"""Benchmarks for the distributed engines: CCM-LB over MPI, how it scales, its projection.

Before/after: ``protocol="turns"`` (before: one seeded global order of turns, each turn
announced to every rank, gossip forwarding whole rank data with their edges) against
``protocol="rounds"`` (after, the default: rounds of disjoint pairs exchanging at the same
time, bounded gossip of per-cluster summaries). Instances: ``gemma_like(P, 140 P, 15 P,
seed=0, comm_degree=1.0)`` (one task-to-task edge per task, so that the gossip's dependence on
the edges shows).

(1) MPI: ``mpirun -np P python -m wpart.tasks.mpi`` at P = 2, 4 (full: 2, 4, 8, 16;
    oversubscribed on this machine's cores), both protocols: seconds per iteration, rank 0's
    messages, bytes and gossip memory per iteration, W_max, and MATCH when the MPI assignment
    equals the in-process rank engine's (same protocol, same seed). A round of ``rounds`` costs
    one allreduce of three numbers besides its point-to-point messages (proposals to their
    targets, their answers, the matching's handshakes, the pairs' exchanges).
(2) Scaling, in-process rank engine (the same rank code as MPI, direct calls as transport; an
    mpirun of 32 or 64 Python processes on 2 shared cores measures the cores, not the
    protocol): P = 2 ... 16 (full: ... 64), both protocols: messages, bytes and gossip memory
    per rank per iteration (every message pickled as MPI sends it), serial seconds per
    iteration, the schedule model's critical path (the distributed time with free messages:
    between two rounds' allreduces, every rank's pair step then its next proposals, in
    parallel; the allreduce waits for the slowest) and concurrency
    (serial / critical path; per round for ``rounds``), pairs per round, W_max before/after
    against the serial C engine's.
(3) PROJECTION to 256 ranks x 466,018 tasks x 1,024 blocks (the shape of LBAF's largest public
    dataset): the serial C engine is measured on a synthetic instance of that shape (one
    iteration); the distributed rounds protocol is projected from per-rank costs measured on
    that same instance's rank data (one proposal = ``keep`` estimates, one pair step) times the
    rounds per iteration fitted ``c P^d`` on part (2) (written for the earlier protocol, whose
    rounds per iteration grew with P; the rounds are now bounded), plus message latency and
    bandwidth of a
    cluster network (stated). Messages per rank fitted on part (2); bytes from the pickled sizes
    on the 256-rank data; gossip memory per rank computed from the real summaries. Every
    projected number is labelled PROJECTION.
(4) The dynamic part: ``bench_dynamic_mpi.run(quick)`` when that module exists.
(5) When MPI pays, and (6) the quality families: ``benchmarks/_mpi_parts.py`` (the serial C
    engine's CPU time against the rounds' modelled critical path and ``protocol="gather"``;
    W_max of rounds and auto against the serial ccm engine on five families).

Run ``python benchmarks/bench_mpi.py --quick`` (about a minute; its projection target is 64
ranks x 116,480 tasks). Timings are never asserted.
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
# instances and runs

PROTOCOLS = ("turns", "rounds")  # before, after


def instance(P: int):
    return gemma_like(m=P, n_tasks=140 * P, n_blocks=15 * P, seed=0, comm_degree=1.0)


def inproc(p, protocol: str, count_bytes: bool = True) -> dict:
    """The in-process rank engine with every message pickled and counted per rank."""
    from wpart.tasks._balance import rank_params
    from wpart.tasks._problem import Coefficients
    from wpart.tasks._ranks import run_ranks

    c = Coefficients()
    prm = rank_params(p.m, c, "block", 0, "fallback", 1e-12, 1.0,
                      float(np.mean(p.task_load)), n_iter=N_ITER, seed=0,
                      protocol=protocol, count_bytes=count_bytes)
    a0 = np.asarray(p.initial, np.int32)
    t0 = time.perf_counter()
    run = run_ranks(p, prm, a0, None)
    run["seconds"] = time.perf_counter() - t0
    run["keep"] = prm.keep
    return run


# --------------------------------------------------------------------------------------------
# (1) tasks over MPI


def part_mpi(quick: bool, tmp: str) -> dict:
    why = mpi_available()
    if why:
        return {"available": False, "why": why, "text": f"(1) tasks over MPI: skipped: {why}"}
    rows, recs = [], []
    for P in ((2, 4) if quick else (2, 4, 8, 16)):
        g = instance(P)
        stem = os.path.join(tmp, f"g{P}")
        g.to_lbdatafile(stem)
        p = tasks.Problem.from_lbdatafile(stem)  # the data the MPI ranks read
        for proto in PROTOCOLS:
            summ = os.path.join(tmp, f"s{P}{proto}.json")
            rc, out, err, wall = run_mpi(P, ["-m", "wpart.tasks.mpi", stem, "--out",
                                             os.path.join(tmp, f"o{P}{proto}"), "--json", summ,
                                             "--seed", 0, "--n-iter", N_ITER, "--protocol",
                                             proto, "--timeout", 120],
                                         timeout=300 if quick else 900)
            want = tasks.balance(p, backend="ranks", seed=0, n_iter=N_ITER, protocol=proto)
            rec = {"P": P, "protocol": proto, "n_tasks": p.n_tasks, "oversubscribed": P > CORES,
                   "mpirun_wall_seconds": wall, "ranks_w_max": want.max_load}
            if rc != 0:
                rec["error"] = (err or out).strip().splitlines()[-3:]
                recs.append(rec)
                rows.append([P, proto, "-", "-", "-", "-", "-", "-", want.max_load, "MPI FAILED"])
                continue
            with open(summ) as fh:
                d = json.load(fh)
            a = np.empty(p.n_tasks, np.int64)
            a[np.searchsorted(np.asarray(p.task_ids), np.asarray(d["task_ids"]))] = \
                d["assignment"]
            same = d["max_load"] == want.max_load and bool(np.array_equal(a, want.assignment))
            msgs = sum(v for k, v in d["messages"].items() if k != "DIRECTORY") / N_ITER
            # rounds: one all-gather per round (the collective of the round's matching)
            ag = d["messages"].get("ALLGATHER", 0) / N_ITER if proto == "rounds" else None
            rec.update({"seconds_per_iter": float(np.mean(d["iteration_seconds"])),
                        "messages_rank0_per_iter": msgs,
                        "bytes_rank0_per_iter": d["bytes_sent"] / N_ITER,
                        "gossip_bytes_rank0": d["stats"].get("gossip_bytes"),
                        "w_max_before": d["initial_max_load"], "w_max": d["max_load"],
                        "allgathers_per_iter": ag, "match_ranks": same})
            recs.append(rec)
            rows.append([P, proto, rec["seconds_per_iter"], msgs, rec["bytes_rank0_per_iter"],
                         rec["gossip_bytes_rank0"], "-" if ag is None else ag, d["max_load"],
                         want.max_load, "MATCH" if same else "DIFFERS"])
    text = format_table(
        ["P", "protocol", "MPI s/iter", "msgs/iter (rank 0)", "bytes/iter (rank 0)",
         "gossip bytes (rank 0)", "all-gathers/iter", "W_max MPI", "W_max in-process",
         "MPI == in-process"], rows,
        title=f"(1) CCM-LB over MPI (mpirun -np P, {N_ITER} iterations, seed 0; "
              f"{CORES} cores, P > {CORES} oversubscribed; turns = before, rounds = after)")
    return {"available": True, "rows": recs, "text": text}


# --------------------------------------------------------------------------------------------
# (2) scaling, in-process


def part_scaling(quick: bool) -> dict:
    rows, recs = [], []
    for P in ((2, 4, 8, 16) if quick else (2, 4, 8, 16, 32, 64)):
        p = instance(P)
        t0 = time.perf_counter()
        c = tasks.balance(p, seed=0, n_iter=N_ITER)
        t_c = (time.perf_counter() - t0) / N_ITER
        for proto in PROTOCOLS:
            run = inproc(p, proto)
            s = run["schedule"]
            ser, crit = sum(s["serial_s"]), sum(s["critical_path_s"])
            rec = {"P": P, "protocol": proto, "n_tasks": p.n_tasks, "n_edges": p.n_edges,
                   "seconds_per_iter": run["seconds"] / N_ITER,
                   "critical_path_s_per_iter": crit / N_ITER, "serial_s_per_iter": ser / N_ITER,
                   "concurrency": ser / max(crit, 1e-12),
                   "concurrency_per_iter": [a / max(b, 1e-12) for a, b in
                                            zip(s["serial_s"], s["critical_path_s"])],
                   "messages_per_rank_per_iter": float(sum(run["messages"].values())) / P
                   / N_ITER,
                   "messages_by_kind_per_rank_per_iter": {k: v / P / N_ITER for k, v in
                                                          run["messages"].items()},
                   "bytes_per_rank_per_iter": float(run["bytes_per_rank"].mean()) / N_ITER,
                   "bytes_max_rank_per_iter": float(run["bytes_per_rank"].max()) / N_ITER,
                   "gossip_bytes_per_rank_max": int(run["gossip_bytes_per_rank"].max()),
                   "gossip_bytes_per_rank_mean": float(run["gossip_bytes_per_rank"].mean()),
                   "w_max_before": float(run["history"][0]), "w_max": float(run["history"][-1]),
                   "c_engine_w_max": c.max_load, "c_engine_seconds_per_iter": t_c,
                   "keep": run["keep"], "n_rounds": run["n_rounds"], "fanout": run["fanout"]}
            if proto == "rounds":
                rr = s["rounds"]
                rec["rounds_per_iter"] = [d["rounds"] for d in rr]
                rec["pairs_per_round"] = float(np.mean([x for d in rr for x in d["pairs"]] or
                                                       [0]))
                rec["concurrency_per_round"] = float(np.mean([x for d in rr
                                                              for x in d["concurrency"]] or [1]))
                rec["concurrency_per_round_iter0"] = float(np.mean(rr[0]["concurrency"] or [1]))
            recs.append(rec)
        old, new = recs[-2], recs[-1]
        for r in (old, new):
            rows.append([P, r["protocol"], r["seconds_per_iter"], r["critical_path_s_per_iter"],
                         r["messages_per_rank_per_iter"], r["bytes_per_rank_per_iter"],
                         r["gossip_bytes_per_rank_max"], r["concurrency"],
                         r.get("concurrency_per_round", "-"), r.get("pairs_per_round", "-"),
                         r["w_max"], r["c_engine_w_max"]])
        new["w_max_vs_turns"] = new["w_max"] / old["w_max"] - 1.0
    text = format_table(
        ["P", "protocol", "serial s/iter", "critical-path s/iter", "msgs/rank/iter",
         "bytes/rank/iter", "gossip bytes/rank (max)", "concurrency", "concurrency/round",
         "pairs/round", "W_max", "W_max serial C"], rows,
        title=f"(2) Scaling, in-process rank engine (the MPI code; every message pickled and "
              f"counted), gemma_like(P, 140P, 15P, comm_degree=1), {N_ITER} iterations; "
              "concurrency = serial / critical path of the schedule model")
    return {"rows": recs, "text": text}


# --------------------------------------------------------------------------------------------
# (3) projection to 256 ranks


#: Network of the projection: a cluster interconnect (stated, not measured here)
NET = {"latency_s": 2e-6, "bandwidth_Bps": 10e9, "label": "2 us latency, 10 GB/s"}
NET_SLOW = {"latency_s": 50e-6, "bandwidth_Bps": 1e9, "label": "50 us latency, 1 GB/s"}


def _cost_per_round(parts, prm, P: int) -> dict:
    """Per-rank costs measured on the big instance's rank data (median over a few pairs):
    one estimate from two bounded summaries, a rank's own summary and W (recomputed once its
    tasks changed), one exact pair evaluation with its exchange, and pickled sizes."""
    from wpart.tasks._ranks import RankProcess

    rng = np.random.default_rng(0)
    picks = rng.choice(P, size=min(8, P), replace=False)
    t_est, t_own, t_pair, grant, give, summ = [], [], [], [], [], []
    for i in picks.tolist():
        j = int((i + 1 + rng.integers(P - 1)) % P)
        a, b = RankProcess(parts[i].copy(), prm), RankProcess(parts[j].copy(), prm)
        a.begin_iteration()
        b.begin_iteration()
        t0 = time.perf_counter()
        a._mine = a._w = None
        mine = a.own_summary()
        t_own.append(time.perf_counter() - t0)
        sb = b.own_summary()
        summ.append(_pickled(sb))
        t0 = time.perf_counter()
        for _ in range(5):
            a._best(sb, mine)
        t_est.append((time.perf_counter() - t0) / 5)
        grant.append(_pickled(("LOCK_GRANT", 0, 0, 0, b.data)))
        t0 = time.perf_counter()
        found, _, _, gv, tk = a._best(b.data)
        if found:
            recs = a.data.extract(gv)
            give.append(_pickled(("GIVE", 0, 0, 0, recs, tk)))
            back = b.data.extract(tk)
            b.data.insert(recs)
            a.data.insert(back)
        t_pair.append(time.perf_counter() - t0)
    return {"estimate_s": float(np.median(t_est)), "own_summary_s": float(np.median(t_own)),
            "pair_step_s": float(np.median(t_pair)), "lock_grant_bytes": float(np.mean(grant)),
            "give_bytes": float(np.mean(give)) if give else float(np.mean(grant)) / 4,
            "summary_bytes": float(np.mean(summ))}


def part_projection(quick: bool, scaling: dict) -> dict:
    from wpart.tasks._balance import rank_params
    from wpart.tasks._problem import Coefficients
    from wpart.tasks._rankdata import split_problem

    P_big, K_big, N_big = (64, 116_480, 256) if quick else LBAF_SHAPE
    t0 = time.perf_counter()
    big = gemma_like(m=P_big, n_tasks=K_big, n_blocks=N_big, seed=0, comm_degree=1.0)
    t_gen = time.perf_counter() - t0
    # the serial C engine on the full shape: measured (one iteration; setup timed apart)
    t0 = time.perf_counter()
    tasks.balance(big, seed=0, n_iter=0)
    t_setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    rc = tasks.balance(big, seed=0, n_iter=1, time_limit=900)
    c_iter = max(time.perf_counter() - t0 - t_setup, 0.0)
    c_status = rc.status
    prm = rank_params(P_big, Coefficients(), "block", 0, "fallback", 1e-12, 1.0,
                      float(np.mean(big.task_load)), n_iter=N_ITER, seed=0)
    parts = split_problem(big, np.asarray(big.initial), big.caps(None))
    cost = _cost_per_round(parts, prm, P_big)
    t_est, grant, give, summ = (cost["estimate_s"], cost["lock_grant_bytes"],
                                cost["give_bytes"], cost["summary_bytes"])
    rows_r = [r for r in scaling["rows"] if r["protocol"] == "rounds" and r["P"] >= 4]
    rows_t = [r for r in scaling["rows"] if r["protocol"] == "turns" and r["P"] >= 4]
    Ps = [r["P"] for r in rows_r]
    a_r, b_r = _fit_power(Ps, [np.mean(r["rounds_per_iter"]) for r in rows_r])
    rounds = a_r * P_big ** b_r
    last = rows_r[-1]
    per_round = {k: v / np.mean(last["rounds_per_iter"])
                 for k, v in last["messages_by_kind_per_rank_per_iter"].items()}
    msgs = {k: v * rounds for k, v in per_round.items() if k != "INFORM"}
    msgs["INFORM"] = float(prm.k * prm.f)  # at most f messages per hop
    steps = (last["messages_by_kind_per_rank_per_iter"].get("GIVE", 0.0)
             / max(last["messages_by_kind_per_rank_per_iter"].get("LOCK_GRANT", 1e-12), 1e-12))
    # critical path of a round: a changed rank's proposal (its own summary and W, then
    # `keep` estimates), then its pair: the exact evaluations of `steps` exchanges + 1
    t_prop = cost["own_summary_s"] + prm.keep * t_est
    t_pair = (steps + 1) * cost["pair_step_s"]
    small = 64.0  # RELEASE: a header and a few numbers
    row = 8.0 * (3 + 4 * prm.offers)  # a rank's entry of the round's all-gather
    size = {"LOCK_GRANT": grant, "GIVE": give, "GIVE_BACK": give, "REFRESH": summ,
            "INFORM": (prm.keep + 1) * summ, "ALLGATHER": (P_big - 1) * row}
    bytes_rank = sum(v * size.get(k, small) for k, v in msgs.items())
    gossip_mem = (prm.keep + 1) * summ  # the known set: own summary + `keep` others

    def t_iter(net):
        lat, bw = net["latency_s"], net["bandwidth_Bps"]
        coll = np.log2(P_big) * lat  # a collective's latency (recursive doubling)
        # one all-gather of every rank's row, then the pair's messages
        rnd = (t_prop + t_pair + coll + (P_big - 1) * row / bw + (3 + 2 * steps) * lat
               + (grant + 2 * steps * give) / bw)
        gossip = prm.k * (coll + prm.f * (lat + (prm.keep + 1) * summ / bw))
        return rounds * rnd + gossip, rnd
    t_fast, per_round_s = t_iter(NET)
    t_slow, _ = t_iter(NET_SLOW)
    # before: turns, the in-process serial seconds per iteration fitted a P^b (the MPI run
    # adds a notice to every rank per turn), and its gossip memory: every known rank's data
    a_t, b_t = _fit_power([r["P"] for r in rows_t], [r["seconds_per_iter"] for r in rows_t])
    old_mem = float(np.mean([_pickled({d.rank: d.summary(True)}) for d in parts[:8]])) * P_big
    proj = {"label": "PROJECTION", "P": P_big, "n_tasks": K_big, "n_blocks": N_big,
            "n_edges": big.n_edges,
            "rounds_fit": {"c": a_r, "d": b_r, "rounds_per_iter": rounds},
            "seconds_per_proposal": t_prop, "seconds_per_estimate": t_est,
            "seconds_per_pair": t_pair, "exchanges_per_pair": steps, "measured": cost,
            "keep": prm.keep, "collectives_per_round": 1, "allgather_row_bytes": row,
            "seconds_per_round": per_round_s, "seconds_per_iter": t_fast,
            "seconds_per_iter_slow_network": t_slow, "network": NET, "slow_network": NET_SLOW,
            "messages_per_rank_per_iter": float(sum(msgs.values())),
            "messages_by_kind_per_rank_per_iter": msgs,
            "bytes_per_rank_per_iter": bytes_rank,
            "pickled_bytes": {"lock_grant": grant, "give": give, "summary": summ},
            "gossip_bytes_per_rank": gossip_mem,
            "own_data_bytes_per_rank": float(np.mean([_pickled(d) for d in parts[:8]])),
            "turns_before": {"serial_seconds_per_iter": a_t * P_big ** b_t,
                             "fit": {"a": a_t, "b": b_t},
                             "gossip_bytes_per_rank": old_mem},
            "ratio_vs_c": t_fast / c_iter if c_iter > 0 else None}
    out = {"c_engine": {"label": "MEASURED", "P": P_big, "n_tasks": K_big, "n_blocks": N_big,
                        "n_edges": big.n_edges, "generator":
                        f"gemma_like({P_big}, {K_big}, {N_big}, seed=0, comm_degree=1.0)",
                        "generate_seconds": t_gen, "setup_seconds": t_setup,
                        "seconds_per_iter": c_iter, "status": c_status,
                        "w_max_before": rc.initial_max_load, "w_max_after": rc.max_load},
           "projection": proj}
    rows = [[f"serial C engine, 1 iteration (MEASURED, {c_status})", c_iter, "-", "-", "-"],
            [f"PROJECTION rounds protocol, {NET['label']}", t_fast, proj[
                "messages_per_rank_per_iter"], bytes_rank, gossip_mem],
            [f"PROJECTION rounds protocol, {NET_SLOW['label']}", t_slow,
             proj["messages_per_rank_per_iter"], bytes_rank, gossip_mem],
            ["PROJECTION turns protocol (before), serial in-process fit", a_t * P_big ** b_t,
             "-", "-", old_mem]]
    text = format_table(["case", "s/iter", "msgs/rank/iter", "bytes/rank/iter",
                         "gossip bytes/rank"], rows,
                        title=f"(3) PROJECTION to {P_big} ranks / {K_big:,} tasks / {N_big:,} "
                              f"blocks / {big.n_edges:,} edges (synthetic gemma_like stand-in)")
    text += (f"\nPROJECTION model: T_iter = R(P) x (t_proposal + t_pair + one all-gather of "
             f"P rows of {row:.0f} bytes + pair messages + bytes/bandwidth) + gossip; "
             f"R(P) = {a_r:.3g} P^{b_r:.2f} rounds "
             f"(fitted at P = {Ps}) = {rounds:.0f}; t_proposal = own summary "
             f"{cost['own_summary_s'] * 1e3:.1f} ms + keep ({prm.keep}) x {t_est * 1e3:.2f} ms "
             f"estimates = {t_prop * 1e3:.1f} ms; t_pair = ({steps:.2f} exchanges + 1) x "
             f"{cost['pair_step_s'] * 1e3:.1f} ms = {t_pair * 1e3:.1f} ms (measured on this "
             f"instance's rank data); messages per rank per round as measured at "
             f"P = {last['P']}. Distributed/serial C per iteration: {proj['ratio_vs_c']:.3g}x "
             f"({'faster' if proj['ratio_vs_c'] and proj['ratio_vs_c'] < 1 else 'slower'}).")
    out["text"] = text
    return out


def _fit_power(x, y) -> tuple:
    """``y = a x^b`` by least squares in log-log; (a, b)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.maximum(np.asarray(y, float), 1e-300))
    b, la = np.polyfit(lx, ly, 1)
    return float(np.exp(la)), float(b)


def _pickled(obj) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


# --------------------------------------------------------------------------------------------
# (4) the dynamic part


def part_dynamic(quick: bool) -> dict | None:
    if importlib.util.find_spec("bench_dynamic_mpi") is None:
        return None
    mod = importlib.import_module("bench_dynamic_mpi")
    return mod.run(quick)


def _earlier_parts(path: Path, missing: list) -> dict:
    """The sections `missing` (parts not run now) of an earlier bench_mpi.json at `path`."""
    try:
        with open(path) as f:
            old = json.load(f)
    except (OSError, ValueError):
        return {}
    return {k: old[k] for k in missing if k in old}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (about a minute)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"),
                    help="folder for bench_mpi.json")
    ap.add_argument("--skip", default="", help="comma list of parts to skip: mpi,scaling,"
                    "projection,crossover,quality,dynamic (the projection needs the scaling "
                    "part)")
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
        if "scaling" not in skip or "projection" not in skip:
            print("[bench_mpi] (2) scaling, in-process ...", flush=True)
            res["scaling"] = part_scaling(args.quick)
            print(res["scaling"]["text"], "\n", flush=True)
        if "projection" not in skip:
            print("[bench_mpi] (3) projection ...", flush=True)
            res["projection"] = part_projection(args.quick, res["scaling"])
            print(res["projection"]["text"], "\n", flush=True)
        from _mpi_parts import part_crossover, part_quality

        if "crossover" not in skip:
            print("[bench_mpi] (5) crossover: when MPI pays ...", flush=True)
            res["crossover"] = part_crossover(args.quick)
            print(res["crossover"]["text"], "\n", flush=True)
        if "quality" not in skip:
            print("[bench_mpi] (6) quality families ...", flush=True)
            res["quality"] = part_quality(args.quick)
            print(res["quality"]["text"], "\n", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if "dynamic" not in skip:
        dyn = part_dynamic(args.quick)
        if dyn is None:
            print("(4) dynamic part: not available (benchmarks/bench_dynamic_mpi.py is absent)")
            res["dynamic"] = {"available": False}
        else:
            res["dynamic"] = dyn
            print(dyn.get("text") if isinstance(dyn, dict) and "text" in dyn
                  else json.dumps(dyn, indent=1, default=str))
    res["seconds"] = time.perf_counter() - t0
    os.makedirs(args.out, exist_ok=True)
    out = Path(args.out) / "bench_mpi.json"
    parts = ("mpi", "scaling", "projection", "crossover", "quality", "dynamic")
    kept = _earlier_parts(out, [k for k in parts if k not in res])
    if kept:  # a run of some parts keeps the others' results from the file it updates
        res.update(kept)
        res["parts_from_an_earlier_run"] = sorted(kept)
    write_json(out, res)
    print(f"\nwrote {Path(args.out) / 'bench_mpi.json'} ({res['seconds']:.0f} s)")
    ok = all(r.get("match_ranks", True) for r in res.get("mpi", {}).get("rows", []))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
