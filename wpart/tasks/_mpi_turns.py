"""The transfer stage of CCM-LB over MPI: turns run concurrently, the result stays serial.

The rank engine's result is defined by a serial order of turns (the serial engine's seeded
order). A turn reads and changes only its own rank and the peers it locks, ``A(p)``, so two
turns with disjoint ``A`` commute. Every rank therefore runs this schedule:

* a rank computes its work list ahead, at the start of the stage; once every earlier turn is
  announced and every earlier turn that includes it has finished with it, it re-ranks only if
  such a turn changed its tasks, announces ``A(p)`` (``ANN``) and runs its turn;
* it then locks its peers one at a time; a rank grants its lock to turn ``p`` only once it
  knows every announcement before ``p`` and every earlier turn that includes it is done with
  it (its own turn included);
* ``DONE`` ends a turn for everyone; the stage ends when all turns are done.

Waits only ever point to earlier turns, so there is no deadlock, and every rank sees the
turns that touch it in the serial order: the assignment is the serial engine's, bit for bit,
while turns on disjoint ranks overlap. All messages of the stage use one tag, so the messages
of one sender arrive in the order sent.
"""

from __future__ import annotations

from ._mpi_comm import RankFailure

__all__ = ["transfer_stage"]


def transfer_stage(ch, rk, order, trial: int, it: int) -> int:
    """Run one iteration's transfer stage on this rank; returns the exchanges of the stage."""
    P, me = ch.size, ch.rank
    order = [int(r) for r in order]
    pos = order.index(me)
    ann: dict = {}          # position -> ranks the turn touches (its rank and its peers)
    done: dict = {}         # position -> exchanges of that turn
    released: set = set()   # positions that held this rank's lock and released it
    queue: dict = {}        # position -> requesting rank, lock requests waiting
    state = {"holder": None, "own": False}
    v0 = rk.version
    wl0 = rk.rank_peers()   # ahead of the turn: valid while no peer changes our tasks

    def bcast(kind: str, *payload) -> None:
        label = {"ANN": "ANNOUNCE", "DONE": "TURN_DONE"}[kind]
        for q in range(P):
            if q != me:
                ch.send(q, "TURN", (kind, trial, it) + payload, label)

    def known_before(p: int) -> bool:
        return all(x in ann for x in range(p))

    def clear_before(p: int) -> bool:
        """Every earlier turn that includes this rank is finished with it (a turn that
        announced this rank but did not lock it is finished with it at its DONE)."""
        for x in range(p):
            if me in ann[x] and not (x in released or x in done or
                                     (x == pos and state["own"])):
                return False
        return True

    def handle(src: int, msg: tuple, in_turn: bool) -> None:
        kind, t_, i_ = msg[:3]
        if (t_, i_) != (trial, it):
            raise RankFailure(f"rank {me}: {kind} of trial {t_} iteration {i_} from rank {src} "
                              f"during trial {trial} iteration {it}")
        p = msg[3]
        if kind == "ANN":
            ann[p] = frozenset(msg[4])
        elif kind == "DONE":
            done[p] = msg[4]
        elif kind == "LOCK_REQ":
            queue[p] = src
        elif kind in ("GIVE", "RELEASE"):
            if in_turn or state["holder"] != p:
                raise RankFailure(f"rank {me}: {kind} from rank {src} (turn {p}) without the "
                                  "lock")
            if kind == "GIVE":
                ans = rk.serve(src, ("GIVE", msg[4], msg[5]))
                ch.send(src, "TURN", (ans[0], trial, it, p, ans[1]), ans[0])
            else:
                released.add(p)
                state["holder"] = None
        else:
            raise RankFailure(f"rank {me}: unexpected {kind} from rank {src}")

    def request(q: int, msg: tuple):
        kind = msg[0]
        ch.send(q, "TURN", (kind, trial, it, pos) + tuple(msg[1:]), kind)
        if kind == "RELEASE":
            return None
        want = {"LOCK_REQ": "LOCK_GRANT", "GIVE": "GIVE_BACK"}[kind]
        while True:
            src, _, m = ch.recv(-1, ("TURN",), f"the answer of rank {q} to {kind}", blame=q)
            if src == q and m[0] == want:
                return (want, m[4])
            handle(src, m, True)

    while len(done) < P:
        progress = True
        while progress:
            progress = False
            if not state["own"] and known_before(pos) and clear_before(pos):
                # every earlier turn touching this rank is done: rank (again only if one of
                # them changed our tasks), announce the exact peers, run the turn
                assert state["holder"] is None
                wl = wl0 if rk.version == v0 else rk.rank_peers()
                ann[pos] = frozenset([me] + [q for q, _ in wl])
                bcast("ANN", pos, sorted(ann[pos]))
                n = rk.turn(request, wl)
                state["own"] = True
                done[pos] = n
                bcast("DONE", pos, n)
                progress = True
            if state["holder"] is None and queue:
                p = min(queue)
                if known_before(p) and clear_before(p):
                    state["holder"] = p
                    src = queue.pop(p)
                    ans = rk.serve(src, ("LOCK_REQ", 0.0))
                    ch.send(src, "TURN", (ans[0], trial, it, p, ans[1]), ans[0])
                    progress = True
        if len(done) == P:
            break
        head = min(x for x in range(P) if x not in done)
        src, _, m = ch.recv(-1, ("TURN",), f"turn {head} of iteration {it} (rank {order[head]}; "
                            f"{len(done)} of {P} turns done)", patience=2.0, blame=order[head])
        handle(src, m, False)
    return sum(done.values())
