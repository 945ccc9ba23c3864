"""The CPU baselines of the spatial benchmarks (benchmarks/_sarma_nic.c): SARMA's nic as SARMA
computes it (Nicol's cut-index search, ``_sarma.nicol_idx``) and by a bisection on the
bottleneck (``_sarma.nicol_c``), against a DP oracle of the exact 1D partition and against each
other."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
_sarma = pytest.importorskip("_sarma")

if _sarma.nicol_c(_sarma.Mat(sps.identity(4, format="csr")), 2, 2) is None:
    pytest.skip("no C compiler for the benchmark baselines", allow_module_level=True)


def _opt1d(v, k):
    """min over partitions of v into k intervals (empty allowed) of the max interval sum"""
    n = len(v)
    pre = np.concatenate([[0], np.cumsum(v)])
    best = np.full((k + 1, n + 1), np.inf)
    best[0, 0] = 0
    for j in range(1, k + 1):
        for i in range(n + 1):
            best[j, i] = min(max(best[j - 1, a], pre[i] - pre[a]) for a in range(i + 1))
    return best[k, n]


def _matrix(rng, n1, n2, dens, zeros):
    D = rng.integers(1, 6, (n1, n2)) * (rng.random((n1, n2)) < dens)
    if zeros:  # ties and empty lines
        D[rng.random(n1) < 0.3, :] = 0
    return sps.csr_array(D)


@pytest.mark.parametrize("seed", range(40))
def test_one_stripe_is_the_exact_1d_optimum(seed):
    # P = 1: the first half-step sets the column cuts to an exact 1D optimum of the column
    # loads (unchanged only when the uniform start is one). Q = 1: nicol_c's first half-step
    # returns its uniform start [0, n2], which stops it with the rows at the start, the exact
    # 1D partition of the stored entries per row; SARMA starts the column cuts as the row
    # cuts, so nicol_idx goes on to the exact 1D partition of the row loads
    rng = np.random.default_rng(seed)
    n1, n2 = rng.integers(1, 14, 2)
    A = _matrix(rng, n1, n2, rng.uniform(0.05, 0.9), seed % 3 == 0)
    M = _sarma.Mat(A)
    D = A.toarray()
    k = int(rng.integers(1, 6))
    for fn in (_sarma.nicol_idx, _sarma.nicol_c):
        R, C = fn(M, 1, k)
        assert list(R) == [0, n1] and C[0] == 0 and C[-1] == n2 and np.all(np.diff(C) >= 0)
        assert M.lmax(R, C) == _opt1d(D.sum(axis=0), k)
        R, C = fn(M, k, 1)
        assert R[0] == 0 and R[-1] == n1 and np.all(np.diff(R) >= 0) and list(C) == [0, n2]
        v = D.sum(axis=1) if fn is _sarma.nicol_idx and (k > 1 or n1 != n2) else np.diff(M.rp)
        assert max(v[a:b].sum() for a, b in zip(R[:-1], R[1:])) == _opt1d(v, k)


@pytest.mark.parametrize("seed", range(40))
def test_index_search_and_bisection_give_valid_grids_of_equal_1d_steps(seed):
    rng = np.random.default_rng(100 + seed)
    n1, n2 = rng.integers(2, 40, 2)
    A = _matrix(rng, n1, n2, rng.uniform(0.02, 0.5), seed % 4 == 0)
    M = _sarma.Mat(A)
    P, Q = (int(x) for x in rng.integers(1, 6, 2))
    for start in ("nic", "uni"):
        R, C = _sarma.nicol_idx(M, P, Q, start)
        R2, C2 = _sarma.nicol_c(M, P, Q, start)
        for r, n in ((R, n1), (C, n2), (R2, n1), (C2, n2)):
            assert r[0] == 0 and r[-1] == n and np.all(np.diff(r) >= 0)
        # a half-step is an exact 1D optimum for the other cuts, so no grid is above its start
        C0 = (np.arange(Q + 1) * n2) // Q
        if start == "uni":
            R0 = (np.arange(P + 1) * n1) // P
            assert max(M.lmax(R, C), M.lmax(R2, C2)) <= M.lmax(R0, C0)
        # nicol_c stops at once when its first half-step returns its uniform column start
        # (always at Q = 1, see above); nicol_idx compares with the row cuts instead
        if not np.array_equal(C2, C0):
            assert M.lmax(R, C) == M.lmax(R2, C2)


def test_fractional_loads_have_no_index_search():
    M = _sarma.Mat(sps.csr_array(np.array([[0.5, 1.0], [2.0, 0.25]])))
    assert _sarma.nicol_idx(M, 2, 2) is None and _sarma.nicol_c(M, 2, 2) is not None


def test_load_c_leaves_nothing_in_the_temporary_directory():
    """The benchmarks' C helpers are compiled into a folder that is gone once loaded."""
    import ctypes
    import os
    import tempfile

    import _common

    def ours():
        return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("wpart_bench_c_")}

    before = ours()
    lib = _common.load_c(Path(_sarma.__file__).with_name("_sarma_nic.c"))
    assert isinstance(lib, ctypes.CDLL) and lib.sarma_nicol_idx is not None
    assert ours() == before
