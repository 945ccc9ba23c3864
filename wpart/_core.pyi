# Type stub of the private C extension wpart._core (see csrc/python/).
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

core_version: str
have_glpk: int

class WpartError(RuntimeError): ...
class CancelledError(WpartError): ...
class SolverError(WpartError): ...

def prefix_sum(A: NDArray, out: NDArray | None = ..., name: str = ...) -> NDArray: ...
def box_loads(S: NDArray, boxes: NDArray[np.int64]) -> NDArray: ...
def partition_1d(
    loads: NDArray,
    m: int,
    method: str,
    speeds: NDArray[np.float64] | None = ...,
    normalize: bool = ...,
    progress: Callable[[float, float], None] | None = ...,
    time_limit: float = ...,
) -> tuple[NDArray[np.int64], NDArray, tuple[float, int, int, int, float]]: ...
def probe_1d(loads: NDArray, m: int, B: float) -> tuple[bool, NDArray[np.int64]]: ...
def milp_solve(
    *,
    c: NDArray[np.float64],
    c0: float,
    sense: int,
    lb: NDArray[np.float64],
    ub: NDArray[np.float64],
    integrality: NDArray[np.int8],
    b_lower: NDArray[np.float64],
    b_upper: NDArray[np.float64],
    a_row: NDArray[np.int64],
    a_col: NDArray[np.int64],
    a_val: NDArray[np.float64],
    n_rows: int,
    time_limit: float = ...,
    mip_gap: float = ...,
    presolve: bool = ...,
    log: bool = ...,
    progress: Callable[[float, float], None] | None = ...,
) -> dict: ...
def milp_write(
    *,
    path: str,
    c: NDArray[np.float64],
    c0: float,
    sense: int,
    lb: NDArray[np.float64],
    ub: NDArray[np.float64],
    integrality: NDArray[np.int8],
    b_lower: NDArray[np.float64],
    b_upper: NDArray[np.float64],
    a_row: NDArray[np.int64],
    a_col: NDArray[np.int64],
    a_val: NDArray[np.float64],
    n_rows: int,
    format: int,
) -> None: ...
def milp_solver_version() -> str: ...

# Families (the Python modules wpart.spatial, wpart.hetero and wpart.tasks validate every
# argument before calling these; see their docstrings).
def spatial_partition(S: NDArray, m: int, method: int, **options: Any) -> tuple[NDArray[np.int64], tuple]: ...
def spatial_hier_rb3d(S: NDArray, m: int, rule: int = ...) -> NDArray[np.int64]: ...
def spatial_alloc(loads: NDArray, m: int, cap: NDArray[np.int64] | None = ...) -> NDArray[np.int64]: ...
def hetero_front(*args: Any, **kwargs: Any) -> Any: ...
def hetero_point(*args: Any, **kwargs: Any) -> Any: ...
def hetero_total_energy(*args: Any, **kwargs: Any) -> Any: ...
def hetero_eval(*args: Any, **kwargs: Any) -> Any: ...
def hetero_milp_front(*args: Any, **kwargs: Any) -> Any: ...
def hetero_dgemm(*args: Any, **kwargs: Any) -> Any: ...
# wpart.dynamic simulator (wpart/dynamic/_sim.py packs platforms into these flat arrays)
DYNAMIC_DEV_COLS: int
def dynamic_simulate(
    dev: NDArray[np.float64], tab_x: NDArray[np.float64], tab_t: NDArray[np.float64],
    tab_off: NDArray[np.int64], fluct: NDArray[np.float64], onoff: NDArray[np.float64],
    balancer: Any, **options: Any,
) -> dict[str, Any]: ...
def dynamic_device_time(
    dev: NDArray[np.float64], tab_x: NDArray[np.float64], tab_t: NDArray[np.float64],
    tab_off: NDArray[np.int64], p: int, x: Any, first: int, part: int,
) -> NDArray[np.float64]: ...
def dynamic_device_block(
    dev: NDArray[np.float64], tab_x: NDArray[np.float64], tab_t: NDArray[np.float64],
    tab_off: NDArray[np.int64], fluct: NDArray[np.float64], p: int, seed: int, j: int, x: int,
    t: float,
) -> tuple[float, float]: ...
def dynamic_noise(seed: int, pu: int, purpose: int, j: Any, sigma: float) -> NDArray[np.float64]: ...
def dynamic_integrate(fluct: NDArray[np.float64], pu: int, t: float, D: float) -> float: ...
# wpart.dynamic PLB-HAC / PLB-HeC (wpart/dynamic/_plbhac.py resolves presets and validates)
def dynamic_plbhac(
    n: int, total: int, kinds: NDArray[np.int32] | None, opts: dict[str, Any],
    min_block: NDArray[np.int64] | None, cap: NDArray[np.int64] | None, hec: bool,
) -> Any: ...
def dynamic_plbhac_current(bal: Any) -> tuple[NDArray[np.int64], float, int, int, int]: ...
def dynamic_plbhac_models(bal: Any) -> NDArray[np.float64]: ...
def dynamic_plbhac_min_blocks(bal: Any) -> NDArray[np.int64]: ...
def tasks_milp_build(*args: Any, **kwargs: Any) -> Any: ...
def tasks_evaluate(*args: Any, **kwargs: Any) -> Any: ...
def tasks_exchanges(*args: Any, **kwargs: Any) -> Any: ...
def tasks_ccm(*args: Any, **kwargs: Any) -> Any: ...
def tasks_greedy(*args: Any, **kwargs: Any) -> Any: ...
def tasks_brute(*args: Any, **kwargs: Any) -> Any: ...
def tasks_knowledge(*args: Any, **kwargs: Any) -> Any: ...

# wpart.dynamic: performance models and block sizing (see wpart/dynamic/_model.py). `models`
# is a float64 array (n, 23) of packed C models or a sequence of callables E_p(x).
def dynamic_fit_model(
    x: NDArray[np.int64], t_comp: NDArray[np.float64], t_xfer: NDArray[np.float64] | None,
    quantum: int, allowed_mask: int, intercept: int, max_terms: int, weighting: int,
    decay: float, window: int, grid_points: int, slope_floor: float, /,
) -> NDArray[np.float64]: ...
def dynamic_model_eval(model: NDArray[np.float64], x: NDArray[np.float64], which: int, /) -> NDArray[np.float64]: ...
def dynamic_model_inverse(model: NDArray[np.float64], t: float, lo: float, hi: float, /) -> float: ...
def dynamic_solve_equal_time(
    models: Any, S: float, lb: NDArray[np.float64] | None, ub: NDArray[np.float64] | None,
    tol_T: float, tol_x: float, max_outer: int, max_inner: int, newton_polish: int, /,
) -> tuple[NDArray[np.float64], float]: ...
def dynamic_capacity(
    models: Any, T: float, lb: NDArray[np.float64] | None, ub: NDArray[np.float64] | None, /,
) -> tuple[NDArray[np.float64], float]: ...
def dynamic_round_blocks(
    models: Any, x_cont: NDArray[np.float64], S: int, quantum: int,
    lb: NDArray[np.int64] | None, ub: NDArray[np.int64] | None, /,
) -> tuple[NDArray[np.int64], float]: ...
def dynamic_oracle_milp(
    bx: NDArray[np.float64], bt: NDArray[np.float64], W: int, quantum: int, time_limit: float, /,
) -> tuple[NDArray[np.int64], float, str, str, float, int]: ...

# wpart.dynamic real-execution kernels (wpart/dynamic/_exec.py lays the arrays out)
def dynamic_kernel_gemm_cols(
    A: NDArray[np.float64], B: NDArray[np.float64], C: NDArray[np.float64], col0: int, ncols: int, nthreads: int
) -> None: ...
def dynamic_kernel_kmeans_assign(
    points: NDArray[np.float64],
    centroids: NDArray[np.float64],
    labels: NDArray[np.int32],
    sums: NDArray[np.float64] | None,
    counts: NDArray[np.int64] | None,
    p0: int,
    np_: int,
    nthreads: int,
) -> None: ...
