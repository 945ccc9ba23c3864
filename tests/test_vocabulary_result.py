"""The result protocol is declared once: ``wpart.Result`` holds ``status``, ``message``,
``stats`` (and the ``success`` property); no result class of any family declares them again,
and there is one tuple of statuses."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import warnings

import pytest

import wpart
from wpart._result import Result

PROTOCOL_FIELDS = ("status", "message", "stats", "success")


def _all_result_classes() -> dict[str, type]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # wpart.dynamic.multikernel: old path
        for info in pkgutil.walk_packages(wpart.__path__, "wpart."):
            if info.name.endswith("__main__"):
                continue
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional dependency (mpi4py, pyopencl) is missing
                continue
    out, todo = {}, [Result]
    while todo:
        for sub in todo.pop().__subclasses__():
            out[f"{sub.__module__}.{sub.__qualname__}"] = sub
            todo.append(sub)
    return out


CLASSES = _all_result_classes()


def test_every_family_has_result_classes():
    mods = {q.split(".")[1] for q in CLASSES}
    for fam in ("_base", "_milp", "spatial", "hetero", "dynamic", "multikernel", "tasks"):
        assert fam in mods, f"no Result subclass found in wpart.{fam}"


def test_result_declares_the_protocol_once():
    names = [f.name for f in dataclasses.fields(Result)]
    assert names == ["status", "message", "stats"]
    stats = dataclasses.fields(Result)[2]
    assert stats.kw_only and not stats.compare
    assert isinstance(Result.__dict__["success"], property)


@pytest.mark.parametrize("qual", sorted(CLASSES))
def test_no_result_class_declares_the_protocol_again(qual):
    cls = CLASSES[qual]
    own = set(cls.__dict__.get("__annotations__", {})) | set(cls.__dict__)
    again = sorted(own & set(PROTOCOL_FIELDS))
    assert not again, (f"{qual} declares {again} again: they are declared once, in "
                       "wpart.Result")
    fields = [f.name for f in dataclasses.fields(cls)]
    assert fields[:3] == ["status", "message", "stats"], fields


def test_one_tuple_of_statuses():
    import wpart.milp

    assert wpart.STATUSES is wpart._result.STATUSES
    assert wpart.milp.STATUSES[:len(wpart.STATUSES)] == wpart.STATUSES
    assert wpart.milp.STATUSES == wpart.STATUSES + ("unbounded",)


def test_spatial_has_one_name_table():
    import wpart.spatial as sp
    from wpart.spatial import _hybrid

    assert not hasattr(_hybrid, "_FUNCS"), "a second name table beside spatial.TABLE"
    for name in sp.TABLE.names:
        fn = _hybrid.method_function(name)
        assert fn.__name__ == name and name in sp.__all__, name


def test_spatial_partition_names_every_option():
    """No **options hiding the methods' options: partition() lists each of them."""
    import inspect

    import wpart.spatial as sp

    params = inspect.signature(sp.partition).parameters
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values())
    options = {o for meth in sp.TABLE for o in meth.options}
    assert set(params) - {"A", "m", "method"} == options
