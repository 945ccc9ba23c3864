"""LBAF's public example datasets, shipped with wpart for tests, notebooks and reproduction.

The files are vt ``LBDatafile`` JSON (one per rank, some brotli-compressed), copied unchanged
from the LB-analysis-framework repository under its BSD-3-Clause licence
(``wpart/data/lbaf/LICENSE``; ``README.md`` there says what each folder holds).

Examples
--------
>>> from wpart import tasks
>>> p = tasks.Problem.from_lbdatafile(tasks.datasets.lbaf_path("synthetic-blocks/synthetic-dataset-blocks"))
>>> p.m
4
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["LBAF_DIR", "lbaf_path"]

#: Folder of the shipped LBAF datasets.
LBAF_DIR = Path(__file__).resolve().parent.parent / "data" / "lbaf"


def lbaf_path(name: str) -> str:
    """Path of a shipped LBAF dataset (a folder, or a file stem without ``.<rank>.json``).

    Parameters
    ----------
    name : str
        Relative name such as ``"synthetic-blocks/synthetic-dataset-blocks"``; ``""`` for the
        folder itself (:data:`LBAF_DIR`).

    Returns
    -------
    str
        An absolute path string (with a trailing separator for the folder itself).
    """
    if not name:
        return str(LBAF_DIR) + "/"
    return str(LBAF_DIR / name)
