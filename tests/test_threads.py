"""The core keeps no state between calls and releases the GIL during long work: every family's
calls, run in four threads at once (each thread in its own order, so different C routines
overlap), give the serial results bit for bit."""

from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sps

import wpart
import wpart.dynamic as D
import wpart.hetero as wh
import wpart.spatial as sp
import wpart.tasks as T


def _key(r):
    """What must not change between runs: the partition itself and its value (wall-clock
    stats excluded)."""
    if hasattr(r, "trace") and hasattr(r, "makespan"):
        return r.makespan, r.trace.tobytes()
    if isinstance(r, wh.ParetoFront):
        return tuple(np.asarray(v).tobytes() for v in (r.dist, r.time, r.energy))
    for name in ("rects", "separators", "dist", "assignment"):
        v = getattr(r, name, None)
        if v is not None:
            return name, np.asarray(v).tobytes(), getattr(r, "max_load", None)
    raise AssertionError(f"no key for {type(r).__name__}")


def _calls():
    rng = np.random.default_rng(0)
    loads = rng.integers(1, 1000, 400_000)
    A = sp.instances.pic_like(384, t=20_000)
    S = sps.random(8000, 8000, density=0.001, random_state=1, format="csr")
    S.data[:] = 1
    S = S.astype(np.int64)
    ps = wh.synthetic("dgemm-like", seed=1)
    prob = T.random_problem(8, 600, 60, 1200, seed=3)
    pl = D.Platform.preset("paper5", machines="ABC")
    return {
        "partition_1d": lambda: wpart.partition_1d(loads, 300),
        "partition_1d dp": lambda: wpart.partition_1d(loads[:30_000], 20, method="dp"),
        "rect_nicol sparse": lambda: sp.rect_nicol(S, 256, P=16, Q=16),
        "rect_nicol dense": lambda: sp.rect_nicol(A, 64, P=8, Q=8),
        "rect_sym_refine": lambda: sp.rect_sym_refine(S, 64),
        "jag_m_heur_probe": lambda: sp.jag_m_heur_probe(A, 128),
        "jag_m_opt": lambda: sp.jag_m_opt(A[:128, :128], 16),
        "hier_rb": lambda: sp.hier_rb(A, 128),
        "hybrid": lambda: sp.hybrid(A, 64),
        "rect_refine": lambda: sp.rect_refine(A, 64),
        "pareto_front": lambda: wh.pareto_front(ps, 17152),
        "optimal_time": lambda: wh.optimal_time(ps, 17152),
        "simulate greedy": lambda: D.simulate(pl, D.Greedy(pl.m, 2**18, chunk=16), seed=0),
        "simulate plbhac": lambda: D.simulate(pl, D.PLBHAC(pl.m, 2**18, pu_kinds=pl.kinds),
                                              seed=0),
        "balance ccm": lambda: T.balance(prob, method="ccm", seed=0),
        "balance ranks": lambda: T.balance(prob, backend="ranks", seed=0),
        "solve_milp": lambda: T.solve_milp(T.random_problem(3, 10, 4, 8, seed=1), time_limit=30),
    }


def test_every_family_in_four_threads_gives_the_serial_results():
    calls = _calls()
    ref = {name: _key(f()) for name, f in calls.items()}
    names = list(calls)
    bad, errors = [], []

    def work(i):
        order = names[i:] + names[:i] if i % 2 == 0 else names[::-1]
        try:
            for _ in range(2):
                for name in order:
                    if _key(calls[name]()) != ref[name]:
                        bad.append((i, name))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append((i, repr(exc)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    assert not errors
    assert not bad
