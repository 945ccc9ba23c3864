"""The family subcommands of the ``wpart`` command line: every example of docs/cli.rst and of
each ``--help`` runs, the JSON outputs hold what the interface promises, and the exit codes
are 0 / 1 / 2 / 3 as documented."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wpart import cli
from wpart._cli_families import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "cli.rst"


def _blocks(kind):
    """The bodies of the ``.. code-block:: kind`` blocks of docs/cli.rst."""
    text = DOC.read_text()
    out = []
    for m in re.finditer(rf"^\.\. code-block:: {kind}\n\n((?:   .*\n|\n)+)", text, re.M):
        out.append("\n".join(line[3:] for line in m.group(1).splitlines()))
    return out


def _run(cmd, cwd, env_extra=None):
    args = cmd.split()
    assert args[0] == "wpart"
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "wpart", *args[1:]], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    cwd = os.getcwd()
    os.chdir(d)
    try:
        for src in _blocks("python"):
            exec(compile(src, str(DOC), "exec"), {})
    finally:
        os.chdir(cwd)
    return d


def _commands():
    cmds = [line[2:] for b in _blocks("console") for line in b.splitlines()
            if line.startswith("$ ")]
    return cmds


def test_the_docs_list_every_help_example():
    docs = set(_commands())
    for name, examples in EXAMPLES.items():
        for e in examples:  # every --help example is on the page, so it runs here
            assert e in docs, e
    assert len(docs) >= 12
    sub = {c.split()[1] for c in docs}
    assert {"spatial", "tasks", "hetero", "dynamic", "multikernel", "compare",
            "reproduce"} <= sub


@pytest.mark.parametrize("cmd", _commands())
def test_every_docs_example_runs(inputs, cmd):
    r = _run(cmd, inputs)
    assert r.returncode == 0, f"{cmd}\n{r.stdout}\n{r.stderr}"
    assert r.stdout.strip()


def test_every_help_has_an_example_and_the_exit_codes():
    for argv in (["--help"], ["spatial", "--help"], ["tasks", "--help"],
                 ["tasks", "check", "--help"], ["hetero", "--help"],
                 ["dynamic", "simulate", "--help"], ["multikernel", "run", "--help"],
                 ["compare", "--help"], ["reproduce", "--help"]):
        r = subprocess.run([sys.executable, "-m", "wpart", *argv], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, argv
        assert "example:" in r.stdout and "\n  wpart " in r.stdout, argv
        if argv[0] != "reproduce":
            assert "3 time limit" in r.stdout, argv


def test_json_outputs_hold_the_promised_fields(inputs):
    assert _run("wpart spatial loads.npy -m 8 --json s.json --no-progress", inputs).returncode == 0
    s = json.loads((inputs / "s.json").read_text())
    A = np.load(inputs / "loads.npy")
    assert s["status"] in ("optimal", "feasible") and len(s["rects"]) == 8
    loads = [A[r0:r1, c0:c1].sum() for r0, r1, c0, c1 in s["rects"]]
    assert s["max_load"] == max(loads) and sum(loads) == A.sum()
    assert _run("wpart tasks data --json t.json --no-progress", inputs).returncode == 0
    t = json.loads((inputs / "t.json").read_text())
    assert t["status"] in ("optimal", "feasible") and t["max_work"] == max(t["work"])


def test_tasks_balanced_set_reads_back_and_checks(inputs):
    assert _run("wpart tasks data --method greedy --out bal --no-progress", inputs).returncode == 0
    assert _run("wpart tasks check bal", inputs).returncode == 0


def test_tasks_check_names_every_problem(inputs):
    for f in ("data.0.json", "data.1.json"):
        (inputs / f.replace("data", "bad")).write_text((inputs / f).read_text())
    d = json.loads((inputs / "bad.0.json").read_text())
    d["phases"][0]["tasks"][0]["time"] = "x"
    (inputs / "bad.0.json").write_text(json.dumps(d))
    (inputs / "bad.1.json").write_text('{"metadata": ')
    r = _run("wpart tasks check bad", inputs)
    assert r.returncode == 1
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 2
    assert any("bad.0.json" in x and "phases[0].tasks[0].time" in x for x in lines)
    assert any("bad.1.json" in x and "JSON" in x for x in lines)
    assert _run("wpart tasks check nothing-here", inputs).returncode == 1


def test_spatial_reads_a_matrixmarket_file_as_the_library_does(inputs):
    """A .mtx file goes to the library as its path: --weights stored counts every stored entry
    (a duplicate twice, an explicit zero once), as ``rect_nicol(path, weights="stored")``; a
    negative value is refused naming the file and the command's own --weights options."""
    from wpart import spatial

    (inputs / "dup.mtx").write_text("%%MatrixMarket matrix coordinate real general\n3 3 4\n"
                                    "1 1 2.0\n1 1 3.0\n2 2 0.0\n3 3 -1.0\n")
    for w, total in (("stored", 4), ("count", 2)):
        r = _run(f"wpart spatial dup.mtx -m 1 --weights {w} --json d.json --no-progress", inputs)
        assert r.returncode == 0, r.stderr
        assert json.loads((inputs / "d.json").read_text())["total"] == total
        assert spatial.partition(str(inputs / "dup.mtx"), 1, weights=w).total == total
    for cmd in ("wpart spatial dup.mtx -m 2", "wpart compare spatial dup.mtx -m 2"):
        r = _run(cmd, inputs)
        assert r.returncode == 1, r.stdout + r.stderr
        assert "dup.mtx" in r.stderr and "--weights stored" in r.stderr, r.stderr
        assert "weights='stored'" not in r.stderr
    np.save(inputs / "neg.npy", -np.ones((4, 4)))
    r = _run("wpart spatial neg.npy -m 4", inputs)
    assert r.returncode == 1 and "neg.npy" in r.stderr and "negative" in r.stderr


def test_exit_codes(inputs, tmp_path):
    # 1: input refused, the message names the file (and the field)
    r = _run("wpart spatial missing.npy -m 4", inputs)
    assert r.returncode == 1 and "missing.npy" in r.stderr
    (inputs / "text.csv").write_text("1,2\nx,3\n")
    r = _run("wpart spatial text.csv -m 2", inputs)
    assert r.returncode == 1 and "text.csv" in r.stderr
    r = _run("wpart spatial loads.npy -m 4 --method nope", inputs)  # a bad option value: 2
    assert r.returncode == 2 and "nope" in r.stderr and "--method" in r.stderr
    (inputs / "sub.mtx").mkdir(exist_ok=True)  # a folder is named as one, not "no such file"
    for cmd in ("wpart spatial sub.mtx -m 4", "wpart spatial . -m 4", "wpart hetero . -n 4"):
        r = _run(cmd, inputs)
        assert r.returncode == 1 and "is a directory" in r.stderr, (cmd, r.stderr)
    (inputs / "plat.json").write_text('{"total": 1000, "devices": [{"family": "x"}]}')
    r = _run("wpart dynamic simulate plat.json --balancer greedy", inputs)
    assert r.returncode == 1 and "plat.json" in r.stderr and "devices[0].family" in r.stderr
    # 2: usage
    assert _run("wpart spatial loads.npy", inputs).returncode == 2
    assert _run("wpart nosuchcommand", inputs).returncode == 2
    # 3: a time limit without a result
    r = _run("wpart hetero profiles.csv -n 2560 --time-limit 1e-9 --no-progress", inputs)
    assert r.returncode == 3, r.stdout + r.stderr


def test_platform_json_file(inputs):
    (inputs / "node.json").write_text(json.dumps({
        "name": "my-node", "total": 20000, "sigma": 0.02,
        "devices": [{"kind": "cpu", "family": "affine", "t0": 0.0, "rate": 100.0},
                    {"kind": "gpu", "family": "saturating", "t0": 0.01, "rate": 2000.0,
                     "bsat": 4096.0}]}))
    r = _run("wpart dynamic simulate node.json --balancer greedy --json n.json", inputs)
    assert r.returncode == 0, r.stderr
    assert json.loads((inputs / "n.json").read_text())["makespan"] > 0


def test_main_in_process_returns_the_status(inputs, monkeypatch, capsys):
    monkeypatch.chdir(inputs)
    assert cli.main(["spatial", "loads.npy", "-m", "4", "--no-progress"]) == 0
    assert "max_load" in capsys.readouterr().out
