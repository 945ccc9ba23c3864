"""rect_nicol's start schedule: the proven lower bound that ends the starts, and the starts
skipped on a symmetric matrix as the transpose of an earlier one."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import spatial
from oracles.spatial import grid_max


def _brute(D, P, Q):
    """The optimal P x Q grid's max load (every pair of cut sets; empty stripes allowed)."""
    n1, n2 = D.shape
    best = np.inf
    for r in itertools.combinations_with_replacement(range(n1 + 1), P - 1):
        R = (0, *r, n1)
        for c in itertools.combinations_with_replacement(range(n2 + 1), Q - 1):
            best = min(best, grid_max(D, R, (0, *c, n2)))
    return best


def _cases(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n1, n2 = rng.integers(1, 7, 2)
        kind = rng.integers(4)
        if kind == 0:
            D = rng.integers(0, 4, (n1, n2))
        elif kind == 1:  # ties and zeros
            D = (rng.random((n1, n2)) < 0.4).astype(np.int64)
        elif kind == 2:  # one heavy row: the bound is reached
            D = rng.integers(0, 3, (n1, n2))
            D[rng.integers(n1)] += 20
        else:
            D = rng.random((n1, n2)).round(2)
        yield D, int(min(n1, rng.integers(1, 4))), int(min(n2, rng.integers(1, 4)))


def test_lower_bound_never_above_the_optimum_and_reached_means_optimal():
    reached = 0
    for D, P, Q in _cases(5, 160):
        r = spatial.rect_nicol(D, P * Q, P=P, Q=Q, allow_empty=True)
        opt = _brute(D, P, Q)
        lb = r.stats.get("lower_bound") or 0.0
        assert lb <= opt + 1e-9 * max(1.0, opt)
        assert r.max_load >= opt - 1e-9 * max(1.0, opt)
        if r.stats.get("bound_reached"):
            reached += 1
            assert abs(r.max_load - opt) <= 1e-9 * max(1.0, opt)
            assert r.stats["polish"] is None
        # never worse than the whole schedule without the bound
        full = spatial.rect_nicol(D, P * Q, P=P, Q=Q, allow_empty=True, abandon=False)
        assert r.max_load <= full.max_load + 1e-9 * max(1.0, full.max_load)
    assert reached >= 10


def test_bound_stops_the_starts_on_a_heavy_row():
    rng = np.random.default_rng(3)
    D = rng.integers(0, 3, (200, 200))
    D[57, 57] += 10**5  # one entry above the rest together: every grid is optimal
    r = spatial.rect_nicol(sps.csr_array(D), 16, P=4, Q=4)
    assert r.stats["bound_reached"] and r.max_load == r.stats["lower_bound"]
    states = [v["state"] for v in r.stats["starts"].values()]
    assert "not_run_bound" in states
    full = spatial.rect_nicol(D, 16, P=4, Q=4, abandon=False)
    assert r.max_load <= full.max_load and full.stats["lower_bound"] is None


def test_transposed_starts_skipped_on_a_symmetric_matrix():
    rng = np.random.default_rng(11)
    for n, P in ((40, 4), (61, 3), (30, 5)):
        B = rng.integers(0, 5, (n, n)) * (rng.random((n, n)) < 0.3)
        for D in (B + B.T, (B + B.T) * 0.5 + np.eye(n) * 0.25):
            r = spatial.rect_nicol(sps.csr_array(D), P * P, P=P, Q=P)
            st = r.stats["starts"]
            skipped = {k: v for k, v in st.items() if v["state"].endswith("_transposed")}
            assert skipped  # cols_* are the transposes of rows_*
            for name, v in skipped.items():
                twin = v["state"][len("same_as_"):-len("_transposed")]
                assert v["max_load"] == st[twin]["max_load"]
                # the skipped start, run alone, gives its twin's value
                alone = spatial.rect_nicol(D, P * P, P=P, Q=P, starts=[name], refine=True,
                                           abandon=False)
                assert alone.stats["starts"][name]["max_load"] == v["max_load"]
            full = spatial.rect_nicol(D, P * P, P=P, Q=P, abandon=False)
            assert r.max_load <= full.max_load
    # not symmetric, or P != Q: nothing is skipped as a transpose
    D = rng.integers(0, 5, (40, 40))
    for P, Q in ((4, 4), (2, 8)):
        r = spatial.rect_nicol(D, P * Q, P=P, Q=Q)
        assert not any(v["state"].endswith("_transposed") for v in r.stats["starts"].values())


def _sparse_cases(seed):
    rng = np.random.default_rng(seed)
    for n, dens in ((300, 0.02), (800, 0.004), (1500, 0.003)):
        B = sps.random(n, n, density=dens, random_state=int(rng.integers(1 << 30)),
                       format="csr")
        yield sps.csr_array((rng.integers(1, 5, B.nnz), B.indices, B.indptr), shape=B.shape)
        k = int(np.sqrt(n))  # a grid graph: fixed points, abandoned starts
        T = sps.diags([1, 1, 1], [-1, 0, 1], shape=(k, k), dtype=np.int64)
        yield sps.csr_array((sps.kron(sps.identity(k), T) + sps.kron(T, sps.identity(k))) != 0,
                            dtype=np.int64)


def test_stop_rule_follows_progress_and_max_sweeps_caps():
    """Each start stops when a sweep does not lower its max load (the same half-sweeps and
    value when it runs alone, without the race), after at most max(10, P + Q) half-sweeps;
    an abandoned start is above the result; max_sweeps caps every run; a continuation that
    does not run leaves a fixed point (running it from the result changes nothing)."""
    seen = set()
    for A in _sparse_cases(2):
        for P, Q, ms in ((4, 4, 100), (8, 8, 100), (4, 16, 100), (8, 8, 1), (16, 16, 2)):
            r = spatial.rect_nicol(A, P * Q, P=P, Q=Q, max_sweeps=ms)
            cap = min(max(10, P + Q), 2 * ms)
            pol = r.stats["polish"]
            assert pol is None or pol["half_sweeps"] <= 2 * ms
            for name, v in r.stats["starts"].items():
                seen.add(v["state"])
                # (the random starts' entry sums their runs, each under the cap)
                assert v["half_sweeps"] <= v.get("runs", 1) * cap
                if v["state"] == "abandoned":
                    assert v["max_load"] > r.max_load
                if v["state"] == "stopped" and ms == 100 and name != "cols_uniform":
                    n1, n2 = A.shape
                    uni = ((np.arange(P + 1) * n1) // P, (np.arange(Q + 1) * n2) // Q)
                    # rows_uniform is the given uniform grid, columns set first
                    spec, key = ((uni, "given_0") if name == "rows_uniform" else (name, name))
                    alone = spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=[spec],
                                               abandon=False)
                    a = alone.stats["starts"][key]
                    assert (a["max_load"], a["half_sweeps"]) == \
                        (v["max_load"], v["half_sweeps"])
            if pol is not None and pol["half_sweeps"] == 0 and not pol.get("cut_moves") and \
                    r.stats["start"] != "random_starts":
                seen.add("fixed")
                R = np.unique(r.rects[:, :2])
                C = np.unique(r.rects[:, 2:])
                again = spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=[(R, C)],
                                           abandon=False)
                assert again.max_load == r.max_load
                assert np.array_equal(again.rects, r.rects)
    assert {"stopped", "abandoned", "fixed"} <= seen


def test_joint_bound_of_heavy_lines_never_above_the_optimum():
    """A few heavy rows and columns (power-law-like): the bound that cuts the heaviest lines
    of a side together is valid (<= the brute-force optimum), the same in the one-call default
    (C) and the engine's start list (numpy), and reaching it means optimal."""
    from wpart.spatial._nicol import AUTO

    rng = np.random.default_rng(27)
    reached = 0
    for _ in range(90):
        n1, n2 = (int(x) for x in rng.integers(2, 7, 2))
        D = rng.integers(0, 2, (n1, n2)) * (rng.random((n1, n2)) < 0.5)
        for ax in rng.integers(0, 2, int(rng.integers(1, 4))):
            i = int(rng.integers(n1 if ax == 0 else n2))
            heavy = rng.integers(0, 9, n2 if ax == 0 else n1)
            if ax == 0:
                D[i] += heavy
            else:
                D[:, i] += heavy
        P, Q = int(min(n1, rng.integers(1, 4))), int(min(n2, rng.integers(1, 4)))
        opt = _brute(D, P, Q)
        a = spatial.rect_nicol(D, P * Q, P=P, Q=Q, allow_empty=True)
        b = spatial.rect_nicol(D, P * Q, P=P, Q=Q, allow_empty=True, starts=list(AUTO))
        lb = a.stats.get("lower_bound") or 0.0
        assert lb == (b.stats.get("lower_bound") or 0.0)
        assert lb <= opt
        assert a.max_load >= opt and a.max_load == b.max_load
        reached += lb == opt
    assert reached >= 30


def _power_law(n, nnz, seed, fl=False, a=1.6, fresh=False):
    """Zipf rows and columns (exponent `a`, shuffled, half the rows uniform): a few lines nearly
    fill a block. `fresh`: as bench_spatial_fresh makes them, half the columns uniform too and
    a cell's summed duplicates capped at 3 (no single cell decides the bound)."""
    rng = np.random.default_rng(seed)
    pr, pc = rng.permutation(n), rng.permutation(n)
    r = pr[np.minimum(rng.zipf(a, nnz) - 1, n - 1)]
    c = pc[np.minimum(rng.zipf(a, nnz) - 1, n - 1)]
    r = np.where(rng.random(nnz) < 0.5, r, rng.integers(0, n, nnz))
    if fresh:
        c = np.where(rng.random(nnz) < 0.5, c, rng.integers(0, n, nnz))
    v = rng.random(nnz) * 3 + 0.5 if fl else rng.integers(1, 4, nnz)
    A = sps.csr_array((v, (r, c)), shape=(n, n))
    A.sum_duplicates()
    if fresh:
        A.data = np.minimum(A.data, 3)
    return A


def test_heavy_line_matrix_runs_the_diagonal_start_last():
    """Where a line nearly fills a block, the default runs its diagonal start after the
    stored-entry and uniform ones, without the race: the same grid as the engine's start list,
    never above a start that ran, and the diagonal start not run once another reached the
    bound."""
    from wpart.spatial._nicol import AUTO

    skipped = 0
    for seed in range(8):
        A = _power_law(300 + 60 * seed, 2000 + 400 * seed, seed, fl=seed % 4 == 3)
        for P, Q in [(4, 4), (4, 8), (8, 2), (3, 5)]:
            a = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
            b = spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(AUTO))
            assert a.max_load == b.max_load and np.array_equal(a.rects, b.rects)
            assert dict(a.stats["starts"]) == dict(b.stats["starts"])
            ran = [v["max_load"] for v in a.stats["starts"].values()
                   if v["max_load"] is not None]
            assert a.max_load <= min(ran) * (1 + 1e-12)  # (float sums: a last bit)
            skipped += a.stats["starts"]["diag_interleaved"]["state"] == "not_run_bound"
    assert skipped >= 10


def test_stages_by_grid_size():
    """The default's stages by grid size (rect_fast.c): below 64 blocks the starts and their
    continuation only; from 64 the cut moves and the plain half-sweeps after them, the SGO kick
    itself from 256 (below, its stats report 0 iterations and 0 half-sweeps), at P != Q below
    1,024 blocks only on a heavy-line matrix (its joint-bound start ran); the result is the
    grid after the kick's stage, never above the cut moves' grid."""
    seen = set()
    for A in _sparse_cases(7):
        for P, Q in ((4, 4), (3, 5), (8, 8), (4, 16), (16, 16), (8, 32)):
            r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
            pol = r.stats["polish"]
            if P * Q < 64:
                assert pol is None or "cut_moves" not in pol
                seen.add("starts only")
                continue
            if r.stats["bound_reached"]:
                continue
            assert r.max_load == pol["kick_max_load"] <= pol["cut_move_max_load"]
            if P * Q < 256:
                assert pol["kick_iterations"] == pol["kick_half_sweeps"] == 0
                seen.add("no kick")
            elif P != Q and "joint_bound" not in r.stats["starts"]:
                assert pol["kick_iterations"] == pol["kick_half_sweeps"] == 0
                seen.add("no kick at P != Q")
            else:
                assert pol["kick_iterations"] >= 1
                seen.add("kick")
    assert seen == {"starts only", "no kick", "no kick at P != Q", "kick"}


def test_stage_seconds_follow_the_stages_that_ran():
    """``stats["stage_seconds"]`` of the default: the stages that ran, in the order they run,
    each a non-negative duration, summing to at most the core call's seconds; the random
    starts, the nic members, the cut moves and the kick there exactly when their stats say
    they ran (by grid size as in test_stages_by_grid_size)."""
    from wpart import _core
    from wpart.spatial._nicol import STAGES

    # the names the docstring of rect_nicol lists, one list in the binding
    assert STAGES == _core.spatial_rect_stages() == (
        "setup", "starts", "random_starts", "nic", "cut_moves", "kick", "plain", "finish")
    seen = set()
    for A in _sparse_cases(7):
        for P, Q in ((4, 4), (3, 5), (8, 8), (4, 16), (16, 16), (8, 32)):
            r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
            ss, st = r.stats["stage_seconds"], r.stats
            names = list(ss)
            assert names == [s for s in STAGES if s in ss]  # in order
            assert {"setup", "starts", "finish"} <= set(names)
            assert all(v >= 0.0 for v in ss.values())
            assert sum(ss.values()) <= st["seconds"] + 1e-6
            assert ("random_starts" in ss) == ("random_starts" in st["starts"])
            if "random_starts" in ss:
                assert 4 <= P * Q < 64
                seen.add("random")
            pol = st["polish"] or {}
            assert ("cut_moves" in ss) == ("cut_moves" in pol)
            if P * Q < 64:
                assert not {"nic", "cut_moves", "kick", "plain"} & set(ss)
                continue
            seen.add("cut moves" if "cut_moves" in ss else "bound")
            if pol.get("kick_iterations", 0) >= 1:
                assert "kick" in ss
                seen.add("kick")
            if "kick" in ss:
                assert P * Q >= 256
    assert seen >= {"random", "cut moves", "kick"}
    # the default on a dense array, and through the engine's call of the same kernel (a
    # progress argument), the same stages
    D = np.arange(64, dtype=np.int64).reshape(8, 8) % 5
    a, b = (spatial.rect_nicol(D, 16, P=4, Q=4, progress=p) for p in (None, False))
    assert a.max_load == b.max_load
    assert list(a.stats["stage_seconds"]) == list(b.stats["stage_seconds"])
    assert {"setup", "starts", "finish"} <= set(a.stats["stage_seconds"])


def test_random_starts_after_the_race_from_4_to_63_blocks():
    """From 4 to 63 blocks (not on a banded matrix) four of SARMA's random starts run after the
    race: reported in ``stats["starts"]["random_starts"]``, the result where one of them went
    below every fixed start (never above them), the same grid on every call (fixed seeds) and
    from the engine's ``starts=list(AUTO)`` (one kernel); none below 4 blocks nor from 64.
    Where the grid before them is within 1.19 x the lower bound, the cut moves run in their
    place (``runs`` 0, ``cut_moves``), under the same rules."""
    from wpart.spatial._nicol import AUTO

    kept, ways = 0, set()
    for seed in range(12):
        if seed % 2:  # uniform random entries: grids near the bound (the cut moves)
            B = sps.random(300, 300, density=0.02, random_state=seed, format="csr")
            A = sps.csr_array((np.ones(B.nnz, np.int64), B.indices, B.indptr), shape=B.shape)
        else:  # a random geometric graph in random order (the random starts)
            xy = np.random.default_rng(seed).random((400, 2))
            i, j = np.nonzero(np.hypot(*(xy[:, None, :] - xy[None, :, :]).T) < 0.08)
            A = sps.csr_array((np.ones(i.size, np.int64), (i, j)), shape=(400, 400))
        r = spatial.rect_nicol(A, 16, P=4, Q=4)
        st = r.stats["starts"]
        rnd = st["random_starts"]
        fixed = min(v["max_load"] for k, v in st.items()
                    if k != "random_starts" and v["max_load"] is not None)
        lb = r.stats["lower_bound"]
        before = min(fixed, (r.stats["polish"] or {}).get("max_load") or np.inf)
        if "cut_moves" in rnd:
            ways.add("moves")
            assert rnd["runs"] == 0 and rnd["half_sweeps"] == 0 and before < 1.19 * lb
        else:
            ways.add("random")
            assert rnd["runs"] in (4, 5) or r.max_load <= lb  # (5: and SARMA's sgo_2dr_nic)
            assert before >= 1.19 * lb
        assert r.max_load <= fixed and rnd["max_load"] >= r.max_load
        if rnd["state"] == "kept":
            kept += 1
            assert r.stats["start"] == "random_starts"
            assert r.max_load == rnd["max_load"] < fixed
        else:
            assert rnd["state"] == "dropped" and r.stats["start"] != "random_starts"
        assert np.array_equal(spatial.rect_nicol(A, 16, P=4, Q=4).rects, r.rects)
        step = spatial.rect_nicol(A, 16, P=4, Q=4, starts=list(AUTO))
        assert np.array_equal(step.rects, r.rects)
        assert step.stats["starts"]["random_starts"] == rnd
    assert kept >= 2 and ways == {"moves", "random"}
    for P, Q in ((1, 3), (8, 8)):
        r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        assert "random_starts" not in r.stats["starts"]


def _noisy_blocks(seed: int) -> sps.csr_array:
    """15 random diagonal blocks of 40-119 rows (10 % dense) and a fifth as many entries
    again anywhere: the diagonal start ends far below the others at 4 x 4."""
    rng = np.random.default_rng(seed)
    B = sps.block_diag([sps.random(s, s, density=0.1, random_state=100 * seed + k)
                        for k, s in enumerate(rng.integers(40, 120, size=15))], format="csr")
    n = B.shape[0]
    B = (B + sps.random(n, n, density=0.2 * B.nnz / n / n, random_state=seed + 50)).tocsr()
    return sps.csr_array((np.ones(B.nnz, np.int64), B.indices, B.indptr), shape=B.shape)


def test_random_starts_not_run_where_one_start_ends_far_below_the_others():
    """Above 1.7 x the lower bound, where one start of the race ended 1.2 x or more below
    every other, the random starts do not run (``runs`` 0, ``"not_run"``; both paths); on
    these matrices, run from the same grid, they would have kept nothing. Below that ratio
    they run as before."""
    from wpart import _core
    from wpart.spatial._nicol import AUTO

    for seed, gated in ((0, False), (1, True), (2, True), (3, True)):
        A = _noisy_blocks(seed)
        r = spatial.rect_nicol(A, 16, P=4, Q=4)
        st, lb = r.stats["starts"], r.stats["lower_bound"]
        low = sorted(v["max_load"] for k, v in st.items()
                     if k != "random_starts" and v["max_load"] is not None)
        assert low[0] > 1.7 * lb and (low[1] >= 1.2 * low[0]) == gated
        rnd = st["random_starts"]
        step = spatial.rect_nicol(A, 16, P=4, Q=4, starts=list(AUTO))
        assert step.stats["starts"]["random_starts"] == rnd
        assert np.array_equal(step.rects, r.rects)
        if not gated:
            assert rnd["runs"] == 4
            continue
        assert rnd == {"max_load": None, "half_sweeps": 0, "runs": 0, "state": "not_run"}
        assert r.stats["start"] == "diag_interleaved"
        R = np.append(np.unique(r.rects[:, 0]), A.shape[0])
        C = np.append(np.unique(r.rects[:, 2]), A.shape[1])
        args = (*A.shape, A.indptr.astype(np.int64), A.indices.astype(np.int64),
                np.ones(A.nnz), 4, 4, R, C, float(r.max_load), lb, 200)
        R2, C2, v, runs, _, best, kept, *_ = _core.spatial_rect_random(*args)
        assert runs == 4 and not kept and best > r.max_load and v == r.max_load
        assert np.array_equal(R2, R) and np.array_equal(C2, C)
        *_, runs, _, _, kept, _, _ = _core.spatial_rect_random(*args, low1=low[0],
                                                               low2=low[1])
        assert runs == 0 and not kept


def test_random_starts_core_call_rejects_a_malformed_grid():
    """The engine's call of the random starts (``_core.spatial_rect_random``) names a grid of
    the wrong length and a non-positive half-sweep cap, and changes nothing."""
    from wpart import _core

    B = sps.random(40, 30, density=0.2, random_state=3, format="csr")
    rp, ci = B.indptr.astype(np.int64), B.indices.astype(np.int64)
    w = np.ones(B.nnz)
    R, C = np.array([0, 20, 40]), np.array([0, 10, 20, 30])
    with pytest.raises(ValueError, match="malformed grid for the random starts"):
        _core.spatial_rect_random(40, 30, rp, ci, w, 2, 3, R[:-1], C, 99.0, 0.0, 20)
    with pytest.raises(ValueError, match="max_half must be positive"):
        _core.spatial_rect_random(40, 30, rp, ci, w, 2, 3, R, C, 99.0, 0.0, 0)
    R2, C2, v, runs, *_ = _core.spatial_rect_random(40, 30, rp, ci, w, 2, 3, R, C, 1e9, 0.0,
                                                     20)
    assert np.array_equal(R, [0, 20, 40]) and np.array_equal(C, [0, 10, 20, 30])  # copies
    assert runs == 4 and v < 1e9 and R2[-1] == 40 and C2[-1] == 30


def test_heavy_line_sgo_to_its_stop_rule_only_from_1024_blocks():
    """On a power-law matrix of 256 to 1,023 blocks the kick runs its 100-iteration SGO runs
    only, not SARMA's sgo_2dr_nic from the uniform grid to its stop rule (RK_HEAVY_FROM in
    rect_kick.c; 720-1,130 iterations on these matrices when it ran, for the same grids)."""
    ran = 0
    # (the first two end near the piece bound at 16 x 16 and at the joint bound at 8 x 32, no
    # kick; the flatter two go on to the stages from the piece grid at 16 x 16)
    for n, nnz, a in ((900, 6000, 1.6), (2600, 21000, 1.5), (1200, 9000, 1.4),
                      (2000, 12000, 1.3)):
        for seed in range(3):
            A = _power_law(n, nnz, seed, a=a, fresh=True)
            for P, Q in ((16, 16), (8, 32)):
                r = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
                pol = r.stats["polish"]
                if r.stats["bound_reached"] or pol is None or "kick_iterations" not in pol:
                    continue
                assert pol["kick_iterations"] <= 202
                assert r.max_load <= pol["cut_move_max_load"]
                assert r.max_load >= r.stats["lower_bound"]
                ran += 1
    assert ran >= 4
