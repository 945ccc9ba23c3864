"""``wpart.spatial.compare``: every spatial method on one load matrix, tabulated."""

from __future__ import annotations

import inspect
from typing import Any, Sequence

from .._compare import Candidate, Comparison, _pick, run_candidates
from .._docs import fill_doc

__all__ = ["compare"]


@fill_doc
def compare(A: Any, m: int, *, methods: Sequence[str] | None = None,
            time_limit: float | None = 10.0, P: int | None = None, Q: int | None = None,
            weights: str = "values", progress: Any = False) -> Comparison:
    """Run every spatial method (:data:`wpart.spatial.METHODS`) on `A` and tabulate them.

    Each method runs with its defaults, `weights`, and `P`/`Q` where it takes them; a method
    that takes ``time_limit`` gets `time_limit` (the others are heuristics that finish fast).
    A method that does not apply to the input (e.g. a P x Q method whose P x Q does not fit)
    appears with status ``"refused"`` and the reason.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        Non-negative 2D loads.
    m : int
        Number of rectangles (processors).
    methods : sequence of str, optional
        A subset of :data:`wpart.spatial.METHODS` (default: all).
    {compare_time_limit}
    P, Q : int, optional
        The grid of the P x Q methods (default: each method's own choice).
    weights : str, optional
        ``"values"`` (default), ``"count"`` or ``"stored"``, as in
        :func:`wpart.spatial.partition`.
    {compare_progress}

    Returns
    -------
    Comparison
        ``.table`` rows: method, max_load, gap (to the best lower bound found), seconds,
        status, message; ``.results[name]`` the :class:`~wpart.spatial.SpatialPartition`.

    {compare_raises}

    Examples
    --------
    >>> import numpy as np
    >>> from wpart import spatial
    >>> A = np.arange(1, 65).reshape(8, 8)
    >>> c = spatial.compare(A, 4, methods=["rect_uniform", "jag_m_opt"], time_limit=5)
    >>> [r["method"] for r in c.table]
    ['rect_uniform', 'jag_m_opt']
    """
    from . import METHODS
    from . import __dict__ as ns  # the public method functions

    names = _pick(methods, METHODS, "methods")
    cands = []
    for name in names:
        fn = ns[name]
        params = inspect.signature(fn).parameters
        kw: dict[str, Any] = {"weights": weights} if "weights" in params else {}
        if P is not None and "P" in params:
            kw["P"] = P
        if Q is not None and "Q" in params:
            kw["Q"] = Q
        takes_tl = "time_limit" in params

        def run(tl: float | None, fn: Any = fn, kw: dict = kw, takes_tl: bool = takes_tl) -> Any:
            return fn(A, m, **kw, **({"time_limit": tl} if takes_tl else {}))

        # the exact methods are optimal within their class only: no global bound from them
        cands.append(Candidate(name, run))
    return run_candidates("spatial", cands, objective="max_load", time_limit=time_limit,
                          progress=progress)
