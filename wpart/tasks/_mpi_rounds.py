"""The rounds protocol of the rank engine over MPI (:mod:`wpart.tasks._rounds`).

Each round: one all-reduce (does any rank still propose?), one sparse all-to-all of the
proposals, ``handshakes`` sparse all-to-alls of the matching's steps (``POINT``, ``GONE``, and
``REFRESH`` in the first), then
the matched pairs exchange point to point (``LOCK_GRANT``, ``GIVE``/``RELEASE``,
``GIVE_BACK``), all pairs at the same time. The matching code is the in-process run's
(:class:`~wpart.tasks._rounds.RoundRank`), fed with the same sets of messages, so the
assignment is the in-process run's bit for bit. Every wait is bounded by the channel's
`timeout` (:class:`~wpart.tasks._mpi_comm.Channel`).
"""

from __future__ import annotations

from ._mpi_comm import RankFailure
from ._rounds import RoundRank, key_of

__all__ = ["rounds_stage_mpi"]


def rounds_stage_mpi(ch, rk, prm, pos, trial: int, it: int) -> int:
    """Run one iteration's transfer stage on this rank; returns the exchanges it proposed."""
    me = ch.rank
    moved = 0
    rnd = 0

    def check(src: int, m: tuple, kinds: tuple) -> None:
        if m[0] not in kinds or tuple(m[1:4]) != (trial, it, rnd):
            raise RankFailure(f"rank {me}: {m[0]} of trial {m[1]} iteration {m[2]} round {m[3]} "
                              f"from rank {src} while expecting {'/'.join(kinds)} of trial "
                              f"{trial} iteration {it} round {rnd}")

    while True:
        where = f"round {rnd} of iteration {it}"
        props = rk.proposals()
        if ch.allreduce(1 if props else 0, "sum", f"the proposal count of {where}") == 0:
            break
        w = rk.current_work()
        got = ch.exchange({p[0]: ("PROPOSE", trial, it, rnd, p[1], p[2], int(pos[me]), w, p[3])
                           for p in props}, "PROP", f"the proposals of {where}", "PROPOSE")
        incoming = []
        for src, m in got:
            check(src, m, ("PROPOSE",))
            incoming.append((key_of((None, m[4], m[5], None, int(pos[me])), m[6]), src, m[7],
                             m[8]))
        st = RoundRank([p[:4] + (int(pos[p[0]]),) for p in props], pos[me], incoming, w,
                       rk.version)
        for h in range(prm.handshakes):
            kinds = {q: (k,) for q, k in st.step_out().items()}
            fresh = None
            if h == 0 and st.refresh:
                fresh = rk.own_summary()
                for q in st.refresh:
                    kinds[q] = ("REFRESH",) + kinds.get(q, ())
            out = {q: ("STEP", trial, it, rnd, k, fresh if "REFRESH" in k else None)
                   for q, k in kinds.items()}
            got = ch.exchange(out, "PROP", f"step {h} of the matching of {where}",
                              kinds={q: k[0] for q, k in kinds.items()})
            msgs = []
            for src, m in got:
                check(src, m, ("STEP",))
                if "REFRESH" in m[4]:
                    rk.known[src] = m[5]
                msgs.extend((src, k) for k in m[4])
            st.step_in(msgs)
            if h % 4 == 3 and h + 1 < prm.handshakes:  # the steps left send nothing: stop
                busy = bool(st.tell) or (st.partner is None and bool(st.edges))
                if ch.allreduce(int(busy), "sum", f"the matching of {where} (step {h})") == 0:
                    break
        if st.partner is None:
            rnd += 1
            continue
        q = st.partner
        if st.target:  # the proposer locks this rank: send the records, apply its answer
            ch.send(q, "TURN", ("LOCK_GRANT", trial, it, rnd, rk.serve(q, ("LOCK_REQ", 0.0))[1]),
                    "LOCK_GRANT")
            while True:  # GIVE (answered GIVE_BACK) until RELEASE
                _, _, m = ch.recv(q, ("TURN",), f"the answer of rank {q} to LOCK_GRANT "
                                  f"({where})", blame=q)
                check(q, m, ("GIVE", "RELEASE"))
                if m[0] == "RELEASE":
                    break
                ans = rk.serve(q, ("GIVE", m[4], m[5]))
                ch.send(q, "TURN", (ans[0], trial, it, rnd, ans[1]), ans[0])
        else:
            _, _, m = ch.recv(q, ("TURN",), f"LOCK_GRANT of rank {q} ({where})", blame=q)
            check(q, m, ("LOCK_GRANT",))

            def request(dst: int, msg: tuple):
                ch.send(dst, "TURN", (msg[0], trial, it, rnd) + tuple(msg[1:]), msg[0])
                if msg[0] == "RELEASE":
                    return None
                _, _, a = ch.recv(dst, ("TURN",), f"the answer of rank {dst} to {msg[0]} "
                                  f"({where})", blame=dst)
                check(dst, a, ("GIVE_BACK",))
                return (a[0], a[4])
            moved += rk.exchange(q, m[4], request)
        rnd += 1
    return moved
