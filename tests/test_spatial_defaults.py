"""JAG-M-PROBE and JAG-M-ALLOC default to JAG-M-HEUR's stripes and counts (spec 3.8, 3.9)."""

import numpy as np
import pytest

import wpart.spatial as sp


def _cases():
    rng = np.random.default_rng(7)
    for n1, n2, m in [(1, 1, 1), (3, 5, 4), (8, 8, 9), (12, 7, 13), (20, 30, 17), (6, 40, 30)]:
        A = rng.integers(0, 50, (n1, n2))
        A[rng.random((n1, n2)) < 0.2] = 0
        yield A, m
    yield np.zeros((5, 5), dtype=np.int64), 4
    yield np.ones((4, 9)), 6


@pytest.mark.parametrize("orient", ["hor", "ver", "best"])
def test_probe_default_is_heur_probe(orient):
    for A, m in _cases():
        heur = sp.jag_m_heur(A, m, orient=orient)
        hp = sp.jag_m_heur_probe(A, m, orient=orient)
        r = sp.partition(A, m, method="jag_m_probe", orient=orient)
        r.validate()
        assert r.max_load == hp.max_load <= heur.max_load
        assert r.params["orient_used"] == heur.params["orient_used"]
        o = r.params["orient_used"]
        # the same as passing JAG-M-HEUR's stripes explicitly
        cuts, _ = sp._stripes_of(heur.rects, ("hor", "ver").index(o), A.shape)
        assert sp.jag_m_probe(A, m, stripe_cuts=cuts, orient=o).max_load == r.max_load
        assert r.params["stripe_cuts"] == cuts


@pytest.mark.parametrize("orient", ["hor", "ver", "best"])
def test_alloc_default_uses_heur_counts(orient):
    for A, m in _cases():
        heur = sp.jag_m_heur(A, m, orient=orient)
        r = sp.partition(A, m, method="jag_m_alloc", orient=orient)
        r.validate()
        # the heuristic's stripes are feasible for its counts: ALLOC is never worse
        assert r.max_load <= heur.max_load
        o = r.params["orient_used"]
        _, counts = sp._stripes_of(heur.rects, ("hor", "ver").index(o), A.shape)
        assert r.params["counts"] == counts
        assert sp.jag_m_alloc(A, m, counts=counts, orient=o).max_load == r.max_load


def test_defaults_with_speeds():
    rng = np.random.default_rng(3)
    A = rng.integers(1, 20, (10, 12))
    s = rng.uniform(0.5, 2.0, 11)
    for meth in ("jag_m_probe", "jag_m_alloc"):
        r = sp.partition(A, 11, method=meth, speeds=s)
        r.validate()
        assert r.max_load >= A.sum() / s.sum() - 1e-9


def test_instances_reachable_after_plain_import():
    import subprocess
    import sys

    code = "import wpart.spatial as sp; print(sp.instances.pic_like(16, t=100).shape)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(16, 16)"
