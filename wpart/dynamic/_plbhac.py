"""PLB-HAC and PLB-HeC over the balancer protocol.

PLB-HAC is the algorithm of Sec. 3 of [Sant'Ana 2017] (Algorithm 1, Sec. 3.4); PLB-HeC is
its predecessor with synchronisation phases (reference [10] of [Sant'Ana 2017], Sec. 2). Both
are C state machines (``csrc/dynamic/plbhac*.c``); this module resolves the two option presets
(``"paper"`` and ``"robust"``, see :class:`PLBHAC`), validates every option and exposes the
published state (block sizes, step volume, models).

Examples
--------
Four PUs of rates 8, 4, 2, 1 elements/s (a worked example: training ends at t = 3, 4, 6,
10, then a step of 30 elements splits as 16, 8, 4, 2 with T = 2 s):

>>> from wpart.dynamic import PLBHAC
>>> bal = PLBHAC(4, 300, x_init=8, step_mode="fixed", step_size=30)
>>> [a.size for a in bal.start(0.0)]
[8, 8, 8, 8]
"""

from __future__ import annotations
from .._docs import fill_doc
from .._errors import WpartTypeError, WpartValueError

import math
from typing import Any, Sequence

import numpy as _np

from .. import _core
from .._validate import as_bool, as_float, as_ints, is_bool, renamed
from .._validate import choice as _choice
from ._balancer import Balancer, count, m_n
from ._model import PerfModel, as_grid_points

__all__ = ["PLBHAC", "PLBHeC", "PRESETS", "PU_KINDS"]

PRESETS = ("paper", "robust")
PU_KINDS = ("cpu", "gpu", "phi")
_TAIL = ("resolve", "scale", "off")
_TRAIN = ("barrier", "probe")
_STEP = ("frozen", "ratchet", "fixed", "adaptive")
_MINBLK = ("fixed", "auto")
_BASIS = ("x", "x2", "x3", "exp", "log", "xexp", "xlog")
_FIT_KEYS = ("basis", "intercept", "max_terms", "weighting", "decay", "window", "grid_points", "slope_floor")
_SOLVE_KEYS = ("tol_T", "tol_x", "max_outer", "max_inner", "newton_polish")


def _num(
    x: Any, name: str, lo: float, hi: float = math.inf, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    v = as_float(x, name, minimum=lo, strict_minimum=lo_open, maximum=None if math.isinf(hi) else hi)
    if hi_open and not v < hi:
        raise WpartValueError(f"`{name}` must be < {hi:g}, got {x!r}")
    return v


def _flag(x: Any, name: str) -> int:
    return int(as_bool(x, name))


def _kinds(x: Any, n: int) -> _np.ndarray | None:
    if x is None:
        return None
    if isinstance(x, str):
        x = [x] * n
    try:
        vals = list(x)
    except TypeError:
        raise WpartTypeError(f"`pu_kinds` must be a sequence of 'cpu', 'gpu', 'phi', got "
                        f"{type(x).__name__}") from None
    if len(vals) != n:
        raise WpartValueError(f"`pu_kinds` must hold m = {n} kinds, got {len(vals)}")
    out = []
    for i, k in enumerate(vals):
        if isinstance(k, str):
            out.append(PU_KINDS.index(_choice(k, f"pu_kinds[{i}]", PU_KINDS)))
        elif isinstance(k, (int, _np.integer)) and not is_bool(k) and 0 <= int(k) <= 2:
            out.append(int(k))
        else:
            raise WpartValueError(f"`pu_kinds[{i}]` must be one of 'cpu', 'gpu', 'phi', got {k!r}")
    return _np.asarray(out, dtype=_np.int32)


def _resolve(n: int, w: int, kw: dict[str, Any]) -> tuple[dict[str, Any], Any, Any, Any]:
    """Validates the explicitly given options; returns (opts for C, kinds, min_block, cap)."""
    kw = dict(kw)
    opts: dict[str, Any] = {}
    preset = _choice(kw.pop("preset", "paper"), "preset", PRESETS)
    opts["preset"] = PRESETS.index(preset)
    kinds = _kinds(kw.pop("pu_kinds", None), n)
    q = count(kw.pop("quantum", 1), "quantum")
    if q > w:
        raise WpartValueError(f"`n` ({w}) is smaller than one `quantum` ({q})")
    opts["quantum"] = q
    if "x_init" in kw:
        opts["x_init"] = count(kw.pop("x_init"), "x_init")
    for key, lo, hi, lo_open, hi_open in (
        ("gap_threshold", 0.0, math.inf, False, False),
        ("tail_start", 0.0, 1.0, False, False),
        ("tail_alpha", 0.0, 1.0, False, True),
        ("tail_floor_time", 0.0, math.inf, False, False),
        ("step_time", 0.0, math.inf, False, False),
        ("auto_eta", 0.0, 1.0, True, False),
        ("min_eval_interval", 0.0, math.inf, False, False),
        ("step_fraction", 0.0, 1.0, False, False),
    ):
        if key in kw:
            opts[key] = _num(kw.pop(key), key, lo, hi, lo_open=lo_open, hi_open=hi_open)
    if "change_ratio" in kw:
        cr = as_float(kw.pop("change_ratio"), "change_ratio", minimum=0.0)
        if not (cr == 0.0 or (cr > 1.0 and math.isfinite(cr))):
            raise WpartValueError(f"`change_ratio` must be 0 (off) or a finite number > 1, got {cr!r}")
        opts["change_ratio"] = cr
    if "tail_mode" in kw:
        opts["tail_mode"] = _TAIL.index(_choice(kw.pop("tail_mode"), "tail_mode", _TAIL))
    for key in ("tail_once", "gap_fill", "paper_strict"):
        if key in kw:
            opts[key] = _flag(kw.pop(key), key)
    if "training" in kw:
        opts["training_mode"] = _TRAIN.index(_choice(kw.pop("training"), "training", _TRAIN))
    if "step_mode" in kw:
        opts["step_mode"] = _STEP.index(_choice(kw.pop("step_mode"), "step_mode", _STEP))
    step_size = kw.pop("step_size", None)
    if step_size is not None:
        opts["step_size"] = count(step_size, "step_size", q)
    if (opts.get("step_mode") == _STEP.index("fixed") or opts.get("paper_strict")) and step_size is None:
        raise WpartValueError("`step_size` is required with step_mode='fixed' (and with paper_strict)")
    if "min_steps_left" in kw:
        opts["min_steps_left"] = count(kw.pop("min_steps_left"), "min_steps_left")
    mb = kw.pop("min_block", None)
    min_block = None
    if isinstance(mb, str):
        opts["min_block_mode"] = _MINBLK.index(_choice(mb, "min_block", _MINBLK))
    elif mb is not None:
        min_block = as_ints(mb, "min_block", n=n, n_name="m", lo=0, integral_floats=True,
                            broadcast=True)
        if _np.any(min_block > w):
            raise WpartValueError(f"`min_block` must be <= n ({w})")
    if "min_block_mode" in kw:
        opts["min_block_mode"] = _MINBLK.index(_choice(kw.pop("min_block_mode"), "min_block_mode", _MINBLK))
    cap = kw.pop("cap", None)
    if cap is not None:
        cap = as_ints(cap, "cap", n=n, n_name="m", lo=q, integral_floats=True, broadcast=True)
    fit = kw.pop("fit", None) or {}
    for key in ("decay", "window"):  # shortcuts for the two forgetting options
        if key in kw:
            fit = {**fit, key: kw.pop(key)}
    if not isinstance(fit, dict):
        raise WpartTypeError(f"`fit` must be a dict of fit options, got {type(fit).__name__}")
    for key, v in fit.items():
        if key not in _FIT_KEYS:
            raise WpartValueError(f"unknown fit option {key!r}; valid: {', '.join(_FIT_KEYS)}")
        if key == "basis":
            names = [v] if isinstance(v, str) else list(v)
            mask = 0
            for b in names:
                mask |= 1 << _BASIS.index(_choice(b, "fit['basis']", _BASIS))
            if mask == 0:
                raise WpartValueError("`fit['basis']` must name at least one basis function")
            opts["allowed_mask"] = mask
        elif key == "intercept":
            opts["intercept"] = _flag(v, "fit['intercept']")
        elif key == "weighting":
            wmodes = ("plain", "relative")
            opts["weighting"] = wmodes.index(_choice(v, "fit['weighting']", wmodes))
        elif key == "decay":
            opts["decay"] = _num(v, "decay", 0.0, 1.0, lo_open=True)
        elif key == "slope_floor":
            opts["slope_floor"] = _num(v, "fit['slope_floor']", 0.0)
        elif key == "grid_points":
            opts[key] = as_grid_points(v, "fit['grid_points']")
        else:
            opts[key] = count(v, key if key == "window" else f"fit['{key}']", 0 if key == "window" else 1)
    solve = kw.pop("solve", None) or {}
    if not isinstance(solve, dict):
        raise WpartTypeError(f"`solve` must be a dict of solver options, got {type(solve).__name__}")
    for key, v in solve.items():
        if key not in _SOLVE_KEYS:
            raise WpartValueError(f"unknown solve option {key!r}; valid: {', '.join(_SOLVE_KEYS)}")
        if key in ("tol_T", "tol_x"):
            opts[key] = _num(v, f"solve['{key}']", 0.0, 1.0, lo_open=True)
        elif key == "newton_polish":
            opts[key] = _flag(v, "solve['newton_polish']")
        else:
            opts[key] = count(v, f"solve['{key}']", 1)
    if kw:
        raise WpartTypeError(f"unknown option(s): {', '.join(sorted(kw))}")
    return opts, kinds, min_block, cap


@fill_doc
class PLBHAC(Balancer):
    """PLB-HAC (Sec. 3 of [Sant'Ana 2017]): profile-based balancing with asynchronous virtual
    steps.

    A training phase fits a performance model ``E_p(x) = F_p(x) + G_p(x)`` per PU (Sec. 3.1),
    the block sizes come from the equal-finish-time system (3) (Sec. 3.2), and the execution
    phase re-evaluates them at every virtual step, with gap filling and a gradual decrease of
    the blocks near the end (Sec. 3.3).

    Parameters
    ----------
    {m_n_pus}
    pu_kinds : sequence of {"cpu", "gpu", "phi"}, optional
        Kind of each PU (default all CPU); accelerators get ``x_init`` as minimum block.
    preset : {"robust", "paper"}, default "robust"
        ``"robust"`` (the default, recommended) and ``"paper"`` (faithful to [Sant'Ana 2017];
        the default before version 0.2, and :class:`PLBHeC`'s). ``"paper"`` follows the paper
        where it is explicit (a barrier after training, all
        samples in the fit over the paper's seven basis functions, the step volume frozen
        after the first evaluation, accelerators' minimum blocks that do not underutilize
        them, Sec. 3.2); ``"robust"`` uses doubling probe blocks instead of the
        training barrier, an affine compute model (``fit={"basis": ["x"]}``), steps that
        grow with the input (``step_fraction=1/64``, a ratcheting step volume) and adopts a
        PU's change of speed at once (``change_ratio=1.3``). Options given explicitly
        override the preset.
    quantum : int, default 1
        Granularity of a valid block.
    x_init : int, default 1024
        First training block (rounded up to a multiple of ``quantum``).
    gap_threshold : float, default 0.4
        A regular block finishing more than this many seconds early gets a gap block.
    tail_start, tail_alpha : float, default 0.7, 0.1
        After ``tail_start`` of the data completed, the step shrinks by ``1 - tail_alpha`` per
        evaluation (compounded; once with ``tail_once=True``).
    tail_mode : {"resolve", "scale", "off"}, default "resolve"
    tail_once : bool, default False
    tail_floor_time : float, default 1.0
        Resolve-mode floor: the step never shrinks below the capacity of this many seconds.
    training : {"barrier", "probe"}
        Preset paper: barrier; robust: probe (doubling probe blocks instead of waiting).
    step_mode : {"frozen", "ratchet", "fixed", "adaptive"}
        How the step volume S (the paper's input "normalised to 1", Sec. 3.2) is chosen;
        ``"fixed"`` needs ``step_size``.
    step_size : int, optional
    step_time : float, default 2.0
        Seconds of work per step the step volume S aims at (modes ``"frozen"``, ``"ratchet"``,
        ``"adaptive"``), never less than the longest minimum block's modelled time. Floor: the
        first S is never below the volume of the training phase, so a ``step_time`` shorter
        than the training step's duration (about 2 s on the presets) changes nothing; with
        preset ``"robust"`` the ``step_fraction`` floor (1/64 of ``n``) usually binds first.
    min_steps_left : int, default 4
    min_block : {"fixed", "auto"} or array_like of int, optional
        The minimum-block mode, or per-PU minimum blocks. Default ``"auto"``: an accelerator's
        smallest block reaching ``auto_eta`` of its best modelled throughput, never below
        ``x_init`` (CPU ``quantum``); ``"fixed"``: GPU/PHI ``x_init``, CPU ``quantum``.
    min_block_mode : {"fixed", "auto"}, optional
    auto_eta : float, default 0.8
    min_eval_interval : float, default 0.0
    gap_fill : bool, default True
    cap : int or array_like of int, optional
        Per-PU largest block (device memory), in elements.
    paper_strict : bool, default False
        No intercept, step_mode fixed (needs ``step_size``), tail_mode scale.
    fit : dict, optional
        Fit options: basis (names among x, x2, x3, exp, log, xexp, xlog), intercept,
        max_terms, weighting ("plain"/"relative"), decay, window, grid_points, slope_floor.
    solve : dict, optional
        Solver options: tol_T, tol_x, max_outer, max_inner, newton_polish.
    decay, window : optional
        Shortcuts for ``fit["decay"]`` and ``fit["window"]``.
    step_fraction : float, optional
        With step_mode ``"frozen"`` or ``"ratchet"``, the step volume S is at least this
        fraction of ``n`` (still capped at the remaining data / ``min_steps_left``): the
        paper's input "normalised to 1" (Sec. 3.2), so that the number of virtual steps, and
        the per-step costs, do not grow with ``n``; the tail's floor then also keeps at least
        the remaining data / (2 ``min_steps_left``) per step. 0 (preset ``"paper"``) keeps S a
        fixed duration (``step_time``); preset ``"robust"``: 1/64.
    change_ratio : float, optional
        When a block inside the sampled range takes more than ``change_ratio`` times (or less
        than ``1 / change_ratio`` times) the compute time the model predicts, the PU's older
        samples are rescaled to the new level, so the next evaluation sees the change at
        once (Sec. 5.4, Fig. 6); a regular block still running after ``change_ratio`` times
        its expected duration counts too, from the elapsed time, when the next evaluation is
        issued. Meant for the affine model of preset ``"robust"`` (1.3): with the seven
        basis functions a rescaled fit may pick another shape. 0 = off (preset ``"paper"``:
        the fit over all samples).
    """

    _hec = False

    @renamed(n_pu="m", total="n")
    def __init__(
        self,
        m: int,
        n: int,
        *,
        pu_kinds: Sequence[str] | None = None,
        preset: str | None = None,
        quantum: int = 1,
        x_init: int = 1024,
        gap_threshold: float = 0.4,
        tail_start: float = 0.7,
        tail_alpha: float = 0.1,
        tail_mode: str = "resolve",
        tail_once: bool = False,
        tail_floor_time: float = 1.0,
        training: str | None = None,
        step_mode: str | None = None,
        step_size: int | None = None,
        step_time: float = 2.0,
        min_steps_left: int = 4,
        min_block: Any = None,
        min_block_mode: str | None = None,
        auto_eta: float = 0.8,
        min_eval_interval: float = 0.0,
        gap_fill: bool = True,
        cap: Any = None,
        paper_strict: bool = False,
        fit: dict[str, Any] | None = None,
        solve: dict[str, Any] | None = None,
        decay: float | None = None,
        window: int | None = None,
        step_fraction: float | None = None,
        change_ratio: float | None = None,
    ) -> None:
        given = {k: v for k, v in locals().items() if k in _DEFAULTS and v is not None}
        m, n = m_n(m, n)
        kw = dict(given)
        if self._hec and "min_block" not in kw and "min_block_mode" not in kw:
            kw["min_block_mode"] = "fixed"  # PLB-HeC keeps its fixed minimum blocks
        # PLB-HAC runs the recommended preset unless told otherwise; PLB-HeC its paper's
        kw.setdefault("preset", "paper" if self._hec else "robust")
        opts, kinds, mb, cp = _resolve(m, n, kw)
        self._args = (m, n)
        # what repr() and fresh() pass again: the options that differ from the defaults
        self._kw = {k: v for k, v in given.items() if not _is_default(k, v)}
        self._c = _core.dynamic_plbhac(m, n, kinds, opts, mb, cp, self._hec)

    def _current(self) -> tuple:
        return _core.dynamic_plbhac_current(self._c)

    @property
    def blocks(self) -> _np.ndarray:
        """The published block sizes X (int64, one per PU; zeros before the first model)."""
        return self._current()[0]

    @property
    def T_pred(self) -> float:
        """Predicted duration of the current step (NaN before the first model)."""
        return float(self._current()[1])

    @property
    def step_volume(self) -> int:
        """The step volume S (0 before the first model)."""
        return int(self._current()[3])

    @property
    def S_eff(self) -> int:
        """The effective step volume of the last evaluation (after tail and bounds)."""
        return int(self._current()[2])

    @property
    def model_version(self) -> int:
        """Number of published evaluations."""
        return int(self._current()[4])

    @property
    def min_blocks(self) -> _np.ndarray:
        """The minimum block sizes in force (int64, one per PU)."""
        return _core.dynamic_plbhac_min_blocks(self._c)

    @property
    def models(self) -> list[PerfModel]:
        """The published performance models, one per PU (empty before the first model)."""
        return _models(_core.dynamic_plbhac_models(self._c), self.model_version)


_DEFAULTS: dict[str, Any] = {
    "pu_kinds": None, "preset": None, "quantum": 1, "x_init": 1024, "gap_threshold": 0.4,
    "tail_start": 0.7, "tail_alpha": 0.1, "tail_mode": "resolve", "tail_once": False,
    "tail_floor_time": 1.0, "training": None, "step_mode": None, "step_size": None,
    "step_time": 2.0, "min_steps_left": 4, "min_block": None, "min_block_mode": None,
    "auto_eta": 0.8, "min_eval_interval": 0.0, "gap_fill": True, "cap": None,
    "paper_strict": False, "fit": None, "solve": None, "decay": None, "window": None,
    "step_fraction": None, "change_ratio": None,
}  # fmt: skip


def _is_default(key: str, v: Any) -> bool:
    d = _DEFAULTS[key]
    if d is None or isinstance(v, (list, tuple, dict, _np.ndarray)):
        return False
    try:
        return type(v) is type(d) and bool(v == d)
    except Exception:  # pragma: no cover
        return False


@fill_doc
class PLBHeC(PLBHAC):
    """PLB-HeC (reference [10] of [Sant'Ana 2017], Sec. 2): PLB-HAC's models and solver with a
    barrier after every training round and execution step, evaluations while every PU idles,
    no gap filling and no tail shrink. Takes the same options as :class:`PLBHAC`; its minimum
    blocks stay fixed (GPU/PHI ``x_init``, CPU ``quantum``) unless ``min_block`` or
    ``min_block_mode`` is given.

    Parameters
    ----------
    {m_n_pus}
    **options
        The options of :class:`PLBHAC`, with the same names and meanings.
    """

    _hec = True


def _models(packed: _np.ndarray, version: int) -> list[PerfModel]:
    if version == 0:
        return []
    return [PerfModel.from_packed(row) for row in packed]
