"""The family subcommands of the ``wpart`` command line (``wpart.cli`` registers them).

Exit codes, for every subcommand: 0 done (an infeasible instance is an answer: its status is
printed); 1 input refused, or an output file that cannot be written (the message names the
file and the field or option); 2 usage error (a bad option or value, or a value the input
cannot take, named as the user typed the option, an option that has no effect, an output
path that is an input or not an image format; argparse's own status); 3 a time limit was
reached without a result; 130 / 143 ended by SIGINT / SIGTERM (``wpart.cli.main``).
Progress goes to stderr, results to stdout (and to ``--json`` / ``--plot`` files when asked).

Output files are whole or untouched: every output path is checked before any computing (its
folder exists and can be written, it is not a folder, not an input, ``--plot`` names an image
format), each output is written to a temporary file beside its target, and the set is renamed
into place at the end, or, on any failure, the temporary files are removed and the previous
files stay as they were.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ._errors import WpartValueError
from ._cli_io import (EXIT_CODES, EXIT_OK, EXIT_REFUSED, EXIT_TIME_LIMIT, EXIT_USAGE, Outputs,
                      OPTION_NAMES, UsageError, _finite, _integer, _missing, _number,
                      _plot_path, _status, cli_message, name_options, option_error,
                      read_loads_file, read_matrix_file)

#: subcommand -> the example shown at the end of its --help (the docs' tests run them all)
EXAMPLES: dict[str, list[str]] = {
    "spatial": ["wpart spatial loads.npy -m 16 --method jag_m_opt --time-limit 10 "
                "--json out.json --plot out.png"],
    "tasks": ["wpart tasks data --method ccm --memory-cap 1e9 --out balanced "
              "--json out.json"],
    "tasks check": ["wpart tasks check data"],
    "hetero": ["wpart hetero profiles.csv -n 2560 --front time-energy --json front.json "
               "--plot front.png"],
    "dynamic simulate": ["wpart dynamic simulate linear4 --balancer plbhac --json sim.json"],
    "multikernel run": ["wpart multikernel run saxpy --input 1M --runs 5"],
    "compare": ["wpart compare spatial loads.npy -m 16 --time-limit 5",
                "wpart compare hetero profiles.csv -n 2560"],
}


def _epilog(name: str) -> str:
    ex = "\n".join(f"  {e}" for e in EXAMPLES[name])
    return f"example:\n{ex}\n\n{EXIT_CODES}"


def _sub(sub: Any, name: str, prog_name: str, help: str, description: str) -> Any:
    return sub.add_parser(
        name, help=help, description=description, epilog=_epilog(prog_name),
        formatter_class=argparse.RawDescriptionHelpFormatter)


def add_parsers(sub: Any) -> None:
    """Register the family subcommands on `sub` (the ``add_subparsers`` object).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommand registry of the ``wpart`` parser.

    Returns
    -------
    None
    """
    count, natural = _integer(1), _integer(0)
    seed, states = _integer(0, 2**64 - 1), _integer(1, 2**63 - 1)
    sp = _sub(sub, "spatial", "spatial", "partition a 2D load matrix into m rectangles",
              "Partition a 2D load matrix (.mtx MatrixMarket, .npy, or .csv of numbers) into m "
              "rectangles and print the quality of the split.")
    sp.add_argument("file", type=Path, metavar="FILE", help="the load matrix (.mtx, .npy, .csv)")
    sp.add_argument("-m", type=count, required=True, help="number of rectangles (processors)")
    sp.add_argument("--method", default="jag_m_heur_probe",
                    help="a method of wpart.spatial.METHODS (default jag_m_heur_probe)")
    sp.add_argument("--P", type=count, default=None,
                    help="rows of the P x Q grid methods (stripes of jag_m_heur*); alone, "
                         "Q = m / P")
    sp.add_argument("--Q", type=count, default=None,
                    help="columns of the P x Q grid methods; alone, P = m / Q")
    sp.add_argument("--weights", choices=("values", "count", "stored"), default="values",
                    help="the loads: the values (default), 1 per nonzero (count) or 1 per "
                         "stored entry (stored)")
    sp.add_argument("--allow-empty", action="store_true",
                    help="accept empty rectangles (m larger than the cells, or a P x Q grid "
                         "larger than the matrix)")
    sp.add_argument("--max-states", type=states, default=None,
                    help="the most DP states of hier_opt (default 2e7)")
    _common(sp, time_limit=True, plot=True)

    tp = _sub(sub, "tasks", "tasks", "place tasks of an LBDatafile set on ranks (serially)",
              "Read an LBDatafile set (STEM.0.json, STEM.1.json, ... or a folder), balance it "
              "in this process (no mpirun) and print the largest work of a rank. "
              "`wpart tasks check STEM` validates a set instead.")
    tp.add_argument("stem", metavar="STEM", help="the data-file set: a stem, a folder or a file")
    tp.add_argument("--method", default="ccm", help="a method of wpart.tasks.METHODS (default ccm)")
    tp.add_argument("--memory-cap", type=_number(positive=False), default=None,
                    help="memory cap per rank")
    tp.add_argument("--out", default=None, metavar="STEM2",
                    help="write the balanced set as STEM2.<rank>.json (the folder must exist)")
    tp.add_argument("--seed", type=seed, default=0, help="seed of the randomised methods")
    tp.add_argument("--allow-infeasible-start", action="store_true",
                    help="ccm, tempered: start from a placement above --memory-cap (the moves "
                         "then look for one within it) instead of refusing it")
    tp.add_argument("--max-states", type=states, default=None,
                    help="brute_force: the most assignments enumerated (default 2e7)")
    _common(tp, time_limit=True, plot=False)

    tc = _sub(sub, "tasks-check", "tasks check",
              "`wpart tasks check STEM`: validate an LBDatafile set (exit 0 or 1)",
              "Validate an LBDatafile set: every file is read and checked on its own, then "
              "the set as a whole; every problem found is printed, one per line. Exit 0 when "
              "the set is valid, 1 otherwise.")
    tc.prog = "wpart tasks check"
    tc.add_argument("stem", metavar="STEM", help="the data-file set: a stem, a folder or files")

    hp = _sub(sub, "hetero", "hetero", "distribute a workload over processors with profiles",
              "Distribute n units over processors given their time (and energy) profiles: "
              "one CSV (processor,size,time[,energy]) or one `size time [energy]` file per "
              "processor. Prints the time-optimal distribution, or the time-energy front. "
              "A workload the processors cannot take is an answer (status infeasible, exit 0).")
    hp.add_argument("profiles", nargs="+", type=Path, metavar="PROFILES",
                    help="a CSV file, or one `size time [energy]` file per processor")
    hp.add_argument("-n", type=natural, required=True, help="workload (units) to distribute")
    hp.add_argument("--front", choices=("time-energy",), default=None,
                    help="the exact time x dynamic-energy Pareto front instead of one split")
    hp.add_argument("--clamp-negative", action="store_true",
                    help="read a negative measured energy as 0 (noise) instead of refusing it")
    _common(hp, time_limit=True, plot=True)

    dp = _sub(sub, "dynamic", "dynamic simulate", "run-time balancing on a simulated platform",
              "`wpart dynamic simulate PLATFORM --balancer NAME`: simulate a balancer on a "
              "preset platform (paper5, adapt2, hetero3, linear4) or a platform JSON file "
              "(the README's layout: name, total, sigma, devices).")
    dsub = dp.add_subparsers(dest="action", metavar="ACTION", required=True)
    ds = _sub(dsub, "simulate", "dynamic simulate", "simulate one balancer",
              "Simulate one balancer on a platform and print the makespan and idle times.")
    ds.prog = "wpart dynamic simulate"
    ds.add_argument("platform", metavar="PLATFORM", help="a preset name or a JSON file")
    ds.add_argument("--balancer", required=True,
                    help="a name of wpart.dynamic.BALANCERS (plbhac, greedy, hdss, ...)")
    ds.add_argument("--seed", type=seed, default=0, help="seed of the simulated noise")
    ds.add_argument("-n", type=states, default=None,
                    help="elements (default: the platform's)")
    _common(ds, time_limit=True, plot=True)

    mp = _sub(sub, "multikernel", "multikernel run", "multi-kernel runs on a simulated CPU+GPU",
              "`wpart multikernel run BENCH`: the decision loop (profile, split, rebalance) "
              "over simulated runs of one of the paper's benchmarks on its platform P2.")
    msub = mp.add_subparsers(dest="action", metavar="ACTION", required=True)
    mr = _sub(msub, "run", "multikernel run", "simulated runs of one benchmark",
              "Run one benchmark of the paper (filter, fft, nbody, saxpy, segmentation) on the "
              "simulated platform P2, calibrated to the paper's Table 2, through the decision "
              "loop; prints the GPU share and the time of each run.")
    mr.prog = "wpart multikernel run"
    mr.add_argument("bench", metavar="BENCH", help="filter, fft, nbody, saxpy or segmentation")
    mr.add_argument("--input", default=None,
                    help="the Table 2 input (e.g. 1M, 128MB, 16384; default: the first)")
    mr.add_argument("--gpus", type=int, choices=(1, 2), default=1, help="number of GPUs")
    mr.add_argument("--runs", type=count, default=5, help="number of runs (default 5)")
    _common(mr, time_limit=False, plot=False)

    cp = _sub(sub, "compare", "compare", "run every method of a family and tabulate them",
              "Run every applicable method of a family on one input with a time limit per "
              "method and print method, objective, gap to the best bound, seconds and status, "
              "then a status line (the best method's status; with no answer: infeasible, "
              "time_limit or error, exit 0, 3 or 1). "
              "FAMILY INPUT: 1d FILE -m M; spatial FILE -m M; tasks STEM; hetero PROFILES -n N; "
              "dynamic PLATFORM. An option of another family is refused (exit 2).")
    cp.add_argument("family", choices=("1d", "spatial", "tasks", "hetero", "dynamic"),
                    metavar="FAMILY", help="1d, spatial, tasks, hetero or dynamic")
    cp.add_argument("inputs", nargs="+", metavar="INPUT", help="the family's input file(s)")
    cp.add_argument("-m", type=count, default=None, help="parts (1d, spatial)")
    cp.add_argument("-n", type=natural, default=None, help="workload (hetero)")
    cp.add_argument("--seeds", type=count, default=None,
                    help="seeds per balancer (dynamic; default 3)")
    cp.add_argument("--weights", choices=("values", "count", "stored"), default=None,
                    help="spatial: the loads (as for `wpart spatial`; default values)")
    cp.add_argument("--clamp-negative", action="store_true", default=None,
                    help="hetero: read a negative measured energy as 0")
    cp.add_argument("--time-limit", type=_number(positive=True), default=10.0,
                    help="seconds per method (default 10)")
    cp.add_argument("--json", type=Path, default=None, metavar="OUT",
                    help="write the table as JSON")
    cp.add_argument("--plot", type=_plot_path, default=None, metavar="OUT.png",
                    help="draw the table (a bar per method) into an image file (.png, .pdf, "
                         ".svg, ...)")
    cp.add_argument("--no-progress", dest="progress", action="store_false",
                    help="no progress lines on stderr")


#: compare: the options that only one family (or two) reads -> those families
_COMPARE_OPTIONS = {"m": ("1d", "spatial"), "n": ("hetero",), "seeds": ("dynamic",),
                    "weights": ("spatial",), "clamp_negative": ("hetero",)}


def _common(p: Any, *, time_limit: bool, plot: bool) -> None:
    if time_limit:
        p.add_argument("--time-limit", type=_number(positive=True), default=None,
                       help="seconds (default: no limit)")
    p.add_argument("--json", type=Path, default=None, metavar="OUT",
                   help="write the result as JSON")
    if plot:
        p.add_argument("--plot", type=_plot_path, default=None, metavar="OUT.png",
                       help="draw the result into an image file (.png, .pdf, .svg, ...)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar on stderr")


def run(args: argparse.Namespace) -> int:
    """Run the family subcommand parsed into `args`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``args.command`` names the subcommand).

    Returns
    -------
    int
        The exit status: 0 done, 1 input refused or an output not writable, 2 a usage error
        found after parsing (argparse exits with 2 itself for its own; a library error about
        an option's value, :func:`wpart._cli_io.option_error`), 3 a time limit reached
        without a result.

    Raises
    ------
    WpartError
        Never: input errors are printed and give status 1, usage errors status 2.
    """
    from ._errors import WpartError

    fn = {"spatial": _spatial, "tasks": _tasks, "tasks-check": _tasks_check,
          "hetero": _hetero, "dynamic": _dynamic, "multikernel": _multikernel,
          "compare": _compare}[args.command]
    name = f"wpart {args.command.replace('-', ' ')}"
    out = Outputs()
    try:
        return fn(args, out)
    except UsageError as e:
        print(f"{name}: error: {_say(e, args)}", file=sys.stderr)
        return EXIT_USAGE
    except WpartError as e:  # a bad option value (named as typed) or a refused input
        print(f"{name}: error: {_say(e, args)}", file=sys.stderr)
        return EXIT_USAGE if option_error(e, args.command) else EXIT_REFUSED
    except OSError as e:  # an output file that cannot be written
        print(f"{name}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED
    finally:
        out.discard()  # after a failure: no temporary file left, no output switched


def _say(e: BaseException, args: argparse.Namespace) -> str:
    """The message of `e` in the command line's words: its flags in the hints, its options
    named as the user typed them (``--max-states``, not ``max_states``), on one line."""
    return " ".join(name_options(cli_message(str(e), args), args.command).split())


# ------------------------------------------------------------------------ subcommands ----

def _matrix_input(path: Path) -> Any:
    """What the spatial commands pass on: a MatrixMarket file as its path (the library reads
    it, so ``--weights`` counts its entries as stored, duplicates and explicit zeros included,
    and its errors name the file), any other file as the array read."""
    if path.name.lower().endswith((".mtx", ".mtx.gz", ".mtx.bz2")):
        if not path.is_file():
            raise _missing("FILE", path)
        return path
    return read_matrix_file(path)


@contextlib.contextmanager
def _naming(path: Path, command: str) -> Iterator[None]:
    """A refused input names the file (where the library has not; not an error of an
    option's value); :func:`cli_message` then names the command's own options instead of the
    keywords."""
    from ._errors import WpartError

    try:
        yield
    except WpartError as e:
        msg = str(e)
        if option_error(e, command):
            raise
        if str(path) not in msg:
            msg = f"{path}: {msg}"
        if msg == str(e):
            raise
        raise type(e)(msg) from e


def _method_options(table: Any, args: argparse.Namespace, given: dict[str, bool]) -> None:
    """An unknown ``--method``, or an option (``given``: API keyword -> whether it was given)
    that the method does not take: a usage error naming the option, before any input is
    read."""
    try:
        meth = table.choose(args.method)
    except WpartValueError as e:
        raise UsageError(name_options(str(e), args.command)) from None
    for opt, on in given.items():
        if on and opt not in meth.options:
            takes = [m.name for m in table.methods if opt in m.options]
            flag = OPTION_NAMES[args.command][opt]
            raise UsageError(f"{flag}: method {meth.name} takes no {flag} (it has no effect "
                             f"there); the methods that do: {', '.join(takes)}")


def _spatial(args: argparse.Namespace, out: Outputs) -> int:
    from . import spatial

    _method_options(spatial.TABLE, args, {"P": args.P is not None, "Q": args.Q is not None,
                                          "max_states": args.max_states is not None})
    out.add("--json", args.json)
    out.add("--plot", args.plot)
    out.check([args.file])
    A = _matrix_input(args.file)
    kw: dict[str, Any] = {"weights": args.weights}
    if args.P is not None:
        kw["P"] = args.P
    if args.Q is not None:
        kw["Q"] = args.Q
    if args.allow_empty:
        kw["allow_empty"] = True
    if args.max_states is not None:
        kw["max_states"] = args.max_states
    if args.time_limit is not None:
        kw["time_limit"] = args.time_limit
    with _naming(args.file, "spatial"):
        r = spatial.partition(A, args.m, method=args.method, **kw)
    print(f"[wpart spatial] {args.file}: {r.shape[0]} x {r.shape[1]}, m = {args.m}, "
          f"method {args.method}", file=sys.stderr)
    print(f"method {r.method}  status {r.status}  max_load {r.max_load:.6g}  "
          f"lower_bound {r.lower_bound:.6g}  imbalance {r.imbalance:.3%}")
    d = r.to_dict()
    d.pop("A", None)
    d["file"] = str(args.file)
    out.finish(d, r)
    return _status(r)


def _set_inputs(stem: Any) -> list[Path]:
    """The files of the LBDatafile set `stem` (none when it names none: the reader says so)."""
    from .tasks import _io

    try:
        files = [Path(f) for f in _io._expand(stem)]
    except Exception:  # noqa: BLE001 -- reading the set reports it, naming the file
        return []
    if files:
        m = re.match(r"^(.*)\.\d+\.json$", str(files[0]))
        if m:
            files.append(Path(m.group(1) + ".wpart-set.json"))
    return files


def _tasks(args: argparse.Namespace, out: Outputs) -> int:
    import numpy as np

    from . import tasks

    _method_options(tasks.TABLE, args, {
        "allow_infeasible_start": args.allow_infeasible_start,
        "max_states": args.max_states is not None})
    inputs = _set_inputs(args.stem)
    out.add("--json", args.json)
    out.add_set("--out", args.out)
    out.check(inputs)
    p = tasks.read_lbdatafile(args.stem)
    out.check_set(p.m, inputs)
    print(f"[wpart tasks] {args.stem}: {p}".splitlines()[0], file=sys.stderr)
    kw: dict[str, Any] = {"method": args.method, "memory_cap": args.memory_cap,
                          "seed": args.seed, "progress": args.progress}
    if args.allow_infeasible_start:
        kw["allow_infeasible_start"] = True
    if args.max_states is not None:
        kw["max_states"] = args.max_states
    if args.time_limit is not None:
        kw["time_limit"] = args.time_limit
    r = tasks.balance(p, **kw)
    work = np.asarray(r.work, float)
    max_work = float(work.max()) if work.size else 0.0
    print(f"method {r.method}  status {r.status}  max_work {max_work:.6g}  "
          f"initial {float(r.initial_max_load):.6g}  lower_bound {float(r.lower_bound):.6g}")
    write_set = args.out is not None and r.success
    if args.out is not None and not r.success:
        print(f"no set written to {args.out}: status {r.status}, no assignment to write",
              file=sys.stderr)
    from .tasks._io_set import rank_path

    written = [rank_path(args.out, k) for k in range(p.m)] if write_set else []
    out.write_json("--json", _finite({
        "stem": str(args.stem), "method": r.method, "status": r.status, "message": r.message,
        "success": r.success, "max_work": max_work, "work": work.tolist(),
        "initial_max_work": float(r.initial_max_load), "lower_bound": float(r.lower_bound),
        "assignment": np.asarray(r.assignment).tolist(), "written": written}))

    def write() -> list[str]:
        return tasks.write_lbdatafile(p, args.out, assignment=r.assignment)

    if write_set:
        files = out.commit(write)
        print(f"wrote {len(files)} files: {args.out}.*", file=sys.stderr)
    else:
        out.commit()
    return _status(r)


def check_lbdatafile_set(stem: Any) -> list[str]:
    """Every problem of an LBDatafile set, one message per problem (empty when valid).

    Each file is read and checked on its own (its JSON, its rank, its phase's fields), then
    the set as a whole (rank gaps, one output set, communication edges, shared blocks) when
    every file passed.

    Parameters
    ----------
    stem : str or path
        A stem (``STEM.<rank>.json``), a folder or one file.

    Returns
    -------
    list of str
        The problems, each naming its file and field.

    Raises
    ------
    WpartFileNotFoundError
        If no file of the set exists.
    """
    from .tasks import _io, read_lbdatafile

    files = _io._expand(stem)
    problems: list[str] = []
    loaded: dict[int, tuple[str, Any]] = {}
    for f in files:
        try:
            doc = _io._load_vom(f) if f.endswith(".vom") else _io._load_json(f)
            if not isinstance(doc, dict):
                raise _io.LBDatafileError(f"{f}: top level must be an object")
            meta = doc.get("metadata", {})
            rank = meta.get("rank", _io._rank_from_name(f)) if isinstance(meta, dict) else None
            if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
                raise _io.LBDatafileError(f"{f}: metadata.rank: missing or invalid, and no "
                                          "rank in the file name")
            if rank in loaded:
                raise _io.LBDatafileError(f"{f}: rank {rank} already read from "
                                          f"{loaded[rank][0]}")
            loaded[rank] = (f, doc)
        except Exception as e:  # noqa: BLE001 -- report every file's problem
            problems.append(str(e))
    if loaded:
        m = max(loaded) + 1
        for rank in sorted(loaded):
            f, doc = loaded[rank]
            try:
                _io._parse_phase(f, doc, rank, m, None, None, strict=True, extra={})
            except Exception as e:  # noqa: BLE001
                problems.append(str(e))
    if not problems:
        try:
            read_lbdatafile(files)
        except Exception as e:  # noqa: BLE001
            problems.append(str(e))
    return problems


def _tasks_check(args: argparse.Namespace, out: Outputs) -> int:
    from ._errors import WpartFileNotFoundError

    try:
        problems = check_lbdatafile_set(args.stem)
    except WpartFileNotFoundError as e:
        problems = [str(e)]
    for p in problems:
        print(p)
    if problems:
        print(f"{args.stem}: {len(problems)} problem(s)", file=sys.stderr)
        return EXIT_REFUSED
    print(f"{args.stem}: valid")
    return EXIT_OK


def read_profiles(paths: list[Path], *, clamp_negative: bool = False) -> Any:
    """A :class:`wpart.hetero.ProfileSet` from one CSV file or one file per processor.

    Parameters
    ----------
    paths : list of Path
        One ``.csv`` file (``processor,size,time[,energy]``), or several ``size time
        [energy]`` files.
    clamp_negative : bool, default False
        Read a negative measured energy as 0 instead of refusing it.

    Returns
    -------
    ProfileSet
        The profiles.

    Raises
    ------
    WpartFileNotFoundError
        If a file does not exist.
    WpartValueError
        If a file cannot be read (the message names it).
    """
    from .hetero import Profile, ProfileSet

    for p in paths:
        if not p.is_file():
            raise _missing("PROFILES", p)
    if len(paths) == 1 and paths[0].suffix.lower() == ".csv":
        return ProfileSet.from_csv(paths[0], clamp_negative=clamp_negative)
    return ProfileSet(tuple(Profile.from_file(p, clamp_negative=clamp_negative)
                            for p in paths))


def _hetero(args: argparse.Namespace, out: Outputs) -> int:
    from . import hetero

    out.add("--json", args.json)
    out.add("--plot", args.plot)
    out.check(args.profiles)
    ps = read_profiles(args.profiles, clamp_negative=args.clamp_negative)
    tl = args.time_limit
    print(f"[wpart hetero] {len(args.profiles)} file(s): {ps.m} processors, n = {args.n}",
          file=sys.stderr)
    if args.front:
        f = hetero.pareto_front(ps, args.n, progress=args.progress, time_limit=tl)
        print(f"front {f.method}  status {f.status}  points {f.size}")
        if f.size:
            print(f"{'time':>12}  {'energy':>12}  distribution")
            for i in range(f.size):
                pt = f.point(i)
                print(f"{pt.time:12.6g}  {pt.energy:12.6g}  {list(map(int, pt.dist))}")
        else:
            print(f"[wpart hetero] {f.message}", file=sys.stderr)
        out.finish(f.to_dict(), f, None if f.size else f"status {f.status}, no point to draw")
        return _status(f)
    d = hetero.optimal_time(ps, args.n, progress=args.progress, time_limit=tl)
    dist = None if d.dist is None else list(map(int, d.dist))
    print(f"status {d.status}  time {d.time:.6g}  energy {d.energy:.6g}  distribution {dist}")
    if d.dist is None:
        print(f"[wpart hetero] {d.message}", file=sys.stderr)
    out.finish(d.to_dict(), d,
               None if d.dist is not None else f"status {d.status}, no distribution to draw")
    return _status(d)


def read_platform(spec: str) -> Any:
    """A :class:`wpart.dynamic.Platform`: a preset name, or a JSON file in the README's layout.

    Parameters
    ----------
    spec : str
        A preset name (``paper5``, ``adapt2``, ``hetero3``, ``linear4``) or a path to a JSON
        file ``{"name", "total", "sigma", "devices": [{"kind", "family", ...}]}`` whose
        families are ``affine`` (t0, rate), ``saturating`` (t0, rate, bsat), ``power``
        (t0, c, beta) and ``table`` (x, t).

    Returns
    -------
    Platform or str
        The platform read from the file, or the preset name.

    Raises
    ------
    WpartValueError, WpartOSError
        If the file is not in that layout or cannot be read (the message names the file and
        the field: :meth:`wpart.dynamic.Platform.from_json`).
    """
    from ._errors import WpartError

    p = Path(spec)
    if not (p.suffix.lower() == ".json" or p.is_file()):
        return spec
    import wpart.dynamic as D

    try:  # (the reader names the file and the field's JSON path; unknown keys refused)
        return D.Platform.from_json(p)
    except WpartError as e:
        raise type(e)(f"PLATFORM: {e}") from None


def _platform_inputs(spec: str) -> list[Path]:
    """The platform file of `spec` (none for a preset name)."""
    return [Path(spec)] if Path(spec).is_file() else []


def _dynamic(args: argparse.Namespace, out: Outputs) -> int:
    import wpart.dynamic as D

    out.add("--json", args.json)
    out.add("--plot", args.plot)
    out.check(_platform_inputs(args.platform))
    try:  # an unknown balancer: a usage error before anything is read or printed
        D.BALANCERS.choose(args.balancer, "balancer")
    except WpartValueError as e:
        raise UsageError(name_options(str(e), args.command)) from None
    pl = read_platform(args.platform)
    if isinstance(pl, str):
        from .dynamic._sim import PRESET_NAMES

        if pl not in PRESET_NAMES:
            raise UsageError(f"PLATFORM: {pl!r} is neither a preset name "
                             f"({', '.join(PRESET_NAMES)}) nor a platform JSON file")
    kw: dict[str, Any] = {"seed": args.seed, "trace": args.plot is not None}
    if args.n is not None:
        kw["n"] = args.n
    if args.time_limit is not None:
        kw["time_limit"] = args.time_limit
    print(f"[wpart dynamic] {args.platform}: balancer {args.balancer}", file=sys.stderr)
    r = D.simulate(pl, args.balancer, **kw)
    print(str(r))
    d = r.to_dict()
    d = {k: v for k, v in d.items() if k not in ("trace", "series")}
    out.finish(d, r)
    return _status(r)


def _multikernel(args: argparse.Namespace, out: Outputs) -> int:
    import tempfile

    from .multikernel import KnowledgeBase, sim

    out.add("--json", args.json)
    out.check([])
    entries = [inp for (b, inp) in sim.TABLE2 if b == args.bench]
    if not entries:
        raise UsageError(f"BENCH: {args.bench!r} is not a benchmark of Table 2; one of "
                         f"{', '.join(dict.fromkeys(b for b, _ in sim.TABLE2))}")
    inp = args.input or entries[0]
    if inp not in entries:
        raise UsageError(f"--input: {inp!r} is not a Table 2 input of {args.bench}; one "
                         f"of {', '.join(entries)}")
    pl, cost, units, entry = sim.calibrate_to_table2(args.bench, inp, n_gpus=args.gpus)
    print(f"[wpart multikernel] {args.bench} {inp} on the simulated platform P2 "
          f"({args.gpus} GPU), {args.runs} runs", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        kb = KnowledgeBase(Path(tmp) / "kb.json", autosave=False)
        r = sim.simulate_runs(pl, cost, units, runs=args.runs, kb=kb)
    print(str(r))
    print(f"{'run':>4}  {'GPU share':>9}  {'time':>10}")
    for i, (s, t) in enumerate(zip(r.s, r.T)):
        print(f"{i:>4}  {float(s):9.1%}  {float(t):10.4g}")
    out.write_json("--json", _finite({"bench": args.bench, "input": inp, "gpus": args.gpus,
                                      **r.to_dict()}))
    out.commit()
    return _status(r)


def _compare_options(args: argparse.Namespace) -> None:
    """The options of another family than `args.family`: a usage error naming the option
    (it would have no effect); the defaults of the family's own."""
    fam = args.family
    for dest, families in _COMPARE_OPTIONS.items():
        if getattr(args, dest) is not None and fam not in families:
            opt = f"-{dest}" if len(dest) == 1 else f"--{dest.replace('_', '-')}"
            raise UsageError(f"{opt}: has no effect with `wpart compare {fam}` (it is for "
                             f"{' and '.join(families)})")
    need = {"1d": "m", "spatial": "m", "hetero": "n"}
    if fam in need and getattr(args, need[fam]) is None:
        raise UsageError(f"-{need[fam]}: needed for `wpart compare {fam}`")
    if fam != "hetero" and len(args.inputs) != 1:
        raise UsageError(f"INPUT: `wpart compare {fam}` takes one input, got "
                         f"{len(args.inputs)}")


#: compare: the status of a table without an answer -> the exit status ("error" is raised)
_COMPARE_EXIT = {"infeasible": EXIT_OK, "time_limit": EXIT_TIME_LIMIT}


def _compare(args: argparse.Namespace, out: Outputs) -> int:
    fam, inputs, tl = args.family, args.inputs, args.time_limit
    _compare_options(args)
    files = {"1d": lambda: [Path(inputs[0])], "spatial": lambda: [Path(inputs[0])],
             "tasks": lambda: _set_inputs(inputs[0]),
             "hetero": lambda: [Path(x) for x in inputs],
             "dynamic": lambda: _platform_inputs(inputs[0])}[fam]()
    out.add("--json", args.json)
    out.add("--plot", args.plot)
    out.check(files)
    prog = args.progress
    if fam == "1d":
        from ._compare import compare_1d

        c = compare_1d(read_loads_file(Path(inputs[0])), args.m, time_limit=tl, progress=prog)
    elif fam == "spatial":
        from .spatial import compare

        c = compare(_matrix_input(Path(inputs[0])), args.m, time_limit=tl, progress=prog,
                    weights=args.weights or "values")
    elif fam == "tasks":
        from .tasks import compare as tcompare, read_lbdatafile

        c = tcompare(read_lbdatafile(inputs[0]), time_limit=tl, progress=prog)
    elif fam == "hetero":
        from .hetero import compare as hcompare

        c = hcompare(read_profiles([Path(x) for x in inputs],
                                   clamp_negative=bool(args.clamp_negative)),
                     args.n, time_limit=tl, progress=prog)
    else:
        from .dynamic._compare import compare as dcompare

        seeds = 3 if args.seeds is None else args.seeds
        c = dcompare(read_platform(inputs[0]), seeds=range(seeds), time_limit=tl,
                     progress=False)
    print(cli_message(str(c), args))
    refused = [r for r in c.table if r.get("status") == "refused"]
    if c.table and len(refused) == len(c.table):  # the input itself, not a method
        with (_naming(Path(inputs[0]), "compare") if fam in ("1d", "spatial")
              else contextlib.nullcontext()):
            raise WpartValueError(f"every method refused the input: {refused[0]['message']}")
    status = c.status
    print(f"status {status}: {c.message}")
    if status == "error":  # every method refused the input or failed: nothing is written
        from ._errors import WpartRuntimeError

        failed = [r for r in c.table if r.get("status") in ("error", "refused")]
        why = f": {failed[0]['method']}: {failed[0]['message']}" if failed else ""
        raise WpartRuntimeError(f"no method gave an answer (every one refused the input or "
                                f"failed){why}")
    out.finish(c.to_dict(), c,
               None if c.success else f"status {status}, no method gave an answer to draw")
    return EXIT_OK if c.success else _COMPARE_EXIT.get(status, EXIT_REFUSED)
