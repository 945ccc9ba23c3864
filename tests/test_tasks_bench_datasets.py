"""benchmarks/bench_tasks.py part (d) in quick mode: wpart's methods on LBAF's public
LBDatafiles (and a folder given on the command line), every placement re-scored by
benchmarks/lbdatafile_eval.py from the raw JSON; the evaluator agrees with wpart to 1e-9
(relative) and no pinned task moves. The evaluator itself is checked against wpart's C work
model on random problems written as LBDatafiles (blocks, edges, memory, caps, rank alphas)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wpart.tasks import Problem
from wpart.tasks import generators as G

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from lbdatafile_eval import read_raw  # noqa: E402  (benchmarks/, no wpart code)


def test_quick_mode_agrees_and_keeps_pinned_tasks_home(tmp_path):
    extra = tmp_path / "mine"
    extra.mkdir()
    p = G.random_problem(3, 30, 3, 40, seed=4, memory=True)
    p.with_(migratable=np.arange(30) % 4 != 0).to_lbdatafile(str(extra / "pinned"))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_tasks.py"), "--quick",
                        "--only", "datasets", "--out", str(out), str(extra)],
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "bench_tasks_datasets.json").read_text())["datasets"]
    assert (out / "bench_tasks_datasets.txt").read_text().startswith("(d)")
    rows = [x for x in res["rows"] if "error" not in x and not x.get("summary")]
    names = {x["dataset"] for x in rows}
    assert "nolb-8color-16nodes-11firstphases/data" in names and "mine/pinned" in names
    assert {x["method"] for x in rows} == {"none", "greedy", "ccm", "ccm fill", "tempered",
                                           "ccm, no greedy start", "ccm fill, half the moves"}
    summ = [x for x in res["rows"] if x.get("summary")]
    assert summ and all(x["never_above_greedy"] for x in summ)  # ccm and fill <= greedy
    assert all(x["budget_moved"] <= x["fill_moved"] // 2 for x in summ)
    for x in rows:
        w, we = x["w_max"], x["w_eval"]
        assert x["evaluator_agrees"], x
        assert (w == we) if math.isinf(we) else abs(w - we) <= 1e-9 * max(abs(w), abs(we)), x
        assert x["pinned_moved"] == 0 and x["pinned_kept"] == x["n_pinned"], x
    assert sum(x["n_pinned"] for x in rows if x["dataset"].startswith("nolb")) == 7 * 224
    assert res["ok"]


@pytest.mark.parametrize("seed", range(12))
def test_evaluator_matches_the_work_model(seed, tmp_path):
    rng = np.random.default_rng(seed)
    m, K = int(rng.integers(1, 5)), int(rng.integers(1, 25))
    p = G.random_problem(m, K, int(rng.integers(0, 4)), int(rng.integers(0, 30)), seed=seed,
                         memory=seed % 2 == 0, rank_alpha=seed % 3 == 0)
    p = p.with_(migratable=rng.random(K) < 0.7)
    stem = str(tmp_path / "e")
    p.to_lbdatafile(stem)
    q = Problem.from_lbdatafile(stem, m=m)
    raw = read_raw(stem, 0)
    coef = dict(beta=float(rng.choice([0, 0.5])), gamma=float(rng.choice([0, 0.25])),
                delta=float(rng.choice([0, 0.3])))
    cap = None if seed % 4 else float(q.evaluate()["memory"].max()) * 0.9
    for _ in range(5):
        a = np.array(q.initial)
        free = q.migratable
        a[free] = rng.integers(0, m, size=int(free.sum()))
        w = q.evaluate(assignment=a, memory_cap=cap, **coef)["w_max"]
        ev = raw.evaluate(dict(zip(q.task_ids.tolist(), a.tolist())), cap=cap, **coef)
        assert (w == ev["w_max"]) if math.isinf(w) else ev["w_max"] == pytest.approx(w, rel=1e-12)
        assert ev["pinned_moved"] == 0
    a = np.array(q.initial)
    if q.n_pinned and m > 1:
        k = int(q.pinned[0])
        a[k] = (a[k] + 1) % m
        assert raw.evaluate(dict(zip(q.task_ids.tolist(), a.tolist())))["pinned_moved"] == 1
