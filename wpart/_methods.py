"""Method tables: each family declares its methods once.

A :class:`MethodTable` maps a method name to its C entry (an enum value the binding exports
from the core's header, never a position in a list), its options and whether it is exact. The
family's public tuple of names, the argument check and the documentation table all come from
it::

    TABLE = MethodTable("spatial", [
        Method("rect_uniform", _core.SP_RECT_UNIFORM, exact=False, summary="..."),
        ...
    ])
    METHODS = TABLE.names            # the public tuple
    meth = TABLE.choose(method)      # validated Method (the error lists the names)
    TABLE.markdown()                 # the docs table
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from ._errors import WpartValueError
from ._validate import choice


@dataclass(frozen=True)
class Method:
    """One method of a family.

    Attributes
    ----------
    name : str
        Public name (lower case, underscores).
    code : int or None
        The C entry: the core's enum value for it (None for a method written in Python).
    exact : bool
        Whether it returns a proven optimum.
    options : tuple of str
        Keyword options the method reads beyond the family's common ones.
    summary : str
        One line for the docs table.
    aliases : tuple of str
        Other accepted spellings.
    """

    name: str
    code: int | None
    exact: bool
    options: tuple[str, ...] = ()
    summary: str = ""
    aliases: tuple[str, ...] = field(default=())


class MethodTable:
    """The methods of one family, declared once (see the module docstring)."""

    def __init__(self, family: str, methods: Iterable[Method]) -> None:
        self.family = family
        self.methods: tuple[Method, ...] = tuple(methods)
        self._by_name = {m.name: m for m in self.methods}
        if len(self._by_name) != len(self.methods):
            raise WpartValueError(f"{family}: duplicate method names")
        codes = [m.code for m in self.methods if m.code is not None]
        if len(set(codes)) != len(codes):
            raise WpartValueError(f"{family}: two methods share a C entry")
        self._aliases = {a: m.name for m in self.methods for a in m.aliases}

    @property
    def names(self) -> tuple[str, ...]:
        """Every method name, in declaration order."""
        return tuple(m.name for m in self.methods)

    @property
    def exact(self) -> tuple[str, ...]:
        """The names of the exact methods."""
        return tuple(m.name for m in self.methods if m.exact)

    def __getitem__(self, name: str) -> Method:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self):
        return iter(self.methods)

    def __len__(self) -> int:
        return len(self.methods)

    def choose(self, x: Any, name: str = "method") -> Method:
        """The method named `x` (case-insensitive, ``-`` read as ``_``, aliases accepted);
        a :class:`WpartValueError` listing the valid names otherwise."""
        return self._by_name[choice(x, name, self.names, self._aliases)]

    def markdown(self) -> str:
        """A Markdown table of the methods (name, exact, options, summary)."""
        rows = ["| method | exact | options | what |", "|---|---|---|---|"]
        for m in self.methods:
            opts = ", ".join(f"`{o}`" for o in m.options) or "—"
            rows.append(f"| `{m.name}` | {'yes' if m.exact else 'no'} | {opts} | {m.summary} |")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"MethodTable({self.family!r}, {list(self.names)})"
