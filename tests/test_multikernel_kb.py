"""Knowledge base of multi-kernel profiles [Soldado 2016]: lookup / derive / update, the
P-KB and P-PROF-5 properties, atomic writes that survive a writer killed mid-write, and clear
errors for corrupt, truncated or foreign files."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import time

import numpy as np
import pytest

import wpart
from wpart.multikernel import KnowledgeBase, KernelProfile
from wpart.multikernel import KnowledgeBaseError


def _kb(tmp_path, **kw):
    return KnowledgeBase(tmp_path / "kb.json", **kw)


def test_P_KB_1_and_P_PROF_5_exact_hit_and_round_trip(tmp_path):
    kb = _kb(tmp_path)
    p = KernelProfile("filter", (2048, 2048), s=0.778, s_eff=0.7775, shares={"gpu0": 0.7775, "cpu": 0.2225},
                fission="L2", overlap=4, wgs=(256, 128, 64), best_time=3.13, balance_ratio=0.9,
                n_obs=3)
    assert kb.update(p)
    got = KnowledgeBase(tmp_path / "kb.json").lookup("filter", (2048, 2048))
    assert got.to_dict() == kb.lookup("filter", (2048, 2048)).to_dict()
    for f in ("sct_id", "extents", "fp64", "s", "s_eff", "shares", "fission", "overlap", "wgs",
              "best_time", "process", "balance_ratio", "n_obs"):
        assert getattr(got, f) == getattr(p, f), f
    assert kb.derive("filter", (2048, 2048)) is kb.lookup("filter", (2048, 2048))
    assert kb.lookup("filter", ((2048, 2048), True)) is None      # fp64 is part of the key


def test_P_PERSIST_update_only_when_better(tmp_path):
    kb = _kb(tmp_path)
    assert kb.update(KernelProfile("saxpy", (10**6,), s=0.7, best_time=2.0))
    assert not kb.update(KernelProfile("saxpy", (10**6,), s=0.9, best_time=2.5))
    assert kb.lookup("saxpy", 10**6).s == 0.7
    assert kb.update(KernelProfile("saxpy", (10**6,), s=0.8, best_time=1.5, process="REFINED"))
    assert KnowledgeBase(tmp_path / "kb.json").lookup("saxpy", 10**6).s == 0.8


@pytest.mark.parametrize("d", [1, 2, 3])
def test_P_KB_2_derivation_reproduces_stored_profiles_exactly(tmp_path, d):
    rng = np.random.default_rng(d)
    kb = _kb(tmp_path, autosave=False)
    ext = [tuple(int(v) for v in rng.integers(64, 8192, size=d)) for _ in range(d + 4)]
    for e in ext:
        kb.store(KernelProfile("seg", e, s=float(rng.uniform(0.5, 1.0)), best_time=1.0, fission="L1",
                         overlap=2))
    for e in ext:
        p = kb.derive("seg", e, exact=False, store=False)
        assert p.s == kb.lookup("seg", e).s and p.process == "DERIVED"
        assert kb.last_derivation["method"] == "rbf"


def test_P_KB_3_one_node_table4_image1(tmp_path):
    kb = _kb(tmp_path)
    kb.update(KernelProfile("filter", (1024, 1024), s=0.875, best_time=1.10, fission="L2", overlap=4))
    p = kb.derive("filter", (4288, 2848))
    assert p.s == 0.875 and p.fission == "L2" and p.overlap == 4
    assert p.process == "DERIVED" and math.isinf(p.best_time)                  # P-KB-7
    assert KnowledgeBase(tmp_path / "kb.json").lookup("filter", (4288, 2848)).process == "DERIVED"
    assert kb.update(KernelProfile("filter", (4288, 2848), s=0.935, best_time=11.55, process="REFINED"))


def test_P_KB_4_scope_order(tmp_path):
    kb = _kb(tmp_path, autosave=False)
    kb.store(KernelProfile("other", (500, 500), s=0.3, best_time=1.0))            # S3 candidate
    kb.store(KernelProfile("other", (777, 777), s=0.4, best_time=1.0))
    kb.store(KernelProfile("other2", (100, 200), s=0.6, best_time=1.0))            # S2 for (100, 200)
    kb.store(KernelProfile("other3", (100, 200), s=0.8, best_time=1.0))
    p = kb.derive("mine", (100, 200), store=False)
    assert kb.last_derivation["scope"] == "S2" and p.s == pytest.approx(0.7)
    p = kb.derive("mine", (300, 300), store=False)
    assert kb.last_derivation["scope"] == "S3"
    kb.store(KernelProfile("mine", (64, 64), s=0.9, best_time=1.0))
    p = kb.derive("mine", (100, 200), store=False)
    assert kb.last_derivation["scope"] == "S1" and p.s == 0.9
    with pytest.raises(wpart.WpartKeyError, match="seed"):
        kb.derive("mine", (1, 2, 3), store=False)
    p = kb.derive("mine", (1, 2, 3), seed=0.75, store=False)
    assert p.process == "SEED" and p.s == 0.75


def test_P_KB_5_6_nearest_above_3_dims_and_clamped(tmp_path):
    kb = _kb(tmp_path, autosave=False)
    kb.store(KernelProfile("t", (2, 2, 2, 2), s=0.2, best_time=1.0, overlap=1))
    kb.store(KernelProfile("t", (64, 64, 64, 64), s=0.9, best_time=1.0, overlap=3))
    p = kb.derive("t", (50, 60, 64, 64), store=False)
    assert p.s == 0.9 and p.overlap == 3 and kb.last_derivation["method"] == "nearest"
    kb2 = KnowledgeBase(tmp_path / "kb2.json", autosave=False, rbf_max_dims=1)
    kb2.store(KernelProfile("v", (8, 8), s=0.5, best_time=1.0))
    kb2.store(KernelProfile("v", (2, 64), s=0.6, best_time=1.0))
    kb2.store(KernelProfile("v", (64, 2), s=0.7, best_time=1.0))
    assert kb2.derive("v", (60, 3), store=False).s == 0.7
    assert kb2.last_derivation["method"] == "nearest"
    with pytest.raises(wpart.WpartValueError, match="rbf_max_dims"):
        KnowledgeBase(tmp_path / "kb3.json", rbf_max_dims=4)
    kb.store(KernelProfile("u", (2,), s=0.0, best_time=1.0))
    kb.store(KernelProfile("u", (4,), s=1.0, best_time=1.0))
    for e in (1, 3, 8, 10**6):
        assert 0.0 <= kb.derive("u", (e,), store=False).s <= 1.0


def test_derived_nodes_only_when_nothing_better(tmp_path):
    kb = _kb(tmp_path, autosave=False)
    kb.store(KernelProfile("f", (100,), s=0.1, best_time=math.inf, process="DERIVED"))
    kb.store(KernelProfile("f", (1000,), s=0.9, best_time=1.0, process="PROFILED"))
    assert kb.derive("f", (150,), store=False).s == 0.9                        # one good node


@pytest.mark.parametrize("content,word", [
    (b"", "not valid JSON"),
    (b'{"format": "wpart-multikernel-kb", "version": 1, "entries": [', "not valid JSON"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (b'{"hello": 1}', "not a wpart multi-kernel knowledge base"),
    (b"[1, 2, 3]", "not a wpart multi-kernel knowledge base"),
    (b'{"format": "wpart-multikernel-kb", "version": 99}', "version"),
    (b"[" * 100000 + b"]" * 100000, "(nested|JSON)"),
])
def test_corrupt_files_give_a_clear_error_naming_the_file(tmp_path, content, word):
    path = tmp_path / "kb.json"
    path.write_bytes(content)
    with pytest.raises(KnowledgeBaseError, match=word) as ei:
        KnowledgeBase(path)
    assert "kb.json" in str(ei.value) and isinstance(ei.value, wpart.WpartError)


def test_bad_entries_and_foreign_machine(tmp_path):
    kb = _kb(tmp_path)
    kb.update(KernelProfile("a", (10,), s=0.5, best_time=1.0))
    doc = json.loads((tmp_path / "kb.json").read_text())
    bad = json.loads(json.dumps(doc))
    bad["entries"][0]["s"] = 7.0
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(KnowledgeBaseError, match="bad.json.*entry 0"):
        KnowledgeBase(tmp_path / "bad.json")
    bad["entries"][0] = {"sct_id": "a", "extents": "oops"}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(KnowledgeBaseError, match="entry 0"):
        KnowledgeBase(tmp_path / "bad.json")
    doc["machine"] = {"id": "someone-else", "hostname": "elsewhere"}
    (tmp_path / "foreign.json").write_text(json.dumps(doc))
    with pytest.raises(KnowledgeBaseError, match="another machine"):
        KnowledgeBase(tmp_path / "foreign.json")
    assert len(KnowledgeBase(tmp_path / "foreign.json", allow_foreign=True)) == 1


def _writer(path, profs, v0, ready):
    """Rewrites the whole base again and again, each time with a new version number."""
    kb = KnowledgeBase(path, autosave=False)
    for p in profs:
        kb.store(p)
    stored = kb.entries()
    v = v0
    while True:
        for p in stored:
            object.__setattr__(p, "n_obs", v)   # every entry of version v
        kb.save()
        if v == v0:
            ready.set()
        v += 1


def test_kb_survives_a_writer_killed_mid_write(tmp_path):
    """A forked writer rewrites a large base (version v -> v + 1) in a loop; it is SIGKILLed
    at random times, many times; the base always reads as one whole version."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    path = tmp_path / "kb.json"
    n = 1000
    profs = [KernelProfile("sct%d" % (i % 7), (64 + i, 32 + i % 5), s=(i % 100) / 100, best_time=1.0,
                     wgs=(64, 128), shares={"gpu0": 0.5}, timestamp=1.0) for i in range(n)]
    rng = random.Random(11)
    seen_versions = set()
    for trial in range(20):
        ready = ctx.Event()
        proc = ctx.Process(target=_writer, args=(path, profs, 1000 * trial, ready), daemon=True)
        proc.start()
        try:
            assert ready.wait(60), "the writer never finished its first write"
            time.sleep(rng.uniform(0.0, 0.25))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.join(60)
        kb = KnowledgeBase(path)
        vers = {p.n_obs for p in kb}
        assert len(kb) == n and len(vers) == 1, (trial, len(kb), vers)
        seen_versions |= vers
    # killed at different points: versions written inside the loop were seen, never mixed
    assert len(seen_versions) >= 10 and any(v % 1000 for v in seen_versions)
    # the temporary files a killed writer leaves are removed when the base is next opened
    assert {f.name for f in tmp_path.iterdir()} <= {"kb.json", "kb.json.lock"}


# ---- two processes, validation, clean-up, number guard, machine identity ---------------

def _store_many(path, tag, n, go):
    go.wait(60)
    kb = KnowledgeBase(path, autosave=True)
    for i in range(n):
        kb.store(KernelProfile(f"{tag}", (64 + i,), s=0.5, best_time=1.0 + i))


@pytest.mark.parametrize("trial", range(3))
def test_two_processes_storing_60_each_keep_120(tmp_path, trial):
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    path = tmp_path / "kb.json"
    go = ctx.Event()
    procs = [ctx.Process(target=_store_many, args=(path, tag, 60, go)) for tag in ("a", "b")]
    for p in procs:
        p.start()
    go.set()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    kb = KnowledgeBase(path)
    assert len(kb) == 120
    assert sorted({p.sct_id for p in kb.entries()}) == ["a", "b"]


def test_save_merges_what_another_writer_stored(tmp_path):
    path = tmp_path / "kb.json"
    a, b = KnowledgeBase(path), KnowledgeBase(path)
    a.store(KernelProfile("x", (8,), s=0.1, best_time=1.0, timestamp=10.0))
    b.store(KernelProfile("y", (8,), s=0.2, best_time=1.0, timestamp=10.0))
    # the same pair from both: the later timestamp wins, whoever saves last
    b.store(KernelProfile("x", (8,), s=0.9, best_time=0.5, timestamp=20.0))
    a.store(KernelProfile("z", (8,), s=0.3, best_time=1.0, timestamp=10.0))
    kb = KnowledgeBase(path)
    assert sorted(p.sct_id for p in kb.entries()) == ["x", "y", "z"]
    assert kb.lookup("x", (8,)).s == 0.9


def test_unknown_fission_level_is_refused(tmp_path):
    with pytest.raises(wpart.WpartValueError, match="fission"):
        KernelProfile("x", (8,), s=0.5, fission="L9")
    path = tmp_path / "kb.json"
    kb = KnowledgeBase(path)
    kb.store(KernelProfile("x", (8,), s=0.5, fission="L2", best_time=1.0))
    doc = json.loads(path.read_text())
    doc["entries"][0]["fission"] = "L9"
    path.write_text(json.dumps(doc))
    with pytest.raises(KnowledgeBaseError, match="kb.json.*entry 0.*fission"):
        KnowledgeBase(path)


def test_duplicate_entries_are_refused(tmp_path):
    path = tmp_path / "kb.json"
    kb = KnowledgeBase(path)
    kb.store(KernelProfile("x", (8, 4), s=0.5, best_time=1.0))
    doc = json.loads(path.read_text())
    doc["entries"].append(dict(doc["entries"][0], s=0.7))
    path.write_text(json.dumps(doc))
    with pytest.raises(KnowledgeBaseError, match="kb.json.*entries 0 and 1.*duplicate"):
        KnowledgeBase(path)


def test_temporary_files_of_a_crashed_writer_are_removed_on_open(tmp_path):
    path = tmp_path / "kb.json"
    KnowledgeBase(path).store(KernelProfile("x", (8,), s=0.5, best_time=1.0))
    for k in range(3):
        (tmp_path / f".kb.json.crash{k}.tmp").write_text("{ half")
    (tmp_path / "other.tmp").write_text("not ours")
    kb = KnowledgeBase(path)
    assert len(kb) == 1
    assert sorted(f.name for f in tmp_path.iterdir()) == ["kb.json", "kb.json.lock", "other.tmp"]


def test_a_number_of_100000_digits_names_the_file(tmp_path):
    path = tmp_path / "kb.json"
    KnowledgeBase(path).store(KernelProfile("x", (8,), s=0.5, best_time=1.0))
    text = path.read_text().replace('"n_obs": 0', '"n_obs": ' + "9" * 100_000)
    assert "9" * 100_000 in text
    path.write_text(text)
    with pytest.raises(KnowledgeBaseError, match="kb.json.*number longer") as ei:
        KnowledgeBase(path)
    assert isinstance(ei.value, wpart.WpartError)
    path.write_text(text.replace("9" * 100_000, "1." + "5" * 5000))  # a long float too
    with pytest.raises(KnowledgeBaseError, match="kb.json"):
        KnowledgeBase(path)


def test_machine_identity_is_the_opencl_devices_not_the_host_name(monkeypatch):
    from wpart.multikernel import _kb
    devs = ["pocl | The pocl project | OpenCL 3.0 | cpu | CPU"]
    monkeypatch.setattr(_kb, "_opencl_devices", lambda: list(devs))
    _kb._fingerprint_cached.cache_clear()
    try:
        fp = _kb.machine_fingerprint()
        assert fp["opencl"] == devs
        _kb._fingerprint_cached.cache_clear()
        monkeypatch.setattr(_kb.platform, "node", lambda: "renamed-host")
        assert _kb.machine_fingerprint()["id"] == fp["id"]           # renaming the host: same
        _kb._fingerprint_cached.cache_clear()
        devs.append("CUDA | NVIDIA | OpenCL 3.0 | H200 | GPU")
        assert _kb.machine_fingerprint()["id"] != fp["id"]           # a GPU more: another
        _kb._fingerprint_cached.cache_clear()
        monkeypatch.setattr(_kb, "_opencl_devices", lambda: None)    # no OpenCL: the CPU
        fb = _kb.machine_fingerprint()
        assert fb["opencl"] is None and len(fb["id"]) == 16
    finally:
        _kb._fingerprint_cached.cache_clear()


def test_derive_equals_the_interpolation_over_its_scope(tmp_path):
    # derive fits each node set once (C, cached until the base changes) and evaluates per
    # call: the share is interpolate() over the scope's nodes, the configuration the nearest
    from wpart.multikernel import interpolate
    rng = np.random.default_rng(4)
    for trial in range(20):
        kb = KnowledgeBase(tmp_path / f"kb{trial}.json", autosave=False)
        n = int(rng.integers(1, 40))
        nodes = []
        for i in range(n):
            e = (int(rng.integers(1, 5000)), int(rng.integers(1, 5000)))
            p = KernelProfile("f", e, s=float(rng.random()), best_time=1.0,
                              fission=["L1", "L2", "NONE"][i % 3], overlap=1 + i % 4)
            kb.store(p)
        nodes = kb.entries()
        for _ in range(5):
            w = (int(rng.integers(1, 9000)), int(rng.integers(1, 9000)))
            got = kb.derive("f", w, store=False)
            if kb.lookup("f", w) is not None:
                continue
            X = np.log2(np.array([p.extents for p in nodes], dtype=float))
            x = np.log2(np.array([w], dtype=float))
            v, _ = interpolate(X, np.array([p.s for p in nodes]), x)
            assert got.s == min(1.0, max(0.0, float(v[0])))
            near = nodes[int(np.argmin(((X - x) ** 2).sum(axis=1)))]
            assert (got.fission, got.overlap, got.process) == (near.fission, near.overlap,
                                                               "DERIVED")
        kb.store(KernelProfile("f", (7, 7), s=0.5, best_time=1.0))   # the cache follows
        assert len(kb.last_derivation) == 3 and kb.derive("f", (7, 7), store=False).s == 0.5


def test_profile_takes_an_int_workload_and_refuses_a_non_sequence():
    assert KernelProfile("saxpy", 4096, s=0.7, best_time=0.01).extents == (4096,)
    assert KernelProfile("saxpy", np.int64(8), s=0.7).extents == (8,)
    with pytest.raises(wpart.WpartTypeError, match="extents"):
        KernelProfile("saxpy", 2.5, s=0.7)
    with pytest.raises(wpart.WpartTypeError,
                       match=r"^`extents` must be an int or a sequence of ints >= 1, got 'oops'$"):
        KernelProfile("saxpy", "oops", s=0.7)


def test_flags_are_bools_not_truthy_strings(tmp_path):
    with pytest.raises(wpart.WpartTypeError, match="`autosave`"):
        KnowledgeBase(tmp_path / "a.json", autosave="yes")
    kb = KnowledgeBase(tmp_path / "b.json", autosave=False)
    kb.store(KernelProfile("k", (100,), s=0.5))
    with pytest.raises(wpart.WpartTypeError, match="`store`"):
        kb.derive("k", 200, store="no")   # "no" is truthy: it would have stored
    assert len(kb.entries()) == 1
