"""The exceptions wpart raises: every one derives from :class:`WpartError` and, where one
matches, from the built-in of the same meaning, so ``except ValueError`` keeps working.

=========================  =======================================================
class                      raised for
=========================  =======================================================
``WpartValueError``        an argument of the right type with a bad value
``WpartTypeError``         an argument of the wrong type
``WpartOverflowError``     a value or a sum beyond int64 / float64
``WpartMemoryError``       the core could not allocate its working memory
``WpartRuntimeError``      a failure inside wpart that is not an input error
``WpartLimitError``        a size, memory or state cap reached (``max_states``, ...): a
                           ``WpartRuntimeError`` and a ``ValueError``
``WpartIndexError``        an index out of range
``WpartKeyError``          an unknown name or key
``WpartOSError``           a file that cannot be read or written
``WpartFileNotFoundError`` a named file that does not exist
``WpartTimeoutError``      a distributed run's fault-detection deadline (``timeout``)
``CancelledError``         a progress callback that returned False (Ctrl-C raises Python's
                           own ``KeyboardInterrupt``)
``SolverError``            the MILP solver failed or is not available
=========================  =======================================================

A time limit reached or an infeasible instance is never raised: it comes back in the
result's ``status``.
"""

from __future__ import annotations

from . import _core

WpartError = _core.WpartError
CancelledError = _core.CancelledError
SolverError = _core.SolverError
WpartValueError = _core.WpartValueError
WpartTypeError = _core.WpartTypeError
WpartOverflowError = _core.WpartOverflowError
WpartMemoryError = _core.WpartMemoryError
WpartRuntimeError = _core.WpartRuntimeError
WpartIndexError = _core.WpartIndexError
WpartKeyError = _core.WpartKeyError
WpartOSError = _core.WpartOSError
WpartLimitError = _core.WpartLimitError


class WpartFileNotFoundError(WpartError, FileNotFoundError):
    """A named input file does not exist."""

    __module__ = "wpart"


class WpartTimeoutError(WpartError, TimeoutError):
    """A distributed run missed its fault-detection deadline (``timeout``)."""

    __module__ = "wpart"


class WpartNotImplementedError(WpartError, NotImplementedError):
    """A method a subclass must provide."""

    __module__ = "wpart"


__all__ = [
    "WpartError",
    "WpartValueError",
    "WpartTypeError",
    "WpartOverflowError",
    "WpartMemoryError",
    "WpartRuntimeError",
    "WpartLimitError",
    "WpartIndexError",
    "WpartKeyError",
    "WpartOSError",
    "WpartFileNotFoundError",
    "WpartTimeoutError",
    "WpartNotImplementedError",
    "CancelledError",
    "SolverError",
]
