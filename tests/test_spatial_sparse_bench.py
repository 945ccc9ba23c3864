"""benchmarks/bench_spatial.py, sparse steps in quick mode: sparse and dense runs of RECT-NICOL
and JAG-PQ-HEUR give identical partitions, and all starts are never worse than the single
paper start; Fig. 9's cause step runs (timings are reported by the benchmark, never asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_spatial_sparse_quick(tmp_path):
    out = tmp_path / "sparse.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_spatial.py"), "--quick", "--only",
         "sparse", "starts", "fig9", "--json", str(out)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(out.read_text())
    rows = res["sparse"]["data"]["rows"]
    assert res["sparse"]["ok"]
    dense_rows = [r for r in rows if r["same"] is not None]
    assert dense_rows and all(r["same"] for r in dense_rows)
    assert any(r["n"] == 3268 and 25_000 <= r["nnz"] <= 30_000 for r in dense_rows)
    assert any(r["same"] is None for r in rows)  # a size whose dense array would not fit
    assert len({r["n"] for r in rows}) >= 3
    starts = res["starts"]["data"]["rows"]
    assert res["starts"]["ok"] and starts
    assert all(r["all"] <= r["single"] for r in starts)
    assert "identical partitions: yes" in proc.stdout
    fig9 = res["fig9"]["data"]["rows"]  # Fig. 9's cause: ours and a from-scratch RECT-NICOL
    assert fig9["hier_rb"]["over_hier_rb"] == 1.0
    assert fig9["rect_nicol"]["seconds"] > 0 and fig9["rect_nicol"]["max_load"] > 0
    if "scratch_rect_nicol" in fig9:  # a C compiler was found
        n, m = res["fig9"]["data"]["n"], res["fig9"]["data"]["m"]
        assert fig9["scratch_rect_nicol"]["max_load"] * m >= n * n  # a tiling's max >= mean
