"""Tasks of wpart.dynamic's real execution: a real computation bound to a 1-D index space.

A task's ``compute(offset, size, threads=...)`` computes one block; the workers of
:mod:`wpart.dynamic` call it from their own threads, concurrently for disjoint blocks. Every
task records how often each element was computed (:attr:`Task.coverage`), so a run can prove
that every element was computed exactly once.
"""

from __future__ import annotations
from .._errors import (WpartMemoryError, WpartNotImplementedError, WpartTypeError,
                       WpartValueError)

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._validate import as_int, as_matrix, check_memory, deprecated_attr, renamed

__all__ = ["Task", "GemmColumnsTask", "KMeansAssignTask", "CallableTask"]


class Task:
    """Base of every task: a computation over the index space ``[0, n)``.

    Subclasses implement :meth:`compute`, which computes one block and may be called
    concurrently from several workers for disjoint blocks.

    Parameters
    ----------
    n : int
        Workload: the number of units to distribute.
    """

    n: int

    @renamed(total="n")
    def __init__(self, n: int) -> None:
        self.n = as_int(n, "n", minimum=0)
        check_memory(4.0 * self.n, "n")  # the coverage counters: one int32 per element
        try:
            self._hits = np.zeros(self.n, dtype=np.int32)
        except MemoryError:
            raise WpartMemoryError(f"`n` = {self.n}: its coverage counters ({4 * self.n / 2**30:.3g} "
                                   f"GiB) do not fit in memory") from None
        self._lock = threading.Lock()

    total = deprecated_attr("total", "n", "Task")

    def compute(self, offset: int, size: int, *, threads: int = 1) -> None:
        """Compute the block ``[offset, offset + size)`` with ``threads`` threads."""
        raise WpartNotImplementedError

    def _check_block(self, offset: int, size: int) -> None:
        if offset < 0 or size < 0 or offset + size > self.n:
            raise WpartValueError(f"block [{offset}, {offset + size}) is outside [0, {self.n})")

    def _mark(self, offset: int, size: int) -> None:
        with self._lock:
            self._hits[offset : offset + size] += 1

    @property
    def coverage(self) -> NDArray[np.int32]:
        """How many times each element was computed (all ones after a correct run)."""
        return self._hits.copy()

    def reset(self) -> None:
        """Forget the results so that the task can be run again."""
        self._hits[:] = 0

    # A block computed elsewhere (another process or MPI rank, on its own copy of the task):
    # ``_block_payload`` reads its results there, ``_proc_store`` stores them here.
    def _block_payload(self, offset: int, size: int) -> Any:
        """The results of the computed block ``[offset, offset + size)`` (None: nothing to move)."""
        return None

    def _proc_store(self, offset: int, size: int, payload: Any) -> None:
        """Store the results of a block computed elsewhere (see :meth:`_block_payload`)."""
        self._check_block(offset, size)
        self._mark(offset, size)


class GemmColumnsTask(Task):
    """Dense product ``C = A · B`` whose index space is the columns of ``B`` (and ``C``).

    A block ``[c0, c0 + k)`` computes ``C[:, c0:c0+k] = A · B[:, c0:c0+k]`` with the C kernel
    (64 × 64 tiles, k-blocking 256, the worker's thread count); the GIL is released meanwhile.

    Parameters
    ----------
    A : array_like, shape (n, k)
    B : array_like, shape (k, N)
        Real matrices (bool, int or float; finite). The task keeps float64 Fortran-order copies:
        the inputs are never modified, and a column range of ``B`` and ``C`` is contiguous.

    Attributes
    ----------
    C : ndarray of float64, shape (n, N), Fortran order
        The product; columns not computed yet hold NaN.
    n : int
        N, the number of columns (``total``: deprecated alias).

    Notes
    -----
    Each element of ``C`` is summed over ``l = 0 .. k-1`` in order whatever the thread count,
    so results agree with NumPy to rounding (``verify`` uses ``rtol = 1e-10``).
    """

    def __init__(self, A: ArrayLike, B: ArrayLike) -> None:
        a, b = as_matrix(A, "A", order="F"), as_matrix(B, "B", order="F")
        if a.shape[1] != b.shape[0]:
            raise WpartValueError(
                f"`A` has {a.shape[1]} columns but `B` has {b.shape[0]} rows (shapes {a.shape} and {b.shape})"
            )
        super().__init__(b.shape[1])
        self.A, self.B = a, b
        self.C = np.full((a.shape[0], b.shape[1]), np.nan, order="F")

    def compute(self, offset: int, size: int, *, threads: int = 1) -> None:
        self._check_block(offset, size)
        _core.dynamic_kernel_gemm_cols(self.A, self.B, self.C, offset, size, threads)
        self._mark(offset, size)

    def reset(self) -> None:
        super().reset()
        self.C[...] = np.nan

    def verify(self, *, rtol: float = 1e-10) -> bool:
        """True when every column was computed exactly once and ``C ≈ A · B``.

        The tolerance is ``rtol · (|A| · |B|)`` elementwise, the natural scale of rounding
        errors in a dot product (so entries that cancel to about zero are judged fairly).
        """
        if not np.all(self._hits == 1):
            return False
        ref = self.A @ self.B
        scale = np.abs(self.A) @ np.abs(self.B)
        return bool(np.all(np.abs(self.C - ref) <= rtol * scale))

    def _proc_spec(self) -> tuple:
        return ("gemm", self.A, self.B)

    def _proc_store(self, offset: int, size: int, payload: Any) -> None:
        self.C[:, offset : offset + size] = payload
        self._mark(offset, size)

    def _block_payload(self, offset: int, size: int) -> Any:
        return np.array(self.C[:, offset : offset + size], order="F")

    def _gpu_block(self, st: dict, offset: int, size: int) -> tuple[float, float]:
        """One block on a CuPy device: (t_xfer, t_comp); see :class:`CupyWorker`."""
        import cupy as cp

        t_setup = 0.0
        if "A" not in st:  # the replicated matrix: paid once, with the first block
            t0 = time.perf_counter()
            st["A"] = cp.asarray(self.A)
            cp.cuda.Stream.null.synchronize()
            t_setup = time.perf_counter() - t0
        t0 = time.perf_counter()
        b = cp.asarray(self.B[:, offset : offset + size])
        cp.cuda.Stream.null.synchronize()
        t_h2d = time.perf_counter() - t0
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        c = st["A"] @ b
        e1.record()
        e1.synchronize()
        t_comp = cp.cuda.get_elapsed_time(e0, e1) / 1e3
        t0 = time.perf_counter()
        self.C[:, offset : offset + size] = cp.asnumpy(c)
        t_d2h = time.perf_counter() - t0
        self._mark(offset, size)
        return t_setup + t_h2d + t_d2h, t_comp


class KMeansAssignTask(Task):
    """The assignment step of k-means over a point index space.

    A block ``[p0, p0 + m)`` labels its points with their nearest centroid (squared Euclidean
    distance, the lowest index on ties) and keeps the block's partial centroid update (sums and
    counts per cluster), so that :meth:`centroid_update` gives the next centroids.

    Parameters
    ----------
    points : array_like, shape (npoints, d)
    centroids : array_like, shape (k, d)
        Real, finite; the task keeps float64 C-order copies.

    Attributes
    ----------
    labels : ndarray of int32, shape (npoints,)
        The nearest centroid of each point (-1 until computed).
    """

    def __init__(self, points: ArrayLike, centroids: ArrayLike) -> None:
        p, c = as_matrix(points, "points", order="C"), as_matrix(centroids, "centroids", order="C")
        if p.shape[1] != c.shape[1]:
            raise WpartValueError(
                f"`points` have dimension {p.shape[1]} but `centroids` have {c.shape[1]} (shapes {p.shape} and {c.shape})"
            )
        if c.shape[0] < 1 or c.shape[1] < 1:
            raise WpartValueError(f"`centroids` must have at least one row and one column, got shape {c.shape}")
        super().__init__(p.shape[0])
        self.points, self.centroids = p, c
        self.labels = np.full(p.shape[0], -1, dtype=np.int32)
        self._partials: dict[int, tuple[NDArray[np.float64], NDArray[np.int64]]] = {}

    def compute(self, offset: int, size: int, *, threads: int = 1) -> None:
        self._check_block(offset, size)
        k, d = self.centroids.shape
        sums = np.empty((k, d))
        counts = np.empty(k, dtype=np.int64)
        _core.dynamic_kernel_kmeans_assign(self.points, self.centroids, self.labels, sums, counts, offset, size, threads)
        with self._lock:
            self._partials[offset] = (sums, counts)
        self._mark(offset, size)

    def reset(self) -> None:
        super().reset()
        self.labels[:] = -1
        self._partials.clear()

    def _proc_spec(self) -> tuple:
        return ("kmeans", self.points, self.centroids)

    def _block_payload(self, offset: int, size: int) -> Any:
        with self._lock:
            sums, counts = self._partials[offset]
        return self.labels[offset : offset + size].copy(), sums, counts

    def _proc_store(self, offset: int, size: int, payload: Any) -> None:
        labels, sums, counts = payload
        self.labels[offset : offset + size] = labels
        with self._lock:
            self._partials[offset] = (sums, counts)
        self._mark(offset, size)

    def centroid_update(self) -> NDArray[np.float64]:
        """The next centroids: the mean of each cluster's points (an empty cluster keeps its
        centroid). Partial sums are combined in block order, so the result does not depend on
        which worker ran which block."""
        k, d = self.centroids.shape
        sums, counts = np.zeros((k, d)), np.zeros(k, dtype=np.int64)
        for off in sorted(self._partials):
            s, c = self._partials[off]
            sums += s
            counts += c
        out = self.centroids.copy()
        nz = counts > 0
        out[nz] = sums[nz] / counts[nz, None]
        return out

    def verify(self) -> bool:
        """True when every point was labelled exactly once with its nearest centroid."""
        if not np.all(self._hits == 1):
            return False
        dist = np.zeros((self.points.shape[0], self.centroids.shape[0]))
        for j in range(self.points.shape[1]):  # the kernel's summation order
            dist += (self.points[:, None, j] - self.centroids[None, :, j]) ** 2
        return bool(np.array_equal(self.labels, np.argmin(dist, axis=1)))


class CallableTask(Task):
    """A task whose blocks run a Python callable ``fn(offset, size)``.

    ``fn`` is called from the workers' threads, concurrently for disjoint blocks; it may
    release the GIL itself (NumPy, I/O, ``time.sleep``) to let workers overlap.

    Parameters
    ----------
    fn : Callable[[int, int], object]
        The function to run.
    n : int
        Workload: the number of units to distribute.
    """

    @renamed(total="n")
    def __init__(self, fn: Callable[[int, int], Any], n: int) -> None:
        if not callable(fn):
            raise WpartTypeError(f"`fn` must be callable, got {type(fn).__name__}")
        super().__init__(n)
        self.fn = fn

    def compute(self, offset: int, size: int, *, threads: int = 1) -> None:
        self._check_block(offset, size)
        self.fn(offset, size)
        self._mark(offset, size)
