"""Long core calls: time limits, Ctrl-C, progress, and the GIL released."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import wpart

LONG = np.random.default_rng(0).integers(0, 1000, 2_000_000)


def test_time_limit_is_a_status():
    r = wpart.partition_1d(LONG, 5000, method="dp", time_limit=0.05)
    assert r.status == "time_limit" and not r.success
    assert "time limit" in r.message and r.separators.size == 0
    assert r.m == 5000 and r.n == LONG.size and r.lower_bound > 0
    assert r.to_dict()["success"] is False
    assert len(repr(r).splitlines()) <= 5
    with pytest.raises(ValueError, match="no partition"):
        r.owner()


def test_progress_callback_returning_false_cancels():
    with pytest.raises(wpart.CancelledError, match="returned False"):
        wpart.partition_1d(LONG[:200_000], 500, method="dp", progress=lambda d, t: False)
    # None (the usual return value) and True go on
    assert wpart.partition_1d(LONG[:2000], 5, progress=lambda d, t: None).success
    assert wpart.partition_1d(LONG[:2000], 5, progress=lambda d, t: True).success


def test_ctrl_c_stops_a_long_call():
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            wpart.partition_1d(LONG, 5000, method="dp")
    finally:
        timer.cancel()
    # responsiveness, not speed (uninterrupted the call runs for minutes): a generous bound
    assert time.perf_counter() - t0 < 20


def test_progress_callback_exception_propagates():
    def boom(done, total):
        raise RuntimeError("stop from callback")

    with pytest.raises(RuntimeError, match="stop from callback"):
        wpart.partition_1d(LONG[:200_000], 500, method="dp", progress=boom)


def test_gil_released_during_core_work():
    # The main thread counts while a worker thread is inside the core. With the GIL held there,
    # the count could not move during a core call (at most a tick per GIL hand-over around
    # it); released, it moves thousands of times. Counted per call, not per wall-clock second:
    # a loaded machine slows both threads alike.
    A = np.random.default_rng(1).integers(0, 100, (2000, 2000))
    done = threading.Event()
    ticks = [0]
    during = []

    def work():
        try:
            for _ in range(5):
                for call in (lambda: wpart.partition_1d(LONG[:500_000], 200, method="dp"),
                             lambda: wpart.prefix_sum(A)):
                    before = ticks[0]
                    call()
                    during.append(ticks[0] - before)
                if max(during) >= 200:
                    break
        finally:
            done.set()

    th = threading.Thread(target=work)
    th.start()
    while not done.is_set():
        ticks[0] += 1
        time.sleep(0)
    th.join()
    assert during and max(during) >= 200, during


def test_same_call_in_threads_gives_same_answer():
    a = np.random.default_rng(2).integers(0, 1000, 200_000)
    ref = wpart.partition_1d(a, 700).separators
    out = [None] * 4

    def work(i):
        out[i] = wpart.partition_1d(a, 700).separators

    ths = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    for o in out:
        np.testing.assert_array_equal(o, ref)


def test_progress_reports_in_every_family_are_one_count_that_ends_at_its_total():
    """A progress callback sees one total per phase, a count that never goes back, never a
    total of 0 (done / total is defined), and done == total when the call ends; the core's own
    reports (sweeps, probes, DP levels) are passed on in the call's unit. Before, hybrid and
    hier_opt reported (0, 0), the spatial methods switched from the core's total to 1, and
    partition_1d, hetero's points and fronts and tasks' CCM never reported the end."""
    import wpart.dynamic as D
    import wpart.hetero as wh
    import wpart.spatial as sp
    import wpart.tasks as T

    A = sp.instances.pic_like(64, t=2000)
    ps = wh.synthetic("dgemm-like", seed=1)
    calls = {f"spatial.{m}": (lambda cb, m=m: sp.partition(
        A[:16, :16] if m == "hier_opt" else A, 16, method=m, progress=cb)) for m in sp.METHODS}
    calls.update({
        "partition_1d": lambda cb: wpart.partition_1d(LONG[:20_000], 16, progress=cb),
        "partition_1d dp": lambda cb: wpart.partition_1d(LONG[:5_000], 8, method="dp",
                                                         progress=cb),
        "hetero.optimal_time": lambda cb: wh.optimal_time(ps, 17152, progress=cb),
        "hetero.pareto_front": lambda cb: wh.pareto_front(ps, 17152, balanced=False,
                                                          progress=cb),
        "tasks.balance": lambda cb: T.balance(T.random_problem(4, 60, 10, 80, seed=3),
                                              method="ccm", progress=cb),
        "dynamic.simulate": lambda cb: D.simulate("hetero3", "greedy", seed=0, progress=cb),
    })
    for name, call in calls.items():
        seen = []
        call(lambda d, t: seen.append((d, t)))
        assert seen, name
        totals = {t for _, t in seen}
        assert len(totals) == 1 and min(totals) > 0, (name, seen)
        done = [d for d, _ in seen]
        assert done == sorted(done), (name, seen)
        assert seen[-1][0] == seen[-1][1], (name, seen)
