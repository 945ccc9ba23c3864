"""wpart: decide how to split work across processors, and show how good the split is.

The package is a thin NumPy-first layer over a C11 core. The top level holds what every
family shares: prefix sums, box loads, optimal 1D (chains-on-chains) partitioning
(:func:`partition_1d`, :func:`compare_1d`), the result protocol and the errors. The families
are submodules, imported on first use:

- ``wpart.spatial``: a 2D load matrix into m rectangles (rectilinear, jagged, hierarchical,
  hybrid; exact and heuristic) [Saule 2012];
- ``wpart.hetero``: a workload over heterogeneous processors from time/energy profiles, the
  time-optimal split and the time-energy Pareto fronts [Khaleghzadeh 2019];
- ``wpart.tasks``: task placement with communication and memory (CCM-LB, greedy, exact MILP),
  LBDatafile input and output, serial or over MPI [Lifflander 2024];
- ``wpart.dynamic``: run-time balancing (PLB-HAC and its competitors) simulated or on real
  workers [Sant'Ana 2017];
- ``wpart.multikernel``: multi-kernel computations split over CPUs and GPUs [Soldado 2016];
- ``wpart.milp``: the GLPK-backed MILP layer the exact oracles use.

Every method takes ``time_limit=`` and ``progress=``; every family has ``compare()`` (every
method on one input, tabulated); every result has ``status``, ``success``, ``message``,
``to_dict()`` and ``plot(ax=None)``; bad input raises a :class:`WpartError` naming the
argument. The ``wpart`` command line runs the families on files (``wpart --help``).

Examples
--------
>>> import numpy as np, wpart
>>> r = wpart.partition_1d(np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]), 3)
>>> r.max_load
17
"""


def _source_tree_error() -> "ImportError | None":
    """An explanatory error when ``wpart`` is imported from a checkout with no built extension
    (e.g. from the repository root after a plain ``pip install .``, where ``./wpart`` shadows
    the installed package), or None when the failure is something else."""
    import importlib.machinery
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    if any(f.startswith("_core") and f.endswith(suffixes) for f in os.listdir(here)):
        return None  # the extension is there but failed to load: keep the original error
    if not (
        os.path.isfile(os.path.join(root, "pyproject.toml"))
        and os.path.isdir(os.path.join(root, "csrc"))
    ):
        return None
    return ImportError(
        f"you are importing wpart from its source tree ({here}) without a built extension "
        "(wpart._core), so this checkout hides any installed wpart. Either build it in place "
        "with `./tools/setup.sh` (an editable install), or change to another directory to "
        "use the installed wpart."
    )


try:
    from . import _core
except ImportError:
    _err = _source_tree_error()
    if _err is None:
        raise
    raise _err from None
from ._base import METHODS_1D, Partition1D, box_loads, partition_1d, prefix_sum, probe_1d

from ._errors import (
    CancelledError,
    SolverError,
    WpartError,
    WpartFileNotFoundError,
    WpartIndexError,
    WpartKeyError,
    WpartLimitError,
    WpartMemoryError,
    WpartNotImplementedError,
    WpartOSError,
    WpartOverflowError,
    WpartRuntimeError,
    WpartTimeoutError,
    WpartTypeError,
    WpartValueError,
)
from ._result import STATUSES, Result
from ._compare import Comparison, compare_1d
from . import _errors

__version__ = "0.1.0"

__all__ = [
    "prefix_sum",
    "box_loads",
    "partition_1d",
    "probe_1d",
    "compare_1d",
    "Comparison",
    "Partition1D",
    "METHODS_1D",
    "Result",
    "STATUSES",
    *_errors.__all__,  # every exception class, listed once in wpart/_errors.py
    "__version__",
]

from ._keywords import guard_public as _guard  # noqa: E402

_guard(globals(), __all__)  # an unknown keyword: WpartTypeError naming it
del _guard


def __getattr__(name: str):  # lazy submodules keep `import wpart` fast
    import importlib

    if name in ("milp", "brute", "cli", "spatial", "hetero", "dynamic", "multikernel", "tasks",
                "experiments"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'wpart' has no attribute {name!r}")
