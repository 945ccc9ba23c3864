"""Run-time balancing: performance models, block sizing, balancers, simulator, real execution.

Spec 001 (PLB-HAC: profile-based load balancing on heterogeneous accelerator clusters) and
the device layer shared with spec 002. One decision protocol serves every balancer; the same
balancer objects run in the deterministic simulator (:func:`simulate`) and against real
workers (:func:`run`).

* Performance models and block sizing: :func:`fit_model`, :class:`PerfModel`,
  :func:`solve_equal_time`, :func:`capacity`, :func:`round_blocks`.
* Balancers (one protocol: ``start`` / ``on_complete`` / ``eval_run`` / ``eval_done`` /
  ``done``): :class:`PLBHAC`, :class:`PLBHeC`, :class:`Greedy`, :class:`HDSS`,
  :class:`AcostaRP`, :class:`NaiveProfile`, :class:`Asymmetric`, :class:`DmdaLike`,
  :class:`Static`, and the oracles.
* Simulation: :class:`Platform`, :func:`simulate`, :class:`SimResult`, :func:`compare`.
* Real execution: :func:`run` with C-kernel thread workers or Python callables.
"""

from __future__ import annotations

from . import _balancer, _baselines, _model, _oracles, _plbhac, _sim
from ._balancer import *  # noqa: F403
from ._baselines import *  # noqa: F403
from ._model import *  # noqa: F403
from ._oracles import *  # noqa: F403
from ._plbhac import *  # noqa: F403
from ._sim import *  # noqa: F403

__all__: list[str] = [
    *_balancer.__all__, *_baselines.__all__, *_model.__all__, *_oracles.__all__, *_plbhac.__all__, *_sim.__all__
]
