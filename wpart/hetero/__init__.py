"""Time-optimal and exact time-energy Pareto workload distribution over discrete profiles.

Split `n` units of work over `m` heterogeneous processors whose execution time and dynamic
energy are known only at measured sizes (Khaleghzadeh et al., "Bi-objective optimization of
data-parallel applications on heterogeneous platforms for performance and energy via workload
distribution"). Giving a processor 0 units costs nothing; a size that was not measured cannot
be used. Vocabulary: `m` = number of processors, `n` = workload, ``n_points`` = measured
points of one profile.

* :func:`optimal_time` -- least parallel time (TOPT, the role HPOPTA plays in the paper),
  least energy among the fastest distributions.
* :func:`pareto_front` -- the exact front of (time, dynamic energy) (HEPOPTA, Sec. 4-5 of the
  paper) or of (time, total energy) with a static power (HTPOPTA, Sec. 6).
* :func:`load_balanced` -- the load-balanced baseline of the paper's Sec. 8.2, made precise.
* :func:`measure` -- build a real time (and energy) profile of a kernel on this machine
  (Sec. 10.3-10.4 of the paper).
* Oracles: :func:`threshold_dp_front`, :func:`bruteforce_front`, :func:`milp_front`.

Every solver returns a :class:`wpart.Result` (:class:`Distribution`, :class:`ParetoFront`):
``status`` is ``"optimal"``, ``"infeasible"`` (no distribution of `n` exists) or
``"time_limit"``; nothing raises for an infeasible workload or a time limit.

Examples
--------
>>> import wpart.hetero as wh
>>> x = list(range(1, 9))
>>> profiles = [(x, [1.0 * v for v in x], [1.0 * v for v in x]),    # fast and frugal
...             (x, [3.0 * v for v in x], [2.0 * v for v in x])]    # slow and costly
>>> f = wh.pareto_front(profiles, 8)
>>> f.time.tolist(), f.energy.tolist(), f.dist.tolist()
([8.0, 7.0, 6.0], [8.0, 9.0, 10.0], [[8, 0], [7, 1], [6, 2]])
>>> wh.optimal_time(profiles, 8).dist.tolist()
[6, 2]
>>> wh.optimal_time(profiles, 17).status
'infeasible'
"""

from ._api import (
    optimal_time,
    pareto_milp,
    optimal_energy,
    load_balanced,
    pareto_front,
    total_energy_front,
    threshold_dp_front,
    bruteforce_front,
    milp_front,
    evaluate,
)
from ._compare import compare
from ._front import Distribution, ParetoFront, classify, hypervolume
from ._profiles import Profile, ProfileSet
from ._synth import PRESETS, linear_profiles, synthetic

__all__ = [
    "PRESETS",
    "CallbackMeter",
    "Distribution",
    "MeasuredProfile",
    "NvmlMeter",
    "ParetoFront",
    "Profile",
    "ProfileSet",
    "RaplMeter",
    "SyntheticMeter",
    "additivity_check",
    "additivity_report",
    "bruteforce_front",
    "classify",
    "compare",
    "dynamic_energy",
    "evaluate",
    "hypervolume",
    "kernels",
    "linear_profiles",
    "load_balanced",
    "mean_until_precise",
    "measure",
    "milp_front",
    "optimal_energy",
    "optimal_time",
    "pareto_front",
    "pareto_milp",
    "synthetic",
    "threshold_dp_front",
    "total_energy_front",
]


from .._keywords import guard_public as _guard  # noqa: E402
from .._keywords import guarded as _guarded  # noqa: E402  (the lazy names below)

_guard(globals(), __all__)  # an unknown keyword: WpartTypeError naming it
del _guard


def __getattr__(name: str):  # measurement helpers load lazily
    if name in ("measure", "mean_until_precise", "additivity_report", "dynamic_energy",
                "MeasuredProfile", "additivity_check"):
        from . import _measure

        return _guarded(getattr(_measure, name))
    if name in ("RaplMeter", "NvmlMeter", "CallbackMeter", "SyntheticMeter",
                "energy_from_samples", "measure_static_power"):
        from . import _meters

        return _guarded(getattr(_meters, name))
    if name == "kernels":
        import importlib

        return importlib.import_module(".kernels", __name__)
    raise AttributeError(f"module 'wpart.hetero' has no attribute {name!r}")
