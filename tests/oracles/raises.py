"""An exception of exactly one class whose message holds every given fragment."""

from __future__ import annotations

from typing import Any, Callable

import pytest


def raises_exactly(cls: type, *fragments: Any, call: Callable[[], Any]) -> BaseException:
    """Run `call`; it must raise `cls` itself (not a subclass) with each fragment in its
    message. Returns the exception."""
    with pytest.raises(cls) as ei:
        call()
    assert type(ei.value) is cls, type(ei.value)
    for f in fragments:
        assert str(f) in str(ei.value), (f, str(ei.value))
    return ei.value
