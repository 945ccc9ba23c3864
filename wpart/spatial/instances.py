"""Seeded instance generators for rectangular partitioning (the instance classes of Sec. 4.1 of
Saule et al. 2012).

Every generator returns a C-contiguous int64 matrix and is reproducible: the same arguments
give bit-identical output (NumPy ``Generator(PCG64(seed))``).

* :func:`uniform`     integers uniform in ``[base, floor(base * delta)]`` (target ``Delta``)
* :func:`diagonal`    ``floor(U(0, n1 n2) / (d + 0.1))``, ``d`` = distance to the main diagonal
* :func:`peak`        same formula, ``d`` = distance to one random reference point
* :func:`multipeak`   same, ``d`` = distance to the nearest of ``k`` (3) reference points
* :func:`pic_like`    substitute for the PIC-MAG particle counts (near-uniform background plus
  drifting density ridges, Poisson-sampled); :func:`pic_series` gives the 68 snapshots
* :func:`mesh_like`   substitute for SLAC: vertices of 3D surfaces projected onto a grid
  (sparse, many zeros); :func:`from_points` and :func:`project3d` do the projections
* :func:`sparse_like` sparsity patterns with the structure of SuiteSparse matrices (banded,
  block-diagonal, power-law rows) as ``scipy.sparse`` CSR arrays of ones

The real PIC-MAG and SLAC data of the paper are not redistributable: results on the
substitutes must be labelled as such and compared with the paper only in orderings and trends.
"""

from __future__ import annotations
from .._errors import WpartTypeError, WpartValueError

import inspect
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import as_float, as_int, as_loads, as_seed

__all__ = [
    "CLASSES",
    "SPARSE_KINDS",
    "diagonal",
    "from_points",
    "make",
    "mesh_like",
    "multipeak",
    "peak",
    "pic_like",
    "pic_series",
    "project3d",
    "sparse_like",
    "uniform",
]

#: Pattern kinds of :func:`sparse_like`.
SPARSE_KINDS = ("banded", "block", "powerlaw")

#: Class names accepted by :func:`make`.
CLASSES = ("uniform", "diagonal", "peak", "multipeak", "pic_like", "mesh_like")

_UNSET: Any = object()  # an option of make() that was not given


def _shape(n1: int, n2: int | None) -> tuple[int, int]:
    n1 = as_int(n1, "n1", minimum=1)
    n2 = n1 if n2 is None else as_int(n2, "n2", minimum=1)
    return n1, n2


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(as_seed(seed)))


def uniform(
    n1: int,
    n2: int | None = None,
    /,
    *,
    delta: float = 1.2,
    base: int = 1000,
    seed: int = 0,
) -> NDArray[np.int64]:
    """Integers uniform in ``[base, floor(base * delta)]``, so ``amax/amin <= delta``."""
    n1, n2 = _shape(n1, n2)
    delta = as_float(delta, "delta", minimum=1.0)
    base = as_int(base, "base", minimum=1)
    hi = math.floor(base * delta)
    return _rng(seed).integers(base, hi + 1, size=(n1, n2), dtype=np.int64)


def _by_distance(
    n1: int, n2: int, d: NDArray, rng: np.random.Generator
) -> NDArray[np.int64]:
    u = rng.uniform(0.0, float(n1 * n2), size=(n1, n2))
    return np.ascontiguousarray(np.floor(u / (d + 0.1)).astype(np.int64))


def diagonal(n1: int, n2: int | None = None, /, *, seed: int = 0) -> NDArray[np.int64]:
    """``floor(U(0, n1 n2) / (d + 0.1))`` with ``d = |i - j| / sqrt(2)`` (heavy diagonal)."""
    n1, n2 = _shape(n1, n2)
    i, j = np.indices((n1, n2))
    return _by_distance(n1, n2, np.abs(i - j) / math.sqrt(2.0), _rng(seed))


def _refs(rng: np.random.Generator, n1: int, n2: int, k: int, ref: str) -> NDArray:
    if ref == "continuous":
        return np.column_stack([rng.uniform(0, n1, k), rng.uniform(0, n2, k)])
    if ref == "cell":
        return np.column_stack([rng.integers(0, n1, k), rng.integers(0, n2, k)]).astype(
            float
        )
    raise WpartValueError(f"`ref` must be 'continuous' or 'cell', got {ref!r}")


def multipeak(
    n1: int,
    n2: int | None = None,
    /,
    *,
    k: int = 3,
    ref: str = "continuous",
    seed: int = 0,
) -> NDArray[np.int64]:
    """``floor(U(0, n1 n2) / (d + 0.1))`` with ``d`` the distance to the nearest of `k`
    reference points drawn once per instance (continuous coordinates by default)."""
    n1, n2 = _shape(n1, n2)
    k = as_int(k, "k", minimum=1)
    rng = _rng(seed)
    pts = _refs(rng, n1, n2, k, ref)
    i, j = np.indices((n1, n2))
    d = np.min([np.hypot(i - a, j - b) for a, b in pts], axis=0)
    return _by_distance(n1, n2, d, rng)


def peak(
    n1: int, n2: int | None = None, /, *, ref: str = "continuous", seed: int = 0
) -> NDArray[np.int64]:
    """One reference point: :func:`multipeak` with ``k = 1``."""
    return multipeak(n1, n2, k=1, ref=ref, seed=seed)


def pic_like(
    n: int = 514, /, *, t: int = 0, seed: int = 0, density: float = 100.0, ridges: int = 4
) -> NDArray[np.int64]:
    """Substitute for a PIC-MAG snapshot (Sec. 4.1 of Saule et al. 2012): particle counts on
    an ``n x n`` grid.

    A near-uniform background (mean `density` per cell) plus `ridges` smooth Gaussian shells
    (20-60 % above the background) around a small empty central "planet"; the shells' radii
    and angles drift slowly with the iteration `t`
    (0 ... 33,500 in the paper's series), Poisson-sampled to integers. The geometry is fixed by
    `seed`; `t` only moves it, so consecutive snapshots are similar.
    """
    n = as_int(n, "n", minimum=1)
    t = as_int(t, "t", minimum=0)
    density = as_float(density, "density", minimum=0.0)
    geo = _rng(seed)
    noise = np.random.Generator(np.random.PCG64(int(seed) * 100003 + t + 1))
    x, y = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n), indexing="ij")
    cx, cy = 0.1 * geo.uniform(-1, 1), 0.1 * geo.uniform(-1, 1)
    r = np.hypot(x - cx, y - cy)
    th = np.arctan2(y - cy, x - cx)
    lam = (1.0 + 0.15 * np.cos(2 * np.pi * geo.random())) * (
        1.0 + 0.1 * x
    )  # mild trend
    s = t / 33_500.0
    for _ in range(as_int(ridges, "ridges", minimum=0)):
        r0 = 0.2 + 0.55 * geo.random() + 0.15 * s * geo.uniform(-1, 1)
        w = 0.05 + 0.1 * geo.random()
        amp = 0.2 + 0.4 * geo.random()
        phase = geo.uniform(0, 2 * np.pi) + 1.5 * s * geo.uniform(-1, 1)
        ang = 0.5 + 0.5 * np.cos(th - phase)  # day/night asymmetry
        lam = lam + amp * ang**2 * np.exp(-(((r - r0) / w) ** 2))
    lam = lam * (r > 0.03)  # the planet itself is empty
    return np.ascontiguousarray(noise.poisson(density * lam).astype(np.int64))


def pic_series(n: int = 514, /, *, seed: int = 0, steps: int = 68, every: int = 500):
    """The snapshot series ``t = 0, every, ..., (steps-1) * every`` of :func:`pic_like`
    (a generator of ``(t, matrix)`` pairs)."""
    for s in range(as_int(steps, "steps", minimum=1)):
        yield s * every, pic_like(n, t=s * every, seed=seed)


def project3d(counts3d: ArrayLike, *, axis: int = 2) -> NDArray:
    """Sum a 3D count array along `axis` (the paper's 3D-to-2D accumulation)."""
    a = as_loads(counts3d, "counts3d", (3,))
    axis = as_int(axis, "axis", minimum=0, maximum=2)
    return np.ascontiguousarray(a.sum(axis=axis))


def from_points(xyz: ArrayLike, *, n: int = 512, axis: int = 2) -> NDArray[np.int64]:
    """2D histogram (``n x n``) of 3D points projected along `axis`: one unit of work per
    point, as for the SLAC mesh vertices. Coordinates are scaled to the bounding box."""
    p = np.asarray(xyz, dtype=float)
    if p.ndim != 2 or p.shape[1] != 3 or p.shape[0] == 0:
        raise WpartValueError(f"`xyz` must have shape (k, 3) with k >= 1, got {p.shape}")
    if not np.isfinite(p).all():
        raise WpartValueError("`xyz` contains NaN or inf")
    n = as_int(n, "n", minimum=1)
    axis = as_int(axis, "axis", minimum=0, maximum=2)
    keep = [a for a in range(3) if a != axis]
    q = p[:, keep]
    lo, hi = q.min(axis=0), q.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    idx = np.minimum(((q - lo) / span * n).astype(np.int64), n - 1)
    out = np.zeros((n, n), dtype=np.int64)
    np.add.at(out, (idx[:, 0], idx[:, 1]), 1)
    return out


def mesh_like(
    n: int = 512, /, *, seed: int = 0, points: int = 400_000, axis: int = 0
) -> NDArray[np.int64]:
    """Substitute for a SLAC projection: vertices sampled on an accelerator-like chain of
    cylinders (cavities) and tori (irises), refined near the irises, projected along `axis`.
    Very sparse with many zero cells (``Delta`` undefined)."""
    n = as_int(n, "n", minimum=1)
    rng = _rng(seed)
    points = as_int(points, "points", minimum=1)
    cells = int(rng.integers(4, 8))
    pts = []
    per = points // (2 * cells)
    for c in range(cells):
        z0 = c / cells
        # cavity wall: cylinder of radius R
        R = 0.35 + 0.05 * rng.random()
        u = rng.uniform(0, 2 * np.pi, per)
        z = z0 + rng.uniform(0, 1 / cells, per)
        pts.append(np.column_stack([R * np.cos(u), R * np.sin(u), z]))
        # iris: torus at the cell boundary, finer mesh (more vertices)
        a, b = 0.15, 0.04
        u = rng.uniform(0, 2 * np.pi, per)
        v = rng.uniform(0, 2 * np.pi, per)
        pts.append(
            np.column_stack(
                [
                    (a + b * np.cos(v)) * np.cos(u),
                    (a + b * np.cos(v)) * np.sin(u),
                    z0 + b * np.sin(v),
                ]
            )
        )
    return from_points(np.concatenate(pts), n=n, axis=axis)


def make(cls: str, n: int, *, seed: int = 0, delta: Any = _UNSET, base: Any = _UNSET,
         ref: Any = _UNSET, k: Any = _UNSET, t: Any = _UNSET, density: Any = _UNSET,
         ridges: Any = _UNSET, points: Any = _UNSET, axis: Any = _UNSET) -> NDArray[np.int64]:
    """Instance of class `cls` (one of :data:`CLASSES`) of size ``n x n``.

    The other options are those of the class's own generator (:func:`uniform`: `delta`,
    `base`; :func:`peak`: `ref`; :func:`multipeak`: `k`, `ref`; :func:`pic_like`: `t`,
    `density`, `ridges`; :func:`mesh_like`: `points`, `axis`), with its defaults when not
    given; another class's option is refused with a :class:`WpartTypeError`.
    """
    kw = {name: v for name, v in (("delta", delta), ("base", base), ("ref", ref), ("k", k),
                                  ("t", t), ("density", density), ("ridges", ridges),
                                  ("points", points), ("axis", axis)) if v is not _UNSET}
    f = {
        "uniform": uniform,
        "diagonal": diagonal,
        "peak": peak,
        "multipeak": multipeak,
        "pic_like": pic_like,
        "mesh_like": mesh_like,
    }.get(cls)
    if f is None:
        raise WpartValueError(
            f"`cls` must be one of {', '.join(map(repr, CLASSES))}, got {cls!r}"
        )
    takes = inspect.signature(f).parameters
    bad = [name for name in kw if name not in takes]
    if bad:
        raise WpartTypeError(f"`{cls}` instances take no option "
                             f"{', '.join(f'`{b}`' for b in bad)}")
    return f(n, seed=seed, **kw)


def sparse_like(kind: str, n: int, /, *, nnz: int | None = None, seed: int = 0) -> object:
    """An ``n x n`` sparsity pattern with the structure of a SuiteSparse matrix, as a
    ``scipy.sparse.csr_array`` of int64 ones (unit weights), about `nnz` nonzeros.

    Parameters
    ----------
    kind : {"banded", "block", "powerlaw"}
        ``"banded"``: the full diagonal and random entries within a band (FEM / stencil
        matrices); ``"block"``: dense-ish diagonal blocks of random sizes plus 2 % scattered
        couplings (multi-physics, circuit blocks); ``"powerlaw"``: row degrees drawn from a
        Pareto law (web / social graphs), columns uniform.
    n : int
        Rows and columns.
    nnz : int, optional
        Target number of nonzeros (default ``8.5 n``, the density of a 3,268-row matrix with
        27.8 k nonzeros); the result is within a few percent of it.
    seed : int
        Seed (the same arguments give the same pattern).
    """
    import scipy.sparse

    if kind not in SPARSE_KINDS:
        raise WpartValueError(f"`kind` must be one of {', '.join(SPARSE_KINDS)}, got {kind!r}")
    n = as_int(n, "n", minimum=1)
    target = round(8.5 * n) if nnz is None else as_int(nnz, "nnz", minimum=1)
    target = min(target, n * n)
    rng = _rng(seed)
    if kind == "banded":
        b = max(1, min(n - 1, round(target / (2 * n)))) if n > 1 else 0
        p = min(1.0, max(0.0, (target - n) / max(1, n * 2 * b)))
        rows, cols = [np.arange(n)], [np.arange(n)]
        for off in range(-b, b + 1):
            if off == 0:
                continue
            i = np.arange(max(0, -off), min(n, n - off))
            keep = rng.random(i.size) < p
            rows.append(i[keep])
            cols.append(i[keep] + off)
        r, c = np.concatenate(rows), np.concatenate(cols)
    elif kind == "block":
        sizes = []
        while sum(sizes) < n:
            sizes.append(int(rng.integers(max(1, n // 60), max(2, n // 12) + 1)))
        sizes[-1] -= sum(sizes) - n
        starts = np.cumsum([0] + sizes[:-1])
        area = float(sum(s * s for s in sizes))
        p = min(1.0, 0.98 * target / area)
        rr, cc = [], []
        for s0, s in zip(starts.tolist(), sizes):
            k = rng.binomial(s * s, p)
            flat = rng.choice(s * s, size=k, replace=False)
            rr.append(s0 + flat // s)
            cc.append(s0 + flat % s)
        extra = max(0, target - sum(x.size for x in rr))
        rr.append(rng.integers(0, n, extra))
        cc.append(rng.integers(0, n, extra))
        r, c = np.concatenate(rr), np.concatenate(cc)
    else:
        deg = rng.pareto(1.5, n) + 1.0
        deg = np.minimum(n, np.maximum(1, np.round(deg * target / deg.sum()))).astype(np.int64)
        r = np.repeat(np.arange(n), deg)
        c = rng.integers(0, n, r.size)
    A = scipy.sparse.csr_array((np.ones(r.size, np.int64), (r, c)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1
    return A
