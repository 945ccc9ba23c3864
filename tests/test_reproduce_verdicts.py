"""The shared verdict facility (wpart.experiments._verdict) and its use by the families."""

import re

import pytest

from wpart.experiments import _verdict as V


def test_verdict_validation():
    with pytest.raises(ValueError,
                       match=r"^`verdict`\ must\ be\ one\ of\ \('MATCH',\ 'DIFFERS',\ 'NOT\ REGENERATED'\),\ got\ 'OK'"):
        V.Verdict("Fig. 1", "x", "1", "1", "OK")
    with pytest.raises(ValueError,
                       match=r"^a\ MATCH\ verdict\ needs\ the\ `tolerance`\ it\ was\ judged\ by"):
        V.Verdict("Fig. 1", "x", "1", "1", V.MATCH)  # no tolerance
    with pytest.raises(ValueError, match=r"^a\ DIFFERS\ verdict\ needs\ a\ `reason`"):
        V.Verdict("Fig. 1", "x", "1", "2", V.DIFFERS, "+-0")  # no reason
    with pytest.raises(ValueError, match=r"^a\ NOT\ REGENERATED\ verdict\ needs\ a\ `reason`"):
        V.Verdict("Fig. 1", "x", "1", "-", V.NOT_REGENERATED)
    v = V.Verdict("Fig. 1", "x", "1", "-", V.NOT_REGENERATED, reason="needs a GPU")
    assert v.to_dict()["reason"] == "needs a GPU"


def test_within():
    kw = dict(paper="5%", lo=3.5, hi=6.5, run="r", fmt="{:.1f}%", reason_off="substitute")
    assert V.within("F", "q", ours=5.0, **kw).verdict == V.MATCH
    d = V.within("F", "q", ours=9.0, **kw)
    assert d.verdict == V.DIFFERS and "above" in d.reason and "substitute" in d.reason
    assert V.within("F", "q", ours=1.0, **kw).reason.startswith("below")
    assert V.within("F", "q", ours=None, **kw).verdict == V.NOT_REGENERATED
    assert V.within("F", "q", ours=float("nan"), **kw).verdict == V.NOT_REGENERATED


def test_near_is_a_reviewer_tolerance():
    kw = dict(paper="68", run="r", fmt="{:.0f}", reason_off="synthetic profiles")
    assert V.near("F", "points", target=68, ours=36.0, **kw).verdict == V.DIFFERS  # 0.53x
    assert V.near("F", "ratio", target=25, ours=12.9, **kw).verdict == V.DIFFERS  # 0.52x
    assert V.near("F", "points", target=68, ours=60.0, **kw).verdict == V.MATCH  # -12 %
    assert V.near("F", "points", target=68, ours=82.0, **kw).verdict == V.DIFFERS  # +21 %
    v = V.near("F", "points", target=68, ours=55.0, **kw)
    assert v.verdict == V.MATCH and v.tolerance == "+-20% of 68"
    # a small rounded value: the stated absolute tolerance
    v = V.near("F", "gain %", paper="0.7", target=0.7, ours=1.5, run="r", fmt="{:.1f}",
               reason_off="x", abs_tol=1, unit="point")
    assert v.verdict == V.MATCH and v.tolerance == "+-20% of 0.7, or +-1 point"
    assert V.near("F", "q", target=1, ours=None, **kw).verdict == V.NOT_REGENERATED
    with pytest.raises(ValueError, match="rel"):
        V.near("F", "q", target=1, ours=1.0, rel=1.0, **kw)  # a factor of two is not a MATCH
    with pytest.raises(ValueError, match="abs_tol"):
        V.near("F", "q", target=1, ours=1.0, abs_tol=-1, **kw)


def test_counts_and_table():
    vs = V.Verdicts("demo")
    vs.add(V.Verdict("a", "q", "1", "1", V.MATCH, "exact"),
           V.Verdict("b", "q", "1", "2", V.DIFFERS, "exact", "substitute data"),
           V.Verdict("c", "q", "1", "-", V.NOT_REGENERATED, reason="no GPU"))
    c = vs.counts()
    assert c == {V.MATCH: 1, V.DIFFERS: 1, V.NOT_REGENERATED: 1, "total": 3}
    t = vs.table()
    assert "demo verdicts: 1 MATCH, 1 DIFFERS, 1 NOT REGENERATED (3 headline figures)" in t
    assert "substitute data" in t and "no GPU" in t
    with pytest.raises(TypeError, match=r"^expected\ a\ Verdict,\ got\ dict"):
        vs.add({"verdict": "MATCH"})


def _check_family(res):
    rows = res["verdicts"]
    counts = V.count_verdicts(rows)
    assert res["counts"] == counts
    assert sum(counts[v] for v in V.VERDICTS) == counts["total"] == len(rows)
    for r in rows:
        assert r["verdict"] in V.VERDICTS
        for field in ("paper", "ours", "verdict", "tolerance", "reason"):
            words = str(r[field]).replace("(", " ").replace(")", " ").split()
            assert "OK" not in words and "PASS" not in words, r
        if r["verdict"] != V.MATCH:
            assert r["reason"]
        # no factor-of-two (or three) tolerance calls a figure a MATCH
        assert not re.search(r"0\.5x|\b[23]x of|within [23]x|widened", r["tolerance"]), r
    # the printed verdict table never says OK or PASS either
    block = res["table"].split("headline results beside ours")[1].split("verdicts:")[0]
    assert " OK" not in block and "PASS" not in block


def test_tasks_verdicts(tmp_path):
    from wpart.experiments.tasks import run_tasks

    res = run_tasks(tmp_path, quick=True, progress=False)
    assert res["ok"]
    _check_family(res)
    figs = {r["figure"] for r in res["verdicts"]}
    assert {"Fig. 4a", "Fig. 4b", "Fig. 5"} <= figs
    milp = [r for r in res["verdicts"] if r["figure"] == "Fig. 4a"]
    assert any("GLPK" in r["run"] for r in milp)


def test_hetero_verdicts(tmp_path):
    from wpart.experiments.hetero import run_hetero

    res = run_hetero(tmp_path, quick=True, progress=False)
    _check_family(res)
    figs = {r["figure"] for r in res["verdicts"]}
    assert {"Fig. 6 (Sec. 1)", "Fig. 9 (Sec. 1)", "Sec. 8.2 DGEMM", "Sec. 8.3 DGEMM",
            "Sec. 8.2 2D-FFT", "Sec. 8.3 2D-FFT", "Table III (Sec. 8.1)"} <= figs
    # the paper's 68 Pareto points against our 36 is not called a MATCH
    pts = [r for r in res["verdicts"] if r["quantity"] == "Pareto points"]
    assert pts and all(r["tolerance"].startswith("+-20%") for r in pts)
    tot = [r for r in res["verdicts"] if "total" in r["quantity"]
           and r["verdict"] == V.DIFFERS]
    assert all("ASSUMED static power" in r["reason"] for r in tot)
