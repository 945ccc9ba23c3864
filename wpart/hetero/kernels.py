"""Compute kernels to measure real profiles with :func:`wpart.hetero.measure`.

A kernel is a callable ``kernel(state)`` plus an optional ``setup(size) -> state`` that
prepares the inputs of one size outside the timed region, and an optional ``work(size)`` (the
amount of work, for speed plots).

Examples
--------
>>> import wpart.hetero as wh
>>> k = wh.kernels.BlockedMatmul(K=64)
>>> st = k.setup(8)
>>> k(st)
>>> st[2].shape
(8, 64)
"""

from __future__ import annotations

import numpy as np

from .. import _core

__all__ = ["BlockedMatmul", "NumpyMatmul"]


class BlockedMatmul:
    """Row-partitioned matrix multiply ``C += A B`` by wpart's blocked C kernel.

    A size is the number of rows of ``A`` (``size x K``); ``B`` is ``K x K``, as in the paper's
    DGEMM where the rows of A and C are distributed. Single-threaded, GIL released.

    Parameters
    ----------
    K : int
        Inner and column dimension.
    seed : int
        Seed of the random inputs.
    """

    def __init__(self, K: int = 256, seed: int = 0) -> None:
        if int(K) < 1:
            raise ValueError(f"`K` must be >= 1, got {K}")
        self.K = int(K)
        self.seed = int(seed)
        self._B = np.random.default_rng(seed).random((self.K, self.K))

    def setup(self, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Inputs of one size: ``(A, B, C)``."""
        A = np.random.default_rng([self.seed, int(rows)]).random((int(rows), self.K))
        return A, self._B, np.zeros((int(rows), self.K))

    def __call__(self, state: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        _core.hetero_dgemm(*state)

    def work(self, rows):
        """Floating-point operations ``2 rows K^2``."""
        return 2.0 * np.asarray(rows, dtype=float) * self.K * self.K

    def __repr__(self) -> str:
        return f"BlockedMatmul(K={self.K})"


class NumpyMatmul(BlockedMatmul):
    """The same product through NumPy's BLAS (``A @ B``), a second "processor" on a CPU."""

    def __call__(self, state: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        A, B, C = state
        np.matmul(A, B, out=C)

    def __repr__(self) -> str:
        return f"NumpyMatmul(K={self.K})"
