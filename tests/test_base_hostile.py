"""Hostile input to the base functions: overlap, absurd part counts (issue: robustness)."""

import numpy as np
import pytest

import wpart


def test_prefix_sum_rejects_out_overlapping_input():
    a = np.arange(11, dtype=np.int64)
    before = a.copy()
    with pytest.raises(ValueError, match="`out` overlaps `A`"):
        wpart.prefix_sum(a[1:], out=a)
    assert np.array_equal(a, before)


@pytest.mark.parametrize("m", [2**27, 2**40])
def test_partition_1d_rejects_parts_far_beyond_the_items(m):
    with pytest.raises(ValueError, match="`m` = .* exceeds the number of items"):
        wpart.partition_1d([1, 2, 3], m)
    with pytest.raises(ValueError, match="`m`"):
        wpart.probe_1d([1, 2, 3], m, 10)


@pytest.mark.parametrize("m", [2**63 - 1, 2**63, 2**64])
def test_partition_1d_huge_m_is_an_overflow_error_naming_m(m):
    with pytest.raises(OverflowError, match="`m`"):
        wpart.partition_1d([1, 2, 3], m)


def test_partition_1d_m_beyond_items_still_allowed_when_small():
    r = wpart.partition_1d([1, 2, 3], 5)
    assert r.separators.tolist() == [0, 2, 3, 3, 3, 3]


def test_speeds_that_overflow_are_rejected_up_front():
    with pytest.raises(ValueError, match="`speeds` sum overflows"):
        wpart.partition_1d([1, 2, 3, 4], 2, speeds=[1e308, 1e308])
    with pytest.raises(ValueError, match="`speeds`: the total load"):
        wpart.partition_1d([1.0, 2e300, 3, 4], 2, speeds=[1e-300, 1])
