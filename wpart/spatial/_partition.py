"""The result class of the spatial family: :class:`SpatialPartition`."""

from __future__ import annotations
from .._errors import WpartValueError

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["SpatialPartition"]


@dataclass(frozen=True)
class SpatialPartition:
    """A tiling of a load matrix by ``m`` rectangles.

    Attributes
    ----------
    rects : ndarray of int64, shape (m, 4)
        Rows ``(r0, r1, c0, c1)``: rectangle ``k`` covers rows ``r0 <= i < r1`` and columns
        ``c0 <= j < c1``. Empty rectangles (``r0 == r1`` or ``c0 == c1``) only appear when
        the structure forces them (more parts than cells, ``P > n1`` ...).
    loads : ndarray, shape (m,)
        Load of every rectangle (int64 or float64, as the input).
    max_load : int or float
        ``Lmax``, the objective.
    avg_load : float
        ``T / m``.
    total : int or float
        ``T``, the total load.
    lower_bound : int or float
        ``max(ceil(T/m), amax)`` (``max(T/m, amax)`` for floats), valid for every class.
    imbalance : float
        ``max_load / avg_load - 1`` (0 when ``T = 0``).
    gap_lb : float
        ``max_load / lower_bound - 1`` (0 when the bound is 0).
    method : str
        Algorithm name (spec name, lower case).
    params : dict
        The options used, with resolved values (e.g. ``orient_used``, ``P``).
    stats : dict
        ``seconds`` (core time), ``iterations``, ``probes``, ``cost_evals``, ``dp_states``,
        ``converged``.
    shape : tuple of int
        ``(n1, n2)`` (``(n1, n2, n3)`` for 3D HIER-RB, whose `rects` have 6 columns
        ``(r0, r1, c0, c1, l0, l1)``).
    speeds : ndarray or None
        Relative processor speeds (part ``k`` runs on a processor of speed ``speeds[k]``).
    bottleneck : float
        ``max_k loads[k] / speeds[k]``, the objective with speeds (``max_load`` without).
    """

    rects: NDArray[np.int64]
    loads: NDArray
    max_load: Any
    avg_load: float
    total: Any
    lower_bound: Any
    imbalance: float
    gap_lb: float
    method: str
    params: dict
    stats: dict
    shape: tuple
    A: NDArray = field(repr=False, compare=False)
    speeds: NDArray | None = None
    bottleneck: float = 0.0

    @property
    def m(self) -> int:
        """Number of parts."""
        return int(self.rects.shape[0])

    def owner_map(self) -> NDArray[np.int32]:
        """``(n1, n2)`` int32 array: the index of the rectangle owning each cell.

        Raises ``ValueError`` if some cell is uncovered or covered twice.
        """
        own = np.full(self.shape, -1, dtype=np.int32)
        cnt = np.zeros(self.shape, dtype=np.int32)
        nd = len(self.shape)
        for k, r in enumerate(self.rects.tolist()):
            sl = tuple(slice(r[2 * d], r[2 * d + 1]) for d in range(nd))
            own[sl] = k
            cnt[sl] += 1
        if not (cnt == 1).all():
            idx = tuple(int(x) for x in np.argwhere(cnt != 1)[0])
            raise WpartValueError(f"cell {idx} is covered {cnt[idx]} times")
        return own

    def structure(self) -> dict:
        """The partition's structure, derived from the rectangles (spec 7.2), on demand.

        * RECT methods: ``{"row_cuts", "col_cuts"}`` (the grid lines).
        * jagged methods: ``{"main_dim", "stripe_cuts", "counts", "cuts_per_stripe"}``
          (``main_dim`` 0 = stripes of rows).
        * every other 2D result: ``{"tree": [(r0, r1, c0, c1, dim, cut, n_first), ...]}``,
          the guillotine cuts in pre-order, or ``{"tree": None}`` when the rectangles are not a
          guillotine partition (possible only for :func:`general_optimum`).

        Empty rectangles are ignored. Raises ``ValueError`` for 3D results.
        """
        if len(self.shape) != 2:
            raise WpartValueError("structure() describes 2D partitions only")
        rs = [tuple(r) for r in self.rects.tolist() if r[1] > r[0] and r[3] > r[2]]
        if self.method.startswith("rect"):
            return {
                "row_cuts": sorted({r[0] for r in rs} | {r[1] for r in rs}),
                "col_cuts": sorted({r[2] for r in rs} | {r[3] for r in rs}),
            }
        if self.method.startswith("jag"):
            main = (
                0
                if self.params.get("orient_used", self.params.get("orient")) == "hor"
                else 1
            )
            a, b, c, d = (0, 1, 2, 3) if main == 0 else (2, 3, 0, 1)
            stripes: dict = {}
            for r in rs:
                stripes.setdefault((r[a], r[b]), []).append((r[c], r[d]))
            keys = sorted(stripes)
            return {
                "main_dim": main,
                "stripe_cuts": [0] + [k[1] for k in keys],
                "counts": [len(stripes[k]) for k in keys],
                "cuts_per_stripe": [
                    [0] + sorted(p[1] for p in stripes[k]) for k in keys
                ],
            }
        tree: list = []

        def rec(group: list) -> bool:
            if len(group) <= 1:
                return True
            r0, r1 = min(r[0] for r in group), max(r[1] for r in group)
            c0, c1 = min(r[2] for r in group), max(r[3] for r in group)
            for dim in (0, 1):
                lo, hi = 2 * dim, 2 * dim + 1
                order = sorted(group, key=lambda r: r[lo])
                reach = order[0][hi]
                for k in range(1, len(order)):
                    if (
                        order[k][lo] >= reach
                    ):  # every earlier rectangle ends by this cut
                        cut = order[k][lo]
                        tree.append((r0, r1, c0, c1, dim, cut, k))
                        return rec(order[:k]) and rec(order[k:])
                    reach = max(reach, order[k][hi])
            return False

        return {"tree": tree if rec(rs) else None}

    def validate(self) -> None:
        """Check the partition; raise ``ValueError`` with the reason if it is broken.

        Checks: ``m`` rows of 4 integers inside the matrix with ``r0 <= r1``, ``c0 <= c1``;
        the non-empty rectangles cover every cell exactly once (owner-map paint); every load
        equals the direct sum of ``A`` over the rectangle; ``max_load = max(loads)`` and
        ``max_load >= lower_bound``.
        """
        r = self.rects
        nd = len(self.shape)
        if r.ndim != 2 or r.shape[1] != 2 * nd or r.dtype != np.int64:
            raise WpartValueError(
                f"rects must be an (m, {2 * nd}) int64 array, got {r.shape} {r.dtype}"
            )
        bad = np.zeros(r.shape[0], dtype=bool)
        for d in range(nd):
            bad |= (r[:, 2 * d] < 0) | (r[:, 2 * d] > r[:, 2 * d + 1])
            bad |= r[:, 2 * d + 1] > self.shape[d]
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise WpartValueError(
                f"rectangle {k} = {r[k].tolist()} is outside the matrix {self.shape}"
            )
        self.owner_map()
        A = self.A
        for k, rk in enumerate(r.tolist()):
            direct = A[tuple(slice(rk[2 * d], rk[2 * d + 1]) for d in range(nd))].sum()
            if A.dtype.kind == "f":
                ok = abs(direct - self.loads[k]) <= 1e-9 * max(
                    1.0, abs(float(self.total))
                )
            else:
                ok = int(direct) == int(self.loads[k])
            if not ok:
                raise WpartValueError(
                    f"load of rectangle {k} is {self.loads[k]}, direct sum {direct}"
                )
        if self.m and self.max_load != self.loads.max():
            raise WpartValueError("max_load differs from max(loads)")
        if A.dtype.kind != "f" and self.max_load < self.lower_bound:
            raise WpartValueError("max_load is below the lower bound")

    def to_dict(self) -> dict:
        """Plain-Python summary (JSON-friendly)."""
        return {
            "method": self.method,
            "params": {k: v for k, v in self.params.items()},
            "shape": list(self.shape),
            "m": self.m,
            "rects": self.rects.tolist(),
            "loads": self.loads.tolist(),
            "max_load": _scalar(self.max_load),
            "avg_load": float(self.avg_load),
            "lower_bound": _scalar(self.lower_bound),
            "imbalance": float(self.imbalance),
            "gap_lb": float(self.gap_lb),
            "stats": dict(self.stats),
            "speeds": None if self.speeds is None else self.speeds.tolist(),
            "bottleneck": float(self.bottleneck),
        }

    def __repr__(self) -> str:
        return (
            f"SpatialPartition(method={self.method!r}, shape={self.shape}, m={self.m}, "
            f"max_load={self.max_load}, imbalance={self.imbalance:.4f}, "
            f"gap_lb={self.gap_lb:.4f})"
        )

    def plot(
        self,
        ax: Any = None,
        *,
        cmap: str = "viridis",
        edgecolor: str = "white",
        linewidth: float | None = None,
        title: str | None = None,
    ) -> Any:
        """Heatmap of the loads with the rectangles drawn on top (matplotlib).

        Returns the Axes.
        """
        import matplotlib.pyplot as plt
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Rectangle

        if len(self.shape) != 2:
            raise WpartValueError("plot() draws 2D partitions only")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        ax.imshow(self.A, cmap=cmap, interpolation="nearest", origin="upper")
        if linewidth is None:
            linewidth = max(0.2, 1.5 / math.sqrt(max(1, self.m) / 16))
        patches = [
            Rectangle((c0 - 0.5, r0 - 0.5), c1 - c0, r1 - r0)
            for r0, r1, c0, c1 in self.rects.tolist()
            if r1 > r0 and c1 > c0
        ]
        ax.add_collection(
            PatchCollection(
                patches, facecolor="none", edgecolor=edgecolor, linewidth=linewidth
            )
        )
        ax.set_xlim(-0.5, self.shape[1] - 0.5)
        ax.set_ylim(self.shape[0] - 0.5, -0.5)
        ax.set_title(
            title or f"{self.method}, m={self.m}, LI={100 * self.imbalance:.2f}%"
        )
        return ax


def _scalar(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x
