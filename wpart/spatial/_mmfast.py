"""The fast path of the MatrixMarket reader: a plain (uncompressed) coordinate file whose header
and entry lines are in the strict syntax that the core parses (``_core.spatial_mm_csr``,
csrc/spatial/mm_read.c) becomes its canonical CSR matrix in one pass, without scipy's reader
and its COO to CSR conversion: the same matrix that path gives (checked entry for entry by
tests/test_spatial_mmfast.py), about 10 x faster on pattern files and faster on real ones when
the weights count entries (the ``mtx`` rows of benchmarks/bench_files.py).
Anything else (compressed files, ``array`` or ``complex`` / ``hermitian`` files, comments or
blank lines among the entries, a cell stored twice, nan / inf values, a control byte such as
NUL anywhere, a symmetric header of a non-square size ...) returns None, and the general reader
(wpart.spatial._sparse: its checks, then scipy's reader) reads the file and reports its errors
as before."""

from __future__ import annotations

import os
import re
import stat
from collections import OrderedDict
from typing import Any

from .. import _core

#: The header the fast path takes: the banner (keywords in lower case, as MatrixMarket
#: writers put them) ...
_BANNER = re.compile(
    rb"%%MatrixMarket[ \t]+matrix[ \t]+coordinate[ \t]+(real|integer|pattern)[ \t]+"
    rb"(general|symmetric|skew-symmetric)[ \t]*\r?\n"
)
#: ... comment lines (the size line starts after the first line feed not followed by '%') ...
_AFTER_COMMENTS = re.compile(rb"\n(?!%)")
#: ... then the size line.
_SIZE = re.compile(rb"[ \t]*([0-9]{1,18})[ \t]+([0-9]{1,18})[ \t]+([0-9]{1,18})[ \t]*\r?\n")

#: The bytes that no MatrixMarket text holds: the C0 control characters other than tab, line
#: feed and carriage return, and DEL. scipy's reader misreads them (``1 1 1\x01`` reads as 1)
#: or dies of a segmentation fault (a NUL after a line's last number, scipy 1.12 - 1.17).
CONTROL_BYTES = bytes(range(0, 9)) + b"\x0b\x0c" + bytes(range(14, 32)) + b"\x7f"
#: Every other byte: ``data.translate(None, NOT_CONTROL)`` leaves the control bytes of `data`.
NOT_CONTROL = bytes(b for b in range(256) if b not in CONTROL_BYTES)


def bad_byte(data: bytes) -> int:
    """The offset of the first control byte (CONTROL_BYTES) or lone carriage return (one not
    followed by a line feed) in `data`, -1 when there is none."""
    left = data.translate(None, NOT_CONTROL)
    k = data.find(left[:1]) if left else -1
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        at = 0
        while True:
            at = data.find(b"\r", at)
            if at < 0 or data[at + 1:at + 2] != b"\n":
                break
            at += 1
        if at >= 0 and (k < 0 or at < k):
            k = at
    return k


_FIELD = {"real": 0, "integer": 1, "pattern": 2}
_SYM = {"general": 0, "symmetric": 1, "skew-symmetric": 2}

#: Files above this size, or with more entries (both triangles of a symmetric file), go to the
#: general reader: it streams them, where the fast path holds the bytes, and needs fewer bytes
#: per entry (its overhead, what the fast path saves, is small beside such files' reading).
FAST_MAX_BYTES = 1 << 28
FAST_MAX_ENTRIES = 1 << 23
#: A real file's exact values (``weights="values"``, read_matrix) above this many entries go to
#: the general reader too: the core converts decimals with strtod (about 150 ns for a
#: 17-digit value), scipy's reader in several threads (bench_files.py: 0.65 x at 10^4 entries,
#: 2.8 x at 10^3); weights that count entries need no conversion.
FAST_REAL_EXACT_MAX = 4096
#: The bytes read first for the header of a larger file: one the fast path does not take is not
#: read whole.
_HEAD_BYTES = 1 << 16
#: A file of up to this many bytes is read whole at once.
_WHOLE_BYTES = 1 << 20

#: The files parsed last, kept so that a file read again with the same bytes (a sweep of grids
#: or part counts over one file, ``rect_nicol(path, ...)`` per grid) is not parsed again: at
#: most CACHE_FILES of them, each of at most CACHE_MAX_BYTES, keyed by (path, exact) and
#: taken only when the file's bytes, read anew at every call, equal the parsed ones (a changed
#: file, whatever its size or time stamps, is parsed again). The parse is most of the reading:
#: 0.8 ms of a 1.0 ms read of a 618 kB file of 27,836 entries, against 20 us to compare the
#: bytes. A matrix returned holds copies of the kept arrays, or with ``share=True`` (rect_nicol's
#: one-call default, which only reads them) the kept arrays themselves, read-only.
CACHE_FILES = 4
CACHE_MAX_BYTES = 1 << 24
#: (No lock: each step below is one call on the dict, whole under the GIL, and a step that
#: finds another thread's change in its way is skipped; a lock held across a fork would block
#: the child.)
_CACHE: OrderedDict = OrderedDict()


def cache_clear() -> None:
    """Forget the parsed files that :func:`read_fast` keeps (their memory freed once no
    returned matrix holds their arrays)."""
    _CACHE.clear()


def _cached(key: tuple, data: bytes) -> tuple | None:
    """The (shape, arrays, field, header) parsed from the same bytes as `data` under `key`, or
    None."""
    got = _CACHE.get(key)
    if got is None or got[0] != data:
        return None
    try:
        _CACHE.move_to_end(key)
    except KeyError:  # (forgotten meanwhile by another thread)
        pass
    return got[1]


def _keep(key: tuple, data: bytes, parsed: tuple) -> None:
    """Keep `parsed` (shape, arrays, field, header) for the bytes `data` under `key`, its arrays
    made read-only (what leaves the cache is a copy of them, or with ``share`` read-only)."""
    if len(data) > CACHE_MAX_BYTES or CACHE_FILES < 1:
        return
    for a in parsed[1]:
        a.setflags(write=False)
    _CACHE[key] = (data, parsed)
    try:
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_FILES:
            _CACHE.popitem(last=False)
    except KeyError:  # (another thread's change: the cache stays a valid one)
        pass


def header(data: bytes) -> tuple[str, str, int, int, int, int] | None:
    """(field, symmetry, n1, n2, entries, offset of the first entry line) of a header in the
    fast path's syntax (no control byte in it: see CONTROL_BYTES), else None."""
    m = _BANNER.match(data)
    if m is None:
        return None
    pos = m.end()
    if data.startswith(b"%", pos):  # comment lines
        c = _AFTER_COMMENTS.search(data, pos)
        if c is None:
            return None
        pos = c.end()
    s = _SIZE.match(data, pos)
    if s is None:
        return None
    if bad_byte(data[:s.end()]) >= 0:  # (a comment's NUL: the general reader refuses it)
        return None
    n1, n2, nnz = (int(v) for v in s.groups())
    return m.group(1).decode(), m.group(2).decode(), n1, n2, nnz, s.end()


def _takes(h: tuple, exact: bool) -> bool:
    """Whether the fast path reads a file of header `h` (see FAST_MAX_ENTRIES etc.)."""
    field, sym, n1, n2, nnz, _ = h
    cap = nnz if sym == "general" else 2 * nnz
    return n1 >= 1 and n2 >= 1 and nnz >= 1 and cap <= FAST_MAX_ENTRIES and \
        (sym == "general" or n1 == n2) and \
        (field != "real" or not exact or cap <= FAST_REAL_EXACT_MAX)


def _read_to(fd: int, limit: int | None, size: int = 0) -> bytes:
    """The bytes of `fd` from its offset: `limit` of them (fewer at the end of the file), or
    all to the end of the file (None; `size`: the length expected, read in one call)."""
    parts, got = [], 0
    while limit is None or got < limit:
        b = os.read(fd, limit - got if limit is not None else max(size - got, 1 << 16))
        if not b:
            break
        parts.append(b)
        got += len(b)
    return parts[0] if len(parts) == 1 else b"".join(parts)  # (b"": none)


def read_fast(path: str, check: Any, exact: bool = True,
              share: bool = False) -> tuple[Any, str] | None:
    """(canonical ``scipy.sparse.csr_array``, field) of the coordinate file at `path` read by
    the core, or None where it is not in the fast path's syntax. ``check(n1, n2, entries)``
    runs on the header's sizes before anything of that size is allocated (it raises). Not
    `exact`: a real file's values come as int64 ``value != 0`` (all that ``weights="stored"``
    and ``"count"`` read of them; no decimal conversion). A file parsed before with the same
    bytes is not parsed again (CACHE_FILES); `share`: the matrix holds the kept, read-only
    arrays rather than copies."""
    if path.endswith((".gz", ".bz2")):
        return None
    key, got = (path, bool(exact)), None
    try:
        # (non-blocking: a FIFO's open does not wait for a writer; fstat then turns it away)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) |
                     getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None  # (the general reader reports it)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > FAST_MAX_BYTES:
            return None  # (not a regular file: the general reader reports it)
        # (a file of up to _WHOLE_BYTES in one read: the bytes that fstat counted)
        whole = st.st_size <= _WHOLE_BYTES
        data = _read_to(fd, st.st_size if whole else _HEAD_BYTES)
        more = not whole and len(data) == _HEAD_BYTES
        got = None if more else _cached(key, data)  # (a file parsed before: its header kept)
        h = got[3] if got else header(data)
        if h is None and more:  # (a header longer than that)
            data += _read_to(fd, None)
            h, more = header(data), False
        if h is None or not _takes(h, exact):
            return None
        check(h[2], h[3], h[4])
        if more:  # the rest: one read into a buffer of the whole file
            os.lseek(fd, 0, os.SEEK_SET)  # (a concatenation copies it to fresh pages)
            data = _read_to(fd, None, st.st_size)
    except OSError:
        return None  # (the general reader reports it)
    finally:
        os.close(fd)
    from ._sparse import csr_new  # (it imports this module)

    if got is None:  # (a file read in two steps)
        got = _cached(key, data)
    if got is None:
        field, sym, n1, n2, nnz, off = h
        out = _core.spatial_mm_csr(data, off, n1, n2, nnz, _FIELD[field], _SYM[sym], exact)
        if out is None:
            return None
        got = ((n1, n2), tuple(out), field, h)
        _keep(key, data, got)
    shape, arrays, field, _ = got
    return csr_new(shape, *(arrays if share else (a.copy() for a in arrays))), field

