"""Rectangular partitions of 2D load matrices (Saule, Baş and Çatalyürek, "Load-Balancing
Spatially Located Computations using Rectangular Partitions", JPDC 2012: Saule et al. 2012).

Split an ``n1 x n2`` matrix of non-negative loads into ``m`` rectangles that tile it, so that
the largest rectangle load is as small as possible. Four classes of partition are offered,
each contained in the next:

* rectilinear ``P x Q`` grids: :func:`rect_uniform`, :func:`rect_nicol`;
* ``P x Q`` jagged: :func:`jag_pq_heur`, :func:`jag_pq_opt_nicol`, :func:`jag_pq_opt_dp`;
* ``m``-way jagged: :func:`jag_m_heur`, :func:`jag_m_probe`, :func:`jag_m_heur_probe`,
  :func:`jag_m_alloc`, :func:`jag_m_opt` (exact);
* hierarchical bipartitions: :func:`hier_rb`, :func:`hier_relaxed`, :func:`hier_opt` (exact);

plus the two-phase :func:`hybrid`, the :func:`jag_m_iter` extension and the unstructured
optimum :func:`general_optimum` (MILP, tiny matrices). :func:`partition` dispatches by name.
All algorithms run in the C core on a bordered prefix array, with the GIL released; instance
generators are in :mod:`wpart.spatial.instances`.

Sparse matrices
---------------
Every function takes ``A`` as a dense array, a ``scipy.sparse`` matrix or array of any format
or the path of a MatrixMarket file (read by :func:`read_matrix`; a ``pattern`` file gives int64
loads), and ``weights=``: ``"values"`` (default: the values, duplicates summed, are the loads),
``"count"`` (1 for every nonzero value after summing, whatever its sign) or ``"stored"`` (1 for
every stored entry: explicit zeros count, an entry stored twice counts 2, an off-diagonal entry
of a symmetric MatrixMarket file is stored at both its mirror positions; a dense array stores
every cell). :func:`rect_uniform`, :func:`rect_nicol`, :func:`jag_pq_heur`,
:func:`jag_pq_opt_nicol`, :func:`jag_pq_opt_dp`, :func:`jag_m_heur`,
:func:`jag_m_heur_probe`, :func:`jag_m_probe`, :func:`jag_m_alloc` and :func:`jag_m_opt`
(the m-way jagged ones without speeds) run on the nonzeros without densifying (their cost
follows nnz) when at most 1/32 of the cells are nonzero and the matrix has more than ``2**15``
cells (a denser or smaller matrix that fits runs on its dense prefix, which is faster there),
and return the partition the dense array gives (the rule reads the same for ``A`` and
``A.toarray()``). Every other method -- HIER-OPT, JAG-M-ITER, HIER-RB, HIER-RELAXED, HYBRID,
:func:`general_optimum`, and the m-way jagged methods with speeds -- needs the dense 2D prefix
sum and densifies, refusing with ``WpartMemoryError`` when the dense matrix and its prefix
would exceed ``wpart.spatial.MAX_DENSE_BYTES`` (2 GiB by default). A sparse shape or entry
count whose row and column arrays cannot fit in memory is refused with ``WpartMemoryError``
before anything is allocated; an error about a file's content names the file.

Starts
------
RECT-NICOL and JAG-PQ-HEUR depend on their start. JAG-PQ-HEUR's ``starts="all"`` (default)
and RECT-NICOL's ``starts="all"`` run each of :data:`STARTS` (uniform rows, rows split by load,
and both on the transposed problem) and keep the best, so the result is never worse than a
single start's; ``stats["starts"]`` holds each start's ``max_load`` and time. RECT-NICOL's
default, ``starts="auto"``, is its progress-following engine (several starts sharing an
incumbent, then refinement stages; see :func:`rect_nicol`): never worse than any start's own
grid nor the uniform grid.

Guarantees
----------
* Exact (integer loads exactly; float loads to the rounding of their prefix sums: a cost read
  along two prefix paths can differ in its last bits, and Nicol's searches probe with a slack
  of 1e-12 of the total so that such a tie does not end them past the optimum):
  JAG-PQ-OPT (both engines, the optimum of the ``P x Q`` jagged class in the chosen
  orientation), JAG-M-PROBE (best counts for given stripes), JAG-M-ALLOC (best stripes for
  given counts), JAG-M-OPT (the ``m``-way jagged optimum) and HIER-OPT (the hierarchical
  optimum). The class chain HIER-OPT <= JAG-M-OPT <= JAG-PQ-OPT <= RECT-NICOL <= RECT-UNIFORM
  holds for every input.
* Proven bounds (strictly positive loads, ``Delta = amax / amin``; Theorems 1 and 3 of the
  paper):
  JAG-PQ-HEUR ``<= (1 + Delta P/n1)(1 + Delta Q/n2) T/m``; JAG-M-HEUR
  ``<= (m/(m-P) + m Delta/(P n2) + m Delta^2/(n1 n2)) T/m`` when ``P < m`` and every stripe
  count is ``<= n2``. Always: JAG-M-HEUR-PROBE <= JAG-M-HEUR, RECT-NICOL <= RECT-UNIFORM,
  HYBRID with a slow phase <= the same HYBRID without, JAG-M-ITER <= JAG-M-HEUR-PROBE.
  HIER-RB and HIER-RELAXED have no proven bound (the paper states none).
* Processor speeds (``speeds=``, beyond the paper): part ``k`` costs ``load_k / speeds[k]``
  and the bottleneck ``max_k load_k / speeds[k]`` is minimised with processors used in the
  given order (stripe by stripe, or the first side of every cut first): stripe ``p``'s parts
  are the processors following those of stripes ``0 .. p-1``, left to right (top to bottom
  for ``orient="ver"``; for ``P x Q`` stripe ``p`` holds processors ``pQ .. pQ+Q-1``), and a
  processor may get an empty part; for HIER-OPT a node holding processors ``[k, k+q)`` is
  cut into ``[k, k+j)`` (top / left side) and ``[k+j, k+q)``. Supported by JAG-PQ-HEUR,
  JAG-PQ-OPT (both engines), JAG-M-HEUR, JAG-M-PROBE, JAG-M-HEUR-PROBE, JAG-M-ALLOC,
  JAG-M-OPT, HIER-RB, HIER-RELAXED and HIER-OPT (not by RECT and HYBRID). JAG-PQ-OPT (the
  ``P x Q`` class), JAG-M-PROBE (given stripes), JAG-M-ALLOC (given counts; an empty
  stripe's processors idle), JAG-M-OPT (the ``m``-way jagged class) and HIER-OPT (the
  hierarchical class) stay exact for that order, with the bottleneck as computed in
  float64; equal speeds ``s`` give the homogeneous optimum divided by ``s`` (JAG-PQ-HEUR:
  the same rectangles); HIER-OPT <= JAG-M-OPT <= JAG-PQ-OPT <= JAG-PQ-HEUR and
  JAG-M-OPT <= JAG-M-HEUR-PROBE <= JAG-M-HEUR still hold (one orientation for the jagged
  ones). The
  Delta bounds above are not proven with speeds (only ``bottleneck >= T / sum(speeds)``).
  Sorting the speeds changes the result.
* 3D loads (``hier_rb`` on an ``n1 x n2 x n3`` array, beyond the paper): valid boxes, no bound.

Examples
--------
>>> import numpy as np
>>> from wpart import spatial
>>> A = np.arange(1, 17).reshape(4, 4)
>>> spatial.partition(A, 4, method="jag_m_opt").max_load
40
>>> spatial.partition(A, 4, method="rect_uniform").max_load
54
"""


from . import instances
from ._common import METHODS, TABLE, _stripes_of, factor_pair  # noqa: F401 (_stripes_of: tests)
from ._compare import compare
from ._hier import hier_opt, hier_rb, hier_relaxed
from ._hybrid import general_optimum, hybrid, partition
from ._jag_m import (
    allocate,
    jag_m_alloc,
    jag_m_heur,
    jag_m_heur_probe,
    jag_m_iter,
    jag_m_opt,
    jag_m_probe,
)
from ._jag_pq import jag_pq_heur, jag_pq_opt_dp, jag_pq_opt_nicol
from ._partition import SpatialPartition
from ._grid import rect_sym_opal, rect_sym_pal, rect_sym_rac, rect_sym_refine, rect_sym_uniform
from ._refine import rect_refine
from ._rect import rect_nicol, rect_uniform
from ._sparse import MAX_DENSE_BYTES, read_matrix
from ._starts import STARTS

__all__ = [
    "MAX_DENSE_BYTES",
    "METHODS",
    "STARTS",
    "TABLE",
    "SpatialPartition",
    "allocate",
    "compare",
    "factor_pair",
    "general_optimum",
    "hier_opt",
    "hier_rb",
    "hier_relaxed",
    "hybrid",
    "instances",
    "jag_m_alloc",
    "jag_m_heur",
    "jag_m_heur_probe",
    "jag_m_iter",
    "jag_m_opt",
    "jag_m_probe",
    "jag_pq_heur",
    "jag_pq_opt_dp",
    "jag_pq_opt_nicol",
    "partition",
    "read_matrix",
    "rect_nicol",
    "rect_refine",
    "rect_sym_opal",
    "rect_sym_pal",
    "rect_sym_rac",
    "rect_sym_refine",
    "rect_sym_uniform",
    "rect_uniform",
]


from .._keywords import guard_public as _guard  # noqa: E402

_guard(globals(), __all__)  # an unknown keyword: WpartTypeError naming it
del _guard
