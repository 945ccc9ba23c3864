"""Hostile input to wpart.spatial: degenerate loads, absurd part counts, overflowing speeds,
wrong option types, Ctrl-C (issue: robustness of the spatial family)."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import wpart
import wpart.spatial as sp

ALL_2D = [f for f in sp.METHODS] + ["jag_m_iter", "general_optimum"]


def _call(name, A, m, **kw):
    fn = getattr(sp, name)
    return fn(A, m, **kw)


def ref_alloc(L, m, cap=None):
    """The unit greedy of spec 3.6 on exact integers: ceil((m-K) L_k / T) capped, then one part
    at a time to the largest L_k / Q_k among uncapped blocks (ties: lowest index; block 0 when
    all are capped)."""
    L = [int(x) for x in L]
    K, tot = len(L), sum(int(x) for x in L)
    Q = []
    for k in range(K):
        x = max(-(-(m - K) * L[k] // tot) if tot > 0 else 0, 1)
        if cap is not None and x > cap[k]:
            x = max(int(cap[k]), 1)
        Q.append(x)
    while sum(Q) < m:
        kb = -1
        for k in range(K):
            if cap is not None and Q[k] >= cap[k]:
                continue
            if kb < 0 or L[kb] * Q[k] < L[k] * Q[kb]:
                kb = k
        Q[max(kb, 0)] += 1
    return Q


# --- allocate: same counts as the unit greedy, never a hang ----------------------------------


def test_allocate_matches_the_unit_greedy_on_ties_zeros_and_caps():
    rng = np.random.default_rng(7)
    for it in range(600):
        K = int(rng.integers(1, 7))
        L = rng.integers(0, [2, 4, 1000][it % 3], K)
        m = int(rng.integers(K, K + [4, 60, 700][it % 3]))
        cap = None if it % 4 == 0 else rng.integers(1, [2, 12, 400][it % 3], K)
        got = sp.allocate(L, m, cap=cap).tolist()
        assert got == ref_alloc(L, m, None if cap is None else cap.tolist()), (L, m, cap)


@pytest.mark.parametrize(
    "loads, m, cap",
    [
        (np.zeros(3), 2**24, None),
        (np.zeros(5, dtype=np.int64), 2**24, np.array([1, 7, 1, 1, 1])),
        (np.r_[10**6, np.ones(1999, dtype=np.int64)], 2**24, np.r_[1, np.full(1999, 2**40)]),
        (np.ones(10**5), 2**24, None),
        (np.arange(10**5), 2**24, np.full(10**5, 3)),
    ],
)
def test_allocate_finishes_on_formerly_hanging_inputs(loads, m, cap):
    # (once one unit at a time: 2**24 steps; timings of these cases belong to the benchmarks)
    q = sp.allocate(loads, m, cap=cap)
    assert q.shape == (len(loads),) and q.sum() == m and (q >= 1).all()
    if cap is not None and cap.sum() >= m:
        assert (q <= np.maximum(cap, 1)).all()


def test_allocate_all_zero_fills_blocks_in_order():
    assert sp.allocate(np.zeros(4), 10).tolist() == [7, 1, 1, 1]
    capped = sp.allocate(np.zeros(4, dtype=int), 10, cap=np.array([2, 3, 9, 9]))
    assert capped.tolist() == [2, 3, 4, 1]
    assert sp.allocate([0, 0], 10, cap=np.array([1, 1])).tolist() == [9, 1]


def test_allocate_validates_cap_and_m():
    with pytest.raises(TypeError, match="`cap`"):
        sp.allocate([1, 2], 4, cap=[1.5, 2.0])
    with pytest.raises(ValueError, match="`cap`"):
        sp.allocate([1, 2], 4, cap=[1, 2, 3])
    with pytest.raises(ValueError, match="`cap`"):
        sp.allocate([1, 2], 4, cap=[0, 2])
    with pytest.raises(ValueError, match="`m`"):
        sp.allocate([1, 2], 2**40)
    with pytest.raises(OverflowError, match="`m`"):
        sp.allocate([1, 2], 2**63 - 1)
    with pytest.raises(OverflowError, match="`loads`"):
        sp.allocate(np.array([2**62, 2**62, 2**62]), 5)


# --- degenerate matrices and part counts -----------------------------------------------------


def test_jag_m_heur_all_zero_matrix_with_m_cells():
    A = np.zeros((400, 400), dtype=np.int64)
    r = sp.jag_m_heur(A, A.size)
    assert r.max_load == 0 and r.m == A.size
    r.validate()


@pytest.mark.parametrize("name", ["rect_uniform", "rect_nicol", "jag_pq_heur", "jag_pq_opt_dp"])
def test_grid_methods_with_many_empty_parts(name):
    r = _call(name, np.ones((3, 3)), 2**20, allow_empty=True)
    assert r.m == 2**20 and r.max_load == 1


def test_factor_pair_matches_the_full_scan():
    for m in list(range(1, 200)) + [2**24 - 3, 2**24]:
        for n1, n2 in ((1, 1), (3, 7), (50, 2)):
            P, Q = sp.factor_pair(m, n1, n2)
            assert P * Q == m
            if m < 400:  # the former scan over every P in 1..m
                target, best = (m * n1 / n2) ** 0.5, None
                for p in range(1, m + 1):
                    if m % p == 0:
                        d = abs(np.log(p / target))
                        if best is None or d < best[0] - 1e-12:
                            best = (d, p)
                assert P == best[1]
    assert sp.factor_pair(2**31 - 1, 3, 4) in ((1, 2**31 - 1), (2**31 - 1, 1))  # prime
    with pytest.raises(OverflowError, match="`m`"):
        sp.factor_pair(2**63 - 1, 3, 4)


def test_hybrid_with_m_far_beyond_the_cells():
    r = sp.hybrid(np.arange(12).reshape(3, 4), 10**6, allow_empty=True)
    assert r.max_load == 11 and r.m == 10**6


@pytest.mark.parametrize("name", ALL_2D)
@pytest.mark.parametrize("m", [2**62 + 1, 2**63 - 1, 2**63, 2**64])
def test_huge_m_is_an_overflow_error_naming_m(name, m):
    with pytest.raises(OverflowError, match="`m`"):
        _call(name, np.ones((2, 2)), m, allow_empty=True)


@pytest.mark.parametrize("name", ALL_2D)
def test_m_far_beyond_the_cells_is_rejected_before_allocating(name):
    with pytest.raises(ValueError, match="`m` = .* exceeds the number of items"):
        _call(name, np.ones((2, 2)), 2**40, allow_empty=True)


def test_general_optimum_refuses_large_matrices_before_enumerating():
    with pytest.raises(ValueError, match="`A` is too large"):
        sp.general_optimum(np.ones((2000, 2000)), 4)


def test_general_optimum_solves_large_loads():
    # found by the fuzz suite: unscaled loads of 2**31 made GLPK report "infeasible"
    r = sp.general_optimum(np.array([[0, 2**31]]), 2)
    assert r.max_load == 2**31
    r.validate()
    r = sp.general_optimum(np.array([[2**60, 1], [3, 2**60]]), 3)
    assert r.max_load <= 2**60 * (1 + 1e-9)  # a float MILP: optimal up to its tolerance
    r.validate()


def test_3d_hier_rb_rejects_huge_m():
    with pytest.raises(ValueError, match="`m`"):
        sp.hier_rb(np.ones((2, 2, 2)), 2**40, allow_empty=True)


# --- speeds -------------------------------------------------------------------------------


SPEED_METHODS = [
    "jag_pq_heur",
    "jag_pq_opt_nicol",
    "jag_pq_opt_dp",
    "jag_m_heur",
    "jag_m_probe",
    "jag_m_heur_probe",
    "jag_m_alloc",
    "jag_m_opt",
    "hier_rb",
    "hier_relaxed",
    "hier_opt",
]


@pytest.mark.parametrize("name", SPEED_METHODS)
def test_speeds_that_overflow_are_rejected_up_front(name):
    A = np.ones((2, 2))
    with pytest.raises(ValueError, match="`speeds` sum overflows"):
        _call(name, A, 2, speeds=[1e308, 1e308])
    with pytest.raises(ValueError, match="`speeds`: the total load"):
        _call(name, np.full((2, 2), 1e300), 2, speeds=[1e-300, 1.0])
    with pytest.raises(ValueError, match="`speeds`"):
        _call(name, A, 2, speeds=[np.inf, 1.0])


# --- option types ---------------------------------------------------------------------------


def test_wrong_option_types_name_the_argument():
    A = np.ones((3, 3))
    with pytest.raises(TypeError, match="`allow_empty`"):
        sp.jag_m_heur(A, 2, allow_empty="no")
    with pytest.raises(TypeError, match="`time_limit`"):
        sp.jag_m_opt(A, 2, time_limit="1")
    with pytest.raises(ValueError, match="`time_limit`"):
        sp.jag_m_opt(A, 2, time_limit=float("nan"))
    with pytest.raises(TypeError, match="`time_limit`"):
        sp.hybrid(A, 4, time_limit=[1])
    with pytest.raises(ValueError, match="`max_states`"):
        sp.hier_opt(A, 2, max_states=float("nan"))
    with pytest.raises(TypeError, match="`max_states`"):
        sp.hier_opt(A, 2, max_states="100")
    assert sp.hier_opt(A, 2, max_states=float("inf")).m == 2
    with pytest.raises(ValueError, match="`counts`"):  # int64 sum that would wrap to m
        sp.jag_m_alloc(A, 1, counts=[2**63 - 1, 2**63 - 1, 3])
    with pytest.raises(TypeError, match="`m`"):
        sp.factor_pair(4.0, 2, 2)
    # found by the fuzz suite: integers beyond int64 reached the binding ("int too big")
    assert sp.jag_m_heur(A, 2, P=2**63).m == 2
    assert sp.jag_m_heur_probe(A, 2, P=2**70).m == 2
    assert sp.hybrid(A, 4, m1_min=2**63).m == 4
    assert sp.rect_nicol(A, 4, max_sweeps=2**64).m == 4


# --- Ctrl-C ---------------------------------------------------------------------------------


def test_ctrl_c_stops_a_long_spatial_call():
    A = np.random.default_rng(0).integers(0, 100, (40, 40))
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    t = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sp.hier_opt(A, 97, max_states=1e12)
    finally:
        timer.cancel()
    # responsiveness, not speed: uninterrupted the call runs for minutes; a loaded machine may
    # delay the signal by seconds, so the bound is generous
    assert time.perf_counter() - t < 20.0


# --- the package surface --------------------------------------------------------------------


def test_package_exports_only_its_public_names():
    public = {k for k in dir(sp) if not k.startswith("_")}
    assert public == set(sp.__all__)
    for leak in ("np", "math", "warnings", "annotations", "Any", "ArrayLike", "NDArray"):
        assert not hasattr(sp, leak)
    assert sp.instances is wpart.spatial.instances
    assert all(callable(getattr(sp, n))
               or n in ("METHODS", "TABLE", "instances", "MAX_DENSE_BYTES", "STARTS")
               for n in sp.__all__)


def _bad_sparse(kind):
    """A 300 x 300 diagonal scipy matrix with one array spoilt after it was made (scipy checks
    none of these once the matrix exists; its canonical flag looks at order only)."""
    import scipy.sparse as sps

    n = 300
    ind, ptr, d = np.arange(n), np.arange(n + 1), np.ones(n, dtype=np.int64)
    if kind == "coo":
        A = sps.coo_array((d, (ind, ind)), shape=(n, n))
        A.col[4] = n + 2
        return A
    if kind == "coo_short":
        A = sps.coo_array((d, (ind, ind)), shape=(n, n))
        A.data = d[:-3]
        return A
    if kind in ("bsr", "bsr_pointers"):
        A = sps.bsr_array(sps.csr_array((d, ind, ptr), shape=(n, n)))
        if kind == "bsr":
            A.indices[5] = 10**9
        else:
            A.indptr[5] = 10**6
        return A
    if kind in ("lil", "lil_negative"):  # (no arrays of its own: its conversion is checked)
        A = sps.lil_array(sps.csr_array((d, ind, ptr), shape=(n, n)))
        A.rows[0] = [10**6] if kind == "lil" else [-5]
        return A
    A = (sps.csc_array if kind == "csc" else sps.csr_array)((d, ind, ptr), shape=(n, n))
    if kind in ("big", "csc"):
        A.indices[5] = 10**9
    elif kind == "negative":
        A.indices[5] = -3
    elif kind == "int32":
        A = sps.csr_array((d, ind.astype(np.int32), ptr.astype(np.int32)), shape=(n, n))
        A.indices[7] = n
    elif kind == "pointers":
        A.indptr[10] = 50
    elif kind == "short":
        A.data = d[:-5]
    assert kind in ("short", "pointers") or A.has_canonical_format
    return A


@pytest.mark.parametrize("name", sp.METHODS)
@pytest.mark.parametrize("kind", ["big", "negative", "int32", "pointers", "short", "csc",
                                  "coo", "coo_short", "bsr", "bsr_pointers", "lil",
                                  "lil_negative"])
def test_sparse_arrays_out_of_bounds_are_refused_naming_A(name, kind):
    # (the default rect_nicol read them in the core, out of bounds: a crash; the rect_sym_*
    # methods too, and on BSR / LIL input; the others raised numpy's or scipy's errors)
    A = _bad_sparse(kind)
    held = [getattr(A, k) for k in ("indices", "indptr", "col", "data") if hasattr(A, k)]
    before = [a.copy() for a in held]
    for weights in ("values", "stored", "count"):
        with pytest.raises(wpart.WpartValueError, match=r"^`A` has (a|an|malformed)"):
            sp.partition(A, 16, method=name, weights=weights)
    assert all(np.array_equal(a, b) for a, b in zip(before, held))


def test_a_result_whose_matrix_was_spoilt_since_refuses_to_plot_or_validate():
    import scipy.sparse as sps

    A = sps.csr_array(np.arange(1, 401, dtype=np.int64).reshape(20, 20))
    r = sp.rect_nicol(A, 4, P=2, Q=2)
    assert r.A is A  # (the caller's own matrix, kept)
    r.validate()
    A.indptr[-1] = 10**6  # (scipy reads this out of bounds: a crash)
    with pytest.raises(wpart.WpartValueError, match="^`A` has malformed CSR arrays"):
        r.validate()
    with pytest.raises(wpart.WpartValueError, match="^`A` has malformed CSR arrays"):
        r.plot()


def test_the_default_core_call_checks_its_arrays():
    from wpart import _core

    rp, ci = np.array([0, 2, 3]), np.array([0, 1, 1])
    for bad_rp, bad_ci, n2, msg in (([0, 3, 2, 3], [0, 1, 1], 2, "CSR pointers decrease at 1"),
                                    ([0, 2, 3], [0, 5, 1], 2, "CSR index 1 out of range"),
                                    ([0, 2, 3], [0, -1, 1], 2, "CSR index 1 out of range"),
                                    ([0, 2, 3], [0, 1, 1], 1, "CSR index 1 out of range"),
                                    # (the check works modulo 2**64: the extremes)
                                    ([0, 2, 3], [0, 1, 2**62], 2, "CSR index 2 out of range"),
                                    ([0, 2, 3], [0, 1, 2**63 - 1], 2, "CSR index 2 out of range"),
                                    ([0, 2, 3], [-2**63, 1, 1], 2, "CSR index 0 out of range")):
        with pytest.raises(wpart.WpartValueError, match=msg):
            _core.spatial_rect_nicol_auto(len(bad_rp) - 1, n2, np.array(bad_rp),
                                          np.array(bad_ci), None, 1, 1, 10, True, 0.0)
    out = _core.spatial_rect_nicol_auto(2, 2, rp, ci, None, 2, 1, 10, True, 0.0)
    assert out[15] is rp and out[16] is ci  # int64 arrays: the same objects back
    # 1 per entry: int64 block loads, their max as a Python int, the loads matrix's 1s
    assert out[2].dtype == np.int64 and sorted(out[2].tolist()) == [1, 2]
    assert type(out[17]) is int and out[17] == 2
    assert out[18].dtype == np.int64 and out[18].tolist() == [1, 1, 1]
    out = _core.spatial_rect_nicol_auto(2, 2, rp.astype(np.int32), ci.astype(np.int32), None,
                                        2, 1, 10, True, 0.0)
    assert out[15].dtype == out[16].dtype == np.int64 and out[16].tolist() == [0, 1, 1]
    out = _core.spatial_rect_nicol_auto(2, 2, rp, ci, np.array([0.5, 1.0, 2.0]), 2, 1, 10,
                                        True, 0.0)
    assert out[2].dtype == np.float64 and type(out[17]) is float and out[17] == 2.0
    assert out[18] is None
    out = _core.spatial_rect_nicol_auto(2, 2, rp, ci, None, 2, 1, 10, False, 0.0)
    assert out[2] is None and out[17] is None and out[18] is None
    # int64 values with their float64 copy (used as the core's weights, not copied again)
    iv = np.array([3, 1, 2])
    a = _core.spatial_rect_nicol_auto(2, 2, rp, ci, iv, 2, 1, 10, True, 0.0)
    b = _core.spatial_rect_nicol_auto(2, 2, rp, ci, iv, 2, 1, 10, True, 0.0,
                                      fvals=iv.astype(np.float64))
    assert a[2].tolist() == b[2].tolist() == [4, 2] and a[17] == b[17] == 4
    for bad in (np.ones(2), np.ones((3, 1))):
        with pytest.raises(ValueError):
            _core.spatial_rect_nicol_auto(2, 2, rp, ci, iv, 2, 1, 10, True, 0.0, fvals=bad)
    with pytest.raises(ValueError, match="fvals"):  # (only beside int64 values)
        _core.spatial_rect_nicol_auto(2, 2, rp, ci, None, 2, 1, 10, True, 0.0,
                                      fvals=np.ones(3))
