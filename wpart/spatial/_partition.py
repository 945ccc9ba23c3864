"""The result class of the spatial family: :class:`SpatialPartition`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._docs import fill_doc
from .._errors import WpartValueError
from .._result import Result, new_axes, pct
from .._validate import check_sparse_arrays, deprecated_attr

__all__ = ["SpatialPartition"]


@fill_doc
@dataclass(frozen=True, eq=False, repr=False)
class SpatialPartition(Result):
    """A tiling of a load matrix by ``m`` rectangles.

    Attributes
    ----------
    rects : ndarray of int64, shape (m, 4)
        Rows ``(r0, r1, c0, c1)``: rectangle ``k`` covers rows ``r0 <= i < r1`` and columns
        ``c0 <= j < c1``. Empty rectangles (``r0 == r1`` or ``c0 == c1``) only appear when
        the structure forces them (more parts than cells, ``P > n1`` ...). Shape ``(0, 4)``
        when the time limit stopped the run before any partition (``success`` False).
    loads : ndarray, shape (m,)
        Load of every rectangle (int64 or float64, as the input), not divided by the speeds.
    max_load : int or float
        The objective: the largest part cost, ``max_k loads[k] / speeds[k]`` with speeds,
        ``max(loads)`` without (an int for integer loads).
    avg_load : float
        The mean: ``T / sum(speeds)`` (``T / m`` without speeds).
    total : int or float
        ``T``, the total load.
    lower_bound : int or float
        ``max(ceil(T/m), amax)`` (``max(T/m, amax)`` for floats), valid for every class;
        with speeds ``max(T / sum(speeds), amax / max(speeds))``.
    imbalance : float
        ``max_load / avg_load - 1`` (0 when ``T = 0``), a fraction (the load imbalance of
        Sec. 2.1 of Saule et al. 2012, speed-aware).
    method : str
        Algorithm name (the paper's name, lower case).
    params : dict
        The options used, with resolved values (e.g. ``orient_used``, ``P``).
    shape : tuple of int
        ``(n1, n2)`` (``(n1, n2, n3)`` for 3D HIER-RB, whose `rects` have 6 columns
        ``(r0, r1, c0, c1, l0, l1)``).
    m : int
        Number of parts.
    speeds : ndarray or None
        Relative processor speeds (part ``k`` runs on a processor of speed ``speeds[k]``).
    status : str
        ``"optimal"`` (exact method), ``"feasible"`` (heuristic) or ``"time_limit"``.
    message : str
        How the run ended.
    stats : dict
        ``seconds`` (core time), ``iterations``, ``probes``, ``cost_evals``, ``dp_states``,
        ``converged`` (not compared by ``==``).

    {gap_aliases}
    """

    rects: NDArray[np.int64]
    loads: NDArray
    max_load: Any
    avg_load: float
    total: Any
    lower_bound: Any
    imbalance: float
    method: str
    params: dict
    shape: tuple
    m: int
    A: NDArray = field(repr=False, compare=False)
    speeds: NDArray | None = None

    bottleneck = deprecated_attr("bottleneck", "max_load", "SpatialPartition")
    gap_lb = deprecated_attr("gap_lb", "gap", "SpatialPartition")

    def _has_answer(self) -> bool:
        return self.rects.shape[0] > 0

    def _need_answer(self) -> None:
        if not self._has_answer():
            raise WpartValueError(f"this result holds no partition (status {self.status!r})")

    def to_dict(self) -> dict:
        """Plain-Python summary (JSON-friendly), with ``success`` and ``gap``."""
        d = super().to_dict()
        d["shape"] = list(self.shape)
        d["gap"] = float(self.gap) if self._has_answer() else float("nan")
        return d

    def _repr_lines(self) -> list[str]:
        head = (f"SpatialPartition(method={self.method!r}, status={self.status!r}, "
                f"shape={self.shape}, m={self.m})")
        if not self._has_answer():
            return [head, f"  {self.message}"]
        return [head,
                f"  max_load={self.max_load!r}, lower_bound={self.lower_bound!r}, "
                f"gap={pct(self.gap)}, imbalance={pct(self.imbalance)}"]

    def owner_map(self) -> NDArray[np.int32]:
        """``(n1, n2)`` int32 array: the index of the rectangle owning each cell.

        Raises ``ValueError`` if some cell is uncovered or covered twice.
        """
        self._need_answer()
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
        """The partition's structure, derived from the rectangles, on demand.

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
        self._need_answer()
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
        equals the direct sum of ``A`` over the rectangle; ``max_load = max(loads / speeds)``
        and ``max_load >= lower_bound``.
        """
        self._need_answer()
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
        check_sparse_arrays(A)  # (the caller's own matrix: its arrays may have changed since)
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
        if self.speeds is None:
            if self.m and self.max_load != self.loads.max():
                raise WpartValueError("max_load differs from max(loads)")
            if A.dtype.kind != "f" and self.max_load < self.lower_bound:
                raise WpartValueError("max_load is below the lower bound")
        else:
            if self.max_load != float((self.loads / self.speeds).max()):
                raise WpartValueError("max_load differs from max(loads / speeds)")
            if self.max_load < float(self.lower_bound) * (1 - 1e-12):
                raise WpartValueError("max_load is below the lower bound")

    def _plot3d(self, ax: Any, cmap: str, title: str | None) -> Any:
        """A 3D partition's boxes as translucent cuboids coloured by load, on a 3D Axes (a new
        one when `ax` is None)."""
        import matplotlib.pyplot as plt

        if ax is None:
            ax = plt.figure(figsize=(6, 5)).add_subplot(projection="3d")
        elif getattr(ax, "name", "") != "3d":
            raise WpartValueError("plot(): a 3D partition draws on a 3D Axes "
                                  "(add_subplot(projection='3d')), or pass ax=None")
        R = np.asarray(self.rects, dtype=float)
        L = np.asarray(self.loads, dtype=float)
        span = float(L.max() - L.min()) if L.size else 0.0
        norm = (L - L.min()) / span if span > 0 else np.zeros_like(L)
        colours = plt.get_cmap(cmap)(norm)
        colours[:, 3] = 0.35
        # (axis 0 drawn as x, axis 1 as y, axis 2 as z; rows r0, r1, c0, c1, d0, d1)
        ax.bar3d(R[:, 0], R[:, 2], R[:, 4], R[:, 1] - R[:, 0], R[:, 3] - R[:, 2],
                 R[:, 5] - R[:, 4], color=colours, edgecolor="k", linewidth=0.3, shade=False)
        ax.set_xlabel("axis 0")
        ax.set_ylabel("axis 1")
        ax.set_zlabel("axis 2")
        ax.set_title(title if title is not None else
                     f"{self.method}: m = {self.m}, imbalance {self.imbalance:.1%}")
        return ax

    def plot(
        self,
        ax: Any = None,
        *,
        cmap: str = "viridis",
        edgecolor: str = "white",
        linewidth: float | None = None,
        title: str | None = None,
    ) -> Any:
        """Heatmap of the loads with the rectangles drawn on top (matplotlib); a large sparse
        matrix is drawn as its nonzeros; a 3D partition (``hier_rb`` on a 3D array) as its
        boxes on a 3D Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure is made when omitted.
        cmap, edgecolor, linewidth, title
            Colour map of the loads, colour and width of the rectangle edges, the title.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Rectangle

        if len(self.shape) == 3:
            return self._plot3d(ax, cmap, title)
        ax = new_axes(ax, figsize=(5, 5))
        A = self.A
        if not isinstance(A, np.ndarray):  # a scipy.sparse matrix
            check_sparse_arrays(A)  # (the caller's own: its arrays may have changed since)
            if A.shape[0] * A.shape[1] <= 2**22:
                A = A.toarray()
            else:  # too large to draw densely: the nonzeros as points
                coo = A.tocoo()
                ax.scatter(coo.col, coo.row, c=coo.data, s=1, marker="s", cmap=cmap,
                           linewidths=0)
                A = None
        if A is not None:
            ax.imshow(A, cmap=cmap, interpolation="nearest", origin="upper")
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
        if title is None:
            title = (f"{self.method}, m={self.m}, imbalance {pct(self.imbalance)}"
                     if self._has_answer() else f"{self.method}, m={self.m}: {self.status}")
        ax.set_title(title)
        return ax


def _scalar(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x
