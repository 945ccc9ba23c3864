"""Seeded synthetic profiles: realistic, non-linear, non-convex and non-monotone discrete time
and dynamic-energy profiles that need no hardware, shaped after the DGEMM and 2D-FFT profiles
of Figs. 4-5 and 7-8 of Khaleghzadeh et al. (whose measured data are not published).

Every random number is drawn from a counter-based stream ``u(seed, proc, k, stream)`` (a
splitmix64 hash), so a point's values depend only on the seed, the processor and the point's
index, and independent of NumPy's generators. The streams are computed for every processor
and point at once (uint64 arrays, the same bits as the scalar hash); the profiles are the same
on every run of one build (NumPy's vectorised exp, log and cos may differ from the C library's
in the last bit: 6e-16 relative at most over 72,000 points against the former per-point code).
"""

from __future__ import annotations
from .._docs import fill_doc
from .._errors import WpartTypeError, WpartValueError

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import MAX_COUNT, as_count, as_float, as_int, as_seed, check_memory, choice, renamed
from numpy.typing import NDArray
from ._profiles import Profile, ProfileSet

__all__ = ["PRESETS", "linear_profiles", "synthetic"]

_M64 = (1 << 64) - 1


def _splitmix(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _u(seed: int, proc: int, k: int, stream: int) -> float:
    """Uniform in (0, 1), a pure function of its arguments."""
    h = _splitmix(seed & _M64)
    h = _splitmix(h ^ (proc & _M64))
    h = _splitmix(h ^ (k & _M64))
    h = _splitmix(h ^ (stream & _M64))
    return ((h >> 11) + 0.5) / float(1 << 53)


def _normal(seed: int, proc: int, k: int, stream: int) -> float:
    u1 = _u(seed, proc, k, 2 * stream)
    u2 = _u(seed, proc, k, 2 * stream + 1)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def _largest_prime_factor(x: int) -> int:
    f, best = 2, 1
    while f * f <= x:
        while x % f == 0:
            best, x = f, x // f
        f += 1
    return max(best, x) if x > 1 else best


_COMMON = {"rho": 0.3, "gamma": 0.5, "t0": 0.0, "e0": 0.0}

#: The presets (illustrative: tuned to land near the magnitudes of the paper's Figs. 6 and 9,
#: not paper data).
PRESETS: dict[str, dict[str, Any]] = {
    "dgemm-like": {
        "kind": "gemm", "K": 10112, "g": 64, "lo": 64, "hi": 28800, "q": 0.08,
        "d": (0.05, 0.35), "sigma": 0.02, "missing": None,
        "procs": [
            {"name": "cpu1", "s_peak": 450, "x_ramp": 600, "P_dyn": 140, "P_d": 4096, "d_P": 0.15},
            {"name": "gpu1", "s_peak": 600, "x_ramp": 1500, "P_dyn": 150},
            {"name": "phi1", "s_peak": 350, "x_ramp": 1500, "P_dyn": 200},
            {"name": "cpu2", "s_peak": 500, "x_ramp": 600, "P_dyn": 120, "P_d": 4096, "d_P": 0.15},
            {"name": "gpu2", "s_peak": 2000, "x_ramp": 1500, "P_dyn": 100},
        ],
    },
    "fft-like": {
        "kind": "fft", "K": 51200, "g": 16, "lo": 1024, "hi": 10000, "q": 0.25,
        "d": (0.1, 0.6), "sigma": 0.05, "missing": "smooth127",
        "procs": [
            {"name": "cpu1", "s_peak": 25, "x_ramp": 800, "P_dyn": 60},
            {"name": "gpu1", "s_peak": 35, "x_ramp": 1500, "P_dyn": 70},
            {"name": "phi1", "s_peak": 15, "x_ramp": 1500, "P_dyn": 600},
            {"name": "cpu2", "s_peak": 30, "x_ramp": 800, "P_dyn": 50},
            {"name": "gpu2", "s_peak": 45, "x_ramp": 1500, "P_dyn": 60},
        ],
    },
}
_ALIASES = {"dgemm": "dgemm-like", "gemm": "dgemm-like", "matmul": "dgemm-like",
            "matrix-multiplication-like": "dgemm-like", "mm": "dgemm-like",
            "fft": "fft-like", "2d-fft": "fft-like"}


def _work(kind: str, x: float, K: int) -> float:
    if kind == "gemm":
        return 2.0 * x * K * K
    if kind == "fft":
        return 2.5 * x * K * math.log2(x * K)
    return float(x)


@fill_doc
@renamed(p="m")
def synthetic(
    preset: str = "dgemm-like",
    /,
    *,
    seed: int = 0,
    m: int | None = None,
    hi: int | None = None,
    step: int | None = None,
    missing: str | float | None = "preset",
    quantize: str | None = None,
    burst: float = 1.0,
) -> ProfileSet:
    """Seeded synthetic profiles of a heterogeneous platform.

    Parameters
    ----------
    preset : {"dgemm-like", "fft-like", "tiny-random"}
        ``"dgemm-like"`` (aliases ``"gemm"``, ``"matmul"``): matrix-multiplication-like smooth
        profiles, K = 10112, rows 64..28800 step 64 (450 points), five processors (two CPUs,
        two GPUs, a Xeon-Phi-like accelerator), as the paper's DGEMM (Sec. 1, Figs. 4-6).
        ``"fft-like"`` (``"fft"``): rough 2D-FFT-like profiles, K = 51200, rows 1024..10000
        step 16 with sizes whose largest prime factor exceeds 127 removed (426 points), as the
        paper's 2D-FFT (Figs. 7-9). ``"tiny-random"``: at most 4 processors with at most 6
        integer points each and 20 % holes, for oracle tests.
    seed : int
        Seed in [0, 2**64 - 1]; the same seed gives bit-identical profiles everywhere.
    m : int, optional
        Number of processors: the first `m` of the preset (or cycle through them if larger).
        Replaces ``p`` (deprecated).
    hi : int, optional
        Largest size (default: the preset's). With the preset's step this sets the number of
        points, e.g. ``hi=64000`` gives 1000 dgemm-like points.
    step : int, optional
        Size step (default: the preset's granularity).
    missing : "preset", None, "smooth127" or float
        Holes: the preset's rule, none, the FFT rule, or a random fraction of points.
    quantize : {None, "integer", "dyadic"}
        Round times and energies (to integers, or to multiples of 2^-10), for exact tests.
    burst : float, default 1
        Mean length (points) of a random performance drop; 1 means isolated drops.

    Returns
    -------
    ProfileSet

    {raises}

    Examples
    --------
    >>> import wpart.hetero as wh
    >>> ps = wh.synthetic("dgemm-like", seed=1)
    >>> ps.m, ps[0].n_points
    (5, 450)
    """
    seed = as_seed(seed)
    if m is not None:
        m = as_count(m, "m")
    if not isinstance(preset, str):
        raise WpartTypeError(f"`preset` must be a string, got {type(preset).__name__}")
    key = _ALIASES.get(preset.lower(), preset.lower())
    if key == "tiny-random":
        return _tiny_random(seed, m)
    if key not in PRESETS:
        raise WpartValueError(f"`preset` must be one of {sorted(PRESETS) + ['tiny-random']} (or an "
                         f"alias {sorted(_ALIASES)}), got {preset!r}")
    if quantize is not None:
        quantize = choice(quantize, "quantize", ("integer", "dyadic"))
    burst = as_float(burst, "burst", minimum=1.0)
    cfg = PRESETS[key]
    base = cfg["procs"]
    mm = len(base) if m is None else m
    st = cfg["g"] if step is None else as_int(step, "step", minimum=1, maximum=1 << 62)
    top = cfg["hi"] if hi is None else as_int(hi, "hi", minimum=1, maximum=1 << 62)
    if missing not in ("preset", None, "smooth127"):
        missing = as_float(missing, "missing", minimum=0.0, maximum=1.0)
    lo = int(cfg["lo"]) if step is None else max(st, (int(cfg["lo"]) // st) * st)
    n_sizes = max(0, (top - lo) // st + 1)
    if n_sizes > MAX_COUNT:
        raise WpartValueError(f"`hi` = {top} with `step` = {st} gives {n_sizes} sizes, more than "
                              f"{MAX_COUNT}")
    # about 12 float64 arrays of m x n_sizes (the 6 uniform streams, times, energies, ...)
    check_memory(96.0 * mm * n_sizes, "m", limit=float(1 << 33))
    sizes = np.arange(lo, top + 1, st, dtype=np.int64)
    miss = cfg["missing"] if missing == "preset" else missing
    K = sizes.size
    out = []
    # blocks of processors: every NumPy operation below stays short (Ctrl-C is answered
    # between two of them) and the working memory is that of one block
    blk = max(1, (1 << 20) // max(K, 1))
    for i0 in range(0, mm, blk):
        t, e, keep = _block(seed, cfg, sizes, np.arange(i0, min(mm, i0 + blk)), burst, miss,
                            quantize)
        for j in range(t.shape[0]):
            i = i0 + j
            pr = base[i % len(base)]
            name = pr["name"] + ("" if m is None or i < len(base) else f"_{i // len(base)}")
            kk = keep[j]
            out.append(Profile.from_arrays(sizes[kk], t[j, kk], e[j, kk], name=name))
    return ProfileSet(tuple(out))


def _block(seed: int, cfg: dict, sizes: NDArray, procs_idx: NDArray, burst: float, miss: Any,
           quantize: Any) -> tuple[NDArray, NDArray, NDArray]:
    """Times, energies and kept points of the processors `procs_idx` (global indices)."""
    base = cfg["procs"]
    K = sizes.size
    mm = procs_idx.size
    idx = procs_idx.astype(np.uint64)
    pick = procs_idx % len(base)

    def col(name: str, default: float = 0.0) -> NDArray:
        return np.array([float(pr.get(name, default)) for pr in base])[pick][:, None]

    s_peak, x_ramp, P_dyn = col("s_peak"), col("x_ramp"), col("P_dyn")
    has_pd = np.array(["P_d" in pr for pr in base])[pick][:, None]
    P_d = np.array([int(pr.get("P_d", 1)) for pr in base], dtype=np.int64)[pick][:, None]
    d_P = col("d_P")
    xf = sizes.astype(np.float64)[None, :]
    # the drop state runs along the sizes, every processor at once
    u1, u2 = _u_np(seed, idx, K, 1), _u_np(seed, idx, K, 2)
    u3 = _u_np(seed, idx, K, 3) if burst > 1 else None
    lo_d, hi_d = cfg["d"]
    dropf = np.ones((mm, K))
    left = np.zeros(mm, dtype=np.int64)
    depth = np.zeros(mm)
    inv = math.log(1 - 1 / burst) if burst > 1 else 1.0
    for k in range(K):
        busy = left > 0
        left[busy] -= 1
        hit = ~busy & (u1[:, k] < cfg["q"])
        if hit.any():
            depth[hit] = lo_d + (hi_d - lo_d) * u2[hit, k]
            left[hit] = 1
            if u3 is not None:
                left[hit] = 1 + (np.log(u3[hit, k]) / inv).astype(np.int64)
        on = left > 0
        dropf[on, k] = 1.0 - depth[on]
    del u1, u2, u3
    ramp = 1.0 - np.exp(-xf / x_ramp)
    pd_hit = has_pd & (sizes[None, :] % P_d == 0)
    dropf = np.where(pd_hit, dropf * (1.0 - d_P), dropf)
    sig = cfg["sigma"]
    s_ = s_peak * 1e9 * ramp * dropf * np.exp(sig * _normal_np(seed, idx, K, 4))
    del dropf
    t = _COMMON["t0"] + _work_np(cfg["kind"], xf, cfg["K"]) / s_
    del s_
    P = P_dyn * (_COMMON["rho"] + (1 - _COMMON["rho"]) * ramp ** _COMMON["gamma"]) \
        * np.exp(sig * _normal_np(seed, idx, K, 5))
    e = _COMMON["e0"] + P * (t - _COMMON["t0"]) + 0.1 * P_dyn * _COMMON["t0"]
    del P, ramp
    if miss == "smooth127":
        keep = np.broadcast_to(_smooth127(sizes)[None, :], (mm, K))
    elif isinstance(miss, (int, float)) and miss is not None and not isinstance(miss, bool):
        keep = _u_np(seed, idx, K, 6) >= float(miss)
    else:
        keep = np.ones((mm, K), bool)
    if quantize == "integer":
        t, e = np.round(t), np.round(e)
    elif quantize == "dyadic":
        t, e = np.round(t * 1024.0) / 1024.0, np.round(e * 1024.0) / 1024.0
    return t, e, keep


_C1, _C2, _C3 = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9),
                 np.uint64(0x94D049BB133111EB))


def _splitmix_np(z: NDArray) -> NDArray:
    """:func:`_splitmix` on uint64 arrays (wrapping arithmetic: the same bits)."""
    z = z + _C1
    z = (z ^ (z >> np.uint64(30))) * _C2
    z = (z ^ (z >> np.uint64(27))) * _C3
    return z ^ (z >> np.uint64(31))


def _u_np(seed: int, procs: NDArray, K: int, stream: int) -> NDArray:
    """``_u(seed, i, k, stream)`` for every processor i in `procs` and k < K: shape (m, K),
    the same bits as the scalar function."""
    with np.errstate(over="ignore"):
        h = np.uint64(_splitmix(seed & _M64))
        h1 = _splitmix_np(h ^ procs)
        h2 = _splitmix_np(h1[:, None] ^ np.arange(K, dtype=np.uint64)[None, :])
        h3 = _splitmix_np(h2 ^ np.uint64(stream & _M64))
    return ((h3 >> np.uint64(11)).astype(np.float64) + 0.5) / float(1 << 53)


def _normal_np(seed: int, procs: NDArray, K: int, stream: int) -> NDArray:
    u1 = _u_np(seed, procs, K, 2 * stream)
    u2 = _u_np(seed, procs, K, 2 * stream + 1)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * math.pi * u2)


def _work_np(kind: str, x: NDArray, K: int) -> NDArray:
    if kind == "gemm":
        return 2.0 * x * K * K
    if kind == "fft":
        return 2.5 * x * K * np.log2(x * K)
    return x


_PRIMES_127 = [p for p in range(2, 128) if all(p % d for d in range(2, int(p**0.5) + 1))]


def _smooth127(sizes: NDArray) -> NDArray:
    """Whether every prime factor of each size is <= 127 (= largest prime factor <= 127),
    by dividing out the 31 primes up to 127: O(31 log x) per size, never a trial division
    up to sqrt(x)."""
    r = sizes.astype(np.int64).copy()
    r[r < 1] = 1
    for p in _PRIMES_127:
        while True:
            d = (r % p == 0) & (r > 1)
            if not d.any():
                break
            r[d] //= p
    return r == 1


def _tiny_random(seed: int, m: int | None) -> ProfileSet:
    mm = m if m is not None else 1 + int(_u(seed, 99, 0, 0) * 4)
    out = []
    for i in range(mm):
        n_points = 1 + int(_u(seed, i, 0, 7) * 6)
        sizes, t, e = [], [], []
        for k in range(1, n_points + 1):
            if _u(seed, i, k, 8) < 0.2:
                continue
            sizes.append(k)
            t.append(float(int(_u(seed, i, k, 9) * 10)))
            e.append(float(int(_u(seed, i, k, 10) * 10)))
        out.append(Profile.from_arrays(np.array(sizes, np.int64), t, e, name=f"P{i}"))
    return ProfileSet(tuple(out))


@fill_doc
def linear_profiles(a: Sequence[float], b: Sequence[float], n_points: int) -> ProfileSet:
    """Linear profiles ``t_i(x) = a_i x`` and ``e_i(x) = b_i x`` on sizes ``1..n_points``.

    The linear case of Sec. 1 and Sec. 10.2 of Khaleghzadeh et al. (Figs. 1-3 and 17-18),
    a test oracle: one processor per coefficient, so ``m = len(a) = len(b)``.

    Parameters
    ----------
    a, b : sequence of float
        Time and dynamic-energy slopes, one per processor, finite and >= 0.
    n_points : int
        Number of measured sizes of every profile (sizes ``1..n_points``).

    Returns
    -------
    ProfileSet
        One linear profile per processor.

    {raises}

    Notes
    -----
    Changed in this release: the third argument was named ``m``; ``m`` now always means the
    number of processors (here ``len(a)``), so the old keyword is not accepted.

    Examples
    --------
    >>> import wpart.hetero as wh
    >>> ps = wh.linear_profiles((1, 3), (1, 2), 8)
    >>> ps.m, ps[0].n_points
    (2, 8)
    """
    n_points = as_count(n_points, "n_points")
    try:
        a_ = [as_float(v, "a", minimum=0.0) for v in a]
        b_ = [as_float(v, "b", minimum=0.0) for v in b]
    except TypeError:
        raise WpartTypeError("`a` and `b` must be sequences of numbers") from None
    if len(a_) != len(b_) or not a_:
        raise WpartValueError(f"`a` and `b` must have the same length >= 1 (one slope per "
                              f"processor), got {len(a_)} and {len(b_)}")
    check_memory(24.0 * len(a_) * n_points, "n_points", limit=float(1 << 33))
    x = np.arange(1, n_points + 1, dtype=np.int64)
    return ProfileSet(tuple(Profile.from_arrays(x, ai * x, bi * x, name=f"P{i}")
                            for i, (ai, bi) in enumerate(zip(a_, b_))))
