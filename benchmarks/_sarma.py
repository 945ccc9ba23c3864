"""Re-implementations of SARMA's nine rectilinear algorithms (GT-TDAlab/SARMA, BSD-3), written
from the published descriptions and the algorithms' documented behaviour, for the side-by-side
benchmark bench_spatial_sarma.py. Every stored entry of the matrix weighs its value (SARMA's
``--use-data``; a unit matrix is SARMA's default), cuts are (P + 1)-vectors.

* ``nic`` / ``nicuni``: Nicol's 2D refinement from the exact 1D partition of the stored-entry
  count per row (``nic``) or from uniform rows (``nicuni``), alternating exact 1D half-steps on
  the max-over-stripes cost, at most max(10, P + Q) half-steps, stopping at the first
  half-step that changes no cut. Vectorised numpy: a half-step is one ``bincount`` over the
  nonzeros (O(nnz + K n)) and a bisection whose probes are K-wide ``searchsorted`` calls.
  ``nicol_c`` runs the same in C (SARMA's ``nic_v`` work: a bisection on the bottleneck);
  ``nicol_idx`` does SARMA's own ``nic`` work in C (Nicol's cut-index search, its default),
  the CPU baseline of the benchmarks.
* ``uni``: the same P equal intervals for rows and columns.
* ``pal``, ``opal``, ``rac``: the symmetric probe (bounded / ordered) and refine-a-cut, run by
  wpart's C kernel in SARMA's variants (``rac`` returns its last iterate, as SARMA does).
* ``sgo_2dr``, ``sgo_2ds``: subgradient optimisation of the cut positions in load space (step
  1/sqrt(k + 100); stops when (max - min)/min of the per-interval maxima is below 0.001 or
  10 (P + Q + 2) iterations bring less than 0.1 %); ``sgo_2ds`` keeps one cut vector for rows
  and columns. The random start is SARMA's own, draw for draw: one ``std::mt19937_64`` seeded
  1 (:class:`MT19937_64`) serves the dimensions in order (rows, then columns), each drawing
  its P - 1 positions from libstdc++'s ``uniform_real_distribution<double>(0, total)``
  (:func:`canonical`) and sorting them; ``total`` is the dimension's total load (2x the
  matrix's for ``sgo_2ds``, whose one dimension is rows and columns). ``sgo_2dr_nic``:
  Nicol's refinement started from sgo_2dr's row cuts (our reading of the name: SARMA's
  published source does not define it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from _common import load_c

from wpart import _core


class Mat:
    """CSR arrays of a matrix plus its transpose and the pieces the algorithms share."""

    def __init__(self, A):
        import scipy.sparse as sp

        A = sp.csr_array(A)
        A.sum_duplicates()
        self.n1, self.n2 = A.shape
        self.N = max(self.n1, self.n2)
        self.rp = A.indptr.astype(np.int64)
        self.ci = A.indices.astype(np.int64)
        self.w = A.data.astype(np.float64)
        self.row = np.repeat(np.arange(self.n1, dtype=np.int64), np.diff(self.rp))
        self.total = float(self.w.sum())
        self.unit = bool((self.w == 1).all())
        # integer loads whose sums are exact in float64 and int64 (the nics' integral mode)
        self.integral = bool(np.all(self.w == np.round(self.w))) and self.total < 2**53
        self.wi = self.w.astype(np.int64) if self.integral else None

    def loads(self, R, C):
        ri = np.searchsorted(R, self.row, side="right") - 1
        cj = np.searchsorted(C, self.ci, side="right") - 1
        P, Q = len(R) - 1, len(C) - 1
        return np.bincount(ri * Q + cj, weights=self.w, minlength=P * Q).reshape(P, Q)

    def lmax(self, R, C):
        return float(self.loads(np.minimum(R, self.n1), np.minimum(C, self.n2)).max())


def _oned_multi(X, parts, integral):
    """Exact min-max partition of the K-stripe prefix X (K x (n+1)) into `parts` intervals."""
    K, n1 = X.shape
    n = n1 - 1
    span = float(X[:, -1].max() - X[:, 0].min()) + 1.0
    off = np.arange(K) * (3 * span)
    flat = (X + off[:, None]).ravel()  # rows offset: one sorted array, one searchsorted
    base = np.arange(K) * n1

    def probe(B):
        cuts = [0]
        a = 0
        for p in range(parts - 1):
            # largest b with X[:, b] - X[:, a] <= B for all stripes
            vals = X[:, a] + min(B, span) + off
            b = int((np.searchsorted(flat, vals, side="right") - base).min()) - 1
            b = max(b, a)
            cuts.append(b)
            a = b
        cuts.append(n)
        ok = float((X[:, n] - X[:, a]).max()) <= B
        return ok, cuts

    lo = float((X[:, n] / parts).max())
    lo = np.ceil(lo) if integral else lo
    hi = float((X[:, n] - X[:, 0]).max())
    best = probe(hi)[1]
    it = 0
    while lo < hi and it < 200:
        mid = np.floor((lo + hi) / 2) if integral else (lo + hi) / 2
        ok, cuts = probe(mid)
        if ok:
            hi, best = mid, cuts
        else:
            lo = mid + 1 if integral else mid
        if not integral and hi - lo <= 1e-12 * hi:
            break
        it += 1
    return np.array(best, np.int64)


def _half(M, R, Q_cuts, rows, integral):
    """Nicol half-step: the cuts of one dimension (rows=True: row cuts R' for column cuts)."""
    if rows:
        major, minor, n = M.row, M.ci, M.n1
    else:
        major, minor, n = M.ci, M.row, M.n2
    K = len(Q_cuts) - 1
    s = np.searchsorted(Q_cuts, minor, side="right") - 1
    X = np.zeros((K, n + 1))
    X[:, 1:] = np.bincount(s * n + major, weights=M.w, minlength=K * n).reshape(K, n)
    np.cumsum(X, axis=1, out=X)
    return _oned_multi(X, len(R) - 1, integral)


_CNIC: list = []  # [(sarma_nicol, sarma_nicol_idx) or (None, None)], filled once


def _cnic():
    """The C nics of _sarma_nic.c, (sarma_nicol, sarma_nicol_idx) (compiled once per process
    with the system C compiler, _common.load_c), or (None,
    None) when that fails (numpy then runs)."""
    if _CNIC:
        return _CNIC[0]
    import ctypes
    import subprocess

    fn = fi = None
    try:
        lib = load_c(Path(__file__).resolve().parent / "_sarma_nic.c")
        fn = lib.sarma_nicol
        p64 = ctypes.POINTER(ctypes.c_int64)
        fn.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, p64, p64,
                       ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, p64, p64]
        fn.restype = ctypes.c_int
        fi = lib.sarma_nicol_idx
        fi.argtypes = [ctypes.c_int64, ctypes.c_int64, p64, p64, p64, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, p64, p64]
        fi.restype = ctypes.c_int
    except (OSError, subprocess.CalledProcessError):
        fn = fi = None
    _CNIC.append((fn, fi))
    return _CNIC[0]


def nicol_c(M, P, Q, start="nic"):
    """nic / nicuni in C (same cuts as :func:`nicol` on integer loads); None without a C
    compiler."""
    import ctypes

    fn = _cnic()[0]
    if fn is None:
        return None
    R = np.empty(P + 1, np.int64)
    C = np.empty(Q + 1, np.int64)
    p64 = ctypes.POINTER(ctypes.c_int64)
    pd = ctypes.POINTER(ctypes.c_double)
    st = fn(M.n1, M.n2, M.row.size, M.row.ctypes.data_as(p64), M.ci.ctypes.data_as(p64),
            M.w.ctypes.data_as(pd), P, Q, 0 if start == "nic" else 1, int(M.integral),
            R.ctypes.data_as(p64), C.ctypes.data_as(p64))
    if st < 0:
        raise MemoryError("sarma_nicol")
    return R, C


def nicol_idx(M, P, Q, start="nic", steps=False):
    """SARMA's own ``nic`` / ``nicuni`` work in C: Nicol's cut-index search (SARMA's default
    1D method, not a bisection on the bottleneck), stripes found by binary search, the
    transpose built inside the call (see _sarma_nic.c). Integer loads only (SARMA's loads are
    unsigned integers); None without a C compiler or with fractional loads. (R, C), or with
    ``steps`` (R, C, the half-steps it ran)."""
    import ctypes

    fi = _cnic()[1]
    if fi is None or not M.integral:
        return None
    R = np.empty(P + 1, np.int64)
    C = np.empty(Q + 1, np.int64)
    p64 = ctypes.POINTER(ctypes.c_int64)
    st = fi(M.n1, M.n2, M.rp.ctypes.data_as(p64), M.ci.ctypes.data_as(p64),
                  M.wi.ctypes.data_as(p64), P, Q, 0 if start == "nic" else 1,
                  R.ctypes.data_as(p64), C.ctypes.data_as(p64))
    if st < 0:
        raise MemoryError("sarma_nicol_idx")
    return (R, C, int(st)) if steps else (R, C)


def nicol(M, P, Q, start="nic"):
    if isinstance(start, str) and start == "nic":
        X = np.concatenate([[0.0], np.cumsum(np.diff(M.rp).astype(float))])[None, :]
        R = _oned_multi(X, P, True)
    elif isinstance(start, str) and start == "uni":
        R = (np.arange(P + 1) * M.n1) // P
    else:
        R = np.asarray(start, np.int64)
    C = (np.arange(Q + 1) * M.n2) // Q
    cuts = [R, C]
    for i in range(1, max(10, P + Q) + 1):  # half-steps; i odd: columns, i even: rows
        d = i & 1  # 1 -> columns
        prev = cuts[d]
        cuts[d] = _half(M, cuts[d], cuts[1 - d], rows=(d == 0), integral=M.integral)
        if np.array_equal(prev, cuts[d]):
            break
    return cuts[0], cuts[1]


def _sym(M, P, variant):
    w = None if M.unit else M.w
    cuts = _core.spatial_rect_sym(M.n1, M.n2, M.rp, M.ci, w, P, variant,
                                  max_iter=max(10, P))[0]
    return cuts, cuts


_M64 = (1 << 64) - 1


class MT19937_64:
    """The 64-bit Mersenne Twister of C++11 (``std::mt19937_64``): state of 312 words, the
    standard's parameters; ``next()`` is one ``gen()`` call. Pure Python, for the few hundred
    draws of a subgradient start."""

    N, M = 312, 156
    A = 0xB5026F5AA96619E9  # twist matrix
    UPPER, LOWER = 0xFFFFFFFF80000000, 0x7FFFFFFF  # the word's top 33 / low 31 bits

    def __init__(self, seed=5489):
        st = [seed & _M64]
        for i in range(1, self.N):
            x = st[-1]
            st.append((6364136223846793005 * (x ^ (x >> 62)) + i) & _M64)
        self._st = st
        self._i = self.N

    def _twist(self):
        st, n, m = self._st, self.N, self.M
        for k in range(n):
            y = (st[k] & self.UPPER) | (st[(k + 1) % n] & self.LOWER)
            st[k] = st[(k + m) % n] ^ (y >> 1) ^ (self.A if y & 1 else 0)
        self._i = 0

    def next(self):
        """The next 64-bit output (tempered)."""
        if self._i >= self.N:
            self._twist()
        y = self._st[self._i]
        self._i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & _M64


_BELOW_ONE = 0.9999999999999999  # the largest double below 1.0


def canonical(x):
    """libstdc++'s ``generate_canonical<double, 53>`` for one 64-bit draw ``x`` (a 64-bit
    generator needs exactly one): x rounded to a double, over 2**64; a result that rounds up
    to 1.0 becomes the largest double below 1.0."""
    r = float(x) / 18446744073709551616.0
    return r if r < 1.0 else _BELOW_ONE


def random_start(Ps, totals, seed=1):
    """SARMA's random start of the subgradient method: one MT19937_64(seed) for all
    dimensions, in order; dimension k draws Ps[k] - 1 positions ``canonical(gen) * totals[k]``
    (``uniform_real_distribution<double>(0, total)``) and sorts them."""
    gen = MT19937_64(seed)
    return [np.sort(np.array([canonical(gen.next()) * float(t) for _ in range(P - 1)],
                             dtype=np.float64))
            for P, t in zip(Ps, totals)]


def uni(M, P):
    c = (np.arange(P + 1) * M.N) // P
    return c, c


def _sgo(M, Ps, symmetric, seed=1, init=None, max_iter=20000):
    """Subgradient optimisation of cut positions in load space, from the given cuts `init`
    (one (P + 1)-vector per dimension) or SARMA's random start (:func:`random_start`)."""
    rowp = np.concatenate([[0.0], np.cumsum(np.bincount(M.row, weights=M.w, minlength=M.N))])
    colp = np.concatenate([[0.0], np.cumsum(np.bincount(M.ci, weights=M.w, minlength=M.N))])
    if symmetric:
        pref = [rowp + colp]
    else:
        pref = [rowp, colp]
    if init is not None:
        pis = [pref[k][np.asarray(init[k][1:-1])].astype(float) for k in range(len(Ps))]
    else:
        pis = random_start(Ps, [pref[k][-1] for k in range(len(Ps))], seed)

    def to_ps(pis):
        return [np.concatenate([[0], np.searchsorted(pref[k], pis[k], side="left"), [M.N]])
                .astype(np.int64) for k in range(len(pis))]

    best = (None, np.inf)
    pbest_m, pbest = 1, np.inf
    PQ = sum(len(p) + 2 for p in pis)
    m = 1
    while m <= max_iter:
        ps = to_ps(pis)
        R, C = (ps[0], ps[0]) if symmetric else (ps[0], ps[1])
        L = M.loads(np.minimum(R, M.n1), np.minimum(C, M.n2))
        if symmetric:
            rs = [np.maximum(L.max(axis=1), L.max(axis=0))]
        else:
            rs = [L.max(axis=1), L.max(axis=0)]
        mx = float(rs[0].max())
        if mx < best[1]:
            best = ([p.copy() for p in pis], mx)
        mn = np.inf
        for k in range(len(pis)):
            u = np.cumsum(rs[k] - rs[k].mean())
            t = 1.0 / np.sqrt(m // (len(pis[k]) + 2) + 100)
            pis[k] = np.sort(pis[k] - t * u[:len(pis[k])])
            mn = min(mn, float(rs[k].min()))
        err = (mx - mn) / mn if mn > 0 else np.inf
        if err < 0.001:
            break
        if m - pbest_m > 10 * PQ:
            if best[1] * 1.001 >= pbest:
                break
            pbest, pbest_m = best[1], m
        m += 1
    ps = to_ps(best[0])
    return (ps[0], ps[0]) if symmetric else (ps[0], ps[1])


#: The seed of SARMA's command line (``sarma --seed``, default 2147483647), which it hands to
#: its SGO members; the library's own default (``subgradient_method::partition``) is 1.
CLI_SEED = 2147483647


def sgo_2dr(M, P, Q, seed=1):
    return _sgo(M, [P, Q], False, seed)


def sgo_2ds(M, P, seed=1):
    return _sgo(M, [P], True, seed)


def sgo_2dr_nic(M, P, Q, seed=1):
    R, _ = sgo_2dr(M, P, Q, seed)
    return nicol(M, P, Q, start=np.minimum(R, M.n1))


def run(name, M, P, Q, seed=1):
    """(R, C) of SARMA algorithm `name` (symmetric ones only when P == Q: else None); the SGO
    members from SARMA's random start of `seed` (1: its library's default, CLI_SEED: its
    command line's)."""
    if name == "nic":
        return nicol(M, P, Q, "nic")
    if name == "nicuni":
        return nicol(M, P, Q, "uni")
    if name == "sgo_2dr":
        return sgo_2dr(M, P, Q, seed)
    if name == "sgo_2dr_nic":
        return sgo_2dr_nic(M, P, Q, seed)
    if P != Q:
        return None
    if name == "uni":
        return uni(M, P)
    if name == "pal":
        return _sym(M, P, 0)
    if name == "opal":
        return _sym(M, P, 1)
    if name == "rac":
        return _sym(M, P, 12)
    if name == "sgo_2ds":
        return sgo_2ds(M, P, seed)
    raise ValueError(name)


NINE = ("nic", "nicuni", "uni", "pal", "opal", "rac", "sgo_2ds", "sgo_2dr_nic", "sgo_2dr")
