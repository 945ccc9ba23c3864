"""Sphinx configuration of the wpart documentation (built by tools/docs.sh with -W)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import _gen  # noqa: E402  -- the "which method when" tables from benchmarks/results/

import wpart  # noqa: E402

_gen.main()

project = "wpart"
author = "the wpart authors"
copyright = "2026, the wpart authors"
release = version = wpart.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
]
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = False
default_role = "code"
templates_path = ["_templates"]
exclude_patterns = ["_build", "_generated/*.inc"]
html_theme = "alabaster"
html_static_path = []
html_title = f"wpart {release}"
doctest_global_setup = "import numpy as np\nimport wpart\n"


def _markdown_tables(app, what, name, obj, options, lines):
    """Docstrings may carry a Markdown table (the method tables of ``MethodTable.markdown``,
    readable in ``help()``); turn each into an rst list-table for the site."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.lstrip().startswith("|") and nxt.lstrip().startswith("|---"):
            indent = line[: len(line) - len(line.lstrip())]
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                if not lines[i].lstrip().startswith("|---"):
                    rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            out += [f"{indent}.. list-table::", f"{indent}   :header-rows: 1", ""]
            for row in rows:
                for j, cell in enumerate(row):
                    out.append(f"{indent}   {'* - ' if j == 0 else '  - '}{cell or ' '}")
            out.append("")
            continue
        out.append(line)
        i += 1
    lines[:] = out


def setup(app):
    app.connect("autodoc-process-docstring", _markdown_tables, priority=400)
