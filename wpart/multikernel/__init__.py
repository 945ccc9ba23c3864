"""Compound multi-kernel computations split over CPUs and GPUs [Soldado 2016].

The decisions, as pure functions over the C core (:mod:`._decide`, :mod:`._adapt`): :func:`split`,
:func:`quantum`, :func:`exec_shares`, :func:`seed_share`, :func:`gpu_fractions`,
:func:`level_of_parallelism`, :func:`occupancy`, :func:`wgs_candidates`,
:class:`BisectionGenerator`, :class:`ConfigSearch`, :class:`ImbalanceDetector`,
:class:`AdaptiveBinarySearch`, :func:`interpolate`; the profile knowledge base
(:class:`KnowledgeBase` of :class:`KernelProfile` entries, one JSON file per machine); the
decision flow around runs (:func:`build_profile`, Algorithm 1 of the paper, and :class:`DecisionLoop`); CPU load
injection by busy processes (:class:`LoadInjector`); a real CPU beside a paced accelerator
(:class:`PacedRuntime`) and many runs under the decision loop (:func:`adaptive_runs`). Real execution
through OpenCL: the paper's benchmarks as shipped OpenCL kernels
(:mod:`wpart.multikernel.opencl`) and computations composed as skeleton trees
(:mod:`wpart.multikernel.skeletons`: Kernel, Pipeline, Loop, Map, MapReduce); both
need ``pyopencl`` and an OpenCL driver, such as the pip-installable PoCL CPU driver.
Simulated platforms (the paper's P1 and P2, calibrated to its Table 2) that run the same
decisions: :mod:`wpart.multikernel.sim`.
"""

from . import _adapt, _decide, _defaults, _flow, _kb, _load, _real
from ._defaults import *  # noqa: F403
from ._decide import *  # noqa: F403
from ._adapt import *  # noqa: F403
from ._kb import *  # noqa: F403
from ._kb import Profile  # the paper's name of KernelProfile (an alias, not in __all__)
from ._flow import *  # noqa: F403
from ._load import *  # noqa: F403
from ._real import *  # noqa: F403

__all__: list[str] = [*_defaults.__all__, *_decide.__all__, *_adapt.__all__, *_kb.__all__,
                     *_flow.__all__, *_load.__all__, *_real.__all__]


from .._keywords import guard_public as _guard  # noqa: E402

_guard(globals(), __all__)  # an unknown keyword: WpartTypeError naming it
del _guard
