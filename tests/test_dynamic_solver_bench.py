"""benchmarks/bench_dynamic_solver.py in quick mode: runs, writes its JSON with the BLAS thread
count of the SciPy baselines, and its answers agree with SciPy's (timings are only reported,
never asserted)."""

from oracles.bench import run_quick


def test_bench_dynamic_solver_quick(tmp_path):
    proc, doc = run_quick("bench_dynamic_solver.py", tmp_path, timeout=600)
    assert doc["env"]["blas_threads_for_scipy"] == 1 and doc["summary"]["blas_threads"] == 1
    assert isinstance(doc["env"]["blas"], list)
    rows = {r["n"]: r for r in doc["solver"]}
    assert 16 in rows
    for r in rows.values():
        assert r["blas_threads"] == 1
        assert r["t_c_us"] > 0 and r["t_equal_finish_us"] > 0
        assert r["dx_root"] < 1e-9  # the same answer as MINPACK's
    assert "n = 16: C" in proc.stdout
