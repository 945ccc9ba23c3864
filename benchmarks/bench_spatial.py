"""Benchmarks for wpart.spatial: the tables of [Saule 2012] regenerated (Secs. 4-5, Table 1).

Runs, in one process, the steps of :mod:`wpart.experiments.spatial`:

* load imbalance ``LI_agg`` per algorithm x instance class x m (10 seeds per synthetic class;
  the PIC-MAG and SLAC substitutes are labelled as such);
* core run time per algorithm at 512x512 and 4096x4096 for m up to 10,000, printed beside the
  paper's reported times with the ratio paper/ours (target: at least 10x below the paper) and
  JAG-M-OPT at m = 961 (the paper: 31 minutes);
* log-log slopes of time in m, checked against the worst-case complexities of the paper's
  Table 1 (at P = Q = sqrt m, log factors dropped);
* the hierarchical variants, HYBRID and the pic_like resolution tables of
  :mod:`wpart.experiments.spatial_paper`.

The verdicts (paper value, ours, MATCH / DIFFERS / NOT REGENERATED) are printed by
``python -m wpart reproduce spatial``, which runs the same steps.

Timings are reported, never asserted by the test suite. ``--quick`` (CI-sized, well under a
minute on 2 cores) shrinks the matrices, seeds and m ranges; the full run takes a few minutes.

Usage: ``python benchmarks/bench_spatial.py [--quick] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _common import ROOT, use_wpart  # noqa: E402  (installed wpart first, else this checkout)

use_wpart()

from wpart.experiments import jsonable
from wpart.experiments import spatial as ex
from wpart.experiments import spatial_paper as sp

STEPS = {
    "quality": ex.quality,
    "series": ex.series,
    "resolution": sp.resolution,
    "stripes": ex.stripes,
    "variants": sp.variants,
    "hybrid": sp.hybrid,
    "timing": ex.timing,
    "scaling": ex.scaling,
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run (< 60 s)")
    ap.add_argument("--json", type=Path, default=None, help="write the results here")
    ap.add_argument("--only", choices=list(STEPS), default=None)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    results, ok_all = {}, True
    names = [args.only] if args.only else list(STEPS)
    for i, name in enumerate(names, 1):
        ok, data, text = sp.timed(name, lambda name=name: STEPS[name](args.quick), True, i,
                                  len(names), "quick sizes" if args.quick else "full sizes")
        print(text, "\n", flush=True)
        results[name] = {"ok": ok, "data": data}
        ok_all &= ok
    miss = results.get("timing", {}).get("data", {}).get("target_10x_miss", [])
    timing = f"; timing MISS on {', '.join(miss)}" if miss else ""
    print(f"bench_spatial: checks {'hold' if ok_all else 'FAILED'}{timing} "
          f"in {time.perf_counter() - t0:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(jsonable(results), indent=1))
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
