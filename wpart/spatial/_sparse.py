"""Sparse inputs of the spatial methods: ``scipy.sparse`` matrices (every format, sparray and
spmatrix) and MatrixMarket files, the ``weights`` rule (values or nonzero counts), the densify
guard of the methods that need the dense prefix, and the loads of a partition read from the
nonzeros."""

from __future__ import annotations

import os
import re
import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._errors import (
    WpartFileNotFoundError,
    WpartMemoryError,
    WpartOverflowError,
    WpartTypeError,
    WpartValueError,
)
from .._interrupt import run_interruptibly
from .._validate import as_loads, check_sparse_arrays, choice, memory_budget, sparse_converted
from ._mmfast import NOT_CONTROL, bad_byte, read_fast

__all__ = ["MAX_DENSE_BYTES", "read_matrix"]

#: The largest dense copy (matrix plus its prefix sum, in bytes) that a method needing the dense
#: 2D prefix may build from a sparse input; above it the call raises ``WpartMemoryError``.
#: Set ``wpart.spatial.MAX_DENSE_BYTES`` to change it.
MAX_DENSE_BYTES = 2**31

#: The methods that run on the nonzeros of a sparse matrix (the rest densify).
SPARSE_NATIVE = ("rect_uniform", "rect_nicol", "jag_pq_heur", "jag_pq_opt_nicol",
                 "jag_pq_opt_dp", "jag_m_heur", "jag_m_heur_probe", "jag_m_probe",
                 "jag_m_alloc", "jag_m_opt")

#: Those methods run on the nonzeros when at most one cell in SPARSE_DENSITY is nonzero (or the
#: dense copy would not fit), on the dense prefix otherwise (faster there; same partition).
SPARSE_DENSITY = 32

#: ... and when the matrix has more than SPARSE_MIN_CELLS cells: a smaller one runs on its dense
#: prefix (up to about 180 x 180 the dense copy and prefix cost less than the nonzero route's
#: fixed costs -- its transpose and per-start checks -- and above it they cost more, measured
#: in benchmarks/bench_spatial.py's conditions). Like the density rule it reads the same for A
#: and A.toarray(), so both give one partition.
SPARSE_MIN_CELLS = 2**15

_WEIGHTS = ("values", "count", "stored")

#: Bytes per stored entry and per row / column that a sparse input costs before the core runs:
#: the COO / CSR copies made while reading and canonicalising it (three int64-or-float64
#: arrays, twice) and the row pointers and column arrays (several int64 per row and column in
#: the readers and the methods' scratch). Used to refuse a declared shape or entry count that
#: cannot fit before anything of that size is allocated.
_BYTES_PER_ENTRY = 48
_BYTES_PER_LINE = 48


def check_sparse_size(n1: int, n2: int, entries: int, name: str = "A",
                      where: str = "") -> None:
    """Refuse, before any allocation, a sparse input of shape ``n1 x n2`` with `entries`
    stored entries whose reading and row / column arrays would not fit in
    :func:`memory_budget` (``WpartMemoryError`` naming `name` and, for a file, `where`)."""
    need = _BYTES_PER_LINE * (int(n1) + int(n2) + 2) + _BYTES_PER_ENTRY * int(entries)
    if need <= 1 << 26:  # (below 64 MiB no process that runs Python can fail it)
        return
    budget = memory_budget()
    if need > budget:
        raise WpartMemoryError(
            f"`{name}`{where} is a {n1} x {n2} sparse matrix with {entries} stored entries: "
            f"its row and column arrays alone need about {need / 2**30:.3g} GiB, more than the "
            f"{budget / 2**30:.3g} GiB available (physical memory or RLIMIT_AS); nothing was "
            "allocated"
        )


def _sp() -> Any:
    import scipy.sparse

    return scipy.sparse


#: (maxprint, the class) of the csr_array that _csr_with makes without the constructor, ()
#: when scipy's csr_array keeps other state than these attributes (the constructor then
#: runs); None: not yet checked.
_CSR_NEW: tuple | None = None
_CSR_STATE = {"_shape", "maxprint", "indptr", "indices", "data", "_has_canonical_format",
              "_has_sorted_indices"}


def csr_new(shape: tuple, rp: NDArray, ci: NDArray, vals: NDArray, like: Any = None) -> Any:
    """The canonical ``scipy.sparse.csr_array`` of `shape` holding `rp`, `ci` and `vals`
    (int64 pointers and indices, canonical: each row's columns strictly ascending) as they
    are: what ``csr_array((vals, ci, rp), shape=shape)`` with ``has_canonical_format`` set
    gives, without the constructor's format checks and scans (4.5 us of rect_nicol's 40 us
    default call on 1,000 entries; 16 us of reading a 1,800-entry MatrixMarket file). Where
    scipy's csr_array holds other state, its constructor runs (on `like`, a matrix of that
    shape, when given), the arrays then replaced."""
    global _CSR_NEW
    if _CSR_NEW is None:  # the constructor's object, once: its state must be these fields
        cls = _sp().csr_array
        ref = cls(cls((1, 1)), copy=False)
        ref.has_canonical_format = True
        state = getattr(ref, "__dict__", {})
        _CSR_NEW = (state["maxprint"], cls) if set(state) == _CSR_STATE else ()
    cls = _CSR_NEW[1] if _CSR_NEW else _sp().csr_array
    if not _CSR_NEW:
        B = cls((vals, ci, rp), shape=shape, copy=False) if like is None else \
            cls(like, copy=False)
        B.indptr, B.indices, B.data = rp, ci, vals  # (as given: no narrower index type)
        B.has_canonical_format = True
        return B
    B = cls.__new__(cls)
    B.__dict__.update(_shape=(int(shape[0]), int(shape[1])), maxprint=_CSR_NEW[0], indptr=rp,
                      indices=ci, data=vals, _has_canonical_format=True,
                      _has_sorted_indices=True)
    return B


def _csr_with(A: Any, rp: NDArray, ci: NDArray, vals: NDArray) -> Any:
    """:func:`csr_new` of A's shape (A's own arrays are not read)."""
    return csr_new(A.shape, rp, ci, vals, A)


def stored_counts(A: Any, name: str = "A") -> Any:
    """The canonical ``csr_array`` of the stored entries per cell of the ``scipy.sparse``
    matrix `A` (int64: every stored entry counts 1, explicit zeros and each duplicate
    included): the loads of ``weights="stored"``."""
    c = sparse_converted(A, "coo", name)
    c = _sp().csr_array((np.ones(c.nnz, dtype=np.int64), (c.row, c.col)), shape=A.shape)
    c.sum_duplicates()
    return c


def is_sparse(A: Any) -> bool:
    """Whether `A` is a ``scipy.sparse`` matrix or array (scipy imported only if it is)."""
    mod = type(A).__module__
    return mod.startswith("scipy.sparse") and _sp().issparse(A)


def as_weights(weights: Any) -> str:
    """``"values"`` (loads are the matrix values), ``"count"`` (1 per nonzero value) or
    ``"stored"`` (1 per stored entry, explicit zeros and duplicates included)."""
    return choice(weights, "weights", _WEIGHTS)


#: What a negative value suggests: the entries are counted, not summed.
_NEG_HINT = ("; loads must be >= 0: pass weights='stored' (1 per stored entry) or "
             "weights='count' (1 per nonzero value) to count entries instead")


def _where(path: str | None) -> str:
    return f" (file {path!r})" if path else ""


def _read_fast(p: str, name: str, exact: bool, share: bool = False) -> tuple[Any, str] | None:
    """read_fast on the file `p`, its declared size checked as the general reader checks it."""
    return read_fast(p, lambda n1, n2, nnz: check_sparse_size(n1, n2, nnz, name, _where(p)),
                     exact, share)


def fast_path_matrix(A: str | os.PathLike, weights: str) -> Any:
    """The canonical CSR matrix of the MatrixMarket file at path `A` read by the core's fast
    path (values exact only for ``weights="values"``), or None (not a file, or not in the fast
    path's syntax: the general path reads it and reports; its arrays read-only, those of the
    file's parse that read_fast keeps)."""
    got = _read_fast(os.fspath(A), "A", weights == "values", share=True)
    return None if got is None else got[0]


def _mmread(path: Any, name: str = "path", exact: bool = True) -> tuple[Any, str]:
    """The MatrixMarket file at `path` as scipy reads it (a COO matrix with its duplicates, or a
    dense array) and its field (``"real"``, ``"integer"``, ``"pattern"``, ...), the declared size
    checked against :func:`memory_budget` before reading; every error names the file. A plain
    coordinate file in the core's syntax (wpart.spatial._mmfast) comes back as the canonical
    CSR matrix that scipy's COO gives (``format == "csr"``; int64 1s for a pattern file; not
    `exact`: a real file's values as int64 ``value != 0``)."""
    if not isinstance(path, (str, os.PathLike)):
        raise WpartTypeError(f"`{name}` must be a str or os.PathLike, got {type(path).__name__}")
    p = os.fspath(path)
    if not os.path.exists(p):
        raise WpartFileNotFoundError(f"`{name}`: no such file: {p!r}")
    if os.path.isdir(p):
        raise WpartValueError(f"`{name}` {p!r} is a directory, not a MatrixMarket file")
    got = _read_fast(p, name, exact)
    if got is not None:
        return got
    import scipy.io

    bad = _head_fault(p)  # (before scipy reads the header: a control byte named as such)
    if bad is not None:
        raise WpartValueError(f"`{name}` {p!r} is not a readable MatrixMarket file: {bad}")
    try:
        n1, n2, entries, fmt, field, sym = scipy.io.mminfo(p)
    except Exception as exc:  # scipy raises ValueError / OSError / IndexError on bad files
        raise WpartValueError(f"`{name}` {p!r} is not a readable MatrixMarket file: {exc}") from None
    if sym != "general" and n1 != n2:  # (scipy mirrors it into a matrix of another shape)
        raise WpartValueError(
            f"`{name}` {p!r} is not a readable MatrixMarket file: its header declares a {sym} "
            f"matrix of size {n1} x {n2}; a {sym} matrix is square")
    if fmt == "array":
        need = 16 * int(n1) * int(n2)
        if need > memory_budget():
            raise WpartMemoryError(
                f"`{name}` {p!r} declares a dense {n1} x {n2} array ({need / 2**30:.3g} GiB to "
                "read), more than the memory available; nothing was allocated"
            )
    else:
        check_sparse_size(n1, n2, entries, name, _where(p))
    try:
        if scipy.io.mmread.__module__.endswith("_fast_matrix_market"):
            with _open_mm(p) as f:  # Ctrl-C between two reads, and checks (see _Reads)
                M = scipy.io.mmread(_Reads(f, str(field)))
        else:  # scipy < 1.12: a Python reader, interruptible as it is
            M = scipy.io.mmread(p)
    except MemoryError:
        raise WpartMemoryError(f"`{name}` {p!r}: out of memory while reading it") from None
    except Exception as exc:
        raise WpartValueError(f"`{name}` {p!r} is not a readable MatrixMarket file: {exc}") from None
    return M, str(field)


#: A whole entry line: blank-separated numbers (indices, values; an array file's single value)
#: as decimal literals or nan / inf words, blanks around them. The last line of a file without
#: a final line end must be one (see _Reads).
_NUMBER = rb"[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|nan|inf|infinity)"
_ENTRY_LINE = re.compile(rb"[ \t]*" + _NUMBER + rb"([ \t]+" + _NUMBER + rb")*[ \t]*\r?",
                         re.IGNORECASE)


#: What one 256 KiB read of the file gives _Reads to check; a line without a line end is not
#: buffered beyond _LINE_MAX bytes unless it is a comment.
_BLOCK = 1 << 18
_LINE_MAX = 1 << 20
#: The bytes of the entry lines of an integer (or pattern) file, and of a real (or complex)
#: file: digits, signs, blanks and line ends; decimal points, exponents and nan / inf words.
_INT_BYTES = b"0123456789+- \t\r\n"
_REAL_BYTES = _INT_BYTES + b".eEaAfFiInNtTyY"
_INT_TOKEN = re.compile(rb"[-+]?[0-9]+")
#: The bytes before a sign in an integer token: the start of the line, a blank.
_SIGN_AFTER = np.zeros(256, dtype=bool)
_SIGN_AFTER[[9, 10, 32]] = True


def _shown(tok: bytes) -> str:
    t = tok[:40].decode("ascii", "backslashreplace")
    return repr(t) + (f" ({len(tok)} characters)" if len(tok) > 40 else "")


def _control_fault(line: bytes) -> str | None:
    """A control byte in one line (without its line end), worded; None when there is none."""
    k = bad_byte(line)
    if k < 0:
        return None
    c = line[k]
    what = ("a NUL byte" if c == 0 else "a carriage return inside the line" if c == 13
            else f"the control byte 0x{c:02x}")
    return f"{what} at column {k + 1} (not a MatrixMarket text file)"


def _line_fault(line: bytes, field: str) -> str | None:
    """What is wrong with one line (without its ``\\n``) of a MatrixMarket file of `field`: a
    control byte anywhere (see wpart.spatial._mmfast.CONTROL_BYTES), or, outside comments, a
    token that is no integer (an ``integer`` or ``pattern`` file) or holds a byte that no
    number has (``real``, ``complex``); None when nothing is. scipy's reader reads ``2.9`` or
    ``7abc`` as the number they start with (2, 7) instead."""
    body = line[:-1] if line.endswith(b"\r") else line
    bad = _control_fault(body)
    if bad is not None or body.lstrip(b" \t").startswith(b"%"):
        return bad
    integer = field in ("integer", "pattern")
    for tok in body.split():
        if integer and _INT_TOKEN.fullmatch(tok) is None:
            return f"the value {_shown(tok)} is not an integer (the file's field is {field})"
        if not integer and tok.translate(None, _REAL_BYTES):
            return f"the value {_shown(tok)} is not a number"
    return None


def _block_ok(blk: bytes, integer: bool) -> bool:
    """Whether every line of `blk` (whole lines) is an entry line that _line_fault passes, by
    byte counts (C speed; a comment, or anything else, makes the caller check line by line)."""
    if blk.translate(None, _INT_BYTES if integer else _REAL_BYTES):
        return False
    if b"\r" in blk and blk.count(b"\r") != blk.count(b"\r\n"):
        return False
    if integer and (b"-" in blk or b"+" in blk):  # each sign after a blank, before a digit
        a = np.frombuffer(blk, dtype=np.uint8)  # (whole lines: a sign is not the last byte)
        at = np.flatnonzero((a == 45) | (a == 43))
        after = a[at + 1]
        return bool(((after >= 48) & (after <= 57)).all() and
                    (_SIGN_AFTER[a[at[at > 0] - 1]]).all())
    return True


def _lines(blk: bytes) -> int:
    """The line ends in `blk`."""
    return int(np.count_nonzero(np.frombuffer(blk, dtype=np.uint8) == 10))


def _head_fault(p: str) -> str | None:
    """A control byte in the header of the file at `p` (its lines up to the size line),
    worded with its line; None when there is none, or when the file cannot be read (scipy's
    reader then reports it)."""
    try:
        with _open_mm(p) as f:
            for i in range(1, 1 << 16):
                line = f.readline(_LINE_MAX)
                if not line:
                    return None
                bad = _control_fault(line[:-2] if line.endswith(b"\r\n") else
                                     line.rstrip(b"\n"))
                if bad is not None:
                    return f"line {i}: {bad}"
                if not line.lstrip(b" \t").startswith(b"%"):
                    return None  # (the size line)
    except Exception:  # noqa: BLE001 -- OSError, EOFError, zlib.error: scipy reports them
        return None
    return None


class _Refused(ValueError):
    """A file that _Reads does not give scipy's reader (the message names the line)."""


class _Reads:
    """A binary file handed to scipy's C++ MatrixMarket reader as a stream: the reader asks
    its ``read`` for 1 KiB at a time, and a Ctrl-C is raised inside that Python call (given a
    path, the reader holds the GIL for the whole file: seconds deaf to Ctrl-C).

    Only whole lines that pass the checks of _line_fault reach the reader (read 256 KiB at a
    time, checked at C speed by _block_ok, line by line only where that finds something): a
    control byte anywhere (a NUL after a line's last number kills scipy 1.12 - 1.17 with a
    segmentation fault; other control bytes after a number are ignored), a value of an
    ``integer`` file that is not an integer (read as the integer it starts with) or a byte that
    no number has in a ``real`` one, raise ``_Refused`` naming the line.

    A file whose last line has no line end is given one: scipy's reader (1.12 - 1.17 at
    least) reads past its buffer there when anything follows the line's last number (a blank,
    a cut exponent such as ``8.83E`` of a truncated file) and the process dies of a
    segmentation fault. Such a last line that is not a whole entry line (``_ENTRY_LINE``) is
    refused first: a truncated file would otherwise read its cut number (``8.83E`` for
    ``8.83E-6``)."""

    __slots__ = ("_f", "_field", "_int", "_buf", "_pos", "_part", "_plen", "_line", "_done")

    def __init__(self, f: Any, field: str = "real") -> None:
        self._f = f
        self._field = field
        self._int = field in ("integer", "pattern")
        self._buf = b""  # checked bytes not yet given to the reader, from _pos
        self._pos = 0
        self._part: list = []  # the pieces of the line without a line end read so far
        self._plen = 0
        self._line = 0  # the lines checked so far
        self._done = False

    def read(self, n: int = -1) -> bytes:
        while self._pos >= len(self._buf):
            if self._done:
                return b""
            self._buf, self._pos = self._fill(), 0
        end = len(self._buf) if n is None or n < 0 else self._pos + n
        out = self._buf[self._pos:end]
        self._pos += len(out)
        return out

    def _fill(self) -> bytes:
        """The next whole lines of the file, checked (b"" when a read ended in no line end)."""
        b = self._f.read(_BLOCK)
        if not b:
            self._done = True
            return self._last()
        k = b.rfind(b"\n")
        if k < 0:
            self._grow(b)
            return b""
        blk = b[:k + 1]
        if self._part:
            blk = b"".join(self._part) + blk
            self._part, self._plen = [], 0
        # the lines up to the block's last comment (the header and its comments, in the first
        # block) one by one, the entry lines after it at C speed where they pass (else one by
        # one too)
        q = blk.rfind(b"%")
        cut = 0 if q < 0 else blk.find(b"\n", q) + 1
        if not _block_ok(blk[cut:], self._int):
            cut = len(blk)
        if cut:
            self._check_lines(blk[:cut])
        self._line += _lines(blk)
        if k + 1 < len(b):
            self._grow(b[k + 1:])
        return blk

    def _check_lines(self, blk: bytes) -> None:
        """Check the lines of `blk` (the next of the file; the last may lack its line end) one
        by one (_line_fault)."""
        for i, line in enumerate(blk.split(b"\n")):
            bad = _line_fault(line, self._field)
            if bad is not None:
                raise _Refused(f"line {self._line + i + 1}: {bad}")

    def _grow(self, piece: bytes) -> None:
        """Keep `piece` of the line without a line end so far (a control byte in it, or more
        than _LINE_MAX bytes of a line that is no comment, refused at once)."""
        self._part.append(piece)
        self._plen += len(piece)
        if piece.translate(None, NOT_CONTROL):
            bad = _control_fault(b"".join(self._part))
            if bad is not None:
                raise _Refused(f"line {self._line + 1}: {bad}")
        if self._plen > _LINE_MAX and not self._part[0].lstrip(b" \t").startswith(b"%"):
            raise _Refused(f"line {self._line + 1} is longer than {_LINE_MAX} bytes: not an "
                           "entry line")

    def _last(self) -> bytes:
        """The last line of a file that does not end in a line end, with one (checked)."""
        tail, self._part = b"".join(self._part), []
        if not tail:
            return b""
        self._check_lines(tail)
        last = tail.strip()
        if not last:
            return b""
        if not last.startswith(b"%") and not _ENTRY_LINE.fullmatch(tail):
            shown = last[-40:].decode("ascii", "replace")
            raise _Refused(f"its last line {shown!r} has no line end and is not a whole "
                           "entry (a truncated file?)")
        return tail + b"\n"


def _open_mm(p: str) -> Any:
    """The file at `p` opened for reading bytes, decompressed as scipy's reader does by suffix
    (``.gz``, ``.bz2``)."""
    if p.endswith(".gz"):
        import gzip

        return gzip.GzipFile(p, "r")
    if p.endswith(".bz2"):
        import bz2

        return bz2.BZ2File(p, "rb")
    return open(p, "rb")


def _canonical_csr(M: Any, pattern: bool) -> Any:
    """A coordinate matrix as a CSR array with its duplicates summed (int64 1s for a
    pattern)."""
    if pattern:
        M = M.astype(np.int64)
    M = _sp().csr_array(M)
    M.sum_duplicates()
    return M


def read_matrix(path: str | os.PathLike) -> Any:
    """Read a MatrixMarket file (``.mtx``, also gzip / bz2 compressed): a plain coordinate file
    by the core in one pass (integer and pattern files, and real ones of up to 4,096 entries),
    any other with ``scipy.io.mmread``; the same matrix either way.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Every spatial function also accepts such a path as its matrix ``A``.

    Returns
    -------
    scipy.sparse.csr_array or numpy.ndarray
        A coordinate file as a CSR array (duplicate entries summed, explicit zeros kept), an
        array file as a dense array. A ``pattern`` file has the int64 value 1 at each entry
        (2 where an entry is stored twice).

    Raises
    ------
    WpartFileNotFoundError
        If `path` does not exist.
    WpartValueError
        If the file is not a readable MatrixMarket file (the message names it, and the line
        where it can): a control byte such as NUL anywhere, a value of an ``integer`` file
        that is not an integer (``2.9``, ``7abc``), a byte no number has in a ``real`` one,
        a symmetric / skew-symmetric / hermitian header of a non-square size, ...
    WpartMemoryError
        If the declared shape and entry count could not be read into memory (checked from the
        header, before anything of that size is allocated).
    """
    M, field = _mmread(path)
    if is_sparse(M) and M.format == "csr":  # read by the core: canonical already
        return M
    if is_sparse(M):
        # seconds of C++ without a signal check: Ctrl-C lands in the waiting caller
        return run_interruptibly(_canonical_csr, M, field == "pattern")
    return np.asarray(M)


class SparseInput:
    """A validated sparse matrix: CSR arrays (int64 pointers and indices, int64 or float64
    values, duplicates summed, no explicit zeros, sorted indices; the core makes the columns
    when it needs them), its total and largest value. `A` is a scipy.sparse matrix, or a
    dense float array (read by its nonzeros, in the order a canonical sparse matrix stores
    them)."""

    __slots__ = ("n1", "n2", "nnz", "kind", "total", "amax", "_arrays", "_csr")

    def __init__(self, A: Any, weights: str, name: str = "A"):
        shape = A.shape
        if len(shape) != 2:
            raise WpartValueError(f"`{name}` must be 2-D, got a {len(shape)}-D sparse array")
        n1, n2 = int(shape[0]), int(shape[1])
        if n1 == 0 or n2 == 0:
            raise WpartValueError(f"`{name}` is empty (shape {shape})")
        kind = A.dtype.kind
        if not isinstance(A, np.ndarray):  # before any copy of the pointers / entries
            check_sparse_arrays(A, name)
            check_sparse_size(n1, n2, A.nnz, name)
        if weights == "values" and kind not in "biuf":
            raise WpartTypeError(
                f"`{name}` must hold integers, booleans or floats, got dtype {A.dtype}"
            )
        if weights == "count" and kind not in "biufc":
            raise WpartTypeError(f"`{name}` must be numeric, got dtype {A.dtype}")
        i64 = np.int64
        same = False
        if weights == "stored" and getattr(A, "format", None) == "csr" and \
                A.has_canonical_format:  # no duplicates: 1 at each stored entry
            indptr, indices = A.indptr, A.indices
            data = np.ones(indices.size, dtype=i64)
            rows = None
        elif weights == "stored":  # every stored entry counts 1, duplicates as stored
            c = stored_counts(A, name)
            indptr, indices, data = c.indptr, c.indices, c.data
            rows = None
        elif isinstance(A, np.ndarray):
            rows, indices = np.nonzero(A)
            data = A[rows, indices]
            indptr = np.zeros(n1 + 1, i64)
            np.cumsum(np.bincount(rows, minlength=n1), out=indptr[1:])
        else:
            c = sparse_converted(A, "csr", name)  # the same object for a CSR input: unchanged
            if not c.has_canonical_format:
                c = c.copy()
                c.sum_duplicates()
            indptr, indices, data = c.indptr, c.indices, c.data
            rows = None
            # a canonical CSR input whose values are the loads as they are is its own
            # canonical matrix (kept for the result; no copy)
            same = c is A and weights == "values" and data.dtype in (np.int64, np.float64)
        if weights == "stored":
            vals = data
        elif weights == "count":
            if kind in "fc" and np.isnan(data).any():
                raise WpartValueError(f"`{name}` has NaN entries")
            vals = (data != 0).astype(i64)
        elif kind in "biu":
            if kind == "u" and data.size and int(data.max()) > np.iinfo(i64).max:
                raise WpartOverflowError(f"`{name}` has values above the int64 range")
            vals = data.astype(i64, copy=False)
        else:
            vals = data.astype(np.float64, copy=False)
            if not np.isfinite(vals).all():
                if np.isnan(vals).any():
                    raise WpartValueError(f"`{name}` has NaN entries")
                raise WpartValueError(f"`{name}` has infinite entries")
        vmin = vals.min() if vals.size else 1
        if vmin < 0:
            raise WpartValueError(f"`{name}` has negative entries{_NEG_HINT}")
        if vmin == 0:  # explicit zeros (or duplicates summing to zero)
            same = False
            keep = vals != 0
            if rows is None:
                rows = np.repeat(np.arange(n1, dtype=i64), np.diff(indptr))
            rows, indices, vals = rows[keep], indices[keep], vals[keep]
            indptr = np.zeros(n1 + 1, i64)
            np.cumsum(np.bincount(rows, minlength=n1), out=indptr[1:])
        rp = np.ascontiguousarray(indptr, i64)
        ci = np.ascontiguousarray(indices, i64)
        rv = np.ascontiguousarray(vals)
        self.n1, self.n2 = n1, n2
        self._arrays = (rp, ci, rv)
        self._csr = A if same else None
        self.kind = "i" if rv.dtype.kind == "i" else "f"
        self.amax: Any = rv.max() if rv.size else rv.dtype.type(0)
        if self.kind == "i":
            # non-negative: the total is below amax * nnz, checked exactly only when near
            if int(self.amax) * rv.size >= 2**62 and \
                    float(rv.astype(np.float64).sum()) >= 2.0**62:
                raise WpartOverflowError(f"the total of `{name}` exceeds the int64 range")
            self.total: Any = np.int64(rv.sum())
        else:
            self.total = np.float64(rv.sum())
            if not np.isfinite(self.total):
                raise WpartOverflowError(f"the total of `{name}` overflows float64")
        self.nnz = int(rv.size)

    @property
    def csr(self) -> Any:
        """The matrix as a canonical ``scipy.sparse.csr_array`` (made on first use)."""
        if self._csr is None:
            rp, ci, rv = self._arrays[:3]
            c = _sp().csr_array((rv, ci, rp), shape=(self.n1, self.n2))
            c.has_canonical_format = True
            self._csr = c
        return self._csr

    def arrays(self) -> tuple:
        """(rp, ci, rv, None, None, None) for the core: int64 pointers and indices, and no
        columns (CSC): a core call makes them once for itself, by a counting sort in
        O(nnz + n2)."""
        return (*self._arrays, None, None, None)

    def _need(self) -> tuple[int, int]:
        """(bytes of the dense matrix and its prefix, the current MAX_DENSE_BYTES)."""
        limit = getattr(sys.modules.get("wpart.spatial"), "MAX_DENSE_BYTES", MAX_DENSE_BYTES)
        return 8 * (self.n1 * self.n2 + (self.n1 + 1) * (self.n2 + 1)), limit

    def fits(self) -> bool:
        """Whether the dense matrix and its prefix fit under ``MAX_DENSE_BYTES``."""
        need, limit = self._need()
        return need <= limit

    def dense(self, method: str | None, name: str = "A") -> NDArray:
        """The dense matrix, unless it and its prefix would exceed ``MAX_DENSE_BYTES``."""
        need, limit = self._need()
        if need > limit:
            who = f"{method}" if method else "this method"
            raise WpartMemoryError(
                f"`{name}` is a {self.n1} x {self.n2} sparse matrix: {who} needs the dense "
                f"matrix and its prefix sum ({need / 2**30:.3g} GiB), over "
                f"wpart.spatial.MAX_DENSE_BYTES = {limit / 2**30:.3g} GiB; "
                f"{', '.join(SPARSE_NATIVE)} work on the nonzeros (or raise the limit)"
            )
        rp, ci, rv = self._arrays[:3]
        out = np.zeros(self.n1 * self.n2, dtype=rv.dtype)
        rows = np.repeat(np.arange(self.n1, dtype=np.int64), np.diff(rp))
        out[rows * self.n2 + ci] = rv  # canonical: one entry per cell
        return out.reshape(self.n1, self.n2)

    def box_loads(self, rects: NDArray) -> NDArray:
        """The load of each rectangle ``(r0, r1, c0, c1)``, summed from the nonzeros in the
        core (row by row from a binary search: O(nnz + heights x log) for a tiling)."""
        r = np.ascontiguousarray(rects, dtype=np.int64).reshape(-1, 4)
        rp, ci, rv = self._arrays[:3]
        return _core.spatial_sparse_loads(self.n1, self.n2, rp, ci, rv, r)


def as_input(A: Any, weights: Any, ndims: tuple, name: str = "A") -> Any:
    """`A` as a ``SparseInput`` (a scipy.sparse matrix, or a MatrixMarket coordinate file) or as
    a validated dense int64 / float64 array (with ``weights="count"``: 1 at every nonzero; with
    ``"stored"``: 1 at every cell). An error about a file's content names the file."""
    w = as_weights(weights)
    if isinstance(A, (str, os.PathLike)):
        p = os.fspath(A)
        if not os.path.isfile(p) and not os.path.isdir(p):  # (a folder: _mmread names it)
            raise WpartFileNotFoundError(
                f"`{name}`: no such MatrixMarket file: {p!r} (a string `{name}` is "
                "read as a file path)"
            )
        M, field = _mmread(p, name, exact=w == "values")
        try:
            if is_sparse(M):
                if field == "pattern" and M.dtype != np.int64:  # no values: integer loads
                    c = M.tocoo()  # (not astype: it sums duplicates, which "stored" counts)
                    M = _sp().coo_array((c.data.astype(np.int64), (c.row, c.col)),
                                        shape=c.shape)
                return SparseInput(M, w, name)
            return _dense(M, w, ndims, name, check=True)
        except (WpartValueError, WpartTypeError, WpartOverflowError, WpartMemoryError) as exc:
            msg = str(exc)
            tag = f"`{name}`"
            msg = (msg.replace(tag, f"{tag} (file {p!r})", 1) if tag in msg
                   else f"{msg} (file {p!r})")
            raise type(exc)(msg) from None
    if is_sparse(A):
        return SparseInput(A, w, name)
    return _dense(A, w, ndims, name)


def _dense(A: Any, w: str, ndims: tuple, name: str, check: bool = False) -> NDArray:
    """A dense `A` validated (with `check`: NaN, inf and negative values refused here, as for a
    sparse one; otherwise the prefix sum refuses them) and weighted."""
    arr = as_loads(A, name, ndims)
    if w == "stored":
        return np.ones(arr.shape, dtype=np.int64)
    if w == "count":
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise WpartValueError(f"`{name}` has NaN entries")
        return (arr != 0).astype(np.int64)
    if check and arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise WpartValueError(f"`{name}` has NaN entries")
        if not np.isfinite(arr).all():
            raise WpartValueError(f"`{name}` has infinite entries")
    if check and arr.size and arr.min() < 0:
        raise WpartValueError(f"`{name}` has negative entries{_NEG_HINT}")
    return arr
