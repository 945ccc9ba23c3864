"""The exact MILP of spec 003 section 2 (the paper's COMCP / FWMP and a compact equivalent).

The model is built in C (``csrc/milp/tasks_milp.c``) and solved with GLPK through
:func:`wpart.milp.solve`; the incumbent is decoded and re-evaluated with the C work model.
"""

from __future__ import annotations
from .._errors import WpartValueError

import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _core
from .._validate import choice
from ._balance import TasksResult, _result
from ._problem import Coefficients, Problem

__all__ = ["milp_model", "solve_milp"]

FORMS = ("compact", "paper")


def milp_model(problem: Problem, *, alpha: float = 1.0, beta: float = 0.0, gamma: float = 0.0,
               delta: float = 0.0, memory_cap: Any = None, preserve_clusters: bool = False,
               form: str = "compact", formulation: str = "auto") -> dict:
    """The MILP model as arrays (COO matrix, bounds, kinds) plus its sizes.

    ``form="paper"`` gives the paper's rows exactly (spec 2.4; sizes of spec 2.6);
    ``formulation`` ``"auto"`` picks COMCP when ``beta = gamma = delta = 0``, ``"fwmp"``
    forces FWMP (paper form only). ``form="compact"`` applies equivalent reductions (sparse
    (17), one memory row per rank, continuous auxiliaries, communication variables only on the
    diagonal, self-edges folded in).
    """
    c = Coefficients(alpha, beta, gamma, delta)
    f = choice(form, "form", FORMS)
    fm = choice(formulation, "formulation", ("auto", "comcp", "fwmp"))
    if fm == "comcp" and (c.beta > 0 or c.gamma > 0 or c.delta > 0):
        raise WpartValueError("`formulation`='comcp' needs beta = gamma = delta = 0")
    if preserve_clusters and f == "paper":
        raise WpartValueError("`preserve_clusters` needs form='compact'")
    cap = problem.caps(memory_cap)
    m = _core.tasks_milp_build(problem._dict(cap), c.as_tuple(), {"paper": 0, "compact": 1}[f], fm == "fwmp",
                               bool(preserve_clusters))
    m["form"] = f
    m["n_ineq_rows"] = m["n_rows"] - m["n_eq_rows"]
    return m


def _solve_model(m: dict, time_limit, mip_gap, progress, write):
    from .. import milp

    A = (m["a_row"], m["a_col"], m["a_val"], (m["n_rows"], m["n_cols"]))
    return milp.solve(m["c"], A=A if m["n_rows"] else None,
                      b_lower=m["row_lb"] if m["n_rows"] else None,
                      b_upper=m["row_ub"] if m["n_rows"] else None, lb=m["lb"], ub=m["ub"],
                      integrality=m["kind"], time_limit=time_limit, mip_gap=mip_gap,
                      progress=progress, write=write)


def solve_milp(problem: Problem, alpha: float = 1.0, beta: float = 0.0, gamma: float = 0.0,
               delta: float = 0.0, memory_cap: Any = None, preserve_clusters: bool = False,
               time_limit: float | None = None, *, form: str = "compact",
               formulation: str = "auto", mip_gap: float | None = None,
               write: str | os.PathLike | None = None,
               progress: bool | Callable[[float, float], None] = False) -> TasksResult:
    """Minimise ``W_max`` exactly with GLPK (spec 003 section 2).

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
        Seconds; the best incumbent is returned with status ``"feasible"``.
    form : {"compact", "paper"}
        Model form (see :func:`milp_model`); both have the same optimum.
    mip_gap : float, optional
        Relative gap at which GLPK stops.
    write : path, optional
        Also write the model as ``.lp`` or ``.mps``.

    Returns
    -------
    TasksResult
        ``stats`` holds ``status`` (``optimal``/``feasible``/``infeasible``/``no_solution``),
        ``objective``, ``bound``, ``gap`` (``(objective - bound) / bound``, the paper's
        definition), ``glpk_gap``, ``seconds``, ``n_cols``, ``n_rows``, ``n_eq_rows``, ``nnz``.

    Raises
    ------
    ValueError
        Infeasible instance (no assignment fits the memory caps) or bad arguments.
    wpart.SolverError
        GLPK failed, or wpart was built without GLPK.
    """
    c = Coefficients(alpha, beta, gamma, delta)
    t0 = time.perf_counter()
    m = milp_model(problem, alpha=c.alpha, beta=c.beta, gamma=c.gamma, delta=c.delta,
                   memory_cap=memory_cap, preserve_clusters=preserve_clusters, form=form,
                   formulation=formulation)
    r = _solve_model(m, time_limit, mip_gap, progress, write)
    stats = {"status": r.status, "objective": float(r.objective), "bound": float(r.bound),
             "glpk_gap": float(r.gap), "seconds": time.perf_counter() - t0,
             "solver_seconds": float(r.seconds), "nodes": int(r.nodes), "n_cols": m["n_cols"],
             "n_rows": m["n_rows"], "n_eq_rows": m["n_eq_rows"], "nnz": int(m["a_row"].size),
             "form": m["form"], "fwmp": bool(m["fwmp"]), "message": r.message}
    if r.status == "infeasible":
        raise WpartValueError("infeasible: no assignment satisfies the memory caps "
                         f"(GLPK: {r.message})")
    if r.status not in ("optimal", "feasible"):
        raise _core.SolverError(f"no incumbent found: {r.message}")
    K, I = problem.n_tasks, problem.n_ranks
    chi = r.x[m["col_chi"]:m["col_chi"] + I * K].reshape(I, K)
    a = np.argmax(chi > 0.5, axis=0).astype(np.int32)
    b = stats["bound"]
    obj = stats["objective"]
    stats["gap"] = 0.0 if obj == b else (math.inf if b <= 0 else (obj - b) / b)
    cap = problem.caps(memory_cap)
    res = _result(problem, c, cap, a, np.array([obj]), "milp", stats)
    stats["optimal"] = r.status == "optimal"
    return res
