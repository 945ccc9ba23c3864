r"""Mixed-integer linear programmes solved with GLPK, through the C core.

The model is

.. math::

    \min_x \ (\text{or} \max_x) \quad c^T x + c_0
    \quad \text{s.t.} \quad b_l \le A x \le b_u, \quad l \le x \le u,
    \quad x_j \in \mathbb{Z} \ \text{for the integer columns}.

:func:`solve` solves it (GLPK's simplex method for pure LPs, branch-and-cut otherwise) and
:func:`write_model` writes it as a CPLEX LP or free MPS file for another solver. The task and
hetero families build their exact models on this layer.

Examples
--------
>>> import wpart.milp
>>> r = wpart.milp.solve([8, 11, 6, 4], A=[[5, 7, 4, 3]], b_upper=[14],
...                      integrality=2, sense="max")
>>> r.status, r.objective, r.x.tolist()
('optimal', 21.0, [0.0, 1.0, 1.0, 1.0])
"""

from ._milp import STATUSES, MilpResult, solve, solver_version, write_model

__all__ = ["solve", "write_model", "MilpResult", "STATUSES", "solver_version"]
