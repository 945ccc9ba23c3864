"""Communication- and memory-aware task placement (the CCM model of [Lifflander 2024]:
Lifflander, Pébaÿ et al., "A Communication- and Memory-Aware Model for Load Balancing Tasks").

Rank work ``W(r) = alpha L(r) + beta max(out(r), in(r)) + gamma loc(r) + delta H(r)`` (+inf
above the rank's memory cap; eq. (11) of the paper); the goal is the smallest ``W_max``, the
results' ``max_load``. ``gamma`` multiplies on-rank bytes, as in the paper. Balancers (declared
in :data:`TABLE`): CCM-LB (the paper's gossip heuristic, Fig. 1, simulated serially in C, or
one state machine per rank, or over MPI in :mod:`wpart.tasks.mpi`), greedy, a load-only
TemperedLB-style balancer, brute force, and the exact MILP of Sec. V via GLPK.

Examples
--------
>>> from wpart import tasks
>>> p = tasks.synthetic_blocks()
>>> tasks.balance(p, method="ccm", seed=0).max_load
2.5
>>> tasks.brute_force(p).max_load
2.0
"""

from . import datasets
from ._balance import METHODS, TABLE, TasksResult, balance, brute_force, evaluate
from ._compare import compare
from ._gap import GapStudy, gap_study, paper_scale_study, paper_style_instance
from ._io import LBDatafileError, read_lbdatafile, write_lbdatafile
from ._milp import milp_model, solve_milp
from ._problem import Coefficients, Problem
from ._protocol import ProtocolRun, run_protocol
from .generators import gemma_like, paper_toy, random_problem, synthetic_blocks

__all__ = [
    "datasets",
    "METHODS",
    "TABLE",
    "Coefficients",
    "GapStudy",
    "LBDatafileError",
    "Problem",
    "ProtocolRun",
    "TasksResult",
    "balance",
    "brute_force",
    "compare",
    "evaluate",
    "gap_study",
    "gemma_like",
    "milp_model",
    "paper_scale_study",
    "paper_toy",
    "paper_style_instance",
    "random_problem",
    "read_lbdatafile",
    "run_protocol",
    "solve_milp",
    "synthetic_blocks",
    "write_lbdatafile",
]


from .._keywords import guard_public as _guard  # noqa: E402

_guard(globals(), __all__)  # an unknown keyword: WpartTypeError naming it
del _guard
