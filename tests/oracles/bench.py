"""Run a benchmark of benchmarks/ in quick mode from the tests and read back its JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_quick(script: str, out_dir: Path, *, timeout: float = 300):
    """Run ``benchmarks/<script> --quick --out <out_dir>/bench.json``; assert it exited with 0.

    Returns ``(proc, doc)``: the finished process (its ``stdout`` as text) and the JSON it wrote.
    """
    out = Path(out_dir) / "bench.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script),
                           "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, json.loads(out.read_text())
