"""Implementation of :mod:`wpart.milp` (see there)."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core
from ._errors import WpartTypeError, WpartValueError
from ._progress import progress_hook
from ._result import STATUSES as _STATUSES
from ._result import Result, new_axes
from ._validate import (as_bool, as_float, as_progress, check_sparse_arrays, core_time_limit,
                        is_bool, sparse_converted)

__all__ = ["solve", "write_model", "MilpResult", "STATUSES", "solver_version"]

#: Values of :attr:`MilpResult.status`: :data:`wpart.STATUSES`, then ``"unbounded"``.
STATUSES = _STATUSES + ("unbounded",)

_SENSES = ("min", "max")
_FORMATS = ("lp", "mps")


@dataclass(frozen=True, eq=False, repr=False)
class MilpResult(Result):
    """Outcome of :func:`solve`.

    Attributes
    ----------
    x : ndarray of float64, shape (n,)
        The solution when there is one (``success``; integer columns hold exact integers),
        else all NaN.
    objective : float
        ``c @ x + constant`` at `x`; NaN when there is no `x`.
    bound : float
        Best proven bound on the optimum (a lower bound when minimising, an upper bound when
        maximising). Equals `objective` when optimal; ``-inf``/``+inf`` when unbounded; NaN
        when unknown.
    status : str
        One of :data:`STATUSES`: ``"optimal"`` (proven, or within `mip_gap`),
        ``"time_limit"`` (the time limit stopped the search: `x` holds the best solution
        found, or NaN when none was found, then ``success`` is False), ``"infeasible"``,
        ``"unbounded"``, or ``"feasible"`` / ``"error"`` (a stop requested through the C
        core's control hook, with / without a solution; not reachable from Python, where
        Ctrl-C raises).
    message : str
        One line describing the outcome, with the GLPK return code when relevant.
    seconds : float
        Wall time of the solve (not compared by ``==``).
    nodes : int
        Branch-and-bound nodes created (0 for a pure LP).
    gap : float
        Relative gap ``|objective - bound| / (|objective| + eps)`` (GLPK's definition); 0 when
        optimal, NaN when undefined.
    stopped_by : str
        ``"none"``, ``"time_limit"`` or ``"request"``.
    log : str
        GLPK's terminal output when ``log=True`` was passed, else ``""``.
    stats : dict
        ``seconds``, ``nodes`` and ``glpk_code`` (GLPK's return code).

    ``success`` is True when `x` holds a solution (optimal, or the incumbent at a time limit).
    """

    x: NDArray[np.float64]
    objective: float
    bound: float
    seconds: float = field(default=0.0, compare=False)
    nodes: int = 0
    gap: float = float("nan")
    stopped_by: str = "none"
    log: str = field(default="", compare=False)

    def _has_answer(self) -> bool:
        return self.x.size > 0 and not bool(np.isnan(self.x).all())

    def _repr_lines(self) -> list[str]:
        xs = np.array2string(self.x, precision=6, threshold=8, max_line_width=10_000)
        return [
            f"MilpResult(status={self.status!r}, objective={self.objective:.10g}, "
            f"bound={self.bound:.10g}, gap={self.gap:.3g})",
            f"  nodes={self.nodes}, seconds={self.seconds:.3g}, n={self.x.shape[0]}",
            f"  x={xs}",
            f"  message={self.message!r}",
        ]

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python copy (lists and floats) suitable for JSON; NaN and inf stay floats."""
        d = super().to_dict()
        d["log"] = self.log
        d["seconds"] = float(self.seconds)
        return d

    def plot(self, ax: Any = None) -> Any:
        """Bar chart of the solution `x` (one bar per column; nothing drawn without `x`).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        ax = new_axes(ax, figsize=(7, 3))
        if self._has_answer():
            ax.bar(np.arange(self.x.size), self.x, color="C0")
        ax.set_xlabel("column")
        ax.set_ylabel("x")
        ax.set_title(f"MILP: {self.status}, objective {self.objective:.6g}")
        return ax


# ----------------------------------------------------------------------------------- checks --


def _numeric(x: Any, name: str) -> np.ndarray:
    """np.asarray with a TypeError naming the argument for non-numeric input."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise WpartTypeError(f"`{name}` could not be converted to a numeric array: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise WpartTypeError(f"`{name}` must contain real numbers, got dtype {arr.dtype}")
    return arr


def _first_bad(mask: np.ndarray) -> str:
    idx = np.argwhere(mask)[0]
    return str(int(idx[0])) if idx.shape[0] == 1 else str(tuple(int(i) for i in idx))


def _vector(
    x: Any, name: str, n: int, *, default: float | None, lo_ok: bool, hi_ok: bool
) -> NDArray[np.float64] | None:
    """Coerce a scalar or a 1-D array to a float64 vector of length n.

    NaN is refused, and -inf / +inf are refused unless allowed. None gives `default`
    (broadcast), or None when `default` is None.
    """
    if x is None:
        return None if default is None else np.full(n, default, dtype=np.float64)
    arr = _numeric(x, name)
    if arr.ndim == 0:
        arr = np.full(n, float(arr), dtype=np.float64)
    elif arr.ndim != 1:
        raise WpartValueError(f"`{name}` must be a scalar or 1-D, got {arr.ndim}-D")
    elif arr.shape[0] != n:
        raise WpartValueError(f"`{name}` must have length {n}, got {arr.shape[0]}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if np.isnan(arr).any():
        raise WpartValueError(f"`{name}` contains NaN at index {_first_bad(np.isnan(arr))}")
    if not lo_ok and (arr == -np.inf).any():
        raise WpartValueError(f"`{name}` contains -inf at index {_first_bad(arr == -np.inf)}")
    if not hi_ok and (arr == np.inf).any():
        raise WpartValueError(f"`{name}` contains +inf at index {_first_bad(arr == np.inf)}")
    return arr


def _coo(A: Any, n: int) -> tuple[int, NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """(m, rows, cols, values) of A given dense, as (rows, cols, values, shape) or with .tocoo()."""
    if hasattr(A, "tocoo") and not isinstance(A, np.ndarray):
        check_sparse_arrays(A)  # (scipy's conversion reads bad arrays out of bounds)
        coo = sparse_converted(A, "coo")
        shape = tuple(int(s) for s in coo.shape)
        rows, cols, vals = coo.row, coo.col, coo.data
        where = "`A`"
    elif isinstance(A, tuple) and len(A) == 4 and not isinstance(A[3], np.ndarray):
        rows, cols, vals, shape = A
        if (
            not isinstance(shape, (tuple, list))
            or len(shape) != 2
            or not all(isinstance(s, numbers.Integral) and not is_bool(s) for s in shape)
        ):
            raise WpartTypeError(
                "`A` given as (rows, cols, values, shape) needs shape = (m, n) ints")
        shape = (int(shape[0]), int(shape[1]))
        where = "`A` (COO)"
    else:
        dense = _numeric(A, "A")
        if dense.ndim != 2:
            raise WpartValueError(f"`A` must be 2-D, got {dense.ndim}-D")
        if dense.shape[1] != n:
            raise WpartValueError(f"`A` must have len(c) = {n} columns, got shape {dense.shape}")
        dense = np.asarray(dense, dtype=np.float64)
        bad = ~np.isfinite(dense)
        if bad.any():
            kind = "NaN" if np.isnan(dense[bad]).any() else "inf"
            bad = np.isnan(dense) if kind == "NaN" else bad
            raise WpartValueError(f"`A` contains {kind} at index {_first_bad(bad)}")
        r, cidx = np.nonzero(dense)
        return (
            dense.shape[0],
            r.astype(np.int64),
            cidx.astype(np.int64),
            np.ascontiguousarray(dense[r, cidx]),
        )
    m, ncols = shape
    if m < 0 or ncols != n:
        raise WpartValueError(f"{where} must have shape (m, len(c) = {n}), got {shape}")
    rows = _numeric(rows, "A rows")
    cols = _numeric(cols, "A cols")
    vals = _numeric(vals, "A values")
    if rows.dtype.kind not in "biu" or cols.dtype.kind not in "biu":
        raise WpartTypeError(f"{where} row and column indices must be integers")
    if rows.ndim != 1 or cols.ndim != 1 or vals.ndim != 1:
        raise WpartValueError(f"{where} rows, cols and values must be 1-D")
    if not rows.shape[0] == cols.shape[0] == vals.shape[0]:
        raise WpartValueError(
            f"{where} rows, cols and values must have the same length, got "
            f"{rows.shape[0]}, {cols.shape[0]}, {vals.shape[0]}"
        )
    for arr, ext, what in ((rows, m, "row"), (cols, n, "column")):
        bad = (arr < 0) | (arr >= ext)
        if bad.any():
            k = int(np.argmax(bad))
            raise WpartValueError(
                f"{where} {what} index {int(arr[k])} at position {k} is out of range for "
                f"shape {(m, n)}"
            )
    vals = np.ascontiguousarray(vals, dtype=np.float64)
    bad = ~np.isfinite(vals)
    if bad.any():
        k = int(np.argmax(bad))
        raise WpartValueError(f"{where} values contain {vals[k]} at position {k}")
    return (
        m,
        np.ascontiguousarray(rows, dtype=np.int64),
        np.ascontiguousarray(cols, dtype=np.int64),
        vals,
    )


def _integrality(x: Any, n: int) -> NDArray[np.int8] | None:
    if x is None:
        return None
    arr = _numeric(x, "integrality")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise WpartTypeError("`integrality` must contain integers or booleans")
    if arr.ndim == 0:
        arr = np.full(n, arr)
    elif arr.ndim != 1 or arr.shape[0] != n:
        raise WpartValueError(
            f"`integrality` must be a scalar or have length {n}, got shape {arr.shape}"
        )
    bad = (arr != 0) & (arr != 1) & (arr != 2)
    if bad.any():
        k = int(np.argmax(bad))
        raise WpartValueError(
            "`integrality` must contain only 0 (continuous), 1 (integer) or 2 (binary), "
            f"got {arr[k]} at index {k}"
        )
    return np.ascontiguousarray(arr, dtype=np.int8)


def _check_order(lo: np.ndarray | None, hi: np.ndarray | None, nlo: str, nhi: str) -> None:
    if lo is None or hi is None:
        return
    bad = lo > hi
    if bad.any():
        k = int(np.argmax(bad))
        raise WpartValueError(f"`{nlo}[{k}]` = {lo[k]} > `{nhi}[{k}]` = {hi[k]}")


def _path_format(path: Any, fmt: str | None, name: str) -> tuple[str, str]:
    if not isinstance(path, (str, os.PathLike)):
        raise WpartTypeError(
            f"`{name}` must be a path (str or os.PathLike), got {type(path).__name__}")
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if not p:
        raise WpartValueError(f"`{name}` must not be empty")
    if fmt is None:
        ext = os.path.splitext(p)[1].lower().lstrip(".")
        if ext not in _FORMATS:
            raise WpartValueError(
                f"cannot infer the format from `{name}` = {p!r}: use a .lp or .mps suffix or "
                "pass `format`"
            )
        fmt = ext
    elif fmt not in _FORMATS:
        raise WpartValueError(f"`format` must be one of 'lp', 'mps', got {fmt!r}")
    return p, fmt


def _model_iv(
    c: ArrayLike,
    A: Any,
    b_lower: ArrayLike | None,
    b_upper: ArrayLike | None,
    lb: ArrayLike | None,
    ub: ArrayLike | None,
    integrality: ArrayLike | None,
    sense: str,
    constant: float,
) -> dict[str, Any]:
    """Validate and coerce the model; returns the keyword arguments of the _core functions."""
    carr = _numeric(c, "c")
    if carr.ndim != 1:
        raise WpartValueError(f"`c` must be 1-D, got {carr.ndim}-D")
    n = carr.shape[0]
    if n == 0:
        raise WpartValueError("`c` must have at least one element")
    carr = np.ascontiguousarray(carr, dtype=np.float64)
    bad = ~np.isfinite(carr)
    if bad.any():
        k = int(np.argmax(bad))
        raise WpartValueError(f"`c` contains {'NaN' if np.isnan(carr[k]) else 'inf'} at index {k}")
    if not isinstance(sense, str) or sense not in _SENSES:
        raise WpartValueError(f"`sense` must be 'min' or 'max', got {sense!r}")
    c0 = as_float(constant, "constant")

    if A is None:
        m = 0
        rows = np.zeros(0, dtype=np.int64)
        cols = np.zeros(0, dtype=np.int64)
        vals = np.zeros(0, dtype=np.float64)
    else:
        m, rows, cols, vals = _coo(A, n)
    if A is None and (b_lower is not None or b_upper is not None):
        nb = "b_lower" if b_lower is not None else "b_upper"
        if np.size(np.asarray(b_lower if b_lower is not None else b_upper)) != 0:
            raise WpartValueError(f"`{nb}` is given but `A` is None")
    if A is not None and m > 0 and b_lower is None and b_upper is None:
        raise WpartValueError("`A` is given but neither `b_lower` nor `b_upper`")
    bl = _vector(b_lower, "b_lower", m, default=None, lo_ok=True, hi_ok=False) if m else None
    bu = _vector(b_upper, "b_upper", m, default=None, lo_ok=False, hi_ok=True) if m else None
    _check_order(bl, bu, "b_lower", "b_upper")

    lba = _vector(lb, "lb", n, default=0.0, lo_ok=True, hi_ok=False)
    uba = _vector(ub, "ub", n, default=np.inf, lo_ok=False, hi_ok=True)
    _check_order(lba, uba, "lb", "ub")
    kind = _integrality(integrality, n)
    if kind is not None:
        binbad = (kind == 2) & ((lba > 1) | (uba < 0))
        if binbad.any():
            k = int(np.argmax(binbad))
            raise WpartValueError(
                f"`integrality[{k}]` is binary (2) but the bounds [{lba[k]}, {uba[k]}] "
                "exclude both 0 and 1"
            )
    return {
        "c": carr,
        "c0": c0,
        "sense": sense,
        "lb": lba,
        "ub": uba,
        "integrality": kind,
        "b_lower": bl,
        "b_upper": bu,
        "a_row": rows,
        "a_col": cols,
        "a_val": vals,
        "n_rows": m,
    }


def _solve_iv(
    time_limit: float | None, mip_gap: float | None, presolve: Any, log: Any, progress: Any
) -> tuple[float, float]:
    """Check the solver options; returns (time_limit, mip_gap) as the core wants them."""
    tl = core_time_limit(time_limit)
    gap = 0.0 if mip_gap is None else as_float(mip_gap, "mip_gap", minimum=0.0)
    as_bool(presolve, "presolve")
    as_bool(log, "log")
    as_progress(progress)
    return tl, gap


# ------------------------------------------------------------------------------------- API --


def solve(
    c: ArrayLike,
    *,
    A: Any = None,
    b_lower: ArrayLike | None = None,
    b_upper: ArrayLike | None = None,
    lb: ArrayLike | None = None,
    ub: ArrayLike | None = None,
    integrality: ArrayLike | None = None,
    sense: str = "min",
    constant: float = 0.0,
    time_limit: float | None = None,
    mip_gap: float | None = None,
    presolve: bool = False,
    progress: bool | Callable[[float, float], None] = False,
    log: bool = False,
    write: str | os.PathLike | None = None,
    x0: ArrayLike | None = None,
) -> MilpResult:
    """Solve a mixed-integer linear programme with GLPK.

    Minimise (or maximise) ``c @ x + constant`` subject to ``b_lower <= A @ x <= b_upper``,
    ``lb <= x <= ub`` and integrality of the chosen columns. Pure LPs (no integer column) go to
    GLPK's simplex method, other problems to its branch-and-cut. Infeasible, unbounded and
    interrupted solves are reported in the result, not raised.

    Parameters
    ----------
    c : array_like, shape (n,)
        Objective coefficients, finite; ``n >= 1``.
    A : array_like or sparse matrix or tuple, shape (m, n), optional
        Constraint matrix: a dense 2-D array, a tuple ``(rows, cols, values, shape)`` in COO
        form, or any object with a ``tocoo()`` method (SciPy sparse). Duplicate COO entries are
        summed; zeros are dropped. None means no constraints.
    b_lower, b_upper : array_like, shape (m,) or scalar, optional
        Row bounds; ``-inf`` / ``+inf`` (or None for all) leave a side open; equal values give
        an equality. At least one is required when `A` has rows.
    lb, ub : array_like, shape (n,) or scalar, optional
        Column bounds; default ``0 <= x < +inf`` (as in :func:`scipy.optimize.milp`). Use
        ``lb=-np.inf`` for free variables.
    integrality : array_like of int or bool, shape (n,) or scalar, optional
        Per column: 0 (or False) continuous, 1 (or True) integer, 2 binary (integer with the
        bounds intersected with [0, 1]). None: all continuous.
    sense : {"min", "max"}, optional
        Optimisation direction.
    constant : float, optional
        Constant term of the objective.
    time_limit : float, optional
        Wall-time limit in seconds (None or inf: none). When it is reached the result has
        status ``"time_limit"``, with the best solution found in `x` (``success`` True) or
        none (`x` all NaN, ``success`` False); nothing is raised.
    mip_gap : float, optional
        Stop when the relative gap is at most this; the result then counts as ``"optimal"``
        (within the tolerance; see `gap`). Default 0 (prove optimality).
    presolve : bool, optional
        Run GLPK's LP presolver on the relaxation solved at the root (default False). GLPK's
        MIP presolver is never used: on some models it runs without end, deaf to `time_limit`
        and Ctrl-C, or returns a wrong answer. With ``presolve=True``, an infeasible or
        unbounded verdict, a GLPK failure or a point that fails the check below is re-solved
        without the presolver.
    progress : bool or callable, optional
        True shows a tqdm bar of the percentage of the relative gap closed; a callable is
        called as ``progress(done, total)`` with ``total = 100`` (returning False cancels the
        solve with :class:`wpart.CancelledError`).
    log : bool, optional
        Capture GLPK's terminal output into :attr:`MilpResult.log` (GLPK never prints).
    write : str or os.PathLike, optional
        Also write the model to this ``.lp`` or ``.mps`` file before solving (see
        :func:`write_model`).
    x0 : array_like, optional
        A feasible point (one value per column) given to GLPK's branch and bound as its
        first incumbent through the heuristic-solution hook, so that it prunes against it
        from the start (models with integer columns). GLPK checks only its integrality: a
        point that breaks a row or a bound must not be given.

    Returns
    -------
    MilpResult
        Solution, objective, bound, gap, status and timing.

    Raises
    ------
    WpartValueError
        Bad shapes, NaN or infinite coefficients, a nonzero coefficient of `A` whose magnitude
        GLPK cannot scale (the message names its row, column and value), ``lb > ub``,
        ``b_lower > b_upper``, indices out of range, bad option values; the message names the
        argument.
    WpartTypeError
        Non-numeric input or options of the wrong type.
    WpartOSError
        If `write` cannot be written.
    wpart.CancelledError
        The `progress` callable returned False.
    KeyboardInterrupt
        Ctrl-C, seen within a fraction of a second (or whatever the `progress` callable
        raises).
    wpart.SolverError
        GLPK failed (numerical trouble) or wpart was built without GLPK.

    See Also
    --------
    write_model : write the model for another solver.
    scipy.optimize.milp : the same model solved with HiGHS.

    Notes
    -----
    The model is built in C (``wpart_milp_solve``, ``csrc/milp/glpk_solve.c``), the only part
    of wpart that links GLPK. GLPK's hooks are process-global, so solves are serialised by a
    lock. GLPK runs in a worker thread with the GIL released, on copies of the model: Ctrl-C
    raises KeyboardInterrupt within about 10 ms even while GLPK loads or presolves a large
    model; the worker then stops at GLPK's next check and the next solve waits for it.
    `time_limit` (and the stop after Ctrl-C) are checked at every call of GLPK's
    branch-and-cut callback (several per node) and between slices of at most 0.2 s of
    simplex iterations, the next slice resuming from the last basis. Every point GLPK returns
    is checked in C before it is reported: column bounds, every row, integrality (relative
    tolerance 1e-6 of the magnitudes in the row itself, so that a row of 1e-150 terms is
    checked at about 1e-156) and the objective recomputed from the point; a point that fails
    is solved again once with GLPK's integrality tolerance tightened to 1e-9, and one that
    fails again raises :class:`wpart.SolverError` instead of being returned. A GLPK failure,
    or an infeasible or unbounded verdict of the LP (relaxation), is solved again once with
    GLPK's own scaling on top of wpart's (its first verdict stands if that retry finds no
    sound point); a simplex that makes no progress (cycling) raises SolverError. Branch and
    bound prunes with GLPK's objective tolerance 1e-9 (its default 1e-7 pruned optima).
    GLPK's tolerances are absolute, so the model reaches it scaled by powers of two (exact;
    answers are unchanged): every row to a largest coefficient in [1, 2), the objective
    likewise, and a continuous column whose rows all hold much smaller integer-column
    coefficients (``1e-150 y_k - z <= 0``) in a larger unit. A coefficient that would still
    fall below 2^-1022 of its row is refused (WpartValueError naming it). When the LP
    relaxation is unbounded, a second solve with a zero objective decides between
    ``"unbounded"`` and ``"infeasible"``. Bounds of integer columns are rounded inwards.
    With unbounded integer variables, branch-and-bound may never finish (``2x - 2y = 1`` has
    no integer solution, but no finite search proves it): pass a `time_limit`, or press
    Ctrl-C, in such models.

    Examples
    --------
    A knapsack and its LP relaxation:

    >>> import numpy as np, wpart.milp
    >>> c, A = [8, 11, 6, 4], [[5, 7, 4, 3]]
    >>> wpart.milp.solve(c, A=A, b_upper=14, integrality=1, ub=1, sense="max").objective
    21.0
    >>> wpart.milp.solve(c, A=A, b_upper=14, ub=1, sense="max").objective
    22.0

    Infeasibility is a status, not an exception:

    >>> wpart.milp.solve([1, 1], A=[[1, 1]], b_upper=-1).status
    'infeasible'
    """
    model = _model_iv(c, A, b_lower, b_upper, lb, ub, integrality, sense, constant)
    tl, gap = _solve_iv(time_limit, mip_gap, presolve, log, progress)
    if write is not None:
        path, fmt = _path_format(write, None, "write")
        _core.milp_write(path=path, format=fmt, **model)
    with progress_hook(progress, total=100.0, desc="milp") as hook:
        d = _core.milp_solve(
            time_limit=tl,
            mip_gap=gap,
            presolve=bool(presolve),
            log=bool(log),
            progress=hook,
            x0=None if x0 is None else _start_iv(x0, model),
            **model,
        )
    code = d.pop("glpk_code", None)
    status, stop = d["status"], d["stopped_by"]
    if stop == "time_limit":
        status = "time_limit"  # with the incumbent in x, or none (then success is False)
    elif status == "no_solution":
        status = "error"  # stopped on request before a solution: only from the C control
    d["status"] = status
    d["stats"] = {"seconds": d["seconds"], "nodes": d["nodes"], "glpk_code": code}
    return MilpResult(**d)


def write_model(path: str | os.PathLike, c: ArrayLike, *, A: Any = None,
                b_lower: ArrayLike | None = None, b_upper: ArrayLike | None = None,
                lb: ArrayLike | None = None, ub: ArrayLike | None = None,
                integrality: ArrayLike | None = None, sense: str = "min", constant: float = 0.0,
                format: str | None = None) -> None:
    r"""Write a MILP as a CPLEX LP or free MPS file, in GLPK's dialect of each format.

    The arguments describe the model exactly as in :func:`solve`. Columns are named
    ``x0 .. x{n-1}``, rows ``c0 .. c{m-1}`` and the objective ``obj``.

    Parameters
    ----------
    path : str or os.PathLike
        Output file (overwritten).
    c, A, b_lower, b_upper, lb, ub, integrality, sense, constant
        The model; see :func:`solve`.
    format : {"lp", "mps"}, optional
        File format; by default taken from the suffix of `path` (``.lp`` or ``.mps``).

    Raises
    ------
    ValueError, TypeError
        As for :func:`solve`, or when the format cannot be inferred.
    OSError
        If the file cannot be written.

    Returns
    -------
    None

    Notes
    -----
    Two limits of the formats as GLPK writes and reads them: the LP file records a nonzero
    `constant` only as a comment (``\* constant term = ... *\``), and the free MPS file has no
    objective direction (read a maximisation model with ``glpsol --max``). The MPS file keeps
    the constant as the objective row's RHS.

    On POSIX systems GLPK writes in a child process, to a temporary file next to `path` that
    is then renamed over it: Ctrl-C stops the writing at once and leaves `path` as it was (a
    regular file keeps its permission bits; a `path` that is not a regular file, such as a
    symbolic link, is written in place).

    Examples
    --------
    >>> import os, tempfile, wpart.milp
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "knapsack.lp")
    >>> wpart.milp.write_model(path, [8, 11, 6, 4], A=[[5, 7, 4, 3]], b_upper=14,
    ...                        integrality=2, sense="max")
    >>> print(open(path).read().split("Subject To")[0].strip().splitlines()[-1])
     obj: + 8 x0 + 11 x1 + 6 x2 + 4 x3
    >>> folder.cleanup()
    """
    p, fmt = _path_format(path, format, "path")
    model = _model_iv(c, A, b_lower, b_upper, lb, ub, integrality, sense, constant)
    _core.milp_write(path=p, format=fmt, **model)


def _start_iv(x0: ArrayLike, model: dict) -> np.ndarray:
    """`x0` as float64 of one value per column, finite."""
    x = np.asarray(x0)
    if x.dtype.kind not in "biuf" or x.dtype == bool:
        raise WpartTypeError(f"`x0` must be real numbers, got dtype {x.dtype}")
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    n = int(np.asarray(model["c"]).size)
    if x.size != n:
        raise WpartValueError(f"`x0` must have one value per column ({n}), got {x.size}")
    if not np.all(np.isfinite(x)):
        raise WpartValueError("`x0` must be finite")
    return x


#: GLPK's tolerances are absolute (1e-7 on bounds and reduced costs): a family's model whose
#: magnitudes are far from 1 is built on values scaled by a power of two (exact) first
UNIT_OUTSIDE = 2.0 ** 16


def unit_scale(w: float) -> float:
    """1, or the power of two s with ``s * w`` in [1, 2) when the positive finite magnitude `w`
    lies outside [2**-16, 2**16] (a model built on values times s has the same optimum, scaled
    exactly, and GLPK's absolute tolerances suit it)."""
    w = float(w)
    if not (math.isfinite(w) and w > 0) or 1 / UNIT_OUTSIDE <= w <= UNIT_OUTSIDE:
        return 1.0
    return math.ldexp(1.0, -math.frexp(w)[1] + 1)


def solver_version() -> str:
    """Version of the GLPK library wpart was built with ("" when built without GLPK).

    Returns
    -------
    str
        GLPK's version, e.g. ``"5.0"``.

    Raises
    ------
    None
        It takes no argument and reads a constant of the built extension.

    Examples
    --------
    >>> import wpart.milp
    >>> wpart.milp.solver_version() != ""
    True
    """
    return _core.milp_solver_version()
