"""LBDatafile reader and writer: LBAF's public datasets, golden values, round trip, errors."""

import json
import os

import numpy as np
import pytest

import wpart
from wpart import tasks
from wpart.tasks.datasets import lbaf_path

D = lbaf_path("")
needs_data = pytest.mark.skipif(not os.path.isdir(D), reason="LBAF datasets not available")

DATASETS = [
    # stem, ranks, tasks, blocks, initial max/avg load (as LBAF reports them)
    ("synthetic-blocks/synthetic-dataset-blocks", 4, 9, 5, 2.00),
    ("synthetic-blocks/synthetic-dataset-blocks-alpha0", 4, 9, 5, 2.00),
    ("ccm_example/data", 2, 3, 2, 1.05),
    ("user-defined-memory-toy-problem/toy_mem", 4, 32, 12, 2.17),
    ("user-defined-memory-toy-problem/toy_mem_README", 4, 32, 12, None),
    ("user-defined-memory-toy-problem/toy_mem_optimal", 4, 32, 12, 1.00),
    ("challenging_toy_fewer_tasks/toy", 16, 274, 64, 2.92),
    ("nolb-8color-16nodes-11firstphases/data", 32, 480, 0, 1.99),
]


@needs_data
@pytest.mark.parametrize("stem,I,K,N,ratio", DATASETS)
def test_read_public_datasets(stem, I, K, N, ratio):
    p = tasks.Problem.from_lbdatafile(D + stem)
    assert (p.m, p.n_tasks, p.n_blocks) == (I, K, N)
    if ratio is not None:
        load = p.evaluate()["load"]
        assert load.max() / load.mean() == pytest.approx(ratio, abs=0.005)


@needs_data
def test_file_list_and_directory_inputs():
    files = [D + f"synthetic-blocks/synthetic-dataset-blocks.{r}.json" for r in range(4)]
    p = tasks.Problem.from_lbdatafile(files)
    assert p.evaluate(beta=1.0)["w_max"] == 8.5
    assert np.array_equal(p.initial, [0, 0, 0, 0, 1, 1, 1, 1, 2])
    q = tasks.Problem.from_lbdatafile(D + "ccm_example")
    assert q.n_tasks == 3


@needs_data
def test_synthetic_blocks_file_equals_generator():
    p = tasks.Problem.from_lbdatafile(D + "synthetic-blocks/synthetic-dataset-blocks")
    g = tasks.synthetic_blocks()
    for f in ("task_load", "task_block", "block_size", "block_home", "edges", "edge_bytes",
              "initial"):
        assert np.array_equal(getattr(p, f), getattr(g, f)), f
    a0 = tasks.Problem.from_lbdatafile(D + "synthetic-blocks/synthetic-dataset-blocks-alpha0")
    assert np.array_equal(a0.rank_alpha, np.zeros(4))


@needs_data
def test_stepper_golden_values():
    # PEERS 4.3: sum of W and imbalance per phase, beta = 1e-8, SendRecv edges only
    want_sum = [10.5817, 0.642948, 0.526383, 0.521197, 0.52225, 0.520378, 0.520078, 0.520286,
                0.520617, 0.547612, 0.522944]
    want_imb = [0.992173, 4.91849, 0.221116, 0.0442304, 0.0461051, 0.0469951, 0.0430356,
                0.0532831, 0.0466161, 1.44446, 0.098434]
    for ph in range(11):
        p = tasks.Problem.from_lbdatafile(D + "nolb-8color-16nodes-11firstphases/data", phase=ph)
        w = p.evaluate(beta=1e-8)["work"]
        assert w.sum() == pytest.approx(want_sum[ph], rel=1e-5)
        assert w.max() / w.mean() - 1 == pytest.approx(want_imb[ph], rel=1e-5)


@needs_data
def test_memory_toy_values():
    p = tasks.Problem.from_lbdatafile(D + "user-defined-memory-toy-problem/toy_mem_optimal")
    d = p.evaluate()
    np.testing.assert_allclose(d["load"], 87.5)
    assert d["memory"].max() <= 7_490_010_240
    assert np.all(d["n_blocks_present"] == 4)
    p0 = tasks.Problem.from_lbdatafile(D + "user-defined-memory-toy-problem/toy_mem")
    np.testing.assert_allclose(p0.evaluate()["load"], [190, 20, 50, 90])


@pytest.mark.parametrize("compress", [False, True])
def test_round_trip(tmp_path, compress):
    p = tasks.random_problem(3, 15, 4, 20, seed=3, memory=True, rank_alpha=True)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, size=15)
    a[:3] = [0, 1, 2]  # every rank keeps a task (the baseline travels with the tasks)
    paths = p.to_lbdatafile(str(tmp_path / "rt"), assignment=a, compress=compress)
    assert len(paths) == 3
    q = tasks.Problem.from_lbdatafile(str(tmp_path / "rt"))
    assert q.n_tasks == p.n_tasks
    # map by ids: every task placed exactly once, at its assigned rank
    order = np.argsort(q.task_ids)
    assert np.array_equal(q.task_ids[order], np.arange(15))
    assert np.array_equal(q.initial[order], a)
    np.testing.assert_array_equal(q.task_load[order], p.task_load)
    np.testing.assert_array_equal(q.task_footprint[order], p.task_footprint)
    np.testing.assert_array_equal(q.task_working[order], p.task_working)
    np.testing.assert_array_equal(q.rank_alpha, p.rank_alpha)
    for kw in (dict(), dict(beta=1.0, gamma=0.5, delta=0.25)):
        np.testing.assert_allclose(q.evaluate(**kw)["work"],
                                   p.evaluate(assignment=a, **kw)["work"])


@needs_data
def test_round_trip_public_file(tmp_path):
    p = tasks.Problem.from_lbdatafile(D + "user-defined-memory-toy-problem/toy_mem")
    r = tasks.balance(p, seed=1)
    p.to_lbdatafile(str(tmp_path / "out"), assignment=r.assignment, compress=True)
    q = tasks.Problem.from_lbdatafile(str(tmp_path / "out"))
    assert q.evaluate()["w_max"] == pytest.approx(r.max_work)


def _write(tmp_path, doc, name="bad.0.json", raw=None):
    path = tmp_path / name
    path.write_bytes(raw if raw is not None else json.dumps(doc).encode())
    return str(path)


TASK = {"entity": {"type": "object", "seq_id": 0, "home": 0, "migratable": True},
        "node": 0, "resource": "cpu", "time": 1.0}


@pytest.mark.parametrize("doc,match", [
    ({"metadata": {"rank": 0}}, r"json: phases: missing field"),
    ({"metadata": {"rank": 0}, "phases": [{"tasks": []}]}, r"phases\[0\]\.id: missing"),
    ({"metadata": {"rank": 0}, "phases": [{"id": 0}]}, r"phases\[0\]\.tasks: missing"),
    ({"phases": [{"id": 0, "tasks": [{"entity": {"seq_id": 0}}]}]},
     r"phases\[0\]\.tasks\[0\]\.time: missing"),
    ({"phases": [{"id": 0, "tasks": [{**TASK, "time": "x"}]}]}, r"tasks\[0\]\.time: expected"),
    ({"phases": [{"id": 0, "tasks": [{**TASK, "time": -1.0}]}]}, r"tasks\[0\]\.time: must be"),
    ({"phases": [{"id": 0, "tasks": [{"time": 1.0}]}]}, r"tasks\[0\]\.entity: missing"),
    ({"phases": [{"id": 0, "tasks": [{"entity": {"type": "object"}, "time": 1.0}]}]},
     "needs `id` or `seq_id`"),
    ({"phases": [{"id": 0, "tasks": [TASK, TASK]}]}, "duplicate task"),
    ({"phases": [{"id": 0, "tasks": [{**TASK, "user_defined": {"shared_id": "a"}}]}]},
     "shared_id: expected an integer"),
    ({"phases": [{"id": 0, "tasks": [{**TASK, "user_defined": {"shared_id": 1,
                                                               "home_rank": 7}}]}]},
     "home_rank"),
    ({"phases": [{"id": 0, "tasks": [TASK], "communications": [{"type": "SendRecv",
                                                                "from": {"seq_id": 0}}]}]},
     r"communications\[0\]\.to: missing"),
    ({"phases": [{"id": 3, "tasks": [TASK]}]}, "no phase with id 0"),
    ([1, 2], "top level must be an object"),
])
def test_malformed_files(tmp_path, doc, match):
    path = _write(tmp_path, doc)
    with pytest.raises(tasks.LBDatafileError, match=match):
        tasks.Problem.from_lbdatafile([path], phase=0)


def test_malformed_not_json(tmp_path):
    path = _write(tmp_path, None, raw=b"\x00\x01garbage{")
    with pytest.raises(tasks.LBDatafileError, match="not valid JSON.*nor complete brotli"):
        tasks.Problem.from_lbdatafile([path])
    path = _write(tmp_path, None, name="x.json", raw=b'{"phases": []}')
    with pytest.raises(tasks.LBDatafileError, match="metadata.rank"):
        tasks.Problem.from_lbdatafile([path])
    with pytest.raises(wpart.WpartFileNotFoundError, match=r"^`paths`: no LBDatafile found for '.*nothing'$"):
        tasks.Problem.from_lbdatafile(str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="empty"):
        tasks.Problem.from_lbdatafile([])


def test_edge_to_a_missing_task_names_the_file_and_the_edge(tmp_path):
    """A SendRecv edge to a task that is not in the phase is an error naming the file, the
    communication and the missing id (it used to be dropped silently)."""
    doc = {"metadata": {"rank": 0}, "phases": [{"id": 0, "tasks": [TASK], "communications": [
        {"type": "SendRecv", "from": {"type": "object", "seq_id": 0},
         "to": {"type": "object", "seq_id": 0}, "bytes": 2.0},
        {"type": "SendRecv", "from": {"type": "object", "seq_id": 0},
         "to": {"type": "object", "seq_id": 99}, "bytes": 5.0}]}]}
    path = _write(tmp_path, doc, name="bad.0.json")
    with pytest.raises(tasks.LBDatafileError, match=r"bad\.0\.json") as ei:
        tasks.Problem.from_lbdatafile([path])
    msg = str(ei.value)
    assert "bad.0.json" in msg and "phases[0].communications[1].to" in msg
    assert "seq_id 0 -> seq_id 99" in msg and "names seq_id 99" in msg
    assert isinstance(ei.value, wpart.WpartValueError)


def test_edges_that_are_not_task_to_task_are_skipped(tmp_path):
    """Other communication types, node endpoints and pinned (non-migratable) objects that are
    not tasks are not task-to-task edges (vt lists object groups as partners)."""
    doc = {"metadata": {"rank": 0}, "phases": [{"id": 0, "tasks": [TASK], "communications": [
        {"type": "Broadcast", "from": {"seq_id": 0}, "to": {"seq_id": 7}, "bytes": 5.0},
        {"type": "SendRecv", "from": {"type": "node", "id": 0}, "to": {"seq_id": 0},
         "bytes": 5.0},
        {"type": "SendRecv", "from": {"type": "object", "id": 5, "migratable": False},
         "to": {"seq_id": 0}, "bytes": 5.0},
        {"type": "SendRecv", "from": {"seq_id": 0}, "to": {"seq_id": 0}, "bytes": 2.0}]}]}
    p = tasks.Problem.from_lbdatafile([_write(tmp_path, doc)])
    assert p.n_edges == 1 and p.edge_bytes[0] == 2.0
