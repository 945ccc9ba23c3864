"""Deprecated: moved to :mod:`wpart.multikernel.skeletons`; this path goes away in the next release."""

import sys
import warnings

from wpart.multikernel import skeletons as _moved

warnings.warn("wpart.dynamic.multikernel.skeletons moved to wpart.multikernel.skeletons; the old path goes "
              "away in the next release", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
