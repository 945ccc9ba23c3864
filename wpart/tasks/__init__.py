"""Communication- and memory-aware task placement (spec 003; Lifflander, Pébaÿ et al., the CCM model).

Rank work ``W(r) = alpha L(r) + beta max(out(r), in(r)) + gamma loc(r) + delta H(r)`` (+inf
above the rank's memory cap); the goal is the smallest ``W_max``. ``gamma`` multiplies on-rank
bytes, as in the paper. Balancers: CCM-LB (the paper's gossip heuristic, simulated serially in
C), greedy, a load-only TemperedLB-style balancer, brute force, and the exact MILP via GLPK.

Examples
--------
>>> from wpart import tasks
>>> p = tasks.synthetic_blocks()
>>> tasks.balance(p, method="ccm", seed=0).max_work
2.5
>>> tasks.brute_force(p).max_work
2.0
"""

from . import datasets
from ._balance import METHODS, TasksResult, balance, brute_force, evaluate
from ._gap import GapStudy, gap_study, paper_scale_study, paper_style_instance
from ._io import LBDatafileError, read_lbdatafile, write_lbdatafile
from ._milp import milp_model, solve_milp
from ._problem import Coefficients, Problem
from ._protocol import run_protocol
from .generators import gemma_like, paper_toy, random_problem, synthetic_blocks

__all__ = [
    "datasets",
    "METHODS",
    "Coefficients",
    "GapStudy",
    "LBDatafileError",
    "Problem",
    "TasksResult",
    "balance",
    "brute_force",
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
