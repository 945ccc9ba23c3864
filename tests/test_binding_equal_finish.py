"""_core.dynamic_equal_finish (one core call, wpart_dynamic_equal_finish) gives, bit for bit,
the composition the binding used to run: solve (P_S) with the default options, clamp the split
at 0, round optimally (_core.dynamic_solve_equal_time then _core.dynamic_round_blocks), on
random packed models (below and above the 32 PUs kept on the stack) and on callables; the
level is the solve's T capped at the makespan (level <= time)."""

import numpy as np
import pytest

import wpart.dynamic as d
from wpart import _core


def _composed(models, total, q):
    x, T = _core.dynamic_solve_equal_time(models, float(total), None, None, 1e-10, 1e-12, 200,
                                          100, 0)
    b, Tm = _core.dynamic_round_blocks(models, np.maximum(x, 0.0), total, q, None, None)
    return b, Tm, min(T, Tm)  # the level is at most the makespan of the integer split


def _outcome(fn, *args):
    try:
        b, t, T = fn(*args)
    except Exception as e:  # the same error, type and message, both ways
        return type(e), str(e)
    return b.dtype, b.tobytes(), np.float64(t).tobytes(), np.float64(T).tobytes()


def _models(rng, n):
    out = []
    for _ in range(n):
        x = np.unique(rng.integers(64, 65536, 10))
        u = x / x.max()
        t = (0.02 + (1 + 4 * rng.random()) * u) * (1 + 0.01 * rng.standard_normal(x.size))
        out.append(d.fit_model(x, t))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_equal_finish_is_the_composition_on_packed_models(seed):
    rng = np.random.default_rng(seed)
    for n in (1, 2, 5, 16, 32, 33, 70):
        packed = np.ascontiguousarray(np.stack([m.packed for m in _models(rng, n)]))
        for _ in range(3):
            total = int(rng.integers(1, 10**6))
            q = int(rng.choice([1, 7, 64, 1000]))
            got = _outcome(_core.dynamic_equal_finish, packed, total, q)
            assert got == _outcome(_composed, packed, total, q), (seed, n, total, q)


def test_equal_finish_is_the_composition_on_callables():
    rng = np.random.default_rng(7)
    for k in range(30):
        n = int(rng.integers(1, 40))
        a, b = rng.random(n) + 0.01, rng.random(n) * (k % 2)
        fs = tuple((lambda x, a=a[i], b=b[i]: a * x + b * (x > 0)) for i in range(n))
        total, q = int(rng.integers(1, 5000)), int(rng.choice([1, 3, 10]))
        assert _outcome(_core.dynamic_equal_finish, fs, total, q) == _outcome(
            _composed, fs, total, q)
