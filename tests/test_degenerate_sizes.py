"""More parts than work: answered without per-part work, and an absurd `m` is refused at once.

Policy (documented in :func:`wpart.partition_1d` and :func:`wpart._validate.as_parts`): a part
count may exceed the number of items only up to ``2**24``
(:data:`wpart._validate.MAX_EXTRA_PARTS`), since results hold one entry per part; beyond it a
:class:`wpart.WpartValueError` naming `m` comes back before anything is allocated. Below the cap,
:func:`wpart.partition_1d` without speeds solves ``n`` parts in O(n) and pads the rest as empty
parts in bulk.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import wpart
import wpart.spatial as sp
import wpart.tasks as wt
from wpart._base import TABLE_1D

HUGE = 10**12


def _fast(call, limit=1.0):
    t0 = time.perf_counter()
    out = call()
    dt = time.perf_counter() - t0
    assert dt < limit, f"took {dt:.2f} s"
    return out


def _refused(call):
    t0 = time.perf_counter()
    with pytest.raises(wpart.WpartValueError) as info:
        call()
    assert time.perf_counter() - t0 < 0.5
    assert "`m`" in str(info.value) and str(HUGE) in str(info.value)


@pytest.mark.parametrize("method", TABLE_1D.names)
def test_partition_1d_many_empty_parts_is_fast(method):
    r = _fast(lambda: wpart.partition_1d([1, 2, 3], 2**24, method=method), limit=3.0)
    assert r.m == 2**24 and r.separators.shape == (2**24 + 1,) and r.loads.shape == (2**24,)
    assert r.max_load == 3 and r.loads.sum() == 6 and r.separators[-1] == 3
    assert (r.separators[4:] == 3).all() and r.success


@pytest.mark.parametrize("method", ["nicol", "bisect", "dp"])
def test_partition_1d_exact_methods_unchanged_beyond_n(method):
    # the padded answer equals the partition into n parts plus empty parts
    rng = np.random.default_rng(7)
    for it in range(300):
        n = int(rng.integers(1, 9))
        m = n + int(rng.integers(1, 6))
        a = (rng.integers(0, 5, n).astype(np.int64) if it % 2
             else rng.random(n) * (rng.random(n) < 0.7))
        r = wpart.partition_1d(a, m, method=method)
        q = wpart.partition_1d(a, n, method=method, normalize=False)
        assert r.separators.tolist() == q.separators.tolist() + [n] * (m - n)
        assert r.max_load == q.max_load == pytest.approx(a.max(), rel=1e-12)
        assert r.status == "optimal" and abs(r.gap) < 1e-12


def test_partition_1d_speeds_beyond_n_still_solved():
    r = wpart.partition_1d([4, 1, 1], 5, speeds=[1, 1, 4, 1, 1])
    assert r.m == 5 and r.separators.shape == (6,)
    assert r.max_load == pytest.approx(1.0)


def test_huge_m_refused_at_once():
    _refused(lambda: wpart.partition_1d([1, 2, 3], HUGE))
    _refused(lambda: wpart.partition_1d([1.0], HUGE, method="dp"))
    _refused(lambda: wpart.probe_1d([1, 2, 3], HUGE, 3))
    _refused(lambda: sp.partition(np.ones((1, 1)), HUGE, allow_empty=True))
    _refused(lambda: sp.partition(np.ones((4, 4)), HUGE, method="hier_rb", allow_empty=True))
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        wt.Problem(task_load=[1.0, 2.0, 3.0], m=HUGE)


def test_m_at_the_cap_is_accepted_beyond_refused():
    cap = 2**24
    assert wpart.partition_1d([1], cap).m == cap
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        wpart.partition_1d([1], cap + 1)
    # as many parts as items is always fine, however many
    assert wpart.partition_1d(np.ones(10), 10).max_load == 1
