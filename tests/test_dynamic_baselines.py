"""Baselines of wpart.dynamic (spec 001 §3.2, §3.5): HDSS, AcostaRP, NaiveProfile, Asymmetric,
StaticPeak, DmdaLike, FixedBlocks, EagerStarPU; tests P14 and the barrier counts of §5.5."""

import heapq
import math
from fractions import Fraction

import numpy as np
import pytest

from wpart.dynamic import (
    HDSS,
    AcostaRP,
    Asymmetric,
    DmdaLike,
    EagerStarPU,
    FixedBlocks,
    Greedy,
    NaiveProfile,
    StaticPeak,
    greedy_chunks,
    split_proportional,
)


def affine(t0, rates):
    """Truth E_p(x) = t0_p + x / r_p."""
    t0 = np.broadcast_to(np.asarray(t0, dtype=float), (len(rates),))
    return lambda p, x: float(t0[p]) + x / rates[p]


def drive(bal, time_fn, *, c_eval=0.0):
    """A scripted event loop: a PU runs its assigned blocks in FIFO order, block x on PU p
    takes time_fn(p, x) seconds; an EVAL runs eval_run at once and eval_done c_eval later.

    Returns (records, makespan, evals): records are (action, start, end) in completion order,
    evals the EVAL actions with their issue times.
    """
    n = bal.m
    events, free, recs, evals, seq = [], [0.0] * n, [], [], 0

    def submit(acts, now):
        nonlocal seq
        for a in acts:
            if a.kind == "assign":
                start = max(now, free[a.pu])
                end = start + time_fn(a.pu, a.size)
                free[a.pu] = end
                heapq.heappush(events, (end, seq, "done", a, start))
            else:
                assert a.kind == "eval"
                evals.append((now, a))
                bal.eval_run(a.token)
                heapq.heappush(events, (now + c_eval, seq, "eval", a, now))
            seq += 1

    submit(bal.start(0.0), 0.0)
    while events:
        t, _, what, a, start = heapq.heappop(events)
        if what == "done":
            recs.append((a, start, t))
            submit(bal.on_complete(a.pu, a.block_id, 0.0, t - start, t), t)
        else:
            submit(bal.eval_done(a.token, t), t)
    makespan = max((r[2] for r in recs), default=0.0)
    return recs, makespan, evals


def assert_exactly_once(bal, recs, total):
    ranges = sorted((a.offset, a.offset + a.size) for a, _, _ in recs)
    assert ranges[0][0] == 0 and ranges[-1][1] == total
    assert all(r0[1] == r1[0] for r0, r1 in zip(ranges, ranges[1:]))
    assert all(a.size > 0 for a, _, _ in recs)
    assert len({a.block_id for a, _, _ in recs}) == len(recs)
    assert bal.done
    st = bal.stats()
    assert st["completed"] == total and st["cursor"] == total and st["in_flight"] == 0


def make_all(n, total, rng):
    kinds = [["cpu", "gpu", "phi"][k] for k in rng.integers(0, 3, n)]
    rates = rng.uniform(0.5, 20.0, n)
    chunk = int(rng.integers(1, 300))
    return [
        HDSS(n, total, x_init=int(rng.integers(1, 64)), min_chunk=int(rng.integers(1, 40))),
        AcostaRP(n, total, int(rng.integers(n, n + 500))),
        NaiveProfile(n, total, x_init=int(rng.integers(1, 100))),
        Asymmetric(n, total, kinds, g_cpu=int(rng.integers(1, 50))),
        StaticPeak(total, np.where(rng.random(n) < 0.2, 0.0, rates) + (np.arange(n) == 0)),
        DmdaLike(total, 1.0 / rates, chunk=chunk),
        FixedBlocks(total, rng.integers(0, 80, n) + (np.arange(n) == n - 1)),
        FixedBlocks(total, rng.integers(1, 80, n), sync=True),
        EagerStarPU(n, total, chunk=chunk),
    ]


@pytest.mark.parametrize("seed", range(12))
def test_A8_exactly_once_every_baseline(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    total = int(rng.choice([1, 2, 7, int(rng.integers(1, 5000)), int(rng.integers(5000, 60000))]))
    rates = rng.uniform(1.0, 50.0, n)
    t0 = rng.uniform(0.0, 0.5, n) * (rng.random() < 0.5)
    for bal in make_all(n, total, rng):
        recs, _, evals = drive(bal, affine(t0, rates), c_eval=0.1)
        assert_exactly_once(bal, recs, total)
        assert bal.stats()["n_evals"] == len(evals)
        assert all(a.pu == -1 for _, a in evals)


def test_eager_is_greedy_and_greedy_chunks():
    assert EagerStarPU is Greedy
    assert greedy_chunks() == (1024, 4096, 16384)
    assert greedy_chunks(x_init=8) == (8, 32, 128)
    with pytest.raises(ValueError, match="x_init"):
        greedy_chunks(x_init=0)


# ------------------------------------------------------------------------------- HDSS ----

@pytest.mark.parametrize("t0", [0.0, 0.01, 0.1])
def test_P14_hdss_weights_and_decreasing_chunks(t0):
    rates = np.array([100.0, 250.0, 1500.0, 3000.0])
    W = 2**20
    bal = HDSS(4, W)
    recs, _, evals = drive(bal, affine(t0, rates), c_eval=0.1)
    assert_exactly_once(bal, recs, W)
    w = bal.weights
    assert w is not None and abs(w.sum() - 1.0) < 1e-12
    ratio = w / (rates / rates.sum())
    assert np.all(np.abs(ratio - 1.0) <= 0.20), ratio
    np.testing.assert_allclose(bal.shares, 100.0 * w, rtol=1e-12)
    for p in range(4):
        chunks = [a.size for a, _, _ in sorted(recs, key=lambda r: r[0].block_id)
                  if a.pu == p and a.block_kind == "other"]
        assert chunks and all(c0 >= c1 for c0, c1 in zip(chunks, chunks[1:])), (p, chunks)
    # one evaluation, every PU waiting; one barrier per adaptive round
    rounds = {a.vstep for a, _, _ in recs if a.block_kind == "train"}
    assert rounds == set(range(1, len(rounds) + 1))
    st = bal.stats()
    assert st["n_evals"] == 1 and len(evals) == 1 and evals[0][1].pu == -1
    assert st["n_barriers"] == len(rounds)


def test_hdss_rounds_by_hand():
    # linear truths: throughput never grows, so every PU converges after round 2 (r = 1)
    bal = HDSS(2, 10**6, x_init=10, min_chunk=1, kappa=2.0)
    acts = bal.start(0.0)
    assert [(a.pu, a.size, a.block_kind, a.vstep) for a in acts] == [(0, 10, "train", 1), (1, 10, "train", 1)]
    assert bal.on_complete(0, 0, 0.0, 1.0, 1.0) == []
    assert bal.idle_reason(0) == "barrier"
    acts = bal.on_complete(1, 1, 0.0, 4.0, 4.0)  # rates 10 and 2.5 el/s
    assert [(a.pu, a.size, a.vstep) for a in acts] == [(0, 20, 2), (1, 20, 2)]
    bal.on_complete(0, 2, 0.0, 2.0, 6.0)
    acts = bal.on_complete(1, 3, 0.0, 8.0, 12.0)
    assert [a.kind for a in acts] == ["eval"] and acts[0].pu == -1
    assert bal.idle_reason(0) == "eval" and bal.weights is None
    bal.eval_run(acts[0].token)
    acts = bal.eval_done(acts[0].token, 12.1)
    np.testing.assert_allclose(bal.weights, [0.8, 0.2])
    R = 10**6 - 60
    c0 = math.ceil(0.8 * R / 2)
    c1 = math.ceil(0.2 * (R - c0) / 2)
    assert [(a.pu, a.size, a.block_kind, a.vstep) for a in acts] == [(0, c0, "other", 0), (1, c1, "other", 0)]
    assert bal.stats()["n_barriers"] == 2


def test_hdss_least_squares_weight_is_the_fit_at_the_last_size():
    # PU 0: throughput grows with ln b, never by less than eps -> 3 rounds, LS through 3 points
    pts = {10: 1.0, 20: 1.5, 40: 2.2}  # sizes -> throughput
    bal = HDSS(2, 10**6, x_init=10, rounds_max=3, eps=0.1)
    acts = bal.start(0.0)
    now = 0.0
    for _ in range(3):
        nxt = []
        for a in acts:
            now += 1.0
            th = pts[a.size] if a.pu == 0 else 5.0
            nxt += bal.on_complete(a.pu, a.block_id, 0.0, a.size / th, now)
        acts = nxt
    assert [a.kind for a in acts] == ["eval"]
    bal.eval_run(acts[0].token)
    bal.eval_done(acts[0].token, now)
    lb = np.log([10.0, 20.0, 40.0])
    d, c = np.polyfit(lb, [1.0, 1.5, 2.2], 1)
    w0 = c + d * np.log(40.0)
    w1 = 5.0  # PU 1 converged after round 2 (no growth); fitted at its last size 20
    np.testing.assert_allclose(bal.weights, np.array([w0, w1]) / (w0 + w1), rtol=1e-12)


def test_hdss_adapt_fraction_caps_phase_one():
    bal = HDSS(3, 40_000, x_init=1024)  # 0.2 W = 8000: round 1 (3072) then 6144 would exceed
    recs, _, evals = drive(bal, affine(0.05, [10.0, 100.0, 1000.0]))
    assert {a.vstep for a, _, _ in recs if a.block_kind == "train"} == {1}
    assert bal.stats()["n_barriers"] == 1 and len(evals) == 1


# ------------------------------------------------------------------------------- AcostaRP ----

def test_acosta_linear_truths_split_is_rate_proportional_after_one_step():
    rates = np.array([1.0, 2.0, 5.0])
    W, S = 8000, 800
    bal = AcostaRP(3, W, S)
    recs, _, _ = drive(bal, affine(0.0, rates))
    assert_exactly_once(bal, recs, W)
    ser = bal.series
    assert len(ser) == W // S and bal.stats()["n_barriers"] == W // S
    assert ser["X"][0].tolist() == [267, 267, 266]
    want = split_proportional(S, rates)
    for row in ser[1:]:
        assert row["X"].tolist() == want.tolist()
        assert row["S_eff"] == S
    # steps are synchronous: step k+1 starts when every block of step k has ended
    by_step = {}
    for a, s, e in recs:
        by_step.setdefault(a.vstep, []).append((s, e))
    for k in range(1, len(by_step)):
        assert min(s for s, _ in by_step[k + 1]) == pytest.approx(max(e for _, e in by_step[k]))


def test_acosta_affine_truths_converge_to_equal_time():
    rates = np.array([50.0, 200.0, 800.0])
    t0 = np.array([0.5, 0.2, 0.1])
    S = 20_000
    bal = AcostaRP(3, 40 * S, S, threshold=0.0)
    recs, _, _ = drive(bal, affine(t0, rates))
    X = bal.series["X"]
    T = (S + (t0 * rates).sum()) / rates.sum()  # equal-time split, closed form (§2.10)
    want = (T - t0) * rates
    np.testing.assert_allclose(X[-1], want, atol=2.0)
    err = np.abs(X - want).max(axis=1)
    assert err[0] > 1000 and err[5] < err[0] / 10  # early steps badly balanced, then converges
    assert bal.stats()["n_barriers"] == 40


def test_acosta_threshold_and_eval_at_barrier():
    bal = AcostaRP(2, 100, 10, threshold=0.5, eval_at_barrier=True)
    recs, mk, evals = drive(bal, affine(0.0, [1.0, 1.3]), c_eval=1.0)
    assert_exactly_once(bal, recs, 100)
    assert all(row["X"].tolist() == [5, 5] for row in bal.series)  # spread 23 % < 50 %
    assert len(evals) == 9 and bal.stats()["n_barriers"] == 10
    assert mk == pytest.approx(10 * 5.0 + 9 * 1.0)


# ------------------------------------------------------------------------------- NaiveProfile ----

def test_naive_profile_static_split_proportional_to_rates():
    rates = np.array([3.0, 1.0, 12.0, 0.5])
    W = 50_000
    bal = NaiveProfile(4, W, x_init=64)
    recs, _, _ = drive(bal, affine(0.0, rates))
    assert_exactly_once(bal, recs, W)
    assert bal.stats()["n_barriers"] == 1
    other = sorted((a for a, _, _ in recs if a.block_kind == "other"), key=lambda a: a.pu)
    assert [a.pu for a in other] == [0, 1, 2, 3]
    assert [a.size for a in other] == split_proportional(W - 4 * 64, rates).tolist()
    np.testing.assert_allclose(bal.shares, 100 * rates / rates.sum(), rtol=1e-9)


# ------------------------------------------------------------------------------- DmdaLike ----

def dmda_reference(total, times, chunk):
    avail, out, off = [0.0] * len(times), [], 0
    while off < total:
        size = min(chunk, total - off)
        ends = [avail[p] + times[p] * size / chunk for p in range(len(times))]
        p = min(range(len(times)), key=lambda q: (ends[q], q))
        avail[p] = ends[p]
        out.append((p, off, size))
        off += size
    return out


@pytest.mark.parametrize("seed", range(8))
def test_dmda_pushes_every_piece_to_the_earliest_finishing_pu(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 6))
    total, chunk = int(rng.integers(1, 3000)), int(rng.integers(1, 200))
    times = rng.choice([0.5, 1.0, 2.0, 3.0], n) if seed % 2 else rng.uniform(0.1, 5.0, n)
    bal = DmdaLike(total, times, chunk=chunk)
    acts = bal.start(0.0)
    assert [(a.pu, a.offset, a.size) for a in acts] == dmda_reference(total, times, chunk)
    # with exact estimates the predicted ends are the real ones: run the queues
    bal = bal.fresh()
    recs, mk, _ = drive(bal, lambda p, x: times[p] * x / chunk)
    assert_exactly_once(bal, recs, total)
    for a, _, e in recs:
        assert e == pytest.approx(a.pred_end)


def test_dmda_queues_several_blocks_per_pu_and_ignores_completions():
    bal = DmdaLike(10_000, [1.0, 4.0], chunk=1000)
    acts = bal.start(0.0)
    assert [a.pu for a in acts].count(0) == 8 and [a.pu for a in acts].count(1) == 2
    assert bal.on_complete(0, 0, 0.0, 1.0, 1.0) == []


# ------------------------------------------------------------------------------- others ----

def test_asymmetric_piece_sizes_by_kind():
    bal = Asymmetric(4, 100_000, ["cpu", "gpu", "phi", 0], g_cpu=100)
    recs, _, _ = drive(bal, affine(0.0, [1.0, 10.0, 5.0, 2.0]))
    assert_exactly_once(bal, recs, 100_000)
    for a, _, _ in recs:
        if a.offset + a.size < 100_000:
            assert a.size == (100 if a.pu in (0, 3) else 800)
    bal = Asymmetric(2, 10, ["gpu", "cpu"], g_cpu=2, ratio=3)
    assert [(a.pu, a.size) for a in bal.start(0.0)] == [(0, 6), (1, 2)]
    assert repr(bal) == "Asymmetric(2, 10, ('gpu', 'cpu'), g_cpu=2, ratio=3)"


def split_reference(total, w):
    w = [Fraction(x) for x in w]
    s = sum(w)
    exact = [total * x / s for x in w]
    out = [math.floor(e) for e in exact]
    order = sorted(range(len(w)), key=lambda p: (-(exact[p] - out[p]), p))
    for p in order[: total - sum(out)]:
        out[p] += 1
    return out


@pytest.mark.parametrize("seed", range(10))
def test_split_proportional_and_static_peak(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    w = rng.integers(0, 5, n).astype(float)  # ties and zeros
    w[int(rng.integers(n))] += 1.0
    total = int(rng.integers(0, 1000))
    got = split_proportional(total, w)
    assert got.tolist() == split_reference(total, w)
    if total:
        acts = StaticPeak(total, w).start(0.0)
        assert [(a.pu, a.size) for a in acts] == [(p, int(s)) for p, s in enumerate(got) if s > 0]


def test_fixed_blocks_sizes_and_barriers():
    bal = FixedBlocks(100, [10, 0, 5])
    recs, _, _ = drive(bal, affine(0.0, [1.0, 1.0, 1.0]))
    assert_exactly_once(bal, recs, 100)
    assert {a.pu for a, _, _ in recs} == {0, 2}
    assert all(a.size == (10 if a.pu == 0 else 5) for a, _, _ in recs if a.offset + a.size < 100)
    assert bal.stats()["n_barriers"] == 0
    bal = FixedBlocks(100, [10, 5], sync=True)
    recs, mk, _ = drive(bal, affine(0.0, [1.0, 1.0]))
    assert_exactly_once(bal, recs, 100)
    assert bal.stats()["n_barriers"] == 7 and mk == pytest.approx(6 * 10 + 10)


@pytest.mark.parametrize("make", [
    lambda: HDSS(3, 5000, x_init=100),
    lambda: AcostaRP(3, 5000, 300, threshold=0.1),
    lambda: NaiveProfile(3, 5000, x_init=10),
    lambda: Asymmetric(3, 5000, ["cpu", "gpu", "cpu"], g_cpu=50, ratio=4),
    lambda: StaticPeak(5000, [1.0, 2.0, 3.0]),
    lambda: DmdaLike(5000, [1.0, 2.0, 3.0], chunk=64),
    lambda: FixedBlocks(5000, [7, 8, 9], sync=True),
])
def test_fresh_gives_an_identical_independent_run(make):
    a = make()
    ra, _, _ = drive(a, affine(0.01, [1.0, 2.0, 3.0]), c_eval=0.1)
    b = a.fresh()
    assert type(b) is type(a) and repr(b) == repr(a) and not b.done
    rb, _, _ = drive(b, affine(0.01, [1.0, 2.0, 3.0]), c_eval=0.1)
    assert [(x.pu, x.offset, x.size) for x, _, _ in ra] == [(x.pu, x.offset, x.size) for x, _, _ in rb]


def test_bad_input_names_the_argument():
    cases = [
        (ValueError, "`m`", lambda: HDSS(0, 10)),
        (ValueError, "`n`", lambda: HDSS(2, 0)),
        (ValueError, "x_init", lambda: HDSS(2, 10, x_init=0)),
        (ValueError, "eps", lambda: HDSS(2, 10, eps=-0.1)),
        (ValueError, "eps", lambda: HDSS(2, 10, eps=float("nan"))),
        (TypeError, "eps", lambda: HDSS(2, 10, eps="0.1")),
        (ValueError, "rounds_max", lambda: HDSS(2, 10, rounds_max=0)),
        (TypeError, "rounds_max", lambda: HDSS(2, 10, rounds_max=2.0)),
        (ValueError, "adapt_fraction", lambda: HDSS(2, 10, adapt_fraction=0.0)),
        (ValueError, "adapt_fraction", lambda: HDSS(2, 10, adapt_fraction=1.5)),
        (ValueError, "kappa", lambda: HDSS(2, 10, kappa=0.0)),
        (ValueError, "min_chunk", lambda: HDSS(2, 10, min_chunk=0)),
        (ValueError, "step", lambda: AcostaRP(3, 10, 2)),
        (ValueError, "threshold", lambda: AcostaRP(3, 10, 5, threshold=-1.0)),
        (TypeError, "eval_at_barrier", lambda: AcostaRP(3, 10, 5, eval_at_barrier=1)),
        (ValueError, "x_init", lambda: NaiveProfile(2, 10, x_init=0)),
        (ValueError, "pu_kinds", lambda: Asymmetric(2, 10, ["cpu"])),
        (ValueError, r"pu_kinds\[1\]", lambda: Asymmetric(2, 10, ["cpu", "tpu"])),
        (ValueError, r"pu_kinds\[0\]", lambda: Asymmetric(2, 10, [3, 0])),
        (TypeError, "pu_kinds", lambda: Asymmetric(2, 10, "cg")),
        (ValueError, "g_cpu", lambda: Asymmetric(1, 10, ["cpu"], g_cpu=0)),
        (ValueError, "ratio", lambda: Asymmetric(1, 10, ["cpu"], ratio=0)),
        (ValueError, "peak_rates", lambda: StaticPeak(10, [1.0, -1.0])),
        (ValueError, "peak_rates", lambda: StaticPeak(10, [0.0, 0.0])),
        (ValueError, "peak_rates", lambda: StaticPeak(10, [1.0, float("inf")])),
        (ValueError, "peak_rates", lambda: StaticPeak(10, [])),
        (TypeError, "peak_rates", lambda: StaticPeak(10, ["a"])),
        (ValueError, "piece_times", lambda: DmdaLike(10, [1.0, 0.0])),
        (ValueError, "chunk", lambda: DmdaLike(10, [1.0], chunk=0)),
        (ValueError, "chunk", lambda: DmdaLike(2**40, [1.0], chunk=1)),
        (ValueError, "blocks", lambda: FixedBlocks(10, [0, 0])),
        (ValueError, "blocks", lambda: FixedBlocks(10, [1, -1])),
        (TypeError, "blocks", lambda: FixedBlocks(10, [1.5])),
        (ValueError, "weights", lambda: split_proportional(10, [0.0])),
        (ValueError, "`n`", lambda: split_proportional(-1, [1.0])),
    ]
    for exc, name, fn in cases:
        with pytest.raises(exc, match=name):
            fn()


def test_inputs_are_not_modified():
    rates = np.array([3.0, 1.0])
    times = np.array([1.0, 2.0])
    blocks = np.array([4, 5])
    StaticPeak(10, rates).start(0.0)
    DmdaLike(10, times, chunk=3).start(0.0)
    FixedBlocks(10, blocks).start(0.0)
    assert rates.tolist() == [3.0, 1.0] and times.tolist() == [1.0, 2.0] and blocks.tolist() == [4, 5]
