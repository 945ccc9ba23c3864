"""The command line's audit (s24), each defect pinned in a fresh process run from a folder
outside the repository:

1. a bad option value is a usage error (exit 2) whose one line names the option as typed
   (``--max-states``, ``--method``, ``PLATFORM``), never the API keyword (``max_states``);
   a malformed input file stays exit 1;
2. SIGINT / SIGTERM during a long run end it with one line ``wpart: interrupted (SIG...)``,
   exit 130 / 143, no temporary file left and the previous outputs untouched;
3. ``wpart tasks --allow-infeasible-start``, and the refusal without it pointing to it.
"""

import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest



def _env():
    return dict(os.environ, MPLBACKEND="Agg")


def _run(args, cwd, timeout=300):
    """``wpart args`` in a fresh process from `cwd`: (exit status, stdout, stderr)."""
    r = subprocess.run([sys.executable, "-m", "wpart", *map(str, args)], cwd=cwd,
                       capture_output=True, text=True, timeout=timeout, env=_env())
    return r.returncode, r.stdout, r.stderr


def _error_line(err, command):
    """The last line of stderr: the one error line of `command`, without a traceback."""
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines, err
    assert lines[-1].startswith(f"wpart {command}: error: "), err
    assert sum(": error: " in ln for ln in lines) == 1, err
    return lines[-1]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    from wpart import tasks
    from wpart.spatial import instances as I
    from wpart.tasks import datasets

    d = tmp_path_factory.mktemp("audit_s24")
    np.save(d / "loads.npy", np.random.default_rng(0).integers(0, 100, (64, 64)))
    (d / "text.csv").write_text("1,2\nx,3\n")
    (d / "plat.json").write_text('{"total": 1000, "devices": [{"family": "x"}]}')
    tasks.write_lbdatafile(tasks.read_lbdatafile(datasets.lbaf_path("ccm_example/data")),
                           str(d / "data"))
    # four blocks of 10 bytes, all on rank 0: above a cap of 25 at the start, within it once
    # two blocks move to rank 1
    p = tasks.Problem(np.ones(4), 2, task_block=np.arange(4, dtype=np.int32),
                      block_size=np.full(4, 10.0), block_home=np.zeros(4, dtype=np.int32),
                      initial=np.zeros(4, dtype=np.int32))
    tasks.write_lbdatafile(p, str(d / "inf"))
    # long runs (tens of seconds uninterrupted): JAG-M-OPT with m = 4000, brute force 3^18
    np.save(d / "u.npy", I.uniform(1024, delta=1.2, seed=0))
    tasks.write_lbdatafile(tasks.random_problem(m=3, n_tasks=18, n_blocks=18, n_edges=0,
                                                seed=0), str(d / "bf"))
    return d


# ------------------------------------------------- 1. option errors name the option ----

@pytest.mark.parametrize("argv,command,said,keyword", [
    ("spatial loads.npy -m 16 --method nope", "spatial", "--method must be one of", "method"),
    ("spatial loads.npy -m 16 --P 3 --method rect_uniform", "spatial", "--P 3 does not divide",
     "P"),
    ("spatial loads.npy -m 16 --P 5 --Q 3 --method rect_uniform", "spatial",
     "--P x --Q must equal", "P"),
    ("spatial loads.npy -m 5000", "spatial",
     "-m 5000 exceeds the 4096 cells of A; pass --allow-empty", "m"),
    ("spatial loads.npy -m 16 --method jag_m_opt --max-states 5", "spatial",
     "--max-states: method jag_m_opt takes no --max-states", "max_states"),
    ("tasks data --method nope", "tasks", "--method must be one of 'ccm'", "method"),
    ("tasks data --method brute_force --max-states 2", "tasks",
     "--max-states: brute force: 2^3 assignments exceed --max-states 2", "max_states"),
    ("tasks data --method greedy --max-states 2", "tasks",
     "--max-states: method greedy takes no --max-states", "max_states"),
    ("dynamic simulate linear4 --balancer nope", "dynamic", "--balancer must be one of",
     "balancer"),
    ("dynamic simulate nope --balancer greedy", "dynamic",
     "PLATFORM: 'nope' is neither a preset name", "platform"),
    ("multikernel run nope", "multikernel", "BENCH: 'nope' is not a benchmark", "bench"),
    ("multikernel run saxpy --input 7", "multikernel", "--input: '7' is not a Table 2 input",
     "input"),
])
def test_a_bad_option_value_is_a_usage_error_naming_the_option(work, argv, command, said,
                                                               keyword):
    code, out, err = _run(argv.split(), work)
    assert code == 2, (code, err)
    line = _error_line(err, command)
    assert said in line, line
    assert f"`{keyword}`" not in err
    if "_" in keyword:
        assert keyword not in err
    if command in ("spatial", "dynamic", "multikernel"):  # nothing printed before it
        assert err.strip().splitlines() == [line], err
    assert out == ""
    assert not [n for n in os.listdir(work) if n.endswith(".tmp")]


@pytest.mark.parametrize("argv,option", [
    ("tasks data --seed 18446744073709551616", "--seed"),
    ("dynamic simulate linear4 --balancer greedy --seed 18446744073709551616", "--seed"),
    ("spatial loads.npy -m 16 --method hier_opt --max-states 0", "--max-states"),
    ("dynamic simulate linear4 --balancer greedy -n 9223372036854775808", "-n"),
])
def test_a_value_out_of_range_is_refused_while_reading_the_options(work, argv, option):
    code, out, err = _run(argv.split(), work)
    assert code == 2, err
    assert err.splitlines()[-1].endswith(
        f"error: argument {option}: must be an integer "
        + {"--max-states": ">= 1, got 0",
           "-n": "<= 9223372036854775807, got 9223372036854775808",
           "--seed": "<= 18446744073709551615, got 18446744073709551616"}[option]), err
    assert "`" not in err and "Traceback" not in err and out == ""


def test_a_malformed_input_file_stays_exit_1(work):
    code, _, err = _run(["spatial", "text.csv", "-m", "2"], work)
    assert code == 1 and "text.csv" in _error_line(err, "spatial")
    code, _, err = _run(["dynamic", "simulate", "plat.json", "--balancer", "greedy"], work)
    line = _error_line(err, "dynamic")
    assert code == 1 and "plat.json" in line and "devices[0].family" in line


def test_max_states_reaches_hier_opt_and_a_state_cap_reached_names_it(work):
    code, out, err = _run(["spatial", "loads.npy", "-m", "4", "--method", "hier_opt",
                           "--max-states", "10", "--no-progress"], work)
    assert code == 1, err  # a cap reached in the work: not a usage error
    line = _error_line(err, "spatial")
    assert "--max-states 10" in line and "max_states" not in line.replace("--max-states", "")
    code, out, err = _run(["spatial", "loads.npy", "-m", "4", "--method", "hier_opt",
                           "--max-states", "100000000", "--no-progress"], work)
    assert code == 0 and "method hier_opt" in out, err


def test_the_help_lists_the_exit_codes_of_usage_errors_and_signals(work):
    for argv in (["spatial", "--help"], ["tasks", "--help"], ["reproduce", "--help"]):
        code, out, _ = _run(argv, work, timeout=60)
        text = " ".join(out.split())
        assert code == 0 and "2 usage error" in text and "130 interrupted" in text \
            and "143 terminated" in text, argv
    code, out, _ = _run(["spatial", "--help"], work, timeout=60)
    assert "2 usage error (a bad option value" in " ".join(out.split())


# ------------------------------------------------------------------ 2. interrupts ----

def _interrupt(work, argv, sig, temp_glob):
    """Start ``wpart argv``, wait until its temporary output exists (it is working), one more
    second, send `sig`; return (exit status, stdout, stderr, seconds to end)."""
    for f in glob.glob(str(work / temp_glob)):
        os.unlink(f)
    p = subprocess.Popen([sys.executable, "-m", "wpart", *argv], cwd=work, env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.monotonic()
        while not glob.glob(str(work / temp_glob)):
            assert p.poll() is None, p.communicate()
            assert time.monotonic() - t0 < 60, "the run never started its output"
            time.sleep(0.02)
        time.sleep(1.0)
        assert p.poll() is None, "the run ended before the signal"
        p.send_signal(sig)
        t1 = time.monotonic()
        out, err = p.communicate(timeout=60)
        return p.returncode, out, err, time.monotonic() - t1
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def _leftovers(work):
    return [n for n in os.listdir(work) if n.endswith((".tmp", ".old"))]


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_a_long_run_ends_it_cleanly(work, sig, status):
    (work / "o.json").write_text("previous\n")
    code, out, err, took = _interrupt(
        work, ["spatial", "u.npy", "-m", "4000", "--method", "jag_m_opt", "--json", "o.json"],
        sig, ".o.json.*.tmp")
    assert code == status, (code, err)
    assert err == f"wpart: interrupted ({signal.Signals(sig).name})\n", err
    assert out == ""
    assert (work / "o.json").read_text() == "previous\n"
    assert _leftovers(work) == []
    assert took < 30


def test_sigterm_keeps_a_previous_balanced_set_whole(work):
    code, _, err = _run(["tasks", "bf", "--method", "greedy", "--out", "bal", "--json",
                         "t.json", "--no-progress"], work)
    assert code == 0, err
    before = {n: (work / n).read_bytes() for n in os.listdir(work)
              if n.startswith(("bal.", "t.json"))}
    assert len(before) >= 4
    code, out, err, _ = _interrupt(
        work, ["tasks", "bf", "--method", "brute_force", "--max-states", "10000000000000",
               "--out", "bal", "--json", "t.json", "--no-progress"],
        signal.SIGTERM, ".t.json.*.tmp")
    assert code == 143, err
    assert err.splitlines()[-1] == "wpart: interrupted (SIGTERM)" and "Traceback" not in err
    assert "max_work" not in out
    after = {n: (work / n).read_bytes() for n in os.listdir(work)
             if n.startswith(("bal.", "t.json"))}
    assert after == before
    assert _leftovers(work) == []


def test_a_signal_while_outputs_switch_waits_for_the_switch():
    from wpart import _interrupt as I

    before = signal.getsignal(signal.SIGTERM)
    with I.signals_as_exceptions():
        with pytest.raises(I.Terminated):
            with I.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):  # Python code runs: the handler has run by now
                    pass
                reached = True
        assert reached
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass
    assert signal.getsignal(signal.SIGTERM) == before


# ------------------------------------------------------ 3. --allow-infeasible-start ----

def test_an_infeasible_start_points_to_the_flag_and_the_flag_works(work):
    code, out, err = _run(["tasks", "inf", "--memory-cap", "25", "--no-progress"], work)
    assert code == 2, err
    line = _error_line(err, "tasks")
    assert "--memory-cap: infeasible start" in line
    assert "pass --allow-infeasible-start to start from it" in line
    assert "allow_infeasible_start" not in line and "memory_cap" not in line
    assert "max_work" not in out
    code, out, err = _run(["tasks", "inf", "--memory-cap", "25", "--allow-infeasible-start",
                           "--json", "inf.out.json", "--out", "fixed", "--no-progress"], work)
    assert code == 0, err
    assert re.search(r"status feasible  max_work 2\b", out), out
    doc = json.loads((work / "inf.out.json").read_text())
    assert doc["status"] == "feasible" and doc["success"] and doc["max_work"] == 2.0
    a = np.asarray(doc["assignment"])
    assert sorted(np.bincount(a, minlength=2).tolist()) == [2, 2]  # 20 bytes a rank <= 25
    from wpart import tasks

    q = tasks.read_lbdatafile(str(work / "fixed"))
    assert np.bincount(np.asarray(q.initial), minlength=2).tolist() == [2, 2]


def test_allow_infeasible_start_with_a_method_that_ignores_it_is_refused(work):
    code, out, err = _run(["tasks", "inf", "--memory-cap", "25", "--method", "greedy",
                           "--allow-infeasible-start"], work)
    assert code == 2
    line = _error_line(err, "tasks")
    assert "--allow-infeasible-start: method greedy takes no --allow-infeasible-start" in line
    assert "ccm, tempered" in line and out == ""
