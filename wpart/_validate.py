"""One validator per concept, shared by every family: NumPy in, a clear error out.

Every public entry point validates its arguments here before calling the C core, and the
binding re-checks dtype, dimension and contiguity. The same bad value gives the same
exception type and the same message shape in every family: the message names the argument in
backticks, then the problem (``"`m` must be an integer >= 1, got 0"``). Every exception is a
:class:`wpart.WpartError` and the matching built-in (``ValueError``, ``TypeError``, ...).

=================  ===========================================================================
concept            validator
=================  ===========================================================================
part count ``m``   :func:`as_m` (any family), :func:`as_parts` (m against a number of items)
loads arrays       :func:`as_loads`
speeds             :func:`as_speeds`
``seed``           :func:`as_seed`
``time_limit``     :func:`as_time_limit` (seconds or None), :func:`core_time_limit` (C value)
``timeout``        :func:`as_timeout` (fault-detection deadline of a distributed run)
``progress``       :func:`as_progress`
flags              :func:`as_bool`, :func:`is_bool`
numbers            :func:`as_int`, :func:`as_float`
any array input    :func:`as_array` (ragged, dict, sparse, None inside: a WpartError);
                   :func:`unmasked` (a masked array with masked entries: refused)
1-D arrays         :func:`as_floats`, :func:`as_ints`, :func:`as_bools` (one per kind)
real matrices      :func:`as_matrix`
counts             :func:`as_count` (sizes, points, devices: at most :data:`MAX_COUNT`)
memory             :func:`check_memory` (an allocation against :func:`memory_budget`)
names              :func:`choice`
renamed keywords   :func:`renamed` (deprecated aliases for one release)
now keyword-only   :func:`positional_deprecated` (positional use warns for one release)
=================  ===========================================================================
"""

from __future__ import annotations
from ._errors import WpartMemoryError, WpartOverflowError, WpartTypeError, WpartValueError

import functools
import inspect
import math
import operator
import os
import warnings
from typing import Any, Callable, TypeVar

import numpy as np
from numpy.typing import NDArray

_INT64_MAX = np.iinfo(np.int64).max


def unmasked(x: Any, name: str) -> Any:
    """`x` itself, or a masked array's data when nothing is masked. A masked array with masked
    entries is refused: NumPy would hand over whatever is stored under the mask (a netCDF
    field's fill value, 9.97e36, as a load), silently."""
    if isinstance(x, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(x)
        if mask.any():
            raise WpartValueError(
                f"`{name}` is a masked array with {int(mask.sum())} masked entries (their stored "
                f"values are not data): pass `{name}.filled(value)` with the value they stand "
                f"for, or `{name}.compressed()` for a 1-D array without them")
        return x.data
    return x


def as_loads(x: Any, name: str, ndims: tuple[int, ...], *, allow_empty: bool = False) -> NDArray:
    """Coerce `x` to a C-contiguous int64 (integer or bool input) or float64 array.

    Never modifies `x`; copies only when the dtype or the memory layout requires it.

    Raises
    ------
    TypeError
        If `x` is not numeric (complex, object, strings, dates ...).
    ValueError
        If the number of dimensions is not in `ndims` or (unless `allow_empty`) `x` is empty.
    OverflowError
        If unsigned integers exceed the int64 range.
    """
    x = unmasked(x, name)
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except (ValueError, TypeError) as exc:
            raise WpartTypeError(f"`{name}` could not be converted to a numeric array: {exc}") from None
    kind = arr.dtype.kind
    if kind in "biu":
        if kind == "u" and arr.dtype.itemsize >= 8 and arr.size and int(arr.max()) > _INT64_MAX:
            raise WpartOverflowError(f"`{name}` has values above the int64 range")
        dtype = np.int64
    elif kind == "f":
        dtype = np.float64
    else:
        raise WpartTypeError(
            f"`{name}` must be an array of integers, booleans or floats, got dtype {arr.dtype}"
        )
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise WpartValueError(f"`{name}` must be {want}, got {arr.ndim}-D")
    if arr.size == 0 and not allow_empty:
        raise WpartValueError(f"`{name}` is empty (shape {arr.shape})")
    return np.ascontiguousarray(arr, dtype=dtype)


#: The shared cap on a count argument (parts, processors, devices, points per profile): the
#: same 2**24 as :data:`MAX_EXTRA_PARTS`, so that nothing of that size is allocated for nothing.
MAX_COUNT = 1 << 24


def as_count(x: Any, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """A count (devices, points, processors): an integer in [minimum, maximum] (default
    :data:`MAX_COUNT`), refused with a :class:`WpartValueError` naming `name` before anything
    of that size is allocated."""
    cap = MAX_COUNT if maximum is None else maximum
    v = as_int(x, name, minimum=minimum)
    if v > cap:
        raise WpartValueError(f"`{name}` must be an integer <= {cap}, got {v}")
    return v


def memory_budget() -> int:
    """The bytes an input may need: the physical memory of the machine, or the process's
    address-space limit (``RLIMIT_AS``) when it is lower."""
    budget = 1 << 62
    try:
        budget = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: no estimate
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY and soft > 0:
            budget = min(budget, soft)
    except (ImportError, ValueError, OSError):
        pass
    return int(budget)


def check_memory(nbytes: float, name: str, *, limit: float | None = None) -> None:
    """Refuse an allocation of `nbytes` (a float, so that huge products do not wrap) above
    `limit` (default: 64 GiB, or :func:`memory_budget` when lower) with a
    :class:`WpartMemoryError` naming `name`."""
    cap = min(float(1 << 36), float(memory_budget())) if limit is None else float(limit)
    if not nbytes <= cap:
        raise WpartMemoryError(f"`{name}` would need {nbytes / 2**30:.3g} GiB "
                               f"(more than {cap / 2**30:.3g} GiB)")


def as_sequence(x: Any, name: str, *, maximum: int | None = None) -> list:
    """A sequence argument of objects (models, curves, devices) as a list: refuses strings,
    dicts, sparse matrices, 0-d arrays, non-iterables and more than `maximum` (default
    :data:`MAX_COUNT`) entries with a :class:`WpartError` naming `name`, before iterating (a
    sparse matrix of 2**40 rows would iterate for ever)."""
    cap = MAX_COUNT if maximum is None else maximum
    if (isinstance(x, (str, bytes, dict)) or _is_sparse(x) or not hasattr(x, "__iter__")
            or (isinstance(x, np.ndarray) and x.ndim == 0)):
        raise WpartTypeError(f"`{name}` must be a sequence, got {type(x).__name__}")
    if hasattr(x, "__len__"):
        if len(x) > cap:
            raise WpartValueError(f"`{name}` has {len(x)} entries, more than {cap}")
        return list(x)
    out = []
    for v in x:
        out.append(v)
        if len(out) > cap:
            raise WpartValueError(f"`{name}` has more than {cap} entries")
    return out


def _is_sparse(x: Any) -> bool:
    mod = type(x).__module__ or ""
    return mod.startswith("scipy.sparse") or hasattr(x, "tocsr") and hasattr(x, "nnz")


def as_array(x: Any, name: str, *, dtype: Any = np.float64, ndims: tuple[int, ...] | None = None,
             allow_empty: bool = True, allow_nan: bool = False, allow_inf: bool = True,
             minimum: float | None = None) -> NDArray:
    """Any array argument as a C-contiguous `dtype` (float64 or int64) array, or a
    :class:`wpart.WpartError` naming `name`: never NumPy's own error.

    Refused: ragged nesting (``[[1, 2], [3]]``), dicts, sets, strings, sparse matrices, objects
    that are not numbers (``None`` inside), complex, NaN (unless `allow_nan`), inf (unless
    `allow_inf`), values below `minimum`, a number of dimensions not in `ndims`, empty arrays
    (unless `allow_empty`), unsigned values beyond int64 for an int64 `dtype`.
    """
    if x is None:
        raise WpartTypeError(f"`{name}` must be an array of numbers, got None")
    x = unmasked(x, name)
    if isinstance(x, (dict, set, frozenset, str, bytes)) or _is_sparse(x):
        raise WpartTypeError(f"`{name}` must be a dense array or a sequence of numbers, got "
                             f"{type(x).__name__}")
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                arr = np.asarray(x)
        except (ValueError, TypeError, OverflowError) as exc:
            raise WpartValueError(f"`{name}` is not a rectangular array of numbers (ragged or "
                                  f"mixed nesting): {str(exc).splitlines()[0][:120]}") from None
        except MemoryError:
            raise WpartMemoryError(f"`{name}` does not fit in memory") from None
    kind = arr.dtype.kind
    if kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (ValueError, TypeError, OverflowError):
            raise WpartTypeError(f"`{name}` holds objects that are not real numbers (None, "
                                 f"sequences, strings ...)") from None
        kind = "f"
    if kind not in "biuf":
        raise WpartTypeError(f"`{name}` must hold real numbers, got dtype {arr.dtype}")
    if ndims is not None and arr.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise WpartValueError(f"`{name}` must be {want}, got {arr.ndim}-D (shape {arr.shape})")
    if arr.size == 0 and not allow_empty:
        raise WpartValueError(f"`{name}` is empty (shape {arr.shape})")
    if dtype is None:  # keep the kind: integers (and bools) as int64, floats as float64
        dtype = np.int64 if kind in "biu" else np.float64
    if np.dtype(dtype) == np.int64:
        if kind == "f":
            fin = np.isfinite(arr)
            if not fin.all():
                raise WpartValueError(f"`{name}` must hold finite integers")
            if (arr != np.floor(arr)).any():
                raise WpartValueError(f"`{name}` must hold integers")
            if arr.size and np.abs(arr).max() >= 2.0**63:
                raise WpartOverflowError(f"`{name}` has values beyond the int64 range")
        elif kind == "u" and arr.dtype.itemsize >= 8 and arr.size and int(arr.max()) > _INT64_MAX:
            raise WpartOverflowError(f"`{name}` has values above the int64 range")
        out = np.asarray(arr, dtype=np.int64, order="C")  # (0-d stays 0-d)
    else:
        out = np.asarray(arr, dtype=np.float64, order="C")
        if out.size:
            if not allow_nan and np.isnan(out).any():
                raise WpartValueError(f"`{name}` must not contain NaN")
            if not allow_inf and np.isinf(out).any():
                raise WpartValueError(f"`{name}` must be finite")
    if minimum is not None and out.size and not (out >= minimum).all():
        raise WpartValueError(f"`{name}` must be >= {minimum:g}")
    return out


# ---- one validator per kind of 1-D array (floats, integers, flags) and for real matrices ----

def _vector_of(x: Any, name: str, what: str) -> np.ndarray:
    """`x` as an ndarray, or a :class:`WpartTypeError` "`name` must be a 1-D array of `what`"
    (dicts, strings, sparse matrices, ragged nesting; a masked array with masked entries)."""
    x = unmasked(x, name)
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (dict, set, frozenset, str, bytes)) or _is_sparse(x):
        raise WpartTypeError(f"`{name}` must be a 1-D array of {what}, got {type(x).__name__}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(x)
    except Exception as exc:  # ragged lists, objects NumPy refuses
        raise WpartTypeError(f"`{name}` must be a 1-D array of {what} "
                             f"({str(exc).splitlines()[0][:120]})") from None


def _vector_shape(a: np.ndarray, name: str, n: int | None, n_name: str | None,
                  allow_empty: bool) -> None:
    if not allow_empty and (a.ndim != 1 or a.size == 0):
        raise WpartValueError(f"`{name}` must be a non-empty 1-D array, got shape {a.shape}")
    if a.ndim != 1:
        raise WpartValueError(f"`{name}` must be 1-D, got {a.ndim}-D")
    if n is not None and a.shape[0] != n:
        label = f"{n_name} = {n}" if n_name else f"{n}"
        raise WpartValueError(f"`{name}` must have length {label}, got {a.shape[0]}")


def _first_bad(a: np.ndarray, bad: np.ndarray, name: str, must: str) -> None:
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise WpartValueError(f"`{name}` must {must}, got {a[i]} at index {i}")


def _finish(a: np.ndarray, dtype: Any, copy: bool, read_only: bool) -> np.ndarray:
    out = np.array(a, dtype=dtype, copy=True) if copy else np.ascontiguousarray(a, dtype=dtype)
    if read_only:
        out.setflags(write=False)
    return out


def as_floats(x: Any, name: str, *, n: int | None = None, n_name: str | None = None,
              values: str = "finite", allow_bool: bool = False, allow_empty: bool = True,
              scalar: bool = False, copy: bool = True, read_only: bool = False
              ) -> NDArray[np.float64]:
    """A 1-D float64 array argument (times, weights, per-part values).

    `values` says which values pass: ``"any"`` (no check), ``"finite"``, ``"non-negative"``
    (inf allowed, not NaN) or ``"finite and non-negative"``; the first bad one is named with
    its index. `n` (called `n_name` in the message, e.g. ``"m"``) is the required length.
    `allow_bool` accepts a bool array (as 0/1); `scalar` takes a number as one value; `copy`
    False returns `x` itself when it is already a C-contiguous float64 vector; `read_only`
    freezes the copy.

    Raises
    ------
    WpartTypeError
        Not an array of real numbers (ragged, dict, string, complex, object, bool unless
        `allow_bool`).
    WpartValueError
        Not 1-D, empty (unless `allow_empty`), the wrong length, or a value outside `values`.
    """
    a = _vector_of(x, name, "numbers")
    if a.dtype.kind not in ("biuf" if allow_bool else "iuf"):
        raise WpartTypeError(f"`{name}` must hold real numbers, got dtype {a.dtype}")
    if scalar and a.ndim == 0:
        a = a.reshape(1)
    _vector_shape(a, name, n, n_name, allow_empty)
    a = _finish(a, np.float64, copy, False)
    if values != "any":
        bad = np.isnan(a)
        if "finite" in values:
            bad |= np.isinf(a)
        if "non-negative" in values:
            bad |= a < 0
        _first_bad(a, bad, name, "be " + values)
    if read_only and copy:
        a.setflags(write=False)
    return a


def as_ints(x: Any, name: str, *, n: int | None = None, n_name: str | None = None,
            lo: int | None = None, hi: int | None = None, dtype: Any = np.int64,
            integral_floats: bool = False, broadcast: bool = False, copy: bool = True,
            read_only: bool = False) -> NDArray[np.integer]:
    """A 1-D integer array argument (ids, counts, per-part sizes) as `dtype` (int64 or int32).

    Values must lie in ``[lo, hi)`` (either bound optional); the first one outside is named
    with its index. `broadcast` takes a number as `n` copies of it; `integral_floats` accepts
    finite floats that are whole numbers (an empty float array always passes); `copy` False
    returns `x` itself when it is already a C-contiguous array of `dtype`.

    Raises
    ------
    WpartTypeError
        Not an array of integers (ragged, dict, string, bool, float).
    WpartValueError
        Not 1-D, the wrong length, or a value out of range.
    WpartOverflowError
        Unsigned values beyond the int64 range.
    """
    a = _vector_of(x, name, "integers")
    if broadcast and a.ndim == 0 and n is not None:
        a = np.full(n, a)
    kind = a.dtype.kind
    if kind == "f" and (a.size == 0 or (integral_floats and bool(np.isfinite(a).all())
                                        and bool((a == np.round(a)).all()))):
        a, kind = a.astype(np.int64), "i"
    if kind not in "iu":
        raise WpartTypeError(f"`{name}` must hold integers, got dtype {a.dtype}")
    _vector_shape(a, name, n, n_name, True)
    if kind == "u" and a.size and int(a.max()) > _INT64_MAX:
        raise WpartOverflowError(f"`{name}` has values above the int64 range")
    if a.size and lo is not None:
        if hi is None:
            _first_bad(a, a < lo, name, f"be >= {lo}")
        else:
            _first_bad(a, (a < lo) | (a >= hi), name, f"be in [{lo}, {hi})")
    elif a.size and hi is not None:
        _first_bad(a, a >= hi, name, f"be < {hi}")
    return _finish(a, dtype, copy, read_only)


def as_bools(x: Any, name: str, n: int) -> NDArray[np.bool_]:
    """A read-only bool array of length `n` (None: all True); 0/1 integers accepted."""
    if x is None:
        a = np.ones(n, dtype=bool)
    else:
        if is_bool(x):
            raise WpartTypeError(f"`{name}` must be an array of {n} booleans, got a single "
                                 f"{type(x).__name__}")
        try:
            a = np.asarray(x)
        except (TypeError, ValueError) as exc:
            raise WpartTypeError(f"`{name}` could not be converted to an array: {exc}") from None
        _vector_shape(a, name, n, None, True)
        if a.dtype.kind in "iu" or (a.size == 0 and a.dtype.kind == "f"):
            _first_bad(a, (a != 0) & (a != 1), name, "hold booleans (or 0/1)")
        elif a.dtype.kind != "b":
            raise WpartTypeError(f"`{name}` must be a bool array, got dtype {a.dtype}")
    return _finish(a, bool, True, True)


def as_matrix(x: Any, name: str, *, order: str = "C") -> NDArray[np.float64]:
    """A finite 2-D float64 copy of `x` (bool, int or float) in the memory `order`."""
    x = unmasked(x, name)
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError, OverflowError):
        raise WpartValueError(f"`{name}` is not a rectangular array of numbers (ragged or mixed "
                              f"nesting)") from None
    if arr.dtype.kind not in "biuf":
        raise WpartTypeError(f"`{name}` must hold real numbers (bool, int or float), got dtype "
                             f"{arr.dtype}")
    if arr.ndim != 2:
        raise WpartValueError(f"`{name}` must be 2-D, got {arr.ndim}-D (shape {arr.shape})")
    out = np.array(arr, dtype=np.float64, order=order, copy=True)
    if not np.all(np.isfinite(out)):
        bad = np.argwhere(~np.isfinite(out))[0]
        raise WpartValueError(f"`{name}` contains NaN or inf at index "
                              f"{tuple(int(i) for i in bad)}")
    return out


def is_bool(x: Any) -> bool:
    """Whether `x` is a Python or NumPy boolean (which are ints to Python, never counts here)."""
    return isinstance(x, (bool, np.bool_))


def as_bool(x: Any, name: str) -> bool:
    """A flag: exactly a Python or NumPy bool."""
    if not is_bool(x):
        raise WpartTypeError(f"`{name}` must be a bool, got {type(x).__name__}")
    return bool(x)


def as_int(x: Any, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Coerce an integer-like scalar (not bool, not float, not str) and check its bounds."""
    if is_bool(x):
        raise WpartTypeError(f"`{name}` must be an integer, got bool")
    try:
        v = operator.index(x)
    except TypeError:
        raise WpartTypeError(f"`{name}` must be an integer, got {type(x).__name__}") from None
    if minimum is not None and v < minimum:
        raise WpartValueError(f"`{name}` must be an integer >= {minimum}, got {v}")
    if maximum is not None and v > maximum:
        raise WpartValueError(f"`{name}` must be an integer <= {maximum}, got {v}")
    return v


def as_float(x: Any, name: str, *, minimum: float | None = None, maximum: float | None = None,
             strict_minimum: bool = False, allow_inf: bool = False) -> float:
    """A real number (int or float, Python or NumPy; not bool, not str), never NaN; finite
    unless `allow_inf`; ``>= minimum`` (``> minimum`` when `strict_minimum`) and
    ``<= maximum``."""
    if is_bool(x) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise WpartTypeError(f"`{name}` must be a number, got {type(x).__name__}")
    try:
        v = float(x)
    except OverflowError:
        raise WpartOverflowError(f"`{name}` = {x} does not fit a float64") from None
    if math.isnan(v):
        raise WpartValueError(f"`{name}` must not be NaN")
    if math.isinf(v) and not allow_inf:
        raise WpartValueError(f"`{name}` must be finite, got {v}")
    if minimum is not None:
        if strict_minimum and not v > minimum:
            raise WpartValueError(f"`{name}` must be > {minimum:g}, got {x}")
        if not strict_minimum and not v >= minimum:
            raise WpartValueError(f"`{name}` must be >= {minimum:g}, got {x}")
    if maximum is not None and not v <= maximum:
        raise WpartValueError(f"`{name}` must be <= {maximum:g}, got {x}")
    return v


def as_m(x: Any, name: str = "m", *, maximum: int | None = None) -> int:
    """The number of parts / processors / PUs / ranks: an integer >= 1 (<= `maximum`)."""
    v = as_int(x, name, minimum=1)
    if maximum is not None and v > maximum:
        raise WpartValueError(f"`{name}` must be an integer <= {maximum}, got {v}")
    return v


#: Seeds are taken modulo nothing: they must fit the core's 64-bit generator state.
SEED_MAX = (1 << 64) - 1


def as_seed(x: Any, name: str = "seed") -> int:
    """A seed for the core's one random generator: an integer in [0, 2**64 - 1]. The same seed
    gives bit-identical results in every family."""
    return as_int(x, name, minimum=0, maximum=SEED_MAX)


def as_time_limit(x: Any, name: str = "time_limit") -> float | None:
    """A wall-clock budget in seconds: None (or inf) for none, else a number > 0.

    Reaching it is never an error: the result comes back with ``status == "time_limit"``.
    """
    if x is None:
        return None
    v = as_float(x, name, minimum=0.0, strict_minimum=True, allow_inf=True)
    return None if math.isinf(v) else v


def core_time_limit(x: Any, name: str = "time_limit") -> float:
    """:func:`as_time_limit` in the core's convention: 0.0 means no limit."""
    v = as_time_limit(x, name)
    return 0.0 if v is None else v


def as_timeout(x: Any, name: str = "timeout") -> float | None:
    """The fault-detection deadline of a distributed run, in seconds: None for none, else a
    finite number > 0. Missing it raises :class:`wpart.WpartTimeoutError`."""
    if x is None:
        return None
    return as_float(x, name, minimum=0.0, strict_minimum=True)


def as_progress(x: Any, name: str = "progress") -> bool | Callable[[float, float], Any]:
    """``progress``: None or False (no report), True (a tqdm bar) or a callable
    ``progress(done, total)`` (returning False stops the run with :class:`CancelledError`)."""
    if x is None:
        return False
    if is_bool(x):
        return bool(x)
    if callable(x):
        return x
    raise WpartTypeError(f"`{name}` must be a bool or a callable, got {type(x).__name__}")


_F = TypeVar("_F", bound=Callable[..., Any])


def renamed(**old_to_new: str) -> Callable[[_F], _F]:
    """Accept deprecated keyword names for one release: ``@renamed(n_ranks="m")`` maps
    ``f(n_ranks=4)`` to ``f(m=4)`` with a :class:`DeprecationWarning`; giving both is an
    error."""

    def deco(f: _F) -> _F:
        sig = inspect.signature(f)

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise WpartTypeError(
                            f"{f.__name__}() got both `{new}` and its deprecated alias `{old}`")
                    warnings.warn(
                        f"{f.__name__}(): `{old}` is deprecated, use `{new}`",
                        DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return f(*args, **kwargs)

        wrapper.__signature__ = sig  # type: ignore[attr-defined]
        wrapper.__wpart_renamed__ = dict(old_to_new)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco


def extra_keywords_deprecated(into: str, what: str) -> Callable[[_F], _F]:
    """Accept, for one release, keywords that are not parameters of the function as entries
    of its mapping parameter `into` (``simulate(p, "greedy", chunk=64)`` runs as
    ``simulate(p, "greedy", options={"chunk": 64})``), with a :class:`DeprecationWarning`;
    a key given both ways is an error. The signature shown stays the new one."""

    def deco(f: _F) -> _F:
        sig = inspect.signature(f)
        own = set(sig.parameters)

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            extra = {k: kwargs.pop(k) for k in list(kwargs) if k not in own}
            if extra:
                given = kwargs.get(into) or {}
                both = sorted(set(extra) & set(given))
                if both:
                    raise WpartTypeError(f"{f.__name__}(): {', '.join(both)} given twice (as a "
                                         f"keyword and in `{into}`)")
                warnings.warn(f"{f.__name__}(): pass {what} in `{into}=` "
                              f"({', '.join(sorted(extra))}); as keywords they are deprecated",
                              DeprecationWarning, stacklevel=2)
                kwargs[into] = {**dict(given), **extra}
            return f(*args, **kwargs)

        wrapper.__wpart_any_keywords__ = True  # type: ignore[attr-defined]
        wrapper.__signature__ = sig  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco


def deprecated_attr(old: str, new: str, owner: str) -> property:
    """A read-only property `old` that warns and returns attribute `new` (renamed fields)."""

    def get(self: Any) -> Any:
        warnings.warn(f"{owner}.{old} is deprecated, use {owner}.{new}", DeprecationWarning,
                      stacklevel=2)
        return getattr(self, new)

    return property(get, doc=f"Deprecated alias of :attr:`{new}`.")


#: Most parts accepted beyond the number of items (empty parts cost O(m) memory each).
MAX_EXTRA_PARTS = 1 << 24


def as_parts(x: Any, n_items: int, name: str = "m") -> int:
    """A part count against a number of items: :func:`as_m`, fitting the core's int64
    arithmetic and, when it exceeds the number of items (leaving empty parts), within
    :data:`MAX_EXTRA_PARTS` so that O(m) results are not allocated for nothing.

    The check is O(1): an absurd `m` (``10**12`` parts for three items) is refused with a
    :class:`WpartValueError` naming `m` before anything of size `m` exists. Callers answer
    an accepted ``m > n_items`` without per-part work where they can (see
    :func:`wpart.partition_1d`)."""
    v = as_m(x, name)
    if v > (1 << 62):
        raise WpartOverflowError(f"`{name}` = {v} is too large (at most 2**62)")
    if v > n_items and v > MAX_EXTRA_PARTS:
        raise WpartValueError(
            f"`{name}` = {v} exceeds the number of items ({n_items}) and {MAX_EXTRA_PARTS}: "
            f"every part beyond the items would be empty; use {name} <= {max(n_items, 1)}"
        )
    return v


def as_speeds(x: Any, m: int, name: str = "speeds") -> NDArray[np.float64] | None:
    """Relative processor speeds: None, or m positive finite floats."""
    if x is None:
        return None
    arr = as_loads(x, name, (1,))
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if arr.shape[0] != m:
        raise WpartValueError(f"`{name}` must have length m = {m}, got {arr.shape[0]}")
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise WpartValueError(f"`{name}` must be positive and finite, got {arr[i]} at index {i}")
    with np.errstate(over="ignore"):
        if not np.isfinite(arr.sum()):
            raise WpartValueError(f"`{name}` sum overflows float64; rescale them (only their ratios matter)")
    return arr


def check_speed_costs(total: float, speeds: NDArray[np.float64] | None, name: str = "speeds") -> None:
    """Raise if a part cost load / speed could overflow float64 (total load on the slowest part)."""
    if speeds is None:
        return
    with np.errstate(over="ignore", divide="ignore"):
        worst = float(total) / float(speeds.min())
    if not np.isfinite(worst):
        raise WpartValueError(
            f"`{name}`: the total load {float(total):g} on the slowest part (speed "
            f"{float(speeds.min()):g}) overflows float64; rescale the speeds"
        )


def choice(x: Any, name: str, valid: tuple[str, ...], aliases: dict[str, str] | None = None) -> str:
    """Exact-match string choice; the error lists the valid names."""
    if not isinstance(x, str):
        raise WpartTypeError(f"`{name}` must be a string, got {type(x).__name__}")
    key = x.lower().replace("-", "_")
    if aliases and key in aliases:
        key = aliases[key]
    if key not in valid:
        raise WpartValueError(f"`{name}` must be one of {', '.join(map(repr, valid))}, got {x!r}")
    return key


def positional_deprecated(*names: str) -> Callable[[_F], _F]:
    """Accept the keyword-only options `names`, in this order, after the positional
    parameters, with a :class:`DeprecationWarning` (``balance(p, "greedy")`` still runs as
    ``balance(p, method="greedy")`` for one release). The signature shown stays the new one."""

    def deco(f: _F) -> _F:
        sig = inspect.signature(f)
        n_pos = sum(1 for q in sig.parameters.values()
                    if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD))
        label = getattr(f, "__qualname__", f.__name__).replace(".__init__", "")

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > n_pos:
                extra = args[n_pos:]
                if len(extra) > len(names):
                    raise WpartTypeError(f"{label}() takes {n_pos} positional arguments but "
                                         f"{len(args)} were given")
                given = names[:len(extra)]
                for name, value in zip(given, extra):
                    if name in kwargs:
                        raise WpartTypeError(f"{label}() got two values for `{name}`")
                    kwargs[name] = value
                warnings.warn(f"{label}(): pass {', '.join(f'`{n}`' for n in given)} by "
                              "keyword; passing options by position is deprecated",
                              DeprecationWarning, stacklevel=2)
                args = args[:n_pos]
            return f(*args, **kwargs)

        wrapper.__signature__ = sig  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco


def check_sparse_arrays(A: Any, name: str = "A") -> None:
    """Refuse a ``scipy.sparse`` matrix `A` (CSR, CSC, BSR or COO) whose arrays would be read
    out of bounds: pointers that do not rise from 0 to the entry count, an index outside the
    shape, fewer values than indices (``WpartValueError`` naming `name`). scipy checks none of
    this once a matrix is made (its arrays may be replaced, and its canonical flag looks at
    order only). Other formats hold no such arrays: check what their conversion gives."""
    fmt = getattr(A, "format", None)
    shape = getattr(A, "shape", ())
    if len(shape) != 2:
        return
    n1, n2 = int(shape[0]), int(shape[1])
    if fmt == "coo":
        coords = getattr(A, "coords", None) or (A.row, A.col)
        for axis, (idx, n) in enumerate(zip(coords, (n1, n2))):
            if idx.ndim != 1 or idx.size != A.data.size:
                raise WpartValueError(f"`{name}` has malformed COO arrays: one row index, one "
                                      "column index and one value per entry")
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                raise WpartValueError(f"`{name}` has a {('row', 'column')[axis]} index out of "
                                      f"range [0, {n})")
        return
    if fmt not in ("csr", "csc", "bsr"):
        return
    ptr, idx = A.indptr, A.indices
    R, C = A.blocksize if fmt == "bsr" else (1, 1)
    major, minor = ("column", "row") if fmt == "csc" else ("row", "column")
    n_major, n_minor = (n2, n1) if fmt == "csc" else (n1 // R, n2 // C)
    if ptr.ndim != 1 or idx.ndim != 1 or ptr.size != n_major + 1 or ptr[0] != 0 or \
            ptr[-1] != idx.size or A.data.shape[:1] != idx.shape or \
            (n_major > 1 and bool((ptr[1:] < ptr[:-1]).any())):
        raise WpartValueError(
            f"`{name}` has malformed {fmt.upper()} arrays: its {major} pointers must rise from "
            f"0 to its {idx.size} stored entries ({n_major + 1} of them), one value per index")
    if idx.size and (idx.min() < 0 or idx.max() >= n_minor):
        raise WpartValueError(f"`{name}` has a {minor} index out of range [0, {n_minor})")


def sparse_converted(A: Any, fmt: str, name: str = "A") -> Any:
    """``A.tocsr()`` / ``A.tocoo()`` (`fmt`) of a ``scipy.sparse`` matrix whose own arrays
    :func:`check_sparse_arrays` passed (or that holds none), the result checked the same way
    where `A` had none to check: a LIL, DOK or DIA matrix's conversion copies a bad index as
    it is, or scipy refuses it (then the same ``WpartValueError``, naming `name`)."""
    try:
        c = A.tocsr() if fmt == "csr" else A.tocoo()
    except (ValueError, IndexError) as e:
        raise WpartValueError(f"`{name}` has an index out of range: {e}") from None
    if c is not A and getattr(A, "format", None) not in ("csr", "csc", "bsr", "coo"):
        check_sparse_arrays(c, name)
    return c
