# Type stub of the private C extension wpart._core (see csrc/python/).
from typing import Callable

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
