"""Every rule of the LBDatafile format that wpart enforces, and the round trip.

* Every public LBAF dataset (``wpart/data/lbaf``, and ``../shared/data/lbaf`` when present)
  reads, every phase; ``migratable: false`` becomes ``Problem.migratable``.
* Rejections name the file and the field: a gap in the rank files, an ``entity.home`` outside
  the ranks, a pinned task away from its home, a ``node`` other than the file's rank, a key the
  format does not define (unless ``strict=False``), a non-boolean ``migratable``, another
  ``type``, a ``metadata.rank`` other than the file name's, a phase listed twice, a skipped
  phase.
* Round trip: read -> write -> read gives an equal problem on every dataset, and the written
  tasks and communications are the ones read, field for field (initial assignment). The
  written files pass vt's schema for the format, checked with the ``schema`` package that
  LBAF and vt validate with; LBAF's own reader reads them (objects, ranks, loads, pinned tasks
  as its sentinel objects, blocks) when LBAF is importable or ``WPART_LBAF_PATH`` points at an
  unpacked ``lbaf`` wheel (PyPI's lbaf 1.0.1 needs Python <= 3.10; skipped otherwise).
"""

from __future__ import annotations

import glob
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from wpart.tasks import LBDatafileError, Problem, balance, read_lbdatafile
from wpart.tasks import generators as G
from wpart.tasks._lbdf_fields import FIELDS, readme_table
from wpart.tasks.datasets import LBAF_DIR

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "lbaf"


def _stems() -> list[str]:
    """Every ``<stem>`` with ``<stem>.<rank>.json`` files in the LBAF data folders (the
    shared copy where there is one: the same files as wpart's)."""
    out: dict = {}
    for base in (LBAF_DIR, SHARED):
        for f in glob.glob(str(base / "*" / "*.*")):
            m = re.fullmatch(r"(.*)\.\d+\.(json|vom)", f)
            if m:
                out[os.path.relpath(m.group(1), base)] = m.group(1)
    return [out[k] for k in sorted(out)]


STEMS = _stems()
IDS = [os.path.relpath(s, s.rsplit("/", 2)[0]) for s in STEMS]


def _load(path) -> dict:
    if str(path).endswith(".vom"):
        from wpart.tasks._io import _load_vom
        return _load_vom(str(path))
    raw = Path(path).read_bytes()
    try:
        return json.loads(raw)
    except ValueError:
        import brotli
        return json.loads(brotli.decompress(raw))


def _rank_file(stem: str, r: int) -> str:
    f = f"{stem}.{r}.json"
    return f if os.path.exists(f) else f"{stem}.{r}.vom"


def _phase_ids(stem: str) -> list[int]:
    return [ph["id"] for ph in _load(_rank_file(stem, 0))["phases"]]


def _same(p: Problem, q: Problem) -> None:
    for k in ("task_load", "task_block", "block_size", "block_home", "edges", "edge_bytes",
              "task_footprint", "task_working", "rank_baseline", "rank_alpha", "initial",
              "task_ids", "block_ids", "migratable"):
        a, b = getattr(p, k), getattr(q, k)
        assert (a is None) == (b is None), k
        if a is not None:
            assert np.array_equal(np.asarray(a), np.asarray(b)), k
    assert p.m == q.m
    assert p.meta["entities"] == q.meta["entities"]
    # the raw tasks, up to the home_rank the writer adds (block_home is compared above)
    strip = lambda t: dict(t, user_defined={k: v for k, v in t.get("user_defined", {}).items()
                                            if k != "home_rank"})
    assert ([strip(t) for t in p.meta["lbdatafile"]["tasks"]]
            == [strip(t) for t in q.meta["lbdatafile"]["tasks"]])


# ------------------------------------------------------------------ every dataset reads

def test_datasets_found():
    assert len(STEMS) >= 9, STEMS
    assert any(s.endswith("vt_example_lb_data/data") for s in STEMS)


def test_vom_files(tmp_path):
    """vt's older text format: ``phase,object id,time`` lines."""
    (tmp_path / "v.0.vom").write_text("0,5,1.5\n0,6,2.0\n1,5,1.0\n")
    (tmp_path / "v.1.vom").write_text("0,7,0.5\n1,6,3.0\n")
    p = read_lbdatafile(str(tmp_path / "v"))
    assert p.task_ids.tolist() == [5, 6, 7] and p.initial.tolist() == [0, 0, 1]
    q = read_lbdatafile(str(tmp_path / "v"), phase=1)
    assert q.task_load.tolist() == [1.0, 3.0] and q.migratable.all()
    (tmp_path / "w.0.vom").write_text("0,5\n")
    _raises(r"w\.0\.vom: line 1: expected `phase,object id,time`", str(tmp_path / "w"))


@pytest.mark.parametrize("stem", STEMS, ids=IDS)
def test_every_dataset_reads(stem):
    ids = _phase_ids(stem)
    for ph in sorted({ids[0], ids[len(ids) // 2], ids[-1]}):  # first, middle and last
        p = read_lbdatafile(stem, phase=ph)
        ents = p.meta["entities"]
        assert p.migratable.tolist() == [e.get("migratable", True) for e in ents]
        assert np.all(p.initial[p.pinned] == [e["home"] for e in np.asarray(ents)[p.pinned]])


def test_pinned_tasks_of_the_8color_set():
    stem = SHARED / "nolb-8color-16nodes-11firstphases" / "data"
    if not Path(f"{stem}.0.json").exists():
        stem = LBAF_DIR / "nolb-8color-16nodes-11firstphases" / "data"
    p = Problem.from_lbdatafile(str(stem), phase=0)
    assert (p.m, p.n_tasks, p.n_pinned) == (32, 480, 224)
    assert np.bincount(p.initial[p.pinned], minlength=32).tolist() == [7] * 32


# ------------------------------------------------------------------ round trip

@pytest.mark.parametrize("stem", STEMS, ids=IDS)
def test_round_trip_keeps_every_field(stem, tmp_path):
    ph = _phase_ids(stem)[-1]
    p = read_lbdatafile(stem, phase=ph)
    files = p.to_lbdatafile(str(tmp_path / "rt"))
    q = read_lbdatafile(str(tmp_path / "rt"))
    _same(p, q)
    assert q.meta["phase"] == ph
    canon = lambda x: sorted(json.dumps(t, sort_keys=True) for t in x)

    def as_read(t, r):
        """`t` as written: home_rank added where the task is away from its block's home
        (the only field the writer adds, for readers that see only their rank's file)."""
        ud = t.get("user_defined", {})
        if "shared_id" in ud and "home_rank" not in ud:
            home = p.block_home[list(p.block_ids).index(ud["shared_id"])]
            if home != r:
                t = dict(t, user_defined=dict(ud, home_rank=int(home)))
        return t

    for r, f in enumerate(files):
        orig = [x for x in _load(_rank_file(stem, r))["phases"] if x["id"] == ph][0]
        new = _load(f)["phases"][0]
        assert canon([as_read(t, r) for t in orig["tasks"]]) == canon(new["tasks"]), f
        assert canon(orig.get("communications", [])) == canon(new.get("communications", [])), f
        for k in set(orig) - {"tasks", "communications"}:
            assert orig[k] == new[k], (f, k)
    # a balanced placement: the same problem, started from the placement
    r = balance(p, method="greedy")
    p.to_lbdatafile(str(tmp_path / "bal"), assignment=r.assignment, compress=True)
    b = read_lbdatafile(str(tmp_path / "bal"))
    order = np.argsort(b.task_ids)
    back = np.empty_like(order)
    back[np.argsort(p.task_ids)] = order
    assert np.array_equal(b.initial[back], r.assignment)
    assert np.array_equal(b.migratable[back], p.migratable)
    assert np.allclose(b.task_load[back], p.task_load)
    assert b.evaluate()["w_max"] == pytest.approx(r.max_load, rel=1e-12)


def test_round_trip_of_generated_problems(tmp_path):
    rng = np.random.default_rng(3)
    for i in range(12):
        p = G.random_problem(int(rng.integers(1, 5)), int(rng.integers(1, 9)),
                             int(rng.integers(0, 3)), int(rng.integers(0, 6)), seed=i,
                             memory=bool(i % 2), rank_alpha=bool(i % 3 == 0))
        p = p.with_(migratable=rng.random(p.n_tasks) < 0.6, task_ids=np.arange(p.n_tasks) * 7)
        stem = str(tmp_path / f"g{i}")
        p.to_lbdatafile(stem)
        q = read_lbdatafile(stem, m=p.m)
        at = {t: j for j, t in enumerate(q.task_ids.tolist())}
        o = np.array([at[t] for t in p.task_ids.tolist()])  # q's index of each task of p
        assert np.array_equal(q.migratable[o], p.migratable)
        assert np.array_equal(q.initial[o], p.initial)
        assert np.array_equal(q.task_load[o], p.task_load)
        assert q.evaluate(beta=0.5, delta=0.25)["w_max"] == pytest.approx(
            p.evaluate(beta=0.5, delta=0.25)["w_max"], rel=1e-12)
        q.to_lbdatafile(stem + "b")
        _same(q, read_lbdatafile(stem + "b", m=p.m))


def test_writer_refuses_to_move_a_pinned_task(tmp_path):
    p = Problem([1.0, 2.0], 2, initial=[0, 1], migratable=[True, False])
    p.to_lbdatafile(str(tmp_path / "ok"), assignment=[1, 1])
    with pytest.raises(ValueError, match="pinned task 1"):
        p.to_lbdatafile(str(tmp_path / "bad"), assignment=[0, 0])


def test_rank_writer_keeps_every_field(tmp_path):
    """The distributed engine's per-rank reader and writer (tasks; edges need the run)."""
    from wpart.tasks._mpi_io import read_rank, write_rank
    stem = str(LBAF_DIR / "user-defined-memory-toy-problem" / "toy_mem")
    for r in range(4):
        data, _, info = read_rank(f"{stem}.{r}.json", r, 4)
        assert info["pinned"].size == 0
        out = write_rank(data, str(tmp_path / "w"), info["kind"], info["phase"])
        canon = lambda x: sorted(json.dumps(t, sort_keys=True) for t in x)
        assert canon(_load(out)["phases"][0]["tasks"]) == canon(
            _load(f"{stem}.{r}.json")["phases"][0]["tasks"])


# ------------------------------------------------------------------ rejections

def _write(tmp_path, docs: list, name: str = "d") -> str:
    for r, doc in enumerate(docs):
        if doc is not None:
            (tmp_path / f"{name}.{r}.json").write_text(json.dumps(doc))
    return str(tmp_path / name)


def _doc(rank: int, tasks: list, **extra) -> dict:
    return {"type": "LBDatafile", "metadata": {"type": "LBDatafile", "rank": rank},
            "phases": [{"id": 0, "tasks": tasks, **extra}]}


def _task(i: int, rank: int, time: float = 1.0, **ent) -> dict:
    return {"entity": {"type": "object", "id": i, "home": rank, "migratable": True, **ent},
            "node": rank, "resource": "cpu", "time": time}


def _raises(match: str, *args, **kw):
    with pytest.raises(LBDatafileError, match=match) as e:
        read_lbdatafile(*args, **kw)
    return str(e.value)


def test_gap_in_the_rank_files(tmp_path):
    docs = [_doc(r, [_task(r, r)]) for r in range(4)]
    docs[1] = None
    stem = _write(tmp_path, docs)
    msg = _raises("missing", stem)
    assert "d.1.json" in msg and "rank 1" in msg
    _raises("rank 1", str(tmp_path))
    _raises("rank 1", [f"{stem}.0.json", f"{stem}.2.json"])
    # several missing
    docs[2] = None
    _raises(r"nor ranks \[2\]", _write(tmp_path, docs, "e"))
    # ranks above the files, asked for with m=, are empty ranks (not a gap)
    p = read_lbdatafile(_write(tmp_path, [_doc(0, [_task(0, 0)])], "f"), m=3)
    assert p.m == 3


def test_home_outside_the_ranks(tmp_path):
    docs = [_doc(0, [_task(0, 0)]), _doc(1, [_task(1, 1, home=2)])]
    msg = _raises(r"phases\[0\]\.tasks\[0\]\.entity\.home", _write(tmp_path, docs))
    assert "d.1.json" in msg and "[0, 2)" in msg
    docs[1] = _doc(1, [_task(1, 1, home=-1)])
    _raises("entity.home", _write(tmp_path, docs, "e"))
    # a communication endpoint too
    c = {"type": "SendRecv", "from": {"type": "object", "id": 0, "home": 9},
         "to": {"type": "object", "id": 1}, "bytes": 1.0, "messages": 1}
    docs = [_doc(0, [_task(0, 0)], communications=[c]), _doc(1, [_task(1, 1)])]
    _raises(r"communications\[0\]\.from\.home", _write(tmp_path, docs, "g"))


def test_pinned_task_away_from_home(tmp_path):
    docs = [_doc(0, [_task(0, 0)]), _doc(1, [_task(1, 1, home=0, migratable=False)])]
    _raises(r"tasks\[0\]\.entity\.home: the task is pinned", _write(tmp_path, docs))
    # a migratable task away from its home is ordinary (vt moved it)
    docs = [_doc(0, [_task(0, 0)]), _doc(1, [_task(1, 1, home=0)])]
    assert read_lbdatafile(_write(tmp_path, docs, "e")).initial.tolist() == [0, 1]


def test_node_is_the_file_rank(tmp_path):
    t = _task(1, 1)
    t["node"] = 0
    _raises(r"d\.1\.json: phases\[0\]\.tasks\[0\]\.node",
            _write(tmp_path, [_doc(0, [_task(0, 0)]), _doc(1, [t])]))


@pytest.mark.parametrize("where", ["top", "metadata", "phase", "task", "entity",
                                   "communication", "endpoint", "metadata.phases"])
def test_unknown_keys(tmp_path, where):
    c = {"type": "SendRecv", "from": {"type": "object", "id": 0},
         "to": {"type": "object", "id": 1}, "bytes": 2.0, "messages": 1}
    d0 = _doc(0, [_task(0, 0)], communications=[c])
    target = {"top": d0, "metadata": d0["metadata"], "phase": d0["phases"][0],
              "task": d0["phases"][0]["tasks"][0],
              "entity": d0["phases"][0]["tasks"][0]["entity"], "communication": c,
              "endpoint": c["to"]}.get(where)
    if where == "metadata.phases":
        d0["metadata"]["phases"] = {"count": 1, "weights": [1]}
    else:
        target["load_scale"] = 2.0
    stem = _write(tmp_path, [d0, _doc(1, [_task(1, 1)])])
    msg = _raises("does not define", stem)
    assert "d.0.json" in msg and ("load_scale" in msg or "weights" in msg)
    p = read_lbdatafile(stem, strict=False)
    assert p.n_tasks == 2 and p.n_edges == 1
    if where in ("task", "entity", "phase", "metadata"):
        p.to_lbdatafile(str(tmp_path / "w"))
        assert "load_scale" in (tmp_path / "w.0.json").read_text()


def test_free_form_objects_take_any_key(tmp_path):
    t = _task(0, 0)
    t["user_defined"] = {"anything": [1, 2], "task_serialized_bytes": 5.0}
    t["attributes"] = {"x": 1}
    d0 = _doc(0, [t], user_defined={"y": 2})
    d0["metadata"]["attributes"] = {"z": 3}
    d0["metadata"]["shared_node"] = {"id": 0, "size": 1, "rank": 0, "num_nodes": 1}
    stem = _write(tmp_path, [d0])
    p = read_lbdatafile(stem)
    p.to_lbdatafile(str(tmp_path / "w"))
    w = _load(tmp_path / "w.0.json")
    assert w["phases"][0]["tasks"][0]["user_defined"] == t["user_defined"]
    assert w["phases"][0]["tasks"][0]["attributes"] == {"x": 1}
    assert w["phases"][0]["user_defined"] == {"y": 2}
    assert w["metadata"]["attributes"] == {"z": 3}
    assert w["metadata"]["shared_node"]["num_nodes"] == 1


def test_bad_values(tmp_path):
    _raises(r"entity\.migratable: expected true or false",
            _write(tmp_path, [_doc(0, [_task(0, 0, migratable="no")])], "a"))
    d = _doc(0, [_task(0, 0)])
    d["type"] = "LBStatsfile"
    _raises(r"a\.0\.json: type: 'LBStatsfile'", _write(tmp_path, [d], "a"))
    d = _doc(0, [_task(0, 0)])
    d["metadata"]["type"] = "other"
    _raises(r"metadata\.type", _write(tmp_path, [d], "b"))
    d = _doc(1, [_task(0, 0)])
    _raises(r"c\.0\.json: metadata\.rank: 1 is not the rank 0", _write(tmp_path, [d], "c"))
    d = _doc(0, [_task(0, 0)])
    d["phases"].append({"id": 0, "tasks": []})
    _raises(r"phases\[1\]\.id: phase 0 is listed twice", _write(tmp_path, [d], "e"))


def test_one_size_and_one_home_per_block(tmp_path):
    def t(i, r, **ud):
        x = _task(i, r)
        x["user_defined"] = {"shared_id": 3, **ud}
        return x
    docs = [_doc(0, [t(0, 0, shared_bytes=5.0)]), _doc(1, [t(1, 1, shared_bytes=6.0)])]
    msg = _raises(r"d\.1\.json: phases\[0\]\.tasks\[0\]\.user_defined\.shared_bytes: block 3",
                  _write(tmp_path, docs))
    assert "d.0.json" in msg
    docs = [_doc(0, [t(0, 0, home_rank=0)]), _doc(1, [t(1, 1, home_rank=1)])]
    _raises(r"user_defined\.home_rank: block 3 is homed on rank 1", _write(tmp_path, docs, "e"))
    # a home_rank given wins over the default (the first file's rank)
    docs = [_doc(0, [t(0, 0)]), _doc(1, [t(1, 1, home_rank=1)])]
    assert read_lbdatafile(_write(tmp_path, docs, "g")).block_home.tolist() == [1]


def test_phase_listing(tmp_path):
    d = _doc(0, [_task(0, 0, 1.0)])
    d["phases"].append({"id": 3, "tasks": [_task(0, 0, 3.0)]})
    d["metadata"]["phases"] = {"count": 6,
                               "skipped": {"list": [2], "range": []},
                               "identical_to_previous": {"list": [1], "range": [[4, 5]]}}
    stem = _write(tmp_path, [d])
    assert read_lbdatafile(stem, phase=1).task_load.tolist() == [1.0]
    assert read_lbdatafile(stem, phase=5).task_load.tolist() == [3.0]
    assert read_lbdatafile(stem, phase=3).task_load.tolist() == [3.0]
    _raises(r"metadata\.phases\.skipped: phase 2 was skipped", stem, phase=2)
    _raises(r"no phase with id 7", stem, phase=7)


# ------------------------------------------------------------------ vt's schema

def _schema():
    """vt's LBDatafile schema (the levels and types of the format), written with the
    ``schema`` package that vt and LBAF validate with."""
    sc = pytest.importorskip("schema", reason="the `schema` package (test extra) validates "
                                              "the written files against vt's format schema")
    And, Optional, Schema = sc.And, sc.Optional, sc.Schema

    def ids(e):
        if "seq_id" not in e and "id" not in e:
            raise ValueError("an entity needs id or seq_id")
        if e.get("migratable") is True and "seq_id" in e and "collection_id" not in e:
            raise ValueError("a migratable seq_id entity needs collection_id")
        return e

    def entity(task: bool):
        req = (lambda k: k) if task else Optional
        return And({Optional("collection_id"): int, req("home"): int, Optional("id"): int,
                    Optional("seq_id"): int, Optional("index"): [int], "type": str,
                    req("migratable"): bool, Optional("objgroup_id"): int}, ids)

    listing = {"list": [int], "range": [[int]]}
    task = {"entity": entity(True), "node": int, "resource": str,
            Optional("subphases"): [{"id": int, "time": float}], "time": float,
            Optional("user_defined"): dict, Optional("attributes"): dict}
    comm = {"type": str, "to": entity(False), "from": entity(False), "messages": int,
            "bytes": float}
    return Schema({
        Optional("type"): And(str, "LBDatafile"),
        Optional("metadata"): {
            Optional("type"): And(str, "LBDatafile"), Optional("rank"): int,
            Optional("shared_node"): {"id": int, "size": int, "rank": int, "num_nodes": int},
            Optional("phases"): {Optional("count"): int, "skipped": listing,
                                 "identical_to_previous": listing},
            Optional("attributes"): dict,
            Optional("rank_alpha"): float},  # wpart's / LBAF's per-rank speed
        "phases": [{"id": int, "tasks": [task], Optional("communications"): [comm],
                    Optional("user_defined"): dict,
                    Optional("lb_iterations"): [{"id": int, "tasks": [task],
                                                 Optional("communications"): [comm],
                                                 Optional("user_defined"): dict}]}],
    })


def test_written_files_pass_vts_schema(tmp_path):
    sch = _schema()
    n = 0
    for i, stem in enumerate(STEMS):
        p = read_lbdatafile(stem)
        a = balance(p, method="greedy").assignment
        for f in p.to_lbdatafile(str(tmp_path / f"s{i}"), assignment=a)[:4]:
            sch.validate(_load(f))
            n += 1
    for i in range(6):
        p = G.random_problem(3, 7, 2, 5, seed=i, memory=True, rank_alpha=bool(i % 2))
        p = p.with_(migratable=np.arange(7) % 3 != 0)
        for f in p.to_lbdatafile(str(tmp_path / f"g{i}")):
            sch.validate(_load(f))
            n += 1
    assert n > 40


def test_the_schema_rejects_what_vt_rejects():
    sch = _schema()
    import schema
    bad = {"type": "LBDatafile", "phases": [{"id": 0, "tasks": [
        {"entity": {"type": "object", "id": 1, "home": 0}, "node": 0, "resource": "cpu",
         "time": 1.0}]}]}
    with pytest.raises(schema.SchemaError, match="Missing key: 'migratable'"):
        sch.validate(bad)  # the task's entity lacks `migratable`


# ------------------------------------------------------------------ LBAF's own reader

_LBAF_READ = r'''
import json, logging, sys, types
class _Any(types.ModuleType):
    def __getattr__(self, name):
        return type(name, (), {})
sys.modules.setdefault("vtk", _Any("vtk"))
from lbaf.IO.lbsVTDataReader import LoadReader
from lbaf.Model.lbsPhase import Phase
from lbaf.Utils.lbsLogging import get_logger
logger = get_logger()
logger.setLevel(logging.ERROR)
# LBAF 1.0.1 fetches its schema checker from vt's repository at run time: the schema is
# checked by test_written_files_pass_vts_schema instead
LoadReader.SCHEMA_VALIDATOR_CLASS = object
reader = LoadReader(file_prefix=sys.argv[1], logger=logger, file_suffix="json",
                    check_schema=False)
phase = Phase(logger, 0, reader=reader)
phase.populate_from_log(int(sys.argv[2]))
out = {"ranks": {}, "objects": {}}
for r in phase.get_ranks():
    out["ranks"][r.get_id()] = r.get_size()
    for o in r.get_objects():
        b = o.get_shared_block()
        out["objects"][str(o.get_id())] = [r.get_id(), o.get_load(), r.is_sentinel(o),
                                           None if b is None else b.get_id()]
print("@@" + json.dumps(out))
'''


def _lbaf_env():
    import importlib.util
    path = os.environ.get("WPART_LBAF_PATH")
    if importlib.util.find_spec("lbaf") is None and not path:
        pytest.skip("LBAF is not importable (PyPI's lbaf 1.0.1 needs Python <= 3.10; set "
                    "WPART_LBAF_PATH to an unpacked lbaf wheel to run this check)")
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")])
    return env


def test_lbaf_reads_written_files(tmp_path):
    """LBAF's own reader on wpart-written files (balanced, pinned tasks included): every
    object on its rank with its load, pinned tasks as LBAF's sentinel objects."""
    import subprocess
    import sys
    env = _lbaf_env()
    probs = []
    nolb = [s for s in STEMS if "nolb-8color" in s]
    if nolb:
        probs.append(read_lbdatafile(nolb[0]))
    for i in range(3):
        p = G.random_problem(4, 20, 3, 15, seed=i, memory=True)
        probs.append(p.with_(migratable=np.arange(20) % 3 != 0,
                             task_ids=np.arange(20) + 100))
    for i, p in enumerate(probs):
        r = balance(p, method="ccm", seed=i, subclusters="fill")
        stem = str(tmp_path / f"l{i}" / "data")
        p.to_lbdatafile(stem, assignment=r.assignment)
        out = subprocess.run([sys.executable, "-c", _LBAF_READ, stem, str(p.meta.get("phase", 0)
                                                                          if p.meta else 0)],
                             env=env, capture_output=True, text=True, timeout=120)
        got = [ln for ln in out.stdout.splitlines() if ln.startswith("@@")]
        assert got, out.stderr[-2000:]
        lb = json.loads(got[0][2:])
        objs = lb["objects"]
        assert len(objs) == p.n_tasks
        for k, tid in enumerate(p.task_ids.tolist()):
            rank, load, sentinel, blk = objs[str(tid)]
            assert rank == r.assignment[k] and load == pytest.approx(p.task_load[k])
            assert sentinel == (not p.migratable[k])
            b = p.task_block[k] if p.task_block is not None else -1
            bids = p.block_ids if p.block_ids is not None else np.arange(p.n_blocks)
            assert blk == (None if b < 0 else int(bids[b]))


# ------------------------------------------------------------------ the README table

def test_readme_lists_every_field():
    text = (ROOT / "README.md").read_text()
    assert readme_table() in text, "README's LBDatafile table differs from FIELDS"
    assert {a for _, a, _ in FIELDS} == {"read", "checked", "ignored", "rejected"}
