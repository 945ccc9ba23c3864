"""Faults of ``mpirun -np N python -m wpart.tasks.mpi`` that must lose nothing.

Each case is a real mpirun job on loopback (tests/mpi/tasks_cli_fault.py injects the fault):
a rank killed while writing leaves the previous output whole (temporary names, fsync, the switch
on rank 0 after every rank agreed); a failed switch puts the previous set back; a killed switch
is refused on read; a folder in a file's place stops the job before balancing; a smaller job
removes the larger set's files; a stalled rank is named by the rank that waited; a rank stopped
after the result ends the job within --timeout (finalisation bounded); a job whose process count differs from the input's rank files stops
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
    # the set and its manifest; the killed run's temporary file was removed by this one
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == \
        [f"g.{i}.json" for i in range(4)] + ["g.wpart-set.json"]


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


def _listing(folder):
    return sorted(p.name for p in folder.iterdir())


def _bytes(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_folder_in_a_files_place_stops_before_balancing(tmp_path):
    stem = _stem(tmp_path, 4)
    out = tmp_path / "out"
    r = run_mpi(4, [CLI, "none", "0", stem, "--out", str(out / "g"), "--n-iter", "0",
                    "--timeout", "20"], timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    (out / "g.2.json").unlink()
    (out / "g.2.json").mkdir()
    before = {p.name: (p.read_bytes() if p.is_file() else None) for p in out.iterdir()}
    r = run_mpi(4, [CLI, "none", "0", stem, "--out", str(out / "g"), "--timeout", "20"],
                timeout=120)
    assert r.returncode != 0
    assert "g.2.json: cannot write the output: a folder has its name" in r.stderr
    assert "W_max" not in r.stdout  # stopped before any balancing
    assert {p.name: (p.read_bytes() if p.is_file() else None)
            for p in out.iterdir()} == before


def test_failed_switch_keeps_the_previous_set_whole(tmp_path):
    stem = _stem(tmp_path, 4)
    out = tmp_path / "out"
    r = run_mpi(4, [CLI, "none", "0", stem, "--out", str(out / "g"), "--n-iter", "0",
                    "--timeout", "20"], timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    before = _bytes(out)
    r = run_mpi(4, [CLI, "fail_switch", "0", stem, "--out", str(out / "g"), "--timeout", "20"],
                timeout=120)
    assert r.returncode != 0
    assert "cannot switch to the new file: Input/output error" in r.stderr
    assert _bytes(out) == before  # byte for byte, manifest included; no temporary file
    assert read_lbdatafile(str(out / "g")).n_tasks == 160


def test_rank0_killed_during_the_switch_is_refused_on_read(tmp_path):
    from wpart.tasks._io_set import SetError

    stem = _stem(tmp_path, 4)
    out = tmp_path / "out"
    r = run_mpi(4, [CLI, "none", "0", stem, "--out", str(out / "g"), "--n-iter", "0",
                    "--timeout", "20"], timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    r = run_mpi(4, [CLI, "die_switch", "0", stem, "--out", str(out / "g"), "--timeout", "5"],
                timeout=120)
    assert r.returncode != 0
    with pytest.raises(SetError, match="does not match the output set"):
        read_lbdatafile(str(out / "g"))  # never read as a mix of two runs


def test_smaller_job_removes_the_larger_sets_files(tmp_path):
    out = tmp_path / "out"
    G.gemma_like(m=8, n_tasks=160, n_blocks=24, seed=3).to_lbdatafile(str(out / "g"))
    stem = _stem(tmp_path, 4)
    r = run_mpi(4, [CLI, "none", "0", stem, "--out", str(out / "g"), "--timeout", "20"],
                timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert _listing(out) == [f"g.{i}.json" for i in range(4)] + ["g.wpart-set.json"]
    p = read_lbdatafile(str(out / "g"))
    assert p.m == 4 and p.n_tasks == 160


def test_stalled_rank_is_named_by_the_rank_that_waited(tmp_path):
    stem = _stem(tmp_path, 4)
    t0 = time.monotonic()
    r = run_mpi(4, [CLI, "stop_run", "2", stem, "--out", str(tmp_path / "o" / "g"),
                    "--timeout", "3"], timeout=90)
    assert r.returncode != 0
    assert "rank 2 did not answer a ping" in r.stderr and "died or hangs" in r.stderr
    assert time.monotonic() - t0 < 60
    assert not (tmp_path / "o").exists() or not list((tmp_path / "o").glob("*.tmp"))


def test_rank_stopped_after_the_result_ends_the_job_within_timeout(tmp_path):
    stem = _stem(tmp_path, 4)
    out = tmp_path / "out"
    t0 = time.monotonic()
    try:
        r = run_mpi(4, [CLI, "stop_end", "1", stem, "--out", str(out / "g"), "--timeout", "4"],
                    timeout=90)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure under test
        pytest.fail("a rank stopped after its result made the job hang in finalisation")
    assert r.returncode != 0
    assert "MPI finalisation did not finish within --timeout 4 s" in r.stderr
    assert time.monotonic() - t0 < 60
    assert read_lbdatafile(str(out / "g")).n_tasks == 160  # the output set is whole
