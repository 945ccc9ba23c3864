"""The result protocol every family follows.

A result is a frozen dataclass deriving from :class:`Result`:

- ``status``: one of :data:`STATUSES` -- ``"optimal"`` (proven optimal), ``"feasible"`` (a
  valid answer with no optimality claim: a heuristic, or a solver stopped early with an
  incumbent), ``"time_limit"`` (the time limit was reached; the result holds the best answer
  found, if any), ``"infeasible"`` (the instance has no answer), ``"error"``;
- ``success``: the answer is usable (``status`` is ``"optimal"`` or ``"feasible"``, or
  ``"time_limit"`` with an answer);
- ``message``: one human sentence about how the run ended;
- the objective under the same names everywhere: ``max_load`` (the largest part cost:
  load, or load / speed with speeds), ``imbalance`` (``max_load / mean - 1`` with
  ``mean = total / sum(speeds)``, a fraction printed as a percent), ``lower_bound`` and
  ``gap = max_load / lower_bound - 1`` where a bound exists;
- ``stats``: a dict of counters and timings of the run;
- ``to_dict()``: a JSON-friendly dict; ``.plot(ax=None)``: draws on `ax` (or a new figure)
  and returns the Axes it drew on (a figure of several panels returns the Figure and its
  docstring says so);
- equality: two results are equal when every field is (arrays compared element-wise).

A time limit or an infeasible instance comes back in ``status``; only Ctrl-C or a progress
callback that returned False raises (:class:`wpart.CancelledError`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

#: The values of ``Result.status``.
STATUSES = ("optimal", "feasible", "time_limit", "infeasible", "error")

#: Fields (or properties) every result provides.
PROTOCOL = ("status", "success", "message", "stats", "to_dict", "plot")


def jsonable(x: Any) -> Any:
    """`x` as plain JSON types: arrays to lists, NumPy scalars to Python, results to dicts,
    non-finite floats kept (``json.dumps`` writes them as ``Infinity`` / ``NaN``)."""
    if isinstance(x, Result):
        return x.to_dict()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: jsonable(getattr(x, f.name)) for f in dataclasses.fields(x)}
    return x


def equal(a: Any, b: Any) -> bool:
    """Deep equality that treats arrays element-wise (NaN equal to NaN)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            a_, b_ = np.asarray(a), np.asarray(b)
        except Exception:
            return False
        if a_.shape != b_.shape:
            return False
        if a_.dtype.names or b_.dtype.names:  # structured (e.g. a trace): field by field
            return a_.dtype == b_.dtype and all(equal(a_[f], b_[f]) for f in a_.dtype.names)
        try:
            return bool(np.array_equal(a_, b_, equal_nan=a_.dtype.kind in "fc"))
        except TypeError:
            return bool(np.array_equal(a_, b_))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(equal, a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


def pct(x: float) -> str:
    """A fraction printed as a percent (``0.0123`` -> ``'1.23%'``)."""
    try:
        return f"{float(x):.2%}"
    except (TypeError, ValueError):
        return str(x)


class ByValue:
    """Equality by value for wpart's frozen dataclasses (results, ``tasks.Problem``,
    ``dynamic.PerfModel``): equal when every compared field is (:func:`equal`: arrays
    element-wise), so a pickled or deep copy equals its original; unhashable, as their arrays
    are."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(equal(getattr(self, f.name), getattr(other, f.name))
                   for f in dataclasses.fields(self) if f.compare)  # type: ignore[arg-type]

    __hash__ = None  # type: ignore[assignment]


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Result(ByValue):
    """Base of every wpart result (see the module docstring for the protocol).

    Subclasses are ``@dataclass(frozen=True, eq=False, repr=False)`` and declare only their
    own fields: ``status`` and ``message`` (the first two fields, positional or by keyword)
    and ``stats`` (keyword-only, default ``{}``, not compared) are declared here, once. This
    class gives them ``success``, ``gap``, ``to_dict()``, equality and ``_repr_lines`` for a
    short repr.

    Attributes
    ----------
    status : str
        One of :data:`wpart.STATUSES`.
    message : str
        What happened, in words.
    stats : dict
        Counters and timings of the run (not compared by ``==``).
    """

    __slots__ = ()
    status: str
    message: str
    stats: dict = dataclasses.field(default_factory=dict, compare=False, kw_only=True)

    @property
    def success(self) -> bool:
        """Whether the result holds a usable answer."""
        return self.status in ("optimal", "feasible") or (
            self.status == "time_limit" and self._has_answer())

    def _has_answer(self) -> bool:
        return True

    @property
    def gap(self) -> float:
        """``max_load / lower_bound - 1`` (0 when both are 0, inf when only the bound is 0)."""
        ml = float(getattr(self, "max_load"))
        lb = float(getattr(self, "lower_bound"))
        if lb == 0:
            return 0.0 if ml == 0 else math.inf
        return ml / lb - 1.0

    def to_dict(self) -> dict:
        """JSON-friendly dict of every field (arrays as lists), plus ``success``."""
        d = {f.name: jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)
             if f.repr or f.name in ("status", "message")}
        d["success"] = self.success
        return d

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the result on `ax` (a new figure when None) and return the Axes."""
        raise NotImplementedError

    def _repr_head(self) -> str:
        return f"{type(self).__name__}(status={self.status!r})"

    def _repr_html_(self) -> str:
        """An HTML table of the fields, for Jupyter: scalars in full, arrays by shape and
        their first values."""
        import html

        import numpy as np

        rows = []
        for f in dataclasses.fields(self):
            if not (f.repr or f.name in ("status", "message")):
                continue
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                flat = v.ravel()
                head = ", ".join(str(x) for x in flat[:6].tolist())
                text = (f"array{list(v.shape)} {v.dtype}: [{head}"
                        f"{', ...' if flat.size > 6 else ''}]")
            elif isinstance(v, (list, tuple)) and len(v) > 6:
                text = f"{type(v).__name__} of {len(v)}: {v[:6]!r}..."
            elif isinstance(v, dict) and len(repr(v)) > 200:
                text = f"dict of {len(v)} keys: {', '.join(map(str, list(v)[:8]))}"
            else:
                text = repr(v) if not isinstance(v, str) else v
            rows.append(f"<tr><th style='text-align:left'>{html.escape(f.name)}</th>"
                        f"<td style='text-align:left'>{html.escape(text[:300])}</td></tr>")
        rows.append(f"<tr><th style='text-align:left'>success</th>"
                    f"<td style='text-align:left'>{self.success}</td></tr>")
        return (f"<b>{html.escape(type(self).__name__)}</b><table>{''.join(rows)}</table>")

    def __repr__(self) -> str:
        lines = self._repr_lines()
        return "\n".join(lines[:5])

    def _repr_lines(self) -> list[str]:
        """At most five lines; subclasses override."""
        return [self._repr_head(), f"  {self.message}"] if self.message else [self._repr_head()]


def new_axes(ax: Any = None, **subplots_kw: Any) -> Any:
    """`ax`, or the Axes of a new matplotlib figure."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(**subplots_kw)
    return ax
