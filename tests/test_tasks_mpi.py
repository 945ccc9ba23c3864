"""CCM-LB over MPI (wpart.tasks.mpi): mpirun -np 4 and 8 on loopback, each run bounded.

Oracle: the in-process rank engine (``balance(..., backend="ranks")``), which runs the same
rank steps with direct calls as transport; same seed, same assignment and W_max. The
in-process engine itself is checked against the serial C engine and the model's invariants in
tests/test_tasks_ranks.py.
"""

import json
import subprocess
import time

import numpy as np
import pytest
from oracles.mpirun import needs_mpi, run_mpi

from wpart.tasks import Problem, balance, generators as G, read_lbdatafile
from wpart.tasks.datasets import lbaf_path

pytestmark = needs_mpi

SCRIPT = "tests/mpi/tasks_balance.py"


def _cases(P: int, n: int, seed0: int) -> list:
    rng = np.random.default_rng(seed0)
    out = []
    for i in range(n):
        K = int(rng.choice([1, 2, 5, 17, 40]))
        args = dict(m=P, n_tasks=K, n_blocks=int(rng.integers(0, 7)),
                    n_edges=int(rng.choice([0, 0, 5, 30])), seed=seed0 + i,
                    memory=bool(i % 3 == 0), zeros=bool(i % 2), rank_alpha=bool(i % 5 == 4))
        opts = dict(seed=int(rng.integers(0, 1000)), n_iter=int(rng.choice([0, 1, 3])),
                    beta=float(rng.choice([0.0, 1.0])), gamma=float(rng.choice([0.0, 0.25])),
                    delta=float(rng.choice([0.0, 0.5])))
        variant = i % 6
        if variant == 1:
            opts["cluster"] = "task"
        elif variant == 2:
            opts.update(subclusters="singles", n_trials=2)
        elif variant == 3:
            opts.update(cluster="block+comm", order="rank")
        elif variant == 4:
            opts.update(subclusters="fill", fanout=1, n_rounds=2)
        elif variant == 5:
            opts["memory_cap"] = 1e9
        out.append({"source": {"generator": "random_problem", "args": args}, "options": opts})
    return out


def _inproc(case: dict):
    src, opts = case["source"], dict(case["options"])
    prob = getattr(G, src["generator"])(**src["args"])
    return prob, balance(prob, backend="ranks", **opts)


def _run(tmp_path, P: int, cases: list, timeout: float = 150) -> list:
    cf, of = tmp_path / "cases.json", tmp_path / "out.json"
    cf.write_text(json.dumps(cases))
    r = run_mpi(P, [SCRIPT, cf, of], timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(of.read_text())


def _check_same(case: dict, got: dict) -> None:
    prob, want = _inproc(case)
    a = np.asarray(got["assignment"])
    assert got["task_ids"] == list(range(prob.n_tasks))
    np.testing.assert_array_equal(a, want.assignment, err_msg=json.dumps(case))
    assert got["max_load"] == want.max_load
    np.testing.assert_array_equal(got["history"], want.history)
    assert sum(got["exchanges_per_iteration"]) == want.stats["n_exchanges"]
    # the gathered result is what the model says
    assert prob.evaluate(assignment=a, alpha=case["options"].get("alpha", 1.0),
                         beta=case["options"].get("beta", 0.0),
                         gamma=case["options"].get("gamma", 0.0),
                         delta=case["options"].get("delta", 0.0),
                         memory_cap=case["options"].get("memory_cap"))["w_max"] == \
        pytest.approx(got["max_load"], rel=1e-12, abs=1e-12)


def test_mpi_equals_in_process_np4(tmp_path):
    cases = _cases(4, 24, 100)
    cases.append({"source": {"generator": "synthetic_blocks", "args": {}},
                  "options": {"beta": 1.0, "gamma": 0.5, "seed": 3}})
    cases.append({"source": {"generator": "gemma_like",
                             "args": {"m": 4, "n_tasks": 300, "n_blocks": 30}},
                  "options": {"delta": 1e-9, "seed": 1}})
    # bench_mpi part (6)'s load sigma 1.5 at P = 4, seed 2: the final pass makes two mixed
    # exchanges (a task or a block's part for a block's part; RankParams.final_mixed)
    cases.append({"source": {"generator": "gemma_like",
                             "args": {"m": 4, "n_tasks": 160, "n_blocks": 24, "seed": 2,
                                      "load_sigma": 1.5}},
                  "options": {"seed": 2, "n_iter": 4}})
    got = _run(tmp_path, 4, cases)
    assert len(got) == len(cases)
    for case, g in zip(cases, got):
        _check_same(case, g)
        assert g["max_load"] <= g["initial_max_load"]


def test_mpi_equals_in_process_np8_oversubscribed(tmp_path):
    cases = _cases(8, 8, 500)
    got = _run(tmp_path, 8, cases)
    for case, g in zip(cases, got):
        _check_same(case, g)
        assert g["m"] == 8 and g["status"] == "feasible" and g["success"]


def test_mpi_messages_counted(tmp_path):
    turns = {"source": {"generator": "gemma_like",
                        "args": {"m": 4, "n_tasks": 200, "n_blocks": 24}},
             "options": {"seed": 2, "n_iter": 2, "protocol": "turns"}}
    rounds = {"source": turns["source"], "options": {"seed": 2, "n_iter": 2}}
    g, r = _run(tmp_path, 4, [turns, rounds])
    _, want = _inproc(turns)
    m = g["messages"]  # rank 0's own sends
    assert m["TURN_DONE"] == 2 * 3  # one notice to each other rank per turn
    assert m["ANNOUNCE"] == 2 * 3   # and one announcement of the ranks the turn touches
    assert g["bytes_sent"] > 0
    assert set(want.stats["messages"]) >= set(m) - {"ANNOUNCE"}
    # rounds: no notice to every rank; what rank 0 sent is a subset of the in-process kinds
    _check_same(rounds, r)
    _, want = _inproc(rounds)
    assert "TURN_DONE" not in r["messages"] and "ANNOUNCE" not in r["messages"]
    assert set(want.stats["messages"]) >= set(r["messages"]) - {"DIRECTORY"}
    assert r["stats"]["gossip_bytes"] > 0


def test_mpi_per_rank_lbdatafiles(tmp_path):
    """Each process reads only its rank's file and writes its rank's result; read together,
    the output is the in-process result."""
    prob = G.random_problem(4, 60, 6, 40, seed=7, memory=True)
    stem = str(tmp_path / "in" / "phase")
    prob.to_lbdatafile(stem)
    back = read_lbdatafile(stem)  # what the per-rank reader must agree with
    out = str(tmp_path / "out" / "phase")
    opts = {"beta": 1.0, "delta": 0.1, "seed": 4, "out": out}
    g = _run(tmp_path, 4, [{"source": {"stem": stem}, "options": opts}])[0]
    want = balance(back, backend="ranks", beta=1.0, delta=0.1, seed=4)
    by_id = np.empty(prob.n_tasks, np.int32)
    by_id[np.asarray(back.task_ids)] = want.assignment
    assert g["task_ids"] == list(range(prob.n_tasks))
    np.testing.assert_array_equal(g["assignment"], by_id)
    assert g["max_load"] == want.max_load
    res = read_lbdatafile(out)
    assert res.n_tasks == prob.n_tasks and res.n_edges == prob.n_edges
    ids = np.asarray(res.task_ids)
    a = np.empty(prob.n_tasks, np.int32)
    a[ids] = res.initial  # the rank of each file is where the task ended
    np.testing.assert_array_equal(a, by_id)
    assert res.evaluate(beta=1.0, delta=0.1)["w_max"] == pytest.approx(want.max_load)
    o = np.argsort(ids)
    np.testing.assert_array_equal(np.asarray(res.task_load)[o], prob.task_load)


def test_mpi_reads_lbaf_synthetic_blocks(tmp_path):
    stem = lbaf_path("synthetic-blocks/synthetic-dataset-blocks")
    g = _run(tmp_path, 4, [{"source": {"stem": stem},
                            "options": {"beta": 1.0, "gamma": 0.5, "seed": 0}}])[0]
    want = balance(read_lbdatafile(stem), backend="ranks", beta=1.0, gamma=0.5, seed=0)
    assert g["max_load"] == want.max_load
    assert g["initial_max_load"] == want.initial_max_load


@pytest.mark.parametrize("protocol", ["turns", "rounds"])
@pytest.mark.parametrize("kind", ["die", "hang"])
def test_mpi_rank_failure_stops_in_bounded_time(tmp_path, kind, protocol):
    fault = [kind, 2] if protocol == "turns" else [kind, 2, "proposals"]
    case = {"source": {"generator": "gemma_like",
                       "args": {"m": 4, "n_tasks": 120, "n_blocks": 16}},
            "options": {"seed": 0, "timeout": 3.0, "fault": fault, "protocol": protocol}}
    cf, of = tmp_path / "cases.json", tmp_path / "out.json"
    cf.write_text(json.dumps([case]))
    t0 = time.monotonic()
    try:
        r = run_mpi(4, [SCRIPT, cf, of], timeout=60)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure under test
        pytest.fail(f"a {kind} rank made the job hang")
    took = time.monotonic() - t0
    assert r.returncode != 0
    assert not of.exists()
    text = r.stdout + r.stderr
    if kind == "hang":  # the rank that waited names it (it did not answer a ping)
        assert "RankFailure" in text and "rank 2" in text and "died or hangs" in text
    else:
        assert ("rank 2" in text or "process rank 2" in text) and \
            ("died or hangs" in text or "signal 9" in text or "Killed" in text)
    assert took < 45


def test_mpi_bad_input_is_a_clear_error(tmp_path):
    stem = str(tmp_path / "bad")
    Problem(task_load=[1.0, 2.0, 3.0, 4.0], m=4, initial=[0, 1, 2, 3]).to_lbdatafile(stem)
    p = tmp_path / "bad.2.json"
    p.write_text(p.read_text().replace('"time": 3.0', '"time": -3.0'))
    cf, of = tmp_path / "cases.json", tmp_path / "out.json"
    cf.write_text(json.dumps([{"source": {"stem": stem}, "options": {"timeout": 5.0}}]))
    r = run_mpi(4, [SCRIPT, cf, of], timeout=60)
    assert r.returncode != 0
    assert "bad.2.json" in r.stderr and "time" in r.stderr and "non-negative" in r.stderr


def test_mpi_edge_to_a_missing_task_names_the_file(tmp_path):
    """Each rank reads its own file; an edge naming a task that no rank holds stops every rank
    with an error naming the file, the communication and the missing id."""
    stem = str(tmp_path / "e")
    Problem(task_load=[1.0, 2.0, 3.0, 4.0], m=4, initial=[0, 1, 2, 3], edges=[(0, 1)],
            edge_bytes=[8.0]).to_lbdatafile(stem)
    p = tmp_path / "e.0.json"
    doc = json.loads(p.read_text())
    doc["phases"][0]["communications"][0]["to"]["id"] = 77
    p.write_text(json.dumps(doc))
    with pytest.raises(Exception, match="names id 77"):  # the global reader agrees
        read_lbdatafile(stem)
    cf, of = tmp_path / "cases.json", tmp_path / "out.json"
    cf.write_text(json.dumps([{"source": {"stem": stem}, "options": {"timeout": 10.0}}]))
    r = run_mpi(4, [SCRIPT, cf, of], timeout=60)
    assert r.returncode != 0 and not of.exists()
    assert "LBDatafileError" in r.stderr and "e.0.json" in r.stderr
    assert "communications[0].to" in r.stderr and "names id 77" in r.stderr


def test_readme_mpi_example_under_mpirun(tmp_path):
    """The README's MPI script, as pasted, under mpirun -np 4 from an empty folder."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = next(b for b in re.findall(r"^```python[ \t]*\n(.*?)^```", text, re.S | re.M)
                 if "balance_mpi" in b)
    script = tmp_path / "balance_phase.py"
    script.write_text(block)
    # mpirun interleaves the ranks' stdout (even within a line): read each rank's own copy
    outs = tmp_path / "mpi-out"
    r = run_mpi(4, [script], timeout=120, cwd=str(tmp_path),
                mpirun_args=["--output-filename", str(outs)])
    assert r.returncode == 0, r.stderr[-2000:]
    w = set()
    for rank in range(4):
        lines = next(outs.glob(f"*/rank.{rank}/stdout")).read_text().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"rank {rank}:"), lines
        mt = re.search(r"-> ([-+.0-9eE]+)\)", lines[0])
        assert mt, lines
        w.add(float(mt.group(1)))
    assert len(w) == 1  # every rank learns the same W_max
    assert sorted(p.name for p in (tmp_path / "balanced").iterdir()) == \
        [f"data.{r}.json" for r in range(4)] + ["data.wpart-set.json"]
    out = read_lbdatafile(str(tmp_path / "balanced" / "data"))
    assert out.n_tasks == 600


_SINGLETON = r'''
import numpy as np, pytest
from mpi4py import MPI
from wpart.tasks import Problem, balance
from wpart.tasks._rankdata import RankData
from wpart.tasks.mpi import balance_mpi, scatter_problem

comm = MPI.COMM_WORLD
p = Problem(task_load=[1.0, 2.0, 0.0, 2.0], m=1, initial=[0, 0, 0, 0])
res = balance_mpi(scatter_problem(p, comm=comm), comm=comm, gather=True, on_failure="raise")
assert res.max_load == res.initial_max_load == 5.0 and res.assignment.tolist() == [0] * 4
assert res.status == "feasible" and res.m == 1 and len(repr(res).splitlines()) <= 5
lim = balance_mpi(scatter_problem(p, comm=comm), comm=comm, time_limit=1e-9,
                  on_failure="raise")
assert lim.status == "time_limit" and lim.success and lim.exchanges_per_iteration == []
for proto in ("gather", "auto"):  # a limit spent before the gather: refused as 0 s, an abort
    lim = balance_mpi(scatter_problem(p, comm=comm), comm=comm, time_limit=1e-9,
                      protocol=proto, on_failure="raise")
    assert lim.status == "time_limit" and lim.success, proto
for bad, match in [(dict(seed="1"), "`seed`"), (dict(time_limit="5"), "`time_limit`"),
                   (dict(timeout=True), "`timeout`")]:
    with pytest.raises(TypeError, match=match):
        balance_mpi(scatter_problem(p, comm=comm), comm=comm, on_failure="raise", **bad)
for bad, match in [(dict(timeout=0), "timeout"), (dict(timeout=float("nan")), "timeout"),
                   (dict(cluster="x"), "cluster"),
                   (dict(n_iter=-1), "n_iter"), (dict(memory_cap=-1.0), "memory_cap")]:
    with pytest.raises(ValueError, match=match):
        balance_mpi(scatter_problem(p, comm=comm), comm=comm, on_failure="raise", **bad)
with pytest.raises(ValueError, match="on_failure"):
    balance_mpi(scatter_problem(p, comm=comm), comm=comm, on_failure="ignore")
with pytest.raises(ValueError, match="rank 3's"):
    balance_mpi(RankData(3), comm=comm, on_failure="raise")
with pytest.raises(TypeError, match="RankData or an LBDatafile stem"):
    balance_mpi(42, comm=comm, on_failure="raise")
with pytest.raises(ValueError, match="2 ranks but the communicator 1"):
    scatter_problem(Problem(task_load=[1.0], m=2), comm=comm)
with pytest.raises(ValueError, match="infeasible start"):
    balance_mpi(scatter_problem(p.with_(task_footprint=[1.0, 1, 1, 1]), comm=comm), comm=comm,
                memory_cap=0.5, on_failure="raise")
print("singleton ok")
'''


def test_mpi_singleton_and_bad_options(tmp_path):
    """One process without mpirun (MPI singleton): a 1-rank run, and bad options raise."""
    import os
    import sys

    from oracles.mpirun import mpi_env

    script = tmp_path / "single.py"
    script.write_text(_SINGLETON)
    env = mpi_env()
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=120, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "singleton ok" in r.stdout
    assert os.path.exists(script)


def test_bench_mpi_quick(tmp_path):
    """benchmarks/bench_mpi.py --quick: the MPI part (every row MATCH, both protocols), the
    in-process scaling part and the PROJECTION run and write their JSON."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_mpi.py"), "--quick",
                        "--skip", "dynamic", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    d = json.loads((tmp_path / "bench_mpi.json").read_text())
    rows = d["mpi"]["rows"]
    assert [(row["P"], row["protocol"]) for row in rows] == [
        (2, "turns"), (2, "rounds"), (4, "turns"), (4, "rounds")]
    assert all(row["match_ranks"] for row in rows)
    sc = d["scaling"]["rows"]
    assert {row["P"] for row in sc} == {2, 4, 8, 16}
    for row in sc:
        assert row["gossip_bytes_per_rank_max"] > 0 and row["messages_per_rank_per_iter"] > 0
    proj = d["projection"]["projection"]
    assert proj["label"] == "PROJECTION" and proj["seconds_per_iter"] > 0
    assert "PROJECTION" in r.stdout


def test_mpi_gather_equals_the_serial_engine_np4(tmp_path):
    """protocol='gather' (and 'auto', which gathers a phase this small): the phase on rank 0,
    the serial C engine, the records scattered; the same placement as in-process (which is
    the serial engine's), pinned tasks and memory caps kept."""
    cases = _cases(4, 12, 700)
    for i, c in enumerate(cases):
        c["options"]["protocol"] = "auto" if i % 4 == 3 else "gather"
    got = _run(tmp_path, 4, cases)
    for case, g in zip(cases, got):
        _check_same(case, g)
        prob = getattr(G, case["source"]["generator"])(**case["source"]["args"])
        opts = {k: v for k, v in case["options"].items() if k != "protocol"}
        assert g["max_load"] == balance(prob, **opts).max_load  # the serial engine's
        assert g["stats"]["protocol"] == "gather"
