"""Loading of the platform preset JSON with errors that name the file and the field.

:func:`load_doc` parses the file into dicts and lists that remember their path and record the
last field read; :func:`file_errors` turns any error met while building from that document (a
missing field, a value of the wrong type) into a :class:`wpart.WpartValueError` naming the file
and that field, instead of a bare ``KeyError`` / ``JSONDecodeError``.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from pathlib import Path
from typing import Any, Callable

from .._errors import WpartError, WpartFileNotFoundError, WpartOSError, WpartValueError

__all__ = ["file_errors", "load_doc"]

_STATE = threading.local()


class _Doc(dict):
    """A JSON object that knows its path; a missing field is an error naming it."""

    _where: str
    _ctx: dict

    def __getitem__(self, key: Any) -> Any:
        where = f"{self._where}.{key}" if self._where else str(key)
        self._ctx["last"] = where
        if not dict.__contains__(self, key):
            raise WpartValueError(f"{self._ctx['file']}: {where}: missing field")
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default


class _List(list):
    """A JSON array that records the element being read."""

    _where: str
    _ctx: dict

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, int):
            self._ctx["last"] = f"{self._where}[{i}]"
            if not -len(self) <= i < len(self):
                raise WpartValueError(f"{self._ctx['file']}: {self._where}[{i}]: missing "
                                      f"element (the list has {len(self)})")
        return list.__getitem__(self, i)

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield self[i]


def _wrap(x: Any, where: str, ctx: dict) -> Any:
    if isinstance(x, dict):
        d = _Doc((k, _wrap(v, f"{where}.{k}" if where else str(k), ctx)) for k, v in x.items())
        d._where, d._ctx = where, ctx
        return d
    if isinstance(x, list):
        lst = _List(_wrap(v, f"{where}[{i}]", ctx) for i, v in enumerate(x))
        lst._where, lst._ctx = where, ctx
        return lst
    return x


def _check_numbers(x: Any, where: str, key: Any, numbers: frozenset, path: Any) -> None:
    if isinstance(x, dict):
        for k, v in x.items():
            _check_numbers(v, f"{where}.{k}" if where else str(k), k, numbers, path)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _check_numbers(v, f"{where}[{i}]", key, numbers, path)
    elif key in numbers and (isinstance(x, bool) or not isinstance(x, (int, float))
                             or not math.isfinite(x) or x < 0):
        raise WpartValueError(f"{path}: {where}: expected a finite number >= 0, got {x!r}")


# the last document parsed, reused while its file keeps its path, size and modification time
# (every simulate() on a preset name reads the preset file: parsing it cost ~1.5 ms a run)
_LAST: dict[Any, tuple[Any, dict]] = {}


def load_doc(path: str | Path, numbers: frozenset = frozenset()) -> Any:
    """Parse the JSON file `path` (a UTF-8 BOM allowed) into path-aware dicts and lists;
    every leaf under a key in `numbers` must be a finite number >= 0. Errors name the file
    and the field. The document is parsed again when the file changed (size or modification
    time); callers only read it."""
    try:
        st = Path(path).stat()
        key: Any = (str(path), st.st_mtime_ns, st.st_size, numbers)
    except OSError:
        key = None
    hit = _LAST.get(key) if key is not None else None
    if hit is not None:
        doc, ctx = hit
        ctx["last"] = "(top level)"
        _STATE.ctx = ctx
        return doc
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise WpartFileNotFoundError(f"{path}: preset file not found") from None
    except OSError as exc:
        raise WpartOSError(f"{path}: cannot read the preset file: {exc}") from None
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise WpartValueError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise WpartValueError(f"{path}: top level must be an object, got {type(doc).__name__}")
    _check_numbers(doc, "", None, numbers, path)
    ctx = {"file": str(path), "last": "(top level)"}
    _STATE.ctx = ctx
    out = _wrap(doc, "", ctx)
    if key is not None:
        _LAST.clear()
        _LAST[key] = (out, ctx)
    return out


def file_errors(*args: str) -> Callable:
    """Decorator: errors raised while building from a document of :func:`load_doc` name its
    file and the last field read; errors about the call's own arguments `args` (messages
    starting with ```arg```) pass through."""
    own = tuple(f"`{a}`" for a in args)

    def deco(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*a: Any, **k: Any) -> Any:
            _STATE.ctx = None
            try:
                return f(*a, **k)
            except WpartError as exc:
                ctx = getattr(_STATE, "ctx", None)
                msg = str(exc)
                if ctx is None or msg.startswith(ctx["file"]) or msg.startswith(own):
                    raise
                raise type(exc)(f"{ctx['file']}: {msg} (a value of the file; last field read: "
                                f"{ctx['last']})") from None
            except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
                ctx = getattr(_STATE, "ctx", None)
                if ctx is None:
                    raise
                raise WpartValueError(f"{ctx['file']}: malformed value near {ctx['last']} "
                                      f"({type(exc).__name__}: {exc})") from None
            finally:
                _STATE.ctx = None

        return wrapper

    return deco
