"""Hostile input to wpart.hetero: profiles, optimal_time, pareto_front, load_balanced, the file
readers. Results are checked against the enumeration oracle (tests/oracles/hetero.py)."""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import hetero as orc
from oracles.fuzz import budget, call, hostile_array, hostile_count

import wpart.hetero as wh

F = "hetero"
NAMES = ("profiles", "sizes", "time", "energy", "n", "profile", "processor", "CSV", "path")


@st.composite
def valid_profiles(draw):
    m = draw(st.integers(1, 3))
    out = []
    for _ in range(m):
        sizes = sorted(draw(st.sets(st.integers(1, 6), min_size=1, max_size=4)))
        t = [float(draw(st.integers(0, 9))) for _ in sizes]
        e = [float(draw(st.integers(0, 9))) for _ in sizes]
        out.append((np.array(sizes), np.array(t), np.array(e)))
    return out


@st.composite
def hostile_profiles(draw):
    if draw(st.integers(0, 2)):
        return draw(valid_profiles())
    m = draw(st.integers(0, 3))
    out = []
    for _ in range(m):
        arrs = [draw(hostile_array(ndim=(0, 1, 2), max_side=4)) for _ in range(3)]
        out.append(tuple(arrs[: draw(st.sampled_from([1, 2, 3, 3]))]))
    return draw(st.sampled_from([out, tuple(out), None, 3, "x", [[1, 2, 3]], {}]))


def _is_valid(profs) -> bool:
    return isinstance(profs, list) and all(
        isinstance(s, np.ndarray) and s.dtype.kind == "i" and len(tr) == 3 for tr, s in
        ((tr, tr[0]) for tr in profs)) and len(profs) > 0


def _check_dist(profs, n, d) -> None:
    x = [int(v) for v in d.dist]
    assert sum(x) == n and len(x) == len(profs)
    T, E, _ = orc.evaluate(profs, x)
    assert math.isclose(d.time, T, rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(d.energy, E, rel_tol=1e-9, abs_tol=1e-9)


@given(hostile_profiles(), hostile_count(st.integers(0, 12)))
def _optimal_time(profs, n):
    r, exc = call(F, wh.optimal_time, profs, n, names=NAMES)
    if exc is None and _is_valid(profs):
        dists = list(orc.all_distributions(profs, int(n)))
        assert r.status in ("optimal", "infeasible")
        if r.status == "infeasible":
            assert not dists and r.dist is None and not r.success
        else:
            _check_dist(profs, int(n), r)
            assert r.time == min(orc.evaluate(profs, X)[0] for X in dists)


def test_optimal_time(fuzz_budget):
    budget(fuzz_budget, 300)(_optimal_time)()


@given(hostile_profiles(), hostile_count(st.integers(0, 12)),
       st.sampled_from(["dynamic", "total", "bogus", 3]), st.sampled_from([None, 0.0, 2.5, -1.0,
                                                                             math.nan, "1"]))
def _pareto(profs, n, energy, sp):
    r, exc = call(F, wh.pareto_front, profs, n, energy=energy, static_power=sp,
                  names=NAMES + ("energy", "static_power"))
    if exc is None and _is_valid(profs) and energy == "dynamic" and sp is None:
        exp = orc.naive_front(profs, int(n))
        assert len(r.time) == len(exp)
        for (E, T, _), t, e in zip(exp, r.time, r.energy):
            assert math.isclose(t, T, rel_tol=1e-12) and math.isclose(e, E, rel_tol=1e-9,
                                                                      abs_tol=1e-9)
        for k, x in enumerate(np.asarray(r.dist)):
            assert int(x.sum()) == int(n)
            assert math.isclose(orc.evaluate(profs, [int(v) for v in x])[0], r.time[k],
                                rel_tol=1e-12)


def test_pareto_front(fuzz_budget):
    budget(fuzz_budget, 300)(_pareto)()


@given(hostile_profiles(), hostile_count(st.integers(0, 12)),
       st.sampled_from(["max_active", "all_active", "nope", None]))
def _balanced(profs, n, mode):
    r, exc = call(F, wh.load_balanced, profs, n, mode=mode, names=NAMES + ("mode",))
    if exc is None and r.success and _is_valid(profs):
        _check_dist(profs, int(n), r)


def test_load_balanced(fuzz_budget):
    budget(fuzz_budget, 300)(_balanced)()


@given(st.data())
def _profile_objects(data):
    a, b, c = (data.draw(hostile_array(ndim=(0, 1, 2), max_side=5)) for _ in range(3))
    r, exc = call(F, wh.Profile.from_arrays, a, b, c, names=NAMES)
    if exc is None:
        s = np.asarray(r.sizes)
        assert s.dtype == np.int64 and (s > 0).all() and (np.diff(s) > 0).all()
        assert s.size == np.asarray(a).size
    ps, exc = call(F, wh.ProfileSet.from_arrays, [(a, b, c)], names=NAMES)
    if exc is None:
        assert len(ps) == 1


def test_profile_constructors(fuzz_budget):
    budget(fuzz_budget, 300)(_profile_objects)()


FILE_BODIES = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b"\xff\xfe\x00garbage", b"1 2 3\n\x80\x81", b"processor,size,time\nA,1,",
                     b"processor,size,time\nA,1,2\nA,1,3\n", b"1 1 1\n2 2\n", b"", b"#\n",
                     b"1 nan 1\n", b"-1 2 3\n", b"99999999999999999999999 1 1\n",
                     b"processor,size,time,energy\nA,1,1,1\nB,2,2,2\n"]),
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
)


@given(FILE_BODIES)
def _files(body):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p0.txt")
        with open(path, "wb") as f:
            f.write(body)
        r, exc = call(F, wh.Profile.from_file, path, names=NAMES)
        if exc is None:
            assert (np.asarray(r.sizes) > 0).all()
        call(F, wh.ProfileSet.from_csv, path, names=NAMES)
        call(F, wh.ProfileSet.from_files, [path], names=NAMES)


def test_file_readers(fuzz_budget):
    budget(fuzz_budget, 200)(_files)()


# ------------------------------------------------------------------ regressions -------------


@pytest.mark.parametrize("body", [b"\xff\xfe\x00\x01garbage\x80", b"1 2 3\n\x80"])
def test_binary_profile_file_is_a_value_error_naming_the_file(tmp_path, body):
    f = tmp_path / "bin.txt"
    f.write_bytes(body)
    for fn in (wh.Profile.from_file, wh.ProfileSet.from_csv,
               lambda p: wh.ProfileSet.from_files([p])):
        with pytest.raises(ValueError, match="not a UTF-8 text file"):
            fn(f)


def test_uint64_sizes_beyond_int64_are_reported_unwrapped():
    s = np.array([1, 2**63 + 5], dtype=np.uint64)
    with pytest.raises(OverflowError, match="9223372036854775813"):
        wh.optimal_time([(s, [1.0, 2.0], [1.0, 2.0])], 3)


def test_milp_front_time_limit_covers_the_whole_call():
    import time

    rng = np.random.default_rng(0)
    P = []
    for i in range(4):
        s = np.arange(1, 301)
        P.append((s, s * (1 + i) * (1 + 0.1 * rng.random(300)),
                  s * (2 - 0.3 * i) * (1 + 0.1 * rng.random(300))))
    t0 = time.perf_counter()
    r = wh.milp_front(P, 600, time_limit=0.3)
    assert r.status == "time_limit" and r.empty and not r.success and "time limit" in r.message
    assert time.perf_counter() - t0 < 10.0  # generous: the machine is shared


TINY = [(np.array([1, 2, 3]), np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]))]


@pytest.mark.parametrize("call, err, what", [
    (lambda: wh.pareto_front(TINY, 3, max_grid=2**64), OverflowError, "`max_grid`"),
    (lambda: wh.bruteforce_front(TINY, 3, max_leaves=2**63), OverflowError, "`max_leaves`"),
    (lambda: wh.pareto_front(TINY, 3, energy_threshold="1"), TypeError, "`energy_threshold`"),
    (lambda: wh.pareto_front(TINY, 3, energy="total", static_power="1"), TypeError,
     "`static_power`"),
    (lambda: wh.total_energy_front(wh.pareto_front(TINY, 3), "1"), TypeError,
     "`static_power`"),
    (lambda: wh.optimal_time(TINY, 3, time_limit="1"), TypeError, "`time_limit`"),
    (lambda: wh.milp_front(TINY, 3, time_limit="1"), TypeError, "`time_limit`"),
])
def test_huge_or_string_options_name_the_argument(call, err, what):
    with pytest.raises(err, match=what):
        call()
