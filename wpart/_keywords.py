"""A misspelt or unknown keyword argument is a :class:`wpart.WpartTypeError` naming it (and the
closest accepted name), not Python's plain ``TypeError``."""

from __future__ import annotations

import difflib
import functools
import inspect
from typing import Any, Callable, TypeVar

from ._errors import WpartTypeError

_F = TypeVar("_F", bound=Callable[..., Any])


def checked_keywords(fn: _F, name: str | None = None) -> _F:
    """Wrap `fn` so that a call with a keyword it does not take, or too many positional
    arguments, raises :class:`WpartTypeError` naming the argument (the check is a set lookup
    per keyword; a valid call reaches `fn` unchanged). `name`: the callable's name in the
    message (default ``fn.__name__``)."""
    shown = name or fn.__name__
    sig = inspect.signature(fn)
    params = sig.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params) or getattr(fn, "__wpart_any_keywords__",
                                                                False):
        return fn  # (extra_keywords_deprecated: its own keywords go into a mapping)
    # (renamed: the deprecated aliases it maps, hidden from its signature, are taken too)
    listed = frozenset(p.name for p in params
                       if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    names = listed | frozenset(getattr(fn, "__wpart_renamed__", {}))
    npos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    varpos = any(p.kind is p.VAR_POSITIONAL for p in params)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if (len(args) > npos and not varpos) or not names.issuperset(kwargs):
            _refuse(shown, names, listed, npos, args, kwargs)
        return fn(*args, **kwargs)

    wrapper._wpart_checked = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def _refuse(name: str, names: frozenset, listed: frozenset, npos: int, args: tuple,
            kwargs: dict) -> None:
    for k in kwargs:
        if k not in names:
            near = difflib.get_close_matches(k, sorted(listed), n=1)
            hint = f" (did you mean `{near[0]}`?)" if near else ""
            raise WpartTypeError(
                f"{name}() got an unexpected keyword argument `{k}`{hint}; it takes "
                f"{', '.join(f'`{n}`' for n in sorted(listed) if n != 'self')}"
            )
    raise WpartTypeError(
        f"{name}() takes {npos} positional argument{'' if npos == 1 else 's'} but "
        f"{len(args)} were given; the options after them are keyword-only"
    )


def guarded(obj: Any) -> Any:
    """`obj` with the check of :func:`guard_public` (a module's lazily loaded name)."""
    ns = {"x": obj}
    guard_public(ns, ["x"])
    return ns["x"]


def guard_public(ns: dict, names: Any) -> None:
    """Give the public functions and classes `names` of the module namespace `ns` the check of
    :func:`checked_keywords` (a class: its ``__init__``), in place: an unknown keyword or too
    many positional arguments then raise :class:`WpartTypeError` naming it, in every family.
    Exceptions, and callables that take ``**kwargs`` or are already checked, are left as they
    are; so is anything not defined inside wpart."""
    for name in names:
        obj = ns.get(name)
        if obj is None or not getattr(obj, "__module__", "").startswith("wpart"):
            continue
        if inspect.isfunction(obj):
            if not getattr(obj, "_wpart_checked", False):
                ns[name] = checked_keywords(obj)
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            init = obj.__dict__.get("__init__")
            if inspect.isfunction(init) and not getattr(init, "_wpart_checked", False):
                obj.__init__ = checked_keywords(init, obj.__name__)
