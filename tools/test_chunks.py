"""Split the plain pytest stage's test files into chunks of about equal time.

``tools/test.sh`` runs the plain pytest stage as chunks that its two lanes take from a queue
(each lane takes the next chunk when it has finished its own stages), so both lanes end within
about one chunk of each other whatever the machine.

Usage::

    python tools/test_chunks.py OUTDIR N FILE...   # write OUTDIR/NN.todo, heaviest first
    python tools/test_chunks.py --weights LOG      # per-file seconds of a --durations=0 log

The weights are ``tools/test_weights.txt`` (file, seconds); a file not listed counts 2 s.
Files go longest first to the lightest chunk (LPT); chunks are numbered heaviest first, so the
last chunks taken are the short ones.
"""

from __future__ import annotations

import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_S = 2.0


def weights(path: str = os.path.join(HERE, "test_weights.txt")) -> dict[str, float]:
    out: dict[str, float] = {}
    with open(path) as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                name, sec = line.split()
                out[name] = float(sec)
    return out


def chunks(files: list[str], n: int, w: dict[str, float]) -> list[list[str]]:
    """`files` in at most `n` chunks of about equal weight, heaviest chunk first."""
    key = lambda f: w.get(os.path.join("tests", os.path.basename(f)), DEFAULT_S)
    bins: list[tuple[float, list[str]]] = [(0.0, []) for _ in range(max(1, n))]
    for f in sorted(files, key=lambda f: (-key(f), f)):
        i = min(range(len(bins)), key=lambda j: (bins[j][0], j))
        bins[i] = (bins[i][0] + key(f), bins[i][1] + [f])
    bins = [b for b in bins if b[1]]
    bins.sort(key=lambda b: -b[0])
    return [sorted(b[1]) for b in bins]


def from_log(path: str) -> dict[str, float]:
    """Per-file seconds from a pytest ``--durations=0`` log."""
    t: dict[str, float] = defaultdict(float)
    pat = re.compile(r"^([0-9.]+)s (?:call|setup|teardown)\s+(\S+?)::")
    with open(path) as fh:
        for line in fh:
            m = pat.match(line)
            if m:
                t[m.group(2)] += float(m.group(1))
    return dict(t)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--weights"] and len(argv) == 2:
        for name, sec in sorted(from_log(argv[1]).items()):
            print(f"{name} {sec:.1f}")
        return 0
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, n, files = argv[0], int(argv[1]), argv[2:]
    os.makedirs(out, exist_ok=True)
    w = weights()
    for i, chunk in enumerate(chunks(files, n, w)):
        with open(os.path.join(out, f"{i:02d}.todo"), "w") as fh:
            fh.write("\n".join(chunk) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
