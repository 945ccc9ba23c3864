"""The task-placement problem of one phase (the CCM model of Sec. III of [Lifflander 2024])
and its validation."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._result import ByValue
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError
from .._validate import (as_bools, as_float, as_floats, as_ints, as_m, as_parts, deprecated_attr,
                         is_bool, renamed, unmasked)
from .._keywords import checked_keywords
from .._validate import positional_deprecated
from .._docs import fill_doc

#: Largest number of ranks or tasks (the core indexes them with int32).
INT32_LIMIT = 2**31 - 1

__all__ = ["Coefficients", "Problem"]


def count_of(attr: str, doc: str) -> property:
    """A read-only ``int`` property: the length of the array attribute `attr` (the sizes of a
    problem or a result: its tasks, blocks, edges, ranks), documented by `doc`."""

    def get(self: Any) -> int:
        return int(getattr(self, attr).shape[0])

    get.__doc__ = doc
    return property(get)


def _optional_floats(x: Any, name: str, n: int | None, *, allow_inf: bool = False) -> Any:
    """An optional per-task/per-rank float array (None stays None): read-only, >= 0, finite
    unless `allow_inf`; bools and a single number accepted (as_floats' options of this
    family)."""
    if x is None:
        return None
    values = "non-negative" if allow_inf else "finite and non-negative"
    return as_floats(x, name, n=n, values=values, allow_bool=True, scalar=True, read_only=True)


def _size(x: Any, name: str) -> int:
    try:
        return int(np.size(x))
    except (TypeError, ValueError) as exc:
        raise WpartTypeError(f"`{name}` could not be converted to an array: {exc}") from None


def _optional_ids(x: Any, name: str, n: int | None, lo: int, hi: int) -> Any:
    """An optional int32 id array in ``[lo, hi)`` (None stays None), read-only."""
    if x is None:
        return None
    return as_ints(x, name, n=n, lo=lo, hi=hi, dtype=np.int32, read_only=True)


_INT64_LO, _INT64_HI = -(2**63), 2**63


def _optional_int64s(x: Any, name: str, n: int, n_name: str) -> Any:
    """An optional external id array (`task_ids`, `block_ids`): int64, 1-D, length `n`
    (called `n_name` in the message), read-only; None stays None (:func:`as_ints`). Python
    integers beyond the int64 range (which NumPy keeps as objects) are a
    :class:`WpartOverflowError` naming the first one, as :func:`as_ints` names unsigned values
    beyond it."""
    if x is None:
        return None
    try:
        return as_ints(x, name, n=n, n_name=n_name, read_only=True)
    except WpartTypeError as exc:
        try:
            # the integers as given (NumPy makes 2**63 among small ints a float64)
            values = (x if isinstance(x, np.ndarray) else np.asarray(x, dtype=object)).tolist()
        except Exception:  # noqa: BLE001 -- what NumPy refuses: as_ints' error stands
            raise exc from None
        if not isinstance(values, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise exc from None
        i, v = next(((i, v) for i, v in enumerate(values) if not _INT64_LO <= v < _INT64_HI),
                    (None, None))
        if i is None:  # Python ints that NumPy kept as objects: as_ints' error stands
            raise exc from None
        text = str(v) if v.bit_length() <= 128 else f"an integer of {v.bit_length()} bits"
        raise WpartOverflowError(f"`{name}` must hold int64 values, got {text} at index "
                                 f"{i}") from None


def _distinct(ids: Any, name: str, what: str) -> Any:
    """`ids` (None or an int64 array) when no id is listed twice, else a
    :class:`WpartValueError` naming `name` and the first repeated id (an external id names
    one task or block: the LBDatafile reader refuses a duplicate as well)."""
    if ids is None or ids.size < 2:
        return ids
    o = np.argsort(ids, kind="stable")
    same = np.flatnonzero(ids[o][1:] == ids[o][:-1])
    if same.size:
        i, j = sorted((int(o[same[0]]), int(o[same[0] + 1])))
        raise WpartValueError(f"`{name}` must be distinct: {what} id {int(ids[i])} is listed "
                              f"at index {i} and at index {j}")
    return ids


#: A keyword not given to :meth:`Problem.with_` (its field is kept).
_KEEP: Any = type("_Keep", (), {"__repr__": lambda self: "<keep>"})()


@fill_doc
@dataclass(frozen=True, kw_only=True)
class Coefficients:
    """Coefficients of the work model ``W = a L + b max(out, in) + g loc + d H`` (eq. (11) of
    the paper); keyword-only.

    ``gamma`` multiplies on-rank bytes (the paper's and ccm-milp's convention).

    Parameters
    ----------
    {coefficients}
    """

    alpha: float = 1.0
    beta: float = 0.0
    gamma: float = 0.0
    delta: float = 0.0

    def __post_init__(self) -> None:
        for k in ("alpha", "beta", "gamma", "delta"):
            object.__setattr__(self, k, as_float(getattr(self, k), k, minimum=0.0))

    def as_tuple(self, *, enforce_memory: bool = True) -> tuple:
        return (self.alpha, self.beta, self.gamma, self.delta, bool(enforce_memory))


@dataclass(frozen=True, eq=False)
class Problem(ByValue):
    """One phase of tasks to place on ranks (immutable; validated on construction).

    Parameters
    ----------
    task_load : array_like, shape (K,)
        Compute time of every task (finite, >= 0).
    m : int
        Number of ranks (the paper's I) >= 1, at most ``2**31 - 1``; more ranks than tasks
        only up to ``2**24`` (:data:`wpart._validate.MAX_EXTRA_PARTS`; the surplus ranks
        stay empty; a larger `m` is refused at once). With far more ranks than tasks, the
        balancers solve on the ranks that can matter and map the answer back
        (``stats["compressed_ranks"]``). ``n_ranks=`` is a deprecated alias.
    task_block : array_like of int, shape (K,), optional
        Shared block of each task, -1 for none.
    block_size, block_home : array_like, shape (N,), optional
        Bytes and home rank of each shared block (required when `task_block` is given).
    edges : array_like of int, shape (M, 2), optional
        Directed task-to-task communications ``(src, dst)``; `edge_bytes` their volumes.
    task_footprint, task_working : array_like, shape (K,), optional
        Task baseline and working memory (bytes).
    rank_baseline, rank_mem_cap : array_like, shape (I,), optional
        Rank baseline memory and per-rank memory cap (``inf`` = none).
    rank_alpha : array_like, shape (I,), optional
        Per-rank speed factor replacing ``alpha`` (heterogeneous ranks; off by default).
    rank_node, node_mem : array_like, optional
        Node of each rank and memory of each node: the per-rank cap is then
        ``node_mem[node] / (ranks on that node)`` (the paper's rule (9)); exclusive with
        `rank_mem_cap`.
    initial : array_like of int, shape (K,), optional
        Initial assignment. Default: the home of each task's block, block-less tasks
        round robin.
    task_ids : array_like of int, shape (K,), optional
        External ids (kept by the LBDatafile reader and writer), int64, distinct (an id
        listed twice is a :class:`~wpart.WpartValueError` naming `task_ids`); stored
        read-only.
    block_ids : array_like of int, shape (N,), optional
        External ids of the shared blocks (an LBDatafile's ``shared_id``), int64, one per
        block of `block_size`, distinct; stored read-only.
    migratable : array_like of bool, shape (K,), optional
        Whether each task may move (default: all True). A task with ``False`` (an
        LBDatafile entity ``"migratable": false``) is *pinned*: it stays on its rank of
        `initial` (its home; the rank of the file listing it) in every method and backend,
        and its work there bounds ``W_max`` from below. Stored as a read-only bool array in
        the order of the tasks (of `task_ids`).

    Everything after `m` is keyword-only.
    """

    task_load: NDArray[np.float64]
    m: int
    _: KW_ONLY
    task_block: NDArray[np.int32] | None = None
    block_size: NDArray[np.float64] | None = None
    block_home: NDArray[np.int32] | None = None
    edges: NDArray[np.int32] | None = None
    edge_bytes: NDArray[np.float64] | None = None
    task_footprint: NDArray[np.float64] | None = None
    task_working: NDArray[np.float64] | None = None
    rank_baseline: NDArray[np.float64] | None = None
    rank_mem_cap: NDArray[np.float64] | None = None
    rank_alpha: NDArray[np.float64] | None = None
    initial: NDArray[np.int32] | None = None
    task_ids: NDArray[np.int64] | None = None
    block_ids: NDArray[np.int64] | None = None
    meta: dict = field(default_factory=dict)
    rank_node: NDArray[np.int32] | None = None
    node_mem: NDArray[np.float64] | None = None
    migratable: NDArray[np.bool_] | None = None

    def __post_init__(self) -> None:
        I = as_m(self.m, "m", maximum=INT32_LIMIT)
        object.__setattr__(self, "m", I)
        if self.task_load is None:
            raise WpartTypeError("`task_load` is required (an array of task loads), got None")
        load = _optional_floats(self.task_load, "task_load", None)
        K = load.shape[0]
        if K == 0:
            raise WpartValueError("`task_load` is empty: a problem needs at least one task")
        I = as_parts(I, K, "m")  # more ranks than tasks: at most 2**24 (O(1) check)
        set_ = lambda k, v: object.__setattr__(self, k, v)
        set_("task_load", load)
        set_("task_footprint", _optional_floats(self.task_footprint, "task_footprint", K))
        set_("task_working", _optional_floats(self.task_working, "task_working", K))
        if self.task_block is not None:
            if self.block_size is None:
                raise WpartValueError("`block_size` is required when `task_block` is given")
            bs = _optional_floats(self.block_size, "block_size", None)
            N = bs.shape[0]
            bh = self.block_home
            if bh is None:
                raise WpartValueError("`block_home` is required when `task_block` is given")
            set_("block_size", bs)
            set_("block_home", _optional_ids(bh, "block_home", N, 0, I))
            set_("task_block", _optional_ids(self.task_block, "task_block", K, -1, N))
        else:
            if self.block_size is not None and _size(self.block_size, "block_size") > 0:
                raise WpartValueError("`block_size` given without `task_block`")
            set_("block_size", np.zeros(0))
            set_("block_home", np.zeros(0, dtype=np.int32))
        if self.edges is not None:
            edges = unmasked(self.edges, "edges")
            try:
                e = np.asarray(edges)
            except (TypeError, ValueError) as exc:
                raise WpartTypeError(f"`edges` could not be converted to an array: {exc}") from None
            if e.size == 0:
                e = e.reshape(0, 2).astype(np.int64)
            if e.ndim != 2 or e.shape[1] != 2:
                raise WpartValueError(f"`edges` must have shape (M, 2), got {e.shape}")
            M = e.shape[0]
            src = _optional_ids(e[:, 0].copy(), "edges[:, 0]", M, 0, K)
            dst = _optional_ids(e[:, 1].copy(), "edges[:, 1]", M, 0, K)
            if self.edge_bytes is None:
                raise WpartValueError("`edge_bytes` is required when `edges` is given")
            eb = _optional_floats(self.edge_bytes, "edge_bytes", M)
            ee = np.stack([src, dst], axis=1).astype(np.int32) if M else np.zeros((0, 2), np.int32)
            ee.setflags(write=False)
            set_("edges", ee)
            set_("edge_bytes", eb)
        else:
            if self.edge_bytes is not None and _size(self.edge_bytes, "edge_bytes") > 0:
                raise WpartValueError("`edge_bytes` given without `edges`")
            set_("edges", np.zeros((0, 2), dtype=np.int32))
            set_("edge_bytes", np.zeros(0))
        set_("rank_baseline", _optional_floats(self.rank_baseline, "rank_baseline", I))
        set_("rank_mem_cap", _optional_floats(self.rank_mem_cap, "rank_mem_cap", I,
                                              allow_inf=True))
        if self.node_mem is not None or self.rank_node is not None:
            if self.node_mem is None or self.rank_node is None:
                raise WpartValueError("`rank_node` and `node_mem` must be given together")
            if self.rank_mem_cap is not None:
                raise WpartValueError("give either `rank_mem_cap` or `rank_node`/`node_mem`")
            nm = _optional_floats(self.node_mem, "node_mem", None, allow_inf=True)
            rn = _optional_ids(self.rank_node, "rank_node", I, 0, nm.shape[0])
            per = np.bincount(rn, minlength=nm.shape[0])
            cap = nm[rn] / per[rn]
            cap.setflags(write=False)
            set_("node_mem", nm)
            set_("rank_node", rn)
            set_("rank_mem_cap", cap)
        set_("rank_alpha", _optional_floats(self.rank_alpha, "rank_alpha", I))
        if self.initial is None:
            init = np.arange(K, dtype=np.int64) % I
            if self.task_block is not None:
                has = self.task_block >= 0
                init[has] = self.block_home[self.task_block[has]]
            set_("initial", _optional_ids(init, "initial", K, 0, I))
        else:
            set_("initial", _optional_ids(self.initial, "initial", K, 0, I))
        set_("task_ids", _distinct(_optional_int64s(self.task_ids, "task_ids", K, "n_tasks"),
                                   "task_ids", "task"))
        set_("block_ids", _distinct(_optional_int64s(self.block_ids, "block_ids",
                                                     self.block_size.shape[0], "n_blocks"),
                                    "block_ids", "block"))
        set_("migratable", as_bools(self.migratable, "migratable", K))

    # ---------------------------------------------------------------- sizes
    n_tasks = count_of("task_load", "Number of tasks K.")

    @property
    def pinned(self) -> NDArray[np.int64]:
        """Indices of the pinned tasks (``migratable`` False), ascending; they stay on their
        rank of :attr:`initial`."""
        return np.flatnonzero(~self.migratable)

    @property
    def n_pinned(self) -> int:
        """Number of pinned tasks."""
        return int(self.migratable.shape[0] - np.count_nonzero(self.migratable))

    n_blocks = count_of("block_size", "Number of shared blocks N.")
    n_edges = count_of("edges", "Number of directed communications M.")

    #: Deprecated alias of :attr:`m`.
    n_ranks = deprecated_attr("n_ranks", "m", "Problem")

    def __repr__(self) -> str:
        return (f"Problem(m={self.m}, n_tasks={self.n_tasks}, "
                f"n_blocks={self.n_blocks}, n_edges={self.n_edges}, "
                f"memory_cap={'yes' if self.rank_mem_cap is not None else 'no'}"
                + (f", pinned={self.n_pinned}" if self.n_pinned else "") + ")")

    # ---------------------------------------------------------------- core interface
    def _dict(self, memory_cap: Any = None) -> dict:
        cap = self.rank_mem_cap
        if memory_cap is not None:
            cap = self.caps(memory_cap)
        d = {
            "n_ranks": self.m,
            "task_load": self.task_load,
            "task_footprint": self.task_footprint,
            "task_working": self.task_working,
            "task_block": self.task_block,
            "block_size": self.block_size,
            "block_home": self.block_home,
            "edge_src": np.ascontiguousarray(self.edges[:, 0]),
            "edge_dst": np.ascontiguousarray(self.edges[:, 1]),
            "edge_bytes": self.edge_bytes,
            "rank_baseline": self.rank_baseline,
            "rank_mem_cap": cap,
            "rank_alpha": self.rank_alpha,
            # None when every task may move (the common case costs nothing)
            "task_migratable": None if self.migratable.all() else self.migratable,
        }
        return d

    def caps(self, memory_cap: Any) -> NDArray[np.float64] | None:
        """Per-rank caps from a scalar or an array (None keeps the problem's)."""
        if memory_cap is None:
            return self.rank_mem_cap
        if np.ndim(memory_cap) == 0:
            if is_bool(memory_cap) or np.asarray(memory_cap).dtype.kind not in "iuf":
                raise WpartTypeError(f"`memory_cap` must be a number or an array, got "
                                     f"{type(memory_cap).__name__}")
            v = as_float(memory_cap, "memory_cap", minimum=0.0, allow_inf=True)
            return np.full(self.m, v)
        return _optional_floats(memory_cap, "memory_cap", self.m, allow_inf=True)

    def assignment(self, a: ArrayLike | None, *, name: str = "assignment") -> NDArray[np.int32]:
        """Validate an assignment (None gives the initial one)."""
        if a is None:
            return np.array(self.initial, dtype=np.int32)
        return np.array(_optional_ids(a, name, self.n_tasks, 0, self.m), dtype=np.int32)

    @positional_deprecated("assignment")
    def evaluate(self, *, assignment: ArrayLike | None = None, alpha=1.0, beta=0.0, gamma=0.0,
                 delta=0.0, memory_cap: Any = None) -> dict:
        """Per-rank work model of `assignment` (default: the initial one; eqs. (1)-(11) of
        Sec. III of the paper).

        Returns a dict with ``w_max`` and per-rank arrays ``load``, ``vol_out``, ``vol_in``,
        ``vol_local``, ``homing``, ``memory``, ``work`` (``inf`` above a memory cap),
        ``n_blocks_present`` and ``n_blocks_off_home``.
        """
        c = Coefficients(alpha=alpha, beta=beta, gamma=gamma, delta=delta)
        a = self.assignment(assignment)
        w, d = _core.tasks_evaluate(self._dict(memory_cap), c.as_tuple(), a)
        d["w_max"] = w
        return d

    @renamed(n_ranks="m")
    @checked_keywords
    def with_(self, *, task_load: Any = _KEEP, m: Any = _KEEP, task_block: Any = _KEEP,
              block_size: Any = _KEEP, block_home: Any = _KEEP, edges: Any = _KEEP,
              edge_bytes: Any = _KEEP, task_footprint: Any = _KEEP,
              task_working: Any = _KEEP, rank_baseline: Any = _KEEP,
              rank_mem_cap: Any = _KEEP, rank_alpha: Any = _KEEP, initial: Any = _KEEP,
              task_ids: Any = _KEEP, block_ids: Any = _KEEP, meta: Any = _KEEP,
              rank_node: Any = _KEEP, node_mem: Any = _KEEP,
              migratable: Any = _KEEP) -> Problem:
        """A copy with some fields replaced (validated again).

        Parameters
        ----------
        task_load, m, task_block, block_size, block_home, edges, edge_bytes, \
        task_footprint, task_working, rank_baseline, rank_mem_cap, rank_alpha, initial, \
        task_ids, block_ids, meta, rank_node, node_mem, migratable : optional
            The new value of the field of that name (see :class:`Problem`); a field not
            given is kept. ``n_ranks=`` is a deprecated alias of `m`.

        Returns
        -------
        Problem
        """
        changes = {k: v for k, v in locals().items() if k != "self" and v is not _KEEP}
        return replace(self, **changes)

    # Problem.from_lbdatafile / Problem.to_lbdatafile are attached by wpart.tasks._io: the
    # file formats depend on the problem, never the reverse.


# ``Coefficients(1.0, 0.5)`` and ``Problem(..., n_ranks=4)`` still work for one release, with a
# DeprecationWarning.
Coefficients.__init__ = positional_deprecated(  # type: ignore[method-assign]
    "alpha", "beta", "gamma", "delta")(Coefficients.__init__)
Problem.__init__.__name__ = "Problem"
Problem.__init__ = renamed(n_ranks="m")(Problem.__init__)  # type: ignore[method-assign]
