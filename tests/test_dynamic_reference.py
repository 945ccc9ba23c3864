"""P13 of spec 001 §6.4: a slow pure-Python reference of the balancers and of the event engine
(tests/oracles/dynamic_ref*.py) gives the C trace: sizes, offsets, PUs, kinds, steps and model
versions exactly, times to 1e-9 relative.
"""

import math

import numpy as np
import pytest

from tests.oracles.dynamic_ref import (
    NOISE_COMP,
    NOISE_XFER,
    RefGreedy,
    curve_time,
    noise_lognormal,
    simulate_ref,
    xfer_time,
)
from wpart.dynamic import Greedy, Platform, simulate

EXACT = ("pu", "block", "offset", "size", "kind", "vstep", "model_version")
TIMES = ("t_assign", "t_xfer_start", "t_comp_start", "t_end", "pred_end", "t_xfer", "t_comp")


def assert_same_trace(ref, c_res, rtol=1e-9):
    """The reference trace equals the C trace (the first difference is reported)."""
    r, c = ref.trace, c_res.trace
    assert len(r) == len(c), f"{len(r)} reference blocks, {len(c)} C blocks"
    for f in EXACT:
        bad = np.flatnonzero(r[f] != c[f])
        assert bad.size == 0, f"field {f} differs first at block {bad[0]}: ref {r[bad[0]]} C {c[bad[0]]}"
    for f in TIMES:
        np.testing.assert_allclose(r[f], c[f], rtol=rtol, atol=1e-12, equal_nan=True, err_msg=f)
    assert ref.makespan == pytest.approx(c_res.makespan, rel=rtol)


# ------------------------------------------------------------------------------ RNG and devices
@pytest.mark.parametrize("name", ["hetero3", "paper5"])
def test_noise_and_device_times_bit_for_bit(name):
    pl = Platform.preset(name, machines="ABE") if name == "paper5" else Platform.preset(name)
    for seed in (0, 1, 2**63 + 5):
        for p, d in enumerate(pl.devices):
            sig = d.sigma
            for j, x in ((0, 1024), (1, 3), (7, 40000), (123456, 1)):
                tx = xfer_time(d, float(x), j == 0)
                if tx > 0 and d.sigma_xfer > 0:
                    tx *= noise_lognormal(seed, p, NOISE_XFER, j, d.sigma_xfer)
                tc = curve_time(d.curve, float(x)) * noise_lognormal(seed, p, NOISE_COMP, j, sig)
                c_tx, c_tc = pl.block_time(p, x, j=j, seed=seed)
                assert tx == c_tx
                assert tc == pytest.approx(c_tc, rel=1e-15, abs=0)


def test_noise_is_mean_one_lognormal():
    z = np.array([noise_lognormal(7, 1, NOISE_COMP, j, 0.5) for j in range(4000)])
    assert z.mean() == pytest.approx(1.0, abs=0.03)
    assert np.log(z).std() == pytest.approx(0.5, abs=0.02)


# ------------------------------------------------------------------------------ Greedy
@pytest.mark.parametrize(
    "name, total, chunk, seed",
    [("linear4", 2**18, 1024, 0), ("hetero3", 2**16, 1024, 0), ("hetero3", 2**16, 1024, 3),
     ("hetero3", 2**16 + 77, 1000, 1)],
)  # fmt: skip
def test_greedy_trace_equals_c(name, total, chunk, seed):
    pl = Platform.preset(name)
    ref = simulate_ref(pl, RefGreedy(pl.n_pu, total, chunk), seed=seed)
    assert_same_trace(ref, simulate(pl, Greedy(pl.n_pu, total, chunk), seed=seed))


def test_greedy_trace_equals_c_with_transfers_and_slowdowns():
    """Hops, setup bytes, transfer noise, and a slowdown schedule integrated over time."""
    base = Platform.preset("paper5", machines="ABE", app="mm")
    fl = [(0.5, 3.0, 1, 4.0), (1.0, 2.0, 1, 2.0), (0.2, math.inf, 0, 3.0), (0.0, 0.7, 3, 1.5)]
    pl = Platform(base.devices, fl)
    W = 2**14
    ref = simulate_ref(pl, RefGreedy(pl.n_pu, W, 256), seed=5)
    assert_same_trace(ref, simulate(pl, Greedy(pl.n_pu, W, 256), seed=5))
