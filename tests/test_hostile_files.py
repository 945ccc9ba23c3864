"""Hostile input files are bounded and every error names the file and the field: LBDatafiles
(brotli bombs, deep nesting, huge numbers), hetero profile files (exact integer sizes, BOM,
unknown columns, huge fields) and the dynamic platform preset JSON."""

from __future__ import annotations

import json
import time
import warnings

import numpy as np
import pytest

import wpart
import wpart.dynamic as wd
import wpart.dynamic._sim as dsim
import wpart.hetero as wh
import wpart.tasks as wt

GOOD = {"type": "LBDatafile", "metadata": {"rank": 0},
        "phases": [{"id": 0, "tasks": [{"entity": {"id": 1}, "time": 1.5},
                                       {"entity": {"id": 2}, "time": 2.5}]}]}


def _lbd(tmp_path, data, name="d.0.json"):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


def _raises_naming(exc, path, *fields, call):
    t0 = time.perf_counter()
    with pytest.raises(exc) as info:
        call()
    assert time.perf_counter() - t0 < 30  # refused early, never a hang (generous under load)
    msg = str(info.value)
    assert str(path) in msg, msg
    for f in fields:
        assert f in msg, msg
    assert isinstance(info.value, wpart.WpartError)
    return msg


# ------------------------------------------------------------------ LBDatafile --------------
def _bomb(expanded: int) -> bytes:
    brotli = pytest.importorskip("brotli")
    c = brotli.Compressor(quality=1)
    parts = [c.process(b'{"metadata": {"rank": 0}, "pad": "')]
    chunk = b"0" * (1 << 20)
    for _ in range(expanded >> 20):
        parts.append(c.process(chunk))
    return b"".join(parts + [c.process(b'"}'), c.finish()])


def test_lbdatafile_error_class():
    assert issubclass(wt.LBDatafileError, wpart.WpartValueError)


def test_lbdatafile_brotli_bomb_stops_at_the_cap(tmp_path):
    p = _lbd(tmp_path, _bomb(64 << 20))
    assert p.stat().st_size < 100_000
    msg = _raises_naming(wt.LBDatafileError, p, "max_bytes", call=lambda: wt.read_lbdatafile(
        p, max_bytes=1 << 20))
    assert "decompressed" in msg


def test_lbdatafile_plain_file_over_the_cap(tmp_path):
    p = _lbd(tmp_path, json.dumps(GOOD))
    _raises_naming(wt.LBDatafileError, p, "max_bytes", call=lambda: wt.read_lbdatafile(
        p, max_bytes=10))
    assert wt.read_lbdatafile(p, max_bytes=1 << 20).n_tasks == 2
    with pytest.raises(wpart.WpartError,
                       match=r"^`max_bytes`\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        wt.read_lbdatafile(p, max_bytes=0)


def test_lbdatafile_compressed_within_the_cap(tmp_path):
    brotli = pytest.importorskip("brotli")
    p = _lbd(tmp_path, brotli.compress(json.dumps(GOOD).encode()))
    assert wt.Problem.from_lbdatafile(p).task_load.tolist() == [1.5, 2.5]


@pytest.mark.parametrize("text", ["[" * 200_000 + "]" * 200_000,
                                  '{"metadata": {"rank": 0}, "x": ' + "[" * 100_000
                                  + "]" * 100_000 + "}"])
def test_lbdatafile_deep_nesting(tmp_path, text):
    p = _lbd(tmp_path, text)
    _raises_naming(wt.LBDatafileError, p, "nesting", "line 1, column",
                   call=lambda: wt.read_lbdatafile(p))


@pytest.mark.parametrize("number", ["1" * 5000, "1." + "1" * 10**6, "1" * 10**6])
def test_lbdatafile_huge_number_names_the_field(tmp_path, number):
    p = _lbd(tmp_path, json.dumps(GOOD).replace("2.5", number))
    _raises_naming(wt.LBDatafileError, p, "phases[0].tasks[1].time", "number longer",
                   call=lambda: wt.read_lbdatafile(p))


def test_lbdatafile_long_digit_string_is_fine(tmp_path):
    # a free-form field (metadata.attributes): an unknown top-level key would be refused
    p = _lbd(tmp_path, json.dumps({**GOOD, "metadata": {**GOOD["metadata"],
                                                        "attributes": {"note": "7" * 5000}}}))
    assert wt.read_lbdatafile(p).n_tasks == 2


def test_lbdatafile_bom(tmp_path):
    p = _lbd(tmp_path, "\ufeff" + json.dumps(GOOD))
    assert wt.read_lbdatafile(p).task_load.tolist() == [1.5, 2.5]


def test_lbdatafile_garbage_and_truncated(tmp_path):
    brotli = pytest.importorskip("brotli")
    p = _lbd(tmp_path, b"\x00\x01garbage{")
    _raises_naming(wt.LBDatafileError, p, "not valid JSON", call=lambda: wt.read_lbdatafile(p))
    q = _lbd(tmp_path, brotli.compress(json.dumps(GOOD).encode())[:-4], name="t.0.json")
    _raises_naming(wt.LBDatafileError, q, call=lambda: wt.read_lbdatafile(q))


# ------------------------------------------------------------------ profile files -----------
def _txt(tmp_path, text, name="p.txt", bom=False):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8-sig" if bom else "utf-8")
    return p


def test_profile_exact_integer_sizes_above_2_53(tmp_path):
    p = _txt(tmp_path, "9007199254740993 1.0 2.0\n9007199254740992 1.0 2.0\n")
    pr = wh.Profile.from_file(p)
    assert pr.sizes.tolist() == [2**53, 2**53 + 1]


@pytest.mark.parametrize("tok", ["9.007199254740993e15", "1e17", "9007199254740994.0"])
def test_profile_float_stored_size_above_2_53_refused(tmp_path, tok):
    p = _txt(tmp_path, f"1 1.0\n{tok} 1.0 \n".replace(" \n", "\n"))
    _raises_naming(wpart.WpartValueError, p, "line 2", "2**53",
                   call=lambda: wh.Profile.from_file(p))


def test_profile_size_beyond_int64(tmp_path):
    p = _txt(tmp_path, "99999999999999999999 1 2\n")
    _raises_naming(wpart.WpartOverflowError, p, "line 1", call=lambda: wh.Profile.from_file(p))


def test_profile_float_written_small_sizes_ok(tmp_path):
    p = _txt(tmp_path, "# size time\n1e3 1.0\n2000.0 2.0\n3,3.0\n")
    assert wh.Profile.from_file(p).sizes.tolist() == [3, 1000, 2000]


def test_profile_bom(tmp_path):
    p = _txt(tmp_path, "# size time energy\n1 1.0 2.0\n2 3 4\n", bom=True)
    assert wh.Profile.from_file(p).sizes.tolist() == [1, 2]
    c = _txt(tmp_path, "processor,size,time\nA,1,2\n", name="c.csv", bom=True)
    assert wh.ProfileSet.from_csv(c).names == ["A"]


@pytest.mark.parametrize("text,fields", [
    ("1 1.0 2.0 7\n", ("line 1", "4 columns")),
    ("1 1.0 2.0\n2 x 3\n", ("line 2", "not a number")),
    ("1 1.0 2.0\n2 3\n", ("line 2", "columns")),
    ("1 1.0\n1 2.0\n", ("duplicate size",)),
    ("1 -1.0\n", ("time",)),
    ("# nothing\n", ("no data points",)),
    ("1.5 1.0\n", ("not an integer",)),
])
def test_profile_text_errors_name_the_file(tmp_path, text, fields):
    p = _txt(tmp_path, text)
    _raises_naming(wpart.WpartValueError, p, *fields, call=lambda: wh.Profile.from_file(p))


def test_profile_binary_and_missing_files(tmp_path):
    b = tmp_path / "bin.txt"
    b.write_bytes(b"\xff\xfe\x00garbage")
    _raises_naming(wpart.WpartValueError, b, "UTF-8", call=lambda: wh.Profile.from_file(b))
    m = tmp_path / "missing.txt"
    _raises_naming(wpart.WpartFileNotFoundError, m, call=lambda: wh.Profile.from_file(m))


def test_csv_unknown_columns(tmp_path):
    c = _txt(tmp_path, "processor,size,time,energy,run\nA,1,2,3,0\n", name="c.csv")
    _raises_naming(wpart.WpartValueError, c, "run", "unknown",
                   call=lambda: wh.ProfileSet.from_csv(c))
    with pytest.warns(UserWarning, match="run"):
        assert wh.ProfileSet.from_csv(c, unknown_columns="warn").names == ["A"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert wh.ProfileSet.from_csv(c, unknown_columns="ignore").m == 1
    with pytest.raises(wpart.WpartValueError, match="unknown_columns"):
        wh.ProfileSet.from_csv(c, unknown_columns="maybe")


@pytest.mark.parametrize("text,fields", [
    ('processor,size,time\nA,1,"' + "x" * 200_000 + '"\n', ("CSV line 2", "field")),
    ("processor,size,time\nA,1,2\nB,1,2,5\n", ("row 2", "4 fields")),
    ("processor,size,time\nA,1,2\nB,3,x\n", ("row 2", "'x'")),
    ("processor,size\nA,1\n", ("missing", "time")),
    ("processor,size,time\nA,1,1\nB,1e17,2\n", ("row 2", "2**53")),
    ("processor,size,time\nA,1,1\nB,1,2\nA,2,3\nB,2,-1\n", ("'B'", "time")),
    ("", ("empty",)),
])
def test_csv_errors_name_the_file(tmp_path, text, fields):
    c = _txt(tmp_path, text, name="c.csv")
    _raises_naming(wpart.WpartValueError, c, *fields, call=lambda: wh.ProfileSet.from_csv(c))


def test_csv_exact_sizes_and_order(tmp_path):
    c = _txt(tmp_path, "processor,size,time,energy\n B,9007199254740993,1,0\nA,2,1,1\n"
             "B ,1,2,5\n", name="c.csv")
    ps = wh.ProfileSet.from_csv(c)
    assert ps.names == ["B", "A"]
    assert ps[0].sizes.tolist() == [1, 2**53 + 1] and ps[0].energy.tolist() == [5.0, 0.0]
    # a blank energy cell is a missing measurement, not 0 J: refused naming the row
    b = _txt(tmp_path, "processor,size,time,energy\n B,9007199254740993,1,\nA,2,1,1\n",
             name="b.csv")
    _raises_naming(wpart.WpartValueError, b, "row 1", "energy", "blank",
                   call=lambda: wh.ProfileSet.from_csv(b))


def test_big_profile_file_is_read_exactly(tmp_path):
    # correctness of the bulk path on a large file (its timing is in benchmarks/bench_files.py)
    n = 200_000
    rng = np.random.default_rng(3)
    t = rng.random(n)
    order = rng.permutation(n)
    p = tmp_path / "big.txt"
    with open(p, "w") as fh:
        fh.write("# size time\n")
        np.savetxt(fh, np.column_stack((order + 1, t[order])), fmt=("%d", "%.17g"))
    pr = wh.Profile.from_file(p)
    assert pr.sizes.tolist() == list(range(1, n + 1))
    assert np.array_equal(pr.time, t)


# ------------------------------------------------------------------ preset JSON -------------
@pytest.fixture
def preset_file(tmp_path, monkeypatch):
    doc = json.loads(dsim.PRESET_FILE.read_text(encoding="utf-8"))
    p = tmp_path / "platforms.json"

    def write(mutate=None, text=None):
        if text is None:
            d = json.loads(json.dumps(doc))
            mutate(d)
            text = json.dumps(d)
        p.write_text(text, encoding="utf-8")
        monkeypatch.setattr(dsim, "PRESET_FILE", p)
        return p

    return write


@pytest.mark.parametrize("mutate,text,fields", [
    (None, '{"classes": ', ("not valid JSON",)),
    (None, "[1, 2]", ("top level",)),
    (lambda d: d["classes"]["cpu16"].pop("rate"), None, ("classes.cpu16.rate", "missing")),
    (lambda d: d["classes"]["cpu16"].update(rate="fast"), None, ("classes.cpu16.rate",)),
    (lambda d: d["classes"]["cpu16"].update(rate=-1.0), None, ("classes.cpu16.rate",)),
    (lambda d: d.pop("scenarios"), None, ("scenarios", "missing")),
    (lambda d: d["machines"].update(A=["nope"]), None, ("classes.nope", "missing")),
])
def test_preset_errors_name_the_file_and_field(preset_file, mutate, text, fields):
    p = preset_file(mutate, text)
    _raises_naming(wpart.WpartValueError, p, *fields,
                   call=lambda: wd.Platform.preset("paper5"))


def test_preset_device_field_missing(preset_file):
    p = preset_file(lambda d: d["scenarios"]["linear4"]["devices"][1].pop("t0"))
    _raises_naming(wpart.WpartValueError, p, "scenarios.linear4.devices[1].t0",
                   call=lambda: wd.Platform.preset("linear4"))


def test_preset_argument_errors_unchanged():
    with pytest.raises(wpart.WpartValueError, match="^`name`"):
        wd.Platform.preset("paper6")
    with pytest.raises(wpart.WpartValueError, match="^`app`"):
        wd.Platform.preset("paper5", app="zzz")
    assert wd.Platform.preset("paper5").m == 11
