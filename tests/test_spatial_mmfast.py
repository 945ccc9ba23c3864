"""The MatrixMarket fast path (wpart/spatial/_mmfast.py, csrc/spatial/mm_read.c) against scipy's
reader: every file in the fast path's syntax gives the canonical CSR matrix that scipy's COO
gives, value for value (floats bit for bit) and dtype for dtype; every file outside it goes to
scipy's reader (``_core.spatial_mm_csr`` answers None) with the same result or error as
before; the methods read a path the same way as the matrix."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pytest
import scipy.io

import wpart
import wpart.spatial as ws
from wpart import _core
from wpart.spatial import _mmfast, _sparse

REALS = ["1", "2.5", "-.058912621", "2.4425906490000004", "1e-3", "1E+05", "-0.0", "0", "0.0",
         "7.", ".5", "3.0e0", "-12.75e-2", "1e-300", "0e5", "00.000"]


def scipy_csr(path):
    """The independent oracle: scipy's reader, then its canonical CSR (pattern: int64 1s)."""
    M = scipy.io.mmread(path)
    field = scipy.io.mminfo(path)[4]
    return _sparse._canonical_csr(M, field == "pattern")


def same(A, B):
    assert A.shape == B.shape
    assert A.data.dtype == B.data.dtype
    assert np.array_equal(A.indptr, B.indptr)
    assert np.array_equal(A.indices, B.indices)
    assert np.array_equal(A.data.view(np.uint8), B.data.view(np.uint8))  # bit for bit


def random_file(rng, field, sym, crlf=False, blanks=False, comments=0, eof_newline=True,
                shuffle=True, by_cols=False):
    n1 = int(rng.integers(1, 30))
    n2 = n1 if sym != "general" else int(rng.integers(1, 30))
    cells = {(i, j) for i in range(n1) for j in range(n2) if rng.random() < 0.3}
    if sym != "general":  # one triangle (skew: strictly lower)
        cells = {(i, j) for i, j in cells if (i > j if sym == "skew-symmetric" else i >= j)}
    cells = sorted(cells, key=(lambda c: (c[1], c[0])) if by_cols else None)
    if shuffle:
        rng.shuffle(cells)
    lines = []
    for i, j in cells:
        sep = " \t " if blanks and rng.random() < 0.3 else " "
        parts = [str(i + 1), str(j + 1)]
        if field == "real":
            parts.append(REALS[int(rng.integers(len(REALS)))] if rng.random() < 0.5
                         else repr(float(rng.normal() * 10.0 ** int(rng.integers(-5, 6)))))
        elif field == "integer":
            parts.append(str(int(rng.integers(-10**12, 10**12)) if rng.random() < 0.5
                             else int(rng.integers(-3, 4))))
        lines.append(sep.join(parts) + (" " if blanks and rng.random() < 0.2 else ""))
    nl = "\r\n" if crlf else "\n"
    head = [f"%%MatrixMarket matrix coordinate {field} {sym}"]
    head += [f"% comment {k}" for k in range(comments)]
    head.append(f"{n1} {n2} {len(cells)}")
    if lines and not eof_newline:  # (scipy 1.17's reader crashes on blanks ending the file)
        lines[-1] = lines[-1].rstrip(" \t")
    text = nl.join(head + lines) + (nl if eof_newline else "")
    return text, len(cells)


CASES = [(f, s) for f in ("real", "integer", "pattern")
         for s in ("general", "symmetric", "skew-symmetric") if not (f == "pattern" and
                                                                     s == "skew-symmetric")]


@pytest.mark.parametrize("field,sym", CASES)
def test_fast_path_matches_scipy_reader(tmp_path, field, sym):
    rng = np.random.default_rng(CASES.index((field, sym)))
    fast = 0
    for k in range(40):
        text, nnz = random_file(rng, field, sym, crlf=k % 3 == 1, blanks=k % 4 == 2,
                                comments=k % 3, eof_newline=k % 5 != 4, shuffle=k % 2 == 0,
                                by_cols=k % 4 == 1)  # (in row order, column order, none)
        p = tmp_path / f"m{k}.mtx"
        p.write_text(text, newline="")
        A = ws.read_matrix(p)
        same(A, scipy_csr(p))
        if nnz:
            data = p.read_bytes()
            h = _mmfast.header(data)
            assert h is not None
            fast += _core.spatial_mm_csr(data, h[5], h[2], h[3], h[4], _mmfast._FIELD[field],
                                         _mmfast._SYM[sym]) is not None
            # weights "stored" / "count": a real file's values as value != 0 of the exact read
            got = _mmfast.read_fast(str(p), lambda *a: None, exact=False)
            assert got is not None
            B = got[0]
            assert B.data.dtype == np.int64
            assert np.array_equal(B.indices, A.indices)
            want = (A.data != 0).astype(np.int64) if field == "real" else A.data
            assert np.array_equal(B.data, want)  # (integers are exact: no conversion)
    assert fast >= 30  # (the empty files go to scipy's reader)


BAD_BODIES = {
    "duplicate": "1 1 1\n1 1 2\n",
    "nan": "1 1 nan\n2 2 1\n",
    "inf": "1 1 inf\n2 2 1\n",
    "plus": "1 1 +1.5\n2 2 1\n",
    "blank_line": "1 1 1\n\n2 2 1\n",
    "comment_inside": "1 1 1\n% c\n2 2 1\n",
    "fewer": "1 1 1\n",
    "more": "1 1 1\n2 2 1\n2 1 1\n",
    "out_of_range": "1 1 1\n3 2 1\n",
    "zero_index": "0 1 1\n2 2 1\n",
    "extra_token": "1 1 1 5\n2 2 1\n",
    "overflow": "1 1 1e400\n2 2 1\n",
    "underflow": "1 1 1e-400\n2 2 1\n",
    "two_dots": "1 1 1.2.3\n2 2 1\n",
    "glued": "1 1-1.5\n2 2 1\n",
}


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_outside_the_syntax_goes_to_scipy(tmp_path, name):
    text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n" + BAD_BODIES[name]
    p = tmp_path / f"{name}.mtx"
    p.write_text(text)
    data = p.read_bytes()
    h = _mmfast.header(data)
    for exact in (True, False):
        if name in ("underflow", "overflow") and not exact:
            continue  # (the indicator of 1e-400 / 1e400 needs the conversion: it parses it)
        assert _core.spatial_mm_csr(data, h[5], 2, 2, 2, 0, 0, exact) is None, (name, exact)
    try:
        want = scipy_csr(p)
    except Exception:  # scipy refuses it: so does read_matrix, naming the file
        with pytest.raises(wpart.WpartError, match=str(p.name)):
            ws.read_matrix(p)
        return
    same(ws.read_matrix(p), want)


def test_headers_outside_the_syntax_go_to_scipy(tmp_path):
    for k, head in enumerate([
        "%%MatrixMarket matrix coordinate complex general",
        "%%MatrixMarket matrix coordinate complex hermitian",
        "%%MatrixMarket matrix coordinate REAL General",
        "%%MatrixMarket matrix coordinate pattern skew-symmetric",
    ]):
        body = "2 2 2\n1 1 1 0\n2 1 3 1\n" if "complex" in head else "2 2 2\n1 1 1\n2 1 3\n"
        if "pattern" in head:
            body = "2 2 1\n2 1\n"
        p = tmp_path / f"h{k}.mtx"
        p.write_text(head + "\n" + body)
        assert _mmfast.header(p.read_bytes()) is None or "pattern" in head
        assert _mmfast.read_fast(str(p), lambda *a: None) is None
    p = tmp_path / "z.mtx.gz"
    with gzip.open(p, "wt") as f:
        f.write("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 5\n")
    assert _mmfast.read_fast(str(p), lambda *a: None) is None
    same(ws.read_matrix(p), scipy_csr(p))


def test_declared_size_checked_before_reading(tmp_path):
    p = tmp_path / "huge.mtx"
    p.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                 "4000000000000 4000000000000 4000000\n1 1\n")
    with pytest.raises(wpart.WpartMemoryError, match="huge.mtx"):
        ws.read_matrix(p)
    with pytest.raises(wpart.WpartMemoryError, match="huge.mtx"):
        ws.rect_nicol(p, 4, P=2, Q=2, weights="count")


@pytest.mark.parametrize("weights", ["stored", "count", "values"])
def test_methods_read_a_path_as_the_matrix(tmp_path, weights):
    rng = np.random.default_rng(7)
    for k in range(6):
        text, nnz = random_file(rng, "integer" if k % 2 else "real", "symmetric" if k % 3 else
                                "general")
        text = text.replace(" -", " ")  # non-negative values (weights="values")
        p = tmp_path / f"w{k}.mtx"
        p.write_text(text)
        A = scipy_csr(p)
        if nnz < 4 or min(A.shape) < 2:
            continue
        for fn in (ws.rect_nicol, ws.rect_uniform, ws.jag_m_heur):
            a = fn(p, 4, weights=weights)
            b = fn(A, 4, weights=weights)
            assert a.max_load == b.max_load and np.array_equal(a.rects, b.rects), (k, fn)
            assert np.array_equal(a.loads, b.loads)


def test_negative_values_name_the_file(tmp_path):
    p = tmp_path / "neg.mtx"
    p.write_text("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 -2\n2 2 1\n3 3 1\n")
    assert _mmfast.read_fast(str(p), lambda *a: None) is not None  # (the fast path reads it)
    with pytest.raises(wpart.WpartValueError, match="neg.mtx.*weights="):
        ws.rect_nicol(p, 4, P=2, Q=2)
    r = ws.rect_nicol(p, 4, P=2, Q=2, weights="count")
    assert r.max_load == 1 and r.total == 3


@pytest.mark.parametrize("field", ["pattern", "integer", "real"])
def test_a_cell_stored_twice_counts_twice_for_stored(tmp_path, field):
    """weights="stored" counts every stored entry, a cell stored twice twice, for every field
    (a pattern file's int64 conversion summed them before); "count" counts the cell once, and
    "values" sums (a pattern entry weighs 1). Oracle: the lines of the file."""
    v = "" if field == "pattern" else " 2"
    p = tmp_path / "dup.mtx"
    p.write_text(f"%%MatrixMarket matrix coordinate {field} general\n3 3 4\n"
                 f"1 1{v}\n1 1{v}\n2 3{v}\n3 3{v}\n")
    w = 1 if field == "pattern" else 2
    for weights, total in (("stored", 4), ("count", 3), ("values", 4 * w)):
        for fn in (ws.rect_nicol, ws.rect_uniform, ws.jag_m_heur):
            assert fn(p, 1, weights=weights).total == total, (weights, fn)
        assert ws.rect_nicol(p, 4, P=2, Q=2, weights=weights).loads.sum() == total


def _oracle(data: bytes, h) -> tuple | None:
    """An independent reading of a body the fast path took: Python's int / float on the split
    lines, the mirrors appended, sorted by (row, column)."""
    field, sym, n1, n2, nnz, off = h
    lines = data[off:].decode("ascii").splitlines()
    ents = []
    for ln in lines[:nnz]:
        t = ln.split()
        i, j = int(t[0]) - 1, int(t[1]) - 1
        v = 1 if field == "pattern" else int(t[2]) if field == "integer" else float(t[2])
        ents.append((i, j, v))
        if sym != "general" and i != j:
            ents.append((j, i, -v if sym == "skew-symmetric" else v))
    ents.sort(key=lambda e: (e[0], e[1]))
    return ents


def test_fuzzed_bodies_parse_exactly_or_decline():
    # random byte edits of valid files: the core either declines (None) or returns exactly what
    # an independent reading of the lines gives, a valid canonical CSR; never a crash
    rng = np.random.default_rng(11)
    alphabet = b"0123456789 \t\r\n.-+eE%xn"
    took = 0
    for k in range(600):
        field, sym = CASES[k % len(CASES)]
        text, nnz = random_file(rng, field, sym, crlf=k % 2 == 1)
        data = bytearray(text.encode())
        h0 = _mmfast.header(bytes(data))
        for _ in range(int(rng.integers(1, 4))):  # edits in the body only
            p = int(rng.integers(h0[5], len(data) + 1)) if len(data) > h0[5] else h0[5]
            op = rng.integers(3)
            if op == 0 and p < len(data):
                del data[p]
            elif op == 1:
                data.insert(p, alphabet[int(rng.integers(len(alphabet)))])
            elif p < len(data):
                data[p] = alphabet[int(rng.integers(len(alphabet)))]
        data = bytes(data)
        h = _mmfast.header(data)
        if h is None or h[4] < 1:
            continue
        fld, sy = _mmfast._FIELD[h[0]], _mmfast._SYM[h[1]]
        for exact in (True, False):
            out = _core.spatial_mm_csr(data, h[5], h[2], h[3], h[4], fld, sy, exact)
            if out is None:
                continue
            took += 1
            rp, ci, vals = out
            assert rp[0] == 0 and rp[-1] == ci.size == vals.size
            assert np.all(np.diff(rp) >= 0) and np.all((ci >= 0) & (ci < h[3]))
            want = _oracle(data, h)
            rows = np.repeat(np.arange(h[2]), np.diff(rp))
            assert [(int(i), int(j)) for i, j, _ in want] == list(zip(rows.tolist(), ci.tolist()))
            v = [w for _, _, w in want]
            if fld == 0 and not exact:
                v = [int(w != 0) for w in v]
            assert vals.tolist() == v
    assert took > 200


_CUTS = r'''
import sys
import wpart
import wpart.spatial as ws
src, d = sys.argv[1], sys.argv[2]
text = open(src, "rb").read()
ok = bad = 0
for k in range(len(text) - 120, len(text) + 1):  # every cut in the last entries
    p = f"{d}/cut{k}.mtx"
    open(p, "wb").write(text[:k])
    try:
        ws.read_matrix(p)
        ok += 1
    except wpart.WpartError as exc:
        assert "cut" in str(exc), exc  # names the file
        bad += 1
for tail in (b" ", b"\t", b"E", b"E-", b"e+", b"x", b" junk"):  # after the last number
    p = f"{d}/tail.mtx"
    open(p, "wb").write(text.rstrip(b"\n") + tail)
    try:
        ws.read_matrix(p)
        ok += 1
    except wpart.WpartError:
        bad += 1
print(ok, bad)
'''


def test_truncated_or_unterminated_files_raise_never_crash(tmp_path):
    """A file cut anywhere in its last entries, or whose last line has no line end and
    something after its last number, reads or raises a WpartError naming it: scipy's reader
    (which the fast path hands such files to) dies of a segmentation fault on a last line
    without a line end that ends in a cut exponent (``8.83E`` of ``8.83E-6``) or a blank. In
    a child process, so that a crash fails this test and not the run."""
    import subprocess
    import sys

    import scipy.sparse

    A = scipy.sparse.random(30, 30, density=0.2, random_state=1) * 1e-5
    src = tmp_path / "full.mtx"
    scipy.io.mmwrite(src, A)
    assert b"E-" in src.read_bytes()
    out = subprocess.run([sys.executable, "-c", _CUTS, str(src), str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    ok, bad = map(int, out.stdout.split())
    assert ok > 0 and bad > 0


#: entry lines at the edges of the core's unchecked parse (taken where 256 bytes follow a line's
#: start) and of its checked one: blanks past 8 in a row, exponents of 3 and 4 digits and past
#: +-280, 18- and 19-digit numbers, long significands, signs, glued or missing tokens
EDGE_LINES = {
    "real": ["1 1 1e280", "1 1 1e281", "1 1 1e-280", "1 1 0e999", "1 1 1e0280", "1 1 5E+07",
             "1 1 -0.000e-5", "1 1 " + "0" * 62 + "1", "1 1 " + "0" * 63 + "1",
             "1 1 ." + "0" * 60 + "7", "1 1 -" + "9" * 62, "1 1 1.", "1 1 .", "1 1 -",
             "1 1 1e", "1 1 1e+", "1 1 1e+-5", "1 1 1..2", "1 1 +2", "1 1 2x",
             "1" + " " * 8 + "1 3", "1" + " " * 9 + "1 3", " " * 8 + "1 1 3", " " * 9 + "1 1 3",
             "1 1" + "\t" * 9 + "3", "1 1 3" + " " * 9, "1 1 3\r", "000000000000000001 1 2",
             "0000000000000000001 1 2", "1 1", "1 1 2 3", "1 1\t-0"],
    "integer": ["1 1 " + "9" * 18, "1 1 -" + "9" * 18, "1 1 " + "9" * 19, "1 1 9223372036854775807",
                "1 1 -9223372036854775808", "1 1 9223372036854775808", "1 1 -0", "1 1 1.0",
                "1 1 +3", "1 1 3 ", "1 1 " + "0" * 18 + "5", "1 1", "1" + " " * 9 + "1 2"],
    "pattern": ["1 1", "1 1 ", "1 1 5", "1 1" + " " * 9, " " * 9 + "1 1", "1 1\r",
                "00000000000000001 1", "2 2"],
}


@pytest.mark.parametrize("field", sorted(EDGE_LINES))
def test_unchecked_line_parse_equals_the_checked_one(field):
    # the same line parsed where 256 bytes follow it (first: the unchecked parse, which may
    # give up) and as the last line (the checked parse): the same acceptance and values
    pad = [f"{k + 2} {k + 2}" + ("" if field == "pattern" else " 1") for k in range(40)]
    head = f"%%MatrixMarket matrix coordinate {field} general\n42 42 41\n"
    took = 0
    for line in EDGE_LINES[field]:
        for nl in ("\n", "\r\n"):
            first = (head + nl.join([line] + pad) + nl).encode()
            last = (head + nl.join(pad + [line]) + nl).encode()
            h = _mmfast.header(first)
            for exact in (True, False):
                a, b = (_core.spatial_mm_csr(d, h[5], 42, 42, 41, _mmfast._FIELD[field], 0,
                                             exact) for d in (first, last))
                assert (a is None) == (b is None), (line, nl, exact)
                took += a is not None
                if a is not None:
                    for x, y in zip(a, b):
                        assert x.dtype == y.dtype and np.array_equal(x, y), (line, exact)
    assert took >= 20  # (half the lines or more are in the syntax)


def test_digit_runs_parse_as_the_checked_parse():
    # real values whose digit runs cross the unchecked parse's eight-byte steps: runs of 0-70
    # digits (the token's 63-character cap inside them), a nonzero digit at any place or none,
    # a '.' anywhere, and a byte just outside '0'-'9' (':' ... '?', '/', '@') in or after a run:
    # the unchecked parse (where 256 bytes follow) and the checked one (the last line) accept
    # the same lines with the same values, and an accepted value is nonzero as float() reads it
    rng = np.random.default_rng(7)
    head = "%%MatrixMarket matrix coordinate real general\n42 42 41\n"
    pad = [f"{k + 2} {k + 2} 1" for k in range(40)]
    took = refused = 0
    for _ in range(600):
        n = int(rng.integers(0, 71))
        digits = ["0"] * n
        if n and rng.random() < 0.6:
            digits[int(rng.integers(n))] = str(int(rng.integers(1, 10)))
        if rng.random() < 0.5:
            digits.insert(int(rng.integers(n + 1)), ".")
        if rng.random() < 0.3:
            digits.insert(int(rng.integers(len(digits) + 1)), chr(rng.choice(list(b":;<=>?/@"))))
        tok = ("-" if rng.random() < 0.2 else "") + "".join(digits)
        line = f"1 1 {tok}"
        first = (head + "\n".join([line] + pad) + "\n").encode()
        last = (head + "\n".join(pad + [line]) + "\n").encode()
        h = _mmfast.header(first)
        a, b = (_core.spatial_mm_csr(d, h[5], 42, 42, 41, _mmfast._FIELD["real"], 0, False)
                for d in (first, last))
        assert (a is None) == (b is None), tok
        if a is None:
            refused += 1
            continue
        took += 1
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and np.array_equal(x, y), tok
        assert a[2][0] == int(float(tok) != 0.0), tok  # (row 0's entry is the line's)
    assert took > 200 and refused > 100


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fast_path_turns_away_what_is_not_a_regular_file(tmp_path):
    # a FIFO with no writer (its open would wait), a folder and a missing path: the fast path
    # answers None at once, and the general reader names the fault
    fifo = tmp_path / "pipe.mtx"
    os.mkfifo(fifo)
    for p in (fifo, tmp_path, tmp_path / "missing.mtx"):
        assert _mmfast.read_fast(str(p), lambda *a: None) is None
        assert _sparse.fast_path_matrix(p, "stored") is None
    with pytest.raises(wpart.WpartError, match="directory"):
        ws.read_matrix(tmp_path)


def test_coo_conversion_is_scipys_canonical_csr(monkeypatch):
    # the core's COO -> CSR (the one-call default's route for scipy.io.mmread's COO matrices)
    # against scipy's conversion: entries in no, row or column order, int32 / int64 indices,
    # explicit zeros, cells stored twice. Values kept: the same arrays, bit for bit and type for
    # type, or None where a cell is stored twice (scipy sums floats in an order of its own);
    # weights="stored" (no values): the count of entries in each cell, as stored_counts gives
    import scipy.sparse as sps

    rng = np.random.default_rng(5)
    took = 0
    for k in range(600):
        n1, n2 = (int(x) for x in rng.integers(1, 40, 2))
        m = int(rng.integers(0, 200))
        row, col = rng.integers(0, n1, m), rng.integers(0, n2, m)
        if k % 3:  # each cell once, in row or column order (a file's), or shuffled
            cells = sorted(set(zip(row.tolist(), col.tolist())),
                           key=(lambda c: (c[1], c[0])) if k % 3 == 1 else None)
            if k % 6 == 5:
                rng.shuffle(cells)
            row = np.array([c[0] for c in cells], dtype=np.int64).reshape(-1)
            col = np.array([c[1] for c in cells], dtype=np.int64).reshape(-1)
            m = len(cells)
        it = (np.int32, np.int64)[k % 2]
        row, col = row.astype(it), col.astype(it)
        data = rng.integers(-2, 3, m).astype((np.float64, np.int64)[(k // 2) % 2])
        A = sps.coo_array((data, (row, col)), shape=(n1, n2))
        got = _core.spatial_coo_csr(n1, n2, row, col, None)
        ref = _sparse.stored_counts(A)
        assert got is not None and got[2].dtype == np.int64
        assert all(np.array_equal(x, y) for x, y in zip(got, (ref.indptr, ref.indices,
                                                               ref.data))), k
        got = _core.spatial_coo_csr(n1, n2, row, col, data)
        if len(set(zip(row.tolist(), col.tolist()))) < m:
            assert got is None
            continue
        took += 1
        c = A.tocsr().copy()
        c.sum_duplicates()
        assert got[2].dtype == data.dtype
        assert np.array_equal(got[0], c.indptr) and np.array_equal(got[1], c.indices)
        assert np.array_equal(got[2].view(np.uint8), c.data.view(np.uint8)), k
    assert took > 300
    for r, c in (([0, 3], [0, 0]), ([0, -1], [0, 0]), ([0, 0], [0, 3])):  # out of the shape
        assert _core.spatial_coo_csr(3, 3, np.array(r), np.array(c), None) is None
    # rect_nicol on mmread's COO matrix, or a CSC matrix, converts it there, and gives what
    # its CSR matrix gives
    calls = []
    real = _core.spatial_coo_csr
    monkeypatch.setattr(_core, "spatial_coo_csr", lambda *a: calls.append(1) or real(*a))
    A = sps.coo_matrix(sps.random(60, 50, density=0.1, random_state=3, format="coo"))
    for X in (A, A.tocsc(), sps.csc_array(A)):
        for weights in ("stored", "count", "values"):
            r, ref = (ws.rect_nicol(Y, 12, P=3, Q=4, weights=weights) for Y in (X, A.tocsr()))
            assert r.max_load == ref.max_load and np.array_equal(r.rects, ref.rects)
            _same_csr(r.A, ref.A)
    assert len(calls) == 9
    # a CSC matrix whose pointers fall: the general path's error, nothing converted
    B = sps.csc_array(A)
    B.indptr[5] = B.indptr[6] + 1
    with pytest.raises(wpart.WpartValueError, match="malformed CSC"):
        ws.rect_nicol(B, 12, P=3, Q=4, weights="stored")
    assert len(calls) == 9


def _same_csr(A, B):
    if isinstance(A, np.ndarray) or isinstance(B, np.ndarray):  # (fractional values: dense)
        assert isinstance(A, np.ndarray) and isinstance(B, np.ndarray)
        assert A.dtype == B.dtype and np.array_equal(A, B)
        return
    A, B = A.tocsr(), B.tocsr()
    assert A.shape == B.shape and A.data.dtype == B.data.dtype
    for x, y in ((A.indptr, B.indptr), (A.indices, B.indices), (A.data, B.data)):
        assert np.array_equal(x, y)


class _Counting:
    """The core module with its MatrixMarket parse counted (the cache's misses)."""

    def __init__(self):
        self.parses = 0

    def __getattr__(self, name):
        return getattr(_core, name)

    def spatial_mm_csr(self, *args):
        self.parses += 1
        return _core.spatial_mm_csr(*args)


def test_a_file_read_again_is_parsed_once_and_a_changed_one_again(tmp_path, monkeypatch):
    """read_fast keeps the files it parsed: the same bytes are not parsed again (the same
    matrix as scipy's reader), changed bytes are, even at the same size and time stamps; only
    copies of the kept arrays leave the cache, or its read-only arrays with ``share``."""
    core = _Counting()
    monkeypatch.setattr(_mmfast, "_core", core)
    _mmfast.cache_clear()
    p = tmp_path / "c.mtx"
    p.write_text("%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 1 5\n2 3 7\n"
                 "3 2 0\n")
    st = os.stat(p)
    for k in range(3):
        A = ws.read_matrix(p)
        same(A, scipy_csr(p))
        assert core.parses == 1, k
    A.data[:] = 99  # (a copy: the next read is the file's)
    same(ws.read_matrix(p), scipy_csr(p))
    S = _mmfast.read_fast(str(p), lambda *a: None, share=True)[0]
    assert not S.data.flags.writeable and not S.indices.flags.writeable
    with pytest.raises(ValueError):
        S.data[0] = 1
    assert core.parses == 1
    p.write_text("%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 1 6\n2 3 7\n"
                 "3 2 0\n")  # the same size, one value changed, its time stamps put back
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(p).st_size == st.st_size
    same(ws.read_matrix(p), scipy_csr(p))
    assert ws.read_matrix(p).data[0] == 6 and core.parses == 2
    r = ws.rect_nicol(p, 2, P=2, Q=1, weights="values")  # (the shared arrays: the new values)
    assert r.total == 13 and core.parses == 2
    assert ws.rect_nicol(p, 2, P=2, Q=1, weights="count").total == 2  # (exact=False: parsed)
    assert core.parses == 3


def test_the_cache_keeps_the_last_files_only(tmp_path, monkeypatch):
    core = _Counting()
    monkeypatch.setattr(_mmfast, "_core", core)
    monkeypatch.setattr(_mmfast, "CACHE_FILES", 2)
    _mmfast.cache_clear()
    paths = []
    for k in range(3):
        paths.append(tmp_path / f"f{k}.mtx")
        paths[-1].write_text(f"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n"
                             f"{k % 2 + 1} 1\n")
        ws.read_matrix(paths[-1])
    assert core.parses == 3 and len(_mmfast._CACHE) == 2
    ws.read_matrix(paths[2])
    ws.read_matrix(paths[1])
    assert core.parses == 3
    same(ws.read_matrix(paths[0]), scipy_csr(paths[0]))  # (the oldest, forgotten)
    assert core.parses == 4
    monkeypatch.setattr(_mmfast, "CACHE_MAX_BYTES", 8)  # (a file above it is not kept)
    _mmfast.cache_clear()
    ws.read_matrix(paths[0])
    ws.read_matrix(paths[0])
    assert core.parses == 6 and not _mmfast._CACHE
    _mmfast.cache_clear()


@pytest.mark.parametrize("head", [48, 160])
def test_a_file_above_the_whole_read_size_reads_the_same(tmp_path, monkeypatch, head):
    """A file larger than _WHOLE_BYTES is read in two steps (its first _HEAD_BYTES, then the
    whole file; a header longer than that read on to the end): scipy's reader's matrix."""
    monkeypatch.setattr(_mmfast, "_WHOLE_BYTES", 16)
    monkeypatch.setattr(_mmfast, "_HEAD_BYTES", head)
    core = _Counting()
    monkeypatch.setattr(_mmfast, "_core", core)
    _mmfast.cache_clear()
    rng = np.random.default_rng(head)
    for k in range(8):
        text, nnz = random_file(rng, "integer", "general", comments=k % 3)
        p = tmp_path / f"big{k}.mtx"
        p.write_text(text)
        assert os.path.getsize(p) > 16
        same(ws.read_matrix(p), scipy_csr(p))
        if nnz:
            parses = core.parses
            assert _mmfast.read_fast(str(p), lambda *a: None) is not None
            assert core.parses == parses  # (kept: read in two steps, not parsed again)
    _mmfast.cache_clear()


def test_the_cache_under_threads_gives_each_file_its_matrix(tmp_path, monkeypatch):
    """Threads reading two files through a cache of one (each read evicting the other's) get
    each file's own matrix every time."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(_mmfast, "CACHE_FILES", 1)
    _mmfast.cache_clear()
    rng = np.random.default_rng(5)
    paths, want = [], []
    for k in range(2):
        text, _ = random_file(rng, "integer", "general")
        paths.append(str(tmp_path / f"t{k}.mtx"))
        with open(paths[-1], "w") as f:
            f.write(text)
        want.append(scipy_csr(paths[-1]))

    def read(i):
        k = i % 2
        got = _mmfast.read_fast(paths[k], lambda *a: None, share=i % 3 == 0)
        same(got[0], want[k])
        return True

    with ThreadPoolExecutor(4) as ex:
        assert all(ex.map(read, range(400)))
    assert len(_mmfast._CACHE) <= 1
    _mmfast.cache_clear()
