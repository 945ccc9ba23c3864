"""Write the docs' "which method when" tables from benchmarks/results/bench_compare.json.

One table per family: for each method, over the benchmark's instances of that family, the
range of its gap to the best bound, how often it was (one of) the best, its median time and
its statuses. ``python benchmarks/bench_compare.py`` remeasures them.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "benchmarks" / "results" / "bench_compare.json"
OUT = HERE / "_generated"


def _pct(x: float) -> str:
    return "inf" if x == float("inf") else f"{100 * x:.2f} %"


def table(runs: list[dict]) -> str:
    """The rst list-table of one family's runs."""
    obj = runs[0]["objective"]
    methods: dict[str, list] = {}
    for run in runs:
        vals = [r[obj] for r in run["table"] if r[obj] is not None]
        best = min(vals) if vals else None
        for r in run["table"]:
            methods.setdefault(r["method"], []).append((r, best))
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - method", f"     - gap of {obj} to the best bound (min - max)",
             "     - best on", "     - median seconds", "     - statuses"]
    for name, rows in methods.items():
        gaps = [r["gap"] for r, _ in rows if r["gap"] is not None]
        best_on = sum(1 for r, b in rows if r[obj] is not None and b is not None
                      and r[obj] <= b * (1 + 1e-12))
        secs = statistics.median(r["seconds"] for r, _ in rows)
        st = sorted({r["status"] for r, _ in rows})
        gap = f"{_pct(min(gaps))} - {_pct(max(gaps))}" if gaps else "-"
        lines += [f"   * - ``{name}``", f"     - {gap}", f"     - {best_on} of {len(rows)}",
                  f"     - {secs:.3g}", f"     - {', '.join(st)}"]
    inst = "; ".join(r["instance"] for r in runs)
    return "\n".join(lines) + f"\n\nInstances: {inst}.\n"


def main() -> None:
    """Write ``_generated/which_<family>.rst`` for every family in the benchmark data."""
    OUT.mkdir(exist_ok=True)
    doc = json.loads(SRC.read_text())
    fams: dict[str, list] = {}
    for run in doc["runs"]:
        fams.setdefault(run["family"], []).append(run)
    head = (f"Measured by ``benchmarks/bench_compare.py`` (time limit {doc['time_limit']:g} s "
            f"per method, {doc['machine']}, {doc['seconds']:.0f} s in all; "
            f"``benchmarks/results/bench_compare.json``).\n\n")
    for fam, runs in fams.items():
        (OUT / f"which_{fam}.inc").write_text(head + table(runs))
    (OUT / "which_multikernel.inc").write_text(multikernel_table())
    (OUT / "sarma_spatial.inc").write_text(sarma_table())
    (OUT / "api.rst").write_text(
        "API reference\n=============\n\nEvery public name of every family (each module's "
        "``__all__``). Each function documents its\nparameters, what it returns and what it "
        "raises.\n\n" + api_lists())


#: The modules of the API reference, in order.
API_MODULES = ["wpart", "wpart.spatial", "wpart.hetero", "wpart.tasks", "wpart.dynamic",
               "wpart.multikernel", "wpart.milp", "wpart.cli"]


def api_lists() -> str:
    """The autosummary lists of the API reference: every name of every module's ``__all__``
    (modules apart), so that a name added to ``__all__`` is documented without editing the
    page."""
    import importlib
    import inspect

    out = []
    for i, modname in enumerate(API_MODULES):
        mod = importlib.import_module(modname)
        names = [n for n in mod.__all__ if not inspect.ismodule(getattr(mod, n))]
        title = f"``{modname}``" + (" (base)" if i == 0 else "")
        out += [title, "-" * len(title), "", f".. currentmodule:: {modname}", "",
                ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        out += [f"   {n}" for n in names] + [""]
    return "\n".join(out)


def multikernel_table() -> str:
    """The simulated Table 2 rows of benchmarks/results/bench_multikernel.json: GPU only
    against the split over CPU and GPU."""
    doc = json.loads((SRC.parent / "bench_multikernel.json").read_text())
    rows = doc["simulator"]["table2"]
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - benchmark", "     - input", "     - GPUs", "     - GPU share",
             "     - configuration", "     - GPU only", "     - CPU + GPU", "     - speedup"]
    for r in rows:
        lines += [f"   * - {r['benchmark']}", f"     - {r['input']}", f"     - {r['gpus']}",
                  f"     - {r['full_share']:.1f} %", f"     - {r['full_config']}",
                  f"     - {r['gpu_only']:.3g}", f"     - {r['hybrid']:.3g}",
                  f"     - {r['speedup']:.2f}"]
    return ("Measured by ``benchmarks/bench_multikernel.py`` on the simulated platform P2 "
            "calibrated to the paper's Table 2 (times in the paper's milliseconds; "
            "``benchmarks/results/bench_multikernel.json``).\n\n" + "\n".join(lines) + "\n")


def sarma_table(path: Path | None = None) -> str:
    """The per-grid table of benchmarks/results/bench_spatial_sarma.json: its summary's counts
    of cases where the default ``rect_nicol`` was at or below the best of SARMA's nine
    algorithms (their SGO members from SARMA's library seed; and from both of its seeds) and
    at or below the CPU of SARMA's ``nic``, with the median CPU ratio of the cases; then every
    case above ``nic``'s CPU."""
    doc = json.loads((path or SRC.parent / "bench_spatial_sarma.json").read_text())
    cases, s = doc["cases"], doc["summary"]
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - grid", "     - cases", "     - max load <= best of nine",
             "     - ... from both seeds", "     - CPU <= ``nic``",
             "     - median ``nic`` / ``rect_nicol`` CPU"]
    rows = [(g, c["cases"], c["load_ok"], c["load_ok_both"], c["cpu_ok"],
             statistics.median(r["cpu_ratio_nic_over_wpart"] for r in cases
                               if f"{r['P']}x{r['Q']}" == g))
            for g, c in s["per_grid"].items()]
    rows.append(("all", s["cases"], s["load_goal_met"], s["load_goal_met_both"],
                 s["cpu_goal_met"], s["cpu_ratio_median_nic_over_wpart"]))
    for g, n, load, both, cpu, ratio in rows:
        lines += [f"   * - {g.replace('x', ' x ')}", f"     - {n}", f"     - {load}",
                  f"     - {both}", f"     - {cpu}", f"     - {ratio:.2f}"]
    slow = sorted((c for c in cases if not c["goal_cpu"]),
                  key=lambda c: c["cpu_ratio_nic_over_wpart"])
    tail = "; ".join(f"{c['matrix']} {c['P']} x {c['Q']} ({c['cpu_ratio_nic_over_wpart']:.2f})"
                     for c in slow)
    return ("Measured by ``benchmarks/bench_spatial_sarma.py --full`` "
            "(``benchmarks/results/bench_spatial_sarma.json``; SARMA's nine algorithms "
            "re-implemented, ``nic`` in C; CPU in interleaved loops, best of the repeats).\n\n"
            + "\n".join(lines) + f"\n\nAbove ``nic``'s CPU (``nic`` / ``rect_nicol``): "
            f"{tail or 'none'}.\n")


if __name__ == "__main__":
    main()
