"""wpart.dynamic in the common vocabulary: ``m``/``n``, ``time_limit`` as a status, shared
validators, the result protocol, balancers by name, and the deprecated aliases of one release."""

import dataclasses
import time

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import wpart  # noqa: E402
import wpart.dynamic as D  # noqa: E402
import wpart.dynamic.mpi as DM  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _sim(seed=0, **kw):
    return D.simulate("linear4", "greedy", seed=seed, n=2000, options={"chunk": 100}, **kw)


def _run():
    return D.run(D.Greedy(2, 40, chunk=10), None, [D.CallableWorker(lambda o, s: None) for _ in range(2)])


# ---- balancers and platforms by name -------------------------------------------------------

def test_simulate_by_preset_and_balancer_name():
    r = D.simulate("hetero3", "greedy", seed=0)
    assert isinstance(r, wpart.Result) and r.status == "feasible" and r.success
    assert r.platform == "hetero3" and r.balancer == "greedy" and r.m == 3
    assert r.n == D.Platform.preset("hetero3").n == int(r.elements.sum())
    assert r == D.simulate(D.Platform.preset("hetero3"), D.Greedy(3, r.n, chunk=1024), seed=0)


@pytest.mark.parametrize("name", D.BALANCERS.names)
def test_every_balancer_name_runs(name):
    r = D.simulate("paper5", name, seed=1, n=2**14, options={"x_init": 256} if name in (
        "plbhac", "plbhec", "hdss", "naive") else None)
    assert r.status == "feasible" and int(r.elements.sum()) == 2**14
    assert D.BALANCERS[name].cls is not None and name in D.BALANCERS.markdown()


def test_balancer_names_aliases_and_errors():
    pl = D.Platform.preset("linear4")
    assert isinstance(D.make_balancer("eager", 4, 100), D.Greedy)
    assert isinstance(D.make_balancer("PLB-HAC", 4, 100, platform=pl), D.PLBHAC)
    assert D.make_balancer("greedy", 4, 100, options={"chunk": 7}).fresh()._kw == {"chunk": 7}
    with pytest.warns(DeprecationWarning, match=r"^make_balancer\(\): pass the balancer's "
                      r"options in `options=` \(chunk\); as keywords they are deprecated$"):
        assert D.make_balancer("greedy", 4, 100, chunk=7).fresh()._kw == {"chunk": 7}
    with pytest.raises(wpart.WpartValueError, match="`balancer` must be one of"):
        D.simulate(pl, "fastest")
    with pytest.raises(wpart.WpartTypeError, match="`balancer`"):
        D.simulate(pl, 3)
    with pytest.raises(wpart.WpartValueError, match="platform"):
        D.make_balancer("dmda", 4, 100)
    with pytest.raises(wpart.WpartTypeError, match="name only"):
        D.simulate(pl, D.Greedy(4, 100), n=100)
    with pytest.raises(wpart.WpartTypeError, match="chunk"):
        D.simulate(pl, "static", options={"chunk": 3})
    with pytest.raises(wpart.WpartValueError, match="`platform`"):
        D.simulate("nowhere", "greedy")
    assert DM.make_balancer("hdss", 2, 100, chunk=8).fresh()._kw["x_init"] == 8
    with pytest.raises(wpart.WpartValueError, match="`balancer`"):
        DM.make_balancer("dmda", 2, 100)


def test_platform_repr_is_short_and_keyword_only():
    for name in ("machines", "paper5", "adapt2", "hetero3", "linear4"):
        pl = D.Platform.preset(name)
        text = repr(pl)
        assert 1 <= len(text.splitlines()) <= 5 and f"m={pl.m}" in text, text
    assert "slowdown" in repr(D.Platform.preset("adapt2"))
    dev = D.Device("cpu", 0, D.Affine(0, 1.0))
    with pytest.raises(TypeError, match=r"takes 2 positional arguments but 3 were given"):
        D.Platform([dev], [(0, 1, 0, 2.0)])  # options are keyword-only
    with pytest.raises(wpart.WpartTypeError, match="`devices`"):
        D.Platform(dev)


# ---- time_limit: a status, never an exception -------------------------------------------

def test_simulate_time_limit_gives_a_status():
    # judged by the result (no schedule, status time_limit), not by a wall-clock bound
    r = D.simulate("linear4", "greedy", options={"chunk": 1}, trace=False, time_limit=0.05)
    assert r.status == "time_limit" and not r.success and "0.05 s" in r.message
    assert r.n == 2**22 and np.isnan(r.makespan) and r.trace.size == 0
    assert r.to_dict()["status"] == "time_limit" and len(repr(r).splitlines()) <= 5
    assert r.plot() is not None  # an empty chart, no error
    assert _sim(time_limit=60).status == "feasible" and _sim(time_limit=float("inf")).status == "feasible"


def test_run_time_limit_gives_a_status():
    res = D.run(D.Greedy(1, 100, chunk=10), None, [D.CallableWorker(lambda o, s: time.sleep(0.05))],
                time_limit=0.2)
    assert res.status == "time_limit" and not res.success
    assert 0 < int(res.elements.sum()) < 100 and res.n == 100
    assert _run().status == "feasible" and _run().success


def test_compare_rows_of_a_stopped_run_are_nan():
    tab = D.compare("linear4", {"g": "greedy"}, seeds=[0], progress=False, options={"chunk": 1},
                    time_limit=0.02)
    assert np.isnan(tab["makespan"][0]) and tab["n_blocks"][0] == 0


def test_oracle_milp_time_limit_is_a_status():
    fs = [lambda x, a=a: a * np.asarray(x, float) ** 0.7 for a in np.linspace(1, 3, 12)]
    r = D.oracle_milp(fs, 1_000_003, breakpoints=120, time_limit=0.2)
    assert r.status in ("time_limit", "optimal")
    if r.status == "time_limit":
        assert r.success == bool(np.isfinite(r.makespan))
    small = D.oracle_milp([lambda x: np.asarray(x, float), lambda x: 2 * np.asarray(x, float)], 30,
                          breakpoints=8)
    assert small.status == "optimal" and small.success and small.blocks.sum() == 30
    assert set(small.stats) == {"seconds", "nodes"}


def test_progress_returning_false_cancels():
    with pytest.raises(wpart.CancelledError, match="^stopped by the progress callback$"):
        D.simulate("linear4", "greedy", options={"chunk": 1}, trace=False, progress=lambda d, t: False)
    with pytest.raises(wpart.CancelledError, match="^stopped by the progress callback$"):
        D.run(D.Greedy(1, 40, chunk=10), None, [D.CallableWorker(lambda o, s: None)], progress=lambda d, t: False)
    with pytest.raises(wpart.WpartTypeError, match="`progress`"):
        _sim(progress="yes")


# ---- shared validators: WpartError subclasses naming the argument -------------------------

@pytest.mark.parametrize("call, exc, name", [
    (lambda: _sim(seed="1"), wpart.WpartTypeError, "seed"),
    (lambda: _sim(seed=1.0), wpart.WpartTypeError, "seed"),
    (lambda: _sim(seed=-1), wpart.WpartValueError, "seed"),
    (lambda: _sim(time_limit="5"), wpart.WpartTypeError, "time_limit"),
    (lambda: _sim(time_limit=0), wpart.WpartValueError, "time_limit"),
    (lambda: _sim(trace=1), wpart.WpartTypeError, "trace"),
    (lambda: _sim(eval_cost=-1.0), wpart.WpartValueError, "eval_cost"),
    (lambda: D.oracle_stepped(D.Platform.preset("linear4"), 100, seed="0"), wpart.WpartTypeError, "seed"),
    (lambda: D.dmda_calibration(D.Platform.preset("linear4"), seed="0"), wpart.WpartTypeError, "seed"),
    (lambda: D.Platform.preset("linear4").block_time(0, 10, seed="0"), wpart.WpartTypeError, "seed"),
    (lambda: D.Platform.preset("linear4").true_time(4, 10), wpart.WpartValueError, "pu"),
    (lambda: D.Greedy(0, 10), wpart.WpartValueError, "m"),
    (lambda: D.Greedy(True, 10), wpart.WpartTypeError, "m"),
    (lambda: D.Greedy(2.0, 10), wpart.WpartTypeError, "m"),
    (lambda: D.Greedy(2, 0), wpart.WpartValueError, "n"),
    (lambda: D.Greedy(2, "10"), wpart.WpartTypeError, "n"),
    (lambda: D.PLBHAC(0, 10), wpart.WpartValueError, "m"),
    (lambda: D.PLBHAC(2, 10, tail_once=1), wpart.WpartTypeError, "tail_once"),
    (lambda: D.HDSS(2, 10, eps="0.1"), wpart.WpartTypeError, "eps"),
    (lambda: D.StaticEqual(0, 10), wpart.WpartValueError, "m"),
    (lambda: D.ThreadWorker(threads=0), wpart.WpartValueError, "threads"),
    (lambda: D.ThreadWorker(throttle=0.5), wpart.WpartValueError, "throttle"),
    (lambda: D.ThreadWorker(throttle="2"), wpart.WpartTypeError, "throttle"),
    (lambda: D.CallableTask(print, -1), wpart.WpartValueError, "n"),
    (lambda: D.run(D.Greedy(1, 10), None, [D.CallableWorker(print)], time_limit=True),
     wpart.WpartTypeError, "time_limit"),
    (lambda: D.run(D.Greedy(1, 10), None, [D.CallableWorker(print)], eval_cost=-1),
     wpart.WpartValueError, "eval_cost"),
    (lambda: D.run(D.Greedy(1, 10), None, [D.CallableWorker(print)], progress=3),
     wpart.WpartTypeError, "progress"),
    (lambda: D.fit_model([1, 2], [1.0, 2.0], decay="1"), wpart.WpartTypeError, "decay"),
    (lambda: D.fit_model([1, 2], [1.0, 2.0], intercept=1), wpart.WpartTypeError, "intercept"),
    (lambda: D.solve_equal_time([lambda x: x], 0.0), wpart.WpartValueError, "S"),
    (lambda: D.oracle_milp([lambda x: x], 10, time_limit=-1), wpart.WpartValueError, "time_limit"),
])
def test_bad_inputs_name_the_argument(call, exc, name):
    with pytest.raises(exc, match=f"`{name}`"):
        call()


def test_errors_derive_from_wpart_error():
    assert issubclass(D.WorkerError, wpart.WpartRuntimeError)
    assert issubclass(D.RankFailedError, D.WorkerError)
    assert issubclass(D.RankFailedError, wpart.WpartRuntimeError)


# ---- the result protocol --------------------------------------------------------------------

def _results():
    pl = D.Platform.preset("linear4", k=1.0, sigma=0.0)
    return {
        "sim": _sim(),
        "run": _run(),
        "oneshot": D.oracle_oneshot(pl, 150),
        "stepped": D.oracle_stepped(pl, 150, divisors=range(1, 4)),
        "milp": D.oracle_milp(pl.curves(), 150, breakpoints=16),
    }


@pytest.mark.parametrize("key", ["sim", "run", "oneshot", "stepped", "milp"])
def test_results_follow_the_protocol(key):
    r = _results()[key]
    assert isinstance(r, wpart.Result) and dataclasses.is_dataclass(r)
    assert r.status in wpart._result.STATUSES and r.success and isinstance(r.message, str)
    assert isinstance(r.stats, dict)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'status'"):
        r.status = "error"
    d = r.to_dict()
    assert d["status"] == r.status and d["success"] is True
    import json

    json.dumps(d)
    assert r == r and r == dataclasses.replace(r)
    assert 1 <= len(repr(r).splitlines()) <= 5, repr(r)
    ax = r.plot()
    assert isinstance(ax, matplotlib.axes.Axes)
    _, ax2 = plt.subplots()
    assert r.plot(ax=ax2) is ax2


def test_equality_compares_the_traces():
    a, b, c = _sim(0), _sim(0), _sim(5)
    assert a == b and a.stats["wall_seconds"] >= 0  # wall times may differ: stats are not compared
    pl = D.Platform.preset("paper5", machines="AB")
    x = D.simulate(pl, "plbhac", seed=0, n=2**14)
    assert x == D.simulate(pl, "plbhac", seed=0, n=2**14)  # NaN predictions compare equal
    assert x != D.simulate(pl, "plbhac", seed=1, n=2**14)
    assert (a != c) or np.array_equal(a.trace["t_end"], c.trace["t_end"])
    assert _results()["oneshot"] == _results()["oneshot"]


def test_multi_panel_plots_return_a_figure():
    for r in (_sim(), _run()):
        fig = r.plot_panels()
        assert isinstance(fig, matplotlib.figure.Figure) and len(fig.axes) == 2
        f2, axs = plt.subplots(2, 1)
        assert r.plot_panels(ax=axs) is f2
    fig = D.plot_run(_sim().trace, 4)
    assert isinstance(fig, matplotlib.figure.Figure)
    assert isinstance(D.plot_gantt(_sim().trace, 4), matplotlib.axes.Axes)


# ---- deprecated aliases of one release ------------------------------------------------------

def test_deprecated_keywords_warn():
    with pytest.warns(DeprecationWarning, match="n_pu"):
        g = D.Greedy(n_pu=2, n=10)
    assert g.m == 2
    with pytest.warns(DeprecationWarning, match="total"):
        assert D.PLBHAC(2, total=100).n == 100
    with pytest.warns(DeprecationWarning, match="n_pu"):
        assert D.HDSS(n_pu=3, n=10).m == 3
    with pytest.warns(DeprecationWarning, match="total"):
        assert D.FixedBlocks(total=10, blocks=[1, 2]).n == 10
    with pytest.warns(DeprecationWarning, match="total"):
        assert D.oracle_oneshot(D.Platform.preset("linear4"), total=100).n == 100
    with pytest.warns(DeprecationWarning, match="total"):
        assert D.Platform(D.Platform.preset("linear4").devices, total=5).n == 5
    with pytest.warns(DeprecationWarning, match="total"):
        assert D.CallableTask(print, total=4).n == 4
    with pytest.warns(DeprecationWarning, match="timeout"):
        assert D.run(D.Greedy(1, 10), None, [D.CallableWorker(lambda o, s: None)], timeout=30).success
    with pytest.raises(wpart.WpartTypeError, match="time_limit"):
        D.run(D.Greedy(1, 10), None, [D.CallableWorker(print)], timeout=30, time_limit=30)
    with pytest.warns(DeprecationWarning, match="n_pu"):
        assert D.StaticEqual(n_pu=2, n=4).m == 2
    with pytest.warns(DeprecationWarning, match="n_pu"):
        assert DM.make_balancer("greedy", n_pu=2, n=10).m == 2
    with pytest.warns(DeprecationWarning, match="p"):
        D.Platform.preset("linear4").true_time(p=0, x=10)


def test_deprecated_attributes_warn():
    g = D.Greedy(2, 10)
    pl = D.Platform.preset("hetero3")
    r, rr = _sim(), _run()
    # Platform.total stays a plain alias of n: issue 19 names it among the interface checks use
    assert pl.total == pl.n
    for obj, old, new in ((g, "n_pu", "m"), (g, "total", "n"), (pl, "n_pu", "m"),
                          (r, "n_pu", "m"), (r, "total", "n"), (r, "algo", "balancer"),
                          (rr, "n_pu", "m"), (rr, "total", "n"), (D.CallableTask(print, 3), "total", "n")):
        with pytest.warns(DeprecationWarning, match=old):
            assert getattr(obj, old) == getattr(obj, new)
    with pytest.warns(DeprecationWarning, match="n_events"):
        assert r.n_events == r.stats["n_events"]
    with pytest.warns(DeprecationWarning, match="wall"):
        assert rr.wall == rr.stats["wall"]
    m = _results()["milp"]
    with pytest.warns(DeprecationWarning):
        assert m.x is m.blocks and m.T == m.makespan and m.seconds == m.stats["seconds"]
    model = D.fit_model([10, 20, 40], [1.0, 2.0, 4.0])
    with pytest.warns(DeprecationWarning, match="n_samples"):
        assert model.m == model.n_samples == 3


def test_old_plot_gantt_order_warns():
    r = _sim()
    _, ax = plt.subplots()
    with pytest.warns(DeprecationWarning, match="plot_gantt"):
        assert D.plot_gantt(ax, r.trace, 4) is ax


def test_user_protocol_objects_with_old_names_still_run():
    class Old:
        n_pu, total = 1, 10

        def __init__(self):
            self.b = D.Greedy(1, 10, chunk=5)

        def start(self, now):
            return self.b.start(now)

        def on_complete(self, *a):
            return self.b.on_complete(*a)

        def eval_run(self, token):
            pass

        def eval_done(self, token, now):
            return []

        @property
        def done(self):
            return self.b.done

    res = D.run(Old(), None, [D.CallableWorker(lambda o, s: None)])
    assert res.success and res.m == 1 and res.n == 10
