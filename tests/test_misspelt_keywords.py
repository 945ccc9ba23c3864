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
