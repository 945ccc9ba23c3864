"""Whether OpenCL runs can happen here: pyopencl imports, a platform lists devices, and every
device builds a kernel (:func:`unavailable_reason`; re-exported by
:mod:`wpart.multikernel.opencl`)."""

from __future__ import annotations

import functools
from typing import Any

from .._errors import WpartRuntimeError


def _cl():
    try:
        import pyopencl as cl
    except ImportError as e:
        raise WpartRuntimeError(f"OpenCL runs need pyopencl ({e}); install it with "
                                "`pip install pyopencl pocl-binary-distribution`") from None
    return cl


#: A one-line kernel every device must build (the probe of :func:`unavailable_reason`).
_PROBE = "__kernel void wpart_probe(__global float *a) { a[get_global_id(0)] *= 2.0f; }"


def _devices(cl: Any) -> list:
    """(platform, device) of every device of every platform that lists its devices."""
    out = []
    for p in cl.get_platforms():
        try:
            devs = p.get_devices()
        except Exception:
            continue
        out.extend((p, d) for d in devs)
    return out


@functools.cache
def _device_fault() -> str | None:
    """The first device that cannot build the probe kernel and why (once per process: a
    driver's compiler does not change while it runs); None when every device builds it."""
    cl = _cl()
    for p, d in _devices(cl):
        try:
            cl.Program(cl.Context([d]), _PROBE).build()
        except Exception as e:  # e.g. PoCL's LLVM not knowing the host CPU
            lines = [ln.strip() for ln in str(e).splitlines() if "error" in ln.lower()]
            why = lines[-1] if lines else str(e).splitlines()[0] if str(e) else repr(e)
            return f"OpenCL device {d.name.strip()!r} ({p.name.strip()}) cannot build " \
                   f"a kernel: {why}"
    return None


def unavailable_reason() -> str | None:
    """None when pyopencl imports and every OpenCL device present builds a kernel; otherwise
    why not (no pyopencl, no platform, no device, or a device whose compiler fails: PoCL's
    CPU driver does on a host CPU its LLVM does not know, "unknown target CPU 'generic'")."""
    try:
        cl = _cl()
    except WpartRuntimeError as e:
        return str(e)
    try:
        plats = cl.get_platforms()
    except Exception as e:  # no ICD, no platform
        return f"no OpenCL platform ({e})"
    for p in plats:
        try:
            if p.get_devices():
                return _device_fault()
        except Exception:
            continue
    return "no OpenCL device on any platform"
