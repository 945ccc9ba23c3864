"""PLB-HAC and PLB-HeC state machines (spec 001 §2, §3.3): tests A1-A9 on a scripted clock."""

import heapq
import math

import numpy as np
import pytest

from functools import partial

from wpart.dynamic import PLBHAC as _PLBHAC, PLBHeC

# these tests check the paper's algorithm (Sec. 3 of [Sant'Ana 2017]): preset "paper"
# (the default is "robust")
PLBHAC = partial(_PLBHAC, preset="paper")

RATES4 = (8.0, 4.0, 2.0, 1.0)


def linear(rates):
    """Noiseless affine truths E_p(x) = x / r_p, no transfers."""
    return lambda a, start: (0.0, a.size / rates[a.pu])


def drive(bal, cost, c_eval=0.0, check=None):
    """Scripted event loop of spec 001 §5.4: a PU runs its blocks in FIFO order; an EVAL
    action runs eval_run at once and delivers eval_done at t + c_eval. cost(action, start)
    gives (t_xfer, t_comp). Returns the trace (dicts), the eval log and the makespan."""
    events, free, seq = [], [0.0] * bal.m, 0
    trace, evals = [], []

    def submit(acts, now):
        nonlocal seq
        for a in acts:
            if a.kind == "eval":
                st = bal.stats()
                bal.eval_run(a.token)
                evals.append({"t": now, "pu": a.pu, "token": a.token, "completed": st["completed"],
                              "cursor": st["cursor"], "done_at": now + c_eval})
                heapq.heappush(events, (now + c_eval, seq, "e", a.token, None))
            else:
                start = max(now, free[a.pu])
                tx, tc = cost(a, start)
                end = start + tx + tc
                free[a.pu] = end
                rec = {"a": a, "t_assign": now, "start": start, "end": end, "t_xfer": tx, "t_comp": tc,
                       "cursor_after": bal.stats()["cursor"]}
                trace.append(rec)
                heapq.heappush(events, (end, seq, "c", a, rec))
            seq += 1

    submit(bal.start(0.0), 0.0)
    while events:
        t, _, kind, payload, rec = heapq.heappop(events)
        if kind == "c":
            acts = bal.on_complete(payload.pu, payload.block_id, rec["t_xfer"], rec["t_comp"], t)
        else:
            was_done = bal.done
            acts = bal.eval_done(payload, t)
            if was_done:
                assert acts == []  # A9: a result after the end is discarded
        if check:
            check(bal, t)
        submit(acts, t)
    return trace, evals, max(r["end"] for r in trace)


def assert_exactly_once(trace, total):
    ranges = sorted((r["a"].offset, r["a"].offset + r["a"].size) for r in trace)
    assert ranges[0][0] == 0 and ranges[-1][1] == total
    assert all(r0[1] == r1[0] for r0, r1 in zip(ranges, ranges[1:]))
    assert all(r["a"].size > 0 for r in trace)


def regular(trace, pu=None):
    return [r for r in trace if r["a"].block_kind == "regular" and (pu is None or r["a"].pu == pu)]


# ---------------------------------------------------------------- A1, A2, A3 -------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("q", [1, 4])
def test_A1_training_sizes(seed, q):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    rates = rng.uniform(0.5, 20.0, n)
    bal = PLBHAC(n, 3000, quantum=q, x_init=64)
    trace, _, _ = drive(bal, linear(rates), c_eval=0.1)
    train = [r for r in trace if r["a"].block_kind == "train"]
    first = {r["a"].pu: r for r in train if r["a"].size == 64 and r["a"].block_id < n}
    assert sorted(first) == list(range(n))
    t_first = {p: first[p]["end"] for p in range(n)}
    fastest = min(range(n), key=lambda p: (t_first[p], p))
    t_fast = t_first[fastest]
    second = {r["a"].pu: r["a"].size for r in train if r["a"].block_id >= n}
    assert second[fastest] == 128
    for p in range(n):
        if p != fastest:
            want = max(q, q * round(128 * (t_fast / t_first[p]) / q))
            assert second[p] == want


def test_A2_barrier_mode_one_barrier():
    bal = PLBHAC(4, 3000, x_init=8)
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=0.1)
    last_train_end = max(r["end"] for r in trace if r["a"].block_kind == "train")
    assert all(r["t_assign"] >= last_train_end for r in regular(trace))
    assert bal.stats()["n_barriers"] == 1
    assert_exactly_once(trace, 3000)


def test_A2_probe_mode_never_parks():
    c_eval = 0.1
    bal = PLBHAC(4, 3000, x_init=8, training="probe")
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=c_eval)
    assert bal.stats()["n_barriers"] == 0
    windows = [(e["t"], e["done_at"]) for e in evals]
    by_pu = {}
    for r in trace:
        by_pu.setdefault(r["a"].pu, []).append(r)
    for p, recs in by_pu.items():
        for r0, r1 in zip(recs, recs[1:]):
            if r1["t_assign"] > r0["end"] + 1e-12:
                # an idle PU: only while waiting for an evaluation that covers its finish
                assert any(a <= r0["end"] + 1e-12 and abs(d - r1["t_assign"]) < 1e-12 for a, d in windows)
    assert_exactly_once(trace, 3000)


def test_A3_worked_example():
    bal = PLBHAC(4, 300, x_init=8, step_mode="fixed", step_size=30)
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=0.0)
    train2 = sorted(
        (r["a"].pu, r["start"], r["end"], r["a"].size)
        for r in trace
        if r["a"].block_kind == "train" and r["a"].block_id >= 4
    )
    assert train2 == [(0, 1, 3, 16), (1, 2, 4, 8), (2, 4, 6, 4), (3, 8, 10, 2)]
    assert evals[0]["t"] == 10 and evals[0]["pu"] == 3
    ser = bal.series
    assert ser["S_eff"][0] == 30 and list(ser["X"][0]) == [16, 8, 4, 2]
    assert ser["T_pred"][0] == pytest.approx(2.0, rel=1e-9)
    assert ser["t"][0] == 10.0
    assert np.allclose(bal.shares, [100 * 16 / 30, 100 * 8 / 30, 100 * 4 / 30, 100 * 2 / 30])
    first_reg = [r for r in regular(trace) if r["a"].vstep == 1]
    got = sorted((r["a"].pu, r["start"], r["end"]) for r in first_reg)
    assert got == [(0, 10, 12), (1, 10, 12), (2, 10, 12), (3, 10, 12)]
    assert bal.step_volume == 30
    assert_exactly_once(trace, 300)


# ---------------------------------------------------------------- A4, A5 -----------------


def test_A4_gap_filling():
    early = {}

    def cost(a, start):
        t = a.size / RATES4[a.pu]
        if a.pu == 0 and a.block_kind == "regular" and a.vstep == 2:
            early[a.block_id] = 0.55
            return 0.0, t - 0.55
        if a.pu == 1 and a.block_kind == "regular" and a.vstep == 2:
            return 0.0, t - 0.3
        if a.pu == 0 and a.block_kind == "gap":
            return 0.0, 0.01  # finishes ~0.49 s early: no chaining
        return 0.0, t

    bal = PLBHAC(4, 600, x_init=8, step_mode="fixed", step_size=30, tail_mode="off")
    trace, _, _ = drive(bal, cost, c_eval=0.0)
    seq0 = [r["a"] for r in trace if r["a"].pu == 0]
    i = next(k for k, a in enumerate(seq0) if a.block_id in early)
    gap = seq0[i + 1]
    assert gap.block_kind == "gap" and gap.size == 4  # floor(E^-1(0.55)) = floor(4.4)
    assert gap.vstep == seq0[i].vstep
    assert seq0[i + 2].block_kind == "regular"
    seq1 = [r["a"] for r in trace if r["a"].pu == 1]
    j = next(k for k, a in enumerate(seq1) if a.block_kind == "regular" and a.vstep == 2)
    assert seq1[j + 1].block_kind == "regular"  # 0.3 s early: nothing
    assert sum(a.block_kind == "gap" for r in trace for a in [r["a"]]) == 1


def test_A5_virtual_steps():
    rng = np.random.default_rng(3)

    def cost(a, start):
        return 0.0, a.size / RATES4[a.pu] * float(rng.uniform(0.97, 1.03))

    bal = PLBHAC(4, 8000, x_init=8)
    trace, evals, _ = drive(bal, cost, c_eval=0.3)
    # at most one evaluation in flight
    for e0, e1 in zip(evals, evals[1:]):
        assert e1["t"] >= e0["done_at"]
    ser = bal.series
    for e in evals[1:]:
        p = e["pu"]
        # the trigger's released block is its first of a new step, assigned at done_at
        nxt = next(
            r for r in trace if r["a"].pu == p and r["t_assign"] >= e["t"] and r["a"].block_kind == "regular"
        )
        assert nxt["t_assign"] == pytest.approx(e["done_at"])
        v = nxt["a"].vstep
        # nobody entered step v before the trigger
        assert not any(r["a"].vstep >= v and r["t_assign"] < e["t"] for r in regular(trace))
        # others entering step v during the evaluation got the old X at once
        for r in regular(trace):
            if e["t"] < r["t_assign"] < e["done_at"]:
                assert r["a"].model_version == nxt["a"].model_version - 1
    assert len(ser) == len(evals)
    assert bal.stats()["n_evals"] == len(evals)


# ---------------------------------------------------------------- A6 ---------------------


def test_A6_tail_resolve():
    W = 6000
    bal = PLBHAC(4, W, x_init=8, step_mode="fixed", step_size=300)
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=0.0)
    ser = bal.series
    assert len(ser) == len(evals)
    floor_val = 15  # H(tail_floor_time = 1 s) = 8 + 4 + 2 + 1
    m = 0
    prev = None
    for row, e in zip(ser, evals):
        X = row["X"]
        if e["completed"] >= 0.7 * W:
            m += 1
            remaining = W - e["cursor"]
            want = max(math.floor(300 * 0.9**m), floor_val)
            if want >= remaining:
                assert row["S_eff"] == remaining  # end-game
            else:
                assert row["S_eff"] == want
            if prev is not None:
                assert row["S_eff"] <= prev
            prev = row["S_eff"]
        else:
            assert row["S_eff"] == 300
        # S2 / S5 on the exact linear models: equal time within one element
        active = X > 0
        t = X / np.array(RATES4)
        assert t[active].max() - t[active].min() <= 1.0 + 1e-9
        assert X.sum() == row["S_eff"]
    assert m >= 3


def test_A6_tail_scale_and_once():
    W = 6000
    bal = PLBHAC(4, W, x_init=8, step_mode="fixed", step_size=300, tail_mode="scale", min_block=[8, 4, 2, 1])
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=0.0)
    ser = bal.series
    for row, e in zip(ser, evals):
        assert np.all(row["X"] >= 0)
        if e["completed"] >= 0.7 * W and W - e["cursor"] > 300:
            # linear truth: throughput is flat, so the 50 % floor is the smallest grid size;
            # the minimum blocks bind
            assert np.all(row["X"] >= [8, 4, 2, 1])
            assert row["X"].sum() < 300
    assert_exactly_once(trace, W)
    bal = PLBHAC(4, W, x_init=8, step_mode="fixed", step_size=300, tail_alpha=0.9, tail_once=True)
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=0.0)
    tail = [
        row["S_eff"] for row, e in zip(bal.series, evals) if e["completed"] >= 0.7 * W and W - e["cursor"] > 30
    ]
    assert tail and all(s == 30 for s in tail)  # max(300 * 0.1, floor 15), not compounded


# ---------------------------------------------------------------- A7, A8, A9 -------------


@pytest.mark.parametrize("seed", range(12))
def test_A7_A8_A9_random(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 5))
    q = int(rng.choice([1, 3, 8]))
    W = int(rng.integers(q, 40000))
    rates = rng.uniform(1.0, 200.0, n)
    lat = rng.uniform(0.0, 0.05, n)
    cls = PLBHeC if seed % 3 == 2 else PLBHAC
    preset = "robust" if seed % 2 else "paper"
    kinds = [str(rng.choice(["cpu", "gpu", "phi"])) for _ in range(n)]
    bal = cls(n, W, quantum=q, x_init=int(rng.integers(1, 300)), preset=preset, pu_kinds=kinds)

    def cost(a, start):
        return 0.0, lat[a.pu] + a.size / rates[a.pu] * float(rng.uniform(0.9, 1.1))

    def check(b, t):
        st = b.stats()
        assert b.done == (st["cursor"] == W and st["in_flight"] == 0)

    trace, evals, _ = drive(bal, cost, c_eval=float(rng.choice([0.0, 0.1, 5.0])), check=check)
    assert_exactly_once(trace, W)
    for r in sorted(trace, key=lambda r: r["a"].block_id):
        rem = W - r["cursor_after"]
        assert rem == 0 or rem >= q  # A7
    assert bal.done


def test_A9_eval_after_done_discarded():
    # a long evaluation: the other PUs drain the data with the old X meanwhile
    bal = PLBHAC(2, 200, x_init=8, step_mode="fixed", step_size=20)
    trace, evals, makespan = drive(bal, linear((8.0, 8.0)), c_eval=1000.0)
    assert bal.done
    assert evals[-1]["done_at"] > makespan
    assert_exactly_once(trace, 200)


# ---------------------------------------------------------------- PLB-HeC ----------------


def test_plbhec_barriers_and_global_evals():
    bal = PLBHeC(4, 3000, x_init=8)
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=0.1)
    assert all(e["pu"] == -1 for e in evals)
    assert not any(r["a"].block_kind == "gap" for r in trace)
    steps = max(r["a"].vstep for r in trace)
    assert bal.stats()["n_barriers"] == 2 + steps
    for e in evals:  # every PU idles during the evaluation
        assert not any(e["t"] < r["t_assign"] < e["done_at"] for r in trace)
        assert all(not (r["start"] < e["done_at"] and r["end"] > e["t"]) for r in trace)
    # steps are synchronous: a step starts after every block of the previous one ended
    for v in range(2, steps + 1):
        prev_end = max(r["end"] for r in trace if r["a"].vstep == v - 1 and r["a"].block_kind == "regular")
        assert min(r["start"] for r in trace if r["a"].vstep == v) >= prev_end
    assert_exactly_once(trace, 3000)


def test_idle_reasons():
    bal = PLBHAC(2, 1000, x_init=8)
    a = bal.start(0.0)
    bal.on_complete(0, a[0].block_id, 0.0, 1.0, 1.0)  # -> second training block
    acts = bal.on_complete(0, 2, 0.0, 2.0, 3.0)
    assert acts == [] and bal.idle_reason(0) == "barrier"
    b2 = bal.on_complete(1, 1, 0.0, 4.0, 4.0)
    acts = bal.on_complete(1, b2[0].block_id, 0.0, 1.0, 5.0)
    assert [x.kind for x in acts] == ["eval"] and acts[0].pu == 1
    assert bal.idle_reason(0) == "eval" and bal.idle_reason(1) == "eval"
    out = bal.eval_done(acts[0].token, 5.1)  # eval_run not called: evaluated here
    assert sorted(x.pu for x in out) == [0, 1] and all(x.block_kind == "regular" for x in out)
    assert bal.model_version == 1 and bal.blocks.sum() > 0
    assert len(bal.models) == 2


# ---------------------------------------------------------------- bad input --------------


@pytest.mark.parametrize(
    "kw,exc,match",
    [
        ({"preset": "fast"}, ValueError, "preset"),
        ({"quantum": 0}, ValueError, "quantum"),
        ({"quantum": 2000}, ValueError, "quantum"),
        ({"x_init": 0}, ValueError, "x_init"),
        ({"gap_threshold": -1}, ValueError, "gap_threshold"),
        ({"gap_threshold": float("nan")}, ValueError, "gap_threshold"),
        ({"tail_start": 1.5}, ValueError, "tail_start"),
        ({"tail_alpha": 1.0}, ValueError, "tail_alpha"),
        ({"tail_mode": "shrink"}, ValueError, "tail_mode"),
        ({"training": "async"}, ValueError, "training"),
        ({"step_mode": "fixed"}, ValueError, "step_size"),
        ({"step_mode": "weird"}, ValueError, "step_mode"),
        ({"step_time": -2.0}, ValueError, "step_time"),
        ({"min_steps_left": 0}, ValueError, "min_steps_left"),
        ({"min_block": "huge"}, ValueError, "min_block"),
        ({"min_block": [1, -1]}, ValueError, "min_block"),
        ({"min_block": [1, 2, 3]}, ValueError, "min_block"),
        ({"auto_eta": 0.0}, ValueError, "auto_eta"),
        ({"cap": [0, 10]}, ValueError, "cap"),
        ({"pu_kinds": ["cpu", "tpu"]}, ValueError, "pu_kinds"),
        ({"pu_kinds": ["cpu"]}, ValueError, "pu_kinds"),
        ({"decay": 0.0}, ValueError, "decay"),
        ({"fit": {"basis": ["sin"]}}, ValueError, "basis"),
        ({"fit": {"bogus": 1}}, ValueError, "bogus"),
        ({"fit": {"grid_points": 2**31 - 1}}, ValueError, "grid_points.*65536"),
        ({"solve": {"tol_T": -1}}, ValueError, "tol_T"),
        ({"gap_fill": "yes"}, TypeError, "gap_fill"),
        ({"step_time": "2"}, TypeError, "step_time"),
        ({"frobnicate": 1}, TypeError, "frobnicate"),
    ],
)
def test_bad_options(kw, exc, match):
    with pytest.raises(exc, match=match):
        PLBHAC(2, 1000, **kw)


def test_bad_sizes_and_completions():
    for cls in (PLBHAC, PLBHeC):
        with pytest.raises(ValueError, match="`m`"):
            cls(0, 100)
        with pytest.raises(ValueError, match="`n`"):
            cls(2, 0)
        with pytest.raises(ValueError, match="`n`"):
            cls(2, -5)
    bal = PLBHAC(2, 100, x_init=8)
    bal.start(0.0)
    for bad in (float("nan"), -1.0):
        with pytest.raises(ValueError, match="t_comp"):
            bal.on_complete(0, 0, 0.0, bad, 1.0)
        with pytest.raises(ValueError, match="t_xfer"):
            bal.on_complete(0, 0, bad, 1.0, 1.0)
    with pytest.raises(ValueError, match="never assigned"):
        bal.on_complete(0, 99, 0.0, 1.0, 1.0)


def test_presets_and_overrides():
    a = PLBHAC(2, 2 * 10**4, preset="robust", training="barrier", x_init=16)
    assert "training" in a._kw and a.fresh()._kw == a._kw
    trace, _, _ = drive(a, linear((10.0, 5.0)), c_eval=0.1)
    assert a.stats()["n_barriers"] == 1  # the explicit keyword beat the preset
    b = PLBHAC(2, 2 * 10**4, preset="robust", x_init=16)
    drive(b, linear((10.0, 5.0)), c_eval=0.1)
    assert b.stats()["n_barriers"] == 0
    assert PLBHAC(2, 3, quantum=3).n == 3


# ---------------------------------------------------------------- options ----------------


def test_end_game_parks_a_latency_pu():
    # PU 1 pays 10 s per block: in the end-game (S_eff >= remaining, lb = 0) the solver
    # excludes it, it is parked (idle reason "other"), and PU 0 finishes the data.
    def cost(a, start):
        return 0.0, a.size / 10.0 + (10.0 if a.pu == 1 else 0.0)

    W = 2000
    bal = PLBHAC(2, W, x_init=8, min_block=[1, 1])
    parked_seen = []

    def check(b, t):
        st = b.stats()
        if st["cursor"] < W and b.idle_reason(1) == "other" and b.model_version > 0:
            parked_seen.append(t)

    trace, evals, _ = drive(bal, cost, c_eval=0.1, check=check)
    assert_exactly_once(trace, W)
    last = max(r["a"].block_id for r in trace)
    X_end = bal.series["X"][-1]
    assert X_end[1] == 0 and X_end[0] > 0  # excluded by the last solve
    assert all(r["a"].pu == 0 for r in trace if r["a"].block_id == last)
    assert parked_seen


def test_cap_bounds_every_block():
    bal = PLBHAC(4, 5000, x_init=8, cap=[40, 1000, 1000, 1000])
    trace, _, _ = drive(bal, linear(RATES4), c_eval=0.1)
    assert all(r["a"].size <= 40 for r in regular(trace, 0))
    assert np.all(bal.series["X"][:, 0] <= 40)
    assert_exactly_once(trace, 5000)


def test_min_eval_interval_rate_limits():
    a = PLBHAC(4, 20000, x_init=8, step_mode="fixed", step_size=15)
    drive(a, linear(RATES4), c_eval=0.0)
    b = PLBHAC(4, 20000, x_init=8, step_mode="fixed", step_size=15, min_eval_interval=5.0)
    _, evals, _ = drive(b, linear(RATES4), c_eval=0.0)
    assert b.stats()["n_evals"] < a.stats()["n_evals"] / 3
    assert all(e1["t"] - e0["t"] >= 5.0 - 1e-9 for e0, e1 in zip(evals[1:], evals[2:]))


def test_step_modes():
    W = 12000
    fr = PLBHAC(4, W, x_init=8)
    drive(fr, linear(RATES4), c_eval=0.1)
    S = fr.series
    pre = S[S["S_eff"] == S["S_eff"][0]]
    assert len(pre) > 10  # frozen: one S until the tail
    # S = max(S_train = 30, H(2 s) = 30), capped by remaining / 4
    assert S["S_eff"][0] == 30
    ad = PLBHAC(4, W, x_init=8, step_mode="adaptive", step_time=8.0)
    drive(ad, linear(RATES4), c_eval=0.1)
    assert ad.series["S_eff"][0] == 120  # H(8 s) = 8 * 15
    ra = PLBHAC(4, W, x_init=8, step_mode="ratchet", step_time=8.0, tail_mode="off")
    drive(ra, linear(RATES4), c_eval=0.1)
    s = ra.series["S_eff"]
    k = int(np.argmax(s < s.max()))  # the end-game shrinks it at the very end only
    assert np.all(np.diff(s[: k or len(s)]) >= 0) and s[0] == 120


def test_paper_strict():
    with pytest.raises(ValueError, match="step_size"):
        PLBHAC(4, 6000, paper_strict=True)
    bal = PLBHAC(4, 6000, x_init=8, paper_strict=True, step_size=300, min_block=[1, 1, 1, 1])
    trace, evals, _ = drive(bal, linear(RATES4), c_eval=0.0)
    ser = bal.series
    tail = [row for row, e in zip(ser, evals) if e["completed"] >= 0.7 * 6000 and 6000 - e["cursor"] > 300]
    assert tail and all(row["S_eff"] < 300 for row in tail)  # scaled blocks
    assert_exactly_once(trace, 6000)
