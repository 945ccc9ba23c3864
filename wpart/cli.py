"""The ``wpart`` command line.

``wpart reproduce [FAMILY ...] [--quick] [--out DIR] [--no-progress]`` reruns the papers'
golden values and headline results for the chosen families (all by default), writes each
family's table, JSON and figures into ``DIR`` and prints the tables. Every headline figure of a
paper is printed beside ours with a verdict (MATCH / DIFFERS / NOT REGENERATED, see
:mod:`wpart.experiments._verdict`); per-family and overall counts close the output and all rows
go to ``DIR/verdicts.json``. The output closes with a *checks* line (golden values, theorems,
internal consistency: passed or FAILED per family) and, last, the *verdicts* line (the papers'
figures), e.g. ``verdicts: 55 MATCH, 35 DIFFERS, 8 NOT REGENERATED``; the two are never merged.
The exit status is 0 when every check passed, 1 otherwise or when ``DIR`` cannot be made or
written (2 for a usage error): a DIFFERS verdict is a finding, not a failure.

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

from ._docs import fill_doc

__all__ = ["REPRODUCERS", "load_reproducer", "main", "summary_line"]

#: Family name -> ``"module:function"``; the function is called as
#: ``fn(out_dir: Path, *, quick: bool, progress: bool) -> dict`` and returns at least
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


#: The exit codes of ``wpart reproduce`` (the end of its ``--help``).
REPRODUCE_EXIT_CODES = ("exit status: 0 every check ran and passed (whatever the verdicts);\n"
                        "  1 a check failed, or --out cannot be made or written; 2 usage error;\n"
                        "  130 interrupted (Ctrl-C), 143 terminated (SIGTERM)")


def load_reproducer(family: str) -> Callable[..., dict]:
    """Import and return the reproducer registered for `family`.

    Parameters
    ----------
    family : str
        A key of :data:`REPRODUCERS`.

    Returns
    -------
    callable
        ``fn(out_dir, quick=, progress=) -> dict``.

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
        epilog=("example:\n  wpart reproduce spatial --quick --out results\n\n"
                f"{REPRODUCE_EXIT_CODES}"),
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
                    help="output folder, created if missing (default: results/)")
    rp.add_argument("--no-progress", dest="progress", action="store_false",
                    help="do not show progress bars")
    from ._cli_families import add_parsers

    add_parsers(sub)
    return ap, rp


def _reproduce(families: Sequence[str], out: Path, quick: bool, progress: bool) -> int:
    """Run the families; print each table, a checks line and the verdicts line last."""
    from .experiments import take_wide_tables, write_json
    from .experiments._verdict import VERDICTS, format_counts

    results: dict[str, str] = {}  # family -> "passed" / "FAILED" / "ERROR"
    totals = dict.fromkeys((*VERDICTS, "total"), 0)
    all_rows: dict[str, list] = {}
    for family in families:
        t0 = time.perf_counter()
        try:
            summary = load_reproducer(family)(out, quick=quick, progress=progress)
        except Exception:  # noqa: BLE001 -- report it, run the others, fail at the end
            traceback.print_exc()
            print(f"\n{family}: ERROR (see the traceback above); its checks and verdicts "
                  "are missing\n", flush=True)
            results[family] = "ERROR"
            continue
        results[family] = "passed" if summary.get("ok", False) else "FAILED"
        table = summary.get("table")
        if table:
            table = narrow_text(table)
            print(table)
            txt = out / f"{family}_table.txt"
            if txt.is_file():  # the file says what the screen says
                txt.write_text(table + "\n")
        wide = _write_wide_tables(out, family, take_wide_tables())
        if wide:
            print(_wrap(f"({len(wide)} wide table(s) wrapped above; every column in full in "
                        f"{', '.join(str(w) for w in wide)})"))
        counts = summary.get("counts") or {}
        for k in totals:
            totals[k] += int(counts.get(k, 0))
        all_rows[family] = summary.get("verdicts", [])
        print("\n" + _wrap(
            f"{family}: checks {results[family]} | "
            f"{format_counts(counts, 'verdicts') if counts else 'no paper figures'} | "
            f"{'quick' if quick else 'full'} run in {time.perf_counter() - t0:.1f} s; "
            f"outputs in {out}/") + "\n", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "verdicts.json", {"quick": quick, "counts": totals, "families": all_rows,
                                       "checks": results})
    n = len(results)
    bad = [f"{f} ({r})" for f, r in results.items() if r != "passed"]
    # checks (internal consistency) and verdicts (the papers' figures) on lines of their own;
    # the verdicts line is the last line
    # the last three lines, each at most 120 characters: checks, the verdicts' legend, counts
    print(_wrap(f"families run: {', '.join(results)}; the exit status is 0 when every check "
                "ran and passed, whatever the verdicts"))
    if bad:
        print(f"checks (golden values, theorems, internal consistency): FAILED in "
              f"{', '.join(bad)}; of {n} famil{'y' if n == 1 else 'ies'}")
    else:
        print(f"checks (golden values, theorems, internal consistency): passed in all {n} "
              "families" if n > 1 else "checks (golden values, theorems, internal "
              f"consistency): passed in {', '.join(results)}")
    print(f"paper figures beside ours ({totals['total']} rows{', quick' if quick else ''}): "
          "MATCH within tolerance, DIFFERS with a reason, NOT REGENERATED: why")
    print(summary_line(totals))
    return 1 if bad else 0


def narrow_text(text: str, width: int = 120) -> str:
    """`text` with no line wider than `width`: a block of aligned table lines (columns
    separated by two or more spaces, a dashed rule under the header) is re-set by
    :func:`wpart.experiments.format_table`, which wraps it and keeps it whole for a CSV file;
    any other long line is wrapped.

    Parameters
    ----------
    text : str
        A family's printed tables and notes.
    width : int, optional
        The widest line allowed (default 120).

    Returns
    -------
    str
        The narrowed text.

    Raises
    ------
    None
        Text that cannot be parsed as a table is wrapped instead.
    """
    import re

    from .experiments import format_table

    lines = text.split("\n")
    out: list[str] = []
    i = 0
    rule = re.compile(r"^-+(  +-+)+\s*$")
    while i < len(lines):
        if (i + 1 < len(lines) and rule.match(lines[i + 1])
                and any(len(x) > width for x in lines[i:i + 64])):
            j = i + 2
            while j < len(lines) and lines[j].strip() and not rule.match(lines[j]):
                j += 1
            head = re.split(r"\s{2,}", lines[i].strip())
            body = [re.split(r"\s{2,}", x.strip()) for x in lines[i + 2:j]]
            if body and all(len(r) == len(head) for r in body):
                def num(c: str) -> object:
                    try:
                        return int(c)
                    except ValueError:
                        try:
                            return float(c)
                        except ValueError:
                            return c
                out += format_table(head, [[num(c) for c in r] for r in body]).split("\n")
                i = j
                continue
        line = lines[i]
        out.append(_wrap(line, width) if len(line) > width else line)
        i += 1
    return "\n".join(out)


def _wrap(text: str, width: int = 120) -> str:
    """`text` wrapped at `width` characters (continuation lines indented by two)."""
    import textwrap

    return textwrap.fill(text, width, subsequent_indent="  ", break_on_hyphens=False)


def _write_wide_tables(out: Path, family: str, tables: list) -> list[Path]:
    """Write each wrapped table as ``<family>_wide_<k>.csv`` in `out`; return the paths."""
    import csv

    paths = []
    if not tables:
        return paths
    out.mkdir(parents=True, exist_ok=True)
    for k, (title, headers, rows) in enumerate(tables, 1):
        path = out / f"{family}_wide_{k}.csv"
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            if title:
                w.writerow([f"# {title}"])
            w.writerow(headers)
            w.writerows(rows)
        paths.append(path)
    return paths


@fill_doc
def summary_line(counts: dict[str, int]) -> str:
    """The last line of ``wpart reproduce``: ``"verdicts: 12 MATCH, 3 DIFFERS, 2 NOT
    REGENERATED"`` (the counts of the papers' headline figures; checks are reported apart).

    Parameters
    ----------
    counts : dict[str, int]
        Rows per verdict (``MATCH``, ``DIFFERS``, ``NOT REGENERATED``); a missing one is 0.

    Returns
    -------
    str
        The line.

    {raises}
    """
    from .experiments._verdict import VERDICTS

    return "verdicts: " + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)


@fill_doc
def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``wpart`` command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status. ``reproduce``: 0 when every check passed, 1 when one failed or
        ``--out`` cannot be made or written. The family subcommands: 0 done (an infeasible
        instance is an answer), 1 input refused or an output not writable, 2 a usage error
        found after parsing (an option value, or one the input cannot take: the message names
        the option as typed, ``--max-states``, not the keyword), 3 a time limit reached
        without a result. Usage errors that :mod:`argparse` finds (an unknown family, a bad
        option or value) exit with status 2 through it. While it runs, a warning is shown as
        one line ``warning: <message>`` on stderr, and SIGINT (Ctrl-C) or SIGTERM ends it as
        one line ``wpart: interrupted (SIGINT)`` on stderr and status 130 (SIGTERM: 143), no
        temporary file left and the previous output files untouched.

    {raises}

    Examples
    --------
    >>> from wpart.cli import main
    >>> main(["reproduce", "base", "--quick", "--out", "/tmp/wpart-results"])  # doctest: +SKIP
    0
    """
    from ._cli_io import one_line_warnings
    from ._interrupt import EXIT_STATUS, pending_signal, signal_number, signals_as_exceptions

    with signals_as_exceptions():  # SIGTERM ends the run as Ctrl-C does: outputs cleaned up
        signum = None
        try:
            with one_line_warnings():  # a warning is one line `warning: <message>` on stderr
                status = _main(argv)
        except KeyboardInterrupt as e:  # SIGINT, or SIGTERM (Terminated)
            signum = signal_number(e)
        signum = signum or pending_signal()  # a signal held back while the outputs switched
        if signum is None:
            return status
        return _interrupted(signum, EXIT_STATUS[signum])


def _interrupted(signum: int, status: int) -> int:
    """Say in one line on stderr that a signal ended the run; return `status`."""
    import signal

    try:
        print(f"wpart: interrupted ({signal.Signals(signum).name})", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr gone: nothing to say it on
        pass
    return status


def _main(argv: Sequence[str] | None) -> int:
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
        problem = _out_problem(args.out)
        if problem:
            print(f"wpart reproduce: error: --out: {problem}", file=sys.stderr)
            return 1
        return _reproduce(families, args.out, args.quick, args.progress)
    from ._cli_families import run

    return run(args)


def _out_problem(out: Path) -> str | None:
    """Why the folder `out` of ``wpart reproduce`` cannot take its outputs (None: it can; it is
    created if missing, with the folders above it)."""
    import os
    import secrets

    from ._errors import WpartError
    from .experiments import out_folder

    try:
        out_folder(out)
    except WpartError as e:
        return str(e)
    probe = out / f".wpart-probe.{secrets.token_hex(6)}.tmp"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as e:
        return f"{out}: cannot write in the folder: {e.strerror or e}"
    os.unlink(probe)
    return None
