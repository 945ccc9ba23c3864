"""benchmarks/device_hetero_dynamic.py in quick mode: on a machine without a GPU it runs its
CPU-only stand-in end to end (real profiles -> TOPT / balanced / front; real runs of every
balancer through wpart.dynamic.run, verified) and writes its JSON; timings are never asserted.
The GPU numbers it records elsewhere come from a one-off run on a lent GPU machine."""

import pytest

from oracles.bench import run_quick


def test_device_bench_quick(tmp_path):
    proc, doc = run_quick("device_hetero_dynamic.py", tmp_path, timeout=600)
    assert doc["errors"] == {}, doc["errors"]
    assert set(doc["platform"]) >= {"gpu", "cpu_count", "rapl", "cupy_gpu", "torch_gpu"}
    h = doc["hetero"]
    assert len(h["profiles"]) == 2
    for p in h["profiles"]:
        assert p["sizes"] == h["sizes"] and len(p["time"]) == len(p["sizes"])
        assert all(t > 0 for t in p["time"]) and all(e >= 0 for e in p["energy"])
    for row in h["analysis"]:
        n = row["n"]
        assert row["topt"]["status"] == "optimal" and sum(row["topt"]["dist"]) == n
        assert row["balanced"]["status"] == "optimal" and sum(row["balanced"]["dist"]) == n
        assert row["front_size"] >= 1
        # the front's fastest point is TOPT's time; nothing is faster than TOPT
        assert row["front"]["time"][-1] == pytest.approx(row["topt"]["time"])
        assert row["topt"]["time"] <= row["balanced"]["time"] + 1e-15
    d = doc["dynamic"]
    assert d["n"] == sum(d["runs"][0]["elements"])
    names = {r["balancer"] for r in d["runs"]}
    assert names == {"static-equal", "plbhac-robust", "plbhac-paper", "hdss", "greedy"}
    for r in d["runs"]:
        assert "error" not in r, r
        assert r["status"] == "feasible" and sum(r["elements"]) == d["n"]
        if r["rep"] == 0:
            assert r["verified"] is True
    assert set(d["summary"]) == names and d["ideal_best"] > 0
    for r in d["runs"]:  # nothing beats the ideal of the best rates; a run's own ideal <= its makespan
        assert r["makespan"] >= d["ideal_best"] * (1 - 1e-9)
        assert 0 < r["balance_eff"] <= 1 + 1e-9
    if doc["platform"]["gpu"] is None:
        assert h["stand_in"] and d["stand_in"]
        assert "CPU-only stand-in" in proc.stdout
    assert (tmp_path / "bench.png").exists()
