"""The command line's first-contact defects, each pinned: empty inputs, ``--plot`` formats,
``reproduce --out``, counts below 1, outputs whole or untouched (checked before computing,
written together or not at all, never over an input), exit codes of infeasible instances,
the CLI's own flags in messages, one-line warnings, options without effect, and a plot that
cannot be drawn."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wpart import cli
from wpart import _cli_families as fam
from wpart import _cli_io as cio

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd, cwd, timeout=300):
    """`cmd` (``wpart ...``) in a fresh process: (exit status, stdout, stderr)."""
    args = cmd.split() if isinstance(cmd, str) else list(cmd)
    assert args[0] == "wpart"
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "wpart", *args[1:]], cwd=cwd,
                       capture_output=True, text=True, timeout=timeout, env=env)
    return r.returncode, r.stdout, r.stderr


def _main(argv, capsys):
    """`wpart argv` in this process: (exit status, stdout, stderr)."""
    try:
        code = cli.main(argv)
    except SystemExit as e:  # argparse's usage errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(err, *fragments):
    """stderr is one error line (no traceback) that holds every fragment."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert lines and ": error: " in lines[-1], err
    for f in fragments:
        assert f in lines[-1], (f, err)
    return lines[-1]


def _listing(d):
    return sorted(os.listdir(d))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    from wpart import hetero, tasks
    from wpart.tasks import datasets

    d = tmp_path_factory.mktemp("cli_outputs")
    np.save(d / "loads.npy", np.random.default_rng(0).integers(0, 100, (32, 32)))
    np.save(d / "cp.npy", np.ones((8, 8)))
    tasks.write_lbdatafile(tasks.read_lbdatafile(datasets.lbaf_path("ccm_example/data")),
                           str(d / "data"))
    hetero.synthetic("dgemm-like", seed=0).to_csv(d / "profiles.csv")
    (d / "empty.npy").write_bytes(b"")
    (d / "empty.csv").write_bytes(b"")
    (d / "neg.csv").write_text("processor,size,time,energy\ncpu,10,1.0,-0.5\ncpu,20,2.0,1.0\n"
                               "gpu,10,0.5,1.0\ngpu,20,0.8,2.0\n")
    return d


@pytest.fixture
def work(inputs, tmp_path):
    """A fresh folder holding links to the inputs (outputs land here, listed afterwards)."""
    for f in inputs.iterdir():
        os.symlink(f, tmp_path / f.name)
    return tmp_path


@pytest.fixture
def unwritable(tmp_path):
    """An existing folder this process cannot create files in (skipped where none is)."""
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    try:
        (d / "probe").write_text("")
    except OSError:
        yield d
        d.chmod(0o755)
        return
    (d / "probe").unlink()
    d.chmod(0o755)
    try:  # root ignores the mode: a kernel folder refuses new files even to root
        Path("/sys/wpart-probe").write_text("")
    except OSError:
        yield Path("/sys")
        return
    pytest.skip("no folder refuses new files here")


# ---------------------------------------------------------------- 1. empty input files ----

@pytest.mark.parametrize("cmd", ["wpart spatial empty.npy -m 4",
                                 "wpart compare spatial empty.npy -m 5",
                                 "wpart compare 1d empty.npy -m 5",
                                 "wpart spatial empty.csv -m 4",
                                 "wpart compare 1d empty.csv -m 4"])
def test_an_empty_file_is_one_line_naming_it(work, cmd):
    code, _, err = _run(cmd, work)
    assert code == 1, err
    name = cmd.split()[2] if cmd.split()[1] == "spatial" else cmd.split()[3]
    _one_line_error(err, f"FILE: {name}: the file is empty")
    assert "EOFError" not in err and "loadtxt" not in err and "UserWarning" not in err


def test_a_text_file_without_numbers_is_refused_naming_it(work, capsys):
    (work / "blank.txt").write_text("\n\n")
    code, _, err = _main(["compare", "1d", str(work / "blank.txt"), "-m", "2"], capsys)
    assert code == 1
    _one_line_error(err, "blank.txt: no numbers in the file")


# --------------------------------------------------- 2. --plot's format, before computing ----

@pytest.mark.parametrize("cmd", ["wpart spatial loads.npy -m 16 --json ok.json --plot out.txt",
                                 "wpart hetero profiles.csv -n 2560 --json ok.json --plot out.txt",
                                 "wpart dynamic simulate linear4 --balancer greedy --json ok.json "
                                 "--plot out.txt",
                                 "wpart compare hetero profiles.csv -n 2560 --json ok.json "
                                 "--plot out.txt",
                                 "wpart spatial loads.npy -m 16 --plot out"])
def test_plot_format_is_a_usage_error_before_any_computing(work, cmd):
    before = _listing(work)
    code, out, err = _run(cmd, work)
    assert code == 2, err
    _one_line_error(err, "argument --plot: out", "end the name with one of", ".png")
    assert out == ""  # nothing computed, nothing printed
    assert "Traceback" not in err and "ValueError" not in err
    assert _listing(work) == before


def test_plot_formats_are_matplotlibs():
    import matplotlib.figure

    formats = cio.plot_formats()
    assert formats == matplotlib.figure.Figure().canvas.get_supported_filetypes()
    assert {"png", "pdf", "svg"} <= set(formats) and "txt" not in formats


def test_plot_in_another_format_is_written_in_it(work, capsys):
    code, _, err = _main(["spatial", str(work / "loads.npy"), "-m", "4", "--no-progress",
                          "--plot", str(work / "p.PDF")], capsys)
    assert code == 0, err
    assert (work / "p.PDF").read_bytes()[:5] == b"%PDF-"


# -------------------------------------------------------------------- 3. reproduce --out ----

def test_reproduce_out_naming_a_file_is_one_line(work, capsys):
    for out in ("cp.npy", "cp.npy/sub"):
        code, stdout, err = _main(["reproduce", "base", "--quick", "--no-progress", "--out",
                                   str(work / out)], capsys)
        assert code == 1, err
        line = _one_line_error(err, "--out:", out)
        assert "not a folder" in line or "cannot create the output folder" in line
        assert stdout == ""  # no family ran
    assert np.load(work / "cp.npy").shape == (8, 8)


def test_reproduce_out_in_a_folder_that_refuses_files(unwritable, capsys):
    code, _, err = _main(["reproduce", "base", "--quick", "--no-progress", "--out",
                          str(unwritable / "rep")], capsys)
    assert code == 1
    _one_line_error(err, "--out:", "rep")
    assert not (unwritable / "rep").exists()


def test_out_folder_raises_a_wpart_error_naming_the_path(work):
    import wpart
    from wpart.experiments import out_folder

    with pytest.raises(wpart.WpartOSError, match="cp.npy: not a folder"):
        out_folder(work / "cp.npy")
    assert out_folder(work / "a" / "b") == work / "a" / "b" and (work / "a" / "b").is_dir()


def test_reproduce_help_lists_the_exit_codes():
    code, out, _ = _run("wpart reproduce --help", ROOT, timeout=60)
    assert code == 0
    assert "exit status: 0 every check ran and passed" in out
    assert "1 a check failed, or --out cannot be made or written; 2 usage error" in out


# ----------------------------------------------------------------- 4. counts below 1 ----

@pytest.mark.parametrize("argv,option,minimum", [
    ("compare dynamic hetero3 --seeds 0", "--seeds", 1),
    ("compare dynamic hetero3 --seeds -2", "--seeds", 1),
    ("compare spatial loads.npy -m 0", "-m", 1),
    ("compare 1d cp.npy -m -1", "-m", 1),
    ("compare hetero profiles.csv -n -1", "-n", 0),
    ("spatial loads.npy -m 0", "-m", 1),
    ("spatial loads.npy -m 4 --P 0 --method rect_nicol", "--P", 1),
    ("spatial loads.npy -m 4 --Q -1 --method rect_nicol", "--Q", 1),
    ("hetero profiles.csv -n -5", "-n", 0),
    ("dynamic simulate linear4 --balancer greedy -n 0", "-n", 1),
    ("dynamic simulate linear4 --balancer greedy --seed -1", "--seed", 0),
    ("multikernel run saxpy --runs 0", "--runs", 1),
    ("tasks data --seed -1", "--seed", 0),
])
def test_counts_below_their_minimum_are_usage_errors(work, capsys, argv, option, minimum):
    code, out, err = _main([str(work / a) if a.endswith((".npy", ".csv")) or a == "data"
                            else a for a in argv.split()], capsys)
    assert code == 2
    _one_line_error(err, f"argument {option}: must be an integer >= {minimum}")
    assert out == ""


@pytest.mark.parametrize("argv", ["spatial loads.npy -m 4 --time-limit 0",
                                  "compare spatial loads.npy -m 4 --time-limit -1",
                                  "hetero profiles.csv -n 10 --time-limit nan",
                                  "tasks data --memory-cap -5"])
def test_seconds_and_caps_out_of_range_are_usage_errors(work, capsys, argv):
    code, _, err = _main([str(work / a) if a in ("loads.npy", "profiles.csv", "data") else a
                          for a in argv.split()], capsys)
    assert code == 2
    _one_line_error(err, "must be a number")


# -------------------------------------------------- 5. outputs whole or untouched ----

def test_spatial_json_is_not_left_when_the_plot_folder_is_missing(work):
    before = _listing(work)
    code, out, err = _run("wpart spatial loads.npy -m 16 --json ok1.json --plot nodir/x.png",
                          work)
    assert code == 1
    _one_line_error(err, "--plot: nodir/x.png: the folder nodir does not exist")
    assert out == ""  # refused before computing
    assert _listing(work) == before  # no ok1.json, no temporary file, no folder made


def test_dynamic_json_is_not_left_when_the_plot_folder_is_missing(work, capsys):
    before = _listing(work)
    code, _, err = _main(["dynamic", "simulate", "linear4", "--balancer", "greedy",
                          "--json", str(work / "s.json"), "--plot", str(work / "nodir/s.png")],
                         capsys)
    assert code == 1
    _one_line_error(err, "--plot:", "does not exist")
    assert _listing(work) == before


def test_tasks_set_is_not_written_when_the_json_folder_refuses_files(work, unwritable, capsys):
    before = _listing(work)
    code, out, err = _main(["tasks", str(work / "data"), "--out", str(work / "bb"),
                            "--json", str(unwritable / "x.json"), "--no-progress"], capsys)
    assert code == 1
    _one_line_error(err, "--json:", "x.json", "cannot write in the folder")
    assert out == ""
    assert _listing(work) == before  # no bb.* set
    assert not (unwritable / "x.json").exists()


def test_every_command_refuses_a_missing_output_folder_and_makes_none(work, capsys):
    cases = [["tasks", "data", "--out", "nodir/bal"],
             ["tasks", "data", "--json", "nodir/t.json"],
             ["spatial", "loads.npy", "-m", "4", "--json", "nodir/s.json"],
             ["hetero", "profiles.csv", "-n", "100", "--json", "nodir/h.json"],
             ["dynamic", "simulate", "linear4", "--balancer", "greedy", "--json", "nodir/d.json"],
             ["multikernel", "run", "saxpy", "--runs", "1", "--json", "nodir/m.json"],
             ["compare", "hetero", "profiles.csv", "-n", "100", "--json", "nodir/c.json"]]
    for argv in cases:
        argv = [str(work / a) if a in ("data", "loads.npy", "profiles.csv") or "/" in a else a
                for a in argv]
        code, _, err = _main([*argv, "--no-progress"], capsys)
        assert code == 1, (argv, err)
        _one_line_error(err, "nodir", "does not exist", "wpart creates no folders")
        assert not (work / "nodir").exists(), argv


def test_an_output_that_is_a_folder_is_refused(work, capsys):
    (work / "sub").mkdir()
    code, _, err = _main(["spatial", str(work / "loads.npy"), "-m", "4", "--json",
                          str(work / "sub")], capsys)
    assert code == 1
    _one_line_error(err, "--json:", "is a directory")


def test_a_failure_after_computing_keeps_the_previous_files(work, capsys, monkeypatch):
    import wpart

    (work / "ok.json").write_text("previous\n")

    def broken(self, option, result):
        raise wpart.WpartRuntimeError("cannot draw")

    monkeypatch.setattr(fam.Outputs, "save_plot", broken)
    code, out, err = _main(["spatial", str(work / "loads.npy"), "-m", "4", "--no-progress",
                            "--json", str(work / "ok.json"), "--plot",
                            str(work / "new.png")], capsys)
    assert code == 1 and "max_load" in out
    _one_line_error(err, "cannot draw")
    assert (work / "ok.json").read_text() == "previous\n"
    assert not (work / "new.png").exists()
    assert not [n for n in _listing(work) if n.startswith(".")]  # no temporary file left


def test_a_set_that_fails_to_switch_takes_the_json_back(work, capsys, monkeypatch):
    import wpart
    from wpart import tasks

    (work / "t.json").write_text("previous\n")

    def broken(*a, **k):
        raise wpart.WpartOSError("bb.1.json: cannot switch to the new file: disk full")

    monkeypatch.setattr(tasks, "write_lbdatafile", broken)
    code, _, err = _main(["tasks", str(work / "data"), "--out", str(work / "bb"), "--json",
                          str(work / "t.json"), "--no-progress"], capsys)
    assert code == 1
    _one_line_error(err, "disk full")
    assert (work / "t.json").read_text() == "previous\n"
    assert not list(work.glob("bb*")) and not [n for n in _listing(work) if n.startswith(".")]


def test_outputs_appear_together_with_the_usual_mode(work, capsys):
    code, _, err = _main(["tasks", str(work / "data"), "--out", str(work / "bb"), "--json",
                          str(work / "t.json"), "--no-progress"], capsys)
    assert code == 0, err
    t = json.loads((work / "t.json").read_text())
    assert t["written"] == [str(work / "bb.0.json"), str(work / "bb.1.json")]
    assert all(Path(p).is_file() for p in t["written"])
    assert "wrote 2 files" in err
    umask = os.umask(0)
    os.umask(umask)
    assert (work / "t.json").stat().st_mode & 0o777 == 0o666 & ~umask
    assert not [n for n in _listing(work) if n.startswith(".")]


# ------------------------------------------------------------ 6. an output over an input ----

@pytest.mark.parametrize("out", ["cp.npy", "./cp.npy", "link.npy"])
def test_an_output_naming_the_input_is_refused(work, out):
    os.symlink(work / "cp.npy", work / "link.npy")
    before = (work / "cp.npy").read_bytes()
    code, stdout, err = _run(f"wpart spatial cp.npy -m 4 --json {out}", work)
    assert code == 2
    _one_line_error(err, f"--json: {Path(out)}: is the input file cp.npy")
    assert stdout == "" and (work / "cp.npy").read_bytes() == before


def test_a_tasks_set_over_its_input_and_two_outputs_on_one_file_are_refused(work, capsys):
    before = {p.name: p.read_bytes() for p in work.glob("data.*")}
    code, _, err = _main(["tasks", str(work / "data"), "--out", str(work / "data"),
                          "--no-progress"], capsys)
    assert code == 2
    _one_line_error(err, "--out:", "is the input file")
    code, _, err = _main(["tasks", str(work / "data"), "--out", str(work / "bb"), "--json",
                          str(work / "bb.0.json"), "--no-progress"], capsys)
    assert code == 2
    _one_line_error(err, "--json:", "is a file of the --out")
    code, _, err = _main(["spatial", str(work / "loads.npy"), "-m", "4", "--json",
                          str(work / "a.png"), "--plot", str(work / "a.png")], capsys)
    assert code == 2
    _one_line_error(err, "--json and --plot name the same file")
    assert {p.name: p.read_bytes() for p in work.glob("data.*")} == before
    assert not list(work.glob("bb*")) and not (work / "a.png").exists()


# ------------------------------------------------------------- 7. infeasible instances ----

def test_infeasible_is_an_answer_with_exit_0_in_hetero_and_compare(work):
    code, out, err = _run("wpart hetero profiles.csv -n 10000000 --json h.json --no-progress",
                          work)
    assert code == 0, err
    assert "status infeasible" in out and "exceeds the combined capacity" in err
    assert json.loads((work / "h.json").read_text())["status"] == "infeasible"
    code, out, err = _run("wpart compare hetero profiles.csv -n 10000000 --json c.json "
                          "--no-progress", work)
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("status infeasible: no method of")
    assert "time limit reached" not in out + err and "time_limit" not in out
    assert json.loads((work / "c.json").read_text())["status"] == "infeasible"


def test_compare_without_an_answer_in_time_says_time_limit_and_exits_3(work):
    code, out, err = _run("wpart compare hetero profiles.csv -n 2560 --time-limit 1e-9 "
                          "--no-progress", work)
    assert code == 3, err
    assert out.rstrip().splitlines()[-1].startswith("status time_limit: no method of")


def test_the_exit_codes_are_documented_where_they_are_listed():
    doc = (ROOT / "docs" / "cli.rst").read_text()
    assert "infeasible" in doc and "is an answer" in doc
    assert "an infeasible instance is an answer" in fam.EXIT_CODES
    for text in ("``infeasible`` (exit 0), ``time_limit`` (exit 3)", "whole or untouched",
                 "wpart creates no folders", "``warning: <message>``", "--allow-empty"):
        assert text in " ".join(doc.split()), text


# ------------------------------------------------------- 8. the CLI's flags in messages ----

def test_allow_empty_hint_names_the_flag_and_the_flag_works(work, capsys):
    code, _, err = _main(["spatial", str(work / "loads.npy"), "-m", "5000"], capsys)
    assert code == 2  # an option value the input cannot take: a usage error naming -m
    line = _one_line_error(err, "-m 5000 exceeds",
                           "pass --allow-empty to accept empty rectangles")
    assert "allow_empty=True" not in line
    code, out, err = _main(["spatial", str(work / "loads.npy"), "-m", "5000", "--allow-empty",
                            "--no-progress"], capsys)
    assert code == 0 and "max_load" in out


def test_clamp_negative_hint_names_the_flag_and_the_flag_works(work, capsys):
    for argv in (["hetero", str(work / "neg.csv"), "-n", "30"],
                 ["compare", "hetero", str(work / "neg.csv"), "-n", "30"]):
        code, _, err = _main([*argv, "--no-progress"], capsys)
        assert code == 1
        line = _one_line_error(err, "neg.csv", "pass --clamp-negative to clamp noise")
        assert "clamp_negative=True" not in line
        code, out, err = _main([*argv, "--clamp-negative", "--no-progress"], capsys)
        assert code == 0, err
        assert "status optimal" in out


def test_hints_without_a_flag_are_dropped_and_the_api_keeps_them():
    import argparse

    from wpart import spatial
    from wpart._errors import WpartValueError

    ns = argparse.Namespace(command="tasks")
    msg = "d.0.json: file exceeds max_bytes = 10 bytes (pass a larger max_bytes= to read it)"
    assert fam.cli_message(msg, ns) == "d.0.json: file exceeds max_bytes = 10 bytes"
    ns = argparse.Namespace(command="compare")
    assert fam.cli_message("`m` = 9 exceeds the 4 cells of A; pass allow_empty=True to accept "
                           "empty rectangles", ns) == "`m` = 9 exceeds the 4 cells of A"
    assert "--weights stored" in fam.cli_message("pass weights='stored' (1 per entry)", ns)
    with pytest.raises(WpartValueError, match="pass allow_empty=True"):
        spatial.partition(np.ones((2, 2)), 9)


# ------------------------------------------ 9. warnings, options without effect ----

def test_a_warning_is_one_line_on_the_command_line(work):
    code, _, err = _run("wpart spatial loads.npy -m 64 --P 64 --Q 1 --method rect_nicol "
                        "--no-progress", work)
    assert code == 0, err
    assert ("warning: P x Q = 64 x 1 exceeds the 32 x 32 matrix: some rectangles will be "
            "empty") in err.splitlines()
    assert "UserWarning" not in err and ".py:" not in err


def test_the_warning_display_is_restored_after_main(work, capsys):
    import warnings

    shown = warnings.showwarning
    _main(["spatial", str(work / "loads.npy"), "-m", "2", "--no-progress"], capsys)
    assert warnings.showwarning is shown


@pytest.mark.parametrize("argv,option", [
    ("compare spatial loads.npy -m 4 -n 5", "-n"),
    ("compare spatial loads.npy -m 4 --seeds 2", "--seeds"),
    ("compare hetero profiles.csv -n 100 -m 3", "-m"),
    ("compare dynamic linear4 --weights count", "--weights"),
    ("compare spatial loads.npy -m 4 --clamp-negative", "--clamp-negative"),
    ("spatial loads.npy -m 16 --P 4 --method jag_m_opt", "--P"),
    ("spatial loads.npy -m 16 --Q 4 --method jag_m_heur_probe", "--Q"),
])
def test_an_option_without_effect_is_a_usage_error(work, capsys, argv, option):
    code, out, err = _main([str(work / a) if a in ("loads.npy", "profiles.csv") else a
                            for a in argv.split()], capsys)
    assert code == 2
    _one_line_error(err, f"{option}: ", "no effect")
    assert out == ""


def test_p_alone_sets_the_grid(work, capsys):
    code, _, err = _main(["spatial", str(work / "loads.npy"), "-m", "16", "--P", "2",
                          "--method", "rect_nicol", "--json", str(work / "g.json"),
                          "--no-progress"], capsys)
    assert code == 0, err
    params = json.loads((work / "g.json").read_text())["params"]
    assert (params["P"], params["Q"]) == (2, 8)


# ------------------------------------------------------------ 10. a plot not drawn ----

def test_no_plot_for_an_infeasible_instance_says_why(work, capsys):
    code, out, err = _main(["hetero", str(work / "profiles.csv"), "-n", "10000000", "--plot",
                            str(work / "inf.png"), "--json", str(work / "inf.json"),
                            "--no-progress"], capsys)
    assert code == 0
    assert "status infeasible" in out
    assert f"no plot written to {work / 'inf.png'}: status infeasible" in err
    assert not (work / "inf.png").exists() and (work / "inf.json").is_file()
    assert not [n for n in _listing(work) if n.startswith(".")]


def test_an_output_through_a_link_replaces_the_file_and_keeps_the_link(work, capsys):
    (work / "real.json").write_text("previous\n")
    os.symlink("real.json", work / "lnk.json")
    code, _, err = _main(["spatial", str(work / "loads.npy"), "-m", "4", "--no-progress",
                          "--json", str(work / "lnk.json")], capsys)
    assert code == 0, err
    assert os.path.islink(work / "lnk.json")
    assert json.loads((work / "real.json").read_text())["status"] in ("optimal", "feasible")


def test_an_output_that_is_a_pipe_is_written_in_place(work, capsys):
    import stat
    import threading

    fifo = work / "pipe.json"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _, err = _main(["spatial", str(work / "loads.npy"), "-m", "4", "--no-progress",
                          "--json", str(fifo)], capsys)
    reader.join(30)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still the pipe, not a file renamed over it
    assert json.loads(got[0])["status"] in ("optimal", "feasible")
    assert not [n for n in _listing(work) if n.startswith(".")]


def test_platform_file_errors_name_the_file_and_the_field(tmp_path, capsys):
    """`wpart dynamic simulate FILE.json` reads the file with Platform.from_json: a bad value
    or an unknown key is one line naming the file and the field's JSON path, exit 1."""
    p = tmp_path / "node.json"
    dev = {"kind": "cpu", "family": "affine", "t0": 0.0, "rate": -100}
    p.write_text(json.dumps({"name": "x", "total": 1000, "devices": [dev]}))
    code, out, err = _main(["dynamic", "simulate", str(p), "--balancer", "plbhac"], capsys)
    assert code == 1 and "node.json: devices[0].rate: must be > 0, got -100" in err
    assert len(err.strip().splitlines()) == 1
    dev["rate"], dev["typo"] = 100.0, 1
    p.write_text(json.dumps({"name": "x", "total": 1000, "devices": [dev]}))
    code, out, err = _main(["dynamic", "simulate", str(p), "--balancer", "plbhac"], capsys)
    assert code == 1 and "devices[0].typo: unknown key" in err


def test_integers_too_large_for_an_exact_float_stay_floats(tmp_path, capsys):
    """A text file of loads with a value at or above 2**53 is read as floats (it used to be
    cast to int64, which wrapped 1e19 to a negative load); small integers still read as
    int64 (the exact kernels)."""
    big = tmp_path / "big.txt"
    big.write_text("1e19\n3\n5\n")
    a = cio.read_loads_file(big)
    assert a.dtype == np.float64 and a.tolist() == [1e19, 3.0, 5.0]
    small = tmp_path / "small.csv"
    small.write_text("1,2\n3,4\n")
    assert cio.read_matrix_file(small).dtype == np.int64
    assert cio.read_loads_file(small).dtype == np.int64
    code, out, err = _main(["compare", "1d", str(big), "-m", "2"], capsys)
    assert code == 0 and "max_load 1e+19" in out and "invalid value" not in err
