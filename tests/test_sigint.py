"""Ctrl-C stops every long call quickly and leaves a usable interpreter.

Each case runs in a subprocess: the child builds its input, says READY, starts the long call;
the parent sends SIGINT a moment later and the child reports when KeyboardInterrupt reached
it (CLOCK_MONOTONIC is shared by both processes) and then runs a small call. The goal, 0.35 s,
is asserted on the best of up to three attempts per case (one loaded moment of this shared
machine does not decide it, a real regression fails every attempt), and every attempt must
stay under the hard bound of 1.5 s. Every public long-running entry point has a case in CASES
(or its own test, OWN_TESTS); SLOW_CASES holds the reported sizes (``-m slow``).
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from oracles.mpirun import MPIRUN, mpi_env, needs_mpi

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# seconds: responsiveness, not speed. GOAL (0.35 s) holds for the best of up to three attempts
# of every case (each test prints its latencies); BOUND (1.5 s) for every attempt, the margin
# of a loaded machine. Uninterrupted, every case runs for seconds to minutes. Under ASan + UBSan
# (the suite's second pass, several times slower) both are 5 s: the check there is that every
# path still stops, not its latency.
SANITIZED = os.environ.get("WPART_SANITIZED") == "1"
BOUND = 5.0 if SANITIZED else 1.5
GOAL = BOUND if SANITIZED else 0.35
ATTEMPTS = 3

PROFILES = """
import numpy as np
def prof(p, m, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(p):
        s = np.arange(1, m + 1)
        t = s * (1 + i) * (1 + 0.1 * rng.random(m))
        e = s * (2 - 0.3 * i) * (1 + 0.1 * rng.random(m))
        out.append((s, t, e))
    return out
"""

# a 4096 x 4096 matrix: the prefix sum alone is ~0.5 s, then the method
SPATIAL_BIG = ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
               "A = I.uniform(4096, delta=1.2, seed=0)")

# 12000 x 12000 (1.15 GB) for the uniform grids, whose work is the prefix sum, and the fast
# heuristics (on 8192 x 8192 a warm machine ran jag_m_probe in 0.9 s: it ended before the
# signal at 0.7 s; here 5 s)
SPATIAL_XL = ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
              "A = I.uniform(12000, delta=1.2, seed=0)")

CASES = {
    # 4 x 250 000 = 10^6 measured points
    "hetero_optimal_time": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 250_000))",
                            "wh.optimal_time(P, 500_000)"),
    "hetero_pareto_front": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 250_000))",
                            "wh.pareto_front(P, 500_000)"),
    "hetero_threshold_front": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 250_000))",
                               "wh.threshold_dp_front(P, 500_000)"),
    "hetero_load_balanced": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 250_000))",
                             "wh.load_balanced(P, 500_000)"),
    "hetero_milp_front": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 300))",
                          "wh.milp_front(P, 600)"),
    "milp_knapsack": ("""
import numpy as np, wpart.milp as milp
rng = np.random.default_rng(7)
A = rng.integers(0, 100, size=(4, 40)).astype(float)
b = np.floor(A.sum(axis=1) / 2)
""", "milp.solve(np.ones(40), A=A, b_lower=b, b_upper=b, integrality=2)"),
    # an endless depth-first dive (2x - 2y = 1 has no integer point): no node is ever
    # selected from the active list, so the callback must poll at every reason
    "milp_endless_dive": ("import numpy as np, wpart.milp as milp",
                          "milp.solve([0, 0], A=[[2, -2]], b_lower=[1], b_upper=[1], "
                          "lb=-np.inf, integrality=1)"),
    # a pure LP of some seconds: glp_simplex runs in slices with a poll between them
    "milp_large_lp": ("""
import numpy as np, wpart.milp as milp
rng = np.random.default_rng(0)
k = 72_000  # 3000 x 6000, density 0.004, as (rows, cols, values, shape)
A = (rng.integers(0, 3000, k), rng.integers(0, 6000, k), 10 * rng.random(k), (3000, 6000))
c = -rng.random(6000)
""", "milp.solve(c, A=A, b_upper=np.full(3000, 10.0), ub=10.0)"),
    "partition_1d_dp": ("import numpy as np, wpart\n"
                        "a = np.random.default_rng(0).integers(0, 1000, 2_000_000)",
                        "wpart.partition_1d(a, 5000, method='dp')"),
    "spatial_jag_m_opt": ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
                          "A = I.uniform(1024, delta=1.2, seed=0)",
                          "sp.jag_m_opt(A, 4000, orient='hor', time_limit=600)"),
    "tasks_balance": ("import wpart.tasks as tasks\np = tasks.gemma_like(m=64, n_tasks=8955, n_blocks=896, seed=0)",
                      "tasks.balance(p, seed=0, n_iter=10_000, time_limit=1e6)"),
    "tasks_solve_milp": ("import wpart.tasks as tasks\np = tasks.gemma_like(m=8, n_tasks=120, n_blocks=16, seed=0)",
                         "tasks.solve_milp(p, delta=1e-9, time_limit=None)"),
    "dynamic_simulate": ("""
from wpart.dynamic import Platform, Greedy, simulate
pl = Platform.preset("linear4")
b = Greedy(4, 2**40, chunk=1)
""", "simulate(pl, b, trace=False)"),
    "dynamic_simulate_plbhac": ("""
from wpart.dynamic import Platform, PLBHAC, simulate
pl = Platform.preset("linear4")
b = PLBHAC(4, 2**40, x_init=1, preset="paper")  # (the robust default ends in ms)
""", "simulate(pl, b, trace=False)"),
    # PLB-HAC (the paper's preset: the robust default ends these in milliseconds) on the paper's
    # five-machine stand-in at W = 2^30 (~5-20 s uninterrupted)
    "dynamic_simulate_plbhac_paper5_2_30": ("from wpart.dynamic import simulate",
                                            "simulate('paper5', 'plbhac', n=2**30, trace=False, options={'preset': 'paper'})"),
    "dynamic_run": ("""
import time
from wpart.dynamic import CallableWorker, Greedy, run
def kern(off, size):
    time.sleep(0.001)
ws = [CallableWorker(kern) for _ in range(3)]
""", "run(Greedy(3, 10**9, chunk=1), None, ws)"),
    "dynamic_oracle_milp": ("""
import numpy as np, wpart.dynamic as d
def curve(a, k):
    return lambda x: a * np.asarray(x, dtype=float) ** k + 0.1 * np.sin(np.asarray(x, dtype=float))
fs = [curve(1.0 + 0.13 * i, 0.6 + 0.05 * (i % 7)) for i in range(24)]
""", "d.oracle_milp(fs, 1_000_003, breakpoints=200, time_limit=None)"),
    # 6 processors x 60 points: ~5e10 leaves of enumeration
    "hetero_bruteforce_front": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(6, 60))",
                                "wh.bruteforce_front(P, 180, max_leaves=10**12)"),
    "hetero_optimal_energy": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 250_000))",
                              "wh.optimal_energy(P, 500_000)"),
    # m = 5*10^6 speeds: one probe is O(m log n), the first part's search probes ~20 times
    "partition_1d_nicol_speeds": ("import numpy as np, wpart\nrng = np.random.default_rng(0)\n"
                                  "a = rng.random(10**7)\ns = rng.uniform(1, 4, 5 * 10**6)",
                                  "wpart.partition_1d(a, 5 * 10**6, method='nicol', speeds=s)"),
    "partition_1d_bisect": ("import numpy as np, wpart\nrng = np.random.default_rng(0)\n"
                            "a = rng.random(10**7)",
                            "wpart.partition_1d(a, 5 * 10**6, method='bisect')"),
    "spatial_jag_pq_opt_dp": ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
                              "A = I.uniform(2048, delta=1.2, seed=0)",
                              "sp.jag_pq_opt_dp(A, 1024)"),
    "dynamic_simulate_plbhac_2_62": ("""
from wpart.dynamic import Platform, PLBHAC, simulate
pl = Platform.preset("linear4")
b = PLBHAC(4, 2**62, preset="paper")
""", "simulate(pl, b, trace=False)"),
    "spatial_jag_pq_opt_nicol": ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
                                 "A = I.uniform(2048, delta=1.2, seed=0)",
                                 "sp.jag_pq_opt_nicol(A, 4000)"),
    "spatial_jag_m_alloc": ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
                            "A = I.uniform(2048, delta=1.2, seed=0)",
                            "sp.jag_m_alloc(A, 4000)"),
    "spatial_hybrid": (SPATIAL_XL, "sp.hybrid(A, 4000)"),
    "spatial_hier_opt": ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
                         "A = I.uniform(24, delta=1.2, seed=0)",
                         "sp.hier_opt(A, 32, time_limit=None)"),
    # a MILP over every sub-rectangle of an 8 x 8 matrix (GLPK's hooks; minutes without a limit)
    "spatial_general_optimum": ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
                                "A = I.uniform(8, delta=1.2, seed=0)",
                                "sp.general_optimum(A, 6, time_limit=None)"),
    # the rounding's water-level step over 1.5 * 10^6 PUs from x_cont = 0 (seconds uninterrupted):
    # the solve and the rounding poll between PUs
    "dynamic_round_blocks_many_pus": ("""
import numpy as np, wpart.dynamic as d
fs = [d.fit_model(np.array([10, 20, 40, 80]), np.array([1.0, 2.1, 4.3, 8.9]) * (1 + p))
      for p in range(7)]
ms = [fs[p % 7] for p in range(1_500_000)]
x0 = np.zeros(1_500_000)
""", "d.round_blocks(ms, x0, 10**12)"),
    # several simulations in a row: the interrupt reaches whichever is running
    "dynamic_compare": ("""
from wpart.dynamic import Platform, PLBHAC, Greedy, compare
pl = Platform.preset("linear4")
algos = {"greedy": lambda: Greedy(4, 2**40, chunk=1), "plbhac": lambda: PLBHAC(4, 2**40, preset="paper")}
""", "compare(pl, algos, seeds=range(3), progress=False, trace=False)"),
    # Ctrl-C in the children's start-up or the chunked transfer of 256 MB of inputs
    "dynamic_run_process": ("""
import numpy as np
from wpart.dynamic import GemmColumnsTask, ProcessWorker, Static, run
task = GemmColumnsTask(np.ones((8, 8)), np.ones((8, 2**22)))
ws = [ProcessWorker(), ProcessWorker()]
""", "run(Static([2**21, 2**21]), task, ws)"),
    # 12000 x 12000 float64 (1.15 GB): seconds in one pass (8192^2 now ends before the signal
    # on an idle machine); the spatial methods start with it too
    "prefix_sum_12000": ("import numpy as np, wpart\nA = np.ones((12000, 12000))",
                         "wpart.prefix_sum(A)"),
    # a worker whose callable never returns: abandoned (a daemon thread) after 0.25 s
    "dynamic_run_hung_worker": ("""
import threading
from wpart.dynamic import CallableWorker, Greedy, run
never = threading.Event()
ws = [CallableWorker(lambda off, size: never.wait()), CallableWorker(lambda off, size: None)]
""", "run(Greedy(2, 100, chunk=10), None, ws)"),
    # the reproductions: split at P = 10^7 (was 112 s at 10^6), synthetic at m = 10^5
    "multikernel_split": ("import numpy as np, wpart.multikernel as mk\n"
                          "rng = np.random.default_rng(0)\nsh = rng.random(10**7)\n"
                          "q = np.ones(10**7, np.int64)",
                          "mk.split(10**12, sh, q)"),
    "hetero_synthetic": ("import wpart.hetero as wh", "wh.synthetic(m=100_000)"),
    "hetero_linear_profiles": ("import wpart.hetero as wh",
                               "wh.linear_profiles([1.0] * 2000, [1.0] * 2000, 2**16)"),
    "hetero_compare": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 250_000))",
                       "wh.compare(P, 500_000, time_limit=None)"),
    "dynamic_solve_equal_time_many_pus": ("""
import numpy as np, wpart.dynamic as d
fs = [d.fit_model(np.array([10, 20, 40, 80]), np.array([1.0, 2.1, 4.3, 8.9]) * (1 + p))
      for p in range(7)]
ms = [fs[p % 7] for p in range(4_000_000)]
""", "d.solve_equal_time(ms, 10**12)"),
    "dynamic_equal_finish_many_pus": ("""
import numpy as np, wpart.dynamic as d
fs = [d.fit_model(np.array([10, 20, 40, 80]), np.array([1.0, 2.1, 4.3, 8.9]) * (1 + p))
      for p in range(7)]
ms = [fs[p % 7] for p in range(4_000_000)]
""", "d.equal_finish(ms, 10**12)"),
    "compare_1d": ("import numpy as np, wpart\na = np.random.default_rng(0).random(10**7)",
                   "wpart.compare_1d(a, 5 * 10**6, time_limit=None)"),
    "spatial_hier_rb": (SPATIAL_XL, "sp.hier_rb(A, 2**18)"),
    "spatial_hier_relaxed": (SPATIAL_XL, "sp.hier_relaxed(A, 2**18)"),
    "spatial_jag_m_heur": (SPATIAL_XL, "sp.jag_m_heur(A, 2**18)"),
    "spatial_jag_m_heur_probe": (SPATIAL_XL, "sp.jag_m_heur_probe(A, 2**18)"),
    "spatial_jag_m_iter": (SPATIAL_BIG, "sp.jag_m_iter(A, 4096)"),
    "spatial_jag_m_probe": (SPATIAL_XL, "sp.jag_m_probe(A, 2**18)"),
    "spatial_jag_pq_heur": (SPATIAL_XL, "sp.jag_pq_heur(A, 2**18)"),
    "spatial_rect_nicol": (SPATIAL_BIG, "sp.rect_nicol(A, 4096)"),
    "spatial_rect_refine": (SPATIAL_BIG, "sp.rect_refine(A, 4096)"),
    "spatial_rect_sym_opal": (SPATIAL_BIG, "sp.rect_sym_opal(A, 4096)"),
    "spatial_rect_sym_pal": (SPATIAL_BIG, "sp.rect_sym_pal(A, 4096)"),
    "spatial_rect_sym_rac": (SPATIAL_BIG, "sp.rect_sym_rac(A, 4096)"),
    "spatial_rect_sym_refine": (SPATIAL_BIG, "sp.rect_sym_refine(A, 4096)"),
    # (three calls: one takes 3.5 s where its pages fault in one by one, 0.4 s where the
    # kernel has transparent huge pages at hand or a call before left them; CI once saw
    # rect_uniform end before the signal at 0.7 s)
    "spatial_rect_sym_uniform": (SPATIAL_XL, "sp.rect_sym_uniform(A, 2**24); "
                                 "sp.rect_sym_uniform(A, 2**24); sp.rect_sym_uniform(A, 2**24)"),
    "spatial_rect_uniform": (SPATIAL_XL, "sp.rect_uniform(A, 2**24); sp.rect_uniform(A, 2**24); "
                             "sp.rect_uniform(A, 2**24)"),
    "spatial_partition": (SPATIAL_XL, "sp.partition(A, 2**18)"),
    "spatial_compare": (SPATIAL_BIG, "sp.compare(A, 4096, time_limit=None)"),
    # 3 * 10^7 coordinate entries (~270 MB, duplicates summed): scipy's reader takes seconds
    "spatial_read_matrix": ("""
import atexit, os, shutil, tempfile, wpart.spatial as sp
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
path = os.path.join(tmp, "a.mtx")
with open(path, "w") as f:
    f.write("%%MatrixMarket matrix coordinate integer general\\n1000 1000 30000000\\n")
    f.write("".join("%d %d %d\\n" % (i % 1000 + 1, i // 1000 + 1, i % 7 + 1)
                    for i in range(10**6)) * 30)
""", "sp.read_matrix(path)"),
    "hetero_pareto_milp": (PROFILES + "import wpart.hetero as wh\nP = wh.ProfileSet.from_arrays(prof(4, 300))",
                           "wh.pareto_milp(P, 600)"),
    # the measuring helpers run the caller's Python: Ctrl-C reaches it between (or inside) calls.
    # Their first call imports scipy.stats (0.5-1 s); the setup does it first: a Ctrl-C that
    # lands inside an extension module's import makes CPython 3.11 exit by SIGINT (-2) at the
    # end even when the script caught the KeyboardInterrupt (CI saw INT, OK, then -2 once; a
    # bare `import scipy.stats` interrupted at 0.3 s does the same), not what these cases test
    "hetero_measure": ("import time, scipy.stats, wpart.hetero as wh",
                       "wh.measure(lambda n: time.sleep(0.01), [1, 2, 3, 4], min_reps=1000, "
                       "max_reps=1000, max_time=1e6, eps=1e-9)"),
    "hetero_mean_until_precise": ("import time, scipy.stats, wpart.hetero as wh",
                                  "wh.mean_until_precise(lambda: time.sleep(0.01) or 0.01, "
                                  "min_reps=1000, max_reps=1000, max_time=1e6)"),
    # 10^6 divisors: one simulation each
    "dynamic_oracle_stepped": ("import wpart.dynamic as d\npl = d.Platform.preset('linear4')",
                               "d.oracle_stepped(pl, 2**40, divisors=range(1, 10**6))"),
    # 4^16 assignments of 16 blocks to 4 ranks
    "tasks_brute_force": ("import wpart.tasks as tasks\n"
                          "p = tasks.gemma_like(m=4, n_tasks=16, n_blocks=16, seed=0)",
                          "tasks.brute_force(p, max_states=10**12)"),
    # 16 x 2000 (its MILP runs minutes)
    "tasks_compare": ("import wpart.tasks as tasks\n"
                      "p = tasks.gemma_like(m=16, n_tasks=2000, n_blocks=100, seed=0)",
                      "tasks.compare(p, time_limit=None)"),
    # the exact MILP of 64 ranks x 8955 tasks (573 120 binary columns): GLPK's load, scaling and
    # presolve run seconds without a hook; milp_solve runs GLPK in a worker thread
    "tasks_solve_milp_64x8955": ("import wpart.tasks as tasks\n"
                                 "p = tasks.gemma_like(m=64, n_tasks=8955, n_blocks=896, seed=0)",
                                 "tasks.solve_milp(p, time_limit=None)"),
    "tasks_gap_study": ("import wpart.tasks as tasks", "tasks.gap_study(1000, time_limit=None)"),
    "tasks_paper_scale_study": ("import wpart.tasks as tasks", "tasks.paper_scale_study()"),
    # the generators at their 2^24 caps (~10 s and ~2 s uninterrupted)
    "tasks_gemma_like": ("import wpart.tasks as tasks",
                         "tasks.gemma_like(m=1000, n_tasks=2**24 - 1, n_blocks=10**6, "
                         "comm_degree=4.0, seed=0)"),
    "tasks_random_problem": ("import wpart.tasks as tasks",
                             "tasks.random_problem(2**20, 2**24 - 1, 2**24 - 1, 2**24 - 1, seed=0, "
                             "memory=True, rank_alpha=True)"),
    "tasks_run_protocol": ("import wpart.tasks as tasks\n"
                           "p = tasks.gemma_like(m=64, n_tasks=8955, n_blocks=896, seed=0)",
                           "tasks.run_protocol(p, n_iter=10**6, max_events=10**12)"),
    # a set of 2 * 10^6 tasks written, one of 3 * 10^5 read
    "tasks_write_lbdatafile": ("""
import atexit, os, shutil, tempfile, wpart.tasks as tasks
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
p = tasks.gemma_like(m=1000, n_tasks=2_000_000, n_blocks=200_000, seed=0)
""", "tasks.write_lbdatafile(p, os.path.join(tmp, 'big'))"),
    "tasks_read_lbdatafile": ("""
import atexit, os, shutil, tempfile, wpart.tasks as tasks
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
paths = tasks.write_lbdatafile(tasks.gemma_like(m=64, n_tasks=300_000, n_blocks=30_000, seed=0),
                               os.path.join(tmp, 'big'))
""", "tasks.read_lbdatafile(paths)"),
    # an RBF over 3000 nodes (the O(n^3) solve, ~3 s) evaluated at 10^6 points (~20 s)
    "multikernel_interpolate": ("import numpy as np, wpart.multikernel as mk\n"
                                "rng = np.random.default_rng(0)\nX = rng.random((3000, 2))\n"
                                "y = rng.random(3000)\nx = rng.random((10**6, 2))",
                                "mk.interpolate(X, y, x)"),
    # 500 000 tasks on 64 ranks: 3.2 * 10^7 columns, 6.4 * 10^7 nonzeros (1.35 CPU-s to build,
    # 2.3 GB; 300 000 tasks took 0.75 CPU-s: too close to the signal on an idle machine)
    "tasks_milp_model": ("import wpart.tasks as tasks\n"
                         "p = tasks.gemma_like(m=64, n_tasks=500_000, n_blocks=50_000, seed=0)",
                         "tasks.milp_model(p)"),
    # 3 * 10^6 nonzeros: GLPK writes the LP file (~90 MB) in 3-5 s, in a child process
    "milp_write_model": ("""
import atexit, os, shutil, tempfile
import numpy as np, wpart.milp as milp
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
rng = np.random.default_rng(0)
k = 3_000_000
A = (rng.integers(0, 10**5, k), rng.integers(0, 2 * 10**5, k), rng.random(k), (10**5, 2 * 10**5))
c = rng.random(2 * 10**5)
""", "milp.write_model(os.path.join(tmp, 'm.lp'), c, A=A, b_upper=np.ones(10**5), integrality=2)"),
    # a platform of 10^5 PUs (the preset's four devices repeated): ~6 s uninterrupted, in
    # Python callables (the true curves) between the polled solve and rounding
    "dynamic_oracle_oneshot_many_pus": ("import wpart.dynamic as d\npl = d.Platform.preset('linear4')\n"
                                        "P = d.Platform([pl.devices[i % 4] for i in range(10**5)])",
                                        "d.oracle_oneshot(P, 2**40)"),
    # the caller's kernels and meter run long (0.3 s and 0.2 s a call), alone and in threads
    "hetero_additivity_check": ("""
import time, wpart.hetero as wh
class Meter:
    def start(self):
        self.t = time.monotonic()
    def stop(self):
        time.sleep(0.2)
        return 1.0 + (time.monotonic() * 1e6) % 1.0, time.monotonic() - self.t
ks = [lambda x: time.sleep(0.3), lambda x: time.sleep(0.3)]
""", "wh.additivity_check(ks, [1, 2, 3], Meter(), min_reps=1000, max_reps=1000, eps=1e-9)"),
    # a measuring callable of 0.5 s a call
    "multikernel_build_profile": ("""
import time, wpart.multikernel as mk
def measure(f, o, w, s):
    time.sleep(0.5)
    return max(0.5 * s, 1.0 - s), 0.5 * s, 1.0 - s
""", "mk.build_profile(measure, sct_id='k', workload=(1000,), fission=('L1', 'L2', 'NONE'), "
     "overlaps=(1, 2, 3), n_exec=1000)"),
    # PacedRuntime runs of 2-3 s each: the CPU's share is one C kernel call on a PU thread, the
    # accelerator's share is computed after the run on the calling thread
    "multikernel_adaptive_runs": ("""
import atexit, os, shutil, tempfile
import numpy as np
import wpart.multikernel as mk
from wpart.dynamic import GemmColumnsTask
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
rng = np.random.default_rng(0)
task = GemmColumnsTask(rng.random((256, 256)), rng.random((256, 2**16)))
rt = mk.PacedRuntime(acc_rate=2e4)
kb = mk.KnowledgeBase(os.path.join(tmp, 'kb.json'), autosave=False)
""", "mk.adaptive_runs(rt, task, runs=10**6, kb=kb)"),
}

# Big variants of the cases above (the sizes of the reports), excluded from the default run.
SLOW_CASES = {
    "spatial_jag_pq_opt_dp_4096": ("import wpart.spatial as sp\nfrom wpart.spatial import instances as I\n"
                                   "A = I.uniform(4096, delta=1.2, seed=0)",
                                   "sp.jag_pq_opt_dp(A, 1024)"),
    "dynamic_run_process_800mb": ("""
import numpy as np
from wpart.dynamic import GemmColumnsTask, ProcessWorker, Static, run
task = GemmColumnsTask(np.ones((8, 8)), np.ones((8, 100 * 2**17)))
ws = [ProcessWorker(), ProcessWorker()]
""", "run(Static([50 * 2**17, 50 * 2**17]), task, ws)"),
}

AFTER = "import wpart; assert wpart.partition_1d([1, 2, 3], 2).max_load == 3"

CHILD = """
import sys, time
{setup}
print("READY", flush=True)
try:
    {call}
    print("FINISHED", flush=True)
except KeyboardInterrupt:
    print("INT", repr(time.monotonic()), flush=True)
{after}
print("OK", flush=True)
"""


def _run(name: str, delay: float = 0.7) -> float:
    setup, call = CASES[name] if name in CASES else SLOW_CASES[name]
    return _run_code(name, setup, call, delay)


#: the shortest delay tried when a call ends before its signal (a fast machine or a warm cache)
MIN_DELAY = 0.05


def _run_code(name: str, setup: str, call: str, delay: float = 0.7) -> float:
    """Seconds from the SIGINT to the child's KeyboardInterrupt, for `call` after `setup`.
    A call that ended before the signal runs again with half the delay, down to MIN_DELAY
    (CI's machines differ: jag_m_heur on 12000^2 once ended within 0.7 s)."""
    while True:
        latency = _run_once(name, setup, call, delay)
        if latency is not None:
            return latency
        assert delay > MIN_DELAY, f"{name}: the call ended before the signal even at " \
                                  f"{delay:.2f} s; make it longer"
        delay = max(MIN_DELAY, delay / 2)


def _run_once(name: str, setup: str, call: str, delay: float) -> float | None:
    """_run_code's one child: the latency, or None when the call ended before the signal."""
    code = CHILD.format(setup=textwrap.dedent(setup), call=call, after=AFTER)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        line = p.stdout.readline()
        assert line.strip() == "READY", line + p.stderr.read()
        time.sleep(delay)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = out.split()
    if "FINISHED" in lines:
        return None
    assert p.returncode == 0 and "OK" in lines, out + err
    got = float(lines[lines.index("INT") + 1])
    return got - sent


#: cases whose call can end before the usual 0.7 s on an idle machine: the SIGINT sooner
DELAYS: dict[str, float] = {
    # one pass over 1.44e8 float64 takes 0.28 s on an idle core (it ended before 0.7 s once)
    "prefix_sum_12000": 0.1,
}


def _best_of(name: str, delay: float | None = None) -> tuple[float, list[float]]:
    """Up to ATTEMPTS runs of a case, until one is within GOAL; each must be within BOUND.
    Returns the best latency and all of them."""
    got: list[float] = []
    if delay is None:
        delay = DELAYS.get(name, 0.7)
    for _ in range(ATTEMPTS):
        latency = _run(name, delay)
        got.append(latency)
        assert latency < BOUND, f"{name}: KeyboardInterrupt {1000 * latency:.0f} ms after SIGINT " \
                                f"(attempts so far: {[round(1000 * x) for x in got]} ms)"
        if latency < GOAL:
            break
    return min(got), got


# ------------------------------------------------------------ the list, from the public API --
# Every public function of every family (from ``__all__``, as the hostile fuzz enumerates them)
# either has a case above (found by parsing the cases' calls: ``sp.jag_m_opt(`` is
# wpart.spatial.jag_m_opt), its own test (OWN_TESTS), or is listed in FAST (cannot run 0.35 s at
# any accepted input: no loop longer than its arguments' NumPy operations or a bounded count)
# or in NO_CASE (a call that can run long, no case yet: xfail). A new public function fails
# test_every_public_function_has_a_case_or_is_exempt until it joins one of them.
_ALIASES = {"wh.": "wpart.hetero.", "sp.": "wpart.spatial.", "milp.": "wpart.milp.",
            "tasks.": "wpart.tasks.", "d.": "wpart.dynamic.", "mk.": "wpart.multikernel.",
            "wpart.": "wpart.", "simulate(": "wpart.dynamic.simulate(",
            "run(": "wpart.dynamic.run(", "compare(": "wpart.dynamic.compare("}

#: public functions whose Ctrl-C test is a test function of its own (not a CASES subprocess)
OWN_TESTS: dict[str, str] = {
    "wpart.dynamic.run_mpi": "test_ctrl_c_ends_an_mpi_job",
}

FAST: dict[str, str] = {
    "wpart.box_loads": "one vectorised pass over the boxes",
    "wpart.probe_1d": "one probe: O(m log n) in C with the prefix sum (partition_1d's cases "
                      "poll the same probe loop)",
    "wpart.spatial.factor_pair": "O(sqrt(m)) integer steps with m <= 2^24 parts",
    "wpart.spatial.allocate": "one greedy over m <= 2^24 parts, O(m log m) in C",
    "wpart.hetero.additivity_report": "NumPy operations on the caller's arrays",
    "wpart.hetero.classify": "NumPy comparisons of two arrays",
    "wpart.hetero.dynamic_energy": "one NumPy expression",
    "wpart.hetero.evaluate": "O(m) lookups",
    "wpart.hetero.hypervolume": "one NumPy sort of the caller's points",
    "wpart.hetero.total_energy_front": "O(points of the front)",
    "wpart.dynamic.fit_model": "a least-squares fit of a few basis columns",
    "wpart.dynamic.make_balancer": "constructs a balancer",
    "wpart.dynamic.capacity": "one inverse per PU, as solve_equal_time's inner step",
    "wpart.milp.solver_version": "a string",
    "wpart.multikernel.quantum": "an lcm over the constraints",
    "wpart.multikernel.level_of_parallelism": "arithmetic",
    "wpart.multikernel.seed_share": "arithmetic on the scores",
    "wpart.multikernel.gpu_fractions": "arithmetic on the scores",
    "wpart.multikernel.exec_shares": "arithmetic on the scores",
    "wpart.multikernel.occupancy": "arithmetic",
    "wpart.multikernel.wgs_candidates": "at most max_wgs candidates",
    "wpart.multikernel.balance_ratio": "a max over the devices",
    "wpart.multikernel.machine_fingerprint": "reads a few system values",
    "wpart.tasks.evaluate": "O(tasks + edges) in C",
    "wpart.tasks.paper_toy": "a fixed instance",
    "wpart.tasks.synthetic_blocks": "a fixed instance",
    "wpart.tasks.paper_style_instance": "a small random instance (sizes bounded by its ranges)",
}
#: public functions that can run long without a case here yet (xfail until one is written).
NO_CASE: dict[str, str] = {}


def _entry_of(call: str) -> str | None:
    """The public function a case's call starts with."""
    import re
    head = call.strip()
    for alias, full in sorted(_ALIASES.items(), key=lambda kv: -len(kv[0])):
        if head.startswith(alias):
            m = re.match(r"[A-Za-z_][A-Za-z_0-9]*", head[len(alias):]) if alias.endswith(".") \
                else re.match(r"[A-Za-z_]+", alias)
            name = m.group(0)
            return full if not alias.endswith(".") else full + name
    return None


def _public_functions() -> list[str]:
    import importlib
    import inspect
    out = []
    for fam in ("wpart", "wpart.spatial", "wpart.hetero", "wpart.dynamic", "wpart.tasks",
                "wpart.milp", "wpart.multikernel"):
        mod = importlib.import_module(fam)
        for n in getattr(mod, "__all__", ()):
            o = getattr(mod, n, None)
            if callable(o) and not inspect.isclass(o):
                out.append(f"{fam}.{n}")
    return sorted(out)


def _cases_by_entry() -> dict[str, list[str]]:
    by: dict[str, list[str]] = {}
    for case, (_, call) in CASES.items():
        e = _entry_of(call)
        if e is not None:
            by.setdefault(e.split("(")[0], []).append(case)
    return by


def _covered() -> set[str]:
    """The public functions with a Ctrl-C test: a case, or a test of their own."""
    return set(_cases_by_entry()) | set(OWN_TESTS)


def test_every_public_function_has_a_case_or_is_exempt():
    by = _covered()
    pub = _public_functions()
    missing = [f for f in pub if f not in by and f not in FAST and f not in NO_CASE]
    assert not missing, f"public functions with no Ctrl-C case: add one to CASES, or to FAST " \
                        f"(with the reason it cannot run 0.35 s) or NO_CASE: {missing}"
    both = [f for f in pub if f in by and (f in FAST or f in NO_CASE)]
    assert not both, f"listed as exempt but a case exists: {both}"
    stale = [f for f in list(FAST) + list(NO_CASE) if f not in pub]
    assert not stale, f"exempt names that are no longer public: {stale}"


def _generated_cases() -> list[str]:
    """The cases to run: those of every public function (generated from the API), then the
    cases that reach a public function through a class (simulate with a balancer object)."""
    by = _cases_by_entry()
    pub = set(_public_functions())
    out = [c for f in sorted(by) if f in pub for c in sorted(by[f])]
    return out + sorted(c for c in CASES if c not in out)


@pytest.mark.parametrize("name", sorted(NO_CASE))
def test_public_functions_without_a_case_yet(name):
    pytest.xfail(f"no Ctrl-C case yet: {NO_CASE[name]}")


# Cases with a known gap (name -> reason): xfail, not skipped. (The simulator polls after every
# balancer evaluation, the rectilinear grids inside their passes over the nonzeros, and
# tasks.solve_milp on 64 x 8955, whose GLPK load and presolve now run in a worker thread: all
# were here.)
KNOWN_SLOW: dict[str, str] = {}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_SLOW[n],
                                                                         strict=False))
                                  if n in KNOWN_SLOW else n for n in _generated_cases()])
def test_ctrl_c_stops_long_calls(name):
    best, got = _best_of(name)
    print(f"{name}: KeyboardInterrupt {[round(1000 * x, 1) for x in got]} ms after SIGINT")
    assert best < GOAL, f"{name}: best of {len(got)} attempts {1000 * best:.0f} ms after SIGINT"


# The dynamic engine's goal is checked as such: 0.2 s in the plain run (the best of three
# tries, so that one unlucky moment of a loaded machine does not decide it).
ENGINE_GOAL = BOUND if os.environ.get("WPART_SANITIZED") == "1" else 0.2
ENGINE_CASES = ("dynamic_simulate_plbhac", "dynamic_simulate_plbhac_paper5_2_30")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", ENGINE_CASES)
def test_ctrl_c_stops_the_dynamic_engine_within_its_goal(name):
    best = min(_run(name, delay=0.5) for _ in range(3))
    print(f"{name}: KeyboardInterrupt {1000 * best:.1f} ms after SIGINT (best of 3)")
    assert best < ENGINE_GOAL


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", sorted(SLOW_CASES))
def test_ctrl_c_stops_big_calls(name):
    latency = _run(name)
    print(f"{name}: KeyboardInterrupt {1000 * latency:.1f} ms after SIGINT")
    assert latency < BOUND


# test_ctrl_c_stops_long_calls sends its SIGINT 0.7 s into the call, which on the 12000^2 input
# lands in the prefix sum. Later phases were not polled: jag_m_heur_probe's bisection on the
# bottleneck (0.45-0.64 s late), the 2^24 rectangles of rect_uniform's grid and of
# rect_sym_uniform's (0.55-0.78 s, first touch of 512 MiB), found by this sweep of later delays.
SWEEP_DELAYS = (0.7, 1.6, 2.5)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", sorted(n for n, (setup, _) in CASES.items()
                                        if n.startswith("spatial_")
                                        and setup in (SPATIAL_XL, SPATIAL_BIG)))
def test_ctrl_c_anywhere_in_large_spatial_calls(name):
    for delay in SWEEP_DELAYS:
        got: list[float] = []
        for _ in range(ATTEMPTS):
            latency = _run_once(name, *CASES[name], delay)
            if latency is None:  # the call ended before the signal
                break
            got.append(latency)
            if latency < GOAL:
                break
        assert not got or min(got) < GOAL, f"{name}, SIGINT {delay} s into the call: " \
                                           f"{[round(1000 * x) for x in got]} ms"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_in_milp_solve_leaves_glpk_usable():
    """milp.solve runs GLPK in a worker thread: a KeyboardInterrupt returns at once while the
    worker ends its solve in the background (it owns its copies of the model, frees its GLPK
    environment and releases the GLPK lock); the next solve waits for it and gives the same
    answer, bit for bit."""
    import numpy as np
    import wpart.milp as milp

    rng = np.random.default_rng(1)
    c = rng.integers(1, 20, 300).astype(float)
    a = rng.integers(0, 9, (60, 300)).astype(float)
    b = rng.integers(50, 200, 60).astype(float)
    kw = dict(A=a, b_upper=b, integrality=1, ub=1, sense="max", mip_gap=0.05)
    ref = milp.solve(c, **kw)

    def interrupt(*_):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        for delay in (0.0005, 0.003, 0.02, 0.06):
            signal.setitimer(signal.ITIMER_REAL, delay)
            try:
                milp.solve(c, **kw, time_limit=0.2, log=True, progress=lambda d, t: None)
            except KeyboardInterrupt:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            again = milp.solve(c, **kw)
            assert (again.status, again.objective) == (ref.status, ref.objective)
            assert again.x.tobytes() == ref.x.tobytes()
    finally:
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------ write_model's file --
# GLPK writes in a child process, to a temporary file renamed over the target once whole: Ctrl-C
# leaves no partial file, and an existing file as it was.
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and fork")
@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "existing-file"])
def test_ctrl_c_in_write_model_leaves_the_file_whole_or_untouched(tmp_path, existing):
    out = tmp_path / "out"
    out.mkdir()
    target = out / "m.lp"
    if existing:
        target.write_text("the previous model\n")
        os.chmod(target, 0o640)
    setup, call = CASES["milp_write_model"]
    call = call.replace("os.path.join(tmp, 'm.lp')", repr(str(target)))
    latency = _run_code("milp_write_model", setup, call)
    assert latency < BOUND
    assert sorted(os.listdir(out)) == (["m.lp"] if existing else []), os.listdir(out)
    if existing:
        assert target.read_text() == "the previous model\n"
        assert os.stat(target).st_mode & 0o777 == 0o640


# ------------------------------------------------------------------------------ run_mpi --
# run_mpi runs inside the ranks of an MPI job (tests/_sigint_mpi.py: 3 ranks, a run of about
# 5 * 10^5 s). Ctrl-C at a terminal reaches mpirun only (Open MPI gives each rank its own
# process group): mpirun then ends the job by itself (after its odls_base_sigkill_timeout, 1 s
# by default). The signal reaches the ranks when a launcher forwards it or someone sends it to
# them: the root's run_mpi must raise KeyboardInterrupt within the goal, and every process of
# the job must end (the workers stop; nothing waits in MPI_Finalize for a rank that left).
@needs_mpi
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("target", ["root", "every-rank"])
def test_ctrl_c_ends_an_mpi_job(tmp_path, target):
    best = math.inf
    for attempt in range(ATTEMPTS):
        d = tmp_path / f"a{attempt}"
        d.mkdir()
        p = subprocess.Popen([MPIRUN, "-np", "3", "--oversubscribe", sys.executable,
                              os.path.join(ROOT, "tests", "_sigint_mpi.py"), str(d)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=mpi_env(), cwd=ROOT, start_new_session=True)
        try:
            line = p.stdout.readline()
            assert line.strip() == "READY", line + p.stderr.read()
            pids = [int((d / f"pid.{r}").read_text()) for r in range(3)]
            time.sleep(0.7)
            sent = time.monotonic()
            for q in pids[:1] if target == "root" else pids:
                os.kill(q, signal.SIGINT)
            alive = set(pids)
            while alive and time.monotonic() - sent < 30:
                alive = {q for q in alive if _running(q)}
                time.sleep(0.002)
            ended = time.monotonic() - sent
            p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
        assert not alive, f"ranks {sorted(alive)} still run 30 s after SIGINT"
        ints = {int(f.name.split(".")[1]): float(f.read_text()) - sent for f in d.glob("int.*")}
        latency = ints.get(0, math.inf)  # mpirun may end the root first (a worker left with 1)
        print(f"run_mpi, SIGINT to {target}: KeyboardInterrupt at ranks "
              f"{ {r: round(1000 * x, 1) for r, x in sorted(ints.items())} } ms, every process "
              f"of the job gone {1000 * ended:.0f} ms after SIGINT")
        assert ended < 2 * BOUND, f"the job ended {ended:.2f} s after SIGINT"
        if target == "root":
            assert latency < BOUND
            best = min(best, latency)
        else:
            assert ints, "no rank saw KeyboardInterrupt"
            best = min(best, min(ints.values()))
        if best < GOAL:
            break
    assert best < GOAL


def _running(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie (not a child of this process)."""
    if os.path.isdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def test_max_over_slabs_equals_numpys(monkeypatch):
    """_Prepared's largest cell is taken over slabs (a Ctrl-C waits at most one slab): the same
    value and type as ``arr.max()`` for 1-3 axes, int and float, slabs of one row or many."""
    from wpart.spatial import _common

    rng = np.random.default_rng(5)
    monkeypatch.setattr(_common, "_MAX_SLAB", 7)
    for shape in [(1,), (40,), (1, 9), (13, 5), (3, 4, 5), (6, 1, 1)]:
        for a in (rng.integers(0, 1000, shape), rng.random(shape) * 1e6):
            got = _common._max_interruptible(a)
            assert got == a.max() and type(got) is type(a.max())
