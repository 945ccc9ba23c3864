"""Long core calls: time limits, Ctrl-C, progress, and the GIL released."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import wpart

LONG = np.random.default_rng(0).integers(0, 1000, 2_000_000)


def test_time_limit_raises_cancelled():
    t0 = time.perf_counter()
    with pytest.raises(wpart.CancelledError, match="time limit"):
        wpart.partition_1d(LONG, 5000, "dp", time_limit=0.1)
    assert time.perf_counter() - t0 < 5


def test_ctrl_c_stops_a_long_call():
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            wpart.partition_1d(LONG, 5000, "dp")
    finally:
        timer.cancel()
    assert time.perf_counter() - t0 < 5


def test_progress_callback_exception_propagates():
    def boom(done, total):
        raise RuntimeError("stop from callback")

    with pytest.raises(RuntimeError, match="stop from callback"):
        wpart.partition_1d(LONG[:200_000], 500, "dp", progress=boom)


def test_gil_released_during_core_work():
    A = np.random.default_rng(1).integers(0, 100, (2000, 2000))
    done = threading.Event()

    def work():
        for _ in range(2):
            wpart.partition_1d(LONG[:500_000], 200, "dp")
            wpart.prefix_sum(A)
        done.set()

    th = threading.Thread(target=work)
    th.start()
    ticks = 0
    t0 = time.perf_counter()
    while not done.is_set() and time.perf_counter() - t0 < 0.5:
        ticks += 1
        time.sleep(0)
    still_running = not done.is_set()
    th.join()
    # the main thread made steady progress while the worker was inside the core
    assert ticks > 1000 or not still_running


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
