"""Rectilinear partitions of integral loads near 2**52 terminate and stay exact.

Above 2**52 the sum of two doubles is rounded, so an integer bisection that takes
``floor((lo + hi) / 2)`` can return ``hi`` itself and never end (no poll of the time limit or
Ctrl-C inside it). Each call runs in a child process, so a loop fails the test instead of
hanging the suite.
"""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# every entry an integer; the largest is 2**52 + 214016 and the sum stays below 2**53
MATRIX = [[1688849860344192.0, 4503599627584512.0, 0.0], [562949953448064.0, 0.0, 0.0],
          [562949953448064.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
          [0.0, 562949953448064.0, 0.0]]

CALLS = {
    "default": "spatial.rect_nicol(A, P * Q, P=P, Q=Q)",
    "default_sparse": "spatial.rect_nicol(sparse.csr_matrix(A), P * Q, P=P, Q=Q)",
    "engine_starts": "spatial.rect_nicol(A, P * Q, P=P, Q=Q, starts=list(AUTO))",
    "allow_empty": "spatial.rect_nicol(A, P * Q, P=P, Q=Q, allow_empty=True)",
    "rect_refine": "spatial.rect_refine(A, P * Q, P=P, Q=Q)",
}


def _run(call: str, A: list, P: int, Q: int) -> dict:
    code = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        from scipy import sparse
        from wpart import spatial
        from wpart.spatial._nicol import AUTO
        A = np.array(json.loads(sys.argv[1])); P, Q = {P}, {Q}
        r = {call}
        print(json.dumps({{"max_load": float(r.max_load), "rects": np.asarray(r.rects).tolist()}}))
    """)
    out = subprocess.run([sys.executable, "-c", code, json.dumps(A)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _check(A: np.ndarray, P: int, Q: int, res: dict) -> float:
    """The rectangles tile A in at most P row and Q column stripes; their heaviest is max_load."""
    R = np.asarray(res["rects"], dtype=np.int64)
    assert R.shape == (P * Q, 4)
    assert int(((R[:, 1] - R[:, 0]) * (R[:, 3] - R[:, 2])).sum()) == A.size
    assert len({(a, b) for a, b in R[:, :2].tolist() if b > a}) <= P
    assert len({(c, d) for c, d in R[:, 2:].tolist() if d > c}) <= Q
    loads = [A[a:b, c:d].sum() for a, b, c, d in R.tolist()]
    assert max(loads) == res["max_load"]
    return res["max_load"]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_loads_near_2_to_the_52_terminate(name):
    A = np.array(MATRIX)
    got = _check(A, 4, 2, _run(CALLS[name], MATRIX, 4, 2))
    # the largest entry is a lower bound, and a 4 x 2 grid that isolates it exists
    assert got == A.max()


def test_random_loads_near_2_to_the_52_terminate():
    rng = np.random.default_rng(52)
    for _ in range(6):
        n1, n2 = (int(x) for x in rng.integers(3, 9, 2))
        D = rng.integers(0, 3, (n1, n2)) * (rng.random((n1, n2)) < 0.4)
        D[int(rng.integers(n1))] += rng.integers(0, 9, n2)
        D = np.floor(D * float(2**int(rng.integers(49, 52)) + 32 * int(rng.integers(1, 1000))))
        P, Q = int(rng.integers(1, min(4, n1) + 1)), int(rng.integers(2, min(4, n2) + 1))
        got = _check(D, P, Q, _run(CALLS["default"], D.tolist(), P, Q))
        assert got >= D.max()


@pytest.mark.parametrize("top", [3, 2**20, 2**45, 2**47, 2**48])
def test_int64_values_run_as_their_float64_copy(top):
    """The default on int64 values skips the integral test of the float64 weights it converts
    them to (rect_fast.c: their exact total decides, below 2**53 or not); the same matrix as
    float64 values runs that test. Both must give one grid, with totals below
    2**53 (exact sums) and above it (float sums: 200 entries of up to 2**47 or 2**48; the
    int64 input's max load is still the exact block sum)."""
    from scipy import sparse

    from wpart import spatial

    rng = np.random.default_rng(top % 1000 + 7)
    A = sparse.random(60, 50, density=0.07, random_state=rng, format="csr",
                      data_rvs=lambda k: rng.integers(1, top + 1, k)).astype(np.int64)
    A.sum_duplicates()
    total = int(A.data.astype(object).sum())
    assert (total < 2**53) == (top <= 2**45)
    D = A.toarray().astype(object)  # (exact block sums)
    for P, Q in ((2, 3), (4, 4), (8, 5)):
        ri = spatial.rect_nicol(A, P * Q, P=P, Q=Q)
        rf = spatial.rect_nicol(A.astype(np.float64), P * Q, P=P, Q=Q)
        assert np.array_equal(np.asarray(ri.rects), np.asarray(rf.rects))
        if total < 2**53:  # (above, the float64 input's block loads are float sums)
            assert float(ri.max_load) == float(rf.max_load)
        # the int64 result's max load is the exact largest block sum of its grid
        exact = max(int(D[r0:r1, c0:c1].sum()) for r0, r1, c0, c1 in np.asarray(ri.rects))
        assert int(ri.max_load) == exact
