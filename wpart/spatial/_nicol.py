"""RECT-NICOL's progress-following engine (the default ``starts="auto"``): starts from the 1D
optimum of the stored entries per row or column (SARMA's start), of the loads, uniform cuts,
the symmetric grids and user-given cuts, run in one kernel call on the nonzeros with a shared
incumbent; a start stops when a sweep does not lower its max load."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._errors import WpartTypeError, WpartValueError
from .._progress import progress_hook
from .._validate import as_bool, as_int, as_progress, core_time_limit, unmasked
from .. import _core
from ._common import _Prepared
from ._grid import SARMA_SEEDS, GridInput, _done, _grid_result, grid_rects, sym_cuts
from ._partition import SpatialPartition

#: Start names of the engine. ``rows_*``: the rows are cut first (uniform, by load, by the
#: stored entries), the columns set for them; ``cols_*`` the transposed; ``sym_*`` the
#: symmetric grids (P = Q only) as the start of both dimensions.
ENGINE_STARTS = ("rows_stored", "cols_stored", "rows_load", "cols_load", "rows_uniform",
                 "cols_uniform", "diag_interleaved", "sym_pal", "sym_opal", "sym_rac")

#: The default set (``starts="auto"``), in the order they run: the diagonal start wins on
#: grid, banded and block matrices; the stored-entry and uniform starts on heavy-line
#: (power-law) ones, where the diagonal one runs last and rows_stored after the uniform
#: ones, the race then dropping it early (see HEAVY_LINE). rows_stored is SARMA
#: nic's own start: in place of cols_stored (the default's before) it brought SARMA's bayer05
#: (a SuiteSparse matrix of SARMA's tests) at 4 x 4 from 3,720 to nic's 3,654 (2,544 -> 2,246
#: with weights="count") and 2 more of bench_spatial_fresh's 334 cases to SARMA's best of
#: nine (one lost by one unit: clust_1000 stored 4 x 4, 572 against 571), at the same CPU.
#: cols_stored, rows_load and cols_load stay available by name (and in rect_refine).
AUTO = ("diag_interleaved", "rows_stored", "rows_uniform", "cols_uniform")

#: ``stats["starts"]``'s entry of the default's random starts (4 to 63 blocks, after the race:
#: SARMA's random cut positions, seeds 1-4; rect_fast.c RF_RAND_TRIES; then, where the grid
#: was 1.19-1.7 x the lower bound, SARMA's sgo_2dr_nic from seed 1, one run more): their ``runs``,
#: ``half_sweeps``, lowest ``max_load`` and ``state`` (``"kept"``: one of them gave the grid
#: the call continued and returned, ``stats["start"]`` then names it; else ``"dropped"``).
#: Where the grid after the race was below 1.19 x the lower bound none of them runs: two tabu
#: steps of the cut moves from it run in their place (rect_random.c RF_NEAR_TABU), ``runs`` 0
#: and ``cut_moves`` the moves made. Where it was above 1.7 x the bound and one start of the
#: race ended 1.2 x or more below every other (their max loads as listed; block-diagonal
#: matrices, the diagonal start) none runs: ``runs`` 0, ``"not_run"`` (rect_random.c
#: RF_RAND_DOM).
RANDOM = "random_starts"


def auto_names(load_starts: int) -> tuple:
    """The default set as it runs on a matrix: where at least half the cells are stored (a
    dense load matrix: the stored entries per row are about even, ``rows_stored`` near
    uniform rows) ``rows_load`` and ``cols_load`` take the uniform starts' places (bits 0 and
    1 of `load_starts`: the core's one rule, ``_core.spatial_rect_load_starts``)."""
    return (AUTO[0], AUTO[1], "rows_load" if load_starts & 1 else AUTO[2],
            "cols_load" if load_starts & 2 else AUTO[3])


#: rect_refine's ``start="auto"``: every engine start but the symmetric ones.
REFINE_AUTO = ("diag_interleaved", "rows_stored", "cols_stored", "rows_uniform",
               "cols_uniform", "rows_load", "cols_load")

#: A start whose max load after h >= 2 half-sweeps is more than RACE * 2 / h above the best
#: grid so far stops (``abandon=True`` only): on the 70 generated cases no result changed by
#: more than one unit, and the 200,000^2 banded matrix's three losing starts stop after 2
#: half-sweeps instead of 8-31. (From h = 1: 7 % fewer half-sweeps on the 70 cases, the same
#: max loads, but on SARMA's email-Eu-core at 4 x 4 the uniform start, 3,000 after one
#: half-sweep against 1,930, was dropped where it ends at 1,849: rect_grid.c RG_RACE_FROM.)
RACE = 0.25

#: ... the default set's (rect_fast.c's RF_RACE below RF_BIG_MIN blocks, RF_RACE_BIG from
#: there), and on a heavy-line matrix up to HEAVY_LAST_BLOCKS blocks AUTO_RACE_HEAVY
#: (RF_RACE_HEAVY). Halved from 0.2, 0.15, 0.5, with rows_stored out of the race from 64 blocks
#: (SARMA nic's member runs from its cuts there; stats["starts"] reports it ``"not_run"``):
#: the counts of max loads <= the best of SARMA's nine on bench_spatial_fresh,
#: bench_spatial_sarma and SARMA's six test files unchanged (473 of 476), 6 more of
#: bench_spatial_fresh's 334 cases at or below SARMA nic's CPU (paired runs).
AUTO_RACE = 0.1
AUTO_RACE_BIG = 0.075
AUTO_RACE_HEAVY = 0.25

#: Tabu steps of rect_refine's final cut-move polish (after its descent).
REFINE_CUT_MOVES = 100

#: Half-sweeps without a gain before the best grid's continuation stops (SARMA's minimum).
POLISH_PATIENCE = 10

#: ... below this many blocks the default set's continuation stops after
#: SHORT_POLISH_PATIENCE half-sweeps without a gain (rect_fast.c's RF_BIG_MIN and
#: RF_SHORT_PATIENCE): at 4 x 4 patience 10 lowered 4 of bench_spatial_fresh's 59 grids by
#: 0.05-1 %, none across the best of SARMA's nine, for 10 % of the call.
SHORT_POLISH_BLOCKS = 64
SHORT_POLISH_PATIENCE = 1

#: ... from there below MID_POLISH_BLOCKS, MID_POLISH_PATIENCE (RF_MID_MAX, RF_MID_PATIENCE):
#: at 8 x 8 patience 10 changed none of bench_spatial_fresh's 59 max loads, for 7 % of the call.
MID_POLISH_BLOCKS = 256
MID_POLISH_PATIENCE = 5

#: A line nearly fills a block when its load / the other dimension's parts is at least this
#: fraction of the lower bound so far (rect_fast.c's RF_HEAVY): its side's heaviest lines are
#: then cut together for the bound, and the default set runs its diagonal start last.
HEAVY_LINE = 0.9

#: ... up to this many blocks (rect_fast.c's RF_LAST_MAX: at 64 x 64 an arrow matrix ended one
#: unit higher with the diagonal start last; nothing was gained there).
HEAVY_LAST_BLOCKS = 1024

#: ``stats["start"]`` where the uniform grid (RECT-UNIFORM's) was lower than every grid the
#: starts and stages reached and is the result.
UNIFORM_GRID = "uniform_grid"

#: The start names of the former four-start call (kept for ``starts="all"`` and those names).
_OLD = ("rows_uniform", "rows_load", "cols_uniform", "cols_load")


def uses_engine(starts: Any) -> bool:
    """Whether `starts` asks for this engine (else the former four-start core call runs): a
    list always does (a former name in a list runs the engine from that start; the name
    alone, a string, runs the former engine)."""
    if isinstance(starts, str):
        return starts not in ("all",) + _OLD
    return isinstance(starts, (tuple, list))


def _check_cuts(c: Any, parts: int, n: int, what: str) -> np.ndarray:
    c = unmasked(c, f"{what}_cuts")  # (the name of the pair's item: row_cuts, column_cuts)
    try:
        a = np.asarray(c)
    except Exception as exc:  # noqa: BLE001 (ragged input)
        raise WpartValueError(f"`starts`: {what} cuts must be a 1-D integer sequence") from exc
    if a.ndim != 1 or a.dtype.kind not in "iu" and not (a.dtype.kind == "f" and a.size and
                                                         np.all(a == np.round(a))):
        raise WpartValueError(f"`starts`: {what} cuts must be a 1-D integer sequence")
    a = a.astype(np.int64)
    if a.size != parts + 1 or a[0] != 0 or a[-1] != n or (np.diff(a) < 0).any():
        raise WpartValueError(
            f"`starts`: {what} cuts must be {parts + 1} non-decreasing integers from 0 to {n}, "
            f"got {a.tolist()}")
    return a


def resolve(starts: Any, P: int, Q: int, n1: int, n2: int) -> list:
    """[(name, spec)] of the requested starts: spec is a start name or (R, C) cuts."""
    if isinstance(starts, str):
        if starts == "auto":
            names: list = [s for s in AUTO if P == Q or not s.startswith("sym_")]
            return [(s, s) for s in names]
        items: list = [starts]
    elif isinstance(starts, (tuple, list)):
        if not starts:
            raise WpartValueError("`starts` must name at least one start, got an empty sequence")
        items = list(starts)
    else:
        raise WpartTypeError(
            "`starts` must be 'auto', 'all', a start name, or a list of names and "
            f"(row_cuts, col_cuts) pairs, got {type(starts).__name__}")
    out: list = []
    k = 0
    for s in items:
        if isinstance(s, str):
            if s == "auto":
                out += resolve("auto", P, Q, n1, n2)
                continue
            if s not in ENGINE_STARTS:
                raise WpartValueError(
                    f"`starts` has an unknown start {s!r} (names: 'auto', "
                    f"{', '.join(repr(x) for x in ENGINE_STARTS)}, or (row_cuts, col_cuts))")
            if s.startswith("sym_") and P != Q:
                raise WpartValueError(f"`starts`: {s!r} needs P == Q, got {P} x {Q}")
            out.append((s, s))
        elif isinstance(s, (tuple, list)) and len(s) == 2:
            out.append((f"given_{k}", (_check_cuts(s[0], P, n1, "row"),
                                      _check_cuts(s[1], Q, n2, "column"))))
            k += 1
        else:
            raise WpartTypeError(
                "`starts` must hold start names or (row_cuts, col_cuts) pairs, got "
                f"{type(s).__name__}")
    seen: dict = {}
    for name, spec in out:
        seen.setdefault(name, spec)
    return list(seen.items())


def _uniform(n: int, k: int) -> np.ndarray:
    return (np.arange(k + 1, dtype=np.int64) * n) // k


def _interleaved(g: GridInput, P: int, Q: int, cache: dict | None = None) -> tuple:
    """Row and column cuts that alternate along the diagonal: the exact 1D partition of the
    index loads (row + column load of index i) into P + Q - 1 pieces, whose inner boundaries
    go in turn to the rows and the columns (spread evenly when P != Q). Near the diagonal
    (banded, grid and mesh matrices) a block then holds about one piece: total / (P + Q - 1)
    instead of the total / P of aligned cuts. On a square matrix whose entries lie mostly on
    one side of its diagonal (a band above or below it, a triangle) the diagonal followed is
    shifted by their median column offset s (``_core.spatial_rect_offset``): row i is paired
    with column i + s. On a rectangular one whose entries follow its diagonal from corner to
    corner (``_core.spatial_rect_corner``: i / n1 and j / n2 correlate) the shorter
    dimension's line k sits at index k N / n of the N = max(n1, n2) indices. The core's
    kernel (``_core.spatial_rect_diagonal``), the one call's cuts."""
    cache = {} if cache is None else cache
    rl = np.ascontiguousarray(_line_loads(g, True, cache), np.float64)
    cl = np.ascontiguousarray(_line_loads(g, False, cache), np.float64)
    return _core.spatial_rect_diagonal(*g.args()[:4], rl, cl, P, Q)


def build(g: GridInput, specs: list, P: int, Q: int, tl: float,
          cache: dict | None = None) -> tuple:
    """The kernel's start arrays (R0, C0, first) for the resolved specs (`cache`: the 1D
    partitions and line loads made on the way, keyed as :func:`lower_bound` reads them)."""
    R0, C0, first = [], [], []
    cache = {} if cache is None else cache
    for _name, spec in specs:
        if not isinstance(spec, str):
            R0.append(spec[0])
            C0.append(spec[1])
            first.append(0)
            continue
        kind, how = spec.split("_", 1)
        if kind == "diag":  # interleaved: the P + Q - 1 pieces of the diagonal, alternately
            R, C = _interleaved(g, P, Q, cache)
            R0.append(R)
            C0.append(C)
            first.append(0)
            continue
        if kind == "sym":
            v = {"pal": 0, "opal": 1, "rac": 2}[how]
            c = sym_cuts(g, P, v, max_iter=max(10, P), time_limit=tl)[0]
            R0.append(np.minimum(c, g.n1))
            C0.append(np.minimum(c, g.n2))
            first.append(0)
            continue
        rows = kind == "rows"
        n, k = (g.n1, P) if rows else (g.n2, Q)
        if how == "uniform":
            cuts = _uniform(n, k)
        else:
            key = (rows, how)
            if key not in cache:
                if how == "stored":
                    vec = g.counts[0 if rows else 1]
                else:
                    vec = _line_loads(g, rows, cache)
                cache[key] = g.oned(vec, k)
            cuts = cache[key]
        if rows:
            R0.append(cuts)
            C0.append(_uniform(g.n2, Q))
            first.append(0)
        else:
            R0.append(_uniform(g.n1, P))
            C0.append(cuts)
            first.append(1)
    return (np.ascontiguousarray(np.array(R0, np.int64)),
            np.ascontiguousarray(np.array(C0, np.int64)), np.array(first, np.int32))


def _line_loads(g: GridInput, rows: bool, cache: dict) -> NDArray:
    """The loads of the rows (or columns), made once per call."""
    key = ("loads", rows)
    if key not in cache:
        cache[key] = g.row_loads() if rows else g.col_loads()
    return cache[key]


def lower_bound(g: GridInput, P: int, Q: int, cache: dict) -> float:
    """A lower bound of the optimal P x Q grid's max load: a row stripe of the exact 1D
    partition of the row loads into P stripes holds at least its load, split among Q blocks
    (so some block holds >= load / Q), the same for the columns; a row lies in one stripe
    and its entries split among Q column intervals, so a block holds at least the exact 1D
    optimum of that row's entries into Q intervals (checked for the few rows and columns
    whose load / parts exceeds the bound so far); where one line nearly fills a block, the
    exact partition that cuts that side's heaviest lines together (:func:`_joint_bound`);
    and the largest entry."""
    w = g.w
    integral = w is None or bool((w == np.floor(w)).all())
    lb = 0.0 if g.ci.size == 0 else (1.0 if w is None else float(w.max()))
    lines = []
    for rows, k, other in ((True, P, Q), (False, Q, P)):
        vec = _line_loads(g, rows, cache)
        cuts = cache.get((rows, "load"))
        if cuts is None:
            cuts = cache[(rows, "load")] = g.oned(vec, k)
        pre = np.concatenate(([0.0], np.cumsum(vec)))
        lb = max(lb, float(np.diff(pre[cuts]).max()) / other)
        lines.append((rows, vec, other))
    for rows, vec, parts in lines:  # the heaviest lines alone (few pass the test)
        heavy = np.flatnonzero(vec > lb * parts)
        if heavy.size > 8:
            heavy = heavy[np.argsort(vec[heavy], kind="stable")[-8:]]
        for i in heavy:
            if rows:
                lo, hi = g.rp[i], g.rp[i + 1]
                pos, val = g.ci[lo:hi], (np.ones(hi - lo) if w is None else w[lo:hi])
                n = g.n2
            else:
                sel = np.flatnonzero(g.ci == i)
                pos = np.searchsorted(g.rp, sel, side="right") - 1
                val = np.ones(sel.size) if w is None else w[sel]
                n = g.n1
            line = np.bincount(pos, weights=val, minlength=n)
            c = g.oned(line, parts)
            pre = np.concatenate(([0.0], np.cumsum(line)))
            lb = max(lb, float(np.diff(pre[c]).max()))
    # where one line nearly fills a block (power-law matrices; cache["heavy_line"]), the
    # k = min(8, max(P, Q)) heaviest lines of that side cut together (a block holding line i
    # holds i's part); integral loads only (exact sums)
    cache["heavy_line"] = bool(g.ci.size) and any(
        float(vec.max()) / parts >= HEAVY_LINE * lb for _, vec, parts in lines)
    if integral and g.ci.size and (w is None or float(w.sum()) < 2.0**53):
        for rows, vec, parts in lines:
            if not float(vec.max()) / parts >= HEAVY_LINE * lb:
                continue
            top = np.argsort(vec, kind="stable")[-min(8, max(P, Q)):]
            lb = max(lb, _joint_bound(g, rows, top, parts))
    return float(np.ceil(lb - 1e-9)) if integral else lb * (1.0 - 1e-12)


def _joint_bound(g: GridInput, rows: bool, lines: NDArray, parts: int) -> float:
    """The exact min-max partition into `parts` intervals of the other dimension, cutting
    the given lines (rows when `rows`) at once: a lower bound of the grid's max load
    (integral loads; the greedy probe of each bound B, bisection on integers)."""
    w = g.w
    major = np.repeat(np.arange(g.n1), np.diff(g.rp))
    sel = np.isin(major if rows else g.ci, lines)
    pos = (g.ci if rows else major)[sel]
    who = np.searchsorted(np.sort(lines), (major if rows else g.ci)[sel])
    n = g.n2 if rows else g.n1
    X = np.zeros((len(lines), n + 1))
    np.add.at(X, (who, pos + 1), 1.0 if w is None else w[sel])
    X = np.cumsum(X, axis=1)
    tot = X[:, n]

    def fits(B: float) -> bool:
        a = 0
        for _ in range(parts - 1):
            a = min(int(np.searchsorted(X[t], X[t, a] + B, side="right")) - 1
                    for t in range(len(lines)))
        return float((tot - X[:, a]).max()) <= B

    lo, hi = float(np.ceil((tot / parts).max())), float(tot.max())
    for _ in range(200):  # bisection over integers below 2**53: at most 54 steps
        if lo >= hi:
            break
        mid = lo + np.floor((hi - lo) / 2)  # (lo + hi) / 2 rounds above 2**52
        if fits(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _twin(R0: NDArray, C0: NDArray, first: NDArray, names: list, k: int) -> str:
    """The name of the earlier start whose transpose start k is (the kernel's state 4)."""
    for t in range(k):
        if (first[t] ^ first[k]) == 1 and np.array_equal(R0[k], C0[t]) and \
                np.array_equal(C0[k], R0[t]):
            return names[t]
    return "?"


def _distinct(R0: np.ndarray, C0: np.ndarray, first: np.ndarray) -> list:
    """For each start, the index of the first start equal to it."""
    seen: dict = {}
    out = []
    for k in range(len(first)):
        key = (R0[k].tobytes(), C0[k].tobytes(), int(first[k]))
        out.append(seen.setdefault(key, k))
    return out


#: The one-call default's joint-bound start (heavy-line matrices from 64 blocks: the joint
#: bound's cuts of the heaviest lines, then half-sweeps; kept only when it reaches the bound).
JOINT = "joint_bound"

#: The one-call default's piece start (heavy-line matrices from 256 blocks, after the
#: joint-bound start's one half-sweep where that did not meet the bound; rect_piece.c): near
#: the lower bound (within 1.1 x the bound before it, or 1.07 x its own piece bound, which then
#: is the lower bound where higher) no other stage runs and its grid is the result (the
#: joint-bound start's where lower); within 1.2 x the bound no other start runs and the stages
#: continue its grid ("continued"); else the result only where lower than the other stages'.
PIECE = "pieces"

_PIECE_STATE = {0: "near_bound", 1: "kept", 2: "dropped", 3: "continued"}

_STATE = {0: "stopped", 1: "abandoned", 2: "not_run", 3: "time_limit", 4: "transposed"}

#: A start of the one-call default equal to an earlier one (not run again).
_SAME = 5


def _random_entry(runs: int, halves: int, best: float, kept: int, moves: int) -> dict:
    """The stats entry of the stage after the race at 4 to 63 blocks (rect_fast.c's
    rf_random, both paths): SARMA's random starts, or near the bound (within 1.19 x) the cut
    moves in their place (``runs`` 0, ``cut_moves`` the moves made), or none (``runs`` 0,
    ``"not_run"``: above 1.7 x the bound with one start 1.2 x below every other)."""
    d = {"max_load": best if runs or moves >= 0 else None, "half_sweeps": halves, "runs": runs}
    if moves >= 0:
        d["cut_moves"] = moves
    d["state"] = "kept" if kept else "not_run" if runs == 0 and moves < 0 else "dropped"
    return d


#: the one-call default's stages in the order they run (``stats["stage_seconds"]``, out[21]:
#: the core's stage clock as the seconds of each that ran): checks, context and lower bound;
#: the starts (joint-bound and piece starts, the race and its continuation); the random
#: starts; SARMA's nic members; the cut moves; the SGO kick; the plain half-sweeps after it;
#: the rest (the uniform grid's test, the block loads)
STAGES: tuple[str, ...] = _core.spatial_rect_stages()  # (one list: the binding's)


#: auto_names of each value of its two bits (the one-call default reads it once per call).
_AUTO_NAMES = tuple(auto_names(k) for k in range(4))


def _auto_stats(P: int, Q: int, max_sweeps: int, out: tuple, head: dict | None = None) -> tuple:
    """(params, stats) of the one-call default (``_core.spatial_rect_nicol_auto``'s `out`),
    as :func:`nicol_engine` reports them; the stats after the keys of `head` (its values of
    the same keys replaced)."""
    vals, halves, states, refs, lb = out[3], out[4], out[5], out[6], out[7]
    pol = out[14]
    names = _AUTO_NAMES[out[19] & 3]  # the starts that ran (the load starts on a dense matrix)
    # the joint-bound start (heavy-line matrices, 64 blocks and more) ran first: at the bound,
    # the result (no other start ran); else kept below every start, or dropped
    jran = pol[5] >= 0
    joint = jran and lb > 0 and pol[6] <= lb
    # the piece start (heavy-line matrices, 256 blocks and more) ran first: near the bound, the
    # result (no other start ran); else kept where lower than the stages' grid, or dropped
    piece = pol[12] >= 0
    # reached: a start that ran (not _SAME, equal to an earlier one; not 2, not run) hit the bound
    reached = joint or (piece and lb > 0 and pol[13] <= lb)
    if not reached and lb > 0:
        for k in range(len(names)):
            st = states[k]
            if st != _SAME and st != 2 and vals[k] <= lb:
                reached = True
                break
    table: dict = {}
    won = best = None
    if jran:
        # below every start's grid (and their continuation's) it is kept: the grid the later
        # stages continue
        ran = [vals[k] for k in range(len(vals)) if states[k] in (0, 1, 3)]
        if piece and pol[14] in (0, 3):  # near the bound or continued: it ran in their place
            ran.append(pol[13])
        kept = not joint and pol[6] < min(ran, default=math.inf)
        table[JOINT] = {"max_load": pol[6], "half_sweeps": pol[5],
                        "state": "stopped" if joint else "kept" if kept else "dropped"}
        if joint or kept:
            won, best = JOINT, pol[6]
    same = False
    for k in range(len(names)):
        st = states[k]
        if st == 0 or st == 1 or st == 3:
            v = vals[k]
            table[names[k]] = {"max_load": v, "half_sweeps": halves[k], "state": _STATE[st]}
            if won is None or v < best:
                won, best = names[k], v
        elif st == 2:
            table[names[k]] = {"max_load": None, "half_sweeps": 0, "state": "not_run_bound"} \
                if reached else {"max_load": None, "half_sweeps": halves[k], "state": "not_run"}
        elif st == _SAME:
            same = True
        else:  # 4: the transpose of an earlier start
            table[names[k]] = {"max_load": vals[k], "half_sweeps": halves[k],
                               "state": "same_as_" + names[refs[k]] + "_transposed"}
    if piece:
        table[PIECE] = {"max_load": pol[13], "half_sweeps": pol[12],
                        "state": _PIECE_STATE[pol[14]]}
        if pol[14] in (0, 3) and (won is None or pol[13] <= best):  # (else the joint start's)
            won, best = PIECE, pol[13]
    if same:
        for k in range(len(names)):
            if states[k] == _SAME:
                ref = names[refs[k]]
                table[names[k]] = dict(table[ref], state="same_as_" + ref)
    polished = None if states[4] == 2 else {"max_load": vals[4], "half_sweeps": halves[4]}
    if pol[0] >= 0:  # the cut-move polish ran (P Q >= 64)
        polished = dict(polished or {"max_load": None, "half_sweeps": 0},
                        cut_moves=pol[0], cut_move_max_load=pol[1])
    if pol[2] >= 0:  # then the SGO kick (rect_polish.c)
        polished.update(kick_iterations=pol[2], kick_half_sweeps=pol[3], kick_max_load=pol[4])
    if pol[7] >= 0:  # the random starts after the race (4 to 63 blocks; rect_fast.c)
        table[RANDOM] = _random_entry(pol[7], pol[8], pol[9], pol[10], pol[11])
        if pol[10]:
            won = RANDOM
    if piece and pol[14] == 1:  # lower than the grid the stages reached: the result
        won = PIECE
    params = {"P": P, "Q": Q, "max_sweeps": max_sweeps, "starts": names, "patience": 2,
              "refine": "auto", "abandon": True}
    w = table[won] if won else None
    if out[19] & 4:  # the uniform grid, lower than every grid the stages reached
        won = UNIFORM_GRID
    stats = dict(head) if head else {}
    stats["start"] = won
    stats["starts"] = table
    stats["polish"] = polished
    stats["lower_bound"] = lb or None
    stats["bound_reached"] = reached
    stats["iterations"] = w["half_sweeps"] if w else 0
    stats["converged"] = bool(w) and (w["state"] == "stopped" or won in (RANDOM, PIECE)) and \
        (polished or w)["half_sweeps"] < 2 * max_sweeps
    stats["stage_seconds"] = out[21]
    return params, stats


def nicol_engine(pp: _Prepared, P: int, Q: int, starts: Any, *, max_sweeps: int,
                 patience: Any, refine: Any, abandon: Any, time_limit: Any, progress: Any,
                 sgo: bool = False, race: float | None = None,
                 polish_patience: int | None = None,
                 method: str = "rect_nicol") -> SpatialPartition:
    """Run the engine (see :func:`wpart.spatial.rect_nicol`)."""
    t0 = time.perf_counter()
    tl = core_time_limit(time_limit)
    progress = as_progress(progress)
    bal = None if isinstance(refine, str) and refine == "auto" else as_bool(refine, "refine")
    polish = bal is not False
    # each start gets SARMA's budget of half-sweeps (max(10, P + Q)); the best one then goes on
    # (balanced) until its own stop rule or max_sweeps
    h1 = max(10, P + Q) if polish else min(2 * max_sweeps, 2**62)
    ab = as_bool(abandon, "abandon")
    if patience is None:
        pat = 2
    elif isinstance(patience, str):
        if patience != "sarma":
            raise WpartValueError(f"`patience` must be an int >= 1, None or 'sarma', got "
                                  f"{patience!r}")
        pat = max(10, P + Q)
    else:
        pat = as_int(patience, "patience", minimum=1)
    g = GridInput(pp)
    if (isinstance(starts, str) and starts == "auto" and bal is None and patience is None
            and ab and not sgo and race is None and polish_patience is None):
        # the default: the whole schedule in one core call (the same grid step by step)
        with progress_hook(progress, total=1.0, desc=method) as hook:
            out = _core.spatial_rect_nicol_auto(
                *g.args()[:4], g.w, P, Q, min(2 * max_sweeps, 2**62), time_limit=tl,
                progress=hook)
            _done(hook, out[8])
        params, stats = _auto_stats(P, Q, max_sweeps, out)
        return _grid_result(pp, method, params, out[0], out[1], stats, out[8], tl, t0=t0)
    if isinstance(starts, str) and starts == "auto":  # the default set as the core runs it
        specs = [(s, s) for s in
                 auto_names(_core.spatial_rect_load_starts(int(g.rp[-1]), g.n1, g.n2))]
    else:
        specs = resolve(starts, P, Q, g.n1, g.n2)

    with progress_hook(progress, total=1.0, desc=method) as hook:
        cache: dict = {}
        R0, C0, first = build(g, specs, P, Q, tl, cache)
        # a proven lower bound: once a start reaches it, the rest cannot lower the max load
        lb = lower_bound(g, P, Q, cache) if ab else 0.0
        if bal is not False:  # "auto" and True: every start balanced
            first = first | 2
        keep = _distinct(R0, C0, first)  # a start equal to an earlier one is not run again
        dup = {specs[k][0]: specs[j][0] for k, j in enumerate(keep) if j != k}
        uniq = sorted(set(keep))
        run_specs = [specs[k] for k in uniq]
        R0, C0, first = R0[uniq], C0[uniq], first[uniq]
        # the default set races and continues as rect_fast.c does
        auto = tuple(n for n, _ in specs) in (auto_names(0), auto_names(3))
        own = (AUTO_RACE_BIG if P * Q >= SHORT_POLISH_BLOCKS else AUTO_RACE) if auto else RACE
        slack = (own if ab else 0.0) if race is None else race
        cont = POLISH_PATIENCE if not auto or P * Q >= MID_POLISH_BLOCKS else \
            SHORT_POLISH_PATIENCE if P * Q < SHORT_POLISH_BLOCKS else MID_POLISH_PATIENCE
        # the default set on a heavy-line matrix: the diagonal start runs last (the
        # stored-entry and uniform ones come near the bound first there) and a loose race
        # (AUTO_RACE_HEAVY: its first half-sweeps can be far above a grid it ends below;
        # rect_fast.c)
        order = np.arange(len(uniq))
        last = bool(cache.get("heavy_line") and race is None and len(uniq) > 1 and
                    P * Q <= HEAVY_LAST_BLOCKS and auto)
        if last:
            order, slack = np.roll(order, -1), (AUTO_RACE_HEAVY if ab else 0.0)
            if len(order) > 2:  # rows_stored after the uniform starts (rect_fast.c)
                order[:-1] = np.roll(order[:-1], -1)
        # on a banded matrix only the default set's diagonal start runs (the others end above
        # it; rect_fast.c)
        first_only = (auto and race is None and slack > 0 and not last and
                      _core.spatial_rect_banded(*g.args()[:4], P, Q))
        # the incumbent then continues in the same call (the polish) with the long patience
        # (SARMA's max(10, P + Q)), balanced, unless the time limit or the bound ended it
        R, C, vals, halves, states, timed = _core.spatial_rect_grid(
            *g.args(), P, Q, R0[order], C0[order], first[order], patience=pat,
            max_half=min(2 * max_sweeps, h1), balance=False, abandon=ab, time_limit=tl,
            progress=hook, slack=slack, lower=lb,
            polish_patience=(polish_patience or cont) if polish else 0,
            polish_max_half=min(2 * max_sweeps, 2**62), first_only=first_only)
        for a in (vals, halves, states):  # back to the order of run_specs
            a[order] = a[: len(order)].copy()
        ran = states[: len(run_specs)] != 2
        reached = bool(lb > 0 and float(vals[: len(run_specs)][ran].min()) <= lb)
        rnd = None
        if (auto and ab and race is None and bal is None and patience is None and
                polish_patience is None and not timed and not first_only and
                4 <= P * Q < 64):
            # the default's random starts after the race (rect_fast.c, one kernel), told the
            # two lowest max loads of the starts as the stats list them (an equal start too)
            ran_v = {n: float(vals[k]) for k, (n, _) in enumerate(run_specs) if states[k] != 2}
            low = sorted([*ran_v.values(), *(ran_v[s] for s in dup.values() if s in ran_v)])
            R, C, _, runs, rh, rbest, kept, timed, moves = _core.spatial_rect_random(
                *g.args(), P, Q, R, C, float(vals.min()), lb,
                min(2 * max_sweeps, 2**62), time_limit=tl, progress=hook,
                low1=low[0] if len(low) > 1 else 0.0, low2=low[1] if len(low) > 1 else 0.0)
            if runs >= 0:
                rnd = _random_entry(runs, rh, rbest, kept, moves)
        if polish and states[-1] != 2:
            polished = {"max_load": float(vals[-1]), "half_sweeps": int(halves[-1])}
            if sgo and not timed and polished["max_load"] > (lb or lower_bound(g, P, Q, cache)):
                # (a grid at the proven lower bound is optimal: nothing to refine)
                R, C, timed = _sgo_tail(g, P, Q, R, C, polished, t0, tl, max_sweeps, cache)
        else:
            polished = None
        _done(hook, timed)
    # never worse than the uniform grid: where a start may not have moved (the time limit) or
    # no uniform start ran (the default set: the load starts in their places on a dense
    # matrix, the diagonal start alone on a banded one, as rect_fast.c decides; other sets:
    # always, as they need not hold one)
    uniform = False
    if timed or not auto or first_only or tuple(n for n, _ in specs) == auto_names(3):
        Ru, Cu = _uniform(g.n1, P), _uniform(g.n2, Q)
        if pp.box_loads(grid_rects(Ru, Cu)).max() < pp.box_loads(grid_rects(R, C)).max():
            R, C, uniform = Ru, Cu, True
    names = [n for n, _ in run_specs]
    table = {}
    won = None
    for k, name in enumerate(names):
        st = int(states[k])
        v = None if st == 2 else float(vals[k])
        if st == 2 and reached:
            table[name] = {"max_load": None, "half_sweeps": 0, "state": "not_run_bound"}
            continue
        table[name] = {"max_load": v, "half_sweeps": int(halves[k]), "state": _STATE[st]}
        if st == 4:  # not run: the transpose of an earlier start (symmetric input, P == Q)
            table[name]["state"] = "same_as_" + _twin(R0, C0, first, names, k) + "_transposed"
            continue
        if v is not None and (won is None or v < table[won]["max_load"]):
            won = name
    for name, same in dup.items():
        table[name] = dict(table[same], state="same_as_" + same)
    if rnd is not None:
        table[RANDOM] = rnd
        if rnd["state"] == "kept":
            won = RANDOM
    names = [n for n, _ in specs]
    params = {"P": P, "Q": Q, "max_sweeps": max_sweeps, "starts": tuple(names),
              "patience": pat, "refine": "auto" if bal is None else bal, "abandon": ab}
    stats = {"start": UNIFORM_GRID if uniform else won, "starts": table, "polish": polished,
             "lower_bound": lb or None,
             "bound_reached": reached,
             "iterations": table[won]["half_sweeps"] if won else 0,
             "converged": bool(won) and (table[won]["state"] == "stopped" or
                                         won == RANDOM) and
             (polished or table[won])["half_sweeps"] < 2 * max_sweeps}
    return _grid_result(pp, method, params, R, C, stats, timed, tl, t0=t0)


def _sgo_tail(g: GridInput, P: int, Q: int, R: NDArray, C: NDArray, polished: dict,
              t0: float, tl: float, max_sweeps: int, cache: dict) -> tuple:
    """rect_refine's end: the subgradient refinement (SGO) from the polished grid, from the
    grid of the loads' 1D partitions (rows and columns; SARMA's SGO starts from positions
    spread in load space), from the uniform grid and from SARMA's own random starts (seeds 1
    and 2147483647, its library's and its command line's: SARMA's sgo_2dr itself); the SGO
    grids then go through balanced
    Nicol half-sweeps (one kernel call, every grid a start), and the best of all replaces
    the polished grid when lower. (R, C, timed)."""

    def left() -> float:
        return 0.0 if not tl else max(tl - (time.perf_counter() - t0), 1e-9)

    d = None

    def with_default(R: NDArray, C: NDArray) -> tuple:
        # the default's grid where it is lower
        if d is not None and polished["default_max_load"] < polished["max_load"]:
            polished["max_load"] = polished["default_max_load"]
            return d[0], d[1]
        return R, C

    if P * Q <= g.n1 * g.n2:  # rect_nicol's default grid too (its cut moves and SGO kick)
        d = _core.spatial_rect_nicol_auto(*g.args()[:4], g.w, P, Q,
                                          min(2 * max_sweeps, 2**62), loads=True,
                                          time_limit=left())
        polished["default_max_load"] = float(np.max(d[2]))
        if d[8] or polished["default_max_load"] <= d[7]:
            # timed out, or at the default's proven bound (its joint bound on heavy lines):
            # optimal, nothing left to refine
            R, C = with_default(R, C)
            return R, C, int(d[8])
    for rows, k in ((True, P), (False, Q)):  # the loads' 1D partitions
        if (rows, "load") not in cache:
            cache[(rows, "load")] = g.oned(_line_loads(g, rows, cache), k)
    uni = (_uniform(g.n1, P), _uniform(g.n2, Q))
    # (SARMA's own random starts, std::mt19937_64 seeded as its library and its command line
    # seed them -- SARMA's sgo_2dr runs themselves, so the result is never above theirs)
    grids = [(R, C, 0), (cache[(True, "load")], cache[(False, "load")], 0), uni + (0,)] + \
        [uni + (seed,) for seed in SARMA_SEEDS]
    out, seen, timed, runs = [], set(), 0, []
    for R0, C0, seed in grids:
        key = (np.asarray(R0).tobytes(), np.asarray(C0).tobytes(), seed)
        if key in seen:
            continue
        seen.add(key)
        R3, C3, v3, it3, timed = _core.spatial_rect_sgo(
            *g.args(), P, Q, np.array(R0, np.int64), np.array(C0, np.int64),
            time_limit=left(), seed=seed)
        runs.append({"max_load": float(v3), "iterations": int(it3)})
        out.append((R3, C3))
        if timed:
            break
    polished["sgo"] = runs[0]
    polished["sgo_runs"] = runs
    if timed:
        return R, C, timed
    # balanced half-sweeps from every SGO grid, and SARMA's nic (plain half-sweeps, its
    # patience) from those of SARMA's seeds: SARMA's sgo_2dr_nic, so never above it either
    # (the seeds' runs are the last: never the same as an earlier grid, and none timed out)
    for balance, got in ((True, out), (False, out[-len(SARMA_SEEDS):])):
        R4, C4, v4, _h4, _s4, timed = _core.spatial_rect_grid(
            *g.args(), P, Q, np.ascontiguousarray(np.array([a for a, _ in got], np.int64)),
            np.ascontiguousarray(np.array([b for _, b in got], np.int64)),
            np.zeros(len(got), np.int32), patience=max(10, P + Q),
            max_half=min(2 * max_sweeps, 2**62), balance=balance, abandon=False,
            time_limit=left())
        v = float(np.min(v4))
        if v < polished["max_load"]:
            polished["max_load"] = v
            R, C = R4, C4
        if timed:
            return R, C, timed
    R, C = with_default(R, C)
    # the cut-move polish of the best grid (csrc/spatial/rect_polish.c)
    R5, C5, v5, moves, timed = _core.spatial_rect_polish(
        *g.args(), P, Q, np.array(R, np.int64), np.array(C, np.int64),
        max_iter=REFINE_CUT_MOVES, time_limit=left())
    polished["cut_moves"] = int(moves)
    if v5 < polished["max_load"]:
        polished["max_load"] = float(v5)
        return R5, C5, timed
    return R, C, timed
