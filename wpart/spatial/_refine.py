"""rect_refine: the balanced Nicol refinement of a P x Q grid with SARMA's subgradient method
and cut moves on top (the heavier sibling of rect_nicol's default; its engine is _nicol's)."""

from __future__ import annotations

from typing import Any

from .._validate import as_int
from ._common import _Prepared, _pq
from ._nicol import REFINE_AUTO, nicol_engine
from ._partition import SpatialPartition


def rect_refine(
    A: Any,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    start: Any = "auto",
    max_sweeps: int = 100,
    patience: int | str | None = "sarma",
    allow_empty: bool = False,
    time_limit: float | None = None,
    progress: Any = None,
    weights: str = "values",
) -> SpatialPartition:
    """Balanced Nicol refinement of a ``P x Q`` grid, then a subgradient (SGO) pass and cut
    moves: alternating exact 1D half-sweeps (each dimension's cuts optimal for the other's),
    after each of which every cut moves to the place between its two neighbours that evens
    the larger of its two stripes (a binary search on the stripe prefixes: O(K log n) per
    cut). The balancing never raises the max load; it spreads the slack that Nicol's greedy
    cuts leave in the last stripes, so the next half-sweep often finds a lower bottleneck
    where plain Nicol is at a fixed point. The best grid then goes through SARMA's
    subgradient method (the cuts as positions in load space, each moved against the running
    excess of its stripe's largest block; see ``wpart_spatial_rect_sgo``), as do the grid of
    the loads' 1D partitions, the uniform grid and SARMA's own random starts (seeded 1, its
    library's default, and 2147483647, its command line's, drawn as SARMA draws them: those
    runs are SARMA's ``sgo_2dr`` itself); each SGO grid then goes through the balanced
    half-sweeps again and the random starts' SGO grids through SARMA's ``nic`` (plain
    half-sweeps, its patience: SARMA's ``sgo_2dr_nic``), so the result is never above SARMA's
    ``sgo_2dr`` or ``sgo_2dr_nic`` from either seed; the
    default :func:`rect_nicol` grid is a candidate too (one more core call, about 3 % of the
    cost; ``stats["polish"]["default_max_load"]``), so the result is never above it; the
    lowest grid of all gets the cut-move polish (``csrc/spatial/rect_polish.c``: a cut next
    to a block at the max moves by up to 8 rows or columns when that lowers the max load or
    the number of blocks at it, then 100 tabu steps; ``stats["polish"]["cut_moves"]``).
    Never worse than its start (``stats["polish"]["sgo_runs"]`` lists the SGO runs).

    Cost (the 70 cases of ``benchmarks/bench_spatial_sarma.py``'s generated matrices at
    4 x 4 - 32 x 32 and 8 x 32, CPU seconds on a shared 2-core machine, both in one process):
    median 12.8x (5.0-72x) the default :func:`rect_nicol`'s CPU (8.6x before the run from
    SARMA's command-line seed and SARMA's nic from both seeds' grids; 42x, 5-487x before the
    SGO kept its block loads between iterations); an SGO iteration costs
    its cut searches, the P Q blocks and the entries of the lines that change stripe (integral
    loads, where a line of more than 4 K entries moves as its K loads per stripe of the other
    dimension; float loads: all nnz entries), 10 (P + Q + 2) iterations at least; the cut moves
    0.1-10 ms. 200,000^2 banded with 4.0 M nonzeros: 6.9 s at 16 x 16 and 12.0 s at 32 x 32
    (rect_nicol 0.14 / 0.27 s, measured beside it). The max load is never above rect_nicol's
    default nor SARMA's ``sgo_2dr`` and ``sgo_2dr_nic`` from either seed (by construction;
    tests/test_spatial_rect_sgo_seed.py checks it against benchmarks/_sarma.py); a default
    grid at its proven lower bound (the joint bound of a
    power-law matrix's heavy lines) is returned as it is (optimal). When the grid reaches
    the proven lower bound of rect_nicol's schedule, SGO and the cut moves are skipped.

    Parameters
    ----------
    A, m
        Loads (a dense 2D array, a ``scipy.sparse`` matrix, or a MatrixMarket path) and the
        number of parts ``m = P * Q``. Dense and sparse input run the same kernel on the
        nonzeros (the same grid).
    P, Q : int, optional
        Grid shape (default as :func:`rect_uniform`).
    start : "auto", a start name, or ``(row_cuts, col_cuts)``
        The grid to refine: ``"auto"`` (default) the starts of :func:`rect_nicol`'s
        ``starts="auto"``, the best refined further; a name or a list as `rect_nicol`'s
        `starts`; or one ``(row_cuts, col_cuts)`` pair (the result is never worse than it).
    max_sweeps : int
        Cap on the sweeps of the best grid.
    patience : int, "sarma" or None
        Half-sweeps in a row without a lower max load before a run stops (default
        max(10, P + Q)).
    allow_empty : bool
        Accept ``m`` larger than the number of cells.
    time_limit : float, optional
        Seconds; reached, the best grid so far comes back with ``status="time_limit"``.
    progress : callable, optional
        ``progress(done, total)``, called now and then.
    weights : str
        How a stored entry counts (as for every spatial method).

    Returns
    -------
    SpatialPartition
        ``stats["starts"]`` as :func:`rect_nicol`'s, ``stats["polish"]`` the continuation.
        Never worse than the uniform grid (also when the time limit stops it).

    Raises
    ------
    WpartValueError
        A bad argument (the message names it).
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, sparse=True)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    ms = min(as_int(max_sweeps, "max_sweeps", minimum=1), 2**62)
    if isinstance(start, tuple) and len(start) == 2 and not isinstance(start[0], str):
        start = [start]
    if isinstance(start, str) and start == "auto":
        start = list(REFINE_AUTO)
    return nicol_engine(pp, P, Q, start, max_sweeps=ms, patience=patience, refine=True,
                        abandon=False, time_limit=time_limit, progress=progress, sgo=True,
                        polish_patience=max(10, P + Q), method="rect_refine")
