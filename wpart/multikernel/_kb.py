"""Profile knowledge base of multi-kernel runs: one JSON file per machine [Soldado 2016].

A profile records, for a (computation, workload) pair, the CPU/GPU share and the platform
configuration (CPU fission level, GPU overlap, work-group sizes), the best time measured with
it and the process that produced it (``PROFILED``, ``DERIVED``, ``REFINED``, ``SEED``).
:meth:`KnowledgeBase.lookup` finds an exact entry, :meth:`KnowledgeBase.derive` interpolates a
configuration for an unseen workload from the stored ones (Sec. 3.2.3 of the paper: same
computation first, then any computation with the same workload, then any with the same
dimensionality), :meth:`KnowledgeBase.update` persists a configuration when it beats the stored
best ("persist when best so far", Sec. 3.3). Every write is atomic: a temporary file in the
same directory, fsync, rename over the base, fsync of the directory; a crash mid-write leaves
the old or the new base, never a mix. A corrupt, truncated or foreign file raises
:class:`KnowledgeBaseError` naming it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import platform
import tempfile
import time
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import WpartTypeError, WpartValueError
from .._validate import as_bool, as_float, as_int, choice
from .. import _core
from .._files import fsync_dir, unlink_quiet, write_synced
from ._adapt import INTERP_METHODS
from ._defaults import MK_DEFAULTS
from ._topology import FISSION_LEVELS

try:
    import fcntl
except ImportError:  # not POSIX: no lock between processes
    fcntl = None  # type: ignore[assignment]

__all__ = ["KernelProfile", "KnowledgeBase", "KnowledgeBaseError", "PROCESSES", "machine_fingerprint"]

FORMAT = "wpart-multikernel-kb"
VERSION = 1
#: How a profile was produced.
PROCESSES = ("PROFILED", "DERIVED", "REFINED", "SEED")


class KnowledgeBaseError(WpartValueError):
    """A knowledge-base file that cannot be used (corrupt, truncated, foreign); names it."""


def _opencl_devices() -> list[str] | None:
    """``platform | vendor | version | device | type`` of every OpenCL device, sorted, or None
    when pyopencl or a driver is missing."""
    try:
        import pyopencl as cl  # noqa: PLC0415 (optional dependency)

        out = []
        for pl in cl.get_platforms():
            for d in pl.get_devices():
                out.append(" | ".join((pl.name.strip(), pl.vendor.strip(), pl.version.strip(),
                                       d.name.strip(), cl.device_type.to_string(d.type))))
        return sorted(out)
    except Exception:  # noqa: BLE001 -- no pyopencl, no ICD, a driver that fails to load
        return None


@functools.lru_cache(maxsize=1)
def _fingerprint_cached() -> str:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    devs = _opencl_devices()
    fp = {"opencl": devs, "cpu": cpu, "n_cpus": os.cpu_count() or 1,
          "system": platform.system()}
    # the identity: the OpenCL platforms and devices (adding a GPU changes it), with the CPU
    # model and count; without OpenCL, the CPU alone. The host name is informative only.
    fp["id"] = hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:16]
    fp["hostname"] = platform.node()
    return json.dumps(fp)


def machine_fingerprint() -> dict[str, Any]:
    """This machine's identity: its OpenCL platforms and devices, CPU model and count.

    The ``id`` hashes the sorted OpenCL platform/device list (name, vendor, version, device
    name and type) with the CPU model, the number of logical CPUs and the OS, so adding or
    removing a GPU gives another machine while renaming the host does not; without pyopencl
    or an OpenCL driver, ``opencl`` is None and the CPU alone identifies the machine. The
    host name is recorded, not hashed. Computed once per process.

    Returns
    -------
    dict
        ``opencl`` (list of str or None), ``cpu``, ``n_cpus``, ``system``, ``id`` (16 hex
        digits), ``hostname``.

    Raises
    ------
    None
        It takes no argument; a field the machine does not expose is None.
    """
    return json.loads(_fingerprint_cached())


def _workload(workload: Any) -> tuple[tuple[int, ...], bool]:
    """(extents, fp64) from ``(extents, fp64)``, a dict, or plain extents (fp64 False)."""
    fp64 = False
    if isinstance(workload, dict):
        ext, fp64 = workload.get("extents"), workload.get("fp64", False)
    elif (isinstance(workload, tuple) and len(workload) == 2 and isinstance(workload[1], bool)
          and not isinstance(workload[0], (int, np.integer))):
        ext, fp64 = workload
    else:
        ext = workload
    if isinstance(ext, (int, np.integer)):
        ext = (ext,)
    try:
        ext_t = tuple(as_int(e, "workload", minimum=1) for e in ext)
    except TypeError:
        raise WpartTypeError(f"`workload` must be extents (ints >= 1), got {workload!r}") from None
    if not ext_t:
        raise WpartValueError("`workload` must have at least one extent")
    if not isinstance(fp64, (bool, np.bool_)):
        raise WpartTypeError(f"`workload` fp64 flag must be a bool, got {fp64!r}")
    return ext_t, bool(fp64)


@dataclass(frozen=True)
class KernelProfile:
    """One knowledge-base entry (the fields of a profile in Sec. 3.2 of [Soldado 2016]).

    Attributes
    ----------
    sct_id : str
        Identifier of the computation (the skeleton tree and its kernels).
    extents : tuple of int
        Workload extents (``ndims = len(extents)``); a single int is one extent.
    fp64 : bool
        Whether the workload holds double-precision data.
    s : float
        GPU-type share in [0, 1] (nominal).
    s_eff : float
        GPU-type share the partitions actually gave (after quanta).
    shares : dict
        Fraction of the workload per device id.
    fission : str or None
        CPU fission level (``"L1"`` ... ``"NUMA"``, ``"NONE"``; None when the CPU got 0 %).
    overlap : int
        GPU overlap (partitions per GPU).
    wgs : tuple of int
        Work-group size per kernel on the GPUs.
    best_time : float
        Lowest time measured with this configuration (``inf``: never measured).
    process : str
        One of :data:`PROCESSES`.
    balance_ratio : float
        Balance ratio (min/max device time) of the best run.
    n_obs : int
        Runs measured.
    timestamp : float
        When it was stored (seconds since the epoch).
    """

    sct_id: str
    extents: tuple[int, ...]
    _: KW_ONLY
    fp64: bool = False
    s: float = 0.0
    s_eff: float | None = None
    shares: dict[str, float] = field(default_factory=dict)
    fission: str | None = None
    overlap: int = 1
    wgs: tuple[int, ...] = ()
    best_time: float = math.inf
    process: str = "PROFILED"
    balance_ratio: float = 1.0
    n_obs: int = 0
    timestamp: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.sct_id, str) or not self.sct_id:
            raise WpartTypeError(f"`sct_id` must be a non-empty str, got {self.sct_id!r}")
        ext_in = self.extents
        if isinstance(ext_in, (int, np.integer)):
            ext_in = (ext_in,)
        try:
            if isinstance(ext_in, (str, bytes)):
                raise TypeError
            ext_in = tuple(ext_in)
        except TypeError:
            raise WpartTypeError(f"`extents` must be an int or a sequence of ints >= 1, got "
                                 f"{self.extents!r}") from None
        ext, fp64 = _workload((ext_in, bool(self.fp64)))
        object.__setattr__(self, "extents", ext)
        object.__setattr__(self, "fp64", fp64)
        object.__setattr__(self, "s", as_float(self.s, "s", minimum=0.0, maximum=1.0))
        s_eff = self.s if self.s_eff is None else as_float(self.s_eff, "s_eff", minimum=0.0,
                                                            maximum=1.0)
        object.__setattr__(self, "s_eff", s_eff)
        if not isinstance(self.shares, dict):
            raise WpartTypeError(f"`shares` must be a dict device -> fraction, got "
                                 f"{type(self.shares).__name__}")
        object.__setattr__(self, "shares", {str(k): as_float(v, f"shares[{k!r}]", minimum=0.0,
                                                             maximum=1.0)
                                            for k, v in self.shares.items()})
        if self.fission is not None and not isinstance(self.fission, str):
            raise WpartTypeError(f"`fission` must be a str or None, got {self.fission!r}")
        if self.fission is not None and self.fission not in FISSION_LEVELS:
            raise WpartValueError(f"`fission` must be one of {', '.join(FISSION_LEVELS)} or None, "
                                  f"got {self.fission!r}")
        object.__setattr__(self, "overlap", as_int(self.overlap, "overlap", minimum=1))
        object.__setattr__(self, "wgs", tuple(as_int(w, "wgs", minimum=1) for w in self.wgs))
        object.__setattr__(self, "best_time", as_float(self.best_time, "best_time", minimum=0.0,
                                                       allow_inf=True))
        if self.process not in PROCESSES:
            raise WpartValueError(f"`process` must be one of {', '.join(PROCESSES)}, got "
                                  f"{self.process!r}")
        object.__setattr__(self, "balance_ratio", as_float(self.balance_ratio, "balance_ratio",
                                                           minimum=0.0, maximum=1.0))
        object.__setattr__(self, "n_obs", as_int(self.n_obs, "n_obs", minimum=0))
        object.__setattr__(self, "timestamp", as_float(self.timestamp, "timestamp"))

    @property
    def key(self) -> tuple[str, tuple[int, ...], bool]:
        return (self.sct_id, self.extents, self.fp64)

    @property
    def ndims(self) -> int:
        return len(self.extents)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``best_time`` inf is written as null)."""
        return {"sct_id": self.sct_id, "extents": list(self.extents), "fp64": self.fp64,
                "s": self.s, "s_eff": self.s_eff, "shares": dict(self.shares),
                "fission": self.fission, "overlap": self.overlap, "wgs": list(self.wgs),
                "best_time": None if math.isinf(self.best_time) else self.best_time,
                "process": self.process, "balance_ratio": self.balance_ratio,
                "n_obs": self.n_obs, "timestamp": self.timestamp}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "KernelProfile":
        if not isinstance(d, dict):
            raise WpartTypeError(f"a profile must be a JSON object, got {type(d).__name__}")
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(d) - known
        if unknown:
            raise WpartValueError(f"unknown profile fields {sorted(unknown)}")
        kw = dict(d)
        if kw.get("best_time", 0.0) is None:
            kw["best_time"] = math.inf
        for k in ("extents", "wgs"):
            if k in kw:
                if not isinstance(kw[k], list):
                    raise WpartTypeError(f"`{k}` must be a list")
                kw[k] = tuple(kw[k])
        return cls(**kw)


#: The paper's name for a knowledge-base entry, kept as an alias of :class:`KernelProfile`
#: (``wpart.multikernel.Profile(sct_id, workload, s=..., best_time=...)``); the package's one
#: ``Profile`` in ``__all__`` is :class:`wpart.hetero.Profile` (a processor's time function).
Profile = KernelProfile


#: The longest number literal a knowledge-base file may hold (as the LBDatafile reader).
MAX_NUMBER_CHARS = 1000
_NUM_TABLE = bytes(1 if chr(i) in "-+.eE0123456789" else 0 for i in range(256))
_LONG_RUN = b"\x01" * (MAX_NUMBER_CHARS + 1)


class _TooLong(str):
    """A number literal longer than :data:`MAX_NUMBER_CHARS`."""


def _number_hook(kind: type) -> Any:
    def parse(text: str) -> Any:
        return _TooLong(text) if len(text) > MAX_NUMBER_CHARS else kind(text)
    return parse


def _has_too_long(doc: Any) -> bool:
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, _TooLong):
            return True
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _features(extents: tuple[int, ...], scale: str) -> np.ndarray:
    e = np.asarray(extents, dtype=np.float64)
    return np.log2(e) if scale == "log2" else e


class KnowledgeBase:
    """Profiles of past runs on one machine, in one JSON file.

    Parameters
    ----------
    path : str or path-like
        The base's file; created on the first write (its directory must exist).
    machine : dict, optional
        Fingerprint of the machine the base describes (default :func:`machine_fingerprint`).
    allow_foreign : bool, optional
        Read a base written on another machine (default: refuse it, with
        :class:`KnowledgeBaseError`).
    autosave : bool, optional
        Write the file after every change (atomically).
    feature_scale : {"log2", "linear"}, optional
        Interpolation features: log2 of each extent (default) or raw extents.
    rbf_max_dims : int, optional
        Workloads of up to this many dimensions (0 to 3) are interpolated (RBF), above it the
        nearest node is taken (default ``MK_DEFAULTS["rbf_max_dims"]``, 3 as in the paper).

    Examples
    --------
    >>> import os, tempfile
    >>> from wpart.multikernel import KnowledgeBase, KernelProfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "kb.json")
    >>> kb = KnowledgeBase(path)
    >>> _ = kb.update(KernelProfile("filter", (1024, 1024), s=0.875, best_time=1.10))
    >>> kb.derive("filter", (4288, 2848)).s       # one node: its share
    0.875
    >>> len(KnowledgeBase(path))                   # stored, with the derived entry
    2
    >>> folder.cleanup()
    """

    def __init__(self, path: Any, *, machine: dict[str, Any] | None = None,
                 allow_foreign: bool = False, autosave: bool = True,
                 feature_scale: str | None = None, rbf_max_dims: int | None = None) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise WpartTypeError(f"`path` must be a path (str or os.PathLike), got "
                                 f"{type(path).__name__}")
        self.path = Path(os.fspath(path))
        self.machine = dict(machine_fingerprint() if machine is None else machine)
        self.allow_foreign = as_bool(allow_foreign, "allow_foreign")
        self.autosave = as_bool(autosave, "autosave")
        self.feature_scale = choice(feature_scale or MK_DEFAULTS["feature_scale"],
                                    "feature_scale", ("log2", "linear"))
        self.rbf_max_dims = as_int(MK_DEFAULTS["rbf_max_dims"] if rbf_max_dims is None
                                   else rbf_max_dims, "rbf_max_dims", minimum=0, maximum=3)
        self._entries: dict[tuple, KernelProfile] = {}
        # derivation nodes by scope, with their fitted interpolation (cleared on any change)
        self._nodes_cache: dict[tuple, Any] = {}
        #: How the last :meth:`derive` worked: scope ("S1", "S2", "S3"), method, nodes.
        self.last_derivation: dict[str, Any] = {}
        self._remove_stale_temporaries()
        if self.path.exists():
            self.load()

    # ------------------------------------------------------------------ lock ----------
    @property
    def lock_path(self) -> Path:
        """The lock file beside the base (``<name>.lock``): every save and every clean-up of
        temporary files holds it (``fcntl.flock``), so two processes never interleave."""
        return self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def _locked(self):
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise self._fail(f"cannot open its lock file {str(self.lock_path)!r} "
                             f"({e.strerror or e})") from None
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _remove_stale_temporaries(self) -> None:
        """Removes the temporary files a writer killed mid-save left (under the lock, no
        writer is between its temporary file and the rename, so every one left is stale)."""
        d = self.path.parent if str(self.path.parent) else Path(".")
        if not d.is_dir():
            return
        stale = list(d.glob(f".{self.path.name}.*.tmp"))
        if not stale:
            return
        with self._locked():
            for t in d.glob(f".{self.path.name}.*.tmp"):
                try:
                    t.unlink()
                except OSError:
                    pass

    # ------------------------------------------------------------------ file ----------
    def _fail(self, why: str) -> KnowledgeBaseError:
        return KnowledgeBaseError(f"knowledge base {str(self.path)!r}: {why}")

    def _read(self) -> dict[tuple, KernelProfile]:
        """The entries of the file as it is now (validated); KnowledgeBaseError naming it."""
        try:
            raw = self.path.read_bytes()
        except OSError as e:
            raise self._fail(f"cannot be read ({e.strerror or e})") from None
        long_num = _LONG_RUN in raw.translate(_NUM_TABLE)
        kw = dict(parse_int=_number_hook(int), parse_float=_number_hook(float)) if long_num else {}
        try:
            doc = json.loads(raw.decode("utf-8"), **kw)
        except UnicodeDecodeError:
            raise self._fail("is not UTF-8 text (corrupt?)") from None
        except json.JSONDecodeError as e:
            raise self._fail(f"is not valid JSON (corrupt or truncated: {e.msg} at line "
                             f"{e.lineno} column {e.colno})") from None
        except RecursionError:
            raise self._fail("is nested too deeply (corrupt?)") from None
        except ValueError as e:  # e.g. the interpreter's limit on integer digits
            raise self._fail(f"is not valid JSON ({e})") from None
        if long_num and _has_too_long(doc):
            raise self._fail(f"holds a number longer than {MAX_NUMBER_CHARS} characters")
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise self._fail(f"is not a wpart multi-kernel knowledge base (no \"format\": "
                             f"\"{FORMAT}\")")
        if doc.get("version") != VERSION:
            raise self._fail(f"has version {doc.get('version')!r}; this wpart reads {VERSION}")
        mach = doc.get("machine")
        if not isinstance(mach, dict):
            raise self._fail("has no machine record")
        if not self.allow_foreign and mach.get("id") != self.machine.get("id"):
            raise self._fail(f"was written for another machine ({mach.get('hostname')!r}, id "
                             f"{mach.get('id')!r}; this one is {self.machine.get('id')!r}: "
                             "its OpenCL devices or CPU differ); pass allow_foreign=True to "
                             "read it anyway")
        ents = doc.get("entries")
        if not isinstance(ents, list):
            raise self._fail("has no list of entries")
        out: dict[tuple, KernelProfile] = {}
        first: dict[tuple, int] = {}
        for i, d in enumerate(ents):
            try:
                p = KernelProfile.from_dict(d)
            except (TypeError, ValueError, OverflowError) as e:
                raise self._fail(f"entry {i} is invalid ({e})") from None
            if p.key in first:
                raise self._fail(f"entries {first[p.key]} and {i} are both for computation "
                                 f"{p.sct_id!r} with workload {p.extents} (fp64={p.fp64}): "
                                 "duplicate entry")
            first[p.key] = i
            out[p.key] = p
        return out

    def load(self) -> None:
        """(Re)reads the file; raises :class:`KnowledgeBaseError` naming it when it is
        unreadable, corrupt, truncated, of another format or of another machine, or holds
        an invalid or duplicate entry."""
        self._entries = self._read()
        self._nodes_cache = {}

    def save(self) -> None:
        """Writes the base atomically and merged with what other processes wrote.

        Under the lock file (:attr:`lock_path`), the file as it is now is read again and
        merged: an entry another process wrote for a pair this object does not hold is kept;
        for a pair both hold, the later ``timestamp`` wins (ties: this object's). Then a
        temporary file in the same directory, fsync, rename, fsync of the directory. Two
        processes storing 60 profiles each keep all 120.
        """
        with self._locked():
            if self.path.exists():
                merged = self._read()
                for k, p in self._entries.items():
                    other = merged.get(k)
                    if other is None or p.timestamp >= other.timestamp:
                        merged[k] = p
                self._entries = merged
                self._nodes_cache = {}
            self._write()

    def _write(self) -> None:
        doc = {"format": FORMAT, "version": VERSION, "machine": self.machine,
               "entries": [p.to_dict() for p in self._entries.values()]}
        data = json.dumps(doc, indent=1, allow_nan=False).encode("utf-8")
        d = self.path.parent if str(self.path.parent) else Path(".")
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{self.path.name}.", suffix=".tmp")
        write_synced(tmp, data, fd=fd)
        try:
            os.replace(tmp, self.path)
        except BaseException:
            unlink_quiet(tmp)
            raise
        fsync_dir(str(d))

    # ------------------------------------------------------------------ entries -------
    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        return iter(list(self._entries.values()))

    def entries(self) -> list[KernelProfile]:
        """The stored profiles (a new list).

        Returns
        -------
        list of KernelProfile
        """
        return list(self._entries.values())

    def lookup(self, sct_id: str, workload: Any) -> KernelProfile | None:
        """The entry of exactly this (computation, workload) pair, or None."""
        ext, fp64 = _workload(workload)
        return self._entries.get((sct_id, ext, fp64))

    def best_time(self, sct_id: str, workload: Any) -> float:
        """Stored best time of the pair (``inf`` when absent)."""
        p = self.lookup(sct_id, workload)
        return math.inf if p is None else p.best_time

    def store(self, profile: KernelProfile) -> None:
        """Stores `profile`, replacing the entry of its pair."""
        if not isinstance(profile, KernelProfile):
            raise WpartTypeError(f"`profile` must be a KernelProfile, got {type(profile).__name__}")
        if not profile.timestamp:
            profile = replace(profile, timestamp=time.time())
        self._entries[profile.key] = profile
        self._nodes_cache = {}
        if self.autosave:
            self.save()

    def update(self, profile: KernelProfile) -> bool:
        """Stores `profile` only if its ``best_time`` beats the stored one (or none is
        stored); returns whether it did."""
        if profile.best_time >= self.best_time(profile.sct_id, (profile.extents, profile.fp64)) \
                and self.lookup(profile.sct_id, (profile.extents, profile.fp64)) is not None:
            return False
        self.store(profile)
        return True

    def _scope(self, pred) -> list[KernelProfile]:
        sel = [p for p in self._entries.values() if pred(p)]
        good = [p for p in sel if p.process in ("PROFILED", "REFINED")]
        return good or sel

    def derive(self, sct_id: str, workload: Any, *, seed: float | KernelProfile | None = None,
               exact: bool = True, store: bool = True) -> KernelProfile:
        """Configuration for a (computation, workload) pair (Sec. 3.2.3 of [Soldado 2016]).

        An exact entry is returned unchanged (unless ``exact=False``). Otherwise the nodes
        are the entries of the same computation and dimensionality; failing that, of any
        computation with this very workload; failing that, of any computation with the same
        dimensionality (PROFILED and REFINED entries first, the others only when a scope has
        none; the same fp64 flag first). The GPU share is interpolated over log2 extents
        (:func:`interpolate`; the mean when every node has this workload) and clamped to
        [0, 1]; fission, overlap and work-group sizes come from the nearest node. The result
        is stored as ``DERIVED`` with ``best_time = inf`` (when `store`).

        Parameters
        ----------
        sct_id : str
        workload : extents, or (extents, fp64)
        seed : float or KernelProfile, optional
            Share (or whole configuration) for a base with no usable node; without it such
            a base raises :class:`wpart.WpartKeyError`.
        exact : bool, optional
            Return an exact entry as it is.
        store : bool, optional
            Store the derived entry.
        """
        from .._errors import WpartKeyError
        exact, store = as_bool(exact, "exact"), as_bool(store, "store")
        ext, fp64 = _workload(workload)
        if exact:
            hit = self._entries.get((sct_id, ext, fp64))
            if hit is not None:
                return hit
        nd = len(ext)
        nodes: list[KernelProfile] = []
        scope = None
        for name, params in (("S1", (sct_id, nd)), ("S2", ext), ("S3", nd)):
            cached = self._nodes(name, params, fp64)
            if cached[0]:
                nodes, scope = cached[0], name
                break
        if not nodes:
            if seed is None:
                raise WpartKeyError(f"knowledge base {str(self.path)!r} has no profile to derive "
                                    f"({sct_id!r}, {ext}) from; pass seed=")
            base = seed if isinstance(seed, KernelProfile) else KernelProfile(
                sct_id, ext, fp64=fp64, s=as_float(seed, "seed", minimum=0.0, maximum=1.0),
                process="SEED")
            prof = replace(base, sct_id=sct_id, extents=ext, fp64=fp64, best_time=math.inf,
                           process="SEED", n_obs=0, timestamp=time.time())
            if store:
                self.store(prof)
            return prof
        x = _features(ext, self.feature_scale).tolist()
        if scope == "S2":  # every node has this workload: their mean, the first node nearest
            s, how, near = float(cached[1].mean()), "mean", nodes[0]
        elif nd > self.rbf_max_dims:
            X = cached[2]
            d2 = ((X - np.asarray(x)) ** 2).sum(axis=1)
            near = nodes[int(np.argmin(d2))]
            s, how = float(near.s), "nearest"
        else:
            if cached[3] is None:  # the RBF solve, once per node set
                cached[3] = _core.multikernel_interp_fit(cached[2], cached[1])
            v, h, k = _core.multikernel_interp_eval(cached[3], x)
            s, how, near = v, INTERP_METHODS[h], nodes[k]
        s = min(1.0, max(0.0, s))
        prof = _trusted_profile(sct_id, ext, fp64, s, _rescale(near.shares, near.s, s), near)
        self.last_derivation = {"scope": scope, "method": how, "nodes": len(nodes)}
        if store:
            self.store(prof)
        return prof

    def _nodes(self, name: str, params: Any, fp64: bool) -> list:
        """[nodes, y, X, model] of a derivation scope (PROFILED and REFINED entries first, the
        same fp64 flag first), cached until the base changes; the model is fitted on use."""
        key = (name, params, fp64)
        hit = self._nodes_cache.get(key)
        if hit is not None:
            return hit
        if name == "S1":
            pred = (lambda p: p.sct_id == params[0] and p.ndims == params[1])
        elif name == "S2":
            pred = (lambda p: p.extents == params)
        else:
            pred = (lambda p: p.ndims == params)
        nodes = self._scope(lambda p: pred(p) and p.fp64 == fp64) or self._scope(pred)
        if nodes:
            X = np.array([_features(p.extents, self.feature_scale) for p in nodes])
            y = np.array([p.s for p in nodes])
        else:
            X = y = None
        out = [nodes, y, X, None]
        self._nodes_cache[key] = out
        return out


def _trusted_profile(sct_id: str, ext: tuple[int, ...], fp64: bool, s: float,
                     shares: dict[str, float], near: KernelProfile) -> KernelProfile:
    """A DERIVED profile from values already valid (a node's configuration, a share in
    [0, 1]), without the constructor's checks: the derivation's hot path."""
    prof = object.__new__(KernelProfile)
    for k, v in (("sct_id", sct_id), ("extents", ext), ("fp64", fp64), ("s", s), ("s_eff", s),
                 ("shares", shares), ("fission", near.fission), ("overlap", near.overlap),
                 ("wgs", near.wgs), ("best_time", math.inf), ("process", "DERIVED"),
                 ("balance_ratio", 1.0), ("n_obs", 0), ("timestamp", time.time())):
        object.__setattr__(prof, k, v)
    return prof


def _rescale(shares: dict[str, float], s_old: float, s_new: float) -> dict[str, float]:
    """Per-device shares for a new GPU share: GPU devices (ids starting "gpu") scale by
    s_new / s_old, the others by (1 - s_new) / (1 - s_old)."""
    out = {}
    for k, v in shares.items():
        if k.startswith("gpu"):
            out[k] = v * s_new / s_old if s_old > 0 else 0.0
        else:
            out[k] = v * (1 - s_new) / (1 - s_old) if s_old < 1 else 0.0
    return {k: min(1.0, max(0.0, v)) for k, v in out.items()}
