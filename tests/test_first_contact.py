"""First contact from a fresh clone: a source tree without a built extension explains itself,
and benchmarks use the installed wpart, falling back to the checkout only when needed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# An editable install of this checkout (tools/setup.sh) puts scikit-build-core's redirecting
# finder ahead of sys.path, so `import wpart` would reach the checkout from anywhere. The child
# processes below play a user without that development install: they drop the finder first.
_NO_EDITABLE = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path "
    "if type(f).__name__ != 'ScikitBuildRedirectingFinder']; "
)


def _py(code: str, cwd: Path, pythonpath: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run(
        [sys.executable, "-c", _NO_EDITABLE + code], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=120,
    )


def _source_copy(dst: Path, with_markers: bool = True) -> Path:
    """A copy of the wpart package without its compiled extension (as after `pip install .`
    the repository's own ./wpart has none)."""
    shutil.copytree(
        ROOT / "wpart",
        dst / "wpart",
        ignore=shutil.ignore_patterns("_core*.so", "_core*.pyd", "__pycache__", "data"),
    )
    if with_markers:
        (dst / "pyproject.toml").write_text("[project]\nname = 'wpart'\n")
        (dst / "csrc").mkdir()
    return dst


def test_source_tree_without_extension_explains(tmp_path):
    _source_copy(tmp_path)
    for code in ("import wpart", "import wpart.spatial", "from wpart import partition_1d"):
        proc = _py(code, tmp_path)
        assert proc.returncode != 0
        err = proc.stderr
        assert "ImportError: you are importing wpart from its source tree" in err, err
        assert "./tools/setup.sh" in err and "change to another directory" in err
        assert "circular import" not in err


def test_non_source_tree_keeps_original_error(tmp_path):
    _source_copy(tmp_path, with_markers=False)  # not a checkout: nothing to explain
    proc = _py("import wpart", tmp_path)
    assert proc.returncode != 0
    assert "ImportError" in proc.stderr and "source tree" not in proc.stderr


def test_built_checkout_imports(tmp_path):
    proc = _py("import wpart; print(wpart.__file__)", tmp_path, str(ROOT))
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).parent == ROOT / "wpart"


# ---------------------------------------------------------------------------------------------
# benchmarks: installed first, checkout as fallback (benchmarks/_common.py)

_USE = (
    "import sys; sys.path.insert(0, {bench!r}); import _common; "
    "print(_common.use_wpart()); import wpart; print(getattr(wpart, 'FAKE', 'real'))"
)


def test_benchmarks_prefer_installed_wpart(tmp_path):
    site = tmp_path / "site"
    (site / "wpart").mkdir(parents=True)
    (site / "wpart" / "__init__.py").write_text("FAKE = 'installed'\n")
    proc = _py(_USE.format(bench=str(ROOT / "benchmarks")), tmp_path, str(site))
    assert proc.returncode == 0, proc.stderr
    where, which = proc.stdout.split()
    assert which == "installed" and Path(where) == (site / "wpart").resolve()


def test_benchmarks_fall_back_to_checkout(tmp_path):
    # an empty site folder hides nothing; wpart may or may not be installed in this Python
    installed = _py("import wpart", tmp_path).returncode == 0
    proc = _py(_USE.format(bench=str(ROOT / "benchmarks")), tmp_path)
    assert proc.returncode == 0, proc.stderr
    where, which = proc.stdout.split()
    assert which == "real"
    if not installed:
        assert Path(where) == ROOT / "wpart"


def test_every_benchmark_uses_the_rule():
    for f in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        text = f.read_text()
        assert "use_wpart()" in text, f.name
        assert "sys.path.insert" not in text, f.name
