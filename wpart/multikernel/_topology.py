"""CPU cache topology from Linux sysfs, for fission by cache level.

OpenCL's fission by affinity domain (``CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN``) is what
[Soldado 2016] uses; drivers that refuse it (PoCL) still split ``BY_COUNTS``, so wpart reads
the domains itself: each CPU's ``cache/index*/level`` and ``shared_cpu_list`` give the groups
of CPUs sharing a cache at each level, and ``/sys/devices/system/node`` the NUMA nodes.
"""

from __future__ import annotations

import os
from pathlib import Path

from .._errors import WpartValueError

__all__ = ["FISSION_LEVELS", "cache_domains", "fission_levels", "fission_counts"]

#: Fission levels, finest to coarsest, then none.
FISSION_LEVELS = ("L1", "L2", "L3", "L4", "NUMA", "NONE")

_SYS = Path("/sys/devices/system")


def _parse_list(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return tuple(sorted(out))


def _online_cpus(root: Path) -> tuple[int, ...]:
    try:
        return _parse_list((root / "cpu" / "online").read_text())
    except (OSError, ValueError):
        return tuple(range(os.cpu_count() or 1))


def cache_domains(level: str, *, root: str | os.PathLike | None = None) -> list[tuple[int, ...]]:
    """Groups of online CPUs sharing one cache of `level` (``"L1"`` .. ``"L4"``: data or
    unified caches), or one NUMA node (``"NUMA"``); ``"NONE"`` is one group of every CPU.
    Empty when sysfs does not describe the level."""
    sysroot = Path(root) if root is not None else _SYS
    cpus = _online_cpus(sysroot)
    if level == "NONE":
        return [cpus]
    groups: set[tuple[int, ...]] = set()
    if level == "NUMA":
        for node in sorted(sysroot.glob("node/node[0-9]*")):
            try:
                g = tuple(c for c in _parse_list((node / "cpulist").read_text()) if c in cpus)
            except (OSError, ValueError):
                continue
            if g:
                groups.add(g)
        return sorted(groups)
    if level not in FISSION_LEVELS:
        raise WpartValueError(f"`level` must be one of {', '.join(FISSION_LEVELS)}, got {level!r}")
    want = int(level[1])
    for c in cpus:
        for idx in sorted((sysroot / "cpu" / f"cpu{c}" / "cache").glob("index[0-9]*")):
            try:
                lv = int((idx / "level").read_text())
                typ = (idx / "type").read_text().strip()
                shared = _parse_list((idx / "shared_cpu_list").read_text())
            except (OSError, ValueError):
                continue
            if lv == want and typ in ("Data", "Unified"):
                g = tuple(x for x in shared if x in cpus)
                if g:
                    groups.add(g)
    return sorted(groups)


def fission_levels(*, root: str | os.PathLike | None = None) -> list[tuple[str, int]]:
    """The fission levels this machine supports, finest to coarsest, then ``NONE``: each
    ``(level, number of sub-devices)``, keeping the first level of each distinct grouping."""
    out: list[tuple[str, int]] = []
    seen: set[tuple[tuple[int, ...], ...]] = set()
    for lv in FISSION_LEVELS[:-1]:
        g = tuple(cache_domains(lv, root=root))
        if g and g not in seen and len(g) > 1:
            seen.add(g)
            out.append((lv, len(g)))
    out.append(("NONE", 1))
    return out


def fission_counts(level: str, compute_units: int, *,
                   root: str | os.PathLike | None = None) -> list[int]:
    """Compute units per sub-device for a ``BY_COUNTS`` fission at `level`: the sizes of the
    cache (or NUMA) domains, scaled to the device's compute units when they differ from the
    CPUs sysfs lists. ``NONE`` gives ``[compute_units]``."""
    if compute_units < 1:
        raise WpartValueError(f"`compute_units` must be >= 1, got {compute_units}")
    groups = cache_domains(level, root=root)
    if level == "NONE" or len(groups) <= 1:
        return [compute_units]
    sizes = [len(g) for g in groups]
    total = sum(sizes)
    if total == compute_units:
        return sizes
    k = min(len(groups), compute_units)          # equal split over k domains
    base, extra = divmod(compute_units, k)
    return [base + (1 if i < extra else 0) for i in range(k)]
