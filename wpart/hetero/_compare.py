"""``wpart.hetero.compare``: every distribution method on one profile set, tabulated."""

from __future__ import annotations

from typing import Any, Sequence

from .._compare import Candidate, Comparison, _pick, run_candidates
from .._docs import fill_doc

__all__ = ["compare"]

#: Methods tried by default: the single distributions, then the fastest point of each front.
COMPARE_METHODS = ("optimal_time", "load_balanced", "optimal_energy", "pareto_front",
                   "threshold_dp_front", "milp_front")


@fill_doc
def compare(profiles: Any, n: int, *, methods: Sequence[str] | None = None,
            time_limit: float | None = 10.0, progress: Any = False) -> Comparison:
    """Run every distribution method on `profiles` for workload `n` and tabulate them.

    The objective is the parallel execution time; the dynamic energy of each distribution is
    shown beside it. For a front method the row is its fastest point (and ``points`` counts
    the front). :func:`~wpart.hetero.optimal_time` is exact, so its time bounds the gaps.

    Parameters
    ----------
    profiles : ProfileSet
        One discrete time (and energy) profile per processor.
    n : int
        Workload to distribute.
    methods : sequence of str, optional
        A subset of ``("optimal_time", "load_balanced", "optimal_energy", "pareto_front",
        "threshold_dp_front", "milp_front")`` (default: all).
    {compare_time_limit}
    {compare_progress}

    Returns
    -------
    Comparison
        ``.table`` rows: method, time, energy, points, gap, seconds, status, message.

    {compare_raises}

    Examples
    --------
    >>> from wpart import hetero
    >>> ps = hetero.synthetic("dgemm-like", seed=0)
    >>> c = hetero.compare(ps, 2560, methods=["optimal_time", "load_balanced"])
    >>> c.best
    'optimal_time'
    """
    import wpart.hetero  # each method is the function of its name

    def runner(name: str) -> Any:
        f = getattr(wpart.hetero, name)
        return lambda tl: f(profiles, n, time_limit=tl)

    names = _pick(methods, COMPARE_METHODS, "methods")
    cands = [Candidate(name, runner(name),
                       exact=name in ("optimal_time", "pareto_front", "threshold_dp_front",
                                      "milp_front"))
             for name in names]

    def point(r: Any) -> Any:
        return r.fastest() if hasattr(r, "fastest") else r

    def value(r: Any) -> float | None:
        p = point(r)
        return None if getattr(p, "dist", None) is None else float(p.time)

    def extra(r: Any) -> dict:
        p = point(r)
        row = {"energy": None if getattr(p, "dist", None) is None else float(p.energy)}
        row["points"] = int(r.size) if hasattr(r, "fastest") else 1
        return row

    return run_candidates("hetero", cands, objective="time", time_limit=time_limit,
                          value=value, bound=lambda r: None, extra=extra, progress=progress)
