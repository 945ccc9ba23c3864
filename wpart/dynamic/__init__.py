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
* Multi-kernel computations over CPUs and GPUs [Soldado 2016] (:mod:`.multikernel`):
  :func:`split`, :func:`quantum`, :func:`exec_shares`, :class:`BisectionGenerator`,
  :class:`ConfigSearch`, :class:`ImbalanceDetector`, :class:`AdaptiveBinarySearch`,
  :func:`interpolate`, :class:`KnowledgeBase`; real runs of the paper's benchmarks as OpenCL
  kernels in :mod:`wpart.dynamic.multikernel.opencl`.
* Over MPI: :func:`run_mpi` runs the balancer on one rank and the workers on the others
  (:class:`MPIRunResult`, :class:`RankFailedError`; ``python -m wpart.dynamic.mpi`` from
  ``mpirun``). mpi4py is imported only when it is called.

Every result (:class:`SimResult`, :class:`RunResult`, :class:`MPIRunResult`,
:class:`OracleResult`, :class:`OracleMilpResult`) follows :class:`wpart.Result`: ``status``,
``success``, ``message``, ``stats``, ``to_dict()``, ``plot(ax=None)`` returning the Axes. A
``time_limit`` reached comes back as ``status == "time_limit"``, never as an exception.
"""

from . import multikernel
from .multikernel import *  # noqa: F403
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

__all__: list[str] = [
    *_balancer.__all__,
    *_baselines.__all__,
    *_model.__all__,
    *_equal.__all__,
    *_oracles.__all__,
    *_plbhac.__all__,
    *_sim.__all__,
    *_table.__all__,
    *_exec_tasks.__all__,
    *_exec.__all__,
    *_exec_proc.__all__,
    *_mpi.__all__,
    *_trace.__all__,
    *multikernel.__all__,
]
__all__ = list(dict.fromkeys(__all__))  # names re-exported by two modules (PU_KINDS) once
