"""Bad input: a clear exception naming the argument and the problem; inputs never change."""

import sys

import numpy as np
import pytest

import wpart

I64MAX = np.iinfo(np.int64).max


def _entry_points():
    return [
        ("prefix_sum", lambda x: wpart.prefix_sum(x), "A"),
        ("partition_1d", lambda x: wpart.partition_1d(np.ravel(x), 2), "loads"),
        ("probe_1d", lambda x: wpart.probe_1d(np.ravel(x), 2, 10), "loads"),
    ]


BAD_VALUES = [
    (np.array([[1.0, np.nan], [2.0, 3.0]]), ValueError, "NaN at index"),
    (np.array([[1.0, 2.0], [np.inf, 3.0]]), ValueError, "inf at index"),
    (np.array([[1.0, 2.0], [-np.inf, 3.0]]), ValueError, "-inf at index"),
    (np.array([[1, 2], [3, -4]]), ValueError, "negative load -4 at index"),
    (np.array([[1.0, -0.5], [3.0, 4.0]]), ValueError, "negative load at index"),
    (np.array([[I64MAX, 1], [0, 0]]), OverflowError, "overflows int64"),
    (np.array([[1 + 2j, 0], [0, 0]]), TypeError, "dtype complex128"),
    (np.array([["a", "b"]]), TypeError, "dtype <U1"),
    (np.array([[1, None]], dtype=object), TypeError, "dtype object"),
    (np.array([[np.datetime64("2020-01-01")]]), TypeError, "dtype datetime64"),
    (np.zeros((0, 3)), ValueError, "is empty"),
    (np.array([[2**63 + 5, 0]], dtype=np.uint64), OverflowError, "int64 range"),
]


@pytest.mark.parametrize("name,fn,arg", _entry_points())
@pytest.mark.parametrize("bad,exc,msg", BAD_VALUES)
def test_bad_loads_raise_and_name_argument(name, fn, arg, bad, exc, msg):
    before = bad.copy()
    with pytest.raises(exc, match=msg) as info:
        fn(bad)
    assert arg in str(info.value)
    np.testing.assert_array_equal(bad, before)  # unchanged


def test_nan_index_is_reported_2d_and_3d():
    A = np.ones((4, 9))
    A[3, 7] = np.nan
    with pytest.raises(ValueError, match=r"`?A`?.*NaN at index \(3, 7\)"):
        wpart.prefix_sum(A)
    B = np.ones((2, 3, 4))
    B[1, 2, 3] = -1
    with pytest.raises(ValueError, match=r"negative load at index \(1, 2, 3\)"):
        wpart.prefix_sum(B)


def test_wrong_ndim():
    with pytest.raises(ValueError, match=r"`A` must be 1-D or 2-D or 3-D, got 4-D"):
        wpart.prefix_sum(np.ones((1, 1, 1, 1)))
    with pytest.raises(ValueError, match=r"`A` must be .*got 0-D"):
        wpart.prefix_sum(np.float64(3.0))
    with pytest.raises(ValueError, match=r"`loads` must be 1-D, got 2-D"):
        wpart.partition_1d(np.ones((2, 2)), 2)


@pytest.mark.parametrize("m,exc,msg", [
    (0, ValueError, r"`m` must be an integer >= 1, got 0"),
    (-3, ValueError, r"`m` must be an integer >= 1, got -3"),
    (2.5, TypeError, r"`m` must be an integer, got float"),
    (True, TypeError, r"`m` must be an integer, got bool"),
    ("4", TypeError, r"`m` must be an integer, got str"),
    (None, TypeError, r"`m` must be an integer"),
])
def test_bad_m(m, exc, msg):
    with pytest.raises(exc, match=msg):
        wpart.partition_1d([1, 2, 3], m)


def test_m_larger_than_n_is_valid():
    r = wpart.partition_1d([1, 2, 3], 10)
    assert r.separators[-1] == 3 and len(r.separators) == 11 and r.max_load == 3


def test_bad_method_lists_valid_names():
    with pytest.raises(ValueError, match=r"`method` must be one of 'nicol', 'bisect', 'dp'"):
        wpart.partition_1d([1, 2], 1, method="fastest")
    with pytest.raises(TypeError, match="`method` must be a string"):
        wpart.partition_1d([1, 2], 1, method=3)
    assert wpart.partition_1d([1, 2], 1, method="DC").method == "direct_cut"


@pytest.mark.parametrize("speeds,exc,msg", [
    ([1.0, 0.0], ValueError, r"`speeds` must be positive and finite, got 0.0 at index 1"),
    ([1.0, -2.0], ValueError, r"`speeds`"),
    ([1.0, np.nan], ValueError, r"`speeds`.*nan"),
    ([1.0, np.inf], ValueError, r"`speeds`.*inf"),
    ([1.0], ValueError, r"`speeds` must have length m = 2, got 1"),
    ([[1.0, 1.0]], ValueError, r"`speeds` must be 1-D"),
    (["a", "b"], TypeError, r"`speeds`"),
])
def test_bad_speeds(speeds, exc, msg):
    with pytest.raises(exc, match=msg):
        wpart.partition_1d([1, 2, 3], 2, speeds=speeds)


@pytest.mark.parametrize("value,exc", [
    (0, ValueError), (-1.0, ValueError), (float("nan"), ValueError), ("5", TypeError),
    (True, TypeError), (np.True_, TypeError), ([1], TypeError),
])
def test_time_limit_validation(value, exc):
    with pytest.raises(exc, match="`time_limit`") as info:
        wpart.partition_1d([1, 2], 1, time_limit=value)
    assert isinstance(info.value, wpart.WpartError)


def test_infinite_time_limit_means_none():
    assert wpart.partition_1d([1, 2], 1, time_limit=float("inf")).status == "optimal"


def test_progress_validation():
    with pytest.raises(TypeError, match="`progress` must be a bool or a callable"):
        wpart.partition_1d([1, 2], 1, progress="yes")


def test_out_must_be_usable():
    A = np.ones((3, 4), dtype=np.int64)
    with pytest.raises(ValueError, match="`out` has extent 5 in axis 0, expected 4"):
        wpart.prefix_sum(A, out=np.empty((5, 5), dtype=np.int64))
    with pytest.raises(TypeError, match="`out` must have dtype int64"):
        wpart.prefix_sum(A, out=np.empty((4, 5), dtype=np.float64))
    ro = np.empty((4, 5), dtype=np.int64)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="`out` is read-only"):
        wpart.prefix_sum(A, out=ro)
    nc = np.empty((4, 10), dtype=np.int64)[:, ::2]
    with pytest.raises(ValueError, match="`out` must be C-contiguous"):
        wpart.prefix_sum(A, out=nc)
    with pytest.raises(ValueError, match="`out` must be 2-D"):
        wpart.prefix_sum(A, out=np.empty(20, dtype=np.int64))
    with pytest.raises(TypeError, match="`out` must be a NumPy array"):
        wpart.prefix_sum(A, out=[[0] * 5] * 4)


def test_layouts_and_readonly_inputs_give_same_answer():
    rng = np.random.default_rng(4)
    A = rng.integers(0, 9, (6, 8))
    ref = wpart.prefix_sum(A)
    F = np.asfortranarray(A)
    ro = A.copy()
    ro.setflags(write=False)
    strided = np.zeros((12, 16), dtype=np.int64)
    strided[::2, ::2] = A
    big_endian = A.astype(">i8")
    for x in (F, ro, strided[::2, ::2], A.tolist(), big_endian, A.astype(np.int8)):
        np.testing.assert_array_equal(wpart.prefix_sum(x), ref)


def test_refcounts_stable():
    a = np.arange(100, dtype=np.int64)
    A = np.ones((20, 20))
    out = np.empty((21, 21))
    for _ in range(50):  # warm up caches
        wpart.partition_1d(a, 7)
        wpart.prefix_sum(A, out=out)
    ra, rA, rout = sys.getrefcount(a), sys.getrefcount(A), sys.getrefcount(out)
    for _ in range(1000):
        wpart.partition_1d(a, 7)
        wpart.prefix_sum(A, out=out)
        wpart.probe_1d(a, 3, 100)
        try:
            wpart.prefix_sum(np.array([[1.0, np.nan]]))
        except ValueError:
            pass
    assert (sys.getrefcount(a), sys.getrefcount(A), sys.getrefcount(out)) == (ra, rA, rout)


def test_core_rechecks_types():
    from wpart import _core

    with pytest.raises(TypeError, match="`A` must be a NumPy array"):
        _core.prefix_sum([[1, 2]])
    with pytest.raises(TypeError, match="`A` must have dtype int64 or float64"):
        _core.prefix_sum(np.ones((2, 2), dtype=np.int32))
    nicol = _core.BASE_1D_NICOL
    with pytest.raises(ValueError, match="`loads` must be 1-D"):
        _core.partition_1d(np.ones((2, 2), dtype=np.int64), 2, nicol)
    with pytest.raises(ValueError, match="`m` must be a positive integer"):
        _core.partition_1d(np.ones(3, dtype=np.int64), 0, nicol)
    with pytest.raises(ValueError, match="`method` = 99 is not a 1D method code"):
        _core.partition_1d(np.ones(3, dtype=np.int64), 2, 99)
    with pytest.raises(TypeError,
                       match=r"^'str'\ object\ cannot\ be\ interpreted\ as\ an\ integer"):
        _core.partition_1d(np.ones(3, dtype=np.int64), 2, "nicol")
    with pytest.raises(ValueError, match="`speeds` must have length"):
        _core.partition_1d(np.ones(3, dtype=np.int64), 2, nicol, np.ones(3))
    # non-contiguous arrays are copied by the binding, never read out of bounds
    x = np.arange(20, dtype=np.int64)[::2]
    assert _core.partition_1d(x, 2, nicol)[1][-1] == x.sum()


def test_masked_arrays_with_masked_entries_are_refused_in_every_family():
    """A masked array's masked entries hold whatever was stored under the mask (a netCDF field's
    fill value, 9.97e36): every family refuses them by name instead of using them as data, and
    takes a masked array with nothing masked as its data."""
    import wpart.dynamic as D
    import wpart.hetero as wh
    import wpart.multikernel as MK
    import wpart.spatial as sp
    import wpart.tasks as T

    def masked(a, masked_first=True):
        a = np.asarray(a)
        mask = np.zeros(a.shape, bool)
        mask.flat[0] = masked_first
        out = np.ma.masked_array(a.copy(), mask=mask)
        if masked_first:
            out.data.flat[0] = 9.96921e36 if a.dtype.kind == "f" else a.flat[0]
        return out

    A = np.ones((8, 8))
    calls = [
        ("A", lambda x: sp.rect_nicol(x, 4)),
        ("A", lambda x: sp.jag_m_opt(x, 4)),
        ("A", lambda x: wpart.prefix_sum(x)),
        ("loads", lambda x: wpart.partition_1d(x.ravel(), 4)),
        ("boxes", lambda x: wpart.box_loads(wpart.prefix_sum(A), x)),
        ("task_load", lambda x: T.Problem(x[0], 2)),
        ("t_comp", lambda x: D.fit_model(np.arange(1, 9), x[0] * np.arange(1, 9))),
        ("shares", lambda x: MK.split(8192, x[0, :2] / 2, [64, 1])),
        ("profile 'P0': time", lambda x: wh.pareto_front(
            [(np.arange(1, 9), x[0], np.ones(8))] * 2, 4)),
    ]
    for name, call in calls:
        bad = masked(A)
        if name == "boxes":
            bad = np.ma.masked_array(np.array([[0, 2, 0, 2]]), mask=[[True, False, False, False]])
        before = bad.data.copy()
        with pytest.raises(wpart.WpartValueError, match=f"`{name}` is a masked array with 1 "
                                                        "masked entries"):
            call(bad)
        assert np.array_equal(bad.data, before)  # nothing changed
        ok = np.ma.masked_array(np.array([[0, 2, 0, 2]])) if name == "boxes" else \
            np.ma.masked_array(A.copy())  # nothing masked: its data
        call(ok)


def test_a_size_cap_is_a_limit_error_both_runtime_and_value():
    """A state or size cap reached (the core's WPART_ELIMIT: hier_opt's max_states here) is a
    WpartLimitError: a WpartRuntimeError as before, and a ValueError (the input is too large
    for a cap the caller can raise), named in the message; exported from wpart."""
    import wpart.spatial as sp

    assert issubclass(wpart.WpartLimitError, wpart.WpartRuntimeError)
    assert issubclass(wpart.WpartLimitError, ValueError)
    assert "WpartLimitError" in wpart.__all__
    with pytest.raises(wpart.WpartLimitError, match="above `max_states` = 100"):
        sp.hier_opt(np.ones((12, 12)), 4, max_states=100)
