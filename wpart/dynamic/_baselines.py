"""The baselines on the common balancer protocol: the competitors of [Sant'Ana 2017] (Sec. 2
and 4) and a few more.

Every class here is a :class:`wpart.dynamic.Balancer` backed by a C state machine, so it runs
unchanged in the simulator and against real workers, and dispatches every element exactly
once. :class:`Greedy` and :class:`Static` live in :mod:`wpart.dynamic._balancer`;
:data:`EagerStarPU` (StarPU's ``eager``: a central queue) is Greedy.

* :class:`HDSS` -- adaptive rounds with barriers, least-squares weights, then weighted
  self-scheduling with decreasing chunks (reference [3] of [Sant'Ana 2017], Sec. 2 and 4;
  the wpart reconstruction).
* :class:`AcostaRP` -- synchronous steps redistributed by relative power (Acosta et al.,
  reference [1], Sec. 2).
* :class:`NaiveProfile` -- one profiling round, then one static block per PU (Kaleen et
  al.'s naive algorithm, reference [8], Sec. 2).
* :class:`Asymmetric` -- a shared pool with larger pieces for accelerators (Kaleen et al.'s
  asymmetric algorithm, reference [8], Sec. 2).
* :class:`StaticPeak` -- one block per PU proportional to nominal peak rates.
* :class:`DmdaLike` -- StarPU dmda-style: every piece pushed at start to the PU that would
  finish it first.
* :class:`FixedBlocks` -- fixed per-PU sizes, repeated (the stepped oracle's shares).

Examples
--------
>>> from wpart.dynamic import DmdaLike
>>> d = DmdaLike(10, [1.0, 3.0], chunk=2)
>>> [(a.pu, a.offset, a.size) for a in d.start(0.0)]
[(0, 0, 2), (0, 2, 2), (0, 4, 2), (1, 6, 2), (0, 8, 2)]
"""

from __future__ import annotations
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError

import math
from typing import Any, Sequence

import numpy as _np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._validate import as_bool, as_float, as_floats, as_int, is_bool, renamed
from ._balancer import Balancer, Greedy, count, m_n

__all__ = [
    "HDSS",
    "AcostaRP",
    "NaiveProfile",
    "Asymmetric",
    "StaticPeak",
    "DmdaLike",
    "FixedBlocks",
    "EagerStarPU",
    "greedy_chunks",
    "split_proportional",
]

PU_KINDS = ("cpu", "gpu", "phi")

EagerStarPU = Greedy
"""StarPU's ``eager`` scheduler (a central queue served first come, first served) is Greedy."""


def _real(v: Any, name: str, *, lo: float, lo_open: bool = False, hi: float = math.inf) -> float:
    return as_float(v, name, minimum=lo, strict_minimum=lo_open, maximum=None if math.isinf(hi) else hi)


def _weights(x: Any, name: str) -> NDArray[_np.float64]:
    """Non-empty, finite, >= 0 weights with a positive sum (rates, proportions)."""
    v = as_floats(x, name, values="finite and non-negative", allow_empty=False)
    if not v.sum() > 0:
        raise WpartValueError(f"`{name}` must have a positive sum")
    return v


class HDSS(Balancer):
    """HDSS, the Heterogeneous Dynamic Self-Scheduler (reference [3] of [Sant'Ana 2017], Sec.
    2 and 4; the wpart reconstruction).

    Phase 1 (adaptive) runs synchronous rounds: in round ``r`` every PU that has not converged
    gets ``x_init * 2**r`` elements, a converged PU its last size; each round ends at a
    barrier. PU ``p`` converges when its throughput ``b / t`` grew by less than ``eps``.
    Phase 1 ends when every PU has converged, after ``rounds_max`` rounds, or when the next
    round would take the dispatched data beyond ``adapt_fraction * n``. One evaluation
    (an ``eval`` action with ``pu == -1``: every PU waits) fits ``theta_p(b) = c + d ln b`` by
    least squares on each PU's round points; the weight ``w_p`` is the fit at the PU's last
    size (at least its smallest observed throughput), normalised to sum 1. Phase 2 has no
    barriers: an idle PU takes ``min(R, max(min_chunk, ceil(w_p R / kappa)))`` of the ``R``
    remaining elements, so its chunks never grow.

    Parameters
    ----------
    m, n : int
        Processing units and elements.
    x_init : int, default 1024
        First adaptive block.
    eps : float, default 0.10
        Convergence threshold on the throughput growth.
    rounds_max : int, default 5
        Most adaptive rounds.
    adapt_fraction : float, default 0.20
        Most data phase 1 may dispatch (the first round always runs).
    kappa : float, default 2.0
        Completion chunk divisor.
    min_chunk : int, default 256
        Completion chunk floor (``x_init / 4``).

    Notes
    -----
    Adaptive blocks have ``block_kind == "train"`` and ``vstep`` = round + 1; completion
    blocks are ``"other"`` with ``vstep == 0``. :attr:`shares` are the weights x 100.
    """

    @renamed(n_pu="m", total="n")
    def __init__(
        self,
        m: int,
        n: int,
        *,
        x_init: int = 1024,
        eps: float = 0.10,
        rounds_max: int = 5,
        adapt_fraction: float = 0.20,
        kappa: float = 2.0,
        min_chunk: int = 256,
    ) -> None:
        n, w = m_n(m, n)
        xi = count(x_init, "x_init", 1)
        e = _real(eps, "eps", lo=0.0)
        rm = as_int(rounds_max, "rounds_max", minimum=1, maximum=62)
        af = _real(adapt_fraction, "adapt_fraction", lo=0.0, lo_open=True, hi=1.0)
        k = _real(kappa, "kappa", lo=0.0, lo_open=True)
        mc = count(min_chunk, "min_chunk", 1)
        self._args = (n, w)
        self._kw = dict(x_init=xi, eps=e, rounds_max=rm, adapt_fraction=af, kappa=k, min_chunk=mc)
        self._c = _core.dynamic_hdss(n, w, xi, e, rm, af, k, mc)

    @property
    def weights(self) -> NDArray[_np.float64] | None:
        """The phase-1 weights (sum 1), or None before the evaluation has been published."""
        return _core.dynamic_hdss_weights(self._c)


class AcostaRP(Balancer):
    """Acosta et al.'s relative-power balancing (reference [1] of [Sant'Ana 2017], Sec. 2).

    Synchronous steps of ``step`` elements (the last one takes what remains), starting from
    equal shares, with a barrier after every step. After a step, with ``t_p`` the measured
    time of PU ``p``'s block, ``RP_p = x_p / t_p``; if ``(max t - min t) / max t >
    threshold`` the split becomes ``step * RP_p / sum(RP)`` (largest remainder, every PU
    keeps at least one element).

    Parameters
    ----------
    m, n : int
        Processing units and elements.
    step : int
        Step volume ``S`` (>= m).
    threshold : float, default 0.05
        Relative spread of the step times below which the split is kept.
    eval_at_barrier : bool, default False
        Issue an ``eval`` action (every PU waits) at each barrier, so that a driver charges an
        evaluation cost; by default the redistribution is free (a few flops).

    Notes
    -----
    :attr:`series` holds one row per step (``model_version`` = step number, ``S_eff`` = the
    step's volume, ``X`` = its split); :attr:`shares` is the latest split.
    """

    @renamed(n_pu="m", total="n")
    def __init__(self, m: int, n: int, step: int, *, threshold: float = 0.05,
                 eval_at_barrier: bool = False) -> None:
        n, w = m_n(m, n)
        s = count(step, "step", 1)
        if s < n:
            raise WpartValueError(f"`step` must be >= m ({n}), got {s}")
        th = _real(threshold, "threshold", lo=0.0)
        ev = as_bool(eval_at_barrier, "eval_at_barrier")
        self._args = (n, w, s)
        self._kw = dict(threshold=th, eval_at_barrier=ev)
        self._c = _core.dynamic_acosta(n, w, s, th, ev)


class NaiveProfile(Balancer):
    """Kaleen et al.'s naive profiling scheme (reference [8] of [Sant'Ana 2017], Sec. 2).

    Every PU first runs ``x_init`` elements (``block_kind == "train"``; one barrier), giving
    rates ``r_p = x_init / t_p``. The remaining data is then split statically proportionally
    to the rates (largest remainder), one block per PU. :attr:`shares` are the rates in
    percent.

    Parameters
    ----------
    m, n : int
        Processing units and elements.
    x_init : int, default 1024
        Profiling block.
    """

    @renamed(n_pu="m", total="n")
    def __init__(self, m: int, n: int, *, x_init: int = 1024) -> None:
        n, w = m_n(m, n)
        xi = count(x_init, "x_init", 1)
        self._args = (n, w)
        self._kw = dict(x_init=xi)
        self._c = _core.dynamic_naive(n, w, xi)


def _kinds(pu_kinds: Any, n: int) -> NDArray[_np.int32]:
    if isinstance(pu_kinds, (str, bytes)):
        raise WpartTypeError("`pu_kinds` must be a sequence of kinds ('cpu', 'gpu', 'phi'), not a string")
    try:
        items = list(pu_kinds)
    except TypeError:
        raise WpartTypeError(f"`pu_kinds` must be a sequence, got {type(pu_kinds).__name__}") from None
    if len(items) != n:
        raise WpartValueError(f"`pu_kinds` must have length m = {n}, got {len(items)}")
    out = _np.empty(n, dtype=_np.int32)
    for i, k in enumerate(items):
        if isinstance(k, str):
            key = k.lower()
            if key not in PU_KINDS:
                raise WpartValueError(f"`pu_kinds[{i}]` must be one of 'cpu', 'gpu', 'phi', got {k!r}")
            out[i] = PU_KINDS.index(key)
        elif isinstance(k, (int, _np.integer)) and not is_bool(k):
            if not 0 <= int(k) <= 2:
                raise WpartValueError(f"`pu_kinds[{i}]` must be 0 (cpu), 1 (gpu) or 2 (phi), got {k}")
            out[i] = int(k)
        else:
            raise WpartTypeError(f"`pu_kinds[{i}]` must be a kind name or 0/1/2, got {type(k).__name__}")
    return out


class Asymmetric(Balancer):
    """Kaleen et al.'s asymmetric scheme (reference [8] of [Sant'Ana 2017], Sec. 2): a shared
    pool, like Greedy, in which a CPU takes ``g_cpu`` elements and a GPU or PHI takes
    ``ratio * g_cpu`` whenever free.

    Parameters
    ----------
    m, n : int
        Processing units and elements.
    pu_kinds : sequence of {"cpu", "gpu", "phi"} (or 0, 1, 2)
        One per PU.
    g_cpu : int, default 1024
        CPU piece.
    ratio : int, default 8
        Accelerator piece over CPU piece.
    """

    @renamed(n_pu="m", total="n")
    def __init__(self, m: int, n: int, pu_kinds: Sequence[str | int], *, g_cpu: int = 1024,
                 ratio: int = 8) -> None:
        n, w = m_n(m, n)
        k = _kinds(pu_kinds, n)
        g = count(g_cpu, "g_cpu", 1)
        r = count(ratio, "ratio", 1)
        if g * r > 2**63 - 1:
            raise WpartOverflowError("`g_cpu * ratio` must fit in int64")
        self._args = (n, w, tuple(PU_KINDS[i] for i in k))
        self._kw = dict(g_cpu=g, ratio=r)
        self._c = _core.dynamic_asymmetric(w, k, g, r)


class StaticPeak(Balancer):
    """One block per PU proportional to its nominal peak rate (a static baseline).

    Parameters
    ----------
    n : int
        Elements to process.
    peak_rates : array_like of float
        One per PU, finite and >= 0, with a positive sum (a zero rate gives no data).
    """

    @renamed(total="n")
    def __init__(self, n: int, peak_rates: ArrayLike) -> None:
        w = count(n, "n", 1)
        r = _weights(peak_rates, "peak_rates")
        self._args = (w, r)
        self._kw = {}
        self._c = _core.dynamic_static_peak(w, r)

    def __repr__(self) -> str:
        return f"StaticPeak({self._args[0]!r}, {self._args[1].tolist()!r})"


class DmdaLike(Balancer):
    """StarPU ``dmda``-style placement (StarPU's deque-model data-aware scheduler, without its
    data or energy terms).

    The data is pre-split into pieces of ``chunk`` elements, all pushed at start in order:
    each piece goes to ``argmin_p (avail_p + E_p)`` (ties to the lowest p) and
    ``avail_p += E_p``, with ``E_p = piece_times[p] * size / chunk``. A PU runs its queue in
    FIFO order; completions change nothing (there is no stealing).

    Parameters
    ----------
    n : int
        Elements to process.
    piece_times : array_like of float
        Per PU, the calibrated time of one full piece (finite, > 0), e.g. a history mean from
        a calibration run.
    chunk : int, default 1024
        Piece size ``g`` (at most 2**26 pieces).
    """

    @renamed(total="n")
    def __init__(self, n: int, piece_times: ArrayLike, *, chunk: int = 1024) -> None:
        w = count(n, "n", 1)
        t = as_floats(piece_times, "piece_times", allow_empty=False)
        if (t <= 0).any():
            i = int(_np.flatnonzero(t <= 0)[0])
            raise WpartValueError(f"`piece_times` must be > 0, got {t[i]} at index {i}")
        g = count(chunk, "chunk", 1)
        if -(-w // g) > 2**26:
            raise WpartValueError(f"`n / chunk` gives more than 2**26 pieces: raise `chunk` (got {g})")
        self._args = (w, t)
        self._kw = dict(chunk=g)
        self._c = _core.dynamic_dmda(w, t, g)

    def __repr__(self) -> str:
        return f"DmdaLike({self._args[0]!r}, {self._args[1].tolist()!r}, chunk={self._kw['chunk']!r})"


def _blocks(blocks: Any) -> NDArray[_np.int64]:
    arr = _np.asarray(blocks)
    if arr.ndim != 1 or arr.size == 0:
        raise WpartValueError(f"`blocks` must be a non-empty 1-D array of sizes, got shape {arr.shape}")
    if arr.dtype == bool or (arr.dtype.kind not in "iu" and not (
            arr.dtype.kind == "f" and _np.all(_np.isfinite(arr)) and _np.all(arr == _np.round(arr)))):
        raise WpartTypeError(f"`blocks` must hold integers, got dtype {arr.dtype}")
    if _np.any(arr < 0):
        raise WpartValueError(f"`blocks` must be >= 0, got {arr.min()} at index {int(_np.argmin(arr))}")
    if _np.any(arr > 2**63 - 1):
        raise WpartOverflowError("`blocks` values must fit in int64")
    b = _np.array(arr, dtype=_np.int64)
    if not (b > 0).any():
        raise WpartValueError("`blocks` must have at least one positive size")
    return b


class FixedBlocks(Balancer):
    """Fixed per-PU block sizes, repeated until the data is exhausted.

    PU ``p`` takes ``blocks[p]`` elements (or what remains) from the cursor each time it is
    free; a PU with ``blocks[p] == 0`` gets nothing. This runs the static equal-time shares
    of a step volume ``S = sum(blocks)`` as repeated steps (``oracle_stepped``).

    Parameters
    ----------
    n : int
        Elements to process.
    blocks : array_like of int
        One size per PU (>= 0, at least one positive).
    sync : bool, default False
        If True, every PU gets its block of step ``k`` at once and step ``k + 1`` starts when
        all of them have finished (one barrier per step); ``vstep`` is the step number.
    """

    @renamed(total="n")
    def __init__(self, n: int, blocks: ArrayLike, *, sync: bool = False) -> None:
        w = count(n, "n", 1)
        b = _blocks(blocks)
        sy = as_bool(sync, "sync")
        self._args = (w, b)
        self._kw = dict(sync=sy)
        self._c = _core.dynamic_fixed_blocks(w, b, sy)

    def __repr__(self) -> str:
        return f"FixedBlocks({self._args[0]!r}, {self._args[1].tolist()!r}, sync={self._kw['sync']!r})"


def greedy_chunks(*, x_init: int = 1024) -> tuple[int, int, int]:
    """The Greedy piece sizes benchmarks sweep (the paper does not give Greedy's piece size):
    ``x_init``, ``4 x_init`` and ``16 x_init``; "Greedy-best" is the best of them in
    hindsight."""
    xi = count(x_init, "x_init", 1)
    if 16 * xi > 2**63 - 1:
        raise WpartOverflowError("`16 * x_init` must fit in int64")
    return (xi, 4 * xi, 16 * xi)


@renamed(total="n")
def split_proportional(n: int, weights: ArrayLike) -> NDArray[_np.int64]:
    """Split ``n`` into integer parts proportional to ``weights`` by largest remainder
    (floors first, then one element each to the largest fractional parts, ties to the lowest
    index; a zero weight gets nothing).

    Examples
    --------
    >>> split_proportional(10, [1, 1, 1]).tolist()
    [4, 3, 3]
    """
    w = count(n, "n", 0)
    return _core.dynamic_split_proportional(w, _weights(weights, "weights"))

