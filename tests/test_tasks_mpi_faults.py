"""Faults of ``mpirun -np N python -m wpart.tasks.mpi`` that must lose nothing.

Each case is a real mpirun job on loopback (tests/mpi/tasks_cli_fault.py injects the fault):
a rank killed while writing leaves the previous output whole (temporary names, fsync, rename
after every rank agreed); a job whose process count differs from the input's rank files stops
before any work with an error naming both; a rank stopped during MPI's start-up makes the others
stop with a message within the same ``--timeout``.
"""

import json
import subprocess
import time

import pytest
from oracles.mpirun import needs_mpi, run_mpi

from wpart.tasks import generators as G
from wpart.tasks import read_lbdatafile

pytestmark = needs_mpi

CLI = "tests/mpi/tasks_cli_fault.py"


def _stem(tmp_path, m: int, name: str = "g") -> str:
    stem = str(tmp_path / "in" / name)
    G.gemma_like(m=m, n_tasks=40 * m, n_blocks=6 * m, seed=1).to_lbdatafile(stem)
    return stem


def test_rank_killed_while_writing_keeps_previous_output(tmp_path):
    stem = _stem(tmp_path, 4)
    out = str(tmp_path / "out" / "g")
    r = run_mpi(4, [CLI, "none", "0", stem, "--out", out, "--n-iter", "0", "--timeout", "20"],
                timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    before = {i: (tmp_path / "out" / f"g.{i}.json").read_bytes() for i in range(4)}
    # balancing moves tasks: the new files would differ from the old ones
    r = run_mpi(4, [CLI, "die_write", "1", stem, "--out", out, "--timeout", "5"], timeout=120)
    assert r.returncode != 0
    for i in range(4):  # every file is the previous run's, whole
        assert (tmp_path / "out" / f"g.{i}.json").read_bytes() == before[i]
    res = read_lbdatafile(out)
    assert res.n_tasks == 160
    r = run_mpi(4, [CLI, "none", "0", stem, "--out", out, "--timeout", "20"], timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert any((tmp_path / "out" / f"g.{i}.json").read_bytes() != before[i] for i in range(4))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()
                  if not p.name.startswith(".")) == [f"g.{i}.json" for i in range(4)]


@pytest.mark.parametrize("n_files,np_", [(8, 3), (2, 3)])
def test_rank_count_must_match_the_files(tmp_path, n_files, np_):
    stem = _stem(tmp_path, n_files)
    out = tmp_path / "out"
    r = run_mpi(np_, [CLI, "none", "0", stem, "--out", str(out / "g"), "--timeout", "20"],
                timeout=120)
    assert r.returncode != 0
    assert f"rank files {stem}.0.json .. {stem}.{n_files - 1}.json" in r.stderr
    assert f"the job has {np_} processes" in r.stderr and f"-np {n_files}" in r.stderr
    assert not out.exists()  # stopped before any work


def test_rank_stopped_during_startup_others_stop_within_timeout(tmp_path):
    stem = _stem(tmp_path, 4)
    t0 = time.monotonic()
    try:
        r = run_mpi(4, [CLI, "stop_start", "2", stem, "--out", str(tmp_path / "o"),
                        "--timeout", "5"], timeout=90)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure under test
        pytest.fail("a rank stopped during start-up made the job hang")
    took = time.monotonic() - t0
    assert r.returncode != 0
    assert "start-up did not finish within --timeout 5 s" in r.stderr
    assert took < 60


def test_summary_json_is_written_whole(tmp_path):
    stem = _stem(tmp_path, 2)
    js = tmp_path / "s.json"
    r = run_mpi(2, [CLI, "none", "0", stem, "--json", str(js), "--timeout", "20"], timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    d = json.loads(js.read_text())
    assert d["m"] == 2 and len(d["assignment"]) == 80
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
