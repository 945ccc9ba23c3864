"""Performance models (Sec. 3.1 of [Sant'Ana 2017]) and equal-finish-time block sizing
(Sec. 3.2).

A :class:`PerfModel` predicts the time ``E(x) = F(x) + G(x)`` of a block of ``x`` elements
on one processing unit (PU): ``F`` is a least-squares combination of at most three of the
paper's basis functions of ``u = x / x_hi`` (plus an optional constant), selected by AICc;
``G`` is the paper's affine transfer model. :func:`solve_equal_time` shares a step volume so
that every PU finishes at the same time (problem (P_S), solved globally by water-filling),
:func:`capacity` is its time mode and :func:`round_blocks` the optimal rounding to multiples of
a quantum (the paper rounds "to the closest valid block size", which neither keeps the sum
nor is optimal). :func:`oracle_milp` is a GLPK cross-check of the optimum on true curves.
"""

from __future__ import annotations
from .._errors import (SolverError, WpartError, WpartOverflowError, WpartTypeError,
                       WpartValueError)

import math
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._milp import unit_scale
from .._result import ByValue, Result, new_axes
from .._validate import as_array, as_bool, as_sequence, as_float, choice, core_time_limit, deprecated_attr, renamed
from ._balancer import count
from .._docs import fill_doc
from ._trace import plot_per_pu

__all__ = [
    "BASIS",
    "PerfModel",
    "fit_model",
    "solve_equal_time",
    "capacity",
    "round_blocks",
    "oracle_milp",
    "OracleMilpResult",
]

#: Names of the paper's basis functions of ``u = x / x_hi`` (bit i of a mask is ``BASIS[i]``).
BASIS: tuple[str, ...] = ("x", "x^2", "x^3", "exp(x)", "log(x)", "x*exp(x)", "x*log(x)")
_KINDS = ("fitted", "bootstrap", "proportional")
_PACKED = 23


@dataclass(frozen=True, eq=False)
class PerfModel(ByValue):
    """A fitted performance model of one PU: ``E(x) = F(x) + G(x)`` with ``F`` a combination
    of the paper's basis functions (eq. 1) and ``G`` affine (eq. 2), Sec. 3.1 of
    [Sant'Ana 2017].

    Attributes
    ----------
    terms : tuple of str
        Names of the basis functions of ``F`` (from :data:`BASIS`), in basis order.
    coef : ndarray of float64, shape (len(terms),)
        Their coefficients: ``F(x) = c0 + sum(coef[i] * f_i(x / x_scale))``.
    c0 : float
        Constant term of ``F`` (0 without intercept).
    x_scale : float
        ``x_hi``, the largest sample size of the fit.
    g_slope, g_icept : float
        Transfer model ``G(x) = g_slope * x / x_scale + g_icept`` (both >= 0).
    x_a, x_b : float
        Evaluation domain: ``E`` is held at ``E(x_a)`` on ``(0, x_a)`` and extended linearly
        with slope `slope_hi` beyond ``x_b = 2 x_hi``; ``E(0) = 0``.
    e_a, e_b, slope_hi : float
        ``E(x_a)``, ``E(x_b)`` and the extrapolation slope.
    sse : float
        Weighted sum of squared residuals of ``F``.
    aicc : float
        AICc of the selected candidate (NaN for the bootstrap and the proportional fallback).
    n_samples, n_distinct : int
        Samples used and distinct sizes among them (``m``, ``m_distinct``: deprecated
        aliases).
    kind : str
        ``"fitted"`` (AICc selection), ``"bootstrap"`` (affine, two sizes) or
        ``"proportional"`` (fallback ``c1 x``).
    packed : ndarray of float64, shape (23,)
        The C model ``wpart_dynamic_model_t`` packed by ``wpart_dynamic_model_pack``: mask,
        coef[7] (all basis functions, zeros for unused ones), c0, x_scale, g_slope, g_icept,
        x_a, x_b, e_a, e_b, slope_hi, sse, aicc, m, m_distinct, kind, valid. Other bindings
        pass it (or a stack of them, shape (n, 23)) to C; read-only.
    samples : tuple of ndarray or None
        The ``(x, t_comp, t_xfer)`` samples of the fit (for :meth:`plot`).
    """

    terms: tuple[str, ...]
    coef: NDArray[np.float64]
    c0: float
    x_scale: float
    g_slope: float
    g_icept: float
    x_a: float
    x_b: float
    e_a: float
    e_b: float
    slope_hi: float
    sse: float
    aicc: float
    n_samples: int
    n_distinct: int
    kind: str
    packed: NDArray[np.float64] = field(repr=False)
    _: KW_ONLY
    samples: tuple[Any, ...] | None = field(default=None, repr=False)

    m = deprecated_attr("m", "n_samples", "PerfModel")
    m_distinct = deprecated_attr("m_distinct", "n_distinct", "PerfModel")

    @property
    def _packed(self) -> NDArray[np.float64]:
        """Alias of :attr:`packed`."""
        return self.packed

    @classmethod
    def from_packed(cls, packed: ArrayLike, *, samples: tuple[Any, ...] | None = None) -> PerfModel:
        """Build a model from a packed C model (shape (23,), as :attr:`packed`)."""
        p = np.array(packed, dtype=np.float64).reshape(-1)
        if p.shape != (_PACKED,):
            raise WpartValueError(f"`packed` must have shape ({_PACKED},), got {p.shape}")
        mask = int(p[0])
        idx = [i for i in range(7) if mask >> i & 1]
        p.setflags(write=False)
        coef = p[1:8][idx].copy()
        coef.setflags(write=False)
        return cls(
            terms=tuple(BASIS[i] for i in idx), coef=coef, c0=float(p[8]), x_scale=float(p[9]),
            g_slope=float(p[10]), g_icept=float(p[11]), x_a=float(p[12]), x_b=float(p[13]),
            e_a=float(p[14]), e_b=float(p[15]), slope_hi=float(p[16]), sse=float(p[17]),
            aicc=float(p[18]), n_samples=int(p[19]), n_distinct=int(p[20]),
            kind=_KINDS[int(p[21])] if 0 <= int(p[21]) < 3 else "fitted", packed=p,
            samples=samples,
        )

    def _eval(self, x: ArrayLike, which: int) -> Any:
        xa = np.asarray(x, dtype=np.float64)
        out = _core.dynamic_model_eval(self.packed, np.ascontiguousarray(xa.reshape(-1)), which)
        out = out.reshape(xa.shape)
        return float(out) if out.ndim == 0 else out

    def __call__(self, x: ArrayLike) -> Any:
        """Predicted total time ``E(x) = F(x) + G(x)`` (vectorised; ``E(0) = 0``)."""
        return self._eval(x, 0)

    def comp(self, x: ArrayLike) -> Any:
        """Predicted compute time ``F(x)`` (vectorised)."""
        return self._eval(x, 1)

    def xfer(self, x: ArrayLike) -> Any:
        """Predicted transfer time ``G(x)`` (vectorised)."""
        return self._eval(x, 2)

    def inverse(self, t: float, *, lo: float = 0.0, hi: float = math.inf) -> float:
        """Largest ``x`` in ``[lo, hi]`` with ``E(x) <= t`` (``lo`` if none; relative accuracy
        1e-12; ``inf`` when ``hi`` is infinite and ``E`` never exceeds ``t``)."""
        t, lo, hi = float(t), float(lo), float(hi)
        if math.isnan(t):
            raise WpartValueError("`t` must not be NaN")
        if not (0.0 <= lo < math.inf) or math.isnan(hi) or hi < lo:
            raise WpartValueError(f"need 0 <= `lo` <= `hi` with `lo` finite, got lo={lo}, hi={hi}")
        return float(_core.dynamic_model_inverse(self.packed, t, lo, hi))

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dictionary (no samples)."""
        return {
            "terms": list(self.terms), "coef": self.coef.tolist(), "c0": self.c0,
            "x_scale": self.x_scale, "g_slope": self.g_slope, "g_icept": self.g_icept,
            "x_a": self.x_a, "x_b": self.x_b, "e_a": self.e_a, "e_b": self.e_b,
            "slope_hi": self.slope_hi, "sse": self.sse,
            "aicc": None if math.isnan(self.aicc) else self.aicc, "n_samples": self.n_samples,
            "n_distinct": self.n_distinct, "kind": self.kind, "packed": self.packed.tolist(),
        }

    def plot(self, ax: Any = None) -> Any:
        """Plot the samples (when known) and the fitted ``E``, ``F`` and ``G`` on `ax` (a new
        figure when None); returns the Axes."""
        ax = new_axes(ax)
        xs = np.geomspace(max(self.x_a, 1e-12), self.x_b * 1.5, 200)
        ax.plot(xs, self(xs), label="E = F + G")
        ax.plot(xs, self.comp(xs), "--", label="F (compute)")
        if self.g_slope or self.g_icept:
            ax.plot(xs, self.xfer(xs), ":", label="G (transfer)")
        if self.samples is not None:
            x, tc, tx = self.samples
            tot = tc + (tx if tx is not None else 0.0)
            ax.plot(x, tot, "o", ms=3, label="samples (total)")
        ax.set_xscale("log")
        ax.set_xlabel("block size x (elements)")
        ax.set_ylabel("time (s)")
        ax.set_title(" + ".join(self.terms) + (" + c" if self.c0 else "") + f" [{self.kind}]")
        ax.legend()
        return ax


# ---------------------------------------------------------------------------- validation --


def _sizes(x: Any, name: str) -> NDArray[np.int64]:
    a = as_array(x, name, dtype=None, allow_nan=True)
    if a.ndim != 1:
        raise WpartValueError(f"`{name}` must be 1-D, got {a.ndim}-D")
    if a.size == 0:
        raise WpartValueError(f"`{name}` must not be empty")
    if a.dtype.kind not in "iub":
        if a.dtype.kind != "f":
            raise WpartTypeError(f"`{name}` must hold integers, got dtype {a.dtype}")
        if not np.isfinite(a).all():
            i = int(np.flatnonzero(~np.isfinite(a))[0])
            raise WpartValueError(f"`{name}` contains {'NaN' if np.isnan(a[i]) else a[i]} at index {i}")
        if (a != np.round(a)).any():
            raise WpartValueError(f"`{name}` must hold integer sizes")
        if np.abs(a.astype(np.float64)).max() >= 2.0**63:
            raise WpartOverflowError(f"`{name}` has sizes beyond the int64 range")
    if a.dtype == np.uint64 and a.max() > np.iinfo(np.int64).max:
        raise WpartOverflowError(f"`{name}` has sizes beyond the int64 range, got {int(a.max())}")
    a = a.astype(np.int64)
    bad = np.flatnonzero(a <= 0)
    if bad.size:
        raise WpartValueError(f"`{name}` must be > 0, got {a[bad[0]]} at index {bad[0]}")
    return np.ascontiguousarray(a)


_TIME_RANGE = 1e150
#: The admissibility grid's largest size: each candidate model is checked on every point
#: (grid_points = 2**31 - 1 ran for hours on a 99-sample fit)
GRID_POINTS_MAX = 1 << 16


def as_grid_points(x: Any, name: str) -> int:
    """The admissibility grid size of a fit: 2 to :data:`GRID_POINTS_MAX` points."""
    v = count(x, name, 2)
    if v > GRID_POINTS_MAX:
        raise WpartValueError(f"`{name}` must be at most {GRID_POINTS_MAX}, got {v}")
    return v


def _times(t: Any, name: str, m: int) -> NDArray[np.float64]:
    a = as_array(t, name, allow_nan=True)
    if a.dtype.kind not in "biuf":
        raise WpartTypeError(f"`{name}` must hold real numbers, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if a.ndim != 1:
        raise WpartValueError(f"`{name}` must be 1-D, got {a.ndim}-D")
    if a.shape[0] != m:
        raise WpartValueError(f"`{name}` must have the length of `x` ({m}), got {a.shape[0]}")
    bad = np.flatnonzero(~np.isfinite(a) | (a < 0))
    if bad.size:
        raise WpartValueError(f"`{name}` must be finite and >= 0, got {a[bad[0]]} at index {bad[0]}")
    top = float(a.max()) if a.size else 0.0
    if top > _TIME_RANGE or 0.0 < top < 1.0 / _TIME_RANGE:
        # the fit sums squares of times: beyond this they overflow or vanish, and the model
        # came back 50 % off (measured from 1e154 and below 1e-155)
        raise WpartValueError(f"`{name}` must have its largest time within [1e-150, 1e150] "
                              f"(the fit sums their squares), got {top:g}: rescale the unit")
    return np.ascontiguousarray(a)


def fit_model(
    x: ArrayLike,
    t_comp: ArrayLike,
    *,
    t_xfer: ArrayLike | None = None,
    quantum: int = 1,
    basis: Sequence[str] = BASIS,
    intercept: bool = True,
    max_terms: int = 3,
    weighting: str = "plain",
    decay: float = 1.0,
    window: int = 0,
    grid_points: int = 64,
    slope_floor: float = 0.5,
) -> PerfModel:
    """Fit the performance model of one PU from its block measurements (Sec. 3.1 of the
    paper: least squares over the basis of eq. 1, affine transfer model of eq. 2).

    Parameters
    ----------
    x : array_like of int, shape (k,)
        Block sizes (> 0) of the k samples, in arrival order (oldest first).
    t_comp : array_like of float, shape (k,)
        Compute times (finite, >= 0).
    t_xfer : array_like of float, shape (k,), optional
        Transfer times; None means no transfers (``G == 0``).
    quantum : int, optional
        Block granularity; the admissibility grid starts at ``max(quantum, x_lo / 8)``.
    basis : sequence of str, optional
        Allowed basis functions (names from :data:`BASIS`).
    intercept : bool, optional
        Allow a constant term (default True; the paper has none).
    max_terms : int, optional
        At most this many basis functions (1..3).
    weighting : {"plain", "relative"}, optional
        Plain least squares (the paper) or weights ``1/t^2``.
    decay : float, optional
        Weight ``decay**age`` of a sample (age 0 for the newest), in (0, 1].
    window : int, optional
        Use only the last `window` samples (0: all).
    grid_points, slope_floor : optional
        Admissibility grid size (64) and extrapolation slope floor factor (0.5).

    Returns
    -------
    PerfModel

    Raises
    ------
    ValueError
        Empty input, mismatched lengths, sizes <= 0, NaN or negative times, bad options.

    Notes
    -----
    Duplicated sizes are aggregated in the canonical order (size, then t_comp, then t_xfer), so
    with ``decay=1`` the model does not depend on the sample order, bitwise.
    AICc uses ``m_eff = (sum d)^2 / sum d^2`` of the decay weights ``d``; the transfer model
    uses the decay weights only.
    """
    xs = _sizes(x, "x")
    tc = _times(t_comp, "t_comp", xs.shape[0])
    tx = None if t_xfer is None else _times(t_xfer, "t_xfer", xs.shape[0])
    q = count(quantum, "quantum", 1)
    if isinstance(basis, str):
        basis = [basis]
    try:
        basis = list(basis)
    except TypeError:
        raise WpartTypeError(f"`basis` must be a sequence of names from {BASIS}, got "
                        f"{type(basis).__name__}") from None
    mask = 0
    for b in basis:
        if not isinstance(b, str) or b not in BASIS:
            raise WpartValueError(f"`basis` entries must be among {BASIS}, got {b!r}")
        mask |= 1 << BASIS.index(b)
    if mask == 0:
        raise WpartValueError("`basis` must not be empty")
    mt = count(max_terms, "max_terms", 1)
    if mt > 3:
        raise WpartValueError(f"`max_terms` must be <= 3, got {mt}")
    weighting = choice(weighting, "weighting", ("plain", "relative"))
    decay = as_float(decay, "decay", minimum=0.0, strict_minimum=True, maximum=1.0)
    # (a window longer than the samples is all of them)
    window = min(count(window, "window", 0), xs.shape[0])
    grid_points = as_grid_points(grid_points, "grid_points")
    slope_floor = as_float(slope_floor, "slope_floor", minimum=0.0)
    packed = _core.dynamic_fit_model(
        xs, tc, tx, q, mask, int(as_bool(intercept, "intercept")), mt, 1 if weighting == "relative" else 0,
        decay, window, grid_points, slope_floor,
    )
    used = slice(-window, None) if 0 < window < xs.shape[0] else slice(None)
    samples = (xs[used].copy(), tc[used].copy(), None if tx is None else tx[used].copy())
    return PerfModel.from_packed(packed, samples=samples)


# ---------------------------------------------------------------------------- solver ------


def _models_arg(models: Any) -> tuple[Any, int]:
    if isinstance(models, PerfModel) or callable(models):
        raise WpartTypeError("`models` must be a sequence of PerfModel objects or callables")
    ms = as_sequence(models, "models")
    if not ms:
        raise WpartValueError("`models` must not be empty")
    if all(isinstance(m, PerfModel) for m in ms):
        return tuple(m.packed for m in ms), len(ms)  # the binding reads each packed array
    for i, m in enumerate(ms):
        if not callable(m):
            raise WpartTypeError(f"`models[{i}]` must be a PerfModel or a callable")
    return tuple(ms), len(ms)


def _bounds(v: Any, name: str, n: int, dtype: Any) -> Any:
    if v is None:
        return None
    a = as_array(v, name, allow_nan=True)
    if a.dtype.kind not in "biuf":
        raise WpartTypeError(f"`{name}` must hold real numbers, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if a.ndim == 0:
        a = np.full(n, float(a))
    if a.shape != (n,):
        raise WpartValueError(f"`{name}` must have length {n}, got shape {a.shape}")
    if np.isnan(a).any() or (a < 0).any():
        raise WpartValueError(f"`{name}` must be >= 0 and not NaN")
    if dtype is np.int64:
        if np.isinf(a).any() and name == "lb":
            raise WpartValueError("`lb` must be finite")
        fin = np.isfinite(a)
        if (a[fin] != np.floor(a[fin])).any():
            raise WpartValueError(f"`{name}` must hold integers")
        if (a[fin] >= 2.0**63).any():
            raise WpartOverflowError(f"`{name}` has values beyond the int64 range (use inf for none)")
        out = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        out[fin] = a[fin].astype(np.int64)
        return out
    if name == "lb" and np.isinf(a).any():
        raise WpartValueError("`lb` must be finite")
    return np.ascontiguousarray(a)


def _check_order(lb: Any, ub: Any) -> None:
    if lb is not None and ub is not None:
        bad = np.flatnonzero(lb > ub)
        if bad.size:
            raise WpartValueError(f"`lb` > `ub` at index {bad[0]}")


@fill_doc
def solve_equal_time(
    models: Sequence[PerfModel | Callable[[Any], Any]],
    S: float,
    *,
    lb: ArrayLike | None = None,
    ub: ArrayLike | None = None,
    tol: float = 1e-10,
    newton_polish: bool = False,
) -> tuple[NDArray[np.float64], float]:
    """Share the step volume `S` so that every PU finishes at the same time (system (3) of
    the paper, Sec. 3.2, solved as a min-max problem).

    Solves ``min T s.t. E_p(x_p) <= T, sum x = S, lb <= x <= ub`` by water-filling on ``T``
    (the least such ``T`` to `tol` for non-decreasing ``E_p``, step curves included; the
    paper uses IPOPT, a local method). PerfModels first get Newton steps on ``[E_p(x_p) = T,
    sum x = S]`` with the models' analytic derivatives, kept when they meet the optimality
    conditions (about 3 us at 16 PUs).

    Parameters
    ----------
    models : sequence of PerfModel or callable
        One per PU. Callables ``E_p(x)`` must be non-decreasing and accept a float; with
        PerfModels only, the solve runs in C with the GIL released. Every value the solver
        reads is checked: NaN, an infinite or a negative time, or a curve seen to decrease
        between two sizes it evaluated (the bracket ends and each point inside, to a relative
        1e-9) raises :class:`wpart.WpartValueError` naming the PU. Fitted models are
        non-decreasing by construction (their admissibility check); a hand-made one gets
        the same checks.
    S : float
        Step volume (finite, > 0).
    lb, ub : array_like, shape (n,), optional
        Bounds (default 0 and +inf).
    tol : float, optional
        Relative tolerance on ``T``.
    newton_polish : bool, optional
        Finish with Newton steps on ``[E_p(x_p) = T, sum x = S]``.

    Returns
    -------
    x : ndarray of float64, shape (n,)
        The allocation (sums to `S`).
    T : float
        The water level: the common time of the PUs strictly inside their bounds. A PU held
        at its lower bound may take longer (``E_p(lb_p) > T``).

    {raises}

    Notes
    -----
    If ``sum(lb) > S`` the lower bounds are scaled by ``S / sum(lb)`` and that allocation is
    returned, with ``T`` its makespan. ``sum(min(ub, S)) < S`` raises.
    """
    m, n = _models_arg(models)
    S = as_float(S, "S", minimum=0.0, strict_minimum=True)
    tol = as_float(tol, "tol", minimum=0.0, strict_minimum=True)
    if not tol < 1.0:
        raise WpartValueError(f"`tol` must be in (0, 1), got {tol}")
    lbv, ubv = _bounds(lb, "lb", n, np.float64), _bounds(ub, "ub", n, np.float64)
    _check_order(lbv, ubv)
    x, T = _core.dynamic_solve_equal_time(m, S, lbv, ubv, tol, 1e-12, 200, 100,
                                          int(as_bool(newton_polish, "newton_polish")))
    return x, float(T)


def capacity(
    models: Sequence[PerfModel | Callable[[Any], Any]],
    T: float,
    *,
    lb: ArrayLike | None = None,
    ub: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], float]:
    """Time mode of the equal-time solve: ``x_p(T) = max{x in [lb_p, ub_p] : E_p(x) <= T}``
    and their sum.

    Returns
    -------
    x : ndarray of float64, shape (n,)
        ``lb_p`` when ``E_p(lb_p) > T``; ``inf`` when ``ub_p`` is infinite and ``E_p`` never
        exceeds ``T``.
    H : float
        ``sum(x)``.

    Raises
    ------
    wpart.WpartValueError
        A curve returned NaN, an infinite or a negative time, or decreased between two sizes
        the search evaluated (the message names the PU).

    Parameters
    ----------
    models : Sequence[PerfModel or Callable[[object], object]]
        One fitted performance model per processing unit.
    T : float
        Times of the measured points.
    lb : array_like or None, optional
        Lower bounds of the sizes (one per unit), or None.
    ub : array_like or None, optional
        Upper bounds of the sizes (one per unit), or None.
    """
    m, n = _models_arg(models)
    T = as_float(T, "T", allow_inf=True)
    lbv, ubv = _bounds(lb, "lb", n, np.float64), _bounds(ub, "ub", n, np.float64)
    _check_order(lbv, ubv)
    x, H = _core.dynamic_capacity(m, T, lbv, ubv)
    return x, float(H)


def round_blocks(
    models: Sequence[PerfModel | Callable[[Any], Any]],
    x_cont: ArrayLike,
    S: int,
    *,
    quantum: int = 1,
    lb: ArrayLike | None = None,
    ub: ArrayLike | None = None,
) -> tuple[NDArray[np.int64], int | float]:
    """Round a continuous allocation to blocks of multiples of `quantum` (the rounding step of
    Sec. 3.2 of [Sant'Ana 2017], made optimal).

    Floor to multiples of the quantum (at least `lb`), then hand out the remaining quanta one
    by one to the PU that would finish it first (ties to the lowest index), and a final
    remainder ``S mod quantum`` the same way. Optimal for the discrete min-max problem when
    `x_cont` solves (P_S).

    Returns
    -------
    blocks : ndarray of int64, shape (n,)
        Sizes summing to `S`.
    Tmax : float
        ``max_p E_p(blocks_p)`` over the PUs with a block (``E_p(0) = 0``: no block, no cost).

    Raises
    ------
    wpart.WpartValueError
        Bad sizes or bounds, or a curve that returned NaN, an infinite or a negative time
        (the message names the PU).

    Parameters
    ----------
    models : Sequence[PerfModel or Callable[[object], object]]
        One fitted performance model per processing unit.
    x_cont : array_like
        Optimal for the discrete min-max problem when `x_cont` solves (P_S).
    S : int
        Total size to distribute.
    quantum : int, optional
        Block sizes are multiples of this.
    lb : array_like or None, optional
        Lower bounds of the sizes (one per unit), or None.
    ub : array_like or None, optional
        Upper bounds of the sizes (one per unit), or None.

    Notes
    -----
    If ``sum(lb) > S`` the lower bounds are scaled to ``q floor(lb_p S / sum(lb) / q)``.
    """
    m, n = _models_arg(models)
    xc = as_array(x_cont, "x_cont", allow_nan=True)
    if xc.dtype.kind not in "biuf":
        raise WpartTypeError(f"`x_cont` must hold real numbers, got dtype {xc.dtype}")
    xc = xc.astype(np.float64)
    if xc.shape != (n,):
        raise WpartValueError(f"`x_cont` must have length {n}, got shape {xc.shape}")
    if not np.isfinite(xc).all() or (xc < 0).any():
        raise WpartValueError("`x_cont` must be finite and >= 0")
    S = count(S, "S", 1)
    q = count(quantum, "quantum", 1)
    if S < q:
        raise WpartValueError(f"`S` ({S}) must be at least one `quantum` ({q})")
    lbv, ubv = _bounds(lb, "lb", n, np.int64), _bounds(ub, "ub", n, np.int64)
    _check_order(lbv, ubv)
    if ubv is not None and sum(min(int(u), S) for u in ubv) < S:
        raise WpartValueError(f"`ub` sums to less than `S` ({S})")
    blocks, Tmax = _core.dynamic_round_blocks(m, np.ascontiguousarray(xc), S, q, lbv, ubv)
    return blocks, float(Tmax)


# ---------------------------------------------------------------------------- oracle_milp --


_MILP_STATUS = {"optimal": "optimal", "feasible": "time_limit", "no_solution": "time_limit",
                "infeasible": "infeasible", "unbounded": "error"}


@dataclass(frozen=True, eq=False, repr=False)
class OracleMilpResult(Result):
    """Outcome of :func:`oracle_milp` (the result protocol of :class:`wpart.Result`).

    Attributes
    ----------
    status : {"optimal", "time_limit", "infeasible", "error"}
        ``"time_limit"``: GLPK stopped at `time_limit`; `blocks` holds its incumbent when it
        had one (``success`` tells).
    message : str
        GLPK's account of how the solve ended.
    blocks : ndarray of int64, shape (m,)
        Sizes summing to `n` (zeros when the solve found no solution).
    makespan : float
        ``max_p E_p(blocks_p)`` on the true curves (``E_p(0) = 0``; NaN without a solution).
    T_pwl : float
        Optimal makespan of the piecewise-linear problem.
    breakpoints : ndarray of float64, shape (K,)
        The breakpoint sizes used for every PU.
    stats : dict
        ``seconds`` (wall time of the GLPK solve), ``nodes`` (branch-and-bound nodes).
    """

    blocks: NDArray[np.int64]
    makespan: float
    T_pwl: float
    breakpoints: NDArray[np.float64]

    x = deprecated_attr("x", "blocks", "OracleMilpResult")
    T = deprecated_attr("T", "makespan", "OracleMilpResult")

    @property
    def seconds(self) -> float:
        """Deprecated: ``stats["seconds"]``."""
        import warnings

        warnings.warn("OracleMilpResult.seconds is deprecated, use stats['seconds']", DeprecationWarning,
                      stacklevel=2)
        return float(self.stats.get("seconds", math.nan))

    @property
    def nodes(self) -> int:
        """Deprecated: ``stats["nodes"]``."""
        import warnings

        warnings.warn("OracleMilpResult.nodes is deprecated, use stats['nodes']", DeprecationWarning,
                      stacklevel=2)
        return int(self.stats.get("nodes", 0))

    def _has_answer(self) -> bool:
        return bool(np.isfinite(self.makespan))

    def _repr_lines(self) -> list[str]:
        return [f"OracleMilpResult(status={self.status!r}, makespan={self.makespan:.6g} s, "
                f"T_pwl={self.T_pwl:.6g} s)",
                f"  blocks={self.blocks.tolist() if self.blocks.size <= 8 else self.blocks[:8].tolist() + ['...']}",
                f"  {self.message}"]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dictionary (with ``success`` and ``stats``)."""
        d = super().to_dict()
        d["stats"] = dict(self.stats)
        return d

    def plot(self, ax: Any = None) -> Any:
        """Bar chart of the sizes per PU on `ax` (a new figure when None); returns the Axes."""
        return plot_per_pu(ax, self.blocks, "elements",
                           f"oracle_milp: makespan {self.makespan:.4g} s (PWL {self.T_pwl:.4g} s)")


def _curve_values(f: Callable[[Any], Any], x: NDArray[np.float64], i: int) -> NDArray[np.float64]:
    try:
        v = np.asarray(f(x), dtype=np.float64)
        if v.shape != x.shape:
            raise WpartValueError
    except (ValueError, TypeError):
        v = np.array([float(f(float(xi))) for xi in x])
    if not np.isfinite(v).all() or (v < 0).any():
        raise WpartValueError(f"`curves[{i}]` must return finite times >= 0")
    return v


#: oracle_milp's largest n / quantum: above it GLPK reported always-feasible models
#: infeasible (2^24 with five PUs; 2^23 held with 2 to 8 PUs, 32 breakpoints)
_MILP_UNITS = 2**23


def _check_milp_optimum(bx: NDArray, bt: NDArray, W: int, q: int, T_pwl: float) -> None:
    """Raise SolverError where GLPK's "optimal" split is above a feasible one: the
    equal-finish split (:func:`wpart.dynamic.equal_finish`, a split of the same model: multiples
    of `q`, the remainder to one PU) on the same PWL curves (with coefficients of ~1e5 units
    GLPK ended at its first node with every element on one PU: 100.0 against 25.0). Curves
    that equal_finish refuses (not non-decreasing) are not checked."""
    from ._equal import equal_finish

    curves = [lambda x, t=t: np.interp(np.asarray(x, np.float64), bx, t) for t in bt]
    try:
        ef = equal_finish(curves, W, quantum=q)
    except WpartError:
        return
    T_ef = max(float(np.interp(float(v), bx, t)) for v, t in zip(ef.sizes, bt))
    if T_pwl > T_ef * (1 + 1e-9) + 1e-300:
        raise SolverError(
            f"oracle_milp: GLPK's optimum on the PWL curves, {T_pwl:.17g}, is above the "
            f"equal-finish split's {T_ef:.17g} (sizes {ef.sizes.tolist()}): a numerical "
            f"failure of the MILP at {W // q:,} blocks; pass a larger `quantum`")


@renamed(total="n")
def oracle_milp(
    curves: Sequence[Callable[[Any], Any]],
    n: int,
    *,
    breakpoints: int = 64,
    quantum: int = 1,
    time_limit: float | None = 60.0,
) -> OracleMilpResult:
    """GLPK cross-check of the optimum on true curves (the "optimum" the paper compares with
    in Sec. 5, found there by brute force).

    Each curve ``E_p`` is replaced by its piecewise-linear interpolation on `breakpoints`
    evenly spaced sizes in ``[0, n]`` (with ``E_p(0) = 0``), and the MILP
    ``min T s.t. PWL_p(x_p) <= T, sum x = n, x_p = quantum * k_p`` (one PU may take the
    remainder ``n mod quantum``) is solved with SOS2 segments modelled by binaries (the
    curves may be concave).

    Parameters
    ----------
    curves : sequence of callable
        True time functions ``E_p(x)``, vectorised over NumPy arrays (a scalar fallback is
        used otherwise).
    n : int
        Elements to share (``W``).
    breakpoints : int, optional
        ``K`` (>= 2).
    quantum : int, optional
        Block granularity; ``n / quantum`` is at most 2^23 (GLPK's tolerances break larger
        integer sizes; from about 1e5 blocks, with curves of unequal speeds, GLPK's
        "optimum" can already be wrong: it is checked, see Raises).
    time_limit : float or None, optional
        Seconds (None: no limit). Reaching it gives ``status == "time_limit"`` with GLPK's
        incumbent, if it has one.

    Returns
    -------
    OracleMilpResult
        Times far from 1 reach GLPK scaled by a power of two (the same optimum).

    Raises
    ------
    wpart.SolverError
        GLPK failed (also when it calls the model, which always has a point, infeasible), or
        its "optimal" split is above the equal-finish split of the same PWL curves (a
        feasible point of the same model: :func:`equal_finish`), a numerical failure a larger
        `quantum` avoids.
    """
    fs = list(curves)
    if not fs:
        raise WpartValueError("`curves` must not be empty")
    for i, f in enumerate(fs):
        if not callable(f):
            raise WpartTypeError(f"`curves[{i}]` must be callable")
    W = count(n, "n", 1)
    K = count(breakpoints, "breakpoints", 2)
    if K > 100_000:
        raise WpartValueError(f"`breakpoints` must be <= 100000 (one binary per segment and PU), "
                         f"got {K}")
    q = count(quantum, "quantum", 1)
    if W // q > _MILP_UNITS:
        raise WpartValueError(
            f"`n` / `quantum` must be <= 2^23 = {_MILP_UNITS:,} blocks of `quantum` elements, "
            f"got {W} / {q}: beyond it GLPK's tolerances break the MILP's integer sizes (it "
            f"reported such always-feasible models infeasible); pass quantum >= "
            f"{-(-W // _MILP_UNITS)}")
    tl = core_time_limit(time_limit)
    bx = np.unique(np.round(np.linspace(0.0, float(W), K)))
    bt = np.empty((len(fs), bx.size))
    for i, f in enumerate(fs):
        bt[i] = _curve_values(f, bx, i)
        bt[i, 0] = 0.0  # no block, no cost
    BX = np.ascontiguousarray(np.tile(bx, (len(fs), 1)))
    # times far from 1 reach GLPK scaled by a power of two (exact; seconds of 1e-9 or 1e9 gave
    # a wrong "optimum" or "infeasible" before)
    st = unit_scale(float(bt.max()))  # (_curve_values checked them finite)
    x, T_pwl, status, message, seconds, nodes = _core.dynamic_oracle_milp(
        BX, np.ascontiguousarray(bt * st), W, q, tl
    )
    T_pwl = float(T_pwl) / st
    if status == "infeasible":  # the model always has a point: GLPK's numerics failed
        raise SolverError(f"oracle_milp: GLPK reported the model infeasible ({message}), "
                          "which always has a solution: a numerical failure")
    if status == "optimal":
        _check_milp_optimum(bx, bt, W, q, T_pwl)
    if status not in ("optimal", "feasible"):
        x = np.zeros(len(fs), dtype=np.int64)
        T = math.nan
    else:
        T = max(
            (float(_curve_values(f, np.array([float(v)]), i)[0]) if v > 0 else 0.0)
            for i, (f, v) in enumerate(zip(fs, x))
        )
    return OracleMilpResult(status=_MILP_STATUS.get(status, "error"), message=message, blocks=x,
                            makespan=T, T_pwl=float(T_pwl), breakpoints=bx,
                            stats={"seconds": float(seconds), "nodes": int(nodes)})
