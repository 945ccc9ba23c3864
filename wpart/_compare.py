"""Run every applicable method of a family on one input and tabulate them.

Each family's ``compare()`` (``wpart.compare_1d``, ``wpart.spatial.compare``,
``wpart.hetero.compare``, ``wpart.tasks.compare``, ``wpart.dynamic.compare``) lists its methods
as :class:`Candidate` objects and hands them to :func:`run_candidates`, which runs each one with
the same per-method time limit, times it, catches a refusal (a method that does not apply to the
input) and returns a :class:`Comparison`: ``.table`` is a list of rows ``{"method", <objective>,
"gap", "seconds", "status", "message"}``, printed as an aligned table, drawn by ``.plot()``.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ._docs import fill_doc
from ._errors import WpartError, WpartTimeoutError, WpartTypeError, WpartValueError
from ._result import equal, jsonable, new_axes

__all__ = ["Candidate", "Comparison", "run_candidates"]


@dataclass(frozen=True)
class Candidate:
    """One method to compare.

    Attributes
    ----------
    name : str
        The method's name in the table.
    run : callable
        ``run(time_limit)`` returns the method's result (time_limit is a float or None).
    exact : bool
        Whether a result with status ``"optimal"`` is a proven optimum (its objective then
        bounds the others' gap).
    """

    name: str
    run: Callable[[float | None], Any]
    exact: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class Comparison:
    """The methods of one family run on one input.

    Attributes
    ----------
    family : str
        ``"1d"``, ``"spatial"``, ``"hetero"``, ``"tasks"`` or ``"dynamic"``.
    objective : str
        The name of the column compared (smaller is better), e.g. ``"max_load"``.
    table : list of dict
        One row per method: ``method``, the objective, ``gap`` (objective / lower bound - 1;
        None when the method gave no answer or no bound is known), ``seconds`` (wall clock),
        ``status`` (the result's, or ``"refused"`` / ``"error"`` when the method raised) and
        ``message``.
    lower_bound : float or None
        The bound the gaps are taken against: the largest lower bound any result reported, or
        the objective of a proven optimum when one was found.
    results : dict
        Method name -> the method's result object (absent for a method that raised).
    time_limit : float or None
        The per-method time limit used.
    status, success, message, stats
        The result protocol: the best method's status (with no answer ``"time_limit"``,
        ``"infeasible"`` or ``"error"``), whether some method answered, one sentence, and
        the counts (``methods``, ``answered``, ``seconds``). Printed as its table; two
        comparisons are equal when every field is (a copy equals its original).
    """

    family: str
    objective: str
    table: list[dict]
    lower_bound: float | None
    results: dict = field(repr=False)
    time_limit: float | None = None

    def __eq__(self, other: object) -> bool:
        """Equal when every field is (arrays element-wise, the results by value): a pickled or
        deep copy equals its original."""
        if type(other) is not type(self):
            return NotImplemented
        return all(equal(getattr(self, f), getattr(other, f))
                   for f in ("family", "objective", "table", "lower_bound", "results",
                             "time_limit"))

    __hash__ = None  # type: ignore[assignment]  (mutable rows: compared by value)

    def _best_row(self) -> dict | None:
        """The row of the method with the smallest objective (None if none answered)."""
        rows = [r for r in self.table if r[self.objective] is not None]
        return min(rows, key=lambda r: r[self.objective]) if rows else None

    @property
    def stats(self) -> dict:
        """``methods`` run, how many ``answered``, and their ``seconds`` summed."""
        return {"methods": len(self.table),
                "answered": sum(r[self.objective] is not None for r in self.table),
                "seconds": float(sum(r["seconds"] for r in self.table))}

    @property
    def best(self) -> str | None:
        """The name of the method with the smallest objective (None if none answered)."""
        row = self._best_row()
        return None if row is None else row["method"]

    @property
    def status(self) -> str:
        """The best method's status; with no answer, ``"time_limit"`` when a method was
        stopped by the time limit, ``"infeasible"`` when one found the input has none, else
        ``"error"`` (every method refused the input or failed)."""
        row = self._best_row()
        if row is not None:
            return row["status"]
        seen = {r["status"] for r in self.table}
        return next((s for s in ("time_limit", "infeasible") if s in seen), "error")

    @property
    def success(self) -> bool:
        """Whether some method gave an answer."""
        return self._best_row() is not None

    @property
    def message(self) -> str:
        """One sentence: how many methods answered, and the best."""
        row = self._best_row()
        if row is None:
            return f"no method of {len(self.table)} gave an answer ({self.status})"
        n = self.stats["answered"]
        return (f"{n} of {len(self.table)} methods gave an answer; the best is {row['method']} "
                f"({self.objective} {row[self.objective]:.6g})")

    def to_dict(self) -> dict:
        """JSON-friendly dict: status, success, message, stats, family, objective,
        lower_bound, time_limit, best and the rows.

        Returns
        -------
        dict
            Plain Python values only (no arrays).
        """
        return {"status": self.status, "success": self.success, "message": self.message,
                "stats": self.stats, "family": self.family, "objective": self.objective,
                "lower_bound": jsonable(self.lower_bound), "time_limit": self.time_limit,
                "best": self.best, "table": [jsonable(dict(r)) for r in self.table]}

    def _extras(self) -> list[str]:
        base = {"method", self.objective, "gap", "seconds", "status", "message"}
        return list(dict.fromkeys(k for r in self.table for k in r if k not in base))

    def _cells(self) -> tuple[list[str], list[list[str]]]:
        extras = self._extras()
        head = ["method", self.objective, *extras, "gap", "seconds", "status"]
        body = []
        num = lambda v: "-" if v is None else (  # noqa: E731
            f"{v:.6g}" if isinstance(v, (int, float)) else str(v))
        for r in self.table:
            v = r[self.objective]
            g = r["gap"]
            body.append([
                r["method"],
                num(v),
                *(num(r.get(k)) for k in extras),
                "-" if g is None else ("inf" if math.isinf(g) else f"{g:.2%}"),
                f"{r['seconds']:.3f}",
                r["status"],
            ])
        return head, body

    def __str__(self) -> str:
        head, body = self._cells()
        widths = [max(len(c) for c in col) for col in zip(head, *body)]
        fmt = lambda cells: "  ".join(  # noqa: E731
            c.ljust(w) if i in (0, len(head) - 1) else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
        lb = "none" if self.lower_bound is None else f"{self.lower_bound:.6g}"
        tl = "none" if self.time_limit is None else f"{self.time_limit:g} s"
        lines = [f"{self.family}: {len(self.table)} methods, lower bound {lb}, "
                 f"time limit {tl} per method", fmt(head), fmt(["-" * w for w in widths])]
        lines += [fmt(b) for b in body]
        notes = [f"  {r['method']}: {r['message']}" for r in self.table
                 if r["status"] in ("refused", "error") and r["message"]]
        if notes:
            lines += ["not run or failed:"] + notes
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Comparison(family={self.family!r}, best={self.best!r}, rows={len(self.table)})"

    def _repr_html_(self) -> str:
        head, body = self._cells()
        th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        trs = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                      for row in body)
        return (f"<p>{html.escape(self.family)}: lower bound {self.lower_bound}</p>"
                f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>")

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Bar chart of the objective per method, the lower bound as a line.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when None.
        **kwargs
            Passed to ``ax.barh``.

        Returns
        -------
        matplotlib Axes
            The Axes drawn on.
        """
        ax = new_axes(ax)
        rows = [r for r in self.table if r[self.objective] is not None]
        names = [r["method"] for r in rows]
        vals = [float(r[self.objective]) for r in rows]
        ax.barh(range(len(rows)), vals, **kwargs)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(names)
        ax.invert_yaxis()
        if self.lower_bound is not None and rows:
            ax.axvline(float(self.lower_bound), color="k", ls="--", label="lower bound")
            ax.legend(loc="lower right")
        ax.set_xlabel(self.objective)
        ax.set_title(f"{self.family}: compare")
        return ax


def check_time_limit(time_limit: Any) -> float | None:
    """`time_limit` validated: None or a positive finite number of seconds.

    Parameters
    ----------
    time_limit : float or None
        Seconds per method.

    Returns
    -------
    float or None
        The limit as a float.

    Raises
    ------
    WpartTypeError
        If it is not a number.
    WpartValueError
        If it is not positive and finite.
    """
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)):
        raise WpartTypeError(f"time_limit must be a number of seconds or None, got "
                             f"{type(time_limit).__name__}")
    if not (math.isfinite(time_limit) and time_limit > 0):
        raise WpartValueError(f"time_limit must be positive and finite, got {time_limit!r}")
    return float(time_limit)


def run_candidates(
    family: str,
    candidates: Sequence[Candidate],
    *,
    objective: str,
    time_limit: float | None,
    value: Callable[[Any], float | None] | None = None,
    bound: Callable[[Any], float | None] | None = None,
    extra: Callable[[Any], dict] | None = None,
    best_as_bound: bool = False,
    progress: Any = False,
) -> Comparison:
    """Run each candidate with `time_limit` and tabulate the results.

    Parameters
    ----------
    family : str
        The family's name (for the table's title).
    candidates : sequence of Candidate
        The methods, in the order of the table.
    objective : str
        The column compared; read from each result as ``getattr(result, objective)`` unless
        `value` is given.
    time_limit : float or None
        Seconds per method (validated).
    value : callable, optional
        ``value(result)`` -> the objective (None when the result holds no answer).
    bound : callable, optional
        ``bound(result)`` -> a lower bound the result proves (default: its ``lower_bound``
        attribute when it has one).
    extra : callable, optional
        ``extra(result)`` -> further columns for the row (e.g. ``{"energy": 3.2}``), printed
        after the objective.
    best_as_bound : bool, optional
        With no lower bound known, take the gaps against the best objective found (for a
        family without a bound, e.g. the dynamic simulations).
    progress : bool or callable, optional
        True: one line per method on stderr; a callable gets ``(done, total)`` after each.

    Returns
    -------
    Comparison
        The table.

    Raises
    ------
    WpartTypeError, WpartValueError
        If `time_limit` is not None or a positive number.
    """
    import sys

    time_limit = check_time_limit(time_limit)
    value = value or (lambda r: getattr(r, objective, None))
    bound = bound or (lambda r: getattr(r, "lower_bound", None))
    rows: list[dict] = []
    results: dict[str, Any] = {}
    bounds: list[float] = []
    n = len(candidates)
    for i, c in enumerate(candidates):
        if progress is True:
            print(f"[{family} compare] {i + 1}/{n} {c.name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            res = c.run(time_limit)
        except WpartError as e:
            # (a timeout is a time limit; anything else, a size cap included, a refusal)
            status = "time_limit" if isinstance(e, WpartTimeoutError) else "refused"
            rows.append({"method": c.name, objective: None, "gap": None,
                         "seconds": time.perf_counter() - t0, "status": status,
                         "message": str(e).splitlines()[0] if str(e) else type(e).__name__})
            continue
        secs = time.perf_counter() - t0
        results[c.name] = res
        ok = getattr(res, "success", True)
        v = value(res) if ok else None
        v = None if v is None else float(v)
        b = bound(res)
        if b is not None and math.isfinite(float(b)):
            bounds.append(float(b))
        if c.exact and getattr(res, "status", "") == "optimal" and v is not None:
            bounds.append(v)
        row = {"method": c.name, objective: v, "gap": None, "seconds": secs,
               "status": str(getattr(res, "status", "done")),
               "message": str(getattr(res, "message", "") or "")}
        if extra is not None and ok:
            row.update(extra(res))
        rows.append(row)
        if callable(progress):
            progress(i + 1, n)
    lb = max(bounds) if bounds else None
    if lb is None and best_as_bound:
        vals = [r[objective] for r in rows if r[objective] is not None]
        lb = min(vals) if vals else None
    for r in rows:
        v = r[objective]
        if v is None or lb is None:
            continue
        r["gap"] = (0.0 if v == 0 else math.inf) if lb == 0 else v / lb - 1.0
    return Comparison(family=family, objective=objective, table=rows, lower_bound=lb,
                      results=results, time_limit=time_limit)


@fill_doc
def compare_1d(loads: Any, m: int, *, methods: Sequence[str] | None = None,
               time_limit: float | None = 10.0, speeds: Any = None,
               progress: Any = False) -> Comparison:
    """Run every 1D method (:data:`wpart.METHODS_1D`) on `loads` and tabulate them.

    Parameters
    ----------
    loads : array_like of int or float
        Non-negative 1D loads.
    m : int
        Number of parts.
    methods : sequence of str, optional
        A subset of :data:`wpart.METHODS_1D` (default: all).
    {compare_time_limit}
    speeds : array_like, optional
        Relative part speeds, passed to every method.
    {compare_progress}

    Returns
    -------
    Comparison
        ``.table`` rows: method, max_load, gap, seconds, status, message.

    {compare_raises}

    Examples
    --------
    >>> import numpy as np, wpart
    >>> c = wpart.compare_1d(np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]), 3)
    >>> c.table[0]["method"], c.table[0]["max_load"]
    ('nicol', 17.0)
    """
    from ._base import METHODS_1D, partition_1d

    names = _pick(methods, METHODS_1D, "methods")
    cands = [Candidate(n, (lambda tl, n=n: partition_1d(loads, m, method=n, speeds=speeds,
                                                         time_limit=tl)),
                       exact=n not in ("direct_cut", "recursive_bisection"))
             for n in names]
    return run_candidates("1d", cands, objective="max_load", time_limit=time_limit,
                          progress=progress)


def _pick(methods: Sequence[str] | None, allowed: Sequence[str], what: str) -> list[str]:
    """`methods` checked against `allowed` (all of them when None)."""
    if methods is None:
        return list(allowed)
    if isinstance(methods, str):
        methods = [methods]
    bad = [x for x in methods if x not in allowed]
    if bad:
        raise WpartValueError(f"{what}: unknown method(s) {', '.join(map(repr, bad))}; "
                              f"available: {', '.join(allowed)}")
    return list(methods)
