"""A misspelt or unknown keyword argument is a :class:`wpart.WpartTypeError` naming it (and the
closest accepted name), not Python's plain ``TypeError``."""

from __future__ import annotations

import difflib
import functools
import inspect
from typing import Any, Callable, TypeVar

from ._errors import WpartTypeError

_F = TypeVar("_F", bound=Callable[..., Any])


def checked_keywords(fn: _F) -> _F:
    """Wrap `fn` so that a call with a keyword it does not take, or too many positional
    arguments, raises :class:`WpartTypeError` naming the argument (the check is a set lookup
    per keyword; a valid call reaches `fn` unchanged)."""
    sig = inspect.signature(fn)
    params = sig.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return fn
    names = frozenset(p.name for p in params
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    npos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    varpos = any(p.kind is p.VAR_POSITIONAL for p in params)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if (len(args) > npos and not varpos) or not names.issuperset(kwargs):
            _refuse(fn.__name__, names, npos, args, kwargs)
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _refuse(name: str, names: frozenset, npos: int, args: tuple, kwargs: dict) -> None:
    for k in kwargs:
        if k not in names:
            near = difflib.get_close_matches(k, sorted(names), n=1)
            hint = f" (did you mean `{near[0]}`?)" if near else ""
            raise WpartTypeError(
                f"{name}() got an unexpected keyword argument `{k}`{hint}; it takes "
                f"{', '.join(f'`{n}`' for n in sorted(names))}"
            )
    raise WpartTypeError(
        f"{name}() takes {npos} positional arguments but {len(args)} were given; the options "
        "after them are keyword-only"
    )
