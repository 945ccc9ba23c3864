"""Skeleton trees of [Soldado 2016] (Kernel, Pipeline, Map, Loop with global synchronisation,
MapReduce) run over the OpenCL executions, against NumPy and against the hand-written
benchmarks, for several splits (CPU fission included)."""

from __future__ import annotations

import numpy as np
import pytest

import wpart
from wpart.multikernel import _topology as T
from wpart.multikernel import skeletons as S

try:
    from wpart.multikernel import opencl as O
    _WHY = O.unavailable_reason()
except ImportError as e:  # pragma: no cover
    O, _WHY = None, str(e)

pytestmark = pytest.mark.skipif(_WHY is not None, reason=f"no usable OpenCL: {_WHY}")
SRC = O.KERNELS.read_text() if O else ""


@pytest.fixture(scope="module")
def runtimes():
    out = [O.Runtime(fission="NONE")]
    levels = [lv for lv, n in T.fission_levels() if n > 1]
    if levels:
        out.append(O.Runtime(fission=levels[0]))
    return out


def _shares(rt):
    P = len(rt.executions)
    if P == 1:
        return [[1.0]]
    return [[0.5, 0.5] + [0.0] * (P - 2), [0.2, 0.8] + [0.0] * (P - 2),
            [0.0, 1.0] + [0.0] * (P - 2)]


def test_filter_pipeline_tree_equals_the_benchmark(runtimes):
    H, W = 37, 50
    ref = O.FilterPipeline(H, W, seed=4)
    u = np.uint32
    tree = S.Pipeline(
        S.Kernel(SRC, "gauss_noise", [S.Vec("img", np.uint8, elems_per_unit=W),
                                      S.Vec("t1", np.uint8, elems_per_unit=W),
                                      S.Scalar(W, dtype=u), S.OFFSET, S.SIZE, S.Scalar(4, dtype=u)],
                 items_per_unit=W),
        S.Kernel(SRC, "solarize", [S.Vec("t1", np.uint8, elems_per_unit=W),
                                   S.Vec("t2", np.uint8, elems_per_unit=W), S.SIZE],
                 items_per_unit=W),
        S.Kernel(SRC, "mirror", [S.Vec("t2", np.uint8, elems_per_unit=W),
                                 S.Vec("out", np.uint8, elems_per_unit=W, out=True),
                                 S.Scalar(W, dtype=u), S.SIZE], items_per_unit=W))
    want = ref.reference()
    for rt in runtimes:
        for phi in _shares(rt):
            out = S.run(rt, tree, H, {"img": ref.img}, shares=phi)
            assert np.array_equal(out["out"].reshape(H, W), want), phi
            assert out["_sizes"].sum() == H


def test_map_saxpy(runtimes):
    n = 5003
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    tree = S.Map(S.Kernel(SRC, "saxpy", [S.Scalar(3.0), S.Vec("x", np.float32),
                                          S.Vec("y", np.float32, out=True), S.SIZE]))
    for rt in runtimes:
        for phi in _shares(rt):
            out = S.run(rt, tree, n, {"x": x, "y": y}, shares=phi)
            assert np.allclose(out["y"], 3 * x + 1) and (y == 1).all()   # input untouched


def test_loop_with_global_sync_nbody(runtimes):
    ref = O.NBody(157, iterations=3, seed=2)
    N = ref.units

    def update(host, it):
        host["pos"][:] = host["pos_new"]

    tree = S.Loop(S.Kernel(SRC, "nbody_step", [
        S.Vec("pos", np.float32, mode="copy"), S.Vec("vel", np.float32, elems_per_unit=4, out=True),
        S.Vec("pos_new", np.float32, elems_per_unit=4, out=True), S.Scalar(N, dtype=np.uint32),
        S.OFFSET, S.SIZE, S.Scalar(ref.dt), S.Scalar(ref.eps2)]),
        iterations=3, update=update, global_sync=True, gather=["pos_new"])
    want = ref.reference()
    for rt in runtimes:
        for phi in _shares(rt):
            out = S.run(rt, tree, N, {"pos": ref.pos0, "vel": ref.vel0}, shares=phi)
            assert np.allclose(out["pos"].reshape(N, 4), want, rtol=1e-4, atol=1e-5), phi


HIST = """
__kernel void hist(__global const uchar *v, __global uint *h, const uint n)
{ uint i = get_global_id(0); if (i < n) atomic_inc(&h[v[i]]); }
"""


def test_mapreduce_histogram_merged_by_add_and_by_a_host_function(runtimes):
    vol = np.random.default_rng(0).integers(0, 256, (23, 9, 11), dtype=np.uint8)
    k = S.Kernel(HIST, "hist", [S.Vec("vol", np.uint8, elems_per_unit=99),
                                S.Vec("h", np.uint32, mode="copy", out=True), S.SIZE],
                 items_per_unit=99)
    want = np.bincount(vol.reshape(-1), minlength=256)
    for rt in runtimes:
        for phi in _shares(rt):
            data = {"vol": vol, "h": np.zeros(256, np.uint32)}
            out = S.run(rt, S.MapReduce(k, output="h", reduce="add"), 23, data, shares=phi)
            assert np.array_equal(out["_reduced"], want)
            out = S.run(rt, S.MapReduce(k, output="h", reduce=lambda ps: sum(p.sum() for p in ps)),
                        23, data, shares=phi)
            assert out["_reduced"] == vol.size


def test_bad_trees():
    with pytest.raises(wpart.WpartValueError, match="mode"):
        S.Vec("x", np.float32, mode="scatter")
    with pytest.raises(wpart.WpartTypeError, match="args"):
        S.Kernel(SRC, "saxpy", [1.0])
    with pytest.raises(wpart.WpartValueError, match="iterations"):
        S.Loop(S.Kernel(SRC, "nop", []))
    with pytest.raises(wpart.WpartValueError, match="reduce"):
        S.MapReduce(S.Kernel(SRC, "nop", []), output="x", reduce="max")
    rt = O.Runtime()
    tree = S.Kernel(SRC, "saxpy", [S.Scalar(1.0), S.Vec("x", np.float32),
                                   S.Vec("y", np.float32, out=True), S.SIZE])
    with pytest.raises(wpart.WpartValueError, match="x"):
        S.run(rt, tree, 10, {"x": np.ones(9, np.float32)})


# ---- kernels as users write them --------------------------------------------------------

SCALE = """
__kernel void scale(__global const float *x, __global float *y, const float a, const uint n) {
    uint i = get_global_id(0);
    if (i < n) y[i] = a * x[i];
}
"""

GROUP_SUM = """
__kernel void group_sum(__global const float *x, __global float *part, __local float *tmp,
                        const uint n) {
    uint i = get_global_id(0), l = get_local_id(0), g = get_group_id(0);
    uint L = get_local_size(0);
    tmp[l] = i < n ? x[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) part[g] = tmp[0];
}
"""


def _scale_tree(xdtype=np.float32, extra=()):
    return S.Kernel(SCALE, "scale", [S.Vec("x", xdtype), S.Vec("y", np.float32, out=True),
                                     S.Scalar(2.0, dtype=np.float32), S.SIZE, *extra])


def test_argument_of_the_wrong_dtype_or_count_names_kernel_and_argument(runtimes):
    rt = runtimes[0]
    x = np.arange(64, dtype=np.float64)
    with pytest.raises(wpart.WpartValueError, match=r"kernel 'scale' argument 0 \(x.*float"):
        S.run(rt, _scale_tree(np.float64), 64, {"x": x})
    with pytest.raises(wpart.WpartValueError, match="kernel 'scale' takes 4 arguments, 5 given"):
        S.run(rt, _scale_tree(extra=[S.SIZE]), 64, {"x": x})
    bad = S.Kernel(SCALE, "scale", [S.Vec("x", np.float32), S.Vec("y", np.float32, out=True),
                                    S.Scalar(2, dtype=np.int32), S.SIZE])
    with pytest.raises(wpart.WpartValueError, match=r"argument 2 \(a"):
        S.run(rt, bad, 64, {"x": x})
    out = S.run(rt, _scale_tree(), 64, {"x": x})
    np.testing.assert_array_equal(out["y"], 2 * x.astype(np.float32))


def test_build_error_names_the_kernel_with_its_log(runtimes):
    k = S.Kernel("__kernel void broken(__global float *x) { x[0] = undefined_name; }", "broken",
                 [S.Vec("x", np.float32, out=True)])
    with pytest.raises(wpart.WpartRuntimeError, match="(?s)kernel 'broken'.*build log.*undefined"):
        S.run(runtimes[0], k, 8, {})


def test_local_argument_gives_per_work_group_partials(runtimes):
    rt = runtimes[0]
    wg, groups = 16, 8
    x = np.random.default_rng(2).random(wg * groups).astype(np.float32)
    # one unit = one work group: the partition's groups write their sums at their offsets
    tree = S.Kernel(GROUP_SUM, "group_sum",
                    [S.Vec("x", np.float32, elems_per_unit=wg),
                     S.Vec("part", np.float32, out=True), S.Local(np.float32), S.SIZE],
                    items_per_unit=wg, wgs=wg)
    out = S.run(rt, tree, groups, {"x": x})
    np.testing.assert_allclose(out["part"], x.reshape(groups, wg).sum(axis=1), rtol=1e-5)


def test_mapreduce_hands_over_per_execution_partials_and_loop_update_gets_a_copy(runtimes):
    rt = runtimes[-1]
    x = np.arange(96, dtype=np.float32)
    keep = x.copy()
    mr = S.MapReduce(_scale_tree(), output="y", reduce=lambda parts: [p.sum() for p in parts])
    for phi in _shares(rt):
        out = S.run(rt, mr, 96, {"x": x}, shares=phi)
        parts = out["_partials"]
        live = [(o, n) for o, n in zip(out["_offsets"], out["_sizes"]) if n > 0]
        assert len(parts) == len(live)
        for p, (o, n) in zip(parts, live):
            np.testing.assert_array_equal(p, 2 * x[o:o + n])
        assert sum(out["_reduced"]) == pytest.approx(2 * x.sum())

    def update(host, it):
        host["x"][:] += 1                    # changes the run's copy only
    loop = S.Loop(_scale_tree(), iterations=2, update=update, global_sync=True, gather=["y"])
    S.run(rt, loop, 96, {"x": x})
    np.testing.assert_array_equal(x, keep)


def test_run_async_returns_a_future(runtimes):
    x = np.arange(32, dtype=np.float32)
    fut = S.run_async(runtimes[0], _scale_tree(), 32, {"x": x})
    x[:] = -1                                 # the call copied its inputs
    out = fut.result(timeout=60)
    np.testing.assert_array_equal(out["y"], 2 * np.arange(32, dtype=np.float32))
    bad = S.run_async(runtimes[0], _scale_tree(np.float64), 32, {"x": x})
    with pytest.raises(wpart.WpartValueError,
                       match=r"^kernel 'scale' argument 0 \(x: float\*\): expects float \(float32\), got float64$"):
        bad.result(timeout=60)


SMOOTH = """
__kernel void smooth(__global const float *a, __global float *b, const uint lo,
                     const uint off, const uint n_all, const uint n) {
    uint i = get_global_id(0);
    if (i >= n) return;
    uint g = off + i, k = lo + i;             /* k: the element in the halo'd buffer */
    float l = g > 0 ? a[k - 1] : a[k];
    float r = g + 1 < n_all ? a[k + 1] : a[k];
    b[i] = (l + a[k] + r) / 3.0f;
}
"""


def _np_smooth(a):
    p = np.concatenate(([a[0]], a, [a[-1]]))
    return ((p[:-2] + p[1:-1] + p[2:]) / np.float32(3)).astype(np.float32)


def test_halo_stencil_in_a_loop_equals_numpy_on_every_split(runtimes):
    n = 101
    a0 = np.random.default_rng(5).random(n).astype(np.float32)
    body = S.Kernel(SMOOTH, "smooth", [S.Vec("a", np.float32, halo=1),
                                       S.Vec("b", np.float32, out=True), S.halo_lo("a"),
                                       S.OFFSET, S.Scalar(n, dtype=np.uint32), S.SIZE])

    def update(host, it):
        host["a"][:] = host["b"]                 # the next sweep reads this one's result

    loop = S.Loop(body, iterations=4, update=update, global_sync=True, gather=["b"])
    want = a0
    for _ in range(4):
        want = _np_smooth(want)
    for rt in runtimes:
        for phi in _shares(rt):
            out = S.run(rt, loop, n, {"a": a0}, shares=phi)
            np.testing.assert_allclose(out["b"], want, rtol=1e-5, atol=1e-6)
    with pytest.raises(wpart.WpartValueError, match="halo"):
        S.Vec("c", np.float32, mode="copy", halo=1)
