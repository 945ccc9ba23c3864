"""benchmarks/bench_spatial_sarma.py --mtx: rect_nicol beside SARMA's nine on MatrixMarket
files, per weighting (stored / count) and grid, against loads built here from the file's text."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from wpart import spatial


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_spatial_sarma

    return bench_spatial_sarma


def _write(path, header, shape, entries):
    lines = [f"%%MatrixMarket matrix coordinate {header}", f"{shape[0]} {shape[1]} {len(entries)}"]
    lines += [" ".join(str(v) for v in e) for e in entries]
    path.write_text("\n".join(lines) + "\n")


def _dense(shape, entries, symmetric, weights):
    """The loads of a file's entries (1-based, value last when there is one), by hand."""
    D = np.zeros(shape, np.int64)
    for e in entries:
        i, j = e[0] - 1, e[1] - 1
        one = 1 if weights == "stored" or len(e) == 2 or e[2] != 0 else 0
        D[i, j] += one
        if symmetric and i != j:
            D[j, i] += one
    return D


def _files(tmp_path):
    rng = np.random.default_rng(5)
    d = tmp_path / "mtx"
    d.mkdir()
    cells = rng.choice(60 * 60, 500, replace=False)
    pat = [(c // 60 + 1, c % 60 + 1) for c in cells]
    _write(d / "pat.mtx", "pattern general", (60, 60), pat)
    sym = [(i, i, 2.5) for i in range(1, 41)] + [(i + 3, i, -1.0) for i in range(1, 38)]
    sym += [(int(i) + 10, int(i), 0.5) for i in rng.integers(1, 30, 40)]  # some repeat
    sym.append((40, 1, 0.0))  # an explicit zero: both triangles
    sym = list(dict.fromkeys(sym))
    _write(d / "sym.mtx", "real symmetric", (40, 40), sym)
    _write(d / "flat.mtx", "integer general", (6, 50), [(i % 6 + 1, i + 1, 3) for i in range(50)])
    return d, {"pat": ((60, 60), pat, False), "sym": ((40, 40), sym, True),
               "flat": ((6, 50), [(i % 6 + 1, i + 1, 3) for i in range(50)], False)}


def test_mtx_rows_match_rect_nicol_and_the_nine(bench, tmp_path, capsys):
    d, spec = _files(tmp_path)
    out = tmp_path / "x.json"
    assert bench.main(["--mtx", str(d), "--repeat", "1", "--grids", "4x4,8x8",
                       "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    cases = res["cases"]
    got = {(c["matrix"], c["weights"], c["P"], c["Q"]) for c in cases}
    # flat has 6 rows: no 8x8
    assert got == {(m, w, P, P) for m in ("flat", "pat", "sym") for w in ("stored", "count")
                   for P in (4, 8)} - {("flat", w, 8, 8) for w in ("stored", "count")}
    for c in cases:
        shape, entries, symmetric = spec[c["matrix"]]
        D = _dense(shape, entries, symmetric, c["weights"])
        assert (c["n1"], c["n2"], c["total"], c["nnz"]) == (*shape, D.sum(), np.count_nonzero(D))
        P, Q = c["P"], c["Q"]
        r = spatial.rect_nicol(d / c["file"], P * Q, P=P, Q=Q, weights=c["weights"])
        mx = c["wpart"]["rect_nicol"]["max_load"]
        assert mx == r.max_load == spatial.rect_nicol(D, P * Q, P=P, Q=Q).max_load
        assert set(c["sarma"]) == set(bench._sarma.NINE)  # square grids: all nine
        M = bench._sarma.Mat(D)
        assert c["sarma"]["nic"]["max_load"] == M.lmax(*bench._sarma.run("nic", M, P, Q))
        best9 = min(v["max_load"] for v in c["sarma"].values())
        assert c["best_of_nine"] == best9 == c["sarma"][c["best_alg"]]["max_load"]
        assert c["goal_load"] == (mx <= best9)
        assert c["nic_idx_max_load"] > 0 and c["nic_c_cpu"] >= 0
        # SARMA's SGO members from its command line's seed beside them (both seeds)
        seeded = c["sarma_cli_seed"]
        assert set(seeded) == {a for a in bench._sarma.NINE if a.startswith("sgo")}
        assert seeded["sgo_2dr"]["max_load"] == M.lmax(
            *bench._sarma.run("sgo_2dr", M, P, Q, bench._sarma.CLI_SEED))
        both = min([best9] + [v["max_load"] for v in seeded.values()])
        assert c["best_both"] == both and c["goal_load_both"] == (mx <= both)
        # the goal's CPU: rect_nicol and the C nic timed together in loops
        assert c["cpu_timing"] == "paired loops" and c["wpart"]["rect_nicol"]["cpu"] > 0
        # ... and the call on the path and on scipy.io.mmread's COO matrix in the same loops
        w = c["wpart"]["rect_nicol"]
        assert w["cpu_path"] > 0 and w["cpu_coo"] > 0 and w["cpu_coo_scipy"] > 0
        assert w["cpu_path_parse"] > 0
        assert c["coo_speedup"] == w["cpu_coo_scipy"] / w["cpu_coo"]
        # (the baseline is the same partition, through scipy's conversion)
        X = bench.sp.coo_array(bench.scipy.io.mmread(d / c["file"]))
        assert bench.via_scipy(X, P * Q, P, Q, c["weights"]).max_load == mx
        assert c["goal_cpu_path"] == (w["cpu_path"] <= c["nic_c_cpu"])
        assert c["goal_cpu_path_parse"] == (w["cpu_path_parse"] <= c["nic_c_cpu"])
        assert c["goal_cpu_coo"] == (w["cpu_coo"] <= c["nic_c_cpu"])
        # ... and as single calls in turn over the cases (cold caches; no CLI here)
        assert w["cpu_cold"] > 0 and c["goal_cpu_cold"] == (w["cpu_cold"] <= c["nic_c_cpu"])
        assert "goal_cpu_cold_cli" not in c
        assert c["cold_timing"] == "single calls in turn over the cases"
    # the explicit zero counts 1 in each triangle when stored, nothing when counted
    tot = {(c["matrix"], c["weights"]): c["total"] for c in cases}
    assert tot["sym", "stored"] == tot["sym", "count"] + 2
    assert tot["pat", "stored"] == tot["pat", "count"] == 500
    s = res["summary"]
    assert s["cases"] == len(cases) == sum(g["cases"] for g in s["per_grid"].values())
    assert s["load_goal_met"] == sum(c["goal_load"] for c in cases)
    assert s["load_goal_met_both"] == sum(c["goal_load_both"] for c in cases)
    assert s["per_grid"]["8x8"]["cpu_ok"] == sum(c["goal_cpu"] for c in cases if c["P"] == 8)
    assert s["path_cpu_goal_met"] == sum(c["goal_cpu_path"] for c in cases)
    assert s["path_parse_cpu_goal_met"] == sum(c["goal_cpu_path_parse"] for c in cases)
    assert s["coo_cases"] == len(cases)
    assert s["coo_cpu_goal_met"] == sum(c["goal_cpu_coo"] for c in cases)
    assert s["coo_speedup_median"] == np.median([c["coo_speedup"] for c in cases])
    assert s["cold_cases"] == len(cases)
    assert s["cold_cpu_goal_met"] == sum(c["goal_cpu_cold"] for c in cases)
    assert "load ok" in capsys.readouterr().out


_FAKE_CLI = r'''#!{python}
"""Prints what SARMA's command line prints (uniform cuts; one line where P == Q)."""
import sys
import numpy as np
import scipy.io

if sys.argv[1:] == ["--help"]:
    if {listed!r}:
        print("  --alg <str>   Name of the partitioning algorithm.   (pal)")
        print("                Algorithms: [" + {listed!r} + "]")
    sys.exit(0)
args = [x for x in sys.argv[1:] if x != "--use-data"]
a = dict(zip(args[::2], args[1::2]))
A = scipy.io.mmread(a["--graph"]).toarray()
P, Q = int(a["--p"]), int(a["--q"])
R = [A.shape[0] * i // P for i in range(P + 1)]
C = [A.shape[1] * j // Q for j in range(Q + 1)]
L = max(A[R[i]:R[i + 1], C[j]:C[j + 1]].sum() for i in range(P) for j in range(Q))
print("Cuts:")
print("\t".join(map(str, R)))
if P != Q:
    print("\t".join(map(str, C)))
print("<<<")
print(f"Max load: {{int(L)}}")
print("Partitioning time (s): 1e-9" if a["--alg"] == "nic" else "Partitioning time (s): 5")
'''


def _fake_cli(tmp_path, listed=None):
    """The fake SARMA command line as an executable file; `listed`: its --help's algorithms."""
    import os
    import sys

    exe = tmp_path / "sarma"
    exe.write_text(_FAKE_CLI.format(python=sys.executable, listed=listed))
    os.chmod(exe, 0o755)
    return exe


def test_sarma_cli_rows_parse_check_and_count(bench, tmp_path):
    """--sarma-cli: SARMA's own command line's max loads (checked against its printed cuts)
    and timer per algorithm (symmetric ones where P == Q), and the goals against them."""
    d, spec = _files(tmp_path)
    exe = _fake_cli(tmp_path)
    out = tmp_path / "x.json"
    assert bench.main(["--mtx", str(d / "pat.mtx"), "--repeat", "1", "--grids", "4x4,2x8",
                       "--no-sgo", "--sarma-cli", str(exe), "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["summary"]["cli_cases"] == len(res["cases"]) == 4
    for c in res["cases"]:
        cli = c["sarma_cli"]
        sym = {"rac", "pal", "opal"}
        assert set(cli) == {"nic", "uni"} | (sym if c["P"] == c["Q"] else set())
        D = _dense(*spec["pat"][:2], False, c["weights"])
        P, Q = c["P"], c["Q"]
        u = spatial.rect_uniform(D, P * Q, P=P, Q=Q).max_load
        assert all(v["max_load"] == u for v in cli.values())
        assert cli["nic"]["seconds"] == 1e-9 and not c["goal_cpu_cli"]
        assert not c["goal_cpu_cold_cli"]  # (single cold calls against it too)
        assert c["cold_timing"] == "after each CLI nic run"
        assert c["wpart"]["rect_nicol"]["cpu_cold"] > 0
        assert c["best_with_cli"] == min(u, c["best_of_nine"])
        assert c["goal_load_cli"] == (c["wpart"]["rect_nicol"]["max_load"] <= c["best_with_cli"])
    assert res["summary"]["cli_cpu_goal_met"] == res["summary"]["cold_cli_cpu_goal_met"] == 0
    assert res["summary"]["cli_algs"] == ["nic", "opal", "pal", "rac", "uni"]


def test_sarma_cli_runs_only_the_algorithms_it_lists(bench, tmp_path):
    """A SARMA build whose --help lists fewer algorithms (1.1.0's: no SGO member) is asked
    for those only; a --help without the list leaves every one of CLI_ALGS to try."""
    d, _ = _files(tmp_path)
    exe = _fake_cli(tmp_path, "uni | nic")
    assert bench.cli_algs(exe) == ("nic", "uni")
    out = tmp_path / "x.json"
    (d / "chunks.mtx").mkdir()  # a folder named like a file is not read as one
    assert [n for n, _ in bench.mtx_files([d])] == ["flat", "pat", "sym"]
    assert bench.main(["--mtx", str(d), "--repeat", "1", "--grids", "4x4", "--only", "pat",
                       "--no-sgo", "--sarma-cli", str(exe), "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["cases"] and all(set(c["sarma_cli"]) == {"nic", "uni"} for c in res["cases"])
    assert res["summary"]["cli_algs"] == ["nic", "uni"]
    assert bench.cli_algs(_fake_cli(tmp_path)) == bench.CLI_ALGS
    assert bench.cli_algs(tmp_path / "missing") == bench.CLI_ALGS


def test_paired_cpu_times_each_function_per_call(bench):
    """paired_cpu: the functions in turn, the same loop length for each, `repeat` rounds,
    the best round per call of each."""
    calls = [0, 0]

    def f():
        calls[0] += 1

    def g():
        calls[1] += 1
        sum(range(2000))

    tf, tg = bench.paired_cpu((f, g), 3, target=0.002)
    assert calls[0] == calls[1] + 1  # (one more: the call that sets the loop length)
    assert (calls[1]) % 3 == 0 and 1 <= calls[1] // 3 <= 200
    assert 0 <= tf < tg

