"""Every notebook in notebooks/ runs top to bottom, draws its figures, and is committed with them.

No notebook chooses a matplotlib backend (``matplotlib.use("Agg")`` or a ``%matplotlib`` line
would hide the figures from a reader), so Jupyter shows every figure inline. This test runs the
kernel headless by setting ``MPLBACKEND`` in its environment: to matplotlib's inline backend,
the non-interactive backend Jupyter itself uses, because plain ``Agg`` would run the notebook
just as well but keep its figures out of the outputs this test checks.

The notebooks are committed with their outputs, figures included, so that the repository page
shows them. After changing one, re-run it in place from the repository root::

    jupyter execute --inplace notebooks/NAME.ipynb
"""

import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]
INLINE = "module://matplotlib_inline.backend_inline"
MAX_BYTES = 1_000_000  # a committed notebook with its figures stays small


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _figures(nb) -> int:
    return sum("image/png" in o.get("data", {}) for o in _outputs(nb))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5  # one per family


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_executes_and_draws(path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", INLINE)  # headless, figures captured as image/png
    nb = nbformat.read(path, as_version=4)
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = []
    # run from the repository root so that the kernel imports this checkout's wpart
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    errors = [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert not errors, errors[0].get("evalue") if errors else ""
    assert _figures(nb) >= 1, f"{path.name} drew no figure"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_notebook_forces_a_backend(path):
    nb = nbformat.read(path, as_version=4)
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert not re.search(r"matplotlib\.use\(|^\s*%matplotlib|pyplot\.switch_backend|"
                         r"plt\.switch_backend", src, re.M), path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_is_committed_with_its_figures(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), f"{path.name}: not executed"
    counts = [c["execution_count"] for c in code]
    assert counts == sorted(counts), f"{path.name}: cells run out of order"
    assert not [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert _figures(nb) >= 1, f"{path.name} is committed without its figures"
    assert path.stat().st_size < MAX_BYTES, f"{path.name}: {path.stat().st_size} bytes"
