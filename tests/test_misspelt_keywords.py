"""A misspelt keyword is a WpartTypeError naming it and the closest option (the public
functions whose options became explicit keyword-only parameters keep this guarantee)."""

import numpy as np
import pytest

import wpart
from wpart import dynamic as D
from wpart import spatial as S
from wpart import tasks as T

P = T.gemma_like(m=4, n_tasks=40, n_blocks=8, seed=1)

CASES = [
    ("partition", "methd", "method", lambda: S.partition(np.ones((4, 4)), 4, methd="rect_nicol")),
    ("balance", "metod", "method", lambda: T.balance(P, metod="ccm")),
    ("balance", "protocl", "protocol", lambda: T.balance(P, backend="ranks", protocl="turns")),
    ("compare", "seedz", "seeds", lambda: D.compare("hetero3", {"g": "greedy"}, seedz=[0])),
    ("oracle_stepped", "divisor", "divisors",
     lambda: D.oracle_stepped(D.Platform.preset("linear4"), 1000, divisor=[1])),
    ("from_lbdatafile", "strct", "strict", lambda: T.Problem.from_lbdatafile("stem", strct=True)),
    ("with_", "task_lod", "task_load", lambda: P.with_(task_lod=1)),
]


@pytest.mark.parametrize("fn,bad,good,call", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_misspelt_keyword_is_a_wpart_type_error_naming_it(fn, bad, good, call):
    with pytest.raises(wpart.WpartTypeError,
                       match=rf"^{fn}\(\) got an unexpected keyword argument `{bad}` "
                             rf"\(did you mean `{good}`\?\); it takes "):
        call()


FAMILIES = ("wpart", "wpart.spatial", "wpart.tasks", "wpart.multikernel", "wpart.hetero",
            "wpart.dynamic")


def _public_callables():
    """Every public function and class (not an exception) of each family's __all__ that
    takes no ``**kwargs``: (family, name, callable)."""
    import importlib
    import inspect

    out = []
    for fam in FAMILIES:
        mod = importlib.import_module(fam)
        for name in mod.__all__:
            obj = getattr(mod, name, None)
            if inspect.isclass(obj):
                if issubclass(obj, BaseException) or "__init__" not in obj.__dict__:
                    continue
                target = obj.__init__
            elif inspect.isfunction(obj):
                target = obj
            else:
                continue
            try:
                sig = inspect.signature(target)
            except (TypeError, ValueError):
                continue
            if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
                continue
            if getattr(inspect.unwrap(target), "__wpart_any_keywords__", False) or \
                    getattr(target, "__wpart_any_keywords__", False):
                continue
            out.append((fam, name, obj))
    return out


def test_every_public_callable_refuses_an_unknown_keyword_as_a_wpart_error():
    """An unknown keyword given to any public function or class of any family is a
    WpartTypeError naming it and the callable (Python's plain TypeError before, except for
    the few functions already checked); a valid call is unchanged."""
    seen = 0
    for fam, name, obj in _public_callables():
        with pytest.raises(wpart.WpartTypeError, match=r"unexpected keyword argument "
                                                       r"`zz_not_an_option`"):
            obj(zz_not_an_option=1)
        seen += 1
    assert seen >= 90
    assert S.jag_m_opt(np.ones((6, 6)), 4).max_load == 9.0  # unchanged
