"""Reproductions of the papers' golden values and headline results, one module per family.

Each module exposes ``run_<family>(out_dir, quick, progress) -> dict``: it recomputes the
family's golden values and guarantees, writes ``<family>_table.txt``, ``<family>.json`` and
figures into `out_dir`, and returns a summary whose ``"ok"`` is True when every check passed
and whose ``"table"`` is the printable text. ``wpart reproduce`` (:mod:`wpart.cli`) finds them
through its ``REPRODUCERS`` registry and imports them lazily.

Each module also returns ``"verdicts"`` and ``"counts"``: every headline figure of its paper
(the figures and tables of its evaluation) beside ours as MATCH / DIFFERS / NOT REGENERATED rows built with
:mod:`wpart.experiments._verdict` (its docstring shows how a new family plugs in). ``"ok"``
covers checks only (golden values, theorems, internal consistency); a DIFFERS verdict is a
finding, not a failure, and the two are always reported apart: ``wpart reproduce`` prints a
checks line and then, last, ``verdicts: <n> MATCH, <n> DIFFERS, <n> NOT REGENERATED``.

This package also holds the small helpers the experiment modules share: best-of-k timing,
plain-text tables and JSON output.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._validate import is_bool

__all__ = ["best_of", "format_table", "jsonable", "ok_fail", "out_folder", "write_json",
           "MAX_WIDTH", "take_wide_tables"]

#: Widest printed table line; a wider table wraps its text columns and is also kept whole, to
#: be written as CSV beside the text (:func:`take_wide_tables`).
MAX_WIDTH = 120

_WIDE: list[tuple[str, list[str], list[list[str]]]] = []


def take_wide_tables() -> list[tuple[str, list[str], list[list[str]]]]:
    """The tables :func:`format_table` had to wrap since the last call, as ``(title, headers,
    rows)`` of strings, and forget them (``wpart reproduce`` writes each as CSV).

    Returns
    -------
    list of tuple
        ``(title, headers, rows)`` per wrapped table, oldest first.
    """
    out = list(_WIDE)
    _WIDE.clear()
    return out


def best_of(
    fn: Callable[[], Any],
    *,
    budget: float = 0.2,
    min_reps: int = 3,
    max_reps: int = 50,
    keep: bool = True,
) -> tuple[float, int, list[Any]]:
    """Best wall time of `fn` over an adaptive number of repetitions.

    One untimed warm-up call, then ``k`` timed calls with ``k`` chosen so that the run takes
    about `budget` seconds, clamped to ``[min_reps, max_reps]``.

    Parameters
    ----------
    fn : callable
        Called with no arguments.
    budget : float, default 0.2
        Target total seconds of the timed calls.
    min_reps, max_reps : int
        Bounds on ``k``.
    keep : bool, default True
        Keep every call's return value. With False only the last one is kept, so that a call
        returning a large fresh array reuses the memory the previous one freed, as in normal
        use (otherwise every timed call pays first-touch page faults).

    Returns
    -------
    best : float
        Smallest wall time in seconds (:func:`time.perf_counter`).
    reps : int
        ``k``.
    results : list
        The values returned by the timed calls (only the last one when ``keep=False``).
    """
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    reps = int(min(max_reps, max(min_reps, budget / max(first, 1e-9))))
    best = math.inf
    results = []
    for _ in range(reps):
        t0 = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t0)
        if keep:
            results.append(res)
        else:
            results = [res]
        del res
    return best, reps, results


def ok_fail(ok: bool) -> str:
    """``"OK"`` or ``"FAIL"``."""
    return "OK" if ok else "FAIL"


def _cell(v: Any) -> str:
    if is_bool(v):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "-"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        a = abs(v)
        if v.is_integer() and a < 1e15:
            return f"{v:.1f}"
        if a != 0 and (a >= 1e6 or a < 1e-3):
            return f"{v:.3g}"
        return f"{v:.1f}" if a >= 100 else f"{v:.4f}"
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ",".join(str(x) for x in np.asarray(v).tolist()) + "]"
    return str(v)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str = "") -> str:
    """Aligned plain-text table: numeric columns right-aligned, others left-aligned.

    Parameters
    ----------
    headers : sequence of str
        Column titles.
    rows : sequence of sequences
        Cell values; floats get 4 significant decimals, lists are printed compactly.
    title : str, optional
        A line printed above the table.

    Returns
    -------
    str

    Examples
    --------
    >>> print(format_table(["q", "OPT"], [[1, 44], [2, 23]]))
    q  OPT
    -  ---
    1   44
    2   23
    """
    cells = [[_cell(v) for v in row] for row in rows]
    width = [len(h) for h in headers]
    for row in cells:
        width = [max(w, len(c)) for w, c in zip(width, row, strict=True)]
    if sum(width) + 2 * (len(width) - 1) > MAX_WIDTH:
        return _wrapped_table(list(headers), cells, rows, width, title)
    numeric = [
        any(
            isinstance(row[i], (int, float, np.integer, np.floating))
            and not isinstance(row[i], (bool, np.bool_))
            for row in rows
        )
        for i in range(len(headers))
    ]

    def line(vals: Sequence[str]) -> str:
        padded = (
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(vals, width, numeric, strict=True)
        )
        return "  ".join(padded).rstrip()

    out = [_wrap_title(title)] if title else []
    out += [line(headers), "  ".join("-" * w for w in width)]
    out += [line(r) for r in cells]
    return "\n".join(out)


def _wrap_title(title: str) -> str:
    """`title` with every line wrapped at :data:`MAX_WIDTH`."""
    import textwrap

    return "\n".join(textwrap.fill(t, MAX_WIDTH, break_on_hyphens=False) if len(t) > MAX_WIDTH
                     else t for t in title.split("\n"))


def _wrapped_table(headers: list[str], cells: list[list[str]], rows: Sequence[Sequence[Any]],
                   width: list[int], title: str) -> str:
    """`format_table` for a table wider than :data:`MAX_WIDTH`: the widest text columns are
    narrowed (their cells wrap onto further lines, a blank line between rows) and the whole
    table is kept for a CSV file (:func:`take_wide_tables`)."""
    import textwrap

    _WIDE.append((title, [str(h) for h in headers], [list(r) for r in cells]))
    numeric = [any(isinstance(row[i], (int, float, np.integer, np.floating))
                   and not isinstance(row[i], (bool, np.bool_)) for row in rows)
               for i in range(len(headers))]
    width = list(width)
    # numbers never wrap (a header over a number column may); text wraps between words
    longest_word = [max([len(w) for r in cells for w in r[i].split()] or [1])
                    for i in range(len(headers))]
    def is_num(v: Any) -> bool:
        return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
            v, (bool, np.bool_))

    num_len = [max([len(c[i]) for c, r in zip(cells, rows) if is_num(r[i])] or [4])
               for i in range(len(headers))]
    floor = [max(num_len[i], min(longest_word[i], 24)) if numeric[i] else
             max(min(longest_word[i], 24), 4)
             for i, h in enumerate(headers)]
    while sum(width) + 2 * (len(width) - 1) > MAX_WIDTH:
        over = sum(width) + 2 * (len(width) - 1) - MAX_WIDTH
        i = max(range(len(width)), key=lambda j: width[j] - floor[j])
        if width[i] <= floor[i]:
            break  # nothing left to narrow
        width[i] = max(floor[i], width[i] - over)

    def lines(vals: Sequence[str]) -> list[str]:
        parts = [textwrap.wrap(v, w, break_long_words=True, break_on_hyphens=False) or [""]
                 if len(v) > w else [v] for v, w in zip(vals, width)]
        n = max(len(p) for p in parts)
        out = []
        for k in range(n):
            seg = (p[k] if k < len(p) else "" for p in parts)
            out.append("  ".join(s.rjust(w) if num else s.ljust(w)
                                 for s, w, num in zip(seg, width, numeric)).rstrip())
        return out

    out = [_wrap_title(title)] if title else []
    out += lines(headers) + ["  ".join("-" * w for w in width)]
    multi = any(len(c) > w for row in cells for c, w in zip(row, width))
    for r in cells:
        out += lines(r)
        if multi:
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n(wide table: every column in full in the CSV beside)"


def jsonable(o: Any) -> Any:
    """Return a JSON-safe copy: NumPy scalars and arrays to Python, NaN and inf to None."""
    if isinstance(o, dict):
        return {str(k): jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [jsonable(v) for v in o]
    if isinstance(o, np.ndarray):
        return jsonable(o.tolist())
    if isinstance(o, np.generic):
        o = o.item()
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, Path):
        return str(o)
    return o


def out_folder(path: Any) -> Path:
    """The output folder `path` of a reproducer, created if missing (with the folders above
    it).

    Raises :class:`wpart.WpartOSError` naming the path and the problem when it cannot be: a
    file has its name (or the name of a folder above it), or the folder cannot be created.
    """
    from .._errors import WpartOSError

    out = Path(path)
    if out.is_dir():
        return out
    if out.exists():
        raise WpartOSError(f"{out}: not a folder: a file has that name")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file in the place of a folder above it
        raise WpartOSError(f"{out}: cannot create the output folder: a file is in the way "
                           "(a folder above it is a file)") from None
    except OSError as e:
        raise WpartOSError(f"{out}: cannot create the output folder: "
                           f"{e.strerror or e}") from None
    return out


def write_json(path: Path, data: Any) -> None:
    """Write `data` (made JSON-safe with :func:`jsonable`) to `path`, indented."""
    path.write_text(json.dumps(jsonable(data), indent=1, allow_nan=False) + "\n")
