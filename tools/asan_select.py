"""Choose the tests that the sanitized (ASan + UBSan) pytest stage of ``tools/test.sh`` runs.

The sanitized stage looks for memory errors in the C core, so what it must keep is the C code it
reaches.  This tool measures, per test, the basic blocks of the extension ``wpart._core`` that
the test executes (its own process and the ``python -m wpart`` processes it starts), then picks
a small set of tests whose blocks together are every block the whole stage reaches (greedy
weighted set cover: most new blocks per second first; then a pass that drops a chosen test whose
blocks the others all reach).  The rest is written to ``tests/asan_drop.txt``, which
``tests/conftest.py`` deselects in the sanitized stage; they all run in the plain stage.

Run from the repository root (about 10 minutes on 2 cores)::

    python tools/asan_select.py measure build/asan-cover.json   # instrumented build + pytest
    python tools/asan_select.py choose build/asan-cover.json > tests/asan_drop.txt
    python tools/asan_select.py check build/asan-cover.json build/asan-check.json
    python tools/asan_select.py choose build/asan-cover.json build/asan-check.json \
        > tests/asan_drop.txt   # again, with the blocks the two runs disagree on
    python tools/asan_select.py check build/asan-cover.json build/asan-check2.json

``check`` runs only the kept tests again under the instrumented build and prints the blocks the
whole stage reaches, the blocks the kept tests reach, and the difference (0 when nothing is
lost).  Some blocks are reached only when a time limit or a progress report falls inside the
call; ``choose`` given more runs needs each block that a test reached in one run and not in
another from three tests (or all that reach it).  A test that is not in the drop file (a new
one) runs in both stages.

As a pytest plugin (``-p asan_select``, with ``tools`` on ``PYTHONPATH``, the extension built
with ``-fsanitize-coverage=trace-pc`` and ``tools/asan_cover.c`` preloaded) it writes the JSON
named by ``--asan-cover-out``: ``{"tests": {nodeid: {"s": seconds, "b": [block ids]}}}``.
"""
from __future__ import annotations

import ctypes
import glob
import heapq
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(REPO, "build", "asan-cover")
PKG = os.path.join(REPO, "build", "asan-cover-pkg")

# ------------------------------------------------------------------------- the plugin ------
_STATE: dict = {"lib": None, "ids": {}, "tests": {}, "dir": None, "buf": None}


def pytest_addoption(parser):
    parser.addoption("--asan-cover-out", default=None, help="JSON of blocks reached per test")


def pytest_configure(config):
    path = os.environ.get("ASAN_COVER_LIB")
    if not config.getoption("--asan-cover-out") or not path:
        return
    lib = ctypes.CDLL(path)
    lib.asan_cover_read.restype = ctypes.c_size_t
    lib.asan_cover_read.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    lib.asan_cover_mark_parent()
    _STATE["lib"] = lib
    _STATE["dir"] = tempfile.mkdtemp(prefix="asan-cover-")
    _STATE["buf"] = (ctypes.c_uint64 * (1 << 20))()


def _block_ids(offsets) -> list:
    ids = _STATE["ids"]
    return sorted({ids.setdefault(int(o), len(ids)) for o in offsets})


def _read_blocks(prefix: str) -> list:
    lib, buf = _STATE["lib"], _STATE["buf"]
    n = min(lib.asan_cover_read(buf, len(buf)), len(buf))
    offsets = set(buf[:n])
    for f in glob.glob(prefix + ".*"):
        with open(f) as fh:
            offsets.update(int(ln) for ln in fh if ln.strip())
        os.unlink(f)
    return _block_ids(offsets)


try:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        lib = _STATE["lib"]
        if lib is None:
            yield
            return
        prefix = os.path.join(_STATE["dir"], "t%d" % len(_STATE["tests"]))
        os.environ["ASAN_COVER_CHILD"] = prefix
        lib.asan_cover_reset()
        t0 = time.perf_counter()
        yield
        seconds = time.perf_counter() - t0
        _STATE["tests"][item.nodeid] = {"s": round(seconds, 4), "b": _read_blocks(prefix)}
except ImportError:  # the chooser needs no pytest
    pass


def pytest_unconfigure(config):
    out = config.getoption("--asan-cover-out", default=None)
    if _STATE["lib"] is None or not out:
        return
    with open(out, "w") as fh:
        offsets = sorted(_STATE["ids"], key=_STATE["ids"].get)  # block id -> offset
        json.dump({"offsets": offsets, "tests": _STATE["tests"]}, fh)
    shutil.rmtree(_STATE["dir"], ignore_errors=True)


# ------------------------------------------------------------------------- measuring ------
def _build() -> str:
    """The extension with trace-pc instrumentation (-O1 -g, as the sanitized stage builds it,
    without the sanitizers), staged with a copy of the package; returns the path of the
    coverage runtime it builds beside it."""
    flags = "-O1 -g -fsanitize-coverage=trace-pc"
    subprocess.run(["cmake", "-S", REPO, "-B", BUILD, "-G", "Ninja", "-DWPART_BUILD_PYTHON=ON",
                    "-DWPART_BUILD_TESTS=OFF", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=" + flags], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", BUILD, "-j", os.environ.get("JOBS", "2")], check=True,
                   stdout=subprocess.DEVNULL)
    lib = os.path.join(BUILD, "libasan_cover.so")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", lib,
                    os.path.join(REPO, "tools", "asan_cover.c"), "-ldl"], check=True)
    shutil.rmtree(PKG, ignore_errors=True)
    shutil.copytree(os.path.join(REPO, "wpart"), os.path.join(PKG, "wpart"),
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for so in glob.glob(os.path.join(BUILD, "_core*.so")):
        shutil.copy(so, os.path.join(PKG, "wpart"))
    return lib


def _run(out: str, env_extra: dict, args: list, build: bool = True) -> int:
    lib = _build() if build else os.path.join(BUILD, "libasan_cover.so")
    env = dict(os.environ, LD_PRELOAD=lib, ASAN_COVER_LIB=lib, WPART_SANITIZED="1",
               MPLBACKEND="Agg", PYTHONPATH=os.path.join(REPO, "tools"), **env_extra)
    no_editable = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path "
                   "if type(f).__name__ != 'ScikitBuildRedirectingFinder']\n"
                   "import wpart, pytest\n"
                   f"assert wpart.__file__.startswith({PKG!r}), wpart.__file__\n"
                   "sys.exit(pytest.main(sys.argv[1:]))")
    cmd = [sys.executable, "-c", no_editable, "-q", "-p", "no:cacheprovider", "-p",
           "asan_select", "--rootdir", REPO, "-c", os.path.join(REPO, "pyproject.toml"),
           "--basetemp", os.path.join(REPO, "build", "pytest-asan-cover"),
           "--asan-cover-out", os.path.abspath(out), os.path.join(REPO, "tests")] + args
    return subprocess.run(cmd, cwd=PKG, env=env).returncode


# ------------------------------------------------------------------------- choosing ------
# Kept whatever the cover says: the hostile-input fuzz suites and the hostile, bad-input and
# degenerate-size files (memory errors hide in odd inputs more than in new blocks), each test
# that reaches the core in at most ALWAYS_SECONDS of the measuring run.
ALWAYS = re.compile(r"tests/test_(fuzz_[a-z_]+|[a-z_]*hostile[a-z_]*|degenerate_sizes|"
                    r"base_inputs)\.py::")
ALWAYS_SECONDS = 2.0


def choose(tests: dict, unstable: set = frozenset(), times: int = 3) -> list:
    """Node ids of a small set of tests whose blocks together are all blocks reached: the
    ALWAYS tests, then the others by most needed blocks per second.  A block in `unstable`
    (one a test reached in one run and not in another: a time limit, a progress report) is
    needed from `times` tests, or from all that reach it if fewer do; any other, from one."""
    cover = {t: set(v["b"]) for t, v in tests.items() if v["b"]}
    cost = {t: max(tests[t]["s"], 1e-3) for t in cover}
    always = {t for t in cover if ALWAYS.match(t) and tests[t]["s"] <= ALWAYS_SECONDS}
    reach: dict = {}
    for b in cover.values():
        for x in b:
            reach[x] = reach.get(x, 0) + 1
    need = {x: min(times if x in unstable else 1, c) for x, c in reach.items()}
    kept = set()

    def take(t):
        kept.add(t)
        for x in cover[t]:
            need[x] -= 1

    def gain(t):
        return sum(1 for x in cover[t] if need[x] > 0)

    for t in sorted(always):
        take(t)
    heap = [(-gain(t) / cost[t], t) for t in cover if t not in always]
    heapq.heapify(heap)
    while heap:
        _, t = heapq.heappop(heap)
        g = gain(t)
        if g == 0:
            continue
        if heap and g / cost[t] < -heap[0][0]:  # stale: push back with its true ratio
            heapq.heappush(heap, (-g / cost[t], t))
            continue
        take(t)
    # drop a chosen test none of whose blocks is still needed from it (dearest first)
    for t in sorted(kept - always, key=lambda t: -cost[t]):
        if all(need[x] < 0 for x in cover[t]):
            kept.discard(t)
            for x in cover[t]:
                need[x] += 1
    return sorted(kept)


def unstable_blocks(runs: list) -> set:
    """Ids (in the first run's numbering) of the blocks that some test reached in one of the
    runs and not in another."""
    first = runs[0]
    index = {o: i for i, o in enumerate(first["offsets"])}
    out: set = set()
    for other in runs[1:]:
        for t, v in other["tests"].items():
            if t not in first["tests"]:
                continue
            a = {first["offsets"][i] for i in first["tests"][t]["b"]}
            b = {other["offsets"][i] for i in v["b"]}
            out |= {index[o] for o in a ^ b if o in index}
    return out


def main(argv: list) -> int:
    if len(argv) >= 2 and argv[0] == "measure":
        # the full sanitized selection, without the drop file
        return _run(argv[1], {"WPART_ASAN_DROP": "0"}, argv[2:])
    if len(argv) >= 2 and argv[0] == "choose":
        runs = []
        for f in argv[1:]:
            with open(f) as fh:
                runs.append(json.load(fh))
        tests = runs[0]["tests"]
        kept = choose(tests, unstable_blocks(runs))
        total = sum(v["s"] for v in tests.values())
        kept_s = sum(tests[t]["s"] for t in kept)
        print("# The sanitized pytest stage (tools/test.sh) deselects these tests: the tests it "
              "keeps reach every\n# basic block of wpart._core that the whole stage reaches "
              "(measured by tools/asan_select.py:\n# %d tests, %d kept, %.0f s of %.0f s under "
              "the instrumented build). Remake it with that tool.\n"
              % (len(tests), len(kept), kept_s, total), end="")
        keep = set(kept)
        for t in sorted(tests):
            if t not in keep:
                print(t)
        return 0
    if len(argv) >= 3 and argv[0] == "check":
        with open(argv[1]) as fh:
            full = json.load(fh)
        # the same instrumented build as the measurement (block offsets are per build)
        rc = _run(argv[2], {}, argv[3:], build=False)
        with open(argv[2]) as fh:
            part = json.load(fh)
        a = _offsets(full)
        b = _offsets(part)
        print("blocks reached: whole stage %d, kept tests %d, lost %d"
              % (len(a), len(b), len(a - b)))
        return rc or (1 if a - b else 0)
    print(__doc__)
    return 2


def _offsets(data: dict) -> set:
    """The offsets (in the instrumented extension) of the blocks a run reached."""
    table = data["offsets"]
    return {table[b] for v in data["tests"].values() for b in v["b"]}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
