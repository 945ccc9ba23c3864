"""The balancers of :mod:`wpart.dynamic`, declared once.

:data:`BALANCERS` (a :class:`wpart._methods.MethodTable`) maps each balancer's name to its
class, its options and a factory that builds it for a platform with sensible defaults; the
string forms ``simulate("hetero3", "greedy")`` and :func:`make_balancer` use it, and the
documentation table comes from it (``BALANCERS.markdown()``).

Every balancer is a C state machine with its own constructor, so no entry has a C enum code
(``code`` is None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .._errors import WpartTypeError, WpartValueError
from .._methods import Method, MethodTable
from ._balancer import Balancer, Greedy, StaticEqual, m_n
from ._baselines import HDSS, AcostaRP, Asymmetric, DmdaLike, NaiveProfile, StaticPeak
from ._plbhac import PLBHAC, PLBHeC
from .._docs import fill_doc
from .._validate import extra_keywords_deprecated

__all__ = ["BALANCERS", "make_balancer"]


@dataclass(frozen=True)
class BalancerMethod(Method):
    """A :class:`~wpart._methods.Method` with the class it builds and a factory
    ``factory(m, n, platform, seed, options) -> Balancer`` (``platform`` may be None)."""

    cls: Any = None
    factory: Callable[..., Balancer] | None = None
    needs_platform: bool = False


def _kinds(platform: Any, m: int) -> tuple[str, ...] | None:
    return None if platform is None else tuple(platform.kinds)


def _greedy(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    return Greedy(m, n, **opts)


def _plbhac(cls: type) -> Callable[..., Balancer]:
    def make(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
        opts = dict(opts)
        if platform is not None:
            opts.setdefault("pu_kinds", _kinds(platform, m))
        return cls(m, n, **opts)

    return make


def _hdss(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    return HDSS(m, n, **opts)


def _acosta(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    opts = dict(opts)
    step = opts.pop("step", max(m, n // 16))
    return AcostaRP(m, n, step, **opts)


def _naive(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    return NaiveProfile(m, n, **opts)


def _asymmetric(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    opts = dict(opts)
    kinds = opts.pop("pu_kinds", _kinds(platform, m))
    if kinds is None:
        raise WpartValueError("balancer 'asymmetric' needs `pu_kinds` (or a platform to read them from)")
    return Asymmetric(m, n, kinds, **opts)


def _static(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    if opts:
        raise WpartTypeError(f"balancer 'static' takes no options, got {', '.join(sorted(opts))}")
    return StaticEqual(m, n)


def _static_peak(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    opts = dict(opts)
    rates = opts.pop("peak_rates", None)
    if rates is None:
        # the nominal peak: the throughput of one block of all the data, noiseless
        rates = [n / float(platform.true_time(p, n)) for p in range(m)]
    return StaticPeak(n, rates, **opts)


def _dmda(m: int, n: int, platform: Any, seed: int, opts: dict) -> Balancer:
    from ._oracles import dmda_calibration

    opts = dict(opts)
    chunk = opts.pop("chunk", 1024)
    times = opts.pop("piece_times", None)
    if times is None:  # StarPU's calibration: a separate run, on another seed
        times = dmda_calibration(platform, chunk=chunk, seed=(int(seed) + 1) % 2**64)
    return DmdaLike(n, times, chunk=chunk, **opts)


BALANCERS = MethodTable("dynamic", [
    BalancerMethod("plbhac", None, False, ("preset", "x_init", "quantum", "step_mode", "..."),
                   "PLB-HAC: fitted models, equal-finish-time blocks, asynchronous virtual steps "
                   "(Sec. 3 of [Sant'Ana 2017])", ("plb_hac",), cls=PLBHAC, factory=_plbhac(PLBHAC)),
    BalancerMethod("plbhec", None, False, ("preset", "x_init", "..."),
                   "PLB-HeC: PLB-HAC's models with a barrier at every step (reference [10])",
                   ("plb_hec",), cls=PLBHeC, factory=_plbhac(PLBHeC)),
    BalancerMethod("greedy", None, False, ("chunk",),
                   "every PU takes the next `chunk` elements when free (Sec. 4)", ("eager",),
                   cls=Greedy, factory=_greedy),
    BalancerMethod("hdss", None, False, ("x_init", "eps", "rounds_max", "adapt_fraction", "kappa",
                                         "min_chunk"),
                   "HDSS: adaptive rounds, least-squares weights, decreasing chunks (reference [3])",
                   cls=HDSS, factory=_hdss),
    BalancerMethod("acosta", None, False, ("step", "threshold", "eval_at_barrier"),
                   "relative power redistributed at every synchronous step (reference [1]); "
                   "`step` defaults to n / 16", ("acosta_rp",), cls=AcostaRP, factory=_acosta),
    BalancerMethod("naive", None, False, ("x_init",),
                   "one profiling round, then one static block per PU (reference [8])",
                   ("naive_profile",), cls=NaiveProfile, factory=_naive),
    BalancerMethod("asymmetric", None, False, ("g_cpu", "ratio", "pu_kinds"),
                   "a shared pool with larger pieces for accelerators (reference [8])",
                   cls=Asymmetric, factory=_asymmetric),
    BalancerMethod("static", None, False, (), "n / m elements per PU, one block each",
                   ("static_equal",), cls=StaticEqual, factory=_static),
    BalancerMethod("static_peak", None, False, ("peak_rates",),
                   "one block per PU proportional to its peak rate (default: the platform's "
                   "noiseless throughput on n elements)", cls=StaticPeak, factory=_static_peak,
                   needs_platform=True),
    BalancerMethod("dmda", None, False, ("chunk", "piece_times"),
                   "StarPU dmda-style placement of `chunk`-element pieces (default piece times: a "
                   "calibration run)", ("dmda_like",), cls=DmdaLike, factory=_dmda,
                   needs_platform=True),
])  # fmt: skip


@fill_doc
@extra_keywords_deprecated("options", "the balancer's options")
def make_balancer(name: str, m: int, n: int, *, platform: Any = None, seed: int = 0,
                  options: Mapping[str, Any] | None = None) -> Balancer:
    """A fresh balancer by name (one of ``BALANCERS.names``), with defaults for `platform`.

    Parameters
    ----------
    name : str
        A name of :data:`BALANCERS` (case-insensitive; aliases such as ``"eager"`` accepted).
    m, n : int
        PUs and elements.
    platform : Platform, optional
        Supplies ``m``, ``n`` and the PU kinds (``pu_kinds`` of PLB-HAC, PLB-HeC and
        Asymmetric); ``static_peak`` and ``dmda`` need it for their rates and piece times.
    seed : int, default 0
        ``dmda`` calibrates its piece times in a simulated run with seed ``seed + 1``.
    options : dict, optional
        The balancer's own options (see its class), e.g. ``{"chunk": 64}``.

    Returns
    -------
    Balancer
        A fresh (unstarted) balancer.

    {raises}
    """
    meth = BALANCERS.choose(name, "balancer")
    m, n = m_n(m, n)
    if platform is not None and platform.m != m:
        raise WpartValueError(f"`m` = {m} but the platform has {platform.m} PUs")
    if meth.needs_platform and platform is None:
        raise WpartValueError(f"balancer {meth.name!r} needs a `platform` for its defaults")
    if options is not None and not isinstance(options, Mapping):
        raise WpartTypeError(f"`options` must be a dict, got {type(options).__name__}")
    return meth.factory(m, n, platform, seed, dict(options or {}))  # type: ignore[misc]
