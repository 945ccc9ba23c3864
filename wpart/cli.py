"""The ``wpart`` command line.

``wpart reproduce [FAMILY ...] [--quick] [--out DIR] [--no-progress]`` reruns the papers'
golden values and headline results for the chosen families (all by default), writes each
family's table, JSON and figures into ``DIR`` and prints the tables. Every headline figure of a
paper is printed beside ours with a verdict (MATCH / DIFFERS / NOT REGENERATED, see
:mod:`wpart.experiments._verdict`); per-family and overall counts close the output and all rows
go to ``DIR/verdicts.json``. The output closes with a *checks* line (golden values, theorems,
internal consistency: passed or FAILED per family) and, last, the *verdicts* line (the papers'
figures), e.g. ``verdicts: 55 MATCH, 35 DIFFERS, 8 NOT REGENERATED``; the two are never merged. The exit status is 0 when every check passed, 1 otherwise (2 for a usage
error): a DIFFERS verdict is a finding, not a failure.

Families register here in :data:`REPRODUCERS` as ``"module:function"`` strings; the module is
imported only when that family runs, so ``wpart --version`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["REPRODUCERS", "load_reproducer", "main", "summary_line"]

#: Family name -> ``"module:function"``; the function is called as
#: ``fn(out_dir: Path, quick: bool, progress: bool) -> dict`` and returns at least
#: ``{"ok": bool, "table": str}``, plus ``"verdicts"`` (list of row dicts) and ``"counts"``
#: (see :class:`wpart.experiments._verdict.Verdicts`).
REPRODUCERS: dict[str, str] = {
    "base": "wpart.experiments.base:run_base",
    "spatial": "wpart.experiments.spatial:run_spatial",
    "tasks": "wpart.experiments.tasks:run_tasks",
    "hetero": "wpart.experiments.hetero:run_hetero",
    "dynamic": "wpart.experiments.dynamic:run_dynamic",
    "multikernel": "wpart.experiments.multikernel:run_multikernel",
}


def load_reproducer(family: str) -> Callable[..., dict]:
    """Import and return the reproducer registered for `family`.

    Parameters
    ----------
    family : str
        A key of :data:`REPRODUCERS`.

    Returns
    -------
    callable
        ``fn(out_dir, quick, progress) -> dict``.

    Raises
    ------
    KeyError
        If `family` is not registered.
    """
    target = REPRODUCERS[family]
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


def _parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    from . import __version__

    from ._cli_families import EXIT_CODES

    ap = argparse.ArgumentParser(
        prog="wpart",
        description="Work partitioning for your own files (spatial, tasks, hetero, dynamic, "
                    "multikernel, compare), and the papers' golden values and headline "
                    "results (reproduce). `wpart COMMAND --help` shows each with an example.",
        epilog=f"example:\n  wpart spatial loads.npy -m 16 --json out.json\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--version", action="version", version=f"wpart {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    rp = sub.add_parser(
        "reproduce",
        help="rerun the golden values and headline results of one or more families",
        description=(
            "Rerun the golden values and headline results, write <family>_table.txt, "
            "<family>.json and figures into --out, and print the tables. Exit status 0 when "
            "every check ran and passed (it says nothing of how many of the papers' figures "
            "MATCH), 1 otherwise."
        ),
        epilog="example:\n  wpart reproduce spatial --quick --out results",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rp.add_argument(
        "families",
        nargs="*",
        metavar="FAMILY",
        help=f"families to run (default: all): {', '.join(REPRODUCERS)}",
    )
    rp.add_argument("--quick", action="store_true", help="small sizes, a few seconds per family")
    rp.add_argument("--out", type=Path, default=Path("results"),
                    help="output folder (default: results/)")
    rp.add_argument("--no-progress", dest="progress", action="store_false",
                    help="do not show progress bars")
    from ._cli_families import add_parsers

    add_parsers(sub)
    return ap, rp


def _reproduce(families: Sequence[str], out: Path, quick: bool, progress: bool) -> int:
    """Run the families; print each table, a checks line and the verdicts line last."""
    from .experiments import write_json
    from .experiments._verdict import VERDICTS, format_counts

    results: dict[str, str] = {}  # family -> "passed" / "FAILED" / "ERROR"
    totals = dict.fromkeys((*VERDICTS, "total"), 0)
    all_rows: dict[str, list] = {}
    for family in families:
        t0 = time.perf_counter()
        try:
            summary = load_reproducer(family)(out, quick, progress)
        except Exception:  # noqa: BLE001 -- report it, run the others, fail at the end
            traceback.print_exc()
            print(f"\n{family}: ERROR (see the traceback above); its checks and verdicts "
                  "are missing\n", flush=True)
            results[family] = "ERROR"
            continue
        results[family] = "passed" if summary.get("ok", False) else "FAILED"
        table = summary.get("table")
        if table:
            print(table)
        counts = summary.get("counts") or {}
        for k in totals:
            totals[k] += int(counts.get(k, 0))
        all_rows[family] = summary.get("verdicts", [])
        print(f"\n{family}: checks {results[family]} | "
              f"{format_counts(counts, 'verdicts') if counts else 'no paper figures'} | "
              f"{'quick' if quick else 'full'} run in {time.perf_counter() - t0:.1f} s; "
              f"outputs in {out}/\n", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "verdicts.json", {"quick": quick, "counts": totals, "families": all_rows,
                                       "checks": results})
    n = len(results)
    bad = [f"{f} ({r})" for f, r in results.items() if r != "passed"]
    where = f"{n} famil{'y' if n == 1 else 'ies'}: {', '.join(results)}"
    # checks (internal consistency) and verdicts (the papers' figures) on lines of their own;
    # the verdicts line is the last line
    if bad:
        print(f"checks (golden values, theorems, internal consistency): FAILED in "
              f"{', '.join(bad)}; of {where}")
    else:
        print(f"checks (golden values, theorems, internal consistency): passed in all {where}")
    print(f"the papers' headline figures beside ours ({totals['total']} rows"
          f"{', quick sizes' if quick else ''}): MATCH within the row's stated tolerance, "
          "DIFFERS with the reason, NOT REGENERATED with why")
    print(summary_line(totals))
    return 1 if bad else 0


def summary_line(counts: dict[str, int]) -> str:
    """The last line of ``wpart reproduce``: ``"verdicts: 12 MATCH, 3 DIFFERS, 2 NOT
    REGENERATED"`` (the counts of the papers' headline figures; checks are reported apart)."""
    from .experiments._verdict import VERDICTS

    return "verdicts: " + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``wpart`` command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 0 when every check passed, 1 when one failed. Usage errors (an
        unknown family, a bad option) exit with status 2 through :mod:`argparse`.

    Examples
    --------
    >>> from wpart.cli import main
    >>> main(["reproduce", "base", "--quick", "--out", "/tmp/wpart-results"])  # doctest: +SKIP
    0
    """
    ap, rp = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:2] == ["tasks", "check"]:  # `wpart tasks check STEM`, beside `wpart tasks STEM`
        argv = ["tasks-check", *argv[2:]]
    args = ap.parse_args(argv)
    if args.command is None:
        ap.print_help()
        return 2
    if args.command == "reproduce":
        unknown = [f for f in args.families if f not in REPRODUCERS]
        if unknown:
            rp.error(
                f"unknown famil{'y' if len(unknown) == 1 else 'ies'} "
                f"{', '.join(repr(u) for u in unknown)}; available: {', '.join(REPRODUCERS)}"
            )
        families = list(dict.fromkeys(args.families)) or list(REPRODUCERS)
        return _reproduce(families, args.out, args.quick, args.progress)
    if args.command != "reproduce":
        from ._cli_families import run

        return run(args)
    ap.error(f"unknown command {args.command!r}")  # unreachable: argparse checks subcommands
    return 2
