"""The deterministic discrete-event simulator of :mod:`wpart.dynamic`.

A :class:`Platform` is a list of :class:`Device` objects (a true compute curve hidden from the
balancer, a transfer path, noise) plus a slowdown schedule. :func:`simulate` runs any balancer
of :mod:`wpart.dynamic` on it with the C event engine and returns a :class:`SimResult` (trace,
makespan, busy/idle with the idle breakdown, shares, block-size series). :func:`compare` runs
several balancers over several seeds with common random numbers: the noise of the ``j``-th
block on PU ``p`` depends only on ``(seed, p, purpose, j)``, so paired comparisons see the
same noise.

The preset platforms (:meth:`Platform.preset`) are **synthetic stand-ins** for the paper's
machines A-E (its Table 1, the machine configurations, is missing from the text); label every
result on them as simulated.

Examples
--------
>>> from wpart.dynamic import Platform, Greedy, simulate
>>> pl = Platform.preset("linear4", k=1.0)
>>> r = simulate(pl, Greedy(pl.m, 150, chunk=10), seed=0)
>>> round(r.makespan, 6), int(r.elements.sum())
(10.0, 150)
>>> simulate("hetero3", "greedy", seed=0).status
'feasible'
"""

from __future__ import annotations
from .._errors import WpartNotImplementedError, WpartTypeError, WpartValueError

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._docs import fill_doc
from .._validate import as_bool, as_float, as_int, as_seed, choice, deprecated_attr, renamed
from ._preset_json import file_errors, load_doc
from ._trace import TRACE_DTYPE  # the one block-record layout, shared with real runs

__all__ = [
    "Affine",
    "Saturating",
    "Power",
    "BasisCurve",
    "Table",
    "Device",
    "Platform",
    "SimResult",
    "simulate",
    "compare",
    "TRACE_DTYPE",
    "IDLE_COLUMNS",
    "PU_KINDS",
    "BASIS_NAMES",
    "PRESET_FILE",
]

PRESET_FILE = Path(__file__).resolve().parent.parent / "data" / "dynamic" / "platforms.json"
PU_KINDS = ("cpu", "gpu", "phi")
#: The names :meth:`Platform.preset` takes (``"machines"``: ``"paper5"`` under its first name).
PRESET_NAMES = ("paper5", "adapt2", "hetero3", "linear4", "machines")
BASIS_NAMES = ("x", "x2", "x3", "exp", "log", "xexp", "xlog")
IDLE_COLUMNS = ("barrier", "eval", "starved", "other")
_EVAL_MODES = ("const", "model", "measured")
_DEFAULT_SIGMA = {"cpu": 0.03, "gpu": 0.02, "phi": 0.04}

# column layout of a device row (csrc/python/dynamic_sim.c)
_NCOLS = int(_core.DYNAMIC_DEV_COLS)
_C_KIND, _C_MACHINE, _C_CURVE, _C_T0, _C_RATE, _C_BSAT, _C_C, _C_BETA, _C_BC0, _C_XREF = range(10)
_C_BCOEF = 10
_C_MEMCAP, _C_MEMGAMMA, _C_BPE, _C_SETUP, _C_SIGMA, _C_SIGMAX, _C_POUT, _C_FOUT, _C_NHOPS = range(17, 26)
_C_HOPS = 26
_MAX_HOPS = 4


def _pos(v: Any, name: str, *, zero: bool = False) -> float:
    return as_float(v, name, minimum=0.0, strict_minimum=not zero)


# ------------------------------------------------------------------------------- curves
_MEM_FIELDS = ("mem_cap", "mem_gamma")
_MEM_DOC = """
    mem_cap : float or None, optional
        Elements beyond which a block's extra time costs ``1 + mem_gamma`` times more (None: no
        such effect).
    mem_gamma : float, optional
        The slowdown factor beyond `mem_cap` (0: none).
"""


@dataclass(frozen=True, repr=False)
class _Curve:
    """Common part of the true compute curves (noiseless seconds for ``x`` elements).

    Every curve takes the keyword-only memory effect `mem_cap`, `mem_gamma` (declared here,
    once); a subclass declares its own fields and documents them (``{curve_fixed}``,
    ``{curve_rate}``: the shared entries of :mod:`wpart._docs`), this class adds the two
    to its Parameters and prints them last in its repr.
    """

    mem_cap: float | None = field(default=None, kw_only=True)
    mem_gamma: float = field(default=0.0, kw_only=True)

    def __post_init__(self) -> None:
        self._row()  # a bad field raises at once, naming it (not first in a Platform)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = cls.__doc__.rstrip() + _MEM_DOC
            fill_doc(cls)

    def __repr__(self) -> str:
        own = sorted(fields(self), key=lambda f: f.name in _MEM_FIELDS)  # stable: own first
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in own)
        return f"{type(self).__name__}({args})"

    def _fill(self, row: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        raise WpartNotImplementedError

    def _row(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        row = np.zeros(_NCOLS)
        row[_C_FOUT] = 1.0
        tx, tt = self._fill(row)
        row[_C_MEMCAP] = 0.0 if self.mem_cap is None else _pos(self.mem_cap, "mem_cap")
        row[_C_MEMGAMMA] = _pos(self.mem_gamma, "mem_gamma", zero=True)
        return row, tx, tt

    def __call__(self, x: ArrayLike) -> NDArray[np.float64]:
        """Noiseless compute time of ``x`` elements (vectorised)."""
        row, tx, tt = self._row()
        off = np.array([0, tx.size], dtype=np.int64)
        return _core.dynamic_device_time(row[None, :], tx, tt, off, 0, np.asarray(x, dtype=float), 0, 1)


_EMPTY = np.zeros(0)


@dataclass(frozen=True, repr=False)
class Affine(_Curve):
    """``t0 + x / rate`` (linear speed; analytic tests).

    Parameters
    ----------
    {curve_fixed curve_rate}
    """

    t0: float
    rate: float

    def _fill(self, row):  # noqa: ANN001
        row[_C_CURVE], row[_C_T0], row[_C_RATE] = 0, _pos(self.t0, "t0", zero=True), _pos(self.rate, "rate")
        return _EMPTY, _EMPTY


@dataclass(frozen=True, repr=False)
class Saturating(_Curve):
    """``t0 + x / (rate (1 - exp(-x / bsat)))``: throughput saturates at ``rate`` (accelerators).

    Parameters
    ----------
    {curve_fixed curve_rate}
    bsat : float
        Block size at which the device reaches about 63 % of its rate.
    """

    t0: float
    rate: float
    bsat: float

    def _fill(self, row):  # noqa: ANN001
        row[_C_CURVE], row[_C_T0], row[_C_RATE] = 1, _pos(self.t0, "t0", zero=True), _pos(self.rate, "rate")
        row[_C_BSAT] = _pos(self.bsat, "bsat")
        return _EMPTY, _EMPTY


@dataclass(frozen=True, repr=False)
class Power(_Curve):
    """``t0 + c x**beta`` (``beta > 1``: cache or memory pressure).

    Parameters
    ----------
    {curve_fixed}
    c : float
        Seconds per ``x**beta``.
    beta : float
        Exponent of the size.
    """

    t0: float
    c: float
    beta: float

    def _fill(self, row):  # noqa: ANN001
        row[_C_CURVE], row[_C_T0] = 2, _pos(self.t0, "t0", zero=True)
        row[_C_C], row[_C_BETA] = _pos(self.c, "c", zero=True), _pos(self.beta, "beta")
        return _EMPTY, _EMPTY


@dataclass(frozen=True, repr=False)
class BasisCurve(_Curve):
    """``c0 + sum coef[f] f(x / x_ref)`` over the paper's basis (eq. 1, Sec. 3.1).

    ``coef`` maps names of :data:`BASIS_NAMES` (``x, x2, x3, exp, log, xexp, xlog``) to
    coefficients; the time is clamped at 0.

    Parameters
    ----------
    coef : Mapping[str, float]
        Coefficients by basis-function name.
    c0 : float, optional
        Constant term in seconds.
    x_ref : float, optional
        Scale of ``x`` in the basis functions.
    """

    coef: Mapping[str, float]
    _: KW_ONLY
    c0: float = 0.0
    x_ref: float = 1.0

    def _fill(self, row):  # noqa: ANN001
        row[_C_CURVE], row[_C_XREF] = 3, _pos(self.x_ref, "x_ref")
        row[_C_BC0] = float(self.c0)
        for k, v in dict(self.coef).items():
            if k not in BASIS_NAMES:
                raise WpartValueError(f"`coef` key {k!r} is not a basis function; use one of {BASIS_NAMES}")
            if not math.isfinite(float(v)):
                raise WpartValueError(f"`coef[{k!r}]` must be finite")
            row[_C_BCOEF + BASIS_NAMES.index(k)] = float(v)
        return _EMPTY, _EMPTY


@dataclass(frozen=True, repr=False)
class Table(_Curve):
    """Piecewise-linear through measured ``(x, t)`` points (end segments extrapolate).

    Parameters
    ----------
    x : array_like
        Sizes of the measured points (increasing, >= 0).
    t : array_like
        Times of the points in seconds.
    """

    x: Any
    t: Any

    def __post_init__(self) -> None:  # tuples: comparable and hashable, never aliasing input
        from .._validate import as_array
        object.__setattr__(self, "x", tuple(float(v) for v in as_array(self.x, "x").ravel()))
        object.__setattr__(self, "t", tuple(float(v) for v in as_array(self.t, "t").ravel()))
        super().__post_init__()

    def _fill(self, row):  # noqa: ANN001
        x = np.array(self.x, dtype=float).ravel()
        t = np.array(self.t, dtype=float).ravel()
        if x.size < 1 or x.size != t.size:
            raise WpartValueError("`x` and `t` must be non-empty and of equal length")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(t)) and np.all(x >= 0) and np.all(t >= 0)):
            raise WpartValueError("table `x` and `t` must be finite and >= 0")
        if np.any(np.diff(x) <= 0):
            raise WpartValueError("table `x` must increase strictly")
        row[_C_CURVE] = 4
        return x, t


# ------------------------------------------------------------------------------ devices
@dataclass(frozen=True)
class Device:
    """A simulated processing unit.

    Parameters
    ----------
    kind : {"cpu", "gpu", "phi"}
    machine : int or str
        Machine label (``"A"`` .. or an index).
    curve : Affine, Saturating, Power, BasisCurve or Table
        True compute time of a block (hidden from the balancer).
    hops : sequence of (lat, bw)
        Transfer path: each hop costs ``lat + bytes / bw`` (seconds, bytes/s); at most 4.
    bytes_per_elem, setup_bytes : float
        ``bytes(x) = bytes_per_elem * x``; ``setup_bytes`` on the PU's first block only.
    sigma : float, optional
        Log-normal sigma of compute noise (default 0.03 CPU, 0.02 GPU, 0.04 PHI).
    sigma_xfer : float
        Log-normal sigma of transfer noise.
    p_out, f_out : float
        Outliers: with probability ``p_out`` a compute time is multiplied by ``f_out``.
    """

    kind: str
    machine: Any
    curve: _Curve
    _: KW_ONLY
    hops: Sequence[tuple[float, float]] = ()
    bytes_per_elem: float = 0.0
    setup_bytes: float = 0.0
    sigma: float | None = None
    sigma_xfer: float = 0.02
    p_out: float = 0.0
    f_out: float = 1.0
    name: str = ""

    def __post_init__(self) -> None:
        try:
            hops = tuple((float(lat), float(bw)) for lat, bw in self.hops)
        except (TypeError, ValueError):
            raise WpartTypeError("`hops` must be a sequence of (lat, bw) pairs") from None
        object.__setattr__(self, "hops", hops)
        self._row(0)  # a bad field raises at once, naming it (not first in a Platform)

    def _row(self, index: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        if self.kind not in PU_KINDS:
            raise WpartValueError(f"`kind` must be one of {PU_KINDS}, got {self.kind!r}")
        if not isinstance(self.curve, _Curve):
            raise WpartTypeError(f"`curve` must be a wpart.dynamic curve, got {type(self.curve).__name__}")
        row, tx, tt = self.curve._row()
        row[_C_KIND] = PU_KINDS.index(self.kind)
        row[_C_MACHINE] = self.machine if isinstance(self.machine, (int, np.integer)) else index
        hops = list(self.hops)
        if len(hops) > _MAX_HOPS:
            raise WpartValueError(f"`hops` holds at most {_MAX_HOPS} hops, got {len(hops)}")
        row[_C_NHOPS] = len(hops)
        for h, hop in enumerate(hops):
            lat, bw = hop
            row[_C_HOPS + 2 * h] = _pos(lat, "hops lat", zero=True)
            row[_C_HOPS + 2 * h + 1] = _pos(bw, "hops bw")
        row[_C_BPE] = _pos(self.bytes_per_elem, "bytes_per_elem", zero=True)
        row[_C_SETUP] = _pos(self.setup_bytes, "setup_bytes", zero=True)
        sigma = _DEFAULT_SIGMA[self.kind] if self.sigma is None else self.sigma
        row[_C_SIGMA] = _pos(sigma, "sigma", zero=True)
        row[_C_SIGMAX] = _pos(self.sigma_xfer, "sigma_xfer", zero=True)
        p_out = _pos(self.p_out, "p_out", zero=True)
        if p_out > 1:
            raise WpartValueError(f"`p_out` must be in [0, 1], got {self.p_out!r}")
        row[_C_POUT], row[_C_FOUT] = p_out, _pos(self.f_out, "f_out")
        return row, tx, tt


def _load_presets() -> dict[str, Any]:
    """The preset file, parsed so that a missing or malformed field is an error naming the
    file and the field (see :func:`file_errors` on :meth:`Platform.preset`)."""
    return load_doc(PRESET_FILE, _PRESET_NUMBERS)


#: Fields of the preset file that hold non-negative numbers (checked when it is read).
_PRESET_NUMBERS = frozenset({"rate", "t0", "bsat", "sigma", "local_hops", "remote_hops",
                             "rate_mult", "bytes_per_elem", "setup_bytes", "sigma_xfer",
                             "total", "totals", "t_start", "a", "b", "greedy_chunk", "k"})


@dataclass(frozen=True)
class Platform:
    """Simulated devices plus their load timeline.

    Parameters
    ----------
    devices : sequence of Device
        The PUs (``m = len(devices)``).
    fluctuations : sequence of (t_start, t_end, pu, factor)
        PU ``pu`` is slowed by ``factor`` during ``[t_start, t_end)`` (``t_end`` may be inf);
        overlapping entries multiply. Compute progress is integrated over the slowdown.
    onoff : sequence of (pu, mu_on, mu_off, f_busy)
        Two-state Markov interference (starts off; exponential holding times).
    name : str
        Label for plots and reports.
    n : int, optional
        The amount of work the preset was designed for (a suggestion: a balancer's own ``n``
        rules; :func:`simulate` uses it to build a balancer named by a string).
    stand_in : bool
        A synthetic stand-in platform (its results are labelled as such).

    Every option after `devices` is keyword-only; the keyword ``total`` is a deprecated alias
    of ``n`` (the attribute :attr:`total` reads ``n``).
    """

    devices: Sequence[Device]
    _: KW_ONLY
    fluctuations: Sequence[tuple[float, float, int, float]] = ()
    onoff: Sequence[tuple[int, float, float, float]] = ()
    name: str = "custom"
    n: int | None = None
    stand_in: bool = False
    _packed: tuple = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.devices, Device):
            raise WpartTypeError("`devices` must be a sequence of Device objects, got one Device")
        from .._validate import as_sequence
        devs = tuple(as_sequence(self.devices, "devices"))
        if self.n is not None:
            object.__setattr__(self, "n", as_int(self.n, "n", minimum=1))
        if not devs:
            raise WpartValueError("`devices` must hold at least one Device")
        for i, d in enumerate(devs):
            if not isinstance(d, Device):
                raise WpartTypeError(f"`devices[{i}]` must be a Device, got {type(d).__name__}")
        # one _row per distinct Device object, spread over the PUs in bulk (a platform of
        # 2**20 copies of one Device packs in NumPy, not 2**20 Python rows)
        first: dict[int, int] = {}
        which = [first.setdefault(id(d), i) for i, d in enumerate(devs)]
        inv = np.asarray(which, dtype=np.int64)
        ufirst = np.array(sorted(first.values()), dtype=np.int64)
        urow = np.searchsorted(ufirst, inv)  # index of each PU's distinct device
        made = [devs[int(i)]._row(int(i)) for i in ufirst]
        rows_u = np.array([r for r, _, _ in made]).reshape(len(made), -1)
        lens_u = np.array([tx.size for _, tx, _ in made], dtype=np.int64)
        rows = rows_u[urow]
        by_index = np.array([not isinstance(devs[int(i)].machine, (int, np.integer))
                             for i in ufirst])[urow]
        rows[by_index, _C_MACHINE] = np.flatnonzero(by_index)
        lens = lens_u[urow]
        off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        ustart = np.concatenate([[0], np.cumsum(lens_u)[:-1]]).astype(np.int64)
        take = np.repeat(ustart[urow] - off[:-1], lens) + np.arange(off[-1], dtype=np.int64)
        txs = [np.concatenate([tx for _, tx, _ in made])[take]]
        tts = [np.concatenate([tt for _, _, tt in made])[take]]
        fl = np.array([tuple(map(float, f)) for f in self.fluctuations], dtype=float).reshape(-1, 4)
        for i, (t0, t1, pu, fac) in enumerate(fl):
            if not (math.isfinite(t0) and t1 > t0 and 0 <= pu < len(devs) and pu == int(pu) and fac > 0 and math.isfinite(fac)):
                raise WpartValueError(f"`fluctuations[{i}]` must be (t_start < t_end, pu in range, factor > 0)")
        oo = np.array([tuple(map(float, f)) for f in self.onoff], dtype=float).reshape(-1, 4)
        for i, (pu, mon, moff, fb) in enumerate(oo):
            if not (0 <= pu < len(devs) and pu == int(pu) and mon > 0 and moff > 0 and fb > 0 and math.isfinite(mon + moff + fb)):
                raise WpartValueError(f"`onoff[{i}]` must be (pu in range, mu_on > 0, mu_off > 0, f_busy > 0)")
        packed = (
            np.ascontiguousarray(rows),
            np.ascontiguousarray(np.concatenate(txs)),
            np.ascontiguousarray(np.concatenate(tts)),
            np.array(off, dtype=np.int64),
            fl,
            oo,
        )
        object.__setattr__(self, "devices", devs)
        object.__setattr__(self, "fluctuations", tuple(tuple(f) for f in self.fluctuations))
        object.__setattr__(self, "onoff", tuple(tuple(f) for f in self.onoff))
        object.__setattr__(self, "_packed", packed)

    # -- a platform file ----------------------------------------------------------------------
    @classmethod
    def from_json(cls, path: str | Path, *, strict: bool = True) -> Platform:
        """Read a platform from a JSON file (the layout ``wpart dynamic simulate FILE`` reads).

        The layout is that of the ``hetero3`` and ``linear4`` entries of :data:`PRESET_FILE`::

            {"name": "my-node", "total": 200000, "sigma": 0.02,
             "devices": [{"kind": "cpu", "family": "affine", "t0": 0.0, "rate": 100.0},
                         {"kind": "gpu", "family": "saturating", "t0": 0.01,
                          "rate": 2000.0, "bsat": 4096.0}]}

        ``total`` (required) is the number of elements, an integer >= 1 (:attr:`n`);
        ``name`` defaults to the file's stem; ``sigma`` (default 0: noise-free) is every
        device's compute-noise sigma, in [0, 5]. A device has a ``kind`` (``"cpu"``, the
        default, ``"gpu"`` or ``"phi"``) and a ``family`` with its own fields: ``affine``
        (``t0`` >= 0, ``rate`` > 0: :class:`Affine`), ``saturating`` (``t0``, ``rate``,
        ``bsat`` > 0: :class:`Saturating`), ``power`` (``t0``, ``c`` >= 0, ``beta`` > 0:
        :class:`Power`), ``table`` (``x``, ``t``: lists of numbers >= 0, ``x`` increasing
        strictly: :class:`Table`).

        Parameters
        ----------
        path : str or os.PathLike
            The JSON file (UTF-8, a BOM allowed).
        strict : bool, default True
            Refuse a key the layout does not define (a misspelt optional key would otherwise
            go unnoticed); False ignores such keys.

        Raises
        ------
        wpart.WpartValueError, wpart.WpartTypeError
            A field missing, of the wrong type or out of range, a key given twice, an unknown
            key (with `strict`), or not JSON: the message names the file and the JSON path
            of the field, e.g. ``node.json: devices[0].rate: must be > 0, got -100``.
        wpart.WpartFileNotFoundError, wpart.WpartOSError
            The file does not exist, cannot be read, or is a directory.
        """
        from ._preset_json import read_platform

        return read_platform(path, strict=strict)

    # -- presets ----------------------------------------------------------------------------
    @classmethod
    @file_errors("name", "machines", "app", "case", "k", "sigma")
    def preset(
        cls,
        name: str,
        *,
        machines: str = "ABCDE",
        app: str = "mm",
        case: str = "a",
        k: float | None = None,
        sigma: float | None = None,
    ) -> Platform:
        """A synthetic stand-in platform (label results as simulated).

        The paper's five machines A-E (Sec. 5; its Table 1 is missing from the text) are
        replaced by machines of two or three PUs each (CPU + GPU, CPU + Xeon Phi, ...) whose
        ratios follow the paper's prose.

        Parameters
        ----------
        name : {"paper5", "adapt2", "hetero3", "linear4", "machines"}
            ``"paper5"``: machines A-E (or those given by ``machines``) with persona ``app``;
            ``"adapt2"``: machines A and B, ``mm``, GPU A slowed from t = 142 s by x2
            (``case="a"``) or x8 (``case="b"``); ``"hetero3"`` and ``"linear4"`` (``k``
            scales the rates, default 1000 el/s). ``"machines"``: the same platform as
            ``"paper5"`` (the machines given by ``machines``, persona ``app``), labelled
            ``"machines <letters> <app>"`` instead of ``"paper5 <letters> <app>"``.
        machines : str
            Machine letters for ``"paper5"`` / ``"machines"`` (e.g. ``"ABC"``).
        app : {"mm", "grn", "kmeans"}
            Application persona (rate multiplier, bytes per element, setup bytes).
        sigma : float, optional
            Overrides every device's compute sigma.
        """
        data = _load_presets()
        scen = data["scenarios"]
        if name in ("hetero3", "linear4"):
            sc = scen[name]
            kk = float(sc.get("k", 1.0) if k is None else k)
            sg = float(sc["sigma"] if sigma is None else sigma)
            devs = []
            for i, d in enumerate(sc["devices"]):
                rate = d["rate"] * (kk if name == "linear4" else 1.0)
                curve = Affine(d["t0"], rate) if d["family"] == "affine" else Saturating(d["t0"], rate, d["bsat"])
                devs.append(Device(d["kind"], i, curve, sigma=sg, sigma_xfer=0.0, name=f"{d['kind']}{i}"))
            return cls(devs, name=name, n=int(sc["total"]), stand_in=True)
        if name not in ("machines", "paper5", "adapt2"):
            raise WpartValueError(f"`name` must be one of {PRESET_NAMES}, got {name!r}")
        if name == "adapt2":
            machines, app = scen["adapt2"]["machines"], scen["adapt2"]["app"]
        if app not in data["personas"]:
            raise WpartValueError(f"`app` must be one of {tuple(data['personas'])}, got {app!r}")
        letters = str(machines).upper()
        if not letters or any(m not in data["machines"] for m in letters) or len(set(letters)) != len(letters):
            raise WpartValueError(f"`machines` must be distinct letters among {''.join(data['machines'])}, got {machines!r}")
        per = data["personas"][app]
        devs, gpu_a = [], None
        for mi, m in enumerate(letters):
            for cname in data["machines"][m]:
                c = data["classes"][cname]
                local = m == data["home"]
                hops = [tuple(h) for h in (c["local_hops"] if local else c["remote_hops"])]
                curve = Saturating(c["t0"], c["rate"] * per["rate_mult"], c["bsat"])
                if name == "adapt2" and m == scen["adapt2"]["slowdown"]["machine"] and cname == scen["adapt2"]["slowdown"]["class"]:
                    gpu_a = len(devs)
                devs.append(
                    Device(c["kind"], mi, curve, hops=hops, bytes_per_elem=per["bytes_per_elem"] if hops else 0.0,
                           setup_bytes=per["setup_bytes"] if hops else 0.0,
                           sigma=c["sigma"] if sigma is None else sigma, sigma_xfer=data["sigma_xfer"],
                           name=f"{m}:{cname}")
                )  # fmt: skip
        fl: list[tuple[float, float, int, float]] = []
        total = scen["paper5"]["total"]
        label = f"{name} {letters} {app}" if name != "adapt2" else f"adapt2 case {case}"
        if name == "adapt2":
            sd = scen["adapt2"]["slowdown"]
            if case not in sd["cases"]:
                raise WpartValueError(f"`case` must be one of {tuple(sd['cases'])}, got {case!r}")
            fl.append((sd["t_start"], math.inf, gpu_a, sd["cases"][case]))
            total = scen["adapt2"]["total"]
        return cls(devs, fluctuations=fl, name=label, n=int(total), stand_in=True)

    # -- queries ----------------------------------------------------------------------------
    @property
    def m(self) -> int:
        """Number of PUs."""
        return len(self.devices)

    n_pu = deprecated_attr("n_pu", "m", "Platform")

    @property
    def total(self) -> int | None:
        """The amount of work the preset was designed for: the same as :attr:`n` (the paper's
        ``W``; kept as a stable name, without a warning)."""
        return self.n

    def __repr__(self) -> str:
        kinds = ", ".join(f"{self.kinds.count(k)} {k}" for k in dict.fromkeys(self.kinds))
        lines = [f"Platform({self.name!r}, m={self.m}: {kinds}"
                 + (f", n={self.n}" if self.n is not None else "")
                 + (", synthetic stand-in" if self.stand_in else "") + ")"]
        if self.fluctuations:
            lines.append(f"  {len(self.fluctuations)} slowdown window(s), first {tuple(self.fluctuations[0])}")
        if self.onoff:
            lines.append(f"  {len(self.onoff)} on/off interference source(s)")
        return "\n".join(lines)

    @property
    def kinds(self) -> tuple[str, ...]:
        """PU kinds (``"cpu"``, ``"gpu"``, ``"phi"``), in PU order."""
        return tuple(d.kind for d in self.devices)

    @renamed(p="pu")
    def true_time(self, pu: int, x: ArrayLike, *, first: bool = False, part: str = "total") -> NDArray[np.float64]:
        """Noiseless ``E_p(x)`` = compute + transfer of a block of ``x`` elements on PU ``pu``
        (vectorised over ``x``).

        ``first=True`` adds the setup bytes of a PU's first block; ``part`` selects
        ``"total"``, ``"comp"`` or ``"xfer"``. No slowdown is applied.
        """
        p = as_int(pu, "pu", minimum=0, maximum=self.m - 1)
        parts = ("total", "comp", "xfer")
        part = choice(part, "part", parts)
        dev, tx, tt, off = self._packed[:4]
        # only PU p's row and tables go to the core: O(1) in m (a loop over every PU, as
        # simulate's best single-PU time does, stays O(m))
        lo, hi = int(off[p]), int(off[p + 1])
        return _core.dynamic_device_time(dev[p:p + 1], tx[lo:hi], tt[lo:hi],
                                         np.array([0, hi - lo], dtype=np.int64), 0,
                                         np.asarray(x, dtype=float),
                                         int(as_bool(first, "first")), parts.index(part))

    @renamed(p="pu")
    def block_time(self, pu: int, x: int, *, t: float = 0.0, j: int = 0, seed: int = 0) -> tuple[float, float]:
        """``(t_xfer, t_comp)`` of one block on PU ``pu``, with noise: ``x`` elements, the
        ``j``-th block of the PU (``j = 0`` pays the setup bytes), its transfer starting at time
        ``t``, compute integrated over the slowdown schedule (on/off interference excluded).

        This is the engine's own formula (``wpart_dynamic_device_block``): a run-based driver
        gets the simulator's devices, noise streams and load timeline from it.
        """
        p = as_int(pu, "pu", minimum=0, maximum=self.m - 1)
        x = as_int(x, "x", minimum=0)
        j = as_int(j, "j", minimum=0)
        seed = as_seed(seed)
        t = as_float(t, "t")
        dev, tx, tt, off, fl, _ = self._packed
        return _core.dynamic_device_block(dev, tx, tt, off, fl, p, seed, j, x, t)

    def curves(self) -> list[Callable[[ArrayLike], NDArray[np.float64]]]:
        """One vectorised noiseless ``E_p(x)`` callable per PU (the oracles' true curves)."""
        return [lambda x, _p=p: self.true_time(_p, x) for p in range(self.m)]


def _platform_init_aliases() -> None:
    import inspect

    init = Platform.__init__

    def Platform_(self: Platform, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)

    Platform_.__signature__ = inspect.signature(init)  # type: ignore[attr-defined]
    Platform_.__name__ = "Platform"
    Platform.__init__ = renamed(total="n")(Platform_)  # type: ignore[method-assign]


_platform_init_aliases()

from ._sim_result import SimResult, compare, simulate  # noqa: E402
