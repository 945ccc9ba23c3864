"""`wpart reproduce spatial --quick` passes its checks and writes its files."""

import json

from wpart.experiments.spatial import run_spatial


def test_reproduce_spatial_quick(tmp_path):
    res = run_spatial(tmp_path, quick=True, progress=False)
    assert (
        res["checks"]["golden"] and res["checks"]["chain"] and res["checks"]["quality"]
    )
    for key in ("table", "json", "partitions", "imbalance"):
        assert (tmp_path / res["files"][key].split("/")[-1]).exists()
    data = json.loads((tmp_path / "spatial.json").read_text())
    assert data["family"] == "spatial"
    assert "JAG-M-OPT" in res["table"]
