"""Shared machinery of the spatial methods: the method table, input validation (matrix, ``m``,
orientation, grid shape, stripe count), the call into the C core and the result assembly."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._docs import fill_doc
from .._errors import CancelledError, WpartOverflowError, WpartValueError
from .._methods import Method, MethodTable
from .._progress import progress_hook
from .._validate import (
    as_bool,
    as_int,
    as_parts,
    as_progress,
    as_speeds,
    check_speed_costs,
    choice,
    core_time_limit,
)
from ._partition import SpatialPartition, _scalar
from . import _sparse
from ._sparse import SPARSE_DENSITY, SparseInput, as_input, as_weights

__all__ = ["METHODS", "TABLE", "factor_pair"]

_PQ = ("P", "Q")
_COMMON = ("allow_empty", "time_limit", "progress", "weights")

#: The spatial methods, declared once: name -> the core's ``wpart_spatial_method_t`` value,
#: the keyword options of the method's function, exactness and a one-line summary. The
#: sections are those of Saule et al. 2012.
TABLE = MethodTable("spatial", [
    Method("rect_uniform", _core.SP_RECT_UNIFORM, exact=False, options=_PQ + _COMMON,
           summary="P x Q grid of equal-area rows and columns (Sec. 3.1)"),
    Method("rect_nicol", _core.SP_RECT_NICOL, exact=False,
           options=_PQ + ("max_sweeps", "starts", "refine", "patience", "abandon") + _COMMON,
           summary="P x Q grid refined by alternating exact 1D cuts (Sec. 3.1)"),
    Method("jag_pq_heur", _core.SP_JAG_PQ_HEUR, exact=False,
           options=_PQ + ("orient", "starts", "speeds") + _COMMON, aliases=("jag_pq_heur_best",),
           summary="P optimal stripes, each cut optimally into Q pieces (Sec. 3.2.1, Theorem 1)"),
    Method("jag_pq_opt_nicol", _core.SP_JAG_PQ_OPT_NICOL, exact=True,
           options=_PQ + ("orient", "speeds") + _COMMON,
           aliases=("jag_pq_opt", "jag_pq_opt_best"),
           summary="optimal P x Q jagged partition, Nicol's search (Sec. 3.2.1)"),
    Method("jag_pq_opt_dp", _core.SP_JAG_PQ_OPT_DP, exact=True,
           options=_PQ + ("orient", "speeds") + _COMMON,
           summary="optimal P x Q jagged partition, dynamic programme (Sec. 3.2.1)"),
    Method("jag_m_heur", _core.SP_JAG_M_HEUR, exact=False,
           options=("P", "orient", "speeds") + _COMMON, aliases=("jag_m_heur_best",),
           summary="P stripes, parts in proportion to the stripe loads (Sec. 3.2.2, Theorem 3)"),
    Method("jag_m_probe", _core.SP_JAG_M_PROBE, exact=False,
           options=("stripe_cuts", "orient", "speeds") + _COMMON,
           summary="optimal part counts for given stripes (Sec. 3.2.2)"),
    Method("jag_m_heur_probe", _core.SP_JAG_M_HEUR_PROBE, exact=False,
           options=("P", "orient", "speeds") + _COMMON, aliases=("jag_m_heur_probe_best",),
           summary="JAG-M-HEUR's stripes with optimal part counts (Sec. 3.2.2)"),
    Method("jag_m_alloc", _core.SP_JAG_M_ALLOC, exact=False,
           options=("counts", "orient", "speeds") + _COMMON,
           summary="optimal stripes for given part counts (Sec. 3.2.2)"),
    Method("jag_m_opt", _core.SP_JAG_M_OPT, exact=True,
           options=("orient", "speeds") + _COMMON, aliases=("jag_m_opt_best",),
           summary="optimal m-way jagged partition (Sec. 3.2.2)"),
    Method("hier_rb", _core.SP_HIER_RB, exact=False,
           options=("variant", "tie", "speeds") + _COMMON,
           summary="recursive bisection, half the parts on each side, the better of the "
                   "'load' and 'dist' rules by default (Sec. 3.3)"),
    Method("hier_relaxed", _core.SP_HIER_RELAXED, exact=False,
           options=("variant", "tie", "speeds") + _COMMON,
           summary="recursive bisection choosing each side's part count (Sec. 3.3)"),
    Method("hier_opt", _core.SP_HIER_OPT, exact=True,
           options=("max_states", "speeds") + _COMMON,
           summary="optimal hierarchical bipartition, dynamic programme (Sec. 3.3)"),
    Method("hybrid", _core.SP_HYBRID, exact=False,
           options=("phase1", "phase2_fast", "phase2_slow", "m1", "m1_min", "orient", "variant",
                    ) + _COMMON, aliases=("hybrid_f",),
           summary="phase 1 into m1 blocks, each block partitioned again (Sec. 5)"),
    Method("rect_refine", None, exact=False,
           options=_PQ + ("start", "max_sweeps", "patience") + _COMMON,
           summary="P x Q grid: Nicol half-sweeps with balanced cuts from the best start"),
    Method("rect_sym_uniform", None, exact=False, options=_PQ + _COMMON,
           summary="symmetric P x P grid of equal intervals (SARMA uni)"),
    Method("rect_sym_pal", None, exact=False, options=_PQ + _COMMON,
           summary="symmetric grid: probe a load, bounded by the last feasible cuts (PAL)"),
    Method("rect_sym_opal", None, exact=False, options=_PQ + _COMMON,
           summary="symmetric grid: ordered probe a load (OPAL)"),
    Method("rect_sym_rac", None, exact=False, options=_PQ + ("max_iter",) + _COMMON,
           summary="symmetric grid: refine a cut (RAC), the best iterate"),
    Method("rect_sym_refine", None, exact=False,
           options=_PQ + ("start", "max_sweeps") + _COMMON,
           summary="symmetric grid: each cut moved to its best place, from PAL/OPAL/RAC"),
])

#: Names accepted by :func:`wpart.spatial.partition`.
METHODS = TABLE.names

#: Orientations of the jagged methods: name -> the core's ``wpart_spatial_orient_t``.
_ORIENT_CODE = {"hor": _core.SP_HOR, "ver": _core.SP_VER, "best": _core.SP_BEST}
_ORIENT_NAME = {v: k for k, v in _ORIENT_CODE.items()}
_ORIENT = tuple(_ORIENT_CODE)
#: HIER cut-dimension rules: name -> the core's ``wpart_spatial_rule_t``.
_RULE = {"load": _core.SP_RULE_LOAD, "dist": _core.SP_RULE_DIST, "hor": _core.SP_RULE_HOR,
         "ver": _core.SP_RULE_VER}
_VARIANT = tuple(_RULE)
#: hier_rb / hier_relaxed also accept "best": both the "load" and the "dist" rule, the better
_VARIANT_BEST = _VARIANT + ("best",)
_TIE = ("area", "first")


# ---------------------------------------------------------------------------------------------
# input handling


def _max_interruptible(arr: NDArray) -> Any:
    """``arr.max()`` over slabs of at most 2**22 cells along the first axis: a NumPy reduction
    holds a Ctrl-C until it returns, about 0.1 s (0.3 s on a loaded machine) on 12,000^2
    cells, and between slabs Python raises KeyboardInterrupt at once."""
    n = arr.shape[0] if arr.ndim else 0
    if arr.size <= _MAX_SLAB or n <= 1:
        return arr.max()
    k = max(1, _MAX_SLAB // (arr.size // n))
    return max(arr[i:i + k].max() for i in range(0, n, k))


#: cells per slab of :func:`_max_interruptible` (about 4 ms each)
_MAX_SLAB = 2**22


class _Prepared:
    """Coerced matrix, its prefix and the validated part count.

    `A` may be dense, a ``scipy.sparse`` matrix or a MatrixMarket path; `weights` is
    ``"values"`` or ``"count"``. With ``sparse=True`` (methods that run on the nonzeros) a
    sparse `A` stays sparse (``sp`` set, ``S`` None); otherwise it is densified under
    ``MAX_DENSE_BYTES``."""

    __slots__ = ("A", "S", "sp", "amax", "m", "n1", "n2", "total", "kind", "size", "ndim",
                 "weights")

    @property
    def shape(self) -> tuple:
        return self.A.shape

    def __init__(self, A: ArrayLike, m: Any, allow_empty: bool, ndims: tuple = (2,), *,
                 weights: Any = "values", sparse: bool = False, method: str | None = None):
        src = as_input(A, weights, ndims)
        self.weights = as_weights(weights)
        self.sp = None
        if sparse:
            # the nonzeros or the dense prefix, whichever is cheaper: a matrix of more than
            # SPARSE_MIN_CELLS cells with at most one in SPARSE_DENSITY nonzero runs on its
            # nonzeros (a matrix whose dense copy would exceed MAX_DENSE_BYTES too). The rule
            # reads the same for A and A.toarray() (shape and nonzero count), and float loads
            # are summed by the same code in both, so both give the same partition bit for bit.
            big = _sparse.SPARSE_MIN_CELLS
            if isinstance(src, SparseInput):
                cells = src.n1 * src.n2
                if (src.nnz * SPARSE_DENSITY <= cells and cells > big) or not src.fits():
                    self.sp = src
                    self.A = src.csr
            elif src.ndim == 2 and src.dtype.kind == "f" and src.size > big:
                if np.count_nonzero(src) * SPARSE_DENSITY <= src.size:
                    self.sp = SparseInput(src, "values")
                    self.A = src
        if sparse and self.sp is not None:
            src = self.sp
            self.S = None
            self.n1, self.n2 = src.n1, src.n2
            self.total = src.total
            self.amax = src.amax
            self.kind = src.kind
            self.size = src.n1 * src.n2
            self.ndim = 2
        else:
            arr = src.dense(method) if isinstance(src, SparseInput) else src
            self.sp = None
            self.A = arr
            self.S = _core.prefix_sum(arr, None, "A")
            self.n1, self.n2 = arr.shape[:2]
            self.total = self.S[(-1,) * arr.ndim]
            self.amax = _max_interruptible(arr)
            self.kind = self.S.dtype.kind
            self.size = int(arr.size)
            self.ndim = arr.ndim
        self.m = as_parts(m, self.size)
        if not as_bool(allow_empty, "allow_empty") and self.m > self.size:
            raise WpartValueError(
                f"`m` = {self.m} exceeds the {self.size} cells of A; pass "
                "allow_empty=True to accept empty rectangles"
            )

    def dtype(self) -> Any:
        return np.int64 if self.kind == "i" else np.float64

    def box_loads(self, rects: NDArray) -> NDArray:
        if self.sp is not None:
            return self.sp.box_loads(rects)
        return _core.box_loads(self.S, rects)


def _orient(orient: Any) -> int:
    """The core's orientation code of `orient` ('hor', 'ver', 'best'; 'rows', 'cols')."""
    return _ORIENT_CODE[choice(orient, "orient", _ORIENT, {"rows": "hor", "cols": "ver"})]


def _divisors(m: int) -> list[int]:
    """The divisors of ``m >= 1`` in increasing order (O(sqrt(m)))."""
    small, large = [], []
    for d in range(1, math.isqrt(m) + 1):
        if m % d == 0:
            small.append(d)
            if d != m // d:
                large.append(m // d)
    return small + large[::-1]


@fill_doc
def factor_pair(m: int, n1: int, n2: int) -> tuple[int, int]:
    """The factor pair ``P x Q = m`` closest to ``P = sqrt(m n1 / n2)`` (Theorem 2 of Saule
    et al. 2012).

    Ties go to the smaller ``P``. The divisors are found by trial division up to
    ``sqrt(m)``, so `m` is limited to ``2**44`` (an ``OverflowError`` above).

    Parameters
    ----------
    m : int
        Number of parts (processors).
    n1 : int
        Rows of the matrix.
    n2 : int
        Columns of the matrix.

    Returns
    -------
    tuple of int
        ``(P, Q)`` with ``P * Q == m``.

    {raises}
    """
    m = as_int(m, "m", minimum=1)
    if m > 2**44:
        raise WpartOverflowError(f"`m` = {m} is too large for the factor search (at most 2**44)")
    n1 = as_int(n1, "n1", minimum=1)
    n2 = as_int(n2, "n2", minimum=1)
    target = math.sqrt(m * n1 / n2)
    best = None
    for P in _divisors(m):
        d = abs(math.log(P / target))
        if best is None or d < best[0] - 1e-12:
            best = (d, P)
    P = best[1]
    return P, m // P


def _pq(m: int, n1: int, n2: int, P: Any, Q: Any, stacklevel: int = 3) -> tuple[int, int]:
    if P is None and Q is None:
        P, Q = factor_pair(m, n1, n2)
        if (
            m > 3
            and (P == 1 or Q == 1)
            and len(_divisors(m)) == 2
        ):
            warnings.warn(
                f"m = {m} is prime: the only P x Q grids are 1 x m and m x 1; consider an "
                "m-way algorithm (jag_m_heur_probe, hier_relaxed)",
                UserWarning,
                stacklevel=stacklevel,
            )
        return P, Q
    if P is not None:
        P = as_int(P, "P", minimum=1)
    if Q is not None:
        Q = as_int(Q, "Q", minimum=1)
    if Q is None:
        if m % P:
            raise WpartValueError(f"`P` = {P} does not divide m = {m}")
        Q = m // P
    if P is None:
        if m % Q:
            raise WpartValueError(f"`Q` = {Q} does not divide m = {m}")
        P = m // Q
    if P * Q != m:
        raise WpartValueError(f"`P` x `Q` must equal m = {m}, got {P} x {Q}")
    if P > n1 or Q > n2:
        warnings.warn(
            f"P x Q = {P} x {Q} exceeds the {n1} x {n2} matrix: some rectangles will be empty",
            UserWarning,
            stacklevel=stacklevel,
        )
    return P, Q


#: Methods solved on one part per cell when ``m`` exceeds the cells (their parameters do not
#: depend on ``m``; jag_m methods only with an automatic stripe count).
_PAD_EMPTY = frozenset({"hier_rb", "hier_relaxed", "hier_opt", "jag_m_heur",
                        "jag_m_heur_probe", "jag_m_opt"})
#: P x Q grid methods: solved on a ``min(P, max(n1, n2)) x min(Q, max(n1, n2))`` grid there.
_PAD_GRID = frozenset({"rect_uniform", "rect_nicol", "jag_pq_heur", "jag_pq_opt_nicol",
                       "jag_pq_opt_dp"})


def _status(method: str) -> str:
    """``"optimal"`` for an exact method of the table, ``"feasible"`` otherwise."""
    return "optimal" if method in TABLE and TABLE[method].exact else "feasible"


def _m_cells(pp: _Prepared, speeds: Any = None) -> int:
    """The part count to solve with when more parts than cells may be padded as empty
    rectangles (none or equal speeds): one part per cell; otherwise ``pp.m``."""
    if pp.m <= pp.size:
        return pp.m
    sp = as_speeds(speeds, pp.m)
    if sp is not None and not bool((sp == sp[0]).all()):
        return pp.m
    return int(pp.size)


def _pad(pp: _Prepared, rects: NDArray, m_solve: int) -> tuple[NDArray, NDArray]:
    """`rects` of `m_solve` parts padded to ``pp.m`` with empty rectangles, and the loads;
    zero-filled in bulk (untouched pages cost nothing), only the solved parts are summed."""
    out = np.zeros((pp.m, rects.shape[1]), dtype=rects.dtype)
    out[:m_solve] = rects
    loads = np.zeros(pp.m, dtype=pp.dtype())
    loads[:m_solve] = pp.box_loads(rects)
    return out, loads


def _grid_solved(pp: _Prepared, P: int, Q: int) -> tuple[int, int]:
    """The grid a ``P x Q`` method solves when there are more parts than cells: a P x Q grid
    has at most max(n1, n2) non-empty bands either way, so ``P' = min(P, max(n1, n2))`` (and
    the same for Q) expresses every P x Q partition (the rest empty)."""
    big = max(pp.n1, pp.n2)
    return min(int(P), big), min(int(Q), big)


def _run(
    pp: _Prepared,
    method: str,
    params: dict,
    *,
    progress: Any = None,
    time_limit: Any = None,
    speeds: Any = None,
    m_solve: int | None = None,
    **kw: Any,
) -> SpatialPartition:
    sp = as_speeds(speeds, pp.m)
    check_speed_costs(pp.total, sp)
    if sp is not None:
        if pp.sp is None:  # a sparse run is homogeneous: equal speeds only (see jag_pq_heur)
            kw["speeds"] = sp
        params = dict(params, speeds=True)
    tl = core_time_limit(time_limit)
    progress = as_progress(progress)
    # more parts than cells (allow_empty): a method whose structure does not depend on m
    # solves with one part per cell (its optimum is already max(A) there) and the rest are
    # padded as empty rectangles in bulk, instead of O(m) work in the core
    same = sp is None or bool((sp == sp[0]).all())  # equal speeds: the same partition
    if m_solve is not None:  # chosen by the caller (its options were built for m_solve)
        pass
    elif same and pp.m > pp.size and method in _PAD_EMPTY and not kw.get("P"):
        m_solve = int(pp.size)
    elif same and pp.m > pp.size and method in _PAD_GRID:
        P2, Q2 = _grid_solved(pp, kw["P"], kw["Q"])
        if P2 * Q2 < pp.m:
            m_solve = P2 * Q2
            kw = dict(kw, P=P2, Q=Q2)
            params = dict(params, P_solved=P2, Q_solved=Q2)
    if m_solve is None:
        m_solve = pp.m
    if m_solve < pp.m and "speeds" in kw:
        kw["speeds"] = np.ascontiguousarray(sp[:m_solve])
    with progress_hook(progress, total=1.0, desc=method) as hook:
        if pp.sp is not None:  # the loads come back with the rectangles
            rects, st, sloads = _core.spatial_sparse_partition(
                pp.n1, pp.n2, *pp.sp.arrays(), m_solve, TABLE[method].code, progress=hook,
                time_limit=tl, with_loads=True, **kw
            )
        else:
            rects, st = _core.spatial_partition(
                pp.S, m_solve, TABLE[method].code, progress=hook, time_limit=tl, **kw
            )
        if not st[9]:
            progress_done(hook)
    loads = sloads if pp.sp is not None and rects is not None else None
    if m_solve < pp.m and rects is not None:
        rects, loads = _pad(pp, rects, m_solve)
        params = dict(params, parts_solved=m_solve)
    stats = _stats(st)
    params = dict(params)
    if "orient" in params and rects is not None:
        params["orient_used"] = _ORIENT_NAME[st[6]]
    if method.startswith("jag_m") and rects is not None:
        params["P_used"] = int(st[7])
    return _result(pp, rects, method, params, stats, sp, stop=st[9], time_limit=tl,
                   loads=loads)


def named_method(method: Any, name: str, doc: str) -> Any:
    """`method` as the public function `name` of the family, with the docstring `doc` (its
    ``{key}`` lines filled): the methods that share one body (same options, same run)."""
    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return fill_doc(method)


def run_method(method: str, A: Any, m: Any, setup: Any = None, *, allow_empty: Any,
               weights: Any, speeds: Any = None, time_limit: Any = None, progress: Any = None,
               sparse: bool = True) -> SpatialPartition:
    """One method's prepare -> run -> result: `A` prepared (a sparse matrix kept sparse when
    `sparse` and no `speeds`: the method runs on its nonzeros), ``setup(pp)`` (optional) giving
    the method's recorded params and its core options from the prepared input, then the core
    call and the result (:func:`_run`). A warning `setup` raises names the caller of the
    method's public function at ``stacklevel=5``."""
    pp = _Prepared(A, m, allow_empty, weights=weights, method=method,
                   sparse=sparse and speeds is None)
    params, opts = setup(pp) if setup is not None else ({}, {})
    return _run(pp, method, params, time_limit=time_limit, progress=progress, speeds=speeds,
                **opts)


def progress_done(hook: Any) -> None:
    """Report a finished call to a progress `hook` (a bar reaches 100 %: the core's own reports
    stop where its search ends, e.g. JAG-M-OPT's bisection before its last step)."""
    if hook is not None:
        try:
            hook(1.0, 1.0)
        except CancelledError:  # the work is done: a callback's "stop" changes nothing
            pass


def with_progress(progress: Any, method: str, run: Any) -> SpatialPartition:
    """``run()`` under a progress bar or callback for `method`, reported done at its end (for
    the calls whose core reports no progress of its own)."""
    with progress_hook(progress, total=1.0, desc=method) as hook:
        res = run()
        if res.status != "time_limit":
            progress_done(hook)
    return res


def _stats(st: tuple) -> dict:
    return {
        "seconds": st[0],
        "iterations": st[1],
        "probes": st[2],
        "cost_evals": st[3],
        "dp_states": st[4],
        "converged": bool(st[5]),
    }


def _bound(total: Any, m: int, amax: Any, kind: str) -> Any:
    """The trivial lower bound of a max load over `m` equal parts: max(total / m, largest
    value), rounded up for integer loads (``kind`` "i"), as a Python int or float."""
    if kind == "f":
        return max(float(total) / m, float(amax))
    return max(-(-int(total) // m), int(amax))


def _verdict(method: str, stopped: bool, time_limit: float, found: bool,
             status: str | None = None) -> tuple:
    """(status, message) of a result of `method`: stopped by the time limit (with the best
    partition `found` or none), else `status` (None: "optimal" / "feasible" from the method
    table) and the message that says which."""
    if stopped:
        return "time_limit", (f"the time limit of {time_limit:g} s was reached; "
                              + ("the best partition found is returned" if found
                                 else "no partition was found"))
    if status is None:
        status = _status(method)
    return status, f"{method}: " + ("an optimal partition" if status == "optimal"
                                    else "a heuristic partition")


def _result(
    pp: _Prepared,
    rects: NDArray | None,
    method: str,
    params: dict,
    stats: dict,
    speeds: NDArray | None = None,
    *,
    stop: int = 0,
    time_limit: float = 0.0,
    status: str | None = None,
    message: str | None = None,
    loads: NDArray | None = None,
) -> SpatialPartition:
    """The result of `rects` (None: the time limit struck before any partition).

    `stop` is the core's last stats field: 0 finished, 1 stopped by the time limit with the
    best partition found, 2 stopped before any."""
    total = pp.total
    ssum = float(pp.m) if speeds is None else float(speeds.sum())
    avg = float(total) / ssum
    if speeds is None:
        lb = _bound(total, pp.m, pp.amax, pp.kind)
    else:
        lb = max(avg, float(pp.amax) / float(speeds.max()))
    if stop:
        status, message = _verdict(method, True, time_limit, rects is not None)
    if rects is None:
        nd = pp.ndim
        return SpatialPartition(
            rects=np.zeros((0, 2 * nd), dtype=np.int64), loads=np.zeros(0, pp.dtype()),
            max_load=float("nan"), avg_load=avg, total=_scalar(total),
            lower_bound=_scalar(lb), imbalance=float("nan"), method=method, params=params,
            shape=tuple(pp.A.shape), m=pp.m, A=pp.A, speeds=speeds, status=status or "error",
            message=message or "", stats=stats)
    if loads is None:
        loads = pp.box_loads(rects) if len(rects) else np.zeros(0, pp.dtype())
    if speeds is None:
        lmax: Any = _scalar(loads.max())
    else:
        lmax = float((loads / speeds).max())
    li = float(lmax) / avg - 1.0 if total > 0 else 0.0
    if status is None or message is None:
        status, msg = _verdict(method, False, time_limit, True, status)
        message = msg if message is None else message
    return SpatialPartition(
        rects=rects,
        loads=loads,
        max_load=lmax,
        avg_load=avg,
        total=_scalar(total),
        lower_bound=_scalar(lb),
        imbalance=li,
        method=method,
        params=params,
        shape=tuple(pp.A.shape),
        m=pp.m,
        A=pp.A,
        speeds=speeds,
        status=status,
        message=message,
        stats=stats,
    )


def _stripes_P(pp: _Prepared, P: Any, o: int = _core.SP_HOR, stacklevel: int = 3) -> int:
    if P is None or (isinstance(P, str) and P == "sqrt"):
        return 0
    if isinstance(P, str):
        if P != "theorem4":
            raise WpartValueError(f"`P` must be 'sqrt', 'theorem4' or an integer, got {P!r}")
        amin = pp.A.min()
        if amin <= 0:
            return 0  # Delta undefined with zeros: fall back to sqrt(m)
        delta = float(pp.amax) / float(amin)
        Pstar = pp.m * math.sqrt(delta) / (math.sqrt(delta) + math.sqrt(pp.n2))
        return max(1, min(pp.m, round(Pstar)))
    Pv = as_int(P, "P", minimum=1)
    nother = {_core.SP_HOR: pp.n2, _core.SP_VER: pp.n1}.get(o, max(pp.n1, pp.n2))
    if Pv * nother < pp.m <= pp.n1 * pp.n2:
        warnings.warn(
            f"P = {Pv} stripes of at most {nother} pieces cannot hold m = {pp.m} non-empty "
            f"rectangles (P >= {-(-pp.m // nother)} would): some will be empty",
            UserWarning,
            stacklevel=stacklevel,
        )
    return min(Pv, pp.m)  # the core clamps P to <= m anyway; keeps it in int64


def _stripes_of(rects: NDArray, orient: int, shape: tuple) -> tuple[list, list]:
    """Stripe cuts and per-stripe counts of an m-way jagged partition (main dim = orient);
    empty rectangles count for the last stripe."""
    a, b = (0, 1) if orient == _core.SP_HOR else (2, 3)
    nmain = shape[0] if orient == _core.SP_HOR else shape[1]
    r = np.asarray(rects, dtype=np.int64).reshape(-1, 4)
    full = (r[:, 1] > r[:, 0]) & (r[:, 3] > r[:, 2])
    extra = int(r.shape[0] - full.sum())
    keys, counts = np.unique(r[full, a] * (nmain + 1) + r[full, b], return_counts=True)
    cuts = [0] + (keys % (nmain + 1)).tolist()
    counts = counts.tolist()
    counts[-1] += extra
    assert cuts[-1] == nmain
    return cuts, counts
