"""Deprecated: moved to :mod:`wpart.multikernel.opencl`; this path goes away in the next release."""

import sys
import warnings

from wpart.multikernel import opencl as _moved

warnings.warn("wpart.dynamic.multikernel.opencl moved to wpart.multikernel.opencl; the old path goes "
              "away in the next release", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
