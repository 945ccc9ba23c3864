"""CCM-LB's gap to the exact MILP optimum over many small seeded paper-style instances.

The paper (Fig. 4a) reports CCM-LB within 1.8 % of the best Gurobi solution on one 14-rank Gemma
case. :func:`gap_study` measures the distribution of that gap with GLPK on instances small
enough to be solved exactly in about a second: ``W_ccm / W_milp - 1`` per CCM-LB run, with
``W_milp`` the MILP incumbent (optimal unless the time limit stopped GLPK; the study records
how often) and, with ``clusters=True``, also against the cluster-preserving optimum (every
block's tasks on one rank: the best any whole-cluster balancer can reach from a co-located
start). :func:`paper_scale_study` checks the paper's size against a simple lower bound.

Measured with ``gap_study(200, seed=0, n_seeds=3, time_limit=3)`` (600 runs; 147 of the 200 MILPs
proven optimal), gap median / p90 / max / share within 1.8 %:

* whole block groups (the paper's CCM-LB, default): 0.60 % / 5.1 % / 19.3 % / 72 %; against
  the cluster-preserving optimum: median 0.02 %, max 15.4 % (the rest of the gap is the
  coarseness of whole blocks on instances this small);
* single-task moves, LBAF rule (``subclusters=True``): 0.35 % / 3.2 % / 13.8 % / 83 %;
* ``subclusters="fill"`` (competing on gain): 0.13 % / 1.3 % / 7.2 % / 92 %;
* the same with ``n_trials=8, explore=True``: 0.03 % / 0.8 % / 6.2 % / 96.5 %.

At the paper's granularity (14 ranks, 1,959 tasks, 206 blocks, delta = 0) whole block groups
are within 0.33 % of ``max(mean load, max task)``, consistent with the paper's 1.8 %.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _core
from .._errors import CancelledError, WpartValueError
from .._result import Result, new_axes
from .._validate import (as_bool, as_float, as_int, as_m, as_progress, as_seed,
                         as_time_limit, is_bool, renamed)
from ._balance import balance
from .._validate import positional_deprecated
from ._milp import solve_milp
from ._problem import Coefficients
from ._results import load_bound
from .generators import gemma_like
from .._docs import fill_doc

__all__ = ["DEFAULT_VARIANTS", "GapStudy", "gap_study", "paper_scale_study", "paper_style_instance"]

#: CCM-LB settings compared by :func:`gap_study`: name -> keyword arguments of
#: :func:`wpart.tasks.balance`. "whole" keeps block groups whole (the paper); "singles" is the
#: original single-task subclustering (tried only when no whole-cluster exchange pays);
#: "subsets" lets single tasks and a cluster's heaviest / lightest parts compete with the
#: whole-cluster exchanges on gain; "fill" adds the per-pair parts sized to even the pair;
#: "fill_explore" runs 8 trials, the later ones picking random improving exchanges.
DEFAULT_VARIANTS: dict[str, dict] = {
    "whole": {},
    "singles": {"subclusters": "singles"},
    "subsets": {"subclusters": "subsets"},
    "fill": {"subclusters": "fill"},
    "fill_explore": {"subclusters": "fill", "n_trials": 8, "explore": True},
}

#: Paper Fig. 4a deltas (s/B) with the generator's block sizes (~1e7 B): the homing cost of a
#: block is then 0 to ~10 task loads.
DELTAS = (0.0, 1e-9, 1e-10, 1e-11)


@fill_doc
def paper_style_instance(rng: np.random.Generator, *, ranks=(2, 3), blocks_per_rank=(4, 8),
                         tasks_per_block=(2, 4), load_sigma: float = 0.6):
    """One small Gemma-like instance (the paper's Gemma case, Sec. VI-B, scaled down):
    co-located blocks homed on their rank, log-normal
    task times, no edges. Sizes are drawn uniformly from the inclusive ranges given. Returns
    ``(problem, (I, K, N), generator_seed)``.

    Parameters
    ----------
    rng : np.random.Generator
        A NumPy random generator.
    ranks : object, optional
        Inclusive range of the number of ranks.
    blocks_per_rank : object, optional
        Inclusive range of the number of blocks per rank.
    tasks_per_block : object, optional
        Inclusive range of the number of tasks per block.
    load_sigma : float, optional
        Spread (log-normal sigma) of the task times.

    Returns
    -------
    tuple
        ``(problem, (I, K, N), generator_seed)``.

    {raises}
    """
    I = int(rng.integers(ranks[0], ranks[1] + 1))
    N = I * int(rng.integers(blocks_per_rank[0], blocks_per_rank[1] + 1))
    K = N * int(rng.integers(tasks_per_block[0], tasks_per_block[1] + 1))
    gseed = int(rng.integers(0, 2**31))
    p = gemma_like(m=I, n_tasks=K, n_blocks=N, seed=gseed, load_sigma=load_sigma)
    return p, (I, K, N), gseed


@dataclass(frozen=True, eq=False, repr=False)
class GapStudy(Result):
    """Gaps of CCM-LB variants to the MILP optimum over seeded instances.

    Attributes
    ----------
    status : str
        ``"feasible"`` (every instance ran; the gaps are measured, no optimality claim).
    success : bool
    message : str
        Instances, runs and how many MILPs stopped at their time limit.
    instances : list of dict
        Per instance: ``I, K, N, generator_seed, delta, milp_status, milp`` (incumbent W_max),
        ``bound``, ``milp_seconds``, ``initial`` (W_max of the co-located start) and, when
        clusters were solved, ``clusters_opt`` (cluster-preserving optimum).
    gaps : dict of str to ndarray, shape (n_instances, n_seeds)
        ``W_ccm / W_milp - 1`` per variant, instance and CCM-LB seed.
    gaps_clusters : dict of str to ndarray
        ``W_ccm / W_clusters_opt - 1`` (NaN where not solved).
    summary : dict of str to dict
        Per variant: ``median``, ``p90``, ``max``, ``mean``, ``within`` (fraction of runs at
        most `threshold` above the MILP), ``median_clusters``/``max_clusters``,
        ``memory_ok`` (no run above a memory cap), ``seconds`` (mean CCM-LB time), and
        ``median_optimal``, ``p90_optimal``, ``max_optimal``, ``within_optimal`` over the
        instances GLPK proved optimal.
    variants : dict
        The variants' :func:`balance` keyword arguments.
    threshold : float
    n_not_optimal : int
        Instances where GLPK stopped before proving its incumbent within `mip_gap` of the
        optimum (at the time limit: their gap is then a lower estimate).
    seconds : float
    params : dict
        The study's arguments.
    stats : dict
        ``seconds``, ``runs``.
    """

    instances: list
    gaps: dict
    gaps_clusters: dict
    summary: dict
    variants: dict
    threshold: float
    n_not_optimal: int
    seconds: float = field(compare=False)
    params: dict = field(default_factory=dict)

    def table(self) -> str:
        """The summary as a plain-text table."""
        head = (f"{'variant':<10} {'median':>8} {'p90':>8} {'max':>8} {'within':>8} "
                f"{'med/cl':>8} {'max/cl':>8} {'mem ok':>7} {'CCM s':>8}")
        lines = [head]
        for k, s in self.summary.items():
            lines.append(f"{k:<10} {s['median']:>8.2%} {s['p90']:>8.2%} {s['max']:>8.2%} "
                         f"{s['within']:>8.1%} {s['median_clusters']:>8.2%} "
                         f"{s['max_clusters']:>8.2%} {str(s['memory_ok']):>7} "
                         f"{s['seconds']:>8.4f}")
        return "\n".join(lines)

    def _repr_lines(self) -> list[str]:
        lines = [f"GapStudy(n_instances={len(self.instances)}, variants={list(self.variants)}, "
                 f"n_not_optimal={self.n_not_optimal})"]
        for k, v in list(self.summary.items())[:3]:
            lines.append(f"  {k}: gap median {v['median']:.2%}, max {v['max']:.2%}, "
                         f"within {self.threshold:.1%}: {v['within']:.0%}")
        if len(self.summary) > 3:
            lines.append(f"  ... {len(self.summary) - 3} more variants (.table())")
        return lines

    def plot(self, ax: Any = None) -> Any:
        """Empirical CDF of the gap per variant (log-scaled x; 0 drawn at 1e-5); returns the
        Axes drawn on."""
        ax = new_axes(ax, figsize=(5.5, 3.5))
        for k, g in self.gaps.items():
            x = np.sort(np.maximum(g.ravel(), 1e-5))
            ax.step(x, np.arange(1, x.size + 1) / x.size, where="post", label=k)
        ax.axvline(self.threshold, color="0.5", ls="--", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("W_ccm / W_milp - 1")
        ax.set_ylabel("fraction of runs")
        ax.set_title("CCM-LB gap to the MILP optimum")
        ax.legend(fontsize="small")
        return ax


def _summary(g: np.ndarray, gc: np.ndarray, thr: float, mem_ok: bool, secs: float) -> dict:
    v = g.ravel()
    vc = gc.ravel()
    vc = vc[np.isfinite(vc)]
    return {
        "median": float(np.median(v)) if v.size else float("nan"),
        "p90": float(np.quantile(v, 0.9)) if v.size else float("nan"),
        "max": float(v.max()) if v.size else float("nan"),
        "mean": float(v.mean()) if v.size else float("nan"),
        "within": float(np.mean(v <= thr + 1e-12)) if v.size else float("nan"),
        "median_clusters": float(np.median(vc)) if vc.size else float("nan"),
        "max_clusters": float(vc.max()) if vc.size else float("nan"),
        "memory_ok": bool(mem_ok),
        "seconds": secs,
    }


@fill_doc
@positional_deprecated("seed")
def gap_study(n_instances: int, *, seed: int = 0,
              variants: Mapping[str, Mapping[str, Any]] | None = None,
              deltas: tuple = DELTAS, n_seeds: int = 1, ranks=(2, 3),
              blocks_per_rank=(4, 8), tasks_per_block=(2, 4), load_sigma: float = 0.6,
              memory_cap: float | None = 1.3, clusters: bool = True,
              time_limit: float | None = 3.0, mip_gap: float = 1e-4, threshold: float = 0.018,
              progress: bool | Callable[[int, int], Any] | None = None) -> GapStudy:
    """Distribution of CCM-LB's gap to the GLPK optimum on small paper-style instances.

    Parameters
    ----------
    n_instances : int
        Number of seeded instances (:func:`paper_style_instance`; instance ``i`` uses
        ``deltas[i % len(deltas)]``); 200 gave the figures quoted above.
    seed : int, default 0
        Seed of the instance stream; identical seeds give identical studies.
    variants : mapping, optional
        Name -> :func:`wpart.tasks.balance` keyword arguments (default
        :data:`DEFAULT_VARIANTS`).
    deltas : tuple of float
        Homing coefficients cycled over the instances (beta = gamma = 0, alpha = 1: the
        paper's Gemma runs).
    n_seeds : int, default 1
        CCM-LB runs (seeds 0..n_seeds-1) per instance and variant.
    ranks, blocks_per_rank, tasks_per_block : (int, int)
        Inclusive ranges of the instance sizes (the paper's case has ~15 blocks per rank and
        ~10 tasks per block; GLPK needs smaller ones).
    load_sigma : float
        Spread of the generator's per-block time scale.
    memory_cap : float or None, default 1.3
        Per-rank cap as a multiple of the initial assignment's largest rank memory (None: no
        cap). Caps are checked on every CCM-LB result.
    clusters : bool, default True
        Also solve the cluster-preserving MILP (the floor of whole-cluster balancing).
    time_limit : float or None, default 3.0
        Seconds per MILP (GLPK's limit; None: none). A MILP stopped there counts in
        ``n_not_optimal``; its incumbent is then the reference.
    mip_gap : float
        Relative gap at which GLPK stops (1e-4 is the paper's Gurobi setting).
    threshold : float, default 0.018
        The paper's worst gap (1.8 %, Sec. VII-A) for the ``within`` fraction.
    progress : callable, optional
        Called as ``progress(done, total)`` after every instance (returning False stops the
        study with :class:`wpart.CancelledError`).

    Returns
    -------
    GapStudy

    {raises}
    """
    n_instances = as_int(n_instances, "n_instances", minimum=1, maximum=2**31 - 1)
    n_seeds = as_int(n_seeds, "n_seeds", minimum=1, maximum=2**31 - 1)
    seed = as_seed(seed)
    tl = as_time_limit(time_limit)
    threshold = as_float(threshold, "threshold", minimum=0.0)
    clusters = as_bool(clusters, "clusters")
    prog = as_progress(progress)
    if memory_cap is not None:
        memory_cap = as_float(memory_cap, "memory_cap", minimum=0.0)
    if not deltas:
        raise WpartValueError("`deltas` must not be empty")
    var = dict(DEFAULT_VARIANTS if variants is None else variants)
    if not var:
        raise WpartValueError("`variants` must not be empty")
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    insts: list[dict] = []
    gaps = {k: np.full((n_instances, n_seeds), np.nan) for k in var}
    gapc = {k: np.full((n_instances, n_seeds), np.nan) for k in var}
    mem_ok = {k: True for k in var}
    secs = {k: 0.0 for k in var}
    n_not_opt = 0
    for i in range(n_instances):
        p, (I, K, N), gseed = paper_style_instance(
            rng, ranks=ranks, blocks_per_rank=blocks_per_rank, tasks_per_block=tasks_per_block,
            load_sigma=load_sigma)
        delta = float(deltas[i % len(deltas)])
        cap = None
        if memory_cap is not None:
            cap = float(memory_cap) * float(p.evaluate(delta=delta)["memory"].max())
        m = solve_milp(p, delta=delta, memory_cap=cap, time_limit=tl, mip_gap=mip_gap)
        if not m.success:
            raise _core.SolverError(f"instance {i}: GLPK found no placement ({m.message})")
        rec = {"I": I, "K": K, "N": N, "generator_seed": gseed, "delta": delta,
               "memory_cap": cap, "milp_status": m.status, "milp": m.max_load,
               "bound": m.stats["bound"], "milp_seconds": m.stats["seconds"],
               "initial": m.initial_max_load}
        # optimal up to the study's mip_gap (GLPK's stop): solve_milp says "optimal" only
        # within 1e-9 of its bound, "feasible" for an incumbent within mip_gap of it
        n_not_opt += not (m.status == "optimal" or (m.status == "feasible"
                                                   and m.stats.get("gap", math.inf) <= mip_gap))
        wc = float("nan")
        if clusters:
            try:
                mc = solve_milp(p, delta=delta, memory_cap=cap, preserve_clusters=True,
                                time_limit=tl, mip_gap=mip_gap)
                rec["clusters_status"] = mc.status
                if mc.success:
                    wc = mc.max_load
            except _core.SolverError:
                rec["clusters_status"] = "none"
            rec["clusters_opt"] = wc
        for k, kw in var.items():
            for s in range(n_seeds):
                t1 = time.perf_counter()
                r = balance(p, seed=s, delta=delta, memory_cap=cap, **kw)
                secs[k] += time.perf_counter() - t1
                if cap is not None and not np.all(r.memory <= cap * (1 + 1e-12)):
                    mem_ok[k] = False
                gaps[k][i, s] = r.max_load / m.max_load - 1.0 if m.max_load > 0 else 0.0
                if np.isfinite(wc) and wc > 0:
                    gapc[k][i, s] = r.max_load / wc - 1.0
        insts.append(rec)
        if not is_bool(prog) and prog(i + 1, n_instances) is False:
            raise CancelledError("stopped: the progress callback returned False")
    runs = n_instances * n_seeds
    summ = {k: _summary(gaps[k], gapc[k], threshold, mem_ok[k], secs[k] / runs) for k in var}
    opt = np.array([d["milp_status"] == "optimal" for d in insts])
    for k in var:
        so = _summary(gaps[k][opt], gapc[k][opt], threshold, mem_ok[k], 0.0)
        summ[k].update({"median_optimal": so["median"], "p90_optimal": so["p90"],
                        "max_optimal": so["max"], "within_optimal": so["within"]})
    params = {"n_instances": n_instances, "seed": seed, "deltas": list(map(float, deltas)),
              "n_seeds": n_seeds, "ranks": list(ranks), "blocks_per_rank": list(blocks_per_rank),
              "tasks_per_block": list(tasks_per_block), "load_sigma": load_sigma,
              "memory_cap": memory_cap, "time_limit": tl, "mip_gap": mip_gap}
    secs = time.perf_counter() - t0
    msg = (f"{n_instances} instances x {n_seeds} seed(s) x {len(var)} variant(s); "
           f"{n_not_opt} MILP(s) stopped at the time limit (their gap is a lower estimate)")
    return GapStudy(status="feasible", message=msg, instances=insts, gaps=gaps,
                    gaps_clusters=gapc, summary=summ,
                    variants={k: dict(v) for k, v in var.items()}, threshold=float(threshold),
                    n_not_optimal=int(n_not_opt), seconds=secs, params=params,
                    stats={"seconds": secs, "runs": runs * len(var)})


@fill_doc
@renamed(n_ranks="m")
@positional_deprecated("m", "n_tasks", "n_blocks", "instances", "n_seeds")
def paper_scale_study(*, m: int = 14, n_tasks: int = 1959, n_blocks: int = 206,
                      instances: int = 3, n_seeds: int = 6,
                      variants: Mapping[str, Mapping[str, Any]] | None = None,
                      load_sigma: float = 1.0) -> dict:
    """CCM-LB at the paper's Fig. 4a size (delta = 0, no caps) against the lower bound
    ``max(sum L / m, max L)`` (an exact MILP is out of GLPK's reach at this size; with pinned
    tasks also the largest pinned load of a rank, :attr:`TasksResult.lower_bound`'s bound).

    `m` is the number of ranks (``n_ranks=`` is a deprecated alias). Returns a dict with, per
    variant, ``gap_min``/``gap_median``/``gap_max`` (``W / bound - 1`` over all instances and
    seeds) and ``seconds`` (mean CCM-LB time), plus ``initial`` (the co-located start's gap
    per instance). Instance ``g`` is ``gemma_like(..., seed=g)``.

    Parameters
    ----------
    m : int, optional
        Number of parts (processors).
    n_tasks : int, optional
        Number of tasks.
    n_blocks : int, optional
        Number of shared memory blocks.
    instances : int, optional
        Number of instances.
    n_seeds : int, optional
        Seeds per instance.
    variants : Mapping[str, Mapping[str, object]] or None, optional
        Option sets of :func:`balance` by name (default: the study's).
    load_sigma : float, optional
        Spread (log-normal sigma) of the task times.

    Returns
    -------
    dict
        Per variant ``gap_min``, ``gap_median``, ``gap_max`` and ``seconds``, plus ``initial``.

    {raises}
    """
    m = as_m(m, "m")
    instances = as_int(instances, "instances", minimum=1)
    n_seeds = as_int(n_seeds, "n_seeds", minimum=1)
    var = dict(DEFAULT_VARIANTS if variants is None else variants)
    if not var:
        raise WpartValueError("`variants` must not be empty")
    gaps = {k: [] for k in var}
    secs = {k: 0.0 for k in var}
    init = []
    for g in range(instances):
        p = gemma_like(m=m, n_tasks=n_tasks, n_blocks=n_blocks, seed=g,
                       load_sigma=load_sigma)
        lb = load_bound(p, Coefficients())
        init.append(float(p.evaluate()["w_max"]) / lb - 1.0)
        for k, kw in var.items():
            for s in range(n_seeds):
                t1 = time.perf_counter()
                w = balance(p, seed=s, **kw).max_load
                secs[k] += time.perf_counter() - t1
                gaps[k].append(w / lb - 1.0)
    out: dict[str, Any] = {"m": m, "n_tasks": n_tasks, "n_blocks": n_blocks,
                           "initial": init, "variants": {k: dict(v) for k, v in var.items()}}
    for k in var:
        a = np.array(gaps[k])
        out[k] = {"gap_min": float(a.min()), "gap_median": float(np.median(a)),
                  "gap_max": float(a.max()), "seconds": secs[k] / a.size}
    return out
