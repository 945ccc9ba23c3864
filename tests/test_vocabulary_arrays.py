"""One validator per kind of array argument (wpart/_validate.py): floats, integers, flags and
real matrices. Each error pins its type and message; inputs are never modified."""

from __future__ import annotations

import re

import numpy as np
import pytest

from wpart import WpartOverflowError, WpartTypeError, WpartValueError
from wpart._validate import as_bools, as_floats, as_ints, as_matrix


def test_as_floats_values_and_copies():
    x = np.array([1.0, 2.0, 3.0])
    out = as_floats(x, "w")
    assert out is not x and out.dtype == np.float64 and np.array_equal(out, x)
    assert as_floats(x, "w", copy=False) is x
    assert as_floats([1, 2], "w").tolist() == [1.0, 2.0]
    assert as_floats([True, False], "w", allow_bool=True).tolist() == [1.0, 0.0]
    assert as_floats(2.5, "w", scalar=True).tolist() == [2.5]
    assert as_floats([1.0, np.inf], "w", values="non-negative")[1] == np.inf
    assert np.isnan(as_floats([np.nan], "w", values="any")[0])
    ro = as_floats([1.0], "w", read_only=True)
    assert not ro.flags.writeable and x.flags.writeable


@pytest.mark.parametrize("x,kw,exc,msg", [
    ([[1, 2], [3]], {}, WpartTypeError, "`w` must be a 1-D array of numbers ("),
    ({"a": 1}, {}, WpartTypeError, "`w` must be a 1-D array of numbers, got dict"),
    ([True], {}, WpartTypeError, "`w` must hold real numbers, got dtype bool"),
    (["a"], {}, WpartTypeError, "`w` must hold real numbers, got dtype <U1"),
    ([[1.0]], {}, WpartValueError, "`w` must be 1-D, got 2-D"),
    ([], {"allow_empty": False}, WpartValueError,
     "`w` must be a non-empty 1-D array, got shape (0,)"),
    ([1.0, 2.0], {"n": 3, "n_name": "m"}, WpartValueError, "`w` must have length m = 3, got 2"),
    ([1.0, 2.0], {"n": 3}, WpartValueError, "`w` must have length 3, got 2"),
    ([1.0, np.inf], {}, WpartValueError, "`w` must be finite, got inf at index 1"),
    ([1.0, -2.0], {"values": "finite and non-negative"}, WpartValueError,
     "`w` must be finite and non-negative, got -2.0 at index 1"),
    ([np.nan], {"values": "non-negative"}, WpartValueError,
     "`w` must be non-negative, got nan at index 0"),
])
def test_as_floats_errors(x, kw, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        as_floats(x, "w", **kw)


def test_as_ints_values_and_copies():
    x = np.array([1, 2], dtype=np.int64)
    assert as_ints(x, "i", copy=False) is x
    assert as_ints(x, "i") is not x
    out = as_ints([1, 2], "i", lo=0, hi=3, dtype=np.int32, read_only=True)
    assert out.dtype == np.int32 and not out.flags.writeable
    assert as_ints([1.0, 2.0], "i", integral_floats=True).tolist() == [1, 2]
    assert as_ints(np.zeros(0), "i").dtype == np.int64
    assert as_ints(3, "i", n=2, broadcast=True).tolist() == [3, 3]


@pytest.mark.parametrize("x,kw,exc,msg", [
    ([[1], [2, 3]], {}, WpartTypeError, "`i` must be a 1-D array of integers ("),
    ([1.5], {}, WpartTypeError, "`i` must hold integers, got dtype float64"),
    ([1.5], {"integral_floats": True}, WpartTypeError, "`i` must hold integers, got dtype float64"),
    ([True], {}, WpartTypeError, "`i` must hold integers, got dtype bool"),
    ([[1]], {}, WpartValueError, "`i` must be 1-D, got 2-D"),
    ([1], {"n": 2, "n_name": "m"}, WpartValueError, "`i` must have length m = 2, got 1"),
    ([0, 5], {"lo": 0, "hi": 3}, WpartValueError, "`i` must be in [0, 3), got 5 at index 1"),
    ([1, 0], {"lo": 1}, WpartValueError, "`i` must be >= 1, got 0 at index 1"),
    ([4], {"hi": 4}, WpartValueError, "`i` must be < 4, got 4 at index 0"),
    (np.array([2**64 - 1], np.uint64), {}, WpartOverflowError,
     "`i` has values above the int64 range"),
])
def test_as_ints_errors(x, kw, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        as_ints(x, "i", **kw)


def test_as_bools():
    assert as_bools(None, "b", 2).tolist() == [True, True]
    out = as_bools([0, 1], "b", 2)
    assert out.tolist() == [False, True] and not out.flags.writeable
    for x, exc, msg in [
        (True, WpartTypeError, "`b` must be an array of 2 booleans, got a single bool"),
        ([0, 2], WpartValueError, "`b` must hold booleans (or 0/1), got 2 at index 1"),
        ([1.0, 0.0], WpartTypeError, "`b` must be a bool array, got dtype float64"),
        ([True], WpartValueError, "`b` must have length 2, got 1"),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            as_bools(x, "b", 2)


def test_as_matrix():
    x = [[1, 2], [3, 4]]
    out = as_matrix(x, "M", order="F")
    assert out.flags.f_contiguous and out.dtype == np.float64 and out.tolist() == x
    for x, exc, msg in [
        ([[1, 2], [3]], WpartValueError, "`M` is not a rectangular array of numbers"),
        ([["a"]], WpartTypeError, "`M` must hold real numbers (bool, int or float), got dtype"),
        ([1.0], WpartValueError, "`M` must be 2-D, got 1-D (shape (1,))"),
        ([[1.0, np.nan]], WpartValueError, "`M` contains NaN or inf at index (0, 1)"),
    ]:
        with pytest.raises(exc, match=re.escape(msg)):
            as_matrix(x, "M")
