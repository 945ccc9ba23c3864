"""First-contact audit of wpart.dynamic's platform JSON files: every refusal names the file
and the JSON path of the field, unknown keys are refused (strict), a folder is not a preset
name, and the preset "machines" is documented."""

from __future__ import annotations

import copy
import json
import math
import warnings
from pathlib import Path

import pytest

import wpart
import wpart.dynamic as D
from oracles.raises import raises_exactly

NODE = {"name": "my-node", "total": 20000, "sigma": 0.02,
        "devices": [{"kind": "cpu", "family": "affine", "t0": 0.0, "rate": 100.0},
                    {"kind": "gpu", "family": "saturating", "t0": 0.01, "rate": 2000.0,
                     "bsat": 4096.0},
                    {"kind": "gpu", "family": "power", "t0": 0.01, "c": 0.001, "beta": 1.1},
                    {"kind": "cpu", "family": "table", "x": [0, 1000, 5000],
                     "t": [0.001, 1.0, 4.0]}]}


def _write(folder: Path, doc, name: str = "node.json") -> Path:
    p = folder / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


_raises = raises_exactly


def test_valid_platform_file_reads_and_simulates(tmp_path):
    p = _write(tmp_path, NODE)
    pl = D.Platform.from_json(p)
    assert pl.m == 4 and pl.n == 20000 and pl.name == "my-node"
    assert pl.kinds == ("cpu", "gpu", "gpu", "cpu")
    assert all(d.sigma == 0.02 for d in pl.devices)
    r = D.simulate(pl, "greedy", seed=0)
    assert r.success and int(r.elements.sum()) == 20000
    for spec in (str(p), p):  # a path is a platform argument too
        assert D.simulate(spec, "greedy", seed=0).makespan == r.makespan
    doc = {k: v for k, v in NODE.items() if k not in ("name", "sigma")}
    pl2 = D.Platform.from_json(_write(tmp_path, doc, "bare.json"))
    assert pl2.name == "bare" and all(d.sigma == 0.0 for d in pl2.devices)


def _set(path, value):
    def change(d):
        *head, last = path
        for k in head:
            d = d[k]
        d[last] = value
    return change


def _drop(path):
    def change(d):
        *head, last = path
        for k in head:
            d = d[k]
        del d[last]
    return change


BAD = [
    # (change, class, fragments)
    (_set(("devices", 0, "rate"), math.nan), wpart.WpartValueError,
     ["devices[0].rate: ", "NaN"]),
    (_set(("devices", 0, "rate"), -100), wpart.WpartValueError,
     ["devices[0].rate: must be > 0, got -100"]),
    (_set(("devices", 0, "rate"), 0), wpart.WpartValueError, ["devices[0].rate: must be > 0"]),
    (_set(("devices", 0, "rate"), math.inf), wpart.WpartValueError,
     ["devices[0].rate: must be finite"]),
    (_set(("devices", 0, "rate"), "100"), wpart.WpartTypeError,
     ["devices[0].rate: must be a number", "'100'"]),
    (_set(("total",), 0), wpart.WpartValueError, ["total: must be an integer >= 1, got 0"]),
    (_set(("total",), 2.5), wpart.WpartTypeError, ["total: must be an integer, got 2.5"]),
    (_set(("total",), 1e30), wpart.WpartTypeError, ["total: must be an integer"]),
    (_set(("total",), 10**30), wpart.WpartValueError, ["total: must be an integer <="]),
    (_set(("sigma",), -1), wpart.WpartValueError, ["sigma: must be >= 0, got -1"]),
    (_set(("sigma",), 50), wpart.WpartValueError, ["sigma: must be <= 5, got 50"]),
    (_set(("devices", 0, "kind"), "tpu"), wpart.WpartValueError,
     ["devices[0].kind: must be one of cpu, gpu, phi", "'tpu'"]),
    (_set(("devices", 1, "bsat"), 0), wpart.WpartValueError, ["devices[1].bsat: must be > 0"]),
    (_set(("devices", 3, "t"), [0.001, -1.0, 4.0]), wpart.WpartValueError,
     ["devices[3].t[1]: must be >= 0, got -1.0"]),
    (_set(("devices", 3, "x"), [0, 5000, 1000]), wpart.WpartValueError,
     ["devices[3].x[2]: the sizes must increase strictly"]),
    (_set(("devices", 3, "t"), [1.0]), wpart.WpartValueError, ["devices[3].t: 1 times for 3"]),
    (_set(("devices", 2, "beta"), -2), wpart.WpartValueError,
     ["devices[2].beta: must be > 0, got -2"]),
    (_set(("devices", 0, "family"), "cubic"), wpart.WpartValueError,
     ["devices[0].family: must be one of affine, saturating, power, table"]),
    (_drop(("devices", 0, "t0")), wpart.WpartValueError, ["devices[0].t0: missing"]),
    (_drop(("total",)), wpart.WpartValueError, ["total: missing"]),
    (_set(("devices",), []), wpart.WpartValueError, ["devices: must be a non-empty list"]),
    (_set(("devices", 0), [1]), wpart.WpartValueError, ["devices[0]: must be an object"]),
    (_set(("name",), 3), wpart.WpartTypeError, ["name: must be a string"]),
]


@pytest.mark.parametrize("change, cls, fragments", BAD)
def test_every_refusal_names_the_file_and_the_field(tmp_path, change, cls, fragments):
    doc = copy.deepcopy(NODE)
    change(doc)
    p = _write(tmp_path, doc)
    _raises(cls, f"{p}: ", *fragments, call=lambda: D.Platform.from_json(p))
    _raises(cls, f"{p}: ", *fragments, call=lambda: D.simulate(str(p), "greedy"))


def test_python_api_messages_are_unchanged():
    with pytest.raises(wpart.WpartValueError, match=r"^`rate` must be > 0, got -100$"):
        D.Platform([D.Device("cpu", 0, D.Affine(0.0, -100))])
    with pytest.raises(wpart.WpartValueError, match=r"^`n` must be an integer >= 1, got 0$"):
        D.Platform([D.Device("cpu", 0, D.Affine(0.0, 1.0))], n=0)


def test_unknown_and_repeated_keys(tmp_path):
    doc = copy.deepcopy(NODE)
    doc["devices"][0]["typo"] = 1
    p = _write(tmp_path, doc)
    _raises(wpart.WpartValueError, f"{p}: devices[0].typo: unknown key",
            "kind, family, t0, rate", "strict=False", call=lambda: D.Platform.from_json(p))
    doc["devices"][0].pop("typo")
    doc["extra"] = 1
    p = _write(tmp_path, doc)
    _raises(wpart.WpartValueError, f"{p}: extra: unknown key", "name, total, sigma, devices",
            call=lambda: D.Platform.from_json(p))
    doc["devices"][0]["bsat"] = 3.0  # a key of another family
    p = _write(tmp_path, doc)
    _raises(wpart.WpartValueError, "unknown key", call=lambda: D.Platform.from_json(p))
    lax = D.Platform.from_json(p, strict=False)
    assert lax == D.Platform.from_json(_write(tmp_path, NODE, "clean.json"))
    with pytest.raises(wpart.WpartTypeError, match="`strict`"):
        D.Platform.from_json(p, strict="no")
    twice = '{"total": 10, "total": 20, "devices": [{"family": "affine", "t0": 0, "rate": 1}]}'
    p = _write(tmp_path, twice, "twice.json")
    _raises(wpart.WpartValueError, f"{p}: total: given twice",
            call=lambda: D.Platform.from_json(p))


def test_unreadable_files(tmp_path):
    missing = tmp_path / "missing.json"
    _raises(wpart.WpartFileNotFoundError, missing, call=lambda: D.Platform.from_json(missing))
    _raises(wpart.WpartFileNotFoundError, missing, call=lambda: D.simulate(str(missing), "greedy"))
    bad = _write(tmp_path, '{"total": 10,', "bad.json")
    _raises(wpart.WpartValueError, f"{bad}: not valid JSON", call=lambda: D.Platform.from_json(bad))
    top = _write(tmp_path, "[1]", "list.json")
    _raises(wpart.WpartValueError, f"{top}: (top level): must be an object",
            call=lambda: D.Platform.from_json(top))


def test_a_folder_is_not_a_preset_name(tmp_path, monkeypatch):
    (tmp_path / "adir").mkdir()
    monkeypatch.chdir(tmp_path)
    for spec in ("adir", "./adir", tmp_path / "adir"):
        _raises(wpart.WpartOSError, "adir", "is a directory, not a platform JSON file",
                call=lambda: D.simulate(spec, "greedy"))
    _raises(wpart.WpartOSError, "is a directory, not a platform JSON file",
            call=lambda: D.Platform.from_json(tmp_path / "adir"))
    (tmp_path / "hetero3").mkdir()  # a preset name wins over a folder or file of that name
    assert D.simulate("hetero3", "greedy", seed=0).success
    e = _raises(wpart.WpartValueError, "`platform`", "'nowhere'",
                call=lambda: D.simulate("nowhere", "greedy"))
    for name in ("paper5", "adapt2", "hetero3", "linear4", "machines"):
        assert repr(name) in str(e)


def test_machines_preset_is_documented_paper5_under_its_own_label():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = D.Platform.preset("machines", machines="AB", app="grn")
    b = D.Platform.preset("paper5", machines="AB", app="grn")
    assert a.devices == b.devices and a.n == b.n
    assert a.name == "machines AB grn" and b.name == "paper5 AB grn"
    assert '``"machines"``' in D.Platform.preset.__doc__
    assert '"machines"' in D.simulate.__doc__ and "from_json" in D.simulate.__doc__


@pytest.mark.parametrize("make, match", [
    (lambda: D.Affine(float("nan"), 1.0), "`t0` must not be NaN"),
    (lambda: D.Affine(0.0, -1.0), "`rate` must be > 0"),
    (lambda: D.Table([1.0, 0.0], [0.0, 1.0]), "must increase strictly"),
    (lambda: D.Device("tpu", 0, D.Affine(0.0, 1.0)), "`kind` must be one of"),
    (lambda: D.Device("cpu", 0, D.Affine(0.0, 1.0), p_out=2.0), "`p_out` must be in"),
])
def test_curves_and_devices_refuse_bad_fields_at_once(make, match):
    """The README: bad input raises at once, naming the argument (a curve or device with a bad
    field was accepted until it went into a Platform)."""
    with pytest.raises(wpart.WpartValueError, match=match):
        make()
