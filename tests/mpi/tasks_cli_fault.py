"""Run ``python -m wpart.tasks.mpi`` with a fault injected (tests/test_tasks_mpi_faults.py).

usage: tasks_cli_fault.py FAULT RANK [wpart.tasks.mpi arguments...]
FAULT: ``none``; ``stop_start`` (rank RANK stops itself with SIGSTOP before MPI starts);
``die_write`` (rank RANK writes half of its output file, then SIGKILLs itself);
``die_switch`` / ``fail_switch`` (rank 0 is killed / gets EIO at the third rename of the
switch); ``stop_run`` (rank RANK stops itself in its second iteration); ``stop_end`` (rank
RANK stops itself at exit, after its result is complete).
"""
import os
import signal
import sys

fault, who = sys.argv[1], int(sys.argv[2])
me = int(os.environ.get("OMPI_COMM_WORLD_RANK", "-1"))
if fault == "stop_start" and me == who:
    os.kill(os.getpid(), signal.SIGSTOP)
if fault == "die_write" and me == who:
    from wpart.tasks import _io_set

    def write_temp(path, data, gen):
        tmp = _io_set.temp_name(path, gen)
        with open(tmp, "wb") as fh:
            fh.write(data[:len(data) // 2])
            fh.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    _io_set.write_temp = write_temp
if fault == "die_switch" and me == who == 0:  # rank 0 dies after half of the switch
    from wpart.tasks import _io_set

    real_replace, seen = os.replace, []

    def replace(src, dst):
        if str(src).endswith(".tmp"):
            seen.append(dst)
            if len(seen) == 3:
                os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst)
    _io_set.os = type(os)("os_patched")
    _io_set.os.__dict__.update(os.__dict__)
    _io_set.os.replace = replace
if fault == "fail_switch" and me == who == 0:  # the third rename fails (EIO)
    import errno
    from wpart.tasks import _io_set

    real_replace, seen = os.replace, []

    def replace(src, dst):
        if str(src).endswith(".tmp"):
            seen.append(dst)
            if len(seen) == 3:
                raise OSError(errno.EIO, "Input/output error")
        return real_replace(src, dst)
    _io_set.os = type(os)("os_patched")
    _io_set.os.__dict__.update(os.__dict__)
    _io_set.os.replace = replace
if fault == "stop_run" and me == who:  # stops itself (SIGSTOP) in its second iteration
    from wpart.tasks import _ranks

    real_begin, calls = _ranks.RankProcess.begin_iteration, []

    def begin_iteration(self):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGSTOP)
        return real_begin(self)
    _ranks.RankProcess.begin_iteration = begin_iteration
if fault == "stop_end" and me == who:  # stops itself once its result is complete
    import wpart.tasks.mpi as _m

    real_balance = _m.balance_mpi

    def balance_mpi(*a, **kw):
        res = real_balance(*a, **kw)
        os.kill(os.getpid(), signal.SIGSTOP)
        return res
    _m.balance_mpi = balance_mpi

from wpart.tasks.mpi import main  # noqa: E402

sys.exit(main(argv=sys.argv[3:]))
