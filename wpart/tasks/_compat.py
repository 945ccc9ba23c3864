"""One release of grace for options that became keyword-only."""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable, TypeVar

from .._errors import WpartTypeError

_F = TypeVar("_F", bound=Callable[..., Any])


def positional_deprecated(*names: str) -> Callable[[_F], _F]:
    """Accept the keyword-only options `names`, in this order, after the positional
    parameters, with a :class:`DeprecationWarning` (``balance(p, "greedy")`` still runs as
    ``balance(p, method="greedy")`` for one release). The signature shown stays the new one."""

    def deco(f: _F) -> _F:
        sig = inspect.signature(f)
        n_pos = sum(1 for q in sig.parameters.values()
                    if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD))
        label = getattr(f, "__qualname__", f.__name__).replace(".__init__", "")

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > n_pos:
                extra = args[n_pos:]
                if len(extra) > len(names):
                    raise WpartTypeError(f"{label}() takes {n_pos} positional arguments but "
                                         f"{len(args)} were given")
                given = names[:len(extra)]
                for name, value in zip(given, extra):
                    if name in kwargs:
                        raise WpartTypeError(f"{label}() got two values for `{name}`")
                    kwargs[name] = value
                warnings.warn(f"{label}(): pass {', '.join(f'`{n}`' for n in given)} by "
                              "keyword; passing options by position is deprecated",
                              DeprecationWarning, stacklevel=2)
                args = args[:n_pos]
            return f(*args, **kwargs)

        wrapper.__signature__ = sig  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco
