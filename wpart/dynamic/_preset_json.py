"""Loading of the platform preset JSON, and of a platform JSON file, with errors that name
the file and the field.

:func:`load_doc` parses the file into dicts and lists that remember their path and record the
last field read; :func:`file_errors` turns any error met while building from that document (a
missing field, a value of the wrong type) into a :class:`wpart.WpartValueError` naming the file
and that field, instead of a bare ``KeyError`` / ``JSONDecodeError``.

:func:`read_platform` reads a platform file (:meth:`wpart.dynamic.Platform.from_json`): every
field is checked as it is read, and a refusal names the file and the field's JSON path
(``node.json: devices[0].rate: must be > 0, got -100``), keeping the validator's class.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from pathlib import Path
from typing import Any, Callable

from .._errors import WpartError, WpartFileNotFoundError, WpartOSError, WpartValueError

__all__ = ["file_errors", "load_doc", "read_platform"]

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


# ----------------------------------------------------------------- a platform JSON file
#: The keys of a platform file: the top level, every device, and each curve family's own.
PLATFORM_KEYS = ("name", "total", "sigma", "devices")
DEVICE_KEYS = ("kind", "family")
FAMILY_KEYS = {"affine": ("t0", "rate"), "saturating": ("t0", "rate", "bsat"),
               "power": ("t0", "c", "beta"), "table": ("x", "t")}
#: Each number field: (minimum, minimum excluded, maximum).
_NUMBER_RULES = {"t0": (0.0, False, None), "rate": (0.0, True, None),
                 "bsat": (0.0, True, None), "c": (0.0, False, None),
                 "beta": (0.0, True, None), "sigma": (0.0, False, 5.0)}
_INT64_MAX = 2**63 - 1


class _Obj(dict):
    """A JSON object that remembers the keys it was given twice (json keeps the last)."""

    twice: tuple = ()


def _pairs(pairs: list) -> _Obj:
    d = _Obj(pairs)
    if len(d) != len(pairs):
        seen: set = set()
        d.twice = tuple(k for k, _ in pairs if k in seen or seen.add(k))
    return d


def _json_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"the string {v[:60]!r}"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return repr(v)


def _refile(exc: WpartError, file: str, where: str) -> WpartError:
    """`exc` (a validator's error about ```name```) re-raised about the file's field `where`,
    same class."""
    msg = str(exc)
    if msg.startswith("`") and "` " in msg:
        msg = msg[msg.index("` ") + 2:]
    return type(exc)(f"{file}: {where}: {msg}")


def _number(v: Any, file: str, where: str, key: str) -> float:
    from .._errors import WpartTypeError
    from .._validate import as_float

    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise WpartTypeError(f"{file}: {where}: must be a number, got {_json_kind(v)}")
    lo, strict_lo, hi = _NUMBER_RULES.get(key, (0.0, False, None))
    try:
        return as_float(v, key, minimum=lo, strict_minimum=strict_lo, maximum=hi)
    except WpartError as exc:
        raise _refile(exc, file, where) from None


def _object(v: Any, file: str, where: str, accepted: tuple, strict: bool, what: str) -> dict:
    """`v` as a JSON object: keys given twice are refused, and (`strict`) keys outside
    `accepted`."""
    if not isinstance(v, dict):
        raise WpartValueError(f"{file}: {where or '(top level)'}: must be an object "
                              f"{{...}} ({what}), got {_json_kind(v)}")
    pre = f"{where}." if where else ""
    for k in getattr(v, "twice", ()):
        raise WpartValueError(f"{file}: {pre}{k}: given twice (JSON keeps only the last "
                              "value, so one of them would be ignored)")
    if strict:
        for k in v:
            if k not in accepted:
                raise WpartValueError(
                    f"{file}: {pre}{k}: unknown key ({what} accepts {', '.join(accepted)}); "
                    "wpart cannot tell whether it changes the meaning of the platform (read "
                    "with strict=False to ignore it)")
    return v


def _need(d: dict, key: str, file: str, where: str, what: str) -> Any:
    if key not in d:
        raise WpartValueError(f"{file}: {where}{key}: missing ({what})")
    return d[key]


def _table(d: dict, file: str, where: str) -> tuple[list, list]:
    cols = {}
    for key in ("x", "t"):
        v = _need(d, key, file, where, "a list of numbers >= 0")
        if not isinstance(v, list) or not v:
            raise WpartValueError(f"{file}: {where}{key}: must be a non-empty list of numbers "
                                  f">= 0, got {_json_kind(v) if v != [] else 'an empty list'}")
        cols[key] = [_number(e, file, f"{where}{key}[{i}]", key) for i, e in enumerate(v)]
    x, t = cols["x"], cols["t"]
    if len(x) != len(t):
        raise WpartValueError(f"{file}: {where}t: {len(t)} times for {len(x)} sizes in x (one "
                              "time per size)")
    for i in range(1, len(x)):
        if not x[i] > x[i - 1]:
            raise WpartValueError(f"{file}: {where}x[{i}]: the sizes must increase strictly, "
                                  f"got {x[i]!r} after {x[i - 1]!r}")
    if len(x) == 1 and not x[0] > 0:
        raise WpartValueError(f"{file}: {where}x[0]: a one-point table needs a size > 0, got "
                              f"{x[0]!r}")
    return x, t


def read_platform(path: Any, *, strict: bool = True) -> Any:
    """The :class:`~wpart.dynamic.Platform` of the platform JSON file `path` (the layout of
    :meth:`Platform.from_json`). Every refusal names the file and the JSON path of the field
    (``node.json: devices[0].rate: must be > 0, got -100``)."""
    import os

    from .._errors import WpartTypeError
    from .._validate import as_bool, as_int
    from ._sim import PU_KINDS, Affine, Device, Platform, Power, Saturating, Table

    strict = as_bool(strict, "strict")
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise WpartTypeError(f"`path` must be a str or os.PathLike, got {type(path).__name__}")
    p = Path(path)
    file = str(p)
    if p.is_dir():
        raise WpartOSError(f"{file}: is a directory, not a platform JSON file")
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise WpartFileNotFoundError(f"{file}: platform file not found") from None
    except OSError as exc:
        raise WpartOSError(f"{file}: cannot read the platform file: "
                           f"{exc.strerror or exc}") from None
    try:
        doc = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_pairs)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise WpartValueError(f"{file}: not valid JSON: {exc}") from None
    doc = _object(doc, file, "", PLATFORM_KEYS, strict, "a platform")
    name = doc.get("name", p.stem)
    if not isinstance(name, str):
        raise WpartTypeError(f"{file}: name: must be a string, got {_json_kind(name)}")
    total = _need(doc, "total", file, "", "the number of elements, an integer >= 1")
    if isinstance(total, float):
        raise WpartTypeError(f"{file}: total: must be an integer, got {total!r}")
    try:
        total = as_int(total, "total", minimum=1, maximum=_INT64_MAX)
    except WpartError as exc:
        raise _refile(exc, file, "total") from None
    sigma = _number(doc["sigma"], file, "sigma", "sigma") if "sigma" in doc else 0.0
    devices = _need(doc, "devices", file, "", "a list of devices")
    if not isinstance(devices, list) or not devices:
        raise WpartValueError(f"{file}: devices: must be a non-empty list of devices, got "
                              f"{_json_kind(devices) if devices != [] else 'an empty list'}")
    devs = []
    for i, d in enumerate(devices):
        where = f"devices[{i}]."
        if not isinstance(d, dict):
            raise WpartValueError(f"{file}: devices[{i}]: must be an object {{...}} (a device), "
                                  f"got {_json_kind(d)}")
        fam = _need(d, "family", file, where, f"one of {', '.join(FAMILY_KEYS)}")
        if not isinstance(fam, str) or fam not in FAMILY_KEYS:
            raise WpartValueError(f"{file}: {where}family: must be one of "
                                  f"{', '.join(FAMILY_KEYS)}, got {_json_kind(fam)}")
        _object(d, file, f"devices[{i}]", DEVICE_KEYS + FAMILY_KEYS[fam], strict,
                f"{'an' if fam[0] in 'aeiou' else 'a'} {fam} device")
        kind = d.get("kind", "cpu")
        if not isinstance(kind, str) or kind not in PU_KINDS:
            raise WpartValueError(f"{file}: {where}kind: must be one of {', '.join(PU_KINDS)}, "
                                  f"got {_json_kind(kind)}")
        if fam == "table":
            curve: Any = Table(*_table(d, file, where))
        else:
            v = [_number(_need(d, k, file, where, "a number"), file, where + k, k)
                 for k in FAMILY_KEYS[fam]]
            curve = {"affine": Affine, "saturating": Saturating, "power": Power}[fam](*v)
        try:  # every field is checked above: this is a backstop naming the device
            dev = Device(kind, i, curve, sigma=sigma, name=f"{kind}{i}")
            dev._row(i)
        except WpartError as exc:
            raise type(exc)(f"{file}: devices[{i}]: {exc}") from None
        devs.append(dev)
    try:
        return Platform(devs, name=name, n=total)
    except WpartError as exc:  # a backstop, as above
        raise type(exc)(f"{file}: {exc}") from None
