"""Verdicts: each headline figure of a paper beside ours, with an honest judgement.

Every family's experiment module reports its paper's headline results (the figures and tables
of the paper's evaluation) as :class:`Verdict` rows: the paper's value, ours, and one of

* ``MATCH``: ours lies within the tolerance stated in the row: by default within
  :data:`REL_TOL` (20 %) of the paper's value (:func:`near`), or inside a range the paper itself
  states, or a stated absolute tolerance where the paper rounds ("~1%"); a looser tolerance
  (a factor of two or three) is never a MATCH;
* ``DIFFERS``: ours is off, and ``reason`` says why (substitute data, an assumed static power,
  a baseline defined differently, a slower or faster machine, ...);
* ``NOT REGENERATED``: the figure was not recomputed, and ``reason`` says why.

The words OK and PASS are never used for a paper figure.

How a family plugs in (``wpart.dynamic`` and any later family do the same)::

    from ._verdict import Verdict, Verdicts, near, within

    vs = Verdicts("dynamic")
    vs.add(near("Fig. 7", "speedup over static", paper="2.3x", target=2.3, ours=s,
                run="synthetic PLB-HAC, 64 ranks", fmt="{:.2f}x",
                reason_off="synthetic task times"))          # MATCH within +-20 %
    vs.add(within("Fig. 8", "LI, median", paper="2..3%", ours=li, lo=2.0, hi=3.0,
                  run="...", fmt="{:.1f}%", reason_off="substitute data"))  # the paper's range
    vs.add(Verdict("Table 2", "GPU speedup", "11x", "-", "NOT REGENERATED",
                   reason="needs a GPU", run="-"))
    text = vs.table()                  # printable table plus the summary line
    summary = {"family": "dynamic", ..., "verdicts": vs.to_list(), "counts": vs.counts()}

and returns ``summary`` from ``run_<family>``: :mod:`wpart.cli` adds the ``"counts"`` of every
family into the overall summary line and writes all rows to ``verdicts.json``.
"""

from __future__ import annotations
from .._errors import WpartTypeError, WpartValueError

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "DIFFERS",
    "MATCH",
    "NOT_REGENERATED",
    "REL_TOL",
    "VERDICTS",
    "Verdict",
    "Verdicts",
    "count_verdicts",
    "format_counts",
    "format_verdicts",
    "near",
    "within",
]

MATCH = "MATCH"
DIFFERS = "DIFFERS"
NOT_REGENERATED = "NOT REGENERATED"
#: The three verdicts, in the order the summaries print them.
VERDICTS = (MATCH, DIFFERS, NOT_REGENERATED)
#: Default relative tolerance of a MATCH (:func:`near`): ours within 20 % of the paper's value.
REL_TOL = 0.2


@dataclass(frozen=True)
class Verdict:
    """One headline figure of a paper beside ours.

    Attributes
    ----------
    figure : str
        Where the paper reports it ("Fig. 4", "Table III", "R3").
    quantity : str
        What is compared, with its unit.
    paper : str
        The paper's value as the paper states it.
    ours : str
        Our value ("-" when not regenerated).
    verdict : str
        ``MATCH``, ``DIFFERS`` or ``NOT REGENERATED``.
    tolerance : str
        The tolerance a MATCH was judged by (required for MATCH, also shown for DIFFERS).
    reason : str
        Why it differs or was not regenerated (required for those two verdicts).
    run : str
        What was really run: the instance and sizes (quick mode shows its smaller sizes here).
    """

    figure: str
    quantity: str
    paper: str
    ours: str
    verdict: str
    tolerance: str = ""
    reason: str = ""
    run: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise WpartValueError(f"`verdict` must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict == MATCH and not self.tolerance:
            raise WpartValueError("a MATCH verdict needs the `tolerance` it was judged by")
        if self.verdict != MATCH and not self.reason:
            raise WpartValueError(f"a {self.verdict} verdict needs a `reason`")

    def to_dict(self) -> dict[str, str]:
        """Plain dict of the fields."""
        return asdict(self)


def within(
    figure: str,
    quantity: str,
    *,
    paper: str,
    ours: float | None,
    lo: float,
    hi: float,
    run: str,
    fmt: str = "{:.2f}",
    reason_off: str,
    tolerance: str | None = None,
) -> Verdict:
    """MATCH when ``lo <= ours <= hi``, else DIFFERS with `reason_off` and where ours lies.

    Parameters
    ----------
    figure, quantity, paper, run : str
        As in :class:`Verdict`.
    ours : float or None
        Our value; None or NaN gives NOT REGENERATED (with `reason_off`).
    lo, hi : float
        The accepted interval (the paper's value widened by the stated tolerance).
    fmt : str
        Format of `ours` and the interval.
    reason_off : str
        The known cause of a difference (e.g. "substitute data (pic_like, not PIC-MAG)").
    tolerance : str, optional
        Shown text of the tolerance; default ``"[lo, hi]"``.

    Returns
    -------
    Verdict
    """
    tol = tolerance or f"[{fmt.format(lo)}, {fmt.format(hi)}]"
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return Verdict(figure, quantity, paper, "-", NOT_REGENERATED, tol, reason_off, run)
    s = fmt.format(ours)
    if lo <= ours <= hi:
        return Verdict(figure, quantity, paper, s, MATCH, tol, "", run)
    side = "above" if ours > hi else "below"
    return Verdict(figure, quantity, paper, s, DIFFERS, tol, f"{side} the range; {reason_off}",
                   run)


def near(
    figure: str,
    quantity: str,
    *,
    paper: str,
    target: float,
    ours: float | None,
    run: str,
    fmt: str = "{:.2f}",
    reason_off: str,
    rel: float = REL_TOL,
    abs_tol: float = 0.0,
    unit: str = "",
) -> Verdict:
    """MATCH when ours is within `rel` of the paper's `target` (or within `abs_tol` of it).

    The accepted interval is ``target +- max(rel * |target|, abs_tol)``; the row's tolerance
    says so in words (``"+-20% of 26"``, ``"+-20% of 0.7, or +-1 point"``). `abs_tol` serves
    small values the paper rounds (a "0.7 %" average cannot be judged to 20 % of itself).

    Parameters
    ----------
    figure, quantity, paper, run, fmt, reason_off : str
        As in :func:`within`.
    target : float
        The paper's value as a number.
    ours : float or None
        Our value; None or NaN gives NOT REGENERATED.
    rel : float, default :data:`REL_TOL`
        Relative tolerance (0.2 = 20 %); at most 0.25.
    abs_tol : float, default 0
        Absolute tolerance, in the unit of `target` (named by `unit`, e.g. ``"point"``).
    unit : str
        Unit of `abs_tol` in the tolerance text.

    Returns
    -------
    Verdict

    Examples
    --------
    >>> near("5.5", "time gain, avg %", paper="26", target=26, ours=23.0, run="r",
    ...      fmt="{:.1f}", reason_off="synthetic").verdict
    'MATCH'
    >>> near("Fig. 6", "Pareto points", paper="68", target=68, ours=36.0, run="r",
    ...      fmt="{:.0f}", reason_off="synthetic").verdict
    'DIFFERS'
    """
    if not 0 <= rel <= 0.25:
        raise WpartValueError(f"`rel` must be in [0, 0.25] (a reviewer's tolerance), got {rel}")
    if abs_tol < 0:
        raise WpartValueError(f"`abs_tol` must be >= 0, got {abs_tol}")
    width = max(rel * abs(target), abs_tol)
    tol = f"+-{rel:.0%} of {fmt.format(target)}"
    if abs_tol > 0:
        tol += f", or +-{abs_tol:g}" + (f" {unit}" if unit else "")
    return within(figure, quantity, paper=paper, ours=ours, lo=target - width,
                  hi=target + width, run=run, fmt=fmt, reason_off=reason_off, tolerance=tol)


def count_verdicts(rows: Iterable[Verdict | dict]) -> dict[str, int]:
    """Count of each verdict (every key of :data:`VERDICTS` present) plus ``"total"``."""
    out = dict.fromkeys(VERDICTS, 0)
    n = 0
    for r in rows:
        v = r["verdict"] if isinstance(r, dict) else r.verdict
        out[v] += 1
        n += 1
    out["total"] = n
    return out


def format_counts(counts: dict[str, int], label: str) -> str:
    """``"<label>: 3 MATCH, 2 DIFFERS, 1 NOT REGENERATED (6 headline figures)"``."""
    parts = ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS)
    return f"{label}: {parts} ({counts.get('total', 0)} headline figures)"


def format_verdicts(rows: Sequence[Verdict], title: str = "") -> str:
    """Printable text of the rows: one block per row, every line at most 120 characters, so
    long reasons stay readable.

    Each block is ``VERDICT  figure: quantity``, then ``paper ... | ours ... | tolerance ...``
    and ``run: ...``, then (for a row that is not a MATCH) ``reason: ...``, indented and
    wrapped.

    Parameters
    ----------
    rows : sequence of Verdict
        The rows, in order.
    title : str, optional
        A line above the blocks.

    Returns
    -------
    str
        The text.
    """
    import textwrap

    from . import MAX_WIDTH

    def fill(text: str, first: str) -> list[str]:
        return textwrap.wrap(text, MAX_WIDTH, initial_indent=first,
                             subsequent_indent=" " * len(first), break_on_hyphens=False)

    out = textwrap.wrap(title, MAX_WIDTH, break_on_hyphens=False) if title else []
    width = max([len(r.verdict) for r in rows] or [0])
    for r in rows:
        out += fill(f"{r.figure}: {r.quantity}", f"{r.verdict.ljust(width)}  ")
        pad = " " * (width + 4)
        out += fill(f"paper {r.paper} | ours {r.ours} | tolerance {r.tolerance or '-'}", pad)
        if r.run:
            out += fill(f"run: {r.run}", pad)
        if r.verdict != MATCH and r.reason:
            out += fill(f"reason: {r.reason}", pad)
    return "\n".join(out)


class Verdicts:
    """The verdict rows of one family, in order.

    Parameters
    ----------
    family : str
        Family name printed in the summary line.
    """

    def __init__(self, family: str) -> None:
        self.family = family
        self.rows: list[Verdict] = []

    def add(self, *rows: Verdict) -> None:
        """Append rows."""
        for r in rows:
            if not isinstance(r, Verdict):
                raise WpartTypeError(f"expected a Verdict, got {type(r).__name__}")
            self.rows.append(r)

    def counts(self) -> dict[str, int]:
        """See :func:`count_verdicts`."""
        return count_verdicts(self.rows)

    def summary_line(self) -> str:
        """The family's summary line."""
        return format_counts(self.counts(), f"{self.family} verdicts")

    def table(self, title: str | None = None) -> str:
        """The rows as a table, followed by the summary line."""
        t = title or (f"{self.family}: the paper's headline results beside ours "
                      "(MATCH within the stated tolerance / DIFFERS with the reason / "
                      "NOT REGENERATED with why)")
        return format_verdicts(self.rows, t) + "\n" + self.summary_line()

    def to_list(self) -> list[dict[str, Any]]:
        """The rows as dicts (for JSON)."""
        return [r.to_dict() for r in self.rows]
