"""Run-time balancing: performance models, block sizing, balancers, simulator, real execution.

PLB-HAC (profile-based load balancing on heterogeneous accelerator clusters, Sec. 3 of the
paper) and its competitors. One decision protocol serves every balancer; the same balancer
objects run in the deterministic simulator (:func:`simulate`) and against real workers
(:func:`run`). ``m`` is the number of processing units (PUs) and ``n`` the number of elements
to process everywhere.

* Performance models and block sizing: :func:`fit_model`, :class:`PerfModel`,
  :func:`solve_equal_time`, :func:`capacity`, :func:`round_blocks`, and
  :func:`equal_finish` (integer sizes that finish together, :class:`EqualFinishResult`).
* Balancers (one protocol: ``start`` / ``on_complete`` / ``eval_run`` / ``eval_done`` /
  ``done``): :class:`PLBHAC`, :class:`PLBHeC`, :class:`Greedy`, :class:`HDSS`,
  :class:`AcostaRP`, :class:`NaiveProfile`, :class:`Asymmetric`, :class:`DmdaLike`,
  :class:`Static`, and the oracles; declared once in :data:`BALANCERS` (name -> class,
  options), which :func:`make_balancer` and the string forms use.
* Simulation: :class:`Platform`, :func:`simulate` (``simulate("hetero3", "greedy", seed=0)``
  builds a preset platform and a balancer by name), :class:`SimResult`, :func:`compare`.
* Real execution: :func:`run` drives any balancer against real workers
  (:class:`ThreadWorker`, :class:`ProcessWorker`, :class:`CallableWorker`, optional
  :class:`CupyWorker`) on tasks (:class:`GemmColumnsTask`, :class:`KMeansAssignTask`,
  :class:`CallableTask`) and returns a :class:`RunResult` with the same trace as the simulator.
* Multi-kernel computations over CPUs and GPUs [Soldado 2016] are their own family,
  :mod:`wpart.multikernel` (the old paths ``wpart.dynamic.multikernel`` and
  ``wpart.dynamic.<name>`` still work for one release, with a ``DeprecationWarning``).
* Over MPI: :func:`run_mpi` runs the balancer on one rank and the workers on the others
  (:class:`MPIRunResult`, :class:`RankFailedError`; ``python -m wpart.dynamic.mpi`` from
  ``mpirun``). mpi4py is imported only when it is called.

Every result (:class:`SimResult`, :class:`RunResult`, :class:`MPIRunResult`,
:class:`OracleResult`, :class:`OracleMilpResult`) follows :class:`wpart.Result`: ``status``,
``success``, ``message``, ``stats``, ``to_dict()``, ``plot(ax=None)`` returning the Axes. A
``time_limit`` reached comes back as ``status == "time_limit"``, never as an exception.
"""

from . import _balancer, _baselines, _equal, _exec, _exec_proc, _exec_tasks, _model, _mpi, _oracles, _plbhac, _sim, _table, _trace
from ._balancer import *  # noqa: F403
from ._baselines import *  # noqa: F403
from ._equal import *  # noqa: F403
from ._exec import *  # noqa: F403
from ._exec_proc import *  # noqa: F403
from ._exec_tasks import *  # noqa: F403
from ._model import *  # noqa: F403
from ._mpi import *  # noqa: F403
from ._oracles import *  # noqa: F403
from ._plbhac import *  # noqa: F403
from ._sim import *  # noqa: F403
from ._table import *  # noqa: F403
from ._trace import *  # noqa: F403
from ._compare import compare  # the family's compare(): a table per balancer, and the runs

# The public names (at most 50; the rest stay importable from here and from their modules:
# the further baselines, oracles, trace columns and preset tables).
__all__: list[str] = [
    # models and block sizing
    "PerfModel", "fit_model", "solve_equal_time", "capacity", "round_blocks", "equal_finish",
    "EqualFinishResult",
    # balancers
    "Action", "Balancer", "PyBalancer", "PLBHAC", "PLBHeC", "Greedy", "Static", "HDSS",
    "AcostaRP", "NaiveProfile", "Asymmetric", "DmdaLike", "BALANCERS", "make_balancer",
    "PU_KINDS",
    # simulation
    "Affine", "Saturating", "Power", "BasisCurve", "Table", "Device", "Platform", "SimResult",
    "simulate", "compare", "OracleResult", "oracle_oneshot", "oracle_stepped",
    # real execution
    "Worker", "ThreadWorker", "ProcessWorker", "CallableWorker", "CupyWorker", "WorkerError",
    "run", "Task", "GemmColumnsTask", "KMeansAssignTask", "CallableTask", "RunResult",
    # over MPI
    "run_mpi", "RankFailedError", "MPIRunResult",
]
assert len(__all__) <= 50 and len(set(__all__)) == len(__all__)

# The multi-kernel names that lived here until wpart.multikernel became its own family.
_MOVED_TO_MULTIKERNEL = frozenset({
    "MK_DEFAULTS", "split", "quantum", "level_of_parallelism", "seed_share", "gpu_fractions",
    "exec_shares", "GpuCaps", "occupancy", "wgs_candidates", "BisectionGenerator",
    "ConfigSearch", "ImbalanceDetector", "AdaptiveBinarySearch", "balance_ratio", "interpolate",
    "INTERP_METHODS", "Profile", "KernelProfile", "KnowledgeBase", "KnowledgeBaseError", "PROCESSES",
    "machine_fingerprint", "build_profile", "ProfileBuild", "DecisionLoop", "RunDecision",
    "LoadInjector", "PacedWorker", "PacedRuntime", "PacedRun", "adaptive_runs", "AdaptiveRuns",
})


from .._keywords import guard_public as _guard  # noqa: E402

_guard(globals(), __all__)  # an unknown keyword: WpartTypeError naming it
del _guard


def __getattr__(name: str):
    """``wpart.dynamic.multikernel`` and the multi-kernel names, moved to :mod:`wpart.multikernel`."""
    import importlib
    import warnings

    if name == "multikernel":  # the deprecated package (it warns once imported)
        return importlib.import_module("wpart.dynamic.multikernel")
    if name in _MOVED_TO_MULTIKERNEL:
        warnings.warn(f"wpart.dynamic.{name} moved to wpart.multikernel.{name}; the old path "
                      "goes away in the next release", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("wpart.multikernel"), name)
    raise AttributeError(f"module 'wpart.dynamic' has no attribute {name!r}")
