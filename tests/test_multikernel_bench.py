"""benchmarks/bench_multikernel.py in quick mode: runs, writes its JSON, C decisions agree with
the NumPy versions (checked inside the benchmark). The OpenCL part (``--opencl``) is exercised
by tests/test_multikernel_opencl.py (launch overhead) and run by hand."""

import pytest
from oracles.bench import run_quick


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """One quick run of the benchmark for the tests of this file: (process, JSON)."""
    return run_quick("bench_multikernel.py", tmp_path_factory.mktemp("bench"))


def test_bench_multikernel_quick(quick):
    proc, doc = quick
    names = [r["decision"] for r in doc["decisions"]]
    assert names == ["split", "derivation", "rebalancing step", "derive, 8 profiles",
                     "derive, 64 profiles"]
    assert all(r["wpart_us"] > 0 and r["numpy_us"] > 0 for r in doc["decisions"])
    assert "split" in proc.stdout


def test_bench_multikernel_quick_simulated_figures(quick):
    """The quick benchmark's simulator section: every figure of the paper beside ours."""
    proc, doc = quick
    sim = doc["simulator"]
    assert {"table2", "fission_p1", "tolerance", "derivation", "adaptation"} <= set(sim)
    figs = {v["figure"] for v in sim["verdicts"]}
    assert {"Table 2", "Fig. 8", "Table 3", "Table 4", "Fig. 12"} <= figs
    assert all(v["verdict"] in ("MATCH", "DIFFERS") for v in sim["verdicts"])
    assert all(v["reason"] for v in sim["verdicts"] if v["verdict"] == "DIFFERS")
    # the rows the CPU cost is fitted on (1 GPU): the full search lands near the paper's share
    assert all(abs(r["full_share"] - r["paper_share"]) <= 3.5 for r in sim["table2"]
               if r["role"] == "fitted")
    assert "Table 2 (simulated P2)" in proc.stdout and "DIFFERS" in proc.stdout
