"""write_lbdatafile writes one set, whole or not at all; the reader reads only whole sets.

A failure while writing any rank file (disk full, a folder in a file's place) or while switching
the set leaves the previous files whole, byte for byte, with no temporary file left; rank files
of an earlier, larger set are removed on write and refused on read; a file that does not match
the set's manifest (an interrupted switch, a file from another run) is refused naming it.
"""

import errno
import os

import numpy as np
import pytest

import wpart
from wpart.tasks import _io_set
from wpart.tasks import generators as G
from wpart.tasks import read_lbdatafile, write_lbdatafile


def _prob(m=6, seed=1):
    return G.gemma_like(m=m, n_tasks=20 * m, n_blocks=3 * m, seed=seed)


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _moved(p):
    rng = np.random.default_rng(0)
    a = p.initial.copy()
    mig = np.asarray(p.migratable, bool)
    a[mig] = rng.integers(0, p.m, int(mig.sum()))
    assert (a != p.initial).any()
    return a


def test_write_makes_one_set_with_a_manifest(tmp_path):
    p = _prob()
    paths = write_lbdatafile(p, str(tmp_path / "s"))
    assert _files(tmp_path) == sorted([f"s.{r}.json" for r in range(6)] + ["s.wpart-set.json"])
    assert paths == [str(tmp_path / f"s.{r}.json") for r in range(6)]
    q = read_lbdatafile(str(tmp_path / "s"))
    assert q.n_tasks == p.n_tasks and q.m == 6


@pytest.mark.parametrize("bad_rank", [0, 3, 5])
def test_failure_writing_any_rank_file_leaves_the_previous_set(tmp_path, monkeypatch, bad_rank):
    p = _prob()
    stem = str(tmp_path / "s")
    write_lbdatafile(p, stem)
    before = _snapshot(tmp_path)
    real = _io_set.write_temp

    def full(path, data, gen):
        if path.endswith(f"s.{bad_rank}.json"):
            raise wpart.WpartOSError(f"{path}: cannot write: No space left on device")
        return real(path, data, gen)
    monkeypatch.setattr(_io_set, "write_temp", full)
    with pytest.raises(wpart.WpartOSError, match=f"s.{bad_rank}.json"):
        write_lbdatafile(p, stem, assignment=_moved(p))
    assert _snapshot(tmp_path) == before  # untouched, no temporary file left
    assert read_lbdatafile(stem).n_tasks == p.n_tasks


def test_disk_full_names_the_file(tmp_path, monkeypatch):
    p = _prob(3)
    stem = str(tmp_path / "s")
    real_fsync = os.fsync
    calls = []

    def fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)
    monkeypatch.setattr(_io_set.os, "fsync", fsync)
    with pytest.raises(wpart.WpartOSError, match=r"s\.1\.json: cannot write .*No space left"):
        write_lbdatafile(p, stem)
    assert _files(tmp_path) == []


@pytest.mark.parametrize("at", [0, 1, 4, 6])
def test_failure_during_the_switch_puts_the_previous_set_back(tmp_path, monkeypatch, at):
    p = _prob()
    stem = str(tmp_path / "s")
    write_lbdatafile(p, stem, assignment=_moved(p))
    before = _snapshot(tmp_path)
    real = _io_set.os.replace
    seen = []

    def replace(src, dst):
        if src.endswith(".tmp"):
            seen.append(dst)
            if len(seen) == at + 1:
                raise OSError(errno.EIO, "Input/output error")
        return real(src, dst)
    monkeypatch.setattr(_io_set.os, "replace", replace)
    with pytest.raises(wpart.WpartOSError, match="cannot switch"):
        write_lbdatafile(p, stem)
    monkeypatch.setattr(_io_set.os, "replace", real)
    assert _snapshot(tmp_path) == before
    np.testing.assert_array_equal(read_lbdatafile(stem).initial,
                                  read_lbdatafile(stem).initial)


def test_folder_in_a_files_place_is_refused_before_writing(tmp_path):
    p = _prob(4)
    stem = str(tmp_path / "s")
    write_lbdatafile(p, stem)
    os.unlink(tmp_path / "s.2.json")
    os.mkdir(tmp_path / "s.2.json")
    before = {n for n in _files(tmp_path)}
    with pytest.raises(wpart.WpartOSError, match=r"s\.2\.json: cannot write the output: a "
                                                  "folder has its name"):
        write_lbdatafile(p, stem, assignment=_moved(p))
    assert set(_files(tmp_path)) == before


def test_a_smaller_set_removes_the_larger_sets_files(tmp_path):
    stem = str(tmp_path / "s")
    write_lbdatafile(_prob(8), stem)
    p4 = _prob(4, seed=2)
    write_lbdatafile(p4, stem)
    assert _files(tmp_path) == sorted([f"s.{r}.json" for r in range(4)] + ["s.wpart-set.json"])
    q = read_lbdatafile(stem)
    assert q.m == 4 and q.n_tasks == p4.n_tasks


def test_reader_refuses_leftover_higher_rank_files(tmp_path):
    stem = str(tmp_path / "s")
    write_lbdatafile(_prob(8), stem)
    keep = {r: (tmp_path / f"s.{r}.json").read_bytes() for r in (5, 6, 7)}
    write_lbdatafile(_prob(4, seed=2), stem)
    for r, b in keep.items():  # e.g. restored by a copy or written by an old version
        (tmp_path / f"s.{r}.json").write_bytes(b)
    with pytest.raises(_io_set.SetError, match=r"s\.5\.json: not part of the "
                                                r"output set.*4 rank files"):
        read_lbdatafile(stem)


def test_reader_refuses_a_half_switched_set(tmp_path, monkeypatch):
    p = _prob(4)
    stem = str(tmp_path / "s")
    write_lbdatafile(p, stem)
    real, seen = _io_set.os.replace, []

    class Killed(BaseException):
        pass

    def replace(src, dst):  # a process killed at the third rename: no rollback runs
        if src.endswith(".tmp"):
            seen.append(dst)
            if len(seen) == 3:
                monkeypatch.setattr(_io_set, "_unlink", lambda path: None)
                monkeypatch.setattr(_io_set.os, "replace", lambda a, b: None)
                raise Killed()
        return real(src, dst)
    monkeypatch.setattr(_io_set.os, "replace", replace)
    with pytest.raises(Killed):
        write_lbdatafile(p, stem, assignment=_moved(p))
    monkeypatch.undo()
    with pytest.raises(_io_set.SetError, match=r"s\.1\.json: does not match the output set.*"
                                                r"interrupted while switching"):
        read_lbdatafile(stem)


def test_a_file_edited_after_writing_is_read(tmp_path):
    p = _prob(3)
    stem = str(tmp_path / "s")
    write_lbdatafile(p, stem)
    f = tmp_path / "s.1.json"
    f.write_text(f.read_text().replace('"time": ', '"time":  '))
    assert read_lbdatafile(stem).n_tasks == p.n_tasks


def test_files_without_manifest_need_the_same_phases(tmp_path):
    import json

    p = _prob(3)
    stem = str(tmp_path / "s")
    write_lbdatafile(p, stem)
    os.unlink(tmp_path / "s.wpart-set.json")
    d = json.loads((tmp_path / "s.1.json").read_text())
    d["phases"][0]["id"] = 7
    (tmp_path / "s.1.json").write_text(json.dumps(d))
    with pytest.raises(_io_set.SetError, match=r"s\.1\.json: phases \[7\] but .*s\.0\.json has "
                                                r"phases \[0\]"):
        read_lbdatafile(stem)


def test_leftover_temporary_files_are_removed_on_the_next_write(tmp_path):
    p = _prob(3)
    stem = str(tmp_path / "s")
    (tmp_path / ".s.1.json.0123abcd.tmp").write_bytes(b"half")
    write_lbdatafile(p, stem)
    assert not [n for n in _files(tmp_path) if n.endswith(".tmp")]
