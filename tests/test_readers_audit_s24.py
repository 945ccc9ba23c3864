"""Audit s24 of wpart's file readers: a control byte (NUL) in a MatrixMarket file that killed the
process inside scipy's reader, non-integer values of an ``integer`` file and non-square
symmetric headers read instead of refused, brotli LBDatafiles above ~2 MiB of JSON refused,
idle ranks of a ``.vom`` set refused, and ``ProfileSet.to_csv`` names that its reader could not
read back. Every refusal is a WpartError naming the file and the problem."""

from __future__ import annotations

import bz2
import gzip
import json
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
import scipy.io
import scipy.sparse

import wpart
import wpart.hetero as wh
import wpart.spatial as ws
import wpart.tasks as wt
from wpart import _core
from wpart.spatial import _mmfast, _sparse
from wpart.tasks._io import LBDatafileError, _decompress

HEAD = b"%%MatrixMarket matrix coordinate real general\n"
HEAD_INT = b"%%MatrixMarket matrix coordinate integer general\n"

# ------------------------------------------------------------------ 1. control bytes (NUL)

#: name -> (bytes, the 1-based line the error names, what it names)
CONTROL_FILES = {
    "data_nul": (HEAD + b"1 1 1\n1 1 1\x00\n", 3, "a NUL byte"),  # (the segfault)
    "data_nul_int": (HEAD_INT + b"1 1 1\n1 1 1\x00\n", 3, "a NUL byte"),
    "data_nul_no_eol": (HEAD + b"1 1 1\n1 1 1\x00", 3, "a NUL byte"),
    "data_nul_mid": (HEAD + b"2 2 2\n1 1 1\n2\x00 2 1\n", 4, "a NUL byte"),
    "header_comment_nul": (HEAD + b"% made by\x00 x\n2 2 2\n1 1 1\n2 2 1\n", 2, "a NUL byte"),
    "banner_nul": (b"%%MatrixMarket\x00 matrix coordinate real general\n1 1 1\n1 1 1\n", 1,
                   "a NUL byte"),
    "size_nul": (HEAD + b"1 1 1\x00\n1 1 1\n", 2, "a NUL byte"),
    "end_nul": (HEAD + b"1 1 1\n1 1 1\n\x00", 4, "a NUL byte"),
    "end_nul_eol": (HEAD + b"1 1 1\n1 1 1\n\x00\n", 4, "a NUL byte"),
    "data_soh": (HEAD + b"1 1 1\n1 1 1\x01\n", 3, "control byte 0x01"),
    "data_esc": (HEAD + b"2 2 2\n1 1 2\x1b\n2 2 1\n", 3, "control byte 0x1b"),
    "data_del": (HEAD + b"1 1 1\n1 1 1\x7f\n", 3, "control byte 0x7f"),
    "lone_cr": (HEAD + b"1 1 1\n1 1\r1\n", 3, "carriage return"),
}

_CHILD = r'''
import sys
import wpart
import wpart.spatial as ws

for p in sys.argv[1:]:
    calls = (("read_matrix", lambda: ws.read_matrix(p)),
             ("rect_nicol", lambda: ws.rect_nicol(p, 2, P=1, Q=2)),
             ("rect_nicol_count", lambda: ws.rect_nicol(p, 2, P=1, Q=2, weights="count")),
             ("partition", lambda: ws.partition(p, 2)))
    for what, fn in calls:
        try:
            fn()
            print("READ", p, what, flush=True)
        except wpart.WpartError as exc:
            print("ERROR", type(exc).__name__, str(exc).replace("\n", " "), flush=True)
    c = ws.compare(p, 2, methods=["rect_uniform", "jag_m_heur"])  # (reports, per method)
    print("COMPARE", c.success, str(c).replace("\n", " "), flush=True)
'''


def _write(path, data: bytes):
    if str(path).endswith(".gz"):
        with gzip.open(path, "wb") as f:
            f.write(data)
    elif str(path).endswith(".bz2"):
        with bz2.open(path, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)
    return path


def test_control_bytes_refused_in_a_child_never_a_crash(tmp_path):
    """scipy.io.mmread dies of a segmentation fault on ``1 1 1\\x00`` (scipy 1.12 - 1.17):
    every reader of a path refuses the file before scipy sees it, naming the file, the line and
    the byte. In a child process: a crash fails this test, not the run."""
    paths, want = [], {}
    for name, (data, line, what) in CONTROL_FILES.items():
        for suffix in (".mtx", ".mtx.gz"):  # (the fast path's file, and scipy's only)
            p = _write(tmp_path / f"{name}{suffix}", data)
            paths.append(str(p))
            want[str(p)] = (line, what)
    out = subprocess.run([sys.executable, "-c", _CHILD, *paths], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, (out.returncode, out.stderr[-3000:])
    rows = out.stdout.splitlines()
    assert len(rows) == 5 * len(paths), out.stdout[-3000:]
    assert not [r for r in rows if r.startswith("READ")]
    for k, p in enumerate(paths):
        line, what = want[p]
        for r in rows[5 * k:5 * k + 5]:
            assert r.startswith("ERROR WpartValueError") or (
                r.startswith("COMPARE False") and "rect_uniform: `A`" in r
                and "jag_m_heur: `A`" in r), r
            assert repr(p) in r and f"line {line}: " in r and what in r, (p, r)
            assert "not a MatrixMarket text file" in r


@pytest.mark.parametrize("name", ["header_comment_nul", "end_nul", "data_soh", "lone_cr"])
def test_control_bytes_refused_in_process(tmp_path, name):
    # (files that did not crash scipy: read as 1, or refused in scipy's words without naming
    # the byte, or, a NUL in a header comment, read by the fast path)
    data, line, what = CONTROL_FILES[name]
    p = _write(tmp_path / f"{name}.mtx", data)
    with pytest.raises(wpart.WpartValueError) as ei:
        ws.read_matrix(p)
    msg = str(ei.value)
    assert isinstance(ei.value, wpart.WpartError)
    assert str(p) in msg and f"line {line}: " in msg and what in msg


def test_fast_path_declines_control_bytes(tmp_path):
    """wpart's own fast path (core parser, _mmfast) never takes a file with a control byte: a
    NUL in a header comment makes its header None, one in the body is refused by the core."""
    data = CONTROL_FILES["header_comment_nul"][0]
    assert _mmfast.header(data) is None
    assert _mmfast.header(data.replace(b"\x00", b"")) is not None
    p = _write(tmp_path / "h.mtx", data)
    assert _mmfast.read_fast(str(p), lambda *a: None) is None
    for name in ("data_nul", "data_nul_int", "data_nul_mid", "data_soh", "data_del", "lone_cr"):
        data = CONTROL_FILES[name][0]
        h = _mmfast.header(data)
        assert h is not None, name
        for exact in (True, False):
            assert _core.spatial_mm_csr(data, h[5], h[2], h[3], h[4], _mmfast._FIELD[h[0]],
                                        _mmfast._SYM[h[1]], exact) is None, name
        p = _write(tmp_path / f"{name}.mtx", data)
        assert _mmfast.read_fast(str(p), lambda *a: None) is None, name
    assert _mmfast.bad_byte(b"1 1 1\r\n2 2 2\n") == -1
    assert _mmfast.bad_byte(b"1 1\r1\n") == 3
    assert _mmfast.bad_byte(b"1 1 1\x00\n") == 5


def test_comments_with_text_and_crlf_still_read(tmp_path):
    # what the checks must not refuse: text (UTF-8 too) in comments, CRLF line ends, tabs
    text = ("%%MatrixMarket matrix coordinate real general\r\n% made by Dr. Müller, 2024\r\n"
            "3 3 3\r\n1 1 1.5e-3\r\n2\t2 -2\r\n3 3 nan\r\n").encode()
    for suffix in (".mtx", ".mtx.gz"):
        p = _write(tmp_path / f"ok{suffix}", text)
        A = ws.read_matrix(p)
        assert A[0, 0] == 1.5e-3 and A[1, 1] == -2 and np.isnan(A[2, 2])


# ------------------------------------------------------------------ 2. integer tokens, symmetry

BAD_INT = {"2.9": b"1 1 2.9\n", "7abc": b"1 1 7abc\n", "1e3": b"1 1 1e3\n",
           "1-2": b"1 1 1-2\n", "-": b"1 1 -\n", "3x": b"1 3x 4\n"}


@pytest.mark.parametrize("tok", sorted(BAD_INT))
@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz", ".mtx.bz2"])
def test_integer_file_refuses_non_integer_tokens(tmp_path, tok, suffix):
    data = HEAD_INT + b"3 3 2\n2 2 4\n" + BAD_INT[tok]
    p = _write(tmp_path / f"bad{suffix}", data)
    for call in (lambda: ws.read_matrix(p), lambda: ws.rect_nicol(p, 2, P=1, Q=2),
                 lambda: ws.rect_nicol(p, 2, P=1, Q=2, weights="count")):
        with pytest.raises(wpart.WpartValueError) as ei:
            call()
        msg = str(ei.value)
        assert str(p) in msg and "line 4: " in msg, msg
        assert f"{tok!r} is not an integer (the file's field is integer)" in msg
    if suffix == ".mtx":  # the fast path declines it: the general reader's verdict stands
        assert _mmfast.read_fast(str(p), lambda *a: None) is None


def test_real_file_refuses_letters_after_a_number(tmp_path):
    p = _write(tmp_path / "r.mtx", HEAD + b"2 2 2\n1 1 7abc\n2 2 1\n")
    with pytest.raises(wpart.WpartValueError, match=r"r\.mtx.*line 3: the value '7abc' is "
                                                    r"not a number"):
        ws.read_matrix(p)


def _real_lines(n, seed=3):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(1, 201, n), rng.integers(1, 201, n)
    return [f"{i} {j} {v!r}\n".encode() for i, j, v in zip(r, c, (rng.random(n) * 10).tolist())]


@pytest.mark.parametrize("where", ["first", "before_comment", "after_comment", "last"])
def test_real_file_of_the_general_reader_names_the_bad_line(tmp_path, where):
    # more than _mmfast.FAST_REAL_EXACT_MAX entries: the general reader's block check, which
    # checks the header and comment lines one by one and the entry lines by byte counts
    n = 6000
    lines = _real_lines(n)
    mid = 3000
    body = lines[:mid] + [b"% a comment in the middle\n"] + lines[mid:]
    at = {"first": 0, "before_comment": mid - 1, "after_comment": mid + 1,
          "last": len(body) - 1}[where]
    body[at] = b"1 1 7abc\n"
    head = HEAD + b"% made by wpart's tests\n" + f"200 200 {n}\n".encode()
    p = _write(tmp_path / "r.mtx", head + b"".join(body))
    line = head.count(b"\n") + at + 1
    with pytest.raises(wpart.WpartValueError, match=rf"r\.mtx.*line {line}: the value '7abc' "
                                                    r"is not a number"):
        ws.read_matrix(p)


def test_real_file_of_the_general_reader_checks_entry_lines_in_bulk(tmp_path, monkeypatch):
    # the same matrix as scipy's reader, and only the header's lines checked one by one
    n = 6000
    src = tmp_path / "ok.mtx"
    src.write_bytes(HEAD + b"% comment\n" + f"200 200 {n}\n".encode() +
                    b"".join(_real_lines(n)))
    want = scipy.sparse.csr_array(scipy.io.mmread(src))
    want.sum_duplicates()
    seen = []
    real = _sparse._line_fault
    monkeypatch.setattr(_sparse, "_line_fault", lambda line, f: seen.append(line) or real(line, f))
    got = ws.read_matrix(src)
    assert got.shape == want.shape and (got != want).nnz == 0
    assert 0 < len(seen) <= 4, len(seen)


def test_valid_integer_files_read_as_scipy_reads_them(tmp_path):
    # signs, several 256 KiB blocks (the block check), gz: the same matrix as scipy's reader
    rng = np.random.default_rng(5)
    n = 250_000
    r, c = rng.integers(0, 3000, n), rng.integers(0, 3000, n)
    v = rng.integers(-9, 100, n)
    A = scipy.sparse.coo_array((v, (r, c)), shape=(3000, 3000))
    src = tmp_path / "big.mtx"
    scipy.io.mmwrite(src, A)
    data = src.read_bytes()
    assert b" -" in data and len(data) > 3 * (1 << 18)
    want = scipy.sparse.csr_array(scipy.io.mmread(src))
    want.sum_duplicates()
    for suffix in (".mtx", ".mtx.gz"):
        got = ws.read_matrix(_write(tmp_path / f"b{suffix}", data))
        assert got.shape == want.shape and (got != want).nnz == 0


@pytest.mark.parametrize("sym", ["symmetric", "skew-symmetric", "hermitian"])
@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_symmetric_header_of_non_square_size_refused(tmp_path, sym, suffix):
    field = "complex" if sym == "hermitian" else "real"
    v = " 1 0" if field == "complex" else " 5"
    data = (f"%%MatrixMarket matrix coordinate {field} {sym}\n3 4 2\n2 1{v}\n3 2{v}\n"
            ).encode()
    p = _write(tmp_path / f"s{suffix}", data)
    with pytest.raises(wpart.WpartValueError) as ei:
        ws.read_matrix(p)
    msg = str(ei.value)
    assert str(p) in msg and f"declares a {sym} matrix of size 3 x 4" in msg
    assert f"a {sym} matrix is square" in msg
    with pytest.raises(wpart.WpartValueError, match="3 x 4"):
        ws.rect_nicol(p, 2, P=1, Q=2, weights="count")
    if suffix == ".mtx":
        assert _mmfast.read_fast(str(p), lambda *a: None) is None
    # the square file reads (both triangles), by either path
    sq = _write(tmp_path / f"sq{suffix}", data.replace(b"3 4 2", b"4 4 2"))
    assert ws.read_matrix(sq).shape == (4, 4) and ws.read_matrix(sq).nnz == 4


# ------------------------------------------------------------------ 3. brotli LBDatafiles

def test_brotli_round_trip_above_two_mib(tmp_path):
    brotli = pytest.importorskip("brotli")
    p = wt.gemma_like(m=2, n_tasks=40000)
    stem = str(tmp_path / "g")
    files = p.to_lbdatafile(stem, compress=True)
    sizes = [len(brotli.decompress(open(f, "rb").read())) for f in files]
    assert max(sizes) > 2 << 20  # (above the ~1.97 MiB that was refused)
    q = wt.read_lbdatafile(stem)
    assert q.m == p.m and q.n_tasks == p.n_tasks
    assert np.array_equal(q.initial, p.initial)
    assert np.array_equal(q.task_load, p.task_load)
    assert np.array_equal(q.task_block, p.task_block)
    # the same as the uncompressed set
    plain = str(tmp_path / "plain")
    p.to_lbdatafile(plain)
    r = wt.read_lbdatafile(plain)
    assert np.array_equal(r.task_ids, q.task_ids) and np.array_equal(r.task_load, q.task_load)


def test_brotli_decompress_drains_and_caps():
    brotli = pytest.importorskip("brotli")
    text = json.dumps({"x": "ab" * (3 << 20)}).encode()  # (6 MiB from a few bytes)
    raw = brotli.compress(text)
    assert len(text) > 4 << 20 and len(raw) < 1 << 20
    assert _decompress("f.json", raw, 1 << 30, brotli) == text
    assert _decompress("f.json", raw, len(text), brotli) == text  # (exactly at the cap)
    with pytest.raises(LBDatafileError, match=r"f\.json: decompressed content exceeds "
                                              r"max_bytes = 1000"):
        _decompress("f.json", raw, 1000, brotli)
    with pytest.raises(EOFError, match="incomplete brotli stream"):
        _decompress("f.json", raw[:-5], 1 << 30, brotli)


def test_brotli_bomb_refused_without_inflating_it(tmp_path):
    brotli = pytest.importorskip("brotli")
    bomb = brotli.compress(b" " * (64 << 20), quality=1)
    assert len(bomb) < 1 << 20
    f = tmp_path / "b.0.json"
    f.write_bytes(bomb)
    cap = 2 << 20
    tracemalloc.start()
    try:
        with pytest.raises(LBDatafileError) as ei:
            wt.read_lbdatafile(str(f), max_bytes=cap)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(f) in str(ei.value) and f"exceeds max_bytes = {cap}" in str(ei.value)
    assert peak < cap + (8 << 20), peak  # (not the 64 MiB)


def test_brotli_truncated_file_named(tmp_path):
    brotli = pytest.importorskip("brotli")
    doc = {"type": "LBDatafile", "metadata": {"type": "LBDatafile", "rank": 0},
           "phases": [{"id": 0, "tasks": []}]}
    f = tmp_path / "t.0.json"
    f.write_bytes(brotli.compress(json.dumps(doc).encode())[:-3])
    with pytest.raises(LBDatafileError, match=r"t\.0\.json: not valid JSON.*nor complete "
                                              "brotli-compressed JSON"):
        wt.read_lbdatafile(str(f))


# ------------------------------------------------------------------ 4. idle ranks of .vom sets

def _json_set(tmp_path, stem, per_rank):
    for r, phases in enumerate(per_rank):
        doc = {"type": "LBDatafile", "metadata": {"type": "LBDatafile", "rank": r},
               "phases": [{"id": ph, "tasks": [
                   {"entity": {"type": "object", "id": oid, "home": r, "migratable": True},
                    "node": r, "resource": "cpu", "time": t} for oid, t in tasks]}
                   for ph, tasks in phases.items()]}
        (tmp_path / f"{stem}.{r}.json").write_text(json.dumps(doc))
    return str(tmp_path / stem)


@pytest.mark.parametrize("idle", [0, 1, 2])
def test_vom_set_with_an_idle_rank(tmp_path, idle):
    lines = {0: "0,5,1.5\n0,6,2.0\n1,5,1.0\n", 1: "0,7,0.5\n1,6,3.0\n", 2: "0,8,4.0\n"}
    lines[idle] = ""
    for r, text in lines.items():
        (tmp_path / f"v.{r}.vom").write_text(text)
    per_rank = []
    for r in range(3):  # the equivalent JSON set: the idle rank lists the phases, empty
        ph: dict = {0: [], 1: []}
        for ln in lines[r].splitlines():
            a, b, c = ln.split(",")
            ph[int(a)].append((int(b), float(c)))
        per_rank.append(ph)
    js = _json_set(tmp_path, "j", per_rank)
    for phase in (0, 1):
        p = wt.read_lbdatafile(str(tmp_path / "v"), phase=phase)
        q = wt.read_lbdatafile(js, phase=phase)
        assert p.m == q.m == 3
        assert p.task_ids.tolist() == q.task_ids.tolist()
        assert p.initial.tolist() == q.initial.tolist() and idle not in p.initial.tolist()
        assert p.task_load.tolist() == q.task_load.tolist()
    p = wt.read_lbdatafile(str(tmp_path / "v"))  # default: the first phase listed
    assert p.meta["phase"] == 0


def test_vom_rank_without_a_line_for_the_phase(tmp_path):
    (tmp_path / "w.0.vom").write_text("0,5,1.5\n")
    (tmp_path / "w.1.vom").write_text("1,8,2.0\n")
    p = wt.read_lbdatafile(str(tmp_path / "w"), phase=1)
    assert (p.m, p.task_ids.tolist(), p.initial.tolist()) == (2, [8], [1])
    p = wt.read_lbdatafile(str(tmp_path / "w"), phase=0)
    assert (p.m, p.task_ids.tolist(), p.initial.tolist()) == (2, [5], [0])


def test_vom_set_of_empty_files_refused(tmp_path):
    (tmp_path / "e.0.vom").write_text("")
    (tmp_path / "e.1.vom").write_text("\n")
    with pytest.raises(LBDatafileError, match=r"e\.0\.vom: phases: empty list"):
        wt.read_lbdatafile(str(tmp_path / "e"))


# ------------------------------------------------------------------ 5. ProfileSet CSV names

NAMES = ["a,b", 'say "hi"', "line\nbreak", "cr\rhere", "cpu0", "gpu 1", 'x"']


@pytest.mark.parametrize("energy", [True, False])
def test_profile_csv_round_trip_of_odd_names(tmp_path, energy):
    items = [([1, 2], [1.0 + k, 2.5 + k], [0.5, 3.0 + k]) if energy else
             ([1, 2], [1.0 + k, 2.5 + k]) for k in range(len(NAMES))]
    ps = wh.ProfileSet.from_arrays(items, names=NAMES)
    text = ps.to_csv()
    assert '"a,b"' in text and '"say ""hi"""' in text and '"line\nbreak"' in text
    assert "\ncpu0,1," in text  # (ordinary names as before)
    q = wh.ProfileSet.from_csv(text)
    assert q.names == NAMES and q == ps
    f = tmp_path / "p.csv"
    ps.to_csv(f)
    r = wh.ProfileSet.from_csv(f)
    assert r.names == NAMES and r == ps
    for a, b in zip(r, ps):
        assert np.array_equal(a.sizes, b.sizes) and np.array_equal(a.time, b.time)
        assert np.array_equal(a.energy, b.energy)


def test_profile_csv_plain_names_unchanged():
    ps = wh.ProfileSet.from_arrays([([1], [2.0]), ([3], [0.1])], names=["cpu", "gpu"])
    assert ps.to_csv() == "processor,size,time\ncpu,1,2.0\ngpu,3,0.1\n"


@pytest.mark.parametrize("name", [" gpu", "gpu ", "\tcpu"])
def test_profile_csv_refuses_names_a_read_would_strip(tmp_path, name):
    ps = wh.ProfileSet.from_arrays([([1], [2.0]), ([3], [0.1])], names=["cpu0", name])
    f = tmp_path / "p.csv"
    f.write_text("before")
    with pytest.raises(wpart.WpartValueError, match=r"`profiles\[1\]`.*leading or trailing"):
        ps.to_csv(f)
    assert f.read_text() == "before"  # nothing written
    with pytest.raises(wpart.WpartValueError, match="rename the profile"):
        ps.to_csv()
