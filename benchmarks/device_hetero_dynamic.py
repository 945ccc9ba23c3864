"""Real CPU+GPU measurements for wpart.hetero and wpart.dynamic, on one machine.

Two experiments, each stage guarded (a failure is written into the JSON and the next stage
runs), the JSON rewritten after every stage so that a cut-off run still leaves its results:

(a) ``hetero``: real time and energy profiles of the row-partitioned matrix product
    ``C = A B`` (``A`` rows x K, ``B`` K x K, float64) on the CPU (NumPy's BLAS, all cores
    but the one that drives the GPU) and on the GPU (PyTorch, host-device transfers
    included, as in [Khaleghzadeh 2019], Sec. 8), measured with :func:`wpart.hetero.measure`
    (mean within 10 % at 95 % confidence, or the per-size repetition cap). Energy: the GPU
    board's dynamic energy from NVML's total-energy counter minus its idle power times the
    run time; the CPU's from RAPL where ``/sys/class/powercap`` is readable (else 0, and the
    JSON says so). From the two profiles: the time-optimal distribution (TOPT), the
    load-balanced baseline and the exact time x dynamic-energy front (HEPOPTA) and time x
    total-energy front (HTPOPTA) for a few workloads, with the gains over the baseline.
(b) ``dynamic``: one data-parallel job, ``C[:, cols] = A @ B[:, cols]`` by columns
    (:class:`wpart.dynamic.GemmColumnsTask`), run for real by :func:`wpart.dynamic.run` on a
    CPU worker (wpart's C kernel, all cores but one) and a GPU worker
    (:class:`wpart.dynamic.CupyWorker`), under the equal static split, PLB-HAC
    ([Sant'Ana 2017], presets "robust" and "paper"), HDSS and Greedy: makespan, elements per
    PU, idle time per PU, blocks and evaluations, each run verified (``C == A B``).
(c) ``opencl``: the multi-kernel OpenCL :class:`~wpart.multikernel.opencl.Runtime`
    ([Soldado 2016]) on every OpenCL device found: the GPU share swept for Saxpy and the
    filter pipeline, then the imbalance detector and the adaptive binary search rebalancing
    real runs (skipped, with the reason in the JSON, without PyOpenCL or a driver).

Without a GPU (no CuPy / PyTorch CUDA device) the script says so and runs a CPU-only
stand-in: the "GPU" of (a) is wpart's single-threaded C kernel
(:class:`wpart.hetero.kernels.BlockedMatmul`) and the GPU worker of (b) a throttled
:class:`wpart.dynamic.ThreadWorker`; the JSON's ``platform.gpu`` is then null and every
result says ``"stand_in": true``.

Usage::

    python benchmarks/device_hetero_dynamic.py --quick --out /tmp/dev.json   # seconds, any machine
    python benchmarks/device_hetero_dynamic.py --out $OUT/device.json         # a GPU machine, ~4 min

Timings are recorded, never asserted. The recorded GPU run is in
``benchmarks/results/device_hetero_dynamic.json`` with its table beside it (``.md``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from _common import use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

import wpart  # noqa: E402
import wpart.dynamic as wd  # noqa: E402
import wpart.hetero as wh  # noqa: E402


def log(*a) -> None:
    print(*a, flush=True)


# ----------------------------------------------------------------------------- platform ----

def _nvidia_smi() -> dict | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    q = "name,memory.total,driver_version,power.limit,clocks.max.sm"
    try:
        out = subprocess.run([exe, f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout.strip().splitlines()
    except Exception as exc:  # noqa: BLE001  (recorded, not fatal)
        return {"error": repr(exc)}
    return {"query": q, "rows": out}


def _cupy_gpu() -> tuple[bool, str]:
    try:
        import cupy as cp
        n = cp.cuda.runtime.getDeviceCount()
        return n > 0, f"cupy {cp.__version__}, {n} device(s)"
    except Exception as exc:  # noqa: BLE001
        return False, f"no CuPy GPU: {type(exc).__name__}: {exc}"[:300]


def _torch_gpu() -> tuple[bool, str]:
    try:
        import torch
        ok = torch.cuda.is_available()
        return ok, f"torch {torch.__version__}" + (f", {torch.cuda.get_device_name(0)}" if ok else ", no CUDA")
    except Exception as exc:  # noqa: BLE001
        return False, f"no torch: {type(exc).__name__}: {exc}"[:300]


def platform_info() -> dict:
    cupy_ok, cupy_desc = _cupy_gpu()
    torch_ok, torch_desc = _torch_gpu()
    info = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(), "machine": platform.machine(), "python": platform.python_version(),
        "cpu_count": os.cpu_count(), "numpy": np.__version__, "wpart": wpart.__version__,
        "cupy": cupy_desc, "torch": torch_desc, "cupy_gpu": cupy_ok, "torch_gpu": torch_ok,
        "nvidia_smi": _nvidia_smi(), "rapl": wh.RaplMeter.available(),
        "cpu_model": _cpu_model(),
    }
    info["gpu"] = (info["nvidia_smi"] or {}).get("rows", [None])[0] if (cupy_ok or torch_ok) else None
    return info


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


# ---------------------------------------------------------------------- hetero kernels ----

class Repeated:
    """A kernel run ``reps(size)`` times per timed run, so that every timed run lasts about
    `target` seconds (above the timer's and NVML's energy counter's resolution); the profile
    is divided by the repetitions afterwards. ``setup`` runs the kernel once to choose."""

    def __init__(self, inner, target: float, name: str) -> None:
        self.inner, self.target, self.__name__ = inner, target, name
        self.reps: dict[int, int] = {}

    def setup(self, size: int):
        st = self.inner.setup(size)
        self.inner(st)  # warm
        t0 = time.perf_counter()
        self.inner(st)
        dt = time.perf_counter() - t0
        self.reps[int(size)] = max(1, min(1000, math.ceil(self.target / max(dt, 1e-6))))
        return st, self.reps[int(size)]

    def __call__(self, state) -> None:
        st, r = state
        for _ in range(r):
            self.inner(st)


def _blas_threads(threads: int):
    """Limit NumPy's BLAS pool to `threads` (threadpoolctl when present, else None)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=threads, user_api="blas")


def _measure(kernel: Repeated, sizes, meter, static_power: float, budget: float, quick: bool) -> dict:
    per_size = max(0.2, budget / len(sizes))
    mp = wh.measure(kernel, np.asarray(sizes, np.int64), meter=meter, static_power=static_power,
                    min_reps=3 if quick else 5, max_reps=8 if quick else 20, max_time=per_size,
                    warmup=0, name=kernel.__name__, clamp_negative=True)
    reps = np.array([kernel.reps[int(s)] for s in mp.profile.sizes], float)
    t = mp.profile.time / reps
    e = mp.profile.energy / reps
    return {"name": kernel.__name__, "sizes": mp.profile.sizes.tolist(), "time": t.tolist(),
            "energy": e.tolist(), "inner_reps": reps.astype(int).tolist(), "runs": mp.reps.tolist(),
            "precision": [float(p) if np.isfinite(p) else None for p in mp.precision],
            "converged": mp.converged.tolist(), "meter": mp.meter, "static_power_w": static_power,
            "seconds": mp.seconds, "message": mp.message}


def hetero_measure(cfg: dict, info: dict, doc: dict) -> None:
    K, g, P = cfg["K"], cfg["g"], cfg["points"]
    sizes = [g * (i + 1) for i in range(P)]
    cpu_threads = max(1, (os.cpu_count() or 2) - 1)
    out = doc.setdefault("hetero", {})
    out.update({"K": K, "granularity": g, "sizes": sizes, "dtype": "float64",
                "cpu_threads": cpu_threads, "stand_in": not info["torch_gpu"]})
    cpu_meter, cpu_ps = None, 0.0
    if info["rapl"]:
        cpu_meter = wh.RaplMeter()
        cpu_ps = wh.measure_static_power(cpu_meter, seconds=cfg["idle_s"])
    out["cpu_energy"] = ("RAPL " + repr(cpu_meter)) if cpu_meter else \
        "not measured (no readable /sys/class/powercap): CPU energies are 0"
    if info["torch_gpu"]:
        gpu = Repeated(wh.kernels.TorchMatmul(K=K, dtype="float64", transfer=True), cfg["gpu_target"], "GPU")
        gpu_meter, gpu_ps, note = None, 0.0, ""
        try:
            gpu_meter = wh.NvmlMeter(0)
            gpu_ps = wh.measure_static_power(gpu_meter, seconds=cfg["idle_s"])
        except Exception as exc:  # noqa: BLE001
            note = f"NVML energy unavailable: {type(exc).__name__}: {exc}"
        out["gpu_kernel"] = repr(gpu.inner)
        out["gpu_energy"] = note or f"NVML total-energy counter, idle power {gpu_ps:.1f} W subtracted"
    else:
        gpu = Repeated(wh.kernels.BlockedMatmul(K=K), cfg["cpu_target"], "GPU stand-in (C kernel, 1 thread)")
        gpu_meter, gpu_ps = cpu_meter, cpu_ps
        out["gpu_kernel"] = repr(gpu.inner)
        out["gpu_energy"] = out["cpu_energy"]
    limiter = _blas_threads(cpu_threads)  # once for the stage: threadpoolctl is slow per call
    cpu = Repeated(wh.kernels.NumpyMatmul(K=K), cfg["cpu_target"], f"CPU ({cpu_threads} BLAS threads)")
    out["cpu_kernel"] = f"NumpyMatmul(K={K}) with {cpu_threads} BLAS threads"
    out["profiles"] = []
    for kern, meter, ps, budget in ((cpu, cpu_meter, cpu_ps, cfg["cpu_budget"]),
                                    (gpu, gpu_meter, gpu_ps, cfg["gpu_budget"])):
        log(f"[hetero] measuring {kern.__name__} at {len(sizes)} sizes ({budget:.0f} s budget)")
        prof = _measure(kern, sizes, meter, ps, budget, cfg["quick"])
        out["profiles"].append(prof)
        log(f"[hetero]   {prof['message']}; {prof['seconds']:.1f} s; t({sizes[0]})={prof['time'][0]:.3e} s,"
            f" t({sizes[-1]})={prof['time'][-1]:.3e} s, e({sizes[-1]})={prof['energy'][-1]:.3g} J")
    if limiter is not None:
        limiter.restore_original_limits()
    if gpu_meter is not None and info["torch_gpu"]:
        out["gpu_static_power_w"] = gpu_ps
    out["cpu_static_power_w"] = cpu_ps


def hetero_analyse(doc: dict, workloads: list[int]) -> None:
    h = doc["hetero"]
    ps = wh.ProfileSet.from_arrays([(p["sizes"], p["time"], p["energy"]) for p in h["profiles"]],
                                   names=[p["name"] for p in h["profiles"]], clamp_negative=True)
    static = float(h.get("gpu_static_power_w", 0.0)) + float(h.get("cpu_static_power_w", 0.0))
    h["energy_objective"] = (f"sum of the processors' dynamic energies -- CPU: {h.get('cpu_energy')}; "
                             f"GPU: {h.get('gpu_energy')}")
    rows = []
    for n in workloads:
        t0 = time.perf_counter()
        topt = wh.optimal_time(ps, n, time_limit=60)
        bal = wh.load_balanced(ps, n, time_limit=60)
        f = wh.pareto_front(ps, n, time_limit=60)
        row = {"n": n, "topt": _dist(topt), "balanced": _dist(bal), "front_status": f.status,
               "front_size": int(f.size), "front": {"time": f.time.tolist(), "energy": f.energy.tolist(),
                                                    "dist": f.dist.tolist()}}
        if f.size:
            row["gains_vs_balanced"] = f.gains_vs_balanced()
            row["tradeoff_5pct"] = f.tradeoff(0.05)
            row["single"] = {nm: _single(ps, i, n) for i, nm in enumerate(ps.names)}
        if static > 0:
            ft = wh.pareto_front(ps, n, energy="total", static_power=static, time_limit=60)
            row["total_front"] = {"static_power_w": static, "status": ft.status, "size": int(ft.size),
                                  "time": ft.time.tolist(), "energy": ft.energy.tolist(),
                                  "dist": ft.dist.tolist()}
            if ft.size:
                row["total_front"]["gains_vs_balanced"] = ft.gains_vs_balanced()
        row["seconds"] = time.perf_counter() - t0
        rows.append(row)
        g = row.get("gains_vs_balanced", {})
        log(f"[hetero] n={n}: TOPT {row['topt']['time']} s dist {row['topt']['dist']}; balanced "
            f"{row['balanced']['time']} s dist {row['balanced']['dist']}; front {row['front_size']} points;"
            f" time improvement {g.get('time_improvement_pct', float('nan')):.1f} %,"
            f" energy saving {g.get('energy_saving_pct', float('nan')):.1f} %")
    h["analysis"] = rows


def _dist(d) -> dict:
    return {"status": d.status, "time": None if d.dist is None else float(d.time),
            "energy": None if d.dist is None else float(d.energy),
            "dist": None if d.dist is None else d.dist.tolist()}


def _single(ps, i: int, n: int) -> dict | None:
    pr = ps.profiles[i]
    k = np.flatnonzero(pr.sizes == n)
    return None if k.size == 0 else {"time": float(pr.time[k[0]]), "energy": float(pr.energy[k[0]])}


# ----------------------------------------------------------------------------- dynamic ----

def dynamic_runs(cfg: dict, info: dict, doc: dict, deadline: float) -> None:
    rows_a, k, N = cfg["dyn_rows"], cfg["dyn_k"], cfg["dyn_n"]
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((rows_a, k)), rng.standard_normal((k, N))
    task = wd.GemmColumnsTask(A, B)
    del A, B
    gpu = info["cupy_gpu"] and wd.gpu_available()
    cpu_threads = max(1, (os.cpu_count() or 2) - 1)
    out = doc.setdefault("dynamic", {})
    out.update({"job": f"C = A B by columns, A {rows_a} x {k}, B {k} x {N}, float64",
                "n": N, "stand_in": not gpu, "cpu_threads": cpu_threads, "runs": []})

    def workers():
        if gpu:
            return [wd.ThreadWorker(threads=cpu_threads), wd.CupyWorker()]
        return [wd.ThreadWorker(threads=1), wd.ThreadWorker(threads=1, throttle=3.0)]

    out["workers"] = [repr(w) for w in workers()]
    if gpu:  # CUDA context, cuBLAS and the memory pool ready before the first timed run
        import cupy as cp
        (cp.ones((64, 64)) @ cp.ones((64, 64))).sum().get()
    x0 = max(1, N // 256)
    balancers = {
        "static-equal": lambda: wd.StaticEqual(2, N),
        "plbhac-robust": lambda: wd.PLBHAC(2, N, pu_kinds=["cpu", "gpu"], preset="robust", x_init=x0),
        "plbhac-paper": lambda: wd.PLBHAC(2, N, pu_kinds=["cpu", "gpu"], preset="paper", x_init=x0,
                                          step_time=0.05, tail_floor_time=0.01),
        "hdss": lambda: wd.HDSS(2, N, x_init=x0, min_chunk=max(1, x0 // 4)),
        "greedy": lambda: wd.Greedy(2, N, chunk=max(1, N // 64)),
    }
    for rep in range(cfg["dyn_reps"]):  # rep-major: every balancer runs once before any twice
        for name, make in balancers.items():
            if time.perf_counter() > deadline:
                out.setdefault("skipped", []).append(f"{name} rep {rep}: stage budget spent")
                continue
            try:
                task.reset()
                res = wd.run(make(), task, workers(), time_limit=cfg["dyn_time_limit"])
                ok = bool(task.verify()) if rep == 0 else None
                tr = res.trace
                row = {"balancer": name, "rep": rep, "status": res.status, "makespan": res.makespan,
                       "elements": res.elements.tolist(), "shares": res.shares.tolist(),
                       "busy": res.busy.tolist(), "idle": res.idle.tolist(),
                       "idle_pct": (100 * res.idle_frac).tolist(), "blocks": int(len(tr)),
                       "blocks_per_pu": np.bincount(tr["pu"], minlength=2).tolist(),
                       "n_evals": res.n_evals, "eval_time": res.eval_time,
                       "t_xfer_gpu": float(tr["t_xfer"][tr["pu"] == 1].sum()),
                       "verified": ok, "wall": res.stats["wall"]}
            except Exception as exc:  # noqa: BLE001
                row = {"balancer": name, "rep": rep, "error": f"{type(exc).__name__}: {exc}",
                       "traceback": traceback.format_exc()[-2000:]}
            out["runs"].append(row)
            if "error" in row:
                log(f"[dynamic] {name} rep {rep}: FAILED {row['error']}")
            else:
                log(f"[dynamic] {name:14s} rep {rep}: makespan {row['makespan'] * 1e3:8.1f} ms  elements "
                    f"{row['elements']}  idle% {[round(x, 1) for x in row['idle_pct']]}  blocks "
                    f"{row['blocks_per_pu']}  evals {row['n_evals']}  verified {row['verified']}")
    summarise_dynamic(out)


def summarise_dynamic(out: dict) -> None:
    """Per balancer: median and best makespan, GPU share, idle %; against two ideals.

    ``ideal_own``: ``n / (r_cpu + r_gpu)`` with the rates (elements per busy second) the run
    itself achieved (its blocks' sizes change a PU's rate), so ``balance_eff = ideal_own /
    makespan`` is how well the run's finishing times lined up. ``ideal_best``: the same with
    each PU's best rate over all runs, a lower bound on any of these runs' makespan.
    """
    ok = [r for r in out["runs"] if "error" not in r and r["status"] == "feasible"]
    if not ok:
        return
    n = out["n"]
    for r in ok:
        rates = np.asarray(r["elements"], float) / np.maximum(np.asarray(r["busy"], float), 1e-12)
        r["rate_elements_per_s"] = rates.tolist()
        r["ideal_own"] = float(n / rates.sum())
        r["balance_eff"] = r["ideal_own"] / r["makespan"]
    best = np.max([r["rate_elements_per_s"] for r in ok], axis=0)
    out["best_rate_elements_per_s"] = best.tolist()
    out["ideal_best"] = float(n / best.sum())
    out.pop("mean_rate_elements_per_s", None)
    out.pop("ideal_makespan", None)
    summ = {}
    for name in dict.fromkeys(r["balancer"] for r in ok):
        mine = [r for r in ok if r["balancer"] == name]
        ms = [r["makespan"] for r in mine]
        summ[name] = {"runs": len(ms), "makespan_median": float(np.median(ms)),
                      "makespan_min": float(np.min(ms)),
                      "share_gpu_median": float(np.median([r["shares"][1] for r in mine])),
                      "idle_pct_median": np.median([r["idle_pct"] for r in mine], axis=0).tolist(),
                      "balance_eff_median": float(np.median([r["balance_eff"] for r in mine])),
                      "vs_ideal_best": float(np.median(ms)) / out["ideal_best"]}
    out["summary"] = summ


# ------------------------------------------------------------------------------ opencl ----

def opencl_probe(doc: dict, quick: bool, budget: float) -> None:
    """The multi-kernel OpenCL Runtime ([Soldado 2016]) on every OpenCL device found: the GPU
    share `s` swept for Saxpy and the filter pipeline (best wall of 3 runs each, result
    checked), then the imbalance detector + adaptive binary search rebalancing real runs
    (Sec. 3.3) from s = 0.5. With one device type only, one run per benchmark."""
    from wpart.multikernel import opencl as O
    deadline = time.perf_counter() + budget
    out = doc.setdefault("opencl", {})
    why = O.unavailable_reason()
    out["unavailable_reason"] = why
    if why is not None:
        return
    rt = O.Runtime()
    out["devices"] = [{k: v for k, v in d.items() if isinstance(v, (str, int, float, bool, list))}
                      for d in rt.describe()]
    both = rt.n_gpus > 0 and rt.cpu_subdevices > 0
    grid = [0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0] if both else [None]
    comps = {"saxpy": lambda: O.Saxpy(1 << (14 if quick else 24), seed=0),
             "filter": lambda: O.FilterPipeline(128 if quick else 4096, seed=0)}
    out["sweep"] = []
    for name, make in comps.items():
        comp = make()
        rt.run(comp, s=grid[0])  # compile and warm
        for sv in grid:
            if time.perf_counter() > deadline:
                out.setdefault("skipped", []).append(f"{name} s={sv}")
                continue
            runs = [rt.run(comp, s=sv) for _ in range(1 if quick else 3)]
            best = min(runs, key=lambda r: r.wall)
            out["sweep"].append({"benchmark": name, "s": sv, "s_eff": best.s_eff, "wall": best.wall,
                                 "device_times": best.device_times, "check": bool(runs[0].check()),
                                 "walls": [r.wall for r in runs]})
            log(f"[opencl] {name:7s} s={sv}: wall {best.wall * 1e3:8.2f} ms  device times "
                f"{ {k: round(v * 1e3, 2) for k, v in best.device_times.items()} } ms  check {out['sweep'][-1]['check']}")
    if both and time.perf_counter() < deadline:
        import wpart.dynamic as D
        comp = comps["filter"]()
        det, abs_ = D.ImbalanceDetector(), D.AdaptiveBinarySearch(0.5)
        sv, traj = 0.5, []
        for _ in range(4 if quick else 12):
            r = rt.run(comp, s=sv)
            tg = max(v for k, v in r.device_times.items() if k.startswith("gpu"))
            tc = r.device_times.get("cpu", 0.0)
            fire, dev = det.update([tg, tc])
            traj.append({"s": sv, "t_gpu": tg, "t_cpu": tc, "wall": r.wall, "fire": bool(fire)})
            sv = float(abs_.step(tg, tc)) if fire else sv
        out["abs_filter"] = traj
        log(f"[opencl] adaptive binary search (filter): s {[round(t['s'], 3) for t in traj]}")


# --------------------------------------------------------------------------------- main ----

def config(quick: bool) -> dict:
    if quick:
        return {"quick": True, "K": 64, "g": 32, "points": 8, "cpu_target": 0.002, "gpu_target": 0.002,
                "idle_s": 0.2, "cpu_budget": 2.0, "gpu_budget": 2.0, "workloads": [128, 256],
                "dyn_rows": 96, "dyn_k": 96, "dyn_n": 2048, "dyn_reps": 1, "dyn_time_limit": 30.0,
                "dyn_budget": 8.0}
    return {"quick": False, "K": 2048, "g": 256, "points": 32, "cpu_target": 0.03, "gpu_target": 0.05,
            "idle_s": 2.0, "cpu_budget": 45.0, "gpu_budget": 35.0, "workloads": [4096, 8192, 12288],
            "dyn_rows": 2048, "dyn_k": 2048, "dyn_n": 131072, "dyn_reps": 3, "dyn_time_limit": 60.0,
            "dyn_budget": 120.0}


def figure(doc: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    h = doc.get("hetero", {})
    for p in h.get("profiles", []):
        ax[0].plot(p["sizes"], p["time"], ".-", label=p["name"])
    ax[0].set(xlabel="rows of A", ylabel="time (s)", title=f"profiles, K={h.get('K')}")
    ax[0].legend(fontsize="small")
    an = h.get("analysis", [])
    if an:
        r = an[len(an) // 2]
        ax[1].plot(r["front"]["time"], r["front"]["energy"], "o-", ms=3, label="front (HEPOPTA)")
        if r["balanced"]["time"] is not None:
            ax[1].plot([r["balanced"]["time"]], [r["balanced"]["energy"]], "rs", label="load-balanced")
        if r["topt"]["time"] is not None:
            ax[1].plot([r["topt"]["time"]], [r["topt"]["energy"]], "k*", ms=10, label="TOPT")
        unmetered = str(h.get("cpu_energy", "")).startswith("not measured")
        ax[1].set(xlabel="time (s)", title=f"n = {r['n']}",
                  ylabel="GPU dynamic energy (J; CPU not metered)" if unmetered else "dynamic energy (J)")
        ax[1].legend(fontsize="small")
    s = doc.get("dynamic", {}).get("summary", {})
    if s:
        names = list(s)
        ax[2].bar(names, [s[k]["makespan_median"] * 1e3 for k in names])
        if "ideal_best" in doc["dynamic"]:
            ax[2].axhline(doc["dynamic"]["ideal_best"] * 1e3, color="k", ls="--", label="n / (best r_cpu + best r_gpu)")
            ax[2].legend(fontsize="small")
        ax[2].set(ylabel="makespan (ms, median)", title="wpart.dynamic.run, CPU + GPU worker")
        ax[2].tick_params(axis="x", labelrotation=30)
    fig.suptitle(f"{doc['platform'].get('gpu') or 'CPU-only stand-in'}  |  {doc['platform']['cpu_model']}",
                 fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes: seconds, CPU-only machines too")
    ap.add_argument("--out", default="device_hetero_dynamic.json", help="JSON path (the figure goes beside it)")
    ap.add_argument("--only", nargs="*", default=["hetero", "dynamic", "opencl"],
                    choices=["hetero", "dynamic", "opencl"])
    ap.add_argument("--no-figure", action="store_true")
    args = ap.parse_args(argv)
    cfg = config(args.quick)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    doc: dict = {"config": cfg, "errors": {}, "stage_seconds": {}}

    def save() -> None:
        out.write_text(json.dumps(doc, indent=1, default=_jsonable))

    def stage(name: str, fn) -> None:
        t0 = time.perf_counter()
        log(f"== {name}")
        try:
            fn()
        except Exception as exc:  # noqa: BLE001  (recorded; the next stage still runs)
            doc["errors"][name] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-3000:]}"
            log(f"[{name}] FAILED: {type(exc).__name__}: {exc}")
        doc["stage_seconds"][name] = time.perf_counter() - t0
        save()

    stage("platform", lambda: doc.__setitem__("platform", platform_info()))
    info = doc.get("platform") or {"torch_gpu": False, "cupy_gpu": False, "rapl": False, "cpu_model": "?"}
    if not (info.get("torch_gpu") or info.get("cupy_gpu")):
        log("no GPU (CuPy / PyTorch CUDA): running the CPU-only stand-in")
    if "hetero" in args.only:
        stage("hetero_measure", lambda: hetero_measure(cfg, info, doc))
        if doc.get("hetero", {}).get("profiles") and len(doc["hetero"]["profiles"]) == 2:
            stage("hetero_analyse", lambda: hetero_analyse(doc, cfg["workloads"]))
    if "dynamic" in args.only:
        stage("dynamic", lambda: dynamic_runs(cfg, info, doc, time.perf_counter() + cfg["dyn_budget"]))
    if not args.no_figure:
        stage("figure", lambda: figure(doc, out.with_suffix(".png")))
    if "opencl" in args.only:  # last: an OpenCL driver's first compile can be slow
        stage("opencl", lambda: opencl_probe(doc, cfg["quick"], 15.0 if cfg["quick"] else 120.0))
    doc["seconds"] = time.perf_counter() - t_start
    save()
    log(f"wrote {out} in {doc['seconds']:.1f} s; errors: {sorted(doc['errors']) or 'none'}")
    return 0


def _jsonable(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return repr(x)


if __name__ == "__main__":
    sys.exit(main())
