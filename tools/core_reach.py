"""Pytest plugin: which test files reach the C extension ``wpart._core``.

Used to choose the files that the sanitized (ASan + UBSan) pytest stage of ``tools/test.sh``
runs: a file none of whose tests calls into ``wpart._core`` gains nothing from the sanitized
extension, and runs once, in the plain stage.  Run::

    PYTHONPATH=tools python -m pytest -p core_reach -q tests --core-reach-out reach.json

The plugin loads ``wpart._core`` itself before ``wpart`` is imported, and wraps each of its
functions (and the ``Balancer`` type) so that a call records the running test.  The JSON written
maps each test id to whether it reached the core and its duration in seconds.
"""
from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import json
import os
import sys

_STATE = {"test": None, "hit": set(), "dur": {}}


def _load_wrapped_core() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.join(os.path.dirname(here), "wpart")
    so = [f for f in os.listdir(pkg) if f.startswith("_core") and f.endswith(
        tuple(importlib.machinery.EXTENSION_SUFFIXES))]
    if not so or "wpart._core" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location("wpart._core", os.path.join(pkg, so[0]))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def mark():
        if _STATE["test"] is not None:
            _STATE["hit"].add(_STATE["test"])

    for name in dir(mod):
        obj = getattr(mod, name)
        if type(obj).__name__ == "builtin_function_or_method":
            def wrap(f):
                @functools.wraps(f)
                def w(*a, **k):
                    mark()
                    return f(*a, **k)
                return w
            setattr(mod, name, wrap(obj))
        elif name == "Balancer":
            base = obj

            class _Meta(type):  # the type cannot be subclassed: stand in for it
                def __instancecheck__(cls, inst):
                    return isinstance(inst, base)

                def __call__(cls, *a, **k):
                    mark()
                    return base(*a, **k)
            setattr(mod, name, _Meta("Balancer", (), {}))
    sys.modules["wpart._core"] = mod


_load_wrapped_core()


def pytest_addoption(parser):
    parser.addoption("--core-reach-out", default="core_reach.json")


def pytest_runtest_protocol(item, nextitem):
    _STATE["test"] = item.nodeid
    return None


def pytest_runtest_logreport(report):
    _STATE["dur"][report.nodeid] = _STATE["dur"].get(report.nodeid, 0.0) + report.duration
    if report.when == "teardown" and _STATE.get("log"):
        with open(_STATE["log"], "a") as fh:  # one line a test, as the run goes
            fh.write(json.dumps({"id": report.nodeid, "reach": report.nodeid in _STATE["hit"],
                                 "seconds": round(_STATE["dur"][report.nodeid], 4)}) + "\n")


def pytest_configure(config):
    _STATE["log"] = config.getoption("--core-reach-out") + "l"


def pytest_sessionfinish(session, exitstatus):
    tests = {item.nodeid: {"reach": item.nodeid in _STATE["hit"],
                           "seconds": round(_STATE["dur"].get(item.nodeid, 0.0), 4)}
             for item in session.items}
    out = session.config.getoption("--core-reach-out")
    with open(out, "w") as fh:
        json.dump(tests, fh, indent=0, sort_keys=True)


# ------------------------------------------------------------------ the list it makes ----
_SPAWN = ("subprocess", "Popen", "multiprocessing", "os.fork", "ProcessPool", "ProcessWorker",
          "run_mpi", "mpirun", "sys.executable")


def _spawning_tests(path: str) -> set:
    """Names of the test functions of `path` that start other processes, directly or through
    a function of the same file (a call there reaches the core out of this plugin's sight)."""
    import ast

    src = open(path).read()
    tree = ast.parse(src)
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef,
                                                                  ast.AsyncFunctionDef))}
    text = {k: ast.get_source_segment(src, v) or "" for k, v in funcs.items()}
    spawn = {k for k, t in text.items() if any(s in t for s in _SPAWN)}
    changed = True
    while changed:
        changed = False
        for k, t in text.items():
            if k not in spawn and any(f"{c}(" in t for c in spawn):
                spawn.add(k)
                changed = True
    if any(s in src.split("\ndef ", 1)[0] for s in ("subprocess.run(", "Popen(")):
        return set(funcs)  # the module itself spawns at import: all of it
    return {k for k in spawn if k.startswith("test")}


def write_pure(logs: list, out: str) -> None:
    """Write `out` (tests/asan_pure.txt): the ids of the tests that did not reach the core in
    the runs logged in `logs` (the ``.jsonl`` files), less those that start processes."""
    rows = {}
    for f in logs:
        with open(f) as fh:
            for ln in fh:
                r = json.loads(ln)
                rows[r["id"]] = r
    cache: dict = {}
    pure = []
    for i, r in sorted(rows.items()):
        if r["reach"]:
            continue
        path, name = i.split("::")[0], i.split("::")[1].split("[")[0]
        if path not in cache:
            cache[path] = _spawning_tests(path) if os.path.exists(path) else set()
        if name not in cache[path]:
            pure.append(i)
    with open(out, "w") as fh:
        fh.write("# Tests that never reach wpart._core: the sanitized pytest stage of tools/test.sh\n"
                 "# deselects them (they run in the plain stage). Made by tools/core_reach.py:\n"
                 "#   PYTHONPATH=tools python -m pytest -p core_reach tests ... --core-reach-out R.json\n"
                 "#   python tools/core_reach.py R.jsonl [...] > tests/asan_pure.txt\n"
                 "# (tests that start processes are never listed: their calls are out of sight).\n")
        fh.write("\n".join(pure) + "\n")


if __name__ == "__main__":  # python tools/core_reach.py R.jsonl [R2.jsonl ...] (from the root)
    write_pure(sys.argv[1:], "/dev/stdout")
