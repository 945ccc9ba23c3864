"""Hostile ids, ranks and sizes: integers beyond int64 (or numbers beyond float64) in an
LBDatafile, in ``Problem(task_ids=..., block_ids=...)``, and a result array written to after
the run. Each is a :class:`wpart.WpartError` naming the file and field, or the argument, and
changes nothing; the good inputs beside them keep working."""

from __future__ import annotations

import copy
import json
import pickle
import re

import numpy as np
import pytest

import wpart
import wpart.tasks as wt
from wpart import cli
from wpart.tasks._mpi_io import read_rank
from wpart.tasks._rankdata import split_problem

from test_tasks_lbdatafile_rules import _doc, _task, _write

BIG = 2**70


def _with_ud(i: int, rank: int, **ud) -> dict:
    t = _task(i, rank)
    t["user_defined"] = ud
    return t


def _both_readers(stem: str, n_ranks: int):
    """The serial reader and the per-rank reader of the distributed engine (rank 0)."""
    return [lambda: wt.read_lbdatafile(stem),
            lambda: read_rank(f"{stem}.0.json", 0, n_ranks)]


def _both_refuse(stem: str, n_ranks: int, match: str) -> None:
    """Both readers raise LBDatafileError with a message matching `match`."""
    for read in _both_readers(stem, n_ranks):
        with pytest.raises(wt.LBDatafileError, match=match):
            read()


# ------------------------------------------------------------------ the LBDatafile reader

@pytest.mark.parametrize("sid", [BIG, -BIG, 2**63, -(2**63) - 1])
def test_shared_id_beyond_int64_names_the_file_and_field(tmp_path, sid):
    stem = _write(tmp_path, [_doc(0, [_with_ud(0, 0, shared_id=sid, shared_bytes=8.0)]),
                             _doc(1, [_task(1, 1)])])
    before = (tmp_path / "d.0.json").read_bytes()
    _both_refuse(stem, 2, r"d\.0\.json: phases\[0\]\.tasks\[0\]\.user_defined\.shared_id: "
                 r"-?\d+ is outside the int64 range")
    assert (tmp_path / "d.0.json").read_bytes() == before  # the file is left as it was


def test_shared_id_beyond_int64_through_the_cli(tmp_path, capsys):
    stem = _write(tmp_path, [_doc(0, [_with_ud(0, 0, shared_id=BIG)]), _doc(1, [_task(1, 1)])])
    assert cli.main(["tasks", stem]) == 1
    err = capsys.readouterr().err
    assert "d.0.json: phases[0].tasks[0].user_defined.shared_id" in err
    assert "int64 range" in err and "Traceback" not in err


@pytest.mark.parametrize("sid", [2**63 - 1, 0, 12345])
def test_shared_id_at_the_int64_edge_reads(tmp_path, sid):
    stem = _write(tmp_path, [_doc(0, [_with_ud(0, 0, shared_id=sid, shared_bytes=8.0)]),
                             _doc(1, [_with_ud(1, 1, shared_id=sid, shared_bytes=8.0)])])
    p = wt.read_lbdatafile(stem)
    assert p.block_ids.dtype == np.int64 and p.block_ids.tolist() == [sid]
    assert p.task_block.tolist() == [0, 0] and p.block_size.tolist() == [8.0]
    data, _, _ = read_rank(f"{stem}.0.json", 0, 2)
    assert data.bid.tolist() == [sid] and data.blk.tolist() == [sid]


def test_lowest_int64_shared_id_reads_serially(tmp_path):
    stem = _write(tmp_path, [_doc(0, [_with_ud(0, 0, shared_id=-(2**63))])])
    assert wt.read_lbdatafile(stem).block_ids.tolist() == [-(2**63)]


@pytest.mark.parametrize("key", ["id", "seq_id"])
def test_entity_id_beyond_int64_names_the_field(tmp_path, key):
    t = _task(0, 0)
    del t["entity"]["id"]
    t["entity"][key] = BIG
    stem = _write(tmp_path, [_doc(0, [t])])
    _both_refuse(stem, 1, rf"d\.0\.json: phases\[0\]\.tasks\[0\]\.entity\.{key}: "
                 r"\d+ is outside the int64 range")


def test_edge_endpoint_beyond_int64_names_the_field(tmp_path):
    c = {"type": "SendRecv", "from": {"type": "object", "id": 0},
         "to": {"type": "object", "id": BIG}, "bytes": 2.0, "messages": 1}
    stem = _write(tmp_path, [_doc(0, [_task(0, 0)], communications=[c])])
    _both_refuse(stem, 1, r"d\.0\.json: phases\[0\]\.communications\[0\]\.to\.id: "
                 r"\d+ is outside the int64 range")


def test_vom_object_id_beyond_int64_names_the_field(tmp_path):
    (tmp_path / "v.0.vom").write_text(f"0,{BIG},1.5\n")
    with pytest.raises(wt.LBDatafileError,
                       match=r"v\.0\.vom: phases\[0\]\.tasks\[0\]\.entity\.id: \d+ is outside"):
        wt.read_lbdatafile(str(tmp_path / "v"))


@pytest.mark.parametrize("field", ["time", "task_footprint_bytes", "task_working_bytes",
                                   "rank_working_bytes", "shared_bytes", "rank_alpha", "bytes"])
def test_number_beyond_float64_names_the_field(tmp_path, field):
    huge = 10**400  # an integer literal: float() of it overflows
    t0, t1 = _task(0, 0), _task(1, 0)
    c = {"type": "SendRecv", "from": {"type": "object", "id": 0},
         "to": {"type": "object", "id": 1}, "bytes": 2.0, "messages": 1}
    d = _doc(0, [t0, t1], communications=[c])
    where = {"time": "phases[0].tasks[0]", "rank_alpha": "metadata",
             "bytes": "phases[0].communications[0]"}.get(field, "phases[0].tasks[0].user_defined")
    if field == "time":
        t0["time"] = huge
    elif field == "rank_alpha":
        d["metadata"]["rank_alpha"] = huge
    elif field == "bytes":
        c["bytes"] = huge
    else:
        t0["user_defined"] = {field: huge, **({"shared_id": 1} if field == "shared_bytes"
                                               else {})}
    stem = _write(tmp_path, [d])
    _both_refuse(stem, 1, rf"d\.0\.json: {re.escape(where)}\.{field}: must be finite "
                 r"and non-negative, got an integer of \d+ bits")


def test_good_file_still_reads_field_for_field(tmp_path):
    c = {"type": "SendRecv", "from": {"type": "object", "id": 7},
         "to": {"type": "object", "id": 2**63 - 1}, "bytes": 3.0, "messages": 1}
    d0 = _doc(0, [_with_ud(7, 0, shared_id=-5, shared_bytes=4.0, task_footprint_bytes=2.0)],
              communications=[c])
    d1 = _doc(1, [_with_ud(2**63 - 1, 1, shared_id=2**62, shared_bytes=6.0, home_rank=0)])
    p = wt.read_lbdatafile(_write(tmp_path, [d0, d1]))
    assert p.task_ids.tolist() == [7, 2**63 - 1]
    assert p.block_ids.tolist() == [-5, 2**62]
    assert p.block_size.tolist() == [4.0, 6.0] and p.block_home.tolist() == [0, 0]
    assert p.edges.tolist() == [[0, 1]] and p.edge_bytes.tolist() == [3.0]
    assert p.task_footprint.tolist() == [2.0, 0.0]


# ------------------------------------------------------------------ Problem(task_ids=...)

def _problem(**kw) -> wt.Problem:
    return wt.Problem(task_load=[1.0, 2.0, 3.0], m=2, **kw)


BLOCKS = dict(task_block=[0, -1, 1], block_size=[10.0, 20.0], block_home=[0, 1])


@pytest.mark.parametrize("name", ["task_ids", "block_ids"])
@pytest.mark.parametrize("bad, exc, what", [
    ([BIG, 1, 2], wpart.WpartOverflowError, r"must hold int64 values, got \d+ at index 0"),
    ([1, -BIG, 2], wpart.WpartOverflowError, r"must hold int64 values, got -\d+ at index 1"),
    ([1, 2, 2**63], wpart.WpartOverflowError, r"at index 2"),
    ([1, 2, 10**5000], wpart.WpartOverflowError, r"an integer of \d+ bits at index 2"),
    (np.array([2**64 - 1, 1, 2], np.uint64), wpart.WpartOverflowError, "int64 range"),
    (["a", 1, 2], wpart.WpartTypeError, "must hold integers"),
    ([1.5, 2.0, 3.0], wpart.WpartTypeError, "must hold integers"),
    ([1, None, 2], wpart.WpartTypeError, "must hold integers"),
    ([True, False, True], wpart.WpartTypeError, "must hold integers"),
    ([[1], [2, 3], [4]], wpart.WpartTypeError, "1-D array of integers"),
    ("abc", wpart.WpartTypeError, "1-D array of integers"),
    ([[1, 2, 3]], wpart.WpartValueError, "must be 1-D"),
    (7, wpart.WpartValueError, "must be 1-D"),
], ids=["big", "big_negative", "2^63", "10^5000", "uint64", "str", "float", "None", "bool",
        "ragged", "string", "2-D", "scalar"])
def test_bad_ids_are_wpart_errors_naming_the_argument(name, bad, exc, what):
    blocks = dict(BLOCKS, task_block=[0, 1, 2], block_size=[1.0, 2.0, 3.0],
                  block_home=[0, 1, 1]) if name == "block_ids" else {}
    with pytest.raises(exc, match=rf"^`{name}` .*{what}"):
        _problem(**blocks, **{name: bad})


def test_ids_of_the_wrong_length_name_the_count():
    with pytest.raises(wpart.WpartValueError, match=r"^`task_ids` must have length n_tasks = 3, "
                                                    r"got 2"):
        _problem(task_ids=[1, 2])
    with pytest.raises(wpart.WpartValueError, match=r"^`block_ids` must have length n_blocks "
                                                    r"= 2, got 1"):
        _problem(**BLOCKS, block_ids=[5])
    with pytest.raises(wpart.WpartValueError, match=r"^`block_ids` must have length n_blocks "
                                                    r"= 0, got 1"):
        _problem(block_ids=[5])  # no blocks
    p = _problem(**BLOCKS, block_ids=[5, 6])
    with pytest.raises(wpart.WpartValueError, match=r"^`block_ids` must have length n_blocks"):
        p.with_(task_block=[0, 0, 0], block_size=[1.0], block_home=[1])  # old ids kept


def test_bad_ids_change_nothing():
    ids = np.array([BIG, 1, 2], dtype=object)
    mine = np.array([4, 5, 6])
    p = _problem(**BLOCKS, task_ids=mine, block_ids=[5, 6])
    with pytest.raises(wpart.WpartOverflowError, match="`task_ids`"):
        p.with_(task_ids=ids)
    assert ids.tolist() == [BIG, 1, 2]
    assert p.task_ids.tolist() == [4, 5, 6] and p.block_ids.tolist() == [5, 6]
    assert mine.flags.writeable  # the caller's array is copied, never frozen
    mine[0] = 99
    assert p.task_ids.tolist() == [4, 5, 6]


def test_good_ids_are_read_only_int64():
    p = _problem(**BLOCKS, task_ids=[-(2**63), 0, 2**63 - 1], block_ids=(9, 2**40))
    assert p.task_ids.dtype == np.int64 and p.task_ids.tolist() == [-(2**63), 0, 2**63 - 1]
    assert p.block_ids.dtype == np.int64 and p.block_ids.tolist() == [9, 2**40]
    for a in (p.task_ids, p.block_ids):
        assert not a.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 1
    q = _problem(task_ids=np.array([3, 4, 5], np.int32), block_ids=[])
    assert q.task_ids.dtype == np.int64 and q.block_ids.tolist() == []
    assert _problem().task_ids is None and _problem(**BLOCKS).block_ids is None


def test_block_ids_list_is_written_and_scattered(tmp_path):
    p = _problem(**BLOCKS, task_ids=[10, 11, 12], block_ids=[70, 80], initial=[0, 0, 1])
    p.to_lbdatafile(str(tmp_path / "w"))
    docs = [json.loads((tmp_path / f"w.{r}.json").read_text()) for r in range(2)]
    sid = {t["entity"]["id"]: t.get("user_defined", {}).get("shared_id")
           for d in docs for t in d["phases"][0]["tasks"]}
    assert sid == {10: 70, 11: None, 12: 80}
    q = wt.read_lbdatafile(str(tmp_path / "w"))
    assert q.block_ids.tolist() == [70, 80] and q.task_ids.tolist() == [10, 11, 12]
    parts = split_problem(p, p.initial, None)  # what scatter_problem sends each rank
    assert [d.gid.tolist() for d in parts] == [[10, 11], [12]]
    assert [d.blk.tolist() for d in parts] == [[70, -1], [80]]
    assert [d.bid.tolist() for d in parts] == [[70], [80]]
    assert [d.bhome.tolist() for d in parts] == [[0], [1]]


# ------------------------------------------------------------------ Partition1D arrays

def test_partition_1d_arrays_are_read_only_and_owner_stays_right():
    r = wpart.partition_1d([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], 4)
    assert r.separators.tolist() == [0, 5, 7, 10, 11]
    for a in (r.separators, r.loads):
        assert not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        r.separators[1] = 10**9
    with pytest.raises(ValueError, match="read-only"):
        r.loads[0] = -1
    assert r.separators.tolist() == [0, 5, 7, 10, 11]
    assert r.owner().tolist() == [0] * 5 + [1] * 2 + [2] * 3 + [3]
    assert r.loads.tolist() == [14, 11, 14, 5]


def test_partition_1d_copies_stay_read_only():
    r = wpart.partition_1d([3.0, 1.0, 4.0, 1.0, 5.0], 2)
    for c in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r), copy.copy(r)):
        assert c == r
        assert not c.separators.flags.writeable and not c.loads.flags.writeable
        assert c.owner().tolist() == r.owner().tolist() == [0, 0, 0, 1, 1]


def test_partition_1d_leaves_the_callers_arrays_writable():
    sp = np.array([1.0, 2.0])
    r = wpart.partition_1d([4, 4, 4, 4, 4, 4], 2, speeds=sp)
    assert sp.flags.writeable and not r.speeds.flags.writeable
    assert r.separators.tolist() == [0, 2, 6] and r.owner().tolist() == [0, 0, 1, 1, 1, 1]
    empty = wpart.partition_1d([1, 2, 3], 5)  # more parts than items: padded separators
    assert not empty.separators.flags.writeable
    assert empty.separators.tolist() == [0, 2, 3, 3, 3, 3] and empty.max_load == 3
    assert empty.loads.tolist() == [3, 3, 0, 0, 0] and empty.owner().tolist() == [0, 0, 1]
