"""benchmarks/bench_spatial_stages.py: the default's stage clock beside SARMA nic's CPU, and the
oracle stop (the earliest stage at or below the best of SARMA's nine that ends within nic's
CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_spatial_stages

    return bench_spatial_stages


def _row(ss, values, best9, cpu, nic, overhead=0.0):
    return {"stage_seconds": ss, "stage_max_load": values, "best9": best9, "cpu": cpu,
            "nic_cpu": nic, "overhead": overhead, "max_load": values.get("finish")}


def test_oracle_takes_the_earliest_stage_at_the_load_within_the_time(bench):
    ss = {"setup": 1.0, "starts": 2.0, "nic": 1.0, "cut_moves": 3.0, "finish": 1.0}
    vals = {"starts": 12, "nic": 10, "cut_moves": 9, "finish": 9}
    # the starts' grid is above the best of nine; the nic members' reaches it at t = 1 + 4
    assert bench.oracle(_row(ss, vals, 10, 9.0, 5.0, overhead=1.0)) == "nic"
    assert bench.oracle(_row(ss, vals, 10, 9.0, 4.9, overhead=1.0)) is None  # too late
    assert bench.oracle(_row(ss, vals, 9, 9.0, 9.0, overhead=1.0)) == "cut_moves"
    assert bench.oracle(_row(ss, vals, 8, 9.0, 100.0)) is None  # never at the load
    # a stage clock above the call's CPU (8 against 4) is scaled down to it: the cut moves end
    # at (1 + 2 + 1 + 3) / 2, the last stage at the call's CPU
    assert bench.oracle(_row(ss, vals, 9, 4.0, 3.5)) == "cut_moves"
    assert bench.oracle(_row(ss, vals, 9, 4.0, 3.4)) is None
    assert bench.oracle(_row(ss, {"finish": 9}, 9, 4.0, 4.0)) == "finish"
    assert bench.oracle(_row(ss, {"finish": 9}, 9, 4.0, 3.99)) is None


def test_budget_stop_runs_the_stages_that_end_within_nic(bench):
    ss = {"setup": 1.0, "starts": 2.0, "nic": 1.0, "cut_moves": 3.0, "finish": 0.5}
    vals = {"starts": 12, "nic": 10, "cut_moves": 9, "finish": 9}
    # nic's CPU 5: the nic members end at 1 + 4 = 5, the cut moves would end at 8
    assert bench.budget(_row(ss, vals, 10, 9.0, 5.0, overhead=1.0)) == (10, 5.5)
    # the setup and the starts always run (12 at 4.5, above nic's 4)
    assert bench.budget(_row(ss, vals, 10, 9.0, 4.0, overhead=1.0)) == (12, 4.5)
    assert bench.budget(_row(ss, vals, 10, 9.0, 100.0, overhead=1.0)) == (9, 8.5)


def test_stage_values_read_the_stats(bench):
    stats = {"stage_seconds": {"setup": 0, "starts": 0, "random_starts": 0, "finish": 0},
             "starts": {"diag_interleaved": {"max_load": 7.0}, "rows_uniform": {"max_load": None},
                        "random_starts": {"max_load": 6.0}},
             "polish": None}
    assert bench.stage_values(stats, 6.0) == {"starts": 7.0, "random_starts": 6.0,
                                              "finish": 6.0}
    stats = {"stage_seconds": {"setup": 0, "starts": 0, "nic": 0, "cut_moves": 0, "kick": 0,
                               "finish": 0},
             "starts": {"rows_uniform": {"max_load": 9.0}},
             "polish": {"max_load": 8.0, "cut_move_max_load": 7.0, "kick_max_load": 6.0}}
    assert bench.stage_values(stats, 5.0) == {"starts": 9.0, "nic": 8.0, "cut_moves": 7.0,
                                              "kick": 6.0, "finish": 5.0}


def test_run_writes_rows_and_totals(bench, tmp_path, capsys):
    out = tmp_path / "stages.json"
    bench.main(["--only", "g2d5_15x14", "--grids", "4x4,8x8", "--k", "1", "--calls", "2",
                "--out", str(out)])
    d = json.loads(out.read_text())
    rows = d["cases"]
    assert {(r["P"], r["Q"]) for r in rows} == {(4, 4), (8, 8)}
    for r in rows:
        assert list(r["stage_seconds"]) == [s for s in bench.STAGES if s in r["stage_seconds"]]
        assert r["stage_max_load"]["finish"] == r["max_load"]
        assert all(v >= r["max_load"] for v in r["stage_max_load"].values())
        assert r["cpu"] > 0 and r["nic_cpu"] > 0 and r["overhead"] >= 0
    t = d["totals"]
    assert t["cases"] == len(rows)
    # a case at the load and within nic's CPU is one the oracle stop makes so too
    assert t["load_and_cpu_ok"] <= t["oracle_stop_ok"] <= t["cases"]
    assert t["budget_stop"]["cpu_ok"] >= t["cpu_ok"]  # (it only drops stages)
    for r in rows:
        assert r["budget_stop"]["max_load"] >= r["max_load"]
    assert set(d["median_share_per_grid"]) == {"4x4", "8x8"}
    assert "oracle stop" in out.with_suffix(".txt").read_text()
    assert "totals:" in capsys.readouterr().out
