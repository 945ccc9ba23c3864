"""Rectilinear ``P x Q`` grids: RECT-UNIFORM and RECT-NICOL (Sec. 3.1 of Saule et al. 2012)."""

from __future__ import annotations

import time
from typing import Any

from numpy.typing import ArrayLike

from .._validate import as_int
from ._common import _pq, _Prepared, _run, with_progress
from ._partition import SpatialPartition
from ._grid import _grid_result, grid_rects
from ._nicol import UNIFORM_GRID, _uniform, nicol_engine, uses_engine
from ._nicol_fast import fast_default
from ._starts import STARTS, as_starts, run_starts

__all__ = ["rect_nicol", "rect_uniform"]


def rect_uniform(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    allow_empty: bool = False,
    time_limit: float | None = None,
    progress: Any = None,
    weights: str = "values",
) -> SpatialPartition:
    """RECT-UNIFORM (Sec. 3.1 of Saule et al. 2012): a ``P x Q`` grid with equal-area rows
    and columns.

    Parameters
    ----------
    A, m
        Loads (a dense 2D array, a ``scipy.sparse`` matrix of any format, or a MatrixMarket file
        path; a sparse matrix of more than 2**15 cells with at most 1/32 of them nonzero is not
        densified) and number of parts.
    P, Q : int, optional
        Grid shape with ``P * Q = m``; by default the factor pair closest to
        ``sqrt(m n1 / n2)`` (Theorem 2; a ``UserWarning`` is issued for prime ``m``).
    allow_empty : bool
        Accept ``m`` larger than the number of cells.
    time_limit : float, optional
        Seconds of wall time for the whole call (None: no limit); reaching it returns a result
        with ``status="time_limit"``. This heuristic runs in one pass and is not stopped
        inside it.
    progress : bool or callable, optional
        A tqdm bar, or ``progress(done, total)`` (returning False raises
        :class:`wpart.CancelledError`); reaches its total when the call ends.
    weights : {"values", "count", "stored"}
        The load of a cell: the matrix value, 1 for every nonzero value (after duplicate
        entries are summed; explicit zeros count 0; any sign), or 1 for every stored entry
        (explicit zeros and each duplicate included).

    Returns
    -------
    SpatialPartition
        No balance guarantee: only area is split.

    Raises
    ------
    wpart.WpartError
        If an argument is invalid (a :class:`wpart.WpartValueError` or
        :class:`wpart.WpartTypeError` naming it).
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, sparse=True)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    return _run(pp, "rect_uniform", {"P": P, "Q": Q}, P=P, Q=Q, time_limit=time_limit,
                progress=progress)


def rect_nicol(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    max_sweeps: int = 100,
    starts: str | tuple | list = "auto",
    refine: bool | str = "auto",
    patience: int | str | None = None,
    abandon: bool = True,
    allow_empty: bool = False,
    time_limit: float | None = None,
    progress: Any = None,
    weights: str = "values",
) -> SpatialPartition:
    """RECT-NICOL (Sec. 3.1 of Saule et al. 2012): iterative refinement of a ``P x Q`` grid.

    From a start, the column cuts and then the row cuts are set optimally for the other
    dimension's fixed cuts (exact 1D Nicol on the max-over-stripes cost), until a sweep
    reproduces a state already seen or `max_sweeps` is reached. The result depends on the
    start, so several are tried and the best grid is kept.

    Parameters
    ----------
    A, m
        Loads (a dense 2D array, a ``scipy.sparse`` matrix of any format, or a MatrixMarket
        file path) and number of parts. A sparse matrix (more than 2**15 cells, at most 1/32 of
        them nonzero; for the default on a CSR, CSC or COO matrix with integral loads (int, or
        float with an absolute sum below 2**53: ``scipy.io.mmread``'s) or ``weights="stored"``
        / ``"count"``, any size and density, its ``A`` then the sparse loads matrix) is not
        densified: a sweep costs O(nnz + P n2 + Q n1), and the grid is the one the dense array
        gives. A dense array runs the default on its nonzeros too: where most cells are
        loads (the paper's instances), ``starts="all"`` works on the dense prefix sums
        instead, O(P Q log n) per probe, and took a median 2.7 x / 6.4 x less CPU at 512^2 /
        1,024^2 (85 cases, max loads 2.9 % below to 36 % above the default's; README).
    P, Q : int, optional
        Grid shape with ``P * Q = m`` (default as :func:`rect_uniform`).
    max_sweeps : int
        Sweeps per start (a cap: a start stops earlier by its stop rule).
    starts : "auto", "all", str, or list of names and ``(row_cuts, col_cuts)`` pairs
        ``"auto"`` (default): the progress-following engine on the nonzeros (dense input runs
        the same kernel) from the diagonal start (``"diag_interleaved"``: the exact 1D
        partition of the index loads, row + column load of index i, into P + Q - 1 pieces
        whose inner boundaries go in turn to the row and the column cuts; on a square matrix
        whose entries lie mostly on one side of its diagonal, twice as many of those off it
        on one side as on the other in 256 sampled rows, as a band above or below it, row i
        is paired with column i + s,
        s their median offset j - i where at most a third of n (entries spread further
        off the diagonal are no band): on six such matrices, 60 cases, 6 more at or below the
        best of SARMA's nine, now all; on a rectangular matrix whose entries follow its
        diagonal from corner to corner, i / n1 and j / n2 correlated and nearer that diagonal
        than j = i, row i is paired with column i n2 / n1: on rectangular bands 0-32 % lower),
        SARMA nic's start
        (``"rows_stored"``: the exact 1D partition of the stored entries per row, the columns
        set for it; from 64 blocks not raced, ``"not_run"``: SARMA nic's member runs from it
        after the race) and uniform cuts (``"rows_uniform"``, ``"cols_uniform"``; where at least
        half the cells are stored, a dense load matrix, the stored entries per row are about
        even, and the loads' 1D partitions ``"rows_load"``, ``"cols_load"`` take the uniform
        starts' places: on 150 dense cases 42 max loads lower, by up to 19 %, 5 higher by at
        most 2.3 %; ``params["starts"]`` names the set that ran). The engine also
        takes ``"cols_stored"`` (the same per column), ``"rows_load"``, ``"cols_load"`` (the
        loads' 1D partitions), ``"sym_pal"``, ``"sym_opal"``, ``"sym_rac"`` (the symmetric
        grids of :func:`rect_sym_pal` etc. as the start of both dimensions; ``P == Q``) and
        user-given ``(row_cuts, col_cuts)`` pairs (``P + 1`` and ``Q + 1`` non-decreasing
        cuts from 0 to n1 / n2), alone or mixed with names; a start equal to an earlier one
        is not run again. Each start runs at most max(10, P + Q) half-sweeps and stops when a
        sweep (two half-sweeps, or `patience`) does not lower its max load, or (`abandon`) when
        the next half-sweep's lower bound (the fixed stripes' loads / parts) reaches the best
        grid of the earlier starts, or when after h >= 2 half-sweeps its max load is more than
        10 % x 2 / h (7.5 % from 64 blocks) above that grid's (a race); on a banded matrix,
        where 90 % of the entries lie within half a block of that diagonal (a block's side
        1 / ceil(sqrt(P Q)) of the matrix's), only the diagonal start runs (the others end
        above it there); the best grid then
        continues, balanced, until 10 half-sweeps (1 below 64 blocks, 5 below 256) in a row
        bring no gain or `max_sweeps` (not at all when it is a fixed point of both
        half-sweeps); on a heavy-line matrix (a line nearly fills a block: power-law) of at
        most 1,024 blocks the race is looser (25 % x 2 / h), the diagonal start runs last and
        SARMA nic's start after the uniform ones (it ends about 2 x above them there). On such
        a matrix of 64 to 255 blocks a joint-bound start runs before the others: the cuts of
        the exact common partition of its heaviest lines (the lower bound's), then at most two
        half-sweeps; a grid at the proven bound is optimal and the result, no other stage
        runs (``stats["starts"]["joint_bound"]``); else the starts run and
        its grid, where below all of theirs, is the one the stages below continue (state
        ``"kept"``; otherwise ``"dropped"``); from 256 blocks it runs one half-sweep and,
        where that does not meet the bound, the piece start follows
        (``stats["starts"]["pieces"]``): each dimension cut by the exact 1D partition that
        makes the larger of a stripe's largest piece of one line of the other dimension and
        its load / the other dimension's parts least (a lower bound of every grid with those
        cuts; a bisection of greedy O(nnz) probes, from the lower bound), the other dimension
        uniform, both run as the starts are. The larger of the two partitions' values is a
        proven lower bound of every grid, and ``stats["lower_bound"]`` from there where
        higher (integral loads). Where its grid is within 1.1 x the bound before it, or 1.07 x
        that piece bound, it is the result (the joint-bound start's where lower) and nothing
        else runs (state ``"near_bound"``: within 10 % of the optimum; on
        bench_spatial_fresh's 334 cases 24 ended so, 21 before the piece bound, all at or
        below SARMA's best of nine, at 0.14-0.5 x the CPU the stages below took there);
        within 1.2 x the other starts do not run and the stages below continue its grid
        (``"continued"``); else the stages run as without it and its grid is the result only
        where lower than theirs (``"kept"``; otherwise ``"dropped"``). From 4 to 63 blocks,
        but on a banded matrix, four
        of SARMA's random starts follow (cut positions uniform at random in load space, its
        ``std::mt19937_64`` seeded 1-4), each run as the starts are and racing the best grid
        (``stats["starts"]["random_starts"]``: ``runs``, ``half_sweeps`` summed, the lowest
        ``max_load``, ``"kept"`` where one gave the result): at 4 x 4 the fixed starts share a
        local optimum that SARMA's SGO runs from its random starts go below (SARMA's cage:
        556 -> 491, its best of nine 495; tumorAntiAngiogenesis_1 194 -> 184 against 185;
        bench_spatial_fresh's 4 x 4 cases 54 -> 57 of 59 <= the best of nine) for about 1.7 x
        the CPU there (0.36-1.0 x SARMA's own nic on its test matrices). Where the grid
        before them was 1.19-1.7 x the proven lower bound, SARMA's ``sgo_2dr_nic`` from its
        own random start (seed 1; its SGO to its stop rule, nic, the cut moves) follows, a
        lower grid kept (one more of the ``runs``): bench_spatial_fresh's arrow_1400 and
        h_clust_2200 at 4 x 4, 1444 -> 1293 and 1353 -> 1340, below SARMA's best of nine
        (1358, 1351), where they were above it. Where the grid after the race is below
        1.19 x the bound (power-law and clustered matrices) two tabu steps of the cut moves
        run in place of the random starts (``runs`` 0, ``cut_moves``): bench_spatial_fresh's
        clust_1000 at 4 x 4 reaches SARMA's best of nine (571), all 59 4 x 4 cases do. Where
        it is above 1.7 x the bound and one start ended 1.2 x or more below every other
        (block-diagonal matrices: the diagonal start) none of them runs (``runs`` 0,
        ``"not_run"``): on 1,320 generated cases the random starts lowered none of 13 such
        grids and 33 of the 174 others above 1.7 x, all at ratios <= 1.144. On
        grids of 64 blocks and more the default then runs SARMA's nic (rows from the stored
        entries per row, plain half-sweeps, at most max(10, P + Q), stopping after 10 without a
        gain) and nicuni (uniform rows; below 1,024 blocks) racing the best grid (on a
        heavy-line matrix nicuni runs free: its uniform rows start far above where it ends;
        on a banded one neither runs),
        moves single cuts where that lowers the max load (rect_polish's cut moves: a descent
        of at most 4 (P + Q) moves, then 20 tabu steps; ``stats["polish"]["cut_moves"]``;
        never worse), from 256 blocks a subgradient kick
        (SARMA's sgo_2dr_nic idea: the subgradient method from the uniform grid -- on a
        matrix without heavy lines below 1,024 blocks from the best grid first, then from the
        uniform grid where that run brings no lower grid (at P = Q with the grid below 3 x
        the lower bound: 50 iterations from the best grid alone); and from 1,024 to 4,095
        blocks one more run of at most 500 iterations from the best grid after the others,
        then SARMA's nic from its grid: on bench_spatial_fresh 22 max loads lower,
        one higher (below SARMA's best of nine), two more cases at or below it,
        bdiag_22x110_z stored 16 x 16 601 -> 588 and h_delaunay_1500 32 x 32 152 -> 141 --,
        each run below 1,024 blocks its 100 iterations (from the uniform grid it starts far
        above the best grid: SARMA's bayer05 stored 16 x 16, 3 x, 736 after them against
        SARMA's best of nine 757), then these half-sweeps, and plain
        ones when its grid came near, racing the best one; below 1,024 blocks at P != Q only the
        heavy-line runs below: at 8 x 32 the rest decided no case <= SARMA's best of nine
        and cost 12 of bench_spatial_fresh's 59 their CPU <= nic's; from 1,024 blocks its
        100 iterations run in full and SARMA's nic half-sweeps always run from its grid, and
        where SARMA's nic would take long (grid-like matrices) further SGO runs, on to 1,000
        iterations, then from random starts, within 0.6 x the work SARMA's nic would spend,
        then further random starts up to 0.8 x that estimate (a grid of theirs kept only where
        its plain half-sweeps end lower), and from 4,096 blocks, on a matrix without heavy
        lines whose grid is still at least 5 x the lower bound (banded, mesh-like), SARMA's
        sgo_2dr_nic itself
        (the SGO from SARMA's own random start to its stop rule, then nic with SARMA's
        patience; a lower grid kept: four more of bench_spatial_fresh's 64 x 64 cases at or
        below SARMA's best of nine, the CPU up to 2.6 x, every case under nic's CPU where
        it was); on a heavy-line matrix of 1,024 blocks and more
        whose uniform grid is at most 3 x the best grid's max, more than one unit above the
        lower bound, the SGO from the uniform grid also runs to its own stop rule (at most
        20,000 iterations, as SARMA's sgo_2dr_nic), then SARMA's nic from its grid (where the
        uniform grid is further above, arrow-like matrices, from four random starts instead at
        P != Q below 1,024 blocks and two at 1,024 blocks): power-law grids
        reach SARMA's best there (SARMA's tumorAntiAngiogenesis_1 32 x 32: 16, 18 without it,
        its best of nine 17; bench_spatial_fresh's power-law cases from 1,024 blocks up to
        14 x SARMA nic's CPU; arrows up to 7 x; below 1,024 blocks the stages before it reach
        SARMA's best without it: on the 16 x 16 power-law cases of bench_spatial_fresh and
        SARMA's test matrices it cost 1.3-3 x the CPU and lowered one grid, 27 -> 26, below
        the best of nine); only a lower grid is
        kept; ``stats["polish"]["kick_iterations"]`` (0 below 256 blocks),
        ``["kick_half_sweeps"]``, ``["kick_max_load"]``), then plain half-sweeps from the best
        grid. The result is never worse than any start's own grid
        (``stats["starts"][name]["max_load"]``) nor the uniform grid. A start run alone
        (``starts=[name]``) goes on from its own grid, so it can end lower: on 400 small random
        dense matrices (4-59 rows and columns, P, Q <= 8) the default was above one of its
        starts run alone on 1 (a start the race stopped early), above SARMA's nic
        (``starts="rows_stored", refine=False, patience="sarma"``) on none (10 while
        ``"cols_stored"`` took ``"rows_stored"``'s place among the starts), and above the
        engine's other names (not among its starts) in 2-4 %; ``abandon=False`` runs every
        start to its rule (not a promise either: one start's continuation is not another's).
        ``"all"`` and the four names below given as a string run the former engine (one core
        call; each start until a sweep repeats a grid or `max_sweeps`; in a list they are
        starts of the engine like the others):
        ``"rows_uniform"`` (uniform rows, then columns first: the paper's start),
        ``"rows_load"`` (rows split by load: the exact 1D partition of the row sums),
        ``"cols_uniform"``, ``"cols_load"`` (the same on the transposed problem: columns
        fixed first). ``"all"`` runs the four and keeps the smallest ``max_load``
        (ties: the earlier in this order), so its result is never worse than any of the four
        run alone by this engine.
    refine : "auto" or bool
        ``True``: after each half-sweep every cut moves to the place between its neighbours
        that evens the larger of its two stripes (``rect_refine``'s balancing; never raises the
        max load, and lets the next half-sweep find a lower one); ``False``: plain Nicol
        half-sweeps (no final continuation); ``"auto"`` (default): as ``True``. Engine only.
    patience : int, "sarma" or None
        Half-sweeps in a row without a lower max load before a start stops (None: 2, one
        sweep; ``"sarma"``: max(10, P + Q)). Engine only.
    abandon : bool
        Stop a start whose next half-sweep cannot go below the best grid so far or whose max
        load after h half-sweeps is more than 25 % x 2 / h above it (the default set: as
        described under `starts`), run no more starts once the best grid reaches a proven lower
        bound of the optimum (it is then optimal), and, on a symmetric matrix with P == Q, skip
        a start that is the transpose of an earlier one (same values). False: every start runs.
        Engine only.
    allow_empty : bool
        Accept ``m`` larger than the number of cells.
    time_limit : float, optional
        Seconds for the whole call: reached between sweeps, the best grid so far comes back
        with ``status="time_limit"`` (the remaining starts are skipped).
    progress : bool or callable, optional
        A tqdm bar, or ``progress(done, total)`` (returning False raises
        :class:`wpart.CancelledError`); reaches its total when the call ends.
    weights : {"values", "count", "stored"}
        The load of a cell: the matrix value, 1 for every nonzero value, or 1 for every
        stored entry (explicit zeros and each duplicate included).

    Returns
    -------
    SpatialPartition
        ``max_load`` never exceeds RECT-UNIFORM's (where no uniform start ran and the uniform
        grid is lower than every grid reached, it is the result: ``stats["start"]`` is then
        ``"uniform_grid"``). ``stats["start"]`` names the winning start and ``stats["starts"]`` gives each start's ``max_load`` and, for the engine
        (``starts="auto"``, names or cut pairs), its ``half_sweeps`` and ``state``
        (``"stopped"``, ``"abandoned"``, ``"not_run"``, ``"not_run_bound"``, ``"time_limit"``,
        ``"same_as_<start>"``, ``"same_as_<start>_transposed"``), ``stats["polish"]`` the
        continuation of the best grid (None when the bound was reached),
        ``stats["lower_bound"]`` and ``stats["bound_reached"]``; for the former engine each
        start's ``seconds`` and ``status``, ``stats["iterations"]`` the winner's sweeps and
        ``stats["converged"]`` whether it reached a fixed point (or cycle). The default
        (``starts="auto"``) also gives ``stats["stage_seconds"]``: the seconds of each of its
        stages that ran, in order -- ``"setup"`` (the checks, the context and the lower
        bound), ``"starts"`` (the joint-bound and piece starts, the race and its
        continuation), ``"random_starts"``, ``"nic"`` (SARMA's nic and nicuni members),
        ``"cut_moves"``, ``"kick"``, ``"plain"`` (half-sweeps after the kick) and
        ``"finish"`` (the uniform grid's test, the block loads); their sum is the core call's
        time less its input conversion (``stats["seconds"]``). On an x86-64 CPU with AVX2 the
        default runs a copy of the core compiled for it (the same results; docs/spatial.rst).

    Raises
    ------
    wpart.WpartError
        If an argument is invalid (a :class:`wpart.WpartValueError` or
        :class:`wpart.WpartTypeError` naming it).
    """
    res = fast_default(A, m, P, Q, max_sweeps, starts, refine, patience, abandon, allow_empty,
                       time_limit, progress, weights)
    if res is not None:  # the default on a canonical CSR matrix: one core call
        return res
    pp = _Prepared(A, m, allow_empty, weights=weights, sparse=True)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    ms = min(as_int(max_sweeps, "max_sweeps", minimum=1), 2**62)  # stays in int64
    if isinstance(starts, str) and starts == "auto" and pp.m > pp.size:
        starts = "all"  # more parts than cells: the former engine solves a smaller grid
    if uses_engine(starts):
        return nicol_engine(pp, P, Q, starts, max_sweeps=ms, patience=patience, refine=refine,
                            abandon=abandon, time_limit=time_limit, progress=progress)
    names = as_starts(starts, STARTS)
    params = {"P": P, "Q": Q, "max_sweeps": ms, "starts": names}
    res = with_progress(progress, "rect_nicol", lambda: run_starts(
        pp, "rect_nicol", params, names, P=P, Q=Q, time_limit=time_limit, max_sweeps=ms))
    if res.success and pp.m <= pp.size and not {"rows_uniform", "cols_uniform"} & set(names):
        # the load starts alone: never worse than the uniform grid (a uniform start's first
        # half-sweep is at most its max load, so where one ran this holds already)
        t0 = time.perf_counter()
        Ru, Cu = _uniform(pp.n1, P), _uniform(pp.n2, Q)
        if pp.box_loads(grid_rects(Ru, Cu)).max() < res.max_load:
            stats = dict(res.stats, start=UNIFORM_GRID)
            stats.pop("seconds", None)
            return _grid_result(pp, "rect_nicol", res.params, Ru, Cu, stats, 0, 0.0,
                                t0=t0 - res.stats.get("seconds", 0.0))
    return res
