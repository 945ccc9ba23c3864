"""Rectilinear grids on the nonzeros, one kernel for dense and sparse input: the symmetric grids
(one cut vector for rows and columns, as a symmetric SpMV wants; Yasar, Balin, An, Sancak and
Catalyurek, "On Symmetric Rectilinear Partitioning", ACM JEA 2022) and the machinery that
RECT-NICOL's progress-following engine shares with them."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._errors import WpartValueError
from .._validate import as_int, as_progress, core_time_limit
from .._progress import progress_hook
from ._common import _pq, _Prepared, _result
from ._partition import SpatialPartition

__all__ = ["rect_sym_opal", "rect_sym_pal", "rect_sym_rac", "rect_sym_refine",
           "rect_sym_uniform"]


class GridInput:
    """The nonzeros of a prepared matrix as CSR arrays with float64 weights (None when every
    entry weighs 1), the same for a dense array and a sparse matrix: every grid method here
    runs one kernel on them, so dense and sparse input give the same grid."""

    __slots__ = ("n1", "n2", "rp", "ci", "w", "counts")

    def __init__(self, pp: _Prepared):
        self.n1, self.n2 = int(pp.n1), int(pp.n2)
        if pp.sp is None:
            self._from_dense(np.asarray(pp.A))
            return
        rp, ci, rv = pp.sp.arrays()[:3]
        self.rp = np.ascontiguousarray(rp, np.int64)
        self.ci = np.ascontiguousarray(ci, np.int64)
        w = np.ascontiguousarray(rv, np.float64)
        self.w = None if (w.size == 0 or bool((w == 1.0).all())) else w
        #: stored entries per row and per column (SARMA's 1D start counts these)
        self.counts = (np.diff(self.rp).astype(np.float64),
                       np.bincount(self.ci, minlength=self.n2).astype(np.float64))

    def _from_dense(self, D: NDArray) -> None:
        """The same arrays from a dense matrix, in one core pass over its cells for the counts
        and one for the entries (Ctrl-C seen inside them; the NumPy way, np.nonzero and the
        values gathered, took 4-5 x the default RECT-NICOL's own time on a 200 x 200 array)."""
        # one buffer, [indices | int64 values (an int64 array) | float64 values]: fewer chunks
        # for glibc's heap (see spatial_dense_csr)
        rp, buf, cols, ones = _core.spatial_dense_csr(D, True)
        nz = int(rp[-1])
        k = 2 if D.dtype == np.int64 else 1
        self.rp, self.ci = rp, buf[:nz]
        self.w = None if (nz == 0 or ones) else buf[k * nz:(k + 1) * nz].view(np.float64)
        self.counts = (np.diff(rp).astype(np.float64), cols.astype(np.float64))

    def args(self) -> tuple:
        return self.n1, self.n2, self.rp, self.ci, self.w

    def oned(self, vec: NDArray, parts: int) -> NDArray:
        """The exact 1D partition of `vec` into `parts` intervals."""
        return _core.spatial_rect_1d(np.ascontiguousarray(vec, np.float64), int(parts))[0]

    def _entry_blocks(self) -> list:
        """(first row, end row, first entry, end entry) of row blocks of about 2**20 entries
        (Ctrl-C is seen between two NumPy calls, not inside one over all the nonzeros)."""
        out, b, rp = [], 0, self.rp
        while b < self.n1:
            e = max(b + 1, int(np.searchsorted(rp, rp[b] + (1 << 20), "right")) - 1)
            e = min(e, self.n1)
            out.append((b, e, int(rp[b]), int(rp[e])))
            b = e
        return out

    def row_loads(self) -> NDArray:
        if self.w is None:
            return self.counts[0]
        out = np.zeros(self.n1)
        for b, e, lo, hi in self._entry_blocks():  # each row summed in order, as one bincount
            rows = np.repeat(np.arange(e - b, dtype=np.int64), np.diff(self.rp[b:e + 1]))
            out[b:e] = np.bincount(rows, weights=self.w[lo:hi], minlength=e - b)
        return out

    def col_loads(self) -> NDArray:
        if self.w is None:  # the stored entries per column (exact integers)
            return self.counts[1].copy()
        out = np.zeros(self.n2)
        for _b, _e, lo, hi in self._entry_blocks():  # in entry order, as one bincount
            np.add.at(out, self.ci[lo:hi], self.w[lo:hi])
        return out


#: The seeds of SARMA's random start of its subgradient method (std::mt19937_64): 1, its
#: library's default (``subgradient_method::partition``), and 2147483647, the default of its
#: command line (``sarma --seed``), which hands it to the SGO members: SARMA's sgo_2dr,
#: sgo_2dr_nic and sgo_2ds as a user of the ``sarma`` program gets them.
SARMA_SEEDS = (1, 2147483647)


def _done(hook: Any, timed: Any) -> None:
    """Report the whole run done (a hook counts fractions: total 1.0)."""
    if hook is not None and not timed:
        hook(1.0, 1.0)


def grid_rects(R: NDArray, C: NDArray) -> NDArray:
    """The P x Q rectangles (r0, r1, c0, c1) of row cuts R and column cuts C, row-major."""
    R = np.asarray(R, np.int64)
    C = np.asarray(C, np.int64)
    P, Q = len(R) - 1, len(C) - 1
    out = np.empty((P, Q, 4), np.int64)
    # in blocks of rows of about 2^20 rectangles (32 MiB): Ctrl-C is seen between them (one
    # fill of 2^24 rectangles, 512 MiB first touched, took 0.6 s)
    step = max(1, (1 << 20) // max(Q, 1))
    for a in range(0, P, step):
        b = min(P, a + step)
        blk = out[a:b]
        blk[:, :, 0] = R[a:b, None]
        blk[:, :, 1] = R[a + 1:b + 1, None]
        blk[:, :, 2] = C[None, :-1]
        blk[:, :, 3] = C[None, 1:]
    return out.reshape(P * Q, 4)


def _sym_PQ(pp: _Prepared, P: Any, Q: Any) -> tuple[int, int]:
    """(P, Q): a square m gives P = Q = sqrt(m) unless told otherwise; else as rect_uniform."""
    if P is None and Q is None:
        r = math.isqrt(pp.m)
        if r * r == pp.m:
            return r, r
    return _pq(pp.m, pp.n1, pp.n2, P, Q)


def _left(deadline: float) -> float:
    """The time left to a kernel call before `deadline` (time.monotonic(), the core's clock;
    0.0: no limit), at least 1e-9 so a call past it stops at its first check."""
    if deadline == 0.0:
        return 0.0
    return max(deadline - time.monotonic(), 1e-9)


def _sym_finish(g: GridInput, P: int, Q: int, cuts: NDArray, tl: float) -> tuple:
    """(R, C, timed) of the symmetric cuts (max(P, Q) intervals): both clipped when P == Q;
    otherwise the coarser dimension's cuts set optimally for the finer one's (one exact
    Nicol half-sweep)."""
    if P == Q:
        return np.minimum(cuts, g.n1), np.minimum(cuts, g.n2), 0
    if P > Q:
        R0, C0, first = np.minimum(cuts, g.n1), (np.arange(Q + 1) * g.n2) // Q, 0
    else:
        R0, C0, first = (np.arange(P + 1) * g.n1) // P, np.minimum(cuts, g.n2), 1
    R, C, _v, _h, _s, timed = _core.spatial_rect_grid(
        *g.args(), P, Q, np.ascontiguousarray(R0[None, :], np.int64),
        np.ascontiguousarray(C0[None, :], np.int64), np.array([first], np.int32),
        patience=1, max_half=1, time_limit=tl)
    return R, C, timed


def _sym_run(A: Any, m: int, method: str, variant: int, *, P: Any, Q: Any, allow_empty: bool,
             weights: str, time_limit: Any, progress: Any, max_iter: int = 10,
             start: Any = None) -> SpatialPartition:
    t_start = time.monotonic()
    pp = _Prepared(A, m, allow_empty, weights=weights, sparse=True)
    P, Q = _sym_PQ(pp, P, Q)
    K = max(P, Q)
    tl = core_time_limit(time_limit)
    deadline = t_start + tl if tl else 0.0
    progress = as_progress(progress)
    t0 = time.perf_counter()
    g = GridInput(pp)
    params: dict = {"P": P, "Q": Q}
    c0 = None
    if variant in (2, 3, 12) and start is not None:
        c0 = np.ascontiguousarray(start, np.int64)
    with progress_hook(progress, total=1.0, desc=method) as hook:
        cuts, value, timed = sym_cuts(g, K, variant, c0=c0, max_iter=max_iter,
                                      time_limit=_left(deadline), progress=hook)
        R, C, timed2 = _sym_finish(g, P, Q, cuts, _left(deadline))
        _done(hook, timed or timed2)
    return _grid_result(pp, method, params, R, C, {"iterations": max_iter}, timed or timed2,
                        tl, t0=t0, extra={"cuts": cuts.tolist()})


def sym_cuts(g: GridInput, P: int, variant: int, *, c0: Any = None, max_iter: int = 10,
             time_limit: float = 0.0, progress: Any = None) -> tuple:
    """(cuts, max load, timed_out) of a symmetric kernel call (see rect_grid.h)."""
    return _core.spatial_rect_sym(*g.args(), P, variant, c0=c0, max_iter=max_iter,
                                  time_limit=time_limit, progress=progress)


def _grid_result(pp: _Prepared, method: str, params: dict, R: NDArray, C: NDArray,
                 stats: dict, timed: int, tl: float, *, t0: float, extra: dict | None = None,
                 message: str | None = None) -> SpatialPartition:
    """The result of a grid method; ``stats["seconds"]``: the time since `t0`
    (``time.perf_counter()`` when its work began, the input prepared)."""
    rects = grid_rects(R, C)
    stats = dict({"seconds": time.perf_counter() - t0, "iterations": 0, "probes": 0,
                  "cost_evals": 0, "dp_states": 0, "converged": not timed}, **stats)
    if extra:
        params = dict(params, **extra)
    return _result(pp, rects, method, params, stats, None, stop=1 if timed else 0,
                   time_limit=tl, message=message)


_DOC_COMMON = """
    Parameters
    ----------
    A, m
        Loads (a dense 2D array, a ``scipy.sparse`` matrix of any format, or a MatrixMarket file
        path) and number of parts, ``m = P * Q``. Dense and sparse input run the same kernel
        on the nonzeros (same grid). A non-square ``n1 x n2`` matrix is cut on
        ``N = max(n1, n2)`` indices, each cut clipped to the dimension.
    P, Q : int, optional
        Grid shape, ``P * Q = m``: by default ``P = Q = sqrt(m)`` for a square ``m``, else as
        :func:`rect_uniform`. The grid is symmetric when ``P == Q``; otherwise the
        ``max(P, Q)`` symmetric cuts serve the finer dimension and the coarser one's cuts
        are set optimally for them (one exact 1D half-sweep).
    allow_empty : bool
        Accept ``m`` larger than the number of cells.
    time_limit : float, optional
        Seconds from the call (one limit for every kernel run inside); reached, the best
        complete grid so far comes back with ``status="time_limit"``, never worse than
        :func:`rect_sym_uniform`'s (the uniform cuts replace a worse one).
    progress : callable, optional
        ``progress(done, total)``, called now and then.
    weights : str
        How a stored entry counts (as for every spatial method).

    Returns
    -------
    SpatialPartition
        ``P * Q`` rectangles, row-major; ``params["cuts"]`` is the symmetric cut vector.

    Raises
    ------
    WpartValueError
        ``P * Q != m``, or a bad argument (the message names it).
"""


def rect_sym_uniform(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                 allow_empty: bool = False,
                     time_limit: float | None = None, progress: Any = None,
                     weights: str = "values") -> SpatialPartition:
    """Symmetric uniform grid: the same ``P`` equal-length intervals for rows and columns
    (SARMA's ``uni``). No balance guarantee.
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, sparse=True)
    P, Q = _sym_PQ(pp, P, Q)
    tl = core_time_limit(time_limit)
    progress = as_progress(progress)
    t0 = time.perf_counter()
    N = max(pp.n1, pp.n2)
    K = max(P, Q)
    cuts = (np.arange(K + 1, dtype=np.int64) * N) // K
    with progress_hook(progress, total=1.0, desc="rect_sym_uniform") as hook:
        if P == Q:
            R, C = np.minimum(cuts, pp.n1), np.minimum(cuts, pp.n2)
        else:
            R, C, _t = _sym_finish(GridInput(pp), P, Q, cuts, tl)
        _done(hook, 0)
    return _grid_result(pp, "rect_sym_uniform", {"P": P, "Q": Q}, R, C, {}, 0, tl, t0=t0,
                        extra={"cuts": cuts.tolist()})


def rect_sym_pal(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                 allow_empty: bool = False,
                 time_limit: float | None = None, progress: Any = None,
                 weights: str = "values") -> SpatialPartition:
    """PROBE-A-LOAD (PAL): a bisection on the bottleneck ``L`` whose probe grows each interval
    along the diagonal as far as every block it closes (its row and column strip against the
    intervals before it, and its diagonal block) stays at most ``L``; each cut is bounded by
    the last feasible probe's. A heuristic (the symmetric problem is NP-hard): the probe is
    the greedy one, exact for the order it sweeps. O((nnz + N) log(total)).
    """
    return _sym_run(A, m, "rect_sym_pal", 0, P=P, Q=Q, allow_empty=allow_empty, weights=weights,
                    time_limit=time_limit, progress=progress)


def rect_sym_opal(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                 allow_empty: bool = False,
                  time_limit: float | None = None, progress: Any = None,
                  weights: str = "values") -> SpatialPartition:
    """ORDERED PROBE-A-LOAD (OPAL): PAL's bisection and greedy probe with the entries grouped
    by ``max(i, j)`` (each index adds its L-shaped row and column) and no bound from the
    previous probe. A heuristic; O((nnz + N) log(total)).
    """
    return _sym_run(A, m, "rect_sym_opal", 1, P=P, Q=Q, allow_empty=allow_empty, weights=weights,
                    time_limit=time_limit, progress=progress)


def rect_sym_rac(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                 max_iter: int | None = None,
                 allow_empty: bool = False, time_limit: float | None = None,
                 progress: Any = None, weights: str = "values") -> SpatialPartition:
    """REFINE-A-CUT (RAC): each iteration gives index ``i`` the largest load of its row (or
    column) within one interval of the current cuts and cuts that weight vector optimally in
    1D; the direction (rows or columns) whose first iteration is better is kept. Returns the
    best iterate (SARMA returns the last). ``max_iter`` defaults to ``max(10, P)``.
    O(max_iter (nnz + N log N)).
    """
    it = None if max_iter is None else as_int(max_iter, "max_iter", minimum=1)
    if it is None:
        it = max(10, P or 0, Q or 0, math.isqrt(as_int(m, "m", minimum=1)))
    return _sym_run(A, m, "rect_sym_rac", 2, P=P, Q=Q, allow_empty=allow_empty, weights=weights,
                    time_limit=time_limit, progress=progress, max_iter=it)


def rect_sym_refine(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                    start: str | ArrayLike = "best", max_sweeps: int = 100,
                    allow_empty: bool = False, time_limit: float | None = None,
                    progress: Any = None, weights: str = "values") -> SpatialPartition:
    """Symmetric refinement by cut moves: from a start, each cut in turn moves to the place
    between its two neighbours that minimises the largest block of the two intervals it
    separates (rows and columns, scanned in O(entries of the lines moved + P) per place); a
    sweep never raises the max load. Stops after a sweep that moves no cut, or `max_sweeps`.

    `start`: ``"pal"``, ``"opal"``, ``"rac"``, ``"uniform"``, ``"sgo"`` (SARMA's ``sgo_2ds``:
    the symmetric subgradient method from SARMA's own random start, std::mt19937_64 seeded 1,
    its library's default), ``"sgo_cli"`` (the same seeded 2147483647, the default of SARMA's
    command line), ``"best"`` (default: the best of PAL, OPAL, RAC and both SGO starts, each
    refined; so never above SARMA's ``pal``, ``opal``, ``rac`` and ``sgo_2ds`` from either
    seed) or a cut vector of ``P + 1`` entries. The result is never worse than its start.
    """
    t_start = time.monotonic()
    pp = _Prepared(A, m, allow_empty, weights=weights, sparse=True)
    P0, Q0 = _sym_PQ(pp, P, Q)
    P = max(P0, Q0)
    ms = as_int(max_sweeps, "max_sweeps", minimum=1)
    tl = core_time_limit(time_limit)
    deadline = t_start + tl if tl else 0.0  # one limit for every kernel call below
    progress = as_progress(progress)
    t0 = time.perf_counter()
    g = GridInput(pp)
    N = max(g.n1, g.n2)
    start_timed = 0  # 1: a start was cut by the time limit (a time-limited kernel call
    # returns the better of its cuts and the uniform ones)
    if isinstance(start, str):
        names = {"best": ("pal", "opal", "rac", "sgo", "sgo_cli")}.get(start, (start,))
        for s in names:
            if s not in ("pal", "opal", "rac", "uniform", "sgo", "sgo_cli"):
                raise WpartValueError(
                    f"`start` must be 'pal', 'opal', 'rac', 'uniform', 'sgo', 'sgo_cli', 'best' "
                    f"or P + 1 cuts, got {start!r}")
        starts = []
        for s in names:
            if starts and deadline and time.monotonic() >= deadline:
                start_timed = 1  # the limit reached: refine the starts computed so far
                break
            if s == "uniform":
                starts.append((s, (np.arange(P + 1, dtype=np.int64) * N) // P))
            elif s in ("sgo", "sgo_cli"):
                # SARMA's sgo_2ds; its cuts clipped to n1 and n2: the larger
                R2, C2, _v, _it, t = _core.spatial_rect_sgo_sym(
                    *g.args(), P, P, (np.arange(P + 1, dtype=np.int64) * g.n1) // P,
                    (np.arange(P + 1, dtype=np.int64) * g.n2) // P,
                    time_limit=_left(deadline), seed=SARMA_SEEDS[s == "sgo_cli"])
                start_timed |= t
                starts.append((s, np.maximum(R2, C2)))
            else:
                v = {"pal": 0, "opal": 1, "rac": 2}[s]
                c0, _v, t = sym_cuts(g, P, v, max_iter=max(10, P), time_limit=_left(deadline))
                start_timed |= t
                starts.append((s, c0))
    else:
        c = np.asarray(start)
        if c.shape != (P + 1,) or c[0] != 0 or c[-1] != N or (np.diff(c) < 0).any():
            raise WpartValueError(
                f"`start` must be P + 1 = {P + 1} non-decreasing cuts from 0 to {N}")
        starts = [("given", c.astype(np.int64))]
    best = None
    table = {}
    with progress_hook(progress, total=1.0, desc="rect_sym_refine") as hook:
        for name, c0 in starts:
            cuts, value, timed = sym_cuts(g, P, 3, c0=np.ascontiguousarray(c0, np.int64),
                                          max_iter=ms, time_limit=_left(deadline),
                                          progress=hook)
            table[name] = value
            start_timed |= timed
            if best is None or value < best[1]:
                best = (name, value, cuts, timed)
            if start_timed:
                break
        name, value, cuts, timed = best
        timed = timed or start_timed
        R, C, timed2 = _sym_finish(g, P0, Q0, cuts, _left(deadline))
        _done(hook, timed or timed2)
    return _grid_result(pp, "rect_sym_refine", {"P": P0, "Q": Q0, "start": start
                                                if isinstance(start, str) else "given"},
                        R, C, {"start": name, "starts": table}, timed or timed2, tl, t0=t0,
                        extra={"cuts": cuts.tolist()})


for _f in (rect_sym_uniform, rect_sym_pal, rect_sym_opal, rect_sym_rac, rect_sym_refine):
    _f.__doc__ = (_f.__doc__ or "").rstrip() + "\n" + _DOC_COMMON
