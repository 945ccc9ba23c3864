"""wpart: decide how to split work across processors, and show how good the split is.

The package is a thin NumPy-first layer over a C11 core. The top level holds what every
family shares: prefix sums, box loads and optimal 1D (chains-on-chains) partitioning.
Families live in submodules (``wpart.milp`` now; ``spatial``, ``hetero``, ``dynamic`` and
``tasks`` as they land).

Examples
--------
>>> import numpy as np, wpart
>>> r = wpart.partition_1d(np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]), 3)
>>> r.max_load
17
"""

from __future__ import annotations

from . import _core
from ._base import METHODS_1D, Partition1D, box_loads, partition_1d, prefix_sum, probe_1d

WpartError = _core.WpartError
CancelledError = _core.CancelledError
SolverError = _core.SolverError

__version__ = "0.1.0"

__all__ = [
    "prefix_sum",
    "box_loads",
    "partition_1d",
    "probe_1d",
    "Partition1D",
    "METHODS_1D",
    "WpartError",
    "CancelledError",
    "SolverError",
    "__version__",
]


def __getattr__(name: str):  # lazy submodules keep `import wpart` fast
    import importlib

    if name in ("milp", "brute", "cli", "spatial", "hetero", "dynamic", "tasks", "experiments"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'wpart' has no attribute {name!r}")
