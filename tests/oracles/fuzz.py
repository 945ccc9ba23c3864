"""Shared pieces of the hostile-input fuzz suite (tests/test_fuzz_*.py).

Every fuzzed call goes through :func:`call`: it copies the array arguments, runs the call
under a hang watchdog, and accepts either a result (checked by the test against an independent
oracle) or one of the documented exceptions with a message that names an argument. Anything
else -- another exception type, an unnamed message, a modified input, a call past
``SLOW_CALL`` seconds -- fails the test.
"""

from __future__ import annotations

import copy
import faulthandler
import os
import time
from collections import Counter
from typing import Any, Callable

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ALLOWED = (ValueError, TypeError, OverflowError, MemoryError)
SLOW_CALL = 5.0    # seconds: a fuzzed call taking longer fails
HANG_ABORT = 60.0  # seconds: the watchdog dumps every thread's stack and exits
SLOW_FACTOR = 40   # the slow run multiplies each test's example count by this
COUNTS: Counter = Counter()  # fuzzed calls per family (reported by the tests' summary)

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex128]
I64MAX = 2**63 - 1


def budget(kind: str, n: int) -> settings:
    """Hypothesis settings: `n` examples by default (half as many in the sanitized stage of
    tools/test.sh), ``SLOW_FACTOR * n`` in the slow run (the slow-marked variants, or every
    variant under WPART_HYPOTHESIS_PROFILE=fuzz-slow)."""
    slow = kind == "slow" or os.environ.get("WPART_HYPOTHESIS_PROFILE") == "fuzz-slow"
    if not slow and os.environ.get("WPART_SANITIZED") == "1":
        n = max(20, n // 2)  # the sanitized stage: half the examples, the same paths
    return settings(max_examples=n * (SLOW_FACTOR if slow else 1))


def _layout(a: np.ndarray, how: str) -> np.ndarray:
    if how == "fortran" and a.ndim >= 2:
        return np.asfortranarray(a)
    if how == "strided" and a.ndim >= 1:
        b = np.empty((a.shape[0] * 2,) + a.shape[1:], dtype=a.dtype)
        b[::2] = a
        return b[::2]
    if how == "reversed" and a.ndim >= 1:
        return a[::-1].copy()[::-1]
    if how == "readonly":
        a = a.copy()
        a.flags.writeable = False
        return a
    if how == "byteswap" and a.dtype.itemsize > 1 and a.dtype.kind in "iufc":
        return a.byteswap().view(a.dtype.newbyteorder())
    return a


LAYOUTS = ["c", "fortran", "strided", "reversed", "readonly", "byteswap"]


@st.composite
def hostile_array(draw, ndim: tuple[int, ...] = (0, 1, 2, 3), max_side: int = 6,
                  valid: Callable[[Any], Any] | None = None):
    """Any dtype (numeric, object, str), 0-d / empty / 1xN / zero-size shapes, NaN / inf /
    extremes, in any memory layout. With `valid`, half of the draws come from it instead."""
    if valid is not None and draw(st.booleans()):
        a = np.asarray(draw(valid))
    else:
        nd = draw(st.sampled_from(ndim))
        shape = tuple(draw(st.integers(0, max_side)) for _ in range(nd))
        kind = draw(st.sampled_from(["num"] * 6 + ["object", "str"]))
        if kind == "num":
            dt = np.dtype(draw(st.sampled_from(DTYPES)))
            a = draw(hnp.arrays(dt, shape))
        elif kind == "object":
            a = np.empty(shape, dtype=object)
            for idx in np.ndindex(*shape):
                a[idx] = draw(st.one_of(st.integers(-3, 2**65), st.floats(), st.none(),
                                        st.text(max_size=2)))
        else:
            a = draw(hnp.arrays(np.dtype("U3"), shape))
    return _layout(a, draw(st.sampled_from(LAYOUTS)))


def small_loads(dtype=np.int64, max_n: int = 12, hi: int = 20):
    """Valid non-negative 1-D loads (ties and zeros likely)."""
    return hnp.arrays(np.dtype(dtype), st.integers(1, max_n), elements=st.integers(0, hi))


def hostile_count(valid: st.SearchStrategy | None = None):
    """Counts as a hostile user types them."""
    bad = st.sampled_from([0, -1, -(2**63), 1.5, 2.0, float("nan"), float("inf"), True, False,
                           2**31, 2**40, 2**63 - 1, 2**63, 2**64, np.uint64(2**64 - 1),
                           np.int8(3), np.float64(3.0), "3", None, [2], 1j, np.array([3])])
    return bad if valid is None else st.one_of(valid, bad)


def hostile_number():
    return st.sampled_from([0, -1, 0.0, -0.0, 1e-300, 1e300, float("nan"), float("inf"),
                            -float("inf"), True, 2**63, 2**64, "1", None, 1j, np.float16(2),
                            np.array(1.0), np.array([1.0]), 3, 0.5, 10.0])


def _snapshot(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return ("nd", x.copy(), x.dtype, x.shape, x.strides, x.flags.writeable)
    if isinstance(x, (list, tuple, dict)):
        try:
            return ("py", copy.deepcopy(x))
        except Exception:  # noqa: BLE001 - un-copyable objects are not compared
            return None
    return None


def _same(before: Any, x: Any) -> bool:
    if before is None:
        return True
    if before[0] == "nd":
        _, a, dt, sh, strd, w = before
        return (x.dtype == dt and x.shape == sh and x.strides == strd
                and x.flags.writeable == w and a.tobytes() == x.tobytes())
    try:
        return bool(_eq(before[1], x))
    except Exception:  # noqa: BLE001
        return True


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(b, np.ndarray) and a.tobytes() == b.tobytes()
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_eq(u, v) for u, v in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    if isinstance(a, (int, float, complex, str, bytes, type(None), np.generic)):
        return type(a) is type(b) and a == b
    return True  # other objects (workers, callables) may keep state: not compared


def call(family: str, fn: Callable, *args: Any, names: tuple[str, ...] = (),
         outputs: tuple[str, ...] = ("out",), **kw: Any):
    """Run ``fn(*args, **kw)`` as a fuzzed call; returns ``(result, None)`` or
    ``(None, exception)`` for an accepted exception. `names` lists extra words that count as
    naming an argument (the keyword names and backticked words always do); keywords in
    `outputs` are output buffers, compared only when the call fails."""
    COUNTS[family] += 1
    snaps = [(a, _snapshot(a)) for a in args]
    outs = [(v, _snapshot(v)) for k, v in kw.items() if k in outputs]
    snaps += [(v, _snapshot(v)) for k, v in kw.items() if k not in outputs]
    faulthandler.dump_traceback_later(HANG_ABORT, exit=True)
    t0 = time.perf_counter()
    try:
        res, exc = fn(*args, **kw), None
    except ALLOWED as e:
        res, exc = None, e
    finally:
        faulthandler.cancel_dump_traceback_later()
    dt = time.perf_counter() - t0
    assert dt < SLOW_CALL, f"{fn.__name__} took {dt:.1f} s"
    for a, s in snaps:
        assert _same(s, a), f"{fn.__name__} modified its input"
    if exc is not None:
        for a, s in outs:
            assert _same(s, a), f"{fn.__name__} failed but wrote its output buffer"
        msg = str(exc)
        words = set(names) | set(kw) | {"`"}
        assert msg and any(w in msg for w in words), (
            f"{fn.__name__}: {type(exc).__name__} names no argument: {msg!r}")
    return res, exc
