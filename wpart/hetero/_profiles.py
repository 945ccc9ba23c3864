"""Discrete time / dynamic-energy profiles of heterogeneous processors (the discrete time and
dynamic-energy functions of Sec. 3 of Khaleghzadeh et al.).

Vocabulary: `m` is the number of processors (``ProfileSet.m``), ``n_points`` the number of
measured points of one profile (``Profile.n_points``), `n` the workload.
"""

from __future__ import annotations
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError

import io
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._result import equal
from .._validate import as_bool, choice, deprecated_attr, unmasked
from ._profile_io import naming, parse_csv, parse_points, read_text, write_atomic

__all__ = ["Profile", "ProfileSet", "as_profiles"]


def _as_1d(x: Any, name: str, kind: str) -> NDArray:
    x = unmasked(x, name)
    try:
        a = np.asarray(x)
    except Exception as exc:  # noqa: BLE001 -- ragged input and the like
        raise WpartValueError(f"`{name}` must be a 1-D array: {exc}") from None
    if a.dtype == object or a.dtype.kind not in "biuf":
        raise WpartTypeError(f"`{name}` must be numeric, got dtype {a.dtype}")
    if a.ndim != 1:
        raise WpartValueError(f"`{name}` must be 1-D, got shape {a.shape}")
    if kind == "int":
        if a.dtype.kind == "b":
            raise WpartTypeError(f"`{name}` must be integer sizes, got bool")
        if a.dtype.kind == "f":
            if not np.all(np.isfinite(a)):
                i = int(np.flatnonzero(~np.isfinite(a))[0])
                raise WpartValueError(f"`{name}` contains {a[i]} at index {i}")
            if not np.all(a == np.round(a)):
                i = int(np.flatnonzero(a != np.round(a))[0])
                raise WpartValueError(f"`{name}` must hold integer sizes, got {a[i]} at index {i}")
            if a.size and np.abs(a.astype(np.float64)).max() >= 2.0**62:
                raise WpartOverflowError(f"`{name}` has sizes too large for int64")
        if a.dtype == np.uint64 and a.size and a.max() > np.iinfo(np.int64).max:
            i = int(np.argmax(a > np.iinfo(np.int64).max))
            raise WpartOverflowError(f"`{name}` has sizes too large for int64, got {int(a[i])} "
                                f"at index {i}")
        return np.array(a, dtype=np.int64)
    return np.array(a, dtype=np.float64)


def energy_given(pr: Profile) -> bool:
    """Whether `pr`'s energies were given (False: only times were measured, e.g. a ``size
    time`` file or a CSV without an energy column; its ``energy`` then holds zeros)."""
    return not pr.__dict__.get("_no_energy", False)


def _csv_cell(text: str) -> str:
    """`text` as one CSV cell: quoted as the csv module quotes (a ``"`` doubled) when it holds
    a comma, a quote or a line end (the csv module leaves a lone ``\\r`` unquoted with a
    ``\\n`` line terminator, which its reader then refuses), as it is otherwise."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _out_path(path: Any) -> Any:
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise WpartTypeError(f"`path` must be a str or os.PathLike, got {type(path).__name__}")
    return path


def _read_text(p: Path, name: str) -> str:
    """A profile file's text (UTF-8, a BOM dropped); errors name `name` and the file."""
    return read_text(p, name)


@dataclass(frozen=True, eq=False)
class Profile:
    """Discrete time and dynamic-energy functions of one processor.

    The functions are known only at the measured `sizes`; a processor can be given 0 units (at
    no time and no energy) or exactly one of its measured sizes. Gaps, non-monotone shapes and
    zero-energy points are legal.

    Attributes
    ----------
    sizes : ndarray of int64, shape (n_points,)
        Measured problem sizes, > 0, strictly increasing.
    time : ndarray of float64, shape (n_points,)
        Execution time (s) at each size, finite, >= 0.
    energy : ndarray of float64, shape (n_points,)
        Dynamic energy (J) at each size, finite, >= 0 (zeros when only time was measured).
    name : str
        A label (``"cpu1"``, ``"gpu"`` ...).

    Two profiles are equal when their sizes, times, energies and names are.
    """

    sizes: NDArray[np.int64]
    time: NDArray[np.float64]
    energy: NDArray[np.float64]
    name: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        for k in ("sizes", "time", "energy"):
            if not isinstance(getattr(self, k), np.ndarray):
                raise WpartTypeError(f"`{k}` must be a NumPy array, got "
                                     f"{type(getattr(self, k)).__name__}; build a profile from "
                                     "plain sequences with Profile.from_arrays")
        for a in (self.sizes, self.time, self.energy):
            a.setflags(write=False)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.name == other.name and all(
            equal(getattr(self, k), getattr(other, k)) for k in ("sizes", "time", "energy"))

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ constructors ----
    @classmethod
    def from_arrays(
        cls,
        sizes: ArrayLike,
        time: ArrayLike,
        energy: ArrayLike | None = None,
        /,
        *,
        name: str = "",
        clamp_negative: bool = False,
        sort: bool = False,
    ) -> Profile:
        """Build and validate a profile from arrays.

        Parameters
        ----------
        sizes : array_like of int, shape (n_points,)
            Problem sizes, > 0, distinct (strictly increasing unless ``sort=True``).
        time : array_like, shape (n_points,)
            Times, finite and >= 0.
        energy : array_like, shape (n_points,), optional
            Dynamic energies, finite and >= 0. When omitted, the profile has no energies:
            its ``energy`` holds zeros, and a time-energy front
            (:func:`~wpart.hetero.pareto_front`) refuses it.
        name : str
            Label of the processor.
        clamp_negative : bool, default False
            Replace negative energies (noise of a dynamic-energy subtraction) by 0 instead of
            raising.
        sort : bool, default False
            Sort the points by size first (duplicates are still an error).

        Raises
        ------
        wpart.WpartValueError
            NaN or infinite values, negative times (or energies), sizes <= 0, duplicate or
            unsorted sizes, lengths that differ.
        wpart.WpartTypeError
            Non-numeric input.
        """
        clamp_negative = as_bool(clamp_negative, "clamp_negative")
        sort = as_bool(sort, "sort")
        label = f"profile {name!r}" if name else "profile"
        s = _as_1d(sizes, f"{label}: sizes", "int")
        t = _as_1d(time, f"{label}: time", "float")
        e = np.zeros(s.shape, np.float64) if energy is None else _as_1d(
            energy, f"{label}: energy", "float")
        if not (s.shape == t.shape == e.shape):
            raise WpartValueError(f"{label}: sizes, time and energy must have the same length, got "
                             f"{s.size}, {t.size}, {e.size}")
        if sort and s.size > 1 and (s[1:] <= s[:-1]).any():  # already sorted: no copy
            o = np.argsort(s, kind="stable")
            s, t, e = s[o], t[o], e[o]
        if s.size:
            if (s <= 0).any():
                i = int(np.flatnonzero(s <= 0)[0])
                raise WpartValueError(f"{label}: sizes must be > 0, got {s[i]} at index {i}")
            d = np.diff(s)
            if (d == 0).any():
                i = int(np.flatnonzero(d == 0)[0]) + 1
                raise WpartValueError(f"{label}: duplicate size {s[i]} at index {i}")
            if (d < 0).any():
                i = int(np.flatnonzero(d < 0)[0]) + 1
                raise WpartValueError(
                    f"{label}: sizes must be strictly increasing, {s[i]} at index {i} follows "
                    f"{s[i - 1]} (pass sort=True to sort them)")
        for arr, what in ((t, "time"), (e, "energy")):
            bad = ~np.isfinite(arr)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise WpartValueError(f"{label}: {what} contains {arr[i]} at index {i} "
                                 f"(size {s[i]})")
        if (t < 0).any():
            i = int(np.flatnonzero(t < 0)[0])
            raise WpartValueError(f"{label}: time must be >= 0, got {t[i]} at index {i} "
                             f"(size {s[i]})")
        if (e < 0).any():
            if clamp_negative:
                e = np.maximum(e, 0.0)
            else:
                i = int(np.flatnonzero(e < 0)[0])
                raise WpartValueError(f"{label}: energy must be >= 0, got {e[i]} at index {i} "
                                 f"(size {s[i]}); pass clamp_negative=True to clamp noise")
        prof = cls(s, t, e, name=str(name))
        if energy is None:  # only times: energy unknown (zeros), see energy_given
            object.__setattr__(prof, "_no_energy", True)
        return prof

    @classmethod
    def from_text(cls, text: str, *, name: str = "", clamp_negative: bool = False) -> Profile:
        """Parse FuPerMod-style text: one point per line, ``size time [energy]``.

        Blank lines and ``#`` comments are skipped; columns are separated by spaces, tabs or
        commas; a leading UTF-8 BOM is ignored. Lines may come in any order (they are sorted
        by size). Sizes are parsed exactly: integer literals up to int64, while a size written
        as a float (``1e3``, ``1000.0``) must be an integer below 2**53 (a float cannot hold
        larger integers exactly). A line with more than three columns is an error. The
        numbers are parsed in bulk by NumPy's C parser (a 2M-line file reads in about a
        second).
        """
        return cls._parse(str(text), None, name, clamp_negative)

    @classmethod
    def _parse(cls, text: str | None, path: Path | None, name: str, clamp_negative: bool
               ) -> Profile:
        label = f"profile {name!r}"
        s, t, e = parse_points(text, label, path)
        with naming(label):
            return cls.from_arrays(s, t, e, name=name, clamp_negative=clamp_negative, sort=True)

    @classmethod
    def from_file(cls, path: str | os.PathLike, *, name: str | None = None,
                  clamp_negative: bool = False) -> Profile:
        """Read a FuPerMod-style ``size time [energy]`` file (see :meth:`from_text`); every
        error names the file."""
        p = Path(path)
        with naming(str(p)):
            return cls._parse(None, p, p.stem if name is None else str(name),
                              as_bool(clamp_negative, "clamp_negative"))

    def to_text(self) -> str:
        """FuPerMod-style text, ``size time energy`` per line (round-trips exactly); ``size
        time`` when the profile has no energies (built without them, or read from a ``size
        time`` file)."""
        out = io.StringIO()
        if not energy_given(self):
            out.write(f"# wpart profile {self.name}\n# size time\n")
            for s, t in zip(self.sizes.tolist(), self.time.tolist()):
                out.write(f"{s} {t!r}\n")
            return out.getvalue()
        out.write(f"# wpart profile {self.name}\n# size time energy\n")
        for s, t, e in zip(self.sizes.tolist(), self.time.tolist(), self.energy.tolist()):
            out.write(f"{s} {t!r} {e!r}\n")
        return out.getvalue()

    def to_file(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_text` to `path` (UTF-8; load it back with :meth:`from_file`).

        The file is written whole or not at all (a temporary file in the same folder, renamed
        into place): a failure leaves no partial file and an existing file unchanged.

        Raises
        ------
        wpart.WpartOSError
            The file cannot be written; the message names the path and the problem (no such
            folder, permission denied, read-only file system, ...).
        """
        write_atomic(_out_path(path), self.to_text(), "profile file")

    # ------------------------------------------------------------------ queries ----
    @property
    def n_points(self) -> int:
        """Number of measured points."""
        return int(self.sizes.size)

    m = deprecated_attr("m", "n_points", "Profile")

    def lookup(self, x: int) -> tuple[float, float] | None:
        """``(time, energy)`` at size `x` (``(0, 0)`` for 0), or None if not measured."""
        if x == 0:
            return 0.0, 0.0
        k = int(np.searchsorted(self.sizes, x))
        if k < self.n_points and self.sizes[k] == x:
            return float(self.time[k]), float(self.energy[k])
        return None

    def speed(self, *, work: Any = None) -> NDArray[np.float64]:
        """Speed ``work(size) / time`` at each point (``work`` defaults to the size)."""
        w = self.sizes.astype(np.float64) if work is None else np.asarray(
            work(self.sizes.astype(np.float64)), dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.time > 0, w / self.time, np.inf)

    def __repr__(self) -> str:
        rng = f"{self.sizes[0]}..{self.sizes[-1]}" if self.n_points else "-"
        return f"Profile(name={self.name!r}, n_points={self.n_points}, sizes={rng})"


@dataclass(frozen=True, eq=False)
class ProfileSet:
    """The profiles of `m` processors, in processor order.

    Build one with :meth:`from_arrays`, :meth:`from_files`, :meth:`from_csv` or
    :func:`wpart.hetero.synthetic`; every function of :mod:`wpart.hetero` also accepts a plain
    sequence of ``(sizes, times, energies)`` triples. Two sets are equal when their profiles
    are.

    Parameters
    ----------
    profiles : ProfileSet or sequence of tuples
        One discrete time (and energy) profile per processor: a :class:`ProfileSet` or a sequence
        of ``(sizes, times[, energies])`` tuples.
    """

    profiles: tuple[Profile, ...]

    def __post_init__(self) -> None:
        if (isinstance(self.profiles, (str, bytes)) or not hasattr(self.profiles, "__len__")
                or (isinstance(self.profiles, np.ndarray) and self.profiles.ndim == 0)):
            raise WpartTypeError(f"`profiles` must be a sequence of Profile objects, got "
                                 f"{type(self.profiles).__name__}")
        if len(self.profiles) < 1:
            raise WpartValueError("`profiles` must hold at least one processor")
        for i, p in enumerate(self.profiles):
            if not isinstance(p, Profile):
                raise WpartTypeError(
                    f"`profiles[{i}]` must be a Profile, got {type(p).__name__}; build a set "
                    "from (sizes, times[, energies]) tuples with ProfileSet.from_arrays")
        if not isinstance(self.profiles, tuple):
            object.__setattr__(self, "profiles", tuple(self.profiles))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return len(self.profiles) == len(other.profiles) and all(
            a == b for a, b in zip(self.profiles, other.profiles))

    __hash__ = None  # type: ignore[assignment]

    @property
    def m(self) -> int:
        """Number of processors."""
        return len(self.profiles)

    p = deprecated_attr("p", "m", "ProfileSet")

    @property
    def names(self) -> list[str]:
        """Processor labels."""
        return [pr.name or f"P{i}" for i, pr in enumerate(self.profiles)]

    def __len__(self) -> int:
        return self.m

    def __getitem__(self, i: int) -> Profile:
        return self.profiles[i]

    def __iter__(self):
        return iter(self.profiles)

    def csr(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64],
                           NDArray[np.float64]]:
        """``(offsets, sizes, times, energies)`` in the CSR layout of the C core."""
        counts = [pr.n_points for pr in self.profiles]
        off = np.zeros(self.m + 1, np.int64)
        off[1:] = np.cumsum(counts)
        cat = (lambda k: np.concatenate([getattr(pr, k) for pr in self.profiles])
               if off[-1] else np.zeros(0, np.int64 if k == "sizes" else np.float64))
        return (off, np.ascontiguousarray(cat("sizes"), np.int64),
                np.ascontiguousarray(cat("time"), np.float64),
                np.ascontiguousarray(cat("energy"), np.float64))

    @property
    def granularity(self) -> int:
        """gcd of all sizes (1 if there are none)."""
        g = 0
        for pr in self.profiles:
            g = math.gcd(g, int(np.gcd.reduce(pr.sizes)) if pr.n_points else 0)
        return g or 1

    @property
    def max_total(self) -> int:
        """Largest workload any distribution can reach: the sum of the largest sizes."""
        return int(sum(int(pr.sizes[-1]) if pr.n_points else 0 for pr in self.profiles))

    # ------------------------------------------------------------------ constructors ----
    @classmethod
    def from_arrays(cls, items: Iterable[Any], *, names: Sequence[str] | None = None,
                    clamp_negative: bool = False) -> ProfileSet:
        """From ``(sizes, times[, energies])`` tuples or :class:`Profile` objects."""
        out = []
        for i, it in enumerate(items):
            nm = names[i] if names is not None else f"P{i}"
            if isinstance(it, Profile):
                out.append(it)
                continue
            if isinstance(it, dict):
                it = (it["sizes"], it["time"], it.get("energy"))
            try:
                parts = tuple(it)
            except TypeError:
                raise WpartTypeError(
                    f"`profiles`: processor {i} must be a (sizes, times, energies) tuple or a "
                    f"Profile, got {type(it).__name__}") from None
            if len(parts) not in (2, 3):
                raise WpartValueError(
                    f"`profiles`: processor {i} must be a (sizes, times, energies) tuple, got "
                    f"{len(parts)} items")
            out.append(Profile.from_arrays(*parts, name=nm, clamp_negative=clamp_negative))
        return cls(tuple(out))

    @classmethod
    def from_files(cls, paths: Sequence[str | os.PathLike]) -> ProfileSet:
        """One FuPerMod-style ``size time [energy]`` file per processor."""
        return cls(tuple(Profile.from_file(p) for p in paths))

    @classmethod
    def from_csv(cls, path_or_text: str | os.PathLike, *, clamp_negative: bool = False,
                 unknown_columns: str = "raise") -> ProfileSet:
        """Long-format CSV with a header ``processor,size,time[,energy]``.

        Processors appear in order of first appearance; rows may come in any order; a blank
        cell (a missing processor, size, time or energy) raises :class:`wpart.WpartValueError`
        naming the row and the column, while a CSV without an energy column gives profiles
        without energies (zeros, which :func:`~wpart.hetero.pareto_front` refuses); a
        leading UTF-8 BOM is ignored; sizes are parsed exactly (see
        :meth:`Profile.from_text`). A column other than these four raises
        :class:`wpart.WpartValueError` (``unknown_columns="raise"``), or is ignored with a
        warning (``"warn"``) or silently (``"ignore"``). Every error names the file.
        """
        unknown = choice(unknown_columns, "unknown_columns", ("raise", "warn", "ignore"))
        p = Path(path_or_text) if not (isinstance(path_or_text, str) and "\n" in path_or_text) \
            else None
        label = str(p) if p is not None else "CSV text"
        with naming(label):
            text = _read_text(p, "path_or_text") if p is not None else str(path_or_text)
            groups = parse_csv(text, label, unknown)
            profs = [Profile.from_arrays(sz, t, e, name=nm, sort=True,
                                         clamp_negative=clamp_negative)
                     for nm, sz, t, e in groups]
        return cls(tuple(profs))

    def to_csv(self, path: str | os.PathLike | None = None, /) -> str:
        """Long-format CSV (see :meth:`from_csv`); written to `path` when given.

        The energy column is left out when no profile has energies (all read from ``size
        time`` files or built without them). A file is written whole or not at all (a
        temporary file in the same folder, renamed into place): a failure leaves no partial
        file and an existing file unchanged, and raises :class:`wpart.WpartOSError` naming
        the path and the problem (no such folder, permission denied, read-only file system,
        ...). A profile name with leading or trailing spaces raises
        :class:`wpart.WpartValueError` (a CSV read strips them), nothing written.
        """
        if path is not None:
            _out_path(path)
        for i, nm in enumerate(self.names):  # (from_csv strips every cell, quoted or not)
            if nm != nm.strip():
                raise WpartValueError(
                    f"`profiles[{i}]`: name {nm!r} has leading or trailing spaces, which a CSV "
                    "read drops (from_csv strips its cells); rename the profile")
        with_e = any(energy_given(pr) for pr in self.profiles)
        out = io.StringIO()
        out.write("processor,size,time,energy\n" if with_e else "processor,size,time\n")
        for nm, pr in zip(self.names, self.profiles):
            nm = _csv_cell(nm)
            if with_e:
                for s, t, e in zip(pr.sizes.tolist(), pr.time.tolist(), pr.energy.tolist()):
                    out.write(f"{nm},{s},{t!r},{e!r}\n")
            else:
                for s, t in zip(pr.sizes.tolist(), pr.time.tolist()):
                    out.write(f"{nm},{s},{t!r}\n")
        text = out.getvalue()
        if path is not None:
            write_atomic(path, text, "CSV file")
        return text

    def evaluate(self, dist: ArrayLike) -> tuple[float, float]:
        """``(time, dynamic energy)`` of a distribution (energy summed as a right fold)."""
        from .. import _core
        from .._validate import as_array

        d = as_array(dist, "dist", dtype=None, allow_nan=True)
        if d.dtype.kind not in "iu" or d.shape != (self.m,):
            raise WpartValueError(f"`dist` must be m = {self.m} integers (one share per "
                                  f"processor), got {d!r}")
        return _core.hetero_eval(*self.csr(), np.ascontiguousarray(d, np.int64))

    def plot(self, ax: Any = None, *, what: str = "time") -> Any:
        """Draw every processor's time (``what="time"``), energy or speed against size.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        from .._result import new_axes

        what = choice(what, "what", ("time", "energy", "speed"))
        ax = new_axes(ax, figsize=(7, 4))
        for nm, pr in zip(self.names, self.profiles):
            y = {"time": pr.time, "energy": pr.energy, "speed": pr.speed()}[what]
            ax.plot(pr.sizes, y, ".-", ms=2, lw=0.8, label=nm)
        ax.set_xlabel("size")
        ax.set_ylabel({"time": "time (s)", "energy": "dynamic energy (J)",
                       "speed": "speed (size / s)"}[what])
        ax.legend(fontsize="small")
        return ax

    def __repr__(self) -> str:
        ms = ", ".join(f"{n}:{pr.n_points}" for n, pr in zip(self.names, self.profiles))
        if len(ms) > 200:
            ms = ms[:200] + " ..."
        return f"ProfileSet(m={self.m}, points=[{ms}])"


def as_profiles(profiles: Any, *, clamp_negative: bool = False) -> ProfileSet:
    """Coerce the `profiles` argument of the public functions to a :class:`ProfileSet`."""
    if isinstance(profiles, ProfileSet):
        return profiles
    if isinstance(profiles, Profile):
        return ProfileSet((profiles,))
    if isinstance(profiles, (str, bytes, os.PathLike)) or profiles is None:
        raise WpartTypeError("`profiles` must be a ProfileSet or a sequence of (sizes, times, "
                        f"energies) tuples, got {type(profiles).__name__}")
    from .._validate import as_sequence
    items = as_sequence(profiles, "profiles")
    if not items:
        raise WpartValueError("`profiles` must hold at least one processor")
    return ProfileSet.from_arrays(items, clamp_negative=clamp_negative)
