"""First-contact audit of wpart.hetero's profile files: a blank cell or field is a missing
value (refused, never 0), profiles without energies give no time-energy front, and writes are
whole or untouched, with a WpartOSError naming the path and the problem."""

from __future__ import annotations

import errno
import os
import stat

import numpy as np
import pytest

import wpart
import wpart.hetero as wh
from wpart.hetero import _profile_io
from oracles.raises import raises_exactly


_raises = raises_exactly


# ------------------------------------------------------------------- blank CSV cells ----
def test_blank_energy_cell_is_refused_naming_file_row_and_column(tmp_path):
    p = tmp_path / "blank.csv"
    p.write_text("processor,size,time,energy\ncpu0,100,0.3,\ncpu0,200,0.6,5\n")
    _raises(wpart.WpartValueError, p, "row 1", "energy", "blank",
            call=lambda: wh.ProfileSet.from_csv(p))


@pytest.mark.parametrize("body, row, column", [
    ("cpu0,100,0.3,  \ncpu0,200,0.6,5\n", "row 1", "energy"),          # blanks only
    ("cpu0,100,0.3,1\r\ncpu0,200,0.6,\r\n", "row 2", "energy"),        # CRLF, last row
    ('"cpu0",100,0.3,\ncpu0,200,0.6,5\n', "row 1", "energy"),          # quoted: csv module
    ("cpu0,100,0.3,1\n,200,0.6,5\n", "row 2", "processor"),
    ("cpu0,100,0.3,1\n  ,200,0.6,5\n", "row 2", "processor"),
    ("cpu0,,0.3,1\n", "row 1", "size"),
    ("cpu0,100,,1\n", "row 1", "time"),
])
def test_blank_cells_are_refused_in_every_reader_path(body, row, column):
    text = "processor,size,time,energy\n" + body
    _raises(wpart.WpartValueError, "CSV text", row, column, "blank",
            call=lambda: wh.ProfileSet.from_csv(text))


def test_blank_energy_first_column_and_zero_energy_still_read():
    _raises(wpart.WpartValueError, "row 1", "energy",
            call=lambda: wh.ProfileSet.from_csv("energy,processor,size,time\n,cpu0,100,0.3\n"))
    # a measured 0 J is a value, not a blank
    ps = wh.ProfileSet.from_csv("processor,size,time,energy\ncpu0,100,0.3,0\ncpu0,200,0.6,5\n")
    assert ps[0].energy.tolist() == [0.0, 5.0]
    f = wh.pareto_front(ps, 200)
    assert f.status == "optimal" and f.energy.tolist() == [5.0]


def test_csv_without_energy_column_reads_with_energy_unknown(tmp_path):
    p = tmp_path / "times.csv"
    p.write_text("processor,size,time\ncpu0,100,0.3\ncpu0,200,0.6\ncpu1,100,0.2\n")
    ps = wh.ProfileSet.from_csv(p)
    assert ps[0].energy.tolist() == [0.0, 0.0]
    assert wh.optimal_time(ps, 200).status == "optimal"  # times are enough here


# ------------------------------------------------- blank fields of `size time` files ----
@pytest.mark.parametrize("text, line, column", [
    ("100,,5\n200,,6\n", "line 1", "time"),       # would read as time 5, no energy
    ("100,0.3,\n200,0.6,\n", "line 1", "energy"),
    ("100,0.3,5\n200,,0.6,7\n", "line 2", "time"),
    (",100,0.3\n", "line 1", "size"),
    ("# size time energy\n100, 0.3, 5\n200 ,\t, 6\n", "line 3", "time"),
    ("100,0.3,5\n,\n", "line 2", "size"),
])
def test_blank_text_fields_are_refused(tmp_path, text, line, column):
    p = tmp_path / "gpu.txt"
    p.write_text(text)
    _raises(wpart.WpartValueError, p, line, column, "missing",
            call=lambda: wh.Profile.from_file(p))


def test_commas_without_blank_fields_still_read():
    a = wh.Profile.from_text("100,0.3,5\r\n200,0.6,6\r\n")
    b = wh.Profile.from_text("# a comment, with ,, commas\n100, 0.3 ,5 # x,,y\n200\t,0.6,6\n")
    assert a == b and a.time.tolist() == [0.3, 0.6] and a.energy.tolist() == [5.0, 6.0]
    big = "".join(f"{i},{i / 10}\n" for i in range(1, 2001))
    assert wh.Profile.from_text(big).n_points == 2000


# --------------------------------------------------- a front needs measured energies ----
def test_front_without_energy_data_is_refused(tmp_path):
    pairs = [([100, 200], [0.3, 0.6]), ([100], [0.2])]
    for call in (lambda: wh.pareto_front(pairs, 200),
                 lambda: wh.pareto_front(pairs, 200, energy="total", static_power=10.0),
                 lambda: wh.threshold_dp_front(pairs, 200),
                 lambda: wh.bruteforce_front(pairs, 200),
                 lambda: wh.milp_front(pairs, 200)):
        _raises(wpart.WpartValueError, "`profiles`", "no energy data", "'P0', 'P1'",
                call=call)
    p = tmp_path / "times.csv"
    p.write_text("processor,size,time\ncpu0,100,0.3\ncpu0,200,0.6\ncpu1,100,0.2\n")
    _raises(wpart.WpartValueError, "no energy data", "'cpu0', 'cpu1'",
            call=lambda: wh.pareto_front(wh.ProfileSet.from_csv(p), 200))


def test_front_with_one_processor_without_energy_is_refused(tmp_path):
    (tmp_path / "cpu.txt").write_text("100 0.3 12\n200 0.6 25\n")
    (tmp_path / "gpu.txt").write_text("100 0.1\n200 0.2\n")
    ps = wh.ProfileSet.from_files([tmp_path / "cpu.txt", tmp_path / "gpu.txt"])
    e = _raises(wpart.WpartValueError, "no energy data", "1 of the 2 processors has no "
                "energies ('gpu')", call=lambda: wh.pareto_front(ps, 200))
    assert "'cpu'" not in str(e)
    # least energy needs them too; least time does not
    _raises(wpart.WpartValueError, "no energy data", "'gpu'",
            call=lambda: wh.optimal_energy(ps, 200))
    assert wh.optimal_time(ps, 200).success
    # measure() without a meter gives times only: the same refusal, not a 0 J processor
    m = wh.measure(lambda x: None, [100, 200], max_reps=2, min_reps=2)
    _raises(wpart.WpartValueError, "no energy data",
            call=lambda: wh.pareto_front([m.profile, ps[0]], 200))
    # energies given as zeros are data: the front is built
    z = wh.ProfileSet.from_arrays([([100, 200], [0.3, 0.6], [0.0, 0.0])])
    assert wh.pareto_front(z, 200).energy.tolist() == [0.0]


def test_time_only_profiles_are_written_without_energy(tmp_path):
    ps = wh.ProfileSet.from_csv("processor,size,time\ncpu0,100,0.3\ncpu1,100,0.2\n")
    text = ps.to_csv(tmp_path / "t.csv")
    assert text.splitlines()[0] == "processor,size,time"
    back = wh.ProfileSet.from_csv(tmp_path / "t.csv")
    assert back == ps
    with pytest.raises(wpart.WpartValueError, match="no energy data"):
        wh.pareto_front(back, 200)
    ps[0].to_file(tmp_path / "cpu0.txt")
    assert "0.3\n" in (tmp_path / "cpu0.txt").read_text()
    with pytest.raises(wpart.WpartValueError, match="no energy data"):
        wh.pareto_front([wh.Profile.from_file(tmp_path / "cpu0.txt")], 100)


# ------------------------------------------------------------ whole-or-nothing writes ----
def _ps():
    return wh.ProfileSet.from_arrays([([100, 200], [0.3, 0.6], [12.0, 25.0]),
                                      ([100], [0.2], [9.0])], names=["cpu", "gpu"])


def _writers(ps):
    return [("profile file", lambda p: ps[0].to_file(p)), ("CSV file", lambda p: ps.to_csv(p))]


def test_write_to_missing_folder_names_path_and_problem(tmp_path):
    ps = _ps()
    for what, write in _writers(ps):
        target = tmp_path / "nowhere" / "x.out"
        e = _raises(wpart.WpartOSError, target, f"cannot write the {what}", "no such folder",
                    call=lambda: write(target))
        assert e.errno == errno.ENOENT and isinstance(e, OSError)
        assert not (tmp_path / "nowhere").exists()
        _raises(wpart.WpartOSError, tmp_path, "is a folder", call=lambda: write(tmp_path))
        f = tmp_path / "afile"
        f.write_text("x")
        _raises(wpart.WpartOSError, "not a folder", call=lambda: write(f / "x.out"))
    with pytest.raises(wpart.WpartTypeError, match="`path`"):
        ps.to_csv(5)


@pytest.mark.parametrize("code, words", [(errno.EACCES, "permission denied"),
                                         (errno.EROFS, "read-only file system"),
                                         (errno.ENOSPC, "no space left")])
def test_write_errors_name_the_errno(tmp_path, monkeypatch, code, words):
    real_open = os.open

    def refuse(path, *a, **k):
        if str(path).endswith(".tmp"):
            raise OSError(code, os.strerror(code), path)
        return real_open(path, *a, **k)

    monkeypatch.setattr(_profile_io.os, "open", refuse)
    for what, write in _writers(_ps()):
        target = tmp_path / "x.out"
        e = _raises(wpart.WpartOSError, target, what, words, call=lambda: write(target))
        assert e.errno == code
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_write_to_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        _raises(wpart.WpartOSError, ro / "x.csv", "permission denied",
                call=lambda: _ps().to_csv(ro / "x.csv"))
        assert os.listdir(ro) == []
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("step", ["fsync", "replace"])
def test_failed_write_leaves_the_old_file_and_no_partial_file(tmp_path, monkeypatch, step):
    for what, write in _writers(_ps()):
        target = tmp_path / "out.txt"
        target.write_text("previous content\n")

        def boom(*a, **k):
            raise OSError(errno.ENOSPC, "No space left on device")

        with monkeypatch.context() as m:
            m.setattr(_profile_io.os, step, boom)
            _raises(wpart.WpartOSError, target, "no space left", call=lambda: write(target))
        assert target.read_text() == "previous content\n"
        assert sorted(os.listdir(tmp_path)) == ["out.txt"]


def test_write_keeps_mode_and_follows_links(tmp_path):
    ps = _ps()
    target = tmp_path / "all.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    ps.to_csv(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert wh.ProfileSet.from_csv(target) == ps
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    ps2 = wh.ProfileSet.from_arrays([([1], [1.0], [1.0])])
    ps2.to_csv(link)
    assert link.is_symlink() and wh.ProfileSet.from_csv(target) == ps2
    ps[1].to_file(tmp_path / "gpu.txt")
    assert wh.Profile.from_file(tmp_path / "gpu.txt") == ps[1]
    assert sorted(os.listdir(tmp_path)) == ["all.csv", "gpu.txt", "link.csv"]
    assert np.array_equal(wh.Profile.from_file(tmp_path / "gpu.txt").energy, [9.0])
