# dyn_mpi_example.py -- run it with: mpirun -np 4 --oversubscribe --enable-recovery python dyn_mpi_example.py
import numpy as np
from mpi4py import MPI

import wpart.dynamic as wd

comm = MPI.COMM_WORLD
rng = np.random.default_rng(0)  # the same inputs on every rank
A, B = rng.standard_normal((256, 256)), rng.standard_normal((256, 4096))
task = wd.GemmColumnsTask(A, B)  # each rank's own copy; the root's receives every result

m = comm.Get_size() - 1  # rank 0 runs the balancer, every other rank is one PU
balancer = wd.PLBHAC(m, task.n, x_init=128) if comm.Get_rank() == 0 else None
res = wd.run_mpi(balancer, task, wd.ThreadWorker(threads=1),
                 timeout=30.0, on_rank_failure="reissue")
if comm.Get_rank() == 0:
    print(res)
    print("C == A @ B, every column once:", task.verify())
    print("blocks per rank:", np.bincount(res.block_rank, minlength=comm.Get_size()).tolist())
