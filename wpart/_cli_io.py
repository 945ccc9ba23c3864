"""The command line's plumbing shared by its subcommands (wpart/_cli_families.py): exit codes,
argument types, messages and warnings in one line, the input readers of the user's files, and
:class:`Outputs`, which writes a command's output files whole or not at all."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import secrets
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ._errors import WpartValueError
from ._files import unlink_quiet
from ._interrupt import deferred

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_TIME_LIMIT = 0, 1, 2, 3

EXIT_CODES = ("exit status: 0 done (an infeasible instance is an answer: its status is "
              "printed);\n  1 input refused, or an output that cannot be written (the message "
              "names the file and the field or option);\n  2 usage error (a bad option value, "
              "or one the input cannot take: the message names the option);\n  3 time limit "
              "reached without a result; 130 interrupted (Ctrl-C), 143 terminated (SIGTERM): "
              "no output changed")


class UsageError(WpartValueError):
    """A command line that cannot mean anything (an option without effect, an output path
    that is an input, ...): printed as one line, exit status 2."""


def _missing(label: str, path: Any) -> Exception:
    """The error for a command-line file that is not a readable file: a folder is named as one
    (not "no such file")."""
    from ._errors import WpartFileNotFoundError, WpartValueError

    if Path(path).is_dir():
        return WpartValueError(f"{label}: {path}: is a directory, not a file")
    return WpartFileNotFoundError(f"{label}: {path}: no such file")


def _integer(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer >= `minimum` (a count: 1, a seed or a workload: 0) and
    <= `maximum` (a seed: 2**64 - 1); anything else is a usage error naming the option
    (argparse adds its name)."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}, got {text!r}") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {v}")
        if maximum is not None and v > maximum:
            raise argparse.ArgumentTypeError(f"must be an integer <= {maximum}, got {v}")
        return v
    parse.__name__ = f"integer >= {minimum}"
    return parse


def _number(*, positive: bool) -> Callable[[str], float]:
    """An argparse type: a number > 0 (`positive`, e.g. seconds) or >= 0; NaN is refused."""
    def parse(text: str) -> float:
        what = "a number > 0" if positive else "a number >= 0"
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if math.isnan(v) or v < 0 or (positive and v == 0):
            raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
        return v
    parse.__name__ = "number"
    return parse


def plot_formats() -> dict[str, str]:
    """The image formats ``--plot`` can write: matplotlib's, ``{extension: description}``.

    Returns
    -------
    dict of str to str
        ``matplotlib.figure.Figure().canvas.get_supported_filetypes()``.
    """
    import matplotlib.figure

    return dict(matplotlib.figure.Figure().canvas.get_supported_filetypes())


def _plot_path(text: str) -> Path:
    """An argparse type: a path whose extension is an image format matplotlib writes (checked
    before any computing, so that a result is never lost to a bad file name)."""
    path = Path(text)
    formats = plot_formats()
    ext = path.suffix[1:].lower()
    if ext not in formats:
        why = f".{ext} is not an image format matplotlib writes" if ext else "no extension"
        raise argparse.ArgumentTypeError(
            f"{text}: {why}; end the name with one of "
            f"{', '.join('.' + f for f in sorted(formats))}")
    return path


# ----------------------------------------------------------------------------- helpers ----

#: the API keyword a library message names -> the command line's option, per subcommand
OPTION_NAMES: dict[str, dict[str, str]] = {
    "spatial": {"m": "-m", "method": "--method", "P": "--P", "Q": "--Q", "weights": "--weights",
                "allow_empty": "--allow-empty", "max_states": "--max-states",
                "time_limit": "--time-limit"},
    "tasks": {"method": "--method", "memory_cap": "--memory-cap", "seed": "--seed",
              "allow_infeasible_start": "--allow-infeasible-start",
              "max_states": "--max-states", "time_limit": "--time-limit"},
    "hetero": {"n": "-n", "clamp_negative": "--clamp-negative", "time_limit": "--time-limit"},
    "dynamic": {"platform": "PLATFORM", "balancer": "--balancer", "seed": "--seed", "n": "-n",
                "time_limit": "--time-limit"},
    "multikernel": {"runs": "--runs", "n_gpus": "--gpus"},
    "compare": {"m": "-m", "n": "-n", "weights": "--weights", "seeds": "--seeds",
                "clamp_negative": "--clamp-negative", "time_limit": "--time-limit"},
}
#: the keywords of OPTION_NAMES that are on / off flags (``store_true``)
_SWITCHES = ("allow_empty", "allow_infeasible_start", "clamp_negative")
#: keyword hints of the library's messages (``pass allow_empty=True``) -> the command line's
#: flag, per subcommand (a hint without a flag here is dropped from the message: the Python
#: API keeps it)
_FLAGS: dict[str, dict[str, str]] = {
    command: {f"{k}=True": flag for k, flag in names.items() if k in _SWITCHES}
    for command, names in OPTION_NAMES.items()}


def _option_pattern(command: str | None) -> re.Pattern | None:
    names = OPTION_NAMES.get(command or "")
    if not names:
        return None
    alts = [f"`{re.escape(k)}`" for k in names]
    # a keyword with an underscore is unmistakable without its backquotes too
    alts += [rf"(?<![\w`-]){re.escape(k)}(?![\w`])" for k in names if "_" in k]
    return re.compile(rf"({'|'.join(alts)})( = )?")


def name_options(msg: str, command: str | None) -> str:
    """`msg` (a library message) with the API keywords of `command`'s options written as the
    options the user typed: the keyword ``max_states`` in backquotes followed by ``= 5`` reads
    ``--max-states 5``, ``method`` reads ``--method``, ``platform`` reads ``PLATFORM``.

    Parameters
    ----------
    msg : str
        The message.
    command : str or None
        The subcommand (``args.command``); one without options here leaves `msg` as it is.

    Returns
    -------
    str
        The message in the command line's words.
    """
    pat = _option_pattern(command)
    if pat is None:
        return msg
    names = OPTION_NAMES[command or ""]
    return pat.sub(lambda m: names[m.group(1).strip("`")] + (" " if m.group(2) else ""), msg)


def option_error(exc: BaseException, command: str | None) -> bool:
    """Whether `exc`, raised by the library, is about the value of one of `command`'s
    options (a usage error, exit 2) rather than the input file (exit 1): a value or type
    error whose message starts with the option's keyword in backquotes (``method``, ``m``,
    ``memory_cap``). A file that cannot be read, or a size or state cap reached during the
    work, is not.

    Parameters
    ----------
    exc : BaseException
        The exception the library raised.
    command : str or None
        The subcommand (``args.command``).

    Returns
    -------
    bool
        True for a usage error.
    """
    from ._errors import WpartLimitError

    if isinstance(exc, (OSError, WpartLimitError)) or not isinstance(
            exc, (ValueError, TypeError, OverflowError, KeyError, IndexError)):
        return False
    names = OPTION_NAMES.get(command or "", {})
    m = re.match(r"\s*`(\w+)`", str(exc).strip("'\""))
    return bool(m) and m.group(1) in names


_PAREN_HINT = re.compile(r"\s*\(pass [^()]*?\b[a-z_]+=[^()]*\)")
_CLAUSE_HINT = re.compile(r";\s*pass\b[^;]*?\b[a-z_]+=[^;]*")


def cli_message(msg: str, args: argparse.Namespace | None = None) -> str:
    """A library message as the command line says it: a keyword hint (``pass
    allow_empty=True``) names the command's flag (``--allow-empty``), or is dropped when the
    command has none; ``weights='stored'`` reads ``--weights stored``.

    Parameters
    ----------
    msg : str
        The message (of an exception, or a printed table's notes).
    args : argparse.Namespace, optional
        The parsed command line (its ``command`` chooses the flags).

    Returns
    -------
    str
        The message for the command line.
    """
    command = getattr(args, "command", None)
    if command in ("spatial", "compare"):
        for w in ("stored", "count", "values"):
            msg = msg.replace(f"weights='{w}'", f"--weights {w}")
    for kw, flag in _FLAGS.get(command or "", {}).items():
        msg = msg.replace(f"pass {kw}", f"pass {flag}")
    msg = _PAREN_HINT.sub("", msg)
    return _CLAUSE_HINT.sub("", msg)


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """Inside: every warning shown is one line ``warning: <message>`` on stderr (no source
    line); the previous ``warnings.showwarning`` comes back on exit.

    Yields
    ------
    None
    """
    import warnings

    def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
             line: Any = None) -> None:
        text = " ".join(str(message).split())
        try:
            print(f"warning: {text}", file=sys.stderr if file is None else file, flush=True)
        except OSError:  # stderr gone: nothing to warn on
            pass

    previous = warnings.showwarning  # only the display changes: the filters stay as they are
    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


def _finite(obj: Any) -> Any:
    """`obj` with NaN / inf floats as None (JSON has no such numbers)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _same_file(a: Path, b: Path) -> bool:
    """Whether the paths name one file (links followed; a missing one compared resolved)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(os.path.abspath(a)).resolve() == Path(os.path.abspath(b)).resolve()


class _Out:
    __slots__ = ("option", "path", "target", "direct", "temp", "backup", "done")

    def __init__(self, option: str, path: Path) -> None:
        self.option, self.path = option, path
        self.target = path  # where the bytes go: the file a symbolic link names
        self.direct = False  # an existing device or pipe (/dev/null): written in place
        self.temp: str | None = None
        self.backup: str | None = None
        self.done = False  # written to the temporary file


class Outputs:
    """A command's output files, written whole or not at all.

    :meth:`check` refuses, before any computing, an output that is an input or another
    output, or whose folder is missing or cannot be written, or that is a folder; it reserves
    a temporary file beside each output. The command writes each output into its temporary
    file (:meth:`write_json`, :meth:`save_plot`); :meth:`commit` renames them all into place
    (keeping the previous files until every rename, and the LBDatafile set written last, went
    through) and :meth:`discard` removes whatever is left after a failure.

    Attributes
    ----------
    files : list
        The output files, in the order added.
    """

    def __init__(self) -> None:
        self.files: list[_Out] = []
        self._set: tuple[str, str] | None = None  # (option, stem) of an LBDatafile set

    # -- declaring ---------------------------------------------------------------------------
    def add(self, option: str, path: Path | None) -> None:
        """Declare the output file `path` of `option` (nothing when None)."""
        if path is not None:
            self.files.append(_Out(option, Path(path)))

    def add_set(self, option: str, stem: str | None) -> None:
        """Declare the LBDatafile set ``<stem>.<rank>.json`` of `option` (nothing when None)."""
        if stem is not None:
            self._set = (option, str(stem))

    def _item(self, option: str) -> _Out | None:
        return next((f for f in self.files if f.option == option), None)

    # -- checking ----------------------------------------------------------------------------
    def check(self, inputs: list[Path]) -> None:
        """Refuse the outputs that cannot be written, before any computing.

        A usage error (:class:`UsageError`, exit 2): an output that is an input file, or two
        outputs naming one file. An output that cannot be written (:class:`WpartOSError`, exit
        1): its folder is missing (no folder is created) or not writable, or it is a folder.
        Reserves each output's temporary file."""
        from ._errors import WpartOSError

        inputs = [Path(p) for p in inputs if p is not None and Path(p).exists()]
        for f in self.files:
            for inp in inputs:
                if _same_file(f.path, inp):
                    raise UsageError(f"{f.option}: {f.path}: is the input file {inp}; write "
                                     "the output to another file (the input is left as it is)")
        for i, f in enumerate(self.files):
            for g in self.files[i + 1:]:
                if _same_file(f.path, g.path):
                    raise UsageError(f"{f.option} and {g.option} name the same file {f.path}")
        if self._set is not None:
            opt, stem = self._set
            pat = re.compile(re.escape(os.path.abspath(stem)) + r"\.(\d+\.json|wpart-set\.json)$")
            for f in self.files:
                if pat.match(os.path.abspath(f.path)):
                    raise UsageError(f"{f.option}: {f.path}: is a file of the {opt} {stem} "
                                     "set; write it to another file")
        targets = [(f.option, f.path) for f in self.files]
        if self._set is not None:
            targets.append((self._set[0], Path(self._set[1])))
        for opt, path in targets:
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                what = "is not a folder" if os.path.exists(folder) else "does not exist"
                raise WpartOSError(f"{opt}: {path}: the folder {Path(path).parent} {what} "
                                   "(wpart creates no folders: make it first)")
        for f in self.files:
            if os.path.isdir(f.path):
                raise WpartOSError(f"{f.option}: {f.path}: is a directory, not a file")
            if os.path.exists(f.path) and not os.path.isfile(f.path):
                f.direct = True  # a device or a pipe (through its links): written in place
                if not os.access(f.path, os.W_OK):
                    raise WpartOSError(f"{f.option}: {f.path}: cannot write: permission denied")
            elif os.path.islink(f.path):  # the file it names is replaced, the link stays
                f.target = Path(os.path.realpath(f.path))
                if not os.path.isdir(os.path.dirname(f.target)):
                    raise WpartOSError(f"{f.option}: {f.path}: a link into a folder that does "
                                       f"not exist ({f.target})")
        with deferred():  # a signal here: every temporary file made is known to discard()
            for f in self.files:
                if f.direct:  # the bytes wait in the temporary folder, then go in at the end
                    import tempfile

                    fd, f.temp = tempfile.mkstemp(prefix=".wpart-", suffix=".tmp")
                    os.close(fd)
                else:
                    f.temp = self._reserve(f.option, f.path, f.target)
            if self._set is not None:  # a probe: the set's writer keeps its own temporary files
                opt, stem = self._set
                os.unlink(self._reserve(opt, Path(stem), Path(stem)))

    @staticmethod
    def _reserve(option: str, path: Path, target: Path) -> str:
        """Create the temporary file beside `target` (`path` as the user named it)."""
        from ._errors import WpartOSError

        folder, name = os.path.split(os.path.abspath(target))
        temp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except OSError as e:
            raise WpartOSError(f"{option}: {path}: cannot write in the folder {folder}: "
                               f"{e.strerror or e}") from None
        return temp

    def check_set(self, n_ranks: int, inputs: list[Path]) -> None:
        """Refuse the LBDatafile set's files (``n_ranks`` of them, and the manifest) when one
        is an input (usage error) or a folder; nothing without a set."""
        if self._set is None:
            return
        from .tasks._io_set import check_writable, manifest_path, rank_path

        opt, stem = self._set
        for p in [rank_path(stem, r) for r in range(n_ranks)] + [manifest_path(stem)]:
            for inp in inputs:
                if _same_file(Path(p), Path(inp)):
                    raise UsageError(f"{opt}: {stem}: its file {p} is the input file {inp}; "
                                     "write the balanced set under another stem")
        try:
            check_writable(stem, range(n_ranks))  # the folder exists: only the folder checks
        except OSError as e:
            raise type(e)(f"{opt}: {e}") from None

    # -- writing -----------------------------------------------------------------------------
    def write_json(self, option: str, obj: Any) -> None:
        """Write `obj` as JSON into the temporary file of `option` (nothing if not declared)."""
        f = self._item(option)
        if f is None:
            return
        from ._files import write_synced
        from ._result import jsonable

        text = json.dumps(jsonable(obj), indent=1, allow_nan=False, default=str) + "\n"
        try:
            write_synced(f.temp, text.encode("utf-8"))
        except OSError as e:
            raise _write_error(f, e) from None
        f.done = True

    def save_plot(self, option: str, result: Any) -> None:
        """Draw `result` (its ``plot()``) into the temporary file of `option`, in the format
        of the output's extension (nothing if not declared)."""
        f = self._item(option)
        if f is None:
            return
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = result.plot()
        fig = ax.figure if hasattr(ax, "figure") else plt.gcf()
        try:
            fig.savefig(f.temp, format=f.path.suffix[1:].lower(), dpi=100, bbox_inches="tight")
        except OSError as e:
            raise _write_error(f, e) from None
        finally:
            plt.close(fig)
        f.done = True

    def skip(self, option: str, why: str) -> None:
        """Write nothing for `option` and say so on stderr, with `why`."""
        f = self._item(option)
        if f is None:
            return
        print(f"no {option[2:]} written to {f.path}: {why}", file=sys.stderr)
        self.files.remove(f)
        if f.temp is not None:
            unlink_quiet(f.temp)

    def finish(self, doc: dict, result: Any, why_not: str | None = None) -> None:
        """The usual end of a command: `doc` to ``--json`` (non-finite numbers as null),
        `result` drawn to ``--plot`` (or, with `why_not`, no plot and the reason on stderr),
        then :meth:`commit`."""
        self.write_json("--json", _finite(doc))
        if why_not is None:
            self.save_plot("--plot", result)
        else:
            self.skip("--plot", why_not)
        self.commit()

    def commit(self, last: Callable[[], Any] | None = None) -> Any:
        """Rename every written temporary file into place, then call `last` (the LBDatafile
        set's writer, itself whole or untouched); on any failure put the previous files back
        and remove the temporary ones. Returns what `last` returned."""
        from ._files import fsync_dir

        switched: list[_Out] = []
        try:
            with deferred():  # a signal while the files switch: after it, and all put back
                for f in self.files:
                    if not f.done or f.direct:
                        continue
                    if os.path.lexists(f.target):
                        folder, name = os.path.split(os.path.abspath(f.target))
                        f.backup = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.old")
                        try:
                            os.link(f.target, f.backup)
                        except OSError:
                            import shutil

                            shutil.copy2(f.target, f.backup)
                    try:
                        os.replace(f.temp, f.target)
                    except OSError as e:
                        raise _write_error(f, e) from None
                    f.temp = None
                    switched.append(f)
            result = last() if last is not None else None
            for f in self.files:  # a device or a pipe: no rename, the bytes go in last
                if f.done and f.direct:
                    try:
                        with open(f.temp, "rb") as src, open(f.target, "wb") as dst:
                            dst.write(src.read())
                    except OSError as e:
                        raise _write_error(f, e) from None
                    unlink_quiet(f.temp)
                    f.temp = None
        except BaseException:
            with deferred():
                for f in reversed(switched):  # the previous file back, or none
                    if f.backup is not None:
                        try:
                            os.replace(f.backup, f.target)
                            f.backup = None
                        except OSError:  # pragma: no cover - the folder broke under us
                            pass
                    else:
                        unlink_quiet(str(f.target))
            raise
        with deferred():
            for f in switched:
                if f.backup is not None:
                    unlink_quiet(f.backup)
                    f.backup = None
                fsync_dir(os.path.dirname(os.path.abspath(f.target)))
        for f in self.files:
            if f.done:
                print(f"wrote {f.path}", file=sys.stderr)
        return result

    def discard(self) -> None:
        """Remove every temporary and backup file left (after a failure; nothing after a
        :meth:`commit`)."""
        with deferred():
            for f in self.files:
                for p in (f.temp, f.backup):
                    if p is not None:
                        unlink_quiet(p)
                f.temp = f.backup = None


def _write_error(f: _Out, e: OSError) -> Exception:
    """The error for an output that could not be written: it names the option and the path
    (not the temporary file)."""
    from ._errors import WpartOSError

    return WpartOSError(f"{f.option}: {f.path}: cannot write: {e.strerror or e}")


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
    from ._errors import WpartValueError

    if not path.is_file():
        raise _missing("FILE", path)
    name = path.name.lower()
    if name.endswith((".mtx", ".mtx.gz", ".mtx.bz2")):
        from .spatial import read_matrix

        return read_matrix(path)
    if not name.endswith((".npy", ".csv", ".txt")):
        raise WpartValueError(f"FILE: {path}: unknown suffix (use .mtx, .npy or .csv)")
    A = _load_numbers(path, 2, "a matrix of numbers")
    if A.ndim != 2:
        raise WpartValueError(f"FILE: {path}: a 2D matrix is needed, got {A.ndim} dimension(s)")
    return _integral_as_int64(A)


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

    if not path.is_file():
        raise _missing("FILE", path)
    return _integral_as_int64(np.ravel(_load_numbers(path, 1, "a list of numbers")))


def _integral_as_int64(a: Any) -> Any:
    """A float array read from text whose values are all integers below 2**53 as int64 (the
    exact integer kernels); otherwise as it is (larger values stay floats: int64 would wrap
    them)."""
    import numpy as np

    if a.dtype.kind == "f" and a.size and np.all(np.isfinite(a)) and np.all(a == np.round(a)) \
            and np.abs(a).max() < 2**53:
        return a.astype(np.int64)
    return a


def _load_numbers(path: Path, ndmin: int, what: str) -> Any:
    """The numbers of a ``.npy`` file, or of a text file (``.csv``: comma-separated, else
    whitespace); an empty file, or one without numbers, is refused naming it."""
    import warnings

    import numpy as np

    from ._errors import WpartValueError

    try:
        if path.stat().st_size == 0:
            raise WpartValueError(f"FILE: {path}: the file is empty (0 bytes), not {what}")
        if path.suffix.lower() == ".npy":
            return np.load(path, allow_pickle=False)
        with warnings.catch_warnings():  # "input contained no data": refused below instead
            warnings.simplefilter("ignore", UserWarning)
            a = np.loadtxt(path, delimiter="," if path.suffix.lower() == ".csv" else None,
                           ndmin=ndmin)
    except WpartValueError:
        raise
    except (ValueError, OSError, EOFError) as e:
        raise WpartValueError(f"FILE: {path}: not {what} ({e})") from None
    if a.size == 0:
        raise WpartValueError(f"FILE: {path}: no numbers in the file, not {what}")
    return a
