"""`wpart/_core.pyi` describes the extension completely: every name the built extension
exports has a stub, and every stub names something the extension exports."""

import ast
import pathlib

import wpart
from wpart import _core


def _stub_names() -> set[str]:
    tree = ast.parse(pathlib.Path(wpart.__file__).with_name("_core.pyi").read_text())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_stub_is_complete():
    real = {n for n in dir(_core) if not n.startswith("__")}
    stub = _stub_names()
    assert not real - stub, f"_core.pyi lacks {sorted(real - stub)}"
    assert not stub - real, f"_core.pyi names what the extension lacks: {sorted(stub - real)}"


def test_stub_exceptions_match_the_extension():
    for name in _stub_names():
        obj = getattr(_core, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, wpart.WpartError), name
