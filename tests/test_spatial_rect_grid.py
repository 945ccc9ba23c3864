"""Rectilinear grids on the nonzeros (#27): the symmetric methods against brute force and an
independent greedy-probe oracle, refinements never worse than their start, sparse == dense,
RECT-NICOL's engine (starts, user cuts, stop rule, shared incumbent, time limit)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sps

import wpart
from wpart import spatial
from oracles.spatial import grid_max

SYM = ("rect_sym_uniform", "rect_sym_pal", "rect_sym_opal", "rect_sym_rac", "rect_sym_refine")


def _sym_max(D, c):
    n1, n2 = D.shape
    return grid_max(D, np.minimum(c, n1), np.minimum(c, n2))


def _brute_sym(D, P):
    N = max(D.shape)
    best = np.inf
    for mid in itertools.combinations_with_replacement(range(N + 1), P - 1):
        best = min(best, _sym_max(D, [0, *mid, N]))
    return best


def _greedy_probe(D, P, L):
    """Independent oracle of the ordered probe: each interval grows index by index while every
    block it closes (against the earlier intervals, and its diagonal block) stays <= L."""
    N = max(D.shape)
    E = np.zeros((N, N))
    E[: D.shape[0], : D.shape[1]] = D
    cuts = [0]
    a = 0
    while a < N:
        if len(cuts) == P + 1:
            return None
        b = a
        while b < N:
            ok = E[a:b + 1, a:b + 1].sum() <= L
            for t in range(len(cuts) - 1):
                r0, r1 = cuts[t], cuts[t + 1]
                ok = ok and E[r0:r1, a:b + 1].sum() <= L and E[a:b + 1, r0:r1].sum() <= L
            if not ok:
                break
            b += 1
        if b == a:
            return None
        cuts.append(b)
        a = b
    return cuts + [N] * (P + 1 - len(cuts))


def _cases(seed, count, nmax=6):
    rng = np.random.default_rng(seed)
    for k in range(count):
        n1 = int(rng.integers(1, nmax + 1))
        n2 = n1 if k % 3 else int(rng.integers(1, nmax + 1))
        kind = k % 4
        if kind == 0:
            D = rng.integers(0, 4, (n1, n2))  # ties and zeros
        elif kind == 1:
            D = (rng.random((n1, n2)) < 0.3) * rng.integers(1, 9, (n1, n2))
        elif kind == 2:
            D = np.ones((n1, n2), np.int64)
        else:
            D = np.zeros((n1, n2), np.int64)
            D[rng.integers(0, n1), rng.integers(0, n2)] = 5
        yield D.astype(np.int64)


def test_methods_listed():
    for name in SYM + ("rect_refine",):
        assert name in spatial.METHODS and callable(getattr(spatial, name))


def test_opal_is_the_smallest_load_its_greedy_probe_accepts():
    checked = 0
    for D in _cases(1, 120):
        N = max(D.shape)
        for P in (1, 2, 3):
            if P > N:
                continue
            r = spatial.rect_sym_opal(D, P * P, allow_empty=True)
            L = next(L for L in range(int(D.sum()) + 1) if _greedy_probe(D, P, L) is not None)
            assert r.max_load == _sym_max(D, _greedy_probe(D, P, L)) <= L
            assert r.params["cuts"] == _greedy_probe(D, P, L)
            checked += 1
    assert checked > 200


def test_symmetric_methods_valid_and_never_below_the_optimum():
    for D in _cases(2, 80):
        N = max(D.shape)
        for P in (1, 2, 3):
            if P > N:
                continue
            opt = _brute_sym(D, P)
            for name in SYM:
                r = getattr(spatial, name)(D, P * P, allow_empty=True)
                r.validate()
                c = r.params["cuts"]
                assert len(c) == P + 1 and c[0] == 0 and c[-1] == N
                assert r.max_load == _sym_max(D, c) >= opt, name
            # one cut: moving it to its best place is the optimum
            if P == 2:
                assert spatial.rect_sym_refine(D, 4, allow_empty=True).max_load == opt


def test_symmetric_refine_never_worse_than_its_start():
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(2, 12))
        D = rng.integers(0, 5, (n, n)) * (rng.random((n, n)) < 0.5)
        P = int(rng.integers(1, min(n, 4) + 1))
        mid = np.sort(rng.integers(0, n + 1, P - 1))
        c = np.array([0, *mid, n])
        r = spatial.rect_sym_refine(D, P * P, start=c, allow_empty=True)
        assert r.max_load <= _sym_max(D, c)
        for s in ("pal", "opal", "rac", "uniform"):
            start = {"pal": spatial.rect_sym_pal, "opal": spatial.rect_sym_opal,
                     "rac": spatial.rect_sym_rac, "uniform": spatial.rect_sym_uniform}[s]
            base = start(D, P * P, allow_empty=True).max_load
            assert spatial.rect_sym_refine(D, P * P, start=s, allow_empty=True).max_load <= base


def test_sparse_equals_dense():
    rng = np.random.default_rng(4)
    for k in range(30):
        n1, n2 = (int(x) for x in rng.integers(1, 40, 2))
        D = (rng.random((n1, n2)) < 0.2) * rng.integers(1, 6, (n1, n2))
        if k % 2:
            D = D * 0.37
        for name in SYM + ("rect_refine", "rect_nicol"):
            for m in (1, 4, 6):
                a = getattr(spatial, name)(D, m, allow_empty=True)
                b = getattr(spatial, name)(sps.csr_array(D), m, allow_empty=True)
                np.testing.assert_array_equal(a.rects, b.rects)
                assert a.max_load == b.max_load


def test_non_square_m_cuts_the_finer_dimension_symmetrically():
    D = np.arange(1, 37).reshape(6, 6)
    r = spatial.rect_sym_pal(D, 6, P=3, Q=2)
    r.validate()
    assert r.params["P"] == 3 and r.params["Q"] == 2 and len(r.params["cuts"]) == 4
    with pytest.raises(wpart.WpartValueError, match="P"):
        spatial.rect_sym_pal(D, 6, P=4)


def test_refine_never_worse_than_a_given_grid_and_max_sweeps_is_a_cap():
    rng = np.random.default_rng(5)
    for _ in range(40):
        n1, n2 = (int(x) for x in rng.integers(2, 30, 2))
        D = rng.integers(0, 6, (n1, n2)) * (rng.random((n1, n2)) < 0.4)
        P, Q = int(rng.integers(1, min(n1, 5) + 1)), int(rng.integers(1, min(n2, 5) + 1))
        R = np.array([0, *np.sort(rng.integers(0, n1 + 1, P - 1)), n1])
        C = np.array([0, *np.sort(rng.integers(0, n2 + 1, Q - 1)), n2])
        before = grid_max(D, R, C)
        r = spatial.rect_refine(D, P * Q, P=P, Q=Q, start=(R, C), allow_empty=True)
        assert r.max_load <= before
        n = spatial.rect_nicol(D, P * Q, P=P, Q=Q, starts=[(R, C)], allow_empty=True)
        assert n.max_load <= before
        one = spatial.rect_nicol(D, P * Q, P=P, Q=Q, starts=[(R, C)], max_sweeps=1,
                                 refine=False, allow_empty=True)
        assert one.stats["starts"]["given_0"]["half_sweeps"] <= 2
        assert one.max_load <= before


def test_engine_never_worse_than_any_start():
    rng = np.random.default_rng(6)
    for k in range(30):
        n = int(rng.integers(4, 40))
        D = rng.integers(0, 9, (n, n)) * (rng.random((n, n)) < 0.3)
        if k % 3 == 0:
            D = D.astype(float) * 0.1
        P = int(rng.integers(1, 5))
        r = spatial.rect_nicol(D, P * P, P=P, Q=P, abandon=False, allow_empty=True)
        vals = [v["max_load"] for v in r.stats["starts"].values()]
        assert r.max_load <= min(vals) + 1e-9 * max(1.0, min(vals))
        for name in ("rows_stored", "cols_uniform", "sym_pal", "sym_rac"):
            alone = spatial.rect_nicol(D, P * P, P=P, Q=P, starts=[name], refine=True,
                                       allow_empty=True)
            both = spatial.rect_nicol(D, P * P, P=P, Q=P, starts=[name, "rows_load"],
                                      refine=True, abandon=False, allow_empty=True)
            # each start runs the same in a call with others: the same phase-1 value
            assert both.stats["starts"][name]["max_load"] == \
                alone.stats["starts"][name]["max_load"]
            v = alone.stats["starts"][name]["max_load"]
            assert both.max_load <= v + 1e-12 * max(1.0, v)  # float sums: another order
        assert r.max_load <= spatial.rect_uniform(D, P * P, P=P, Q=P, allow_empty=True).max_load


def test_stop_rule_and_stats():
    rng = np.random.default_rng(7)
    D = rng.integers(0, 9, (60, 50))
    r = spatial.rect_nicol(D, 16, P=4, Q=4)
    assert r.status == "feasible" and r.stats["start"] in r.stats["starts"]
    for name, v in r.stats["starts"].items():
        if name == "random_starts":  # (after the race: each run stops by the same rule)
            assert v["half_sweeps"] <= v["runs"] * max(10, 8) and v["runs"] <= 4
            assert v["state"] in ("kept", "dropped")
            assert (v["state"] == "kept") == (r.stats["start"] == name)
            continue
        assert v["half_sweeps"] <= max(10, 8)
        assert v["state"] in ("stopped", "abandoned") or v["state"].startswith("same_as_")
    assert r.stats["polish"]["max_load"] == r.max_load or \
        r.stats["starts"]["random_starts"]["max_load"] == r.max_load < \
        r.stats["polish"]["max_load"]
    assert r.params["patience"] == 2 and r.params["refine"] == "auto"
    s = spatial.rect_nicol(D, 16, P=4, Q=4, patience="sarma", refine=False)
    assert s.params["patience"] == 10 and s.stats["polish"] is None


def test_stored_start_counts_entries_not_values():
    # one heavy row: the load split and the stored-entry split differ
    D = np.zeros((8, 8), np.int64)
    D[0, :] = 100
    D[1:, :] = 1
    r = spatial.rect_nicol(D, 4, P=2, Q=2, starts=["rows_stored", "rows_load"],
                           refine=False, abandon=False)
    assert set(r.stats["starts"]) == {"rows_stored", "rows_load"}


def test_bad_starts_name_the_argument():
    D = np.ones((6, 6))
    for bad in (["diagonal"], [([0, 3], [0, 6])], [([0, 3, 7], [0, 3, 6])],
                [([0, 4, 3], [0, 3, 6])], ["sym_pal"]):
        with pytest.raises(wpart.WpartValueError, match="starts"):
            spatial.rect_nicol(D, 6, P=2, Q=3, starts=bad)
    with pytest.raises(wpart.WpartTypeError, match="starts"):
        spatial.rect_nicol(D, 4, starts=[3])
    with pytest.raises(wpart.WpartValueError, match="patience"):
        spatial.rect_nicol(D, 4, patience="never")


def test_time_limit_returns_a_valid_grid():
    rng = np.random.default_rng(8)
    A = sps.random(3000, 3000, density=0.002, random_state=1, format="csr")
    for fn in (spatial.rect_nicol, spatial.rect_refine, spatial.rect_sym_pal,
               spatial.rect_sym_refine):
        r = fn(A, 256, time_limit=1e-9)
        r.validate()
        assert r.rects.shape == (256, 4) and r.loads.sum() == pytest.approx(r.total)
    assert rng is not None


def test_one_by_one_and_degenerate():
    for X in (np.array([[5]]), sps.csr_array(np.array([[5]]))):
        for name in SYM + ("rect_refine", "rect_nicol"):
            r = getattr(spatial, name)(X, 1)
            assert r.max_load == 5 and r.rects.tolist() == [[0, 1, 0, 1]]
            r = getattr(spatial, name)(X, 4, allow_empty=True)
            assert r.max_load == 5 and r.rects.shape == (4, 4)
    Z = np.zeros((5, 4), np.int64)
    for name in SYM + ("rect_refine", "rect_nicol"):
        assert getattr(spatial, name)(Z, 4).max_load == 0


def test_weights_and_paths_pass_through(tmp_path):
    p = tmp_path / "a.mtx"
    p.write_text("%%MatrixMarket matrix coordinate real general\n4 4 5\n1 1 2.5\n2 2 1.0\n"
                 "3 3 4.0\n4 4 0.5\n4 1 3.0\n")
    for name in SYM + ("rect_refine", "rect_nicol"):
        fn = getattr(spatial, name)
        assert fn(p, 4).total == pytest.approx(11.0)
        c = fn(p, 4, weights="count")
        assert c.total == 5 and c.loads.dtype == np.int64, name
        assert fn(p, 4, P=2, Q=2, time_limit=10).status == "feasible"


def test_refine_never_worse_than_its_sgo_runs_and_the_default():
    # rect_refine: SGO from three grids, then balanced Nicol from each; never above any SGO
    # grid, nor the polished grid; the default's race / short continuation never above the
    # uniform grid and equal for sparse and dense input
    rng = np.random.default_rng(11)
    for k in range(25):
        n = int(rng.integers(6, 40))
        D = rng.integers(0, 9, (n, n)) * (rng.random((n, n)) < 0.3)
        if k % 4 == 0:
            D = D.astype(float) * 0.3
        P, Q = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        r = spatial.rect_refine(D, P * Q, P=P, Q=Q, allow_empty=True)
        pol = r.stats["polish"]
        assert r.max_load <= pol["max_load"] + 1e-12 * max(1.0, r.max_load)
        if pol and pol.get("sgo_runs"):  # the cut moves ran after the SGO runs
            assert pol["cut_moves"] >= 0
        for run in pol.get("sgo_runs", []):
            assert r.max_load <= run["max_load"] + 1e-9 * max(1.0, run["max_load"])
        d = spatial.rect_nicol(D, P * Q, P=P, Q=Q, allow_empty=True)
        assert d.max_load <= spatial.rect_uniform(D, P * Q, P=P, Q=Q,
                                                  allow_empty=True).max_load
        rects = np.asarray(d.rects)
        R = np.r_[rects[::Q, 0], rects[-1, 1]]
        C = np.r_[rects[:Q, 2], rects[Q - 1, 3]]
        assert d.max_load == pytest.approx(grid_max(D, R, C), rel=1e-12)
        s = spatial.rect_nicol(sps.csr_array(D), P * Q, P=P, Q=Q, allow_empty=True)
        assert s.max_load == d.max_load


@pytest.mark.parametrize("dense", [True, False])
def test_time_limited_symmetric_grid_never_worse_than_uniform(dense):
    # a run cut by its time limit returns the better of its best complete grid and the
    # uniform symmetric one (PAL/OPAL returned their one-interval probe: 126x uniform)
    rng = np.random.default_rng(3)
    if dense:
        A = rng.integers(0, 1000, (300, 300))
    else:
        A = sps.random(4000, 4000, density=0.002, random_state=2, format="csr")
    uni = spatial.rect_sym_uniform(A, 64, P=8, Q=8).max_load
    for fn in (spatial.rect_sym_pal, spatial.rect_sym_opal, spatial.rect_sym_rac,
               spatial.rect_sym_refine):
        r = fn(A, 64, P=8, Q=8, time_limit=1e-4)
        r.validate()
        assert r.status == "time_limit" and r.success, fn.__name__
        assert r.max_load <= uni, fn.__name__
    for start in ("pal", "uniform"):
        r = spatial.rect_sym_refine(A, 64, P=8, Q=8, start=start, time_limit=1e-4)
        assert r.status == "time_limit" and r.success and r.max_load <= uni


def test_refine_reaches_sarmas_sgo_on_a_small_2d_grid():
    # the 5-point pattern of a 16 x 16 grid graph (256 rows, 1,216 entries): SARMA's sgo_2dr_nic
    # reaches 35 at 16 x 16 and 13 at 32 x 32 (benchmarks/bench_spatial_sarma.py); the
    # SGO runs and balanced half-sweeps alone stopped at 35 and 15, the cut moves go below
    k = 16
    T = sps.diags([1, 1, 1], [-1, 0, 1], shape=(k, k), format="csr", dtype=np.int64)
    eye = sps.identity(k, format="csr", dtype=np.int64)
    A = sps.csr_array((sps.kron(eye, T) + sps.kron(T, eye)) != 0, dtype=np.int64)
    for P, sgo in ((16, 35), (32, 13)):
        r = spatial.rect_refine(A, P * P, P=P, Q=P)
        r.validate()
        assert r.max_load <= sgo and r.stats["polish"]["cut_moves"] > 0
        assert r.max_load <= spatial.rect_nicol(A, P * P, P=P, Q=P).max_load
        assert spatial.rect_refine(A.toarray(), P * P, P=P, Q=P).max_load == r.max_load


def test_refine_never_above_the_default_rect_nicol():
    # the default's grid is one of rect_refine's candidates: 12^3 3D grid graph at 16 x 16
    # (both 302 at 4a59031; rect_refine takes the default grid as a candidate) and random matrices
    k = 12
    T = sps.diags([1, 1, 1], [-1, 0, 1], shape=(k, k), format="csr", dtype=np.int64)
    eye = sps.identity(k, format="csr", dtype=np.int64)
    A = sps.csr_array((sps.kron(sps.kron(eye, eye), T) + sps.kron(sps.kron(eye, T), eye) +
                       sps.kron(sps.kron(T, eye), eye)) != 0, dtype=np.int64)
    r = spatial.rect_refine(A, 256, P=16, Q=16)
    assert r.max_load <= spatial.rect_nicol(A, 256, P=16, Q=16).max_load <= 302
    assert r.stats["polish"]["default_max_load"] <= 302
    rng = np.random.default_rng(31)
    for t in range(12):
        n1, n2 = (int(x) for x in rng.integers(20, 90, 2))
        D = rng.integers(0, 9, (n1, n2)) * (rng.random((n1, n2)) < 0.3)
        if t % 3 == 0:
            D = D * 0.5 + (D > 0) * rng.random((n1, n2))
        P, Q = int(rng.integers(2, 10)), int(rng.integers(2, 10))
        a = spatial.rect_refine(sps.csr_array(D), P * Q, P=P, Q=Q)
        a.validate()
        assert a.max_load <= spatial.rect_nicol(sps.csr_array(D), P * Q, P=P, Q=Q).max_load


def test_refine_stops_at_the_defaults_proven_bound(monkeypatch):
    # benchmarks/bench_spatial_sarma.py's s_powerlaw_1k, where the default's joint bound
    # (heavy lines) proves its grid optimal at 16 x 16: rect_refine takes that grid and runs
    # no SGO pass; where it does not (4 x 4), the SGO runs and the result is never above the
    # default's
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_spatial_sarma

    A = bench_spatial_sarma.powerlaw(1000, 6000, 7)
    seen = set()
    for P, Q in ((16, 16), (4, 4), (8, 8)):
        d = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        f = spatial.rect_refine(A, P * Q, P=P, Q=Q)
        pol = f.stats["polish"]
        assert f.max_load <= d.max_load
        if d.stats["bound_reached"]:
            assert f.max_load == d.max_load == d.stats["lower_bound"]
            assert "sgo_runs" not in pol
            seen.add("bound")
        elif "default_max_load" in pol:
            assert pol["default_max_load"] == d.max_load and pol["sgo_runs"]
            seen.add("sgo")
    assert seen == {"bound", "sgo"}
