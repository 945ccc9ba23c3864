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

from .._validate import as_int, as_m, renamed
from .._validate import positional_deprecated
from ._problem import INT32_LIMIT, Problem

__all__ = ["LBDatafileError", "read_lbdatafile", "write_lbdatafile"]


class LBDatafileError(WpartValueError):
    """A malformed LBDatafile: the message names the file and the field."""


#: Default cap on the bytes of one rank file, after brotli decompression (1 GiB).
MAX_BYTES = 1 << 30
#: Longest number literal accepted (characters); LBDatafile numbers have at most ~25.
MAX_NUMBER_CHARS = 1000
_LONG_NUMBER = re.compile(rb"[-+.eE0-9]{%d,}" % (MAX_NUMBER_CHARS + 1))


class _TooLong(str):
    """A number literal longer than :data:`MAX_NUMBER_CHARS`, kept aside to name its field."""


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
    """Brotli-decompress `raw` incrementally, stopping once more than `max_bytes` come out."""
    dec = brotli.Decompressor()
    out, size, step, pos = [], 0, 1 << 20, 0
    while True:
        if dec.can_accept_more_data():
            if pos >= len(raw):
                break
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
    if not dec.is_finished():
        raise EOFError("incomplete brotli stream")
    return b"".join(out)


def _parse_json(path: str, text: bytes) -> Any:
    """Parse JSON bytes with bounded nesting and number length; every error names the file
    and where (field path, or line and column)."""
    long_num = _LONG_NUMBER.search(text) is not None
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


def _load_json(path: str, max_bytes: int = MAX_BYTES) -> Any:
    """One rank file as JSON: plain, or brotli-compressed (decompressed with a size cap)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
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


def _rank_from_name(path: str) -> int | None:
    m = _RANK_RE.search(os.path.basename(path))
    return int(m.group(1)) if m else None


def _expand(paths: Any) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        p = os.fspath(paths)
        if os.path.isdir(p):
            files = sorted(f for f in glob.glob(os.path.join(p, "*")) if _rank_from_name(f) is not None
                           and not f.endswith((".yaml", ".png", ".vom", ".csv")))
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
    v = float(v)
    if not math.isfinite(v) or v < 0:
        raise LBDatafileError(f"{path}: {where}.{key}: must be finite and non-negative, got {v}")
    return v


def _entity_key(ent: Any, where: str, path: str) -> tuple[str, int]:
    if not isinstance(ent, dict):
        raise LBDatafileError(f"{path}: {where}: expected an object")
    for k in ("id", "seq_id"):
        if k in ent:
            v = ent[k]
            if isinstance(v, bool) or not isinstance(v, int):
                raise LBDatafileError(f"{path}: {where}.{k}: expected an integer")
            if not -(2**63) <= v < 2**63:
                raise LBDatafileError(f"{path}: {where}.{k}: {v} is outside the int64 range")
            return (k, v)
    raise LBDatafileError(f"{path}: {where}: entity needs `id` or `seq_id`")


def _parse_phase(f: str, doc: dict, rank: int, m: int, phase: int | None,
                 seen: set | None = None) -> tuple:
    """One rank file's phase (the first listed if `phase` is None), validated field by field;
    task keys already in `seen` (when given) are duplicates, new ones are added to it.

    Returns ``(phase, rank_alpha or None, tasks, comms)``: ``tasks`` as tuples ``(where, key,
    entity, time, footprint, working, rank_working, shared_id or None, shared_bytes, home)``,
    ``comms`` as ``(index, src_key, dst_key, bytes, where, pinned)`` for the ``SendRecv``
    entries between two objects, ``pinned`` telling for each end whether it is marked
    ``"migratable": false``.
    """
    meta = doc.get("metadata", {})
    ra = _num(meta, "rank_alpha", "metadata", f) if "rank_alpha" in meta else None
    phases = _need(doc, "phases", "", (list,), f)
    if phase is None:
        if not phases:
            raise LBDatafileError(f"{f}: phases: empty list")
        phase = _need(phases[0], "id", "phases[0]", (int,), f)
    found = None
    for pi, ph in enumerate(phases):
        if _need(ph, "id", f"phases[{pi}]", (int,), f) == phase:
            found = (pi, ph)
            break
    if found is None:
        ids = [p.get("id") for p in phases if isinstance(p, dict)]
        raise LBDatafileError(f"{f}: phases: no phase with id {phase} (ids: {ids})")
    pi, ph = found
    tasks = []
    for ti, t in enumerate(_need(ph, "tasks", f"phases[{pi}]", (list,), f)):
        where = f"phases[{pi}].tasks[{ti}]"
        ent = _need(t, "entity", where, (dict,), f)
        key = _entity_key(ent, where + ".entity", f)
        mig = ent.get("migratable", True)
        if not isinstance(mig, bool):
            raise LBDatafileError(f"{f}: {where}.entity.migratable: expected true or false, "
                                  f"got {mig!r}")
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
            sid = ud["shared_id"]
            if isinstance(sid, bool) or not isinstance(sid, int):
                raise LBDatafileError(f"{f}: {uw}.shared_id: expected an integer")
            size = _num(ud, "shared_bytes", uw, f, 0.0)
            home = ud.get("home_rank", rank)
            if isinstance(home, bool) or not isinstance(home, int) or not 0 <= home < m:
                raise LBDatafileError(f"{f}: {uw}.home_rank: expected a rank in [0, {m}), "
                                      f"got {home!r}")
        tasks.append((where, key, ent, time, tfp, twk, rw, sid, size, home))
    comms = []
    for ci, c in enumerate(ph.get("communications", []) or []):
        where = f"phases[{pi}].communications[{ci}]"
        if not isinstance(c, dict):
            raise LBDatafileError(f"{f}: {where}: expected an object")
        if c.get("type", "SendRecv") != "SendRecv":
            continue
        ends = (_need(c, "from", where, (dict,), f), _need(c, "to", where, (dict,), f))
        if any(e.get("type", "object") != "object" for e in ends):
            continue  # a node or another non-task endpoint: not a task-to-task edge
        src = _entity_key(ends[0], where + ".from", f)
        dst = _entity_key(ends[1], where + ".to", f)
        b = _num(c, "bytes", where, f)
        if b is None:
            raise LBDatafileError(f"{f}: {where}.bytes: missing field")
        pinned = tuple(e.get("migratable", True) is False for e in ends)
        comms.append((ci, src, dst, b, where, pinned))
    return phase, ra, tasks, comms


@renamed(n_ranks="m")
@positional_deprecated("phase")
def read_lbdatafile(paths: Any, *, phase: int | None = None, m: int | None = None,
                    rank_mem_cap: Any = None, max_bytes: int = MAX_BYTES):
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

    Returns
    -------
    Problem

    Raises
    ------
    LBDatafileError
        Malformed content; the message names the file and the field (``phases[0].tasks[3].time``),
        or the communication edge that names a task not in the phase. Also a file larger
        than `max_bytes` (decompressed), nesting deeper than the JSON parser's recursion
        limit (reported with its line and column) and a number literal longer than
        1000 characters (reported with its field).
    """
    if phase is not None:
        phase = as_int(phase, "phase")
    max_bytes = as_int(max_bytes, "max_bytes", minimum=1)
    files = _expand(paths)
    per_rank: dict[int, tuple[str, dict]] = {}
    for f in files:
        doc = _load_json(f, max_bytes)
        if not isinstance(doc, dict):
            raise LBDatafileError(f"{f}: top level must be an object")
        meta = doc.get("metadata", {})
        if not isinstance(meta, dict):
            raise LBDatafileError(f"{f}: metadata: expected an object")
        rank = meta.get("rank", _rank_from_name(f))
        if rank is None or isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise LBDatafileError(f"{f}: metadata.rank: missing or invalid, and no rank in the "
                                  "file name")
        if rank >= 2**31:
            raise LBDatafileError(f"{f}: metadata.rank: {rank} is not below 2^31")
        if rank in per_rank:
            raise LBDatafileError(f"{f}: rank {rank} already read from {per_rank[rank][0]}")
        per_rank[rank] = (f, doc)
    I = max(per_rank) + 1 if m is None else as_m(m, "m", maximum=INT32_LIMIT)
    if I <= max(per_rank):
        raise WpartValueError(f"`m` = {I} but a file has rank {max(per_rank)}")
    keys: dict[tuple[str, int], int] = {}
    seen: set = set()
    load, fp, wk, init, shared, entities, mig = [], [], [], [], [], [], []
    blocks: dict[int, list] = {}  # shared_id -> [size, home]
    baseline = np.zeros(I)
    alpha = np.ones(I)
    has_alpha = False
    comms = []
    for rank in sorted(per_rank):
        f, doc = per_rank[rank]
        phase, ra, tasks, cl = _parse_phase(f, doc, rank, I, phase, seen)
        if ra is not None:
            alpha[rank] = ra
            has_alpha = True
        for _, key, ent, time, tfp, twk, rw, sid, size, home in tasks:
            keys[key] = len(load)
            load.append(time)
            init.append(rank)
            entities.append(ent)
            mig.append(ent.get("migratable", True))
            fp.append(tfp)
            wk.append(twk)
            baseline[rank] = max(baseline[rank], rw)
            if sid is not None and sid not in blocks:
                blocks[sid] = [size, home]
            shared.append(sid)
        comms.extend((f,) + c[1:] for c in cl)
    edges, eb = [], []
    for f, src, dst, b, where, pinned in comms:
        if any(key not in keys and pin for key, pin in zip((src, dst), pinned)):
            continue  # a pinned object that is not a task: not a task-to-task edge
        for end, key in (("from", src), ("to", dst)):
            if key not in keys:
                raise LBDatafileError(
                    f"{f}: {where}.{end}: the edge {src[0]} {src[1]} -> {dst[0]} {dst[1]} "
                    f"({b:g} bytes) names {key[0]} {key[1]}, which is not a task of phase "
                    f"{phase} in any file")
        edges.append((keys[src], keys[dst]))
        eb.append(b)
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
        meta={"files": files, "phase": phase, "entities": entities},
    )
    return prob


@positional_deprecated("assignment")
def write_lbdatafile(problem, stem: str, *, assignment=None, phase: int = 0,
                     compress: bool = False) -> list[str]:
    """Write `problem` under `assignment` (default: its initial assignment) as
    ``<stem>.<rank>.json`` files (one per rank); returns the paths."""
    phase = as_int(phase, "phase")
    a = problem.assignment(assignment)
    I, K = problem.m, problem.n_tasks
    ents = problem.meta.get("entities") if isinstance(problem.meta, dict) else None
    if ents is None or len(ents) != K:
        ids = problem.task_ids if problem.task_ids is not None else np.arange(K)
        mig = problem.migratable
        ents = [{"type": "object", "id": int(ids[k]), "migratable": bool(mig[k]),
                 "home": int(problem.initial[k])} for k in range(K)]
    bids = problem.block_ids if problem.block_ids is not None else np.arange(problem.n_blocks)
    tasks_of = [[] for _ in range(I)]
    comms_of = [[] for _ in range(I)]
    for k in range(K):
        ud: dict[str, Any] = {}
        if problem.task_block is not None and problem.task_block[k] >= 0:
            b = int(problem.task_block[k])
            ud["shared_id"] = int(bids[b])
            ud["shared_bytes"] = float(problem.block_size[b])
            ud["home_rank"] = int(problem.block_home[b])
        if problem.task_footprint is not None:
            ud["task_footprint_bytes"] = float(problem.task_footprint[k])
        if problem.task_working is not None:
            ud["task_working_bytes"] = float(problem.task_working[k])
        if problem.rank_baseline is not None:
            ud["rank_working_bytes"] = float(problem.rank_baseline[a[k]])
        t = {"entity": dict(ents[k]), "node": int(a[k]), "resource": "cpu",
             "time": float(problem.task_load[k])}
        if ud:
            t["user_defined"] = ud
        tasks_of[a[k]].append(t)
    for (s, d), b in zip(problem.edges.tolist(), problem.edge_bytes.tolist()):
        comms_of[a[s]].append({"type": "SendRecv", "from": dict(ents[s]), "to": dict(ents[d]),
                               "messages": 1, "bytes": float(b)})
    paths = []
    os.makedirs(os.path.dirname(os.path.abspath(stem)), exist_ok=True)
    for r in range(I):
        meta: dict[str, Any] = {"type": "LBDatafile", "rank": r}
        if problem.rank_alpha is not None:
            meta["rank_alpha"] = float(problem.rank_alpha[r])
        ph: dict[str, Any] = {"id": int(phase), "tasks": tasks_of[r]}
        if comms_of[r]:
            ph["communications"] = comms_of[r]
        doc = {"type": "LBDatafile", "metadata": meta, "phases": [ph]}
        text = json.dumps(doc, indent=1).encode("utf-8")
        if compress:
            import brotli

            text = brotli.compress(text)
        path = f"{stem}.{r}.json"
        with open(path, "wb") as fh:
            fh.write(text)
        paths.append(path)
    return paths


# ---------------------------------------------------------------- the Problem methods
@positional_deprecated("phase")
def _from_lbdatafile(cls: type, paths: Any, *, phase: int | None = None, **kw: Any) -> Problem:
    """Read vt / LBAF ``LBDatafile`` JSON files (one per rank, brotli allowed).

    `paths` is a list of files, a directory, or a stem ``dir/name`` for files
    ``dir/name.<rank>.json``. The phase defaults to the first phase of rank 0's file.
    The initial assignment is the rank of the file listing each task. See
    :func:`wpart.tasks.read_lbdatafile` for the options.
    """
    return read_lbdatafile(paths, phase=phase, **kw)


@positional_deprecated("assignment")
def _to_lbdatafile(self: Problem, stem: str, *, assignment: Any = None, phase: int = 0,
                   compress: bool = False) -> list[str]:
    """Write one ``LBDatafile`` per rank, ``<stem>.<rank>.json``, of the problem under
    `assignment` (default: its initial one); returns the paths."""
    return write_lbdatafile(self, stem, assignment=assignment, phase=phase, compress=compress)


Problem.from_lbdatafile = classmethod(_from_lbdatafile)  # type: ignore[attr-defined]
Problem.to_lbdatafile = _to_lbdatafile  # type: ignore[attr-defined]
