"""Deprecated: the multi-kernel family is :mod:`wpart.multikernel`; this path goes away in the
next release."""

import warnings

from wpart.multikernel import *  # noqa: F403
from wpart.multikernel import __all__  # noqa: F401

warnings.warn("wpart.dynamic.multikernel moved to wpart.multikernel; the old path goes away in "
              "the next release", DeprecationWarning, stacklevel=2)
