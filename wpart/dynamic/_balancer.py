"""The balancer protocol shared by every balancer of :mod:`wpart.dynamic`, and the simple
baselines (Greedy, Static).

Every balancer of :mod:`wpart.dynamic` is a C state machine behind one protocol:

* ``start(now) -> list[Action]``
* ``on_complete(pu, block_id, t_xfer, t_comp, now) -> list[Action]``
* ``eval_run(token)`` (pure computation; releases the GIL, may run on any thread)
* ``eval_done(token, now) -> list[Action]``
* ``done`` (all data dispatched and completed)

An :class:`Action` either assigns a contiguous block ``[offset, offset + size)`` to a PU
(``kind == "assign"``) or asks the driver to run an evaluation (``kind == "eval"``: call
``eval_run(token)``, then ``eval_done(token, now)`` when it has finished). The same balancer
object runs in the simulator (:func:`wpart.dynamic.simulate`) and against real workers
(:func:`wpart.dynamic.run`). A balancer serves one run; :meth:`Balancer.fresh` makes a new
one with the same settings.

Examples
--------
>>> from wpart.dynamic import Greedy
>>> g = Greedy(2, 10, chunk=4)
>>> [(a.pu, a.offset, a.size) for a in g.start(0.0)]
[(0, 0, 4), (1, 4, 4)]
>>> [(a.pu, a.offset, a.size) for a in g.on_complete(1, 1, 0.0, 1.0, 1.0)]
[(1, 8, 2)]
"""

from __future__ import annotations
from .._docs import fill_doc
from .._errors import WpartNotImplementedError, WpartOverflowError, WpartTypeError, WpartValueError

from typing import Any, NamedTuple

import numpy as _np

from .. import _core
from .._validate import as_int, as_m, deprecated_attr, renamed

__all__ = ["Action", "Balancer", "PyBalancer", "BLOCK_KINDS", "IDLE_REASONS", "Greedy", "Static", "StaticEqual"]

BLOCK_KINDS = ("train", "regular", "gap", "other")
IDLE_REASONS = ("other", "barrier", "eval", "starved")


class Action(NamedTuple):
    """One decision of a balancer.

    Attributes
    ----------
    kind : {"assign", "eval"}
    pu : int
        The PU that receives the block (assign) or triggered the evaluation (eval; -1 when
        every PU waits for it).
    block_id, offset, size : int
        The block ``[offset, offset + size)`` (assign).
    block_kind : {"train", "regular", "gap", "other"}
    vstep, model_version : int
    pred_end : float
        Predicted end time of the block (NaN without a model).
    token : int
        Evaluation token (eval).
    """

    kind: str
    pu: int
    block_id: int
    offset: int
    size: int
    block_kind: str
    vstep: int
    model_version: int
    pred_end: float
    token: int


def _actions(raw: list[tuple]) -> list[Action]:
    out = []
    for k, pu, bid, off, size, bk, vs, mv, pe, tok in raw:
        out.append(
            Action("assign" if k == 0 else "eval", pu, bid, off, size, BLOCK_KINDS[bk], vs, mv, pe, tok)
        )
    return out


class Balancer:
    """Common Python surface of every balancer (wraps a ``wpart._core.Balancer``).

    Subclasses set ``self._c`` (the C object) and ``self._args`` / ``self._kw`` (what
    :meth:`fresh` passes to the constructor again).

    Parameters
    ----------
    None
        The class takes no arguments.
    """

    _c: Any
    _args: tuple
    _kw: dict

    # -- the protocol ---------------------------------------------------------------------
    def start(self, now: float) -> list[Action]:
        """Issue the initial blocks at time `now` (seconds; 0 at the start of a run)."""
        return _actions(self._c.start(float(now)))

    def on_complete(self, pu: int, block_id: int, t_xfer: float, t_comp: float, now: float) -> list[Action]:
        """Report the measured times of a finished block; returns the next actions."""
        return _actions(self._c.on_complete(int(pu), int(block_id), float(t_xfer), float(t_comp), float(now)))

    def eval_run(self, token: int) -> None:
        """Run the evaluation of ``token`` (GIL released; may run on another thread)."""
        self._c.eval_run(int(token))

    def eval_done(self, token: int, now: float) -> list[Action]:
        """Publish the evaluation's result; returns the actions it releases."""
        return _actions(self._c.eval_done(int(token), float(now)))

    @property
    def done(self) -> bool:
        """All data dispatched and completed."""
        return bool(self._c.done)

    # -- queries --------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return str(self._c.name)

    @property
    def m(self) -> int:
        """Number of processing units (PUs)."""
        return int(self._c.m)

    @property
    def n(self) -> int:
        """Elements to process (the amount of work, ``W`` in the paper)."""
        return int(self._c.n)

    n_pu = deprecated_attr("n_pu", "m", "Balancer")
    total = deprecated_attr("total", "n", "Balancer")

    def idle_reason(self, pu: int) -> str:
        """Why PU ``pu`` is idle when it holds no block (one of :data:`IDLE_REASONS`)."""
        return IDLE_REASONS[self._c.idle_reason(int(pu))]

    def stats(self) -> dict[str, int]:
        """Counters: cursor, completed, n_blocks, in_flight, n_evals, n_barriers."""
        return dict(self._c.stats())

    @property
    def series(self) -> _np.ndarray:
        """Published block sizes: a record array with fields ``t``, ``model_version``,
        ``T_pred``, ``S_eff`` and ``X`` (m values; ``series.X`` is the time x PU matrix).
        PLB-HAC and the step-wise baselines publish a row per evaluation or step; Greedy, HDSS
        and Static, which have no model, a row whenever a PU's block size changes (so do
        balancers written in Python, in the results of simulate and run) (``X``
        holds every PU's latest size, 0 before its first block; ``T_pred`` and ``S_eff``
        NaN)."""
        raw = self._c.series()
        n = self.m
        dt = _np.dtype([("t", "f8"), ("model_version", "i4"), ("T_pred", "f8"), ("S_eff", "f8"), ("X", "i8", (n,))])
        out = _np.zeros(raw.shape[0], dtype=dt)
        if raw.shape[0]:
            out["t"] = raw[:, 0]
            out["model_version"] = raw[:, 1].astype(_np.int32)
            out["T_pred"] = raw[:, 2]
            out["S_eff"] = raw[:, 3]
            out["X"] = _np.nan_to_num(raw[:, 4:], nan=0.0).astype(_np.int64)
        return out.view(_np.recarray)

    @property
    def shares(self) -> _np.ndarray | None:
        """Step shares in percent (the analogue of the paper's Fig. 5b), or None if the
        balancer has none."""
        return self._c.shares()

    def fresh(self) -> Balancer:
        """A new, unstarted balancer with the same settings."""
        return type(self)(*self._args, **self._kw)

    def __repr__(self) -> str:
        kw = ", ".join(f"{k}={v!r}" for k, v in self._kw.items())
        args = ", ".join(repr(a) for a in self._args)
        return f"{type(self).__name__}({', '.join(s for s in (args, kw) if s)})"



@fill_doc
class PyBalancer(Balancer):
    """Base class of a balancer written in Python.

    Implement the protocol -- :meth:`start` and :meth:`on_complete` (required),
    :meth:`eval_run` and :meth:`eval_done` (if it issues evaluations), optionally
    :meth:`idle_reason` -- and make the actions with :meth:`assign` and :meth:`evaluate`, which
    keep the bookkeeping the drivers check: a block takes the next ``size`` elements under the
    next block id; report each finished block with :meth:`completed`. Such a balancer runs in
    the simulator (:func:`wpart.dynamic.simulate`: the same C event engine as the C balancers,
    which calls back into Python; the C balancers keep their fast path) and against real
    workers (:func:`wpart.dynamic.run`).

    Parameters
    ----------
    {m_n_pus}

    Examples
    --------
    >>> from wpart.dynamic import PyBalancer, simulate
    >>> class MyGreedy(PyBalancer):
    ...     def __init__(self, m, n, chunk=10):
    ...         super().__init__(m, n)
    ...         self.chunk = chunk
    ...         self._kw = {"chunk": chunk}
    ...     def start(self, now):
    ...         return [a for p in range(self.m) if (a := self.assign(p, self.chunk))]
    ...     def on_complete(self, pu, block_id, t_xfer, t_comp, now):
    ...         self.completed(block_id)
    ...         a = self.assign(pu, self.chunk)
    ...         return [a] if a else []
    >>> r = simulate("linear4", MyGreedy(4, 150))
    >>> int(r.elements.sum()), r.balancer
    (150, 'MyGreedy')
    """

    #: the most actions one protocol call may return (at least m + 1 is allowed)
    max_actions: int = 0

    def __init__(self, m: int, n: int) -> None:
        m, n = m_n(m, n)
        self._m, self._n = m, n
        self._args: tuple = (m, n)
        self._kw: dict = {}
        self._c = None
        self._cursor = 0
        self._next_id = 0
        self._next_token = 1
        self._done_elems = 0
        self._open: dict[int, int] = {}
        self._n_evals = 0

    # -- helpers -----------------------------------------------------------------------
    def assign(self, pu: int, size: int, *, kind: str = "other", vstep: int = 0, model_version: int = 0,
               pred_end: float = float("nan")) -> Action | None:
        """The next ``min(size, remaining)`` elements for PU `pu` as an assign Action (None
        when nothing remains or ``size < 1``)."""
        size = min(int(size), self._n - self._cursor)
        if size < 1:
            return None
        if kind not in BLOCK_KINDS:
            raise WpartValueError(f"`kind` must be one of {BLOCK_KINDS}, got {kind!r}")
        a = Action("assign", int(pu), self._next_id, self._cursor, size, kind, int(vstep), int(model_version),
                   float(pred_end), 0)
        self._open[self._next_id] = size
        self._next_id += 1
        self._cursor += size
        return a

    def evaluate(self, *, pu: int = -1) -> Action:
        """An eval Action (PU `pu` pays for it; -1: every PU waits) with a new token."""
        a = Action("eval", int(pu), -1, 0, 0, "other", 0, 0, float("nan"), self._next_token)
        self._next_token += 1
        self._n_evals += 1
        return a

    def completed(self, block_id: int) -> None:
        """Record that block `block_id` has finished (call it in :meth:`on_complete`)."""
        size = self._open.pop(int(block_id), None)
        if size is None:
            raise WpartValueError(f"block {block_id} is not in flight")
        self._done_elems += size

    # -- the protocol ------------------------------------------------------------------
    def start(self, now: float) -> list[Action]:
        raise WpartNotImplementedError(f"{type(self).__name__} must implement start(now)")

    def on_complete(self, pu: int, block_id: int, t_xfer: float, t_comp: float, now: float) -> list[Action]:
        raise WpartNotImplementedError(f"{type(self).__name__} must implement on_complete(...)")

    def eval_run(self, token: int) -> None:
        raise WpartNotImplementedError(f"{type(self).__name__} issues no evaluations")

    def eval_done(self, token: int, now: float) -> list[Action]:
        return []

    @property
    def done(self) -> bool:
        return self._done_elems == self._n and not self._open

    # -- queries -----------------------------------------------------------------------
    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def m(self) -> int:
        return self._m

    @property
    def n(self) -> int:
        return self._n

    def idle_reason(self, pu: int) -> str:
        return "other"

    def stats(self) -> dict[str, int]:
        return {"cursor": self._cursor, "completed": self._done_elems, "n_blocks": self._next_id,
                "in_flight": len(self._open), "n_evals": self._n_evals, "n_barriers": 0}

    @property
    def series(self) -> _np.ndarray:
        dt = _np.dtype([("t", "f8"), ("model_version", "i4"), ("T_pred", "f8"), ("S_eff", "f8"), ("X", "i8", (self._m,))])
        return _np.zeros(0, dtype=dt).view(_np.recarray)

    @property
    def shares(self) -> _np.ndarray | None:
        return None

    def _protocol(self) -> Any:
        """The C protocol over this object (a fresh one per run: the engine drives it)."""
        return _core.dynamic_py_balancer(self, self._m, self._n, int(self.max_actions))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(m={self._m}, n={self._n})"

def count(x: Any, name: str, minimum: int = 1) -> int:
    """An element count or size: :func:`wpart._validate.as_int` that also fits int64."""
    v = as_int(x, name, minimum=minimum)
    if v > 2**63 - 1:
        raise WpartOverflowError(f"`{name}` must fit in int64, got {v}")
    return v


def m_n(m: Any, n: Any) -> tuple[int, int]:
    """The PU count ``m`` (1 to 2**24, the shared cap on counts) and the amount of work ``n``
    (>= 1, int64)."""
    return as_m(m, "m", maximum=1 << 24), count(n, "n")


@fill_doc
class Greedy(Balancer):
    """Greedy(chunk): every PU takes the next ``chunk`` elements when it is free (the
    "greedy" algorithm the paper compares against, Sec. 4).

    Parameters
    ----------
    {m_n_pus}
    chunk : int, default 1024
        Piece size ``g`` (the paper does not give it; ``x_init`` by default). Positional
        too: ``Greedy(m, n, chunk)`` is the form the paper's "Greedy(g)" reads as.
    """

    @renamed(n_pu="m", total="n")
    def __init__(self, m: int, n: int, chunk: int = 1024) -> None:
        m, n = m_n(m, n)
        g = count(chunk, "chunk")
        self._args = (m, n)
        self._kw = {"chunk": g}
        self._c = _core.dynamic_greedy(m, n, g)


class Static(Balancer):
    """One block per PU, decided up front: PU ``p`` gets ``blocks[p]`` elements.

    Parameters
    ----------
    blocks : array_like of int
        Non-negative sizes, one per PU; they sum to the amount of work.
    """

    def __init__(self, blocks: Any) -> None:
        try:
            arr = _np.asarray(blocks)
        except (ValueError, TypeError, OverflowError):
            raise WpartValueError("`blocks` is not a 1-D array of sizes (ragged or mixed "
                                  "nesting)") from None
        if arr.ndim != 1 or arr.size == 0:
            raise WpartValueError(f"`blocks` must be a non-empty 1-D array of sizes, got shape {arr.shape}")
        if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and _np.all(_np.isfinite(arr)) and _np.all(arr == _np.round(arr))):
            raise WpartTypeError(f"`blocks` must hold integers, got dtype {arr.dtype}")
        if _np.any(arr < 0):
            raise WpartValueError(f"`blocks` must be >= 0, got {arr.min()} at index {int(_np.argmin(arr))}")
        if arr.dtype.kind == "u" and _np.any(arr > 2**63 - 1):
            raise WpartOverflowError("`blocks` values must fit in int64")
        b = _np.ascontiguousarray(arr, dtype=_np.int64)
        # exact sum: in int64 when it cannot overflow, else with Python integers
        tot = (int(b.sum()) if int(b.max()) < (2**63 - 1) // b.size
               else int(b.sum(dtype=object)))
        if tot < 1:
            raise WpartValueError("`blocks` must sum to at least 1 element")
        if tot > 2**63 - 1:
            raise WpartOverflowError("the sum of `blocks` overflows int64")
        self._args = (b.copy(),)
        self._kw = {}
        self._c = _core.dynamic_static(b)

    def __repr__(self) -> str:
        return f"Static({self._args[0].tolist()!r})"


@renamed(n_pu="m", total="n")
def StaticEqual(m: int, n: int) -> Static:
    """``n / m`` elements per PU in one block each (the remainder to the first PUs; with
    more PUs than elements, the last ``m - n`` PUs get empty blocks). Built in bulk: O(m)
    NumPy, no Python loop over PUs."""
    m, n = m_n(m, n)
    q, r = divmod(n, m)
    b = _np.full(m, q, dtype=_np.int64)
    b[:r] += 1
    return Static(b)
