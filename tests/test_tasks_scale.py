"""The serial CCM-LB engine at scale: the pruned FindBestCCM finds exactly the exchange of the
exhaustive scan (every option, ties included), a time limit keeps the best placement, and the
benchmark's quick mode runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wpart import _core, tasks
from wpart.tasks._problem import Coefficients

ROOT = Path(__file__).resolve().parent.parent


def _ccm(p, exhaustive, *, beta=0.0, gamma=0.0, delta=0.0, **kw):
    c = Coefficients(alpha=1.0, beta=beta, gamma=gamma, delta=delta)
    args = dict(n_iter=3, n_rounds=0, fanout=0, n_trials=1, seed=0, cluster=0,
                order_random=True, tol=1e-12, progress=None, time_limit=0.0, one_way=False,
                singles=0, exact_ranking=False, allow_infeasible_start=False, comm_tau=1.0,
                split_always=False, explore=False)
    args.update(kw)
    a, hist, exch, _ = _core.tasks_ccm(p._dict(None), c.as_tuple(), np.array(p.initial, np.int32),
                                       exhaustive=exhaustive, **args)
    return a, hist, exch


_OPTIONS = [
    dict(),
    dict(singles=3, split_always=True),
    dict(singles=2, split_always=True),
    dict(singles=1),
    dict(singles=3),
    dict(beta=0.5, gamma=0.2, delta=0.3),
    dict(beta=1.0, singles=3, split_always=True),
    dict(cluster=1, one_way=True),
    dict(cluster=2, beta=1.0, comm_tau=0.2, delta=0.5),
    dict(exact_ranking=True, beta=0.5, singles=3, split_always=True),
    dict(cluster=1, delta=1.0, singles=1),
    dict(beta=2.0, gamma=1.0, n_trials=2),
]


@pytest.mark.parametrize("seed", range(40))
def test_pruned_scan_equals_the_exhaustive_scan(seed):
    """Same assignment, history and exchange counts, bit for bit, on random instances with
    ties (half-integer data), zeros, memory, per-rank alpha and pinned tasks."""
    rng = np.random.default_rng(seed)
    m, K = int(rng.integers(2, 7)), int(rng.integers(5, 60))
    N, M = int(rng.integers(0, 8)), int(rng.integers(0, 60))
    p = tasks.random_problem(m, K, N, M, seed=seed, memory=seed % 3 == 0, zeros=seed % 2 == 0,
                             rank_alpha=seed % 5 == 0)
    if seed % 4 == 1:
        p = p.with_(migratable=rng.random(K) < 0.7)
    for kw in _OPTIONS:
        a1, h1, e1 = _ccm(p, False, seed=seed, **kw)
        a2, h2, e2 = _ccm(p, True, seed=seed, **kw)
        np.testing.assert_array_equal(a1, a2, err_msg=str(kw))
        np.testing.assert_array_equal(h1, h2, err_msg=str(kw))
        np.testing.assert_array_equal(e1, e2, err_msg=str(kw))


@pytest.mark.parametrize("comm", [0.0, 2.0])
def test_pruned_scan_equals_exhaustive_on_real_valued_data(comm):
    """Real-valued loads and bytes (no exact ties): a larger Gemma-like case."""
    p = tasks.gemma_like(m=12, n_tasks=600, n_blocks=60, seed=1, comm_degree=comm)
    for kw in (dict(), dict(singles=3, split_always=True), dict(beta=1e-6)):
        a1, h1, _ = _ccm(p, False, **kw)
        a2, h2, _ = _ccm(p, True, **kw)
        np.testing.assert_array_equal(a1, a2)
        np.testing.assert_array_equal(h1, h2)


def test_fill_time_limit_keeps_the_completed_iterations():
    """A time limit is a status, never an exception: the best placement reached comes back."""
    p = tasks.gemma_like(m=32, n_tasks=4000, n_blocks=400, seed=0)
    full = tasks.balance(p, seed=0, subclusters="fill", n_iter=1)
    r = tasks.balance(p, seed=0, subclusters="fill", n_iter=10_000, time_limit=0.5)
    assert r.status == "time_limit" and r.success
    assert r.stats["iterations_done"] >= 1
    assert r.max_load <= full.max_load * (1 + 1e-12)
    assert r.max_load == pytest.approx(p.evaluate(assignment=r.assignment)["w_max"])


def test_benchmark_quick_mode(tmp_path):
    """benchmarks/bench_tasks_scale.py --quick runs and writes its JSON."""
    out = tmp_path / "scale.json"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_tasks_scale.py"), "--quick",
                    "--out", str(out)], check=True, timeout=300, capture_output=True)
    data = json.loads(out.read_text())
    assert data["rows"] and all(r["w_max"] <= r["w_max_initial"] * (1 + 1e-12)
                                for r in data["rows"] if r["method"] != "greedy")
    fill = data["fill_scaling"]  # subclusters="fill" by size at a fixed m
    assert len(fill) == 3 and all(r["exchanges"] > 0 and r["status"] == "feasible" for r in fill)
    assert all("exponent" in r for r in fill[1:])
