"""Reader and writer of the vt / LBAF ``LBDatafile`` JSON format.

One JSON file per rank, optionally brotli-compressed (detected by trying a JSON parse first).
``SendRecv`` communications between two objects (entity ``type`` "object" or none) become
edges weighted by ``bytes``; an edge naming a task that is not in the phase is an error naming
the file and the edge. Not task-to-task edges, and skipped: other communication types,
endpoints of another entity type (a node), and endpoints marked ``"migratable": false`` that
are not tasks of the phase (objects pinned to a rank, such as vt's object groups, which vt
lists as communication partners only). Shared blocks come from each task's
``user_defined`` (``shared_id``, ``shared_bytes``, ``home_rank``), memory from
``task_footprint_bytes``, ``task_working_bytes`` and ``rank_working_bytes``.
"""

from __future__ import annotations

from .._errors import WpartFileNotFoundError, WpartTypeError, WpartValueError

import glob
import json
import math
import os
import re
from typing import Any

import numpy as np

from .._validate import as_bool, as_int, as_m, renamed
from .._keywords import checked_keywords
from .._validate import positional_deprecated
from ._lbdf_fields import check_keys
from ._problem import INT32_LIMIT, Problem

__all__ = ["LBDatafileError", "read_lbdatafile", "write_lbdatafile"]


class LBDatafileError(WpartValueError):
    """A malformed LBDatafile: the message names the file and the field."""


class LBDatafileTypeError(LBDatafileError, WpartTypeError):
    """A field of an LBDatafile holding a value of the wrong type (also a TypeError)."""


#: Default cap on the bytes of one rank file, after brotli decompression (1 GiB).
MAX_BYTES = 1 << 30
#: Longest number literal accepted (characters); LBDatafile numbers have at most ~25.
MAX_NUMBER_CHARS = 1000
# bytes that may be part of a JSON number -> 1, others -> 0: a run of MAX_NUMBER_CHARS + 1
# ones is found with bytes.translate and a substring search (C speed; a regex took ~25 ms/MB)
_NUM_TABLE = bytes(1 if chr(i) in "-+.eE0123456789" else 0 for i in range(256))
_LONG_RUN = b"\x01" * (MAX_NUMBER_CHARS + 1)


class _TooLong(str):
    """A number literal longer than :data:`MAX_NUMBER_CHARS`, kept aside to name its field."""



def _short(v: Any) -> str:
    """repr of a value read from a file, at most 80 characters (a hostile file can hold a
    string of megabytes)."""
    r = repr(v)
    return r if len(r) <= 80 else f"{r[:80]}... ({len(r)} characters)"

def _number_hook(kind: type) -> Any:
    def parse(s: str) -> Any:
        return _TooLong(s) if len(s) > MAX_NUMBER_CHARS else kind(s)
    return parse


def _find_too_long(doc: Any, where: str = "") -> str | None:
    """The field path of the first :class:`_TooLong` number in `doc` (iterative walk)."""
    stack = [(doc, where)]
    while stack:
        x, w = stack.pop()
        if isinstance(x, _TooLong):
            return w or "(top level)"
        if isinstance(x, dict):
            stack.extend((v, f"{w}.{k}" if w else str(k)) for k, v in reversed(list(x.items())))
        elif isinstance(x, list):
            stack.extend((v, f"{w}[{i}]") for i, v in reversed(list(enumerate(x))))
    return None


def _line_col(text: bytes, pos: int) -> str:
    line = text.count(b"\n", 0, pos) + 1
    col = pos - text.rfind(b"\n", 0, pos)
    return f"line {line}, column {col}"


def _deepest(text: bytes) -> int:
    """Offset where bracket nesting (ignoring strings only roughly) is deepest; error path."""
    depth, best, at, chunk = 0, -1, 0, 1 << 22
    for off in range(0, len(text), chunk):
        b = np.frombuffer(text, dtype=np.uint8, count=min(chunk, len(text) - off), offset=off)
        d = ((b == 91) | (b == 123)).astype(np.int64) - ((b == 93) | (b == 125))
        c = np.cumsum(d) + depth
        if c.size:
            i = int(c.argmax())
            if c[i] > best:
                best, at = int(c[i]), off + i
            depth = int(c[-1])
    return at


def _decompress(path: str, raw: bytes, max_bytes: int, brotli: Any) -> bytes:
    """Brotli-decompress `raw` incrementally, stopping once more than `max_bytes` come out.
    Input goes in 1 MiB at a time while the decoder accepts it; then its pending output is
    drained (``process(b"")``) until the stream ends or no progress is made (brotli 1.2:
    ``can_accept_more_data()`` is True with output still pending once all input is in)."""
    dec = brotli.Decompressor()
    out, size, step, pos = [], 0, 1 << 20, 0
    while True:
        if pos < len(raw) and dec.can_accept_more_data():
            piece, pos = raw[pos:pos + step], pos + step
        else:
            piece = b""
        data = dec.process(piece, output_buffer_limit=step)
        size += len(data)
        if size > max_bytes:
            raise LBDatafileError(f"{path}: decompressed content exceeds max_bytes = {max_bytes} "
                                  "bytes (pass a larger max_bytes= to read it)")
        out.append(data)
        if dec.is_finished() and pos >= len(raw):
            break
        if not piece and not data:  # no progress: the input is spent (or the decoder stuck)
            break
    if not dec.is_finished() or pos < len(raw):
        raise EOFError("incomplete brotli stream")
    return b"".join(out)


def _parse_json(path: str, text: bytes) -> Any:
    """Parse JSON bytes with bounded nesting and number length; every error names the file
    and where (field path, or line and column)."""
    long_num = _LONG_RUN in text.translate(_NUM_TABLE)
    kw = dict(parse_int=_number_hook(int), parse_float=_number_hook(float)) if long_num else {}
    try:
        doc = json.loads(text.decode("utf-8-sig"), **kw)
    except RecursionError:
        raise LBDatafileError(f"{path}: JSON nesting too deep (around "
                              f"{_line_col(text, _deepest(text))})") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int digit limit
        err = LBDatafileError(f"{path}: not valid JSON: {exc}")
        err.not_json = True
        raise err from None
    if long_num:
        where = _find_too_long(doc)
        if where is not None:
            raise LBDatafileError(f"{path}: {where}: number longer than {MAX_NUMBER_CHARS} "
                                  "characters")
    return doc


def _read_capped(fh: Any, max_bytes: int) -> bytes:
    """At most ``max_bytes + 1`` bytes of `fh`, read in pieces of at most 1 MiB: a single
    ``read(max_bytes + 1)`` would first allocate the whole cap (1 GiB by default) for every
    file, which costs little with the C library's allocator but makes memory checkers touch
    gigabytes per rank file."""
    pieces, size = [], 0
    while size <= max_bytes:
        piece = fh.read(min(1 << 20, max_bytes + 1 - size))
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces)


def _load_json(path: str, max_bytes: int = MAX_BYTES) -> Any:
    """One rank file as JSON: plain, or brotli-compressed (decompressed with a size cap)."""
    try:
        with open(path, "rb") as fh:
            raw = _read_capped(fh, max_bytes)
    except OSError as exc:
        raise LBDatafileError(f"{path}: cannot read the file: {exc}") from None
    if len(raw) > max_bytes:
        raise LBDatafileError(f"{path}: file exceeds max_bytes = {max_bytes} bytes (pass a "
                              "larger max_bytes= to read it)")
    try:
        return _parse_json(path, raw)
    except LBDatafileError as exc:
        if not getattr(exc, "not_json", False):
            raise
        exc_json = exc
    try:
        import brotli
    except ImportError:  # pragma: no cover - brotli is a dependency
        raise LBDatafileError(f"{exc_json} (and brotli is not installed to try decompressing "
                              "it)") from None
    try:
        data = _decompress(path, raw, max_bytes, brotli)
    except LBDatafileError:
        raise
    except Exception:  # noqa: BLE001 -- brotli.error and the like
        raise LBDatafileError(f"{exc_json} (nor complete brotli-compressed JSON)") from None
    try:
        return _parse_json(path, data)
    except LBDatafileError as exc:
        raise LBDatafileError(f"{exc} (in the brotli-compressed content)") from None


_RANK_RE = re.compile(r"\.(\d+)\.[^./\\]+$")


def _load_vom(path: str, max_bytes: int = MAX_BYTES) -> dict:
    """A rank file of vt's older text format (``<stem>.<rank>.vom``: one ``phase,object
    id,time`` line per task and phase, no communications) as the LBDatafile it stands for:
    every object migratable, on the file's rank."""
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            raise LBDatafileError(f"{path}: file exceeds max_bytes = {max_bytes} bytes (pass a "
                                  "larger max_bytes= to read it)")
        with open(path, encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise LBDatafileError(f"{path}: cannot read the file: {exc}") from None
    except UnicodeDecodeError as exc:
        raise LBDatafileError(f"{path}: not a text file: {exc}") from None
    rank = _rank_from_name(path)
    if rank is None:
        raise LBDatafileError(f"{path}: no rank in the file name (<stem>.<rank>.vom)")
    phases: dict = {}
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = [x.strip() for x in line.split(",")]
        try:
            if len(parts) != 3:
                raise ValueError(f"{len(parts)} fields")
            ph, oid, t = int(parts[0]), int(parts[1]), float(parts[2])
        except ValueError as exc:
            raise LBDatafileError(f"{path}: line {i}: expected `phase,object id,time` "
                                  f"({exc})") from None
        ent = {"type": "object", "id": oid, "home": rank, "migratable": True}
        phases.setdefault(ph, []).append({"entity": ent, "node": rank, "resource": "cpu",
                                          "time": t})
    return {"type": "LBDatafile", "metadata": {"type": "LBDatafile", "rank": rank},
            "phases": [{"id": ph, "tasks": ts} for ph, ts in phases.items()]}


def _rank_from_name(path: str) -> int | None:
    m = _RANK_RE.search(os.path.basename(path))
    return int(m.group(1)) if m else None


def _expand(paths: Any) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        p = os.fspath(paths)
        if os.path.isdir(p):
            files = sorted(f for f in glob.glob(os.path.join(p, "*")) if _rank_from_name(f) is not None
                           and not f.endswith((".yaml", ".png", ".csv", ".md")))
        elif os.path.isfile(p):
            files = [p]
        else:
            files = sorted(f for f in glob.glob(glob.escape(p) + ".*")
                           if re.fullmatch(r"\.\d+\.[^./\\]+", f[len(p):]))
        if not files:
            raise WpartFileNotFoundError(f"`paths`: no LBDatafile found for {p!r}")
        return files
    try:
        files = [os.fspath(x) for x in paths]
    except TypeError:
        raise WpartTypeError("`paths` must be a path, a stem or a list of paths") from None
    if not files:
        raise WpartValueError("`paths` is empty")
    return files


def _need(d: Any, key: str, where: str, types: tuple, path: str) -> Any:
    field = f"{where}.{key}" if where else key
    if not isinstance(d, dict) or key not in d:
        raise LBDatafileError(f"{path}: {field}: missing field")
    v = d[key]
    if isinstance(v, bool) and bool not in types:
        raise LBDatafileError(f"{path}: {field}: expected {types[0].__name__}, got bool")
    if not isinstance(v, types):
        raise LBDatafileError(f"{path}: {field}: expected "
                              f"{' or '.join(t.__name__ for t in types)}, got {type(v).__name__}")
    return v


def _num(d: dict, key: str, where: str, path: str, default: float | None = None) -> float | None:
    if key not in d:
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise LBDatafileError(f"{path}: {where}.{key}: expected a number, got {type(v).__name__}")
    try:
        v = float(v)
    except OverflowError:  # an integer literal beyond the float range (up to 1000 digits)
        raise LBDatafileError(f"{path}: {where}.{key}: must be finite and non-negative, got "
                              f"an integer of {v.bit_length()} bits (beyond the float range)"
                              ) from None
    if not math.isfinite(v) or v < 0:
        raise LBDatafileError(f"{path}: {where}.{key}: must be finite and non-negative, got {v}")
    return v


def _int64(d: dict, key: str, where: str, path: str) -> int:
    """``d[key]``, an integer in the int64 range (ids: ``entity.id``, ``shared_id``)."""
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise LBDatafileError(f"{path}: {where}.{key}: expected an integer")
    if not -(2**63) <= v < 2**63:
        raise LBDatafileError(f"{path}: {where}.{key}: {_short(v)} is outside the int64 range")
    return v


def _entity_key(ent: Any, where: str, path: str) -> tuple[str, int]:
    if not isinstance(ent, dict):
        raise LBDatafileError(f"{path}: {where}: expected an object")
    for k in ("id", "seq_id"):
        if k in ent:
            return (k, _int64(ent, k, where, path))
    raise LBDatafileError(f"{path}: {where}: entity needs `id` or `seq_id`")


def _in_listing(listing: Any, phase: int, where: str, f: str) -> bool:
    """Whether `phase` is in a ``{"list": [...], "range": [[a, b], ...]}`` listing of
    ``metadata.phases`` (ranges inclusive)."""
    if listing is None:
        return False
    if not isinstance(listing, dict):
        raise LBDatafileError(f"{f}: {where}: expected an object with `list` and `range`")
    for k in listing:
        if k not in ("list", "range"):
            raise LBDatafileError(f"{f}: {where}.{k}: a field the LBDatafile format does not "
                                  "define here (known: list, range)")
    ids = listing.get("list", [])
    ranges = listing.get("range", [])
    if not isinstance(ids, list) or any(isinstance(i, bool) or not isinstance(i, int)
                                        for i in ids):
        raise LBDatafileError(f"{f}: {where}.list: expected a list of phase ids")
    if not isinstance(ranges, list) or any(
            not isinstance(r, list) or len(r) != 2
            or any(isinstance(i, bool) or not isinstance(i, int) for i in r) for r in ranges):
        raise LBDatafileError(f"{f}: {where}.range: expected a list of [first, last] pairs")
    return phase in ids or any(a <= phase <= b for a, b in ranges)


def _check_type(d: dict, where: str, f: str) -> None:
    if "type" in d and d["type"] != "LBDatafile":
        raise LBDatafileError(f"{f}: {where + '.' if where else ''}type: {_short(d['type'])} is not "
                              "\"LBDatafile\" (not this format)")


def _check_entity(ent: dict, where: str, f: str, m: int, strict: bool, level: str) -> bool:
    """Keys, ``home`` (a rank in [0, m)) and ``migratable`` of an entity; returns whether it
    may move."""
    check_keys(ent, level, where, f, strict)
    if "home" in ent:
        h = ent["home"]
        if isinstance(h, bool) or not isinstance(h, int) or not 0 <= h < m:
            raise LBDatafileError(f"{f}: {where}.home: expected a rank in [0, {m}), got {_short(h)}")
    mig = ent.get("migratable", True)
    if not isinstance(mig, bool):
        raise LBDatafileError(f"{f}: {where}.migratable: expected true or false, got {_short(mig)}")
    return mig


def _parse_phase(f: str, doc: dict, rank: int, m: int, phase: int | None,
                 seen: set | None = None, *, strict: bool = True,
                 extra: dict | None = None) -> tuple:
    """One rank file's phase (the first listed if `phase` is None), validated field by field
    (the rules of :data:`wpart.tasks._lbdf_fields.FIELDS`); task keys already in `seen`
    (when given) are duplicates, new ones are added to it.

    Returns ``(phase, rank_alpha or None, tasks, comms)``: ``tasks`` as tuples ``(where, key,
    entity, time, footprint, working, rank_working, shared_id or None, shared_bytes, home)``,
    ``comms`` as ``(index, src_key, dst_key, bytes, where, pinned)`` for the ``SendRecv``
    entries between two objects, ``pinned`` telling for each end whether it is marked
    ``"migratable": false``. With `extra` (a dict), also fills ``extra["tasks"]`` (each task's
    object as read, aligned with ``tasks``), ``extra["comms"]`` (each edge's object, aligned
    with ``comms``) and ``extra["rank"]`` (what the file holds that is no task or edge:
    ``metadata`` less ``rank``/``rank_alpha``, the phase's other fields and its other
    communications), all kept verbatim for the writer.
    """
    check_keys(doc, "", "", f, strict)
    _check_type(doc, "", f)
    meta = doc.get("metadata", {})
    check_keys(meta, "metadata", "metadata", f, strict)
    _check_type(meta, "metadata", f)
    ra = _num(meta, "rank_alpha", "metadata", f) if "rank_alpha" in meta else None
    mph = meta.get("phases")
    if mph is not None:
        if not isinstance(mph, dict):
            raise LBDatafileError(f"{f}: metadata.phases: expected an object")
        check_keys(mph, "metadata.phases", "metadata.phases", f, strict)
    phases = _need(doc, "phases", "", (list,), f)
    if phase is None:
        if not phases:
            raise LBDatafileError(f"{f}: phases: empty list")
        phase = _need(phases[0], "id", "phases[0]", (int,), f)
    found = None
    ids_seen: dict = {}
    for pi, ph in enumerate(phases):
        pid = _need(ph, "id", f"phases[{pi}]", (int,), f)
        if pid in ids_seen:
            raise LBDatafileError(f"{f}: phases[{pi}].id: phase {pid} is listed twice (also "
                                  f"phases[{ids_seen[pid]}])")
        ids_seen[pid] = pi
        if pid == phase:
            found = (pi, ph)
    if found is None and mph is not None:
        if _in_listing(mph.get("skipped"), phase, "metadata.phases.skipped", f):
            raise LBDatafileError(f"{f}: metadata.phases.skipped: phase {phase} was skipped "
                                  "(vt did not record it)")
        if _in_listing(mph.get("identical_to_previous"), phase,
                       "metadata.phases.identical_to_previous", f):
            before = [pid for pid in ids_seen if pid < phase]
            if before:
                pi = ids_seen[max(before)]
                found = (pi, phases[pi])
    if found is None:
        raise LBDatafileError(f"{f}: phases: no phase with id {phase} (ids: "
                              f"{list(ids_seen)})")
    pi, ph = found
    check_keys(ph, "phase", f"phases[{pi}]", f, strict)
    raw_tasks: list = []
    tasks = []
    for ti, t in enumerate(_need(ph, "tasks", f"phases[{pi}]", (list,), f)):
        where = f"phases[{pi}].tasks[{ti}]"
        ent = _need(t, "entity", where, (dict,), f)
        check_keys(t, "task", where, f, strict)
        key = _entity_key(ent, where + ".entity", f)
        mig = _check_entity(ent, where + ".entity", f, m, strict, "entity")
        if not mig and ent.get("home", rank) != rank:
            raise LBDatafileError(f"{f}: {where}.entity.home: the task is pinned "
                                  f"(\"migratable\": false) but listed on rank {rank}, not on "
                                  f"its home rank {ent['home']}")
        if "node" in t:
            nd = t["node"]
            if isinstance(nd, bool) or not isinstance(nd, int) or nd != rank:
                raise LBDatafileError(f"{f}: {where}.node: {_short(nd)} is not the file's rank "
                                      f"{rank} (the rank the task ran on)")
        if seen is not None:
            if key in seen:
                raise LBDatafileError(f"{f}: {where}.entity: duplicate task {key[0]} {key[1]}")
            seen.add(key)
        time = _num(t, "time", where, f)
        if time is None:
            raise LBDatafileError(f"{f}: {where}.time: missing field")
        ud = t.get("user_defined", {})
        if not isinstance(ud, dict):
            raise LBDatafileError(f"{f}: {where}.user_defined: expected an object")
        uw = where + ".user_defined"
        tfp = _num(ud, "task_footprint_bytes", uw, f, 0.0)
        twk = _num(ud, "task_working_bytes", uw, f, 0.0)
        rw = _num(ud, "rank_working_bytes", uw, f, 0.0)
        sid, size, home = None, 0.0, rank
        if "shared_id" in ud:
            sid = _int64(ud, "shared_id", uw, f)
            size = _num(ud, "shared_bytes", uw, f, 0.0)
            home = ud.get("home_rank", rank)
            if isinstance(home, bool) or not isinstance(home, int) or not 0 <= home < m:
                raise LBDatafileError(f"{f}: {uw}.home_rank: expected a rank in [0, {m}), "
                                      f"got {_short(home)}")
        tasks.append((where, key, ent, time, tfp, twk, rw, sid, size, home))
        raw_tasks.append(t)
    comms, raw_comms, other_comms = [], [], []
    # optional (absent: no edges), but a list when present: null, false or "" is not "no
    # communications" in vt's schema, and wpart cannot tell what the writer meant
    cl = ph.get("communications", [])
    if not isinstance(cl, list):
        raise LBDatafileError(f"{f}: phases[{pi}].communications: expected a list (or no "
                              f"such key), got {'null' if cl is None else type(cl).__name__}")
    for ci, c in enumerate(cl):
        where = f"phases[{pi}].communications[{ci}]"
        if not isinstance(c, dict):
            raise LBDatafileError(f"{f}: {where}: expected an object")
        check_keys(c, "communication", where, f, strict)
        ends = (_need(c, "from", where, (dict,), f), _need(c, "to", where, (dict,), f))
        pinned = tuple(not _check_entity(e, f"{where}.{n}", f, m, strict, "endpoint")
                       for e, n in zip(ends, ("from", "to")))
        if c.get("type", "SendRecv") != "SendRecv" or any(
                e.get("type", "object") != "object" for e in ends):
            other_comms.append(c)  # not an edge between two objects (a node, a broadcast)
            continue
        src = _entity_key(ends[0], where + ".from", f)
        dst = _entity_key(ends[1], where + ".to", f)
        b = _num(c, "bytes", where, f)
        if b is None:
            raise LBDatafileError(f"{f}: {where}.bytes: missing field")
        comms.append((ci, src, dst, b, where, pinned))
        raw_comms.append(c)
    if extra is not None:
        keep_meta = {k: v for k, v in meta.items() if k not in ("rank", "rank_alpha")}
        keep_phase = {k: v for k, v in ph.items()
                      if k not in ("id", "tasks", "communications")}
        extra.update(tasks=raw_tasks, comms=raw_comms,
                     rank={"top": {k: v for k, v in doc.items()
                                   if k not in ("metadata", "phases")},
                           "metadata": keep_meta, "phase": keep_phase,
                           "communications": other_comms})
    return phase, ra, tasks, comms


@renamed(n_ranks="m")
@positional_deprecated("phase")
def read_lbdatafile(paths: Any, *, phase: int | None = None, m: int | None = None,
                    rank_mem_cap: Any = None, max_bytes: int = MAX_BYTES,
                    strict: bool = True):
    """Read an LBDatafile data set into a :class:`~wpart.tasks.Problem`.

    Parameters
    ----------
    paths : path, stem or list of paths
        One file per rank.
    phase : int, optional
        Phase id (default: the first phase listed in the first file).
    m : int, optional
        Number of ranks (default: 1 + the largest rank found; ``n_ranks=`` is a deprecated
        alias).
    rank_mem_cap : float or array_like, optional
        Per-rank memory cap to attach.
    max_bytes : int, default 2**30
        Largest accepted size of one rank file, after brotli decompression (which stops as
        soon as the cap is passed, so a small compressed "bomb" cannot exhaust memory).
    strict : bool, default True
        Reject a key that the LBDatafile format does not define (outside the free-form
        ``user_defined`` and ``attributes`` objects), since wpart cannot tell whether it
        changes the meaning of the data; False ignores such keys (they are kept and written
        back by :func:`write_lbdatafile`).

    Returns
    -------
    Problem
        Tasks in the order of the ranks' files, then of each file; ``migratable`` from each
        entity (a pinned task starts, and stays, on the rank of its file). ``meta`` keeps
        what wpart does not model (every task's and edge's object as read, each rank's
        other fields) for :func:`write_lbdatafile`.

    Raises
    ------
    LBDatafileError
        Malformed content; the message names the file and the field (``phases[0].tasks[3].time``),
        or the communication edge that names a task not in the phase. The rules of the
        format that wpart enforces (the README's LBDatafile table): a gap in the ranks of
        the files (rank files 0, 2, 3 without 1), two files of one rank, a
        ``metadata.rank`` other than the rank in the file name, an ``entity.home`` or
        ``home_rank`` outside ``[0, m)``, a pinned task listed away from its home, a task
        whose ``node`` is not its file's rank, a non-boolean ``migratable``, a phase listed
        twice, a skipped or missing phase, and (with `strict`) a key the format does not
        define. Also a file larger
        than `max_bytes` (decompressed), nesting deeper than the JSON parser's recursion
        limit (reported with its line and column) and a number literal longer than
        1000 characters (reported with its field).
    """
    if phase is not None:
        phase = as_int(phase, "phase")
    max_bytes = as_int(max_bytes, "max_bytes", minimum=1)
    strict = as_bool(strict, "strict")
    files = _expand(paths)
    per_rank: dict[int, tuple[str, dict]] = {}
    for f in files:
        doc = _load_vom(f, max_bytes) if f.endswith(".vom") else _load_json(f, max_bytes)
        if not isinstance(doc, dict):
            raise LBDatafileError(f"{f}: top level must be an object")
        meta = doc.get("metadata", {})
        if not isinstance(meta, dict):
            raise LBDatafileError(f"{f}: metadata: expected an object")
        named = _rank_from_name(f)
        rank = meta.get("rank", named)
        if "rank" in meta and (isinstance(rank, bool) or not isinstance(rank, int)):
            raise LBDatafileTypeError(f"{f}: metadata.rank: type error: expected an integer, got "
                                  f"{type(rank).__name__} {_short(rank)}")
        if rank is None or isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise LBDatafileError(f"{f}: metadata.rank: missing or invalid, and no rank in the "
                                  "file name")
        if named is not None and rank != named:
            raise LBDatafileError(f"{f}: metadata.rank: {rank} is not the rank {named} of the "
                                  "file name")
        if rank >= 2**31:
            raise LBDatafileError(f"{f}: metadata.rank: {rank} is not below 2^31")
        if rank in per_rank:
            raise LBDatafileError(f"{f}: rank {rank} already read from {per_rank[rank][0]}")
        per_rank[rank] = (f, doc)
    I = max(per_rank) + 1 if m is None else as_m(m, "m", maximum=INT32_LIMIT)
    if I <= max(per_rank):
        raise WpartValueError(f"`m` = {I} but a file has rank {max(per_rank)}")
    _vom_idle(per_rank)  # an idle rank's .vom file lists no phase
    _one_set(per_rank)  # one output set: its manifest, else the same phases in every file
    _check_gaps(per_rank)
    keys: dict[tuple[str, int], int] = {}
    seen: set = set()
    load, fp, wk, init, shared, entities, mig = [], [], [], [], [], [], []
    blocks: dict[int, list] = {}  # shared_id -> [size, home, home given, file, where]
    baseline = np.zeros(I)
    alpha = np.ones(I)
    has_alpha = False
    comms = []
    raw_tasks: list = []
    rank_extra: dict = {}
    for rank in sorted(per_rank):
        f, doc = per_rank[rank]
        ex: dict = {}
        phase, ra, tasks, cl = _parse_phase(f, doc, rank, I, phase, seen, strict=strict,
                                            extra=ex)
        raw_tasks.extend(ex["tasks"])
        rank_extra[rank] = ex["rank"]
        if ra is not None:
            alpha[rank] = ra
            has_alpha = True
        for (where, key, ent, time, tfp, twk, rw, sid, size, home), raw in zip(tasks,
                                                                                ex["tasks"]):
            keys[key] = len(load)
            load.append(time)
            init.append(rank)
            entities.append(ent)
            mig.append(ent.get("migratable", True))
            fp.append(tfp)
            wk.append(twk)
            baseline[rank] = max(baseline[rank], rw)
            if sid is not None:
                explicit = "home_rank" in raw.get("user_defined", {})
                _block(blocks, sid, size, home, explicit, f, where)
            shared.append(sid)
        comms.extend((f,) + c[1:] + (rank, raw) for c, raw in zip(cl, ex["comms"]))
    edges, eb, raw_edges, side = [], [], [], []
    for f, src, dst, b, where, pinned, rank, raw in comms:
        if any(key not in keys and pin for key, pin in zip((src, dst), pinned)):
            # a pinned object that is not a task: not a task-to-task edge (kept verbatim)
            rank_extra[rank]["communications"].append(raw)
            continue
        for end, key in (("from", src), ("to", dst)):
            if key not in keys:
                raise LBDatafileError(
                    f"{f}: {where}.{end}: the edge {src[0]} {src[1]} -> {dst[0]} {dst[1]} "
                    f"({b:g} bytes) names {key[0]} {key[1]}, which is not a task of phase "
                    f"{phase} in any file")
        edges.append((keys[src], keys[dst]))
        eb.append(b)
        raw_edges.append(raw)
        # the file that listed it: the sender's rank, or (as vt writes some) the receiver's
        side.append(int(rank == init[keys[dst]] and rank != init[keys[src]]))
    sids = sorted(blocks)
    bidx = {s: i for i, s in enumerate(sids)}
    K = len(load)
    if K == 0:
        raise LBDatafileError(f"{files[0]}: phase {phase} has no tasks in any file")
    task_block = np.array([-1 if s is None else bidx[s] for s in shared], dtype=np.int32)
    ids = np.array([k[1] for k in keys], dtype=np.int64)
    prob = Problem(
        task_load=np.array(load),
        m=I,
        task_block=task_block if sids else None,
        block_size=np.array([blocks[s][0] for s in sids]) if sids else None,
        block_home=np.array([blocks[s][1] for s in sids], dtype=np.int32) if sids else None,
        edges=np.array(edges, dtype=np.int64).reshape(-1, 2) if edges else None,
        edge_bytes=np.array(eb) if edges else None,
        task_footprint=np.array(fp) if any(fp) else None,
        task_working=np.array(wk) if any(wk) else None,
        rank_baseline=baseline if baseline.any() else None,
        rank_mem_cap=(np.full(I, float(rank_mem_cap)) if np.ndim(rank_mem_cap) == 0
                      else rank_mem_cap) if rank_mem_cap is not None else None,
        rank_alpha=alpha if has_alpha else None,
        initial=np.array(init, dtype=np.int32),
        task_ids=ids,
        block_ids=np.array(sids, dtype=np.int64),
        migratable=np.array(mig, dtype=bool),
        meta={"files": files, "phase": phase, "entities": entities,
              "lbdatafile": {"tasks": raw_tasks, "edges": raw_edges, "edge_side": side,
                             "ranks": rank_extra}},
    )
    return prob


def _block(blocks: dict, sid: int, size: float, home: int, explicit: bool, f: str,
           where: str) -> None:
    """Record shared block `sid` as a task lists it: one size and one home per block (a
    ``home_rank`` given wins over the default, the rank of the first file listing the
    block); two different sizes or two different ``home_rank`` values are rejected."""
    b = blocks.get(sid)
    if b is None:
        blocks[sid] = [size, home, explicit, f, where]
        return
    uw = f"{where}.user_defined"
    if size != b[0]:
        raise LBDatafileError(f"{f}: {uw}.shared_bytes: block {sid} has {size:g} bytes here "
                              f"but {b[0]:g} in {b[3]}: {b[4]}")
    if explicit and b[2] and home != b[1]:
        raise LBDatafileError(f"{f}: {uw}.home_rank: block {sid} is homed on rank {home} "
                              f"here but on rank {b[1]} in {b[3]}: {b[4]}")
    if explicit and not b[2]:
        blocks[sid] = [size, home, True, f, where]


def _vom_idle(per_rank: dict) -> None:
    """A ``.vom`` file lists only the phases in which its rank ran a task (an idle rank's file
    is empty): give it, as phases without tasks, the phases that the other files list (in
    order of first listing), so that an idle rank reads as a rank with no tasks."""
    vom = [r for r, (f, _) in per_rank.items() if f.endswith(".vom")]
    ids: dict = {}
    for r in sorted(per_rank) if vom else ():
        phs = per_rank[r][1].get("phases")
        for ph in phs if isinstance(phs, list) else ():
            pid = ph.get("id") if isinstance(ph, dict) else None
            if isinstance(pid, int) and not isinstance(pid, bool):
                ids.setdefault(pid, None)
    for r in vom:
        phs = per_rank[r][1]["phases"]
        have = {ph["id"] for ph in phs}
        phs.extend({"id": pid, "tasks": []} for pid in ids if pid not in have)


def _one_set(per_rank: dict) -> None:
    from ._io_set import check_set

    ids: dict | None = {}
    for r, (_, doc) in per_rank.items():
        phs = doc.get("phases")
        if not isinstance(phs, list) or not all(isinstance(p, dict) for p in phs):
            ids = None  # malformed: reported field by field later
            break
        ids[r] = [p.get("id") for p in phs]
    if ids is not None and any(not isinstance(i, int) for v in ids.values() for i in v):
        ids = None
    check_set({r: f for r, (f, _) in per_rank.items()}, ids)


def _check_gaps(per_rank: dict) -> None:
    """Every rank from 0 to the largest has its file (LBAF and vt write one per rank)."""
    top = max(per_rank)
    if len(per_rank) == top + 1:
        return
    missing = [r for r in range(top + 1) if r not in per_rank][:5]
    f0 = per_rank[min(per_rank)][0]
    name = _RANK_RE.sub(lambda mt: f".{missing[0]}" + mt.group(0)[len(mt.group(1)) + 1:],
                        f0) if _rank_from_name(f0) is not None else None
    have = sorted(per_rank)
    raise LBDatafileError(
        f"{name or f0}: missing: no file for rank {missing[0]}"
        + (f" (nor ranks {missing[1:]})" if len(missing) > 1 else "")
        + f" among the rank files {have[:8]}{' ...' if len(have) > 8 else ''} (up to rank "
        f"{top}); every rank of a stem needs its file")


# ---------------------------------------------------------------- the Problem methods
@positional_deprecated("phase")
@checked_keywords
def from_lbdatafile(cls: type, paths: Any, *, phase: int | None = None, m: int | None = None,
                     rank_mem_cap: Any = None, max_bytes: int = MAX_BYTES,
                     strict: bool = True) -> Problem:
    """Read vt / LBAF ``LBDatafile`` JSON files (one per rank, brotli allowed).

    `paths` is a list of files, a directory, or a stem ``dir/name`` for files
    ``dir/name.<rank>.json``. The phase defaults to the first phase of rank 0's file.
    The initial assignment is the rank of the file listing each task. The options `phase`,
    `m`, `rank_mem_cap`, `max_bytes` and `strict` are those of
    :func:`wpart.tasks.read_lbdatafile` (see there).
    """
    return read_lbdatafile(paths, phase=phase, m=m, rank_mem_cap=rank_mem_cap,
                           max_bytes=max_bytes, strict=strict)


@positional_deprecated("assignment")
def _to_lbdatafile(self: Problem, stem: str, *, assignment: Any = None,
                   phase: int | None = None, compress: bool = False) -> list[str]:
    """Write one ``LBDatafile`` per rank, ``<stem>.<rank>.json``, of the problem under
    `assignment` (default: its initial one); returns the paths. Every field read from an
    LBDatafile is written back (see :func:`wpart.tasks.write_lbdatafile`)."""
    return write_lbdatafile(self, stem, assignment=assignment, phase=phase, compress=compress)


from ._io_write import write_lbdatafile  # noqa: E402 (the writer needs LBDatafileError)

Problem.from_lbdatafile = classmethod(from_lbdatafile)  # type: ignore[attr-defined]
Problem.to_lbdatafile = _to_lbdatafile  # type: ignore[attr-defined]
