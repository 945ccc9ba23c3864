"""Every ```python block of README.md runs as pasted, from outside the repository.

A block whose first line says ``run ... with: mpirun -np N [--flags] python ...`` runs that
way, under mpirun (tests/oracles/mpirun.py). A ```bash block whose first line starts with
``# run from an empty folder`` runs too, under ``bash -e`` (stopping at the first failing
command), with the environment of the MPI tests (its ``mpirun`` lines may start ranks as
root). Blocks are collected automatically (a new README section is tested without touching
this file). Each runs in a fresh interpreter whose working directory is an empty temporary folder,
with the worktree on ``PYTHONPATH`` (so ``wpart`` is this checkout, never a stray install)
and ``MPLBACKEND=Agg`` (so ``r.plot()`` works headless). Keep README examples fast: a few
seconds each on one core.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, str]]:
    """(id, code) of every python block, the id naming the section heading and line."""
    text = README.read_text(encoding="utf-8")
    out = []
    for mt in _FENCE.finditer(text):
        line = text.count("\n", 0, mt.start()) + 1
        heads = re.findall(r"^#+ +(.+)$", text[: mt.start()], re.M)
        head = re.sub(r"[^A-Za-z0-9]+", "-", heads[-1] if heads else "top").strip("-").lower()
        out.append((f"{head}-L{line}", mt.group(1)))
    return out


BLOCKS = _blocks()


def test_readme_has_examples():
    assert len(BLOCKS) >= 4  # five lines, spatial, hetero, tasks (more as sections land)


# headless plots; an example that uses a deprecated name fails (the README speaks the current
# vocabulary): a DeprecationWarning attributed to the example's own code is an error
_ENV = {"MPLBACKEND": "Agg", "PYTHONWARNINGS": "error::DeprecationWarning:__main__"}

_MPIRUN = re.compile(r"run (?:it )?with:? +mpirun -np (\d+)((?: --[a-z-]+)*) python")


@pytest.mark.parametrize("code", [c for _, c in BLOCKS], ids=[i for i, _ in BLOCKS])
def test_readme_block_runs(code, tmp_path):
    m = _MPIRUN.search(code.splitlines()[0])
    if m:  # an MPI program: run it the way its first line says, under mpirun
        from oracles.mpirun import needs_mpi, run_mpi

        if needs_mpi.args[0]:
            pytest.skip(needs_mpi.kwargs["reason"])
        script = tmp_path / "example.py"
        script.write_text(code, encoding="utf-8")
        # each rank's output in a file of its own: mpirun interleaves the merged stdout
        outs = tmp_path / "mpi-out"
        n = int(m.group(1))
        proc = run_mpi(n, [script], timeout=120, env=_ENV, cwd=str(tmp_path),
                       mpirun_args=[*m.group(2).split(), "--output-filename", str(outs)])
        assert proc.returncode == 0, f"README example failed:\n{code}\n{proc.stderr[-3000:]}"
        per_rank = {r: "".join(f.read_text() for f in outs.glob(f"*/rank.{r}/stdout"))
                    for r in range(n)}
        assert any(t.strip() for t in per_rank.values()), "the MPI example printed nothing"
        for r in range(n):
            err = "".join(f.read_text() for f in outs.glob(f"*/rank.{r}/stderr"))
            assert "Traceback" not in err, f"rank {r}:\n{err[-3000:]}"
        return
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env.update(_ENV)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"README example failed:\n{code}\n--- stderr ---\n{proc.stderr}"


def test_fence_parser_sees_every_block():
    # the parser agrees with a plain count of opening fences
    text = README.read_text(encoding="utf-8")
    assert len(BLOCKS) == len(re.findall(r"^```python[ \t]*$", text, re.M))


# ---------------------------------------------------------------------------------------------
# shell blocks that say they run from an empty folder (the MPI command lines)

_SHELL = "# run from an empty folder"
_BASH_FENCE = re.compile(r"^```bash[ \t]*\n(.*?)^```", re.S | re.M)


def _shell_blocks() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    out = []
    for mt in _BASH_FENCE.finditer(text):
        if mt.group(1).startswith(_SHELL):
            out.append((f"shell-L{text.count(chr(10), 0, mt.start()) + 1}", mt.group(1)))
    return out


SHELL_BLOCKS = _shell_blocks()


def test_readme_has_shell_examples():
    assert len(SHELL_BLOCKS) >= 2  # the command lines of CCM-LB over MPI and run_mpi


@pytest.mark.parametrize("code", [c for _, c in SHELL_BLOCKS], ids=[i for i, _ in SHELL_BLOCKS])
def test_readme_shell_block_runs(code, tmp_path):
    from oracles.mpirun import mpi_env, needs_mpi

    if "mpirun" in code and needs_mpi.args[0]:
        pytest.skip(needs_mpi.kwargs["reason"])
    env = mpi_env(_ENV)
    # `python` in the block is this interpreter
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    proc = subprocess.Popen(["bash", "-e", "-c", code], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # mpirun and every rank it started
        out, err = proc.communicate()
        pytest.fail(f"README shell example timed out:\n{code}\n{err[-3000:]}")
    assert proc.returncode == 0, f"README shell example failed:\n{code}\n{err[-3000:]}"
    # under `mpirun --enable-recovery` mpirun exits 0 whatever its ranks did: read their errors
    assert "Traceback" not in err, f"README shell example failed:\n{code}\n{err[-3000:]}"
    assert out.strip(), "the shell example printed nothing"


# ---------------------------------------------------------------------------------------------
# the README speaks to users: the papers' own sections, and an API section that matches the code

def test_no_developer_spec_references():
    text = README.read_text(encoding="utf-8")
    hits = re.findall(r".{0,30}(?:\bspec \d{3}\b|\bspec \d+\.\d+|§).{0,30}", text)
    assert not hits, f"the README cites developer specs a user does not have: {hits}"


def test_api_section_lists_every_status_and_error():
    import wpart
    from wpart import _errors

    text = README.read_text(encoding="utf-8")
    api = text[text.index("## API"):text.index("## The families")]
    for s in wpart.STATUSES:
        assert f'`"{s}"`' in api, f"status {s!r} is not documented in the README's API section"
    for name in _errors.__all__:
        if name != "WpartNotImplementedError":  # raised to subclass authors, not users
            assert re.search(rf"`(?:wpart\.)?{name}`", api), f"{name} is not in the API section"


def test_references_cite_each_paper_once():
    text = README.read_text(encoding="utf-8")
    refs = text[text.index("## References"):]
    keys = re.findall(r"^- \*\*\[([^\]]+)\]\*\*", refs, re.M)
    assert len(keys) == len(set(keys)) == 5, keys
    for k in keys:  # every key is used in the text before the list
        assert f"[{k}]" in text[:text.index("## References")], k


# ---------------------------------------------------------------------------------------------
# the README stays a front page: the house limit on a file's length, and its links resolve

README_MAX_LINES = 800


def test_readme_stays_under_the_house_length():
    n = README.read_text(encoding="utf-8").count("\n")
    assert n <= README_MAX_LINES, (
        f"README.md has {n} lines (the house limit is {README_MAX_LINES}): move long reference "
        "text (per-family detail, long tables, long examples) to the family's docs/*.rst page "
        "and link to it")


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_links_resolve():
    text = README.read_text(encoding="utf-8")
    anchors = {_slug(h) for h in re.findall(r"^#+ +(.+)$", text, re.M)}
    bad = [a for a in re.findall(r"\]\(#([^)]+)\)", text) if a not in anchors]
    bad += [p for p in re.findall(r"\]\(((?:docs|benchmarks|notebooks|tools)/[^)#]+)", text)
            if not (ROOT / p).exists()]
    assert not bad, f"README links to what does not exist: {bad}"
