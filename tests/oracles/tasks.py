"""Pure-Python oracle of the CCM work model (spec 003 section 1), independent of the C core."""

from __future__ import annotations

import itertools
import math


def work_model(p, assign, alpha=1.0, beta=0.0, gamma=0.0, delta=0.0, cap=None):
    """Per-rank dict of load/out/in/loc/homing/memory/work from first principles."""
    I, K = p.m, p.n_tasks
    load = [0.0] * I
    fp = [0.0] * I
    wk = [0.0] * I
    out = [0.0] * I
    inn = [0.0] * I
    loc = [0.0] * I
    present = [set() for _ in range(I)]
    for k in range(K):
        r = int(assign[k])
        load[r] += float(p.task_load[k])
        if p.task_footprint is not None:
            fp[r] += float(p.task_footprint[k])
        if p.task_working is not None:
            wk[r] = max(wk[r], float(p.task_working[k]))
        if p.task_block is not None and p.task_block[k] >= 0:
            present[r].add(int(p.task_block[k]))
    for (a, b), v in zip(p.edges.tolist(), p.edge_bytes.tolist()):
        ra, rb = int(assign[a]), int(assign[b])
        if ra == rb:
            loc[ra] += v
        else:
            out[ra] += v
            inn[rb] += v
    caps = p.rank_mem_cap if cap is None else cap
    res = {"load": load, "vol_out": out, "vol_in": inn, "vol_local": loc, "homing": [],
           "memory": [], "work": []}
    for r in range(I):
        ms = sum(float(p.block_size[s]) for s in present[r])
        h = sum(float(p.block_size[s]) for s in present[r] if p.block_home[s] != r)
        base = float(p.rank_baseline[r]) if p.rank_baseline is not None else 0.0
        mem = base + fp[r] + wk[r] + ms
        a = float(p.rank_alpha[r]) if p.rank_alpha is not None else alpha
        w = a * load[r] + beta * max(out[r], inn[r]) + gamma * loc[r] + delta * h
        if caps is not None and mem > caps[r]:
            w = math.inf
        res["homing"].append(h)
        res["memory"].append(mem)
        res["work"].append(w)
    res["w_max"] = max(res["work"])
    return res


def brute(p, preserve=False, **kw):
    """Optimal W_max by enumerating all assignments (tiny instances)."""
    best = math.inf
    arg = None
    for a in itertools.product(range(p.m), repeat=p.n_tasks):
        if preserve and p.task_block is not None:
            where = {}
            ok = True
            for k, r in enumerate(a):
                s = int(p.task_block[k])
                if s >= 0 and where.setdefault(s, r) != r:
                    ok = False
                    break
            if not ok:
                continue
        w = work_model(p, a, **kw)["w_max"]
        if w < best:
            best, arg = w, a
    return best, arg


def find_best_ccm(model, r, tr, p, tp):
    """FindBestCCM by enumeration in Python (the event backend's former exact step): every
    pair (unit of ``tr`` or nothing, unit of ``tp`` or nothing), each after-state evaluated
    from scratch with the C work model; ``(gain, give, take)``, ``gain = -inf`` when nothing
    is accepted (gain above ``tol * before``); ties: fewer tasks moved, then the smaller unit
    tuples. `model`: a ``wpart.tasks._protocol._Model``."""
    tr, tp = frozenset(tr), frozenset(tp)
    wr, wp = model.pair_work(r, tr, p, tp)
    before = max(wr, wp)
    best, best_key = (-math.inf, (), ()), None
    for cr in model.clusters(tr) + [()]:
        for cp in model.clusters(tp) + [()]:
            if not cr and not cp:
                continue
            w1, w2 = model.pair_work(r, (tr - set(cr)) | set(cp), p, (tp - set(cp)) | set(cr))
            gain = before - max(w1, w2)
            if not gain > model.tol * before:
                continue
            key = (-gain, len(cr) + len(cp), cr, cp)
            if best_key is None or key < best_key:
                best_key, best = key, (gain, cr, cp)
    return best
