"""The rounds protocol of the rank engine over MPI (:mod:`wpart.tasks._rounds`).

Each round: one allreduce of four numbers (the largest W, minus the smallest, the most
proposals of a rank, the largest drop of a pair's W; in the final pass a second one names the
heaviest and the lightest rank);
the proposals go to their targets only (``PROPOSE``, a sparse exchange that needs no
collective of size P: :meth:`~wpart.tasks._mpi_comm.Channel.sparse`), each answered
``ACCEPT`` or ``REFRESH``; at most ``handshakes`` handshakes of the locally dominant matching
(``PICK``, to the ranks of this rank's edges only: :class:`~wpart.tasks._rounds.Handshake`);
then the matched pairs exchange point to point (``LOCK_GRANT``, ``GIVE``/``RELEASE``,
``GIVE_BACK``), all pairs at the same time. The assignment is the in-process run's bit for
bit. Every wait is bounded by the channel's `timeout`
(:class:`~wpart.tasks._mpi_comm.Channel`).
"""

from __future__ import annotations

from ._mpi_comm import RankFailure
from ._rounds import (Handshake, accepts, edge_keys, extremes, round_scalars,
                      stalled, stop_round)

__all__ = ["rounds_stage_mpi"]


def rounds_stage_mpi(ch, rk, prm, pos, trial: int, it: int, limit: int | None = None) -> int:
    """Run one iteration's transfer stage on this rank (at most `limit` rounds: default as
    :func:`~wpart.tasks._rounds.rounds_stage`); returns the exchanges it proposed."""
    me, P = ch.rank, ch.size
    final = bool(rk.final)
    moved = 0
    rnd = 0

    def check(src: int, m: tuple, kinds: tuple) -> None:
        if m[0] not in kinds or tuple(m[1:4]) != (trial, it, rnd):
            raise RankFailure(f"rank {me}: {m[0]} of trial {m[1]} iteration {m[2]} round {m[3]} "
                              f"from rank {src} while expecting {'/'.join(kinds)} of trial "
                              f"{trial} iteration {it} round {rnd}")

    if limit is None:
        limit = prm.round_limit(final, rk.stage_rounds)
    while rnd < limit:
        where = f"round {rnd} of iteration {it}"
        props = rk.proposals()
        w = rk.current_work()
        red = ch.allreduce_vec(round_scalars(w, len(props), rk.take_drop()), "max",
                               f"the allreduce of {where}")
        if final:
            ext = ch.allreduce_vec(extremes(w, me, red, P), "max",
                                   f"the extremes of {where}")
            rk.extremes = (float(red[0]), -float(red[1]), int(-ext[0]), int(-ext[1]))
        if stop_round(red, final, prm.final_tol) or stalled(rk, red, rnd, prm):
            break
        got = ch.sparse({q: ("PROPOSE", trial, it, rnd, w, dexc, gain, vu)
                         for q, dexc, gain, vu in props}, "PROP", f"the proposals of {where}",
                        "PROPOSE")
        inc = []
        for src, m in got:
            check(src, m, ("PROPOSE",))
            if accepts(m[4], m[7], w, rk.version):
                ch.send(src, "ANSWER", ("ACCEPT", trial, it, rnd), "ACCEPT")
                inc.append((src, m[5], m[6]))
            else:  # this rank's current summary to a proposer that used a stale one
                ch.send(src, "ANSWER", ("REFRESH", trial, it, rnd, rk.own_summary()), "REFRESH")
        out = []
        for q, dexc, gain, _ in props:
            _, _, m = ch.recv(q, ("ANSWER",), f"the answer of rank {q} to a proposal "
                              f"({where})", blame=q)
            check(q, m, ("ACCEPT", "REFRESH"))
            if m[0] == "ACCEPT":
                out.append((q, dexc, gain))
            else:
                rk.known[q] = m[4]
        hs = Handshake(me, edge_keys(me, out, inc, pos))
        for h in range(prm.handshakes):
            msg = hs.message()
            if msg is None:
                break
            tg = hs.targets()
            for q in tg:
                ch.send(q, "PICK", (trial, it, rnd, h, msg), "PICK")
            got = {}
            for q in tg:
                _, _, m = ch.recv(q, ("PICK",), f"handshake {h} of rank {q} ({where})", blame=q)
                if tuple(m[:4]) != (trial, it, rnd, h):
                    raise RankFailure(f"rank {me}: handshake {m[:4]} from rank {q} while "
                                      f"expecting {(trial, it, rnd, h)}")
                got[q] = m[4]
            hs.receive(got)
        q = hs.partner
        if q < 0:
            rnd += 1
            continue
        if hs.edges[q][1] != me:  # the proposer locks this rank: send the records, apply its answer
            ch.send(q, "TURN", ("LOCK_GRANT", trial, it, rnd, rk.serve(q, ("LOCK_REQ", 0.0))[1],
                                rk.pair_work()), "LOCK_GRANT")
            while True:  # GIVE (answered GIVE_BACK) until RELEASE
                _, _, m = ch.recv(q, ("TURN",), f"the answer of rank {q} to LOCK_GRANT "
                                  f"({where})", blame=q)
                check(q, m, ("GIVE", "RELEASE"))
                if m[0] == "RELEASE":
                    break
                ans = rk.serve(q, ("GIVE", m[4], m[5]))
                ch.send(q, "TURN", (ans[0], trial, it, rnd, ans[1], rk.pair_work()), ans[0])
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
                return (a[0], a[4], a[5])
            moved += rk.exchange(q, m[4], request, m[5])
        rnd += 1
    rk.stage_rounds = rnd
    return moved
