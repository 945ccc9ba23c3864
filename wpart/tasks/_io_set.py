"""Output sets of rank files that are whole or untouched (serial and MPI writers, the reader).

A set is the rank files ``<stem>.<r>.json`` (``r = 0 .. n-1``) and a manifest
``<stem>.wpart-set.json`` that lists them: the set's generation (a fresh id per write), the
number of ranks, the phases written and, per file, its size and CRC-32. The files themselves
stay in vt's format (nothing is added to them), so vt and LBAF read them as before.

Writing (:func:`write_set`, and :func:`switch_set` on rank 0 for MPI):

1. writability is checked before any work (:func:`check_writable`: the folder can be made
   and written, no rank file's name is taken by a folder);
2. every rank file is written to a temporary name beside it (``.<name>.<gen>.tmp``) and
   fsynced; a failure removes the temporary files and leaves the previous set untouched;
3. the switch: each existing file is kept under a backup name (a hard link), the new manifest
   replaces the old one, then every temporary file is renamed over its rank file, then the
   files of higher ranks left by an earlier, larger set (and their manifest entries) are
   removed, then the backups. A failure during the switch renames the backups back (the
   previous set, manifest included, is whole again); a process killed during the switch leaves
   files that do not match the manifest, which the reader refuses (it never reads a mix).

Reading (:func:`check_set`, called by :func:`wpart.tasks.read_lbdatafile` and the MPI
reader): when a stem has a manifest, its files must be exactly ranks ``0 .. n-1`` (a file of
a higher rank, left by an earlier, larger set, is refused), and a file whose size or CRC-32
differs from the manifest is refused when the switch of that generation was interrupted (its
backups are still there: the set mixes two runs); a file edited after the set was written is
read as it is. Files without a manifest (written by vt or LBAF) must have consecutive ranks
and the same phase ids in every file.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import zlib
from typing import Any, Callable

from .._errors import WpartOSError, WpartValueError
from .._files import fsync_dir, unlink_quiet, write_synced

__all__ = ["SetError", "check_set", "check_writable", "crc_file", "manifest_path",
           "remove_stale", "switch_set", "temp_name", "write_set"]

MANIFEST_SUFFIX = ".wpart-set.json"
FORMAT = "wpart LBDatafile set"


class SetError(WpartValueError):
    """Rank files that do not form one output set (the message names the file)."""


def manifest_path(stem: str) -> str:
    return f"{stem}{MANIFEST_SUFFIX}"


def rank_path(stem: str, r: int) -> str:
    return f"{stem}.{r}.json"


def new_generation() -> str:
    return secrets.token_hex(8)


def temp_name(path: str, gen: str) -> str:
    d, b = os.path.split(os.path.abspath(path))
    return os.path.join(d, f".{b}.{gen}.tmp")


def _backup_name(path: str, gen: str) -> str:
    d, b = os.path.split(os.path.abspath(path))
    return os.path.join(d, f".{b}.{gen}.old")


def _os_error(path: str, what: str, exc: OSError) -> WpartOSError:
    why = exc.strerror or str(exc)
    return WpartOSError(f"{path}: cannot {what}: {why}")


def crc_file(path: str) -> tuple:
    """``(size, crc32)`` of a file."""
    crc = size = 0
    with open(path, "rb") as fh:
        while True:
            b = fh.read(1 << 22)
            if not b:
                break
            crc = zlib.crc32(b, crc)
            size += len(b)
    return size, crc


def check_writable(stem: str, ranks) -> None:
    """Raise :class:`wpart.WpartOSError` naming the path when the rank files ``<stem>.<r>.json``
    of `ranks` (or the manifest, when 0 is among them) cannot be written: the folder cannot be
    made or written, or a file's name is taken by a folder. Creates the folder."""
    folder = os.path.dirname(os.path.abspath(stem))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise _os_error(folder, "create the output folder", exc) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise WpartOSError(f"{folder}: cannot write the output folder: permission denied")
    paths = [rank_path(stem, r) for r in ranks]
    if 0 in ranks:
        paths.append(manifest_path(stem))
    for p in paths:
        if os.path.isdir(p):
            raise WpartOSError(f"{p}: cannot write the output: a folder has its name")


def write_temp(path: str, data: bytes, gen: str) -> str:
    """Write `data` to the temporary name of `path` (fsynced); returns it. On failure the
    temporary file is removed and :class:`wpart.WpartOSError` names `path`."""
    tmp = temp_name(path, gen)
    try:
        write_synced(tmp, data)
    except OSError as exc:
        raise _os_error(path, f"write (temporary file {os.path.basename(tmp)})", exc) from None
    return tmp


#: Remove a file, quietly (a module attribute: a test stands in for a killed process by
#: replacing it).
_unlink = unlink_quiet


def remove_temps(stem: str) -> None:
    """Remove temporary and backup files that an interrupted write of this stem left."""
    folder, base = os.path.split(os.path.abspath(stem))
    pat = re.compile(r"\." + re.escape(base) + r"\.(\d+\.json|wpart-set\.json)\.[0-9a-f]+"
                     r"\.(tmp|old)$")
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for n in names:
        if pat.match(n):
            _unlink(os.path.join(folder, n))


def stale_ranks(stem: str, n: int) -> list:
    """Ranks ``>= n`` that have a file ``<stem>.<r>.json`` (left by an earlier, larger set)."""
    folder, base = os.path.split(os.path.abspath(stem))
    pat = re.compile(re.escape(base) + r"\.(\d+)\.json$")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(int(m.group(1)) for x in names if (m := pat.match(x)) and int(m.group(1)) >= n)


def remove_stale(stem: str, n: int) -> list:
    """Remove the rank files of ranks ``>= n``; returns their ranks."""
    out = stale_ranks(stem, n)
    for r in out:
        _unlink(rank_path(stem, r))
    return out


def manifest_doc(gen: str, n: int, phases: list, files: list) -> bytes:
    """The manifest: ``files`` is ``[(size, crc32)]`` by rank."""
    doc = {"format": FORMAT, "generation": gen, "n_ranks": int(n),
           "phases": [int(p) for p in phases],
           "files": [{"rank": r, "bytes": int(s), "crc32": int(c)}
                     for r, (s, c) in enumerate(files)]}
    return json.dumps(doc, indent=1).encode("utf-8")


def switch_set(stem: str, gen: str, temps: list, manifest: bytes,
               fail_at: Callable[[str], None] | None = None) -> None:
    """Switch the set in one step: `temps[r]` (temporary files, already written) become
    ``<stem>.<r>.json``, `manifest` the manifest; stale higher-rank files are removed. A
    failure puts the previous files back and removes the temporary ones, then raises
    :class:`wpart.WpartOSError` naming the file. `fail_at(path)` is a test hook called before
    each rename."""
    n = len(temps)
    mpath = manifest_path(stem)
    mtmp = write_temp(mpath, manifest, gen)
    targets = [mpath] + [rank_path(stem, r) for r in range(n)]
    sources = [mtmp] + list(temps)
    backups: list = []   # (target, backup or None) in switch order
    try:
        for tgt, src in zip(targets, sources):
            bak = None
            if fail_at is not None:
                fail_at(tgt)
            if os.path.lexists(tgt):
                bak = _backup_name(tgt, gen)
                try:
                    os.link(tgt, bak)
                except OSError as exc:
                    raise _os_error(tgt, "keep the previous file during the switch", exc) \
                        from None
            try:
                os.replace(src, tgt)
            except OSError as exc:
                if bak is not None:  # still the previous file (a link to it)
                    _unlink(bak)
                raise _os_error(tgt, "switch to the new file", exc) from None
            backups.append((tgt, bak))
    except BaseException:
        for tgt, bak in reversed(backups):  # the ones switched: put the previous back
            if bak is not None:
                try:
                    os.replace(bak, tgt)
                except OSError:  # pragma: no cover - the folder broke under us
                    pass
            else:
                _unlink(tgt)
        for s in sources:
            _unlink(s)
        fsync_dir(os.path.dirname(os.path.abspath(stem)))
        raise
    remove_stale(stem, n)
    for _, bak in backups:
        if bak is not None:
            _unlink(bak)
    fsync_dir(os.path.dirname(os.path.abspath(stem)))


def write_set(stem: str, texts: list, phases: list,
              fail_at: Callable[[str], None] | None = None) -> list:
    """Write the rank files `texts` (bytes, by rank) of `stem` as one set; returns the paths.

    The previous set stays whole on any failure (see the module's notes)."""
    n = len(texts)
    check_writable(stem, range(n))
    remove_temps(stem)
    gen = new_generation()
    temps: list = []
    try:
        for r, t in enumerate(texts):
            p = rank_path(stem, r)
            if fail_at is not None:
                fail_at(temp_name(p, gen))
            temps.append(write_temp(p, t, gen))
        sums = [(len(t), zlib.crc32(t)) for t in texts]
    except BaseException:
        for t in temps:
            _unlink(t)
        raise
    switch_set(stem, gen, temps, manifest_doc(gen, n, phases, sums), fail_at)
    return [rank_path(stem, r) for r in range(n)]


# ------------------------------------------------------------------ reading
def _stem_of(path: str) -> str | None:
    m = re.match(r"^(.*)\.(\d+)\.json$", path)
    return m.group(1) if m else None


def load_manifest(stem: str) -> dict | None:
    """The manifest of `stem` (None: none); :class:`SetError` naming it when malformed."""
    mp = manifest_path(stem)
    if not os.path.isfile(mp):
        return None
    try:
        with open(mp, "rb") as fh:
            doc = json.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise SetError(f"{mp}: the output set's manifest cannot be read: {exc}") from None
    ok = (isinstance(doc, dict) and doc.get("format") == FORMAT
          and isinstance(doc.get("n_ranks"), int) and isinstance(doc.get("files"), list)
          and len(doc["files"]) == doc["n_ranks"])
    if not ok:
        raise SetError(f"{mp}: not a wpart output-set manifest (format, n_ranks, files)")
    return doc


def check_set(files_by_rank: dict, phases_by_rank: dict | None = None) -> None:
    """Check that the rank files read (``{rank: path}``) form one set.

    With a manifest beside them: exactly its ranks, each file of the size and CRC-32 listed.
    Without: the same phase ids in every file (`phases_by_rank`: ``{rank: [ids]}``).
    Raises :class:`SetError` naming the first file that does not belong."""
    if not files_by_rank:
        return
    r0 = min(files_by_rank)
    stem = _stem_of(files_by_rank[r0])
    doc = load_manifest(stem) if stem is not None else None
    if doc is not None:
        mp, n = manifest_path(stem), doc["n_ranks"]
        extra = sorted(r for r in files_by_rank if r >= n)
        extra += [r for r in stale_ranks(stem, n) if r not in extra]
        if extra:
            raise SetError(
                f"{rank_path(stem, extra[0])}: not part of the output set of {mp} "
                f"({n} rank files, generation {doc.get('generation')}): a file left by an "
                f"earlier, larger set; remove it")
        for r in range(n):
            p = files_by_rank.get(r, rank_path(stem, r))
            if not os.path.isfile(p):
                raise SetError(f"{p}: missing: the output set of {mp} has {n} rank files")
            _check_file(stem, doc, p, r)
        return
    if phases_by_rank:
        ref = phases_by_rank[r0]
        for r in sorted(phases_by_rank):
            if sorted(phases_by_rank[r]) != sorted(ref):
                raise SetError(
                    f"{files_by_rank[r]}: phases {sorted(phases_by_rank[r])[:8]} but "
                    f"{files_by_rank[r0]} has phases {sorted(ref)[:8]}: the rank files are "
                    "not one set (each rank file lists the same phases)")


def check_stale(stem: str) -> None:
    """Refuse rank files of `stem` beyond its manifest's ranks (left by an earlier, larger
    set), naming the first; nothing when `stem` has no manifest."""
    doc = load_manifest(stem)
    if doc is None:
        return
    mp, n = manifest_path(stem), doc["n_ranks"]
    extra = stale_ranks(stem, n)
    if extra:
        raise SetError(f"{rank_path(stem, extra[0])}: not part of the output set of {mp} "
                       f"({n} rank files, generation {doc.get('generation')}): a file left by "
                       "an earlier, larger set; remove it")


def check_rank_file(stem: str, rank: int, size: int) -> None:
    """The per-rank form of :func:`check_set` for one process of an MPI job (after the rank
    count was checked): its own file against the manifest, when there is one."""
    doc = load_manifest(stem)
    if doc is None:
        return
    mp, n = manifest_path(stem), doc["n_ranks"]
    if n != size:
        raise SetError(f"{mp}: the output set has {n} rank files but the job has {size} "
                       f"processes (mpirun -np {n})")
    _check_file(stem, doc, rank_path(stem, rank), rank)


def _check_file(stem: str, doc: dict, p: str, rank: int) -> None:
    """The rank file `p` against the manifest `doc`'s entry of `rank` (bytes and CRC-32)."""
    want = doc["files"][rank]
    try:
        got = crc_file(p)
    except OSError as exc:
        raise _os_error(p, "read", exc) from None
    if not isinstance(want, dict) or (want.get("bytes"), want.get("crc32")) != got:
        _mismatch(stem, doc, p)


def _mismatch(stem: str, doc: dict, p: str) -> None:
    """A file that differs from the manifest: refused when the switch of that generation was
    interrupted (its backups of the previous files are still there), else accepted (a file
    edited after it was written)."""
    gen = str(doc.get("generation"))
    folder, base = os.path.split(os.path.abspath(stem))
    pat = re.compile(r"\." + re.escape(base) + r"\.(\d+\.json|wpart-set\.json)\."
                     + re.escape(gen) + r"\.old$")
    try:
        left = sorted(n for n in os.listdir(folder) if pat.match(n))
    except OSError:
        left = []
    if left:
        raise SetError(
            f"{p}: does not match the output set of {manifest_path(stem)} (generation {gen}): "
            "the write of that set was interrupted while switching the files, so the set mixes "
            f"two runs; the previous files are kept as {', '.join(left[:4])}"
            f"{' ...' if len(left) > 4 else ''} (in {folder}); write the set again")


def doc_bytes(doc: Any, compress: bool = False) -> bytes:
    text = json.dumps(doc).encode("utf-8")
    if compress:
        import brotli

        text = brotli.compress(text, quality=9)
    return text
