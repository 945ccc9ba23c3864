"""Deprecated: moved to :mod:`wpart.multikernel.sim`; this path goes away in the next release."""

import sys
import warnings

from wpart.multikernel import sim as _moved

warnings.warn("wpart.dynamic.multikernel.sim moved to wpart.multikernel.sim; the old path goes "
              "away in the next release", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
