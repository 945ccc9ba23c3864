"""Prefix sums (1D, 2D, 3D; int64 and float64) and box-load queries."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wpart


def ref_prefix(A):
    S = np.zeros(tuple(s + 1 for s in A.shape), dtype=A.dtype)
    C = A.copy()
    for ax in range(A.ndim):
        C = np.cumsum(C, axis=ax)
    S[tuple(slice(1, None) for _ in A.shape)] = C
    return S


@pytest.mark.parametrize("shape", [(1,), (7,), (1, 1), (3, 17), (17, 3), (40, 33), (1, 50),
                                   (2, 3, 4), (1, 1, 1), (5, 1, 7), (9, 8, 7)])
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_prefix_matches_reference(shape, dtype, rng):
    A = (rng.integers(0, 100, shape) * (rng.random(shape) < 0.7)).astype(dtype)
    S = wpart.prefix_sum(A)
    assert S.shape == tuple(s + 1 for s in shape) and S.dtype == dtype
    if dtype == np.int64:
        np.testing.assert_array_equal(S, ref_prefix(A))
    else:
        np.testing.assert_allclose(S, ref_prefix(A), rtol=1e-12)
    # zero border on every lower face
    for ax in range(A.ndim):
        assert not np.take(S, 0, axis=ax).any()


@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=9),
                  elements=st.integers(0, 10**6)))
def test_prefix_property_box_loads(A):
    S = wpart.prefix_sum(A)
    n1, n2 = A.shape
    boxes = [(r0, r1, c0, c1) for r0 in range(n1 + 1) for r1 in range(r0, n1 + 1)
             for c0 in range(0, n2 + 1, 2) for c1 in range(c0, n2 + 1)]
    got = wpart.box_loads(S, boxes)
    want = [A[r0:r1, c0:c1].sum() for r0, r1, c0, c1 in boxes]
    np.testing.assert_array_equal(got, want)


def test_box_loads_3d_and_float(rng):
    A = rng.integers(0, 50, (4, 5, 6))
    S = wpart.prefix_sum(A)
    boxes = []
    for _ in range(300):
        lo = [int(rng.integers(0, n + 1)) for n in A.shape]
        hi = [int(rng.integers(l, n + 1)) for l, n in zip(lo, A.shape)]
        boxes.append([lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]])
    got = wpart.box_loads(S, boxes)
    want = [A[b[0]:b[1], b[2]:b[3], b[4]:b[5]].sum() for b in boxes]
    np.testing.assert_array_equal(got, want)
    Sf = wpart.prefix_sum(A.astype(float))
    np.testing.assert_allclose(wpart.box_loads(Sf, boxes), want)
    # a single box given as a flat row
    assert wpart.box_loads(S, boxes[0]).shape == (1,)


def test_box_loads_rejects_bad_boxes():
    S = wpart.prefix_sum(np.ones((3, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="box 1 .* axis 1"):
        wpart.box_loads(S, [[0, 1, 0, 1], [0, 1, 0, 5]])
    with pytest.raises(ValueError, match="box 0 .* reversed"):
        wpart.box_loads(S, [[2, 1, 0, 1]])
    with pytest.raises(ValueError, match="shape"):
        wpart.box_loads(S, [[0, 1, 0]])
    with pytest.raises(TypeError, match="boxes"):
        wpart.box_loads(S, [[0.0, 1.5, 0.0, 1.0]])
    assert wpart.box_loads(S, np.zeros((0, 4), dtype=np.int64)).shape == (0,)


def test_prefix_out_parameter():
    A = np.arange(12, dtype=np.int64).reshape(3, 4)
    out = np.empty((4, 5), dtype=np.int64)
    S = wpart.prefix_sum(A, out=out)
    assert S is out
    np.testing.assert_array_equal(out, ref_prefix(A))


def test_prefix_exact_near_int64_limit():
    big = np.iinfo(np.int64).max // 4
    A = np.array([[big, big], [big, 1]], dtype=np.int64)
    S = wpart.prefix_sum(A)
    assert S[-1, -1] == 3 * big + 1
    with pytest.raises(OverflowError, match="overflow"):
        wpart.prefix_sum(np.array([[big, big], [big, big + 5]], dtype=np.int64))


def test_float_overflow_to_inf_is_reported():
    A = np.array([[1e308, 1e308]])
    with pytest.raises(OverflowError, match="inf"):
        wpart.prefix_sum(A)


def test_bool_and_small_int_inputs():
    A = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(wpart.prefix_sum(A), [[0, 0, 0], [0, 1, 1], [0, 2, 3]])
    B = np.array([[1, 2], [3, 4]], dtype=np.uint16)
    assert wpart.prefix_sum(B).dtype == np.int64
    C = np.array([[1, 2], [3, 4]], dtype=np.float32)
    assert wpart.prefix_sum(C).dtype == np.float64


@pytest.mark.parametrize("k", [2, 3, 5, 8, 9, 13])
def test_overflow_detected_even_when_uint64_would_wrap(k):
    """Sums that pass 2^64 (and would wrap back to small values) are still reported."""
    v = int(0.93 * 2**63)
    for shape in [(1, k), (k, 1), (2, k)]:
        A = np.full(shape, v, dtype=np.int64)
        with pytest.raises(OverflowError, match="overflow"):
            wpart.prefix_sum(A)
    with pytest.raises(OverflowError, match="overflow"):
        wpart.prefix_sum(np.full((1, 1, k), v, dtype=np.int64))
    with pytest.raises(OverflowError, match="overflow"):
        wpart.partition_1d(np.full(k, v, dtype=np.int64), 2)


def test_wide_rows_match_reference_all_kernels(rng):
    """Row lengths around the 4-lane vector width and its remainders."""
    for n2 in range(1, 19):
        A = rng.integers(0, 2**40, (3, n2))
        np.testing.assert_array_equal(wpart.prefix_sum(A), ref_prefix(A))


def test_float_prefix_is_the_sequential_row_order(rng):
    """Every row count (4-row blocks and the remainder) gives exactly the one-row loop's sums."""
    for n1 in range(1, 10):
        A = rng.random((n1, 7)) * 1e3
        A[0, 0] = -0.0  # a valid load
        S = np.zeros((n1 + 1, 8))
        for i in range(n1):
            r = 0.0
            for j in range(7):
                r += A[i, j]
                S[i + 1, j + 1] = S[i, j + 1] + r
        np.testing.assert_array_equal(wpart.prefix_sum(A), S)
    B = rng.random((9, 5))
    B[6, 2] = -1e-300
    with pytest.raises(ValueError, match=r"negative load at index \(6, 2\)"):
        wpart.prefix_sum(B)
