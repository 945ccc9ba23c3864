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
from .._errors import WpartValueError

import numpy as np

from .. import _core
from .._validate import as_bool, as_int, as_seed

__all__ = ["BlockedMatmul", "NumpyMatmul", "TorchMatmul"]


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

    def __init__(self, *, K: int = 256, seed: int = 0) -> None:
        self.K = as_int(K, "K", minimum=1)
        self.seed = as_seed(seed)
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


class TorchMatmul:
    """Row-partitioned ``C = A B`` on a PyTorch device (a GPU profile), synchronised.

    With ``transfer=True`` (default, as in the paper, where accelerator times include the
    host-device transfers) each run copies ``A`` from pinned host memory to the device,
    multiplies, and copies ``C`` back; otherwise the data stay on the device. Every run ends
    with a device synchronisation, so :func:`wpart.hetero.measure` times the real work.

    Parameters
    ----------
    K : int
        Inner and column dimension.
    device : str, default "cuda"
    dtype : str, default "float64"
        A ``torch`` dtype name.
    repeat : int, default 1
        Products per timed run (to lift short runs above timer and energy-counter resolution).
    seed : int
        Seed of the random inputs.
    transfer : bool, default True
        Copy ``A`` to the device and ``C`` back in every run.
    """

    def __init__(self, *, K: int = 4096, device: str = "cuda", dtype: str = "float64",
                 repeat: int = 1, seed: int = 0, transfer: bool = True) -> None:
        K = as_int(K, "K", minimum=1)
        repeat = as_int(repeat, "repeat", minimum=1)
        seed = as_seed(seed)
        transfer = as_bool(transfer, "transfer")
        import torch

        self.torch = torch
        self.K = K
        self.device = torch.device(device)
        dt = getattr(torch, dtype, None) if isinstance(dtype, str) else None
        if not isinstance(dt, torch.dtype):
            raise WpartValueError(f"`dtype` must name a torch dtype, got {dtype!r}")
        self.dtype = dt
        self.repeat = repeat
        self.transfer = transfer
        self.seed = seed
        g = torch.Generator().manual_seed(self.seed)
        self._B = torch.rand((self.K, self.K), generator=g, dtype=self.dtype).to(self.device)

    def setup(self, rows: int):
        """Inputs of one size: ``(A_host, A_dev, C_dev, C_host)``."""
        torch = self.torch
        g = torch.Generator().manual_seed((self.seed * 1_000_003 + int(rows)) % 2**64)
        A = torch.rand((int(rows), self.K), generator=g, dtype=self.dtype)
        pin = self.device.type == "cuda"
        A_host = A.pin_memory() if pin else A
        C_host = torch.empty((int(rows), self.K), dtype=self.dtype, pin_memory=pin)
        A_dev = A.to(self.device)
        C_dev = torch.empty((int(rows), self.K), dtype=self.dtype, device=self.device)
        return A_host, A_dev, C_dev, C_host

    def _sync(self) -> None:
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def __call__(self, state) -> None:
        A_host, A_dev, C_dev, C_host = state
        for _ in range(self.repeat):
            if self.transfer:
                A_dev.copy_(A_host, non_blocking=True)
            self.torch.matmul(A_dev, self._B, out=C_dev)
            if self.transfer:
                C_host.copy_(C_dev, non_blocking=True)
        self._sync()

    def work(self, rows):
        """Floating-point operations ``2 rows K^2`` per run (times `repeat`)."""
        return 2.0 * np.asarray(rows, dtype=float) * self.K * self.K * self.repeat

    def __repr__(self) -> str:
        return (f"TorchMatmul(K={self.K}, device={self.device}, dtype={self.dtype}, "
                f"repeat={self.repeat}, transfer={self.transfer})")
