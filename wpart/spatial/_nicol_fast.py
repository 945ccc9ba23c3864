"""rect_nicol's default in one core call (``_core.spatial_rect_nicol_auto``) on a canonical CSR
matrix, a MatrixMarket file the core's reader takes, or a dense C-contiguous int64 / float64
array: the same result as the step-by-step path (wpart.spatial._nicol.nicol_engine), made
without a prepared input."""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import time
from typing import Any

import numpy as np

from .. import _core
from .._errors import WpartValueError
from .._validate import check_sparse_arrays
from ._common import _bound, _verdict, factor_pair
from ._nicol import _auto_stats
from ._partition import SpatialPartition
from ._sparse import (SPARSE_DENSITY, _csr_with, check_sparse_size, csr_new,
                      fast_path_matrix, stored_counts)
from . import _sparse

#: The value types the one-call default reads as they are.
_DTYPES = (np.dtype(np.int64), np.dtype(np.float64))

#: The weightings the one-call default takes a canonical CSR matrix with.
_FAST_WEIGHTS = ("values", "count", "stored")

#: The stats of the one-call default that the step-by-step path's result also holds, first.
_FAST_HEAD = {"seconds": 0.0, "iterations": 0, "probes": 0, "cost_evals": 0, "dp_states": 0,
              "converged": True}


#: (status, message) of rect_nicol's result when no time limit stopped it.
_finished = functools.cache(lambda: _verdict("rect_nicol", False, 0.0, True))

#: The one-call default's result gets its fields at once (the frozen dataclass's __init__ sets
#: each through object.__setattr__: 1.9 us of a 30 us call) while they are SpatialPartition's,
#: in _fast_result's order, in the instance's __dict__ (no __slots__), and no __post_init__ runs.
_AT_ONCE = not hasattr(SpatialPartition, "__post_init__") and \
    "__slots__" not in vars(SpatialPartition) and \
    [f.name for f in dataclasses.fields(SpatialPartition)] == [
        "status", "message", "stats", "rects", "loads", "max_load", "avg_load", "total",
        "lower_bound", "imbalance", "method", "params", "shape", "m", "A", "speeds"]


def _fast_result(A: Any, m: int, total: Any, amax: Any, kind: str, out: tuple, params: dict,
                 stats: dict, tl: float, loads: Any = None,
                 lmax: Any = None) -> SpatialPartition:
    """The result of the one-call default (`out`, with the block loads and their max, or the
    given `loads` and `lmax`) on the canonical CSR loads matrix `A` or a dense array (total
    and largest value as Python int or float), as _common._result makes it from a prepared
    input (the same values and types)."""
    avg = float(total) / float(m)
    if loads is None:
        loads, lmax = out[2], out[17]
    status, message = _verdict("rect_nicol", True, tl, True) if out[8] else _finished()
    f = {"status": status, "message": message, "stats": stats, "rects": out[13],
         "loads": loads, "max_load": lmax, "avg_load": avg, "total": total,
         "lower_bound": _bound(total, m, amax, kind),
         "imbalance": float(lmax) / avg - 1.0 if total > 0 else 0.0, "method": "rect_nicol",
         "params": params, "shape": A.shape, "m": m, "A": A, "speeds": None}
    if not _AT_ONCE:
        return SpatialPartition(**f)
    r = object.__new__(SpatialPartition)
    r.__dict__.update(f)
    return r


def _as_csr(A: Any, weights: str) -> tuple[Any, str] | None:
    """A COO or CSC matrix as the canonical CSR matrix (int64 pointers and indices) that the
    general path's input rules make of it, and the weighting that gives its loads from that
    matrix: ``"stored"`` as the int64 count of stored entries per cell (duplicates counted,
    zeros too) with ``"values"``; the other two on the matrix with its duplicates summed. None
    where the arrays are not plain (the general path checks and reports)."""
    if len(A.shape) != 2 or A.dtype.kind not in "biuf":
        return None
    if weights == "stored" or A.dtype in _DTYPES:
        # (scipy.io.mmread's matrices) the same CSR matrix from one core call: scipy's
        # conversion and duplicate sum cost about 100 us of a 200 us call on 2,000 entries
        got = _coo_csr(A, weights)
        if got is not None:
            return got
    try:
        check_sparse_arrays(A, "A")
        if weights == "stored":
            c, weights = stored_counts(A), "values"
        else:
            c = A.tocsr()
        if not c.has_canonical_format:
            c = c.copy()
            c.sum_duplicates()
    except Exception:  # (the general path names the fault)
        return None
    rp = np.ascontiguousarray(c.indptr, np.int64)
    ci = np.ascontiguousarray(c.indices, np.int64)
    return _csr_with(c, rp, ci, c.data), weights


def _coo_csr(A: Any, weights: str) -> tuple[Any, str] | None:
    """:func:`_as_csr` of a COO or CSC matrix in one core call (``_core.spatial_coo_csr``: a
    counting sort, the same canonical CSR matrix; a CSC matrix's entries as COO ones); None
    where its arrays are not plain, an index is out of range, or (values kept) a cell is
    stored twice: scipy's conversion then runs."""
    data = A.data
    if A.format == "csc":
        ptr = A.indptr
        if ptr.ndim != 1 or ptr.size != A.shape[1] + 1 or ptr.dtype.kind != "i" or \
                ptr[0] != 0 or ptr[-1] != A.indices.size:
            return None
        try:  # (falling pointers: a negative count, refused; signed, so none wraps)
            cols = np.repeat(np.arange(A.shape[1], dtype=np.int64), np.diff(ptr))
        except (ValueError, MemoryError):
            return None
        coords = (A.indices, cols)
    else:
        coords = getattr(A, "coords", None) or (A.row, A.col)
    if len(coords) != 2 or data.ndim != 1 or \
            any(c.ndim != 1 or c.size != data.size or c.dtype.kind not in "iu" for c in coords):
        return None
    stored = weights == "stored"
    try:
        out = _core.spatial_coo_csr(A.shape[0], A.shape[1], coords[0], coords[1],
                                    None if stored else data)
    except (TypeError, ValueError, OverflowError, MemoryError):
        return None
    if out is None:
        return None
    return csr_new(A.shape, *out), "values" if stored else weights


def _exact_floats(vals: np.ndarray) -> bool:
    """Whether every float load is an integer and their absolute sum is below 2**53: every
    partial sum is then exact, so the block loads and totals do not depend on the order of
    summation, and the sparse sums equal the dense prefix's (a float CSR matrix of unit or
    integral weights, as read from a real MatrixMarket file, runs in the one call at any
    density: 0.1 ms instead of 0.6 ms for a 261 x 261 matrix of 2,319 entries at 4 x 4)."""
    if vals.dtype != np.float64:
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.abs(vals).sum() < 2.0**53 and (np.rint(vals) == vals).all())


def fast_default(A: Any, m: Any, P: Any, Q: Any, max_sweeps: Any, starts: Any, refine: Any,
                 patience: Any, abandon: Any, allow_empty: Any, time_limit: Any,
                 progress: Any, weights: Any) -> SpatialPartition | None:
    """rect_nicol's default on a canonical ``scipy.sparse`` CSR matrix (or a MatrixMarket file
    that the core's fast path reads: wpart.spatial._mmfast, or a dense C-contiguous int64 or
    float64 array with ``weights="values"``, its nonzeros taken in one core pass; a float
    array's loads from its dense prefix where the input rules keep it dense) that runs on its
    nonzeros, in one core call that also checks the values and sums the blocks: int64 /
    float64 loads as they are (no copies of the arrays, no prepared input; explicit zeros
    dropped), or numeric values with ``weights="stored"`` / ``"count"`` (1 per stored entry /
    per nonzero value); None when any argument is not of that plain kind (the step-by-step
    path then runs, checks and reports as usual). The result is the one that path gives,
    the loads matrix of the input rules (wpart.spatial._sparse.SparseInput; the dense array
    itself) included."""
    if not (progress is None and patience is None and abandon is True and
            (allow_empty is False or allow_empty is True) and type(starts) is str and
            starts == "auto" and type(refine) is str and refine == "auto" and
            type(weights) is str and weights in _FAST_WEIGHTS and type(m) is int and
            type(max_sweeps) is int and max_sweeps >= 1 and
            (time_limit is None or (type(time_limit) in (int, float) and
                                    0 < time_limit < float("inf")))):
        return None
    prefix = False  # (a float array's loads from its dense prefix, as the prepared path's)
    if type(A) is np.ndarray:  # a dense array: its nonzeros (one core pass each)
        if not (weights == "values" and A.dtype in _DTYPES and A.ndim == 2 and A.size and
                A.flags.c_contiguous):
            return None
        shape = A.shape
        # one buffer: [indices | int64 values | float64 values | a float array's prefix]
        try:
            rp, buf, _, _ = _core.spatial_dense_csr(A, True, SPARSE_DENSITY,
                                                    _sparse.SPARSE_MIN_CELLS)  # (as _Prepared)
        except MemoryError:  # (the general path's input rules say what does not fit)
            return None
        nz = int(rp[-1])
        if A.dtype.kind == "i":
            ci, vals, fvals = buf[:nz], buf[nz:2 * nz], buf[2 * nz:].view(np.float64)
        else:  # (on its nonzeros where the input rules keep a float array sparse)
            ci, vals, fvals = buf[:nz], buf[nz:2 * nz].view(np.float64), None
            prefix = len(buf) > 2 * nz
    else:
        fvals = None
        fmt = getattr(A, "format", None) if type(A).__module__.startswith("scipy.sparse") \
            else None  # (a matrix first: the path test below is an ABC check)
        if fmt == "csr":
            pass
        elif fmt in ("coo", "csc"):  # as the general path reads it
            got = _as_csr(A, weights)
            if got is None:
                return None
            A, weights = got
        elif fmt is None and isinstance(A, (str, os.PathLike)):
            A = fast_path_matrix(A, weights)  # a MatrixMarket file the core reads in one pass
            if A is None:
                return None
        else:
            return None
        shape = A.shape
        rp, ci, vals = A.indptr, A.indices, A.data
        dt = vals.dtype
        if len(shape) != 2 or vals.size != ci.size or not A.has_canonical_format or \
                (dt not in _DTYPES if weights == "values" else dt.kind not in "biuf"):
            return None
    dt = vals.dtype
    n1, n2 = int(shape[0]), int(shape[1])
    cells = n1 * n2
    nnz = int(rp[-1])
    # integral loads at any density or size (the dense path's grid, loads and sums, exactly);
    # float loads where the input rules keep them sparse (the dense prefix sums in another
    # order; the size rule read at the call, as _Prepared and the dense branch above read it)
    big = _sparse.SPARSE_MIN_CELLS
    if not (1 <= m <= cells and (dt.kind in "biu" or weights != "values" or prefix or
                                 (nnz * SPARSE_DENSITY <= cells and cells > big) or
                                 (type(A) is not np.ndarray and _exact_floats(vals)))):
        return None
    if P is None and Q is None:
        P, Q = factor_pair(m, n1, n2)
        if m > 3 and (P == 1 or Q == 1):  # prime m: the general path warns
            return None
    elif not (type(P) is int and type(Q) is int and 1 <= P <= n1 and 1 <= Q <= n2 and
              P * Q == m):
        return None
    check_sparse_size(n1, n2, nnz)
    # explicit zeros are not loads: the core call drops them (zeros 1) and returns the arrays
    # it ran on; "count" (zeros 2) then counts 1 per entry left, "stored" keeps every entry
    # (no values: the core's unit weights, the 1s and pointers it ran on come back). A dense
    # array's arrays hold its nonzeros already
    zeros = 0 if type(A) is np.ndarray or weights == "stored" else \
        1 if weights == "values" else 2
    if weights == "count" and dt.kind == "f" and np.isnan(vals).any():
        return None  # (the general path's error)
    if weights == "stored":
        vals = None
    ms = min(max_sweeps, 2**62)
    tl = 0.0 if time_limit is None else float(time_limit)
    if nnz == 0:
        return None
    t0 = time.perf_counter()
    try:
        out = _core.spatial_rect_nicol_auto(n1, n2, rp, ci, vals, P, Q, min(2 * ms, 2**62),
                                            True, tl, None, fvals, zeros)  # (no progress)
    except WpartValueError:  # arrays out of bounds (the core checks them): the general
        return None          # path's input rules name `A` and the fault
    except MemoryError:  # (the general path's input rules say what does not fit)
        return None
    if out is None or out[9]:  # no nonzero entry; a bad value, a large int total: the
        return None            # step-by-step path decides
    # the loads matrix: the int64 arrays the core ran on with its 1 per entry (no values, or
    # "count"), or with the values left where zeros were dropped; else A itself
    ran = out[18] if vals is None or zeros == 2 else out[20]
    if ran is not None:
        vals = ran
        A = _csr_with(A, out[15], out[16], vals)
    loads = lmax = None
    if vals.dtype.kind == "i":  # (Python scalars: what the result holds)
        total, amax, kind = out[10], out[11], "i"
    elif prefix:  # the block loads, total and max of the prepared path: the dense prefix's
        S = buf[2 * nz:].view(np.float64).reshape(shape[0] + 1, shape[1] + 1)
        _core.prefix_sum(A, S, "A")  # (in the buffer's room: see spatial_dense_csr)
        loads = _core.box_loads(S, out[13])
        total, amax, kind, lmax = S[-1, -1].item(), A.max().item(), "f", loads.max().item()
    else:
        total, amax, kind = float(vals.sum()), out[12], "f"
        if not math.isfinite(total):
            return None
    head = dict(_FAST_HEAD, seconds=time.perf_counter() - t0)  # (the core call's time)
    params, stats = _auto_stats(P, Q, ms, out, head)
    return _fast_result(A, m, total, amax, kind, out, params, stats, tl, loads, lmax)
