"""Shared numpydoc paragraphs, filled into docstrings at import time.

A docstring line that holds only ``{key key ...}`` (keys of :data:`PARAGRAPHS`, separated by
spaces) is replaced by those paragraphs, one after the other, at the line's indentation (a
key that is a whole section, ``Returns`` or ``Raises``, gets the blank line before it); the
rendered ``__doc__`` (``help()``, Sphinx) reads as if they were written out. A line with a key
that is not there is left as it is (a module may fill it itself, e.g. a generated table).
"""

from __future__ import annotations

import re
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

_RAISES_WPART = """\
wpart.WpartError
    If an argument is invalid (a :class:`wpart.WpartValueError` or
    :class:`wpart.WpartTypeError` naming it)."""

PARAGRAPHS: dict[str, str] = {
    # -- common ---------------------------------------------------------------------------
    "m": """\
m : int
    Number of parts (processors).""",
    "time_limit": """\
time_limit : float or None, optional
    Seconds for the call (None: no limit); reaching it gives ``status == "time_limit"``.""",
    "progress": """\
progress : bool or callable, optional
    True for a progress bar, or a callable ``progress(done, total)`` (returning False cancels
    the run with :class:`wpart.CancelledError`).""",
    "raises": "Raises\n------\n" + _RAISES_WPART,
    "gap_aliases": """\
``gap`` is ``max_load / lower_bound - 1``. ``bottleneck`` (now `max_load`) and ``gap_lb``
(now `gap`) are deprecated aliases.""",
    # -- every family's compare() ------------------------------------------------------------
    "compare_time_limit": """\
time_limit : float or None, optional
    Seconds per method (default 10).""",
    "compare_progress": """\
progress : bool or callable, optional
    True: one line per method on stderr.""",
    "compare_raises": """\
Raises
------
WpartValueError
    If a name in `methods` is unknown or `time_limit` is not positive.""",
    # -- spatial --------------------------------------------------------------------------
    "A": """\
A : array_like or scipy.sparse matrix or path
    Non-negative 2D loads: a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file
    path.""",
    "P": """\
P : int or str, optional
    Number of stripes (``P x Q`` methods: rows of the grid); default: the method's choice.""",
    "orient": """\
orient : str, optional
    ``"hor"`` (stripes of rows), ``"ver"`` (of columns) or ``"best"`` (both, the better kept).""",
    "allow_empty": """\
allow_empty : bool, optional
    Accept more parts than cells (the extra parts are empty rectangles).""",
    "speeds": """\
speeds : array_like or None, optional
    Relative processor speeds (one per part); the parts' loads are divided by them.""",
    "weights": """\
weights : str, optional
    ``"values"`` (the matrix values are the loads), ``"count"`` (1 per nonzero) or ``"stored"``
    (1 per stored entry).""",
    "returns_spatial": """\
Returns
-------
SpatialPartition
    The partition: ``rects``, ``loads``, ``max_load``, ``lower_bound``, ``imbalance``,
    ``status``.""",
    "Q": """\
Q : int or None, optional
    Pieces per stripe (columns of the grid); default: ``m / P``.""",
    "pq_notes": """\
With `speeds`, stripe ``p`` runs on processors ``pQ .. pQ+Q-1`` (in the given order, its
parts left to right, or top to bottom for ``"ver"``) and ``max_k loads[k] / speeds[k]``
is minimised exactly over the ``P x Q`` jagged class in that orientation (both engines
then run the same bisection on the float64 bottleneck with a greedy over the stripes; an
empty stripe's processors idle).

`A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path. Without
`speeds`, a sparse matrix (more than 2**15 cells, at most 1/32 of them nonzero) is not
densified: each nested cost (the exact 1D optimum of a stripe) reads the stripe's column
prefix made from its rows' nonzeros (O(nnz in the stripe + n2), the dense prefix's O(n2)),
memory O(nnz + n1 + n2) plus the memo of the nested costs; the same search on the same
values gives the same optimum (and with integer loads the partition of ``A.toarray()``).
With `speeds` it is densified (``WpartMemoryError`` above
``wpart.spatial.MAX_DENSE_BYTES``). `weights` is ``"values"`` (the matrix values are the
loads), ``"count"`` (1 for every nonzero value, whatever its sign) or ``"stored"`` (1 for
every stored entry). `progress` is a tqdm bar (True) or ``progress(done, total)``
(returning False raises :class:`wpart.CancelledError`).""",
    "heur_time_progress": """\
`time_limit` (seconds for the call; this heuristic is not stopped inside its one pass) and
`progress` (a tqdm bar, or ``progress(done, total)``; returning False raises
:class:`wpart.CancelledError`) have the family's meaning.""",
    "dense_only": """\
`A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path; this
method needs the dense 2D prefix sum, so a sparse `A` is densified (``WpartMemoryError``
above ``wpart.spatial.MAX_DENSE_BYTES``). `weights` is ``"values"`` (the matrix values are
the loads) or ``"count"`` (1 for every nonzero, whatever its sign).""",
    # -- hetero ---------------------------------------------------------------------------
    "profiles": """\
profiles : ProfileSet or sequence of tuples
    One discrete time (and energy) profile per processor: a :class:`ProfileSet` or a sequence
    of ``(sizes, times[, energies])`` tuples.""",
    "n_units": """\
n : int
    Workload: the number of units to distribute.""",
    "returns_distribution": """\
Returns
-------
Distribution
    The distribution, its time and energy, and ``status``.""",
    "returns_front": """\
Returns
-------
ParetoFront
    The front (its points' times, energies and distributions) and ``status``.""",
    # -- dynamic --------------------------------------------------------------------------
    "m_n_pus": """\
m : int
    Number of processing units.
n : int
    Elements to process (``W``).""",
    "curve_fixed": """\
t0 : float
    Fixed time per call in seconds.""",
    "curve_rate": """\
rate : float
    Elements per second at full speed.""",
    # -- tasks ----------------------------------------------------------------------------
    "coefficients": """\
alpha : float, optional
    Work coefficient of the compute load.
beta : float, optional
    Work coefficient of the larger of a rank's bytes sent and received.
gamma : float, optional
    Work coefficient of a rank's on-rank bytes.
delta : float, optional
    Work coefficient of the homing cost.""",
    "returns_problem": """\
Returns
-------
Problem
    The generated instance.""",
}

_LINE = re.compile(r"^( *)\{([A-Za-z_]+(?: [A-Za-z_]+)*)\}$", re.M)


def _is_section(text: str) -> bool:
    lines = text.split("\n")
    return len(lines) > 1 and set(lines[1]) == {"-"}


def _expand(match: re.Match) -> str:
    indent, keys = match.group(1), match.group(2).split()
    if not all(key in PARAGRAPHS for key in keys):
        return match.group(0)
    text = "\n".join(("\n" if i and _is_section(PARAGRAPHS[key]) else "") + PARAGRAPHS[key]
                     for i, key in enumerate(keys))
    return "\n".join(indent + line if line else line for line in text.split("\n"))


def fill_doc(obj: F) -> F:
    """Fill the ``{key ...}`` lines of `obj`'s docstring from :data:`PARAGRAPHS`; returns
    `obj` itself (signature and behaviour untouched)."""
    if obj.__doc__:
        obj.__doc__ = _LINE.sub(_expand, obj.__doc__)
    return obj
