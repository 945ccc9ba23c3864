"""benchmarks/bench_multikernel.py in quick mode: runs, writes its JSON, C decisions agree with
the NumPy versions (checked inside the benchmark). The OpenCL part (``--opencl``) is exercised
by tests/test_multikernel_opencl.py (launch overhead) and run by hand."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_multikernel_quick(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_multikernel.py"),
                           "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    names = [r["decision"] for r in doc["decisions"]]
    assert names == ["split", "derivation", "rebalancing step"]
    assert all(r["wpart_us"] > 0 and r["numpy_us"] > 0 for r in doc["decisions"])
    assert "split" in proc.stdout


def test_bench_multikernel_quick_simulated_figures(tmp_path):
    """The quick benchmark's simulator section: every figure of the paper beside ours."""
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_multikernel.py"),
                           "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sim = json.loads(out.read_text())["simulator"]
    assert {"table2", "fission_p1", "tolerance", "derivation", "adaptation"} <= set(sim)
    figs = {v["figure"] for v in sim["verdicts"]}
    assert {"Table 2", "Fig. 8", "Table 3", "Table 4", "Fig. 12"} <= figs
    assert all(v["verdict"] in ("MATCH", "DIFFERS") for v in sim["verdicts"])
    assert all(v["reason"] for v in sim["verdicts"] if v["verdict"] == "DIFFERS")
    assert all(abs(r["share"] - r["paper_share"]) <= 3.5 for r in sim["table2"])
    assert "Table 2 (simulated P2)" in proc.stdout and "DIFFERS" in proc.stdout
