"""The spatial family's weights, defaults, vocabulary and input guards: ``weights="stored"`` /
``"count"`` / ``"values"``, integer loads from a pattern file, errors naming the file they
come from, HIER-RB's default against both rules, a time-limited JAG-M-OPT against
JAG-M-ALLOC, ``time_limit`` and ``progress`` on every method, the paper's names as aliases,
sizes refused from a memory estimate before anything is allocated, and the 1D entry's
keyword and size guards."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps

import wpart
from wpart import spatial
from wpart.spatial import _common, _sparse


def _write(path, text):
    path.write_text(text)
    return str(path)


# ---------------------------------------------------------------------------------------------
# weights


def test_three_weights_on_duplicates_and_explicit_zeros():
    # (0,1) stored twice (1 + 2), (1,2) an explicit zero, (2,0) stored twice summing to 0
    A = sps.coo_array((np.array([1, 2, 0, 5, -5, 3]), (np.array([0, 0, 1, 2, 2, 3]),
                                                       np.array([1, 1, 2, 0, 0, 3]))),
                      shape=(4, 4))
    for name in spatial.METHODS:
        fn = getattr(spatial, name)
        s = fn(A, 2, weights="stored")
        c = fn(A, 2, weights="count")
        assert s.total == 6, name  # every stored entry, duplicates as stored
        assert c.total == 2, name  # the nonzero values after summing: (0, 1) and (3, 3)
        assert s.loads.dtype == np.int64 and c.loads.dtype == np.int64
    D = np.zeros((4, 4), np.int64)
    D[0, 1], D[1, 2], D[2, 0], D[3, 3] = 2, 1, 2, 1  # stored counts per cell
    assert spatial.jag_m_opt(A, 3, weights="stored").max_load == spatial.jag_m_opt(D, 3).max_load
    # a dense array stores every cell
    assert spatial.hier_rb(np.zeros((3, 5)), 3, weights="stored").total == 15


def test_stored_weights_of_a_file_count_explicit_zeros_and_duplicates(tmp_path):
    p = _write(tmp_path / "z.mtx", "%%MatrixMarket matrix coordinate real general\n"
               "3 3 4\n1 1 0.0\n2 2 1.5\n2 2 2.5\n3 1 -0.0\n")
    assert spatial.rect_nicol(p, 2, weights="stored").total == 4
    assert spatial.rect_nicol(p, 2, weights="count").total == 1
    assert spatial.rect_nicol(p, 2).total == 4.0


def test_pattern_file_gives_int64_loads(tmp_path):
    p = _write(tmp_path / "p.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
               "3 4 4\n1 1\n2 3\n3 4\n3 4\n")
    M = spatial.read_matrix(p)
    assert M.dtype == np.int64 and M[2, 3] == 2
    for name in spatial.METHODS:
        r = getattr(spatial, name)(p, 2)
        assert r.loads.dtype == np.int64 and isinstance(r.max_load, (int, np.integer)), name
        assert r.total == 4


def test_negative_file_names_the_file_and_both_weight_options(tmp_path):
    p = _write(tmp_path / "neg.mtx", "%%MatrixMarket matrix coordinate real general\n"
               "3 3 2\n1 1 -1.0\n2 2 1\n")
    for name in ("rect_nicol", "jag_m_opt", "hier_rb", "hybrid"):
        with pytest.raises(wpart.WpartValueError) as e:
            getattr(spatial, name)(p, 2)
        msg = str(e.value)
        assert "neg.mtx" in msg and "negative" in msg, msg
        assert "weights='stored'" in msg and "weights='count'" in msg, msg
        assert getattr(spatial, name)(p, 2, weights="count").total == 2
    dense = _write(tmp_path / "negd.mtx", "%%MatrixMarket matrix array real general\n"
                   "2 2\n1\n-2\n3\n4\n")
    with pytest.raises(wpart.WpartValueError, match="negd.mtx.*negative.*weights='stored'"):
        spatial.hier_rb(dense, 2)


@pytest.mark.parametrize("field, body, err, word", [
    ("real", "1 1 nan\n2 2 1\n", wpart.WpartValueError, "NaN"),
    ("real", "1 1 inf\n2 2 1\n", wpart.WpartValueError, "infinite"),
    ("real", "1 1 -2\n2 2 1\n", wpart.WpartValueError, "negative"),
    ("complex", "1 1 1 2\n2 2 1 0\n", wpart.WpartTypeError, "dtype"),
])
def test_errors_while_reading_a_path_name_the_path(tmp_path, field, body, err, word):
    p = _write(tmp_path / "bad.mtx",
               f"%%MatrixMarket matrix coordinate {field} general\n3 3 2\n{body}")
    for name in ("rect_uniform", "jag_m_alloc", "hier_opt"):
        with pytest.raises(err, match=f"`A` \\(file '.*bad.mtx'\\).*{word}"):
            getattr(spatial, name)(p, 2)
    with pytest.raises(err, match="bad.mtx"):
        spatial.partition(p, 2)


def test_weights_refuses_other_names():
    with pytest.raises(wpart.WpartValueError, match="`weights` must be one of 'values', "
                       "'count', 'stored'"):
        spatial.hier_rb(np.ones((2, 2)), 2, weights="ones")


# ---------------------------------------------------------------------------------------------
# defaults never worse than their alternatives


def _instances(k):
    rng = np.random.default_rng(27)
    for i in range(k):
        n1, n2 = rng.integers(1, 13, 2)
        kind = i % 4
        if kind == 0:
            A = rng.integers(0, 10, (n1, n2))
        elif kind == 1:
            A = rng.random((n1, n2)) * (rng.random((n1, n2)) < 0.3)
        elif kind == 2:
            A = rng.integers(0, 3, (n1, n2)) * rng.integers(0, 100, (n1, 1))  # skewed rows
        else:
            A = np.ones((n1, n2), np.int64)  # ties
        yield A, int(rng.integers(1, min(n1 * n2, 20) + 1))


def test_hier_rb_default_never_worse_than_either_rule():
    for A, m in _instances(300):
        d = spatial.hier_rb(A, m)
        lo = spatial.hier_rb(A, m, variant="load").max_load
        di = spatial.hier_rb(A, m, variant="dist").max_load
        assert d.max_load <= min(lo, di)
        assert d.params["variant"] == "best" and d.params["variant_used"] in ("load", "dist")
        assert d.max_load == (lo if lo <= di else di)


def test_hier_rb_default_on_zoltans_losing_shape():
    # blobs: the 'load' rule alone is not the best here at some m
    A = spatial.instances.pic_like(96, t=500, seed=3)
    for m in (4, 7, 16):
        d = spatial.hier_rb(A, m).max_load
        assert d == min(spatial.hier_rb(A, m, variant=v).max_load for v in ("load", "dist"))


def test_hier_rb_default_3d_and_relaxed_best():
    A = np.random.default_rng(0).integers(0, 9, (5, 6, 4))
    d = spatial.hier_rb(A, 6)
    assert d.max_load == min(spatial.hier_rb(A, 6, variant=v).max_load for v in ("load", "dist"))
    B = np.random.default_rng(1).integers(0, 9, (9, 7))
    r = spatial.hier_relaxed(B, 5, variant="best")
    assert r.max_load == min(spatial.hier_relaxed(B, 5, variant=v).max_load
                             for v in ("load", "dist"))


def test_time_limited_jag_m_opt_never_worse_than_jag_m_alloc(monkeypatch):
    # force every search to stop at once with its JAG-M-HEUR-PROBE incumbent, as a time limit
    # reached early does; the result must still be <= JAG-M-ALLOC's on the same input
    real_run = _common._run  # the core call of every method (run_method)

    def stopped(pp, method, params, **kw):
        if method != "jag_m_opt":
            return real_run(pp, method, params, **kw)
        r = real_run(pp, "jag_m_heur_probe", dict(params), orient=kw["orient"],
                     speeds=kw.get("speeds"))
        import dataclasses
        return dataclasses.replace(r, method="jag_m_opt", status="time_limit")

    monkeypatch.setattr(_common, "_run", stopped)
    worse = 0
    for A, m in _instances(200):
        for orient in ("best", "hor", "ver"):
            r = spatial.jag_m_opt(A, m, orient=orient, time_limit=60)
            assert r.status == "time_limit" and r.success
            hp = spatial.jag_m_heur_probe(A, m, orient=orient).max_load
            allocs = [spatial.jag_m_alloc(A, m, orient=o).max_load
                      for o in (("hor", "ver") if orient == "best" else (orient,))]
            assert r.max_load <= min(allocs) and r.max_load <= hp
            worse += hp > min(allocs)
            assert float(r.loads.max()) == float(r.max_load)
            assert r.loads.sum() == pytest.approx(r.total)
    assert worse > 0  # the incumbent alone would have been worse on some instances


def test_time_limited_jag_m_opt_real_limit():
    A = spatial.instances.pic_like(200, t=5_000, seed=1)
    r = spatial.jag_m_opt(A, 512, time_limit=1e-3)
    assert r.status in ("time_limit", "optimal")
    if r.success and r.status == "time_limit":
        assert r.loads.sum() == A.sum()


# ---------------------------------------------------------------------------------------------
# one vocabulary


def test_every_method_takes_time_limit_and_progress():
    A = np.arange(1, 37).reshape(6, 6)
    for name in spatial.METHODS:
        calls = []
        r = getattr(spatial, name)(A, 4, time_limit=30, progress=lambda d, t: calls.append((d, t)))
        assert r.success and r.status != "time_limit", name
        assert calls and calls[-1][0] == calls[-1][1], name  # ends at its total
        r2 = spatial.partition(A, 4, method=name, time_limit=30, progress=False)
        assert r2.max_load == r.max_load
        assert name in spatial.TABLE and "time_limit" in spatial.TABLE[name].options
        assert "progress" in spatial.TABLE[name].options


def test_progress_bar_reaches_its_total(monkeypatch):
    seen = []

    def hook(d, t):
        seen.append((d, t))

    A = spatial.instances.pic_like(64, t=800, seed=2)
    spatial.jag_m_opt(A, 37, progress=hook)
    assert seen[-1][0] == seen[-1][1]
    spatial.jag_m_opt(A, 37, progress=True)  # a tqdm bar: no error


def test_a_cancelling_callback_stops_the_exact_search():
    A = spatial.instances.pic_like(200, t=5_000, seed=1)
    with pytest.raises(wpart.CancelledError, match=r"^the\ progress\ callback\ returned\ False"):
        spatial.jag_m_opt(A, 300, progress=lambda d, t: False)


def test_paper_names_are_aliases():
    A = np.arange(1, 65).reshape(8, 8)
    assert spatial.partition(A, 4, method="HYBRID-F").method == "hybrid"
    assert spatial.partition(A, 4, method="JAG-PQ-OPT").max_load == \
        spatial.jag_pq_opt_nicol(A, 4).max_load
    assert spatial.partition(A, 4, method="JAG-M-HEUR-PROBE-BEST").method == "jag_m_heur_probe"
    assert spatial.partition(A, 4, method="HIER-RB").method == "hier_rb"


def test_partition_docstring_lists_the_sparse_methods():
    doc = spatial.partition.__doc__
    for name in _sparse.SPARSE_NATIVE:
        assert f"``{name}``" in doc


# ---------------------------------------------------------------------------------------------
# sizes refused before allocating


def test_huge_sparse_shape_every_method():
    A = sps.coo_array(([1.0], ([0], [0])), shape=(2**40, 3))
    for name in spatial.METHODS:
        with pytest.raises(wpart.WpartMemoryError, match="`A` is a 1099511627776 x 3 sparse"):
            getattr(spatial, name)(A, 4)


def test_huge_matrix_market_header(tmp_path):
    p = _write(tmp_path / "big.mtx", "%%MatrixMarket matrix coordinate real general\n"
               "2000000000 2000000000 1\n1 1 1.0\n")
    with pytest.raises(wpart.WpartMemoryError, match="`path` \\(file '.*big.mtx'\\)"):
        spatial.read_matrix(p)
    with pytest.raises(wpart.WpartMemoryError, match="`A` \\(file '.*big.mtx'\\)"):
        spatial.partition(p, 4)
    d = _write(tmp_path / "bigd.mtx", "%%MatrixMarket matrix array real general\n"
               "2000000000 2000000000\n1\n")
    with pytest.raises(wpart.WpartMemoryError, match="bigd.mtx"):
        spatial.read_matrix(d)


def test_shape_beyond_int32_in_jag_m_opt(monkeypatch):
    # (2**31 + 5)^2 with one entry: refused from the estimate (a machine-independent budget)
    monkeypatch.setattr(_sparse, "memory_budget", lambda: 64 * 2**30)
    n = 2**31 + 5
    A = sps.coo_array(([1.0], ([n - 1], [n - 1])), shape=(n, n))
    with pytest.raises(wpart.WpartMemoryError, match="`A` is a 2147483653 x 2147483653"):
        spatial.jag_m_opt(A, 4)


def test_box_loads_refuses_nan():
    S = np.array([[0.0, 0.0], [0.0, np.nan]])
    with pytest.raises(wpart.WpartValueError, match="`S`.*NaN"):
        wpart.box_loads(S, [[0, 1, 0, 1]])
    with pytest.raises(wpart.WpartValueError, match="`S`"):
        wpart.box_loads(np.array([[0.0, 0.0], [0.0, np.inf]]), [[0, 1, 0, 1]])


# ---------------------------------------------------------------------------------------------
# partition_1d


def test_partition_1d_misspelt_keyword_names_it():
    with pytest.raises(wpart.WpartTypeError, match="`methd`.*did you mean `method`"):
        wpart.partition_1d([1, 2, 3], 2, methd="dp")
    with pytest.raises(wpart.WpartTypeError, match="keyword-only"):
        wpart.partition_1d([1, 2, 3], 2, "dp")


@pytest.mark.parametrize("method", ["nicol", "bisect", "dp", "direct_cut", "recursive_bisection"])
def test_partition_1d_many_more_parts_than_items(method):
    r = wpart.partition_1d([3, 1, 4, 1, 5, 9, 2, 6], 2**24, method=method)
    assert r.max_load == 9 and r.separators.size == 2**24 + 1 and r.loads.size == 2**24
    assert r.loads.sum() == 31 and r.loads[8:].max() == 0 and r.separators[-1] == 8


def test_partition_1d_ten_million_parts_of_a_thousand_items():
    r = wpart.partition_1d(np.ones(1000), 10**7)
    assert r.max_load == 1.0 and r.loads.size == 10**7
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        wpart.partition_1d(np.ones(1000), 2**25)


def test_ragged_counts_cuts_and_boxes_name_the_argument():
    A = np.ones((4, 4))
    with pytest.raises(wpart.WpartValueError, match="`counts`"):
        spatial.jag_m_alloc(A, 3, counts=[[1, 2], [3]])
    with pytest.raises(wpart.WpartValueError, match="`stripe_cuts`"):
        spatial.jag_m_probe(A, 3, stripe_cuts=[[1, 2], [3]])
    with pytest.raises(wpart.WpartValueError, match="`boxes`"):
        wpart.box_loads(wpart.prefix_sum(A), [[1, 2], [3]])
