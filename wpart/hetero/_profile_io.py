"""Fast, bounded readers of profile files (FuPerMod-style ``size time [energy]`` text and the
long-format ``processor,size,time[,energy]`` CSV).

The numbers are parsed in bulk by the core's C parsers (``hetero_parse_points`` /
``hetero_parse_csv``), which accept a strict subset of the syntax below (ASCII numbers, exact
integer sizes) and give the same values; any other file, and every error, goes through the
NumPy / Python readers below, which report an error precisely (its line and text) and parse
sizes exactly as integers. Every error names the file.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import os
import re
import secrets
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._errors import WpartError, WpartOverflowError, WpartValueError

#: Sizes at or above this magnitude cannot be held exactly by a float64.
EXACT_FLOAT = 2**53
_INT64_MAX = 2**63 - 1
_CSV_COLUMNS = ("processor", "size", "time", "energy")
_TEXT_COLUMNS = ("size", "time", "energy")

#: A blank field of a CSV line (nothing, or only blanks, before, between or after commas).
#: The bulk parsers do not take a file where one may be: the Python reader decides, and
#: words the error (a blank cell is a missing measurement, never 0).
_CSV_BLANK = re.compile(r",[^\S\r\n]*(?:[,\r\n]|$)|(?:^|[\r\n])[^\S\r\n]*,")
#: The same for a ``size time [energy]`` line, where ``#`` starts a comment.
_TEXT_BLANK = re.compile(r",[^\S\r\n]*(?:[,#\r\n]|$)|(?:^|[\r\n])[^\S\r\n]*,")
_RARE_BLANKS = ("\v", "\f", "\x1c", "\x1d", "\x1e", "\x1f")


def maybe_blank_field(text: str, comments: bool) -> bool:
    """Whether `text` may hold a blank comma-separated field (a superset: the caller then
    reads it with the exact line-by-line reader). Plain str searches, not a regex, on ASCII
    text: a 1M-line file costs milliseconds."""
    if "," not in text:
        return False
    if not text.isascii() or any(c in text for c in _RARE_BLANKS):
        return (_TEXT_BLANK if comments else _CSV_BLANK).search(text) is not None
    t = text.replace(" ", "").replace("\t", "") if (" " in text or "\t" in text) else text
    return (",," in t or ",\n" in t or ",\r" in t or "\n," in t or "\r," in t
            or t.startswith(",") or t.endswith(",") or (comments and ",#" in t))


@contextlib.contextmanager
def naming(source: str | None) -> Iterator[None]:
    """Re-raise a wpart error with ``source: `` in front of its message (same class)."""
    try:
        yield
    except WpartError as exc:
        if source is None or str(exc).startswith(f"{source}: "):
            raise
        raise type(exc)(f"{source}: {exc}") from None


def _why(exc: OSError, folder: str) -> str:
    """The real problem behind a failed write, from its errno."""
    code = exc.errno
    if code == errno.ENOENT:
        if not os.path.isdir(folder):
            return f"no such folder {folder!r}"
        return f"cannot create a file in the folder {folder!r} ({exc.strerror})"
    if code == errno.ENOTDIR:
        return f"a part of the folder {folder!r} is not a folder"
    if code in (errno.EACCES, errno.EPERM):
        return f"permission denied (the folder {folder!r} or the file is not writable)"
    if code == errno.EROFS:
        return "read-only file system"
    if code == errno.ENOSPC:
        return "no space left on the device"
    if code == errno.EDQUOT:
        return "disk quota exceeded"
    if code == errno.EISDIR:
        return "it is a folder"
    return exc.strerror or str(exc)


def write_atomic(path: Any, text: str, what: str) -> None:
    """Write `text` (UTF-8) to `path` whole or not at all: a temporary file in the same folder,
    flushed and synced, then renamed over `path` (a previous file keeps its permissions; a
    symbolic link is followed). Any failure removes the temporary file, leaves a previous
    file unchanged and raises :class:`wpart.WpartOSError` naming the path and the problem
    (from the errno; ``.errno`` is set). `what` names the output in the message ("profile
    file", "CSV file")."""
    from .._errors import WpartOSError
    from .._files import fsync_dir, unlink_quiet, write_synced

    shown = os.fspath(path)
    target = os.path.realpath(shown) if os.path.islink(shown) else os.path.abspath(shown)
    folder = os.path.dirname(target)

    def fail(exc: OSError) -> WpartOSError:
        err = WpartOSError(f"{shown}: cannot write the {what}: {_why(exc, folder)}")
        err.errno = exc.errno
        return err

    if os.path.isdir(target):
        err = WpartOSError(f"{shown}: cannot write the {what}: it is a folder")
        err.errno = errno.EISDIR
        raise err
    data = text.encode("utf-8")
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        mode = None  # a new file: 0o666 less the umask, as open() gives
    tmp = os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o666)
    except OSError as exc:
        raise fail(exc) from None
    try:
        write_synced(tmp, data, fd=fd)  # (flushed and fsynced; removes tmp on a failure)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:  # an OSError, Ctrl-C, ...: no partial file stays behind
        unlink_quiet(tmp)
        if isinstance(exc, OSError):
            raise fail(exc) from None
        raise
    fsync_dir(folder)


def read_text(p: Path, name: str) -> str:
    """A profile file's text (a UTF-8 BOM dropped); WpartValueError naming `name` and the file
    for binary or non-UTF-8 content, WpartOSError-like errors for unreadable files."""
    return _decode(_read_bytes(p, name), p, name)


def _read_bytes(p: Path, name: str) -> bytes:
    try:
        return p.read_bytes()
    except OSError as exc:
        from .._errors import WpartFileNotFoundError, WpartOSError

        cls = WpartFileNotFoundError if isinstance(exc, FileNotFoundError) else WpartOSError
        raise cls(f"`{name}`: cannot read {str(p)!r}: {exc.strerror or exc}") from None


def _decode(raw: bytes, p: Path, name: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WpartValueError(f"`{name}`: {str(p)!r} is not a UTF-8 text file (byte {exc.start}: "
                              f"{exc.reason})") from None


def _exact_size(tok: str, where: str) -> int:
    """One size token parsed exactly: an integer literal as is; a float literal only when it
    is an integer below 2**53 (above, a float cannot hold it exactly)."""
    shown = tok if len(tok) <= 60 else f"{tok[:60]}... ({len(tok)} characters)"
    try:
        v = int(tok)
    except ValueError:
        digits = tok.lstrip("+-")
        if digits.isascii() and digits.isdigit():  # beyond Python's digit limit for int()
            raise WpartOverflowError(f"{where}: size {shown} does not fit in int64") from None
        try:
            f = float(tok)
        except ValueError:
            raise WpartValueError(f"{where}: size {shown!r} is not a number") from None
        if abs(f) >= EXACT_FLOAT:
            raise WpartValueError(f"{where}: size {shown!r} is written as a float at or above "
                                  "2**53, which cannot hold it exactly; write it as an integer")
        if f != f or f != int(f):
            raise WpartValueError(f"{where}: size {shown!r} is not an integer")
        v = int(f)
    if abs(v) > _INT64_MAX:
        raise WpartOverflowError(f"{where}: size {shown} does not fit in int64")
    return v


def _points_slow(text: str, label: str) -> tuple[NDArray, NDArray, NDArray | None]:
    """Line-by-line parse (exact sizes, precise errors)."""
    sizes: list[int] = []
    rows: list[list[float]] = []
    ncol = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{label}: line {lineno}"
        if "," in line:
            _no_blank_field(line, where)
        parts = line.replace(",", " ").split()
        if len(parts) not in (2, 3):
            raise WpartValueError(f"{where}: expected 'size time [energy]', got {len(parts)} "
                                  f"columns in {line[:200]!r}")
        if ncol and len(parts) != ncol:
            raise WpartValueError(f"{where}: {len(parts)} columns, previous lines have {ncol}")
        ncol = len(parts)
        sizes.append(_exact_size(parts[0], where))
        try:
            rows.append([float(v) for v in parts[1:]])
        except ValueError:
            raise WpartValueError(f"{where}: not a number in {line[:200]!r}") from None
    if not rows:
        raise WpartValueError(f"{label}: no data points")
    a = np.array(rows, dtype=np.float64)
    return (np.array(sizes, dtype=np.int64), a[:, 0], a[:, 1] if ncol == 3 else None)


def _no_blank_field(line: str, where: str) -> None:
    """Refuse a blank field between commas of a ``size time [energy]`` line (``100,,5``,
    ``100,0.3,``): a missing value, which reading commas as blanks would shift into the
    next column or drop."""
    pieces = line.split(",")
    for k, piece in enumerate(pieces):
        if not piece.strip():
            col = sum(len(p.split()) for p in pieces[:k])
            what = _TEXT_COLUMNS[col] if col < len(_TEXT_COLUMNS) else f"column {col + 1}"
            raise WpartValueError(f"{where}: {what}: missing (a blank field between commas, "
                                  f"or a comma at the start or end of the line) in "
                                  f"{line[:200]!r}")


def _loadtxt(src: Any) -> NDArray | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data"
            return np.loadtxt(src, dtype=np.float64, comments="#", ndmin=2,
                              encoding="utf-8-sig")
    except (ValueError, OSError):  # UnicodeDecodeError is a ValueError
        return None


def parse_points(text: str | None, label: str, path: Path | None = None
                 ) -> tuple[NDArray, NDArray, NDArray | None]:
    """``(sizes, time, energy or None)`` of FuPerMod-style text, or of the file `path` when
    `text` is None (unsorted, unvalidated values).

    Bulk path: the core's C parser (:func:`_c_points`), then :func:`numpy.loadtxt` on what
    it does not take. Sizes must be exact integers: a size at or above 2**53 sends the file through the exact line-by-line
    parser, which accepts integer literals up to int64 and refuses float literals that
    cannot be exact; so does any error, to report its line.
    """
    if text is None:
        raw = _read_bytes(path, "path")
        text = _decode(raw, path, "path")  # a non-UTF-8 file is refused as before
    else:
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: the Python reader decides
            raw = b""
    if text.startswith("\ufeff"):
        text = text[1:]
    # the bulk parsers read commas as blanks: a blank field between commas ("100,,5") would
    # shift a value into the wrong column, so a text that may hold one goes through the
    # exact reader, which refuses it
    fast = _c_points(raw)
    if fast is not None:
        if ("," not in text or _commas_ok(text, fast)
                or not maybe_blank_field(text, comments=True)):
            return fast
        return _points_slow(text, label)
    if maybe_blank_field(text, comments=True):
        return _points_slow(text, label)
    a = _loadtxt(io.StringIO(text.replace(",", " ") if "," in text else text))
    if a is None or not _bulk_ok(a):
        return _points_slow(text, label)
    s = a[:, 0]
    return s.astype(np.int64), a[:, 1], a[:, 2] if a.shape[1] == 3 else None


def _commas_ok(text: str, fast: tuple) -> bool:
    """Whether the core's parse of `text` is free of blank comma-separated fields, from one
    count: on ASCII text of numbers and commas only (no blanks, no comments), every line
    holds ``ncol - 1`` commas exactly when none is blank. False: the caller looks closer."""
    if not text.isascii() or " " in text or "\t" in text or "#" in text:
        return False
    ncol = 2 if fast[2] is None else 3
    return text.count(",") == len(fast[0]) * (ncol - 1)


def _c_points(raw: bytes) -> tuple[NDArray, NDArray, NDArray | None] | None:
    """The core's bulk parse of `raw` (UTF-8 bytes), or None when it does not take the text
    (an error, or syntax outside its subset): the caller then reads it the Python way."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not raw:
        return None
    r = _core.hetero_parse_points(raw)
    if isinstance(r, str):  # "line L, column C: ..." -- re-read for the precise message
        return None
    n, ncol, s, t, e = r
    return s[:n], t[:n], e[:n] if ncol == 3 else None


def _bulk_ok(a: NDArray) -> bool:
    """Whether the bulk parse can stand: 2 or 3 columns, sizes integers below 2**53."""
    if a.shape[0] == 0 or a.shape[1] not in (2, 3):
        return False
    s = a[:, 0]
    return bool(np.isfinite(s).all() and np.abs(s).max() < EXACT_FLOAT
                and (s == np.round(s)).all())


def _csv_columns(text: str) -> tuple[list[str], list, int] | None:
    """Bulk split of an unquoted CSV whose data lines all have the header's field count:
    ``(header, columns, rows)``; None when the text needs the csv module (quotes, ragged or
    blank lines)."""
    if '"' in text:
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.rstrip("\n")
    head, sep, body = text.partition("\n")
    header = head.split(",")
    nf = len(header)
    if not sep or not body:
        return None
    b = np.frombuffer(body.encode("utf-8"), dtype=np.uint8)
    nl = np.flatnonzero(b == 10)
    per_line = np.bincount(np.searchsorted(nl, np.flatnonzero(b == 44)), minlength=nl.size + 1)
    if (per_line != nf - 1).any() or (np.diff(np.r_[-1, nl, b.size]) == 1).any():
        return None
    tokens = body.replace("\n", ",").split(",")
    rows = len(tokens) // nf
    return [h.strip().lower() for h in header], [tokens[c::nf] for c in range(nf)], rows


def _csv_rows(text: str, label: str) -> tuple[list[str], list[list[str]]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
        rows = list(reader)
    except csv.Error as exc:
        raise WpartValueError(f"{label}: CSV line {reader.line_num}: {exc}") from None
    if header is None:
        raise WpartValueError(f"{label}: empty CSV (expected a header "
                              "processor,size,time[,energy])")
    return [h.strip().lower() for h in header], rows


def parse_csv(text: str, label: str, unknown: str = "raise"
              ) -> list[tuple[str, NDArray, NDArray, NDArray | None]]:
    """Long-format CSV -> ``[(processor, sizes, time, energy), ...]`` in order of first
    appearance (``energy`` None when the CSV has no energy column). Unknown columns raise
    (``unknown="raise"``) or warn (``"warn"``); a blank cell raises."""
    if text.startswith("\ufeff"):
        text = text[1:]
    cfast = _csv_c(text)
    fast = None
    if cfast is not None:
        fields = cfast[0]
    else:
        fast = _csv_columns(text)
        if fast is not None:
            fields, cols, nrows = fast
        else:
            fields, rows = _csv_rows(text, label)
    missing = [c for c in _CSV_COLUMNS[:3] if c not in fields]
    if missing:
        raise WpartValueError(f"{label}: CSV must have columns processor,size,time[,energy]; "
                              f"got {fields} (missing {missing})")
    extra = [f for f in fields if f not in _CSV_COLUMNS]
    if extra:
        msg = f"{label}: unknown CSV column(s) {extra} (known: {list(_CSV_COLUMNS)})"
        if unknown == "raise":
            raise WpartValueError(msg + "; pass unknown_columns='warn' to ignore them")
        if unknown == "warn":
            warnings.warn(msg + ": ignored", UserWarning, stacklevel=4)
    dup = sorted({f for f in fields if fields.count(f) > 1})
    if dup:
        raise WpartValueError(f"{label}: duplicate CSV column(s) {dup}")
    if cfast is not None:
        return cfast[1]
    if fast is None:
        rows = [r for r in rows if r]  # blank lines
        if not rows:
            raise WpartValueError(f"{label}: CSV has no data rows")
        nf = len(fields)
        if any(len(r) != nf for r in rows):
            i = next(i for i, r in enumerate(rows) if len(r) != nf)
            raise WpartValueError(f"{label}: CSV data row {i + 1}: {len(rows[i])} fields, the "
                                  f"header has {nf}")
        cols, nrows = list(zip(*rows)), len(rows)
    col = {f: cols[fields.index(f)] for f in _CSV_COLUMNS if f in fields}
    _no_blank_cell(col["processor"], "processor", label)
    raw_ids = {k: i for i, k in enumerate(dict.fromkeys(col["processor"]))}
    ids: dict[str, int] = {}
    remap = np.array([ids.setdefault(k.strip(), len(ids)) for k in raw_ids], dtype=np.int64)
    inv = remap[np.fromiter(map(raw_ids.__getitem__, col["processor"]), dtype=np.int64,
                            count=nrows)]
    sizes = _csv_sizes(col["size"], label)
    time = _csv_floats(col["time"], "time", label)
    # no energy column: energy unknown at every point (None), never a column of zeros
    energy = _csv_floats(col["energy"], "energy", label) if "energy" in col else None
    order = np.argsort(inv, kind="stable")
    bounds = np.searchsorted(inv[order], np.arange(len(ids) + 1))
    out = []
    for u, nm in enumerate(ids):
        idx = order[bounds[u]:bounds[u + 1]]
        out.append((nm, sizes[idx], time[idx], None if energy is None else energy[idx]))
    return out


def _csv_c(text: str
           ) -> tuple[list[str], list[tuple[str, NDArray, NDArray, NDArray | None]]] | None:
    """``(header fields, per-processor arrays)`` of an unquoted CSV parsed by the core, or None
    when the core does not take it (quotes, missing columns, an error, syntax outside its
    subset): the caller then reads it the Python way, which words every error."""
    if '"' in text:
        return None
    i = text.find("\n")
    if i < 0:
        return None
    head = text[:i]
    if head.endswith("\r"):
        head = head[:-1]
    if "\r" in head:
        return None
    fields = [h.strip().lower() for h in head.split(",")]
    if any(c not in fields for c in _CSV_COLUMNS[:3]) or len(fields) > 4096:
        return None
    try:
        body = text[i + 1:].encode("utf-8")
    except UnicodeEncodeError:
        return None
    ce = fields.index("energy") if "energy" in fields else -1
    r = _core.hetero_parse_csv(body, len(fields), fields.index("processor"),
                               fields.index("size"), fields.index("time"), ce)
    if isinstance(r, str):
        return None
    n, nn, code, sizes, time, energy, off, ln = r
    code, sizes, time, energy = code[:n], sizes[:n], time[:n], energy[:n]
    # the core reads a blank energy cell as 0 and a blank processor as the name "": a blank
    # cell is a missing value, which the Python reader refuses and words (a check of the
    # text only when some energy is 0, since a blank size or time fails in the core)
    if (nn and not ln[:nn].all()) or (ce >= 0 and not energy.all()
                                      and maybe_blank_field(text[i + 1:], comments=False)):
        return None
    names = [body[o:o + k].decode("utf-8") for o, k in zip(off[:nn].tolist(), ln[:nn].tolist())]
    order = np.argsort(code, kind="stable")
    bounds = np.searchsorted(code[order], np.arange(nn + 1))
    out = []
    for u, nm in enumerate(names):
        idx = order[bounds[u]:bounds[u + 1]]
        out.append((nm, sizes[idx], time[idx], energy[idx] if ce >= 0 else None))
    return fields, out


def _no_blank_cell(col: Any, what: str, label: str) -> None:
    """Refuse a blank cell of column `what`: a missing value, never a default."""
    for i, v in enumerate(col):
        if not v.strip():
            raise WpartValueError(
                f"{label}: CSV data row {i + 1}: {what}: blank (a missing value)"
                + ("; a missing energy is not 0 J: remove the row, or leave the energy column "
                   "out of the whole file when no energy was measured" if what == "energy"
                   else ""))


def _csv_floats(col: Any, what: str, label: str) -> NDArray:
    try:
        return np.fromiter(map(float, col), dtype=np.float64, count=len(col))
    except ValueError:
        _no_blank_cell(col, what, label)
        for i, v in enumerate(col):
            try:
                float(v)
            except ValueError:
                raise WpartValueError(f"{label}: CSV data row {i + 1}: {what} {v[:200]!r} is "
                                      "not a number") from None
        raise  # pragma: no cover - every value converted one by one


def _csv_sizes(col: Any, label: str) -> NDArray:
    try:
        return np.fromiter(map(int, col), dtype=np.int64, count=len(col))
    except (ValueError, OverflowError):
        pass
    _no_blank_cell(col, "size", label)
    return np.array([_exact_size(v.strip(), f"{label}: CSV data row {i + 1}")
                     for i, v in enumerate(col)], dtype=np.int64)
