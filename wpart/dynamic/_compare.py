"""``wpart.dynamic.compare``: balancers on one platform, over seeds, tabulated.

Called with a dict of balancers and no ``time_limit`` it returns the per-(balancer, seed)
structured array it always returned (wrapped: indexing, ``.shape`` and ``len`` work as before);
every call's result also has ``.table`` (one row per balancer: mean makespan over the seeds,
gap to the best, seconds, status), ``.to_dict()``, a readable ``print`` and ``.plot()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from .._compare import Candidate, Comparison, run_candidates
from .._keywords import checked_keywords
from .._validate import as_sequence

__all__ = ["compare", "DynamicComparison"]


@dataclass(frozen=True, eq=False, kw_only=True)
class DynamicComparison(Comparison):
    """A :class:`wpart._compare.Comparison` that also holds the per-(balancer, seed) rows.

    Attributes
    ----------
    runs : ndarray, structured
        One row per (balancer, seed): ``algo, seed, makespan, idle_pct, n_evals, n_barriers,
        n_blocks, eval_time, speedup``; indexing the comparison (``c["makespan"]``) reads it.
    """

    runs: Any = field(default=None, repr=False)

    def __getitem__(self, key: Any) -> Any:
        return self.runs[key]

    def __len__(self) -> int:
        return len(self.runs)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of :attr:`runs`."""
        return self.runs.shape


class _Runs:
    """The runs of one balancer over the seeds, as a result for :func:`run_candidates`."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows
        ms = rows["makespan"]
        self.makespan = float(np.mean(ms)) if ms.size and not np.isnan(ms).any() else None
        self.status = "feasible" if self.makespan is not None else "time_limit"
        self.message = "" if self.makespan is not None else "a run reached its time limit"
        self.success = self.makespan is not None


@checked_keywords
def compare(
    platform: Any,
    algos: Mapping[str, Any] | None = None,
    *,
    seeds: Iterable[int] = range(10),
    time_limit: float | None = None,
    progress: bool = True,
    n: int | None = None, options: Mapping[str, Any] | None = None,
    eval_cost: float = 0.1, eval_cost_mode: str = "const",
    eval_model: tuple[float, float] = (0.1, 0.0), eval_scale: float = 1.0,
    dispatch_overhead: float = 0.0, trace: bool = False, max_events: int = 0,
) -> DynamicComparison:
    """Simulate several balancers over several seeds (common random numbers per seed).

    Parameters
    ----------
    platform : Platform or str
        A platform or a preset name.
    algos : dict of str to Balancer, callable or str, optional
        A Balancer is re-created per run with ``.fresh()`` (the given one is left unstarted);
        a callable must return a fresh Balancer; a string names a balancer of
        :data:`wpart.dynamic.BALANCERS`. Default: every balancer of ``BALANCERS`` by name.
    seeds : iterable of int, optional
        Seeds of the runs (default ``range(10)``).
    time_limit : float or None, optional
        Seconds per simulated run (None: no limit); a stopped run gives NaN times.
    progress : bool, optional
        A tqdm bar over the runs.
    n, options, eval_cost, eval_cost_mode, eval_model, eval_scale, dispatch_overhead, \
    trace, max_events : optional
        The options of :func:`wpart.dynamic.simulate` for every run (see there; ``trace``
        is False here): ``options`` holds the options of balancers given by name.

    Returns
    -------
    DynamicComparison
        ``.table``: one row per balancer (method, makespan (mean over the seeds), gap to the
        best, seconds, status); ``.runs`` (and indexing): one row per (balancer, seed) with
        ``algo, seed, makespan, idle_pct, n_evals, n_barriers, n_blocks, eval_time, speedup``.

    Raises
    ------
    WpartValueError
        If `algos` is empty or names an unknown balancer.
    WpartTypeError
        If a value of `algos` is not a Balancer, a callable or a name.

    Examples
    --------
    >>> import wpart.dynamic as D
    >>> c = D.compare("linear4", {"greedy": "greedy", "static": "static"}, seeds=[0],
    ...               progress=False)
    >>> [r["method"] for r in c.table]
    ['greedy', 'static']
    """
    from . import BALANCERS
    from ._sim_result import compare as _compare_runs

    if algos is None:
        algos = {name: name for name in BALANCERS.names}
    # a sequence, checked before it is iterated (None, a number, a sparse matrix of 2**40
    # rows: a WpartError naming `seeds`)
    seeds = as_sequence(seeds, "seeds")
    kw = dict(n=n, options=options, eval_cost=eval_cost, eval_cost_mode=eval_cost_mode,
              eval_model=eval_model, eval_scale=eval_scale,
              dispatch_overhead=dispatch_overhead, trace=trace, max_events=max_events)
    if time_limit is not None:
        kw["time_limit"] = time_limit
    if not isinstance(algos, Mapping) or not algos:
        _compare_runs(platform, algos, seeds=seeds, progress=False, **kw)  # its error
    parts: list[np.ndarray] = []

    def one(k: Any) -> _Runs:
        rows = _compare_runs(platform, {k: algos[k]}, seeds=seeds, progress=False, **kw)
        parts.append(rows)
        return _Runs(rows)

    cands = [Candidate(str(k), (lambda tl, k=k: one(k))) for k in algos]
    c = run_candidates("dynamic", cands, objective="makespan", time_limit=time_limit,
                       bound=lambda r: None, best_as_bound=True,
                       progress=progress if callable(progress) else False)
    if len(parts) != len(cands):  # a balancer was refused: raise its error as before
        _compare_runs(platform, algos, seeds=seeds, progress=False, **kw)
    runs = np.concatenate(parts) if parts else np.zeros(0)
    return DynamicComparison(family=c.family, objective=c.objective, table=c.table,
                             lower_bound=c.lower_bound, results=c.results,
                             time_limit=c.time_limit, runs=runs)
