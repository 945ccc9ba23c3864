"""Sparse inputs of the spatial methods: ``scipy.sparse`` matrices (every format, sparray and
spmatrix) and MatrixMarket files, the ``weights`` rule (values or nonzero counts), the densify
guard of the methods that need the dense prefix, and the loads of a partition read from the
nonzeros."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import (
    WpartFileNotFoundError,
    WpartMemoryError,
    WpartOverflowError,
    WpartTypeError,
    WpartValueError,
)
from .._validate import as_loads, choice

__all__ = ["MAX_DENSE_BYTES", "read_matrix"]

#: The largest dense copy (matrix plus its prefix sum, in bytes) that a method needing the dense
#: 2D prefix may build from a sparse input; above it the call raises ``WpartMemoryError``.
#: Set ``wpart.spatial.MAX_DENSE_BYTES`` to change it.
MAX_DENSE_BYTES = 2**31

#: The methods that run on the nonzeros of a sparse matrix (the rest densify).
SPARSE_NATIVE = ("rect_uniform", "rect_nicol", "jag_pq_heur", "jag_pq_opt_nicol",
                 "jag_pq_opt_dp", "jag_m_heur", "jag_m_heur_probe", "jag_m_probe",
                 "jag_m_alloc", "jag_m_opt")

#: Those methods run on the nonzeros when at most one cell in SPARSE_DENSITY is nonzero (or the
#: dense copy would not fit), on the dense prefix otherwise (faster there; same partition).
SPARSE_DENSITY = 32

#: ... and when the matrix has more than SPARSE_MIN_CELLS cells: a smaller one runs on its dense
#: prefix (up to about 180 x 180 the dense copy and prefix cost less than the nonzero route's
#: fixed costs -- its transpose and per-start checks -- and above it they cost more, measured
#: in benchmarks/bench_spatial.py's conditions). Like the density rule it reads the same for A
#: and A.toarray(), so both give one partition.
SPARSE_MIN_CELLS = 2**15

_WEIGHTS = ("values", "count")


def _sp() -> Any:
    import scipy.sparse

    return scipy.sparse


def is_sparse(A: Any) -> bool:
    """Whether `A` is a ``scipy.sparse`` matrix or array (scipy imported only if it is)."""
    mod = type(A).__module__
    return mod.startswith("scipy.sparse") and _sp().issparse(A)


def as_weights(weights: Any) -> str:
    """``"values"`` (loads are the matrix values) or ``"count"`` (1 per nonzero)."""
    return choice(weights, "weights", _WEIGHTS)


def read_matrix(path: str | os.PathLike) -> Any:
    """Read a MatrixMarket file (``.mtx``, also gzip / bz2 compressed) with
    ``scipy.io.mmread``.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Every spatial function also accepts such a path as its matrix ``A``.

    Returns
    -------
    scipy.sparse.csr_array or numpy.ndarray
        A coordinate file as a CSR array (duplicate entries summed), an array file as a
        dense array. A ``pattern`` file has value 1 at each entry.

    Raises
    ------
    WpartFileNotFoundError
        If `path` does not exist.
    WpartValueError
        If the file is not a readable MatrixMarket file.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise WpartTypeError(f"`path` must be a str or os.PathLike, got {type(path).__name__}")
    p = os.fspath(path)
    if not os.path.exists(p):
        raise WpartFileNotFoundError(f"`path`: no such file: {p!r}")
    import scipy.io

    try:
        M = scipy.io.mmread(p)
    except Exception as exc:  # scipy raises ValueError / OSError / IndexError on bad files
        raise WpartValueError(f"`path` {p!r} is not a readable MatrixMarket file: {exc}") from None
    if is_sparse(M):
        M = _sp().csr_array(M)
        M.sum_duplicates()
        return M
    return np.asarray(M)


class SparseInput:
    """A validated sparse matrix: CSR arrays (int64 pointers and indices, int64 or float64
    values, duplicates summed, no explicit zeros, sorted indices; the core makes the columns
    when it needs them), its total and largest value. `A` is a scipy.sparse matrix, or a
    dense float array (read by its nonzeros, in the order a canonical sparse matrix stores
    them)."""

    __slots__ = ("n1", "n2", "nnz", "kind", "total", "amax", "_arrays", "_csr")

    def __init__(self, A: Any, weights: str, name: str = "A"):
        shape = A.shape
        if len(shape) != 2:
            raise WpartValueError(f"`{name}` must be 2-D, got a {len(shape)}-D sparse array")
        n1, n2 = int(shape[0]), int(shape[1])
        if n1 == 0 or n2 == 0:
            raise WpartValueError(f"`{name}` is empty (shape {shape})")
        kind = A.dtype.kind
        if weights == "values" and kind not in "biuf":
            raise WpartTypeError(
                f"`{name}` must hold integers, booleans or floats, got dtype {A.dtype}"
            )
        if weights == "count" and kind not in "biufc":
            raise WpartTypeError(f"`{name}` must be numeric, got dtype {A.dtype}")
        i64 = np.int64
        same = False
        if isinstance(A, np.ndarray):
            rows, indices = np.nonzero(A)
            data = A[rows, indices]
            indptr = np.zeros(n1 + 1, i64)
            np.cumsum(np.bincount(rows, minlength=n1), out=indptr[1:])
        else:
            c = A.tocsr()  # the same object for a CSR input: never modified
            if not c.has_canonical_format:
                c = c.copy()
                c.sum_duplicates()
            indptr, indices, data = c.indptr, c.indices, c.data
            rows = None
            # a canonical CSR input whose values are the loads as they are is its own
            # canonical matrix (kept for the result; no copy)
            same = c is A and weights == "values" and data.dtype in (np.int64, np.float64)
        if weights == "count":
            if kind in "fc" and np.isnan(data).any():
                raise WpartValueError(f"`{name}` has NaN entries")
            vals = (data != 0).astype(i64)
        elif kind in "biu":
            if kind == "u" and data.size and int(data.max()) > np.iinfo(i64).max:
                raise WpartOverflowError(f"`{name}` has values above the int64 range")
            vals = data.astype(i64, copy=False)
        else:
            vals = data.astype(np.float64, copy=False)
            if not np.isfinite(vals).all():
                if np.isnan(vals).any():
                    raise WpartValueError(f"`{name}` has NaN entries")
                raise WpartValueError(f"`{name}` has infinite entries")
        vmin = vals.min() if vals.size else 1
        if vmin < 0:
            raise WpartValueError(f"`{name}` has negative entries")
        if vmin == 0:  # explicit zeros (or duplicates summing to zero)
            same = False
            keep = vals != 0
            if rows is None:
                rows = np.repeat(np.arange(n1, dtype=i64), np.diff(indptr))
            rows, indices, vals = rows[keep], indices[keep], vals[keep]
            indptr = np.zeros(n1 + 1, i64)
            np.cumsum(np.bincount(rows, minlength=n1), out=indptr[1:])
        rp = np.ascontiguousarray(indptr, i64)
        ci = np.ascontiguousarray(indices, i64)
        rv = np.ascontiguousarray(vals)
        self.n1, self.n2 = n1, n2
        self._arrays = (rp, ci, rv)
        self._csr = A if same else None
        self.kind = "i" if rv.dtype.kind == "i" else "f"
        self.amax: Any = rv.max() if rv.size else rv.dtype.type(0)
        if self.kind == "i":
            # non-negative: the total is below amax * nnz, checked exactly only when near
            if int(self.amax) * rv.size >= 2**62 and \
                    float(rv.astype(np.float64).sum()) >= 2.0**62:
                raise WpartOverflowError(f"the total of `{name}` exceeds the int64 range")
            self.total: Any = np.int64(rv.sum())
        else:
            self.total = np.float64(rv.sum())
            if not np.isfinite(self.total):
                raise WpartOverflowError(f"the total of `{name}` overflows float64")
        self.nnz = int(rv.size)

    @property
    def csr(self) -> Any:
        """The matrix as a canonical ``scipy.sparse.csr_array`` (made on first use)."""
        if self._csr is None:
            rp, ci, rv = self._arrays[:3]
            c = _sp().csr_array((rv, ci, rp), shape=(self.n1, self.n2))
            c.has_canonical_format = True
            self._csr = c
        return self._csr

    def arrays(self) -> tuple:
        """(rp, ci, rv, None, None, None) for the core: int64 pointers and indices, and no
        columns (CSC): a core call makes them once for itself, by a counting sort in
        O(nnz + n2)."""
        return (*self._arrays, None, None, None)

    def _need(self) -> tuple[int, int]:
        """(bytes of the dense matrix and its prefix, the current MAX_DENSE_BYTES)."""
        limit = getattr(sys.modules.get("wpart.spatial"), "MAX_DENSE_BYTES", MAX_DENSE_BYTES)
        return 8 * (self.n1 * self.n2 + (self.n1 + 1) * (self.n2 + 1)), limit

    def fits(self) -> bool:
        """Whether the dense matrix and its prefix fit under ``MAX_DENSE_BYTES``."""
        need, limit = self._need()
        return need <= limit

    def dense(self, method: str | None, name: str = "A") -> NDArray:
        """The dense matrix, unless it and its prefix would exceed ``MAX_DENSE_BYTES``."""
        need, limit = self._need()
        if need > limit:
            who = f"{method}" if method else "this method"
            raise WpartMemoryError(
                f"`{name}` is a {self.n1} x {self.n2} sparse matrix: {who} needs the dense "
                f"matrix and its prefix sum ({need / 2**30:.3g} GiB), over "
                f"wpart.spatial.MAX_DENSE_BYTES = {limit / 2**30:.3g} GiB; "
                f"{', '.join(SPARSE_NATIVE)} work on the nonzeros (or raise the limit)"
            )
        rp, ci, rv = self._arrays[:3]
        out = np.zeros(self.n1 * self.n2, dtype=rv.dtype)
        rows = np.repeat(np.arange(self.n1, dtype=np.int64), np.diff(rp))
        out[rows * self.n2 + ci] = rv  # canonical: one entry per cell
        return out.reshape(self.n1, self.n2)

    def box_loads(self, rects: NDArray) -> NDArray:
        """The load of each rectangle ``(r0, r1, c0, c1)``, summed from the nonzeros in the
        core (row by row from a binary search: O(nnz + heights x log) for a tiling)."""
        from .. import _core

        r = np.ascontiguousarray(rects, dtype=np.int64).reshape(-1, 4)
        rp, ci, rv = self._arrays[:3]
        return _core.spatial_sparse_loads(self.n1, self.n2, rp, ci, rv, r)


def as_input(A: Any, weights: Any, ndims: tuple, name: str = "A") -> Any:
    """`A` as a ``SparseInput`` (a scipy.sparse matrix, or a MatrixMarket coordinate file) or as
    a validated dense int64 / float64 array (with ``weights="count"``: 1 at every nonzero)."""
    w = as_weights(weights)
    if isinstance(A, (str, os.PathLike)):
        if not os.path.isfile(os.fspath(A)):
            raise WpartFileNotFoundError(
                f"`{name}`: no such MatrixMarket file: {os.fspath(A)!r} (a string `{name}` is "
                "read as a file path)"
            )
        A = read_matrix(A)
    if is_sparse(A):
        return SparseInput(A, w, name)
    arr = as_loads(A, name, ndims)
    if w == "count":
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise WpartValueError(f"`{name}` has NaN entries")
        arr = (arr != 0).astype(np.int64)
    return arr
