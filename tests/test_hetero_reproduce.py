"""`wpart reproduce hetero --quick` passes and writes its table, JSON and figure."""

import json

from wpart.cli import main
from wpart.experiments.hetero import run_hetero


def test_run_hetero_quick(tmp_path):
    r = run_hetero(tmp_path, quick=True, progress=False)
    assert r["ok"], r["table"]
    assert all(r["checks"].values())
    for key in ("table", "json", "figure"):
        assert (tmp_path / r["files"][key].split("/")[-1]).exists()
    data = json.loads((tmp_path / "hetero.json").read_text())
    assert data["random"]["agree"] == data["random"]["instances"]


def test_cli_reproduce_hetero(tmp_path, capsys):
    assert main(["reproduce", "hetero", "--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "hetero: checks passed" in out
    assert "hetero verdicts:" in out and "NOT REGENERATED" in out
    lines = out.rstrip("\n").splitlines()
    assert lines[-1].startswith("verdicts: ") and lines[-1].endswith(" NOT REGENERATED")
    assert "additivity not measured" in out or "Additivity on this machine" in out
