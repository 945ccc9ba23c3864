"""The family subcommands of the ``wpart`` command line (``wpart.cli`` registers them).

Exit codes, for every subcommand: 0 done; 1 input refused (the message names the file and
the field); 2 usage error (a bad option; argparse's own status); 3 a time limit was reached
without a result. Progress goes to stderr, results to stdout (and to ``--json`` / ``--plot``
files when asked).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_TIME_LIMIT = 0, 1, 2, 3

EXIT_CODES = ("exit status: 0 done; 1 input refused (the message names the file and the "
              "field); 2 usage error; 3 time limit reached without a result")

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


def _missing(label: str, path: Any) -> Exception:
    """The error for a command-line file that is not a readable file: a folder is named as one
    (not "no such file")."""
    from ._errors import WpartFileNotFoundError, WpartValueError

    if Path(path).is_dir():
        return WpartValueError(f"{label}: {path}: is a directory, not a file")
    return WpartFileNotFoundError(f"{label}: {path}: no such file")


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
    sp = _sub(sub, "spatial", "spatial", "partition a 2D load matrix into m rectangles",
              "Partition a 2D load matrix (.mtx MatrixMarket, .npy, or .csv of numbers) into m "
              "rectangles and print the quality of the split.")
    sp.add_argument("file", type=Path, metavar="FILE", help="the load matrix (.mtx, .npy, .csv)")
    sp.add_argument("-m", type=int, required=True, help="number of rectangles (processors)")
    sp.add_argument("--method", default="jag_m_heur_probe",
                    help="a method of wpart.spatial.METHODS (default jag_m_heur_probe)")
    sp.add_argument("--P", type=int, default=None, help="rows of the P x Q grid methods")
    sp.add_argument("--Q", type=int, default=None, help="columns of the P x Q grid methods")
    sp.add_argument("--weights", choices=("values", "count", "stored"), default="values",
                    help="the loads: the values (default), 1 per nonzero (count) or 1 per "
                         "stored entry (stored)")
    _common(sp, time_limit=True, plot=True)

    tp = _sub(sub, "tasks", "tasks", "place tasks of an LBDatafile set on ranks (serially)",
              "Read an LBDatafile set (STEM.0.json, STEM.1.json, ... or a folder), balance it "
              "in this process (no mpirun) and print the largest work of a rank. "
              "`wpart tasks check STEM` validates a set instead.")
    tp.add_argument("stem", metavar="STEM", help="the data-file set: a stem, a folder or a file")
    tp.add_argument("--method", default="ccm", help="a method of wpart.tasks.METHODS (default ccm)")
    tp.add_argument("--memory-cap", type=float, default=None, help="memory cap per rank")
    tp.add_argument("--out", default=None, metavar="STEM2",
                    help="write the balanced set as STEM2.<rank>.json")
    tp.add_argument("--seed", type=int, default=0, help="seed of the randomised methods")
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
              "processor. Prints the time-optimal distribution, or the time-energy front.")
    hp.add_argument("profiles", nargs="+", type=Path, metavar="PROFILES",
                    help="a CSV file, or one `size time [energy]` file per processor")
    hp.add_argument("-n", type=int, required=True, help="workload (units) to distribute")
    hp.add_argument("--front", choices=("time-energy",), default=None,
                    help="the exact time x dynamic-energy Pareto front instead of one split")
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
    ds.add_argument("--seed", type=int, default=0, help="seed of the simulated noise")
    ds.add_argument("-n", type=int, default=None, help="elements (default: the platform's)")
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
    mr.add_argument("--runs", type=int, default=5, help="number of runs (default 5)")
    _common(mr, time_limit=False, plot=False)

    cp = _sub(sub, "compare", "compare", "run every method of a family and tabulate them",
              "Run every applicable method of a family on one input with a time limit per "
              "method and print method, objective, gap to the best bound, seconds and status. "
              "FAMILY INPUT: 1d FILE -m M; spatial FILE -m M; tasks STEM; hetero PROFILES -n N; "
              "dynamic PLATFORM.")
    cp.add_argument("family", choices=("1d", "spatial", "tasks", "hetero", "dynamic"),
                    metavar="FAMILY", help="1d, spatial, tasks, hetero or dynamic")
    cp.add_argument("inputs", nargs="+", metavar="INPUT", help="the family's input file(s)")
    cp.add_argument("-m", type=int, default=None, help="parts (1d, spatial)")
    cp.add_argument("-n", type=int, default=None, help="workload (hetero)")
    cp.add_argument("--seeds", type=int, default=3, help="seeds per balancer (dynamic)")
    cp.add_argument("--weights", choices=("values", "count", "stored"), default="values",
                    help="spatial: the loads (as for `wpart spatial`)")
    cp.add_argument("--time-limit", type=float, default=10.0,
                    help="seconds per method (default 10)")
    cp.add_argument("--json", type=Path, default=None, metavar="OUT",
                    help="write the table as JSON")
    cp.add_argument("--plot", type=Path, default=None, metavar="OUT.png",
                    help="draw the table (a bar per method)")
    cp.add_argument("--no-progress", dest="progress", action="store_false",
                    help="no progress lines on stderr")


def _common(p: Any, *, time_limit: bool, plot: bool) -> None:
    if time_limit:
        p.add_argument("--time-limit", type=float, default=None,
                       help="seconds (default: no limit)")
    p.add_argument("--json", type=Path, default=None, metavar="OUT",
                   help="write the result as JSON")
    if plot:
        p.add_argument("--plot", type=Path, default=None, metavar="OUT.png",
                       help="draw the result into a PNG file")
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
        The exit status (0, 1 or 3; 2 comes from argparse).

    Raises
    ------
    WpartError
        Never: input errors are printed and give status 1.
    """
    from ._errors import WpartError

    fn = {"spatial": _spatial, "tasks": _tasks, "tasks-check": _tasks_check,
          "hetero": _hetero, "dynamic": _dynamic, "multikernel": _multikernel,
          "compare": _compare}[args.command]
    try:
        return fn(args)
    except WpartError as e:
        print(f"wpart {args.command.replace('-', ' ')}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as e:  # an output file that cannot be written
        print(f"wpart {args.command.replace('-', ' ')}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED


# ----------------------------------------------------------------------------- helpers ----

def _write_json(path: Path | None, obj: Any) -> None:
    if path is None:
        return
    from ._result import jsonable

    path.write_text(json.dumps(jsonable(obj), indent=1, allow_nan=False,
                               default=str) + "\n")
    print(f"wrote {path}", file=sys.stderr)


def _finite(obj: Any) -> Any:
    """`obj` with NaN / inf floats as None (JSON has no such numbers)."""
    import math

    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _save_plot(path: Path | None, result: Any) -> None:
    if path is None:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = result.plot()
    fig = ax.figure if hasattr(ax, "figure") else plt.gcf()
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {path}", file=sys.stderr)


def _status(result: Any) -> int:
    ok = getattr(result, "success", True)
    if not ok and getattr(result, "status", "") == "time_limit":
        return EXIT_TIME_LIMIT
    return EXIT_OK


def read_matrix_file(path: Path) -> Any:
    """A 2D load matrix from a ``.mtx``, ``.npy`` or ``.csv`` file.

    Parameters
    ----------
    path : Path
        The file; its suffix chooses the reader (``.mtx`` also gzip / bz2 compressed).

    Returns
    -------
    ndarray or scipy.sparse array
        The matrix (sparse for a coordinate ``.mtx``).

    Raises
    ------
    WpartFileNotFoundError
        If the file does not exist.
    WpartValueError
        If it cannot be read as a 2D matrix of numbers (the message names the file).
    """
    import numpy as np

    from ._errors import WpartValueError

    if not path.is_file():
        raise _missing("FILE", path)
    name = path.name.lower()
    if name.endswith((".mtx", ".mtx.gz", ".mtx.bz2")):
        from .spatial import read_matrix

        return read_matrix(path)
    try:
        if name.endswith(".npy"):
            A = np.load(path, allow_pickle=False)
        elif name.endswith((".csv", ".txt")):
            A = np.loadtxt(path, delimiter="," if name.endswith(".csv") else None, ndmin=2)
        else:
            raise WpartValueError(f"FILE: {path}: unknown suffix (use .mtx, .npy or .csv)")
    except WpartValueError:
        raise
    except (ValueError, OSError) as e:
        raise WpartValueError(f"FILE: {path}: not a matrix of numbers ({e})") from None
    if A.ndim != 2:
        raise WpartValueError(f"FILE: {path}: a 2D matrix is needed, got {A.ndim} dimension(s)")
    if A.dtype.kind == "f" and np.all(np.isfinite(A)) and np.all(A == np.round(A)) \
            and A.size and np.abs(A).max() < 2**53:
        A = A.astype(np.int64)  # a CSV of integers keeps the exact integer kernels
    return A


def read_loads_file(path: Path) -> Any:
    """1D loads from a ``.npy``, ``.csv`` or whitespace-separated text file (flattened).

    Parameters
    ----------
    path : Path
        The file.

    Returns
    -------
    ndarray
        The loads, 1D (int64 when every value is an integer).

    Raises
    ------
    WpartFileNotFoundError
        If the file does not exist.
    WpartValueError
        If it does not hold numbers (the message names the file).
    """
    import numpy as np

    from ._errors import WpartValueError

    if not path.is_file():
        raise _missing("FILE", path)
    try:
        if path.suffix.lower() == ".npy":
            a = np.load(path, allow_pickle=False)
        else:
            a = np.loadtxt(path, delimiter="," if path.suffix.lower() == ".csv" else None,
                           ndmin=1)
    except (ValueError, OSError) as e:
        raise WpartValueError(f"FILE: {path}: not a list of numbers ({e})") from None
    a = np.ravel(a)
    if a.dtype.kind == "f" and a.size and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
        a = a.astype(np.int64)
    return a


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
def _naming(path: Path) -> Iterator[None]:
    """A refused matrix names the file (where the library has not) and the command's own
    ``--weights`` option instead of the keyword."""
    from ._errors import WpartError

    try:
        yield
    except WpartError as e:
        msg = str(e)
        for w in ("stored", "count", "values"):
            msg = msg.replace(f"weights='{w}'", f"--weights {w}")
        if str(path) not in msg:
            msg = f"{path}: {msg}"
        if msg == str(e):
            raise
        raise type(e)(msg) from e


def _spatial(args: argparse.Namespace) -> int:
    from . import spatial

    A = _matrix_input(args.file)
    kw: dict[str, Any] = {"weights": args.weights}
    if args.P is not None:
        kw["P"] = args.P
    if args.Q is not None:
        kw["Q"] = args.Q
    if args.time_limit is not None:
        kw["time_limit"] = args.time_limit
    with _naming(args.file):
        r = spatial.partition(A, args.m, method=args.method, **kw)
    print(f"[wpart spatial] {args.file}: {r.shape[0]} x {r.shape[1]}, m = {args.m}, "
          f"method {args.method}", file=sys.stderr)
    print(f"method {r.method}  status {r.status}  max_load {r.max_load:.6g}  "
          f"lower_bound {r.lower_bound:.6g}  imbalance {r.imbalance:.3%}")
    d = r.to_dict()
    d.pop("A", None)
    d["file"] = str(args.file)
    _write_json(args.json, _finite(d))
    _save_plot(args.plot, r)
    return _status(r)


def _tasks(args: argparse.Namespace) -> int:
    import numpy as np

    from . import tasks

    p = tasks.read_lbdatafile(args.stem)
    print(f"[wpart tasks] {args.stem}: {p}".splitlines()[0], file=sys.stderr)
    kw: dict[str, Any] = {"method": args.method, "memory_cap": args.memory_cap,
                          "seed": args.seed, "progress": args.progress}
    if args.time_limit is not None:
        kw["time_limit"] = args.time_limit
    r = tasks.balance(p, **kw)
    work = np.asarray(r.work, float)
    max_work = float(work.max()) if work.size else 0.0
    print(f"method {r.method}  status {r.status}  max_work {max_work:.6g}  "
          f"initial {float(r.initial_max_load):.6g}  lower_bound {float(r.lower_bound):.6g}")
    written: list[str] = []
    if args.out is not None and r.success:
        written = tasks.write_lbdatafile(p, args.out, assignment=r.assignment)
        print(f"wrote {len(written)} files: {args.out}.*", file=sys.stderr)
    _write_json(args.json, _finite({
        "stem": str(args.stem), "method": r.method, "status": r.status, "message": r.message,
        "success": r.success, "max_work": max_work, "work": work.tolist(),
        "initial_max_work": float(r.initial_max_load), "lower_bound": float(r.lower_bound),
        "assignment": np.asarray(r.assignment).tolist(), "written": written}))
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


def _tasks_check(args: argparse.Namespace) -> int:
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


def read_profiles(paths: list[Path]) -> Any:
    """A :class:`wpart.hetero.ProfileSet` from one CSV file or one file per processor.

    Parameters
    ----------
    paths : list of Path
        One ``.csv`` file (``processor,size,time[,energy]``), or several ``size time
        [energy]`` files.

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
    from .hetero import ProfileSet

    for p in paths:
        if not p.is_file():
            raise _missing("PROFILES", p)
    if len(paths) == 1 and paths[0].suffix.lower() == ".csv":
        return ProfileSet.from_csv(paths[0])
    return ProfileSet.from_files(paths)


def _hetero(args: argparse.Namespace) -> int:
    from . import hetero

    ps = read_profiles(args.profiles)
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
        _write_json(args.json, _finite(f.to_dict()))
        _save_plot(args.plot, f)
        return _status(f)
    d = hetero.optimal_time(ps, args.n, progress=args.progress, time_limit=tl)
    dist = None if d.dist is None else list(map(int, d.dist))
    print(f"status {d.status}  time {d.time:.6g}  energy {d.energy:.6g}  distribution {dist}")
    _write_json(args.json, _finite(d.to_dict()))
    if args.plot is not None and d.dist is not None:
        _save_plot(args.plot, d)
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
    WpartValueError
        If the file is not in that layout (the message names the file and the field).
    """
    from ._errors import WpartValueError

    p = Path(spec)
    if not (p.suffix.lower() == ".json" or p.is_file()):
        return spec
    import wpart.dynamic as D

    try:
        doc = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        raise WpartValueError(f"PLATFORM: {p}: not a readable JSON file ({e})") from None
    curves = {"affine": lambda d: D.Affine(d["t0"], d["rate"]),
              "saturating": lambda d: D.Saturating(d["t0"], d["rate"], d["bsat"]),
              "power": lambda d: D.Power(d["t0"], d["c"], d["beta"]),
              "table": lambda d: D.Table(d["x"], d["t"])}
    if not isinstance(doc, dict) or not isinstance(doc.get("devices"), list):
        raise WpartValueError(f"PLATFORM: {p}: devices: a list of devices is needed")
    devs = []
    for i, d in enumerate(doc["devices"]):
        where = f"PLATFORM: {p}: devices[{i}]"
        if not isinstance(d, dict) or d.get("family") not in curves:
            raise WpartValueError(f"{where}.family: one of {', '.join(curves)} is needed")
        try:
            devs.append(D.Device(d.get("kind", "cpu"), 0, curves[d["family"]](d),
                                 sigma=float(doc.get("sigma", 0.0))))
        except KeyError as e:
            raise WpartValueError(f"{where}.{e.args[0]}: missing") from None
        except Exception as e:  # noqa: BLE001 -- the constructors' own messages
            raise WpartValueError(f"{where}: {e}") from None
    if "total" not in doc:
        raise WpartValueError(f"PLATFORM: {p}: total: missing (the number of elements)")
    return D.Platform(devs, name=str(doc.get("name", p.stem)), n=doc["total"])


def _dynamic(args: argparse.Namespace) -> int:
    import wpart.dynamic as D

    pl = read_platform(args.platform)
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
    _write_json(args.json, _finite(d))
    _save_plot(args.plot, r)
    return _status(r)


def _multikernel(args: argparse.Namespace) -> int:
    import tempfile

    from .multikernel import KnowledgeBase, sim

    from ._errors import WpartValueError

    entries = [inp for (b, inp) in sim.TABLE2 if b == args.bench]
    if not entries:
        raise WpartValueError(f"BENCH: {args.bench!r} is not a benchmark of Table 2; one of "
                              f"{', '.join(dict.fromkeys(b for b, _ in sim.TABLE2))}")
    inp = args.input or entries[0]
    if inp not in entries:
        raise WpartValueError(f"--input: {inp!r} is not a Table 2 input of {args.bench}; one "
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
    _write_json(args.json, _finite({"bench": args.bench, "input": inp, "gpus": args.gpus,
                                    **r.to_dict()}))
    return _status(r)


def _compare(args: argparse.Namespace) -> int:
    from ._errors import WpartValueError

    fam, inputs, tl = args.family, args.inputs, args.time_limit
    need = {"1d": "m", "spatial": "m", "hetero": "n"}
    if fam in need and getattr(args, need[fam]) is None:
        raise WpartValueError(f"-{need[fam]}: needed for `wpart compare {fam}`")
    if fam != "hetero" and len(inputs) != 1:
        raise WpartValueError(f"INPUT: `wpart compare {fam}` takes one input, got {len(inputs)}")
    prog = args.progress
    if fam == "1d":
        from ._compare import compare_1d

        c = compare_1d(read_loads_file(Path(inputs[0])), args.m, time_limit=tl, progress=prog)
    elif fam == "spatial":
        from .spatial import compare

        c = compare(_matrix_input(Path(inputs[0])), args.m, time_limit=tl, progress=prog,
                    weights=args.weights)
    elif fam == "tasks":
        from .tasks import compare as tcompare, read_lbdatafile

        c = tcompare(read_lbdatafile(inputs[0]), time_limit=tl, progress=prog)
    elif fam == "hetero":
        from .hetero import compare as hcompare

        c = hcompare(read_profiles([Path(x) for x in inputs]), args.n, time_limit=tl,
                     progress=prog)
    else:
        from .dynamic._compare import compare as dcompare

        c = dcompare(read_platform(inputs[0]), seeds=range(args.seeds), time_limit=tl,
                     progress=False)
    print(c)
    refused = [r for r in c.table if r.get("status") == "refused"]
    if c.table and len(refused) == len(c.table):  # the input itself, not a method
        with _naming(Path(inputs[0])) if fam == "spatial" else contextlib.nullcontext():
            raise WpartValueError(f"every method refused the input: {refused[0]['message']}")
    _write_json(args.json, _finite(c.to_dict()))
    _save_plot(args.plot, c)
    return EXIT_OK if any(r[c.objective] is not None for r in c.table) else EXIT_TIME_LIMIT
