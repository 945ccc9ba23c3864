"""CCM-LB against the GLPK optimum on small seeded paper-style instances (wpart.tasks.gap_study)."""

import json

import numpy as np
import pytest

import wpart.milp
from wpart import tasks

pytestmark = pytest.mark.skipif(wpart.milp.solver_version() == "", reason="built without GLPK")

VARIANTS = {
    "whole": {},
    "singles": {"subclusters": True},
    "fill": {"subclusters": "fill"},
}


@pytest.fixture(scope="module")
def study():
    # 12 instances, 2-3 ranks, 3-4 blocks per rank, 2-3 tasks per block, the paper's two
    # largest deltas (GLPK proves these optimal in well under a second each), memory caps
    return tasks.gap_study(12, seed=1, variants=VARIANTS, deltas=(1e-9, 1e-10), n_seeds=3,
                           ranks=(2, 3), blocks_per_rank=(3, 4), tasks_per_block=(2, 3),
                           clusters=False, time_limit=20.0)


def test_gap_bounds(study):
    assert study.n_not_optimal == 0
    s = study.summary
    for k in VARIANTS:
        g = study.gaps[k]
        assert g.shape == (12, 3)
        assert np.all(g >= -1e-9)          # never below the proven optimum
        assert s[k]["memory_ok"]           # no run above a memory cap
    # the bounds achieved (measured: fill median 0.00 %, p90 1.4 %, max 3.9 %, 89 % of the
    # runs within the paper's 1.8 %; whole blocks: median 0.8 %, max 19.9 %)
    assert s["fill"]["median"] <= 0.005
    assert s["fill"]["p90"] <= 0.02
    assert s["fill"]["max"] <= 0.04
    assert s["fill"]["within"] >= 0.85
    # splitting clusters helps: whole block groups are far coarser on such small instances
    assert s["fill"]["median"] <= s["singles"]["median"] <= s["whole"]["median"]
    assert s["fill"]["max"] < s["singles"]["max"] <= s["whole"]["max"]


def test_gap_study_api(study):
    d = study.to_dict()
    json.dumps(d)
    assert set(d["summary"]) == set(VARIANTS) and len(d["instances"]) == 12
    assert "median" in study.table() and "GapStudy" in repr(study)
    # reproducible instance stream
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    p1, sz1, _ = tasks.paper_style_instance(rng1)
    p2, sz2, _ = tasks.paper_style_instance(rng2)
    assert sz1 == sz2 and np.array_equal(p1.task_load, p2.task_load)
    from matplotlib.axes import Axes

    assert isinstance(study.plot(), Axes)
    assert study.status == "feasible" and study.success and "12 instances" in study.message
    assert len(repr(study).splitlines()) <= 5


def test_gap_study_clusters_and_errors():
    g = tasks.gap_study(2, seed=3, variants={"whole": {}}, deltas=(1e-9,), ranks=(2, 2),
                        blocks_per_rank=(2, 2), tasks_per_block=(2, 2), memory_cap=None)
    # whole-cluster CCM-LB never beats the cluster-preserving optimum
    assert np.all(g.gaps_clusters["whole"] >= -1e-9)
    with pytest.raises(ValueError, match="n_instances"):
        tasks.gap_study(0)
    with pytest.raises(ValueError, match="variants"):
        tasks.gap_study(1, variants={})


def test_subclusters_argument():
    p = tasks.synthetic_blocks()
    r = tasks.balance(p, seed=0, subclusters="subsets")
    assert r.max_work == 2.0 and r.stats["subclusters"] == "subsets"
    assert r.stats["split_rule"] == "compete"
    assert tasks.balance(p, seed=0, subclusters=True).stats["split_rule"] == "fallback"
    assert tasks.balance(p, seed=0, subclusters="fill").max_work == 2.0
    assert tasks.balance(p, seed=0, subclusters="none").max_work == 2.5
    with pytest.raises(ValueError, match="subclusters"):
        tasks.balance(p, subclusters="nope")
    with pytest.raises(TypeError, match="subclusters"):
        tasks.balance(p, subclusters=2)
    with pytest.raises(ValueError, match="split_rule"):
        tasks.balance(p, split_rule="x")


def test_paper_scale_whole_blocks_near_bound():
    # at the paper's granularity (~15 blocks per rank) whole block groups are enough: within
    # 1 % of max(mean load, max task) (measured 0.3 % at 14/1959/206; 6 ranks here for speed)
    r = tasks.paper_scale_study(m=6, n_tasks=840, n_blocks=90, instances=2, n_seeds=2,
                                variants={"whole": {}, "fill": {"subclusters": "fill"}})
    assert min(r["initial"]) > 0.2
    for k in ("whole", "fill"):
        assert -1e-12 <= r[k]["gap_min"] and r[k]["gap_max"] <= 0.01


@pytest.mark.parametrize("seed", range(6))
def test_explore_trials_never_worse(seed):
    rng = np.random.default_rng(seed)
    p, _, _ = tasks.paper_style_instance(rng, ranks=(3, 6), blocks_per_rank=(3, 6))
    cap = 1.3 * float(p.evaluate(delta=1e-9)["memory"].max())
    kw = dict(seed=seed, delta=1e-9, memory_cap=cap)
    for sub in (False, "fill"):
        one = tasks.balance(p, subclusters=sub, **kw)
        many = tasks.balance(p, subclusters=sub, n_trials=5, explore=True, **kw)
        again = tasks.balance(p, subclusters=sub, n_trials=5, explore=True, **kw)
        assert many.max_work <= one.max_work + 1e-15
        assert np.array_equal(many.assignment, again.assignment)
        assert np.all(many.memory <= cap) and many.stats["explore"]
        assert np.all(np.diff(many.history) <= 1e-15)
