"""benchmarks/bench_dynamic_solver.py in quick mode: runs, writes its JSON with the BLAS thread
count of the SciPy baselines, and its answers agree with SciPy's (timings are only reported,
never asserted)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_dynamic_solver_quick(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_dynamic_solver.py"),
                           "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["env"]["blas_threads_for_scipy"] == 1 and doc["summary"]["blas_threads"] == 1
    assert isinstance(doc["env"]["blas"], list)
    rows = {r["n"]: r for r in doc["solver"]}
    assert 16 in rows
    for r in rows.values():
        assert r["blas_threads"] == 1
        assert r["t_c_us"] > 0 and r["t_equal_finish_us"] > 0
        assert r["dx_root"] < 1e-9  # the same answer as MINPACK's
    assert "n = 16: C" in proc.stdout
