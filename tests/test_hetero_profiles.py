"""wpart.hetero profiles: validation, readers, the synthetic presets, bad input."""

import math

import numpy as np
import pytest

import wpart
import wpart.hetero as wh


def test_from_arrays_and_lookup():
    p = wh.Profile.from_arrays([1, 3, 4], [1.0, 0.0, 2.0], [0.0, 1.0, 1.0], name="cpu")
    assert p.n_points == 3 and p.lookup(3) == (0.0, 1.0) and p.lookup(2) is None
    assert p.lookup(0) == (0.0, 0.0)
    assert p.sizes.dtype == np.int64 and not p.sizes.flags.writeable
    q = wh.Profile.from_arrays([4.0, 1.0], [2.0, 1.0], sort=True)
    assert q.sizes.tolist() == [1, 4] and q.energy.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("args, match", [
    (([1, 2], [1.0, np.nan], [1.0, 1.0]), "time contains nan at index 1"),
    (([1, 2], [1.0, -1.0], [1.0, 1.0]), "time must be >= 0"),
    (([1, 2], [1.0, 1.0], [1.0, np.inf]), "energy contains inf"),
    (([1, 2], [1.0, 1.0], [1.0, -0.5]), "energy must be >= 0"),
    (([0, 2], [1.0, 1.0], [1.0, 1.0]), "sizes must be > 0"),
    (([2, 2], [1.0, 1.0], [1.0, 1.0]), "duplicate size 2"),
    (([3, 2], [1.0, 1.0], [1.0, 1.0]), "strictly increasing"),
    (([1, 2], [1.0], [1.0, 1.0]), "same length"),
    (([1.5, 2], [1.0, 1.0], [1.0, 1.0]), "integer sizes"),
    (([[1, 2]], [1.0, 1.0], [1.0, 1.0]), "1-D"),
])
def test_bad_profiles(args, match):
    with pytest.raises(ValueError, match=match):
        wh.Profile.from_arrays(*args)
    with pytest.raises(ValueError, match=match):
        wh.pareto_front([args], 2)


def test_bad_types_and_arguments():
    good = [([1, 2], [1.0, 2.0], [1.0, 2.0])]
    with pytest.raises(TypeError,
                       match=r"^`profile:\ sizes`\ must\ be\ numeric,\ got\ dtype\ <U1"):
        wh.Profile.from_arrays(["a", "b"], [1.0, 1.0])
    with pytest.raises(TypeError,
                       match=r"^`profiles`\ must\ be\ a\ ProfileSet\ or\ a\ sequence\ of\ \(sizes,\ times,\ energies\)\ tuples,\ got\ str"):
        wh.pareto_front("profiles.txt", 2)
    with pytest.raises(TypeError,
                       match=r"^`profiles`:\ processor\ 0\ must\ be\ a\ \(sizes,\ times,\ energies\)\ tuple\ or\ a\ Profile,\ got\ int"):
        wh.pareto_front([1, 2], 2)
    with pytest.raises(ValueError, match="at least one"):
        wh.pareto_front([], 2)
    with pytest.raises(ValueError, match="`n`"):
        wh.pareto_front(good, -1)
    with pytest.raises(TypeError, match="`n`"):
        wh.pareto_front(good, 2.5)
    with pytest.raises(ValueError, match="energy"):
        wh.pareto_front(good, 2, energy="static")
    with pytest.raises(ValueError, match="static_power"):
        wh.pareto_front(good, 2, energy="total")
    with pytest.raises(ValueError, match="static_power"):
        wh.pareto_front(good, 2, energy="total", static_power=-1.0)
    with pytest.raises(ValueError, match="static_power"):
        wh.pareto_front(good, 2, energy="total", static_power=math.nan)
    with pytest.raises(ValueError, match="static_power"):
        wh.pareto_front(good, 2, static_power=3.0)
    with pytest.raises(ValueError, match="energy_threshold"):
        wh.pareto_front(good, 2, energy_threshold=-1.0)
    with pytest.raises(ValueError, match="below the energy"):
        wh.pareto_front(good * 2, 2, energy_threshold=0.5)
    with pytest.raises(ValueError, match="mode"):
        wh.load_balanced(good, 2, mode="nearest")
    with pytest.raises(TypeError,
                       match=r"^load_balanced\(\)\ takes\ 2\ positional\ arguments\ but\ 3\ were\ given"):
        wh.load_balanced(good, 2, "all_active")  # options are keyword-only
    with pytest.raises(TypeError,
                       match=r"^pareto_front\(\)\ takes\ 2\ positional\ arguments\ but\ 4\ were\ given"):
        wh.pareto_front(good, 2, "total", 1.0)
    with pytest.raises(wpart.WpartError, match="max_leaves"):
        wh.bruteforce_front([([1, 2, 3], [1.0] * 3, [1.0] * 3)] * 8, 4, max_leaves=1000)
    with pytest.raises(ValueError, match="not a measured size"):
        wh.evaluate(good, [3])


def test_inputs_unchanged():
    s = np.array([1, 2, 3])
    t = np.array([3.0, 1.0, 2.0])
    e = np.array([1.0, 0.0, 5.0])
    copies = [a.copy() for a in (s, t, e)]
    wh.pareto_front([(s, t, e), (s, t, e)], 4)
    for a, c in zip((s, t, e), copies):
        assert np.array_equal(a, c)


def test_clamp_negative():
    p = wh.Profile.from_arrays([1, 2], [1.0, 2.0], [-0.1, 1.0], clamp_negative=True)
    assert p.energy.tolist() == [0.0, 1.0]


def test_text_file_roundtrip(tmp_path):
    ps = wh.synthetic("fft-like", seed=4, hi=2048)
    for pr in ps:
        path = tmp_path / f"{pr.name}.txt"
        pr.to_file(path)
        q = wh.Profile.from_file(path)
        assert q.name == pr.name
        assert np.array_equal(q.sizes, pr.sizes) and np.array_equal(q.time, pr.time)
        assert np.array_equal(q.energy, pr.energy)
    qs = wh.ProfileSet.from_files([tmp_path / f"{pr.name}.txt" for pr in ps])
    assert qs.names == ps.names
    # FuPerMod-style two-column text, unsorted, comments
    p = wh.Profile.from_text("# size time\n64 1.5\n\n32 0.75  # half\n")
    assert p.sizes.tolist() == [32, 64] and p.time.tolist() == [0.75, 1.5]
    assert p.energy.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("text, match", [
    ("64 1.0 2.0 3.0\n", "expected 'size time"),
    ("64 abc\n", "not a number"),
    ("64 1.0\n128 1.0 2.0\n", "columns"),
    ("# nothing\n", "no data"),
    ("64 1.0\n64 2.0\n", "duplicate size 64"),
    ("64 nan\n", "nan"),
])
def test_malformed_text(text, match):
    with pytest.raises(ValueError, match=match):
        wh.Profile.from_text(text)


def test_csv_roundtrip(tmp_path):
    ps = wh.synthetic("dgemm-like", seed=2, hi=640)
    path = tmp_path / "p.csv"
    ps.to_csv(path)
    qs = wh.ProfileSet.from_csv(path)
    assert qs.names == ps.names
    for a, b in zip(ps, qs):
        assert np.array_equal(a.time, b.time) and np.array_equal(a.energy, b.energy)
    f1, f2 = wh.pareto_front(ps, 1280), wh.pareto_front(qs, 1280)
    assert np.array_equal(f1.energy, f2.energy)
    with pytest.raises(ValueError, match="columns"):
        wh.ProfileSet.from_csv("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a number"):
        wh.ProfileSet.from_csv("processor,size,time\ncpu,x,1\n")


def test_synthetic_presets():
    d = wh.synthetic("dgemm-like", seed=1)
    assert d.m == 5 and all(pr.n_points == 450 for pr in d) and d.granularity == 64
    assert d.names == ["cpu1", "gpu1", "phi1", "cpu2", "gpu2"]
    f = wh.synthetic("fft", seed=1)
    assert all(pr.n_points == 426 for pr in f) and f.granularity == 16
    # bit-identical for the same seed, different for another
    assert wh.synthetic("gemm", seed=1)[2].time.tobytes() == d[2].time.tobytes()
    assert wh.synthetic("gemm", seed=2)[2].time.tobytes() != d[2].time.tobytes()
    # non-monotone (drops) yet positive
    assert np.any(np.diff(d[0].time / d[0].sizes) > 0) and np.all(d[0].time > 0)
    big = wh.synthetic("dgemm-like", seed=1, hi=64000)
    assert big[0].n_points == 1000
    q = wh.synthetic("dgemm-like", seed=1, m=7, quantize="dyadic", missing=0.3)
    assert q.m == 7 and all(np.all(pr.time * 1024 == np.round(pr.time * 1024)) for pr in q)
    t = wh.synthetic("tiny-random", seed=3)
    assert 1 <= t.m <= 4 and all(pr.n_points <= 6 for pr in t)
    with pytest.raises(ValueError, match="preset"):
        wh.synthetic("nope")


def test_synthetic_front_magnitudes():
    """The presets land near the paper's magnitudes (20-80 and 5-30 points)."""
    f = wh.pareto_front(wh.synthetic("dgemm-like", seed=1), 17152)
    assert 20 <= len(f) <= 80
    assert 0.8 < f.time[-1] < 1.3 and 1.3 < f.time[0] < 2.2
    g = wh.pareto_front(wh.synthetic("fft-like", seed=1), 14960)
    assert 5 <= len(g) <= 30


def test_size_limits():
    many = [([1], [1.0], [1.0])] * 30
    with pytest.raises(wpart.WpartError, match="active sets"):
        wh.load_balanced(many, 15)
    assert wh.load_balanced(many, 30).dist.tolist() == [1] * 30
    huge = [(np.zeros(0, np.int64), [], [])] * 10001
    with pytest.raises(wpart.WpartError, match="at most 10000 processors"):
        wh.pareto_front(huge, 0, balanced=False)


def test_vocabulary_renames_keep_deprecated_aliases():
    """`m` is the number of processors; a profile's points are `n_points`."""
    ps = wh.synthetic("dgemm-like", seed=1, m=3)
    assert ps.m == len(ps) == 3 and ps[0].n_points == 450
    with pytest.warns(DeprecationWarning, match="ProfileSet.p is deprecated"):
        assert ps.p == 3
    with pytest.warns(DeprecationWarning, match="Profile.m is deprecated"):
        assert ps[0].m == 450
    with pytest.warns(DeprecationWarning, match="`p` is deprecated, use `m`"):
        old = wh.synthetic("dgemm-like", seed=1, p=3)
    assert old == ps
    with pytest.raises(wpart.WpartTypeError, match="both `m` and its deprecated alias `p`"):
        wh.synthetic("dgemm-like", seed=1, m=3, p=3)
    f = wh.pareto_front(ps, 6400)
    assert f.m == 3 and f.dist.shape[1] == 3
    with pytest.warns(DeprecationWarning, match="ParetoFront.p is deprecated"):
        assert f.p == 3
    assert "m=3" in repr(ps) and "n_points=450" in repr(ps[0])


def test_linear_profiles_take_n_points():
    """The third argument was `m` (points); `m` now means processors, so the old keyword
    fails instead of being silently read in the new sense."""
    ps = wh.linear_profiles((1, 3), (1, 2), 8)
    assert ps.m == 2 and all(pr.n_points == 8 for pr in ps)
    assert wh.linear_profiles((1, 3), (1, 2), n_points=8) == ps
    with pytest.raises(wpart.WpartTypeError,
                       match=r"^linear_profiles\(\) got an unexpected keyword argument `m`"):
        wh.linear_profiles((1, 3), (1, 2), m=8)
    with pytest.raises(wpart.WpartValueError, match="same length"):
        wh.linear_profiles((1, 3), (1,), 8)
    with pytest.raises(wpart.WpartValueError, match="`n_points`"):
        wh.linear_profiles((1, 3), (1, 2), 0)
    with pytest.raises(wpart.WpartTypeError, match="`n_points`"):
        wh.linear_profiles((1, 3), (1, 2), 8.0)


def test_profiles_compare_by_value():
    a = wh.synthetic("fft-like", seed=2, hi=2048)
    b = wh.synthetic("fft-like", seed=2, hi=2048)
    assert a == b and a[0] == b[0] and a is not b
    assert a != wh.synthetic("fft-like", seed=3, hi=2048)
    assert wh.Profile.from_arrays([1, 2], [1.0, 2.0], name="x") != \
        wh.Profile.from_arrays([1, 2], [1.0, 2.0], name="y")


@pytest.mark.parametrize("kw, exc, name", [
    ({"seed": "1"}, TypeError, "seed"), ({"seed": -1}, ValueError, "seed"),
    ({"seed": True}, TypeError, "seed"), ({"seed": 1.5}, TypeError, "seed"),
    ({"m": 0}, ValueError, "m"), ({"m": 2.0}, TypeError, "m"), ({"m": True}, TypeError, "m"),
    ({"hi": 0}, ValueError, "hi"), ({"step": "64"}, TypeError, "step"),
    ({"quantize": "round"}, ValueError, "quantize"), ({"burst": 0.5}, ValueError, "burst"),
    ({"missing": 2.0}, ValueError, "missing"),
])
def test_synthetic_bad_values_name_the_argument(kw, exc, name):
    with pytest.raises(wpart.WpartError, match=f"`{name}`") as info:
        wh.synthetic("dgemm-like", **kw)
    assert isinstance(info.value, exc)


def test_profile_options_validated():
    with pytest.raises(wpart.WpartTypeError, match="`sort`"):
        wh.Profile.from_arrays([2, 1], [1.0, 1.0], sort=1)
    with pytest.raises(wpart.WpartValueError, match="`what`"):
        wh.synthetic("tiny-random", seed=1).plot(what="power")
    with pytest.raises(wpart.WpartValueError, match="`dist`"):
        wh.evaluate([([1, 2], [1.0, 2.0])] * 2, [1])


_SIZE_TOKENS = ["1", "7", "+7", "-3", "0", "-0", "007", "5.", "5.0", "1e3", "2.5", "1e400",
                "9007199254740991", "9007199254740993", "9007199254740992.0", "9.1e15",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1_0",
                "nan", "inf", "0x10", "", "+", "-", ".", "1e", "١"]
_NUM_TOKENS = ["1", "2.5", "-0.0", ".5", "5.", "1e-320", "1e400", "-1e400", "3.14159265358979",
               "nan", "inf", "-inf", "1_0", "0x1p3", "1e", ".", "+", "e5", "4.9e-324", "١"]
_SEPS = [" ", "\t", ",", " , ", "  "]
_TAILS = ["", " ", "# c", " #x,y", "#\u00e9", "#\u2028 1 2", "#\x0b3 4", "\r"]


def _random_points_text(rng):
    lines = []
    ncol = int(rng.integers(2, 4))
    for _ in range(int(rng.integers(0, 8))):
        r = rng.random()
        if r < 0.1:
            lines.append(str(rng.choice(_TAILS)).lstrip("\r"))
            continue
        nc = ncol if rng.random() < 0.9 else int(rng.integers(1, 5))
        toks = [str(rng.choice(_SIZE_TOKENS)) if rng.random() < 0.3 else str(rng.integers(1, 99))]
        for _ in range(nc - 1):
            toks.append(str(rng.choice(_NUM_TOKENS)) if rng.random() < 0.3
                        else repr(float(rng.random() * 10.0 ** int(rng.integers(-5, 5)))))
        sep = str(rng.choice(_SEPS))
        lines.append(sep.join(toks) + str(rng.choice(_TAILS)))
    eol = "\r\n" if rng.random() < 0.2 else "\n"
    return ("\ufeff" if rng.random() < 0.1 else "") + eol.join(lines) + (
        eol if rng.random() < 0.5 else "")


def _same(a, b):
    return all((x is None and y is None) or (x is not None and y is not None and x.dtype == y.dtype
                                               and np.array_equal(x, y, equal_nan=True))
               for x, y in zip(a, b))


def test_c_points_parser_matches_python_reader():
    """The core's bulk parser takes a subset of the text syntax and gives exactly the Python
    line-by-line reader's values; whatever it refuses, the Python reader handles."""
    from wpart.hetero import _profile_io as io_

    rng = np.random.default_rng(17)
    taken = 0
    for _ in range(4000):
        text = _random_points_text(rng)
        fast = io_._c_points(text.encode("utf-8"))
        try:
            slow = io_._points_slow(text.lstrip("\ufeff"), "f")
        except wpart.WpartError:
            assert fast is None, repr(text)
            continue
        if fast is not None:
            taken += 1
            assert _same(fast, slow), repr(text)
    assert taken > 300
    # exact edges
    s, t, e = io_._c_points(b"9223372036854775807 1 2\n-9223372036854775807 1e400 4.9e-324\n")
    assert s.tolist() == [2**63 - 1, -(2**63 - 1)] and t[1] == np.inf and e[1] == 5e-324
    for bad in (b"9223372036854775808 1", b"-9223372036854775808 1", b"9007199254740992.0 1",
                b"2.5 1", b"1 nan", b"1 2\n1 2 3", b"", b"# only\n", b"1 2 3 4", b"1 2\r3 4"):
        assert io_._c_points(bad) is None, bad


def _random_csv(rng):
    names = ["a", " b", "b", "cpu 0", "g\u00e9", "\u00e9", "x\t", ""]
    cols = ["processor", "size", "time"] + (["energy"] if rng.random() < 0.7 else [])
    order = list(rng.permutation(len(cols)))
    head = ",".join(cols[i] if rng.random() < 0.8 else f" {cols[i].upper()} " for i in order)
    lines = [head]
    for _ in range(int(rng.integers(0, 7))):
        vals = {"processor": str(rng.choice(names)),
                "size": str(rng.choice(_SIZE_TOKENS)) if rng.random() < 0.2
                else str(rng.integers(1, 50)),
                "time": str(rng.choice(_NUM_TOKENS)) if rng.random() < 0.2
                else repr(float(rng.random())),
                "energy": str(rng.choice(["", " ", "1", "nan", "2.5 "])) if rng.random() < 0.3
                else repr(float(rng.random()))}
        row = [vals[cols[i]] for i in order]
        if rng.random() < 0.05:
            row.append("9")
        lines.append(",".join(row) if rng.random() < 0.95 else "")
    eol = "\r\n" if rng.random() < 0.2 else "\n"
    return eol.join(lines) + (eol if rng.random() < 0.5 else "")


def test_c_csv_parser_matches_python_reader(monkeypatch):
    from wpart.hetero import _profile_io as io_

    rng = np.random.default_rng(18)
    taken = 0
    for _ in range(3000):
        text = _random_csv(rng)
        fast = io_._csv_c(text)
        with monkeypatch.context() as mp:
            mp.setattr(io_, "_csv_c", lambda text: None)
            try:
                slow = io_.parse_csv(text, "f", unknown="ignore")
            except wpart.WpartError:
                assert fast is None or any(fast[0].count(f) > 1 for f in fast[0]), repr(text)
                continue
        if fast is not None:
            taken += 1
            got = fast[1]
            assert [g[0] for g in got] == [s[0] for s in slow], repr(text)
            for g, s in zip(got, slow):
                assert _same(g[1:], s[1:]), repr(text)
    assert taken > 300
