"""The documentation's promises: every public function and class has numpydoc sections, no
public text refers to internal design documents ("spec NNN"), and the site's sources are
complete (every public name is in the API reference)."""

import importlib
import inspect
import re
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
MODULES = ["wpart", "wpart.spatial", "wpart.hetero", "wpart.tasks", "wpart.dynamic",
           "wpart.multikernel", "wpart.milp", "wpart.cli"]
SECTION = re.compile(r"^\s*(Parameters|Returns|Yields|Raises|Attributes)\n\s*-{3,}\s*$", re.M)
SPEC = re.compile(r"\bspecs?\b(?!\w)", re.I)


def _public():
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{modname}.{name}", obj


PUBLIC = list(_public())


def _missing(obj):
    doc = inspect.getdoc(obj) or ""
    have = set(SECTION.findall(doc))
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return set()
        return set() if have & {"Parameters", "Attributes"} else {"Parameters or Attributes"}
    need = {"Returns", "Raises"}
    try:
        params = [p for p in inspect.signature(obj).parameters.values()
                  if p.name not in ("self", "cls")]
    except (TypeError, ValueError):
        params = []
    if params:
        need.add("Parameters")
    if "Yields" in have:
        need.discard("Returns")
    return need - have


def test_every_public_function_and_class_has_numpydoc_sections():
    missing = {q: sorted(_missing(o)) for q, o in PUBLIC if _missing(o)}
    assert not missing, "\n".join(f"{q}: {m}" for q, m in missing.items())


def test_no_reference_to_design_documents_in_public_headers():
    bad = [f"{h.name}:{i}: {line.strip()}"
           for h in sorted((ROOT / "csrc" / "include" / "wpart").glob("*.h"))
           for i, line in enumerate(h.read_text().splitlines(), 1)
           if SPEC.search(line) or "§" in line]
    assert not bad, "\n".join(bad)


def test_no_reference_to_design_documents_in_docstrings():
    seen, bad = set(), []
    for modname in MODULES:
        mod = importlib.import_module(modname)
        objs = [(modname, mod)] + [(f"{modname}.{n}", getattr(mod, n)) for n in mod.__all__]
        for qual, obj in objs:
            cands = [(qual, obj)]
            if inspect.isclass(obj):
                cands += [(f"{qual}.{k}", v) for k, v in vars(obj).items()
                          if not k.startswith("_") and callable(v)]
            for q, o in cands:
                doc = getattr(o, "__doc__", None)
                if id(o) in seen or not isinstance(doc, str):
                    continue
                seen.add(id(o))
                if re.search(r"\bspec\s*\d|\bspec\s*§|\bthe spec\b", doc, re.I):
                    bad.append(q)
    assert not bad, bad


def test_no_reference_to_design_documents_in_printed_text():
    """String literals of the package (messages, tables, help texts) never cite them."""
    bad = []
    for f in sorted((ROOT / "wpart").rglob("*.py")):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            if re.search(r"[\"'].*\bspec\s*(\d{3}|§)", line, re.I):
                bad.append(f"{f.relative_to(ROOT)}:{i}")
    assert not bad, bad


def _docs_gen():
    """docs/_gen.py, the docs' generated pages, as a module."""
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import _gen
    finally:
        sys.path.pop(0)
    return _gen


def test_every_public_name_is_in_the_api_reference():
    _gen = _docs_gen()
    assert "_generated/api" in (ROOT / "docs" / "index.rst").read_text()
    assert _gen.API_MODULES == MODULES
    api = _gen.api_lists()
    for modname in MODULES:
        mod = importlib.import_module(modname)
        block = api.split(f".. currentmodule:: {modname}\n", 1)
        assert len(block) == 2, modname
        listed = set(re.findall(r"^   (\w+)$", block[1].split(".. currentmodule::")[0], re.M))
        public = {n for n in mod.__all__ if not inspect.ismodule(getattr(mod, n))}
        assert public <= listed, (modname, sorted(public - listed))


def test_every_python_example_of_the_pages_is_run():
    """A page's Python example is a ``testcode`` or ``doctest`` block, which tools/docs.sh runs
    (sphinx doctest builder, from a scratch folder); docs/cli.rst's ``code-block`` examples are
    run by tests/test_cli_families.py."""
    bad = []
    for page in sorted((ROOT / "docs").glob("*.rst")):
        if page.name == "cli.rst":
            continue
        for i, line in enumerate(page.read_text().splitlines(), 1):
            if re.match(r"\.\. (code-block|code|sourcecode)::\s*(python|py|pycon)\b", line):
                bad.append(f"{page.name}:{i}: {line.strip()}")
    assert not bad, "examples the docs build does not run:\n" + "\n".join(bad)


def test_the_sarma_table_counts_the_benchmark_json():
    """docs/spatial.rst's "Measured beside SARMA" table (docs/_gen.py's sarma_table) holds the
    benchmark's own totals: its "all" row and every grid row equal the JSON's summary, counted
    again from its cases here, and every case above nic's CPU is named."""
    import json

    _gen = _docs_gen()
    src = ROOT / "benchmarks" / "results" / "bench_spatial_sarma.json"
    doc = json.loads(src.read_text())
    text = _gen.sarma_table(src)
    s = doc["summary"]
    rows = re.findall(r"   \* - (.+)\n     - (\d+)\n     - (\d+)\n     - (\d+)\n     - (\d+)\n"
                      r"     - ([\d.]+)", text)
    got = {r[0]: tuple(int(x) for x in r[1:5]) for r in rows}
    assert got["all"] == (s["cases"], s["load_goal_met"], s["load_goal_met_both"],
                          s["cpu_goal_met"])
    for grid, g in s["per_grid"].items():
        P, Q = grid.split("x")
        assert got[f"{P} x {Q}"] == (g["cases"], g["load_ok"], g["load_ok_both"], g["cpu_ok"])
        cs = [c for c in doc["cases"] if (c["P"], c["Q"]) == (int(P), int(Q))]
        assert (len(cs), sum(bool(c["goal_load"]) for c in cs),
                sum(bool(c["goal_load_both"]) for c in cs),
                sum(bool(c["goal_cpu"]) for c in cs)) == got[f"{P} x {Q}"]
    assert sum(g["cases"] for g in s["per_grid"].values()) == len(doc["cases"]) == s["cases"]
    slow = [c for c in doc["cases"] if not c["goal_cpu"]]
    assert len(slow) == s["cases"] - s["cpu_goal_met"]
    for c in slow:
        assert f"{c['matrix']} {c['P']} x {c['Q']} (" in text
    assert "_generated/sarma_spatial.inc" in (ROOT / "docs" / "spatial.rst").read_text()
