"""The balancer protocol of wpart.dynamic: common layer, Greedy, Static."""

import heapq

import pytest

import wpart
from wpart.dynamic import Greedy, Static, StaticEqual


def drive(bal, rates):
    """A tiny event loop: PU p runs a block of x elements in x / rates[p] seconds."""
    events, free, trace, seq = [], [0.0] * bal.m, [], 0

    def submit(acts, now):
        nonlocal seq
        for a in acts:
            assert a.kind == "assign"
            start = max(now, free[a.pu])
            end = start + a.size / rates[a.pu]
            free[a.pu] = end
            heapq.heappush(events, (end, seq, a))
            seq += 1

    submit(bal.start(0.0), 0.0)
    while events:
        t, _, a = heapq.heappop(events)
        trace.append(a)
        submit(bal.on_complete(a.pu, a.block_id, 0.0, a.size / rates[a.pu], t), t)
    return trace, max(free)


@pytest.mark.parametrize("total,chunk,n", [(1, 1, 1), (100, 7, 3), (1000, 1024, 4), (12345, 100, 5)])
def test_A8_greedy_exactly_once(total, chunk, n):
    bal = Greedy(n, total, chunk=chunk)
    trace, _ = drive(bal, [1.0 + p for p in range(n)])
    ranges = sorted((a.offset, a.offset + a.size) for a in trace)
    assert ranges[0][0] == 0 and ranges[-1][1] == total
    assert all(r0[1] == r1[0] for r0, r1 in zip(ranges, ranges[1:]))
    assert all(a.size == chunk for a in trace if a.offset + a.size < total)
    assert bal.done
    assert bal.stats()["completed"] == total


def test_static_blocks_and_zero_share():
    bal = Static([5, 0, 3])
    acts = bal.start(0.0)
    assert [(a.pu, a.offset, a.size) for a in acts] == [(0, 0, 5), (2, 5, 3)]
    assert not bal.done
    assert bal.on_complete(0, 0, 0.0, 1.0, 1.0) == []
    assert bal.idle_reason(0) == "starved"
    bal.on_complete(2, 1, 0.0, 1.0, 2.0)
    assert bal.done
    assert [b.size for b in StaticEqual(3, 10).start(0.0)] == [4, 3, 3]


def test_bad_input_names_the_argument():
    with pytest.raises(wpart.WpartValueError, match="`m`"):
        Greedy(0, 10)
    with pytest.raises(wpart.WpartValueError, match="`n`"):
        Greedy(2, 0)
    with pytest.raises(ValueError, match="chunk"):
        Greedy(2, 10, chunk=0)
    with pytest.raises(ValueError, match="blocks"):
        Static([1, -1])
    with pytest.raises(TypeError, match="blocks"):
        Static([1.5, 2])
    g = Greedy(2, 10, chunk=3)
    g.start(0.0)
    with pytest.raises(ValueError, match="never assigned"):
        g.on_complete(0, 7, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="assigned to PU 0"):
        g.on_complete(1, 0, 0.0, 1.0, 1.0)
    for bad in (float("nan"), -1.0, float("inf")):
        with pytest.raises(ValueError, match="t_comp"):
            g.on_complete(0, 0, 0.0, bad, 1.0)
    g.on_complete(0, 0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="already completed"):
        g.on_complete(0, 0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="already started"):
        g.start(0.0)
    with pytest.raises(ValueError, match="no evaluations|unknown evaluation"):
        g.eval_run(1)


def test_fresh_is_independent():
    g = Greedy(2, 50, chunk=10)
    drive(g, [1.0, 2.0])
    h = g.fresh()
    assert not h.done and h.stats()["n_blocks"] == 0
    trace, _ = drive(h, [1.0, 2.0])
    assert sum(a.size for a in trace) == 50
