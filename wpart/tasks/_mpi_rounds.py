"""The rounds protocol of the rank engine over MPI (:mod:`wpart.tasks._rounds`).

Each round: one all-gather of every rank's entry (its W, its version and its proposals, a
fixed row of ``3 + 4 offers`` numbers: :func:`~wpart.tasks._rounds.proposal_row`), from which
every rank computes the same matching (:func:`~wpart.tasks._rounds.plan_round`, the in-process
run's code); then the refreshed summaries go point to point (``REFRESH``) and the matched
pairs exchange point to point (``LOCK_GRANT``, ``GIVE``/``RELEASE``, ``GIVE_BACK``), all pairs
at the same time. A round with no proposal anywhere ends the stage. The assignment is the
in-process run's bit for bit. Every wait is bounded by the channel's `timeout`
(:class:`~wpart.tasks._mpi_comm.Channel`).
"""

from __future__ import annotations

from ._mpi_comm import RankFailure
from ._rounds import plan_round, proposal_row

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
        rows = ch.allgather(proposal_row(rk.current_work(), rk.version, props, prm.offers),
                            f"the proposals of {where}", "ALLGATHER")
        rk.w_view = rows[:, :2].copy()
        if not rows[:, 2].any():
            break
        partner, proposer, refresh = plan_round(rows, pos)
        for q, r in refresh:  # this rank's current summary to a proposer that used a stale one
            if q == me:
                ch.send(r, "PROP", ("REFRESH", trial, it, rnd, rk.own_summary()), "REFRESH")
        for q, r in refresh:
            if r == me:
                _, _, m = ch.recv(q, ("PROP",), f"REFRESH of rank {q} ({where})", blame=q)
                check(q, m, ("REFRESH",))
                rk.known[q] = m[4]
        q = int(partner[me])
        if q < 0:
            rnd += 1
            continue
        if not proposer[me]:  # the proposer locks this rank: send the records, apply its answer
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
