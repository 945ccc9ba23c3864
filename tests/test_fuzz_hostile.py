"""The standing hostile fuzz: every public entry point of every family (from ``__all__``, see
tests/_fuzz_hostile_table.py) gets ragged and object inputs, NaN/inf/None, huge declared
shapes and counts (2^24+1, 2^31, 2^40, a sparse matrix of 2^40 rows), huge values (2^62,
1e18, 1e308), empty and 0-d inputs, strings and negatives. A call may succeed or raise a
:class:`wpart.WpartError`; anything else (a bare ValueError, MemoryError, a crash, a call
beyond the time bound) fails its entry point.

The calls run in a worker process per family under an address-space cap (RLIMIT_AS, 6 GiB;
not under ASan, whose shadow memory needs the address space: there the sanitizer's
``allocator_may_return_null=1`` turns an absurd allocation into a NULL the core must handle)
and a per-call bound (10 s, 30 s sanitized): an unbounded allocation or loop fails the test
instead of the machine. The default run gives each entry point every class once, and the
ragged/object/dict/None classes in every slot (about 2,700 calls); ``WPART_FUZZ_WIDE=1`` (or
the ``slow`` test) every class in every argument slot.

Known failures in areas being fixed are listed in KNOWN (entry point -> reason) and marked
``xfail(strict=False)``; the cases among them that hang are not run (HANGS in the table).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fuzz_hostile_table as T  # noqa: E402

SANITIZED = os.environ.get("WPART_SANITIZED") == "1"
PER_CALL_S = 30.0 if SANITIZED else 10.0
AS_BYTES = 0 if SANITIZED else 6 << 30
WIDE = os.environ.get("WPART_FUZZ_WIDE") == "1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: entry point -> reason: failures found by this fuzz in areas still being fixed.
KNOWN: dict[str, str] = {
}

_RESULTS: dict[tuple[str, bool], dict[str, dict]] = {}


def _run_family(family: str, wide: bool) -> dict[str, dict]:
    """case id -> outcome, running the worker again after a case that hung or crashed it."""
    key = (family, wide)
    if key in _RESULTS:
        return _RESULTS[key]
    cs = T.cases(family, wide)
    res: dict[str, dict] = {}
    start = 0
    import wpart
    env = dict(os.environ, PYTHONFAULTHANDLER="1",
               WPART_FUZZ_PKG=os.path.dirname(os.path.dirname(os.path.abspath(wpart.__file__))))
    while start < len(cs):
        cmd = [sys.executable, os.path.join(ROOT, "tests", "_fuzz_hostile_table.py"), family,
               str(start), "1" if wide else "0", str(PER_CALL_S), str(AS_BYTES)]
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=PER_CALL_S * 4 + 60 * (1 + len(cs) // 200))
        last = None
        for line in p.stdout.splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if "S" in d:
                last = d["S"]
            else:
                res[cs[d.pop("R")][0]] = d
                last = None
        if p.returncode == 0 and last is None:
            break
        if last is None:  # died between cases (should not happen)
            last = start
        res[cs[last][0]] = {"outcome": "died", "rc": p.returncode,
                            "msg": p.stderr[-600:]}
        start = last + 1
    _RESULTS[key] = res
    return res


def _entries() -> list:
    out = []
    for name in sorted(T.ENTRY):
        marks = [pytest.mark.xfail(reason=KNOWN[name], strict=False)] if name in KNOWN else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def _family(name: str) -> str:
    for fam in sorted(T.FAMILIES, key=len, reverse=True):
        if name.startswith(fam + ".") and "." not in name[len(fam) + 1:].replace(
                "Profile.from_arrays", "P"):
            return fam
    raise LookupError(name)


def _check(name: str, wide: bool) -> None:
    res = _run_family(_family(name), wide)
    mine = {k: v for k, v in res.items() if k.split("|")[0] == name}
    assert mine, f"no case ran for {name}"
    assert mine[f"{name}|valid"]["outcome"] == "ok", (name, mine[f"{name}|valid"])
    bad = {k: v for k, v in mine.items() if v["outcome"] not in ("ok", "wpart")}
    assert not bad, f"{len(bad)} hostile calls of {name} escaped WpartError: " + json.dumps(
        bad, indent=1)[:3000]


def test_every_public_entry_point_is_fuzzed_or_exempt():
    pub = T.public_entries()
    missing = sorted(n for n, kind in pub.items()
                     if kind == "function" and n not in T.ENTRY and n not in T.EXEMPT)
    assert not missing, f"new public functions: add them to ENTRY or EXEMPT: {missing}"
    stale = sorted(n for n in list(T.ENTRY) + list(T.EXEMPT)
                   if n not in pub and not n.endswith(".Profile.from_arrays"))
    assert not stale, f"ENTRY/EXEMPT names that are no longer public: {stale}"


@pytest.mark.parametrize("name", _entries())
def test_hostile_inputs_raise_only_wpart_errors(name):
    _check(name, WIDE)


@pytest.mark.slow
@pytest.mark.parametrize("name", _entries())
def test_hostile_inputs_every_slot(name):
    _check(name, True)


def coverage_table(wide: bool = False) -> str:
    """Entry points x input classes: 'x' where a case ran (for the closing note)."""
    head = ["entry point"] + [c for c in T.CLASSES]
    rows = []
    for name in sorted(T.ENTRY):
        cls = {c[3] for c in T.cases(_family(name), wide) if c[1] == name}
        rows.append([name.replace("wpart.", "")] + ["x" if c in cls else "" for c in T.CLASSES])
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines = ["| " + " | ".join(h.ljust(w[i]) for i, h in enumerate(head)) + " |",
             "|" + "|".join("-" * (x + 2) for x in w) + "|"]
    lines += ["| " + " | ".join(v.ljust(w[i]) for i, v in enumerate(r)) + " |" for r in rows]
    return "\n".join(lines)
