"""The exact MILP of Sec. V of the paper (COMCP / FWMP, and a compact equivalent).

The model is built in C (``csrc/milp/tasks_milp.c``) and solved with GLPK through
:func:`wpart.milp.solve`; the incumbent is decoded and re-evaluated with the C work model.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _core
from .._errors import CancelledError, SolverError, WpartError, WpartTypeError, WpartValueError
from .._validate import as_bool, as_time_limit, choice
from .._validate import positional_deprecated
from ._compress import bounded_ranks
from ._problem import Coefficients, Problem
from ._results import TasksResult, load_bound, make_result, replace_fields
from .._docs import fill_doc

__all__ = ["milp_model", "solve_milp"]

FORMS = ("compact", "paper")


def _model_options(c: Coefficients, form: Any, formulation: Any,
                   preserve_clusters: Any) -> tuple[str, str, bool]:
    """(form, formulation, preserve_clusters) checked together."""
    f = choice(form, "form", FORMS)
    fm = choice(formulation, "formulation", ("auto", "comcp", "fwmp"))
    if fm == "comcp" and (c.beta > 0 or c.gamma > 0 or c.delta > 0):
        raise WpartValueError("`formulation`='comcp' needs beta = gamma = delta = 0")
    pc = as_bool(preserve_clusters, "preserve_clusters")
    if pc and f == "paper":
        raise WpartValueError("`preserve_clusters` needs form='compact'")
    return f, fm, pc


@fill_doc
def milp_model(problem: Problem, *, alpha: float = 1.0, beta: float = 0.0, gamma: float = 0.0,
               delta: float = 0.0, memory_cap: Any = None, preserve_clusters: bool = False,
               form: str = "compact", formulation: str = "auto") -> dict:
    """The MILP model as arrays (COO matrix, bounds, kinds) plus its sizes.

    ``form="paper"`` gives the paper's rows exactly (Secs. V-B and V-C; the sizes of its Figs.
    2 and 3);
    ``formulation`` ``"auto"`` picks COMCP when ``beta = gamma = delta = 0``, ``"fwmp"``
    forces FWMP (paper form only). ``form="compact"`` applies equivalent reductions (sparse
    (17), one memory row per rank, continuous auxiliaries, communication variables only on the
    diagonal, self-edges folded in).

    Pinned tasks (``problem.migratable`` False) are fixed variables: ``chi[home, k]`` has
    bounds [1, 1] and ``chi[i, k]`` [0, 0] elsewhere, ``home`` the task's rank of
    ``problem.initial`` (``n_pinned`` in the dict). With `preserve_clusters`, the
    *migratable* tasks of each block share one rank (rows ``chi[i, k1] = chi[i, k]``); the
    block's pinned tasks stay home, as in the block clusters of CCM-LB and brute force.

    Parameters
    ----------
    problem : Problem
        The tasks, blocks, edges and ranks (a :class:`Problem`).
    {coefficients}
    memory_cap : float or array_like, optional
        Memory cap per rank (a number or one per rank); None: no cap.
    preserve_clusters : bool, optional
        Keep the tasks of every shared block together.
    form : str, optional
        ``"compact"`` (the default, equivalent reductions) or ``"paper"`` (the paper's rows).
    formulation : str, optional
        ``"auto"`` (COMCP when beta = gamma = delta = 0, else FWMP), ``"comcp"`` or
        ``"fwmp"``.

    Returns
    -------
    dict
        The model's arrays (objective, COO constraint matrix, bounds, variable kinds) and
        its sizes.

    {raises}
    """
    _need_problem(problem)
    c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
    f, fm, preserve_clusters = _model_options(c, form, formulation, preserve_clusters)
    cap = problem.caps(memory_cap)
    pin = problem.pinned
    # pinned tasks in a block: their block cluster is the block's migratable tasks only
    own_rows = bool(preserve_clusters and pin.size and problem.task_block is not None
                    and np.any(problem.task_block[pin] >= 0))
    m = _core.tasks_milp_build(problem._dict(cap), c.as_tuple(), {"paper": 0, "compact": 1}[f],
                               fm == "fwmp", bool(preserve_clusters) and not own_rows)
    m["form"] = f
    m["n_pinned"] = int(pin.size)
    if pin.size:
        _fix_pinned(m, problem, pin)
    if own_rows:
        _same_rank_rows(m, problem)
    m["n_ineq_rows"] = m["n_rows"] - m["n_eq_rows"]
    return m


def _need_problem(problem: Any) -> None:
    """A WpartTypeError naming `problem` unless it is a :class:`Problem`."""
    if not isinstance(problem, Problem):
        raise WpartTypeError(f"`problem` must be a wpart.tasks.Problem (e.g. from "
                             f"read_lbdatafile or Problem(...)), got {type(problem).__name__}")


def _fix_pinned(m: dict, problem: Problem, pin: np.ndarray) -> None:
    """Bounds of the pinned tasks' ``chi`` columns: 1 on the home rank, 0 elsewhere."""
    K, I = problem.n_tasks, problem.m
    lb, ub = np.array(m["lb"], copy=True), np.array(m["ub"], copy=True)
    cols = m["col_chi"] + np.arange(I, dtype=np.int64)[:, None] * K + pin[None, :]
    ub[cols.ravel()] = 0.0
    home = m["col_chi"] + problem.initial[pin].astype(np.int64) * K + pin
    lb[home] = 1.0
    ub[home] = 1.0
    m["lb"], m["ub"] = lb, ub


def _same_rank_rows(m: dict, problem: Problem) -> None:
    """Rows ``chi[i, first] - chi[i, k] = 0`` tying every migratable task of a block to the
    block's first migratable task (appended as equality rows)."""
    K, I = problem.n_tasks, problem.m
    free = np.flatnonzero(problem.migratable & (problem.task_block >= 0))
    blk = problem.task_block[free]
    order = np.argsort(blk, kind="stable")
    free, blk = free[order], blk[order]
    first = free[np.searchsorted(blk, blk)]
    keep = first != free
    a, b = first[keep].astype(np.int64), free[keep].astype(np.int64)
    if a.size == 0:
        return
    ii = np.arange(I, dtype=np.int64)
    n_new = a.size * I
    rows = m["n_rows"] + np.arange(n_new, dtype=np.int64)
    ca = (m["col_chi"] + ii[None, :] * K + a[:, None]).ravel()
    cb = (m["col_chi"] + ii[None, :] * K + b[:, None]).ravel()
    m["a_row"] = np.concatenate([m["a_row"], rows, rows])
    m["a_col"] = np.concatenate([m["a_col"], ca, cb])
    m["a_val"] = np.concatenate([m["a_val"], np.ones(n_new), -np.ones(n_new)])
    m["row_lb"] = np.concatenate([m["row_lb"], np.zeros(n_new)])
    m["row_ub"] = np.concatenate([m["row_ub"], np.zeros(n_new)])
    m["n_rows"] += n_new
    m["n_eq_rows"] += n_new


def _heuristic(problem: Problem, c: Coefficients, cap: Any, preserve: bool,
               limit: float | None) -> tuple[np.ndarray, float] | None:
    """The best heuristic placement (assignment, W_max) under `c` and `cap`, or None when no
    heuristic finds one within the caps; CCM-LB gets at most `limit` seconds (half the
    MILP's time limit)."""
    from ._balance import balance

    kw = dict(alpha=c.alpha, beta=c.beta, gamma=c.gamma, delta=c.delta, memory_cap=cap)
    best = None
    runs = [dict(method="ccm", greedy_start=not preserve, time_limit=limit,
                 **({} if preserve else {"subclusters": "fill"}))]
    runs.append(dict(method="greedy"))
    for o in runs:
        try:
            r = balance(problem, **o, **kw)
        except WpartError as exc:
            if isinstance(exc, CancelledError):
                raise
            continue
        a = r.assignment
        if preserve and problem.task_block is not None:  # every block's free tasks together
            free = problem.migratable & (problem.task_block >= 0)
            pairs = np.unique(problem.task_block[free].astype(np.int64) * problem.m + a[free])
            if pairs.size and np.bincount(pairs // problem.m).max() > 1:
                continue
        if math.isfinite(r.max_work) and (best is None or r.max_work < best[1]):
            best = (np.asarray(a, np.int32), float(r.max_work))
    return best


def _glpk_point(problem: Problem, c: Coefficients, cap: Any, r: Any,
                m: dict) -> tuple[np.ndarray, float] | None:
    """GLPK's placement and its ``W_max`` evaluated exactly by the work model (not GLPK's
    objective value, which its tolerances blur), or None when GLPK returned no point."""
    if r.x.size == 0 or not bool(np.all(np.isfinite(r.x))):
        return None
    K, I = problem.n_tasks, problem.m
    chi = r.x[m["col_chi"]:m["col_chi"] + I * K].reshape(I, K)
    a = np.argmax(chi > 0.5, axis=0).astype(np.int32)
    w, _ = _core.tasks_evaluate(problem._dict(cap), c.as_tuple(), a)
    return a, float(w)


def _solve_model(m: dict, time_limit, mip_gap, progress, write, x0=None, lb=None, ub=None,
                 presolve=False):
    from .. import milp

    A = (m["a_row"], m["a_col"], m["a_val"], (m["n_rows"], m["n_cols"]))
    return milp.solve(m["c"], A=A if m["n_rows"] else None,
                      b_lower=m["row_lb"] if m["n_rows"] else None,
                      b_upper=m["row_ub"] if m["n_rows"] else None,
                      lb=m["lb"] if lb is None else lb, ub=m["ub"] if ub is None else ub,
                      integrality=m["kind"], time_limit=time_limit, mip_gap=mip_gap,
                      progress=progress, write=write, x0=x0, presolve=presolve)


def _start_point(m: dict, problem: Problem, a: np.ndarray, limit: float | None):
    """A full point of the model for the assignment `a` (its other columns completed by a
    solve with every ``chi`` fixed), or None when that solve finds none in time."""
    K, I = problem.n_tasks, problem.m
    lb, ub = np.array(m["lb"], dtype=np.float64), np.array(m["ub"], dtype=np.float64)
    cols = m["col_chi"] + np.arange(I, dtype=np.int64)[:, None] * K + np.arange(K)[None, :]
    on = np.zeros((I, K))
    on[a, np.arange(K)] = 1.0
    lb[cols.ravel()] = on.ravel()
    ub[cols.ravel()] = on.ravel()
    try:
        r = _solve_model(m, limit, None, False, None, lb=lb, ub=ub, presolve=True)
    except WpartError as exc:
        if isinstance(exc, CancelledError):
            raise
        return None
    if r.x.size != m["n_cols"] or not np.all(np.isfinite(r.x)) or \
            r.status not in ("optimal", "feasible"):
        return None
    return r.x


_LOAD_PER_BUILD = 6.0


def _gap_to(w: float, lb: float) -> float:
    """The relative gap of a placement of ``W_max`` `w` to the lower bound `lb`."""
    return 0.0 if w <= lb else (math.inf if lb <= 0 else (w - lb) / lb)


#: The reference ``W_max`` is scaled into [1, 2) unless it lies in [1/8, 8] already. GLPK's
#: tolerances are absolute (1e-7): with wpart.milp.unit_scale's [2**-16, 2**16] a W near
#: 2e-5 was resolved to 0.5 % only.
_UNIT_WINDOW = 8.0
#: GLPK solves at most this many times, rescaled to the best placement's W_max found (see
#: solve_milp).
_MAX_ROUNDS = 3
#: "optimal" only when the placement returned is within this (relative) of GLPK's bound.
_OPT_RTOL = 1e-9


def _unit(w: float) -> float:
    """1, or the power of two s with ``s * w`` in [1, 2) when the positive finite `w` lies
    outside [1 / _UNIT_WINDOW, _UNIT_WINDOW]."""
    w = float(w)
    if not (math.isfinite(w) and w > 0) or 1 / _UNIT_WINDOW <= w <= _UNIT_WINDOW:
        return 1.0
    return math.ldexp(1.0, -math.frexp(w)[1] + 1)


def _reference_w(problem: Problem, c: Coefficients, cap: Any) -> float:
    """A reference ``W_max`` without a heuristic start: the smaller of the initial
    placement's (without the memory caps) and greedy's, a placement near the optimum where the
    initial one may be far above it (the W of a beta term it pays and the optimum avoids)."""
    from ._balance import balance

    w = float(_core.tasks_evaluate(problem._dict(None), c.as_tuple(enforce_memory=False),
                                   problem.initial)[0])
    try:
        g = balance(problem, method="greedy", alpha=c.alpha, beta=c.beta, gamma=c.gamma,
                    delta=c.delta, memory_cap=cap).max_work
    except WpartError as exc:
        if isinstance(exc, CancelledError):
            raise
        return w
    return min(w, g) if math.isfinite(w) and w > 0 else g


def _scaled(problem: Problem, c: Coefficients, scale: float) -> tuple[Problem, Coefficients]:
    """The problem and coefficients of ``scale * W`` (W is linear in alpha_r, beta, gamma,
    delta)."""
    if scale == 1.0:
        return problem, c
    cs = Coefficients(alpha=c.alpha * scale, beta=c.beta * scale, gamma=c.gamma * scale,
                      delta=c.delta * scale)
    if problem.rank_alpha is not None:
        problem = problem.with_(rank_alpha=np.asarray(problem.rank_alpha) * scale)
    return problem, cs


def _heuristic_only(problem: Problem, c: Coefficients, cap: Any, heur: tuple, m: dict,
                    tl: float, load_s: float, t0: float) -> TasksResult:
    """The result of a time-limited solve with no time left for GLPK: the heuristic's
    placement as the incumbent, status ``"time_limit"``."""
    lb = load_bound(problem, c)
    gap = _gap_to(heur[1], lb)
    stats = {"solver_status": "not_run", "seconds": time.perf_counter() - t0,
             "solver_seconds": 0.0, "n_cols": m["n_cols"], "n_rows": m["n_rows"],
             "n_eq_rows": m["n_eq_rows"], "nnz": int(m["a_row"].size), "form": m["form"],
             "fwmp": bool(m["fwmp"]), "w_max_heuristic": float(heur[1]),
             "incumbent": "heuristic", "glpk_start": False, "gap": gap,
             "solver_message": f"not started: about {load_s:.2g} s of model load left no "
                               "time in the limit"}
    msg = (f"time limit of {tl:g} s reached: GLPK's model load (about {load_s:.2g} s) did not "
           f"fit in the time left, so the heuristic start is the incumbent, within {gap:.2%} "
           "of the bound")
    return make_result(problem, c, cap, heur[0], np.array([heur[1]]), "milp", stats,
                       status="time_limit", message=msg, lower_bound=min(lb, heur[1]))


@positional_deprecated("alpha", "beta", "gamma", "delta", "memory_cap", "preserve_clusters",
                       "time_limit")
@bounded_ranks
def solve_milp(problem: Problem, *, alpha: float = 1.0, beta: float = 0.0, gamma: float = 0.0,
               delta: float = 0.0, memory_cap: Any = None, preserve_clusters: bool = False,
               time_limit: float | None = None, form: str = "compact",
               formulation: str = "auto", mip_gap: float | None = None,
               write: str | os.PathLike | None = None,
               progress: bool | Callable[[float, float], None] = False,
               warm_start: bool = True) -> TasksResult:
    """Minimise ``W_max`` exactly with GLPK (the MILP of Sec. V of the paper).

    Parameters
    ----------
    problem : Problem
    alpha, beta, gamma, delta : float
        Work-model coefficients (``gamma`` scales on-rank bytes).
    memory_cap : float or array_like, optional
        Per-rank memory cap (overrides the problem's).
    preserve_clusters : bool
        Add ``sum_i phi[i, n] = 1``: every block's tasks on one rank (not in the paper; the
        space reachable by block-clustered CCM-LB).
    time_limit : float, optional
        Seconds (None: none). Reaching it returns status ``"time_limit"`` with GLPK's best
        incumbent (``success`` False when it has none: the fields then describe the initial
        assignment).
    form : {"compact", "paper"}
        Model form (see :func:`milp_model`); both have the same optimum.
    formulation : {"auto", "comcp", "fwmp"}
        Paper form only: COMCP (Sec. V-B) or FWMP (Sec. V-C); ``"auto"`` picks COMCP when
        ``beta = gamma = delta = 0``.
    mip_gap : float, optional
        Relative gap at which GLPK stops (status ``"feasible"`` when it stops there short of
        optimality).
    write : path, optional
        Also write the model as ``.lp`` or ``.mps``.
    progress : bool or callable
        A progress bar, or ``progress(done, total)``.
    warm_start : bool, default True
        Start from the best heuristic placement: CCM-LB with ``subclusters="fill"`` (which
        also tries greedy's placement as a start) and greedy, under the same model and caps
        (with `preserve_clusters`: CCM-LB with whole block clusters, and greedy when it keeps
        the blocks whole). Its placement is the incumbent: the result is never worse than it,
        and with `time_limit` a run stopped before GLPK found anything better returns it with
        status ``"time_limit"`` (``stats["incumbent"]``: ``"heuristic"`` or ``"glpk"``,
        ``stats["w_max_heuristic"]``).

    Returns
    -------
    TasksResult
        Status ``"optimal"``, ``"feasible"``, ``"time_limit"`` or ``"infeasible"`` (no
        assignment fits the memory caps: ``max_load`` is inf). GLPK's placement is evaluated
        exactly with the work model and compared with the heuristic start: the status is
        ``"optimal"`` only when the placement returned is within 1e-9 (relative) of GLPK's
        proven bound. GLPK's optimum holds up to its tolerances only, and where the terms of
        ``W`` differ by many orders of magnitude (loads of 1e-6 beside bytes times 1e5)
        its placement can evaluate above its objective, or above a heuristic's: then the
        best placement known is returned with status ``"feasible"`` (so is the heuristic
        start when GLPK fails, with ``stats["incumbent"]`` ``"heuristic"``). ``lower_bound``
        is GLPK's bound (or the load bound, whichever is larger), never above ``max_load``,
        so ``gap`` is the paper's ``(objective - bound) / bound`` (Sec. VII-A). ``stats``
        holds ``solver_status``, ``objective``, ``bound``, ``glpk_gap``, ``w_max_glpk`` (the
        exact ``W_max`` of GLPK's placement), ``seconds``, ``n_cols``, ``n_rows``,
        ``n_eq_rows``, ``nnz``, ``rounds`` and ``work_scale``: GLPK's tolerances are
        absolute, so where the work is far from 1 (a reference ``W_max``, the heuristic
        start's, else the smaller of the initial placement's and greedy's, outside [1/8, 8])
        the model solved, and the one `write` saves, is that of ``work_scale * W`` (a power
        of two: the same optimum, exactly scaled); when GLPK's best placement lies outside
        that window the model is solved again in its units, from it (``rounds``, at most 3).
        ``objective`` and ``bound`` are in the work's own units (the last solve's).

    Raises
    ------
    wpart.SolverError
        GLPK failed (with no heuristic start to return), or wpart was built without GLPK.
    """
    _need_problem(problem)
    c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
    tl = as_time_limit(time_limit)
    _model_options(c, form, formulation, preserve_clusters)  # (before the heuristic's work)
    t0 = time.perf_counter()
    cap = problem.caps(memory_cap)
    heur = _heuristic(problem, c, cap, bool(preserve_clusters), None if tl is None else tl / 2) \
        if as_bool(warm_start, "warm_start") else None
    scale = _unit(heur[1] if heur is not None else _reference_w(problem, c, cap))
    opts = dict(memory_cap=memory_cap, preserve_clusters=preserve_clusters, form=form,
                formulation=formulation)
    best, src = heur, "heuristic"  # the best placement known (W_max evaluated exactly)
    r = failure = m = None
    glpk_w, started = math.nan, False
    for rnd in range(_MAX_ROUNDS):
        tb = time.perf_counter()
        ps, cs = _scaled(problem, c, scale)
        m_new = milp_model(ps, alpha=cs.alpha, beta=cs.beta, gamma=cs.gamma, delta=cs.delta,
                           **opts)
        # GLPK's model load and presolve run before its clock starts and cannot be cut
        # short; they cost about _LOAD_PER_BUILD times the model build (measured: 0.29-0.30 s
        # against a 0.04 s build at 1.1 M nonzeros), so a solve that cannot fit is not started
        load_s = _LOAD_PER_BUILD * (time.perf_counter() - tb)
        x0 = None
        if best is not None and (tl is None or tl - (time.perf_counter() - t0) >= 2 * load_s):
            # GLPK's first incumbent: the best placement known, completed
            left = None if tl is None else max((tl - (time.perf_counter() - t0)) / 4 - load_s,
                                               1e-3)
            x0 = _start_point(m_new, problem, best[0], left)
        left = None if tl is None else max(tl - (time.perf_counter() - t0), 1e-3)
        if best is not None and left is not None and left < load_s:
            if r is None:
                return _heuristic_only(problem, c, cap, heur, m_new, tl, load_s, t0)
            break  # no time for another round: the last one's answer
        try:
            r_new = _solve_model(m_new, None if left is None else max(left - load_s, 1e-3),
                                 mip_gap, progress, write, x0=x0)
        except SolverError as exc:
            if best is None:
                raise
            failure = exc  # GLPK failed (or its point failed the check): the best one known
            break
        r, m, started = r_new, m_new, x0 is not None
        if r.status == "infeasible":
            break
        g = _glpk_point(problem, c, cap, r, m)
        glpk_w = math.nan if g is None else g[1]
        if g is not None and (best is None or g[1] <= best[1]):
            best, src = g, "glpk"
        # GLPK resolves W only to its absolute tolerances in the units of the model: where the
        # best W found lies far from the reference the scale came from (the initial placement
        # paid a term the optimum avoids, or GLPK's point evaluates far from its objective),
        # solve again in the units of that W, from that placement
        if r.status != "optimal" or best is None or _unit(best[1] * scale) == 1.0:
            break
        scale = _unit(best[1])
    if r is not None and r.status == "infeasible" and failure is None:
        failure = _refute_infeasible(problem, c, cap, best, bool(preserve_clusters))
    return _result(problem, c, cap, heur, best, src, r, m, failure, scale, glpk_w, tl, t0,
                   rnd + 1, started)


def _refute_infeasible(problem: Problem, c: Coefficients, cap: Any, best,
                       preserve: bool) -> SolverError | None:
    """GLPK's "infeasible" refuted by a placement within the caps (the heuristic start, or the
    initial placement): a SolverError to report (raised without a start to return), or None
    when no placement is known to fit."""
    what = "the heuristic start"
    if best is None:
        a = problem.initial
        if preserve and problem.task_block is not None:
            free = problem.migratable & (problem.task_block >= 0)
            pairs = np.unique(problem.task_block[free].astype(np.int64) * problem.m + a[free])
            if pairs.size and np.bincount(pairs // problem.m).max() > 1:
                return None
        if not math.isfinite(_core.tasks_evaluate(problem._dict(cap), c.as_tuple(), a)[0]):
            return None
        what = "the initial placement"
    exc = SolverError(f"GLPK reported the model infeasible, but {what} fits the memory caps: "
                      "a numerical failure of GLPK")
    if best is None:
        raise exc
    return exc


def _result(problem: Problem, c: Coefficients, cap: Any, heur, best, src: str, r, m, failure,
            scale: float, glpk_w: float, tl, t0: float, rounds: int,
            started: bool) -> TasksResult:
    """solve_milp's result from its last GLPK solve `r` (None when GLPK failed: `failure`)
    and the best placement known, `best` (from GLPK or the heuristic, `src`).

    GLPK's "optimal" holds up to its tolerances only (the pruning tolerance tol_obj, absolute
    primal and dual tolerances in the LP, 1e-5 on integrality), and its objective is that of
    its point before rounding: the placement is evaluated exactly, and the status is
    ``"optimal"`` only when the best placement known is within _OPT_RTOL of GLPK's bound
    (the optimum it proved, up to its tolerances). Otherwise (GLPK's placement evaluates above
    its objective, or a known placement is better than GLPK's "optimum") the status is
    ``"feasible"``: a better point than the one GLPK called optimal disproves its proof, and a
    placement above GLPK's bound is not proven optimal. The lower bound, GLPK's bound or the
    load bound (the larger), is clamped to the W_max returned (make_result): a bound above a
    known placement is none."""
    stats: dict[str, Any] = {"seconds": 0.0, "rounds": rounds, "work_scale": scale}
    if r is not None:
        stats.update({"solver_status": r.status, "objective": float(r.objective) / scale,
                      "bound": float(r.bound) / scale, "glpk_gap": float(r.gap),
                      "solver_seconds": float(r.seconds), "nodes": int(r.nodes),
                      "solver_message": r.message, "w_max_glpk": glpk_w})
    if m is not None:
        stats.update({"n_cols": m["n_cols"], "n_rows": m["n_rows"], "n_eq_rows": m["n_eq_rows"],
                      "nnz": int(m["a_row"].size), "form": m["form"], "fwmp": bool(m["fwmp"])})
    if heur is not None:
        stats["w_max_heuristic"] = float(heur[1])
        stats["glpk_start"] = started  # GLPK's first incumbent: the best placement known
    if r is not None and r.status == "infeasible" and failure is None:
        stats["has_answer"] = False
        stats["seconds"] = time.perf_counter() - t0
        res = make_result(problem, c, cap, problem.initial, np.array([np.inf]), "milp", stats,
                          status="infeasible",
                          message="infeasible: no assignment satisfies the memory caps"
                                  + (" with the pinned tasks at home" if m["n_pinned"] else "")
                                  + " (max_load is inf; the arrays describe the initial "
                                  "assignment)")
        return replace_fields(res, max_load=math.inf, imbalance=math.inf)
    stopped = r is not None and (getattr(r, "stopped_by", "none") == "time_limit"
                                 or r.status == "time_limit")
    stats["seconds"] = time.perf_counter() - t0
    if best is None:
        if stopped:
            stats["has_answer"] = False
            return make_result(problem, c, cap, problem.initial, np.array([np.nan]), "milp",
                               stats, status="time_limit",
                               message=f"time limit of {tl:g} s reached before GLPK found an "
                                       "incumbent; the fields describe the initial assignment")
        raise SolverError(f"no incumbent found: {r.message}")
    a, w = best
    if heur is not None:
        stats["incumbent"] = src
    b = math.nan if r is None else float(r.bound) / scale
    # a placement known below GLPK's bound disproves it (GLPK's tolerances): the load bound
    disproved = math.isfinite(b) and w < b - _OPT_RTOL * abs(b)
    lb = load_bound(problem, c)
    if math.isfinite(b) and not disproved:
        lb = max(lb, b)
    gap = _gap_to(w, lb)
    stats["gap"] = gap
    glpk_opt = r is not None and r.status == "optimal" and not stopped
    if glpk_opt and math.isfinite(b) and not disproved and w <= b + _OPT_RTOL * abs(b):
        status, msg = "optimal", "optimal (GLPK)"
    elif disproved and not stopped and failure is None:
        status, msg = "feasible", (f"GLPK's bound {b:.17g} is above the placement returned "
                                   f"({'heuristic start' if src == 'heuristic' else 'GLPK'}, "
                                   f"W_max {w:.17g}): a numerical failure of GLPK (its "
                                   f"tolerances), so not proven optimal; within {gap:.2%} of "
                                   "the load bound")
    elif failure is not None:
        who = "the heuristic start" if src == "heuristic" else "GLPK's placement of a first solve"
        status, msg = "feasible", (f"GLPK failed ({failure}); {who} is returned (within "
                                   f"{gap:.2%} of the bound)")
    elif stopped:
        who = "GLPK's best incumbent" if src == "glpk" else "the heuristic start is the best " \
                                                            "incumbent"
        status, msg = "time_limit", (f"time limit of {tl:g} s reached: {who}, within "
                                     f"{gap:.2%} of the bound")
    elif src == "heuristic":
        status, msg = "feasible", (f"GLPK ended ({r.message}) above the heuristic start, "
                                   f"which is returned (within {gap:.2%} of the bound)")
    elif glpk_opt and r.bound == r.objective:
        status, msg = "feasible", (f"GLPK reported the optimum {float(r.objective) / scale:.17g}"
                                   f", but its placement evaluates to {w:.17g} (GLPK's "
                                   f"tolerances): not proven optimal, within {gap:.2%} of "
                                   "the bound")
    else:
        status, msg = "feasible", (f"GLPK stopped ({r.message}) with an incumbent within "
                                   f"{gap:.2%} of its bound")
    return make_result(problem, c, cap, a, np.array([w]), "milp", stats, status=status,
                       message=msg, lower_bound=lb)
