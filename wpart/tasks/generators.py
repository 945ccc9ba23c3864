"""Instance generators: the paper's toys, the synthetic-blocks instance, Gemma-like cases."""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._errors import WpartValueError
from .._interrupt import run_interruptibly
from .._validate import (as_array, as_bool, as_float, as_int, as_m, as_seed, check_memory, choice,
                         memory_budget, renamed)
from .._validate import positional_deprecated
from ._problem import INT32_LIMIT, Problem

__all__ = ["gemma_like", "paper_toy", "random_problem", "synthetic_blocks"]


@fill_doc
@positional_deprecated("variant")
def synthetic_blocks(*, variant: str = "default") -> Problem:
    """The 4-rank, 9-task, 5-block, 8-edge instance of LBAF's ``synthetic-blocks`` data set
    (shipped: ``datasets.lbaf_path("synthetic-blocks/synthetic-dataset-blocks")``).

    `variant`: ``"default"``, ``"alpha0"`` (every ``rank_alpha`` 0) or ``"bad_rank0"``
    (rank 0 has ``rank_alpha`` 100). Blocks have 9 bytes each, all other memories are 0.

    Parameters
    ----------
    variant : str, optional
        ``"default"``, ``"alpha0"`` or ``"bad_rank0"``, as described above.

    {returns_problem raises}
    """
    alpha = {"default": None, "alpha0": np.zeros(4), "bad_rank0": np.array([100.0, 1, 1, 1])}
    variant = choice(variant, "variant", tuple(alpha))
    return Problem(
        task_load=[1.0, 0.5, 0.5, 0.5, 0.5, 2.0, 1.0, 0.5, 1.5],
        m=4,
        task_block=[0, 0, 1, 1, 2, 2, 3, 3, 4],
        block_size=[9.0] * 5,
        block_home=[0, 0, 1, 1, 2],
        edges=[(0, 5), (1, 4), (3, 2), (3, 8), (4, 1), (5, 8), (7, 6), (8, 6)],
        edge_bytes=[2.0, 1.0, 1.0, 0.5, 2.0, 2.0, 1.0, 1.5],
        rank_alpha=alpha[variant],
        initial=[0, 0, 0, 0, 1, 1, 1, 1, 2],
    )


@fill_doc
def paper_toy(*, fwmp: bool = False, loads=(1.0, 2.0, 1.5), block_sizes=(4.0, 3.0),
              volumes=(1.0, 2.0, 3.0, 0.5)) -> Problem:
    """The paper's Fig. 2 (COMCP) / Fig. 3 (FWMP) toy: 2 ranks, 3 tasks, 2 blocks.

    t1, t2 on rank 0 share block s1; t3 on rank 1 uses s2. With ``fwmp`` the four edges
    c1 t1->t3, c2 t2->t3, c3 t3->t2, c4 t1->t2 are added. The paper leaves the values
    symbolic: the defaults here are arbitrary.

    Parameters
    ----------
    fwmp : bool, optional
        Add the four communication edges of Fig. 3.
    loads : object, optional
        Non-negative loads, one per item.
    block_sizes : object, optional
        Sizes of the two blocks.
    volumes : object, optional
        Bytes of the four edges (with `fwmp`).

    {returns_problem raises}
    """
    kw = {}
    # sequences of numbers, checked before anything iterates them (a sparse matrix of 2**40
    # rows, a number, None: a WpartError naming the argument)
    loads = as_array(loads, "loads", ndims=(1,)).tolist()
    block_sizes = as_array(block_sizes, "block_sizes", ndims=(1,)).tolist()
    volumes = as_array(volumes, "volumes", ndims=(1,)).tolist()
    if as_bool(fwmp, "fwmp"):
        kw = dict(edges=[(0, 2), (1, 2), (2, 1), (0, 1)], edge_bytes=volumes)
    return Problem(task_load=loads, m=2, task_block=[0, 0, 1],
                   block_size=block_sizes, block_home=[0, 1], initial=[0, 0, 1], **kw)


@renamed(n_ranks="m")
@positional_deprecated("m", "n_tasks", "n_blocks", "seed")
def gemma_like(*, m: int = 14, n_tasks: int = 1959, n_blocks: int = 206, seed: int = 0,
               block_bytes: float = 1.0e7, comm_degree: float = 0.0,
               load_sigma: float = 1.0, working_bytes: float = 0.0,
               footprint_bytes: float = 0.0, rank_baseline: float = 0.0,
               memory_cap: float | None = None, even_blocks: bool = False,
               block_spread: float = 0.5) -> Problem:
    """A seeded instance shaped like the paper's Gemma case (Secs. VI-B and VII-A).

    Blocks (matrix slabs) are split among ranks with a skewed count per rank, each homed on its
    rank; tasks are spread over the blocks; task times are log-normal with block-dependent
    scales (near-field blocks are more expensive), so the initial (co-located) placement is
    imbalanced. Sizes default to the paper's 14 ranks, 1,959 tasks and 206 blocks (`m` ranks;
    ``n_ranks=`` is a deprecated alias); every argument is keyword-only. With
    ``comm_degree > 0`` random task-to-task edges are added (the paper's case has none).

    Memory (LBAF's model: baseline + distinct blocks + footprints + the largest working
    memory of a rank's tasks): ``working_bytes`` and ``footprint_bytes`` > 0 give every task
    a working memory / footprint drawn uniformly in [0.5, 1.5] times them, ``rank_baseline``
    a per-rank constant, and ``memory_cap`` a cap on every rank (bytes; None: none). The
    defaults draw nothing more from the seed, so the instances without them are unchanged.

    Parameters
    ----------
    m, n_tasks, n_blocks : int
        Ranks, tasks and shared blocks (``n_blocks <= n_tasks``).
    seed : int
        Seed of every draw.
    block_bytes, working_bytes, footprint_bytes, rank_baseline : float
        Mean block size, mean per-task working memory and footprint, per-rank baseline.
    comm_degree : float
        Random edges per task.
    load_sigma : float
        Log-normal sigma of the per-block load scale.
    memory_cap : float, optional
        Memory cap of every rank (bytes).
    block_spread : float, default 0.5
        Block sizes are ``block_bytes * (1 + u)``, ``u`` uniform in
        [-block_spread, block_spread] (0: every block the same size, as in LBAF's sets).
    even_blocks : bool, default False
        Every rank homes ``n_blocks // m`` blocks (the first ``n_blocks % m`` one more)
        instead of a skewed count (LBAF's ``challenging_toy_*`` sets have 4 per rank).

    Returns
    -------
    Problem

    Raises
    ------
    wpart.WpartValueError
        A negative size, ``n_blocks > n_tasks``.
    """
    I = as_m(m, "m", maximum=INT32_LIMIT)
    K = as_int(n_tasks, "n_tasks", minimum=1, maximum=INT32_LIMIT)
    N = as_int(n_blocks, "n_blocks", minimum=1)
    block_bytes = as_float(block_bytes, "block_bytes", minimum=0.0)
    comm_degree = as_float(comm_degree, "comm_degree", minimum=0.0)
    load_sigma = as_float(load_sigma, "load_sigma", minimum=0.0)
    block_spread = as_float(block_spread, "block_spread", minimum=0.0, maximum=1.0)
    working_bytes = as_float(working_bytes, "working_bytes", minimum=0.0)
    footprint_bytes = as_float(footprint_bytes, "footprint_bytes", minimum=0.0)
    rank_baseline = as_float(rank_baseline, "rank_baseline", minimum=0.0)
    if memory_cap is not None:
        memory_cap = as_float(memory_cap, "memory_cap", minimum=0.0)
    if N > K:
        raise WpartValueError(f"`n_blocks` ({N}) must be <= `n_tasks` ({K})")
    def build() -> Problem:
        rng = np.random.default_rng(as_seed(seed))
        # blocks per rank: every rank gets at least one when possible, the rest skewed
        w = rng.gamma(2.0, 1.0, size=I)
        counts = np.ones(I, dtype=np.int64) if N >= I else np.zeros(I, dtype=np.int64)
        rest = N - counts.sum()
        counts += rng.multinomial(rest, w / w.sum())
        if as_bool(even_blocks, "even_blocks"):
            counts = np.full(I, N // I, dtype=np.int64) + (np.arange(I) < N % I)
        home = np.repeat(np.arange(I), counts).astype(np.int32)
        # tasks per block: at least one each
        tb = np.concatenate([np.arange(N), rng.integers(0, N, size=K - N)])
        tb.sort()
        scale = rng.lognormal(0.0, load_sigma, size=N)
        load = scale[tb] * rng.lognormal(0.0, 0.5, size=K) * 1e-3
        u = rng.uniform(0.5, 1.5, size=N)
        size = block_bytes * (u if block_spread == 0.5 else 1.0 + (u - 1.0) * (2.0 * block_spread))
        kw = {}
        if comm_degree > 0:
            M = int(round(comm_degree * K))
            src = rng.integers(0, K, size=M)
            dst = rng.integers(0, K, size=M)
            kw = dict(edges=np.stack([src, dst], 1), edge_bytes=rng.uniform(1e3, 1e5, size=M))
        if working_bytes > 0:
            kw["task_working"] = working_bytes * rng.uniform(0.5, 1.5, size=K)
        if footprint_bytes > 0:
            kw["task_footprint"] = footprint_bytes * rng.uniform(0.5, 1.5, size=K)
        if rank_baseline > 0:
            kw["rank_baseline"] = np.full(I, rank_baseline)
        if memory_cap is not None:
            kw["rank_mem_cap"] = np.full(I, memory_cap)
        return Problem(task_load=load, m=I, task_block=tb.astype(np.int32), block_size=size,
                       block_home=home, initial=home[tb], **kw)

    # single NumPy calls of seconds at the caps (67 M edges): Ctrl-C lands at once
    return run_interruptibly(build)


@fill_doc
@renamed(n_ranks="m")
def random_problem(m: int, n_tasks: int, n_blocks: int, n_edges: int, seed: int = 0, *,
                   memory: bool = False, zeros: bool = True, rank_alpha: bool = False) -> Problem:
    """A random instance for tests: `m` ranks (``n_ranks=`` is a deprecated alias), blocks
    (some tasks without), edges with self and parallel edges, optional memory fields (caps
    left unset) and per-rank alpha. `seed` may be passed by position (the fifth argument) or
    by keyword; the other options are keyword-only.

    Parameters
    ----------
    {m}
    n_tasks : int
        Number of tasks.
    n_blocks : int
        Number of shared memory blocks.
    n_edges : int
        Number of communication edges.
    seed : int, optional
        Seed of the random generator (fixed seeds give identical results).
    memory : bool, optional
        Draw memory footprints, working and block sizes.
    zeros : bool, optional
        Allow zero task times and edge volumes.
    rank_alpha : bool, optional
        Draw a compute coefficient per rank.

    {returns_problem raises}
    """
    I = as_m(m, "m", maximum=INT32_LIMIT)
    K = as_int(n_tasks, "n_tasks", minimum=1, maximum=INT32_LIMIT)
    N = as_int(n_blocks, "n_blocks", minimum=0, maximum=INT32_LIMIT)
    n_edges = as_int(n_edges, "n_edges", minimum=0, maximum=INT32_LIMIT)
    # its arrays and the Problem's validated copies: about 96 bytes per task and 64 per edge
    # (2**31 - 1 tasks asked numpy for 16 GiB at once)
    half = memory_budget() / 2
    check_memory(96.0 * K + 16.0 * N, "n_tasks", limit=half)
    check_memory(96.0 * K + 16.0 * N + 64.0 * n_edges, "n_edges", limit=half)
    memory = as_bool(memory, "memory")
    zeros = as_bool(zeros, "zeros")
    rank_alpha = as_bool(rank_alpha, "rank_alpha")
    def build() -> Problem:
        rng = np.random.default_rng(as_seed(seed))
        load = rng.integers(0, 5, size=K) * 0.5 if zeros else rng.uniform(0.1, 3.0, size=K)
        tb = rng.integers(-1 if N else -1, N, size=K) if N else None
        kw = {}
        if N:
            kw = dict(task_block=tb, block_size=rng.integers(0, 10, size=N).astype(float),
                      block_home=rng.integers(0, I, size=N))
        if n_edges:
            e = rng.integers(0, K, size=(n_edges, 2))
            kw.update(edges=e, edge_bytes=rng.integers(0, 6, size=n_edges) * 0.5)
        if memory:
            kw.update(task_footprint=rng.integers(0, 4, size=K).astype(float),
                      task_working=rng.integers(0, 6, size=K).astype(float),
                      rank_baseline=rng.integers(0, 3, size=I).astype(float))
        if rank_alpha:
            kw.update(rank_alpha=rng.integers(0, 3, size=I).astype(float))
        return Problem(task_load=load, m=I, initial=rng.integers(0, I, size=K), **kw)

    # single NumPy calls of seconds at the caps: Ctrl-C lands at once
    return run_interruptibly(build)
