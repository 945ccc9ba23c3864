"""The one rule by which every benchmark finds wpart.

Benchmarks measure the wpart that is installed when there is one (``pip install .`` or the
editable install of ``tools/setup.sh``), and fall back to this checkout only when ``import
wpart`` fails otherwise (a checkout built in place with ``-DWPART_INPLACE=ON`` and never
installed). Run them as scripts (``python benchmarks/bench_base.py``): the script's folder,
not the repository root, is then first on ``sys.path``, so the checkout never shadows an
installed wpart by accident.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["ROOT", "interleaved_cpu", "load_c", "use_wpart"]

#: Repository root of this checkout.
ROOT = Path(__file__).resolve().parent.parent


def use_wpart() -> Path:
    """Make ``import wpart`` work: the installed wpart if importable, else this checkout's.

    Returns
    -------
    pathlib.Path
        The folder of the wpart package that was imported.
    """
    try:
        import wpart
    except ImportError as exc:
        for name in [k for k in sys.modules if k == "wpart" or k.startswith("wpart.")]:
            del sys.modules[name]  # drop a partially initialised package
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        try:
            import wpart
        except ImportError as exc2:
            raise ImportError(
                f"wpart is neither installed ({exc}) nor built in this checkout ({exc2}); "
                "run ./tools/setup.sh or `pip install .` first"
            ) from None
    return Path(wpart.__file__).resolve().parent


def load_c(src: Path, *flags: str):
    """A benchmark's own C helper: `src` compiled with the system C compiler (``$CC``, else
    ``cc``; ``-O2 -shared -fPIC`` and `flags`) into a temporary folder, loaded through ctypes.
    The folder is removed at once (the loaded library stays mapped), so nothing is left in the
    temporary directory.

    Returns
    -------
    ctypes.CDLL

    Raises
    ------
    OSError, subprocess.CalledProcessError
        No compiler, or `src` did not compile or load.
    """
    import ctypes

    with tempfile.TemporaryDirectory(prefix="wpart_bench_c_") as d:
        so = os.path.join(d, Path(src).stem + ".so")
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", *flags, "-o", so,
                        str(src)], check=True, capture_output=True)
        return ctypes.CDLL(so)


def interleaved_cpu(fs, n: int, k: int) -> list:
    """CPU seconds per call of each function in `fs`: `k` rounds, each running n calls of every
    function in turn (interleaved, so both sides of a ratio see the same machine), the best
    round of each."""
    best = [float("inf")] * len(fs)
    for _ in range(k):
        for i, f in enumerate(fs):
            t = time.process_time()
            for _ in range(n):
                f()
            best[i] = min(best[i], (time.process_time() - t) / n)
    return best

