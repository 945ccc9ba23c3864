"""``wpart.tasks.compare``: every task-placement method on one problem, tabulated."""

from __future__ import annotations

from typing import Any, Sequence

from .._compare import Candidate, Comparison, _pick, run_candidates

__all__ = ["compare"]

#: Methods tried by default: the balance() methods and the exact MILP (when GLPK is built in).
COMPARE_METHODS = ("none", "greedy", "tempered", "ccm", "brute_force", "milp")


def compare(
    problem: Any,
    *,
    methods: Sequence[str] | None = None,
    time_limit: float | None = 10.0,
    memory_cap: Any = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    gamma: float = 0.0,
    delta: float = 0.0,
    seed: int = 0,
    progress: Any = False,
) -> Comparison:
    """Run every placement method on `problem` and tabulate the largest work of a rank.

    The methods are those of :func:`wpart.tasks.balance` (``none`` keeps the initial
    placement) and ``milp`` (:func:`wpart.tasks.solve_milp`, exact, needs GLPK). The exact
    methods (``brute_force`` on small problems, ``milp``) give the gap's bound when they prove
    an optimum; otherwise each result's own lower bound is used.

    Parameters
    ----------
    problem : wpart.tasks.Problem
        The tasks, blocks, edges and initial ranks.
    methods : sequence of str, optional
        A subset of ``("none", "greedy", "tempered", "ccm", "brute_force", "milp")``.
    time_limit : float or None, optional
        Seconds per method (default 10).
    memory_cap : float or array_like, optional
        Per-rank memory cap, as in :func:`wpart.tasks.balance`.
    alpha, beta, gamma, delta : float, optional
        The work model's coefficients, as in :func:`wpart.tasks.balance`.
    seed : int, optional
        Seed of the randomised methods.
    progress : bool or callable, optional
        True: one line per method on stderr.

    Returns
    -------
    Comparison
        ``.table`` rows: method, max_work, gap, seconds, status, message; ``.results[name]``
        the :class:`~wpart.tasks.TasksResult`.

    Raises
    ------
    WpartValueError
        If a name in `methods` is unknown, `time_limit` is not positive, `seed` is not an
        integer in ``[0, 2**64)``, `memory_cap` is negative or NaN or has another length than
        ``problem.m``, or a coefficient is negative or not finite (checked once, before any
        method runs, as :func:`wpart.tasks.balance` checks them).
    WpartTypeError
        If `problem` is not a :class:`~wpart.tasks.Problem`, or `seed`, `memory_cap` or a
        coefficient is not a number.

    Examples
    --------
    >>> from wpart import tasks
    >>> c = tasks.compare(tasks.paper_toy(), methods=["greedy", "brute_force"])
    >>> [(r["method"], r["max_work"]) for r in c.table]
    [('greedy', 3.0), ('brute_force', 2.5)]
    """
    from .._errors import WpartTypeError
    from . import Problem, balance, solve_milp

    if not isinstance(problem, Problem):
        raise WpartTypeError(f"problem must be a wpart.tasks.Problem, got "
                             f"{type(problem).__name__}")
    from .._validate import as_seed
    from ._problem import Coefficients

    names = _pick(methods, COMPARE_METHODS, "methods")
    # the shared arguments are checked once, here: a bad one is the caller's error (naming
    # it), not a "refused" row for every method
    seed = as_seed(seed)
    problem.caps(memory_cap)
    Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
    coef = {"alpha": alpha, "beta": beta, "gamma": gamma, "delta": delta,
            "memory_cap": memory_cap}
    cands = []
    for name in names:
        if name == "milp":
            cands.append(Candidate(name, lambda tl: solve_milp(problem, time_limit=tl, **coef),
                                   exact=True))
        elif name == "brute_force":
            cands.append(Candidate(name, lambda tl: balance(problem, method="brute_force",
                                                            time_limit=tl, **coef), exact=True))
        else:
            cands.append(Candidate(name, lambda tl, n=name: balance(
                problem, method=n, seed=seed, time_limit=tl, **coef)))
    return run_candidates("tasks", cands, objective="max_work", time_limit=time_limit,
                          value=lambda r: r.max_load, progress=progress)
