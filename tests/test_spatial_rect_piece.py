"""The piece start of rect_nicol's default (rect_piece.c): its 1D partition is exact (brute
force over every cut vector, integral weights to the least integer, float weights to 1e-6, empty
lines, more stripes than lines, any anchor), every grid is at or above its cuts' piece values (so
the least of them is a lower bound: brute force over every grid), and on heavy-line matrices from
256 blocks the default reports it and keeps its promises: its piece bound raises the proven
bound, which no grid goes below; near that bound it is the result and nothing else runs; within
1.2 x it no other start runs and the stages continue its grid; otherwise it is the result only
where lower than the grid the other stages reached."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sps

from wpart import _core, spatial
from wpart.spatial._nicol import AUTO

from test_spatial_rect_fast import _matrices, _powerlaw
from oracles.spatial import grid_max


def _piece_value(M, cuts, Ko):
    """max over stripes of max(largest column piece, stripe load / Ko) (M dense, rows cut)."""
    v = 0.0
    for a, b in zip(cuts[:-1], cuts[1:]):
        if b > a:
            s = M[a:b].sum(axis=0)
            v = max(v, float(s.max()), float(s.sum()) / Ko)
    return v


def _oracle(M, K, Ko):
    n = M.shape[0]
    best = float("inf")
    for inner in itertools.combinations_with_replacement(range(n + 1), K - 1):
        best = min(best, _piece_value(M, (0, *inner, n), Ko))
    return best


def _call(A, P, Q, d, anchor):
    A = sps.csr_array(A)
    A.sort_indices()
    rp = A.indptr.astype(np.int64)
    ci = A.indices.astype(np.int64)
    return _core.spatial_rect_piece_cuts(A.shape[0], A.shape[1], rp, ci,
                                         A.data.astype(np.float64), P, Q, d, anchor)


@pytest.mark.parametrize("kind", ["int", "unit", "float"])
def test_piece_cuts_are_the_exact_1d_partition(kind):
    rng = np.random.default_rng({"int": 1, "unit": 2, "float": 3}[kind])
    checked = 0
    for _ in range(150):
        n1, n2 = (int(x) for x in rng.integers(1, 8, 2))
        M = rng.integers(1, 6, (n1, n2)) * (rng.random((n1, n2)) < rng.uniform(0.2, 0.9))
        if kind == "unit":
            M = (M > 0).astype(np.int64)
        elif kind == "float":
            M = M * rng.uniform(0.5, 2.0, (n1, n2))
        if not M.any():
            continue
        P, Q = (int(x) for x in rng.integers(1, 5, 2))
        for d, K, Ko, D in ((0, P, Q, M), (1, Q, P, M.T)):
            want = _oracle(D, K, Ko)
            anchor = float(rng.choice([0.0, want * 0.5, want, want * 3.0]))
            cuts, value = _call(M, P, Q, d, anchor)
            assert cuts[0] == 0 and cuts[-1] == D.shape[0] and len(cuts) == K + 1
            assert np.all(np.diff(cuts) >= 0)
            got = _piece_value(D, cuts, Ko)
            if kind == "float":
                assert want <= got <= want * (1 + 1e-5) and abs(value - got) <= 1e-5 * got
            else:  # integral: the least integer B (block loads are integers)
                assert want <= got <= value == np.ceil(want)
            checked += 1
    assert checked > 200


def test_piece_cuts_search_from_far_below_and_past_empty_lines():
    """The integral search guesses the value from how much load a failed probe covered: a
    probe that covers only empty leading lines (no load: no guess from it), anchors far below
    the value, and long matrices all end at the least integer B."""
    rng = np.random.default_rng(7)
    for n1, n2, P, Q, empty in ((9, 5, 3, 2, 4), (40, 12, 4, 3, 30), (13, 13, 5, 1, 0),
                                (60, 7, 6, 2, 10)):
        M = rng.integers(1, 9, (n1, n2)) * (rng.random((n1, n2)) < 0.5)
        M[:empty] = 0
        M[empty % n1] = 9  # (a heavy first line after them: a probe can fail on it alone)
        M[-1, 0] = 7
        for d, K, Ko, D in ((0, P, Q, M), (1, Q, P, M.T)):
            if K > 6 or D.shape[0] > 40:  # (the brute force: a few hundred thousand cut sets)
                continue
            want = _oracle(D, K, Ko)
            for anchor in (0.0, 1.0, want / 7.0):
                cuts, value = _call(M, P, Q, d, anchor)
                assert value == np.ceil(want) and _piece_value(D, cuts, Ko) <= value
                assert cuts[0] == 0 and cuts[-1] == D.shape[0]


def test_piece_cuts_refuse_bad_arguments():
    A = sps.csr_array(np.array([[1, 0], [0, 2]]))
    for P, Q, d, anchor in ((0, 1, 0, 0.0), (1, 1, 2, 0.0), (1, 1, 0, float("nan")),
                            (1, 1, 0, -1.0)):
        with pytest.raises(ValueError):
            _call(A, max(P, 1) if P else 0, Q, d, anchor)


def test_every_grid_is_at_or_above_its_piece_values():
    """The lemma behind the piece bound: a column's piece inside a row stripe lies in one block
    and a stripe's load spreads over Q blocks, so every grid's max load is at least the piece
    value of its row cuts (and of its column cuts on the transpose); the least piece value over
    the cuts (the oracle, and the core's value) is then at most the optimum. Every grid of small
    random matrices, ties and empty lines included."""
    rng = np.random.default_rng(11)
    grids = 0
    for _ in range(60):
        n1, n2 = (int(x) for x in rng.integers(1, 7, 2))
        M = rng.integers(0, 5, (n1, n2)) * (rng.random((n1, n2)) < rng.uniform(0.2, 0.9))
        if not M.any():
            continue
        P, Q = (int(x) for x in rng.integers(1, 4, 2))
        opt = math.inf
        for ri in itertools.combinations_with_replacement(range(n1 + 1), P - 1):
            R = (0, *ri, n1)
            pr = _piece_value(M, R, Q)
            for cj in itertools.combinations_with_replacement(range(n2 + 1), Q - 1):
                C = (0, *cj, n2)
                v = grid_max(M, R, C)
                assert v >= pr and v >= _piece_value(M.T, C, P)
                opt = min(opt, v)
                grids += 1
        for d in (0, 1):
            _, value = _call(M, P, Q, d, 0.0)
            assert value <= opt
    assert grids > 1000


def _arrow(seed, n, w):
    """A band of 4 per row with w dense border rows and columns (heavy lines far above the
    bound's share: the piece grid sits well above the bound)."""
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), 4)
    cols = np.clip(rows + rng.integers(-3, 4, rows.size), 0, n - 1)
    br, bc = np.repeat(np.arange(w), n), np.tile(np.arange(n), w)
    keep = rng.random(br.size) < 0.7
    r = np.concatenate([rows, br[keep], bc[keep]])
    c = np.concatenate([cols, bc[keep], br[keep]])
    A = sps.csr_array(sps.coo_array((np.ones(r.size, np.int64), (r, c)), shape=(n, n)))
    A.sum_duplicates()
    return A


def test_piece_start_on_heavy_line_matrices():
    near = dropped = at_bound = continued = raised = 0
    mats = [_powerlaw(seed, 500 + 60 * seed, 700, 3000 + 400 * seed) for seed in range(5)]
    for A in mats + [_arrow(1, 900, 3), _arrow(2, 1200, 2)]:
        for P, Q in ((8, 32), (16, 16), (32, 32)):
            for weights in ("values", "stored"):
                r = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights)
                r.validate()
                assert r.max_load == r.loads.max()
                starts = r.stats["starts"]
                j = starts.get("joint_bound")
                if j is not None and j["state"] == "stopped":  # at the bound: no piece start
                    assert "pieces" not in starts and r.max_load == r.stats["lower_bound"]
                    at_bound += 1
                    continue
                p = starts["pieces"]
                assert p["half_sweeps"] >= 1 and (j is None or j["half_sweeps"] == 1)
                lb = r.stats["lower_bound"]
                # the piece bound: each side's exact piece value is a lower bound, and the
                # default's bound is at least both (integral loads); no grid goes below it
                B = r.A
                vals = [_core.spatial_rect_piece_cuts(
                    B.shape[0], B.shape[1], B.indptr, B.indices,
                    B.data.astype(np.float64), P, Q, d, 0.0)[1] for d in (0, 1)]
                assert lb >= max(vals) and lb <= r.max_load
                raised += lb == max(vals)
                for other in (spatial.rect_uniform(A, P * Q, P=P, Q=Q, weights=weights),
                              spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights,
                                                 starts=list(AUTO))):
                    assert other.max_load >= lb
                if p["state"] == "near_bound":  # the result; nothing else ran
                    near += 1
                    assert r.max_load == min(p["max_load"], j["max_load"] if j else math.inf)
                    assert r.max_load <= 1.1 * lb and r.stats["polish"] is None
                    assert r.stats["start"] == ("pieces" if r.max_load == p["max_load"]
                                                else "joint_bound")
                    assert all(v["state"].startswith("not_run") for k, v in starts.items()
                               if k not in ("pieces", "joint_bound"))
                elif p["state"] == "continued":  # no other start ran; the stages did
                    continued += 1
                    assert 1.07 * lb < p["max_load"] <= 1.2 * lb
                    assert r.max_load <= p["max_load"] and r.stats["polish"] is not None
                    assert r.stats["start"] in ("pieces", "joint_bound")
                    assert all(v["state"].startswith("not_run") for k, v in starts.items()
                               if k not in ("pieces", "joint_bound"))
                else:
                    step = spatial.rect_nicol(A, P * Q, P=P, Q=Q, weights=weights,
                                              starts=list(AUTO))
                    assert p["max_load"] > 1.2 * lb and r.max_load <= step.max_load
                    assert r.max_load <= p["max_load"]
                    if p["state"] == "kept":
                        assert r.max_load == p["max_load"] and r.stats["start"] == "pieces"
                    else:
                        dropped += 1
                        assert p["state"] == "dropped" and r.stats["start"] != "pieces"
    print(f"near {near}, continued {continued}, dropped {dropped}, at the bound {at_bound}, "
          f"bound from the pieces {raised}")
    assert near >= 10 and continued >= 1 and dropped >= 1 and at_bound >= 3 and raised >= 5


def test_piece_start_only_on_heavy_lines_from_256_blocks():
    A = _powerlaw(2, 600, 700, 3800)
    for P, Q in ((8, 8), (4, 32), (8, 16)):
        assert "pieces" not in spatial.rect_nicol(A, P * Q, P=P, Q=Q).stats["starts"]
    for B in _matrices(5, 3):  # uniform random sparse: no heavy line
        assert "pieces" not in spatial.rect_nicol(B, 256, P=16, Q=16).stats["starts"]
