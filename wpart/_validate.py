"""Input coercion shared by every family: NumPy in, a clear error out.

Every public entry point validates its arguments here before calling the C core, and the
binding re-checks dtype, dimension and contiguity. Messages name the argument in backticks.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from numpy.typing import NDArray

_INT64_MAX = np.iinfo(np.int64).max


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
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except (ValueError, TypeError) as exc:
            raise TypeError(f"`{name}` could not be converted to a numeric array: {exc}") from None
    kind = arr.dtype.kind
    if kind in "biu":
        if kind == "u" and arr.dtype.itemsize >= 8 and arr.size and int(arr.max()) > _INT64_MAX:
            raise OverflowError(f"`{name}` has values above the int64 range")
        dtype = np.int64
    elif kind == "f":
        dtype = np.float64
    else:
        raise TypeError(
            f"`{name}` must be an array of integers, booleans or floats, got dtype {arr.dtype}"
        )
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"`{name}` must be {want}, got {arr.ndim}-D")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"`{name}` is empty (shape {arr.shape})")
    return np.ascontiguousarray(arr, dtype=dtype)


def as_int(x: Any, name: str, *, minimum: int | None = None) -> int:
    """Coerce an integer-like scalar (not bool, not float) and check a lower bound."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be an integer, got bool")
    try:
        v = operator.index(x)
    except TypeError:
        raise TypeError(f"`{name}` must be an integer, got {type(x).__name__}") from None
    if minimum is not None and v < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}, got {v}")
    return v


#: Most parts accepted beyond the number of items (empty parts cost O(m) memory each).
MAX_EXTRA_PARTS = 1 << 24


def as_parts(x: Any, n_items: int, name: str = "m") -> int:
    """A part count: an integer >= 1 that fits the core's int64 arithmetic and, when it exceeds
    the number of items (leaving empty parts), stays within :data:`MAX_EXTRA_PARTS` so that
    O(m) results are not allocated for nothing."""
    v = as_int(x, name, minimum=1)
    if v > (1 << 62):
        raise OverflowError(f"`{name}` = {v} is too large (at most 2**62)")
    if v > n_items and v > MAX_EXTRA_PARTS:
        raise ValueError(
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
        raise ValueError(f"`{name}` must have length m = {m}, got {arr.shape[0]}")
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"`{name}` must be positive and finite, got {arr[i]} at index {i}")
    with np.errstate(over="ignore"):
        if not np.isfinite(arr.sum()):
            raise ValueError(f"`{name}` sum overflows float64; rescale them (only their ratios matter)")
    return arr


def check_speed_costs(total: float, speeds: NDArray[np.float64] | None, name: str = "speeds") -> None:
    """Raise if a part cost load / speed could overflow float64 (total load on the slowest part)."""
    if speeds is None:
        return
    with np.errstate(over="ignore", divide="ignore"):
        worst = float(total) / float(speeds.min())
    if not np.isfinite(worst):
        raise ValueError(
            f"`{name}`: the total load {float(total):g} on the slowest part (speed "
            f"{float(speeds.min()):g}) overflows float64; rescale the speeds"
        )


def choice(x: Any, name: str, valid: tuple[str, ...], aliases: dict[str, str] | None = None) -> str:
    """Exact-match string choice; the error lists the valid names."""
    if not isinstance(x, str):
        raise TypeError(f"`{name}` must be a string, got {type(x).__name__}")
    key = x.lower().replace("-", "_")
    if aliases and key in aliases:
        key = aliases[key]
    if key not in valid:
        raise ValueError(f"`{name}` must be one of {', '.join(map(repr, valid))}, got {x!r}")
    return key
