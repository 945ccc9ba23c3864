"""The constants of the multi-kernel decisions [Soldado 2016] and their defaults.

One table, :data:`MK_DEFAULTS`, that every module of :mod:`wpart.multikernel` reads (the
decisions, the knowledge base, the decision flow) and that imports nothing of the family, so
that no module needs another only for a constant; :data:`MK_PRESETS` holds the rules of
:class:`~wpart.multikernel.DecisionLoop` by preset.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MK_DEFAULTS", "MK_PRESETS"]

#: The constants of the decisions and their defaults (every one is an option where it is used).
#: ``[PAPER]`` values come from [Soldado 2016]; the others are reconstructions or wpart's choices
#: where the paper's text lost them (documented beside each).
MK_DEFAULTS: dict[str, Any] = {
    "occupancy_threshold": 0.80,   # work-group sizes kept by occupancy [PAPER]
    "overlaps": (1, 2, 3, 4),      # GPU overlap candidates (Table 2 shows 1, 3 and 4)
    "fission_order": ("L1", "L2", "L3", "L4", "NUMA", "NONE"),  # finest to coarsest, then none
    "precision": 0.01,             # profile convergence, relative
    "n_exec": 3,                   # runs per measured candidate, aggregated by min
    "it_max": 16,                  # bisection candidates per configuration at most
    "x_min": 1.0 / 1024,           # smallest transferable part of the bisection generator
    "max_dev": 0.85,               # balanced when min/max device time >= max_dev [PAPER]
    "w": 0.10,                     # weight of the latest run in the moving average
    "cf": 1.0,                     # correction factor of max_dev
    "detector_window": 1,          # runs whose median ratio the detector judges (1: paper)
    "search_window": 1,            # runs whose per-share times a search step judges
                                   # (AdaptiveBinarySearch; DecisionLoop: its preset's)
    "preset": "robust",            # DecisionLoop's rules: "robust" or "paper" (MK_PRESETS)
    "cf_min": 0.7,                 # floor of the profile-aware correction factor
    "T_init": 1.0 / 16,            # adaptive binary search: first transferable part
    "T_min": 1.0 / 256,            # ... smallest (stop)
    "T_max": 0.5,                  # ... largest (doubling cap)
    "rbf_max_dims": 3,             # RBF for 1-3 dimensions, nearest neighbour above [PAPER]
    "feature_scale": "log2",       # interpolation features: log2 of each extent
}

#: The rules of :class:`~wpart.multikernel.DecisionLoop` by preset: ``"paper"`` judges every
#: run on its own (the detector on the run's ratio, the search on the run's times, three
#: steps in a row the same way to leave the converged state); ``"robust"`` (the default)
#: judges, in both, each type's typical time per unit of share over the last `window` runs
#: (4; the second fastest of four, as noise on a busy machine only adds time), scaled to the
#: current share; its converged state counts steps net of opposite ones and is left after
#: ``2 * window`` steps, so that noisy runs neither fire, nor turn the search, nor stall it.
MK_PRESETS: dict[str, dict[str, Any]] = {
    "paper": {"window": 1},
    "robust": {"window": 4},
}
