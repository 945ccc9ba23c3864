"""`python -m wpart reproduce multikernel --quick`: the simulated figures of [Soldado 2016]
with verdicts whose tolerances come from the spread of our own repeated runs, Table 2 from
the full configuration search with a declared fit (fitted and predicted rows), and the checks
(the fit converges, the load step absorbed)."""

import json
import re
import subprocess
import sys

import pytest

from wpart.experiments.multikernel import run_multikernel

#: Words a tolerance derived from our own repetitions names (the noisy searches, the noise
#: seeds or the noisy repetitions it is the range of).
_SPREAD = re.compile(r"range (of|over)|noisy (searches|repetitions)|seeds")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("mk")
    return out, run_multikernel(out, quick=True, progress=False)


def test_reproduce_multikernel_quick_in_process(quick):
    out, s = quick
    assert s["ok"], s["checks"]
    assert s["counts"]["total"] == len(s["verdicts"]) > 0
    assert all(v["verdict"] in ("MATCH", "DIFFERS") for v in s["verdicts"])
    doc = json.loads((out / "multikernel.json").read_text())
    assert doc["adaptation"]["detect_runs"] <= 5
    assert "Fig. 12" in (out / "multikernel_table.txt").read_text()


def test_every_verdict_states_a_tolerance_from_our_spread(quick):
    _, s = quick
    for v in s["verdicts"]:
        assert v["tolerance"], v
        # no tolerance taken from the paper alone (+-20 % of its value, its own range)
        assert "20%" not in v["tolerance"] and "20 %" not in v["tolerance"], v
        assert _SPREAD.search(v["tolerance"]), v
        if v["verdict"] == "DIFFERS":
            assert v["reason"], v
    figures = {v["figure"] for v in s["verdicts"]}
    assert {"Table 2", "Fig. 8", "Fig. 9", "Sec. 3.3 / Fig. 7", "Table 3", "Table 4",
            "Fig. 12"} <= figures


def test_table2_rows_are_fitted_or_predicted_from_the_full_search(quick):
    out, s = quick
    doc = json.loads((out / "multikernel.json").read_text())
    t2 = doc["table2"]
    assert {r["role"] for r in t2} == {"fitted", "predicted"}
    for r in t2:
        # 1-GPU rows fitted, 2-GPU rows predicted with the 1-GPU row's CPU cost
        assert r["role"] == ("fitted" if r["gpus"] == 1 else "predicted")
        assert r["tolerance"] >= r["unit"] > 0
        assert len(r["noisy_shares"]) >= 3
        assert r["tolerance"] >= max(r["noisy_shares"]) - min(r["noisy_shares"]) - 1e-9
        assert r["full_share"] == (r["fitted_share"] if r["role"] == "fitted"
                                   else r["predicted_share"])
        assert r["c_cpu"] == (r["c_cpu_own_fit"] if r["role"] == "fitted"
                              else r["c_cpu_other_fit"])
    rows = [v for v in s["verdicts"] if v["figure"] == "Table 2"]
    per_row = [v for v in rows if " GPU: GPU share %" in v["quantity"]]
    assert len(per_row) == len(t2)
    assert all(("fitted" in v["quantity"]) != ("predicted" in v["quantity"]) for v in per_row)
    # the within-3-points count of every row, of the fitted and of the predicted rows, and
    # the settings count, each with its ours value an integer
    counts = {q: v for v in rows for q in ("within 3 points of the paper's", "fitted rows",
                                           "predicted rows", "fission/overlap equal")
              if q in v["quantity"]}
    assert len(counts) == 4
    n3 = sum(abs(r["full_share"] - r["paper_share"]) <= 3 for r in t2)
    assert int(counts["within 3 points of the paper's"]["ours"]) == n3
    assert int(counts["fission/overlap equal"]["ours"].split("/")[0]) == \
        sum(r["settings_equal"] for r in t2)


def test_fission_ranking_row_is_reproduced_or_says_its_measured_cause(quick):
    _, s = quick
    (rank,) = [v for v in s["verdicts"] if "ranked by mean fission speedup" in v["quantity"]]
    assert rank["verdict"] == "MATCH" or "measured cause" in rank["reason"]


def test_reproduce_multikernel_cli(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "wpart", "reproduce", "multikernel", "--quick",
                           "--out", str(tmp_path), "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "verdicts:" in proc.stdout and "DIFFERS" in proc.stdout
    assert (tmp_path / "multikernel.json").exists()


def test_most_covered_counts_the_windows_one_factor_lies_in():
    """The bound of the Table 2 summary (how many predicted rows one GPU-count factor could
    land) equals a brute-force scan over every window end and the points between them."""
    import numpy as np
    from wpart.experiments.multikernel_table2 import _most_covered
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(0, 9))
        lo = np.round(rng.uniform(0.0, 4.0, n), 1)              # ties between windows
        hi = lo + np.round(rng.uniform(0.0, 2.0, n), 1)         # empty windows too
        hi[rng.random(n) < 0.2] = np.inf
        wins = list(zip(lo.tolist(), hi.tolist()))
        pts = sorted({x for w in wins for x in w if np.isfinite(x)})
        cand = pts + [(a + b) / 2 for a, b in zip(pts, pts[1:])] + [-1.0, 1e9]
        brute = max((sum(a <= f < b for a, b in wins) for f in cand), default=0)
        assert _most_covered(wins) == brute, wins


def test_a_predicted_rows_cpu_cost_window_is_measured():
    """The window of CPU-cost factors that lands a 2-GPU row within 3 points: its middle
    lands there, its outer ends do not (saxpy 10M: the 1-GPU fit predicts 80.5 % against
    87.5 %, the row needs a CPU about 1.7-4.5x slower)."""
    import math
    from dataclasses import replace
    from wpart.multikernel.sim import calibrate_to_table2
    from wpart.experiments.multikernel_table2 import _fit_cpu, _search, _window
    fit = {}
    for G in (1, 2):
        pl, cost, U, entry = calibrate_to_table2("saxpy", "10M", n_gpus=G)
        q = replace(pl, sigma=0.0)
        fit[G] = (q, cost, U, entry[3], _fit_cpu(q, cost, U, G, entry[3], 8)[0])
    q, cost, U, pct, c_own = fit[2]
    c1 = fit[1][4]
    lo, hi = _window(q, cost, U, 2, pct, c_own, c1, 4)
    assert 1.0 < lo < hi < math.inf

    def share(f):
        return 100 * _search(q, replace(cost, c_cpu=f * c1), U, 2).s
    assert abs(share(math.sqrt(lo * hi)) - pct) <= 3.0
    assert share(lo) < pct - 3.0 and share(hi) > pct + 3.0
    assert share(1.0) < pct - 3.0          # the prediction itself misses
