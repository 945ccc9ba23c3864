"""The ``wpart`` command line: ``reproduce`` end to end, usage errors, ``--version``."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import wpart
from wpart import cli

ROOT = Path(__file__).resolve().parent.parent


def _run(*args, timeout=300):
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    proc = _run("-m", "wpart", "reproduce", "--quick", "--out", str(out), "--no-progress")
    return proc, out


def test_reproduce_quick_exits_ok(reproduced):
    proc, _ = reproduced
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base: checks passed" in proc.stdout
    assert "FAIL" not in proc.stdout


def test_reproduce_writes_outputs(reproduced):
    _, out = reproduced
    table = (out / "base_table.txt").read_text()
    assert "1D golden chain" in table and "FAIL" not in table
    png = (out / "base_1d.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_reproduce_json_golden_values(reproduced):
    _, out = reproduced
    data = json.loads((out / "base.json").read_text())
    assert data["ok"] is True
    assert all(data["checks"].values())
    g = data["golden"]
    assert g["chain"] == [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
    assert g["q"] == [1, 2, 3, 4, 5]
    assert g["opt"] == [44, 23, 17, 14, 11]
    assert g["separators"] == {"4": [0, 5, 7, 10, 11], "5": [0, 4, 5, 7, 9, 11]}
    assert data["bounds"]["ok"] and data["hetero"]["ok"]


def test_table_printed(reproduced):
    proc, out = reproduced
    assert (out / "base_table.txt").read_text().strip() in proc.stdout


def test_verdict_summary_consistent(reproduced):
    proc, out = reproduced
    from wpart.experiments import _verdict as V

    data = json.loads((out / "verdicts.json").read_text())
    assert data["quick"] is True
    total = dict.fromkeys((*V.VERDICTS, "total"), 0)
    for family, rows in data["families"].items():
        counts = V.count_verdicts(rows)
        line = V.format_counts(counts, "verdicts")
        assert f"{family}: checks passed | {line}" in proc.stdout
        for k in total:
            total[k] += counts[k]
    assert data["counts"] == total
    assert total["total"] > 40 and total[V.NOT_REGENERATED] > 0
    # the last line counts the verdicts, the line before it the checks: never one word for both
    lines = proc.stdout.rstrip("\n").splitlines()
    assert lines[-1] == (f"verdicts: {total[V.MATCH]} MATCH, {total[V.DIFFERS]} DIFFERS, "
                         f"{total[V.NOT_REGENERATED]} NOT REGENERATED")
    assert lines[-1] == cli.summary_line(total)
    checks = [ln for ln in lines[-3:] if ln.startswith("checks")]
    assert len(checks) == 1 and f"passed in all {len(cli.REPRODUCERS)} families" in checks[0]
    assert "verdict" not in checks[0] and "check" not in lines[-1]
    assert "checks passed in all" not in proc.stdout  # the old merged summary is gone
    assert data["checks"] == dict.fromkeys(data["families"], "passed")


def test_last_line_parses_as_the_interface_says(reproduced):
    import re

    proc, _ = reproduced
    last = proc.stdout.rstrip("\n").splitlines()[-1]
    m = re.fullmatch(r"verdicts: (\d+) MATCH, (\d+) DIFFERS, (\d+) NOT REGENERATED", last)
    assert m, last
    assert int(m.group(2)) > 0  # substitute data: some figures honestly differ


def test_no_verdict_row_says_ok_or_pass(reproduced):
    _, out = reproduced
    data = json.loads((out / "verdicts.json").read_text())
    for rows in data["families"].values():
        for r in rows:
            text = " ".join(str(v) for v in r.values()).replace("(", " ").split()
            assert "OK" not in text and "PASS" not in text, r


def test_quick_mode_says_quick(reproduced):
    proc, _ = reproduced
    assert "quick run in" in proc.stdout
    assert "m = 9216 reproduced" not in proc.stdout


def test_unknown_family_lists_valid_ones():
    proc = _run("-m", "wpart", "reproduce", "nosuch", timeout=60)
    assert proc.returncode == 2
    assert "nosuch" in proc.stderr
    for family in cli.REPRODUCERS:
        assert family in proc.stderr


def test_unknown_family_in_process(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["reproduce", "base", "nosuch"])
    assert exc.value.code == 2
    assert "available: base" in capsys.readouterr().err


def test_version():
    proc = _run("-m", "wpart", "--version", timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"wpart {wpart.__version__}"


def test_no_command_prints_help(capsys):
    assert cli.main([]) == 2
    assert "reproduce" in capsys.readouterr().out


def test_registry_entries_import():
    for family in cli.REPRODUCERS:
        assert callable(cli.load_reproducer(family))


def test_failed_check_gives_exit_1(monkeypatch, tmp_path, capsys):
    def fake(out_dir, quick, progress):
        return {"ok": False, "table": "fake table"}

    monkeypatch.setitem(cli.REPRODUCERS, "fake", "tests.fake:run")
    monkeypatch.setattr(cli, "load_reproducer", lambda family: fake)
    assert cli.main(["reproduce", "fake", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    lines = out.rstrip("\n").splitlines()
    assert "fake table" in out and lines[-1] == "verdicts: 0 MATCH, 0 DIFFERS, 0 NOT REGENERATED"
    assert any(ln.startswith("checks") and "FAILED in fake" in ln for ln in lines[-3:])


def test_family_error_is_reported_and_exits_1(monkeypatch, tmp_path, capsys):
    def boom(out_dir, quick, progress):
        raise RuntimeError("broken reproducer")

    def fine(out_dir, quick, progress):
        from wpart.experiments._verdict import Verdict, Verdicts

        vs = Verdicts("fine")
        vs.add(Verdict("Fig. 1", "q", "1", "1", "MATCH", "exact"),
               Verdict("Fig. 2", "q", "1", "3", "DIFFERS", "+-20% of 1", "substitute data"))
        return {"ok": True, "table": vs.table(), "verdicts": vs.to_list(), "counts": vs.counts()}

    monkeypatch.setitem(cli.REPRODUCERS, "boom", "tests.boom:run")
    monkeypatch.setitem(cli.REPRODUCERS, "fine", "tests.fine:run")
    monkeypatch.setattr(cli, "load_reproducer", lambda family: boom if family == "boom" else fine)
    assert cli.main(["reproduce", "fine", "boom", "--out", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    assert lines[-1] == "verdicts: 1 MATCH, 1 DIFFERS, 0 NOT REGENERATED"
    assert any(ln.startswith("checks") and "boom (ERROR)" in ln for ln in lines[-3:])


def test_bench_base_quick(tmp_path):
    # About 10 s on 2 cores, under the 20 s limit for the default run (else mark it slow).
    out = tmp_path / "bench.json"
    proc = _run("benchmarks/bench_base.py", "--quick", "--out", str(out), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(out.read_text())
    assert data["exact_methods_agree"] is True
    assert data["prefix"] and data["oned"] and data["slopes"]


def test_reproduce_output_is_at_most_120_wide_with_csv_and_a_figure_per_family(reproduced):
    proc, out = reproduced
    wide = [ln for ln in proc.stdout.splitlines() if len(ln) > 120]
    assert not wide, wide[:3]
    for family in cli.REPRODUCERS:
        text = (out / f"{family}_table.txt").read_text()
        assert max(len(ln) for ln in text.splitlines()) <= 120, family
        pngs = list(out.glob(f"{family}*.png"))
        assert pngs, f"{family} writes no figure"
        assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    csvs = sorted(out.glob("*_wide_*.csv"))
    assert csvs  # the wrapped tables, every column in full
    import csv

    for f in csvs:
        rows = list(csv.reader(f.open()))
        assert len(rows) >= 2 and max(len(r) for r in rows) >= 2
    assert "whatever the verdicts" in proc.stdout  # exit 0 means the checks ran and passed


def test_narrow_text_resets_aligned_tables_and_wraps_prose():
    from wpart.experiments import take_wide_tables

    take_wide_tables()
    head = "  ".join(f"column{i:02d}" for i in range(14))
    table = "\n".join([head, "  ".join(["--------"] * 14),
                       "  ".join(f"{i * 1.5:8.2f}" for i in range(14))])
    text = "x " * 100 + "\n\n" + table
    narrow = cli.narrow_text(text)
    assert max(len(ln) for ln in narrow.splitlines()) <= 120
    assert "column13" in narrow and "19.50" in narrow
    assert len(take_wide_tables()) == 1
